/* Clock model: extrapolation, flag falls, bonus detection (Fischer, US and
 * Bronstein delay) from simulated DGT readings, noise, stopped and silent
 * clocks, the move-time model and time-control parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cr/clock.h"
#include "cr/feed.h"

/* A simulated clock: true times in ms, the display rounded down to the
 * second, one reading a second while running and one at each press. */
typedef struct sim {
    int64_t t;
    int64_t ms[2];
    int running;
    cr_clock_mode mode;
    int64_t bonus;
    int64_t turn_t;
    int64_t turn_ms;
    cr_clock *c;
} sim;

static void sim_read(sim *s)
{
    int32_t w = (int32_t)(s->ms[0] / 1000 * 1000), b = (int32_t)(s->ms[1] / 1000 * 1000);
    int rc = cr_clock_feed(s->c, s->t, w, b, s->running);
    assert_int_equal(rc, CR_CLOCK_ACCEPTED);
}

/* Advance by dt ms, reading every full second since the turn started. */
static void sim_run(sim *s, int64_t dt)
{
    int64_t end = s->t + dt;
    while (s->t < end) {
        int64_t next = s->turn_t + ((s->t - s->turn_t) / 1000 + 1) * 1000;
        int64_t step = (next < end ? next : end) - s->t;
        int r = s->running;
        /* Time counts only after the delay (US). */
        int64_t counted_from = s->turn_t + (s->mode == CR_CLOCK_MODE_DELAY_US ? s->bonus : 0);
        int64_t a = s->t > counted_from ? s->t : counted_from;
        int64_t b = s->t + step;
        if (b > a) {
            s->ms[r] -= b - a;
        }
        s->t += step;
        if (s->t == next) {
            sim_read(s);
        }
    }
}

static void sim_press(sim *s)
{
    int r = s->running;
    if (s->mode == CR_CLOCK_MODE_INCREMENT) {
        s->ms[r] += s->bonus;
    } else if (s->mode == CR_CLOCK_MODE_BRONSTEIN) {
        int64_t used = s->turn_ms - s->ms[r];
        s->ms[r] += used < s->bonus ? used : s->bonus;
    }
    s->running = r ^ 1;
    s->turn_t = s->t;
    s->turn_ms = s->ms[r ^ 1];
    sim_read(s);
}

static void sim_init(sim *s, cr_clock_mode mode, int64_t bonus, int64_t base)
{
    memset(s, 0, sizeof *s);
    s->mode = mode;
    s->bonus = bonus;
    s->ms[0] = s->ms[1] = base;
    s->running = CR_WHITE;
    s->turn_ms = base;
    s->c = cr_clock_new(NULL, NULL);
    assert_non_null(s->c);
    sim_read(s);
}

static void play(sim *s, const int64_t *think, int n)
{
    for (int i = 0; i < n; i++) {
        sim_run(s, think[i]);
        sim_press(s);
    }
}

static void test_extrapolation(void **state)
{
    (void)state;
    cr_clock *c = cr_clock_new(NULL, NULL);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 0), CR_CLOCK_UNKNOWN);
    assert_int_equal(cr_clock_running(c), -1);
    assert_int_equal(cr_clock_feed(c, 1000, 300000, 300000, CR_WHITE), CR_CLOCK_ACCEPTED);
    assert_true(cr_clock_has_readings(c));
    assert_int_equal(cr_clock_running(c), CR_WHITE);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 2500), 298500);
    assert_int_equal(cr_clock_remaining(c, CR_BLACK, 2500), 300000);
    /* White presses at 11 s: now Black runs. */
    assert_int_equal(cr_clock_feed(c, 11000, 290000, 300000, CR_BLACK), CR_CLOCK_ACCEPTED);
    assert_int_equal(cr_clock_last_press(c, CR_WHITE), 11000);
    assert_int_equal(cr_clock_last_press(c, CR_BLACK), -1);
    assert_int_equal(cr_clock_remaining(c, CR_BLACK, 14000), 297000);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 14000), 290000);
    assert_int_equal(cr_clock_feed(c, 1, -5, 0, CR_WHITE), CR_EINVAL);
    assert_int_equal(cr_clock_feed(c, 1, 5, 0, 7), CR_EINVAL);
    cr_clock_free(c);
}

