/* chessrelay relay: engine evaluations of the games (see evals.h). */
#define _GNU_SOURCE /* strcasestr */
#include "engine/evals.h"

#include <stdlib.h>
#include <string.h>

#include "cr/notation.h"
#include "util/grow.h"
#include "util/log.h"

typedef struct want {
    int game, ply;
    bool live; /* asked for the live lane (engine.live), not yet public */
    char fen[CR_FEN_MAX];
} want;

struct cr_evals {
    cr_evals_config cfg;
    cr_config_engine engine;
    cr_engine_pool *pool;
    want *wants; /* positions asked for and not answered yet */
    int nwants;
    size_t capwants;
    const cr_store *public_store; /* the public store of the last event */
};

/* Same position: FENs equal up to the fourth field (the counters aside). */
static bool same_position(const char *a, const char *b)
{
    for (int spaces = 0; *a && *a == *b; a++, b++) {
        if (*a == ' ' && ++spaces == 4) {
            return true;
        }
    }
    return *a == *b;
}

/* A line of UCI moves from pos into SAN (as far as it is legal), cut at a
 * move to fit size; best (may be NULL) gets its first move. Returns the
 * moves written. */
static int san_line(cr_position pos, const char *uci, char *out, size_t size, char *best,
                    size_t best_size)
{
    char pv[CR_UCI_PV_MAX];
    snprintf(pv, sizeof pv, "%s", uci);
    size_t n = 0;
    int moves = 0;
    out[0] = '\0';
    char *save = NULL;
    for (char *w = strtok_r(pv, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        /* both castling forms: e1g1, and king-takes-rook (Chess960, uci.h) */
        cr_move m = cr_move_from_uci(&pos, w);
        char san[CR_SAN_MAX];
        if (m == CR_MOVE_NONE || !cr_is_legal(&pos, m) ||
            cr_move_to_san(&pos, m, san, sizeof san) < 0) {
            break;
        }
        size_t k = strlen(san);
        if (n + k + 2 > size) {
            break;
        }
        if (n == 0) {
            if (best) {
                snprintf(best, best_size, "%s", san);
            }
        } else {
            out[n++] = ' ';
        }
        memcpy(out + n, san, k + 1);
        n += k;
        moves++;
        cr_position_do_move(&pos, m);
    }
    return moves;
}

int cr_evals_from_uci(const char *fen, const cr_uci_result *r, cr_eval *e)
{
    cr_position pos;
    cr_error err;
    if (r->depth <= 0 || cr_position_from_fen(&pos, fen, &err)) {
        return CR_EINVAL;
    }
    memset(e, 0, sizeof *e);
    e->depth = r->depth;
    e->mate = r->mate;
    int sign = pos.side == CR_WHITE ? 1 : -1;
    e->value = sign * r->value;
    san_line(pos, r->pv[0] ? r->pv : r->best, e->pv, sizeof e->pv, e->best, sizeof e->best);
    /* multipv: the other lines that have a legal first move, in order */
    int k = 0;
    for (int i = 0; i < r->nlines - 1 && i < CR_UCI_LINES_MAX - 1 && k < CR_EVAL_LINES_MAX - 1;
         i++) {
        const cr_uci_line *l = &r->more[i];
        cr_eval_line *o = &e->more[k];
        if (l->depth <= 0 || san_line(pos, l->pv, o->pv, sizeof o->pv, NULL, 0) == 0) {
            continue;
        }
        o->depth = l->depth;
        o->mate = l->mate;
        o->value = sign * l->value;
        k++;
    }
    e->nlines = k ? k + 1 : 0;
    return 0;
}

/* A score for swings: centipawns clamped to +-1000, a mate as 1000. */
static int swing_score(const cr_eval *e)
{
    if (e->mate) {
        return e->value > 0 ? 1000 : -1000;
    }
    return e->value > 1000 ? 1000 : e->value < -1000 ? -1000 : e->value;
}

int cr_evals_nag(const cr_eval *before, const cr_eval *after, int mover, int mistake_cp,
                 int blunder_cp)
{
    if (!before || !after || (mistake_cp <= 0 && blunder_cp <= 0)) {
        return 0;
    }
    int loss = swing_score(before) - swing_score(after);
    if (mover == CR_BLACK) {
        loss = -loss;
    }
    if (blunder_cp > 0 && loss >= blunder_cp) {
        return 4;
    }
    if (mistake_cp > 0 && loss >= mistake_cp) {
        return 2;
    }
    return 0;
}

/* The mover of ply `ply` of g. */
static int mover(const cr_store_game *g, int ply)
{
    return cr_game_position_at(g->game, ply)->side;
}

/* Sets e (its NAG made here, from the live store: it has every eval the
 * public one has) for game/ply on the lanes that have that position, then
 * redoes the next ply's NAG, which depends on this one. */
static void set_eval(cr_evals *x, int game, int ply, const char *fen, cr_eval *e)
{
    const cr_store *live = cr_lanes_live(x->cfg.lanes);
    const cr_store *public_store = cr_lanes_public(x->cfg.lanes);
    const cr_store_game *g = cr_store_find(live, game);
    if (!g || ply >= cr_game_ply_count(g->game)) {
        return;
    }
    const cr_eval *before = ply > 0 ? cr_store_eval(g, ply - 1) : NULL;
    e->nag = cr_evals_nag(before, e, mover(g, ply), x->engine.mistake_cp, x->engine.blunder_cp);
    unsigned lanes = cr_lanes_set_eval(x->cfg.lanes, game, ply, fen, e);
    if ((lanes & CR_LANE_PUBLIC) && x->cfg.evaluated) {
        x->cfg.evaluated(x->cfg.data, public_store, game, ply);
    }
    g = lanes ? cr_store_find(live, game) : NULL;
    const cr_eval *next = g ? cr_store_eval(g, ply + 1) : NULL;
    if (next) {
        cr_eval n = *next;
        int nag =
            cr_evals_nag(e, &n, mover(g, ply + 1), x->engine.mistake_cp, x->engine.blunder_cp);
        if (nag != n.nag) {
            char nfen[CR_FEN_MAX];
            cr_position_to_fen(&cr_game_ply(g->game, ply + 1)->after, nfen, sizeof nfen);
            n.nag = nag;
            if ((cr_lanes_set_eval(x->cfg.lanes, game, ply + 1, nfen, &n) & CR_LANE_PUBLIC) &&
                x->cfg.evaluated) {
                x->cfg.evaluated(x->cfg.data, public_store, game, ply + 1);
            }
        }
    }
}

static void on_result(void *data, const char *fen, const cr_uci_result *r)
{
    cr_evals *x = data;
    cr_eval e;
    bool ok = cr_evals_from_uci(fen, r, &e) == 0;
    for (int i = 0; i < x->nwants;) {
        if (!same_position(x->wants[i].fen, fen)) {
            i++;
            continue;
        }
        want w = x->wants[i];
        x->wants[i] = x->wants[--x->nwants]; /* before set_eval, which may ask again */
        if (ok) {
            cr_eval copy = e;
            set_eval(x, w.game, w.ply, w.fen, &copy);
        }
    }
}

cr_evals *cr_evals_new(const cr_evals_config *cfg, cr_error *err)
{
    cr_evals *x = calloc(1, sizeof *x);
    if (!x) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    x->cfg = *cfg;
    x->engine = *cfg->engine;
    x->engine.path = NULL; /* the pool keeps its own copy */
    cr_engine_pool_config pc = {.base = cfg->base,
                                .path = cfg->engine->path,
                                .processes = cfg->engine->processes,
                                .threads = cfg->engine->threads,
                                .hash_mb = cfg->engine->hash_mb,
                                .multipv = cfg->engine->multipv,
                                .movetime_ms = cfg->engine->movetime_ms,
                                .depth = cfg->engine->depth,
                                .nice = cfg->nice,
                                .idle = cfg->idle,
                                .result = on_result,
                                .data = x};
    x->pool = cr_engine_pool_new(&pc, err);
    if (!x->pool) {
        free(x);
        return NULL;
    }
    return x;
}

void cr_evals_free(cr_evals *x)
{
    if (!x) {
        return;
    }
    cr_engine_pool_free(x->pool);
    free(x->wants);
    free(x);
}

static void forget_game(cr_evals *x, int game, int from_ply, bool live)
{
    for (int i = 0; i < x->nwants;) {
        if (x->wants[i].game == game && x->wants[i].ply >= from_ply && x->wants[i].live == live) {
            x->wants[i] = x->wants[--x->nwants];
        } else {
            i++;
        }
    }
}

/* A Chess960 game: a start position that is one (its castling rooks not
 * the a/h ones, or a 960 set-up other than the standard one), or a
 * Variant tag that says so (the standard set-up drawn in a 960 event). */
static bool is_chess960(const cr_game *g)
{
    if (cr_game_start(g)->chess960) {
        return true;
    }
    const char *v = cr_game_tag(g, "Variant");
    return v && (strstr(v, "960") || strcasestr(v, "fischer") || strcasestr(v, "freestyle"));
}

/* A lane's event: a move's position asked for (priority: its seq; below
 * every public one for the live lane), a correction's plies forgotten. */
static void lane_event(cr_evals *x, const cr_store *store, const cr_store_event *ev, bool live)
{
    if (ev->kind == CR_SEV_CORRECTION) {
        forget_game(x, ev->game, ev->ply, live);
        return;
    }
    if (ev->kind != CR_SEV_MOVE || (ev->move.flags & CR_PLY_ILLEGAL)) {
        return;
    }
    const cr_store_game *g = cr_store_find(store, ev->game);
    if (!g || ev->ply >= cr_game_ply_count(g->game)) {
        return;
    }
    const cr_position *pos = &cr_game_ply(g->game, ev->ply)->after;
    if (cr_count_legal(pos) == 0) {
        return; /* mate or stalemate: the board says it all */
    }
    want *n = cr_grow(x->wants, &x->capwants, (size_t)x->nwants + 1, sizeof *n, 64);
    if (!n) {
        return;
    }
    x->wants = n;
    want w = {.game = ev->game, .ply = ev->ply, .live = live};
    if (cr_position_to_fen(pos, w.fen, sizeof w.fen) < 0) {
        return;
    }
    x->wants[x->nwants++] = w;
    /* w.fen, not the array's: a cached answer comes back at once and
     * moves the array's entries */
    int64_t prio = live ? ev->seq - ((int64_t)1 << 48) : ev->seq;
    if (cr_engine_pool_want(x->pool, w.fen, is_chess960(g->game), prio) != 0) {
        for (int i = 0; i < x->nwants; i++) {
            if (x->wants[i].game == ev->game && x->wants[i].ply == ev->ply &&
                x->wants[i].live == live) {
                x->wants[i] = x->wants[--x->nwants];
                break;
            }
        }
    }
}

void cr_evals_public_event(cr_evals *x, const cr_store *public_store, const cr_store_event *ev)
{
    if (x) {
        lane_event(x, public_store, ev, false);
    }
}

void cr_evals_live_event(cr_evals *x, const cr_store *live, const cr_store_event *ev)
{
    /* Without a delay the live lane is the public one: its events come here
     * through cr_evals_public_event. */
    if (x && x->engine.live && cr_lanes_live(x->cfg.lanes) != cr_lanes_public(x->cfg.lanes)) {
        lane_event(x, live, ev, true);
    }
}

void cr_evals_get_stats(const cr_evals *x, cr_engine_pool_stats *st)
{
    cr_engine_pool_get_stats(x->pool, st);
}

void cr_evals_metrics(const cr_evals *x, FILE *f)
{
    cr_engine_pool_stats st;
    cr_evals_get_stats(x, &st);
    fprintf(f,
            "# HELP chessrelay_engine_positions_analysed_total Positions an engine analysed.\n"
            "# TYPE chessrelay_engine_positions_analysed_total counter\n"
            "chessrelay_engine_positions_analysed_total %llu\n"
            "# HELP chessrelay_engine_positions_cached_total Positions answered from the cache.\n"
            "# TYPE chessrelay_engine_positions_cached_total counter\n"
            "chessrelay_engine_positions_cached_total %llu\n"
            "# HELP chessrelay_engine_restarts_total Engines restarted after a crash or hang.\n"
            "# TYPE chessrelay_engine_restarts_total counter\n"
            "chessrelay_engine_restarts_total %llu\n"
            "# HELP chessrelay_engine_queued Positions waiting for an engine.\n"
            "# TYPE chessrelay_engine_queued gauge\n"
            "chessrelay_engine_queued %d\n"
            "# HELP chessrelay_engine_processes Engines running.\n"
            "# TYPE chessrelay_engine_processes gauge\n"
            "chessrelay_engine_processes %d\n",
            (unsigned long long)st.analysed, (unsigned long long)st.cached,
            (unsigned long long)st.restarts, st.queued, st.running);
}
