/* Arbiter monitor: every alert and counter (repetitions in FIDE's sense,
 * 50/75 moves, dead positions, flags with and without mating material, two
 * minutes, illegal moves, board link), arbiter actions, the quickplay-finish
 * claim workflow with its report, and the incident line format. */
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

static void play(cr_game *g, const char *ucis)
{
    char buf[8];
    const char *p = ucis;
    while (*p) {
        while (*p == ' ') {
            p++;
        }
        size_t n = 0;
        while (p[n] && p[n] != ' ') {
            n++;
        }
        if (!n) {
            break;
        }
        assert_true(n < sizeof buf);
        memcpy(buf, p, n);
        buf[n] = '\0';
        cr_move m = cr_move_from_uci(cr_game_position(g), buf);
        if (m == CR_MOVE_NONE) {
            fail_msg("illegal move %s", buf);
        }
        assert_int_equal(cr_game_push(g, m, CR_CLOCK_UNKNOWN, -1, 0), 0);
        p += n;
    }
}

static cr_game *game_from(const char *fen)
{
    cr_position pos;
    if (fen) {
        assert_int_equal(cr_position_from_fen(&pos, fen, NULL), 0);
    }
    cr_game *g = cr_game_new(fen ? &pos : NULL);
    assert_non_null(g);
    return g;
}

/* Number of incidents of a kind in the log. */
static int count_kind(const cr_monitor *m, cr_incident_kind k)
{
    int n = 0;
    for (int i = 0; i < cr_monitor_incident_count(m); i++) {
        n += cr_monitor_incident(m, i)->kind == k;
    }
    return n;
}

static const cr_incident *last_of(const cr_monitor *m, cr_incident_kind k)
{
    for (int i = cr_monitor_incident_count(m) - 1; i >= 0; i--) {
        if (cr_monitor_incident(m, i)->kind == k) {
            return cr_monitor_incident(m, i);
        }
    }
    return NULL;
}

static void test_threefold_and_fivefold(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_monitor *m = cr_monitor_new(g, NULL, NULL);
    cr_monitor_state st;
    play(g, "g1f3 g8f6 f3g1 f6g8");
    cr_monitor_update(m, 100);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.repetitions, 2);
    assert_false(st.threefold);
    assert_int_equal(count_kind(m, CR_INC_THREEFOLD), 0);
    play(g, "g1f3 g8f6 f3g1 f6g8");
    cr_monitor_update(m, 200);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.repetitions, 3);
    assert_true(st.threefold);
    assert_int_equal(count_kind(m, CR_INC_THREEFOLD), 1);
    assert_int_equal(last_of(m, CR_INC_THREEFOLD)->ply, 8);
    /* Raised once: more updates and ticks at the same ply add nothing. */
    cr_monitor_update(m, 300);
    cr_monitor_tick(m, 400);
    assert_int_equal(count_kind(m, CR_INC_THREEFOLD), 1);
    play(g, "g1f3 g8f6 f3g1 f6g8");
    cr_monitor_update(m, 500);
    assert_int_equal(count_kind(m, CR_INC_THREEFOLD), 2); /* the 4th time is a new occurrence */
    assert_int_equal(cr_game_result(g), CR_RESULT_NONE);
    play(g, "g1f3 g8f6 f3g1 f6g8");
    cr_monitor_update(m, 600);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.repetitions, 5);
    assert_true(st.fivefold);
    assert_int_equal(count_kind(m, CR_INC_FIVEFOLD), 1);
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    assert_int_equal(st.result, CR_RESULT_DRAW);
    assert_non_null(strstr(last_of(m, CR_INC_RESULT)->text, "fivefold"));
    /* Taking back the last move reopens the game the monitor ended. */
    assert_int_equal(cr_monitor_take_back(m, 15, "clock not pressed", 700), 0);
    assert_int_equal(cr_game_ply_count(g), 15);
    assert_int_equal(cr_game_result(g), CR_RESULT_NONE);
    const cr_incident *c = last_of(m, CR_INC_CORRECTION);
    assert_non_null(strstr(c->text, "took back 1 ply"));
    assert_non_null(strstr(c->text, "8... Ng8"));
    assert_non_null(strstr(c->text, "reopened"));
    cr_monitor_free(m);
    cr_game_free(g);
}

/* The repetition and move-count rules as a table: a game from a position,
 * moves played in steps, and after each step what the monitor shows, as
 * "key=value" words: rep (repetitions of the position), halfmove; the
 * state's threefold, fivefold, fifty, seventy_five, dead (0/1); #threefold,
 * #fivefold, #fifty, #seventy_five, #dead (incidents of that kind so far);
 * result (none, white, black, draw); "why" (a word the last result
 * incident's text holds). A key not given is not checked. */
typedef struct rule_step {
    const char *moves; /* UCI, played before the monitor's update */
    const char *want;
} rule_step;

typedef struct rule_case {
    const char *name;
    const char *fen; /* NULL: the start position */
    rule_step steps[4];
} rule_case;

static const rule_case RULE_CASES[] = {
    {"knights out and back: a repetition per round, threefold on the third", NULL,
     {{"g1f3 g8f6 f3g1 f6g8", "rep=2 threefold=0 #threefold=0"},
      {"g1f3 g8f6 f3g1 f6g8", "rep=3 threefold=1 #threefold=1 result=none"},
      {"g1f3 g8f6 f3g1 f6g8", "rep=4 #threefold=2 fivefold=0 result=none"},
      {"g1f3 g8f6 f3g1 f6g8", "rep=5 fivefold=1 #fivefold=1 result=draw why=fivefold"}}},
    /* After 3...Ke8 the pieces stand as after 1...e5, but castling rights
     * are gone: not the same position. */
    {"castling rights lost: another position", NULL,
     {{"e2e4 e7e5 e1e2 e8e7 e2e1 e7e8 e1e2 e8e7 e2e1 e7e8", "rep=2 #threefold=0"},
      {"e1e2 e8e7 e2e1 e7e8", "rep=3 threefold=1 #threefold=1"}}},
    /* After ...d5 White may take e.p.; the same placement later, without
     * that right, is another position. */
    {"en passant right gone: another position", "1n2k3/3p4/8/4P3/8/8/8/1N2K3 b - - 0 1",
     {{"d7d5 b1c3 b8c6 c3b1 c6b8 b1c3 b8c6 c3b1 c6b8", "rep=2 #threefold=0"},
      {"b1c3 b8c6 c3b1 c6b8", "rep=3 threefold=1 #threefold=1"}}},
    {"the same placement with the other side to move: not a repetition",
     "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
     {{"a1a2 e8d8 a2a3 d8d7 a3a2 d7e8", "rep=1 #threefold=0"}}},
    {"fifty moves: a claim would succeed, raised once a run", "8/8/4k3/8/8/4K3/8/R7 w - - 98 60",
     {{"", "halfmove=98 fifty=0 #fifty=0"},
      {"a1a2 e6e5", "halfmove=100 fifty=1 #fifty=1 result=none"},
      {"a2a1 e5e6", "halfmove=102 fifty=1 #fifty=1 result=none"}}},
    {"a pawn move starts the count again", "8/8/4k3/8/8/4K3/P7/8 w - - 98 60",
     {{"a2a3 e6e5", "halfmove=1 fifty=0 #fifty=0"}}},
    {"a capture starts the count again", "8/8/4k3/8/8/4K3/8/R6r w - - 99 60",
     {{"a1h1", "halfmove=0 fifty=0 #fifty=0 dead=0 result=none"}}},
    {"seventy-five moves end the game", "8/8/4k3/8/8/4K3/8/R7 w - - 148 90",
     {{"a1a2 e6e5", "halfmove=150 seventy_five=1 #seventy_five=1 result=draw"}}},
    /* The 150th ply mates: checkmate takes precedence (9.6.2). */
    {"mate on the 150th ply", "k7/8/1K6/8/8/8/8/7R w - - 149 100",
     {{"h1h8", "halfmove=150 seventy_five=0 #seventy_five=0 result=white why=checkmate"}}},
};

