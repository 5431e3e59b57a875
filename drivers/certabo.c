/* Certabo codec, calibration and emulator: see certabo.h. */
#include "certabo.h"

#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 2048
#define VOTE 3
#define EMU_OUT_MAX (1u << 20)

static bool rfid_zero(const cr_certabo_rfid *r)
{
    return !(r->b[0] | r->b[1] | r->b[2] | r->b[3] | r->b[4]);
}

static bool rfid_eq(const cr_certabo_rfid *a, const cr_certabo_rfid *b)
{
    return memcmp(a->b, b->b, 5) == 0;
}

int cr_certabo_piece(const cr_certabo_calibration *cal, const cr_certabo_rfid *r)
{
    if (rfid_zero(r)) {
        return CR_NO_PIECE;
    }
    for (size_t i = 0; cal && i < cal->n; i++) {
        if (rfid_eq(&cal->rfid[i], r)) {
            return cal->piece[i];
        }
    }
    return CR_BOARD_OCCUPIED;
}

/* The calibration position: the start position, spare queens on d3, d6. */
static int cal_piece(int sq)
{
    static const int back[8] = {CR_ROOK, CR_KNIGHT, CR_BISHOP, CR_QUEEN, CR_KING, CR_BISHOP, CR_KNIGHT, CR_ROOK};
    int r = cr_rank_of(sq), f = cr_file_of(sq);
    if (r == 0 || r == 7) {
        return cr_make_piece(r == 0 ? CR_WHITE : CR_BLACK, back[f]);
    }
    if (r == 1 || r == 6) {
        return cr_make_piece(r == 1 ? CR_WHITE : CR_BLACK, CR_PAWN);
    }
    if (sq == CR_SQ_D3) {
        return CR_WQ;
    }
    if (sq == CR_SQ_D6) {
        return CR_BQ;
    }
    return CR_NO_PIECE;
}

int cr_certabo_calibrate(const cr_certabo_rfid squares[64], cr_certabo_calibration *cal,
                         cr_error *err)
{
    memset(cal, 0, sizeof *cal);
    for (int sq = 0; sq < 64; sq++) {
        int want = cal_piece(sq);
        bool empty = rfid_zero(&squares[sq]);
        char name[3] = {(char)('a' + cr_file_of(sq)), (char)('1' + cr_rank_of(sq)), 0};
        if (want == CR_NO_PIECE && !empty) {
            cr_error_set(err, CR_EPROTO, 0, 0, "square %s should be empty for the calibration", name);
            return CR_EPROTO;
        }
        if (want == CR_NO_PIECE) {
            continue;
        }
        if (empty) {
            cr_error_set(err, CR_EPROTO, 0, 0, "no piece read on %s (start position, queens on d3 and d6)",
                         name);
            return CR_EPROTO;
        }
        for (size_t i = 0; i < cal->n; i++) {
            if (rfid_eq(&cal->rfid[i], &squares[sq])) {
                cr_error_set(err, CR_EPROTO, 0, 0, "the piece on %s reads like another one", name);
                return CR_EPROTO;
            }
        }
        cal->rfid[cal->n] = squares[sq];
        cal->piece[cal->n++] = (uint8_t)want;
    }
    return 0;
}

int cr_certabo_calibration_write(FILE *f, const cr_certabo_calibration *cal)
{
    for (size_t i = 0; i < cal->n; i++) {
        const uint8_t *b = cal->rfid[i].b;
        if (fprintf(f, "%c %u %u %u %u %u\n", cr_board_square_char(cal->piece[i]), b[0], b[1], b[2],
                    b[3], b[4]) < 0) {
            return CR_EIO;
        }
    }
    return ferror(f) ? CR_EIO : 0;
}

