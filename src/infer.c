/* Move inference: board snapshots -> the moves actually played.
 *
 * One state machine per board. Every snapshot is compared with the game's
 * current position P(n). What it can be, cheapest test first:
 *   - P(n) itself: the board is in sync (a pending move was withdrawn);
 *   - P(n) plus one legal move (only moves whose from-square changed are
 *     tried, after a bitboard filter on the changed squares);
 *   - one more move after the pending ones (a fast reply);
 *   - an earlier position P(i) (take-back, arbiter correction), or P(i) plus
 *     one legal move (take-back and another move; a provisional move such as
 *     a slide or the rook of a castling replaced);
 *   - nothing: pieces are in the air. When the board then stands still, a
 *     bounded search for missed snapshots runs: 2 plies after settle_ms,
 *     up to max_gap after deep_search_ms more or at a clock press, every
 *     moved piece starting on a changed square (plus one piece that left
 *     and came back, or a pawn followed by the next on its file); and once
 *     more from before plies reconstructed just now, which may have been
 *     guessed from a board still in motion.
 * An explanation is kept pending and becomes final when the mover presses
 * the clock, or when it has stood for settle_ms (castle_hold_ms when it may
 * be the first half of castling; longer for what undoes clock-confirmed
 * moves, and for searched sequences of 3+ plies or ambiguous ones, which a
 * clock running for the other side refutes). Nothing here reads the wall
 * clock. */
#include "infer_private.h"


void cr_infer_config_default(cr_infer_config *cfg)
{
    if (cfg) {
        cfg->settle_ms = 300;
        cfg->max_gap_plies = 4;
        cfg->attention_ms = 5000;
        cfg->castle_hold_ms = 2000;
        cfg->search_nodes = 200000;
        cfg->confirmed_hold_ms = 10000;
        cfg->deep_search_ms = 1000;
    }
}

/* ---------------------------------------------------------------- helpers */

/* Only real pieces count: any other byte is an empty square. */
static const uint8_t real_piece[256] = {
    [CR_WP] = CR_WP, [CR_WN] = CR_WN, [CR_WB] = CR_WB, [CR_WR] = CR_WR, [CR_WQ] = CR_WQ, [CR_WK] = CR_WK,
    [CR_BP] = CR_BP, [CR_BN] = CR_BN, [CR_BB] = CR_BB, [CR_BR] = CR_BR, [CR_BQ] = CR_BQ, [CR_BK] = CR_BK,
};

static void snap_colors(snap *s)
{
    s->by_color[CR_WHITE] = s->bb[CR_WP] | s->bb[CR_WN] | s->bb[CR_WB] | s->bb[CR_WR] | s->bb[CR_WQ] | s->bb[CR_WK];
    s->by_color[CR_BLACK] = s->bb[CR_BP] | s->bb[CR_BN] | s->bb[CR_BB] | s->bb[CR_BR] | s->bb[CR_BQ] | s->bb[CR_BK];
    s->occ = ~s->bb[CR_NO_PIECE];
}

static void snap_build(snap *s, const uint8_t raw[CR_SQ_NB], bool rotated)
{
    memset(s->bb, 0, sizeof s->bb);
    if (rotated) {
        for (int i = 0; i < CR_SQ_NB; i++) {
            s->sq[i] = real_piece[raw[63 - i]];
        }
    } else {
        for (int i = 0; i < CR_SQ_NB; i++) {
            s->sq[i] = real_piece[raw[i]];
        }
    }
    for (int i = 0; i < CR_SQ_NB; i++) {
        s->bb[s->sq[i]] |= 1ull << i; /* bb[0]: the empty squares */
    }
    snap_colors(s);
}

/* s (built by snap_build, or updated here, any board) becomes raw: only the
 * squares that differ are moved between bitboards. Snapshots follow each
 * other a piece or two apart, so this is most of the work saved. */
static void snap_update(snap *s, const uint8_t raw[CR_SQ_NB], bool rotated)
{
    bool changed = false;
    for (int w = 0; w < CR_SQ_NB; w += 8) {
        /* eight squares at once: turned round, square i is raw[63 - i] */
        uint64_t a, b;
        memcpy(&a, s->sq + w, 8);
        if (rotated) {
            memcpy(&b, raw + 56 - w, 8);
            b = __builtin_bswap64(b);
        } else {
            memcpy(&b, raw + w, 8);
        }
        if (a == b) {
            continue; /* s->sq holds real pieces only: so does this word */
        }
        for (int i = w; i < w + 8; i++) {
            uint8_t pc = real_piece[rotated ? raw[63 - i] : raw[i]];
            if (s->sq[i] != pc) {
                s->bb[s->sq[i]] &= ~(1ull << i);
                s->bb[pc] |= 1ull << i;
                s->sq[i] = pc;
                changed = true;
            }
        }
    }
    if (changed) {
        snap_colors(s);
    }
}


/* Ply i got its clock (and time used) from a press. */
static void emit_ply_clock(cr_infer *inf, int i, int64_t t)
{
    cr_infer_event ev = {
        .kind = CR_INFER_PLY_CLOCK, .t = t, .t_snapshot = t, .ply = i, .running = CR_CLOCK_STOPPED};
    emit(inf, &ev);
}

/* Does legal move m from base give exactly s? */
static bool gives(const cr_position *base, const snap *s, cr_move m)
{
    if (!cr_is_legal(base, m)) {
        return false;
    }
    cr_position next = *base;
    cr_position_do_move(&next, m);
    return same_board(&next, s);
}

/* Legal moves from base that give exactly s. Returns their number (the
 * first in *out). Only moves made of the changed squares can: a move
 * other than castling empties its from-square and puts one of the mover's
 * pieces on its to-square, so the candidates come from d, each checked
 * with cr_is_legal (no move list: this runs on every snapshot). */
