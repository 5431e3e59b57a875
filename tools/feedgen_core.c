/* Feed generator core: see feedgen.h. */
#include "feedgen.h"

#include <inttypes.h>
#include <string.h>

#include "cr/notation.h"

const char *const fg_behaviour_names[FG_NB] = {
#define FG_NAME_(name, text) text,
    FG_BEHAVIOURS(FG_NAME_)
#undef FG_NAME_
};

/* ------------------------------------------------------------------ rng */

void fg_seed(fg_rng *r, uint64_t seed) { r->s = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull; }

uint64_t fg_next(fg_rng *r)
{
    /* splitmix64: tiny, good enough, same on every platform */
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

int fg_range(fg_rng *r, int n) { return n <= 1 ? 0 : (int)(fg_next(r) % (uint64_t)n); }
int fg_between(fg_rng *r, int lo, int hi) { return hi <= lo ? lo : lo + fg_range(r, hi - lo + 1); }
bool fg_chance(fg_rng *r, double p) { return p > 0 && (double)(fg_next(r) >> 11) / 9007199254740992.0 < p; }

void fg_noise_default(fg_noise *n)
{
    memset(n, 0, sizeof *n);
    n->lift_place = 0.8;
    n->slide = 0.04;
    n->slide_legal = 0.03;
    n->knock = 0.03;
    n->adjust = 0.04;
    n->takeback = 0.015;
    n->gap = 0.02;
    n->gap3 = 0.25;
    n->park = 0.1;
    n->disconnect = 0.5;
    n->king_tip = 0.3;
    n->kings_signal = 0.3;
    n->promo_via_pawn = 0.5;
    n->setup_swap = 0.3;
    n->setup = true;
    n->clock = true;
}

/* --------------------------------------------------------------- writer */

void fg_writer_init(fg_writer *w, FILE *out, const char *board, uint64_t seed, bool rotated,
                    const fg_noise *noise)
{
    memset(w, 0, sizeof *w);
    w->out = out;
    snprintf(w->board, sizeof w->board, "%s", board);
    w->rotated = rotated;
    fg_seed(&w->rng, seed);
    if (noise) {
        w->noise = *noise;
    } else {
        fg_noise_default(&w->noise);
    }
    w->running = -1;
    w->clk[0] = w->clk[1] = 90 * 60 * 1000;
    if (rotated) {
        w->used[FG_ROTATED]++;
    }
}

static void show(fg_writer *w)
{
    if (w->have_written && memcmp(w->shown, w->written, CR_SQ_NB) == 0) {
        return;
    }
    uint8_t b[CR_SQ_NB];
    for (int i = 0; i < CR_SQ_NB; i++) {
        b[i] = w->shown[w->rotated ? 63 - i : i];
    }
    char pl[CR_FEN_MAX];
    cr_placement_write(b, pl, sizeof pl);
    fprintf(w->out, "%" PRId64 " %s pos %s\n", w->t, w->board, pl);
    memcpy(w->written, w->shown, CR_SQ_NB);
    w->have_written = true;
}

static void clock_tick(fg_writer *w, int64_t dt)
{
    if (w->running == CR_WHITE || w->running == CR_BLACK) {
        w->clk[w->running] -= (int32_t)dt;
        if (w->clk[w->running] < 1000) {
            w->clk[w->running] = 1000; /* nobody loses on time here */
        }
    }
}

static void wait_ms(fg_writer *w, int lo, int hi)
{
    int dt = fg_between(&w->rng, lo, hi);
    clock_tick(w, dt);
    w->t += dt;
}

static void clock_line(fg_writer *w)
{
    if (!w->clock_on) {
        return;
    }
    int32_t a = w->clk[0] / 1000, b = w->clk[1] / 1000;
    fprintf(w->out, "%" PRId64 " %s clock %d:%02d:%02d %d:%02d:%02d %c\n", w->t, w->board, a / 3600, a / 60 % 60,
            a % 60, b / 3600, b / 60 % 60, b % 60, w->running == 0 ? 'w' : w->running == 1 ? 'b' : '-');
}

static void press(fg_writer *w, int mover, bool write)
{
    w->clk[mover] += 30000;
    w->running = !mover;
    if (write) {
        clock_line(w);
    }
}

/* A player thinks for a while: clock reports, and sometimes a piece is
 * knocked over or straightened. */
static void think(fg_writer *w, int side)
{
    int total = fg_between(&w->rng, 1500, 40000);
    while (total > 0) {
        int step = fg_between(&w->rng, 8000, 40000);
        if (step > total) {
            step = total;
        }
        clock_tick(w, step);
        w->t += step;
        total -= step;
        if (total > 0 && fg_chance(&w->rng, 0.5)) {
            clock_line(w);
        }
    }
    cr_bb occ = 0;
    for (int i = 0; i < CR_SQ_NB; i++) {
        if (w->shown[i]) {
            occ |= 1ull << i;
        }
    }
    if (occ && fg_chance(&w->rng, w->noise.knock)) {
        int n = __builtin_popcountll(occ), k = fg_range(&w->rng, n);
        cr_bb b = occ;
        while (k--) {
            b &= b - 1;
        }
        int sq = __builtin_ctzll(b);
        uint8_t p = w->shown[sq];
        w->shown[sq] = 0;
        show(w);
        wait_ms(w, 40, 250);
        w->shown[sq] = p;
        show(w);
        wait_ms(w, 500, 3000);
        w->used[FG_KNOCK]++;
    }
    if (fg_chance(&w->rng, w->noise.adjust)) {
        /* the player to move straightens one of their pieces */
        int cands[16], nc = 0;
        for (int i = 0; i < CR_SQ_NB && nc < 16; i++) {
            if (w->shown[i] && cr_color_of(w->shown[i]) == side) {
                cands[nc++] = i;
            }
        }
        if (nc) {
            int sq = cands[fg_range(&w->rng, nc)];
            uint8_t p = w->shown[sq];
            w->shown[sq] = 0;
            show(w);
            wait_ms(w, 150, 900);
            w->shown[sq] = p;
            show(w);
            wait_ms(w, 500, 3000);
            w->used[FG_ADJUST]++;
        }
    }
}

static int random_empty(fg_writer *w, cr_bb avoid, bool pawn)
{
    int cands[64], n = 0;
    for (int i = 0; i < CR_SQ_NB; i++) {
        if (!w->shown[i] && !(avoid & (1ull << i)) && !(pawn && (i < 8 || i >= 56))) {
            cands[n++] = i;
        }
    }
    return n ? cands[fg_range(&w->rng, n)] : -1;
}

/* Animates legal move m from p as hands make it; ends with the board
 * showing the position after m. */
static void animate(fg_writer *w, const cr_position *p, cr_move m)
{
    cr_position q = *p;
    cr_position_do_move(&q, m);
    int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
    int piece = p->board[from];
    int side = p->side;
    bool lift = fg_chance(&w->rng, w->noise.lift_place);

    if (kind == CR_MOVE_CASTLE) {
        int kt = cr_castle_king_to(m, side), rt = cr_castle_rook_to(m, side);
        int king = piece, rook = p->board[to];
        int v = fg_range(&w->rng, 3);
        /* King first is impossible when the rook stands on the king's target
         * (Chess960) and rook first when the king stands on the rook's. */
        if (v == 0 && kt != to && kt != from) {
            w->shown[from] = 0;
            show(w);
            wait_ms(w, 150, 700);
            w->shown[kt] = (uint8_t)king;
            show(w);
            wait_ms(w, 100, 600);
            w->shown[to] = 0;
            show(w);
            wait_ms(w, 100, 600);
            w->used[FG_CASTLE_KING_FIRST]++;
        } else if (v == 1 && rt != from && rt != to) {
            w->shown[to] = 0;
            show(w);
            wait_ms(w, 150, 700);
            w->shown[rt] = (uint8_t)rook;
            show(w);
            wait_ms(w, 100, 700);
            w->shown[from] = 0;
            show(w);
            wait_ms(w, 100, 600);
            w->used[FG_CASTLE_ROOK_FIRST]++;
        } else {
            w->shown[from] = 0;
            w->shown[to] = 0;
            if (fg_chance(&w->rng, 0.5)) {
                w->shown[from] = (uint8_t)king;
                show(w);
                w->shown[from] = 0;
                wait_ms(w, 50, 300);
            }
            show(w);
            wait_ms(w, 150, 700);
            w->shown[kt] = (uint8_t)king;
            show(w);
            wait_ms(w, 100, 600);
            w->used[FG_CASTLE_BOTH_LIFT]++;
        }
        memcpy(w->shown, q.board, CR_SQ_NB);
        show(w);
        return;
    }
    if (kind == CR_MOVE_EN_PASSANT) {
        int victim = side == CR_WHITE ? to - 8 : to + 8;
        if (fg_chance(&w->rng, 0.5)) {
            w->shown[victim] = 0;
            show(w);
            wait_ms(w, 200, 900);
            w->shown[from] = 0;
            show(w);
            wait_ms(w, 150, 600);
            w->used[FG_EP_VICTIM_FIRST]++;
        } else {
            w->shown[from] = 0;
            show(w);
            wait_ms(w, 150, 600);
            w->shown[to] = (uint8_t)piece;
            show(w);
            wait_ms(w, 200, 900);
            w->used[FG_EP_VICTIM_AFTER]++;
        }
        memcpy(w->shown, q.board, CR_SQ_NB);
        show(w);
        return;
    }
    bool capture = p->board[to] != CR_NO_PIECE;
    int park = -1;
    if (capture) {
        int v = fg_range(&w->rng, 2);
        if (fg_chance(&w->rng, w->noise.park)) {
            park = random_empty(w, (1ull << from) | (1ull << to), cr_type_of(p->board[to]) == CR_PAWN);
        }
        if (park >= 0) {
            w->shown[park] = p->board[to];
            w->shown[to] = 0;
            show(w);
            wait_ms(w, 200, 800);
            w->shown[from] = 0;
            show(w);
            wait_ms(w, 150, 600);
            w->used[FG_PARK]++;
        } else if (v == 0) {
            w->shown[to] = 0;
            show(w);
            wait_ms(w, 100, 900);
            w->shown[from] = 0;
            show(w);
            wait_ms(w, 150, 700);
            w->used[FG_CAPTURE_VICTIM_FIRST]++;
        } else {
            w->shown[from] = 0;
            show(w);
            wait_ms(w, 150, 700);
            w->shown[to] = 0;
            show(w);
            wait_ms(w, 100, 500);
            w->used[FG_CAPTURE_MOVER_FIRST]++;
        }
    }
    if (kind == CR_MOVE_PROMOTION) {
        if (cr_move_promo(m) != CR_QUEEN) {
            w->used[FG_UNDERPROMOTION]++;
        }
        if (!capture || park < 0) {
            w->shown[from] = 0;
        }
        if (fg_chance(&w->rng, w->noise.promo_via_pawn)) {
            w->shown[from] = 0;
            w->shown[to] = (uint8_t)piece;
            show(w);
            wait_ms(w, 300, 2500);
            w->shown[to] = 0;
            show(w);
            wait_ms(w, 300, 1500);
            w->used[FG_PROMO_VIA_PAWN]++;
        } else {
            show(w);
            wait_ms(w, 200, 900);
            w->used[FG_PROMO_DIRECT]++;
        }
    } else if (!capture) {
        bool slid = false;
        if (fg_chance(&w->rng, w->noise.slide + w->noise.slide_legal)) {
            /* Set down on a wrong empty square for a moment: one it could
             * legally reach (slide_legal) or any. */
            int x = -1;
            bool legal = false;
            if (fg_chance(&w->rng, w->noise.slide_legal / (w->noise.slide + w->noise.slide_legal))) {
                cr_movelist ml;
                cr_generate_legal(p, &ml);
                int c[64], nc = 0;
                for (int i = 0; i < ml.count; i++) {
                    cr_move o = ml.moves[i];
                    if (cr_move_from(o) == from && cr_move_to(o) != to && cr_move_kind(o) == CR_MOVE_NORMAL &&
                        !p->board[cr_move_to(o)] && nc < 64) {
                        c[nc++] = cr_move_to(o);
                    }
                }
                if (nc) {
                    x = c[fg_range(&w->rng, nc)];
                    legal = true;
                }
            }
            if (x < 0) {
                x = random_empty(w, (1ull << from) | (1ull << to), cr_type_of(piece) == CR_PAWN);
                if (x >= 0) {
                    cr_movelist ml;
                    cr_generate_legal(p, &ml);
                    for (int i = 0; i < ml.count; i++) {
                        if (ml.moves[i] == cr_move_make(from, x, CR_MOVE_NORMAL, 0)) {
                            legal = true;
                        }
                    }
                }
            }
            if (x >= 0) {
                w->shown[from] = 0;
                if (fg_chance(&w->rng, 0.5)) {
                    show(w);
                    wait_ms(w, 100, 500);
                }
                w->shown[x] = (uint8_t)piece;
                show(w);
                wait_ms(w, 80, 450);
                w->shown[x] = 0;
                show(w);
                wait_ms(w, 60, 300);
                w->used[legal ? FG_SLIDE_LEGAL : FG_SLIDE]++;
                slid = true;
            }
        }
        if (!slid) {
            if (lift) {
                w->shown[from] = 0;
                show(w);
                wait_ms(w, 150, 1200);
                w->used[FG_LIFT_PLACE]++;
            } else {
                w->used[FG_QUIET_DIRECT]++;
            }
        }
    }
    memcpy(w->shown, q.board, CR_SQ_NB);
    if (park >= 0) {
        w->shown[park] = p->board[to];
        show(w);
        wait_ms(w, 200, 1500);
        w->shown[park] = 0;
    }
    show(w);
}

/* Number of sequences of exactly k legal plies from p giving board b,
 * stopping at 2. */
static int count_paths(const cr_position *p, const uint8_t *b, int k)
{
    if (k == 0) {
        return memcmp(p->board, b, CR_SQ_NB) == 0;
    }
    cr_movelist ml;
    cr_generate_legal(p, &ml);
    int n = 0;
    for (int i = 0; i < ml.count && n < 2; i++) {
        cr_position q = *p;
        cr_position_do_move(&q, ml.moves[i]);
        n += count_paths(&q, b, k - 1);
    }
    return n;
}

static void setup_board(fg_writer *w, const cr_position *start)
{
    /* Fill the empty squares of the start position a few at a time. */
    int todo[64], n = 0;
    for (int i = 0; i < CR_SQ_NB; i++) {
        if (w->shown[i] != start->board[i]) {
            todo[n++] = i;
        }
    }
    for (int i = n - 1; i > 0; i--) {
        int j = fg_range(&w->rng, i + 1), tmp = todo[i];
        todo[i] = todo[j];
        todo[j] = tmp;
    }
    bool swap = fg_chance(&w->rng, w->noise.setup_swap);
    int k = 0;
    while (k < n) {
        int chunk = fg_between(&w->rng, 1, 6);
        for (int c = 0; c < chunk && k < n; c++, k++) {
            int sq = todo[k];
            uint8_t p = start->board[sq];
            if (swap && (cr_type_of(p) == CR_KING || cr_type_of(p) == CR_QUEEN) && (sq == 3 || sq == 4 || sq == 59 || sq == 60)) {
                /* king and queen on each other's squares, put right at the end */
                int other = (sq & ~7) | (sq % 8 == 3 ? 4 : 3);
                p = start->board[other];
            }
            w->shown[sq] = p;
        }
        show(w);
        wait_ms(w, 800, 4000);
    }
    if (memcmp(w->shown, start->board, CR_SQ_NB) != 0) {
        w->used[FG_SETUP_SWAP]++;
        memcpy(w->shown, start->board, CR_SQ_NB);
        show(w);
        wait_ms(w, 800, 3000);
    }
    w->used[FG_SETUP]++;
}

static void sweep(fg_writer *w)
{
    for (;;) {
        int occ[64], n = 0;
        for (int i = 0; i < CR_SQ_NB; i++) {
            if (w->shown[i]) {
                occ[n++] = i;
            }
        }
        if (n == 0) {
            return;
        }
        int chunk = fg_between(&w->rng, 2, 7);
        for (int c = 0; c < chunk && n > 0; c++) {
            int j = fg_range(&w->rng, n);
            w->shown[occ[j]] = 0;
            occ[j] = occ[--n];
        }
        show(w);
        wait_ms(w, 400, 2500);
    }
}

static bool king_square(const uint8_t *b, int piece, int *sq)
{
    for (int i = 0; i < CR_SQ_NB; i++) {
        if (b[i] == piece) {
            *sq = i;
            return true;
        }
    }
    return false;
}

void fg_write_game(fg_writer *w, const fg_game *g, int number, bool more_follow, FILE *expected)
{
    cr_position pos = g->start;
    cr_position std;
    cr_position_init_start(&std);
    bool standard = memcmp(std.board, g->start.board, CR_SQ_NB) == 0;
    int idx960 = cr_chess960_index(g->start.board);
    fprintf(w->out, "%" PRId64 " %s meta White Generated W%d\n", w->t, w->board, number);
    fprintf(w->out, "%" PRId64 " %s meta Black Generated B%d\n", w->t, w->board, number);
    fprintf(w->out, "%" PRId64 " %s meta Event feedgen\n", w->t, w->board);
    if (!standard && idx960 < 0) {
        char fen[CR_FEN_MAX];
        cr_position_to_fen(&g->start, fen, sizeof fen);
        fprintf(w->out, "%" PRId64 " %s meta FEN %s\n", w->t, w->board, fen);
    } else if (!standard) {
        w->used[FG_CHESS960]++;
    }
    if (number > 1) {
        w->used[FG_MULTIGAME]++;
    }
    if (w->noise.setup && (standard || idx960 >= 0)) {
        setup_board(w, &g->start);
    } else {
        /* a position set up by hand: shown at once */
        memcpy(w->shown, g->start.board, CR_SQ_NB);
        show(w);
        wait_ms(w, 1000, 3000);
    }
    w->clock_on = w->noise.clock;
    if (w->clock_on) {
        w->used[FG_CLOCK]++;
        w->clk[0] = w->clk[1] = 90 * 60 * 1000;
        w->running = -1;
        clock_line(w);
        wait_ms(w, 2000, 60000);
        w->running = pos.side;
        clock_line(w);
    }
    if (expected) {
        for (int i = 0; i < g->n; i++) {
            char san[CR_SAN_MAX];
            cr_position tmp = g->start;
            for (int k = 0; k < i; k++) {
                cr_position_do_move(&tmp, g->moves[k]);
            }
            cr_move_to_san(&tmp, g->moves[i], san, sizeof san);
            fprintf(expected, "%s%s", i ? " " : "", san);
        }
        if (g->n) {
            fputc('\n', expected);
        }
    }
    int i = 0;
    bool partial = false; /* the next move's piece is already in the air */
    while (i < g->n) {
        cr_move m = g->moves[i];
        if (!partial) {
            think(w, pos.side);
        }
        /* Missed lines: k plies with no pos line between, where only one
         * sequence joins the positions. */
        if (i > 0 && !partial && fg_chance(&w->rng, w->noise.gap)) {
            int k = fg_chance(&w->rng, w->noise.gap3) ? 3 : 2;
            if (i + k <= g->n) {
                cr_position q = pos;
                for (int j = 0; j < k; j++) {
                    cr_position_do_move(&q, g->moves[i + j]);
                }
                const cr_position before_gap = pos;
                bool unique = count_paths(&pos, q.board, k) == 1;
                for (int j = 1; j < k && unique; j++) {
                    unique = count_paths(&pos, q.board, j) == 0;
                }
                if (unique) {
                    bool disc = fg_chance(&w->rng, w->noise.disconnect);
                    if (disc) {
                        fprintf(w->out, "%" PRId64 " %s disconnect\n", w->t, w->board);
                        w->used[FG_DISCONNECT]++;
                    }
                    for (int j = 0; j < k; j++) {
                        wait_ms(w, 3000, 30000);
                        press(w, pos.side, false);
                        cr_position_do_move(&pos, g->moves[i + j]);
                    }
                    memcpy(w->shown, pos.board, CR_SQ_NB);
                    if (disc) {
                        fprintf(w->out, "%" PRId64 " %s connect\n", w->t, w->board);
                    }
                    bool may_partial = false;
                    if (k == 2 && i + k < g->n && fg_chance(&w->rng, 0.3)) {
                        /* Only where the board after the next move still
                         * has one explanation from before the gap, and no
                         * shorter one. */
                        cr_position nx = pos;
                        cr_position_do_move(&nx, g->moves[i + k]);
                        may_partial = count_paths(&before_gap, nx.board, k + 1) == 1;
                        for (int j = 1; j <= k && may_partial; j++) {
                            may_partial = count_paths(&before_gap, nx.board, j) == 0;
                        }
                    }
                    if (may_partial) {
                        /* the line after the gap already shows the next
                         * move begun: its piece lifted */
                        w->shown[cr_move_from(g->moves[i + k])] = CR_NO_PIECE;
                        partial = true;
                        w->used[FG_GAP_PARTIAL]++;
                    }
                    show(w);
                    wait_ms(w, 300, 1500);
                    clock_line(w);
                    w->used[k == 2 ? FG_GAP2 : FG_GAP3]++;
                    i += k;
                    continue;
                }
            }
        }
        if (!partial && fg_chance(&w->rng, w->noise.takeback)) {
            cr_movelist ml;
            cr_generate_legal(&pos, &ml);
            cr_move alt[CR_MAX_MOVES];
            int na = 0;
            for (int j = 0; j < ml.count; j++) {
                if (ml.moves[j] != m && cr_move_kind(ml.moves[j]) == CR_MOVE_NORMAL) {
                    alt[na++] = ml.moves[j];
                }
            }
            if (na) {
                cr_move wm = alt[fg_range(&w->rng, na)];
                uint8_t before[CR_SQ_NB];
                memcpy(before, w->shown, CR_SQ_NB);
                animate(w, &pos, wm);
                wait_ms(w, 1000, 9000);
                int wf = cr_move_from(wm), wt = cr_move_to(wm);
                w->shown[wt] = 0;
                show(w);
                wait_ms(w, 150, 800);
                w->shown[wf] = before[wf];
                show(w);
                if (before[wt]) {
                    wait_ms(w, 150, 800);
                    w->shown[wt] = before[wt];
                    show(w);
                }
                memcpy(w->shown, before, CR_SQ_NB);
                show(w);
                wait_ms(w, 500, 4000);
                w->used[FG_TAKEBACK]++;
            }
        }
        partial = false;
        animate(w, &pos, m);
        int mover = pos.side;
        cr_position_do_move(&pos, m);
        i++;
        wait_ms(w, 150, 1500);
        if (w->clock_on) {
            press(w, mover, true);
        }
    }
    /* The end. */
    wait_ms(w, 500, 5000);
    if (w->clock_on) {
        w->running = -1;
        clock_line(w);
    }
    cr_status st = cr_position_status(&pos);
    int wk, bk;
    if (st == CR_STATUS_ONGOING && g->signal != CR_RESULT_NONE && king_square(w->shown, CR_WK, &wk) &&
        king_square(w->shown, CR_BK, &bk)) {
        int a, b;
        if (g->signal == CR_RESULT_WHITE) {
            a = CR_SQ_E4, b = CR_SQ_D5;
        } else if (g->signal == CR_RESULT_BLACK) {
            a = CR_SQ_D4, b = CR_SQ_E5;
        } else {
            a = CR_SQ_D4, b = CR_SQ_D5;
        }
        if (fg_chance(&w->rng, 0.5)) {
            int tmp = a;
            a = b;
            b = tmp;
        }
        bool free_a = !w->shown[a] || a == wk, free_b = !w->shown[b] || b == bk;
        if (free_a && free_b && a != bk && b != wk) {
            wait_ms(w, 1000, 4000);
            w->shown[wk] = 0;
            show(w);
            wait_ms(w, 200, 800);
            w->shown[a] = CR_WK;
            show(w);
            wait_ms(w, 200, 900);
            w->shown[bk] = 0;
            show(w);
            wait_ms(w, 200, 800);
            w->shown[b] = CR_BK;
            show(w);
            w->used[FG_KINGS_SIGNAL]++;
        }
    } else if (fg_chance(&w->rng, w->noise.king_tip) && king_square(w->shown, pos.side == CR_WHITE ? CR_WK : CR_BK, &wk)) {
        wait_ms(w, 500, 3000);
        w->shown[wk] = 0;
        show(w);
        w->used[FG_KING_TIP]++;
    }
    wait_ms(w, 3000, 20000);
    if (more_follow) {
        sweep(w);
        wait_ms(w, 2000, 10000);
    }
}

/* ------------------------------------------------------ random games */

int fg_random_game(fg_rng *r, const cr_position *start, int max_plies, fg_game *g)
{
    memset(g, 0, sizeof *g);
    g->start = *start;
    cr_position p = *start;
    if (max_plies > FG_MAX_PLIES) {
        max_plies = FG_MAX_PLIES;
    }
    while (g->n < max_plies) {
        cr_movelist ml;
        if (cr_generate_legal(&p, &ml) == 0 || cr_position_is_dead(&p)) {
            break;
        }
        int weight[CR_MAX_MOVES], total = 0;
        for (int i = 0; i < ml.count; i++) {
            cr_move m = ml.moves[i];
            int kind = cr_move_kind(m), wgt = 2;
            if (kind == CR_MOVE_CASTLE || kind == CR_MOVE_EN_PASSANT || kind == CR_MOVE_PROMOTION) {
                wgt = 40;
            } else if (p.board[cr_move_to(m)]) {
                wgt = 8;
            } else if (cr_type_of(p.board[cr_move_from(m)]) == CR_PAWN) {
                wgt = 4;
            }
            weight[i] = wgt;
            total += wgt;
        }
        int x = fg_range(r, total), i = 0;
        while (x >= weight[i]) {
            x -= weight[i++];
        }
        g->moves[g->n++] = ml.moves[i];
        cr_position_do_move(&p, ml.moves[i]);
    }
    return g->n;
}

/* ------------------------------------------------ replay for checking */

#include <stdlib.h>

#include "cr/infer.h"

typedef struct fg_board {
    char id[CR_BOARD_ID_MAX + 1];
    cr_infer *inf;
    int game_number;
    struct fg_replay_ctx *ctx;
} fg_board;

typedef struct fg_saved {
    int board, number;
    cr_game *game;
} fg_saved;

typedef struct fg_replay_ctx {
    fg_board boards[64];
    int nboards;
    fg_saved saved[256];
    int nsaved;
} fg_replay_ctx;

static void fg_save(fg_replay_ctx *c, int board, int number, const cr_game *g)
{
    for (int i = 0; i < c->nsaved; i++) {
        if (c->saved[i].board == board && c->saved[i].number == number) {
            cr_game_free(c->saved[i].game);
            c->saved[i].game = cr_game_clone(g);
            return;
        }
    }
    if (c->nsaved < 256) {
        c->saved[c->nsaved].board = board;
        c->saved[c->nsaved].number = number;
        c->saved[c->nsaved].game = cr_game_clone(g);
        c->nsaved++;
    }
}

static void fg_on_event(void *data, const cr_infer_event *ev)
{
    fg_board *b = data;
    b->game_number = ev->game_number;
    if (ev->kind == CR_INFER_GAME_ENDED && ev->game) {
        fg_save(b->ctx, (int)(b - b->ctx->boards), ev->game_number, ev->game);
    }
}

int fg_replay(const char *feed, size_t len, const struct cr_infer_config *cfg, char **out, cr_result *results,
              int nres)
{
    fg_replay_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        return CR_ENOMEM;
    }
    char *scratch = malloc(len + 2);
    if (!scratch) {
        free(c);
        return CR_ENOMEM;
    }
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(feed + pos, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - (feed + pos)) : len - pos;
        cr_feed_event ev;
        if (cr_feed_parse_line(feed + pos, ll, &ev, scratch, len + 2, NULL) == 1) {
            int bi;
            for (bi = 0; bi < c->nboards; bi++) {
                if (strcmp(c->boards[bi].id, ev.board) == 0) {
                    break;
                }
            }
            if (bi == c->nboards && bi < 64) {
                fg_board *b = &c->boards[c->nboards++];
                snprintf(b->id, sizeof b->id, "%s", ev.board);
                b->ctx = c;
                b->inf = cr_infer_new(ev.board, cfg, fg_on_event, b);
            }
            if (bi < c->nboards && c->boards[bi].inf) {
                cr_infer_feed(c->boards[bi].inf, &ev);
            }
        }
        pos += ll + 1;
    }
    for (int i = 0; i < c->nboards; i++) {
        fg_board *b = &c->boards[i];
        if (!b->inf) {
            continue;
        }
        cr_infer_finish(b->inf, INT64_MAX / 4);
        if (cr_infer_game(b->inf)) {
            fg_save(c, i, b->game_number, cr_infer_game(b->inf));
        }
        cr_infer_free(b->inf);
    }
    size_t cap = 1024, n = 0;
    char *s = malloc(cap);
    int ng = 0;
    for (int bi = 0; bi < c->nboards && s; bi++) {
        for (int i = 0; i < c->nsaved && s; i++) {
            const cr_game *g = c->saved[i].game;
            if (c->saved[i].board != bi || !g || cr_game_ply_count(g) == 0) {
                continue;
            }
            if (results && ng < nres) {
                results[ng] = cr_game_result(g);
            }
            ng++;
            for (int k = 0; k < cr_game_ply_count(g); k++) {
                const char *san = cr_game_ply(g, k)->san;
                size_t need = n + strlen(san) + 3;
                if (need > cap) {
                    char *t = realloc(s, need * 2);
                    if (!t) {
                        free(s);
                        s = NULL;
                        break;
                    }
                    s = t;
                    cap = need * 2;
                }
                n += (size_t)sprintf(s + n, "%s%s", k ? " " : "", san);
            }
            if (s) {
                s[n++] = '\n';
                s[n] = '\0';
            }
        }
    }
    if (s && n == 0) {
        s[0] = '\0';
    }
    for (int i = 0; i < c->nsaved; i++) {
        cr_game_free(c->saved[i].game);
    }
    free(c);
    free(scratch);
    if (!s) {
        return CR_ENOMEM;
    }
    *out = s;
    return 0;
}

