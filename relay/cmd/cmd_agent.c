/* chessrelay agent: runs next to the boards and forwards their feed events
 * to a central relay over one WebSocket (docs/protocol.md, "Agents").
 *
 *   chessrelay agent --to ws://HOST:PORT/agent --token T [--id ID]
 *                    [--usb | --serial DEV... | --feed FILE... [--speed X]]
 *                    [--kind auto|dgt|millennium|certabo] [--calibration FILE]
 *                    [--state DIR] [--insecure] [--exit-at-end] [--quiet]
 *
 * Serial ports are probed for the kind of board on them unless --kind names
 * it, as with `record` and `serve`; a Certabo board's table is read from
 * STATE/certabo/ID.cal (`chessrelay calibrate --state STATE`), else from
 * --calibration FILE (docs/boards.md).
 *
 * Two threads: the main one runs a libevent loop with the sources (boards
 * through the drivers, or feed files played on the agent's feed clock) and
 * appends every event to the agent's journal (agent_journal.h); the lws
 * thread keeps the link up (reconnecting with a backoff), sends what the
 * relay has not acknowledged, in batches, and trims the journal as acks
 * come. The journal is shared under a mutex. */
#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <libwebsockets.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_journal.h"
#include "agent/agent_link.h"
#include "agent/agent_msg.h"
#include "cmd/commands.h"
#include "cr/feed.h"
#include "certabo.h"
#include "board_set.h"
#include "core/feed_source.h"
#include "util/feed_line.h"
#include "util/log.h"
#include "util/opts.h"
#include "core/sigwatch.h"
#include "net/ws_text.h"

#define AGENT_MAX_LINKS 64
#define AGENT_MAX_FEEDS 64

enum { TICK_US = 250 * 1000, BACKOFF_MIN_US = 100 * 1000, BACKOFF_MAX_US = 5 * 1000 * 1000 };

typedef struct agent {
    /* configuration */
    char id[CR_AGENT_ID_MAX + 1];
    const char *token;
    char url[1024];
    const char *prot, *host, *path_part;
    char path[1024];
    int port;
    bool tls, insecure, exit_at_end;
    cr_feed_clock clock; /* the journal's epoch, advancing at --speed */
    /* shared, under lock */
    pthread_mutex_t lock;
    cr_agent_journal *journal;
    bool sources_done;
    int64_t wm; /* watermark: every event up to this agent time is in the journal */
    /* main thread */
    struct event_base *base;
    cr_feed_source *feeds; /* NULL without --feed */
    int64_t skip; /* feed events already journaled by an earlier run */
    cr_dgt_boardset *boards;
    cr_certabo_params_dir cal; /* Certabo tables: the state folder, --calibration */
    char state_dir[512];
    char *line;
    size_t line_cap;
    /* lws thread */
    struct event *check; /* watermark, and the end of the link thread */
    struct lws_context *ctx;
    struct lws *wsi;
    pthread_t thread;
    bool thread_started;
    lws_sorted_usec_list_t sul_connect, sul_tick;
    int64_t backoff_us;
    bool hello_sent, welcomed, tick_due, bye_sent;
    int failures; /* connection attempts failed since the last welcome */
    int64_t next; /* next event number to send */
    atomic_bool stop;   /* main -> lws thread: leave (after a bye if connected) */
    atomic_bool finished; /* lws thread done */
    atomic_int status;
} agent;

static int64_t wall_ms(void)
{
    return cr_now_us() / 1000;
}

static int64_t agent_clock(agent *a)
{
    return cr_feed_clock_now(&a->clock);
}

static int64_t link_clock(void *data)
{
    return agent_clock(data);
}

static void fatal(agent *a, int status)
{
    atomic_store(&a->status, status);
    event_base_loopexit(a->base, NULL);
}

/*----- main thread: events into the journal -----*/

static void record(agent *a, const cr_feed_event *ev)
{
    int len = cr_feed_line(ev, &a->line, &a->line_cap);
    if (len == CR_ENOMEM) {
        cr_log(CR_LOG_ERROR, "agent: out of memory");
        fatal(a, 1);
        return;
    }
    if (len < 0) {
        cr_log(CR_LOG_WARN, "agent: board %s: cannot format an event: %s", ev->board,
               cr_strerror(len));
        return;
    }
    pthread_mutex_lock(&a->lock);
    int rc = cr_agent_journal_append(a->journal, a->line, (size_t)len, NULL);
    pthread_mutex_unlock(&a->lock);
    if (rc) {
        cr_log(CR_LOG_ERROR, "agent: journal: cannot append: %s", cr_strerror(rc));
        fatal(a, 1);
        return;
    }
    if (a->ctx) {
        lws_cancel_service(a->ctx);
    }
}

