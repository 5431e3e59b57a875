/* Tests of the broadcast pusher (relay/out/push.c) against a receiver on
 * 127.0.0.1 written with libevent's evhttp server, on the same event_base:
 * what arrives, change detection, coalescing, retries with back-off,
 * timeouts, permanent errors, Retry-After, a new URL, https. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef CR_TEST_TLS
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <openssl/ssl.h>
#endif

#include "core/config.h"
#include "util/log.h"
#include "out/outputs.h"
#include "out/push.h"
#include "test_util.h"

#define MAX_SEEN 16
#define HOLD (-1) /* script entry: never answer */
/* libevent times its timers with the coarse monotonic clock (a tick of up
 * to 4 ms on Linux): a timer may fire that much before cr_mono_us says. */
#define SLACK_US 5000

/* One script step: the status to answer the n-th request with, and extras. */
typedef struct step {
    int status;
    const char *body;
    const char *retry_after;
} step;

typedef struct receiver {
    struct event_base *base;
    struct evhttp *http;
    int port;
    step script[8]; /* answers in order; after the script: 200 */
    int nscript;
    int delay_ms; /* answer after this long (lets offers pile up meanwhile) */
    int count;
    char method[MAX_SEEN][8];
    char path[MAX_SEEN][128];
    char auth[MAX_SEEN][128];
    char ctype[MAX_SEEN][64];
    char host[MAX_SEEN][64];
    char *body[MAX_SEEN];
    int64_t at_us[MAX_SEEN];
#ifdef CR_TEST_TLS
    SSL_CTX *ssl;
#endif
} receiver;

typedef struct delayed_answer {
    struct evhttp_request *req;
    step s;
    struct event *ev;
} delayed_answer;

static void answer(struct evhttp_request *req, const step *s)
{
    struct evbuffer *out = evbuffer_new();
    evbuffer_add_printf(out, "%s", s->body ? s->body : "{\"ok\":true}");
    if (s->retry_after) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "Retry-After", s->retry_after);
    }
    evhttp_send_reply(req, s->status, s->status < 300 ? "OK" : "Nope", out);
    evbuffer_free(out);
}

static void on_delayed_answer(evutil_socket_t fd, short what, void *arg)
{
    delayed_answer *d = arg;
    answer(d->req, &d->s);
    event_free(d->ev);
    free(d);
}

static void on_request(struct evhttp_request *req, void *arg)
{
    receiver *rx = arg;
    int i = rx->count++;
    if (i < MAX_SEEN) {
        static const char *const names[] = {"GET", "POST", "HEAD", "PUT", "DELETE", "OPTIONS"};
        enum evhttp_cmd_type t = evhttp_request_get_command(req);
        const char *m = "?";
        for (int k = 0; k < 6; k++) {
            if (t == (enum evhttp_cmd_type)(1 << k)) {
                m = names[k];
            }
        }
        snprintf(rx->method[i], sizeof rx->method[i], "%s", m);
        snprintf(rx->path[i], sizeof rx->path[i], "%s", evhttp_request_get_uri(req));
        struct evkeyvalq *h = evhttp_request_get_input_headers(req);
        const char *v = evhttp_find_header(h, "Authorization");
        snprintf(rx->auth[i], sizeof rx->auth[i], "%s", v ? v : "");
        v = evhttp_find_header(h, "Content-Type");
        snprintf(rx->ctype[i], sizeof rx->ctype[i], "%s", v ? v : "");
        v = evhttp_find_header(h, "Host");
        snprintf(rx->host[i], sizeof rx->host[i], "%s", v ? v : "");
        struct evbuffer *in = evhttp_request_get_input_buffer(req);
        size_t n = evbuffer_get_length(in);
        rx->body[i] = calloc(1, n + 1);
        evbuffer_copyout(in, rx->body[i], n);
        rx->at_us[i] = cr_mono_us();
    }
    step s = {200, NULL, NULL};
    if (i < rx->nscript) {
        s = rx->script[i];
    }
    if (s.status == HOLD) {
        return; /* never answered: freed with the connection */
    }
    if (rx->delay_ms > 0) {
        delayed_answer *d = calloc(1, sizeof *d);
        d->req = req;
        d->s = s;
        d->ev = evtimer_new(rx->base, on_delayed_answer, d);
        struct timeval tv = {0, rx->delay_ms * 1000};
        evtimer_add(d->ev, &tv);
        return;
    }
    answer(req, &s);
}

#ifdef CR_TEST_TLS
static struct bufferevent *tls_bev(struct event_base *base, void *arg)
{
    receiver *rx = arg;
    return bufferevent_openssl_socket_new(base, -1, SSL_new(rx->ssl), BUFFEREVENT_SSL_ACCEPTING,
                                          BEV_OPT_CLOSE_ON_FREE);
}
#endif

