/* chessrelay relay: the agent program's end of the agent link (see
 * agent_client.h). */
#include "agent/agent_client.h"

#include <inttypes.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_journal.h"
#include "agent/agent_link.h"
#include "agent/agent_msg.h"
#include "net/ws_text.h"
#include "util/log.h"

enum { TICK_US = 250 * 1000 };

struct cr_agent_client {
    /* configuration */
    char id[CR_AGENT_ID_MAX + 1];
    char *token;
    char url[1024];
    cr_agent_url addr;
    bool insecure, exit_at_end;
    int64_t (*clock)(void *data);
    void *clock_data;
    struct event_base *base; /* told to end; NULL before start */
    /* shared, under lock */
    pthread_mutex_t lock;
    cr_agent_journal *journal;
    bool sources_done;
    int64_t wm; /* watermark: every event up to this agent time is in the journal */
    /* link thread */
    struct lws_context *ctx;
    struct lws *wsi;
    pthread_t thread;
    bool thread_started;
    lws_sorted_usec_list_t sul_connect, sul_tick;
    int64_t backoff_us;
    bool hello_sent, welcomed, tick_due, bye_sent;
    int failures; /* connection attempts failed since the last welcome */
    int64_t next; /* next event number to send */
    atomic_bool stop;     /* main -> link thread: leave (after a bye if connected) */
    atomic_bool finished; /* link thread done */
    atomic_int status;
};

int cr_agent_url_parse(const char *url, cr_agent_url *out)
{
    memset(out, 0, sizeof *out);
    char work[1024];
    if (snprintf(work, sizeof work, "%s", url) >= (int)sizeof work) {
        return -1;
    }
    const char *prot, *host, *path;
    int port;
    if (lws_parse_uri(work, &prot, &host, &port, &path)) {
        return -1;
    }
    if (strcmp(prot, "ws") == 0) {
        out->tls = false;
    } else if (strcmp(prot, "wss") == 0) {
        out->tls = true;
    } else {
        return -1;
    }
    if (!strstr(url + strlen(prot) + 3, ":")) {
        port = out->tls ? 443 : 80;
    }
    if (!host[0] || snprintf(out->host, sizeof out->host, "%s", host) >= (int)sizeof out->host) {
        return -1;
    }
    out->port = port;
    /* lws_parse_uri drops the path's "/", but gives "/" for none */
    snprintf(out->path, sizeof out->path, "%s%s", path[0] == '/' ? "" : "/", path);
    return 0;
}

void cr_agent_id_from_host(const char *host, char *out)
{
    size_t n = 0;
    for (const char *c = host[0] ? host : "agent"; *c && n < CR_AGENT_ID_MAX; c++) {
        bool ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
                  *c == '.' || *c == '_' || *c == '-';
        out[n++] = ok ? *c : '-';
    }
    out[n] = '\0';
}

static void wake_link(cr_agent_client *c)
{
    if (c->ctx) {
        lws_cancel_service(c->ctx);
    }
}

static void end_loop(cr_agent_client *c)
{
    if (c->base) {
        event_base_loopexit(c->base, NULL);
    }
}

/*----- the journal -----*/

/* Logs what the journal holds; the watermark starts at its last event. */
static void journal_opened(cr_agent_client *c, const char *state)
{
    cr_agent_journal *j = c->journal;
    if (cr_agent_journal_torn(j)) {
        cr_log(CR_LOG_WARN, "agent: %s: a torn last line was dropped", state);
    }
    if (cr_agent_journal_problem(j)) {
        cr_log(CR_LOG_ERROR, "agent: NOT SOUND: %s (check with `chessrelay journal verify %s`)",
               cr_agent_journal_problem(j), state);
    }
    cr_log(CR_LOG_INFO, "agent %s: state %s: events up to %" PRId64 ", acknowledged up to %" PRId64,
           c->id, state, cr_agent_journal_last(j), cr_agent_journal_acked(j));
    c->wm = cr_agent_journal_epoch(j);
    const char *last_line = cr_agent_journal_line(j, cr_agent_journal_last(j), NULL);
    if (last_line) {
        c->wm = strtoll(last_line, NULL, 10);
    }
}

