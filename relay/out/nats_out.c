/* chessrelay relay: store events to NATS JetStream. */
#include "out/nats_out.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <jansson.h>

/* libnats' libevent adapter: its functions are defined in the header, so
 * it is included in this one file only (and is not warning-clean). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nats/adapters/libevent.h>
#pragma GCC diagnostic pop

#include "util/log.h"
#include "util/opts.h"

enum {
    MAX_INFLIGHT = 4096, /* publishes awaiting their ack */
    MIN_WINDOW = 16,     /* the fewest in flight after timeouts */
    MAX_WAIT_MS = 30000, /* the longest ack wait after timeouts */
    SEND_BATCH = 256,    /* sent per round of the thread, outside the lock */
    TICK_MS = 50
};

#define DEFAULT_BACKLOG ((size_t)256 << 20)

typedef enum { E_NEW = 0, E_INFLIGHT, E_ACKED } entry_state;

/* What libnats' callbacks get as their closure. libnats may still run a
 * callback (a reconnection, a late ack) on its own threads after the
 * connection is closed and destroyed, so the publisher is reached only
 * through this link, which stop cuts (p = NULL) and which is never freed:
 * kept on a list, it stays reachable (one per publisher started). */
typedef struct cb_link {
    pthread_mutex_t mu;
    struct cr_nats_out *p;
    struct cb_link *next;
} cb_link;

static pthread_mutex_t retired_mu = PTHREAD_MUTEX_INITIALIZER;
static cb_link *retired;

/* One message as it is sent (the publisher thread takes a copy). */
typedef struct outgoing {
    int64_t seq; /* an eval's: the last event's before it (Cr-After) */
    cr_buf *json;
    char *subject;
    bool eval;                        /* an engine evaluation, not an event */
    char id[CR_NATS_TOKEN_MAX + 64]; /* an eval's Nats-Msg-Id */
    bool move;
    int32_t emt_ms;
    int64_t ply_ts;
    uint16_t fits;
} outgoing;

typedef struct entry {
    outgoing msg;
    entry_state state;
    int64_t sent_at;  /* monotonic us */
    int64_t retry_at; /* after a refusal: not before (monotonic us) */
    int failures;
} entry;

struct cr_nats_out {
    char tournament[CR_NATS_TOKEN_MAX];
    char delay[16]; /* Cr-Delay header value */
    char *stream;
    int replicas;
    size_t backlog_max;
    int64_t ack_wait_us, drain_us;

    natsConnection *nc;
    jsCtx *js;
    cb_link *link;
    struct event_base *base;
    struct event *up_ev; /* fires once the loop runs: requests may start */
    pthread_t thread;
    bool thread_started;

    pthread_mutex_t mu;
    pthread_cond_t cond;
    /* entries by increasing seq: a ring (head .. head + count); an eval
     * has the seq of the event before it, so seqs only do not decrease */
    entry *ring;
    size_t cap, head, count, bytes;
    int inflight;
    /* Congestion: a stream slower than the ack wait (a loaded cluster of 3
     * replicas) timed out every one of 4096 in flight and had them all sent
     * again, round after round, none acked (the rehearsal, docs/scale.md).
     * So at most `window` are in flight (halved at a timeout, one more per
     * ack) and the ack wait doubles at a timeout (back down with acks);
     * both at most once per wait. */
    int window;
    int64_t wait_us, eased_at;
    bool stopping, stream_ok, skip_known;
    bool loop_up;      /* the loop runs: replies to requests can be read */
    bool drained;      /* the thread is done (stop) */
    int64_t skip_upto; /* the stream holds the tournament up to this seq */
    int64_t last_seq;  /* of the last event handed over */
    int64_t drain_deadline;
    int64_t stream_retry_at; /* mono us: next stream check after a failure */
    int64_t warned_at;       /* mono us of the last stream warning */
    int64_t held_log_at;     /* mono us of the last outage report */
    cr_nats_out_stats st;
    bool warned_full;
};

static int64_t mono_us(void)
{
    return cr_mono_us();
}

/*----- names and options -----*/

void cr_nats_token(const char *s, char out[CR_NATS_TOKEN_MAX])
{
    size_t n = 0;
    for (; s && s[n] && n + 1 < CR_NATS_TOKEN_MAX; n++) {
        char c = s[n];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-';
        out[n] = ok ? c : '_';
    }
    if (n == 0) {
        out[n++] = '_';
    }
    out[n] = '\0';
}

