/* chessrelay: a game record. Tags, the start position, and the plies as
 * finally played, each with its SAN, the position after it, clock and time
 * stamps and marks (draw offer, illegal, reconstructed). The inference, the
 * PGN reader and the relay's game store all keep games in this form.
 *
 * Ownership: cr_game_new returns a new object, free it with cr_game_free.
 * Pointers returned by accessors are borrowed and valid until the game is
 * next changed or freed. */
#ifndef CR_GAME_H
#define CR_GAME_H

#include "cr/board.h"

typedef struct cr_game cr_game;

enum {
    CR_PLY_DRAW_OFFER = 1u << 0,    /* (=) after this move */
    CR_PLY_ILLEGAL = 1u << 1,       /* the board showed a position only an illegal move reaches */
    CR_PLY_RECONSTRUCTED = 1u << 2, /* found by search over missed snapshots, not seen */
    CR_PLY_AMBIGUOUS = 1u << 3,     /* more than one sequence fitted (alternatives counted) */
    CR_PLY_MISSING = 1u << 4,       /* with CR_PLY_ILLEGAL: moves the board was not followed
                                       through (a gap); `after` is the position it showed next
                                       (the arbiter accepted it, or the board stood plausible
                                       after a silence), the moves are unknown */
    CR_PLY_COUNTED = 1u << 5        /* with CR_PLY_MISSING: `missing` is the exact count (the
                                       clock's presses over the silence), not a lower bound */
};

#define CR_PLY_NAGS 3 /* NAGs kept per ply */

#define CR_CLOCK_UNKNOWN (-1)

typedef struct cr_ply {
    cr_move move;   /* CR_MOVE_NONE for an illegal move (see `after`) */
    uint32_t flags; /* CR_PLY_* */
    char san[16];   /* canonical SAN; for an illegal move a long form "Ke1-e3" */
    char uci[6];
    int32_t clock_ms;  /* mover's remaining time after the move, or CR_CLOCK_UNKNOWN */
    int32_t emt_ms;    /* time the mover used, or CR_CLOCK_UNKNOWN */
    int64_t ts;        /* when the move was completed (caller's unit: feed ms, or us), -1 unknown */
    uint16_t fits;     /* how many move sequences fitted (1 when certain) */
    uint16_t missing;  /* CR_PLY_MISSING: at least this many plies were not seen (0: not known);
                          exactly this many with CR_PLY_COUNTED */
    uint8_t nag[CR_PLY_NAGS]; /* NAGs in the order read ($1 "!" ... $6 "?!"), 0 ends the list */
    cr_position after; /* position after the ply */
} cr_ply;

typedef enum cr_result {
    CR_RESULT_NONE = 0, /* "*" */
    CR_RESULT_WHITE,    /* 1-0 */
    CR_RESULT_BLACK,    /* 0-1 */
    CR_RESULT_DRAW      /* 1/2-1/2 */
} cr_result;

/* start: the position the game starts from, or NULL for the standard one.
 * Returns NULL when out of memory. */
CR_EXTERN cr_game *cr_game_new(const cr_position *start);
CR_EXTERN void cr_game_free(cr_game *game); /* accepts NULL */
CR_EXTERN cr_game *cr_game_clone(const cr_game *game);

/* Tags: Seven Tag Roster and any other. Values are copied. Setting a tag to
 * NULL removes it. "FEN" and "SetUp" are derived from the start position and
 * cannot be set. Returns 0 or CR_ENOMEM/CR_EINVAL. */
CR_EXTERN int cr_game_set_tag(cr_game *game, const char *name, const char *value);
CR_EXTERN const char *cr_game_tag(const cr_game *game, const char *name); /* borrowed or NULL */
CR_EXTERN int cr_game_tag_count(const cr_game *game);
CR_EXTERN void cr_game_tag_at(const cr_game *game, int i, const char **name, const char **value);

