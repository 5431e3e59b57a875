/* Tests of the DGT LiveChess local API: the boards' state as the loop makes
 * it (core/eboards) and the server thread's calls, answers and
 * subscriptions (net/livechess), without sockets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/board_infer.h"
#include "core/eboards.h"
#include "net/livechess.h"

#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
#define E4 "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"

/*----- core/eboards -----*/

typedef struct pubs {
    cr_pub *p[64];
    int n;
} pubs;

static void take_pub(void *data, cr_pub *p)
{
    pubs *ps = data;
    assert_true(ps->n < 64);
    ps->p[ps->n++] = p;
}

static int64_t fixed_ms(void *data)
{
    (void)data;
    return 1587948082875;
}

static void pubs_free(pubs *ps)
{
    for (int i = 0; i < ps->n; i++) {
        cr_pub_free(ps->p[i]);
    }
    ps->n = 0;
}

static void noop_infer(void *data, const cr_infer_event *ev)
{
    (void)data;
    (void)ev;
}

static cr_feed_event pos_event(int64_t t, const char *board, const char *placement)
{
    cr_feed_event ev = {.t = t, .kind = CR_FEED_POS};
    snprintf(ev.board, sizeof ev.board, "%s", board);
    assert_int_equal(cr_placement_read(placement, ev.u.squares, NULL), 0);
    return ev;
}

static void feed(cr_eboards *e, cr_board_infer *bi, const cr_feed_event *ev, const char *path)
{
    cr_eboards_feed(e, ev, bi, path, NULL);
    assert_int_equal(cr_board_infer_feed(bi, ev), 0);
}

static void test_board_state_json(void **state)
{
    (void)state;
    pubs ps = {0};
    cr_eboards_config cfg = {.publish = take_pub, .data = &ps, .now_ms = fixed_ms};
    cr_eboards *e = cr_eboards_new(&cfg);
    cr_board_infer *bi = cr_board_infer_new("23946", NULL, noop_infer, NULL);
    assert_non_null(e);
    assert_non_null(bi);

    cr_feed_event ev = {.t = 0, .kind = CR_FEED_CONNECT};
    snprintf(ev.board, sizeof ev.board, "23946");
    feed(e, bi, &ev, "/var/feeds/r1.feed");
    assert_int_equal(ps.n, 1);
    assert_string_equal(ps.p[0]->eboard, "23946");
    assert_string_equal(ps.p[0]->event->data,
                        "{\"serialnr\":\"23946\",\"source\":\"r1.feed\",\"state\":\"ACTIVE\","
                        "\"battery\":null,\"comment\":null,\"board\":null,\"flipped\":false,"
                        "\"clock\":null}");

    ev = pos_event(10, "23946", START);
    feed(e, bi, &ev, "/var/feeds/r1.feed");
    assert_int_equal(ps.n, 2);
    assert_string_equal(ps.p[1]->snapshot->data, "{\"serialnr\":\"23946\",\"flipped\":false,"
                                                 "\"board\":\"" START "\",\"clock\":null}");
    /* The same snapshot again: nothing new to publish. */
    feed(e, bi, &ev, "/var/feeds/r1.feed");
    assert_int_equal(ps.n, 2);

    cr_feed_event ck = {.t = 20, .kind = CR_FEED_CLOCK};
    snprintf(ck.board, sizeof ck.board, "23946");
    ck.u.clock.white_ms = 5400999;
    ck.u.clock.black_ms = 5399000;
    ck.u.clock.running = CR_WHITE;
    feed(e, bi, &ck, NULL);
    assert_int_equal(ps.n, 3);
    assert_string_equal(ps.p[2]->snapshot->data,
                        "{\"serialnr\":\"23946\",\"flipped\":false,\"board\":\"" START "\","
                        "\"clock\":{\"white\":5400,\"black\":5399,\"run\":true,"
                        "\"time\":1587948082875}}");

    /* A live link's health: battery, source, the board turned round. */
    cr_dgt_health h = {.state = CR_LINK_ACTIVE, .battery_percent = 84, .rotated = true};
    snprintf(h.id, sizeof h.id, "23946");
    cr_eboards_health(e, "serial:/dev/ttyACM0", &h);
    assert_int_equal(ps.n, 4);
    json_t *o = json_loads(ps.p[3]->event->data, 0, NULL);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "battery")), "84%");
    assert_string_equal(json_string_value(json_object_get(o, "source")), "serial:/dev/ttyACM0");
    assert_true(json_is_true(json_object_get(o, "flipped")));
    /* Turned back: a1 is White's corner again. */
    assert_string_equal(json_string_value(json_object_get(o, "board")),
                        "RNBKQBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbkqbnr");
    json_decref(o);

    h.state = CR_LINK_LOST;
    cr_eboards_health(e, "serial:/dev/ttyACM0", &h);
    assert_int_equal(ps.n, 5);
    assert_non_null(strstr(ps.p[4]->event->data, "\"state\":\"INACTIVE\""));

    pubs_free(&ps);
    cr_eboards_free(e);
    cr_board_infer_free(bi);
}

