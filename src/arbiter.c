/* Arbiter monitoring of one game: alerts (raised once per occurrence), the
 * append-only incident log and its one-line text form, arbiter actions and
 * quickplay-finish draw claims with their evidence. The printable report is
 * in claim_report.c. */
#include "cr/arbiter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
};

/* ---------------------------------------------------------------- names */

static const char *const kind_names[CR_INC_KIND_NB] = {
    "two-minutes",   "flag",         "threefold",
    "fivefold",      "fifty-moves",  "seventy-five-moves",
    "dead-position", "illegal-move", "board-offline",
    "board-online",  "claim",        "decision",
    "result",        "correction",   "draw-offer",
};

static const char *const urgency_names[] = {"info", "notice", "warning", "critical"};

const char *cr_incident_kind_name(cr_incident_kind kind)
{
    return ((int)kind >= 0 && kind < CR_INC_KIND_NB) ? kind_names[kind] : "?";
}

int cr_incident_kind_parse(const char *name)
{
    for (int i = 0; i < CR_INC_KIND_NB; i++) {
        if (name && strcmp(name, kind_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

const char *cr_decision_name(cr_decision d)
{
    switch (d) {
    case CR_DECISION_DRAW:
        return "draw";
    case CR_DECISION_REJECTED:
        return "rejected";
    case CR_DECISION_POSTPONED:
        return "postponed";
    default:
        return "pending";
    }
}

static const char *color_name(int c)
{
    return c == CR_WHITE ? "White" : "Black";
}

/* "H:MM:SS" or "?" */
static void fmt_ms(int64_t ms, char buf[24])
{
    if (ms < 0) {
        snprintf(buf, 24, "?");
        return;
    }
    int64_t s = ms / 1000;
    snprintf(buf, 24, "%" PRId64 ":%02d:%02d", s / 3600, (int)(s / 60 % 60), (int)(s % 60));
}

/* ---------------------------------------------------------------- line form */

int cr_incident_format(const cr_incident *inc, char *buf, size_t size)
{
    if (!inc || !buf || (int)inc->kind < 0 || inc->kind >= CR_INC_KIND_NB ||
        (int)inc->urgency < 0 || inc->urgency > CR_URGENCY_CRITICAL) {
        return CR_EINVAL;
    }
    cr_sb o;
    cr_sb_init_fixed(&o, buf, size);
    cr_sb_fmt(&o, "%d\t%s\t%s\t%d\t%s\t%" PRId32 "\t%" PRId32 "\t%" PRId64 "\t%" PRId64 "\t",
              inc->seq, kind_names[inc->kind], urgency_names[inc->urgency], inc->ply,
              inc->color == CR_WHITE   ? "w"
              : inc->color == CR_BLACK ? "b"
                                       : "-",
              inc->white_ms, inc->black_ms, inc->t, inc->wall);
    static const char hex[] = "0123456789abcdef";
    for (const unsigned char *p = (const unsigned char *)inc->text;
         *p && p < (const unsigned char *)inc->text + sizeof inc->text && !o.failed; p++) {
        if (*p == '\\') {
            cr_sb_str(&o, "\\\\");
        } else if (*p == '\t') {
            cr_sb_str(&o, "\\t");
        } else if (*p == '\n') {
            cr_sb_str(&o, "\\n");
        } else if (*p == '\r') {
            cr_sb_str(&o, "\\r");
        } else if (*p < 0x20 || *p == 0x7f) {
            char esc[4] = {'\\', 'x', hex[*p >> 4], hex[*p & 15]};
            cr_sb_add(&o, esc, sizeof esc);
        } else {
            cr_sb_char(&o, (char)*p);
        }
    }
    return o.failed ? CR_ENOSPC : (int)o.len;
}

/* Parses a decimal integer field [s, e) in [lo, hi]. */
static bool parse_int(const char *s, const char *e, int64_t lo, int64_t hi, int64_t *out)
{
    bool neg = false;
    if (s < e && *s == '-') {
        neg = true;
        s++;
    }
    if (s == e) {
        return false;
    }
    int64_t v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - (*s - '0')) / 10) {
            return false;
        }
        v = v * 10 + (*s - '0');
    }
    v = neg ? -v : v;
    if (v < lo || v > hi) {
        return false;
    }
    *out = v;
    return true;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

int cr_incident_parse(const char *line, size_t len, cr_incident *inc, cr_error *err)
{
    static const char *const field_names[10] = {"seq",      "kind",     "urgency", "ply",  "color",
                                                "white_ms", "black_ms", "t",       "wall", "text"};
    if (!line || !inc) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "incident: no line");
    }
    if (len && line[len - 1] == '\n') {
        len--;
    }
    if (len && line[len - 1] == '\r') {
        len--;
    }
    memset(inc, 0, sizeof *inc);
    const char *f[10], *fe[10];
    int nf = 0;
    const char *p = line, *end = line + len;
    f[0] = p;
    for (; p < end; p++) {
        if (*p == '\0') {
            return cr_error_set(err, CR_EFEED, 0, (int)(p - line) + 1, "incident: NUL byte");
        }
        if (*p == '\t') {
            if (nf == 9) {
                return cr_error_set(err, CR_EFEED, 0, (int)(p - line) + 1,
                                    "incident: more than 10 fields");
            }
            fe[nf++] = p;
            f[nf] = p + 1;
        }
    }
    fe[nf++] = end;
    if (nf != 10) {
        return cr_error_set(err, CR_EFEED, 0, (int)len + 1,
                            "incident: %d fields, 10 expected (seq kind urgency ply color "
                            "white_ms black_ms t wall text)",
                            nf);
    }
    int64_t v[10] = {0};
    static const int64_t lo[10] = {1, 0, 0, 0, 0, -1, -1, -1, -1, 0};
    static const int64_t hi[10] = {
        INT32_MAX, 0, 0, 100000, 0, INT32_MAX, INT32_MAX, INT64_MAX / 2, INT64_MAX / 2, 0};
    for (int i = 0; i < 9; i++) {
        int col = (int)(f[i] - line) + 1;
        size_t n = (size_t)(fe[i] - f[i]);
        if (i == 1) {
            char tmp[24];
            if (n == 0 || n >= sizeof tmp) {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: bad kind");
            }
            memcpy(tmp, f[i], n);
            tmp[n] = '\0';
            int k = cr_incident_kind_parse(tmp);
            if (k < 0) {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: unknown kind \"%s\"", tmp);
            }
            inc->kind = (cr_incident_kind)k;
        } else if (i == 2) {
            int u = -1;
            for (int j = 0; j < 4; j++) {
                if (n == strlen(urgency_names[j]) && memcmp(f[i], urgency_names[j], n) == 0) {
                    u = j;
                }
            }
            if (u < 0) {
                return cr_error_set(err, CR_EFEED, 0, col,
                                    "incident: urgency must be info, notice, warning or critical");
            }
            inc->urgency = (cr_urgency)u;
        } else if (i == 4) {
            if (n != 1 || (f[i][0] != 'w' && f[i][0] != 'b' && f[i][0] != '-')) {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: color must be w, b or -");
            }
            inc->color = f[i][0] == 'w' ? CR_WHITE : f[i][0] == 'b' ? CR_BLACK : -1;
        } else if (!parse_int(f[i], fe[i], lo[i], hi[i], &v[i])) {
            return cr_error_set(err, CR_EFEED, 0, col, "incident: bad %s \"%.*s\"", field_names[i],
                                (int)(n > 20 ? 20 : n), f[i]);
        }
    }
    inc->seq = (int)v[0];
    inc->ply = (int)v[3];
    inc->white_ms = (int32_t)v[5];
    inc->black_ms = (int32_t)v[6];
    inc->t = v[7];
    inc->wall = v[8];
    size_t o = 0;
    for (const char *s = f[9]; s < fe[9]; s++) {
        char c = *s;
        int col = (int)(s - line) + 1;
        if (c == '\\') {
            if (s + 1 >= fe[9]) {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: text ends in a backslash");
            }
            char e = *++s;
            if (e == '\\') {
                c = '\\';
            } else if (e == 't') {
                c = '\t';
            } else if (e == 'n') {
                c = '\n';
            } else if (e == 'r') {
                c = '\r';
            } else if (e == 'x' && s + 2 < fe[9] && hexval(s[1]) >= 0 && hexval(s[2]) >= 0 &&
                       (hexval(s[1]) << 4 | hexval(s[2])) != 0) {
                c = (char)(hexval(s[1]) << 4 | hexval(s[2]));
                s += 2;
            } else {
                return cr_error_set(err, CR_EFEED, 0, col, "incident: bad escape in text");
            }
        } else if ((unsigned char)c < 0x20) {
            return cr_error_set(err, CR_EFEED, 0, col, "incident: control character in text");
        }
        if (o + 1 >= sizeof inc->text) {
            return cr_error_set(err, CR_EFEED, 0, col, "incident: text longer than %d bytes",
                                CR_INCIDENT_TEXT_MAX - 1);
        }
        inc->text[o++] = c;
    }
    inc->text[o] = '\0';
    return 0;
}