int fg_make_feed(uint64_t seed, const char *board, FILE *out, FILE *expected, unsigned used[FG_NB],
                 const char **profile)
{
    return fg_make_feed_game(seed, board, NULL, out, expected, used, profile);
}

int fg_make_feed_game(uint64_t seed, const char *board, const fg_game *given, FILE *out, FILE *expected,
                      unsigned used[FG_NB], const char **profile)
{
    fg_rng r;
    fg_seed(&r, seed ^ 0x5DEECE66Dull);
    fg_noise noise;
    fg_noise_default(&noise);
    int prof = fg_range(&r, 10);
    const char *pname = "standard";
    if (prof == 0) {
        pname = "clean";
        noise.slide = noise.slide_legal = noise.knock = noise.adjust = noise.takeback = noise.gap = 0;
        noise.park = 0;
    } else if (prof <= 3) {
        pname = "heavy";
        noise.slide *= 2.5;
        noise.slide_legal *= 2.5;
        noise.knock *= 3;
        noise.adjust *= 3;
        noise.takeback *= 3;
        noise.gap *= 3;
        noise.park *= 2;
    }
    noise.setup = fg_chance(&r, 0.7);
    bool rotated = fg_chance(&r, 0.2);
    int ngames = given ? 1 : fg_chance(&r, 0.15) ? 2 : 1;
    fg_writer *w = malloc(sizeof *w);
    fg_game *g = malloc(sizeof *g);
    if (!w || !g) {
        free(w);
        free(g);
        return 0;
    }
    fg_writer_init(w, out, board, fg_next(&r), rotated, &noise);
    fprintf(out, "# feedgen seed %" PRIu64 " profile %s\n", seed, pname);
    fprintf(out, "0 %s connect\n", board);
    for (int k = 0; k < ngames; k++) {
        cr_position start;
        int kind = fg_range(&r, 20);
        if (kind == 0) {
            cr_position_init_960(&start, fg_range(&r, 960));
        } else if (kind == 1) {
            /* a position set up from a FEN: a few random plies in */
            fg_game pre;
            cr_position_init_start(&start);
            fg_random_game(&r, &start, fg_between(&r, 6, 30), &pre);
            for (int i = 0; i < pre.n; i++) {
                cr_position_do_move(&start, pre.moves[i]);
            }
            if (cr_position_status(&start) != CR_STATUS_ONGOING) {
                cr_position_init_start(&start);
            }
        } else {
            cr_position_init_start(&start);
        }
        if (given) {
            *g = *given;
        } else {
            fg_random_game(&r, &start, fg_between(&r, 20, 140), g);
        }
        g->signal = fg_chance(&r, noise.kings_signal) ? (cr_result)fg_between(&r, 1, 3) : CR_RESULT_NONE;
        fg_write_game(w, g, k + 1, k + 1 < ngames, expected);
    }
    if (used) {
        memcpy(used, w->used, sizeof w->used);
    }
    if (profile) {
        *profile = pname;
    }
    free(w);
    free(g);
    return ngames;
}

