/* Board connection lifecycle on libevent: see board_link.h. */
#include "board_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINK_QUEUE 512
#define LINK_SENT 64
#define PROBE_MAX 4096
#define TICK_MS 25

struct cr_board_link {
    struct event_base *base;
    cr_dgt_transport tr;
    cr_board_link_config cfg;
    cr_board_link_callbacks cbs;
    struct event *tick;
    cr_dgt_board *board;
    cr_board_link_state state;
    bool open, identified, probing, connected_emitted, partial_asked;
    int64_t created, opened_at, last_rx, last_tx, probe_sent, last_ping, reopen_at;
    int64_t await_since;
    int64_t last_battery;    /* a command that wants an answer went out then (-1 none) */
    /* probe: bytes seen before the board said who it is */
    cr_dgt_parser *probe;
    uint8_t probe_bytes[PROBE_MAX];
    size_t probe_len;
    /* command queue: whole commands, paced */
    uint8_t queue[LINK_QUEUE];
    size_t qlen;
    uint16_t cmd_len[LINK_QUEUE];
    size_t ncmd;
    struct { int64_t t; size_t n; } sent[LINK_SENT];
    size_t nsent;
    cr_dgt_health health;
    int64_t active_since, active_ms, pos_count;
    char error[160];
    /* Other kinds (board_kind.h): the kind being probed, the kind found (AUTO
     * until one answered), its codec and the last snapshot sent as POS. */
    cr_board_kind probing_kind, found;
    cr_board_codec codec;
    uint64_t codec_resyncs;
    uint8_t last_squares[64];
    bool have_squares;
};

int64_t cr_dgt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *cr_board_link_state_name(cr_board_link_state st)
{
    switch (st) {
    case CR_LINK_CONNECTING: return "connecting";
    case CR_LINK_ACTIVE: return "active";
    case CR_LINK_NOT_RESPONDING: return "not responding";
    case CR_LINK_LOST: return "lost";
    }
    return "?";
}

void cr_board_link_config_default(cr_board_link_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->ping_ms = 1000;
    cfg->silent_ms = 3000;
    cfg->lost_ms = 6000;
    cfg->reopen_ms = 500;
    cfg->probe_ms = 1000;
    cfg->partial_ms = CR_DGT_CUT_MS; /* the board then cuts what it holds, too */
    cfg->pace_bytes = 8;
    cfg->pace_window_ms = 100;
    cfg->kind = CR_BOARD_DGT;
}

static int64_t link_now(const cr_board_link *l)
{
    return cr_dgt_now_ms() - l->created;
}

static int64_t event_time(const cr_board_link *l)
{
    return l->cfg.clock ? l->cfg.clock(l->cfg.clock_data) : link_now(l);
}

static void set_state(cr_board_link *l, cr_board_link_state st)
{
    if (l->state == st) {
        return;
    }
    int64_t now = link_now(l);
    if (l->state == CR_LINK_ACTIVE) {
        l->active_ms += now - l->active_since;
    }
    if (st == CR_LINK_ACTIVE) {
        l->active_since = now;
    }
    l->state = st;
    if (l->cbs.state) {
        l->cbs.state(l->cbs.data, l, st);
    }
}

static void emit_simple(cr_board_link *l, cr_feed_kind kind)
{
    if (!l->cbs.event) {
        return;
    }
    cr_feed_event ev;
    memset(&ev, 0, sizeof ev);
    ev.t = event_time(l);
    snprintf(ev.board, sizeof ev.board, "%s", cr_dgt_board_id(l->board));
    ev.kind = kind;
    l->cbs.event(l->cbs.data, &ev);
}

/* Counts snapshots for the health report, then passes the event on. */
static void board_event(void *data, const cr_feed_event *ev)
{
    cr_board_link *l = data;
    if (ev->kind == CR_FEED_POS) {
        l->pos_count++;
    }
    if (l->cbs.event) {
        l->cbs.event(l->cbs.data, ev);
    }
}

