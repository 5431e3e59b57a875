/* Emulated DGT board: see dgt_emu.h. */
#include "dgt_emu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EMU_LOG_MAX 0x1F00

struct cr_dgt_emu {
    cr_dgt_emu_config cfg;
    char serial[32], long_serial[32];
    cr_dgt_emu_mode mode;
    bool muted;
    uint8_t squares[64];  /* what stands on the board (cr) */
    uint8_t reported[64]; /* what the host was told */
    bool rotated;
    int32_t white_ms, black_ms;
    int running;
    int64_t clock_t, now, last_update_clock;
    uint8_t in[64];
    size_t in_len;
    uint8_t *out;
    size_t out_len, out_cap;
    uint64_t commands;
    /* The board's own event log: entries, oldest first (0x1F00 bytes as on
     * a real board, the oldest entries dropped when full). */
    uint8_t log[EMU_LOG_MAX];
    size_t log_len;
    int64_t last_change;
};

static void log_simple(cr_dgt_emu *e, cr_dgt_ee_kind kind);

cr_dgt_emu *cr_dgt_emu_new(const cr_dgt_emu_config *cfg)
{
    cr_dgt_emu *e = calloc(1, sizeof *e);
    if (!e) {
        return NULL;
    }
    if (cfg) {
        e->cfg = *cfg;
    } else {
        e->cfg.version_major = 1;
        e->cfg.version_minor = 7;
    }
    snprintf(e->serial, sizeof e->serial, "%s", e->cfg.serial ? e->cfg.serial : "00001");
    snprintf(e->long_serial, sizeof e->long_serial, "%s",
             e->cfg.long_serial ? e->cfg.long_serial : "3000000001");
    e->cfg.serial = e->serial;
    e->cfg.long_serial = e->long_serial;
    e->running = CR_CLOCK_STOPPED;
    e->white_ms = e->black_ms = 0;
    log_simple(e, CR_DGT_EE_POWERUP);
    return e;
}

void cr_dgt_emu_free(cr_dgt_emu *e)
{
    if (e) {
        free(e->out);
        free(e);
    }
}

/* Bytes of the log entry that starts with b. */
static size_t entry_len(uint8_t b)
{
    if (b >= 0x40 && b <= 0x5F) {
        return 2;
    }
    return (b >= 0x60 && b <= 0x69) || (b >= 0x70 && b <= 0x79) ? 3 : 1;
}

static void log_entry(cr_dgt_emu *e, const cr_dgt_ee_entry *entry)
{
    uint8_t b[4];
    int n = cr_dgt_ee_encode(entry, b, sizeof b);
    if (n <= 0) {
        return;
    }
    size_t drop = 0;
    while (e->log_len - drop + (size_t)n > EMU_LOG_MAX) {
        drop += entry_len(e->log[drop]); /* cyclic: the oldest whole entries go */
    }
    memmove(e->log, e->log + drop, e->log_len - drop);
    e->log_len -= drop;
    memcpy(e->log + e->log_len, b, (size_t)n);
    e->log_len += (size_t)n;
}

static void log_simple(cr_dgt_emu *e, cr_dgt_ee_kind kind)
{
    cr_dgt_ee_entry entry = {.kind = kind};
    log_entry(e, &entry);
}

static void put(cr_dgt_emu *e, const uint8_t *b, int n)
{
    if (n <= 0 || e->muted) {
        return;
    }
    if (e->out_len + (size_t)n > e->out_cap) {
        size_t cap = e->out_cap ? e->out_cap * 2 : 1024;
        while (cap < e->out_len + (size_t)n) {
            cap *= 2;
        }
        uint8_t *nb = realloc(e->out, cap);
        if (!nb) {
            return; /* out of memory: the message is lost, as on a bad line */
        }
        e->out = nb;
        e->out_cap = cap;
    }
    memcpy(e->out + e->out_len, b, (size_t)n);
    e->out_len += (size_t)n;
}

