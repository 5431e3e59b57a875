/* chessrelay relay: one board's inference events as store events (see
 * board_games.h). */
#include "core/board_games.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

struct cr_board_games {
    const cr_board_games_config *cfg;
    char id[CR_BOARD_ID_MAX + 1];
    int games_seen;  /* games started on this board (config entries taken) */
    int game_number; /* the inference's number of the current game */
    int game_id;     /* its id in the store, 0 before the first */
    int table;
    bool online;
    const cr_config_board *entry;
    bool paired; /* its game came from the pairings: they own the players */
    bool unpaired; /* its own game while pairings are in force: they own the round */
    /* The tournament names the game's Event, Site, Date: the board's meta
     * tags do not replace them (a feed's own event name is not the tournament's). */
    bool own_event, own_site, own_date;
    cr_store_event *held; /* a CLOCK not emitted yet (cr_board_games_flush) */
    /* The board was set up for a new game after one was played: the new
     * game opens at its first move (as offline replay has it), not as an
     * empty game beside the one that ended. Meanwhile the last clock
     * reading waits for it. */
    bool waiting;
    bool has_reading;
    int32_t reading_ms[2];
    int reading_running;
    /* Leading plies the inference's game shares with the store's game
     * matched_game, as of the store's plies_seq matched_seq: each move is
     * compared from there, not from the first ply (a long game's every move
     * would cost its length). The inference cuts its plies only with a
     * CORRECTION (cr_board_games_on_infer lowers it); anyone else's change
     * of the store's plies moves plies_seq. */
    int matched;
    int matched_game;
    int64_t matched_seq;
};

cr_board_games *cr_board_games_new(const cr_board_games_config *cfg, const char *board_id,
                                   int table)
{
    cr_board_games *b = calloc(1, sizeof *b);
    if (b) {
        b->cfg = cfg;
        snprintf(b->id, sizeof b->id, "%s", board_id);
        b->table = table;
        b->online = true;
    }
    return b;
}

void cr_board_games_free(cr_board_games *b)
{
    if (b) {
        cr_store_event_free(b->held);
        free(b);
    }
}

bool cr_board_games_online(const cr_board_games *b)
{
    return b->online;
}

int cr_board_games_game(const cr_board_games *b)
{
    return b->game_id;
}

static void emit(cr_board_games *b, cr_store_event *ev)
{
    cr_board_games_flush(b);
    b->cfg->emit(b->cfg->data, ev);
}

void cr_board_games_flush(cr_board_games *b)
{
    if (b->held) {
        cr_store_event *ev = b->held;
        b->held = NULL;
        b->cfg->emit(b->cfg->data, ev);
    }
}

static const cr_game *store_game(const cr_board_games *b)
{
    const cr_store_game *g = cr_store_find(b->cfg->store, b->game_id);
    return g ? g->game : NULL;
}

static void add_tag(cr_store_event *ev, const char *name, const char *value)
{
    if (value && value[0]) {
        for (int i = 0; i < ev->tag_count; i++) {
            if (strcmp(ev->tags[i].name, name) == 0) {
                snprintf(ev->tags[i].value, sizeof ev->tags[i].value, "%s", value);
                return;
            }
        }
        cr_store_event_add_tag(ev, name, value);
    }
}

static void add_int_tag(cr_store_event *ev, const char *name, int v)
{
    if (v > 0) {
        char s[16];
        snprintf(s, sizeof s, "%d", v);
        add_tag(ev, name, s);
    }
}

/* Tags the tournament file decides (the board's own meta tags yield). */
static bool config_owns(const cr_board_games *b, const char *name)
{
    if (strcmp(name, "Event") == 0) {
        return b->own_event;
    }
    if (strcmp(name, "Site") == 0) {
        return b->own_site;
    }
    if (strcmp(name, "Date") == 0) {
        return b->own_date;
    }
    if (b->unpaired && strcmp(name, "Round") == 0) {
        return true;
    }
    if (!b->entry && !b->paired) {
        return false;
    }
    static const char *const owned[] = {"White",    "Black",      "WhiteElo",
                                        "BlackElo", "WhiteTitle", "BlackTitle",
                                        "WhiteFed", "BlackFed",   "Round"};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++) {
        if (strcmp(name, owned[i]) == 0) {
            return true;
        }
    }
    return false;
}

