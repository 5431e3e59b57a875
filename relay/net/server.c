/* chessrelay relay: HTTP + WebSocket server in the lws service thread (see
 * server.h and docs/protocol.md): the lws callback, the thread, start and
 * stop. The viewers on /ws are in server_ws.c, HTTP in server_http.c. */
#include "net/server_private.h"

#include "util/datadir.h"

#include <errno.h>
#include <netdb.h>
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_link.h"
#include "util/grow.h"
#include "util/log.h"
#include "net/livechess.h"
#include "net/view.h"
#include "net/ws_text.h"

/*----- the lws callback -----*/

void cr_srv_request(cr_server *s, struct lws *wsi)
{
    if (!s->limits) {
        return;
    }
    char small[256], *xff = NULL;
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_X_FORWARDED_FOR);
    if (n > 0) {
        /* A long chain is read whole: its right end is what counts. Room
         * for the commas lws puts between repeated headers. */
        size_t size = (size_t)n + 64;
        xff = size <= sizeof small ? small : malloc(size);
        if (xff && lws_hdr_copy(wsi, xff, (int)size, WSI_TOKEN_X_FORWARDED_FOR) < 0) {
            xff[0] = '\0';
        }
    }
    cr_limits_request(s->limits, wsi, xff);
    if (xff != small) {
        free(xff);
    }
}

/* lws 4.1 sends at most rx_buffer_size (+ LWS_PRE + 4) bytes per send()
 * (no tx_packet_size) and keeps the rest in the network connection's
 * buffer; on HTTP/2 that buffer is the connection's, shared by its streams.
 * Its POLLOUT handler empties that buffer before it serves any stream, but
 * drops POLLOUT when no stream asks to write: a response's tail still
 * buffered when its stream ends (lws closes a stream once the file or the
 * FINAL write is out) sat there until the next request or the 30 s ping,
 * and the browser got a cut body. Such connections are noted here and
 * asked to write after the service turn, once the stream is gone. */
void cr_srv_flush_later(cr_server *s, struct lws *wsi)
{
    struct lws *nwsi = lws_get_network_wsi(wsi);
    if (!nwsi || nwsi == wsi || !lws_partial_buffered(nwsi)) {
        return;
    }
    for (size_t i = 0; i < s->nflush; i++) {
        if (s->flush[i] == nwsi) {
            return;
        }
    }
    struct lws **f = cr_grow(s->flush, &s->capflush, s->nflush + 1, sizeof *f, 16);
    if (!f) {
        cr_log(CR_LOG_ERROR, "out of memory: an HTTP/2 response may wait for the next request");
        return;
    }
    s->flush = f;
    s->flush[s->nflush++] = nwsi;
}

static void flush_forget(cr_server *s, struct lws *wsi)
{
    for (size_t i = 0; i < s->nflush; i++) {
        if (s->flush[i] == wsi) {
            s->flush[i] = s->flush[--s->nflush];
            return;
        }
    }
}

