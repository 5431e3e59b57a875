/* Tests of the venue agent's journal: append, ack, compaction, restart
 * recovery, a torn last line, a damaged file, rebase. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent_journal.h"

static char *slurp(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return cr_test_read_file(p, NULL);
}

static void append_raw(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "ab");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static bool starts(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (const char *c = text; *c; c++) {
        n += *c == '\n';
    }
    return n;
}

static cr_agent_journal *open_ok(const char *dir, int64_t now)
{
    cr_error err;
    cr_agent_journal *j = cr_agent_journal_open(dir, now, &err);
    if (!j) {
        fail_msg("open: %s", err.text);
    }
    return j;
}

static void line_is(cr_agent_journal *j, int64_t n, const char *want)
{
    size_t len = 0;
    const char *l = cr_agent_journal_line(j, n, &len);
    assert_non_null(l);
    assert_int_equal(len, strlen(want));
    assert_memory_equal(l, want, len);
}

static void test_append_ack_compact(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cr_agent_journal *j = open_ok(dir, 1000);
    assert_int_equal(cr_agent_journal_last(j), 0);
    assert_int_equal(cr_agent_journal_acked(j), 0);
    assert_int_equal(cr_agent_journal_epoch(j), 1000);
    int64_t n = 0;
    assert_int_equal(cr_agent_journal_append(j, "0 b1 connect", 12, &n), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cr_agent_journal_append(j, "5 b1 clock 1:00:00 1:00:00 -\n", 29, &n), 0);
    assert_int_equal(n, 2);
    assert_int_equal(cr_agent_journal_append(j, "9 b1 disconnect", 15, &n), 0);
    assert_int_equal(n, 3);
    assert_int_equal(cr_agent_journal_sync(j), 0);
    line_is(j, 1, "0 b1 connect");
    line_is(j, 2, "5 b1 clock 1:00:00 1:00:00 -");
    assert_null(cr_agent_journal_line(j, 4, NULL));
    assert_null(cr_agent_journal_line(j, 0, NULL));
    /* Bad lines are refused and take no number. */
    assert_int_equal(cr_agent_journal_append(j, "a\nb", 3, &n), CR_EINVAL);
    assert_int_equal(cr_agent_journal_append(j, "\n", 1, &n), CR_EINVAL);
    assert_int_equal(cr_agent_journal_last(j), 3);

    /* A partial ack keeps the file; acked lines are no longer handed out. */
    assert_int_equal(cr_agent_journal_ack(j, 2), 0);
    assert_int_equal(cr_agent_journal_acked(j), 2);
    assert_null(cr_agent_journal_line(j, 2, NULL));
    line_is(j, 3, "9 b1 disconnect");
    assert_int_equal(cr_agent_journal_compactions(j), 0);
    char *text = slurp(dir, "events.feed");
    assert_int_equal(count_lines(text), 8); /* header and 3 events, each with its seal */
    free(text);
    text = slurp(dir, "acked");
    assert_string_equal(text, "2\n");
    free(text);
    /* Old and future acks. */
    assert_int_equal(cr_agent_journal_ack(j, 1), 0);
    assert_int_equal(cr_agent_journal_acked(j), 2);
    assert_int_equal(cr_agent_journal_ack(j, 4), CR_ERANGE);

    /* Everything acked: compacted to the header alone, numbering goes on. */
    assert_int_equal(cr_agent_journal_ack(j, 3), 0);
    assert_int_equal(cr_agent_journal_compactions(j), 1);
    text = slurp(dir, "events.feed");
    assert_true(starts(text, "# chessrelay agent journal v2 base 3 epoch 1000\n#= "));
    assert_int_equal(count_lines(text), 2);
    free(text);
    assert_int_equal(cr_agent_journal_append(j, "20 b1 connect", 13, &n), 0);
    assert_int_equal(n, 4);
    line_is(j, 4, "20 b1 connect");
    cr_agent_journal_close(j);

    /* Restart: same numbers, same epoch, only the unacked event. */
    j = open_ok(dir, 999999);
    assert_int_equal(cr_agent_journal_epoch(j), 1000);
    assert_int_equal(cr_agent_journal_last(j), 4);
    assert_int_equal(cr_agent_journal_acked(j), 3);
    line_is(j, 4, "20 b1 connect");
    assert_int_equal(cr_agent_journal_torn(j), 0);
    cr_agent_journal_close(j);
    cr_test_rm_rf(dir);
}