static void test_flag_fall(void **state)
{
    (void)state;
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_clock_feed(c, 0, 3000, 60000, CR_WHITE);
    assert_int_equal(cr_clock_tick(c, 2000), -1);
    assert_int_equal(cr_clock_flagged(c), -1);
    assert_int_equal(cr_clock_tick(c, 3100), CR_WHITE);
    assert_int_equal(cr_clock_flagged(c), CR_WHITE);
    assert_int_equal(cr_clock_flag_time(c), 3000);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 3100), 0);
    /* Reported once. */
    assert_int_equal(cr_clock_tick(c, 4000), -1);
    assert_int_equal(cr_clock_tick(c, 5000), -1);
    /* The clock then shows 0 for White: still the same single flag. */
    assert_int_equal(cr_clock_feed(c, 5000, 0, 60000, CR_CLOCK_STOPPED), CR_CLOCK_ACCEPTED);
    assert_int_equal(cr_clock_tick(c, 6000), -1);
    /* Arbiter adds two minutes: the flag is lifted. */
    cr_clock_adjust(c, CR_WHITE, 120000, 7000);
    assert_int_equal(cr_clock_flagged(c), -1);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 8000), 120000);
    cr_clock_free(c);
}

static void test_flag_from_readings(void **state)
{
    (void)state;
    /* Readings run down to zero: the flag falls with the reading. */
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_clock_feed(c, 0, 50000, 2000, CR_BLACK);
    cr_clock_feed(c, 1000, 50000, 1000, CR_BLACK);
    assert_int_equal(cr_clock_flagged(c), -1);
    cr_clock_feed(c, 2000, 50000, 0, CR_BLACK);
    assert_int_equal(cr_clock_flagged(c), CR_BLACK);
    assert_int_equal(cr_clock_tick(c, 2000), CR_BLACK);
    cr_clock_free(c);
}

static void test_increment_detection(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, CR_CLOCK_MODE_INCREMENT, 30000, 5400000);
    assert_int_equal(cr_clock_mode_of(s.c), CR_CLOCK_MODE_UNKNOWN);
    const int64_t think[] = {3400, 12700, 45200, 8100, 30000, 61300, 2200, 9900};
    play(&s, think, 8);
    assert_int_equal(cr_clock_mode_of(s.c), CR_CLOCK_MODE_INCREMENT);
    assert_int_equal(cr_clock_bonus_ms(s.c), 30000);
    /* The model agrees with the true clock to within the display's second. */
    int32_t w = cr_clock_remaining(s.c, CR_WHITE, s.t);
    assert_true(w <= s.ms[0] && w > s.ms[0] - 1000);
    assert_int_equal(cr_clock_noise_count(s.c), 0);
    cr_clock_free(s.c);
}

static void test_us_delay_detection(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, CR_CLOCK_MODE_DELAY_US, 5000, 600000);
    const int64_t think[] = {8300, 12100, 6600, 20000, 3000, 9000};
    play(&s, think, 6);
    assert_int_equal(cr_clock_mode_of(s.c), CR_CLOCK_MODE_DELAY_US);
    assert_int_equal(cr_clock_bonus_ms(s.c), 5000);
    /* During the delay the running side's time stands still. */
    int r = cr_clock_running(s.c);
    int32_t before = cr_clock_remaining(s.c, r, s.t);
    assert_int_equal(cr_clock_remaining(s.c, r, s.t + 3000), before);
    assert_int_equal(cr_clock_remaining(s.c, r, s.t + 7000), before - 2000);
    cr_clock_free(s.c);
}

static void test_bronstein_detection(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, CR_CLOCK_MODE_BRONSTEIN, 10000, 600000);
    const int64_t think[] = {4200, 15300, 3100, 22000, 5000, 31000};
    play(&s, think, 6);
    assert_int_equal(cr_clock_mode_of(s.c), CR_CLOCK_MODE_BRONSTEIN);
    assert_int_equal(cr_clock_bonus_ms(s.c), 10000);
    cr_clock_free(s.c);
}

static void test_no_bonus(void **state)
{
    (void)state;
    sim s;
    sim_init(&s, CR_CLOCK_MODE_NONE, 0, 300000);
    const int64_t think[] = {4200, 15300, 3100, 22000, 5000, 31000};
    play(&s, think, 6);
    assert_int_equal(cr_clock_mode_of(s.c), CR_CLOCK_MODE_NONE);
    assert_int_equal(cr_clock_bonus_ms(s.c), 0);
    assert_string_equal(cr_clock_mode_name(cr_clock_mode_of(s.c)), "none");
    cr_clock_free(s.c);
}