static void receiver_start(receiver *rx, struct event_base *base, bool tls)
{
    memset(rx, 0, sizeof *rx);
    rx->base = base;
    rx->http = evhttp_new(base);
    assert_non_null(rx->http);
    evhttp_set_gencb(rx->http, on_request, rx);
    evhttp_set_allowed_methods(rx->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_PUT);
#ifdef CR_TEST_TLS
    if (tls) {
        rx->ssl = SSL_CTX_new(TLS_server_method());
        assert_int_equal(SSL_CTX_use_certificate_chain_file(rx->ssl, CR_TEST_DATA_DIR "/push/cert.pem"), 1);
        assert_int_equal(SSL_CTX_use_PrivateKey_file(rx->ssl, CR_TEST_DATA_DIR "/push/key.pem",
                                                     SSL_FILETYPE_PEM),
                         1);
        evhttp_set_bevcb(rx->http, tls_bev, rx);
    }
#else
    (void)tls;
#endif
    struct evhttp_bound_socket *s = evhttp_bind_socket_with_handle(rx->http, "127.0.0.1", 0);
    assert_non_null(s);
    struct sockaddr_in sin;
    socklen_t sl = sizeof sin;
    assert_int_equal(getsockname(evhttp_bound_socket_get_fd(s), (struct sockaddr *)&sin, &sl), 0);
    rx->port = ntohs(sin.sin_port);
}

static void receiver_stop(receiver *rx)
{
    evhttp_free(rx->http);
    for (int i = 0; i < MAX_SEEN; i++) {
        free(rx->body[i]);
    }
#ifdef CR_TEST_TLS
    SSL_CTX_free(rx->ssl);
#endif
}

static void url_for(char *buf, size_t size, const receiver *rx, const char *scheme, const char *path)
{
    snprintf(buf, size, "%s://127.0.0.1:%d%s", scheme, rx->port, path);
}

/* Runs the loop for ms milliseconds. */
static void run_for(struct event_base *base, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    event_base_loopexit(base, &tv);
    event_base_dispatch(base);
}

typedef bool (*cond_fn)(void *);

/* Runs the loop until cond holds (checked every 5 ms) or 3 s have passed. */
static bool run_until(struct event_base *base, cond_fn cond, void *arg)
{
    int64_t end = cr_mono_us() + 3000000;
    while (!cond(arg)) {
        if (cr_mono_us() > end) {
            return false;
        }
        run_for(base, 5);
    }
    return true;
}

typedef struct waiter {
    receiver *rx;
    const cr_pusher *p;
    int count;    /* requests the receiver must have seen */
    uint64_t ok;  /* pushes_ok at least */
    uint64_t failures;
} waiter;

static bool done(void *arg)
{
    waiter *w = arg;
    cr_pusher_stats st;
    cr_pusher_stats_get(w->p, NULL, &st);
    return w->rx->count >= w->count && st.pushes_ok >= w->ok && st.failures >= w->failures &&
           (w->ok == 0 || (!st.in_flight && !st.waiting));
}

static void wait_for(struct event_base *base, receiver *rx, const cr_pusher *p, int count, uint64_t ok,
                     uint64_t failures)
{
    waiter w = {rx, p, count, ok, failures};
    if (!run_until(base, done, &w)) {
        cr_pusher_stats st;
        cr_pusher_stats_get(p, NULL, &st);
        fail_msg("timed out waiting: %d requests (want %d), ok %llu (want %llu), failures %llu "
                 "(want %llu), last error '%s'",
                 rx->count, count, (unsigned long long)st.pushes_ok, (unsigned long long)ok,
                 (unsigned long long)st.failures, (unsigned long long)failures, st.last_error);
    }
}

static const char PGN_A[] = "[Event \"Test\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n"
                            "[Result \"*\"]\n\n1. e4 *\n\n";
static const char PGN_B[] = "[Event \"Test\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n"
                            "[Result \"*\"]\n\n1. e4 e5 *\n\n";
static const char PGN_C[] = "[Event \"Test\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n"
                            "[Result \"*\"]\n\n1. e4 e5 2. Nf3 *\n\n";
static const char PGN_D[] = "[Event \"Test\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n"
                            "[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n";

static void offer(cr_pusher *p, const char *round, const char *pgn)
{
    assert_int_equal(cr_pusher_offer(p, round, pgn, strlen(pgn)), 0);
}

static cr_pusher *fast_pusher(struct event_base *base)
{
    /* The timeout is generous so that a loaded machine (sanitizers, ctest -j)
     * does not turn a slow answer into a failure the tests do not expect. */
    cr_pusher_config cfg = {.timeout_ms = 2000, .backoff_base_ms = 20, .backoff_max_ms = 200,
                            .min_interval_ms = -1};
    cr_pusher *p = cr_pusher_new(base, &cfg);
    assert_non_null(p);
    return p;
}

/*----- tests -----*/

