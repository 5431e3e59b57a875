/* Clock model of one game: readings of a DGT clock (or move times and a time
 * control), extrapolation, bonus detection and flag falls.
 *
 * Readings show whole seconds (rounded down) and arrive about once a second
 * while a clock runs, so every comparison allows a tolerance, and bonus
 * samples are read as "at most one second short" (a press happens up to a
 * second after the last reading). */
#include "cr/clock.h"

#include <stdlib.h>
#include <string.h>

#define NSAMP 8
#define MAX_GAIN_MS (4LL * 3600 * 1000) /* a press may add up to this (period bonuses) */
#define SAMPLE_AGREE_MS 1500

typedef struct reading {
    int64_t t;
    int64_t ms[CR_COLOR_NB];
    int running;
} reading;

typedef struct samples {
    int64_t v[NSAMP];
    int n; /* total seen; the last min(n, NSAMP) are kept */
} samples;

struct cr_clock {
    cr_clock_config cfg;
    cr_time_control tc;
    bool have_tc;
    /* Model from readings. */
    bool readings;
    reading cur;
    bool turn_valid; /* the running side's turn began with a press we saw */
    int64_t turn_t;  /* when the running side started */
    int64_t turn_ms; /* its time then */
    bool turn_flat;  /* it has not counted down yet this turn */
    bool pending;
    reading held;
    int noise;
    /* Link to the board: time after the link went down is not sure to
     * have run (gap_t: first offline moment since the last reading). */
    bool offline;
    bool gap;
    int64_t gap_t;
    /* Model from moves (no readings). */
    bool started;
    bool start_set;
    int64_t start_t;
    int64_t mrem[CR_COLOR_NB];
    int mrun;
    int64_t mturn_t;
    int moves[CR_COLOR_NB];
    int64_t last_press[CR_COLOR_NB];
    /* Bonus detection. */
    samples gain;     /* press gains not explained by "time used given back" */
    samples restored; /* presses that gave back exactly the time used */
    samples usdelay;  /* turns whose clock stood still at first */
    samples adds;     /* per press: time added against a plain count-down over the turn */
    samples add_turn; /* ... and how long that turn was */
    int zero_presses;
    cr_clock_mode mode;
    int64_t bonus;
    /* Flags. */
    bool flag[CR_COLOR_NB];
    bool reported[CR_COLOR_NB];
    int64_t flag_at[CR_COLOR_NB];
    int first_flag;
};

const char *cr_clock_mode_name(cr_clock_mode mode)
{
    switch (mode) {
    case CR_CLOCK_MODE_NONE:
        return "none";
    case CR_CLOCK_MODE_INCREMENT:
        return "increment";
    case CR_CLOCK_MODE_DELAY_US:
        return "delay";
    case CR_CLOCK_MODE_BRONSTEIN:
        return "bronstein";
    default:
        return "unknown";
    }
}