int cr_nats_out_option(cr_nats_out_config *cfg, const char *who, const char *opt, const char *val)
{
    if (strcmp(opt, "--publish") == 0) {
        if (strncmp(val, "nats://", 7) != 0 && strncmp(val, "tls://", 6) != 0) {
            fprintf(stderr, "chessrelay %s: --publish: expected nats://HOST:PORT[,...], got '%s'\n",
                    who, val);
            return -1;
        }
        cfg->url = val;
        return 1;
    }
    if (strcmp(opt, "--publish-tournament") == 0) {
        if (!val[0]) {
            fprintf(stderr, "chessrelay %s: --publish-tournament: empty\n", who);
            return -1;
        }
        cfg->tournament = val;
        return 1;
    }
    if (strcmp(opt, "--stream") == 0) {
        char tok[CR_NATS_TOKEN_MAX];
        cr_nats_token(val, tok);
        if (strcmp(tok, val) != 0) {
            fprintf(stderr,
                    "chessrelay %s: --stream: expected letters, digits, _ and -, got '%s'\n", who,
                    val);
            return -1;
        }
        cfg->stream = val;
        return 1;
    }
    if (strcmp(opt, "--stream-replicas") == 0) {
        long long n;
        if (!cr_opt_int(who, opt, val, 1, 5, "1..5", &n)) {
            return -1;
        }
        cfg->replicas = (int)n;
        return 1;
    }
    return 0;
}

natsConnection *cr_nats_connect(const char *urls, const char *name, struct event_base *base,
                                natsConnectionHandler on_change, void *closure, cr_error *err)
{
    char *copy = strdup(urls);
    const char *list[16];
    int n = 0;
    if (!copy) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && n < 16;
         tok = strtok_r(NULL, ",", &save)) {
        list[n++] = tok;
    }
    natsOptions *opts = NULL;
    natsConnection *nc = NULL;
    natsStatus s = n ? natsOptions_Create(&opts) : NATS_INVALID_ARG;
    if (s == NATS_OK) {
        s = natsOptions_SetServers(opts, list, n);
    }
    if (s == NATS_OK) {
        s = natsOptions_SetName(opts, name);
    }
    if (s == NATS_OK && base) {
        /* The socket is read and written by the caller's libevent loop. */
        s = natsOptions_SetEventLoop(opts, base, natsLibevent_Attach, natsLibevent_Read,
                                     natsLibevent_Write, natsLibevent_Detach);
    }
    if (s == NATS_OK) {
        s = natsOptions_SetNoRandomize(opts, true); /* the order given is the preference */
    }
    if (s == NATS_OK) {
        s = natsOptions_SetMaxReconnect(opts, -1);
    }
    if (s == NATS_OK) {
        s = natsOptions_SetReconnectWait(opts, 250);
    }
    if (s == NATS_OK) {
        s = natsOptions_SetReconnectBufSize(opts, 8 << 20);
    }
    if (s == NATS_OK) {
        s = natsOptions_SetRetryOnFailedConnect(opts, true, on_change, closure);
    }
    if (s == NATS_OK && on_change) {
        s = natsOptions_SetDisconnectedCB(opts, on_change, closure);
        if (s == NATS_OK) {
            s = natsOptions_SetReconnectedCB(opts, on_change, closure);
        }
    }
    if (s == NATS_OK) {
        s = natsConnection_Connect(&nc, opts);
        /* Not connected yet is fine: the library goes on trying. */
        if (s == NATS_NOT_YET_CONNECTED) {
            s = NATS_OK;
        }
    }
    if (s != NATS_OK) {
        cr_error_set(err, CR_EIO, 0, 0, "nats %s: %s", urls, natsStatus_GetText(s));
        natsConnection_Destroy(nc);
        nc = NULL;
    }
    natsOptions_Destroy(opts);
    free(copy);
    return nc;
}

/*----- the backlog (under mu) -----*/

static entry *at(cr_nats_out *p, size_t i)
{
    return &p->ring[(p->head + i) % p->cap];
}

static void entry_clear(entry *e)
{
    cr_buf_unref(e->msg.json);
    free(e->msg.subject);
    memset(e, 0, sizeof *e);
}

static void drop_head(cr_nats_out *p)
{
    entry *e = at(p, 0);
    if (e->state == E_INFLIGHT) {
        p->inflight--;
    }
    p->bytes -= e->msg.json->len;
    entry_clear(e);
    p->head = (p->head + 1) % p->cap;
    p->count--;
}

