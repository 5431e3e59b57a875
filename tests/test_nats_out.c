/* relay/nats_out: subject tokens, the command-line options, the
 * publisher with no NATS server reachable (events are held, never
 * blocking the caller; the backlog bound drops the oldest; stop returns at
 * once), and with a real nats-server on 127.0.0.1 driven through the
 * libevent loop: every event acknowledged once, also across a server
 * killed and started again. (Edges: tests/e2e/nats_*.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <netinet/in.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/thread.h>

#include <cmocka.h>

#include "util/log.h"
#include "out/nats_out.h"
#include "core/store.h"

static void test_token(void **state)
{
    (void)state;
    char out[CR_NATS_TOKEN_MAX];
    cr_nats_token("T16.2", out);
    assert_string_equal(out, "T16_2");
    cr_nats_token("Club Championship 2026", out);
    assert_string_equal(out, "Club_Championship_2026");
    cr_nats_token("a*b>c d\te", out);
    assert_string_equal(out, "a_b_c_d_e");
    cr_nats_token("", out);
    assert_string_equal(out, "_");
    cr_nats_token(NULL, out);
    assert_string_equal(out, "_");
    cr_nats_token("ok-_09AZaz", out);
    assert_string_equal(out, "ok-_09AZaz");
    char long_name[200];
    memset(long_name, 'x', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    cr_nats_token(long_name, out);
    assert_int_equal(strlen(out), CR_NATS_TOKEN_MAX - 1);
    cr_nats_token("caf\xc3\xa9", out); /* UTF-8 bytes are not token characters */
    assert_string_equal(out, "caf__");
}

static void test_options(void **state)
{
    (void)state;
    cr_nats_out_config c;
    memset(&c, 0, sizeof c);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--listen", "x"), 0);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--publish", "nats://h:4222,nats://g:4222"),
                     1);
    assert_string_equal(c.url, "nats://h:4222,nats://g:4222");
    assert_int_equal(cr_nats_out_option(&c, "serve", "--publish", "http://h:4222"), -1);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--publish-tournament", "oslo"), 1);
    assert_string_equal(c.tournament, "oslo");
    assert_int_equal(cr_nats_out_option(&c, "serve", "--publish-tournament", ""), -1);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--stream", "CHESS_1"), 1);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--stream", "A.B"), -1);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--stream-replicas", "3"), 1);
    assert_int_equal(c.replicas, 3);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--stream-replicas", "0"), -1);
    assert_int_equal(cr_nats_out_option(&c, "serve", "--stream-replicas", "3x"), -1);
}

/* A port with nothing listening: bound then closed. */
/* A port with nothing on it that must be named before a server starts (the
 * server restarts on it): from below the kernel's ephemeral range, where
 * no port-0 bind or outgoing connection of another test is given one, and
 * checked free. */
static int dead_port(void)
{
    int lo = 32768;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f) {
        if (fscanf(f, "%d", &lo) != 1) {
            lo = 32768;
        }
        fclose(f);
    }
    unsigned seed = (unsigned)getpid() ^ (unsigned)time(NULL);
    for (int i = 0; i < 200; i++) {
        int port = lo - 1 - (int)(rand_r(&seed) % 12000u);
        if (port < 1024) {
            continue;
        }
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons((uint16_t)port);
        int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
        close(fd);
        if (rc == 0) {
            return port;
        }
    }
    fail_msg("no free port below %d", lo);
    return -1;
}

/* Game 1 (seq 1) in s, handed to p; the caller frees the event. */
static cr_store_event *add_game(cr_nats_out *p, cr_store *s)
{
    cr_error err;
    cr_store_event *g = cr_store_event_new(CR_SEV_GAME);
    g->seq = 1;
    g->game = 1;
    snprintf(g->board, sizeof g->board, "T1.1");
    snprintf(g->round, sizeof g->round, "1");
    assert_int_equal(cr_store_apply(s, g, &err), 0);
    cr_nats_out_event(p, s, g, NULL);
    return g;
}

/* Status events seq from .. from + n - 1 of game 1, handed to p. */
static void add_events(cr_nats_out *p, cr_store *s, int64_t from, int n)
{
    cr_error err;
    for (int i = 0; i < n; i++) {
        cr_store_event *ev = cr_store_event_new(CR_SEV_STATUS);
        ev->seq = from + i;
        ev->game = 1;
        ev->online = i % 2;
        assert_int_equal(cr_store_apply(s, ev, &err), 0);
        cr_nats_out_event(p, s, ev, NULL);
        cr_store_event_free(ev);
    }
}