static void check_rule_step(const rule_case *rc, int step, const cr_monitor *m, const cr_game *g)
{
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    char want[256];
    snprintf(want, sizeof want, "%s", rc->steps[step].want);
    for (char *save = NULL, *w = strtok_r(want, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        if (!eq) {
            fail_msg("%s: bad word \"%s\"", rc->name, w);
        }
        *eq = '\0';
        const char *key = w, *val = eq + 1;
        int got = 0;
        if (strcmp(key, "result") == 0) {
            static const char *const names[] = {"none", "white", "black", "draw"};
            const char *name = names[cr_game_result(g)];
            if (strcmp(name, val) != 0 || st.result != cr_game_result(g)) {
                fail_msg("%s, step %d: result %s, want %s", rc->name, step + 1, name, val);
            }
            continue;
        }
        if (strcmp(key, "why") == 0) {
            const cr_incident *r = last_of(m, CR_INC_RESULT);
            if (!r || !strstr(r->text, val)) {
                fail_msg("%s, step %d: no result incident saying %s", rc->name, step + 1, val);
            }
            continue;
        }
        static const struct {
            const char *key;
            cr_incident_kind kind;
        } counts[] = {{"#threefold", CR_INC_THREEFOLD}, {"#fivefold", CR_INC_FIVEFOLD},
                      {"#fifty", CR_INC_FIFTY_MOVES}, {"#seventy_five", CR_INC_SEVENTY_FIVE_MOVES},
                      {"#dead", CR_INC_DEAD_POSITION}};
        bool known = false;
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            if (strcmp(key, counts[k].key) == 0) {
                got = count_kind(m, counts[k].kind);
                known = true;
            }
        }
        if (!known) {
            known = true;
            if (strcmp(key, "rep") == 0) {
                got = st.repetitions;
            } else if (strcmp(key, "halfmove") == 0) {
                got = st.halfmove;
            } else if (strcmp(key, "threefold") == 0) {
                got = st.threefold;
            } else if (strcmp(key, "fivefold") == 0) {
                got = st.fivefold;
            } else if (strcmp(key, "fifty") == 0) {
                got = st.fifty_moves;
            } else if (strcmp(key, "seventy_five") == 0) {
                got = st.seventy_five;
            } else if (strcmp(key, "dead") == 0) {
                got = st.dead;
            } else {
                fail_msg("%s: unknown key \"%s\"", rc->name, key);
            }
        }
        if (got != atoi(val)) {
            fail_msg("%s, step %d: %s is %d, want %s", rc->name, step + 1, key, got, val);
        }
    }
}

static void test_repetition_and_move_count_rules(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof RULE_CASES / sizeof RULE_CASES[0]; i++) {
        const rule_case *rc = &RULE_CASES[i];
        cr_game *g = game_from(rc->fen);
        cr_monitor *m = cr_monitor_new(g, NULL, NULL);
        assert_non_null(m);
        for (int s = 0; s < 4 && rc->steps[s].want; s++) {
            play(g, rc->steps[s].moves);
            cr_monitor_update(m, 100 * (s + 1));
            check_rule_step(rc, s, m, g);
            /* Raised once: another update and a tick at the same ply add nothing. */
            int n = cr_monitor_incident_count(m);
            cr_monitor_update(m, 100 * (s + 1) + 10);
            cr_monitor_tick(m, 100 * (s + 1) + 20);
            assert_int_equal(cr_monitor_incident_count(m), n);
        }
        cr_monitor_free(m);
        cr_game_free(g);
    }
}

static void test_dead_positions(void **state)
{
    (void)state;
    /* K+B v K at the start. */
    cr_game *g = game_from("8/8/4k3/8/8/4K3/4B3/8 w - - 0 1");
    cr_monitor *m = cr_monitor_new(g, NULL, NULL);
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_true(st.dead);
    assert_int_equal(count_kind(m, CR_INC_DEAD_POSITION), 1);
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    cr_monitor_update(m, 5);
    assert_int_equal(count_kind(m, CR_INC_DEAD_POSITION), 1);
    cr_monitor_free(m);
    cr_game_free(g);

    /* A capture leaves K v K. */
    g = game_from("8/8/4k3/8/8/3r4/4K3/8 w - - 0 1");
    m = cr_monitor_new(g, NULL, NULL);
    assert_int_equal(count_kind(m, CR_INC_DEAD_POSITION), 0);
    play(g, "e2d3");
    cr_monitor_update(m, 10);
    cr_monitor_get_state(m, &st);
    assert_true(st.dead);
    assert_int_equal(count_kind(m, CR_INC_DEAD_POSITION), 1);
    assert_int_equal(last_of(m, CR_INC_DEAD_POSITION)->urgency, CR_URGENCY_WARNING);
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    cr_monitor_free(m);
    cr_game_free(g);

    /* Bishops all on one colour. */
    g = game_from("8/8/4k3/8/2b5/4K3/4B3/8 w - - 0 1");
    m = cr_monitor_new(g, NULL, NULL);
    assert_int_equal(count_kind(m, CR_INC_DEAD_POSITION), 1);
    cr_monitor_free(m);
    cr_game_free(g);
}

static void test_flag_with_mating_material(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    assert_int_equal(cr_monitor_clock(m, 0, 5000, 60000, CR_WHITE), CR_CLOCK_ACCEPTED);
    /* A timer ahead of the board's source acts on nothing. */
    cr_monitor_tick(m, 60000);
    assert_int_equal(count_kind(m, CR_INC_FLAG), 0);
    cr_monitor_source_time(m, 4000);
    assert_int_equal(count_kind(m, CR_INC_FLAG), 0);
    /* The source reached 5.2 s: the reading was fresh enough (5 s) for
     * the run-down to be sure. */
    cr_monitor_source_time(m, 5200);
    assert_int_equal(count_kind(m, CR_INC_FLAG), 1);
    const cr_incident *f = last_of(m, CR_INC_FLAG);
    assert_int_equal(f->t, 5000); /* dated by the fall, not by the call */
    assert_int_equal(f->color, CR_WHITE);
    assert_int_equal(f->urgency, CR_URGENCY_CRITICAL);
    assert_int_equal(f->white_ms, 0);
    assert_non_null(strstr(f->text, "Black wins"));
    assert_int_equal(cr_game_result(g), CR_RESULT_BLACK);
    cr_monitor_tick(m, 9000);
    assert_int_equal(count_kind(m, CR_INC_FLAG), 1);
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.flagged, CR_WHITE);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

static void test_flag_without_mating_material(void **state)
{
    (void)state;
    /* White (K+Q) flags; Black has a bare king: draw (6.9). */
    cr_game *g = game_from("8/8/4k3/8/8/4K3/4Q3/8 w - - 0 1");
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    cr_monitor_clock(m, 0, 1000, 30000, CR_WHITE);
    cr_monitor_source_time(m, 1500);
    const cr_incident *f = last_of(m, CR_INC_FLAG);
    assert_non_null(f);
    assert_non_null(strstr(f->text, "cannot checkmate"));
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);

    /* Black flags in the same position: White can mate, 1-0. */
    g = game_from("8/8/4k3/8/8/4K3/4Q3/8 b - - 0 1");
    c = cr_clock_new(NULL, NULL);
    m = cr_monitor_new(g, c, NULL);
    cr_monitor_clock(m, 0, 30000, 1000, CR_BLACK);
    cr_monitor_source_time(m, 1500);
    assert_int_equal(cr_game_result(g), CR_RESULT_WHITE);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

/* No clock readings: the clock runs on the move times and the time control. */
static void test_flag_from_move_times(void **state)
{
    (void)state;
    cr_time_control tc;
    assert_int_equal(cr_time_control_parse("60", &tc, NULL), 0);
    cr_clock *c = cr_clock_new(&tc, NULL);
    cr_game *g = game_from(NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    cr_clock_start(c, 0);
    const char *moves[] = {"e2e4", "e7e5", "g1f3"};
    int64_t ts[] = {20000, 30000, 70000};
    for (int i = 0; i < 3; i++) {
        cr_move mv = cr_move_from_uci(cr_game_position(g), moves[i]);
        assert_int_equal(cr_game_push(g, mv, CR_CLOCK_UNKNOWN, ts[i], 0), 0);
        cr_monitor_update(m, ts[i]);
    }
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.remaining_ms[CR_WHITE], 0);
    assert_int_equal(st.remaining_ms[CR_BLACK], 50000);
    assert_int_equal(count_kind(m, CR_INC_TWO_MINUTES), 2); /* a one-minute game */
    /* White had 40 s left at 30 s and moved at 70 s: by the move times the
     * flag fell, but no clock showed it: an alert, not a result. */
    assert_int_equal(count_kind(m, CR_INC_FLAG), 0);
    assert_int_equal(count_kind(m, CR_INC_FLAG_CHECK), 1);
    assert_int_equal(last_of(m, CR_INC_FLAG_CHECK)->color, CR_WHITE);
    assert_int_equal(last_of(m, CR_INC_FLAG_CHECK)->urgency, CR_URGENCY_WARNING);
    assert_non_null(strstr(last_of(m, CR_INC_FLAG_CHECK)->text, "should be at 0:00"));
    assert_int_equal(cr_clock_flagged(c), -1);
    assert_int_equal(cr_game_result(g), CR_RESULT_NONE);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.flag_check, CR_WHITE); /* the alert stands */
    /* The arbiter looks at the clock and confirms: 6.9. */
    assert_int_equal(cr_monitor_confirm_flag(m, CR_WHITE, "seen on the clock", 71000), 0);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.flag_check, -1); /* the result closed it */
    assert_int_equal(cr_game_result(g), CR_RESULT_BLACK);
    assert_int_equal(count_kind(m, CR_INC_FLAG), 1);
    assert_non_null(strstr(last_of(m, CR_INC_RESULT)->text, "confirmed by the arbiter"));
    assert_int_equal(cr_monitor_confirm_flag(m, CR_WHITE, NULL, 72000), CR_EINVAL);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

