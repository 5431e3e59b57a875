/* chessrelay relay: the server's HTTP side: the viewer page or web root,
 * live PGN, /healthz, /metrics, the arbiters' HTTP API. */
#include "net/server_private.h"

#include <errno.h>
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent_link.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/sign.h"
#include "net/static_files.h"
#include "net/view.h"

/*----- HTTP -----*/

static const char builtin_page[] =
    "<!doctype html><html><head><meta charset=\"utf-8\"><title>chessrelay</title></head>\n"
    "<body><h1>chessrelay</h1><p>The web app is not built (run <code>npm ci &amp;&amp; npm run "
    "build</code> in <code>web/</code>, or set <code>web_root</code>).</p>\n"
    "<p>The relay runs: <a href=\"/live.pgn\">live PGN</a>, <a href=\"/games.json\">games</a>, "
    "<a href=\"/metrics\">metrics</a>; WebSocket at <code>/ws</code>.</p></body></html>\n";

static void http_date(int64_t us, char *buf, size_t size)
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, size, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

/* Sends status, headers and (later, in HTTP_WRITEABLE) the body. Takes body.
 * modified_us: Last-Modified (0: none). etag: adds an ETag and answers 304
 * when If-None-Match has it. */
static int http_respond(cr_server *s, struct lws *wsi, pss *p, unsigned status, const char *ctype,
                        cr_buf *body, int64_t modified_us, bool etag)
{
    (void)s;
    unsigned char hbuf[LWS_PRE + 2048];
    unsigned char *start = hbuf + LWS_PRE, *q = start, *end = hbuf + sizeof hbuf - 1;
    char tag[40] = "", inm[128] = "";
    size_t len = body ? body->len : 0;
    if (etag && body) {
        snprintf(tag, sizeof tag, "\"%016" PRIx64 "\"", cr_fnv1a(body->data, body->len));
        if (lws_hdr_copy(wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0 &&
            (strstr(inm, tag) || strcmp(inm, "*") == 0)) {
            status = HTTP_STATUS_NOT_MODIFIED;
            len = 0;
        }
    }
    if (lws_add_http_common_headers(
            wsi, status, ctype,
            status == HTTP_STATUS_NOT_MODIFIED ? LWS_ILLEGAL_HTTP_CONTENT_LEN : len, &q, end)) {
        cr_buf_unref(body);
        return 1;
    }
    if (tag[0] && lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_ETAG, (unsigned char *)tag,
                                               (int)strlen(tag), &q, end)) {
        cr_buf_unref(body);
        return 1;
    }
    if (modified_us > 0) {
        char date[64];
        http_date(modified_us, date, sizeof date);
        if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_LAST_MODIFIED, (unsigned char *)date,
                                         (int)strlen(date), &q, end)) {
            cr_buf_unref(body);
            return 1;
        }
    }
    static const char nocache[] = "no-cache";
    static const char any[] = "*";
    if (lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CACHE_CONTROL,
                                     (const unsigned char *)nocache, (int)strlen(nocache), &q,
                                     end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"access-control-allow-origin:",
                                    (const unsigned char *)any, 1, &q, end) ||
        lws_finalize_write_http_header(wsi, start, &q, end)) {
        cr_buf_unref(body);
        return 1;
    }
    if (len == 0) {
        cr_buf_unref(body);
        return cr_srv_http_done(s, wsi);
    }
    p->kind = PSS_HTTP;
    p->body = body;
    p->off = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

static int http_text(cr_server *s, struct lws *wsi, pss *p, unsigned status, const char *text)
{
    return http_respond(s, wsi, p, status, "text/plain; charset=utf-8",
                        cr_buf_new(text, strlen(text)), 0, false);
}

/* The signatures' public key and latest checkpoints (util/sign.h): public,
 * so that anyone can keep them and check a copy of the journal later. */
