/* Tests of relay/board_games: one board's inference events turned into
 * store events, applied to a real store as the loop does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "core/board_games.h"

typedef struct rig {
    cr_config *cfg;
    cr_store *store;
    cr_board_games_config gc;
    int next_game, pairing, emitted, refused;
    bool pairings_on; /* the unpaired callback: pairings in force */
    int64_t seq;
    cr_sev_kind kinds[64];
    cr_store_event last_clock; /* the last CLOCK emitted (its scalar fields) */
} rig;

static int new_game(void *data)
{
    rig *r = data;
    return ++r->next_game;
}

static int take_pairing(void *data, const char *board_id)
{
    rig *r = data;
    (void)board_id;
    int g = r->pairing;
    r->pairing = 0;
    return g;
}

/* Pairings in force playing round 5 of the Oslo file (issue 30). */
static bool unpaired(void *data, int *round, const char **event, const char **site)
{
    rig *r = data;
    if (!r->pairings_on) {
        return false;
    }
    *round = 5;
    *event = "Oslo Chess Festival 2026 - Open A";
    *site = "Oslo";
    return true;
}

static void emit(void *data, cr_store_event *ev)
{
    rig *r = data;
    assert_non_null(ev);
    ev->seq = ++r->seq;
    ev->ts = r->seq * 1000;
    cr_error err;
    if (ev->kind == CR_SEV_CLOCK) {
        r->last_clock = *ev;
        r->last_clock.tags = NULL;
        r->last_clock.comment = NULL;
    }
    if (cr_store_apply(r->store, ev, &err) == 0) {
        if (r->emitted < 64) {
            r->kinds[r->emitted] = ev->kind;
        }
        r->emitted++;
    } else {
        r->refused++;
    }
    cr_store_event_free(ev);
}

static const char *tournament =
    "{\"event\":\"Club Championship\",\"site\":\"Oslo\",\"time_control\":\"40/5400+30\","
    "\"boards\":[{\"board\":\"B1\",\"table\":7,\"round\":\"3\","
    "             \"white\":\"Carlsen, Magnus\",\"black\":\"Caruana, Fabiano\","
    "             \"white_elo\":2830}]}";

static int setup(void **state)
{
    rig *r = calloc(1, sizeof *r);
    cr_error err;
    r->cfg = cr_config_parse(tournament, "t.json", "", &err);
    r->store = cr_store_new();
    assert_non_null(r->cfg);
    assert_non_null(r->store);
    r->gc.tournament = r->cfg;
    r->gc.store = r->store;
    r->gc.new_game = new_game;
    r->gc.take_pairing = take_pairing;
    r->gc.unpaired = unpaired;
    r->gc.emit = emit;
    r->gc.data = r;
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    rig *r = *state;
    cr_store_free(r->store);
    cr_config_free(r->cfg);
    free(r);
    return 0;
}

/* game with the given UCI moves from the standard start */
static cr_game *game_of(const char *const *uci, int n)
{
    cr_game *g = cr_game_new(NULL);
    assert_non_null(g);
    for (int i = 0; i < n; i++) {
        cr_move m = cr_move_from_uci(cr_game_position(g), uci[i]);
        assert_int_not_equal(m, CR_MOVE_NONE);
        assert_int_equal(cr_game_push(g, m, -1, 0, 0), 0);
    }
    return g;
}

static void infer(cr_board_games *b, cr_infer_kind kind, const cr_game *g, int number)
{
    cr_infer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.game = g;
    ev.game_number = number;
    ev.ply = g ? cr_game_ply_count(g) - 1 : 0;
    cr_board_games_on_infer(b, &ev);
}

