/* chessrelay: the rules of chess. Squares, pieces, packed moves, the position
 * (bitboards plus a mailbox), legal move generation, making moves, FEN, UCI
 * move text, perft, Zobrist keys and the dead-position test.
 *
 * A cr_position is a plain value (about 200 bytes): copy it to keep an earlier
 * position (copy-make); nothing here allocates and nothing keeps global mutable
 * state, so any number of games can live side by side in any threads.
 *
 * Castling is represented as "king takes own rook": the move's `to` square is
 * the rook's square. That is the same for standard chess and Chess960; the
 * king's and rook's final squares are always g/f (king side) or c/d (queen
 * side) of the back rank. */
#ifndef CR_BOARD_H
#define CR_BOARD_H

#include "cr/common.h"

typedef uint64_t cr_bb; /* bit i = square i (a1 = 0, b1 = 1, ..., h8 = 63) */

enum { CR_WHITE = 0, CR_BLACK = 1, CR_COLOR_NB = 2 };

enum {
    CR_NO_TYPE = 0,
    CR_PAWN = 1,
    CR_KNIGHT = 2,
    CR_BISHOP = 3,
    CR_ROOK = 4,
    CR_QUEEN = 5,
    CR_KING = 6,
    CR_TYPE_NB = 7
};

/* piece = color << 3 | type; 0 is an empty square. */
enum {
    CR_NO_PIECE = 0,
    CR_WP = 1, CR_WN, CR_WB, CR_WR, CR_WQ, CR_WK,
    CR_BP = 9, CR_BN, CR_BB, CR_BR, CR_BQ, CR_BK,
    CR_PIECE_NB = 16
};

/* clang-format off */
enum {
    CR_SQ_A1, CR_SQ_B1, CR_SQ_C1, CR_SQ_D1, CR_SQ_E1, CR_SQ_F1, CR_SQ_G1, CR_SQ_H1,
    CR_SQ_A2, CR_SQ_B2, CR_SQ_C2, CR_SQ_D2, CR_SQ_E2, CR_SQ_F2, CR_SQ_G2, CR_SQ_H2,
    CR_SQ_A3, CR_SQ_B3, CR_SQ_C3, CR_SQ_D3, CR_SQ_E3, CR_SQ_F3, CR_SQ_G3, CR_SQ_H3,
    CR_SQ_A4, CR_SQ_B4, CR_SQ_C4, CR_SQ_D4, CR_SQ_E4, CR_SQ_F4, CR_SQ_G4, CR_SQ_H4,
    CR_SQ_A5, CR_SQ_B5, CR_SQ_C5, CR_SQ_D5, CR_SQ_E5, CR_SQ_F5, CR_SQ_G5, CR_SQ_H5,
    CR_SQ_A6, CR_SQ_B6, CR_SQ_C6, CR_SQ_D6, CR_SQ_E6, CR_SQ_F6, CR_SQ_G6, CR_SQ_H6,
    CR_SQ_A7, CR_SQ_B7, CR_SQ_C7, CR_SQ_D7, CR_SQ_E7, CR_SQ_F7, CR_SQ_G7, CR_SQ_H7,
    CR_SQ_A8, CR_SQ_B8, CR_SQ_C8, CR_SQ_D8, CR_SQ_E8, CR_SQ_F8, CR_SQ_G8, CR_SQ_H8,
    CR_SQ_NB, CR_SQ_NONE = 64
};
/* clang-format on */

static inline int cr_file_of(int sq) { return sq & 7; }
static inline int cr_rank_of(int sq) { return sq >> 3; }
static inline int cr_square(int file, int rank) { return rank * 8 + file; }
static inline int cr_color_of(int piece) { return piece >> 3; }
static inline int cr_type_of(int piece) { return piece & 7; }
static inline int cr_make_piece(int color, int type) { return (color << 3) | type; }

/* Packed move, 16 bits:
 *
 *   15 14 | 13 12 | 11 ........ 6 | 5 ......... 0
 *   kind  | promo |      to       |     from
 *
 * kind: CR_MOVE_NORMAL, CR_MOVE_PROMOTION, CR_MOVE_EN_PASSANT, CR_MOVE_CASTLE
 * promo (only for CR_MOVE_PROMOTION): piece type - CR_KNIGHT (N=0 B=1 R=2 Q=3)
 * For castling `to` is the castling rook's square. 0 is CR_MOVE_NONE (a1a1 is
 * never a move). */
