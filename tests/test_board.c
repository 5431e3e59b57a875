/* Rules engine: special moves (e.p., castling in standard chess and
 * Chess960, promotions), keys along random games, position identity, dead
 * positions, status, UCI text and Chess960 numbering. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cr/board.h"

static void load(cr_position *pos, const char *fen)
{
    cr_error err;
    int rc = cr_position_from_fen(pos, fen, &err);
    if (rc != 0) {
        print_error("FEN rejected: %s: column %d: %s\n", fen, err.column, err.text);
    }
    assert_int_equal(rc, 0);
    assert_true(cr_position_ok(pos));
}

/* The legal move written as UCI text, or CR_MOVE_NONE if not legal. */
static cr_move find(const cr_position *pos, const char *uci)
{
    return cr_move_from_uci(pos, uci);
}

static int count_kind(const cr_position *pos, int kind)
{
    cr_movelist list;
    int n = 0;
    cr_generate_legal(pos, &list);
    for (int i = 0; i < list.count; i++) {
        n += cr_move_kind(list.moves[i]) == kind;
    }
    return n;
}

static void play(cr_position *pos, const char *uci)
{
    cr_move m = find(pos, uci);
    if (m == CR_MOVE_NONE) {
        print_error("illegal move %s\n", uci);
    }
    assert_int_not_equal(m, CR_MOVE_NONE);
    cr_position_do_move(pos, m);
    assert_true(cr_position_ok(pos));
}

static void test_square_names(void **state)
{
    (void)state;
    char buf[3];
    for (int sq = 0; sq < 64; sq++) {
        cr_square_name(sq, buf);
        assert_int_equal(cr_square_parse(buf), sq);
    }
    cr_square_name(CR_SQ_E4, buf);
    assert_string_equal(buf, "e4");
    assert_int_equal(cr_square_parse("i1"), CR_SQ_NONE);
    assert_int_equal(cr_square_parse("a9"), CR_SQ_NONE);
    assert_int_equal(cr_square_parse(""), CR_SQ_NONE);
    assert_int_equal(cr_square_parse(NULL), CR_SQ_NONE);
}

static void test_ep_exposing_king_on_rank(void **state)
{
    (void)state;
    cr_position pos;
    /* bxc6 would lift both pawns off the fifth rank: the h5 rook checks. */
    load(&pos, "8/8/8/KPp4r/8/8/8/7k w - c6 0 2");
    assert_int_equal(pos.ep, CR_SQ_NONE);
    assert_int_equal(count_kind(&pos, CR_MOVE_EN_PASSANT), 0);
    assert_int_equal(find(&pos, "b5c6"), CR_MOVE_NONE);
    /* Same position reached by a move: ep also dropped. */
    load(&pos, "8/2p5/8/KP5r/8/8/8/7k b - - 0 1");
    play(&pos, "c7c5");
    assert_int_equal(pos.ep, CR_SQ_NONE);
    /* Without the rook the capture is legal and ep is kept. */
    load(&pos, "8/8/8/KPp5/8/8/8/7k w - c6 0 2");
    assert_int_equal(pos.ep, CR_SQ_C6);
    assert_int_equal(count_kind(&pos, CR_MOVE_EN_PASSANT), 1);
}

static void test_ep_check_and_evasion(void **state)
{
    (void)state;
    cr_position pos;
    /* exd6 e.p. gives check to the king on c7. */
    load(&pos, "8/2k5/8/3pP3/8/8/8/4K3 w - d6 0 2");
    cr_move m = find(&pos, "e5d6");
    assert_int_not_equal(m, CR_MOVE_NONE);
    assert_int_equal(cr_move_kind(m), CR_MOVE_EN_PASSANT);
    cr_position_do_move(&pos, m);
    assert_true(cr_position_ok(&pos));
    assert_true(cr_in_check(&pos));
    assert_int_equal(pos.board[CR_SQ_D5], CR_NO_PIECE);
    assert_int_equal(pos.board[CR_SQ_D6], CR_WP);
    /* d2-d4 checks the king on c5; exd3 e.p. removes the checker. */
    load(&pos, "8/8/8/2k5/4p3/8/3P4/4K3 w - - 0 1");
    play(&pos, "d2d4");
    assert_true(cr_in_check(&pos));
    assert_int_equal(pos.ep, CR_SQ_D3);
    m = find(&pos, "e4d3");
    assert_int_equal(cr_move_kind(m), CR_MOVE_EN_PASSANT);
    /* e.p. by a pawn pinned on the diagonal is illegal. */
    load(&pos, "8/7k/8/8/4pP2/8/2B5/K7 b - f3 0 1");
    assert_int_equal(pos.ep, CR_SQ_NONE);
}

