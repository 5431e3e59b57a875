/* Property test: seeded random games, turned into noisy feeds by the feed
 * generator (tools/feedgen.h: setup, lifts in any order, captures, castling
 * three ways, en passant, promotions both ways, knocks, slides, take-backs,
 * missed snapshots, rotated boards, several games, clocks), must come back
 * out of the inference move for move. Prints the pass rate per behaviour;
 * `feedgen --selftest N` runs the same over thousands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cr/infer.h"
#include "feedgen.h"

#define FEEDS 300

static void test_generated_feeds(void **state)
{
    (void)state;
    unsigned pass[FG_NB] = {0}, total[FG_NB] = {0};
    int ok = 0;
    for (int i = 0; i < FEEDS; i++) {
        char *feed = NULL, *exp = NULL, *got = NULL;
        size_t flen = 0, elen = 0;
        FILE *f = open_memstream(&feed, &flen);
        FILE *e = open_memstream(&exp, &elen);
        assert_non_null(f);
        assert_non_null(e);
        unsigned used[FG_NB];
        fg_make_feed(20261129u + (uint64_t)i, "PT", f, e, used, NULL);
        fclose(f);
        fclose(e);
        assert_int_equal(fg_replay(feed, flen, NULL, &got, NULL, 0), 0);
        bool good = strcmp(got, exp) == 0;
        if (!good) {
            print_message("feed seed %d differs:\n  want: %s  got:  %s", 20261129 + i, exp, got);
        }
        ok += good;
        for (int b = 0; b < FG_NB; b++) {
            if (used[b]) {
                total[b]++;
                pass[b] += good;
            }
        }
        free(feed);
        free(exp);
        free(got);
    }
    print_message("generated feeds: %d/%d passed\n", ok, FEEDS);
    for (int b = 0; b < FG_NB; b++) {
        if (total[b]) {
            print_message("  %-22s %4u/%-4u\n", fg_behaviour_names[b], pass[b], total[b]);
        }
    }
    /* every behaviour is exercised */
    for (int b = 0; b < FG_NB; b++) {
        if (total[b] == 0) {
            fail_msg("behaviour %s never generated", fg_behaviour_names[b]);
        }
    }
    assert_int_equal(ok, FEEDS);
}

/* ------------------------------------------- long silences (issue 28) */

typedef struct silent_run {
    int64_t done[FG_MAX_PLIES + 1]; /* snapshot that completed each ply of game 1 */
    cr_game *game;                  /* game 1 as it stood last */
    bool second;                    /* a second game began */
} silent_run;

static void silent_event(void *data, const cr_infer_event *ev)
{
    silent_run *r = data;
    if (!ev->game || ev->game_number != 1) {
        r->second |= ev->game_number > 1;
        return;
    }
    if (ev->kind == CR_INFER_MOVE && ev->ply <= FG_MAX_PLIES) {
        r->done[ev->ply] = ev->t_snapshot;
    }
    cr_game_free(r->game);
    r->game = cr_game_clone(ev->game);
}

/* Feeds text to one engine (the feed has one board). */
static void silent_replay(const char *feed, size_t len, silent_run *r)
{
    memset(r, 0, sizeof *r);
    cr_infer *inf = cr_infer_new("PT", NULL, silent_event, r);
    assert_non_null(inf);
    char *scratch = malloc(len + 2);
    assert_non_null(scratch);
    int64_t last = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(feed + pos, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - (feed + pos)) : len - pos;
        cr_feed_event ev;
        if (cr_feed_parse_line(feed + pos, ll, &ev, scratch, len + 2, NULL) == 1) {
            cr_infer_feed(inf, &ev);
            last = ev.t;
        }
        pos += ll + 1;
    }
    cr_infer_finish(inf, last + 60000);
    cr_infer_free(inf);
    free(scratch);
}

/* The feed with the board silent after ply `after` for `plies` plies (and,
 * if `again`, once more after the next 3 plies for `plies` more: chained
 * silences), as cut-gaps makes it: pos and clock lines between the
 * snapshots that completed the plies left out, disconnect and connect
 * around them. */
