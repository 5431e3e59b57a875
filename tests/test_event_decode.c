/* relay/event_decode: every store event survives encode -> decode ->
 * encode byte for byte, a store rebuilt from the messages equals the
 * original, and malformed messages are refused with the field named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "edge/event_decode.h"
#include "core/store.h"

/* Encodes ev, decodes the text, re-encodes the result: both texts must be
 * equal. Returns the decoded event (caller frees). */
static cr_store_event *round_trip(const cr_store_event *ev)
{
    cr_buf *a = cr_store_event_json(ev);
    assert_non_null(a);
    cr_store_event *back = NULL;
    cr_error err;
    cr_error_clear(&err);
    int rc = cr_event_decode(a->data, a->len, &back, &err);
    if (rc) {
        fail_msg("decode %s: %s", a->data, err.text);
    }
    assert_non_null(back);
    cr_buf *b = cr_store_event_json(back);
    assert_non_null(b);
    assert_string_equal(a->data, b->data);
    cr_buf_unref(a);
    cr_buf_unref(b);
    assert_int_equal(back->kind, ev->kind);
    assert_true(back->seq == ev->seq);
    assert_true(back->ts == ev->ts);
    assert_int_equal(back->game, ev->game);
    return back;
}

static cr_store_event *make(cr_sev_kind kind, int64_t seq, int game)
{
    cr_store_event *ev = cr_store_event_new(kind);
    assert_non_null(ev);
    ev->seq = seq;
    ev->ts = 1764427200000000 + seq * 1000;
    ev->game = game;
    return ev;
}