/* Removes acknowledged events from the front. */
static void prune(cr_nats_out *p)
{
    while (p->count && at(p, 0)->state == E_ACKED) {
        if (!at(p, 0)->msg.eval) {
            p->st.acked_seq = at(p, 0)->msg.seq;
        }
        drop_head(p);
    }
}

static bool grow(cr_nats_out *p)
{
    size_t cap = p->cap ? 2 * p->cap : 1024;
    entry *r = calloc(cap, sizeof *r);
    if (!r) {
        return false;
    }
    for (size_t i = 0; i < p->count; i++) {
        r[i] = *at(p, i);
    }
    free(p->ring);
    p->ring = r;
    p->cap = cap;
    p->head = 0;
    return true;
}

/* The event with this seq, or with eval_id the eval after it, or NULL
 * (binary search to the first entry of that seq: seqs do not decrease). */
static entry *find_entry(cr_nats_out *p, int64_t seq, const char *eval_id)
{
    size_t lo = 0, hi = p->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (at(p, mid)->msg.seq < seq) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    for (; lo < p->count && at(p, lo)->msg.seq == seq; lo++) {
        entry *e = at(p, lo);
        if (eval_id ? e->msg.eval && strcmp(e->msg.id, eval_id) == 0 : !e->msg.eval) {
            return e;
        }
    }
    return NULL;
}

/* Appends a message to the backlog (under mu); the oldest go when over the
 * bound. Takes j and subject (freed when it cannot). */
static entry *append(cr_nats_out *p, cr_buf *j, char *subject)
{
    while (p->count && p->bytes + j->len > p->backlog_max) {
        p->st.dropped++;
        drop_head(p);
        if (!p->warned_full) {
            cr_log(CR_LOG_ERROR, "nats: backlog over %zu bytes: dropping the oldest events",
                   p->backlog_max);
            p->warned_full = true;
        }
    }
    if (p->count == p->cap && !grow(p)) {
        free(subject);
        cr_buf_unref(j);
        return NULL;
    }
    entry *e = at(p, p->count++);
    memset(e, 0, sizeof *e);
    e->msg.json = j;
    e->msg.subject = subject;
    p->bytes += j->len;
    p->st.queued++;
    pthread_cond_signal(&p->cond);
    return e;
}

/*----- the loop thread's side -----*/

void cr_nats_out_event(cr_nats_out *p, const cr_store *store, const cr_store_event *ev,
                       cr_buf *json)
{
    if (!p || !ev) {
        return;
    }
    const cr_store_game *g = cr_store_find(store, ev->game);
    cr_buf *j = json ? cr_buf_ref(json) : cr_store_event_json(ev);
    if (!g || !j) {
        cr_buf_unref(j);
        return;
    }
    char round[CR_NATS_TOKEN_MAX], board[CR_NATS_TOKEN_MAX];
    cr_nats_token(g->round, round);
    cr_nats_token(g->board, board);
    size_t n = strlen(CR_NATS_PREFIX) + strlen(p->tournament) + strlen(round) + strlen(board) + 4;
    char *subject = malloc(n);
    if (!subject) {
        cr_buf_unref(j);
        return;
    }
    snprintf(subject, n, "%s.%s.%s.%s", CR_NATS_PREFIX, p->tournament, round, board);

    pthread_mutex_lock(&p->mu);
    /* Over the bound: the oldest go (counted, logged once per episode). */
    entry *e = append(p, j, subject);
    if (e) {
        e->msg.seq = ev->seq;
        if (ev->kind == CR_SEV_MOVE) {
            e->msg.move = true;
            e->msg.emt_ms = ev->move.emt_ms;
            e->msg.ply_ts = ev->move.ts;
            e->msg.fits = ev->move.fits;
        }
    }
    if (ev->seq > p->last_seq) {
        p->last_seq = ev->seq;
    }
    pthread_mutex_unlock(&p->mu);
}

