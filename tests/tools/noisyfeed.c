/* noisyfeed: an independent adversarial generator of board feeds for the
 * move inference. It plays random but plausible games (biased toward
 * captures, castling on both sides, e.p., promotions and under-promotions,
 * mates) and renders them as a DGT board would report them, following the
 * noise described in tests/data/feeds/README.md with its own choices of timing
 * and order. For every feed it writes:
 *
 *   NAME.feed      the feed
 *   NAME.expected  one line per game with moves: canonical SAN
 *   NAME.notes     per ply: SAN, how it was rendered, its time span
 *
 * and one index.tsv (feed, category, board, games, plies, tags) that
 * check-feeds reads for its per-tag pass rates.
 *
 *   noisyfeed OUTDIR [COUNT [SEED]]
 *
 * Self-checks (the program exits non-zero when one fails): no in-between
 * snapshot equals a position one or two legal plies away, the previous
 * positions, the start position or a kings-in-the-centre signal (except
 * the states made on purpose: a slide onto a square the piece could go to,
 * a rook set down first when castling); every two-ply gap has exactly one
 * pair of legal plies leading to it (searched with the core API); every
 * feed reads back without error with cr_feed_reader and its expected SAN
 * replays legally with cr_move_from_text. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cr/board.h"
#include "cr/feed.h"
#include "cr/notation.h"

/* ------------------------------------------------------------ randomness */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static int rint_(int n) { return n <= 1 ? 0 : (int)(rnd() % (uint64_t)n); }
static int rrange(int lo, int hi) { return lo + rint_(hi - lo + 1); }
static bool chance(double p) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0) < p; }

/* ------------------------------------------------------------------ tags */

#define TAGS(X)                                                                                  \
    X(setup) X(setup_swap) X(quiet_direct) X(lift_place) X(one_line) X(capture_victim_first)     \
    X(capture_mover_first) X(capture_same_line) X(park) X(castle_king_first)                     \
    X(castle_rook_first) X(castle_both_lift) X(O_O_w) X(O_O_b) X(O_O_O_w) X(O_O_O_b)             \
    X(ep_pawn_first) X(ep_victim_first) X(promo_direct) X(promo_via_pawn) X(promotion_capture)   \
    X(underpromotion) X(adjust) X(knock) X(slide) X(slide_legal) X(takeback) X(gap)              \
    X(gap_disconnect) X(rotated) X(multigame) X(sweep) X(kings_centre) X(king_tip)                \
    X(checkmate) X(reset_end) X(fast) X(takeback_special) X(gap_partial) X(adjust_after)     \
    X(knock_mid) X(slide_slow) X(slide_path) X(slide_capture) X(slide_castle) X(multiboard)  \
    X(takeback_pressed)

enum {
#define TAG_ENUM_(n) T_##n,
    TAGS(TAG_ENUM_)
#undef TAG_ENUM_
    T_NB
};
static const char *const tag_names[T_NB] = {
#define TAG_NAME_(n) #n,
    TAGS(TAG_NAME_)
#undef TAG_NAME_
};

/* ------------------------------------------------------------ the feed */

typedef struct frame {
    int dt;           /* ms after the previous line */
    uint8_t b[64];    /* board (logical orientation) */
    bool on_purpose;  /* may equal a position one legal ply away */
} frame;

#define MAX_FRAMES 64
typedef struct frames {
    int n;
    frame f[MAX_FRAMES];
} frames;

typedef struct feedgen {
    FILE *feed, *notes;
    char id[40];
    bool rotated;
    int64_t t;
    uint8_t shown[64];
    bool shown_valid;
    bool muted;                  /* link down: nothing reaches the feed */
    /* Clock: 90 min + 30 s. */
    int32_t base[2];
    int running;                 /* CR_WHITE, CR_BLACK or -1 */
    int64_t run_start, next_report;
    bool tags[T_NB];
    /* Noise of this feed's category. */
    double p_adjust, p_knock, p_slide, p_takeback, p_gap, p_gap_disc, p_merge;
    double p_fast, p_gap_partial, p_adjust_after, p_knock_mid, p_slide_slow, p_tb_pressed;
    int failures;                /* self-check failures */
} feedgen;

static void tag(feedgen *g, int t) { g->tags[t] = true; }

static void line(feedgen *g, const char *fmt, ...) CR_PRINTF(2, 3);
static void line(feedgen *g, const char *fmt, ...)
{
    if (g->muted) {
        return;
    }
    fprintf(g->feed, "%lld %s ", (long long)g->t, g->id);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(g->feed, fmt, ap);
    va_end(ap);
    fputc('\n', g->feed);
}

static void show(feedgen *g, const uint8_t b[64])
{
    if (g->shown_valid && memcmp(g->shown, b, 64) == 0) {
        return;
    }
    memcpy(g->shown, b, 64);
    g->shown_valid = true;
    uint8_t phys[64];
    for (int s = 0; s < 64; s++) {
        phys[g->rotated ? 63 - s : s] = b[s];
    }
    char text[CR_FEN_MAX];
    cr_placement_write(phys, text, sizeof text);
    line(g, "pos %s", text);
}

static int32_t remaining(const feedgen *g, int c)
{
    int64_t r = g->base[c] - (g->running == c ? g->t - g->run_start : 0);
    return r < 0 ? 0 : (int32_t)r;
}

static void clock_line(feedgen *g)
{
    char w[16], b[16];
    cr_feed_format_clock(remaining(g, CR_WHITE), w, sizeof w);
    cr_feed_format_clock(remaining(g, CR_BLACK), b, sizeof b);
    line(g, "clock %s %s %s", w, b, g->running == CR_WHITE ? "w" : g->running == CR_BLACK ? "b" : "-");
}

/* Time passes; the clock reports every 10..40 s while it runs. */
static void wait_ms(feedgen *g, int64_t ms)
{
    int64_t end = g->t + ms;
    while (g->running >= 0 && g->next_report <= end) {
        g->t = g->next_report;
        clock_line(g);
        g->next_report = g->t + rrange(10000, 40000);
    }
    g->t = end;
}

static void clock_start(feedgen *g, int side)
{
    g->running = side;
    g->run_start = g->t;
    g->next_report = g->t + rrange(10000, 40000);
    clock_line(g);
}

/* The mover presses: +30 s, the other side runs. */
static void clock_press(feedgen *g)
{
    if (g->running < 0) {
        return;
    }
    int c = g->running;
    g->base[c] = remaining(g, c) + 30000;
    g->running = c ^ 1;
    g->run_start = g->t;
    g->next_report = g->t + rrange(10000, 40000);
    clock_line(g);
}

static void clock_stop(feedgen *g)
{
    if (g->running < 0) {
        return;
    }
    g->base[g->running] = remaining(g, g->running);
    g->running = -1;
    clock_line(g);
}

static void play_frames(feedgen *g, const frames *fr)
{
    for (int i = 0; i < fr->n; i++) {
        wait_ms(g, fr->f[i].dt);
        show(g, fr->f[i].b);
    }
}

/* -------------------------------------------------- what must not be seen */