int cr_certabo_calibration_read(FILE *f, cr_certabo_calibration *cal, cr_error *err)
{
    memset(cal, 0, sizeof *cal);
    char line[256];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        }
        char letter;
        unsigned v[5];
        int pc;
        if (sscanf(line, " %c %u %u %u %u %u", &letter, &v[0], &v[1], &v[2], &v[3], &v[4]) != 6 ||
            (pc = cr_board_square_from_char(letter)) <= 0 || pc == CR_BOARD_OCCUPIED ||
            v[0] > 255 || v[1] > 255 || v[2] > 255 || v[3] > 255 || v[4] > 255 ||
            cal->n == CR_CERTABO_CAL_MAX) {
            cr_error_set(err, CR_EPROTO, 0, 0, "calibration line %d: expected '<piece> n n n n n'", lineno);
            return CR_EPROTO;
        }
        for (int k = 0; k < 5; k++) {
            cal->rfid[cal->n].b[k] = (uint8_t)v[k];
        }
        cal->piece[cal->n++] = (uint8_t)pc;
    }
    if (ferror(f)) {
        cr_error_set(err, CR_EIO, 0, 0, "calibration: read error");
        return CR_EIO;
    }
    return 0;
}

int cr_certabo_calibration_path(char *out, size_t size, const char *dir, const char *id)
{
    int n = snprintf(out, size, "%s/certabo/%s.cal", dir, id);
    return n < 0 || (size_t)n >= size ? CR_ENOSPC : 0;
}

int cr_certabo_calibration_load(const char *path, cr_certabo_calibration *cal, cr_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: cannot open", path);
    }
    int rc = cr_certabo_calibration_read(f, cal, err);
    fclose(f);
    return rc;
}

const void *cr_certabo_params_from_dir(void *data, cr_board_kind kind, const char *id)
{
    cr_certabo_params_dir *d = data;
    if (!d || kind != CR_BOARD_CERTABO) {
        return NULL;
    }
    char path[4096];
    cr_error err;
    if (d->dir && cr_certabo_calibration_path(path, sizeof path, d->dir, id) == 0 &&
        cr_certabo_calibration_load(path, &d->cal, &err) == 0) {
        return &d->cal;
    }
    if (d->file && cr_certabo_calibration_load(d->file, &d->cal, &err) == 0) {
        return &d->cal;
    }
    return NULL;
}

int cr_certabo_parse_line(const char *line, size_t len, cr_certabo_rfid squares[64], bool *occupancy)
{
    if (len < 2 || line[0] != ':') {
        return 0;
    }
    unsigned vals[320];
    size_t n = 0, i = 1;
    while (i < len) {
        while (i < len && line[i] == ' ') {
            i++;
        }
        if (i == len) {
            break;
        }
        if (line[i] < '0' || line[i] > '9' || n == 320) {
            return 0;
        }
        unsigned v = 0;
        int digits = 0;
        while (i < len && line[i] >= '0' && line[i] <= '9') {
            v = v * 10 + (unsigned)(line[i++] - '0');
            if (++digits > 3) {
                return 0;
            }
        }
        if (v > 255 || (i < len && line[i] != ' ')) {
            return 0;
        }
        vals[n++] = v;
    }
    if (n == 320) {
        for (int k = 0; k < 64; k++) {
            for (int j = 0; j < 5; j++) {
                squares[k ^ 56].b[j] = (uint8_t)vals[k * 5 + j];
            }
        }
        *occupancy = false;
        return 1;
    }
    if (n == 8) {
        memset(squares, 0, 64 * sizeof *squares);
        for (int row = 0; row < 8; row++) {
            for (int f = 0; f < 8; f++) {
                if (vals[row] & (0x80u >> f)) {
                    squares[cr_square(f, 7 - row)].b[0] = 1;
                }
            }
        }
        *occupancy = true;
        return 1;
    }
    return 0;
}

/* A 320-number line that lost bytes on the way. The board writes single
 * spaces and numbers 0..255 without leading zeros, so most losses leave a
 * mark: a lost number leaves two spaces (or a space at either end), a lost
 * space runs two numbers together into one too long, too big or starting
 * with 0. Each mark stands for the numbers it lost; when that accounts for
 * all 320, the squares whose five numbers are untouched are still read
 * right (*known has their bits). 0 when the line cannot be aligned. */