/* The store's eval message with the position it is of ("fen"). */
static cr_buf *eval_message(const cr_store *store, int game, int ply)
{
    const cr_store_game *g = cr_store_find(store, game);
    cr_buf *m = g ? cr_store_eval_json(store, game, ply) : NULL;
    char fen[CR_FEN_MAX];
    json_t *j = m ? json_loadb(m->data, m->len, 0, NULL) : NULL;
    cr_buf_unref(m);
    if (!j || cr_position_to_fen(&cr_game_ply(g->game, ply)->after, fen, sizeof fen) < 0) {
        json_decref(j);
        return NULL;
    }
    json_object_set_new(j, "fen", json_string(fen));
    char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    return text ? cr_buf_take_str(text) : NULL;
}

void cr_nats_out_eval(cr_nats_out *p, const cr_store *store, int game, int ply)
{
    if (!p) {
        return;
    }
    const cr_store_game *g = cr_store_find(store, game);
    cr_buf *j = g ? eval_message(store, game, ply) : NULL;
    if (!j) {
        return;
    }
    char round[CR_NATS_TOKEN_MAX], board[CR_NATS_TOKEN_MAX];
    cr_nats_token(g->round, round);
    cr_nats_token(g->board, board);
    size_t n = strlen(CR_NATS_PREFIX) + strlen(p->tournament) + strlen(round) + strlen(board) +
               strlen(CR_NATS_EVAL_TOKEN) + 5;
    char *subject = malloc(n);
    if (!subject) {
        cr_buf_unref(j);
        return;
    }
    snprintf(subject, n, "%s.%s.%s.%s.%s", CR_NATS_PREFIX, p->tournament, round, board,
             CR_NATS_EVAL_TOKEN);
    /* The same eval sent twice is one message for the stream; a changed
     * one (a NAG added) is another. */
    unsigned h = 2166136261u;
    for (size_t i = 0; i < j->len; i++) {
        h = (h ^ (unsigned char)j->data[i]) * 16777619u;
    }
    pthread_mutex_lock(&p->mu);
    entry *e = append(p, j, subject);
    if (e) {
        e->msg.seq = p->last_seq;
        e->msg.eval = true;
        snprintf(e->msg.id, sizeof e->msg.id, "%s:eval:%d:%d:%08x", p->tournament, game, ply, h);
    }
    pthread_mutex_unlock(&p->mu);
}

/*----- the publisher thread -----*/

/* A publish timed out (under p->mu): fewer in flight, longer waits. */
static void congested(cr_nats_out *p, int64_t now)
{
    if (now - p->eased_at < p->wait_us) {
        return; /* the same bout: once per wait */
    }
    p->eased_at = now;
    p->window = p->window / 2 > MIN_WINDOW ? p->window / 2 : MIN_WINDOW;
    p->wait_us = p->wait_us * 2 < (int64_t)MAX_WAIT_MS * 1000 ? p->wait_us * 2
                                                               : (int64_t)MAX_WAIT_MS * 1000;
    cr_log(CR_LOG_WARN, "nats: acks slower than the wait: %d in flight at most, %" PRId64
                        " ms wait", p->window, p->wait_us / 1000);
}

static void on_ack(jsCtx *js, natsMsg *msg, jsPubAck *pa, jsPubAckErr *pae, void *closure)
{
    cb_link *link = closure;
    pthread_mutex_lock(&link->mu);
    cr_nats_out *p = link->p;
    const char *v = NULL;
    const char *id = NULL;
    bool eval = false;
    if (p && (natsMsgHeader_Get(msg, CR_NATS_HDR_SEQ, &v) != NATS_OK || !v)) {
        /* an eval: found by the seq before it and its id */
        eval = natsMsgHeader_Get(msg, CR_NATS_HDR_AFTER, &v) == NATS_OK && v &&
               natsMsgHeader_Get(msg, "Nats-Msg-Id", &id) == NATS_OK && id;
        if (!eval) {
            v = NULL;
        }
    }
    if (p && v) {
        int64_t seq = strtoll(v, NULL, 10);
        pthread_mutex_lock(&p->mu);
        entry *e = find_entry(p, seq, eval ? id : NULL);
        if (e && e->state == E_INFLIGHT) {
            p->inflight--;
            if (pa) {
                e->state = E_ACKED;
                p->st.acked++;
                p->window += p->window < MAX_INFLIGHT;
                p->wait_us -= (p->wait_us - p->ack_wait_us) / 64;
            } else {
                if (pae && pae->Err == NATS_TIMEOUT) {
                    congested(p, mono_us());
                }
                /* Sent again by the thread after a pause (the stream may be
                 * down); a missing stream is created first. */
                e->state = E_NEW;
                e->failures++;
                e->retry_at = mono_us() + (e->failures < 4 ? 250000 : 2000000);
                /* Never given up (nothing may be lost): said once, then kept trying. */
                if (e->failures == 10) {
                    cr_log(CR_LOG_ERROR,
                           "nats: seq %" PRId64 " refused 10 times (%s, error %d); "
                           "still trying",
                           seq, natsStatus_GetText(pae ? pae->Err : NATS_ERR),
                           pae ? (int)pae->ErrCode : 0);
                }
                if (pae &&
                    (pae->Err == NATS_NO_RESPONDERS || pae->ErrCode == JSStreamNotFoundErr)) {
                    p->stream_ok = false;
                }
            }
        }
        pthread_cond_signal(&p->cond);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&link->mu);
    natsMsg_Destroy(msg);
}

