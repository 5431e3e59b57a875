/* chessrelay: a model of one game's chess clock. Fed with the readings of a
 * DGT clock (both times and the running side) and with the moves as they are
 * completed, it knows each side's remaining time at any moment (extrapolating
 * the running side), which side runs, when each side last pressed, the time
 * control's bonus (Fischer increment, US or Bronstein delay) as read off the
 * readings around the presses, and the moment a flag falls.
 *
 * Without a clock (boards with no clock, or a clock that never reported) the
 * model runs on the move times and a configured time control instead.
 *
 * Readings are noisy: DGT clocks send all-zero times right after a clock
 * command, a time may jump once and come back, the clock may be stopped.
 * A reading that does not fit the model (a time going up without a press, a
 * running time jumping down, a jump to zero) is held back; it is taken only
 * when the next reading confirms it (e.g. the arbiter really set the clock),
 * otherwise it is dropped and counted as noise. A reading that stops the
 * clock stops the model at once, even while its times are held back: a
 * stopped clock is never run down.
 *
 * Flags on evidence only. A side's flag falls (cr_clock_tick) when a
 * consistent reading shows its time at 0:00 after it ran down, or when its
 * time, extrapolated from the last reading, reaches 0 while the model is
 * sure the clock ran: no reading held back, the reading at most fresh_ms
 * old, the board's link up (cr_clock_link). Past that the model is unsure
 * (cr_clock_sure) and a side whose time the model puts at 0 is only
 * suspected (cr_clock_suspected): something for the arbiter to check,
 * never a result. The move-time model (no readings) only suspects.
 *
 * Time: all functions take the caller's time `t` in ms (feed time), never the
 * wall clock; a replay gives the same results as live.
 *
 * Ownership: cr_clock_new returns a new object, free it with cr_clock_free. */
#ifndef CR_CLOCK_H
#define CR_CLOCK_H

#include "cr/game.h" /* colours, CR_CLOCK_UNKNOWN */

typedef struct cr_clock cr_clock;

/* Bonus kinds of a time control (as configured or as detected). */
typedef enum cr_clock_mode {
    CR_CLOCK_MODE_UNKNOWN = 0, /* not enough presses seen yet */
    CR_CLOCK_MODE_NONE,        /* presses seen, no bonus (sudden death so far) */
    CR_CLOCK_MODE_INCREMENT,   /* Fischer: bonus added after every press */
    CR_CLOCK_MODE_DELAY_US,    /* US/simple delay: the clock waits `bonus` before counting down */
    CR_CLOCK_MODE_BRONSTEIN    /* Bronstein delay: time used is given back, up to `bonus` */
} cr_clock_mode;

/* "unknown", "none", "increment", "delay", "bronstein". */
CR_EXTERN const char *cr_clock_mode_name(cr_clock_mode mode);

/* A time control, used when there are no clock readings (and to tell the
 * monitor whether the game has a bonus). All fields 0 = not known. */
typedef struct cr_time_control {
    int32_t base_ms;      /* time per player at the start */
    int32_t increment_ms; /* Fischer increment per move */
    int32_t delay_ms;     /* US delay per move (Bronstein behaves the same for the result) */
    int moves;            /* moves in the first period (e.g. 40), 0 = whole game */
    int32_t extra_ms;     /* added after `moves` moves (e.g. 30 minutes) */
} cr_time_control;

/* Parses a PGN TimeControl-like text: "5400+30", "300", "40/5400:1800+30",
 * "180d2" (2 s US delay). Fills tc; returns 0 or CR_EINVAL with err filled
 * (column of the fault). */
CR_EXTERN int cr_time_control_parse(const char *text, cr_time_control *tc, cr_error *err);

/* Options of the model; cr_clock_config_default fills the defaults. */
typedef struct cr_clock_config {
    int32_t tolerance_ms; /* reading vs model before a reading is suspect (default 2500) */
    int32_t stale_ms;     /* readings older than this stop the extrapolation (0, the
                             default: extrapolate for ever, as the clock itself runs on;
                             DGT clocks often report only at presses) */
    int32_t fresh_ms;     /* a reading is sure this long (default 5000): a flag from
                             extrapolation needs the fall within it */
} cr_clock_config;

CR_EXTERN void cr_clock_config_default(cr_clock_config *cfg);

/* tc: the configured time control, or NULL (then only readings count).
 * cfg: NULL for the defaults. Returns NULL when out of memory. */
CR_EXTERN cr_clock *cr_clock_new(const cr_time_control *tc, const cr_clock_config *cfg);
CR_EXTERN void cr_clock_free(cr_clock *c); /* accepts NULL */

/* Results of cr_clock_feed. */
enum {
    CR_CLOCK_ACCEPTED = 0, /* the reading is now the model's state */
    CR_CLOCK_HELD = 1,     /* suspect: kept until the next reading confirms or drops it */
    CR_CLOCK_IGNORED = 2   /* noise (all-zero reading, or a held reading not confirmed) */
};

