/* Results back to the pairing program (cr_pairings_trf_results): a round's
 * results written into the TRF it was paired from, compared byte for byte
 * with files made by hand, and read back with the same results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cr/pairings.h"
#include "test_util.h"

#define DATA CR_TEST_DATA_DIR "/pairings/"

typedef struct fixture {
    char *text;
    size_t len;
    cr_pairings *p;
} fixture;

static void open_trf(fixture *f, const char *path)
{
    cr_error err;
    f->text = cr_test_must_read(path, &f->len);
    f->p = cr_pairings_load(f->text, f->len, path, CR_PAIRINGS_TRF, &err);
    if (!f->p) {
        fail_msg("%s", err.text);
    }
}

static void close_trf(fixture *f)
{
    cr_pairings_free(f->p);
    free(f->text);
}

/* The table of round `round` where White has start rank w. */
static int table_of(const cr_pairings *p, int round, int w)
{
    int n;
    const cr_pairing *b = cr_pairings_boards(p, round, &n);
    for (int i = 0; i < n; i++) {
        if (b[i].white.start_rank == w) {
            return b[i].table;
        }
    }
    fail_msg("round %d: no board with White %d", round, w);
    return 0;
}

static void assert_same_text(const char *got, size_t n, const char *want_path)
{
    size_t wn;
    char *want = cr_test_must_read(want_path, &wn);
    if (n != wn || memcmp(got, want, n) != 0) {
        size_t i = 0;
        while (i < n && i < wn && got[i] == want[i]) {
            i++;
        }
        fail_msg("differs from %s at byte %zu (lengths %zu, %zu): ...%.40s", want_path, i, n, wn,
                 got + (i > 20 ? i - 20 : 0));
    }
    free(want);
}

/* Round 5 of the Oslo open (UTF-8 names, lines ending at the colour). By
 * C.04.2 (scores before the round): 1-4 (3.5), 11-2 (3.0), 5-8 (2.5, sum
 * 4.5), 3-6 (2.5, sum 4.0), 7-10; 9 has a bye. Each kind of result once:
 * a win, a draw, a result no arbiter confirmed (left out, named in a ###
 * line), a forfeit and a game under one move (W/L, unrated). The file
 * oslo-open-r5.results.trf was made by hand: the points column is the old
 * total plus the game's points (1: 3.5 -> 4.5, 2: 3.0 -> 3.5, 3: 2.5 ->
 * 3.5 by forfeit, 7: 1.5 -> 2.5, 11: 2.5 -> 3.0; the losers' totals stay). */
static void test_swiss_round(void **state)
{
    (void)state;
    fixture f;
    open_trf(&f, DATA "oslo-open-r5.trf");
    assert_int_equal(table_of(f.p, 5, 1), 1);
    assert_int_equal(table_of(f.p, 5, 11), 2);
    assert_int_equal(table_of(f.p, 5, 5), 3);
    assert_int_equal(table_of(f.p, 5, 3), 4);
    assert_int_equal(table_of(f.p, 5, 7), 5);
    cr_round_result res[] = {
        {.table = 1, .result = "1-0", .confirmed = true},
        {.table = 2, .result = "1/2-1/2", .confirmed = true},
        {.table = 3, .result = "0-1", .confirmed = false},
        {.table = 4, .result = "+--", .confirmed = true},
        {.table = 5, .result = "1-0", .confirmed = true, .unrated = true},
    };
    cr_error err;
    size_t n = 0;
    char *out = cr_pairings_trf_results(f.p, f.text, f.len, 5, res, 5, &n, &err);
    if (!out) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(strlen(out), n);
    assert_same_text(out, n, DATA "oslo-open-r5.results.trf");

    /* Read back: the same results, the same tables, the round otherwise as it was. */
    cr_pairings *back = cr_pairings_parse(out, n, CR_PAIRINGS_TRF, &err);
    if (!back) {
        fail_msg("%s", err.text);
    }
    static const char *const want[] = {"1-0", "1/2-1/2", "*", "+--", "1-0"};
    int count;
    const cr_pairing *b = cr_pairings_boards(back, 5, &count);
    assert_int_equal(count, 5);
    for (int i = 0; i < count; i++) {
        assert_int_equal(b[i].table, i + 1);
        assert_string_equal(b[i].result, want[i]);
        const cr_pairing *was = cr_pairings_board(f.p, 5, i + 1);
        assert_int_equal(b[i].white.start_rank, was->white.start_rank);
        assert_int_equal(b[i].black.start_rank, was->black.start_rank);
    }
    assert_true(cr_pairings_player(back, 0)->points == 4.5);

    /* Written again with the same results: nothing changes. */
    size_t n2 = 0;
    char *again = cr_pairings_trf_results(back, out, n, 5, res, 5, &n2, &err);
    assert_non_null(again);
    size_t notes = strlen("### chessrelay: round 5 table 3: 0-1 not confirmed by an arbiter\n");
    assert_int_equal(n2, n + notes); /* only the unconfirmed one's note once more */
    assert_memory_equal(again, out, n);
    free(again);
    cr_pairings_free(back);
    free(out);
    close_trf(&f);
}

