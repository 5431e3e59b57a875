/* chessrelay relay: engine evaluations of the broadcast's games.
 *
 * Fed with the events of the public lane (cr_evals_public_event, from the
 * lanes' public_event): every move's new position is asked of the engine
 * pool (pool.h) with the move's seq as its priority, so games with a new
 * move go first and each position is analysed once (the pool's cache).
 * Positions enter only once public: with a public delay an evaluation
 * never tells a move before the delay does (engine.live: the live lane's
 * positions too, for the arbiters, see cr_evals_live_event). Each result becomes a cr_eval
 * (white's point of view, the line in SAN) set on the lanes'
 * stores where the ply still has that position (cr_lanes_set_eval), which
 * publishes it as an "eval" message (docs/protocol.md).
 *
 * Alerts (engine.mistake_cp / blunder_cp > 0): a ply after which the
 * mover's evaluation fell by that much (scores clamped to +-10 pawns, a
 * mate counted as 10 pawns) gets NAG 2 ("?") or 4 ("??") in its eval.
 *
 * Threads: the loop thread. Ownership: cr_evals_new returns a new object
 * owning its pool; lanes are borrowed and must outlive it. */
#ifndef CR_RELAY_EVALS_H
#define CR_RELAY_EVALS_H

#include <stdio.h>

#include "core/config.h"
#include "core/lanes.h"
#include "engine/pool.h"

typedef struct cr_evals_config {
    struct event_base *base;
    const cr_config_engine *engine; /* path, processes, ... (copied) */
    cr_lanes *lanes;
    int nice;  /* the engines' niceness (10 in the relay) */
    bool idle; /* and SCHED_IDLE (the relay: yes) */
    /* An evaluation was set on the public store (may be NULL). */
    void (*evaluated)(void *data, const cr_store *public_store, int game, int ply);
    void *data;
} cr_evals_config;

typedef struct cr_evals cr_evals;

/* Starts the engines. NULL with err filled (a wrong engine path names
 * it). */
cr_evals *cr_evals_new(const cr_evals_config *cfg, cr_error *err);
void cr_evals_free(cr_evals *x); /* accepts NULL */

/* An event that reached the public store. */
void cr_evals_public_event(cr_evals *x, const cr_store *public_store, const cr_store_event *ev);

/* An event of the live lane. Only with engine.live and a public delay: its
 * positions are analysed at once (below every public one) for the live
 * lane, so arbiters see evaluations live; the public store still takes an
 * evaluation only once it has the position (from the cache by then). Off
 * by default: then no position is analysed before it is public. */
void cr_evals_live_event(cr_evals *x, const cr_store *live, const cr_store_event *ev);

/* The evaluation of a UCI result for the position fen (the engine's
 * score turned to white's point of view, best move and line in SAN).
 * Returns 0, or CR_EINVAL when r has no score or fen is malformed. */
int cr_evals_from_uci(const char *fen, const cr_uci_result *r, cr_eval *e);

/* The NAG of a ply from the evaluations before and after it: mover is the
 * side that played it (CR_WHITE/CR_BLACK). 0 when alerts are off. */
int cr_evals_nag(const cr_eval *before, const cr_eval *after, int mover, int mistake_cp,
                 int blunder_cp);

/* Positions analysed and answered from the cache, queued, engines up. */
void cr_evals_get_stats(const cr_evals *x, cr_engine_pool_stats *st);

/* Those figures as Prometheus text (chessrelay_engine_*). */
void cr_evals_metrics(const cr_evals *x, FILE *f);

#endif
