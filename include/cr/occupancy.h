/* chessrelay: naming the pieces of occupancy snapshots.
 *
 * Some boards know that a square is occupied but not by what (an
 * uncalibrated Certabo, an occupancy-only board): their snapshots hold
 * CR_OCCUPIED on such squares (`?` in a feed's `pos` line). The move
 * inference (infer.h) wants named pieces, so a namer sits in front of it: it
 * follows the game from the start position by legal moves and names each
 * occupancy snapshot as the position that one legal move (or a take-back of
 * up to 8 plies, or a take-back and a move, or two moves) gives with exactly
 * those squares occupied. Squares a snapshot does name must match too.
 *
 * What occupancy cannot tell, it resolves as a board would be read by eye:
 * - a capture: the candidates are the moves landing on an occupied square;
 *   one counts when its victim's square was seen empty since the last move
 *   (a capturer set down looks like a piece still in the air otherwise);
 *   a victim swapped for the capturer in one motion is never seen gone:
 *   when the board then stands CR_OCC_HOLD_MS with just that piece gone and
 *   it had one capture only, that capture was played;
 * - a promotion: a queen (an under-promotion looks the same and is named a
 *   queen);
 * - orientation: the start position's occupancy is the same both ways
 *   round; White's first move is legal one way only, and decides (a board
 *   turned 180 degrees is then named turned, and its start position is
 *   given again, turned, so that the inference sees the board's way).
 * When several positions still fit, or none does (a piece in the air), the
 * snapshot is named from the last position with the squares that emptied
 * cleared, one piece that moved to one new square carried there, and other
 * new squares left empty; the inference then waits as for any in-between
 * board. Nothing is named before a start position (or cr_occ_namer_set) was
 * seen.
 *
 * Ownership: cr_occ_namer_new returns a new object, free it with
 * cr_occ_namer_free. Pure: no I/O. */
#ifndef CR_OCCUPANCY_H
#define CR_OCCUPANCY_H

#include "cr/board.h"

/* A square known to be occupied by a piece of unknown identity (piece type 7
 * is no type). */
#define CR_OCCUPIED 7

/* Whether a snapshot has squares of unknown identity. */
CR_EXTERN bool cr_occ_has_unknown(const uint8_t squares[CR_SQ_NB]);

typedef struct cr_occ_namer cr_occ_namer;

CR_EXTERN cr_occ_namer *cr_occ_namer_new(void); /* NULL when out of memory */
CR_EXTERN void cr_occ_namer_free(cr_occ_namer *n); /* accepts NULL */

/* The game continues from pos (a `meta FEN`). */
CR_EXTERN void cr_occ_namer_set(cr_occ_namer *n, const cr_position *pos);

/* A board that stood this long with one piece gone and nothing else changed
 * had it capture, when that piece had exactly one capture (see above). */
#define CR_OCC_HOLD_MS 1000

/* Names in (CR_OCCUPIED squares, and named ones), seen at time t (ms, not
 * decreasing), into out. Returns 1 when out is a position the game reached
 * (followed), 0 when it is the best picture of an in-between board. */
CR_EXTERN int cr_occ_namer_name(cr_occ_namer *n, int64_t t, const uint8_t in[CR_SQ_NB],
                                uint8_t out[CR_SQ_NB]);

/* Before naming a snapshot seen at t: when the board had stood as above (a
 * capture with its victim swapped), adopts that capture and gives the
 * position it reached; when the snapshot shows White's first move on a
 * board turned round, gives the start position turned. Either is to be fed
 * before the snapshot (true). False: nothing to feed. */
CR_EXTERN bool cr_occ_namer_settle(cr_occ_namer *n, int64_t t, const uint8_t in[CR_SQ_NB],
                                   uint8_t out[CR_SQ_NB]);

/* The position the namer follows (NULL before a start was seen). */
CR_EXTERN const cr_position *cr_occ_namer_position(const cr_occ_namer *n);

#endif
