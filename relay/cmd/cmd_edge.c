/* chessrelay edge: a relay without boards. It consumes the store events a
 * venue relay publishes to NATS JetStream (nats_out.h), rebuilds the games
 * in its own store (event_decode.h) and serves viewers exactly like
 * `serve`: the same server (server.h) fed through the same publications
 * (view.h) from this command's own libevent loop.
 *
 *   chessrelay edge --from nats://HOST:PORT[,...] [--tournament T]
 *                   [--listen ADDR:PORT] [--config FILE] [--state DIR]
 *                   [--stream NAME] [--delay MINUTES] [--arbiter-token T]
 *                   [--gap-wait S] [--port-file FILE] [--web-root DIR] [--quiet]
 *
 * The connection's socket is driven by this command's libevent loop
 * (libnats' libevent adapter). The stream is read with an ordered
 * consumer, created by a thread of its own (creating it is a request that
 * waits for a reply the loop reads); libnats delivers each message on its
 * thread, and it goes through a queue to the loop thread, which applies events in
 * seq order: a resent event may sit in the stream after later ones, so
 * early events wait (at most --gap-wait seconds, then the gap is logged
 * and skipped). With --state DIR every message received is appended to
 * DIR/edge-<stream>.log first; a restart applies that file again and
 * resumes the stream after its last message. Without --tournament the edge
 * follows the first tournament it sees. Arbiters' commands go to the venue
 * relay, not here: the edge is read-only. An edge whose public delay is
 * shorter than the venue's (header Cr-Delay) stops with an error rather
 * than show moves early.
 *
 * Engine evaluations come from the venue too (nats_out.h: subject
 * ...<board>.eval, header Cr-After): an edge runs no engine of its own (an
 * "engine" block in its --config is ignored), so its viewers, games.json
 * and PGN carry the venue's evaluations. An eval is applied once every
 * event up to its Cr-After seq is (the move of its ply is then in the
 * live store), to the live store and, when the public store has that
 * position already, to the public one; with a longer delay than the
 * venue's the public store takes it from the live one when the move
 * becomes public here (on_public_event). */
#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "core/config.h"
#include "edge/event_decode.h"
#include "core/lanes.h"
#include "util/fileio.h"
#include "util/grow.h"
#include "util/log.h"
#include "out/nats_out.h"
#include "util/opts.h"
#include "net/queue.h"
#include "net/server.h"
#include "core/sigwatch.h"
#include "core/store.h"
#include "net/view.h"

enum { IN_QUEUE = 1 << 16, PUB_QUEUE = 1 << 16, CMD_QUEUE = 1024, PENDING_MAX = 1 << 17 };

/* One message of the stream. */
typedef struct item {
    uint64_t sseq;     /* stream sequence */
    uint64_t npending; /* messages left in the stream after it (ready when 0) */
    int64_t seq;       /* relay seq (Cr-Seq) */
    int delay_s;       /* the venue's public delay (Cr-Delay), -1 unknown */
    bool has_ply;
    bool eval; /* an engine evaluation: seq is its Cr-After */
    int32_t emt_ms;
    int64_t ply_ts;
    int fits;
    char tournament[CR_NATS_TOKEN_MAX];
    size_t len;
    char data[];
} item;

typedef struct edge {
    const char *from, *stream;
    char tournament[CR_NATS_TOKEN_MAX]; /* "" until the first message */
    bool fixed_tournament;
    cr_config *cfg;
    int64_t gap_wait_us;
    struct event_base *base;
    cr_lanes *lanes; /* the live and public stores, the delay line */
    cr_store *live;  /* the live lane's store */
    cr_queue *in, *pubs, *cmds;
    cr_server *server;
    natsConnection *nc;
    jsCtx *js;
    /* The subscriber thread (under sub_mu): it sets sub (and caught_up)
     * once subscribed, then ends. */
    pthread_t sub_thread;
    bool sub_started, sub_stop, caught_up;
    pthread_mutex_t sub_mu;
    pthread_cond_t sub_cond;
    natsSubscription *sub;
    uint64_t last_sseq; /* last stream message received */
    item **pending;     /* waiting for an earlier seq, sorted by seq */
    int npending;
    item **evals; /* evals waiting for their Cr-After seq, in arrival order */
    int nevals;
    size_t capevals;
    int64_t evals_applied;
    int64_t gap_since; /* mono us when the head of pending started waiting */
    bool restoring, ready, refusing;
    FILE *state;
    int64_t done_seq; /* every seq up to this one is applied, refused or skipped */
    int64_t applied, refused, skipped, duplicates;
    struct event *in_ev, *cmd_ev, *sub_ev, *tick_ev, *stats_ev;
    int status;
} edge;

