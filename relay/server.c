/* chessrelay relay: HTTP + WebSocket server in the lws service thread (see
 * server.h and docs/protocol.md).
 *
 * Broadcast follows the lws ring example: each lane keeps a ring of already
 * serialised events (cr_view); every viewer has a tail (the next seq it has
 * not looked at) and is sent what is ready, up to WRITE_BATCH messages in one
 * send, per WRITEABLE callback. Replies and
 * snapshots go first through a small per-viewer queue of shared buffers. A
 * viewer that lags more than `backlog` events, or whose tail fell off the
 * ring, gets fresh snapshots of its games instead of the events it missed. */
#include "server.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <libwebsockets.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent_link.h"
#include "log.h"
#include "view.h"
#include "ws_text.h"

_Static_assert(LWS_PRE <= CR_BUF_PRE, "cr_buf headroom must hold the WebSocket frame header");

enum { LANE_LIVE = 0, LANE_PUBLIC = 1, LANE_NB = 2 };
enum { MAX_FAULTS = 5, WALK_MAX = 4096, HTTP_CHUNK = 16384, WRITE_BATCH = 8, BATCH_BYTES = 65536 };

/* Delivery latency buckets (seconds) for /metrics. */
static const double latency_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                        0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
#define LATENCY_NB (sizeof latency_bounds / sizeof latency_bounds[0])

typedef struct sub {
    int game;
    int64_t seen; /* last seq sent (or covered by a snapshot) */
} sub;

typedef struct rsub {
    char round[CR_ROUND_MAX];
    int64_t from; /* games of the round whose events are newer join */
} rsub;

typedef struct outq {
    struct outq *next;
    cr_buf *b;
} outq;

enum { PSS_NONE = 0, PSS_HTTP, PSS_WS };

/* Per connection (HTTP request or WebSocket viewer); lws allocates it zeroed.
 * What viewer_writeable reads for every message comes first, within 64
 * bytes: with 10,000 viewers each WRITEABLE starts from a cold cache. */
typedef struct pss {
    int kind;
    int lane;
    int nsubs, nrsubs;
    int64_t tail;
    sub *subs; /* sorted by game */
    outq *qhead;
    struct lws *wsi;
    bool closing; /* too many faults: close once the replies are out */
    /* HTTP */
    cr_buf *body;
    size_t off;
    /* WebSocket */
    int slot;                        /* its entry in cr_server.slots */
    struct pss *arb_prev, *arb_next; /* in cr_server.arbiters while arbiter_sub */
    bool trusted;
    bool arbiter, arbiter_sub; /* arbiter monitoring (arbiter_link.h): role, channel */
    int capsubs;
    rsub *rsubs;
    outq *qtail;
    int qlen;
    cr_ws_rx rx;
    double tokens;
    int64_t refill_us;
    int faults;
} pss;

/* What drain_pubs needs to wake a viewer, packed in one array: after each
 * batch of events it walks every viewer, and 10,000 of these fit in the
 * cache where 10,000 scattered pss do not. Kept in step by slot_sync. */
typedef struct vslot {
    struct lws *wsi;
    pss *p;
    int lane;
    bool subscribed; /* has a game or round: new events concern it */
} vslot;

struct cr_server {
    cr_server_config cfg;
    char *web_root; /* realpath, or NULL: built-in page */
    struct lws_context *ctx;
    struct lws_protocols protocols[3]; /* viewers, venue agents (if any), end */
    cr_queue *pubs, *cmds;
    pthread_t thread;
    atomic_bool stop;
    atomic_bool pubs_waiting; /* set by the loop's wake, cleared by drain_pubs' callers */
    int port;
    cr_view *views[LANE_NB];
    vslot *slots; /* WebSocket viewers, nviewers of them */
    int capslots;
    pss *arbiters; /* viewers on the arbiter channel (arbiter_link.h) */
    /* figures (service thread only) */
    int nviewers, ntrusted;
    bool ready;
    int boards_online, boards_known;
    int64_t journal_syncs;
    cr_buf *boards_metrics; /* the loop's last health text of the live boards */
    cr_buf *boards_json;    /* and as JSON */
    cr_buf *loop_metrics;   /* the loop's pushes and pairings figures */
    uint64_t events_total, messages_sent, messages_in, refused_token, refused_message,
        refused_rate, resnapshots, http_requests, commands;
    uint64_t latency_buckets[LATENCY_NB + 1];
    double latency_sum;
    uint64_t latency_count;
    int64_t rate_window_start;
    uint64_t rate_window_events;
    double events_per_s;
    unsigned char *wbuf; /* viewer_writeable's frames (service thread only) */
    size_t wcap;
};

/*----- small helpers -----*/

static void q_push(pss *p, cr_buf *b)
{
    if (!b) {
        return;
    }
    outq *e = malloc(sizeof *e);
    if (!e) {
        cr_buf_unref(b);
        return;
    }
    e->next = NULL;
    e->b = b;
    if (p->qtail) {
        p->qtail->next = e;
    } else {
        p->qhead = e;
    }
    p->qtail = e;
    p->qlen++;
}

static cr_buf *q_pop(pss *p)
{
    outq *e = p->qhead;
    if (!e) {
        return NULL;
    }
    p->qhead = e->next;
    if (!p->qhead) {
        p->qtail = NULL;
    }
    p->qlen--;
    cr_buf *b = e->b;
    free(e);
    return b;
}

static cr_buf *json_buf(json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return cr_buf_take_str(s);
}

static void send_error(pss *p, const char *error, const char *where)
{
    json_t *j = json_pack("{s:s,s:s,s:s}", "type", "error", "error", error, "where", where);
    q_push(p, json_buf(j));
    lws_callback_on_writable(p->wsi);
}

/* Where game is in p->subs, or would go (subs are sorted by game: a round
 * of 100 games costs a viewer 7 probes per message, not 100). */
