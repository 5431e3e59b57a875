/* The core's string builder (src/strbuf.h): growable and fixed kinds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "strbuf.h"

static void test_growable(void **state)
{
    (void)state;
    cr_sb b;
    cr_sb_init(&b);
    cr_sb_str(&b, "1. e4");
    cr_sb_char(&b, ' ');
    cr_sb_fmt(&b, "{[%%clk %d:%02d]}", 1, 30);
    assert_string_equal(b.p, "1. e4 {[%clk 1:30]}");
    /* Past the first allocation, and a format longer than the scratch. */
    char big[2000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cr_sb_fmt(&b, "<%s>", big);
    for (int i = 0; i < 100; i++) {
        cr_sb_add(&b, "abcdefgh", 8);
    }
    size_t len = 0;
    char *s = cr_sb_take(&b, &len);
    assert_non_null(s);
    assert_int_equal(len, strlen("1. e4 {[%clk 1:30]}") + 2 + 1999 + 800);
    assert_int_equal(strlen(s), len);
    assert_int_equal(s[19], '<');
    assert_memory_equal(s + len - 8, "abcdefgh", 8);
    free(s);
    assert_null(b.p);
    assert_int_equal(b.len, 0);
    /* Nothing appended: an empty string, not NULL. */
    s = cr_sb_take(&b, &len);
    assert_non_null(s);
    assert_string_equal(s, "");
    assert_int_equal(len, 0);
    free(s);
    cr_sb_str(&b, "dropped");
    cr_sb_free(&b);
    assert_null(b.p);
}

static void test_fixed(void **state)
{
    (void)state;
    char buf[8];
    cr_sb b;
    cr_sb_init_fixed(&b, buf, sizeof buf);
    assert_string_equal(buf, "");
    cr_sb_str(&b, "1234567"); /* exactly fits with the NUL */
    assert_false(b.failed);
    assert_string_equal(buf, "1234567");
    cr_sb_fmt(&b, "%d", 89);
    /* snprintf semantics: len counts everything, the buffer keeps what fits. */
    assert_true(b.failed);
    assert_int_equal(b.len, 9);
    assert_string_equal(buf, "1234567");
    cr_sb_free(&b); /* the caller's buffer is not freed */
    assert_string_equal(buf, "1234567");
    /* A zero-sized buffer only counts. */
    cr_sb_init_fixed(&b, buf, 0);
    cr_sb_str(&b, "abc");
    assert_int_equal(b.len, 3);
    assert_true(b.failed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growable),
        cmocka_unit_test(test_fixed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
