/* Millennium ChessLink codec and emulator: see millennium.h. */
#include "millennium.h"

#include <stdlib.h>
#include <string.h>

#define MLN_BUF_MAX 4096
#define MLN_OUT_MAX 65536

static const char mln_pieces[] = "PNBRQK"; /* cr types 1..6 */

uint8_t cr_mln_parity(uint8_t c7)
{
    c7 &= 0x7F;
    return __builtin_popcount(c7) % 2 == 0 ? (uint8_t)(c7 | 0x80) : c7;
}

bool cr_mln_parity_ok(uint8_t byte)
{
    return __builtin_popcount(byte) % 2 == 1;
}

static const char hexd[] = "0123456789ABCDEF";

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

int cr_mln_encode(uint8_t *out, size_t size, char letter, const char *data, size_t len)
{
    if (!out || (len && !data) || (letter & 0x80)) {
        return CR_EINVAL;
    }
    if (size < len + 3) {
        return CR_ENOSPC;
    }
    uint8_t x = (uint8_t)letter;
    out[0] = cr_mln_parity((uint8_t)letter);
    for (size_t i = 0; i < len; i++) {
        if (data[i] & 0x80) {
            return CR_EINVAL;
        }
        x ^= (uint8_t)data[i];
        out[1 + i] = cr_mln_parity((uint8_t)data[i]);
    }
    out[1 + len] = cr_mln_parity((uint8_t)hexd[x >> 4]);
    out[2 + len] = cr_mln_parity((uint8_t)hexd[x & 15]);
    return (int)(len + 3);
}

int cr_mln_encode_status_request(uint8_t *out, size_t size)
{
    return cr_mln_encode(out, size, 'S', NULL, 0);
}

int cr_mln_encode_version_request(uint8_t *out, size_t size)
{
    return cr_mln_encode(out, size, 'V', NULL, 0);
}

int cr_mln_encode_eeprom_write(uint8_t *out, size_t size, int addr, int value)
{
    if (addr < 0 || addr > 255 || value < 0 || value > 255) {
        return CR_EINVAL;
    }
    char d[4] = {hexd[addr >> 4], hexd[addr & 15], hexd[value >> 4], hexd[value & 15]};
    return cr_mln_encode(out, size, 'W', d, 4);
}

int cr_mln_encode_start(uint8_t *out, size_t size)
{
    int a = cr_mln_encode_eeprom_write(out, size, CR_MLN_EE_SCAN, CR_MLN_SCAN_UNITS);
    if (a < 0) {
        return a;
    }
    int b = cr_mln_encode_eeprom_write(out + a, size - (size_t)a, CR_MLN_EE_REPORTS, CR_MLN_REPORT_MODE);
    if (b < 0) {
        return b;
    }
    int c = cr_mln_encode_status_request(out + a + b, size - (size_t)(a + b));
    return c < 0 ? c : a + b + c;
}

static char square_letter(int piece)
{
    int t = cr_type_of(piece);
    if (piece == CR_NO_PIECE || t < CR_PAWN || t > CR_KING) {
        return '.';
    }
    char c = mln_pieces[t - 1];
    return cr_color_of(piece) == CR_BLACK ? (char)(c + ('a' - 'A')) : c;
}

int cr_mln_encode_status(uint8_t *out, size_t size, const uint8_t squares[64])
{
    char d[64];
    for (int i = 0; i < 64; i++) {
        d[i] = square_letter(squares[i ^ 56]);
    }
    return cr_mln_encode(out, size, 's', d, 64);
}

/*----- Parser -----*/

struct cr_mln_parser {
    bool host;
    uint8_t buf[MLN_BUF_MAX];
    size_t len;
    bool skipping; /* inside a run of dropped bytes (one resync per run) */
    uint64_t consumed;  /* stream position of buf[0] */
    uint64_t bad_until; /* end of the last frame counted bad: retries inside it are not counted */
    cr_mln_stats st;
};