static int salvage_line(const char *line, size_t len, cr_certabo_rfid squares[64], uint64_t *known)
{
    unsigned vals[320];
    bool lost[320];
    size_t n = 0, i = 1;
    bool marked = false;
#define PUSH(v, l)                                                                                 \
    do {                                                                                           \
        if (n == 320) {                                                                            \
            return 0;                                                                              \
        }                                                                                          \
        vals[n] = (v);                                                                             \
        lost[n++] = (l);                                                                           \
    } while (0)
    if (i < len && line[i] == ' ') { /* the first number lost */
        PUSH(0, true);
        marked = true;
    }
    while (i < len) {
        if (line[i] == ' ') {
            i++;
            if (i == len || line[i] == ' ') { /* two spaces, or one at the end */
                PUSH(0, true);
                marked = true;
            }
            continue;
        }
        if (line[i] < '0' || line[i] > '9') {
            return 0; /* stray bytes: where they stand says nothing */
        }
        size_t start = i;
        unsigned v = 0;
        while (i < len && line[i] >= '0' && line[i] <= '9') {
            v = i - start < 4 ? v * 10 + (unsigned)(line[i] - '0') : v;
            i++;
        }
        size_t digits = i - start;
        if (digits > 3 || v > 255 || (digits > 1 && line[start] == '0')) {
            PUSH(0, true); /* two numbers run together */
            PUSH(0, true);
            marked = true;
        } else {
            PUSH(v, false);
        }
    }
#undef PUSH
    if (n != 320 || !marked) {
        return 0;
    }
    *known = 0;
    for (int k = 0; k < 64; k++) {
        bool ok = true;
        for (int j = 0; j < 5; j++) {
            squares[k ^ 56].b[j] = (uint8_t)vals[k * 5 + j];
            ok = ok && !lost[k * 5 + j];
        }
        if (ok) {
            *known |= 1ull << (k ^ 56);
        }
    }
    return *known ? 1 : 0;
}

/* ':' n n n ... CRLF (the NUL after it written too, not counted). */
static int format_numbers(char *out, size_t size, const unsigned *v, size_t n)
{
    size_t o = 0;
    if (size < 1) {
        return CR_ENOSPC;
    }
    out[o++] = ':';
    for (size_t i = 0; i < n; i++) {
        int w = snprintf(out + o, size - o, i == 0 ? "%u" : " %u", v[i]);
        if (w < 0 || (size_t)w >= size - o) {
            return CR_ENOSPC;
        }
        o += (size_t)w;
    }
    if (size - o < 3) {
        return CR_ENOSPC;
    }
    memcpy(out + o, "\r\n", 3);
    return (int)(o + 2);
}

int cr_certabo_format_line(char *out, size_t size, const cr_certabo_rfid squares[64])
{
    unsigned v[320];
    for (int k = 0; k < 64; k++) {
        for (int j = 0; j < 5; j++) {
            v[k * 5 + j] = squares[k ^ 56].b[j];
        }
    }
    return format_numbers(out, size, v, 320);
}

int cr_certabo_format_occupancy(char *out, size_t size, const cr_certabo_rfid squares[64])
{
    unsigned v[8] = {0};
    for (int row = 0; row < 8; row++) {
        for (int f = 0; f < 8; f++) {
            if (!rfid_zero(&squares[cr_square(f, 7 - row)])) {
                v[row] |= 0x80u >> f;
            }
        }
    }
    return format_numbers(out, size, v, 8);
}

/*----- Reader -----*/

struct cr_certabo_reader {
    cr_certabo_calibration cal;
    bool have_cal;
    char line[LINE_MAX_LEN];
    size_t len;
    bool in_line, overlong;
    cr_certabo_rfid frames[VOTE][64];
    uint64_t known[VOTE]; /* the squares each frame read (a damaged line: not all) */
    size_t nframes;
    cr_certabo_rfid voted[64];
    uint64_t have;        /* squares voted at least once */
    bool have_voted, occupancy;
    uint8_t squares[64], emitted[64];
    bool have_emitted, ready;
    cr_certabo_stats st;
};

