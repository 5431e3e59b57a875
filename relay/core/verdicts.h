/* chessrelay relay: the result rules the arbiters' monitors apply to the
 * games of a store, written once for the served relay and offline replay.
 *
 * A cr_verdict judges one game of a store: its own copy of the game,
 * brought to the store's after every store event, a clock model (the
 * game's TimeControl tag, else the event's) fed with the clock readings and
 * the board's link, and the cr_monitor (cr/arbiter.h) over both. The
 * monitor ends a game by itself where the Laws say it is over: a flag that
 * fell on the clock's evidence (6.9: a draw when the opponent cannot mate),
 * a dead position (5.2.2), fivefold repetition, 75 moves (9.6). The store
 * hears of it through store events (cr_verdict_to_store): the verdict's
 * game is the truth then. The arbiter link (arbiter/arbiter_link.h) holds
 * one per game and adds the arbiters' view (incidents, claims, actions);
 * cr_verdicts below holds one per game for `chessrelay replay`.
 *
 * Pure: no I/O, no time of its own. `t` is feed time (ms), `wall` ms since
 * the epoch (only stamps incidents).
 * Threads: the loop thread, or replay's one thread (the store is read
 * there). Ownership: cr_verdict_new / cr_verdicts_new return new objects,
 * freed by cr_verdict_free / cr_verdicts_free; the store is borrowed. */
#ifndef CR_RELAY_VERDICTS_H
#define CR_RELAY_VERDICTS_H

#include "core/store.h"
#include "cr/arbiter.h"
#include "cr/clock.h"

typedef struct cr_verdict cr_verdict;

/* A verdict for the store's game sg as it stands, its clock from the last
 * reading sg holds (at its own time, not past t). time_control: the
 * event's, for a game without the tag (NULL: none). silent_start: the
 * monitor examines the game as it stands without logging (cr_monitor_config);
 * quiet: it then logs nothing until told (cr_monitor_set_silent: a rebuild
 * from the journal). NULL when out of memory. */
cr_verdict *cr_verdict_new(const cr_store_game *sg, const char *time_control, bool silent_start,
                           bool quiet, int64_t t, int64_t wall);
void cr_verdict_free(cr_verdict *v); /* accepts NULL */

/* Borrowed, as long as v lives: the monitor (incidents, claims, an
 * arbiter's actions), its game and its clock. */
cr_monitor *cr_verdict_monitor(const cr_verdict *v);
cr_game *cr_verdict_game(const cr_verdict *v);
cr_clock *cr_verdict_clock(const cr_verdict *v);

/* A store event of the game was applied to the store (sg: the game after
 * it; not for events the verdict made itself). Returns true when the rules
 * ended the game here with a result the store does not have. */
bool cr_verdict_on_store_event(cr_verdict *v, const cr_store_game *sg, const cr_store_event *ev,
                               int64_t t);

/* The board's source reached feed time t: a flag that fell by then, on the
 * clock's evidence, ends the game. Returns true when the result changed. */
bool cr_verdict_source_time(cr_verdict *v, int64_t t);

/* Time passes (never past the source time). Returns true when the result
 * changed. */
bool cr_verdict_tick(cr_verdict *v, int64_t t);

/* The store events (CORRECTION, MOVE, TAG White/Black, RESULT with the
 * reason of the monitor's latest result) that bring the store's game sg
 * to the verdict's, each handed to emit (which takes it; NULL when it could
 * not be made). Returns how many. An action of the monitor that changed
 * the game's plies (a take-back, a replaced move, a draw offer's mark) is
 * followed by this call: the verdict compares the games whole again then. */
int cr_verdict_to_store(cr_verdict *v, const cr_store_game *sg,
                        void (*emit)(void *data, cr_store_event *ev), void *data);

/* Every game of a store judged: a verdict made for a game at its first
 * store event, and the store events of the games the rules ended queued
 * for the caller, who applies them after the call that made them returns
 * and does not pass them back (as the served relay does with the arbiter
 * link's). */
typedef struct cr_verdicts cr_verdicts;

/* time_control as above. NULL when out of memory. */
cr_verdicts *cr_verdicts_new(const cr_store *store, const char *time_control);
void cr_verdicts_free(cr_verdicts *vs); /* accepts NULL; drops what is queued */

/* ev was applied to the store. Returns 0 or CR_ENOMEM. */
int cr_verdicts_on_store_event(cr_verdicts *vs, const cr_store_event *ev, int64_t t);

/* The source of `board` (NULL: of every board) reached t: its games'
 * flags are checked, and the store events of every game the rules ended
 * since the last call queued. Returns 0, or CR_ENOMEM when one of them
 * could not be made (it is lost). */
int cr_verdicts_source_time(cr_verdicts *vs, const char *board, int64_t t);

/* The oldest queued store event (the caller gives seq and ts, and owns
 * it), or NULL when none is left. */
cr_store_event *cr_verdicts_take_event(cr_verdicts *vs);

#endif
