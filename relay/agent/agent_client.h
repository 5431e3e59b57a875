/* chessrelay relay: the agent program's end of the agent link (the relay's
 * end is agent/agent_link; messages in agent/agent_msg.h, contract in
 * docs/protocol.md "Agents"). It owns the agent's journal
 * (agent/agent_journal): the main thread appends every feed event to it
 * and raises the watermark (every event stamped up to that agent time is
 * journaled); the link thread keeps one WebSocket to the relay up,
 * reconnecting with a backoff (100 ms doubling to 5 s, back to 100 ms once
 * welcomed), sends what the relay has not acknowledged in batches (synced
 * to disk first), with the watermark, and trims the journal as acks come.
 *
 * Threads: the main thread calls new, record, watermark, sources_done,
 * start, stop and free; the link thread (lws) runs the connection. The
 * journal, the watermark and sources_done are shared under the client's
 * mutex. The session functions below (writeable, receive, backoff) are
 * what the link thread runs; they need no connection, so tests call them
 * directly on a client that was never started.
 *
 * Ownership: cr_agent_client_new returns a new client (the journal open,
 * nothing started); cr_agent_client_free ends the link thread
 * (cr_agent_client_end) and closes the journal. */
#ifndef CR_RELAY_AGENT_CLIENT_H
#define CR_RELAY_AGENT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "cr/common.h"

#define CR_AGENT_BACKOFF_MIN_US (100 * 1000)
#define CR_AGENT_BACKOFF_MAX_US (5 * 1000 * 1000)

/* A relay's address: ws://HOST[:PORT]/PATH or wss://... */
typedef struct cr_agent_url {
    char host[256];
    int port; /* 80 or 443 when not given */
    char path[1024]; /* with its leading "/" */
    bool tls;
} cr_agent_url;

/* Returns 0, or -1 when url is not a ws:// or wss:// URL with a host. */
int cr_agent_url_parse(const char *url, cr_agent_url *out);

/* An agent id made of a host name (host: "" when unknown): A-Z a-z 0-9 .
 * _ - kept, anything else '-', at most CR_AGENT_ID_MAX bytes; "agent" for
 * an empty host. out has CR_AGENT_ID_MAX + 1 bytes. */
void cr_agent_id_from_host(const char *host, char *out);

typedef struct cr_agent_client cr_agent_client;

typedef struct cr_agent_client_config {
    const char *id;        /* the agent's id (cr_agent_id_valid); copied */
    const char *token;     /* copied */
    const char *url;       /* the relay's /agent, as cr_agent_url_parse takes it; copied */
    const char *state_dir; /* the agent's journal folder (made if missing) */
    bool insecure;         /* wss: accept a self-signed certificate */
    bool exit_at_end;      /* leave once the sources are done and the relay has everything */
    int64_t (*clock)(void *data); /* the agent's feed clock now (ms); any thread */
    void *clock_data;
} cr_agent_client_config;

/* Opens the journal (logging what it found: events, acks, a torn line, a
 * record that does not match its seal). NULL with err filled: a bad URL
 * (CR_EINVAL), an unreadable journal, no memory. */
cr_agent_client *cr_agent_client_new(const cr_agent_client_config *cfg, cr_error *err);
void cr_agent_client_free(cr_agent_client *c); /* accepts NULL */

/* The journal's epoch (wall ms at agent time 0: where the feed clock
 * starts) and its last event number (0: none). */
int64_t cr_agent_client_epoch(cr_agent_client *c);
int64_t cr_agent_client_last(cr_agent_client *c);

/*----- main thread -----*/

/* Appends one feed line (len bytes, no "\n") to the journal and wakes the
 * link. Returns 0 or the journal's error (CR_EIO, CR_ENOMEM). */
int cr_agent_client_record(cr_agent_client *c, const char *line, size_t len);

/* Every event stamped up to wm (agent ms) is journaled; never lowers it. */
void cr_agent_client_watermark(cr_agent_client *c, int64_t wm);
int64_t cr_agent_client_get_watermark(cr_agent_client *c);

/* No more events will come (feed files played to the end). */
void cr_agent_client_sources_done(cr_agent_client *c);

/* The sources are done and the relay has acknowledged every event. */
bool cr_agent_client_all_done(cr_agent_client *c);

/* Creates the WebSocket client and starts the link thread; base is told
 * to end (event_base_loopexit) when that thread ends or the relay refuses
 * the token. Returns 0 or -1 (logged). */
int cr_agent_client_start(cr_agent_client *c, struct event_base *base);

/* Asks the link to leave (after a bye if it is up); returns at once. Safe
 * from a signal watcher's thread. */
void cr_agent_client_stop(cr_agent_client *c);

/* Stops the link thread (after a bye if the link is up: at most 2 s) and
 * waits for it; frees the connection. The journal stays open. Idempotent. */
void cr_agent_client_end(cr_agent_client *c);

/* Whether the link thread has ended; the exit status it asks for (1: the
 * relay refused the token). */
bool cr_agent_client_finished(cr_agent_client *c);
int cr_agent_client_status(cr_agent_client *c);

/*----- the session (link thread) -----*/

typedef enum cr_agent_step {
    CR_AGENT_IDLE = 0,  /* nothing to send now */
    CR_AGENT_SEND,      /* send *msg (NULL: it could not be built: close) */
    CR_AGENT_SEND_MORE, /* send *msg, then ask to write again */
    CR_AGENT_CLOSE      /* the bye went out: close the connection */
} cr_agent_step;

/* A connection is established: the session starts again (hello first). */
void cr_agent_client_connected(cr_agent_client *c);

/* A tick is due (every 250 ms while welcomed): the next idle write sends
 * the watermark. */
void cr_agent_client_tick_due(cr_agent_client *c);

/* The socket is writable: what to send, in this order: the hello; once
 * welcomed, the next batch of unacknowledged events (synced first; its
 * clock the watermark, or the last event's time when more events follow);
 * the bye when leaving; a due tick. *msg: a new message (free it, or give
 * it to cr_ws_send_text). */
cr_agent_step cr_agent_client_writeable(cr_agent_client *c, char **msg);

/* A message from the relay (len bytes): a welcome (acknowledged up to n;
 * a relay that has more than this journal makes it renumber), an ack, an
 * error (a token error stops the agent with status 1). A message that
 * does not parse is logged and ignored. Returns 0, or the journal's error
 * (logged). */
int cr_agent_client_receive(cr_agent_client *c, const char *text, size_t len);

/* Whether the relay has welcomed this connection. */
bool cr_agent_client_welcomed(cr_agent_client *c);

/* The wait before the next connection attempt (us); each call doubles
 * the next one up to CR_AGENT_BACKOFF_MAX_US; a welcome starts again from
 * CR_AGENT_BACKOFF_MIN_US. */
int64_t cr_agent_client_backoff(cr_agent_client *c);

#endif