static void on_conn_change(natsConnection *nc, void *closure)
{
    cb_link *link = closure;
    pthread_mutex_lock(&link->mu);
    cr_nats_out *p = link->p;
    if (p) {
        pthread_mutex_lock(&p->mu);
        /* After a reconnection the server may be a fresh one: check the stream. */
        p->stream_ok = false;
        /* Acks of what was in flight may be lost with the old connection:
         * send it again now, in order (the stream drops duplicates). */
        for (size_t i = 0; i < p->count; i++) {
            entry *e = at(p, i);
            if (e->state == E_INFLIGHT) {
                e->state = E_NEW;
                e->retry_at = 0;
                p->inflight--;
            }
        }
        pthread_cond_signal(&p->cond);
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&link->mu);
}

/* Loop thread, once the loop runs. */
static void on_loop_up(evutil_socket_t fd, short what, void *arg)
{
    cr_nats_out *p = arg;
    pthread_mutex_lock(&p->mu);
    p->loop_up = true;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->mu);
}

/* Creates the stream if missing and learns the tournament's last seq in it
 * (first time only). Called without the lock. */
static bool ensure_stream(cr_nats_out *p)
{
    jsStreamInfo *si = NULL;
    jsErrCode jerr = 0;
    natsStatus s = js_GetStreamInfo(&si, p->js, p->stream, NULL, &jerr);
    if (s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr) {
        jsStreamConfig sc;
        jsStreamConfig_Init(&sc);
        const char *subjects[] = {CR_NATS_PREFIX ".>"};
        sc.Name = p->stream;
        sc.Subjects = subjects;
        sc.SubjectsLen = 1;
        sc.Storage = js_FileStorage;
        sc.Replicas = p->replicas;
        s = js_AddStream(&si, p->js, &sc, NULL, &jerr);
        if (s == NATS_OK) {
            cr_log(CR_LOG_INFO, "nats: created stream %s (subjects %s.>, %d replica%s)", p->stream,
                   CR_NATS_PREFIX, p->replicas, p->replicas == 1 ? "" : "s");
        }
    }
    jsStreamInfo_Destroy(si);
    if (s != NATS_OK) {
        if (mono_us() - p->warned_at > 10000000) { /* once in 10 s while it lasts */
            cr_log(CR_LOG_WARN, "nats: stream %s: %s (error %d); retrying", p->stream,
                   natsStatus_GetText(s), (int)jerr);
            p->warned_at = mono_us();
        }
        return false;
    }
    bool known;
    pthread_mutex_lock(&p->mu);
    known = p->skip_known;
    pthread_mutex_unlock(&p->mu);
    if (!known) {
        char filter[CR_NATS_TOKEN_MAX + 32];
        /* events only: <prefix>.<tournament>.<round>.<board> (evals have a
         * fifth token) */
        snprintf(filter, sizeof filter, "%s.%s.*.*", CR_NATS_PREFIX, p->tournament);
        natsMsg *m = NULL;
        int64_t last = 0;
        s = js_GetLastMsg(&m, p->js, p->stream, filter, NULL, &jerr);
        if (s == NATS_OK) {
            const char *v = NULL;
            if (natsMsgHeader_Get(m, CR_NATS_HDR_SEQ, &v) == NATS_OK && v) {
                last = strtoll(v, NULL, 10);
            }
            natsMsg_Destroy(m);
        } else if (s != NATS_NOT_FOUND && jerr != JSNoMessageFoundErr) {
            cr_log(CR_LOG_WARN, "nats: last message of %s: %s", filter, natsStatus_GetText(s));
            return false;
        }
        pthread_mutex_lock(&p->mu);
        p->skip_known = true;
        p->skip_upto = last;
        pthread_mutex_unlock(&p->mu);
        if (last) {
            cr_log(CR_LOG_INFO, "nats: stream %s holds %s up to seq %" PRId64, p->stream,
                   p->tournament, last);
        }
    }
    return true;
}

