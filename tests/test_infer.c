/* Move inference: hands on a simulated board (lifts, placements, captures in
 * either order, castling three ways, en passant, promotions, slides,
 * take-backs, missed snapshots, a board turned round, new games, the kings
 * signal, illegal moves that stood, hostile input) and the events that come
 * out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "cr/infer.h"
#include "cr/notation.h"

#define MAX_EV 512

typedef struct rec_ev {
    cr_infer_kind kind;
    int ply, retracted, game_number;
    cr_result result;
    cr_bb squares;
    char san[16];
    char reason[80];
    int64_t t, t_snapshot;
    uint32_t flags;
    uint16_t fits;
} rec_ev;

typedef struct sim {
    cr_infer *inf;
    uint8_t b[CR_SQ_NB];
    int64_t t;
    bool rotated;
    rec_ev ev[MAX_EV];
    int n;
} sim;

static void on_event(void *data, const cr_infer_event *ev)
{
    sim *s = data;
    if (ev->kind == CR_INFER_CLOCK || ev->kind == CR_INFER_META || s->n >= MAX_EV) {
        return;
    }
    rec_ev *r = &s->ev[s->n++];
    memset(r, 0, sizeof *r);
    r->kind = ev->kind;
    r->ply = ev->ply;
    r->retracted = ev->retracted;
    r->game_number = ev->game_number;
    r->result = ev->result;
    r->squares = ev->squares;
    r->t = ev->t;
    r->t_snapshot = ev->t_snapshot;
    if (ev->reason) {
        snprintf(r->reason, sizeof r->reason, "%s", ev->reason);
    }
    if (ev->kind == CR_INFER_MOVE) {
        const cr_ply *p = cr_game_ply(ev->game, ev->ply);
        snprintf(r->san, sizeof r->san, "%s", p->san);
        r->flags = p->flags;
        r->fits = p->fits;
    }
}

static sim *sim_new(bool rotated)
{
    sim *s = calloc(1, sizeof *s);
    assert_non_null(s);
    s->inf = cr_infer_new("T1", NULL, on_event, s);
    assert_non_null(s->inf);
    s->rotated = rotated;
    return s;
}

static void sim_free(sim *s)
{
    cr_infer_free(s->inf);
    free(s);
}

static void show(sim *s, int dt)
{
    s->t += dt;
    cr_feed_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t = s->t;
    snprintf(ev.board, sizeof ev.board, "T1");
    ev.kind = CR_FEED_POS;
    for (int i = 0; i < CR_SQ_NB; i++) {
        ev.u.squares[i] = s->b[s->rotated ? 63 - i : i];
    }
    assert_int_equal(cr_infer_feed(s->inf, &ev), 0);
}

static void set_fen(sim *s, const char *fen, int dt)
{
    cr_position p;
    assert_int_equal(cr_position_from_fen(&p, fen, NULL), 0);
    memcpy(s->b, p.board, CR_SQ_NB);
    show(s, dt);
}

static void meta(sim *s, const char *key, const char *value);

/* A set-up position: announced with meta FEN, then shown. */
static void setup(sim *s, const char *fen)
{
    meta(s, "FEN", fen);
    set_fen(s, fen, 1000);
}

static void start(sim *s) { set_fen(s, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 1000); }

static int sq(const char *name) { return cr_square_parse(name); }

static void lift(sim *s, const char *a, int dt)
{
    s->b[sq(a)] = CR_NO_PIECE;
    show(s, dt);
}

static void put(sim *s, const char *a, int piece, int dt)
{
    s->b[sq(a)] = (uint8_t)piece;
    show(s, dt);
}

/* Lift and place as two snapshots. */
static void move(sim *s, const char *a, const char *b)
{
    int p = s->b[sq(a)];
    lift(s, a, 2000);
    put(s, b, p, 400);
}

static void clock_ev(sim *s, int dt, int running)
{
    s->t += dt;
    cr_feed_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t = s->t;
    snprintf(ev.board, sizeof ev.board, "T1");
    ev.kind = CR_FEED_CLOCK;
    ev.u.clock.white_ms = 5400000 - (int32_t)s->t / 10;
    ev.u.clock.black_ms = 5300000 - (int32_t)s->t / 20;
    ev.u.clock.running = running;
    assert_int_equal(cr_infer_feed(s->inf, &ev), 0);
}

static void meta(sim *s, const char *key, const char *value)
{
    cr_feed_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t = s->t;
    snprintf(ev.board, sizeof ev.board, "T1");
    ev.kind = CR_FEED_META;
    ev.u.meta.key = key;
    ev.u.meta.value = value;
    assert_int_equal(cr_infer_feed(s->inf, &ev), 0);
}

static void finish(sim *s) { cr_infer_finish(s->inf, s->t + 10000); }
static void tick(sim *s, int dt)
{
    s->t += dt;
    cr_infer_tick(s->inf, s->t);
}

/* The game's moves as one SAN string. */
static void moves_of(const sim *s, char *buf, size_t size)
{
    const cr_game *g = cr_infer_game(s->inf);
    buf[0] = '\0';
    size_t n = 0;
    for (int i = 0; g && i < cr_game_ply_count(g); i++) {
        n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? " " : "", cr_game_ply(g, i)->san);
    }
}

static void assert_moves(const sim *s, const char *want)
{
    char got[2048];
    moves_of(s, got, sizeof got);
    if (strcmp(got, want) != 0) {
        fail_msg("moves '%s', wanted '%s'", got, want);
    }
}

static int count(const sim *s, cr_infer_kind k)
{
    int n = 0;
    for (int i = 0; i < s->n; i++) {
        n += s->ev[i].kind == k;
    }
    return n;
}

static const rec_ev *last_of(const sim *s, cr_infer_kind k)
{
    for (int i = s->n - 1; i >= 0; i--) {
        if (s->ev[i].kind == k) {
            return &s->ev[i];
        }
    }
    return NULL;
}