int cr_board_link_send(cr_board_link *l, const uint8_t *bytes, size_t len)
{
    if (!l || !bytes || len == 0 || len > 64) {
        return CR_EINVAL;
    }
    if (l->qlen + len > LINK_QUEUE || l->ncmd >= LINK_QUEUE) {
        return CR_ENOSPC;
    }
    memcpy(l->queue + l->qlen, bytes, len);
    l->qlen += len;
    l->cmd_len[l->ncmd++] = (uint16_t)len;
    return 0;
}

static void send1(cr_board_link *l, uint8_t cmd)
{
    (void)cr_board_link_send(l, &cmd, 1);
}

static bool expects_reply(uint8_t cmd)
{
    switch (cmd) {
    case CR_DGT_SEND_CLK: case CR_DGT_SEND_BRD: case CR_DGT_RETURN_SERIALNR:
    case CR_DGT_RETURN_BUSADRES: case CR_DGT_SEND_TRADEMARK: case CR_DGT_SEND_EE_MOVES:
    case CR_DGT_SEND_BATTERY_STATUS: case CR_DGT_SEND_VERSION: case CR_DGT_RETURN_LONG_SERIALNR:
        return true;
    default:
        return false;
    }
}

static bool dump_queued(const cr_board_link *l)
{
    size_t off = 0;
    for (size_t i = 0; i < l->ncmd; i++) {
        if (l->cmd_len[i] == 1 && l->queue[off] == CR_DGT_SEND_BRD) {
            return true;
        }
        off += l->cmd_len[i];
    }
    return false;
}

static void flush_queue(cr_board_link *l)
{
    if (!l->open) {
        return;
    }
    int64_t now = link_now(l);
    size_t k = 0, inflight = 0;
    for (size_t i = 0; i < l->nsent; i++) { /* forget bytes the board has had time to take */
        if (now - l->sent[i].t < l->cfg.pace_window_ms) {
            l->sent[k++] = l->sent[i];
            inflight += l->sent[i].n;
        }
    }
    l->nsent = k;
    while (l->ncmd > 0 && l->nsent < LINK_SENT) {
        size_t n = l->cmd_len[0];
        if (inflight > 0 && inflight + n > (size_t)l->cfg.pace_bytes) {
            break;
        }
        int w = l->tr.write(l->tr.impl, l->queue, n);
        if (w < 0) {
            cr_board_link_transport_error(l, "write failed");
            return;
        }
        if ((size_t)w < n) {
            /* Partial: keep the rest at the head as a shorter command. */
            memmove(l->queue, l->queue + w, l->qlen - (size_t)w);
            l->qlen -= (size_t)w;
            l->cmd_len[0] = (uint16_t)(n - (size_t)w);
            if (w > 0) {
                l->sent[l->nsent].t = now;
                l->sent[l->nsent++].n = (size_t)w;
            }
            return;
        }
        if (l->await_since < 0 && expects_reply(l->queue[0])) {
            l->await_since = now;
        }
        memmove(l->queue, l->queue + n, l->qlen - n);
        l->qlen -= n;
        memmove(l->cmd_len, l->cmd_len + 1, (l->ncmd - 1) * sizeof l->cmd_len[0]);
        l->ncmd--;
        l->sent[l->nsent].t = now;
        l->sent[l->nsent++].n = n;
        inflight += n;
        l->last_tx = now;
    }
}

static void clear_queue(cr_board_link *l)
{
    l->qlen = l->ncmd = l->nsent = 0;
    l->await_since = -1;
}

/* The kinds in the order an unknown board is probed. Millennium first:
 * its framed protocol is the one that foreign bytes in front of a probe
 * can derail (a board whose parser does not resynchronise takes them for a
 * frame), while a DGT board ignores what is not a command and its probe
 * begins with a reset, and a Certabo board streams unasked. So no board of
 * any kind sees another kind's probe before its own in the first round. */