static void test_castling_rules(void **state)
{
    (void)state;
    cr_position pos;
    /* f1 attacked: no short castling; b1 attacked does not stop long. */
    load(&pos, "4k3/8/8/8/8/8/1r3r2/R3K2R w KQ - 0 1");
    assert_int_equal(find(&pos, "e1g1"), CR_MOVE_NONE);
    assert_int_not_equal(find(&pos, "e1c1"), CR_MOVE_NONE);
    /* Out of check: neither. */
    load(&pos, "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1");
    assert_int_equal(count_kind(&pos, CR_MOVE_CASTLE), 0);
    /* Destination attacked. */
    load(&pos, "4k3/8/8/8/8/8/2r5/R3K2R w KQ - 0 1");
    assert_int_equal(find(&pos, "e1c1"), CR_MOVE_NONE);
    assert_int_not_equal(find(&pos, "e1g1"), CR_MOVE_NONE);
    /* Blocked: a piece between. */
    load(&pos, "4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
    assert_int_equal(count_kind(&pos, CR_MOVE_CASTLE), 0);
    /* Both forms accepted, same move, played correctly. */
    load(&pos, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    cr_move a = find(&pos, "e1g1"), b = find(&pos, "e1h1");
    assert_int_not_equal(a, CR_MOVE_NONE);
    assert_int_equal(a, b);
    char uci[6];
    cr_move_to_uci(&pos, a, uci);
    assert_string_equal(uci, "e1g1");
    cr_position_do_move(&pos, a);
    assert_true(cr_position_ok(&pos));
    assert_int_equal(pos.board[CR_SQ_G1], CR_WK);
    assert_int_equal(pos.board[CR_SQ_F1], CR_WR);
    assert_int_equal(pos.castle_rook[CR_WHITE][0], CR_SQ_NONE);
    assert_int_equal(pos.castle_rook[CR_WHITE][1], CR_SQ_NONE);
    assert_int_equal(pos.castle_rook[CR_BLACK][1], CR_SQ_A8);
    /* Capturing a rook removes its right. */
    load(&pos, "r3k2r/8/8/8/8/8/6B1/R3K2R w KQkq - 0 1");
    play(&pos, "g2a8");
    assert_int_equal(pos.castle_rook[CR_BLACK][CR_CASTLE_QUEEN_SIDE], CR_SQ_NONE);
    assert_int_equal(pos.castle_rook[CR_BLACK][CR_CASTLE_KING_SIDE], CR_SQ_H8);
}

static void test_chess960_castling(void **state)
{
    (void)state;
    cr_position pos;
    char uci[6];
    /* King already on g1: only the rook moves (to f1). */
    load(&pos, "4k3/8/8/8/8/8/8/6KR w H - 0 1");
    assert_true(pos.chess960);
    cr_move m = find(&pos, "g1h1");
    assert_int_equal(cr_move_kind(m), CR_MOVE_CASTLE);
    assert_int_equal(cr_castle_king_to(m, CR_WHITE), CR_SQ_G1);
    assert_int_equal(cr_castle_rook_to(m, CR_WHITE), CR_SQ_F1);
    cr_move_to_uci(&pos, m, uci);
    assert_string_equal(uci, "g1h1");
    cr_position_do_move(&pos, m);
    assert_true(cr_position_ok(&pos));
    assert_int_equal(pos.board[CR_SQ_G1], CR_WK);
    assert_int_equal(pos.board[CR_SQ_F1], CR_WR);
    assert_int_equal(pos.board[CR_SQ_H1], CR_NO_PIECE);
    /* Rook already on d1: only the king moves (e1 -> c1). */
    load(&pos, "4k3/8/8/8/8/8/8/3RK3 w D - 0 1");
    m = find(&pos, "e1d1");
    assert_int_equal(cr_move_kind(m), CR_MOVE_CASTLE);
    cr_position_do_move(&pos, m);
    assert_true(cr_position_ok(&pos));
    assert_int_equal(pos.board[CR_SQ_C1], CR_WK);
    assert_int_equal(pos.board[CR_SQ_D1], CR_WR);
    assert_int_equal(pos.board[CR_SQ_E1], CR_NO_PIECE);
    /* The rook shields the king's destination: a1 queen checks c1 once the
     * b1 rook has gone to d1, so castling is illegal. */
    load(&pos, "4k3/8/8/8/8/8/8/qR1K4 w B - 0 1");
    assert_int_equal(count_kind(&pos, CR_MOVE_CASTLE), 0);
    /* A piece on the rook's destination blocks. */
    load(&pos, "4k3/8/8/8/8/8/8/1K1N2R1 w G - 0 1");
    assert_int_equal(count_kind(&pos, CR_MOVE_CASTLE), 0);
    /* King and rook swap squares (f1 <-> g1... king to g1, rook to f1). */
    load(&pos, "4k3/8/8/8/8/8/8/5KR1 w G - 0 1");
    play(&pos, "f1g1");
    assert_int_equal(pos.board[CR_SQ_G1], CR_WK);
    assert_int_equal(pos.board[CR_SQ_F1], CR_WR);
    /* In Chess960 the king-step form is a normal king move, not castling. */
    load(&pos, "4k3/8/8/8/8/8/8/1R3K1R w HB - 0 1");
    m = find(&pos, "f1g1");
    assert_int_equal(cr_move_kind(m), CR_MOVE_NORMAL);
    m = find(&pos, "f1h1");
    assert_int_equal(cr_move_kind(m), CR_MOVE_CASTLE);
}

static void test_promotions(void **state)
{
    (void)state;
    cr_position pos;
    load(&pos, "1r2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    /* 4 pushes + 4 captures + 5 king moves. */
    assert_int_equal(cr_count_legal(&pos), 13);
    cr_movelist list;
    assert_int_equal(cr_generate_legal(&pos, &list), 13);
    cr_move m = find(&pos, "a7b8n");
    assert_int_equal(cr_move_promo(m), CR_KNIGHT);
    char uci[6];
    assert_int_equal(cr_move_to_uci(&pos, m, uci), 5);
    assert_string_equal(uci, "a7b8n");
    assert_int_equal(find(&pos, "a7b8"), CR_MOVE_NONE); /* promotion needs its piece */
    assert_int_equal(find(&pos, "a7b8k"), CR_MOVE_NONE);
    cr_position_do_move(&pos, m);
    assert_true(cr_position_ok(&pos));
    assert_int_equal(pos.board[CR_SQ_B8], CR_WN);
    assert_int_equal(pos.halfmove, 0);
    assert_true(cr_in_check(&pos) == false);
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random games: the incremental key always equals the computed one, the
 * position stays consistent, and count == generate. */
static void test_random_playouts(void **state)
{
    (void)state;
    uint64_t seed = 0x1234567887654321ULL;
    for (int game = 0; game < 200; game++) {
        cr_position pos;
        if (game % 2) {
            cr_position_init_960(&pos, (int)(rng_next(&seed) % 960));
        } else {
            cr_position_init_start(&pos);
        }
        for (int ply = 0; ply < 300; ply++) {
            cr_movelist list;
            int n = cr_generate_legal(&pos, &list);
            assert_int_equal(n, cr_count_legal(&pos));
            if (n == 0 || cr_position_is_dead(&pos)) {
                break;
            }
            cr_move m = list.moves[rng_next(&seed) % (uint64_t)n];
            assert_true(cr_is_legal(&pos, m));
            char uci[6];
            cr_move_to_uci(&pos, m, uci);
            assert_int_equal(cr_move_from_uci(&pos, uci), m);
            cr_position_do_move(&pos, m);
            assert_true(pos.key == cr_position_compute_key(&pos));
            assert_true(cr_position_ok(&pos));
            /* FEN round trip keeps everything that identifies the position. */
            char fen[CR_FEN_MAX];
            assert_true(cr_position_to_fen(&pos, fen, sizeof fen) > 0);
            cr_position back;
            load(&back, fen);
            assert_true(back.key == pos.key);
            assert_memory_equal(back.board, pos.board, sizeof pos.board);
        }
    }
}

static void test_identity(void **state)
{
    (void)state;
    cr_position a, b;
    /* 1.e4: no black pawn can take, so no e.p. square: same as the FEN
     * written with "e3". */
    cr_position_init_start(&a);
    play(&a, "e2e4");
    assert_int_equal(a.ep, CR_SQ_NONE);
    load(&b, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_true(a.key == b.key);
    assert_int_equal(b.ep, CR_SQ_NONE);
    /* Knights out and back: the start position again. */
    cr_position_init_start(&a);
    uint64_t k0 = a.key;
    play(&a, "g1f3");
    play(&a, "g8f6");
    play(&a, "f3g1");
    play(&a, "f6g8");
    assert_true(a.key == k0);
    /* Side to move differs: different keys. */
    load(&a, "4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    load(&b, "4k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_true(a.key != b.key);
    /* Castling rights differ: different keys. */
    load(&a, "r3k3/8/8/8/8/8/8/4K3 b q - 0 1");
    load(&b, "r3k3/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_true(a.key != b.key);
    /* A real e.p. possibility differs from none. */
    load(&a, "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2");
    load(&b, "4k3/8/8/3pP3/8/8/8/4K3 w - - 0 2");
    assert_true(a.key != b.key);
}

static void test_dead_positions(void **state)
{
    (void)state;
    static const struct {
        const char *fen;
        bool dead;
    } cases[] = {
        {"4k3/8/8/8/8/8/8/4K3 w - - 0 1", true},
        {"4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true},
        {"4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true},
        {"4kb2/8/8/8/8/8/8/4K3 w - - 0 1", true},
        {"4kb2/8/8/8/8/8/8/2B1K3 w - - 0 1", true},      /* f8 and c1: both dark */
        {"4kb2/8/8/8/8/8/8/3BK3 w - - 0 1", false},      /* f8 dark, d1 light */
        {"4k3/8/8/8/8/8/8/2BBK3 w - - 0 1", false},
        {"4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false},
        {"4kn2/8/8/8/8/8/8/4KN2 w - - 0 1", false},
        {"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false},
        {"4k3/8/8/8/8/8/8/4K2R w - - 0 1", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_position pos;
        load(&pos, cases[i].fen);
        if (cr_position_is_dead(&pos) != cases[i].dead) {
            print_error("%s: dead should be %d\n", cases[i].fen, cases[i].dead);
        }
        assert_true(cr_position_is_dead(&pos) == cases[i].dead);
        assert_int_equal(cr_position_status(&pos),
                         cases[i].dead ? CR_STATUS_DEAD : CR_STATUS_ONGOING);
    }
}

static void test_can_mate(void **state)
{
    (void)state;
    cr_position pos;
    load(&pos, "4k3/8/8/8/8/8/8/4KN2 w - - 0 1");
    assert_false(cr_can_mate(&pos, CR_WHITE));
    assert_false(cr_can_mate(&pos, CR_BLACK));
    load(&pos, "4k3/4p3/8/8/8/8/8/4KN2 w - - 0 1"); /* the pawn can block */
    assert_true(cr_can_mate(&pos, CR_WHITE));
    assert_true(cr_can_mate(&pos, CR_BLACK)); /* the pawn can promote */
    load(&pos, "4k3/8/8/8/8/8/8/3QK3 w - - 0 1");
    assert_true(cr_can_mate(&pos, CR_WHITE));
    assert_false(cr_can_mate(&pos, CR_BLACK));
    load(&pos, "4k3/8/8/8/8/8/8/2NNK3 w - - 0 1");
    assert_true(cr_can_mate(&pos, CR_WHITE));
}

static void test_status(void **state)
{
    (void)state;
    cr_position pos;
    load(&pos, "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3");
    assert_int_equal(cr_position_status(&pos), CR_STATUS_CHECKMATE);
    load(&pos, "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_int_equal(cr_position_status(&pos), CR_STATUS_STALEMATE);
    cr_position_init_start(&pos);
    assert_int_equal(cr_position_status(&pos), CR_STATUS_ONGOING);
    assert_false(cr_in_check(&pos));
    assert_true(cr_square_attacked(&pos, CR_SQ_F3, CR_WHITE));
    assert_false(cr_square_attacked(&pos, CR_SQ_E4, CR_WHITE));
    assert_true(cr_square_attacked(&pos, CR_SQ_F6, CR_BLACK));
}

static void test_uci_text(void **state)
{
    (void)state;
    cr_position pos;
    cr_position_init_start(&pos);
    assert_int_equal(find(&pos, "e2e5"), CR_MOVE_NONE);
    assert_int_equal(find(&pos, "e2e4x"), CR_MOVE_NONE);
    assert_int_equal(find(&pos, "e2"), CR_MOVE_NONE);
    assert_int_equal(find(&pos, "z2e4"), CR_MOVE_NONE);
    assert_int_equal(find(&pos, NULL), CR_MOVE_NONE);
    cr_move m = find(&pos, "g1f3");
    assert_int_equal(m, cr_move_make(CR_SQ_G1, CR_SQ_F3, CR_MOVE_NORMAL, 0));
    assert_true(cr_is_legal(&pos, m));
    assert_false(cr_is_legal(&pos, cr_move_make(CR_SQ_G1, CR_SQ_G3, CR_MOVE_NORMAL, 0)));
    assert_false(cr_is_legal(&pos, CR_MOVE_NONE));
}

static void test_chess960_numbering(void **state)
{
    (void)state;
    cr_position pos;
    cr_position_init_start(&pos);
    assert_int_equal(cr_chess960_index(pos.board), 518);
    assert_false(pos.chess960);
    char fen[CR_FEN_MAX];
    assert_int_equal(cr_position_init_960(&pos, 0), 0);
    assert_true(pos.chess960);
    cr_position_to_fen(&pos, fen, sizeof fen);
    assert_string_equal(fen, "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1");
    assert_int_equal(cr_position_init_960(&pos, 959), 0);
    cr_position_to_fen(&pos, fen, sizeof fen);
    assert_string_equal(fen, "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1");
    assert_int_equal(cr_position_init_960(&pos, 960), CR_EINVAL);
    assert_int_equal(cr_position_init_960(&pos, -1), CR_EINVAL);
    cr_position_init_start(&pos);
    play(&pos, "e2e4");
    assert_int_equal(cr_chess960_index(pos.board), -1);
}

static void test_counters_and_consistency(void **state)
{
    (void)state;
    cr_position pos;
    load(&pos, "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 7 30");
    play(&pos, "e8c8"); /* black castles long (king-step form) */
    assert_int_equal(pos.board[CR_SQ_C8], CR_BK);
    assert_int_equal(pos.board[CR_SQ_D8], CR_BR);
    assert_int_equal(pos.halfmove, 8);
    assert_int_equal(pos.fullmove, 31);
    assert_int_equal(pos.side, CR_WHITE);
    assert_int_equal(pos.castle_rook[CR_BLACK][CR_CASTLE_KING_SIDE], CR_SQ_NONE);
    play(&pos, "h1h8"); /* capture resets the clock; the moved rook loses its right */
    assert_int_equal(pos.halfmove, 0);
    assert_int_equal(pos.fullmove, 31);
    assert_int_equal(pos.castle_rook[CR_WHITE][CR_CASTLE_KING_SIDE], CR_SQ_NONE);
    assert_int_equal(pos.castle_rook[CR_WHITE][CR_CASTLE_QUEEN_SIDE], CR_SQ_A1);
    cr_move m = cr_move_make(CR_SQ_E8, CR_SQ_H8, CR_MOVE_CASTLE, 0);
    assert_int_equal(cr_castle_king_to(m, CR_BLACK), CR_SQ_G8);
    assert_int_equal(cr_castle_rook_to(m, CR_BLACK), CR_SQ_F8);

    /* cr_position_ok notices each kind of corruption. */
    cr_position_init_start(&pos);
    cr_position bad = pos;
    bad.board[CR_SQ_E4] = CR_WQ; /* mailbox without bitboard */
    assert_false(cr_position_ok(&bad));
    bad = pos;
    bad.key ^= 1;
    assert_false(cr_position_ok(&bad));
    bad = pos;
    bad.castle_rook[CR_WHITE][CR_CASTLE_KING_SIDE] = CR_SQ_G1; /* a knight stands there */
    bad.key = cr_position_compute_key(&bad);
    assert_false(cr_position_ok(&bad));
    bad = pos;
    bad.ep = CR_SQ_E3; /* no capture possible */
    bad.key = cr_position_compute_key(&bad);
    assert_false(cr_position_ok(&bad));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_square_names),
        cmocka_unit_test(test_ep_exposing_king_on_rank),
        cmocka_unit_test(test_ep_check_and_evasion),
        cmocka_unit_test(test_castling_rules),
        cmocka_unit_test(test_chess960_castling),
        cmocka_unit_test(test_promotions),
        cmocka_unit_test(test_random_playouts),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_dead_positions),
        cmocka_unit_test(test_can_mate),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_uci_text),
        cmocka_unit_test(test_chess960_numbering),
        cmocka_unit_test(test_counters_and_consistency),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
