/* Tests of the PGN reader and writer: a multi-game file with everything PGN
 * allows (BOM, CRLF, comments, variations, NAGs, clocks, draw offers, FEN
 * and Chess960 starts, another language), malformed input with line and
 * column, and read(write(game)) == game for random games with clocks,
 * comments, draw offers and illegal moves, in every style. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/pgn.h"
#include "strbuf.h"
#include "test_util.h"

static uint64_t rng_state;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A file of tests/data. */
static char *read_file(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", CR_TEST_DATA_DIR, name);
    return cr_test_must_read(path, len);
}

static void san_at(const cr_game *g, int i, const char *want)
{
    const cr_ply *p = cr_game_ply(g, i);
    assert_non_null(p);
    assert_string_equal(p->san, want);
}

static void test_multi_game_file(void **state)
{
    (void)state;
    size_t len;
    char *text = read_file("pgn/multi_crlf_bom.pgn", &len);
    cr_pgn_reader *r = cr_pgn_reader_new(text, len);
    free(text);
    assert_non_null(r);
    cr_game *g;
    cr_error err;

    /* 1: Opera game: comments, clocks, variations, NAGs, ; and % lines */
    assert_int_equal(cr_pgn_read(r, &g, &err), 0);
    assert_int_equal(cr_game_ply_count(g), 33);
    assert_int_equal(cr_game_result(g), CR_RESULT_WHITE);
    assert_string_equal(cr_game_tag(g, "White"), "Morphy, Paul");
    assert_string_equal(cr_game_tag(g, "Annotator"), "test \"quoted\" \\ name");
    assert_string_equal(cr_game_comment(g, -1), "Before the game.");
    assert_int_equal(cr_game_ply(g, 0)->clock_ms, 5398000);
    assert_int_equal(cr_game_ply(g, 1)->clock_ms, 5390500);
    assert_int_equal(cr_game_ply(g, 1)->emt_ms, 9500);
    assert_int_equal(cr_game_ply(g, 2)->clock_ms, CR_CLOCK_UNKNOWN);
    assert_null(cr_game_comment(g, 0));
    assert_string_equal(cr_game_comment(g, 17), "the duke's idea");
    san_at(g, 6, "dxe5");
    san_at(g, 18, "Nxb5");
    san_at(g, 32, "Rd8#");
    cr_game_free(g);

    /* 2: Immortal game: numbers without dots, draw offers (=) and = */
    assert_int_equal(cr_pgn_read(r, &g, &err), 0);
    assert_int_equal(cr_game_ply_count(g), 45);
    san_at(g, 16, "Nf5");
    assert_int_equal(cr_game_ply(g, 30)->flags & CR_PLY_DRAW_OFFER, CR_PLY_DRAW_OFFER);
    assert_int_equal(cr_game_ply(g, 32)->flags & CR_PLY_DRAW_OFFER, CR_PLY_DRAW_OFFER);
    assert_int_equal(cr_game_ply(g, 31)->flags & CR_PLY_DRAW_OFFER, 0);
    cr_game_free(g);

    /* 3: FEN start, e.p. with check */
    assert_int_equal(cr_pgn_read(r, &g, &err), 0);
    assert_int_equal(cr_game_ply_count(g), 2);
    san_at(g, 0, "exd6+");
    assert_int_equal(cr_game_start(g)->fullmove, 2);
    cr_game_free(g);

    /* 4: Chess960 castling, then a rook move needing its file */
    assert_int_equal(cr_pgn_read(r, &g, &err), 0);
    assert_int_equal(cr_game_ply_count(g), 3);
    san_at(g, 0, "O-O");
    san_at(g, 1, "O-O-O");
    san_at(g, 2, "Rfd1");
    assert_true(cr_game_start(g)->chess960);
    cr_game_free(g);

    /* 5: German letters, detected */
    assert_int_equal(cr_pgn_read(r, &g, &err), 0);
    assert_int_equal(cr_game_ply_count(g), 10);
    san_at(g, 4, "Bb5");
    assert_int_equal(cr_game_result(g), CR_RESULT_DRAW);
    cr_game_free(g);

    assert_int_equal(cr_pgn_read(r, &g, &err), CR_EEOF);
    cr_pgn_reader_free(r);
}

