/* chessrelay relay: pushing round PGNs to broadcast hosts. */
#include "out/push.h"

#include <ctype.h>
#include <stdarg.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/dns.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#ifdef CR_HAVE_EVENT_OPENSSL
#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#endif

#include "util/grow.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/prom.h"

enum {
    DEFAULT_TIMEOUT_MS = 15000,
    DEFAULT_BACKOFF_BASE_MS = 1000,
    DEFAULT_BACKOFF_MAX_MS = 60000,
    DEFAULT_RETRY_AFTER_MAX_S = 600,
    DEFAULT_MIN_INTERVAL_MS = 1000,
    ROUND_NAME_MAX = 32,
    EXCERPT_MAX = 160,
    ANSWER_MAX = 1 << 20 /* answers are short JSON; bigger ones are cut off */
};

/* What identifies a body: its hash and length. */
typedef struct body_id {
    bool set;
    uint64_t hash;
    size_t len;
} body_id;

typedef struct push_round push_round;

/* One request. Its connection is freed only outside libevent's callbacks
 * (the reaper), so a finished or abandoned flight waits in the graveyard;
 * rr is NULL once it no longer speaks for its round. */
typedef struct flight {
    cr_pusher *p;
    push_round *rr;
    struct evhttp_connection *conn;
    struct event *deadline;
    body_id id;
    int error; /* enum evhttp_request_error + 1, 0 none */
    bool dead; /* retired: in the graveyard */
    struct flight *next_dead;
} flight;

struct push_round {
    cr_pusher *p;
    char name[ROUND_NAME_MAX];
    char *url, *token;
    char *host;      /* for connecting and for SNI / certificate checks */
    char *host_hdr;  /* Host: value */
    char *target;    /* path?query */
    int port;
    bool https;
    char *body; /* newest offer */
    size_t len;
    body_id cur, pushed, refused; /* newest, last accepted, last permanently refused */
    flight *fl;                   /* in flight, or NULL */
    struct event *retry_ev;
    bool waiting; /* a retry waits for its back-off (retry_ev) */
    bool pacing;  /* the next push waits for min_interval (retry_ev) */
    int64_t started_at; /* cr_mono_us of the last request sent, 0 none */
    int attempts; /* transient failures in a row */
    int64_t error_at, answer_at; /* cr_mono_us of the last failure / answer, for the totals */
    int64_t cur_at;              /* cr_now_us of the offer of cur */
    cr_pusher_stats st;
};

struct cr_pusher {
    struct event_base *base;
    cr_pusher_config cfg;
    struct evdns_base *dns;
#ifdef CR_HAVE_EVENT_OPENSSL
    SSL_CTX *ssl_ctx;
#endif
    push_round **rounds;
    int nrounds;
    size_t caprounds;
    flight *dead;
    struct event *reap_ev;
    uint64_t rng;
};

/*----- helpers -----*/

static bool same_body(body_id a, body_id b)
{
    return a.set && b.set && a.hash == b.hash && a.len == b.len;
}

static uint64_t next_random(cr_pusher *p)
{
    /* xorshift64*: jitter only, no need for anything stronger. */
    p->rng ^= p->rng >> 12;
    p->rng ^= p->rng << 25;
    p->rng ^= p->rng >> 27;
    return p->rng * 2685821657736338717ull;
}

/* Copies at most EXCERPT_MAX bytes of text with control characters as
 * spaces, so an answer fits on one log line. */
static void excerpt(char *dst, size_t size, const char *src, size_t n)
{
    size_t j = 0;
    if (n > EXCERPT_MAX) {
        n = EXCERPT_MAX;
    }
    for (size_t i = 0; i < n && j + 1 < size; i++) {
        unsigned char c = (unsigned char)src[i];
        dst[j++] = (c < 0x20 || c == 0x7f) ? ' ' : (char)c;
    }
    while (j > 0 && dst[j - 1] == ' ') {
        j--;
    }
    dst[j] = '\0';
}

static bool has_ctl(const char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f) {
            return true;
        }
    }
    return false;
}

bool cr_pusher_https_supported(void)
{
#ifdef CR_HAVE_EVENT_OPENSSL
    return true;
#else
    return false;
#endif
}

/* Parsed pieces of a push URL (malloc'd strings). */
typedef struct url_parts {
    char *host, *host_hdr, *target;
    int port;
    bool https;
} url_parts;

static void url_parts_free(url_parts *u)
{
    free(u->host);
    free(u->host_hdr);
    free(u->target);
    memset(u, 0, sizeof *u);
}

static int why_fail(char *why, size_t size, const char *text)
{
    if (why && size) {
        snprintf(why, size, "%s", text);
    }
    return CR_EINVAL;
}