/* Boards one and two plies from a position, as hashes (sorted). */
typedef struct reach {
    int n1, n2, nalt;
    uint64_t one[CR_MAX_MOVES];
    uint64_t alt[CR_MAX_MOVES]; /* one ply from the previous position: the other last moves */
    uint64_t self;              /* the position itself */
    uint64_t *two;
    int cap2;
} reach;

static uint64_t board_hash(const uint8_t b[64])
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < 64; i++) {
        h = (h ^ b[i]) * 1099511628211ULL;
    }
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void reach_build(reach *r, const cr_position *pos, const cr_position *prev)
{
    cr_movelist l1;
    r->n1 = 0;
    r->n2 = 0;
    r->nalt = 0;
    r->self = board_hash(pos->board);
    if (prev) {
        cr_generate_legal(prev, &l1);
        for (int i = 0; i < l1.count; i++) {
            cr_position p1 = *prev;
            cr_position_do_move(&p1, l1.moves[i]);
            r->alt[r->nalt++] = board_hash(p1.board);
        }
        qsort(r->alt, (size_t)r->nalt, sizeof r->alt[0], cmp_u64);
    }
    cr_generate_legal(pos, &l1);
    for (int i = 0; i < l1.count; i++) {
        cr_position p1 = *pos;
        cr_position_do_move(&p1, l1.moves[i]);
        r->one[r->n1++] = board_hash(p1.board);
        cr_movelist l2;
        cr_generate_legal(&p1, &l2);
        for (int j = 0; j < l2.count; j++) {
            cr_position p2 = p1;
            cr_position_do_move(&p2, l2.moves[j]);
            if (r->n2 == r->cap2) {
                r->cap2 = r->cap2 ? r->cap2 * 2 : 4096;
                r->two = realloc(r->two, (size_t)r->cap2 * sizeof *r->two);
                if (!r->two) {
                    fprintf(stderr, "noisyfeed: out of memory\n");
                    exit(2);
                }
            }
            r->two[r->n2++] = board_hash(p2.board);
        }
    }
    qsort(r->one, (size_t)r->n1, sizeof r->one[0], cmp_u64);
    qsort(r->two, (size_t)r->n2, sizeof r->two[0], cmp_u64);
}

static bool in_sorted(const uint64_t *a, int n, uint64_t h)
{
    return n > 0 && bsearch(&h, a, (size_t)n, sizeof h, cmp_u64) != NULL;
}

static const uint8_t *start_board(void)
{
    static cr_position start;
    static bool done;
    if (!done) {
        cr_position_init_start(&start);
        done = true;
    }
    return start.board;
}

static bool kings_signal(const uint8_t b[64])
{
    static const int centre[4] = {CR_SQ_D4, CR_SQ_E4, CR_SQ_D5, CR_SQ_E5};
    bool w = false, k = false;
    int nw = 0, nb = 0;
    for (int s = 0; s < 64; s++) {
        nw += b[s] == CR_WK;
        nb += b[s] == CR_BK;
    }
    for (int i = 0; i < 4; i++) {
        w |= b[centre[i]] == CR_WK;
        k |= b[centre[i]] == CR_BK;
    }
    return nw == 1 && nb == 1 && w && k;
}

/* Why a board shown in between would mislead, or NULL. prev: earlier
 * positions of the game (may be NULL). */
static const char *confusable(const reach *r, const uint8_t b[64], bool on_purpose,
                              const uint8_t *prev1, const uint8_t *prev2)
{
    uint64_t h = board_hash(b);
    if (!on_purpose && in_sorted(r->one, r->n1, h)) {
        return "one legal ply away";
    }
    if (in_sorted(r->two, r->n2, h)) {
        return "two legal plies away";
    }
    if (h != r->self && in_sorted(r->alt, r->nalt, h)) {
        return "another last move";
    }
    if ((prev1 && memcmp(prev1, b, 64) == 0) || (prev2 && memcmp(prev2, b, 64) == 0)) {
        return "an earlier position";
    }
    if (memcmp(b, start_board(), 64) == 0) {
        return "the start position";
    }
    if (kings_signal(b)) {
        return "kings in the centre";
    }
    return NULL;
}

/* All but the last frame must be harmless; the last is the position after. */
static bool frames_ok(const frames *fr, const reach *r, const uint8_t *prev1, const uint8_t *prev2)
{
    for (int i = 0; i + 1 < fr->n; i++) {
        if (confusable(r, fr->f[i].b, fr->f[i].on_purpose, prev1, prev2)) {
            return false;
        }
        if (fr->f[i].on_purpose && !in_sorted(r->one, r->n1, board_hash(fr->f[i].b))) {
            return false; /* "on purpose" means a legal ply's board, nothing else */
        }
    }
    return true;
}

/* ------------------------------------------------------- frame building */

typedef struct builder {
    frames *fr;
    uint8_t cur[64];
} builder;

static void step(builder *bd, int dt, bool on_purpose)
{
    if (bd->fr->n == MAX_FRAMES) {
        return;
    }
    frame *f = &bd->fr->f[bd->fr->n++];
    f->dt = dt;
    memcpy(f->b, bd->cur, 64);
    f->on_purpose = on_purpose;
}
static void lift(builder *bd, int sq, int dt)
{
    bd->cur[sq] = CR_NO_PIECE;
    step(bd, dt, false);
}
static void put(builder *bd, int sq, int pc, int dt)
{
    bd->cur[sq] = (uint8_t)pc;
    step(bd, dt, false);
}
static int hand_ms(void) { return rrange(150, 1100); } /* lift -> set down */
static int gap_ms(void) { return rrange(80, 700); }    /* between two actions */

/* A random empty square near `near` (king steps around it, or anywhere). */
static int empty_square(const uint8_t b[64], int near, int avoid)
{
    for (int tries = 0; tries < 40; tries++) {
        int s;
        if (near >= 0 && tries < 20) {
            int f = cr_file_of(near) + rrange(-1, 1), r = cr_rank_of(near) + rrange(-1, 1);
            if (f < 0 || f > 7 || r < 0 || r > 7) {
                continue;
            }
            s = cr_square(f, r);
        } else {
            s = rint_(64);
        }
        if (!b[s] && s != avoid && s != near) {
            return s;
        }
    }
    return -1;
}

/* Merges a frame into the next now and then: two changes in one line. */
static void merge_some(frames *fr, double p)
{
    for (int i = 0; i + 1 < fr->n; i++) {
        if (!fr->f[i].on_purpose && chance(p)) {
            fr->f[i + 1].dt += fr->f[i].dt;
            memmove(&fr->f[i], &fr->f[i + 1], (size_t)(fr->n - i - 1) * sizeof fr->f[0]);
            fr->n--;
        }
    }
}

/* True if `pos` has a legal normal move from -> w. */
static bool legal_step(const cr_position *pos, int from, int w)
{
    cr_movelist l;
    cr_generate_legal(pos, &l);
    for (int i = 0; i < l.count; i++) {
        if (cr_move_from(l.moves[i]) == from && cr_move_to(l.moves[i]) == w &&
            cr_move_kind(l.moves[i]) == CR_MOVE_NORMAL) {
            return true;
        }
    }
    return false;
}