static void expect_pgn_error(const char *text, int code, int line, int column, const char *reason)
{
    cr_game *g = NULL;
    cr_error err;
    int rc = cr_pgn_parse(text, strlen(text), -1, &g, &err);
    assert_null(g);
    assert_int_equal(rc, code);
    assert_int_equal(err.code, code);
    if (err.line != line || err.column != column || !strstr(err.text, reason)) {
        fail_msg("'%s': got %d:%d %s; expected %d:%d ...%s...", text, err.line, err.column, err.text, line,
                 column, reason);
    }
}

static void test_malformed(void **state)
{
    (void)state;
    expect_pgn_error("[Event \"x\"]\n\n1. e4 e5 2. Ke3 *", CR_EMOVE, 3, 13,
                     "move 2 (white): Ke3: no white king can reach e3");
    /* the long form's 8th move read against the short form's game */
    expect_pgn_error("1. e4 e5 2. Nf3 Nf6 3. d4 exd4 4. e5 Ne4 5. Qxd4 d5 6. exd6 Nxd6 7. Bg5 Nc6\r\n"
                     "8. Qd4e2 Be7 *",
                     CR_EMOVE, 2, 4, "move 8 (white): Qd4e2: the queen on d4 cannot reach e2; legal queen moves from d4 are Qd4-");
    expect_pgn_error("1. e4 {oops\n2. d4 *", CR_EPGN, 1, 7, "unterminated comment");
    expect_pgn_error("[Event x]\n1. e4 *", CR_EPGN, 1, 8, "'\"' expected");
    expect_pgn_error("[Event \"x]\n1. e4 *", CR_EPGN, 1, 8, "unterminated tag value");
    expect_pgn_error("1. e4 (1. d4 d5 *", CR_EPGN, 1, 7, "unterminated variation");
    expect_pgn_error("1. e4 ) *", CR_EPGN, 1, 7, "unexpected ')'");
    expect_pgn_error("1. e4 {[%clk 1:99:00]} *", CR_EPGN, 1, 8, "bad time");
    expect_pgn_error("1. e4 $x *", CR_EPGN, 1, 7, "NAG number expected");
    expect_pgn_error("[FEN \"8/8/8 w - - 0 1\"]\n1. e4 *", CR_EFEN, 1, 12, "FEN: only 3 ranks");
    /* columns count characters, not bytes */
    expect_pgn_error("1. \xd0\xb5" "4 \xd0\xb5" "5 2. \xd0\x9a\xd1\x80" "e3 *", CR_EMOVE, 1, 13, "move 2 (white): \xd0\x9a\xd1\x80" "e3: no white king can reach e3");
    expect_pgn_error("", CR_EPGN, 1, 1, "no game");
    {
        /* a "[%" holding another '[' is text, as written and as read back
         * (fuzz_pgn: the writer's output of such a comment did not parse) */
        const char *t = "1. e4 {[%comment a [%clk 0:10:00] b] [%clk 0:09:00 x [%y]} e5 *";
        cr_game *g = NULL;
        cr_error err;
        assert_int_equal(cr_pgn_parse(t, strlen(t), -1, &g, &err), 0);
        char *out;
        size_t len;
        assert_int_equal(cr_pgn_write(g, NULL, &out, &len), 0);
        cr_game *back = NULL;
        assert_int_equal(cr_pgn_parse(out, len, -1, &back, &err), 0);
        assert_int_equal(cr_game_ply_count(back), 2);
        free(out);
        cr_game_free(back);
        cr_game_free(g);
    }
    /* two FEN tags: the error points into the tag that is wrong (found by fuzz_pgn:
     * the offset of the last tag plus the column in the first ran past the input) */
    expect_pgn_error("[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRxx w KQkq - 0 1\"]\n[FEN \"8/8\"]\n",
                     CR_EFEN, 1, 50, "FEN: bad piece letter 'x'");

    /* after an error the reader goes on with the next game */
    const char *two = "[Event \"bad\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n\n[Event \"good\"]\n\n1. d4 d5 *\n\n"
                      "[Event \"bad2\"]\n\n1. d4 d5 2. Kd2 Kd7 3. Qa5 *\n";
    cr_pgn_reader *r = cr_pgn_reader_new(two, strlen(two));
    cr_game *g = NULL;
    cr_error err;
    assert_int_equal(cr_pgn_read(r, &g, &err), CR_EMOVE);
    assert_int_equal(cr_pgn_read(r, &g, &err), 0);
    assert_string_equal(cr_game_tag(g, "Event"), "good");
    assert_int_equal(cr_game_ply_count(g), 2);
    cr_game_free(g);
    assert_int_equal(cr_pgn_read(r, &g, &err), CR_EMOVE);
    assert_int_equal(err.line, 11);
    assert_int_equal(err.column, 24);
    assert_int_equal(cr_pgn_read(r, &g, &err), CR_EEOF);
    cr_pgn_reader_free(r);
}