static void test_simple_moves_and_clock(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    assert_int_equal(count(s, CR_INFER_GAME_STARTED), 1);
    clock_ev(s, 10, CR_WHITE);
    move(s, "e2", "e4");
    clock_ev(s, 200, CR_BLACK); /* pressed before the settle time: final now */
    const rec_ev *m = last_of(s, CR_INFER_MOVE);
    assert_non_null(m);
    assert_string_equal(m->san, "e4");
    assert_int_equal(m->t - m->t_snapshot, 200);
    /* clock of e4: White's time at the press; time used: from the clock's
     * start for White (10 ms after the start position) to the press, in
     * whole seconds (2.6 s) */
    const cr_ply *p = cr_game_ply(cr_infer_game(s->inf), 0);
    assert_int_equal(p->clock_ms, 5400000 - (int32_t)s->t / 10);
    assert_int_equal(p->emt_ms, 3000);
    /* The press came after the MOVE went out: it says which ply it timed. */
    const rec_ev *pc = last_of(s, CR_INFER_PLY_CLOCK);
    assert_non_null(pc);
    assert_int_equal(pc->ply, 0);
    assert_int_equal(pc->t, s->t);
    move(s, "e7", "e5");
    move(s, "g1", "f3"); /* e5 settles on this lift (no clock) */
    finish(s);
    assert_moves(s, "e4 e5 Nf3");
    /* No press after e5: no clock, no time used. */
    assert_int_equal(cr_game_ply(cr_infer_game(s->inf), 1)->emt_ms, CR_CLOCK_UNKNOWN);
    assert_int_equal(count(s, CR_INFER_CORRECTION), 0);
    assert_int_equal(count(s, CR_INFER_ATTENTION), 0);
    m = last_of(s, CR_INFER_MOVE);
    assert_int_equal(m->flags & CR_PLY_RECONSTRUCTED, 0);
    assert_int_equal(m->fits, 1);
    sim_free(s);
}

static void test_captures(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    move(s, "d7", "d5");
    /* exd5, victim first */
    lift(s, "d5", 1500);
    lift(s, "e4", 300);
    put(s, "d5", CR_WP, 300);
    /* Qxd5, mover first */
    lift(s, "d8", 2000);
    lift(s, "d5", 300);
    put(s, "d5", CR_BQ, 300);
    /* Nc3, then Qxg2 with the pawn parked on h3 first */
    move(s, "b1", "c3");
    lift(s, "g2", 2000);
    put(s, "h3", CR_WP, 300);
    lift(s, "d5", 300);
    put(s, "g2", CR_BQ, 300);
    lift(s, "h3", 600);
    finish(s);
    assert_moves(s, "e4 d5 exd5 Qxd5 Nc3 Qxg2");
    assert_int_equal(count(s, CR_INFER_CORRECTION), 0);
    sim_free(s);
}

static void test_castling(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    setup(s, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    assert_int_equal(count(s, CR_INFER_GAME_STARTED), 1);
    /* rook first: Rf1 stands a second, then the king: castling, never Rf1 */
    lift(s, "h1", 2000);
    put(s, "f1", CR_WR, 300);
    lift(s, "e1", 1000);
    put(s, "g1", CR_WK, 300);
    /* king first */
    lift(s, "e8", 2000);
    put(s, "c8", CR_BK, 300);
    lift(s, "a8", 300);
    put(s, "d8", CR_BR, 300);
    finish(s);
    assert_moves(s, "O-O O-O-O");
    assert_int_equal(count(s, CR_INFER_CORRECTION), 0);
    sim_free(s);

    /* both lifted, then set down */
    s = sim_new(false);
    setup(s, "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1");
    s->b[sq("e1")] = 0;
    lift(s, "a1", 2000);
    put(s, "c1", CR_WK, 300);
    put(s, "d1", CR_WR, 300);
    finish(s);
    assert_moves(s, "O-O-O");
    sim_free(s);
}

static void test_en_passant(void **state)
{
    (void)state;
    for (int order = 0; order < 2; order++) {
        sim *s = sim_new(false);
        setup(s, "4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1");
        move(s, "d7", "d5");
        if (order == 0) {
            lift(s, "d5", 2000); /* taken pawn first */
            lift(s, "e5", 300);
            put(s, "d6", CR_WP, 300);
        } else {
            lift(s, "e5", 2000);
            put(s, "d6", CR_WP, 300);
            lift(s, "d5", 300);
        }
        finish(s);
        assert_moves(s, "d5 exd6");
        assert_int_equal(count(s, CR_INFER_CORRECTION), 0);
        sim_free(s);
    }
}

static void test_promotions(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    setup(s, "3r3k/2P5/8/8/8/8/8/4K3 w - - 0 1");
    clock_ev(s, 10, CR_WHITE);
    /* the pawn set on c8 first, the clock pressed: not a move yet */
    lift(s, "c7", 2000);
    put(s, "c8", CR_WP, 300);
    clock_ev(s, 500, CR_BLACK);
    clock_ev(s, 2000, CR_BLACK);
    assert_int_equal(count(s, CR_INFER_MOVE), 0);
    lift(s, "c8", 3000);
    put(s, "c8", CR_WN, 300); /* under-promotion */
    finish(s);
    assert_moves(s, "c8=N");
    /* the press before the knight came still gives the ply its clock */
    assert_int_not_equal(cr_game_ply(cr_infer_game(s->inf), 0)->clock_ms, CR_CLOCK_UNKNOWN);
    sim_free(s);

    s = sim_new(false);
    setup(s, "3r3k/2P5/8/8/8/8/8/4K3 w - - 0 1");
    /* capture-promotion, the new piece placed directly */
    lift(s, "d8", 2000);
    lift(s, "c7", 300);
    put(s, "d8", CR_WQ, 300);
    finish(s);
    assert_moves(s, "cxd8=Q+");
    sim_free(s);
}

static void test_slides(void **state)
{
    (void)state;
    /* slid over a square it could reach, briefly: never emitted */
    sim *s = sim_new(false);
    start(s);
    lift(s, "g1", 2000);
    put(s, "h3", CR_WN, 300);
    lift(s, "h3", 150);
    put(s, "f3", CR_WN, 100);
    finish(s);
    assert_moves(s, "Nf3");
    assert_int_equal(count(s, CR_INFER_CORRECTION), 0);
    sim_free(s);

    /* it stood longer than the settle time: emitted, then corrected */
    s = sim_new(false);
    start(s);
    lift(s, "g1", 2000);
    put(s, "h3", CR_WN, 300);
    lift(s, "h3", 800);
    put(s, "f3", CR_WN, 200);
    finish(s);
    assert_moves(s, "Nf3");
    const rec_ev *c = last_of(s, CR_INFER_CORRECTION);
    assert_non_null(c);
    assert_int_equal(c->ply, 0);
    assert_int_equal(c->retracted, 1);
    assert_string_equal(c->reason, "replaced");
    sim_free(s);
}

static void test_takeback(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    move(s, "e7", "e5");
    move(s, "g1", "f3");
    /* a second later the knight goes back, and another move is played */
    move(s, "f3", "g1");
    move(s, "f1", "c4");
    finish(s);
    assert_moves(s, "e4 e5 Bc4");
    const rec_ev *c = last_of(s, CR_INFER_CORRECTION);
    assert_non_null(c);
    assert_int_equal(c->ply, 2);
    assert_int_equal(c->retracted, 1);
    sim_free(s);
}

static void test_gap(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    move(s, "e7", "e5");
    /* two plies between two snapshots: Nf3 Nc6 */
    s->b[sq("g1")] = 0;
    s->b[sq("f3")] = CR_WN;
    s->b[sq("b8")] = 0;
    s->b[sq("c6")] = CR_BN;
    show(s, 60000);
    clock_ev(s, 2000, CR_WHITE);
    finish(s);
    assert_moves(s, "e4 e5 Nf3 Nc6");
    const cr_game *g = cr_infer_game(s->inf);
    assert_true(cr_game_ply(g, 2)->flags & CR_PLY_RECONSTRUCTED);
    assert_true(cr_game_ply(g, 3)->flags & CR_PLY_RECONSTRUCTED);
    assert_int_equal(cr_game_ply(g, 3)->fits, 1);
    assert_false(cr_game_ply(g, 1)->flags & CR_PLY_RECONSTRUCTED);
    sim_free(s);
}

static void test_ambiguous_gap(void **state)
{
    (void)state;
    /* Ra1-a3 and Rh1-h3 around a black move: two orders fit */
    sim *s = sim_new(false);
    setup(s, "4k3/8/8/8/8/8/8/R3K2R w - - 0 1");
    s->b[sq("a1")] = 0;
    s->b[sq("a3")] = CR_WR;
    s->b[sq("h1")] = 0;
    s->b[sq("h3")] = CR_WR;
    s->b[sq("e8")] = 0;
    s->b[sq("d8")] = CR_BK;
    show(s, 30000);
    finish(s);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 3);
    for (int i = 0; i < 3; i++) {
        assert_true(cr_game_ply(g, i)->flags & CR_PLY_AMBIGUOUS);
        assert_true(cr_game_ply(g, i)->flags & CR_PLY_RECONSTRUCTED);
        assert_true(cr_game_ply(g, i)->fits >= 2);
    }
    assert_non_null(last_of(s, CR_INFER_ATTENTION));
    sim_free(s);
}

