/* DGT protocol codec: see dgt.h. */
#include "dgt.h"

#include <stdlib.h>
#include <string.h>

#include "cr/board.h"

struct cr_dgt_parser {
    uint8_t *buf;
    size_t cap, start, end; /* unconsumed bytes are buf[start..end) */
    size_t scanned;         /* payload bytes of the head message checked for bit 7 */
    uint64_t pending_resyncs;
    uint64_t fed, consumed; /* stream positions: bytes fed / skipped or decoded */
    cr_dgt_parser_stats stats;
};

/* Allowed total lengths (header included) per message id, or 0 if unknown. */
static bool length_ok(uint8_t id, size_t length, size_t *max_out)
{
    size_t lo, hi;
    switch (id) {
    case CR_DGT_MSG_BOARD_DUMP: lo = hi = CR_DGT_DUMP_LEN; break;
    case CR_DGT_MSG_BWTIME: lo = hi = 10; break;
    case CR_DGT_MSG_FIELD_UPDATE: lo = hi = 5; break;
    case CR_DGT_MSG_EE_MOVES: lo = 3; hi = 3 + CR_DGT_EE_MOVES_MAX; break;
    case CR_DGT_MSG_BUSADRES: lo = hi = 5; break;
    case CR_DGT_MSG_SERIALNR: lo = 4; hi = 20; break;
    case CR_DGT_MSG_TRADEMARK: lo = 3; hi = 3 + CR_DGT_TEXT_MAX; break;
    case CR_DGT_MSG_VERSION: lo = hi = 5; break;
    case CR_DGT_MSG_BOARD_DUMP_50B:
    case CR_DGT_MSG_BOARD_DUMP_50W: lo = hi = 53; break;
    case CR_DGT_MSG_BATTERY_STATUS: lo = 4; hi = 20; break;
    case CR_DGT_MSG_LONG_SERIALNR: lo = 4; hi = 20; break;
    default: return false;
    }
    if (max_out) {
        *max_out = hi;
    }
    return length >= lo && length <= hi;
}

cr_dgt_parser *cr_dgt_parser_new(void)
{
    cr_dgt_parser *p = calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    p->cap = 256;
    p->buf = malloc(p->cap);
    if (!p->buf) {
        free(p);
        return NULL;
    }
    return p;
}

void cr_dgt_parser_free(cr_dgt_parser *p)
{
    if (p) {
        free(p->buf);
        free(p);
    }
}

void cr_dgt_parser_reset(cr_dgt_parser *p)
{
    if (p) {
        p->consumed += p->end - p->start; /* forgotten bytes count as consumed */
        p->start = p->end = p->scanned = 0;
    }
}

uint64_t cr_dgt_parser_position(const cr_dgt_parser *p)
{
    return p ? p->consumed : 0;
}

int cr_dgt_parser_feed(cr_dgt_parser *p, const uint8_t *buf, size_t len)
{
    if (!p || (!buf && len)) {
        return CR_EINVAL;
    }
    if (len == 0) {
        return 0;
    }
    /* Compact: borrowed pointers from the previous next() die here, as documented. */
    if (p->start > 0) {
        memmove(p->buf, p->buf + p->start, p->end - p->start);
        p->end -= p->start;
        p->start = 0;
    }
    if (len > CR_DGT_PARSER_MAX - p->end) {
        return CR_ENOMEM;
    }
    if (p->end + len > p->cap) {
        size_t cap = p->cap;
        while (cap < p->end + len) {
            cap *= 2;
        }
        uint8_t *nb = realloc(p->buf, cap);
        if (!nb) {
            return CR_ENOMEM;
        }
        p->buf = nb;
        p->cap = cap;
    }
    memcpy(p->buf + p->end, buf, len);
    p->end += len;
    p->fed += len;
    return 0;
}

