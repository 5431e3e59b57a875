/* Tests of the relay's end of the agent link without a network: the scan of
 * the journals that restores each agent's numbers after a restart (only
 * events whose feed line was journaled whole count), the tick bound and
 * /agents.json. The live path (WebSocket, loop, acks) is covered end to end
 * by tests/e2e/agent_link.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/agent_link.h"

static void write_file(const char *dir, const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static cr_agent_link *new_link(const char *dir)
{
    static const cr_config_token tok = {.name = "--agent-token", .role = "agent", .token = "tok"};
    cr_agent_link_config cfg = {&tok, NULL, dir, 1.0};
    cr_error err;
    cr_agent_link *l = cr_agent_link_new(&cfg, &err);
    if (!l) {
        fail_msg("new: %s", err.text);
    }
    return l;
}

static void test_scan_restores_numbers(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_link_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "journal-000001.feed",
               "# epoch 1000\n"
               "# agent venue-a 1 500\n"
               "1500 b1 connect\n"
               "# agent venue-a 2 500\n"
               "1600 b1 clock 1:00:00 1:00:00 -\n"
               "# agent hall_2 1 -20\n"
               "1700 b7 connect\n"
               "# tick 1800\n");
    write_file(dir, "journal-000002.feed",
               "# epoch 1000\n"
               "# agent venue-a 3 500 skip\n"  /* an unusable line: counted */
               "# agent venue-a 4 500\n"       /* its line never made it */
               "# cmd result 1 1-0\n"
               "# agent hall_2 2 -20\n"
               "1900 b7 disconnect\n"
               "# agent venue-a 5 500\n"
               "2000 b1 pos rnbqkbnr/pppp"); /* torn: dropped by the reader */
    cr_agent_link *l = new_link(dir);
    assert_int_equal(cr_agent_link_journaled(l, "venue-a"), 3);
    assert_int_equal(cr_agent_link_journaled(l, "hall_2"), 2);
    assert_int_equal(cr_agent_link_journaled(l, "nobody"), 0);
    /* Agents away (not yet reconnected) hold the ticks at their last
     * journaled event for a while: venue-a's b1 clock line at 1600 is
     * 1100 on its own clock (+500), hall_2's 1900 is 1920 (-20). */
    assert_int_equal(cr_agent_link_tick_bound(l, 5000), 1600);
    assert_int_equal(cr_agent_link_tick_bound(l, 1000), 1000);
    /* Each board at its own agent's watermark; no agent: the bound. */
    assert_int_equal(cr_agent_link_board_bound(l, "b1", 5000), 1600);
    assert_int_equal(cr_agent_link_board_bound(l, "b7", 5000), 1900);
    assert_int_equal(cr_agent_link_board_bound(l, "b7", 1800), 1800);
    assert_int_equal(cr_agent_link_board_bound(l, "b9", 5000), 5000);
    cr_buf *b = cr_agent_link_status_json(l);
    assert_non_null(b);
    json_error_t jerr;
    json_t *j = json_loads(b->data, 0, &jerr);
    assert_non_null(j);
    json_t *agents = json_object_get(j, "agents");
    assert_int_equal(json_array_size(agents), 2);
    json_t *a = json_array_get(agents, 0);
    assert_string_equal(json_string_value(json_object_get(a, "agent")), "venue-a");
    assert_int_equal(json_integer_value(json_object_get(a, "acked")), 3);
    assert_int_equal(json_integer_value(json_object_get(a, "clock_offset_ms")), 500);
    assert_false(json_is_true(json_object_get(a, "connected")));
    json_t *boards = json_object_get(a, "boards");
    assert_int_equal(json_array_size(boards), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(boards, 0), "board")),
                        "b1");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(boards, 0), "events")), 2);
    json_decref(j);
    cr_buf_unref(b);
    cr_agent_link_free(l);
    cr_test_rm_rf(dir);
}

/* An agent that said bye before a restart: the journal's "# agent-bye"
 * line restores it as left (/agents.json) and its boards are no longer held
 * at its watermark; one that came back after its bye is not left. */
static void test_scan_restores_bye(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_agent_link_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "journal-000001.feed",
               "# epoch 1000\n"
               "# agent venue-a 1 500\n"
               "1500 b1 connect\n"
               "# agent venue-a 2 500\n"
               "1600 b1 clock 1:00:00 1:00:00 -\n"
               "# agent-bye venue-a 2\n"
               "# agent hall_2 1 -20\n"
               "1700 b7 connect\n"
               "# agent-bye hall_2 1\n"
               "# agent hall_2 2 -20\n" /* back after its bye */
               "1900 b7 disconnect\n"
               "# agent-bye bad id 3\n"); /* not a bye: ignored */
    cr_agent_link *l = new_link(dir);
    assert_int_equal(cr_agent_link_journaled(l, "venue-a"), 2);
    assert_int_equal(cr_agent_link_journaled(l, "hall_2"), 2);
    assert_int_equal(cr_agent_link_board_bound(l, "b1", 5000), 5000); /* left: not held */
    assert_int_equal(cr_agent_link_board_bound(l, "b7", 5000), 1900); /* back: held */
    cr_buf *b = cr_agent_link_status_json(l);
    assert_non_null(b);
    json_error_t jerr;
    json_t *j = json_loads(b->data, 0, &jerr);
    assert_non_null(j);
    json_t *agents = json_object_get(j, "agents");
    assert_int_equal(json_array_size(agents), 2);
    json_t *a = json_array_get(agents, 0), *h = json_array_get(agents, 1);
    assert_string_equal(json_string_value(json_object_get(a, "agent")), "venue-a");
    assert_true(json_is_true(json_object_get(a, "left")));
    assert_int_equal(json_integer_value(json_object_get(a, "last")), 2);
    assert_int_equal(json_integer_value(json_object_get(a, "acked")), 2);
    assert_string_equal(json_string_value(json_object_get(h, "agent")), "hall_2");
    assert_false(json_is_true(json_object_get(h, "left")));
    json_decref(j);
    cr_buf_unref(b);
    cr_agent_link_free(l);
    cr_test_rm_rf(dir);
}

static void test_no_state(void **state)
{
    (void)state;
    cr_agent_link *l = new_link(NULL);
    assert_int_equal(cr_agent_link_tick_bound(l, 12345), 12345);
    cr_buf *b = cr_agent_link_status_json(l);
    assert_string_equal(b->data, "{\"agents\":[]}");
    cr_buf_unref(b);
    struct lws_protocols p = cr_agent_link_protocol(l);
    assert_string_equal(p.name, CR_AGENT_PROTOCOL);
    assert_ptr_equal(p.user, l);
    cr_agent_link_free(l);
    /* A missing state folder is an empty history, not an error. */
    l = new_link("/tmp/cr_test_agent_link_does_not_exist");
    assert_int_equal(cr_agent_link_journaled(l, "venue-a"), 0);
    cr_agent_link_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_restores_numbers),
        cmocka_unit_test(test_scan_restores_bye),
        cmocka_unit_test(test_no_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