static int sub_index(const pss *p, int game)
{
    int lo = 0, hi = p->nsubs;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (p->subs[mid].game < game) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

static sub *find_sub(pss *p, int game)
{
    int i = sub_index(p, game);
    return i < p->nsubs && p->subs[i].game == game ? &p->subs[i] : NULL;
}

static sub *add_sub(pss *p, int game, int64_t seen)
{
    int i = sub_index(p, game);
    if (i < p->nsubs && p->subs[i].game == game) {
        p->subs[i].seen = seen;
        return &p->subs[i];
    }
    if (p->nsubs == p->capsubs) {
        int cap = p->capsubs ? 2 * p->capsubs : 4;
        sub *n = realloc(p->subs, (size_t)cap * sizeof *n);
        if (!n) {
            return NULL;
        }
        p->subs = n;
        p->capsubs = cap;
    }
    memmove(&p->subs[i + 1], &p->subs[i], (size_t)(p->nsubs - i) * sizeof *p->subs);
    p->nsubs++;
    p->subs[i].game = game;
    p->subs[i].seen = seen;
    return &p->subs[i];
}

static void remove_sub(pss *p, int i)
{
    memmove(&p->subs[i], &p->subs[i + 1], (size_t)(p->nsubs - i - 1) * sizeof *p->subs);
    p->nsubs--;
}

static void free_viewer(pss *p)
{
    cr_buf *b;
    while ((b = q_pop(p)) != NULL) {
        cr_buf_unref(b);
    }
    free(p->subs);
    free(p->rsubs);
    cr_ws_rx_reset(&p->rx);
    p->subs = NULL;
    p->rsubs = NULL;
    p->nsubs = p->nrsubs = p->capsubs = 0;
}

static bool slot_add(cr_server *s, pss *p)
{
    if (s->nviewers == s->capslots) {
        int cap = s->capslots ? 2 * s->capslots : 64;
        vslot *n = realloc(s->slots, (size_t)cap * sizeof *n);
        if (!n) {
            return false;
        }
        s->slots = n;
        s->capslots = cap;
    }
    p->slot = s->nviewers++;
    s->slots[p->slot] = (vslot){.wsi = p->wsi, .p = p, .lane = p->lane};
    return true;
}

static void slot_remove(cr_server *s, pss *p)
{
    s->slots[p->slot] = s->slots[--s->nviewers];
    s->slots[p->slot].p->slot = p->slot;
}

static void slot_sync(cr_server *s, pss *p)
{
    s->slots[p->slot].lane = p->lane;
    s->slots[p->slot].subscribed = p->nsubs || p->nrsubs;
}

static void peer_name(struct lws *wsi, char *buf, size_t size)
{
    buf[0] = '\0';
    lws_get_peer_simple(wsi, buf, size);
    if (!buf[0]) {
        snprintf(buf, size, "?");
    }
}

/* "Bearer <token>" from the Authorization header, or "" */
static void bearer_token(struct lws *wsi, char *buf, size_t size)
{
    char hdr[512];
    buf[0] = '\0';
    if (lws_hdr_copy(wsi, hdr, sizeof hdr, WSI_TOKEN_HTTP_AUTHORIZATION) > 0 &&
        strncmp(hdr, "Bearer ", 7) == 0) {
        size_t n = strlen(hdr + 7);
        n = n < size ? n : size - 1;
        memcpy(buf, hdr + 7, n);
        buf[n] = '\0';
    }
}

/*----- subscriptions and delivery -----*/

/* Subscribes p to game g of its lane, from `since` (-1: with a snapshot). */
static void subscribe_game(cr_server *s, pss *p, const cr_view_game *g, int64_t since)
{
    cr_view *v = s->views[p->lane];
    int64_t head = cr_view_head(v);
    if (since >= 0 && since < head && since >= g->seq) {
        add_sub(p, g->id, since); /* the client has everything of this game */
    } else if (since >= 0 && since < head && since + 1 >= cr_view_oldest(v)) {
        /* Every event after `since` is held: rewind the tail; events of
         * other games already sent are skipped by their subs' `seen`. */
        add_sub(p, g->id, since);
        if (p->tail > since + 1) {
            p->tail = since + 1;
        }
    } else {
        add_sub(p, g->id, g->seq);
        q_push(p, cr_buf_ref(g->snapshot));
    }
}

/* Sends fresh snapshots of all p's games and skips to the ring's head. */
static void resnapshot(cr_server *s, pss *p)
{
    cr_view *v = s->views[p->lane];
    for (int i = 0; i < p->nsubs; i++) {
        const cr_view_game *g = cr_view_find(v, p->subs[i].game);
        if (g) {
            p->subs[i].seen = g->seq;
            q_push(p, cr_buf_ref(g->snapshot));
        }
    }
    for (int i = 0; i < p->nrsubs; i++) {
        p->rsubs[i].from = cr_view_head(v) - 1;
        /* games of the round not yet known to the viewer */
        for (int k = 0; k < cr_view_game_count(v); k++) {
            const cr_view_game *g = cr_view_game_at(v, k);
            if (strcmp(g->round, p->rsubs[i].round) == 0 && !find_sub(p, g->id)) {
                add_sub(p, g->id, g->seq);
                q_push(p, cr_buf_ref(g->snapshot));
            }
        }
    }
    p->tail = cr_view_head(v);
    s->resnapshots++;
}

static bool wants(cr_server *s, pss *p, const cr_view_entry *e)
{
    sub *sb = find_sub(p, e->game);
    if (sb) {
        if (e->seq > sb->seen) {
            sb->seen = e->seq;
            return true;
        }
        return false;
    }
    if (!p->nrsubs) {
        return false;
    }
    const cr_view_game *g = cr_view_find(s->views[p->lane], e->game);
    if (!g) {
        return false;
    }
    for (int i = 0; i < p->nrsubs; i++) {
        if (strcmp(p->rsubs[i].round, g->round) == 0 && e->seq > p->rsubs[i].from) {
            add_sub(p, e->game, e->seq);
            return true;
        }
    }
    return false;
}

static void note_latency(cr_server *s, const cr_view_entry *e, int lane, int64_t now)
{
    int64_t lat = now - e->ts - (lane == LANE_PUBLIC ? (int64_t)s->cfg.delay_s * 1000000 : 0);
    double sec = lat < 0 ? 0 : (double)lat / 1e6;
    size_t i = 0;
    while (i < LATENCY_NB && sec > latency_bounds[i]) {
        i++;
    }
    s->latency_buckets[i]++;
    s->latency_sum += sec;
    s->latency_count++;
}

static int write_buf(cr_server *s, pss *p, cr_buf *b)
{
    int n = lws_write(p->wsi, (unsigned char *)b->data, b->len, LWS_WRITE_TEXT);
    s->messages_sent++;
    return n < (int)b->len ? -1 : 0;
}

/* The next message for p (a reply, a snapshot or a ring event), as a new
 * reference, or NULL when it has nothing to send now. now: for the latency
 * histogram. */
static cr_buf *next_message(cr_server *s, pss *p, int64_t now)
{
    cr_view *v = s->views[p->lane];
    if (!p->qhead) {
        int64_t head = cr_view_head(v);
        if (p->tail < cr_view_oldest(v) || head - p->tail > (int64_t)s->cfg.backlog) {
            resnapshot(s, p);
        }
    }
    cr_buf *b = q_pop(p);
    if (b || p->closing) {
        return b; /* a client being closed gets its replies, no more events */
    }
    int64_t head = cr_view_head(v);
    for (int n = 0; p->tail < head && n < WALK_MAX; n++) {
        const cr_view_entry *e = cr_view_entry_at(v, p->tail++);
        if (e && wants(s, p, e)) {
            note_latency(s, e, p->lane, now);
            return cr_buf_ref(e->msg);
        }
    }
    return NULL;
}

/* RFC 6455 5.2 header of a final, unmasked text frame; returns its size. */
static size_t frame_header(unsigned char *h, size_t len)
{
    h[0] = 0x81;
    if (len < 126) {
        h[1] = (unsigned char)len;
        return 2;
    }
    if (len < 65536) {
        h[1] = 126;
        h[2] = (unsigned char)(len >> 8);
        h[3] = (unsigned char)len;
        return 4;
    }
    h[1] = 127;
    for (int i = 0; i < 8; i++) {
        h[2 + i] = (unsigned char)((uint64_t)len >> (56 - 8 * i));
    }
    return 10;
}

static void drain_pubs(cr_server *s);

/* Publications pushed since the last drain, if any, applied now: an event
 * that comes while a broadcast round is under way (a clock press a few ms
 * after its move) goes out in the same round, in the same send as the
 * event before it to every viewer not yet written, instead of in a round
 * of its own after this one. */
static void drain_if_waiting(cr_server *s)
{
    if (atomic_load_explicit(&s->pubs_waiting, memory_order_relaxed) &&
        atomic_exchange(&s->pubs_waiting, false)) {
        drain_pubs(s);
    }
}

/* Writes the messages ready for p, up to WRITE_BATCH, in one send: after a
 * burst (a move and its clock, a few games at once) a viewer costs one
 * syscall per service round, not one per message, and the viewers late in
 * the round wait that much less. Several messages are framed here and
 * written raw (lws passes LWS_WRITE_HTTP through unchanged on a WebSocket;
 * no extension is negotiated); a single one goes through lws_write as
 * usual. Re-armed while more waits. */
static int viewer_writeable(cr_server *s, pss *p)
{
    drain_if_waiting(s);
    cr_view *v = s->views[p->lane];
    cr_buf *batch[WRITE_BATCH];
    int n = 0;
    size_t total = 0;
    int64_t now = cr_now_us();
    while (n < WRITE_BATCH && total < BATCH_BYTES) {
        cr_buf *b = next_message(s, p, now);
        if (!b) {
            break;
        }
        batch[n++] = b;
        total += b->len + 10;
    }
    if (n == 0 && p->closing && !p->qhead) {
        lws_close_reason(p->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)"too many faults",
                         15);
        return -1;
    }
    int rc = 0;
    if (n == 1) {
        rc = write_buf(s, p, batch[0]);
    } else if (n > 1) {
        if (s->wcap < LWS_PRE + total) {
            unsigned char *w = realloc(s->wbuf, LWS_PRE + total);
            if (w) {
                s->wbuf = w;
                s->wcap = LWS_PRE + total;
            }
        }
        if (s->wcap >= LWS_PRE + total) {
            unsigned char *out = s->wbuf + LWS_PRE;
            size_t len = 0;
            for (int i = 0; i < n; i++) {
                len += frame_header(out + len, batch[i]->len);
                memcpy(out + len, batch[i]->data, batch[i]->len);
                len += batch[i]->len;
            }
            rc = lws_write(p->wsi, out, len, LWS_WRITE_HTTP) < (int)len ? -1 : 0;
            s->messages_sent += (uint64_t)n;
        } else {
            for (int i = 0; i < n && !rc; i++) { /* out of memory: one by one */
                rc = write_buf(s, p, batch[i]);
            }
        }
    }
    for (int i = 0; i < n; i++) {
        cr_buf_unref(batch[i]);
    }
    if (rc) {
        return -1;
    }
    if (p->qhead || p->closing || p->tail < cr_view_head(v)) {
        lws_callback_on_writable(p->wsi);
    }
    return 0;
}