/* A flag-check closes when a later reading shows the side's time left. */
static void test_flag_check_closed_by_reading(void **state)
{
    (void)state;
    cr_time_control tc;
    assert_int_equal(cr_time_control_parse("60", &tc, NULL), 0);
    cr_clock *c = cr_clock_new(&tc, NULL);
    cr_game *g = game_from(NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    cr_clock_start(c, 0);
    const char *moves[] = {"e2e4", "e7e5", "g1f3"};
    int64_t ts[] = {20000, 30000, 70000};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cr_game_push(g, cr_move_from_uci(cr_game_position(g), moves[i]),
                                      CR_CLOCK_UNKNOWN, ts[i], 0), 0);
        cr_monitor_update(m, ts[i]);
    }
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.flag_check, CR_WHITE);
    cr_monitor_clock(m, 71000, 4000, 49000, CR_BLACK); /* the clock: White has 4 s */
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.flag_check, -1);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

static void test_two_minutes(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    cr_monitor_clock(m, 0, 125000, 300000, CR_WHITE);
    cr_monitor_source_time(m, 4000);
    assert_int_equal(count_kind(m, CR_INC_TWO_MINUTES), 0);
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_false(st.under_two_minutes[CR_WHITE]);
    cr_monitor_source_time(m, 5500);
    assert_int_equal(count_kind(m, CR_INC_TWO_MINUTES), 1);
    const cr_incident *i = last_of(m, CR_INC_TWO_MINUTES);
    assert_int_equal(i->color, CR_WHITE);
    /* Stamped when the time crossed two minutes, whenever it was noticed. */
    assert_int_equal(i->t, 5001);
    assert_int_equal(i->white_ms, 119999);
    assert_non_null(strstr(i->text, "claim window open"));
    cr_monitor_tick(m, 6000);
    cr_monitor_clock(m, 7000, 118000, 300000, CR_WHITE);
    assert_int_equal(count_kind(m, CR_INC_TWO_MINUTES), 1);
    cr_monitor_get_state(m, &st);
    assert_true(st.under_two_minutes[CR_WHITE]);
    assert_false(st.under_two_minutes[CR_BLACK]);
    assert_true(st.claim_window[CR_WHITE]); /* sudden death: D1 would be heard */
    assert_false(st.claim_window[CR_BLACK]);
    assert_int_equal(st.remaining_ms[CR_WHITE], 118000);
    assert_int_equal(st.running, CR_WHITE);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

static void test_illegal_move(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    cr_monitor_clock(m, 0, 300000, 300000, CR_WHITE);
    play(g, "e2e4");
    cr_monitor_clock(m, 2000, 298000, 300000, CR_BLACK);
    cr_monitor_update(m, 2000);
    /* Black's king jumps e8-e6 and the board shows it. */
    cr_position after = *cr_game_position(g);
    after.board[CR_SQ_E8] = CR_NO_PIECE;
    after.board[CR_SQ_E6] = CR_BK;
    after.side = CR_WHITE;
    assert_int_equal(cr_game_push_illegal(g, &after, "Ke8-e6", CR_CLOCK_UNKNOWN, 5000), 0);
    cr_monitor_update(m, 5100);
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.pending_illegal, 1);
    assert_int_equal(count_kind(m, CR_INC_ILLEGAL_MOVE), 0);
    /* Black presses the clock: the illegal move is completed. */
    cr_monitor_clock(m, 6000, 298000, 296000, CR_WHITE);
    assert_int_equal(count_kind(m, CR_INC_ILLEGAL_MOVE), 1);
    const cr_incident *i = last_of(m, CR_INC_ILLEGAL_MOVE);
    assert_int_equal(i->urgency, CR_URGENCY_CRITICAL);
    assert_int_equal(i->color, CR_BLACK);
    assert_int_equal(i->ply, 2);
    assert_non_null(strstr(i->text, "1... Ke8-e6"));
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.pending_illegal, -1);
    assert_int_equal(st.illegal_completed[CR_BLACK], 1);
    cr_monitor_tick(m, 7000);
    assert_int_equal(count_kind(m, CR_INC_ILLEGAL_MOVE), 1);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);

    /* Without a clock the opponent's reply shows the move was completed. */
    g = game_from(NULL);
    m = cr_monitor_new(g, NULL, NULL);
    play(g, "e2e4");
    after = *cr_game_position(g);
    after.board[CR_SQ_E8] = CR_NO_PIECE;
    after.board[CR_SQ_E6] = CR_BK;
    after.side = CR_WHITE;
    cr_game_push_illegal(g, &after, "Ke8-e6", CR_CLOCK_UNKNOWN, -1);
    cr_monitor_update(m, 1);
    assert_int_equal(count_kind(m, CR_INC_ILLEGAL_MOVE), 0);
    /* The arbiter restores the position instead: no alert ever. */
    assert_int_equal(cr_monitor_take_back(m, 1, "illegal move corrected before the press", 2), 0);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.pending_illegal, -1);
    play(g, "e7e5 g1f3");
    cr_monitor_update(m, 3);
    assert_int_equal(count_kind(m, CR_INC_ILLEGAL_MOVE), 0);
    cr_game_truncate(g, 2);
    cr_monitor_update(m, 4); /* retraction by the board reading */
    assert_non_null(strstr(last_of(m, CR_INC_CORRECTION)->text, "retracted"));
    cr_position a2 = *cr_game_position(g);
    a2.board[CR_SQ_E1] = CR_NO_PIECE;
    a2.board[CR_SQ_E3] = CR_WK;
    a2.side = CR_BLACK;
    cr_game_push_illegal(g, &a2, "Ke1-e3", CR_CLOCK_UNKNOWN, -1);
    cr_monitor_update(m, 5);
    assert_int_equal(count_kind(m, CR_INC_ILLEGAL_MOVE), 0);
    cr_move mv = cr_move_from_uci(cr_game_position(g), "b8c6");
    assert_int_not_equal(mv, CR_MOVE_NONE);
    cr_game_push(g, mv, CR_CLOCK_UNKNOWN, -1, 0);
    cr_monitor_update(m, 6);
    assert_int_equal(count_kind(m, CR_INC_ILLEGAL_MOVE), 1);
    assert_int_equal(last_of(m, CR_INC_ILLEGAL_MOVE)->color, CR_WHITE);
    cr_monitor_free(m);
    cr_game_free(g);
}

