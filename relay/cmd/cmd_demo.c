/* chessrelay demo [--listen ADDR:PORT] [--speed X] [--delay MINUTES]: serves
 * the bundled demo feed (data/demo.feed: famous historical games on several
 * boards, with clocks) in real time, by default at http://127.0.0.1:8080.
 * The games end with their results standing; the relay keeps serving.
 *
 * chessrelay demo --make-feed GAMES.pgn [--seed N] writes such a feed to
 * stdout: one board per game (DEMO1, DEMO2, ...), each move a lift and a
 * place, a clock press after it (10 minutes + 5 s), and for a result that
 * is not on the board (resignation) the kings set in the centre, the DGT
 * way. data/demo.feed was made from data/demo.pgn this way. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "util/datadir.h"
#include "util/grow.h"
#include "util/opts.h"
#include "cr/feed.h"
#include "cr/pgn.h"

typedef struct feed_line {
    int64_t t;
    int order; /* keeps lines of one time in the order written */
    char *text;
} feed_line;

typedef struct feed_out {
    feed_line *lines;
    size_t n, cap;
    bool oom;
} feed_out;

/* Adds "<t> <board> <kind>[ <arg>]". */
static void emitf(feed_out *o, int64_t t, const char *board_id, const char *kind, const char *arg)
{
    feed_line *l = cr_grow(o->lines, &o->cap, o->n + 1, sizeof *l, 256);
    if (!l) {
        o->oom = true;
        return;
    }
    o->lines = l;
    char body[512];
    snprintf(body, sizeof body, "%s%s%s", kind, arg ? " " : "", arg ? arg : "");
    size_t len = strlen(body) + strlen(board_id) + 32;
    char *text = malloc(len);
    if (!text) {
        o->oom = true;
        return;
    }
    snprintf(text, len, "%lld %s %s\n", (long long)t, board_id, body);
    o->lines[o->n].t = t;
    o->lines[o->n].order = (int)o->n;
    o->lines[o->n].text = text;
    o->n++;
}

static void emit_pos(feed_out *o, int64_t t, const char *board_id, const uint8_t sq[CR_SQ_NB])
{
    char placement[CR_FEN_MAX];
    cr_placement_write(sq, placement, sizeof placement);
    emitf(o, t, board_id, "pos", placement);
}

static void emit_clock(feed_out *o, int64_t t, const char *board_id, int32_t w, int32_t b,
                       int running)
{
    char ws[24], bs[24], text[64];
    cr_feed_format_clock(w, ws, sizeof ws);
    cr_feed_format_clock(b, bs, sizeof bs);
    snprintf(text, sizeof text, "%s %s %c", ws, bs,
             running == CR_WHITE ? 'w' : running == CR_BLACK ? 'b' : '-');
    emitf(o, t, board_id, "clock", text);
}

static int cmp_line(const void *a, const void *b)
{
    const feed_line *x = a, *y = b;
    if (x->t != y->t) {
        return x->t < y->t ? -1 : 1;
    }
    return x->order - y->order;
}

static uint32_t next_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 33);
}

