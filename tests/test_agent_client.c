/* relay/agent/agent_client: the agent program's link without a network.
 * The relay's URL, the reconnection backoff, and the session the link
 * thread runs: hello first, batches of unacknowledged events with the
 * watermark, acks trimming the journal, a relay that knows more making the
 * journal renumber, the bye at the end, a token error stopping the agent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/agent_client.h"
#include "agent/agent_msg.h"
#include "test_util.h"

/* Agent times are feed-clock ms from the journal's epoch E (wall ms). */
static int64_t E;
static int64_t now_off = 5000;

static int64_t test_clock(void *data)
{
    (void)data;
    return E + now_off;
}

typedef struct fixture {
    char dir[64];
    cr_agent_client *c;
} fixture;

static cr_agent_client *make(fixture *f, bool exit_at_end)
{
    cr_agent_client_config cfg = {.id = "venue-a",
                                  .token = "tok-1",
                                  .url = "ws://127.0.0.1:9/agent",
                                  .state_dir = f->dir,
                                  .exit_at_end = exit_at_end,
                                  .clock = test_clock};
    cr_error err;
    cr_error_clear(&err);
    cr_agent_client *c = cr_agent_client_new(&cfg, &err);
    if (!c) {
        fail_msg("new: %s", err.text);
    }
    E = cr_agent_client_epoch(c);
    return c;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cr_agent_client_XXXXXX");
    if (!mkdtemp(f->dir)) {
        return -1;
    }
    now_off = 5000;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    cr_agent_client_free(f->c);
    cr_test_rm_rf(f->dir);
    free(f);
    return 0;
}

/* The next message: it must be of kind `kind` (step SEND or SEND_MORE). */
static cr_amsg next(cr_agent_client *c, cr_amsg_kind kind, cr_agent_step want)
{
    char *text = NULL;
    cr_agent_step step = cr_agent_client_writeable(c, &text);
    assert_int_equal(step, want);
    assert_non_null(text);
    cr_amsg m;
    cr_error err;
    if (cr_amsg_parse(text, strlen(text), &m, &err)) {
        fail_msg("%s: %s", text, err.text);
    }
    free(text);
    assert_int_equal(m.kind, kind);
    return m;
}

static void idle(cr_agent_client *c)
{
    char *text = NULL;
    assert_int_equal(cr_agent_client_writeable(c, &text), CR_AGENT_IDLE);
    assert_null(text);
}

static void from_relay(cr_agent_client *c, char *text)
{
    assert_non_null(text);
    assert_int_equal(cr_agent_client_receive(c, text, strlen(text)), 0);
    free(text);
}

/* Connected: the client says hello, the relay welcomes it knowing its
 * events up to `last`. */
static void welcomed(cr_agent_client *c, int64_t last)
{
    cr_agent_client_connected(c);
    cr_amsg m = next(c, CR_AMSG_HELLO, CR_AGENT_SEND);
    cr_amsg_clear(&m);
    from_relay(c, cr_amsg_welcome("venue-a", last));
}

static void test_url_parse(void **state)
{
    (void)state;
    cr_agent_url u;
    assert_int_equal(cr_agent_url_parse("ws://127.0.0.1:8080/agent", &u), 0);
    assert_string_equal(u.host, "127.0.0.1");
    assert_int_equal(u.port, 8080);
    assert_string_equal(u.path, "/agent");
    assert_false(u.tls);
    assert_int_equal(cr_agent_url_parse("wss://relay.example.org/agent", &u), 0);
    assert_string_equal(u.host, "relay.example.org");
    assert_int_equal(u.port, 443);
    assert_true(u.tls);
    assert_int_equal(cr_agent_url_parse("ws://relay", &u), 0);
    assert_int_equal(u.port, 80);
    assert_string_equal(u.path, "/");
    const char *bad[] = {"http://relay/agent", "relay:80/agent", "ws://", "ws://:80/agent", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (cr_agent_url_parse(bad[i], &u) == 0) {
            fail_msg("'%s' parsed", bad[i]);
        }
    }
}

static void test_id_from_host(void **state)
{
    (void)state;
    char id[CR_AGENT_ID_MAX + 1];
    cr_agent_id_from_host("venue-pc.local", id);
    assert_string_equal(id, "venue-pc.local");
    cr_agent_id_from_host("hall 2 (west)", id);
    assert_string_equal(id, "hall-2--west-");
    assert_true(cr_agent_id_valid(id));
    cr_agent_id_from_host("", id);
    assert_string_equal(id, "agent");
    char long_host[200];
    memset(long_host, 'h', sizeof long_host - 1);
    long_host[sizeof long_host - 1] = '\0';
    cr_agent_id_from_host(long_host, id);
    assert_int_equal(strlen(id), CR_AGENT_ID_MAX);
    assert_true(cr_agent_id_valid(id));
}

