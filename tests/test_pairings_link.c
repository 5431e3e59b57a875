/* The pairings file as a source of the relay (relay/core/pairings_link.h): games
 * of the round played before any board, re-import through the diff (names
 * and ratings on games in progress, players only on games not started, new
 * tables), bad files, the journal line and its replay, the file watch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/config.h"
#include "core/pairings_link.h"
#include "core/store.h"
#include "test_util.h"

#define DATA CR_TEST_DATA_DIR "/pairings/"

/*----- a fake loop: a store, game ids, the events and journal lines -----*/

typedef struct rec {
    cr_sev_kind kind;
    int game;
    char round[CR_ROUND_MAX];
    int table;
    char board[CR_BOARD_ID_MAX + 1];
    char name[CR_TAG_NAME_MAX], value[CR_TAG_VALUE_MAX];
    bool online;
} rec;

typedef struct fake {
    cr_store *store;
    int next_game;
    int64_t seq;
    rec recs[256];
    int nrec;
    char *lines[32];
    size_t line_len[32];
    int nlines;
    int created[64];
    char created_board[64][CR_BOARD_ID_MAX + 1];
    int ncreated;
} fake;

static int f_new_game(void *data)
{
    fake *f = data;
    return ++f->next_game;
}

static void f_emit(void *data, cr_store_event *ev)
{
    fake *f = data;
    ev->seq = ++f->seq;
    ev->ts = f->seq * 1000;
    cr_error err;
    cr_error_clear(&err);
    int rc = cr_store_apply(f->store, ev, &err);
    if (rc) {
        fail_msg("store: %s", err.text);
    }
    assert_true(f->nrec < 256);
    rec *r = &f->recs[f->nrec++];
    memset(r, 0, sizeof *r);
    r->kind = ev->kind;
    r->game = ev->game;
    snprintf(r->round, sizeof r->round, "%s", ev->round);
    r->table = ev->table;
    snprintf(r->board, sizeof r->board, "%s", ev->board);
    snprintf(r->name, sizeof r->name, "%s", ev->tag.name);
    snprintf(r->value, sizeof r->value, "%s", ev->tag.value);
    r->online = ev->online;
    cr_store_event_free(ev);
}

static void f_created(void *data, int game, const char *board)
{
    fake *f = data;
    assert_true(f->ncreated < 64);
    f->created[f->ncreated] = game;
    snprintf(f->created_board[f->ncreated], sizeof f->created_board[0], "%s", board);
    f->ncreated++;
}

static void f_journal(void *data, const char *line, size_t len)
{
    fake *f = data;
    assert_true(f->nlines < 32);
    assert_null(memchr(line, '\n', len));
    assert_null(memchr(line, '\0', len));
    f->lines[f->nlines] = malloc(len + 1);
    memcpy(f->lines[f->nlines], line, len);
    f->lines[f->nlines][len] = '\0';
    f->line_len[f->nlines] = len;
    f->nlines++;
}

static void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    f->store = cr_store_new();
    assert_non_null(f->store);
}

static void fake_done(fake *f)
{
    for (int i = 0; i < f->nlines; i++) {
        free(f->lines[i]);
    }
    cr_store_free(f->store);
}

/* A MOVE for game `id` (uci from its current position), through the fake. */
static void play(fake *f, int id, const char *uci)
{
    const cr_store_game *g = cr_store_find(f->store, id);
    assert_non_null(g);
    cr_game *scratch = cr_game_clone(g->game);
    cr_move m = cr_move_from_uci(cr_game_position(scratch), uci);
    assert_int_not_equal(m, CR_MOVE_NONE);
    assert_int_equal(cr_game_push(scratch, m, CR_CLOCK_UNKNOWN, 0, 0), 0);
    cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
    ev->game = id;
    ev->ply = cr_game_ply_count(scratch) - 1;
    ev->move = *cr_game_ply(scratch, ev->ply);
    cr_game_free(scratch);
    f_emit(f, ev);
}

/* A TAG as an arbiter sets it (not from the pairings). */
static void arbiter_tag(fake *f, int id, const char *name, const char *value)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_TAG);
    ev->game = id;
    snprintf(ev->tag.name, sizeof ev->tag.name, "%s", name);
    snprintf(ev->tag.value, sizeof ev->tag.value, "%s", value);
    f_emit(f, ev);
}