/* One clock reading at time t: remaining times shown and the running side
 * (CR_WHITE, CR_BLACK or CR_CLOCK_STOPPED from feed.h, i.e. -1). A change of
 * the running side from one colour to the other is a press by the side that
 * was running. Returns CR_CLOCK_ACCEPTED/HELD/IGNORED or CR_EINVAL for
 * impossible values (negative times, bad running side). */
CR_EXTERN int cr_clock_feed(cr_clock *c, int64_t t, int32_t white_ms, int32_t black_ms,
                            int running);

/* A move was completed at t by `mover` (ply index `ply`, 0-based). Without
 * readings this is the clock press that drives the model; with readings it
 * only counts moves. Returns 0 or CR_EINVAL. */
CR_EXTERN int cr_clock_move(cr_clock *c, int ply, int mover, int64_t t);

/* The game (White's clock) started at t, for the move-time model. Optional:
 * without it White's first move is taken to have used no time. */
CR_EXTERN void cr_clock_start(cr_clock *c, int64_t t);

/* Time has passed: checks the flags at t. Returns the colour whose flag fell
 * on evidence (reported once, at the first tick at or after the fall), or
 * -1. The caller never passes a t beyond its source's time (the feed's or
 * agent's watermark): the model must not act on time it has not seen. */
CR_EXTERN int cr_clock_tick(cr_clock *c, int64_t t);

/* Remaining time of `color` at t (extrapolated when it runs; never below 0;
 * 0 once its flag has fallen, whatever later readings show, until
 * cr_clock_adjust gives it time), or CR_CLOCK_UNKNOWN (-1) when nothing is
 * known. */
CR_EXTERN int32_t cr_clock_remaining(const cr_clock *c, int color, int64_t t);

/* Running side: CR_WHITE, CR_BLACK or -1 (stopped or unknown). */
CR_EXTERN int cr_clock_running(const cr_clock *c);

/* True once readings have been accepted (the model follows a real clock). */
CR_EXTERN bool cr_clock_has_readings(const cr_clock *c);

/* Time of `color`'s last press (or move, without readings), -1 if none. */
CR_EXTERN int64_t cr_clock_last_press(const cr_clock *c, int color);

/* Bonus mode and amount (ms): the configured time control's (it wins),
 * else detected from the readings (by the time a press adds: increment,
 * Bronstein, nothing = sudden death or US delay, the latter seen as turns
 * whose time stands still at first), else CR_CLOCK_MODE_UNKNOWN and 0. */
CR_EXTERN cr_clock_mode cr_clock_mode_of(const cr_clock *c);
CR_EXTERN int32_t cr_clock_bonus_ms(const cr_clock *c);
/* The configured time control, or NULL when none was given. */
CR_EXTERN const cr_time_control *cr_clock_control(const cr_clock *c);
/* What the readings alone say (CR_CLOCK_MODE_UNKNOWN / 0 until told). */
CR_EXTERN cr_clock_mode cr_clock_detected_mode(const cr_clock *c);
CR_EXTERN int32_t cr_clock_detected_bonus_ms(const cr_clock *c);

/* The board's link went down (online false) or came back at t. Time after
 * the link went down is not sure to have run until the next reading. */
CR_EXTERN void cr_clock_link(cr_clock *c, bool online, int64_t t);

/* True when the model is sure of the clock at t: readings seen, none held
 * back, and either the clock stopped or the last reading is fresh (see
 * fresh_ms) with the link up since it. */
CR_EXTERN bool cr_clock_sure(const cr_clock *c, int64_t t);

/* A side whose time the model puts at 0 at t without the evidence of a
 * flag (running side first), or -1. since: when the model's time reached 0
 * (may be NULL). Not a result: the arbiter checks the clock. */
CR_EXTERN int cr_clock_suspected(const cr_clock *c, int64_t t, int64_t *since);

/* The side whose flag fell first (-1 if none) and when (ms, -1 if none). */
CR_EXTERN int cr_clock_flagged(const cr_clock *c);
CR_EXTERN int64_t cr_clock_flag_time(const cr_clock *c);

/* When `color`'s flag fell, -1 if it did not. */
CR_EXTERN int64_t cr_clock_flag_at(const cr_clock *c, int color);

/* The time the model extrapolates from (the last accepted reading, or the
 * last move in the move model), -1 before either. Remaining times are
 * non-increasing from there on until the next reading or move. */
CR_EXTERN int64_t cr_clock_state_time(const cr_clock *c);

/* Readings dropped or ignored as noise so far. */
CR_EXTERN int cr_clock_noise_count(const cr_clock *c);

/* The arbiter changed `color`'s time by delta_ms at t (e.g. +2 minutes after
 * a rejected claim or an illegal move). The model follows at once, so that
 * the clock's next reading showing the change is not taken for noise. A flag
 * of `color` that fell is lifted if the new time is above zero. */
CR_EXTERN void cr_clock_adjust(cr_clock *c, int color, int32_t delta_ms, int64_t t);

#endif
