/* chessrelay relay: the edge relay (see edge.h). */
#include "edge/edge.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/lanes.h"
#include "core/store.h"
#include "edge/edge_log.h"
#include "edge/edge_msg.h"
#include "edge/edge_seq.h"
#include "edge/edge_sub.h"
#include "edge/event_decode.h"
#include "net/queue.h"
#include "net/server.h"
#include "net/view.h"
#include "out/nats_out.h"
#include "util/log.h"

enum { IN_QUEUE = 1 << 16, PUB_QUEUE = 1 << 16, CMD_QUEUE = 1024 };

struct cr_edge {
    cr_edge_config cfg;
    char tournament[CR_EDGE_TOURNAMENT_MAX]; /* "" until the first message */
    struct event_base *base;
    cr_lanes *lanes; /* the live and public stores, the delay line */
    cr_store *live;  /* the live lane's store */
    cr_queue *in, *pubs, *cmds;
    cr_server *server;
    cr_edge_sub *sub;
    cr_edge_seq *seq;
    cr_edge_log *log; /* NULL without a state folder */
    bool log_failed;  /* an append failed (said once) */
    uint64_t last_sseq; /* last stream message received */
    bool restoring, ready, refusing;
    int64_t applied, refused, evals_applied;
    struct event *in_ev, *cmd_ev, *tick_ev, *stats_ev;
    int status;
};

/*----- publishing to the server -----*/

static void set_restoring(cr_edge *e, bool on)
{
    e->restoring = on;
    cr_lanes_set_quiet(e->lanes, on);
}

static void publish_stats(cr_edge *e)
{
    cr_pub *p = cr_pub_new(CR_PUB_STATS);
    if (!p) {
        return;
    }
    p->ready = e->ready && !e->restoring;
    /* Boards: the newest game of each board tells whether it is online. */
    for (int i = cr_store_game_count(e->live) - 1; i >= 0; i--) {
        const cr_store_game *g = cr_store_game_at(e->live, i);
        if (cr_store_board_game(e->live, g->board) == g) {
            p->boards_known++;
            p->boards_online += g->online;
        }
    }
    cr_lanes_publish(e->lanes, p);
}

/*----- applying events (called by the resequencer in seq order) -----*/

/* Decodes and applies one event; a refused event is logged and passed. */
static void apply_event(void *data, const cr_edge_msg *m)
{
    cr_edge *e = data;
    cr_store_event *ev = NULL;
    cr_error err;
    cr_error_clear(&err);
    int rc = cr_event_decode(m->data, m->len, &ev, &err);
    if (rc == 0 && ev->seq != m->seq) {
        rc = cr_error_set(&err, CR_EPROTO, 0, 0, "seq %" PRId64 " but header %s says %" PRId64,
                          ev->seq, CR_NATS_HDR_SEQ, m->seq);
    }
    if (rc == 0 && ev->kind == CR_SEV_MOVE) {
        if (m->has_ply) {
            ev->move.emt_ms = m->emt_ms;
            ev->move.ts = m->ply_ts;
            ev->move.fits = (uint16_t)m->fits;
        }
        const cr_store_game *g = cr_store_find(e->live, ev->game);
        rc = g ? cr_event_resolve_move(ev, cr_game_position(g->game), &err)
               : cr_error_set(&err, CR_EINVAL, 0, 0, "unknown game %d", ev->game);
    }
    cr_buf *json = rc == 0 ? cr_buf_new(m->data, m->len) : NULL;
    if (rc == 0) {
        rc = json ? cr_lanes_add(e->lanes, ev, json, &err)
                  : cr_error_set(&err, CR_ENOMEM, 0, 0, "out of memory");
    }
    if (rc) {
        cr_buf_unref(json);
        e->refused++;
        cr_log(CR_LOG_WARN, "edge: stream message %" PRIu64 " (seq %" PRId64 ") refused: %s",
               m->sseq, m->seq, err.text);
        cr_store_event_free(ev);
        return;
    }
    e->applied++;
}