static char *cut_silences(const char *feed, size_t len, const silent_run *r, int after, int plies, bool again,
                          size_t *outlen)
{
    int64_t win[2][2] = {{r->done[after - 1], r->done[after + plies - 1]}, {-1, -1}};
    if (again) {
        win[1][0] = r->done[after + plies + 2];
        win[1][1] = r->done[after + 2 * plies + 2];
    }
    char *out = NULL;
    FILE *f = open_memstream(&out, outlen);
    assert_non_null(f);
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(feed + pos, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - (feed + pos)) : len - pos;
        long long t = -1;
        char kind[16] = "";
        sscanf(feed + pos, "%lld %*s %15s", &t, kind);
        bool data = strcmp(kind, "pos") == 0 || strcmp(kind, "clock") == 0;
        bool drop = false;
        for (int w = 0; w < 2 && data; w++) {
            if (win[w][0] >= 0 && t > win[w][0] && t < win[w][1]) {
                drop = true;
            }
            if (win[w][0] >= 0 && t == win[w][1] && strcmp(kind, "pos") == 0) {
                fprintf(f, "%lld PT connect\n", t);
            }
        }
        if (!drop) {
            fwrite(feed + pos, 1, ll, f);
            fputc('\n', f);
        }
        for (int w = 0; w < 2 && data; w++) {
            if (win[w][0] >= 0 && t == win[w][0] && strcmp(kind, "pos") == 0 && !drop) {
                fprintf(f, "%lld PT disconnect\n", t);
            }
        }
        pos += ll + 1;
    }
    fclose(f);
    return out;
}

/* Every ply of a game seen through silences is right, or inside a marked
 * gap (a CR_PLY_MISSING ply whose position is one the game passed through,
 * never counting more plies than were played to it), or inside a stretch
 * marked ambiguous that ends on the game's position; nothing after a gap is
 * dropped. */
static bool silent_game_ok(const cr_game *want, const cr_game *got, char *why, size_t size)
{
    int i = 0, j = 0, nw = cr_game_ply_count(want), ng = got ? cr_game_ply_count(got) : 0;
    while (j < ng) {
        const cr_ply *p = cr_game_ply(got, j);
        if (p->flags & CR_PLY_MISSING) {
            /* the position after at least `missing` plies (exactly that many
             * when the clock counted them): a position may come back */
            int least = p->missing > 0 ? p->missing : 1;
            int k = i + least - 1;
            while (k < nw && (memcmp(cr_game_ply(want, k)->after.board, p->after.board, CR_SQ_NB) != 0 ||
                              cr_game_ply(want, k)->after.side != p->after.side)) {
                if (p->flags & CR_PLY_COUNTED) {
                    k = nw;
                    break;
                }
                k++;
            }
            if (k >= nw) {
                snprintf(why, size, "ply %d: a gap of %s%u plies to a position the game did not have then", j,
                         (p->flags & CR_PLY_COUNTED) ? "" : "at least ", p->missing);
                return false;
            }
            i = k + 1;
            j++;
            continue;
        }
        if (i >= nw) {
            snprintf(why, size, "ply %d: more plies than were played", j);
            return false;
        }
        const cr_ply *q = cr_game_ply(want, i);
        if (p->move != q->move && !(p->flags & CR_PLY_AMBIGUOUS)) {
            snprintf(why, size, "ply %d: %s, played %s, not marked", j, p->san, q->san);
            return false;
        }
        if (memcmp(p->after.board, q->after.board, CR_SQ_NB) != 0 &&
            !(j + 1 < ng && (cr_game_ply(got, j + 1)->flags & CR_PLY_AMBIGUOUS))) {
            snprintf(why, size, "ply %d: %s ends a marked stretch on a position the game did not have", j, p->san);
            return false;
        }
        i++;
        j++;
    }
    if (i != nw) {
        snprintf(why, size, "%d plies of %d followed: the rest dropped", i, nw);
        return false;
    }
    return true;
}

