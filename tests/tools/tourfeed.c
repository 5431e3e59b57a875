/* tourfeed: one board's feed of long games for the tournament feeds of
 * tests/data/feeds-tour (issue 15: multi-board, rotated boards).
 *
 *   tourfeed OUT SEED PATTERN [MIN_PLIES [NOISE]]
 *
 * Writes OUT.feed and OUT.expected (the moves, one line per game)
 * for board "B" (tests/tools/merge-feeds renames it). PATTERN has one
 * letter per game: 'n' a board standing the right way round, 'r' a board
 * turned round (the pieces are swept off between two games, and the board
 * may be turned then). Each game is a random legal game of at least
 * MIN_PLIES plies (default 120) that keeps its queens long and brings them
 * to the centre, with checks (Qd7+ on a turned board is e2 on the wire),
 * written with feedgen's noise (pieces lifted, slid, knocked over, missed
 * readings) and clock, NOISE times as often as feedgen's standard profile
 * (default 1). The game never ends by itself before its last ply
 * (no mate, dead position or automatic draw): the expected moves are all
 * of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/game.h"
#include "feedgen.h"

static const cr_bb CENTRE = 0x00003C3C3C3C0000ull; /* c3-f6 */

/* A weighted random ply: queens to the centre and checking, captures of
 * queens rare, so that queens stay on a full board for long. */
static cr_move pick(fg_rng *r, const cr_position *p, const cr_movelist *ml)
{
    int weight[CR_MAX_MOVES], total = 0;
    for (int i = 0; i < ml->count; i++) {
        cr_move m = ml->moves[i];
        int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
        int type = cr_type_of(p->board[from]), victim = cr_type_of(p->board[to]);
        int w = 4;
        if (kind == CR_MOVE_CASTLE) {
            w = 30;
        } else if (victim == CR_QUEEN) {
            w = 1;
        } else if (victim) {
            w = 6;
        } else if (type == CR_QUEEN) {
            w = CENTRE >> to & 1 ? 24 : 6;
        }
        cr_position q = *p;
        cr_position_do_move(&q, m);
        if (cr_in_check(&q)) {
            w += type == CR_QUEEN ? 20 : 6;
        }
        weight[i] = w;
        total += w;
    }
    int x = fg_range(r, total), i = 0;
    while (x >= weight[i]) {
        x -= weight[i++];
    }
    return ml->moves[i];
}

/* A game of min_plies to min_plies + 60 plies that stays open to its end. */
static void long_game(fg_rng *r, int min_plies, fg_game *g)
{
    for (;;) {
        memset(g, 0, sizeof *g);
        cr_position_init_start(&g->start);
        cr_game *rec = cr_game_new(NULL);
        if (!rec) {
            exit(1);
        }
        int want = fg_between(r, min_plies, min_plies + 60);
        while (g->n < want) {
            const cr_position *p = cr_game_position(rec);
            cr_movelist ml;
            if (cr_generate_legal(p, &ml) == 0) {
                break;
            }
            cr_move m = pick(r, p, &ml);
            cr_game_push(rec, m, CR_CLOCK_UNKNOWN, -1, 0);
            const cr_position *after = cr_game_position(rec);
            cr_movelist next;
            if (cr_generate_legal(after, &next) == 0 || cr_position_is_dead(after) ||
                cr_game_automatic_draw(rec, NULL) >= 0) {
                break; /* the game would end here by itself: not this ply */
            }
            g->moves[g->n++] = m;
        }
        cr_game_free(rec);
        if (g->n >= want) {
            return;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 6 || !argv[3][0] || strspn(argv[3], "nr") != strlen(argv[3])) {
        fprintf(stderr, "usage: tourfeed OUT SEED PATTERN(n|r per game) [MIN_PLIES [NOISE]]\n");
        return 2;
    }
    const char *pattern = argv[3];
    int min_plies = argc >= 5 ? atoi(argv[4]) : 120;
    double x = argc == 6 ? atof(argv[5]) : 1.0;
    if (x < 0 || x > 10) {
        fprintf(stderr, "tourfeed: NOISE from 0 to 10\n");
        return 2;
    }
    if (min_plies < 1 || min_plies + 60 > FG_MAX_PLIES) {
        fprintf(stderr, "tourfeed: MIN_PLIES from 1 to %d\n", FG_MAX_PLIES - 60);
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s.feed", argv[1]);
    FILE *out = fopen(path, "w");
    snprintf(path, sizeof path, "%s.expected", argv[1]);
    FILE *exp = fopen(path, "w");
    if (!out || !exp) {
        fprintf(stderr, "tourfeed: cannot write %s\n", path);
        return 1;
    }
    uint64_t seed = strtoull(argv[2], NULL, 10);
    fg_rng r;
    fg_seed(&r, seed);
    fg_noise noise;
    fg_noise_default(&noise);
    noise.setup = false; /* each game begins at its start position (merge-feeds) */
    noise.slide *= x;
    noise.slide_legal *= x;
    noise.knock *= x;
    noise.adjust *= x;
    noise.takeback *= x;
    noise.gap *= x;
    noise.park *= x;
    static fg_writer w;
    static fg_game g;
    fg_writer_init(&w, out, "B", fg_next(&r), pattern[0] == 'r', &noise);
    fprintf(out, "# tourfeed seed %llu pattern %s min %d\n", (unsigned long long)seed, pattern, min_plies);
    fprintf(out, "0 B connect\n");
    int n = (int)strlen(pattern);
    for (int k = 0; k < n; k++) {
        w.rotated = pattern[k] == 'r'; /* turned round while the board was empty */
        long_game(&r, min_plies, &g);
        fg_write_game(&w, &g, k + 1, k + 1 < n, exp);
    }
    if (fclose(out) || fclose(exp)) {
        return 1;
    }
    return 0;
}
