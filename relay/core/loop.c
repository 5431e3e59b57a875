/* chessrelay relay: the loop thread. */
#include "core/loop.h"

#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbiter/arbiter_link.h"
#include "agent/agent_link.h"
#include "core/board_games.h"
#include "core/board_infer.h"
#include "core/eboards.h"
#include "core/feed_source.h"
#include "core/journal.h"
#include "core/journal_lines.h"
#include "core/lanes.h"
#include "util/feed_line.h"
#include "util/grow.h"
#include "util/log.h"
#include "util/seal_head.h"
#include "out/nats_out.h"
#include "out/outputs.h"
#include "engine/evals.h"
#include "core/pairings_json.h"
#include "core/round_results.h"
#include "core/pairings_link.h"
#include "net/queue.h"
#include "core/sigwatch.h"
#include "core/source_boards.h"
#include "core/store.h"
#include "core/command.h"
#include "core/publish.h"

enum { TICK_MS = 100, TICK_SPAN = 5000, PUB_QUEUE = 1 << 16, CMD_QUEUE = 1024 };

typedef struct relay relay;

typedef struct board {
    char id[CR_BOARD_ID_MAX + 1];
    cr_board_infer *infer; /* feed events -> inference events */
    cr_board_games *games; /* inference events -> store events */
    long skip;       /* restart: events of this board already in the journal */
    int table;       /* its number when the tournament file gives none (journaled) */
    int64_t ticked;  /* feed ms: its inference was ticked up to here (INT64_MIN: no event yet) */
    int64_t src_t;   /* feed ms: its source reached this (its last event; in a rebuild, a
                        journaled tick too) */
} board;

struct relay {
    const cr_loop_config *cfg;
    const cr_config *t;
    struct event_base *base;
    board **boards;
    int nboards;
    size_t capboards;
    cr_feed_source *feeds;           /* the feed files, NULL without */
    cr_lanes *lanes;                 /* the live and public stores, the delay line */
    cr_store *live;                  /* the live lane's store */
    cr_board_games_config games_cfg; /* for every board */
    cr_outputs *outputs; /* round PGN pushes and export folder, fed from the public store */
    int64_t seq;
    int next_game;
    cr_journal *journal;
    long journal_bad_lines; /* journal lines the rebuild could not read */
    bool journal_alerted;   /* the arbiters were told the journal cannot write */
    char *line; /* a feed event's journal line */
    size_t line_cap;
    bool rebuilding;
    cr_feed_clock clock;           /* epoch_ms: from the journal, else this start */
    int64_t last_tick, tick_limit; /* feed ms: see run_ticks */
    int64_t tick_skip;             /* feed ms: boundaries up to it not ticked yet never are */
    int64_t cur_ts;     /* wall time (us) of the event being processed (on a rebuild:
                           the journaled feed event's time) */
    int64_t cur_t;      /* feed time (ms) of the source event being processed */
    int64_t source_t;   /* feed time (ms) every source has reached (see source_now) */
    bool reach_journaled; /* the rebuild found the sources' end and source_t there */
    int emitted;        /* store events emitted */
    bool finished;
    cr_queue *pubs, *cmds;
    cr_board_sources *live_boards; /* NULL without live boards */
    struct cr_server *server;
    cr_agent_link *agents; /* venue agents, or NULL */
    cr_arbiter_link *arb;  /* the arbiters' monitors */
    bool applying_arbiter; /* the link's own events: not fed back to it */
    cr_nats_out *nats;     /* NULL: not publishing to NATS */
    cr_pairings_link *pairings; /* the pairings file, or NULL */
    cr_buf *pairings_json;      /* the pairings in force for /pairings.json, or NULL */
    cr_round_results *results;  /* the round's results for the pairing program */
    cr_evals *evals;            /* engine evaluations, or NULL */
    cr_eboards *eboards;        /* the boards for the LiveChess API, or NULL */
    struct event *tick_ev, *sync_ev, *stats_ev, *cmd_ev, *reload_ev;
    int status;
};

static int64_t wall_ms(void)
{
    return cr_now_us() / 1000;
}

static int64_t feed_now(const relay *r)
{
    return cr_feed_clock_now(&r->clock);
}

/*----- publishing -----*/

static void set_rebuilding(relay *r, bool on)
{
    r->rebuilding = on;
    cr_lanes_set_quiet(r->lanes, on);
    cr_eboards_set_quiet(r->eboards, on);
}

/* Prometheus text of the pushes, the pairings file and the NATS
 * publisher (NULL: none). */
