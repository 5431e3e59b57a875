/* chessrelay relay: limits on the server's sockets (see limits.h). */
#include "net/limits.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "util/addr.h"
#include "util/log.h"

enum {
    OVER_MARGIN = 64,      /* connections over the cap still answered 503/1013 */
    FD_RESERVE = 128,      /* descriptors kept for files, the journal, the loop */
    OVER_KILL_US = 2000000,
    SUMMARY_US = 10000000,
    TOKEN_WINDOW_US = 60000000,
    TOKEN_SLOTS = 256
};
#define PAUSE_MIN_US 100000
#define PAUSE_MAX_US 1000000

typedef struct conn {
    struct lws *wsi; /* NULL: accepted, its wsi not created yet */
    unsigned char addr[16]; /* the client: the peer, or whom a trusted proxy names */
    unsigned char peer[16]; /* the TCP peer */
    int64_t since_us;
    bool over;
    bool active; /* an HTTP/2 connection that carried a request: not idle */
} conn;

typedef struct tries {
    unsigned char addr[16];
    int64_t window_us; /* start of the minute its counts are for; 0: free */
    int count;         /* wrong tokens */
    int checks;        /* tokens checked (right or wrong) since its first wrong one */
} tries;

struct cr_limits {
    cr_limits_config cfg;
    conn *conns;
    int nconns, capconns;
    int pending; /* the conn accepted last, waiting for its wsi; -1: none */
    tries tries[TOKEN_SLOTS];
    /* counters, and what the next summary says */
    uint64_t accepted, over_total, refused_total, idle_closed, token_refused, token_failed;
    uint64_t sum_over, sum_refused, sum_idle, sum_token;
    int64_t last_summary_us;
    /* accept() out of descriptors: the pause in force and when it ends */
    uint64_t accept_pauses, sum_accept;
    int64_t pause_us, pause_end_us, last_accept_log_us;
    int accept_errno;
};

cr_limits *cr_limits_new(const cr_limits_config *cfg)
{
    cr_limits *l = calloc(1, sizeof *l);
    if (!l) {
        return NULL;
    }
    l->cfg = *cfg;
    if (l->cfg.connections <= 0) {
        struct rlimit rl;
        long fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                       ? (long)rl.rlim_cur
                       : 65536;
        long cap = fds - FD_RESERVE - OVER_MARGIN;
        l->cfg.connections = (int)(cap < 32 ? 32 : cap > 100000 ? 100000 : cap);
    }
    if (l->cfg.per_address <= 0) {
        l->cfg.per_address = 256;
    }
    if (l->cfg.idle_s <= 0) {
        l->cfg.idle_s = 30;
    }
    if (l->cfg.token_failures <= 0) {
        l->cfg.token_failures = 10;
    }
    if (l->cfg.token_checks <= 0) {
        l->cfg.token_checks = 60;
    }
    l->capconns = l->cfg.connections + OVER_MARGIN + 1;
    l->conns = calloc((size_t)l->capconns, sizeof *l->conns);
    if (!l->conns) {
        free(l);
        return NULL;
    }
    l->pending = -1;
    return l;
}

void cr_limits_free(cr_limits *l)
{
    if (l) {
        free(l->conns);
        free(l);
    }
}

static void drop(cr_limits *l, int i)
{
    l->conns[i] = l->conns[--l->nconns];
    if (l->pending == l->nconns) {
        l->pending = i;
    }
}

cr_limit_verdict cr_limits_accept(cr_limits *l, const struct sockaddr *addr, socklen_t len)
{
    if (l->pending >= 0) { /* the last one never got its wsi */
        drop(l, l->pending);
        l->pending = -1;
    }
    unsigned char key[16];
    cr_addr_from_sockaddr(addr, len, key);
    int same = 0, in = 0;
    for (int i = 0; i < l->nconns; i++) {
        if (!l->conns[i].over) {
            in++;
            same += memcmp(l->conns[i].addr, key, 16) == 0;
        }
    }
    /* A trusted proxy's connections count against their clients' caps,
     * known from the request's X-Forwarded-For (cr_limits_request). */
    bool proxy = cr_addr_in_ranges(key, l->cfg.trusted, l->cfg.ntrusted);
    bool over = in >= l->cfg.connections || (!proxy && same >= l->cfg.per_address);
    /* At most OVER_MARGIN are being answered: the rest are closed at once,
     * and the table always has room for connections within the caps. */
    if (over && l->nconns - in >= OVER_MARGIN) {
        l->refused_total++;
        l->sum_refused++;
        return CR_LIMIT_REFUSE;
    }
    conn *c = &l->conns[l->nconns];
    memset(c, 0, sizeof *c);
    memcpy(c->addr, key, 16);
    memcpy(c->peer, key, 16);
    c->since_us = lws_now_usecs();
    c->over = over;
    l->pending = l->nconns++;
    if (over) {
        l->over_total++;
        l->sum_over++;
        return CR_LIMIT_OVER;
    }
    l->accepted++;
    return CR_LIMIT_OK;
}