static void test_what_arrives(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    cr_pusher *p = fast_pusher(base);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/api/broadcast/round/abCD1234/push?x=1");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "lip_secret123"), 0);
    offer(p, "1", PGN_A);
    offer(p, "2", PGN_B); /* a round without a URL: ignored */
    wait_for(base, &rx, p, 1, 1, 0);
    run_for(base, 50);
    assert_int_equal(rx.count, 1);
    assert_string_equal(rx.method[0], "POST");
    assert_string_equal(rx.path[0], "/api/broadcast/round/abCD1234/push?x=1");
    assert_string_equal(rx.auth[0], "Bearer lip_secret123");
    assert_non_null(strstr(rx.ctype[0], "text/plain"));
    char host[64];
    snprintf(host, sizeof host, "127.0.0.1:%d", rx.port);
    assert_string_equal(rx.host[0], host);
    assert_string_equal(rx.body[0], PGN_A);

    cr_pusher_stats st;
    assert_int_equal(cr_pusher_stats_get(p, "1", &st), 0);
    assert_int_equal(st.pushes_ok, 1);
    assert_int_equal(st.failures, 0);
    assert_int_equal(st.last_status, 200);
    assert_true(st.last_push_us > 0);
    assert_string_equal(st.last_error, "");
    assert_int_equal(cr_pusher_stats_get(p, "2", &st), CR_EINVAL);

    /* lichess's 200 naming a game it could not read is kept (and logged). */
    rx.script[1] = (step){200, "{\"games\":[{\"tags\":{\"White\":\"A\"},\"moves\":1},"
                               "{\"tags\":{\"White\":\"C\"},\"error\":\"Invalid move: Nxe5\"}]}",
                          NULL};
    rx.nscript = 2;
    offer(p, "1", PGN_B);
    wait_for(base, &rx, p, 2, 2, 0);
    cr_pusher_stats_get(p, "1", &st);
    assert_non_null(strstr(st.game_error, "\"error\":\"Invalid move: Nxe5\""));
    offer(p, "1", PGN_A);
    wait_for(base, &rx, p, 3, 3, 0);
    cr_pusher_stats_get(p, "1", &st);
    assert_string_equal(st.game_error, "");

    /* No token: no Authorization header. */
    url_for(url, sizeof url, &rx, "http", "/open");
    assert_int_equal(cr_pusher_set_round(p, "1", url, NULL), 0);
    wait_for(base, &rx, p, 4, 4, 0);
    assert_string_equal(rx.path[3], "/open");
    assert_string_equal(rx.auth[3], "");
    assert_string_equal(rx.body[3], PGN_A); /* the new place gets the newest body */

    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

static void test_unchanged_not_resent(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    cr_pusher *p = fast_pusher(base);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "3.1", url, "t0ken-t0ken"), 0);
    offer(p, "3.1", PGN_A);
    wait_for(base, &rx, p, 1, 1, 0);
    offer(p, "3.1", PGN_A);
    offer(p, "3.1", PGN_A);
    run_for(base, 60);
    assert_int_equal(rx.count, 1);
    offer(p, "3.1", PGN_B);
    wait_for(base, &rx, p, 2, 2, 0);
    /* Back to A (a move taken back): A differs from what the host has now. */
    offer(p, "3.1", PGN_A);
    wait_for(base, &rx, p, 3, 3, 0);
    run_for(base, 50);
    assert_int_equal(rx.count, 3);
    assert_string_equal(rx.body[1], PGN_B);
    assert_string_equal(rx.body[2], PGN_A);
    /* Same URL and token again: nothing is re-sent. */
    assert_int_equal(cr_pusher_set_round(p, "3.1", url, "t0ken-t0ken"), 0);
    run_for(base, 50);
    assert_int_equal(rx.count, 3);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, NULL, &st);
    assert_int_equal(st.unchanged, 2);
    assert_int_equal(st.pushes_ok, 3);
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

