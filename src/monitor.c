/* Arbiter monitoring of one game: alerts (raised once per occurrence), the
 * append-only incident log and arbiter actions. Draw claims are in
 * claims.c, the incidents' text form in incidents.c and the printable claim
 * report in claim_report.c. */
#include "cr/arbiter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_private.h"
#include "cr/notation.h"

/* ---------------------------------------------------------------- monitor */

void cr_monitor_config_default(cr_monitor_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->two_minutes_ms = 120000;
    cfg->claim_added_ms = 120000;
    cfg->evidence_moves = 10;
    cfg->quickplay_finish = true;
    cfg->flag_ends_game = true;
    cfg->press_grace_ms = 3000;
    cfg->unpressed_ms = 10000;
}

static int append(cr_monitor *m, const cr_incident *inc, bool notify)
{
    if (m->count == m->cap) {
        int cap = m->cap ? m->cap * 2 : 32;
        cr_incident *l = realloc(m->log, (size_t)cap * sizeof *l);
        if (!l) {
            return CR_ENOMEM;
        }
        m->log = l;
        m->cap = cap;
    }
    cr_incident *dst = &m->log[m->count];
    *dst = *inc;
    dst->seq = m->count + 1;
    dst->text[sizeof dst->text - 1] = '\0';
    m->count++;
    if (notify && m->cfg.on_incident) {
        m->cfg.on_incident(m->cfg.cb_data, dst);
    }
    return 0;
}

/* The same alert is logged once: per side and ply for the alerts, once per
 * game for the automatic ends (a game drawn by 75 moves does not say so
 * again at every later ply, nor after a restart replays the record). */
static bool already_logged(const cr_monitor *m, cr_incident_kind kind, int color, int ply)
{
    bool per_game = kind == CR_INC_FIVEFOLD || kind == CR_INC_SEVENTY_FIVE_MOVES ||
                    kind == CR_INC_DEAD_POSITION;
    bool per_ply = kind == CR_INC_THREEFOLD || kind == CR_INC_FIFTY_MOVES ||
                   kind == CR_INC_TWO_MINUTES || kind == CR_INC_FLAG || kind == CR_INC_FLAG_CHECK;
    if (!per_game && !per_ply) {
        return false;
    }
    for (int i = m->count - 1; i >= 0; i--) {
        const cr_incident *x = &m->log[i];
        if (x->kind == kind && x->color == color && (per_game || x->ply == ply)) {
            return true;
        }
    }
    return false;
}

int cr_monitor_log_incident(cr_monitor *m, cr_incident_kind kind, cr_urgency urg, int color,
                            int64_t t, const char *fmt, ...)
{
    if (m->silent || already_logged(m, kind, color, cr_game_ply_count(m->game))) {
        return 0;
    }
    cr_incident inc;
    memset(&inc, 0, sizeof inc);
    inc.kind = kind;
    inc.urgency = urg;
    inc.ply = cr_game_ply_count(m->game);
    inc.color = color;
    inc.white_ms = remaining(m, CR_WHITE, t);
    inc.black_ms = remaining(m, CR_BLACK, t);
    inc.t = t;
    inc.wall = m->wall;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(inc.text, sizeof inc.text, fmt, ap);
    va_end(ap);
    return append(m, &inc, true);
}

/* "23. Kd2" / "23... Kd7" for ply i. */
static void ply_label(const cr_game *g, int i, char buf[40])
{
    const cr_ply *p = cr_game_ply(g, i);
    const cr_position *before = cr_game_position_at(g, i);
    if (!p) {
        snprintf(buf, 40, "start");
        return;
    }
    snprintf(buf, 40, "%d%s %s", before->fullmove, before->side == CR_WHITE ? "." : "...", p->san);
}

bool cr_monitor_game_over(const cr_monitor *m)
{
    return cr_game_result(m->game) != CR_RESULT_NONE;
}

/* Sets the result on behalf of the monitor (automatic end) with a result
 * incident. positional: ended by the position (mate, repetition, ...), so a
 * take-back before it reopens the game; a flag fall stays. */
static void auto_result(cr_monitor *m, cr_result r, int64_t t, const char *why, bool positional)
{
    cr_game_set_result(m->game, r);
    m->last_result = r;
    m->ended_at = cr_game_ply_count(m->game);
    if (positional) {
        m->auto_end_ply = m->ended_at;
        m->auto_end_result = r;
    }
    cr_monitor_log_incident(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t, "%s: %s", cr_result_string(r),
                            why);
}

/* A rule that ends the game by itself (5.2.2, 9.6): logged once for the
 * position n, and the draw recorded unless the game is over already. */
static void draw_by_rule(cr_monitor *m, cr_incident_kind kind, int64_t t, int n, bool over,
                         const char *rule, const char *reason)
{
    cr_monitor_log_incident(m, kind, CR_URGENCY_WARNING, -1, t, "%s%s", rule,
                            over ? "" : ": the game is drawn");
    if (!over) {
        auto_result(m, CR_RESULT_DRAW, t, reason, true);
    }
    m->ended_at = n;
}


