/* The feed clock an emulator shares with its host (drivers/emu_clock.h):
 * both ends over one file, standing and running time, the byte counts the
 * emulator's lockstep waits on, and files that are not such a clock. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "board_link.h"
#include "emu_clock.h"

static char dir[64];
static char path[128];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/cr_emu_clock_XXXXXX");
    if (!mkdtemp(dir)) {
        return -1;
    }
    snprintf(path, sizeof path, "%s/clock", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return rmdir(dir);
}

static void both_ends_see_one_time(void **state)
{
    (void)state;
    cr_emu_clock *emu = cr_emu_clock_create(path, 10.0);
    assert_non_null(emu);
    cr_emu_clock *host = cr_emu_clock_open(path);
    assert_non_null(host);
    cr_emu_clock_stand(emu, 41000);
    assert_int_equal(cr_emu_clock_now(host), 41000);
    usleep(30000); /* standing: real time does not move it */
    assert_int_equal(cr_emu_clock_now(host), 41000);
    /* running at 10x from 41000: 30 ms of real time are 300 feed ms */
    int64_t t0 = cr_dgt_now_ms();
    cr_emu_clock_run(emu, 41000, t0);
    usleep(30000);
    int64_t real = cr_dgt_now_ms() - t0;
    int64_t t = cr_emu_clock_now(host);
    assert_true(t >= 41000 + 10 * 30);
    assert_true(t <= 41000 + 10 * real);
    cr_emu_clock_stand(emu, 42000);
    assert_int_equal(cr_emu_clock_now(host), 42000);
    cr_emu_clock_close(host);
    cr_emu_clock_close(emu);
}

static void bytes_sent_handled_and_lost(void **state)
{
    (void)state;
    cr_emu_clock *emu = cr_emu_clock_create(path, 1.0);
    cr_emu_clock *host = cr_emu_clock_open(path);
    assert_non_null(emu);
    assert_non_null(host);
    assert_int_equal(cr_emu_clock_unhandled(emu), 0);
    cr_emu_clock_sent(emu, 100);
    assert_int_equal(cr_emu_clock_unhandled(emu), 100);
    cr_emu_clock_handled(host, 60);
    assert_int_equal(cr_emu_clock_unhandled(emu), 40);
    assert_int_equal(cr_emu_clock_handled_count(emu), 60);
    cr_emu_clock_forget(emu, 40); /* the host flushed them */
    assert_int_equal(cr_emu_clock_unhandled(emu), 0);
    cr_emu_clock_handled(host, 10); /* counted lost too early: it handled them */
    assert_int_equal(cr_emu_clock_unhandled(emu), -10);
    cr_emu_clock_forget(emu, -10);
    assert_int_equal(cr_emu_clock_unhandled(emu), 0);
    cr_emu_clock_close(host);
    cr_emu_clock_close(emu);
    /* a new emulator starts from nothing */
    emu = cr_emu_clock_create(path, 1.0);
    assert_non_null(emu);
    assert_int_equal(cr_emu_clock_unhandled(emu), 0);
    assert_int_equal(cr_emu_clock_handled_count(emu), 0);
    cr_emu_clock_close(emu);
}

static void not_a_clock(void **state)
{
    (void)state;
    char other[160];
    snprintf(other, sizeof other, "%s/missing", dir);
    errno = 0;
    assert_null(cr_emu_clock_open(other));
    assert_int_equal(errno, ENOENT);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("not a clock\n", f);
    fclose(f);
    errno = 0;
    assert_null(cr_emu_clock_open(path));
    assert_int_equal(errno, EINVAL);
    /* the right size, but not made by an emulator */
    f = fopen(path, "w");
    assert_non_null(f);
    cr_emu_clock *emu = cr_emu_clock_create(other, 1.0);
    assert_non_null(emu);
    cr_emu_clock_close(emu);
    long size = 0;
    FILE *g = fopen(other, "r");
    assert_non_null(g);
    fseek(g, 0, SEEK_END);
    size = ftell(g);
    fclose(g);
    for (long i = 0; i < size; i++) {
        fputc('x', f);
    }
    fclose(f);
    errno = 0;
    assert_null(cr_emu_clock_open(path));
    assert_int_equal(errno, EINVAL);
    unlink(other);
    assert_null(cr_emu_clock_create("/nonexistent/dir/clock", 1.0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(both_ends_see_one_time, setup, teardown),
        cmocka_unit_test_setup_teardown(bytes_sent_handled_and_lost, setup, teardown),
        cmocka_unit_test_setup_teardown(not_a_clock, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