/*----- messages from clients -----*/

static void set_trusted(cr_server *s, pss *p, bool trusted)
{
    if (p->trusted == trusted) {
        return;
    }
    p->trusted = trusted;
    s->ntrusted += trusted ? 1 : -1;
    int lane = trusted ? LANE_LIVE : LANE_PUBLIC;
    if (lane != p->lane) {
        /* Seqs of the two lanes are the same events at different times:
         * simplest is fresh snapshots from the new lane. */
        p->lane = lane;
        resnapshot(s, p);
    }
}

static int64_t int_field(json_t *j, const char *name, int64_t dflt, bool *bad)
{
    json_t *v = json_object_get(j, name);
    if (!v) {
        return dflt;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        *bad = true;
        return dflt;
    }
    return json_integer_value(v);
}

/* The round of a subscribe/list: a string, or a number written as one. */
static bool round_field(json_t *j, char *out, size_t size, bool *bad)
{
    json_t *v = json_object_get(j, "round");
    if (!v) {
        return false;
    }
    if (json_is_string(v) && json_string_length(v) < size) {
        snprintf(out, size, "%s", json_string_value(v));
        return true;
    }
    if (json_is_integer(v)) {
        snprintf(out, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return true;
    }
    *bad = true;
    return false;
}

static void fault(cr_server *s, pss *p, const char *error, const char *where)
{
    (void)s;
    p->faults++;
    send_error(p, error, where);
}

static void handle_message(cr_server *s, pss *p, const char *text, size_t len)
{
    json_error_t jerr;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j || !json_is_object(j)) {
        s->refused_message++;
        fault(s, p, j ? "expected a JSON object" : "malformed JSON", "message");
        json_decref(j);
        return;
    }
    const char *op = json_string_value(json_object_get(j, "op"));
    cr_view *v = s->views[p->lane];
    bool bad = false;
    char round[CR_ROUND_MAX];
    if (!op) {
        fault(s, p, "missing op", "op");
    } else if (strcmp(op, "ping") == 0) {
        q_push(p, cr_buf_new("{\"type\":\"pong\"}", 15));
    } else if (strcmp(op, "hello") == 0) {
        const char *token = json_string_value(json_object_get(j, "token"));
        const char *role = token ? cr_config_check_token(s->cfg.tournament, token) : NULL;
        if (token && !role) {
            char peer[64];
            peer_name(p->wsi, peer, sizeof peer);
            cr_log(CR_LOG_WARN, "ws %s: wrong token refused", peer);
            s->refused_token++;
            fault(s, p, "wrong token", "token");
        } else {
            set_trusted(s, p, role != NULL);
            p->arbiter = role && strcmp(role, "arbiter") == 0;
            json_t *w = json_pack("{s:s,s:b,s:s?,s:i,s:I}", "type", "welcome", "trusted", role != NULL,
                                  "role", role, "delay", p->trusted ? 0 : s->cfg.delay_s, "seq",
                                  (json_int_t)(cr_view_head(s->views[p->lane]) - 1));
            q_push(p, json_buf(w));
        }
    } else if (strcmp(op, "list") == 0) {
        bool has_round = round_field(j, round, sizeof round, &bad);
        if (bad) {
            fault(s, p, "round: expected a string", "round");
        } else {
            q_push(p, cr_view_games_json(v, has_round ? round : NULL));
        }
    } else if (strcmp(op, "subscribe") == 0 || strcmp(op, "unsubscribe") == 0) {
        bool unsub = op[0] == 'u';
        int64_t since = int_field(j, "since", -1, &bad);
        json_t *game = json_object_get(j, "game");
        bool has_round = round_field(j, round, sizeof round, &bad);
        if (bad || (game && !json_is_integer(game)) || (!game && !has_round)) {
            fault(s, p, "expected \"game\" (integer) or \"round\", and \"since\" >= 0", "subscribe");
        } else if (game) {
            int id = (int)json_integer_value(game);
            const cr_view_game *g = cr_view_find(v, id);
            if (unsub) {
                sub *sb = find_sub(p, id);
                if (sb) {
                    remove_sub(p, (int)(sb - p->subs));
                }
            } else if (!g) {
                fault(s, p, "unknown game", "game");
            } else {
                subscribe_game(s, p, g, since);
            }
        } else {
            int i;
            for (i = 0; i < p->nrsubs && strcmp(p->rsubs[i].round, round); i++) {
            }
            if (unsub) {
                if (i < p->nrsubs) {
                    p->rsubs[i] = p->rsubs[--p->nrsubs];
                }
                for (int k = 0; k < p->nsubs;) {
                    const cr_view_game *g = cr_view_find(v, p->subs[k].game);
                    if (g && strcmp(g->round, round) == 0) {
                        remove_sub(p, k);
                    } else {
                        k++;
                    }
                }
            } else {
                if (i == p->nrsubs) {
                    rsub *n = realloc(p->rsubs, (size_t)(p->nrsubs + 1) * sizeof *n);
                    if (n) {
                        p->rsubs = n;
                        snprintf(n[p->nrsubs].round, sizeof n->round, "%s", round);
                        p->nrsubs++;
                    }
                }
                if (i < p->nrsubs) {
                    int64_t head = cr_view_head(v);
                    p->rsubs[i].from = since >= 0 && since < head ? since : head - 1;
                }
                for (int k = 0; k < cr_view_game_count(v); k++) {
                    const cr_view_game *g = cr_view_game_at(v, k);
                    if (strcmp(g->round, round) == 0) {
                        subscribe_game(s, p, g, since);
                    }
                }
            }
        }
    } else if (strcmp(op, "arbiter") == 0 || strcmp(op, "arbiter-action") == 0) {
        /* arbiter monitoring (arbiter_link.h): the channel and the actions */
        if (!p->trusted || !p->arbiter) {
            fault(s, p, "not allowed without a valid token", "op");
        } else if (!s->cfg.arbiter) {
            send_error(p, "no arbiter monitoring on this relay", "op");
        } else if (op[7] == '\0') {
            if (!p->arbiter_sub) {
                p->arbiter_sub = true;
                p->arb_prev = NULL;
                p->arb_next = s->arbiters;
                if (s->arbiters) {
                    s->arbiters->arb_prev = p;
                }
                s->arbiters = p;
            }
            q_push(p, cr_arbiter_link_snapshot(s->cfg.arbiter));
        } else {
            cr_command_msg *c = calloc(1, sizeof *c);
            char e[160];
            if (!c) {
                send_error(p, "out of memory", "op");
            } else if (cr_arbiter_cmd_parse(text, len, &c->arbiter, e, sizeof e)) {
                fault(s, p, e, "arbiter-action");
            } else {
                c->kind = CR_COMMAND_ARBITER;
                c->game = c->arbiter.game;
                snprintf(c->who, sizeof c->who, "ws");
                snprintf(c->arbiter.who, sizeof c->arbiter.who, "ws");
                if (cr_queue_push(s->cmds, c, false)) {
                    c = NULL;
                    s->commands++;
                } else {
                    send_error(p, "busy, try again", "op");
                }
            }
            free(c);
        }
    } else if (strcmp(op, "result") == 0 || strcmp(op, "tag") == 0) {
        json_t *game = json_object_get(j, "game");
        cr_command_msg *c = calloc(1, sizeof *c);
        if (!p->trusted) {
            fault(s, p, "not allowed without a valid token", "op");
        } else if (!c || !json_is_integer(game)) {
            fault(s, p, "expected \"game\" (integer)", "game");
        } else {
            c->game = (int)json_integer_value(game);
            snprintf(c->who, sizeof c->who, "ws");
            bool ok = true;
            if (op[0] == 'r') {
                const char *r = json_string_value(json_object_get(j, "result"));
                int res = r ? cr_result_parse(r) : -1;
                c->kind = CR_COMMAND_RESULT;
                c->result = (cr_result)res;
                if (res < 0) {
                    ok = false;
                    fault(s, p, "expected \"result\": \"1-0\", \"0-1\", \"1/2-1/2\" or \"*\"",
                          "result");
                }
            } else {
                const char *name = json_string_value(json_object_get(j, "name"));
                const char *value = json_string_value(json_object_get(j, "value"));
                c->kind = CR_COMMAND_TAG;
                if (!name || !value || !name[0] || strlen(name) >= sizeof c->name ||
                    strlen(value) >= sizeof c->value || strchr(name, ' ')) {
                    ok = false;
                    fault(s, p, "expected \"name\" and \"value\" strings", "tag");
                } else {
                    snprintf(c->name, sizeof c->name, "%s", name);
                    snprintf(c->value, sizeof c->value, "%s", value);
                }
            }
            if (ok && !cr_queue_push(s->cmds, c, false)) {
                send_error(p, "busy, try again", "op");
            } else if (ok) {
                c = NULL;
                s->commands++;
            }
        }
        free(c);
    } else {
        char e[80];
        snprintf(e, sizeof e, "unknown op '%.40s'", op);
        fault(s, p, e, "op");
    }
    json_decref(j);
    slot_sync(s, p);
    if (p->qhead || p->tail < cr_view_head(s->views[p->lane])) {
        lws_callback_on_writable(p->wsi);
    }
}

