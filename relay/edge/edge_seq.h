/* chessrelay relay: an edge's resequencer. The venue's store events must be
 * applied in seq order, but a resent event may sit in the stream after
 * later ones: an early event waits here until every seq before it is
 * applied; if the gap lasts (the caller's wait, cr_edge_seq_tick) it is
 * skipped. A seq already applied (or an equal one waiting) is a duplicate
 * and dropped. An engine evaluation (cr_edge_msg.eval, seq its Cr-After)
 * waits until every event up to its seq is applied (its move is then in
 * the store) and is handed over in arrival order.
 *
 * Pure bookkeeping on the loop thread: no I/O, time is the caller's
 * (monotonic microseconds).
 *
 * Ownership: cr_edge_seq_new returns a new resequencer, freed (with every
 * message it holds) by cr_edge_seq_free. cr_edge_seq_take takes the
 * message; the callbacks borrow it for the call only. */
#ifndef CR_RELAY_EDGE_SEQ_H
#define CR_RELAY_EDGE_SEQ_H

#include <stdint.h>

#include "edge/edge_msg.h"

typedef struct cr_edge_seq cr_edge_seq;

typedef void (*cr_edge_seq_fn)(void *data, const cr_edge_msg *m);

typedef struct cr_edge_seq_config {
    cr_edge_seq_fn event; /* the next event in seq order (a refused one still takes its seq) */
    cr_edge_seq_fn eval;  /* an evaluation whose events are all applied */
    void *data;
    int pending_max; /* events held waiting; beyond it the gap is skipped. 0: 1 << 17 */
} cr_edge_seq_config;

typedef struct cr_edge_seq_stats {
    int64_t done_seq;   /* every seq up to this one is applied (or skipped) */
    int64_t skipped;    /* seqs given up on */
    int64_t duplicates; /* events dropped as already had */
    int pending;        /* events waiting for an earlier seq */
    int evals;          /* evaluations waiting for their events */
} cr_edge_seq_stats;

/* NULL when out of memory. */
cr_edge_seq *cr_edge_seq_new(const cr_edge_seq_config *cfg);
void cr_edge_seq_free(cr_edge_seq *s); /* accepts NULL */

/* Takes m (freed here, at once or once applied): applies it and what it
 * unblocks, or holds it. now_us: monotonic time, for the gap's wait. */
void cr_edge_seq_take(cr_edge_seq *s, cr_edge_msg *m, int64_t now_us);

/* Skips the gap before the first waiting event if it has waited more than
 * wait_us; returns the number of seqs skipped (0: none). */
int64_t cr_edge_seq_tick(cr_edge_seq *s, int64_t now_us, int64_t wait_us);

/* Gives up on the missing seqs before the first waiting event now (and
 * applies what follows). Returns the number of seqs skipped. */
int64_t cr_edge_seq_skip(cr_edge_seq *s, int64_t now_us);

void cr_edge_seq_get_stats(const cr_edge_seq *s, cr_edge_seq_stats *st);

#endif