static cr_buf *loop_metrics(relay *r)
{
    const cr_pusher *pusher = r->outputs ? cr_outputs_pusher(r->outputs) : NULL;
    if (!r->pairings && !r->nats && !r->evals && !r->journal_bad_lines && !r->journal &&
        (!pusher || cr_pusher_round_count(pusher) == 0)) {
        return NULL;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f) {
        return NULL;
    }
    if (pusher) {
        cr_pusher_metrics(pusher, f);
    }
    if (r->pairings) {
        cr_pairings_link_metrics(r->pairings, f);
    }
    if (r->nats) {
        cr_nats_out_metrics(r->nats, f);
    }
    if (r->journal) {
        cr_journal_metrics(r->journal, f);
    }
    if (r->journal_bad_lines) {
        fprintf(f, "# TYPE chessrelay_journal_bad_lines_total counter\n"
                   "chessrelay_journal_bad_lines_total %ld\n", r->journal_bad_lines);
    }
    if (r->evals) {
        cr_evals_metrics(r->evals, f);
    }
    if (r->agents) {
        cr_agent_link_metrics(r->agents, f);
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return cr_buf_take_str(text);
}

static void publish_stats(relay *r)
{
    cr_pub *p = cr_pub_new(CR_PUB_STATS);
    if (!p) {
        return;
    }
    p->ready = !r->rebuilding;
    const char *problem = r->journal ? cr_journal_problem(r->journal) : NULL;
    snprintf(p->problem, sizeof p->problem, "%s", problem ? problem : "");
    if (!problem != !r->journal_alerted) { /* the arbiters hear when it starts and ends */
        r->journal_alerted = problem != NULL;
        cr_arbiter_link_alert(r->arb, problem ? "journal-write" : "ok",
                              problem ? problem : "the journal writes again", wall_ms());
    }
    for (int i = 0; i < r->nboards; i++) {
        p->boards_online += cr_board_games_online(r->boards[i]->games);
    }
    p->boards_known = r->nboards;
    p->journal_syncs = r->journal ? (int64_t)cr_journal_syncs(r->journal) : 0;
    if (r->live_boards) {
        p->boards_metrics = cr_buf_take_str(cr_board_sources_metrics(r->live_boards));
        p->boards_json = cr_buf_take_str(cr_board_sources_json(r->live_boards));
    }
    p->pairings_json = cr_buf_ref(r->pairings_json);
    int over = cr_round_results_make(r->results, r->pairings, r->live, &p->results_trf);
    if (over > 0) { /* the round is over: its results for the pairing program */
        cr_outputs_write_results(r->outputs, over, p->results_trf->data);
    }
    p->loop_metrics = loop_metrics(r);
    cr_lanes_publish(r->lanes, p);
}

/* One record of the relay's own (core/journal_lines.h) into the journal,
 * unless rebuilding (the journal has it already). Returns 0, or non-zero
 * when the journal did not take it (logged). */
static int journal_record(relay *r, const cr_jline *jl)
{
    if (!r->journal || r->rebuilding) {
        return 0;
    }
    char small[512];
    int n = cr_jline_format(jl, small, sizeof small);
    char *line = n >= (int)sizeof small ? malloc((size_t)n + 1) : small;
    if (n < 0 || !line) {
        cr_log(CR_LOG_ERROR, "journal: a %s record that cannot be written%s",
               cr_jline_kind_name(jl->kind), n < 0 ? "" : ": out of memory");
        return n < 0 ? CR_EINVAL : CR_ENOMEM;
    }
    if (line != small) {
        cr_jline_format(jl, line, (size_t)n + 1);
    }
    int rc = cr_journal_append(r->journal, line, (size_t)n);
    if (line != small) {
        free(line);
    }
    return rc;
}

/* An event of the live lane, before it is published. */
static void on_live_event(void *data, const cr_store *live, const cr_store_event *ev, cr_buf *json)
{
    relay *r = data;
    if (!r->applying_arbiter) {
        cr_arbiter_link_on_store_event(r->arb, ev, r->cur_t, wall_ms());
    }
    cr_round_results_note(r->results, ev); /* a result: confirmed or not */
    /* Which board a game is on, for `chessrelay journal export --game N`. */
    if (ev->kind == CR_SEV_GAME && ev->board[0]) {
        cr_jline jl = {.kind = CR_JLINE_GAME, .u.game.game = ev->game};
        snprintf(jl.u.game.board, sizeof jl.u.game.board, "%s", ev->board);
        journal_record(r, &jl);
    }
    cr_log(CR_LOG_DEBUG, "event %" PRId64 ": kind %d game %d ply %d%s", ev->seq, (int)ev->kind,
           ev->game, ev->ply, r->rebuilding ? " (rebuild)" : "");
    /* NATS: every live event, rebuild included */
    cr_nats_out_event(r->nats, live, ev, json);
    cr_evals_live_event(r->evals, live, ev); /* engine.live: the arbiters' evals */
}

/* An event of the public lane: the round's PGN pushed and exported. */
static void on_public_event(void *data, const cr_store *public_store, const cr_store_event *ev)
{
    relay *r = data;
    cr_outputs_changed(r->outputs, public_store, ev);
    cr_evals_public_event(r->evals, public_store, ev); /* positions analysed once public */
}

/* An engine evaluation reached the public store: the round's PGN again,
 * and the edges (only now: evaluations keep the public delay). */
static void on_evaluated(void *data, const cr_store *public_store, int game, int ply)
{
    relay *r = data;
    cr_outputs_changed_game(r->outputs, public_store, game);
    cr_nats_out_eval(r->nats, public_store, game, ply);
}

/* Gives an event its seq and ts and adds it to the lanes. Takes ev. */
static void emit(relay *r, cr_store_event *ev)
{
    if (!ev) {
        r->status = 1;
        return;
    }
    ev->seq = r->seq + 1;
    ev->ts = r->cur_ts;
    cr_error err;
    if (cr_lanes_add(r->lanes, ev, NULL, &err)) {
        cr_log(CR_LOG_WARN, "store: %s", err.text);
        cr_store_event_free(ev);
        return;
    }
    r->seq++;
    r->emitted++;
}

/*----- from inference events to store events -----*/

static int new_game_id(void *data)
{
    return ++((relay *)data)->next_game;
}

static int take_pairing(void *data, const char *board_id)
{
    return cr_pairings_link_take(((relay *)data)->pairings, board_id);
}

/* A board with no table in the pairings: board_games.h cfg->unpaired. */
static bool unpaired_game(void *data, int *round, const char **event, const char **site)
{
    return cr_pairings_link_unpaired(((relay *)data)->pairings, round, event, site);
}

/* emit() as the board games' and the pairings' callback. */
static void emit_event(void *data, cr_store_event *ev)
{
    emit(data, ev);
}

static void games_config(relay *r)
{
    cr_board_games_config *c = &r->games_cfg;
    c->tournament = r->t;
    c->store = r->live;
    c->new_game = new_game_id;
    c->take_pairing = take_pairing;
    c->unpaired = unpaired_game;
    c->emit = emit_event;
    c->data = r;
}

static void on_infer(void *data, const cr_infer_event *ev)
{
    board *b = data;
    cr_board_games_on_infer(b->games, ev);
}

/*----- boards and feed events -----*/

static void run_ticks(relay *r, int64_t upto);
static void after_event(relay *r, int64_t t);

static board *find_board(relay *r, const char *id);

/* A new board numbered `table` (0: the next number, journaled as
 * "# board <table> <id>" before its first event, so that a rebuild numbers
 * it the same: a board's number never moves at a restart). */
static board *new_board(relay *r, const char *id, int table)
{
    if (table <= 0) {
        table = 1;
        for (int i = 0; i < r->nboards; i++) {
            if (r->boards[i]->table >= table) {
                table = r->boards[i]->table + 1;
            }
        }
        cr_jline jl = {.kind = CR_JLINE_BOARD, .u.board.table = table};
        snprintf(jl.u.board.id, sizeof jl.u.board.id, "%s", id);
        journal_record(r, &jl);
    }
    board **n = cr_grow(r->boards, &r->capboards, (size_t)r->nboards + 1, sizeof *n, 16);
    if (!n) {
        return NULL;
    }
    r->boards = n;
    board *b = calloc(1, sizeof *b);
    if (!b) {
        return NULL;
    }
    snprintf(b->id, sizeof b->id, "%s", id);
    b->table = table;
    b->ticked = INT64_MIN;
    b->infer = cr_board_infer_new(id, NULL, on_infer, b);
    b->games = cr_board_games_new(&r->games_cfg, id, table);
    if (!b->infer || !b->games) {
        cr_board_infer_free(b->infer);
        cr_board_games_free(b->games);
        free(b);
        return NULL;
    }
    r->boards[r->nboards++] = b;
    return b;
}

static board *get_board(relay *r, const char *id)
{
    board *b = find_board(r, id);
    return b ? b : new_board(r, id, 0);
}

/* One feed event into its board: journal first (unless rebuilding), then the
 * inference. ev->t is on the feed clock. */
static void feed_event(relay *r, const cr_feed_event *ev, const char *line, size_t len)
{
    /* line is NULL for the relay's own sources: an agent's board is not theirs. */
    if (!line && !r->rebuilding && r->agents && !cr_agent_link_claim_local(r->agents, ev->board)) {
        return;
    }
    board *b = get_board(r, ev->board);
    if (!b) {
        cr_log(CR_LOG_ERROR, "out of memory");
        r->status = 1;
        return;
    }
    r->cur_t = ev->t;
    if (b->ticked == INT64_MIN) {
        b->ticked = ev->t / TICK_MS * TICK_MS; /* its ticks start after its first event */
    }
    if (b->src_t < ev->t) {
        b->src_t = ev->t; /* its own events come in time order: ticks up to ev->t are safe */
    }
    run_ticks(r, ev->t);
    after_event(r, ev->t);
    if (!r->rebuilding && r->journal) {
        int n = line ? (int)len : cr_feed_line(ev, &r->line, &r->line_cap);
        /* A write error is held and retried by the journal, which reports it. */
        if (n < 0 || cr_journal_append(r->journal, line ? line : r->line, (size_t)n)) {
            r->status = 1;
        }
    }
    bool link = ev->kind == CR_FEED_CONNECT || ev->kind == CR_FEED_DISCONNECT;
    if (link) {
        cr_board_games_set_online(b->games, ev->kind == CR_FEED_CONNECT);
    }
    cr_eboards_feed(r->eboards, ev, b->infer, cr_feed_source_current(r->feeds),
                    line ? cr_agent_link_owner(r->agents, ev->board) : NULL);
    if (cr_board_infer_feed(b->infer, ev)) {
        cr_log(CR_LOG_ERROR, "out of memory");
        r->status = 1;
    }
    cr_board_games_flush(b->games);
    if (link) {
        cr_board_games_link_status(b->games);
    }
    cr_arbiter_link_source_time(r->arb, b->id, ev->t); /* the board's source is at t */
    if (r->source_t < ev->t) {
        r->source_t = ev->t;
    }
}

/* Settling pending moves. The inference only knows time from what it is
 * given, so ticks are a pure function of the event stream: every 100 ms
 * boundary of the feed clock within TICK_SPAN after an event is ticked, in
 * time order before any later event. The timer only does them earlier
 * (never past a source's next event), so a live run, another run of the
 * same feed and a rebuild from the journal settle at the same moments.
 * Each board is ticked only as far as its own source has come (an agent's
 * board: that agent's watermark, however long it is away), so an event
 * of it never arrives behind a tick and is never taken late. A tick that
 * changes the store is journaled ("# tick BOARD T"): a rebuild, which ticks
 * a board only at its own events, ticks it there too, and so ends with what
 * the live relay had, even when the board's last event was a move that the
 * agent's watermark (not journaled) settled. */
static void tick_board(relay *r, board *b, int64_t end)
{
    if (b->ticked == INT64_MIN) {
        return; /* nothing to settle before its first event */
    }
    int64_t lim = b->src_t;
    if (!r->rebuilding) {
        lim = r->agents ? cr_agent_link_board_bound(r->agents, b->id, end) : end;
        if (lim < b->src_t) {
            lim = b->src_t;
        }
    }
    if (end > lim) {
        end = lim;
    }
    int64_t from = b->ticked > r->tick_skip ? b->ticked : r->tick_skip;
    for (int64_t k = (from / TICK_MS + 1) * TICK_MS; k <= end; k += TICK_MS) {
        int before = r->emitted;
        cr_infer_tick(cr_board_infer_engine(b->infer), k);
        cr_board_games_flush(b->games);
        b->ticked = k;
        if (r->emitted != before) {
            cr_jline jl = {.kind = CR_JLINE_TICK, .u.tick.t = k};
            snprintf(jl.u.tick.board, sizeof jl.u.tick.board, "%s", b->id);
            journal_record(r, &jl);
        }
    }
}

static void run_ticks(relay *r, int64_t upto)
{
    int64_t end = upto < r->tick_limit ? upto : r->tick_limit;
    end = end < 0 ? end : end / TICK_MS * TICK_MS;
    for (int i = 0; i < r->nboards; i++) {
        tick_board(r, r->boards[i], end);
    }
    if (r->last_tick < end) {
        r->last_tick = end;
    }
}

/* A journaled tick in a rebuild: the board's source had reached t. */
static void replay_tick(relay *r, const char *id, int64_t t)
{
    board *b = find_board(r, id);
    if (b) {
        if (b->src_t < t) {
            b->src_t = t;
        }
        r->cur_t = t;
        tick_board(r, b, t);
    }
}

static void after_event(relay *r, int64_t t)
{
    int64_t floor = t / TICK_MS * TICK_MS;
    if (r->last_tick < floor) {
        r->last_tick = floor; /* boundaries beyond the span are never ticked */
        r->tick_skip = floor;
    }
    if (r->tick_limit < t + TICK_SPAN) {
        r->tick_limit = t + TICK_SPAN;
    }
}

/* End of all sources: everything pending is settled (journalled, so that a
 * rebuild does the same at the same point). */
static void finish_all(relay *r, int64_t t)
{
    r->cur_t = t;
    run_ticks(r, t);
    for (int i = 0; i < r->nboards; i++) {
        cr_infer_finish(cr_board_infer_engine(r->boards[i]->infer), t);
        cr_board_games_flush(r->boards[i]->games);
    }
    /* With how far the sources had come: time stands there from now on
     * (the arbiters' clocks too), after a restart as well. */
    cr_jline jl = {.kind = CR_JLINE_FINISH, .u.finish = {t, true, r->source_t}};
    journal_record(r, &jl);
}

/*----- commands: results and tags from trusted clients, arbiters' actions -----*/

static void journal_line_of(relay *r, const cr_journal_cmd *c)
{
    cr_jline jl = {.kind = CR_JLINE_CMD, .u.cmd = *c};
    journal_record(r, &jl);
}

/* A RESULT or TAG event of a client, or any event an arbiter's action made
 * (a result, a take-back or a replaced move: CORRECTION and MOVEs, players'
 * names), is journaled as a command line, so that a restart rebuilds it at
 * the same point. tick: the feed ms the boards were ticked to (the rebuild
 * ticks them there first), t: the command's feed time. An arbiter stands
 * behind the event unless `who` is "relay" (a monitor ended the game). */
static void journal_command(relay *r, cr_store_event *ev, const char *who, int64_t tick, int64_t t)
{
    ev->by_arbiter = strcmp(who, "relay") != 0; /* core/round_results.h */
    if (!r->journal || r->rebuilding) {
        return;
    }
    /* at: the event's own stamp (ms), which the rebuild gives it again */
    cr_journal_cmd c;
    if (!cr_journal_cmd_of_event(ev, &c)) {
        return;
    }
    c.at = r->cur_ts / 1000;
    c.tick = tick;
    c.t = t;
    snprintf(c.who, sizeof c.who, "%s", who);
    journal_line_of(r, &c);
}

/* The store events the arbiter link queued during the call that just
 * returned: journaled (with who made them) and applied, without going back
 * to the link. */
static void apply_arbiter_events(relay *r)
{
    cr_store_event *ev;
    char who[64];
    r->applying_arbiter = true;
    r->cur_ts = r->cur_ts / 1000 * 1000; /* whole ms, as journaled */
    while ((ev = cr_arbiter_link_take_event(r->arb, who, sizeof who)) != NULL) {
        journal_command(r, ev, who, r->last_tick, r->cur_t);
        emit(r, ev);
    }
    cr_arbiter_adjust a;
    while (cr_arbiter_link_take_adjust(r->arb, &a)) {
        cr_journal_cmd c = {.kind = CR_JCMD_CLOCK_ADJUST, .game = a.game, .color = a.color,
                            .delta_ms = a.delta_ms, .at = r->cur_ts / 1000, .tick = r->last_tick,
                            .t = a.t};
        snprintf(c.who, sizeof c.who, "%s", a.who);
        journal_line_of(r, &c);
    }
    r->applying_arbiter = false;
}

static void arbiter_publish(void *data, cr_pub *p)
{
    relay *r = data;
    cr_lanes_publish(r->lanes, p);
}

/* A result or tag command of a trusted client: journaled (with the feed
 * times it came at, as an arbiter's) and applied. */
static void apply_command(relay *r, const cr_command_msg *c)
{
    if (!cr_store_find(r->live, c->game)) {
        cr_log(CR_LOG_WARN, "command for unknown game %d ignored", c->game);
        return;
    }
    cr_store_event *ev = cr_store_event_new(c->kind == CR_COMMAND_RESULT ? CR_SEV_RESULT : CR_SEV_TAG);
    if (!ev) {
        return;
    }
    ev->game = c->game;
    if (c->kind == CR_COMMAND_RESULT) {
        ev->result = c->result;
        snprintf(ev->reason, sizeof ev->reason, "arbiter");
    } else {
        snprintf(ev->tag.name, sizeof ev->tag.name, "%s", c->name);
        snprintf(ev->tag.value, sizeof ev->tag.value, "%s", c->value);
    }
    r->cur_ts = r->cur_ts / 1000 * 1000; /* whole ms, as journaled */
    journal_command(r, ev, c->who, r->last_tick, r->cur_t);
    emit(r, ev);
}

/* The arbiter accepts the board's position for a game the inference cannot
 * follow (cr_infer_accept_board): the game goes on from it, the stretch in
 * between is one ply marked missing. Journaled first as
 * "# accept-board <ts us> <feed ms ticked> <t> <side> <game> <board> <who>"
 * so that a rebuild does it at the same point of the event stream. A game
 * that is not on its board now, or a board that shows no position, is
 * refused and the arbiters are told. */
static void accept_board(relay *r, int game, int side, int64_t t, const char *who)
{
    const cr_store_game *g = cr_store_find(r->live, game);
    board *b = g ? find_board(r, g->board) : NULL;
    char why[256] = "";
    if (!g) {
        snprintf(why, sizeof why, "game %d is not known", game);
    } else if (!b || cr_board_games_game(b->games) != game) {
        snprintf(why, sizeof why, "game %d is no longer on its board", game);
    }
    if (!why[0]) {
        cr_jline jl = {.kind = CR_JLINE_ACCEPT_BOARD,
                       .u.accept = {r->cur_ts, r->last_tick, t, side, game, "", ""}};
        snprintf(jl.u.accept.board, sizeof jl.u.accept.board, "%s", b->id);
        snprintf(jl.u.accept.who, sizeof jl.u.accept.who, "%s", who);
        for (char *c = jl.u.accept.who; *c; c++) { /* only logged: one line whatever it holds */
            *c = (unsigned char)*c < ' ' || *c == 0x7f ? '?' : *c;
        }
        if (journal_record(r, &jl)) {
            r->status = 1;
        }
    }
    if (!why[0] && cr_infer_accept_board(cr_board_infer_engine(b->infer), side, t) != 0) {
        snprintf(why, sizeof why, "board %s shows no position to go on from (a king missing or "
                 "doubled, kings side by side, a pawn on its last rank)", b->id);
    }
    if (b) {
        cr_board_games_flush(b->games);
    }
    if (why[0]) {
        cr_log(CR_LOG_WARN, "%s: accept-board refused: %s", who, why);
        if (!r->rebuilding) {
            cr_arbiter_link_alert(r->arb, "accept-board", why, wall_ms());
        }
        return;
    }
    cr_log(CR_LOG_INFO, "%s: game %d goes on from the position on board %s", who, game, b->id);
}

static void replay_accept_board(relay *r, const cr_jline *jl)
{
    r->cur_ts = jl->u.accept.ts_us;
    run_ticks(r, jl->u.accept.tick);
    r->cur_t = jl->u.accept.t;
    accept_board(r, jl->u.accept.game, jl->u.accept.side, jl->u.accept.t, jl->u.accept.who);
}

static void on_commands(evutil_socket_t fd, short what, void *arg)
{
    relay *r = arg;
    cr_command_msg *c;
    while ((c = cr_queue_pop(r->cmds)) != NULL) {
        r->cur_ts = cr_now_us();
        r->cur_t = r->source_t; /* an action at the time the sources have reached */
        if (c->kind == CR_COMMAND_ARBITER) {
            cr_arbiter_link_command(r->arb, &c->arbiter, r->source_t, wall_ms(), NULL, 0);
            apply_arbiter_events(r);
        } else if (c->kind == CR_COMMAND_ACCEPT_BOARD) {
            accept_board(r, c->game, c->side, r->source_t, c->who);
        } else {
            if (c->kind == CR_COMMAND_RESULT) {
                cr_log(CR_LOG_INFO, "%s: game %d result %s", c->who, c->game,
                       cr_result_string(c->result));
            } else {
                cr_log(CR_LOG_INFO, "%s: game %d tag %s", c->who, c->game, c->name);
            }
            apply_command(r, c);
        }
        free(c);
    }
}

static void wake_loop(void *data)
{
    event_active(data, EV_READ, 0);
}

/*----- the pairings file -----*/

static board *find_board(relay *r, const char *id)
{
    for (int i = 0; i < r->nboards; i++) {
        if (strcmp(r->boards[i]->id, id) == 0) {
            return r->boards[i];
        }
    }
    return NULL;
}

/* A pairings game for a board that already stands at the start of a game
 * nobody plays yet (set up before the round was paired): the board moves
 * over, its empty game is left offline. Like the rest, a pure function of
 * the journal, so a rebuild does the same. */
static void pairings_created(void *data, int game, const char *board_id)
{
    board *b = find_board(data, board_id);
    if (b) {
        cr_board_games_paired(b->games, game);
    }
}

/* The pairings in force as /pairings.json, after an import or a replay. */
static void refresh_pairings_json(relay *r)
{
    const cr_pairings *cur = cr_pairings_link_current(r->pairings);
    cr_buf *b = cur ? cr_buf_take_str(cr_pairings_json(cur)) : NULL;
    if (cur && !b) {
        return; /* out of memory: the previous one stays */
    }
    cr_buf_unref(r->pairings_json);
    r->pairings_json = b;
}

/* "# pairings <ts us> <feed ms ticked> <the link's line>": when the import
 * came and how far the boards were ticked then, so that a rebuild applies
 * it at the same point of the event stream. */
static void pairings_journal(void *data, const char *line, size_t len)
{
    relay *r = data;
    cr_jline jl = {.kind = CR_JLINE_PAIRINGS, .u.pairings = {r->cur_ts, r->last_tick, line, len}};
    int rc = journal_record(r, &jl);
    if (rc) {
        cr_log(CR_LOG_ERROR, "journal %s: cannot write the pairings: %s",
               cr_journal_path(r->journal), rc == CR_ENOMEM ? "out of memory" : strerror(errno));
        r->status = 1;
    }
}

static cr_pairings_link *new_pairings_link(relay *r, const char *path)
{
    cr_pairings_link_config pc;
    memset(&pc, 0, sizeof pc);
    pc.path = path;
    pc.format = (cr_pairings_format)r->t->pairings_format;
    pc.round = r->t->pairings_round;
    pc.tournament = r->t;
    pc.store = r->live;
    pc.new_game = new_game_id;
    pc.emit = emit_event;
    pc.created = pairings_created;
    pc.journal = pairings_journal;
    pc.data = r;
    cr_pairings_link *l = cr_pairings_link_new(&pc);
    if (!l) {
        cr_log(CR_LOG_ERROR, "out of memory");
    }
    return l;
}

static void replay_pairings(relay *r, const cr_jline *jl, const char *file, int lineno)
{
    if (!r->pairings) {
        /* Started without the file this time: the journaled pairings still
         * make their games (the boards' games keep their ids), nothing is
         * watched. */
        cr_log(CR_LOG_WARN, "%s:%d: the journal has pairings, but no pairings file is given: "
                            "the journaled ones stay in force", file, lineno);
        r->pairings = new_pairings_link(r, "(journal)");
        if (!r->pairings) {
            r->status = 1;
            return;
        }
    }
    r->cur_ts = jl->u.pairings.ts_us;
    run_ticks(r, jl->u.pairings.tick);
    cr_error err;
    if (cr_pairings_link_replay(r->pairings, jl->u.pairings.text, jl->u.pairings.len, &err)) {
        cr_log(CR_LOG_WARN, "%s:%d: %s (skipped)", file, lineno, err.text);
    } else {
        refresh_pairings_json(r);
    }
}

/* Reads the pairings file now (start, SIGHUP) or when it changed (poll). */
static int import_pairings(relay *r, bool poll)
{
    if (!r->pairings || !r->t->pairings) {
        return 0;
    }
    r->cur_ts = cr_now_us();
    cr_error err;
    int rc = poll ? cr_pairings_link_poll(r->pairings, &err)
                  : cr_pairings_link_import(r->pairings, &err);
    if (rc < 0) {
        cr_log(CR_LOG_ERROR, "pairings: %s%s", err.text,
               cr_pairings_link_current(r->pairings) ? " (the pairings read before stay in force)"
                                                     : "");
        publish_stats(r);
    } else if (rc > 0) {
        refresh_pairings_json(r);
        publish_stats(r);
    }
    return rc;
}

static void on_reload(evutil_socket_t fd, short what, void *arg)
{
    cr_log(CR_LOG_INFO, "SIGHUP: reading the pairings file");
    import_pairings(arg, false);
}

/*----- sources: feed files on the feed clock -----*/

/* Restart: a board's first events are in the journal already. */
static bool feed_skip(void *data, const cr_feed_event *ev)
{
    board *b = get_board(data, ev->board);
    if (b && b->skip > 0) {
        b->skip--;
        return true;
    }
    return false;
}

static void feed_file_event(void *data, const cr_feed_event *ev)
{
    relay *r = data;
    r->cur_ts = cr_now_us();
    feed_event(r, ev, NULL, 0);
}

static void feed_file_done(void *data, const char *path)
{
    (void)data;
    cr_log(CR_LOG_INFO, "%s: played to the end", path);
}

static void feeds_done(void *data)
{
    relay *r = data;
    if (!r->live_boards) { /* live boards never end */
        r->cur_ts = cr_now_us();
        finish_all(r, feed_now(r));
        r->finished = true;
        if (r->cfg->exit_at_end) {
            event_base_loopexit(r->base, NULL);
        }
    }
}

static int open_feeds(relay *r)
{
    const cr_loop_config *cfg = r->cfg;
    int n = cfg->feed_count + r->t->feed_count;
    if (n == 0) {
        return 0;
    }
    const char **paths = calloc((size_t)n, sizeof *paths);
    if (!paths) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        paths[i] = i < cfg->feed_count ? cfg->feeds[i] : r->t->feeds[i - cfg->feed_count];
    }
    cr_feed_source_config fc = {.clock = &r->clock,
                                .skip = feed_skip,
                                .event = feed_file_event,
                                .file_done = feed_file_done,
                                .done = feeds_done,
                                .data = r};
    cr_error err;
    r->feeds = cr_feed_source_new(r->base, paths, n, &fc, &err);
    free(paths);
    if (!r->feeds) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    return 0;
}