/*----- publishing to the server -----*/

static void set_restoring(edge *e, bool on)
{
    e->restoring = on;
    cr_lanes_set_quiet(e->lanes, on);
}

static void publish_stats(edge *e)
{
    cr_pub *p = cr_pub_new(CR_PUB_STATS);
    if (!p) {
        return;
    }
    p->ready = e->ready && !e->restoring;
    /* Boards: the newest game of each board tells whether it is online. */
    for (int i = cr_store_game_count(e->live) - 1; i >= 0; i--) {
        const cr_store_game *g = cr_store_game_at(e->live, i);
        if (cr_store_board_game(e->live, g->board) == g) {
            p->boards_known++;
            p->boards_online += g->online;
        }
    }
    cr_lanes_publish(e->lanes, p);
}

/*----- applying events in seq order -----*/

/* Decodes and applies one event; a refused event is logged and passed. */
static void apply_item(edge *e, const item *it)
{
    cr_store_event *ev = NULL;
    cr_error err;
    cr_error_clear(&err);
    int rc = cr_event_decode(it->data, it->len, &ev, &err);
    if (rc == 0 && ev->seq != it->seq) {
        rc = cr_error_set(&err, CR_EPROTO, 0, 0, "seq %" PRId64 " but header %s says %" PRId64,
                          ev->seq, CR_NATS_HDR_SEQ, it->seq);
    }
    if (rc == 0 && ev->kind == CR_SEV_MOVE) {
        if (it->has_ply) {
            ev->move.emt_ms = it->emt_ms;
            ev->move.ts = it->ply_ts;
            ev->move.fits = (uint16_t)it->fits;
        }
        const cr_store_game *g = cr_store_find(e->live, ev->game);
        rc = g ? cr_event_resolve_move(ev, cr_game_position(g->game), &err)
               : cr_error_set(&err, CR_EINVAL, 0, 0, "unknown game %d", ev->game);
    }
    cr_buf *json = rc == 0 ? cr_buf_new(it->data, it->len) : NULL;
    if (rc == 0) {
        rc = json ? cr_lanes_add(e->lanes, ev, json, &err)
                  : cr_error_set(&err, CR_ENOMEM, 0, 0, "out of memory");
    }
    if (rc) {
        cr_buf_unref(json);
        e->refused++;
        cr_log(CR_LOG_WARN, "edge: stream message %" PRIu64 " (seq %" PRId64 ") refused: %s",
               it->sseq, it->seq, err.text);
        cr_store_event_free(ev);
        return;
    }
    e->applied++;
}

/* Applies one engine evaluation (see the head comment). */
static void apply_eval(edge *e, const item *it)
{
    int game, ply;
    char fen[CR_FEN_MAX];
    cr_eval ev;
    cr_error err;
    if (cr_eval_decode(it->data, it->len, &game, &ply, fen, &ev, &err)) {
        cr_log(CR_LOG_WARN, "edge: stream message %" PRIu64 " (eval) refused: %s", it->sseq,
               err.text);
        return;
    }
    /* none: a correction retracted the ply since, or its move never came */
    if (cr_lanes_set_eval(e->lanes, game, ply, fen, &ev)) {
        e->evals_applied++;
    }
}

/* The evals whose events are all applied. */
static void drain_evals(edge *e)
{
    int k = 0;
    for (int i = 0; i < e->nevals; i++) {
        if (e->evals[i]->seq <= e->done_seq) {
            apply_eval(e, e->evals[i]);
            free(e->evals[i]);
        } else {
            e->evals[k++] = e->evals[i];
        }
    }
    e->nevals = k;
}

/* The public store took a move: the live store's eval of its position, if
 * it came before the move was public here. */
static void on_public_event(void *data, const cr_store *public_store, const cr_store_event *ev)
{
    edge *e = data;
    if (ev->kind != CR_SEV_MOVE || public_store == e->live) {
        return;
    }
    const cr_store_game *g = cr_store_find(e->live, ev->game);
    const cr_eval *had = g ? cr_store_eval(g, ev->ply) : NULL;
    char fen[CR_FEN_MAX];
    if (had && cr_position_to_fen(&ev->move.after, fen, sizeof fen) > 0) {
        cr_eval copy = *had;
        cr_lanes_set_eval(e->lanes, ev->game, ev->ply, fen, &copy);
    }
}

