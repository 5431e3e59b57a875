/* A board checked before the round (cr/board_check.h): a clean board with
 * its sweep, a dead and a stuck sensor, misplaced pieces named, a board
 * set up the other way round, the clock and the battery. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cr/board_check.h"
#include "cr/occupancy.h"

#define START "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
#define BASE_MS 5400000

static int64_t now;

static void feed_pos(cr_board_check *c, const uint8_t sq[CR_SQ_NB])
{
    cr_feed_event ev = {.t = now += 100, .board = "B1", .kind = CR_FEED_POS};
    memcpy(ev.u.squares, sq, CR_SQ_NB);
    cr_board_check_feed(c, &ev);
}

static void feed_fen(cr_board_check *c, const char *placement)
{
    uint8_t sq[CR_SQ_NB];
    assert_int_equal(cr_placement_read(placement, sq, NULL), 0);
    feed_pos(c, sq);
}

static void feed_clock(cr_board_check *c, int32_t w, int32_t b, int running)
{
    cr_feed_event ev = {.t = now += 100, .board = "B1", .kind = CR_FEED_CLOCK};
    ev.u.clock.white_ms = w;
    ev.u.clock.black_ms = b;
    ev.u.clock.running = running;
    cr_board_check_feed(c, &ev);
}

/* The setters' sweep: an empty board, a rook slid over every square but
 * `skip` (a sensor that never sees it: CR_SQ_NONE for none). */
static void sweep(cr_board_check *c, int skip)
{
    uint8_t sq[CR_SQ_NB] = {0};
    feed_pos(c, sq);
    for (int s = 0; s < CR_SQ_NB; s++) {
        memset(sq, 0, sizeof sq);
        if (s != skip) {
            sq[s] = CR_WR;
        }
        feed_pos(c, sq);
    }
}

static cr_board_check *checker(bool sensors)
{
    cr_board_check_config cfg = {.control = {.base_ms = BASE_MS, .increment_ms = 30000},
                                 .sensors = sensors};
    cr_board_check *c = cr_board_check_new(&cfg);
    assert_non_null(c);
    cr_feed_event ev = {.t = now, .board = "B1", .kind = CR_FEED_CONNECT};
    cr_board_check_feed(c, &ev);
    return c;
}

static void test_ready(void **state)
{
    (void)state;
    cr_board_check *c = checker(true);
    sweep(c, CR_SQ_NONE);
    feed_fen(c, START);
    feed_clock(c, BASE_MS, BASE_MS, CR_CLOCK_STOPPED);
    cr_board_check_battery(c, 80);
    cr_board_check_report r;
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, 0);
    assert_string_equal(r.fix, "");
    assert_false(r.rotated);
    assert_int_equal(r.misplaced, 0);
    assert_true(r.dead == 0 && r.stuck == 0);
    cr_board_check_free(c);
}

static void test_dead_and_stuck_sensor(void **state)
{
    (void)state;
    cr_board_check *c = checker(true);
    sweep(c, CR_SQ_E5);
    /* h8 reads a piece all along: never seen empty */
    uint8_t sq[CR_SQ_NB];
    cr_placement_read(START, sq, NULL);
    feed_pos(c, sq);
    feed_clock(c, BASE_MS, BASE_MS, CR_CLOCK_STOPPED);
    cr_board_check_report r;
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, CR_BCHK_SENSORS);
    assert_true(r.dead == (cr_bb)1 << CR_SQ_E5);
    assert_string_equal(r.fix, "sensor never saw a piece (dead?): e5");
    cr_board_check_free(c);

    c = checker(true);
    uint8_t all[CR_SQ_NB] = {0};
    for (int s = 0; s < CR_SQ_NB; s++) {
        all[s] = s == CR_SQ_H8 ? CR_BR : CR_NO_PIECE;
    }
    feed_pos(c, all); /* h8 occupied, the rest empty */
    for (int s = 0; s < CR_SQ_NB; s++) {
        memset(all, 0, sizeof all);
        all[CR_SQ_H8] = CR_BR;
        all[s] = CR_WR;
        feed_pos(c, all);
    }
    feed_fen(c, START);
    feed_clock(c, BASE_MS, BASE_MS, CR_CLOCK_STOPPED);
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, CR_BCHK_SENSORS);
    assert_true(r.stuck == (cr_bb)1 << CR_SQ_H8 && r.dead == 0);
    assert_string_equal(r.fix, "sensor never saw the square empty (stuck?): h8");

    /* Without the sweep asked for, the sensors are not judged. */
    cr_board_check *n = checker(false);
    feed_fen(n, START);
    feed_clock(n, BASE_MS, BASE_MS, CR_CLOCK_STOPPED);
    cr_board_check_report_get(n, &r);
    assert_int_equal(r.problems, 0);
    cr_board_check_free(n);
    cr_board_check_free(c);
}