static int ensure_ply_clock(cr_monitor *m, int n)
{
    if (n <= m->ply_cap) {
        return 0;
    }
    int cap = m->ply_cap ? m->ply_cap * 2 : 128;
    while (cap < n) {
        cap *= 2;
    }
    int32_t(*pc)[CR_COLOR_NB] = realloc(m->ply_clock, (size_t)cap * sizeof *pc);
    if (!pc) {
        return CR_ENOMEM;
    }
    m->ply_clock = pc;
    m->ply_cap = cap;
    return 0;
}

/* A completed illegal move: the mover pressed after it, or the opponent has
 * moved since. */
static void check_illegal(cr_monitor *m, int64_t t)
{
    int i = m->pending_illegal;
    if (i < 0) {
        return;
    }
    const cr_game *g = m->game;
    int mover = cr_game_position_at(g, i)->side;
    int64_t press = m->clock ? cr_clock_last_press(m->clock, mover) : -1;
    bool completed = (press >= 0 && press >= m->pending_since) || cr_game_ply_count(g) > i + 1;
    if (!completed) {
        return;
    }
    m->pending_illegal = -1;
    m->illegal_completed[mover]++;
    char lab[40];
    ply_label(g, i, lab);
    cr_monitor_log_incident(
        m, CR_INC_ILLEGAL_MOVE, CR_URGENCY_CRITICAL, mover, t,
        "%s completed an illegal move %s (illegal move no. %d of %s): penalties apply, "
        "arbiter decides",
        color_name(mover), lab, m->illegal_completed[mover], color_name(mover));
}

/* Ply i is new: draw offer, illegal move, clock snapshot. */
static void examine_ply(cr_monitor *m, int i, int64_t t)
{
    const cr_game *g = m->game;
    const cr_ply *p = cr_game_ply(g, i);
    int mover = cr_game_position_at(g, i)->side;
    int64_t when = p->ts >= 0 ? p->ts : t;
    if (m->clock && !(p->flags & CR_PLY_ILLEGAL)) {
        cr_clock_move(m->clock, i, mover, when);
    }
    if (ensure_ply_clock(m, i + 1) == 0) {
        for (int c = 0; c < CR_COLOR_NB; c++) {
            m->ply_clock[i][c] = remaining(m, c, when);
        }
        if (p->clock_ms >= 0) {
            m->ply_clock[i][mover] = p->clock_ms;
        }
    }
    if (p->flags & CR_PLY_DRAW_OFFER) {
        char lab[40]; /* only here: every ply of every game comes through */
        ply_label(g, i, lab);
        m->last_draw_offer = i;
        cr_monitor_log_incident(m, CR_INC_DRAW_OFFER, CR_URGENCY_NOTICE, mover, t,
                                "%s offers a draw after %s", color_name(mover), lab);
    }
    if (p->flags & CR_PLY_ILLEGAL) {
        m->pending_illegal = i;
        m->pending_since = when;
    }
}

/* The current position: repetitions, counters, dead position, mate. */
static void evaluate_position(cr_monitor *m, int64_t t)
{
    cr_game *g = m->game;
    const cr_position *pos = cr_game_position(g);
    int n = cr_game_ply_count(g);
    m->repetitions = cr_game_repetitions(g);
    m->halfmove = pos->halfmove;
    m->threefold = m->repetitions >= 3;
    m->fifty = m->halfmove >= 100;
    m->fivefold = m->repetitions >= 5;
    m->dead = cr_position_is_dead(pos);
    cr_status st = cr_position_status(pos);
    m->seventy_five = m->halfmove >= 150 && st != CR_STATUS_CHECKMATE;

    if (cr_game_result(g) != m->last_result) {
        /* Set by someone else (the inference, a PGN): record it. */
        m->last_result = cr_game_result(g);
        cr_monitor_log_incident(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t,
                                "%s (from the game record)", cr_result_string(m->last_result));
    }
    if (m->ended_at == n) {
        return; /* this position was judged already */
    }
    bool over = cr_monitor_game_over(m);
    if (st == CR_STATUS_CHECKMATE && !over) {
        cr_result winner = pos->side == CR_WHITE ? CR_RESULT_BLACK : CR_RESULT_WHITE;
        auto_result(m, winner, t, "checkmate", true);
        return;
    }
    if (st == CR_STATUS_STALEMATE && !over) {
        auto_result(m, CR_RESULT_DRAW, t, "stalemate", true);
        return;
    }
    char rule[96];
    if (m->dead) {
        draw_by_rule(m, CR_INC_DEAD_POSITION, t, n, over,
                     "dead position: neither side can checkmate (5.2.2)", "dead position");
        return;
    }
    if (m->fivefold) {
        snprintf(rule, sizeof rule, "position repeated %d times (9.6.1)", m->repetitions);
        draw_by_rule(m, CR_INC_FIVEFOLD, t, n, over, rule, "fivefold repetition");
        return;
    }
    if (m->seventy_five) {
        draw_by_rule(m, CR_INC_SEVENTY_FIVE_MOVES, t, n, over,
                     "75 moves by each side without a capture or pawn move (9.6.2)", "75-move rule");
        return;
    }
    if (m->threefold && m->threefold_at != n && !over) {
        m->threefold_at = n;
        cr_monitor_log_incident(
            m, CR_INC_THREEFOLD, CR_URGENCY_NOTICE, -1, t,
            "position stands for the %d%s time: a draw claim (9.2) would be correct",
            m->repetitions, m->repetitions == 3 ? "rd" : "th");
    }
    int run = n - m->halfmove; /* ply count at the last capture or pawn move */
    if (m->fifty && m->fifty_run != run && !over) {
        m->fifty_run = run;
        cr_monitor_log_incident(
            m, CR_INC_FIFTY_MOVES, CR_URGENCY_NOTICE, -1, t,
            "50 moves by each side without a capture or pawn move: a draw claim (9.3) "
            "would be correct");
    }
}

