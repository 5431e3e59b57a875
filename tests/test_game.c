/* Game record: tags, pushing and retracting plies, repetition counts,
 * illegal plies, comments, clone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cr/game.h"

static void push_uci(cr_game *g, const char *uci)
{
    cr_move m = cr_move_from_uci(cr_game_position(g), uci);
    assert_int_not_equal(m, CR_MOVE_NONE);
    assert_int_equal(cr_game_push(g, m, CR_CLOCK_UNKNOWN, -1, 0), 0);
}

static void test_tags(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    assert_non_null(g);
    assert_null(cr_game_tag(g, "White"));
    assert_int_equal(cr_game_set_tag(g, "White", "Carlsen, Magnus"), 0);
    assert_int_equal(cr_game_set_tag(g, "Black", "Caruana, Fabiano"), 0);
    assert_int_equal(cr_game_set_tag(g, "White", "Anand, Viswanathan"), 0);
    assert_string_equal(cr_game_tag(g, "White"), "Anand, Viswanathan");
    assert_int_equal(cr_game_tag_count(g), 2);
    assert_int_equal(cr_game_set_tag(g, "FEN", "x"), CR_EINVAL);
    assert_int_equal(cr_game_set_tag(g, "White", NULL), 0);
    assert_int_equal(cr_game_tag_count(g), 1);
    const char *n, *v;
    cr_game_tag_at(g, 0, &n, &v);
    assert_string_equal(n, "Black");
    assert_string_equal(v, "Caruana, Fabiano");
    cr_game_free(g);
}

static void test_push_and_truncate(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    push_uci(g, "e2e4");
    push_uci(g, "e7e5");
    push_uci(g, "g1f3");
    assert_int_equal(cr_game_ply_count(g), 3);
    assert_string_equal(cr_game_ply(g, 2)->san, "Nf3");
    assert_string_equal(cr_game_ply(g, 2)->uci, "g1f3");
    assert_int_equal(cr_game_ply(g, 0)->fits, 1);
    char fen[CR_FEN_MAX];
    cr_position_to_fen(cr_game_position(g), fen, sizeof fen);
    assert_string_equal(fen, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    /* An illegal move in the current position is refused. */
    cr_move bad = cr_move_make(CR_SQ_E1, CR_SQ_E3, CR_MOVE_NORMAL, 0);
    assert_int_equal(cr_game_push(g, bad, CR_CLOCK_UNKNOWN, -1, 0), CR_EMOVE);
    cr_game_truncate(g, 1);
    assert_int_equal(cr_game_ply_count(g), 1);
    assert_ptr_equal(cr_game_position_at(g, 1), cr_game_position(g));
    push_uci(g, "c7c5");
    assert_string_equal(cr_game_ply(g, 1)->san, "c5");
    cr_game_free(g);
}