static void on_board_event(void *data, const cr_feed_event *ev)
{
    record(data, ev);
}

static void on_link_state(void *data, cr_dgt_link *link, cr_dgt_link_state st)
{
    cr_dgt_health h = cr_dgt_link_health(link);
    const char *err = cr_dgt_link_error(link);
    bool active = st == CR_LINK_ACTIVE && h.identified;
    cr_log(CR_LOG_INFO, "agent: %s: board %s %s%s%s%s%s", cr_dgt_link_name(link), h.id,
           cr_dgt_link_state_name(st), st == CR_LINK_LOST && *err ? ": " : "",
           st == CR_LINK_LOST ? err : "", active ? " " : "",
           active ? cr_board_kind_name(h.kind) : "");
}

/*----- main thread: feed files on the agent's feed clock -----*/

static void update_watermark(agent *a);

static void feeds_done(void *data)
{
    agent *a = data;
    update_watermark(a);
    cr_log(CR_LOG_INFO, "agent: feeds played to the end");
    pthread_mutex_lock(&a->lock);
    a->sources_done = true;
    pthread_mutex_unlock(&a->lock);
    if (a->ctx) {
        lws_cancel_service(a->ctx);
    }
}

/* Main thread: every event stamped up to the returned time has been
 * journaled (events are stamped and recorded in this thread, in order). */
static void update_watermark(agent *a)
{
    int64_t wm = agent_clock(a);
    if (a->feeds) {
        if (a->skip > 0) {
            return; /* the earlier run's events are not skipped yet */
        }
        int64_t next = cr_feed_source_next_t(a->feeds);
        if (next != INT64_MAX && next - 1 < wm) {
            wm = next - 1; /* that event is due but not recorded yet */
        }
    }
    pthread_mutex_lock(&a->lock);
    if (wm > a->wm) {
        a->wm = wm;
    }
    pthread_mutex_unlock(&a->lock);
}

static bool feed_skip(void *data, const cr_feed_event *ev)
{
    agent *a = data;
    (void)ev;
    if (a->skip > 0) {
        a->skip--; /* journaled by an earlier run of this agent */
        return true;
    }
    return false;
}

/*----- the lws thread: the link -----*/

static void schedule_connect(agent *a);

/* The next batch of unacknowledged events, synced to disk first so that
 * the relay never holds an event the agent could lose. NULL if none. */
static char *next_batch(agent *a, size_t *count)
{
    const char *lines[CR_AGENT_BATCH_MAX];
    size_t lens[CR_AGENT_BATCH_MAX];
    size_t bytes = 0, k = 0;
    char *msg = NULL;
    pthread_mutex_lock(&a->lock);
    int64_t last = cr_agent_journal_last(a->journal);
    if (a->next <= cr_agent_journal_acked(a->journal)) {
        a->next = cr_agent_journal_acked(a->journal) + 1;
    }
    if (a->next <= last && cr_agent_journal_sync(a->journal) == 0) {
        while (k < CR_AGENT_BATCH_MAX && a->next + (int64_t)k <= last && bytes < 64 * 1024) {
            lines[k] = cr_agent_journal_line(a->journal, a->next + (int64_t)k, &lens[k]);
            if (!lines[k]) {
                break;
            }
            bytes += lens[k] + 4;
            k++;
        }
        if (k) {
            /* The watermark; if more events follow, no later than the last
             * one sent (the journal is in time order). */
            int64_t clock = a->wm;
            int64_t t_last = strtoll(lines[k - 1], NULL, 10);
            if (a->next + (int64_t)k <= last && t_last < clock) {
                clock = t_last;
            }
            msg = cr_amsg_events(a->next, clock, lines, lens, k);
        }
    }
    pthread_mutex_unlock(&a->lock);
    *count = msg ? k : 0;
    return msg;
}

static bool all_done(agent *a)
{
    pthread_mutex_lock(&a->lock);
    bool done = a->sources_done &&
                cr_agent_journal_acked(a->journal) == cr_agent_journal_last(a->journal);
    pthread_mutex_unlock(&a->lock);
    return done;
}

