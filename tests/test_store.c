/* Tests of the relay's game store: events applied, refused, serialised. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/store.h"

/* Builds the MOVE event for `uci` in game `g` (as the loop does from the
 * inference: the ply is computed by a cr_game). */
static cr_store_event *move_event(const cr_store *s, int id, const char *uci, int64_t seq,
                                  int32_t clock_ms)
{
    const cr_store_game *g = cr_store_find(s, id);
    assert_non_null(g);
    cr_game *scratch = cr_game_clone(g->game);
    cr_move m = cr_move_from_uci(cr_game_position(scratch), uci);
    assert_int_not_equal(m, CR_MOVE_NONE);
    assert_int_equal(cr_game_push(scratch, m, clock_ms, seq * 1000, 0), 0);
    cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
    ev->seq = seq;
    ev->ts = seq * 1000;
    ev->game = id;
    ev->ply = cr_game_ply_count(scratch) - 1;
    ev->move = *cr_game_ply(scratch, ev->ply);
    cr_game_free(scratch);
    return ev;
}

static cr_store_event *game_event(int id, int64_t seq, const char *board, const char *round)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    ev->seq = seq;
    ev->ts = seq * 1000;
    ev->game = id;
    strcpy(ev->board, board);
    strcpy(ev->round, round);
    cr_store_event_add_tag(ev, "White", "Morphy, Paul");
    cr_store_event_add_tag(ev, "Black", "Duke \"Karl\" of Brunswick");
    return ev;
}

static cr_store_event *tag_event(int id, int64_t seq, const char *name, const char *value)
{
    cr_store_event *t = cr_store_event_new(CR_SEV_TAG);
    t->seq = seq;
    t->game = id;
    snprintf(t->tag.name, sizeof t->tag.name, "%s", name);
    snprintf(t->tag.value, sizeof t->tag.value, "%s", value);
    return t;
}

static void apply_ok(cr_store *s, cr_store_event *ev)
{
    cr_error err;
    cr_error_clear(&err);
    int rc = cr_store_apply(s, ev, &err);
    if (rc) {
        fail_msg("apply: %s", err.text);
    }
    cr_store_event_free(ev);
}

static json_t *parse(cr_buf *b)
{
    assert_non_null(b);
    json_error_t jerr;
    json_t *j = json_loads(b->data, 0, &jerr);
    assert_non_null(j);
    cr_buf_unref(b);
    return j;
}

