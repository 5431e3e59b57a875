/* chessrelay relay: the relay's end of the agent link. */
#include "agent/agent_link.h"

#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_msg.h"
#include "core/journal.h"
#include "core/journal_lines.h"
#include "util/grow.h"
#include "util/log.h"
#include "net/queue.h"
#include "net/ws_text.h"
#include "util/prom.h"

enum {
    IN_QUEUE = 4096,          /* batches in flight to the loop */
    HOLD_US = 10 * 1000 * 1000, /* an agent away (or silent) this long no longer holds ticks */
    SILENT_S = 20,              /* an agent silent this long is disconnected (it ticks 4/s) */
    MAX_FAULTS = 5
};

typedef struct aboard {
    char id[CR_BOARD_ID_MAX + 1];
    uint64_t events;
    int64_t last_us; /* wall time of its last event at the relay */
    int64_t lag_ms;  /* how long that event waited at the agent */
    bool online;
} aboard;

/* One agent. Fields are guarded by the link's lock; `wsi` and `notified`
 * are touched by the server thread only. */
typedef struct agent_rec {
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
    struct lws *wsi;
    int64_t notified;  /* durable as last announced to the server thread */
    int64_t since_us, seen_us, away_us;
    uint64_t connects, events, dups, skipped, refused;
    char peer[64];
    aboard *boards;
    int nboards;
} agent_rec;

/* Who fed a board first: an agent, or the relay's own sources (""). */
typedef struct owner {
    char board[CR_BOARD_ID_MAX + 1];
    char agent[CR_AGENT_ID_MAX + 1];
} owner;

/* Events refused because another source owns the board: per board and
 * refused source (loop thread). */
typedef struct refusal {
    char board[CR_BOARD_ID_MAX + 1];
    char source[CR_AGENT_ID_MAX + 1]; /* an agent id; "" for the relay's own sources */
    uint64_t count;
} refusal;
enum { REFUSALS_MAX = 1024 }; /* pairs counted one by one; the rest together */

typedef struct item {
    agent_rec *rec;
    const cr_config_token *tok; /* the token it came with */
    int64_t first, clock;
    bool bye; /* the agent's bye: everything of it is in before this */
    size_t count;
    char **lines;
    size_t *lens;
} item;

struct cr_agent_link {
    cr_config_token *token; /* --agent-token, or NULL */
    const cr_config *tournament;
    double speed;
    pthread_mutex_t lock;
    agent_rec **agents;
    int nagents;
    size_t capagents;
    cr_queue *in;
    struct lws_context *ctx;
    struct event *ev;
    cr_agent_feed_fn feed;
    cr_agent_clock_fn clock;
    void *data;
    bool journaled;
    int64_t created_us;
    char *buf; /* journal text being built (loop thread) */
    size_t bufcap;
    owner *owners; /* boards and their first source (loop thread, and the scan) */
    int nowners;
    refusal *refusals; /* loop thread */
    int nrefusals;
    uint64_t refusals_other; /* pairs past REFUSALS_MAX */
    cr_agent_refused_fn on_refused;
    void *refused_data;
};

/* Per connection; lws allocates it zeroed. */
typedef struct apss {
    struct lws *wsi;
    agent_rec *rec;
    const cr_config_token *tok; /* the token of its hello */
    bool welcome;  /* a welcome is due */
    int64_t acked; /* last ack sent */
    char *out;     /* an error to send, then close */
    bool closing;
    cr_ws_rx rx;
    int faults;
} apss;

static void free_item(void *p)
{
    item *it = p;
    if (!it) {
        return;
    }
    for (size_t i = 0; i < it->count; i++) {
        free(it->lines[i]);
    }
    free(it->lines);
    free(it->lens);
    free(it);
}

/* The record of agent `name` (created if needed); lock held. */
static agent_rec *find_rec(cr_agent_link *l, const char *name, bool create)
{
    for (int i = 0; i < l->nagents; i++) {
        if (strcmp(l->agents[i]->name, name) == 0) {
            return l->agents[i];
        }
    }
    if (!create) {
        return NULL;
    }
    agent_rec **n = cr_grow(l->agents, &l->capagents, (size_t)l->nagents + 1, sizeof *n, 8);
    if (!n) {
        return NULL;
    }
    l->agents = n;
    agent_rec *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    snprintf(r->name, sizeof r->name, "%s", name);
    r->away_us = cr_now_us();
    l->agents[l->nagents++] = r;
    return r;
}

static aboard *find_board(agent_rec *r, const char *id)
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

/* The first source of board `board`, or NULL; loop thread. */
static owner *find_owner(cr_agent_link *l, const char *board)
{
    for (int i = 0; i < l->nowners; i++) {
        if (strcmp(l->owners[i].board, board) == 0) {
            return &l->owners[i];
        }
    }
    return NULL;
}