static void drop(cr_dgt_parser *p, size_t n)
{
    p->start += n;
    p->consumed += n;
    p->scanned = 0;
    p->stats.skipped += n;
    p->stats.resyncs++;
    p->pending_resyncs++;
}

size_t cr_dgt_parser_cut(cr_dgt_parser *p, size_t max_len)
{
    if (!p) {
        return 0;
    }
    /* next() has skipped any garbage: what is left is one message begun. */
    size_t avail = p->end - p->start;
    if (avail == 0) {
        return 0;
    }
    if (avail >= 3) {
        const uint8_t *b = p->buf + p->start;
        size_t length = ((size_t)b[1] << 7) | b[2];
        if (length > max_len) {
            return 0;
        }
    }
    drop(p, avail);
    return avail;
}

int cr_dgt_parser_next(cr_dgt_parser *p, cr_dgt_msg *msg)
{
    if (!p || !msg) {
        return 0;
    }
    for (;;) {
        const uint8_t *b = p->buf + p->start;
        size_t avail = p->end - p->start;
        if (avail == 0) {
            return 0;
        }
        if (!(b[0] & 0x80)) {
            size_t n = 1;
            while (n < avail && !(b[n] & 0x80)) {
                n++;
            }
            drop(p, n);
            continue;
        }
        /* A header byte with bit 7 means the previous header was cut short. */
        if ((avail > 1 && (b[1] & 0x80)) || (avail > 2 && (b[2] & 0x80))) {
            drop(p, 1);
            continue;
        }
        if (avail < 3) {
            return 0;
        }
        size_t length = ((size_t)b[1] << 7) | b[2];
        if (!length_ok(b[0], length, NULL)) {
            drop(p, 1);
            continue;
        }
        size_t lim = avail < length ? avail : length;
        size_t i = p->scanned > 3 ? p->scanned : 3;
        while (i < lim && !(b[i] & 0x80)) {
            i++;
        }
        if (i < lim) {
            drop(p, i); /* truncated: the next message starts at i */
            continue;
        }
        p->scanned = i;
        if (avail < length) {
            return 0;
        }
        if (cr_dgt_decode(b, length, msg) != 1) {
            drop(p, 1);
            continue;
        }
        p->start += length;
        p->consumed += length;
        p->scanned = 0;
        p->stats.messages++;
        return 1;
    }
}

uint64_t cr_dgt_parser_take_resyncs(cr_dgt_parser *p)
{
    if (!p) {
        return 0;
    }
    uint64_t n = p->pending_resyncs;
    p->pending_resyncs = 0;
    return n;
}

cr_dgt_parser_stats cr_dgt_parser_stats_get(const cr_dgt_parser *p)
{
    cr_dgt_parser_stats s = {0};
    if (p) {
        s = p->stats;
    }
    return s;
}

size_t cr_dgt_parser_pending(const cr_dgt_parser *p)
{
    return p ? p->end - p->start : 0;
}

/*----- Decoding one message -----*/

static int bcd(uint8_t v)
{
    int hi = v >> 4, lo = v & 0x0F;
    if (hi > 9 || lo > 9) {
        return -1;
    }
    return hi * 10 + lo;
}

static void decode_text(const uint8_t *s, size_t n, char *out, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < max; i++) {
        uint8_t c = s[i];
        if (c == 0) {
            break;
        }
        out[k++] = (c >= 0x20 && c < 0x7F) || c == '\r' || c == '\n' ? (char)c : '?';
    }
    while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == '\r' || out[k - 1] == '\n')) {
        k--;
    }
    out[k] = '\0';
}