/* Token bucket: `rate` messages a second, bursts of `rate`. */
static bool rate_ok(cr_server *s, pss *p)
{
    int64_t now = cr_mono_us();
    p->tokens += (double)(now - p->refill_us) * s->cfg.rate / 1e6;
    p->refill_us = now;
    if (p->tokens > s->cfg.rate) {
        p->tokens = s->cfg.rate;
    }
    if (p->tokens < 1) {
        return false;
    }
    p->tokens -= 1;
    return true;
}

static int viewer_receive(cr_server *s, pss *p, const char *in, size_t len)
{
    if (p->closing) {
        return 0; /* nothing more is read from a client being closed */
    }
    const char *msg;
    size_t msg_len;
    switch (cr_ws_rx_add(&p->rx, p->wsi, in, len, s->cfg.max_message, &msg, &msg_len)) {
    case CR_WS_RX_NOMEM:
        return -1;
    case CR_WS_RX_TOO_BIG:
        s->refused_message++;
        fault(s, p, "message too large", "message");
        break;
    case CR_WS_RX_MESSAGE:
        s->messages_in++;
        if (!rate_ok(s, p)) {
            s->refused_rate++;
            fault(s, p, "rate limit exceeded", "message");
        } else {
            handle_message(s, p, msg, msg_len);
        }
        cr_ws_rx_reset(&p->rx);
        break;
    case CR_WS_RX_MORE:
        break;
    }
    if (p->faults >= MAX_FAULTS && !p->closing) {
        char peer[64];
        peer_name(p->wsi, peer, sizeof peer);
        cr_log(CR_LOG_WARN, "ws %s: closing after %d faults", peer, p->faults);
        p->closing = true;
        lws_callback_on_writable(p->wsi);
    }
    return 0;
}

