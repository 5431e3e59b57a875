/* chessrelay relay: one board's feed events through the move inference, as
 * the relay's loop and `chessrelay replay` both run them.
 *
 * RAW bytes are decoded with the DGT codec of drivers/ (a decoder made on
 * the first RAW event, its stream reset when the board disconnects) and the
 * POS / CLOCK they give go to the board's cr_infer, exactly as from a live
 * board; a board that has RAW events is read from them alone (its POS and
 * CLOCK lines, decoded from the same bytes, are passed over); every other
 * event goes to the inference as it is.
 *
 * Ownership: cr_board_infer_new returns a new object owning its cr_infer
 * and decoder; cr_board_infer_free frees them. */
#ifndef CR_RELAY_BOARD_INFER_H
#define CR_RELAY_BOARD_INFER_H

#include "cr/feed.h"
#include "cr/infer.h"

typedef struct cr_board_infer cr_board_infer;

/* cfg may be NULL (defaults); cb gets the inference's events. NULL when out
 * of memory. */
cr_board_infer *cr_board_infer_new(const char *board_id, const cr_infer_config *cfg, cr_infer_cb cb,
                                   void *data);
void cr_board_infer_free(cr_board_infer *b); /* accepts NULL */

/* One feed event of this board. Returns 0, or CR_ENOMEM when a RAW event
 * could not be decoded for want of memory. */
int cr_board_infer_feed(cr_board_infer *b, const cr_feed_event *ev);

/* What the board shows: fn gets every POS and CLOCK the inference is fed,
 * after it (decoded from RAW, an occupancy snapshot as named, else as
 * given), so that a watcher follows RAW-only and occupancy boards too
 * (core/eboards.h). NULL fn: none. */
typedef void (*cr_board_infer_shown_fn)(void *data, const cr_feed_event *ev);
void cr_board_infer_watch(cr_board_infer *b, cr_board_infer_shown_fn fn, void *data);

/* The board's inference (borrowed): ticks, finish, stats, game. */
cr_infer *cr_board_infer_engine(const cr_board_infer *b);

#endif