/*----- sources: live boards on the feed clock -----*/

static int64_t board_clock(void *data)
{
    return feed_now(data);
}

/* Same path as a file source's event: journalled as `record` writes it, then
 * inferred (RAW decoded here as on a rebuild, so both give the same games). */
static void on_board_event(void *data, const cr_feed_event *ev)
{
    relay *r = data;
    r->cur_ts = cr_now_us();
    feed_event(r, ev, NULL, 0);
}

/* A link came up, went silent or was lost: /metrics at once. */
static void on_board_state(void *data, const char *name, const cr_dgt_health *health)
{
    cr_eboards_health(((relay *)data)->eboards, name, health);
    publish_stats(data);
}

static int start_live_boards(relay *r)
{
    const cr_loop_config *cfg = r->cfg;
    int n = cfg->serial_count + r->t->device_count;
    if (n == 0 && !cfg->usb && !r->t->usb) {
        return 0;
    }
    const char **paths = calloc((size_t)n + 1, sizeof *paths);
    if (!paths) {
        return -1;
    }
    for (int i = 0; i < n; i++) {
        paths[i] = i < cfg->serial_count ? cfg->serials[i] : r->t->devices[i - cfg->serial_count];
    }
    cr_board_sources_config bc;
    memset(&bc, 0, sizeof bc);
    bc.serials = paths;
    bc.serial_count = n;
    bc.usb = cfg->usb || r->t->usb;
    bc.kind = (cr_board_kind)cfg->board_kind;
    bc.state_dir = cfg->state_dir;
    bc.clock = board_clock;
    bc.event = on_board_event;
    bc.state = on_board_state;
    bc.data = r;
    cr_error err;
    r->live_boards = cr_board_sources_start(r->base, &bc, &err);
    free(paths);
    if (!r->live_boards) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    cr_log(CR_LOG_INFO, "live boards: %d link(s)%s", cr_board_sources_count(r->live_boards),
           bc.usb ? " + USB" : "");
    return 0;
}

