/* Per-board state: see dgt_board.h. */
#include "dgt_board.h"

#include <stdlib.h>
#include <string.h>

#define RECENT_FIELDS 8

struct cr_dgt_board {
    char id[CR_BOARD_ID_MAX + 1];
    cr_dgt_board_config cfg;
    cr_dgt_parser *parser;
    cr_dgt_board_info info;
    bool want_dump;
    bool clock_emitted;
    int32_t last_white, last_black;
    int last_running;
    /* Clock side learning (AUTO): who placed a piece last, who pressed. */
    int last_placed_color;  /* -1 none */
    bool placed_since_press;
    int prev_side;          /* running side of the last reading: 0 left, 1 right, -1 stopped/none */
    int votes_same, votes_inverted;
    /* The last field changes received (index, DGT piece code), a ring, and
     * a copy made when the stream broke: where to take up the board's log. */
    uint8_t recent[RECENT_FIELDS][2];
    int nrecent, recent_head;
    uint8_t gap_tail[RECENT_FIELDS][2]; /* oldest first */
    int gap_len;
    bool gap_pending;
    int64_t rx_t; /* t of the last bytes fed */
};

bool cr_dgt_valid_id(const char *s)
{
    if (!s) {
        return false;
    }
    size_t n = strlen(s);
    if (n < 1 || n > CR_BOARD_ID_MAX) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

cr_dgt_board *cr_dgt_board_new(const char *id, const cr_dgt_board_config *cfg)
{
    if (!cr_dgt_valid_id(id)) {
        return NULL;
    }
    cr_dgt_board *b = calloc(1, sizeof *b);
    if (!b) {
        return NULL;
    }
    b->parser = cr_dgt_parser_new();
    if (!b->parser) {
        free(b);
        return NULL;
    }
    strcpy(b->id, id);
    if (cfg) {
        b->cfg = *cfg;
    }
    b->info.version_major = b->info.version_minor = -1;
    b->info.battery_percent = -1;
    b->info.busaddr = -1;
    b->info.last_t = -1;
    b->last_placed_color = -1;
    b->prev_side = -1;
    return b;
}

void cr_dgt_board_free(cr_dgt_board *b)
{
    if (b) {
        cr_dgt_parser_free(b->parser);
        free(b);
    }
}

int cr_dgt_board_set_id(cr_dgt_board *b, const char *id)
{
    if (!b || !cr_dgt_valid_id(id)) {
        return CR_EINVAL;
    }
    strcpy(b->id, id);
    return 0;
}

const char *cr_dgt_board_id(const cr_dgt_board *b)
{
    return b ? b->id : "";
}

bool cr_dgt_board_take_want_dump(cr_dgt_board *b)
{
    if (!b) {
        return false;
    }
    bool w = b->want_dump;
    b->want_dump = false;
    return w;
}

void cr_dgt_board_reset_stream(cr_dgt_board *b)
{
    if (b) {
        cr_dgt_parser_reset(b->parser);
        b->clock_emitted = false;
        b->gap_len = b->nrecent;
        for (int k = 0; k < b->nrecent; k++) {
            int i = (b->recent_head - b->nrecent + k + RECENT_FIELDS) % RECENT_FIELDS;
            memcpy(b->gap_tail[k], b->recent[i], 2);
        }
        b->gap_pending = b->gap_len >= 2;
    }
}

bool cr_dgt_board_gap_pending(const cr_dgt_board *b) { return b && b->gap_pending; }

const cr_dgt_board_info *cr_dgt_board_info_get(const cr_dgt_board *b)
{
    return b ? &b->info : NULL;
}

size_t cr_dgt_board_pending(const cr_dgt_board *b)
{
    return b ? cr_dgt_parser_pending(b->parser) : 0;
}

static bool white_is_left(cr_dgt_white_side side, bool rotated)
{
    switch (side) {
    case CR_DGT_WHITE_LEFT: return true;
    case CR_DGT_WHITE_RIGHT: return false;
    default: return !rotated;
    }
}

void cr_dgt_clock_to_colors(const cr_dgt_clock *c, cr_dgt_white_side side, bool rotated,
                            int32_t *white_ms, int32_t *black_ms, int *running)
{
    bool wl = white_is_left(side, rotated);
    *white_ms = wl ? c->left_ms : c->right_ms;
    *black_ms = wl ? c->right_ms : c->left_ms;
    if (!c->running) {
        *running = CR_CLOCK_STOPPED;
    } else {
        bool right_runs = c->right_high;
        *running = right_runs == wl ? CR_BLACK : CR_WHITE;
    }
}

void cr_dgt_clock_from_colors(cr_dgt_clock *c, cr_dgt_white_side side, bool rotated,
                              int32_t white_ms, int32_t black_ms, int running)
{
    bool wl = white_is_left(side, rotated);
    c->left_ms = wl ? white_ms : black_ms;
    c->right_ms = wl ? black_ms : white_ms;
    c->running = running == CR_WHITE || running == CR_BLACK;
    if (c->running) {
        bool white_runs = running == CR_WHITE;
        c->right_high = white_runs != wl;
    }
}

/* A feed event of this board at feed time t, its payload left zeroed. */
static void event_init(cr_feed_event *ev, const cr_dgt_board *b, int64_t t, cr_feed_kind kind)
{
    memset(ev, 0, sizeof *ev);
    ev->t = t;
    strcpy(ev->board, b->id);
    ev->kind = kind;
}

static void emit_pos(cr_dgt_board *b, int64_t t, cr_dgt_event_cb cb, void *data);

static void remember_field(cr_dgt_board *b, uint8_t index, uint8_t piece)
{
    b->recent[b->recent_head][0] = index;
    b->recent[b->recent_head][1] = piece;
    b->recent_head = (b->recent_head + 1) % RECENT_FIELDS;
    if (b->nrecent < RECENT_FIELDS) {
        b->nrecent++;
    }
}

/* Sets one square from a field change; emits POS if the image changed. */
static void apply_field(cr_dgt_board *b, int64_t t, uint8_t index, uint8_t piece, cr_dgt_event_cb cb, void *data)
{
    cr_dgt_board_info *in = &b->info;
    int sq = cr_dgt_index_to_sq(index);
    uint8_t pc = (uint8_t)cr_dgt_piece_to_cr(piece);
    if (in->squares[sq] != pc) {
        in->squares[sq] = pc;
        if (pc != CR_NO_PIECE) {
            b->last_placed_color = cr_color_of(pc);
            b->placed_since_press = true;
        }
        emit_pos(b, t, cb, data);
    }
}

/* The board's log after a gap: find the last changes the host had before
 * it (the latest place where they stand in a row), replay what follows. */
static void replay_log(cr_dgt_board *b, int64_t t, const uint8_t *bytes, size_t len, cr_dgt_event_cb cb,
                       void *data)
{
    cr_dgt_ee_entry *e = malloc((len + 1) * sizeof *e);
    if (!e) {
        return;
    }
    size_t n = cr_dgt_ee_decode(bytes, len, e, len + 1), nf = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].kind == CR_DGT_EE_FIELD) {
            e[nf++] = e[i]; /* the field changes, in order */
        }
    }
    int L = b->gap_len;
    size_t from = 0;
    bool found = false;
    for (size_t j = nf; j >= (size_t)L && !found; j--) {
        found = true;
        for (int k = 0; k < L && found; k++) {
            const cr_dgt_ee_entry *x = &e[j - (size_t)L + (size_t)k];
            found = x->index == b->gap_tail[k][0] && (x->piece & 0x0F) == (b->gap_tail[k][1] & 0x0F);
        }
        if (found) {
            from = j;
        }
    }
    if (found) {
        for (size_t i = from; i < nf; i++) {
            remember_field(b, e[i].index, e[i].piece);
            apply_field(b, t, e[i].index, e[i].piece, cb, data);
            b->info.ee_replayed++;
        }
    }
    free(e);
}

