/* Build-time generator of the rules engine's constant tables: leaper
 * attacks, between/line masks, magic bitboards for sliders and Zobrist keys.
 * CMake runs it and compiles its output (cr_tables.c) into the core, so the
 * library itself holds only `const` data and never initialises anything at
 * run time. Deterministic: same output on every run. Usage: gen_tables OUT.c */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t bb;

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

/* splitmix64: both the magic search RNG and the Zobrist key mixer. */
static uint64_t splitmix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

static uint64_t rnd(void)
{
    rng_state = splitmix64(rng_state);
    return rng_state;
}

static int on_board(int f, int r) { return f >= 0 && f < 8 && r >= 0 && r < 8; }

static bb leaper(int sq, const int (*d)[2], int n)
{
    bb out = 0;
    int f = sq & 7, r = sq >> 3;
    for (int i = 0; i < n; i++) {
        if (on_board(f + d[i][0], r + d[i][1])) {
            out |= 1ULL << ((r + d[i][1]) * 8 + f + d[i][0]);
        }
    }
    return out;
}

static const int rook_dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int bishop_dirs[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static bb slide(int sq, bb occ, const int (*d)[2])
{
    bb out = 0;
    for (int i = 0; i < 4; i++) {
        int f = (sq & 7) + d[i][0], r = (sq >> 3) + d[i][1];
        while (on_board(f, r)) {
            out |= 1ULL << (r * 8 + f);
            if (occ & (1ULL << (r * 8 + f))) {
                break;
            }
            f += d[i][0];
            r += d[i][1];
        }
    }
    return out;
}

/* Relevant occupancy: the rays without their last square. */
static bb relevant(int sq, const int (*d)[2])
{
    bb out = 0;
    for (int i = 0; i < 4; i++) {
        int f = (sq & 7) + d[i][0], r = (sq >> 3) + d[i][1];
        while (on_board(f + d[i][0], r + d[i][1])) {
            out |= 1ULL << (r * 8 + f);
            f += d[i][0];
            r += d[i][1];
        }
    }
    return out;
}

static int popcount(bb b) { return __builtin_popcountll(b); }

#define TABLE_SIZE 107648
static bb table[TABLE_SIZE];
static bb magic_mask[2][64], magic_num[2][64];
static unsigned magic_off[2][64], magic_shift[2][64];

static unsigned fill_magics(int kind, unsigned offset)
{
    const int (*d)[2] = kind == 0 ? rook_dirs : bishop_dirs;
    static bb occs[4096], atts[4096];
    static int epoch[4096];
    int ep = 0;
    for (int sq = 0; sq < 64; sq++) {
        bb mask = relevant(sq, d);
        int bits = popcount(mask);
        int n = 0;
        bb sub = 0;
        do { /* Carry-Rippler enumeration of all subsets of mask */
            occs[n] = sub;
            atts[n] = slide(sq, sub, d);
            n++;
            sub = (sub - mask) & mask;
        } while (sub);
        bb *t = table + offset;
        for (;;) {
            bb m = rnd() & rnd() & rnd();
            if (popcount((mask * m) >> 56) < 6) {
                continue;
            }
            ep++;
            int ok = 1;
            for (int i = 0; i < n && ok; i++) {
                unsigned idx = (unsigned)((occs[i] * m) >> (64 - bits));
                if (epoch[idx] != ep) {
                    epoch[idx] = ep;
                    t[idx] = atts[i];
                } else if (t[idx] != atts[i]) {
                    ok = 0;
                }
            }
            if (ok) {
                magic_mask[kind][sq] = mask;
                magic_num[kind][sq] = m;
                magic_off[kind][sq] = offset;
                magic_shift[kind][sq] = (unsigned)(64 - bits);
                offset += 1u << bits;
                break;
            }
        }
    }
    return offset;
}

static void print_array(FILE *f, const char *decl, const bb *v, int n)
{
    fprintf(f, "%s = {", decl);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s0x%" PRIx64 "u,", i % 6 ? "" : "\n", v[i]);
    }
    fprintf(f, "\n};\n");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_tables OUT.c\n");
        return 2;
    }
    static const int knight_d[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                       {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
    static const int king_d[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1},
                                     {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    static const int wpawn_d[2][2] = {{-1, 1}, {1, 1}};
    static const int bpawn_d[2][2] = {{-1, -1}, {1, -1}};
    static bb knight[64], king[64], pawn[128], between[4096], line[4096];

    for (int sq = 0; sq < 64; sq++) {
        knight[sq] = leaper(sq, knight_d, 8);
        king[sq] = leaper(sq, king_d, 8);
        pawn[sq] = leaper(sq, wpawn_d, 2);
        pawn[64 + sq] = leaper(sq, bpawn_d, 2);
    }
    for (int a = 0; a < 64; a++) {
        for (int b = 0; b < 64; b++) {
            bb ab = (1ULL << a) | (1ULL << b);
            if (a == b) {
                continue;
            }
            for (int k = 0; k < 2; k++) {
                const int (*d)[2] = k == 0 ? rook_dirs : bishop_dirs;
                if (slide(a, 0, d) & (1ULL << b)) {
                    line[a * 64 + b] = (slide(a, 0, d) & slide(b, 0, d)) | ab;
                    between[a * 64 + b] = slide(a, ab, d) & slide(b, ab, d);
                }
            }
        }
    }
    unsigned end = fill_magics(0, 0);
    end = fill_magics(1, end);
    if (end != TABLE_SIZE) {
        fprintf(stderr, "gen_tables: table size %u\n", end);
        return 1;
    }

    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fprintf(f, "/* Generated by src/gen/gen_tables.c: do not edit. */\n"
               "#include \"board_private.h\"\n\n");
    print_array(f, "const cr_bb cr_knight_att_[64]", knight, 64);
    print_array(f, "const cr_bb cr_king_att_[64]", king, 64);
    print_array(f, "const cr_bb cr_pawn_att_[128]", pawn, 128);
    fprintf(f, "/* flattened [64][64] */\n");
    print_array(f, "const cr_bb cr_between_[4096]", between, 4096);
    print_array(f, "const cr_bb cr_line_[4096]", line, 4096);
    for (int k = 0; k < 2; k++) {
        fprintf(f, "const cr_magic_ %s[64] = {\n", k == 0 ? "cr_rook_magic_" : "cr_bishop_magic_");
        for (int sq = 0; sq < 64; sq++) {
            fprintf(f, "{0x%" PRIx64 "u, 0x%" PRIx64 "u, %u, %u},\n", magic_mask[k][sq],
                    magic_num[k][sq], magic_off[k][sq], magic_shift[k][sq]);
        }
        fprintf(f, "};\n");
    }
    print_array(f, "const cr_bb cr_slider_att_[107648]", table, TABLE_SIZE);

    /* Zobrist: splitmix64 of a fixed index per feature. */
    static bb zp[16 * 64], zc[64], ze[8];
    for (int i = 0; i < 16 * 64; i++) {
        zp[i] = (i / 64) % 8 == 0 || (i / 64) % 8 == 7 ? 0 : splitmix64(0x1000u + (unsigned)i);
    }
    for (int i = 0; i < 64; i++) {
        zc[i] = splitmix64(0x2000u + (unsigned)i);
    }
    for (int i = 0; i < 8; i++) {
        ze[i] = splitmix64(0x3000u + (unsigned)i);
    }
    print_array(f, "const uint64_t cr_zobrist_piece_[1024]", zp, 16 * 64);
    print_array(f, "const uint64_t cr_zobrist_castle_[64]", zc, 64);
    print_array(f, "const uint64_t cr_zobrist_ep_[8]", ze, 8);
    fprintf(f, "const uint64_t cr_zobrist_side_ = 0x%" PRIx64 "u;\n", splitmix64(0x4000u));
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