static bool origin_allowed(cr_server *s, struct lws *wsi)
{
    const cr_config *t = s->cfg.tournament;
    if (!t || !t->origin_count) {
        return true;
    }
    char origin[256];
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0) {
        return true; /* not a browser: the Origin check guards browsers only */
    }
    for (int i = 0; i < t->origin_count; i++) {
        if (strcmp(origin, t->origins[i]) == 0) {
            return true;
        }
    }
    return false;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    cr_server *s = ctx ? lws_context_user(ctx) : NULL;
    pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION: {
        const struct lws_filter_network_conn_args *a = user;
        if (s) {
            s->listen_wsi = wsi; /* lws 4.1 passes the listening wsi here */
        }
        if (!s || !s->limits || !a) {
            return 0;
        }
        return cr_limits_accept(s->limits, (const struct sockaddr *)&a->cli_addr, a->clilen) ==
               CR_LIMIT_REFUSE;
    }
    case LWS_CALLBACK_WSI_CREATE:
        if (s && s->limits) {
            cr_limits_created(s->limits, wsi);
        }
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        if (s && s->limits) {
            cr_limits_destroyed(s->limits, wsi);
        }
        if (s) {
            flush_forget(s, wsi);
        }
        return 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (s) {
            atomic_store(&s->pubs_waiting, false);
            cr_srv_drain_pubs(s);
        }
        return 0;
    case LWS_CALLBACK_HTTP:
        return cr_srv_http_request(s, wsi, p, in ? (const char *)in : "/");
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return cr_srv_http_writeable(s, wsi, p);
    case LWS_CALLBACK_CLOSED_HTTP:
        if (p && p->kind == PSS_HTTP) {
            cr_buf_unref(p->body);
            p->body = NULL;
        }
        return 0;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return cr_srv_http_done(s, wsi);
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* A WebSocket over HTTP/2 (RFC 8441: lws announces it, Chromium
         * uses it) is a CONNECT: its path is in :path, not the GET line. */
        char uri[64];
        if ((lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 &&
             lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_HTTP_COLON_PATH) <= 0) ||
            strcmp(uri, "/ws") != 0) {
            return 1;
        }
        cr_srv_request(s, wsi);
        char token[300];
        cr_srv_auth auth = cr_srv_bearer_token(wsi, token, sizeof token);
        if (auth == CR_AUTH_BAD || auth == CR_AUTH_TOO_LARGE) {
            s->refused_token++; /* counted, not logged: a flood stays quiet */
            return 1;
        }
        if (!origin_allowed(s, wsi)) {
            char peer[64];
            cr_srv_peer_name(s, wsi, peer, sizeof peer);
            cr_log(CR_LOG_WARN, "ws %s: origin refused", peer);
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        if (p->kind == PSS_HTTP) {
            cr_buf_unref(p->body);
        }
        memset(p, 0, sizeof *p);
        p->kind = PSS_WS;
        p->wsi = wsi;
        p->lane = LANE_PUBLIC;
        p->tokens = s->cfg.rate;
        p->refill_us = cr_mono_us();
        if (s->limits && cr_limits_over(s->limits, wsi)) {
            /* Over a cap: closed at once with 1013, try again later. */
            lws_close_reason(wsi, (enum lws_close_status)1013, (unsigned char *)"full", 4);
            p->kind = PSS_NONE; /* never a viewer: nothing to undo at CLOSED */
            return -1;
        }
        char token[300];
        bool throttled = false;
        if (cr_srv_bearer_token(wsi, token, sizeof token) == CR_AUTH_TOKEN) {
            const char *name = NULL;
            const char *role = cr_srv_check_token(s, wsi, token, &throttled, &name);
            if (cr_srv_role_arbiter(role)) {
                snprintf(p->who, sizeof p->who, "%s", name);
                p->arbiter = true;
                p->trusted = true;
                p->lane = LANE_LIVE;
                s->ntrusted++;
            } else if (!role) {
                cr_srv_send_error(p, throttled ? "too many wrong tokens from this address"
                                               : "wrong token",
                                  "token");
            }
        }
        p->tail = cr_view_head(s->views[p->lane]);
        if (!cr_srv_slot_add(s, p)) {
            if (p->trusted) {
                s->ntrusted--;
            }
            cr_srv_free_viewer(p);
            p->kind = PSS_NONE;
            return -1;
        }
        return 0;
    }
    case LWS_CALLBACK_CLOSED:
        if (p && p->kind == PSS_WS) {
            cr_srv_slot_remove(s, p);
            if (p->arbiter_sub) {
                if (p->arb_prev) {
                    p->arb_prev->arb_next = p->arb_next;
                } else {
                    s->arbiters = p->arb_next;
                }
                if (p->arb_next) {
                    p->arb_next->arb_prev = p->arb_prev;
                }
            }
            if (p->trusted) {
                s->ntrusted--;
            }
            cr_srv_free_viewer(p);
            p->kind = PSS_NONE;
        }
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return p && p->kind == PSS_WS ? cr_srv_viewer_receive(s, p, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return p && p->kind == PSS_WS ? cr_srv_viewer_writeable(s, p) : 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

/*----- the thread -----*/

static void lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r')) {
        n--;
    }
    cr_log(level == LLL_ERR ? CR_LOG_ERROR : CR_LOG_WARN, "lws: %.*s", (int)n, line);
}

/* accept() failing for want of descriptors: lws 4.1 only logs it ("accept:
 * errno 24") and leaves the listening socket in the poll set, so that poll
 * wakes at once, again and again, while the descriptors are taken. The log
 * line is how the relay learns of it; the service thread then pauses the
 * listener (accept_pause). lws's log callback is process-wide and has no
 * user pointer, but accept() runs in lws_service, in the service thread of
 * the server whose listener failed: that thread's server (set when it
 * starts) takes the error, so that two servers in one process (the tests)
 * never pause each other's listener. */