static int parse_url(const char *url, url_parts *u, char *why, size_t why_size)
{
    memset(u, 0, sizeof *u);
    if (!url || !url[0]) {
        return why_fail(why, why_size, "empty URL");
    }
    if (has_ctl(url)) {
        return why_fail(why, why_size, "control character in the URL");
    }
    struct evhttp_uri *uri = evhttp_uri_parse_with_flags(url, 0);
    if (!uri) {
        return why_fail(why, why_size, "not a URL");
    }
    int rc = 0;
    const char *scheme = evhttp_uri_get_scheme(uri);
    const char *host = evhttp_uri_get_host(uri);
    const char *path = evhttp_uri_get_path(uri);
    const char *query = evhttp_uri_get_query(uri);
    int port = evhttp_uri_get_port(uri);
    if (!scheme || (strcasecmp(scheme, "http") != 0 && strcasecmp(scheme, "https") != 0)) {
        rc = why_fail(why, why_size, "expected an http:// or https:// URL");
    } else if (strcasecmp(scheme, "https") == 0 && !cr_pusher_https_supported()) {
        rc = why_fail(why, why_size,
                      "https:// needs chessrelay built with libevent_openssl (use http:// or rebuild)");
    } else if (!host || !host[0]) {
        rc = why_fail(why, why_size, "no host in the URL");
    } else if (port == 0 || port > 65535) {
        rc = why_fail(why, why_size, "bad port in the URL");
    }
    if (rc) {
        evhttp_uri_free(uri);
        return rc;
    }
    u->https = strcasecmp(scheme, "https") == 0;
    u->port = port > 0 ? port : u->https ? 443 : 80;
    /* evhttp keeps IPv6 literals without brackets. */
    bool v6 = strchr(host, ':') != NULL;
    size_t hn = strlen(host) + 16;
    u->host = strdup(host);
    u->host_hdr = malloc(hn);
    if (u->host_hdr) {
        if (port > 0) {
            snprintf(u->host_hdr, hn, v6 ? "[%s]:%d" : "%s:%d", host, port);
        } else {
            snprintf(u->host_hdr, hn, v6 ? "[%s]" : "%s", host);
        }
    }
    if (!path || !path[0]) {
        path = "/";
    }
    size_t tn = strlen(path) + (query ? strlen(query) + 1 : 0) + 1;
    u->target = malloc(tn);
    if (u->target) {
        snprintf(u->target, tn, "%s%s%s", path, query ? "?" : "", query ? query : "");
    }
    evhttp_uri_free(uri);
    if (!u->host || !u->host_hdr || !u->target) {
        url_parts_free(u);
        return CR_ENOMEM;
    }
    return 0;
}

int cr_pusher_check_url(const char *url, char *why, size_t why_size)
{
    url_parts u;
    int rc = parse_url(url, &u, why, why_size);
    url_parts_free(&u);
    return rc == CR_ENOMEM ? 0 : rc;
}

/*----- flights and the reaper -----*/

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
    cr_pusher *p = arg;
    while (p->dead) {
        flight *f = p->dead;
        p->dead = f->next_dead;
        if (f->conn) {
            evhttp_connection_free(f->conn);
        }
        free(f);
    }
}

/* Detaches the flight from its round and queues its connection for freeing
 * once libevent has returned (we may be inside one of its callbacks). */
static void retire(flight *f)
{
    cr_pusher *p = f->p;
    if (f->dead) {
        return;
    }
    f->dead = true;
    if (f->rr && f->rr->fl == f) {
        f->rr->fl = NULL;
    }
    f->rr = NULL;
    if (f->deadline) {
        event_free(f->deadline);
        f->deadline = NULL;
    }
    f->next_dead = p->dead;
    p->dead = f;
    event_active(p->reap_ev, EV_TIMEOUT, 1);
}

static void kick(push_round *rr);

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
    push_round *rr = arg;
    rr->waiting = false;
    rr->pacing = false;
    kick(rr);
}

static void note_error(push_round *rr, const char *fmt, ...) CR_PRINTF(2, 3);

static void note_error(push_round *rr, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(rr->st.last_error, sizeof rr->st.last_error, "round %s: %s", rr->name, text);
    rr->error_at = cr_mono_us();
}

/* Waits before the next attempt: exponential back-off with jitter, at least
 * retry_after_s when the host asked for it. */