static int client_writeable(agent *a, struct lws *wsi)
{
    if (!a->hello_sent) {
        pthread_mutex_lock(&a->lock);
        int64_t last = cr_agent_journal_last(a->journal);
        pthread_mutex_unlock(&a->lock);
        a->hello_sent = true;
        return cr_ws_send_text(wsi, cr_amsg_hello(a->id, a->token, agent_clock(a), last));
    }
    if (!a->welcomed) {
        return 0;
    }
    bool leaving = atomic_load(&a->stop) || (a->exit_at_end && all_done(a));
    if (a->bye_sent) {
        return -1; /* close after the bye went out */
    }
    size_t count = 0;
    char *batch = leaving && atomic_load(&a->stop) ? NULL : next_batch(a, &count);
    if (batch) {
        a->next += (int64_t)count;
        if (cr_ws_send_text(wsi, batch)) {
            return -1;
        }
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (leaving) {
        pthread_mutex_lock(&a->lock);
        int64_t last = cr_agent_journal_last(a->journal);
        pthread_mutex_unlock(&a->lock);
        a->bye_sent = true;
        if (cr_ws_send_text(wsi, cr_amsg_bye(last))) {
            return -1;
        }
        lws_callback_on_writable(wsi);
        return 0;
    }
    if (a->tick_due) {
        a->tick_due = false;
        pthread_mutex_lock(&a->lock);
        int64_t last = cr_agent_journal_last(a->journal), wm = a->wm;
        pthread_mutex_unlock(&a->lock);
        return cr_ws_send_text(wsi, cr_amsg_tick(wm, last));
    }
    return 0;
}

static int client_receive(agent *a, struct lws *wsi, const char *in, size_t len)
{
    cr_amsg m;
    cr_error err;
    if (cr_amsg_parse(in, len, &m, &err)) {
        cr_log(CR_LOG_WARN, "agent: relay sent: %s", err.text);
        cr_amsg_clear(&m);
        return 0;
    }
    int rc = 0;
    pthread_mutex_lock(&a->lock);
    int64_t last = cr_agent_journal_last(a->journal);
    if (m.kind == CR_AMSG_WELCOME) {
        if (m.n > last) {
            cr_log(CR_LOG_WARN,
                   "agent: the relay knows this agent up to event %" PRId64 " but this journal "
                   "only up to %" PRId64 " (state lost?): renumbering",
                   m.n, last);
            rc = cr_agent_journal_rebase(a->journal, m.n);
        } else {
            rc = cr_agent_journal_ack(a->journal, m.n);
        }
        a->next = cr_agent_journal_acked(a->journal) + 1;
        a->welcomed = true;
        a->backoff_us = BACKOFF_MIN_US;
        a->failures = 0;
        cr_log(CR_LOG_INFO, "agent %s: linked; relay has up to %" PRId64 ", sending from %" PRId64,
               a->id, m.n, a->next);
    } else if (m.kind == CR_AMSG_ACK) {
        if (m.n > last) {
            cr_log(CR_LOG_WARN, "agent: ack %" PRId64 " beyond the last event %" PRId64, m.n, last);
        } else {
            rc = cr_agent_journal_ack(a->journal, m.n);
        }
    } else if (m.kind == CR_AMSG_ERROR) {
        cr_log(CR_LOG_ERROR, "agent: relay says: %s", m.error);
        if (strncmp(m.error, "token:", 6) == 0) {
            atomic_store(&a->status, 1);
            atomic_store(&a->stop, true);
            event_base_loopexit(a->base, NULL);
        }
    }
    pthread_mutex_unlock(&a->lock);
    cr_amsg_clear(&m);
    if (rc) {
        cr_log(CR_LOG_ERROR, "agent: journal: %s", cr_strerror(rc));
    }
    lws_callback_on_writable(wsi);
    return 0;
}

static int client_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                           size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    agent *a = ctx ? lws_context_user(ctx) : NULL;
    if (!a) {
        return 0;
    }
    switch (reason) {
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        /* Once per outage, then every 20 attempts (~100 s at the backoff's top). */
        if (a->failures++ % 20 == 0) {
            cr_log(CR_LOG_WARN, "agent: cannot reach %s: %s (retrying; events are kept)", a->url,
                   in ? (const char *)in : "connection failed");
        }
        a->wsi = NULL;
        schedule_connect(a);
        return 0;
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        a->hello_sent = a->welcomed = a->bye_sent = false;
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return client_receive(a, wsi, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return client_writeable(a, wsi);
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (a->wsi == wsi) {
            if (a->welcomed) {
                cr_log(CR_LOG_INFO, "agent %s: link closed", a->id);
            }
            a->wsi = NULL;
            a->welcomed = false;
            schedule_connect(a);
        }
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (a->wsi && (a->welcomed || !a->hello_sent)) {
            lws_callback_on_writable(a->wsi);
        }
        return 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

static void do_connect(lws_sorted_usec_list_t *sul)
{
    agent *a = lws_container_of(sul, agent, sul_connect);
    if (atomic_load(&a->stop) || a->wsi) {
        return;
    }
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof ci);
    ci.context = a->ctx;
    ci.address = a->host;
    ci.port = a->port;
    ci.path = a->path;
    ci.host = a->host;
    ci.origin = a->host;
    ci.protocol = CR_AGENT_PROTOCOL;
    ci.pwsi = &a->wsi;
    /* Pings when idle, so that a dead link is noticed and reconnected. */
    static const lws_retry_bo_t idle = {.secs_since_valid_ping = 3, .secs_since_valid_hangup = 10};
    ci.retry_and_idle_policy = &idle;
    if (a->tls) {
        ci.ssl_connection = LCCSCF_USE_SSL;
        if (a->insecure) {
            ci.ssl_connection |= LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK;
        }
    }
    if (!lws_client_connect_via_info(&ci)) {
        a->wsi = NULL;
        schedule_connect(a);
    }
}

static void schedule_connect(agent *a)
{
    if (atomic_load(&a->stop)) {
        return;
    }
    int64_t us = a->backoff_us;
    a->backoff_us = a->backoff_us * 2 > BACKOFF_MAX_US ? BACKOFF_MAX_US : a->backoff_us * 2;
    lws_sul_schedule(a->ctx, 0, &a->sul_connect, do_connect, us);
}

static void on_tick(lws_sorted_usec_list_t *sul)
{
    agent *a = lws_container_of(sul, agent, sul_tick);
    if (a->wsi && a->welcomed) {
        a->tick_due = true;
        lws_callback_on_writable(a->wsi);
    }
    if (a->exit_at_end && !a->wsi && all_done(a)) {
        atomic_store(&a->stop, true);
    }
    lws_sul_schedule(a->ctx, 0, &a->sul_tick, on_tick, atomic_load(&a->stop) ? 50000 : TICK_US);
}

static void *service_thread(void *arg)
{
    agent *a = arg;
    int64_t deadline = 0;
    for (;;) {
        if (atomic_load(&a->stop)) {
            int64_t now = cr_mono_us();
            if (!deadline) {
                deadline = now + 2 * 1000 * 1000; /* time for a bye */
                lws_sul_schedule(a->ctx, 0, &a->sul_tick, on_tick, 50000);
                if (a->wsi) {
                    lws_callback_on_writable(a->wsi);
                }
            }
            if (!a->wsi || now > deadline) {
                break;
            }
        }
        if (lws_service(a->ctx, 0) < 0) {
            break;
        }
        if (a->exit_at_end && a->bye_sent && !a->wsi) {
            atomic_store(&a->stop, true);
        }
    }
    atomic_store(&a->finished, true);
    event_base_loopexit(a->base, NULL);
    return NULL;
}

/*----- the command -----*/

/* The signal watcher: the link thread says bye and ends. */
static void on_signal(void *data)
{
    agent *a = data;
    atomic_store(&a->stop, true);
    if (a->ctx) {
        lws_cancel_service(a->ctx);
    }
}

static void on_check(evutil_socket_t fd, short what, void *arg)
{
    agent *a = arg;
    update_watermark(a);
    if (atomic_load(&a->finished)) {
        event_base_loopexit(a->base, NULL);
    }
}

static int usage(void)
{
    fprintf(stderr,
            "usage: chessrelay agent --to ws://HOST:PORT/agent --token T [--id ID]\n"
            "       [--usb | --serial DEV... | --feed FILE... [--speed X]] [--state DIR]\n"
            "       [--kind auto|dgt|millennium|certabo] [--calibration FILE]\n"
            "       [--insecure] [--exit-at-end] [--quiet]\n"
            "  --token may also come from $CHESSRELAY_AGENT_TOKEN\n");
    return 2;
}

static void default_id(char *out, size_t size)
{
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) || !host[0]) {
        snprintf(host, sizeof host, "agent");
    }
    host[sizeof host - 1] = '\0';
    size_t n = 0;
    for (const char *c = host; *c && n + 1 < size && n < CR_AGENT_ID_MAX; c++) {
        bool ok = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
                  *c == '.' || *c == '_' || *c == '-';
        out[n++] = ok ? *c : '-';
    }
    out[n] = '\0';
}

