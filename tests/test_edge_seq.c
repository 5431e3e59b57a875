/* relay/edge/edge_seq: an edge applies the venue's events in seq order
 * whatever order the stream delivers them in; duplicates are dropped,
 * a gap waits for the missing seqs and is skipped after the wait, and an
 * evaluation waits for the events up to its Cr-After seq. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "edge/edge_seq.h"

enum { WAIT = 10 * 1000 * 1000 };

/* What the resequencer handed over: seq of an event, -seq of an eval. */
typedef struct seen {
    int64_t got[64];
    int n;
} seen;

static void on_event(void *data, const cr_edge_msg *m)
{
    seen *s = data;
    assert_true(s->n < 64);
    assert_false(m->eval);
    s->got[s->n++] = m->seq;
}

static void on_eval(void *data, const cr_edge_msg *m)
{
    seen *s = data;
    assert_true(s->n < 64);
    assert_true(m->eval);
    s->got[s->n++] = -m->seq;
}

static cr_edge_msg *msg(int64_t seq, bool eval)
{
    char text[64];
    int n = snprintf(text, sizeof text, "{\"seq\":%lld}", (long long)seq);
    cr_edge_msg *m = cr_edge_msg_new(text, (size_t)n);
    assert_non_null(m);
    m->seq = seq;
    m->eval = eval;
    return m;
}

static cr_edge_seq *make(seen *s, int pending_max)
{
    memset(s, 0, sizeof *s);
    cr_edge_seq_config cfg = {
        .event = on_event, .eval = on_eval, .data = s, .pending_max = pending_max};
    cr_edge_seq *q = cr_edge_seq_new(&cfg);
    assert_non_null(q);
    return q;
}

/* The events of seqs (0 ends), all at time now. */
static void feed(cr_edge_seq *q, const int64_t *seqs, int64_t now)
{
    for (; *seqs; seqs++) {
        cr_edge_seq_take(q, msg(*seqs, false), now);
    }
}

static void expect(const seen *s, const int64_t *want, int n)
{
    assert_int_equal(s->n, n);
    for (int i = 0; i < n; i++) {
        if (s->got[i] != want[i]) {
            fail_msg("handed over #%d: %lld, expected %lld", i, (long long)s->got[i],
                     (long long)want[i]);
        }
    }
}

static cr_edge_seq_stats stats(const cr_edge_seq *q)
{
    cr_edge_seq_stats st;
    cr_edge_seq_get_stats(q, &st);
    return st;
}

static void test_in_order(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    feed(q, (const int64_t[]){1, 2, 3, 0}, 1);
    expect(&s, (const int64_t[]){1, 2, 3}, 3);
    assert_true(stats(q).done_seq == 3);
    assert_int_equal(stats(q).pending, 0);
    cr_edge_seq_free(q);
}

static void test_out_of_order(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    feed(q, (const int64_t[]){3, 5, 4, 0}, 1);
    assert_int_equal(s.n, 0); /* all wait for 1 and 2 */
    assert_int_equal(stats(q).pending, 3);
    feed(q, (const int64_t[]){2, 0}, 2);
    assert_int_equal(s.n, 0);
    feed(q, (const int64_t[]){1, 0}, 3);
    expect(&s, (const int64_t[]){1, 2, 3, 4, 5}, 5);
    assert_int_equal(stats(q).pending, 0);
    assert_true(stats(q).skipped == 0);
    /* nothing waits: a tick long after skips nothing */
    assert_true(cr_edge_seq_tick(q, 3 + 2 * WAIT, WAIT) == 0);
    cr_edge_seq_free(q);
}

static void test_duplicates(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    /* 1 again after it was applied; 4 twice while it waits */
    feed(q, (const int64_t[]){1, 1, 4, 4, 2, 3, 2, 4, 0}, 1);
    expect(&s, (const int64_t[]){1, 2, 3, 4}, 4);
    assert_true(stats(q).duplicates == 4);
    cr_edge_seq_free(q);
}