static const cr_board_kind probe_order[] = {CR_BOARD_MILLENNIUM, CR_BOARD_DGT, CR_BOARD_CERTABO};

static cr_board_kind next_probe_kind(cr_board_kind k)
{
    size_t n = sizeof probe_order / sizeof probe_order[0];
    for (size_t i = 0; i < n; i++) {
        if (probe_order[i] == k) {
            return probe_order[(i + 1) % n];
        }
    }
    return probe_order[0];
}

/* The codec kinds' probe: their serial speed, their probe request. */
static void start_probe_kind(cr_board_link *l, int64_t now)
{
    const cr_board_codec_ops *o = cr_board_codec_ops_get(l->probing_kind);
    l->probing = true;
    l->probe_len = 0;
    if (l->codec.ops) {
        l->codec.ops->reset(l->codec.impl);
    }
    clear_queue(l);
    if (l->tr.settings) {
        (void)l->tr.settings(l->tr.impl, &o->serial);
    }
    uint8_t req[64];
    int n = o->probe_request(req, sizeof req);
    if (n > 0) {
        (void)cr_board_link_send(l, req, (size_t)n);
    }
    l->probe_sent = now;
    flush_queue(l);
}

static void start_probe(cr_board_link *l)
{
    int64_t now = link_now(l);
    if (l->probing_kind != CR_BOARD_DGT) {
        start_probe_kind(l, now);
        return;
    }
    if (l->tr.settings && l->cfg.kind == CR_BOARD_AUTO) {
        (void)l->tr.settings(l->tr.impl, &cr_board_codec_ops_get(CR_BOARD_DGT)->serial);
    }
    l->probing = true;
    l->probe_len = 0;
    cr_dgt_parser_reset(l->probe);
    cr_dgt_board_reset_stream(l->board);
    clear_queue(l);
    /* The first single-board command leaves bus mode; RESET stops updates so
     * that the replies we wait for are not buried under field updates. */
    send1(l, CR_DGT_SEND_RESET);
    send1(l, CR_DGT_RETURN_SERIALNR);
    send1(l, CR_DGT_SEND_VERSION);
    l->probe_sent = now;
    flush_queue(l);
}

static void start_updates(cr_board_link *l)
{
    if (l->cfg.identify_only) {
        return;
    }
    send1(l, CR_DGT_SEND_BRD);
    send1(l, l->cfg.update_plain ? CR_DGT_SEND_UPDATE : CR_DGT_SEND_UPDATE_NICE);
    send1(l, CR_DGT_SEND_CLK);
    if (l->tr.wireless) {
        send1(l, CR_DGT_SEND_BATTERY_STATUS);
        l->last_battery = link_now(l);
    }
    flush_queue(l);
}

static void close_transport(cr_board_link *l)
{
    if (l->open) {
        l->tr.close(l->tr.impl);
        l->open = false;
    }
    clear_queue(l);
}

static void try_open(cr_board_link *l)
{
    int64_t now = link_now(l);
    l->reopen_at = now + l->cfg.reopen_ms;
    if (l->tr.open(l->tr.impl, l) < 0) {
        return;
    }
    l->open = true;
    l->opened_at = now;
    l->last_rx = now;
    l->last_ping = now;
    if (l->state == CR_LINK_LOST) {
        set_state(l, CR_LINK_CONNECTING);
    }
    start_probe(l);
}

static void lose(cr_board_link *l, const char *why)
{
    if (why) {
        snprintf(l->error, sizeof l->error, "%s", why);
    }
    close_transport(l);
    if (l->connected_emitted) {
        emit_simple(l, CR_FEED_DISCONNECT);
        l->connected_emitted = false;
        l->health.disconnects++;
    }
    l->probing = false;
    set_state(l, CR_LINK_LOST);
    l->reopen_at = link_now(l) + l->cfg.reopen_ms;
}