static void emit_pos(cr_dgt_board *b, int64_t t, cr_dgt_event_cb cb, void *data)
{
    int o = cr_dgt_start_orientation(b->info.squares);
    if (o != 0) {
        b->info.rotated = o < 0;
    }
    if (!cb) {
        return;
    }
    cr_feed_event ev;
    event_init(&ev, b, t, CR_FEED_POS);
    memcpy(ev.u.squares, b->info.squares, 64);
    cb(data, &ev);
}

/* AUTO clock sides: a press ends the presser's move, so the presser should
 * have the colour of the piece placed last. Net 3 presses against the
 * current mapping swap it (recordings made with the other convention). */
static void learn_sides(cr_dgt_board *b, const cr_dgt_clock *c)
{
    int side = c->running ? (c->right_high ? 1 : 0) : -1;
    if (b->prev_side >= 0 && side >= 0 && side != b->prev_side && b->placed_since_press &&
        b->last_placed_color >= 0) {
        bool wl = !b->info.rotated != b->info.clock_swapped;
        int presser = (b->prev_side == 0) == wl ? CR_WHITE : CR_BLACK;
        if (presser == b->last_placed_color) {
            b->votes_same++;
        } else {
            b->votes_inverted++;
        }
        b->placed_since_press = false;
        if (b->votes_inverted - b->votes_same >= 3) {
            b->info.clock_swapped = !b->info.clock_swapped;
            b->votes_same = b->votes_inverted = 0;
        }
    }
    if (side >= 0 && side != b->prev_side) {
        b->placed_since_press = false;
    }
    b->prev_side = side;
}

