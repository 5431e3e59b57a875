/* Internals of the rules engine shared by board.c, movegen.c, fen.c and the
 * generated tables (cr_tables.c, written at build time by src/gen/). All
 * tables are `const`: nothing here is initialised at run time. */
#ifndef CR_BOARD_PRIVATE_H
#define CR_BOARD_PRIVATE_H

#include "cr/board.h"

typedef struct cr_magic_ {
    cr_bb mask;
    cr_bb magic;
    uint32_t offset;
    uint32_t shift;
} cr_magic_;

extern const cr_bb cr_knight_att_[64];
extern const cr_bb cr_king_att_[64];
extern const cr_bb cr_pawn_att_[128];  /* [color * 64 + sq] */
extern const cr_bb cr_between_[4096];  /* [a * 64 + b]: squares strictly between, 0 if not aligned */
extern const cr_bb cr_line_[4096];     /* [a * 64 + b]: whole line through a and b, 0 if not aligned */
extern const cr_magic_ cr_rook_magic_[64];
extern const cr_magic_ cr_bishop_magic_[64];
extern const cr_bb cr_slider_att_[107648];
extern const uint64_t cr_zobrist_piece_[1024]; /* [piece * 64 + sq] */
extern const uint64_t cr_zobrist_castle_[64];  /* by castling rook square */
extern const uint64_t cr_zobrist_ep_[8];       /* by file */
extern const uint64_t cr_zobrist_side_;

#define CR_BB(sq) (1ULL << (sq))
#define CR_RANK_1 0xFFULL
#define CR_FILE_A 0x0101010101010101ULL

static inline int cr_lsb_(cr_bb b) { return __builtin_ctzll(b); }
/* The builtin is one instruction with -mpopcnt, else a library call: in
 * portable builds a few arithmetic steps are faster. */
static inline int cr_popcount_(cr_bb b)
{
#if defined(__POPCNT__)
    return __builtin_popcountll(b);
#else
    b = b - ((b >> 1) & 0x5555555555555555ull);
    b = (b & 0x3333333333333333ull) + ((b >> 2) & 0x3333333333333333ull);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((b * 0x0101010101010101ull) >> 56);
#endif
}
static inline int cr_pop_lsb_(cr_bb *b)
{
    int s = __builtin_ctzll(*b);
    *b &= *b - 1;
    return s;
}
static inline bool cr_more_than_one_(cr_bb b) { return (b & (b - 1)) != 0; }

static inline cr_bb cr_rook_att_(int sq, cr_bb occ)
{
    const cr_magic_ *m = &cr_rook_magic_[sq];
    return cr_slider_att_[m->offset + (((occ & m->mask) * m->magic) >> m->shift)];
}
static inline cr_bb cr_bishop_att_(int sq, cr_bb occ)
{
    const cr_magic_ *m = &cr_bishop_magic_[sq];
    return cr_slider_att_[m->offset + (((occ & m->mask) * m->magic) >> m->shift)];
}
static inline cr_bb cr_between_bb_(int a, int b) { return cr_between_[a * 64 + b]; }
static inline cr_bb cr_line_bb_(int a, int b) { return cr_line_[a * 64 + b]; }

static inline cr_bb cr_pieces_(const cr_position *pos, int color, int type)
{
    return pos->by_piece[cr_make_piece(color, type)];
}

/* All pieces of either colour attacking sq, given occupancy occ. */
static inline cr_bb cr_attackers_(const cr_position *pos, int sq, cr_bb occ)
{
    cr_bb rq = pos->by_piece[CR_WR] | pos->by_piece[CR_BR] | pos->by_piece[CR_WQ] |
               pos->by_piece[CR_BQ];
    cr_bb bq = pos->by_piece[CR_WB] | pos->by_piece[CR_BB] | pos->by_piece[CR_WQ] |
               pos->by_piece[CR_BQ];
    return (cr_pawn_att_[64 + sq] & pos->by_piece[CR_WP]) |
           (cr_pawn_att_[sq] & pos->by_piece[CR_BP]) |
           (cr_knight_att_[sq] & (pos->by_piece[CR_WN] | pos->by_piece[CR_BN])) |
           (cr_king_att_[sq] & (pos->by_piece[CR_WK] | pos->by_piece[CR_BK])) |
           (cr_rook_att_(sq, occ) & rq) | (cr_bishop_att_(sq, occ) & bq);
}

/* True if the king of the side to move, on ksq, is not attacked once a
 * piece (not the king itself, unless ksq == to) has gone from `from` to
 * `to` and the squares in `gone` (the e.p. victim, or 0) were emptied.
 * Attackers are recomputed on the changed occupancy; the piece captured on
 * `to` attacks no more. */
static inline bool cr_king_safe_after_(const cr_position *pos, int ksq, int from, int to,
                                       cr_bb gone)
{
    cr_bb occ = ((pos->occupied & ~CR_BB(from)) | CR_BB(to)) & ~gone;
    return !(cr_attackers_(pos, ksq, occ) & pos->by_color[pos->side ^ 1] & ~CR_BB(to) & ~gone);
}

/* Inclusive span of squares between a and b on one rank. */
static inline cr_bb cr_span_(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    return (2ULL << hi) - (1ULL << lo);
}

/* Castling of the side to move with its right on rook square rsq (side s),
 * the king on ksq and not in check: every square from the king to its
 * destination, and from the rook to its destination, is empty but for these
 * two, and no square of the king's path is attacked with king and rook
 * lifted (that also catches a slider uncovered by the rook leaving, possible
 * in Chess960). */
static inline bool cr_castle_ok_(const cr_position *pos, int ksq, int rsq, int s)
{
    int back = pos->side == CR_WHITE ? 0 : 56;
    int kto = back + (s == CR_CASTLE_KING_SIDE ? 6 : 2);
    int rto = back + (s == CR_CASTLE_KING_SIDE ? 5 : 3);
    cr_bb o = pos->occupied ^ CR_BB(ksq) ^ CR_BB(rsq);
    if ((cr_span_(ksq, kto) | cr_span_(rsq, rto)) & o) {
        return false;
    }
    cr_bb path = cr_span_(ksq, kto);
    while (path) {
        if (cr_attackers_(pos, cr_pop_lsb_(&path), o) & pos->by_color[pos->side ^ 1]) {
            return false;
        }
    }
    return true;
}

static inline int cr_king_sq_(const cr_position *pos, int color)
{
    return cr_lsb_(pos->by_piece[cr_make_piece(color, CR_KING)]);
}

/* Recomputes pos->ep from a candidate square: kept only if a legal e.p.
 * capture exists for the side to move (board.c). */
void cr_position_set_ep_(cr_position *pos, int candidate);

/* Whether the side to move has any legal move: cr_count_legal(pos) > 0,
 * mostly without counting (movegen.c; the mate test after every move). */
bool cr_has_legal_move_(const cr_position *pos);

/* The legal moves of the pieces on `from` (castling: the king or the rook
 * on it), in cr_generate_legal's order: the gap search moves only pieces
 * on the squares that changed (movegen.c). */
int cr_generate_legal_from_(const cr_position *pos, cr_bb from, cr_movelist *list);

/* SAN of m, a move known to be legal in pos, given the position after it
 * (notation.c; a game's push has made the move already). buf holds 16
 * bytes, as SAN in English never needs more. Returns the length. */
int cr_san_of_legal_(const cr_position *pos, cr_move m, const cr_position *after, char *buf);

/* Builds bitboards, key from board[], side, castle_rook, ep (board.c). */
void cr_position_rebuild_(cr_position *pos);

#endif
