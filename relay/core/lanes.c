/* chessrelay relay: the live and public lanes. */
#include "core/lanes.h"

#include <stdlib.h>
#include <string.h>

#include "util/log.h"

typedef struct delayed {
    struct delayed *next;
    cr_store_event *ev;
    cr_buf *json;
} delayed;

struct cr_lanes {
    cr_lanes_config cfg;
    int64_t delay_us;
    cr_store *live, *public_store; /* public_store: NULL without a delay */
    delayed *head, *tail;
    bool quiet;
    struct event *flush_ev; /* wakes the server once per batch of publications */
};

static void on_flush(evutil_socket_t fd, short what, void *arg)
{
    cr_lanes *l = arg;
    cr_queue_wake(l->cfg.pubs);
}

cr_lanes *cr_lanes_new(const cr_lanes_config *cfg)
{
    cr_lanes *l = calloc(1, sizeof *l);
    if (!l) {
        return NULL;
    }
    l->cfg = *cfg;
    l->delay_us = (int64_t)cfg->delay_s * 1000000;
    l->live = cr_store_new();
    l->public_store = l->delay_us ? cr_store_new() : NULL;
    l->flush_ev = event_new(cfg->base, -1, 0, on_flush, l);
    if (!l->live || (l->delay_us && !l->public_store) || !l->flush_ev) {
        cr_lanes_free(l);
        return NULL;
    }
    return l;
}

void cr_lanes_free(cr_lanes *l)
{
    if (!l) {
        return;
    }
    while (l->head) {
        delayed *d = l->head;
        l->head = d->next;
        cr_store_event_free(d->ev);
        cr_buf_unref(d->json);
        free(d);
    }
    if (l->flush_ev) {
        event_free(l->flush_ev);
    }
    cr_store_free(l->live);
    cr_store_free(l->public_store);
    free(l);
}

cr_store *cr_lanes_live(const cr_lanes *l)
{
    return l->live;
}

const cr_store *cr_lanes_public(const cr_lanes *l)
{
    return l->public_store ? l->public_store : l->live;
}

void cr_lanes_set_quiet(cr_lanes *l, bool quiet)
{
    l->quiet = quiet;
}

void cr_lanes_set_pgn_marks(cr_lanes *l, bool on)
{
    cr_store_set_pgn_marks(l->live, on);
    if (l->public_store) {
        cr_store_set_pgn_marks(l->public_store, on);
    }
}

void cr_lanes_set_pgn_evals(cr_lanes *l, bool on)
{
    cr_store_set_pgn_evals(l->live, on);
    if (l->public_store) {
        cr_store_set_pgn_evals(l->public_store, on);
    }
}

/* Publications are pushed without waking the server thread; flush_ev, run
 * once the current callback is done, wakes it for all of them. */
void cr_lanes_publish(cr_lanes *l, cr_pub *p)
{
    if (!p) {
        return;
    }
    if (!cr_queue_push_quiet(l->cfg.pubs, p, true)) {
        cr_pub_free(p);
        return;
    }
    event_active(l->flush_ev, EV_READ, 0);
}

static void publish(cr_lanes *l, unsigned lanes, const cr_store *store, const cr_store_event *ev,
                    cr_buf *json)
{
    int delay_s = (lanes & CR_LANE_PUBLIC) ? l->cfg.delay_s : 0;
    cr_lanes_publish(l, cr_pub_for_event(store, ev, json, lanes, delay_s));
}

static void publish_states(cr_lanes *l, unsigned lanes, const cr_store *store)
{
    int delay_s = (lanes & CR_LANE_PUBLIC) ? l->cfg.delay_s : 0;
    for (int i = 0; i < cr_store_game_count(store); i++) {
        cr_pub *p = cr_pub_for_game(store, cr_store_game_at(store, i), lanes, delay_s);
        if (!p) {
            return;
        }
        cr_lanes_publish(l, p);
    }
    cr_pub *m = cr_pub_new(CR_PUB_MARK);
    if (m) {
        m->lanes = lanes;
        m->seq = cr_store_last_seq(store);
        cr_lanes_publish(l, m);
    }
}

void cr_lanes_publish_states(cr_lanes *l)
{
    if (l->public_store) {
        publish_states(l, CR_LANE_LIVE, l->live);
        publish_states(l, CR_LANE_PUBLIC, l->public_store);
    } else {
        publish_states(l, CR_LANE_LIVE | CR_LANE_PUBLIC, l->live);
    }
}

