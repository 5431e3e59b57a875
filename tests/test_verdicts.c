/* Tests of relay/core/verdicts.c: the result rules of the arbiters'
 * monitors over a real store, as offline replay runs them (cr_verdicts)
 * and as the arbiter link does per game (cr_verdict). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/verdicts.h"

typedef struct rig {
    cr_store *store;
    cr_verdicts *vs;
    int64_t seq, t;
    int results;         /* RESULT events the verdicts queued */
    cr_result last;      /* the last of them */
    char reason[CR_REASON_MAX];
} rig;

static void apply(rig *r, cr_store_event *ev)
{
    ev->seq = ++r->seq;
    ev->ts = r->t * 1000;
    cr_error err;
    if (cr_store_apply(r->store, ev, &err)) {
        fail_msg("store refused an event: %s", err.text);
    }
}

/* What replay does after each feed event: the board's source time, then
 * the queued events applied (not fed back). */
static void settle(rig *r, const char *board)
{
    cr_verdicts_source_time(r->vs, board, r->t);
    cr_store_event *ev;
    while ((ev = cr_verdicts_take_event(r->vs)) != NULL) {
        if (ev->kind == CR_SEV_RESULT) {
            r->results++;
            r->last = ev->result;
            snprintf(r->reason, sizeof r->reason, "%s", ev->reason);
        }
        apply(r, ev);
        cr_store_event_free(ev);
    }
}

/* An event of the boards: applied, the verdicts told, settled. */
static void emit(rig *r, cr_store_event *ev, const char *board)
{
    apply(r, ev);
    assert_int_equal(cr_verdicts_on_store_event(r->vs, ev, r->t), 0);
    cr_store_event_free(ev);
    settle(r, board);
}

static void rig_init(rig *r, const char *time_control)
{
    memset(r, 0, sizeof *r);
    r->store = cr_store_new();
    r->vs = cr_verdicts_new(r->store, time_control);
    assert_non_null(r->store);
    assert_non_null(r->vs);
}

static void rig_free(rig *r)
{
    cr_verdicts_free(r->vs);
    cr_store_free(r->store);
}

static void new_game(rig *r, int id, const char *board, const char *tc, const char *fen)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    assert_non_null(ev);
    ev->game = id;
    snprintf(ev->board, sizeof ev->board, "%s", board);
    snprintf(ev->round, sizeof ev->round, "1");
    if (tc) {
        cr_store_event_add_tag(ev, "TimeControl", tc);
    }
    if (fen) {
        ev->has_start = true;
        assert_int_equal(cr_position_from_fen(&ev->start, fen, NULL), 0);
    }
    emit(r, ev, board);
}

static void move(rig *r, int id, const char *board, const char *uci)
{
    const cr_store_game *g = cr_store_find(r->store, id);
    assert_non_null(g);
    cr_game *scratch = cr_game_clone(g->game);
    assert_non_null(scratch);
    cr_move m = cr_move_from_uci(cr_game_position(scratch), uci);
    assert_int_equal(cr_game_push(scratch, m, CR_CLOCK_UNKNOWN, r->t, 0), 0);
    cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
    ev->game = id;
    ev->ply = cr_game_ply_count(scratch) - 1;
    ev->move = *cr_game_ply(scratch, ev->ply);
    cr_game_free(scratch);
    emit(r, ev, board);
}

static void clock_reading(rig *r, int id, const char *board, int32_t w, int32_t b, int running)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_CLOCK);
    ev->game = id;
    ev->white_ms = w;
    ev->black_ms = b;
    ev->running = running;
    ev->clock_ply = -1;
    emit(r, ev, board);
}

static void result(rig *r, int id, const char *board, cr_result res)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_RESULT);
    ev->game = id;
    ev->result = res;
    emit(r, ev, board);
}

static cr_result store_result(const rig *r, int id)
{
    return cr_game_result(cr_store_find(r->store, id)->game);
}

/* The clock's own 0:00 ends an open game: the opponent wins. Only once,
 * and only on its board's source time. */