cr_certabo_reader *cr_certabo_reader_new(const cr_certabo_calibration *cal)
{
    cr_certabo_reader *r = calloc(1, sizeof *r);
    if (r && cal) {
        r->cal = *cal;
        r->have_cal = true;
    }
    return r;
}

void cr_certabo_reader_free(cr_certabo_reader *r)
{
    free(r);
}

void cr_certabo_reader_reset(cr_certabo_reader *r)
{
    r->st.skipped += r->len;
    r->len = 0;
    r->in_line = r->overlong = false;
    r->nframes = 0; /* votes start afresh: the board may have changed meanwhile */
}

/* An RFID the table does not know, on a calibrated board: far more often a
 * misread than a piece (a lost digit gives the same wrong number again now
 * and then), so it needs every frame of the window. */
static bool needs_all(const cr_certabo_reader *r, const cr_certabo_rfid *v)
{
    return r->have_cal && !r->occupancy && cr_certabo_piece(&r->cal, v) == CR_BOARD_OCCUPIED;
}

static void vote(cr_certabo_reader *r)
{
    bool changed = false;
    for (int sq = 0; sq < 64; sq++) {
        uint64_t bit = 1ull << sq;
        for (size_t a = 0; a < r->nframes; a++) {
            if (!(r->known[a] & bit)) {
                continue;
            }
            size_t same = 0;
            for (size_t b = 0; b < r->nframes; b++) {
                same += (r->known[b] & bit) && rfid_eq(&r->frames[a][sq], &r->frames[b][sq]);
            }
            /* a majority of VOTE frames; a square's first reading alone counts
             * at start */
            bool first = !(r->have & bit) && a == r->nframes - 1;
            bool taken = needs_all(r, &r->frames[a][sq]) ? same == VOTE : same * 2 > VOTE || first;
            if (taken) {
                if (!rfid_eq(&r->voted[sq], &r->frames[a][sq]) || !(r->have & bit)) {
                    r->voted[sq] = r->frames[a][sq];
                    r->have |= bit;
                    changed = true;
                }
                break;
            }
        }
    }
    if (r->have != UINT64_MAX) {
        return; /* no snapshot before every square was read */
    }
    r->have_voted = true;
    if (!changed && r->have_emitted) {
        return;
    }
    for (int sq = 0; sq < 64; sq++) {
        r->squares[sq] = r->occupancy ? (rfid_zero(&r->voted[sq]) ? CR_NO_PIECE : CR_BOARD_OCCUPIED)
                                      : (uint8_t)cr_certabo_piece(r->have_cal ? &r->cal : NULL,
                                                                  &r->voted[sq]);
    }
    if (!r->have_emitted || memcmp(r->squares, r->emitted, 64) != 0) {
        r->ready = true;
    }
}

static void end_line(cr_certabo_reader *r)
{
    size_t len = r->len;
    if (len > 0 && r->line[len - 1] == '\r') {
        len--;
    }
    cr_certabo_rfid sq[64];
    bool occ = false;
    uint64_t known = UINT64_MAX;
    if (!r->overlong && (cr_certabo_parse_line(r->line, len, sq, &occ) == 1 ||
                         salvage_line(r->line, len, sq, &known) == 1)) {
        r->st.frames++;
        if (known != UINT64_MAX) {
            r->st.salvaged++;
        }
        r->occupancy = occ;
        if (r->nframes == VOTE) { /* oldest first: drop it */
            memmove(r->frames[0], r->frames[1], (VOTE - 1) * sizeof r->frames[0]);
            memmove(&r->known[0], &r->known[1], (VOTE - 1) * sizeof r->known[0]);
            r->nframes--;
        }
        memcpy(r->frames[r->nframes], sq, sizeof sq);
        r->known[r->nframes++] = known;
        vote(r);
    } else {
        r->st.bad_frames++;
        r->st.resyncs++;
        r->st.skipped += r->len;
    }
    r->len = 0;
    r->in_line = r->overlong = false;
}

