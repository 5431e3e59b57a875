/* Occupancy snapshots (cr/occupancy.h): '?' squares in feed `pos` lines, and
 * the namer that gives them pieces from the start position and legal moves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cr/feed.h"
#include "cr/occupancy.h"

/* A placement (FEN letters) as occupancy only. */
static void occ_of(const char *placement, uint8_t sq[CR_SQ_NB])
{
    cr_error err;
    assert_int_equal(cr_placement_read(placement, sq, &err), 0);
    for (int i = 0; i < CR_SQ_NB; i++) {
        if (sq[i]) {
            sq[i] = CR_OCCUPIED;
        }
    }
}

/* Names the occupancy of placement at t; returns the namer's verdict and
 * checks the named board against want (NULL: not checked). */
static int name(cr_occ_namer *n, int64_t t, const char *placement, const char *want)
{
    uint8_t in[CR_SQ_NB], out[CR_SQ_NB];
    occ_of(placement, in);
    int rc = cr_occ_namer_name(n, t, in, out);
    if (want) {
        char got[CR_FEN_MAX];
        assert_true(cr_placement_write(out, got, sizeof got) > 0);
        assert_string_equal(got, want);
    }
    return rc;
}

#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"

static void test_feed_question_marks(void **state)
{
    (void)state;
    /* (split where "??/" would be a trigraph) */
    const char *line = "120 certabo-ttyUSB0 pos ????????" "/????????" "/8/8/4?3/8/????1???" "/????????\n";
    cr_feed_event ev;
    char scratch[256], out[300];
    cr_error err;
    assert_int_equal(cr_feed_parse_line(line, strlen(line), &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.kind, CR_FEED_POS);
    assert_int_equal(ev.u.squares[CR_SQ_E4], CR_OCCUPIED);
    assert_int_equal(ev.u.squares[CR_SQ_E2], CR_NO_PIECE);
    assert_int_equal(ev.u.squares[CR_SQ_A8], CR_OCCUPIED);
    assert_true(cr_occ_has_unknown(ev.u.squares));
    assert_true(cr_feed_format(&ev, out, sizeof out) > 0);
    assert_string_equal(out, line);
    /* named and unknown squares mixed */
    const char *mixed = "5 b pos 4k3/8/8/8/8/8/8/?3K2?\n";
    assert_int_equal(cr_feed_parse_line(mixed, strlen(mixed), &ev, scratch, sizeof scratch, &err), 1);
    assert_int_equal(ev.u.squares[CR_SQ_E1], CR_WK);
    assert_int_equal(ev.u.squares[CR_SQ_H1], CR_OCCUPIED);
    assert_true(cr_feed_format(&ev, out, sizeof out) > 0);
    assert_string_equal(out, mixed);
    /* a bad placement stays an error, with '?' or without */
    const char *bad = "5 b pos ?????????" "/8/8/8/8/8/8/8\n";
    assert_int_equal(cr_feed_parse_line(bad, strlen(bad), &ev, scratch, sizeof scratch, &err), CR_EFEED);
    const char *plain = "5 b pos 8/8/8/8/8/8/8/4K3\n";
    assert_int_equal(cr_feed_parse_line(plain, strlen(plain), &ev, scratch, sizeof scratch, &err), 1);
    assert_false(cr_occ_has_unknown(ev.u.squares));
}

static void test_start_and_quiet_moves(void **state)
{
    (void)state;
    cr_occ_namer *n = cr_occ_namer_new();
    assert_non_null(n);
    /* nothing is named before a start position */
    assert_int_equal(name(n, 0, "8/8/8/8/8/8/PPPPPPPP/RNBQKBNR", "8/8/8/8/8/8/8/8"), 0);
    assert_null(cr_occ_namer_position(n));
    assert_int_equal(name(n, 10, START, START), 1);
    /* e2 lifted: in the air */
    assert_int_equal(name(n, 20, "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR",
                          "rnbqkbnr/pppppppp/8/8/8/8/PPPP1PPP/RNBQKBNR"), 0);
    assert_int_equal(name(n, 30, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR",
                          "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR"), 1);
    assert_int_equal(cr_occ_namer_position(n)->side, CR_BLACK);
    assert_int_equal(name(n, 40, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR",
                          "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"), 1);
    /* a knight: only Nf3 fits g1 empty, f3 occupied */
    assert_int_equal(name(n, 50, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R",
                          "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"), 1);
    /* take-back: the board back to the position before */
    assert_int_equal(name(n, 60, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR",
                          "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"), 1);
    assert_int_equal(cr_occ_namer_position(n)->side, CR_WHITE);
    /* the swept board and a new start */
    assert_int_equal(name(n, 70, START, START), 1);
    cr_occ_namer_free(n);
}

/* exd5: both pawns' captures look alike until the victim is seen lifted. */
static void test_capture_needs_the_victim_seen(void **state)
{
    (void)state;
    cr_occ_namer *n = cr_occ_namer_new();
    assert_int_equal(name(n, 0, START, START), 1);
    assert_int_equal(name(n, 10, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", NULL), 1);
    assert_int_equal(name(n, 20, "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR", NULL), 1);
    /* mover lifted: looks like exd5 already, but is a piece in the air */
    assert_int_equal(name(n, 30, "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR",
                          "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR"), 0);
    /* victim lifted too, then the mover set down on d5: exd5 */
    assert_int_equal(name(n, 40, "rnbqkbnr/ppp1pppp/8/8/8/8/PPPP1PPP/RNBQKBNR", NULL), 0);
    assert_int_equal(name(n, 50, "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR",
                          "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR"), 1);
    cr_occ_namer_free(n);
}

/* A victim swapped for the capturer in one motion: named once the board
 * stood CR_OCC_HOLD_MS and the next change comes. */
static void test_swap_capture_settles(void **state)
{
    (void)state;
    cr_occ_namer *n = cr_occ_namer_new();
    assert_int_equal(name(n, 0, START, START), 1);
    assert_int_equal(name(n, 10, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", NULL), 1);
    assert_int_equal(name(n, 20, "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR", NULL), 1);
    assert_int_equal(name(n, 30, "rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR", NULL), 0);
    uint8_t in[CR_SQ_NB], out[CR_SQ_NB];
    /* a change soon after: no settling (the pawn may still be in the air) */
    occ_of("rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR", in);
    assert_false(cr_occ_namer_settle(n, 500, in, out));
    /* Qxd5 comes 5 s later: exd5 first, then Qxd5 once d5 is seen lifted */
    occ_of("rnb1kbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR", in);
    assert_true(cr_occ_namer_settle(n, 5030, in, out));
    char got[CR_FEN_MAX];
    assert_true(cr_placement_write(out, got, sizeof got) > 0);
    assert_string_equal(got, "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR");
    assert_int_equal(cr_occ_namer_position(n)->side, CR_BLACK);
    assert_int_equal(name(n, 5030, "rnb1kbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR", NULL), 0);
    assert_int_equal(name(n, 5040, "rnb1kbnr/ppp1pppp/8/8/8/8/PPPP1PPP/RNBQKBNR", NULL), 0);
    assert_int_equal(name(n, 5050, "rnb1kbnr/ppp1pppp/8/3p4/8/8/PPPP1PPP/RNBQKBNR",
                          "rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR"), 1);
    cr_occ_namer_free(n);
}

static void test_castling_promotion_and_fen(void **state)
{
    (void)state;
    cr_occ_namer *n = cr_occ_namer_new();
    cr_position pos;
    cr_error err;
    assert_int_equal(cr_position_from_fen(&pos, "4k3/P7/8/8/8/8/8/4K2R w K - 0 1", &err), 0);
    cr_occ_namer_set(n, &pos);
    /* king and rook both moved: O-O */
    assert_int_equal(name(n, 10, "4k3/P7/8/8/8/8/8/5RK1", "4k3/P7/8/8/8/8/8/5RK1"), 1);
    assert_int_equal(name(n, 20, "3k4/P7/8/8/8/8/8/5RK1", "3k4/P7/8/8/8/8/8/5RK1"), 1);
    /* a promotion reads as a queen */
    assert_int_equal(name(n, 30, "P2k4/8/8/8/8/8/8/5RK1", "Q2k4/8/8/8/8/8/8/5RK1"), 1);
    /* a named square decides over the default: a knight was set down */
    assert_int_equal(cr_position_from_fen(&pos, "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", &err), 0);
    cr_occ_namer_set(n, &pos);
    uint8_t in[CR_SQ_NB], out[CR_SQ_NB];
    occ_of("N3k3/8/8/8/8/8/8/4K3", in);
    in[CR_SQ_A8] = CR_WN;
    assert_int_equal(cr_occ_namer_name(n, 40, in, out), 1);
    assert_int_equal(out[CR_SQ_A8], CR_WN);
    cr_occ_namer_free(n);
}

/* A board turned round: White's first move shows on ranks 7 and 5 of the
 * board; the start is given again turned, then the moves as the board shows
 * them. */
static void test_turned_board(void **state)
{
    (void)state;
    cr_occ_namer *n = cr_occ_namer_new();
    assert_int_equal(name(n, 0, START, START), 1);
    uint8_t in[CR_SQ_NB], out[CR_SQ_NB];
    /* 1. e4 on a turned board: the pawn on board d7 goes to board d5 */
    occ_of("rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR", in);
    assert_true(cr_occ_namer_settle(n, 10, in, out));
    char got[CR_FEN_MAX];
    assert_true(cr_placement_write(out, got, sizeof got) > 0);
    assert_string_equal(got, "RNBKQBNR/PPPPPPPP/8/8/8/8/pppppppp/rnbkqbnr");
    assert_int_equal(cr_occ_namer_name(n, 10, in, out), 1);
    assert_true(cr_placement_write(out, got, sizeof got) > 0);
    assert_string_equal(got, "RNBKQBNR/PPP1PPPP/8/3P4/8/8/pppppppp/rnbkqbnr");
    assert_int_equal(cr_occ_namer_position(n)->side, CR_BLACK);
    /* 1... e5: board d2 to d4 */
    assert_int_equal(name(n, 20, "rnbqkbnr/ppp1pppp/8/3p4/3p4/8/ppp1pppp/rnbqkbnr",
                          "RNBKQBNR/PPP1PPPP/8/3P4/3p4/8/ppp1pppp/rnbkqbnr"), 1);
    cr_occ_namer_free(n);
    /* the right way round: nothing extra to feed */
    n = cr_occ_namer_new();
    assert_int_equal(name(n, 0, START, START), 1);
    occ_of("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", in);
    assert_false(cr_occ_namer_settle(n, 10, in, out));
    assert_int_equal(cr_occ_namer_name(n, 10, in, out), 1);
    cr_occ_namer_free(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feed_question_marks),
        cmocka_unit_test(test_start_and_quiet_moves),
        cmocka_unit_test(test_capture_needs_the_victim_seen),
        cmocka_unit_test(test_swap_capture_settles),
        cmocka_unit_test(test_castling_promotion_and_fen),
        cmocka_unit_test(test_turned_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