static void test_game_from_the_tournament_file(void **state)
{
    rig *r = *state;
    cr_board_games *b = cr_board_games_new(&r->gc, "B1", 1);
    cr_game *g = game_of(NULL, 0);
    cr_game_set_tag(g, "White", "Someone Else"); /* the file owns the players */
    cr_game_set_tag(g, "Annotator", "board");
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    assert_int_equal(cr_board_games_game(b), 1);
    const cr_store_game *sg = cr_store_find(r->store, 1);
    assert_non_null(sg);
    assert_string_equal(sg->board, "B1");
    assert_string_equal(sg->round, "3");
    assert_int_equal(sg->table, 7);
    assert_string_equal(cr_game_tag(sg->game, "White"), "Carlsen, Magnus");
    assert_string_equal(cr_game_tag(sg->game, "WhiteElo"), "2830");
    assert_string_equal(cr_game_tag(sg->game, "Event"), "Club Championship");
    assert_string_equal(cr_game_tag(sg->game, "TimeControl"), "40/5400+30");
    assert_string_equal(cr_game_tag(sg->game, "Annotator"), "board");
    assert_string_equal(cr_game_tag(sg->game, "Board"), "B1");
    cr_game_free(g);
    cr_board_games_free(b);
}

static void test_moves_follow_the_inference(void **state)
{
    rig *r = *state;
    cr_board_games *b = cr_board_games_new(&r->gc, "X9", 4);
    static const char *const line1[] = {"e2e4", "e7e5", "g1f3"};
    static const char *const line2[] = {"e2e4", "c7c5"};
    cr_game *g = game_of(NULL, 0);
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    cr_game_free(g);
    const cr_store_game *sg = cr_store_find(r->store, 1);
    assert_int_equal(sg->table, 4); /* no entry for X9: its order of appearance */
    assert_string_equal(sg->round, "1");
    g = game_of(line1, 3);
    infer(b, CR_INFER_MOVE, g, 1); /* three plies at once: three MOVE events */
    cr_game_free(g);
    sg = cr_store_find(r->store, 1);
    assert_int_equal(cr_game_ply_count(sg->game), 3);
    int before = r->emitted;
    g = game_of(line2, 2);
    infer(b, CR_INFER_CORRECTION, g, 1); /* retract 2 plies, then 1...c5 */
    assert_int_equal(r->emitted - before, 2);
    assert_int_equal(r->kinds[before], CR_SEV_CORRECTION);
    assert_int_equal(r->kinds[before + 1], CR_SEV_MOVE);
    sg = cr_store_find(r->store, 1);
    assert_int_equal(cr_game_ply_count(sg->game), 2);
    assert_string_equal(cr_game_ply(sg->game, 1)->san, "c5");
    before = r->emitted;
    infer(b, CR_INFER_MOVE, g, 1); /* nothing new: nothing emitted */
    assert_int_equal(r->emitted, before);
    cr_infer_event end;
    memset(&end, 0, sizeof end);
    end.kind = CR_INFER_GAME_ENDED;
    end.game = g;
    end.game_number = 1;
    end.result = CR_RESULT_DRAW;
    end.reason = "agreed";
    cr_board_games_on_infer(b, &end);
    sg = cr_store_find(r->store, 1);
    assert_int_equal(cr_game_result(sg->game), CR_RESULT_DRAW);
    /* The board set up again after the game ended: no empty game beside
     * it (issue 24: offline replay has none); the next game of the
     * inference is a new store game at its first move, with the clock as
     * it stood then. */
    before = r->emitted;
    cr_game *g2 = game_of(NULL, 0);
    infer(b, CR_INFER_GAME_STARTED, g2, 2);
    cr_infer_event ck;
    memset(&ck, 0, sizeof ck);
    ck.kind = CR_INFER_CLOCK;
    ck.game = g2;
    ck.game_number = 2;
    ck.white_ms = 300000;
    ck.black_ms = 299000;
    ck.running = CR_WHITE;
    cr_board_games_on_infer(b, &ck);
    cr_board_games_flush(b);
    assert_int_equal(r->emitted, before);
    assert_int_equal(cr_board_games_game(b), 1);
    cr_game_free(g2);
    static const char *const line3[] = {"d2d4"};
    g2 = game_of(line3, 1);
    infer(b, CR_INFER_MOVE, g2, 2);
    cr_board_games_flush(b);
    assert_int_equal(cr_board_games_game(b), 2);
    assert_int_equal(r->emitted - before, 3);
    assert_int_equal(r->kinds[before], CR_SEV_GAME);
    assert_int_equal(r->kinds[before + 1], CR_SEV_CLOCK);
    assert_int_equal(r->kinds[before + 2], CR_SEV_MOVE);
    assert_int_equal(r->last_clock.white_ms, 300000);
    sg = cr_store_find(r->store, 2);
    assert_int_equal(cr_game_ply_count(sg->game), 1);
    assert_int_equal(cr_game_ply_count(cr_store_find(r->store, 1)->game), 2);
    assert_int_equal(r->refused, 0);
    cr_game_free(g);
    cr_game_free(g2);
    cr_board_games_free(b);
}

