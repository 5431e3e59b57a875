/* chessrelay relay: the game store. Games by id, round and board, each a
 * cr_game plus what the broadcast needs (clock, online, attention), changed
 * only by store events. A store event is the unit of the wire protocol: it
 * has a global sequence number `seq` and a time stamp `ts` (microseconds
 * since the epoch), is serialised to JSON once (cr_store_event_json) and is
 * applied to one or two stores: the live one (trusted clients) and, after
 * the public delay, the public one.
 *
 * The store does no I/O and takes no locks: it lives in the loop thread.
 * Ownership: cr_store_new returns a new object, free with cr_store_free.
 * Returned cr_buf's are new references (cr_buf_unref). */
#ifndef CR_RELAY_STORE_H
#define CR_RELAY_STORE_H

#include "util/buf.h"
#include "cr/feed.h"
#include "cr/game.h"
#include "cr/notation.h"

#define CR_ROUND_MAX 16

typedef enum cr_sev_kind {
    CR_SEV_GAME = 0,   /* a new game: board, round, table, start position, tags */
    CR_SEV_MOVE,       /* ply `ply` appended */
    CR_SEV_CORRECTION, /* plies from `ply` on retracted */
    CR_SEV_CLOCK,      /* clock reading */
    CR_SEV_RESULT,     /* result set (or cleared with CR_RESULT_NONE) */
    CR_SEV_STATUS,     /* board online / needs attention */
    CR_SEV_TAG         /* a tag set (value "" removes it) */
} cr_sev_kind;

#define CR_TAG_NAME_MAX 32
#define CR_TAG_VALUE_MAX 128
/* Every tag name taken at input (feed META keys, an arbiter's tag) fits. */
_Static_assert(CR_TAG_NAME_MAX > CR_FEED_META_KEY_MAX, "a feed META key must fit a tag name");
#define CR_REASON_MAX 64

typedef struct cr_store_tag {
    char name[CR_TAG_NAME_MAX];
    char value[CR_TAG_VALUE_MAX];
} cr_store_tag;

typedef struct cr_store_event {
    cr_sev_kind kind;
    int64_t seq;
    int64_t ts;        /* microseconds since the epoch */
    int game;          /* game id */
    /* GAME */
    char board[CR_BOARD_ID_MAX + 1];
    char round[CR_ROUND_MAX];
    int table;         /* 0 unknown */
    bool has_start;    /* start is not the standard position */
    /* MOVE: `move` was worked out on `before` (the inference's ply, copied
     * out with the position it was made on): the store appends it as it is
     * where its game stands there, not working out legality and SAN again.
     * In-process only (a journaled or received MOVE is worked out). */
    bool has_before;
    union {
        cr_position start; /* GAME */
        cr_position before; /* MOVE with has_before */
    };
    int tag_count;
    cr_store_tag *tags; /* owned (cr_store_event_free) */
    /* MOVE / CORRECTION */
    int ply;
    int retracted;
    cr_ply move;
    char *comment;     /* MOVE: the ply's comment (the other sequences that fit an
                          ambiguous gap: "also Nf3 Nc6 ..."), owned, NULL: none */
    /* CLOCK */
    int32_t white_ms, black_ms;
    int running;       /* CR_WHITE, CR_BLACK, CR_CLOCK_STOPPED */
    /* CLOCK: the ply a press timed (-1, the default: none) with its clock and
     * %emt (cr_infer's PLY_CLOCK): the store's only way to a ply's time
     * after its MOVE, so every run of a feed gives the same %clk */
    int clock_ply;
    int32_t ply_clock_ms, ply_emt_ms;
    /* CLOCK with clock_ply: the reading is the one already sent (a ply
     * timed on its own), not a new one. In-process only (the arbiters'
     * clock monitor must not see a reading twice); never published. */
    bool reread;
    /* Any event: an arbiter stands behind it (their action, a trusted
     * client's command; core/round_results.h). In-process only, never
     * published. */
    bool by_arbiter;
    /* RESULT */
    cr_result result;
    char reason[CR_REASON_MAX];
    /* STATUS */
    bool online, attention;
    cr_bb squares; /* with attention: the squares where the board differs from the game */
    /* TAG */
    cr_store_tag tag;
} cr_store_event;

/* Returns a new zeroed event of the given kind (NULL when out of memory);
 * free with cr_store_event_free (accepts NULL). */
cr_store_event *cr_store_event_new(cr_sev_kind kind);
void cr_store_event_free(cr_store_event *ev);
/* Adds a tag to a GAME event (copied, truncated to the limits). */
int cr_store_event_add_tag(cr_store_event *ev, const char *name, const char *value);

/* The event as one protocol message ({"type":"move","seq":...}). */
cr_buf *cr_store_event_json(const cr_store_event *ev);

typedef struct cr_store cr_store;

/* An engine's evaluation of the position after a ply (engine/evals.h). It
 * is no store event: it has no seq, is set on a lane's store once the
 * position is there (the public store: once the position is public) and
 * goes out as an "eval" message of its own (docs/protocol.md). */