static void test_backoff(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, false);
    const int64_t want[] = {100000, 200000, 400000, 800000, 1600000, 3200000, 5000000, 5000000};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_true(cr_agent_client_backoff(c) == want[i]);
    }
    /* a welcome: from the start again */
    welcomed(c, 0);
    assert_true(cr_agent_client_backoff(c) == CR_AGENT_BACKOFF_MIN_US);
    assert_true(cr_agent_client_backoff(c) == 2 * CR_AGENT_BACKOFF_MIN_US);
}

/* Records "<E + t> <rest>". */
static void record(cr_agent_client *c, int64_t t, const char *rest)
{
    char line[128];
    int n = snprintf(line, sizeof line, "%lld %s", (long long)(E + t), rest);
    assert_int_equal(cr_agent_client_record(c, line, (size_t)n), 0);
}

static void line_is(const char *line, int64_t t, const char *rest)
{
    char want[128];
    snprintf(want, sizeof want, "%lld %s", (long long)(E + t), rest);
    assert_string_equal(line, want);
}

static void test_hello_batches_acks(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, false);
    record(c, 1000, "b1 connect");
    record(c, 2000, "b1 clock 1:00:00 1:00:00 -");
    record(c, 3000, "b1 disconnect");
    cr_agent_client_watermark(c, E + 4000);
    cr_agent_client_watermark(c, E + 3500); /* never lowered */
    assert_true(cr_agent_client_get_watermark(c) == E + 4000);
    /* nothing before the connection says hello */
    cr_agent_client_connected(c);
    cr_amsg m = next(c, CR_AMSG_HELLO, CR_AGENT_SEND);
    assert_string_equal(m.agent, "venue-a");
    assert_string_equal(m.token, "tok-1");
    assert_true(m.clock == E + 5000 && m.n == 3);
    cr_amsg_clear(&m);
    idle(c); /* not welcomed yet */
    assert_false(cr_agent_client_welcomed(c));
    from_relay(c, cr_amsg_welcome("venue-a", 1)); /* the relay has event 1 */
    assert_true(cr_agent_client_welcomed(c));
    m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    assert_true(m.n == 2 && m.count == 2 && m.clock == E + 4000);
    line_is(m.lines[0], 2000, "b1 clock 1:00:00 1:00:00 -");
    line_is(m.lines[1], 3000, "b1 disconnect");
    cr_amsg_clear(&m);
    idle(c); /* sent, not acknowledged: not sent again */
    /* a tick carries the watermark */
    cr_agent_client_tick_due(c);
    m = next(c, CR_AMSG_TICK, CR_AGENT_SEND);
    assert_true(m.clock == E + 4000 && m.n == 3);
    cr_amsg_clear(&m);
    idle(c);
    from_relay(c, cr_amsg_ack(3));
    assert_false(cr_agent_client_all_done(c)); /* the sources go on */
    cr_agent_client_sources_done(c);
    assert_true(cr_agent_client_all_done(c));
    /* an ack beyond the last event is ignored */
    from_relay(c, cr_amsg_ack(9));
    assert_true(cr_agent_client_last(c) == 3);
    /* a reconnection sends what is not acknowledged, from the welcome on */
    record(c, 6000, "b1 connect");
    welcomed(c, 3);
    m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    assert_true(m.n == 4 && m.count == 1);
    cr_amsg_clear(&m);
}

/* A batch holds at most CR_AGENT_BATCH_MAX events; while more follow, its
 * clock is no later than its last event's time (the journal is in time
 * order, so the relay may tick up to it). */
static void test_batch_clock_when_more_follow(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, false);
    int total = CR_AGENT_BATCH_MAX + 10;
    for (int i = 0; i < total; i++) {
        record(c, 100 + i, "b1 connect");
    }
    cr_agent_client_watermark(c, E + 100000);
    welcomed(c, 0);
    cr_amsg m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    assert_true(m.n == 1 && m.count == CR_AGENT_BATCH_MAX);
    assert_true(m.clock == E + 100 + CR_AGENT_BATCH_MAX - 1);
    cr_amsg_clear(&m);
    m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    assert_true(m.n == CR_AGENT_BATCH_MAX + 1 && m.count == 10 && m.clock == E + 100000);
    cr_amsg_clear(&m);
}

