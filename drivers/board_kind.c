/* The board interface: kinds, the ops registry, and DGT as one codec (see
 * board_kind.h). The DGT codec is the DGT board state (dgt_board.h) with its
 * POS/CLOCK events queued as readings, so that a reader of any kind sees the
 * same decoding a live DGT link does. */
#include "board_kind.h"

#include <stdlib.h>
#include <string.h>

#include "certabo.h"
#include "dgt_board.h"
#include "millennium.h"

const char *cr_board_kind_name(cr_board_kind k)
{
    switch (k) {
    case CR_BOARD_AUTO: return "auto";
    case CR_BOARD_DGT: return "dgt";
    case CR_BOARD_MILLENNIUM: return "millennium";
    case CR_BOARD_CERTABO: return "certabo";
    default: return "?";
    }
}

int cr_board_kind_parse(const char *s, cr_board_kind *out)
{
    for (int k = CR_BOARD_AUTO; k < CR_BOARD_KIND_NB; k++) {
        if (s && strcmp(s, cr_board_kind_name((cr_board_kind)k)) == 0) {
            *out = (cr_board_kind)k;
            return 0;
        }
    }
    return CR_EINVAL;
}

char cr_board_square_char(int piece)
{
    static const char letters[] = ".PNBRQK?.pnbrqk?";
    if (piece < 0 || piece >= 16) {
        return '.';
    }
    return letters[piece];
}

int cr_board_square_from_char(char c)
{
    static const char letters[] = "PNBRQK";
    if (c == '.') {
        return CR_NO_PIECE;
    }
    if (c == '?') {
        return CR_BOARD_OCCUPIED;
    }
    for (int i = 0; i < 6; i++) {
        if (c == letters[i]) {
            return cr_make_piece(CR_WHITE, i + 1);
        }
        if (c == letters[i] + ('a' - 'A')) {
            return cr_make_piece(CR_BLACK, i + 1);
        }
    }
    return -1;
}

/* Vendor ids from the protocol notes (docs/boards.md). A CP210x or FTDI id
 * is a generic adapter's: the port is probed before it counts as a board. */
static const cr_board_usb_id usb_ids[] = {
    {0x0403, 0x6001, CR_BOARD_DGT, "DGT board (FTDI FT232)"},
    {0x045b, 0x0000, CR_BOARD_DGT, "DGT board (CDC-ACM, vendor id unconfirmed)"},
    {0x10c4, 0xea60, CR_BOARD_CERTABO, "Certabo board (Silicon Labs CP210x)"},
    {0, 0, CR_BOARD_AUTO, NULL},
};

const cr_board_usb_id *cr_board_usb_ids(void)
{
    return usb_ids;
}

const cr_board_usb_id *cr_board_usb_find(uint16_t vid, uint16_t pid)
{
    for (const cr_board_usb_id *u = usb_ids; u->vid; u++) {
        if (u->vid == vid && (u->pid == pid || u->pid == 0)) {
            return u;
        }
    }
    return NULL;
}

int cr_board_outq_init(cr_board_outq *q, size_t cap)
{
    q->buf = malloc(cap);
    q->len = 0;
    q->cap = q->buf ? cap : 0;
    return q->buf ? 0 : CR_ENOMEM;
}

void cr_board_outq_free(cr_board_outq *q)
{
    free(q->buf);
    q->buf = NULL;
    q->len = q->cap = 0;
}

uint8_t *cr_board_outq_tail(cr_board_outq *q, size_t *room)
{
    *room = q->cap - q->len;
    return q->buf + q->len;
}

void cr_board_outq_commit(cr_board_outq *q, size_t n)
{
    q->len += n <= q->cap - q->len ? n : q->cap - q->len;
}

size_t cr_board_outq_take(cr_board_outq *q, uint8_t *out, size_t max)
{
    size_t n = q->len < max ? q->len : max;
    if (n) {
        memcpy(out, q->buf, n);
        memmove(q->buf, q->buf + n, q->len - n);
        q->len -= n;
    }
    return n;
}

/*----- DGT as a codec -----*/

#define DGT_QUEUE 64

typedef struct dgt_codec {
    cr_dgt_board *board;
    cr_board_reading q[DGT_QUEUE];
    size_t head, n;
    uint64_t snapshots, dropped;
} dgt_codec;

static void dgt_codec_event(void *data, const cr_feed_event *ev)
{
    dgt_codec *c = data;
    cr_board_reading r;
    memset(&r, 0, sizeof r);
    if (ev->kind == CR_FEED_POS) {
        r.kind = CR_READING_SNAPSHOT;
        memcpy(r.squares, ev->u.squares, 64);
    } else if (ev->kind == CR_FEED_CLOCK) {
        r.kind = CR_READING_CLOCK;
        r.white_ms = ev->u.clock.white_ms;
        r.black_ms = ev->u.clock.black_ms;
        r.running = ev->u.clock.running;
    } else {
        return;
    }
    if (c->n == DGT_QUEUE) { /* a reader that never drains: keep the newest */
        c->head = (c->head + 1) % DGT_QUEUE;
        c->n--;
        c->dropped++;
    }
    c->q[(c->head + c->n) % DGT_QUEUE] = r;
    c->n++;
}

static void *dgt_codec_create(const void *params)
{
    (void)params;
    dgt_codec *c = calloc(1, sizeof *c);
    if (!c) {
        return NULL;
    }
    c->board = cr_dgt_board_new("board", NULL);
    if (!c->board) {
        free(c);
        return NULL;
    }
    return c;
}

static void dgt_codec_destroy(void *p)
{
    dgt_codec *c = p;
    if (c) {
        cr_dgt_board_free(c->board);
        free(c);
    }
}