/* The piece from `from` set down on a wrong empty square for a moment (a
 * square on its way when there is one: a pawn's middle square, a slider's
 * path; else one next to its target), then moved on to `to`. victim: the
 * square emptied on the way (a capture), or -1. */
static bool slide(const feedgen *g, const cr_position *pos, builder *bd, int from, int to, int pc,
                  int victim_sq, int *what, int *what2)
{
    int w = -1;
    int df = cr_file_of(to) - cr_file_of(from), dr = cr_rank_of(to) - cr_rank_of(from);
    int adf = df < 0 ? -df : df, adr = dr < 0 ? -dr : dr;
    if ((adf == 0 || adr == 0 || adf == adr) && (adf > 1 || adr > 1) && chance(0.7)) {
        int n = adf > adr ? adf : adr;
        int i = rrange(1, n - 1);
        int sf = df > 0 ? 1 : df < 0 ? -1 : 0, sr = dr > 0 ? 1 : dr < 0 ? -1 : 0;
        int c = cr_square(cr_file_of(from) + sf * i, cr_rank_of(from) + sr * i);
        if (!bd->cur[c]) {
            w = c;
            *what2 = T_slide_path;
        }
    }
    if (w < 0) {
        w = empty_square(bd->cur, to, from);
    }
    if (w < 0 || w == to) {
        return false;
    }
    bool legal = legal_step(pos, from, w);
    *what = legal ? T_slide_legal : T_slide;
    bool slow = legal && chance(g->p_slide_slow);
    if (slow) {
        *what = T_slide_slow;
    }
    if (victim_sq >= 0 && chance(0.5)) {
        lift(bd, victim_sq, gap_ms());
        victim_sq = -1;
    }
    lift(bd, from, gap_ms());
    bd->cur[w] = (uint8_t)pc;
    step(bd, hand_ms(), legal);
    int stay = slow ? rrange(600, 2000) : rrange(80, 700);
    if (victim_sq >= 0) {
        lift(bd, victim_sq, stay);
        stay = gap_ms();
    }
    if (chance(0.5)) {
        lift(bd, w, stay); /* lifted again */
        put(bd, to, pc, rrange(100, 500));
    } else {
        bd->cur[w] = 0; /* slid on in one go */
        put(bd, to, pc, stay);
    }
    return true;
}

/* One way of making move m on the board; variant < 0 picks at random.
 * Sets *what to the tag of the variant. */
static void render_move(const feedgen *g, const cr_position *pos, cr_move m, frames *fr,
                        int *what, int *what2)
{
    builder bd = {fr, {0}};
    memcpy(bd.cur, pos->board, 64);
    fr->n = 0;
    *what2 = -1;
    int us = pos->side;
    int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
    int pc = pos->board[from];
    cr_position after = *pos;
    cr_position_do_move(&after, m);

    if (kind == CR_MOVE_CASTLE) {
        int kto = cr_castle_king_to(m, us), rto = cr_castle_rook_to(m, us);
        int rook = pos->board[to];
        int v = rint_(3);
        if (v == 0) {
            *what = T_castle_king_first;
            lift(&bd, from, gap_ms());
            int mid = (from + kto) / 2;
            if (chance(g->p_slide) && mid != from && mid != kto && !bd.cur[mid]) {
                /* The king set down on its way for a moment (a legal king
                 * step when nothing attacks it). */
                bd.cur[mid] = (uint8_t)pc;
                step(&bd, hand_ms(), legal_step(pos, from, mid));
                bd.cur[mid] = 0;
                *what = T_slide_castle;
            }
            put(&bd, kto, pc, hand_ms());
            lift(&bd, to, gap_ms());
            put(&bd, rto, rook, hand_ms());
        } else if (v == 1) {
            *what = T_castle_rook_first;
            lift(&bd, to, gap_ms());
            bd.cur[rto] = (uint8_t)rook;
            step(&bd, hand_ms(), true); /* looks like a rook move for a moment */
            lift(&bd, from, rrange(150, 1800));
            put(&bd, kto, pc, hand_ms());
        } else {
            *what = T_castle_both_lift;
            lift(&bd, from, gap_ms());
            lift(&bd, to, rrange(50, 400));
            if (chance(0.5)) {
                put(&bd, kto, pc, hand_ms());
                put(&bd, rto, rook, gap_ms());
            } else {
                put(&bd, rto, rook, hand_ms());
                put(&bd, kto, pc, gap_ms());
            }
        }
        *what2 = cr_file_of(kto) == 6 ? (us == CR_WHITE ? T_O_O_w : T_O_O_b)
                                      : (us == CR_WHITE ? T_O_O_O_w : T_O_O_O_b);
        memcpy(bd.cur, after.board, 64);
        return;
    }
    if (kind == CR_MOVE_EN_PASSANT) {
        int cap = us == CR_WHITE ? to - 8 : to + 8;
        if (chance(0.5)) {
            *what = T_ep_pawn_first;
            lift(&bd, from, gap_ms());
            put(&bd, to, pc, hand_ms());
            lift(&bd, cap, gap_ms());
        } else {
            *what = T_ep_victim_first;
            lift(&bd, cap, gap_ms());
            lift(&bd, from, gap_ms());
            put(&bd, to, pc, hand_ms());
        }
        return;
    }
    int victim = pos->board[to];
    if (kind == CR_MOVE_PROMOTION) {
        int newpc = after.board[to];
        *what = chance(0.5) ? T_promo_direct : T_promo_via_pawn;
        if (victim) {
            *what2 = T_promotion_capture;
        }
        bool victim_first = victim && chance(0.5);
        if (victim_first) {
            lift(&bd, to, gap_ms());
        }
        lift(&bd, from, gap_ms());
        if (victim && !victim_first) {
            lift(&bd, to, gap_ms());
        }
        if (*what == T_promo_via_pawn) {
            put(&bd, to, pc, hand_ms());
            lift(&bd, to, rrange(300, 5000));
            put(&bd, to, newpc, rrange(300, 2500));
        } else {
            put(&bd, to, newpc, rrange(400, 3000));
        }
        return;
    }
    if (victim) {
        if (chance(g->p_slide) && slide(g, pos, &bd, from, to, pc, to, what, what2)) {
            *what2 = T_slide_capture;
            return;
        }
        int v = rint_(7);
        if (v == 6) {
            /* Park: the taken piece set down on an empty square first. */
            int w = empty_square(bd.cur, to, from);
            if (w >= 0) {
                *what = T_park;
                lift(&bd, to, gap_ms());
                put(&bd, w, victim, hand_ms());
                lift(&bd, from, gap_ms());
                put(&bd, to, pc, hand_ms());
                lift(&bd, w, rrange(300, 3000));
                return;
            }
            v = 0;
        }
        if (v <= 2) {
            *what = T_capture_victim_first;
            lift(&bd, to, gap_ms());
            lift(&bd, from, gap_ms());
            put(&bd, to, pc, hand_ms());
        } else if (v <= 4) {
            *what = T_capture_mover_first;
            lift(&bd, from, gap_ms());
            lift(&bd, to, gap_ms());
            put(&bd, to, pc, hand_ms());
        } else {
            *what = T_capture_same_line;
            bd.cur[from] = 0;
            lift(&bd, to, gap_ms());
            put(&bd, to, pc, hand_ms());
        }
        return;
    }
    /* Quiet move. */
    if (chance(g->p_slide) && slide(g, pos, &bd, from, to, pc, -1, what, what2)) {
        return;
    }
    if (chance(0.4)) {
        *what = T_quiet_direct;
        memcpy(bd.cur, after.board, 64);
        step(&bd, gap_ms(), false);
    } else {
        *what = T_lift_place;
        lift(&bd, from, gap_ms());
        put(&bd, to, pc, hand_ms());
    }
}