static int match_one(const cr_position *base, const snap *s, cr_move *out)
{
    if (popcount(base->occupied ^ s->occ) > 4) {
        return 0; /* squares filled or emptied are some of the changed ones: too many */
    }
    cr_bb d = diff_bb(base, s);
    const int side = base->side;
    if (!one_move_shape(s, d, side)) {
        return 0;
    }
    int found = 0;
    const cr_bb kbb = base->by_piece[cr_make_piece(side, CR_KING)];
    if (kbb) {
        /* Chess960: the king or the rook may stay where it is. */
        const int ksq = lsb(kbb);
        for (int k = 0; k < 2; k++) {
            int rsq = base->castle_rook[side][k];
            if (rsq >= CR_SQ_NB || !(d & ((1ull << ksq) | (1ull << rsq)))) {
                continue;
            }
            cr_move m = cr_move_make(ksq, rsq, CR_MOVE_CASTLE, 0);
            if (gives(base, s, m) && found++ == 0) {
                *out = m;
            }
        }
    }
    const int last_rank = side == CR_WHITE ? 7 : 0;
    for (cr_bb from_b = d & base->by_color[side] & ~s->occ; from_b; from_b &= from_b - 1) {
        int from = lsb(from_b);
        bool pawn = cr_type_of(base->board[from]) == CR_PAWN;
        for (cr_bb to_b = d & s->by_color[side]; to_b; to_b &= to_b - 1) {
            int to = lsb(to_b);
            cr_move m;
            if (d != ((1ull << from) | (1ull << to)) && !(pawn && to == base->ep)) {
                continue; /* a move but castling or e.p. changes its two squares only */
            }
            if (pawn && cr_rank_of(to) == last_rank) {
                int type = cr_type_of(s->sq[to]);
                if (type < CR_KNIGHT || type > CR_QUEEN) {
                    continue;
                }
                m = cr_move_make(from, to, CR_MOVE_PROMOTION, type);
            } else if (pawn && to == base->ep && cr_file_of(to) != cr_file_of(from)) {
                m = cr_move_make(from, to, CR_MOVE_EN_PASSANT, 0);
            } else {
                m = cr_move_make(from, to, CR_MOVE_NORMAL, 0);
            }
            if (gives(base, s, m) && found++ == 0) {
                *out = m;
            }
        }
    }
    return found;
}

static void seq_end(const cr_infer *inf, const seq *q, cr_position *out)
{
    *out = *pos_at(inf, q->base);
    int i = 0;
    if (q->illegal) {
        *out = q->after;
        i = 1;
    }
    for (; i < q->n; i++) {
        cr_position_do_move(out, q->moves[i]);
    }
}

/* ------------------------------------------------------------ the game */

static void free_game(cr_infer *inf)
{
    cr_game_free(inf->game);
    inf->game = NULL;
}

static void reset_tracking(cr_infer *inf)
{
    inf->has_pending = false;
    inf->explained = true;
    inf->attention = false;
    inf->searched = 0;
    inf->forward_tried = false;
    inf->swept = false;
    inf->signal = false;
    inf->have_illegal = false;
    inf->stash_valid = false;
    inf->plies_at_press = 0;
    inf->confirmed = 0;
}

static void start_game(cr_infer *inf, const cr_position *start, bool rotated, int64_t t)
{
    bool restart = inf->game && cr_game_ply_count(inf->game) == 0 && !inf->ended;
    if (inf->game && !restart) {
        if (!inf->ended && cr_game_ply_count(inf->game) > 0) {
            /* The unfinished game's last chance to be read by the caller. */
            cr_infer_event ev;
            memset(&ev, 0, sizeof ev);
            ev.kind = CR_INFER_GAME_ENDED;
            ev.t = t;
            ev.result = CR_RESULT_NONE;
            ev.reason = "board reset for a new game";
            ev.running = CR_CLOCK_STOPPED;
            emit(inf, &ev);
        }
    }
    free_game(inf);
    inf->game = cr_game_new(start);
    if (!inf->game) {
        return;
    }
    if (!restart) {
        inf->game_number++;
    }
    inf->ended = false;
    inf->ended_by_board = false;
    inf->rotated = rotated;
    inf->anchor_ok = false;
    cr_infer__in_step(inf);
    for (int i = 0; i < inf->ntags; i++) {
        cr_game_set_tag(inf->game, inf->tag_name[i], inf->tag_value[i]);
    }
    cr_game_set_tag(inf->game, "Board", inf->id);
    reset_tracking(inf);
    snap_update(&inf->cur, inf->raw, rotated);
    emit_simple(inf, CR_INFER_GAME_STARTED, t, restart ? "start position replaced" : "start position");
}

/* True if single move m from base could be the first half of castling (a
 * rook or king put on its castling square): it waits longer. */
static bool castle_half(const cr_position *base, cr_move m)
{
    if (cr_move_kind(m) != CR_MOVE_NORMAL) {
        return false;
    }
    int type = cr_type_of(base->board[cr_move_from(m)]);
    if (type != CR_ROOK && type != CR_KING) {
        return false;
    }
    int c = base->side;
    if (base->castle_rook[c][0] == CR_SQ_NONE && base->castle_rook[c][1] == CR_SQ_NONE) {
        return false;
    }
    cr_movelist ml;
    cr_generate_legal(base, &ml);
    for (int i = 0; i < ml.count; i++) {
        cr_move cm = ml.moves[i];
        if (cr_move_kind(cm) != CR_MOVE_CASTLE) {
            continue;
        }
        if (type == CR_ROOK && cr_move_from(m) == cr_move_to(cm) && cr_move_to(m) == cr_castle_rook_to(cm, c)) {
            return true;
        }
        if (type == CR_KING && cr_move_from(m) == cr_move_from(cm) &&
            cr_move_to(m) == cr_castle_king_to(cm, c)) {
            return true;
        }
    }
    return false;
}

static void set_pending(cr_infer *inf, const seq *q, int64_t t)
{
    inf->pending = *q;
    inf->has_pending = true;
    inf->pending_t = t;
    int wait = inf->cfg.settle_ms;
    if (q->n == 1 && !q->illegal && castle_half(pos_at(inf, q->base), q->moves[0])) {
        wait = inf->cfg.castle_hold_ms;
    }
    if (q->base < ply_count(inf) && inf->confirmed > q->base) {
        /* Undoing a move its player confirmed with the clock needs the board
         * to stand much longer (or a press): a captured piece parked on a
         * square can look like the opponent's last move played otherwise. */
        wait = inf->cfg.confirmed_hold_ms;
    }
    inf->deadline = t + wait;
    inf->explained = true;
}

/* --------------------------------------------------- game start and end */

/* Both kings on centre squares: the DGT way to enter a result. */
static bool is_kings_signal(const snap *s)
{
    cr_bb wk = s->bb[CR_WK], bk = s->bb[CR_BK];
    return popcount(wk) == 1 && popcount(bk) == 1 && (wk & CENTRE) && (bk & CENTRE);
}

/* The signal has stood: the result, and whatever the kings' trip looked
 * like is not a move. */
