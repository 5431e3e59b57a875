/* Feed format v1: parsing and writing single lines, and a streaming reader
 * over a FILE (docs/feed-format.md). */
#include "cr/feed.h"
#include "cr/occupancy.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static bool is_sep(char c) { return c == ' ' || c == '\t'; }

static bool id_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

bool cr_feed_board_id_valid(const char *s, size_t len)
{
    if (!s || len == 0 || len > CR_BOARD_ID_MAX) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!id_char(s[i])) {
            return false;
        }
    }
    return true;
}

int64_t cr_feed_parse_clock(const char *s, size_t len)
{
    size_t i = 0;
    int64_t h = 0;
    if (!s || len < 6) {
        return -1;
    }
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (h > 100000) {
            return -1; /* absurd, and keeps the arithmetic far from overflow */
        }
        h = h * 10 + (s[i] - '0');
        i++;
    }
    if (i == 0 || len - i != 6 || s[i] != ':' || s[i + 3] != ':') {
        return -1;
    }
    const char *m = s + i + 1, *sec = s + i + 4;
    for (int k = 0; k < 2; k++) {
        if (m[k] < '0' || m[k] > '9' || sec[k] < '0' || sec[k] > '9') {
            return -1;
        }
    }
    int mm = (m[0] - '0') * 10 + (m[1] - '0');
    int ss = (sec[0] - '0') * 10 + (sec[1] - '0');
    if (mm > 59 || ss > 59) {
        return -1;
    }
    return ((h * 60 + mm) * 60 + ss) * 1000;
}

int cr_feed_format_clock(int64_t ms, char *buf, size_t size)
{
    if (ms < 0) {
        ms = 0;
    }
    int64_t s = ms / 1000;
    int n = snprintf(buf, size, "%" PRId64 ":%02d:%02d", s / 3600, (int)(s / 60 % 60), (int)(s % 60));
    return n < 0 || (size_t)n >= size ? CR_ENOSPC : n;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

/* One field: [*pos, end of field). Advances *pos past the field and the
 * separators after it. Returns the field length (0 at the end of the line). */
static size_t next_field(const char *line, size_t len, size_t *pos, size_t *start)
{
    size_t i = *pos;
    while (i < len && is_sep(line[i])) {
        i++;
    }
    *start = i;
    while (i < len && !is_sep(line[i])) {
        i++;
    }
    size_t flen = i - *start;
    while (i < len && is_sep(line[i])) {
        i++;
    }
    *pos = i;
    return flen;
}

/* A line being read: its text and the position of the next field. */
typedef struct feed_line {
    const char *s;
    size_t len, pos;
} feed_line;

/* "<time> <board>" as nearly every line has them: up to 18 digits (no
 * overflow), separators, an id of id characters ended by a separator or
 * the end. In one pass; false (nothing changed) for anything else, which
 * parse_head reads field by field to say what is wrong. */
static bool parse_head_fast(feed_line *l, cr_feed_event *ev)
{
    const char *line = l->s;
    size_t len = l->len, i = l->pos;
    int64_t t = 0;
    size_t st = i;
    while (i < len && i - st < 18 && line[i] >= '0' && line[i] <= '9') {
        t = t * 10 + (line[i] - '0');
        i++;
    }
    if (i == st || i == len || !is_sep(line[i])) {
        return false;
    }
    while (i < len && is_sep(line[i])) {
        i++;
    }
    st = i;
    while (i < len && id_char(line[i])) {
        i++;
    }
    size_t fl = i - st;
    if (fl == 0 || fl > CR_BOARD_ID_MAX || (i < len && !is_sep(line[i]))) {
        return false;
    }
    while (i < len && is_sep(line[i])) {
        i++;
    }
    ev->t = t;
    memcpy(ev->board, line + st, fl);
    ev->board[fl] = '\0';
    l->pos = i;
    return true;
}

/* "<time> <board>": the first two fields. */
static int parse_head(feed_line *l, cr_feed_event *ev, cr_error *err)
{
    if (parse_head_fast(l, ev)) {
        return 0;
    }
    const char *line = l->s;
    size_t st, fl = next_field(line, l->len, &l->pos, &st);
    int64_t t = 0;
    for (size_t i = 0; i < fl; i++) {
        char c = line[st + i];
        if (c < '0' || c > '9') {
            return cr_error_set(err, CR_EFEED, 0, (int)(st + i) + 1,
                                "timestamp must be a non-negative integer of milliseconds");
        }
        if (t > (INT64_MAX - 9) / 10) {
            return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "timestamp out of range");
        }
        t = t * 10 + (c - '0');
    }
    ev->t = t;
    fl = next_field(line, l->len, &l->pos, &st);
    if (fl == 0) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "missing board id");
    }
    if (!cr_feed_board_id_valid(line + st, fl)) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1,
                            "invalid board id (1 to %d of A-Z a-z 0-9 . _ -)", CR_BOARD_ID_MAX);
    }
    memcpy(ev->board, line + st, fl);
    ev->board[fl] = '\0';
    return 0;
}

