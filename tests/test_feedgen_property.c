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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