static void kings_signal(cr_infer *inf, int64_t t)
{
    const snap *s = &inf->cur;
    cr_bb wk = s->bb[CR_WK], bk = s->bb[CR_BK];
    int w = lsb(wk), b = lsb(bk);
    bool wl = (cr_file_of(w) + cr_rank_of(w)) & 1, bl = (cr_file_of(b) + cr_rank_of(b)) & 1;
    cr_result r = wl && bl ? CR_RESULT_WHITE : !wl && !bl ? CR_RESULT_BLACK : CR_RESULT_DRAW;
    /* A king move into the centre that nobody confirmed was the first king
     * being set down for the signal, not a move. */
    if (inf->has_pending) {
        /* What stood only while the kings were carried is no move: a king
         * move, or the board looking like an earlier position. */
        const seq *q = &inf->pending;
        bool drop = q->n == 0 || q->base < ply_count(inf);
        for (int i = 0; i < q->n && !drop; i++) {
            cr_move m = q->moves[i];
            drop = !(q->illegal && i == 0) && cr_move_kind(m) == CR_MOVE_NORMAL &&
                   ((inf->cur.bb[CR_WK] | inf->cur.bb[CR_BK]) & (1ull << cr_move_to(m)));
        }
        if (drop) {
            inf->has_pending = false;
        } else {
            seq copy = *q;
            cr_infer__commit(inf, &copy, inf->pending_t, t);
        }
    }
    int n = ply_count(inf);
    if (n > 0 && inf->confirmed < n) {
        const cr_ply *pl = cr_game_ply(inf->game, n - 1);
        const cr_position *before = pos_at(inf, n - 1);
        if (!(pl->flags & CR_PLY_ILLEGAL) && cr_type_of(before->board[cr_move_from(pl->move)]) == CR_KING &&
            cr_move_kind(pl->move) == CR_MOVE_NORMAL && ((1ull << cr_move_to(pl->move)) & CENTRE) &&
            s->sq[cr_move_to(pl->move)] == before->board[cr_move_from(pl->move)]) {
            seq q;
            memset(&q, 0, sizeof q);
            q.base = n - 1;
            cr_infer__commit(inf, &q, t, t);
        }
    }
    if (!inf->ended) {
        static const char *const reasons[] = {"", "kings on light centre squares", "kings on dark centre squares",
                                              "kings on centre squares of both colours"};
        cr_infer__set_result(inf, r, reasons[r], t);
        inf->ended_by_board = true;
    }
    inf->has_pending = false;
    inf->explained = true;
}

/* ------------------------------------------------------------ snapshots */

/* The position the board shows, after p by moves nobody saw: side to move
 * given, castling rights kept where king and rook stand as in p; the move
 * number counts `plies` of them (0: the fewest for that side to move). */
static int board_position(const cr_position *p, const snap *s, int side, cr_position *out)
{
    return cr_infer__board_position_n(p, s, side, 0, out);
}

int cr_infer__board_position_n(const cr_position *p, const snap *s, int side, int plies, cr_position *out)
{
    char fen[CR_FEN_MAX + 40];
    int len = cr_placement_write(s->sq, fen, CR_FEN_MAX);
    if (len < 0) {
        return CR_EINVAL;
    }
    char cast[8];
    int nc = 0;
    for (int c = 0; c < 2; c++) {
        int king = cr_make_piece(c, CR_KING);
        if (!p->by_piece[king]) {
            continue;
        }
        int ksq = lsb(p->by_piece[king]);
        for (int k = 0; k < 2; k++) {
            int r = p->castle_rook[c][k];
            if (r == CR_SQ_NONE || s->sq[r] != p->board[r] || s->sq[ksq] != king) {
                continue;
            }
            char ch = p->chess960 ? (char)('a' + cr_file_of(r)) : (k == CR_CASTLE_KING_SIDE ? 'k' : 'q');
            cast[nc++] = c == CR_WHITE ? (char)(ch - 'a' + 'A') : ch;
        }
    }
    cast[nc] = '\0';
    snprintf(fen + len, sizeof fen - (size_t)len, " %c %s - 0 %d", side == CR_WHITE ? 'w' : 'b', nc ? cast : "-",
             plies > 0 ? p->fullmove + (plies + (p->side == CR_BLACK)) / 2
                       : p->fullmove + (p->side == CR_BLACK && side == CR_WHITE));
    if (cr_position_from_fen(out, fen, NULL) != 0) {
        return CR_EINVAL;
    }
    out->chess960 = p->chess960;
    return 0;
}

/* The board shows what an illegal move of the side to move would give:
 * one piece gone from one square and standing on another (empty or an
 * enemy's). Builds its position into q. */
static bool illegal_shape(cr_infer *inf, const cr_position *p, const snap *s, seq *q)
{
    cr_bb d = diff_bb(p, s);
    if (popcount(d) != 2 || !plausible(s)) {
        return false;
    }
    int a = lsb(d), b = lsb(d & (d - 1));
    int from = s->sq[a] == CR_NO_PIECE ? a : b, to = from == a ? b : a;
    int pc = p->board[from];
    if (!pc || cr_color_of(pc) != p->side || s->sq[from] != CR_NO_PIECE || s->sq[to] != pc) {
        return false;
    }
    if (p->board[to] && (cr_color_of(p->board[to]) == p->side || cr_type_of(p->board[to]) == CR_KING)) {
        return false;
    }
    cr_position after;
    if (board_position(p, s, !p->side, &after) != 0) {
        return false;
    }
    memset(q, 0, sizeof *q);
    q->base = ply_count(inf);
    q->n = 1;
    q->fits = 1;
    q->illegal = true;
    q->after = after;
    char f[3], tt[3];
    cr_square_name(from, f);
    cr_square_name(to, tt);
    static const char letters[] = " PNBRQK";
    int type = cr_type_of(pc);
    if (type == CR_PAWN) {
        snprintf(q->illegal_text, sizeof q->illegal_text, "%s%c%s", f, p->board[to] ? 'x' : '-', tt);
    } else {
        snprintf(q->illegal_text, sizeof q->illegal_text, "%c%s%c%s", letters[type], f, p->board[to] ? 'x' : '-',
                 tt);
    }
    return true;
}