static int journal_keys(cr_server *s, struct lws *wsi, pss *p, const char *uri)
{
    char text[4096], pub[2 * CR_SIGN_PUB_BYTES + 1];
    if (!cr_signer_pub(pub)) {
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND,
                         "not signed: the relay runs without --signing-key\n");
    }
    if (strcmp(uri, "/journal/pubkey") == 0) {
        snprintf(text, sizeof text, "%s\n", pub);
    } else {
        cr_signer_head(text, sizeof text);
    }
    return http_text(s, wsi, p, HTTP_STATUS_OK, text);
}

int cr_srv_http_done(cr_server *s, struct lws *wsi)
{
    cr_srv_flush_later(s, wsi);
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

int cr_srv_http_writeable(cr_server *s, struct lws *wsi, pss *p)
{
    if (p->kind != PSS_HTTP || !p->body) {
        return 0;
    }
    unsigned char buf[LWS_PRE + HTTP_CHUNK];
    size_t left = p->body->len - p->off;
    size_t n = left < HTTP_CHUNK ? left : HTTP_CHUNK;
    memcpy(buf + LWS_PRE, p->body->data + p->off, n);
    bool last = n == left;
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n) {
        return -1;
    }
    p->off += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    cr_buf_unref(p->body);
    p->body = NULL;
    return cr_srv_http_done(s, wsi);
}

static cr_buf *metrics_text(cr_server *s)
{
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    if (!f) {
        return NULL;
    }
    fprintf(f,
            "# HELP chessrelay_boards_connected Boards whose link is up.\n"
            "# TYPE chessrelay_boards_connected gauge\nchessrelay_boards_connected %d\n"
            "# HELP chessrelay_boards_known Boards seen since the start.\n"
            "# TYPE chessrelay_boards_known gauge\nchessrelay_boards_known %d\n"
            "# HELP chessrelay_viewers WebSocket connections.\n"
            "# TYPE chessrelay_viewers gauge\nchessrelay_viewers %d\n"
            "# HELP chessrelay_viewers_trusted Connections with a valid token.\n"
            "# TYPE chessrelay_viewers_trusted gauge\nchessrelay_viewers_trusted %d\n"
            "# HELP chessrelay_games Games in the store.\n"
            "# TYPE chessrelay_games gauge\nchessrelay_games %d\n"
            "# HELP chessrelay_events_total Events broadcast.\n"
            "# TYPE chessrelay_events_total counter\nchessrelay_events_total %" PRIu64 "\n"
            "# HELP chessrelay_events_per_second Events broadcast per second (last second).\n"
            "# TYPE chessrelay_events_per_second gauge\nchessrelay_events_per_second %.2f\n"
            "# HELP chessrelay_messages_sent_total WebSocket messages sent.\n"
            "# TYPE chessrelay_messages_sent_total counter\nchessrelay_messages_sent_total %" PRIu64
            "\n"
            "# HELP chessrelay_messages_received_total WebSocket messages received.\n"
            "# TYPE chessrelay_messages_received_total counter\n"
            "chessrelay_messages_received_total %" PRIu64 "\n"
            "# HELP chessrelay_refused_total Refused client messages by reason.\n"
            "# TYPE chessrelay_refused_total counter\n"
            "chessrelay_refused_total{reason=\"token\"} %" PRIu64 "\n"
            "chessrelay_refused_total{reason=\"message\"} %" PRIu64 "\n"
            "chessrelay_refused_total{reason=\"rate\"} %" PRIu64 "\n"
            "# HELP chessrelay_resnapshots_total Slow viewers sent fresh snapshots.\n"
            "# TYPE chessrelay_resnapshots_total counter\nchessrelay_resnapshots_total %" PRIu64
            "\n"
            "# HELP chessrelay_commands_total Arbiter/agent commands passed to the loop.\n"
            "# TYPE chessrelay_commands_total counter\nchessrelay_commands_total %" PRIu64 "\n"
            "# HELP chessrelay_http_requests_total HTTP requests.\n"
            "# TYPE chessrelay_http_requests_total counter\nchessrelay_http_requests_total %" PRIu64
            "\n"
            "# HELP chessrelay_journal_syncs_total Journal fsyncs (group commits).\n"
            "# TYPE chessrelay_journal_syncs_total counter\nchessrelay_journal_syncs_total %" PRId64
            "\n",
            s->boards_online, s->boards_known, s->nviewers, s->ntrusted,
            cr_view_game_count(s->views[LANE_LIVE]), s->events_total, s->events_per_s,
            s->messages_sent, s->messages_in, s->refused_token, s->refused_message, s->refused_rate,
            s->resnapshots, s->commands, s->http_requests, s->journal_syncs);
    if (s->limits) {
        cr_limits_metrics(s->limits, f);
    }
    fprintf(f, "# HELP chessrelay_delivery_latency_seconds From an event's ts to its write to a "
               "viewer (public delay excluded).\n"
               "# TYPE chessrelay_delivery_latency_seconds histogram\n");
    uint64_t cum = 0;
    for (size_t i = 0; i <= LATENCY_NB; i++) {
        cum += s->latency_buckets[i];
        if (i < LATENCY_NB) {
            fprintf(f, "chessrelay_delivery_latency_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
                    cr_srv_latency_bounds[i], cum);
        } else {
            fprintf(f, "chessrelay_delivery_latency_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n",
                    cum);
        }
    }
    fprintf(f, "chessrelay_delivery_latency_seconds_sum %.6f\n", s->latency_sum);
    fprintf(f, "chessrelay_delivery_latency_seconds_count %" PRIu64 "\n", s->latency_count);
    if (s->boards_metrics) {
        fwrite(s->boards_metrics->data, 1, s->boards_metrics->len, f);
    }
    if (s->loop_metrics) {
        fwrite(s->loop_metrics->data, 1, s->loop_metrics->len, f);
    }
    fclose(f);
    return cr_buf_take_str(out);
}

