/* Tests of algebraic notation: writing (checked against a slow reference
 * SAN built from the full legal move list), reading every style and
 * language back, Appendix C's sample game in its printed forms, the Russian
 * edition's letters, and the reader's error reports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/notation.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static void set_fen(cr_position *pos, const char *fen)
{
    cr_error err;
    int rc = cr_position_from_fen(pos, fen, &err);
    if (rc != 0) {
        fail_msg("bad FEN %s: %s", fen, err.text);
    }
}

/* Reference SAN from the full legal move list (slow and obvious). */
static void ref_san(const cr_position *pos, cr_move m, char *out)
{
    static const char letters[] = " PNBRQK";
    cr_movelist list;
    cr_generate_legal(pos, &list);
    int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
    int type = cr_type_of(pos->board[from]);
    char *o = out;
    bool capture = kind == CR_MOVE_EN_PASSANT || (kind != CR_MOVE_CASTLE && pos->board[to]);
    if (kind == CR_MOVE_CASTLE) {
        o += sprintf(o, "%s", cr_file_of(to) > cr_file_of(from) ? "O-O" : "O-O-O");
    } else if (type == CR_PAWN) {
        if (capture) {
            *o++ = (char)('a' + cr_file_of(from));
            *o++ = 'x';
        }
        *o++ = (char)('a' + cr_file_of(to));
        *o++ = (char)('1' + cr_rank_of(to));
        if (cr_move_promo(m)) {
            *o++ = '=';
            *o++ = letters[cr_move_promo(m)];
        }
    } else {
        bool amb = false, same_file = false, same_rank = false;
        for (int i = 0; i < list.count; i++) {
            cr_move x = list.moves[i];
            int xf = cr_move_from(x);
            if (x != m && cr_move_kind(x) != CR_MOVE_CASTLE && cr_move_to(x) == to && xf != from &&
                cr_type_of(pos->board[xf]) == type) {
                amb = true;
                same_file |= cr_file_of(xf) == cr_file_of(from);
                same_rank |= cr_rank_of(xf) == cr_rank_of(from);
            }
        }
        *o++ = letters[type];
        if (amb) {
            if (!same_file) {
                *o++ = (char)('a' + cr_file_of(from));
            } else if (!same_rank) {
                *o++ = (char)('1' + cr_rank_of(from));
            } else {
                *o++ = (char)('a' + cr_file_of(from));
                *o++ = (char)('1' + cr_rank_of(from));
            }
        }
        if (capture) {
            *o++ = 'x';
        }
        *o++ = (char)('a' + cr_file_of(to));
        *o++ = (char)('1' + cr_rank_of(to));
    }
    cr_position after = *pos;
    cr_position_do_move(&after, m);
    if (cr_in_check(&after)) {
        cr_movelist l2;
        *o++ = cr_generate_legal(&after, &l2) == 0 ? '#' : '+';
    }
    *o = '\0';
}

static const char *const start_fens[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/8/8/8/3Q4/8/8/R2QK1QR w KQkq - 0 1",
    "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",
};

/* Calls fn on every legal move of the positions of random playouts. */
typedef void (*move_fn)(const cr_position *pos, cr_move m, int index);

static int playouts(int positions, move_fn fn)
{
    int seen = 0, index = 0;
    rng_state = 0x9e3779b97f4a7c15ULL;
    int nfens = (int)(sizeof start_fens / sizeof start_fens[0]);
    for (int game = 0; seen < positions; game++) {
        cr_position pos;
        if (game % (nfens + 1) == nfens) {
            cr_position_init_960(&pos, (int)(rnd() % 960));
        } else {
            set_fen(&pos, start_fens[game % (nfens + 1)]);
        }
        for (int ply = 0; ply < 120 && seen < positions; ply++) {
            cr_movelist list;
            cr_generate_legal(&pos, &list);
            if (list.count == 0) {
                break;
            }
            for (int i = 0; i < list.count; i++) {
                fn(&pos, list.moves[i], index++);
            }
            seen++;
            cr_position_do_move(&pos, list.moves[rnd() % (unsigned)list.count]);
        }
    }
    return index;
}