static void test_noise(void **state)
{
    (void)state;
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_clock_feed(c, 0, 280000, 300000, CR_WHITE);
    /* All-zero reading after a clock command. */
    assert_int_equal(cr_clock_feed(c, 500, 0, 0, CR_CLOCK_STOPPED), CR_CLOCK_IGNORED);
    assert_int_equal(cr_clock_running(c), CR_WHITE);
    /* A running time that goes up with no press: held, then dropped. */
    assert_int_equal(cr_clock_feed(c, 1000, 340000, 300000, CR_WHITE), CR_CLOCK_HELD);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 1000), 279000);
    assert_int_equal(cr_clock_feed(c, 2000, 278000, 300000, CR_WHITE), CR_CLOCK_ACCEPTED);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 2000), 278000);
    /* A zero reading for the running side out of the blue: no flag. */
    assert_int_equal(cr_clock_feed(c, 3000, 0, 300000, CR_WHITE), CR_CLOCK_HELD);
    assert_int_equal(cr_clock_tick(c, 3000), -1);
    assert_int_equal(cr_clock_feed(c, 4000, 276000, 300000, CR_WHITE), CR_CLOCK_ACCEPTED);
    assert_int_equal(cr_clock_flagged(c), -1);
    assert_int_equal(cr_clock_noise_count(c), 3);
    /* The arbiter really sets the clock: two readings agree, taken. */
    assert_int_equal(cr_clock_feed(c, 5000, 600000, 600000, CR_CLOCK_STOPPED), CR_CLOCK_HELD);
    assert_int_equal(cr_clock_feed(c, 6000, 600000, 600000, CR_CLOCK_STOPPED), CR_CLOCK_ACCEPTED);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 6000), 600000);
    assert_int_equal(cr_clock_running(c), -1);
    cr_clock_free(c);
}

static void test_stopped_and_silent(void **state)
{
    (void)state;
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_clock_feed(c, 0, 5000, 5000, CR_CLOCK_STOPPED);
    assert_int_equal(cr_clock_tick(c, 100000), -1);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 100000), 5000);
    /* Running, then the clock goes silent: extrapolation stops after the
     * stale time instead of inventing a flag. */
    cr_clock_free(c);
    cr_clock_config cfg;
    cr_clock_config_default(&cfg);
    cfg.stale_ms = 10000;
    c = cr_clock_new(NULL, &cfg);
    cr_clock_feed(c, 100000, 60000, 5000, CR_WHITE);
    assert_int_equal(cr_clock_tick(c, 200000), -1);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 200000), 50000);
    cr_clock_free(c);
}

/* "H:MM:SS" -> ms */
static int32_t hms(const char *s)
{
    int h, m, sec;
    assert_int_equal(sscanf(s, "%d:%d:%d", &h, &m, &sec), 3);
    return (int32_t)((h * 3600 + m * 60 + sec) * 1000);
}

/* The sample feeds are 90 min + 30 s games whose clocks report mostly at
 * presses: every one must read as a 30 s increment, without noise; also
 * with every reading stamped up to 2 s late (a relay that stamped arrival
 * times read a 90+30 game as "delay 3000"; noise is allowed then). */