static void test_long_silences(void **state)
{
    (void)state;
    int ok = 0, runs = 0, gaps = 0, counted = 0, rotated = 0;
    for (int i = 0; i < 60; i++) {
        char *feed = NULL, *exp = NULL;
        size_t flen = 0, elen = 0;
        FILE *f = open_memstream(&feed, &flen);
        FILE *e = open_memstream(&exp, &elen);
        assert_non_null(f);
        assert_non_null(e);
        unsigned used[FG_NB];
        fg_make_feed(20261202u + (uint64_t)i, "PT", f, e, used, NULL);
        fclose(f);
        fclose(e);
        silent_run clean;
        silent_replay(feed, flen, &clean);
        int n = clean.game ? cr_game_ply_count(clean.game) : 0;
        bool again = i % 3 == 0;
        int plies = 8 + i % 4 * (i % 2 ? 3 : 7); /* 8 to 29 */
        int after = 2 + i % 9;
        if (clean.second || !clean.game || n < after + (again ? 2 : 1) * plies + 6) {
            cr_game_free(clean.game);
            free(feed);
            free(exp);
            continue;
        }
        size_t clen = 0;
        char *cut = cut_silences(feed, flen, &clean, after, plies, again, &clen);
        silent_run got;
        silent_replay(cut, clen, &got);
        char why[160] = "";
        bool good = silent_game_ok(clean.game, got.game, why, sizeof why);
        if (!good && getenv("DUMPCUT")) { /* DUMPCUT=FILE: the failing cut feed, to replay by hand */
            FILE *df = fopen(getenv("DUMPCUT"), "w");
            fwrite(cut, 1, clen, df);
            fclose(df);
        }
        if (!good) {
            print_message("seed %d, silence of %d after ply %d%s: %s\n", 20261202 + i, plies, after,
                          again ? " twice" : "", why);
        }
        for (int k = 0; got.game && k < cr_game_ply_count(got.game); k++) {
            gaps += !!(cr_game_ply(got.game, k)->flags & CR_PLY_MISSING);
            counted += !!(cr_game_ply(got.game, k)->flags & CR_PLY_COUNTED);
        }
        ok += good;
        runs++;
        rotated += used[FG_ROTATED] != 0;
        cr_game_free(clean.game);
        cr_game_free(got.game);
        free(cut);
        free(feed);
        free(exp);
    }
    print_message("long silences: %d/%d games right or inside marked gaps (%d gaps, %d counted by the clock, "
                  "%d boards turned round)\n", ok, runs, gaps, counted, rotated);
    assert_true(runs >= 20);
    assert_true(rotated > 0);
    assert_true(gaps > 0);
    assert_int_equal(ok, runs);
}

/* Real games (tests/data/games/classics.san), each under 25 noise seeds. */
static void test_classic_games(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/games/classics.san", CR_TEST_DATA_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[4096];
    int games = 0, feeds = 0;
    fg_game *g = malloc(sizeof *g);
    assert_non_null(g);
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') {
            continue;
        }
        cr_error err;
        if (fg_parse_san_line(line, g, &err) != 0) {
            fail_msg("%s: %s", path, err.text);
        }
        games++;
        for (int seed = 0; seed < 25; seed++) {
            char *feed = NULL, *exp = NULL, *got = NULL;
            size_t flen = 0, elen = 0;
            FILE *fo = open_memstream(&feed, &flen);
            FILE *eo = open_memstream(&exp, &elen);
            fg_make_feed_game((uint64_t)(games * 1000 + seed), "CG", g, fo, eo, NULL, NULL);
            fclose(fo);
            fclose(eo);
            assert_int_equal(fg_replay(feed, flen, NULL, &got, NULL, 0), 0);
            if (strcmp(got, exp) != 0) {
                fail_msg("game %d seed %d:\n  want: %s  got:  %s", games, seed, exp, got);
            }
            feeds++;
            free(feed);
            free(exp);
            free(got);
        }
    }
    fclose(f);
    free(g);
    assert_true(games >= 3);
    print_message("classic games: %d feeds passed\n", feeds);
}

/* The generator is deterministic: the same seed gives the same feed. */
static void test_deterministic(void **state)
{
    (void)state;
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    FILE *f = open_memstream(&a, &la);
    fg_make_feed(7, "X", f, NULL, NULL, NULL);
    fclose(f);
    f = open_memstream(&b, &lb);
    fg_make_feed(7, "X", f, NULL, NULL, NULL);
    fclose(f);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_generated_feeds),
        cmocka_unit_test(test_classic_games),
        cmocka_unit_test(test_long_silences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
