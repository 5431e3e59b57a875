/* FEN reading and writing: round trips (standard, X-FEN, Shredder-FEN),
 * defaults, normalisation of e.p., and one case per validation fault with
 * its message and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cr/board.h"

static void expect_round_trip(const char *in, const char *out)
{
    cr_position pos;
    cr_error err;
    cr_error_clear(&err);
    int rc = cr_position_from_fen(&pos, in, &err);
    if (rc != 0) {
        print_error("FEN rejected: %s: column %d: %s\n", in, err.column, err.text);
    }
    assert_int_equal(rc, 0);
    assert_true(cr_position_ok(&pos));
    char buf[CR_FEN_MAX];
    int n = cr_position_to_fen(&pos, buf, sizeof buf);
    assert_int_equal(n, (int)strlen(buf));
    assert_string_equal(buf, out);
}

static void test_round_trips(void **state)
{
    (void)state;
    static const char *const same[] = {
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "4k3/8/8/8/8/8/8/4K2R w K - 99 200",
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
        "4k3/8/8/8/8/8/8/RR2K3 w B - 0 1", /* inner rook: Shredder letter */
        "1r2k1r1/8/8/8/8/8/8/1R2K1R1 w KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K3 b - - 0 65535",
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        expect_round_trip(same[i], same[i]);
    }
    /* Shredder-FEN and X-FEN in, KQkq out when the rooks are outermost. */
    expect_round_trip("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
                      "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9");
    expect_round_trip("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
                      "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    expect_round_trip("2r1kr2/8/8/8/8/8/8/1R4KR w Hfc - 0 1", "2r1kr2/8/8/8/8/8/8/1R4KR w Kkq - 0 1");
    /* Missing counters default to 0 1; extra blanks are tolerated. */
    expect_round_trip("4k3/8/8/8/8/8/8/4K3 w - -", "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    expect_round_trip("  4k3/8/8/8/8/8/8/4K3   w  -  -  3 ", "4k3/8/8/8/8/8/8/4K3 w - - 3 1");
    /* A plausible e.p. square without a legal capture is dropped. */
    expect_round_trip("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                      "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}

static void test_chess960_flag(void **state)
{
    (void)state;
    cr_position pos;
    assert_int_equal(cr_position_from_fen(&pos, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", NULL), 0);
    assert_false(pos.chess960);
    assert_int_equal(pos.castle_rook[CR_WHITE][CR_CASTLE_KING_SIDE], CR_SQ_H1);
    assert_int_equal(pos.castle_rook[CR_BLACK][CR_CASTLE_QUEEN_SIDE], CR_SQ_A8);
    assert_int_equal(cr_position_from_fen(&pos, "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", NULL), 0);
    assert_true(pos.chess960);
    assert_int_equal(pos.castle_rook[CR_WHITE][CR_CASTLE_QUEEN_SIDE], CR_SQ_F1);
    assert_int_equal(pos.halfmove, 2);
    assert_int_equal(pos.fullmove, 9);
}

static void test_placement(void **state)
{
    (void)state;
    uint8_t board[CR_SQ_NB];
    cr_error err;
    assert_int_equal(cr_placement_read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", board, &err), 0);
    assert_int_equal(board[CR_SQ_E1], CR_WK);
    assert_int_equal(board[CR_SQ_D8], CR_BQ);
    assert_int_equal(board[CR_SQ_E4], CR_NO_PIECE);
    char buf[80];
    assert_int_equal(cr_placement_write(board, buf, sizeof buf), 43);
    assert_string_equal(buf, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
    assert_int_equal(cr_placement_write(board, buf, 43), CR_ENOSPC);
    /* Placement only checks syntax: no kings is fine here. */
    assert_int_equal(cr_placement_read("8/8/8/8/8/8/8/8", board, &err), 0);
    assert_int_equal(cr_placement_read("8/8/8/8/8/8/8/7", board, &err), CR_EFEN);
    assert_int_equal(err.column, 16);
    assert_int_equal(cr_placement_read("8/8/8/8/8/8/8/8/8", board, &err), CR_EFEN);
    assert_int_equal(err.column, 16);
    assert_int_equal(cr_placement_read("8/8/8/8/8/8/8", board, &err), CR_EFEN);
    assert_int_equal(cr_placement_read("8/8/3x4/8/8/8/8/8", board, &err), CR_EFEN);
    assert_int_equal(err.column, 6);
    assert_non_null(strstr(err.text, "'x'"));
    char fen[CR_FEN_MAX];
    cr_position pos;
    cr_position_init_start(&pos);
    assert_int_equal(cr_position_to_fen(&pos, fen, 20), CR_ENOSPC);
}

struct bad_case {
    const char *fen;
    const char *text; /* expected in err.text */
    int column;
};

static void test_errors(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"", "0 fields", 1},
        {"4k3/8/8/8/8/8/8/4K3 w -", "3 fields", 24},
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1 x", "too many fields", 31},
        {"4k3/8/8/8/8/8/8/4K2X w - - 0 1", "bad piece letter 'X'", 20},
        {"4k3/8/8/8/8/8/8/4K4 w - - 0 1", "more than 8 squares", 19},
        {"4k3/8/8/8/8/8/8/4K2 w - - 0 1", "rank 1 has 7 squares", 20},
        {"4k3/7/8/8/8/8/8/4K3 w - - 0 1", "rank 7 has 7 squares", 6},
        {"4k3/8/8/8/8/8/4K3 w - - 0 1", "only 7 ranks", 18},
        {"4k3/8/8/8/8/8/8/4K3/8 w - - 0 1", "more than 8 ranks", 20},
        {"4k3/8/8/8/8/8/8/44 w - - 0 1", "two digits", 18},
        {"8/8/8/8/8/8/8/4K3 w - - 0 1", "missing black king", 1},
        {"4k3/8/8/8/8/8/8/8 w - - 0 1", "missing white king", 1},
        {"4k3/8/8/8/8/8/8/3KK3 w - - 0 1", "2 white kings", 1},
        {"4k3/8/8/8/8/8/8/P3K3 w - - 0 1", "pawn on rank 1", 1},
        {"p3k3/8/8/8/8/8/8/4K3 w - - 0 1", "pawn on rank 8", 1},
        {"4k3/8/8/8/8/PPPPPPPP/P7/4K3 w - - 0 1", "9 white pawns", 1},
        {"4k3/8/8/8/8/NNNNNNNN/NNNNNNNN/4K3 w - - 0 1", "17 white pieces", 1},
        {"4k3/8/8/8/8/8/PPPPPPP1/QQQ1K3 w - - 0 1", "promoted", 1},
        {"4k3/8/8/8/8/8/PPPPPPP1/QQ2K3 w - - 0 1", NULL, 0},
        {"4k3/8/8/8/8/8/8/4K3 x - - 0 1", "side to move", 21},
        {"4k3/8/8/8/8/8/8/4K3 white - - 0 1", "side to move", 21},
        {"4k3/8/8/8/8/8/8/4K3 w K - 0 1", "no rook", 23},
        {"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1 ", NULL, 0},
        {"4k3/8/8/8/8/8/8/R3K3 w QQ - 0 1", "twice", 25},
        {"4k3/8/8/8/8/8/8/R3K3 w B - 0 1", "no rook on b1", 24},
        {"4k3/8/8/8/8/8/8/R3K3 w X - 0 1", "bad castling character", 24},
        {"4k3/8/8/8/8/8/8/R3K3 w - - 0 1", NULL, 0},
        {"4k3/8/8/8/8/8/8/R3K3 w k - 0 1", "no rook", 24},
        {"4k3/8/8/8/8/8/R7/4K3 w Q - 0 1", "no rook", 24},
        {"4k3/8/8/8/8/8/4K3/R7 w Q - 0 1", "not on its back rank", 24},
        {"4k3/8/8/8/8/8/8/R3K3 w Q- - 0 1", "bad castling character", 25},
        {"4k3/8/8/8/8/8/8/4K3 w - e3 0 1", "impossible en-passant square e3", 25},
        {"4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1", "impossible en-passant square e3", 27},
        {"4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1", "impossible en-passant square e4", 27},
        {"4k3/8/8/8/4P3/4N3/8/4K3 b - e3 0 1", "impossible en-passant square e3", 29},
        {"4k3/8/8/8/8/8/8/4K3 w - e9 0 1", "bad en-passant field", 25},
        {"4k3/8/8/8/8/8/8/4K3 w - - -1 1", "halfmove", 27},
        {"4k3/8/8/8/8/8/8/4K3 w - - x 1", "halfmove", 27},
        {"4k3/8/8/8/8/8/8/4K3 w - - 70000 1", "halfmove", 27},
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fullmove", 29},
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1x", "fullmove", 29},
        {"4k3/8/8/8/8/8/8/4K2r b - - 0 1", "side not to move is in check", 22},
        {"4k3/8/8/8/8/8/8/4K2r w - - 0 1", NULL, 0},
        {"8/8/8/8/8/8/8/3kK3 w - - 0 1", "side not to move is in check", 20},
        {"4k3/8/8/8/8/5n2/3q4/r3K3 w - - 0 1", "in check by 3 pieces", 26},
        {"4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1", NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_position pos;
        cr_error err;
        cr_error_clear(&err);
        int rc = cr_position_from_fen(&pos, cases[i].fen, &err);
        if (!cases[i].text) {
            if (rc != 0) {
                print_error("%s: rejected: %s\n", cases[i].fen, err.text);
            }
            assert_int_equal(rc, 0);
            continue;
        }
        if (rc != CR_EFEN || !strstr(err.text, cases[i].text) || err.column != cases[i].column) {
            print_error("'%s': rc %d column %d '%s', want column %d '%s'\n", cases[i].fen, rc,
                        err.column, err.text, cases[i].column, cases[i].text);
        }
        assert_int_equal(rc, CR_EFEN);
        assert_int_equal(err.code, CR_EFEN);
        assert_non_null(strstr(err.text, cases[i].text));
        assert_int_equal(err.column, cases[i].column);
    }
    assert_int_equal(cr_position_from_fen(NULL, "x", NULL), CR_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_chess960_flag),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
