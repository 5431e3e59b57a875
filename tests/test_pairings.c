/* Pairings import: TRF (UTF-8, Windows-1252/CRLF, byte-padded), table order,
 * byes, PGN pairing lists, errors with line/column, and the re-import diff. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cr/pairings.h"
#include "test_util.h"

#define DATA CR_TEST_DATA_DIR "/pairings/"

/* Allocation failure injection (linked with --wrap, see test_pairings.cmake):
 * when armed, the call numbered fail_at fails. */
static long alloc_calls = -1; /* -1: not armed */
static long fail_at;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);

static bool should_fail(void)
{
    return alloc_calls >= 0 && alloc_calls++ == fail_at;
}

void *__wrap_malloc(size_t n)
{
    return should_fail() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    return should_fail() ? NULL : __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : __real_realloc(p, n);
}

/* What a caller does: reads the file, hands its text and name to the library. */
static cr_pairings *load(const char *path, cr_pairings_format format, cr_error *err)
{
    size_t len;
    char *text = cr_test_must_read(path, &len);
    cr_pairings *p = cr_pairings_load(text, len, path, format, err);
    free(text);
    return p;
}

/* Replaces the first `from` in s (malloc'd) by `to`; returns a new string. */
static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    assert_non_null(at);
    size_t a = (size_t)(at - s), fl = strlen(from), tl = strlen(to), sl = strlen(s);
    char *out = malloc(sl - fl + tl + 1);
    assert_non_null(out);
    memcpy(out, s, a);
    memcpy(out + a, to, tl);
    memcpy(out + a + tl, at + fl, sl - a - fl + 1);
    return out;
}

typedef struct expect_board {
    int round, table, white, black; /* start ranks */
    const char *result;
} expect_board;

static void check_boards(const cr_pairings *p, const expect_board *e, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const cr_pairing *b = cr_pairings_board(p, e[i].round, e[i].table);
        if (!b) {
            fail_msg("round %d table %d missing", e[i].round, e[i].table);
        }
        if (b->white.start_rank != e[i].white || b->black.start_rank != e[i].black) {
            fail_msg("round %d table %d: got %d-%d, expected %d-%d", e[i].round, e[i].table,
                     b->white.start_rank, b->black.start_rank, e[i].white, e[i].black);
        }
        assert_int_equal(b->round, e[i].round);
        assert_string_equal(b->result, e[i].result);
    }
}

static void test_trf_utf8_five_rounds(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *p = load(DATA "oslo-open-r5.trf", CR_PAIRINGS_AUTO, &err);
    if (!p) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(cr_pairings_source(p), CR_PAIRINGS_TRF);
    assert_string_equal(cr_pairings_info(p, CR_PF_NAME), "Oslo Chess Festival 2026 - Open A");
    assert_string_equal(cr_pairings_info(p, CR_PF_CITY), "Oslo");
    assert_string_equal(cr_pairings_info(p, CR_PF_FED), "NOR");
    assert_string_equal(cr_pairings_info(p, CR_PF_START), "2026/11/25");
    assert_string_equal(cr_pairings_info(p, CR_PF_END), "2026/11/29");
    assert_string_equal(cr_pairings_info(p, CR_PF_ARBITER), "IA Solberg, Kari");
    assert_string_equal(cr_pairings_info(p, CR_PF_DEPUTIES), "FA Dahl, Ole; NA Lie, Mari");
    assert_string_equal(cr_pairings_info(p, CR_PF_TYPE), "Individual: Swiss-System");
    assert_string_equal(cr_pairings_info(p, CR_PF_NB), "");
    assert_int_equal(cr_pairings_round_count(p), 5);
    assert_int_equal(cr_pairings_player_count(p), 11);

    const cr_pairing_player *pl = cr_pairings_player(p, 1);
    assert_int_equal(pl->start_rank, 2);
    assert_string_equal(pl->name, "\xC3\x98"
                                  "deg\xC3\xA5rd, \xC3\x98ystein");
    assert_string_equal(pl->title, "GM");
    assert_string_equal(pl->fed, "NOR");
    assert_int_equal(pl->rating, 2587);
    assert_int_equal(pl->fide_id, 1504321);
    assert_string_equal(pl->birth, "1995/11/02");
    assert_true(pl->points > 2.99 && pl->points < 3.01);
    assert_int_equal(pl->sex, 'm');
    pl = cr_pairings_player(p, 3);
    assert_string_equal(pl->title, "WGM");
    assert_int_equal(pl->sex, 'w');
    pl = cr_pairings_player(p, 10); /* unrated, no id, no title */
    assert_string_equal(pl->name, "Nilsen, Petter");
    assert_int_equal(pl->rating, 0);
    assert_int_equal(pl->fide_id, 0);
    assert_string_equal(pl->title, "");
    assert_null(cr_pairings_player(p, 11));

    /* Table order: higher score of the pair, then sum, then higher-ranked. */
    static const expect_board e[] = {
        {1, 1, 1, 6, "1-0"},     {1, 2, 7, 2, "0-1"},     {1, 3, 3, 8, "1/2-1/2"},
        {1, 4, 9, 4, "0-1"},     {1, 5, 5, 10, "1-0"},    {2, 1, 4, 1, "0-1"},
        {2, 2, 2, 5, "1/2-1/2"}, {2, 3, 11, 3, "0-1"},    {2, 4, 8, 7, "1-0"},
        {2, 5, 6, 9, "+--"},     {3, 1, 1, 2, "1/2-1/2"}, {3, 2, 3, 5, "1-0"},
        {3, 3, 10, 8, "0-1"},    {3, 4, 4, 6, "1-0"},     {3, 5, 7, 11, "1/2-1/2"},
        {4, 1, 8, 1, "0-1"},     {4, 2, 2, 3, "1-0"},     {4, 3, 5, 4, "1/2-1/2"},
        {4, 4, 11, 10, "1-0"},   {4, 5, 9, 7, "0-1"},     {5, 1, 1, 4, "*"},
        {5, 2, 11, 2, "*"},      {5, 3, 5, 8, "*"},       {5, 4, 3, 6, "*"},
        {5, 5, 7, 10, "*"},
    };
    check_boards(p, e, sizeof e / sizeof e[0]);
    int n;
    const cr_pairing *boards = cr_pairings_boards(p, 5, &n);
    assert_int_equal(n, 5);
    assert_string_equal(boards[1].black.name, "\xC3\x98"
                                              "deg\xC3\xA5rd, \xC3\x98ystein");
    assert_int_equal(boards[0].black.rating, 2402);
    assert_string_equal(boards[0].black.fed, "CZE");
    assert_int_equal(boards[0].white.fide_id, 1700123);
    assert_null(cr_pairings_board(p, 5, 6));
    assert_null(cr_pairings_boards(p, 6, &n));
    assert_int_equal(n, 0);
    assert_null(cr_pairings_boards(p, 0, &n));

    static const struct {
        int round, rank;
        char kind;
    } byes[] = {{1, 11, 'U'}, {2, 10, 'U'}, {3, 9, 'Z'}, {4, 6, 'H'}, {5, 9, 'U'}};
    for (size_t i = 0; i < sizeof byes / sizeof byes[0]; i++) {
        const cr_pairing_bye *b = cr_pairings_byes(p, byes[i].round, &n);
        assert_int_equal(n, 1);
        assert_int_equal(b[0].round, byes[i].round);
        assert_int_equal(b[0].player.start_rank, byes[i].rank);
        assert_int_equal(b[0].kind, byes[i].kind);
    }
    cr_pairings_free(p);
}