/* Everything PGN keeps must come back. */
static void assert_same_game(const cr_game *a, const cr_game *b, bool relay)
{
    char fa[CR_FEN_MAX], fb[CR_FEN_MAX];
    cr_position_to_fen(cr_game_start(a), fa, sizeof fa);
    cr_position_to_fen(cr_game_start(b), fb, sizeof fb);
    assert_string_equal(fa, fb);
    assert_int_equal(cr_game_result(a), cr_game_result(b));
    for (int i = 0; i < cr_game_tag_count(a); i++) {
        const char *n, *v;
        cr_game_tag_at(a, i, &n, &v);
        if (strcmp(n, "Result") != 0) {
            const char *w = cr_game_tag(b, n);
            assert_non_null(w);
            assert_string_equal(v, w);
        }
    }
    assert_int_equal(cr_game_ply_count(a), cr_game_ply_count(b));
    const char *c0a = cr_game_comment(a, -1), *c0b = cr_game_comment(b, -1);
    assert_true((c0a == NULL) == (c0b == NULL));
    for (int i = 0; i < cr_game_ply_count(a); i++) {
        const cr_ply *p = cr_game_ply(a, i), *q = cr_game_ply(b, i);
        assert_int_equal(p->move, q->move);
        assert_string_equal(p->san, q->san);
        /* the words of uncertainty come back in any case */
        uint32_t mask = CR_PLY_DRAW_OFFER | CR_PLY_ILLEGAL | CR_PLY_MISSING | CR_PLY_RECONSTRUCTED;
        if (p->flags & CR_PLY_RECONSTRUCTED) {
            mask |= CR_PLY_AMBIGUOUS;
        }
        if (relay) {
            mask |= CR_PLY_RECONSTRUCTED | CR_PLY_AMBIGUOUS;
            assert_int_equal(p->ts, q->ts);
            assert_int_equal(p->fits, q->fits);
        }
        assert_int_equal(p->flags & mask, q->flags & mask);
        assert_int_equal(p->clock_ms, q->clock_ms);
        assert_int_equal(p->emt_ms, q->emt_ms);
        assert_int_equal(p->missing, q->missing);
        assert_memory_equal(p->nag, q->nag, CR_PLY_NAGS);
        cr_position_to_fen(&p->after, fa, sizeof fa);
        cr_position_to_fen(&q->after, fb, sizeof fb);
        assert_string_equal(fa, fb);
        const char *ca = cr_game_comment(a, i), *cb = cr_game_comment(b, i);
        if (ca || cb) {
            assert_non_null(ca);
            assert_non_null(cb);
            assert_string_equal(ca, cb);
        }
    }
}

static void check_lines(const char *pgn)
{
    bool movetext = false;
    const char *line = pgn;
    while (*line) {
        const char *e = strchr(line, '\n');
        size_t n = e ? (size_t)(e - line) : strlen(line);
        int chars = 0;
        for (size_t k = 0; k < n; k++) {
            chars += ((unsigned char)line[k] & 0xc0) != 0x80;
        }
        if (n == 0) {
            movetext = true;
        } else if (movetext && chars > 80) {
            fail_msg("movetext line of %d characters: %.*s", chars, (int)n, line);
        }
        if (!e) {
            break;
        }
        line = e + 1;
    }
}

