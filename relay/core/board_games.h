/* chessrelay relay: what one board's inference means for the game store.
 *
 * A cr_board_games follows the inference events of one board (cr_infer,
 * cr/infer.h) and turns them into store events (store.h): a GAME when a
 * game starts on the board (its tags from the tournament file's entry for
 * the board, the tournament (Event, Site, Date: the file's, else the
 * pairings file's), and the board's own meta tags, in that order of
 * precedence; or, for a board standing at the start, the game the
 * pairings made for it), MOVE / CORRECTION so that the store's game equals
 * the inference's whatever it reported, RESULT, CLOCK, TAG, and STATUS when
 * the board goes on or off line or needs attention.
 *
 * It reads the store (the caller's live store, with every event emitted so
 * far applied) and changes nothing itself: every event goes to emit, which
 * gives it its seq and ts and applies it. Pure: the same inference events
 * give the same store events, so a rebuild from the journal arrives at the
 * same games.
 *
 * Ownership: cr_board_games_new returns a new object; cfg is borrowed and
 * must outlive it. */
#ifndef CR_RELAY_BOARD_GAMES_H
#define CR_RELAY_BOARD_GAMES_H

#include "core/config.h"
#include "cr/infer.h"
#include "core/store.h"

typedef struct cr_board_games_config {
    const cr_config *tournament; /* required: event, site, date, time control, board entries */
    const cr_store *store;       /* required: the store the events go to */
    int (*new_game)(void *data); /* required: the next game id */
    /* The pairings' game waiting for this board, 0 if none (NULL: no pairings). */
    int (*take_pairing)(void *data, const char *board_id);
    /* With a pairings file in force, what a board with no table in it (a
     * spare, an unpaired serial) gets for its own game: *round the round
     * played (after the file's last when none is, never a finished one),
     * *event and *site the tournament's (NULL or "": none); returns true.
     * False without pairings. May be NULL. Such a game has no table (the
     * tables are the pairings'), and the board's own meta tags name
     * neither its round nor its event. */
    bool (*unpaired)(void *data, int *round, const char **event, const char **site);
    /* Required. Takes ev; NULL when it could not be made (out of memory). */
    void (*emit)(void *data, cr_store_event *ev);
    void *data;
} cr_board_games_config;

typedef struct cr_board_games cr_board_games;

/* table: the board's table when the tournament file gives none (1, 2, ...
 * in order of appearance). NULL when out of memory. The board starts
 * online. */
cr_board_games *cr_board_games_new(const cr_board_games_config *cfg, const char *board_id,
                                   int table);
void cr_board_games_free(cr_board_games *b); /* accepts NULL; drops a held clock */

/* One inference event of the board (the cr_infer callback). */
void cr_board_games_on_infer(cr_board_games *b, const cr_infer_event *ev);

/* A clock reading is held back until the next event or this flush, so that
 * the press's timing of the ply it ends (PLY_CLOCK: clock and %emt, which
 * the inference reports right after the reading) goes out in the same CLOCK
 * event: one message per press instead of three, each of which costs every
 * viewer a snapshot and a PGN. Call it after each call into the board's
 * inference (feed, tick, finish, accept-board); the order of events is
 * unchanged. */
void cr_board_games_flush(cr_board_games *b);

/* The board's link came up or went down (CONNECT / DISCONNECT): first
 * set_online, before the event goes to the inference (a game it starts
 * then is offline from the start), then link_status after, which tells the
 * store. */
void cr_board_games_set_online(cr_board_games *b, bool online);
void cr_board_games_link_status(cr_board_games *b);
bool cr_board_games_online(const cr_board_games *b);

/* The store id of the board's current game, 0 before the first. */
int cr_board_games_game(const cr_board_games *b);

/* The pairings made game for this board. If the board stands at the start
 * of a game nobody plays yet (set up before the round was paired), it moves
 * over to it, and its empty game is left offline. Returns true if it did. */
bool cr_board_games_paired(cr_board_games *b, int game);

#endif