/* Only plain names under the web root: no "..", no hidden files, and the
 * resolved path (symlinks followed) must stay inside the root. */
static int serve_static(cr_server *s, struct lws *wsi, pss *p, const char *uri)
{
    if (!s->web_root) {
        if (strcmp(uri, "/") == 0 || strcmp(uri, "/index.html") == 0) {
            return http_respond(s, wsi, p, HTTP_STATUS_OK, "text/html; charset=utf-8",
                                cr_buf_new(builtin_page, strlen(builtin_page)), 0, false);
        }
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "not found\n");
    }
    const char *rel = strcmp(uri, "/") == 0 ? "/index.html" : uri;
    bool ok = rel[0] == '/' && strlen(rel) < 1024 && !strchr(rel, '\\');
    for (const char *c = rel; ok && *c; c++) {
        if (c[0] == '/' && (c[1] == '.' || c[1] == '/')) {
            ok = false;
        }
    }
    if (!ok) {
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "not found\n");
    }
    char path[PATH_MAX + 1100], real[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", s->web_root, rel);
    struct stat st;
    if (!realpath(path, real) || stat(real, &st) || !S_ISREG(st.st_mode) ||
        strncmp(real, s->web_root, strlen(s->web_root)) || real[strlen(s->web_root)] != '/') {
        /* A client-side route (no extension) gets the app itself. */
        const char *last = strrchr(rel, '/');
        if (!strchr(last, '.')) {
            snprintf(path, sizeof path, "%s/index.html", s->web_root);
            if (realpath(path, real) && stat(real, &st) == 0 && S_ISREG(st.st_mode)) {
                goto serve;
            }
        }
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "not found\n");
    }
serve:;
    int n = cr_static_serve(wsi, s->web_root, real);
    if (n == 1) {
        return http_text(s, wsi, p, 406 /* Not Acceptable */,
                         "no content coding you accept (Accept-Encoding)\n");
    }
    return n == 2 ? cr_srv_http_done(s, wsi) : n;
}