/* The earliest time in [state time, t] at which c's time is below thr,
 * given that it is at t: remaining times only fall between readings, so a
 * bisection finds it. Alerts are stamped with it, not with the time of the
 * call that noticed (which depends on how often the caller ticks). */
static int64_t first_below(const cr_monitor *m, int c, int32_t thr, int64_t t)
{
    int64_t lo = cr_clock_state_time(m->clock);
    if (lo < 0 || lo >= t) {
        return t;
    }
    int32_t r = remaining(m, c, lo);
    if (r >= 0 && r < thr) {
        return lo;
    }
    int64_t hi = t;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        r = remaining(m, c, mid);
        if (r >= 0 && r < thr) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return hi;
}

/* The result of a fallen flag (6.9): the opponent wins, or a draw when the
 * opponent cannot checkmate by any legal sequence. */
static cr_result flag_result(const cr_monitor *m, int s, bool *can)
{
    int opp = s ^ 1;
    *can = cr_can_mate(cr_game_position(m->game), opp);
    return !*can ? CR_RESULT_DRAW : opp == CR_WHITE ? CR_RESULT_WHITE : CR_RESULT_BLACK;
}

/* Flags that fell on evidence (the clock's own 0:00, or a sure run-down),
 * each dated by its fall. */
static void check_flags(cr_monitor *m, int64_t t)
{
    int s;
    while ((s = cr_clock_tick(m->clock, t)) >= 0) {
        if (m->flag_raised[s]) {
            continue;
        }
        m->flag_raised[s] = true;
        int64_t at = cr_clock_flag_at(m->clock, s);
        if (at < 0 || at > t) {
            at = t;
        }
        if (cr_monitor_game_over(m)) {
            cr_monitor_log_incident(m, CR_INC_FLAG, CR_URGENCY_INFO, s, at,
                                    "%s's flag fell after the game ended (%s): the result stands",
                                    color_name(s), cr_result_string(cr_game_result(m->game)));
            continue;
        }
        bool can;
        cr_result r = flag_result(m, s, &can);
        int opp = s ^ 1;
        cr_monitor_log_incident(
            m, CR_INC_FLAG, CR_URGENCY_CRITICAL, s, at, "%s's flag fell: %s", color_name(s),
            can ? (opp == CR_WHITE ? "White wins (6.9)" : "Black wins (6.9)")
                : (opp == CR_WHITE ? "White cannot checkmate by any legal sequence: draw (6.9)"
                                   : "Black cannot checkmate by any legal sequence: draw (6.9)"));
        if (m->cfg.flag_ends_game) {
            auto_result(m, r, at, can ? "flag fall" : "flag fall, opponent cannot mate", false);
        }
    }
}

/* A side the model puts at 0:00 without evidence: an alert for the
 * arbiter, once while the suspicion stands. */
static void check_suspicion(cr_monitor *m, int64_t t)
{
    int64_t since = t;
    int s = cr_clock_suspected(m->clock, t, &since);
    for (int c = 0; c < CR_COLOR_NB; c++) {
        if (c != s) {
            m->check_raised[c] = false;
        }
    }
    if (s < 0 || m->check_raised[s] || m->flag_raised[s] || cr_monitor_game_over(m)) {
        return;
    }
    m->check_raised[s] = true;
    if (since > t) {
        since = t;
    }
    cr_monitor_log_incident(m, CR_INC_FLAG_CHECK, CR_URGENCY_WARNING, s, since,
                            "%s's clock should be at 0:00 (%s), check it: confirm the flag fall "
                            "as the result, or let play go on",
                            color_name(s),
                            cr_clock_has_readings(m->clock)
                                ? "extrapolated from a reading the relay cannot vouch for"
                                : "by the move times and the time control");
}

