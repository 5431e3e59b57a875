/* relay_load_feed: a steady feed for the load benchmark. The sample feeds
 * have the pace of a real round (a burst at the start, then quieter), so the
 * rate a run sees depends on how long its viewers took to connect; this one
 * gives the relay the same number of events every second.
 *
 *   relay_load_feed --rate EVENTS_PER_S [--boards B] [--seconds T] [--seed S]
 *
 * B boards (default: enough for a move every 2 s or slower on each) play
 * random legal games, round 1, staggered evenly. Each move is a lift, a place
 * and, 400 ms later, a clock press, as the demo feed's: two relay events (the
 * move and the clock), so the relay emits about EVENTS_PER_S events a second
 * from t = 2 s to T (default 900 s). A game that ends, or reaches 300 plies,
 * is followed on that board by a new one. Writes to stdout. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/board.h"
#include "cr/feed.h"

enum { MAX_PLIES = 300, LIFT_MS = 700, PRESS_MS = 400 };

/* Lines are made board by board and written in time order at the end. */
typedef struct line {
    int64_t t;
    size_t order;
    char text[112];
} line;

static line *lines;
static size_t nlines, caplines;

static void emit(int64_t t, const char *board, const char *what)
{
    if (nlines == caplines) {
        caplines = caplines ? 2 * caplines : 4096;
        lines = realloc(lines, caplines * sizeof *lines);
        if (!lines) {
            fprintf(stderr, "relay_load_feed: out of memory\n");
            exit(1);
        }
    }
    lines[nlines].t = t;
    lines[nlines].order = nlines;
    snprintf(lines[nlines].text, sizeof lines[nlines].text, "%lld %s %s\n", (long long)t, board,
             what);
    nlines++;
}

static int by_time(const void *a, const void *b)
{
    const line *x = a, *y = b;
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    return x->order < y->order ? -1 : 1;
}

typedef struct board {
    char id[16];
    cr_position pos;
    int plies;
    int64_t clock[2];
} board;

static uint64_t rng_state = 88172645463325252ull;

static uint32_t next_rand(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 32);
}

static void put_pos(int64_t t, const board *b, const uint8_t sq[CR_SQ_NB])
{
    char what[CR_FEN_MAX + 8] = "pos ";
    cr_placement_write(sq, what + 4, sizeof what - 4);
    emit(t, b->id, what);
}

static void put_clock(int64_t t, const board *b, char running)
{
    char w[24], k[24], what[64];
    cr_feed_format_clock(b->clock[CR_WHITE], w, sizeof w);
    cr_feed_format_clock(b->clock[CR_BLACK], k, sizeof k);
    snprintf(what, sizeof what, "clock %s %s %c", w, k, running);
    emit(t, b->id, what);
}

static void new_game(int64_t t, board *b)
{
    cr_position_init_start(&b->pos);
    b->plies = 0;
    b->clock[CR_WHITE] = b->clock[CR_BLACK] = 90 * 60 * 1000;
    put_pos(t, b, b->pos.board);
    put_clock(t, b, 'w');
}

/* One random legal move at `t` (the piece set down), with its lift before
 * and the clock press after. */
static void play(int64_t t, int64_t think, board *b)
{
    if (b->plies >= MAX_PLIES || cr_position_status(&b->pos) != CR_STATUS_ONGOING) {
        new_game(t - LIFT_MS, b); /* the pieces set up again: the inference starts a game */
        return;
    }
    cr_movelist list;
    cr_generate_legal(&b->pos, &list);
    cr_move m = list.moves[next_rand() % (uint32_t)list.count];
    uint8_t lifted[CR_SQ_NB];
    memcpy(lifted, b->pos.board, sizeof lifted);
    lifted[cr_move_from(m)] = CR_NO_PIECE;
    put_pos(t - LIFT_MS, b, lifted);
    int side = b->pos.side;
    cr_position_do_move(&b->pos, m);
    b->plies++;
    put_pos(t, b, b->pos.board);
    b->clock[side] -= think;
    b->clock[side] += 30000;
    if (b->clock[side] < 60000) {
        b->clock[side] = 60000; /* never a flag fall: the games go on */
    }
    put_clock(t + PRESS_MS, b, side == CR_WHITE ? 'b' : 'w');
}

int main(int argc, char **argv)
{
    double rate = 0;
    int boards = 0, seconds = 900;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rate") == 0) {
            rate = atof(argv[i + 1]);
        } else if (strcmp(argv[i], "--boards") == 0) {
            boards = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--seconds") == 0) {
            seconds = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--seed") == 0) {
            rng_state = strtoull(argv[i + 1], NULL, 10) * 2654435761u + 1;
        } else {
            fprintf(stderr, "relay_load_feed: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (rate <= 0 || boards < 0 || seconds <= 2) {
        fprintf(stderr, "usage: relay_load_feed --rate EVENTS_PER_S [--boards B] [--seconds T] "
                        "[--seed S]\n");
        return 2;
    }
    if (!boards) {
        boards = (int)(rate + 0.999); /* a move every 2 s per board */
    }
    /* Two events per move: each board moves every `period` ms. */
    int64_t period = (int64_t)(2.0 * boards * 1000.0 / rate + 0.5);
    if (period < LIFT_MS + PRESS_MS + 100) {
        fprintf(stderr,
                "relay_load_feed: %d boards cannot make %.1f events/s (give more --boards)\n",
                boards, rate);
        return 2;
    }
    board *b = calloc((size_t)boards, sizeof *b);
    if (!b) {
        return 1;
    }
    printf("# relay_load_feed --rate %g --boards %d --seconds %d: a move every %lld ms per board\n",
           rate, boards, seconds, (long long)period);
    for (int i = 0; i < boards; i++) {
        snprintf(b[i].id, sizeof b[i].id, "LOAD%d", i + 1);
        char what[64];
        emit(0, b[i].id, "connect");
        snprintf(what, sizeof what, "meta White Load W%d", i + 1);
        emit(0, b[i].id, what);
        snprintf(what, sizeof what, "meta Black Load B%d", i + 1);
        emit(0, b[i].id, what);
        emit(0, b[i].id, "meta Round 1");
        new_game(0, &b[i]);
    }
    /* Moves in time order: board i moves at 2 s + (i + k * boards) * period / boards. */
    int64_t end = (int64_t)seconds * 1000;
    for (int64_t k = 0;; k++) {
        int i = (int)(k % boards);
        int64_t t = 2000 + LIFT_MS + k * period / boards;
        if (t + PRESS_MS > end) {
            break;
        }
        play(t, period, &b[i]);
    }
    qsort(lines, nlines, sizeof *lines, by_time);
    for (size_t i = 0; i < nlines; i++) {
        fputs(lines[i].text, stdout);
    }
    free(lines);
    free(b);
    return 0;
}