static void test_flag_on_evidence(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL);
    new_game(&r, 1, "B1", "60", NULL);
    new_game(&r, 2, "B2", "60", NULL);
    move(&r, 1, "B1", "e2e4");
    clock_reading(&r, 1, "B1", 60000, 3000, CR_BLACK);
    r.t = 2000;
    settle(&r, "B1");
    assert_int_equal(r.results, 0);
    r.t = 2500;
    clock_reading(&r, 1, "B1", 60000, 0, CR_BLACK);
    assert_int_equal(r.results, 1);
    assert_int_equal(r.last, CR_RESULT_WHITE);
    assert_int_equal(store_result(&r, 1), CR_RESULT_WHITE);
    assert_int_equal(store_result(&r, 2), CR_RESULT_NONE);
    r.t = 9000;
    settle(&r, "B1");
    settle(&r, NULL);
    assert_int_equal(r.results, 1); /* told once */
    rig_free(&r);
}

/* A flag falls while the opponent has a bare king: a draw (6.9). */
static void test_flag_cannot_mate(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, "60");
    new_game(&r, 1, "B1", NULL, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"); /* the event's control */
    move(&r, 1, "B1", "e2e3");
    r.t = 100;
    clock_reading(&r, 1, "B1", 60000, 0, CR_BLACK);
    assert_int_equal(r.results, 1); /* White can mate: Black's flag is White's win */
    assert_int_equal(r.last, CR_RESULT_WHITE);
    rig_free(&r);
    rig_init(&r, NULL);
    new_game(&r, 1, "B1", "60", "4k3/8/8/8/8/8/4P3/4K3 b - - 0 1");
    move(&r, 1, "B1", "e8d8");
    r.t = 100;
    clock_reading(&r, 1, "B1", 0, 60000, CR_WHITE);
    assert_int_equal(r.results, 1);
    assert_int_equal(r.last, CR_RESULT_DRAW); /* Black has a bare king */
    rig_free(&r);
}

/* A flag after the game ended changes nothing. */
static void test_flag_after_result(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL);
    new_game(&r, 1, "B1", "60", NULL);
    move(&r, 1, "B1", "e2e4");
    result(&r, 1, "B1", CR_RESULT_BLACK);
    r.t = 100;
    clock_reading(&r, 1, "B1", 60000, 0, CR_BLACK);
    assert_int_equal(r.results, 0);
    assert_int_equal(store_result(&r, 1), CR_RESULT_BLACK);
    rig_free(&r);
}

/* Fivefold repetition draws the game by itself (9.6.1); a dead position
 * too (5.2.2). */
static void test_automatic_draws(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL);
    new_game(&r, 1, "B1", NULL, NULL);
    static const char *const dance[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    for (int i = 0; i < 15; i++) {
        r.t += 1000;
        move(&r, 1, "B1", dance[i % 4]);
        assert_int_equal(r.results, 0);
    }
    assert_int_equal(store_result(&r, 1), CR_RESULT_NONE); /* four times: not yet */
    r.t += 1000;
    move(&r, 1, "B1", dance[3]); /* the start position, the fifth time */
    assert_int_equal(r.results, 1);
    assert_int_equal(r.last, CR_RESULT_DRAW);
    assert_string_equal(r.reason, "fivefold repetition");
    assert_int_equal(store_result(&r, 1), CR_RESULT_DRAW);

    new_game(&r, 2, "B2", NULL, "k7/8/8/8/8/8/1r6/K1B5 w - - 0 50");
    move(&r, 2, "B2", "a1b2");
    assert_int_equal(r.results, 2);
    assert_int_equal(store_result(&r, 2), CR_RESULT_DRAW);
    assert_string_equal(r.reason, "dead position");
    rig_free(&r);
}

/* One verdict alone, as the arbiter link holds it: the store events that
 * bring the store's game to the verdict's. */
static void collect(void *data, cr_store_event *ev)
{
    rig *r = data;
    assert_non_null(ev);
    apply(r, ev);
    cr_store_event_free(ev);
}