/* Applies one engine evaluation (see edge.h). */
static void apply_eval(void *data, const cr_edge_msg *m)
{
    cr_edge *e = data;
    int game, ply;
    char fen[CR_FEN_MAX];
    cr_eval ev;
    cr_error err;
    if (cr_eval_decode(m->data, m->len, &game, &ply, fen, &ev, &err)) {
        cr_log(CR_LOG_WARN, "edge: stream message %" PRIu64 " (eval) refused: %s", m->sseq,
               err.text);
        return;
    }
    /* none: a correction retracted the ply since, or its move never came */
    if (cr_lanes_set_eval(e->lanes, game, ply, fen, &ev)) {
        e->evals_applied++;
    }
}

/* The public store took a move: the live store's eval of its position, if
 * it came before the move was public here. */
static void on_public_event(void *data, const cr_store *public_store, const cr_store_event *ev)
{
    cr_edge *e = data;
    if (ev->kind != CR_SEV_MOVE || public_store == e->live) {
        return;
    }
    const cr_store_game *g = cr_store_find(e->live, ev->game);
    const cr_eval *had = g ? cr_store_eval(g, ev->ply) : NULL;
    char fen[CR_FEN_MAX];
    if (had && cr_position_to_fen(&ev->move.after, fen, sizeof fen) > 0) {
        cr_eval copy = *had;
        cr_lanes_set_eval(e->lanes, ev->game, ev->ply, fen, &copy);
    }
}

/* Takes a message of the stream (or of the state log). */
static void take(cr_edge *e, cr_edge_msg *m)
{
    if (m->sseq > e->last_sseq) {
        e->last_sseq = m->sseq;
    }
    if (!e->tournament[0]) {
        snprintf(e->tournament, sizeof e->tournament, "%s", m->tournament);
        cr_log(CR_LOG_INFO, "edge: following tournament %s", e->tournament);
    }
    if (strcmp(e->tournament, m->tournament) != 0 || e->refusing) {
        free(m);
        return;
    }
    if (m->delay_s > e->cfg.config->delay_s) {
        /* Serving with less delay than the venue would show moves early. */
        cr_log(CR_LOG_ERROR,
               "edge: the venue delays the public by %d s, this edge by %d s: restart it with "
               "--delay %g (or more); stopping",
               m->delay_s, e->cfg.config->delay_s, m->delay_s / 60.0);
        e->refusing = true;
        e->status = 1;
        event_base_loopexit(e->base, NULL);
        free(m);
        return;
    }
    if (m->npending == 0 && !e->restoring) {
        e->ready = true;
    }
    cr_edge_seq_take(e->seq, m, cr_mono_us());
}

/*----- the state log -----*/

static void restore_msg(void *data, cr_edge_msg *m)
{
    take(data, m);
}

/* Applies the state log and keeps it open for appending. Returns 0 or -1. */
static int open_log(cr_edge *e)
{
    cr_edge_log_stats st;
    cr_error err;
    set_restoring(e, true);
    e->log = cr_edge_log_open(e->cfg.state_dir, e->cfg.stream, restore_msg, e, &st, &err);
    set_restoring(e, false);
    if (!e->log) {
        cr_log(CR_LOG_ERROR, "edge: %s", err.text);
        return -1;
    }
    const char *path = cr_edge_log_path(e->log);
    if (st.unreadable) {
        cr_log(CR_LOG_WARN, "edge: %s (%ld line(s) that are no message skipped)",
               st.first_unreadable, st.unreadable);
    }
    if (st.bad_seals) {
        cr_log(CR_LOG_ERROR,
               "edge: NOT SOUND: %s (%ld record(s) do not match their seals; applied all the "
               "same: delete the file to rebuild from the stream)",
               st.seal_problem, st.bad_seals);
    }
    if (st.torn) {
        cr_log(CR_LOG_WARN, "edge: %s: a torn last record was dropped", path);
    }
    if (st.unsealed) {
        cr_log(CR_LOG_INFO, "edge: %s: written before seals; sealed now", path);
    }
    if (st.found) {
        cr_lanes_tick(e->lanes, cr_now_us());
        cr_log(CR_LOG_INFO,
               "edge: %s: %ld messages (%ld unreadable), %d games, seq %" PRId64
               ", resuming after stream message %" PRIu64,
               path, st.messages, st.unreadable, cr_store_game_count(e->live),
               cr_store_last_seq(e->live), e->last_sseq);
    }
    return 0;
}