/*----- venue agents: their events enter like any other -----*/

static uint64_t agent_feed(void *data, const cr_feed_event *ev, const char *text, size_t len)
{
    relay *r = data;
    r->cur_ts = cr_now_us();
    uint64_t before = r->journal ? cr_journal_appended(r->journal) : 0;
    if (ev) {
        feed_event(r, ev, text, len);
    } else if (r->journal) {
        cr_journal_append(r->journal, text, len);
    }
    /* The line's position, or 0 if the journal did not take it. */
    uint64_t after = r->journal ? cr_journal_appended(r->journal) : 0;
    return after > before ? after : 0;
}

static int64_t agent_clock(void *data)
{
    return feed_now(data);
}

/* A source refused a board another one owns: the arbiters hear of it once
 * per board and source (the log and /metrics have the rest). */
static void agent_refused(void *data, const char *board_id, const char *source, const char *owner)
{
    relay *r = data;
    char text[300];
    snprintf(text, sizeof text, "board %s: events of %s%s refused: %s%s fed it first", board_id,
             source[0] ? "agent " : "the relay's own source", source,
             owner[0] ? "agent " : "the relay's own source", owner);
    cr_arbiter_link_alert(r->arb, "board-owner", text, wall_ms());
}

static bool wants_agents(const cr_loop_config *cfg)
{
    for (int i = 0; i < cfg->tournament->token_count; i++) {
        if (strcmp(cfg->tournament->tokens[i].role, "agent") == 0) {
            return true;
        }
    }
    return cfg->agent_token != NULL;
}