CR_EXTERN const cr_position *cr_game_start(const cr_game *game);
CR_EXTERN const cr_position *cr_game_position(const cr_game *game); /* after the last ply */
CR_EXTERN int cr_game_ply_count(const cr_game *game);
CR_EXTERN const cr_ply *cr_game_ply(const cr_game *game, int i); /* 0-based */
/* Position before ply i (i == ply_count: the current position). */
CR_EXTERN const cr_position *cr_game_position_at(const cr_game *game, int i);

/* Appends a legal move. SAN, UCI and the position after are computed here;
 * clock_ms/ts/flags come from the caller. Returns 0, CR_EMOVE if the move is
 * not legal in the current position, or CR_ENOMEM. */
CR_EXTERN int cr_game_push(cr_game *game, cr_move m, int32_t clock_ms, int64_t ts, uint32_t flags);

/* Appends an illegal move that stood: `after` is the position now on the
 * board (side to move flipped by the caller). The ply is marked
 * CR_PLY_ILLEGAL and its san holds `text` (e.g. "Ke1-e3"). */
CR_EXTERN int cr_game_push_illegal(cr_game *game, const cr_position *after, const char *text,
                                   int32_t clock_ms, int64_t ts);

/* Appends ply i of src, which stands on the position this game stands on
 * now (pieces, side to move, castling, e.p., counters): copied as src has
 * it (SAN, UCI, the position after, flags, clock, %emt, fits, missing), not
 * worked out again, for a copy that follows another game ply by ply. Its
 * comment is not copied. Returns 0, CR_EMOVE when the positions differ or
 * src has no ply i (nothing appended), or CR_ENOMEM. */
CR_EXTERN int cr_game_push_from(cr_game *game, const cr_game *src, int i);

/* The same for a ply handed over on its own: p was worked out on `before`
 * (a ply of a game that stood there, copied out), and is appended as it is
 * when this game stands on before now. Returns 0, CR_EMOVE when it does not
 * (nothing appended), or CR_ENOMEM. */
CR_EXTERN int cr_game_push_ply(cr_game *game, const cr_position *before, const cr_ply *p);

/* Removes the last n plies (takeback/correction). n is clamped. */
CR_EXTERN void cr_game_truncate(cr_game *game, int ply_count);

/* Mutable access to a ply's caller-owned fields (flags, clock_ms, emt_ms, ts, fits). */
CR_EXTERN cr_ply *cr_game_ply_mut(cr_game *game, int i);

CR_EXTERN cr_result cr_game_result(const cr_game *game);
CR_EXTERN void cr_game_set_result(cr_game *game, cr_result result);
CR_EXTERN const char *cr_result_string(cr_result result); /* "1-0" ... "*" */
CR_EXTERN int cr_result_parse(const char *s);             /* -1 if not a result */

/* How many times the current position has stood (FIDE identity, this one
 * included), counting back only over plies that could repeat it (no capture
 * or pawn move in between). */
CR_EXTERN int cr_game_repetitions(const cr_game *game);

/* The first automatic draw of the game (FIDE 9.6): the ply count at which
 * a position stands for the fifth time, or 75 moves by each side passed
 * without a capture or pawn move (unless that last move mated); -1 if none.
 * why (may be NULL): "fivefold repetition" or "75-move rule". */
CR_EXTERN int cr_game_automatic_draw(const cr_game *game, const char **why);

/* The arbiter corrects ply `ply` (0-based) to the legal move m (the piece
 * really promoted to, a misread square). The later plies are played again
 * on the new position and kept, with their clocks, times, marks and
 * comments, as long as each is still legal; from the first that is not (or
 * an illegal move that stood) the rest is dropped. The result is not
 * touched. Returns how many later plies were kept, CR_EMOVE when m is not
 * legal there (nothing changed), CR_EINVAL for a ply out of range, or
 * CR_ENOMEM. */
CR_EXTERN int cr_game_replace_ply(cr_game *game, int ply, cr_move m);

/* A comment attached after ply i (-1: before the first move). Copied;
 * replaces an earlier one; NULL removes. */
CR_EXTERN int cr_game_set_comment(cr_game *game, int ply, const char *text);
CR_EXTERN const char *cr_game_comment(const cr_game *game, int ply);

#endif
