/* Scoresheets reconciled with the board's record (cr/reconcile.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cr/notation.h"
#include "cr/pgn.h"
#include "cr/reconcile.h"

/* Morphy's Opera game, 33 plies. */
static const char *const OPERA =
    "1. e4 e5 2. Nf3 d6 3. d4 Bg4 4. dxe5 Bxf3 5. Qxf3 dxe5 6. Bc4 Nf6 7. Qb3 Qe7 "
    "8. Nc3 c6 9. Bg5 b5 10. Nxb5 cxb5 11. Bxb5+ Nbd7 12. O-O-O Rd8 13. Rxd7 Rxd7 "
    "14. Rd1 Qe6 15. Bxd7+ Nxd7 16. Qb8+ Nxb8 17. Rd8# 1-0";

static cr_game *parse(const char *pgn)
{
    cr_game *g = NULL;
    cr_error err;
    assert_int_equal(cr_pgn_parse(pgn, strlen(pgn), -1, &g, &err), 0);
    return g;
}

/* The true game as the board recorded it, plies [from, to) not seen: one
 * gap ply ("at least `least` plies") standing for them. */
static cr_game *with_gap(const cr_game *truth, int from, int to, int least)
{
    cr_game *g = cr_game_new(NULL);
    for (int i = 0; i < cr_game_ply_count(truth); i++) {
        const cr_ply *p = cr_game_ply(truth, i);
        if (i >= from && i < to) {
            if (i == to - 1) {
                assert_int_equal(cr_game_push_illegal(g, &p->after, "--", CR_CLOCK_UNKNOWN, -1), 0);
                cr_ply *q = cr_game_ply_mut(g, cr_game_ply_count(g) - 1);
                q->flags |= CR_PLY_MISSING;
                q->missing = (uint16_t)least;
            }
            continue;
        }
        assert_int_equal(cr_game_push(g, p->move, 60000 - i * 1000, i, 0), 0);
    }
    cr_game_set_result(g, cr_game_result(truth));
    return g;
}

static void assert_same_moves(const cr_game *a, const cr_game *b)
{
    assert_int_equal(cr_game_ply_count(a), cr_game_ply_count(b));
    for (int i = 0; i < cr_game_ply_count(a); i++) {
        assert_string_equal(cr_game_ply(a, i)->san, cr_game_ply(b, i)->san);
    }
}

/* A Russian scoresheet with three differences (a wrong move, an unreadable
 * one, a move left out) and the board's record with a gap of six plies:
 * the gap is filled from the sheet, the three are listed with both
 * versions, and the reconciled game is the game played. */