/* Explains the current snapshot with what is cheap. */
static void evaluate(cr_infer *inf, int64_t t)
{
    const snap *s = &inf->cur;
    int n = ply_count(inf);
    const cr_position *pn = pos_at(inf, n);
    seq q;
    cr_move m;

    inf->searched = 0;
    inf->forward_tried = false;
    if (same_board(pn, s)) {
        if (inf->has_pending) {
            inf->has_pending = false; /* the move was taken back before it counted */
        }
        inf->explained = true;
        inf->lost = false;
        cr_infer__in_step(inf);
        inf->swept = false;
        inf->have_illegal = false;
        cr_infer__resynced(inf, t);
        return;
    }
    if (inf->ended) {
        if (inf->ended_by_board) {
            goto unexplained;
        }
    } else if (match_one(pn, s, &m)) {
        memset(&q, 0, sizeof q);
        q.base = n;
        q.n = 1;
        q.moves[0] = m;
        q.fits = 1;
        set_pending(inf, &q, t);
        return;
    }
    if (inf->has_pending && inf->pending.n > 0) {
        cr_position end;
        seq_end(inf, &inf->pending, &end);
        if (same_board(&end, s)) {
            inf->explained = true;
            return;
        }
        if (match_one(&end, s, &m)) {
            if (inf->pending.n == MAX_SEQ) {
                /* a full sequence (a long gap) and the next move: the
                 * gap's moves stand, the next one waits as usual */
                seq full = inf->pending;
                cr_infer__commit(inf, &full, inf->pending_t, t);
                memset(&q, 0, sizeof q);
                q.base = ply_count(inf);
            } else {
                q = inf->pending;
            }
            q.moves[q.n++] = m;
            if (q.n == 1) {
                q.fits = 1;
            }
            set_pending(inf, &q, t);
            return;
        }
    }
    if (inf->have_illegal && !inf->ended) {
        if (same_board(&inf->illegal.after, s)) {
            inf->explained = true;
            return;
        }
        if (match_one(&inf->illegal.after, s, &m)) {
            /* A legal move followed the illegal one: both stood. */
            q = inf->illegal;
            q.moves[q.n++] = m;
            cr_infer__commit(inf, &q, t, t);
            return;
        }
    }
    /* Fewest plies retracted first; at each depth the board standing on
     * the earlier position, then that position plus another move. */
    for (int i = n - 1; i >= 0 && i >= n - RECENT_PLIES; i--) {
        const cr_position *pi = pos_at(inf, i);
        if (same_board(pi, s)) {
            memset(&q, 0, sizeof q);
            q.base = i;
            q.fits = 1;
            set_pending(inf, &q, t);
            return;
        }
        if (match_one(pi, s, &m)) {
            memset(&q, 0, sizeof q);
            q.base = i;
            q.n = 1;
            q.moves[0] = m;
            q.fits = 1;
            set_pending(inf, &q, t);
            return;
        }
    }
unexplained:
    if (inf->explained) {
        inf->explained = false;
        inf->unexplained_since = t;
    }
    if (popcount(s->occ) + 3 <= popcount(pn->occupied)) {
        inf->swept = true;
    }
    if (inf->has_pending) {
        /* The last mover's hand is back on the board: the move may not be
         * over (a slide, the king of a castling). Wait again. */
        cr_position end;
        seq_end(inf, &inf->pending, &end);
        int mover = !end.side;
        cr_bb d = diff_bb(&end, s);
        if (d & end.by_color[mover]) {
            int64_t dl = t + inf->cfg.settle_ms;
            if (dl > inf->deadline) {
                inf->deadline = dl;
            }
        }
    }
}

/* The board has stood unexplained: try the expensive explanations once. */
static void resolve(cr_infer *inf, int64_t t, bool pressed, int depth)
{
    if (inf->explained || !inf->game || inf->ended_by_board) {
        return;
    }
    const snap *s = &inf->cur;
    int n = ply_count(inf);
    if (depth > inf->cfg.max_gap_plies) {
        depth = inf->cfg.max_gap_plies;
    }
    if (inf->searched == 0) {
        /* Any earlier position of the game (arbiter corrections). */
        for (int i = n - 1 - RECENT_PLIES; i >= 0; i--) {
            if (same_board(pos_at(inf, i), s)) {
                seq q;
                memset(&q, 0, sizeof q);
                q.base = i;
                q.fits = 1;
                cr_infer__commit(inf, &q, inf->t_change, t);
                inf->explained = true;
                return;
            }
        }
        if (!inf->ended) {
            seq q;
            if (illegal_shape(inf, pos_at(inf, n), s, &q)) {
                inf->illegal = q;
                inf->have_illegal = true;
            }
        }
        inf->searched = 1;
    }
    if (inf->searched < depth) {
        int from = inf->searched + 1;
        inf->searched = depth;
        if (!inf->ended && plausible(s)) {
            seq q;
            memset(&q, 0, sizeof q);
            q.base = n;
            int fits = 0;
            if (popcount(diff_bb(pos_at(inf, n), s)) >= 2 && !cr_infer__out_of_budget(inf)) {
                fits = cr_infer__gap_search(inf, pos_at(inf, n), s, &q, from, depth);
            }
            if (fits >= 1 && !cr_infer__chain_ok(inf, &q)) {
                fits = 0; /* more guesses in a row than a search bridges: not forced */
            }
            if ((fits == 1 && q.n <= 2) || (fits >= 1 && pressed)) {
                cr_infer__commit(inf, &q, inf->t_change, t);
                inf->explained = true;
                return;
            }
            if (fits >= 1) {
                /* Three plies or more, or ambiguous: hold it. The board
                 * may still change (the next move begun, a piece parked
                 * for a moment); a press confirms it, a clock running
                 * for the other side refutes it. */
                set_pending(inf, &q, inf->t_change);
                inf->deadline = inf->t_change + inf->cfg.attention_ms;
                return;
            }
            /* Plies reconstructed last time may have been guessed from a
             * board still in motion: search again from before them. */
            int b = n;
            while (b > 0 && n - b < 3 && (cr_game_ply(inf->game, b - 1)->flags & CR_PLY_RECONSTRUCTED)) {
                b--;
            }
            if (b < n && depth >= inf->cfg.max_gap_plies && !cr_infer__out_of_budget(inf)) {
                memset(&q, 0, sizeof q);
                q.base = b;
                /* only a unique sequence: the guessed plies and one more move */
                fits = cr_infer__gap_search(inf, pos_at(inf, b), s, &q, 2, n - b + 1);
                if (fits == 1) {
                    set_pending(inf, &q, inf->t_change);
                    if (pressed) {
                        seq c = q;
                        inf->has_pending = false;
                        cr_infer__commit(inf, &c, inf->t_change, t);
                    } else {
                        inf->deadline = inf->t_change + inf->cfg.attention_ms;
                    }
                    return;
                }
            }
        }
    }
    if (pressed && inf->have_illegal && same_board(&inf->illegal.after, s)) {
        seq q = inf->illegal;
        cr_infer__commit(inf, &q, inf->t_change, t);
        inf->explained = true;
    }
}

