/* Tests of the broadcast side's view: games, the event ring, joins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "net/view.h"

static cr_pub *event_pub(int64_t seq, int game, const char *round)
{
    cr_pub *p = cr_pub_new(CR_PUB_EVENT);
    char text[128];
    p->seq = seq;
    p->ts = seq * 10;
    p->game = game;
    snprintf(p->round, sizeof p->round, "%s", round);
    snprintf(text, sizeof text, "{\"seq\":%lld}", (long long)seq);
    p->event = cr_buf_new(text, strlen(text));
    snprintf(text, sizeof text, "{\"id\":%d}", game);
    p->summary = cr_buf_new(text, strlen(text));
    snprintf(text, sizeof text, "[Game \"%d\"]\n\n", game);
    p->pgn = cr_buf_new(text, strlen(text));
    p->snapshot = cr_buf_new("{}", 2);
    return p;
}

static void apply(cr_view *v, cr_pub *p, int64_t now)
{
    cr_view_apply(v, p, now);
    cr_pub_free(p);
}

static void test_ring_and_games(void **state)
{
    (void)state;
    cr_view *v = cr_view_new(4);
    assert_int_equal(cr_view_head(v), 1);
    apply(v, event_pub(1, 2, "1"), 100);
    apply(v, event_pub(2, 1, "1"), 200);
    apply(v, event_pub(3, 3, "2"), 300);
    assert_int_equal(cr_view_game_count(v), 3);
    assert_int_equal(cr_view_game_at(v, 0)->id, 1); /* sorted by id */
    assert_int_equal(cr_view_find(v, 3)->seq, 3);
    assert_string_equal(cr_view_entry_at(v, 2)->msg->data, "{\"seq\":2}");
    assert_int_equal(cr_view_entry_at(v, 2)->game, 1);
    assert_null(cr_view_entry_at(v, 4));

    for (int64_t s = 4; s <= 7; s++) {
        apply(v, event_pub(s, 1, "1"), 400 + s);
    }
    assert_int_equal(cr_view_head(v), 8);
    assert_int_equal(cr_view_oldest(v), 4); /* 1..3 were overwritten */
    assert_null(cr_view_entry_at(v, 3));
    assert_non_null(cr_view_entry_at(v, 4));
    /* an old or repeated publication does not go into the ring */
    apply(v, event_pub(5, 1, "1"), 500);
    assert_int_equal(cr_view_head(v), 8);

    cr_buf *b = cr_view_games_json(v, NULL);
    assert_string_equal(b->data, "{\"type\":\"games\",\"games\":[{\"id\":1},{\"id\":2},{\"id\":3}]}");
    cr_buf_unref(b);
    b = cr_view_games_array(v, "2");
    assert_string_equal(b->data, "[{\"id\":3}]\n");
    cr_buf_unref(b);
    b = cr_view_pgn(v, "1");
    assert_string_equal(b->data, "[Game \"1\"]\n\n[Game \"2\"]\n\n");
    cr_buf_unref(b);
    assert_null(cr_view_pgn(v, "9"));
    assert_int_equal(cr_view_modified(v, "2"), 300);
    assert_int_equal(cr_view_modified(v, NULL), 500);
    cr_view_free(v);
}

static void test_state_and_mark(void **state)
{
    (void)state;
    cr_view *v = cr_view_new(16);
    cr_pub *p = event_pub(40, 5, "3");
    p->kind = CR_PUB_STATE;
    apply(v, p, 1);
    assert_int_equal(cr_view_head(v), 41);
    assert_null(cr_view_entry_at(v, 40)); /* state only, no event held */
    assert_non_null(cr_view_find(v, 5));
    p = cr_pub_new(CR_PUB_MARK);
    p->seq = 50;
    apply(v, p, 2);
    assert_int_equal(cr_view_head(v), 51);
    assert_int_equal(cr_view_oldest(v), 51);
    apply(v, event_pub(51, 5, "3"), 3);
    assert_non_null(cr_view_entry_at(v, 51));
    cr_view_free(v);
}

/* A round's summary subscribers: the ring holds each event's summary
 * message beside it, the round's list is of the games in brief. */
static void test_briefs(void **state)
{
    (void)state;
    cr_view *v = cr_view_new(8);
    const char *rounds[] = {"1", "1", "x\"y\\"};
    for (int i = 0; i < 3; i++) {
        cr_pub *p = event_pub(i + 1, i + 1, rounds[i]);
        char text[64];
        snprintf(text, sizeof text, "{\"id\":%d,\"w\":[]}", i + 1);
        p->brief = cr_buf_new(text, strlen(text));
        p->summary_msg = cr_pub_summary_message(p->brief, p->seq, p->ts);
        apply(v, p, 10);
    }
    assert_string_equal(cr_view_entry_at(v, 2)->summary->data,
                        "{\"type\":\"summary\",\"seq\":2,\"ts\":20,\"game\":{\"id\":2,\"w\":[]}}");
    assert_null(cr_view_entry_at(v, 2)->summary->data[cr_view_entry_at(v, 2)->summary->len]);
    cr_buf *b = cr_view_round_list(v, "1", 3);
    assert_string_equal(b->data, "{\"type\":\"games\",\"round\":\"1\",\"seq\":3,\"games\":"
                                 "[{\"id\":1,\"w\":[]},{\"id\":2,\"w\":[]}]}");
    cr_buf_unref(b);
    b = cr_view_round_list(v, "x\"y\\", 3); /* the round's name is escaped */
    assert_string_equal(b->data, "{\"type\":\"games\",\"round\":\"x\\\"y\\\\\",\"seq\":3,\"games\":"
                                 "[{\"id\":3,\"w\":[]}]}");
    cr_buf_unref(b);
    b = cr_view_round_list(v, "9", 3);
    assert_string_equal(b->data, "{\"type\":\"games\",\"round\":\"9\",\"seq\":3,\"games\":[]}");
    cr_buf_unref(b);
    cr_view_free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ring_and_games),
        cmocka_unit_test(test_state_and_mark),
        cmocka_unit_test(test_briefs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