static const char *tag(fake *f, int id, const char *name)
{
    const cr_store_game *g = cr_store_find(f->store, id);
    assert_non_null(g);
    return cr_game_tag(g->game, name);
}

/* The game of a round/table in the store, or 0. */
static int game_at(fake *f, const char *round, int table)
{
    int found = 0;
    for (int i = 0; i < cr_store_game_count(f->store); i++) {
        const cr_store_game *g = cr_store_game_at(f->store, i);
        if (strcmp(g->round, round) == 0 && g->table == table) {
            assert_int_equal(found, 0); /* never two */
            found = g->id;
        }
    }
    return found;
}

static int count_kind(fake *f, int from, cr_sev_kind kind)
{
    int n = 0;
    for (int i = from; i < f->nrec; i++) {
        n += f->recs[i].kind == kind;
    }
    return n;
}

/*----- files -----*/

static void write_all(const char *path, const char *text, size_t len)
{
    /* Replaced by rename, as pairing programs and editors often do. */
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *fp = fopen(tmp, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(rename(tmp, path), 0);
}

/* Replaces the first `from` in text (same length or not). New string. */
static char *replace(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    if (!at) {
        fail_msg("'%s' not in the text", from);
    }
    size_t n = strlen(text) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    assert_non_null(out);
    size_t head = (size_t)(at - text);
    memcpy(out, text, head);
    memcpy(out + head, to, strlen(to));
    strcpy(out + head + strlen(to), at + strlen(from));
    return out;
}

static char tmpdir[256];

static int setup_dir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cr_pairings_link_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_in_tmp(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
}

static cr_pairings_link *new_link(fake *f, const char *path, int round, const cr_config *t)
{
    cr_pairings_link_config c;
    memset(&c, 0, sizeof c);
    c.path = path;
    c.round = round;
    c.tournament = t;
    c.store = f->store;
    c.new_game = f_new_game;
    c.emit = f_emit;
    c.created = f_created;
    c.journal = f_journal;
    c.data = f;
    cr_pairings_link *l = cr_pairings_link_new(&c);
    assert_non_null(l);
    return l;
}

/*----- tests -----*/

static void test_games_before_any_board(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    cr_error err;
    cr_config *t =
        cr_config_parse("{\"event\": \"Club Open\", \"time_control\": \"40/5400:1800+30\","
                        " \"boards\": [{\"board\": \"DGT23164\", \"table\": 1},"
                        "  {\"board\": \"DGT7\", \"table\": 2, \"round\": \"4\"},"
                        "  {\"board\": \"DGT8\", \"table\": 2, \"round\": \"5\"}]}",
                        "t.json", NULL, &err);
    assert_non_null(t);
    cr_pairings_link *l = new_link(&f, DATA "oslo-open-r5.trf", 0, t);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(cr_pairings_link_round(l), 5);
    assert_int_equal(cr_store_game_count(f.store), 5);
    assert_int_equal(count_kind(&f, 0, CR_SEV_GAME), 5);
    assert_int_equal(count_kind(&f, 0, CR_SEV_STATUS), 5);
    for (int i = 0; i < f.nrec; i++) {
        if (f.recs[i].kind == CR_SEV_STATUS) {
            assert_false(f.recs[i].online); /* no board yet */
        }
    }
    int g1 = game_at(&f, "5", 1), g2 = game_at(&f, "5", 2), g5 = game_at(&f, "5", 5);
    assert_true(g1 && g2 && g5);
    assert_true(cr_pairings_link_owns(l, g1));
    assert_false(cr_pairings_link_owns(l, 999));
    const cr_store_game *sg = cr_store_find(f.store, g1);
    assert_string_equal(sg->board, "DGT23164"); /* the tournament file's serial */
    assert_string_equal(cr_store_find(f.store, g2)->board, "DGT8"); /* the entry of round 5 */
    assert_string_equal(cr_store_find(f.store, g5)->board, "5");    /* the table number */
    assert_string_equal(tag(&f, g1, "White"), "Lindqvist, Erik");
    assert_string_equal(tag(&f, g1, "Black"), "Nováková, Jana");
    assert_string_equal(tag(&f, g1, "WhiteElo"), "2618");
    assert_string_equal(tag(&f, g1, "WhiteTitle"), "GM");
    assert_string_equal(tag(&f, g1, "BlackTitle"), "WGM");
    assert_string_equal(tag(&f, g1, "WhiteFed"), "SWE");
    assert_string_equal(tag(&f, g1, "WhiteFideId"), "1700123");
    assert_string_equal(tag(&f, g1, "Round"), "5");
    assert_string_equal(tag(&f, g1, "Event"), "Club Open"); /* the tournament file wins */
    assert_string_equal(tag(&f, g1, "Site"), "Oslo");       /* else the TRF's */
    assert_string_equal(tag(&f, g1, "Date"), "2026.11.25");
    assert_string_equal(tag(&f, g1, "TimeControl"), "40/5400:1800+30");
    assert_null(tag(&f, g2, "WhiteElo")); /* Nilsen has no rating */
    assert_int_equal(f.ncreated, 5);
    assert_int_equal(f.created[0], g1);
    assert_string_equal(f.created_board[0], "DGT23164");
    assert_int_equal(f.nlines, 1);

    /* The boards take their games; a game with a move is no longer waiting. */
    assert_int_equal(cr_pairings_link_take(l, "DGT23164"), g1);
    assert_int_equal(cr_pairings_link_take(l, "5"), g5);
    assert_int_equal(cr_pairings_link_take(l, "1"), 0);
    assert_int_equal(cr_pairings_link_take(l, "DGT7"), 0);
    play(&f, g1, "e2e4");
    assert_int_equal(cr_pairings_link_take(l, "DGT23164"), 0);

    /* The same file again: nothing. */
    int before = f.nrec;
    assert_int_equal(cr_pairings_link_import(l, &err), 0);
    assert_int_equal(f.nrec, before);
    assert_int_equal(f.nlines, 1);

    cr_pairings_link_stats st;
    cr_pairings_link_stats_get(l, &st);
    assert_int_equal(st.applied, 1);
    assert_int_equal(st.unchanged, 1);
    assert_int_equal(st.games, 5);
    assert_false(st.failing);
    assert_true(st.last_ok_us > 0);
    cr_pairings_link_free(l);
    cr_config_free(t);
    fake_done(&f);
}

static void test_reimport_names_and_new_table(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    cr_error err;
    char path[300];
    path_in_tmp(path, sizeof path, "oslo.trf");
    size_t len;
    char *text = cr_test_must_read(DATA "oslo-open-r5.trf", &len);
    write_all(path, text, len);
    cr_pairings_link *l = new_link(&f, path, 0, NULL);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    int g1 = game_at(&f, "5", 1), g3 = game_at(&f, "5", 3);
    play(&f, g1, "d2d4");
    play(&f, g1, "g8f6");
    arbiter_tag(&f, g1, "WhiteTitle", "IM"); /* an arbiter's correction */

    /* The pairing program corrects a spelling and a rating of a player whose
     * game is in progress, and pairs the player who had the bye with a late
     * entry (a new table). */
    char *a = replace(text, "Lindqvist, Erik   ", "Lindqvist, Eirik  ");
    char *b = replace(a, "2618 SWE", "2622 SWE");
    char *c =
        replace(b, "1519999 2008/10/10  0.0   11     4 w 0     6 b -  0000 - Z     7 w 0  0000 - U",
                "1519999 2008/10/10  0.0   11     4 w 0     6 b -  0000 - Z     7 w 0    12 b  ");
    const char *late =
        "001   12 m    Late, Larry                       1800 NOR     1599999 2001/01/01"
        "  0.0   12  0000 - Z  0000 - Z  0000 - Z  0000 - Z     9 w  \n";
    size_t n = strlen(c) + strlen(late);
    char *d = malloc(n + 1);
    strcpy(d, c);
    strcat(d, late);
    write_all(path, d, n);
    int before = f.nrec;
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    /* Table 1: White's name and rating as TAG events; the moves stay, and
     * the arbiter's title too (the title did not change in the file). */
    assert_string_equal(tag(&f, g1, "White"), "Lindqvist, Eirik");
    assert_string_equal(tag(&f, g1, "WhiteElo"), "2622");
    assert_string_equal(tag(&f, g1, "WhiteTitle"), "IM");
    assert_int_equal(cr_game_ply_count(cr_store_find(f.store, g1)->game), 2);
    assert_int_equal(count_kind(&f, before, CR_SEV_TAG), 2);
    assert_int_equal(count_kind(&f, before, CR_SEV_MOVE), 0);
    assert_int_equal(count_kind(&f, before, CR_SEV_CORRECTION), 0);
    assert_int_equal(count_kind(&f, before, CR_SEV_RESULT), 0);
    /* The new table: one new game after the others. */
    assert_int_equal(count_kind(&f, before, CR_SEV_GAME), 1);
    int g6 = game_at(&f, "5", 6);
    assert_true(g6 > g3);
    assert_string_equal(tag(&f, g6, "White"), "Late, Larry");
    assert_string_equal(tag(&f, g6, "Black"), "Olsen, Kristian");
    assert_int_equal(cr_store_game_count(f.store), 6);
    assert_int_equal(f.nlines, 2);
    free(a);
    free(b);
    free(c);
    free(d);
    free(text);
    cr_pairings_link_free(l);
    fake_done(&f);
}

/* PGN pairings make players easy to change: a different player reaches a
 * game not started, never a game in progress. */
static void test_player_changes(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    cr_error err;
    char path[300];
    path_in_tmp(path, sizeof path, "oslo.pgn");
    size_t len;
    char *text = cr_test_must_read(DATA "oslo-open-r5.pgn", &len);
    write_all(path, text, len);
    cr_pairings_link *l = new_link(&f, path, 0, NULL);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(cr_pairings_link_round(l), 5);
    assert_int_equal(cr_store_game_count(f.store), 5);
    int g1 = game_at(&f, "5", 1), g2 = game_at(&f, "5", 2);
    play(&f, g1, "e2e4");
    /* Both tables get another White (a player is known by the FIDE id
     * first: a new name with the same id is a spelling). */
    char *a0 = replace(text, "[White \"Lindqvist, Erik\"]", "[White \"Someone, Else\"]");
    char *a = replace(a0, "[WhiteFideId \"1700123\"]", "[WhiteFideId \"1700999\"]");
    free(a0);
    char *b = replace(a, "[White \"Nilsen, Petter\"]", "[White \"Other, Olga\"]");
    write_all(path, b, strlen(b));
    int before = f.nrec;
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_string_equal(tag(&f, g1, "White"), "Lindqvist, Erik"); /* in progress: kept */
    assert_string_equal(tag(&f, g1, "WhiteElo"), "2618");
    assert_string_equal(tag(&f, g2, "White"), "Other, Olga"); /* not started */
    assert_int_equal(count_kind(&f, before, CR_SEV_GAME), 0);
    cr_pairings_link_stats st;
    cr_pairings_link_stats_get(l, &st);
    assert_int_equal(st.conflicts, 1);

    /* A table dropped from the file keeps its game. */
    char *c = strdup(b);
    char *cut = strstr(c, "[Event \"Oslo Chess Festival 2026 - Open A\"]\n[Site \"Oslo NOR\"]\n"
                          "[Date \"2026.11.29\"]\n[Round \"5\"]\n[Board \"5\"]");
    assert_non_null(cut);
    *cut = '\0';
    write_all(path, c, strlen(c));
    before = f.nrec;
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(f.nrec, before);
    assert_int_equal(cr_store_game_count(f.store), 5);
    cr_pairings_link_stats_get(l, &st);
    assert_int_equal(st.removed, 1);
    free(a);
    free(b);
    free(c);
    free(text);
    cr_pairings_link_free(l);
    fake_done(&f);
}

static void test_bad_file_keeps_pairings(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    cr_error err;
    char path[300];
    path_in_tmp(path, sizeof path, "bad.trf");
    size_t len;
    char *text = cr_test_must_read(DATA "oslo-open-r5.trf", &len);
    write_all(path, text, len);
    cr_pairings_link *l = new_link(&f, path, 0, NULL);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    int before = f.nrec;
    const cr_pairings *in_force = cr_pairings_link_current(l);

    char *bad = replace(text, "2618 SWE", "26x8 SWE");
    write_all(path, bad, strlen(bad));
    int rc = cr_pairings_link_import(l, &err);
    assert_true(rc < 0);
    /* path:line:column: what */
    char want[400];
    snprintf(want, sizeof want, "%s:14:49: ", path);
    if (strncmp(err.text, want, strlen(want)) != 0) {
        fail_msg("error text '%s' does not start with '%s'", err.text, want);
    }
    assert_int_equal(err.line, 14);
    assert_int_equal(err.column, 49);
    assert_int_equal(f.nrec, before);
    assert_ptr_equal(cr_pairings_link_current(l), in_force);
    assert_int_equal(cr_pairings_link_round(l), 5);
    cr_pairings_link_stats st;
    cr_pairings_link_stats_get(l, &st);
    assert_true(st.failing);
    assert_int_equal(st.failed, 1);
    assert_int_equal(st.last_error.line, 14);

    char *metrics = NULL;
    size_t msize = 0;
    FILE *m = open_memstream(&metrics, &msize);
    cr_pairings_link_metrics(l, m);
    fclose(m);
    assert_non_null(strstr(metrics, "chessrelay_pairings_file_ok 0\n"));
    assert_non_null(strstr(metrics, "chessrelay_pairings_imports_total{result=\"error\"} 1\n"));
    assert_non_null(strstr(metrics, "line=\"14\",column=\"49\""));
    assert_non_null(strstr(metrics, "chessrelay_pairings_round 5\n"));
    free(metrics);

    /* A file that is gone: same. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(cr_pairings_link_import(l, &err), CR_EIO);
    assert_non_null(strstr(err.text, path));
    assert_int_equal(f.nrec, before);

    /* Fixed: back in force, nothing to change. */
    write_all(path, text, len);
    assert_int_equal(cr_pairings_link_import(l, &err), 0);
    cr_pairings_link_stats_get(l, &st);
    assert_false(st.failing);
    free(bad);
    free(text);
    cr_pairings_link_free(l);
    fake_done(&f);
}

/* Whatever went through the journal callback rebuilds the same events in a
 * fresh store; the file unchanged since then changes nothing. */
static void test_replay_rebuilds_the_same(void **state)
{
    (void)state;
    fake a, b;
    fake_init(&a);
    fake_init(&b);
    cr_error err;
    char path[300];
    path_in_tmp(path, sizeof path, "replay.trf");
    size_t len;
    /* Windows-1252 with CRLF line ends: the journal line must carry them. */
    char *text = cr_test_must_read(DATA "rapid-cp1252-crlf.trf", &len);
    write_all(path, text, len);
    /* Every round of this file is over: round 3 is given. */
    cr_pairings_link *la = new_link(&a, path, 3, NULL);
    assert_int_equal(cr_pairings_link_import(la, &err), 1);
    int g = game_at(&a, "3", 1);
    assert_true(g > 0);
    char *changed = replace(text, "2553 GER", "2557 GER");
    write_all(path, changed, strlen(changed));
    assert_int_equal(cr_pairings_link_import(la, &err), 1);
    assert_int_equal(a.nlines, 2);

    cr_pairings_link *lb = new_link(&b, path, 3, NULL);
    for (int i = 0; i < a.nlines; i++) {
        assert_int_equal(cr_pairings_link_replay(lb, a.lines[i], a.line_len[i], &err), 0);
    }
    assert_int_equal(b.nlines, 0); /* a replay journals nothing */
    assert_int_equal(b.nrec, a.nrec);
    for (int i = 0; i < a.nrec; i++) {
        assert_int_equal(b.recs[i].kind, a.recs[i].kind);
        assert_int_equal(b.recs[i].game, a.recs[i].game);
        assert_string_equal(b.recs[i].name, a.recs[i].name);
        assert_string_equal(b.recs[i].value, a.recs[i].value);
        assert_string_equal(b.recs[i].board, a.recs[i].board);
    }
    assert_int_equal(cr_pairings_link_round(lb), 3);
    assert_string_equal(tag(&b, g, "WhiteElo"), "2557");
    assert_string_equal(tag(&b, g, "White"), "Müller, Jürgen");
    /* After the rebuild the relay reads the file: nothing new. */
    assert_int_equal(cr_pairings_link_import(lb, &err), 0);
    assert_int_equal(b.nrec, a.nrec);
    /* A line that is not one of ours is refused, nothing applied. */
    assert_int_equal(cr_pairings_link_replay(lb, "x y", 3, &err), CR_EINVAL);
    assert_int_equal(cr_pairings_link_replay(lb, "4 trf", 5, &err), CR_EINVAL);
    assert_int_equal(b.nrec, a.nrec);
    free(changed);
    free(text);
    cr_pairings_link_free(la);
    cr_pairings_link_free(lb);
    fake_done(&a);
    fake_done(&b);
}

static void test_round_choice(void **state)
{
    (void)state;
    cr_error err;
    /* A round robin with round 5 paired. */
    fake f;
    fake_init(&f);
    cr_pairings_link *l = new_link(&f, DATA "masters-rr6.trf", 0, NULL);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(cr_pairings_link_round(l), 5);
    assert_int_equal(cr_store_game_count(f.store), 3);
    cr_pairings_link_free(l);
    fake_done(&f);

    /* Given: that round, even one that is over. */
    fake_init(&f);
    l = new_link(&f, DATA "masters-rr6.trf", 2, NULL);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(cr_pairings_link_round(l), 2);
    assert_int_equal(cr_store_game_count(f.store), 3);
    assert_true(game_at(&f, "2", 3) > 0);
    cr_pairings_link_free(l);
    fake_done(&f);

    /* Every result in: no round played, no game, until the next round. */
    fake_init(&f);
    char path[300];
    path_in_tmp(path, sizeof path, "done.trf");
    size_t len;
    char *text = cr_test_must_read(DATA "masters-rr6.trf", &len);
    /* Drop round 5 from every player line (the last 10 columns). */
    char *out = malloc(len + 1);
    size_t o = 0;
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        size_t keep = strncmp(line, "001", 3) == 0 && n > 91 + 40 ? 91 + 40 : n;
        memcpy(out + o, line, keep);
        o += keep;
        out[o++] = '\n';
        line += n + (nl != NULL);
    }
    write_all(path, out, o);
    l = new_link(&f, path, 0, NULL);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(cr_pairings_link_round(l), 0);
    assert_int_equal(cr_store_game_count(f.store), 0);
    /* Round 5 is paired: its games come. */
    write_all(path, text, len);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(cr_pairings_link_round(l), 5);
    assert_int_equal(cr_store_game_count(f.store), 3);
    free(out);
    free(text);
    cr_pairings_link_free(l);
    fake_done(&f);
}

