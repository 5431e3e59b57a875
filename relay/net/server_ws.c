/* chessrelay relay: the server's WebSocket viewers (docs/protocol.md):
 * subscriptions, the ops of client messages (a table),
 * delivery of the lanes' events and the publications from the loop.
 *
 * Broadcast follows the lws ring example: each lane keeps a ring of already
 * serialised events (cr_view); every viewer has a tail (the next seq it has
 * not looked at) and is sent what is ready, up to WRITE_BATCH messages in one
 * send, per WRITEABLE callback. Replies and
 * snapshots go first through a small per-viewer queue of shared buffers. A
 * viewer that lags more than `backlog` events, or whose tail fell off the
 * ring, gets fresh snapshots of its games instead of the events it missed.
 * A round subscribed with "summary" is served from the ring's summary
 * messages (one per game changed, the latest only) and caught up with the
 * round's list of summaries, never with its games' snapshots. */
#include "net/server_private.h"

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
#include <strings.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_link.h"
#include "cr/pgn.h"
#include "util/grow.h"
#include "util/log.h"
#include "net/view.h"
#include "net/livechess.h"

const double cr_srv_latency_bounds[LATENCY_NB] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                  0.05,   0.1,   0.25,   0.5,   1.0,  2.5};

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

/* A write is due. Without a socket (the fuzz target) there is none. */
static void want_write(pss *p)
{
    if (p->wsi) {
        lws_callback_on_writable(p->wsi);
    }
}

void cr_srv_send_error(pss *p, const char *error, const char *where)
{
    json_t *j = json_pack("{s:s,s:s,s:s}", "type", "error", "error", error, "where", where);
    q_push(p, json_buf(j));
    want_write(p);
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
    sub *n = cr_grow(p->subs, &p->capsubs, (size_t)p->nsubs + 1, sizeof *n, 4);
    if (!n) {
        return NULL;
    }
    p->subs = n;
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

void cr_srv_free_viewer(pss *p)
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

bool cr_srv_slot_add(cr_server *s, pss *p)
{
    vslot *n = cr_grow(s->slots, &s->capslots, (size_t)s->nviewers + 1, sizeof *n, 64);
    if (!n) {
        return false;
    }
    s->slots = n;
    p->slot = s->nviewers++;
    s->slots[p->slot] = (vslot){.wsi = p->wsi, .p = p, .lane = p->lane};
    return true;
}

void cr_srv_slot_remove(cr_server *s, pss *p)
{
    s->slots[p->slot] = s->slots[--s->nviewers];
    s->slots[p->slot].p->slot = p->slot;
}

static void slot_sync(cr_server *s, pss *p)
{
    s->slots[p->slot].lane = p->lane;
    s->slots[p->slot].subscribed = p->nsubs || p->nrsubs;
}

void cr_srv_peer_name(cr_server *s, struct lws *wsi, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!s->limits || !cr_limits_client_text(s->limits, wsi, buf, size)) {
        lws_get_peer_simple(wsi, buf, size);
    }
    if (!buf[0]) {
        snprintf(buf, size, "?");
    }
}

cr_srv_auth cr_srv_bearer_token(struct lws *wsi, char *buf, size_t size)
{
    char hdr[512];
    buf[0] = '\0';
    int total = lws_hdr_total_length(wsi, WSI_TOKEN_HTTP_AUTHORIZATION);
    if (total <= 0) {
        return CR_AUTH_NONE;
    }
    /* Never served as public: a header that does not fit is refused. */
    if ((size_t)total >= sizeof hdr ||
        lws_hdr_copy(wsi, hdr, sizeof hdr, WSI_TOKEN_HTTP_AUTHORIZATION) <= 0) {
        return CR_AUTH_TOO_LARGE;
    }
    if (strncasecmp(hdr, "Bearer ", 7) != 0 || !hdr[7]) { /* the scheme is case-insensitive */
        return CR_AUTH_BAD;
    }
    size_t n = strlen(hdr + 7);
    if (n >= size) {
        return CR_AUTH_TOO_LARGE;
    }
    memcpy(buf, hdr + 7, n + 1);
    return CR_AUTH_TOKEN;
}

