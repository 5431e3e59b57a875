/* chessrelay relay: the two lanes of a relay's games, for the venue relay
 * (loop.c) and the edge (cmd_edge.c) alike.
 *
 * The live lane is the live store: every event as it is made (arbiters,
 * agents, NATS). The public lane is what viewers without a token see: the
 * same events, each `delay_s` after its ts (the delay line), applied to a
 * public store of its own; without a delay the live store is the public
 * one. Every event of each lane is published to the server thread (a
 * cr_pub, core/publish.h) through the publication queue, which is woken once per
 * loop turn rather than once per event: the events of one feed event (a
 * move, its clock...) go out in one service round.
 *
 * While quiet (rebuilding from a journal, restoring a state file) events
 * are applied but nothing is published; cr_lanes_publish_states then
 * publishes every game of both lanes at once.
 *
 * Threads: the loop thread only. Ownership: cr_lanes_new returns a new
 * object owning both stores and the delay line; the queue and the
 * event_base are borrowed and must outlive it. */
#ifndef CR_RELAY_LANES_H
#define CR_RELAY_LANES_H

#include <event2/event.h>

#include "util/buf.h"
#include "net/queue.h"
#include "core/store.h"
#include "core/publish.h"

typedef struct cr_lanes_config {
    int delay_s;             /* the public delay; 0: none */
    cr_queue *pubs;          /* publications to the server thread */
    struct event_base *base; /* the loop's */
    /* An event was applied to the live store (may be NULL): before it is
     * published. json (borrowed): its JSON, NULL while quiet without a
     * delay. */
    void (*live_event)(void *data, const cr_store *live, const cr_store_event *ev, cr_buf *json);
    /* An event reached the public store (the live one without a delay; may
     * be NULL). */
    void (*public_event)(void *data, const cr_store *public_store, const cr_store_event *ev);
    void *data;
} cr_lanes_config;

typedef struct cr_lanes cr_lanes;

/* NULL when out of memory. */
cr_lanes *cr_lanes_new(const cr_lanes_config *cfg);
void cr_lanes_free(cr_lanes *l); /* accepts NULL */

/* The live store; the public one (the live one without a delay). */
cr_store *cr_lanes_live(const cr_lanes *l);
const cr_store *cr_lanes_public(const cr_lanes *l);

void cr_lanes_set_quiet(cr_lanes *l, bool quiet);

/* Whether the PGN published with each game carries the engine
 * evaluations (cr_store_set_pgn_evals on both stores). */
void cr_lanes_set_pgn_evals(cr_lanes *l, bool on);
/* Whether /live.pgn and /game/N.pgn carry the words of uncertainty
 * (cr_store_set_pgn_marks on both stores). */
void cr_lanes_set_pgn_marks(cr_lanes *l, bool on);

/* Applies ev (its seq and ts given) to the live store. On success takes ev
 * and json (its serialised form, or NULL: made here when needed), tells
 * live_event, publishes it on the live lane and queues it for the public
 * one; returns 0. Otherwise returns the store's error (err filled) and
 * takes neither. */
int cr_lanes_add(cr_lanes *l, cr_store_event *ev, cr_buf *json, cr_error *err);

/* Moves the events due at now_us (wall us) from the delay line to the
 * public store. */
void cr_lanes_tick(cr_lanes *l, int64_t now_us);

/* An engine's evaluation (engine/evals.h) of the position `fen` after ply
 * `ply` of game `game`: set on the public store, and on the live one, each
 * only where that ply has that position (a correction may have changed
 * it), and published on those lanes. The public store never gets an
 * evaluation of a position it does not have yet: evaluations keep the
 * public delay. Returns the lanes it was set on (CR_LANE_*; 0: none). */
unsigned cr_lanes_set_eval(cr_lanes *l, int game, int ply, const char *fen, const cr_eval *e);

/* Every game's state of both lanes, then a mark (after a rebuild). */
void cr_lanes_publish_states(cr_lanes *l);

/* Any other publication (stats...): takes p (freed if the queue is
 * closed). Waits for room. */
void cr_lanes_publish(cr_lanes *l, cr_pub *p);

#endif
