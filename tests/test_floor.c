/* What the board and the clock reveal (issue 29): a clock pressed without a
 * move, a move without the clock pressed. Feeds run through the inference
 * into the monitor as the relay does: tests/data/feeds-floor/press.feed
 * raises exactly one press-without-move (White's, after 1... e5) and nothing
 * else, unpressed.feed exactly one move-without-press (White's, after
 * 2. Nf3); the clean twin, every sample game (feeds/p01..p19) and two of the
 * arbiter's feeds raise none; with the checks switched off (the default)
 * nothing either. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cr/arbiter.h"
#include "test_feed_run.h"

enum { PRESS = 1, MOVE = 2, ADDED = 4, ALL = 7 }; /* the checks switched on */

/* Runs a feed (a path under tests/data) with those checks on; the caller
 * frees with cr_test_feed_run_free. */
static void run_feed(cr_test_feed_run *r, const char *name, int checks)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CR_TEST_DATA_DIR, name);
    cr_monitor_config cfg;
    cr_monitor_config_default(&cfg);
    cfg.press_without_move = checks & PRESS;
    cfg.move_without_press = checks & MOVE;
    cfg.time_added = checks & ADDED;
    cr_test_feed_run_file(r, path, &cfg, 3600 * 1000LL);
}

static void test_press_without_move(void **state)
{
    (void)state;
    cr_test_feed_run r;
    run_feed(&r, "feeds-floor/press.feed", PRESS | MOVE);
    assert_int_equal(cr_game_ply_count(r.game), 5);
    assert_int_equal(cr_monitor_incident_count(r.mon), 1); /* that one, nothing else */
    const cr_incident *inc = cr_monitor_incident(r.mon, 0);
    assert_int_equal(inc->kind, CR_INC_PRESS_WITHOUT_MOVE);
    assert_int_equal(inc->color, CR_WHITE);
    assert_int_equal(inc->urgency, CR_URGENCY_WARNING);
    assert_int_equal(inc->ply, 2);
    assert_int_equal(inc->t, 101800); /* stamped with the press */
    assert_string_equal(inc->text, "White pressed the clock without a move (after 1... e5)");
    /* The line form names the kind and reads back. */
    char line[CR_INCIDENT_LINE_MAX];
    assert_true(cr_incident_format(inc, line, sizeof line) > 0);
    assert_non_null(strstr(line, "\tpress-without-move\t"));
    cr_incident back;
    cr_error err;
    assert_int_equal(cr_incident_parse(line, strlen(line), &back, &err), 0);
    assert_int_equal(back.kind, CR_INC_PRESS_WITHOUT_MOVE);
    cr_test_feed_run_free(&r);

    /* Switched off (the default): nothing. */
    run_feed(&r, "feeds-floor/press.feed", MOVE);
    assert_int_equal(cr_monitor_incident_count(r.mon), 0);
    cr_test_feed_run_free(&r);
}

static void test_move_without_press(void **state)
{
    (void)state;
    cr_test_feed_run r;
    run_feed(&r, "feeds-floor/unpressed.feed", PRESS | MOVE);
    assert_int_equal(cr_game_ply_count(r.game), 5);
    assert_int_equal(cr_monitor_incident_count(r.mon), 1); /* that one, nothing else */
    const cr_incident *inc = cr_monitor_incident(r.mon, 0);
    assert_int_equal(inc->kind, CR_INC_MOVE_WITHOUT_PRESS);
    assert_string_equal(cr_incident_kind_name(inc->kind), "move-without-press");
    assert_int_equal(inc->color, CR_WHITE);
    assert_int_equal(inc->ply, 3);
    assert_int_equal(inc->t, 138000); /* the first reading that still ran White's clock */
    assert_string_equal(inc->text, "White did not press the clock after 2. Nf3");
    cr_test_feed_run_free(&r);
    run_feed(&r, "feeds-floor/unpressed.feed", PRESS);
    assert_int_equal(cr_monitor_incident_count(r.mon), 0);
    cr_test_feed_run_free(&r);
}

/* White's clock set 10 minutes up mid-game: one time-added incident, at
 * the reading that shows it; nothing with the check off. */
static void test_time_added(void **state)
{
    (void)state;
    cr_test_feed_run r;
    run_feed(&r, "feeds-floor/time-added.feed", ALL);
    assert_int_equal(cr_game_ply_count(r.game), 5);
    assert_int_equal(cr_monitor_incident_count(r.mon), 1);
    const cr_incident *inc = cr_monitor_incident(r.mon, 0);
    assert_int_equal(inc->kind, CR_INC_TIME_ADDED);
    assert_string_equal(cr_incident_kind_name(inc->kind), "time-added");
    assert_int_equal(inc->color, CR_WHITE);
    assert_int_equal(inc->t, 200000);
    assert_int_equal(inc->urgency, CR_URGENCY_WARNING);
    assert_string_equal(inc->text, "White's clock went from 1:28:30 to 1:38:13 after 2... Nc6: "
                                   "time added or the clock reset, not by the time control");
    cr_test_feed_run_free(&r);
    run_feed(&r, "feeds-floor/time-added.feed", PRESS | MOVE);
    assert_int_equal(cr_monitor_incident_count(r.mon), 0);
    cr_test_feed_run_free(&r);
}

/* Clean games raise nothing: the twin without the stray press, the sample
 * games and the arbiter's feeds. */
static void test_clean_games(void **state)
{
    (void)state;
    cr_test_feed_run r;
    run_feed(&r, "feeds-floor/press-clean.feed", PRESS | MOVE);
    assert_int_equal(cr_game_ply_count(r.game), 5);
    assert_int_equal(cr_monitor_incident_count(r.mon), 0);
    cr_test_feed_run_free(&r);
    /* (quickplay.feed starts from a FEN this harness does not set up.) */
    const char *arbiter[] = {"feeds-arbiter/stopped.feed", "feeds-arbiter/fivefold.feed"};
    for (int k = 1; k <= 19 + 2; k++) {
        char name[64];
        if (k <= 19) {
            snprintf(name, sizeof name, "feeds/p%02d.feed", k);
        } else {
            snprintf(name, sizeof name, "%s", arbiter[k - 20]);
        }
        run_feed(&r, name, ALL);
        for (int i = 0; i < cr_monitor_incident_count(r.mon); i++) {
            const cr_incident *x = cr_monitor_incident(r.mon, i);
            if (x->kind == CR_INC_PRESS_WITHOUT_MOVE || x->kind == CR_INC_MOVE_WITHOUT_PRESS ||
                x->kind == CR_INC_TIME_ADDED) {
                fail_msg("%s: %s (ply %d, t %lld)", name, x->text, x->ply, (long long)x->t);
            }
        }
        cr_test_feed_run_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_press_without_move),
        cmocka_unit_test(test_move_without_press),
        cmocka_unit_test(test_time_added),
        cmocka_unit_test(test_clean_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