static bool updating(const cr_dgt_emu *e)
{
    return e->mode == CR_EMU_UPDATE || e->mode == CR_EMU_UPDATE_BRD || e->mode == CR_EMU_UPDATE_NICE;
}

static bool clock_updates(const cr_dgt_emu *e)
{
    return e->mode == CR_EMU_UPDATE || e->mode == CR_EMU_UPDATE_NICE;
}

static void current_clock(const cr_dgt_emu *e, cr_dgt_clock *c)
{
    memset(c, 0, sizeof *c);
    int32_t w = e->white_ms, b = e->black_ms;
    int64_t el = e->now - e->clock_t;
    if (el > 0 && e->running == CR_WHITE) {
        w = (int32_t)(w - el < 0 ? 0 : w - el);
    } else if (el > 0 && e->running == CR_BLACK) {
        b = (int32_t)(b - el < 0 ? 0 : b - el);
    }
    cr_dgt_clock_from_colors(c, e->cfg.white_side, e->rotated, w, b, e->running);
    c->no_clock = e->cfg.no_clock;
    if (c->no_clock) {
        c->left_ms = c->right_ms = 0;
        c->running = false;
    }
}

static void send_clock(cr_dgt_emu *e)
{
    uint8_t b[16];
    cr_dgt_clock c;
    current_clock(e, &c);
    put(e, b, cr_dgt_encode_bwtime(b, sizeof b, &c));
    e->last_update_clock = e->now;
}

static void send_dump(cr_dgt_emu *e)
{
    uint8_t d[64], b[80];
    for (int i = 0; i < 64; i++) {
        d[i] = (uint8_t)cr_dgt_piece_from_cr(e->squares[cr_dgt_index_to_sq(i)]);
    }
    put(e, b, cr_dgt_encode_dump(b, sizeof b, d));
    if (!e->muted) {
        memcpy(e->reported, e->squares, 64);
    }
}

static void send_changes(cr_dgt_emu *e)
{
    if (e->muted || !updating(e)) {
        return;
    }
    uint8_t b[8];
    for (int pass = 0; pass < 2; pass++) { /* lifts first, then placements */
        for (int sq = 0; sq < 64; sq++) {
            if (e->reported[sq] == e->squares[sq] || (pass == 0) != (e->squares[sq] == 0)) {
                continue;
            }
            put(e, b, cr_dgt_encode_field(b, sizeof b, cr_dgt_sq_to_index(sq),
                                          cr_dgt_piece_from_cr(e->squares[sq])));
            e->reported[sq] = e->squares[sq];
        }
    }
}

static void clock_command(cr_dgt_emu *e, const cr_dgt_command *c)
{
    /* The ack first, then (SETNRUN) the new reading. */
    if (clock_updates(e) && !e->cfg.no_clock) {
        uint8_t ack[4] = {0x10, c->sub, 0, 0}, b[16];
        if (c->sub == CR_DGT_CLOCK_VERSION) {
            ack[2] = 0x21; /* 2.1 */
        }
        put(e, b, cr_dgt_encode_ack(b, sizeof b, ack));
    }
    if (c->sub == CR_DGT_CLOCK_SETNRUN && c->len >= 7) {
        const uint8_t *d = c->data;
        int32_t left = ((d[0] * 60 + d[1]) * 60 + d[2]) * 1000;
        int32_t right = ((d[3] * 60 + d[4]) * 60 + d[5]) * 1000;
        bool wl = e->cfg.white_side == CR_DGT_WHITE_LEFT ||
                  (e->cfg.white_side == CR_DGT_WHITE_AUTO && !e->rotated);
        int run = CR_CLOCK_STOPPED;
        if (d[6] & 0x01) {
            run = wl ? CR_WHITE : CR_BLACK;
        } else if (d[6] & 0x02) {
            run = wl ? CR_BLACK : CR_WHITE;
        }
        cr_dgt_emu_set_clock(e, e->now, wl ? left : right, wl ? right : left, run);
    }
}