/* ------------------------------------------------------------- the game */

#define MAX_PLIES 240

typedef struct game {
    cr_position pos[MAX_PLIES + 1];
    cr_move moves[MAX_PLIES];
    int n;
    bool mate;
} game;

static int piece_value(int type)
{
    static const int v[CR_TYPE_NB] = {0, 1, 3, 3, 5, 9, 0};
    return v[type];
}

/* Random plausible play: development early, captures, castling, e.p.,
 * promotions (a third of them under-promotions), mates when they are
 * there. */
static void play_game(game *gm, int max_plies)
{
    cr_position_init_start(&gm->pos[0]);
    gm->n = 0;
    gm->mate = false;
    while (gm->n < max_plies) {
        const cr_position *p = &gm->pos[gm->n];
        cr_movelist l;
        int n = cr_generate_legal(p, &l);
        if (n == 0 || cr_position_is_dead(p) || p->halfmove >= 60) {
            break;
        }
        int weights[CR_MAX_MOVES], total = 0, mate = -1;
        for (int i = 0; i < n; i++) {
            cr_move m = l.moves[i];
            int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
            int type = cr_type_of(p->board[from]);
            int w = 2;
            cr_position q = *p;
            cr_position_do_move(&q, m);
            if (cr_in_check(&q)) {
                if (cr_count_legal(&q) == 0) {
                    mate = i;
                }
                w += 3;
            }
            if (kind == CR_MOVE_CASTLE) {
                w += 80;
            } else if (kind == CR_MOVE_EN_PASSANT) {
                w += 120;
            } else if (kind == CR_MOVE_PROMOTION) {
                w += cr_move_promo(m) == CR_QUEEN ? 60 : 25;
            } else if (p->board[to]) {
                w += 6 + 3 * piece_value(cr_type_of(p->board[to]));
            }
            if (type == CR_PAWN && (from ^ to) == 16) {
                w += 5;
            }
            if (type == CR_PAWN && gm->n > 30) {
                w += 4; /* toward promotions */
            }
            if (gm->n < 16 && (type == CR_KNIGHT || type == CR_BISHOP) &&
                cr_rank_of(from) == (p->side == CR_WHITE ? 0 : 7)) {
                w += 6; /* clear the way for castling */
            }
            if (type == CR_KING && kind != CR_MOVE_CASTLE && gm->n < 30) {
                w = 1;
            }
            weights[i] = w;
            total += w;
        }
        int pick = 0;
        if (mate >= 0 && chance(0.9)) {
            pick = mate;
        } else {
            int r = rint_(total);
            while (r >= weights[pick]) {
                r -= weights[pick++];
            }
        }
        gm->moves[gm->n] = l.moves[pick];
        gm->pos[gm->n + 1] = *p;
        cr_position_do_move(&gm->pos[gm->n + 1], l.moves[pick]);
        gm->n++;
        if (cr_position_status(&gm->pos[gm->n]) == CR_STATUS_CHECKMATE) {
            gm->mate = true;
            break;
        }
    }
}

/* Number of pairs of legal plies from a to a board equal to b's. */
static int two_ply_paths(const cr_position *a, const uint8_t *b)
{
    cr_movelist l1;
    cr_generate_legal(a, &l1);
    int n = 0;
    for (int i = 0; i < l1.count; i++) {
        cr_position p1 = *a;
        cr_position_do_move(&p1, l1.moves[i]);
        cr_movelist l2;
        cr_generate_legal(&p1, &l2);
        for (int j = 0; j < l2.count; j++) {
            cr_position p2 = p1;
            cr_position_do_move(&p2, l2.moves[j]);
            n += memcmp(p2.board, b, 64) == 0;
        }
    }
    return n;
}

/* ------------------------------------------------------------ rendering */

static void note(feedgen *g, int ply, const char *san, const char *what, int64_t t0)
{
    fprintf(g->notes, "%d\t%s\t%s\t%lld-%lld\n", ply + 1, san, what, (long long)t0,
            (long long)g->t);
}

/* Pieces appear a few at a time until `target` stands (from `have`). */
static void setup_board(feedgen *g, const uint8_t have[64], const uint8_t target[64], bool swap)
{
    uint8_t cur[64];
    memcpy(cur, have, 64);
    int order[64], n = 0;
    for (int s = 0; s < 64; s++) {
        if (target[s] && cur[s] != target[s]) {
            order[n++] = s;
        }
    }
    for (int i = n - 1; i > 0; i--) {
        int j = rint_(i + 1), x = order[i];
        order[i] = order[j];
        order[j] = x;
    }
    int i = 0;
    while (i < n) {
        int k = rrange(1, 6);
        for (; k > 0 && i < n; k--, i++) {
            int s = order[i];
            uint8_t pc = target[s];
            /* King and queen on each other's squares first, now and then. */
            if (swap && (pc == CR_WK || pc == CR_WQ)) {
                pc = pc == CR_WK ? CR_WQ : CR_WK;
            }
            cur[s] = pc;
        }
        wait_ms(g, rrange(400, 3000));
        show(g, cur);
    }
    if (memcmp(cur, target, 64) != 0) {
        /* Swap king and queen back: lift both, set both right. */
        tag(g, T_setup_swap);
        wait_ms(g, rrange(1000, 4000));
        cur[CR_SQ_D1] = 0;
        show(g, cur);
        wait_ms(g, rrange(200, 800));
        cur[CR_SQ_E1] = 0;
        show(g, cur);
        wait_ms(g, rrange(200, 800));
        cur[CR_SQ_E1] = CR_WK;
        show(g, cur);
        wait_ms(g, rrange(200, 800));
        cur[CR_SQ_D1] = CR_WQ;
        show(g, cur);
    }
}

/* Pieces swept off a few at a time. */
static void sweep(feedgen *g, const uint8_t have[64])
{
    uint8_t cur[64];
    memcpy(cur, have, 64);
    tag(g, T_sweep);
    for (;;) {
        int left = 0;
        for (int s = 0; s < 64; s++) {
            left += cur[s] != 0;
        }
        if (!left) {
            break;
        }
        int k = rrange(2, 6);
        for (int tries = 0; k > 0 && tries < 500; tries++) {
            int s = rint_(64);
            if (cur[s]) {
                cur[s] = 0;
                k--;
            }
        }
        wait_ms(g, rrange(300, 1500));
        show(g, cur);
    }
}

/* An adjust (lifted and put back) or knock (square empty for a moment) of
 * a random piece while a player thinks, if harmless. */
