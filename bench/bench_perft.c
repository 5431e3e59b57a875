/* Move generation speed: perft (bulk-counted last ply) from the start
 * position to depth 6 and Kiwipete to depth 5, printing nodes and nodes/s.
 * Optional argument: a smaller start depth for quick runs. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cr/board.h"

/* Process CPU time: on a shared, busy machine wall time mostly measures
 * the neighbours. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(const char *name, const char *fen, int depth, uint64_t expected)
{
    cr_position pos;
    cr_error err;
    if (cr_position_from_fen(&pos, fen, &err) != 0) {
        fprintf(stderr, "bench_perft: %s: %s\n", name, err.text);
        return 1;
    }
    double t0 = now();
    uint64_t n = cr_perft(&pos, depth);
    double dt = now() - t0;
    printf("%-10s depth %d: %llu nodes in %.3f s CPU = %.1f M nodes/s%s\n", name, depth,
           (unsigned long long)n, dt, dt > 0 ? (double)n / dt / 1e6 : 0.0,
           expected && n != expected ? "  (WRONG COUNT)" : "");
    return expected && n != expected;
}

/* Perft that makes every move, leaves included: the cost of generate +
 * copy + do_move per node, as a game replay would pay it. */
static uint64_t perft_full(const cr_position *pos, int depth)
{
    cr_movelist list;
    int n = cr_generate_legal(pos, &list);
    if (depth == 1) {
        for (int i = 0; i < n; i++) {
            cr_position next = *pos;
            cr_position_do_move(&next, list.moves[i]);
        }
        return (uint64_t)n;
    }
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        cr_position next = *pos;
        cr_position_do_move(&next, list.moves[i]);
        total += perft_full(&next, depth - 1);
    }
    return total;
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 6;
    static const uint64_t start_counts[] = {1, 20, 400, 8902, 197281, 4865609, 119060324};
    if (depth < 1 || depth > 6) {
        depth = 6;
    }
    int bad = run("startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", depth,
                  start_counts[depth]);
    bad |= run("kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
               depth - 1, depth == 6 ? 193690690ULL : 0);
    cr_position pos;
    cr_position_init_start(&pos);
    double t0 = now();
    uint64_t n = perft_full(&pos, depth - 1);
    double dt = now() - t0;
    printf("startpos   depth %d, every leaf made: %llu nodes in %.3f s CPU = %.1f M nodes/s\n",
           depth - 1, (unsigned long long)n, dt, dt > 0 ? (double)n / dt / 1e6 : 0.0);
    return bad || n != start_counts[depth - 1];
}