/* Reads decimal digits at *p into *out (capped), advancing *p. */
static bool read_num(const char **p, int64_t *out)
{
    const char *s = *p;
    int64_t v = 0;
    if (*s < '0' || *s > '9') {
        return false;
    }
    while (*s >= '0' && *s <= '9') {
        if (v > 100000000) {
            return false;
        }
        v = v * 10 + (*s - '0');
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

int cr_time_control_parse(const char *text, cr_time_control *tc, cr_error *err)
{
    if (!text || !tc) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "time control: no text");
    }
    memset(tc, 0, sizeof *tc);
    const char *p = text;
    int64_t a, b;
    /* "40/5400:1800+30": a first period of 40 moves. */
    const char *slash = strchr(text, '/');
    if (slash) {
        if (!read_num(&p, &a) || p != slash || a <= 0 || a > 1000) {
            return cr_error_set(err, CR_EINVAL, 0, (int)(p - text) + 1,
                                "time control \"%.40s\": bad move count", text);
        }
        tc->moves = (int)a;
        p++;
    }
    if (!read_num(&p, &a) || a > 86400) {
        return cr_error_set(err, CR_EINVAL, 0, (int)(p - text) + 1,
                            "time control \"%.40s\": seconds expected", text);
    }
    tc->base_ms = (int32_t)(a * 1000);
    if (tc->moves && *p == ':') {
        p++;
        if (!read_num(&p, &b) || b > 86400) {
            return cr_error_set(err, CR_EINVAL, 0, (int)(p - text) + 1,
                                "time control \"%.40s\": seconds of the second period expected",
                                text);
        }
        tc->extra_ms = (int32_t)(b * 1000);
    }
    if (*p == '+' || *p == 'd') {
        char kind = *p++;
        if (!read_num(&p, &b) || b > 3600) {
            return cr_error_set(err, CR_EINVAL, 0, (int)(p - text) + 1,
                                "time control \"%.40s\": bonus seconds expected", text);
        }
        if (kind == '+') {
            tc->increment_ms = (int32_t)(b * 1000);
        } else {
            tc->delay_ms = (int32_t)(b * 1000);
        }
    }
    if (*p) {
        return cr_error_set(err, CR_EINVAL, 0, (int)(p - text) + 1,
                            "time control \"%.40s\": unexpected '%c'", text, *p);
    }
    return 0;
}

void cr_clock_config_default(cr_clock_config *cfg)
{
    cfg->tolerance_ms = 2500;
    cfg->stale_ms = 0;
    cfg->fresh_ms = 5000;
}

cr_clock *cr_clock_new(const cr_time_control *tc, const cr_clock_config *cfg)
{
    cr_clock *c = calloc(1, sizeof *c);
    if (!c) {
        return NULL;
    }
    if (cfg) {
        c->cfg = *cfg;
    } else {
        cr_clock_config_default(&c->cfg);
    }
    if (tc) {
        c->tc = *tc;
        c->have_tc = tc->base_ms > 0;
    }
    if (c->cfg.fresh_ms <= 0) {
        c->cfg.fresh_ms = 5000;
    }
    c->cur.running = -1;
    c->mrun = -1;
    for (int s = 0; s < CR_COLOR_NB; s++) {
        c->mrem[s] = c->tc.base_ms;
        c->last_press[s] = -1;
        c->flag_at[s] = -1;
    }
    c->first_flag = -1;
    return c;
}

void cr_clock_free(cr_clock *c)
{
    free(c);
}

static void sample_add(samples *s, int64_t v)
{
    s->v[s->n % NSAMP] = v;
    s->n++;
}

/* The k-th newest sample (k = 0: newest). */
static int64_t sample_last(const samples *s, int k)
{
    return s->v[(s->n - 1 - k) % NSAMP];
}

static int64_t round_sec(int64_t ms)
{
    return (ms + 500) / 1000 * 1000;
}

/* The bonus the model works with: a configured time control wins over
 * what the readings suggest (the organiser knows the control). */
static cr_clock_mode eff_mode(const cr_clock *c)
{
    if (c->have_tc) {
        return c->tc.increment_ms > 0 ? CR_CLOCK_MODE_INCREMENT
               : c->tc.delay_ms > 0   ? CR_CLOCK_MODE_DELAY_US
                                      : CR_CLOCK_MODE_NONE;
    }
    return c->mode;
}

static int64_t eff_bonus(const cr_clock *c)
{
    if (c->have_tc) {
        return c->tc.increment_ms > 0 ? c->tc.increment_ms : c->tc.delay_ms;
    }
    return c->bonus;
}

/* Remaining time of s at t in the reading model. US delay: a side whose time
 * has not moved this turn starts counting only when the delay is over. */