static void fiddle(feedgen *g, const cr_position *pos, const reach *r, const uint8_t *prev1,
                   const uint8_t *prev2, bool knock)
{
    uint8_t b[64];
    memcpy(b, pos->board, 64);
    for (int tries = 0; tries < 20; tries++) {
        int s = rint_(64);
        if (!b[s]) {
            continue;
        }
        b[s] = 0;
        if (!confusable(r, b, false, prev1, prev2)) {
            tag(g, knock ? T_knock : T_adjust);
            show(g, b);
            wait_ms(g, knock ? rrange(40, 250) : rrange(300, 1500));
            show(g, pos->board);
            fprintf(g->notes, "-\t-\t%s %c%d\t%lld\n", knock ? "knock" : "adjust", 'a' + (s & 7),
                    1 + (s >> 3), (long long)g->t);
            return;
        }
        b[s] = pos->board[s];
    }
}

/* Frames that take the board back to `target` by hand: pieces on wrong
 * squares lifted one by one (random order), then the right ones set down. */
static void undo_frames(builder *bd, const uint8_t target[64])
{
    int sq[64], n = 0;
    for (int s = 0; s < 64; s++) {
        if (bd->cur[s] && bd->cur[s] != target[s]) {
            sq[n++] = s;
        }
    }
    for (int i = n - 1; i > 0; i--) {
        int j = rint_(i + 1), x = sq[i];
        sq[i] = sq[j];
        sq[j] = x;
    }
    for (int i = 0; i < n; i++) {
        lift(bd, sq[i], i ? gap_ms() : rrange(1500, 6000));
    }
    n = 0;
    for (int s = 0; s < 64; s++) {
        if (target[s] && bd->cur[s] != target[s]) {
            sq[n++] = s;
        }
    }
    for (int i = n - 1; i > 0; i--) {
        int j = rint_(i + 1), x = sq[i];
        sq[i] = sq[j];
        sq[j] = x;
    }
    for (int i = 0; i < n; i++) {
        put(bd, sq[i], target[sq[i]], hand_ms());
    }
}

/* A piece other than the one in the air knocked over for a moment, right
 * after the first frame. */
static bool knock_mid(frames *fr)
{
    if (fr->n < 2 || fr->n + 2 > MAX_FRAMES) {
        return false;
    }
    const uint8_t *b = fr->f[0].b;
    for (int tries = 0; tries < 20; tries++) {
        int s = rint_(64);
        if (!b[s] || b[s] != fr->f[1].b[s]) {
            continue;
        }
        memmove(&fr->f[3], &fr->f[1], (size_t)(fr->n - 1) * sizeof fr->f[0]);
        fr->n += 2;
        fr->f[1] = fr->f[0];
        fr->f[1].b[s] = 0;
        fr->f[1].dt = rrange(40, 200);
        fr->f[1].on_purpose = false;
        fr->f[2] = fr->f[0];
        fr->f[2].dt = rrange(40, 250);
        fr->f[2].on_purpose = false;
        fr->f[3].dt = rrange(40, 300);
        return true;
    }
    return false;
}

static bool frames_ok2(const frames *fr, const reach *r, const reach *r2, const uint8_t *prev1,
                       const uint8_t *prev2)
{
    if (!frames_ok(fr, r, prev1, prev2)) {
        return false;
    }
    for (int i = 0; r2 && i + 1 < fr->n; i++) {
        if (confusable(r2, fr->f[i].b, fr->f[i].on_purpose, NULL, NULL)) {
            return false;
        }
    }
    return true;
}