static void note_source(cr_monitor *m, int64_t t)
{
    if (t > m->source_t) {
        m->source_t = t;
    }
}

/* A press by a side still to move is one without a move once the opponent
 * presses back and no move of the presser's comes within press_grace_ms of
 * that (a board may report a move late: a press alone proves nothing, the
 * move may still come; a press back at once is a slip put right). */
static void check_press(cr_monitor *m, int64_t t)
{
    int s = m->press_side;
    if (s < 0) {
        return;
    }
    if (cr_game_ply_count(m->game) != m->press_plies || cr_monitor_game_over(m)) {
        m->press_side = -1;
        return;
    }
    if (m->press_back_at < 0 || t - m->press_back_at < m->cfg.press_grace_ms) {
        return;
    }
    m->press_side = -1;
    char lab[40] = "the start";
    int n = cr_game_ply_count(m->game);
    if (n > 0) {
        ply_label(m->game, n - 1, lab);
    }
    cr_monitor_log_incident(m, CR_INC_PRESS_WITHOUT_MOVE, CR_URGENCY_WARNING, s, m->press_at,
                            "%s pressed the clock without a move (after %s)", color_name(s), lab);
}

/* A reading that still runs the clock of the side that made the last move:
 * the first such reading starts the wait, one unpressed_ms later raises it
 * (once per move). Only readings count: the model's running side is a guess
 * while the board is silent. */
static void check_unpressed(cr_monitor *m, int64_t t, int running)
{
    int n = cr_game_ply_count(m->game);
    if (!m->cfg.move_without_press || n == 0 || running < 0 || cr_monitor_game_over(m)) {
        return;
    }
    int mover = cr_game_position(m->game)->side == CR_WHITE ? CR_BLACK : CR_WHITE;
    if (running != mover || m->flip_plies >= n) {
        m->moved_plies = -1; /* pressed, or running since a press after the move */
        return;
    }
    if (m->moved_plies != n) {
        m->moved_plies = n;
        m->moved_at = t;
        m->moved_raised = false;
        return;
    }
    if (!m->moved_raised && t - m->moved_at >= m->cfg.unpressed_ms) {
        m->moved_raised = true;
        char lab[40];
        ply_label(m->game, n - 1, lab);
        cr_monitor_log_incident(m, CR_INC_MOVE_WITHOUT_PRESS, CR_URGENCY_WARNING, mover,
                                m->moved_at, "%s did not press the clock after %s", color_name(mover),
                                lab);
    }
}

/* A side's reading up on its previous one by more than the control can
 * add: the bonus of a press (60 s while the relay does not know it) and
 * 3 s of reading noise; once per side, the period's extra time at its
 * move 40 (the control's number of moves when it is known). */
static void check_added(cr_monitor *m, int64_t t, int32_t white_ms, int32_t black_ms)
{
    const int32_t now[CR_COLOR_NB] = {white_ms, black_ms};
    const cr_time_control *tc = m->clock ? cr_clock_control(m->clock) : NULL;
    int n = cr_game_ply_count(m->game);
    for (int c = 0; c < CR_COLOR_NB; c++) {
        int32_t before = m->last_ms[c];
        m->last_ms[c] = now[c];
        if (!m->cfg.time_added || before < 0 || now[c] < 0 || cr_monitor_game_over(m)) {
            continue;
        }
        bool known = m->clock && cr_clock_mode_of(m->clock) != CR_CLOCK_MODE_UNKNOWN;
        int32_t allowed = 3000 + (known ? cr_clock_bonus_ms(m->clock) : 60000);
        int period = tc && tc->moves ? tc->moves : 40;
        int moves = c == CR_WHITE ? (n + 1) / 2 : n / 2; /* the side's moves made */
        if (!m->period_given[c] && (moves == period || moves == period + 1) &&
            (!tc || !tc->moves || now[c] - before <= tc->extra_ms + allowed)) {
            if (now[c] - before > allowed) {
                m->period_given[c] = true; /* the period's time: once */
            }
            continue;
        }
        if (now[c] - before <= allowed) {
            continue;
        }
        char from[24], to[24], lab[40] = "the start";
        fmt_ms(before, from);
        fmt_ms(now[c], to);
        if (n > 0) {
            ply_label(m->game, n - 1, lab);
        }
        cr_monitor_log_incident(m, CR_INC_TIME_ADDED, CR_URGENCY_WARNING, c, t,
                                "%s's clock went from %s to %s after %s: time added or the clock "
                                "reset, not by the time control",
                                color_name(c), from, to, lab);
    }
}