/*----- publications from the loop -----*/

static void drain_pubs(cr_server *s)
{
    bool lanes_changed[LANE_NB] = {false, false};
    cr_pub *p;
    int64_t now = cr_now_us();
    while ((p = cr_queue_pop(s->pubs)) != NULL) {
        switch (p->kind) {
        case CR_PUB_EVENT:
        case CR_PUB_STATE:
        case CR_PUB_MARK:
            for (int l = 0; l < LANE_NB; l++) {
                unsigned bit = l == LANE_LIVE ? CR_LANE_LIVE : CR_LANE_PUBLIC;
                if (p->lanes & bit) {
                    cr_view_apply(s->views[l], p, now);
                    lanes_changed[l] = true;
                }
            }
            if (p->kind == CR_PUB_EVENT && (p->lanes & CR_LANE_LIVE)) {
                s->events_total++;
                s->rate_window_events++;
            }
            break;
        case CR_PUB_STATS:
            s->ready = p->ready;
            s->boards_online = p->boards_online;
            s->boards_known = p->boards_known;
            s->journal_syncs = p->journal_syncs;
            cr_buf_unref(s->boards_metrics);
            s->boards_metrics = cr_buf_ref(p->boards_metrics);
            cr_buf_unref(s->boards_json);
            s->boards_json = cr_buf_ref(p->boards_json);
            cr_buf_unref(s->loop_metrics);
            s->loop_metrics = cr_buf_ref(p->loop_metrics);
            break;
        case CR_PUB_STOP:
            atomic_store(&s->stop, true);
            break;
        case CR_PUB_ARBITER: /* arbiter monitoring (arbiter_link.h) */
            for (pss *v = s->arbiters; v; v = v->arb_next) {
                if (v->trusted && v->arbiter) {
                    q_push(v, cr_buf_ref(p->event));
                    lws_callback_on_writable(v->wsi);
                }
            }
            break;
        }
        cr_pub_free(p);
    }
    int64_t mono = cr_mono_us();
    if (mono - s->rate_window_start >= 1000000) {
        s->events_per_s = (double)s->rate_window_events * 1e6 / (double)(mono - s->rate_window_start);
        s->rate_window_start = mono;
        s->rate_window_events = 0;
    }
    if (lanes_changed[LANE_LIVE] || lanes_changed[LANE_PUBLIC]) {
        for (int i = 0; i < s->nviewers; i++) {
            const vslot *v = &s->slots[i];
            if (v->subscribed && lanes_changed[v->lane]) {
                lws_callback_on_writable(v->wsi);
            }
        }
    }
}

/*----- HTTP -----*/

static const char builtin_page[] =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>chessrelay</title></head>\n"
    "<body><h1>chessrelay</h1><p>The web app is not built (run <code>npm ci &amp;&amp; npm run "
    "build</code> in <code>web/</code>, or set <code>web_root</code>).</p>\n"
    "<p>The relay runs: <a href=\"/live.pgn\">live PGN</a>, <a href=\"/games.json\">games</a>, "
    "<a href=\"/metrics\">metrics</a>; WebSocket at <code>/ws</code>.</p></body></html>\n";

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void http_date(int64_t us, char *buf, size_t size)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

/* Sends status, headers and (later, in HTTP_WRITEABLE) the body. Takes body.
 * modified_us: Last-Modified (0: none). etag: adds an ETag and answers 304
 * when If-None-Match has it. */
