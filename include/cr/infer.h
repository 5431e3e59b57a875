/* chessrelay: move inference. One cr_infer per board turns the board's feed
 * events (64-square snapshots, clock readings, meta tags, link changes) into
 * the moves actually played, and reports what happened through a callback.
 *
 * Time: the engine uses only the timestamps of the events it is given (never
 * the wall clock), so a replay at any speed yields the same games and the
 * same events as live. A move is final when the clock is pressed after it, or
 * when the board has stood still for the settle time; call cr_infer_tick()
 * when time passes without events (live), never with a time beyond the
 * board's source (feed time, the agent's watermark): events older than a
 * tick are taken as at the tick's time. cr_infer_finish() at the end of a
 * feed. A ply's %emt is the time from its mover's clock start to the press.
 *
 * Policies (see src/infer.c for how):
 *  - Games start when the board shows the standard start position, a
 *    Chess960 start position, or the position of a `meta FEN` (which is
 *    used for one game), either way round: a board standing the wrong way
 *    round is detected there and every later snapshot is rotated 180
 *    degrees. A new game replaces the current one only when that one ended,
 *    has no moves, or the board was swept (3+ pieces missing) in between,
 *    or the game is longer than 8 plies and no legal move leads to the
 *    start position (pieces put back by hand for the next game); the
 *    unfinished game is then handed over with GAME_ENDED/CR_RESULT_NONE.
 *  - A snapshot is explained, cheapest first, as: the game's position; one
 *    legal move from it; one more move after the pending ones; an earlier
 *    position of the last 8 plies, or one of them plus a legal move
 *    (take-back, provisional move replaced); after settle_ms standing
 *    still, 2 plies of missed snapshots, after deep_search_ms more (or at a
 *    clock press) up to max_gap_plies, or any earlier position of the game.
 *    Moves recovered by the search are CR_PLY_RECONSTRUCTED; `fits` counts
 *    the sequences found at the shortest length. More than one: the first
 *    is held until the board stands attention_ms or the clock is pressed,
 *    then pushed with CR_PLY_AMBIGUOUS and an ATTENTION.
 *  - Undoing moves is the last resort: before a correction is made final
 *    the search for missed moves runs once, and undoing a move the clock
 *    confirmed waits confirmed_hold_ms (a captured piece set down for a
 *    moment on another square can look like the opponent's last move
 *    played differently); a press by the side such an undoing would leave
 *    to move refutes it (that side moved since: the moves made meanwhile
 *    are searched for instead).
 *  - A pawn standing on its last rank is a pending promotion, never a
 *    move. Two kings on centre squares that stand castle_hold_ms (settle_ms
 *    with the clock stopped) are the DGT result signal: d5/e4 1-0, d4/e5
 *    0-1, one of each 1/2-1/2; a king move into the centre not confirmed by
 *    the clock is taken back then.
 *  - A board that stood unexplained and shows one piece moved as no legal
 *    move can (an illegal move) is pushed with cr_game_push_illegal when
 *    its player presses the clock or a legal move follows from it.
 *  - Anything else is never guessed: ATTENTION (with the differing squares)
 *    after attention_ms, RESYNCED when the board is back in the game.
 *  - Never give up: after a DISCONNECT, or once the board stood unreachable,
 *    every settled picture is searched from P(n) up to 8 plies (pruned by
 *    the moves each side still needs; the clock, once read, saying who is
 *    to move); one sequence or a small set (up to 48) resumes the game.
 *    Plies the board showed are never marked reconstructed; the other
 *    sequences that fit are named in the first guessed ply's comment.
 *    Guesses never chain past MAX_SEQ plies in a row: the whole stretch is
 *    searched again from before them (undone and redone), else it is a
 *    gap. The clock, when it adds a Fischer increment of 10 s or more,
 *    counts the presses over a silence: a sequence must be that long.
 *    All searches between two moves the board was followed through share
 *    one budget (2M positions); past it the search gives up (stats
 *    gave_up) and a board still lost becomes a gap.
 *    Failing that, once the board stands attention_ms (or at a press) on a
 *    position some game reaches, the game goes on from it: one ply
 *    CR_PLY_ILLEGAL | CR_PLY_MISSING, `missing` = the plies the clock
 *    counted (CR_PLY_COUNTED, recounted at the press that ends the gap),
 *    else the fewest plies that lead there (a gap; never an end of the
 *    game, never invented moves; comment "search gave up" when it did).
 *    A board no game reaches: cr_infer_accept_board() is the arbiter's way.
 *  - Clock: a ply gets the mover's time from the press that follows it (or,
 *    missed, from the next reading where the mover's clock stands still).
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
    CR_INFER_META,             /* a tag changed for the current/next game */
    CR_INFER_PLY_CLOCK         /* a press gave ply `ply` its clock_ms and emt_ms (read them
                                  from `game`); a ply's clock is set once, by the event
                                  times alone, whenever its MOVE went out */
} cr_infer_kind;

