/* Tests of the relay's publications (core/publish): what the loop thread
 * hands the server thread for each store event, a game's state and an
 * evaluation, made from the store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "core/publish.h"

static void apply_ok(cr_store *s, const cr_store_event *ev)
{
    cr_error err;
    cr_error_clear(&err);
    if (cr_store_apply(s, ev, &err)) {
        fail_msg("apply: %s", err.text);
    }
}

/* A store with game 7 of round "2" on board B1 and 1. e4 e5 (seq 1..3). */
static cr_store *two_plies(void)
{
    cr_store *s = cr_store_new();
    assert_non_null(s);
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    ev->seq = 1;
    ev->ts = 1000;
    ev->game = 7;
    strcpy(ev->board, "B1");
    strcpy(ev->round, "2");
    apply_ok(s, ev);
    cr_store_event_free(ev);
    const char *uci[] = {"e2e4", "e7e5"};
    for (int i = 0; i < 2; i++) {
        cr_game *scratch = cr_game_clone(cr_store_find(s, 7)->game);
        cr_move m = cr_move_from_uci(cr_game_position(scratch), uci[i]);
        assert_int_equal(cr_game_push(scratch, m, CR_CLOCK_UNKNOWN, 0, 0), 0);
        ev = cr_store_event_new(CR_SEV_MOVE);
        ev->seq = 2 + i;
        ev->ts = 2000 + i;
        ev->game = 7;
        ev->ply = i;
        ev->move = *cr_game_ply(scratch, i);
        cr_game_free(scratch);
        apply_ok(s, ev);
        cr_store_event_free(ev);
    }
    return s;
}

static bool has(const cr_buf *b, const char *text)
{
    return b && strstr(b->data, text) != NULL;
}

/* The last event applied, published: its JSON taken by reference, what it
 * changes of the game made afresh. */
static cr_pub *publish(cr_store *s, cr_store_event *ev)
{
    apply_ok(s, ev);
    cr_buf *json = cr_store_event_json(ev);
    assert_non_null(json);
    cr_pub *p = cr_pub_for_event(s, ev, json, CR_LANE_PUBLIC, 60);
    cr_buf_unref(json);
    cr_store_event_free(ev);
    assert_non_null(p);
    return p;
}

static void test_event(void **state)
{
    (void)state;
    cr_store *s = two_plies();
    cr_game *scratch = cr_game_clone(cr_store_find(s, 7)->game);
    cr_move m = cr_move_from_uci(cr_game_position(scratch), "g1f3");
    assert_int_equal(cr_game_push(scratch, m, CR_CLOCK_UNKNOWN, 0, 0), 0);
    cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
    ev->seq = 4;
    ev->ts = 4000;
    ev->game = 7;
    ev->ply = 2;
    ev->move = *cr_game_ply(scratch, 2);
    cr_game_free(scratch);
    cr_pub *p = publish(s, ev);
    assert_int_equal(p->kind, CR_PUB_EVENT);
    assert_int_equal(p->lanes, CR_LANE_PUBLIC);
    assert_int_equal(p->seq, 4);
    assert_int_equal(p->ts, 4000);
    assert_int_equal(p->game, 7);
    assert_string_equal(p->round, "2");
    assert_true(has(p->event, "\"type\":\"move\""));
    assert_true(has(p->snapshot, "\"type\":\"snapshot\""));
    assert_true(has(p->snapshot, "\"delay\":60"));
    assert_non_null(p->summary);
    assert_true(has(p->pgn, "2. Nf3"));
    assert_false(p->has_evals); /* a move leaves the view's evals as they are */
    cr_pub_free(p);
    cr_store_free(s);
}

/* A clock reading changes no game list entry (only the brief); a status
 * no PGN; a correction the evals (its plies' are gone). */
static void test_what_changes(void **state)
{
    (void)state;
    cr_store *s = two_plies();
    cr_store_event *ev = cr_store_event_new(CR_SEV_CLOCK);
    ev->seq = 4;
    ev->ts = 4000;
    ev->game = 7;
    ev->white_ms = 60000;
    ev->black_ms = 59000;
    ev->running = CR_WHITE;
    ev->clock_ply = -1;
    cr_pub *p = publish(s, ev);
    assert_non_null(p->snapshot);
    assert_null(p->summary);
    /* The brief carries the clocks: a round's overview lives on it. */
    assert_true(has(p->brief, "\"clock\":[60000,59000,\"w\",4000]"));
    assert_true(has(p->summary_msg, "{\"type\":\"summary\",\"seq\":4,\"ts\":4000,\"game\":{"));
    assert_non_null(p->pgn);
    cr_pub_free(p);

    ev = cr_store_event_new(CR_SEV_STATUS);
    ev->seq = 5;
    ev->game = 7;
    ev->online = true;
    p = publish(s, ev);
    assert_non_null(p->snapshot);
    assert_non_null(p->summary);
    assert_null(p->pgn);
    assert_false(p->has_evals);
    cr_pub_free(p);

    cr_eval e = {.depth = 12, .value = 30, .best = "Nf3", .pv = "Nf3"};
    cr_error err;
    assert_int_equal(cr_store_set_eval(s, 7, 1, &e, &err), 0);
    ev = cr_store_event_new(CR_SEV_CORRECTION);
    ev->seq = 6;
    ev->game = 7;
    ev->ply = 1;
    ev->retracted = 1;
    p = publish(s, ev);
    assert_true(p->has_evals);
    assert_null(p->evals); /* the one eval was of the ply retracted */
    assert_non_null(p->summary);
    assert_non_null(p->pgn);
    cr_pub_free(p);
    cr_store_free(s);
}