void cr_limits_created(cr_limits *l, struct lws *wsi)
{
    if (l->pending >= 0) {
        l->conns[l->pending].wsi = wsi;
        l->pending = -1;
    }
}

static int find_exact(const cr_limits *l, const struct lws *wsi)
{
    for (int i = 0; i < l->nconns; i++) {
        if (l->conns[i].wsi == wsi) {
            return i;
        }
    }
    return -1;
}

/* The connection of wsi: on HTTP/2 a request is a stream whose wsi is not
 * the connection's (lws_get_network_wsi). */
static int find(const cr_limits *l, struct lws *wsi)
{
    struct lws *nwsi = wsi ? lws_get_network_wsi(wsi) : NULL;
    return find_exact(l, nwsi ? nwsi : wsi);
}

void cr_limits_request(cr_limits *l, struct lws *wsi, const char *xff)
{
    int i = find(l, wsi);
    if (i < 0) {
        return;
    }
    conn *c = &l->conns[i];
    if (lws_get_network_wsi(wsi) != wsi) {
        c->active = true;
    }
    unsigned char client[16];
    cr_addr_forwarded_client(c->peer, xff, l->cfg.trusted, l->cfg.ntrusted, client);
    if (memcmp(client, c->addr, 16) == 0) {
        return;
    }
    memcpy(c->addr, client, 16);
    if (c->over) {
        return;
    }
    int same = 0;
    for (int k = 0; k < l->nconns; k++) {
        same += k != i && !l->conns[k].over && memcmp(l->conns[k].addr, client, 16) == 0;
    }
    if (same >= l->cfg.per_address) {
        c->over = true;
        c->since_us = lws_now_usecs();
        l->over_total++;
        l->sum_over++;
    }
}

bool cr_limits_client_text(const cr_limits *l, struct lws *wsi, char *buf, size_t size)
{
    int i = find(l, wsi);
    if (i < 0) {
        return false;
    }
    cr_addr_text(l->conns[i].addr, buf, size);
    return true;
}

void cr_limits_destroyed(cr_limits *l, struct lws *wsi)
{
    int i = find_exact(l, wsi);
    if (i >= 0) {
        drop(l, i);
    }
}

bool cr_limits_over(const cr_limits *l, struct lws *wsi)
{
    int i = find(l, wsi);
    return i >= 0 && l->conns[i].over;
}

static void log_accept(cr_limits *l, int64_t now)
{
    cr_log(CR_LOG_WARN,
           "accept: %s: not accepting new connections for %d ms (up to 1 s while it lasts); "
           "%" PRIu64 " pause(s) since the last report, %d connections open",
           strerror(l->accept_errno), (int)(l->pause_us / 1000), l->sum_accept, l->nconns);
    l->sum_accept = 0;
    l->last_accept_log_us = now;
}

int64_t cr_limits_accept_failed(cr_limits *l, int err, int64_t now)
{
    l->accept_pauses++;
    l->sum_accept++;
    l->accept_errno = err;
    /* Failing again soon after the last pause: the descriptors are still
     * taken, wait longer. */
    bool again = l->pause_us && now - l->pause_end_us < 2 * PAUSE_MAX_US;
    l->pause_us = !again                           ? PAUSE_MIN_US
                  : l->pause_us * 2 > PAUSE_MAX_US ? PAUSE_MAX_US
                                                   : l->pause_us * 2;
    l->pause_end_us = now + l->pause_us;
    if (!l->last_accept_log_us || now - l->last_accept_log_us >= SUMMARY_US) {
        log_accept(l, now);
    }
    return l->pause_us;
}

void cr_limits_sweep(cr_limits *l, int64_t now, bool (*active)(void *data, struct lws *wsi),
                     void *data)
{
    int64_t idle_us = (int64_t)l->cfg.idle_s * 1000000;
    for (int i = 0; i < l->nconns; i++) {
        conn *c = &l->conns[i];
        if (!c->wsi) {
            continue;
        }
        bool kill = c->over ? now - c->since_us >= OVER_KILL_US
                            : now - c->since_us >= idle_us && !c->active && !active(data, c->wsi);
        if (kill) {
            if (!c->over) {
                l->idle_closed++;
                l->sum_idle++;
            }
            /* Closed at lws's next timeout check; destroyed then. */
            lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
            c->since_us = INT64_MAX / 2; /* once */
        }
    }
    if (now - l->last_summary_us >= SUMMARY_US) {
        if (l->sum_over || l->sum_refused || l->sum_idle || l->sum_token) {
            cr_log(CR_LOG_WARN,
                   "connections in the last %d s: %" PRIu64 " over the caps (%d, %d per address), "
                   "%" PRIu64 " closed at once, %" PRIu64 " idle closed, %" PRIu64
                   " wrong tokens (%d open)",
                   (int)((now - l->last_summary_us) / 1000000), l->sum_over, l->cfg.connections,
                   l->cfg.per_address, l->sum_refused, l->sum_idle, l->sum_token, l->nconns);
        }
        l->sum_over = l->sum_refused = l->sum_idle = l->sum_token = 0;
        l->last_summary_us = now;
    }
    if (l->sum_accept && now - l->last_accept_log_us >= SUMMARY_US) {
        log_accept(l, now);
    }
}

