/* Legal move generation without trying moves: the checkers give a target
 * mask (capture the checker or block), pinned pieces move only along their
 * pin line, the king only to squares the enemy does not attack once the king
 * has left its square. En passant, rare, is checked by occupancy directly.
 * One body serves both listing and counting (the counting copy only
 * popcounts target sets: perft's last ply and the mate test). */
#include "board_private.h"

#define CR_RANK_3 (CR_RANK_1 << 16)
#define CR_RANK_6 (CR_RANK_1 << 40)
#define CR_RANK_8 (CR_RANK_1 << 56)
#define CR_FILE_H (CR_FILE_A << 7)

static inline cr_move *add_targets(cr_move *out, int from, cr_bb targets)
{
    while (targets) {
        *out++ = cr_move_make(from, cr_pop_lsb_(&targets), CR_MOVE_NORMAL, 0);
    }
    return out;
}

/* Pawn moves encoded by a shift: from = to - delta. */
static inline cr_move *add_pawn_moves(cr_move *out, cr_bb targets, int delta, cr_bb promo_rank)
{
    cr_bb promos = targets & promo_rank;
    targets &= ~promo_rank;
    while (targets) {
        int to = cr_pop_lsb_(&targets);
        *out++ = cr_move_make(to - delta, to, CR_MOVE_NORMAL, 0);
    }
    while (promos) {
        int to = cr_pop_lsb_(&promos);
        for (int t = CR_QUEEN; t >= CR_KNIGHT; t--) {
            *out++ = cr_move_make(to - delta, to, CR_MOVE_PROMOTION, t);
        }
    }
    return out;
}

static inline int pawn_count(cr_bb targets, cr_bb promo_rank)
{
    return cr_popcount_(targets & ~promo_rank) + 4 * cr_popcount_(targets & promo_rank);
}

static inline cr_bb shift_up(cr_bb b, int us) { return us == CR_WHITE ? b << 8 : b >> 8; }

/* The parts of generate() below are forced inline into it, so that each
 * copy (listing, counting) keeps its locals in registers. */
#define GEN_INLINE __attribute__((always_inline)) static inline

/* What every part of the generator reads. */
typedef struct gen_ctx {
    const cr_position *pos;
    int us, them, ksq;
    cr_bb ours, theirs, occ;
    cr_bb target; /* squares a non-king move may reach: all but ours, or block/capture a check */
    cr_bb pinned;
    cr_bb from;   /* only moves of the pieces on these squares (castling: king or rook) */
} gen_ctx;

/* Moves out, or only their number: the one choice each part makes. */
typedef struct gen_out {
    cr_move *out;
    int count;
} gen_out;

GEN_INLINE void emit_targets(gen_out *o, int from, cr_bb t, const bool count_only)
{
    if (count_only) {
        o->count += cr_popcount_(t);
    } else {
        o->out = add_targets(o->out, from, t);
    }
}

GEN_INLINE void emit_one(gen_out *o, cr_move m, const bool count_only)
{
    if (count_only) {
        o->count++;
    } else {
        *o->out++ = m;
    }
}

/* King steps: attacks computed without the king so it cannot hide behind
 * itself along a checking ray. */
GEN_INLINE void gen_king(const gen_ctx *g, gen_out *o, const bool count_only)
{
    cr_bb targets = (g->from & CR_BB(g->ksq)) ? cr_king_att_[g->ksq] & ~g->ours : 0;
    const cr_bb occ_nok = g->occ ^ CR_BB(g->ksq);
    cr_bb ok = 0;
    while (targets) {
        int to = cr_pop_lsb_(&targets);
        if (!(cr_attackers_(g->pos, to, occ_nok) & g->theirs)) {
            ok |= CR_BB(to);
        }
    }
    emit_targets(o, g->ksq, ok, count_only);
}

/* Our pieces standing alone between our king and an enemy slider. */
GEN_INLINE cr_bb pinned_pieces(const gen_ctx *g)
{
    const cr_position *pos = g->pos;
    const cr_bb their_rq = cr_pieces_(pos, g->them, CR_ROOK) | cr_pieces_(pos, g->them, CR_QUEEN);
    const cr_bb their_bq =
        cr_pieces_(pos, g->them, CR_BISHOP) | cr_pieces_(pos, g->them, CR_QUEEN);
    cr_bb pinned = 0;
    cr_bb snipers = (cr_rook_att_(g->ksq, 0) & their_rq) | (cr_bishop_att_(g->ksq, 0) & their_bq);
    while (snipers) {
        int s = cr_pop_lsb_(&snipers);
        cr_bb b = cr_between_bb_(g->ksq, s) & g->occ;
        if (b && !cr_more_than_one_(b)) {
            pinned |= b & g->ours;
        }
    }
    return pinned;
}