/* A placement with '?' squares (occupied, piece unknown: cr/occupancy.h):
 * read with each '?' as a knight (allowed on any square), then those
 * squares marked. Without '?' the plain reader runs unchanged. */
static int read_placement(const char *s, size_t len, uint8_t sq[CR_SQ_NB], cr_error *err)
{
    if (!memchr(s, '?', len)) {
        return cr_placement_read_len(s, len, sq, err);
    }
    char tmp[128];
    memcpy(tmp, s, len);
    for (size_t i = 0; i < len; i++) {
        if (tmp[i] == '?') {
            tmp[i] = 'N';
        }
    }
    int rc = cr_placement_read_len(tmp, len, sq, err);
    if (rc != 0) {
        return rc;
    }
    int rank = 7, file = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '/') {
            rank--;
            file = 0;
        } else if (s[i] >= '1' && s[i] <= '8') {
            file += s[i] - '0';
        } else {
            if (s[i] == '?') {
                sq[cr_square(file, rank)] = CR_OCCUPIED;
            }
            file++;
        }
    }
    return 0;
}

/* The writer's counterpart: '?' for CR_OCCUPIED. */
static int write_placement(const uint8_t sq[CR_SQ_NB], char *buf, size_t size)
{
    if (!cr_occ_has_unknown(sq)) {
        return cr_placement_write(sq, buf, size);
    }
    uint8_t named[CR_SQ_NB];
    for (int i = 0; i < CR_SQ_NB; i++) {
        named[i] = sq[i] == CR_OCCUPIED ? CR_WN : sq[i];
    }
    int n = cr_placement_write(named, buf, size);
    if (n < 0) {
        return n;
    }
    int rank = 7, file = 0;
    for (int i = 0; i < n; i++) {
        if (buf[i] == '/') {
            rank--;
            file = 0;
        } else if (buf[i] >= '1' && buf[i] <= '8') {
            file += buf[i] - '0';
        } else {
            if (sq[cr_square(file, rank)] == CR_OCCUPIED) {
                buf[i] = '?';
            }
            file++;
        }
    }
    return n;
}

static int parse_pos(feed_line *l, cr_feed_event *ev, cr_error *err)
{
    ev->kind = CR_FEED_POS;
    /* The placement is the rest of the line: read at once when it is one
     * (no separator fits in a placement); else field by field below, to
     * say what is wrong. */
    size_t end = l->len;
    while (end > l->pos && is_sep(l->s[end - 1])) {
        end--;
    }
    if (end > l->pos && cr_placement_read_len(l->s + l->pos, end - l->pos, ev->u.squares, NULL) == 0) {
        l->pos = l->len;
        return 1;
    }
    size_t st, fl = next_field(l->s, l->len, &l->pos, &st);
    if (fl == 0) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "pos: missing placement");
    }
    if (fl >= 128) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "pos: placement too long");
    }
    cr_error perr;
    if (read_placement(l->s + st, fl, ev->u.squares, &perr) != 0) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + (perr.column > 0 ? perr.column : 1),
                            "pos: %s", perr.text[0] ? perr.text : "invalid placement");
    }
    if (l->pos < l->len) {
        return cr_error_set(err, CR_EFEED, 0, (int)l->pos + 1, "pos: unexpected text after the placement");
    }
    return 1;
}

static int parse_clock_event(feed_line *l, cr_feed_event *ev, cr_error *err)
{
    ev->kind = CR_FEED_CLOCK;
    int64_t v[2];
    size_t st, fl;
    for (int i = 0; i < 2; i++) {
        fl = next_field(l->s, l->len, &l->pos, &st);
        v[i] = cr_feed_parse_clock(l->s + st, fl);
        if (fl == 0 || v[i] < 0 || v[i] > INT32_MAX) {
            return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "clock: %s time must be H:MM:SS",
                                i == 0 ? "white's" : "black's");
        }
    }
    ev->u.clock.white_ms = (int32_t)v[0];
    ev->u.clock.black_ms = (int32_t)v[1];
    fl = next_field(l->s, l->len, &l->pos, &st);
    char side = fl == 1 ? l->s[st] : 0;
    if (fl != 1 || (side != 'w' && side != 'b' && side != '-')) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "clock: running side must be w, b or -");
    }
    ev->u.clock.running = side == 'w' ? CR_WHITE : side == 'b' ? CR_BLACK : CR_CLOCK_STOPPED;
    if (l->pos < l->len) {
        return cr_error_set(err, CR_EFEED, 0, (int)l->pos + 1, "clock: unexpected text after the running side");
    }
    return 1;
}