/* RAW-only boards: the decoded board dump reaches the state. */
static void test_raw_board(void **state)
{
    (void)state;
    pubs ps = {0};
    cr_eboards_config cfg = {.publish = take_pub, .data = &ps, .now_ms = fixed_ms};
    cr_eboards *e = cr_eboards_new(&cfg);
    cr_board_infer *bi = cr_board_infer_new("7", NULL, noop_infer, NULL);
    /* DGT_BOARD_DUMP of the start position: a8 first, DGT piece codes */
    static const uint8_t dump[3 + 64] = {
        0x86, 0x00, 0x43, 8, 9, 10, 12, 11, 10, 9, 8, 7, 7, 7, 7, 7, 7, 7, 7, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1,
        1, 1, 1, 1, 1, 2, 3, 4, 6, 5, 4, 3, 2};
    cr_feed_event ev = {.t = 0, .kind = CR_FEED_RAW};
    snprintf(ev.board, sizeof ev.board, "7");
    ev.u.raw.bytes = dump;
    ev.u.raw.len = sizeof dump;
    feed(e, bi, &ev, NULL);
    assert_int_equal(ps.n, 1);
    assert_non_null(strstr(ps.p[0]->snapshot->data, "\"board\":\"" START "\""));
    pubs_free(&ps);
    cr_eboards_free(e);
    cr_board_infer_free(bi);
}

static void test_quiet_rebuild(void **state)
{
    (void)state;
    pubs ps = {0};
    cr_eboards_config cfg = {.publish = take_pub, .data = &ps, .now_ms = fixed_ms};
    cr_eboards *e = cr_eboards_new(&cfg);
    cr_board_infer *a = cr_board_infer_new("A", NULL, noop_infer, NULL);
    cr_board_infer *b = cr_board_infer_new("B", NULL, noop_infer, NULL);
    cr_eboards_set_quiet(e, true);
    cr_feed_event ev = pos_event(0, "A", START);
    feed(e, a, &ev, NULL);
    ev = pos_event(5, "A", E4);
    feed(e, a, &ev, NULL);
    ev = pos_event(5, "B", START);
    cr_eboards_feed(e, &ev, b, NULL, "hall-2");
    assert_int_equal(cr_board_infer_feed(b, &ev), 0);
    assert_int_equal(ps.n, 0);
    cr_eboards_set_quiet(e, false); /* each board once, in its last state */
    assert_int_equal(ps.n, 2);
    assert_string_equal(ps.p[0]->eboard, "A");
    assert_non_null(strstr(ps.p[0]->snapshot->data, E4));
    assert_non_null(strstr(ps.p[1]->event->data, "\"source\":\"agent:hall-2\""));
    assert_int_equal(cr_eboards_count(e), 2);
    pubs_free(&ps);
    cr_eboards_free(e);
    cr_board_infer_free(a);
    cr_board_infer_free(b);
    cr_eboards_free(NULL);
    cr_eboards_feed(NULL, &ev, b, NULL, NULL); /* off: nothing */
}

/*----- net/livechess -----*/

static int64_t lc_ms(void)
{
    return 1000;
}

static void publish_state(cr_livechess *lc, const char *id, const char *board)
{
    cr_pub *p = cr_pub_new(CR_PUB_EBOARD);
    char text[300];
    snprintf(p->eboard, sizeof p->eboard, "%s", id);
    snprintf(text, sizeof text, "{\"serialnr\":\"%s\",\"board\":\"%s\"}", id, board);
    p->event = cr_buf_new(text, strlen(text));
    snprintf(text, sizeof text, "{\"board\":\"%s\"}", board);
    p->snapshot = cr_buf_new(text, strlen(text));
    cr_livechess_apply(lc, p);
    cr_pub_free(p);
}

static void say(cr_livechess *lc, cr_lc_conn *c, const char *text)
{
    cr_livechess_message(lc, c, text, strlen(text));
}

/* The next frame is exactly `want`. */
static void expect(cr_lc_conn *c, const char *want)
{
    cr_buf *b = cr_livechess_next(c);
    assert_non_null(b);
    assert_string_equal(b->data, want);
    cr_buf_unref(b);
}

/* The next frame's "param" contains `part`, with this response and id. */
static void expect_has(cr_lc_conn *c, const char *response, const char *id, const char *part)
{
    cr_buf *b = cr_livechess_next(c);
    assert_non_null(b);
    char head[80];
    snprintf(head, sizeof head, "{\"response\":\"%s\",\"id\":%s,", response, id);
    assert_memory_equal(b->data, head, strlen(head));
    if (!strstr(b->data, part)) {
        fail_msg("%s has no %s", b->data, part);
    }
    cr_buf_unref(b);
}