/*----- the journal: rebuild -----*/

/* A command line of the journal applied again at the point it was written
 * (the boards ticked as far as they were then, the event stamped with its
 * time); one that cannot be applied is reported, never dropped silently. */
static void journal_command_line(relay *r, const cr_journal_cmd *jc, const char *where)
{
    if (!cr_store_find(r->live, jc->game)) {
        cr_log(CR_LOG_WARN, "journal: %s: command for unknown game %d ignored", where, jc->game);
        return;
    }
    if (jc->tick >= 0) {
        run_ticks(r, jc->tick);
    }
    if (jc->t >= 0) { /* as live: the sources had reached t, the action came then */
        if (r->source_t < jc->t) {
            r->source_t = jc->t;
            cr_arbiter_link_source_time(r->arb, NULL, jc->t);
        }
        r->cur_t = jc->t;
    }
    if (jc->at > 0) {
        r->cur_ts = jc->at * 1000;
    }
    if (jc->kind == CR_JCMD_CLOCK_ADJUST) {
        cr_arbiter_link_adjust_clock(r->arb, jc->game, jc->color, jc->delta_ms, r->cur_t);
        return;
    }
    char fault[160];
    cr_store_event *ev = cr_journal_cmd_event(jc, r->live, fault, sizeof fault);
    if (!ev) {
        r->journal_bad_lines++;
        cr_log(CR_LOG_ERROR, "journal: %s: %s", where, fault);
        return;
    }
    ev->by_arbiter = strcmp(jc->who, "relay") != 0; /* as when it was journaled */
    emit(r, ev);
}