const char *cr_agent_link_owner(const cr_agent_link *l, const char *board)
{
    owner *o = l ? find_owner((cr_agent_link *)l, board) : NULL;
    return o && o->agent[0] ? o->agent : NULL;
}

/* Board `board` is fed by `agent` ("" for the relay's own sources): true if
 * it is that source's (its first source, now or before). */
static bool claim(cr_agent_link *l, const char *board, const char *agent)
{
    owner *o = find_owner(l, board);
    if (o) {
        return strcmp(o->agent, agent) == 0;
    }
    owner *n = realloc(l->owners, (size_t)(l->nowners + 1) * sizeof *n);
    if (!n) {
        return false;
    }
    l->owners = n;
    o = &n[l->nowners++];
    snprintf(o->board, sizeof o->board, "%s", board);
    snprintf(o->agent, sizeof o->agent, "%s", agent);
    return true;
}

/* The board id of a feed line (its second word) into out; false if none. */
static bool line_board(const char *line, size_t len, char *out)
{
    const char *sp = memchr(line, ' ', len);
    if (!sp) {
        return false;
    }
    const char *id = sp + 1;
    const char *end = memchr(id, ' ', len - (size_t)(id - line));
    size_t idn = end ? (size_t)(end - id) : len - (size_t)(id - line);
    if (!idn || idn > CR_BOARD_ID_MAX) {
        return false;
    }
    memcpy(out, id, idn);
    out[idn] = '\0';
    return true;
}

/*----- the scan of the relay's journals -----*/

typedef struct scan {
    cr_agent_link *l;
    agent_rec *pending; /* a comment waiting for its feed line */
    int64_t n, off;
} scan;

_Static_assert(CR_AGENT_ID_MAX <= CR_JLINE_ID_MAX, "an agent id fits a journal record");

/* An agent record of the journal within the link's bounds (the grammar
 * takes any number; what an agent may send is narrower). */
static bool agent_record_ok(const cr_jline *jl)
{
    if (jl->kind == CR_JLINE_AGENT_BYE) {
        return cr_agent_id_valid(jl->u.bye.id) && jl->u.bye.n <= CR_AGENT_SEQ_MAX;
    }
    return cr_agent_id_valid(jl->u.agent.id) && jl->u.agent.n <= CR_AGENT_SEQ_MAX &&
           jl->u.agent.off <= 4 * CR_AGENT_TIME_MAX && jl->u.agent.off >= -4 * CR_AGENT_TIME_MAX;
}

static void confirm(agent_rec *r, int64_t n, int64_t off)
{
    if (n > r->journaled) {
        r->journaled = r->durable = r->recv = r->last = n;
    }
    r->off = off;
    r->has_off = true;
}

static int scan_line(void *data, const char *line, size_t len, const char *file, int lineno)
{
    scan *s = data;
    cr_jline jl;
    char why[160];
    if (len && line[0] == '#') {
        s->pending = NULL;
        /* A record that cannot be read is the rebuild's to report. */
        if (cr_jline_parse(line, len, &jl, why, sizeof why) ||
            (jl.kind != CR_JLINE_AGENT && jl.kind != CR_JLINE_AGENT_BYE)) {
            return 0;
        }
        if (!agent_record_ok(&jl)) {
            cr_log(CR_LOG_WARN, "journal: %s:%d: an agent record out of bounds (ignored)", file,
                   lineno);
            return 0;
        }
        bool bye = jl.kind == CR_JLINE_AGENT_BYE;
        agent_rec *r = find_rec(s->l, bye ? jl.u.bye.id : jl.u.agent.id, true);
        if (!r) {
            return CR_ENOMEM;
        }
        if (bye) {
            r->left = r->done = true;
            r->last = jl.u.bye.n > r->last ? jl.u.bye.n : r->last;
        } else if (jl.u.agent.skip) {
            r->left = r->done = false; /* back after a bye: events again */
            confirm(r, jl.u.agent.n, jl.u.agent.off);
        } else {
            r->left = r->done = false;
            s->pending = r;
            s->n = jl.u.agent.n;
            s->off = jl.u.agent.off;
        }
        return 0;
    }
    char board[CR_BOARD_ID_MAX + 1];
    if (!s->pending && len && line_board(line, len, board)) {
        claim(s->l, board, ""); /* the relay's own source fed it */
    }
    /* The comment and its line are one write: both are whole here, so the
     * event is in the journal. */
    if (s->pending && len) {
        confirm(s->pending, s->n, s->off);
        /* Until the agent is back, ticks stay at its last event. */
        char num[24];
        size_t k = len < sizeof num - 1 ? len : sizeof num - 1;
        memcpy(num, line, k); /* the line is not NUL-terminated */
        num[k] = '\0';
        long long t;
        if (sscanf(num, "%lld", &t) == 1 && t < 4 * CR_AGENT_TIME_MAX && t > -4 * CR_AGENT_TIME_MAX) {
            s->pending->wm = (int64_t)t - s->off;
            s->pending->has_wm = true;
        }
        /* Its board, for /agents.json: the id is the line's second word. */
        if (line_board(line, len, board)) {
            claim(s->l, board, s->pending->name);
            aboard *b = find_board(s->pending, board);
            if (b) {
                b->events++;
            }
        }
    }
    s->pending = NULL;
    return 0;
}

