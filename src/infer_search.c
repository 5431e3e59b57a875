/* Move inference: the bounded search for snapshots the board never sent
 * (a gap of 2 to MAX_SEQ plies), pruned by the moves each side still needs
 * to reach the board: which pieces must arrive where, captures, pieces that
 * must leave. */
#include "infer_private.h"

#include "board_private.h" /* the move list from given squares */

/* ----------------------------------------------------------- gap search */

typedef struct search_ctx {
    const snap *target;
    cr_bb d0;
    int target_count[2];
    long budget, nodes;
    bool aborted;
    int nsol;
    int depth;
    int free_moves;      /* moves allowed from a square that ends unchanged */
    cr_move stack[MAX_SEQ];
    cr_move first[ALT_MAX][MAX_SEQ]; /* the first sequences found */
    bool castle_ok[2];   /* a side may still castle: one move fills two squares */
    int cap;             /* stop after this many solutions */
} search_ctx;

static int floordiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Knight moves from one square to another on an unbounded board: never
 * more than on the real one, so a lower bound. */
static int knight_moves(int df, int dr)
{
    int x = df > dr ? df : dr, y = df > dr ? dr : df;
    if (x == 1 && y == 0) {
        return 3;
    }
    if (x == 2 && y == 2) {
        return 4;
    }
    int delta = x - y;
    return y > delta ? delta - 2 * floordiv(delta - y, 3) : delta - 2 * floordiv(delta - y, 4);
}

/* Fewest moves a piece of this type (colour col) needs from one square to
 * another on an empty board: what "a piece must have moved there" costs. */
static int piece_dist(int type, int col, int from, int to)
{
    int df = abs(cr_file_of(from) - cr_file_of(to)), dr = abs(cr_rank_of(from) - cr_rank_of(to));
    switch (type) {
    case CR_PAWN: {
        int up = col == CR_WHITE ? cr_rank_of(to) - cr_rank_of(from) : cr_rank_of(from) - cr_rank_of(to);
        if (up <= 0 || df > up) {
            return 99;
        }
        bool home = cr_rank_of(from) == (col == CR_WHITE ? 1 : 6);
        /* the double step saves a move; captures after it change files */
        return home && up >= 2 && df <= up - 1 ? up - 1 : up;
    }
    case CR_KNIGHT: return knight_moves(df, dr);
    case CR_BISHOP:
        if (((df + dr) & 1) != 0) {
            return 99;
        }
        return df == dr ? 1 : 2;
    case CR_ROOK: return df == 0 || dr == 0 ? 1 : 2;
    case CR_QUEEN: return df == 0 || dr == 0 || df == dr ? 1 : 2;
    default: return df > dr ? df : dr;
    }
}

/* Lower bound on the moves side col still needs: every square that must
 * come to hold one of its pieces is reached by a piece of that type (or a
 * pawn promoting), each by its own moves. Castling moves king and rook at
 * once: they count one move at most while it is possible. */
static int moves_needed(const search_ctx *c, const cr_position *pos, cr_bb d, int col)
{
    int total = 0;
    cr_bb arrive = d & c->target->by_color[col];
    cr_bb pawns = pos->by_piece[cr_make_piece(col, CR_PAWN)];
    for (cr_bb b = arrive; b; b &= b - 1) {
        int to = lsb(b);
        int pc = c->target->sq[to];
        int type = cr_type_of(pc);
        int best = 99;
        if (c->castle_ok[col] && (type == CR_KING || type == CR_ROOK)) {
            best = 1;
        }
        for (cr_bb src = pos->by_piece[pc]; src && best > 1; src &= src - 1) {
            int dd = piece_dist(type, col, lsb(src), to);
            if (dd < best) {
                best = dd;
            }
        }
        if (type != CR_PAWN && type != CR_KING) {
            for (cr_bb src = pawns; src && best > 1; src &= src - 1) {
                int from = lsb(src);
                int last = col == CR_WHITE ? 7 : 0;
                int dd = piece_dist(CR_PAWN, col, from, cr_square(cr_file_of(from), last));
                if (dd < best) {
                    best = dd; /* the promoting move may land there */
                }
            }
        }
        total += best;
        if (total > 16) {
            break;
        }
    }
    return total;
}