static void decode_bwtime(const uint8_t *d, cr_dgt_msg *msg)
{
    if ((d[0] & 0x0F) == 0x0A || (d[3] & 0x0F) == 0x0A) {
        cr_dgt_ack *a = &msg->u.ack;
        msg->kind = CR_DGT_CLOCK_ACK;
        a->ack[0] = (uint8_t)((d[1] & 0x7F) | ((d[3] << 3) & 0x80));
        a->ack[1] = (uint8_t)((d[2] & 0x7F) | ((d[3] << 2) & 0x80));
        a->ack[2] = (uint8_t)((d[4] & 0x7F) | ((d[0] << 3) & 0x80));
        a->ack[3] = (uint8_t)((d[5] & 0x7F) | ((d[0] << 2) & 0x80));
        a->ok = a->ack[0] == 0x10;
        a->from_clock = (a->ack[1] & 0x80) != 0;
        a->command = a->from_clock ? 0 : (uint8_t)(a->ack[1] & 0x7F);
        return;
    }
    cr_dgt_clock *c = &msg->u.clock;
    msg->kind = CR_DGT_CLOCK;
    memset(c, 0, sizeof *c);
    int rh = d[0] & 0x0F, rm = bcd(d[1]), rs = bcd(d[2]);
    int lh = d[3] & 0x0F, lm = bcd(d[4]), ls = bcd(d[5]);
    c->status = d[6];
    c->running = d[6] & 0x01;
    c->right_high = (d[6] & 0x02) != 0;
    c->battery_low = (d[6] & 0x04) != 0;
    c->no_clock = (d[6] & 0x20) != 0;
    c->right_flag = (d[0] & 0x10) != 0;
    c->left_flag = (d[3] & 0x10) != 0;
    bool zero = true;
    for (int i = 0; i < 7; i++) {
        zero = zero && d[i] == 0;
    }
    bool digits = rh <= 9 && lh <= 9 && rm >= 0 && rm <= 59 && rs >= 0 && rs <= 59 && lm >= 0 &&
                  lm <= 59 && ls >= 0 && ls <= 59;
    c->valid = digits && !zero && !c->no_clock;
    if (digits) {
        c->right_ms = ((rh * 60 + rm) * 60 + rs) * 1000;
        c->left_ms = ((lh * 60 + lm) * 60 + ls) * 1000;
    }
}

int cr_dgt_decode(const uint8_t *buf, size_t len, cr_dgt_msg *msg)
{
    if (!buf || !msg || len < 3 || !(buf[0] & 0x80) || (buf[1] & 0x80) || (buf[2] & 0x80)) {
        return CR_EPROTO;
    }
    size_t length = ((size_t)buf[1] << 7) | buf[2];
    if (length != len || !length_ok(buf[0], length, NULL)) {
        return CR_EPROTO;
    }
    for (size_t i = 3; i < len; i++) {
        if (buf[i] & 0x80) {
            return CR_EPROTO;
        }
    }
    const uint8_t *d = buf + 3;
    size_t n = len - 3;
    memset(msg, 0, sizeof *msg);
    msg->id = buf[0];
    msg->length = len;
    switch (buf[0]) {
    case CR_DGT_MSG_BOARD_DUMP:
        msg->kind = CR_DGT_DUMP;
        for (int i = 0; i < 64; i++) {
            msg->u.squares[i] = d[i] & 0x0F;
        }
        break;
    case CR_DGT_MSG_FIELD_UPDATE:
        if (d[0] >= 64) {
            return CR_EPROTO;
        }
        msg->kind = CR_DGT_FIELD;
        msg->u.field.index = d[0];
        msg->u.field.piece = d[1] & 0x0F;
        break;
    case CR_DGT_MSG_BWTIME:
        decode_bwtime(d, msg);
        break;
    case CR_DGT_MSG_SERIALNR:
        msg->kind = CR_DGT_SERIAL;
        decode_text(d, n, msg->u.text, CR_DGT_TEXT_MAX);
        break;
    case CR_DGT_MSG_LONG_SERIALNR:
        msg->kind = CR_DGT_LONG_SERIAL;
        decode_text(d, n, msg->u.text, CR_DGT_TEXT_MAX);
        break;
    case CR_DGT_MSG_TRADEMARK:
        msg->kind = CR_DGT_TRADEMARK;
        decode_text(d, n, msg->u.text, CR_DGT_TEXT_MAX);
        break;
    case CR_DGT_MSG_VERSION:
        msg->kind = CR_DGT_VERSION;
        msg->u.version.major = d[0];
        msg->u.version.minor = d[1];
        break;
    case CR_DGT_MSG_BUSADRES:
        msg->kind = CR_DGT_BUSADDR;
        msg->u.busaddr = (d[0] << 7) | d[1];
        break;
    case CR_DGT_MSG_BATTERY_STATUS: {
        cr_dgt_battery *b = &msg->u.battery;
        msg->kind = CR_DGT_BATTERY;
        b->percent = d[0] > 100 ? 100 : d[0];
        b->run_h = n > 1 && d[1] != 0x7F ? d[1] : -1;
        b->run_min = n > 2 && d[2] != 0x7F ? d[2] : -1;
        b->charging = n > 8 && (d[8] & 0x01);
        b->discharging = n > 8 && (d[8] & 0x02);
        break;
    }
    case CR_DGT_MSG_EE_MOVES:
        msg->kind = CR_DGT_EE_MOVES;
        msg->u.ee.bytes = d;
        msg->u.ee.len = n;
        break;
    default: /* draughts dumps */
        msg->kind = CR_DGT_DUMP_50;
        msg->u.ee.bytes = d;
        msg->u.ee.len = n;
        break;
    }
    return 1;
}