typedef uint16_t cr_move;

enum { CR_MOVE_NORMAL = 0, CR_MOVE_PROMOTION = 1, CR_MOVE_EN_PASSANT = 2, CR_MOVE_CASTLE = 3 };
#define CR_MOVE_NONE ((cr_move)0)

static inline cr_move cr_move_make(int from, int to, int kind, int promo_type)
{
    int promo = kind == CR_MOVE_PROMOTION ? promo_type - CR_KNIGHT : 0;
    return (cr_move)(from | (to << 6) | (promo << 12) | (kind << 14));
}
static inline int cr_move_from(cr_move m) { return m & 63; }
static inline int cr_move_to(cr_move m) { return (m >> 6) & 63; }
static inline int cr_move_kind(cr_move m) { return m >> 14; }
/* Piece type promoted to, or CR_NO_TYPE. */
static inline int cr_move_promo(cr_move m)
{
    return cr_move_kind(m) == CR_MOVE_PROMOTION ? ((m >> 12) & 3) + CR_KNIGHT : CR_NO_TYPE;
}

#define CR_MAX_MOVES 256
typedef struct cr_movelist {
    int count;
    cr_move moves[CR_MAX_MOVES];
} cr_movelist;

/* Castling right slots: [color][CR_CASTLE_KING_SIDE | CR_CASTLE_QUEEN_SIDE]. */
enum { CR_CASTLE_KING_SIDE = 0, CR_CASTLE_QUEEN_SIDE = 1 };

typedef struct cr_position {
    cr_bb by_piece[CR_PIECE_NB]; /* indexed by piece; [0] unused */
    cr_bb by_color[CR_COLOR_NB];
    cr_bb occupied;
    uint64_t key;                /* Zobrist key; FIDE identity (see below) */
    uint8_t board[CR_SQ_NB];     /* mailbox: piece on each square */
    uint8_t side;                /* side to move */
    uint8_t ep;                  /* en-passant target square, or CR_SQ_NONE */
    uint8_t castle_rook[CR_COLOR_NB][2]; /* rook square with the right, or CR_SQ_NONE */
    uint8_t chess960;            /* write castling as Shredder/X-FEN, UCI as king-takes-rook */
    uint16_t halfmove;           /* plies since the last capture or pawn move */
    uint16_t fullmove;           /* starts at 1, grows after Black's move */
} cr_position;

/* `ep` is only set when an en-passant capture is actually legal, so that two
 * positions are the same in FIDE's sense (Article 9.2: same pieces, side to
 * move, castling and en-passant possibilities) exactly when their `key`s and
 * boards agree. FEN input with an e.p. square that cannot be captured is
 * accepted (if plausible) and normalised away. */

/* The standard start position. */
CR_EXTERN void cr_position_init_start(cr_position *pos);

/* Reads a FEN (6 fields; the last two may be missing and default to "0 1").
 * Castling field: KQkq, X-FEN (KQkq with Chess960 rook files where needed,
 * e.g. "Kk" meaning the outermost rook) or Shredder-FEN (file letters, e.g.
 * "HAha"). Strict validation: on error returns CR_EFEN and fills err (if not
 * NULL) with the column and the fault ("two white kings", "pawn on rank 1",
 * "side not to move is in check", "impossible en-passant square e3", ...);
 * pos is then unspecified. */
CR_EXTERN int cr_position_from_fen(cr_position *pos, const char *fen, cr_error *err);

#define CR_FEN_MAX 100 /* enough for any valid position, with the NUL */

/* Writes the FEN of pos into buf (size bytes, CR_FEN_MAX is always enough).
 * Castling uses KQkq when the rooks are the outermost ones (or the standard
 * ones), otherwise Shredder-style file letters. Returns the length written
 * (without the NUL) or CR_ENOSPC. */
CR_EXTERN int cr_position_to_fen(const cr_position *pos, char *buf, size_t size);

/* Piece-placement field only ("rnbqkbnr/pppppppp/8/..."), as feeds carry it. */
CR_EXTERN int cr_placement_write(const uint8_t board[CR_SQ_NB], char *buf, size_t size);

/* Parses a piece-placement field into a mailbox (no legality checks beyond
 * the syntax: 8 ranks of 8 squares, letters PNBRQKpnbrqk). Returns 0 or
 * CR_EFEN with err filled (column = 1-based offset in s). */