static void test_coalescing(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    rx.delay_ms = 100; /* the first request stays in flight for 100 ms */
    cr_pusher *p = fast_pusher(base);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    offer(p, "1", PGN_A);
    waiter w = {&rx, p, 1, 0, 0};
    assert_true(run_until(base, done, &w)); /* A reached the receiver, no answer yet */
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_true(st.in_flight);
    offer(p, "1", PGN_B);
    run_for(base, 10);
    offer(p, "1", PGN_C);
    offer(p, "1", PGN_D);
    wait_for(base, &rx, p, 2, 2, 0);
    run_for(base, 150);
    assert_int_equal(rx.count, 2);
    assert_string_equal(rx.body[0], PGN_A);
    assert_string_equal(rx.body[1], PGN_D);
    cr_pusher_stats_get(p, "1", &st);
    assert_int_equal(st.coalesced, 2); /* B and C never left */
    assert_int_equal(st.pushes_ok, 2);
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

static void test_5xx_retried_with_backoff(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    rx.script[0] = (step){500, "oops", NULL};
    rx.script[1] = (step){503, "busy", NULL};
    rx.nscript = 2;
    cr_pusher *p = fast_pusher(base); /* back-off 20 ms, doubling: waits in [10,20], [20,40] */
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    offer(p, "1", PGN_A);
    wait_for(base, &rx, p, 3, 1, 2);
    assert_int_equal(rx.count, 3);
    for (int i = 0; i < 3; i++) {
        assert_string_equal(rx.body[i], PGN_A);
    }
    assert_true(rx.at_us[1] - rx.at_us[0] >= 10000 - SLACK_US);
    assert_true(rx.at_us[2] - rx.at_us[1] >= 20000 - SLACK_US);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_int_equal(st.failures, 2);
    assert_int_equal(st.retries, 2);
    assert_int_equal(st.pushes_ok, 1);
    assert_non_null(strstr(st.last_error, "HTTP 503: busy"));
    assert_non_null(strstr(st.last_error, "round 1"));
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

/* What a broadcaster alerts on: requests by outcome, retries, bytes, the
 * last success, and how long the host has lacked the newest PGN. */
static char *metrics_of(const cr_pusher *p)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    cr_pusher_metrics(p, f);
    assert_int_equal(fclose(f), 0);
    return text;
}

static void test_metrics(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    rx.script[0] = (step){500, "oops", NULL};
    rx.script[1] = (step){200, "{}", NULL};
    rx.script[2] = (step){401, "{\"error\":\"No such token\"}", NULL};
    rx.nscript = 3;
    cr_pusher *p = fast_pusher(base);
    char *text = metrics_of(p);
    assert_string_equal(text, ""); /* no round: nothing */
    free(text);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    assert_int_equal(cr_pusher_set_round(p, "r\"2", url, "t0ken-t0ken"), 0);
    assert_int_equal(cr_pusher_round_count(p), 2);
    assert_string_equal(cr_pusher_round_name(p, 1), "r\"2");
    assert_null(cr_pusher_round_name(p, 2));
    offer(p, "1", PGN_A);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_true(st.behind_since_us > 0); /* offered, not accepted yet */
    wait_for(base, &rx, p, 2, 1, 1);
    cr_pusher_stats_get(p, "1", &st);
    assert_int_equal(st.bytes_sent, 2 * strlen(PGN_A));
    assert_int_equal(st.behind_since_us, 0);
    text = metrics_of(p);
    char want[200];
    const char *const lines[] = {
        "chessrelay_push_requests_total{round=\"1\",result=\"ok\"} 1\n",
        "chessrelay_push_requests_total{round=\"1\",result=\"failed\"} 1\n",
        "chessrelay_push_requests_total{round=\"r\\\"2\",result=\"ok\"} 0\n",
        "chessrelay_push_retries_total{round=\"1\"} 1\n",
        "chessrelay_push_last_status{round=\"1\"} 200\n",
        "chessrelay_push_behind_seconds{round=\"1\"} 0.000\n",
        "chessrelay_push_retry_waiting{round=\"1\"} 0\n",
        "# TYPE chessrelay_push_bytes_total counter\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (!strstr(text, lines[i])) {
            fail_msg("'%s' not in:\n%s", lines[i], text);
        }
    }
    snprintf(want, sizeof want, "chessrelay_push_bytes_total{round=\"1\"} %zu\n", 2 * strlen(PGN_A));
    assert_non_null(strstr(text, want));
    /* One HELP per family, whatever the number of rounds. */
    const char *help = strstr(text, "# HELP chessrelay_push_requests_total ");
    assert_non_null(help);
    assert_null(strstr(help + 1, "# HELP chessrelay_push_requests_total "));
    free(text);

    /* Refused (a bad token): the host lacks the newest PGN, and the figure grows. */
    offer(p, "1", PGN_B);
    wait_for(base, &rx, p, 3, 1, 2);
    run_for(base, 30);
    cr_pusher_stats_get(p, "1", &st);
    assert_true(st.behind_since_us > 0);
    assert_int_equal(st.last_status, 401);
    text = metrics_of(p);
    const char *behind = strstr(text, "chessrelay_push_behind_seconds{round=\"1\"} ");
    assert_non_null(behind);
    assert_true(strtod(behind + strlen("chessrelay_push_behind_seconds{round=\"1\"} "), NULL) > 0.02);
    free(text);
    /* Totals: the oldest lag of the rounds. */
    cr_pusher_stats all;
    cr_pusher_stats_get(p, NULL, &all);
    assert_int_equal(all.behind_since_us, st.behind_since_us);
    assert_int_equal(all.bytes_sent, 2 * strlen(PGN_A) + strlen(PGN_B));
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

static void test_timeout(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    rx.script[0] = (step){HOLD, NULL, NULL};
    rx.nscript = 1;
    cr_pusher_config cfg = {.timeout_ms = 150, .backoff_base_ms = 20, .backoff_max_ms = 200,
                            .min_interval_ms = -1};
    cr_pusher *p = cr_pusher_new(base, &cfg);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    int64_t t0 = cr_mono_us();
    offer(p, "1", PGN_A);
    wait_for(base, &rx, p, 2, 1, 1);
    assert_true(rx.at_us[1] - t0 >= 150000 - SLACK_US);
    assert_string_equal(rx.body[1], PGN_A);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_true(st.failures >= 1); /* 1, unless a loaded machine slows the retry too */
    assert_int_equal(st.pushes_ok, 1);
    assert_non_null(strstr(st.last_error, "timed out"));
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

static void test_401_is_permanent(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    rx.script[0] = (step){401, "{\"error\":\"No such token\"}", NULL};
    rx.nscript = 1;
    cr_pusher *p = fast_pusher(base);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "wrong-token"), 0);
    offer(p, "1", PGN_A);
    wait_for(base, &rx, p, 1, 0, 1);
    run_for(base, 120); /* several back-off periods: no retry */
    offer(p, "1", PGN_A); /* the same PGN: still nothing */
    run_for(base, 50);
    assert_int_equal(rx.count, 1);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_int_equal(st.failures, 1);
    assert_int_equal(st.retries, 0);
    assert_false(st.waiting);
    assert_int_equal(st.last_status, 401);
    assert_non_null(strstr(st.last_error, "HTTP 401"));
    assert_non_null(strstr(st.last_error, "No such token"));
    /* A different PGN is sent at once. */
    offer(p, "1", PGN_B);
    wait_for(base, &rx, p, 2, 1, 1);
    assert_string_equal(rx.body[1], PGN_B);
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

static void test_429_retry_after(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    /* A date in the past means "now": only the back-off applies. */
    rx.script[0] = (step){429, "slow down", "Sun, 06 Nov 1994 08:49:37 GMT"};
    rx.script[1] = (step){429, "slow down", "1"};
    rx.nscript = 2;
    cr_pusher *p = fast_pusher(base);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    offer(p, "1", PGN_A);
    wait_for(base, &rx, p, 3, 1, 2);
    int64_t gap1 = rx.at_us[1] - rx.at_us[0], gap2 = rx.at_us[2] - rx.at_us[1];
    /* well under the second's 1 s (a loaded machine stretches the 10-20 ms) */
    assert_true(gap1 >= 10000 - SLACK_US && gap1 < 900000);
    /* Retry-After: 1 beats the 20-40 ms back-off. */
    assert_true(gap2 >= 1000000 - SLACK_US);
    assert_string_equal(rx.body[2], PGN_A);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_int_equal(st.failures, 2);
    assert_non_null(strstr(st.last_error, "HTTP 429"));
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

/* Nobody listens, then the URL is corrected: the newest body arrives. */
static void test_refused_then_new_url(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s, (struct sockaddr *)&sin, sizeof sin), 0);
    socklen_t sl = sizeof sin;
    getsockname(s, (struct sockaddr *)&sin, &sl);
    char dead[200];
    snprintf(dead, sizeof dead, "http://127.0.0.1:%d/push", ntohs(sin.sin_port));
    close(s); /* bound then closed: connections are refused */

    cr_pusher *p = fast_pusher(base);
    assert_int_equal(cr_pusher_set_round(p, "2", dead, "t0ken-t0ken"), 0);
    offer(p, "2", PGN_A);
    wait_for(base, &rx, p, 0, 0, 2);
    offer(p, "2", PGN_B);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "2", &st);
    assert_true(st.retries >= 1);
    assert_int_equal(st.pushes_ok, 0);
    assert_non_null(strstr(st.last_error, "round 2"));
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/fixed");
    assert_int_equal(cr_pusher_set_round(p, "2", url, "t0ken-t0ken"), 0);
    wait_for(base, &rx, p, 1, 1, 2);
    run_for(base, 50);
    assert_int_equal(rx.count, 1);
    assert_string_equal(rx.body[0], PGN_B);
    assert_string_equal(rx.path[0], "/fixed");
    /* No URL any more: offers are ignored. */
    assert_int_equal(cr_pusher_set_round(p, "2", NULL, NULL), 0);
    offer(p, "2", PGN_C);
    run_for(base, 50);
    assert_int_equal(rx.count, 1);
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