static void test_sample_feeds(void **state)
{
    (void)state;
    int files = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 1; k <= 19; k++) {
            char path[512];
            snprintf(path, sizeof path, "%s/feeds/p%02d.feed", CR_TEST_DATA_DIR, k);
            FILE *f = fopen(path, "r");
            if (!f) {
                continue;
            }
            files++;
            cr_clock *c = cr_clock_new(NULL, NULL);
            char line[1024];
            int readings = 0, flags = 0;
            int64_t last_t = 0;
            while (fgets(line, sizeof line, f)) {
                long long t;
                char board[80], kind[16], w[16], b[16], run[4];
                if (sscanf(line, "%lld %79s %15s %15s %15s %3s", &t, board, kind, w, b, run) != 6 ||
                    strcmp(kind, "clock") != 0) {
                    continue;
                }
                int r = run[0] == 'w' ? CR_WHITE : run[0] == 'b' ? CR_BLACK : CR_CLOCK_STOPPED;
                if (pass == 1) {
                    t += (readings * 7919 + k * 104729) % 2001; /* deterministic "jitter" */
                }
                assert_true(cr_clock_feed(c, t, hms(w), hms(b), r) >= 0);
                flags += cr_clock_tick(c, t) >= 0;
                readings++;
                last_t = t;
            }
            fclose(f);
            /* Every feed ends with the clock stopped: hours later, no flag and
             * nothing to suspect (issue 14: p05 got "Black's flag fell"). */
            flags += cr_clock_tick(c, last_t + 6 * 3600 * 1000LL) >= 0;
            if (cr_clock_running(c) != CR_CLOCK_STOPPED ||
                cr_clock_suspected(c, last_t + 6 * 3600 * 1000LL, NULL) >= 0) {
                fail_msg("p%02d: the clock runs on after the feed", k);
            }
            if (cr_clock_mode_of(c) != CR_CLOCK_MODE_INCREMENT || cr_clock_bonus_ms(c) != 30000) {
                fail_msg("p%02d: %s %d ms after %d readings", k,
                         cr_clock_mode_name(cr_clock_mode_of(c)), cr_clock_bonus_ms(c), readings);
            }
            if ((pass == 0 && cr_clock_noise_count(c) != 0) || flags != 0) {
                fail_msg("p%02d: %d noise, %d flags (last t %lld)", k, cr_clock_noise_count(c),
                         flags, (long long)last_t);
            }
            cr_clock_free(c);
        }
    assert_true(files > 0);
}

/* Random readings, moves and adjustments: never a crash, times never
 * negative, a reported flag is a side at zero. */
static void test_random_robustness(void **state)
{
    (void)state;
    uint32_t x = 777;
    int reported = 0;
    for (int game = 0; game < 20; game++) {
        cr_time_control tc = {60000, (game % 3) * 1000, 0, 0, 0};
        cr_clock *c = cr_clock_new(game % 2 ? &tc : NULL, NULL);
        int64_t t = 0;
        for (int i = 0; i < 300; i++) {
            x = x * 1103515245u + 12345u;
            uint32_t r = x >> 8;
            t += r % 3000;
            switch (r % 5) {
            case 0:
            case 1:
                cr_clock_feed(c, t - (int64_t)(r % 7 == 0) * 5000, (int32_t)(r % 70000),
                              (int32_t)((r >> 4) % 70000), (int)(r % 3) - 1);
                break;
            case 2:
                cr_clock_move(c, i, (int)(r & 1), t);
                break;
            case 3:
                if (r % 11 == 0) {
                    cr_clock_adjust(c, (int)(r & 1), (int32_t)(r % 20000) - 5000, t);
                }
                break;
            default:
                break;
            }
            int f = cr_clock_tick(c, t);
            if (f >= 0) {
                reported++;
                assert_true(cr_clock_flagged(c) >= 0);
                assert_int_equal(cr_clock_remaining(c, f, t), 0);
            }
            for (int s = 0; s < 2; s++) {
                int32_t v = cr_clock_remaining(c, s, t);
                assert_true(v >= 0 || v == CR_CLOCK_UNKNOWN);
            }
        }
        cr_clock_free(c);
    }
    assert_true(reported > 0); /* the random games do run out of time */
}