static void note_press(cr_monitor *m, int64_t t, int running)
{
    if (running >= 0 && running != m->last_running) {
        m->flip_plies = cr_game_ply_count(m->game);
    }
    check_unpressed(m, t, running);
    int before = m->last_running;
    m->last_running = running;
    if (before < 0 || running < 0 || running == before) {
        return; /* started, stopped or the same turn */
    }
    if (m->press_side >= 0 && running == m->press_side) {
        if (t - m->press_at < m->cfg.press_grace_ms) {
            m->press_side = -1; /* pressed back at once: a slip put right */
        } else if (m->press_back_at < 0) {
            m->press_back_at = t;
        }
        return;
    }
    if (m->cfg.press_without_move && !cr_monitor_game_over(m) &&
        cr_game_position(m->game)->side == before) { /* the presser is still to move */
        m->press_side = before;
        m->press_at = t;
        m->press_back_at = -1;
        m->press_plies = cr_game_ply_count(m->game);
    }
}

/* Flags, suspicions and the two-minute windows at t. */
void cr_monitor_check_clock(cr_monitor *m, int64_t t)
{
    check_press(m, t);
    if (!m->clock) {
        check_illegal(m, t);
        return;
    }
    check_flags(m, t);
    check_suspicion(m, t);
    for (int c = 0; c < CR_COLOR_NB; c++) {
        int32_t r = remaining(m, c, t);
        if (r > 0 && r < m->cfg.two_minutes_ms && !m->two_min_raised[c] &&
            !cr_monitor_game_over(m)) {
            m->two_min_raised[c] = true;
            int64_t at = first_below(m, c, m->cfg.two_minutes_ms, t);
            char left[24];
            fmt_ms(remaining(m, c, at), left);
            cr_clock_mode mode = cr_clock_mode_of(m->clock);
            bool window = m->cfg.quickplay_finish && mode != CR_CLOCK_MODE_INCREMENT &&
                          mode != CR_CLOCK_MODE_DELAY_US && mode != CR_CLOCK_MODE_BRONSTEIN;
            cr_monitor_log_incident(m, CR_INC_TWO_MINUTES, CR_URGENCY_NOTICE, c, at,
                                    "%s has less than two minutes (%s)%s", color_name(c), left,
                                    window ? ": draw claim window open (D1)" : "");
        }
    }
    check_illegal(m, t);
}

/* Plies from n on are gone: their markers go, and a game the monitor ended
 * by a position that no longer stands is open again. Returns true if so. */
static bool forget_after(cr_monitor *m, int n)
{
    m->seen = n;
    if (m->pending_illegal >= n) {
        m->pending_illegal = -1;
    }
    if (m->last_draw_offer >= n) {
        m->last_draw_offer = -1;
    }
    if (m->threefold_at > n) {
        m->threefold_at = -1;
    }
    if (m->ended_at > n) {
        m->ended_at = -1;
    }
    bool reopen = false;
    if (m->auto_end_ply > n) {
        reopen = cr_game_result(m->game) == m->auto_end_result;
        if (reopen) {
            cr_game_set_result(m->game, CR_RESULT_NONE);
            m->last_result = CR_RESULT_NONE;
        }
        m->auto_end_ply = -1;
    }
    return reopen;
}

static void examine_new(cr_monitor *m, int64_t t)
{
    int n = cr_game_ply_count(m->game);
    if (n < m->seen) {
        /* Plies retracted by someone else (inference correction). */
        int was = m->seen;
        bool reopen = forget_after(m, n);
        cr_monitor_log_incident(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                                "plies %d-%d retracted by the board reading%s", n + 1, was,
                                reopen ? ", game reopened" : "");
    }
    for (int i = m->seen; i < n; i++) {
        examine_ply(m, i, t);
    }
    m->seen = n;
}

/* A game to follow from its first ply: nothing examined, nothing pending. */
static void follow(cr_monitor *m, cr_game *game, cr_clock *clock)
{
    m->game = game;
    m->clock = clock;
    m->seen = 0;
    m->pending_illegal = -1;
    m->last_draw_offer = -1;
    m->threefold_at = -1;
    m->fifty_run = -1;
    m->ended_at = -1;
    m->auto_end_ply = -1;
    m->last_result = cr_game_result(game);
    m->last_running = -1;
    m->press_side = -1;
    m->moved_plies = -1;
    m->last_ms[CR_WHITE] = m->last_ms[CR_BLACK] = -1;
}

cr_monitor *cr_monitor_new(cr_game *game, cr_clock *clock, const cr_monitor_config *cfg)
{
    if (!game) {
        return NULL;
    }
    cr_monitor *m = calloc(1, sizeof *m);
    if (!m) {
        return NULL;
    }
    if (cfg) {
        m->cfg = *cfg;
    } else {
        cr_monitor_config_default(&m->cfg);
    }
    if (m->cfg.evidence_moves < 1 || m->cfg.evidence_moves > CR_CLAIM_MOVES_MAX / 2) {
        m->cfg.evidence_moves = 10;
    }
    if (m->cfg.press_grace_ms <= 0) {
        m->cfg.press_grace_ms = 3000;
    }
    if (m->cfg.unpressed_ms <= 0) {
        m->cfg.unpressed_ms = 10000;
    }
    m->wall = -1;
    m->t = -1;
    m->source_t = -1;
    m->online = true;
    follow(m, game, clock);
    m->silent = m->cfg.silent_start;
    cr_monitor_update(m, -1);
    m->silent = false;
    return m;
}