/* A feed line of the journal, fed again (the same events from the sources
 * are skipped: feed_skip). */
static int replay_feed_line(relay *r, const char *line, size_t len, const char *file, int lineno)
{
    size_t scratch_size = len + 1;
    char *scratch = malloc(scratch_size);
    if (!scratch) {
        return CR_ENOMEM;
    }
    cr_feed_event ev;
    cr_error err;
    int rc = cr_feed_parse_line(line, len, &ev, scratch, scratch_size, &err);
    if (rc == 1) {
        r->cur_ts = ev.t * 1000;
        board *b = get_board(r, ev.board);
        if (b) {
            b->skip++;
        }
        feed_event(r, &ev, NULL, 0);
    } else if (rc < 0) {
        cr_log(CR_LOG_WARN, "%s:%d: %s (skipped)", file, lineno, err.text);
    }
    free(scratch);
    return 0;
}

/* One journal line, done again as it was done live: a dispatch over its
 * record type (core/journal_lines.h). A record that cannot be read is
 * reported and counted, never dropped silently. */
static int on_journal_line(void *data, const char *line, size_t len, const char *file, int lineno)
{
    relay *r = data;
    cr_jline jl;
    char why[160], where[160];
    snprintf(where, sizeof where, "%s:%d", file, lineno);
    if (cr_jline_parse(line, len, &jl, why, sizeof why)) {
        r->journal_bad_lines++;
        cr_log(CR_LOG_ERROR, "journal: %s: %s: %.*s", where, why, (int)(len < 200 ? len : 200), line);
        return 0;
    }
    switch (jl.kind) {
    case CR_JLINE_FEED:
        return replay_feed_line(r, line, len, file, lineno);
    case CR_JLINE_BOARD:
        if (!find_board(r, jl.u.board.id) && !new_board(r, jl.u.board.id, jl.u.board.table)) {
            return CR_ENOMEM;
        }
        break;
    case CR_JLINE_EPOCH:
        if (!r->clock.epoch_ms) {
            r->clock.epoch_ms = jl.u.epoch.ms;
        }
        break;
    case CR_JLINE_TICK:
        r->cur_ts = jl.u.tick.t * 1000;
        replay_tick(r, jl.u.tick.board, jl.u.tick.t);
        break;
    case CR_JLINE_FINISH:
        r->cur_ts = jl.u.finish.t * 1000;
        finish_all(r, jl.u.finish.t);
        if (jl.u.finish.has_reach) { /* older journals do not say */
            r->source_t = jl.u.finish.reach;
            r->reach_journaled = true;
        }
        break;
    case CR_JLINE_ACCEPT_BOARD:
        replay_accept_board(r, &jl);
        break;
    case CR_JLINE_PAIRINGS:
        replay_pairings(r, &jl, file, lineno);
        break;
    case CR_JLINE_CMD:
        journal_command_line(r, &jl.u.cmd, where);
        break;
    default: /* "# game" (for `journal export`), the agents' records, other comments */
        break;
    }
    return 0;
}

static int rebuild(relay *r)
{
    cr_journal_stats st;
    cr_error err;
    set_rebuilding(r, true);
    int64_t t0 = cr_mono_us();
    int rc = cr_journal_replay(r->cfg->state_dir, on_journal_line, r, &st, &err);
    if (rc) {
        cr_log(CR_LOG_ERROR, "journal: %s", rc == CR_EIO ? err.text : cr_strerror(rc));
        return -1;
    }
    cr_lanes_tick(r->lanes, cr_now_us());
    set_rebuilding(r, false);
    cr_seal_sound_note("journal", st.bad == 0);
    if (st.bad) {
        /* Rebuilt as the files say, but they are not what was written. */
        r->journal_bad_lines += st.bad;
        char text[400];
        snprintf(text, sizeof text,
                 "journal: NOT SOUND: %ld problem(s), the first at %s:%d: %s (check with "
                 "`chessrelay journal verify %s`)",
                 st.bad, st.bad_file, st.bad_line, st.bad_why, r->cfg->state_dir);
        cr_log(CR_LOG_ERROR, "%s", text);
        cr_arbiter_link_alert(r->arb, "journal-not-sound", text, wall_ms());
        snprintf(text, sizeof text, "%ld problem(s), the first at line %d: %s", st.bad,
                 st.bad_line, st.bad_why);
        cr_arbiter_link_tamper(r->arb, st.bad_file, text, wall_ms()); /* until acknowledged */
    }
    if (st.files) {
        cr_log(CR_LOG_INFO,
               "journal: %d file(s), %ld lines, %d torn line(s) dropped: %d games, seq %" PRId64
               " (%.1f ms)",
               st.files, st.lines, st.torn, cr_store_game_count(r->live), r->seq,
               (double)(cr_mono_us() - t0) / 1000.0);
    }
    cr_lanes_publish_states(r->lanes);
    return 0;
}

