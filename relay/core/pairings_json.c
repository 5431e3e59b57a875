/* The pairings as the viewer's JSON (see pairings_json.h). */
#include "core/pairings_json.h"

#include <jansson.h>
#include <stdio.h>

static int set_str(json_t *o, const char *key, const char *s)
{
    return s[0] ? json_object_set_new(o, key, json_string(s)) : 0;
}

static json_t *player_json(const cr_pairing_player *pl)
{
    json_t *o = json_object();
    if (!o) {
        return NULL;
    }
    int rc = 0;
    if (pl->start_rank > 0) {
        rc |= json_object_set_new(o, "startRank", json_integer(pl->start_rank));
    }
    rc |= json_object_set_new(o, "name", json_string(pl->name));
    rc |= set_str(o, "title", pl->title);
    rc |= set_str(o, "fed", pl->fed);
    if (pl->rating > 0) {
        rc |= json_object_set_new(o, "rating", json_integer(pl->rating));
    }
    if (pl->fide_id > 0) {
        rc |= json_object_set_new(o, "fideId", json_integer(pl->fide_id));
    }
    rc |= json_object_set_new(o, "points", json_real(pl->points));
    rc |= set_str(o, "team", pl->team);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Appends round r's boards to games and its byes to byes. */
static int add_round(const cr_pairings *p, int r, json_t *games, json_t *byes)
{
    char round[16];
    snprintf(round, sizeof round, "%d", r);
    int rc = 0, n = 0;
    const cr_pairing *b = cr_pairings_boards(p, r, &n);
    for (int i = 0; i < n && rc == 0; i++) {
        json_t *g = json_pack("{s:s, s:i, s:s, s:s, s:s}", "round", round, "table", b[i].table,
                              "white", b[i].white.name, "black", b[i].black.name, "result",
                              b[i].result);
        rc = g ? json_array_append_new(games, g) : -1;
    }
    const cr_pairing_bye *y = cr_pairings_byes(p, r, &n);
    for (int i = 0; i < n && rc == 0; i++) {
        char kind[2] = {y[i].kind, 0};
        json_t *o = json_pack("{s:s, s:s, s:s}", "round", round, "name", y[i].player.name, "kind",
                              kind);
        rc = o ? json_array_append_new(byes, o) : -1;
    }
    return rc;
}

char *cr_pairings_json(const cr_pairings *p)
{
    json_t *root = json_object(), *rounds = json_array(), *players = json_array();
    json_t *games = json_array(), *byes = json_array();
    int rc = root && rounds && players && games && byes ? 0 : -1;
    if (rc == 0) {
        rc |= json_object_set_new(
            root, "format", json_string(cr_pairings_source(p) == CR_PAIRINGS_TRF ? "trf" : "pgn"));
        rc |= json_object_set_new(root, "event", json_string(cr_pairings_info(p, CR_PF_NAME)));
    }
    for (int r = 1; r <= cr_pairings_round_count(p) && rc == 0; r++) {
        char round[16];
        snprintf(round, sizeof round, "%d", r);
        json_t *o = json_pack("{s:s}", "round", round);
        rc = o ? json_array_append_new(rounds, o) : -1;
        rc |= o ? set_str(o, "date", cr_pairings_round_date(p, r)) : 0;
        rc = rc ? rc : add_round(p, r, games, byes);
    }
    for (int i = 0; i < cr_pairings_player_count(p) && rc == 0; i++) {
        json_t *o = player_json(cr_pairings_player(p, i));
        rc = o ? json_array_append_new(players, o) : -1;
    }
    char *text = NULL;
    if (rc == 0) {
        json_object_set_new(root, "rounds", rounds);
        json_object_set_new(root, "players", players);
        json_object_set_new(root, "games", games);
        json_object_set_new(root, "byes", byes);
        rounds = players = games = byes = NULL;
        text = json_dumps(root, JSON_PRESERVE_ORDER | JSON_INDENT(1) | JSON_REAL_PRECISION(6));
    }
    json_decref(rounds);
    json_decref(players);
    json_decref(games);
    json_decref(byes);
    json_decref(root);
    return text;
}
