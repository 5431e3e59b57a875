/* chessrelay relay: the boards as DGT LiveChess shows them (see eboards.h). */
#include "core/eboards.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/log.h"

typedef struct eboard {
    cr_eboards *owner;
    char id[CR_BOARD_ID_MAX + 1];
    char source[160]; /* "" : not known (rebuilt from the journal, not heard since) */
    cr_board_infer *infer; /* borrowed; NULL for a live board not fed yet */
    bool connected;
    bool have_squares;
    uint8_t squares[CR_SQ_NB]; /* the board's own orientation */
    bool have_clock, clock_run;
    int32_t white_ms, black_ms;
    int64_t clock_at; /* ms since the epoch the reading was taken */
    int battery;      /* percent, -1 unknown */
    bool link_rotated; /* the live link saw the start position turned */
    char *published;   /* the entry last published (to publish changes only) */
} eboard;

struct cr_eboards {
    cr_eboards_config cfg;
    eboard **boards;
    int n;
    size_t cap;
    bool quiet;
};

static int64_t now_ms(const cr_eboards *e)
{
    return e->cfg.now_ms ? e->cfg.now_ms(e->cfg.data) : cr_now_us() / 1000;
}

cr_eboards *cr_eboards_new(const cr_eboards_config *cfg)
{
    cr_eboards *e = calloc(1, sizeof *e);
    if (e) {
        e->cfg = *cfg;
    }
    return e;
}

void cr_eboards_free(cr_eboards *e)
{
    if (!e) {
        return;
    }
    for (int i = 0; i < e->n; i++) {
        if (e->boards[i]->infer) {
            cr_board_infer_watch(e->boards[i]->infer, NULL, NULL);
        }
        free(e->boards[i]->published);
        free(e->boards[i]);
    }
    free(e->boards);
    free(e);
}

static eboard *find(const cr_eboards *e, const char *id)
{
    for (int i = 0; i < e->n; i++) {
        if (strcmp(e->boards[i]->id, id) == 0) {
            return e->boards[i];
        }
    }
    return NULL;
}

static eboard *get(cr_eboards *e, const char *id)
{
    eboard *b = find(e, id);
    if (b) {
        return b;
    }
    eboard **n = cr_grow(e->boards, &e->cap, (size_t)e->n + 1, sizeof *n, 16);
    if (!n) {
        return NULL;
    }
    e->boards = n;
    b = calloc(1, sizeof *b);
    if (!b) {
        return NULL;
    }
    b->owner = e;
    snprintf(b->id, sizeof b->id, "%s", id);
    b->battery = -1;
    e->boards[e->n++] = b;
    return b;
}

static bool flipped(const eboard *b)
{
    return b->link_rotated || (b->infer && cr_infer_rotated(cr_board_infer_engine(b->infer)));
}

/* The placement from White's side (turned back when the board stands turned
 * round); a square of unknown identity (an occupancy board before its
 * pieces could be named) is written empty. NULL before any snapshot. */
static json_t *board_json(const eboard *b)
{
    if (!b->have_squares) {
        return json_null();
    }
    bool turn = flipped(b);
    uint8_t sq[CR_SQ_NB];
    for (int i = 0; i < CR_SQ_NB; i++) {
        uint8_t p = b->squares[turn ? CR_SQ_NB - 1 - i : i];
        int type = p & 7;
        sq[i] = type >= CR_PAWN && type <= CR_KING ? p : CR_NO_PIECE;
    }
    char fen[100];
    if (cr_placement_write(sq, fen, sizeof fen) < 0) {
        return json_null();
    }
    return json_string(fen);
}

static json_t *clock_json(const eboard *b)
{
    if (!b->have_clock) {
        return json_null();
    }
    return json_pack("{s:I,s:I,s:b,s:I}", "white", (json_int_t)(b->white_ms / 1000), "black",
                     (json_int_t)(b->black_ms / 1000), "run", b->clock_run, "time",
                     (json_int_t)b->clock_at);
}