static void test_move_model(void **state)
{
    (void)state;
    cr_time_control tc;
    assert_int_equal(cr_time_control_parse("300+2", &tc, NULL), 0);
    cr_clock *c = cr_clock_new(&tc, NULL);
    assert_int_equal(cr_clock_mode_of(c), CR_CLOCK_MODE_INCREMENT);
    assert_int_equal(cr_clock_bonus_ms(c), 2000);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 0), 300000);
    cr_clock_start(c, 0);
    assert_int_equal(cr_clock_running(c), CR_WHITE);
    assert_int_equal(cr_clock_move(c, 0, CR_WHITE, 10000), 0);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 10000), 292000);
    assert_int_equal(cr_clock_move(c, 1, CR_BLACK, 25000), 0);
    assert_int_equal(cr_clock_remaining(c, CR_BLACK, 25000), 287000);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 30000), 287000);
    assert_int_equal(cr_clock_last_press(c, CR_BLACK), 25000);
    assert_int_equal(cr_clock_tick(c, 300000), -1);
    /* Move times are no evidence of a flag: suspected, never fallen. */
    int64_t since = -1;
    assert_int_equal(cr_clock_suspected(c, 300000, NULL), -1);
    assert_int_equal(cr_clock_tick(c, 400000), -1);
    assert_int_equal(cr_clock_suspected(c, 400000, &since), CR_WHITE);
    assert_int_equal(since, 25000 + 292000);
    assert_int_equal(cr_clock_flagged(c), -1);
    assert_int_equal(cr_clock_move(c, 2, 5, 1), CR_EINVAL);
    cr_clock_free(c);

    /* Two periods: 2 moves in 60 s, then 30 s more. */
    assert_int_equal(cr_time_control_parse("2/60:30", &tc, NULL), 0);
    c = cr_clock_new(&tc, NULL);
    cr_clock_start(c, 0);
    cr_clock_move(c, 0, CR_WHITE, 10000);
    cr_clock_move(c, 1, CR_BLACK, 20000);
    cr_clock_move(c, 2, CR_WHITE, 30000);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 30000), 60000 - 20000 + 30000);
    cr_clock_free(c);

    /* US delay without readings: the first 5 s of each move are free. */
    assert_int_equal(cr_time_control_parse("60d5", &tc, NULL), 0);
    c = cr_clock_new(&tc, NULL);
    cr_clock_start(c, 0);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 4000), 60000);
    cr_clock_move(c, 0, CR_WHITE, 8000);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 8000), 57000);
    cr_clock_free(c);
}

/* A clock read only now and then (every `period` ms while a side thinks,
 * and at each press), its readings stamped up to `late` ms after the
 * display was shown (transport), one "flat" reading just after each press
 * (the display has not moved yet). Plays `moves` plies of `think` ms each. */
static cr_clock *sparse_game(const cr_time_control *tc, cr_clock_mode mode, int64_t bonus,
                             int64_t base, int64_t think, int moves, int64_t period, int64_t late)
{
    cr_clock *c = cr_clock_new(tc, NULL);
    int64_t ms[2] = {base, base}, t = 0;
    int run = CR_WHITE;
    assert_int_equal(cr_clock_feed(c, 0, (int32_t)base, (int32_t)base, run), CR_CLOCK_ACCEPTED);
    for (int i = 0; i < moves; i++) {
        int64_t turn_t = t, turn_ms = ms[run];
        assert_true(cr_clock_feed(c, t + 400 + late, (int32_t)(ms[0] / 1000 * 1000),
                                  (int32_t)(ms[1] / 1000 * 1000), run) >= 0);
        for (int64_t e = period; e < think; e += period) {
            int64_t used = e - (mode == CR_CLOCK_MODE_DELAY_US ? bonus : 0);
            int64_t v = turn_ms - (used > 0 ? used : 0);
            int64_t show[2] = {ms[0], ms[1]};
            show[run] = v;
            assert_true(cr_clock_feed(c, turn_t + e + (i % 3 == 0 ? late : 0),
                                      (int32_t)(show[0] / 1000 * 1000),
                                      (int32_t)(show[1] / 1000 * 1000), run) >= 0);
        }
        t = turn_t + think;
        int64_t used = think - (mode == CR_CLOCK_MODE_DELAY_US ? bonus : 0);
        ms[run] = turn_ms - (used > 0 ? used : 0);
        if (mode == CR_CLOCK_MODE_INCREMENT) {
            ms[run] += bonus;
        }
        run ^= 1;
        assert_true(cr_clock_feed(c, t, (int32_t)(ms[0] / 1000 * 1000),
                                  (int32_t)(ms[1] / 1000 * 1000), run) >= 0);
        assert_int_equal(cr_clock_tick(c, t), -1);
    }
    return c;
}

/* Controls told apart by what a press adds, from readings every 20 s whose
 * stamps are up to 3 s late (issue 14: a 90+30 game read as "delay 3000"). */