static int http_respond(cr_server *s, struct lws *wsi, pss *p, unsigned status, const char *ctype,
                        cr_buf *body, int64_t modified_us, bool etag)
{
    (void)s;
    unsigned char hbuf[LWS_PRE + 2048];
    unsigned char *start = hbuf + LWS_PRE, *q = start, *end = hbuf + sizeof hbuf - 1;
    char tag[40] = "", inm[128] = "";
    size_t len = body ? body->len : 0;
    if (etag && body) {
        snprintf(tag, sizeof tag, "\"%016" PRIx64 "\"", fnv1a(body->data, body->len));
        if (lws_hdr_copy(wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0 &&
            (strstr(inm, tag) || strcmp(inm, "*") == 0)) {
            status = HTTP_STATUS_NOT_MODIFIED;
            len = 0;
        }
    }
    if (lws_add_http_common_headers(wsi, status, ctype,
                                    status == HTTP_STATUS_NOT_MODIFIED ? LWS_ILLEGAL_HTTP_CONTENT_LEN
                                                                       : len,
                                    &q, end)) {
        cr_buf_unref(body);
        return 1;
    }
    if (tag[0] && lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_ETAG, (unsigned char *)tag,
                                               (int)strlen(tag), &q, end)) {
        cr_buf_unref(body);
        return 1;
    }
    if (modified_us > 0) {
        char date[64];
        http_date(modified_us, date, sizeof date);
        if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_LAST_MODIFIED, (unsigned char *)date,
                                         (int)strlen(date), &q, end)) {
            cr_buf_unref(body);
            return 1;
        }
    }
    static const char nocache[] = "no-cache";
    static const char any[] = "*";
    if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL, (const unsigned char *)nocache,
                                     (int)strlen(nocache), &q, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"access-control-allow-origin:",
                                    (const unsigned char *)any, 1, &q, end) ||
        lws_finalize_write_http_header(wsi, start, &q, end)) {
        cr_buf_unref(body);
        return 1;
    }
    if (len == 0) {
        cr_buf_unref(body);
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    p->kind = PSS_HTTP;
    p->body = body;
    p->off = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

static int http_text(cr_server *s, struct lws *wsi, pss *p, unsigned status, const char *text)
{
    return http_respond(s, wsi, p, status, "text/plain; charset=utf-8",
                        cr_buf_new(text, strlen(text)), 0, false);
}

static int http_writeable(struct lws *wsi, pss *p)
{
    if (p->kind != PSS_HTTP || !p->body) {
        return 0;
    }
    unsigned char buf[LWS_PRE + HTTP_CHUNK];
    size_t left = p->body->len - p->off;
    size_t n = left < HTTP_CHUNK ? left : HTTP_CHUNK;
    memcpy(buf + LWS_PRE, p->body->data + p->off, n);
    bool last = n == left;
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n) {
        return -1;
    }
    p->off += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    cr_buf_unref(p->body);
    p->body = NULL;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

static cr_buf *metrics_text(cr_server *s)
{
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    if (!f) {
        return NULL;
    }
    fprintf(f,
            "# HELP chessrelay_boards_connected Boards whose link is up.\n"
            "# TYPE chessrelay_boards_connected gauge\nchessrelay_boards_connected %d\n"
            "# HELP chessrelay_boards_known Boards seen since the start.\n"
            "# TYPE chessrelay_boards_known gauge\nchessrelay_boards_known %d\n"
            "# HELP chessrelay_viewers WebSocket connections.\n"
            "# TYPE chessrelay_viewers gauge\nchessrelay_viewers %d\n"
            "# HELP chessrelay_viewers_trusted Connections with a valid token.\n"
            "# TYPE chessrelay_viewers_trusted gauge\nchessrelay_viewers_trusted %d\n"
            "# HELP chessrelay_games Games in the store.\n"
            "# TYPE chessrelay_games gauge\nchessrelay_games %d\n"
            "# HELP chessrelay_events_total Events broadcast.\n"
            "# TYPE chessrelay_events_total counter\nchessrelay_events_total %" PRIu64 "\n"
            "# HELP chessrelay_events_per_second Events broadcast per second (last second).\n"
            "# TYPE chessrelay_events_per_second gauge\nchessrelay_events_per_second %.2f\n"
            "# HELP chessrelay_messages_sent_total WebSocket messages sent.\n"
            "# TYPE chessrelay_messages_sent_total counter\nchessrelay_messages_sent_total %" PRIu64 "\n"
            "# HELP chessrelay_messages_received_total WebSocket messages received.\n"
            "# TYPE chessrelay_messages_received_total counter\n"
            "chessrelay_messages_received_total %" PRIu64 "\n"
            "# HELP chessrelay_refused_total Refused client messages by reason.\n"
            "# TYPE chessrelay_refused_total counter\n"
            "chessrelay_refused_total{reason=\"token\"} %" PRIu64 "\n"
            "chessrelay_refused_total{reason=\"message\"} %" PRIu64 "\n"
            "chessrelay_refused_total{reason=\"rate\"} %" PRIu64 "\n"
            "# HELP chessrelay_resnapshots_total Slow viewers sent fresh snapshots.\n"
            "# TYPE chessrelay_resnapshots_total counter\nchessrelay_resnapshots_total %" PRIu64 "\n"
            "# HELP chessrelay_commands_total Arbiter/agent commands passed to the loop.\n"
            "# TYPE chessrelay_commands_total counter\nchessrelay_commands_total %" PRIu64 "\n"
            "# HELP chessrelay_http_requests_total HTTP requests.\n"
            "# TYPE chessrelay_http_requests_total counter\nchessrelay_http_requests_total %" PRIu64 "\n"
            "# HELP chessrelay_journal_syncs_total Journal fsyncs (group commits).\n"
            "# TYPE chessrelay_journal_syncs_total counter\nchessrelay_journal_syncs_total %" PRId64 "\n",
            s->boards_online, s->boards_known, s->nviewers, s->ntrusted,
            cr_view_game_count(s->views[LANE_LIVE]), s->events_total, s->events_per_s,
            s->messages_sent, s->messages_in, s->refused_token, s->refused_message, s->refused_rate,
            s->resnapshots, s->commands, s->http_requests, s->journal_syncs);
    fprintf(f, "# HELP chessrelay_delivery_latency_seconds From an event's ts to its write to a "
               "viewer (public delay excluded).\n"
               "# TYPE chessrelay_delivery_latency_seconds histogram\n");
    uint64_t cum = 0;
    for (size_t i = 0; i <= LATENCY_NB; i++) {
        cum += s->latency_buckets[i];
        if (i < LATENCY_NB) {
            fprintf(f, "chessrelay_delivery_latency_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
                    latency_bounds[i], cum);
        } else {
            fprintf(f, "chessrelay_delivery_latency_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", cum);
        }
    }
    fprintf(f, "chessrelay_delivery_latency_seconds_sum %.6f\n", s->latency_sum);
    fprintf(f, "chessrelay_delivery_latency_seconds_count %" PRIu64 "\n", s->latency_count);
    if (s->boards_metrics) {
        fwrite(s->boards_metrics->data, 1, s->boards_metrics->len, f);
    }
    if (s->loop_metrics) {
        fwrite(s->loop_metrics->data, 1, s->loop_metrics->len, f);
    }
    fclose(f);
    return cr_buf_take_str(out);
}

static const char *mime_of(const char *path)
{
    static const char *const map[][2] = {
        {".html", "text/html; charset=utf-8"}, {".js", "text/javascript"},
        {".mjs", "text/javascript"},           {".css", "text/css"},
        {".json", "application/json"},         {".svg", "image/svg+xml"},
        {".png", "image/png"},                 {".ico", "image/x-icon"},
        {".woff2", "font/woff2"},              {".woff", "font/woff"},
        {".txt", "text/plain; charset=utf-8"}, {".map", "application/json"},
        {".wasm", "application/wasm"},         {".webmanifest", "application/manifest+json"},
        {".pgn", "application/x-chess-pgn"},   {".jpg", "image/jpeg"}};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(dot, map[i][0]) == 0) {
            return map[i][1];
        }
    }
    return "application/octet-stream";
}

/* Only plain names under the web root: no "..", no hidden files, and the
 * resolved path (symlinks followed) must stay inside the root. */
static int serve_static(cr_server *s, struct lws *wsi, pss *p, const char *uri)
{
    if (!s->web_root) {
        if (strcmp(uri, "/") == 0 || strcmp(uri, "/index.html") == 0) {
            return http_respond(s, wsi, p, HTTP_STATUS_OK, "text/html; charset=utf-8",
                                cr_buf_new(builtin_page, strlen(builtin_page)), 0, false);
        }
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "not found\n");
    }
    const char *rel = strcmp(uri, "/") == 0 ? "/index.html" : uri;
    bool ok = rel[0] == '/' && strlen(rel) < 1024 && !strchr(rel, '\\');
    for (const char *c = rel; ok && *c; c++) {
        if (c[0] == '/' && (c[1] == '.' || c[1] == '/')) {
            ok = false;
        }
    }
    if (!ok) {
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "not found\n");
    }
    char path[PATH_MAX + 1100], real[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", s->web_root, rel);
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) || !S_ISREG(st.st_mode) ||
        strncmp(real, s->web_root, strlen(s->web_root)) || real[strlen(s->web_root)] != '/') {
        /* A client-side route (no extension) gets the app itself. */
        const char *last = strrchr(rel, '/');
        if (!strchr(last, '.')) {
            snprintf(path, sizeof path, "%s/index.html", s->web_root);
            if (realpath(path, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode)) {
                goto serve;
            }
        }
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "not found\n");
    }