static char *dump(json_t *o)
{
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

static char *entry_json(const eboard *b)
{
    json_t *battery = json_null();
    if (b->battery >= 0) {
        char pct[16];
        snprintf(pct, sizeof pct, "%d%%", b->battery);
        battery = json_string(pct);
    }
    return dump(json_pack("{s:s,s:o,s:s,s:o,s:n,s:o,s:b,s:o}", "serialnr", b->id, "source",
                          b->source[0] ? json_string(b->source) : json_null(), "state",
                          b->connected ? "ACTIVE" : "INACTIVE", "battery", battery, "comment",
                          "board", board_json(b), "flipped", flipped(b), "clock", clock_json(b)));
}

static char *feed_json(const eboard *b)
{
    return dump(json_pack("{s:s,s:b,s:o,s:o}", "serialnr", b->id, "flipped", flipped(b), "board",
                          board_json(b), "clock", clock_json(b)));
}

/* Publishes the board's state if it changed since last published (or
 * always, when forced). */
static void publish(eboard *b, bool force)
{
    cr_eboards *e = b->owner;
    if (e->quiet) {
        return;
    }
    char *entry = entry_json(b);
    char *feed = entry ? feed_json(b) : NULL;
    if (!entry || !feed) {
        cr_log(CR_LOG_ERROR, "livechess: board %s: out of memory", b->id);
        free(entry);
        free(feed);
        return;
    }
    if (!force && b->published && strcmp(b->published, entry) == 0) {
        free(entry);
        free(feed);
        return;
    }
    cr_pub *p = cr_pub_new(CR_PUB_EBOARD);
    char *kept = strdup(entry);
    if (p) {
        snprintf(p->eboard, sizeof p->eboard, "%s", b->id);
        p->event = cr_buf_take_str(entry);
        p->snapshot = cr_buf_take_str(feed);
    } else {
        free(entry);
        free(feed);
    }
    if (!p || !p->event || !p->snapshot || !kept) {
        cr_log(CR_LOG_ERROR, "livechess: board %s: out of memory", b->id);
        cr_pub_free(p);
        free(kept);
        return;
    }
    free(b->published);
    b->published = kept;
    e->cfg.publish(e->cfg.data, p);
}

void cr_eboards_set_quiet(cr_eboards *e, bool quiet)
{
    if (!e) {
        return;
    }
    bool was = e->quiet;
    e->quiet = quiet;
    if (was && !quiet) {
        for (int i = 0; i < e->n; i++) {
            publish(e->boards[i], true);
        }
    }
}

/* A POS or CLOCK as the inference got it (cr_board_infer_watch). */
static void on_shown(void *data, const cr_feed_event *ev)
{
    eboard *b = data;
    if (ev->kind == CR_FEED_POS) {
        memcpy(b->squares, ev->u.squares, sizeof b->squares);
        b->have_squares = true;
    } else if (ev->kind == CR_FEED_CLOCK) {
        b->have_clock = true;
        b->white_ms = ev->u.clock.white_ms;
        b->black_ms = ev->u.clock.black_ms;
        b->clock_run = ev->u.clock.running != CR_CLOCK_STOPPED;
        /* live: when it was read; in a rebuild, its feed time (the epoch's) */
        b->clock_at = b->owner->quiet ? ev->t : now_ms(b->owner);
    }
    b->connected = true; /* it speaks */
    publish(b, false);
}

void cr_eboards_feed(cr_eboards *e, const cr_feed_event *ev, cr_board_infer *infer,
                     const char *feed_path, const char *agent)
{
    if (!e) {
        return;
    }
    eboard *b = get(e, ev->board);
    if (!b) {
        cr_log(CR_LOG_ERROR, "livechess: board %s: out of memory", ev->board);
        return;
    }
    if (b->infer != infer) {
        b->infer = infer;
        cr_board_infer_watch(infer, on_shown, b);
    }
    if (agent) {
        snprintf(b->source, sizeof b->source, "agent:%s", agent);
    } else if (feed_path) {
        const char *slash = strrchr(feed_path, '/');
        snprintf(b->source, sizeof b->source, "%s", slash ? slash + 1 : feed_path);
    }
    if (ev->kind == CR_FEED_CONNECT || ev->kind == CR_FEED_DISCONNECT) {
        b->connected = ev->kind == CR_FEED_CONNECT;
        publish(b, false);
    }
}

void cr_eboards_health(cr_eboards *e, const char *name, const cr_dgt_health *h)
{
    if (!e || !h->id[0]) {
        return; /* not identified yet: its serial number is its name */
    }
    eboard *b = get(e, h->id);
    if (!b) {
        cr_log(CR_LOG_ERROR, "livechess: out of memory");
        return;
    }
    snprintf(b->source, sizeof b->source, "%s", name ? name : "");
    b->connected = h->state == CR_LINK_ACTIVE;
    b->battery = h->battery_percent;
    b->link_rotated = h->rotated;
    publish(b, false);
}

int cr_eboards_count(const cr_eboards *e)
{
    return e ? e->n : 0;
}

char *cr_eboards_entry_json(const cr_eboards *e, int i)
{
    return e && i >= 0 && i < e->n ? entry_json(e->boards[i]) : NULL;
}

char *cr_eboards_feed_json(const cr_eboards *e, int i)
{
    return e && i >= 0 && i < e->n ? feed_json(e->boards[i]) : NULL;
}
