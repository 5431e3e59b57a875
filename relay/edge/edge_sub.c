/* chessrelay relay: an edge's stream subscriber (see edge_sub.h). */
#include "edge/edge_sub.h"

#include <assert.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "edge/edge_msg.h"
#include "out/nats_out.h"
#include "util/log.h"

static_assert(CR_EDGE_TOURNAMENT_MAX == CR_NATS_TOKEN_MAX, "a tournament is a subject token");

struct cr_edge_sub {
    cr_edge_sub_config cfg;
    char stream[CR_NATS_TOKEN_MAX];
    char filter[CR_NATS_TOKEN_MAX + 32];
    natsConnection *nc;
    jsCtx *js;
    struct event *ev; /* first run: start the thread; then: subscribed */
    /* The thread sets sub (and caught_up) once subscribed, then ends;
     * under mu. */
    pthread_t thread;
    bool started, stop, caught_up, failed;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    natsSubscription *sub;
};

bool cr_edge_sub_eval_subject(const char *subj)
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

/* The headers beside the message. */
static void read_headers(natsMsg *msg, cr_edge_msg *m)
{
    const char *v = NULL;
    if (natsMsgHeader_Get(msg, CR_NATS_HDR_DELAY, &v) == NATS_OK && v) {
        m->delay_s = atoi(v);
    }
    if (natsMsgHeader_Get(msg, CR_NATS_HDR_PLY, &v) == NATS_OK && v) {
        long long ts;
        int emt, fits;
        if (sscanf(v, "%d %lld %d", &emt, &ts, &fits) == 3) {
            m->has_ply = true;
            m->emt_ms = emt;
            m->ply_ts = ts;
            m->fits = fits;
        }
    }
}

/* libnats thread: one message to the loop's queue. */
static void on_msg(natsConnection *nc, natsSubscription *sub, natsMsg *msg, void *closure)
{
    (void)nc;
    (void)sub;
    cr_edge_sub *s = closure;
    cr_edge_msg *m = cr_edge_msg_new(natsMsg_GetData(msg), (size_t)natsMsg_GetDataLength(msg));
    jsMsgMetaData *meta = NULL;
    const char *v = NULL;
    /* chessrelay.<tournament>.<round>.<board>[.eval] */
    const char *subj = natsMsg_GetSubject(msg);
    bool eval = cr_edge_sub_eval_subject(subj);
    if (m) {
        m->eval = eval;
    }
    if (!m || natsMsg_GetMetaData(&meta, msg) != NATS_OK ||
        natsMsgHeader_Get(msg, eval ? CR_NATS_HDR_AFTER : CR_NATS_HDR_SEQ, &v) != NATS_OK || !v) {
        cr_log(CR_LOG_WARN, "edge: message on %s without stream data or %s: ignored", subj,
               CR_NATS_HDR_SEQ);
        free(m);
        jsMsgMetaData_Destroy(meta);
        natsMsg_Destroy(msg);
        return;
    }
    m->sseq = meta->Sequence.Stream;
    m->npending = meta->NumPending;
    jsMsgMetaData_Destroy(meta);
    m->seq = strtoll(v, NULL, 10);
    read_headers(msg, m);
    const char *t = strchr(subj, '.');
    const char *end = t ? strchr(t + 1, '.') : NULL;
    if (t && end && end - t - 1 < CR_NATS_TOKEN_MAX) {
        snprintf(m->tournament, sizeof m->tournament, "%.*s", (int)(end - t - 1), t + 1);
    }
    natsMsg_Destroy(msg);
    if (!cr_queue_push(s->cfg.in, m, true)) {
        free(m);
    }
}

/* Subscriber thread: one attempt. */
static bool subscribe(cr_edge_sub *s, natsSubscription **sub, bool *caught_up, int64_t *last_log)
{
    jsSubOptions so;
    jsSubOptions_Init(&so);
    so.Stream = s->stream;
    so.Ordered = true;
    /* The ordered consumer is re-made when its heartbeats stop: with the
     * library's 5 s, an edge whose server died waited 15-20 s for the
     * stream (the rehearsal's NATS fault, docs/scale.md); 1 s: about 3 s. */
    so.Config.Heartbeat = (int64_t)1000 * 1000 * 1000;
    if (s->cfg.after) {
        so.Config.DeliverPolicy = js_DeliverByStartSequence;
        so.Config.OptStartSeq = s->cfg.after + 1;
    } else {
        so.Config.DeliverPolicy = js_DeliverAll;
    }
    jsErrCode jerr = 0;
    natsStatus st = js_Subscribe(sub, s->js, s->filter, on_msg, s, NULL, &so, &jerr);
    if (st != NATS_OK) {
        if (cr_mono_us() - *last_log > 10000000) {
            cr_log(CR_LOG_WARN, "edge: subscribing to %s in %s: %s (error %d); retrying",
                   s->filter, s->stream, natsStatus_GetText(st), (int)jerr);
            *last_log = cr_mono_us();
        }
        *sub = NULL;
        return false;
    }
    cr_log(CR_LOG_INFO, "edge: reading %s from stream %s (from message %" PRIu64 ")", s->filter,
           s->stream, s->cfg.after + 1);
    /* An empty stream sends nothing to say so (messages carry what is left). */
    jsConsumerInfo *ci = NULL;
    if (natsSubscription_GetConsumerInfo(&ci, *sub, NULL, &jerr) == NATS_OK && ci) {
        *caught_up = ci->NumPending == 0;
        jsConsumerInfo_Destroy(ci);
    }
    return true;
}

