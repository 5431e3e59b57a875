/* Move generation speed: perft (bulk-counted last ply) from the start
 * position to depth 6 and Kiwipete to depth 5, printing nodes and nodes/s;
 * then cr_is_legal on a mix of legal and random (mostly illegal) moves.
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

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* cr_is_legal speed: positions from random games (standard and Chess960),
 * each asked about all its legal moves and as many random move codes, as
 * the move inference and the SAN writer ask it. */
static void bench_is_legal(void)
{
    enum { NPOS = 2000, PER = 64 };
    static cr_position pos[NPOS];
    static cr_move moves[NPOS][PER];
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    int np = 0;
    while (np < NPOS) {
        cr_position p;
        if (rng(&seed) % 4 == 0) {
            cr_position_init_960(&p, (int)(rng(&seed) % 960));
        } else {
            cr_position_init_start(&p);
        }
        for (int ply = 0; ply < 120 && np < NPOS; ply++) {
            cr_movelist list;
            int n = cr_generate_legal(&p, &list);
            if (n == 0) {
                break;
            }
            if (ply % 3 == 0) {
                pos[np] = p;
                for (int i = 0; i < PER; i++) {
                    moves[np][i] = i % 2 && i / 2 < n ? list.moves[i / 2]
                                                      : (cr_move)(rng(&seed) & 0xFFFF);
                }
                np++;
            }
            cr_position_do_move(&p, list.moves[rng(&seed) % (uint64_t)n]);
        }
    }
    uint64_t legal = 0, calls = 0;
    double t0 = now();
    for (int rep = 0; rep < 20; rep++) {
        for (int i = 0; i < NPOS; i++) {
            for (int j = 0; j < PER; j++) {
                legal += cr_is_legal(&pos[i], moves[i][j]);
            }
        }
        calls += (uint64_t)NPOS * PER;
    }
    double dt = now() - t0;
    printf("is_legal   %llu calls (%.1f%% legal) in %.3f s CPU = %.1f ns/call\n",
           (unsigned long long)calls, 100.0 * (double)legal / (double)calls, dt,
           dt * 1e9 / (double)calls);
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
    bench_is_legal();
    return bad || n != start_counts[depth - 1];
}
