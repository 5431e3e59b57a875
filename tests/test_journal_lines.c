/* Tests of the journal's grammar (relay/core/journal_lines.h): every record
 * type formatted as the journals already written have it, parsed back
 * equal; malformed lines refused with an error that says what and where. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "core/journal_lines.h"

/* A record and the exact line journals hold for it. */
typedef struct row {
    cr_jline rec;
    const char *line; /* with its "\n" */
} row;

static const char pairings_text[] = "3 trf 012 1 m Player\\nline two";
static const char feed_text[] = "1234 B1 pos rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR";
static const char comment_text[] = "# a note of some older run";

/* The table, built into zeroed records (their padding compares equal). */
static int table(row *rows)
{
    int n = 0;
    memset(rows, 0, 16 * sizeof *rows);
    rows[n].rec.kind = CR_JLINE_EPOCH;
    rows[n].rec.u.epoch.ms = 1764427200123;
    rows[n++].line = "# epoch 1764427200123\n";

    rows[n].rec.kind = CR_JLINE_BOARD;
    rows[n].rec.u.board.table = 12;
    snprintf(rows[n].rec.u.board.id, sizeof rows[n].rec.u.board.id, "usb-1.2_a");
    rows[n++].line = "# board 12 usb-1.2_a\n";

    rows[n].rec.kind = CR_JLINE_GAME;
    rows[n].rec.u.game.game = 7;
    snprintf(rows[n].rec.u.game.board, sizeof rows[n].rec.u.game.board, "B1");
    rows[n++].line = "# game 7 board B1\n";

    rows[n].rec.kind = CR_JLINE_TICK;
    snprintf(rows[n].rec.u.tick.board, sizeof rows[n].rec.u.tick.board, "B1");
    rows[n].rec.u.tick.t = 98700;
    rows[n++].line = "# tick B1 98700\n";

    rows[n].rec.kind = CR_JLINE_FINISH;
    rows[n].rec.u.finish.t = 120000;
    rows[n].rec.u.finish.has_reach = true;
    rows[n].rec.u.finish.reach = 119950;
    rows[n++].line = "# finish 120000 119950\n";

    rows[n].rec.kind = CR_JLINE_FINISH; /* older journals: no reach */
    rows[n].rec.u.finish.t = -5;
    rows[n++].line = "# finish -5\n";

    rows[n].rec.kind = CR_JLINE_ACCEPT_BOARD;
    rows[n].rec.u.accept.ts_us = 1764427200123456;
    rows[n].rec.u.accept.tick = 5000;
    rows[n].rec.u.accept.t = 5050;
    rows[n].rec.u.accept.side = 1;
    rows[n].rec.u.accept.game = 3;
    snprintf(rows[n].rec.u.accept.board, sizeof rows[n].rec.u.accept.board, "B2");
    snprintf(rows[n].rec.u.accept.who, sizeof rows[n].rec.u.accept.who, "chief");
    rows[n++].line = "# accept-board 1764427200123456 5000 5050 1 3 B2 chief\n";

    rows[n].rec.kind = CR_JLINE_PAIRINGS;
    rows[n].rec.u.pairings.ts_us = 1000000;
    rows[n].rec.u.pairings.tick = 0;
    rows[n].rec.u.pairings.text = pairings_text;
    rows[n].rec.u.pairings.len = strlen(pairings_text);
    rows[n++].line = "# pairings 1000000 0 3 trf 012 1 m Player\\nline two\n";

    rows[n].rec.kind = CR_JLINE_CMD;
    rows[n].rec.u.cmd.kind = CR_JCMD_CLOCK_ADJUST;
    rows[n].rec.u.cmd.game = 4;
    rows[n].rec.u.cmd.color = CR_BLACK;
    rows[n].rec.u.cmd.delta_ms = 120000;
    rows[n].rec.u.cmd.tick = 3000;
    rows[n].rec.u.cmd.t = 3050;
    snprintf(rows[n].rec.u.cmd.who, sizeof rows[n].rec.u.cmd.who, "chief arbiter");
    rows[n++].line = "# cmd {\"cmd\":\"clock-adjust\",\"game\":4,\"color\":\"b\",\"ms\":120000,"
                     "\"who\":\"chief arbiter\",\"tick\":3000,\"t\":3050}\n";

    rows[n].rec.kind = CR_JLINE_AGENT;
    snprintf(rows[n].rec.u.agent.id, sizeof rows[n].rec.u.agent.id, "venue-1");
    rows[n].rec.u.agent.n = 42;
    rows[n].rec.u.agent.off = -1500;
    rows[n++].line = "# agent venue-1 42 -1500\n";

    rows[n].rec.kind = CR_JLINE_AGENT;
    snprintf(rows[n].rec.u.agent.id, sizeof rows[n].rec.u.agent.id, "venue-1");
    rows[n].rec.u.agent.n = 43;
    rows[n].rec.u.agent.off = 0;
    rows[n].rec.u.agent.skip = true;
    rows[n++].line = "# agent venue-1 43 0 skip\n";

    rows[n].rec.kind = CR_JLINE_AGENT_BYE;
    snprintf(rows[n].rec.u.bye.id, sizeof rows[n].rec.u.bye.id, "venue-1");
    rows[n].rec.u.bye.n = 43;
    rows[n++].line = "# agent-bye venue-1 43\n";

    rows[n].rec.kind = CR_JLINE_FEED;
    rows[n].rec.u.raw.text = feed_text;
    rows[n].rec.u.raw.len = strlen(feed_text);
    rows[n++].line = "1234 B1 pos rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR\n";

    rows[n].rec.kind = CR_JLINE_COMMENT;
    rows[n].rec.u.raw.text = comment_text;
    rows[n].rec.u.raw.len = strlen(comment_text);
    rows[n++].line = "# a note of some older run\n";
    return n;
}