static void test_calls(void **state)
{
    (void)state;
    cr_livechess_config cfg = {.now_ms = lc_ms, .rate = 1000};
    cr_livechess *lc = cr_livechess_new(&cfg);
    cr_lc_conn c;
    assert_true(cr_livechess_open(lc, &c, NULL));
    say(lc, &c, "{\"id\":1,\"call\":\"eboards\"}");
    expect(&c, "{\"response\":\"call\",\"id\":1,\"param\":[],\"time\":1000}");
    publish_state(lc, "23946", START);
    publish_state(lc, "77", "8/8/8/8/8/8/8/8");
    assert_int_equal(cr_livechess_board_count(lc), 2);
    say(lc, &c, "{\"id\":2,\"call\":\"eboards\"}");
    expect(&c, "{\"response\":\"call\",\"id\":2,\"param\":[{\"serialnr\":\"23946\",\"board\":\""
               START "\"},{\"serialnr\":\"77\",\"board\":\"8/8/8/8/8/8/8/8\"}],\"time\":1000}");
    assert_null(cr_livechess_next(&c));

    say(lc, &c, "{\"id\":3,\"call\":\"subscribe\",\"param\":{\"feed\":\"eboardevent\",\"id\":9,"
                "\"param\":{\"serialnr\":\"nope\"}}}");
    expect_has(&c, "error", "3", "unknown serialnr 'nope'");
    /* a serialnr cut within a UTF-8 sequence is still answered */
    say(lc, &c, "{\"id\":31,\"call\":\"subscribe\",\"param\":{\"feed\":\"eboardevent\",\"id\":9,"
                "\"param\":{\"serialnr\":\"x" "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
                "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
                "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9x\"}}}");
    expect_has(&c, "error", "31", "unknown serialnr 'x??");
    say(lc, &c, "{\"id\":4,\"call\":\"subscribe\",\"param\":{\"feed\":\"eboardevent\",\"id\":9,"
                "\"param\":{\"serialnr\":\"23946\"}}}");
    expect(&c, "{\"response\":\"call\",\"id\":4,\"param\":null,\"time\":1000}");
    expect(&c, "{\"response\":\"feed\",\"id\":9,\"param\":{\"board\":\"" START "\"},\"time\":1000}");
    say(lc, &c, "{\"id\":5,\"call\":\"subscribe\",\"param\":{\"feed\":\"eboardevent\",\"id\":9,"
                "\"param\":{\"serialnr\":\"77\"}}}");
    expect_has(&c, "error", "5", "subscription id 9 is in use");
    say(lc, &c, "{\"id\":6,\"call\":\"subscribe\",\"param\":{\"feed\":\"clock\",\"id\":10,"
                "\"param\":{\"serialnr\":\"77\"}}}");
    expect_has(&c, "error", "6", "unknown feed 'clock'");

    publish_state(lc, "23946", E4);
    expect(&c, "{\"response\":\"feed\",\"id\":9,\"param\":{\"board\":\"" E4 "\"},\"time\":1000}");
    publish_state(lc, "77", START); /* not followed */
    assert_null(cr_livechess_next(&c));
    /* A change of the entry only (its state, battery): no feed message. */
    cr_pub *p = cr_pub_new(CR_PUB_EBOARD);
    snprintf(p->eboard, sizeof p->eboard, "23946");
    p->event = cr_buf_new("{\"state\":\"INACTIVE\"}", 20);
    p->snapshot = cr_buf_new("{\"board\":\"" E4 "\"}", strlen("{\"board\":\"" E4 "\"}"));
    cr_livechess_apply(lc, p);
    cr_pub_free(p);
    assert_null(cr_livechess_next(&c));
    say(lc, &c, "{\"id\":13,\"call\":\"eboards\"}");
    expect_has(&c, "call", "13", "INACTIVE");

    say(lc, &c, "{\"id\":7,\"call\":\"setup\",\"param\":{}}");
    expect(&c, "{\"response\":\"error\",\"id\":7,\"param\":\"unknown call 'setup': this API is "
               "read-only (eboards, subscribe, unsubscribe)\",\"time\":1000}");
    say(lc, &c, "{\"id\":8,\"call\"");
    expect_has(&c, "error", "null", "bad JSON");
    say(lc, &c, "[1,2]");
    expect_has(&c, "error", "null", "a call is");
    say(lc, &c, "{\"id\":\"x\",\"call\":\"eboards\"}");
    expect_has(&c, "error", "null", "a call is");

    say(lc, &c, "{\"id\":11,\"call\":\"unsubscribe\",\"param\":{\"id\":42}}");
    expect_has(&c, "error", "11", "no such subscription");
    publish_state(lc, "23946", START); /* queued, then dropped by the unsubscribe */
    say(lc, &c, "{\"id\":12,\"call\":\"unsubscribe\",\"param\":{\"id\":9}}");
    expect(&c, "{\"response\":\"call\",\"id\":12,\"param\":null,\"time\":1000}");
    publish_state(lc, "23946", E4);
    assert_null(cr_livechess_next(&c));
    assert_false(c.closing);
    cr_livechess_close(lc, &c);
    cr_livechess_free(lc);
}