/* The watch: a change is read once the file stood still for a poll. */
static void test_poll(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    cr_error err;
    char path[300];
    path_in_tmp(path, sizeof path, "poll.pgn");
    size_t len;
    char *text = cr_test_must_read(DATA "oslo-open-r5.pgn", &len);
    write_all(path, text, len);
    cr_pairings_link *l = new_link(&f, path, 0, NULL);
    assert_int_equal(cr_pairings_link_import(l, &err), 1);
    assert_int_equal(cr_pairings_link_poll(l, &err), 0); /* as imported */
    char *a = replace(text, "[WhiteElo \"2618\"]", "[WhiteElo \"2630\"]");
    write_all(path, a, strlen(a));
    assert_int_equal(cr_pairings_link_poll(l, &err), 0); /* changed: wait one poll */
    assert_int_equal(cr_pairings_link_poll(l, &err), 1);
    assert_string_equal(tag(&f, game_at(&f, "5", 1), "WhiteElo"), "2630");
    assert_int_equal(cr_pairings_link_poll(l, &err), 0);
    /* A bad version is reported once, not at every poll. */
    char *bad = replace(a, "[Round \"5\"]", "[Round \"5\"");
    write_all(path, bad, strlen(bad));
    assert_int_equal(cr_pairings_link_poll(l, &err), 0);
    assert_true(cr_pairings_link_poll(l, &err) < 0);
    assert_int_equal(cr_pairings_link_poll(l, &err), 0);
    assert_int_equal(cr_pairings_link_poll(l, &err), 0);
    free(bad);
    free(a);
    free(text);
    cr_pairings_link_free(l);
    fake_done(&f);
}

static void test_bad_config(void **state)
{
    (void)state;
    fake f;
    fake_init(&f);
    cr_pairings_link_config c;
    memset(&c, 0, sizeof c);
    c.store = f.store;
    c.new_game = f_new_game;
    c.emit = f_emit;
    assert_null(cr_pairings_link_new(&c)); /* no path */
    assert_null(cr_pairings_link_new(NULL));
    cr_pairings_link_free(NULL);
    fake_done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_games_before_any_board),
        cmocka_unit_test(test_reimport_names_and_new_table),
        cmocka_unit_test(test_player_changes),
        cmocka_unit_test(test_bad_file_keeps_pairings),
        cmocka_unit_test(test_replay_rebuilds_the_same),
        cmocka_unit_test(test_round_choice),
        cmocka_unit_test(test_poll),
        cmocka_unit_test(test_bad_config),
    };
    return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}