/*----- timers and signals -----*/

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    relay *r = arg;
    r->cur_ts = cr_now_us();
    if (!r->finished) {
        /* never past a source's next event: ticks at t come before it */
        int64_t bound = feed_now(r);
        int64_t next = cr_feed_source_next_t(r->feeds);
        if (next < bound) {
            bound = next;
        }
        if (r->agents) {
            bound = cr_agent_link_tick_bound(r->agents, bound); /* agents' watermarks */
        }
        run_ticks(r, bound);
        /* Every source has reached bound (the feeds' next event, the
         * agents' watermarks, the live boards now). Once the sources have
         * ended, time stands: a clock is never run down past its feed. */
        if (r->source_t < bound) {
            r->source_t = bound;
            cr_arbiter_link_source_time(r->arb, NULL, bound);
        }
    }
    r->cur_t = r->source_t;
    cr_arbiter_link_tick(r->arb, r->source_t, wall_ms());
    apply_arbiter_events(r);
    cr_lanes_tick(r->lanes, cr_now_us());
    cr_outputs_flush(r->outputs, cr_lanes_public(r->lanes));
}

static void on_sync(evutil_socket_t fd, short what, void *arg)
{
    relay *r = arg;
    if (r->journal) {
        cr_journal_sync(r->journal); /* it retries held lines and reports a failure once */
    }
    if (r->agents) { /* acks what is now durable */
        cr_agent_link_synced(r->agents, r->journal ? cr_journal_durable(r->journal) : UINT64_MAX);
    }
}

static void on_stats(evutil_socket_t fd, short what, void *arg)
{
    import_pairings(arg, true); /* the pairings file watched: once a second is enough */
    publish_stats(arg);
}

/* The signal watcher closes the publication queue first, so
 * that a loop thread waiting there for room (a stalled server thread)
 * returns to its loop. */
static void stop_publishing(void *data)
{
    cr_queue_close(data);
}

static void free_pub(void *p)
{
    cr_pub_free(p);
}

static void free_relay(relay *r)
{
    cr_board_sources_free(r->live_boards); /* before the boards and the base it uses */
    struct event *evs[] = {r->tick_ev, r->sync_ev, r->stats_ev, r->cmd_ev, r->reload_ev};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        if (evs[i]) {
            event_free(evs[i]);
        }
    }
    cr_feed_source_free(r->feeds);
    cr_eboards_free(r->eboards); /* before the boards it watches */
    for (int i = 0; i < r->nboards; i++) {
        cr_board_infer_free(r->boards[i]->infer);
        cr_board_games_free(r->boards[i]->games);
        free(r->boards[i]);
    }
    free(r->boards);
    cr_outputs_free(r->outputs); /* before the event_base */
    cr_evals_free(r->evals);     /* kills and reaps the engines; before the base */
    cr_pairings_link_free(r->pairings);
    cr_buf_unref(r->pairings_json);
    cr_round_results_free(r->results);
    cr_arbiter_link_free(r->arb);
    cr_lanes_free(r->lanes); /* after the arbiter link, which reads its live store */
    cr_journal_close(r->journal);
    free(r->line);
    if (r->base) {
        event_base_free(r->base);
    }
}

/* Engine evaluations (engine/evals.h): the engines niced and SCHED_IDLE,
 * so that the relay's own work comes first. Returns 0 or -1 (logged). */
static int start_evals(relay *r)
{
    const cr_config_engine *e = &r->t->engine;
    cr_evals_config ec = {.base = r->base,
                          .engine = e,
                          .lanes = r->lanes,
                          .nice = 10,
                          .idle = e->idle,
                          .evaluated = on_evaluated,
                          .data = r};
    cr_error err;
    r->evals = cr_evals_new(&ec, &err);
    if (!r->evals) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    cr_lanes_set_pgn_evals(r->lanes, e->pgn_http);
    cr_outputs_set_evals(r->outputs, e->pgn_push, e->pgn_export);
    cr_log(CR_LOG_INFO, "engine %s: %d process(es), %d thread(s) each, %s %d", e->path,
           e->processes, e->threads, e->movetime_ms > 0 ? "movetime_ms" : "depth",
           e->movetime_ms > 0 ? e->movetime_ms : e->depth);
    return 0;
}

/* The loop's base, queues, lanes, outputs and pairings link, and the
 * signal watcher started. Returns 0 or -1 (logged). */
static int loop_init(relay *r, cr_sigwatch *sw)
{
    r->base = event_base_new();
    r->pubs = cr_queue_new(PUB_QUEUE, NULL, NULL);
    r->cmds = cr_queue_new(CMD_QUEUE, NULL, NULL);
    if (r->base && r->pubs) {
        cr_lanes_config lc = {.delay_s = r->t->delay_s,
                              .pubs = r->pubs,
                              .base = r->base,
                              .live_event = on_live_event,
                              .public_event = on_public_event,
                              .data = r};
        r->lanes = cr_lanes_new(&lc);
    }
    if (!r->base || !r->lanes || !r->pubs || !r->cmds) {
        cr_log(CR_LOG_ERROR, "out of memory");
        return -1;
    }
    r->live = cr_lanes_live(r->lanes);
    games_config(r);
    cr_eboards_config ec = {.publish = arbiter_publish, .data = r}; /* the LiveChess API */
    if (r->t->livechess && !(r->eboards = cr_eboards_new(&ec))) {
        return -1;
    }
    r->cmd_ev = event_new(r->base, -1, 0, on_commands, r);
    cr_queue_set_wake(r->cmds, wake_loop, r->cmd_ev);

    /* pushes of each round's public PGN and the export folder */
    cr_pusher_config push_cfg = {.ca_file = r->t->push_ca_file};
    r->outputs = cr_outputs_new(r->base, r->t->export_dir, &push_cfg);
    if (!r->outputs) {
        cr_log(CR_LOG_ERROR, "out of memory");
        return -1;
    }
    for (int i = 0; i < r->t->push_count; i++) {
        const cr_config_push *pu = &r->t->pushes[i];
        if (cr_outputs_set_push(r->outputs, pu->round, pu->url, pu->token)) {
            return -1; /* logged by the pusher */
        }
    }
    cr_outputs_set_event(r->outputs, r->t->event);
    if (r->t->pgn_bare) { /* "pgn": {"marks": false} */
        cr_lanes_set_pgn_marks(r->lanes, false);
        cr_outputs_set_pgn_marks(r->outputs, false);
    }
    if (r->t->engine.path && start_evals(r)) {
        return -1;
    }
    r->results = cr_round_results_new();
    if (r->t->pairings) {
        r->pairings = new_pairings_link(r, r->t->pairings);
        r->reload_ev = event_new(r->base, -1, 0, on_reload, r);
        if (!r->pairings || !r->reload_ev) {
            return -1;
        }
    }
    if (cr_sigwatch_start(sw, r->base, stop_publishing, r->pubs, r->reload_ev)) {
        cr_log(CR_LOG_ERROR, "cannot start the signal thread");
        return -1;
    }
    return 0;
}