static const char *const words[] = {"good", "weak", "time trouble", "draw?", "a {brace", "only move"};

/* A random game: playout with clocks, draw offers, comments and (rarely)
 * illegal moves that stood. */
static cr_game *random_game(int n, bool illegal)
{
    cr_position start;
    if (n % 5 == 4) {
        cr_position_init_960(&start, (int)(rnd() % 960));
    } else if (n % 5 == 3) {
        cr_position_from_fen(&start, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 3 17",
                             NULL);
    } else {
        cr_position_init_start(&start);
    }
    cr_game *g = cr_game_new(&start);
    assert_non_null(g);
    cr_game_set_tag(g, "Event", "Round-trip \"test\" \\ event");
    cr_game_set_tag(g, "White", "Player, A");
    cr_game_set_tag(g, "WhiteElo", "2400");
    if (n % 3 == 0) {
        cr_game_set_comment(g, -1, "Start comment.");
    }
    int plies = 20 + (int)(rnd() % 80);
    for (int i = 0; i < plies; i++) {
        const cr_position *pos = cr_game_position(g);
        cr_movelist list;
        if (cr_generate_legal(pos, &list) == 0) {
            break;
        }
        if (illegal && rnd() % 25 == 0) {
            /* a king or piece jumps somewhere: the board now shows this */
            cr_position after = *pos;
            cr_position_do_move(&after, list.moves[rnd() % (unsigned)list.count]);
            bool missing = rnd() % 3 == 0; /* or a stretch accepted by the arbiter */
            assert_int_equal(cr_game_push_illegal(g, &after, missing ? "--" : "Ke1-e3", (int32_t)(rnd() % 100000), 77),
                             0);
            if (missing) {
                cr_ply *gp = cr_game_ply_mut(g, cr_game_ply_count(g) - 1);
                gp->flags |= CR_PLY_MISSING;
                /* a gap, or the arbiter's (not from rnd(): the games stay those of before) */
                unsigned h = (unsigned)(n * 7919 + i * 104729);
                gp->missing = (uint16_t)(h % 2 ? 1 + h % 30 : 0);
            }
            continue;
        }
        cr_move m = list.moves[rnd() % (unsigned)list.count];
        int32_t clock = rnd() % 3 ? (int32_t)(rnd() % 7200000) : CR_CLOCK_UNKNOWN;
        if (clock > 0 && rnd() % 2) {
            clock -= clock % 1000; /* whole seconds too */
        }
        uint32_t flags = rnd() % 13 == 0 ? CR_PLY_DRAW_OFFER : 0;
        flags |= rnd() % 11 == 0 ? CR_PLY_RECONSTRUCTED : 0;
        flags |= rnd() % 17 == 0 ? CR_PLY_AMBIGUOUS : 0;
        int64_t ts = rnd() % 4 ? (int64_t)i * 1000003 + (int64_t)(rnd() % 1000) : -1;
        assert_int_equal(cr_game_push(g, m, clock, ts, flags), 0);
        if (flags & CR_PLY_AMBIGUOUS) {
            cr_game_ply_mut(g, cr_game_ply_count(g) - 1)->fits = (uint16_t)(2 + rnd() % 5);
        }
        if (rnd() % 4 == 0) {
            cr_game_ply_mut(g, cr_game_ply_count(g) - 1)->emt_ms = (int32_t)(rnd() % 600000);
        }
        unsigned h = (unsigned)(n * 2654435761u + (unsigned)i * 40503u);
        for (int k = 0; k < CR_PLY_NAGS && (h >> (4 * k)) % 5 == 0; k++) {
            cr_game_ply_mut(g, cr_game_ply_count(g) - 1)->nag[k] = (uint8_t)(1 + (h >> (8 + 7 * k)) % 255);
        }
        if (rnd() % 9 == 0) {
            const char *w = words[rnd() % 6];
            cr_game_set_comment(g, cr_game_ply_count(g) - 1, strchr(w, 0x7b) ? "a [%x (brace" : w);
        }
    }
    cr_game_set_result(g, (cr_result)(rnd() % 4));
    return g;
}