static void check_san(const cr_position *pos, cr_move m, int index)
{
    char san[CR_SAN_MAX], ref[CR_SAN_MAX];
    int n = cr_move_to_san(pos, m, san, sizeof san);
    assert_true(n > 0);
    assert_int_equal((size_t)n, strlen(san));
    ref_san(pos, m, ref);
    if (strcmp(san, ref) != 0) {
        char fen[CR_FEN_MAX];
        cr_position_to_fen(pos, fen, sizeof fen);
        fail_msg("%s: SAN %s, expected %s", fen, san, ref);
    }
    cr_san_info info;
    cr_error err;
    cr_move back = cr_move_from_text(pos, san, CR_LANG_EN, &info, &err);
    if (back != m) {
        fail_msg("SAN %s read back as %d: %s", san, back, err.text);
    }
    assert_int_equal(info.consumed, n);
    /* the writer's own legality test agrees with the rules engine on
     * random (mostly illegal) moves of the side to move's pieces */
    for (int k = 0; k < 3; k++) {
        cr_bb own = pos->by_color[pos->side];
        int skip = (int)(rnd() % (unsigned)__builtin_popcountll(own));
        while (skip-- > 0) {
            own &= own - 1;
        }
        int from = __builtin_ctzll(own);
        int to = (k == 0) ? cr_move_to(m) : (int)(rnd() % 64);
        int kind = (int)(rnd() % 8);
        kind = kind < 4 ? CR_MOVE_NORMAL : kind - 4;
        cr_move x = cr_move_make(from, to, kind, CR_KNIGHT + (int)(rnd() % 4));
        bool legal = cr_is_legal(pos, x);
        char other[CR_SAN_MAX];
        if ((cr_move_to_san(pos, x, other, sizeof other) > 0) != legal) {
            char fen[CR_FEN_MAX];
            cr_position_to_fen(pos, fen, sizeof fen);
            fail_msg("%s: move %d from %d to %d kind %d: writer legality differs (%d)", fen, x, from, to, kind, legal);
        }
    }
    /* every third move: read without a language as well */
    if (index % 3 == 0) {
        /* without a language, "Rd1" may be a rook (en) or a king (fr):
         * then the reader must say so, never pick one */
        cr_move any = cr_move_from_text(pos, san, -1, NULL, &err);
        if (any != m && !(any == CR_MOVE_NONE && err.code == CR_EAMBIG)) {
            fail_msg("SAN %s not read without a language: %s", san, err.text);
        }
    }
}

static void test_san_round_trip(void **state)
{
    (void)state;
    int moves = playouts(2500, check_san);
    assert_true(moves > 50000);
}

static void check_styles(const cr_position *pos, cr_move m, int index)
{
    if (index % 7 != 0) {
        return;
    }
    for (int style = CR_STYLE_SAN; style <= CR_STYLE_FIGURINE; style++) {
        for (int lang = 0; lang < CR_LANG_NB; lang++) {
            if (style == CR_STYLE_UCI && lang > 0) {
                break;
            }
            char text[CR_SAN_MAX];
            int n = cr_move_format(pos, m, (cr_style)style, (cr_lang)lang, text, sizeof text);
            assert_true(n > 0);
            cr_error err;
            cr_move back = cr_move_from_text(pos, text, lang, NULL, &err);
            if (back != m) {
                char fen[CR_FEN_MAX];
                cr_position_to_fen(pos, fen, sizeof fen);
                fail_msg("%s: style %d lang %s: '%s' read back as %d: %s", fen, style,
                         cr_lang_name((cr_lang)lang), text, back, err.text);
            }
        }
    }
}

static void test_styles_round_trip(void **state)
{
    (void)state;
    playouts(1200, check_styles);
}

static void expect_san(const char *fen, const char *uci, const char *san)
{
    cr_position pos;
    set_fen(&pos, fen);
    cr_move m = cr_move_from_uci(&pos, uci);
    if (m == CR_MOVE_NONE) {
        fail_msg("%s: %s not legal", fen, uci);
    }
    char buf[CR_SAN_MAX];
    assert_true(cr_move_to_san(&pos, m, buf, sizeof buf) > 0);
    assert_string_equal(buf, san);
    assert_int_equal(cr_move_from_text(&pos, san, CR_LANG_EN, NULL, NULL), m);
}