static void schedule_retry(push_round *rr, int retry_after_s)
{
    cr_pusher *p = rr->p;
    rr->attempts++;
    int shift = rr->attempts - 1 > 20 ? 20 : rr->attempts - 1;
    int64_t d = (int64_t)p->cfg.backoff_base_ms << shift;
    if (d > p->cfg.backoff_max_ms) {
        d = p->cfg.backoff_max_ms;
    }
    int64_t wait_ms = d / 2 + (int64_t)(next_random(p) % (uint64_t)(d / 2 + 1));
    if (retry_after_s > 0 && (int64_t)retry_after_s * 1000 > wait_ms) {
        wait_ms = (int64_t)retry_after_s * 1000;
    }
    struct timeval tv = {(time_t)(wait_ms / 1000), (suseconds_t)(wait_ms % 1000) * 1000};
    rr->waiting = true;
    /* From now, not from the start of this loop turn (libevent's cached
     * time), so that a busy turn does not shorten the wait. */
    event_base_update_cache_time(p->base);
    evtimer_add(rr->retry_ev, &tv);
}

/* Retry-After: delta seconds or an HTTP date ("Sun, 06 Nov 1994 08:49:37 GMT"). */
static int parse_retry_after(const char *v, int max_s)
{
    if (!v) {
        return 0;
    }
    while (*v == ' ') {
        v++;
    }
    long s = 0;
    if (isdigit((unsigned char)*v)) {
        char *end;
        s = strtol(v, &end, 10);
        while (*end == ' ') {
            end++;
        }
        if (*end) {
            return 0;
        }
    } else {
        static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
        char mon[4] = "";
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        if (sscanf(v, "%*3s, %d %3s %d %d:%d:%d GMT", &tm.tm_mday, mon, &tm.tm_year, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec) != 6) {
            return 0;
        }
        const char *m = strlen(mon) == 3 ? strstr(months, mon) : NULL;
        if (!m || (m - months) % 3) {
            return 0;
        }
        tm.tm_mon = (int)(m - months) / 3;
        tm.tm_year -= 1900;
        time_t at = timegm(&tm);
        s = (long)(at - time(NULL));
    }
    if (s < 0) {
        return 0;
    }
    return s > max_s ? max_s : (int)s;
}

static const char *request_error_text(int e)
{
    switch (e - 1) {
    case EVREQ_HTTP_TIMEOUT:
        return "timed out";
    case EVREQ_HTTP_EOF:
        return "connection closed before the answer";
    case EVREQ_HTTP_INVALID_HEADER:
        return "malformed answer";
    case EVREQ_HTTP_BUFFER_ERROR:
        return "connection failed (reset, refused or TLS)";
    case EVREQ_HTTP_REQUEST_CANCEL:
        return "cancelled";
    case EVREQ_HTTP_DATA_TOO_LONG:
        return "answer too long";
    default:
        return "could not connect (refused, unreachable or unknown host)";
    }
}

#ifdef CR_HAVE_EVENT_OPENSSL
/* The TLS library's reason for the last failure on the flight, if any. */
static void tls_reason(flight *f, char *buf, size_t size)
{
    buf[0] = '\0';
    struct bufferevent *bev = f->conn ? evhttp_connection_get_bufferevent(f->conn) : NULL;
    unsigned long e = bev ? bufferevent_get_openssl_error(bev) : 0;
    if (e) {
        char tmp[160];
        ERR_error_string_n(e, tmp, sizeof tmp);
        snprintf(buf, size, " (TLS: %s)", tmp);
    }
}
#endif