static void raise_attention(cr_infer *inf, int64_t t)
{
    const snap *s = &inf->cur;
    const cr_position *pn = pos_at(inf, ply_count(inf));
    cr_infer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = CR_INFER_ATTENTION;
    ev.t = t;
    ev.squares = diff_bb(pn, s);
    ev.running = CR_CLOCK_STOPPED;
    bool far = false; /* pieces the game cannot explain, not a board in the making */
    if (popcount(s->bb[CR_WK]) > 1 || popcount(s->bb[CR_BK]) > 1) {
        ev.reason = "two kings of one colour";
    } else if ((s->bb[CR_WP] | s->bb[CR_BP]) & BACK_RANKS) {
        ev.reason = "promotion pending: pawn on the last rank";
    } else if (popcount(s->occ) + 3 <= popcount(pn->occupied)) {
        ev.reason = "pieces missing";
        far = true;
    } else {
        ev.reason = "position not reachable from the game";
        far = true;
    }
    if (far) {
        inf->lost = true; /* from now on every settled picture is searched deeply */
    }
    inf->attention = true;
    inf->stats.attentions++;
    emit(inf, &ev);
}

/* A pending explanation that undoes moves is the last resort: moves made
 * while snapshots were missed may explain the board as well (a slide or a
 * take-back never does: it leaves the other side's pieces untouched). Runs
 * the gap search once; commits and returns true if it fits. */
static bool prefer_forward(cr_infer *inf, int64_t t)
{
    if (!inf->has_pending || inf->pending.base >= ply_count(inf) || inf->forward_tried || inf->ended ||
        cr_infer__out_of_budget(inf)) {
        return false;
    }
    inf->forward_tried = true;
    int n = ply_count(inf);
    seq q;
    memset(&q, 0, sizeof q);
    q.base = n;
    /* Only a unique sequence no longer than what the correction would
     * replay: a slide committed and then a capture from before it must not
     * become four plies of pieces walking away and back. */
    int undo = n - inf->pending.base + inf->pending.n;
    int maxd = undo + 1 < inf->cfg.max_gap_plies ? undo + 1 : inf->cfg.max_gap_plies;
    if (plausible(&inf->cur) && popcount(diff_bb(pos_at(inf, n), &inf->cur)) >= 2 && maxd >= 2 &&
        cr_infer__gap_search(inf, pos_at(inf, n), &inf->cur, &q, 2, maxd) == 1) {
        inf->has_pending = false;
        cr_infer__commit(inf, &q, inf->t_change, t);
        inf->explained = true;
        return true;
    }
    return false;
}

/* The board has been lost (unreachable, or after the link was down): the
 * settled picture is searched from P(n) as deep as a sequence goes, pruned
 * by the pieces that must have moved where. One sequence, or a small set
 * of them, resumes the game at once. */
static void recover(cr_infer *inf, int64_t t)
{
    resolve(inf, t, false, 1); /* earlier positions, a possible illegal move */
    if (inf->explained || inf->ended) {
        return;
    }
    inf->searched = MAX_SEQ;
    if (cr_infer__out_of_budget(inf)) {
        return; /* a gap, once the board stands or a press says it shows a move */
    }
    const snap *s = &inf->cur;
    int n = ply_count(inf);
    if (!plausible(s) || popcount(diff_bb(pos_at(inf, n), s)) < 2) {
        return;
    }
    seq q;
    memset(&q, 0, sizeof q);
    q.base = n;
    /* Deep searches find pieces walking to and fro: the clock running for
     * one side says who is to move (its press triggers another try). */
    int want = inf->clock_seen && !inf->clock_stale && inf->running != CR_CLOCK_STOPPED ? inf->running : -1;
    /* The clock's count, when it has one, is the length: a shorter
     * sequence is pieces that took another way, not what was played. */
    int counted = want >= 0 ? cr_infer__clock_count(inf, n, want) : -1;
    if (counted > MAX_SEQ) {
        return; /* longer than a search bridges: a gap, counted */
    }
    int lo = counted >= 2 ? counted : 2, hi = counted >= 2 ? counted : MAX_SEQ;
    int fits = cr_infer__gap_search_n(inf, pos_at(inf, n), s, &q, lo, hi, RECOVER_NODES, AMBIG_MAX + 1, want);
    if (fits >= 1 && fits <= AMBIG_MAX && !cr_infer__chain_ok(inf, &q)) {
        /* Chained onto earlier guesses: the whole stretch searched again
         * from before them, undone and redone, never piled on. */
        int b = n - cr_infer__guessed_before(inf, n);
        memset(&q, 0, sizeof q);
        q.base = b;
        fits = cr_infer__gap_search_n(inf, pos_at(inf, b), s, &q, 2, MAX_SEQ, RECOVER_NODES, AMBIG_MAX + 1, want);
        if (fits < 1 || fits > AMBIG_MAX) {
            inf->chain_base = b; /* the gap takes the guesses' place */
            return;
        }
    }
    if (fits < 1 || fits > AMBIG_MAX) {
        return;
    }
    if (fits == 1 && q.n <= 2) {
        inf->has_pending = false;
        cr_infer__commit(inf, &q, inf->t_change, t);
        inf->explained = true;
        return;
    }
    /* Held like any long or ambiguous gap: a board that stands (or a
     * press) confirms it, a clock running for the other side refutes it. */
    set_pending(inf, &q, inf->t_change);
    inf->deadline = inf->t_change + inf->cfg.attention_ms;
}

/* The board was lost or the link down, and the deep search found nothing
 * (or too many sequences to choose from): a gap is due once the board
 * stands, showing a position. */
static bool gap_due(const cr_infer *inf)
{
    return inf->game && !inf->explained && !inf->has_pending && !inf->ended && (inf->lost || inf->gap_open) &&
           inf->searched >= MAX_SEQ && plausible(&inf->cur);
}

/* Lets time pass up to now: pending moves settle, stuck boards are
 * searched and flagged. Fires what is due at now in a fixed order; see
 * advance() for a jump over several due times. */