void cr_board_link_transport_error(cr_board_link *l, const char *why)
{
    if (l && l->open) {
        lose(l, why ? why : "transport error");
    }
}

/* The board said who it is: name it, announce it, replay the probe bytes. */
static void identified(cr_board_link *l, const char *serial)
{
    const char *id = cr_dgt_valid_id(serial) ? serial : l->tr.fallback_id;
    l->found = CR_BOARD_DGT;
    if (!l->identified || strcmp(id, cr_dgt_board_id(l->board)) != 0) {
        (void)cr_dgt_board_set_id(l->board, id);
    }
    l->identified = true;
    l->probing = false;
    if (!l->connected_emitted) {
        emit_simple(l, CR_FEED_CONNECT);
        l->connected_emitted = true;
    }
    set_state(l, CR_LINK_ACTIVE);
    bool gap = cr_dgt_board_gap_pending(l->board);
    if (!gap) {
        (void)cr_dgt_board_feed_raw(l->board, event_time(l), l->probe_bytes, l->probe_len, board_event, l);
    }
    (void)cr_dgt_board_take_want_dump(l->board); /* the dump is asked for below anyway */
    l->probe_len = 0;
    if (gap && !l->cfg.identify_only) {
        /* Back after a gap: the board's own log first (what happened
         * meanwhile, replayed by the board state), then the dump. What it
         * sent before it said who it is was its old mode's updates. */
        send1(l, CR_DGT_SEND_EE_MOVES);
    }
    start_updates(l);
}

/* A codec kind's bytes: its snapshots become POS events when they changed;
 * after a resync the board is asked for a fresh one. */
static void codec_input(cr_board_link *l, const uint8_t *bytes, size_t len)
{
    const cr_board_codec_ops *o = l->codec.ops;
    (void)o->feed(l->codec.impl, bytes, len);
    cr_board_reading r;
    while (o->next(l->codec.impl, &r) == 1) {
        cr_feed_event ev;
        memset(&ev, 0, sizeof ev);
        ev.t = event_time(l);
        snprintf(ev.board, sizeof ev.board, "%s", cr_dgt_board_id(l->board));
        if (r.kind == CR_READING_SNAPSHOT) {
            if (l->have_squares && memcmp(r.squares, l->last_squares, 64) == 0) {
                continue;
            }
            memcpy(l->last_squares, r.squares, 64);
            l->have_squares = true;
            ev.kind = CR_FEED_POS;
            memcpy(ev.u.squares, r.squares, 64);
        } else {
            ev.kind = CR_FEED_CLOCK;
            ev.u.clock.white_ms = r.white_ms;
            ev.u.clock.black_ms = r.black_ms;
            ev.u.clock.running = r.running;
        }
        board_event(l, &ev);
    }
    uint64_t resyncs = o->health(l->codec.impl).resyncs;
    if (resyncs != l->codec_resyncs) {
        l->codec_resyncs = resyncs;
        uint8_t poll[64];
        int n = o->encode_poll(poll, sizeof poll);
        if (n > 0 && l->ncmd == 0) {
            (void)cr_board_link_send(l, poll, (size_t)n);
        }
    }
}

static void identified_kind(cr_board_link *l)
{
    if (l->found == CR_BOARD_AUTO) {
        l->found = l->probing_kind;
    }
    if (!l->identified) {
        (void)cr_dgt_board_set_id(l->board, l->tr.fallback_id);
    }
    const void *params = l->cfg.codec_params
                             ? l->cfg.codec_params(l->cfg.codec_params_data, l->found,
                                                   cr_dgt_board_id(l->board))
                             : NULL;
    if (!l->codec.ops && cr_board_codec_new(&l->codec, l->found, params) < 0) {
        lose(l, "out of memory");
        return;
    }
    l->identified = true;
    l->probing = false;
    if (!l->connected_emitted) {
        emit_simple(l, CR_FEED_CONNECT);
        l->connected_emitted = true;
        l->have_squares = false; /* the first snapshot after a connect always goes out */
    }
    set_state(l, CR_LINK_ACTIVE);
    l->codec_resyncs = l->codec.ops->health(l->codec.impl).resyncs;
    size_t n = l->probe_len;
    l->probe_len = 0;
    codec_input(l, l->probe_bytes, n);
    l->codec_resyncs = l->codec.ops->health(l->codec.impl).resyncs;
    if (!l->cfg.identify_only) {
        uint8_t start[64];
        int k = l->codec.ops->encode_start(start, sizeof start);
        for (int off = 0; off < k;) { /* whole commands of at most 64 bytes */
            int part = k - off > 64 ? 64 : k - off;
            (void)cr_board_link_send(l, start + off, (size_t)part);
            off += part;
        }
    }
    flush_queue(l);
}