static void dfs(search_ctx *c, const cr_position *pos, int ply, int left, cr_bb touched)
{
    if (++c->nodes > c->budget) {
        c->aborted = true;
        return;
    }
    cr_bb d = diff_bb(pos, c->target);
    if (left == 0) {
        if (d == 0) {
            if (c->nsol < ALT_MAX) {
                memcpy(c->first[c->nsol], c->stack, sizeof c->first[0]);
            }
            c->nsol++;
        }
        return;
    }
    if (d == 0 || popcount(d) > 4 * left) {
        return;
    }
    if (left == 1 && !one_move_shape(c->target, d, pos->side)) {
        return; /* the last ply must be one move of the side to move */
    }
    if (popcount(pos->by_color[0]) < c->target_count[0] || popcount(pos->by_color[1]) < c->target_count[1]) {
        return;
    }
    /* Squares that differ outside the changed set must be put right, one
     * ply each: by the side whose piece must stand there (moving in or
     * capturing), or by the owner of a piece that must leave. */
    cr_bb stray = d & ~c->d0;
    int need[2] = {0, 0};
    for (cr_bb b = stray; b; b &= b - 1) {
        int sq = lsb(b);
        int p = c->target->sq[sq] ? c->target->sq[sq] : pos->board[sq];
        need[cr_color_of(p)]++;
    }
    int side = pos->side;
    if (need[side] > (left + 1) / 2 || need[!side] > left / 2) {
        return;
    }
    /* Which pieces must still move where: every square that must come to
     * hold a piece of one side takes a move of that side (castling fills
     * two), and every piece of a side that must vanish takes a capture by
     * the other. */
    int moves[2];
    moves[side] = (left + 1) / 2;
    moves[!side] = left / 2;
    int needed[2];
    for (int col = 0; col < 2; col++) {
        int bonus = c->castle_ok[col] && moves[col] > 0;
        cr_bb arrive = d & c->target->by_color[col];
        if (popcount(arrive) > moves[col] + bonus) {
            return;
        }
        needed[col] = moves_needed(c, pos, d, col);
        if (needed[col] > moves[col] + bonus) {
            return;
        }
        if (popcount(pos->by_color[col]) - c->target_count[col] > moves[!col]) {
            return;
        }
    }
    /* A piece standing where the board shows an empty square or another
     * piece of its own side must move away, or be taken by a piece that
     * then moves on (a move the other side has to spare; en passant is
     * the one capture that leaves nothing behind: one allowed). */
    for (int col = 0; col < 2; col++) {
        cr_bb vacate = d & pos->by_color[col] & ~c->target->by_color[!col];
        int spare = moves[!col] - needed[!col];
        if (spare < 0) {
            spare = 0;
        }
        if (popcount(vacate) > moves[col] + (c->castle_ok[col] && moves[col] > 0) + spare + 1) {
            return;
        }
    }
    cr_movelist ml;
    cr_bb from_ok = c->d0 | touched;
    /* Without a free move left, a move from elsewhere is never tried: those
     * moves are not even listed (the rest come in the same order). */
    if (c->free_moves == 0) {
        cr_generate_legal_from_(pos, from_ok, &ml);
    } else {
        cr_generate_legal(pos, &ml);
    }
    for (int i = 0; i < ml.count; i++) {
        cr_move m = ml.moves[i];
        cr_bb movers = 1ull << cr_move_from(m);
        if (cr_move_kind(m) == CR_MOVE_CASTLE) {
            movers |= 1ull << cr_move_to(m);
        }
        bool free_move = !(from_ok & movers);
        int to = cr_move_to(m);
        if (free_move &&
            (c->free_moves == 0 || cr_move_kind(m) == CR_MOVE_CASTLE || !(c->d0 & (1ull << to)) ||
             (!pos->board[to] && cr_type_of(pos->board[cr_move_from(m)]) != CR_PAWN &&
              c->target->sq[to] != pos->board[cr_move_from(m)]))) {
            /* Leaving a square that ends as it began: a piece that went
             * and came back (its trace: what it took on a changed square),
             * a pawn whose square the next pawn of its file took, or a
             * piece that went where the board shows one like it while
             * another took its place (Rd2-f2 ... Rd8-d2). */
            continue;
        }
        if (left == 1 && cr_move_kind(m) <= CR_MOVE_PROMOTION && d != (movers | (1ull << to))) {
            /* The last ply: a move other than castling or e.p. changes its
             * two squares only, so it reaches the board only when they are
             * all that differs. The node counts as if visited. */
            if (++c->nodes > c->budget) {
                c->aborted = true;
                return;
            }
            continue;
        }
        cr_position next = *pos;
        cr_position_do_move(&next, m);
        cr_bb t2 = touched;
        if (cr_move_kind(m) == CR_MOVE_CASTLE) {
            t2 |= 1ull << cr_castle_king_to(m, side);
            t2 |= 1ull << cr_castle_rook_to(m, side);
        } else {
            t2 |= 1ull << cr_move_to(m);
        }
        c->stack[ply] = m;
        c->free_moves -= free_move;
        dfs(c, &next, ply + 1, left - 1, t2);
        c->free_moves += free_move;
        if (c->aborted || c->nsol >= c->cap) {
            return;
        }
    }
}