static void test_moves_and_snapshot(void **state)
{
    (void)state;
    cr_store *s = cr_store_new();
    apply_ok(s, game_event(1, 1, "DGT1", "3"));
    apply_ok(s, move_event(s, 1, "e2e4", 2, 5398000));
    apply_ok(s, move_event(s, 1, "e7e5", 3, 5395000));
    apply_ok(s, move_event(s, 1, "g1f3", 4, CR_CLOCK_UNKNOWN));

    /* Black's clock starts: a reading alone never times a ply (no guess
     * from the order of MOVE and CLOCK)... */
    cr_store_event *ck = cr_store_event_new(CR_SEV_CLOCK);
    ck->seq = 5;
    ck->ts = 5000;
    ck->game = 1;
    ck->white_ms = 5390000;
    ck->black_ms = 5395000;
    ck->running = CR_BLACK;
    apply_ok(s, ck);
    const cr_store_game *g = cr_store_find(s, 1);
    assert_int_equal(cr_game_ply(g->game, 2)->clock_ms, CR_CLOCK_UNKNOWN);

    /* ...the inference's PLY_CLOCK does: Nf3's clock and %emt. */
    ck = cr_store_event_new(CR_SEV_CLOCK);
    ck->seq = 6;
    ck->ts = 5000;
    ck->game = 1;
    ck->white_ms = 5390000;
    ck->black_ms = 5395000;
    ck->running = CR_BLACK;
    ck->clock_ply = 2;
    ck->ply_clock_ms = 5390000;
    ck->ply_emt_ms = 4000;
    apply_ok(s, ck);
    ck = cr_store_event_new(CR_SEV_CLOCK); /* a ply the game does not have */
    ck->seq = 7;
    ck->game = 1;
    ck->clock_ply = 3;
    cr_error err;
    assert_int_equal(cr_store_apply(s, ck, &err), CR_EINVAL);
    cr_store_event_free(ck);

    g = cr_store_find(s, 1);
    assert_int_equal(cr_game_ply_count(g->game), 3);
    assert_int_equal(g->last_seq, 6);
    assert_int_equal(cr_game_ply(g->game, 2)->clock_ms, 5390000);
    assert_int_equal(cr_game_ply(g->game, 2)->emt_ms, 4000);
    assert_int_equal(g->running, CR_BLACK);
    assert_ptr_equal(cr_store_board_game(s, "DGT1"), g);
    assert_null(cr_store_board_game(s, "DGT2"));
    assert_null(cr_store_find(s, 2));

    json_t *j = parse(cr_store_snapshot_json(s, 1, 900));
    assert_string_equal(json_string_value(json_object_get(j, "type")), "snapshot");
    assert_int_equal(json_integer_value(json_object_get(j, "seq")), 6);
    json_t *gj = json_object_get(j, "game");
    assert_int_equal(json_integer_value(json_object_get(gj, "delay")), 900);
    assert_string_equal(json_string_value(json_object_get(gj, "round")), "3");
    json_t *moves = json_object_get(gj, "moves");
    assert_int_equal(json_array_size(moves), 3);
    assert_string_equal(json_string_value(json_object_get(json_array_get(moves, 2), "san")), "Nf3");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(moves, 0), "clock")),
                     5398000);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(moves, 2), "clock")),
                     5390000);
    /* %emt for the viewer's move times: known for Nf3, null (unknown) for e4 */
    assert_int_equal(json_integer_value(json_object_get(json_array_get(moves, 2), "emt")), 4000);
    assert_true(json_is_null(json_object_get(json_array_get(moves, 0), "emt")));
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(gj, "clock"), "running")), "b");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(gj, "tags"), "Black")),
        "Duke \"Karl\" of Brunswick");
    json_decref(j);

    j = parse(cr_store_summary_json(s, 1));
    assert_string_equal(json_string_value(json_object_get(j, "last")), "Nf3");
    assert_int_equal(json_integer_value(json_object_get(j, "plies")), 3);
    assert_string_equal(json_string_value(json_object_get(j, "white")), "Morphy, Paul");
    assert_null(json_object_get(j, "white_title")); /* unknown: left out */
    json_decref(j);
    apply_ok(s, tag_event(1, 100, "BlackTitle", "GM"));
    apply_ok(s, tag_event(1, 101, "WhiteFed", "USA"));
    apply_ok(s, tag_event(1, 102, "BlackTeam", "Brunswick"));
    j = parse(cr_store_summary_json(s, 1));
    assert_string_equal(json_string_value(json_object_get(j, "black_title")), "GM");
    assert_string_equal(json_string_value(json_object_get(j, "white_fed")), "USA");
    assert_string_equal(json_string_value(json_object_get(j, "black_team")), "Brunswick");
    assert_null(json_object_get(j, "white_title"));
    assert_null(json_object_get(j, "white_team"));
    json_decref(j);
    cr_store_free(s);
}

static void test_refused(void **state)
{
    (void)state;
    cr_store *s = cr_store_new();
    cr_error err;
    apply_ok(s, game_event(5, 1, "T1", "1"));
    /* a game id used twice */
    cr_store_event *ev = game_event(5, 2, "T2", "1");
    assert_int_equal(cr_store_apply(s, ev, &err), CR_EINVAL);
    cr_store_event_free(ev);
    /* unknown game */
    ev = cr_store_event_new(CR_SEV_CLOCK);
    ev->seq = 3;
    ev->game = 9;
    assert_int_equal(cr_store_apply(s, ev, &err), CR_EINVAL);
    assert_non_null(strstr(err.text, "unknown game 9"));
    /* seq must grow */
    ev->game = 5;
    ev->seq = 1;
    assert_int_equal(cr_store_apply(s, ev, &err), CR_EINVAL);
    cr_store_event_free(ev);
    /* a move for the wrong ply */
    ev = move_event(s, 5, "d2d4", 4, 1000);
    ev->ply = 1;
    assert_int_equal(cr_store_apply(s, ev, &err), CR_EINVAL);
    assert_non_null(strstr(err.text, "ply 1"));
    /* a move that is not legal in the game's position */
    ev->ply = 0;
    ev->move.move = cr_move_make(CR_SQ_E2, CR_SQ_E5, CR_MOVE_NORMAL, 0);
    assert_int_not_equal(cr_store_apply(s, ev, &err), 0);
    cr_store_event_free(ev);
    assert_int_equal(cr_game_ply_count(cr_store_find(s, 5)->game), 0);
    assert_int_equal(cr_store_last_seq(s), 1);
    cr_store_free(s);
}

/* A MOVE with the position it was worked out on (as the inference's plies
 * come) is appended as it came where the game stands there; where it does
 * not, it is worked out as any other (legal or refused), never taken on
 * trust. */