CR_EXTERN int cr_placement_read(const char *s, uint8_t board[CR_SQ_NB], cr_error *err);
/* The same for len bytes of s (need not be NUL-terminated). */
CR_EXTERN int cr_placement_read_len(const char *s, size_t len, uint8_t board[CR_SQ_NB], cr_error *err);

/* All legal moves of the side to move. Returns the count. Castling moves are
 * listed once (king takes rook). */
CR_EXTERN int cr_generate_legal(const cr_position *pos, cr_movelist *list);

/* Number of legal moves (faster than generating them: used by perft's last
 * ply and by the mate/stalemate test). */
CR_EXTERN int cr_count_legal(const cr_position *pos);

/* Plays a legal move (the caller guarantees legality: a move from
 * cr_generate_legal or checked with cr_is_legal). Updates everything,
 * including key, counters, castling rights and ep. */
CR_EXTERN void cr_position_do_move(cr_position *pos, cr_move m);

/* True if m is a legal move in pos. */
CR_EXTERN bool cr_is_legal(const cr_position *pos, cr_move m);

CR_EXTERN bool cr_in_check(const cr_position *pos);

/* Attacks of `color` on square sq with the position's occupancy. */
CR_EXTERN bool cr_square_attacked(const cr_position *pos, int sq, int color);

/* Square the king stands on after the move, and where the rook goes, for a
 * castling move. */
CR_EXTERN int cr_castle_king_to(cr_move m, int color);
CR_EXTERN int cr_castle_rook_to(cr_move m, int color);

/* Kind of position reached. */
typedef enum cr_status {
    CR_STATUS_ONGOING = 0,
    CR_STATUS_CHECKMATE,  /* side to move is mated */
    CR_STATUS_STALEMATE,
    CR_STATUS_DEAD        /* insufficient material: neither side can ever mate */
} cr_status;

CR_EXTERN cr_status cr_position_status(const cr_position *pos);

/* Dead position by material (FIDE 5.2.2 and its simple cases): K v K,
 * K + one minor v K, and kings with bishops only, all on squares of one
 * colour. */
CR_EXTERN bool cr_position_is_dead(const cr_position *pos);

/* True if `color` has mating material at all (used for flag falls: FIDE
 * 6.9, a flagged player's opponent who cannot mate by any sequence of legal
 * moves gets a draw, not a win). Conservative: false only for a lone king,
 * or king + single knight/bishop against any position... see board.c. */
CR_EXTERN bool cr_can_mate(const cr_position *pos, int color);

/* UCI move text: "e2e4", "e7e8q"; castling as "e1g1" in standard chess and
 * king-takes-rook ("e1h1") when pos->chess960. buf needs 6 bytes. Returns the
 * length. */
CR_EXTERN int cr_move_to_uci(const cr_position *pos, cr_move m, char buf[6]);

/* Reads UCI text and returns the matching legal move, or CR_MOVE_NONE.
 * Accepts both castling forms (e1g1 and e1h1). */
CR_EXTERN cr_move cr_move_from_uci(const cr_position *pos, const char *text);

/* Leaf count of the legal move tree (bulk-counted at the last ply). */
CR_EXTERN uint64_t cr_perft(const cr_position *pos, int depth);

/* Zobrist key of a position computed from scratch (the incremental `key`
 * must always equal it). */
CR_EXTERN uint64_t cr_position_compute_key(const cr_position *pos);

/* Internal consistency check (bitboards vs mailbox, key, kings). Used by
 * asserts and tests. */
CR_EXTERN bool cr_position_ok(const cr_position *pos);

/* Recognises a Chess960 start position (any of the 960, standard included)
 * in a mailbox with the back ranks filled and pawns on ranks 2 and 7; returns
 * its number 0..959 (518 is the standard one) or -1. */
CR_EXTERN int cr_chess960_index(const uint8_t board[CR_SQ_NB]);

/* Sets up Chess960 position number n (0..959). chess960 flag set unless
 * n == 518. */
CR_EXTERN int cr_position_init_960(cr_position *pos, int n);

/* Square name ("e4") into buf[3]; and back (returns CR_SQ_NONE if invalid). */
CR_EXTERN void cr_square_name(int sq, char buf[3]);
CR_EXTERN int cr_square_parse(const char *s);

#endif