/*----- Host command encoders -----*/

int cr_dgt_encode_cmd(uint8_t *out, size_t size, uint8_t cmd)
{
    if (!out || cmd < 0x40 || cmd > 0x55) {
        return CR_EINVAL;
    }
    if (size < 1) {
        return CR_ENOSPC;
    }
    out[0] = cmd;
    return 1;
}

int cr_dgt_encode_clock(uint8_t *out, size_t size, uint8_t sub, const uint8_t *data, size_t len)
{
    if (!out || (!data && len) || len > 16) {
        return CR_EINVAL;
    }
    size_t total = 2 + 1 + 1 + len + 1;
    if (size < total) {
        return CR_ENOSPC;
    }
    out[0] = CR_DGT_CLOCK_MESSAGE;
    out[1] = (uint8_t)(total - 2);
    out[2] = 0x03;
    out[3] = sub;
    if (len) {
        memcpy(out + 4, data, len);
    }
    out[4 + len] = 0x00;
    return (int)total;
}

static void hms(int32_t ms, uint8_t *h, uint8_t *m, uint8_t *s)
{
    int32_t sec = ms < 0 ? 0 : ms / 1000;
    if (sec > 9 * 3600 + 59 * 60 + 59) {
        sec = 9 * 3600 + 59 * 60 + 59;
    }
    *h = (uint8_t)(sec / 3600);
    *m = (uint8_t)(sec / 60 % 60);
    *s = (uint8_t)(sec % 60);
}

int cr_dgt_encode_clock_setnrun(uint8_t *out, size_t size, int32_t left_ms, int32_t right_ms,
                                uint8_t mode)
{
    uint8_t d[7];
    hms(left_ms, &d[0], &d[1], &d[2]);
    hms(right_ms, &d[3], &d[4], &d[5]);
    d[6] = mode & 0x0F;
    return cr_dgt_encode_clock(out, size, CR_DGT_CLOCK_SETNRUN, d, sizeof d);
}

int cr_dgt_encode_clock_ascii(uint8_t *out, size_t size, const char *text, int beep)
{
    if (!text || beep < 0 || beep > 15) {
        return CR_EINVAL;
    }
    uint8_t d[9];
    size_t n = strlen(text);
    for (size_t i = 0; i < 8; i++) {
        uint8_t c = i < n ? (uint8_t)text[i] : ' ';
        d[i] = c >= 0x20 && c < 0x7F ? c : ' ';
    }
    d[8] = (uint8_t)beep;
    return cr_dgt_encode_clock(out, size, CR_DGT_CLOCK_ASCII, d, sizeof d);
}

