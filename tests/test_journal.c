/* Tests of the journal: append, runs in order, torn last line, group sync. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/journal.h"

typedef struct collected {
    char lines[32][128];
    char files[32][32];
    int count;
    int stop_at;
} collected;

static int collect(void *data, const char *line, size_t len, const char *file, int lineno)
{
    collected *c = data;
    (void)lineno;
    if (c->count == c->stop_at) {
        return 42;
    }
    assert_true(c->count < 32 && len < 128);
    memcpy(c->lines[c->count], line, len);
    c->lines[c->count][len] = '\0';
    snprintf(c->files[c->count], sizeof c->files[0], "%s", file);
    c->count++;
    return 0;
}

static void test_runs_in_order(void **state)
{
    (void)state;
    char base[] = "/tmp/cr_test_journal_XXXXXX";
    assert_non_null(mkdtemp(base));
    char dir[128];
    snprintf(dir, sizeof dir, "%s/state", base); /* created by open */
    cr_error err;
    collected c = {.stop_at = -1};
    assert_int_equal(cr_journal_replay(dir, collect, &c, NULL, &err), 0); /* none yet */
    assert_int_equal(c.count, 0);

    cr_journal *j = cr_journal_open(dir, &err);
    assert_non_null(j);
    assert_non_null(strstr(cr_journal_path(j), "journal-000001.feed"));
    assert_false(cr_journal_dirty(j));
    assert_int_equal(cr_journal_append(j, "0 B1 connect\n", 13), 0);
    assert_int_equal(cr_journal_append(j, "5 B1 pos 8/8/8/8/8/8/8/8", 24), 0);
    assert_true(cr_journal_dirty(j));
    assert_int_equal(cr_journal_sync(j), 0);
    assert_int_equal(cr_journal_sync(j), 0); /* nothing new: no second fsync */
    assert_int_equal(cr_journal_syncs(j), 1);
    cr_journal_close(j);

    j = cr_journal_open(dir, &err);
    assert_non_null(strstr(cr_journal_path(j), "journal-000002.feed"));
    assert_int_equal(cr_journal_append(j, "# tick 9\n", 9), 0);
    cr_journal_close(j);

    cr_journal_stats st;
    assert_int_equal(cr_journal_replay(dir, collect, &c, &st, &err), 0);
    assert_int_equal(c.count, 3);
    assert_string_equal(c.lines[0], "0 B1 connect");
    assert_string_equal(c.lines[1], "5 B1 pos 8/8/8/8/8/8/8/8");
    assert_string_equal(c.lines[2], "# tick 9");
    assert_string_equal(c.files[2], "journal-000002.feed");
    assert_int_equal(st.files, 2);
    assert_int_equal(st.lines, 3);
    assert_int_equal(st.torn, 0);

    /* The callback can stop the reading. */
    collected c2 = {.stop_at = 1};
    assert_int_equal(cr_journal_replay(dir, collect, &c2, NULL, &err), 42);
    cr_test_rm_rf(dir);
    rmdir(base);
}

static void test_torn_line_dropped(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cr_error err;
    cr_journal *j = cr_journal_open(dir, &err);
    assert_int_equal(cr_journal_append(j, "1 B pos 8/8/8/8/8/8/8/8\n", 24), 0);
    char path[256];
    snprintf(path, sizeof path, "%s", cr_journal_path(j));
    cr_journal_close(j);
    /* A crash in the middle of a write: half a line at the end. */
    FILE *f = fopen(path, "a");
    fputs("2 B pos rnbqkbnr/pppp", f);
    fclose(f);
    /* a stray file that is not a journal is ignored */
    char other[300];
    snprintf(other, sizeof other, "%s/journal-x.feed", dir);
    f = fopen(other, "w");
    fputs("garbage\n", f);
    fclose(f);

    collected c = {.stop_at = -1};
    cr_journal_stats st;
    assert_int_equal(cr_journal_replay(dir, collect, &c, &st, &err), 0);
    assert_int_equal(c.count, 1);
    assert_int_equal(st.torn, 1);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_size, 24 + 68); /* the torn tail was cut: the record and its seal stay */

    /* Reading again finds a clean file; a new run goes on after it. */
    collected c2 = {.stop_at = -1};
    assert_int_equal(cr_journal_replay(dir, collect, &c2, &st, &err), 0);
    assert_int_equal(st.torn, 0);
    assert_int_equal(c2.count, 1);
    j = cr_journal_open(dir, &err);
    assert_non_null(strstr(cr_journal_path(j), "journal-000002.feed"));
    cr_journal_close(j);
    cr_test_rm_rf(dir);
}