static void probe_input(cr_board_link *l, const uint8_t *bytes, size_t len)
{
    size_t room = PROBE_MAX - l->probe_len;
    size_t n = len < room ? len : room;
    memcpy(l->probe_bytes + l->probe_len, bytes, n);
    l->probe_len += n;
    if (l->probing_kind != CR_BOARD_DGT) {
        if (cr_board_codec_ops_get(l->probing_kind)->probe_match(l->probe_bytes, l->probe_len)) {
            identified_kind(l);
        } else if (l->probe_len == PROBE_MAX) {
            l->probe_len = 0;
        }
        return;
    }
    if (cr_dgt_parser_feed(l->probe, bytes, len) < 0) {
        cr_dgt_parser_reset(l->probe);
        return;
    }
    cr_dgt_msg m;
    bool got_version = false;
    while (cr_dgt_parser_next(l->probe, &m) == 1) {
        if (m.kind == CR_DGT_SERIAL) {
            identified(l, m.u.text);
            return;
        }
        got_version = got_version || m.kind == CR_DGT_VERSION;
    }
    if (got_version) {
        /* Version but no serial number: the board has none, or (a board
         * known already, back after a silence) the request was lost on the
         * dead line while the version request got through: keep its id. */
        identified(l, l->identified ? cr_dgt_board_id(l->board) : "");
    }
}

static void link_input(cr_board_link *l, const uint8_t *bytes, size_t len)
{
    int64_t now = link_now(l);
    if (l->await_since >= 0) { /* command -> first byte of an answer */
        l->health.delay_ms = now - l->await_since;
        l->await_since = -1;
    }
    int64_t quiet = now - l->last_rx;
    l->last_rx = now;
    l->partial_asked = false;
    if (l->probing) {
        probe_input(l, bytes, len);
        if (l->probing && quiet >= l->cfg.ping_ms) {
            /* The board is back after a silence: the probe went out while
             * its line was dead. Ask again now, not a probe period later
             * (it may be gone again by then). */
            start_probe(l);
        }
        return;
    }
    if (l->state == CR_LINK_NOT_RESPONDING) {
        set_state(l, CR_LINK_ACTIVE);
    }
    if (l->found != CR_BOARD_DGT) {
        codec_input(l, bytes, len);
        flush_queue(l);
        return;
    }
    (void)cr_dgt_board_feed_raw(l->board, event_time(l), bytes, len, board_event, l);
    /* After any resync ask for a fresh dump (idempotent), even if one was
     * asked for already: that one may be what got cut. Not twice in the queue. */
    if (cr_dgt_board_take_want_dump(l->board) && !dump_queued(l)) {
        send1(l, CR_DGT_SEND_BRD);
    }
    flush_queue(l);
}