static void test_round_trip(void **state)
{
    (void)state;
    rng_state = 0x1234567887654321ULL;
    for (int n = 0; n < 150; n++) {
        cr_game *g = random_game(n, n % 4 == 1);
        for (int style = CR_STYLE_SAN; style <= CR_STYLE_FIGURINE; style++) {
            cr_pgn_options opt = {.style = (cr_style)style, .lang = (cr_lang)((n + style) % CR_LANG_NB), .width = 80,
                                  .flags = n % 3 ? CR_PGN_RELAY_DATA : 0};
            if (style == CR_STYLE_SAN && n % 2 == 0) {
                opt.lang = CR_LANG_EN;
            }
            char *out;
            size_t len;
            assert_int_equal(cr_pgn_write(g, &opt, &out, &len), 0);
            assert_int_equal(strlen(out), len);
            check_lines(out);
            cr_game *back = NULL;
            cr_error err;
            int rc = cr_pgn_parse(out, len, style == CR_STYLE_UCI ? -1 : (int)opt.lang, &back, &err);
            if (rc != 0) {
                fail_msg("style %d lang %d: %d:%d %s\n%s", style, opt.lang, err.line, err.column, err.text, out);
            }
            if (cr_game_ply_count(g) != cr_game_ply_count(back)) {
                fail_msg("style %d lang %d: %d plies read back of %d\n%s", style, opt.lang,
                         cr_game_ply_count(back), cr_game_ply_count(g), out);
            }
            assert_same_game(g, back, opt.flags & CR_PGN_RELAY_DATA);
            cr_game_free(back);
            free(out);
        }
        cr_game_free(g);
    }
}

/* Every PGN says which plies were guessed, and a reader gets them back;
 * bare PGN leaves the words out. */
static void test_uncertainty_marks(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    const char *sans[] = {"e4", "e5", "Nf3", "Nc6", "Nc3", "Nf6", "Bb5"};
    for (int i = 0; i < 7; i++) {
        cr_move m = cr_move_from_text(cr_game_position(g), sans[i], CR_LANG_EN, NULL, NULL);
        uint32_t flags = i >= 2 && i < 6 ? CR_PLY_RECONSTRUCTED | CR_PLY_AMBIGUOUS : i == 1 ? CR_PLY_RECONSTRUCTED : 0;
        assert_int_equal(cr_game_push(g, m, i == 6 ? 5000 : CR_CLOCK_UNKNOWN, -1, flags), 0);
    }
    cr_game_set_comment(g, 2, "also Nc3 Nc6 Nf3 Nf6");
    char *out;
    assert_int_equal(cr_pgn_write(g, NULL, &out, NULL), 0);
    assert_non_null(strstr(out, "1. e4 e5 {reconstructed} 2. Nf3 {reconstructed, ambiguous: also Nc3 Nc6 Nf3 Nf6}\n"
                                "2... Nc6 {reconstructed, ambiguous} 3. Nc3 {reconstructed, ambiguous} 3... Nf6\n"
                                "{reconstructed, ambiguous} 4. Bb5 {[%clk 0:00:05]} *"));
    cr_game *back = NULL;
    cr_error err;
    assert_int_equal(cr_pgn_parse(out, strlen(out), -1, &back, &err), 0);
    assert_same_game(g, back, false);
    assert_int_equal(cr_game_ply(back, 0)->flags, 0);
    assert_int_equal(cr_game_ply(back, 1)->flags, CR_PLY_RECONSTRUCTED);
    assert_string_equal(cr_game_comment(back, 2), "also Nc3 Nc6 Nf3 Nf6");
    assert_null(cr_game_comment(back, 3));
    cr_game_free(back);
    free(out);
    cr_pgn_options bare = {.style = CR_STYLE_SAN, .lang = CR_LANG_EN, .flags = CR_PGN_BARE};
    assert_int_equal(cr_pgn_write(g, &bare, &out, NULL), 0);
    assert_null(strstr(out, "reconstructed"));
    assert_null(strstr(out, "also")); /* the other sequences are words of uncertainty too */
    assert_non_null(strstr(out, "1. e4 e5 2. Nf3 Nc6 3. Nc3 Nf6 4. Bb5"));
    free(out);
    /* an arbiter's "accept the board": the missing stretch says so */
    cr_position after;
    cr_position_from_fen(&after, "r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 9", NULL);
    assert_int_equal(cr_game_push_illegal(g, &after, "--", CR_CLOCK_UNKNOWN, -1), 0);
    cr_game_ply_mut(g, 7)->flags |= CR_PLY_MISSING;
    assert_int_equal(cr_pgn_write(g, NULL, &out, NULL), 0);
    /* one comment: the ply's and the continuation (chess.js takes no two in a row) */
    assert_non_null(strstr(out, "4. Bb5 {[%clk 0:00:05] [%missing\nr1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 9]} *"));
    assert_int_equal(cr_pgn_parse(out, strlen(out), -1, &back, &err), 0);
    assert_same_game(g, back, false);
    cr_game_free(back);
    free(out);
    cr_game_free(g);
}