static void test_gap_skipped_after_wait(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    int64_t t0 = 1000;
    feed(q, (const int64_t[]){1, 2, 0}, t0);
    feed(q, (const int64_t[]){5, 6, 0}, t0 + 10); /* 3 and 4 missing */
    expect(&s, (const int64_t[]){1, 2}, 2);
    assert_true(cr_edge_seq_tick(q, t0 + 10 + WAIT, WAIT) == 0); /* not yet */
    assert_int_equal(s.n, 2);
    assert_true(cr_edge_seq_tick(q, t0 + 11 + WAIT, WAIT) == 2);
    expect(&s, (const int64_t[]){1, 2, 5, 6}, 4);
    assert_true(stats(q).skipped == 2);
    assert_true(stats(q).done_seq == 6);
    /* a missing seq that turns up late is a duplicate */
    feed(q, (const int64_t[]){3, 7, 0}, t0 + 20 + WAIT);
    expect(&s, (const int64_t[]){1, 2, 5, 6, 7}, 5);
    assert_true(stats(q).duplicates == 1);
    cr_edge_seq_free(q);
}

static void test_two_gaps(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    feed(q, (const int64_t[]){2, 5, 0}, 100);
    /* the first skip goes up to 2 only; 5 waits anew from then */
    assert_true(cr_edge_seq_tick(q, 101 + WAIT, WAIT) == 1);
    expect(&s, (const int64_t[]){2}, 1);
    assert_int_equal(stats(q).pending, 1);
    assert_true(cr_edge_seq_tick(q, 102 + WAIT, WAIT) == 0);
    feed(q, (const int64_t[]){3, 0}, 103 + WAIT);
    expect(&s, (const int64_t[]){2, 3}, 2);
    assert_true(cr_edge_seq_skip(q, 104 + WAIT) == 1);
    expect(&s, (const int64_t[]){2, 3, 5}, 3);
    assert_true(stats(q).skipped == 2);
    cr_edge_seq_free(q);
}

static void test_full_pending_skips(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 3);
    feed(q, (const int64_t[]){1, 3, 4, 6, 0}, 1);
    expect(&s, (const int64_t[]){1}, 1);
    /* a fourth waiting event: the gap at 2 is given up, then 5's */
    feed(q, (const int64_t[]){7, 0}, 2);
    expect(&s, (const int64_t[]){1, 3, 4}, 3);
    assert_int_equal(stats(q).pending, 2);
    feed(q, (const int64_t[]){5, 0}, 3);
    expect(&s, (const int64_t[]){1, 3, 4, 5, 6, 7}, 6);
    assert_true(stats(q).skipped == 1);
    cr_edge_seq_free(q);
}

static void test_evals_wait_for_their_events(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    feed(q, (const int64_t[]){1, 0}, 1);
    cr_edge_seq_take(q, msg(1, true), 1); /* its move is in: at once */
    cr_edge_seq_take(q, msg(3, true), 1); /* waits for 2 and 3 */
    cr_edge_seq_take(q, msg(2, true), 1);
    expect(&s, (const int64_t[]){1, -1}, 2);
    assert_int_equal(stats(q).evals, 2);
    feed(q, (const int64_t[]){3, 0}, 2);
    expect(&s, (const int64_t[]){1, -1}, 2);
    feed(q, (const int64_t[]){2, 0}, 3);
    /* the events first, then the evals in arrival order */
    expect(&s, (const int64_t[]){1, -1, 2, 3, -3, -2}, 6);
    assert_int_equal(stats(q).evals, 0);
    cr_edge_seq_free(q);
}

static void test_eval_after_skipped_gap(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    feed(q, (const int64_t[]){1, 4, 0}, 1);
    cr_edge_seq_take(q, msg(3, true), 1); /* after an event that never comes */
    assert_true(cr_edge_seq_tick(q, 2 + WAIT, WAIT) == 2);
    expect(&s, (const int64_t[]){1, 4, -3}, 3);
    cr_edge_seq_free(q);
}

static void test_free_with_waiting(void **state)
{
    (void)state;
    seen s;
    cr_edge_seq *q = make(&s, 0);
    feed(q, (const int64_t[]){5, 9, 0}, 1);
    cr_edge_seq_take(q, msg(7, true), 1);
    cr_edge_seq_free(q); /* frees what waits (ASan: no leak) */
    cr_edge_seq_free(NULL);
    assert_int_equal(s.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_order),
        cmocka_unit_test(test_out_of_order),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_gap_skipped_after_wait),
        cmocka_unit_test(test_two_gaps),
        cmocka_unit_test(test_full_pending_skips),
        cmocka_unit_test(test_evals_wait_for_their_events),
        cmocka_unit_test(test_eval_after_skipped_gap),
        cmocka_unit_test(test_free_with_waiting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