static int parse_url(agent *a, const char *url)
{
    if (snprintf(a->url, sizeof a->url, "%s", url) >= (int)sizeof a->url) {
        return -1;
    }
    static char work[1024];
    snprintf(work, sizeof work, "%s", url);
    if (lws_parse_uri(work, &a->prot, &a->host, &a->port, &a->path_part)) {
        return -1;
    }
    if (strcmp(a->prot, "ws") == 0) {
        a->tls = false;
    } else if (strcmp(a->prot, "wss") == 0) {
        a->tls = true;
    } else {
        return -1;
    }
    if (!strstr(url + strlen(a->prot) + 3, ":")) {
        a->port = a->tls ? 443 : 80;
    }
    snprintf(a->path, sizeof a->path, "/%s", a->path_part);
    return a->host[0] ? 0 : -1;
}

static void lws_log_line(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
        n--;
    }
    cr_log(level == LLL_ERR ? CR_LOG_ERROR : CR_LOG_WARN, "lws: %.*s", (int)n, line);
}

typedef struct agent_args {
    const char *to, *state;
    const char *serials[AGENT_MAX_LINKS];
    int nserial;
    const char *feeds[AGENT_MAX_FEEDS];
    int nfeeds;
    bool usb;
    cr_board_kind kind; /* of the serial boards; AUTO: probe */
    const char *calibration;
} agent_args;