/* A suffix that a line break parted from its move still belongs to it. */
static void test_suffix_on_next_line(void **state)
{
    (void)state;
    const char *text = "[Event \"x\"]\n\n1. e4 Nf6 2. e5 d5 3. exd6\ne.p. exd6 4. d4 Qe7\n+ 5. Be2 *\n";
    cr_game *g = NULL;
    cr_error err;
    assert_int_equal(cr_pgn_parse(text, strlen(text), -1, &g, &err), 0);
    assert_int_equal(cr_game_ply_count(g), 9);
    assert_string_equal(cr_game_ply(g, 4)->san, "exd6");
    assert_string_equal(cr_game_ply(g, 5)->san, "exd6");
    assert_string_equal(cr_game_ply(g, 7)->san, "Qe7+");
    cr_game_free(g);
}

/* tests/data/pgn/uncertainty.pgn (read by chess.js in tests/browser) is the
 * writer's output: read back and written again it is the same text, with
 * the marks back as flags. */
static void test_uncertainty_fixture(void **state)
{
    (void)state;
    size_t len;
    char *text = read_file("pgn/uncertainty.pgn", &len);
    cr_pgn_reader *r = cr_pgn_reader_new(text, len);
    cr_sb all = {0};
    cr_game *g;
    cr_error err;
    int n = 0;
    while (cr_pgn_read(r, &g, &err) == 0) {
        char *out;
        assert_int_equal(cr_pgn_write(g, NULL, &out, NULL), 0);
        cr_sb_str(&all, out);
        free(out);
        if (n == 0) {
            for (int i = 0; i < cr_game_ply_count(g); i++) {
                bool guessed = i >= 24 && i < 32;
                assert_int_equal(!!(cr_game_ply(g, i)->flags & CR_PLY_RECONSTRUCTED), guessed);
            }
        } else {
            assert_true(cr_game_ply(g, 7)->flags & CR_PLY_MISSING);
        }
        cr_game_free(g);
        n++;
    }
    assert_int_equal(n, 2);
    assert_int_equal(all.len, len);
    assert_memory_equal(all.p, text, len);
    free(all.p);
    cr_pgn_reader_free(r);
    free(text);
}

static void test_writer_format(void **state)
{
    (void)state;
    size_t len;
    char *text = read_file("notation/appendix_c_short_x.txt", &len);
    cr_game *g = NULL;
    cr_error err;
    assert_int_equal(cr_pgn_parse(text, len, -1, &g, &err), 0);
    free(text);
    cr_game_set_tag(g, "White", "A");
    char *out;
    assert_int_equal(cr_pgn_write(g, NULL, &out, NULL), 0);
    const char *want = "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"A\"]\n"
                       "[Black \"?\"]\n[Result \"*\"]\n\n"
                       "1. e4 e5 2. Nf3 Nf6 3. d4 exd4 4. e5 Ne4 5. Qxd4 d5 6. exd6 Nxd6 7. Bg5 Nc6 8.\n"
                       "Qe3+ Be7 9. Nbd2 O-O 10. O-O-O Re8 11. Kb1 {[%draw offer]} *\n\n";
    assert_string_equal(out, want);
    free(out);
    cr_pgn_options fide = {.style = CR_STYLE_FIDE, .lang = CR_LANG_EN};
    assert_int_equal(cr_pgn_write(g, &fide, &out, NULL), 0);
    assert_non_null(strstr(out, "6. exd6 e.p. Nxd6"));
    assert_non_null(strstr(out, "9. Nbd2 0-0 10. 0-0-0 Re8 11. Kb1 (=) *"));
    free(out);
    char small[64];
    assert_int_equal(cr_pgn_write_buf(g, NULL, small, sizeof small), CR_ENOSPC);
    cr_game_free(g);
}