/* Renders one game: every ply counts. */
static void render_game(feedgen *g, const game *gm, reach *r, reach *r2, int gameno)
{
    char san[CR_SAN_MAX];
    int k = 0;
    clock_start(g, CR_WHITE);
    bool fast_prev = false;
    while (k < gm->n) {
        const cr_position *p = &gm->pos[k];
        const uint8_t *prev1 = k >= 1 ? gm->pos[k - 1].board : NULL;
        const uint8_t *prev2 = k >= 2 ? gm->pos[k - 2].board : NULL;
        reach_build(r, p, k >= 1 ? &gm->pos[k - 1] : NULL);
        /* Thinking, with fiddling now and then; in time trouble the reply
         * comes a moment after the press. */
        bool fast = fast_prev;
        int think = fast ? rrange(100, 700) : rrange(1500, 25000);
        int at = rint_(think);
        wait_ms(g, at);
        if (!fast && chance(g->p_adjust)) {
            fiddle(g, p, r, prev1, prev2, false);
        }
        if (!fast && chance(g->p_knock)) {
            fiddle(g, p, r, prev1, prev2, true);
        }
        wait_ms(g, think - at);
        int64_t t0 = g->t;

        /* Two plies lost, where only one pair of plies explains the jump:
         * all their lines, or only the first ply's. */
        if (k + 1 < gm->n && k > 0 && chance(g->p_gap) &&
            two_ply_paths(p, gm->pos[k + 2].board) == 1) {
            bool partial = chance(g->p_gap_partial);
            frames fr;
            int what = -1, what2 = -1;
            if (partial) {
                reach_build(r2, &gm->pos[k + 1], p);
                bool ok = false;
                for (int tries = 0; tries < 12 && !ok; tries++) {
                    render_move(g, &gm->pos[k + 1], gm->moves[k + 1], &fr, &what, &what2);
                    ok = fr.n > 1 && frames_ok2(&fr, r, r2, prev1, prev2);
                }
                partial = ok;
            }
            bool disc = !partial && chance(g->p_gap_disc);
            tag(g, partial ? T_gap_partial : T_gap);
            if (disc) {
                tag(g, T_gap_disconnect);
                line(g, "disconnect");
                g->muted = true;
            }
            wait_ms(g, rrange(1000, 5000));
            clock_press(g);
            wait_ms(g, rrange(2000, 20000));
            if (disc) {
                g->muted = false;
                line(g, "connect");
                g->shown_valid = false;
            }
            if (partial) {
                play_frames(g, &fr);
            } else {
                show(g, gm->pos[k + 2].board);
            }
            wait_ms(g, rrange(200, 1500));
            clock_press(g);
            const char *how = partial ? "gap (second ply's lines only)"
                              : disc  ? "gap+disconnect"
                                      : "gap";
            cr_move_to_san(p, gm->moves[k], san, sizeof san);
            note(g, k, san, how, t0);
            cr_move_to_san(&gm->pos[k + 1], gm->moves[k + 1], san, sizeof san);
            note(g, k + 1, san, how, t0);
            k += 2;
            fast_prev = false;
            continue;
        }

        /* A move played and taken back first (any kind of move, made and
         * undone in any order). */
        char what_text[120] = "";
        if (!fast && chance(g->p_takeback)) {
            cr_movelist l;
            int n = cr_generate_legal(p, &l);
            cr_move a = l.moves[rint_(n)];
            if (n > 1 && a != gm->moves[k]) {
                cr_position pa = *p;
                cr_position_do_move(&pa, a);
                frames fr;
                int wa = -1, wa2 = -1;
                render_move(g, p, a, &fr, &wa, &wa2);
                fr.f[fr.n - 1].on_purpose = true; /* the wrong move */
                int na = fr.n;
                builder bd = {&fr, {0}};
                memcpy(bd.cur, pa.board, 64);
                undo_frames(&bd, p->board);
                /* The last frame is the position before again: allowed. */
                reach_build(r2, &pa, NULL);
                bool ok = frames_ok(&fr, r, prev1, prev2);
                for (int i = 0; i + 1 < fr.n && ok; i++) {
                    /* Seen from the wrong move: no legal reply either. */
                    ok = i == fr.n - 1 || !in_sorted(r2->one, r2->n1, board_hash(fr.f[i].b)) ||
                         memcmp(fr.f[i].b, pa.board, 64) == 0;
                }
                if (ok && fr.n < MAX_FRAMES) {
                    tag(g, T_takeback);
                    if (cr_move_kind(a) != CR_MOVE_NORMAL || p->board[cr_move_to(a)]) {
                        tag(g, T_takeback_special);
                    }
                    frames fa = fr, fu = fr;
                    fa.n = na;
                    fu.n = fr.n - na;
                    memmove(fu.f, fr.f + na, (size_t)fu.n * sizeof fr.f[0]);
                    play_frames(g, &fa);
                    bool pressed = chance(g->p_tb_pressed);
                    if (pressed) {
                        /* The wrong move even confirmed with the clock; the
                         * clock is stopped and restarted for the mover. */
                        tag(g, T_takeback_pressed);
                        wait_ms(g, rrange(200, 1500));
                        clock_press(g);
                    }
                    play_frames(g, &fu);
                    if (pressed) {
                        wait_ms(g, rrange(500, 3000));
                        clock_stop(g);
                        wait_ms(g, rrange(1000, 5000));
                        clock_start(g, p->side);
                    }
                    wait_ms(g, rrange(500, 4000));
                    char sa[CR_SAN_MAX];
                    cr_move_to_san(p, a, sa, sizeof sa);
                    snprintf(what_text, sizeof what_text, "after takeback of %s (%s), ", sa,
                             tag_names[wa]);
                }
            }
        }

        frames fr;
        int what = -1, what2 = -1;
        bool ok = false, kmid = false;
        for (int tries = 0; tries < 12 && !ok; tries++) {
            render_move(g, p, gm->moves[k], &fr, &what, &what2);
            merge_some(&fr, g->p_merge);
            kmid = chance(g->p_knock_mid) && knock_mid(&fr);
            ok = frames_ok(&fr, r, prev1, prev2);
        }
        if (!ok) {
            /* The plainest way: the position after in one line. */
            fr.n = 1;
            fr.f[0].dt = gap_ms();
            memcpy(fr.f[0].b, gm->pos[k + 1].board, 64);
            fr.f[0].on_purpose = false;
            what = T_quiet_direct;
            what2 = -1;
            kmid = false;
        }
        if (memcmp(fr.f[fr.n - 1].b, gm->pos[k + 1].board, 64) != 0) {
            fprintf(stderr, "noisyfeed: %s game %d ply %d: rendering does not end on the move\n",
                    g->id, gameno, k + 1);
            g->failures++;
        }
        bool one_line = fr.n == 1 && what != T_quiet_direct;
        tag(g, what);
        if (what2 >= 0) {
            tag(g, what2);
        }
        if (one_line) {
            tag(g, T_one_line);
        }
        if (kmid) {
            tag(g, T_knock_mid);
        }
        if (fast) {
            tag(g, T_fast);
        }
        if (cr_move_kind(gm->moves[k]) == CR_MOVE_PROMOTION) {
            if (cr_move_promo(gm->moves[k]) != CR_QUEEN) {
                tag(g, T_underpromotion);
            }
        }
        play_frames(g, &fr);
        cr_move_to_san(p, gm->moves[k], san, sizeof san);
        size_t l = strlen(what_text);
        snprintf(what_text + l, sizeof what_text - l, "%s%s%s%s%s (%d lines)", tag_names[what],
                 what2 >= 0 ? "+" : "", what2 >= 0 ? tag_names[what2] : "",
                 kmid ? "+knock_mid" : "", fast ? "+fast" : "", fr.n);
        /* The moved piece straightened before the press, now and then. */
        int dest = -1;
        for (int s = 0; s < 64; s++) {
            if (gm->pos[k + 1].board[s] && gm->pos[k + 1].board[s] != p->board[s]) {
                dest = s;
            }
        }
        if (!fast && dest >= 0 && k + 1 < gm->n && chance(g->p_adjust_after)) {
            reach_build(r2, &gm->pos[k + 1], p);
            uint8_t b[64];
            memcpy(b, gm->pos[k + 1].board, 64);
            b[dest] = 0;
            if (!confusable(r2, b, false, p->board, prev1) &&
                !confusable(r, b, false, NULL, NULL)) {
                tag(g, T_adjust_after);
                wait_ms(g, rrange(100, 800));
                show(g, b);
                wait_ms(g, rrange(150, 900));
                show(g, gm->pos[k + 1].board);
                l = strlen(what_text);
                snprintf(what_text + l, sizeof what_text - l, " +adjust_after");
            }
        }
        note(g, k, san, what_text, t0);
        fast_prev = chance(g->p_fast);
        wait_ms(g, fast_prev ? rrange(50, 300) : rrange(200, 2500));
        if (k + 1 < gm->n || !gm->mate) {
            clock_press(g);
        }
        k++;
    }
    if (gm->mate) {
        tag(g, T_checkmate);
    }
}

/* ------------------------------------------------------------- one feed */

enum { CAT_CLEAN, CAT_ORDERS, CAT_FIDDLE, CAT_SLIDE, CAT_TAKEBACK, CAT_GAP, CAT_ROTATED,
       CAT_MULTI, CAT_FAST, CAT_MIXED, CAT_MULTIBOARD, CAT_NB };
static const char *const cat_names[CAT_NB] = {"clean",   "orders",  "fiddle",    "slide",
                                              "takeback", "missed", "rotated",   "multigame",
                                              "fast",    "mixed",   "multiboard"};

