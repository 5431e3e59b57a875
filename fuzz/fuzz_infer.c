/* libFuzzer target: arbitrary bytes as a stream of board events for the
 * inference (snapshots with random square changes, clock readings, time
 * jumps in both directions, meta FEN). Must never crash, hang or leak, and
 * the game it keeps must stay consistent. The first snapshot is the start
 * position so that games get going. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/infer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_event(void *d, const cr_infer_event *ev)
{
    (void)d;
    if (ev->kind == CR_INFER_MOVE) {
        const cr_ply *p = cr_game_ply(ev->game, ev->ply);
        if (!p || !cr_position_ok(&p->after)) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_infer_config cfg;
    cr_infer_config_default(&cfg);
    cfg.search_nodes = 20000; /* keep each input quick */
    cr_infer *inf = cr_infer_new("F", &cfg, on_event, NULL);
    if (!inf) {
        abort();
    }
    cr_feed_event ev;
    memset(&ev, 0, sizeof ev);
    strcpy(ev.board, "F");
    cr_position start;
    cr_position_init_start(&start);
    uint8_t board[CR_SQ_NB];
    memcpy(board, start.board, sizeof board);
    ev.kind = CR_FEED_POS;
    memcpy(ev.u.squares, board, sizeof board);
    cr_infer_feed(inf, &ev);
    int64_t t = 0;
    size_t i = 0;
    while (i + 2 < size) {
        uint8_t op = data[i], a = data[i + 1], b = data[i + 2];
        i += 3;
        t += (op >> 3) * 37 - (op & 0x80 ? 2000 : 0); /* sometimes back in time */
        ev.t = t < 0 ? 0 : t;
        switch (op & 7) {
        case 0: /* move a piece from a to b */
            board[b & 63] = board[a & 63];
            board[a & 63] = 0;
            break;
        case 1: /* lift */
            board[a & 63] = 0;
            break;
        case 2: /* put any byte, even garbage */
            board[a & 63] = b;
            break;
        case 3: { /* clock */
            memset(&ev.u, 0, sizeof ev.u);
            ev.kind = CR_FEED_CLOCK;
            ev.u.clock.white_ms = a * 1000;
            ev.u.clock.black_ms = b * 1000;
            ev.u.clock.running = (int)(b % 3) - 1;
            cr_infer_feed(inf, &ev);
            continue;
        }
        case 4: /* the start position again */
            memcpy(board, start.board, sizeof board);
            break;
        case 5: /* a legal move of the current game position */
        {
            const cr_game *g = cr_infer_game(inf);
            if (g) {
                cr_movelist ml;
                const cr_position *p = cr_game_position(g);
                if (cr_generate_legal(p, &ml) > 0) {
                    cr_position q = *p;
                    cr_position_do_move(&q, ml.moves[a % ml.count]);
                    memcpy(board, q.board, sizeof board);
                }
            }
            break;
        }
        case 6:
            cr_infer_tick(inf, t + a * 10);
            continue;
        default: { /* meta */
            static const char *const fens[] = {"4k3/8/8/8/8/8/8/4K2R w K - 0 1", "not a fen", ""};
            memset(&ev.u, 0, sizeof ev.u);
            ev.kind = CR_FEED_META;
            ev.u.meta.key = a & 1 ? "FEN" : "White";
            ev.u.meta.value = fens[b % 3];
            cr_infer_feed(inf, &ev);
            continue;
        }
        }
        ev.kind = CR_FEED_POS;
        memcpy(ev.u.squares, board, sizeof board);
        cr_infer_feed(inf, &ev);
    }
    cr_infer_finish(inf, t + 100000);
    const cr_game *g = cr_infer_game(inf);
    if (g && !cr_position_ok(cr_game_position(g))) {
        abort();
    }
    cr_infer_free(inf);
    return 0;
}