/* Issue 15, a board turned round late in a long game read Qd5+ for Qd7+:
 * a check the board showed and the clock confirmed, then readings missed
 * while the checked side blocked, the rook went back down its file and the
 * blocker returned (Rg8+ Bf8 Rg2 Bc5). The picture is one rook move from
 * the position before the check, so undoing the check for Rg2 explains it
 * with a single move; but Black pressed the clock since, so Black moved:
 * the check stays, the rest is searched for (and the arbiter told). */
static void test_confirmed_check_kept_when_the_other_side_pressed(void **state)
{
    (void)state;
    for (int rot = 0; rot < 2; rot++) {
        sim *s = sim_new(rot);
        setup(s, "r2k4/3r1n2/b1p4B/ppbN1P2/3Pp3/7P/P1P5/3K2R1 w - - 1 43");
        clock_ev(s, 500, CR_WHITE);
        move(s, "g1", "g8");
        clock_ev(s, 1000, CR_BLACK); /* White pressed after Rg8+ */
        tick(s, 2000);
        assert_moves(s, "Rg8+");
        /* unseen: Bf8 Rg2 Bc5 */
        s->b[sq("g8")] = 0;
        s->b[sq("g2")] = CR_WR;
        show(s, 60000);
        clock_ev(s, 1000, CR_WHITE); /* Black pressed: Black moved */
        tick(s, 20000);
        const cr_game *g = cr_infer_game(s->inf);
        assert_string_equal(cr_game_ply(g, 0)->san, "Rg8+");
        for (int i = 0; i < s->n; i++) {
            assert_false(s->ev[i].kind == CR_INFER_CORRECTION);
        }
        sim_free(s);
    }
}

/* The other way: White's piece set down again after White's own press
 * (the clock runs for Black, as after the corrected move) is corrected. */
static void test_adjusted_after_press_corrected(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    setup(s, "r2k4/3r1n2/b1p4B/ppbN1P2/3Pp3/7P/P1P5/3K2R1 w - - 1 43");
    clock_ev(s, 500, CR_WHITE);
    move(s, "g1", "g8");
    clock_ev(s, 1000, CR_BLACK);
    tick(s, 2000);
    s->b[sq("g8")] = 0;
    s->b[sq("g2")] = CR_WR;
    show(s, 3000);
    clock_ev(s, 1000, CR_BLACK); /* a reading, no press: Black still to move */
    tick(s, 20000);
    assert_moves(s, "Rg2");
    sim_free(s);
}

/* Plays SAN moves on the simulated board (from the game's position). */
static void play_unseen(sim *s, cr_position *p, const char *sans)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", sans);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        cr_move m = cr_move_from_text(p, tok, CR_LANG_EN, NULL, NULL);
        assert_int_not_equal(m, CR_MOVE_NONE);
        cr_position_do_move(p, m);
    }
    memcpy(s->b, p->board, CR_SQ_NB);
}

