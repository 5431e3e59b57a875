/* chessrelay relay: the edge relay, a relay without boards. It reads the
 * store events a venue relay publishes to NATS JetStream (edge/edge_sub),
 * puts them back in seq order (edge/edge_seq), rebuilds the games in its
 * own lanes (edge/event_decode, core/lanes) and serves viewers exactly
 * like `serve`: the same server (net/server) fed through the same
 * publications (net/view) from this edge's own libevent loop. With a state
 * folder every message is appended to the edge's sealed state log
 * (edge/edge_log) before it is applied; a restart applies that file again
 * and resumes the stream after its last message.
 *
 * Without a tournament the edge follows the first one it sees. Arbiters'
 * commands go to the venue relay: the edge is read-only. An edge whose
 * public delay is shorter than the venue's (header Cr-Delay) stops with an
 * error rather than show moves early.
 *
 * Engine evaluations come from the venue too (subject ...<board>.eval,
 * header Cr-After): an eval is applied once every event up to its Cr-After
 * seq is (its move is then in the live store), to the live store and, when
 * the public store has that position already, to the public one; with a
 * longer delay than the venue's the public store takes it from the live one
 * when the move becomes public here.
 *
 * Threads: the loop thread runs everything here; the server thread, the
 * subscriber's and libnats' hand over through queues (see
 * docs/architecture.md, "Threads").
 *
 * Ownership: cr_edge_new returns a new edge (nothing started) that borrows
 * cfg->config; cr_edge_free stops and frees everything cr_edge_run made. */
#ifndef CR_RELAY_EDGE_H
#define CR_RELAY_EDGE_H

#include <stdint.h>

#include "core/config.h"
#include "core/sigwatch.h"

typedef struct cr_edge cr_edge;

typedef struct cr_edge_config {
    const char *from;       /* nats://HOST:PORT[,...] */
    const char *stream;     /* the stream's name (a subject token) */
    const char *tournament; /* its subject token, or NULL: the first one seen */
    const char *state_dir;  /* the state log's folder, or NULL: none */
    const char *port_file;  /* where to write the port listened on, or NULL */
    int64_t gap_wait_us;    /* how long events wait for a missing seq */
    const cr_config *config; /* listen address, delay, tokens, web root; outlives the edge */
} cr_edge_config;

/* NULL when out of memory. */
cr_edge *cr_edge_new(const cr_edge_config *cfg);

/* Starts the loop, the server, the state log and the subscriber (sw: the
 * signal watcher, made before any thread) and runs until a signal or a
 * fatal error (logged). Once per edge. Returns the exit status (0 or 1). */
int cr_edge_run(cr_edge *e, cr_sigwatch *sw);

void cr_edge_free(cr_edge *e); /* accepts NULL */

#endif