static int64_t reading_remaining(const cr_clock *c, const reading *b, bool model, int s, int64_t t)
{
    int64_t v = b->ms[s];
    if (s != b->running) {
        return v;
    }
    if (c->cfg.stale_ms > 0 && t - b->t > c->cfg.stale_ms) {
        t = b->t + c->cfg.stale_ms; /* the clock went silent: do not invent a flag */
    }
    int64_t from = b->t;
    if (model && eff_mode(c) == CR_CLOCK_MODE_DELAY_US && c->turn_valid && c->turn_flat &&
        b->ms[s] == c->turn_ms) {
        int64_t delay_end = c->turn_t + eff_bonus(c);
        if (from < delay_end) {
            from = delay_end;
        }
    }
    return t > from ? v - (t - from) : v;
}

static int64_t move_remaining(const cr_clock *c, int s, int64_t t)
{
    int64_t v = c->mrem[s];
    if (c->started && s == c->mrun && t > c->mturn_t) {
        int64_t used = t - c->mturn_t - c->tc.delay_ms;
        if (used > 0) {
            v -= used;
        }
    }
    return v;
}

/* Unclamped remaining time, or INT64_MIN when unknown. */
static int64_t remaining_raw(const cr_clock *c, int s, int64_t t)
{
    if (c->readings) {
        return reading_remaining(c, &c->cur, true, s, t);
    }
    if (c->have_tc) {
        return move_remaining(c, s, t);
    }
    return INT64_MIN;
}

static int running_side(const cr_clock *c)
{
    if (c->readings) {
        return c->cur.running;
    }
    return c->started ? c->mrun : -1;
}

static void raise_flag(cr_clock *c, int s, int64_t at)
{
    if (c->flag[s]) {
        return;
    }
    c->flag[s] = true;
    c->flag_at[s] = at;
    if (c->first_flag < 0 || at < c->flag_at[c->first_flag]) {
        c->first_flag = s;
    }
}

/* Until when the model is sure the clock ran as last read: the last
 * reading plus fresh_ms, cut at the moment the board's link went down.
 * No sureness while a suspect reading waits for confirmation. */
static int64_t sure_until(const cr_clock *c)
{
    if (!c->readings || c->pending) {
        return INT64_MIN;
    }
    int64_t sure = c->cur.t + c->cfg.fresh_ms;
    if (c->gap && c->gap_t < sure) {
        sure = c->gap_t;
    }
    return sure;
}

/* The running side's flag falls on evidence only: its time, extrapolated
 * from a reading, reached 0 while the model was sure the clock ran. Past
 * that it is a suspicion (cr_clock_suspected), never a flag. */
static void check_flag(cr_clock *c, int64_t t)
{
    int s = running_side(c);
    if (s < 0 || c->flag[s] || !c->readings) {
        return;
    }
    int64_t r = remaining_raw(c, s, t);
    if (r != INT64_MIN && r <= 0 && t + r <= sure_until(c)) {
        raise_flag(c, s, t + r);
    }
}

/* The presses of turns longer than the delay `d` added, typically (the
 * median: a late stamp moves single samples either way), d against a
 * plain count-down (d = 0: sudden death). */
static bool adds_agree(const cr_clock *c, int64_t d)
{
    int64_t v[NSAMP];
    int n = c->adds.n < NSAMP ? c->adds.n : NSAMP, used = 0;
    for (int i = 0; i < n; i++) {
        if (sample_last(&c->add_turn, i) < d + SAMPLE_AGREE_MS) {
            continue; /* a turn all within the delay tells nothing */
        }
        int64_t add = sample_last(&c->adds, i);
        int j = used++;
        while (j > 0 && v[j - 1] > add) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = add;
    }
    return used > 0 && llabs(v[used / 2] - d) <= SAMPLE_AGREE_MS;
}

/* Told apart by the time a press adds: Fischer adds the bonus, Bronstein
 * gives back the time used up to it, US delay and sudden death add nothing
 * (a delay shows as a turn whose time stands still at first). */