static int parse_raw(feed_line *l, cr_feed_event *ev, char *scratch, size_t scratch_size,
                     cr_error *err)
{
    ev->kind = CR_FEED_RAW;
    size_t st, fl = next_field(l->s, l->len, &l->pos, &st);
    if (fl == 0 || fl % 2 != 0) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "raw: expected an even number of hex digits");
    }
    if (!scratch || scratch_size < fl / 2) {
        return cr_error_set(err, CR_ENOSPC, 0, (int)st + 1, "raw: scratch buffer too small");
    }
    for (size_t i = 0; i < fl; i += 2) {
        int hi = hexval(l->s[st + i]), lo = hexval(l->s[st + i + 1]);
        if (hi < 0 || lo < 0) {
            return cr_error_set(err, CR_EFEED, 0, (int)(st + i) + 1 + (hi >= 0),
                                "raw: not a lowercase hex digit");
        }
        scratch[i / 2] = (char)(hi << 4 | lo);
    }
    if (l->pos < l->len) {
        return cr_error_set(err, CR_EFEED, 0, (int)l->pos + 1, "raw: unexpected text after the bytes");
    }
    ev->u.raw.bytes = (const uint8_t *)scratch;
    ev->u.raw.len = fl / 2;
    return 1;
}

static int parse_meta(feed_line *l, cr_feed_event *ev, char *scratch, size_t scratch_size,
                      cr_error *err)
{
    ev->kind = CR_FEED_META;
    size_t st, fl = next_field(l->s, l->len, &l->pos, &st);
    if (fl == 0) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "meta: missing key");
    }
    for (size_t i = 0; i < fl; i++) {
        char c = l->s[st + i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
            return cr_error_set(err, CR_EFEED, 0, (int)(st + i) + 1,
                                "meta: key must be a tag name (A-Z a-z 0-9 _)");
        }
    }
    if (fl > CR_FEED_META_KEY_MAX) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + CR_FEED_META_KEY_MAX + 1,
                            "meta: key longer than %d characters (a tag name)",
                            CR_FEED_META_KEY_MAX);
    }
    size_t vlen = l->len - l->pos;
    while (vlen > 0 && is_sep(l->s[l->pos + vlen - 1])) {
        vlen--;
    }
    if (!scratch || scratch_size < fl + vlen + 2) {
        return cr_error_set(err, CR_ENOSPC, 0, (int)st + 1, "meta: scratch buffer too small");
    }
    memcpy(scratch, l->s + st, fl);
    scratch[fl] = '\0';
    memcpy(scratch + fl + 1, l->s + l->pos, vlen);
    scratch[fl + 1 + vlen] = '\0';
    ev->u.meta.key = scratch;
    ev->u.meta.value = scratch + fl + 1;
    return 1;
}

static bool is_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }

/* Any control character but tab, or DEL? A word with no byte below 0x20
 * and none equal to 0x7F is passed at once (bit tricks: a byte's top bit
 * is set in `lo` or `del` when it may be one; tabs are checked byte by
 * byte). */
static bool has_control(const char *line, size_t len)
{
    const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x, y;
        memcpy(&x, line + i, 8);
        y = x ^ (0x7F * ones);
        uint64_t lo = (x - 0x20 * ones) & ~x & tops;
        uint64_t del = (y - ones) & ~y & tops;
        if (lo | del) {
            for (size_t k = i; k < i + 8; k++) {
                if (is_control((unsigned char)line[k])) {
                    return true;
                }
            }
        }
    }
    for (; i < len; i++) {
        if (is_control((unsigned char)line[i])) {
            return true;
        }
    }
    return false;
}

