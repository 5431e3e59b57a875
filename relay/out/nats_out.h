/* chessrelay relay: publishing the store events to NATS JetStream, so that
 * edge relays (cmd_edge.c) far from the venue serve the viewers.
 *
 * Every store event the loop emits (the protocol message of
 * cr_store_event_json, with its seq) goes to the stream (default
 * CHESSRELAY, created when missing with subjects "chessrelay.>") under
 *
 *   chessrelay.<tournament>.<round>.<board>      (tokens: cr_nats_token)
 *
 * with the headers
 *
 *   Nats-Msg-Id: <tournament>:<seq>   the stream drops a resent duplicate
 *   Cr-Seq: <seq>
 *   Cr-Delay: <s>                     the venue's public delay: an edge with
 *                                     less refuses to serve (no early moves)
 *   Cr-Ply: <emt_ms> <ts> <fits>      MOVE only: ply data the message lacks
 *
 * The connection's socket is driven by the caller's libevent loop
 * (libnats' libevent adapter; the caller has called evthread_use_pthreads()
 * before creating the base). The loop thread only hands events over
 * (cr_nats_out_event never blocks and never fails the loop); a publisher
 * thread of its own keeps them in order, makes the JetStream API requests
 * (they wait for a reply that the loop reads, so never on the loop thread
 * and not before the loop runs), sends them with asynchronous publishes
 * and keeps each one until the stream acknowledges it: unacknowledged events are sent again (after
 * ack_wait_ms, an error, a reconnection), so a NATS outage delays the stream but loses nothing, up
 * to backlog_bytes held in memory (beyond that the oldest events are
 * dropped and counted). On start the publisher asks the stream for the
 * tournament's last seq and skips what it already holds, so a relay that
 * rebuilds from its journal (same events, same seqs) does not publish its
 * history twice. Edges put events back in seq order (a resent event may
 * land in the stream after later ones).
 *
 * Threads: start/event/stop from the loop thread only. */
#ifndef CR_RELAY_NATS_OUT_H
#define CR_RELAY_NATS_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <event2/event.h>
#include <nats/nats.h>

#include "cr/common.h"
#include "core/store.h"

#define CR_NATS_STREAM "CHESSRELAY"
#define CR_NATS_PREFIX "chessrelay"
#define CR_NATS_TOKEN_MAX 64
#define CR_NATS_HDR_SEQ "Cr-Seq"
#define CR_NATS_HDR_PLY "Cr-Ply"
#define CR_NATS_HDR_DELAY "Cr-Delay"
#define CR_NATS_HDR_AFTER "Cr-After"
#define CR_NATS_EVAL_TOKEN "eval"

typedef struct cr_nats_out_config {
    const char *url;        /* "nats://h:p" or several, comma-separated; NULL: no publishing */
    const char *tournament; /* subject token source; NULL: the event name, else "default" */
    const char *stream;     /* NULL: CR_NATS_STREAM */
    int replicas;           /* of the stream when this publisher creates it; 0: 1 */
    size_t backlog_bytes;   /* 0: 256 MiB */
    int ack_wait_ms;        /* 0: 2000 */
    int drain_ms;           /* stop: wait this long for the last acks; 0: 10000 */
} cr_nats_out_config;

/* Command-line options shared by serve, replay --serve and demo:
 * --publish URL, --publish-tournament NAME, --stream NAME,
 * --stream-replicas N. Returns 1 if opt is one of them (val consumed), 0
 * if not, -1 after printing a usage error naming `who`. */
int cr_nats_out_option(cr_nats_out_config *cfg, const char *who, const char *opt, const char *val);

/* Writes s as a subject token: A-Z a-z 0-9 _ - kept, anything else '_',
 * at most CR_NATS_TOKEN_MAX - 1 bytes, "_" for an empty s. out has
 * CR_NATS_TOKEN_MAX bytes. */
void cr_nats_token(const char *s, char out[CR_NATS_TOKEN_MAX]);

/* Connects (with retries in the background: a server that is down now is
 * not an error) to a comma-separated URL list, tried in that order,
 * reconnecting forever. base: the libevent loop that reads and writes the
 * socket (NULL: libnats' own threads do). A request, a flush or a
 * subscription made on base's thread, or before base runs, waits for its
 * whole timeout: make them from another thread. on_change (with closure)
 * is called on libnats' threads at a disconnection or reconnection, also
 * after the connection is closed: closure must outlive the connection.
 * Returns the connection or NULL with err filled. */
natsConnection *cr_nats_connect(const char *urls, const char *name, struct event_base *base,
                                natsConnectionHandler on_change, void *closure, cr_error *err);

typedef struct cr_nats_out cr_nats_out;

/* Starts the publisher thread and connects on base (which must outlive
 * the publisher). event_name: the tournament's event (used when
 * cfg->tournament is NULL); delay_s: the public delay (seconds) edges must
 * keep at least. Returns NULL with err filled for a bad URL or no memory. */
cr_nats_out *cr_nats_out_start(const cr_nats_out_config *cfg, struct event_base *base,
                               const char *event_name, int delay_s, cr_error *err);

/* Hands over one event that the store `store` has just applied (round and
 * board of its game are looked up there). json: its message if the caller
 * has it (a reference is taken), or NULL. Never blocks. p may be NULL. */
void cr_nats_out_event(cr_nats_out *p, const cr_store *store, const cr_store_event *ev,
                       cr_buf *json);

/* Hands over the engine evaluation of ply `ply` of game `game` that the
 * store `store` (the public one: evaluations keep the public delay) has
 * just taken. It goes to
 *
 *   chessrelay.<tournament>.<round>.<board>.eval
 *
 * as the store's "eval" message with "fen" (the position it is of) added,
 * with the headers Cr-After: <seq of the last event handed over before
 * it>, Cr-Delay, and Nats-Msg-Id <tournament>:eval:<game>:<ply>:<hash of
 * the message> (no Cr-Seq: it is no event). Kept and resent until
 * acknowledged like events, in the same order; never skipped at start.
 * Never blocks. p may be NULL. */
void cr_nats_out_eval(cr_nats_out *p, const cr_store *store, int game, int ply);

typedef struct cr_nats_out_stats {
    int64_t queued, sent, acked, resent, dropped, skipped;
    int64_t acked_seq; /* every event up to this one is in the stream */
    size_t held;       /* events held, not yet acknowledged */
    bool connected;
} cr_nats_out_stats;

void cr_nats_out_get_stats(cr_nats_out *p, cr_nats_out_stats *out);

/* Writes the stats to f as Prometheus text (chessrelay_nats_*). */
void cr_nats_out_metrics(cr_nats_out *p, FILE *f);

/* From the loop thread, after the loop has stopped: runs the loop
 * (EVLOOP_ONCE; whatever else is still pending on base runs too) up to
 * drain_ms while held events are being acknowledged, then stops the
 * thread and closes the connection. Not waiting when NATS is not
 * reachable: unacknowledged events are in the journal and are published
 * after a restart. Accepts NULL. */
void cr_nats_out_stop(cr_nats_out *p);

#endif