/* The server (with the arbiter link and the agents' link), first, so that
 * /healthz answers (503) during the rebuild. */
static int start_server(relay *r)
{
    const cr_loop_config *cfg = r->cfg;
    cr_loop_server_args sa = {r->t, r->pubs, r->cmds, .port_file = cfg->port_file};
    cr_arbiter_link_config acfg = {.store = r->live,
                                   .state_dir = cfg->state_dir,
                                   .time_control = r->t->time_control,
                                   .press_without_move = r->t->press_without_move,
                                   .move_without_press = r->t->move_without_press,
                                   .time_added = r->t->time_added,
                                   .publish = arbiter_publish,
                                   .data = r};
    r->arb = cr_arbiter_link_new(&acfg);
    sa.arbiter = r->arb != NULL;
    cr_error err;
    if (wants_agents(cfg)) {
        cr_agent_link_config gcfg = {cfg->agent_token, r->t, cfg->state_dir, r->clock.speed};
        r->agents = cr_agent_link_new(&gcfg, &err);
        if (!r->agents) {
            cr_log(CR_LOG_ERROR, "agents: %s", err.text);
            return -1;
        }
        sa.agents = r->agents;
    }
    r->server = cfg->server->start(&sa, &err);
    if (!r->server) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    /* Not ready (503 on /healthz) until the journals are read. */
    set_rebuilding(r, true);
    publish_stats(r);
    set_rebuilding(r, false);
    return 0;
}

/* NATS, the journal read back and a new one opened, the feed clock's
 * epoch, the arbiter monitors, the pairings. */
static int start_state(relay *r)
{
    const cr_loop_config *cfg = r->cfg;
    cr_error err;
    if (cfg->publish && cfg->publish->url) {
        r->nats = cr_nats_out_start(cfg->publish, r->base, r->t->event, r->t->delay_s, &err);
        if (!r->nats) {
            cr_log(CR_LOG_ERROR, "%s", err.text);
            return -1;
        }
    }
    if (cfg->state_dir) {
        if (rebuild(r)) {
            return -1;
        }
        r->journal = cr_journal_open(cfg->state_dir, &err);
        if (!r->journal) {
            cr_log(CR_LOG_ERROR, "%s", err.text);
            return -1;
        }
        cr_log(CR_LOG_INFO, "journal: writing %s", cr_journal_path(r->journal));
    }
    if (!r->clock.epoch_ms) {
        r->clock.epoch_ms = wall_ms();
    }
    if (r->source_t < r->last_tick && !r->reach_journaled) {
        r->source_t = r->last_tick; /* the rebuild's sources reached that far */
    }
    if (r->arb && cr_arbiter_link_start(r->arb, r->source_t, wall_ms(), &err)) {
        cr_log(CR_LOG_ERROR, "%s", err.text);
        return -1;
    }
    cr_jline epoch = {.kind = CR_JLINE_EPOCH, .u.epoch.ms = r->clock.epoch_ms};
    journal_record(r, &epoch);
    /* The pairings before any board: their games are there when viewers come. */
    if (r->t->pairings && import_pairings(r, false) < 0 &&
        !cr_pairings_link_current(r->pairings)) {
        cr_log(CR_LOG_ERROR, "pairings: no pairings to start with (fix %s, or start without it)",
               r->t->pairings);
        return -1;
    }
    publish_stats(r);
    return 0;
}

/* Agents, feed files and live boards, then the timers. */
static int start_sources(relay *r)
{
    if (r->agents && cr_agent_link_attach(r->agents, r->base, agent_feed, agent_clock, r,
                                          r->journal != NULL)) {
        return -1;
    }
    if (r->agents) {
        cr_agent_link_on_refused(r->agents, agent_refused, r);
    }
    if (open_feeds(r)) {
        return -1;
    }
    if (start_live_boards(r)) { /* first: a file source done at once must not finish them */
        return -1;
    }
    if (r->feeds) {
        cr_feed_source_start(r->feeds);
    }
    struct timeval tick = {0, TICK_MS * 1000};
    int fsync_ms = r->t->fsync_ms > 0 ? r->t->fsync_ms : 100;
    struct timeval sync = {fsync_ms / 1000, (fsync_ms % 1000) * 1000};
    struct timeval second = {1, 0};
    r->tick_ev = event_new(r->base, -1, EV_PERSIST, on_tick, r);
    r->sync_ev = event_new(r->base, -1, EV_PERSIST, on_sync, r);
    r->stats_ev = event_new(r->base, -1, EV_PERSIST, on_stats, r);
    event_add(r->tick_ev, &tick);
    event_add(r->sync_ev, &sync);
    event_add(r->stats_ev, &second);
    return 0;
}

/* Stops everything in order and frees it. */
static void stop_relay(relay *r, cr_sigwatch *sw)
{
    if (r->nats) {
        /* The drain runs the loop once more: no feed input, ticks or stats. */
        struct event *evs[] = {r->tick_ev, r->stats_ev};
        for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
            if (evs[i]) {
                event_del(evs[i]);
            }
        }
        cr_feed_source_stop(r->feeds);
    }
    cr_nats_out_stop(r->nats); /* runs the loop a while for the last acks */
    if (r->server) {
        r->cfg->server->stop(r->server);
    }
    cr_agent_link_free(r->agents); /* before its event's base */
    cr_sigwatch_free(sw);          /* a second signal forces the exit until here */
    cr_queue_free(r->pubs, free_pub);
    cr_queue_free(r->cmds, free);
    free_relay(r);
}

int cr_loop_run(const cr_loop_config *cfg)
{
    relay rs, *r = &rs;
    memset(r, 0, sizeof *r);
    r->cfg = cfg;
    r->t = cfg->tournament;
    r->clock.speed = cfg->speed > 0 ? cfg->speed : 1.0;
    /* Before any thread is made; SIGHUP re-reads the pairings file, else
     * it ends the relay as ever. */
    cr_sigwatch *sw = cr_sigwatch_new(r->t->pairings != NULL);
    if (!sw) {
        cr_log(CR_LOG_ERROR, "out of memory");
        return 1;
    }
    int status = 1;
    if (loop_init(r, sw) == 0 && start_server(r) == 0 && start_state(r) == 0 &&
        start_sources(r) == 0) {
        signal(SIGPIPE, SIG_IGN);
        if (event_base_dispatch(r->base) < 0) {
            cr_log(CR_LOG_ERROR, "event loop failed");
        } else {
            if (cr_sigwatch_signal(sw)) {
                cr_log(CR_LOG_INFO, "signal %d: stopping (a second one forces the exit)",
                       cr_sigwatch_signal(sw));
            }
            status = r->status;
        }
    }
    stop_relay(r, sw);
    return status;
}