/* Data length of a message by its letter (-1 = no such message). */
static int data_len(bool host, char letter)
{
    if (host) { /* board -> host */
        switch (letter) {
        case 's': return 64;
        case 'v': case 'w': case 'r': return 4;
        case 'l': case 'x': return 0;
        default: return -1;
        }
    }
    switch (letter) { /* host -> board */
    case 'S': case 'V': case 'X': case 'T': return 0;
    case 'R': return 2;
    case 'W': return 4;
    case 'L': return 2 + 81 * 2;
    default: return -1;
    }
}

static bool data_ok(char letter, const char *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (letter == 's') {
            if (d[i] != '.' && cr_board_square_from_char(d[i]) <= 0) {
                return false;
            }
        } else if (hexval(d[i]) < 0) {
            return false;
        }
    }
    return true;
}

cr_mln_parser *cr_mln_parser_new(bool host)
{
    cr_mln_parser *p = calloc(1, sizeof *p);
    if (p) {
        p->host = host;
    }
    return p;
}

void cr_mln_parser_free(cr_mln_parser *p)
{
    free(p);
}

void cr_mln_parser_reset(cr_mln_parser *p)
{
    p->st.skipped += p->len;
    p->consumed += p->len;
    p->len = 0;
    p->skipping = false;
}

int cr_mln_parser_feed(cr_mln_parser *p, const uint8_t *bytes, size_t len)
{
    if (len > MLN_BUF_MAX - p->len) {
        /* Nobody drains, or a flood: keep the newest bytes. */
        p->st.skipped += p->len;
        p->st.resyncs++;
        p->consumed += p->len;
        p->len = 0;
        if (len > MLN_BUF_MAX) {
            p->st.skipped += len - MLN_BUF_MAX;
            p->consumed += len - MLN_BUF_MAX;
            bytes += len - MLN_BUF_MAX;
            len = MLN_BUF_MAX;
        }
        memcpy(p->buf, bytes, len);
        p->len = len;
        return CR_ENOMEM;
    }
    memcpy(p->buf + p->len, bytes, len);
    p->len += len;
    return 0;
}

static void drop1(cr_mln_parser *p)
{
    memmove(p->buf, p->buf + 1, p->len - 1);
    p->len--;
    p->consumed++;
    p->st.skipped++;
    if (!p->skipping) {
        p->skipping = true;
        p->st.resyncs++;
    }
}

/* A frame's bytes are all 7O1 (odd parity in bit 7) or all plain 7-bit
 * ASCII (bit 7 clear), as Bluetooth bridges and several firmwares send:
 * never a mix. */
static bool byte_fits(uint8_t b, bool plain)
{
    return plain ? (b & 0x80) == 0 : cr_mln_parity_ok(b);
}

/* Checks buf[0 .. have) as a frame of need bytes in one of the two forms;
 * returns 1 when it is whole and sound (msg filled), 0 when the bytes so far
 * fit but more must come, -1 when it cannot be a frame of this form. */
static int try_frame(const cr_mln_parser *p, size_t have, size_t need, int dl, bool plain,
                     cr_mln_msg *msg)
{
    for (size_t i = 0; i < have; i++) {
        if (!byte_fits(p->buf[i], plain)) {
            return -1;
        }
    }
    if (have < need) {
        return 0;
    }
    char letter = (char)(p->buf[0] & 0x7F);
    uint8_t x = (uint8_t)letter;
    for (size_t i = 0; i < (size_t)dl; i++) {
        msg->data[i] = (char)(p->buf[1 + i] & 0x7F);
        x ^= (uint8_t)msg->data[i];
    }
    int hi = hexval((char)(p->buf[1 + dl] & 0x7F)), lo = hexval((char)(p->buf[2 + dl] & 0x7F));
    if (hi < 0 || lo < 0 || (uint8_t)(hi << 4 | lo) != x || !data_ok(letter, msg->data, (size_t)dl)) {
        return -1;
    }
    return 1;
}