static void test_board_link_and_draw_offer(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_monitor *m = cr_monitor_new(g, NULL, NULL);
    cr_monitor_set_wall(m, 1764400000000);
    cr_monitor_board_link(m, true, 1); /* already online: nothing */
    assert_int_equal(cr_monitor_incident_count(m), 0);
    cr_monitor_board_link(m, false, 2);
    cr_monitor_board_link(m, false, 3);
    assert_int_equal(count_kind(m, CR_INC_BOARD_OFFLINE), 1);
    const cr_incident *i = last_of(m, CR_INC_BOARD_OFFLINE);
    assert_int_equal(i->urgency, CR_URGENCY_WARNING);
    assert_int_equal(i->wall, 1764400000000);
    assert_int_equal(i->t, 2);
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_false(st.board_online);
    cr_monitor_board_link(m, true, 4);
    assert_int_equal(count_kind(m, CR_INC_BOARD_ONLINE), 1);

    /* A draw offer from the board reading, then one marked by the arbiter. */
    cr_move mv = cr_move_from_uci(cr_game_position(g), "e2e4");
    cr_game_push(g, mv, CR_CLOCK_UNKNOWN, -1, CR_PLY_DRAW_OFFER);
    cr_monitor_update(m, 5);
    assert_int_equal(count_kind(m, CR_INC_DRAW_OFFER), 1);
    assert_non_null(strstr(last_of(m, CR_INC_DRAW_OFFER)->text, "White offers a draw after 1. e4"));
    play(g, "e7e5");
    cr_monitor_update(m, 6);
    assert_int_equal(cr_monitor_mark_draw_offer(m, -1, true, 7), 0);
    assert_true(cr_game_ply(g, 1)->flags & CR_PLY_DRAW_OFFER);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.last_draw_offer, 1);
    assert_int_equal(last_of(m, CR_INC_DRAW_OFFER)->color, CR_BLACK);
    assert_int_equal(cr_monitor_mark_draw_offer(m, 1, false, 8), 0);
    assert_false(cr_game_ply(g, 1)->flags & CR_PLY_DRAW_OFFER);
    cr_monitor_get_state(m, &st);
    assert_int_equal(st.last_draw_offer, 0);
    assert_int_equal(cr_monitor_mark_draw_offer(m, 7, true, 9), CR_EINVAL);

    /* Results and players. */
    assert_int_equal(cr_monitor_set_result(m, CR_RESULT_WHITE, "Black resigned", 10), 0);
    assert_int_equal(cr_game_result(g), CR_RESULT_WHITE);
    assert_int_equal(last_of(m, CR_INC_RESULT)->kind, CR_INC_RESULT);
    assert_int_equal(cr_monitor_set_result(m, CR_RESULT_DRAW, "wrong result reported", 11), 0);
    assert_non_null(strstr(last_of(m, CR_INC_CORRECTION)->text, "from 1-0 to 1/2-1/2"));
    assert_int_equal(cr_monitor_assign_players(m, "Carlsen, Magnus", NULL, 12), 0);
    assert_string_equal(cr_game_tag(g, "White"), "Carlsen, Magnus");
    assert_int_equal(cr_monitor_set_result(m, (cr_result)9, NULL, 13), CR_EINVAL);
    cr_monitor_free(m);
    cr_game_free(g);
}

static void count_cb(void *data, const cr_incident *inc)
{
    int *n = data;
    assert_int_equal(inc->seq, *n + 1);
    (*n)++;
}

/* A short game with clock readings; White ends up with 1:40, Black 4:00. */
static void setup_claim_game(cr_game *g, cr_monitor *m)
{
    cr_monitor_clock(m, 0, 300000, 300000, CR_WHITE);
    const char *moves[] = {"e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5c6", "d7c6"};
    int64_t t = 0;
    int32_t w = 300000, b = 300000;
    for (int i = 0; i < 8; i++) {
        int mover = i % 2;
        int64_t think = mover == CR_WHITE ? 25000 : 7000;
        t += think;
        if (mover == CR_WHITE) {
            w -= (int32_t)think;
        } else {
            b -= (int32_t)think;
        }
        play(g, moves[i]);
        cr_monitor_clock(m, t, w, b, mover ^ 1);
        cr_monitor_update(m, t);
    }
    /* White thinks and is down to 1:40. */
    t += 100000;
    cr_monitor_clock(m, t, 100000, b, CR_WHITE);
}

static void test_claim_workflow(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_game_set_tag(g, "White", "O'Brien & <Sons>");
    cr_game_set_tag(g, "Black", "M\xc3\xbcller, J\xc3\xbcrgen");
    cr_game_set_tag(g, "Event", "Club <b>Rapid</b>");
    cr_clock *c = cr_clock_new(NULL, NULL);
    int calls = 0;
    cr_monitor_config cfg;
    cr_monitor_config_default(&cfg);
    cfg.on_incident = count_cb;
    cfg.cb_data = &calls;
    cfg.evidence_moves = 2;
    cr_monitor *m = cr_monitor_new(g, c, &cfg);
    setup_claim_game(g, m);
    int64_t t = 4 * 32000 + 100000;
    cr_monitor_set_wall(m, 1764400000000);

    char why[200];
    /* Black has four minutes: refused, with the reason. */
    assert_int_equal(cr_monitor_claim(m, CR_BLACK, CR_CLAIM_CANNOT_WIN, t, why, sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "less than two minutes"));
    assert_non_null(strstr(last_of(m, CR_INC_CLAIM)->text, "refused"));
    assert_null(cr_monitor_claim_last(m));
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_DRAW, -1, NULL, t), CR_EINVAL);

    /* White claims (b). */
    if (cr_monitor_claim(m, CR_WHITE, CR_CLAIM_NO_EFFORT, t + 500, why, sizeof why) != 0) {
        fail_msg("claim refused: %s", why);
    }
    assert_int_equal(cr_monitor_claim(m, CR_WHITE, CR_CLAIM_NO_EFFORT, t + 600, why, sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "awaits a decision"));
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_true(st.claim_pending);
    const cr_claim *cl = cr_monitor_claim_last(m);
    assert_non_null(cl);
    assert_int_equal(cl->id, 1);
    assert_int_equal(cl->claimant, CR_WHITE);
    assert_int_equal(cl->ply, 8);
    assert_int_equal(cl->white_ms, 99500);
    assert_int_equal(cl->black_ms, 272000);
    assert_int_equal(cl->material[CR_WHITE].points, 36);
    assert_int_equal(cl->material[CR_BLACK].points, 36);
    assert_int_equal(cl->material[CR_BLACK].count[CR_PAWN], 8);
    assert_int_equal(cl->recent_count, 4);
    assert_string_equal(cl->recent[0].san, "Bb5");
    assert_int_equal(cl->recent[0].white_ms, 225000);
    assert_int_equal(cl->recent_captures, 2);
    assert_int_equal(cl->recent_pawn_moves, 2);
    assert_true(cl->recent[3].capture && cl->recent[3].pawn_move);
    assert_int_equal(cl->plies_since_irreversible, 0);
    assert_int_equal(cl->last_irreversible_ply, 7);
    assert_int_equal(cl->repetitions, 1);
    assert_true(cl->opponent_can_mate);
    /* The live game goes on; the frozen one does not. */
    play(g, "d2d3");
    cr_monitor_update(m, t + 700);
    assert_int_equal(cr_game_ply_count(cl->frozen), 8);

    assert_int_equal(cr_monitor_decide(m, CR_DECISION_DRAW, -1,
                                       "Black shuffled <rooks> for 20 moves", t + 60000),
                     0);
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    assert_int_equal(cl->decision, CR_DECISION_DRAW);
    assert_non_null(strstr(cr_game_comment(g, 7), "upheld"));
    const cr_incident *d = last_of(m, CR_INC_DECISION);
    assert_non_null(d);
    assert_non_null(strstr(d->text, "claim 1"));
    assert_int_equal(calls, cr_monitor_incident_count(m));

    /* The report. */
    char *html = cr_claim_report_html_new(m, cl);
    assert_non_null(html);
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    assert_non_null(
        strstr(html, "r1bqkbnr/1pp2ppp/p1p5/4p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 5"));
    assert_non_null(strstr(html, "O&#39;Brien &amp; &lt;Sons&gt;"));
    assert_null(strstr(html, "<Sons>"));
    assert_null(strstr(html, "<b>Rapid"));
    assert_non_null(strstr(html, "&lt;rooks&gt;"));
    assert_non_null(strstr(html, "M\xc3\xbcller, J\xc3\xbcrgen"));
    assert_non_null(strstr(html, "Bxc6"));
    assert_non_null(strstr(html, "dxc6"));
    assert_non_null(strstr(html, "0:01:39"));
    assert_non_null(strstr(html, "D1 (b)"));
    assert_non_null(strstr(html, "Claim upheld"));
    assert_non_null(strstr(html, "\u265A")); /* black king on the diagram */
    assert_non_null(strstr(html, "Arbiter"));
    assert_non_null(strstr(html, "<style>"));
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "d2d3"));
    assert_null(strstr(html, "4. d3"));
    /* The caller-buffer form cuts like snprintf. */
    char small[64];
    int n = cr_claim_report_html(m, cl, small, sizeof small);
    assert_int_equal(n, (int)strlen(html));
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, html, sizeof small - 1);
    free(html);

    char *pgn = cr_claim_report_pgn_new(m, cl);
    assert_non_null(pgn);
    assert_non_null(strstr(pgn, "[White \"O'Brien & <Sons>\"]"));
    assert_non_null(strstr(pgn, "4. Bxc6"));
    assert_non_null(strstr(pgn, "4... dxc6"));
    assert_non_null(strstr(pgn, "1/2-1/2"));
    assert_non_null(strstr(pgn, "Draw claim by White"));
    assert_non_null(strstr(pgn, "%clk 0:04:35"));
    free(pgn);

    assert_int_equal(cr_claim_report_html(m, NULL, NULL, 0), CR_EINVAL);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