static void test_controls_from_sparse_readings(void **state)
{
    (void)state;
    struct {
        cr_clock_mode mode;
        int64_t bonus, base;
        cr_clock_mode want;
    } cases[] = {
        {CR_CLOCK_MODE_INCREMENT, 30000, 5400000, CR_CLOCK_MODE_INCREMENT}, /* 90+30 */
        {CR_CLOCK_MODE_INCREMENT, 10000, 900000, CR_CLOCK_MODE_INCREMENT},  /* 15+10 */
        {CR_CLOCK_MODE_NONE, 0, 3600000, CR_CLOCK_MODE_NONE},               /* sudden death */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int64_t late = 0; late <= 3000; late += 1500) {
            cr_clock *c = sparse_game(NULL, cases[k].mode, cases[k].bonus, cases[k].base, 47000, 30,
                                      20000, late);
            if (cr_clock_mode_of(c) != cases[k].want || cr_clock_bonus_ms(c) != cases[k].bonus) {
                fail_msg("case %zu late %lld: %s %d", k, (long long)late,
                         cr_clock_mode_name(cr_clock_mode_of(c)), cr_clock_bonus_ms(c));
            }
            cr_clock_free(c);
        }
    }
    /* US delay of 5 s read each second: turns stand still at first. */
    cr_clock *c = sparse_game(NULL, CR_CLOCK_MODE_DELAY_US, 5000, 600000, 12000, 12, 1000, 0);
    assert_int_equal(cr_clock_mode_of(c), CR_CLOCK_MODE_DELAY_US);
    assert_int_equal(cr_clock_bonus_ms(c), 5000);
    cr_clock_free(c);
    /* A configured control wins over what the readings suggest. */
    cr_time_control tc;
    assert_int_equal(cr_time_control_parse("600d5", &tc, NULL), 0);
    c = sparse_game(&tc, CR_CLOCK_MODE_DELAY_US, 5000, 600000, 12000, 4, 1000, 0);
    assert_int_equal(cr_clock_mode_of(c), CR_CLOCK_MODE_DELAY_US);
    assert_int_equal(cr_clock_bonus_ms(c), 5000);
    cr_clock_free(c);
    assert_int_equal(cr_time_control_parse("5400+30", &tc, NULL), 0);
    c = sparse_game(&tc, CR_CLOCK_MODE_NONE, 0, 5400000, 30000, 8, 10000, 0);
    assert_int_equal(cr_clock_mode_of(c), CR_CLOCK_MODE_INCREMENT);
    assert_int_equal(cr_clock_bonus_ms(c), 30000);
    assert_int_equal(cr_clock_detected_mode(c), CR_CLOCK_MODE_NONE);
    cr_clock_free(c);
}

/* A stopped clock stays stopped, even when the reading that stops it does
 * not fit and waits for confirmation that never comes (p05's end). */
static void test_stop_held_stays_stopped(void **state)
{
    (void)state;
    cr_clock *c = cr_clock_new(NULL, NULL);
    assert_int_equal(cr_clock_feed(c, 0, 2139000, 4452000, CR_BLACK), CR_CLOCK_ACCEPTED);
    /* 51.8 s later the clock is stopped, Black's time 10 s off the model. */
    assert_int_equal(cr_clock_feed(c, 51840, 2139000, 4390000, CR_CLOCK_STOPPED), CR_CLOCK_HELD);
    assert_int_equal(cr_clock_running(c), CR_CLOCK_STOPPED);
    assert_false(cr_clock_sure(c, 52000));
    int64_t later = 51840 + 6 * 3600 * 1000LL;
    assert_int_equal(cr_clock_tick(c, later), -1);
    assert_int_equal(cr_clock_suspected(c, later, NULL), -1);
    assert_int_equal(cr_clock_remaining(c, CR_BLACK, later), 4452000 - 51840);
    cr_clock_free(c);
}

/* A reading older than fresh_ms makes the model unsure: a side it puts at
 * 0:00 is suspected, not flagged. */