int cr_feed_parse_line(const char *line, size_t len, cr_feed_event *ev, char *scratch,
                       size_t scratch_size, cr_error *err)
{
    cr_error_clear(err);
    if (!line || !ev) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "no line or event");
    }
    if (len > 0 && line[len - 1] == '\n') {
        len--;
    }
    if (len > 0 && line[len - 1] == '\r') {
        len--;
    }
    size_t first = 0;
    while (first < len && is_sep(line[first])) {
        first++;
    }
    if (first == len || line[first] == '#') {
        return 0;
    }
    /* A line written back could not say the same. Looked for eight bytes
     * at a time; found again byte by byte for the message. */
    bool ctl = has_control(line, len);
    for (size_t i = 0; ctl && i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if (is_control(c)) {
            return cr_error_set(err, CR_EFEED, 0, (int)i + 1, "control character 0x%02x in line", c);
        }
    }
    /* In two parts: one memset of the whole event is a slow `rep stos`. */
    memset(ev, 0, offsetof(cr_feed_event, u));
    memset(&ev->u, 0, sizeof ev->u);
    feed_line l = {line, len, 0};
    int rc = parse_head(&l, ev, err);
    if (rc) {
        return rc;
    }
    size_t st, fl = next_field(line, len, &l.pos, &st);
    const char *k = line + st;
#define KIND_IS(s) (fl == sizeof(s) - 1 && memcmp(k, s, fl) == 0)
    if (fl == 0) {
        return cr_error_set(err, CR_EFEED, 0, (int)st + 1, "missing kind");
    }
    if (KIND_IS("pos")) {
        return parse_pos(&l, ev, err);
    }
    if (KIND_IS("clock")) {
        return parse_clock_event(&l, ev, err);
    }
    if (KIND_IS("raw")) {
        return parse_raw(&l, ev, scratch, scratch_size, err);
    }
    if (KIND_IS("meta")) {
        return parse_meta(&l, ev, scratch, scratch_size, err);
    }
    if (KIND_IS("connect") || KIND_IS("disconnect")) {
        ev->kind = KIND_IS("connect") ? CR_FEED_CONNECT : CR_FEED_DISCONNECT;
        if (l.pos < len) {
            return cr_error_set(err, CR_EFEED, 0, (int)l.pos + 1, "%s takes no arguments",
                                ev->kind == CR_FEED_CONNECT ? "connect" : "disconnect");
        }
        return 1;
    }
#undef KIND_IS
    return cr_error_set(err, CR_EFEED, 0, (int)st + 1,
                        "unknown kind '%.*s' (pos, clock, raw, meta, connect, disconnect)",
                        (int)(fl > 20 ? 20 : fl), k);
}

int cr_feed_format(const cr_feed_event *ev, char *buf, size_t size)
{
    if (!ev || !buf) {
        return CR_EINVAL;
    }
    int n;
    switch (ev->kind) {
    case CR_FEED_POS: {
        char pl[CR_FEN_MAX];
        if (write_placement(ev->u.squares, pl, sizeof pl) < 0) {
            return CR_EINVAL;
        }
        n = snprintf(buf, size, "%" PRId64 " %s pos %s\n", ev->t, ev->board, pl);
        break;
    }
    case CR_FEED_CLOCK: {
        char w[24], b[24];
        cr_feed_format_clock(ev->u.clock.white_ms, w, sizeof w);
        cr_feed_format_clock(ev->u.clock.black_ms, b, sizeof b);
        int r = ev->u.clock.running;
        n = snprintf(buf, size, "%" PRId64 " %s clock %s %s %c\n", ev->t, ev->board, w, b,
                     r == CR_WHITE ? 'w' : r == CR_BLACK ? 'b' : '-');
        break;
    }
    case CR_FEED_RAW: {
        n = snprintf(buf, size, "%" PRId64 " %s raw ", ev->t, ev->board);
        if (n < 0 || (size_t)n >= size || ev->u.raw.len == 0) {
            return CR_ENOSPC;
        }
        size_t need = (size_t)n + 2 * ev->u.raw.len + 1;
        if (need >= size) {
            return CR_ENOSPC;
        }
        static const char hex[] = "0123456789abcdef";
        for (size_t i = 0; i < ev->u.raw.len; i++) {
            buf[n++] = hex[ev->u.raw.bytes[i] >> 4];
            buf[n++] = hex[ev->u.raw.bytes[i] & 15];
        }
        buf[n++] = '\n';
        buf[n] = '\0';
        return n;
    }
    case CR_FEED_META:
        if (!ev->u.meta.key || strpbrk(ev->u.meta.value ? ev->u.meta.value : "", "\r\n")) {
            return CR_EINVAL;
        }
        n = snprintf(buf, size, "%" PRId64 " %s meta %s %s\n", ev->t, ev->board, ev->u.meta.key,
                     ev->u.meta.value ? ev->u.meta.value : "");
        break;
    case CR_FEED_CONNECT:
        n = snprintf(buf, size, "%" PRId64 " %s connect\n", ev->t, ev->board);
        break;
    case CR_FEED_DISCONNECT:
        n = snprintf(buf, size, "%" PRId64 " %s disconnect\n", ev->t, ev->board);
        break;
    default:
        return CR_EINVAL;
    }
    if (n < 0 || (size_t)n >= size) {
        return CR_ENOSPC;
    }
    return n;
}