static void test_claim_rejected_and_postponed(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    setup_claim_game(g, m);
    int64_t t = 4 * 32000 + 100000;
    assert_int_equal(cr_monitor_claim(m, CR_WHITE, CR_CLAIM_CANNOT_WIN, t, NULL, 0), 0);
    int32_t black_before = cr_clock_remaining(c, CR_BLACK, t);
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_POSTPONED, -1, NULL, t + 1000), 0);
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_true(st.claim_pending);
    assert_int_equal(cr_game_result(g), CR_RESULT_NONE);
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_REJECTED, -1, NULL, t + 2000), 0);
    assert_int_equal(cr_clock_remaining(c, CR_BLACK, t + 2000), black_before + 120000);
    assert_non_null(strstr(last_of(m, CR_INC_DECISION)->text, "0:02:00 added to Black"));
    cr_monitor_get_state(m, &st);
    assert_false(st.claim_pending);
    assert_int_equal(cr_game_result(g), CR_RESULT_NONE);
    const cr_claim *cl = cr_monitor_claim_last(m);
    assert_int_equal(cl->decision, CR_DECISION_REJECTED);
    assert_int_equal(cl->added_ms, 120000);
    char *html = cr_claim_report_html_new(m, cl);
    assert_non_null(strstr(html, "Claim rejected"));
    free(html);
    /* A second claim is possible after the rejection. */
    assert_int_equal(cr_monitor_claim(m, CR_WHITE, CR_CLAIM_CANNOT_WIN, t + 3000, NULL, 0), 0);
    assert_int_equal(cr_monitor_claim_count(m), 2);
    assert_int_equal(cr_monitor_claim_at(m, 1)->id, 2);
    /* Postponed; play goes on, White's flag falls; the arbiter then upholds
     * the claim: the draw replaces the loss on time. */
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_POSTPONED, -1, NULL, t + 3500), 0);
    /* The clock shows White's time at 0:00: the flag's own evidence. */
    cr_monitor_clock(m, t + 101000, 0, cr_clock_remaining(c, CR_BLACK, t + 101000), CR_WHITE);
    assert_int_equal(count_kind(m, CR_INC_FLAG), 1);
    assert_int_equal(cr_game_result(g), CR_RESULT_BLACK);
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_DRAW, -1, NULL, t + 201000), 0);
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    assert_non_null(strstr(last_of(m, CR_INC_CORRECTION)->text, "from 0-1 to 1/2-1/2"));
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

static void test_claim_refusals(void **state)
{
    (void)state;
    char why[200];
    /* No quickplay finish in this event. */
    cr_game *g = game_from(NULL);
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_monitor_config cfg;
    cr_monitor_config_default(&cfg);
    cfg.quickplay_finish = false;
    cr_monitor *m = cr_monitor_new(g, c, &cfg);
    cr_monitor_clock(m, 0, 60000, 60000, CR_WHITE);
    assert_int_equal(cr_monitor_claim(m, CR_WHITE, CR_CLAIM_CANNOT_WIN, 10, why, sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "quickplay"));
    cr_monitor_state st;
    cr_monitor_get_state(m, &st); /* the card says what the claim says */
    assert_true(st.under_two_minutes[CR_WHITE] && !st.claim_window[CR_WHITE]);
    cr_monitor_free(m);
    cr_clock_free(c);

    /* An increment: Guidelines III do not apply. */
    cr_time_control tc;
    cr_time_control_parse("300+30", &tc, NULL);
    c = cr_clock_new(&tc, NULL);
    m = cr_monitor_new(g, c, NULL);
    cr_monitor_clock(m, 0, 60000, 60000, CR_WHITE);
    assert_int_equal(cr_monitor_claim(m, CR_WHITE, CR_CLAIM_CANNOT_WIN, 10, why, sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "increment of 30 s"));
    cr_monitor_get_state(m, &st);
    assert_true(st.under_two_minutes[CR_WHITE] && !st.claim_window[CR_WHITE]);
    cr_monitor_free(m);
    cr_clock_free(c);

    /* No clock at all; game over; bad claimant. */
    m = cr_monitor_new(g, NULL, NULL);
    assert_int_equal(cr_monitor_claim(m, CR_WHITE, CR_CLAIM_CANNOT_WIN, 10, why, sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "no clock"));
    assert_int_equal(cr_monitor_claim(m, 3, CR_CLAIM_CANNOT_WIN, 10, why, sizeof why), CR_EINVAL);
    cr_monitor_set_result(m, CR_RESULT_WHITE, NULL, 11);
    assert_int_equal(cr_monitor_claim(m, CR_BLACK, CR_CLAIM_CANNOT_WIN, 12, why, sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "game is over"));
    cr_monitor_free(m);
    cr_game_free(g);
}

static void test_incident_round_trip(void **state)
{
    (void)state;
    cr_incident a;
    memset(&a, 0, sizeof a);
    a.seq = 17;
    a.kind = CR_INC_SEVENTY_FIVE_MOVES;
    a.urgency = CR_URGENCY_WARNING;
    a.ply = 151;
    a.color = -1;
    a.white_ms = 61000;
    a.black_ms = CR_CLOCK_UNKNOWN;
    a.t = 1234567890123;
    a.wall = -1;
    snprintf(a.text, sizeof a.text, "tab\there, line\nbreak, back\\slash, \x01 ctl, \xc3\xbc, \\t");
    char line[CR_INCIDENT_LINE_MAX];
    int n = cr_incident_format(&a, line, sizeof line);
    assert_true(n > 0);
    assert_null(strchr(line, '\n'));
    assert_non_null(strstr(line, "\tseventy-five-moves\twarning\t151\t-\t61000\t-1\t"));
    cr_incident b;
    cr_error err;
    assert_int_equal(cr_incident_parse(line, (size_t)n, &b, &err), 0);
    assert_int_equal(b.seq, 17);
    assert_int_equal(b.kind, a.kind);
    assert_int_equal(b.urgency, a.urgency);
    assert_int_equal(b.ply, 151);
    assert_int_equal(b.color, -1);
    assert_int_equal(b.white_ms, 61000);
    assert_int_equal(b.black_ms, CR_CLOCK_UNKNOWN);
    assert_true(b.t == a.t);
    assert_true(b.wall == -1);
    assert_string_equal(b.text, a.text);
    /* With a newline at the end, as journaled. */
    line[n] = '\n';
    line[n + 1] = '\0';
    assert_int_equal(cr_incident_parse(line, (size_t)n + 1, &b, &err), 0);

    /* All kinds by name. */
    for (int k = 0; k < CR_INC_KIND_NB; k++) {
        assert_int_equal(cr_incident_kind_parse(cr_incident_kind_name((cr_incident_kind)k)), k);
    }
    assert_string_equal(cr_incident_kind_name(CR_INC_TWO_MINUTES), "two-minutes");
    assert_string_equal(cr_incident_kind_name(CR_INC_DRAW_OFFER), "draw-offer");
    assert_int_equal(cr_incident_kind_parse("flags"), -1);

    /* The worst case fits CR_INCIDENT_LINE_MAX. */
    cr_incident w = a;
    w.seq = INT32_MAX;
    w.t = w.wall = INT64_MAX / 2;
    w.white_ms = w.black_ms = INT32_MAX;
    w.ply = 100000;
    memset(w.text, 0x01, sizeof w.text - 1);
    w.text[sizeof w.text - 1] = '\0';
    n = cr_incident_format(&w, line, sizeof line);
    assert_true(n > 0 && n < CR_INCIDENT_LINE_MAX);
    assert_int_equal(cr_incident_parse(line, (size_t)n, &b, &err), 0);
    assert_memory_equal(b.text, w.text, sizeof w.text);

    /* Too small a buffer. */
    char tiny[20];
    assert_int_equal(cr_incident_format(&a, tiny, sizeof tiny), CR_ENOSPC);
}