static void test_trf_cp1252_crlf_letter_titles(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *p = load(DATA "rapid-cp1252-crlf.trf", CR_PAIRINGS_TRF, &err);
    if (!p) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(cr_pairings_round_count(p), 5); /* XXR 5; three rounds played */
    assert_int_equal(cr_pairings_player_count(p), 8);
    assert_string_equal(cr_pairings_info(p, CR_PF_CITY), "Luzern");
    assert_string_equal(cr_pairings_info(p, CR_PF_TIME), "15 min + 10 sec");
    const cr_pairing_player *pl = cr_pairings_player(p, 0);
    assert_string_equal(pl->name, "M\xC3\xBCller, J\xC3\xBCrgen");
    assert_string_equal(pl->title, "GM");
    assert_string_equal(cr_pairings_player(p, 1)->name, "Dupont, Fran\xC3\xA7ois");
    assert_string_equal(cr_pairings_player(p, 1)->title, "IM");
    assert_string_equal(cr_pairings_player(p, 2)->title, "WGM");
    assert_string_equal(cr_pairings_player(p, 3)->title, "FM");
    /* 0x8A and 0x8E are Windows-1252 letters, not C1 controls. */
    assert_string_equal(cr_pairings_player(p, 7)->name, "\xC5\xA0imek, \xC5\xBDofie");
    assert_string_equal(cr_pairings_player(p, 7)->fed, "CZE");
    static const expect_board e[] = {
        {1, 1, 1, 5, "1-0"}, {1, 2, 6, 2, "0-1"},     {1, 3, 3, 7, "1/2-1/2"},
        {1, 4, 8, 4, "0-1"}, {2, 1, 4, 1, "1/2-1/2"}, {2, 2, 2, 3, "1-0"},
        {2, 3, 7, 5, "1-0"}, {2, 4, 6, 8, "0-1"},     {3, 1, 1, 2, "1/2-1/2"},
        {3, 2, 4, 7, "+--"}, {3, 3, 8, 3, "0-1"},     {3, 4, 5, 6, "1/2-1/2"},
    };
    check_boards(p, e, sizeof e / sizeof e[0]);
    int n;
    assert_null(cr_pairings_boards(p, 4, &n));
    assert_null(cr_pairings_byes(p, 3, &n));
    cr_pairings_free(p);
}

/* 132: the rounds' dates, one per round block (TRF-16 YY/MM/DD). */
static void test_trf_round_dates(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *p = load(DATA "weekend-r4-trf26.trf", CR_PAIRINGS_AUTO, &err);
    if (!p) {
        fail_msg("%s", err.text);
    }
    assert_string_equal(cr_pairings_round_date(p, 1), "2026-03-06");
    assert_string_equal(cr_pairings_round_date(p, 2), "2026-03-07");
    assert_string_equal(cr_pairings_round_date(p, 3), "2026-03-07");
    assert_string_equal(cr_pairings_round_date(p, 5), "2026-03-08");
    assert_string_equal(cr_pairings_round_date(p, 6), "");
    assert_string_equal(cr_pairings_round_date(p, 0), "");
    cr_pairings_free(p);

    /* A file without 142: the dates say how many rounds there are; four-digit
     * years and dots are read, a date that is none is left out. */
    size_t len;
    char *text = cr_test_must_read(DATA "oslo-open-r5.trf", &len);
    char *dated = replace(text, "XXR 5\n",
                          "132                                                                     "
                          "                   2026.11.25          x         26/11/27  26/13/01  26/"
                          "11/29  26/11/30\n");
    free(text);
    p = cr_pairings_parse(dated, strlen(dated), CR_PAIRINGS_TRF, &err);
    free(dated);
    if (!p) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(cr_pairings_round_count(p), 7);
    assert_string_equal(cr_pairings_round_date(p, 1), "2026-11-25");
    assert_string_equal(cr_pairings_round_date(p, 2), "");
    assert_string_equal(cr_pairings_round_date(p, 3), ""); /* "x" */
    assert_string_equal(cr_pairings_round_date(p, 4), "2026-11-27");
    assert_string_equal(cr_pairings_round_date(p, 5), ""); /* month 13 */
    assert_string_equal(cr_pairings_round_date(p, 7), "2026-11-30");
    int n;
    assert_non_null(cr_pairings_boards(p, 5, &n)); /* the pairings are the same */
    assert_int_equal(n, 5);
    cr_pairings_free(p);
}