/* Parsed equal to what was formatted: the fixed fields byte for byte, the
 * text of the others (they point into the line). */
static void assert_same(const cr_jline *want, const cr_jline *got, const char *line)
{
    assert_int_equal(got->kind, want->kind);
    switch (want->kind) {
    case CR_JLINE_FEED:
    case CR_JLINE_COMMENT:
        assert_int_equal(got->u.raw.len, want->u.raw.len);
        assert_memory_equal(got->u.raw.text, want->u.raw.text, want->u.raw.len);
        assert_ptr_equal(got->u.raw.text, line);
        break;
    case CR_JLINE_PAIRINGS:
        assert_true(got->u.pairings.ts_us == want->u.pairings.ts_us);
        assert_true(got->u.pairings.tick == want->u.pairings.tick);
        assert_int_equal(got->u.pairings.len, want->u.pairings.len);
        assert_memory_equal(got->u.pairings.text, want->u.pairings.text, want->u.pairings.len);
        break;
    case CR_JLINE_CMD:
        assert_int_equal(got->u.cmd.kind, want->u.cmd.kind);
        assert_int_equal(got->u.cmd.game, want->u.cmd.game);
        assert_int_equal(got->u.cmd.color, want->u.cmd.color);
        assert_int_equal(got->u.cmd.delta_ms, want->u.cmd.delta_ms);
        assert_string_equal(got->u.cmd.who, want->u.cmd.who);
        assert_true(got->u.cmd.at == want->u.cmd.at && got->u.cmd.tick == want->u.cmd.tick &&
                    got->u.cmd.t == want->u.cmd.t);
        break;
    default:
        assert_memory_equal(&got->u, &want->u, sizeof want->u);
    }
}

static void test_round_trip_table(void **state)
{
    (void)state;
    row rows[16];
    int n = table(rows);
    bool seen[CR_JLINE_AGENT_BYE + 1] = {false};
    for (int i = 0; i < n; i++) {
        char line[1024], why[160] = "";
        int len = cr_jline_format(&rows[i].rec, line, sizeof line);
        print_message("%s", rows[i].line);
        assert_int_equal(len, (int)strlen(rows[i].line));
        assert_string_equal(line, rows[i].line); /* as journals hold it */
        cr_jline back;
        assert_int_equal(cr_jline_parse(line, (size_t)len - 1, &back, why, sizeof why), 0);
        assert_string_equal(why, "");
        assert_same(&rows[i].rec, &back, line);
        /* and the parsed record writes the same line again */
        char again[1024];
        assert_int_equal(cr_jline_format(&back, again, sizeof again), len);
        assert_string_equal(again, line);
        seen[rows[i].rec.kind] = true;
    }
    for (int k = 0; k <= CR_JLINE_AGENT_BYE; k++) {
        if (!seen[k]) {
            fail_msg("record type %s is not in the table", cr_jline_kind_name((cr_jline_kind)k));
        }
    }
}

/* Formatting is snprintf's contract: the length needed, whatever fits. */
static void test_format_short_buffer(void **state)
{
    (void)state;
    row rows[16];
    table(rows);
    char small[8];
    int len = cr_jline_format(&rows[1].rec, small, sizeof small);
    assert_int_equal(len, (int)strlen(rows[1].line));
    assert_string_equal(small, "# board");
    assert_int_equal(cr_jline_format(&rows[1].rec, NULL, 0), len);
}

/* Records that cannot be written: an empty id, one with a space, a feed
 * line holding a newline. */
static void test_format_refuses(void **state)
{
    (void)state;
    char line[256];
    cr_jline b = {.kind = CR_JLINE_BOARD, .u.board = {.table = 1}};
    assert_int_equal(cr_jline_format(&b, line, sizeof line), -1);
    snprintf(b.u.board.id, sizeof b.u.board.id, "a b");
    assert_int_equal(cr_jline_format(&b, line, sizeof line), -1);
    b.u.board.table = 0;
    snprintf(b.u.board.id, sizeof b.u.board.id, "B1");
    assert_int_equal(cr_jline_format(&b, line, sizeof line), -1);
    cr_jline f = {.kind = CR_JLINE_FEED, .u.raw = {"1 B1 connect\n2 B1 x", 19}};
    assert_int_equal(cr_jline_format(&f, line, sizeof line), -1);
    cr_jline a = {.kind = CR_JLINE_AGENT, .u.agent = {"venue", 0, 0, false}};
    assert_int_equal(cr_jline_format(&a, line, sizeof line), -1); /* numbers start at 1 */
}