static void test_incident_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int column;
        const char *what;
    } bad[] = {
        {"", 1, "fields"},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t100\t-1", 34, "fields"},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t100\t-1\ttext\textra", 39, "more than 10"},
        {"0\tflag\tcritical\t3\tw\t0\t5000\t100\t-1\tx", 1, "seq"},
        {"1\tflagg\tcritical\t3\tw\t0\t5000\t100\t-1\tx", 3, "unknown kind"},
        {"1\tflag\turgent\t3\tw\t0\t5000\t100\t-1\tx", 8, "urgency"},
        {"1\tflag\tcritical\tx3\tw\t0\t5000\t100\t-1\tx", 17, "ply"},
        {"1\tflag\tcritical\t3\twhite\t0\t5000\t100\t-1\tx", 19, "color"},
        {"1\tflag\tcritical\t3\tw\t-7\t5000\t100\t-1\tx", 21, "white_ms"},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t\t-1\tx", 28, " t "},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t99999999999999999999\t-1\tx", 28, " t "},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t100\t-2\tx", 32, "wall"},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t100\t-1\tbad \\q escape", 39, "escape"},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t100\t-1\tends in \\", 43, "backslash"},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t100\t-1\tnul \\x00", 39, "escape"},
        {"1\tflag\tcritical\t3\tw\t0\t5000\t100\t-1\traw \x01", 39, "control"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cr_incident inc;
        cr_error err;
        cr_error_clear(&err);
        int rc = cr_incident_parse(bad[i].line, strlen(bad[i].line), &inc, &err);
        if (rc != CR_EFEED) {
            fail_msg("line %zu accepted: %s", i, bad[i].line);
        }
        if (bad[i].what[0] == ' ') {
            assert_non_null(strstr(err.text, "bad t"));
        } else if (!strstr(err.text, bad[i].what)) {
            fail_msg("line %zu: error \"%s\" lacks \"%s\"", i, err.text, bad[i].what);
        }
        if (err.column != bad[i].column) {
            fail_msg("line %zu: column %d, expected %d (%s)", i, err.column, bad[i].column,
                     err.text);
        }
    }
    /* Text longer than the record holds. */
    char line[1200];
    int n = snprintf(line, sizeof line, "1\tflag\tcritical\t3\tw\t0\t5000\t100\t-1\t");
    memset(line + n, 'x', 600);
    line[n + 600] = '\0';
    cr_incident inc;
    cr_error err;
    assert_int_equal(cr_incident_parse(line, strlen(line), &inc, &err), CR_EFEED);
    assert_non_null(strstr(err.text, "longer"));
}

/* Mutated journal lines: never a crash; what is accepted round-trips. */
static void test_incident_mutations(void **state)
{
    (void)state;
    const char *seed = "12\tillegal-move\tcritical\t41\tb\t61000\t-1\t99000\t1764400000000\t"
                       "Black completed \\x01 an illegal\\tmove \\\\ Ke8-e6";
    uint32_t x = 12345;
    int accepted = 0;
    for (int round = 0; round < 3000; round++) {
        char line[256];
        size_t n = strlen(seed);
        memcpy(line, seed, n + 1);
        int edits = 1 + round % 4;
        for (int e = 0; e < edits; e++) {
            x = x * 1103515245u + 12345u;
            size_t pos = (x >> 8) % n;
            x = x * 1103515245u + 12345u;
            static const char alphabet[] = "\t\\x0-9azb\n\x01 ";
            line[pos] = alphabet[(x >> 8) % (sizeof alphabet - 1)];
        }
        cr_incident inc, back;
        cr_error err;
        if (cr_incident_parse(line, n, &inc, &err) != 0) {
            assert_int_equal(err.code, CR_EFEED);
            assert_true(err.column >= 1 && err.column <= (int)n + 1);
            continue;
        }
        accepted++;
        char out[CR_INCIDENT_LINE_MAX];
        int k = cr_incident_format(&inc, out, sizeof out);
        assert_true(k > 0);
        assert_int_equal(cr_incident_parse(out, (size_t)k, &back, &err), 0);
        assert_int_equal(back.seq, inc.seq);
        assert_int_equal(back.kind, inc.kind);
        assert_true(back.t == inc.t && back.wall == inc.wall);
        assert_string_equal(back.text, inc.text);
    }
    assert_true(accepted > 0);
}

/* Random games driven through every entry point: no crash, the log stays
 * numbered and every line round-trips, reports can always be written. */
static void test_random_driving(void **state)
{
    (void)state;
    uint32_t x = 4242;
    int incidents = 0, claims = 0, kinds[CR_INC_KIND_NB] = {0};
    for (int game = 0; game < 12; game++) {
        cr_game *g = game_from(NULL);
        cr_clock *c = game % 3 ? cr_clock_new(NULL, NULL) : NULL;
        cr_monitor *m = cr_monitor_new(g, c, NULL);
        int64_t t = 0;
        int32_t ms[2] = {150000, 150000};
        int64_t last_read = 0;
        int running = CR_WHITE;
        for (int step = 0; step < 250; step++) {
            x = x * 1103515245u + 12345u;
            uint32_t r = x >> 8;
            t += r % 4000;
            int what = (int)(r % 16);
            if (what < 7) {
                cr_movelist list;
                int n = cr_generate_legal(cr_game_position(g), &list);
                if (n > 0) {
                    cr_game_push(g, list.moves[(r >> 4) % (uint32_t)n], CR_CLOCK_UNKNOWN, t,
                                 (r & 64) ? CR_PLY_DRAW_OFFER : 0);
                    ms[running] -= (int32_t)(t - last_read);
                    last_read = t;
                    if (ms[running] < 0) {
                        ms[running] = 0;
                    }
                    running ^= 1;
                    cr_monitor_clock(m, t, ms[0], ms[1], running);
                }
                cr_monitor_update(m, t);
            } else if (what == 7) {
                cr_position after = *cr_game_position(g);
                after.side ^= 1;
                cr_game_push_illegal(g, &after, "Xx1-x2", CR_CLOCK_UNKNOWN, t);
                cr_monitor_update(m, t);
            } else if (what == 8) {
                cr_monitor_take_back(m, cr_game_ply_count(g) - (int)(r % 3), NULL, t);
            } else if (what == 9) {
                cr_game_truncate(g, cr_game_ply_count(g) - (int)(r % 4));
                cr_monitor_update(m, t);
            } else if (what == 10) {
                char why[120];
                if (cr_monitor_claim(m, (r & 7) == 0 ? 5 : (int)(r & 1), (cr_claim_basis)(r % 2), t,
                                     why, sizeof why) != 0) {
                    assert_true(why[0] != '\0'); /* a refusal always says why */
                }
            } else if (what == 11) {
                cr_monitor_decide(m, (cr_decision)(r % 5), (int32_t)(r % 200000) - 1000,
                                  "note <x> & \"y\"", t);
            } else if (what == 12) {
                cr_monitor_board_link(m, r & 1, t);
            } else if (what == 13) {
                cr_monitor_mark_draw_offer(m, (int)(r % 20) - 1, r & 2, t);
            } else if (what == 14) {
                /* Mostly reopening, so that play goes on. */
                cr_monitor_set_result(m, (r & 16) ? CR_RESULT_NONE : (cr_result)(r % 5), "random",
                                      t);
            } else {
                cr_monitor_tick(m, t);
            }
        }
        for (int i = 0; i < cr_monitor_incident_count(m); i++) {
            const cr_incident *inc = cr_monitor_incident(m, i);
            assert_int_equal(inc->seq, i + 1);
            char line[CR_INCIDENT_LINE_MAX];
            int k = cr_incident_format(inc, line, sizeof line);
            assert_true(k > 0);
            cr_incident back;
            assert_int_equal(cr_incident_parse(line, (size_t)k, &back, NULL), 0);
            assert_string_equal(back.text, inc->text);
            kinds[inc->kind]++;
        }
        incidents += cr_monitor_incident_count(m);
        claims += cr_monitor_claim_count(m);
        for (int i = 0; i < cr_monitor_claim_count(m); i++) {
            char *html = cr_claim_report_html_new(m, cr_monitor_claim_at(m, i));
            assert_non_null(html);
            assert_null(strstr(html, "<x>"));
            free(html);
        }
        cr_monitor_free(m);
        cr_clock_free(c);
        cr_game_free(g);
    }
    /* The walk does reach the interesting parts. */
    assert_true(incidents > 200);
    assert_true(claims > 0);
    assert_true(kinds[CR_INC_ILLEGAL_MOVE] > 0 && kinds[CR_INC_DECISION] > 0 &&
                kinds[CR_INC_CORRECTION] > 0 && kinds[CR_INC_DRAW_OFFER] > 0);
}

/* A relay restart: the journal is read back into a new monitor on the same
 * game and clock; nothing already raised is raised again. */