static _Thread_local cr_server *serving;

/* Repeated lws errors are logged once per 5 s with their count, not once
 * each. */
static void lws_log_throttled(int level, const char *line)
{
    int e;
    if (sscanf(line, "accept: errno %d", &e) == 1 && (e == EMFILE || e == ENFILE)) {
        if (serving) {
            serving->accept_errno = e; /* logged by the limits, once per interval */
        }
        return;
    }
    /* Per thread, as lws logs from the thread that calls it (the loop's at
     * start, each server's service thread). */
    static _Thread_local char last[96];
    static _Thread_local int64_t last_us;
    static _Thread_local uint64_t repeats;
    int64_t now = cr_mono_us();
    if (strncmp(line, last, sizeof last - 1) == 0 && now - last_us < 5000000) {
        repeats++;
        return;
    }
    if (repeats) {
        cr_log(CR_LOG_WARN, "lws: the last message %" PRIu64 " more time(s)", repeats);
        repeats = 0;
    }
    snprintf(last, sizeof last, "%s", line);
    last_us = now;
    lws_log(level, line);
}

/* The agent link's callback, with the limits' accounting first. */
static int agent_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                          size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    cr_server *s = ctx ? lws_context_user(ctx) : NULL;
    if (s && s->limits) {
        if (reason == LWS_CALLBACK_WSI_DESTROY) {
            cr_limits_destroyed(s->limits, wsi);
            flush_forget(s, wsi);
        } else if (reason == LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION) {
            cr_srv_request(s, wsi);
        } else if (reason == LWS_CALLBACK_ESTABLISHED && cr_limits_over(s->limits, wsi)) {
            lws_close_reason(wsi, (enum lws_close_status)1013, (unsigned char *)"full", 4);
            return -1;
        }
    }
    return s ? s->agent_callback(wsi, reason, user, in, len) : 0;
}

/* Not idle: agents (their link has its own silence timeout), HTTP
 * requests (lws's keep-alive timeout), viewers that said something. */
static bool conn_active(void *data, struct lws *wsi)
{
    cr_server *s = data;
    const struct lws_protocols *proto = lws_get_protocol(wsi);
    if (proto && proto->callback == agent_callback) {
        return true;
    }
    (void)s;
    pss *p = lws_wsi_user(wsi);
    return p && (p->kind == PSS_HTTP || (p->kind == PSS_WS && p->greeted));
}

static void accept_resume(lws_sorted_usec_list_t *sul)
{
    cr_server *s = lws_container_of(sul, cr_server, accept_sul);
    if (s->accept_paused && s->listen_wsi) {
        lws_rx_flow_control(s->listen_wsi, 1);
    }
    s->accept_paused = false;
}

/* Takes the listening socket out of the poll set for the limits' pause: the
 * connections waiting in the backlog stay there until descriptors are free.
 * lws puts it back by itself whenever a connection closes (its accept
 * modulation, which goes around lws_rx_flow_control): a failure while
 * paused takes it out again. */
static void accept_pause(cr_server *s, int err)
{
    int64_t pause_us = cr_limits_accept_failed(s->limits, err, lws_now_usecs());
    if (!s->listen_wsi) {
        return;
    }
    if (s->accept_paused) {
        lws_rx_flow_control(s->listen_wsi, 1); /* else the next call is a no-op */
    }
    lws_rx_flow_control(s->listen_wsi, 0);
    s->accept_paused = true;
    lws_sul_schedule(s->ctx, 0, &s->accept_sul, accept_resume, pause_us);
}

static void wake_server(void *data)
{
    cr_server *s = data;
    atomic_store(&s->pubs_waiting, true);
    lws_cancel_service(s->ctx);
}

static void *service_thread(void *arg)
{
    cr_server *s = arg;
    prctl(PR_SET_NAME, "cr-lws"); /* for top -H and the load bench's CPU figures */
    serving = s;
    while (!atomic_load(&s->stop)) {
        if (lws_service(s->ctx, 0) < 0) {
            cr_log(CR_LOG_ERROR, "server thread: lws_service failed, no more broadcasts");
            break;
        }
        for (size_t i = 0; i < s->nflush; i++) {
            lws_callback_on_writable(s->flush[i]);
        }
        s->nflush = 0;
        int e = s->accept_errno;
        s->accept_errno = 0;
        if (e && s->limits) {
            accept_pause(s, e);
        }
        int64_t now = lws_now_usecs();
        if (s->limits && now - s->last_sweep_us >= 250000) {
            s->last_sweep_us = now;
            cr_limits_sweep(s->limits, now, conn_active, s);
        }
    }
    /* Nobody pops any more: a producer waiting for room must not wait forever. */
    cr_queue_close(s->pubs);
    return NULL;
}