/* Sequences of 2..max plies from base to s (shortest first). Returns the
 * number found at the shortest depth, 0 if none. */
/* want_side >= 0: only sequences after which that side is to move (the
 * clock runs for it); then a search cut short by its budget still counts
 * what it found (at least that many fit). */
int cr_infer__gap_search_n(cr_infer *inf, const cr_position *base, const snap *s, seq *out, int mind, int maxd,
                        long budget, int cap, int want_side)
{
    search_ctx c;
    memset(&c, 0, sizeof c);
    c.target = s;
    c.d0 = diff_bb(base, s);
    c.target_count[0] = popcount(s->by_color[0]);
    c.target_count[1] = popcount(s->by_color[1]);
    c.budget = budget > 0 ? budget : inf->cfg.search_nodes;
    c.cap = cap > 0 ? cap : SOLUTIONS_CAP;
    for (int col = 0; col < 2; col++) {
        c.castle_ok[col] = base->castle_rook[col][0] != CR_SQ_NONE || base->castle_rook[col][1] != CR_SQ_NONE;
    }
    if (maxd > MAX_SEQ) {
        maxd = MAX_SEQ;
    }
    inf->stats.searches++;
    /* Shortest first. At each length: every moved piece starts on a
     * changed square or where an earlier move put it; then (3 plies and
     * more) also one move from a square that ends as it began (a piece
     * that left and came back, or whose square another like it took). */
    for (int depth = mind > 2 ? mind : 2; depth <= maxd && !c.aborted; depth++) {
        if (want_side >= 0 && ((base->side + depth) & 1) != want_side) {
            continue;
        }
        for (int pass = 0; pass < 2 && !c.aborted; pass++) {
            if (pass == 1 && depth < 3) {
                continue;
            }
            c.free_moves = pass;
            c.nsol = 0;
            c.depth = depth;
            dfs(&c, base, 0, depth, 0);
            if (c.nsol > 0 && c.aborted && want_side < 0) {
                break; /* how many fit is not known */
            }
            if (c.nsol > 0) {
                out->n = depth;
                memcpy(out->moves, c.first[0], sizeof out->moves);
                out->nalt = c.nsol < ALT_MAX ? c.nsol - 1 : ALT_MAX - 1;
                memcpy(out->alt, c.first[1], sizeof out->alt);
                out->fits = (uint16_t)c.nsol;
                out->reconstructed = true;
                inf->stats.search_nodes += (uint64_t)c.nodes;
                inf->hunt_nodes += c.nodes;
                return c.nsol;
            }
        }
    }
    inf->stats.search_nodes += (uint64_t)c.nodes;
    inf->hunt_nodes += c.nodes;
    return c.aborted ? -1 : 0;
}

int cr_infer__gap_search(cr_infer *inf, const cr_position *base, const snap *s, seq *out, int mind, int maxd)
{
    return cr_infer__gap_search_n(inf, base, s, out, mind, maxd, 0, 0, -1);
}


int cr_infer__plies_needed(const cr_position *base, const snap *s, int side_to_move)
{
    search_ctx c;
    memset(&c, 0, sizeof c);
    c.target = s;
    for (int col = 0; col < 2; col++) {
        c.castle_ok[col] = base->castle_rook[col][0] != CR_SQ_NONE || base->castle_rook[col][1] != CR_SQ_NONE;
    }
    cr_bb d = diff_bb(base, s);
    int needed[2], vanish[2];
    for (int col = 0; col < 2; col++) {
        needed[col] = moves_needed(&c, base, d, col);
        vanish[col] = popcount(base->by_color[col]) - popcount(s->by_color[col]);
        if (needed[col] >= 99 || vanish[col] < 0) {
            return -1; /* a piece no move brings there, or pieces come back: no game reaches it */
        }
    }
    /* the same conditions dfs() cuts on, at the root: each a lower bound */
    for (int plies = 1; plies < 1000; plies++) {
        if (side_to_move >= 0 && ((base->side + plies) & 1) != side_to_move) {
            continue;
        }
        int moves[2];
        moves[base->side] = (plies + 1) / 2;
        moves[!base->side] = plies / 2;
        bool ok = true;
        for (int col = 0; col < 2 && ok; col++) {
            int bonus = c.castle_ok[col] && moves[col] > 0;
            ok = needed[col] <= moves[col] + bonus && vanish[col] <= moves[!col];
        }
        if (ok) {
            return plies;
        }
    }
    return 1000;
}