/* Two pushes of a round are min_interval apart; what came meanwhile goes
 * out together. */
static void test_min_interval(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    cr_pusher_config cfg = {.timeout_ms = 1000, .backoff_base_ms = 20, .min_interval_ms = 200};
    cr_pusher *p = cr_pusher_new(base, &cfg);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    offer(p, "1", PGN_A);
    wait_for(base, &rx, p, 1, 1, 0);
    offer(p, "1", PGN_B);
    run_for(base, 20);
    offer(p, "1", PGN_C);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_int_equal(rx.count, 1);
    assert_int_equal(st.coalesced, 1); /* B replaced by C while pacing */
    wait_for(base, &rx, p, 2, 2, 0);
    assert_true(rx.at_us[1] - rx.at_us[0] >= 190000);
    assert_string_equal(rx.body[1], PGN_C);
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

/* A full round (64 games of a few KB, lichess's limit) goes in one request. */
static void test_large_round(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    cr_pusher *p = fast_pusher(base);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    size_t len = 64 * 4096;
    char *big = malloc(len + 1);
    for (size_t i = 0; i < len; i++) {
        big[i] = (char)('a' + i % 26);
    }
    big[len] = '\0';
    assert_int_equal(cr_pusher_offer(p, "1", big, len), 0);
    wait_for(base, &rx, p, 1, 1, 0);
    assert_int_equal(strlen(rx.body[0]), len);
    assert_memory_equal(rx.body[0], big, len);
    free(big);
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

/* A host name goes through the asynchronous resolver (/etc/hosts here). */
static void test_host_name(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    cr_pusher *p = fast_pusher(base);
    char url[200];
    snprintf(url, sizeof url, "http://localhost:%d/by-name", rx.port);
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    offer(p, "1", PGN_B);
    wait_for(base, &rx, p, 1, 1, 0);
    assert_string_equal(rx.path[0], "/by-name");
    char host[64];
    snprintf(host, sizeof host, "localhost:%d", rx.port);
    assert_string_equal(rx.host[0], host);
    assert_string_equal(rx.body[0], PGN_B);
    cr_pusher_free(p);
    receiver_stop(&rx);
    event_base_free(base);
}

/* Freed with a request in flight and a retry waiting: nothing leaks. */
static void test_free_while_busy(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    rx.script[0] = (step){HOLD, NULL, NULL};
    rx.script[1] = (step){500, NULL, NULL};
    rx.nscript = 2;
    /* A long back-off, so that the retry is still waiting when freed. */
    cr_pusher_config cfg = {.timeout_ms = 5000, .backoff_base_ms = 5000, .min_interval_ms = -1};
    cr_pusher *p = cr_pusher_new(base, &cfg);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "t0ken-t0ken"), 0);
    assert_int_equal(cr_pusher_set_round(p, "2", url, "t0ken-t0ken"), 0);
    offer(p, "1", PGN_A);
    waiter w = {&rx, p, 1, 0, 0};
    assert_true(run_until(base, done, &w));
    offer(p, "2", PGN_B);
    waiter w2 = {&rx, p, 2, 0, 1};
    assert_true(run_until(base, done, &w2));
    cr_pusher_stats st;
    cr_pusher_stats_get(p, NULL, &st);
    assert_true(st.in_flight);
    assert_true(st.waiting);
    cr_pusher_free(p);
    run_for(base, 20);
    receiver_stop(&rx);
    event_base_free(base);
}