const char *cr_srv_check_token(cr_server *s, struct lws *wsi, const char *token, bool *throttled,
                               const char **name)
{
    /* A right token passes a throttled address (someone else there, behind
     * a venue's NAT or a proxy, mistyped), but only within the address's
     * budget of checks (net/limits.h): guessing stays bounded (issue 27). */
    *throttled = false;
    if (name) {
        *name = NULL;
    }
    if (s->limits && !cr_limits_token_check(s->limits, wsi)) {
        s->refused_token++;
        *throttled = true;
        return NULL;
    }
    const cr_config_token *t = cr_config_find_token(s->cfg.tournament, token);
    const char *role = t ? t->role : NULL;
    if (name) {
        *name = t && t->name[0] ? t->name : role;
    }
    if (!role) {
        /* Counted, and logged in the limits' summary: a guesser makes no
         * log line per guess. */
        s->refused_token++;
        *throttled = s->limits && cr_limits_token_wrong(s->limits, wsi);
    }
    return role;
}

bool cr_srv_role_arbiter(const char *role)
{
    return role && strcmp(role, "arbiter") == 0;
}

/*----- subscriptions and delivery -----*/

/* Subscribes p to game g of its lane, from `since` (-1: with a snapshot). */
static void subscribe_game(cr_server *s, pss *p, const cr_view_game *g, int64_t since)
{
    cr_view *v = s->views[p->lane];
    int64_t head = cr_view_head(v);
    if (since >= 0 && since < head && since >= g->seq) {
        add_sub(p, g->id, since); /* the client has everything of this game */
        q_push(p, cr_buf_ref(g->evals)); /* but evals have no seq: all of them */
    } else if (since >= 0 && since < head && since + 1 >= cr_view_oldest(v)) {
        /* Every event after `since` is held: rewind the tail; events of
         * other games already sent are skipped by their subs' `seen`. */
        add_sub(p, g->id, since);
        q_push(p, cr_buf_ref(g->evals));
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
        if (p->rsubs[i].summary) {
            q_push(p, cr_view_round_list(v, p->rsubs[i].round, cr_view_head(v) - 1));
            continue;
        }
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

/* What p gets for ring entry e (borrowed): the event for a game it follows
 * whole, the game's summary for a round it follows by summaries, or NULL. */
static cr_buf *wanted(cr_server *s, pss *p, const cr_view_entry *e)
{
    sub *sb = find_sub(p, e->game);
    if (sb) {
        if (e->seq > sb->seen) {
            sb->seen = e->seq;
            return e->msg;
        }
        return NULL;
    }
    if (!p->nrsubs) {
        return NULL;
    }
    const cr_view_game *g = cr_view_find(s->views[p->lane], e->game);
    if (!g) {
        return NULL;
    }
    for (int i = 0; i < p->nrsubs; i++) {
        rsub *r = &p->rsubs[i];
        if (strcmp(r->round, g->round) != 0 || e->seq <= r->from) {
            continue;
        }
        if (r->summary) {
            /* A later event of the game is ahead in the ring: its summary
             * says all this one would (a lagging viewer gets one per game). */
            if (g->seq > e->seq || !e->summary) {
                return NULL;
            }
            r->from = e->seq;
            return e->summary;
        }
        add_sub(p, e->game, e->seq);
        return e->msg;
    }
    return NULL;
}

static void note_latency(cr_server *s, const cr_view_entry *e, int lane, int64_t now)
{
    int64_t lat = now - e->ts - (lane == LANE_PUBLIC ? (int64_t)s->cfg.delay_s * 1000000 : 0);
    double sec = lat < 0 ? 0 : (double)lat / 1e6;
    size_t i = 0;
    while (i < LATENCY_NB && sec > cr_srv_latency_bounds[i]) {
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
        b = e ? wanted(s, p, e) : NULL;
        if (b) {
            note_latency(s, e, p->lane, now);
            return cr_buf_ref(b);
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

/* Publications pushed since the last drain, if any, applied now: an event
 * that comes while a broadcast round is under way (a clock press a few ms
 * after its move) goes out in the same round, in the same send as the
 * event before it to every viewer not yet written, instead of in a round
 * of its own after this one. */
static void drain_if_waiting(cr_server *s)
{
    if (atomic_load_explicit(&s->pubs_waiting, memory_order_relaxed) &&
        atomic_exchange(&s->pubs_waiting, false)) {
        cr_srv_drain_pubs(s);
    }
}

/* Writes the messages ready for p, up to WRITE_BATCH, in one send: after a
 * burst (a move and its clock, a few games at once) a viewer costs one
 * syscall per service round, not one per message, and the viewers late in
 * the round wait that much less. Several messages are framed here and
 * written raw (lws passes LWS_WRITE_HTTP through unchanged on a WebSocket;
 * no extension is negotiated); a single one goes through lws_write as
 * usual. Re-armed while more waits. */
int cr_srv_viewer_writeable(cr_server *s, pss *p)
{
    drain_if_waiting(s);
    cr_view *v = s->views[p->lane];
    cr_buf *batch[WRITE_BATCH];
    int n = 0;
    size_t total = 0;
    int64_t now = cr_now_us();
    /* On HTTP/2 (a WebSocket as an RFC 8441 stream) lws passes no raw write
     * through (it binned the batch and the viewer was closed): one message
     * per turn, framed by lws. */
    int most = lws_get_network_wsi(p->wsi) != p->wsi ? 1 : WRITE_BATCH;
    while (n < most && total < BATCH_BYTES) {
        cr_buf *b = next_message(s, p, now);
        if (!b) {
            break;
        }
        batch[n++] = b;
        total += b->len + 10;
    }
    if (n == 0 && p->closing && !p->qhead) {
        lws_close_reason(p->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION,
                         (unsigned char *)"too many faults", 15);
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
    } else if (n) {
        cr_srv_flush_later(s, p->wsi); /* a WebSocket over HTTP/2 */
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
    cr_srv_send_error(p, error, where);
}

/* One client message, parsed: what an op's handler gets. */
typedef struct ws_msg {
    json_t *j;
    const char *op;
    const char *text; /* the message as received (arbiter actions parse it again) */
    size_t len;
} ws_msg;

static void op_ping(cr_server *s, pss *p, const ws_msg *m)
{
    (void)s;
    (void)m;
    q_push(p, cr_buf_new("{\"type\":\"pong\"}", 15));
}

static void op_hello(cr_server *s, pss *p, const ws_msg *m)
{
    const char *token = json_string_value(json_object_get(m->j, "token"));
    bool throttled = false;
    const char *name = NULL;
    const char *role = token ? cr_srv_check_token(s, p->wsi, token, &throttled, &name) : NULL;
    if (token && !role) {
        fault(s, p, throttled ? "too many wrong tokens from this address: wait a minute"
                              : "wrong token",
              "token");
        return;
    }
    p->greeted = true;
    snprintf(p->who, sizeof p->who, "%s", cr_srv_role_arbiter(role) && name ? name : "");
    /* An agent's token is valid but gives nothing here: a viewer. */
    set_trusted(s, p, cr_srv_role_arbiter(role));
    p->arbiter = cr_srv_role_arbiter(role);
    json_t *w = json_pack("{s:s,s:b,s:s?,s:i,s:I}", "type", "welcome", "trusted", p->trusted,
                          "role", role, "delay", p->trusted ? 0 : s->cfg.delay_s, "seq",
                          (json_int_t)(cr_view_head(s->views[p->lane]) - 1));
    q_push(p, json_buf(w));
}

static void op_list(cr_server *s, pss *p, const ws_msg *m)
{
    p->greeted = true;
    bool bad = false;
    char round[CR_ROUND_MAX];
    bool has_round = round_field(m->j, round, sizeof round, &bad);
    if (bad) {
        fault(s, p, "round: expected a string", "round");
    } else {
        q_push(p, cr_view_games_json(s->views[p->lane], has_round ? round : NULL));
    }
}

static void subscribe_one(cr_server *s, pss *p, int id, int64_t since, bool unsub)
{
    const cr_view_game *g = cr_view_find(s->views[p->lane], id);
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
}

/* A round by summaries: the list now (or, resuming, the summaries of the
 * games changed since `since`), then a game's summary at each change. */
static void subscribe_summaries(cr_server *s, pss *p, rsub *r, int64_t since)
{
    cr_view *v = s->views[p->lane];
    int64_t head = cr_view_head(v);
    r->summary = true;
    if (since >= 0 && since < head && since + 1 >= cr_view_oldest(v)) {
        r->from = since;
        if (p->tail > since + 1) {
            p->tail = since + 1;
        }
    } else {
        r->from = head - 1;
        q_push(p, cr_view_round_list(v, r->round, head - 1));
    }
}

/* A round: its games now, and (until unsubscribed) those that join it. */
static void subscribe_round(cr_server *s, pss *p, const char *round, int64_t since, bool unsub,
                            bool summary)
{
    cr_view *v = s->views[p->lane];
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
        return;
    }
    if (i == p->nrsubs) {
        rsub *n = realloc(p->rsubs, (size_t)(p->nrsubs + 1) * sizeof *n);
        if (n) {
            p->rsubs = n;
            snprintf(n[p->nrsubs].round, sizeof n->round, "%s", round);
            n[p->nrsubs].summary = false;
            p->nrsubs++;
        }
    }
    if (i < p->nrsubs && summary) {
        subscribe_summaries(s, p, &p->rsubs[i], since);
        return;
    }
    if (i < p->nrsubs) {
        int64_t head = cr_view_head(v);
        p->rsubs[i].from = since >= 0 && since < head ? since : head - 1;
        p->rsubs[i].summary = false;
    }
    for (int k = 0; k < cr_view_game_count(v); k++) {
        const cr_view_game *g = cr_view_game_at(v, k);
        if (strcmp(g->round, round) == 0) {
            subscribe_game(s, p, g, since);
        }
    }
}

static void op_subscribe(cr_server *s, pss *p, const ws_msg *m)
{
    p->greeted = true;
    bool unsub = m->op[0] == 'u', bad = false;
    char round[CR_ROUND_MAX];
    int64_t since = int_field(m->j, "since", -1, &bad);
    json_t *game = json_object_get(m->j, "game");
    bool has_round = round_field(m->j, round, sizeof round, &bad);
    json_t *summary = json_object_get(m->j, "summary");
    if (bad || (game && (!json_is_integer(game) || json_integer_value(game) < 1 ||
                         json_integer_value(game) > INT_MAX)) ||
        (!game && !has_round) || (summary && !json_is_boolean(summary))) {
        fault(s, p,
              "expected \"game\" (integer) or \"round\", \"since\" >= 0 and \"summary\" "
              "true or false",
              "subscribe");
    } else if (game) {
        subscribe_one(s, p, (int)json_integer_value(game), since, unsub);
    } else {
        subscribe_round(s, p, round, since, unsub, json_is_true(summary));
    }
}

/* Hands a command to the loop thread (never waits). Takes c. */
static void send_command(cr_server *s, pss *p, cr_command_msg *c)
{
    if (cr_queue_push(s->cmds, c, false)) {
        s->commands++;
    } else {
        cr_srv_send_error(p, "busy, try again", "op");
        free(c);
    }
}

static void send_to_viewer(void *data, cr_buf *b)
{
    q_push(data, b);
}

/* The arbiter channel (joined from the latest snapshot) and the actions,
 * which go to the loop as commands. */
static void op_arbiter(cr_server *s, pss *p, const ws_msg *m)
{
    p->greeted = true;
    if (!p->trusted || !p->arbiter) {
        fault(s, p, "not allowed without an arbiter's token", "op");
        return;
    }
    if (!s->arbiter) {
        cr_srv_send_error(p, "no arbiter monitoring on this relay", "op");
        return;
    }
    if (m->op[7] == '\0') {
        if (!p->arbiter_sub) {
            p->arbiter_sub = true;
            p->arb_prev = NULL;
            p->arb_next = s->arbiters;
            if (s->arbiters) {
                s->arbiters->arb_prev = p;
            }
            s->arbiters = p;
        }
        cr_arbiter_view_join(s->arbiter, send_to_viewer, p);
        return;
    }
    cr_command_msg *c = calloc(1, sizeof *c);
    char e[160];
    if (!c) {
        cr_srv_send_error(p, "out of memory", "op");
    } else if (cr_arbiter_cmd_parse(m->text, m->len, &c->arbiter, e, sizeof e)) {
        fault(s, p, e, "arbiter-action");
        free(c);
    } else {
        c->kind = CR_COMMAND_ARBITER;
        c->game = c->arbiter.game;
        snprintf(c->who, sizeof c->who, "%s", p->who[0] ? p->who : "ws");
        snprintf(c->arbiter.who, sizeof c->arbiter.who, "%s", p->who[0] ? p->who : "ws");
        send_command(s, p, c);
    }
}

/* "accept-board": the game goes on from the board's position; "side"
 * ("w"/"b", optional) is who is to move there. */
static bool accept_board_fields(cr_server *s, pss *p, const ws_msg *m, cr_command_msg *c)
{
    json_t *side = json_object_get(m->j, "side");
    const char *sv = json_string_value(side);
    c->kind = CR_COMMAND_ACCEPT_BOARD;
    c->side = -1;
    if (side && (!sv || (strcmp(sv, "w") != 0 && strcmp(sv, "b") != 0))) {
        fault(s, p, "side: expected \"w\" or \"b\" (or no side: the clock says)", "side");
        return false;
    }
    if (sv) {
        c->side = sv[0] == 'w' ? CR_WHITE : CR_BLACK;
    }
    return true;
}

/* A result or tag command's fields into c; false (fault sent) if wrong. */
static bool command_fields(cr_server *s, pss *p, const ws_msg *m, cr_command_msg *c)
{
    if (m->op[0] == 'a') {
        return accept_board_fields(s, p, m, c);
    }
    if (m->op[0] == 'r') {
        const char *r = json_string_value(json_object_get(m->j, "result"));
        int res = r ? cr_result_parse(r) : -1;
        c->kind = CR_COMMAND_RESULT;
        c->result = (cr_result)res;
        if (res < 0) {
            fault(s, p, "expected \"result\": \"1-0\", \"0-1\", \"1/2-1/2\" or \"*\"", "result");
            return false;
        }
        return true;
    }
    const char *name = json_string_value(json_object_get(m->j, "name"));
    const char *value = json_string_value(json_object_get(m->j, "value"));
    c->kind = CR_COMMAND_TAG;
    if (!name || !value || strlen(name) >= sizeof c->name || strlen(value) >= sizeof c->value ||
        !cr_pgn_tag_name_ok(name)) {
        char e[120];
        snprintf(e, sizeof e,
                 "expected \"name\" (1 to %d letters, digits, '_') and \"value\" (at most %d bytes)",
                 (int)sizeof c->name - 1, (int)sizeof c->value - 1);
        fault(s, p, e, "tag");
        return false;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->value, sizeof c->value, "%s", value);
    return true;
}

static void op_command(cr_server *s, pss *p, const ws_msg *m)
{
    json_t *game = json_object_get(m->j, "game");
    cr_command_msg *c = calloc(1, sizeof *c);
    if (!p->trusted || !p->arbiter) {
        fault(s, p, "not allowed without an arbiter's token", "op");
    } else if (!c || !json_is_integer(game) || json_integer_value(game) < 1 ||
               json_integer_value(game) > INT_MAX) {
        fault(s, p, "expected \"game\" (a game number)", "game");
    } else {
        c->game = (int)json_integer_value(game);
        snprintf(c->who, sizeof c->who, "%s", p->who[0] ? p->who : "ws");
        if (command_fields(s, p, m, c)) {
            send_command(s, p, c);
            return;
        }
    }
    free(c);
}

/* The ops of docs/protocol.md. */
static const struct {
    const char *name;
    void (*run)(cr_server *s, pss *p, const ws_msg *m);
} ops[] = {
    {"ping", op_ping},
    {"hello", op_hello},
    {"list", op_list},
    {"subscribe", op_subscribe},
    {"unsubscribe", op_subscribe},
    {"arbiter", op_arbiter},
    {"arbiter-action", op_arbiter},
    {"result", op_command},
    {"tag", op_command},
    {"accept-board", op_command},
};

void cr_srv_viewer_message(cr_server *s, pss *p, const char *text, size_t len)
{
    json_error_t jerr;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j || !json_is_object(j)) {
        s->refused_message++;
        fault(s, p, j ? "expected a JSON object" : "malformed JSON", "message");
        json_decref(j);
        return;
    }
    ws_msg m = {j, json_string_value(json_object_get(j, "op")), text, len};
    size_t k = 0;
    while (m.op && k < sizeof ops / sizeof ops[0] && strcmp(m.op, ops[k].name) != 0) {
        k++;
    }
    if (!m.op) {
        fault(s, p, "missing op", "op");
    } else if (k < sizeof ops / sizeof ops[0]) {
        ops[k].run(s, p, &m);
    } else {
        char e[80];
        snprintf(e, sizeof e, "unknown op '%.40s'", m.op);
        fault(s, p, e, "op");
    }
    json_decref(j);
    slot_sync(s, p);
    if (p->qhead || p->tail < cr_view_head(s->views[p->lane])) {
        want_write(p);
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

int cr_srv_viewer_receive(cr_server *s, pss *p, const char *in, size_t len)
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
            cr_srv_viewer_message(s, p, msg, msg_len);
        }
        cr_ws_rx_reset(&p->rx);
        break;
    case CR_WS_RX_MORE:
        break;
    }
    if (p->faults >= MAX_FAULTS && !p->closing) {
        char peer[64];
        cr_srv_peer_name(s, p->wsi, peer, sizeof peer);
        cr_log(CR_LOG_WARN, "ws %s: closing after %d faults", peer, p->faults);
        p->closing = true;
        lws_callback_on_writable(p->wsi);
    }
    return 0;
}

/*----- publications from the loop -----*/

/* Whether p follows this round by summaries. */
static bool summary_round(const pss *p, const char *round)
{
    for (int i = 0; i < p->nrsubs; i++) {
        if (p->rsubs[i].summary && strcmp(p->rsubs[i].round, round) == 0) {
            return true;
        }
    }
    return false;
}

void cr_srv_drain_pubs(cr_server *s)
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
            snprintf(s->problem, sizeof s->problem, "%s", p->problem);
            s->boards_online = p->boards_online;
            s->boards_known = p->boards_known;
            s->journal_syncs = p->journal_syncs;
            cr_buf_unref(s->boards_metrics);
            s->boards_metrics = cr_buf_ref(p->boards_metrics);
            cr_buf_unref(s->boards_json);
            s->boards_json = cr_buf_ref(p->boards_json);
            cr_buf_unref(s->pairings_json);
            s->pairings_json = cr_buf_ref(p->pairings_json);
            cr_buf_unref(s->results_trf);
            s->results_trf = cr_buf_ref(p->results_trf);
            cr_buf_unref(s->loop_metrics);
            s->loop_metrics = cr_buf_ref(p->loop_metrics);
            break;
        case CR_PUB_STOP:
            atomic_store(&s->stop, true);
            break;
        case CR_PUB_EVAL: /* engine evaluations (engine/evals.h): to the game's viewers */
            for (int l = 0; l < LANE_NB; l++) {
                unsigned bit = l == LANE_LIVE ? CR_LANE_LIVE : CR_LANE_PUBLIC;
                if (!(p->lanes & bit)) {
                    continue;
                }
                cr_view_apply(s->views[l], p, now);
                for (int i = 0; i < s->nviewers; i++) {
                    pss *vp = s->slots[i].p;
                    /* A viewer with that many messages waiting is far
                     * behind: it misses these evals (they are in every
                     * later snapshot, and in "evals" on a resume). */
                    if (s->slots[i].lane != l || !s->slots[i].subscribed ||
                        vp->qlen >= EVAL_QUEUE_MAX) {
                        continue;
                    }
                    /* A round's overview shows the eval of its last move: the
                     * game's summary again, to a viewer past the game's last
                     * event only (its seq must not run ahead of the ring). */
                    cr_buf *b = find_sub(vp, p->game) ? p->event
                                : summary_round(vp, p->round) && vp->tail > p->seq ? p->summary_msg
                                                                                   : NULL;
                    if (b) {
                        q_push(vp, cr_buf_ref(b));
                        lws_callback_on_writable(vp->wsi);
                    }
                }
            }
            break;
        case CR_PUB_ARBITER:
            for (pss *v = s->arbiters; v; v = v->arb_next) {
                if (v->trusted && v->arbiter) {
                    q_push(v, cr_buf_ref(p->event));
                    lws_callback_on_writable(v->wsi);
                }
            }
            if (s->arbiter) { /* kept for the dashboards that join */
                cr_arbiter_view_apply(s->arbiter, p);
            }
            break;
        case CR_PUB_EBOARD: /* the DGT LiveChess API (net/livechess.h) */
            cr_livechess_apply(s->livechess, p);
            break;
        case CR_PUB_ARBITER_STATE:
        case CR_PUB_ARBITER_REPORT:
            if (s->arbiter) {
                cr_arbiter_view_apply(s->arbiter, p);
            }
            break;
        }
        cr_pub_free(p);
    }
    int64_t mono = cr_mono_us();
    if (mono - s->rate_window_start >= 1000000) {
        s->events_per_s =
            (double)s->rate_window_events * 1e6 / (double)(mono - s->rate_window_start);
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