/* A request ended: status 0 when no answer came (error says why). */
static void finish(flight *f, int status, struct evhttp_request *req)
{
    push_round *rr = f->rr;
    cr_pusher_stats *st = &rr->st;
    body_id id = f->id;
    char body[EXCERPT_MAX + 1] = "", game_error[EXCERPT_MAX + 1] = "";
    int retry_after = 0;
    if (req && status > 0) {
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        size_t n = in ? evbuffer_get_length(in) : 0;
        char raw[EXCERPT_MAX];
        if (n) {
            size_t take = n > EXCERPT_MAX ? EXCERPT_MAX : n;
            evbuffer_copyout(in, raw, take);
            excerpt(body, sizeof body, raw, take);
        }
        /* lichess answers a push with 200 and names the games it could not
         * read: {"games":[{"tags":{...},"error":"Invalid move: Nxe5"}]}. */
        struct evbuffer_ptr at = n ? evbuffer_search(in, "\"error\"", 7, NULL)
                                   : (struct evbuffer_ptr){.pos = -1};
        if (status < 300 && at.pos >= 0) {
            size_t from = (size_t)at.pos, take = n - from > EXCERPT_MAX ? EXCERPT_MAX : n - from;
            if (evbuffer_ptr_set(in, &at, from, EVBUFFER_PTR_SET) == 0 &&
                evbuffer_copyout_from(in, &at, raw, take) >= 0) {
                excerpt(game_error, sizeof game_error, raw, take);
            }
        }
        if (status == 429) {
            retry_after = parse_retry_after(
                evhttp_find_header(evhttp_request_get_input_headers(req), "Retry-After"),
                rr->p->cfg.retry_after_max_s);
        }
    }
    char tls[200] = "";
#ifdef CR_HAVE_EVENT_OPENSSL
    if (status == 0 && rr->https) {
        tls_reason(f, tls, sizeof tls);
    }
#endif
    retire(f);
    st->last_status = status;
    rr->answer_at = cr_mono_us();
    if (status >= 200 && status < 300) {
        st->pushes_ok++;
        st->last_push_us = cr_now_us();
        rr->pushed = id;
        /* A newer body may have come meanwhile: the host lacks it since then. */
        st->behind_since_us = same_body(rr->cur, id) ? 0 : rr->cur_at;
        rr->refused.set = false;
        rr->attempts = 0;
        snprintf(st->game_error, sizeof st->game_error, "%s", game_error);
        if (game_error[0]) {
            cr_log(CR_LOG_WARN, "push round %s: %s accepted with game errors: %s", rr->name,
                   rr->url, game_error);
        } else {
            cr_log(CR_LOG_DEBUG, "push round %s: %zu bytes accepted (HTTP %d)", rr->name, id.len,
                   status);
        }
        kick(rr);
        return;
    }
    st->failures++;
    bool transient = status == 0 || status == 408 || status == 429 || status >= 500;
    char before[sizeof st->last_error];
    memcpy(before, st->last_error, sizeof before);
    if (status == 0) {
        note_error(rr, "%s%s", request_error_text(f->error), tls);
    } else {
        note_error(rr, "HTTP %d%s%s", status, body[0] ? ": " : "", body);
    }
    if (!transient) {
        /* Retrying cannot help (bad token, unknown round, refused PGN):
         * wait for a different body. */
        rr->refused = id;
        rr->attempts = 0;
        /* Refused again for the same reason (a bad token refuses every
         * move): said once, then only at debug level. */
        cr_log(strcmp(before, st->last_error) ? CR_LOG_ERROR : CR_LOG_DEBUG,
               "push %s: %s (not retried until the PGN changes)", rr->url, st->last_error);
        kick(rr);
        return;
    }
    schedule_retry(rr, retry_after);
    cr_log(CR_LOG_WARN, "push %s: %s (attempt %d, retrying)", rr->url, st->last_error,
           rr->attempts);
}

static void on_request_error(enum evhttp_request_error e, void *arg)
{
    flight *f = arg;
    f->error = (int)e + 1;
}

static void on_response(struct evhttp_request *req, void *arg)
{
    flight *f = arg;
    if (!f->rr) {
        return; /* abandoned (new URL, timed out, pusher going away) */
    }
    finish(f, req ? evhttp_request_get_response_code(req) : 0, req);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    flight *f = arg;
    if (f->rr) {
        f->error = (int)EVREQ_HTTP_TIMEOUT + 1;
        finish(f, 0, NULL);
    }
}

#ifdef CR_HAVE_EVENT_OPENSSL
/* A connection over TLS: the certificate is checked against the trusted
 * CAs and the URL's host name (or IP address). */
static struct evhttp_connection *open_tls(cr_pusher *p, push_round *rr, struct evdns_base *dns,
                                          bool literal)
{
    if (!p->ssl_ctx) {
        p->ssl_ctx = SSL_CTX_new(TLS_client_method());
        if (!p->ssl_ctx) {
            return NULL;
        }
        SSL_CTX_set_min_proto_version(p->ssl_ctx, TLS1_2_VERSION);
        SSL_CTX_set_verify(p->ssl_ctx, SSL_VERIFY_PEER, NULL);
        int ok = p->cfg.ca_file ? SSL_CTX_load_verify_locations(p->ssl_ctx, p->cfg.ca_file, NULL)
                                : SSL_CTX_set_default_verify_paths(p->ssl_ctx);
        if (ok != 1) {
            cr_log(CR_LOG_ERROR, "push: cannot load the trusted certificates%s%s",
                   p->cfg.ca_file ? " from " : "", p->cfg.ca_file ? p->cfg.ca_file : "");
        }
    }
    SSL *ssl = SSL_new(p->ssl_ctx);
    if (!ssl) {
        return NULL;
    }
    if (literal) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), rr->host);
    } else {
        SSL_set_tlsext_host_name(ssl, rr->host);
        SSL_set1_host(ssl, rr->host);
    }
    struct bufferevent *bev = bufferevent_openssl_socket_new(
        p->base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
    if (!bev) {
        SSL_free(ssl);
        return NULL;
    }
    /* Hosts often close without a TLS close_notify after the answer. */
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    struct evhttp_connection *c =
        evhttp_connection_base_bufferevent_new(p->base, dns, bev, rr->host, (unsigned short)rr->port);
    if (!c) {
        bufferevent_free(bev);
    }
    return c;
}
#endif