/*----- lifetime -----*/

cr_agent_link *cr_agent_link_new(const cr_agent_link_config *cfg, cr_error *err)
{
    cr_agent_link *l = calloc(1, sizeof *l);
    if (!l) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&l->lock, NULL);
    l->tournament = cfg->tournament;
    l->speed = cfg->speed > 0 ? cfg->speed : 1.0;
    l->created_us = cr_now_us();
    l->in = cr_queue_new(IN_QUEUE, NULL, NULL);
    if (cfg->token && (l->token = malloc(sizeof *l->token))) {
        *l->token = *cfg->token;
    }
    if ((cfg->token && !l->token) || !l->in) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        cr_agent_link_free(l);
        return NULL;
    }
    if (cfg->state_dir) {
        scan s = {l, NULL, 0, 0};
        int rc = cr_journal_replay(cfg->state_dir, scan_line, &s, NULL, err);
        if (rc) {
            if (rc != CR_EIO) {
                cr_error_set(err, rc, 0, 0, "%s: agents: %s", cfg->state_dir, cr_strerror(rc));
            }
            cr_agent_link_free(l);
            return NULL;
        }
        for (int i = 0; i < l->nagents; i++) {
            cr_log(CR_LOG_INFO, "agent %s: journal holds its events up to %" PRId64,
                   l->agents[i]->name, l->agents[i]->journaled);
        }
    }
    return l;
}

