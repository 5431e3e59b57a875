/* Tests of the agents' records (relay/agent/agent_records.h), the one
 * object the agent link's two threads share: event numbers received,
 * journaled and made durable, acks, watermarks and the tick bounds they
 * give, connections replaced and closed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <pthread.h>
#include <string.h>

#include "agent/agent_records.h"

static int conn_a, conn_b; /* two connections (only their addresses count) */

static void test_numbers_and_acks(void **state)
{
    (void)state;
    cr_agent_records *s = cr_agent_records_new();
    assert_non_null(s);
    assert_null(cr_agent_records_get(s, "venue", false));
    cr_agent_hello_info info;
    cr_agent_rec *r = cr_agent_records_hello(s, "venue", &conn_a, "127.0.0.1", 0, 1000, &info);
    assert_non_null(r);
    assert_ptr_equal(cr_agent_records_get(s, "venue", false), r);
    assert_string_equal(cr_agent_rec_name(r), "venue");
    assert_null(info.replaced);
    assert_int_equal(info.durable, 0);

    /* events 1..3, then 2..5: 2 and 3 are duplicates */
    size_t skip;
    int64_t old;
    assert_int_equal(cr_agent_records_received(s, r, 1, 3, 1100, &skip, &old), 1);
    assert_int_equal(skip, 0);
    assert_int_equal(old, 0);
    assert_int_equal(cr_agent_records_received(s, r, 2, 4, 1200, &skip, &old), 2);
    assert_int_equal(skip, 2);
    assert_int_equal(old, 3);
    /* a tick: from the next number, none */
    assert_int_equal(cr_agent_records_received(s, r, 0, 0, 1300, &skip, &old), 6);

    /* the loop journals 1..5 at positions 10..14 */
    int64_t off;
    assert_true(cr_agent_records_fix_offset(s, r, 500, &off));
    assert_false(cr_agent_records_fix_offset(s, r, 900, &off)); /* fixed at the first */
    assert_int_equal(off, 500);
    cr_feed_event ev = {.kind = CR_FEED_CONNECT, .t = 1100};
    snprintf(ev.board, sizeof ev.board, "B1");
    for (int64_t n = 1; n <= 5; n++) {
        assert_false(cr_agent_records_have(s, r, n));
        assert_false(cr_agent_records_delivered(s, r, n, (uint64_t)(9 + n), true, &ev, 3));
        assert_true(cr_agent_records_have(s, r, n));
    }
    assert_int_equal(cr_agent_records_journaled(s, "venue"), 5);
    int64_t durable;
    assert_true(cr_agent_records_current(s, r, &conn_a, &durable));
    assert_int_equal(durable, 0);
    assert_false(cr_agent_records_synced(s, 13)); /* the last line not durable yet */
    assert_true(cr_agent_records_synced(s, 14));
    assert_false(cr_agent_records_synced(s, 14)); /* nothing new */
    assert_true(cr_agent_records_current(s, r, &conn_a, &durable));
    assert_int_equal(durable, 5);

    /* a lost line: no ack again in this run, said once */
    assert_true(cr_agent_records_delivered(s, r, 6, 0, true, NULL, 0));
    assert_false(cr_agent_records_delivered(s, r, 7, 20, true, NULL, 0));
    assert_false(cr_agent_records_synced(s, UINT64_MAX));

    cr_buf *b = cr_agent_records_status_json(s);
    assert_non_null(b);
    json_t *j = json_loadb(b->data, b->len, 0, NULL);
    assert_non_null(j);
    json_t *a = json_array_get(json_object_get(j, "agents"), 0);
    assert_int_equal(json_integer_value(json_object_get(a, "duplicates")), 2);
    assert_int_equal(json_integer_value(json_object_get(a, "journaled")), 7);
    assert_int_equal(json_integer_value(json_object_get(a, "acked")), 5);
    assert_int_equal(json_integer_value(json_object_get(a, "skipped")), 2);
    json_t *board = json_array_get(json_object_get(a, "boards"), 0);
    assert_string_equal(json_string_value(json_object_get(board, "board")), "B1");
    assert_int_equal(json_integer_value(json_object_get(board, "events")), 5);
    json_decref(j);
    cr_buf_unref(b);
    cr_agent_records_free(s);
}

static void test_handoff_failed(void **state)
{
    (void)state;
    cr_agent_records *s = cr_agent_records_new();
    cr_agent_hello_info info;
    cr_agent_rec *r = cr_agent_records_hello(s, "venue", &conn_a, "?", 0, 0, &info);
    size_t skip;
    int64_t old;
    cr_agent_records_received(s, r, 1, 4, 10, &skip, &old);
    cr_agent_records_unreceive(s, r, 4, old); /* the queue was full */
    assert_int_equal(cr_agent_records_received(s, r, 1, 4, 10, &skip, &old), 1);
    assert_int_equal(skip, 0); /* they come again, not as duplicates */
    cr_agent_records_free(s);
}

static int64_t notified_count;
static void *notified_conn;
static void note(void *conn)
{
    notified_count++;
    notified_conn = conn;
}