static void test_move_worked_out(void **state)
{
    (void)state;
    cr_store *s = cr_store_new();
    cr_error err;
    apply_ok(s, game_event(5, 1, "T1", "1"));
    cr_store_event *ev = move_event(s, 5, "e2e4", 2, 1000);
    ev->has_before = true;
    cr_position_init_start(&ev->before);
    ev->move.nag[0] = 1; /* as it came, not worked out again (which has none) */
    apply_ok(s, ev);
    const cr_ply *p = cr_game_ply(cr_store_find(s, 5)->game, 0);
    assert_string_equal(p->san, "e4");
    assert_int_equal(p->nag[0], 1);
    /* worked out on another position: the store works it out itself */
    ev = move_event(s, 5, "e7e5", 3, 900);
    ev->has_before = true;
    cr_position_init_start(&ev->before);
    strcpy(ev->move.san, "??");
    ev->move.nag[0] = 1;
    apply_ok(s, ev);
    assert_string_equal(cr_game_ply(cr_store_find(s, 5)->game, 1)->san, "e5");
    assert_int_equal(cr_game_ply(cr_store_find(s, 5)->game, 1)->nag[0], 0);
    /* and refuses it when it is not legal here */
    ev = move_event(s, 5, "g1f3", 4, 800);
    ev->has_before = true;
    cr_position_init_start(&ev->before);
    ev->move.move = cr_move_make(CR_SQ_E2, CR_SQ_E5, CR_MOVE_NORMAL, 0);
    assert_int_not_equal(cr_store_apply(s, ev, &err), 0);
    cr_store_event_free(ev);
    assert_int_equal(cr_game_ply_count(cr_store_find(s, 5)->game), 2);
    cr_store_free(s);
}

static void test_correction_result_pgn(void **state)
{
    (void)state;
    cr_store *s = cr_store_new();
    apply_ok(s, game_event(1, 1, "DGT1", "1"));
    apply_ok(s, move_event(s, 1, "e2e4", 2, 5398000));
    apply_ok(s, move_event(s, 1, "e7e5", 3, 5395000));
    cr_store_event *ev = cr_store_event_new(CR_SEV_CORRECTION);
    ev->seq = 4;
    ev->game = 1;
    ev->ply = 1;
    ev->retracted = 1;
    apply_ok(s, ev);
    apply_ok(s, move_event(s, 1, "c7c5", 5, 5394000));
    ev = cr_store_event_new(CR_SEV_RESULT);
    ev->seq = 6;
    ev->game = 1;
    ev->result = CR_RESULT_DRAW;
    strcpy(ev->reason, "agreed");
    apply_ok(s, ev);

    cr_buf *pgn = cr_store_pgn(s, 1);
    assert_non_null(pgn);
    assert_non_null(strstr(pgn->data, "[White \"Morphy, Paul\"]\n"));
    assert_non_null(strstr(pgn->data, "[Black \"Duke \\\"Karl\\\" of Brunswick\"]\n"));
    assert_non_null(strstr(pgn->data, "[Result \"1/2-1/2\"]\n"));
    assert_non_null(strstr(pgn->data, "[Round \"1\"]\n"));
    assert_non_null(strstr(pgn->data, "[Board \"DGT1\"]\n"));
    assert_non_null(strstr(pgn->data, "1. e4 {[%clk 1:29:58]}"));
    assert_non_null(strstr(pgn->data, "c5 {[%clk 1:29:54]}"));
    assert_non_null(strstr(pgn->data, " 1/2-1/2\n\n"));
    assert_null(strstr(pgn->data, "e5"));
    cr_buf_unref(pgn);
    cr_store_free(s);
}

static void test_event_json(void **state)
{
    (void)state;
    cr_store_event *ev = cr_store_event_new(CR_SEV_CLOCK);
    ev->seq = 122;
    ev->ts = 1764427202000000;
    ev->game = 7;
    ev->white_ms = 5397000;
    ev->black_ms = 5395000;
    ev->running = CR_WHITE;
    cr_buf *b = cr_store_event_json(ev);
    assert_string_equal(b->data, "{\"type\":\"clock\",\"seq\":122,\"ts\":1764427202000000,"
                                 "\"game\":7,\"white\":5397000,\"black\":5395000,\"running\":\"w\"}");
    /* shared: a second reference keeps it alive */
    cr_buf *b2 = cr_buf_ref(b);
    cr_buf_unref(b);
    assert_int_equal(b2->len, strlen(b2->data));
    cr_buf_unref(b2);
    cr_store_event_free(ev);

    ev = game_event(8, 125, "T16.2", "1");
    cr_store_event_add_tag(ev, "Event", "bad \xff utf8");
    json_t *j = parse(cr_store_event_json(ev));
    assert_string_equal(json_string_value(json_object_get(json_object_get(j, "game"), "board")),
                        "T16.2");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(j, "game"), "tags"), "Event")),
        "bad ? utf8");
    json_decref(j);
    cr_store_event_free(ev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moves_and_snapshot),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_move_worked_out),
        cmocka_unit_test(test_correction_result_pgn),
        cmocka_unit_test(test_event_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