static void test_verdict_to_store(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL);
    new_game(&r, 1, "B1", "60", NULL);
    move(&r, 1, "B1", "e2e4");
    const cr_store_game *sg = cr_store_find(r.store, 1);
    cr_verdict *v = cr_verdict_new(sg, NULL, true, false, r.t, 0);
    assert_non_null(v);
    assert_int_equal(cr_game_ply_count(cr_verdict_game(v)), 1);
    assert_non_null(cr_verdict_monitor(v));
    assert_non_null(cr_verdict_clock(v));
    assert_int_equal(cr_verdict_to_store(v, sg, collect, &r), 0); /* the same game */
    assert_false(cr_verdict_tick(v, 100));
    /* A reading at 0:00 on the store's side: the verdict ends the game. */
    cr_store_event *ev = cr_store_event_new(CR_SEV_CLOCK);
    ev->game = 1;
    ev->white_ms = 60000;
    ev->black_ms = 0;
    ev->running = CR_BLACK;
    ev->clock_ply = -1;
    r.t = 200;
    apply(&r, ev);
    sg = cr_store_find(r.store, 1);
    bool ended = cr_verdict_on_store_event(v, sg, ev, r.t);
    ended = cr_verdict_source_time(v, r.t) || ended;
    cr_store_event_free(ev);
    assert_true(ended);
    assert_int_equal(cr_game_result(cr_verdict_game(v)), CR_RESULT_WHITE);
    assert_int_equal(cr_verdict_to_store(v, sg, collect, &r), 1);
    assert_int_equal(store_result(&r, 1), CR_RESULT_WHITE);
    cr_verdict_free(v);
    rig_free(&r);
}

/* The verdict's game follows the store's through corrections: a move
 * taken back and another played in its place. */
static void test_follows_corrections(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL);
    new_game(&r, 1, "B1", NULL, NULL);
    const cr_store_game *sg = cr_store_find(r.store, 1);
    cr_verdict *v = cr_verdict_new(sg, NULL, false, false, 0, 0);
    assert_non_null(v);
    static const char *const first[] = {"e2e4", "e7e5", "g1f3"};
    for (int i = 0; i < 3; i++) {
        move(&r, 1, "B1", first[i]);
        sg = cr_store_find(r.store, 1);
        cr_store_event ev = {.kind = CR_SEV_MOVE, .game = 1, .ply = i, .clock_ply = -1};
        assert_false(cr_verdict_on_store_event(v, sg, &ev, r.t));
    }
    cr_store_event *c = cr_store_event_new(CR_SEV_CORRECTION);
    c->game = 1;
    c->ply = 1;
    c->retracted = 2;
    emit(&r, c, "B1");
    sg = cr_store_find(r.store, 1);
    cr_store_event ev = {.kind = CR_SEV_CORRECTION, .game = 1, .ply = 1, .retracted = 2};
    cr_verdict_on_store_event(v, sg, &ev, r.t);
    assert_int_equal(cr_game_ply_count(cr_verdict_game(v)), 1);
    move(&r, 1, "B1", "c7c5");
    sg = cr_store_find(r.store, 1);
    ev = (cr_store_event){.kind = CR_SEV_MOVE, .game = 1, .ply = 1, .clock_ply = -1};
    cr_verdict_on_store_event(v, sg, &ev, r.t);
    assert_int_equal(cr_game_ply_count(cr_verdict_game(v)), 2);
    assert_string_equal(cr_game_ply(cr_verdict_game(v), 1)->san, "c5");
    assert_int_equal(cr_verdict_to_store(v, sg, collect, &r), 0); /* in step */
    cr_verdict_free(v);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag_on_evidence), cmocka_unit_test(test_flag_cannot_mate),
        cmocka_unit_test(test_flag_after_result), cmocka_unit_test(test_automatic_draws),
        cmocka_unit_test(test_verdict_to_store), cmocka_unit_test(test_follows_corrections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