static void test_three_differences_and_a_gap(void **state)
{
    (void)state;
    cr_game *truth = parse(OPERA);
    assert_int_equal(cr_game_ply_count(truth), 33);
    cr_game *rec = with_gap(truth, 10, 16, 4);
    assert_int_equal(cr_game_ply_count(rec), 28);
    const char *sheet =
        "1.e4 e5 2. \xd0\x9a" "f3 d5\n" /* 2... d5: the board shows d6 */
        "3. d4 \xd0\xa1g4 4. dxe5 \xd0\xa1xf3 5. \xd0\xa4xf3 dxe5 6. \xd0\xa1" "c4 \xd0\x9a" "f6\n"
        "7. \xd0\xa4" "b3 \xd0\xa4" "e7 8. \xd0\x9a" "c3 c6 {time} 9. \xd0\xa1g5 b5\n"
        "10. \xd0\x9axb6 cxb5 11. \xd0\xa1xb5+ \xd0\x9a" "bd7 12. 0-0-0 \xd0\x9b" "d8 (=)\n" /* Кxb6: no such move */
        "13. \xd0\x9bxd7 \xd0\x9bxd7 14. \xd0\xa4" "e6\n" /* 14. Rd1 left out */
        "15. \xd0\xa1xd7+ \xd0\x9axd7 16. \xd0\xa4" "b8+ \xd0\x9axb8 17. \xd0\x9b" "d8# 1-0\n";
    cr_recon_result *r = NULL;
    cr_error err;
    assert_int_equal(cr_reconcile(rec, sheet, strlen(sheet), -1, &r, &err), 0);
    assert_int_equal(r->differences, 3);
    assert_int_equal(r->count, 4);
    assert_int_equal(r->items[0].kind, CR_RECON_DIFFER);
    assert_int_equal(r->items[0].ply, 3);
    assert_string_equal(r->items[0].board_san, "d6");
    assert_string_equal(r->items[0].sheet_san, "d5");
    assert_string_equal(r->items[0].sheet_text, "d5");
    assert_int_equal(r->items[0].clock_ms, 57000);
    assert_string_equal(r->items[0].fen, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
    assert_int_equal(r->items[1].kind, CR_RECON_GAP_FILLED);
    assert_int_equal(r->items[1].ply, 10);
    assert_int_equal(r->items[1].count, 6);
    assert_int_equal(r->items[2].kind, CR_RECON_UNREADABLE);
    assert_int_equal(r->items[2].ply, 18);
    assert_string_equal(r->items[2].board_san, "Nxb5");
    assert_string_equal(r->items[2].sheet_text, "\xd0\x9axb6");
    assert_string_equal(r->items[2].sheet_san, "");
    assert_int_equal(r->items[3].kind, CR_RECON_SHEET_LACKS);
    assert_int_equal(r->items[3].ply, 26);
    assert_string_equal(r->items[3].board_san, "Rd1");
    /* the board's moves stand; the gap holds the sheet's */
    assert_same_moves(r->game, truth);
    assert_int_equal(cr_game_result(r->game), CR_RESULT_WHITE);
    assert_string_equal(cr_game_comment(r->game, 15), "gap filled from the scoresheet: 6 plies");
    assert_int_equal(cr_game_ply(r->game, 12)->clock_ms, CR_CLOCK_UNKNOWN);
    assert_int_equal(cr_game_ply(r->game, 16)->clock_ms, 60000 - 16 * 1000);
    assert_int_equal(r->compared, 28);
    cr_reconcile_free(r);
    /* the record is not changed */
    assert_int_equal(cr_game_ply_count(rec), 28);
    cr_game_free(rec);
    cr_game_free(truth);
}

/* A sheet in English long form with a move written twice, ending before
 * the board; and one going on after it. */
static void test_extra_and_ends(void **state)
{
    (void)state;
    cr_game *truth = parse(OPERA);
    cr_game *rec = with_gap(truth, 0, 0, 0);
    const char *sheet = "1. e2-e4 e7-e5 2. Ng1-f3 Ng1-f3 d7-d6 3. d2-d4 Bc8-g4 4. d4xe5";
    cr_recon_result *r = NULL;
    cr_error err;
    assert_int_equal(cr_reconcile(rec, sheet, strlen(sheet), CR_LANG_EN, &r, &err), 0);
    assert_int_equal(r->count, 2);
    assert_int_equal(r->items[0].kind, CR_RECON_SHEET_EXTRA);
    assert_int_equal(r->items[0].ply, 3);
    assert_string_equal(r->items[0].sheet_text, "Ng1-f3");
    assert_int_equal(r->items[1].kind, CR_RECON_SHEET_ENDS);
    assert_int_equal(r->items[1].ply, 7);
    assert_int_equal(r->items[1].count, 26);
    assert_same_moves(r->game, truth);
    cr_reconcile_free(r);
    cr_game_free(rec);

    /* the board's record stops at ply 4, the sheet goes on */
    cr_game *shortg = parse("1. e4 e5 2. Nf3 d6 *");
    const char *more = "1 e4 e5 2 Nf3 d6 3 d4 Bg4";
    assert_int_equal(cr_reconcile(shortg, more, strlen(more), -1, &r, &err), 0);
    assert_int_equal(r->count, 1);
    assert_int_equal(r->items[0].kind, CR_RECON_BOARD_ENDS);
    assert_int_equal(r->items[0].count, 2);
    assert_string_equal(r->items[0].sheet_san, "d4");
    cr_reconcile_free(r);
    cr_game_free(shortg);
    cr_game_free(truth);
}

/* A gap the sheet does not bridge (its moves reach another position):
 * named, the rest of the record kept, nothing after it compared. */
static void test_gap_open(void **state)
{
    (void)state;
    cr_game *truth = parse(OPERA);
    cr_game *rec = with_gap(truth, 4, 8, 2);
    const char *sheet = "1. e4 e5 2. Nf3 d6 3. d4 Nc6 4. dxe5 Nxe5 5. Nxe5 dxe5 6. Bc4";
    cr_recon_result *r = NULL;
    cr_error err;
    assert_int_equal(cr_reconcile(rec, sheet, strlen(sheet), -1, &r, &err), 0);
    assert_int_equal(r->count, 1);
    assert_int_equal(r->items[0].kind, CR_RECON_GAP_OPEN);
    assert_int_equal(r->items[0].ply, 4);
    assert_string_equal(r->items[0].sheet_san, "d4");
    assert_int_equal(cr_game_ply_count(r->game), cr_game_ply_count(rec));
    assert_true(cr_game_ply(r->game, 4)->flags & CR_PLY_MISSING);
    cr_reconcile_free(r);
    cr_game_free(rec);
    cr_game_free(truth);
}

/* What is not a move is never read as one; a sheet without moves is refused. */
static void test_sheet_text(void **state)
{
    (void)state;
    cr_game *g = parse("1. e4 d5 2. exd5 c5 3. dxc6 *");
    const char *sheet = "[Event \"x\"]\n1.e4 d5 $1 2.exd5 ; a remark\n c5 (2... Qxd5) 3.dxc6 e.p.! 1/2-1/2";
    cr_recon_result *r = NULL;
    cr_error err;
    assert_int_equal(cr_reconcile(g, sheet, strlen(sheet), -1, &r, &err), 0);
    assert_int_equal(r->count, 0);
    assert_int_equal(r->compared, 5);
    cr_reconcile_free(r);
    const char *none = "{nothing} 1-0";
    assert_int_equal(cr_reconcile(g, none, strlen(none), -1, &r, &err), CR_EINVAL);
    assert_null(r);
    assert_string_equal(err.text, "the scoresheet has no move");
    /* a figurine sheet, with an ellipsis for Black's move */
    const char *fig = "1. e4 1\xe2\x80\xa6 d5 2. exd5 c5 3. dxc6";
    assert_int_equal(cr_reconcile(g, fig, strlen(fig), -1, &r, &err), 0);
    assert_int_equal(r->differences, 0);
    cr_reconcile_free(r);
    cr_game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_differences_and_a_gap),
        cmocka_unit_test(test_extra_and_ends),
        cmocka_unit_test(test_gap_open),
        cmocka_unit_test(test_sheet_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