enum { CR_EVAL_PV_MAX = 128, CR_EVAL_LINES_MAX = 5, CR_EVAL_LINE_PV_MAX = 64 };
/* Another of the engine's best lines (multipv 2 and up), as in cr_eval. */
typedef struct cr_eval_line {
    int depth;
    bool mate;
    int value;                    /* white's point of view */
    char pv[CR_EVAL_LINE_PV_MAX]; /* SAN, its first move this line's best */
} cr_eval_line;
typedef struct cr_eval {
    int depth; /* > 0 when there is an evaluation */
    bool mate; /* value is moves to mate */
    int value; /* white's point of view: centipawns, or moves to mate (> 0: white mates) */
    char best[CR_SAN_MAX];   /* the best move in SAN ("" when none) */
    char pv[CR_EVAL_PV_MAX]; /* the line in SAN from the best move on, space-separated */
    int nag;                 /* the ply that led here: 0, 2 (mistake, "?") or 4 (blunder, "??") */
    int nlines;              /* lines (this one counted) with multipv > 1; 0 or 1: only this */
    cr_eval_line more[CR_EVAL_LINES_MAX - 1]; /* lines 2.. nlines, best first */
} cr_eval;

/* Whether a and b say the same (every field, the lines' too). */
bool cr_eval_equal(const cr_eval *a, const cr_eval *b);

/* One game as the store holds it (borrowed, valid until the store changes). */
typedef struct cr_store_game {
    int id;
    char board[CR_BOARD_ID_MAX + 1];
    char round[CR_ROUND_MAX];
    int table;
    cr_game *game;
    int32_t white_ms, black_ms;
    int running;
    int64_t clock_at;     /* ts of the clock reading, 0 if none */
    bool online, attention;
    char reason[CR_REASON_MAX];
    cr_bb attention_squares;              /* while attention: the squares in question */
    char attention_reason[CR_REASON_MAX]; /* while attention: why */
    int64_t last_seq, last_ts;
    int64_t list_seq; /* the last event that changed its list entry (a clock reading does
                         not): the entry's "seq", the same live and rebuilt */
    cr_eval *evals; /* per ply (depth 0: none), evals_cap of them */
    int evals_cap;
    int64_t plies_seq; /* the last event that changed its plies (MOVE, CORRECTION): a
                          follower that saw it knows the plies without comparing them */
} cr_store_game;

cr_store *cr_store_new(void);
void cr_store_free(cr_store *s);

/* Applies an event. Returns 0, or CR_EINVAL with err filled when the event
 * does not fit (unknown game, ply not equal to the game's ply count, a move
 * that is not legal, a game id used twice, seq not growing); the store is
 * then unchanged. */
int cr_store_apply(cr_store *s, const cr_store_event *ev, cr_error *err);

int cr_store_game_count(const cr_store *s);
const cr_store_game *cr_store_game_at(const cr_store *s, int i); /* in order of creation */
const cr_store_game *cr_store_find(const cr_store *s, int id);   /* NULL if unknown */
/* The newest game on a board, or NULL. */
const cr_store_game *cr_store_board_game(const cr_store *s, const char *board);
int64_t cr_store_last_seq(const cr_store *s);

/* Serialisations of a game's current state (NULL if unknown or out of memory). */
cr_buf *cr_store_snapshot_json(const cr_store *s, int id, int delay_s); /* "snapshot" message */
cr_buf *cr_store_summary_json(const cr_store *s, int id); /* one object of "games" */
/* The same in the brief shape of a round followed by summaries (players as
 * [name, elo, title, fed, team], clock as [white, black, running, at],
 * defaults left out: docs/protocol.md, "summary"): about 300 bytes. */
cr_buf *cr_store_brief_json(const cr_store *s, int id);
cr_buf *cr_store_pgn(const cr_store *s, int id);          /* PGN with %clk, blank line after */

/* Sets the evaluation of the position after ply `ply` (0-based) of game
 * `game`. Returns 0, or CR_EINVAL (err filled) for an unknown game or a ply
 * the game does not have, CR_ENOMEM. Corrections drop the evaluations of
 * the plies they retract. */
int cr_store_set_eval(cr_store *s, int game, int ply, const cr_eval *e, cr_error *err);
/* The evaluation after ply `ply`, or NULL when there is none. */
const cr_eval *cr_store_eval(const cr_store_game *g, int ply);
/* {"type":"eval","game":G,"ply":P,"eval":{...}} (NULL: no such eval). */
cr_buf *cr_store_eval_json(const cr_store *s, int game, int ply);
/* {"type":"evals","game":G,"evals":[{...} or null per ply]}, NULL when the
 * game has no evaluation (sent to a viewer that resumes: docs/protocol.md). */
cr_buf *cr_store_evals_json(const cr_store *s, int game);
/* Whether cr_store_pgn writes the evaluations ([%eval 0.35], [%eval #-3])
 * and their NAGs ($2, $4). Off by default. */
void cr_store_set_pgn_evals(cr_store *s, bool on);
bool cr_store_pgn_evals(const cr_store *s);
/* Whether cr_store_pgn writes the words of uncertainty ({reconstructed},
 * {reconstructed, ambiguous: also ...}: cr/pgn.h). On by default; off for
 * a host that wants bare PGN (the tournament file's "pgn": {"marks": false}). */
void cr_store_set_pgn_marks(cr_store *s, bool on);

/* Writes one game as PGN (cr_pgn_write: tags, moves with {[%clk h:mm:ss]},
 * result) into a new malloc'ed string, or NULL when out of memory. */
char *cr_store_game_pgn_text(const cr_store_game *g);
/* Same, with what `what` asks for (CR_STORE_PGN_*; the plain one: 0;
 * outputs make their own choice). */
enum {
    CR_STORE_PGN_EVALS = 1u << 0, /* the evaluations and their NAGs */
    CR_STORE_PGN_BARE = 1u << 1   /* no words of uncertainty (cr/pgn.h CR_PGN_BARE) */
};
char *cr_store_game_pgn_text_ex(const cr_store_game *g, unsigned what);

#endif
