/* relay/net/limits: the token throttle per client address and its budget
 * of checks (issue 27): a right token passes a throttled address, but only
 * within the budget, so that guessing stays bounded; other addresses and
 * the next minute are untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "net/limits.h"
#include "util/addr.h"

enum { MINUTE = 60000000 };

/* What the server does with one token (net/server_ws.c): 200 (right),
 * 401 (wrong), 429 (throttled or over the budget: not checked). */
static int try_token(cr_limits *l, const unsigned char *a, int64_t now, bool right)
{
    if (!cr_limits_token_check_at(l, a, now)) {
        return 429;
    }
    if (right) {
        return 200;
    }
    return cr_limits_token_wrong_at(l, a, now) ? 429 : 401;
}

static void test_budget(void **state)
{
    (void)state;
    cr_limits_config cfg = {.connections = 10, .token_failures = 3, .token_checks = 8};
    cr_limits *l = cr_limits_new(&cfg);
    assert_non_null(l);
    unsigned char a[16], b[16];
    assert_true(cr_addr_parse("203.0.113.5", a));
    assert_true(cr_addr_parse("198.51.100.7", b));
    int64_t t0 = 1000000;
    /* An address without wrong tokens is never counted: no budget. */
    for (int i = 0; i < 100; i++) {
        assert_int_equal(try_token(l, b, t0, true), 200);
    }
    /* Three wrong, then wrong ones are 429; the right one still passes. */
    assert_int_equal(try_token(l, a, t0, false), 401);
    assert_int_equal(try_token(l, a, t0, false), 401);
    assert_int_equal(try_token(l, a, t0, false), 401);
    assert_int_equal(try_token(l, a, t0, false), 429);
    assert_int_equal(try_token(l, a, t0, true), 200); /* check 5 of 8 */
    assert_int_equal(try_token(l, a, t0 + 1, false), 429);
    assert_int_equal(try_token(l, a, t0 + 2, false), 429);
    assert_int_equal(try_token(l, a, t0 + 3, true), 200); /* check 8 of 8 */
    /* Beyond the budget: nothing is checked, the right token neither. */
    assert_false(cr_limits_token_check_at(l, a, t0 + 4));
    assert_int_equal(try_token(l, a, t0 + 5, true), 429);
    /* Another address is untouched, and a wrong one there counts there. */
    assert_int_equal(try_token(l, b, t0 + 6, false), 401);
    assert_int_equal(try_token(l, b, t0 + 6, true), 200);
    /* The next minute starts afresh. */
    assert_int_equal(try_token(l, a, t0 + MINUTE, true), 200);
    assert_int_equal(try_token(l, a, t0 + MINUTE, false), 401);
    cr_limits_free(l);
}

/* A guesser at full speed gets token_checks tries a minute, whatever it
 * sends; the default budget is 60. */
static void test_guessing_bounded(void **state)
{
    (void)state;
    cr_limits_config cfg = {.connections = 10};
    cr_limits *l = cr_limits_new(&cfg);
    assert_non_null(l);
    unsigned char a[16];
    assert_true(cr_addr_parse("2001:db8::9", a));
    int checked = 0;
    for (int i = 0; i < 10000; i++) {
        if (cr_limits_token_check_at(l, a, 5000000 + i)) {
            checked++;
            cr_limits_token_wrong_at(l, a, 5000000 + i);
        }
    }
    assert_int_equal(checked, 60);
    cr_limits_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_guessing_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
