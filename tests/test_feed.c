/* Feed format v1: every kind parsed and written back, errors with columns,
 * the streaming reader (line numbers, long lines, keep-going, timestamps
 * going backwards, a last line without newline). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cr/feed.h"

static int parse(const char *line, cr_feed_event *ev, char *scratch, size_t n, cr_error *err)
{
    return cr_feed_parse_line(line, strlen(line), ev, scratch, n, err);
}

static void roundtrip(const char *line)
{
    cr_feed_event ev;
    char scratch[512], out[600];
    cr_error err;
    assert_int_equal(parse(line, &ev, scratch, sizeof scratch, &err), 1);
    int n = cr_feed_format(&ev, out, sizeof out);
    assert_true(n > 0);
    assert_string_equal(out, line);
}

static void test_kinds(void **state)
{
    (void)state;
    cr_feed_event ev;
    char scratch[256];
    cr_error err;

    assert_int_equal(parse("1500 7 pos rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR\n", &ev, scratch, sizeof scratch,
                           &err),
                     1);
    assert_int_equal(ev.t, 1500);
    assert_string_equal(ev.board, "7");
    assert_int_equal(ev.kind, CR_FEED_POS);
    assert_int_equal(ev.u.squares[CR_SQ_E2], CR_NO_PIECE);
    assert_int_equal(ev.u.squares[CR_SQ_E1], CR_WK);
    assert_int_equal(ev.u.squares[CR_SQ_D8], CR_BQ);

    assert_int_equal(parse("1900   DGT-1.a_b   clock 1:29:58 0:00:05 b\r\n", &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.kind, CR_FEED_CLOCK);
    assert_string_equal(ev.board, "DGT-1.a_b");
    assert_int_equal(ev.u.clock.white_ms, (1 * 3600 + 29 * 60 + 58) * 1000);
    assert_int_equal(ev.u.clock.black_ms, 5000);
    assert_int_equal(ev.u.clock.running, CR_BLACK);
    assert_int_equal(parse("0 b clock 0:00:00 10:00:00 -", &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.u.clock.running, CR_CLOCK_STOPPED);
    assert_int_equal(ev.u.clock.black_ms, 36000000);

    assert_int_equal(parse("5 b raw 860042ff", &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.kind, CR_FEED_RAW);
    assert_int_equal(ev.u.raw.len, 4);
    assert_int_equal(ev.u.raw.bytes[0], 0x86);
    assert_int_equal(ev.u.raw.bytes[3], 0xff);

    assert_int_equal(parse("0 7 meta White Carlsen, Magnus  ", &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.kind, CR_FEED_META);
    assert_string_equal(ev.u.meta.key, "White");
    assert_string_equal(ev.u.meta.value, "Carlsen, Magnus");

    assert_int_equal(parse("3 7 connect", &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.kind, CR_FEED_CONNECT);
    assert_int_equal(parse("4 7 disconnect\n", &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.kind, CR_FEED_DISCONNECT);

    assert_int_equal(parse("# a comment", &ev, scratch, sizeof scratch, &err), 0);
    assert_int_equal(parse("   \r\n", &ev, scratch, sizeof scratch, &err), 0);
    assert_int_equal(parse("", &ev, scratch, sizeof scratch, &err), 0);
}

static void test_roundtrip(void **state)
{
    (void)state;
    roundtrip("0 7 pos rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR\n");
    roundtrip("1900 T16.2 clock 1:29:58 1:30:00 b\n");
    roundtrip("12 x raw 00ff10ab\n");
    roundtrip("0 Board_1 meta Event Let's Play!\n");
    roundtrip("9 a connect\n");
    roundtrip("9 a disconnect\n");
    char buf[8];
    cr_feed_event ev;
    char scratch[64];
    assert_int_equal(parse("100 b1 connect", &ev, scratch, sizeof scratch, NULL), 1);
    assert_int_equal(cr_feed_format(&ev, buf, sizeof buf), CR_ENOSPC);
    char clk[16];
    assert_int_equal(cr_feed_format_clock(5400999, clk, sizeof clk), 7);
    assert_string_equal(clk, "1:30:00");
    assert_int_equal(cr_feed_format_clock(-5, clk, sizeof clk), 7);
    assert_string_equal(clk, "0:00:00");
}

static void expect_error(const char *line, int column, const char *needle)
{
    cr_feed_event ev;
    char scratch[256];
    cr_error err;
    int rc = parse(line, &ev, scratch, sizeof scratch, &err);
    if (rc != CR_EFEED) {
        fail_msg("'%s' parsed (rc %d)", line, rc);
    }
    assert_int_equal(err.code, CR_EFEED);
    if (column) {
        assert_int_equal(err.column, column);
    }
    if (!strstr(err.text, needle)) {
        fail_msg("error for '%s' is '%s', wanted '%s'", line, err.text, needle);
    }
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("x 7 connect", 1, "timestamp");
    expect_error("-5 7 connect", 1, "timestamp");
    expect_error("99999999999999999999 7 connect", 1, "range");
    expect_error("5", 0, "board");
    expect_error("5 bad/id connect", 3, "board id");
    expect_error("5 0123456789012345678901234567890123456789012345678901234567890123456789 connect", 3, "board id");
    expect_error("5 b", 0, "kind");
    expect_error("5 b move e2e4", 5, "unknown kind");
    expect_error("5 b pos", 0, "placement");
    expect_error("5 b pos rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP", 0, "pos");
    expect_error("5 b pos 8/8/8/8/8/8/8/8 extra", 0, "after the placement");
    expect_error("5 b clock 1:30:00 1:30 w", 19, "black");
    expect_error("5 b clock 1:60:00 1:30:00 w", 11, "white");
    expect_error("5 b clock 1:30:00 1:30:00", 0, "running");
    expect_error("5 b clock 1:30:00 1:30:00 x", 27, "running");
    expect_error("5 b raw 0", 0, "even");
    expect_error("5 b raw 0G", 0, "hex");
    expect_error("5 b raw AB", 0, "hex");
    expect_error("5 b meta", 0, "key");
    expect_error("5 b meta Wh/te x", 0, "key");
    /* tag names checked at input: over 31 characters is an error of the line
     * (the relay would have cut it into another name), 31 is fine */
    expect_error("5 b meta WhiteFideIdentifierOfThePlayerXY x", 41, "key longer than 31");
    {
        cr_feed_event e31;
        char sc[128];
        cr_error er;
        assert_int_equal(
            parse("5 b meta A234567890123456789012345678901 v", &e31, sc, sizeof sc, &er), 1);
        assert_int_equal(strlen(e31.u.meta.key), 31);
    }
    expect_error("5 b connect now", 0, "no arguments");
    /* a NUL inside the line */
    cr_feed_event ev;
    char scratch[64];
    cr_error err;
    assert_int_equal(cr_feed_parse_line("5 b con\0nect", 12, &ev, scratch, sizeof scratch, &err), CR_EFEED);
    assert_int_equal(cr_feed_board_id_valid("ok-1.2_3", 8), true);
    assert_int_equal(cr_feed_board_id_valid("", 0), false);
    assert_int_equal(cr_feed_parse_clock("1:2:03", 6), -1);
    assert_int_equal(cr_feed_parse_clock("12:02:03", 8), (12 * 3600 + 2 * 60 + 3) * 1000);
}