static void test_stale_reading_is_no_flag(void **state)
{
    (void)state;
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_clock_feed(c, 0, 10000, 60000, CR_WHITE);
    assert_true(cr_clock_sure(c, 4000));
    assert_false(cr_clock_sure(c, 6000));
    assert_int_equal(cr_clock_tick(c, 20000), -1);
    int64_t since = -1;
    assert_int_equal(cr_clock_suspected(c, 20000, &since), CR_WHITE);
    assert_int_equal(since, 10000);
    assert_int_equal(cr_clock_flagged(c), -1);
    /* The clock then shows 0:00 itself: that is the evidence. */
    assert_int_equal(cr_clock_feed(c, 21000, 0, 60000, CR_WHITE), CR_CLOCK_ACCEPTED);
    assert_int_equal(cr_clock_tick(c, 21000), CR_WHITE);
    assert_int_equal(cr_clock_flag_at(c, CR_WHITE), 10000);
    cr_clock_free(c);

    /* Sudden death, White has 3 s at a fresh reading: sure run-down. */
    c = cr_clock_new(NULL, NULL);
    cr_clock_feed(c, 0, 3000, 60000, CR_WHITE);
    assert_int_equal(cr_clock_tick(c, 3500), CR_WHITE);
    assert_int_equal(cr_clock_flag_at(c, CR_WHITE), 3000);
    cr_clock_free(c);
}

/* The link to a running clock is cut for 12 s; the clock then reports
 * "stopped at 4 s": no flag fell, and the model was never sure it had. */
static void test_link_cut_then_stopped(void **state)
{
    (void)state;
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_clock_feed(c, 0, 8000, 60000, CR_WHITE);
    cr_clock_feed(c, 1000, 7000, 60000, CR_WHITE);
    cr_clock_feed(c, 2000, 6000, 60000, CR_WHITE);
    cr_clock_link(c, false, 2500);
    assert_false(cr_clock_sure(c, 3000));
    for (int64_t t = 2600; t <= 14500; t += 100) {
        assert_int_equal(cr_clock_tick(c, t), -1);
    }
    cr_clock_link(c, true, 14500);
    assert_int_equal(cr_clock_suspected(c, 14500, NULL), CR_WHITE);
    assert_int_equal(cr_clock_feed(c, 14600, 4000, 60000, CR_CLOCK_STOPPED), CR_CLOCK_ACCEPTED);
    assert_int_equal(cr_clock_tick(c, 15000), -1);
    assert_int_equal(cr_clock_flagged(c), -1);
    assert_int_equal(cr_clock_suspected(c, 15000, NULL), -1);
    assert_int_equal(cr_clock_remaining(c, CR_WHITE, 15000), 4000);
    assert_true(cr_clock_sure(c, 99000));
    cr_clock_free(c);
}

static void test_time_control_parse(void **state)
{
    (void)state;
    cr_time_control tc;
    cr_error err;
    assert_int_equal(cr_time_control_parse("40/5400:1800+30", &tc, &err), 0);
    assert_int_equal(tc.moves, 40);
    assert_int_equal(tc.base_ms, 5400000);
    assert_int_equal(tc.extra_ms, 1800000);
    assert_int_equal(tc.increment_ms, 30000);
    assert_int_equal(cr_time_control_parse("180d2", &tc, &err), 0);
    assert_int_equal(tc.delay_ms, 2000);
    assert_int_equal(tc.increment_ms, 0);
    assert_int_equal(cr_time_control_parse("40/", &tc, &err), CR_EINVAL);
    assert_int_equal(err.column, 4);
    assert_int_equal(cr_time_control_parse("5400+", &tc, &err), CR_EINVAL);
    assert_non_null(strstr(err.text, "bonus"));
    assert_int_equal(cr_time_control_parse("90 min", &tc, &err), CR_EINVAL);
    assert_int_equal(err.column, 3);
    assert_int_equal(cr_time_control_parse("", &tc, &err), CR_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extrapolation),
        cmocka_unit_test(test_flag_fall),
        cmocka_unit_test(test_flag_from_readings),
        cmocka_unit_test(test_increment_detection),
        cmocka_unit_test(test_us_delay_detection),
        cmocka_unit_test(test_bronstein_detection),
        cmocka_unit_test(test_no_bonus),
        cmocka_unit_test(test_noise),
        cmocka_unit_test(test_stopped_and_silent),
        cmocka_unit_test(test_sample_feeds),
        cmocka_unit_test(test_random_robustness),
        cmocka_unit_test(test_move_model),
        cmocka_unit_test(test_time_control_parse),
        cmocka_unit_test(test_controls_from_sparse_readings),
        cmocka_unit_test(test_stop_held_stays_stopped),
        cmocka_unit_test(test_stale_reading_is_no_flag),
        cmocka_unit_test(test_link_cut_then_stopped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