static bool standard_start(const cr_game *g)
{
    const cr_position *start = cr_game_start(g);
    cr_position std;
    cr_position_init_start(&std);
    return start->key == std.key && memcmp(start->board, std.board, sizeof std.board) == 0;
}

/* squares: with attention, where the board differs from the game (the
 * arbiter's page shows them; a new set goes out again). */
static void set_status(cr_board_games *b, bool attention, cr_bb squares, const char *reason)
{
    if (!b->game_id) {
        return;
    }
    if (!attention) {
        squares = 0;
    }
    const cr_store_game *g = cr_store_find(b->cfg->store, b->game_id);
    if (g && g->online == b->online && g->attention == attention && g->attention_squares == squares) {
        return;
    }
    cr_store_event *ev = cr_store_event_new(CR_SEV_STATUS);
    if (ev) {
        ev->game = b->game_id;
        ev->online = b->online;
        ev->attention = attention;
        ev->squares = attention ? squares : 0;
        snprintf(ev->reason, sizeof ev->reason, "%s", reason ? reason : "");
    }
    emit(b, ev);
}

static void sync_tags(cr_board_games *b, const cr_game *g)
{
    const cr_game *sg = store_game(b);
    if (!sg || !g) {
        return;
    }
    for (int i = 0; i < cr_game_tag_count(g); i++) {
        const char *name, *value;
        cr_game_tag_at(g, i, &name, &value);
        const char *have = cr_game_tag(sg, name);
        if (config_owns(b, name) || strcmp(name, "FEN") == 0 || strcmp(name, "SetUp") == 0 ||
            strcmp(name, "Result") == 0 || (have && strcmp(have, value) == 0) ||
            strlen(name) >= CR_TAG_NAME_MAX) {
            continue;
        }
        cr_store_event *ev = cr_store_event_new(CR_SEV_TAG);
        if (ev) {
            ev->game = b->game_id;
            snprintf(ev->tag.name, sizeof ev->tag.name, "%s", name);
            snprintf(ev->tag.value, sizeof ev->tag.value, "%s", value);
        }
        emit(b, ev);
        sg = store_game(b);
    }
}

static bool named(const char *v)
{
    return v && v[0] && strcmp(v, "?") != 0 && strcmp(v, "????.??.??") != 0;
}

/* The board takes the game the pairings made for it. */
static void take_pairing(cr_board_games *b, int game, const cr_game *g)
{
    b->game_id = game;
    b->matched_game = 0; /* a game to follow from its first ply */
    b->paired = true;
    b->unpaired = false;
    const cr_store_game *pg = cr_store_find(b->cfg->store, game);
    b->own_event = pg && named(cr_game_tag(pg->game, "Event"));
    b->own_site = pg && named(cr_game_tag(pg->game, "Site"));
    b->own_date = pg && named(cr_game_tag(pg->game, "Date"));
    cr_log(CR_LOG_INFO, "board %s: plays game %d of the pairings", b->id, game);
    const cr_store_game *sg = cr_store_find(b->cfg->store, game);
    set_status(b, sg ? sg->attention : false, sg ? sg->attention_squares : 0, NULL); /* online now, if the board is */
    sync_tags(b, g);
}

/* The GAME event's tags: the tournament's, the board's own, the entry's. */
static void game_tags(const cr_board_games *b, cr_store_event *ev, const cr_game *g,
                      const char *event, const char *site)
{
    const cr_config *t = b->cfg->tournament;
    add_tag(ev, "Event", event);
    add_tag(ev, "Site", site);
    add_tag(ev, "Date", t->date);
    if (g) {
        if (!standard_start(g)) {
            ev->has_start = true;
            ev->start = *cr_game_start(g);
        }
        for (int i = 0; i < cr_game_tag_count(g); i++) {
            const char *name, *value;
            cr_game_tag_at(g, i, &name, &value);
            if (!config_owns(b, name)) {
                add_tag(ev, name, value);
            }
        }
    }
    add_tag(ev, "Round", ev->round);
    add_tag(ev, "TimeControl", cr_config_time_control(t, ev->round));
    if (b->entry) {
        const cr_config_board *e = b->entry;
        add_tag(ev, "White", e->white);
        add_tag(ev, "Black", e->black);
        add_int_tag(ev, "WhiteElo", e->white_elo);
        add_int_tag(ev, "BlackElo", e->black_elo);
        add_tag(ev, "WhiteTitle", e->white_title);
        add_tag(ev, "BlackTitle", e->black_title);
        add_tag(ev, "WhiteFed", e->white_fed);
        add_tag(ev, "BlackFed", e->black_fed);
    }
    add_tag(ev, "Board", b->id);
}

