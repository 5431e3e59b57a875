/* chessrelay relay: the per-round public outputs of the loop thread, fed
 * from the public store (the live one when there is no delay):
 *
 *  - pushes of each round's PGN to broadcast hosts (push.h), for the rounds
 *    given a push URL;
 *  - the export folder (cr/export.h): round-<n>/game-<table>.pgn,
 *    round-<n>/games.pgn and round-<n>/index.json, for rounds named by a
 *    number, and tournament.json, as DGT LiveChess lays its folder out.
 *
 * The loop marks what changed after each event applied to the public store
 * (cr_outputs_changed: cheap, no I/O) and flushes on its tick
 * (cr_outputs_flush): each changed round is rendered once, so a burst of
 * events (or a journal rebuild) costs one push and one write per round.
 *
 * Round PGN: every game of the round ordered by table, then game id, each
 * as cr_store_game_pgn_text writes it. game-<table>.pgn holds the newest
 * game of that table in the round.
 *
 * Threads: loop thread only. Ownership: cr_outputs_new returns a new object,
 * free it with cr_outputs_free (before the event_base). */
#ifndef CR_RELAY_OUTPUTS_H
#define CR_RELAY_OUTPUTS_H

#include "out/push.h"
#include "core/store.h"

struct event_base;

typedef struct cr_outputs cr_outputs;

/* export_dir: the export folder, or NULL for none. push_cfg: the pusher's
 * settings (NULL: defaults). Returns NULL when out of memory. */
cr_outputs *cr_outputs_new(struct event_base *base, const char *export_dir,
                           const cr_pusher_config *push_cfg);
void cr_outputs_free(cr_outputs *o); /* accepts NULL */

/* The event's name, for the export folder's tournament.json (copied;
 * NULL or empty: "chessrelay"). */
void cr_outputs_set_event(cr_outputs *o, const char *event);

/* Pushes round `round` to url with token (see cr_pusher_set_round). */
int cr_outputs_set_push(cr_outputs *o, const char *round, const char *url, const char *token);

/* After ev was applied to `store` (the public one): marks its game's round
 * as changed (clock and status events change no PGN and are ignored). */
void cr_outputs_changed(cr_outputs *o, const cr_store *store, const cr_store_event *ev);

/* Marks the round of a game as changed (an engine evaluation came). */
void cr_outputs_changed_game(cr_outputs *o, const cr_store *store, int game);

/* Whether the pushed and the exported PGNs carry the engine evaluations
 * ([%eval], NAGs: cr_store_game_pgn_text_ex). Off by default. */
void cr_outputs_set_evals(cr_outputs *o, bool push, bool export_dir);
/* Whether they carry the words of uncertainty ({reconstructed}, ...:
 * cr/pgn.h). On by default. */
void cr_outputs_set_pgn_marks(cr_outputs *o, bool on);

/* Marks every round of the store as changed (after a rebuild). */
void cr_outputs_changed_all(cr_outputs *o, const cr_store *store);

/* Renders the changed rounds from the store, offers them to the pusher and
 * writes the export folder. */
void cr_outputs_flush(cr_outputs *o, const cr_store *store);

/* Writes round-<round>/results.trf in the export folder (nothing without
 * one; an error is logged like the other files'): the pairings TRF with
 * the round's results (core/round_results.h). */
void cr_outputs_write_results(cr_outputs *o, int round, const char *trf_text);

/* The pusher (for its stats), never NULL. */
const cr_pusher *cr_outputs_pusher(const cr_outputs *o);

/* Export files written since the start (0 without an export folder). */
uint64_t cr_outputs_files_written(const cr_outputs *o);

#endif