int cr_dgt_encode_clock_end(uint8_t *out, size_t size)
{
    return cr_dgt_encode_clock(out, size, CR_DGT_CLOCK_END, NULL, 0);
}

int cr_dgt_encode_clock_beep(uint8_t *out, size_t size, int units)
{
    if (units < 1 || units > 255) {
        return CR_EINVAL;
    }
    uint8_t d = (uint8_t)units;
    return cr_dgt_encode_clock(out, size, CR_DGT_CLOCK_BEEP, &d, 1);
}

int cr_dgt_encode_clock_button(uint8_t *out, size_t size)
{
    return cr_dgt_encode_clock(out, size, CR_DGT_CLOCK_BUTTON, NULL, 0);
}

int cr_dgt_encode_clock_version(uint8_t *out, size_t size)
{
    return cr_dgt_encode_clock(out, size, CR_DGT_CLOCK_VERSION, NULL, 0);
}

int cr_dgt_encode_leds(uint8_t *out, size_t size, uint8_t pattern, int first, int last)
{
    if (!out || pattern > 2 || first < 0 || first > 64 || last < 0 || last > 64) {
        return CR_EINVAL;
    }
    if (size < 6) {
        return CR_ENOSPC;
    }
    out[0] = CR_DGT_SET_LEDS;
    out[1] = 0x04;
    out[2] = pattern;
    out[3] = (uint8_t)first;
    out[4] = (uint8_t)last;
    out[5] = 0x00;
    return 6;
}

int cr_dgt_parse_command(const uint8_t *buf, size_t len, cr_dgt_command *cmd)
{
    if (!buf || !cmd || len == 0) {
        return 0;
    }
    memset(cmd, 0, sizeof *cmd);
    cmd->cmd = buf[0];
    if (buf[0] >= 0x40 && buf[0] <= 0x55) {
        return 1;
    }
    if (buf[0] != CR_DGT_CLOCK_MESSAGE && buf[0] != CR_DGT_SET_LEDS && buf[0] != 0x63) {
        return CR_EPROTO;
    }
    if (len < 2) {
        return 0;
    }
    size_t size = buf[1];
    if (size < 1 || size > sizeof cmd->data + 2) {
        return CR_EPROTO;
    }
    if (len < 2 + size) {
        return 0;
    }
    const uint8_t *d = buf + 2;
    if (buf[0] == CR_DGT_CLOCK_MESSAGE) {
        if (size < 3 || d[0] != 0x03) {
            return CR_EPROTO;
        }
        cmd->sub = d[1];
        cmd->len = size - 3; /* without 03, sub and the final 00 */
        memcpy(cmd->data, d + 2, cmd->len);
    } else {
        cmd->len = size - 1;
        memcpy(cmd->data, d, cmd->len);
    }
    return (int)(2 + size);
}

/*----- Board message encoders -----*/

int cr_dgt_encode_msg(uint8_t *out, size_t size, uint8_t id, const uint8_t *payload, size_t len)
{
    if (!out || !(id & 0x80) || (!payload && len) || len + 3 > 0x3FFF) {
        return CR_EINVAL;
    }
    for (size_t i = 0; i < len; i++) {
        if (payload[i] & 0x80) {
            return CR_EINVAL;
        }
    }
    if (size < len + 3) {
        return CR_ENOSPC;
    }
    size_t total = len + 3;
    out[0] = id;
    out[1] = (uint8_t)((total >> 7) & 0x7F);
    out[2] = (uint8_t)(total & 0x7F);
    if (len) {
        memcpy(out + 3, payload, len);
    }
    return (int)total;
}