/* Knights (a pinned knight never moves) and sliders (a pinned one along
 * its pin line only). */
GEN_INLINE void gen_pieces(const gen_ctx *g, gen_out *o, const bool count_only)
{
    const cr_position *pos = g->pos;
    cr_bb b = cr_pieces_(pos, g->us, CR_KNIGHT) & ~g->pinned & g->from;
    while (b) {
        int from = cr_pop_lsb_(&b);
        emit_targets(o, from, cr_knight_att_[from] & g->target, count_only);
    }
    const cr_bb queens = cr_pieces_(pos, g->us, CR_QUEEN) & g->from;
    b = (cr_pieces_(pos, g->us, CR_BISHOP) & g->from) | queens;
    while (b) {
        int from = cr_pop_lsb_(&b);
        cr_bb t = cr_bishop_att_(from, g->occ) & g->target;
        if (g->pinned & CR_BB(from)) {
            t &= cr_line_bb_(g->ksq, from);
        }
        emit_targets(o, from, t, count_only);
    }
    b = (cr_pieces_(pos, g->us, CR_ROOK) & g->from) | queens;
    while (b) {
        int from = cr_pop_lsb_(&b);
        cr_bb t = cr_rook_att_(from, g->occ) & g->target;
        if (g->pinned & CR_BB(from)) {
            t &= cr_line_bb_(g->ksq, from);
        }
        emit_targets(o, from, t, count_only);
    }
}

/* Pinned pawns, one by one, along their pin line. */
GEN_INLINE void gen_pinned_pawns(const gen_ctx *g, gen_out *o, cr_bb pp, cr_bb promo_rank,
                                 cr_bb third, const bool count_only)
{
    const cr_bb empty = ~g->occ;
    while (pp) {
        int from = cr_pop_lsb_(&pp);
        cr_bb p1 = shift_up(CR_BB(from), g->us) & empty;
        cr_bb t = p1 | (shift_up(p1 & third, g->us) & empty);
        t |= cr_pawn_att_[g->us * 64 + from] & g->theirs;
        t &= cr_line_bb_(g->ksq, from) & g->target;
        while (t) {
            int to = cr_pop_lsb_(&t);
            if (!(CR_BB(to) & promo_rank)) {
                emit_one(o, cr_move_make(from, to, CR_MOVE_NORMAL, 0), count_only);
            } else if (count_only) {
                o->count += 4;
            } else {
                for (int pt = CR_QUEEN; pt >= CR_KNIGHT; pt--) {
                    *o->out++ = cr_move_make(from, to, CR_MOVE_PROMOTION, pt);
                }
            }
        }
    }
}

/* En passant: try the resulting occupancy against the king. */
GEN_INLINE void gen_en_passant(const gen_ctx *g, gen_out *o, cr_bb pawns, int up,
                               const bool count_only)
{
    const int ep = g->pos->ep;
    const int capsq = ep - up;
    cr_bb cand = cr_pawn_att_[g->them * 64 + ep] & pawns;
    while (cand) {
        int from = cr_pop_lsb_(&cand);
        cr_bb occ = (g->occ ^ CR_BB(from) ^ CR_BB(capsq)) | CR_BB(ep);
        if (!(cr_attackers_(g->pos, g->ksq, occ) & g->theirs & ~CR_BB(capsq))) {
            emit_one(o, cr_move_make(from, ep, CR_MOVE_EN_PASSANT, 0), count_only);
        }
    }
}