int fg_parse_san_line(const char *line, fg_game *g, cr_error *err)
{
    memset(g, 0, sizeof *g);
    cr_position_init_start(&g->start);
    cr_position p = g->start;
    const char *c = line;
    for (;;) {
        while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') {
            c++;
        }
        /* move numbers "12." / "12..." and results are skipped */
        const char *tok = c;
        while (*c && *c != ' ' && *c != '\t' && *c != '\r' && *c != '\n') {
            c++;
        }
        size_t len = (size_t)(c - tok);
        if (len == 0) {
            return 0;
        }
        if ((tok[0] >= '0' && tok[0] <= '9' && tok[len - 1] == '.') || (len == 3 && memcmp(tok, "1-0", 3) == 0) ||
            (len == 3 && memcmp(tok, "0-1", 3) == 0) || (len == 7 && memcmp(tok, "1/2-1/2", 7) == 0) ||
            (len == 1 && tok[0] == '*')) {
            continue;
        }
        if (g->n == FG_MAX_PLIES) {
            return cr_error_set(err, CR_ERANGE, 0, (int)(tok - line) + 1, "more than %d plies", FG_MAX_PLIES);
        }
        cr_error e;
        cr_move m = cr_move_from_text(&p, tok, CR_LANG_EN, NULL, &e);
        if (m == CR_MOVE_NONE) {
            return cr_error_set(err, CR_EMOVE, 0, (int)(tok - line) + 1, "ply %d '%.*s': %s", g->n + 1,
                                (int)len, tok, e.text);
        }
        g->moves[g->n++] = m;
        cr_position_do_move(&p, m);
    }
}