/* Applies the pending events that are next in seq order. */
static void drain_pending(edge *e)
{
    int k = 0;
    while (k < e->npending && e->pending[k]->seq == e->done_seq + 1) {
        apply_item(e, e->pending[k]);
        /* a refused event still takes its seq: the next ones must not wait */
        e->done_seq = e->pending[k]->seq;
        free(e->pending[k]);
        k++;
    }
    if (k) {
        memmove(e->pending, e->pending + k, (size_t)(e->npending - k) * sizeof *e->pending);
        e->npending -= k;
        e->gap_since = e->npending ? cr_mono_us() : 0;
        drain_evals(e);
    }
}

/* Gives up waiting for the missing seqs before the first pending event. */
static void skip_gap(edge *e)
{
    if (!e->npending) {
        return;
    }
    int64_t from = e->done_seq + 1, to = e->pending[0]->seq - 1;
    cr_log(CR_LOG_WARN, "edge: events %" PRId64 "..%" PRId64 " never came: going on without them",
           from, to);
    e->skipped += to - from + 1;
    apply_item(e, e->pending[0]);
    e->done_seq = e->pending[0]->seq;
    free(e->pending[0]);
    memmove(e->pending, e->pending + 1, (size_t)(e->npending - 1) * sizeof *e->pending);
    e->npending--;
    e->gap_since = e->npending ? cr_mono_us() : 0;
    drain_pending(e);
}

/* Takes it. */
static void handle_item(edge *e, item *it)
{
    if (it->sseq > e->last_sseq) {
        e->last_sseq = it->sseq;
    }
    if (!e->tournament[0]) {
        snprintf(e->tournament, sizeof e->tournament, "%s", it->tournament);
        cr_log(CR_LOG_INFO, "edge: following tournament %s", e->tournament);
    }
    if (strcmp(e->tournament, it->tournament) != 0 || e->refusing) {
        free(it);
        return;
    }
    if (it->delay_s > e->cfg->delay_s) {
        /* Serving with less delay than the venue would show moves early. */
        cr_log(CR_LOG_ERROR,
               "edge: the venue delays the public by %d s, this edge by %d s: restart it with "
               "--delay %g (or more); stopping",
               it->delay_s, e->cfg->delay_s, it->delay_s / 60.0);
        e->refusing = true;
        e->status = 1;
        event_base_loopexit(e->base, NULL);
        free(it);
        return;
    }
    if (it->npending == 0 && !e->restoring) {
        e->ready = true;
    }
    if (it->eval) {
        if (it->seq <= e->done_seq) {
            apply_eval(e, it);
            free(it);
            return;
        }
        item **n = cr_grow(e->evals, &e->capevals, (size_t)e->nevals + 1, sizeof *n, 64);
        if (!n) {
            free(it);
            return;
        }
        e->evals = n;
        e->evals[e->nevals++] = it;
        return;
    }
    if (it->seq <= e->done_seq) {
        e->duplicates++;
        free(it);
        return;
    }
    /* insert sorted; an equal seq is a duplicate */
    int lo = 0, hi = e->npending;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (e->pending[mid]->seq < it->seq) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < e->npending && e->pending[lo]->seq == it->seq) {
        e->duplicates++;
        free(it);
        return;
    }
    if (e->npending == PENDING_MAX) {
        skip_gap(e);
        if (it->seq <= e->done_seq) {
            free(it);
            return;
        }
        handle_item(e, it);
        return;
    }
    memmove(e->pending + lo + 1, e->pending + lo, (size_t)(e->npending - lo) * sizeof *e->pending);
    e->pending[lo] = it;
    e->npending++;
    if (!e->gap_since) {
        e->gap_since = cr_mono_us();
    }
    drain_pending(e);
}

/*----- the state file -----*/

static void state_append(edge *e, const item *it)
{
    if (!e->state) {
        return;
    }
    /* <stream seq> <tournament> <seq> <delay> <emt,ts,fits or - or eval> <message> */
    if (it->eval) {
        fprintf(e->state, "%" PRIu64 " %s %" PRId64 " %d eval %.*s\n", it->sseq, it->tournament,
                it->seq, it->delay_s, (int)it->len, it->data);
    } else if (it->has_ply) {
        fprintf(e->state, "%" PRIu64 " %s %" PRId64 " %d %" PRId32 ",%" PRId64 ",%d %.*s\n",
                it->sseq, it->tournament, it->seq, it->delay_s, it->emt_ms, it->ply_ts, it->fits,
                (int)it->len, it->data);
    } else {
        fprintf(e->state, "%" PRIu64 " %s %" PRId64 " %d - %.*s\n", it->sseq, it->tournament,
                it->seq, it->delay_s, (int)it->len, it->data);
    }
    fflush(e->state);
}