static void handle_clock(cr_dgt_board *b, int64_t t, const cr_dgt_clock *c, cr_dgt_event_cb cb,
                         void *data)
{
    if (!c->valid) {
        return;
    }
    if (b->cfg.white_side == CR_DGT_WHITE_AUTO) {
        learn_sides(b, c);
    }
    b->info.clock_seen = true;
    b->info.clock = *c;
    b->info.clocks++;
    int32_t w, k;
    int run;
    cr_dgt_clock_to_colors(c, b->cfg.white_side, b->info.rotated != b->info.clock_swapped, &w, &k, &run);
    /* Readings repeat (UPDATE mode sends one a second): pass on changes only. */
    if (b->clock_emitted && w == b->last_white && k == b->last_black && run == b->last_running) {
        return;
    }
    b->clock_emitted = true;
    b->last_white = w;
    b->last_black = k;
    b->last_running = run;
    if (!cb) {
        return;
    }
    cr_feed_event ev;
    event_init(&ev, b, t, CR_FEED_CLOCK);
    ev.u.clock.white_ms = w;
    ev.u.clock.black_ms = k;
    ev.u.clock.running = run;
    cb(data, &ev);
}

void cr_dgt_board_feed_msg(cr_dgt_board *b, int64_t t, const cr_dgt_msg *msg, cr_dgt_event_cb cb,
                           void *data)
{
    if (!b || !msg) {
        return;
    }
    cr_dgt_board_info *in = &b->info;
    in->messages++;
    in->last_t = t;
    switch (msg->kind) {
    case CR_DGT_DUMP:
        for (int i = 0; i < 64; i++) {
            in->squares[cr_dgt_index_to_sq(i)] = (uint8_t)cr_dgt_piece_to_cr(msg->u.squares[i]);
        }
        in->have_dump = true;
        in->dumps++;
        b->gap_pending = false; /* no log came first: the board keeps none */
        emit_pos(b, t, cb, data);
        break;
    case CR_DGT_FIELD:
        in->fields++;
        remember_field(b, msg->u.field.index, msg->u.field.piece);
        apply_field(b, t, msg->u.field.index, msg->u.field.piece, cb, data);
        break;
    case CR_DGT_EE_MOVES:
        in->ee_logs++;
        if (b->gap_pending) {
            b->gap_pending = false;
            replay_log(b, t, msg->u.ee.bytes, msg->u.ee.len, cb, data);
        }
        break;
    case CR_DGT_CLOCK:
        handle_clock(b, t, &msg->u.clock, cb, data);
        break;
    case CR_DGT_CLOCK_ACK:
        in->acks++;
        in->last_ack = msg->u.ack;
        break;
    case CR_DGT_SERIAL:
        strcpy(in->serial, msg->u.text);
        break;
    case CR_DGT_LONG_SERIAL:
        strcpy(in->long_serial, msg->u.text);
        break;
    case CR_DGT_TRADEMARK:
        strcpy(in->trademark, msg->u.text);
        break;
    case CR_DGT_VERSION:
        in->version_major = msg->u.version.major;
        in->version_minor = msg->u.version.minor;
        break;
    case CR_DGT_BUSADDR:
        in->busaddr = msg->u.busaddr;
        break;
    case CR_DGT_BATTERY:
        in->battery_percent = msg->u.battery.percent;
        break;
    default:
        break;
    }
}