/*----- outputs.c: round PGN from the store to the pusher and the export folder -----*/

static void apply_event(cr_store *s, cr_outputs *o, cr_store_event *ev)
{
    cr_error err;
    if (cr_store_apply(s, ev, &err)) {
        fail_msg("apply: %s", err.text);
    }
    cr_outputs_changed(o, s, ev);
    cr_store_event_free(ev);
}

static void new_game(cr_store *s, cr_outputs *o, int id, int64_t seq, const char *round, int table,
                     const char *white)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    ev->seq = seq;
    ev->ts = seq * 1000;
    ev->game = id;
    snprintf(ev->board, sizeof ev->board, "B%d", id);
    snprintf(ev->round, sizeof ev->round, "%s", round);
    ev->table = table;
    cr_store_event_add_tag(ev, "Round", round);
    cr_store_event_add_tag(ev, "White", white);
    cr_store_event_add_tag(ev, "Black", "Somebody");
    apply_event(s, o, ev);
}

static void play(cr_store *s, cr_outputs *o, int id, int64_t seq, const char *uci)
{
    const cr_store_game *g = cr_store_find(s, id);
    cr_game *scratch = cr_game_clone(g->game);
    cr_move m = cr_move_from_uci(cr_game_position(scratch), uci);
    assert_int_equal(cr_game_push(scratch, m, 5000, seq * 1000, 0), 0);
    cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
    ev->seq = seq;
    ev->ts = seq * 1000;
    ev->game = id;
    ev->ply = cr_game_ply_count(scratch) - 1;
    ev->move = *cr_game_ply(scratch, ev->ply);
    cr_game_free(scratch);
    apply_event(s, o, ev);
}

