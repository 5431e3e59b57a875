/* feedgen: writes noisy board feeds with their expected games, or checks the
 * inference against thousands of them.
 *
 *   feedgen --out DIR [--count N] [--seed S]     DIR/gNNNN.feed + .expected + index.tsv
 *   feedgen --selftest N [--seed S] [--verbose]  replay N generated feeds in
 *                                                process; pass rates per behaviour
 *   --games FILE                                 games (SAN, one per line) instead of
 *                                                random ones: one feed per game and seed
 *   feedgen --dump SEED                          one feed on stdout, expected on stderr
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cr/infer.h"
#include "feedgen.h"

#define MAX_GAMES 4096

static fg_game *games;
static int ngames;

static int load_games(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "feedgen: cannot open %s\n", path);
        return -1;
    }
    games = calloc(MAX_GAMES, sizeof *games);
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (games && getline(&line, &cap, f) > 0 && ngames < MAX_GAMES) {
        lineno++;
        if (line[0] == '#' || strspn(line, " \t\r\n") == strlen(line)) {
            continue;
        }
        cr_error err;
        if (fg_parse_san_line(line, &games[ngames], &err) != 0) {
            fprintf(stderr, "feedgen: %s:%d:%d: %s\n", path, lineno, err.column, err.text);
            free(line);
            fclose(f);
            return -1;
        }
        ngames++;
    }
    free(line);
    fclose(f);
    return games ? 0 : -1;
}

/* Feed number i: game i % ngames with seed + i, or a random one. */
static int make(uint64_t seed, int i, const char *board, FILE *out, FILE *exp, unsigned used[FG_NB],
                const char **profile)
{
    if (ngames > 0) {
        return fg_make_feed_game(seed + (uint64_t)i, board, &games[i % ngames], out, exp, used, profile);
    }
    return fg_make_feed(seed + (uint64_t)i, board, out, exp, used, profile);
}

static int usage(void)
{
    fprintf(stderr, "usage: feedgen --out DIR [--count N] [--seed S]\n"
                    "       feedgen --selftest N [--seed S] [--verbose]\n"
                    "       feedgen --dump SEED\n"
                    "       (--games FILE: SAN games, one per line, instead of random ones)\n");
    return 2;
}

static int write_corpus(const char *dir, int count, uint64_t seed)
{
    mkdir(dir, 0777);
    char path[4096];
    snprintf(path, sizeof path, "%s/index.tsv", dir);
    FILE *idx = fopen(path, "w");
    if (!idx) {
        fprintf(stderr, "feedgen: cannot write %s\n", path);
        return 1;
    }
    fprintf(idx, "# feed\tcategory\tboard\tgames\tplies\ttags\tgame_ids\n");
    for (int i = 0; i < count; i++) {
        char name[32], board[32];
        snprintf(name, sizeof name, "g%04d", i + 1);
        snprintf(board, sizeof board, "FG%d", i + 1);
        snprintf(path, sizeof path, "%s/%s.feed", dir, name);
        FILE *f = fopen(path, "w");
        snprintf(path, sizeof path, "%s/%s.expected", dir, name);
        FILE *e = fopen(path, "w");
        if (!f || !e) {
            fprintf(stderr, "feedgen: cannot write into %s\n", dir);
            return 1;
        }
        unsigned used[FG_NB];
        const char *profile = "";
        int games_written = make(seed, i, board, f, e, used, &profile);
        fclose(f);
        fclose(e);
        fprintf(idx, "%s\t%s\t%s\t%d\t-\t", name, profile, board, games_written);
        bool first = true;
        for (int b = 0; b < FG_NB; b++) {
            if (used[b]) {
                fprintf(idx, "%s%s", first ? "" : ",", fg_behaviour_names[b]);
                first = false;
            }
        }
        fprintf(idx, "\t-\n");
    }
    fclose(idx);
    return 0;
}

static int selftest(int count, uint64_t seed, bool verbose)
{
    unsigned pass[FG_NB] = {0}, total[FG_NB] = {0};
    int ok = 0;
    for (int i = 0; i < count; i++) {
        char *feed = NULL, *exp = NULL, *got = NULL;
        size_t flen = 0, elen = 0;
        FILE *f = open_memstream(&feed, &flen);
        FILE *e = open_memstream(&exp, &elen);
        unsigned used[FG_NB];
        make(seed, i, "FG", f, e, used, NULL);
        fclose(f);
        fclose(e);
        bool good = fg_replay(feed, flen, NULL, &got, NULL, 0) == 0 && strcmp(got, exp) == 0;
        ok += good;
        for (int b = 0; b < FG_NB; b++) {
            if (used[b]) {
                total[b]++;
                pass[b] += good;
            }
        }
        if (!good && verbose) {
            printf("FAIL seed %" PRIu64 "\n  want: %s  got:  %s", seed + (uint64_t)i, exp, got ? got : "(error)\n");
        }
        free(feed);
        free(exp);
        free(got);
    }
    printf("feeds: %d/%d passed (%.2f%%)\n", ok, count, count ? 100.0 * ok / count : 0.0);
    for (int b = 0; b < FG_NB; b++) {
        if (total[b]) {
            printf("  %-22s %5u/%-5u %6.2f%%\n", fg_behaviour_names[b], pass[b], total[b], 100.0 * pass[b] / total[b]);
        }
    }
    return ok == count ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *out = NULL;
    int count = 100, self = 0;
    uint64_t seed = 1;
    bool verbose = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--count") == 0 && i + 1 < argc) {
            count = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--selftest") == 0 && i + 1 < argc) {
            self = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--games") == 0 && i + 1 < argc) {
            if (load_games(argv[++i]) != 0) {
                return 1;
            }
        } else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) {
            /* one feed to stdout, its expected games to stderr */
            make(strtoull(argv[++i], NULL, 10), 0, "FG", stdout, stderr, NULL, NULL);
            return 0;
        } else if (strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else {
            return usage();
        }
    }
    int rc;
    if (self > 0) {
        rc = selftest(self, seed, verbose);
    } else if (!out || count <= 0) {
        rc = usage();
    } else {
        rc = write_corpus(out, count, seed);
    }
    free(games);
    return rc;
}