static void start_game(cr_board_games *b, const cr_game *g)
{
    const cr_board_games_config *cfg = b->cfg;
    b->entry = cr_config_board_for(cfg->tournament, b->id, b->games_seen++);
    int paired = 0;
    if (cfg->take_pairing && (!g || standard_start(g))) {
        paired = cfg->take_pairing(cfg->data, b->id);
    }
    if (paired) {
        take_pairing(b, paired, g);
        return;
    }
    b->paired = false;
    /* Pairings in force, this board not in them: its game goes to the round
     * played, not to the round its feed names (a finished one, "1" by
     * default), and takes no table number of the pairings'. */
    int pround = 0;
    const char *pevent = NULL, *psite = NULL;
    b->unpaired = !b->entry && cfg->unpaired && cfg->unpaired(cfg->data, &pround, &pevent, &psite);
    const cr_config *t = cfg->tournament;
    const char *event = t->event[0] ? t->event : b->unpaired ? pevent : NULL;
    const char *site = t->site[0] ? t->site : b->unpaired ? psite : NULL;
    b->own_event = named(event);
    b->own_site = named(site);
    b->own_date = named(t->date);
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    if (!ev) {
        emit(b, NULL);
        return;
    }
    ev->game = cfg->new_game(cfg->data);
    snprintf(ev->board, sizeof ev->board, "%s", b->id);
    const char *round = b->entry ? b->entry->round : g ? cr_game_tag(g, "Round") : NULL;
    if (b->unpaired && pround > 0) {
        snprintf(ev->round, sizeof ev->round, "%d", pround);
    } else {
        snprintf(ev->round, sizeof ev->round, "%s",
                 round && round[0] && strcmp(round, "?") ? round : "1");
    }
    ev->table = b->entry && b->entry->table ? b->entry->table : b->unpaired ? 0 : b->table;
    game_tags(b, ev, g, event, site);
    b->game_id = ev->game;
    b->matched_game = 0;
    emit(b, ev);
    if (!b->online) {
        cr_store_event *st = cr_store_event_new(CR_SEV_STATUS);
        if (st) {
            st->game = b->game_id;
        }
        emit(b, st);
    }
}

static bool same_ply(const cr_ply *a, const cr_ply *b)
{
    /* a gap is the position it ends on (one replaced by a longer one
     * reads "--" all the same) */
    return a->move == b->move && strcmp(a->san, b->san) == 0 &&
           (a->flags & CR_PLY_ILLEGAL) == (b->flags & CR_PLY_ILLEGAL) &&
           (!(a->flags & CR_PLY_MISSING) || (memcmp(a->after.board, b->after.board, CR_SQ_NB) == 0 &&
                                             a->after.side == b->after.side && a->missing == b->missing));
}

/* Brings the store's game to the inference's: retracts from the first ply
 * that differs, then appends the rest. Whatever the inference reported, the
 * store ends up equal to it. */