typedef struct cr_infer_event {
    cr_infer_kind kind;
    int64_t t;                /* feed time of the event that caused this */
    int64_t t_snapshot;       /* MOVE: time of the snapshot that completed the move */
    const cr_game *game;      /* the current game (borrowed) */
    int game_number;          /* 1, 2, ... games seen on this board */
    int ply;                  /* MOVE: index of the new ply; CORRECTION: first retracted ply;
                                 PLY_CLOCK: the ply whose clock was set */
    int retracted;            /* CORRECTION */
    cr_result result;         /* GAME_ENDED */
    const char *reason;       /* GAME_ENDED / ATTENTION / CORRECTION / RESYNCED: short text
                                 ("checkmate", "kings on d5/e4", "takeback", "replaced") */
    cr_bb squares;            /* ATTENTION: the squares that differ from the game's position */
    int32_t white_ms, black_ms; /* CLOCK */
    int running;              /* CLOCK: CR_WHITE, CR_BLACK or CR_CLOCK_STOPPED */
} cr_infer_event;

typedef void (*cr_infer_cb)(void *data, const cr_infer_event *ev);

typedef struct cr_infer_config {
    int settle_ms;        /* board still this long => a pending move is final (default 300) */
    int max_gap_plies;    /* plies recovered over missed snapshots (default 4, at most 8) */
    int attention_ms;     /* an unexplained board standing this long => ATTENTION (default 5000) */
    int castle_hold_ms;   /* a rook or king move that may be the first half of castling
                             waits this long instead of settle_ms (default 2000) */
    int search_nodes;     /* node budget of one gap search (default 200000) */
    int confirmed_hold_ms; /* undoing a move confirmed by a clock press waits this long
                              unless the clock is pressed (default 10000) */
    int deep_search_ms;   /* gaps of 3+ plies are searched once the board has stood this
                             much longer than settle_ms, or at a clock press (default 1000) */
} cr_infer_config;

/* Counters of one engine (for benches and `replay --stats`). */
typedef struct cr_infer_stats {
    uint64_t snapshots;       /* POS events fed */
    uint64_t moves;           /* MOVE events emitted */
    uint64_t corrections;     /* CORRECTION events */
    uint64_t retracted;       /* plies retracted by them */
    uint64_t replaced;        /* of those, plies that the board itself replaced at once
                                 (provisional moves: slides, rook-first castling) rather
                                 than take-backs of settled moves */
    uint64_t attentions;      /* ATTENTION events */
    uint64_t searches;        /* gap searches run */
    uint64_t search_nodes;    /* positions visited by them */
    uint64_t illegal;         /* illegal moves that stood */
    uint64_t gave_up;         /* silences whose search ran out of its budget (a gap) */
    uint64_t gaps_counted;    /* gaps whose plies the clock counted exactly */
} cr_infer_stats;

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

/* The arbiter accepts the board as it stands (one action, for a board the
 * engine cannot follow: ATTENTION with the squares in question). The game
 * continues from the board's position with side_to_move (CR_WHITE,
 * CR_BLACK, or -1: the side the clock runs for, else the side to move in
 * the game); castling rights stay where king and rook are untouched. The
 * stretch in between is one ply flagged CR_PLY_ILLEGAL | CR_PLY_MISSING (no
 * move is invented; SAN "--"), emitted as a MOVE, then RESYNCED. Returns 0
 * (also when the board already fits the game: nothing changes), or
 * CR_EINVAL when there is no game or the board is no position (a king
 * missing or doubled, kings side by side, a pawn on its last rank). */
CR_EXTERN int cr_infer_accept_board(cr_infer *inf, int side_to_move, int64_t t);

/* The current game (borrowed), or NULL before the first game started.
 * Games that ended stay readable through the callback only: the caller
 * keeps a clone (cr_game_clone) when a game ends or a new one starts. */
CR_EXTERN const cr_game *cr_infer_game(const cr_infer *inf);

/* True if the board stands the wrong way round (detected from the start
 * position). */
CR_EXTERN bool cr_infer_rotated(const cr_infer *inf);

CR_EXTERN void cr_infer_get_stats(const cr_infer *inf, cr_infer_stats *stats);

/* Bytes the engine holds for one board, not counting its game record. */
CR_EXTERN size_t cr_infer_footprint(const cr_infer *inf);

#endif