void cr_board_link_input(cr_board_link *l, const uint8_t *bytes, size_t len)
{
    if (!l || !bytes || len == 0) {
        return;
    }
    link_input(l, bytes, len);
    if (l->cfg.handled) {
        l->cfg.handled(l->cfg.clock_data, len);
    }
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    cr_board_link *l = arg;
    int64_t now = link_now(l);
    if (!l->open) {
        if (now >= l->reopen_at) {
            try_open(l);
        }
        return;
    }
    int64_t silent = now - l->last_rx;
    bool codec = !l->probing && l->found != CR_BOARD_DGT && l->codec.ops;
    if (l->probing) {
        /* Ask again, even while the board chatters: a board that missed the
         * probe (its line was dead) goes on sending field updates in its old
         * mode, which are no answer. */
        if (now - l->probe_sent >= l->cfg.probe_ms) {
            if (l->found == CR_BOARD_AUTO && l->cfg.kind == CR_BOARD_AUTO) {
                /* Not known yet: the next kind, at its own speed. */
                l->probing_kind = next_probe_kind(l->probing_kind);
            }
            start_probe(l);
        }
    } else if (codec) {
        uint8_t poll[64];
        int n = 0;
        int poll_ms = l->codec.ops->health(l->codec.impl).poll_ms;
        if (l->codec.ops->pending(l->codec.impl) > 0 && silent >= l->cfg.partial_ms &&
            !l->partial_asked) {
            l->partial_asked = true; /* a frame cut short: ask for a whole one */
            n = l->codec.ops->encode_poll(poll, sizeof poll);
        } else if (silent >= l->cfg.ping_ms && now - l->last_ping >= l->cfg.ping_ms) {
            l->last_ping = now;
            n = l->codec.ops->encode_poll(poll, sizeof poll);
        } else if (poll_ms > 0 && now - l->last_ping >= poll_ms && l->ncmd == 0) {
            /* a board that will not report changes by itself */
            l->last_ping = now;
            n = l->codec.ops->encode_poll(poll, sizeof poll);
        }
        if (n > 0) {
            (void)cr_board_link_send(l, poll, (size_t)n);
        }
    } else if (cr_dgt_board_pending(l->board) > 0 && silent >= l->cfg.partial_ms && !l->partial_asked) {
        /* A message cut short and nothing after it: its end will not come. */
        l->partial_asked = true;
        if (!dump_queued(l)) {
            send1(l, CR_DGT_SEND_BRD);
        }
    } else if (silent >= l->cfg.ping_ms && now - l->last_ping >= l->cfg.ping_ms) {
        send1(l, CR_DGT_RETURN_SERIALNR);
        l->last_ping = now;
    }
    if (l->tr.wireless && !l->probing && !codec && now - l->last_battery >= 300000) {
        send1(l, CR_DGT_SEND_BATTERY_STATUS); /* every 5 minutes */
        l->last_battery = now;
    }
    if (silent >= l->cfg.lost_ms) {
        lose(l, "board stopped answering");
        return;
    }
    if (silent >= l->cfg.silent_ms && l->state == CR_LINK_ACTIVE) {
        /* Silence is a disconnect: what the board sees meanwhile is missed
         * as surely as after an unplug, and the host must know the next dump
         * may be several moves ahead. CONNECT follows when it answers. */
        if (l->connected_emitted) {
            emit_simple(l, CR_FEED_DISCONNECT);
            l->connected_emitted = false;
            l->health.disconnects++;
        }
        set_state(l, CR_LINK_NOT_RESPONDING);
        start_probe(l); /* re-initialise: the board may have lost power and its mode */
        return;
    }
    flush_queue(l);
}