static item *item_new(const char *data, size_t len)
{
    item *it = calloc(1, sizeof *it + len + 1);
    if (it) {
        memcpy(it->data, data, len);
        it->len = len;
        it->fits = 1;
        it->emt_ms = CR_CLOCK_UNKNOWN;
        it->ply_ts = -1;
        it->delay_s = -1;
    }
    return it;
}

/* One line of the state file back into an item (NULL if malformed). */
static item *state_line(const char *line, size_t len)
{
    unsigned long long sseq;
    long long seq;
    char tournament[CR_NATS_TOKEN_MAX], ply[96];
    int used = 0, delay;
    char head[256];
    size_t hn = len < sizeof head - 1 ? len : sizeof head - 1;
    memcpy(head, line, hn);
    head[hn] = '\0';
    if (sscanf(head, "%llu %63s %lld %d %95s %n", &sseq, tournament, &seq, &delay, ply, &used) !=
            5 ||
        !used || (size_t)used >= len) {
        return NULL;
    }
    item *it = item_new(line + used, len - (size_t)used);
    if (!it) {
        return NULL;
    }
    it->sseq = sseq;
    it->seq = seq;
    it->delay_s = delay;
    it->npending = 1;
    snprintf(it->tournament, sizeof it->tournament, "%s", tournament);
    long long ts;
    int emt, fits;
    if (strcmp(ply, "eval") == 0) {
        it->eval = true;
    } else if (strcmp(ply, "-") != 0) {
        if (sscanf(ply, "%d,%lld,%d", &emt, &ts, &fits) != 3) {
            free(it);
            return NULL;
        }
        it->has_ply = true;
        it->emt_ms = emt;
        it->ply_ts = ts;
        it->fits = fits;
    }
    return it;
}

typedef struct state_count {
    edge *e;
    long lines, bad;
} state_count;

static int state_apply(void *data, const char *line, size_t len, int lineno)
{
    (void)lineno;
    state_count *c = data;
    item *it = state_line(line, len);
    if (it) {
        handle_item(c->e, it);
        c->lines++;
    } else {
        c->bad++;
    }
    return 0;
}