/* Windows-1252 names and CRLF lines: an arbiter's correction of round 3's
 * draw Jensen-Costa (5-6, "D"/"d") to 1-0. Columns count bytes on these
 * lines; every other byte stays, CRLF too (file made by hand: 5's points
 * 0.5 -> 1.0, 6's 0.5 -> 0.0). */
static void test_correction_latin1_crlf(void **state)
{
    (void)state;
    fixture f;
    open_trf(&f, DATA "rapid-cp1252-crlf.trf");
    cr_round_result res = {.table = table_of(f.p, 3, 5), .result = "1-0", .confirmed = true};
    cr_error err;
    size_t n = 0;
    char *out = cr_pairings_trf_results(f.p, f.text, f.len, 3, &res, 1, &n, &err);
    if (!out) {
        fail_msg("%s", err.text);
    }
    assert_same_text(out, n, DATA "rapid-cp1252-crlf.results.trf");
    free(out);

    /* Nothing confirmed, nothing written: the file itself plus the notes. */
    res.confirmed = false;
    out = cr_pairings_trf_results(f.p, f.text, f.len, 3, &res, 1, &n, &err);
    assert_non_null(out);
    assert_true(n > f.len);
    assert_memory_equal(out, f.text, f.len);
    assert_non_null(strstr(out + f.len, "### chessrelay: round 3 table"));
    assert_string_equal(out + n - 2, "\r\n");
    free(out);
    close_trf(&f);
}

static void test_errors(void **state)
{
    (void)state;
    fixture f;
    open_trf(&f, DATA "oslo-open-r5.trf");
    cr_error err;
    size_t n;
    cr_round_result res = {.table = 9, .result = "1-0", .confirmed = true};
    assert_null(cr_pairings_trf_results(f.p, f.text, f.len, 5, &res, 1, &n, &err));
    assert_int_equal(err.code, CR_EINVAL);
    assert_string_equal(err.text, "round 5 has no table 9");

    res = (cr_round_result){.table = 1, .result = "2-0", .confirmed = true};
    assert_null(cr_pairings_trf_results(f.p, f.text, f.len, 5, &res, 1, &n, &err));
    assert_non_null(strstr(err.text, "\"2-0\" is not a result"));

    assert_null(cr_pairings_trf_results(f.p, f.text, f.len, 0, &res, 1, &n, &err));
    assert_string_equal(err.text, "no round 0");

    /* Another file's text: the players' lines do not hold these pairings. */
    fixture g;
    open_trf(&g, DATA "rapid-cp1252-crlf.trf");
    res = (cr_round_result){.table = 1, .result = "1-0", .confirmed = true};
    assert_null(cr_pairings_trf_results(f.p, g.text, g.len, 5, &res, 1, &n, &err));
    assert_int_equal(err.code, CR_EINVAL);

    /* Pairings read from a PGN have no TRF to fill. */
    size_t plen;
    char *pgn = cr_test_must_read(DATA "oslo-open-r5.pgn", &plen);
    cr_pairings *pp = cr_pairings_parse(pgn, plen, CR_PAIRINGS_PGN, &err);
    assert_non_null(pp);
    assert_null(cr_pairings_trf_results(pp, f.text, f.len, 5, &res, 1, &n, &err));
    assert_string_equal(err.text, "the pairings were not read from a TRF");
    cr_pairings_free(pp);
    free(pgn);
    close_trf(&g);
    close_trf(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swiss_round),
        cmocka_unit_test(test_correction_latin1_crlf),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