static void command(cr_dgt_emu *e, const cr_dgt_command *c)
{
    uint8_t b[256];
    e->commands++;
    if (e->mode == CR_EMU_BUS && c->cmd >= 0x40 && c->cmd <= 0x55) {
        e->mode = CR_EMU_IDLE;
    }
    switch (c->cmd) {
    case CR_DGT_SEND_RESET: e->mode = CR_EMU_IDLE; break;
    case CR_DGT_SEND_CLK: send_clock(e); break;
    case CR_DGT_SEND_BRD: send_dump(e); break;
    case CR_DGT_SEND_UPDATE: e->mode = CR_EMU_UPDATE; break;
    case CR_DGT_SEND_UPDATE_BRD: e->mode = CR_EMU_UPDATE_BRD; break;
    case CR_DGT_SEND_UPDATE_NICE: e->mode = CR_EMU_UPDATE_NICE; break;
    case CR_DGT_RETURN_SERIALNR: put(e, b, cr_dgt_encode_serial(b, sizeof b, e->serial)); break;
    case CR_DGT_RETURN_LONG_SERIALNR:
        put(e, b, cr_dgt_encode_long_serial(b, sizeof b, e->long_serial));
        break;
    case CR_DGT_RETURN_BUSADRES: put(e, b, cr_dgt_encode_busaddr(b, sizeof b, atoi(e->serial) & 0x3FFF)); break;
    case CR_DGT_SEND_TRADEMARK:
        put(e, b, cr_dgt_encode_trademark(b, sizeof b, "Digital Game Technology\r\nchessrelay emulator"));
        break;
    case CR_DGT_SEND_VERSION:
        put(e, b, cr_dgt_encode_version(b, sizeof b, e->cfg.version_major, e->cfg.version_minor));
        break;
    case CR_DGT_SEND_BATTERY_STATUS: {
        cr_dgt_battery bat = {.percent = 100, .run_h = -1, .run_min = -1};
        put(e, b, cr_dgt_encode_battery(b, sizeof b, &bat));
        break;
    }
    case CR_DGT_SEND_EE_MOVES: {
        uint8_t *payload = malloc(e->log_len + 1), *msg = malloc(e->log_len + 4);
        if (payload && msg) {
            memcpy(payload, e->log, e->log_len);
            payload[e->log_len] = 0x6B; /* EOF */
            put(e, msg, cr_dgt_encode_msg(msg, e->log_len + 4, CR_DGT_MSG_EE_MOVES, payload, e->log_len + 1));
        }
        free(payload);
        free(msg);
        break;
    }
    case CR_DGT_TO_BUSMODE: e->mode = CR_EMU_BUS; break;
    case CR_DGT_CLOCK_MESSAGE: clock_command(e, c); break;
    default: break; /* LEDs, unknown single bytes: no reply */
    }
    send_changes(e);
}

void cr_dgt_emu_input(cr_dgt_emu *e, int64_t now, const uint8_t *bytes, size_t len)
{
    if (!e || !bytes) {
        return;
    }
    if (now > e->now) {
        e->now = now;
    }
    for (size_t i = 0; i < len; i++) {
        if (e->muted) {
            continue; /* a dead line: commands are lost */
        }
        if (e->in_len >= sizeof e->in) {
            e->in_len = 0;
        }
        e->in[e->in_len++] = bytes[i];
        for (;;) {
            cr_dgt_command c;
            int r = cr_dgt_parse_command(e->in, e->in_len, &c);
            if (r == 0) {
                break;
            }
            size_t used = r < 0 ? 1 : (size_t)r;
            if (r > 0 && e->mode != CR_EMU_BUS) {
                command(e, &c);
            } else if (r > 0 && c.cmd >= 0x40 && c.cmd <= 0x55) {
                command(e, &c); /* a single-board command leaves bus mode */
            }
            memmove(e->in, e->in + used, e->in_len - used);
            e->in_len -= used;
            if (e->in_len == 0) {
                break;
            }
        }
    }
}

