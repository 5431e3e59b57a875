/* chessrelay core, private: the monitor's state and what the monitor
 * (monitor.c) shares with the draw claims (claims.c). */
#ifndef CR_ARBITER_PRIVATE_H
#define CR_ARBITER_PRIVATE_H

#include <inttypes.h>
#include <stdio.h>

#include "cr/arbiter.h"
#include "strbuf.h"

struct cr_monitor {
    cr_monitor_config cfg;
    cr_game *game;
    cr_clock *clock;
    int64_t wall;
    int64_t t;
    /* Incident log. */
    cr_incident *log;
    int count, cap;
    /* Plies examined, and both clocks after each ply as seen then. */
    int seen;
    int32_t (*ply_clock)[CR_COLOR_NB];
    int ply_cap;
    /* Current state. */
    int repetitions, halfmove;
    bool threefold, fifty, fivefold, seventy_five, dead;
    bool two_min_raised[CR_COLOR_NB];
    bool flag_raised[CR_COLOR_NB];
    bool check_raised[CR_COLOR_NB]; /* flag-check alert standing */
    int64_t source_t;               /* the board's source time, -1 unknown */
    bool online;
    int illegal_completed[CR_COLOR_NB];
    int pending_illegal;
    int64_t pending_since;
    int last_draw_offer;
    /* Raise-once markers: the ply count (or run start) an alert was raised for. */
    int threefold_at;
    int fifty_run;
    int ended_at;     /* ply count whose automatic end was judged, -1 */
    int auto_end_ply; /* ply count at which the monitor ended the game by the position, -1 */
    cr_result auto_end_result;
    cr_result last_result; /* to notice results set by others */
    /* Claims. */
    cr_claim **claims;
    int nclaims;
    bool claim_open;
    bool silent; /* examining a restarted game: markers only, no log */
    /* A press the move has not followed yet (cfg.press_without_move). */
    int last_running;   /* the clock's running side at the last reading, -1 */
    int press_side;     /* side that pressed, -1 none pending */
    int64_t press_at;   /* when */
    int64_t press_back_at; /* when the opponent pressed back, -1 not yet */
    int press_plies;    /* plies played then */
    /* A move whose mover's clock still runs (cfg.move_without_press). */
    int moved_plies;    /* plies played when first seen so, -1 none */
    int64_t moved_at;   /* the reading that first showed it */
    bool moved_raised;
    int flip_plies;     /* plies played when the running side last changed */
    /* Time added or the clock reset (cfg.time_added). */
    int32_t last_ms[CR_COLOR_NB]; /* each side's last reading, -1 none */
    bool period_given[CR_COLOR_NB]; /* the control's period time seen added */
};

static inline const char *color_name(int c)
{
    return c == CR_WHITE ? "White" : "Black";
}

/* "H:MM:SS" or "?" */
static inline void fmt_ms(int64_t ms, char buf[24])
{
    if (ms < 0) {
        snprintf(buf, 24, "?");
        return;
    }
    int64_t s = ms / 1000;
    snprintf(buf, 24, "%" PRId64 ":%02d:%02d", s / 3600, (int)(s / 60 % 60), (int)(s % 60));
}

static inline int32_t remaining(const cr_monitor *m, int c, int64_t t)
{
    return m->clock ? cr_clock_remaining(m->clock, c, t) : CR_CLOCK_UNKNOWN;
}

/* The earliest of t and the board's source time: nothing acts on time
 * the source has not reached. */
static inline int64_t source_bound(const cr_monitor *m, int64_t t)
{
    return m->source_t >= 0 && t > m->source_t ? m->source_t : t;
}

/* Whether a D1 (quickplay-finish) claim can be made at all in this game:
 * the event has one and the clock has no increment or delay. The claim
 * (claims.c) and the claim window of the state (monitor.c) ask the same. */
static inline bool d1_allowed(const cr_monitor *m)
{
    if (!m->cfg.quickplay_finish || !m->clock) {
        return false;
    }
    cr_clock_mode mode = cr_clock_mode_of(m->clock);
    return mode != CR_CLOCK_MODE_INCREMENT && mode != CR_CLOCK_MODE_DELAY_US &&
           mode != CR_CLOCK_MODE_BRONSTEIN;
}

/* Text fields of the journal lines (incidents, claims): a backslash, tab,
 * newline and CR as two characters, other control bytes as \xHH; at most
 * max bytes of text. */
void cr_arb_escape(cr_sb *o, const char *text, size_t max);
/* Reads [s, e) back into out (size bytes, NUL-terminated): NULL, or where
 * it went wrong with *why saying what (bad escape, control character, too
 * long). */
const char *cr_arb_unescape(const char *s, const char *e, char *out, size_t size, const char **why);

/* Appends an incident (unless the monitor is silent) and tells the
 * callback: 0 or CR_ENOMEM. */
int cr_monitor_log_incident(cr_monitor *m, cr_incident_kind kind, cr_urgency urg, int color,
                            int64_t t, const char *fmt, ...) CR_PRINTF(6, 7);
/* True once the game has a result. */
bool cr_monitor_game_over(const cr_monitor *m);
/* The clock alerts (two minutes, flag) at time t. */
void cr_monitor_check_clock(cr_monitor *m, int64_t t);

#endif
