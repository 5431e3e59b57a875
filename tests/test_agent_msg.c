/* Tests of the agent link messages: encode, decode, refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_msg.h"

static void parse_ok(const char *text, cr_amsg *m)
{
    cr_error err;
    int rc = cr_amsg_parse(text, strlen(text), m, &err);
    if (rc) {
        fail_msg("parse %s: %s", text, err.text);
    }
}

static void parse_bad(const char *text, const char *want)
{
    cr_amsg m;
    cr_error err;
    assert_int_equal(cr_amsg_parse(text, strlen(text), &m, &err), CR_EPROTO);
    if (!strstr(err.text, want)) {
        fail_msg("'%s': error '%s' does not mention '%s'", text, err.text, want);
    }
    cr_amsg_clear(&m);
}

static void test_round_trips(void **state)
{
    (void)state;
    cr_amsg m;
    char *s = cr_amsg_hello("venue-a", "s3cret", -5, 42);
    assert_non_null(s);
    parse_ok(s, &m);
    assert_int_equal(m.kind, CR_AMSG_HELLO);
    assert_string_equal(m.agent, "venue-a");
    assert_string_equal(m.token, "s3cret");
    assert_int_equal(m.clock, -5);
    assert_int_equal(m.n, 42);
    cr_amsg_clear(&m);
    free(s);

    const char *lines[] = {"0 b1 connect", "10 b1 meta White \"Doe, J\\\"\"", "20 b1 disconnect"};
    size_t lens[] = {strlen(lines[0]), strlen(lines[1]), strlen(lines[2])};
    s = cr_amsg_events(17, 123456789012LL, lines, lens, 3);
    assert_non_null(s);
    parse_ok(s, &m);
    assert_int_equal(m.kind, CR_AMSG_EV);
    assert_int_equal(m.n, 17);
    assert_int_equal(m.clock, 123456789012LL);
    assert_int_equal(m.count, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(m.lens[i], lens[i]);
        assert_string_equal(m.lines[i], lines[i]);
    }
    cr_amsg_clear(&m);
    assert_int_equal(m.count, 0);
    free(s);

    s = cr_amsg_tick(99, 18);
    parse_ok(s, &m);
    assert_int_equal(m.kind, CR_AMSG_TICK);
    assert_int_equal(m.clock, 99);
    assert_int_equal(m.n, 18);
    cr_amsg_clear(&m);
    free(s);

    s = cr_amsg_bye(18);
    parse_ok(s, &m);
    assert_int_equal(m.kind, CR_AMSG_BYE);
    assert_int_equal(m.n, 18);
    cr_amsg_clear(&m);
    free(s);

    s = cr_amsg_welcome("venue-a", 16);
    parse_ok(s, &m);
    assert_int_equal(m.kind, CR_AMSG_WELCOME);
    assert_string_equal(m.agent, "venue-a");
    assert_int_equal(m.n, 16);
    cr_amsg_clear(&m);
    free(s);

    s = cr_amsg_ack(19);
    assert_string_equal(s, "{\"type\":\"ack\",\"n\":19}");
    parse_ok(s, &m);
    assert_int_equal(m.kind, CR_AMSG_ACK);
    assert_int_equal(m.n, 19);
    cr_amsg_clear(&m);
    free(s);

    s = cr_amsg_error("wrong token", "token");
    parse_ok(s, &m);
    assert_int_equal(m.kind, CR_AMSG_ERROR);
    assert_string_equal(m.error, "token: wrong token");
    cr_amsg_clear(&m);
    free(s);
}

static void test_refusals(void **state)
{
    (void)state;
    parse_bad("", "malformed JSON");
    parse_bad("{\"op\":\"ev\"", "malformed JSON");
    parse_bad("[1,2]", "expected a JSON object");
    parse_bad("{}", "expected \"op\" or \"type\"");
    parse_bad("{\"op\":\"hello\"}", "unknown op 'hello'");
    parse_bad("{\"type\":\"move\"}", "unknown type 'move'");
    parse_bad("{\"op\":\"bye\",\"type\":\"ack\",\"last\":1}", "both");
    parse_bad("{\"op\":\"ev\",\"n\":1,\"n\":2,\"clock\":0,\"lines\":[\"x\"]}", "malformed JSON");
    /* Issue 16 finding 2: numbers are bounded, first + count never overflows. */
    parse_bad("{\"op\":\"ev\",\"n\":9223372036854775806,\"clock\":0,\"lines\":[\"x\"]}", "2^40");
    parse_bad("{\"op\":\"ev\",\"n\":1099511627776,\"clock\":0,\"lines\":[\"x\",\"y\"]}",
              "beyond 2^40");
    parse_bad("{\"op\":\"agent-hello\",\"agent\":\"a\",\"token\":\"t\",\"clock\":0,"
              "\"last\":9223372036854775807}",
              "2^40");
    parse_bad("{\"op\":\"tick\",\"clock\":0,\"last\":1099511627777}", "2^40");
    {
        cr_amsg m;
        parse_ok("{\"op\":\"ev\",\"n\":1099511627776,\"clock\":0,\"lines\":[\"x\"]}", &m);
        cr_amsg_clear(&m);
    }
    parse_bad("{\"op\":\"agent-hello\",\"agent\":\"a b\",\"token\":\"t\",\"clock\":0,\"last\":0}",
              "agent-hello: agent");
    parse_bad("{\"op\":\"agent-hello\",\"agent\":\"a\",\"clock\":0,\"last\":0}", "agent-hello: token");
    parse_bad("{\"op\":\"agent-hello\",\"agent\":\"a\",\"token\":\"t\",\"clock\":0,\"last\":-1}",
              "agent-hello: last");
    parse_bad("{\"op\":\"agent-hello\",\"agent\":\"a\",\"token\":\"t\",\"clock\":\"0\",\"last\":1}",
              "agent-hello: clock");
    parse_bad("{\"op\":\"ev\",\"n\":0,\"clock\":0,\"lines\":[\"x\"]}", "ev: n");
    parse_bad("{\"op\":\"ev\",\"n\":1.5,\"clock\":0,\"lines\":[\"x\"]}", "ev: n");
    parse_bad("{\"op\":\"ev\",\"n\":1,\"clock\":0,\"lines\":[]}", "ev: lines");
    parse_bad("{\"op\":\"ev\",\"n\":1,\"clock\":0,\"lines\":\"x\"}", "ev: lines");
    parse_bad("{\"op\":\"ev\",\"n\":1,\"clock\":0,\"lines\":[\"a\",\"b\\nc\"]}", "ev: lines[1]");
    parse_bad("{\"op\":\"ev\",\"n\":1,\"clock\":0,\"lines\":[\"a\",7]}", "ev: lines[1]");
    parse_bad("{\"op\":\"ev\",\"n\":1,\"clock\":0,\"lines\":[\"a\\u0000b\"]}", "malformed");
    parse_bad("{\"op\":\"tick\",\"clock\":9223372036854775807,\"last\":1}", "tick: clock");
    parse_bad("{\"op\":\"ev\",\"n\":1,\"clock\":-1125899906842625,\"lines\":[\"x\"]}",
              "ev: clock");
    parse_bad("{\"type\":\"ack\"}", "ack: n");
    parse_bad("{\"type\":\"welcome\",\"acked\":3}", "welcome: agent");

    /* Too many lines in one message. */
    size_t cap = 16 + (CR_AGENT_BATCH_MAX + 1) * 4 + 64;
    char *big = malloc(cap);
    size_t off = (size_t)snprintf(big, cap, "{\"op\":\"ev\",\"n\":1,\"clock\":0,\"lines\":[");
    for (int i = 0; i <= CR_AGENT_BATCH_MAX; i++) {
        off += (size_t)snprintf(big + off, cap - off, "%s\"x\"", i ? "," : "");
    }
    snprintf(big + off, cap - off, "]}");
    parse_bad(big, "ev: lines");
    free(big);
    /* Too long. */
    big = malloc(CR_AGENT_MESSAGE_MAX + 2);
    memset(big, ' ', CR_AGENT_MESSAGE_MAX + 1);
    big[CR_AGENT_MESSAGE_MAX + 1] = '\0';
    parse_bad(big, "over");
    free(big);
}

static void test_agent_ids(void **state)
{
    (void)state;
    assert_true(cr_agent_id_valid("venue-a"));
    assert_true(cr_agent_id_valid("Hall_2.north"));
    assert_false(cr_agent_id_valid(""));
    assert_false(cr_agent_id_valid(NULL));
    assert_false(cr_agent_id_valid("a/b"));
    assert_false(cr_agent_id_valid("a b"));
    char id[CR_AGENT_ID_MAX + 2];
    memset(id, 'x', sizeof id);
    id[CR_AGENT_ID_MAX] = '\0';
    assert_true(cr_agent_id_valid(id));
    id[CR_AGENT_ID_MAX] = 'x';
    id[CR_AGENT_ID_MAX + 1] = '\0';
    assert_false(cr_agent_id_valid(id));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_agent_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