void cr_lanes_tick(cr_lanes *l, int64_t now_us)
{
    while (l->head && l->head->ev->ts + l->delay_us <= now_us) {
        delayed *d = l->head;
        l->head = d->next;
        if (!l->head) {
            l->tail = NULL;
        }
        cr_error err;
        if (cr_store_apply(l->public_store, d->ev, &err) == 0) {
            if (l->cfg.public_event) {
                l->cfg.public_event(l->cfg.data, l->public_store, d->ev);
            }
            if (!l->quiet) {
                publish(l, CR_LANE_PUBLIC, l->public_store, d->ev, d->json);
            }
        } else {
            cr_log(CR_LOG_WARN, "public store: %s", err.text);
        }
        cr_store_event_free(d->ev);
        cr_buf_unref(d->json);
        free(d);
    }
}

int cr_lanes_add(cr_lanes *l, cr_store_event *ev, cr_buf *json, cr_error *err)
{
    cr_error_clear(err);
    int rc = cr_store_apply(l->live, ev, err);
    if (rc) {
        return rc;
    }
    if (!json && (!l->quiet || l->public_store)) {
        json = cr_store_event_json(ev);
    }
    if (l->cfg.live_event) {
        l->cfg.live_event(l->cfg.data, l->live, ev, json);
    }
    if (!l->public_store && l->cfg.public_event) {
        l->cfg.public_event(l->cfg.data, l->live, ev); /* no delay: live is public */
    }
    if (!l->quiet) {
        publish(l, l->public_store ? CR_LANE_LIVE : CR_LANE_LIVE | CR_LANE_PUBLIC, l->live, ev,
                json);
    }
    delayed *d = l->public_store ? malloc(sizeof *d) : NULL;
    if (!d) {
        cr_buf_unref(json);
        cr_store_event_free(ev);
        return 0;
    }
    d->next = NULL;
    d->ev = ev;
    d->json = json;
    if (l->tail) {
        l->tail->next = d;
    } else {
        l->head = d;
    }
    l->tail = d;
    return 0;
}

/* Whether ply `ply` of game `game` in store leads to fen (placement, side,
 * castling and en passant: the counters may differ from the engine's). */
static bool has_position(const cr_store *store, int game, int ply, const char *fen)
{
    const cr_store_game *g = cr_store_find(store, game);
    if (!g || ply < 0 || ply >= cr_game_ply_count(g->game)) {
        return false;
    }
    char mine[CR_FEN_MAX];
    if (cr_position_to_fen(&cr_game_ply(g->game, ply)->after, mine, sizeof mine) < 0) {
        return false;
    }
    size_t n = 0;
    for (int spaces = 0; mine[n] && mine[n] == fen[n]; n++) {
        if (mine[n] == ' ' && ++spaces == 4) {
            return true;
        }
    }
    return mine[n] == fen[n];
}


unsigned cr_lanes_set_eval(cr_lanes *l, int game, int ply, const char *fen, const cr_eval *e)
{
    unsigned done = 0;
    cr_error err;
    cr_store *stores[2] = {l->public_store, l->live}; /* no public store: live is public */
    unsigned bits[2] = {CR_LANE_PUBLIC, l->public_store ? CR_LANE_LIVE : CR_LANE_LIVE | CR_LANE_PUBLIC};
    for (int i = 0; i < 2; i++) {
        if (!stores[i] || !has_position(stores[i], game, ply, fen)) {
            continue;
        }
        const cr_eval *had = cr_store_eval(cr_store_find(stores[i], game), ply);
        if (had && cr_eval_equal(had, e)) {
            done |= bits[i]; /* the live lane had it already (engine.live) */
            continue;
        }
        if (cr_store_set_eval(stores[i], game, ply, e, &err)) {
            cr_log(CR_LOG_WARN, "eval: %s", err.text);
            continue;
        }
        done |= bits[i];
        if (!l->quiet) {
            int delay_s = (bits[i] & CR_LANE_PUBLIC) ? l->cfg.delay_s : 0;
            cr_lanes_publish(l, cr_pub_for_eval(stores[i], game, ply, bits[i], delay_s));
        }
    }
    return done;
}