static void test_trf26_forfeits_and_ties(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *p = load(DATA "weekend-r4-trf26.trf", CR_PAIRINGS_AUTO, &err);
    if (!p) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(cr_pairings_round_count(p), 5); /* 142 5 and a 240 bye in round 5 */
    assert_string_equal(cr_pairings_info(p, CR_PF_TIME), "60'+30\"");
    assert_string_equal(cr_pairings_player(p, 8)->title, "WCM");
    /* Round 3: 6-2 and 5-12 tie on top score and sum; start rank 2 < 5 decides. */
    static const expect_board e[] = {
        {1, 1, 1, 7, "1-0"},     {1, 2, 8, 2, "0-1"},     {1, 3, 3, 9, "1/2-1/2"},
        {1, 4, 10, 4, "0-1"},    {1, 5, 5, 11, "1-0"},    {1, 6, 12, 6, "1-0"},
        {2, 1, 12, 1, "0-1"},    {2, 2, 2, 5, "1/2-1/2"}, {2, 3, 4, 3, "1-0"},
        {2, 4, 9, 6, "0-1"},     {2, 5, 7, 10, "---"},    {2, 6, 11, 8, "0-1"},
        {3, 1, 1, 4, "1/2-1/2"}, {3, 2, 6, 2, "0-1"},     {3, 3, 5, 12, "1/2-1/2"},
        {3, 4, 8, 3, "0-1"},     {3, 5, 11, 9, "1-0"},    {4, 1, 2, 1, "*"},
        {4, 2, 5, 4, "*"},       {4, 3, 12, 3, "*"},      {4, 4, 6, 8, "*"},
        {4, 5, 11, 10, "*"},     {4, 6, 9, 7, "*"},
    };
    check_boards(p, e, sizeof e / sizeof e[0]);
    int n;
    const cr_pairing_bye *b = cr_pairings_byes(p, 3, &n);
    assert_int_equal(n, 2);
    assert_int_equal(b[0].player.start_rank, 7);
    assert_int_equal(b[0].kind, 'H');
    assert_int_equal(b[1].player.start_rank, 10);
    assert_int_equal(b[1].kind, 'Z');
    assert_null(cr_pairings_boards(p, 5, &n));
    b = cr_pairings_byes(p, 5, &n);
    assert_int_equal(n, 1); /* the others are not paired yet, so not listed */
    assert_int_equal(b[0].player.start_rank, 7);
    assert_int_equal(b[0].kind, 'H');
    cr_pairings_free(p);
}

/* Builds a 001 line the way a writer that pads by bytes (printf %-33s) does. */
static int player_line(char *buf, size_t size, int sr, const char *title, const char *name,
                       int rating, double points, const char *rounds)
{
    return snprintf(buf, size, "001 %4d m%3s %-33s %4d %-3s %11s %-10s %4.1f %4d  %s\n", sr, title,
                    name, rating, "NOR", "", "", points, sr, rounds);
}

static void test_trf_round_robin_berger(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *p = load(DATA "masters-rr6.trf", CR_PAIRINGS_AUTO, &err);
    if (!p) {
        fail_msg("%s", err.text);
    }
    /* The Berger table's boards, not the Swiss order (which would put 1-2
     * first in round 2: 1 had won, 6-4 had one point between them). */
    static const expect_board e[] = {
        {1, 1, 1, 6, "1-0"}, {1, 2, 2, 5, "1/2-1/2"}, {1, 3, 3, 4, "0-1"},
        {2, 1, 6, 4, "0-1"}, {2, 2, 5, 3, "1-0"},     {2, 3, 1, 2, "1/2-1/2"},
        {3, 1, 2, 6, "1-0"}, {3, 2, 3, 1, "0-1"},     {3, 3, 4, 5, "1/2-1/2"},
        {4, 1, 6, 5, "0-1"}, {4, 2, 1, 4, "1/2-1/2"}, {4, 3, 2, 3, "1-0"},
        {5, 1, 3, 6, "*"},   {5, 2, 4, 2, "*"},       {5, 3, 5, 1, "*"},
    };
    check_boards(p, e, sizeof e / sizeof e[0]);
    cr_pairings_free(p);

    /* Five players: the dummy's board is the bye, the others close up. */
    char text[2048];
    size_t o = 0;
    o +=
        (size_t)player_line(text + o, sizeof text - o, 1, "", "One", 2500, 1, "0000 - U     2 w  ");
    o +=
        (size_t)player_line(text + o, sizeof text - o, 2, "", "Two", 2400, 1, "   5 w 1     1 b  ");
    o += (size_t)player_line(text + o, sizeof text - o, 3, "", "Three", 2300, 0.5,
                             "   4 w =     5 b  ");
    o += (size_t)player_line(text + o, sizeof text - o, 4, "", "Four", 2200, 0.5,
                             "   3 b =  0000 - U");
    o += (size_t)player_line(text + o, sizeof text - o, 5, "", "Five", 2100, 0,
                             "   2 b 0     3 w  ");
    p = cr_pairings_parse(text, o, CR_PAIRINGS_TRF, &err);
    if (!p) {
        fail_msg("line %d col %d: %s", err.line, err.column, err.text);
    }
    static const expect_board odd[] = {
        {1, 1, 2, 5, "1-0"},
        {1, 2, 3, 4, "1/2-1/2"},
        {2, 1, 5, 3, "*"},
        {2, 2, 1, 2, "*"},
    };
    check_boards(p, odd, sizeof odd / sizeof odd[0]);
    int n;
    assert_int_equal(cr_pairings_byes(p, 2, &n)[0].player.start_rank, 4);
    cr_pairings_free(p);
}

static void test_trf_byte_padded_utf8(void **state)
{
    (void)state;
    char text[2048];
    size_t o = 0;
    o += (size_t)snprintf(text + o, sizeof text - o, "012 Byte padded\n");
    o += (size_t)player_line(text + o, sizeof text - o, 1, " GM",
                             "\xC3\x98"
                             "deg\xC3\xA5rd, \xC3\x98ystein",
                             2587, 1.0, "   2 w 1     3 b  ");
    o += (size_t)player_line(text + o, sizeof text - o, 2, "", "Str\xC3\xB8m, \xC3\x85se", 2400,
                             0.0, "   1 b 0  0000 - U");
    o += (size_t)player_line(text + o, sizeof text - o, 3, "", "Berg, Anders", 2300, 0.0,
                             "0000 - H     1 w  ");
    cr_error err;
    cr_pairings *p = cr_pairings_parse(text, o, CR_PAIRINGS_AUTO, &err);
    if (!p) {
        fail_msg("line %d col %d: %s", err.line, err.column, err.text);
    }
    assert_string_equal(cr_pairings_player(p, 0)->name, "\xC3\x98"
                                                        "deg\xC3\xA5rd, \xC3\x98ystein");
    assert_int_equal(cr_pairings_player(p, 0)->rating, 2587);
    assert_int_equal(cr_pairings_player(p, 1)->rating, 2400);
    static const expect_board e[] = {{1, 1, 1, 2, "1-0"}, {2, 1, 3, 1, "*"}};
    check_boards(p, e, 2);
    int n;
    const cr_pairing_bye *b = cr_pairings_byes(p, 2, &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].player.start_rank, 2);
    assert_int_equal(b[0].kind, 'U');
    b = cr_pairings_byes(p, 1, &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].kind, 'H');
    cr_pairings_free(p);
}

