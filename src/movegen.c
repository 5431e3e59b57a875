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

__attribute__((always_inline)) static inline int generate(const cr_position *pos, cr_move *out,
                                                          const bool count_only)
{
    const int us = pos->side, them = us ^ 1;
    const cr_bb ours = pos->by_color[us], theirs = pos->by_color[them];
    const cr_bb occ = pos->occupied;
    const cr_bb kbb = cr_pieces_(pos, us, CR_KING);
    cr_move *const start = out;
    int count = 0;
    if (!kbb) {
        return 0;
    }
    const int ksq = cr_lsb_(kbb);
    const cr_bb their_rq = cr_pieces_(pos, them, CR_ROOK) | cr_pieces_(pos, them, CR_QUEEN);
    const cr_bb their_bq = cr_pieces_(pos, them, CR_BISHOP) | cr_pieces_(pos, them, CR_QUEEN);
    const cr_bb checkers = cr_attackers_(pos, ksq, occ) & theirs;

    /* King steps: attacks computed without the king so it cannot hide
     * behind itself along a checking ray. */
    {
        cr_bb targets = cr_king_att_[ksq] & ~ours;
        const cr_bb occ_nok = occ ^ kbb;
        cr_bb ok = 0;
        while (targets) {
            int to = cr_pop_lsb_(&targets);
            if (!(cr_attackers_(pos, to, occ_nok) & theirs)) {
                ok |= CR_BB(to);
            }
        }
        if (count_only) {
            count += cr_popcount_(ok);
        } else {
            out = add_targets(out, ksq, ok);
        }
    }
    if (cr_more_than_one_(checkers)) {
        return count_only ? count : (int)(out - start);
    }

    cr_bb target = ~ours;
    if (checkers) {
        target = cr_between_bb_(ksq, cr_lsb_(checkers)) | checkers;
    }

    cr_bb pinned = 0;
    {
        cr_bb snipers = (cr_rook_att_(ksq, 0) & their_rq) | (cr_bishop_att_(ksq, 0) & their_bq);
        while (snipers) {
            int s = cr_pop_lsb_(&snipers);
            cr_bb b = cr_between_bb_(ksq, s) & occ;
            if (b && !cr_more_than_one_(b)) {
                pinned |= b & ours;
            }
        }
    }

    /* Knights: a pinned knight never moves. */
    {
        cr_bb b = cr_pieces_(pos, us, CR_KNIGHT) & ~pinned;
        while (b) {
            int from = cr_pop_lsb_(&b);
            cr_bb t = cr_knight_att_[from] & target;
            if (count_only) {
                count += cr_popcount_(t);
            } else {
                out = add_targets(out, from, t);
            }
        }
    }
    /* Sliders. */
    {
        const cr_bb queens = cr_pieces_(pos, us, CR_QUEEN);
        cr_bb b = cr_pieces_(pos, us, CR_BISHOP) | queens;
        while (b) {
            int from = cr_pop_lsb_(&b);
            cr_bb t = cr_bishop_att_(from, occ) & target;
            if (pinned & CR_BB(from)) {
                t &= cr_line_bb_(ksq, from);
            }
            if (count_only) {
                count += cr_popcount_(t);
            } else {
                out = add_targets(out, from, t);
            }
        }
        b = cr_pieces_(pos, us, CR_ROOK) | queens;
        while (b) {
            int from = cr_pop_lsb_(&b);
            cr_bb t = cr_rook_att_(from, occ) & target;
            if (pinned & CR_BB(from)) {
                t &= cr_line_bb_(ksq, from);
            }
            if (count_only) {
                count += cr_popcount_(t);
            } else {
                out = add_targets(out, from, t);
            }
        }
    }
    /* Pawns: unpinned ones in bulk by shifts, pinned ones one by one. */
    {
        const cr_bb pawns = cr_pieces_(pos, us, CR_PAWN);
        const cr_bb free_pawns = pawns & ~pinned;
        const cr_bb empty = ~occ;
        const cr_bb promo_rank = us == CR_WHITE ? CR_RANK_8 : CR_RANK_1;
        const cr_bb third = us == CR_WHITE ? CR_RANK_3 : CR_RANK_6;
        const int up = us == CR_WHITE ? 8 : -8;
        cr_bb push1 = shift_up(free_pawns, us) & empty;
        cr_bb push2 = shift_up(push1 & third, us) & empty & target;
        push1 &= target;
        cr_bb capl, capr; /* towards file a / file h */
        if (us == CR_WHITE) {
            capl = ((free_pawns & ~CR_FILE_A) << 7) & theirs & target;
            capr = ((free_pawns & ~CR_FILE_H) << 9) & theirs & target;
        } else {
            capl = ((free_pawns & ~CR_FILE_A) >> 9) & theirs & target;
            capr = ((free_pawns & ~CR_FILE_H) >> 7) & theirs & target;
        }
        if (count_only) {
            count += pawn_count(push1, promo_rank) + cr_popcount_(push2) +
                     pawn_count(capl, promo_rank) + pawn_count(capr, promo_rank);
        } else {
            out = add_pawn_moves(out, push1, up, promo_rank);
            out = add_pawn_moves(out, push2, 2 * up, 0);
            out = add_pawn_moves(out, capl, us == CR_WHITE ? 7 : -9, promo_rank);
            out = add_pawn_moves(out, capr, us == CR_WHITE ? 9 : -7, promo_rank);
        }
        cr_bb pp = pawns & pinned;
        while (pp) {
            int from = cr_pop_lsb_(&pp);
            cr_bb line = cr_line_bb_(ksq, from);
            cr_bb p1 = shift_up(CR_BB(from), us) & empty;
            cr_bb t = p1 | (shift_up(p1 & third, us) & empty);
            t |= cr_pawn_att_[us * 64 + from] & theirs;
            t &= line & target;
            while (t) {
                int to = cr_pop_lsb_(&t);
                if (CR_BB(to) & promo_rank) {
                    if (count_only) {
                        count += 4;
                    } else {
                        for (int pt = CR_QUEEN; pt >= CR_KNIGHT; pt--) {
                            *out++ = cr_move_make(from, to, CR_MOVE_PROMOTION, pt);
                        }
                    }
                } else if (count_only) {
                    count++;
                } else {
                    *out++ = cr_move_make(from, to, CR_MOVE_NORMAL, 0);
                }
            }
        }
        /* En passant: try the resulting occupancy against the king. */
        if (pos->ep < 64) {
            const int ep = pos->ep;
            const int capsq = ep - up;
            cr_bb cand = cr_pawn_att_[them * 64 + ep] & pawns;
            while (cand) {
                int from = cr_pop_lsb_(&cand);
                cr_bb o = (occ ^ CR_BB(from) ^ CR_BB(capsq)) | CR_BB(ep);
                if (!(cr_attackers_(pos, ksq, o) & theirs & ~CR_BB(capsq))) {
                    if (count_only) {
                        count++;
                    } else {
                        *out++ = cr_move_make(from, ep, CR_MOVE_EN_PASSANT, 0);
                    }
                }
            }
        }
    }
    /* Castling (king takes rook): never out of check; the rest in
     * cr_castle_ok_, shared with cr_is_legal. */
    if (!checkers) {
        for (int s = 0; s < 2; s++) {
            int rsq = pos->castle_rook[us][s];
            if (rsq < 64 && cr_castle_ok_(pos, ksq, rsq, s)) {
                if (count_only) {
                    count++;
                } else {
                    *out++ = cr_move_make(ksq, rsq, CR_MOVE_CASTLE, 0);
                }
            }
        }
    }
    return count_only ? count : (int)(out - start);
}

int cr_generate_legal(const cr_position *pos, cr_movelist *list)
{
    list->count = generate(pos, list->moves, false);
    return list->count;
}

int cr_count_legal(const cr_position *pos)
{
    return generate(pos, NULL, true);
}