static void advance_to(cr_infer *inf, int64_t now)
{
    for (int guard = 0; guard < 8 && inf->game; guard++) {
        if (inf->signal) {
            /* Kings in the centre must stand: a king slid over a centre
             * square is not a result. A stopped clock makes it quick. */
            int hold = inf->clock_seen && inf->running == CR_CLOCK_STOPPED ? inf->cfg.settle_ms
                                                                           : inf->cfg.castle_hold_ms;
            if (now >= inf->t_change + hold) {
                inf->signal = false;
                kings_signal(inf, inf->t_change + hold);
                continue;
            }
        }
        if (inf->has_pending && now >= inf->deadline) {
            if (prefer_forward(inf, inf->deadline)) {
                continue;
            }
            seq q = inf->pending;
            int64_t at = inf->deadline;
            cr_infer__commit(inf, &q, inf->pending_t, at);
            if (!inf->ended_by_board) {
                /* Re-read the board against the new position. */
                evaluate(inf, at);
            }
            continue;
        }
        if (!inf->forward_tried && now >= inf->t_change + inf->cfg.settle_ms &&
            prefer_forward(inf, inf->t_change + inf->cfg.settle_ms)) {
            continue;
        }
        /* Lost, or back after the link was down: the deep search, once the
         * board has stood as long as for any search of 3+ plies (a piece
         * held in the air looks like one taken). By then the clock reading
         * the link asks for at once says who is to move. */
        int64_t deep_at = inf->t_change + inf->cfg.settle_ms + inf->cfg.deep_search_ms;
        bool clock_known = !(inf->clock_seen && inf->clock_stale) || now >= inf->t_change + inf->cfg.attention_ms;
        if (!inf->explained && (inf->lost || inf->gap_open) && inf->searched < MAX_SEQ && clock_known &&
            now >= deep_at) {
            recover(inf, deep_at);
            if (inf->explained) {
                continue;
            }
        }
        /* A silence longer than the search bridges: once the board has
         * stood attention_ms, a plausible position, the game goes on from
         * it, the plies in between a gap (never a game cut short). */
        if (gap_due(inf) && now >= inf->t_change + inf->cfg.attention_ms &&
            cr_infer__push_gap(inf, -1, inf->t_change + inf->cfg.attention_ms, "gap: plies not seen", false, false) == 0 &&
            inf->explained) {
            continue;
        }
        /* Missed snapshots: two plies once the board has settled, deeper
         * only when it stands longer (pieces in the air rarely do). */
        if (!inf->explained && inf->searched < 2 && now >= inf->t_change + inf->cfg.settle_ms) {
            resolve(inf, inf->t_change + inf->cfg.settle_ms, false, 2);
            if (inf->explained) {
                continue;
            }
        }
        if (!inf->explained && inf->searched < inf->cfg.max_gap_plies && now >= deep_at) {
            resolve(inf, deep_at, false, inf->cfg.max_gap_plies);
            if (inf->explained) {
                continue;
            }
        }
        if (!inf->explained && !inf->attention && !inf->ended_by_board &&
            now >= inf->unexplained_since + inf->cfg.attention_ms) {
            raise_attention(inf, inf->unexplained_since + inf->cfg.attention_ms);
        }
        break;
    }
}

/* The earliest time after `after` at which advance_to() may act. */
static int64_t next_due(const cr_infer *inf, int64_t after)
{
    const cr_infer_config *c = &inf->cfg;
    int64_t tc = inf->t_change;
    int64_t cand[] = {
        tc + c->settle_ms,
        tc + c->settle_ms + c->deep_search_ms,
        tc + c->castle_hold_ms,
        tc + c->attention_ms,
        inf->has_pending ? inf->deadline : INT64_MAX,
        inf->explained ? INT64_MAX : inf->unexplained_since + c->attention_ms,
    };
    int64_t best = INT64_MAX;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        if (cand[i] > after && cand[i] < best) {
            best = cand[i];
        }
    }
    return best;
}

/* Lets time pass up to now, firing what fell due in the order it fell
 * due: a caller that sends nothing between two snapshots (replay has no
 * ticks) must not see a held sequence's deadline pass before the search
 * of a board that settled earlier, which a relay ticking every 100 ms
 * runs first. */
static void advance(cr_infer *inf, int64_t now)
{
    if (!inf->has_pending) {
        /* nothing held: the order of what falls due cannot change a
         * commit, and the searches of boards passed over are not needed */
        advance_to(inf, now);
        return;
    }
    int64_t t = inf->t_last;
    for (int guard = 0; guard < 32 && inf->game; guard++) {
        int64_t due = next_due(inf, t);
        if (due >= now) {
            break;
        }
        advance_to(inf, due);
        t = due;
    }
    advance_to(inf, now);
}

/* ------------------------------------------------------------ public */

cr_infer *cr_infer_new(const char *board_id, const cr_infer_config *cfg, cr_infer_cb cb, void *data)
{
    cr_infer *inf = calloc(1, sizeof *inf);
    if (!inf) {
        return NULL;
    }
    snprintf(inf->id, sizeof inf->id, "%s", board_id ? board_id : "");
    cr_infer_config_default(&inf->cfg);
    if (cfg) {
        if (cfg->settle_ms >= 0) {
            inf->cfg.settle_ms = cfg->settle_ms;
        }
        if (cfg->max_gap_plies >= 1) {
            inf->cfg.max_gap_plies = cfg->max_gap_plies > MAX_SEQ ? MAX_SEQ : cfg->max_gap_plies;
        }
        if (cfg->attention_ms > 0) {
            inf->cfg.attention_ms = cfg->attention_ms;
        }
        if (cfg->castle_hold_ms >= 0) {
            inf->cfg.castle_hold_ms = cfg->castle_hold_ms;
        }
        if (cfg->search_nodes > 0) {
            inf->cfg.search_nodes = cfg->search_nodes;
        }
        if (cfg->confirmed_hold_ms >= 0) {
            inf->cfg.confirmed_hold_ms = cfg->confirmed_hold_ms;
        }
        if (cfg->deep_search_ms >= 0) {
            inf->cfg.deep_search_ms = cfg->deep_search_ms;
        }
    }
    inf->cb = cb;
    inf->data = data;
    inf->clk = cr_clock_new(NULL, NULL);
    if (!inf->clk) {
        free(inf);
        return NULL;
    }
    cr_position_init_start(&inf->std_start);
    inf->running = CR_CLOCK_STOPPED;
    inf->clock_ms[0] = inf->clock_ms[1] = CR_CLOCK_UNKNOWN;
    inf->turn_from[0] = inf->turn_from[1] = -1;
    inf->chain_base = -1;
    inf->explained = true;
    snap_build(&inf->cur, inf->raw, false); /* all empty: snap_update starts from it */
    return inf;
}

void cr_infer_free(cr_infer *inf)
{
    if (!inf) {
        return;
    }
    for (int i = 0; i < inf->ntags; i++) {
        free(inf->tag_name[i]);
        free(inf->tag_value[i]);
    }
    free_game(inf);
    cr_clock_free(inf->clk);
    free(inf);
}

static int set_tag(cr_infer *inf, const char *key, const char *value)
{
    int i;
    for (i = 0; i < inf->ntags; i++) {
        if (strcmp(inf->tag_name[i], key) == 0) {
            break;
        }
    }
    if (i == inf->ntags) {
        if (inf->ntags == MAX_TAGS) {
            return CR_ENOSPC;
        }
        inf->tag_name[i] = strdup(key);
        inf->tag_value[i] = NULL;
        if (!inf->tag_name[i]) {
            return CR_ENOMEM;
        }
        inf->ntags++;
    }
    char *v = strdup(value);
    if (!v) {
        return CR_ENOMEM;
    }
    free(inf->tag_value[i]);
    inf->tag_value[i] = v;
    return 0;
}

