/* cr_is_legal (a direct test of one move) against membership in
 * cr_generate_legal, over random positions (standard and Chess960 games,
 * plus hand-picked positions with pins, checks, e.p., castling and
 * promotions) and move codes that are mostly illegal: random 16-bit codes,
 * legal moves with a changed kind/promotion/target, and every from-to pair of
 * the side to move's pieces in every kind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cr/board.h"
#include "board_private.h" /* cr_generate_legal_from_ */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct tally {
    long checked, legal;
    long by_kind[4];  /* legal moves seen per kind */
    long ill_kind[4]; /* illegal codes asked per kind */
} tally;

static bool listed(const cr_movelist *list, cr_move m)
{
    for (int i = 0; i < list->count; i++) {
        if (list->moves[i] == m) {
            return true;
        }
    }
    return false;
}

static void check_one(const cr_position *pos, const cr_movelist *list, cr_move m, tally *t)
{
    bool want = listed(list, m);
    bool got = cr_is_legal(pos, m);
    if (want != got) {
        char fen[CR_FEN_MAX], uci[6];
        cr_position_to_fen(pos, fen, sizeof fen);
        cr_move_to_uci(pos, m, uci);
        print_error("%s: move 0x%04x (%s, kind %d): cr_is_legal %d, generator %d\n", fen, m, uci,
                    cr_move_kind(m), got, want);
    }
    assert_int_equal(want, got);
    t->checked++;
    if (want) {
        t->legal++;
        t->by_kind[cr_move_kind(m)]++;
    } else {
        t->ill_kind[cr_move_kind(m)]++;
    }
}

/* About 100 codes for one position: all legal moves, their mutations,
 * random codes and from-to pairs of the side to move's pieces. */
static void check_position(const cr_position *pos, uint64_t *seed, tally *t)
{
    cr_movelist list;
    cr_generate_legal(pos, &list);
    /* The mate test looks for one legal move, mostly without listing them. */
    cr_status st = cr_position_status(pos);
    assert_int_equal(list.count == 0, st == CR_STATUS_CHECKMATE || st == CR_STATUS_STALEMATE);
    /* The list from some squares only: the full list's moves of those
     * pieces, in the same order (castling: the king or the rook). */
    for (int k = 0; k < 4; k++) {
        cr_bb from = rng_next(seed) & rng_next(seed);
        cr_movelist part, want;
        want.count = 0;
        for (int i = 0; i < list.count; i++) {
            cr_move m = list.moves[i];
            cr_bb movers = 1ull << cr_move_from(m);
            if (cr_move_kind(m) == CR_MOVE_CASTLE) {
                movers |= 1ull << cr_move_to(m);
            }
            if (from & movers) {
                want.moves[want.count++] = m;
            }
        }
        cr_generate_legal_from_(pos, from, &part);
        assert_int_equal(part.count, want.count);
        assert_memory_equal(part.moves, want.moves, (size_t)want.count * sizeof want.moves[0]);
    }
    check_one(pos, &list, CR_MOVE_NONE, t);
    for (int i = 0; i < list.count; i++) {
        cr_move m = list.moves[i];
        check_one(pos, &list, m, t);
        /* Same squares, other kind or promotion piece. */
        for (int k = 0; k < 4; k++) {
            check_one(pos, &list, (cr_move)((m & 0x3FFF) | (k << 14)), t);
        }
        check_one(pos, &list, (cr_move)(m ^ (cr_move)((1 + rng_next(seed) % 3) << 12)), t);
        /* Same piece, another target. */
        check_one(pos, &list, (cr_move)((m & ~(63 << 6)) | ((rng_next(seed) & 63) << 6)), t);
    }
    for (int i = 0; i < 24; i++) {
        check_one(pos, &list, (cr_move)(rng_next(seed) & 0xFFFF), t);
    }
    cr_bb ours = pos->by_color[pos->side];
    for (int i = 0; i < 24 && ours; i++) {
        /* A random own piece to a random square near it, in a random kind. */
        int n = __builtin_popcountll(ours);
        int pick = (int)(rng_next(seed) % (uint64_t)n);
        cr_bb b = ours;
        while (pick--) {
            b &= b - 1;
        }
        int from = __builtin_ctzll(b);
        int to = (int)(rng_next(seed) & 63);
        if (rng_next(seed) % 2) {
            int df = (int)(rng_next(seed) % 5) - 2, dr = (int)(rng_next(seed) % 5) - 2;
            int f = cr_file_of(from) + df, r = cr_rank_of(from) + dr;
            if (f >= 0 && f < 8 && r >= 0 && r < 8) {
                to = cr_square(f, r);
            }
        }
        int kind = (int)(rng_next(seed) % 4);
        int promo = CR_KNIGHT + (int)(rng_next(seed) % 4);
        check_one(pos, &list, cr_move_make(from, to, kind, promo), t);
    }
}