static int dgt_codec_feed(void *p, const uint8_t *bytes, size_t len)
{
    dgt_codec *c = p;
    int rc = cr_dgt_board_feed_raw(c->board, 0, bytes, len, dgt_codec_event, c);
    return rc < 0 ? rc : 0;
}

static int dgt_codec_next(void *p, cr_board_reading *out)
{
    dgt_codec *c = p;
    if (c->n == 0) {
        return 0;
    }
    *out = c->q[c->head];
    c->head = (c->head + 1) % DGT_QUEUE;
    c->n--;
    if (out->kind == CR_READING_SNAPSHOT) {
        c->snapshots++;
    }
    return 1;
}

static void dgt_codec_reset(void *p)
{
    dgt_codec *c = p;
    cr_dgt_board_reset_stream(c->board);
}

static cr_board_codec_health dgt_codec_health(const void *p)
{
    const dgt_codec *c = p;
    const cr_dgt_board_info *in = cr_dgt_board_info_get(c->board);
    cr_board_codec_health h;
    memset(&h, 0, sizeof h);
    h.frames = in->messages;
    h.snapshots = c->snapshots;
    h.resyncs = in->resyncs;
    h.skipped = in->skipped;
    h.has_clock = true;
    return h;
}

static size_t dgt_codec_pending(const void *p)
{
    const dgt_codec *c = p;
    return cr_dgt_board_pending(c->board);
}

/* Three one-byte DGT commands in a row. */
static int dgt_encode_3(uint8_t *out, size_t size, uint8_t a, uint8_t b, uint8_t c)
{
    if (size < 3) {
        return CR_ENOSPC;
    }
    out[0] = a;
    out[1] = b;
    out[2] = c;
    return 3;
}

static int dgt_probe_request(uint8_t *out, size_t size)
{
    /* RESET leaves bus mode and stops updates; the serial number answers. */
    return dgt_encode_3(out, size, CR_DGT_SEND_RESET, CR_DGT_RETURN_SERIALNR, CR_DGT_SEND_VERSION);
}

static int dgt_probe_match(const uint8_t *bytes, size_t len)
{
    cr_dgt_parser *p = cr_dgt_parser_new();
    if (!p) {
        return 0;
    }
    int found = 0;
    if (cr_dgt_parser_feed(p, bytes, len) == 0) {
        cr_dgt_msg m;
        while (!found && cr_dgt_parser_next(p, &m) == 1) {
            found = m.kind == CR_DGT_SERIAL || m.kind == CR_DGT_VERSION;
        }
    }
    cr_dgt_parser_free(p);
    return found;
}

static int dgt_encode_start(uint8_t *out, size_t size)
{
    return dgt_encode_3(out, size, CR_DGT_SEND_BRD, CR_DGT_SEND_UPDATE_NICE, CR_DGT_SEND_CLK);
}

static int dgt_encode_poll(uint8_t *out, size_t size)
{
    return cr_dgt_encode_cmd(out, size, CR_DGT_SEND_BRD);
}

static const cr_board_codec_ops dgt_ops = {
    .kind = CR_BOARD_DGT,
    .name = "dgt",
    .serial = {.baud = 9600},
    .create = dgt_codec_create,
    .destroy = dgt_codec_destroy,
    .feed = dgt_codec_feed,
    .next = dgt_codec_next,
    .reset = dgt_codec_reset,
    .health = dgt_codec_health,
    .pending = dgt_codec_pending,
    .probe_request = dgt_probe_request,
    .probe_match = dgt_probe_match,
    .encode_start = dgt_encode_start,
    .encode_poll = dgt_encode_poll,
};

const cr_board_codec_ops *cr_board_codec_ops_get(cr_board_kind k)
{
    switch (k) {
    case CR_BOARD_DGT: return &dgt_ops;
    case CR_BOARD_MILLENNIUM: return &cr_millennium_ops;
    case CR_BOARD_CERTABO: return &cr_certabo_ops;
    default: return NULL;
    }
}

int cr_board_codec_new(cr_board_codec *c, cr_board_kind k, const void *params)
{
    memset(c, 0, sizeof *c);
    c->ops = cr_board_codec_ops_get(k);
    if (!c->ops) {
        return CR_EINVAL;
    }
    c->impl = c->ops->create(params);
    if (!c->impl) {
        c->ops = NULL;
        return CR_ENOMEM;
    }
    return 0;
}

void cr_board_codec_free(cr_board_codec *c)
{
    if (c && c->ops) {
        c->ops->destroy(c->impl);
        c->ops = NULL;
        c->impl = NULL;
    }
}

struct cr_board_params {
    char *dir, *file;
    cr_certabo_params_dir certabo; /* points at dir and file */
};

static char *dup_or_null(const char *s, bool *oom)
{
    char *d = s ? strdup(s) : NULL;
    *oom = *oom || (s && !d);
    return d;
}

cr_board_params *cr_board_params_new(const char *dir, const char *file)
{
    cr_board_params *p = calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    bool oom = false;
    p->dir = dup_or_null(dir, &oom);
    p->file = dup_or_null(file, &oom);
    if (oom) {
        cr_board_params_free(p);
        return NULL;
    }
    p->certabo.dir = p->dir;
    p->certabo.file = p->file;
    return p;
}

void cr_board_params_free(cr_board_params *p)
{
    if (p) {
        free(p->dir);
        free(p->file);
        free(p);
    }
}

const void *cr_board_params_get(void *data, cr_board_kind kind, const char *id)
{
    cr_board_params *p = data;
    if (!p) {
        return NULL;
    }
    switch (kind) {
    case CR_BOARD_CERTABO: return cr_certabo_params_from_dir(&p->certabo, kind, id);
    default: return NULL;
    }
}