int cr_certabo_reader_feed(cr_certabo_reader *r, const uint8_t *bytes, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = (char)bytes[i];
        if (!r->in_line) {
            if (c == ':') {
                r->in_line = true;
                r->line[r->len++] = c;
            } else if (c != '\r' && c != '\n') {
                r->st.skipped++;
            }
            continue;
        }
        if (c == '\n') {
            end_line(r);
            continue;
        }
        if (c == ':') { /* a new line began: the one before lost its end */
            if (r->len > 0 && r->line[r->len - 1] == '\r') {
                end_line(r); /* only the LF was lost: the line is whole */
                r->in_line = true;
            } else {
                r->st.bad_frames++;
                r->st.resyncs++;
                r->st.skipped += r->len;
                r->len = 0;
                r->overlong = false;
            }
        }
        if (r->len < LINE_MAX_LEN) {
            r->line[r->len++] = c;
        } else {
            r->overlong = true;
        }
    }
    return 0;
}

int cr_certabo_reader_next(cr_certabo_reader *r, uint8_t squares[64])
{
    if (!r->ready) {
        return 0;
    }
    r->ready = false;
    memcpy(squares, r->squares, 64);
    memcpy(r->emitted, r->squares, 64);
    r->have_emitted = true;
    r->st.snapshots++;
    return 1;
}

bool cr_certabo_reader_rfids(const cr_certabo_reader *r, cr_certabo_rfid squares[64])
{
    if (!r->have_voted) {
        return false;
    }
    memcpy(squares, r->voted, sizeof r->voted);
    return true;
}

cr_certabo_stats cr_certabo_reader_stats(const cr_certabo_reader *r)
{
    return r->st;
}

size_t cr_certabo_reader_pending(const cr_certabo_reader *r)
{
    return r->len;
}

/*----- The codec (board_kind.h) -----*/

static void *cb_create(const void *params)
{
    return cr_certabo_reader_new(params);
}

static void cb_destroy(void *c)
{
    cr_certabo_reader_free(c);
}

static int cb_feed(void *c, const uint8_t *bytes, size_t len)
{
    return cr_certabo_reader_feed(c, bytes, len);
}

static int cb_next(void *c, cr_board_reading *out)
{
    if (cr_certabo_reader_next(c, out->squares) != 1) {
        return 0;
    }
    out->kind = CR_READING_SNAPSHOT;
    return 1;
}

static void cb_reset(void *c)
{
    cr_certabo_reader_reset(c);
}

static cr_board_codec_health cb_health(const void *c)
{
    cr_certabo_stats st = cr_certabo_reader_stats(c);
    cr_board_codec_health h;
    memset(&h, 0, sizeof h);
    h.frames = st.frames;
    h.snapshots = st.snapshots;
    h.bad_frames = st.bad_frames;
    h.resyncs = st.resyncs;
    h.skipped = st.skipped;
    return h;
}

static size_t cb_pending(const void *c)
{
    return cr_certabo_reader_pending(c);
}

/* LEDs off: 8 bytes, a bit per square. It also tells the board a host is there. */
static int cb_leds_off(uint8_t *out, size_t size)
{
    if (size < 8) {
        return CR_ENOSPC;
    }
    memset(out, 0, 8);
    return 8;
}

static int cb_none(uint8_t *out, size_t size)
{
    (void)out;
    (void)size;
    return 0;
}

static int cb_probe_match(const uint8_t *bytes, size_t len)
{
    cr_certabo_reader *r = cr_certabo_reader_new(NULL);
    if (!r) {
        return 0;
    }
    (void)cr_certabo_reader_feed(r, bytes, len);
    int found = cr_certabo_reader_stats(r).frames > 0;
    cr_certabo_reader_free(r);
    return found;
}

const cr_board_codec_ops cr_certabo_ops = {
    .kind = CR_BOARD_CERTABO,
    .name = "certabo",
    .serial = {.baud = 38400},
    .create = cb_create,
    .destroy = cb_destroy,
    .feed = cb_feed,
    .next = cb_next,
    .reset = cb_reset,
    .health = cb_health,
    .pending = cb_pending,
    .probe_request = cb_leds_off,
    .probe_match = cb_probe_match,
    .encode_start = cb_leds_off,
    .encode_poll = cb_none,
};