int cr_incident_compare(const void *a, const void *b)
{
    const cr_incident *x = a, *y = b;
    if (x->urgency != y->urgency) {
        return x->urgency > y->urgency ? -1 : 1;
    }
    return (x->seq > y->seq) ? -1 : (x->seq < y->seq);
}

/* ---------------------------------------------------------------- monitor */

void cr_monitor_config_default(cr_monitor_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->two_minutes_ms = 120000;
    cfg->claim_added_ms = 120000;
    cfg->evidence_moves = 10;
    cfg->quickplay_finish = true;
    cfg->flag_ends_game = true;
}

static int32_t remaining(const cr_monitor *m, int c, int64_t t)
{
    return m->clock ? cr_clock_remaining(m->clock, c, t) : CR_CLOCK_UNKNOWN;
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

static int log_inc(cr_monitor *m, cr_incident_kind kind, cr_urgency urg, int color, int64_t t,
                   const char *fmt, ...) CR_PRINTF(6, 7);

static int log_inc(cr_monitor *m, cr_incident_kind kind, cr_urgency urg, int color, int64_t t,
                   const char *fmt, ...)
{
    if (m->silent) {
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

static bool game_over(const cr_monitor *m)
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
    log_inc(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t, "%s: %s", cr_result_string(r), why);
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
    log_inc(m, CR_INC_ILLEGAL_MOVE, CR_URGENCY_CRITICAL, mover, t,
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
    char lab[40];
    ply_label(g, i, lab);
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
        m->last_draw_offer = i;
        log_inc(m, CR_INC_DRAW_OFFER, CR_URGENCY_NOTICE, mover, t, "%s offers a draw after %s",
                color_name(mover), lab);
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
        log_inc(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t, "%s (from the game record)",
                cr_result_string(m->last_result));
    }
    if (m->ended_at == n) {
        return; /* this position was judged already */
    }
    bool over = game_over(m);
    if (st == CR_STATUS_CHECKMATE && !over) {
        cr_result winner = pos->side == CR_WHITE ? CR_RESULT_BLACK : CR_RESULT_WHITE;
        auto_result(m, winner, t, "checkmate", true);
        return;
    }
    if (st == CR_STATUS_STALEMATE && !over) {
        auto_result(m, CR_RESULT_DRAW, t, "stalemate", true);
        return;
    }
    if (m->dead) {
        log_inc(m, CR_INC_DEAD_POSITION, CR_URGENCY_WARNING, -1, t,
                "dead position: neither side can checkmate (5.2.2)%s",
                over ? "" : ": the game is drawn");
        if (!over) {
            auto_result(m, CR_RESULT_DRAW, t, "dead position", true);
        }
        m->ended_at = n;
        return;
    }
    if (m->fivefold) {
        log_inc(m, CR_INC_FIVEFOLD, CR_URGENCY_WARNING, -1, t,
                "position repeated %d times (9.6.1)%s", m->repetitions,
                over ? "" : ": the game is drawn");
        if (!over) {
            auto_result(m, CR_RESULT_DRAW, t, "fivefold repetition", true);
        }
        m->ended_at = n;
        return;
    }
    if (m->seventy_five) {
        log_inc(m, CR_INC_SEVENTY_FIVE_MOVES, CR_URGENCY_WARNING, -1, t,
                "75 moves by each side without a capture or pawn move (9.6.2)%s",
                over ? "" : ": the game is drawn");
        if (!over) {
            auto_result(m, CR_RESULT_DRAW, t, "75-move rule", true);
        }
        m->ended_at = n;
        return;
    }
    if (m->threefold && m->threefold_at != n && !over) {
        m->threefold_at = n;
        log_inc(m, CR_INC_THREEFOLD, CR_URGENCY_NOTICE, -1, t,
                "position stands for the %d%s time: a draw claim (9.2) would be correct",
                m->repetitions, m->repetitions == 3 ? "rd" : "th");
    }
    int run = n - m->halfmove; /* ply count at the last capture or pawn move */
    if (m->fifty && m->fifty_run != run && !over) {
        m->fifty_run = run;
        log_inc(m, CR_INC_FIFTY_MOVES, CR_URGENCY_NOTICE, -1, t,
                "50 moves by each side without a capture or pawn move: a draw claim (9.3) "
                "would be correct");
    }
}

/* Flags and the two-minute windows at t. */
static void check_clock(cr_monitor *m, int64_t t)
{
    if (!m->clock) {
        check_illegal(m, t);
        return;
    }
    int s;
    while ((s = cr_clock_tick(m->clock, t)) >= 0) {
        if (m->flag_raised[s]) {
            continue;
        }
        m->flag_raised[s] = true;
        int opp = s ^ 1;
        char at[24];
        fmt_ms(cr_clock_flag_time(m->clock) >= 0 ? cr_clock_flag_time(m->clock) : t, at);
        if (game_over(m)) {
            log_inc(m, CR_INC_FLAG, CR_URGENCY_INFO, s, t,
                    "%s's flag fell after the game ended (%s): the result stands", color_name(s),
                    cr_result_string(cr_game_result(m->game)));
            continue;
        }
        bool can = cr_can_mate(cr_game_position(m->game), opp);
        log_inc(m, CR_INC_FLAG, CR_URGENCY_CRITICAL, s, t, "%s's flag fell: %s", color_name(s),
                can ? (opp == CR_WHITE ? "White wins (6.9)" : "Black wins (6.9)")
                    : (opp == CR_WHITE
                           ? "White cannot checkmate by any legal sequence: draw (6.9)"
                           : "Black cannot checkmate by any legal sequence: draw (6.9)"));
        if (m->cfg.flag_ends_game) {
            cr_result r = !can              ? CR_RESULT_DRAW
                          : opp == CR_WHITE ? CR_RESULT_WHITE
                                            : CR_RESULT_BLACK;
            auto_result(m, r, t, can ? "flag fall" : "flag fall, opponent cannot mate", false);
        }
    }
    for (int c = 0; c < CR_COLOR_NB; c++) {
        int32_t r = remaining(m, c, t);
        if (r > 0 && r < m->cfg.two_minutes_ms && !m->two_min_raised[c] && !game_over(m)) {
            m->two_min_raised[c] = true;
            char left[24];
            fmt_ms(r, left);
            cr_clock_mode mode = cr_clock_mode_of(m->clock);
            bool window = m->cfg.quickplay_finish && mode != CR_CLOCK_MODE_INCREMENT &&
                          mode != CR_CLOCK_MODE_DELAY_US && mode != CR_CLOCK_MODE_BRONSTEIN;
            log_inc(m, CR_INC_TWO_MINUTES, CR_URGENCY_NOTICE, c, t,
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
        log_inc(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                "plies %d-%d retracted by the board reading%s", n + 1, was,
                reopen ? ", game reopened" : "");
    }
    for (int i = m->seen; i < n; i++) {
        examine_ply(m, i, t);
    }
    m->seen = n;
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
    m->wall = -1;
    m->t = -1;
    m->online = true;
    m->game = game;
    m->clock = clock;
    m->pending_illegal = -1;
    m->last_draw_offer = -1;
    m->threefold_at = -1;
    m->fifty_run = -1;
    m->ended_at = -1;
    m->auto_end_ply = -1;
    m->last_result = cr_game_result(game);
    m->silent = m->cfg.silent_start;
    cr_monitor_update(m, -1);
    m->silent = false;
    return m;
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
    }
    examine_new(m, t);
    evaluate_position(m, t);
    check_clock(m, t);
    return ensure_ply_clock(m, cr_game_ply_count(m->game));
}

int cr_monitor_clock(cr_monitor *m, int64_t t, int32_t white_ms, int32_t black_ms, int running)
{
    if (!m) {
        return CR_EINVAL;
    }
    m->t = t;
    int rc = 0;
    if (m->clock) {
        rc = cr_clock_feed(m->clock, t, white_ms, black_ms, running);
    }
    check_clock(m, t);
    return rc;
}

void cr_monitor_tick(cr_monitor *m, int64_t t)
{
    if (!m) {
        return;
    }
    m->t = t;
    check_clock(m, t);
}

void cr_monitor_board_link(cr_monitor *m, bool online, int64_t t)
{
    if (!m || m->online == online) {
        return;
    }
    m->online = online;
    m->t = t;
    if (online) {
        log_inc(m, CR_INC_BOARD_ONLINE, CR_URGENCY_INFO, -1, t, "board back online");
    } else {
        log_inc(m, CR_INC_BOARD_OFFLINE, CR_URGENCY_WARNING, -1, t,
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
        return log_inc(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                       "result changed from %s to %s by the arbiter%s%s", cr_result_string(old),
                       cr_result_string(result), reason ? ": " : "", reason ? reason : "");
    }
    return log_inc(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t, "%s set by the arbiter%s%s",
                   cr_result_string(result), reason ? ": " : "", reason ? reason : "");
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
        return log_inc(m, CR_INC_DRAW_OFFER, CR_URGENCY_NOTICE, mover, t,
                       "%s offers a draw after %s (entered by the arbiter)", color_name(mover),
                       lab);
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
    return log_inc(m, CR_INC_CORRECTION, CR_URGENCY_INFO, mover, t,
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
        rc = log_inc(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t, "take-back of nothing%s%s",
                     reason ? ": " : "", reason ? reason : "");
    } else {
        rc = log_inc(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                     "took back %d pl%s (%s .. %s)%s%s%s", n - ply_count,
                     n - ply_count == 1 ? "y" : "ies", first, last, reopen ? ", game reopened" : "",
                     reason ? ": " : "", reason ? reason : "");
    }
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
    return log_inc(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                   "players assigned: White \"%.90s\", Black \"%.90s\"", w ? w : "?", b ? b : "?");
}

/* ---------------------------------------------------------------- claims */

static bool same_position(const cr_position *a, const cr_position *b)
{
    return a->key == b->key && a->side == b->side && a->ep == b->ep &&
           memcmp(a->castle_rook, b->castle_rook, sizeof a->castle_rook) == 0 &&
           memcmp(a->board, b->board, sizeof a->board) == 0;
}

/* Capture / pawn move of ply i (illegal plies: by the material change). */
static void ply_kind(const cr_game *g, int i, bool *capture, bool *pawn)
{
    const cr_ply *p = cr_game_ply(g, i);
    const cr_position *before = cr_game_position_at(g, i);
    if (p->move == CR_MOVE_NONE) {
        *capture = __builtin_popcountll(p->after.occupied) < __builtin_popcountll(before->occupied);
        *pawn = (before->by_piece[CR_WP] | before->by_piece[CR_BP]) !=
                    (p->after.by_piece[CR_WP] | p->after.by_piece[CR_BP]) &&
                !*capture;
        return;
    }
    int from = cr_move_from(p->move), to = cr_move_to(p->move), kind = cr_move_kind(p->move);
    *pawn = cr_type_of(before->board[from]) == CR_PAWN;
    *capture = kind == CR_MOVE_EN_PASSANT || (kind != CR_MOVE_CASTLE && before->board[to] != 0);
}

static void compute_evidence(const cr_monitor *m, cr_claim *c)
{
    const cr_game *g = c->frozen;
    const cr_position *pos = cr_game_position(g);
    int n = cr_game_ply_count(g);
    static const int value[CR_TYPE_NB] = {0, 1, 3, 3, 5, 9, 0};
    for (int s = 0; s < CR_COLOR_NB; s++) {
        cr_material *mat = &c->material[s];
        for (int ty = CR_PAWN; ty <= CR_KING; ty++) {
            mat->count[ty] = __builtin_popcountll(pos->by_piece[cr_make_piece(s, ty)]);
            mat->points += mat->count[ty] * value[ty];
        }
    }
    c->evidence_moves = m->cfg.evidence_moves;
    int k = 2 * c->evidence_moves;
    int from = n > k ? n - k : 0;
    c->recent_count = n - from;
    c->max_repetitions = 1;
    for (int i = from; i < n; i++) {
        cr_claim_move *cm = &c->recent[i - from];
        const cr_ply *p = cr_game_ply(g, i);
        cm->ply = i;
        snprintf(cm->san, sizeof cm->san, "%s", p->san);
        cm->white_ms =
            (m->ply_clock && i < m->ply_cap) ? m->ply_clock[i][CR_WHITE] : CR_CLOCK_UNKNOWN;
        cm->black_ms =
            (m->ply_clock && i < m->ply_cap) ? m->ply_clock[i][CR_BLACK] : CR_CLOCK_UNKNOWN;
        ply_kind(g, i, &cm->capture, &cm->pawn_move);
        c->recent_captures += cm->capture;
        c->recent_pawn_moves += cm->pawn_move;
        int reps = 1;
        for (int j = i - 1; j >= -1; j--) {
            const cr_position *q = j >= 0 ? &cr_game_ply(g, j)->after : cr_game_start(g);
            if (same_position(q, &p->after)) {
                reps++;
            }
        }
        if (reps > c->max_repetitions) {
            c->max_repetitions = reps;
        }
    }
    c->last_irreversible_ply = -1;
    for (int i = n - 1; i >= 0; i--) {
        bool cap, pawn;
        ply_kind(g, i, &cap, &pawn);
        if (cap || pawn) {
            c->last_irreversible_ply = i;
            break;
        }
    }
    c->plies_since_irreversible = c->last_irreversible_ply >= 0 ? n - 1 - c->last_irreversible_ply
                                                                : n + cr_game_start(g)->halfmove;
    c->repetitions = cr_game_repetitions(g);
    c->opponent_can_mate = cr_can_mate(pos, c->claimant ^ 1);
}

/* Appends text to the comment after ply (or before the first move). */
static void add_comment(cr_game *g, int ply, const char *text)
{
    const char *old = cr_game_comment(g, ply);
    if (!old) {
        cr_game_set_comment(g, ply, text);
        return;
    }
    size_t n = strlen(old) + strlen(text) + 2;
    char *s = malloc(n);
    if (s) {
        snprintf(s, n, "%s %s", old, text);
        cr_game_set_comment(g, ply, s);
        free(s);
    }
}

static int refuse(cr_monitor *m, int claimant, int64_t t, char *why, size_t why_size,
                  const char *fmt, ...) CR_PRINTF(6, 7);

static int refuse(cr_monitor *m, int claimant, int64_t t, char *why, size_t why_size,
                  const char *fmt, ...)
{
    char text[CR_INCIDENT_TEXT_MAX - 40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (why && why_size) {
        snprintf(why, why_size, "%s", text);
    }
    if (claimant == CR_WHITE || claimant == CR_BLACK) {
        log_inc(m, CR_INC_CLAIM, CR_URGENCY_INFO, claimant, t, "draw claim by %s refused: %s",
                color_name(claimant), text);
    }
    return CR_EINVAL;
}

int cr_monitor_claim(cr_monitor *m, int claimant, cr_claim_basis basis, int64_t t, char *why,
                     size_t why_size)
{
    if (!m) {
        return CR_EINVAL;
    }
    if (claimant != CR_WHITE && claimant != CR_BLACK) {
        return refuse(m, claimant, t, why, why_size, "the claimant must be White or Black");
    }
    if (basis != CR_CLAIM_CANNOT_WIN && basis != CR_CLAIM_NO_EFFORT) {
        return refuse(m, claimant, t, why, why_size, "unknown basis (a or b expected)");
    }
    if (!m->cfg.quickplay_finish) {
        return refuse(m, claimant, t, why, why_size,
                      "this event has no quickplay finish: D1 claims are not allowed");
    }
    if (game_over(m)) {
        return refuse(m, claimant, t, why, why_size, "the game is over (%s)",
                      cr_result_string(cr_game_result(m->game)));
    }
    if (m->claim_open) {
        return refuse(m, claimant, t, why, why_size, "claim %d awaits a decision",
                      m->claims[m->nclaims - 1]->id);
    }
    if (!m->clock) {
        return refuse(m, claimant, t, why, why_size, "no clock: the claimant's time is unknown");
    }
    cr_clock_mode mode = cr_clock_mode_of(m->clock);
    if (mode == CR_CLOCK_MODE_INCREMENT || mode == CR_CLOCK_MODE_DELAY_US ||
        mode == CR_CLOCK_MODE_BRONSTEIN) {
        return refuse(m, claimant, t, why, why_size,
                      "the clock has %s of %d s: no quickplay finish",
                      mode == CR_CLOCK_MODE_INCREMENT ? "an increment" : "a delay",
                      (int)(cr_clock_bonus_ms(m->clock) / 1000));
    }
    check_clock(m, t);
    if (game_over(m)) {
        return refuse(m, claimant, t, why, why_size, "the game is over (%s)",
                      cr_result_string(cr_game_result(m->game)));
    }
    if (cr_clock_flagged(m->clock) == claimant) {
        return refuse(m, claimant, t, why, why_size, "%s's flag has fallen", color_name(claimant));
    }
    int32_t left = remaining(m, claimant, t);
    if (left < 0) {
        return refuse(m, claimant, t, why, why_size, "the claimant's time is unknown");
    }
    if (left >= m->cfg.two_minutes_ms) {
        char buf[24];
        fmt_ms(left, buf);
        return refuse(m, claimant, t, why, why_size,
                      "%s has %s left: a claim needs less than two minutes", color_name(claimant),
                      buf);
    }
    cr_claim *c = calloc(1, sizeof *c);
    cr_claim **list = c ? realloc(m->claims, (size_t)(m->nclaims + 1) * sizeof *list) : NULL;
    cr_game *frozen = list ? cr_game_clone(m->game) : NULL;
    if (!frozen) {
        if (list) {
            m->claims = list;
        }
        free(c);
        return CR_ENOMEM;
    }
    m->claims = list;
    c->id = m->nclaims + 1;
    c->claimant = claimant;
    c->basis = basis;
    c->t = t;
    c->wall = m->wall;
    c->ply = cr_game_ply_count(m->game);
    c->white_ms = remaining(m, CR_WHITE, t);
    c->black_ms = remaining(m, CR_BLACK, t);
    c->frozen = frozen;
    c->decided_t = c->decided_wall = -1;
    /* The scoresheet shows each mover's clock: fill what the board did not
     * give from the clock as seen when the ply arrived. */
    for (int i = 0; i < c->ply && i < m->ply_cap; i++) {
        cr_ply *p = cr_game_ply_mut(frozen, i);
        if (p->clock_ms < 0) {
            p->clock_ms = m->ply_clock[i][cr_game_position_at(frozen, i)->side];
        }
    }
    compute_evidence(m, c);
    m->claims[m->nclaims++] = c;
    m->claim_open = true;
    char wb[24], bb[24];
    fmt_ms(c->white_ms, wb);
    fmt_ms(c->black_ms, bb);
    char note[160];
    snprintf(note, sizeof note, "Draw claim by %s (D1 %s) with White %s, Black %s.",
             color_name(claimant), basis == CR_CLAIM_CANNOT_WIN ? "a" : "b", wb, bb);
    add_comment(frozen, c->ply - 1, note);
    return log_inc(m, CR_INC_CLAIM, CR_URGENCY_WARNING, claimant, t,
                   "claim %d: %s claims a draw (D1 %s: %s %s by normal means); clocks White %s, "
                   "Black %s",
                   c->id, color_name(claimant), basis == CR_CLAIM_CANNOT_WIN ? "a" : "b",
                   color_name(claimant ^ 1),
                   basis == CR_CLAIM_CANNOT_WIN ? "cannot win" : "makes no effort to win", wb, bb);
}

int cr_monitor_decide(cr_monitor *m, cr_decision d, int32_t added_ms, const char *note, int64_t t)
{
    if (!m || !m->claim_open ||
        (d != CR_DECISION_DRAW && d != CR_DECISION_REJECTED && d != CR_DECISION_POSTPONED)) {
        return CR_EINVAL;
    }
    cr_claim *c = m->claims[m->nclaims - 1];
    int opp = c->claimant ^ 1;
    c->decision = d;
    c->decided_t = t;
    c->decided_wall = m->wall;
    snprintf(c->note, sizeof c->note, "%s", note ? note : "");
    char text[CR_INCIDENT_TEXT_MAX];
    const char *basis = c->basis == CR_CLAIM_CANNOT_WIN ? "a" : "b";
    if (d == CR_DECISION_DRAW) {
        snprintf(text, sizeof text, "Draw claim by %s (D1 %s) upheld by the arbiter: draw.%s%.150s",
                 color_name(c->claimant), basis, note ? " " : "", note ? note : "");
    } else if (d == CR_DECISION_REJECTED) {
        c->added_ms = added_ms >= 0 ? added_ms : m->cfg.claim_added_ms;
        char add[24];
        fmt_ms(c->added_ms, add);
        snprintf(
            text, sizeof text,
            "Draw claim by %s (D1 %s) rejected by the arbiter; %s added to %s's clock.%s%.120s",
            color_name(c->claimant), basis, add, color_name(opp), note ? " " : "",
            note ? note : "");
    } else {
        snprintf(text, sizeof text,
                 "Draw claim by %s (D1 %s): decision postponed by the arbiter.%s%.150s",
                 color_name(c->claimant), basis, note ? " " : "", note ? note : "");
    }
    /* Comment in the live game (if the claim's ply still stands) and in the
     * frozen scoresheet. */
    if (c->ply <= cr_game_ply_count(m->game)) {
        add_comment(m->game, c->ply - 1, text);
    }
    add_comment((cr_game *)c->frozen, c->ply - 1, text);
    if (d == CR_DECISION_REJECTED && m->clock && c->added_ms) {
        cr_clock_adjust(m->clock, opp, c->added_ms, t); /* first, so the log shows it */
    }
    int rc =
        log_inc(m, CR_INC_DECISION, CR_URGENCY_INFO, c->claimant, t, "claim %d: %s", c->id, text);
    if (d == CR_DECISION_DRAW) {
        m->claim_open = false;
        cr_game_set_result((cr_game *)c->frozen, CR_RESULT_DRAW);
        /* Upheld after a postponement, the draw stands even if a flag fell
         * meanwhile (Guidelines III). */
        cr_result old = cr_game_result(m->game);
        if (old != CR_RESULT_DRAW) {
            cr_game_set_result(m->game, CR_RESULT_DRAW);
            m->last_result = CR_RESULT_DRAW;
            m->auto_end_ply = -1;
            if (old == CR_RESULT_NONE) {
                log_inc(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t,
                        "1/2-1/2: draw claim %d upheld (D1)", c->id);
            } else {
                log_inc(m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                        "result changed from %s to 1/2-1/2: draw claim %d upheld (D1)",
                        cr_result_string(old), c->id);
            }
        }
    } else if (d == CR_DECISION_REJECTED) {
        m->claim_open = false;
    }
    return rc;
}

const cr_claim *cr_monitor_claim_last(const cr_monitor *m)
{
    return (m && m->nclaims) ? m->claims[m->nclaims - 1] : NULL;
}

int cr_monitor_claim_count(const cr_monitor *m)
{
    return m ? m->nclaims : 0;
}

const cr_claim *cr_monitor_claim_at(const cr_monitor *m, int i)
{
    return (m && i >= 0 && i < m->nclaims) ? m->claims[i] : NULL;
}