static natsStatus send_one(cr_nats_out *p, const outgoing *o, int64_t wait_ms)
{
    natsMsg *m = NULL;
    char id[CR_NATS_TOKEN_MAX + 32], seq[32], ply[64];
    snprintf(id, sizeof id, "%s:%" PRId64, p->tournament, o->seq);
    snprintf(seq, sizeof seq, "%" PRId64, o->seq);
    natsStatus s = natsMsg_Create(&m, o->subject, NULL, o->json->data, (int)o->json->len);
    if (s == NATS_OK) {
        s = natsMsgHeader_Set(m, "Nats-Msg-Id", o->eval ? o->id : id);
    }
    if (s == NATS_OK) {
        /* no Cr-Seq on an eval: it is no event (an edge of before evals
         * passes it over) */
        s = natsMsgHeader_Set(m, o->eval ? CR_NATS_HDR_AFTER : CR_NATS_HDR_SEQ, seq);
    }
    if (s == NATS_OK) {
        s = natsMsgHeader_Set(m, CR_NATS_HDR_DELAY, p->delay);
    }
    if (s == NATS_OK && o->move) {
        snprintf(ply, sizeof ply, "%" PRId32 " %" PRId64 " %u", o->emt_ms, o->ply_ts,
                 (unsigned)o->fits);
        s = natsMsgHeader_Set(m, CR_NATS_HDR_PLY, ply);
    }
    if (s == NATS_OK) {
        jsPubOptions po;
        jsPubOptions_Init(&po);
        po.MaxWait = wait_ms;
        s = js_PublishMsgAsync(p->js, &m, &po);
    }
    natsMsg_Destroy(m); /* NULL once the library owns it */
    return s;
}

static void *pub_thread(void *arg)
{
    cr_nats_out *p = arg;
    outgoing *batch = calloc(SEND_BATCH, sizeof *batch);
    if (!batch) {
        return NULL;
    }
    pthread_mutex_lock(&p->mu);
    for (;;) {
        prune(p);
        int64_t now = mono_us();
        bool connected = natsConnection_Status(p->nc) == NATS_CONN_STATUS_CONNECTED;
        p->st.connected = connected;
        /* Stopping: what is not acknowledged stays in the journal and is
         * published after the restart; waiting is only worth it while
         * acks can come. */
        if (p->stopping &&
            (p->count == 0 || !connected || !p->loop_up || now >= p->drain_deadline)) {
            break;
        }
        /* During an outage, say every 30 s what is held for the stream. */
        if (p->count && !connected && now - p->held_log_at > 30000000) {
            if (p->held_log_at) {
                cr_log(CR_LOG_WARN, "nats: not connected; %zu event(s) held (from seq %" PRId64 ")",
                       p->count, at(p, 0)->msg.seq);
            }
            p->held_log_at = now;
        }
        /* Requests wait for a reply that only the running loop reads. */
        if (connected && p->loop_up && !p->stream_ok && now >= p->stream_retry_at) {
            p->stream_ok = true; /* set first: a reconnection in between clears it */
            pthread_mutex_unlock(&p->mu);
            bool ok = ensure_stream(p);
            pthread_mutex_lock(&p->mu);
            if (!ok) {
                /* e.g. a cluster still electing its leader: retry in a second */
                p->stream_ok = false;
                p->stream_retry_at = now + 1000000;
            }
        }
        int n = 0;
        if (connected && p->stream_ok) {
            for (size_t i = 0; i < p->count && n < SEND_BATCH; i++) {
                entry *e = at(p, i);
                if (!e->msg.eval && e->msg.seq <= p->skip_upto && e->state != E_ACKED) {
                    if (e->state == E_INFLIGHT) {
                        p->inflight--;
                    }
                    e->state = E_ACKED;
                    p->st.skipped++;
                    continue;
                }
                bool late = e->state == E_INFLIGHT && now - e->sent_at > 2 * p->wait_us;
                if (late) {
                    p->inflight--; /* its ack never came: send it again */
                    e->state = E_NEW;
                    congested(p, now);
                }
                if (e->state == E_NEW && e->retry_at > now) {
                    break; /* keep the order: later events wait for this one */
                }
                if (e->state == E_NEW) {
                    if (p->inflight >= p->window) {
                        break;
                    }
                    if (e->sent_at) {
                        p->st.resent++;
                    }
                    e->state = E_INFLIGHT;
                    e->sent_at = now;
                    p->inflight++;
                    outgoing *o = &batch[n++];
                    *o = e->msg;
                    o->json = cr_buf_ref(e->msg.json);
                    o->subject = strdup(e->msg.subject);
                }
            }
        }
        if (n == 0) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += TICK_MS * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&p->cond, &p->mu, &ts);
            continue;
        }
        int64_t wait_ms = p->wait_us / 1000;
        pthread_mutex_unlock(&p->mu);
        int failed_from = n;
        for (int i = 0; i < n; i++) {
            natsStatus s = batch[i].subject ? send_one(p, &batch[i], wait_ms) : NATS_NO_MEMORY;
            if (s != NATS_OK) {
                failed_from = i;
                break;
            }
        }
        pthread_mutex_lock(&p->mu);
        p->st.sent += failed_from;
        /* Not handed to the library: back to new (they were never sent). */
        for (int i = failed_from; i < n; i++) {
            entry *e = find_entry(p, batch[i].seq, batch[i].eval ? batch[i].id : NULL);
            if (e && e->state == E_INFLIGHT) {
                e->state = E_NEW;
                p->inflight--;
            }
        }
        for (int i = 0; i < n; i++) {
            cr_buf_unref(batch[i].json);
            free(batch[i].subject);
        }
        if (failed_from < n) {
            /* connection trouble: let it settle */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_sec++;
            pthread_cond_timedwait(&p->cond, &p->mu, &ts);
        }
    }
    p->drained = true;
    pthread_mutex_unlock(&p->mu);
    free(batch);
    return NULL;
}