static void test_restart_from_journal(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_clock *c = cr_clock_new(NULL, NULL);
    cr_monitor *m = cr_monitor_new(g, c, NULL);
    cr_monitor_clock(m, 0, 100000, 300000, CR_WHITE);
    play(g, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8");
    cr_monitor_update(m, 1000);
    cr_monitor_board_link(m, false, 2000);
    int n = cr_monitor_incident_count(m);
    assert_int_equal(n, 3); /* two-minutes, threefold, board-offline */
    char journal[3][CR_INCIDENT_LINE_MAX];
    for (int i = 0; i < n; i++) {
        assert_true(cr_incident_format(cr_monitor_incident(m, i), journal[i], sizeof *journal) > 0);
    }
    cr_monitor_free(m);

    cr_monitor_config cfg;
    cr_monitor_config_default(&cfg);
    cfg.silent_start = true;
    m = cr_monitor_new(g, c, &cfg);
    assert_int_equal(cr_monitor_incident_count(m), 0);
    for (int i = 0; i < n; i++) {
        cr_incident inc;
        assert_int_equal(cr_incident_parse(journal[i], strlen(journal[i]), &inc, NULL), 0);
        assert_int_equal(cr_monitor_restore_incident(m, &inc), 0);
    }
    cr_monitor_update(m, 3000);
    cr_monitor_clock(m, 3000, 97000, 300000, CR_WHITE);
    cr_monitor_tick(m, 4000);
    cr_monitor_board_link(m, false, 4000);
    assert_int_equal(cr_monitor_incident_count(m), n);
    cr_monitor_state st;
    cr_monitor_get_state(m, &st);
    assert_false(st.board_online);
    assert_true(st.threefold);
    cr_monitor_free(m);
    cr_clock_free(c);
    cr_game_free(g);
}

static void test_restore_and_sort(void **state)
{
    (void)state;
    cr_game *g = game_from(NULL);
    cr_monitor *m = cr_monitor_new(g, NULL, NULL);
    cr_incident inc;
    const char *line = "5\tflag\tcritical\t40\tb\t120000\t0\t99\t-1\tBlack's flag fell";
    assert_int_equal(cr_incident_parse(line, strlen(line), &inc, NULL), 0);
    assert_int_equal(cr_monitor_restore_incident(m, &inc), 0);
    cr_monitor_board_link(m, false, 100);
    cr_monitor_board_link(m, true, 101);
    assert_int_equal(cr_monitor_incident_count(m), 3);
    assert_int_equal(cr_monitor_incident(m, 0)->seq, 1);
    assert_string_equal(cr_monitor_incident(m, 0)->text, "Black's flag fell");
    cr_incident sorted[3];
    for (int i = 0; i < 3; i++) {
        sorted[i] = *cr_monitor_incident(m, i);
    }
    qsort(sorted, 3, sizeof *sorted, cr_incident_compare);
    assert_int_equal(sorted[0].kind, CR_INC_FLAG);
    assert_int_equal(sorted[1].kind, CR_INC_BOARD_OFFLINE);
    assert_int_equal(sorted[2].kind, CR_INC_BOARD_ONLINE);
    assert_null(cr_monitor_incident(m, 3));
    cr_monitor_free(m);
    cr_game_free(g);
}

/* 75 moves: logged once, also when play goes on after the draw and when a
 * monitor re-examines the game (issue 14: logged three times). */
static void test_automatic_end_logged_once(void **state)
{
    (void)state;
    cr_game *g = game_from("8/8/4k3/8/8/4K3/8/R7 w - - 148 90");
    cr_monitor *m = cr_monitor_new(g, NULL, NULL);
    play(g, "a1a2 e6e5");
    cr_monitor_update(m, 1);
    assert_int_equal(count_kind(m, CR_INC_SEVENTY_FIVE_MOVES), 1);
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    play(g, "a2a1 e5e6 a1a2");
    cr_monitor_update(m, 2);
    cr_monitor_update(m, 3);
    cr_monitor_attach(m, g, NULL);
    assert_int_equal(count_kind(m, CR_INC_SEVENTY_FIVE_MOVES), 1);
    cr_monitor_free(m);
    cr_game_free(g);
}

static void test_material_keys(void **state)
{
    (void)state;
    assert_string_equal(cr_material_key(CR_PAWN), "p");
    assert_string_equal(cr_material_key(CR_KNIGHT), "n");
    assert_string_equal(cr_material_key(CR_BISHOP), "b");
    assert_string_equal(cr_material_key(CR_ROOK), "r");
    assert_string_equal(cr_material_key(CR_QUEEN), "q");
    assert_string_equal(cr_material_key(CR_KING), "k");
    assert_null(cr_material_key(0));
    assert_null(cr_material_key(CR_TYPE_NB));
}

/* Every sample feed and the arbiter's stopped-clock feed end with the clock
 * stopped: hours of source time later, no flag, nothing to check, no result
 * the board did not give (issue 14: p05 got "Black's flag fell"). */
static void test_feeds_no_flag_without_evidence(void **state)
{
    (void)state;
    int files = 0;
    for (int k = 0; k <= 19; k++) {
        char path[512];
        if (k == 0) {
            snprintf(path, sizeof path, "%s/feeds-arbiter/stopped.feed", CR_TEST_DATA_DIR);
        } else {
            snprintf(path, sizeof path, "%s/feeds/p%02d.feed", CR_TEST_DATA_DIR, k);
        }
        files++;
        cr_test_feed_run r;
        cr_test_feed_run_file(&r, path, NULL, 6 * 3600 * 1000LL);
        if (count_kind(r.mon, CR_INC_FLAG) || count_kind(r.mon, CR_INC_FLAG_CHECK)) {
            fail_msg(
                "%s: %s", path,
                last_of(r.mon, count_kind(r.mon, CR_INC_FLAG) ? CR_INC_FLAG : CR_INC_FLAG_CHECK)
                    ->text);
        }
        if (cr_game_result(r.game) != CR_RESULT_NONE && k > 0) {
            /* Only a result the position gives (mate, dead position, ...). */
            assert_int_equal(count_kind(r.mon, CR_INC_RESULT), 1);
            assert_null(strstr(last_of(r.mon, CR_INC_RESULT)->text, "flag"));
        }
        assert_int_equal(cr_clock_running(r.clock), CR_CLOCK_STOPPED);
        cr_test_feed_run_free(&r);
    }
    assert_int_equal(files, 20);
}

/* The arbiter corrects a move: later plies kept while legal, logged. */
static void test_replace_move(void **state)
{
    (void)state;
    char why[200];
    cr_game *g = game_from("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    cr_monitor *m = cr_monitor_new(g, NULL, NULL);
    play(g, "b7b8q e8e7 b8b5");
    cr_monitor_update(m, 1);
    assert_int_equal(
        cr_monitor_replace_move(m, 0, "b8=N", "a knight on the board", 2, why, sizeof why), 0);
    assert_int_equal(cr_game_ply_count(g), 2);
    assert_string_equal(cr_game_ply(g, 0)->san, "b8=N");
    const cr_incident *c = last_of(m, CR_INC_CORRECTION);
    assert_non_null(strstr(c->text, "1. b8=Q+ corrected to 1. b8=N by the arbiter"));
    assert_non_null(strstr(c->text, "1 later ply kept, 1 dropped: a knight on the board"));
    assert_int_equal(cr_monitor_replace_move(m, 1, "Kf9", NULL, 3, why, sizeof why), CR_EMOVE);
    assert_true(strlen(why) > 0);
    assert_int_equal(cr_monitor_replace_move(m, 5, "Kf7", NULL, 3, why, sizeof why), CR_EINVAL);
    cr_monitor_free(m);
    cr_game_free(g);
}

/* 1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1, Black to move: the position
 * stands for the 2nd time; 4... Ng8 would bring the start position for the
 * 3rd time. */
static cr_monitor *knights_out_and_back(cr_game **g)
{
    *g = game_from(NULL);
    cr_monitor *m = cr_monitor_new(*g, NULL, NULL);
    play(*g, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1");
    cr_monitor_update(m, 1000);
    return m;
}

/* Threefold and 50-move claims, on the board and with a written move. */
static void test_claim_threefold_and_fifty(void **state)
{
    (void)state;
    char why[200];
    cr_game *g;
    cr_monitor *m = knights_out_and_back(&g);
    /* Black to move writes 4... Ng8: the start position for the 3rd time. */
    assert_int_equal(
        cr_monitor_claim_move(m, CR_WHITE, CR_CLAIM_THREEFOLD, "Ng8", 2000, why, sizeof why),
        CR_EINVAL);
    assert_non_null(strstr(why, "not to move"));
    /* Without the move: the position on the board stands twice only. */
    assert_int_equal(cr_monitor_claim(m, CR_BLACK, CR_CLAIM_THREEFOLD, 2000, why, sizeof why), 0);
    const cr_claim *c = cr_monitor_claim_last(m);
    assert_false(c->correct);
    assert_int_equal(c->claimed_repetitions, 2);
    assert_string_equal(c->move, "");
    assert_non_null(strstr(last_of(m, CR_INC_CLAIM)->text, "not correct"));
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_REJECTED, -1, NULL, 2500), 0);
    assert_int_equal(cr_game_result(g), CR_RESULT_NONE);
    /* An illegal written move refuses the claim. */
    assert_int_equal(
        cr_monitor_claim_move(m, CR_BLACK, CR_CLAIM_THREEFOLD, "Ng5", 3000, why, sizeof why),
        CR_EINVAL);
    assert_non_null(strstr(why, "written move"));
    /* With the written move (9.2.1.1): correct. */
    assert_int_equal(
        cr_monitor_claim_move(m, CR_BLACK, CR_CLAIM_THREEFOLD, "f6g8", 3000, why, sizeof why), 0);
    c = cr_monitor_claim_last(m);
    assert_true(c->correct);
    assert_int_equal(c->claimed_repetitions, 3);
    assert_string_equal(c->move, "Ng8");
    assert_int_equal(c->ply, 7);
    assert_non_null(strstr(last_of(m, CR_INC_CLAIM)->text, "with the move Ng8 written"));
    assert_non_null(strstr(last_of(m, CR_INC_CLAIM)->text, "3rd time: the claim is correct"));
    char *html = cr_claim_report_html_new(m, c);
    assert_non_null(strstr(html, "threefold repetition"));
    assert_non_null(strstr(html, "the claim is correct"));
    free(html);
    /* The arbiter upholds it. */
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_DRAW, -1, "checked", 3500), 0);
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    assert_non_null(strstr(last_of(m, CR_INC_RESULT)->text, "9.2 threefold"));
    cr_monitor_free(m);
    cr_game_free(g);

    /* 50 moves: 98 plies on the board; the written 50th move makes 100. */
    g = game_from("8/8/4k3/8/8/4K3/8/R7 w - - 97 60");
    m = cr_monitor_new(g, NULL, NULL);
    play(g, "a1a2");
    cr_monitor_update(m, 1);
    assert_int_equal(cr_monitor_claim(m, CR_BLACK, CR_CLAIM_FIFTY_MOVES, 2, why, sizeof why), 0);
    assert_false(cr_monitor_claim_last(m)->correct);
    assert_int_equal(cr_monitor_claim_last(m)->claimed_halfmove, 98);
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_REJECTED, 0, NULL, 3), 0);
    assert_int_equal(
        cr_monitor_claim_move(m, CR_BLACK, CR_CLAIM_FIFTY_MOVES, "Kd5", 4, why, sizeof why), 0);
    assert_false(cr_monitor_claim_last(m)->correct); /* 99 plies */
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_REJECTED, 0, NULL, 5), 0);
    play(g, "e6d5");
    cr_monitor_update(m, 6);
    assert_int_equal(
        cr_monitor_claim_move(m, CR_WHITE, CR_CLAIM_FIFTY_MOVES, "Ra3", 7, why, sizeof why), 0);
    assert_true(cr_monitor_claim_last(m)->correct);
    assert_int_equal(cr_monitor_claim_last(m)->claimed_halfmove, 100);
    /* D1 takes no move. */
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_REJECTED, 0, NULL, 8), 0);
    assert_int_equal(
        cr_monitor_claim_move(m, CR_WHITE, CR_CLAIM_CANNOT_WIN, "Ra3", 9, why, sizeof why),
        CR_EINVAL);
    assert_non_null(strstr(why, "without a move"));
    cr_monitor_free(m);
    cr_game_free(g);
}