static void test_game_round_trip(void **state)
{
    (void)state;
    cr_store_event *ev = make(CR_SEV_GAME, 1, 7);
    snprintf(ev->board, sizeof ev->board, "DGT23164");
    snprintf(ev->round, sizeof ev->round, "3.1");
    ev->table = 12;
    cr_store_event_add_tag(ev, "White", "Carlsen, Magnus");
    cr_store_event_add_tag(ev, "Black", "Nepomniachtchi, Ian");
    cr_store_event_add_tag(ev, "Event", "Caf\xc3\xa9 \"Open\"");
    cr_store_event *back = round_trip(ev);
    assert_string_equal(back->board, "DGT23164");
    assert_string_equal(back->round, "3.1");
    assert_int_equal(back->table, 12);
    assert_false(back->has_start);
    assert_int_equal(back->tag_count, 3);
    assert_string_equal(back->tags[0].name, "White");
    assert_string_equal(back->tags[2].value, "Caf\xc3\xa9 \"Open\"");
    cr_store_event_free(back);

    /* no table, no tags, a set-up start */
    cr_store_event *ev2 = make(CR_SEV_GAME, 2, 8);
    snprintf(ev2->board, sizeof ev2->board, "T16.2");
    snprintf(ev2->round, sizeof ev2->round, "1");
    ev2->has_start = true;
    assert_int_equal(cr_position_from_fen(&ev2->start, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", NULL), 0);
    back = round_trip(ev2);
    assert_int_equal(back->table, 0);
    assert_true(back->has_start);
    assert_int_equal(back->tag_count, 0);
    char fen[CR_FEN_MAX];
    cr_position_to_fen(&back->start, fen, sizeof fen);
    assert_string_equal(fen, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    cr_store_event_free(back);
    cr_store_event_free(ev);
    cr_store_event_free(ev2);
}

static void test_move_round_trip(void **state)
{
    (void)state;
    cr_position start;
    cr_position_init_start(&start);
    cr_game *g = cr_game_new(NULL);
    assert_int_equal(cr_game_push(g, cr_move_from_uci(&start, "e2e4"), 5398000, 1000,
                                  CR_PLY_DRAW_OFFER | CR_PLY_RECONSTRUCTED),
                     0);
    cr_store_event *ev = make(CR_SEV_MOVE, 5, 3);
    ev->ply = 0;
    ev->move = *cr_game_ply(g, 0);
    cr_store_event *back = round_trip(ev);
    assert_int_equal(back->ply, 0);
    assert_string_equal(back->move.san, "e4");
    assert_string_equal(back->move.uci, "e2e4");
    assert_int_equal(back->move.clock_ms, 5398000);
    assert_int_equal(back->move.flags, CR_PLY_DRAW_OFFER | CR_PLY_RECONSTRUCTED);
    assert_true(back->move.move == CR_MOVE_NONE);
    cr_error err;
    assert_int_equal(cr_event_resolve_move(back, &start, &err), 0);
    assert_true(back->move.move == ev->move.move);
    cr_store_event_free(back);

    /* unknown clock: null */
    ev->move.clock_ms = CR_CLOCK_UNKNOWN;
    ev->move.flags = 0;
    back = round_trip(ev);
    assert_int_equal(back->move.clock_ms, CR_CLOCK_UNKNOWN);
    cr_store_event_free(back);

    /* an illegal move that stood: no cr_move, the position after is kept */
    cr_game *g2 = cr_game_new(NULL);
    cr_position after;
    assert_int_equal(cr_position_from_fen(
                         &after, "rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQ1BNR b kq - 1 1", NULL),
                     0);
    assert_int_equal(cr_game_push_illegal(g2, &after, "Ke1-e3", 5000, 10), 0);
    ev->move = *cr_game_ply(g2, 0);
    ev->move.flags |= CR_PLY_MISSING; /* a stretch the arbiter accepted from the board */
    back = round_trip(ev);
    assert_int_equal(back->move.flags, CR_PLY_ILLEGAL | CR_PLY_MISSING);
    assert_string_equal(back->move.san, ev->move.san);
    assert_int_equal(cr_event_resolve_move(back, &start, &err), 0);
    cr_store_event_free(back);
    /* a gap the clock counted: "missing": 12 and the "counted" flag */
    ev->move.flags |= CR_PLY_COUNTED;
    ev->move.missing = 12;
    back = round_trip(ev);
    assert_int_equal(back->move.flags, CR_PLY_ILLEGAL | CR_PLY_MISSING | CR_PLY_COUNTED);
    assert_int_equal(back->move.missing, 12);
    cr_store_event_free(back);
    cr_store_event_free(ev);
    cr_game_free(g);
    cr_game_free(g2);
}

static void test_other_kinds_round_trip(void **state)
{
    (void)state;
    cr_store_event *ev = make(CR_SEV_CORRECTION, 9, 2);
    ev->ply = 4;
    ev->retracted = 2;
    cr_store_event *back = round_trip(ev);
    assert_int_equal(back->ply, 4);
    assert_int_equal(back->retracted, 2);
    cr_store_event_free(back);
    cr_store_event_free(ev);

    const int runnings[] = {CR_WHITE, CR_BLACK, CR_CLOCK_STOPPED};
    for (int i = 0; i < 3; i++) {
        ev = make(CR_SEV_CLOCK, 10 + i, 2);
        ev->white_ms = 5397000;
        ev->black_ms = i == 2 ? CR_CLOCK_UNKNOWN : 5395000;
        ev->running = runnings[i];
        back = round_trip(ev);
        assert_int_equal(back->white_ms, 5397000);
        assert_int_equal(back->black_ms, ev->black_ms);
        assert_int_equal(back->running, runnings[i]);
        cr_store_event_free(back);
        cr_store_event_free(ev);
    }

    const cr_result results[] = {CR_RESULT_NONE, CR_RESULT_WHITE, CR_RESULT_BLACK, CR_RESULT_DRAW};
    for (int i = 0; i < 4; i++) {
        ev = make(CR_SEV_RESULT, 20 + i, 2);
        ev->result = results[i];
        snprintf(ev->reason, sizeof ev->reason, "%s", i ? "checkmate" : "");
        back = round_trip(ev);
        assert_int_equal(back->result, results[i]);
        assert_string_equal(back->reason, ev->reason);
        cr_store_event_free(back);
        cr_store_event_free(ev);
    }

    for (int i = 0; i < 2; i++) {
        ev = make(CR_SEV_STATUS, 30 + i, 2);
        ev->online = i == 0;
        ev->attention = i == 1;
        ev->squares = i ? (1ull << 51) | (1ull << 12) | 1ull : 0; /* d7 e2 a1: the squares in question */
        snprintf(ev->reason, sizeof ev->reason, "%s", i ? "pieces off the board" : "");
        back = round_trip(ev);
        assert_int_equal(back->online, ev->online);
        assert_int_equal(back->attention, ev->attention);
        assert_true(back->squares == ev->squares);
        assert_string_equal(back->reason, ev->reason);
        cr_store_event_free(back);
        cr_store_event_free(ev);
    }

    ev = make(CR_SEV_TAG, 40, 2);
    snprintf(ev->tag.name, sizeof ev->tag.name, "Annotator");
    snprintf(ev->tag.value, sizeof ev->tag.value, "%s", "");
    back = round_trip(ev);
    assert_string_equal(back->tag.name, "Annotator");
    assert_string_equal(back->tag.value, "");
    cr_store_event_free(back);
    cr_store_event_free(ev);
}

/* A store fed with the messages ends equal to the one fed with the events. */
static void test_rebuild_store(void **state)
{
    (void)state;
    cr_store *a = cr_store_new(), *b = cr_store_new();
    cr_error err;
    cr_store_event *evs[8];
    int n = 0;
    cr_store_event *ev = make(CR_SEV_GAME, 1, 1);
    snprintf(ev->board, sizeof ev->board, "B1");
    snprintf(ev->round, sizeof ev->round, "1");
    cr_store_event_add_tag(ev, "White", "A");
    evs[n++] = ev;
    cr_position pos;
    cr_position_init_start(&pos);
    const char *moves[] = {"e2e4", "e7e5", "g1f3"};
    for (int i = 0; i < 3; i++) {
        ev = make(CR_SEV_MOVE, 2 + i, 1);
        ev->ply = i;
        cr_game *tmp = cr_game_new(&pos);
        cr_game_push(tmp, cr_move_from_uci(&pos, moves[i]), 60000 - i, -1, 0);
        ev->move = *cr_game_ply(tmp, 0);
        ev->move.emt_ms = CR_CLOCK_UNKNOWN;
        ev->move.ts = -1;
        pos = ev->move.after;
        cr_game_free(tmp);
        evs[n++] = ev;
    }
    ev = make(CR_SEV_CORRECTION, 5, 1);
    ev->ply = 2;
    ev->retracted = 1;
    evs[n++] = ev;
    ev = make(CR_SEV_CLOCK, 6, 1);
    ev->white_ms = 59000;
    ev->black_ms = 58000;
    ev->running = CR_WHITE;
    evs[n++] = ev;
    ev = make(CR_SEV_RESULT, 7, 1);
    ev->result = CR_RESULT_DRAW;
    evs[n++] = ev;
    for (int i = 0; i < n; i++) {
        if (cr_store_apply(a, evs[i], &err)) {
            fail_msg("apply %d: %s", i, err.text);
        }
        cr_buf *j = cr_store_event_json(evs[i]);
        if (cr_event_apply_json(b, j->data, j->len, NULL, &err)) {
            fail_msg("apply_json %d: %s: %s", i, j->data, err.text);
        }
        cr_buf_unref(j);
    }
    cr_buf *sa = cr_store_snapshot_json(a, 1, 0), *sb = cr_store_snapshot_json(b, 1, 0);
    assert_string_equal(sa->data, sb->data);
    cr_buf *pa = cr_store_pgn(a, 1), *pb = cr_store_pgn(b, 1);
    assert_string_equal(pa->data, pb->data);
    cr_buf_unref(sa);
    cr_buf_unref(sb);
    cr_buf_unref(pa);
    cr_buf_unref(pb);

    /* a move that does not fit the store's game is refused, store unchanged */
    const char *bad_move =
        "{\"type\":\"move\",\"seq\":8,\"ts\":1,\"game\":1,\"ply\":2,\"san\":\"Ke2\","
        "\"uci\":\"e1e3\",\"fen\":\"8/8/8/8/8/8/8/K6k w - - 0 1\",\"clock\":null,"
        "\"flags\":[]}";
    assert_int_equal(cr_event_apply_json(b, bad_move, strlen(bad_move), NULL, &err), CR_EPROTO);
    assert_non_null(strstr(err.text, "uci"));
    assert_true(cr_store_last_seq(b) == 7);
    /* a move of a game the store does not have (fuzz_event: the error read
     * the freed event) */
    const char *orphan =
        "{\"type\":\"move\",\"seq\":8,\"ts\":1,\"game\":77,\"ply\":0,\"san\":\"e4\","
        "\"uci\":\"e2e4\",\"fen\":\"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\","
        "\"clock\":null,\"flags\":[]}";
    assert_int_equal(cr_event_apply_json(b, orphan, strlen(orphan), NULL, &err), CR_EINVAL);
    assert_string_equal(err.text, "move: game: unknown game 77");
    assert_true(cr_store_last_seq(b) == 7);
    for (int i = 0; i < n; i++) {
        cr_store_event_free(evs[i]);
    }
    cr_store_free(a);
    cr_store_free(b);
}

/* Each malformed message is refused, the error naming the field. */
static void test_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *text, *field;
    } cases[] = {
        {"", "not JSON"},
        {"{\"type\":\"move\"", "not JSON"},
        {"[1,2]", "(message)"},
        {"{\"seq\":1,\"ts\":1}", "type: missing"},
        {"{\"type\":7,\"seq\":1,\"ts\":1}", "type: expected a string"},
        {"{\"type\":\"snapshot\",\"seq\":1,\"ts\":1}", "type: unknown"},
        {"{\"type\":\"clock\",\"seq\":\"1\",\"ts\":1,\"game\":1,\"white\":1,\"black\":1,"
         "\"running\":\"w\"}",
         "seq: expected an integer"},
        {"{\"type\":\"clock\",\"seq\":0,\"ts\":1,\"game\":1,\"white\":1,\"black\":1,\"running\":"
         "\"w\"}",
         "seq: out of range"},
        {"{\"type\":\"clock\",\"seq\":1,\"game\":1,\"white\":1,\"black\":1,\"running\":\"w\"}",
         "ts: missing"},
        {"{\"type\":\"clock\",\"seq\":1,\"ts\":1,\"white\":1,\"black\":1,\"running\":\"w\"}",
         "clock: game: missing"},
        {"{\"type\":\"clock\",\"seq\":1,\"ts\":1,\"game\":1,\"white\":1,\"black\":1,\"running\":"
         "\"x\"}",
         "clock: running"},
        {"{\"type\":\"clock\",\"seq\":1,\"ts\":1,\"game\":1,\"white\":1.5,\"black\":1,\"running\":"
         "\"w\"}",
         "clock: white: expected an integer"},
        {"{\"type\":\"clock\",\"seq\":1,\"ts\":1,\"game\":1,\"white\":1,\"black\":1,\"running\":"
         "\"w\",\"x\":1}",
         "clock: x: unknown field"},
        {"{\"type\":\"clock\",\"seq\":1,\"seq\":2,\"ts\":1,\"game\":1,\"white\":1,\"black\":1,"
         "\"running\":\"w\"}",
         "not JSON"},
        {"{\"type\":\"move\",\"seq\":1,\"ts\":1,\"game\":1,\"ply\":0,\"san\":\"e4\",\"uci\":"
         "\"e2e4\","
         "\"fen\":\"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 "
         "1\",\"clock\":\"1:00\",\"flags\":[]}",
         "move: clock"},
        {"{\"type\":\"move\",\"seq\":1,\"ts\":1,\"game\":1,\"ply\":0,\"san\":\"e4\",\"uci\":"
         "\"e2e4\","
         "\"fen\":\"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 "
         "1\",\"clock\":null,\"flags\":[\"lucky\"]}",
         "move: flags[0]: unknown flag"},
        {"{\"type\":\"move\",\"seq\":1,\"ts\":1,\"game\":1,\"ply\":0,\"san\":\"e4\",\"uci\":"
         "\"e2e4\","
         "\"fen\":\"not a fen\",\"clock\":null,\"flags\":[]}",
         "move: fen: invalid FEN"},
        {"{\"type\":\"move\",\"seq\":1,\"ts\":1,\"game\":1,\"ply\":-1,\"san\":\"e4\",\"uci\":"
         "\"e2e4\","
         "\"fen\":\"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 "
         "1\",\"clock\":null,\"flags\":[]}",
         "move: ply: out of range"},
        {"{\"type\":\"move\",\"seq\":1,\"ts\":1,\"game\":1,\"ply\":0,\"san\":\"e4\",\"uci\":"
         "\"e2e4xxxx\","
         "\"fen\":\"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 "
         "1\",\"clock\":null,\"flags\":[]}",
         "move: uci: too long"},
        {"{\"type\":\"game\",\"seq\":1,\"ts\":1,\"game\":7}", "game: game: expected an object"},
        {"{\"type\":\"game\",\"seq\":1,\"ts\":1,\"game\":{\"id\":7,\"round\":\"1\",\"board\":\"B\","
         "\"tags\":{\"White\":3},\"start\":\"8/8/8/8/8/8/8/K6k w - - 0 1\"}}",
         "game: tags.White: expected a string"},
        {"{\"type\":\"game\",\"seq\":1,\"ts\":1,\"game\":{\"id\":7,\"round\":\"12345678901234567\","
         "\"board\":\"B\",\"tags\":{},\"start\":\"8/8/8/8/8/8/8/K6k w - - 0 1\"}}",
         "game: round: too long"},
        {"{\"type\":\"game\",\"seq\":1,\"ts\":1,\"game\":{\"id\":7,\"round\":\"1\",\"board\":\"B\","
         "\"tags\":{},\"start\":\"8/8/8/8/8/8/8/K6k w - - 0 1\",\"moves\":[]}}",
         "game: game.moves: unknown field"},
        {"{\"type\":\"game\",\"seq\":1,\"ts\":1,\"game\":{\"id\":7,\"round\":\"1\",\"board\":\"B\","
         "\"tags\":{}}}",
         "game: start: missing"},
        {"{\"type\":\"result\",\"seq\":1,\"ts\":1,\"game\":1,\"result\":\"2-0\",\"reason\":\"\"}",
         "result: result"},
        {"{\"type\":\"status\",\"seq\":1,\"ts\":1,\"game\":1,\"online\":1,\"attention\":false}",
         "status: online: expected true or false"},
        {"{\"type\":\"tag\",\"seq\":1,\"ts\":1,\"game\":1,\"name\":\"\",\"value\":\"x\"}",
         "tag: name: empty"},
        {"{\"type\":\"correction\",\"seq\":1,\"ts\":1,\"game\":1,\"ply\":0}",
         "correction: retracted: missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_store_event *ev = (cr_store_event *)1;
        cr_error err;
        cr_error_clear(&err);
        int rc = cr_event_decode(cases[i].text, strlen(cases[i].text), &ev, &err);
        if (rc != CR_EPROTO || ev != NULL || !strstr(err.text, cases[i].field)) {
            fail_msg("case %zu (%s): rc %d, error '%s', wanted '%s'", i, cases[i].text, rc,
                     err.text, cases[i].field);
        }
    }
}

/* A move whose fen does not follow from its uci is refused. */
static void test_resolve_mismatch(void **state)
{
    (void)state;
    const char *text = "{\"type\":\"move\",\"seq\":1,\"ts\":1,\"game\":1,\"ply\":0,\"san\":\"e4\","
                       "\"uci\":\"e2e4\",\"fen\":\"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b "
                       "KQkq - 0 1\",\"clock\":null,\"flags\":[]}";
    cr_store_event *ev;
    cr_error err;
    assert_int_equal(cr_event_decode(text, strlen(text), &ev, &err), 0);
    cr_position start;
    cr_position_init_start(&start);
    assert_int_equal(cr_event_resolve_move(ev, &start, &err), CR_EPROTO);
    assert_non_null(strstr(err.text, "move: fen:"));
    cr_store_event_free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_game_round_trip),
        cmocka_unit_test(test_move_round_trip),
        cmocka_unit_test(test_other_kinds_round_trip),
        cmocka_unit_test(test_rebuild_store),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_resolve_mismatch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