/* One game on one board: set up, moves with clock presses, the result. */
static void game_feed(feed_out *o, const cr_game *g, const char *board_id, int64_t t, uint64_t *rng)
{
    static const char *const tags[] = {"Event", "Site", "Date", "White", "Black", "WhiteElo",
                                       "BlackElo"};
    emitf(o, t, board_id, "connect", NULL);
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        const char *v = cr_game_tag(g, tags[i]);
        if (v && strcmp(v, "?") != 0) {
            char kv[300];
            snprintf(kv, sizeof kv, "%s %s", tags[i], v);
            emitf(o, t, board_id, "meta", kv);
        }
    }
    emitf(o, t, board_id, "meta", "Round 1");
    int32_t clock[2] = {600000, 600000};
    emit_pos(o, t, board_id, cr_game_start(g)->board);
    emit_clock(o, t, board_id, clock[0], clock[1], CR_CLOCK_STOPPED);
    t += 100;
    emit_clock(o, t, board_id, clock[0], clock[1], CR_WHITE);
    int n = cr_game_ply_count(g);
    for (int i = 0; i < n; i++) {
        const cr_position *before = cr_game_position_at(g, i);
        const cr_ply *p = cr_game_ply(g, i);
        int side = before->side;
        /* Book moves come fast, so that a newcomer sees the boards move
         * within a second or two of starting the demo. */
        int32_t think = i == 0  ? 300 + (int32_t)(next_rand(rng) % 300)
                        : i < 4 ? 500 + (int32_t)(next_rand(rng) % 500)
                                : 2000 + (int32_t)(next_rand(rng) % 8000);
        if (clock[side] - think < 1000) {
            think = clock[side] / 4;
        }
        /* The hand lifts the piece, then sets it down. */
        uint8_t lifted[CR_SQ_NB];
        memcpy(lifted, before->board, sizeof lifted);
        lifted[cr_move_from(p->move)] = CR_NO_PIECE;
        emit_pos(o, t + think - (think < 1400 ? think / 2 : 700), board_id, lifted);
        emit_pos(o, t + think, board_id, p->after.board);
        clock[side] -= think;
        clock[side] += 5000;
        t += think + 400;
        emit_clock(o, t, board_id, clock[0], clock[1], side ^ 1);
    }
    cr_result r = cr_game_result(g);
    const cr_position *end = cr_game_position(g);
    t += 2000;
    emit_clock(o, t, board_id, clock[0], clock[1], CR_CLOCK_STOPPED);
    if (r != CR_RESULT_NONE && cr_position_status(end) == CR_STATUS_ONGOING) {
        /* Resignation or agreement: kings to light (1-0), dark (0-1) or
         * one of each (draw) centre squares. */
        int wk = r == CR_RESULT_BLACK ? CR_SQ_D4 : CR_SQ_E4;
        int bk = r == CR_RESULT_WHITE ? CR_SQ_D5 : CR_SQ_E5;
        uint8_t sq[CR_SQ_NB];
        memcpy(sq, end->board, sizeof sq);
        for (int s = 0; s < CR_SQ_NB; s++) {
            if (sq[s] == CR_WK || sq[s] == CR_BK) {
                sq[s] = CR_NO_PIECE;
            }
        }
        emit_pos(o, t + 1000, board_id, sq);
        sq[wk] = CR_WK;
        sq[bk] = CR_BK;
        emit_pos(o, t + 2000, board_id, sq);
    }
}

static int make_feed(const char *path, uint64_t seed)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "chessrelay demo: cannot open %s\n", path);
        return 1;
    }
    cr_pgn_reader *rd = cr_pgn_reader_new_file(f);
    fclose(f);
    if (!rd) {
        fprintf(stderr, "chessrelay demo: cannot read %s\n", path);
        return 1;
    }
    feed_out o = {0};
    uint64_t rng = seed;
    int status = 0, count = 0;
    printf("# chessrelay demo feed, made by `chessrelay demo --make-feed %s`\n", path);
    for (;;) {
        cr_game *g = NULL;
        cr_error err;
        int rc = cr_pgn_read(rd, &g, &err);
        if (rc == CR_EEOF) {
            break;
        }
        if (rc < 0) {
            fprintf(stderr, "chessrelay demo: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
            status = 1;
            cr_game_free(g);
            continue;
        }
        if (!g) {
            break;
        }
        char board_id[16];
        snprintf(board_id, sizeof board_id, "DEMO%d", ++count);
        printf("# %s: %s - %s, %s %s\n", board_id, cr_game_tag(g, "White"), cr_game_tag(g, "Black"),
               cr_game_tag(g, "Site"), cr_result_string(cr_game_result(g)));
        game_feed(&o, g, board_id, (int64_t)(count - 1) * 100, &rng);
        cr_game_free(g);
    }
    cr_pgn_reader_free(rd);
    qsort(o.lines, o.n, sizeof *o.lines, cmp_line);
    for (size_t i = 0; i < o.n; i++) {
        fputs(o.lines[i].text, stdout);
        free(o.lines[i].text);
    }
    free(o.lines);
    if (o.oom) {
        fprintf(stderr, "chessrelay demo: out of memory\n");
        status = 1;
    }
    return status;
}

int cr_cmd_demo(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--make-feed") == 0) {
        uint64_t seed = 1858;
        if (argc >= 5 && strcmp(argv[3], "--seed") == 0) {
            if (!cr_opt_u64("demo", argv[3], argv[4], "a whole number", &seed)) {
                return 2;
            }
        }
        return make_feed(argv[2], seed);
    }
    char feed[PATH_MAX];
    if (!cr_datadir_find("demo.feed", "CR_DEMO_FEED", feed, sizeof feed)) {
        fprintf(stderr, "chessrelay demo: no demo feed at %s (set CR_DEMO_FEED)\n", feed);
        return 1;
    }
    return cr_relay_demo(argc, argv, feed);
}