serve:;
    int n = lws_serve_http_file(wsi, real, mime_of(real), NULL, 0);
    if (n < 0) {
        return -1;
    }
    if (n > 0 && lws_http_transaction_completed(wsi)) {
        return -1;
    }
    return 0;
}

static int http_request(cr_server *s, struct lws *wsi, pss *p, const char *uri)
{
    s->http_requests++;
    p->kind = PSS_HTTP;
    char token[300];
    bearer_token(wsi, token, sizeof token);
    int lane = LANE_PUBLIC;
    if (token[0]) {
        if (cr_config_check_token(s->cfg.tournament, token)) {
            lane = LANE_LIVE;
        } else {
            char peer[64];
            peer_name(wsi, peer, sizeof peer);
            cr_log(CR_LOG_WARN, "http %s: wrong token refused", peer);
            s->refused_token++;
            return http_text(s, wsi, p, HTTP_STATUS_UNAUTHORIZED, "wrong token\n");
        }
    }
    if (!lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI)) {
        return http_text(s, wsi, p, HTTP_STATUS_METHOD_NOT_ALLOWED, "only GET\n");
    }
    cr_view *v = s->views[lane];
    if (strncmp(uri, "/arbiter/", 9) == 0) { /* arbiter monitoring (arbiter_link.h) */
        const char *role = token[0] ? cr_config_check_token(s->cfg.tournament, token) : NULL;
        int status = 404;
        const char *ctype = "text/plain; charset=utf-8";
        cr_buf *b = s->cfg.arbiter ? cr_arbiter_link_http(s->cfg.arbiter, uri,
                                                          role && strcmp(role, "arbiter") == 0,
                                                          &status, &ctype)
                                   : cr_buf_new("no arbiter monitoring\n", 22);
        return http_respond(s, wsi, p, (unsigned)status, ctype, b, 0, false);
    }
    if (strcmp(uri, "/healthz") == 0) {
        return s->ready ? http_text(s, wsi, p, HTTP_STATUS_OK, "ok\n")
                        : http_text(s, wsi, p, HTTP_STATUS_SERVICE_UNAVAILABLE, "starting\n");
    }
    if (strcmp(uri, "/metrics") == 0) {
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "text/plain; version=0.0.4", metrics_text(s),
                            0, false);
    }
    if (strcmp(uri, "/games.json") == 0) {
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json",
                            cr_view_games_array(v, NULL), cr_view_modified(v, NULL), true);
    }
    if (strcmp(uri, "/boards.json") == 0) { /* live boards' link health (source_boards.h) */
        cr_buf *body = s->boards_json ? cr_buf_ref(s->boards_json) : cr_buf_new("[]", 2);
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json", body, 0, false);
    }
    if (strcmp(uri, "/live.pgn") == 0) {
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/x-chess-pgn",
                            cr_view_pgn(v, NULL), cr_view_modified(v, NULL), true);
    }
    size_t n = strlen(uri);
    if (strncmp(uri, "/round/", 7) == 0 && n > 11 && strcmp(uri + n - 4, ".pgn") == 0 &&
        n - 11 < CR_ROUND_MAX) {
        char round[CR_ROUND_MAX];
        memcpy(round, uri + 7, n - 11);
        round[n - 11] = '\0';
        cr_buf *b = cr_view_pgn(v, round);
        if (!b) {
            return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "no such round\n");
        }
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/x-chess-pgn", b,
                            cr_view_modified(v, round), true);
    }
    if (strncmp(uri, "/game/", 6) == 0 && n > 10 && strcmp(uri + n - 4, ".pgn") == 0) {
        char *end;
        long id = strtol(uri + 6, &end, 10);
        const cr_view_game *g = end == uri + n - 4 && id > 0 && id < INT_MAX ? cr_view_find(v, (int)id)
                                                                            : NULL;
        if (!g || !g->pgn) {
            return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "no such game\n");
        }
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/x-chess-pgn",
                            cr_buf_ref(g->pgn), g->modified_us, true);
    }
    if (strcmp(uri, "/agents.json") == 0 && s->cfg.agents) { /* agent_link.h */
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json",
                            cr_agent_link_status_json(s->cfg.agents), 0, false);
    }
    if (strcmp(uri, "/ws") == 0) {
        return http_text(s, wsi, p, 426, "WebSocket upgrade required\n");
    }
    return serve_static(s, wsi, p, uri);
}

/*----- the lws callback -----*/

static bool origin_allowed(cr_server *s, struct lws *wsi)
{
    const cr_config *t = s->cfg.tournament;
    if (!t || !t->origin_count) {
        return true;
    }
    char origin[256];
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0) {
        return true; /* not a browser: the Origin check guards browsers only */
    }
    for (int i = 0; i < t->origin_count; i++) {
        if (strcmp(origin, t->origins[i]) == 0) {
            return true;
        }
    }
    return false;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    cr_server *s = ctx ? lws_context_user(ctx) : NULL;
    pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (s) {
            atomic_store(&s->pubs_waiting, false);
            drain_pubs(s);
        }
        return 0;
    case LWS_CALLBACK_HTTP:
        return http_request(s, wsi, p, in ? (const char *)in : "/");
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return http_writeable(wsi, p);
    case LWS_CALLBACK_CLOSED_HTTP:
        if (p && p->kind == PSS_HTTP) {
            cr_buf_unref(p->body);
            p->body = NULL;
        }
        return 0;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        char uri[64];
        if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 || strcmp(uri, "/ws") != 0) {
            return 1;
        }
        if (!origin_allowed(s, wsi)) {
            char peer[64];
            peer_name(wsi, peer, sizeof peer);
            cr_log(CR_LOG_WARN, "ws %s: origin refused", peer);
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        if (p->kind == PSS_HTTP) {
            cr_buf_unref(p->body);
        }
        memset(p, 0, sizeof *p);
        p->kind = PSS_WS;
        p->wsi = wsi;
        p->lane = LANE_PUBLIC;
        p->tokens = s->cfg.rate;
        p->refill_us = cr_mono_us();
        char token[300];
        bearer_token(wsi, token, sizeof token);
        if (token[0]) {
            const char *role = cr_config_check_token(s->cfg.tournament, token);
            if (role) {
                p->arbiter = strcmp(role, "arbiter") == 0; /* arbiter monitoring (arbiter_link.h) */
                p->trusted = true;
                p->lane = LANE_LIVE;
                s->ntrusted++;
            } else {
                char peer[64];
                peer_name(wsi, peer, sizeof peer);
                cr_log(CR_LOG_WARN, "ws %s: wrong token refused", peer);
                s->refused_token++;
                send_error(p, "wrong token", "token");
            }
        }
        p->tail = cr_view_head(s->views[p->lane]);
        if (!slot_add(s, p)) {
            if (p->trusted) {
                s->ntrusted--;
            }
            free_viewer(p);
            p->kind = PSS_NONE;
            return -1;
        }
        return 0;
    }
    case LWS_CALLBACK_CLOSED:
        if (p && p->kind == PSS_WS) {
            slot_remove(s, p);
            if (p->arbiter_sub) {
                if (p->arb_prev) {
                    p->arb_prev->arb_next = p->arb_next;
                } else {
                    s->arbiters = p->arb_next;
                }
                if (p->arb_next) {
                    p->arb_next->arb_prev = p->arb_prev;
                }
            }
            if (p->trusted) {
                s->ntrusted--;
            }
            free_viewer(p);
            p->kind = PSS_NONE;
        }
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return p && p->kind == PSS_WS ? viewer_receive(s, p, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return p && p->kind == PSS_WS ? viewer_writeable(s, p) : 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/*----- the thread -----*/

static void lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
        n--;
    }
    cr_log(level == LLL_ERR ? CR_LOG_ERROR : CR_LOG_WARN, "lws: %.*s", (int)n, line);
}