int cr_mln_parser_next(cr_mln_parser *p, cr_mln_msg *msg)
{
    while (p->len > 0) {
        uint8_t b0 = p->buf[0];
        int dl = data_len(p->host, (char)(b0 & 0x7F));
        bool fresh = p->consumed >= p->bad_until;
        if (dl < 0 || (!cr_mln_parity_ok(b0) && (b0 & 0x80))) {
            if (dl >= 0 && fresh) { /* a letter, with a parity error */
                p->st.parity_errors++;
            }
            drop1(p);
            continue;
        }
        size_t need = (size_t)dl + 3;
        size_t have = p->len < need ? p->len : need;
        /* A byte with bit 7 clear and odd parity fits both forms: try 7O1
         * first, as the protocol defines it, then plain 7-bit. */
        int r = try_frame(p, have, need, dl, false, msg);
        bool plain = false;
        if (r < 0) {
            r = try_frame(p, have, need, dl, true, msg);
            plain = true;
        }
        if (r == 0) {
            return 0;
        }
        if (r < 0) {
            if (fresh) { /* not a retry inside a frame already dropped */
                bool parity = false;
                for (size_t i = 0; i < have; i++) {
                    parity |= (p->buf[i] & 0x80) && !cr_mln_parity_ok(p->buf[i]);
                }
                p->st.parity_errors += parity;
                p->st.bad_frames++;
                p->bad_until = p->consumed + need;
            }
            drop1(p);
            continue;
        }
        msg->letter = (char)(b0 & 0x7F);
        msg->data[dl] = '\0';
        msg->len = (size_t)dl;
        p->st.plain_frames += plain;
        memmove(p->buf, p->buf + need, p->len - need);
        p->len -= need;
        p->consumed += need;
        p->skipping = false;
        p->st.frames++;
        return 1;
    }
    return 0;
}

cr_mln_stats cr_mln_parser_stats(const cr_mln_parser *p)
{
    return p->st;
}

size_t cr_mln_parser_pending(const cr_mln_parser *p)
{
    return p->len;
}

int cr_mln_status_squares(const cr_mln_msg *m, uint8_t squares[64])
{
    if (m->letter != 's' || m->len != 64) {
        return CR_EPROTO;
    }
    for (int i = 0; i < 64; i++) {
        int pc = cr_board_square_from_char(m->data[i]);
        if (pc < 0 || pc == CR_BOARD_OCCUPIED) {
            return CR_EPROTO;
        }
        squares[i ^ 56] = (uint8_t)pc;
    }
    return 0;
}

static int hex2(const char *d)
{
    return hexval(d[0]) << 4 | hexval(d[1]);
}

/*----- The codec (board_kind.h) -----*/

typedef struct mln_codec {
    cr_mln_parser *p;
    uint64_t snapshots;
    int reports; /* report mode the board echoed for EEPROM 02 (-1: none yet) */
} mln_codec;

/* How often to poll a board that echoed report mode r: every scan (24 a
 * second) needs none; off or timed reports would miss a move's steps. */
static int poll_for_mode(int r)
{
    if (r < 0 || (r & 7) >= CR_MLN_REPORT_CHANGE || (r & 7) == CR_MLN_REPORT_EVERY_SCAN) {
        return 0;
    }
    return CR_MLN_POLL_MS;
}

static void *mln_create(const void *params)
{
    (void)params;
    mln_codec *c = calloc(1, sizeof *c);
    if (c && !(c->p = cr_mln_parser_new(true))) {
        free(c);
        c = NULL;
    }
    if (c) {
        c->reports = -1;
    }
    return c;
}

static void mln_destroy(void *p)
{
    mln_codec *c = p;
    if (c) {
        cr_mln_parser_free(c->p);
        free(c);
    }
}

static int mln_feed(void *p, const uint8_t *bytes, size_t len)
{
    mln_codec *c = p;
    return cr_mln_parser_feed(c->p, bytes, len);
}

static int mln_next(void *p, cr_board_reading *out)
{
    mln_codec *c = p;
    cr_mln_msg m;
    while (cr_mln_parser_next(c->p, &m) == 1) {
        if (m.letter == 's' && cr_mln_status_squares(&m, out->squares) == 0) {
            out->kind = CR_READING_SNAPSHOT;
            c->snapshots++;
            return 1;
        }
        if (m.letter == 'w' && m.len == 4 && hex2(m.data) == CR_MLN_EE_REPORTS) {
            c->reports = hex2(m.data + 2); /* the echo: what the board kept */
        }
        /* other acks (l, x), version and EEPROM reads carry no reading */
    }
    return 0;
}