/* A client that does not read: each subscription keeps its latest states
 * only; answers pile up to a bound, then it is closed. */
static void test_backlog(void **state)
{
    (void)state;
    cr_livechess_config cfg = {.now_ms = lc_ms, .rate = 1000};
    cr_livechess *lc = cr_livechess_new(&cfg);
    cr_lc_conn c;
    assert_true(cr_livechess_open(lc, &c, NULL));
    publish_state(lc, "A", "8/8/8/8/8/8/8/8");
    publish_state(lc, "B", "8/8/8/8/8/8/8/8");
    say(lc, &c, "{\"id\":1,\"call\":\"subscribe\",\"param\":{\"feed\":\"eboardevent\",\"id\":1,"
                "\"param\":{\"serialnr\":\"A\"}}}");
    say(lc, &c, "{\"id\":2,\"call\":\"subscribe\",\"param\":{\"feed\":\"eboardevent\",\"id\":2,"
                "\"param\":{\"serialnr\":\"B\"}}}");
    char placement[16];
    for (int i = 1; i <= 8; i++) {
        for (int k = 0; k < 10; k++) {
            snprintf(placement, sizeof placement, "%d/8/8/8/8/8/8/%d", i, k + 1 > 8 ? 8 : k + 1);
            publish_state(lc, "A", placement);
        }
        publish_state(lc, "B", i % 2 ? START : E4);
    }
    expect_has(&c, "call", "1", "null");
    expect_has(&c, "call", "2", "null");
    int a = 0, b = 0;
    cr_buf *m, *last_a = NULL;
    while ((m = cr_livechess_next(&c)) != NULL) {
        if (strstr(m->data, "\"id\":1,")) {
            a++;
            cr_buf_unref(last_a);
            last_a = cr_buf_ref(m);
        } else {
            b++;
        }
        cr_buf_unref(m);
    }
    assert_int_equal(a, CR_LC_SUB_BACKLOG);
    assert_int_equal(b, CR_LC_SUB_BACKLOG);
    assert_non_null(strstr(last_a->data, "\"board\":\"8/8/8/8/8/8/8/8\""));
    cr_buf_unref(last_a);

    for (int i = 0; i < CR_LC_ANSWER_BACKLOG; i++) {
        say(lc, &c, "{\"id\":1,\"call\":\"eboards\"}");
    }
    assert_false(c.closing);
    say(lc, &c, "{\"id\":1,\"call\":\"eboards\"}");
    assert_true(c.closing);
    cr_livechess_close(lc, &c);

    /* Nothing but garbage: closed after a few faults. */
    assert_true(cr_livechess_open(lc, &c, NULL));
    for (int i = 0; i <= CR_LC_FAULTS; i++) {
        assert_false(c.closing);
        say(lc, &c, "not json");
    }
    assert_true(c.closing);
    cr_livechess_close(lc, &c);
    cr_livechess_free(lc);
}

static void test_rate_and_cap(void **state)
{
    (void)state;
    cr_livechess_config cfg = {.now_ms = lc_ms, .rate = 2, .connections = 1};
    cr_livechess *lc = cr_livechess_new(&cfg);
    cr_lc_conn c, d;
    assert_true(cr_livechess_open(lc, &c, NULL));
    assert_false(cr_livechess_open(lc, &d, NULL)); /* over the cap */
    say(lc, &c, "{\"id\":1,\"call\":\"eboards\"}");
    say(lc, &c, "{\"id\":2,\"call\":\"eboards\"}");
    say(lc, &c, "{\"id\":3,\"call\":\"eboards\"}");
    expect_has(&c, "call", "1", "[]");
    expect_has(&c, "call", "2", "[]");
    expect_has(&c, "error", "null", "rate limit");
    cr_livechess_close(lc, &c);
    assert_true(cr_livechess_open(lc, &d, NULL));
    cr_livechess_close(lc, &d);
    cr_livechess_free(lc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_board_state_json), cmocka_unit_test(test_raw_board),
        cmocka_unit_test(test_quiet_rebuild),    cmocka_unit_test(test_calls),
        cmocka_unit_test(test_backlog),          cmocka_unit_test(test_rate_and_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