/* An option with a value; returns 0, or 2 after a usage error. */
static int parse_value(agent *a, agent_args *g, const char *o, const char *v)
{
    if (strcmp(o, "--to") == 0) {
        g->to = v;
    } else if (strcmp(o, "--token") == 0) {
        a->token = v;
    } else if (strcmp(o, "--id") == 0) {
        if (!cr_agent_id_valid(v)) {
            fprintf(stderr, "chessrelay agent: --id: expected 1..%d of A-Z a-z 0-9 . _ -\n",
                    CR_AGENT_ID_MAX);
            return 2;
        }
        snprintf(a->id, sizeof a->id, "%s", v);
    } else if (strcmp(o, "--state") == 0) {
        g->state = v;
    } else if (strcmp(o, "--serial") == 0 && g->nserial < AGENT_MAX_LINKS) {
        g->serials[g->nserial++] = v;
    } else if (strcmp(o, "--kind") == 0) {
        if (cr_board_kind_parse(v, &g->kind) != 0) {
            fprintf(stderr, "chessrelay agent: --kind: auto, dgt, millennium or certabo\n");
            return 2;
        }
    } else if (strcmp(o, "--calibration") == 0) {
        g->calibration = v; /* a Certabo table (chessrelay calibrate) */
    } else if (strcmp(o, "--feed") == 0 && g->nfeeds < AGENT_MAX_FEEDS) {
        g->feeds[g->nfeeds++] = v;
    } else if (strcmp(o, "--speed") == 0) {
        if (!cr_opt_number("agent", o, v, 1e-6, 1e6, "a number > 0", &a->clock.speed)) {
            return 2;
        }
    } else {
        fprintf(stderr, "chessrelay agent: unknown option '%s'\n", o);
        return usage();
    }
    return 0;
}