/* Board id and noise of one board of category cat. */
static void board_setup(feedgen *g, int cat, int board_no)
{
    memset(g, 0, sizeof *g);
    g->running = -1;
    g->base[0] = g->base[1] = 90 * 60 * 1000;
    int style = rint_(5);
    int a = rrange(1, 99999), b = rrange(1, 4);
    switch (style) {
    case 0: snprintf(g->id, sizeof g->id, "DGT%05d", a); break;
    case 1: snprintf(g->id, sizeof g->id, "Board_%d", a % 200); break;
    case 2: snprintf(g->id, sizeof g->id, "T%d.%d", a % 60, b); break;
    case 3: snprintf(g->id, sizeof g->id, "EB%07d", a); break;
    default: snprintf(g->id, sizeof g->id, "%d", a % 300); break;
    }
    if (board_no > 0) {
        /* Several boards: ids told apart by a suffix. */
        size_t l = strlen(g->id);
        snprintf(g->id + l, sizeof g->id - l, "-%d", board_no);
    }
    g->p_merge = 0.08;
    switch (cat) {
    case CAT_FIDDLE:
        g->p_adjust = 0.35; g->p_knock = 0.25; g->p_adjust_after = 0.15; g->p_knock_mid = 0.1;
        break;
    case CAT_SLIDE: g->p_slide = 0.45; g->p_slide_slow = 0.3; break;
    case CAT_TAKEBACK: g->p_takeback = 0.12; g->p_tb_pressed = 0.3; break;
    case CAT_GAP: g->p_gap = 0.15; g->p_gap_disc = 0.5; g->p_gap_partial = 0.3; break;
    case CAT_FAST: g->p_fast = 0.4; break;
    case CAT_ROTATED: g->rotated = true; g->p_adjust = 0.05; g->p_slide = 0.05; break;
    case CAT_MIXED:
        g->p_adjust = 0.1; g->p_knock = 0.08; g->p_slide = 0.12; g->p_takeback = 0.04;
        g->p_gap = 0.04; g->p_gap_disc = 0.5; g->rotated = chance(0.3); g->p_merge = 0.15;
        g->p_fast = 0.1; g->p_gap_partial = 0.3; g->p_adjust_after = 0.05; g->p_knock_mid = 0.05;
        g->p_slide_slow = 0.1; g->p_tb_pressed = 0.2;
        break;
    default: break;
    }
    if (g->rotated) {
        tag(g, T_rotated);
    }
}

/* The games of one board, into g->feed / g->notes and exp (lines prefixed
 * with the board id and a tab when prefix). */
static void board_session(feedgen *g, int index, int cat, FILE *exp, bool prefix, int *counted_out,
                          int *plies_out)
{
    int ngames = cat == CAT_MULTI ? rrange(2, 3) : (cat == CAT_MIXED && chance(0.3) ? 2 : 1);
    if (ngames > 1) {
        tag(g, T_multigame);
    }
    reach r, r2;
    memset(&r, 0, sizeof r);
    memset(&r2, 0, sizeof r2);
    uint8_t empty[64] = {0};
    if (chance(0.5)) {
        line(g, "connect");
    }
    int plies = 0, counted = 0;
    uint8_t last[64];
    static game gm;
    for (int gi = 0; gi < ngames; gi++) {
        line(g, "meta White Player %d-%d", index, 2 * gi + 1);
        line(g, "meta Black Player %d-%d", index, 2 * gi + 2);
        if (gi == 0 && chance(0.6)) {
            tag(g, T_setup);
            show(g, empty);
            setup_board(g, empty, start_board(), chance(0.25));
        } else if (gi == 0) {
            show(g, start_board());
        } else {
            setup_board(g, empty, start_board(), chance(0.25));
        }
        wait_ms(g, rrange(500, 3000));
        clock_line(g);
        wait_ms(g, rrange(2000, 60000));
        fprintf(g->notes, "game %d\n", gi + 1);
        play_game(&gm, rrange(20, cat == CAT_CLEAN ? 140 : 100));
        render_game(g, &gm, &r, &r2, gi + 1);
        plies += gm.n;
        if (gm.n > 0) {
            char san[CR_SAN_MAX];
            for (int i = 0; i < gm.n; i++) {
                cr_move_to_san(&gm.pos[i], gm.moves[i], san, sizeof san);
                fprintf(exp, "%s%s%s", i ? " " : "", !i && prefix ? g->id : "", !i && prefix ? "\t" : "");
                fprintf(exp, "%s", san);
            }
            fputc('\n', exp);
            counted++;
        }
        /* The end: clock stopped; the loser's king laid down, or the kings
         * set in the centre for a result, or nothing-> */
        const cr_position *fin = &gm.pos[gm.n];
        memcpy(last, fin->board, 64);
        wait_ms(g, rrange(300, 3000));
        clock_stop(g);
        wait_ms(g, rrange(1000, 8000));
        int end = rint_(3);
        if (end == 1) {
            int loser = gm.mate ? fin->side : rint_(2);
            int ks = -1;
            for (int s = 0; s < 64; s++) {
                if (fin->board[s] == cr_make_piece(loser, CR_KING)) {
                    ks = s;
                }
            }
            last[ks] = 0;
            tag(g, T_king_tip);
            show(g, last);
            fprintf(g->notes, "end\tking tip\t%lld\n", (long long)g->t);
        } else if (end == 2 && !gm.mate) {
            /* Kings in the centre: light squares 1-0, dark 0-1, mixed draw.
             * The king of the side not to move first: its trip is never a
             * legal move. */
            static const int sq_sets[3][2] = {{CR_SQ_E4, CR_SQ_D5}, {CR_SQ_D4, CR_SQ_E5},
                                              {CR_SQ_E4, CR_SQ_E5}};
            const int *set = sq_sets[rint_(3)];
            int first = fin->side ^ 1;
            int ksq[2] = {-1, -1};
            for (int s = 0; s < 64; s++) {
                if (cr_type_of(fin->board[s]) == CR_KING && fin->board[s]) {
                    ksq[cr_color_of(fin->board[s])] = s;
                }
            }
            int dst[2] = {set[0], set[1]};
            if (chance(0.5)) {
                dst[0] = set[1];
                dst[1] = set[0];
            }
            bool free_sq = (!fin->board[dst[0]] || dst[0] == ksq[0]) &&
                           (!fin->board[dst[1]] || dst[1] == ksq[1]);
            if (free_sq) {
                reach_build(&r, fin, gm.n >= 1 ? &gm.pos[gm.n - 1] : NULL);
                bool ok = true;
                frames fr;
                builder bd = {&fr, {0}};
                fr.n = 0;
                memcpy(bd.cur, fin->board, 64);
                for (int i = 0; i < 2; i++) {
                    int c = i == 0 ? first : first ^ 1;
                    lift(&bd, ksq[c], gap_ms());
                    put(&bd, dst[c], cr_make_piece(c, CR_KING), hand_ms());
                }
                for (int i = 0; i + 1 < fr.n && ok; i++) {
                    ok = !in_sorted(r.one, r.n1, board_hash(fr.f[i].b)) &&
                         !in_sorted(r.two, r.n2, board_hash(fr.f[i].b)) &&
                         !kings_signal(fr.f[i].b);
                }
                if (ok && kings_signal(fr.f[fr.n - 1].b)) {
                    tag(g, T_kings_centre);
                    play_frames(g, &fr);
                    memcpy(last, fr.f[fr.n - 1].b, 64);
                    fprintf(g->notes, "end\tkings on %c%d %c%d\t%lld\n", 'a' + (dst[0] & 7),
                            1 + (dst[0] >> 3), 'a' + (dst[1] & 7), 1 + (dst[1] >> 3),
                            (long long)g->t);
                }
            }
        }
        if (gi + 1 < ngames) {
            wait_ms(g, rrange(5000, 30000));
            sweep(g, last);
            memset(last, 0, 64);
            wait_ms(g, rrange(3000, 20000));
        }
    }
    if (ngames > 1 && chance(0.3)) {
        /* The board set up again, no further moves. */
        wait_ms(g, rrange(5000, 20000));
        sweep(g, last);
        setup_board(g, empty, start_board(), false);
        tag(g, T_reset_end);
    }
    free(r.two);
    free(r2.two);
    *counted_out = counted;
    *plies_out = plies;
}

