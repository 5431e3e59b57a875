/* SAN throughput: every legal move of every position of a real game file,
 * written with cr_move_to_san and read back with cr_move_from_text.
 * Usage: bench_san [FILE.pgn] [SECONDS] (default: tests/data/pgn/multi_crlf_bom.pgn, 1 s each). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cr/pgn.h"

typedef struct item {
    cr_position pos;
    cr_move move;
    char san[CR_SAN_MAX];
} item;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : CR_TEST_DATA_DIR "/pgn/multi_crlf_bom.pgn";
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "bench_san: cannot open %s\n", path);
        return 1;
    }
    cr_pgn_reader *r = cr_pgn_reader_new_file(f);
    fclose(f);
    if (!r) {
        return 1;
    }
    size_t cap = 1024, n = 0;
    int games = 0, positions = 0;
    item *items = malloc(cap * sizeof *items);
    cr_game *g;
    cr_error err;
    int rc;
    while ((rc = cr_pgn_read(r, &g, &err)) != CR_EEOF) {
        if (rc < 0) {
            fprintf(stderr, "bench_san: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
            continue;
        }
        games++;
        for (int i = 0; i <= cr_game_ply_count(g); i++) {
            const cr_position *pos = cr_game_position_at(g, i);
            cr_movelist list;
            cr_generate_legal(pos, &list);
            positions++;
            for (int k = 0; k < list.count; k++) {
                if (n == cap) {
                    cap *= 2;
                    items = realloc(items, cap * sizeof *items);
                    if (!items) {
                        return 1;
                    }
                }
                items[n].pos = *pos;
                items[n].move = list.moves[k];
                cr_move_to_san(pos, list.moves[k], items[n].san, CR_SAN_MAX);
                n++;
            }
        }
        cr_game_free(g);
    }
    cr_pgn_reader_free(r);
    if (n == 0) {
        fprintf(stderr, "bench_san: no moves\n");
        return 1;
    }

    char buf[CR_SAN_MAX];
    unsigned long long writes = 0, sum = 0;
    double t0 = now(), t;
    do {
        for (size_t k = 0; k < n; k++) {
            sum += (unsigned)cr_move_to_san(&items[k].pos, items[k].move, buf, sizeof buf);
        }
        writes += n;
        t = now() - t0;
    } while (t < seconds);
    double write_rate = (double)writes / t;

    unsigned long long reads = 0, bad = 0;
    t0 = now();
    do {
        for (size_t k = 0; k < n; k++) {
            bad += cr_move_from_text(&items[k].pos, items[k].san, CR_LANG_EN, NULL, NULL) != items[k].move;
        }
        reads += n;
        t = now() - t0;
    } while (t < seconds);
    double read_rate = (double)reads / t;

    unsigned long long reads_any = 0;
    t0 = now();
    do {
        for (size_t k = 0; k < n; k++) {
            reads_any += cr_move_from_text(&items[k].pos, items[k].san, -1, NULL, NULL) != CR_MOVE_NONE;
        }
        t = now() - t0;
    } while (t < seconds / 4);
    double read_any_rate = (double)reads_any / t;

    printf("bench_san: %s: %d games, %d positions, %zu legal moves\n", path, games, positions, n);
    printf("san_write_per_s %.0f\n", write_rate);
    printf("san_read_per_s %.0f (language given)\n", read_rate);
    printf("san_read_any_lang_per_s %.0f (language -1)\n", read_any_rate);
    printf("(checksum %llu, misreads %llu)\n", sum, bad);
    free(items);
    return bad ? 1 : 0;
}