static void test_held_without_server(void **state)
{
    (void)state;
    cr_log_set_level(CR_LOG_ERROR);
    char url[64];
    snprintf(url, sizeof url, "nats://127.0.0.1:%d", dead_port());
    cr_nats_out_config c;
    memset(&c, 0, sizeof c);
    c.url = url;
    c.drain_ms = 100;
    c.backlog_bytes = 4096; /* a few dozen events */
    cr_error err;
    struct event_base *base = event_base_new();
    assert_non_null(base);
    cr_nats_out *p = cr_nats_out_start(&c, base, "Test Event", 0, &err);
    if (!p) {
        fail_msg("start: %s", err.text);
    }
    cr_store *s = cr_store_new();
    cr_store_event *g = add_game(p, s);
    int64_t t0 = cr_mono_us();
    add_events(p, s, 2, 1000);
    /* Handing over never waits for the network. */
    assert_true(cr_mono_us() - t0 < 2000000);
    cr_nats_out_stats st;
    cr_nats_out_get_stats(p, &st);
    assert_false(st.connected);
    assert_true(st.queued == 1001);
    assert_int_equal(st.sent, 0);
    assert_int_equal(st.acked, 0);
    /* bounded: the oldest went */
    assert_true(st.dropped > 0);
    assert_true((int64_t)st.held + st.dropped == 1001);
    assert_true(st.held * 60 < 4096 + 200);
    cr_nats_out_event(NULL, s, g, NULL); /* no publisher: nothing */
    t0 = cr_mono_us();
    cr_nats_out_stop(p); /* nothing to wait for: not connected */
    assert_true(cr_mono_us() - t0 < 1000000);
    cr_store_event_free(g);
    cr_store_free(s);
    event_base_free(base);
}

/*----- with a real server -----*/

typedef struct server {
    pid_t pid;
    int port;
    char dir[64];
} server;

static bool port_open(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
    close(fd);
    return ok;
}