/* Applies the state file and opens it for appending. Returns 0 or -1. */
static int state_open(edge *e, const char *dir)
{
    if (cr_mkdir_p(dir)) {
        cr_log(CR_LOG_ERROR, "edge: %s: %s", dir, strerror(errno));
        return -1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/edge-%s.log", dir, e->stream);
    state_count c = {e, 0, 0};
    cr_error err;
    set_restoring(e, true);
    int rc = cr_read_lines(path, state_apply, &c, NULL, &err);
    set_restoring(e, false);
    if (rc && errno != ENOENT) {
        cr_log(CR_LOG_WARN, "edge: %s", err.text);
    } else if (rc == 0) {
        cr_lanes_tick(e->lanes, cr_now_us());
        cr_log(CR_LOG_INFO,
               "edge: %s: %ld messages (%ld unreadable), %d games, seq %" PRId64
               ", resuming after stream message %" PRIu64,
               path, c.lines, c.bad, cr_store_game_count(e->live), cr_store_last_seq(e->live),
               e->last_sseq);
    }
    e->state = fopen(path, "a");
    if (!e->state) {
        cr_log(CR_LOG_ERROR, "edge: %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/*----- NATS -----*/

/* An eval's subject: five tokens, the last one CR_NATS_EVAL_TOKEN. */
static bool eval_subject(const char *subj)
{
    int dots = 0;
    const char *last = subj;
    for (const char *s = subj; *s; s++) {
        if (*s == '.') {
            dots++;
            last = s + 1;
        }
    }
    return dots == 4 && strcmp(last, CR_NATS_EVAL_TOKEN) == 0;
}

/* libnats thread: one message to the loop's queue. */
static void on_msg(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure)
{
    edge *e = closure;
    item *it = item_new(natsMsg_GetData(msg), (size_t)natsMsg_GetDataLength(msg));
    jsMsgMetaData *meta = NULL;
    const char *v = NULL;
    /* chessrelay.<tournament>.<round>.<board>[.eval] */
    const char *subj = natsMsg_GetSubject(msg);
    bool eval = eval_subject(subj);
    if (it) {
        it->eval = eval;
    }
    if (!it || natsMsg_GetMetaData(&meta, msg) != NATS_OK ||
        natsMsgHeader_Get(msg, eval ? CR_NATS_HDR_AFTER : CR_NATS_HDR_SEQ, &v) != NATS_OK || !v) {
        cr_log(CR_LOG_WARN, "edge: message on %s without stream data or %s: ignored",
               natsMsg_GetSubject(msg), CR_NATS_HDR_SEQ);
        free(it);
        jsMsgMetaData_Destroy(meta);
        natsMsg_Destroy(msg);
        return;
    }
    it->sseq = meta->Sequence.Stream;
    it->npending = meta->NumPending;
    jsMsgMetaData_Destroy(meta);
    it->seq = strtoll(v, NULL, 10);
    if (natsMsgHeader_Get(msg, CR_NATS_HDR_DELAY, &v) == NATS_OK && v) {
        it->delay_s = atoi(v);
    }
    if (natsMsgHeader_Get(msg, CR_NATS_HDR_PLY, &v) == NATS_OK && v) {
        long long ts;
        int emt, fits;
        if (sscanf(v, "%d %lld %d", &emt, &ts, &fits) == 3) {
            it->has_ply = true;
            it->emt_ms = emt;
            it->ply_ts = ts;
            it->fits = fits;
        }
    }
    const char *t = strchr(subj, '.');
    const char *end = t ? strchr(t + 1, '.') : NULL;
    if (t && end && end - t - 1 < CR_NATS_TOKEN_MAX) {
        snprintf(it->tournament, sizeof it->tournament, "%.*s", (int)(end - t - 1), t + 1);
    }
    natsMsg_Destroy(msg);
    if (!cr_queue_push(e->in, it, true)) {
        free(it);
    }
}

static void on_incoming(evutil_socket_t fd, short what, void *arg)
{
    edge *e = arg;
    item *it;
    while ((it = cr_queue_pop(e->in)) != NULL) {
        if (it->sseq <= e->last_sseq || e->refusing) {
            free(it); /* already in the state file */
            continue;
        }
        state_append(e, it);
        handle_item(e, it);
    }
}

static void wake(void *data)
{
    event_active(data, EV_READ, 0);
}

static void on_commands(evutil_socket_t fd, short what, void *arg)
{
    edge *e = arg;
    cr_command_msg *c;
    while ((c = cr_queue_pop(e->cmds)) != NULL) {
        cr_log(CR_LOG_WARN, "edge: command from %s ignored: an edge is read-only (use the venue's)",
               c->who);
        free(c);
    }
}

/* Subscriber thread: one attempt. Requests need the loop running. */
static bool subscribe(edge *e, natsSubscription **sub, bool *caught_up, int64_t *last_log)
{
    char filter[CR_NATS_TOKEN_MAX + 32];
    if (e->fixed_tournament) {
        snprintf(filter, sizeof filter, "%s.%s.>", CR_NATS_PREFIX, e->tournament);
    } else {
        snprintf(filter, sizeof filter, "%s.>", CR_NATS_PREFIX);
    }
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = e->stream;
    so.Ordered = true;
    /* last_sseq: read from the state file before this thread started */
    if (e->last_sseq) {
        so.Config.DeliverPolicy = js_DeliverByStartSequence;
        so.Config.OptStartSeq = e->last_sseq + 1;
    } else {
        so.Config.DeliverPolicy = js_DeliverAll;
    }
    jsErrCode jerr = 0;
    natsStatus s = js_Subscribe(sub, e->js, filter, on_msg, e, NULL, &so, &jerr);
    if (s != NATS_OK) {
        if (cr_mono_us() - *last_log > 10000000) {
            cr_log(CR_LOG_WARN, "edge: subscribing to %s in %s: %s (error %d); retrying", filter,
                   e->stream, natsStatus_GetText(s), (int)jerr);
            *last_log = cr_mono_us();
        }
        *sub = NULL;
        return false;
    }
    cr_log(CR_LOG_INFO, "edge: reading %s from stream %s (from message %" PRIu64 ")", filter,
           e->stream, e->last_sseq + 1);
    /* An empty stream sends nothing to say so (messages carry what is left). */
    jsConsumerInfo *ci = NULL;
    if (natsSubscription_GetConsumerInfo(&ci, *sub, NULL, &jerr) == NATS_OK && ci) {
        *caught_up = ci->NumPending == 0;
        jsConsumerInfo_Destroy(ci);
    }
    return true;
}

/* Tries every second until subscribed, then tells the loop (sub_ev). */
static void *subscriber(void *arg)
{
    edge *e = arg;
    int64_t last_log = 0;
    pthread_mutex_lock(&e->sub_mu);
    while (!e->sub_stop) {
        pthread_mutex_unlock(&e->sub_mu);
        natsSubscription *sub = NULL;
        bool caught_up = false;
        bool ok = natsConnection_Status(e->nc) == NATS_CONN_STATUS_CONNECTED &&
                  subscribe(e, &sub, &caught_up, &last_log);
        pthread_mutex_lock(&e->sub_mu);
        if (ok) {
            e->sub = sub;
            e->caught_up = caught_up;
            event_active(e->sub_ev, EV_READ, 0);
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec++;
        pthread_cond_timedwait(&e->sub_cond, &e->sub_mu, &ts);
    }
    pthread_mutex_unlock(&e->sub_mu);
    return NULL;
}

/* Loop thread: first run starts the subscriber (the loop now reads
 * replies); later, the subscriber says it is done. */
static void on_subscribe(evutil_socket_t fd, short what, void *arg)
{
    edge *e = arg;
    if (!e->sub_started) {
        if (pthread_create(&e->sub_thread, NULL, subscriber, e) != 0) {
            cr_log(CR_LOG_ERROR, "edge: cannot start the subscriber thread");
            e->status = 1;
            event_base_loopexit(e->base, NULL);
            return;
        }
        e->sub_started = true;
        return;
    }
    pthread_mutex_lock(&e->sub_mu);
    if (e->caught_up) {
        e->ready = true;
    }
    pthread_mutex_unlock(&e->sub_mu);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    edge *e = arg;
    if (e->npending && e->gap_since && cr_mono_us() - e->gap_since > e->gap_wait_us) {
        skip_gap(e);
    }
    cr_lanes_tick(e->lanes, cr_now_us());
}

static void on_stats(evutil_socket_t fd, short what, void *arg)
{
    publish_stats(arg);
}

/* The signal watcher: the loop may be waiting for room in the
 * publication queue (a stalled server thread); closing it lets it return. */
static void stop_publishing(void *data)
{
    cr_queue_close(data);
}

static void free_pub(void *p)
{
    cr_pub_free(p);
}

/*----- the command -----*/

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay edge --from nats://HOST:PORT[,...] [--tournament T]\n"
                    "         [--listen ADDR:PORT] [--config FILE] [--state DIR] [--stream NAME]\n"
                    "         [--delay MINUTES] [--arbiter-token T] [--gap-wait S]\n"
                    "         [--port-file FILE] [--web-root DIR] [--quiet]\n");
    return 2;
}

typedef struct edge_args {
    const char *from, *tournament, *listen, *config, *state, *stream, *token, *port_file, *web_root;
    double delay_min, gap_wait;
} edge_args;

/* Returns 0, or 2 after a usage error. */
static int parse_args(int argc, char **argv, edge_args *a)
{
    memset(a, 0, sizeof *a);
    a->stream = CR_NATS_STREAM;
    a->delay_min = -1;
    a->gap_wait = 10;
    static const struct {
        const char *name;
        size_t field;
    } strs[] = {
        {"--from", offsetof(edge_args, from)},
        {"--tournament", offsetof(edge_args, tournament)},
        {"--listen", offsetof(edge_args, listen)},
        {"--config", offsetof(edge_args, config)},
        {"--state", offsetof(edge_args, state)},
        {"--stream", offsetof(edge_args, stream)},
        {"--arbiter-token", offsetof(edge_args, token)},
        {"--port-file", offsetof(edge_args, port_file)},
        {"--web-root", offsetof(edge_args, web_root)},
    };
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--quiet") == 0) {
            cr_log_set_level(CR_LOG_WARN);
            continue;
        }
        if (!v) {
            fprintf(stderr, "chessrelay edge: %s needs a value\n", o);
            return usage();
        }
        i++;
        size_t k = 0;
        while (k < sizeof strs / sizeof strs[0] && strcmp(o, strs[k].name) != 0) {
            k++;
        }
        if (k < sizeof strs / sizeof strs[0]) {
            *(const char **)((char *)a + strs[k].field) = v;
        } else if (strcmp(o, "--delay") == 0) {
            if (!cr_opt_number("edge", o, v, 0, 24 * 60, "minutes (0..1440)", &a->delay_min)) {
                return 2;
            }
        } else if (strcmp(o, "--gap-wait") == 0) {
            if (!cr_opt_number("edge", o, v, 0, 3600, "seconds (0..3600)", &a->gap_wait)) {
                return 2;
            }
        } else {
            fprintf(stderr, "chessrelay edge: unknown option '%s'\n", o);
            return usage();
        }
    }
    if (!a->from) {
        return usage();
    }
    char tok[CR_NATS_TOKEN_MAX];
    if (a->tournament) {
        cr_nats_token(a->tournament, tok);
        if (strcmp(tok, a->tournament) != 0) {
            fprintf(stderr,
                    "chessrelay edge: --tournament: a subject token (letters, digits, _ -), "
                    "got '%s' (as published: '%s')\n",
                    a->tournament, tok);
            return 2;
        }
    }
    cr_nats_token(a->stream, tok);
    if (strcmp(tok, a->stream) != 0) {
        fprintf(stderr, "chessrelay edge: --stream: letters, digits, _ and - only, got '%s'\n",
                a->stream);
        return 2;
    }
    return 0;
}

/* The tournament file (or none) with the command line over it. Returns 0,
 * 1 or 2 (usage). */
static int load_config(edge *e, const edge_args *a)
{
    cr_error err;
    e->cfg = a->config ? cr_config_load(a->config, &err) : cr_config_new();
    if (!e->cfg) {
        fprintf(stderr, "chessrelay edge: %s\n", a->config ? err.text : "out of memory");
        return 1;
    }
    cr_config *c = e->cfg;
    if (a->listen &&
        cr_parse_listen(a->listen, c->listen_host, sizeof c->listen_host, &c->listen_port)) {
        fprintf(stderr, "chessrelay edge: --listen: expected ADDR:PORT, got '%s'\n", a->listen);
        return 2;
    }
    if (a->delay_min >= 0) {
        c->delay_s = (int)(a->delay_min * 60 + 0.5);
    }
    if (a->web_root) {
        free(c->web_root);
        c->web_root = strdup(a->web_root);
    }
    if (c->engine.path) {
        cr_log(CR_LOG_INFO, "edge: the \"engine\" of %s is not used: evaluations come from the "
                            "venue relay",
               a->config);
    }
    int rc = a->token ? cr_config_add_token(c, "command line", "arbiter", a->token) : 0;
    if (rc) {
        fprintf(stderr, "chessrelay edge: --arbiter-token: %s\n",
                rc == CR_EINVAL ? cr_config_token_problem(a->token) : "out of memory");
        return rc == CR_EINVAL ? 2 : 1;
    }
    return 0;
}

/* The loop, queues and lanes, the server, the state file, the NATS
 * connection and the timers. Returns 0 or -1 (logged). */
static int start_edge(edge *e, cr_sigwatch *sw, const edge_args *a)
{
    e->base = sw ? event_base_new() : NULL;
    e->in = cr_queue_new(IN_QUEUE, NULL, NULL);
    e->pubs = cr_queue_new(PUB_QUEUE, NULL, NULL);
    e->cmds = cr_queue_new(CMD_QUEUE, NULL, NULL);
    e->pending = calloc(PENDING_MAX, sizeof *e->pending);
    if (e->base && e->pubs) {
        cr_lanes_config lc = {.delay_s = e->cfg->delay_s,
                              .pubs = e->pubs,
                              .base = e->base,
                              .public_event = on_public_event,
                              .data = e};
        e->lanes = cr_lanes_new(&lc);
        e->live = e->lanes ? cr_lanes_live(e->lanes) : NULL;
        if (e->lanes) {
            /* the venue's evals in this edge's PGN ("engine": {"pgn"} of
             * its --config; all by default) */
            cr_lanes_set_pgn_evals(e->lanes, e->cfg->engine.pgn_http);
        }
    }
    if (!e->base || !e->lanes || !e->in || !e->pubs || !e->cmds || !e->pending) {
        cr_log(CR_LOG_ERROR, "out of memory");
        return -1;
    }
    if (cr_sigwatch_start(sw, e->base, stop_publishing, e->pubs, NULL)) {
        cr_log(CR_LOG_ERROR, "edge: cannot start the signal thread");
        return -1;
    }
    e->in_ev = event_new(e->base, -1, 0, on_incoming, e);
    e->cmd_ev = event_new(e->base, -1, 0, on_commands, e);
    cr_queue_set_wake(e->in, wake, e->in_ev);
    cr_queue_set_wake(e->cmds, wake, e->cmd_ev);
    cr_server_config scfg;
    cr_server_config_from(&scfg, e->cfg);
    cr_error err;
    e->server = cr_server_start(&scfg, e->pubs, e->cmds, &err);
    if (!e->server) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    cr_server_announce(e->server, "edge: ", a->port_file);
    publish_stats(e);
    if (a->state && state_open(e, a->state)) {
        return -1;
    }
    cr_lanes_publish_states(e->lanes);
    e->nc = cr_nats_connect(a->from, "chessrelay edge", e->base, NULL, NULL, &err);
    if (!e->nc) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = 2000;
    if (natsConnection_JetStream(&e->js, e->nc, &jo) != NATS_OK) {
        cr_log(CR_LOG_ERROR, "edge: no JetStream context");
        return -1;
    }
    struct timeval tick = {0, 100000}, second = {1, 0};
    e->sub_ev = event_new(e->base, -1, 0, on_subscribe, e);
    e->tick_ev = event_new(e->base, -1, EV_PERSIST, on_tick, e);
    e->stats_ev = event_new(e->base, -1, EV_PERSIST, on_stats, e);
    event_active(e->sub_ev, EV_TIMEOUT, 0); /* once the loop runs */
    event_add(e->tick_ev, &tick);
    event_add(e->stats_ev, &second);
    return 0;
}

static void stop_edge(edge *e)
{
    if (e->in) {
        cr_queue_close(e->in); /* a libnats thread may wait in a push */
    }
    if (e->sub_started) {
        pthread_mutex_lock(&e->sub_mu);
        e->sub_stop = true;
        pthread_cond_signal(&e->sub_cond);
        pthread_mutex_unlock(&e->sub_mu);
        pthread_join(e->sub_thread, NULL);
    }
    if (e->sub) {
        natsSubscription_Unsubscribe(e->sub);
        natsSubscription_Destroy(e->sub);
    }
    if (e->nc) {
        natsConnection_Close(e->nc);
    }
    jsCtx_Destroy(e->js);
    natsConnection_Destroy(e->nc);
    if (e->server) {
        cr_server_stop(e->server);
    }
    struct event *evs[] = {e->in_ev, e->cmd_ev, e->sub_ev, e->tick_ev, e->stats_ev};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        if (evs[i]) {
            event_free(evs[i]);
        }
    }
    cr_queue_free(e->in, free);
    cr_queue_free(e->pubs, free_pub);
    cr_queue_free(e->cmds, free);
    for (int i = 0; i < e->npending; i++) {
        free(e->pending[i]);
    }
    free(e->pending);
    for (int i = 0; i < e->nevals; i++) {
        free(e->evals[i]);
    }
    free(e->evals);
    if (e->state) {
        fclose(e->state);
    }
    cr_lanes_free(e->lanes);
    if (e->base) {
        event_base_free(e->base);
    }
}

