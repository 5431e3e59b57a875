/* Perft: leaf counts of the legal move tree against published numbers
 * (chessprogramming.org "Perft Results" and the Chess960 perft list). Any
 * bug in move generation or make-move shows up as a wrong count. Depths are
 * chosen so the whole file runs in well under a second in a normal build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cr/board.h"

struct perft_case {
    const char *fen;
    int depth;
    uint64_t nodes;
};

static void check_case(const struct perft_case *c)
{
    cr_position pos;
    cr_error err;
    int rc = cr_position_from_fen(&pos, c->fen, &err);
    if (rc != 0) {
        print_error("FEN rejected: %s: %s\n", c->fen, err.text);
    }
    assert_int_equal(rc, 0);
    assert_true(cr_position_ok(&pos));
    uint64_t n = cr_perft(&pos, c->depth);
    if (n != c->nodes) {
        print_error("%s depth %d: %llu, want %llu\n", c->fen, c->depth, (unsigned long long)n,
                    (unsigned long long)c->nodes);
    }
    assert_true(n == c->nodes);
}

static void test_start(void **state)
{
    (void)state;
    static const uint64_t want[] = {1, 20, 400, 8902, 197281, 4865609};
    cr_position pos;
    cr_position_init_start(&pos);
    for (int d = 0; d <= 5; d++) {
        assert_true(cr_perft(&pos, d) == want[d]);
    }
}

static void test_standard_positions(void **state)
{
    (void)state;
    static const struct perft_case cases[] = {
        /* Kiwipete */
        {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 1, 48},
        {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 2, 2039},
        {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 3, 97862},
        {"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4, 4085603},
        /* Position 3: e.p. and rook-pin subtleties */
        {"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, 674624},
        /* Position 4 and its mirror */
        {"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4, 422333},
        {"r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 4, 422333},
        /* Position 5 */
        {"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4, 2103487},
        /* Position 6 */
        {"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10", 4, 3894594},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_case(&cases[i]);
    }
}

/* Martin Sedlak's list of small positions, each aimed at one special
 * case: illegal e.p., e.p. and castling giving check, promotions, mates. */
static void test_edge_cases(void **state)
{
    (void)state;
    static const struct perft_case cases[] = {
        {"3k4/3p4/8/K1P4r/8/8/8/8 b - - 0 1", 6, 1134888},
        {"8/8/4k3/8/2p5/8/B2P2K1/8 w - - 0 1", 6, 1015133},
        {"8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1", 6, 1440467},
        {"5k2/8/8/8/8/8/8/4K2R w K - 0 1", 6, 661072},
        {"3k4/8/8/8/8/8/8/R3K3 w Q - 0 1", 6, 803711},
        {"r3k2r/1b4bq/8/8/8/8/7B/R3K2R w KQkq - 0 1", 4, 1274206},
        {"r3k2r/8/3Q4/8/8/5q2/8/R3K2R b KQkq - 0 1", 4, 1720476},
        {"2K2r2/4P3/8/8/8/8/8/3k4 w - - 0 1", 6, 3821001},
        {"8/8/1P2K3/8/2n5/1q6/8/5k2 b - - 0 1", 5, 1004658},
        {"4k3/1P6/8/8/8/8/K7/8 w - - 0 1", 6, 217342},
        {"8/P1k5/K7/8/8/8/8/8 w - - 0 1", 6, 92683},
        {"K1k5/8/P7/8/8/8/8/8 w - - 0 1", 6, 2217},
        {"8/k1P5/8/1K6/8/8/8/8 w - - 0 1", 7, 567584},
        {"8/8/2k5/5q2/5n2/8/5K2/8 b - - 0 1", 4, 23527},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_case(&cases[i]);
    }
}

static void test_chess960_positions(void **state)
{
    (void)state;
    static const struct perft_case cases[] = {
        {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 1, 21},
        {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 2, 528},
        {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 3, 12189},
        {"bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9", 4, 326672},
        {"2nnrbkr/p1qppppp/8/1ppb4/6PP/3PP3/PPP2P2/BQNNRBKR w HEhe - 1 9", 4, 667366},
        /* king and rooks swap squares when castling */
        {"b1q1rrkb/pppppppp/3nn3/8/P7/1PPP4/4PPPP/BQNNRKRB w GE - 1 9", 4, 273318},
        {"qbbnnrkr/2pp2pp/p7/1p2pp2/8/P3PP2/1PPP1KPP/QBBNNR1R w hf - 0 9", 4, 382958},
        {"1rqbkrbn/1ppppp1p/1n6/p1N3p1/8/2P4P/PP1PPPP1/1RQBKRBN w FBfb - 0 9", 3, 14569},
        {"rbbqn1kr/pp2p1pp/6n1/2pp1p2/2P4P/P7/BP1PPPP1/R1BQNNKR w HAha - 0 9", 3, 25798},
        {"1rkr3b/1ppn3p/3pB1n1/6q1/R2P4/4N1P1/1P5P/2KRQ1B1 b Dbd - 0 14", 3, 46468},
        /* inner rooks, an enemy rook behind the castling rook */
        {"1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", 3, 12297},
        {"4k3/8/8/8/8/8/8/rR2K1Rr w GB - 0 1", 3, 3664},
        {"2r1kr2/8/8/8/8/8/8/1R4KR w Hfc - 0 1", 3, 10941},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_case(&cases[i]);
    }
}

/* Every Chess960 start position has 20 moves at depth 1 once black's
 * layout mirrors white's: a cheap sweep over all 960 set-ups. */
static void test_chess960_starts(void **state)
{
    (void)state;
    for (int n = 0; n < 960; n++) {
        cr_position pos;
        assert_int_equal(cr_position_init_960(&pos, n), 0);
        assert_true(cr_position_ok(&pos));
        assert_int_equal(cr_chess960_index(pos.board), n);
        uint64_t d1 = cr_perft(&pos, 1);
        assert_true(d1 >= 18 && d1 <= 21);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start),
        cmocka_unit_test(test_standard_positions),
        cmocka_unit_test(test_edge_cases),
        cmocka_unit_test(test_chess960_positions),
        cmocka_unit_test(test_chess960_starts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