/* Tries every second until subscribed, then tells the loop (ev). */
static void *subscriber(void *arg)
{
    cr_edge_sub *s = arg;
    int64_t last_log = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->stop) {
        pthread_mutex_unlock(&s->mu);
        natsSubscription *sub = NULL;
        bool caught_up = false;
        bool ok = natsConnection_Status(s->nc) == NATS_CONN_STATUS_CONNECTED &&
                  subscribe(s, &sub, &caught_up, &last_log);
        pthread_mutex_lock(&s->mu);
        if (ok) {
            s->sub = sub;
            s->caught_up = caught_up;
            event_active(s->ev, EV_READ, 0);
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec++;
        pthread_cond_timedwait(&s->cond, &s->mu, &ts);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* Loop thread: first run starts the subscriber (the loop now reads
 * replies); later, the subscriber says it is done. */
static void on_event(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    cr_edge_sub *s = arg;
    if (!s->started) {
        if (pthread_create(&s->thread, NULL, subscriber, s) != 0) {
            cr_log(CR_LOG_ERROR, "edge: cannot start the subscriber thread");
            s->failed = true;
            event_base_loopexit(s->cfg.base, NULL);
            return;
        }
        s->started = true;
        return;
    }
    pthread_mutex_lock(&s->mu);
    bool caught_up = s->caught_up;
    pthread_mutex_unlock(&s->mu);
    if (s->cfg.subscribed) {
        s->cfg.subscribed(s->cfg.data, caught_up);
    }
}

cr_edge_sub *cr_edge_sub_new(const cr_edge_sub_config *cfg, cr_error *err)
{
    cr_edge_sub *s = calloc(1, sizeof *s);
    if (!s) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    snprintf(s->stream, sizeof s->stream, "%s", cfg->stream);
    s->cfg.stream = s->stream;
    if (cfg->tournament) {
        snprintf(s->filter, sizeof s->filter, "%s.%s.>", CR_NATS_PREFIX, cfg->tournament);
    } else {
        snprintf(s->filter, sizeof s->filter, "%s.>", CR_NATS_PREFIX);
    }
    s->cfg.tournament = NULL; /* in the filter */
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    s->ev = event_new(cfg->base, -1, 0, on_event, s);
    if (!s->ev) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        cr_edge_sub_free(s);
        return NULL;
    }
    s->nc = cr_nats_connect(cfg->urls, "chessrelay edge", cfg->base, NULL, NULL, err);
    if (!s->nc) {
        cr_edge_sub_free(s);
        return NULL;
    }
    jsOptions jo;
    jsOptions_Init(&jo);
    jo.Wait = 2000;
    if (natsConnection_JetStream(&s->js, s->nc, &jo) != NATS_OK) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "edge: no JetStream context");
        cr_edge_sub_free(s);
        return NULL;
    }
    return s;
}

int cr_edge_sub_start(cr_edge_sub *s)
{
    event_active(s->ev, EV_TIMEOUT, 0); /* once the loop runs */
    return 0;
}

bool cr_edge_sub_failed(const cr_edge_sub *s)
{
    return s->failed;
}

void cr_edge_sub_free(cr_edge_sub *s)
{
    if (!s) {
        return;
    }
    if (s->started) {
        pthread_mutex_lock(&s->mu);
        s->stop = true;
        pthread_cond_signal(&s->cond);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
    }
    if (s->sub) {
        natsSubscription_Unsubscribe(s->sub);
        natsSubscription_Destroy(s->sub);
    }
    if (s->nc) {
        natsConnection_Close(s->nc);
    }
    jsCtx_Destroy(s->js);
    natsConnection_Destroy(s->nc);
    if (s->ev) {
        event_free(s->ev);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cond);
    free(s);
}