/* Claims and decisions as journal lines: a restarted monitor has them back,
 * reports included. */
static void test_claim_journal(void **state)
{
    (void)state;
    char why[200];
    cr_game *g;
    cr_monitor *m = knights_out_and_back(&g);
    assert_int_equal(cr_monitor_claim(m, CR_BLACK, CR_CLAIM_THREEFOLD, 2000, why, sizeof why), 0);
    char lines[4][CR_CLAIM_LINE_MAX];
    assert_true(cr_claim_format(cr_monitor_claim_last(m), lines[0], sizeof lines[0]) > 0);
    assert_int_equal(
        cr_monitor_decide(m, CR_DECISION_REJECTED, 60000, "tab\there, line\nbreak", 2500), 0);
    assert_true(cr_claim_format(cr_monitor_claim_last(m), lines[1], sizeof lines[1]) > 0);
    assert_int_equal(
        cr_monitor_claim_move(m, CR_BLACK, CR_CLAIM_THREEFOLD, "Ng8", 3000, why, sizeof why), 0);
    assert_true(cr_claim_format(cr_monitor_claim_last(m), lines[2], sizeof lines[2]) > 0);
    assert_int_equal(cr_monitor_decide(m, CR_DECISION_POSTPONED, -1, NULL, 3500), 0);
    assert_true(cr_claim_format(cr_monitor_claim_last(m), lines[3], sizeof lines[3]) > 0);
    assert_non_null(strstr(lines[2], "\tNg8\t"));
    assert_null(strchr(lines[1], '\n'));
    char *html_before = cr_claim_report_html_new(m, cr_monitor_claim_at(m, 0));

    cr_monitor_config cfg;
    cr_monitor_config_default(&cfg);
    cfg.silent_start = true;
    cr_monitor *r = cr_monitor_new(g, NULL, &cfg);
    for (int i = 0; i < 4; i++) {
        cr_error err;
        assert_int_equal(cr_monitor_restore_claim(r, lines[i], strlen(lines[i]), &err), 0);
    }
    assert_int_equal(cr_monitor_claim_count(r), 2);
    const cr_claim *a = cr_monitor_claim_at(r, 0), *b = cr_monitor_claim_at(r, 1);
    assert_int_equal(a->decision, CR_DECISION_REJECTED);
    assert_int_equal(a->added_ms, 60000);
    assert_string_equal(a->note, "tab\there, line\nbreak");
    assert_int_equal(b->decision, CR_DECISION_POSTPONED);
    assert_true(b->correct);
    assert_string_equal(b->move, "Ng8");
    cr_monitor_state st;
    cr_monitor_get_state(r, &st);
    assert_true(st.claim_pending);
    char *html_after = cr_claim_report_html_new(r, a);
    /* The report is the claim's; only the incident log differs (not restored here). */
    const char *cut = strstr(html_before, "<h2>Incidents");
    if (cut) {
        assert_int_equal(strncmp(html_before, html_after, (size_t)(cut - html_before)), 0);
    }
    free(html_before);
    free(html_after);
    /* Malformed or out-of-order lines are refused. */
    cr_error err;
    assert_int_equal(cr_monitor_restore_claim(r, "1\tw", 4, &err), CR_EFEED);
    char bad[CR_CLAIM_LINE_MAX];
    snprintf(bad, sizeof bad, "%s", lines[0]);
    bad[0] = '7';
    assert_int_equal(cr_monitor_restore_claim(r, bad, strlen(bad), &err), CR_EINVAL);
    cr_monitor_free(r);
    cr_monitor_free(m);
    cr_game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threefold_and_fivefold),
        cmocka_unit_test(test_repetition_and_move_count_rules),
        cmocka_unit_test(test_dead_positions),
        cmocka_unit_test(test_flag_with_mating_material),
        cmocka_unit_test(test_flag_without_mating_material),
        cmocka_unit_test(test_flag_from_move_times),
        cmocka_unit_test(test_flag_check_closed_by_reading),
        cmocka_unit_test(test_two_minutes),
        cmocka_unit_test(test_illegal_move),
        cmocka_unit_test(test_board_link_and_draw_offer),
        cmocka_unit_test(test_claim_workflow),
        cmocka_unit_test(test_claim_rejected_and_postponed),
        cmocka_unit_test(test_claim_refusals),
        cmocka_unit_test(test_incident_round_trip),
        cmocka_unit_test(test_incident_malformed),
        cmocka_unit_test(test_incident_mutations),
        cmocka_unit_test(test_random_driving),
        cmocka_unit_test(test_restart_from_journal),
        cmocka_unit_test(test_restore_and_sort),
        cmocka_unit_test(test_automatic_end_logged_once),
        cmocka_unit_test(test_claim_threefold_and_fifty),
        cmocka_unit_test(test_claim_journal),
        cmocka_unit_test(test_replace_move),
        cmocka_unit_test(test_material_keys),
        cmocka_unit_test(test_feeds_no_flag_without_evidence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