static void test_many_plies_realloc(void **state)
{
    (void)state;
    /* Knights dancing: forces the ply array to grow several times. */
    cr_game *g = cr_game_new(NULL);
    const char *cycle[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    for (int i = 0; i < 400; i++) {
        push_uci(g, cycle[i % 4]);
    }
    assert_int_equal(cr_game_ply_count(g), 400);
    assert_true(cr_position_ok(cr_game_position(g)));
    cr_game_free(g);
}

static void test_repetitions(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    assert_int_equal(cr_game_repetitions(g), 1);
    const char *cycle[] = {"g1f3", "g8f6", "f3g1", "f6g8"};
    for (int i = 0; i < 4; i++) {
        push_uci(g, cycle[i]);
    }
    assert_int_equal(cr_game_repetitions(g), 2);
    for (int i = 0; i < 4; i++) {
        push_uci(g, cycle[i]);
    }
    assert_int_equal(cr_game_repetitions(g), 3);
    /* An irreversible move ends every earlier repetition. */
    push_uci(g, "e2e4");
    assert_int_equal(cr_game_repetitions(g), 1);
    cr_game_free(g);
}

static void test_repetition_castling_rights(void **state)
{
    (void)state;
    /* The king goes out and back: same pieces, but castling rights are lost,
     * so by FIDE 9.2 it is not the same position. */
    cr_position start;
    assert_int_equal(cr_position_from_fen(&start, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", NULL), 0);
    cr_game *g = cr_game_new(&start);
    push_uci(g, "e1f1");
    push_uci(g, "e8f8");
    push_uci(g, "f1e1");
    push_uci(g, "f8e8");
    assert_int_equal(cr_game_repetitions(g), 1);
    push_uci(g, "e1f1");
    push_uci(g, "e8f8");
    push_uci(g, "f1e1");
    push_uci(g, "f8e8");
    assert_int_equal(cr_game_repetitions(g), 2);
    cr_game_free(g);
}

static void test_illegal_ply(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    push_uci(g, "e2e4");
    cr_position after = *cr_game_position(g);
    /* Black's king "jumps" from e8 to e6: only an illegal move gets there. */
    cr_position_from_fen(&after, "rnbq1bnr/pppppppp/4k3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQ - 0 2",
                         NULL);
    assert_int_equal(cr_game_push_illegal(g, &after, "Ke8-e6", 60000, 1234), 0);
    const cr_ply *p = cr_game_ply(g, 1);
    assert_int_equal(p->move, CR_MOVE_NONE);
    assert_true(p->flags & CR_PLY_ILLEGAL);
    assert_string_equal(p->san, "Ke8-e6");
    assert_int_equal(p->clock_ms, 60000);
    push_uci(g, "d2d4");
    assert_int_equal(cr_game_ply_count(g), 3);
    cr_game_free(g);
}

/* A copy that follows another game ply by ply takes each ply as it is,
 * and only onto the position it was played on. */
static void test_push_from(void **state)
{
    (void)state;
    cr_game *a = cr_game_new(NULL), *b = cr_game_new(NULL);
    push_uci(a, "e2e4");
    push_uci(a, "e7e5");
    cr_position after = *cr_game_position(a);
    cr_position_from_fen(&after, "rnbq1bnr/pppp1ppp/4k3/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQ - 1 3",
                         NULL);
    cr_ply *p = cr_game_ply_mut(a, 1);
    p->clock_ms = 5000;
    p->missing = 2;
    assert_int_equal(cr_game_push_from(b, a, 1), CR_EMOVE); /* b stands at the start */
    assert_int_equal(cr_game_push_from(b, a, 2), CR_EMOVE); /* no such ply */
    assert_int_equal(cr_game_push_from(b, a, 0), 0);
    assert_int_equal(cr_game_push_from(b, a, 1), 0);
    assert_int_equal(cr_game_ply_count(b), 2);
    assert_string_equal(cr_game_ply(b, 1)->san, "e5");
    assert_string_equal(cr_game_ply(b, 1)->uci, "e7e5");
    assert_int_equal(cr_game_ply(b, 1)->clock_ms, 5000);
    assert_int_equal(cr_game_ply(b, 1)->missing, 2);
    assert_int_equal(cr_game_position(b)->key, cr_game_position(a)->key);
    /* An illegal ply too: its position after is the one the board showed. */
    assert_int_equal(cr_game_push_illegal(a, &after, "Ke8-e6", 4000, 1), 0);
    assert_int_equal(cr_game_push_from(b, a, 2), 0);
    assert_true(cr_game_ply(b, 2)->flags & CR_PLY_ILLEGAL);
    assert_string_equal(cr_game_ply(b, 2)->san, "Ke8-e6");
    push_uci(b, "d2d4"); /* goes on from the copied position */
    assert_int_equal(cr_game_push_from(b, a, 2), CR_EMOVE);
    /* A ply handed over with the position it was made on: the same rule. */
    cr_game *c = cr_game_new(NULL);
    assert_int_equal(cr_game_push_ply(c, cr_game_position_at(a, 1), cr_game_ply(a, 1)), CR_EMOVE);
    assert_int_equal(cr_game_ply_count(c), 0);
    assert_int_equal(cr_game_push_ply(c, cr_game_position_at(a, 0), cr_game_ply(a, 0)), 0);
    assert_int_equal(cr_game_ply_count(c), 1);
    assert_string_equal(cr_game_ply(c, 0)->san, "e4");
    cr_game_free(c);
    cr_game_free(a);
    cr_game_free(b);
}

static void test_comments_clone_result(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    push_uci(g, "d2d4");
    push_uci(g, "d7d5");
    assert_int_equal(cr_game_set_comment(g, -1, "before"), 0);
    assert_int_equal(cr_game_set_comment(g, 1, "after d5"), 0);
    assert_int_equal(cr_game_set_comment(g, 5, "nope"), CR_EINVAL);
    cr_game_set_tag(g, "Event", "Test");
    cr_game_set_result(g, CR_RESULT_DRAW);
    cr_game *c = cr_game_clone(g);
    assert_non_null(c);
    cr_game_free(g);
    assert_string_equal(cr_game_comment(c, -1), "before");
    assert_string_equal(cr_game_comment(c, 1), "after d5");
    assert_null(cr_game_comment(c, 0));
    assert_string_equal(cr_game_tag(c, "Event"), "Test");
    assert_int_equal(cr_game_result(c), CR_RESULT_DRAW);
    assert_string_equal(cr_result_string(cr_game_result(c)), "1/2-1/2");
    assert_int_equal(cr_game_ply_count(c), 2);
    /* Retracting a ply drops its comment. */
    cr_game_truncate(c, 1);
    assert_null(cr_game_comment(c, 1));
    cr_game_free(c);
    assert_int_equal(cr_result_parse("0-1"), CR_RESULT_BLACK);
    assert_int_equal(cr_result_parse("*"), CR_RESULT_NONE);
    assert_int_equal(cr_result_parse("2-0"), -1);
}

static cr_game *game_fen(const char *fen)
{
    cr_position pos;
    assert_int_equal(cr_position_from_fen(&pos, fen, NULL), 0);
    cr_game *g = cr_game_new(&pos);
    assert_non_null(g);
    return g;
}

/* The arbiter corrects a ply: later plies kept while legal, with their
 * clocks and comments; from the first illegal one the rest goes. */
static void test_replace_ply(void **state)
{
    (void)state;
    /* A pawn promoted: the board read a queen, it was a knight. */
    cr_game *g = game_fen("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    push_uci(g, "b7b8q");
    cr_game_ply_mut(g, 0)->clock_ms = 61000;
    push_uci(g, "e8e7");
    cr_game_ply_mut(g, 1)->clock_ms = 59000;
    cr_game_ply_mut(g, 1)->emt_ms = 4000;
    cr_game_set_comment(g, 1, "thinks");
    push_uci(g, "b8b5"); /* a queen move: a knight cannot follow */
    push_uci(g, "e7d6");
    assert_int_equal(cr_game_replace_ply(g, 0, cr_move_from_uci(cr_game_start(g), "b7b8n")), 1);
    assert_int_equal(cr_game_ply_count(g), 2);
    assert_string_equal(cr_game_ply(g, 0)->san, "b8=N");
    assert_int_equal(cr_game_ply(g, 0)->clock_ms, 61000);
    assert_string_equal(cr_game_ply(g, 1)->san, "Ke7");
    assert_int_equal(cr_game_ply(g, 1)->clock_ms, 59000);
    assert_int_equal(cr_game_ply(g, 1)->emt_ms, 4000);
    assert_string_equal(cr_game_comment(g, 1), "thinks");
    cr_game_free(g);

    /* A misread square: everything after stays legal and is kept. */
    g = cr_game_new(NULL);
    push_uci(g, "e2e4");
    push_uci(g, "e7e5");
    push_uci(g, "g1f3");
    push_uci(g, "b8c6");
    const cr_position *before = cr_game_position_at(g, 2);
    assert_int_equal(cr_game_replace_ply(g, 2, cr_move_from_uci(before, "g1e2")), 1);
    assert_string_equal(cr_game_ply(g, 2)->san, "Ne2");
    assert_string_equal(cr_game_ply(g, 3)->san, "Nc6");
    assert_int_equal(cr_game_ply_count(g), 4);
    /* Not legal there: nothing changes. */
    assert_int_equal(cr_game_replace_ply(g, 0, cr_move_from_uci(cr_game_position(g), "c6b4")),
                     CR_EMOVE);
    assert_int_equal(cr_game_replace_ply(g, 9, CR_MOVE_NONE), CR_EINVAL);
    assert_int_equal(cr_game_ply_count(g), 4);
    cr_game_free(g);
}

/* Fivefold repetition and 75 moves, found over the whole record. */
static void test_automatic_draw(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    const char *why = NULL;
    for (int i = 0; i < 4; i++) {
        push_uci(g, "g1f3");
        push_uci(g, "g8f6");
        push_uci(g, "f3g1");
        assert_int_equal(cr_game_automatic_draw(g, NULL), -1);
        push_uci(g, "f6g8");
    }
    assert_int_equal(cr_game_automatic_draw(g, &why), 16);
    assert_string_equal(why, "fivefold repetition");
    push_uci(g, "e2e4"); /* play went on: the draw stands where it was */
    assert_int_equal(cr_game_automatic_draw(g, NULL), 16);
    cr_game_free(g);

    g = game_fen("8/8/4k3/8/8/4K3/8/R7 w - - 148 90");
    push_uci(g, "a1a2");
    assert_int_equal(cr_game_automatic_draw(g, NULL), -1);
    push_uci(g, "e6e5");
    assert_int_equal(cr_game_automatic_draw(g, &why), 2);
    assert_string_equal(why, "75-move rule");
    cr_game_free(g);
    /* The 150th ply mates: no draw. */
    g = game_fen("k7/8/1K6/8/8/8/8/7R w - - 149 100");
    push_uci(g, "h1h8");
    assert_int_equal(cr_game_automatic_draw(g, NULL), -1);
    cr_game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tags),
        cmocka_unit_test(test_push_and_truncate),
        cmocka_unit_test(test_push_from),
        cmocka_unit_test(test_many_plies_realloc),
        cmocka_unit_test(test_repetitions),
        cmocka_unit_test(test_repetition_castling_rights),
        cmocka_unit_test(test_illegal_ply),
        cmocka_unit_test(test_comments_clone_result),
        cmocka_unit_test(test_replace_ply),
        cmocka_unit_test(test_automatic_draw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