void cr_agent_link_free(cr_agent_link *l)
{
    if (!l) {
        return;
    }
    if (l->ev) {
        event_free(l->ev);
    }
    if (l->in) {
        cr_queue_free(l->in, free_item);
    }
    for (int i = 0; i < l->nagents; i++) {
        free(l->agents[i]->boards);
        free(l->agents[i]);
    }
    free(l->agents);
    free(l->owners);
    free(l->refusals);
    free(l->token);
    free(l->buf);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

int64_t cr_agent_link_journaled(cr_agent_link *l, const char *agent)
{
    pthread_mutex_lock(&l->lock);
    agent_rec *r = find_rec(l, agent, false);
    int64_t n = r ? r->journaled : 0;
    pthread_mutex_unlock(&l->lock);
    return n;
}

/*----- loop thread -----*/

static bool reserve(cr_agent_link *l, size_t need)
{
    if (need <= l->bufcap) {
        return true;
    }
    char *n = realloc(l->buf, need);
    if (!n) {
        return false;
    }
    l->buf = n;
    l->bufcap = need;
    return true;
}

/* An event of `source` ("" for the relay's own) for `board`, which `owner`
 * ("" likewise) fed first, refused: counted; the first of the pair told to
 * on_refused. */
static void refused_owned(cr_agent_link *l, const char *board, const char *source,
                          const char *owner_name)
{
    for (int i = 0; i < l->nrefusals; i++) {
        if (strcmp(l->refusals[i].board, board) == 0 &&
            strcmp(l->refusals[i].source, source) == 0) {
            l->refusals[i].count++;
            return;
        }
    }
    refusal *n = l->nrefusals < REFUSALS_MAX
                     ? realloc(l->refusals, (size_t)(l->nrefusals + 1) * sizeof *n)
                     : NULL;
    if (!n) {
        l->refusals_other++;
        return;
    }
    l->refusals = n;
    refusal *f = &n[l->nrefusals++];
    snprintf(f->board, sizeof f->board, "%s", board);
    snprintf(f->source, sizeof f->source, "%s", source);
    f->count = 1;
    if (l->on_refused) {
        l->on_refused(l->refused_data, board, source, owner_name);
    }
}

void cr_agent_link_on_refused(cr_agent_link *l, cr_agent_refused_fn fn, void *data)
{
    l->on_refused = fn;
    l->refused_data = data;
}

void cr_agent_link_metrics(const cr_agent_link *l, FILE *f)
{
    fprintf(f, "# HELP chessrelay_board_ownership_refused_total Events refused because another "
               "source fed the board first, by board and refused source (agent:ID, or relay).\n"
               "# TYPE chessrelay_board_ownership_refused_total counter\n");
    for (int i = 0; i < l->nrefusals; i++) {
        const refusal *r = &l->refusals[i];
        fputs("chessrelay_board_ownership_refused_total{board=\"", f);
        cr_prom_label(f, r->board);
        fprintf(f, "\",source=\"%s", r->source[0] ? "agent:" : "relay");
        cr_prom_label(f, r->source);
        fprintf(f, "\"} %" PRIu64 "\n", r->count);
    }
    if (l->refusals_other) {
        fprintf(f, "chessrelay_board_ownership_refused_total{board=\"\",source=\"\"} %" PRIu64 "\n",
                l->refusals_other);
    }
}

/* Whether agent r (with token tok) may feed ev's board: its token lists it
 * (or lists none) and no other source fed it first. Reported when not. */
static bool may_feed(cr_agent_link *l, agent_rec *r, const cr_config_token *tok,
                     const cr_feed_event *ev, int64_t n)
{
    const char *why = NULL;
    if (!cr_config_token_allows_board(tok, ev->board)) {
        why = "its token does not list that board";
    } else if (!claim(l, ev->board, r->name)) {
        owner *o = find_owner(l, ev->board);
        why = o && o->agent[0] ? "another agent fed it first" : "the relay's own source feeds it";
        if (o) {
            refused_owned(l, ev->board, r->name, o->agent);
        }
    }
    if (!why) {
        return true;
    }
    pthread_mutex_lock(&l->lock);
    uint64_t refused = ++r->refused;
    pthread_mutex_unlock(&l->lock);
    /* The first ten refusals logged, then every 1000th: a flood stays quiet. */
    if (refused <= 10 || refused % 1000 == 0) {
        cr_log(CR_LOG_WARN, "agent %s: event %" PRId64 " for board %s refused: %s (%" PRIu64
               " refused)", r->name, n, ev->board, why, refused);
    }
    return false;
}

bool cr_agent_link_claim_local(cr_agent_link *l, const char *board)
{
    if (claim(l, board, "")) {
        return true;
    }
    owner *o = find_owner(l, board);
    refused_owned(l, board, "", o ? o->agent : "");
    cr_log(CR_LOG_WARN, "board %s: an agent feeds it; the relay's own event refused", board);
    return false;
}

/* One agent line: map, journal (via the callback) and feed. */
static void deliver(cr_agent_link *l, agent_rec *r, const cr_config_token *tok, int64_t n,
                    int64_t item_clock, const char *line, size_t len)
{
    pthread_mutex_lock(&l->lock);
    int64_t off = r->off; /* ensure_offset() ran */
    pthread_mutex_unlock(&l->lock);

    char *scratch = malloc(len + 1);
    cr_feed_event ev;
    cr_error err;
    cr_error_clear(&err);
    int rc = scratch ? cr_feed_parse_line(line, len, &ev, scratch, len + 1, &err) : CR_ENOMEM;
    if (rc == 1 && (ev.t > CR_AGENT_TIME_MAX || ev.t < -CR_AGENT_TIME_MAX)) {
        rc = cr_error_set(&err, CR_ERANGE, 0, 1, "time out of range");
    }
    if (rc == 1 && !may_feed(l, r, tok, &ev, n)) {
        rc = 0; /* journaled as skipped: its number is used, the event is not */
    }
    int64_t agent_t = rc == 1 ? ev.t : 0;
    /* The comment before the event's line, in one write with it. */
    cr_jline jl = {.kind = CR_JLINE_AGENT, .u.agent = {"", n, off, false}};
    snprintf(jl.u.agent.id, sizeof jl.u.agent.id, "%s", r->name);
    char head[CR_AGENT_ID_MAX + 80];
    int hn = cr_jline_format(&jl, head, sizeof head);
    size_t total = 0;
    if (rc == 1 && hn > 0 && hn < (int)sizeof head) {
        ev.t += off;
        size_t room = CR_FEED_LINE_MAX + (ev.kind == CR_FEED_RAW ? 2 * ev.u.raw.len : 0);
        if (reserve(l, (size_t)hn + room)) {
            memcpy(l->buf, head, (size_t)hn);
            int fl = cr_feed_format(&ev, l->buf + hn, room);
            if (fl > 0) {
                total = (size_t)hn + (size_t)fl;
            }
        }
    }
    uint64_t pos;
    if (total) {
        pos = l->feed(l->data, &ev, l->buf, total);
    } else {
        if (rc != 0) {
            cr_log(CR_LOG_WARN, "agent %s: event %" PRId64 ": %s (skipped)", r->name, n,
                   rc < 0 ? err.text[0] ? err.text : cr_strerror(rc) : "not an event");
        }
        jl.u.agent.skip = true;
        hn = cr_jline_format(&jl, head, sizeof head);
        pos = hn > 0 && hn < (int)sizeof head ? l->feed(l->data, NULL, head, (size_t)hn) : 0;
    }
    pthread_mutex_lock(&l->lock);
    if (l->journaled && !pos && !r->lost) {
        r->lost = true;
        cr_log(CR_LOG_ERROR, "agent %s: event %" PRId64 " not journaled: no more acks until a "
               "restart (the agent keeps its events)", r->name, n);
    }
    r->jpos = pos;
    r->journaled = n;
    r->events++;
    if (total) {
        aboard *b = find_board(r, ev.board);
        if (b) {
            b->events++;
            b->last_us = cr_now_us();
            b->lag_ms = (int64_t)((double)(item_clock - agent_t) / l->speed);
            if (ev.kind == CR_FEED_CONNECT || ev.kind == CR_FEED_DISCONNECT) {
                b->online = ev.kind == CR_FEED_CONNECT;
            }
        }
    } else {
        r->skipped++;
    }
    pthread_mutex_unlock(&l->lock);
    free(scratch);
}

static void wake_server(cr_agent_link *l)
{
    if (l->ctx) {
        lws_cancel_service(l->ctx);
    }
}

/* The agent's offset, fixed at its first message (loop thread). */
static void ensure_offset(cr_agent_link *l, agent_rec *r, int64_t item_clock)
{
    pthread_mutex_lock(&l->lock);
    if (!r->has_off) {
        r->off = l->clock(l->data) - item_clock;
        r->has_off = true;
        cr_log(CR_LOG_INFO, "agent %s: clock offset %" PRId64 " ms", r->name, r->off);
    }
    pthread_mutex_unlock(&l->lock);
}

static void on_items(evutil_socket_t fd, short what, void *arg)
{
    cr_agent_link *l = arg;
    item *it;
    while ((it = cr_queue_pop(l->in)) != NULL) {
        if (it->bye) {
            pthread_mutex_lock(&l->lock);
            it->rec->done = true;
            int64_t last = it->rec->last;
            pthread_mutex_unlock(&l->lock);
            /* Journaled, so that a restarted relay knows the agent left:
             * its boards are no longer held at its watermark, and
             * /agents.json says "left" as before the restart. */
            cr_jline jl = {.kind = CR_JLINE_AGENT_BYE, .u.bye.n = last};
            snprintf(jl.u.bye.id, sizeof jl.u.bye.id, "%s", it->rec->name);
            char line[CR_AGENT_ID_MAX + 48];
            int n = cr_jline_format(&jl, line, sizeof line);
            if (n > 0 && n < (int)sizeof line) {
                (void)l->feed(l->data, NULL, line, (size_t)n);
            }
            free_item(it);
            continue;
        }
        ensure_offset(l, it->rec, it->clock);
        for (size_t i = 0; i < it->count; i++) {
            int64_t n = it->first + (int64_t)i;
            pthread_mutex_lock(&l->lock);
            bool have = n <= it->rec->journaled;
            pthread_mutex_unlock(&l->lock);
            if (!have) {
                deliver(l, it->rec, it->tok, n, it->clock, it->lines[i], it->lens[i]);
            }
        }
        /* Everything of this agent up to its watermark is in now. */
        pthread_mutex_lock(&l->lock);
        if (!it->rec->has_wm || it->clock > it->rec->wm) {
            it->rec->wm = it->clock;
            it->rec->has_wm = true;
        }
        it->rec->done = false;
        pthread_mutex_unlock(&l->lock);
        free_item(it);
    }
    if (!l->journaled) {
        cr_agent_link_synced(l, UINT64_MAX);
    }
}

static void wake_loop(void *data)
{
    event_active(data, EV_READ, 0);
}

int cr_agent_link_attach(cr_agent_link *l, struct event_base *base, cr_agent_feed_fn feed,
                         cr_agent_clock_fn clock, void *data, bool journaled)
{
    l->feed = feed;
    l->clock = clock;
    l->data = data;
    l->journaled = journaled;
    l->ev = event_new(base, -1, 0, on_items, l);
    if (!l->ev) {
        return CR_ENOMEM;
    }
    cr_queue_set_wake(l->in, wake_loop, l->ev);
    if (cr_queue_length(l->in)) {
        event_active(l->ev, EV_READ, 0); /* what came during the rebuild */
    }
    return 0;
}

void cr_agent_link_synced(cr_agent_link *l, uint64_t durable)
{
    bool changed = false;
    pthread_mutex_lock(&l->lock);
    for (int i = 0; i < l->nagents; i++) {
        agent_rec *r = l->agents[i];
        if (!r->lost && r->jpos <= durable && r->durable < r->journaled) {
            r->durable = r->journaled;
            changed = true;
        }
    }
    pthread_mutex_unlock(&l->lock);
    if (changed) {
        wake_server(l);
    }
}

int64_t cr_agent_link_board_bound(cr_agent_link *l, const char *board, int64_t bound)
{
    const owner *o = find_owner(l, board);
    if (!o || !o->agent[0]) {
        return bound; /* the relay's own source */
    }
    pthread_mutex_lock(&l->lock);
    const agent_rec *r = find_rec(l, o->agent, false);
    /* No time limit here: however long the agent is away, its events up
     * to now may still come, with their own times. */
    if (r && !r->done && r->has_off && r->has_wm && r->wm + r->off < bound) {
        bound = r->wm + r->off;
    }
    pthread_mutex_unlock(&l->lock);
    return bound;
}

int64_t cr_agent_link_tick_bound(cr_agent_link *l, int64_t bound)
{
    int64_t now = cr_now_us();
    pthread_mutex_lock(&l->lock);
    for (int i = 0; i < l->nagents; i++) {
        agent_rec *r = l->agents[i];
        int64_t since = r->connected ? r->seen_us : r->away_us;
        if (r->left || !r->has_off || !r->has_wm || now - since >= HOLD_US) {
            continue;
        }
        if (r->wm + r->off < bound) {
            bound = r->wm + r->off;
        }
    }
    pthread_mutex_unlock(&l->lock);
    return bound;
}

/*----- server thread: the protocol -----*/

static void queue_error(apss *p, const char *error, const char *where, bool close)
{
    if (!p->out) {
        p->out = cr_amsg_error(error, where);
    }
    p->closing = p->closing || close;
    p->faults++;
    lws_callback_on_writable(p->wsi);
}

static void peer_of(struct lws *wsi, char *buf, size_t size)
{
    buf[0] = '\0';
    lws_get_peer_simple(wsi, buf, size);
    if (!buf[0]) {
        snprintf(buf, size, "?");
    }
}

/* The token of an agent-hello: true if it is an agent's; *tok is its entry
 * (the tournament file's, or --agent-token's), with the ids and boards it
 * may use. */
static bool token_ok(cr_agent_link *l, const char *token, const cr_config_token **tok)
{
    /* Both checks always run: the time does not tell which one matched. */
    bool ok = l->token && token[0] && cr_secret_equal(token, l->token->token);
    const cr_config_token *t = l->tournament ? cr_config_find_token(l->tournament, token) : NULL;
    *tok = t && strcmp(t->role, "agent") == 0 ? t : ok ? l->token : NULL;
    return *tok != NULL;
}

static void on_hello(cr_agent_link *l, apss *p, const cr_amsg *m)
{
    char peer[64];
    peer_of(p->wsi, peer, sizeof peer);
    if (p->rec) {
        queue_error(p, "hello twice", "op", false);
        return;
    }
    const cr_config_token *tok;
    if (!token_ok(l, m->token, &tok)) {
        cr_log(CR_LOG_WARN, "agent %s from %s: wrong token refused", m->agent, peer);
        queue_error(p, "wrong token", "token", true);
        return;
    }
    if (!cr_config_token_allows_agent(tok, m->agent)) {
        cr_log(CR_LOG_WARN, "agent %s from %s: its token (%s) is not for this agent id", m->agent,
               peer, tok->name);
        queue_error(p, "this token is not for this agent id", "token", true);
        return;
    }
    p->tok = tok;
    pthread_mutex_lock(&l->lock);
    agent_rec *r = find_rec(l, m->agent, true);
    if (r) {
        if (r->connected && r->wsi && r->wsi != p->wsi) {
            /* The old connection is probably dead and not noticed yet. */
            cr_log(CR_LOG_INFO, "agent %s: new connection replaces the old one", r->name);
            lws_set_timeout(r->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        }
        r->connected = true;
        r->left = false;
        r->wsi = p->wsi;
        r->since_us = r->seen_us = cr_now_us();
        r->last = m->n > r->last ? m->n : r->last;
        r->clock = m->clock;
        r->connects++;
        r->notified = r->durable;
        snprintf(r->peer, sizeof r->peer, "%s", peer);
        cr_log(CR_LOG_INFO,
               "agent %s connected from %s (it has events up to %" PRId64 ", the relay up to %" PRId64
               ")",
               r->name, peer, m->n, r->durable);
    }
    pthread_mutex_unlock(&l->lock);
    if (!r) {
        queue_error(p, "out of memory", "agent", true);
        return;
    }
    p->rec = r;
    p->welcome = true;
    lws_callback_on_writable(p->wsi);
}

/* Hands the new lines of an "ev" (or none, for a "tick": only the
 * watermark) to the loop, in order with everything else of this agent. */
static void on_events(cr_agent_link *l, apss *p, cr_amsg *m)
{
    agent_rec *r = p->rec;
    pthread_mutex_lock(&l->lock);
    int64_t first = m->count ? m->n : r->recv + 1, end = first + (int64_t)m->count; /* [first, end) */
    int64_t old = r->recv;
    size_t skip = first <= old ? (size_t)(old - first + 1) : 0;
    if (skip > m->count) {
        skip = m->count;
    }
    if (m->count && first > old + 1) {
        cr_log(CR_LOG_WARN, "agent %s: events %" PRId64 "..%" PRId64 " never arrived (lost state?)",
               r->name, old + 1, first - 1);
    }
    r->dups += skip;
    r->seen_us = cr_now_us();
    r->clock = m->clock;
    if (end - 1 > r->last) {
        r->last = end - 1;
    }
    if (skip < m->count) {
        r->recv = end - 1;
    }
    pthread_mutex_unlock(&l->lock);
    item *it = calloc(1, sizeof *it);
    if (!it) {
        goto fail;
    }
    it->rec = r;
    it->tok = p->tok;
    it->first = first + (int64_t)skip;
    it->clock = m->clock;
    it->count = m->count - skip;
    if (it->count) {
        it->lines = calloc(it->count, sizeof *it->lines);
        it->lens = calloc(it->count, sizeof *it->lens);
        if (!it->lines || !it->lens) {
            it->count = 0;
            goto fail;
        }
    }
    /* The lines move from the message to the item. */
    for (size_t i = 0; i < it->count; i++) {
        it->lines[i] = m->lines[skip + i];
        it->lens[i] = m->lens[skip + i];
        m->lines[skip + i] = NULL;
    }
    if (cr_queue_push(l->in, it, false)) {
        return;
    }
fail:
    free_item(it);
    pthread_mutex_lock(&l->lock);
    if (skip < m->count && r->recv == end - 1) {
        r->recv = old; /* they will come again after the reconnect */
    }
    pthread_mutex_unlock(&l->lock);
    cr_log(CR_LOG_WARN, "agent %s: relay busy, closing the link (the agent resends)", r->name);
    queue_error(p, "busy, reconnect later", "ev", true);
}

static void handle(cr_agent_link *l, apss *p, const char *text, size_t len)
{
    cr_amsg m;
    cr_error err;
    if (cr_amsg_parse(text, len, &m, &err)) {
        char peer[64];
        peer_of(p->wsi, peer, sizeof peer);
        cr_log(CR_LOG_WARN, "agent link %s: %s", peer, err.text);
        queue_error(p, err.text, "message", false);
        cr_amsg_clear(&m);
        return;
    }
    if (m.kind != CR_AMSG_HELLO && (!p->rec || p->rec->wsi != p->wsi)) {
        queue_error(p, p->rec ? "replaced by a newer connection" : "agent-hello first", "op", true);
    } else if (m.kind == CR_AMSG_HELLO) {
        on_hello(l, p, &m);
    } else if (m.kind == CR_AMSG_EV) {
        on_events(l, p, &m);
    } else if (m.kind == CR_AMSG_TICK || m.kind == CR_AMSG_BYE) {
        pthread_mutex_lock(&l->lock);
        agent_rec *r = p->rec;
        r->seen_us = cr_now_us();
        r->last = m.n > r->last ? m.n : r->last;
        r->left = m.kind == CR_AMSG_BYE;
        pthread_mutex_unlock(&l->lock);
        if (m.kind == CR_AMSG_BYE) {
            cr_log(CR_LOG_INFO, "agent %s: bye (last event %" PRId64 ")", r->name, m.n);
            /* Through the queue: the loop learns it after the last events. */
            item *it = calloc(1, sizeof *it);
            if (it) {
                it->rec = r;
                it->bye = true;
                if (!cr_queue_push(l->in, it, false)) {
                    free_item(it);
                }
            }
        } else {
            m.count = 0;
            on_events(l, p, &m); /* the watermark, in order with the events */
        }
    } else {
        queue_error(p, "not an agent message", "op", false);
    }
    cr_amsg_clear(&m);
}

static int receive(cr_agent_link *l, apss *p, const char *in, size_t len)
{
    const char *msg;
    size_t msg_len;
    switch (cr_ws_rx_add(&p->rx, p->wsi, in, len, CR_AGENT_MESSAGE_MAX, &msg, &msg_len)) {
    case CR_WS_RX_NOMEM:
        return -1;
    case CR_WS_RX_TOO_BIG:
        queue_error(p, "message too large", "message", false);
        break;
    case CR_WS_RX_MESSAGE:
        handle(l, p, msg, msg_len);
        cr_ws_rx_reset(&p->rx);
        break;
    case CR_WS_RX_MORE:
        break;
    }
    if (p->faults >= MAX_FAULTS && !p->closing) {
        p->closing = true;
        lws_callback_on_writable(p->wsi);
    }
    return 0;
}

/* One message per WRITEABLE (lws rule): error, welcome, ack. */
static int writeable(cr_agent_link *l, apss *p)
{
    if (p->out) {
        char *s = p->out;
        p->out = NULL;
        if (cr_ws_send_text(p->wsi, s)) {
            return -1;
        }
        lws_callback_on_writable(p->wsi);
        return 0;
    }
    if (p->closing) {
        lws_close_reason(p->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, NULL, 0);
        return -1;
    }
    if (!p->rec) {
        return 0;
    }
    pthread_mutex_lock(&l->lock);
    int64_t durable = p->rec->durable;
    bool current = p->rec->wsi == p->wsi;
    pthread_mutex_unlock(&l->lock);
    if (!current) {
        return -1;
    }
    if (p->welcome) {
        p->welcome = false;
        p->acked = durable;
        if (cr_ws_send_text(p->wsi, cr_amsg_welcome(p->rec->name, durable))) {
            return -1;
        }
    } else if (durable > p->acked) {
        p->acked = durable;
        if (cr_ws_send_text(p->wsi, cr_amsg_ack(durable))) {
            return -1;
        }
    }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    const struct lws_protocols *proto = lws_get_protocol(wsi);
    cr_agent_link *l = proto ? proto->user : NULL;
    apss *p = user;
    if (!l) {
        return 0;
    }
    switch (reason) {
    case LWS_CALLBACK_PROTOCOL_INIT:
        l->ctx = lws_get_context(wsi);
        return 0;
    case LWS_CALLBACK_PROTOCOL_DESTROY:
        l->ctx = NULL;
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        char uri[64];
        return lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) > 0 && strcmp(uri, "/agent") == 0
                   ? 0
                   : 1;
    }
    case LWS_CALLBACK_ESTABLISHED:
        memset(p, 0, sizeof *p);
        p->wsi = wsi;
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, SILENT_S);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        if (!p || !p->wsi) {
            return -1;
        }
        /* A half-open link (the venue's network gone) is closed, so that
         * the agent counts as away. */
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, SILENT_S);
        return receive(l, p, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return p && p->wsi ? writeable(l, p) : 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        /* New durable events: the agents' connections send their acks. */
        pthread_mutex_lock(&l->lock);
        for (int i = 0; i < l->nagents; i++) {
            agent_rec *r = l->agents[i];
            if (r->connected && r->wsi && r->durable > r->notified) {
                r->notified = r->durable;
                lws_callback_on_writable(r->wsi);
            }
        }
        pthread_mutex_unlock(&l->lock);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (p && p->wsi) {
            if (p->rec) {
                pthread_mutex_lock(&l->lock);
                if (p->rec->wsi == wsi) {
                    p->rec->wsi = NULL;
                    p->rec->connected = false;
                    p->rec->away_us = cr_now_us();
                    cr_log(CR_LOG_INFO, "agent %s: disconnected", p->rec->name);
                }
                pthread_mutex_unlock(&l->lock);
            }
            cr_ws_rx_reset(&p->rx);
            free(p->out);
            memset(p, 0, sizeof *p);
        }
        return 0;
    default:
        return 0;
    }
}

struct lws_protocols cr_agent_link_protocol(cr_agent_link *l)
{
    struct lws_protocols p;
    memset(&p, 0, sizeof p);
    p.name = CR_AGENT_PROTOCOL;
    p.callback = callback;
    p.per_session_data_size = sizeof(apss);
    p.rx_buffer_size = 16384;
    p.user = l;
    return p;
}

/*----- status -----*/

cr_buf *cr_agent_link_status_json(cr_agent_link *l)
{
    json_t *arr = json_array();
    int64_t now = cr_now_us();
    pthread_mutex_lock(&l->lock);
    for (int i = 0; arr && i < l->nagents; i++) {
        agent_rec *r = l->agents[i];
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
    pthread_mutex_unlock(&l->lock);
    if (!arr) {
        return NULL;
    }
    json_t *top = json_pack("{s:o}", "agents", arr);
    char *s = top ? json_dumps(top, JSON_COMPACT) : NULL;
    json_decref(top);
    return cr_buf_take_str(s);
}