static void sync_moves(cr_board_games *b, const cr_game *g)
{
    const cr_game *sg = store_game(b);
    if (!sg || !g) {
        return;
    }
    const cr_store_game *sgr = cr_store_find(b->cfg->store, b->game_id);
    int n = cr_game_ply_count(g), sn = cr_game_ply_count(sg), k = 0;
    if (b->matched_game == b->game_id && b->matched_seq == sgr->plies_seq) {
        k = b->matched < n ? (b->matched < sn ? b->matched : sn) : (n < sn ? n : sn);
        if (k > 0 && !same_ply(cr_game_ply(g, k - 1), cr_game_ply(sg, k - 1))) {
            k = 0; /* not as followed: compare it all */
        }
    }
    while (k < n && k < sn && same_ply(cr_game_ply(g, k), cr_game_ply(sg, k))) {
        k++;
    }
    if (k < sn) {
        cr_store_event *ev = cr_store_event_new(CR_SEV_CORRECTION);
        if (ev) {
            ev->game = b->game_id;
            ev->ply = k;
            ev->retracted = sn - k;
        }
        emit(b, ev);
    }
    for (int i = k; i < n; i++) {
        cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
        if (ev) {
            ev->game = b->game_id;
            ev->ply = i;
            ev->move = *cr_game_ply(g, i);
            if (!(ev->move.flags & CR_PLY_ILLEGAL)) { /* worked out once, by the inference */
                ev->has_before = true;
                ev->before = *cr_game_position_at(g, i);
            }
            const char *note = cr_game_comment(g, i); /* the other sequences that fit */
            if (note && !(ev->comment = strdup(note))) {
                cr_store_event_free(ev);
                ev = NULL;
            }
        }
        emit(b, ev);
    }
    sgr = cr_store_find(b->cfg->store, b->game_id);
    sg = sgr ? sgr->game : NULL;
    b->matched_game = b->game_id;
    b->matched_seq = sgr ? sgr->plies_seq : -1;
    int m = sg ? cr_game_ply_count(sg) : 0, i = k < m ? k : m; /* the first k as they were */
    m = m < n ? m : n;
    while (i < m && same_ply(cr_game_ply(g, i), cr_game_ply(sg, i))) {
        i++;
    }
    b->matched = i;
}

static void game_ended(cr_board_games *b, const cr_infer_event *ev)
{
    sync_moves(b, ev->game);
    const cr_game *sg = store_game(b);
    if (sg && cr_game_result(sg) != ev->result) {
        cr_store_event *e = cr_store_event_new(CR_SEV_RESULT);
        if (e) {
            e->game = b->game_id;
            e->result = ev->result;
            snprintf(e->reason, sizeof e->reason, "%s", ev->reason ? ev->reason : "");
        }
        emit(b, e);
    }
}

/* A CLOCK with this reading, held (nothing held before it); NULL, after
 * telling emit, when out of memory. */
static cr_store_event *hold_clock(cr_board_games *b, int32_t white_ms, int32_t black_ms, int running)
{
    cr_store_event *e = cr_store_event_new(CR_SEV_CLOCK);
    if (!e) {
        emit(b, NULL);
        return NULL;
    }
    e->game = b->game_id;
    e->white_ms = white_ms;
    e->black_ms = black_ms;
    e->running = running;
    b->held = e;
    return e;
}

static void clock_read(cr_board_games *b, const cr_infer_event *ev)
{
    if (!b->game_id) {
        return;
    }
    cr_board_games_flush(b);
    hold_clock(b, ev->white_ms, ev->black_ms, ev->running);
}

/* A press timed a ply (its MOVE may have gone out before): the store's
 * ply takes the inference's clock and %emt, read when the event goes out
 * (a later PLY_CLOCK of the same ply only completes it). It rides on the
 * held reading; on its own it carries the store's reading again. */
static void ply_clock(cr_board_games *b, const cr_infer_event *ev)
{
    const cr_store_game *sg = b->game_id ? cr_store_find(b->cfg->store, b->game_id) : NULL;
    const cr_ply *p = ev->game ? cr_game_ply(ev->game, ev->ply) : NULL;
    if (!sg || !p || ev->ply >= cr_game_ply_count(sg->game)) {
        return;
    }
    cr_store_event *e = b->held;
    if (e && e->clock_ply >= 0 && e->clock_ply != ev->ply) {
        cr_board_games_flush(b);
        e = NULL;
    }
    if (!e) {
        e = hold_clock(b, sg->white_ms, sg->black_ms, sg->running);
        if (!e) {
            return;
        }
        e->reread = true;
    }
    e->clock_ply = ev->ply;
    e->ply_clock_ms = p->clock_ms;
    e->ply_emt_ms = p->emt_ms;
}

