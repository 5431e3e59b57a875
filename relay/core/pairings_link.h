/* chessrelay relay: the pairings file as a source of the relay. The file
 * the pairing program writes (FIDE TRF or a tags-only PGN, cr/pairings.h)
 * is read at the start and again whenever it changes; its boards become
 * games of the store before any board is connected, and later changes
 * reach those games as store events.
 *
 *  - The round played: `round` when given, else the last round of the file
 *    that has a board without a result (a round whose results are all in is
 *    over; a file whose rounds are all over gives no round, and no game is
 *    made until the next round is paired). Only that round's boards become
 *    games: one GAME event per table (round, table, tags Event, Site, Date,
 *    Round, Board, TimeControl, White/Black, WhiteElo/BlackElo,
 *    WhiteTitle/BlackTitle, WhiteFed/BlackFed, WhiteFideId/BlackFideId),
 *    then a STATUS event (offline: no board yet).
 *  - Tables and boards: a game's board is the serial the tournament file
 *    gives that table ({"board": "DGT23164", "table": 1}; an entry of the
 *    same round first), else the table number ("1"), which is how a board
 *    named by its table number is matched (config.h). A board that starts a
 *    game takes the waiting pairings game of its board id
 *    (cr_pairings_link_take) instead of getting a game of its own.
 *  - Re-import: the new set is compared with the one in force
 *    (cr_pairings_diff). For tables that have a game, a changed spelling,
 *    rating, title, federation or FIDE id becomes TAG events (only the
 *    fields that changed in the file, so an arbiter's own correction of
 *    another field stays). A different player is applied only to a game
 *    that has neither a move nor a result: a game in progress keeps its
 *    players (counted and logged as a conflict for the arbiter to settle).
 *    A table that is no longer in the file keeps its game (logged). Moves,
 *    clocks and results never come from the file: a result in the file
 *    changes nothing. New tables of the round played get their games; a new
 *    round played gets all of its games.
 *  - A file that cannot be read or parsed changes nothing: the error (with
 *    file, line and column) is returned, counted, shown in the metrics, and
 *    the pairings in force stay.
 *  - Journal: an import that changes anything is first handed to the
 *    journal callback as one line (the round played, the format and the
 *    file's text, escaped); cr_pairings_link_replay applies such a line the
 *    same way during a rebuild, so a restart gets the same games with the
 *    same ids, and a file unchanged since then changes nothing.
 *
 * Threads: loop thread only. The store is read, never changed: every change
 * goes out through the emit callback, which must apply the event to the
 * store before it returns.
 * Ownership: cr_pairings_link_new returns a new object, free it with
 * cr_pairings_link_free. The config's strings are copied; tournament and
 * store are borrowed and must outlive the link. */
#ifndef CR_RELAY_PAIRINGS_LINK_H
#define CR_RELAY_PAIRINGS_LINK_H

#include <stdio.h>

#include "core/config.h"
#include "cr/pairings.h"
#include "core/store.h"

typedef struct cr_pairings_link cr_pairings_link;

typedef struct cr_pairings_link_config {
    const char *path;            /* the pairings file (required) */
    cr_pairings_format format;   /* CR_PAIRINGS_AUTO: guessed from the first line */
    int round;                   /* > 0: the round played; 0: chosen from the file */
    const cr_config *tournament; /* Event, Site, Date, TimeControl, board serials; may be NULL */
    const cr_store *store;       /* the live store (required) */
    /* A new game id (the loop's counter). */
    int (*new_game)(void *data);
    /* Emits a store event (kind, game and payload filled; the loop gives seq
     * and ts and applies it to the store before returning). Takes ev. */
    void (*emit)(void *data, cr_store_event *ev);
    /* Game `game` was made for `board` (its events emitted): the loop may
     * move a board whose game has not started onto it. May be NULL. */
    void (*created)(void *data, int game, const char *board);
    /* Journals one line (no "\n", no NUL) before an import is applied.
     * NULL: nothing is journaled. */
    void (*journal)(void *data, const char *line, size_t len);
    void *data;
} cr_pairings_link_config;

/* Returns NULL when out of memory or without path/store/new_game/emit. */
cr_pairings_link *cr_pairings_link_new(const cr_pairings_link_config *cfg);
void cr_pairings_link_free(cr_pairings_link *l); /* accepts NULL */

/* Reads the file now. Returns 1 when something changed (journaled and
 * applied), 0 when the file and the round played are the ones in force,
 * or a CR_E* code with err filled ("path:line:column: what", or "path: what"
 * when it cannot be read); the pairings in force then stay. */
int cr_pairings_link_import(cr_pairings_link *l, cr_error *err);

/* Called about once a second: imports when the file's size, times or inode
 * differ from the last attempt and stood still since the previous poll (a
 * pairing program writing the file is not read half-way). A file that keeps
 * failing is reported once per version. Returns as cr_pairings_link_import,
 * 0 when there is nothing to do. */
int cr_pairings_link_poll(cr_pairings_link *l, cr_error *err);

/* Applies a journaled line (what the journal callback got). Returns 0, or
 * CR_EINVAL with err filled for a line it cannot read (nothing applied). */
int cr_pairings_link_replay(cr_pairings_link *l, const char *line, size_t len, cr_error *err);

/* For a board that starts a game: the id of the pairings game waiting on
 * this board id (round played, no move, no result), or 0. */
int cr_pairings_link_take(const cr_pairings_link *l, const char *board);

/* True when game `game` was made from the pairings. */
bool cr_pairings_link_owns(const cr_pairings_link *l, int game);

/* The round played (0: none), the pairings in force (NULL before the first
 * good import; borrowed until the next import). */
int cr_pairings_link_round(const cr_pairings_link *l);
const cr_pairings *cr_pairings_link_current(const cr_pairings_link *l);
/* Where a board with no table in the pairings plays (board_games.h's
 * unpaired): the round played, or after the file's last when every round is
 * over, and the tournament's event and site (borrowed like the set). False
 * with no pairings in force. */
bool cr_pairings_link_unpaired(const cr_pairings_link *l, int *round, const char **event,
                               const char **site);
/* The file text the pairings in force were read from (NULL before the
 * first good import), its length in *len; borrowed like the set. */
const char *cr_pairings_link_text(const cr_pairings_link *l, size_t *len);

typedef struct cr_pairings_link_stats {
    uint64_t applied, unchanged, failed; /* imports by outcome (replays not counted) */
    uint64_t games;                      /* games made from the pairings */
    uint64_t tags;                       /* TAG events for changed pairings */
    uint64_t conflicts;                  /* player changes refused on games in progress */
    uint64_t removed;                    /* tables gone from the file whose game stayed */
    int64_t last_ok_us;                  /* wall time of the last good read, 0 none */
    bool failing;                        /* the last attempt failed */
    cr_error last_error;                 /* its error (code 0: none) */
} cr_pairings_link_stats;

void cr_pairings_link_stats_get(const cr_pairings_link *l, cr_pairings_link_stats *out);

/* Writes the figures as Prometheus text (chessrelay_pairings_*). */
void cr_pairings_link_metrics(const cr_pairings_link *l, FILE *out);

#endif