/* Lines of older journals and of other writers read as before. */
static void test_other_lines(void **state)
{
    (void)state;
    cr_jline l;
    char why[160];
    const char *plain[] = {"", "#", "#x", "# ", "# cmdx 1", "# agentx a 1 2", "#= 0123abcd"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        assert_int_equal(cr_jline_parse(plain[i], strlen(plain[i]), &l, why, sizeof why), 0);
        assert_int_equal(l.kind, plain[i][0] ? CR_JLINE_COMMENT : CR_JLINE_FEED);
    }
    const char *old = "# cmd result 5 1-0";
    assert_int_equal(cr_jline_parse(old, strlen(old), &l, why, sizeof why), 0);
    assert_int_equal(l.kind, CR_JLINE_CMD);
    assert_int_equal(l.u.cmd.game, 5);
    assert_int_equal(l.u.cmd.result, CR_RESULT_WHITE);
    /* an accept-board's who is the rest of its line (a token's name may
     * hold spaces) */
    const char *acc = "# accept-board 1 2 3 0 4 B1 chief arbiter";
    assert_int_equal(cr_jline_parse(acc, strlen(acc), &l, why, sizeof why), 0);
    assert_string_equal(l.u.accept.who, "chief arbiter");
    /* parsing reads len bytes only: the line need not end with a NUL */
    const char *two = "# tick B1 500# tick B2 600";
    assert_int_equal(cr_jline_parse(two, 13, &l, why, sizeof why), 0);
    assert_string_equal(l.u.tick.board, "B1");
    assert_true(l.u.tick.t == 500);
}

static void test_malformed_refused(void **state)
{
    (void)state;
    static const struct {
        const char *line, *why;
    } bad[] = {
        {"# epoch", "epoch: field 1 (wall ms) missing"},
        {"# epoch soon", "epoch: field 1 (wall ms): expected an integer, got 'soon'"},
        {"# epoch 12 13", "epoch: after field 1: unexpected ' 13'"},
        {"# epoch 99999999999999999999", "epoch: field 1 (wall ms): expected an integer"},
        {"# epoch +5", "expected an integer, got '+5'"},
        {"# board 0 B1", "board: field 1 (table): expected an integer >= 1, got '0'"},
        {"# board 3", "board: field 2 (board) missing"},
        {"# board 3  B1", "board: field 2 (board) missing"},
        {"# board 3 B1 extra", "board: after field 2: unexpected ' extra'"},
        {"# board 3 "
         "B12345678901234567890123456789012345678901234567890123456789012345",
         "board: field 2 (board): expected a word of 1 to 64 characters"},
        {"# game 7 on B1", "game: field 2 ('board'): expected the word 'board', got 'on'"},
        {"# game x board B1", "game: field 1 (game): expected an integer >= 1, got 'x'"},
        {"# tick B1", "tick: field 2 (feed ms) missing"},
        {"# tick B1 1.5", "tick: field 2 (feed ms): expected an integer, got '1.5'"},
        {"# finish", "finish: field 1 (feed ms) missing"},
        {"# finish 1 2 3", "finish: after field 2: unexpected ' 3'"},
        {"# accept-board 1 2 3 0 4 B1", "accept-board: field 7 (who) missing"},
        {"# accept-board 1 2 3 0 0 B1 x", "accept-board: field 5 (game): expected an integer >= 1"},
        {"# pairings 5", "pairings: field 2 (feed ms ticked) missing"},
        {"# pairings 5 -1 3 trf x", "pairings: field 2 (feed ms ticked): expected an integer >= 0"},
        {"# pairings 5 10", "pairings: field 3 (the pairings) missing"},
        {"# agent venue 0 5", "agent: field 2 (event number): expected an integer >= 1, got '0'"},
        {"# agent venue 3 5 skipped", "agent: field 4 ('skip'): expected the word 'skip'"},
        {"# agent venue 3", "agent: field 3 (clock offset) missing"},
        {"# agent-bye venue", "agent-bye: field 2 (event number) missing"},
        {"# agent-bye venue -1", "agent-bye: field 2 (event number): expected an integer >= 0"},
        {"# cmd", "cmd: no command"},
        {"# cmd {\"cmd\":\"result\",\"game\":2,\"result\":\"1-1\"}", "cmd: command line with a bad result"},
        {"# cmd {\"cmd\":", "cmd: command line not JSON"},
        {"# cmd nonsense 3", "cmd: unknown command 'nonsense'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_jline l;
        char why[160] = "";
        print_message("%s\n", bad[i].line);
        assert_int_equal(cr_jline_parse(bad[i].line, strlen(bad[i].line), &l, why, sizeof why), -1);
        if (!strstr(why, bad[i].why)) {
            fail_msg("'%s': got '%s', want '%s'", bad[i].line, why, bad[i].why);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_table),
        cmocka_unit_test(test_format_short_buffer),
        cmocka_unit_test(test_format_refuses),
        cmocka_unit_test(test_other_lines),
        cmocka_unit_test(test_malformed_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