cr_board_link *cr_board_link_new(struct event_base *base, cr_dgt_transport *tr,
                             const cr_board_link_config *cfg, const cr_board_link_callbacks *cbs)
{
    if (!tr) {
        return NULL;
    }
    cr_board_link *l = calloc(1, sizeof *l);
    if (!l || !base || !tr->open || !tr->write || !tr->close) {
        if (tr->free) {
            tr->free(tr->impl);
        }
        free(l);
        return NULL;
    }
    l->base = base;
    l->tr = *tr;
    if (!cr_dgt_valid_id(l->tr.fallback_id)) {
        snprintf(l->tr.fallback_id, sizeof l->tr.fallback_id, "board");
    }
    if (cfg) {
        l->cfg = *cfg;
    } else {
        cr_board_link_config_default(&l->cfg);
    }
    cr_board_link_config def;
    cr_board_link_config_default(&def);
#define LINK_DEFAULT_(f) if (l->cfg.f <= 0) { l->cfg.f = def.f; }
    LINK_DEFAULT_(ping_ms) LINK_DEFAULT_(silent_ms) LINK_DEFAULT_(lost_ms) LINK_DEFAULT_(reopen_ms)
    LINK_DEFAULT_(probe_ms) LINK_DEFAULT_(partial_ms) LINK_DEFAULT_(pace_bytes)
    LINK_DEFAULT_(pace_window_ms)
#undef LINK_DEFAULT_
    if (cbs) {
        l->cbs = *cbs;
    }
    l->created = cr_dgt_now_ms();
    l->await_since = -1;
    if (l->cfg.kind < CR_BOARD_AUTO || l->cfg.kind >= CR_BOARD_KIND_NB) {
        l->cfg.kind = CR_BOARD_DGT;
    }
    l->found = l->cfg.kind;
    l->probing_kind = l->cfg.kind == CR_BOARD_AUTO ? probe_order[0] : l->cfg.kind;
    l->health.delay_ms = -1;
    l->board = cr_dgt_board_new(l->tr.fallback_id, &l->cfg.board);
    l->probe = cr_dgt_parser_new();
    l->tick = event_new(base, -1, EV_PERSIST, on_tick, l);
    if (!l->board || !l->probe || !l->tick) {
        cr_board_link_free(l);
        return NULL;
    }
    return l;
}

int cr_board_link_start(cr_board_link *l)
{
    if (!l) {
        return CR_EINVAL;
    }
    struct timeval tv = {0, TICK_MS * 1000};
    event_add(l->tick, &tv);
    try_open(l);
    return 0;
}

void cr_board_link_free(cr_board_link *l)
{
    if (!l) {
        return;
    }
    close_transport(l);
    if (l->tick) {
        event_free(l->tick);
    }
    if (l->tr.free) {
        l->tr.free(l->tr.impl);
    }
    cr_dgt_parser_free(l->probe);
    cr_dgt_board_free(l->board);
    cr_board_codec_free(&l->codec);
    free(l);
}

cr_dgt_health cr_board_link_health(const cr_board_link *l)
{
    cr_dgt_health h;
    memset(&h, 0, sizeof h);
    if (!l) {
        return h;
    }
    h = l->health;
    h.state = l->state;
    h.identified = l->identified;
    snprintf(h.id, sizeof h.id, "%s", cr_dgt_board_id(l->board));
    const cr_dgt_board_info *in = cr_dgt_board_info_get(l->board);
    h.battery_percent = in->battery_percent;
    h.rotated = in->rotated;
    h.resyncs = in->resyncs;
    h.kind = l->identified ? l->found : CR_BOARD_AUTO;
    h.has_clock = h.kind == CR_BOARD_DGT;
    if (l->codec.ops) {
        cr_board_codec_health ch = l->codec.ops->health(l->codec.impl);
        h.resyncs = ch.resyncs;
        h.bad_frames = ch.bad_frames;
        h.has_clock = ch.has_clock;
        h.poll_ms = ch.poll_ms;
    }
    int64_t active = l->active_ms + (l->state == CR_LINK_ACTIVE ? link_now(l) - l->active_since : 0);
    h.snapshot_rate = active > 0 ? (double)l->pos_count * 60000.0 / (double)active : 0.0;
    return h;
}

const cr_dgt_board_info *cr_board_link_info(const cr_board_link *l)
{
    return l ? cr_dgt_board_info_get(l->board) : NULL;
}

const char *cr_board_link_name(const cr_board_link *l)
{
    return l ? l->tr.name : "";
}

const char *cr_board_link_error(const cr_board_link *l)
{
    return l ? l->error : "";
}