static void test_open_fails_cleanly(void **state)
{
    (void)state;
    cr_error err;
    assert_null(cr_journal_open("/proc/no/such/dir", &err));
    assert_int_equal(err.code, CR_EIO);
    assert_non_null(strstr(err.text, "/proc/no/such/dir"));
}

/* A disk that refuses writes: `room` bytes more are written, then the write
 * that would pass it writes what fits (a torn line) and fails ENOSPC. */
typedef struct full_disk {
    long room;     /* < 0: no limit */
    bool sync_fails;
    int truncates;
} full_disk;

static ssize_t full_write(void *data, int fd, const void *buf, size_t len)
{
    full_disk *d = data;
    if (d->room >= 0 && (long)len > d->room) {
        if (d->room == 0) {
            errno = ENOSPC;
            return -1;
        }
        len = (size_t)d->room;
    }
    ssize_t n = write(fd, buf, len);
    if (n > 0 && d->room >= 0) {
        d->room -= n;
    }
    return n;
}

static int full_sync(void *data, int fd)
{
    full_disk *d = data;
    if (d->sync_fails) {
        errno = EIO;
        return -1;
    }
    return fdatasync(fd);
}

static int full_truncate(void *data, int fd, off_t size)
{
    full_disk *d = data;
    d->truncates++;
    return ftruncate(fd, size);
}

/* Issue 16 finding 1: nothing counts as durable before it is on disk; a
 * torn line is cut before anything is appended again; held lines are
 * written in order once there is room. */
static void test_full_disk(void **state)
{
    (void)state;
    char base[] = "/tmp/cr_test_journal_XXXXXX";
    assert_non_null(mkdtemp(base));
    cr_error err;
    cr_journal *j = cr_journal_open(base, &err);
    assert_non_null(j);
    full_disk d = {.room = -1};
    cr_journal_io io = {full_write, full_sync, full_truncate, &d};
    cr_journal_set_io(j, &io);

    assert_int_equal(cr_journal_append(j, "1 B1 connect", 12), 0);
    assert_int_equal(cr_journal_sync(j), 0);
    assert_int_equal(cr_journal_durable(j), 1);
    assert_null(cr_journal_problem(j));

    d.room = 5; /* the next line is torn */
    assert_int_equal(cr_journal_append(j, "2 B1 pos 8/8/8/8/8/8/8/8", 24), 0);
    assert_int_equal(cr_journal_append(j, "3 B1 disconnect", 15), 0);
    assert_int_equal(cr_journal_appended(j), 3);
    assert_non_null(cr_journal_problem(j));
    assert_non_null(strstr(cr_journal_problem(j), "No space left"));
    assert_int_equal(cr_journal_sync(j), CR_EIO); /* still no room */
    assert_int_equal(cr_journal_durable(j), 1);   /* nothing new acked */
    assert_true(cr_journal_dirty(j));

    d.room = -1; /* room again */
    d.sync_fails = true;
    assert_int_equal(cr_journal_sync(j), CR_EIO); /* written, but fsync fails */
    assert_int_equal(cr_journal_durable(j), 1);
    d.sync_fails = false;
    assert_int_equal(cr_journal_sync(j), 0);
    assert_int_equal(cr_journal_durable(j), 3);
    assert_null(cr_journal_problem(j));
    assert_true(d.truncates >= 1);
    char path[256];
    snprintf(path, sizeof path, "%s", cr_journal_path(j));
    cr_journal_close(j);

    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[1024] = "", line[256];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "#= ", 3) != 0) { /* the records, without their seals */
            strcat(text, line);
        }
    }
    fclose(f);
    assert_string_equal(text, "1 B1 connect\n2 B1 pos 8/8/8/8/8/8/8/8\n3 B1 disconnect\n");
}

/* A state folder with two runs of three records each; returns the path of
 * the first journal. */