/* Each move is compared from the plies matched last time (not from the
 * first): a store changed by another writer, or an inference that cut and
 * replayed its plies, is still followed ply for ply. */
static void test_moves_compared_from_the_last_match(void **state)
{
    rig *r = *state;
    cr_board_games *b = cr_board_games_new(&r->gc, "X9", 4);
    static const char *const seen[] = {"e2e4", "e7e5", "g1f3", "b8c6"};
    static const char *const other[] = {"e2e4", "c7c5", "g1f3"};
    cr_game *g = game_of(NULL, 0);
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    cr_game_free(g);
    g = game_of(seen, 3);
    infer(b, CR_INFER_MOVE, g, 1);
    cr_game_free(g);
    /* Another writer (an arbiter) puts 1...c5 2.Nf3 in the store: as many
     * plies as before, the last one the same. */
    cr_store_event *ev = cr_store_event_new(CR_SEV_CORRECTION);
    ev->game = 1;
    ev->ply = 1;
    ev->retracted = 2;
    r->gc.emit(r, ev);
    cr_game *o = game_of(other, 3);
    for (int i = 1; i < 3; i++) {
        ev = cr_store_event_new(CR_SEV_MOVE);
        ev->game = 1;
        ev->ply = i;
        ev->move = *cr_game_ply(o, i);
        r->gc.emit(r, ev);
    }
    g = game_of(seen, 4);
    infer(b, CR_INFER_MOVE, g, 1); /* the inference's 1...e5 back, then 2...Nc6 */
    cr_game_free(g);
    const cr_store_game *sg = cr_store_find(r->store, 1);
    assert_int_equal(cr_game_ply_count(sg->game), 4);
    assert_string_equal(cr_game_ply(sg->game, 1)->san, "e5");
    assert_string_equal(cr_game_ply(sg->game, 3)->san, "Nc6");
    /* The inference cuts 1...e5 2.Nf3 Nc6 and plays 1...c5 2.Nf3: again as
     * many plies as the store's first three, the last the same. */
    cr_infer_event ce;
    memset(&ce, 0, sizeof ce);
    ce.kind = CR_INFER_CORRECTION;
    ce.game = o;
    ce.game_number = 1;
    ce.ply = 1;
    ce.retracted = 3;
    cr_board_games_on_infer(b, &ce);
    sg = cr_store_find(r->store, 1);
    assert_int_equal(cr_game_ply_count(sg->game), 3);
    assert_string_equal(cr_game_ply(sg->game, 1)->san, "c5");
    assert_int_equal(r->refused, 0);
    cr_game_free(o);
    cr_board_games_free(b);
}