/* /tournament.json: what the viewers get of the tournament file (event,
 * streams, players' cards); /media/photo/<index>: a player's photo file. */
static int serve_media(cr_server *s, struct lws *wsi, pss *p, const char *uri)
{
    const cr_config *t = s->cfg.tournament;
    if (uri[1] == 't') {
        char *text = t ? cr_config_viewer_json(t) : NULL;
        cr_buf *body = text ? cr_buf_new(text, strlen(text)) : cr_buf_new("null", 4);
        free(text);
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json", body, 0, false);
    }
    char *end;
    long i = strtol(uri + 13, &end, 10);
    const char *file = t && uri[13] >= '0' && uri[13] <= '9' && !*end && i < t->player_count
                           ? t->players[i].photo_file : NULL;
    char dir[PATH_MAX], real[PATH_MAX];
    struct stat st;
    if (!file || !realpath(file, real) || stat(real, &st) || !S_ISREG(st.st_mode)) {
        return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "no such photo\n");
    }
    snprintf(dir, sizeof dir, "%s", real);
    *strrchr(dir, '/') = '\0'; /* realpath's answer is absolute */
    int n = cr_static_serve(wsi, dir, real);
    if (n == 1) {
        return http_text(s, wsi, p, 406, "no content coding you accept (Accept-Encoding)\n");
    }
    return n == 2 ? cr_srv_http_done(s, wsi) : n;
}

