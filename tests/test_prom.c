/* relay/prom: label values escaped as the Prometheus text format wants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "util/prom.h"

static void expect_label(const char *in, const char *want)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    cr_prom_label(f, in);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(out, want);
    free(out);
}

static void test_label(void **state)
{
    (void)state;
    expect_label("", "");
    expect_label("T16.2", "T16.2");
    expect_label("/dev/ttyACM0", "/dev/ttyACM0");
    expect_label("a \"b\" c", "a \\\"b\\\" c");
    expect_label("C:\\boards", "C:\\\\boards");
    expect_label("line\nnext", "line\\nnext");
    expect_label("Кр \xe2\x99\x94", "Кр \xe2\x99\x94"); /* UTF-8 as it is */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
