/* chessrelay relay: what the broadcast side (the WebSocket thread) holds.
 *
 * The loop thread publishes every store event as a cr_pub (core/publish.h:
 * the event's message plus the game's new snapshot, summary and PGN, made
 * there). The WebSocket thread applies publications to one cr_view per lane
 * (live for trusted clients, public for viewers, behind the public delay)
 * and answers every request from it: no other state is shared between the
 * threads.
 *
 * Threads: the server thread only (and the tests).
 *
 * A view keeps, per game, the latest serialisations, and a ring of the last
 * events (by seq) from which viewers are fed and resumed (`since`). */
#ifndef CR_RELAY_VIEW_H
#define CR_RELAY_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "core/publish.h"
#include "util/buf.h"

typedef struct cr_view_game {
    int id;
    char round[CR_ROUND_MAX];
    int64_t seq;         /* last event of the game in this view */
    int64_t modified_us; /* wall time the view last changed it */
    cr_buf *snapshot, *summary, *pgn;
    cr_buf *brief; /* the round's summary subscribers' entry (core/store.h) */
    cr_buf *evals; /* "evals" message, NULL: none (sent to resuming viewers) */
} cr_view_game;

typedef struct cr_view_entry {
    int64_t seq, ts;
    int game;
    cr_buf *msg;
    cr_buf *summary; /* the game's "summary" message after it (NULL: none) */
} cr_view_entry;

typedef struct cr_view cr_view;

/* ring: events held (at least 1). Returns NULL when out of memory. */
cr_view *cr_view_new(size_t ring);
void cr_view_free(cr_view *v);

/* Applies a publication (EVENT, STATE, MARK or EVAL); now_us stamps
 * changes. EVAL changes the game's state only (no seq, no ring entry). */
void cr_view_apply(cr_view *v, const cr_pub *p, int64_t now_us);

int cr_view_game_count(const cr_view *v);
const cr_view_game *cr_view_game_at(const cr_view *v, int i); /* by increasing id */
const cr_view_game *cr_view_find(const cr_view *v, int id);

/* Next seq to be published (all held events have smaller ones), and the
 * oldest held. Held: oldest <= seq < head. */
int64_t cr_view_head(const cr_view *v);
int64_t cr_view_oldest(const cr_view *v);
/* The held event with this seq, or NULL. */
const cr_view_entry *cr_view_entry_at(const cr_view *v, int64_t seq);

/* {"type":"games","games":[...]} (round NULL: all games); new reference. */
cr_buf *cr_view_games_json(const cr_view *v, const char *round);
/* A round's list for its summary subscribers:
 * {"type":"games","round":R,"seq":SEQ,"games":[...]}; new reference. round
 * must be a JSON-safe string (the server checks it). */
cr_buf *cr_view_round_list(const cr_view *v, const char *round, int64_t seq);
/* [ ... ] only, for /games.json */
cr_buf *cr_view_games_array(const cr_view *v, const char *round);
/* All PGNs (round NULL) or a round's, concatenated; new reference. NULL if
 * the round has no game. */
cr_buf *cr_view_pgn(const cr_view *v, const char *round);
/* Latest change of the games concerned (0 if none). */
int64_t cr_view_modified(const cr_view *v, const char *round);

#endif