static void feed_meta(cr_infer *inf, const cr_feed_event *ev)
{
    const char *key = ev->u.meta.key, *value = ev->u.meta.value ? ev->u.meta.value : "";
    if (!key) {
        return;
    }
    if (strcmp(key, "FEN") == 0) {
        cr_position p;
        if (cr_position_from_fen(&p, value, NULL) == 0) {
            inf->fen_start = p;
            inf->have_fen = true;
        }
    } else if (strcmp(key, "SetUp") != 0 && strcmp(key, "Result") != 0) {
        set_tag(inf, key, value);
        if (inf->game && !inf->ended) {
            cr_game_set_tag(inf->game, key, value);
        }
    }
    cr_infer_event out;
    memset(&out, 0, sizeof out);
    out.kind = CR_INFER_META;
    out.t = ev->t;
    out.reason = key;
    out.running = CR_CLOCK_STOPPED;
    emit(inf, &out);
}

static void feed_clock(cr_infer *inf, const cr_feed_event *ev, int64_t t)
{
    int prev = inf->clock_seen ? inf->running : CR_CLOCK_STOPPED;
    int now = ev->u.clock.running;
    bool was_seen = inf->clock_seen;
    /* Time used by the side that pressed: from its clock's start to the
     * press, both reading times (whole seconds, as the clock shows). */
    int32_t emt = CR_CLOCK_UNKNOWN;
    if (was_seen && prev != CR_CLOCK_STOPPED && now != prev && inf->turn_from[prev] >= 0) {
        int64_t used = (t - inf->turn_from[prev] + 500) / 1000 * 1000;
        emt = used > INT32_MAX ? INT32_MAX : (int32_t)used;
    }
    if (now != prev || !was_seen) {
        inf->turn_from[CR_WHITE] = inf->turn_from[CR_BLACK] = -1;
        if (now != CR_CLOCK_STOPPED) {
            inf->turn_from[now] = t;
        }
    }
    inf->clock_seen = true;
    inf->clock_stale = false;
    inf->running = now;
    inf->clock_ms[CR_WHITE] = ev->u.clock.white_ms;
    inf->clock_ms[CR_BLACK] = ev->u.clock.black_ms;
    inf->clock_t = t;
    /* Noise (an all-zero reading) counts nothing; a reading the model
     * holds back may still count a silence (the first after one never fits
     * the model: both clocks ran meanwhile) but is no anchor. */
    int fed = cr_clock_feed(inf->clk, t, ev->u.clock.white_ms, ev->u.clock.black_ms, now);
    inf->reading_counts = fed == CR_CLOCK_ACCEPTED || fed == CR_CLOCK_HELD;
    bool reading_ok = fed == CR_CLOCK_ACCEPTED;
    cr_infer_event out;
    memset(&out, 0, sizeof out);
    out.kind = CR_INFER_CLOCK;
    out.t = t;
    out.white_ms = ev->u.clock.white_ms;
    out.black_ms = ev->u.clock.black_ms;
    out.running = now;
    emit(inf, &out);

    if (inf->game && now != CR_CLOCK_STOPPED) {
        /* The side not running shows its time after its last move: fills in
         * plies whose press was missed (gaps). */
        int n = ply_count(inf);
        for (int i = n - 1; i >= 0 && i >= n - 2; i--) {
            cr_ply *pl = cr_game_ply_mut(inf->game, i);
            if ((pl->after.side ^ 1) == (now ^ 1)) {
                if (pl->clock_ms == CR_CLOCK_UNKNOWN && i >= inf->plies_at_press - 1) {
                    pl->clock_ms = now == CR_WHITE ? ev->u.clock.black_ms : ev->u.clock.white_ms;
                    emit_ply_clock(inf, i, t);
                }
                break;
            }
        }
    }
    if (inf->has_pending && inf->pending.reconstructed && now != CR_CLOCK_STOPPED) {
        cr_position end;
        seq_end(inf, &inf->pending, &end);
        cr_move m;
        if (end.side != now && !same_board(&end, &inf->cur) && match_one(&end, &inf->cur, &m)) {
            /* the board went on by a move: that press was for it */
            seq q = inf->pending;
            cr_infer__commit(inf, &q, inf->pending_t, t);
            evaluate(inf, t);
        } else if (end.side != now) {
            /* the clock runs for the other side: not what happened */
            inf->has_pending = false;
            inf->explained = false;
            inf->unexplained_since = inf->t_change;
        }
    }
    if (inf->game && now != CR_CLOCK_STOPPED && !inf->has_pending && cr_game_position(inf->game)->side == now) {
        /* The clock runs for the side to move: the last move is done. */
        inf->confirmed = ply_count(inf);
    }
    if (!was_seen || prev == CR_CLOCK_STOPPED || now == prev || !inf->game) {
        return;
    }
    /* prev pressed the clock (or stopped it): its move is complete. */
    int presser = prev;
    if (!inf->explained && (inf->lost || inf->gap_open)) {
        inf->searched = 0; /* the side to move is known anew: search again */
    }
    if (inf->has_pending) {
        cr_position end;
        seq_end(inf, &inf->pending, &end);
        if (prefer_forward(inf, t)) {
            /* committed the moves made while snapshots were missed */
        } else if ((end.side ^ 1) == presser || now == CR_CLOCK_STOPPED) {
            seq q = inf->pending;
            cr_infer__commit(inf, &q, inf->pending_t, t);
            evaluate(inf, t);
        } else if (inf->pending.base < ply_count(inf)) {
            /* Undoing moves so that the presser is still to move: the
             * presser moved since (1. ... Rg8+ and a missed Bf8 Rg2 Bc5
             * is no Rg8+ taken back for Rg2). The search below, for the
             * moves made meanwhile, decides. */
            inf->has_pending = false;
            inf->explained = false;
            inf->unexplained_since = inf->t_change;
            inf->searched = 0;
        }
    }
    if (!inf->explained && !inf->signal) {
        resolve(inf, t, true, inf->cfg.max_gap_plies);
    }
    if (!inf->explained && !inf->signal && !inf->has_pending && (inf->lost || inf->gap_open) &&
        t >= inf->t_change + inf->cfg.settle_ms) {
        /* A press after a silence: the mover's move is done, the board
         * shows a position. Searched deeply; nothing fits: a gap. */
        recover(inf, t);
        if (inf->has_pending && inf->pending.n > 0) {
            seq q = inf->pending;
            inf->has_pending = false;
            cr_infer__commit(inf, &q, inf->pending_t, t);
            evaluate(inf, t);
        } else if (gap_due(inf)) {
            cr_infer__push_gap(inf, now, t, "gap: plies not seen", false, false);
        }
    }
    int n = ply_count(inf);
    const cr_ply *last = n > 0 ? cr_game_ply(inf->game, n - 1) : NULL;
    if (inf->reading_counts && cr_infer__recount_gap(inf, presser, t)) {
        n = ply_count(inf);
        last = cr_game_ply(inf->game, n - 1);
    }
    int32_t reading = presser == CR_WHITE ? ev->u.clock.white_ms : ev->u.clock.black_ms;
    if (last && (last->after.side ^ 1) == presser && n - 1 >= inf->plies_at_press) {
        cr_game_ply_mut(inf->game, n - 1)->clock_ms = reading;
        cr_game_ply_mut(inf->game, n - 1)->emt_ms = emt;
        inf->stash_valid = false;
        emit_ply_clock(inf, n - 1, t);
    } else if (now != CR_CLOCK_STOPPED) {
        inf->stash_valid = true;
        inf->stash_color = presser;
        inf->stash_ms = reading;
        inf->stash_emt = emt;
    }
    inf->plies_at_press = n;
    if (n > inf->confirmed) {
        inf->confirmed = n;
    }
    if (reading_ok) {
        cr_infer__anchor(inf, t);
    }
}