struct cr_feed_reader {
    FILE *in;
    const char *text;   /* or the whole feed in memory (cr_feed_reader_new_text) */
    size_t text_len, text_pos;
    char *name;
    char *line;
    size_t cap;
    char *scratch;
    size_t scratch_cap;
    int lineno;
    int event_line;
    int64_t last_t;
    bool keep_going;
};

cr_feed_reader *cr_feed_reader_new(FILE *in, const char *name)
{
    cr_feed_reader *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->in = in;
    r->name = strdup(name ? name : "feed");
    if (!r->name) {
        free(r);
        return NULL;
    }
    return r;
}

cr_feed_reader *cr_feed_reader_new_text(const char *text, size_t len, const char *name)
{
    cr_feed_reader *r = cr_feed_reader_new(NULL, name);
    if (r) {
        r->text = text ? text : "";
        r->text_len = text ? len : 0;
    }
    return r;
}

void cr_feed_reader_free(cr_feed_reader *r)
{
    if (r) {
        free(r->name);
        free(r->line);
        free(r->scratch);
        free(r);
    }
}

void cr_feed_reader_set_keep_going(cr_feed_reader *r, bool keep_going)
{
    if (r) {
        r->keep_going = keep_going;
    }
}

int cr_feed_reader_line(const cr_feed_reader *r) { return r ? r->event_line : 0; }

int cr_feed_reader_next(cr_feed_reader *r, cr_feed_event *ev, cr_error *err)
{
    cr_error_clear(err);
    if (!r || !ev || (!r->in && !r->text)) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "no reader");
    }
    for (;;) {
        const char *line;
        ssize_t n;
        if (r->text) {
            /* a line as getline gives it: up to its '\n', or the rest */
            if (r->text_pos >= r->text_len) {
                return 0;
            }
            line = r->text + r->text_pos;
            const char *nl = memchr(line, '\n', r->text_len - r->text_pos);
            n = (ssize_t)(nl ? (size_t)(nl - line) + 1 : r->text_len - r->text_pos);
            r->text_pos += (size_t)n;
        } else {
            errno = 0;
            n = getline(&r->line, &r->cap, r->in);
            if (n < 0) {
                if (ferror(r->in)) {
                    clearerr(r->in);
                    return cr_error_set(err, CR_EIO, r->lineno, 0, "%s: read error", r->name);
                }
                return 0;
            }
            line = r->line;
        }
        r->lineno++;
        if (r->scratch_cap < (size_t)n + 2) {
            char *s = realloc(r->scratch, (size_t)n + 2);
            if (!s) {
                return cr_error_set(err, CR_ENOMEM, r->lineno, 0, "%s:%d: out of memory", r->name, r->lineno);
            }
            r->scratch = s;
            r->scratch_cap = (size_t)n + 2;
        }
        cr_error perr;
        int rc = cr_feed_parse_line(line, (size_t)n, ev, r->scratch, r->scratch_cap, &perr);
        if (rc == 0) {
            continue;
        }
        r->event_line = r->lineno;
        if (rc < 0) {
            return cr_error_set(err, perr.code, r->lineno, perr.column, "%s:%d:%d: %s", r->name, r->lineno,
                                perr.column, perr.text);
        }
        if (ev->t < r->last_t) {
            if (!r->keep_going) {
                return cr_error_set(err, CR_EFEED, r->lineno, 1,
                                    "%s:%d: timestamp %" PRId64 " is before the previous line's %" PRId64,
                                    r->name, r->lineno, ev->t, r->last_t);
            }
            cr_error_set(err, CR_EFEED, r->lineno, 1,
                         "%s:%d: timestamp %" PRId64 " is before the previous line's %" PRId64
                         "; using %" PRId64,
                         r->name, r->lineno, ev->t, r->last_t, r->last_t);
            ev->t = r->last_t;
        }
        r->last_t = ev->t;
        return 1;
    }
}