static void test_clock_status_and_link(void **state)
{
    rig *r = *state;
    cr_board_games *b = cr_board_games_new(&r->gc, "X1", 1);
    cr_infer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = CR_INFER_CLOCK;
    ev.white_ms = 60000;
    cr_board_games_on_infer(b, &ev); /* no game yet: no event */
    assert_int_equal(r->emitted, 0);
    cr_game *g = game_of(NULL, 0);
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    ev.game = g;
    ev.game_number = 1;
    ev.black_ms = 59000;
    ev.running = CR_WHITE;
    cr_board_games_on_infer(b, &ev);
    cr_board_games_flush(b);
    const cr_store_game *sg = cr_store_find(r->store, 1);
    assert_int_equal(sg->white_ms, 60000);
    assert_int_equal(sg->black_ms, 59000);
    ev.kind = CR_INFER_ATTENTION;
    ev.reason = "kings on d5/e4";
    ev.squares = (1ull << 28) | (1ull << 35); /* e4, d5: for the arbiters */
    cr_board_games_on_infer(b, &ev);
    assert_true(cr_store_find(r->store, 1)->attention);
    assert_true(cr_store_find(r->store, 1)->attention_squares == ev.squares);
    assert_string_equal(cr_store_find(r->store, 1)->attention_reason, "kings on d5/e4");
    cr_board_games_set_online(b, false);
    cr_board_games_link_status(b);
    sg = cr_store_find(r->store, 1);
    assert_false(sg->online);
    assert_true(sg->attention); /* kept while offline, with its squares and reason */
    assert_true(sg->attention_squares == ev.squares);
    assert_string_equal(sg->attention_reason, "kings on d5/e4");
    int before = r->emitted;
    cr_board_games_link_status(b); /* no change: no event */
    assert_int_equal(r->emitted, before);
    cr_board_games_set_online(b, true);
    ev.kind = CR_INFER_RESYNCED;
    cr_board_games_on_infer(b, &ev);
    sg = cr_store_find(r->store, 1);
    assert_true(sg->online);
    assert_false(sg->attention);
    assert_true(sg->attention_squares == 0);
    assert_string_equal(sg->attention_reason, "");
    cr_game_free(g);
    cr_board_games_free(b);
}

static void ply_clock(cr_board_games *b, const cr_game *g, int ply)
{
    cr_infer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = CR_INFER_PLY_CLOCK;
    ev.game = g;
    ev.game_number = 1;
    ev.ply = ply;
    ev.running = CR_CLOCK_STOPPED;
    cr_board_games_on_infer(b, &ev);
}

static void clock_reading(cr_board_games *b, const cr_game *g, int32_t w, int32_t bl, int running)
{
    cr_infer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = CR_INFER_CLOCK;
    ev.game = g;
    ev.game_number = 1;
    ev.white_ms = w;
    ev.black_ms = bl;
    ev.running = running;
    cr_board_games_on_infer(b, &ev);
}

/* A press: the reading, then the ply it timed (first without its %emt, as
 * the inference fills a missed press, then with it) go out as one CLOCK. */
static void test_press_is_one_clock_event(void **state)
{
    rig *r = *state;
    cr_board_games *b = cr_board_games_new(&r->gc, "X1", 1);
    static const char *const line[] = {"e2e4", "e7e5"};
    cr_game *g = game_of(line, 1);
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    infer(b, CR_INFER_MOVE, g, 1);
    int before = r->emitted;
    clock_reading(b, g, 5428000, 5400000, CR_BLACK);
    cr_game_ply_mut(g, 0)->clock_ms = 5428000;
    ply_clock(b, g, 0);
    cr_game_ply_mut(g, 0)->emt_ms = 3000;
    ply_clock(b, g, 0);
    assert_int_equal(r->emitted, before); /* held until the flush */
    cr_board_games_flush(b);
    assert_int_equal(r->emitted, before + 1);
    assert_int_equal(r->kinds[before], CR_SEV_CLOCK);
    assert_int_equal(r->last_clock.clock_ply, 0);
    assert_int_equal(r->last_clock.ply_clock_ms, 5428000);
    assert_int_equal(r->last_clock.ply_emt_ms, 3000);
    assert_false(r->last_clock.reread);
    const cr_store_game *sg = cr_store_find(r->store, 1);
    assert_int_equal(sg->white_ms, 5428000);
    assert_int_equal(sg->running, CR_BLACK);
    assert_int_equal(cr_game_ply(sg->game, 0)->clock_ms, 5428000);
    assert_int_equal(cr_game_ply(sg->game, 0)->emt_ms, 3000);
    cr_board_games_flush(b); /* nothing held: nothing */
    assert_int_equal(r->emitted, before + 1);

    /* a reading then a move: both, in that order */
    before = r->emitted;
    clock_reading(b, g, 5428000, 5399000, CR_BLACK);
    cr_game_free(g);
    g = game_of(line, 2);
    infer(b, CR_INFER_MOVE, g, 1);
    assert_int_equal(r->emitted, before + 2);
    assert_int_equal(r->kinds[before], CR_SEV_CLOCK);
    assert_int_equal(r->kinds[before + 1], CR_SEV_MOVE);
    assert_int_equal(r->last_clock.clock_ply, -1);

    /* a ply timed on its own: the store's reading again, marked so */
    before = r->emitted;
    cr_game_ply_mut(g, 1)->clock_ms = 5399000;
    cr_game_ply_mut(g, 1)->emt_ms = 1000;
    ply_clock(b, g, 1);
    cr_board_games_flush(b);
    assert_int_equal(r->emitted, before + 1);
    assert_int_equal(r->last_clock.clock_ply, 1);
    assert_int_equal(r->last_clock.ply_emt_ms, 1000);
    assert_int_equal(r->last_clock.white_ms, 5428000);
    assert_int_equal(r->last_clock.black_ms, 5399000);
    assert_true(r->last_clock.reread);

    /* two plies timed by one reading: two events */
    before = r->emitted;
    clock_reading(b, g, 5420000, 5399000, CR_WHITE);
    ply_clock(b, g, 0);
    ply_clock(b, g, 1);
    cr_board_games_flush(b);
    assert_int_equal(r->emitted, before + 2);
    assert_int_equal(r->last_clock.clock_ply, 1);
    assert_int_equal(r->refused, 0);

    /* a reading held when the board goes: dropped with it, not leaked */
    clock_reading(b, g, 5410000, 5399000, CR_WHITE);
    cr_game_free(g);
    cr_board_games_free(b);
}