/* lws logs a failed bind and goes on without a listening socket: the
 * address is tried here first, so that --listen on an address this host does
 * not have is an error at start. */
static int bind_check(const char *host, int port, cr_error *err)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char portstr[16];
    snprintf(portstr, sizeof portstr, "%d", port);
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc) {
        return cr_error_set(err, CR_EIO, 0, 0, "cannot listen on %s:%d: %s", host ? host : "*",
                            port, gai_strerror(rc));
    }
    int e = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) {
            e = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        int b = bind(fd, a->ai_addr, a->ai_addrlen);
        e = b ? errno : 0;
        close(fd);
        if (!b) {
            break;
        }
    }
    freeaddrinfo(res);
    if (e) {
        return cr_error_set(err, CR_EIO, 0, 0, "cannot listen on %s:%d: %s", host ? host : "*",
                            port, strerror(e));
    }
    return 0;
}

char *cr_server_find_web_root(void)
{
    char path[PATH_MAX];
    return cr_datadir_find("web", "CR_WEB_ROOT", path, sizeof path) ? strdup(path) : NULL;
}

cr_server *cr_server_start(const cr_server_config *cfg, cr_queue *pubs, cr_queue *cmds,
                           cr_error *err)
{
    cr_server *s = calloc(1, sizeof *s);
    if (!s) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (!s->cfg.ring) {
        s->cfg.ring = 8192;
    }
    if (!s->cfg.backlog) {
        s->cfg.backlog = 1024;
    }
    if (!s->cfg.max_message) {
        s->cfg.max_message = 4096;
    }
    if (s->cfg.rate <= 0) {
        s->cfg.rate = 20;
    }
    s->pubs = pubs;
    s->cmds = cmds;
    s->rate_window_start = cr_mono_us();
    char real[PATH_MAX];
    if (cfg->web_root) {
        if (realpath(cfg->web_root, real)) {
            s->web_root = strdup(real);
        } else {
            cr_log(CR_LOG_WARN, "web root %s: %s (serving the built-in page)", cfg->web_root,
                   strerror(errno));
        }
    } else {
        s->web_root = cr_server_find_web_root();
    }
    for (int l = 0; l < LANE_NB; l++) {
        s->views[l] = cr_view_new(s->cfg.ring);
        if (!s->views[l]) {
            cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
            goto fail;
        }
    }
    if (cfg->arbiter && !(s->arbiter = cr_arbiter_view_new())) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log_throttled);
    cr_limits_config lc = {0};
    if (cfg->tournament) {
        lc.connections = cfg->tournament->max_connections;
        lc.per_address = cfg->tournament->max_connections_per_address;
        lc.idle_s = cfg->tournament->idle_s;
        lc.token_checks = cfg->tournament->token_checks;
        lc.trusted = cfg->tournament->trusted_proxies;
        lc.ntrusted = cfg->tournament->trusted_proxy_count;
    }
    if (!(s->limits = cr_limits_new(&lc))) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    s->protocols[0] = (struct lws_protocols){
        .name = "chessrelay",
        .callback = callback,
        .per_session_data_size = sizeof(pss),
        /* Messages over this size arrive in pieces that are collected (and
         * counted against the 4 KiB limit); a small buffer keeps idle
         * viewers cheap. */
        .rx_buffer_size = 1024,
    };
    if (cfg->agents) {
        s->protocols[1] = cr_agent_link_protocol(cfg->agents); /* agent_link.h */
        s->agent_callback = s->protocols[1].callback;
        s->protocols[1].callback = agent_callback;
    }
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = cfg->port;
    info.iface = cfg->host && cfg->host[0] ? cfg->host : NULL;
    info.protocols = s->protocols;
    info.user = s;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;
    if (info.iface && strchr(info.iface, ':')) {
        info.options &= ~(uint64_t)LWS_SERVER_OPTION_DISABLE_IPV6;
    }
    if (cfg->tls_cert && cfg->tls_key) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = cfg->tls_cert;
        info.ssl_private_key_filepath = cfg->tls_key;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        info.fd_limit_per_thread = (unsigned)rl.rlim_cur;
    }
    /* Dead peers: pinged after 30 s without traffic, closed after 60 s. */
    static const lws_retry_bo_t idle_policy = {.secs_since_valid_ping = 30,
                                               .secs_since_valid_hangup = 60};
    info.retry_and_idle_policy = &idle_policy;
    if (bind_check(info.iface, cfg->port, err)) {
        goto fail;
    }
    s->ctx = lws_create_context(&info);
    if (!s->ctx) {
        cr_error_set(err, CR_EIO, 0, 0, "cannot listen on %s:%d (address in use, or TLS files bad?)",
                     info.iface ? info.iface : "*", cfg->port);
        goto fail;
    }
    cr_livechess_config lcc = {.max_message = s->cfg.max_message, .rate = s->cfg.rate};
    if (cfg->livechess_host && (bind_check(cfg->livechess_host, cfg->livechess_port, err) ||
                                !(s->livechess = cr_livechess_listen(
                                      s->ctx, cfg->livechess_host, cfg->livechess_port, &lcc, err)))) {
        lws_context_destroy(s->ctx);
        goto fail;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(s->ctx, "default");
    s->port = vh ? lws_get_vhost_listen_port(vh) : cfg->port;
    cr_queue_set_wake(pubs, wake_server, s);
    /* SIGINT/SIGTERM are for the caller's thread: never interrupt lws's poll. */
    sigset_t block, old_mask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old_mask);
    int rc = pthread_create(&s->thread, NULL, service_thread, s);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (rc) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "cannot start the server thread");
        lws_context_destroy(s->ctx);
        goto fail;
    }
    if (cr_queue_length(pubs)) {
        lws_cancel_service(s->ctx);
    }
    return s;