static void test_restart_recovery(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cr_agent_journal *j = open_ok(dir, 5);
    char line[64];
    for (int i = 1; i <= 100; i++) {
        int len = snprintf(line, sizeof line, "%d b%d clock 0:10:00 0:10:00 w", i * 10, i % 3);
        assert_int_equal(cr_agent_journal_append(j, line, (size_t)len, NULL), 0);
    }
    assert_int_equal(cr_agent_journal_ack(j, 40), 0);
    /* A crash (no close): what was written is in the kernel, so a second
     * open sees the same journal. */
    cr_agent_journal *k = open_ok(dir, 6);
    assert_int_equal(cr_agent_journal_last(k), 100);
    assert_int_equal(cr_agent_journal_acked(k), 40);
    assert_null(cr_agent_journal_line(k, 40, NULL));
    snprintf(line, sizeof line, "%d b%d clock 0:10:00 0:10:00 w", 410, 41 % 3);
    line_is(k, 41, line);
    snprintf(line, sizeof line, "%d b%d clock 0:10:00 0:10:00 w", 1000, 100 % 3);
    line_is(k, 100, line);
    cr_agent_journal_close(k);
    cr_agent_journal_close(j);

    /* A lost acked file only means resending. */
    char p[512];
    snprintf(p, sizeof p, "%s/acked", dir);
    unlink(p);
    j = open_ok(dir, 7);
    assert_int_equal(cr_agent_journal_acked(j), 0);
    assert_int_equal(cr_agent_journal_last(j), 100);
    /* An acked file beyond the journal is clamped. */
    cr_agent_journal_close(j);
    FILE *f = fopen(p, "w");
    fputs("500\n", f);
    fclose(f);
    j = open_ok(dir, 7);
    assert_int_equal(cr_agent_journal_acked(j), 100);
    cr_agent_journal_close(j);
    cr_test_rm_rf(dir);
}

static void test_torn_last_line(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cr_agent_journal *j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_append(j, "0 b1 connect", 12, NULL), 0);
    assert_int_equal(cr_agent_journal_append(j, "10 b1 disconnect", 16, NULL), 0);
    cr_agent_journal_close(j);
    append_raw(dir, "events.feed", "20 b1 pos rnbqkbnr/ppp"); /* torn by a crash */
    j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_torn(j), 1);
    assert_int_equal(cr_agent_journal_last(j), 2);
    /* The torn bytes are gone from the file: the next event is whole. */
    int64_t n = 0;
    assert_int_equal(cr_agent_journal_append(j, "30 b1 connect", 13, &n), 0);
    assert_int_equal(n, 3);
    cr_agent_journal_close(j);
    char *text = slurp(dir, "events.feed");
    assert_non_null(strstr(text, "10 b1 disconnect\n#= "));
    assert_non_null(strstr(text, "30 b1 connect\n#= "));
    assert_null(strstr(text, "ppp"));
    free(text);
    j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_torn(j), 0);
    line_is(j, 3, "30 b1 connect");
    cr_agent_journal_close(j);
    cr_test_rm_rf(dir);
}

static void test_damaged_and_bad_paths(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    append_raw(dir, "events.feed", "hello world\n0 b1 connect\n");
    cr_error err;
    assert_null(cr_agent_journal_open(dir, 1, &err));
    assert_int_equal(err.code, CR_EIO);
    assert_non_null(strstr(err.text, "events.feed:1"));
    char p[512];
    snprintf(p, sizeof p, "%s/events.feed", dir);
    unlink(p);
    append_raw(dir, "events.feed", "# chessrelay agent journal v1 base 0 epoch 1\n0 b1 connect\n\n");
    assert_null(cr_agent_journal_open(dir, 1, &err));
    assert_non_null(strstr(err.text, "events.feed:3"));
    cr_test_rm_rf(dir);
    assert_null(cr_agent_journal_open("", 1, &err));
    assert_null(cr_agent_journal_open("/proc/no/such/dir", 1, &err));
    assert_int_equal(err.code, CR_EIO);
}