static void link_ev(sim *s, cr_feed_kind kind, int dt)
{
    s->t += dt;
    cr_feed_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t = s->t;
    snprintf(ev.board, sizeof ev.board, "T1");
    ev.kind = kind;
    assert_int_equal(cr_infer_feed(s->inf, &ev), 0);
}

/* The link goes quiet, six plies are played, the board answers again
 * several plies ahead: the game resumes at once, the gap's plies marked. */
static void test_silent_gap_recovers(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    move(s, "e7", "e5");
    clock_ev(s, 500, CR_WHITE);
    cr_position p;
    cr_position_from_fen(&p, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", NULL);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "Nf3 Nc6 Bc4 Bc5 O-O Nf6");
    link_ev(s, CR_FEED_CONNECT, 60000);
    show(s, 0);
    clock_ev(s, 100, CR_WHITE);
    tick(s, 1000);
    /* held until the board has stood (a press would confirm it at once) */
    assert_int_equal(cr_game_ply_count(cr_infer_game(s->inf)), 2);
    tick(s, 5000);
    const cr_game *g = cr_infer_game(s->inf);
    /* 12 orders fit (one piece move each, in any order that is legal) */
    assert_int_equal(cr_game_ply_count(g), 8);
    assert_int_equal(cr_game_ply(g, 7)->fits, 12);
    assert_memory_equal(cr_game_position(g)->board, p.board, CR_SQ_NB);
    move(s, "c2", "c3");
    finish(s);
    g = cr_infer_game(s->inf);
    assert_string_equal(cr_game_ply(g, 8)->san, "c3");
    for (int i = 0; i < 9; i++) {
        bool guessed = i >= 2 && i < 8;
        assert_int_equal(!!(cr_game_ply(g, i)->flags & CR_PLY_RECONSTRUCTED), guessed);
    }
    /* the one ATTENTION says the order is not known; nothing was unreachable */
    assert_int_equal(count(s, CR_INFER_ATTENTION), 1);
    assert_true(strncmp(last_of(s, CR_INFER_ATTENTION)->reason, "ambiguous", 9) == 0);
    sim_free(s);
}

/* No disconnect on record: the board stands unreachable (ATTENTION), and
 * once it does, the deep search from the last certain position finds the
 * five plies; the next picture goes on from there. */
static void test_lost_board_recovers(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "d2", "d4");
    cr_position p;
    cr_position_from_fen(&p, "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1", NULL);
    play_unseen(s, &p, "e5 dxe5 d6 exd6 Qxd6");
    show(s, 2000);
    tick(s, 6000);
    assert_non_null(last_of(s, CR_INFER_ATTENTION));
    move(s, "c1", "f4");
    finish(s);
    /* d6 exd6 or d5 exd6 e.p.: both fit */
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 7);
    assert_string_equal(cr_game_ply(g, 5)->san, "Qxd6");
    assert_string_equal(cr_game_ply(g, 6)->san, "Bf4");
    assert_int_equal(cr_game_ply(g, 3)->fits, 2);
    assert_true(cr_game_ply(g, 3)->flags & CR_PLY_RECONSTRUCTED);
    assert_false(cr_game_ply(g, 6)->flags & CR_PLY_RECONSTRUCTED);
    sim_free(s);
}

/* Ambiguous orders: the other sequences that fit are named on the first
 * guessed ply; the plies the board showed carry no mark. */
static void test_ambiguous_alternatives_named(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    cr_position p;
    cr_position_init_start(&p);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "Nf3 Nc6 Nc3 Nf6");
    link_ev(s, CR_FEED_CONNECT, 30000);
    show(s, 0);
    tick(s, 6000);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 4);
    for (int i = 0; i < 4; i++) {
        assert_true(cr_game_ply(g, i)->flags & CR_PLY_AMBIGUOUS);
        assert_int_equal(cr_game_ply(g, i)->fits, 4);
    }
    const char *c = cr_game_comment(g, 0);
    assert_non_null(c);
    assert_true(strncmp(c, "also ", 5) == 0);
    assert_non_null(strstr(c, " or "));
    move(s, "e2", "e4");
    finish(s);
    assert_false(cr_game_ply(cr_infer_game(s->inf), 4)->flags & (CR_PLY_RECONSTRUCTED | CR_PLY_AMBIGUOUS));
    sim_free(s);
}

/* Too far to follow (a whole opening missed): the arbiter accepts the
 * board; one ply records the missing stretch, nothing is invented, and the
 * game goes on from the board's position. */
static void test_accept_board(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    tick(s, 1000);
    assert_int_equal(cr_infer_accept_board(s->inf, -1, s->t), 0); /* in sync: nothing */
    assert_int_equal(cr_game_ply_count(cr_infer_game(s->inf)), 1);
    /* the arbiter set the pieces up anew: the e-pawn stands on e2 again,
     * which no move of a game does, so the engine itself never goes on */
    cr_position p;
    cr_position_from_fen(&p, "rnbqkb1r/pp1ppppp/5n2/2p5/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq - 0 4", NULL);
    memcpy(s->b, p.board, CR_SQ_NB);
    show(s, 2000);
    tick(s, 8000);
    const rec_ev *a = last_of(s, CR_INFER_ATTENTION);
    assert_non_null(a);
    assert_true(a->squares & (1ull << sq("e2")));
    tick(s, 60000);
    assert_int_equal(cr_game_ply_count(cr_infer_game(s->inf)), 1);
    clock_ev(s, 100, CR_WHITE);
    assert_int_equal(cr_infer_accept_board(s->inf, -1, s->t), 0);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 2);
    const cr_ply *pl = cr_game_ply(g, 1);
    assert_int_equal(pl->flags & (CR_PLY_ILLEGAL | CR_PLY_MISSING), CR_PLY_ILLEGAL | CR_PLY_MISSING);
    assert_int_equal(pl->after.side, CR_WHITE);
    assert_memory_equal(pl->after.board, p.board, CR_SQ_NB);
    assert_int_equal(pl->after.castle_rook[CR_WHITE][CR_CASTLE_KING_SIDE], CR_SQ_H1);
    assert_non_null(last_of(s, CR_INFER_RESYNCED));
    assert_int_equal(pl->missing, 0); /* no game reaches it: not counted */
    move(s, "f3", "d4");
    finish(s);
    g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 3);
    assert_string_equal(cr_game_ply(g, 2)->san, "Nd4");
    /* No board that is a position: refused. */
    sim *t = sim_new(false);
    assert_int_equal(cr_infer_accept_board(t->inf, CR_WHITE, 0), CR_EINVAL);
    sim_free(t);
    sim_free(s);
}