static void test_outputs_round(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, false);
    char dir[] = "/tmp/cr_test_outputs_XXXXXX";
    assert_non_null(mkdtemp(dir));
    cr_pusher_config cfg = {.timeout_ms = 2000, .backoff_base_ms = 20, .min_interval_ms = -1};
    cr_outputs *o = cr_outputs_new(base, dir, &cfg);
    assert_non_null(o);
    char url[200];
    url_for(url, sizeof url, &rx, "http", "/round-1");
    assert_int_equal(cr_outputs_set_push(o, "1", url, "t0ken-t0ken"), 0);

    cr_store *s = cr_store_new();
    new_game(s, o, 1, 1, "1", 2, "Second, Table");
    new_game(s, o, 2, 2, "1", 1, "First, Table");
    new_game(s, o, 3, 3, "2", 1, "Other, Round");
    play(s, o, 1, 4, "e2e4");
    play(s, o, 2, 5, "d2d4");
    cr_outputs_flush(o, s);
    wait_for(base, &rx, cr_outputs_pusher(o), 1, 1, 0);

    /* One push for round 1 only, tables in order. */
    const char *t1 = strstr(rx.body[0], "First, Table");
    const char *t2 = strstr(rx.body[0], "Second, Table");
    assert_non_null(t1);
    assert_non_null(t2);
    assert_true(t1 < t2);
    assert_null(strstr(rx.body[0], "Other, Round"));
    assert_non_null(strstr(rx.body[0], "1. e4"));
    assert_non_null(strstr(rx.body[0], "1. d4"));

    char path[300];
    snprintf(path, sizeof path, "%s/round-1/games.pgn", dir);
    char *games = cr_test_read_file(path, NULL);
    assert_non_null(games);
    assert_string_equal(games, rx.body[0]);
    free(games);
    snprintf(path, sizeof path, "%s/round-1/game-1.pgn", dir);
    char *one = cr_test_read_file(path, NULL);
    assert_non_null(one);
    assert_non_null(strstr(one, "First, Table"));
    assert_null(strstr(one, "Second, Table"));
    free(one);
    snprintf(path, sizeof path, "%s/round-2/games.pgn", dir);
    char *r2 = cr_test_read_file(path, NULL);
    assert_non_null(r2);
    assert_non_null(strstr(r2, "Other, Round"));
    free(r2);
    /* The LiveChess layout's JSON: round-1's pairings in table order, names
     * split at the comma, live while begun and without a result. */
    snprintf(path, sizeof path, "%s/round-1/index.json", dir);
    char *index = cr_test_read_file(path, NULL);
    assert_non_null(index);
    json_error_t jerr;
    json_t *ij = json_loads(index, 0, &jerr);
    assert_non_null(ij);
    json_t *pairings = json_object_get(ij, "pairings");
    assert_int_equal(json_array_size(pairings), 2);
    json_t *w0 = json_object_get(json_array_get(pairings, 0), "white");
    assert_string_equal(json_string_value(json_object_get(w0, "lname")), "First");
    assert_string_equal(json_string_value(json_object_get(w0, "fname")), "Table");
    assert_true(json_is_null(json_object_get(w0, "title")));
    json_t *b0 = json_object_get(json_array_get(pairings, 0), "black");
    assert_string_equal(json_string_value(json_object_get(b0, "lname")), "Somebody");
    assert_true(json_is_null(json_object_get(b0, "fname")));
    assert_string_equal(json_string_value(json_object_get(json_array_get(pairings, 0), "result")), "*");
    assert_true(json_is_true(json_object_get(json_array_get(pairings, 0), "live")));
    json_decref(ij);
    free(index);
    snprintf(path, sizeof path, "%s/tournament.json", dir);
    char *tour = cr_test_read_file(path, NULL);
    assert_non_null(tour);
    json_t *tj = json_loads(tour, 0, &jerr);
    assert_non_null(tj);
    json_t *rounds = json_object_get(tj, "rounds");
    assert_int_equal(json_array_size(rounds), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rounds, 0), "count")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rounds, 0), "live")), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rounds, 1), "count")), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(rounds, 1), "live")), 0);
    json_decref(tj);
    free(tour);
    uint64_t written = cr_outputs_files_written(o);
    /* 2 rounds x (games.pgn, index.json) + 3 game files + tournament.json */
    assert_int_equal(written, 8);

    /* A clock event changes no PGN; a flush without changes does nothing. */
    cr_store_event *clk = cr_store_event_new(CR_SEV_CLOCK);
    clk->seq = 6;
    clk->ts = 6000;
    clk->game = 1;
    clk->white_ms = 1000;
    clk->black_ms = 2000;
    clk->running = CR_BLACK;
    apply_event(s, o, clk);
    cr_outputs_flush(o, s);
    run_for(base, 50);
    assert_int_equal(rx.count, 1);
    assert_int_equal(cr_outputs_files_written(o), written);

    /* A move in round 2 rewrites round 2 only (its game begun: live in its
     * index.json and in tournament.json); round 1 is not pushed again. */
    play(s, o, 3, 7, "c2c4");
    cr_outputs_flush(o, s);
    run_for(base, 50);
    assert_int_equal(rx.count, 1);
    assert_int_equal(cr_outputs_files_written(o), written + 4);

    /* After a rebuild every round is rendered again; unchanged: nothing sent. */
    cr_outputs_changed_all(o, s);
    cr_outputs_flush(o, s);
    run_for(base, 50);
    assert_int_equal(rx.count, 1);
    assert_int_equal(cr_outputs_files_written(o), written + 4);

    cr_store_free(s);
    cr_outputs_free(o);
    receiver_stop(&rx);
    event_base_free(base);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The tournament file's "push" and "export_dir" (relay/core/config.c). */
