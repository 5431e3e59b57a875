/* chessrelay relay: the round's results back to the pairing program. The
 * pairings TRF in force (core/pairings_link.h) with the results of the
 * round played filled in from the live store (cr_pairings_trf_results):
 * served to arbiters as /arbiter/results.trf and written to the export
 * folder as round-<n>/results.trf once every board of the round has a
 * result an arbiter stands behind.
 *
 *  - Confirmed: the last RESULT event of the game came from an arbiter (an
 *    arbiter's action or a trusted client's result command, live or from
 *    the journal), not from the board, the inference or the relay's own
 *    monitors (who "relay"). A result nobody confirmed is not written as
 *    final: the file names it in a "###" line.
 *  - The store has no forfeit results: a win in a game of fewer than two
 *    plies is written as a forfeit (+ and -: FIDE Laws 6.7, a default), a
 *    draw of fewer than two plies as a draw not rated (D).
 *  - Only games made from the pairings (cr_pairings_link_owns) of the round
 *    played count, by their table.
 *
 * Threads: loop thread only. Ownership: cr_round_results_new returns a new
 * object, free it with cr_round_results_free; the buffers it returns are new
 * references (cr_buf_unref). */
#ifndef CR_RELAY_ROUND_RESULTS_H
#define CR_RELAY_ROUND_RESULTS_H

#include <stdbool.h>

#include "core/pairings_link.h"
#include "core/store.h"
#include "util/buf.h"

typedef struct cr_round_results cr_round_results;

cr_round_results *cr_round_results_new(void); /* NULL when out of memory */
void cr_round_results_free(cr_round_results *rr); /* accepts NULL */

/* An event was applied to the live store: a RESULT's game has a result an
 * arbiter stands behind (ev->by_arbiter, see above) or not; others change
 * nothing. */
void cr_round_results_note(cr_round_results *rr, const cr_store_event *ev);

/* Sets *trf (a new reference, or NULL: no pairings, not a TRF, no round
 * played, an error, logged once) to the TRF with the round played's
 * results as the live store has them now; made again only when a result,
 * its confirmation or the pairings changed. Returns the round played when
 * every board of it has a confirmed result (the round is over), else 0. */
int cr_round_results_make(cr_round_results *rr, const cr_pairings_link *pl, const cr_store *live,
                          cr_buf **trf);

#endif