cr_nats_out *cr_nats_out_start(const cr_nats_out_config *cfg, struct event_base *base,
                               const char *event_name, int delay_s, cr_error *err)
{
    cr_nats_out *p = calloc(1, sizeof *p);
    cb_link *link = calloc(1, sizeof *link);
    if (!p || !link) {
        free(p);
        free(link);
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&link->mu, NULL);
    link->p = p;
    p->link = link;
    p->base = base;
    cr_nats_token(cfg->tournament               ? cfg->tournament
                  : event_name && event_name[0] ? event_name
                                                : "default",
                  p->tournament);
    snprintf(p->delay, sizeof p->delay, "%d", delay_s > 0 ? delay_s : 0);
    p->stream = strdup(cfg->stream ? cfg->stream : CR_NATS_STREAM);
    p->replicas = cfg->replicas > 0 ? cfg->replicas : 1;
    p->backlog_max = cfg->backlog_bytes ? cfg->backlog_bytes : DEFAULT_BACKLOG;
    p->ack_wait_us = (int64_t)(cfg->ack_wait_ms > 0 ? cfg->ack_wait_ms : 2000) * 1000;
    p->wait_us = p->ack_wait_us;
    p->window = 256; /* grows by one per ack up to MAX_INFLIGHT */
    p->drain_us = (int64_t)(cfg->drain_ms > 0 ? cfg->drain_ms : 10000) * 1000;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->up_ev = event_new(base, -1, 0, on_loop_up, p);
    if (!p->stream || !p->up_ev) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        cr_nats_out_stop(p);
        return NULL;
    }
    event_active(p->up_ev, EV_TIMEOUT, 0); /* runs when the loop does */
    p->nc = cr_nats_connect(cfg->url, "chessrelay venue", base, on_conn_change, link, err);
    if (!p->nc) {
        cr_nats_out_stop(p);
        return NULL;
    }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = 3000;
    jo.PublishAsync.MaxPending = 4 * MAX_INFLIGHT; /* never stalls: the thread keeps below */
    jo.PublishAsync.AckHandler = on_ack;
    jo.PublishAsync.AckHandlerClosure = link;
    natsStatus s = natsConnection_JetStream(&p->js, p->nc, &jo);
    if (s != NATS_OK) {
        cr_error_set(err, CR_EIO, 0, 0, "nats: JetStream context: %s", natsStatus_GetText(s));
        cr_nats_out_stop(p);
        return NULL;
    }
    if (pthread_create(&p->thread, NULL, pub_thread, p) != 0) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "nats: cannot start the publisher thread");
        cr_nats_out_stop(p);
        return NULL;
    }
    p->thread_started = true;
    cr_log(CR_LOG_INFO, "nats: publishing to %s, stream %s, subjects %s.%s.<round>.<board>",
           cfg->url, p->stream, CR_NATS_PREFIX, p->tournament);
    return p;
}