cr_agent_client *cr_agent_client_new(const cr_agent_client_config *cfg, cr_error *err)
{
    cr_agent_client *c = calloc(1, sizeof *c);
    if (!c || !(c->token = strdup(cfg->token))) {
        free(c);
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    if (snprintf(c->url, sizeof c->url, "%s", cfg->url) >= (int)sizeof c->url ||
        cr_agent_url_parse(cfg->url, &c->addr)) {
        cr_error_set(err, CR_EINVAL, 0, 0,
                     "expected ws://HOST:PORT/agent or wss://..., got '%s'", cfg->url);
        free(c->token);
        free(c);
        return NULL;
    }
    snprintf(c->id, sizeof c->id, "%s", cfg->id);
    c->insecure = cfg->insecure;
    c->exit_at_end = cfg->exit_at_end;
    c->clock = cfg->clock;
    c->clock_data = cfg->clock_data;
    c->backoff_us = CR_AGENT_BACKOFF_MIN_US;
    pthread_mutex_init(&c->lock, NULL);
    c->journal = cr_agent_journal_open(cfg->state_dir, cr_now_us() / 1000, err);
    if (!c->journal) {
        cr_agent_client_free(c);
        return NULL;
    }
    journal_opened(c, cfg->state_dir);
    return c;
}

int64_t cr_agent_client_epoch(cr_agent_client *c)
{
    pthread_mutex_lock(&c->lock);
    int64_t e = cr_agent_journal_epoch(c->journal);
    pthread_mutex_unlock(&c->lock);
    return e;
}

int64_t cr_agent_client_last(cr_agent_client *c)
{
    pthread_mutex_lock(&c->lock);
    int64_t n = cr_agent_journal_last(c->journal);
    pthread_mutex_unlock(&c->lock);
    return n;
}

/*----- main thread -----*/

int cr_agent_client_record(cr_agent_client *c, const char *line, size_t len)
{
    pthread_mutex_lock(&c->lock);
    int rc = cr_agent_journal_append(c->journal, line, len, NULL);
    pthread_mutex_unlock(&c->lock);
    if (rc == 0) {
        wake_link(c);
    }
    return rc;
}

void cr_agent_client_watermark(cr_agent_client *c, int64_t wm)
{
    pthread_mutex_lock(&c->lock);
    if (wm > c->wm) {
        c->wm = wm;
    }
    pthread_mutex_unlock(&c->lock);
}

int64_t cr_agent_client_get_watermark(cr_agent_client *c)
{
    pthread_mutex_lock(&c->lock);
    int64_t wm = c->wm;
    pthread_mutex_unlock(&c->lock);
    return wm;
}

void cr_agent_client_sources_done(cr_agent_client *c)
{
    pthread_mutex_lock(&c->lock);
    c->sources_done = true;
    pthread_mutex_unlock(&c->lock);
    wake_link(c);
}

bool cr_agent_client_all_done(cr_agent_client *c)
{
    pthread_mutex_lock(&c->lock);
    bool done = c->sources_done &&
                cr_agent_journal_acked(c->journal) == cr_agent_journal_last(c->journal);
    pthread_mutex_unlock(&c->lock);
    return done;
}

void cr_agent_client_stop(cr_agent_client *c)
{
    atomic_store(&c->stop, true);
    wake_link(c);
}

bool cr_agent_client_finished(cr_agent_client *c)
{
    return atomic_load(&c->finished);
}

int cr_agent_client_status(cr_agent_client *c)
{
    return atomic_load(&c->status);
}

/*----- the session -----*/

void cr_agent_client_connected(cr_agent_client *c)
{
    c->hello_sent = c->welcomed = c->bye_sent = false;
}

void cr_agent_client_tick_due(cr_agent_client *c)
{
    c->tick_due = true;
}

bool cr_agent_client_welcomed(cr_agent_client *c)
{
    return c->welcomed;
}

int64_t cr_agent_client_backoff(cr_agent_client *c)
{
    int64_t us = c->backoff_us;
    c->backoff_us = us * 2 > CR_AGENT_BACKOFF_MAX_US ? CR_AGENT_BACKOFF_MAX_US : us * 2;
    return us;
}

/* The next batch of unacknowledged events, synced to disk first so that
 * the relay never holds an event the agent could lose; c->next moves past
 * it. NULL if none. */
static char *next_batch(cr_agent_client *c)
{
    const char *lines[CR_AGENT_BATCH_MAX];
    size_t lens[CR_AGENT_BATCH_MAX];
    size_t bytes = 0, k = 0;
    char *msg = NULL;
    pthread_mutex_lock(&c->lock);
    cr_agent_journal *j = c->journal;
    int64_t last = cr_agent_journal_last(j);
    if (c->next <= cr_agent_journal_acked(j)) {
        c->next = cr_agent_journal_acked(j) + 1;
    }
    if (c->next <= last && cr_agent_journal_sync(j) == 0) {
        while (k < CR_AGENT_BATCH_MAX && c->next + (int64_t)k <= last && bytes < 64 * 1024) {
            lines[k] = cr_agent_journal_line(j, c->next + (int64_t)k, &lens[k]);
            if (!lines[k]) {
                break;
            }
            bytes += lens[k] + 4;
            k++;
        }
        if (k) {
            /* The watermark; if more events follow, no later than the last
             * one sent (the journal is in time order). */
            int64_t clock = c->wm;
            int64_t t_last = strtoll(lines[k - 1], NULL, 10);
            if (c->next + (int64_t)k <= last && t_last < clock) {
                clock = t_last;
            }
            msg = cr_amsg_events(c->next, clock, lines, lens, k);
        }
    }
    pthread_mutex_unlock(&c->lock);
    if (msg) {
        c->next += (int64_t)k;
    }
    return msg;
}

cr_agent_step cr_agent_client_writeable(cr_agent_client *c, char **msg)
{
    *msg = NULL;
    if (!c->hello_sent) {
        int64_t last = cr_agent_client_last(c);
        c->hello_sent = true;
        *msg = cr_amsg_hello(c->id, c->token, c->clock(c->clock_data), last);
        return CR_AGENT_SEND;
    }
    if (!c->welcomed) {
        return CR_AGENT_IDLE;
    }
    bool stop = atomic_load(&c->stop);
    bool leaving = stop || (c->exit_at_end && cr_agent_client_all_done(c));
    if (c->bye_sent) {
        return CR_AGENT_CLOSE; /* the bye went out */
    }
    if (!stop && (*msg = next_batch(c)) != NULL) {
        return CR_AGENT_SEND_MORE;
    }
    if (leaving) {
        c->bye_sent = true;
        *msg = cr_amsg_bye(cr_agent_client_last(c));
        return CR_AGENT_SEND_MORE;
    }
    if (c->tick_due) {
        c->tick_due = false;
        pthread_mutex_lock(&c->lock);
        int64_t last = cr_agent_journal_last(c->journal), wm = c->wm;
        pthread_mutex_unlock(&c->lock);
        *msg = cr_amsg_tick(wm, last);
        return CR_AGENT_SEND;
    }
    return CR_AGENT_IDLE;
}

/* A welcome: what the relay has; a relay that has more renumbers the
 * journal. Under the lock. */
static int welcome(cr_agent_client *c, int64_t n)
{
    int64_t last = cr_agent_journal_last(c->journal);
    int rc;
    if (n > last) {
        cr_log(CR_LOG_WARN,
               "agent: the relay knows this agent up to event %" PRId64 " but this journal "
               "only up to %" PRId64 " (state lost?): renumbering",
               n, last);
        rc = cr_agent_journal_rebase(c->journal, n);
    } else if (n < cr_agent_journal_acked(c->journal)) {
        cr_log(CR_LOG_WARN,
               "agent: the relay holds this agent only up to event %" PRId64 " but acknowledged "
               "up to %" PRId64 " (its state lost or cut?): renumbering to follow the relay",
               n, cr_agent_journal_acked(c->journal));
        rc = cr_agent_journal_rebase(c->journal, n);
    } else {
        rc = cr_agent_journal_ack(c->journal, n);
    }
    c->next = cr_agent_journal_acked(c->journal) + 1;
    c->welcomed = true;
    c->backoff_us = CR_AGENT_BACKOFF_MIN_US;
    c->failures = 0;
    cr_log(CR_LOG_INFO, "agent %s: linked; relay has up to %" PRId64 ", sending from %" PRId64,
           c->id, n, c->next);
    return rc;
}

int cr_agent_client_receive(cr_agent_client *c, const char *text, size_t len)
{
    cr_amsg m;
    cr_error err;
    if (cr_amsg_parse(text, len, &m, &err)) {
        cr_log(CR_LOG_WARN, "agent: relay sent: %s", err.text);
        cr_amsg_clear(&m);
        return 0;
    }
    int rc = 0;
    pthread_mutex_lock(&c->lock);
    int64_t last = cr_agent_journal_last(c->journal);
    if (m.kind == CR_AMSG_WELCOME) {
        rc = welcome(c, m.n);
    } else if (m.kind == CR_AMSG_ACK) {
        if (m.n > last) {
            cr_log(CR_LOG_WARN, "agent: ack %" PRId64 " beyond the last event %" PRId64, m.n, last);
        } else {
            rc = cr_agent_journal_ack(c->journal, m.n);
        }
    } else if (m.kind == CR_AMSG_ERROR) {
        cr_log(CR_LOG_ERROR, "agent: relay says: %s", m.error);
        if (strncmp(m.error, "token:", 6) == 0) {
            atomic_store(&c->status, 1);
            atomic_store(&c->stop, true);
            end_loop(c);
        }
    }
    pthread_mutex_unlock(&c->lock);
    cr_amsg_clear(&m);
    if (rc) {
        cr_log(CR_LOG_ERROR, "agent: journal: %s", cr_strerror(rc));
    }
    return rc;
}

/*----- the link thread -----*/

static void schedule_connect(cr_agent_client *c);

static int on_writeable(cr_agent_client *c, struct lws *wsi)
{
    char *msg = NULL;
    switch (cr_agent_client_writeable(c, &msg)) {
    case CR_AGENT_CLOSE:
        return -1;
    case CR_AGENT_SEND:
        return cr_ws_send_text(wsi, msg);
    case CR_AGENT_SEND_MORE:
        if (cr_ws_send_text(wsi, msg)) {
            return -1;
        }
        lws_callback_on_writable(wsi);
        return 0;
    default:
        return 0;
    }
}

static int client_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                           size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    cr_agent_client *c = ctx ? lws_context_user(ctx) : NULL;
    if (!c) {
        return 0;
    }
    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        /* Once per outage, then every 20 attempts (~100 s at the backoff's top). */
        if (c->failures++ % 20 == 0) {
            cr_log(CR_LOG_WARN, "agent: cannot reach %s: %s (retrying; events are kept)", c->url,
                   in ? (const char *)in : "connection failed");
        }
        c->wsi = NULL;
        schedule_connect(c);
        return 0;
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        cr_agent_client_connected(c);
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        cr_agent_client_receive(c, in, len);
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return on_writeable(c, wsi);
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (c->wsi == wsi) {
            if (c->welcomed) {
                cr_log(CR_LOG_INFO, "agent %s: link closed", c->id);
            }
            c->wsi = NULL;
            c->welcomed = false;
            schedule_connect(c);
        }
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (c->wsi && (c->welcomed || !c->hello_sent)) {
            lws_callback_on_writable(c->wsi);
        }
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static void do_connect(lws_sorted_usec_list_t *sul)
{
    cr_agent_client *c = lws_container_of(sul, cr_agent_client, sul_connect);
    if (atomic_load(&c->stop) || c->wsi) {
        return;
    }
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = c->ctx;
    ci.address = c->addr.host;
    ci.port = c->addr.port;
    ci.path = c->addr.path;
    ci.host = c->addr.host;
    ci.origin = c->addr.host;
    ci.protocol = CR_AGENT_PROTOCOL;
    ci.pwsi = &c->wsi;
    /* Pings when idle, so that a dead link is noticed and reconnected. */
    static const lws_retry_bo_t idle = {.secs_since_valid_ping = 3, .secs_since_valid_hangup = 10};
    ci.retry_and_idle_policy = &idle;
    if (c->addr.tls) {
        ci.ssl_connection = LCCSCF_USE_SSL;
        if (c->insecure) {
            ci.ssl_connection |= LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK;
        }
    }
    if (!lws_client_connect_via_info(&ci)) {
        c->wsi = NULL;
        schedule_connect(c);
    }
}

static void schedule_connect(cr_agent_client *c)
{
    if (atomic_load(&c->stop)) {
        return;
    }
    lws_sul_schedule(c->ctx, 0, &c->sul_connect, do_connect, cr_agent_client_backoff(c));
}

static void on_tick(lws_sorted_usec_list_t *sul)
{
    cr_agent_client *c = lws_container_of(sul, cr_agent_client, sul_tick);
    if (c->wsi && c->welcomed) {
        cr_agent_client_tick_due(c);
        lws_callback_on_writable(c->wsi);
    }
    if (c->exit_at_end && !c->wsi && cr_agent_client_all_done(c)) {
        atomic_store(&c->stop, true);
    }
    lws_sul_schedule(c->ctx, 0, &c->sul_tick, on_tick, atomic_load(&c->stop) ? 50000 : TICK_US);
}

static void *service_thread(void *arg)
{
    cr_agent_client *c = arg;
    int64_t deadline = 0;
    for (;;) {
        if (atomic_load(&c->stop)) {
            int64_t now = cr_mono_us();
            if (!deadline) {
                deadline = now + 2 * 1000 * 1000; /* time for a bye */
                lws_sul_schedule(c->ctx, 0, &c->sul_tick, on_tick, 50000);
                if (c->wsi) {
                    lws_callback_on_writable(c->wsi);
                }
            }
            if (!c->wsi || now > deadline) {
                break;
            }
        }
        if (lws_service(c->ctx, 0) < 0) {
            break;
        }
        if (c->exit_at_end && c->bye_sent && !c->wsi) {
            atomic_store(&c->stop, true);
        }
    }
    atomic_store(&c->finished, true);
    end_loop(c);
    return NULL;
}

static void lws_log_line(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
        n--;
    }
    cr_log(level == LLL_ERR ? CR_LOG_ERROR : CR_LOG_WARN, "lws: %.*s", (int)n, line);
}