static void two_runs(char *dir, char *first, size_t size)
{
    cr_error err;
    for (int run = 0; run < 2; run++) {
        cr_journal *j = cr_journal_open(dir, &err);
        assert_non_null(j);
        if (run == 0) {
            snprintf(first, size, "%s", cr_journal_path(j));
        }
        char line[64];
        for (int k = 0; k < 3; k++) {
            int n = snprintf(line, sizeof line, "%d B%d pos 8/8/8/8/8/8/8/8", 10 * run + k, k);
            assert_int_equal(cr_journal_append(j, line, (size_t)n), 0);
        }
        if (run == 0) { /* an agent's comment and its line: one record */
            assert_int_equal(cr_journal_append(j, "# agent a 1 0\n5 B9 connect\n", 27), 0);
        }
        cr_journal_close(j);
    }
}

static void spit(const char *path, const char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
}

static cr_journal_stats verify(const char *dir)
{
    cr_journal_stats st;
    cr_error err;
    assert_int_equal(cr_journal_verify(dir, &st, &err), 0);
    return st;
}

/* Seals: a sound folder verifies; a single changed byte, a removed line and
 * two swapped records are each caught, with the first bad file and line. */
static void test_seals(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_journal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char first[300];
    two_runs(dir, first, sizeof first);
    cr_journal_stats st = verify(dir);
    assert_int_equal(st.files, 2);
    assert_int_equal(st.bad, 0);
    assert_int_equal(st.lines, 3 + 2 + 3);
    size_t len;
    char *orig = cr_test_must_read(first, &len);

    /* one byte changed: line 3 of the first file ("2 B2 ..." -> "2 B3 ...") */
    char *b = malloc(len + 1);
    memcpy(b, orig, len + 1);
    char *p = strstr(b, "2 B2 pos");
    p[3] = '3';
    spit(first, b, len);
    st = verify(dir);
    assert_int_equal(st.bad, 1);
    assert_string_equal(st.bad_file, "journal-000001.feed");
    assert_int_equal(st.bad_line, 5); /* record 3 starts at line 5 (each record: line + seal) */
    /* the rebuild hands the lines over all the same, and says so */
    collected c = {.stop_at = -1};
    cr_error err;
    assert_int_equal(cr_journal_replay(dir, collect, &c, &st, &err), 0);
    assert_int_equal(st.bad_records, 1);
    assert_int_equal(c.count, 8);
    for (int k = 0; k < c.count; k++) {
        assert_true(strncmp(c.lines[k], "#= ", 3) != 0); /* never a seal line */
    }

    /* a line removed: the second record's line */
    memcpy(b, orig, len + 1);
    p = strstr(b, "1 B1 pos");
    char *nl = strchr(p, '\n');
    memmove(p, nl + 1, strlen(nl + 1) + 1);
    spit(first, b, strlen(b));
    st = verify(dir);
    assert_true(st.bad >= 1);
    assert_string_equal(st.bad_file, "journal-000001.feed");
    assert_int_equal(st.bad_line, 3);

    /* two records swapped */
    memcpy(b, orig, len + 1);
    char *r1 = strstr(b, "0 B0 pos"), *r2 = strstr(b, "1 B1 pos"), *r3 = strstr(b, "2 B2 pos");
    size_t l1 = (size_t)(r2 - r1), l2 = (size_t)(r3 - r2);
    char tmp[512];
    memcpy(tmp, r2, l2);
    memcpy(tmp + l2, r1, l1);
    memcpy(r1, tmp, l1 + l2);
    spit(first, b, len);
    st = verify(dir);
    assert_true(st.bad >= 1);
    assert_int_equal(st.bad_line, 1);

    /* seals removed from the first file: caught by the second's chain */
    memcpy(b, orig, len + 1);
    size_t w = 0;
    for (char *q = b; *q;) {
        char *e = strchr(q, '\n');
        size_t n = (size_t)(e - q) + 1;
        if (strncmp(q, "#= ", 3) != 0) {
            memmove(b + w, q, n);
            w += n;
        }
        q = e + 1;
    }
    spit(first, b, w);
    st = verify(dir);
    assert_true(st.bad >= 1);
    assert_int_equal(st.unsealed, 1);
    assert_string_equal(st.bad_file, "journal-000002.feed");

    spit(first, orig, len); /* as written: sound again */
    assert_int_equal(verify(dir).bad, 0);
    free(b);
    free(orig);
    cr_test_rm_rf(dir);
}

