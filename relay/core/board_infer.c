/* chessrelay relay: one board's feed events through the inference (see
 * board_infer.h). */
#include "core/board_infer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/occupancy.h"
#include "dgt_board.h"

struct cr_board_infer {
    char id[CR_BOARD_ID_MAX + 1];
    cr_infer *inf;
    cr_dgt_board *dgt; /* made on the first RAW event */
    /* Occupancy boards (pos with '?' squares): the namer in front of the
     * inference, made on the first such snapshot; a meta FEN seen before. */
    cr_occ_namer *namer;
    cr_position fen;
    bool have_fen;
    cr_board_infer_shown_fn shown; /* see cr_board_infer_watch */
    void *shown_data;
};

cr_board_infer *cr_board_infer_new(const char *board_id, const cr_infer_config *cfg, cr_infer_cb cb,
                                   void *data)
{
    cr_board_infer *b = calloc(1, sizeof *b);
    if (!b) {
        return NULL;
    }
    snprintf(b->id, sizeof b->id, "%s", board_id);
    b->inf = cr_infer_new(board_id, cfg, cb, data);
    if (!b->inf) {
        free(b);
        return NULL;
    }
    return b;
}

void cr_board_infer_free(cr_board_infer *b)
{
    if (b) {
        cr_infer_free(b->inf);
        cr_dgt_board_free(b->dgt);
        cr_occ_namer_free(b->namer);
        free(b);
    }
}

cr_infer *cr_board_infer_engine(const cr_board_infer *b)
{
    return b->inf;
}

void cr_board_infer_watch(cr_board_infer *b, cr_board_infer_shown_fn fn, void *data)
{
    b->shown = fn;
    b->shown_data = data;
}

/* A POS or CLOCK to the inference, then to the watcher. */
static void feed_shown(cr_board_infer *b, const cr_feed_event *ev)
{
    cr_infer_feed(b->inf, ev);
    if (b->shown) {
        b->shown(b->shown_data, ev);
    }
}

static void on_decoded(void *data, const cr_feed_event *ev)
{
    cr_board_infer *b = data;
    if (ev->kind == CR_FEED_POS || ev->kind == CR_FEED_CLOCK) {
        feed_shown(b, ev);
    }
}

/* A snapshot with squares of unknown identity gets its pieces named from
 * the game's legal moves (cr/occupancy.h) before the inference sees it. */
static int feed_occupancy(cr_board_infer *b, const cr_feed_event *ev)
{
    if (!b->namer) {
        b->namer = cr_occ_namer_new();
        if (!b->namer) {
            return CR_ENOMEM;
        }
        if (b->have_fen) {
            cr_occ_namer_set(b->namer, &b->fen);
        }
    }
    cr_feed_event named = *ev;
    if (cr_occ_namer_settle(b->namer, ev->t, ev->u.squares, named.u.squares)) {
        feed_shown(b, &named); /* the capture the board stood with */
    }
    (void)cr_occ_namer_name(b->namer, ev->t, ev->u.squares, named.u.squares);
    feed_shown(b, &named);
    return 0;
}

int cr_board_infer_feed(cr_board_infer *b, const cr_feed_event *ev)
{
    if (ev->kind == CR_FEED_META && strcmp(ev->u.meta.key, "FEN") == 0) {
        b->have_fen = cr_position_from_fen(&b->fen, ev->u.meta.value, NULL) == 0;
        if (b->have_fen && b->namer) {
            cr_occ_namer_set(b->namer, &b->fen);
        }
    }
    if (ev->kind == CR_FEED_POS && (b->namer || cr_occ_has_unknown(ev->u.squares))) {
        return feed_occupancy(b, ev);
    }
    if (ev->kind == CR_FEED_RAW) {
        if (!b->dgt) {
            b->dgt = cr_dgt_board_new(b->id, NULL);
        }
        if (!b->dgt) {
            return CR_ENOMEM;
        }
        cr_dgt_board_feed_raw(b->dgt, ev->t, ev->u.raw.bytes, ev->u.raw.len, on_decoded, b);
        return 0;
    }
    if (ev->kind == CR_FEED_DISCONNECT && b->dgt) {
        cr_dgt_board_reset_stream(b->dgt);
    }
    if ((ev->kind == CR_FEED_POS || ev->kind == CR_FEED_CLOCK) && b->dgt) {
        /* Decoded from the RAW bytes already; and one RAW line of the
         * board's own log replays many changes that the decoded lines
         * would then repeat out of order. */
        return 0;
    }
    if (ev->kind == CR_FEED_POS || ev->kind == CR_FEED_CLOCK) {
        feed_shown(b, ev);
    } else {
        cr_infer_feed(b->inf, ev);
    }
    return 0;
}