/*----- the loop's events -----*/

static void on_incoming(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    cr_edge *e = arg;
    cr_edge_msg *m;
    while ((m = cr_queue_pop(e->in)) != NULL) {
        if (m->sseq <= e->last_sseq || e->refusing) {
            free(m); /* already in the state log */
            continue;
        }
        if (e->log && cr_edge_log_append(e->log, m) && !e->log_failed) {
            e->log_failed = true;
            cr_log(CR_LOG_ERROR, "edge: %s: cannot append: %s (a restart reads the stream again)",
                   cr_edge_log_path(e->log), strerror(errno));
        }
        take(e, m);
    }
}

static void wake(void *data)
{
    event_active(data, EV_READ, 0);
}

static void on_commands(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    cr_edge *e = arg;
    cr_command_msg *c;
    while ((c = cr_queue_pop(e->cmds)) != NULL) {
        cr_log(CR_LOG_WARN, "edge: command from %s ignored: an edge is read-only (use the venue's)",
               c->who);
        free(c);
    }
}

static void on_subscribed(void *data, bool caught_up)
{
    cr_edge *e = data;
    if (caught_up) {
        e->ready = true;
    }
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    cr_edge *e = arg;
    cr_edge_seq_tick(e->seq, cr_mono_us(), e->cfg.gap_wait_us);
    cr_lanes_tick(e->lanes, cr_now_us());
}

static void on_stats(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    publish_stats(arg);
}

/* The signal watcher: the loop may be waiting for room in the
 * publication queue (a stalled server thread); closing it lets it return. */
static void stop_publishing(void *data)
{
    cr_queue_close(data);
}

static void free_pub(void *p)
{
    cr_pub_free(p);
}

/*----- start and stop -----*/

cr_edge *cr_edge_new(const cr_edge_config *cfg)
{
    cr_edge *e = calloc(1, sizeof *e);
    if (!e) {
        return NULL;
    }
    e->cfg = *cfg;
    if (cfg->tournament) {
        snprintf(e->tournament, sizeof e->tournament, "%s", cfg->tournament);
    }
    cr_edge_seq_config sc = {.event = apply_event, .eval = apply_eval, .data = e};
    e->seq = cr_edge_seq_new(&sc);
    if (!e->seq) {
        free(e);
        return NULL;
    }
    return e;
}

/* The loop, queues and lanes. Returns 0 or -1 (logged). */
static int start_lanes(cr_edge *e, cr_sigwatch *sw)
{
    e->base = sw ? event_base_new() : NULL;
    e->in = cr_queue_new(IN_QUEUE, NULL, NULL);
    e->pubs = cr_queue_new(PUB_QUEUE, NULL, NULL);
    e->cmds = cr_queue_new(CMD_QUEUE, NULL, NULL);
    if (e->base && e->pubs) {
        cr_lanes_config lc = {.delay_s = e->cfg.config->delay_s,
                              .pubs = e->pubs,
                              .base = e->base,
                              .public_event = on_public_event,
                              .data = e};
        e->lanes = cr_lanes_new(&lc);
        e->live = e->lanes ? cr_lanes_live(e->lanes) : NULL;
        if (e->lanes) {
            /* the venue's evals in this edge's PGN ("engine": {"pgn"} of
             * its --config; all by default) */
            cr_lanes_set_pgn_evals(e->lanes, e->cfg.config->engine.pgn_http);
        }
    }
    if (!e->base || !e->lanes || !e->in || !e->pubs || !e->cmds) {
        cr_log(CR_LOG_ERROR, "out of memory");
        return -1;
    }
    if (cr_sigwatch_start(sw, e->base, stop_publishing, e->pubs, NULL)) {
        cr_log(CR_LOG_ERROR, "edge: cannot start the signal thread");
        return -1;
    }
    return 0;
}