static void test_trf_240_byes_and_comments(void **state)
{
    (void)state;
    char text[2048];
    size_t o = 0;
    o += (size_t)snprintf(text + o, sizeof text - o,
                          "\xEF\xBB\xBF### exported by a test\n012 Byes\n\n142 7\n");
    o += (size_t)player_line(text + o, sizeof text - o, 1, " IM", "A, Anna", 2300, 0, "   2 b  ");
    o += (size_t)player_line(text + o, sizeof text - o, 2, "", "B, Bert", 2200, 0, "   1 w  ");
    o += (size_t)player_line(text + o, sizeof text - o, 3, "", "C, Carl", 2100, 0, "");
    o += (size_t)snprintf(text + o, sizeof text - o,
                          "240 H 001 0003\n240 Z 002 0003\nDAT 0001 EMAIL x@y\n\x1A");
    cr_error err;
    cr_pairings *p = cr_pairings_parse(text, o, CR_PAIRINGS_TRF, &err);
    if (!p) {
        fail_msg("line %d col %d: %s", err.line, err.column, err.text);
    }
    assert_int_equal(cr_pairings_round_count(p), 7);
    static const expect_board e[] = {{1, 1, 2, 1, "*"}};
    check_boards(p, e, 1);
    int n;
    const cr_pairing_bye *b = cr_pairings_byes(p, 1, &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].kind, 'H');
    assert_string_equal(b[0].player.name, "C, Carl");
    b = cr_pairings_byes(p, 2, &n);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].kind, 'Z');
    cr_pairings_free(p);
}

/* 013 records: each listed player carries its team's name, on the player
 * list and on every board and bye; a player no 013 lists has none. */
static void test_trf_team_records(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *p = load(DATA "team-match-r3.trf", CR_PAIRINGS_TRF, &err);
    if (!p) {
        fail_msg("line %d col %d: %s", err.line, err.column, err.text);
    }
    assert_int_equal(cr_pairings_player_count(p), 4);
    static const char *const team[] = {"Tromsø SK", "Bergen SK", "Tromsø SK", "Bergen SK"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(cr_pairings_player(p, i)->start_rank, i + 1);
        assert_string_equal(cr_pairings_player(p, i)->team, team[i]);
    }
    assert_int_equal(cr_pairings_round_count(p), 3);
    for (int r = 1; r <= 3; r++) {
        int n;
        const cr_pairing *b = cr_pairings_boards(p, r, &n);
        assert_int_equal(n, 2);
        for (int i = 0; i < n; i++) {
            /* Every board of this match is between the two teams. */
            assert_string_equal(b[i].white.team, team[b[i].white.start_rank - 1]);
            assert_string_equal(b[i].black.team, team[b[i].black.start_rank - 1]);
            assert_string_not_equal(b[i].white.team, b[i].black.team);
        }
    }
    const cr_pairing *b = cr_pairings_board(p, 1, 1);
    assert_non_null(b);
    assert_string_equal(b->white.name, "Hansen, Are");
    assert_string_equal(b->result, "1-0");
    cr_pairings_free(p);

    /* Without 013 lines nobody has a team. */
    p = load(DATA "oslo-open-r5.trf", CR_PAIRINGS_TRF, &err);
    assert_non_null(p);
    for (int i = 0; i < cr_pairings_player_count(p); i++) {
        assert_string_equal(cr_pairings_player(p, i)->team, "");
    }
    cr_pairings_free(p);
}

typedef struct bad_case {
    const char *what;
    const char *text;
    cr_pairings_format format;
    int code, line, column;
    const char *needle;
} bad_case;

#define P1                                                                                         \
    "001    1 m GM A, Anna                           2300 NOR                         1.0    1  "
#define P2                                                                                         \
    "001    2 m    B, Bert                           2200 NOR                         0.0    2  "
#define P3                                                                                         \
    "001    3 m    C, Carl                           2100 NOR                         0.0    3  "
/* A 013 record up to its name columns (5-36, the name padded to 32). */
#define T013(name32) "013 " name32

