/* chessrelay: move inference. One cr_infer per board turns the board's feed
 * events (64-square snapshots, clock readings, meta tags, link changes) into
 * the moves actually played, and reports what happened through a callback.
 *
 * Time: the engine uses only the timestamps of the events it is given (never
 * the wall clock), so a replay at any speed yields the same games and the
 * same events as live. A move is final when the clock is pressed after it, or
 * when the board has stood still for the settle time; call cr_infer_tick()
 * when time passes without events (live), and cr_infer_finish() at the end
 * of a feed.
 *
 * Ownership: cr_infer_new returns a new object, free it with cr_infer_free.
 * Everything an event points to is borrowed and valid only during the
 * callback. The callback must not call back into the same cr_infer. */
#ifndef CR_INFER_H
#define CR_INFER_H

#include "cr/feed.h"
#include "cr/game.h"

typedef struct cr_infer cr_infer;

typedef enum cr_infer_kind {
    CR_INFER_GAME_STARTED = 0, /* a new game began (start position or meta FEN) */
    CR_INFER_MOVE,             /* ply `ply` was appended to the game */
    CR_INFER_CORRECTION,       /* plies from `ply` on were retracted (`retracted` of them);
                                  MOVE events for their replacements follow */
    CR_INFER_GAME_ENDED,       /* result set (mate, stalemate, dead position, kings in the centre) */
    CR_INFER_ATTENTION,        /* the board shows a position not reachable from the game */
    CR_INFER_RESYNCED,         /* the board is back on a position of the game */
    CR_INFER_CLOCK,            /* clock reading (already assigned to White/Black) */
    CR_INFER_META              /* a tag changed for the current/next game */
} cr_infer_kind;

typedef struct cr_infer_event {
    cr_infer_kind kind;
    int64_t t;                /* feed time of the event that caused this */
    int64_t t_snapshot;       /* MOVE: time of the snapshot that completed the move */
    const cr_game *game;      /* the current game (borrowed) */
    int game_number;          /* 1, 2, ... games seen on this board */
    int ply;                  /* MOVE: index of the new ply; CORRECTION: first retracted ply */
    int retracted;            /* CORRECTION */
    cr_result result;         /* GAME_ENDED */
    const char *reason;       /* GAME_ENDED / ATTENTION: short text ("checkmate", "kings on d5/e4") */
    cr_bb squares;            /* ATTENTION: the squares that differ from the game's position */
    int32_t white_ms, black_ms; /* CLOCK */
    int running;              /* CLOCK: CR_WHITE, CR_BLACK or CR_CLOCK_STOPPED */
} cr_infer_event;

typedef void (*cr_infer_cb)(void *data, const cr_infer_event *ev);

typedef struct cr_infer_config {
    int settle_ms;        /* board still this long => a pending move is final (default 300) */
    int max_gap_plies;    /* plies recovered over missed snapshots (default 4) */
} cr_infer_config;

/* Fills cfg with the defaults. */
CR_EXTERN void cr_infer_config_default(cr_infer_config *cfg);

/* board_id is copied. cfg may be NULL for the defaults. */
CR_EXTERN cr_infer *cr_infer_new(const char *board_id, const cr_infer_config *cfg, cr_infer_cb cb,
                                 void *data);
CR_EXTERN void cr_infer_free(cr_infer *inf); /* accepts NULL */

/* Feeds one event of this board (POS, CLOCK, META, CONNECT, DISCONNECT;
 * RAW events must be decoded by the caller). Returns 0, or CR_EINVAL for an
 * event it cannot use (it is then ignored). */
CR_EXTERN int cr_infer_feed(cr_infer *inf, const cr_feed_event *ev);

/* Time has passed (same clock as the events' t): settles pending moves. */
CR_EXTERN void cr_infer_tick(cr_infer *inf, int64_t now);

/* End of input: everything pending is settled now. */
CR_EXTERN void cr_infer_finish(cr_infer *inf, int64_t now);

/* The current game (borrowed), or NULL before the first game started.
 * Games that ended stay readable through the callback only: the caller
 * keeps a clone (cr_game_clone) when a game ends or a new one starts. */
CR_EXTERN const cr_game *cr_infer_game(const cr_infer *inf);

/* True if the board stands the wrong way round (detected from the start
 * position). */
CR_EXTERN bool cr_infer_rotated(const cr_infer *inf);

#endif