/* The tries of address key (a slot taken if create), or NULL. */
static tries *tries_at(cr_limits *l, const unsigned char key[16], int64_t now, bool create)
{
    tries *free_slot = NULL, *oldest = &l->tries[0];
    for (int k = 0; k < TOKEN_SLOTS; k++) {
        tries *t = &l->tries[k];
        if (t->window_us && memcmp(t->addr, key, 16) == 0) {
            if (now - t->window_us >= TOKEN_WINDOW_US) {
                t->window_us = now;
                t->count = t->checks = 0;
            }
            return t;
        }
        if (!t->window_us || now - t->window_us >= TOKEN_WINDOW_US) {
            free_slot = free_slot ? free_slot : t;
        } else if (t->window_us < oldest->window_us) {
            oldest = t;
        }
    }
    if (!create) {
        return NULL;
    }
    tries *t = free_slot ? free_slot : oldest;
    memcpy(t->addr, key, 16);
    t->window_us = now;
    t->count = t->checks = 0;
    return t;
}

/* The client address of wsi's connection, or NULL. */
static const unsigned char *addr_of(cr_limits *l, struct lws *wsi)
{
    int i = find(l, wsi);
    return i < 0 ? NULL : l->conns[i].addr;
}

bool cr_limits_token_check_at(cr_limits *l, const unsigned char key[16], int64_t now_us)
{
    /* Only an address with a wrong token this minute has a slot: the
     * others are never counted, so a busy venue is never refused. */
    tries *t = tries_at(l, key, now_us, false);
    if (t && t->count >= l->cfg.token_failures && t->checks >= l->cfg.token_checks) {
        l->token_refused++;
        l->sum_token++;
        return false;
    }
    if (t) {
        t->checks++;
    }
    return true;
}

bool cr_limits_token_wrong_at(cr_limits *l, const unsigned char key[16], int64_t now_us)
{
    tries *t = tries_at(l, key, now_us, true);
    l->sum_token++;
    if (!t->checks) {
        t->checks = 1; /* this check came before the slot */
    }
    if (t->count >= l->cfg.token_failures) {
        l->token_refused++; /* answered 429: counted as throttled, as one not checked */
        return true;
    }
    l->token_failed++;
    if (++t->count == l->cfg.token_failures) {
        char who[64];
        cr_addr_text(t->addr, who, sizeof who);
        cr_log(CR_LOG_WARN, "%s: %d wrong tokens within a minute: its wrong tokens are refused, "
               "and its checks limited to %d, for the rest of it", who, t->count,
               l->cfg.token_checks);
    }
    return false; /* this one is answered as wrong: the next ones are throttled */
}

bool cr_limits_token_check(cr_limits *l, struct lws *wsi)
{
    const unsigned char *key = addr_of(l, wsi);
    return !key || cr_limits_token_check_at(l, key, lws_now_usecs());
}

bool cr_limits_token_wrong(cr_limits *l, struct lws *wsi)
{
    const unsigned char *key = addr_of(l, wsi);
    return key && cr_limits_token_wrong_at(l, key, lws_now_usecs());
}

void cr_limits_metrics(const cr_limits *l, FILE *f)
{
    fprintf(f,
            "# HELP chessrelay_connections Open connections (HTTP, WebSocket, agents).\n"
            "# TYPE chessrelay_connections gauge\nchessrelay_connections %d\n"
            "# HELP chessrelay_connections_limit The global cap on connections.\n"
            "# TYPE chessrelay_connections_limit gauge\nchessrelay_connections_limit %d\n"
            "# HELP chessrelay_connections_refused_total Connections refused by a cap, by how.\n"
            "# TYPE chessrelay_connections_refused_total counter\n"
            "chessrelay_connections_refused_total{how=\"answered\"} %" PRIu64 "\n"
            "chessrelay_connections_refused_total{how=\"closed\"} %" PRIu64 "\n"
            "chessrelay_connections_refused_total{how=\"idle\"} %" PRIu64 "\n"
            "# HELP chessrelay_token_failures_total Wrong tokens, and tokens not checked (throttled).\n"
            "# TYPE chessrelay_token_failures_total counter\n"
            "chessrelay_token_failures_total{what=\"wrong\"} %" PRIu64 "\n"
            "chessrelay_token_failures_total{what=\"throttled\"} %" PRIu64 "\n",
            l->nconns, l->cfg.connections, l->over_total, l->refused_total, l->idle_closed,
            l->token_failed, l->token_refused);
    fprintf(f,
            "# HELP chessrelay_accept_pauses_total Times accept() ran out of descriptors and "
            "accepting paused.\n"
            "# TYPE chessrelay_accept_pauses_total counter\nchessrelay_accept_pauses_total %" PRIu64
            "\n",
            l->accept_pauses);
}