void cr_monitor_set_floor_checks(cr_monitor *m, bool press_without_move, bool move_without_press,
                                 bool time_added)
{
    if (m) {
        m->cfg.press_without_move = press_without_move;
        m->cfg.move_without_press = move_without_press;
        m->cfg.time_added = time_added;
    }
}

void cr_monitor_set_silent(cr_monitor *m, bool silent)
{
    if (m) {
        m->silent = silent;
    }
}

static void claim_free(cr_claim *c)
{
    if (c) {
        cr_game_free((cr_game *)c->frozen);
        free(c);
    }
}

void cr_monitor_free(cr_monitor *m)
{
    if (!m) {
        return;
    }
    for (int i = 0; i < m->nclaims; i++) {
        claim_free(m->claims[i]);
    }
    free(m->claims);
    free(m->log);
    free(m->ply_clock);
    free(m);
}

void cr_monitor_attach(cr_monitor *m, cr_game *game, cr_clock *clock)
{
    if (!m || !game) {
        return;
    }
    follow(m, game, clock);
    cr_monitor_update(m, m->t);
}

void cr_monitor_set_wall(cr_monitor *m, int64_t wall)
{
    if (m) {
        m->wall = wall;
    }
}

int cr_monitor_update(cr_monitor *m, int64_t t)
{
    if (!m) {
        return CR_EINVAL;
    }
    if (t >= 0) {
        m->t = t;
        note_source(m, t);
        if (m->clock) {
            check_flags(m, t); /* a flag that fell before this event comes first */
        }
    }
    examine_new(m, t);
    evaluate_position(m, t);
    cr_monitor_check_clock(m, t);
    return ensure_ply_clock(m, cr_game_ply_count(m->game));
}

int cr_monitor_clock(cr_monitor *m, int64_t t, int32_t white_ms, int32_t black_ms, int running)
{
    if (!m) {
        return CR_EINVAL;
    }
    m->t = t;
    note_source(m, t);
    int rc = 0;
    if (m->clock) {
        rc = cr_clock_feed(m->clock, t, white_ms, black_ms, running);
    }
    check_added(m, t, white_ms, black_ms);
    note_press(m, t, running);
    cr_monitor_check_clock(m, t);
    return rc;
}

void cr_monitor_tick(cr_monitor *m, int64_t t)
{
    if (!m || m->source_t < 0) {
        return; /* no source time yet: nothing has happened */
    }
    t = source_bound(m, t);
    if (t > m->t) {
        m->t = t;
    }
    cr_monitor_check_clock(m, t);
}

void cr_monitor_source_time(cr_monitor *m, int64_t t)
{
    if (!m || t < 0) {
        return;
    }
    note_source(m, t);
    cr_monitor_tick(m, t);
}

void cr_monitor_board_link(cr_monitor *m, bool online, int64_t t)
{
    if (!m || m->online == online) {
        return;
    }
    m->online = online;
    m->t = t;
    note_source(m, t);
    if (m->clock) {
        cr_clock_link(m->clock, online, t);
    }
    if (online) {
        cr_monitor_log_incident(m, CR_INC_BOARD_ONLINE, CR_URGENCY_INFO, -1, t,
                                "board back online");
    } else {
        cr_monitor_log_incident(m, CR_INC_BOARD_OFFLINE, CR_URGENCY_WARNING, -1, t,
                                "board offline: moves and clock times are not being received");
    }
}

void cr_monitor_get_state(const cr_monitor *m, cr_monitor_state *out)
{
    memset(out, 0, sizeof *out);
    const cr_game *g = m->game;
    out->ply_count = cr_game_ply_count(g);
    out->side_to_move = cr_game_position(g)->side;
    out->repetitions = m->repetitions;
    out->halfmove = m->halfmove;
    out->threefold = m->threefold;
    out->fifty_moves = m->fifty;
    out->fivefold = m->fivefold;
    out->seventy_five = m->seventy_five;
    out->dead = m->dead;
    for (int c = 0; c < CR_COLOR_NB; c++) {
        out->remaining_ms[c] = remaining(m, c, m->t);
        out->under_two_minutes[c] =
            out->remaining_ms[c] >= 0 && out->remaining_ms[c] < m->cfg.two_minutes_ms;
        out->illegal_completed[c] = m->illegal_completed[c];
        out->claim_window[c] = out->under_two_minutes[c] && out->remaining_ms[c] > 0 &&
                               d1_allowed(m) && cr_game_result(g) == CR_RESULT_NONE &&
                               (!m->clock || cr_clock_flagged(m->clock) != c);
    }
    /* A suspected flag fall stands until a reading shows time left, a
     * result ends the game or the flag is confirmed. */
    out->flag_check = -1;
    for (int c = 0; c < CR_COLOR_NB && cr_game_result(g) == CR_RESULT_NONE; c++) {
        if (m->check_raised[c] && !m->flag_raised[c]) {
            out->flag_check = c;
        }
    }
    out->running = m->clock ? cr_clock_running(m->clock) : -1;
    out->flagged = m->clock ? cr_clock_flagged(m->clock) : -1;
    out->board_online = m->online;
    out->pending_illegal = m->pending_illegal;
    out->last_draw_offer = m->last_draw_offer;
    out->result = cr_game_result(g);
    out->claim_pending = m->claim_open;
    out->clock_mode = m->clock ? cr_clock_mode_of(m->clock) : CR_CLOCK_MODE_UNKNOWN;
    out->bonus_ms = m->clock ? cr_clock_bonus_ms(m->clock) : 0;
    out->t = m->t;
}