static void test_rebase_and_big_compaction(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cr_agent_journal *j = open_ok(dir, 1);
    char line[64];
    for (int i = 1; i <= 5000; i++) {
        int len = snprintf(line, sizeof line, "%d b1 clock 0:10:00 0:10:00 w", i);
        assert_int_equal(cr_agent_journal_append(j, line, (size_t)len, NULL), 0);
    }
    /* Many acked events compact even while some are outstanding. */
    assert_int_equal(cr_agent_journal_ack(j, 4500), 0);
    assert_int_equal(cr_agent_journal_compactions(j), 1);
    char *text = slurp(dir, "events.feed");
    assert_int_equal(count_lines(text), 1002);
    assert_non_null(strstr(text, "base 4500 epoch 1\n#= "));
    assert_true(starts(strstr(text, "base 4500 epoch 1\n#= ") + 18 + 67, "\n4501 b1"));
    free(text);
    line_is(j, 4501, "4501 b1 clock 0:10:00 0:10:00 w");
    /* The relay knows the agent up to 9000 (its state was lost): the 500
     * unacked events become 9001..9500. */
    assert_int_equal(cr_agent_journal_rebase(j, 4600), CR_EINVAL); /* nothing to renumber */
    assert_int_equal(cr_agent_journal_rebase(j, -1), CR_EINVAL);
    assert_int_equal(cr_agent_journal_rebase(j, 9000), 0);
    assert_int_equal(cr_agent_journal_acked(j), 9000);
    assert_int_equal(cr_agent_journal_last(j), 9500);
    line_is(j, 9001, "4501 b1 clock 0:10:00 0:10:00 w");
    cr_agent_journal_close(j);
    j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_acked(j), 9000);
    assert_int_equal(cr_agent_journal_last(j), 9500);
    line_is(j, 9500, "5000 b1 clock 0:10:00 0:10:00 w");
    /* The relay holds it only up to 100 (its journal lost or cut): the
     * relay's numbering wins, the unacked events become 101..600. */
    assert_int_equal(cr_agent_journal_rebase(j, 100), 0);
    assert_int_equal(cr_agent_journal_acked(j), 100);
    assert_int_equal(cr_agent_journal_last(j), 600);
    line_is(j, 101, "4501 b1 clock 0:10:00 0:10:00 w");
    cr_agent_journal_close(j);
    j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_acked(j), 100);
    line_is(j, 600, "5000 b1 clock 0:10:00 0:10:00 w");
    cr_agent_journal_close(j);
    cr_test_rm_rf(dir);
}

/* events.feed is sealed: a changed byte is found (the line named), the
 * events used all the same; a record whose seal never got written (a
 * crash) is torn; a v1 journal from before seals is rewritten with them. */
static void test_sealed(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cr_agent_journal *j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_append(j, "0 b1 connect", 12, NULL), 0);
    assert_int_equal(cr_agent_journal_append(j, "10 b1 disconnect", 16, NULL), 0);
    cr_agent_journal_close(j);
    j = open_ok(dir, 1);
    assert_null(cr_agent_journal_problem(j));
    cr_agent_journal_close(j);
    /* one byte: "10 b1 disconnect" (line 5) becomes "11 b1 ..." */
    char *text = slurp(dir, "events.feed");
    char *at = strstr(text, "10 b1 disconnect");
    assert_non_null(at);
    at[1] = '1';
    char p[512];
    snprintf(p, sizeof p, "%s/events.feed", dir);
    unlink(p);
    append_raw(dir, "events.feed", text);
    free(text);
    j = open_ok(dir, 1);
    assert_non_null(cr_agent_journal_problem(j));
    assert_non_null(
        strstr(cr_agent_journal_problem(j), "events.feed:5: the record does not match"));
    line_is(j, 2, "11 b1 disconnect");
    cr_agent_journal_close(j);
    /* a whole line without its seal: torn, cut off */
    unlink(p);
    j = open_ok(dir, 1);
    cr_agent_journal_close(j);
    append_raw(dir, "events.feed", "20 b1 connect\n");
    j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_torn(j), 1);
    assert_int_equal(cr_agent_journal_last(j), 0);
    cr_agent_journal_close(j);
    /* v1: read, rewritten as v2 with seals, nothing lost */
    unlink(p);
    append_raw(dir, "events.feed",
               "# chessrelay agent journal v1 base 7 epoch 42\n0 b1 connect\n5 b1 disconnect\n");
    j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_last(j), 9);
    assert_int_equal(cr_agent_journal_epoch(j), 42);
    line_is(j, 9, "5 b1 disconnect");
    assert_null(cr_agent_journal_problem(j));
    cr_agent_journal_close(j);
    text = slurp(dir, "events.feed");
    assert_true(starts(text, "# chessrelay agent journal v2 base 7 epoch 42\n#= "));
    assert_int_equal(count_lines(text), 6);
    free(text);
    j = open_ok(dir, 1);
    assert_int_equal(cr_agent_journal_last(j), 9);
    assert_null(cr_agent_journal_problem(j));
    cr_agent_journal_close(j);
    cr_test_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_ack_compact),
        cmocka_unit_test(test_restart_recovery),
        cmocka_unit_test(test_torn_last_line),
        cmocka_unit_test(test_sealed),
        cmocka_unit_test(test_damaged_and_bad_paths),
        cmocka_unit_test(test_rebase_and_big_compaction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