typedef struct linebuf {
    char *data;
    size_t len, at;
} linebuf;

/* Time of the line at lb->at, or -1 at the end. */
static long long next_time(const linebuf *lb)
{
    return lb->at < lb->len ? strtoll(lb->data + lb->at, NULL, 10) : -1;
}

static int make_feed(const char *dir, int index, uint64_t seed, FILE *tsv)
{
    rng_state = seed;
    int cat = index % CAT_NB;
    char name[64], path[1024];
    snprintf(name, sizeof name, "n%03d", index);
    snprintf(path, sizeof path, "%s/%s.feed", dir, name);
    FILE *feed = fopen(path, "w");
    snprintf(path, sizeof path, "%s/%s.notes", dir, name);
    FILE *notes = fopen(path, "w");
    snprintf(path, sizeof path, "%s/%s.expected", dir, name);
    FILE *exp = fopen(path, "w");
    if (!feed || !notes || !exp) {
        fprintf(stderr, "noisyfeed: %s: %s\n", path, strerror(errno));
        exit(2);
    }
    fprintf(feed, "# noisyfeed %s seed %llu category %s\n", name, (unsigned long long)seed,
            cat_names[cat]);
    bool tags[T_NB] = {0};
    int failures = 0, counted = 0, plies = 0;
    char ids[400] = "";
    if (cat != CAT_MULTIBOARD) {
        feedgen g;
        board_setup(&g, cat, 0);
        g.feed = feed;
        g.notes = notes;
        board_session(&g, index, cat, exp, false, &counted, &plies);
        memcpy(tags, g.tags, sizeof tags);
        failures = g.failures;
        snprintf(ids, sizeof ids, "%s", g.id);
    } else {
        /* Several boards at once, each with its own noise, merged by time. */
        enum { MAXB = 6 };
        int nb = rrange(3, MAXB);
        linebuf lb[MAXB];
        for (int i = 0; i < nb; i++) {
            feedgen g;
            static const int kinds[] = {CAT_CLEAN, CAT_ORDERS, CAT_FIDDLE, CAT_SLIDE, CAT_TAKEBACK,
                                        CAT_GAP, CAT_ROTATED, CAT_MULTI, CAT_FAST, CAT_MIXED};
            int kind = kinds[rint_((int)(sizeof kinds / sizeof kinds[0]))];
            board_setup(&g, kind, i + 1);
            lb[i].data = NULL;
            lb[i].len = lb[i].at = 0;
            g.feed = open_memstream(&lb[i].data, &lb[i].len);
            g.notes = notes;
            if (!g.feed) {
                fprintf(stderr, "noisyfeed: out of memory\n");
                exit(2);
            }
            fprintf(notes, "board %s (%s)\n", g.id, cat_names[kind]);
            int c = 0, pl = 0;
            board_session(&g, index * 10 + i, kind, exp, true, &c, &pl);
            fclose(g.feed);
            counted += c;
            plies += pl;
            failures += g.failures;
            for (int t = 0; t < T_NB; t++) {
                tags[t] |= g.tags[t];
            }
            size_t l = strlen(ids);
            snprintf(ids + l, sizeof ids - l, "%s%s", i ? " " : "", g.id);
        }
        tags[T_multiboard] = true;
        for (;;) {
            int best = -1;
            for (int i = 0; i < nb; i++) {
                long long t = next_time(&lb[i]);
                if (t >= 0 && (best < 0 || t < next_time(&lb[best]))) {
                    best = i;
                }
            }
            if (best < 0) {
                break;
            }
            const char *s = lb[best].data + lb[best].at;
            const char *e = memchr(s, '\n', lb[best].len - lb[best].at);
            size_t n = e ? (size_t)(e - s) + 1 : lb[best].len - lb[best].at;
            fwrite(s, 1, n, feed);
            lb[best].at += n;
        }
        for (int i = 0; i < nb; i++) {
            free(lb[i].data);
        }
    }
    fclose(feed);
    fclose(notes);
    fclose(exp);

    fprintf(tsv, "%s\t%s\t%s\t%d\t%d\t", name, cat_names[cat], ids, counted, plies);
    bool first = true;
    for (int t = 0; t < T_NB; t++) {
        if (tags[t]) {
            fprintf(tsv, "%s%s", first ? "" : ",", tag_names[t]);
            first = false;
        }
    }
    fputc('\n', tsv);
    return failures;
}

/* Reads the feed back with the core's reader and replays the expected SAN. */
static int check_feed(const char *dir, int index)
{
    char path[1024];
    int bad = 0;
    snprintf(path, sizeof path, "%s/n%03d.feed", dir, index);
    FILE *f = fopen(path, "r");
    if (!f) {
        return 1;
    }
    cr_feed_reader *rd = cr_feed_reader_new(f, path);
    cr_feed_event ev;
    cr_error err;
    int rc;
    while ((rc = cr_feed_reader_next(rd, &ev, &err)) != 0) {
        if (rc < 0) {
            fprintf(stderr, "noisyfeed: check: %s\n", err.text);
            bad++;
        }
    }
    cr_feed_reader_free(rd);
    fclose(f);
    snprintf(path, sizeof path, "%s/n%03d.expected", dir, index);
    f = fopen(path, "r");
    if (!f) {
        return 1;
    }
    char buf[8192];
    while (fgets(buf, sizeof buf, f)) {
        cr_position pos;
        cr_position_init_start(&pos);
        char *moves = strchr(buf, '\t'); /* several boards: "id<TAB>moves" */
        moves = moves ? moves + 1 : buf;
        for (char *tok = strtok(moves, " \n"); tok; tok = strtok(NULL, " \n")) {
            cr_move m = cr_move_from_text(&pos, tok, 0, NULL, &err);
            char san[CR_SAN_MAX];
            if (m == CR_MOVE_NONE || cr_move_to_san(&pos, m, san, sizeof san) < 0 ||
                strcmp(san, tok) != 0) {
                fprintf(stderr, "noisyfeed: check: %s: %s does not replay\n", path, tok);
                bad++;
                break;
            }
            cr_position_do_move(&pos, m);
        }
    }
    fclose(f);
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: noisyfeed OUTDIR [COUNT [SEED]]\n");
        return 2;
    }
    const char *dir = argv[1];
    int count = argc > 2 ? atoi(argv[2]) : 300;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 20261129;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "noisyfeed: %s: %s\n", dir, strerror(errno));
        return 2;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/index.tsv", dir);
    FILE *tsv = fopen(path, "w");
    if (!tsv) {
        fprintf(stderr, "noisyfeed: %s: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(tsv, "# feed\tcategory\tboard\tgames\tplies\ttags\n");
    int failures = 0;
    for (int i = 0; i < count; i++) {
        failures += make_feed(dir, i, seed * 1000003ULL + (uint64_t)i, tsv);
        failures += check_feed(dir, i);
    }
    fclose(tsv);
    if (failures) {
        fprintf(stderr, "noisyfeed: %d self-check failures\n", failures);
        return 1;
    }
    printf("noisyfeed: %d feeds in %s\n", count, dir);
    return 0;
}
