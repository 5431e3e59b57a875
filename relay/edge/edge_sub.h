/* chessrelay relay: an edge's stream subscriber. It connects to NATS (the
 * socket driven by the caller's libevent loop, out/nats_out.h
 * cr_nats_connect) and reads the venue's stream (out/nats_out.h: subjects
 * chessrelay.<tournament>.<round>.<board>[.eval], headers Cr-Seq or
 * Cr-After, Cr-Delay, Cr-Ply) with an ordered consumer from a given stream
 * message on. Each message becomes a cr_edge_msg pushed to the caller's
 * queue.
 *
 * Threads: creating the consumer is a JetStream request that waits for a
 * reply the loop reads, so a thread of its own makes it, retrying every
 * second until it succeeds, then ends; libnats delivers the messages on its
 * threads (they wait in cr_queue_push while the queue is full). new, start
 * and free run on the loop thread; `subscribed` is called there.
 *
 * Ownership: cr_edge_sub_new returns a new subscriber (connected, not yet
 * reading); cr_edge_sub_free stops the thread, unsubscribes and closes the
 * connection. Close the queue before (a libnats thread may wait on it) and
 * free it after. */
#ifndef CR_RELAY_EDGE_SUB_H
#define CR_RELAY_EDGE_SUB_H

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "cr/common.h"
#include "net/queue.h"

typedef struct cr_edge_sub cr_edge_sub;

typedef struct cr_edge_sub_config {
    const char *urls;       /* nats://HOST:PORT[,...] */
    const char *stream;     /* the stream's name */
    const char *tournament; /* its subject token, or NULL: every tournament */
    uint64_t after;         /* the last stream message already had (0: none) */
    cr_queue *in;           /* where the messages (cr_edge_msg *) go */
    struct event_base *base;
    /* Loop thread, once subscribed: whether the stream held nothing more
     * then (an empty stream sends nothing to say so). */
    void (*subscribed)(void *data, bool caught_up);
    void *data;
} cr_edge_sub_config;

/* Connects (in the background: a server that is down now is not an
 * error). NULL with err filled for a bad URL or no memory. */
cr_edge_sub *cr_edge_sub_new(const cr_edge_sub_config *cfg, cr_error *err);

/* Starts the subscriber thread once the loop runs (the request needs
 * it). Returns 0 or CR_ENOMEM. */
int cr_edge_sub_start(cr_edge_sub *s);

/* Whether the thread could not be started (the loop was told to end). */
bool cr_edge_sub_failed(const cr_edge_sub *s);

void cr_edge_sub_free(cr_edge_sub *s); /* accepts NULL */

/* Whether a stream subject is an evaluation's: five tokens, the last one
 * CR_NATS_EVAL_TOKEN. */
bool cr_edge_sub_eval_subject(const char *subject);

#endif