fail:
    for (int l = 0; l < LANE_NB; l++) {
        cr_view_free(s->views[l]);
    }
    cr_arbiter_view_free(s->arbiter);
    cr_limits_free(s->limits);
    cr_livechess_free(s->livechess);
    free(s->web_root);
    free(s);
    return NULL;
}

void cr_server_config_from(cr_server_config *scfg, const cr_config *t)
{
    memset(scfg, 0, sizeof *scfg);
    scfg->host = t->listen_host;
    scfg->port = t->listen_port;
    scfg->web_root = t->web_root;
    scfg->tls_cert = t->tls_cert;
    scfg->tls_key = t->tls_key;
    scfg->tournament = t;
    scfg->delay_s = t->delay_s;
    scfg->livechess_host = t->livechess ? t->livechess_host : NULL;
    scfg->livechess_port = t->livechess_port;
}

void cr_server_announce(const cr_server *s, const char *who, const char *port_file)
{
    const cr_config *t = s->cfg.tournament;
    int port = cr_server_port(s);
    cr_log(CR_LOG_INFO, "%slistening on %s://%s:%d (public delay %d s)", who,
           t->tls_cert ? "https" : "http", t->listen_host, port, t->delay_s);
    if (port_file) {
        FILE *f = fopen(port_file, "w");
        if (f) {
            fprintf(f, "%d\n", port);
            fclose(f);
        }
    }
}

int cr_server_port(const cr_server *s)
{
    return s->port;
}

void cr_server_stop(cr_server *s)
{
    if (!s) {
        return;
    }
    atomic_store(&s->stop, true);
    cr_queue_set_wake(s->pubs, NULL, NULL);
    lws_cancel_service(s->ctx);
    pthread_join(s->thread, NULL);
    lws_context_destroy(s->ctx); /* its connections' accounting goes to the limits: free them after */
    cr_limits_free(s->limits);
    cr_livechess_free(s->livechess); /* after the context, whose vhost used it */
    cr_buf_unref(s->boards_metrics);
    cr_buf_unref(s->boards_json);
    cr_buf_unref(s->pairings_json);
    cr_buf_unref(s->results_trf);
    cr_buf_unref(s->loop_metrics);
    for (int l = 0; l < LANE_NB; l++) {
        cr_view_free(s->views[l]);
    }
    cr_arbiter_view_free(s->arbiter);
    free(s->wbuf);
    free(s->flush);
    free(s->slots);
    free(s->web_root);
    free(s);
}