/* The board's game was played (moves or a result): a new one waits for
 * its first move. */
static bool played(const cr_board_games *b)
{
    const cr_game *g = store_game(b);
    return g && (cr_game_ply_count(g) > 0 || cr_game_result(g) != CR_RESULT_NONE);
}

/* While a new game waits for its first move: true when ev opens it now
 * (the game has a move), false when ev is kept (a clock reading) or left
 * (tags, attention and an end without moves belong to no game yet). */
static bool opens_waiting_game(cr_board_games *b, const cr_infer_event *ev)
{
    if (ev->game && cr_game_ply_count(ev->game) > 0) {
        return true;
    }
    if (ev->kind == CR_INFER_CLOCK) {
        b->has_reading = true;
        b->reading_ms[CR_WHITE] = ev->white_ms;
        b->reading_ms[CR_BLACK] = ev->black_ms;
        b->reading_running = ev->running;
    }
    return false;
}

static void open_game(cr_board_games *b, const cr_infer_event *ev)
{
    b->waiting = false;
    start_game(b, ev->game);
    if (b->has_reading) { /* the clock as it stood when the first move came */
        b->has_reading = false;
        cr_board_games_flush(b);
        hold_clock(b, b->reading_ms[CR_WHITE], b->reading_ms[CR_BLACK], b->reading_running);
    }
    sync_moves(b, ev->game);
}

void cr_board_games_on_infer(cr_board_games *b, const cr_infer_event *ev)
{
    if (ev->kind == CR_INFER_CORRECTION && ev->ply < b->matched) {
        b->matched = ev->ply > 0 ? ev->ply : 0;
    }
    if (ev->kind == CR_INFER_GAME_STARTED || (ev->game && ev->game_number != b->game_number)) {
        b->game_number = ev->game_number;
        b->waiting = played(b);
        b->has_reading = false;
        if (!b->waiting) {
            open_game(b, ev);
        }
        if (ev->kind == CR_INFER_GAME_STARTED) {
            return;
        }
    }
    if (b->waiting) {
        if (!opens_waiting_game(b, ev)) {
            return;
        }
        open_game(b, ev);
    }
    switch (ev->kind) {
    case CR_INFER_MOVE:
    case CR_INFER_CORRECTION:
        sync_moves(b, ev->game);
        break;
    case CR_INFER_GAME_ENDED:
        game_ended(b, ev);
        break;
    case CR_INFER_ATTENTION:
        set_status(b, true, ev->squares, ev->reason);
        break;
    case CR_INFER_RESYNCED:
        set_status(b, false, 0, NULL);
        break;
    case CR_INFER_CLOCK:
        clock_read(b, ev);
        break;
    case CR_INFER_META:
        sync_tags(b, ev->game);
        break;
    case CR_INFER_PLY_CLOCK:
        ply_clock(b, ev);
        break;
    default:
        break;
    }
}

void cr_board_games_set_online(cr_board_games *b, bool online)
{
    b->online = online;
}

void cr_board_games_link_status(cr_board_games *b)
{
    if (b->game_id) {
        const cr_store_game *g = cr_store_find(b->cfg->store, b->game_id);
        set_status(b, g ? g->attention : false, g ? g->attention_squares : 0, NULL);
    }
}

bool cr_board_games_paired(cr_board_games *b, int game)
{
    if (!b->game_id || b->game_id == game) {
        return false;
    }
    int was = b->game_id;
    const cr_store_game *g = cr_store_find(b->cfg->store, was);
    if (!g || cr_game_ply_count(g->game) > 0 || cr_game_result(g->game) != CR_RESULT_NONE ||
        !standard_start(g->game) || !b->cfg->take_pairing ||
        b->cfg->take_pairing(b->cfg->data, b->id) != game) {
        return false;
    }
    take_pairing(b, game, NULL);
    cr_store_event *st = cr_store_event_new(CR_SEV_STATUS); /* offline: no board on it now */
    if (st) {
        st->game = was;
    }
    emit(b, st);
    cr_log(CR_LOG_INFO, "board %s: game %d (not started) left for game %d of the pairings", b->id,
           was, game);
    return true;
}
