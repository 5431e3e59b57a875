/* chessrelay relay: publications, made in the loop thread. */
#include "core/publish.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cr_pub *cr_pub_new(cr_pub_kind kind)
{
    cr_pub *p = calloc(1, sizeof *p);
    if (p) {
        p->kind = kind;
    }
    return p;
}

void cr_pub_free(cr_pub *p)
{
    if (!p) {
        return;
    }
    cr_buf_unref(p->event);
    cr_buf_unref(p->snapshot);
    cr_buf_unref(p->summary);
    cr_buf_unref(p->brief);
    cr_buf_unref(p->summary_msg);
    cr_buf_unref(p->pgn);
    cr_buf_unref(p->evals);
    cr_buf_unref(p->boards_metrics);
    cr_buf_unref(p->boards_json);
    cr_buf_unref(p->pairings_json);
    cr_buf_unref(p->results_trf);
    cr_buf_unref(p->loop_metrics);
    cr_buf_unref(p->incidents);
    cr_buf_unref(p->report_html);
    cr_buf_unref(p->report_pgn);
    free(p);
}

cr_buf *cr_pub_summary_message(const cr_buf *brief, int64_t seq, int64_t ts)
{
    if (!brief) {
        return NULL;
    }
    char head[96];
    int n = snprintf(head, sizeof head, "{\"type\":\"summary\",\"seq\":%" PRId64
                     ",\"ts\":%" PRId64 ",\"game\":", seq, ts);
    cr_buf *b = cr_buf_new(NULL, (size_t)n + brief->len + 1);
    if (!b) {
        return NULL;
    }
    memcpy(b->data, head, (size_t)n);
    memcpy(b->data + n, brief->data, brief->len);
    b->data[(size_t)n + brief->len] = '}';
    b->data[(size_t)n + brief->len + 1] = '\0';
    b->len = (size_t)n + brief->len + 1;
    return b;
}

cr_pub *cr_pub_for_event(const cr_store *store, const cr_store_event *ev, cr_buf *json,
                         unsigned lanes, int delay_s)
{
    const cr_store_game *g = cr_store_find(store, ev->game);
    cr_pub *p = g ? cr_pub_new(CR_PUB_EVENT) : NULL;
    if (!p) {
        return NULL;
    }
    p->lanes = lanes;
    p->seq = ev->seq;
    p->ts = ev->ts;
    p->game = ev->game;
    memcpy(p->round, g->round, sizeof p->round);
    p->event = cr_buf_ref(json);
    p->snapshot = cr_store_snapshot_json(store, ev->game, delay_s);
    /* A clock reading changes the snapshot, the brief and (the mover's
     * %clk) the PGN, not the list; a status only the snapshot, the brief
     * and the list. */
    if (ev->kind != CR_SEV_CLOCK) {
        p->summary = cr_store_summary_json(store, ev->game);
    }
    p->brief = cr_store_brief_json(store, ev->game);
    p->summary_msg = cr_pub_summary_message(p->brief, ev->seq, ev->ts);
    if (ev->kind != CR_SEV_STATUS) {
        p->pgn = cr_store_pgn(store, ev->game);
    }
    if (ev->kind == CR_SEV_CORRECTION) {
        p->evals = cr_store_evals_json(store, ev->game); /* retracted plies' evals gone */
        p->has_evals = true;
    }
    return p;
}

cr_pub *cr_pub_for_eval(const cr_store *store, int game, int ply, unsigned lanes, int delay_s)
{
    const cr_store_game *g = cr_store_find(store, game);
    cr_pub *p = g ? cr_pub_new(CR_PUB_EVAL) : NULL;
    if (!p) {
        return NULL;
    }
    p->lanes = lanes;
    p->seq = g->last_seq;
    p->ts = g->last_ts;
    p->game = game;
    memcpy(p->round, g->round, sizeof p->round);
    p->event = cr_store_eval_json(store, game, ply);
    p->snapshot = cr_store_snapshot_json(store, game, delay_s);
    p->summary = cr_store_summary_json(store, game);
    p->brief = cr_store_brief_json(store, game);
    p->summary_msg = cr_pub_summary_message(p->brief, p->seq, p->ts);
    p->pgn = cr_store_pgn(store, game);
    p->evals = cr_store_evals_json(store, game);
    p->has_evals = true;
    if (!p->event) {
        cr_pub_free(p);
        return NULL;
    }
    return p;
}

cr_pub *cr_pub_for_game(const cr_store *store, const cr_store_game *g, unsigned lanes, int delay_s)
{
    cr_pub *p = cr_pub_new(CR_PUB_STATE);
    if (!p) {
        return NULL;
    }
    p->lanes = lanes;
    p->seq = g->last_seq;
    p->ts = g->last_ts;
    p->game = g->id;
    memcpy(p->round, g->round, sizeof p->round);
    p->snapshot = cr_store_snapshot_json(store, g->id, delay_s);
    p->summary = cr_store_summary_json(store, g->id);
    p->brief = cr_store_brief_json(store, g->id);
    p->pgn = cr_store_pgn(store, g->id);
    p->evals = cr_store_evals_json(store, g->id);
    p->has_evals = true;
    return p;
}