static void test_meta_tags(void **state)
{
    rig *r = *state;
    cr_board_games *b = cr_board_games_new(&r->gc, "B1", 1);
    cr_game *g = game_of(NULL, 0);
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    cr_game_set_tag(g, "Black", "Nobody"); /* owned by the tournament file */
    cr_game_set_tag(g, "Opening", "Sicilian");
    int before = r->emitted;
    infer(b, CR_INFER_META, g, 1);
    assert_int_equal(r->emitted - before, 1);
    const cr_store_game *sg = cr_store_find(r->store, 1);
    assert_string_equal(cr_game_tag(sg->game, "Opening"), "Sicilian");
    assert_string_equal(cr_game_tag(sg->game, "Black"), "Caruana, Fabiano");
    cr_game_free(g);
    cr_board_games_free(b);
}

/* A board standing at the start takes the game the pairings made. */
static void test_pairings(void **state)
{
    rig *r = *state;
    cr_store_event *pg = cr_store_event_new(CR_SEV_GAME); /* as pairings_link makes it */
    pg->game = ++r->next_game;
    snprintf(pg->board, sizeof pg->board, "B1");
    snprintf(pg->round, sizeof pg->round, "5");
    cr_store_event_add_tag(pg, "White", "Paired, White");
    emit(r, pg);
    cr_board_games *b = cr_board_games_new(&r->gc, "B1", 1);
    r->pairing = 1;
    cr_game *g = game_of(NULL, 0);
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    assert_int_equal(cr_board_games_game(b), 1); /* no new game */
    assert_int_equal(r->next_game, 1);
    /* later pairings: a board on an empty game moves over to them */
    cr_store_event *pg2 = cr_store_event_new(CR_SEV_GAME);
    pg2->game = ++r->next_game;
    snprintf(pg2->board, sizeof pg2->board, "B1");
    snprintf(pg2->round, sizeof pg2->round, "6");
    emit(r, pg2);
    r->pairing = 2;
    assert_true(cr_board_games_paired(b, 2));
    assert_int_equal(cr_board_games_game(b), 2);
    assert_false(cr_store_find(r->store, 1)->online); /* left: no board on it */
    assert_false(cr_board_games_paired(b, 2));        /* already its game */
    /* a game with moves stays */
    static const char *const line[] = {"d2d4"};
    cr_game *g1 = game_of(line, 1);
    infer(b, CR_INFER_MOVE, g1, 1);
    r->pairing = 3;
    assert_false(cr_board_games_paired(b, 3));
    assert_int_equal(r->refused, 0);
    cr_game_free(g);
    cr_game_free(g1);
    cr_board_games_free(b);
}