int cr_agent_client_start(cr_agent_client *c, struct event_base *base)
{
    c->base = base;
    lws_set_log_level(LLL_ERR, lws_log_line);
    static const struct lws_protocols protocols[] = {
        {"chessrelay-agent-client", client_callback, 0, CR_AGENT_MESSAGE_MAX, 0, NULL, 0},
        {NULL, NULL, 0, 0, 0, NULL, 0}};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = c;
    info.options = c->addr.tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0;
    c->ctx = lws_create_context(&info);
    if (!c->ctx) {
        cr_log(CR_LOG_ERROR, "agent: cannot create the WebSocket client");
        return -1;
    }
    lws_sul_schedule(c->ctx, 0, &c->sul_connect, do_connect, 1);
    lws_sul_schedule(c->ctx, 0, &c->sul_tick, on_tick, TICK_US);
    if (pthread_create(&c->thread, NULL, service_thread, c)) {
        cr_log(CR_LOG_ERROR, "agent: cannot start the link thread");
        return -1;
    }
    c->thread_started = true;
    cr_log(CR_LOG_INFO, "agent %s: forwarding to %s", c->id, c->url);
    return 0;
}

void cr_agent_client_end(cr_agent_client *c)
{
    atomic_store(&c->stop, true);
    if (c->thread_started) {
        lws_cancel_service(c->ctx);
        pthread_join(c->thread, NULL);
        c->thread_started = false;
    }
    if (c->ctx) {
        lws_context_destroy(c->ctx);
        c->ctx = NULL;
    }
}

void cr_agent_client_free(cr_agent_client *c)
{
    if (!c) {
        return;
    }
    cr_agent_client_end(c);
    cr_agent_journal_close(c->journal);
    pthread_mutex_destroy(&c->lock);
    free(c->token);
    free(c);
}