static void wake_server(void *data)
{
    cr_server *s = data;
    atomic_store(&s->pubs_waiting, true);
    lws_cancel_service(s->ctx);
}

static void *service_thread(void *arg)
{
    cr_server *s = arg;
    prctl(PR_SET_NAME, "cr-lws"); /* for top -H and the load bench's CPU figures */
    while (!atomic_load(&s->stop)) {
        if (lws_service(s->ctx, 0) < 0) {
            cr_log(CR_LOG_ERROR, "server thread: lws_service failed, no more broadcasts");
            break;
        }
    }
    /* Nobody pops any more: a producer waiting for room must not wait forever. */
    cr_queue_close(s->pubs);
    return NULL;
}

char *cr_server_find_web_root(void)
{
    char buf[PATH_MAX], real[PATH_MAX];
    const char *env = getenv("CR_WEB_ROOT");
    if (env && realpath(env, real)) {
        return strdup(real);
    }
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 40);
    if (n > 0) {
        buf[n] = '\0';
        char *slash = strrchr(buf, '/');
        if (slash) {
            strcpy(slash, "/../share/chessrelay/web");
            if (realpath(buf, real)) {
                return strdup(real);
            }
        }
    }
#ifdef CR_SOURCE_DIR
    if (realpath(CR_SOURCE_DIR "/web/dist", real)) {
        return strdup(real);
    }
#endif
    return NULL;
}

cr_server *cr_server_start(const cr_server_config *cfg, cr_queue *pubs, cr_queue *cmds,
                           cr_error *err)
{
    cr_server *s = calloc(1, sizeof *s);
    if (!s) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (!s->cfg.ring) {
        s->cfg.ring = 8192;
    }
    if (!s->cfg.backlog) {
        s->cfg.backlog = 1024;
    }
    if (!s->cfg.max_message) {
        s->cfg.max_message = 4096;
    }
    if (s->cfg.rate <= 0) {
        s->cfg.rate = 20;
    }
    s->pubs = pubs;
    s->cmds = cmds;
    s->rate_window_start = cr_mono_us();
    char real[PATH_MAX];
    if (cfg->web_root) {
        if (realpath(cfg->web_root, real)) {
            s->web_root = strdup(real);
        } else {
            cr_log(CR_LOG_WARN, "web root %s: %s (serving the built-in page)", cfg->web_root,
                   strerror(errno));
        }
    } else {
        s->web_root = cr_server_find_web_root();
    }
    for (int l = 0; l < LANE_NB; l++) {
        s->views[l] = cr_view_new(s->cfg.ring);
        if (!s->views[l]) {
            cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
            goto fail;
        }
    }
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    s->protocols[0] = (struct lws_protocols){
        .name = "chessrelay",
        .callback = callback,
        .per_session_data_size = sizeof(pss),
        /* Messages over this size arrive in pieces that are collected (and
         * counted against the 4 KiB limit); a small buffer keeps idle
         * viewers cheap. */
        .rx_buffer_size = 1024,
    };
    if (cfg->agents) {
        s->protocols[1] = cr_agent_link_protocol(cfg->agents); /* agent_link.h */
    }
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = cfg->port;
    info.iface = cfg->host && cfg->host[0] ? cfg->host : NULL;
    info.protocols = s->protocols;
    info.user = s;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;
    if (info.iface && strchr(info.iface, ':')) {
        info.options &= ~(uint64_t)LWS_SERVER_OPTION_DISABLE_IPV6;
    }
    if (cfg->tls_cert && cfg->tls_key) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = cfg->tls_cert;
        info.ssl_private_key_filepath = cfg->tls_key;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        info.fd_limit_per_thread = (unsigned)rl.rlim_cur;
    }
    s->ctx = lws_create_context(&info);
    if (!s->ctx) {
        cr_error_set(err, CR_EIO, 0, 0, "cannot listen on %s:%d (address in use, or TLS files bad?)",
                     info.iface ? info.iface : "*", cfg->port);
        goto fail;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(s->ctx, "default");
    s->port = vh ? lws_get_vhost_listen_port(vh) : cfg->port;
    cr_queue_set_wake(pubs, wake_server, s);
    /* SIGINT/SIGTERM are for the caller's thread: never interrupt lws's poll. */
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old_mask);
    int rc = pthread_create(&s->thread, NULL, service_thread, s);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (rc) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "cannot start the server thread");
        lws_context_destroy(s->ctx);
        goto fail;
    }
    if (cr_queue_length(pubs)) {
        lws_cancel_service(s->ctx);
    }
    return s;
fail:
    for (int l = 0; l < LANE_NB; l++) {
        cr_view_free(s->views[l]);
    }
    free(s->web_root);
    free(s);
    return NULL;
}

int cr_server_port(const cr_server *s)
{
    return s->port;
}

void cr_server_stop(cr_server *s)
{
    if (!s) {
        return;
    }
    atomic_store(&s->stop, true);
    cr_queue_set_wake(s->pubs, NULL, NULL);
    lws_cancel_service(s->ctx);
    pthread_join(s->thread, NULL);
    lws_context_destroy(s->ctx);
    cr_buf_unref(s->boards_metrics);
    cr_buf_unref(s->boards_json);
    cr_buf_unref(s->loop_metrics);
    for (int l = 0; l < LANE_NB; l++) {
        cr_view_free(s->views[l]);
    }
    free(s->wbuf);
    free(s->slots);
    free(s->web_root);
    free(s);
}