/* Issue 30: a board with no table in the pairings in force (a spare) gets
 * its own game in the round played, without a table, named after the
 * tournament; its feed's Round and Event tags change neither. The
 * tournament file's event wins over a board's own as well. */
static void test_unpaired_board(void **state)
{
    rig *r = *state;
    cr_error err;
    cr_config *bare = cr_config_parse("{}", "t.json", "", &err);
    assert_non_null(bare);
    r->gc.tournament = bare;
    r->pairings_on = true;
    cr_board_games *b = cr_board_games_new(&r->gc, "DGT23164", 1);
    cr_game *g = game_of(NULL, 0);
    cr_game_set_tag(g, "Event", "Let's Play!");
    cr_game_set_tag(g, "Round", "1");
    cr_game_set_tag(g, "White", "Player P0008-W");
    infer(b, CR_INFER_GAME_STARTED, g, 1);
    const cr_store_game *sg = cr_store_find(r->store, cr_board_games_game(b));
    assert_non_null(sg);
    assert_string_equal(sg->round, "5");
    assert_int_equal(sg->table, 0);
    assert_string_equal(cr_game_tag(sg->game, "Round"), "5");
    assert_string_equal(cr_game_tag(sg->game, "Event"), "Oslo Chess Festival 2026 - Open A");
    assert_string_equal(cr_game_tag(sg->game, "Site"), "Oslo");
    assert_string_equal(cr_game_tag(sg->game, "White"), "Player P0008-W"); /* the board's own players */
    /* the feed's later meta tags move it neither to round 1 nor to its event */
    cr_game_set_tag(g, "Round", "2");
    cr_game_set_tag(g, "Event", "Another Event");
    infer(b, CR_INFER_META, g, 1);
    sg = cr_store_find(r->store, cr_board_games_game(b));
    assert_string_equal(sg->round, "5");
    assert_string_equal(cr_game_tag(sg->game, "Round"), "5");
    assert_string_equal(cr_game_tag(sg->game, "Event"), "Oslo Chess Festival 2026 - Open A");
    cr_board_games_free(b);

    /* without pairings: as before, the feed's round and event */
    r->pairings_on = false;
    cr_board_games *b2 = cr_board_games_new(&r->gc, "DGT99", 2);
    cr_game_set_tag(g, "Round", "1");
    infer(b2, CR_INFER_GAME_STARTED, g, 1);
    sg = cr_store_find(r->store, cr_board_games_game(b2));
    assert_string_equal(sg->round, "1");
    assert_int_equal(sg->table, 2);
    assert_string_equal(cr_game_tag(sg->game, "Event"), "Another Event");
    cr_board_games_free(b2);

    /* a tournament file's event is the tournament's name, whatever the board says */
    r->gc.tournament = r->cfg;
    cr_board_games *b3 = cr_board_games_new(&r->gc, "DGT77", 3);
    infer(b3, CR_INFER_GAME_STARTED, g, 1);
    sg = cr_store_find(r->store, cr_board_games_game(b3));
    assert_string_equal(cr_game_tag(sg->game, "Event"), "Club Championship");
    assert_string_equal(cr_game_tag(sg->game, "Site"), "Oslo");
    infer(b3, CR_INFER_META, g, 1);
    assert_string_equal(cr_game_tag(cr_store_find(r->store, cr_board_games_game(b3))->game, "Event"), "Club Championship");
    assert_int_equal(r->refused, 0);
    cr_board_games_free(b3);
    cr_game_free(g);
    cr_config_free(bare);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_game_from_the_tournament_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_moves_follow_the_inference, setup, teardown),
        cmocka_unit_test_setup_teardown(test_moves_compared_from_the_last_match, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_status_and_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_press_is_one_clock_event, setup, teardown),
        cmocka_unit_test_setup_teardown(test_meta_tags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pairings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unpaired_board, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