static cr_journal_cmd round_trip(const cr_journal_cmd *c)
{
    char line[1024], why[80];
    int n = cr_journal_cmd_format(c, line, sizeof line);
    assert_true(n > 0);
    assert_int_equal(line[n - 1], '\n');
    assert_null(memchr(line, '\n', (size_t)n - 1)); /* one line */
    cr_journal_cmd back;
    assert_int_equal(cr_journal_cmd_parse(line, (size_t)n - 1, &back, why, sizeof why), 1);
    return back;
}

/* Issue 16 finding 7: commands come back from the journal exactly. */
static void test_commands_round_trip(void **state)
{
    (void)state;
    cr_journal_cmd c = {.kind = CR_JCMD_TAG, .game = 7, .tick = -1, .t = -1};
    snprintf(c.name, sizeof c.name, "a");
    snprintf(c.value, sizeof c.value, "hello");
    cr_journal_cmd b = round_trip(&c);
    assert_int_equal(b.kind, CR_JCMD_TAG);
    assert_int_equal(b.game, 7);
    assert_int_equal(b.tick, -1);
    assert_int_equal(b.t, -1);
    assert_string_equal(b.name, "a");
    assert_string_equal(b.value, "hello");

    snprintf(c.name, sizeof c.name, "WhiteFideIdentifier_2"); /* over 15 characters */
    snprintf(c.value, sizeof c.value, " two  spaces\tand a tab\nand \"quotes\" \\ ");
    b = round_trip(&c);
    assert_string_equal(b.name, c.name);
    assert_string_equal(b.value, c.value);

    cr_journal_cmd r = {.game = 2147483647, .result = CR_RESULT_DRAW, .tick = -1, .t = -1};
    snprintf(r.who, sizeof r.who, "chief");
    b = round_trip(&r);
    assert_int_equal(b.kind, CR_JCMD_RESULT);
    assert_int_equal(b.game, 2147483647);
    assert_int_equal(b.result, CR_RESULT_DRAW);
    assert_string_equal(b.who, "chief");
    assert_string_equal(b.reason, "");
}

static int parse(const char *line, cr_journal_cmd *c)
{
    char why[80];
    return cr_journal_cmd_parse(line, strlen(line), c, why, sizeof why);
}

/* Issue 24: an arbiter's result keeps its reason, a take-back or replaced
 * move comes back as the correction and the moves it made, with who, when
 * and the feed times it came at. */
static void test_arbiter_commands_round_trip(void **state)
{
    (void)state;
    cr_journal_cmd r = {.kind = CR_JCMD_RESULT, .game = 3, .result = CR_RESULT_BLACK,
                        .at = 1764427200123, .tick = 1764427100, .t = 1764427123};
    snprintf(r.reason, sizeof r.reason, "flag fall, \"quoted\"");
    snprintf(r.who, sizeof r.who, "chief arbiter");
    cr_journal_cmd b = round_trip(&r);
    assert_int_equal(b.kind, CR_JCMD_RESULT);
    assert_int_equal(b.result, CR_RESULT_BLACK);
    assert_string_equal(b.reason, r.reason);
    assert_string_equal(b.who, "chief arbiter");
    assert_true(b.at == r.at && b.tick == r.tick && b.t == r.t);

    cr_journal_cmd c = {.kind = CR_JCMD_CORRECTION, .game = 3, .ply = 89, .tick = -1, .t = -1};
    b = round_trip(&c);
    assert_int_equal(b.kind, CR_JCMD_CORRECTION);
    assert_int_equal(b.ply, 89);

    /* A legal move: its UCI and the ply's clock, %emt, stamp, flags. */
    cr_game *g = cr_game_new(NULL);
    assert_non_null(g);
    cr_position pos = *cr_game_position(g);
    assert_int_equal(cr_game_push(g, cr_move_from_uci(&pos, "e2e4"), 5398000, 1764427111, CR_PLY_DRAW_OFFER), 0);
    cr_journal_cmd m = {.kind = CR_JCMD_MOVE, .game = 3, .ply = 0, .tick = -1, .t = -1};
    m.move = *cr_game_ply(g, 0);
    m.move.emt_ms = 2000;
    m.move.fits = 2;
    b = round_trip(&m);
    assert_int_equal(b.kind, CR_JCMD_MOVE);
    assert_int_equal(b.ply, 0);
    assert_string_equal(b.move.uci, "e2e4");
    assert_int_equal(b.move.move, CR_MOVE_NONE); /* resolved by the reader in its game */
    assert_int_equal(cr_move_from_uci(&pos, b.move.uci), m.move.move);
    assert_int_equal(b.move.flags, CR_PLY_DRAW_OFFER);
    assert_int_equal(b.move.clock_ms, 5398000);
    assert_int_equal(b.move.emt_ms, 2000);
    assert_int_equal(b.move.ts, 1764427111);
    assert_int_equal(b.move.fits, 2);

    /* An illegal ply: its long form and the position it left. */
    cr_position after;
    assert_int_equal(cr_position_from_fen(&after, "rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQ1BNR b kq - 1 1", NULL), 0);
    assert_int_equal(cr_game_push_illegal(g, &after, "Ke1-e3", -1, -1), 0);
    m.ply = 1;
    m.move = *cr_game_ply(g, 1);
    b = round_trip(&m);
    assert_true(b.move.flags & CR_PLY_ILLEGAL);
    assert_string_equal(b.move.san, "Ke1-e3");
    assert_int_equal(b.move.after.key, after.key);
    assert_int_equal(b.move.clock_ms, -1);
    cr_game_free(g);

    /* A rejected claim's time for the opponent: a command of its own, no
     * store event. */
    cr_journal_cmd a = {.kind = CR_JCMD_CLOCK_ADJUST, .game = 3, .color = CR_WHITE,
                        .delta_ms = 120000, .tick = 100, .t = 123};
    b = round_trip(&a);
    assert_int_equal(b.kind, CR_JCMD_CLOCK_ADJUST);
    assert_int_equal(b.color, CR_WHITE);
    assert_int_equal(b.delta_ms, 120000);
    assert_int_equal(b.t, 123);
    assert_int_equal(parse("# cmd {\"cmd\":\"clock-adjust\",\"game\":3,\"color\":\"x\",\"ms\":5}", &b), -1);
}