int cr_dgt_encode_dump(uint8_t *out, size_t size, const uint8_t squares[64])
{
    uint8_t d[64];
    for (int i = 0; i < 64; i++) {
        d[i] = squares[i] & 0x0F;
    }
    return cr_dgt_encode_msg(out, size, CR_DGT_MSG_BOARD_DUMP, d, 64);
}

int cr_dgt_encode_field(uint8_t *out, size_t size, int index, int piece)
{
    if (index < 0 || index > 63 || piece < 0 || piece > 15) {
        return CR_EINVAL;
    }
    uint8_t d[2] = {(uint8_t)index, (uint8_t)piece};
    return cr_dgt_encode_msg(out, size, CR_DGT_MSG_FIELD_UPDATE, d, 2);
}

static uint8_t to_bcd(int v)
{
    return (uint8_t)(((v / 10) << 4) | (v % 10));
}

int cr_dgt_encode_bwtime(uint8_t *out, size_t size, const cr_dgt_clock *c)
{
    if (!c) {
        return CR_EINVAL;
    }
    uint8_t rh, rm, rs, lh, lm, ls, d[7];
    hms(c->right_ms, &rh, &rm, &rs);
    hms(c->left_ms, &lh, &lm, &ls);
    d[0] = (uint8_t)(rh | (c->right_flag ? 0x10 : 0));
    d[1] = to_bcd(rm);
    d[2] = to_bcd(rs);
    d[3] = (uint8_t)(lh | (c->left_flag ? 0x10 : 0));
    d[4] = to_bcd(lm);
    d[5] = to_bcd(ls);
    /* The turn bits as a DGT 3000 sets them (the 2015 header: bit3 the
     * right player's turn, bit4 the left's), which host libraries read; we
     * read the lever (bit1) ourselves, as docs/dgt-protocol.md advises. */
    bool turn = c->running && !c->no_clock;
    d[6] = (uint8_t)((c->running ? 0x01 : 0) | (c->right_high ? 0x02 : 0) |
                     (c->battery_low ? 0x04 : 0) | (turn && c->right_high ? 0x08 : 0) |
                     (turn && !c->right_high ? 0x10 : 0) | (c->no_clock ? 0x20 : 0));
    return cr_dgt_encode_msg(out, size, CR_DGT_MSG_BWTIME, d, 7);
}

int cr_dgt_encode_ack(uint8_t *out, size_t size, const uint8_t ack[4])
{
    if (!ack) {
        return CR_EINVAL;
    }
    uint8_t d[7];
    d[0] = (uint8_t)(0x0A | ((ack[2] >> 7) << 4) | ((ack[3] >> 7) << 5));
    d[1] = ack[0] & 0x7F;
    d[2] = ack[1] & 0x7F;
    d[3] = (uint8_t)(0x0A | ((ack[0] >> 7) << 4) | ((ack[1] >> 7) << 5));
    d[4] = ack[2] & 0x7F;
    d[5] = ack[3] & 0x7F;
    d[6] = 0;
    return cr_dgt_encode_msg(out, size, CR_DGT_MSG_BWTIME, d, 7);
}

static int encode_text(uint8_t *out, size_t size, uint8_t id, const char *text, size_t max)
{
    if (!text) {
        return CR_EINVAL;
    }
    size_t n = strlen(text);
    if (n > max) {
        return CR_EINVAL;
    }
    return cr_dgt_encode_msg(out, size, id, (const uint8_t *)text, n);
}

int cr_dgt_encode_serial(uint8_t *out, size_t size, const char *serial)
{
    return encode_text(out, size, CR_DGT_MSG_SERIALNR, serial, 17);
}

int cr_dgt_encode_long_serial(uint8_t *out, size_t size, const char *serial)
{
    return encode_text(out, size, CR_DGT_MSG_LONG_SERIALNR, serial, 17);
}

int cr_dgt_encode_trademark(uint8_t *out, size_t size, const char *text)
{
    return encode_text(out, size, CR_DGT_MSG_TRADEMARK, text, CR_DGT_TEXT_MAX);
}