/* Issue 16 finding 6: a tag name cannot smuggle a second tag in; values
 * are escaped, control characters written as spaces. */
/* Annotations are kept: glyphs read as NAGs $1..$6 (attached to the move
 * or apart), $N as they are, written back as $N; a fourth NAG stays in the
 * comment; an annotation that is none is an error naming it and where. */
static void test_nags(void **state)
{
    (void)state;
    const char *text = "1. e4! e5!? 2. Nf3?! Nc6 $14 3. Bb5 !! a6 ?? 4. Ba4 $1 $13 $18 $22 *";
    cr_game *g = NULL;
    cr_error err;
    assert_int_equal(cr_pgn_parse(text, strlen(text), -1, &g, &err), 0);
    static const int want[][3] = {{1, 0, 0}, {5, 0, 0}, {6, 0, 0}, {14, 0, 0}, {3, 0, 0}, {4, 0, 0}, {1, 13, 18}};
    for (int i = 0; i < 7; i++) {
        for (int k = 0; k < 3; k++) {
            assert_int_equal(cr_game_ply(g, i)->nag[k], want[i][k]);
        }
    }
    assert_string_equal(cr_game_comment(g, 6), "$22");
    char *out;
    size_t len;
    assert_int_equal(cr_pgn_write(g, NULL, &out, &len), 0);
    assert_non_null(strstr(out, "1. e4 $1 e5 $5 2. Nf3 $6 Nc6 $14 3. Bb5 $3 a6 $4 4. Ba4 $1 $13 $18 {$22}"));
    free(out);
    cr_game_free(g);
    static const char *const bad[] = {"1. e4 !!! e5 *", "1. e4 e5 $256 *", "1. e4 ?!? *", "1. e4!!! *"};
    static const int col[] = {7, 10, 7, 4};
    for (int i = 0; i < 4; i++) {
        g = NULL;
        assert_int_not_equal(cr_pgn_parse(bad[i], strlen(bad[i]), -1, &g, &err), 0);
        assert_int_equal(err.line, 1);
        assert_int_equal(err.column, col[i]);
        cr_game_free(g);
    }
}

/* A gap is read back: its count, its position, the moves after it; the
 * writer's words before it are not a comment. */