void cr_nats_out_get_stats(cr_nats_out *p, cr_nats_out_stats *out)
{
    pthread_mutex_lock(&p->mu);
    *out = p->st;
    out->held = p->count;
    pthread_mutex_unlock(&p->mu);
}

void cr_nats_out_metrics(cr_nats_out *p, FILE *f)
{
    cr_nats_out_stats st;
    cr_nats_out_get_stats(p, &st);
    fprintf(f,
            "# HELP chessrelay_nats_connected 1 while connected to a NATS server.\n"
            "# TYPE chessrelay_nats_connected gauge\n"
            "chessrelay_nats_connected %d\n"
            "# HELP chessrelay_nats_events_total Events by what happened to them on the way to the "
            "stream.\n"
            "# TYPE chessrelay_nats_events_total counter\n",
            st.connected ? 1 : 0);
    const struct {
        const char *what;
        int64_t n;
    } c[] = {{"queued", st.queued}, {"sent", st.sent},       {"acked", st.acked},
             {"resent", st.resent}, {"dropped", st.dropped}, {"skipped", st.skipped}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        fprintf(f, "chessrelay_nats_events_total{what=\"%s\"} %" PRId64 "\n", c[i].what, c[i].n);
    }
    fprintf(f,
            "# HELP chessrelay_nats_held_events Events not yet acknowledged by the stream.\n"
            "# TYPE chessrelay_nats_held_events gauge\n"
            "chessrelay_nats_held_events %zu\n"
            "# HELP chessrelay_nats_acked_seq Every event up to this seq is in the stream.\n"
            "# TYPE chessrelay_nats_acked_seq gauge\n"
            "chessrelay_nats_acked_seq %" PRId64 "\n",
            st.held, st.acked_seq);
}

void cr_nats_out_stop(cr_nats_out *p)
{
    if (!p) {
        return;
    }
    if (p->thread_started) {
        pthread_mutex_lock(&p->mu);
        p->stopping = true;
        p->drain_deadline = mono_us() + p->drain_us;
        pthread_cond_signal(&p->cond);
        pthread_mutex_unlock(&p->mu);
        /* The acks come through the loop: run it until the thread is done. */
        struct event *tick = event_new(p->base, -1, EV_PERSIST, on_loop_up, p);
        struct timeval t = {0, 20000};
        if (tick && event_add(tick, &t) == 0) {
            for (;;) {
                pthread_mutex_lock(&p->mu);
                bool done = p->drained;
                pthread_mutex_unlock(&p->mu);
                if (done || event_base_loop(p->base, EVLOOP_ONCE) < 0) {
                    break;
                }
            }
        }
        if (tick) {
            event_free(tick);
        }
        pthread_join(p->thread, NULL);
        if (p->count) {
            cr_log(CR_LOG_WARN,
                   "nats: stopping with %zu event(s) not acknowledged (from seq %" PRId64 ")",
                   p->count, at(p, 0)->msg.seq);
        }
        cr_log(CR_LOG_INFO,
               "nats: %" PRId64 " events queued, %" PRId64 " sent, %" PRId64 " acked, %" PRId64
               " resent, %" PRId64 " skipped, %" PRId64 " dropped",
               p->st.queued, p->st.sent, p->st.acked, p->st.resent, p->st.skipped, p->st.dropped);
    }
    /* From here on libnats' callbacks find no publisher. */
    pthread_mutex_lock(&p->link->mu);
    p->link->p = NULL;
    pthread_mutex_unlock(&p->link->mu);
    pthread_mutex_lock(&retired_mu);
    p->link->next = retired;
    retired = p->link;
    pthread_mutex_unlock(&retired_mu);
    if (p->nc) {
        natsConnection_Close(p->nc); /* detaches from the loop: before the base goes */
    }
    jsCtx_Destroy(p->js);
    natsConnection_Destroy(p->nc);
    if (p->up_ev) {
        event_free(p->up_ev);
    }
    while (p->count) {
        drop_head(p);
    }
    free(p->ring);
    free(p->stream);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cond);
    free(p);
}