static void test_bad_inputs(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"start rank", "012 T\n001   x1 m    A, Anna\n", CR_PAIRINGS_TRF, CR_EINVAL, 2, 5,
         "start rank"},
        {"rating", "001    1 m    A, Anna                           23a0 NOR\n", CR_PAIRINGS_TRF,
         CR_EINVAL, 1, 49, "rating"},
        {"fide id", "001    1 m    A, Anna                           2300 NOR     12x4\n",
         CR_PAIRINGS_TRF, CR_EINVAL, 1, 58, "FIDE id"},
        {"no name", "001    1 m                                      2300 NOR\n", CR_PAIRINGS_TRF,
         CR_EINVAL, 1, 15, "no name"},
        {"points",
         P1 "\n"
            "001    2 m    B, Bert                           2200 NOR                         1x5  "
            "  2\n",
         CR_PAIRINGS_TRF, CR_EINVAL, 2, 81, "points"},
        {"colour", P1 "   2 x 1\n" P2 "   1 b 0\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 97, "colour"},
        {"result", P1 "   2 w 1\n" P2 "   1 b 7\n", CR_PAIRINGS_TRF, CR_EINVAL, 2, 99, "result"},
        {"opponent", P1 "  2x w 1\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 92, "opponent"},
        {"misaligned", P1 "   2 w 1 x\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 101, "blank"},
        {"asymmetric", P1 "   2 w 1\n" P2 "   3 b 0\n" P3 "   2 w 1\n", CR_PAIRINGS_TRF, CR_EINVAL,
         1, 92, "line 2"},
        {"unknown opponent", P1 "   9 w 1\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 92, "opponent 9"},
        {"self", P1 "   1 w 1\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 92, "themself"},
        {"same colour", P1 "   2 w 1\n" P2 "   1 w 0\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 97,
         "colours"},
        {"results disagree", P1 "   2 w 1\n" P2 "   1 b 1\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 99,
         "agree"},
        {"result without opponent", P1 "0000 - 1\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 99,
         "without an opponent"},
        {"duplicate rank", P1 "\n" P1 "\n", CR_PAIRINGS_TRF, CR_EINVAL, 2, 5, "line 1"},
        {"no players", "012 Empty\n022 Nowhere\n", CR_PAIRINGS_TRF, CR_EINVAL, 0, 0, "no player"},
        {"not trf", "012 T\nhello world\n", CR_PAIRINGS_TRF, CR_EINVAL, 2, 1, "not a TRF record"},
        {"rounds", "XXR 1000\n", CR_PAIRINGS_TRF, CR_EINVAL, 1, 5, "rounds"},
        {"240 unknown player", P1 "\n240 H 001 0007\n", CR_PAIRINGS_TRF, CR_EINVAL, 2, 11,
         "start rank 7"},
        {"240 type", P1 "\n240 Q 001 0001\n", CR_PAIRINGS_TRF, CR_EINVAL, 2, 5, "bye type"},
        {"013 no name", P1 "\n" T013("                                ") "   1\n", CR_PAIRINGS_TRF,
         CR_EINVAL, 2, 5, "team has no name"},
        {"013 rank", P1 "\n" T013("Team A                          ") "  x1\n", CR_PAIRINGS_TRF,
         CR_EINVAL, 2, 37, "\"x1\" is not a start rank"},
        {"013 twice",
         P1 "\n" T013("Team A                          ") "   1\n" T013(
             "Team B                          ") "   2    1\n",
         CR_PAIRINGS_TRF, CR_EINVAL, 3, 42, "start rank 1 is already in team Team A (line 2)"},
        {"013 unknown player", P1 "\n" T013("Team A                          ") "   1    7\n",
         CR_PAIRINGS_TRF, CR_EINVAL, 2, 42, "team Team A: start rank 7 has no 001 line"},
        {"pgn quote", "[Event \"x]\n", CR_PAIRINGS_PGN, CR_EPGN, 1, 11, "not closed"},
        {"pgn bracket", "[Event \"x\"\n", CR_PAIRINGS_PGN, CR_EPGN, 1, 11, "']' expected"},
        {"pgn name", "[ \"x\"]\n", CR_PAIRINGS_PGN, CR_EPGN, 1, 3, "tag name"},
        /* tag names outside the PGN grammar: refused at load, the line,
         * column and character named */
        {"pgn name char", "[Round \"1\"]\n[Wh-ite \"A\"]\n", CR_PAIRINGS_PGN, CR_EPGN, 2, 4,
         "tag name Wh-...: '-' is not a letter, digit or '_'"},
        {"pgn name byte", "[Round \"1\"]\n[Wh\xc3\xa9 \"A\"]\n", CR_PAIRINGS_PGN, CR_EPGN, 2, 4,
         "byte 0xc3"},
        {"pgn name long",
         "[A234567890123456789012345678901234567890123456789012345678901234 \"A\"]\n",
         CR_PAIRINGS_PGN, CR_EPGN, 1, 65, "tag name longer than 63"},
        {"pgn no round", "\n\n[White \"A\"]\n[Black \"B\"]\n\n*\n", CR_PAIRINGS_PGN, CR_EPGN, 3, 0,
         "no Round"},
        {"pgn no black", "[Round \"1\"]\n[White \"A\"]\n*\n", CR_PAIRINGS_PGN, CR_EPGN, 1, 0,
         "no Black"},
        {"pgn round", "[Round \"?\"]\n[White \"A\"]\n[Black \"B\"]\n", CR_PAIRINGS_PGN, CR_EPGN, 1,
         1, "Round"},
        {"pgn board", "[Round \"1\"]\n[Board \"x\"]\n", CR_PAIRINGS_PGN, CR_EPGN, 2, 1, "Board"},
        {"pgn elo", "[Round \"1\"]\n  [WhiteElo \"2k\"]\n", CR_PAIRINGS_PGN, CR_EPGN, 2, 3,
         "WhiteElo"},
        {"pgn twice",
         "[Round \"1\"]\n[Board \"1\"]\n[White \"A\"]\n[Black \"B\"]\n*\n"
         "[Round \"1.1\"]\n[White \"C\"]\n[Black \"D\"]\n*\n",
         CR_PAIRINGS_PGN, CR_EPGN, 6, 1, "line 1"},
        {"pgn two byes", "[Round \"1\"]\n[White \"bye\"]\n[Black \"BYE\"]\n", CR_PAIRINGS_PGN,
         CR_EPGN, 1, 0, "BYE"},
        {"pgn comment", "[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n{ open\n", CR_PAIRINGS_PGN,
         CR_EPGN, 4, 0, "comment"},
        {"pgn empty", "", CR_PAIRINGS_PGN, CR_EPGN, 0, 0, "no game"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case *c = &cases[i];
        cr_error err;
        cr_pairings *p = cr_pairings_parse(c->text, strlen(c->text), c->format, &err);
        if (p) {
            cr_pairings_free(p);
            fail_msg("%s: parsed", c->what);
        }
        if (err.code != c->code || err.line != c->line || err.column != c->column ||
            !strstr(err.text, c->needle)) {
            fail_msg("%s: got code %d line %d col %d \"%s\"", c->what, err.code, err.line,
                     err.column, err.text);
        }
    }
}

static void test_load_errors(void **state)
{
    (void)state;
    cr_error err;
    assert_null(cr_pairings_parse(NULL, 3, CR_PAIRINGS_AUTO, &err));
    assert_int_equal(err.code, CR_EINVAL);
    assert_null(cr_pairings_parse("x", 1, (cr_pairings_format)7, &err));
    assert_int_equal(err.code, CR_EINVAL);
    cr_pairings_free(NULL);
    assert_int_equal(cr_pairings_round_count(NULL), 0);

    /* A parse error of a file's text names the file and the line; the
     * buffer need not be NUL-terminated (the 'X' past len is not read). */
    static const char bad[] = "012 T\n001   zz\nX";
    assert_null(cr_pairings_load(bad, sizeof bad - 2, "/venue/round5.trf", CR_PAIRINGS_AUTO, &err));
    assert_int_equal(err.code, CR_EINVAL);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.column, 5);
    assert_string_equal(err.text, "/venue/round5.trf:2: start rank \"zz\" is not a number 1-9999");
    /* Without a name: the parser's message alone. */
    assert_null(cr_pairings_load(bad, sizeof bad - 2, NULL, CR_PAIRINGS_AUTO, &err));
    assert_int_equal(err.line, 2);
    assert_null(strstr(err.text, ":2:"));
    /* A good buffer reads like cr_pairings_parse. */
    static const char good[] = "012 T\n001    1 m    Carlsen, Magnus\n";
    cr_pairings *p = cr_pairings_load(good, sizeof good - 1, "x.trf", CR_PAIRINGS_AUTO, &err);
    assert_non_null(p);
    assert_int_equal(cr_pairings_player_count(p), 1);
    assert_string_equal(cr_pairings_info(p, CR_PF_NAME), "T");
    cr_pairings_free(p);
}

static void test_pgn_pairings(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *p = load(DATA "oslo-open-r5.pgn", CR_PAIRINGS_AUTO, &err);
    if (!p) {
        fail_msg("%s", err.text);
    }
    assert_int_equal(cr_pairings_source(p), CR_PAIRINGS_PGN);
    assert_string_equal(cr_pairings_info(p, CR_PF_NAME), "Oslo Chess Festival 2026 - Open A");
    assert_string_equal(cr_pairings_info(p, CR_PF_CITY), "Oslo NOR");
    assert_string_equal(cr_pairings_info(p, CR_PF_START), "2026.11.29");
    assert_int_equal(cr_pairings_round_count(p), 5);
    assert_int_equal(cr_pairings_player_count(p), 11);
    assert_string_equal(cr_pairings_player(p, 0)->name, "Lindqvist, Erik"); /* file order */
    assert_string_equal(cr_pairings_player(p, 2)->name, "Nilsen, Petter");
    assert_string_equal(cr_pairings_player(p, 10)->name, "Olsen, Kristian");
    int n;
    const cr_pairing *b = cr_pairings_boards(p, 5, &n);
    assert_int_equal(n, 5);
    static const char *const white[] = {"Lindqvist, Erik", "Nilsen, Petter", "Schmidt, Lukas",
                                        "Kowalski, Marek", "Ivanova, Darya"};
    for (int i = 0; i < n; i++) {
        assert_int_equal(b[i].table, i + 1);
        assert_int_equal(b[i].round, 5);
        assert_string_equal(b[i].white.name, white[i]);
        assert_string_equal(b[i].result, "*");
    }
    assert_string_equal(b[0].black.name, "Nov\xC3\xA1kov\xC3\xA1, Jana");
    assert_string_equal(b[0].black.title, "WGM");
    assert_int_equal(b[0].black.rating, 2402);
    assert_int_equal(b[0].black.fide_id, 315567);
    assert_string_equal(b[0].white.fed, "SWE");
    assert_int_equal(b[3].black.fide_id, 2287654); /* "5.4" after a ';' line and a comment */
    assert_int_equal(b[2].black.rating, 2198);     /* "5.3" */
    const cr_pairing_bye *bye = cr_pairings_byes(p, 5, &n);
    assert_int_equal(n, 1);
    assert_string_equal(bye[0].player.name, "Olsen, Kristian");
    assert_int_equal(bye[0].kind, 'U');
    assert_null(cr_pairings_boards(p, 4, &n));
    cr_pairings_free(p);
}

static void test_pgn_table_assignment(void **state)
{
    (void)state;
    /* No Board/dot: next free table in file order, after the explicit ones;
     * escapes in values; several tags on a line; a %-line. */
    const char *text =
        "% generated\n"
        "[Round \"2\"] [White \"A \\\"Al\\\" B\"] [Black \"C\"]\n\n"
        "[Round \"2\"]\n[Board \"1\"]\n[White \"D\"]\n[Black \"E\"]\n[Result \"1-0\"]\n1-0\n"
        "[Round \"2\"]\n[White \"F\"]\n[Black \"M\xFCller\"]\n";
    cr_error err;
    cr_pairings *p = cr_pairings_parse(text, strlen(text), CR_PAIRINGS_AUTO, &err);
    if (!p) {
        fail_msg("line %d col %d: %s", err.line, err.column, err.text);
    }
    assert_int_equal(cr_pairings_round_count(p), 2);
    assert_string_equal(cr_pairings_board(p, 2, 1)->white.name, "D");
    assert_string_equal(cr_pairings_board(p, 2, 1)->result, "1-0");
    assert_string_equal(cr_pairings_board(p, 2, 2)->white.name, "A \"Al\" B");
    assert_string_equal(cr_pairings_board(p, 2, 3)->white.name, "F");
    assert_string_equal(cr_pairings_board(p, 2, 3)->black.name, "M\xC3\xBCller"); /* Latin-1 PGN */
    int n;
    assert_null(cr_pairings_boards(p, 1, &n));
    cr_pairings_free(p);
}

static void test_diff(void **state)
{
    (void)state;
    size_t len;
    char *base = cr_test_must_read(DATA "oslo-open-r5.pgn", &len);
    cr_error err;
    cr_pairings *a = cr_pairings_parse(base, len, CR_PAIRINGS_PGN, &err);
    assert_non_null(a);
    cr_pairing_change *ch;

    /* Same text: nothing. */
    cr_pairings *same = cr_pairings_parse(base, len, CR_PAIRINGS_PGN, &err);
    assert_int_equal(cr_pairings_diff(a, same, &ch), 0);
    assert_null(ch);
    cr_pairings_free(same);

    /* Board 3: Black replaced by someone else, White's rating corrected,
     * board 5 gone, the bye game now a board 6. */
    char *t1 = replace(base, "[Black \"Berg, Anders\"]", "[Black \"Haug, Per\"]");
    char *t2 = replace(t1, "[BlackFideId \"1512345\"]", "[BlackFideId \"1599999\"]");
    char *t3 = replace(t2, "[WhiteElo \"2355\"]", "[WhiteElo \"2360\"]");
    char *t4 = replace(t3, "[Board \"5\"]", "[Board \"7\"]");
    char *t5 = replace(t4, "[Black \"BYE\"]", "[Black \"Late, Entry\"]\n[Board \"6\"]");
    cr_pairings *b = cr_pairings_parse(t5, strlen(t5), CR_PAIRINGS_PGN, &err);
    if (!b) {
        fail_msg("line %d: %s", err.line, err.text);
    }
    int n = cr_pairings_diff(a, b, &ch);
    assert_int_equal(n, 4);
    assert_int_equal(ch[0].kind, CR_PAIRING_CHANGED);
    assert_int_equal(ch[0].round, 5);
    assert_int_equal(ch[0].table, 3);
    assert_int_equal(ch[0].what, CR_PCHG_BLACK | CR_PCHG_WHITE_INFO);
    assert_string_equal(ch[0].old_board->black.name, "Berg, Anders");
    assert_string_equal(ch[0].new_board->black.name, "Haug, Per");
    assert_int_equal(ch[0].old_table_of_pair, 0);
    assert_int_equal(ch[1].kind, CR_PAIRING_REMOVED);
    assert_int_equal(ch[1].table, 5);
    assert_null(ch[1].new_board);
    assert_int_equal(ch[2].kind, CR_PAIRING_ADDED);
    assert_int_equal(ch[2].table, 6);
    assert_null(ch[2].old_board);
    assert_int_equal(ch[3].kind, CR_PAIRING_ADDED);
    assert_int_equal(ch[3].table, 7);
    assert_int_equal(ch[3].old_table_of_pair, 5); /* the same pair, moved */
    cr_pairing_changes_free(ch);

    /* The reverse direction mirrors it. */
    n = cr_pairings_diff(b, a, &ch);
    assert_int_equal(n, 4);
    assert_int_equal(ch[0].what, CR_PCHG_BLACK | CR_PCHG_WHITE_INFO);
    assert_int_equal(ch[1].kind, CR_PAIRING_ADDED);
    assert_int_equal(ch[2].kind, CR_PAIRING_REMOVED);
    cr_pairing_changes_free(ch);

    /* Name respelled with the same FIDE id: same player, new info; a result. */
    char *t6 = replace(base, "[White \"Lindqvist, Erik\"]", "[White \"Lindkvist, Erik\"]");
    char *t7 = replace(t6, "[Result \"*\"]", "[Result \"1-0\"]");
    cr_pairings *c = cr_pairings_parse(t7, strlen(t7), CR_PAIRINGS_PGN, &err);
    assert_non_null(c);
    n = cr_pairings_diff(a, c, &ch);
    assert_int_equal(n, 1);
    assert_int_equal(ch[0].table, 1);
    assert_int_equal(ch[0].what, CR_PCHG_WHITE_INFO | CR_PCHG_RESULT);
    cr_pairing_changes_free(ch);

    /* TRF against PGN of round 5: the rounds the PGN lacks come out removed. */
    cr_pairings *trf = load(DATA "oslo-open-r5.trf", CR_PAIRINGS_AUTO, &err);
    assert_non_null(trf);
    n = cr_pairings_diff(trf, a, &ch);
    assert_true(n >= 20);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(ch[i].kind, CR_PAIRING_REMOVED);
        assert_true(ch[i].round <= 4);
    }
    for (int i = 20; i < n; i++) {
        /* Same players at the same tables; only details the PGN omits differ. */
        assert_int_equal(ch[i].kind, CR_PAIRING_CHANGED);
        assert_int_equal(ch[i].what & (CR_PCHG_WHITE | CR_PCHG_BLACK), 0);
    }
    cr_pairing_changes_free(ch);
    assert_int_equal(cr_pairings_diff(trf, NULL, &ch), CR_EINVAL);
    assert_int_equal(cr_pairings_diff(trf, a, NULL), CR_EINVAL);

    cr_pairing_player x = {0}, y = {0};
    snprintf(x.name, sizeof x.name, "Carlsen,Magnus");
    snprintf(y.name, sizeof y.name, "carlsen, MAGNUS");
    assert_true(cr_pairing_player_same(&x, &y));
    y.fide_id = 1503014;
    assert_true(cr_pairing_player_same(&x, &y)); /* one id missing: names decide */
    x.fide_id = 1503015;
    assert_false(cr_pairing_player_same(&x, &y));

    cr_pairings_free(trf);
    cr_pairings_free(a);
    cr_pairings_free(b);
    cr_pairings_free(c);
    free(base);
    free(t1);
    free(t2);
    free(t3);
    free(t4);
    free(t5);
    free(t6);
    free(t7);
}

/* Every board written as PGN and read back gives the same pairings. */
static void test_to_pgn_round_trip(void **state)
{
    (void)state;
    cr_error err;
    cr_pairings *trf = load(DATA "oslo-open-r5.trf", CR_PAIRINGS_AUTO, &err);
    assert_non_null(trf);
    size_t cap = 65536, len = 0;
    char *all = malloc(cap);
    assert_non_null(all);
    all[0] = '\0';
    for (int r = 1; r <= cr_pairings_round_count(trf); r++) {
        int n;
        const cr_pairing *b = cr_pairings_boards(trf, r, &n);
        for (int i = 0; i < n; i++) {
            int w = cr_pairing_to_pgn(trf, &b[i], all + len, cap - len);
            assert_true(w > 0);
            len += (size_t)w;
        }
    }
    const cr_pairing *first = cr_pairings_board(trf, 1, 1);
    char small[64];
    assert_int_equal(cr_pairing_to_pgn(trf, first, small, sizeof small), CR_ENOSPC);
    assert_int_equal(cr_pairing_to_pgn(trf, NULL, small, sizeof small), CR_EINVAL);
    assert_non_null(
        strstr(all, "[Date \"2026.11.25\"]\n[Round \"1\"]\n[White \"Lindqvist, Erik\"]"));
    assert_non_null(strstr(all, "[WhiteFideId \"1700123\"]"));

    cr_pairings *back = cr_pairings_parse(all, len, CR_PAIRINGS_AUTO, &err);
    if (!back) {
        fail_msg("line %d col %d: %s", err.line, err.column, err.text);
    }
    cr_pairing_change *ch;
    int n = cr_pairings_diff(trf, back, &ch);
    /* Only the forfeit in round 2 reads back as a plain 1-0. */
    assert_int_equal(n, 1);
    assert_int_equal(ch[0].round, 2);
    assert_int_equal(ch[0].table, 5);
    assert_int_equal(ch[0].what, CR_PCHG_RESULT);
    cr_pairing_changes_free(ch);
    assert_string_equal(cr_pairings_info(back, CR_PF_NAME), cr_pairings_info(trf, CR_PF_NAME));
    assert_int_equal(cr_pairings_player_count(back), cr_pairings_player_count(trf));

    /* Quotes and backslashes in names survive. */
    const char *q = "[Round \"1\"]\n[White \"O\\\"Brien \\\\ Jr\"]\n[Black \"X\"]\n";
    cr_pairings *qp = cr_pairings_parse(q, strlen(q), CR_PAIRINGS_PGN, &err);
    assert_non_null(qp);
    assert_string_equal(cr_pairings_board(qp, 1, 1)->white.name, "O\"Brien \\ Jr");
    char out[512];
    assert_true(cr_pairing_to_pgn(qp, cr_pairings_board(qp, 1, 1), out, sizeof out) > 0);
    assert_non_null(strstr(out, "[White \"O\\\"Brien \\\\ Jr\"]"));
    assert_non_null(strstr(out, "[Event \"?\"]\n[Site \"?\"]\n[Date \"????.??.??\"]"));
    cr_pairings_free(qp);
    cr_pairings_free(back);
    cr_pairings_free(trf);
    free(all);
}

/* Fails each allocation in turn: every failure is a clean CR_ENOMEM (the
 * sanitizer build checks for leaks), and in the end the parse succeeds. */
static void test_out_of_memory(void **state)
{
    (void)state;
    static const char *const files[] = {DATA "oslo-open-r5.trf", DATA "oslo-open-r5.pgn"};
    cr_pairings *sets[2];
    for (size_t f = 0; f < 2; f++) {
        size_t len;
        char *text = cr_test_must_read(files[f], &len);
        cr_pairings *ok = NULL;
        long k;
        for (k = 0; k < 10000 && !ok; k++) {
            cr_error err;
            fail_at = k;
            alloc_calls = 0;
            ok = cr_pairings_parse(text, len, CR_PAIRINGS_AUTO, &err);
            alloc_calls = -1;
            if (!ok) {
                assert_int_equal(err.code, CR_ENOMEM);
            }
        }
        assert_non_null(ok);
        assert_true(k > 3); /* the loop did fail some allocations */
        sets[f] = ok;
        free(text);
    }
    int n = 0;
    long k;
    cr_pairing_change *ch = NULL;
    for (k = 0; k < 100; k++) {
        fail_at = k;
        alloc_calls = 0;
        n = cr_pairings_diff(sets[0], sets[1], &ch);
        alloc_calls = -1;
        if (n != CR_ENOMEM) {
            break;
        }
        assert_null(ch);
    }
    assert_true(k > 0);
    assert_true(n > 20);
    cr_pairing_changes_free(ch);
    cr_pairings_free(sets[0]);
    cr_pairings_free(sets[1]);
}

static void test_limits(void **state)
{
    (void)state;
    /* 100 round blocks: refused by column, not by memory. */
    size_t size = 200 + 100 * 10;
    char *line = malloc(size);
    assert_non_null(line);
    int o = snprintf(line, size, "%s", P1);
    for (int r = 0; r < 100; r++) {
        o += snprintf(line + o, size - (size_t)o, "0000 - Z  ");
    }
    cr_error err;
    assert_null(cr_pairings_parse(line, (size_t)o, CR_PAIRINGS_TRF, &err));
    assert_int_equal(err.line, 1);
    assert_int_equal(err.column, 92 + 99 * 10);
    free(line);
    /* A decimal comma in the points column is read, not refused. */
    const char *comma = "001    1 m    A, Anna                           2300 NOR                  "
                        "       2,5    1\n";
    cr_pairings *c = cr_pairings_parse(comma, strlen(comma), CR_PAIRINGS_TRF, &err);
    assert_non_null(c);
    assert_true(cr_pairings_player(c, 0)->points > 2.49 && cr_pairings_player(c, 0)->points < 2.51);
    cr_pairings_free(c);
    /* A long name is cut at a character boundary. */
    char pgn[600];
    char name[400];
    memset(name, 'a', sizeof name);
    memcpy(name + 126, "\xC3\xA9\xC3\xA9", 4);
    name[sizeof name - 1] = '\0';
    snprintf(pgn, sizeof pgn, "[Round \"1\"]\n[White \"%s\"]\n[Black \"B\"]\n", name);
    cr_pairings *p = cr_pairings_parse(pgn, strlen(pgn), CR_PAIRINGS_PGN, &err);
    assert_non_null(p);
    assert_int_equal(strlen(cr_pairings_board(p, 1, 1)->white.name), 126);
    cr_pairings_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trf_utf8_five_rounds),
        cmocka_unit_test(test_trf_cp1252_crlf_letter_titles),
        cmocka_unit_test(test_trf26_forfeits_and_ties),
        cmocka_unit_test(test_trf_round_dates),
        cmocka_unit_test(test_trf_byte_padded_utf8),
        cmocka_unit_test(test_trf_round_robin_berger),
        cmocka_unit_test(test_trf_240_byes_and_comments),
        cmocka_unit_test(test_trf_team_records),
        cmocka_unit_test(test_bad_inputs),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_pgn_pairings),
        cmocka_unit_test(test_pgn_table_assignment),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_to_pgn_round_trip),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