/* The relay knows this agent up to 40 (its state folder was lost): the
 * journal's events are renumbered to follow. */
static void test_welcome_beyond_journal_renumbers(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, false);
    record(c, 1000, "b1 connect");
    record(c, 2000, "b1 disconnect");
    welcomed(c, 40);
    assert_true(cr_agent_client_last(c) == 42);
    cr_amsg m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    assert_true(m.n == 41 && m.count == 2);
    line_is(m.lines[0], 1000, "b1 connect");
    cr_amsg_clear(&m);
}

/* The relay holds this agent only up to 1 though it acknowledged 2 (its
 * journal lost or cut): the relay's numbering wins, the unacknowledged
 * event follows it instead of jumping ahead (which the relay refuses). */
static void test_welcome_below_acked_renumbers(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, false);
    record(c, 1000, "b1 connect");
    record(c, 2000, "b1 clock 1:00:00 1:00:00 -");
    record(c, 3000, "b1 disconnect");
    welcomed(c, 0);
    cr_amsg m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    cr_amsg_clear(&m);
    from_relay(c, cr_amsg_ack(2));
    welcomed(c, 1); /* a relay that lost its state */
    assert_true(cr_agent_client_last(c) == 2);
    m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    assert_true(m.n == 2 && m.count == 1);
    line_is(m.lines[0], 3000, "b1 disconnect");
    cr_amsg_clear(&m);
}

static void test_bye_at_end(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, true);
    record(c, 1000, "b1 connect");
    cr_agent_client_sources_done(c);
    welcomed(c, 0);
    cr_amsg m = next(c, CR_AMSG_EV, CR_AGENT_SEND_MORE);
    cr_amsg_clear(&m);
    idle(c); /* waits for the ack */
    from_relay(c, cr_amsg_ack(1));
    m = next(c, CR_AMSG_BYE, CR_AGENT_SEND_MORE);
    assert_true(m.n == 1);
    cr_amsg_clear(&m);
    char *text = NULL;
    assert_int_equal(cr_agent_client_writeable(c, &text), CR_AGENT_CLOSE);
    assert_null(text);
}

/* Asked to stop: no more batches, the bye at once. */
static void test_stop_says_bye(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, false);
    record(c, 1000, "b1 connect");
    welcomed(c, 0);
    cr_agent_client_stop(c);
    cr_amsg m = next(c, CR_AMSG_BYE, CR_AGENT_SEND_MORE);
    assert_true(m.n == 1);
    cr_amsg_clear(&m);
}

static void test_relay_errors(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = f->c = make(f, false);
    /* garbage is logged and ignored */
    assert_int_equal(cr_agent_client_receive(c, "{not json", 9), 0);
    from_relay(c, cr_amsg_error("busy, reconnect later", "ev"));
    assert_int_equal(cr_agent_client_status(c), 0);
    from_relay(c, cr_amsg_error("wrong token", "token"));
    assert_int_equal(cr_agent_client_status(c), 1);
}

/* The journal survives the client: a new one goes on from it. */
static void test_journal_kept(void **state)
{
    fixture *f = *state;
    cr_agent_client *c = make(f, false);
    int64_t epoch = cr_agent_client_epoch(c);
    assert_true(cr_agent_client_get_watermark(c) == epoch);
    record(c, 1000, "b1 connect");
    record(c, 7000, "b1 disconnect");
    cr_agent_client_free(c);
    c = f->c = make(f, false);
    assert_true(cr_agent_client_epoch(c) == epoch);
    assert_true(cr_agent_client_last(c) == 2);
    /* the watermark starts at the last event's time */
    assert_true(cr_agent_client_get_watermark(c) == epoch + 7000);
}

static void test_bad_url_refused(void **state)
{
    fixture *f = *state;
    cr_agent_client_config cfg = {.id = "venue-a",
                                  .token = "t",
                                  .url = "http://relay/agent",
                                  .state_dir = f->dir,
                                  .clock = test_clock};
    cr_error err;
    cr_error_clear(&err);
    assert_null(cr_agent_client_new(&cfg, &err));
    assert_int_equal(err.code, CR_EINVAL);
    assert_non_null(strstr(err.text, "http://relay/agent"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url_parse),
        cmocka_unit_test(test_id_from_host),
        cmocka_unit_test_setup_teardown(test_backoff, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hello_batches_acks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_clock_when_more_follow, setup, teardown),
        cmocka_unit_test_setup_teardown(test_welcome_beyond_journal_renumbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_welcome_below_acked_renumbers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bye_at_end, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_says_bye, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relay_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_kept, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_url_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