/* Pawns: unpinned ones in bulk by shifts, pinned ones one by one. */
GEN_INLINE void gen_pawns(const gen_ctx *g, gen_out *o, const bool count_only)
{
    const int us = g->us;
    const cr_bb pawns = cr_pieces_(g->pos, us, CR_PAWN) & g->from;
    const cr_bb free_pawns = pawns & ~g->pinned;
    const cr_bb empty = ~g->occ;
    const cr_bb promo_rank = us == CR_WHITE ? CR_RANK_8 : CR_RANK_1;
    const cr_bb third = us == CR_WHITE ? CR_RANK_3 : CR_RANK_6;
    const int up = us == CR_WHITE ? 8 : -8;
    cr_bb push1 = shift_up(free_pawns, us) & empty;
    cr_bb push2 = shift_up(push1 & third, us) & empty & g->target;
    push1 &= g->target;
    cr_bb capl, capr; /* towards file a / file h */
    if (us == CR_WHITE) {
        capl = ((free_pawns & ~CR_FILE_A) << 7) & g->theirs & g->target;
        capr = ((free_pawns & ~CR_FILE_H) << 9) & g->theirs & g->target;
    } else {
        capl = ((free_pawns & ~CR_FILE_A) >> 9) & g->theirs & g->target;
        capr = ((free_pawns & ~CR_FILE_H) >> 7) & g->theirs & g->target;
    }
    if (count_only) {
        o->count += pawn_count(push1, promo_rank) + cr_popcount_(push2) +
                    pawn_count(capl, promo_rank) + pawn_count(capr, promo_rank);
    } else {
        o->out = add_pawn_moves(o->out, push1, up, promo_rank);
        o->out = add_pawn_moves(o->out, push2, 2 * up, 0);
        o->out = add_pawn_moves(o->out, capl, us == CR_WHITE ? 7 : -9, promo_rank);
        o->out = add_pawn_moves(o->out, capr, us == CR_WHITE ? 9 : -7, promo_rank);
    }
    gen_pinned_pawns(g, o, pawns & g->pinned, promo_rank, third, count_only);
    if (g->pos->ep < 64) {
        gen_en_passant(g, o, pawns, up, count_only);
    }
}

/* Castling (king takes rook), never out of check: the rest in
 * cr_castle_ok_, shared with cr_is_legal. */
GEN_INLINE void gen_castles(const gen_ctx *g, gen_out *o, const bool count_only)
{
    for (int s = 0; s < 2; s++) {
        int rsq = g->pos->castle_rook[g->us][s];
        if (rsq < 64 && (g->from & (CR_BB(g->ksq) | CR_BB(rsq))) && cr_castle_ok_(g->pos, g->ksq, rsq, s)) {
            emit_one(o, cr_move_make(g->ksq, rsq, CR_MOVE_CASTLE, 0), count_only);
        }
    }
}

/* The side to move's context; false without a king (no moves then). */
GEN_INLINE bool gen_init(gen_ctx *g, const cr_position *pos, const cr_bb from)
{
    g->pos = pos;
    g->from = from;
    g->us = pos->side;
    g->them = g->us ^ 1;
    g->ours = pos->by_color[g->us];
    g->theirs = pos->by_color[g->them];
    g->occ = pos->occupied;
    const cr_bb kbb = cr_pieces_(pos, g->us, CR_KING);
    if (!kbb) {
        return false;
    }
    g->ksq = cr_lsb_(kbb);
    return true;
}

GEN_INLINE int generate(const cr_position *pos, cr_move *out, const bool count_only, const cr_bb from)
{
    gen_ctx g;
    if (!gen_init(&g, pos, from)) {
        return 0;
    }
    gen_out o = {out, 0};
    const cr_bb checkers = cr_attackers_(pos, g.ksq, g.occ) & g.theirs;
    gen_king(&g, &o, count_only);
    if (!cr_more_than_one_(checkers)) {
        g.target = checkers ? cr_between_bb_(g.ksq, cr_lsb_(checkers)) | checkers : ~g.ours;
        g.pinned = pinned_pieces(&g);
        gen_pieces(&g, &o, count_only);
        gen_pawns(&g, &o, count_only);
        if (!checkers) {
            gen_castles(&g, &o, count_only);
        }
    }
    return count_only ? o.count : (int)(o.out - out);
}

int cr_generate_legal(const cr_position *pos, cr_movelist *list)
{
    list->count = generate(pos, list->moves, false, ~0ull);
    return list->count;
}

int cr_count_legal(const cr_position *pos)
{
    return generate(pos, NULL, true, ~0ull);
}

int cr_generate_legal_from_(const cr_position *pos, cr_bb from, cr_movelist *list)
{
    list->count = generate(pos, list->moves, false, from);
    return list->count;
}

bool cr_has_legal_move_(const cr_position *pos)
{
    gen_ctx g;
    if (!gen_init(&g, pos, ~0ull)) {
        return false;
    }
    if (!(cr_attackers_(pos, g.ksq, g.occ) & g.theirs)) {
        /* Out of check, a piece that is not pinned moves freely: a knight
         * with a square to go to, or a pawn with an empty square ahead,
         * is a legal move, and nearly every position has one. */
        g.pinned = pinned_pieces(&g);
        cr_bb b = cr_pieces_(pos, g.us, CR_KNIGHT) & ~g.pinned;
        while (b) {
            if (cr_knight_att_[cr_pop_lsb_(&b)] & ~g.ours) {
                return true;
            }
        }
        if (shift_up(cr_pieces_(pos, g.us, CR_PAWN) & ~g.pinned, g.us) & ~g.occ) {
            return true;
        }
    }
    return generate(pos, NULL, true, ~0ull) > 0;
}