/* A silence longer than the search bridges (a whole opening missed
 * behind a disconnect): once the board stands attention_ms, the game goes
 * on from it. One ply records the gap with the fewest plies that lead
 * there; nothing is invented and the moves after it are followed. */
static void test_silence_gap(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    clock_ev(s, 300, CR_BLACK);
    cr_position p;
    cr_position_from_fen(&p, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", NULL);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5");
    link_ev(s, CR_FEED_CONNECT, 60000);
    show(s, 0);
    clock_ev(s, 100, CR_WHITE);
    tick(s, 2000);
    assert_int_equal(cr_game_ply_count(cr_infer_game(s->inf)), 1); /* not before it stood */
    tick(s, 4000);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 2);
    const cr_ply *gp = cr_game_ply(g, 1);
    assert_int_equal(gp->flags & (CR_PLY_ILLEGAL | CR_PLY_MISSING), CR_PLY_ILLEGAL | CR_PLY_MISSING);
    assert_string_equal(gp->san, "--");
    assert_memory_equal(gp->after.board, p.board, CR_SQ_NB);
    assert_int_equal(gp->after.side, CR_WHITE); /* the clock runs for White */
    /* at least: e5, a6, d6, Nf6 and cxd4 by Black, Nf3 Nxd4 Nc3 Be3 by
     * White: 9 moves, odd, so 9 (11 were played) */
    assert_true(gp->missing >= 5 && gp->missing <= 11 && gp->missing % 2 == 1);
    assert_int_equal(gp->after.fullmove, 1 + (gp->missing + 1) / 2);
    assert_int_equal(count(s, CR_INFER_ATTENTION), 0); /* gone on before anyone was called */
    move(s, "d4", "b3");
    move(s, "c8", "e6");
    finish(s);
    g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 4);
    assert_string_equal(cr_game_ply(g, 2)->san, "Nb3");
    assert_string_equal(cr_game_ply(g, 3)->san, "Be6");
    for (int i = 0; i < 4; i++) {
        assert_false(cr_game_ply(g, i)->flags & CR_PLY_RECONSTRUCTED);
    }
    sim_free(s);
}

/* A capture's victim taken off, then the board silent (a link cut while the
 * capturer is held) for longer than attention_ms: pieces lifted are a move
 * being made, never a gap; the capture is read when the capturer lands
 * (an emulated round trip with faults read 34... Rxc2 as a gap, then Rc2). */
static void test_lifted_is_no_gap(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    move(s, "d7", "d5");
    clock_ev(s, 300, CR_WHITE);
    lift(s, "d5", 1500); /* the victim off first */
    link_ev(s, CR_FEED_DISCONNECT, 500);
    link_ev(s, CR_FEED_CONNECT, 9000);
    show(s, 0);
    tick(s, 8000); /* it stands, pieces missing, long past attention_ms */
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 2);
    lift(s, "e4", 300);
    put(s, "d5", CR_WP, 300);
    clock_ev(s, 800, CR_BLACK);
    finish(s);
    g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 3);
    assert_string_equal(cr_game_ply(g, 2)->san, "exd5");
    assert_false(cr_game_ply(g, 2)->flags & (CR_PLY_MISSING | CR_PLY_ILLEGAL));
    sim_free(s);
}

/* The first press after the silence says the board shows a finished move:
 * the gap is taken at once, holding the presser's reading. */
static void test_silence_gap_press(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    clock_ev(s, 300, CR_BLACK);
    cr_position p;
    cr_position_from_fen(&p, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", NULL);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3");
    link_ev(s, CR_FEED_CONNECT, 60000);
    show(s, 0);
    clock_ev(s, 100, CR_BLACK);
    clock_ev(s, 1000, CR_WHITE); /* Black pressed: Black's move is done */
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 2);
    assert_true(cr_game_ply(g, 1)->flags & CR_PLY_MISSING);
    assert_int_equal(cr_game_ply(g, 1)->after.side, CR_WHITE);
    /* the press timed the last move nobody saw: Black's reading */
    assert_int_equal(cr_game_ply(g, 1)->clock_ms, 5300000 - (int32_t)s->t / 20);
    sim_free(s);
}

/* A gap nothing has followed yet is replaced when the board goes on
 * unseen again (one silence, one gap), never piled on; pieces set up anew
 * (more pieces than the game had) are no gap at all. */
static void test_gap_replaced(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    cr_position p;
    cr_position_from_fen(&p, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", NULL);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5");
    link_ev(s, CR_FEED_CONNECT, 60000);
    show(s, 0);
    tick(s, 6000);
    assert_int_equal(cr_game_ply_count(cr_infer_game(s->inf)), 2);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "Nb3 Be6 f3 Be7 Qd2 O-O O-O-O Nbd7 g4 b5");
    link_ev(s, CR_FEED_CONNECT, 60000);
    show(s, 0);
    tick(s, 6000);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 2);
    assert_true(cr_game_ply(g, 1)->flags & CR_PLY_MISSING);
    assert_memory_equal(cr_game_ply(g, 1)->after.board, p.board, CR_SQ_NB);
    assert_true(cr_game_ply(g, 1)->missing >= 11);
    assert_int_equal(count(s, CR_INFER_CORRECTION), 1);
    /* a piece more than White has: set up anew, ATTENTION stands */
    s->b[sq("e3")] = CR_WQ;
    show(s, 1000);
    tick(s, 20000);
    assert_int_equal(cr_game_ply_count(cr_infer_game(s->inf)), 2);
    assert_non_null(last_of(s, CR_INFER_ATTENTION));
    sim_free(s);
}