/* Positions chosen for the rare rules. */
static const char *const special_fens[] = {
    /* e.p. exposing the own king on the rank; e.p. as the only answer to check */
    "8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",
    "8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
    "8/8/4k3/3pP3/8/8/8/4K3 w - d6 0 1",
    /* pinned pawns, e.p. along a diagonal pin */
    "8/8/1k6/2pP4/8/4B3/8/3K4 w - c6 0 1",
    "4k3/8/8/3pP3/8/8/8/1b2K2R w K d6 0 1",
    /* castling both sides, through and into attacks, Chess960 set-ups */
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "r3k2r/8/8/8/8/8/5r2/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/1b6/8/8/R3K2R w KQkq - 0 1",
    "1r2k2r/8/8/8/8/8/8/R3K2R w KQk - 0 1",
    "rk5r/8/8/8/8/8/8/RK5R w HAha - 0 1",
    "1rk4r/8/8/8/8/8/8/1RK3r1 w Bh - 0 1",
    "2r1kr2/8/8/8/8/8/8/2R1KR2 w FCfc - 0 1",
    "qr4kr/8/8/8/8/8/8/QR4KR w BHbh - 0 1",
    "5rkr/8/8/8/8/8/8/5RKR w Hh - 0 1",
    /* promotions: plain, capturing, pinned, in check */
    "1n2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1",
    "4k3/8/8/8/8/8/5p2/2K1R3 b - - 0 1",
    "3rk3/2P5/8/8/8/8/8/3K4 w - - 0 1",
    "r3k3/1P6/8/8/8/8/8/K7 w - - 0 1",
    /* double check, checks by every piece */
    "4k3/8/8/8/8/5n2/8/r3K3 w - - 0 1",
    "4k3/8/8/8/1b6/8/3P4/4K2r w - - 0 1",
    "rnbqkbnr/ppp2ppp/8/1B1pp3/4P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
};

static void test_special_positions(void **state)
{
    (void)state;
    uint64_t seed = 0xC0FFEE1234ULL;
    tally t = {0};
    for (size_t i = 0; i < sizeof special_fens / sizeof special_fens[0]; i++) {
        cr_position pos;
        cr_error err;
        if (cr_position_from_fen(&pos, special_fens[i], &err) != 0) {
            print_error("FEN rejected: %s: %s\n", special_fens[i], err.text);
            fail();
        }
        check_position(&pos, &seed, &t);
        /* And a few plies on from each. */
        for (int ply = 0; ply < 6; ply++) {
            cr_movelist list;
            if (cr_generate_legal(&pos, &list) == 0) {
                break;
            }
            cr_position_do_move(&pos, list.moves[rng_next(&seed) % (uint64_t)list.count]);
            check_position(&pos, &seed, &t);
        }
    }
    assert_true(t.by_kind[CR_MOVE_CASTLE] > 20);
    assert_true(t.by_kind[CR_MOVE_EN_PASSANT] >= 3);
    assert_true(t.by_kind[CR_MOVE_PROMOTION] > 20);
}

/* Random games, standard and Chess960, steered a little toward captures and
 * pawn moves so that e.p. and promotions come up. ~200k codes. */
static void test_random_games(void **state)
{
    (void)state;
    uint64_t seed = 0x5EED5EED12345ULL;
    tally t = {0};
    for (int game = 0; game < 30; game++) {
        cr_position pos;
        if (game % 3 == 1) {
            cr_position_init_960(&pos, (int)(rng_next(&seed) % 960));
        } else {
            cr_position_init_start(&pos);
        }
        for (int ply = 0; ply < 200; ply++) {
            cr_movelist list;
            int n = cr_generate_legal(&pos, &list);
            if (n == 0 || cr_position_is_dead(&pos)) {
                break;
            }
            if (ply % 4 == 0 || cr_in_check(&pos) || pos.ep < 64) {
                check_position(&pos, &seed, &t);
            }
            cr_move m = list.moves[rng_next(&seed) % (uint64_t)n];
            for (int tries = 0; tries < 3; tries++) {
                int k = cr_move_kind(m);
                int pc = pos.board[cr_move_from(m)];
                if (k != CR_MOVE_NORMAL || pos.board[cr_move_to(m)] ||
                    cr_type_of(pc) == CR_PAWN) {
                    break;
                }
                m = list.moves[rng_next(&seed) % (uint64_t)n];
            }
            cr_position_do_move(&pos, m);
        }
    }
    print_message("random games: %ld codes, %ld legal (castle %ld, e.p. %ld, promotion %ld)\n",
                  t.checked, t.legal, t.by_kind[CR_MOVE_CASTLE],
                  t.by_kind[CR_MOVE_EN_PASSANT], t.by_kind[CR_MOVE_PROMOTION]);
    assert_true(t.checked > 150000);
    assert_true(t.legal * 2 < t.checked); /* mostly illegal */
    assert_true(t.by_kind[CR_MOVE_CASTLE] > 30);
    assert_true(t.by_kind[CR_MOVE_EN_PASSANT] > 5);
    assert_true(t.by_kind[CR_MOVE_PROMOTION] > 20);
    for (int k = 0; k < 4; k++) {
        assert_true(t.ill_kind[k] > 1000);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_special_positions),
        cmocka_unit_test(test_random_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