int cr_dgt_encode_version(uint8_t *out, size_t size, int major, int minor)
{
    if (major < 0 || major > 127 || minor < 0 || minor > 127) {
        return CR_EINVAL;
    }
    uint8_t d[2] = {(uint8_t)major, (uint8_t)minor};
    return cr_dgt_encode_msg(out, size, CR_DGT_MSG_VERSION, d, 2);
}

int cr_dgt_encode_busaddr(uint8_t *out, size_t size, int addr)
{
    if (addr < 0 || addr > 0x3FFF) {
        return CR_EINVAL;
    }
    uint8_t d[2] = {(uint8_t)(addr >> 7), (uint8_t)(addr & 0x7F)};
    return cr_dgt_encode_msg(out, size, CR_DGT_MSG_BUSADRES, d, 2);
}

int cr_dgt_encode_battery(uint8_t *out, size_t size, const cr_dgt_battery *b)
{
    if (!b || b->percent < 0 || b->percent > 100) {
        return CR_EINVAL;
    }
    uint8_t d[9] = {0};
    d[0] = (uint8_t)b->percent;
    d[1] = b->run_h < 0 || b->run_h > 126 ? 0x7F : (uint8_t)b->run_h;
    d[2] = b->run_min < 0 || b->run_min > 59 ? 0x7F : (uint8_t)b->run_min;
    d[8] = (uint8_t)((b->charging ? 1 : 0) | (b->discharging ? 2 : 0));
    return cr_dgt_encode_msg(out, size, CR_DGT_MSG_BATTERY_STATUS, d, sizeof d);
}

/*----- Pieces and orientation -----*/

static const uint8_t dgt_to_cr[16] = {
    CR_NO_PIECE, CR_WP, CR_WR, CR_WN, CR_WB, CR_WK, CR_WQ,
    CR_BP, CR_BR, CR_BN, CR_BB, CR_BK, CR_BQ,
    CR_NO_PIECE, CR_NO_PIECE, CR_NO_PIECE};

int cr_dgt_piece_to_cr(int code)
{
    return code >= 0 && code < 16 ? dgt_to_cr[code] : CR_NO_PIECE;
}

int cr_dgt_piece_from_cr(int piece)
{
    for (int i = 1; i <= 12; i++) {
        if (dgt_to_cr[i] == piece && piece != CR_NO_PIECE) {
            return i;
        }
    }
    return 0;
}

/* Standard or Chess960 start seen with White on ranks 1-2 (sq as given). */
static bool is_start(const uint8_t *sq, bool rotated)
{
    int count[CR_TYPE_NB] = {0};
    for (int s = 0; s < 64; s++) {
        int at = sq[rotated ? 63 - s : s];
        int r = s >> 3, f = s & 7;
        int expect;
        if (r == 1) {
            expect = CR_WP;
        } else if (r == 6) {
            expect = CR_BP;
        } else if (r == 0) {
            if (cr_color_of(at) != CR_WHITE || cr_type_of(at) == CR_NO_TYPE ||
                cr_type_of(at) == CR_PAWN) {
                return false;
            }
            count[cr_type_of(at)]++;
            continue;
        } else if (r == 7) {
            int w = sq[rotated ? 63 - f : f];
            expect = cr_make_piece(CR_BLACK, cr_type_of(w));
        } else {
            expect = CR_NO_PIECE;
        }
        if (at != expect) {
            return false;
        }
    }
    return count[CR_KING] == 1 && count[CR_QUEEN] == 1 && count[CR_ROOK] == 2 &&
           count[CR_BISHOP] == 2 && count[CR_KNIGHT] == 2;
}

int cr_dgt_start_orientation(const uint8_t squares[64])
{
    if (!squares) {
        return 0;
    }
    if (is_start(squares, false)) {
        return 1;
    }
    if (is_start(squares, true)) {
        return -1;
    }
    return 0;
}