/* Returns 0, or 2 after a usage error. */
static int parse_args(agent *a, agent_args *g, int argc, char **argv)
{
    memset(g, 0, sizeof *g);
    a->token = getenv("CHESSRELAY_AGENT_TOKEN");
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--usb") == 0) {
            g->usb = true;
        } else if (strcmp(o, "--insecure") == 0) {
            a->insecure = true;
        } else if (strcmp(o, "--exit-at-end") == 0) {
            a->exit_at_end = true;
        } else if (strcmp(o, "--quiet") == 0) {
            cr_log_set_level(CR_LOG_WARN);
        } else if (!v) {
            fprintf(stderr, "chessrelay agent: unknown or incomplete option '%s'\n", o);
            return usage();
        } else if (parse_value(a, g, o, argv[++i])) {
            return 2;
        }
    }
    if (!g->to || !a->token || !a->token[0]) {
        fprintf(stderr, "chessrelay agent: --to and --token are required\n");
        return usage();
    }
    if (parse_url(a, g->to)) {
        fprintf(stderr,
                "chessrelay agent: --to: expected ws://HOST:PORT/agent or wss://..., got '%s'\n",
                g->to);
        return 2;
    }
    if ((g->nfeeds > 0) + (g->nserial > 0) + g->usb > 1) {
        fprintf(stderr, "chessrelay agent: give one of --usb, --serial or --feed\n");
        return 2;
    }
    if (g->nfeeds == 0 && g->nserial == 0) {
        g->usb = true;
    }
    if (g->nfeeds == 0 && a->clock.speed != 1.0) {
        fprintf(stderr, "chessrelay agent: --speed applies to --feed only\n");
        return 2;
    }
    if (!a->id[0]) {
        default_id(a->id, sizeof a->id);
    }
    return 0;
}

/* The agent's journal: where the feed clock starts and what is sent. */
static int open_journal(agent *a, const char *state)
{
    if (!state) {
        snprintf(a->state_dir, sizeof a->state_dir, "chessrelay-agent-%.64s", a->id);
    } else {
        snprintf(a->state_dir, sizeof a->state_dir, "%s", state);
    }
    state = a->state_dir;
    cr_error err;
    a->journal = cr_agent_journal_open(state, wall_ms(), &err);
    if (!a->journal) {
        fprintf(stderr, "chessrelay agent: %s\n", err.text);
        return 1;
    }
    if (cr_agent_journal_torn(a->journal)) {
        cr_log(CR_LOG_WARN, "agent: %s: a torn last line was dropped", state);
    }
    if (cr_agent_journal_problem(a->journal)) {
        cr_log(CR_LOG_ERROR, "agent: NOT SOUND: %s (check with `chessrelay journal verify %s`)",
               cr_agent_journal_problem(a->journal), state);
    }
    cr_log(CR_LOG_INFO, "agent %s: state %s: events up to %" PRId64 ", acknowledged up to %" PRId64,
           a->id, state, cr_agent_journal_last(a->journal), cr_agent_journal_acked(a->journal));
    a->wm = cr_agent_journal_epoch(a->journal);
    a->clock.epoch_ms = a->wm;
    const char *last_line =
        cr_agent_journal_line(a->journal, cr_agent_journal_last(a->journal), NULL);
    if (last_line) {
        a->wm = strtoll(last_line, NULL, 10);
    }
    return 0;
}

/* Feed files or boards. Returns 0 or an exit status (logged). */
static int start_sources(agent *a, const agent_args *g)
{
    cr_error err;
    if (g->nfeeds) {
        /* Feed files restart where the journal ends: its events are the
         * first `last` of the merged feeds. */
        a->skip = cr_agent_journal_last(a->journal);
        cr_feed_source_config fcfg = {.clock = &a->clock,
                                      .skip = feed_skip,
                                      .event = on_board_event,
                                      .done = feeds_done,
                                      .data = a,
                                      .batch = 2000,
                                      .log_prefix = "agent: "};
        a->feeds = cr_feed_source_new(a->base, g->feeds, g->nfeeds, &fcfg, &err);
        if (!a->feeds) {
            cr_log(CR_LOG_ERROR, "agent: %s", err.text);
            return err.code == CR_EIO ? 2 : 1;
        }
        cr_feed_source_start(a->feeds);
    }
    cr_dgt_boardset_config bcfg = {
        .max_links = AGENT_MAX_LINKS, .event = on_board_event, .state = on_link_state, .data = a};
    cr_dgt_link_config_default(&bcfg.link);
    bcfg.link.board.emit_raw = false;
    bcfg.link.clock = link_clock;
    bcfg.link.clock_data = a;
    bcfg.link.kind = g->kind;
    a->cal.dir = a->state_dir;
    a->cal.file = g->calibration;
    bcfg.link.codec_params = cr_certabo_params_from_dir;
    bcfg.link.codec_params_data = &a->cal;
    a->boards = cr_dgt_boardset_new(a->base, &bcfg);
    if (!a->boards) {
        cr_log(CR_LOG_ERROR, "agent: out of memory");
        return 1;
    }
    for (int i = 0; i < g->nserial; i++) {
        if (cr_dgt_boardset_add_serial(a->boards, g->serials[i], &err)) {
            cr_log(CR_LOG_ERROR, "agent: %s", err.text);
            return err.code == CR_EINVAL ? 2 : 1;
        }
    }
    if (g->usb) {
        int n = cr_dgt_boardset_add_usb(a->boards, true, &err);
        if (n < 0) {
            cr_log(CR_LOG_ERROR, "agent: %s", err.text);
            return 1;
        }
        if (n == 0) {
            cr_log(CR_LOG_INFO, "agent: no USB boards yet; waiting for one");
        }
    }
    return 0;
}