/* The raw board is the game's position, or one legal move from it. */
static bool continues_game(const cr_infer *inf)
{
    snap s;
    snap_build(&s, inf->raw, inf->rotated);
    const cr_position *pn = pos_at(inf, ply_count(inf));
    cr_move m;
    return same_board(pn, &s) || match_one(pn, &s, &m);
}

static void feed_pos(cr_infer *inf, const cr_feed_event *ev, int64_t t)
{
    inf->stats.snapshots++;
    if (inf->have_snap && memcmp(inf->raw, ev->u.squares, CR_SQ_NB) == 0) {
        return; /* nothing changed */
    }
    memcpy(inf->raw, ev->u.squares, CR_SQ_NB);
    inf->have_snap = true;
    inf->t_change = t;

    /* A new game? Only when it cannot be a move of the current one. A
     * game longer than the take-backs tried on every snapshot that comes
     * back to a start position was reset by hand for the next game (pieces
     * put back, never three gone at once): never a take-back of the whole
     * game, unless one legal move leads there (1. Nf3 Nf6 2. Ng1 Ng8). */
    bool may_start = !inf->game || inf->ended || inf->swept || cr_game_ply_count(inf->game) == 0;
    bool reset = !may_start && cr_game_ply_count(inf->game) > RECENT_PLIES;
    if (may_start || reset) {
        cr_position start;
        bool rot;
        if (cr_infer__recognise_start(inf, &start, &rot) && !(reset && continues_game(inf))) {
            if (inf->game && cr_game_ply_count(inf->game) == 0 && !inf->ended && rot == inf->rotated &&
                memcmp(cr_game_start(inf->game)->board, start.board, CR_SQ_NB) == 0) {
                snap_update(&inf->cur, inf->raw, inf->rotated);
                evaluate(inf, t);
                return;
            }
            if (inf->have_fen && memcmp(start.board, inf->fen_start.board, CR_SQ_NB) == 0) {
                inf->have_fen = false; /* a meta FEN is for one game */
            }
            start_game(inf, &start, rot, t);
            return;
        }
    }
    if (!inf->game) {
        return;
    }
    snap_update(&inf->cur, inf->raw, inf->rotated);
    cr_infer__remember_board(inf, inf->cur.sq);
    inf->signal = !inf->ended_by_board && is_kings_signal(&inf->cur);
    evaluate(inf, t);
    if (inf->explained) {
        inf->gap_open = false; /* the first picture after the gap fitted */
    }
}

int cr_infer_feed(cr_infer *inf, const cr_feed_event *ev)
{
    if (!inf || !ev) {
        return CR_EINVAL;
    }
    int64_t t = ev->t < inf->t_last ? inf->t_last : ev->t; /* time never runs backwards */
    advance(inf, t);
    inf->t_last = t;
    switch (ev->kind) {
    case CR_FEED_POS:
        feed_pos(inf, ev, t);
        return 0;
    case CR_FEED_CLOCK:
        feed_clock(inf, ev, t);
        return 0;
    case CR_FEED_META:
        feed_meta(inf, ev);
        return 0;
    case CR_FEED_DISCONNECT:
        inf->gap_open = inf->game != NULL; /* the next pictures may be plies ahead */
        inf->clock_stale = true;
        return 0;
    case CR_FEED_CONNECT:
        return 0;
    default:
        return CR_EINVAL;
    }
}

void cr_infer_tick(cr_infer *inf, int64_t now)
{
    if (!inf || now < inf->t_last) {
        return;
    }
    advance(inf, now);
    inf->t_last = now;
}

void cr_infer_finish(cr_infer *inf, int64_t now)
{
    if (!inf) {
        return;
    }
    if (now < inf->t_last) {
        now = inf->t_last;
    }
    advance(inf, now);
    if (inf->signal && inf->game) {
        inf->signal = false;
        kings_signal(inf, now);
    }
    if (inf->has_pending) {
        seq q = inf->pending;
        cr_infer__commit(inf, &q, inf->pending_t, now);
        if (inf->game && !inf->ended_by_board) {
            evaluate(inf, now);
        }
    }
    if (inf->game && !inf->explained) {
        resolve(inf, now, false, inf->cfg.max_gap_plies);
    }
    inf->t_last = now;
}

int cr_infer_accept_board(cr_infer *inf, int side_to_move, int64_t t)
{
    if (!inf || !inf->game || !inf->have_snap || !plausible(&inf->cur)) {
        return CR_EINVAL;
    }
    return cr_infer__push_gap(inf, side_to_move, t, "board accepted by the arbiter", true, false);
}

const cr_game *cr_infer_game(const cr_infer *inf) { return inf ? inf->game : NULL; }

bool cr_infer_rotated(const cr_infer *inf) { return inf && inf->rotated; }

void cr_infer_get_stats(const cr_infer *inf, cr_infer_stats *stats)
{
    if (stats) {
        if (inf) {
            *stats = inf->stats;
        } else {
            memset(stats, 0, sizeof *stats);
        }
    }
}

size_t cr_infer_footprint(const cr_infer *inf)
{
    if (!inf) {
        return 0;
    }
    size_t n = sizeof *inf;
    for (int i = 0; i < inf->ntags; i++) {
        n += strlen(inf->tag_name[i]) + 1 + strlen(inf->tag_value[i]) + 1;
    }
    return n;
}