/* A chess clock with an increment, as the test plays it: each press takes
 * the time the mover's clock ran and adds inc; a press read by the link
 * shows both times in whole seconds (as DGT clocks do). */
typedef struct fclock {
    int32_t ms[2];
    int run; /* -1: not started */
    int64_t since;
    int32_t inc;
} fclock;

static void fc_press(sim *s, fclock *c, int dt, bool read)
{
    s->t += dt;
    if (c->run >= 0) {
        c->ms[c->run] -= (int32_t)(s->t - c->since) - c->inc;
        c->run ^= 1;
    } else {
        c->run = CR_WHITE;
    }
    c->since = s->t;
    if (!read) {
        return;
    }
    cr_feed_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t = s->t;
    snprintf(ev.board, sizeof ev.board, "T1");
    ev.kind = CR_FEED_CLOCK;
    ev.u.clock.white_ms = c->ms[CR_WHITE] / 1000 * 1000;
    ev.u.clock.black_ms = c->ms[CR_BLACK] / 1000 * 1000;
    ev.u.clock.running = c->run;
    assert_int_equal(cr_infer_feed(s->inf, &ev), 0);
}

/* 1. e4 c5 2. Nf3 read with presses, then eleven plies behind a silence
 * (each pressed, nothing read), the board back and the last press read. */
static const cr_game *silence_of_eleven(sim *s, int32_t inc)
{
    fclock c = {{5400000, 5400000}, -1, 0, inc};
    start(s);
    fc_press(s, &c, 100, true); /* White's clock started */
    move(s, "e2", "e4");
    fc_press(s, &c, 300, true);
    move(s, "c7", "c5");
    fc_press(s, &c, 300, true);
    move(s, "g1", "f3");
    fc_press(s, &c, 300, true);
    cr_position p;
    cr_position_from_fen(&p, "rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2", NULL);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    const char *unseen[] = {"d6", "d4", "cxd4", "Nxd4", "Nf6", "Nc3", "a6", "Be3", "e5", "Nb3", "Be6"};
    for (int i = 0; i < 11; i++) {
        char one[8];
        snprintf(one, sizeof one, "%s", unseen[i]);
        play_unseen(s, &p, one);
        if (i < 10) {
            fc_press(s, &c, 17000 + 1000 * i, false);
        }
    }
    link_ev(s, CR_FEED_CONNECT, 9000);
    show(s, 0);
    fc_press(s, &c, 1500, true); /* Black pressed after Be6 */
    tick(s, 6000);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 4);
    const cr_ply *gp = cr_game_ply(g, 3);
    assert_true(gp->flags & CR_PLY_MISSING);
    assert_memory_equal(gp->after.board, p.board, CR_SQ_NB);
    assert_int_equal(gp->after.side, CR_WHITE);
    return g;
}

/* Issue 28: a gap says exactly how many plies nobody saw when the clock
 * can count them (30 s a press: elapsed - time used = 11 presses), and
 * "at least" the fewest that lead there when it cannot (no increment). */
static void test_gap_counted_by_clock(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    const cr_game *g = silence_of_eleven(s, 30000);
    const cr_ply *gp = cr_game_ply(g, 3);
    assert_true(gp->flags & CR_PLY_COUNTED);
    assert_int_equal(gp->missing, 11);
    assert_int_equal(gp->after.fullmove, 8); /* 2... d6 to 7... Be6: White's 8th move next */
    cr_infer_stats st;
    cr_infer_get_stats(s->inf, &st);
    assert_int_equal(st.gaps_counted, 1);
    /* the game goes on after it, seen */
    move(s, "f2", "f3");
    finish(s);
    assert_string_equal(cr_game_ply(cr_infer_game(s->inf), 4)->san, "f3");
    sim_free(s);

    s = sim_new(false);
    g = silence_of_eleven(s, 0);
    gp = cr_game_ply(g, 3);
    assert_false(gp->flags & CR_PLY_COUNTED);
    assert_true(gp->missing >= 1 && gp->missing <= 11 && gp->missing % 2 == 1);
    sim_free(s);
}

/* Guesses never pile onto guesses beyond one search: two silences of six
 * plies with one picture in between, no clock. The first is reconstructed;
 * the second would make twelve guessed plies in a row, more than a search
 * bridges (8), so it is no reconstruction: the stretch is a gap (issue 28:
 * 16 invented plies in a row came from such a chain). */
static void test_chained_guesses_bounded(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    move(s, "e7", "e5");
    cr_position p;
    cr_position_from_fen(&p, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", NULL);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "Nf3 Nc6 Bb5 a6 Ba4 Nf6");
    link_ev(s, CR_FEED_CONNECT, 60000);
    show(s, 0);
    tick(s, 8000);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 8);
    assert_true(cr_game_ply(g, 7)->flags & CR_PLY_RECONSTRUCTED);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    play_unseen(s, &p, "O-O Be7 Re1 b5 Bb3 d6");
    link_ev(s, CR_FEED_CONNECT, 60000);
    show(s, 0);
    tick(s, 8000);
    g = cr_infer_game(s->inf);
    int run = 0, most = 0;
    for (int i = 0; i < cr_game_ply_count(g); i++) {
        run = (cr_game_ply(g, i)->flags & CR_PLY_RECONSTRUCTED) ? run + 1 : 0;
        most = run > most ? run : most;
    }
    assert_true(most <= 8);
    const cr_ply *last = cr_game_ply(g, cr_game_ply_count(g) - 1);
    assert_true(last->flags & CR_PLY_MISSING);
    assert_memory_equal(last->after.board, p.board, CR_SQ_NB);
    assert_int_equal(last->after.side, CR_WHITE);
    sim_free(s);
}

static uint32_t lcg(uint32_t *x)
{
    *x = *x * 1664525u + 1013904223u;
    return *x >> 8;
}

