/* chessrelay relay: the agents' records, shared by the agent link's two
 * threads under one mutex (see the header). */
#include "agent/agent_records.h"

#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_msg.h"
#include "util/grow.h"
#include "util/log.h"

typedef struct aboard {
    char id[CR_BOARD_ID_MAX + 1];
    uint64_t events;
    int64_t last_us; /* wall time of its last event at the relay */
    int64_t lag_ms;  /* how long that event waited at the agent */
    bool online;
} aboard;

/* One agent; every field under the records' lock but `name`. */
struct cr_agent_rec {
    char name[CR_AGENT_ID_MAX + 1];
    bool has_off;
    int64_t off;       /* relay clock - agent clock (+ margin) */
    int64_t recv;      /* highest number handed to the loop */
    int64_t journaled; /* highest number fed and journaled, or held by the journal (loop) */
    uint64_t jpos;     /* the journal position of that event's line */
    bool lost;         /* the journal refused a line: no ack again in this run */
    int64_t durable;   /* highest number synced (loop) */
    int64_t last;      /* the agent's own last number, as it said */
    int64_t clock;     /* the agent's clock, as it said */
    bool has_wm;
    int64_t wm;        /* watermark delivered to the loop (agent clock) */
    bool done;         /* its bye reached the loop after all its events (loop order) */
    bool connected, left;
    void *conn;        /* its current connection (the server thread's) */
    int64_t notified;  /* durable as last announced to the server thread */
    int64_t since_us, seen_us, away_us;
    uint64_t connects, events, dups, skipped, refused;
    char peer[64];
    aboard *boards;
    int nboards;
};

struct cr_agent_records {
    pthread_mutex_t lock;
    cr_agent_rec **agents;
    int nagents;
    size_t capagents;
    void (*wake)(void *); /* the server thread's wake-up */
    void *wake_data;
};

cr_agent_records *cr_agent_records_new(void)
{
    cr_agent_records *s = calloc(1, sizeof *s);
    if (s) {
        pthread_mutex_init(&s->lock, NULL);
    }
    return s;
}