static void test_gap_round_trip(void **state)
{
    (void)state;
    cr_game *g = cr_game_new(NULL);
    cr_position p;
    cr_position_init_start(&p);
    assert_int_equal(cr_game_push(g, cr_move_from_text(&p, "e4", CR_LANG_EN, NULL, NULL), 180000, -1, 0), 0);
    cr_position after;
    assert_int_equal(cr_position_from_fen(&after, "rnbqkb1r/1p3ppp/p2p1n2/4p3/4P3/1NN1B3/PPP2PPP/R2QKB1R b KQkq - 0 7",
                                          NULL), 0);
    assert_int_equal(cr_game_push_illegal(g, &after, "--", CR_CLOCK_UNKNOWN, -1), 0);
    cr_ply *gp = cr_game_ply_mut(g, 1);
    gp->flags |= CR_PLY_MISSING;
    gp->missing = 12;
    assert_int_equal(cr_game_push(g, cr_move_from_text(&after, "Be6", CR_LANG_EN, NULL, NULL), -1, -1, 0), 0);
    char *out;
    size_t len;
    assert_int_equal(cr_pgn_write(g, NULL, &out, &len), 0);
    assert_non_null(strstr(out, "gap: at least 12 plies not seen [%missing 12"));
    cr_game *back = NULL;
    cr_error err;
    assert_int_equal(cr_pgn_parse(out, len, -1, &back, &err), 0);
    assert_same_game(g, back, false);
    assert_null(cr_game_comment(back, 0)); /* the words are the command's */
    free(out);
    cr_game_free(back);
    /* counted by the clock: "gap: 12 plies", no "at least", read back as such */
    gp->flags |= CR_PLY_COUNTED;
    assert_int_equal(cr_pgn_write(g, NULL, &out, &len), 0);
    assert_non_null(strstr(out, "gap: 12 plies not seen [%missing 12"));
    assert_null(strstr(out, "at least"));
    assert_int_equal(cr_pgn_parse(out, len, -1, &back, &err), 0);
    assert_true(cr_game_ply(back, 1)->flags & CR_PLY_COUNTED);
    assert_int_equal(cr_game_ply(back, 1)->missing, 12);
    assert_same_game(g, back, false);
    assert_null(cr_game_comment(back, 0));
    free(out);
    cr_game_free(back);
    gp->flags &= ~(uint32_t)CR_PLY_COUNTED;
    /* wrapped anywhere, the words still go; other words stay */
    const char *text = "1. e4 {[%clk 0:03:00] gap: at least\n12 plies\nnot seen [%missing 12 "
                       "rnbqkb1r/1p3ppp/p2p1n2/4p3/4P3/1NN1B3/PPP2PPP/R2QKB1R b KQkq - 0 7] 7... Be6} *";
    char buf[400];
    size_t n = 0;
    for (const char *q = text; *q; q++) {
        if (q[0] == '\\' && q[1] == 'n') {
            buf[n++] = '\n';
            q++;
        } else {
            buf[n++] = *q;
        }
    }
    back = NULL;
    assert_int_equal(cr_pgn_parse(buf, n, -1, &back, &err), 0);
    assert_same_game(g, back, false);
    cr_game_free(back);
    text = "1. e4 {lost gap: at least 3 plies [%missing 4 8/8/8/4k3/8/8/8/4K3 w - - 0 9]} *";
    back = NULL;
    assert_int_equal(cr_pgn_parse(text, strlen(text), -1, &back, &err), 0);
    assert_string_equal(cr_game_comment(back, 0), "lost gap: at least 3 plies");
    assert_int_equal(cr_game_ply(back, 1)->missing, 4);
    cr_game_free(back);
    cr_game_free(g);
}

static void test_writer_escapes_tags(void **state)
{
    (void)state;
    assert_true(cr_pgn_tag_name_ok("WhiteFideId"));
    assert_true(cr_pgn_tag_name_ok("a_1"));
    assert_false(cr_pgn_tag_name_ok(""));
    assert_false(cr_pgn_tag_name_ok("X\"]\n[Result"));
    assert_false(cr_pgn_tag_name_ok("a b"));
    assert_false(cr_pgn_tag_name_ok("a\tb"));
    char longname[CR_PGN_TAG_NAME_MAX + 2];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    assert_false(cr_pgn_tag_name_ok(longname));
    longname[CR_PGN_TAG_NAME_MAX] = '\0';
    assert_true(cr_pgn_tag_name_ok(longname));

    cr_game *g = cr_game_new(NULL);
    assert_non_null(g);
    cr_game_set_tag(g, "X\"]\n[Result", "0-1");
    cr_game_set_tag(g, "Annotator", "a\"b\\c\nd\te");
    char *out;
    assert_int_equal(cr_pgn_write(g, NULL, &out, NULL), 0);
    assert_null(strstr(out, "[Result \"0-1\"]"));
    assert_null(strstr(out, "X\""));
    assert_non_null(strstr(out, "[Annotator \"a\\\"b\\\\c d e\"]\n"));
    int results = 0;
    for (const char *q = out; (q = strstr(q, "[Result ")) != NULL; q++) {
        results++;
    }
    assert_int_equal(results, 1);
    free(out);
    cr_game_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multi_game_file),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_uncertainty_marks),
        cmocka_unit_test(test_suffix_on_next_line),
        cmocka_unit_test(test_uncertainty_fixture),
        cmocka_unit_test(test_writer_format),
        cmocka_unit_test(test_writer_escapes_tags),
        cmocka_unit_test(test_nags),
        cmocka_unit_test(test_gap_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