static struct evhttp_connection *open_connection(cr_pusher *p, push_round *rr)
{
    struct evdns_base *dns = NULL;
    unsigned char addr[16];
    bool literal = evutil_inet_pton(AF_INET, rr->host, addr) == 1 ||
                   evutil_inet_pton(AF_INET6, rr->host, addr) == 1;
    if (!literal) {
        /* A resolver of our own: evhttp would otherwise resolve blocking. */
        if (!p->dns) {
            p->dns = evdns_base_new(p->base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
        }
        if (!p->dns) {
            return NULL;
        }
        dns = p->dns;
    }
    struct evhttp_connection *c = NULL;
    if (!rr->https) {
        c = evhttp_connection_base_new(p->base, dns, rr->host, (unsigned short)rr->port);
    } else {
#ifdef CR_HAVE_EVENT_OPENSSL
        c = open_tls(p, rr, dns, literal);
#endif
    }
    /* evhttp connects to the first address the resolver gives, so a host
     * with an AAAA record is unreachable from a venue without IPv6 (and the
     * other way round): try IPv4 and IPv6 in turn, IPv4 first. */
    if (c && !literal) {
        evhttp_connection_set_family(c, rr->attempts % 2 ? AF_INET6 : AF_INET);
    }
    return c;
}

/* Sends the newest body. On a local failure (out of memory) the round
 * waits for a retry like after a failed request. */
static void start_request(push_round *rr)
{
    cr_pusher *p = rr->p;
    flight *f = calloc(1, sizeof *f);
    if (!f) {
        note_error(rr, "out of memory");
        schedule_retry(rr, 0);
        return;
    }
    f->p = p;
    f->rr = rr;
    f->id = rr->cur;
    f->conn = open_connection(p, rr);
    struct evhttp_request *req = f->conn ? evhttp_request_new(on_response, f) : NULL;
    f->deadline = evtimer_new(p->base, on_deadline, f);
    int rc = -1;
    if (req && f->deadline) {
        struct timeval tv = {(time_t)(p->cfg.timeout_ms / 1000),
                             (suseconds_t)(p->cfg.timeout_ms % 1000) * 1000};
        evhttp_connection_set_timeout_tv(f->conn, &tv);
        evhttp_connection_set_retries(f->conn, 0);
        evhttp_connection_set_max_body_size(f->conn, ANSWER_MAX);
        evhttp_connection_set_max_headers_size(f->conn, 64 * 1024);
        evhttp_request_set_error_cb(req, on_request_error);
        struct evkeyvalq *h = evhttp_request_get_output_headers(req);
        char auth[600];
        evhttp_add_header(h, "Host", rr->host_hdr);
        evhttp_add_header(h, "User-Agent", "chessrelay/" CR_VERSION);
        evhttp_add_header(h, "Content-Type", "text/plain; charset=utf-8");
        evhttp_add_header(h, "Connection", "close");
        if (rr->token && rr->token[0]) {
            snprintf(auth, sizeof auth, "Bearer %s", rr->token);
            evhttp_add_header(h, "Authorization", auth);
        }
        if (evbuffer_add(evhttp_request_get_output_buffer(req), rr->body, rr->len) == 0) {
            evtimer_add(f->deadline, &tv);
            rr->fl = f;
            rr->st.bytes_sent += rr->len;
            if (rr->attempts > 0) {
                rr->st.retries++;
            }
            /* evhttp_make_request owns req from here on, even when it fails. */
            rc = evhttp_make_request(f->conn, req, EVHTTP_REQ_POST, rr->target);
            req = NULL;
        }
    }
    if (req) {
        evhttp_request_free(req);
    }
    if (rc != 0 && !f->dead) {
        /* Not handled by a callback already: fail it here. */
        retire(f);
        rr->st.failures++;
        note_error(rr, "cannot start a request to %s", rr->host_hdr);
        schedule_retry(rr, 0);
    }
}

/* Sends the newest body if it is not what the host has (or refused) and
 * nothing is running or waiting. */
static void kick(push_round *rr)
{
    if (!rr->url || rr->fl || rr->waiting || rr->pacing || !rr->cur.set) {
        return;
    }
    if (same_body(rr->cur, rr->pushed) || same_body(rr->cur, rr->refused)) {
        return;
    }
    /* Hosts rate-limit pushes: keep min_interval between two requests of
     * a round; offers meanwhile only replace the body. */
    int64_t since = cr_mono_us() - rr->started_at;
    int64_t gap = (int64_t)rr->p->cfg.min_interval_ms * 1000;
    if (rr->started_at && gap > 0 && since < gap) {
        struct timeval tv = {(time_t)((gap - since) / 1000000), (suseconds_t)((gap - since) % 1000000)};
        rr->pacing = true;
        evtimer_add(rr->retry_ev, &tv);
        return;
    }
    rr->started_at = cr_mono_us();
    start_request(rr);
}

/*----- rounds -----*/

static push_round *find_round(const cr_pusher *p, const char *name)
{
    for (int i = 0; i < p->nrounds; i++) {
        if (strcmp(p->rounds[i]->name, name) == 0) {
            return p->rounds[i];
        }
    }
    return NULL;
}

/* Drops the request in flight and any waiting retry. */
static void stop_round(push_round *rr)
{
    if (rr->fl) {
        retire(rr->fl);
    }
    if (rr->waiting || rr->pacing) {
        evtimer_del(rr->retry_ev);
        rr->waiting = false;
        rr->pacing = false;
    }
    rr->attempts = 0;
}

static void free_round(push_round *rr)
{
    stop_round(rr);
    if (rr->retry_ev) {
        event_free(rr->retry_ev);
    }
    free(rr->url);
    free(rr->token);
    free(rr->host);
    free(rr->host_hdr);
    free(rr->target);
    free(rr->body);
    free(rr);
}

cr_pusher *cr_pusher_new(struct event_base *base, const cr_pusher_config *cfg)
{
    if (!base) {
        return NULL;
    }
    cr_pusher *p = calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    p->base = base;
    if (cfg) {
        p->cfg = *cfg;
    }
    if (p->cfg.timeout_ms <= 0) {
        p->cfg.timeout_ms = DEFAULT_TIMEOUT_MS;
    }
    if (p->cfg.backoff_base_ms <= 0) {
        p->cfg.backoff_base_ms = DEFAULT_BACKOFF_BASE_MS;
    }
    if (p->cfg.backoff_max_ms <= 0) {
        p->cfg.backoff_max_ms = DEFAULT_BACKOFF_MAX_MS;
    }
    if (p->cfg.backoff_max_ms < p->cfg.backoff_base_ms) {
        p->cfg.backoff_max_ms = p->cfg.backoff_base_ms;
    }
    if (p->cfg.min_interval_ms == 0) {
        p->cfg.min_interval_ms = DEFAULT_MIN_INTERVAL_MS;
    }
    if (p->cfg.retry_after_max_s <= 0) {
        p->cfg.retry_after_max_s = DEFAULT_RETRY_AFTER_MAX_S;
    }
    p->cfg.ca_file = NULL;
    if (cfg && cfg->ca_file && !(p->cfg.ca_file = strdup(cfg->ca_file))) {
        free(p);
        return NULL;
    }
    p->rng = (uint64_t)cr_now_us() ^ ((uint64_t)(uintptr_t)p << 16) ^ 0x9e3779b97f4a7c15ull;
    p->reap_ev = evtimer_new(base, on_reap, p);
    if (!p->reap_ev) {
        free((char *)p->cfg.ca_file);
        free(p);
        return NULL;
    }
    return p;
}

void cr_pusher_free(cr_pusher *p)
{
    if (!p) {
        return;
    }
    for (int i = 0; i < p->nrounds; i++) {
        free_round(p->rounds[i]);
    }
    free(p->rounds);
    on_reap(-1, 0, p);
    event_free(p->reap_ev);
    if (p->dns) {
        evdns_base_free(p->dns, 0);
    }
#ifdef CR_HAVE_EVENT_OPENSSL
    SSL_CTX_free(p->ssl_ctx);
#endif
    free((char *)p->cfg.ca_file);
    free(p);
}

int cr_pusher_set_round(cr_pusher *p, const char *round, const char *url, const char *token)
{
    if (!p || !round || !round[0] || strlen(round) >= ROUND_NAME_MAX) {
        cr_log(CR_LOG_ERROR, "push: bad round name");
        return CR_EINVAL;
    }
    if (!token) {
        token = "";
    }
    if (has_ctl(token) || strlen(token) > 512) {
        cr_log(CR_LOG_ERROR, "push round %s: the token has control characters or is too long",
               round);
        return CR_EINVAL;
    }
    url_parts u = {0};
    bool has_url = url && url[0];
    if (has_url) {
        char why[160];
        int rc = parse_url(url, &u, why, sizeof why);
        if (rc) {
            if (rc == CR_EINVAL) {
                cr_log(CR_LOG_ERROR, "push round %s: %s: %s", round, url, why);
            }
            return rc;
        }
    }
    push_round *rr = find_round(p, round);
    if (!rr) {
        if (!has_url) {
            return 0;
        }
        push_round **v = cr_grow(p->rounds, &p->caprounds, (size_t)p->nrounds + 1, sizeof *v, 8);
        if (!v) {
            url_parts_free(&u);
            return CR_ENOMEM;
        }
        p->rounds = v;
        rr = calloc(1, sizeof *rr);
        if (!rr || !(rr->retry_ev = evtimer_new(p->base, on_retry, rr))) {
            free(rr);
            url_parts_free(&u);
            return CR_ENOMEM;
        }
        rr->p = p;
        snprintf(rr->name, sizeof rr->name, "%s", round);
        p->rounds[p->nrounds++] = rr;
    }
    bool same = has_url && rr->url && strcmp(rr->url, url) == 0 && rr->token &&
                strcmp(rr->token, token) == 0;
    if (same) {
        url_parts_free(&u);
        return 0;
    }
    char *nurl = has_url ? strdup(url) : NULL;
    char *ntok = has_url ? strdup(token) : NULL;
    if (has_url && (!nurl || !ntok)) {
        free(nurl);
        free(ntok);
        url_parts_free(&u);
        return CR_ENOMEM;
    }
    /* A new destination knows nothing yet: what went before does not count. */
    stop_round(rr);
    free(rr->url);
    free(rr->token);
    free(rr->host);
    free(rr->host_hdr);
    free(rr->target);
    rr->url = nurl;
    rr->token = ntok;
    rr->host = u.host;
    rr->host_hdr = u.host_hdr;
    rr->target = u.target;
    rr->port = u.port;
    rr->https = u.https;
    rr->pushed.set = false;
    rr->refused.set = false;
    if (!has_url) {
        free(rr->body);
        rr->body = NULL;
        rr->len = 0;
        rr->cur.set = false;
        rr->st.behind_since_us = 0;
        return 0;
    }
    if (rr->cur.set) {
        rr->cur_at = cr_now_us(); /* the new host has nothing yet */
        rr->st.behind_since_us = rr->cur_at;
    }
    kick(rr);
    return 0;
}

int cr_pusher_offer(cr_pusher *p, const char *round, const char *pgn, size_t len)
{
    if (!p || !round || (!pgn && len)) {
        return CR_EINVAL;
    }
    push_round *rr = find_round(p, round);
    if (!rr || !rr->url) {
        return 0;
    }
    body_id id = {true, cr_fnv1a(pgn ? pgn : "", len), len};
    if (same_body(id, rr->cur)) {
        rr->st.unchanged++;
        return 0;
    }
    if (!rr->fl && !rr->waiting && !rr->pacing && same_body(id, rr->pushed)) {
        /* Back to what the host has (e.g. a move retracted again). */
        rr->cur = id;
        rr->st.unchanged++;
        rr->st.behind_since_us = 0;
        return 0;
    }
    char *copy = malloc(len ? len : 1);
    if (!copy) {
        return CR_ENOMEM;
    }
    if (len) {
        memcpy(copy, pgn, len);
    }
    bool busy = rr->fl || rr->waiting || rr->pacing;
    bool cur_unsent = rr->cur.set && !(rr->fl && same_body(rr->cur, rr->fl->id)) &&
                      !same_body(rr->cur, rr->pushed) && !same_body(rr->cur, rr->refused);
    if (busy && cur_unsent) {
        rr->st.coalesced++;
    }
    free(rr->body);
    rr->body = copy;
    rr->len = len;
    rr->cur = id;
    rr->cur_at = cr_now_us();
    if (!rr->st.behind_since_us) {
        rr->st.behind_since_us = rr->cur_at;
    }
    kick(rr);
    return 0;
}

int cr_pusher_stats_get(const cr_pusher *p, const char *round, cr_pusher_stats *out)
{
    if (!p || !out) {
        return CR_EINVAL;
    }
    memset(out, 0, sizeof *out);
    if (round) {
        const push_round *rr = find_round(p, round);
        if (!rr) {
            return CR_EINVAL;
        }
        *out = rr->st;
        out->in_flight = rr->fl != NULL;
        out->waiting = rr->waiting;
        return 0;
    }
    int64_t err_at = -1, answer_at = -1;
    for (int i = 0; i < p->nrounds; i++) {
        const push_round *rr = p->rounds[i];
        out->pushes_ok += rr->st.pushes_ok;
        out->failures += rr->st.failures;
        out->retries += rr->st.retries;
        out->unchanged += rr->st.unchanged;
        out->coalesced += rr->st.coalesced;
        out->bytes_sent += rr->st.bytes_sent;
        if (rr->st.behind_since_us &&
            (!out->behind_since_us || rr->st.behind_since_us < out->behind_since_us)) {
            out->behind_since_us = rr->st.behind_since_us;
        }
        out->in_flight |= rr->fl != NULL;
        out->waiting |= rr->waiting;
        if (rr->st.last_push_us >= out->last_push_us) {
            out->last_push_us = rr->st.last_push_us;
        }
        if (rr->st.last_error[0] && rr->error_at > err_at) {
            err_at = rr->error_at;
            memcpy(out->last_error, rr->st.last_error, sizeof out->last_error);
        }
        if (rr->st.last_status && rr->answer_at > answer_at) {
            answer_at = rr->answer_at;
            out->last_status = rr->st.last_status;
        }
        if (rr->st.game_error[0]) {
            memcpy(out->game_error, rr->st.game_error, sizeof out->game_error);
        }
    }
    return 0;
}

int cr_pusher_round_count(const cr_pusher *p)
{
    return p ? p->nrounds : 0;
}

const char *cr_pusher_round_name(const cr_pusher *p, int i)
{
    return p && i >= 0 && i < p->nrounds ? p->rounds[i]->name : NULL;
}

enum { M_OK, M_FAILED, M_RETRIES, M_BYTES, M_UNCHANGED, M_COALESCED, M_LAST_OK, M_STATUS, M_BEHIND,
       M_WAITING, M_NB };

void cr_pusher_metrics(const cr_pusher *p, FILE *out)
{
    static const struct {
        const char *name, *type, *help;
    } fam[M_NB] = {
        {"chessrelay_push_requests_total", "counter", "Pushes to the broadcast host by outcome."},
        {NULL, NULL, NULL}, /* the same family, result="failed" */
        {"chessrelay_push_retries_total", "counter", "Requests that retried a transient failure."},
        {"chessrelay_push_bytes_total", "counter", "PGN bytes sent (request bodies)."},
        {"chessrelay_push_unchanged_total", "counter",
         "Offers that sent nothing: the host has that PGN."},
        {"chessrelay_push_coalesced_total", "counter",
         "PGNs replaced by a newer one before they were sent."},
        {"chessrelay_push_last_success_timestamp_seconds", "gauge",
         "When the host last accepted the round (0: never)."},
        {"chessrelay_push_last_status", "gauge", "HTTP status of the last answer (0: none yet)."},
        {"chessrelay_push_behind_seconds", "gauge",
         "How long the host has lacked the round's newest PGN (0: up to date)."},
        {"chessrelay_push_retry_waiting", "gauge", "1 while a retry waits for its back-off."},
    };
    int64_t now = cr_now_us();
    for (int m = 0; m < M_NB; m++) {
        bool any = false;
        for (int i = 0; p && i < p->nrounds; i++) {
            const push_round *rr = p->rounds[i];
            if (!rr->url) {
                continue;
            }
            const cr_pusher_stats *st = &rr->st;
            if (!any && fam[m].name) {
                fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", fam[m].name, fam[m].help, fam[m].name,
                        fam[m].type);
            }
            any = true;
            const char *name = fam[m].name ? fam[m].name : fam[M_OK].name;
            fprintf(out, "%s{round=\"", name);
            cr_prom_label(out, rr->name);
            if (m == M_OK || m == M_FAILED) {
                fprintf(out, "\",result=\"%s\"} %" PRIu64 "\n", m == M_OK ? "ok" : "failed",
                        m == M_OK ? st->pushes_ok : st->failures);
                continue;
            }
            fputs("\"} ", out);
            switch (m) {
            case M_RETRIES:
                fprintf(out, "%" PRIu64 "\n", st->retries);
                break;
            case M_BYTES:
                fprintf(out, "%" PRIu64 "\n", st->bytes_sent);
                break;
            case M_UNCHANGED:
                fprintf(out, "%" PRIu64 "\n", st->unchanged);
                break;
            case M_COALESCED:
                fprintf(out, "%" PRIu64 "\n", st->coalesced);
                break;
            case M_LAST_OK:
                fprintf(out, "%.3f\n", (double)st->last_push_us / 1e6);
                break;
            case M_STATUS:
                fprintf(out, "%d\n", st->last_status);
                break;
            case M_BEHIND:
                fprintf(out, "%.3f\n",
                        st->behind_since_us && now > st->behind_since_us
                            ? (double)(now - st->behind_since_us) / 1e6
                            : 0.0);
                break;
            default:
                fprintf(out, "%d\n", rr->waiting ? 1 : 0);
                break;
            }
        }
    }
}