static void test_misplaced(void **state)
{
    (void)state;
    cr_board_check *c = checker(false);
    /* Ng1 stands on f3; the e2 pawn is missing; a black pawn too many on
     * e4; king and queen swapped. */
    feed_fen(c, "rnbqkbnr/pppppppp/8/8/4p3/5N2/PPPP1PPP/RNBKQB1R");
    feed_clock(c, BASE_MS, BASE_MS, CR_CLOCK_STOPPED);
    cr_board_check_report r;
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, CR_BCHK_SETUP);
    assert_int_equal(r.misplaced, 6);
    assert_string_equal(r.setup, "white queen on e1, not d1; white king on d1, not e1; "
                                 "white knight on f3, not g1; e2 empty (white pawn); "
                                 "e4: black pawn too many");
    assert_string_equal(r.fix, "set-up: white queen on e1, not d1; white king on d1, not e1; "
                               "white knight on f3, not g1; e2 empty (white pawn); "
                               "e4: black pawn too many");

    /* The other way round, with a piece misplaced: named in the game's squares. */
    uint8_t sq[CR_SQ_NB], rot[CR_SQ_NB];
    cr_placement_read("rnbqkb1r/pppppppp/5n2/8/8/8/PPPPPPPP/RNBQKBNR", sq, NULL);
    for (int s = 0; s < CR_SQ_NB; s++) {
        rot[63 - s] = sq[s];
    }
    char buf[128];
    bool rotated = false;
    assert_int_equal(cr_board_check_setup(rot, &rotated, buf, sizeof buf), 2);
    assert_true(rotated);
    assert_string_equal(buf, "black knight on f6, not g8");
    cr_placement_read(START, sq, NULL);
    for (int s = 0; s < CR_SQ_NB; s++) {
        rot[63 - s] = sq[s];
    }
    assert_int_equal(cr_board_check_setup(rot, &rotated, buf, sizeof buf), 0);
    assert_true(rotated);
    assert_string_equal(buf, "");

    /* Occupancy-only boards: '?' is any piece. A small buffer is cut with "...". */
    cr_placement_read(START, sq, NULL);
    for (int s = 0; s < CR_SQ_NB; s++) {
        sq[s] = sq[s] != CR_NO_PIECE && s != CR_SQ_H1 ? CR_OCCUPIED : CR_NO_PIECE;
    }
    assert_int_equal(cr_board_check_setup(sq, NULL, buf, sizeof buf), 1);
    assert_string_equal(buf, "h1 empty (white rook)");
    char small[32];
    cr_placement_read("8/8/8/8/8/8/8/8", sq, NULL);
    assert_int_equal(cr_board_check_setup(sq, NULL, small, sizeof small), 32);
    assert_string_equal(small, "a1 empty (white rook); ...");
    cr_board_check_free(c);
}

static void test_clock_link_battery(void **state)
{
    (void)state;
    cr_board_check_report r;
    cr_board_check *c = checker(false);
    feed_fen(c, START);
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, CR_BCHK_NO_CLOCK);
    assert_string_equal(r.fix, "no clock reading");
    feed_clock(c, 3600000, BASE_MS, CR_WHITE);
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, CR_BCHK_CLOCK_TIME | CR_BCHK_CLOCK_RUNNING);
    assert_string_equal(r.fix, "clock shows 1:00:00 / 1:30:00, not 1:30:00; clock running");
    feed_clock(c, BASE_MS - 1500, BASE_MS, CR_CLOCK_STOPPED); /* within the tolerance */
    cr_board_check_battery(c, 12);
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, CR_BCHK_BATTERY);
    assert_string_equal(r.fix, "battery 12%");
    cr_feed_event off = {.t = now, .board = "B1", .kind = CR_FEED_DISCONNECT};
    cr_board_check_feed(c, &off);
    cr_board_check_report_get(c, &r);
    assert_int_equal(r.problems, CR_BCHK_OFFLINE | CR_BCHK_BATTERY);
    assert_string_equal(r.fix, "disconnected; battery 12%");
    cr_board_check_free(c);

    cr_board_check *never = cr_board_check_new(NULL);
    cr_board_check_report_get(never, &r);
    assert_int_equal(r.problems, CR_BCHK_OFFLINE | CR_BCHK_NO_POSITION | CR_BCHK_NO_CLOCK);
    assert_string_equal(r.fix, "never heard from; no position seen; no clock reading");
    cr_board_check_free(never);
    cr_board_check_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ready),
        cmocka_unit_test(test_dead_and_stuck_sensor),
        cmocka_unit_test(test_misplaced),
        cmocka_unit_test(test_clock_link_battery),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