void cr_dgt_emu_set_squares(cr_dgt_emu *e, int64_t now, const uint8_t squares[64])
{
    if (!e || !squares) {
        return;
    }
    if (now > e->now) {
        e->now = now;
    }
    /* The log gets every change, the line up or not: lifts first. */
    bool changed = false;
    for (int pass = 0; pass < 2; pass++) {
        for (int sq = 0; sq < 64; sq++) {
            if (e->squares[sq] == squares[sq] || (pass == 0) != (squares[sq] == 0)) {
                continue;
            }
            cr_dgt_ee_entry entry = {.kind = CR_DGT_EE_FIELD,
                                     .index = (uint8_t)cr_dgt_sq_to_index(sq),
                                     .piece = (uint8_t)cr_dgt_piece_from_cr(squares[sq]),
                                     .quick = changed || e->now - e->last_change < 250};
            log_entry(e, &entry);
            changed = true;
        }
    }
    if (changed) {
        e->last_change = e->now;
    }
    memcpy(e->squares, squares, 64);
    int o = cr_dgt_start_orientation(squares);
    if (o != 0) {
        e->rotated = o < 0;
        if (changed) {
            log_simple(e, o < 0 ? CR_DGT_EE_BEGINPOS_ROT : CR_DGT_EE_BEGINPOS);
        }
    }
    send_changes(e);
}

void cr_dgt_emu_set_clock(cr_dgt_emu *e, int64_t now, int32_t white_ms, int32_t black_ms, int running)
{
    if (!e) {
        return;
    }
    if (now > e->now) {
        e->now = now;
    }
    bool lever = running != e->running && running != CR_CLOCK_STOPPED;
    e->white_ms = white_ms;
    e->black_ms = black_ms;
    e->running = running;
    e->clock_t = e->now;
    if (lever && !e->cfg.no_clock) {
        /* The log keeps the clock times when the lever moves. */
        cr_dgt_clock c;
        current_clock(e, &c);
        cr_dgt_ee_entry l = {.kind = CR_DGT_EE_CLOCK, .left = true, .ms = c.left_ms};
        cr_dgt_ee_entry r = {.kind = CR_DGT_EE_CLOCK, .left = false, .ms = c.right_ms};
        log_entry(e, &l);
        log_entry(e, &r);
    }
    if (clock_updates(e)) {
        send_clock(e);
    }
}

void cr_dgt_emu_tick(cr_dgt_emu *e, int64_t now)
{
    if (!e) {
        return;
    }
    if (now > e->now) {
        e->now = now;
    }
    if (e->mode == CR_EMU_UPDATE && e->now - e->last_update_clock >= 1000) {
        send_clock(e);
    }
}

void cr_dgt_emu_set_muted(cr_dgt_emu *e, bool muted)
{
    if (!e) {
        return;
    }
    e->muted = muted;
    e->in_len = 0;
    send_changes(e);
}

void cr_dgt_emu_power_up(cr_dgt_emu *e)
{
    if (!e) {
        return;
    }
    e->mode = CR_EMU_BUS;
    e->in_len = 0;
    e->out_len = 0;
    log_simple(e, CR_DGT_EE_POWERUP);
    memset(e->reported, 0, sizeof e->reported);
}

size_t cr_dgt_emu_take_output(cr_dgt_emu *e, uint8_t *out, size_t max)
{
    if (!e || !out) {
        return 0;
    }
    size_t n = e->out_len < max ? e->out_len : max;
    if (n == 0) {
        return 0; /* e->out may still be NULL */
    }
    memcpy(out, e->out, n);
    memmove(e->out, e->out + n, e->out_len - n);
    e->out_len -= n;
    return n;
}

size_t cr_dgt_emu_pending_output(const cr_dgt_emu *e)
{
    return e ? e->out_len : 0;
}

cr_dgt_emu_mode cr_dgt_emu_mode_get(const cr_dgt_emu *e)
{
    return e ? e->mode : CR_EMU_BUS;
}

uint64_t cr_dgt_emu_commands(const cr_dgt_emu *e)
{
    return e ? e->commands : 0;
}