static void emit_raw(cr_dgt_board *b, int64_t t, const uint8_t *bytes, size_t len, cr_dgt_event_cb cb,
                     void *data)
{
    if (!b->cfg.emit_raw || !cb || len == 0) {
        return;
    }
    cr_feed_event ev;
    event_init(&ev, b, t, CR_FEED_RAW);
    ev.u.raw.bytes = bytes;
    ev.u.raw.len = len;
    cb(data, &ev);
}

int cr_dgt_board_feed_raw(cr_dgt_board *b, int64_t t, const uint8_t *bytes, size_t len,
                          cr_dgt_event_cb cb, void *data)
{
    if (!b || (!bytes && len)) {
        return CR_EINVAL;
    }
    if (len == 0) {
        return 0;
    }
    if (t - b->rx_t >= CR_DGT_CUT_MS) {
        (void)cr_dgt_parser_cut(b->parser, CR_DGT_DUMP_LEN);
    }
    b->rx_t = t;
    /* Stream position of bytes[0]: what was fed before minus nothing else,
     * i.e. consumed + still buffered. */
    uint64_t c0 = cr_dgt_parser_position(b->parser) + cr_dgt_parser_pending(b->parser);
    uint64_t emitted = c0;
    int rc = cr_dgt_parser_feed(b->parser, bytes, len);
    if (rc < 0) {
        /* Too much undecodable input: start over rather than fail forever. */
        emit_raw(b, t, bytes, len, cb, data);
        cr_dgt_parser_reset(b->parser);
        b->want_dump = true;
        return rc;
    }
    int n = 0;
    cr_dgt_msg msg;
    while (cr_dgt_parser_next(b->parser, &msg) == 1) {
        /* One RAW event per message (with any garbage before it), then what
         * it decodes to: a reader that decodes the RAW lines and also reads
         * the decoded lines sees each snapshot twice in a row, never an
         * older one in between. */
        uint64_t end = cr_dgt_parser_position(b->parser);
        if (end > emitted) {
            emit_raw(b, t, bytes + (emitted - c0), (size_t)(end - emitted), cb, data);
            emitted = end;
        }
        cr_dgt_board_feed_msg(b, t, &msg, cb, data);
        n++;
    }
    if (emitted < c0 + len) {
        emit_raw(b, t, bytes + (emitted - c0), (size_t)(c0 + len - emitted), cb, data);
    }
    uint64_t rs = cr_dgt_parser_take_resyncs(b->parser);
    if (rs) {
        b->want_dump = true;
        b->info.resyncs += rs;
        b->info.skipped = cr_dgt_parser_stats_get(b->parser).skipped;
    }
    return n;
}