static void mln_reset(void *p)
{
    mln_codec *c = p;
    cr_mln_parser_reset(c->p);
}

static cr_board_codec_health mln_health(const void *p)
{
    const mln_codec *c = p;
    cr_mln_stats st = cr_mln_parser_stats(c->p);
    cr_board_codec_health h;
    memset(&h, 0, sizeof h);
    h.frames = st.frames;
    h.snapshots = c->snapshots;
    h.bad_frames = st.bad_frames;
    h.resyncs = st.resyncs;
    h.skipped = st.skipped;
    h.poll_ms = poll_for_mode(c->reports);
    return h;
}

static size_t mln_pending(const void *p)
{
    const mln_codec *c = p;
    return cr_mln_parser_pending(c->p);
}

static int mln_probe_request(uint8_t *out, size_t size)
{
    int a = cr_mln_encode_version_request(out, size);
    if (a < 0) {
        return a;
    }
    int b = cr_mln_encode_status_request(out + a, size - (size_t)a);
    return b < 0 ? b : a + b;
}

static int mln_probe_match(const uint8_t *bytes, size_t len)
{
    cr_mln_parser *p = cr_mln_parser_new(true);
    if (!p) {
        return 0;
    }
    int found = 0;
    (void)cr_mln_parser_feed(p, bytes, len);
    cr_mln_msg m;
    while (!found && cr_mln_parser_next(p, &m) == 1) {
        found = m.letter == 'v' || m.letter == 's';
    }
    cr_mln_parser_free(p);
    return found;
}

const cr_board_codec_ops cr_millennium_ops = {
    .kind = CR_BOARD_MILLENNIUM,
    .name = "millennium",
    .serial = {.baud = 38400},
    .create = mln_create,
    .destroy = mln_destroy,
    .feed = mln_feed,
    .next = mln_next,
    .reset = mln_reset,
    .health = mln_health,
    .pending = mln_pending,
    .probe_request = mln_probe_request,
    .probe_match = mln_probe_match,
    .encode_start = cr_mln_encode_start,
    .encode_poll = cr_mln_encode_status_request,
};

/*----- Emulator -----*/

struct cr_mln_emu {
    cr_mln_parser *in;
    uint8_t ee[256];
    uint8_t squares[64];
    cr_board_outq out;
    bool muted, host_ready, changed_while_muted, seven_bit, refuse_reports;
    int64_t last_scan;
};

void cr_mln_emu_set_seven_bit(cr_mln_emu *e, bool on)
{
    e->seven_bit = on;
}

void cr_mln_emu_set_refuse_reports(cr_mln_emu *e, bool on)
{
    e->refuse_reports = on;
    if (on) {
        e->ee[CR_MLN_EE_REPORTS] = CR_MLN_REPORT_OFF;
    }
}

/* The n bytes just encoded at tail, as the board's line sends them. */
static void commit_frame(cr_mln_emu *e, uint8_t *tail, int n)
{
    if (n <= 0) {
        return;
    }
    for (int i = 0; e->seven_bit && i < n; i++) {
        tail[i] &= 0x7F;
    }
    cr_board_outq_commit(&e->out, (size_t)n);
}

cr_mln_emu *cr_mln_emu_new(void)
{
    cr_mln_emu *e = calloc(1, sizeof *e);
    if (!e) {
        return NULL;
    }
    e->in = cr_mln_parser_new(false);
    if (!e->in || cr_board_outq_init(&e->out, MLN_OUT_MAX) != 0) {
        cr_mln_emu_free(e);
        return NULL;
    }
    e->ee[CR_MLN_EE_SCAN] = 20;
    e->ee[CR_MLN_EE_REPORTS] = CR_MLN_REPORT_EVERY_SCAN;
    return e;
}

void cr_mln_emu_free(cr_mln_emu *e)
{
    if (e) {
        cr_mln_parser_free(e->in);
        cr_board_outq_free(&e->out);
        free(e);
    }
}

static void emit(cr_mln_emu *e, char letter, const char *data, size_t len)
{
    if (e->muted) {
        return;
    }
    size_t room;
    uint8_t *tail = cr_board_outq_tail(&e->out, &room);
    commit_frame(e, tail, cr_mln_encode(tail, room, letter, data, len));
}