int cr_cmd_edge(int argc, char **argv)
{
    edge_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        return rc;
    }
    edge es, *e = &es;
    memset(e, 0, sizeof *e);
    e->from = a.from;
    e->stream = a.stream;
    if (a.tournament) {
        snprintf(e->tournament, sizeof e->tournament, "%s", a.tournament);
        e->fixed_tournament = true;
    }
    e->gap_wait_us = (int64_t)(a.gap_wait * 1e6);
    rc = load_config(e, &a);
    if (rc) {
        cr_config_free(e->cfg);
        return rc;
    }
    pthread_mutex_init(&e->sub_mu, NULL);
    pthread_cond_init(&e->sub_cond, NULL);
    /* Before any thread is made; it also turns on libevent's locking before
     * the base exists (the queues wake it from other threads). */
    cr_sigwatch *sw = cr_sigwatch_new(false);
    int status = 1;
    if (start_edge(e, sw, &a) == 0) {
        signal(SIGPIPE, SIG_IGN);
        if (event_base_dispatch(e->base) < 0) {
            cr_log(CR_LOG_ERROR, "event loop failed");
        } else {
            if (cr_sigwatch_signal(sw)) {
                cr_log(CR_LOG_INFO, "signal %d: stopping (a second one forces the exit)",
                       cr_sigwatch_signal(sw));
            }
            cr_log(CR_LOG_INFO,
                   "edge: %" PRId64 " events applied, %" PRId64 " refused, %" PRId64
                   " missing, %" PRId64 " duplicates; %" PRId64 " evaluations",
                   e->applied, e->refused, e->skipped, e->duplicates, e->evals_applied);
            status = e->status;
        }
    }
    stop_edge(e);
    cr_config_free(e->cfg);
    cr_sigwatch_free(sw); /* the other threads are stopped */
    pthread_mutex_destroy(&e->sub_mu);
    pthread_cond_destroy(&e->sub_cond);
    return status;
}
