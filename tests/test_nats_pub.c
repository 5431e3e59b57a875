/* relay/nats_pub: subject tokens, the command-line options, and the
 * publisher with no NATS server reachable: events are held (never
 * blocking the caller), the backlog bound drops the oldest, stop returns
 * after its drain time. (Publishing to a real server: tests/e2e/nats_*.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "nats_pub.h"
#include "store.h"

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
    cr_nats_pub_config c;
    memset(&c, 0, sizeof c);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--listen", "x"), 0);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--publish", "nats://h:4222,nats://g:4222"),
                     1);
    assert_string_equal(c.url, "nats://h:4222,nats://g:4222");
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--publish", "http://h:4222"), -1);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--publish-tournament", "oslo"), 1);
    assert_string_equal(c.tournament, "oslo");
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--publish-tournament", ""), -1);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--stream", "CHESS_1"), 1);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--stream", "A.B"), -1);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--stream-replicas", "3"), 1);
    assert_int_equal(c.replicas, 3);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--stream-replicas", "0"), -1);
    assert_int_equal(cr_nats_pub_option(&c, "serve", "--stream-replicas", "3x"), -1);
}

/* A port with nothing listening: bound then closed. */
static int dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t n = sizeof a;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &n), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static void test_held_without_server(void **state)
{
    (void)state;
    cr_log_set_level(CR_LOG_ERROR);
    char url[64];
    snprintf(url, sizeof url, "nats://127.0.0.1:%d", dead_port());
    cr_nats_pub_config c;
    memset(&c, 0, sizeof c);
    c.url = url;
    c.drain_ms = 100;
    c.backlog_bytes = 4096; /* a few dozen events */
    cr_error err;
    cr_nats_pub *p = cr_nats_pub_start(&c, "Test Event", 0, &err);
    if (!p) {
        fail_msg("start: %s", err.text);
    }
    cr_store *s = cr_store_new();
    cr_store_event *g = cr_store_event_new(CR_SEV_GAME);
    g->seq = 1;
    g->game = 1;
    snprintf(g->board, sizeof g->board, "T1.1");
    snprintf(g->round, sizeof g->round, "1");
    assert_int_equal(cr_store_apply(s, g, &err), 0);
    cr_nats_pub_event(p, s, g, NULL);
    int64_t t0 = cr_mono_us();
    for (int i = 0; i < 1000; i++) {
        cr_store_event *ev = cr_store_event_new(CR_SEV_STATUS);
        ev->seq = 2 + i;
        ev->game = 1;
        ev->online = i % 2;
        assert_int_equal(cr_store_apply(s, ev, &err), 0);
        cr_nats_pub_event(p, s, ev, NULL);
        cr_store_event_free(ev);
    }
    /* Handing over never waits for the network. */
    assert_true(cr_mono_us() - t0 < 2000000);
    cr_nats_pub_stats st;
    cr_nats_pub_get_stats(p, &st);
    assert_false(st.connected);
    assert_true(st.queued == 1001);
    assert_int_equal(st.sent, 0);
    assert_int_equal(st.acked, 0);
    /* bounded: the oldest went */
    assert_true(st.dropped > 0);
    assert_true((int64_t)st.held + st.dropped == 1001);
    assert_true(st.held * 60 < 4096 + 200);
    cr_nats_pub_event(NULL, s, g, NULL); /* no publisher: nothing */
    t0 = cr_mono_us();
    cr_nats_pub_stop(p);
    assert_true(cr_mono_us() - t0 < 3000000);
    cr_store_event_free(g);
    cr_store_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_token),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_held_without_server),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