static void test_reader(void **state)
{
    (void)state;
    /* a long meta value, a bad line, a timestamp going back, no final newline */
    size_t big = 100000;
    char *longval = malloc(big + 1);
    assert_non_null(longval);
    memset(longval, 'x', big);
    longval[big] = '\0';
    char *text = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&text, &len);
    assert_non_null(w);
    fprintf(w, "# header\n\n0 b1 connect\n10 b1 meta Annotator %s\n20 b1 bogus\n5 b1 pos 8/8/8/8/8/8/8/8\n"
               "30 b1 disconnect",
            longval);
    fclose(w);
    free(longval);

    /* from a FILE, then from the text in memory: the same lines and errors */
    for (int mode = 0; mode < 4; mode++) {
        int keep = mode & 1;
        FILE *in = NULL;
        cr_feed_reader *r;
        if (mode < 2) {
            in = fmemopen(text, len, "r");
            assert_non_null(in);
            r = cr_feed_reader_new(in, "t.feed");
        } else {
            r = cr_feed_reader_new_text(text, len, "t.feed");
        }
        assert_non_null(r);
        cr_feed_reader_set_keep_going(r, keep);
        cr_feed_event ev;
        cr_error err;
        assert_int_equal(cr_feed_reader_next(r, &ev, &err), 1);
        assert_int_equal(ev.kind, CR_FEED_CONNECT);
        assert_int_equal(cr_feed_reader_line(r), 3);
        assert_int_equal(cr_feed_reader_next(r, &ev, &err), 1);
        assert_int_equal(ev.kind, CR_FEED_META);
        assert_int_equal(strlen(ev.u.meta.value), big);
        assert_int_equal(cr_feed_reader_next(r, &ev, &err), CR_EFEED);
        assert_int_equal(err.line, 5);
        assert_non_null(strstr(err.text, "t.feed:5:"));
        int rc = cr_feed_reader_next(r, &ev, &err);
        if (keep) {
            assert_int_equal(rc, 1);
            assert_int_equal(ev.t, 10); /* clamped */
            assert_int_equal(err.code, CR_EFEED); /* the warning */
            assert_non_null(strstr(err.text, "t.feed:6:"));
        } else {
            assert_int_equal(rc, CR_EFEED);
            assert_non_null(strstr(err.text, "before the previous"));
        }
        assert_int_equal(cr_feed_reader_next(r, &ev, &err), 1);
        assert_int_equal(err.code, 0);
        assert_int_equal(ev.kind, CR_FEED_DISCONNECT);
        assert_int_equal(ev.t, 30);
        assert_int_equal(cr_feed_reader_line(r), 7);
        assert_int_equal(cr_feed_reader_next(r, &ev, &err), 0);
        assert_int_equal(cr_feed_reader_next(r, &ev, &err), 0);
        cr_feed_reader_free(r);
        if (in) {
            fclose(in);
        }
    }
    free(text);
    cr_feed_reader_free(NULL);
}