int cr_monitor_incident_count(const cr_monitor *m)
{
    return m ? m->count : 0;
}

const cr_incident *cr_monitor_incident(const cr_monitor *m, int i)
{
    return (m && i >= 0 && i < m->count) ? &m->log[i] : NULL;
}

int cr_monitor_restore_incident(cr_monitor *m, const cr_incident *inc)
{
    if (!m || !inc || (int)inc->kind < 0 || inc->kind >= CR_INC_KIND_NB) {
        return CR_EINVAL;
    }
    /* Alerts already raised before the restart are not raised again. */
    int c = inc->color;
    bool side = c == CR_WHITE || c == CR_BLACK;
    switch (inc->kind) {
    case CR_INC_TWO_MINUTES:
        if (side) {
            m->two_min_raised[c] = true;
        }
        break;
    case CR_INC_FLAG:
        if (side) {
            m->flag_raised[c] = true;
        }
        break;
    case CR_INC_FLAG_CHECK:
        if (side) {
            m->check_raised[c] = true;
        }
        break;
    case CR_INC_BOARD_OFFLINE:
    case CR_INC_BOARD_ONLINE:
        m->online = inc->kind == CR_INC_BOARD_ONLINE;
        break;
    case CR_INC_THREEFOLD:
        m->threefold_at = inc->ply;
        break;
    case CR_INC_FIFTY_MOVES:
        if (inc->ply == cr_game_ply_count(m->game)) {
            m->fifty_run = inc->ply - m->halfmove;
        }
        break;
    case CR_INC_ILLEGAL_MOVE:
        if (side) {
            m->illegal_completed[c]++;
        }
        if (m->pending_illegal >= 0 && m->pending_illegal < inc->ply) {
            m->pending_illegal = -1;
        }
        break;
    case CR_INC_FIVEFOLD:
    case CR_INC_SEVENTY_FIVE_MOVES:
    case CR_INC_DEAD_POSITION:
        m->ended_at = inc->ply;
        break;
    default:
        break;
    }
    return append(m, inc, false);
}

/* ---------------------------------------------------------------- actions */

int cr_monitor_set_result(cr_monitor *m, cr_result result, const char *reason, int64_t t)
{
    if (!m || (int)result < CR_RESULT_NONE || result > CR_RESULT_DRAW) {
        return CR_EINVAL;
    }
    cr_result old = cr_game_result(m->game);
    cr_game_set_result(m->game, result);
    m->last_result = result;
    m->auto_end_ply = -1; /* the arbiter's result is not undone by take-backs */
    if (old != CR_RESULT_NONE && old != result) {
        return cr_monitor_log_incident(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                                       "result changed from %s to %s by the arbiter%s%s",
                                       cr_result_string(old), cr_result_string(result),
                                       reason ? ": " : "", reason ? reason : "");
    }
    return cr_monitor_log_incident(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t,
                                   "%s set by the arbiter%s%s", cr_result_string(result),
                                   reason ? ": " : "", reason ? reason : "");
}

int cr_monitor_mark_draw_offer(cr_monitor *m, int ply, bool offered, int64_t t)
{
    if (!m) {
        return CR_EINVAL;
    }
    if (ply == -1) {
        ply = cr_game_ply_count(m->game) - 1;
    }
    cr_ply *p = cr_game_ply_mut(m->game, ply);
    if (!p) {
        return CR_EINVAL;
    }
    int mover = cr_game_position_at(m->game, ply)->side;
    char lab[40];
    ply_label(m->game, ply, lab);
    if (offered) {
        p->flags |= CR_PLY_DRAW_OFFER;
        if (ply > m->last_draw_offer) {
            m->last_draw_offer = ply;
        }
        return cr_monitor_log_incident(m, CR_INC_DRAW_OFFER, CR_URGENCY_NOTICE, mover, t,
                                       "%s offers a draw after %s (entered by the arbiter)",
                                       color_name(mover), lab);
    }
    p->flags &= ~(uint32_t)CR_PLY_DRAW_OFFER;
    if (m->last_draw_offer == ply) {
        m->last_draw_offer = -1;
        for (int i = ply - 1; i >= 0; i--) {
            if (cr_game_ply(m->game, i)->flags & CR_PLY_DRAW_OFFER) {
                m->last_draw_offer = i;
                break;
            }
        }
    }
    return cr_monitor_log_incident(m, CR_INC_CORRECTION, CR_URGENCY_INFO, mover, t,
                                   "draw offer after %s removed by the arbiter", lab);
}