static void test_tricky_san(void **state)
{
    (void)state;
    /* three queens reach b2: file, rank, and both */
    const char *q3 = "6k1/8/8/8/8/Q7/8/Q1Q4K w - - 0 1";
    expect_san(q3, "a1b2", "Qa1b2");
    expect_san(q3, "a3b2", "Q3b2");
    expect_san(q3, "c1b2", "Qcb2");
    /* the knight on c3 is pinned: no disambiguation for Ng3-e4 */
    const char *pin = "7k/8/8/8/3b4/2N3N1/8/K7 w - - 0 1";
    expect_san(pin, "g3e4", "Ne4");
    /* promotion with capture and with check */
    expect_san("5r1k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7f8q", "exf8=Q+");
    expect_san("5r1k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8n", "e8=N");
    expect_san("5r1k/4P3/8/8/8/8/8/4K3 w - - 0 1", "e7e8q", "e8=Q");
    /* en passant giving check */
    expect_san("8/2k5/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6", "exd6+");
    /* castling both sides, both colours, and castling with check */
    expect_san("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "O-O");
    expect_san("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1c1", "O-O-O");
    expect_san("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8g8", "O-O");
    expect_san("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", "O-O-O");
    expect_san("5k2/8/8/8/8/8/8/4K2R w K - 0 1", "e1g1", "O-O+");
    /* Chess960: a king step next to the castling square stays a king move */
    const char *c960 = "rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w KQkq - 0 1";
    expect_san(c960, "b1c1", "Kc1");
    expect_san(c960, "b1a1", "O-O-O");
    expect_san(c960, "b1e1", "O-O");
    /* mate */
    expect_san("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", "Ra8#");
    /* two rooks on one rank, two knights on one file */
    expect_san("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "a1d1", "Rad1");
    expect_san("4k3/8/8/6N1/8/8/8/4K1N1 w - - 0 1", "g5f3", "N5f3");
}

static void expect_read(const char *fen, const char *text, int lang, const char *uci, unsigned flags, int nag)
{
    cr_position pos;
    set_fen(&pos, fen);
    cr_san_info info;
    cr_error err;
    cr_error_clear(&err);
    cr_move m = cr_move_from_text(&pos, text, lang, &info, &err);
    if (m == CR_MOVE_NONE) {
        fail_msg("'%s' not read: %s", text, err.text);
    }
    char u[6];
    cr_move_to_uci(&pos, m, u);
    assert_string_equal(u, uci);
    assert_int_equal(info.flags, flags);
    assert_int_equal(info.nag, nag);
}

static const char *const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

static void test_read_forms(void **state)
{
    (void)state;
    expect_read(START, "Ng1f3", -1, "g1f3", CR_SANF_LONG, 0);
    expect_read(START, "Ng1-f3", -1, "g1f3", CR_SANF_LONG, 0);
    expect_read(START, "e2-e4", -1, "e2e4", CR_SANF_LONG, 0);
    expect_read(START, "e2e4!?", -1, "e2e4", CR_SANF_LONG, 5);
    expect_read(START, "Pe4", CR_LANG_EN, "e2e4", 0, 0);
    expect_read(START, "Sf3", CR_LANG_DE, "g1f3", 0, 0);
    expect_read(START, "Cf3", CR_LANG_FR, "g1f3", 0, 0);
    expect_read(START, "Pf3", CR_LANG_NL, "g1f3", 0, 0);
    expect_read(START, "\xd0\x9a" "f3", CR_LANG_RU, "g1f3", 0, 0);      /* Кf3 */
    expect_read(START, "Kf3", CR_LANG_RU, "g1f3", 0, 0);                /* Latin look-alike */
    expect_read(START, "\xe2\x99\x98" "f3", -1, "g1f3", 0, 0);          /* ♘f3 */
    expect_read(START, "\xd0\xb5" "4", -1, "e2e4", 0, 0);               /* Cyrillic е4 */
    expect_read(START, "e4 (=)", -1, "e2e4", CR_SANF_DRAW_OFFER, 0);
    expect_read(START, "e4=", -1, "e2e4", CR_SANF_DRAW_OFFER, 0);
    expect_read(START, "Nf3?!", -1, "g1f3", 0, 6);
    /* captures: x, :, Cyrillic х, terse pawn capture, e.p. marks */
    const char *ep = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3";
    expect_read(ep, "exf6", -1, "e5f6", 0, 0);
    expect_read(ep, "exf6 e.p.", -1, "e5f6", CR_SANF_EP, 0);
    expect_read(ep, "exf6\ne.p.", -1, "e5f6", CR_SANF_EP, 0); /* the line ended after the move */
    expect_read(ep, "exf6\r\n  e.p. Nf6", -1, "e5f6", CR_SANF_EP, 0);
    expect_read(ep, "exf6 +", -1, "e5f6", CR_SANF_CHECK, 0);
    expect_read(ep, "exf6 e.p.\n+", -1, "e5f6", CR_SANF_EP | CR_SANF_CHECK, 0);
    expect_read(ep, "e:f6ep", -1, "e5f6", CR_SANF_EP, 0);
    expect_read(ep, "ef", -1, "e5f6", 0, 0);
    expect_read(ep, "ef6 \xd0\xb5.\xd1\x80.", -1, "e5f6", CR_SANF_EP, 0); /* е.р. */
    expect_read(ep, "e5\xd1\x85" "f6", -1, "e5f6", CR_SANF_LONG, 0);      /* е5хf6 */
    /* promotions */
    const char *pr = "1r5k/P7/8/8/8/8/8/4K3 w - - 0 1";
    expect_read(pr, "a8=Q+", -1, "a7a8q", CR_SANF_CHECK, 0);
    expect_read(pr, "a8Q", -1, "a7a8q", 0, 0);
    expect_read(pr, "a8(N)", -1, "a7a8n", 0, 0);
    expect_read(pr, "a8/R", -1, "a7a8r", 0, 0);
    expect_read(pr, "axb8=D", CR_LANG_DE, "a7b8q", 0, 0);
    expect_read(pr, "axb8\xd0\xa4#", CR_LANG_RU, "a7b8q", CR_SANF_MATE, 0); /* axb8Ф */
    expect_read(pr, "a7b8q", -1, "a7b8q", CR_SANF_LONG, 0);
    expect_read(pr, "a7b8b", -1, "a7b8b", CR_SANF_LONG, 0);
    expect_read(pr, "ab8=Q++", -1, "a7b8q", CR_SANF_MATE, 0);
    /* castling in every spelling */
    const char *cs = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    expect_read(cs, "O-O", -1, "e1g1", 0, 0);
    expect_read(cs, "0-0", -1, "e1g1", 0, 0);
    expect_read(cs, "o-o", -1, "e1g1", 0, 0);
    expect_read(cs, "0-0-0", -1, "e1c1", 0, 0);
    expect_read(cs, "O-O-O+", -1, "e1c1", CR_SANF_CHECK, 0);
    expect_read(cs, "Ke1g1", -1, "e1g1", CR_SANF_LONG, 0);
    expect_read(cs, "\xd0\x9a\xd1\x80" "c1", CR_LANG_RU, "e1c1", 0, 0); /* Крc1 */
}

static void expect_error(const char *fen, const char *text, int lang, int code, const char *start_of_reason)
{
    cr_position pos;
    set_fen(&pos, fen);
    cr_error err;
    cr_error_clear(&err);
    assert_int_equal(cr_move_from_text(&pos, text, lang, NULL, &err), CR_MOVE_NONE);
    assert_int_equal(err.code, code);
    if (strncmp(err.text, start_of_reason, strlen(start_of_reason)) != 0) {
        fail_msg("'%s': reason '%s', expected it to start with '%s'", text, err.text, start_of_reason);
    }
}

static void test_read_errors(void **state)
{
    (void)state;
    const char *q = "r1bqkb1r/ppp2ppp/2nn4/6B1/3Q4/8/PPP2PPP/RN2KBNR w KQkq - 0 8";
    expect_error(q, "Qd4e6", -1, CR_EMOVE, "the queen on d4 cannot reach e6; legal queen moves from d4 are Qd4-");
    expect_error(q, "Qa4e6", -1, CR_EMOVE, "there is no white queen on a4");
    expect_error(q, "Qe6", -1, CR_EMOVE, "no white queen can reach e6; legal queen moves are Qd4-");
    expect_error(START, "Nd2", CR_LANG_EN, CR_EMOVE, "no white knight can reach d2");
    expect_error("4k3/8/8/8/8/5N2/8/1N2K3 w - - 0 1", "Nd2", -1, CR_EAMBIG, "ambiguous: 2 knight moves fit: Nb1-d2, Nf3-d2");
    expect_error("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a8", -1, CR_EAMBIG, "the pawn move needs a promotion piece");
    expect_error(START, "O-O", -1, CR_EMOVE, "castling king side (0-0) is not legal here");
    expect_error(START, "Zf3", CR_LANG_EN, CR_EMOVE, "'Z' is no piece letter in en");
    expect_error(START, "e4z", -1, CR_EMOVE, "unexpected character at 'z'");
    expect_error(START, "", -1, CR_EMOVE, "cannot read a move");
    /* German L is a bishop, Russian Л a rook; B means nothing in German */
    expect_error(START, "Bc4", CR_LANG_DE, CR_EMOVE, "'B' is no piece letter in de");
}

/* The Appendix C sample game, as printed in each of its three forms. */
static void read_game_file(const char *name, int lang, char moves8[2][CR_SAN_MAX], int *plies)
{
    char path[512];
    snprintf(path, sizeof path, "%s/notation/%s", CR_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    int detected = cr_notation_detect_lang(text, n);
    if (lang >= 0) {
        assert_int_equal(detected, lang);
    }
    cr_position pos;
    cr_position_init_start(&pos);
    size_t i = 0;
    *plies = 0;
    while (i < n) {
        char ch = text[i];
        if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '.' || (ch >= '0' && ch <= '9' && text[i + 1] != '-')) {
            i++;
            continue;
        }
        if (strncmp(text + i, "1-0", 3) == 0) {
            break;
        }
        if (ch == '(' && text[i + 1] == '=') {
            i += 3;
            continue;
        }
        cr_san_info info;
        cr_error err;
        cr_move m = cr_move_from_text(&pos, text + i, detected, &info, &err);
        if (m == CR_MOVE_NONE) {
            fail_msg("%s: '%.12s': %s", name, text + i, err.text);
        }
        if (pos.fullmove == 8 && pos.side == CR_WHITE) {
            cr_move_to_san(&pos, m, moves8[0], CR_SAN_MAX);
        }
        if (pos.fullmove == 11 && pos.side == CR_WHITE) {
            cr_move_to_san(&pos, m, moves8[1], CR_SAN_MAX);
            if (strncmp(name, "appendix", 8) == 0 && !(info.flags & CR_SANF_DRAW_OFFER)) {
                fail_msg("%s: no draw offer read at '%s'", name, text + i);
            }
        }
        cr_position_do_move(&pos, m);
        (*plies)++;
        i += (size_t)info.consumed;
    }
}

static void test_appendix_c_game(void **state)
{
    (void)state;
    char mv[2][CR_SAN_MAX];
    int plies;
    read_game_file("appendix_c_short_x.txt", CR_LANG_EN, mv, &plies);
    assert_int_equal(plies, 21);
    assert_string_equal(mv[0], "Qe3+");
    assert_string_equal(mv[1], "Kb1");
    read_game_file("appendix_c_short.txt", CR_LANG_EN, mv, &plies);
    assert_int_equal(plies, 21);
    assert_string_equal(mv[0], "Qe3+");
    read_game_file("appendix_c_long.txt", CR_LANG_EN, mv, &plies);
    assert_int_equal(plies, 21);
    assert_string_equal(mv[0], "Qd3"); /* as written: a legal move, not "corrected" */
    read_game_file("appendix_e_ru_seed.txt", CR_LANG_RU, mv, &plies);
    assert_int_equal(plies, 21);
    assert_string_equal(mv[0], "Qe3+");
    assert_string_equal(mv[1], "Kb1");
    read_game_file("opera_ru.txt", CR_LANG_RU, mv, &plies);
    assert_int_equal(plies, 33);
}

static void test_detect_lang(void **state)
{
    (void)state;
    const char *de = "1. e4 e5 2. Sf3 Sc6 3. Lb5 a6 4. La4 Sf6 5. O-O Le7 6. Te1 b5 7. Lb3 d6 8. c3 O-O";
    assert_int_equal(cr_notation_detect_lang(de, strlen(de)), CR_LANG_DE);
    const char *fr = "1. e4 e5 2. Cf3 Cc6 3. Fb5 a6 4. Fa4 Cf6 5. O-O Fe7 6. Te1 b5 7. Dd3";
    assert_int_equal(cr_notation_detect_lang(fr, strlen(fr)), CR_LANG_FR);
    const char *nl = "1. e4 e5 2. Pf3 Pc6 3. Lb5 a6 4. La4 Pf6 5. O-O Le7 6. Te1 b5 7. Dd3";
    assert_int_equal(cr_notation_detect_lang(nl, strlen(nl)), CR_LANG_NL);
    const char *en = "1. e4 e5 2. Nf3 Nc6 3. Bb5 {Sf3 in German} a6 4. Ba4 (4. Sxc6) Nf6";
    assert_int_equal(cr_notation_detect_lang(en, strlen(en)), CR_LANG_EN);
    const char *pawns = "1. Pe4 Pe5 2. Pd4 Pxd4 3. Nf3 Nc6 4. Bc4";
    assert_int_equal(cr_notation_detect_lang(pawns, strlen(pawns)), CR_LANG_EN);
    const char *ru = "1. e4 e5 2. \xd0\x9a" "f3 \xd0\x9a" "c6 3. \xd0\xa1" "b5 a6";
    assert_int_equal(cr_notation_detect_lang(ru, strlen(ru)), CR_LANG_RU);
    const char *none = "1. e4 e5 2. d4 exd4 3. c3";
    assert_int_equal(cr_notation_detect_lang(none, strlen(none)), -1);
}

static void test_names(void **state)
{
    (void)state;
    assert_int_equal(cr_lang_parse("RU"), CR_LANG_RU);
    assert_int_equal(cr_lang_parse("xx"), -1);
    assert_string_equal(cr_lang_name(CR_LANG_NL), "nl");
    assert_int_equal(cr_style_parse("Figurine"), CR_STYLE_FIGURINE);
    assert_int_equal(cr_style_parse("short"), -1);
    cr_position pos;
    cr_position_init_start(&pos);
    char small[3];
    cr_move m = cr_move_from_uci(&pos, "g1f3");
    assert_int_equal(cr_move_format(&pos, m, CR_STYLE_LONG, CR_LANG_EN, small, sizeof small), CR_ENOSPC);
    assert_int_equal(cr_move_to_san(&pos, cr_move_make(CR_SQ_E2, CR_SQ_E5, 0, 0), small, sizeof small), CR_EMOVE);
    char buf[CR_SAN_MAX];
    assert_int_equal(cr_move_format(&pos, m, CR_STYLE_LONG, CR_LANG_RU, buf, sizeof buf), 6);
    assert_string_equal(buf, "\xd0\x9ag1f3");
    assert_int_equal(cr_move_format(&pos, m, CR_STYLE_UCI, CR_LANG_EN, buf, sizeof buf), 4);
    assert_string_equal(buf, "g1f3");
}

/* Regression (fuzz_san): overlong UTF-8 forms of '!', '?' and NUL after a
 * move made the suffix loop spin for ever. They must be errors, at once. */
static void test_overlong_utf8(void **state)
{
    (void)state;
    cr_position pos;
    cr_position_init_start(&pos);
    const char *texts[] = {"a3\xc0\xa1", "a3\xc0\xbf", "a3\xc0\x80", "e4\xe0\x80\xa1"};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        cr_error err;
        cr_error_clear(&err);
        assert_int_equal(cr_move_from_text(&pos, texts[k], CR_LANG_EN, NULL, &err), CR_MOVE_NONE);
        assert_int_not_equal(err.code, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_san_round_trip),  cmocka_unit_test(test_styles_round_trip),
        cmocka_unit_test(test_tricky_san),      cmocka_unit_test(test_read_forms),
        cmocka_unit_test(test_read_errors),     cmocka_unit_test(test_appendix_c_game),
        cmocka_unit_test(test_detect_lang),     cmocka_unit_test(test_names), cmocka_unit_test(test_overlong_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