static void emit_status(cr_mln_emu *e)
{
    if (e->muted) {
        return;
    }
    size_t room;
    uint8_t *tail = cr_board_outq_tail(&e->out, &room);
    commit_frame(e, tail, cr_mln_encode_status(tail, room, e->squares));
}

void cr_mln_emu_input(cr_mln_emu *e, int64_t now, const uint8_t *bytes, size_t len)
{
    (void)now;
    if (e->muted) {
        return;
    }
    (void)cr_mln_parser_feed(e->in, bytes, len);
    cr_mln_msg m;
    while (cr_mln_parser_next(e->in, &m) == 1) {
        switch (m.letter) {
        case 'S':
            e->host_ready = true;
            emit_status(e);
            break;
        case 'V':
            emit(e, 'v', "0103", 4);
            break;
        case 'W': {
            int a = hex2(m.data), v = hex2(m.data + 2);
            e->ee[a] = (uint8_t)v;
            if (a == CR_MLN_EE_SCAN && v < 15) {
                e->ee[a] = 20;
            }
            if (a == CR_MLN_EE_REPORTS && e->refuse_reports) {
                e->ee[a] = CR_MLN_REPORT_OFF;
            }
            if (a == CR_MLN_EE_REPORTS && (e->ee[a] & 7) >= CR_MLN_REPORT_CHANGE) {
                e->host_ready = true;
            }
            /* the echo: the address and the value the board kept */
            char kept[4] = {m.data[0], m.data[1], hexd[e->ee[a] >> 4], hexd[e->ee[a] & 15]};
            emit(e, 'w', kept, 4);
            break;
        }
        case 'R': {
            char d[4] = {m.data[0], m.data[1], hexd[e->ee[hex2(m.data)] >> 4],
                         hexd[e->ee[hex2(m.data)] & 15]};
            emit(e, 'r', d, 4);
            break;
        }
        case 'L':
            emit(e, 'l', NULL, 0);
            break;
        case 'X':
            emit(e, 'x', NULL, 0);
            break;
        case 'T':
            cr_mln_emu_power_up(e);
            return;
        default:
            break;
        }
    }
}

static bool on_change(const cr_mln_emu *e)
{
    return (e->ee[CR_MLN_EE_REPORTS] & 7) >= CR_MLN_REPORT_CHANGE;
}

void cr_mln_emu_set_squares(cr_mln_emu *e, int64_t now, const uint8_t squares[64])
{
    (void)now;
    if (memcmp(e->squares, squares, 64) == 0) {
        return;
    }
    memcpy(e->squares, squares, 64);
    if (e->muted) {
        e->changed_while_muted = true;
    } else if (on_change(e)) {
        emit_status(e);
    }
}

void cr_mln_emu_tick(cr_mln_emu *e, int64_t now)
{
    int64_t scan = (int64_t)e->ee[CR_MLN_EE_SCAN] * 2048 / 1000;
    if ((e->ee[CR_MLN_EE_REPORTS] & 7) == CR_MLN_REPORT_EVERY_SCAN && now - e->last_scan >= scan) {
        e->last_scan = now;
        emit_status(e);
    }
}

void cr_mln_emu_set_muted(cr_mln_emu *e, bool muted)
{
    bool was = e->muted;
    e->muted = muted;
    if (was && !muted && e->changed_while_muted && on_change(e)) {
        emit_status(e);
    }
    e->changed_while_muted = false;
}

void cr_mln_emu_power_up(cr_mln_emu *e)
{
    cr_mln_parser_reset(e->in);
    e->out.len = 0;
    e->host_ready = false;
}

size_t cr_mln_emu_take_output(cr_mln_emu *e, uint8_t *out, size_t max)
{
    return cr_board_outq_take(&e->out, out, max);
}

bool cr_mln_emu_host_ready(const cr_mln_emu *e)
{
    return e->host_ready;
}

int cr_mln_emu_eeprom(const cr_mln_emu *e, int addr)
{
    return addr >= 0 && addr < 256 ? e->ee[addr] : -1;
}