static void test_command_lines_checked(void **state)
{
    (void)state;
    cr_journal_cmd c;
    assert_int_equal(parse("# tick 12", &c), 0);
    assert_int_equal(parse("1234 B1 pos rnbqkbnr", &c), 0);
    /* older journals */
    assert_int_equal(parse("# cmd result 2 1-0", &c), 1);
    assert_int_equal(c.game, 2);
    assert_int_equal(c.result, CR_RESULT_WHITE);
    assert_int_equal(parse("# cmd tag 3 a hello world", &c), 1);
    assert_string_equal(c.name, "a");
    assert_string_equal(c.value, "hello world");
    /* corrupted lines are errors, never silently nothing */
    assert_int_equal(parse("# cmd result 2 1-1", &c), -1);
    assert_int_equal(parse("# cmd result x 1-0", &c), -1);
    assert_int_equal(parse("# cmd frob 2 1-0", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"result\",\"game\":2,\"result\":\"1-1\"}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"result\",\"game\":4294967297,\"result\":\"1-0\"}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"tag\",\"game\":1,\"name\":\"X\\\"]\",\"value\":\"v\"}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"tag\",\"game\":1", &c), -1);
    /* arbiters' corrections and moves */
    assert_int_equal(parse("# cmd {\"cmd\":\"correction\",\"game\":1}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"correction\",\"game\":1,\"ply\":-2}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"move\",\"game\":1,\"ply\":0}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"move\",\"game\":1,\"ply\":0,\"uci\":\"e2e4\",\"clock\":\"x\"}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"move\",\"game\":1,\"ply\":0,\"flags\":2,\"san\":\"Ke1-e3\",\"after\":\"8/8 w\"}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"result\",\"game\":1,\"result\":\"1-0\",\"t\":\"soon\"}", &c), -1);
    assert_int_equal(parse("# cmd {\"cmd\":\"move\",\"game\":1,\"ply\":4,\"uci\":\"g1f3\"}", &c), 1);
    assert_int_equal(c.kind, CR_JCMD_MOVE);
    assert_int_equal(c.move.clock_ms, -1);
    assert_int_equal(c.move.fits, 1);
    assert_int_equal(c.tick, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_in_order),
        cmocka_unit_test(test_torn_line_dropped),
        cmocka_unit_test(test_open_fails_cleanly),
        cmocka_unit_test(test_full_disk),
        cmocka_unit_test(test_seals),
        cmocka_unit_test(test_commands_round_trip),
        cmocka_unit_test(test_arbiter_commands_round_trip),
        cmocka_unit_test(test_command_lines_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