/* Every sample feed parses without an error. */
static void test_samples(void **state)
{
    (void)state;
    static const char *const names[] = {"p01", "p05", "p13", "p16", "pm01"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/feeds/%s.feed", CR_TEST_DATA_DIR, names[i]);
        FILE *in = fopen(path, "r");
        assert_non_null(in);
        cr_feed_reader *r = cr_feed_reader_new(in, path);
        cr_feed_event ev;
        cr_error err;
        int rc, n = 0, pos = 0;
        while ((rc = cr_feed_reader_next(r, &ev, &err)) == 1) {
            n++;
            pos += ev.kind == CR_FEED_POS;
            char line[CR_FEED_LINE_MAX];
            assert_true(cr_feed_format(&ev, line, sizeof line) > 0);
        }
        if (rc != 0) {
            fail_msg("%s", err.text);
        }
        assert_true(n > 100);
        assert_true(pos > 50);
        cr_feed_reader_free(r);
        /* The file's text in memory gives the same events, line for line. */
        rewind(in);
        char *text = NULL;
        size_t len = 0, got;
        char chunk[4096];
        FILE *w = open_memstream(&text, &len);
        assert_non_null(w);
        while ((got = fread(chunk, 1, sizeof chunk, in)) > 0) {
            fwrite(chunk, 1, got, w);
        }
        fclose(w);
        rewind(in);
        r = cr_feed_reader_new(in, path);
        cr_feed_reader *t = cr_feed_reader_new_text(text, len, path);
        assert_non_null(t);
        int m = 0;
        for (;;) {
            cr_feed_event ev2;
            cr_error err2;
            rc = cr_feed_reader_next(r, &ev, &err);
            assert_int_equal(cr_feed_reader_next(t, &ev2, &err2), rc);
            if (rc != 1) {
                break;
            }
            char a[CR_FEED_LINE_MAX], b[CR_FEED_LINE_MAX];
            assert_true(cr_feed_format(&ev, a, sizeof a) > 0);
            assert_true(cr_feed_format(&ev2, b, sizeof b) > 0);
            assert_string_equal(a, b);
            assert_int_equal(cr_feed_reader_line(r), cr_feed_reader_line(t));
            m++;
        }
        assert_int_equal(m, n);
        cr_feed_reader_free(t);
        cr_feed_reader_free(r);
        free(text);
        fclose(in);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds),  cmocka_unit_test(test_roundtrip), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_reader), cmocka_unit_test(test_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