/* The WebSocket client and its thread. Returns 0 or -1 (logged). */
static int start_link(agent *a)
{
    lws_set_log_level(LLL_ERR, lws_log_line);
    static const struct lws_protocols protocols[] = {
        {"chessrelay-agent-client", client_callback, 0, CR_AGENT_MESSAGE_MAX, 0, NULL, 0},
        {NULL, NULL, 0, 0, 0, NULL, 0}};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = a;
    info.options = a->tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0;
    a->ctx = lws_create_context(&info);
    if (!a->ctx) {
        cr_log(CR_LOG_ERROR, "agent: cannot create the WebSocket client");
        return -1;
    }
    lws_sul_schedule(a->ctx, 0, &a->sul_connect, do_connect, 1);
    lws_sul_schedule(a->ctx, 0, &a->sul_tick, on_tick, TICK_US);
    if (pthread_create(&a->thread, NULL, service_thread, a)) {
        cr_log(CR_LOG_ERROR, "agent: cannot start the link thread");
        return -1;
    }
    a->thread_started = true;
    cr_log(CR_LOG_INFO, "agent %s: forwarding to %s", a->id, a->url);
    return 0;
}

/* Stops the link (after a bye, if it is up) and frees the sources. */
static int stop_agent(agent *a, int status)
{
    atomic_store(&a->stop, true);
    if (a->thread_started) {
        lws_cancel_service(a->ctx);
        pthread_join(a->thread, NULL);
    }
    if (a->ctx) {
        lws_context_destroy(a->ctx);
    }
    cr_dgt_boardset_free(a->boards);
    cr_feed_source_free(a->feeds);
    if (a->check) {
        event_free(a->check);
    }
    if (a->base) {
        event_base_free(a->base);
    }
    if (a->exit_at_end && status == 0) {
        pthread_mutex_lock(&a->lock);
        bool done = cr_agent_journal_acked(a->journal) == cr_agent_journal_last(a->journal) &&
                    a->sources_done;
        pthread_mutex_unlock(&a->lock);
        if (!done) {
            cr_log(CR_LOG_ERROR, "agent: stopped before the relay had everything");
            status = 1;
        }
    }
    return status;
}

int cr_cmd_agent(int argc, char **argv)
{
    static agent ag;
    agent *a = &ag;
    memset(a, 0, sizeof *a);
    a->clock.speed = 1.0;
    a->backoff_us = BACKOFF_MIN_US;
    agent_args g;
    int status = parse_args(a, &g, argc, argv);
    if (status || (status = open_journal(a, g.state)) != 0) {
        return status;
    }
    pthread_mutex_init(&a->lock, NULL);
    /* Before any thread is made (libusb's, the link's). */
    cr_sigwatch *sw = cr_sigwatch_new(false);
    signal(SIGPIPE, SIG_IGN);
    a->base = sw ? event_base_new() : NULL;
    status = 1;
    if (!a->base || cr_sigwatch_start(sw, a->base, on_signal, a, NULL)) {
        cr_log(CR_LOG_ERROR, "agent: cannot create the event loop");
    } else if ((status = start_sources(a, &g)) == 0 && (status = start_link(a)) == 0) {
        a->check = event_new(a->base, -1, EV_PERSIST, on_check, a);
        struct timeval fifty = {0, 50 * 1000};
        event_add(a->check, &fifty);
        event_base_dispatch(a->base);
        if (cr_sigwatch_signal(sw)) {
            cr_log(CR_LOG_INFO, "agent: signal %d: stopping", cr_sigwatch_signal(sw));
        }
        status = atomic_load(&a->status);
    } else if (status < 0) {
        status = 1;
    }
    status = stop_agent(a, status);
    cr_agent_journal_close(a->journal);
    cr_sigwatch_free(sw); /* the other threads are stopped */
    pthread_mutex_destroy(&a->lock);
    free(a->line);
    return status;
}