/* The worst case of a long silence: the board lost, and every 1.5 s a new
 * picture (never standing long enough for a gap) that the bounds take for
 * reachable within the search's 8 plies while it is 9 or 10 plies of quiet
 * moves away, for an hour. Each picture would be searched deeply, for
 * ever; the searches share one budget (2M positions), then give up: the
 * search stops costing anything, and the board, once it stands, is a gap
 * whose comment says the search gave up. */
static void test_search_budget(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    move(s, "e7", "e5");
    clock_ev(s, 300, CR_WHITE);
    link_ev(s, CR_FEED_DISCONNECT, 1000);
    cr_position base;
    cr_position_from_fen(&base, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2", NULL);
    link_ev(s, CR_FEED_CONNECT, 30000);
    clock_ev(s, 0, CR_WHITE); /* the clock says White is to move: plies even */
    uint32_t seed = 28;
    clock_t c0 = clock();
    uint64_t at_give_up = 0;
    cr_position p = base;
    for (int i = 0; i < 2400; i++) {
        p = base;
        for (int k = 0, tries = 0; k < 10 && tries < 1000; tries++) {
            cr_movelist ml;
            cr_generate_legal(&p, &ml);
            if (ml.count == 0) {
                break;
            }
            cr_move m = ml.moves[lcg(&seed) % (uint32_t)ml.count];
            if (p.board[cr_move_to(m)] != CR_NO_PIECE || cr_type_of(p.board[cr_move_from(m)]) == CR_PAWN) {
                continue; /* pieces walking, nothing taken */
            }
            cr_position_do_move(&p, m);
            k++;
        }
        memcpy(s->b, p.board, CR_SQ_NB);
        show(s, 1500);
        cr_infer_stats st;
        cr_infer_get_stats(s->inf, &st);
        if (st.gave_up && !at_give_up) {
            at_give_up = st.search_nodes;
        }
    }
    double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    cr_infer_stats st;
    cr_infer_get_stats(s->inf, &st);
    print_message("search budget: %llu positions searched, gave up at %llu, %.2f s CPU\n",
                  (unsigned long long)st.search_nodes, (unsigned long long)at_give_up, cpu);
    /* a picture one move from the game now and then is the board followed
     * again: a new budget; each spent then given up, never more */
    assert_true(st.gave_up >= 1 && at_give_up >= 2000000 && at_give_up <= 2400000);
    assert_true(st.search_nodes <= st.gave_up * 2400000 + 2400000);
    assert_true(st.search_nodes < 12000000); /* unbounded: up to 600k a picture, 1.4G */
    assert_true(cpu < 5.0); /* well under 1 s alone; a loaded 2-core machine gets 25x */
    tick(s, 6000); /* the board stands: the gap */
    const cr_game *g = cr_infer_game(s->inf);
    int n = cr_game_ply_count(g);
    assert_true(cr_game_ply(g, n - 1)->flags & CR_PLY_MISSING);
    assert_memory_equal(cr_game_ply(g, n - 1)->after.board, p.board, CR_SQ_NB);
    assert_string_equal(cr_game_comment(g, n - 1), "search gave up");
    sim_free(s);
}

static void test_rotated(void **state)
{
    (void)state;
    sim *s = sim_new(true);
    start(s);
    assert_true(cr_infer_rotated(s->inf));
    move(s, "d2", "d4");
    move(s, "g8", "f6");
    finish(s);
    assert_moves(s, "d4 Nf6");
    sim_free(s);
}

static void test_new_games(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    meta(s, "White", "A");
    start(s);
    move(s, "e2", "e4");
    move(s, "e7", "e5");
    /* swept off, set up again: a new game */
    memset(s->b, 0, sizeof s->b);
    show(s, 5000);
    meta(s, "White", "B");
    meta(s, "FEN", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    set_fen(s, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", 3000);
    assert_int_equal(count(s, CR_INFER_GAME_STARTED), 2);
    const rec_ev *e = last_of(s, CR_INFER_GAME_ENDED);
    assert_non_null(e); /* the unfinished game handed over */
    assert_int_equal(e->result, CR_RESULT_NONE);
    assert_int_equal(e->game_number, 1);
    move(s, "e2", "e4");
    finish(s);
    assert_moves(s, "e4");
    assert_string_equal(cr_game_tag(cr_infer_game(s->inf), "White"), "B");
    assert_string_equal(cr_game_tag(cr_infer_game(s->inf), "Board"), "T1");
    sim_free(s);

    /* a Chess960 start position is recognised; castling there */
    s = sim_new(false);
    set_fen(s, "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1", 1000);
    assert_int_equal(count(s, CR_INFER_GAME_STARTED), 1);
    assert_true(cr_game_start(cr_infer_game(s->inf))->chess960);
    move(s, "h1", "g3");
    move(s, "h8", "g6");
    /* O-O: king f1->g1, rook g1->f1 (both squares stay occupied) */
    lift(s, "f1", 2000);
    lift(s, "g1", 200);
    put(s, "g1", CR_WK, 200);
    put(s, "f1", CR_WR, 200);
    finish(s);
    assert_moves(s, "Ng3 Ng6 O-O");
    sim_free(s);
}

/* Every Chess960 start position is recognised (either way round). */
static void test_all_960(void **state)
{
    (void)state;
    for (int rot = 0; rot < 2; rot++) {
        sim *s = sim_new(rot);
        for (int n = 0; n < 960; n++) {
            cr_position p;
            assert_int_equal(cr_position_init_960(&p, n), 0);
            memcpy(s->b, p.board, CR_SQ_NB);
            show(s, 1000);
            const cr_game *g = cr_infer_game(s->inf);
            assert_non_null(g);
            assert_memory_equal(cr_game_start(g)->board, p.board, CR_SQ_NB);
            assert_int_equal(cr_infer_rotated(s->inf), rot);
        }
        sim_free(s);
    }
}

static void test_kings_signal(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    setup(s, "4k3/p7/8/8/3K4/8/8/8 w - - 0 1");
    move(s, "d4", "d3");
    clock_ev(s, 300, CR_BLACK);
    clock_ev(s, 2000, CR_CLOCK_STOPPED);
    /* the white king to e4 (light), the black king to d5 (light): 1-0 */
    lift(s, "d3", 3000);
    put(s, "e4", CR_WK, 300);
    lift(s, "e8", 700);
    put(s, "d5", CR_BK, 300);
    finish(s);
    assert_moves(s, "Kd3");
    const rec_ev *e = last_of(s, CR_INFER_GAME_ENDED);
    assert_non_null(e);
    assert_int_equal(e->result, CR_RESULT_WHITE);
    assert_int_equal(cr_game_result(cr_infer_game(s->inf)), CR_RESULT_WHITE);
    sim_free(s);
}

static void test_checkmate(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "f2", "f3");
    move(s, "e7", "e5");
    move(s, "g2", "g4");
    move(s, "d8", "h4");
    finish(s);
    assert_moves(s, "f3 e5 g4 Qh4#");
    const rec_ev *e = last_of(s, CR_INFER_GAME_ENDED);
    assert_non_null(e);
    assert_int_equal(e->result, CR_RESULT_BLACK);
    assert_string_equal(e->reason, "checkmate");
    sim_free(s);
}

static void test_unreachable_and_resync(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    /* a knight appears on e5 from nowhere and stays */
    put(s, "e5", CR_WN, 2000);
    show(s, 6000);
    const rec_ev *a = last_of(s, CR_INFER_ATTENTION);
    assert_non_null(a);
    assert_true(a->squares & (1ull << sq("e5")));
    assert_int_equal(count(s, CR_INFER_MOVE), 1);
    /* removed again: back in sync, play goes on */
    lift(s, "e5", 1000);
    assert_non_null(last_of(s, CR_INFER_RESYNCED));
    move(s, "c7", "c5");
    finish(s);
    assert_moves(s, "e4 c5");
    sim_free(s);
}

static void test_illegal_move_stood(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    setup(s, "4k3/8/8/8/8/8/8/4K2R w - - 0 1");
    clock_ev(s, 10, CR_WHITE);
    /* the king jumps two squares and the clock is pressed */
    lift(s, "e1", 2000);
    put(s, "e3", CR_WK, 300);
    clock_ev(s, 600, CR_BLACK);
    move(s, "e8", "d7");
    finish(s);
    const cr_game *g = cr_infer_game(s->inf);
    assert_int_equal(cr_game_ply_count(g), 2);
    assert_true(cr_game_ply(g, 0)->flags & CR_PLY_ILLEGAL);
    assert_string_equal(cr_game_ply(g, 0)->san, "Ke1-e3");
    assert_string_equal(cr_game_ply(g, 1)->san, "Kd7");
    sim_free(s);
}

static void test_hostile(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    start(s);
    move(s, "e2", "e4");
    uint8_t saved[CR_SQ_NB];
    memcpy(saved, s->b, sizeof saved);
    /* two white kings, a cleared board, flickering squares */
    put(s, "d4", CR_WK, 1000);
    show(s, 6000);
    memset(s->b, 0, sizeof s->b);
    show(s, 1000);
    uint64_t x = 12345;
    for (int i = 0; i < 2000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        s->b[(x >> 33) % 64] = (uint8_t)((x >> 20) % 15);
        show(s, (int)((x >> 40) % 400));
    }
    assert_true(count(s, CR_INFER_ATTENTION) >= 1);
    /* the arbiter puts the position back: play resumes */
    memcpy(s->b, saved, sizeof saved);
    show(s, 1000);
    move(s, "e7", "e5");
    finish(s);
    char got[64];
    moves_of(s, got, sizeof got);
    /* A new game may have been recognised from noise; otherwise it goes on. */
    assert_true(strcmp(got, "e4 e5") == 0 || strcmp(got, "") == 0);
    sim_free(s);

    /* events out of order in time are clamped, NULLs refused */
    s = sim_new(false);
    start(s);
    s->t -= 5000;
    move(s, "e2", "e4");
    finish(s);
    assert_moves(s, "e4");
    assert_int_equal(cr_infer_feed(NULL, NULL), CR_EINVAL);
    cr_infer_free(NULL);
    sim_free(s);
}

static void test_footprint(void **state)
{
    (void)state;
    sim *s = sim_new(false);
    assert_true(cr_infer_footprint(s->inf) < 64 * 1024);
    cr_infer_stats st;
    cr_infer_get_stats(s->inf, &st);
    assert_int_equal(st.snapshots, 0);
    sim_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_moves_and_clock),
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_castling),
        cmocka_unit_test(test_en_passant),
        cmocka_unit_test(test_promotions),
        cmocka_unit_test(test_slides),
        cmocka_unit_test(test_takeback),
        cmocka_unit_test(test_gap),
        cmocka_unit_test(test_ambiguous_gap),
        cmocka_unit_test(test_silent_gap_recovers),
        cmocka_unit_test(test_confirmed_check_kept_when_the_other_side_pressed),
        cmocka_unit_test(test_adjusted_after_press_corrected),
        cmocka_unit_test(test_lost_board_recovers),
        cmocka_unit_test(test_ambiguous_alternatives_named),
        cmocka_unit_test(test_accept_board),
        cmocka_unit_test(test_silence_gap),
        cmocka_unit_test(test_lifted_is_no_gap),
        cmocka_unit_test(test_silence_gap_press),
        cmocka_unit_test(test_gap_replaced),
        cmocka_unit_test(test_gap_counted_by_clock),
        cmocka_unit_test(test_chained_guesses_bounded),
        cmocka_unit_test(test_search_budget),
        cmocka_unit_test(test_rotated),
        cmocka_unit_test(test_new_games),
        cmocka_unit_test(test_all_960),
        cmocka_unit_test(test_kings_signal),
        cmocka_unit_test(test_checkmate),
        cmocka_unit_test(test_unreachable_and_resync),
        cmocka_unit_test(test_illegal_move_stood),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_footprint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