static void test_config_push(void **state)
{
    cr_error err;
    cr_config *c = cr_config_parse(
        "{\"push\": [{\"round\": 1, \"url\": \"http://127.0.0.1:9/api/broadcast/round/AbCd1234/push\","
        " \"token\": \"lip_x\"}, {\"round\": \"2.1\", \"url\": \"http://h.example/p?x=1\"}],"
        " \"export_dir\": \"out\"}",
        "t.json", "/base", &err);
    if (!c) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(c->push_count, 2);
    assert_string_equal(c->pushes[0].round, "1");
    assert_string_equal(c->pushes[0].url, "http://127.0.0.1:9/api/broadcast/round/AbCd1234/push");
    assert_string_equal(c->pushes[0].token, "lip_x");
    assert_string_equal(c->pushes[1].round, "2.1");
    assert_string_equal(c->pushes[1].token, "");
    assert_string_equal(c->export_dir, "/base/out");
    cr_config_free(c);

    static const struct {
        const char *json, *error;
    } bad[] = {
        {"{\"push\": {}}", "t.json: push: expected an array"},
        {"{\"push\": [{\"round\": \"1\", \"url\": \"ftp://x/\"}]}", "t.json: push[0].url: expected an http:// or https:// URL"},
        {"{\"push\": [{\"round\": \"1\"}]}", "t.json: push[0].url: missing"},
        {"{\"push\": [{\"url\": \"http://x/\"}]}", "t.json: push[0].round: missing"},
        {"{\"push\": [{\"round\": \"1\", \"url\": \"http://x/\", \"tokn\": \"t\"}]}", "t.json: push[0].tokn: unknown field"},
        {"{\"push\": [{\"round\": \"1\", \"url\": \"http://x/\"}, {\"round\": 1, \"url\": \"http://y/\"}]}",
         "t.json: push[1].round: this round already has a push entry"},
        {"{\"push\": [3]}", "t.json: push[0]: expected an object"},
        {"{\"export_dir\": \"\"}", "t.json: export_dir: empty path"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = cr_config_parse(bad[i].json, "t.json", NULL, &err);
        assert_null(c);
        if (strncmp(err.text, bad[i].error, strlen(bad[i].error)) != 0) {
            fail_msg("%s: got '%s', want '%s'", bad[i].json, err.text, bad[i].error);
        }
    }
}

static void test_bad_arguments(void **state)
{
    struct event_base *base = event_base_new();
    cr_pusher *p = fast_pusher(base);
    char why[160];
    assert_int_equal(cr_pusher_check_url("ftp://example.org/x", why, sizeof why), CR_EINVAL);
    assert_non_null(strstr(why, "http"));
    assert_int_equal(cr_pusher_check_url("http:///nohost", why, sizeof why), CR_EINVAL);
    assert_int_equal(cr_pusher_check_url("", why, sizeof why), CR_EINVAL);
    assert_int_equal(cr_pusher_check_url("lichess.org/api", why, sizeof why), CR_EINVAL);
    assert_int_equal(cr_pusher_check_url("http://h:70000/", why, sizeof why), CR_EINVAL);
    assert_int_equal(cr_pusher_check_url("http://h/a\nb", why, sizeof why), CR_EINVAL);
    assert_int_equal(cr_pusher_check_url("http://127.0.0.1:8080/x?y=1", NULL, 0), 0);
    assert_int_equal(cr_pusher_check_url("http://[::1]:8080/x", NULL, 0), 0);
    int https = cr_pusher_check_url("https://lichess.org/api/broadcast/round/abcdefgh/push",
                                    why, sizeof why);
    assert_int_equal(https, cr_pusher_https_supported() ? 0 : CR_EINVAL);
    assert_int_equal(cr_pusher_set_round(p, "1", "http://127.0.0.1:9/x", "a\r\nX-Evil: 1"),
                     CR_EINVAL);
    assert_int_equal(cr_pusher_set_round(p, "1", "gopher://x/", "t"), CR_EINVAL);
    assert_int_equal(cr_pusher_set_round(p, "a-round-name-much-longer-than-31-bytes", "http://x/", "t"),
                     CR_EINVAL);
    assert_int_equal(cr_pusher_offer(p, "1", NULL, 3), CR_EINVAL);
    assert_int_equal(cr_pusher_offer(p, "1", "abc", 3), 0); /* unknown round: ignored */
    cr_pusher_stats st;
    assert_int_equal(cr_pusher_stats_get(p, NULL, &st), 0);
    assert_int_equal(st.pushes_ok + st.failures, 0);
    cr_pusher_free(p);
    cr_pusher_free(NULL);
    assert_null(cr_pusher_new(NULL, NULL));
    event_base_free(base);
}

#ifdef CR_TEST_TLS
static void test_https(void **state)
{
    struct event_base *base = event_base_new();
    receiver rx;
    receiver_start(&rx, base, true);
    cr_pusher_config cfg = {.timeout_ms = 1000, .backoff_base_ms = 20, .backoff_max_ms = 40,
                            .min_interval_ms = -1, .ca_file = CR_TEST_DATA_DIR "/push/cert.pem"};
    cr_pusher *p = cr_pusher_new(base, &cfg);
    char url[200];
    url_for(url, sizeof url, &rx, "https", "/api/broadcast/round/abCD1234/push");
    assert_int_equal(cr_pusher_set_round(p, "1", url, "lip_tls"), 0);
    offer(p, "1", PGN_C);
    wait_for(base, &rx, p, 1, 1, 0);
    assert_string_equal(rx.body[0], PGN_C);
    assert_string_equal(rx.auth[0], "Bearer lip_tls");
    cr_pusher_free(p);

    /* Without the test CA the certificate is refused: a failure, no request. */
    cr_pusher_config untrusted = {.timeout_ms = 1000, .backoff_base_ms = 20, .backoff_max_ms = 40,
                                  .min_interval_ms = -1,
                                  .ca_file = CR_TEST_DATA_DIR "/push/README"};
    p = cr_pusher_new(base, &untrusted);
    assert_int_equal(cr_pusher_set_round(p, "1", url, "lip_tls"), 0);
    offer(p, "1", PGN_D);
    wait_for(base, &rx, p, 1, 0, 1);
    cr_pusher_stats st;
    cr_pusher_stats_get(p, "1", &st);
    assert_int_equal(st.pushes_ok, 0);
    assert_int_equal(rx.count, 1);
    cr_pusher_free(p);
    run_for(base, 20);
    receiver_stop(&rx);
    event_base_free(base);
}
#endif

int main(void)
{
    cr_log_set_level(getenv("PUSH_TEST_LOG") ? CR_LOG_DEBUG : CR_LOG_ERROR - 1); /* the failures here are expected: keep the output short */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_what_arrives),
        cmocka_unit_test(test_unchanged_not_resent),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_5xx_retried_with_backoff),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_metrics),
        cmocka_unit_test(test_401_is_permanent),
        cmocka_unit_test(test_429_retry_after),
        cmocka_unit_test(test_refused_then_new_url),
        cmocka_unit_test(test_host_name),
        cmocka_unit_test(test_large_round),
        cmocka_unit_test(test_min_interval),
        cmocka_unit_test(test_free_while_busy),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_outputs_round),
        cmocka_unit_test(test_config_push),
#ifdef CR_TEST_TLS
        cmocka_unit_test(test_https),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
