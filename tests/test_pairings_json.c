/* The pairings as the viewer's JSON (relay/core/pairings_json.h): the
 * players with their start ranks and the file's points, every round's
 * boards with the file's results, forfeits and byes. The Oslo TRF's JSON is
 * kept as tests/data/pairings/oslo-open-r5.pairings.json, which the
 * browser's standings test (tests/browser/unit/standings.test.mjs) merges
 * with live results: both ends read the same bytes. */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "core/pairings_json.h"
#include "test_util.h"

#define DATA CR_TEST_DATA_DIR "/pairings/"

static char *json_of(const char *path)
{
    size_t len = 0;
    char *text = cr_test_read_file(path, &len);
    assert_non_null(text);
    cr_error err;
    cr_pairings *p = cr_pairings_load(text, len, path, CR_PAIRINGS_AUTO, &err);
    free(text);
    assert_non_null(p);
    char *out = cr_pairings_json(p);
    cr_pairings_free(p);
    assert_non_null(out);
    return out;
}

/* The entry of array `key` with round r and name (or white) `name`. */
static json_t *find(json_t *root, const char *key, const char *round, const char *field,
                    const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, key), i, e)
    {
        if (strcmp(json_string_value(json_object_get(e, "round")), round) == 0 &&
            strcmp(json_string_value(json_object_get(e, field)), name) == 0) {
            return e;
        }
    }
    fail_msg("%s: no round %s entry with %s %s", key, round, field, name);
    return NULL;
}

/* text is the kept file DATA/name byte for byte; else it is written to
 * name.actual in the working directory, to compare or to keep. */
static void check_kept(const char *text, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, DATA "%s", name);
    size_t len = 0;
    char *want = cr_test_read_file(path, &len); /* NULL: see .actual */
    bool same = want && strcmp(text, want) == 0;
    free(want);
    if (!same) {
        snprintf(path, sizeof path, "%s.actual", name);
        FILE *f = fopen(path, "wb");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
        fail_msg("the JSON differs from " DATA "%s (see %s)", name, path);
    }
}

static void test_trf_rounds_byes_forfeits(void **state)
{
    (void)state;
    char *text = json_of(DATA "oslo-open-r5.trf");
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")), "trf");
    assert_string_equal(json_string_value(json_object_get(root, "event")),
                        "Oslo Chess Festival 2026 - Open A");
    assert_int_equal(json_array_size(json_object_get(root, "rounds")), 5);
    json_t *players = json_object_get(root, "players");
    assert_int_equal(json_array_size(players), 11);
    json_t *first = json_array_get(players, 0);
    assert_int_equal(json_integer_value(json_object_get(first, "startRank")), 1);
    assert_string_equal(json_string_value(json_object_get(first, "name")), "Lindqvist, Erik");
    assert_string_equal(json_string_value(json_object_get(first, "title")), "GM");
    assert_string_equal(json_string_value(json_object_get(first, "fed")), "SWE");
    assert_int_equal(json_integer_value(json_object_get(first, "rating")), 2618);
    assert_int_equal(json_integer_value(json_object_get(first, "fideId")), 1700123);
    assert_true(json_real_value(json_object_get(first, "points")) == 3.5);
    /* Nilsen: no rating, no FIDE id, no title: those keys are left out. */
    json_t *last = json_array_get(players, 10);
    assert_null(json_object_get(last, "rating"));
    assert_null(json_object_get(last, "fideId"));
    assert_null(json_object_get(last, "title"));
    /* Round 1: Lindqvist (w) beat García; Nilsen had the pairing bye. */
    json_t *g = find(root, "games", "1", "white", "Lindqvist, Erik");
    assert_string_equal(json_string_value(json_object_get(g, "black")), "García López, Pablo");
    assert_string_equal(json_string_value(json_object_get(g, "result")), "1-0");
    json_t *b = find(root, "byes", "1", "name", "Nilsen, Petter");
    assert_string_equal(json_string_value(json_object_get(b, "kind")), "U");
    /* Round 2: García won by forfeit against Olsen. */
    g = find(root, "games", "2", "white", "García López, Pablo");
    assert_string_equal(json_string_value(json_object_get(g, "result")), "+--");
    /* Round 3: Olsen absent (Z); round 4: García's half-point bye. */
    b = find(root, "byes", "3", "name", "Olsen, Kristian");
    assert_string_equal(json_string_value(json_object_get(b, "kind")), "Z");
    b = find(root, "byes", "4", "name", "García López, Pablo");
    assert_string_equal(json_string_value(json_object_get(b, "kind")), "H");
    /* Round 5: paired, not played. */
    g = find(root, "games", "5", "white", "Nilsen, Petter");
    assert_string_equal(json_string_value(json_object_get(g, "result")), "*");
    json_decref(root);

    /* The bytes the browser's test reads. */
    check_kept(text, "oslo-open-r5.pairings.json");
    free(text);
}

/* The rounds' dates (TRF 132), for the round tabs. */
static void test_round_dates(void **state)
{
    (void)state;
    char *text = json_of(DATA "weekend-r4-trf26.trf");
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    assert_non_null(root);
    json_t *rounds = json_object_get(root, "rounds");
    assert_int_equal(json_array_size(rounds), 5);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rounds, 0), "date")),
                        "2026-03-06");
    assert_string_equal(json_string_value(json_object_get(json_array_get(rounds, 4), "date")),
                        "2026-03-08");
    json_decref(root);
    free(text);
}

/* Teams (TRF 013): each player's team, for the viewer's team standings. The
 * JSON is kept as tests/data/pairings/team-match-r3.pairings.json, which
 * tests/browser/unit/standings.test.mjs reads. */
static void test_trf_teams(void **state)
{
    (void)state;
    char *text = json_of(DATA "team-match-r3.trf");
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    assert_non_null(root);
    json_t *players = json_object_get(root, "players");
    assert_int_equal(json_array_size(players), 4);
    static const char *const team[] = {"Tromsø SK", "Bergen SK", "Tromsø SK", "Bergen SK"};
    for (size_t i = 0; i < 4; i++) {
        json_t *pl = json_array_get(players, i);
        assert_int_equal(json_integer_value(json_object_get(pl, "startRank")), (int)i + 1);
        assert_string_equal(json_string_value(json_object_get(pl, "team")), team[i]);
    }
    json_decref(root);
    check_kept(text, "team-match-r3.pairings.json");
    free(text);
    /* Without 013 lines no player has the key. */
    text = json_of(DATA "oslo-open-r5.trf");
    assert_null(strstr(text, "\"team\""));
    free(text);
}

static void test_pgn_has_no_start_ranks(void **state)
{
    (void)state;
    char *text = json_of(DATA "oslo-open-r5.pgn");
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "format")), "pgn");
    json_t *p0 = json_array_get(json_object_get(root, "players"), 0);
    assert_non_null(p0);
    assert_null(json_object_get(p0, "startRank"));
    assert_true(json_array_size(json_object_get(root, "games")) > 0);
    json_decref(root);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trf_rounds_byes_forfeits),
        cmocka_unit_test(test_round_dates),
        cmocka_unit_test(test_trf_teams),
        cmocka_unit_test(test_pgn_has_no_start_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