static void test_game_and_eval(void **state)
{
    (void)state;
    cr_store *s = two_plies();
    const cr_store_game *g = cr_store_find(s, 7);
    cr_pub *p = cr_pub_for_game(s, g, CR_LANE_LIVE | CR_LANE_PUBLIC, 0);
    assert_non_null(p);
    assert_int_equal(p->kind, CR_PUB_STATE);
    assert_int_equal(p->lanes, CR_LANE_LIVE | CR_LANE_PUBLIC);
    assert_int_equal(p->seq, 3);
    assert_null(p->event);
    assert_true(has(p->pgn, "1. e4 e5"));
    assert_non_null(p->snapshot);
    assert_non_null(p->summary);
    assert_true(p->has_evals);
    assert_null(p->evals);
    cr_pub_free(p);

    assert_null(cr_pub_for_eval(s, 7, 1, CR_LANE_LIVE, 0)); /* no eval yet */
    cr_eval e = {.depth = 20, .value = -15, .best = "Nf3", .pv = "Nf3 Nc6"};
    cr_error err;
    assert_int_equal(cr_store_set_eval(s, 7, 1, &e, &err), 0);
    p = cr_pub_for_eval(s, 7, 1, CR_LANE_LIVE, 0);
    assert_non_null(p);
    assert_int_equal(p->kind, CR_PUB_EVAL);
    assert_int_equal(p->seq, 3); /* the game's last event: an eval has no seq */
    assert_true(has(p->event, "\"type\":\"eval\""));
    assert_true(has(p->evals, "\"type\":\"evals\""));
    assert_true(p->has_evals);
    cr_pub_free(p);
    cr_store_free(s);
}

/* The game in brief and its summary message: the brief as it is, wrapped
 * once with seq and ts; a round's overview is made of these, so its size
 * is the round's. */
static void test_summary_message(void **state)
{
    (void)state;
    cr_store *s = two_plies();
    static const char *const tags[][2] = {{"White", "Abdusattorov, Nodirbek"},
                                          {"WhiteElo", "2766"},
                                          {"WhiteFed", "UZB"},
                                          {"WhiteTeam", "Uzbekistan"}};
    for (int i = 0; i < 4; i++) {
        cr_store_event *tag = cr_store_event_new(CR_SEV_TAG);
        tag->seq = 10 + i; /* after any of two_plies' */
        tag->game = 7;
        snprintf(tag->tag.name, sizeof tag->tag.name, "%s", tags[i][0]);
        snprintf(tag->tag.value, sizeof tag->tag.value, "%s", tags[i][1]);
        apply_ok(s, tag);
        cr_store_event_free(tag);
    }
    cr_buf *brief = cr_store_brief_json(s, 7);
    assert_non_null(brief);
    assert_true(has(brief, "{\"id\":7,\"round\":\"2\",\"board\":\"B1\","));
    assert_true(has(brief, "\"w\":[\"Abdusattorov, Nodirbek\",2766,\"\",\"UZB\",\"Uzbekistan\"]"));
    assert_true(has(brief, "\"b\":[\"?\",null,\"\",\"\",\"\"]"));
    assert_true(has(brief, "\"last\":\"e5\",\"uci\":\"e7e5\""));
    assert_true(has(brief, "\"plies\":2"));
    assert_false(has(brief, "\"clock\"")); /* no reading yet */
    assert_false(has(brief, "\"attention\"")); /* defaults left out */
    assert_false(has(brief, "\"online\""));
    assert_true(brief->len < 300); /* a few hundred bytes a board */
    cr_buf *m = cr_pub_summary_message(brief, 3, 2001);
    assert_non_null(m);
    char want[2048];
    snprintf(want, sizeof want, "{\"type\":\"summary\",\"seq\":3,\"ts\":2001,\"game\":%s}", brief->data);
    assert_string_equal(m->data, want);
    assert_int_equal(m->len, strlen(want));
    cr_buf_unref(m);
    cr_buf_unref(brief);
    assert_null(cr_pub_summary_message(NULL, 1, 1));
    assert_null(cr_store_brief_json(s, 8));

    cr_store_event *ev = cr_store_event_new(CR_SEV_STATUS);
    ev->seq = 20;
    ev->ts = 5000;
    ev->game = 7;
    ev->online = false;
    cr_pub *p = publish(s, ev);
    assert_true(has(p->summary_msg, "{\"type\":\"summary\",\"seq\":20,\"ts\":5000,\"game\":{\"id\":7,"));
    assert_true(has(p->summary_msg, "\"online\":false")); /* not the default */
    cr_pub_free(p);
    cr_store_free(s);
}

static void test_unknown_game(void **state)
{
    (void)state;
    cr_store *s = two_plies();
    cr_store_event *ev = cr_store_event_new(CR_SEV_STATUS);
    ev->seq = 9;
    ev->game = 8; /* never made */
    cr_buf *json = cr_store_event_json(ev);
    assert_null(cr_pub_for_event(s, ev, json, CR_LANE_LIVE, 0));
    assert_null(cr_pub_for_eval(s, 8, 0, CR_LANE_LIVE, 0));
    cr_buf_unref(json);
    cr_store_event_free(ev);
    cr_store_free(s);
    cr_pub_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event),
        cmocka_unit_test(test_what_changes),
        cmocka_unit_test(test_game_and_eval),
        cmocka_unit_test(test_summary_message),
        cmocka_unit_test(test_unknown_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