static void server_start(server *sv)
{
    char port[16], store[96];
    snprintf(port, sizeof port, "%d", sv->port);
    snprintf(store, sizeof store, "%s/js", sv->dir);
    sv->pid = fork();
    assert_true(sv->pid >= 0);
    if (sv->pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a test that failed */
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execlp("nats-server", "nats-server", "-a", "127.0.0.1", "-p", port, "-js", "-sd", store,
               (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200 && !port_open(sv->port); i++) {
        usleep(25000);
    }
    if (!port_open(sv->port)) {
        fail_msg("nats-server did not start on 127.0.0.1:%d (is nats-server installed?)", sv->port);
    }
}

/* SIGTERM: a single server only keeps what it flushed (a SIGKILL may lose
 * acknowledged messages; clusters replicate for that: e2e_nats_cluster). */
static void server_stop(server *sv)
{
    kill(sv->pid, SIGTERM);
    waitpid(sv->pid, NULL, 0);
    sv->pid = 0;
}

typedef struct run_until {
    cr_nats_out *p;
    struct event_base *base;
    int64_t want_acked, deadline;
} run_until;

static void on_check(evutil_socket_t fd, short what, void *arg)
{
    run_until *u = arg;
    cr_nats_out_stats st;
    cr_nats_out_get_stats(u->p, &st);
    if (st.acked_seq >= u->want_acked || cr_mono_us() > u->deadline) {
        event_base_loopbreak(u->base);
    }
}

/* Runs the loop until every event up to seq want is acknowledged (or 20 s). */
static void run_loop(struct event_base *base, cr_nats_out *p, int64_t want)
{
    run_until u = {p, base, want, cr_mono_us() + 20000000};
    struct event *ev = event_new(base, -1, EV_PERSIST, on_check, &u);
    struct timeval t = {0, 20000};
    event_add(ev, &t);
    event_base_dispatch(base);
    event_free(ev);
}

/* The stream's message count and the Cr-Seq of its last message of the
 * tournament, read over a connection of libnats' own threads. */
static void stream_state(int port, uint64_t *msgs, int64_t *last_seq)
{
    char url[64];
    snprintf(url, sizeof url, "nats://127.0.0.1:%d", port);
    natsConnection *nc = NULL;
    jsCtx *js = NULL;
    assert_int_equal(natsConnection_ConnectTo(&nc, url), NATS_OK);
    assert_int_equal(natsConnection_JetStream(&js, nc, NULL), NATS_OK);
    jsStreamInfo *si = NULL;
    assert_int_equal(js_GetStreamInfo(&si, js, CR_NATS_STREAM, NULL, NULL), NATS_OK);
    *msgs = si->State.Msgs;
    jsStreamInfo_Destroy(si);
    natsMsg *m = NULL;
    assert_int_equal(js_GetLastMsg(&m, js, CR_NATS_STREAM, "chessrelay.Unit_Test.>", NULL, NULL),
                     NATS_OK);
    const char *v = NULL;
    assert_int_equal(natsMsgHeader_Get(m, CR_NATS_HDR_SEQ, &v), NATS_OK);
    *last_seq = strtoll(v, NULL, 10);
    natsMsg_Destroy(m);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
}

/* The test's server; the teardown stops it and removes its store also
 * when an assertion failed half-way. */
static server sv;

static int stop_server(void **state)
{
    (void)state;
    if (sv.pid > 0) {
        server_stop(&sv);
    }
    if (sv.dir[0]) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", sv.dir);
        if (system(cmd) != 0) {
            return -1;
        }
        sv.dir[0] = '\0';
    }
    return 0;
}

static void test_acked_through_the_loop(void **state)
{
    (void)state;
    cr_log_set_level(getenv("CR_TEST_VERBOSE") ? CR_LOG_DEBUG : CR_LOG_ERROR);
    sv = (server){.port = dead_port()};
    snprintf(sv.dir, sizeof sv.dir, "/tmp/cr-nats-unit-XXXXXX");
    assert_non_null(mkdtemp(sv.dir));
    server_start(&sv);

    char url[64];
    snprintf(url, sizeof url, "nats://127.0.0.1:%d", sv.port);
    cr_nats_out_config c;
    memset(&c, 0, sizeof c);
    c.url = url;
    c.ack_wait_ms = 500;
    cr_error err;
    struct event_base *base = event_base_new();
    cr_nats_out *p = cr_nats_out_start(&c, base, "Unit Test", 0, &err);
    if (!p) {
        fail_msg("start: %s", err.text);
    }
    cr_store *s = cr_store_new();
    cr_store_event *g = add_game(p, s);
    add_events(p, s, 2, 499); /* before the loop runs: held, not lost */
    run_loop(base, p, 500);
    cr_nats_out_stats st;
    cr_nats_out_get_stats(p, &st);
    assert_true(st.connected);
    assert_int_equal(st.acked, 500);
    assert_int_equal(st.acked_seq, 500);
    assert_int_equal(st.held, 0);
    uint64_t msgs;
    int64_t last;
    stream_state(sv.port, &msgs, &last);
    assert_int_equal(msgs, 500);
    assert_int_equal(last, 500);

    /* The server goes away; events keep coming; it comes back (same store). */
    server_stop(&sv);
    add_events(p, s, 501, 300);
    struct timeval quarter = {0, 250000};
    event_base_loopexit(base, &quarter);
    event_base_dispatch(base);
    if (getenv("CR_TEST_VERBOSE")) {
        cr_nats_out_get_stats(p, &st);
        fprintf(stderr, "outage: acked_seq %lld held %zu sent %lld conn %d\n",
                (long long)st.acked_seq, st.held, (long long)st.sent, st.connected);
    }
    server_start(&sv);
    add_events(p, s, 801, 200);
    int64_t t0 = cr_mono_us();
    run_loop(base, p, 1000);
    cr_nats_out_get_stats(p, &st);
    if (getenv("CR_TEST_VERBOSE")) {
        fprintf(stderr,
                "after %lld ms: acked_seq %lld held %zu sent %lld acked %lld resent %lld conn %d\n",
                (long long)(cr_mono_us() - t0) / 1000, (long long)st.acked_seq, st.held,
                (long long)st.sent, (long long)st.acked, (long long)st.resent, st.connected);
    }
    assert_int_equal(st.acked_seq, 1000);
    assert_int_equal(st.held, 0);
    stream_state(sv.port, &msgs, &last);
    if (getenv("CR_TEST_VERBOSE")) {
        fprintf(stderr, "stream: %llu msgs, last seq %lld\n", (unsigned long long)msgs,
                (long long)last);
    }
    /* each once: resent ones deduplicated (a resent one may land after later
     * ones: edges reorder by seq) */
    assert_int_equal(msgs, 1000);

    char *m = NULL;
    size_t mlen = 0;
    FILE *mf = open_memstream(&m, &mlen);
    assert_non_null(mf);
    cr_nats_out_metrics(p, mf);
    assert_int_equal(fclose(mf), 0);
    assert_non_null(strstr(m, "chessrelay_nats_connected 1\n"));
    assert_non_null(strstr(m, "chessrelay_nats_held_events 0\n"));
    assert_non_null(strstr(m, "chessrelay_nats_acked_seq 1000\n"));
    free(m);

    /* Stop drains what was just handed over. */
    add_events(p, s, 1001, 50);
    cr_nats_out_stop(p);
    stream_state(sv.port, &msgs, &last);
    assert_int_equal(msgs, 1050);

    cr_store_event_free(g);
    cr_store_free(s);
    event_base_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_held_without_server),
        cmocka_unit_test_teardown(test_acked_through_the_loop, stop_server),
    };
    evthread_use_pthreads(); /* before any event_base (libnats' adapter) */
    return cmocka_run_group_tests(tests, NULL, NULL);
}