/* Then the server, the state log, the subscriber and the timers. Returns
 * 0 or -1 (logged). */
static int start_edge(cr_edge *e, cr_sigwatch *sw)
{
    if (start_lanes(e, sw)) {
        return -1;
    }
    e->in_ev = event_new(e->base, -1, 0, on_incoming, e);
    e->cmd_ev = event_new(e->base, -1, 0, on_commands, e);
    cr_queue_set_wake(e->in, wake, e->in_ev);
    cr_queue_set_wake(e->cmds, wake, e->cmd_ev);
    cr_server_config scfg;
    cr_server_config_from(&scfg, e->cfg.config);
    cr_error err;
    e->server = cr_server_start(&scfg, e->pubs, e->cmds, &err);
    if (!e->server) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    cr_server_announce(e->server, "edge: ", e->cfg.port_file);
    publish_stats(e);
    if (e->cfg.state_dir && open_log(e)) {
        return -1;
    }
    cr_lanes_publish_states(e->lanes);
    cr_edge_sub_config bc = {.urls = e->cfg.from,
                             .stream = e->cfg.stream,
                             .tournament = e->cfg.tournament,
                             .after = e->last_sseq, /* from the state log */
                             .in = e->in,
                             .base = e->base,
                             .subscribed = on_subscribed,
                             .data = e};
    e->sub = cr_edge_sub_new(&bc, &err);
    if (!e->sub) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    struct timeval tick = {0, 100000}, second = {1, 0};
    e->tick_ev = event_new(e->base, -1, EV_PERSIST, on_tick, e);
    e->stats_ev = event_new(e->base, -1, EV_PERSIST, on_stats, e);
    cr_edge_sub_start(e->sub);
    event_add(e->tick_ev, &tick);
    event_add(e->stats_ev, &second);
    return 0;
}

int cr_edge_run(cr_edge *e, cr_sigwatch *sw)
{
    if (start_edge(e, sw)) {
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    if (event_base_dispatch(e->base) < 0) {
        cr_log(CR_LOG_ERROR, "event loop failed");
        return 1;
    }
    if (cr_sigwatch_signal(sw)) {
        cr_log(CR_LOG_INFO, "signal %d: stopping (a second one forces the exit)",
               cr_sigwatch_signal(sw));
    }
    cr_edge_seq_stats ss;
    cr_edge_seq_get_stats(e->seq, &ss);
    cr_log(CR_LOG_INFO,
           "edge: %" PRId64 " events applied, %" PRId64 " refused, %" PRId64 " missing, %" PRId64
           " duplicates; %" PRId64 " evaluations",
           e->applied, e->refused, ss.skipped, ss.duplicates, e->evals_applied);
    return cr_edge_sub_failed(e->sub) ? 1 : e->status;
}

void cr_edge_free(cr_edge *e)
{
    if (!e) {
        return;
    }
    if (e->in) {
        cr_queue_close(e->in); /* a libnats thread may wait in a push */
    }
    cr_edge_sub_free(e->sub);
    if (e->server) {
        cr_server_stop(e->server);
    }
    struct event *evs[] = {e->in_ev, e->cmd_ev, e->tick_ev, e->stats_ev};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        if (evs[i]) {
            event_free(evs[i]);
        }
    }
    cr_queue_free(e->in, free);
    cr_queue_free(e->pubs, free_pub);
    cr_queue_free(e->cmds, free);
    cr_edge_seq_free(e->seq);
    cr_edge_log_free(e->log);
    cr_lanes_free(e->lanes);
    if (e->base) {
        event_base_free(e->base);
    }
    free(e);
}