static void test_connections(void **state)
{
    (void)state;
    cr_agent_records *s = cr_agent_records_new();
    cr_agent_hello_info info;
    cr_agent_rec *r = cr_agent_records_hello(s, "venue", &conn_a, "?", 0, 0, &info);
    assert_ptr_equal(cr_agent_records_hello(s, "venue", &conn_b, "?", 0, 0, &info), r);
    assert_ptr_equal(info.replaced, &conn_a); /* the old one is to be closed */
    int64_t durable;
    assert_false(cr_agent_records_current(s, r, &conn_a, &durable));
    assert_false(cr_agent_records_closed(s, r, &conn_a)); /* not the current one */
    assert_true(cr_agent_records_current(s, r, &conn_b, &durable));

    cr_agent_records_delivered(s, r, 1, 1, true, NULL, 0);
    cr_agent_records_synced(s, 1);
    cr_agent_records_notify(s, note);
    assert_int_equal(notified_count, 1);
    assert_ptr_equal(notified_conn, &conn_b);
    cr_agent_records_notify(s, note); /* announced once */
    assert_int_equal(notified_count, 1);

    assert_true(cr_agent_records_closed(s, r, &conn_b));
    assert_false(cr_agent_records_current(s, r, &conn_b, &durable));
    cr_agent_records_free(s);
}

static void test_bounds(void **state)
{
    (void)state;
    cr_agent_records *s = cr_agent_records_new();
    cr_agent_hello_info info;
    cr_agent_rec *r = cr_agent_records_hello(s, "venue", &conn_a, "?", 0, 0, &info);
    int64_t off;
    cr_agent_records_fix_offset(s, r, 1000, &off);
    /* no watermark yet: it holds nothing */
    assert_int_equal(cr_agent_records_tick_bound(s, 5000, 0, 10), 5000);
    cr_agent_records_watermark(s, r, 2500);
    cr_agent_records_watermark(s, r, 2000); /* never back */
    assert_int_equal(cr_agent_records_board_bound(s, "venue", 5000), 3500);
    assert_int_equal(cr_agent_records_board_bound(s, "other", 5000), 5000);
    int64_t now = INT64_MAX / 4;
    cr_agent_records_seen(s, r, 0, false);
    /* seen just now: it holds the common ticks; away too long: not */
    assert_int_equal(cr_agent_records_tick_bound(s, 5000, 0, INT64_MAX / 2), 3500);
    assert_int_equal(cr_agent_records_tick_bound(s, 5000, now, 10), 5000);
    /* its bye reached the loop: its boards are free */
    cr_agent_records_seen(s, r, 3, true);
    assert_int_equal(cr_agent_records_bye_in(s, r), 3);
    assert_int_equal(cr_agent_records_board_bound(s, "venue", 5000), 5000);
    assert_int_equal(cr_agent_records_tick_bound(s, 5000, 0, INT64_MAX / 2), 5000);
    cr_agent_records_free(s);
}

/* The scan at start: the numbers, the offset and the watermark come back. */
static void test_scan(void **state)
{
    (void)state;
    cr_agent_records *s = cr_agent_records_new();
    cr_agent_rec *r = cr_agent_records_get(s, "venue", true);
    cr_agent_records_scan_back(s, r);
    cr_agent_records_scan_event(s, r, 7, -200, "B1", true, 9000);
    cr_agent_records_scan_event(s, r, 8, -200, NULL, false, 0);
    assert_int_equal(cr_agent_records_journaled(s, "venue"), 8);
    assert_true(cr_agent_records_have(s, r, 8));
    assert_false(cr_agent_records_have(s, r, 9));
    assert_int_equal(cr_agent_records_board_bound(s, "venue", 1 << 30), 9000);
    int64_t off;
    assert_false(cr_agent_records_fix_offset(s, r, 5, &off)); /* the journal's */
    assert_int_equal(off, -200);
    cr_agent_records_scan_bye(s, r, 8);
    assert_int_equal(cr_agent_records_board_bound(s, "venue", 1 << 30), 1 << 30);
    cr_agent_records_free(s);
}

/* Both threads at once (the server's hellos and ticks, the loop's
 * deliveries and syncs): every event counted once (built with
 * -fsanitize=thread, this suite also checks the locking). */
static void *server_side(void *data)
{
    cr_agent_records *s = data;
    for (int i = 0; i < 2000; i++) {
        cr_agent_hello_info info;
        cr_agent_rec *r = cr_agent_records_hello(s, i % 2 ? "a" : "b", &conn_a, "?", i, i, &info);
        size_t skip;
        int64_t old;
        cr_agent_records_received(s, r, 0, 0, i, &skip, &old);
        cr_agent_records_notify(s, note);
        cr_buf_unref(cr_agent_records_status_json(s));
    }
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    cr_agent_records *s = cr_agent_records_new();
    cr_agent_rec *a = cr_agent_records_get(s, "a", true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, server_side, s), 0);
    for (int64_t n = 1; n <= 2000; n++) {
        cr_agent_records_delivered(s, a, n, (uint64_t)n, true, NULL, 0);
        cr_agent_records_synced(s, (uint64_t)n);
        cr_agent_records_tick_bound(s, n, 0, 10);
    }
    pthread_join(t, NULL);
    assert_int_equal(cr_agent_records_journaled(s, "a"), 2000);
    int64_t durable;
    cr_agent_records_current(s, a, &conn_a, &durable);
    assert_int_equal(durable, 2000);
    cr_agent_records_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_and_acks), cmocka_unit_test(test_handoff_failed),
        cmocka_unit_test(test_connections),      cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_scan),             cmocka_unit_test(test_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