/*----- Emulator -----*/

#define EMU_COPIES 10

void cr_certabo_emu_rfid(int piece, int k, cr_certabo_rfid *out)
{
    /* Any fixed, distinct, non-zero numbers do: these look like tag ids. */
    out->b[0] = (uint8_t)(48 + piece);
    out->b[1] = (uint8_t)(17 + k);
    out->b[2] = (uint8_t)(201 - 7 * piece);
    out->b[3] = (uint8_t)(99 + 13 * k);
    out->b[4] = (uint8_t)(5 + piece * EMU_COPIES + k);
}

void cr_certabo_emu_calibration(cr_certabo_calibration *cal)
{
    memset(cal, 0, sizeof *cal);
    for (int c = CR_WHITE; c <= CR_BLACK; c++) {
        for (int t = CR_PAWN; t <= CR_KING; t++) {
            for (int k = 0; k < EMU_COPIES; k++) {
                int p = cr_make_piece(c, t);
                cr_certabo_emu_rfid(p, k, &cal->rfid[cal->n]);
                cal->piece[cal->n++] = (uint8_t)p;
            }
        }
    }
}

struct cr_certabo_emu {
    bool occupancy, muted, host_ready;
    int period_ms;
    int64_t last;
    cr_certabo_rfid squares[64];
    cr_board_outq out;
};

cr_certabo_emu *cr_certabo_emu_new(bool occupancy, int period_ms)
{
    cr_certabo_emu *e = calloc(1, sizeof *e);
    if (!e) {
        return NULL;
    }
    if (cr_board_outq_init(&e->out, EMU_OUT_MAX) != 0) {
        free(e);
        return NULL;
    }
    e->occupancy = occupancy;
    e->period_ms = period_ms > 0 ? period_ms : 100;
    e->last = INT64_MIN / 2;
    return e;
}

void cr_certabo_emu_free(cr_certabo_emu *e)
{
    if (e) {
        cr_board_outq_free(&e->out);
        free(e);
    }
}

void cr_certabo_emu_input(cr_certabo_emu *e, const uint8_t *bytes, size_t len)
{
    (void)bytes;
    if (e->muted) {
        return;
    }
    /* An LED command is 8 bytes written at once; the probes of the other
     * kinds of board (a few bytes each, a second apart) are none. */
    if (len >= 8) {
        e->host_ready = true;
    }
}

void cr_certabo_emu_set_squares(cr_certabo_emu *e, const uint8_t squares[64])
{
    int seen[16] = {0};
    for (int sq = 0; sq < 64; sq++) {
        int p = squares[sq] & 15;
        if (p == CR_NO_PIECE || cr_type_of(p) > CR_KING) {
            memset(&e->squares[sq], 0, sizeof e->squares[sq]);
        } else {
            int k = seen[p] < EMU_COPIES ? seen[p] : EMU_COPIES - 1;
            seen[p]++;
            cr_certabo_emu_rfid(p, k, &e->squares[sq]);
        }
    }
}

void cr_certabo_emu_tick(cr_certabo_emu *e, int64_t now)
{
    if (e->muted || now - e->last < e->period_ms) {
        return;
    }
    e->last = now;
    size_t room;
    char *tail = (char *)cr_board_outq_tail(&e->out, &room);
    int n = e->occupancy ? cr_certabo_format_occupancy(tail, room, e->squares)
                         : cr_certabo_format_line(tail, room, e->squares);
    if (n > 0) {
        cr_board_outq_commit(&e->out, (size_t)n);
    }
}

void cr_certabo_emu_set_muted(cr_certabo_emu *e, bool muted)
{
    e->muted = muted;
}

void cr_certabo_emu_power_up(cr_certabo_emu *e)
{
    e->out.len = 0;
    e->host_ready = false;
}

size_t cr_certabo_emu_take_output(cr_certabo_emu *e, uint8_t *out, size_t max)
{
    return cr_board_outq_take(&e->out, out, max);
}

bool cr_certabo_emu_host_ready(const cr_certabo_emu *e)
{
    return e->host_ready;
}