static void detect(cr_clock *c)
{
    /* US delay: turns stand still at first for the delay, and a press
     * leaves the clock exactly the delay above a plain count-down (turns
     * longer than the delay). Still turns alone are not enough: readings
     * stamped late make any control look like a short delay. */
    if (c->usdelay.n >= 2) {
        int64_t a = sample_last(&c->usdelay, 0), b = sample_last(&c->usdelay, 1);
        int64_t cand = round_sec(a > b ? a : b);
        if (llabs(a - b) <= SAMPLE_AGREE_MS && adds_agree(c, cand)) {
            c->mode = CR_CLOCK_MODE_DELAY_US;
            c->bonus = cand;
            return;
        }
    }
    if (c->gain.n >= 2) {
        /* Displays show whole seconds, so each gain is off by up to a second
         * either way: average the samples that agree with the newest. */
        int64_t newest = sample_last(&c->gain, 0), sum = 0;
        int agree = 0, n = c->gain.n < NSAMP ? c->gain.n : NSAMP;
        for (int i = 0; i < n; i++) {
            int64_t v = sample_last(&c->gain, i);
            if (llabs(v - newest) <= SAMPLE_AGREE_MS) {
                sum += v;
                agree++;
            }
        }
        if (agree >= 2) {
            int64_t g = round_sec(sum / agree);
            c->mode = CR_CLOCK_MODE_INCREMENT;
            c->bonus = g;
            /* Time used given back exactly, clearly below the bonus: Bronstein. */
            int nr = c->restored.n < NSAMP ? c->restored.n : NSAMP;
            for (int i = 0; i < nr; i++) {
                if (sample_last(&c->restored, i) < g - 2500) {
                    c->mode = CR_CLOCK_MODE_BRONSTEIN;
                }
            }
            return;
        }
    }
    if (c->restored.n >= 2) {
        int n = c->restored.n < NSAMP ? c->restored.n : NSAMP;
        int64_t lo = INT64_MAX, hi = 0;
        for (int i = 0; i < n; i++) {
            int64_t v = sample_last(&c->restored, i);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        if (hi - lo > SAMPLE_AGREE_MS) {
            c->mode = CR_CLOCK_MODE_BRONSTEIN;
            c->bonus = round_sec(hi); /* a lower bound until a capped press shows it */
            return;
        }
    }
    if (c->zero_presses >= 4 && c->gain.n == 0 && c->restored.n == 0 &&
        (c->usdelay.n == 0 || adds_agree(c, 0))) {
        c->mode = CR_CLOCK_MODE_NONE;
        c->bonus = 0;
    }
}

/* Does reading r fit base b (the model, or a held reading)? */
static bool fits(const cr_clock *c, const reading *b, bool model, const reading *r)
{
    int64_t tol = c->cfg.tolerance_ms;
    int64_t dt = r->t > b->t ? r->t - b->t : 0;
    for (int s = 0; s < CR_COLOR_NB; s++) {
        int64_t v = r->ms[s];
        int64_t last = b->ms[s];
        if (s == b->running) {
            int64_t e = reading_remaining(c, b, model, s, r->t);
            if (e < 0) {
                e = 0;
            }
            if (r->running != s && r->running >= 0) {
                if (v < e - tol || v > e + MAX_GAIN_MS) { /* s pressed: it may gain */
                    return false;
                }
            } else if (v < e - tol || v > last + tol) { /* may stand still (delay), not go up */
                return false;
            }
        } else if (r->running == s) {
            if (v < last - dt - tol || v > last + tol) { /* s started within dt */
                return false;
            }
        } else if (llabs(v - last) > tol) {
            return false;
        }
    }
    return true;
}

/* Takes reading r as the state: press detection, bonus samples, flags. */
static void accept(cr_clock *c, const reading *r, bool consistent)
{
    c->gap = c->offline; /* a fresh reading: sure again while the link holds */
    c->gap_t = r->t;
    if (!c->readings) {
        c->readings = true;
        c->cur = *r;
        c->turn_valid = false;
        c->turn_flat = false;
        return;
    }
    const reading *b = &c->cur;
    int x = b->running;
    if (x >= 0 && r->running == (x ^ 1)) {
        /* x pressed. Readings may be far apart (often only at presses), so
         * the gain is measured against the extrapolated time at the press:
         * Fischer gives the increment; Bronstein (and US delay, seen only at
         * the presses) gives back the time used up to the delay, leaving the
         * clock where the turn began. */
        c->last_press[x] = r->t;
        if (consistent && c->turn_valid && r->t > c->turn_t) {
            int64_t elapsed = r->t - c->turn_t;
            sample_add(&c->adds, r->ms[x] - (c->turn_ms - elapsed));
            sample_add(&c->add_turn, elapsed);
        }
        int64_t e = reading_remaining(c, b, true, x, r->t);
        /* A side out of time tells nothing about the bonus. */
        if (consistent && e > 0 && !c->flag[x]) {
            int64_t g = r->ms[x] - e;
            int64_t used = c->turn_valid ? c->turn_ms - e : -1;
            if (g < 700) {
                c->zero_presses++;
            } else if (used >= 1500 && llabs(r->ms[x] - c->turn_ms) <= 1000 && g <= used + 1000) {
                sample_add(&c->restored, g);
            } else {
                sample_add(&c->gain, g);
            }
            detect(c);
        }
        c->turn_valid = true;
        c->turn_t = r->t;
        c->turn_ms = r->ms[x ^ 1];
        c->turn_flat = true;
    } else if (r->running >= 0 && r->running != x) {
        /* Started from stopped: a turn of unknown start. */
        c->turn_valid = false;
        c->turn_flat = false;
    } else if (r->running >= 0 && r->running == x && c->turn_valid && c->turn_flat &&
               r->ms[x] < c->turn_ms) {
        c->turn_flat = false;
        int64_t d = (r->t - c->turn_t) - (c->turn_ms - r->ms[x]);
        if (d >= 1500 && consistent) {
            sample_add(&c->usdelay, d);
            detect(c);
        }
    }
    /* A consistent reading showing 0 for a side is its flag (it ran down). */
    if (consistent) {
        for (int s = 0; s < CR_COLOR_NB; s++) {
            if (r->ms[s] == 0 && b->ms[s] > 0 && !c->flag[s]) {
                int64_t at = s == b->running ? b->t + reading_remaining(c, b, true, s, b->t) : r->t;
                raise_flag(c, s, at < r->t ? at : r->t);
            }
        }
    }
    c->cur = *r;
}

int cr_clock_feed(cr_clock *c, int64_t t, int32_t white_ms, int32_t black_ms, int running)
{
    if (!c || white_ms < 0 || black_ms < 0 || running < -1 || running > 1) {
        return CR_EINVAL;
    }
    if (white_ms == 0 && black_ms == 0) {
        c->noise++; /* all-zero reading after a clock command */
        return CR_CLOCK_IGNORED;
    }
    reading r = {t, {white_ms, black_ms}, running};
    if (c->readings && t < c->cur.t) {
        r.t = c->cur.t; /* time never goes back */
    }
    if (!c->readings) {
        accept(c, &r, true);
        check_flag(c, r.t);
        return CR_CLOCK_ACCEPTED;
    }
    /* The model's own flag check first, so a fall between readings is
     * dated by the extrapolation. */
    check_flag(c, r.t);
    if (fits(c, &c->cur, true, &r)) {
        if (c->pending) {
            c->pending = false;
            c->noise++;
        }
        accept(c, &r, true);
        check_flag(c, r.t);
        return CR_CLOCK_ACCEPTED;
    }
    if (c->pending && fits(c, &c->held, false, &r)) {
        /* Confirmed: the clock really was set (or restarted) to this. */
        c->pending = false;
        accept(c, &c->held, false);
        accept(c, &r, false);
        check_flag(c, r.t);
        return CR_CLOCK_ACCEPTED;
    }
    if (c->pending) {
        c->noise++;
    }
    if (r.running < 0 && c->cur.running >= 0) {
        /* The clock stopped, whatever its times say: freeze the model where
         * it stands rather than run a stopped clock down. */
        int x = c->cur.running;
        int64_t v = reading_remaining(c, &c->cur, true, x, r.t);
        c->cur.ms[x] = v < 0 ? 0 : v;
        c->cur.t = r.t;
        c->cur.running = -1;
        c->turn_valid = false;
        c->turn_flat = false;
    }
    c->pending = true;
    c->held = r;
    return CR_CLOCK_HELD;
}

void cr_clock_start(cr_clock *c, int64_t t)
{
    c->start_set = true;
    c->start_t = t;
    if (!c->started && !c->readings) {
        c->started = true;
        c->mrun = CR_WHITE;
        c->mturn_t = t;
    }
}

int cr_clock_move(cr_clock *c, int ply, int mover, int64_t t)
{
    if (!c || mover < 0 || mover > 1 || ply < 0) {
        return CR_EINVAL;
    }
    c->moves[mover]++;
    if (c->readings) {
        return 0;
    }
    if (!c->started) {
        c->started = true;
        c->mturn_t = c->start_set ? c->start_t : t;
    }
    if (t < c->mturn_t) {
        t = c->mturn_t;
    }
    /* The mover's clock ran since the last turn change, whoever the model
     * thought was running (a missed move only shifts the blame). */
    c->mrun = mover;
    check_flag(c, t);
    c->mrem[mover] = move_remaining(c, mover, t);
    if (c->mrem[mover] < 0) {
        c->mrem[mover] = 0;
    }
    if (!c->flag[mover]) {
        c->mrem[mover] += c->tc.increment_ms;
        if (c->tc.moves && c->moves[mover] == c->tc.moves) {
            c->mrem[mover] += c->tc.extra_ms;
        }
    }
    c->last_press[mover] = t;
    c->mrun = mover ^ 1;
    c->mturn_t = t;
    return 0;
}

int cr_clock_tick(cr_clock *c, int64_t t)
{
    check_flag(c, t);
    int order[2] = {c->first_flag, c->first_flag ^ 1};
    if (c->first_flag < 0) {
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        int s = order[i];
        if (c->flag[s] && !c->reported[s]) {
            c->reported[s] = true;
            return s;
        }
    }
    return -1;
}

int32_t cr_clock_remaining(const cr_clock *c, int color, int64_t t)
{
    if (!c || color < 0 || color > 1) {
        return CR_CLOCK_UNKNOWN;
    }
    int64_t r = remaining_raw(c, color, t);
    if (r == INT64_MIN) {
        return CR_CLOCK_UNKNOWN;
    }
    if (c->flag[color] && c->flag_at[color] <= t) {
        return 0; /* a fallen flag stays down until the arbiter adds time */
    }
    if (r < 0) {
        r = 0;
    }
    return r > INT32_MAX ? INT32_MAX : (int32_t)r;
}

int cr_clock_running(const cr_clock *c)
{
    return c ? running_side(c) : -1;
}

bool cr_clock_has_readings(const cr_clock *c)
{
    return c && c->readings;
}

int64_t cr_clock_last_press(const cr_clock *c, int color)
{
    return (c && color >= 0 && color <= 1) ? c->last_press[color] : -1;
}

cr_clock_mode cr_clock_mode_of(const cr_clock *c)
{
    if (!c) {
        return CR_CLOCK_MODE_UNKNOWN;
    }
    if (c->have_tc || c->mode != CR_CLOCK_MODE_UNKNOWN) {
        return eff_mode(c);
    }
    if (c->tc.increment_ms > 0) {
        return CR_CLOCK_MODE_INCREMENT;
    }
    return c->tc.delay_ms > 0 ? CR_CLOCK_MODE_DELAY_US : CR_CLOCK_MODE_UNKNOWN;
}

const cr_time_control *cr_clock_control(const cr_clock *c)
{
    return c && c->have_tc ? &c->tc : NULL;
}

int32_t cr_clock_bonus_ms(const cr_clock *c)
{
    if (!c) {
        return 0;
    }
    if (c->have_tc || c->mode != CR_CLOCK_MODE_UNKNOWN) {
        return (int32_t)eff_bonus(c);
    }
    return c->tc.increment_ms > 0 ? c->tc.increment_ms : c->tc.delay_ms;
}

cr_clock_mode cr_clock_detected_mode(const cr_clock *c)
{
    return c ? c->mode : CR_CLOCK_MODE_UNKNOWN;
}

int32_t cr_clock_detected_bonus_ms(const cr_clock *c)
{
    return c && c->mode != CR_CLOCK_MODE_UNKNOWN ? (int32_t)c->bonus : 0;
}

void cr_clock_link(cr_clock *c, bool online, int64_t t)
{
    if (!c || c->offline == !online) {
        return;
    }
    c->offline = !online;
    if (!online && !c->gap) {
        c->gap = true;
        c->gap_t = t;
    }
}

bool cr_clock_sure(const cr_clock *c, int64_t t)
{
    if (!c || !c->readings || c->pending) {
        return false;
    }
    if (c->cur.running < 0) {
        return true; /* a stopped clock does not move */
    }
    return t <= sure_until(c);
}

int cr_clock_suspected(const cr_clock *c, int64_t t, int64_t *since)
{
    if (!c) {
        return -1;
    }
    /* The running side first: a stopped side at zero waits for its reading. */
    int first = running_side(c) >= 0 ? running_side(c) : CR_WHITE;
    for (int k = 0; k < CR_COLOR_NB; k++) {
        int s = k == 0 ? first : first ^ 1;
        if (c->flag[s]) {
            continue;
        }
        int64_t r = remaining_raw(c, s, t);
        if (r != INT64_MIN && r <= 0) {
            if (since) {
                *since = s == running_side(c) ? t + r : (c->readings ? c->cur.t : t);
            }
            return s;
        }
    }
    return -1;
}

int64_t cr_clock_flag_at(const cr_clock *c, int color)
{
    return (c && color >= 0 && color <= 1 && c->flag[color]) ? c->flag_at[color] : -1;
}

int64_t cr_clock_state_time(const cr_clock *c)
{
    if (!c) {
        return -1;
    }
    if (c->readings) {
        return c->cur.t;
    }
    return c->started ? c->mturn_t : -1;
}

int cr_clock_flagged(const cr_clock *c)
{
    return c ? c->first_flag : -1;
}

int64_t cr_clock_flag_time(const cr_clock *c)
{
    return (c && c->first_flag >= 0) ? c->flag_at[c->first_flag] : -1;
}

int cr_clock_noise_count(const cr_clock *c)
{
    return c ? c->noise : 0;
}

void cr_clock_adjust(cr_clock *c, int color, int32_t delta_ms, int64_t t)
{
    if (!c || color < 0 || color > 1) {
        return;
    }
    if (c->readings) {
        /* Rebase the running side at t first so the change applies from now. */
        if (c->cur.running == color && t > c->cur.t) {
            int64_t r = reading_remaining(c, &c->cur, true, color, t);
            c->cur.ms[color] = r < 0 ? 0 : r;
            c->cur.t = t;
            c->turn_flat = false;
        }
        c->cur.ms[color] += delta_ms;
        if (c->cur.ms[color] < 0) {
            c->cur.ms[color] = 0;
        }
        if (c->turn_valid && c->cur.running == color) {
            c->turn_ms += delta_ms;
        }
    } else {
        c->mrem[color] += delta_ms;
        if (c->mrem[color] < 0) {
            c->mrem[color] = 0;
        }
    }
    if (c->flag[color] && remaining_raw(c, color, t) > 0) {
        c->flag[color] = false;
        c->reported[color] = false;
        c->flag_at[color] = -1;
        c->first_flag = c->flag[color ^ 1] ? (color ^ 1) : -1;
    }
}