void cr_agent_records_free(cr_agent_records *s)
{
    if (!s) {
        return;
    }
    for (int i = 0; i < s->nagents; i++) {
        free(s->agents[i]->boards);
        free(s->agents[i]);
    }
    free(s->agents);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* The record of agent `name` (created if asked); lock held. */
static cr_agent_rec *find_rec(cr_agent_records *s, const char *name, bool create)
{
    for (int i = 0; i < s->nagents; i++) {
        if (strcmp(s->agents[i]->name, name) == 0) {
            return s->agents[i];
        }
    }
    if (!create) {
        return NULL;
    }
    cr_agent_rec **n = cr_grow(s->agents, &s->capagents, (size_t)s->nagents + 1, sizeof *n, 8);
    if (!n) {
        return NULL;
    }
    s->agents = n;
    cr_agent_rec *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    snprintf(r->name, sizeof r->name, "%s", name);
    r->away_us = cr_now_us();
    s->agents[s->nagents++] = r;
    return r;
}

/* A board of agent r (added if new); lock held. */
static aboard *find_board(cr_agent_rec *r, const char *id)
{
    for (int i = 0; i < r->nboards; i++) {
        if (strcmp(r->boards[i].id, id) == 0) {
            return &r->boards[i];
        }
    }
    aboard *n = realloc(r->boards, (size_t)(r->nboards + 1) * sizeof *n);
    if (!n) {
        return NULL;
    }
    r->boards = n;
    aboard *b = &n[r->nboards++];
    memset(b, 0, sizeof *b);
    snprintf(b->id, sizeof b->id, "%s", id);
    b->online = true;
    return b;
}

cr_agent_rec *cr_agent_records_get(cr_agent_records *s, const char *name, bool create)
{
    pthread_mutex_lock(&s->lock);
    cr_agent_rec *r = find_rec(s, name, create);
    pthread_mutex_unlock(&s->lock);
    return r;
}

const char *cr_agent_rec_name(const cr_agent_rec *r)
{
    return r->name;
}

int64_t cr_agent_records_journaled(cr_agent_records *s, const char *name)
{
    pthread_mutex_lock(&s->lock);
    cr_agent_rec *r = find_rec(s, name, false);
    int64_t n = r ? r->journaled : 0;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/*----- the scan -----*/

void cr_agent_records_log(cr_agent_records *s)
{
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->nagents; i++) {
        cr_log(CR_LOG_INFO, "agent %s: journal holds its events up to %" PRId64, s->agents[i]->name,
               s->agents[i]->journaled);
    }
    pthread_mutex_unlock(&s->lock);
}

void cr_agent_records_scan_bye(cr_agent_records *s, cr_agent_rec *r, int64_t n)
{
    pthread_mutex_lock(&s->lock);
    r->left = r->done = true;
    r->last = n > r->last ? n : r->last;
    pthread_mutex_unlock(&s->lock);
}

void cr_agent_records_scan_back(cr_agent_records *s, cr_agent_rec *r)
{
    pthread_mutex_lock(&s->lock);
    r->left = r->done = false;
    pthread_mutex_unlock(&s->lock);
}

void cr_agent_records_scan_event(cr_agent_records *s, cr_agent_rec *r, int64_t n, int64_t off,
                                 const char *board, bool has_t, int64_t t)
{
    pthread_mutex_lock(&s->lock);
    if (n > r->journaled) {
        r->journaled = r->durable = r->recv = r->last = n;
    }
    r->off = off;
    r->has_off = true;
    if (has_t) { /* until the agent is back, ticks stay at its last event */
        r->wm = t - off;
        r->has_wm = true;
    }
    aboard *b = board ? find_board(r, board) : NULL;
    if (b) {
        b->events++;
    }
    pthread_mutex_unlock(&s->lock);
}

/*----- loop thread -----*/

bool cr_agent_records_fix_offset(cr_agent_records *s, cr_agent_rec *r, int64_t off, int64_t *out)
{
    pthread_mutex_lock(&s->lock);
    bool first = !r->has_off;
    if (first) {
        r->off = off;
        r->has_off = true;
    }
    *out = r->off;
    pthread_mutex_unlock(&s->lock);
    return first;
}

bool cr_agent_records_have(cr_agent_records *s, cr_agent_rec *r, int64_t n)
{
    pthread_mutex_lock(&s->lock);
    bool have = n <= r->journaled;
    pthread_mutex_unlock(&s->lock);
    return have;
}

uint64_t cr_agent_records_refused(cr_agent_records *s, cr_agent_rec *r)
{
    pthread_mutex_lock(&s->lock);
    uint64_t refused = ++r->refused;
    pthread_mutex_unlock(&s->lock);
    return refused;
}

bool cr_agent_records_delivered(cr_agent_records *s, cr_agent_rec *r, int64_t n, uint64_t pos,
                                bool journaled, const cr_feed_event *ev, int64_t lag_ms)
{
    pthread_mutex_lock(&s->lock);
    bool lost = journaled && !pos && !r->lost;
    r->lost |= lost;
    r->jpos = pos;
    r->journaled = n;
    r->events++;
    if (ev) {
        aboard *b = find_board(r, ev->board);
        if (b) {
            b->events++;
            b->last_us = cr_now_us();
            b->lag_ms = lag_ms;
            if (ev->kind == CR_FEED_CONNECT || ev->kind == CR_FEED_DISCONNECT) {
                b->online = ev->kind == CR_FEED_CONNECT;
            }
        }
    } else {
        r->skipped++;
    }
    pthread_mutex_unlock(&s->lock);
    return lost;
}

void cr_agent_records_watermark(cr_agent_records *s, cr_agent_rec *r, int64_t clock)
{
    pthread_mutex_lock(&s->lock);
    if (!r->has_wm || clock > r->wm) {
        r->wm = clock;
        r->has_wm = true;
    }
    r->done = false;
    pthread_mutex_unlock(&s->lock);
}

int64_t cr_agent_records_bye_in(cr_agent_records *s, cr_agent_rec *r)
{
    pthread_mutex_lock(&s->lock);
    r->done = true;
    int64_t last = r->last;
    pthread_mutex_unlock(&s->lock);
    return last;
}

bool cr_agent_records_synced(cr_agent_records *s, uint64_t durable)
{
    bool changed = false;
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->nagents; i++) {
        cr_agent_rec *r = s->agents[i];
        if (!r->lost && r->jpos <= durable && r->durable < r->journaled) {
            r->durable = r->journaled;
            changed = true;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return changed;
}

int64_t cr_agent_records_board_bound(cr_agent_records *s, const char *name, int64_t bound)
{
    pthread_mutex_lock(&s->lock);
    const cr_agent_rec *r = find_rec(s, name, false);
    /* No time limit here: however long the agent is away, its events up
     * to now may still come, with their own times. */
    if (r && !r->done && r->has_off && r->has_wm && r->wm + r->off < bound) {
        bound = r->wm + r->off;
    }
    pthread_mutex_unlock(&s->lock);
    return bound;
}

int64_t cr_agent_records_tick_bound(cr_agent_records *s, int64_t bound, int64_t now_us,
                                    int64_t hold_us)
{
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->nagents; i++) {
        cr_agent_rec *r = s->agents[i];
        int64_t since = r->connected ? r->seen_us : r->away_us;
        if (r->left || !r->has_off || !r->has_wm || now_us - since >= hold_us) {
            continue;
        }
        if (r->wm + r->off < bound) {
            bound = r->wm + r->off;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return bound;
}

/*----- server thread -----*/

void cr_agent_records_set_wake(cr_agent_records *s, void (*fn)(void *), void *data)
{
    pthread_mutex_lock(&s->lock);
    s->wake = fn;
    s->wake_data = data;
    pthread_mutex_unlock(&s->lock);
}

void cr_agent_records_wake(cr_agent_records *s)
{
    /* Under the lock: the server thread does not clear it mid-call. */
    pthread_mutex_lock(&s->lock);
    if (s->wake) {
        s->wake(s->wake_data);
    }
    pthread_mutex_unlock(&s->lock);
}

cr_agent_rec *cr_agent_records_hello(cr_agent_records *s, const char *name, void *conn,
                                     const char *peer, int64_t n, int64_t clock,
                                     cr_agent_hello_info *info)
{
    pthread_mutex_lock(&s->lock);
    cr_agent_rec *r = find_rec(s, name, true);
    if (r) {
        info->replaced = r->connected && r->conn && r->conn != conn ? r->conn : NULL;
        r->connected = true;
        r->left = false;
        r->conn = conn;
        r->since_us = r->seen_us = cr_now_us();
        r->last = n > r->last ? n : r->last;
        r->clock = clock;
        r->connects++;
        r->notified = r->durable;
        info->durable = r->durable;
        snprintf(r->peer, sizeof r->peer, "%s", peer);
    }
    pthread_mutex_unlock(&s->lock);
    return r;
}

int64_t cr_agent_records_expected(cr_agent_records *s, cr_agent_rec *r)
{
    pthread_mutex_lock(&s->lock);
    int64_t next = r->recv + 1;
    pthread_mutex_unlock(&s->lock);
    return next;
}

int64_t cr_agent_records_received(cr_agent_records *s, cr_agent_rec *r, int64_t first,
                                  size_t count, int64_t clock, size_t *skip, int64_t *old)
{
    pthread_mutex_lock(&s->lock);
    if (!count) {
        first = r->recv + 1;
    }
    int64_t end = first + (int64_t)count; /* [first, end) */
    *old = r->recv;
    *skip = first <= *old ? (size_t)(*old - first + 1) : 0;
    if (*skip > count) {
        *skip = count;
    }
    r->dups += *skip;
    r->seen_us = cr_now_us();
    r->clock = clock;
    if (end - 1 > r->last) {
        r->last = end - 1;
    }
    if (*skip < count) {
        r->recv = end - 1;
    }
    pthread_mutex_unlock(&s->lock);
    return first;
}

void cr_agent_records_unreceive(cr_agent_records *s, cr_agent_rec *r, int64_t last, int64_t old)
{
    pthread_mutex_lock(&s->lock);
    if (r->recv == last) {
        r->recv = old;
    }
    pthread_mutex_unlock(&s->lock);
}

void cr_agent_records_seen(cr_agent_records *s, cr_agent_rec *r, int64_t n, bool bye)
{
    pthread_mutex_lock(&s->lock);
    r->seen_us = cr_now_us();
    r->last = n > r->last ? n : r->last;
    r->left = bye;
    pthread_mutex_unlock(&s->lock);
}

bool cr_agent_records_current(cr_agent_records *s, cr_agent_rec *r, const void *conn,
                              int64_t *durable)
{
    pthread_mutex_lock(&s->lock);
    *durable = r->durable;
    bool current = r->conn == conn;
    pthread_mutex_unlock(&s->lock);
    return current;
}

void cr_agent_records_notify(cr_agent_records *s, void (*fn)(void *conn))
{
    pthread_mutex_lock(&s->lock);
    for (int i = 0; i < s->nagents; i++) {
        cr_agent_rec *r = s->agents[i];
        if (r->connected && r->conn && r->durable > r->notified) {
            r->notified = r->durable;
            fn(r->conn);
        }
    }
    pthread_mutex_unlock(&s->lock);
}

bool cr_agent_records_closed(cr_agent_records *s, cr_agent_rec *r, const void *conn)
{
    pthread_mutex_lock(&s->lock);
    bool current = r->conn == conn;
    if (current) {
        r->conn = NULL;
        r->connected = false;
        r->away_us = cr_now_us();
    }
    pthread_mutex_unlock(&s->lock);
    return current;
}

/*----- status -----*/

cr_buf *cr_agent_records_status_json(cr_agent_records *s)
{
    json_t *arr = json_array();
    int64_t now = cr_now_us();
    pthread_mutex_lock(&s->lock);
    for (int i = 0; arr && i < s->nagents; i++) {
        cr_agent_rec *r = s->agents[i];
        json_t *boards = json_array();
        for (int k = 0; boards && k < r->nboards; k++) {
            aboard *b = &r->boards[k];
            const char *health = !r->connected ? "agent-away" : b->online ? "online" : "offline";
            json_array_append_new(
                boards, json_pack("{s:s,s:s,s:I,s:I,s:I}", "board", b->id, "health", health,
                                  "events", (json_int_t)b->events, "last_event_ms_ago",
                                  (json_int_t)(b->last_us ? (now - b->last_us) / 1000 : -1),
                                  "lag_ms", (json_int_t)b->lag_ms));
        }
        json_t *o = json_pack(
            "{s:s,s:b,s:b,s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o}", "agent", r->name,
            "connected", r->connected, "left", r->left, "peer", r->peer, "last_seen_ms_ago",
            (json_int_t)(r->seen_us ? (now - r->seen_us) / 1000 : -1), "connects",
            (json_int_t)r->connects, "last", (json_int_t)r->last, "received", (json_int_t)r->recv,
            "journaled", (json_int_t)r->journaled, "acked", (json_int_t)r->durable, "behind",
            (json_int_t)(r->last > r->durable ? r->last - r->durable : 0), "duplicates",
            (json_int_t)r->dups, "skipped", (json_int_t)r->skipped, "refused",
            (json_int_t)r->refused, "clock_offset_ms",
            (json_int_t)r->off, "boards", boards ? boards : json_array());
        json_array_append_new(arr, o);
    }
    pthread_mutex_unlock(&s->lock);
    if (!arr) {
        return NULL;
    }
    json_t *top = json_pack("{s:o}", "agents", arr);
    char *text = top ? json_dumps(top, JSON_COMPACT) : NULL;
    json_decref(top);
    return cr_buf_take_str(text);
}