/*----- EE log -----*/

static const struct {
    uint8_t code;
    cr_dgt_ee_kind kind;
} ee_singles[] = {
    {0x6A, CR_DGT_EE_POWERUP},   {0x6B, CR_DGT_EE_EOF},          {0x6C, CR_DGT_EE_FOURROWS},
    {0x6D, CR_DGT_EE_EMPTYBOARD}, {0x6E, CR_DGT_EE_DOWNLOADED},  {0x6F, CR_DGT_EE_BEGINPOS},
    {0x7A, CR_DGT_EE_BEGINPOS_ROT}, {0x7B, CR_DGT_EE_START_TAG}, {0x7C, CR_DGT_EE_WATCHDOG},
    {0x7F, CR_DGT_EE_NOP},        {0x00, CR_DGT_EE_NOP},
};

static int ee_two_digits(uint8_t b) { return ((b >> 4) & 7) * 10 + (b & 15); }

size_t cr_dgt_ee_decode(const uint8_t *p, size_t len, cr_dgt_ee_entry *out, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max && p) {
        uint8_t b = p[i];
        cr_dgt_ee_entry *e = &out[n];
        memset(e, 0, sizeof *e);
        if (b >= 0x40 && b <= 0x5F) { /* 010r pppp, index */
            if (i + 2 > len) {
                break;
            }
            e->kind = CR_DGT_EE_FIELD;
            e->piece = b & 0x0F;
            e->quick = (b & 0x10) != 0;
            e->index = p[i + 1] & 63;
            i += 2;
        } else if ((b >= 0x60 && b <= 0x69) || (b >= 0x70 && b <= 0x79)) { /* 011f hhhh, mm, ss */
            if (i + 3 > len) {
                break;
            }
            e->kind = CR_DGT_EE_CLOCK;
            e->left = (b & 0x10) != 0;
            e->ms = (((b & 15) * 60 + ee_two_digits(p[i + 1])) * 60 + ee_two_digits(p[i + 2])) * 1000;
            i += 3;
        } else {
            e->kind = CR_DGT_EE_UNKNOWN;
            for (size_t k = 0; k < sizeof ee_singles / sizeof ee_singles[0]; k++) {
                if (ee_singles[k].code == b) {
                    e->kind = ee_singles[k].kind;
                }
            }
            i++;
        }
        n++;
    }
    return n;
}

int cr_dgt_ee_encode(const cr_dgt_ee_entry *e, uint8_t *out, size_t size)
{
    if (!e || !out) {
        return CR_EINVAL;
    }
    switch (e->kind) {
    case CR_DGT_EE_FIELD:
        if (e->index > 63 || e->piece > 15) {
            return CR_EINVAL;
        }
        if (size < 2) {
            return CR_ENOSPC;
        }
        out[0] = (uint8_t)(0x40 | (e->quick ? 0x10 : 0) | e->piece);
        out[1] = e->index;
        return 2;
    case CR_DGT_EE_CLOCK: {
        int32_t s = e->ms / 1000;
        if (s < 0 || s >= 10 * 3600) {
            return CR_EINVAL;
        }
        if (size < 3) {
            return CR_ENOSPC;
        }
        int h = s / 3600, m = s / 60 % 60, sec = s % 60;
        out[0] = (uint8_t)((e->left ? 0x70 : 0x60) | h);
        out[1] = (uint8_t)((m / 10) << 4 | (m % 10));
        out[2] = (uint8_t)((sec / 10) << 4 | (sec % 10));
        return 3;
    }
    default:
        for (size_t k = 0; k < sizeof ee_singles / sizeof ee_singles[0]; k++) {
            if (ee_singles[k].kind == e->kind) {
                if (size < 1) {
                    return CR_ENOSPC;
                }
                out[0] = ee_singles[k].code;
                return 1;
            }
        }
        return CR_EINVAL;
    }
}