int cr_srv_http_request(cr_server *s, struct lws *wsi, pss *p, const char *uri)
{
    s->http_requests++;
    p->kind = PSS_HTTP;
    cr_srv_request(s, wsi);
    char token[300];
    cr_srv_auth auth = cr_srv_bearer_token(wsi, token, sizeof token);
    int lane = LANE_PUBLIC;
    const char *role = NULL;
    if (auth == CR_AUTH_TOO_LARGE || auth == CR_AUTH_BAD) {
        s->refused_token++;
        return auth == CR_AUTH_BAD
                   ? http_text(s, wsi, p, HTTP_STATUS_UNAUTHORIZED, "expected Bearer <token>\n")
                   : http_text(s, wsi, p, 431 /* Request Header Fields Too Large */,
                               "Authorization header too large\n");
    }
    if (s->limits && cr_limits_over(s->limits, wsi)) {
        return http_text(s, wsi, p, HTTP_STATUS_SERVICE_UNAVAILABLE,
                         "too many connections, try again later\n");
    }
    if (auth == CR_AUTH_TOKEN) {
        bool throttled;
        role = cr_srv_check_token(s, wsi, token, &throttled, NULL);
        if (throttled) {
            return http_text(s, wsi, p, 429, "too many wrong tokens from this address\n");
        }
        if (role) {
            /* Only an arbiter's token opens the undelayed lane. */
            lane = cr_srv_role_arbiter(role) ? LANE_LIVE : LANE_PUBLIC;
        } else {
            return http_text(s, wsi, p, HTTP_STATUS_UNAUTHORIZED, "wrong token\n");
        }
    }
    if (!lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI)) {
        return http_text(s, wsi, p, HTTP_STATUS_METHOD_NOT_ALLOWED, "only GET\n");
    }
    cr_view *v = s->views[lane];
    if (strcmp(uri, "/arbiter/results.trf") == 0) { /* for the pairing program */
        if (!cr_srv_role_arbiter(role)) {
            return http_text(s, wsi, p, HTTP_STATUS_UNAUTHORIZED, "arbiter token required\n");
        }
        if (!s->results_trf) {
            return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND,
                             "no round played from a TRF pairings file\n");
        }
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "text/plain",
                            cr_buf_ref(s->results_trf), 0, false);
    }
    if (strncmp(uri, "/arbiter/", 9) == 0) {
        int status = 404;
        const char *ctype = "text/plain; charset=utf-8";
        cr_buf *b = s->arbiter ? cr_arbiter_view_http(s->arbiter, uri, cr_srv_role_arbiter(role),
                                                      &status, &ctype)
                               : cr_buf_new("no arbiter monitoring\n", 22);
        return http_respond(s, wsi, p, (unsigned)status, ctype, b, 0, false);
    }
    if (strcmp(uri, "/healthz") == 0) {
        if (s->problem[0]) {
            char text[sizeof s->problem + 1];
            snprintf(text, sizeof text, "%s\n", s->problem);
            return http_text(s, wsi, p, HTTP_STATUS_SERVICE_UNAVAILABLE, text);
        }
        return s->ready ? http_text(s, wsi, p, HTTP_STATUS_OK, "ok\n")
                        : http_text(s, wsi, p, HTTP_STATUS_SERVICE_UNAVAILABLE, "starting\n");
    }
    if (strcmp(uri, "/journal/pubkey") == 0 || strcmp(uri, "/journal/head") == 0) {
        return journal_keys(s, wsi, p, uri);
    }
    if (strcmp(uri, "/metrics") == 0) {
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "text/plain; version=0.0.4", metrics_text(s),
                            0, false);
    }
    if (strcmp(uri, "/games.json") == 0) {
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json",
                            cr_view_games_array(v, NULL), cr_view_modified(v, NULL), true);
    }
    if (strcmp(uri, "/boards.json") == 0) { /* live boards' link health */
        cr_buf *body = s->boards_json ? cr_buf_ref(s->boards_json) : cr_buf_new("[]", 2);
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json", body, 0, false);
    }
    if (strcmp(uri, "/pairings.json") == 0) { /* the pairings file, for the standings */
        cr_buf *body = s->pairings_json ? cr_buf_ref(s->pairings_json) : cr_buf_new("null", 4);
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json", body, 0, false);
    }
    if (strcmp(uri, "/tournament.json") == 0 || strncmp(uri, "/media/photo/", 13) == 0) {
        return serve_media(s, wsi, p, uri); /* streams and players' cards (core/config_media.h) */
    }
    if (strcmp(uri, "/live.pgn") == 0) {
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/x-chess-pgn",
                            cr_view_pgn(v, NULL), cr_view_modified(v, NULL), true);
    }
    size_t n = strlen(uri);
    if (strncmp(uri, "/round/", 7) == 0 && n > 11 && strcmp(uri + n - 4, ".pgn") == 0 &&
        n - 11 < CR_ROUND_MAX) {
        char round[CR_ROUND_MAX];
        memcpy(round, uri + 7, n - 11);
        round[n - 11] = '\0';
        cr_buf *b = cr_view_pgn(v, round);
        if (!b) {
            return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "no such round\n");
        }
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/x-chess-pgn", b,
                            cr_view_modified(v, round), true);
    }
    if (strncmp(uri, "/game/", 6) == 0 && n > 10 && strcmp(uri + n - 4, ".pgn") == 0) {
        char *end;
        long id = strtol(uri + 6, &end, 10);
        const cr_view_game *g =
            end == uri + n - 4 && id > 0 && id < INT_MAX ? cr_view_find(v, (int)id) : NULL;
        if (!g || !g->pgn) {
            return http_text(s, wsi, p, HTTP_STATUS_NOT_FOUND, "no such game\n");
        }
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/x-chess-pgn",
                            cr_buf_ref(g->pgn), g->modified_us, true);
    }
    if (strcmp(uri, "/agents.json") == 0 && s->cfg.agents) { /* agent_link.h */
        return http_respond(s, wsi, p, HTTP_STATUS_OK, "application/json",
                            cr_agent_link_status_json(s->cfg.agents), 0, false);
    }
    if (strcmp(uri, "/ws") == 0) {
        return http_text(s, wsi, p, 426, "WebSocket upgrade required\n");
    }
    return serve_static(s, wsi, p, uri);
}