int cr_monitor_take_back(cr_monitor *m, int ply_count, const char *reason, int64_t t)
{
    if (!m) {
        return CR_EINVAL;
    }
    int n = cr_game_ply_count(m->game);
    if (ply_count < 0 || ply_count > n) {
        return CR_EINVAL;
    }
    char first[40] = "", last[40] = "";
    if (ply_count < n) {
        ply_label(m->game, ply_count, first);
        ply_label(m->game, n - 1, last);
    }
    cr_game_truncate(m->game, ply_count);
    bool reopen = forget_after(m, ply_count);
    int rc;
    if (ply_count == n) {
        rc = cr_monitor_log_incident(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                                     "take-back of nothing%s%s", reason ? ": " : "",
                                     reason ? reason : "");
    } else {
        rc = cr_monitor_log_incident(
            m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t, "took back %d pl%s (%s .. %s)%s%s%s",
            n - ply_count, n - ply_count == 1 ? "y" : "ies", first, last,
            reopen ? ", game reopened" : "", reason ? ": " : "", reason ? reason : "");
    }
    evaluate_position(m, t);
    return rc;
}

int cr_monitor_confirm_flag(cr_monitor *m, int color, const char *reason, int64_t t)
{
    if (!m || (color != CR_WHITE && color != CR_BLACK) || cr_monitor_game_over(m)) {
        return CR_EINVAL;
    }
    bool can;
    cr_result r = flag_result(m, color, &can);
    m->flag_raised[color] = true;
    m->check_raised[color] = false;
    int rc = cr_monitor_log_incident(m, CR_INC_FLAG, CR_URGENCY_CRITICAL, color, t,
                                     "%s's flag fell, confirmed by the arbiter%s%s: %s",
                                     color_name(color), reason ? ": " : "", reason ? reason : "",
                                     can ? "the opponent wins (6.9)"
                                         : "the opponent cannot checkmate: draw (6.9)");
    cr_game_set_result(m->game, r);
    m->last_result = r;
    m->auto_end_ply = -1; /* the arbiter's result is not undone by take-backs */
    m->ended_at = cr_game_ply_count(m->game);
    cr_monitor_log_incident(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t,
                            "%s: flag fall confirmed by the arbiter", cr_result_string(r));
    return rc;
}

int cr_monitor_replace_move(cr_monitor *m, int ply, const char *move, const char *reason, int64_t t,
                            char *why, size_t why_size)
{
    if (!m || !move || ply < 0 || ply >= cr_game_ply_count(m->game)) {
        if (why && why_size) {
            snprintf(why, why_size, "no such ply");
        }
        return CR_EINVAL;
    }
    cr_error err;
    cr_move mv = cr_move_from_text(cr_game_position_at(m->game, ply), move, -1, NULL, &err);
    if (mv == CR_MOVE_NONE) {
        if (why && why_size) {
            snprintf(why, why_size, "%s", err.text);
        }
        return CR_EMOVE;
    }
    char was[40], now[40];
    ply_label(m->game, ply, was);
    int n = cr_game_ply_count(m->game);
    int kept = cr_game_replace_ply(m->game, ply, mv);
    if (kept < 0) {
        return kept;
    }
    ply_label(m->game, ply, now);
    bool reopen = forget_after(m, ply);
    int dropped = n - ply - 1 - kept;
    int rc = cr_monitor_log_incident(
        m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
        "%s corrected to %s by the arbiter; %d later pl%s kept, %d dropped%s%s%s", was, now, kept,
        kept == 1 ? "y" : "ies", dropped, reopen ? ", game reopened" : "", reason ? ": " : "",
        reason ? reason : "");
    examine_new(m, t);
    evaluate_position(m, t);
    return rc;
}

int cr_monitor_assign_players(cr_monitor *m, const char *white, const char *black, int64_t t)
{
    if (!m || (!white && !black)) {
        return CR_EINVAL;
    }
    if ((white && cr_game_set_tag(m->game, "White", white) != 0) ||
        (black && cr_game_set_tag(m->game, "Black", black) != 0)) {
        return CR_ENOMEM;
    }
    const char *w = cr_game_tag(m->game, "White"), *b = cr_game_tag(m->game, "Black");
    return cr_monitor_log_incident(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                                   "players assigned: White \"%.90s\", Black \"%.90s\"",
                                   w ? w : "?", b ? b : "?");
}
