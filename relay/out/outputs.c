/* chessrelay relay: per-round public outputs. */
#include "out/outputs.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/export.h"
#include "out/export_files.h"
#include "util/grow.h"
#include "util/log.h"

typedef struct round_name {
    char name[CR_ROUND_MAX];
} round_name;

/* A small set of round names (a tournament has tens of rounds at most). */
typedef struct name_set {
    round_name *v;
    int n;
    size_t cap;
} name_set;

struct cr_outputs {
    cr_pusher *pusher;
    cr_exporter *exporter;
    name_set pushed; /* rounds with a push URL */
    name_set dirty;
    char last_export_error[200];
    bool push_evals, export_evals; /* [%eval] in the pushed / exported PGN */
    bool bare;                     /* no words of uncertainty in either */
    char event[128];               /* tournament.json's name */
};

static bool set_has(const name_set *s, const char *name)
{
    for (int i = 0; i < s->n; i++) {
        if (strcmp(s->v[i].name, name) == 0) {
            return true;
        }
    }
    return false;
}

static int set_add(name_set *s, const char *name)
{
    if (set_has(s, name)) {
        return 0;
    }
    round_name *v = cr_grow(s->v, &s->cap, (size_t)s->n + 1, sizeof *v, 8);
    if (!v) {
        return CR_ENOMEM;
    }
    s->v = v;
    snprintf(s->v[s->n++].name, sizeof s->v[0].name, "%s", name);
    return 0;
}

cr_outputs *cr_outputs_new(struct event_base *base, const char *export_dir,
                           const cr_pusher_config *push_cfg)
{
    cr_outputs *o = calloc(1, sizeof *o);
    if (!o) {
        return NULL;
    }
    cr_outputs_set_event(o, NULL);
    o->pusher = cr_pusher_new(base, push_cfg);
    if (export_dir && export_dir[0]) {
        o->exporter = cr_exporter_new(export_dir, cr_export_files_io());
        cr_log(CR_LOG_INFO, "export folder %s", export_dir);
    }
    if (!o->pusher || (export_dir && export_dir[0] && !o->exporter)) {
        cr_outputs_free(o);
        return NULL;
    }
    return o;
}

void cr_outputs_free(cr_outputs *o)
{
    if (!o) {
        return;
    }
    cr_pusher_free(o->pusher);
    cr_exporter_free(o->exporter);
    free(o->pushed.v);
    free(o->dirty.v);
    free(o);
}

int cr_outputs_set_push(cr_outputs *o, const char *round, const char *url, const char *token)
{
    int rc = cr_pusher_set_round(o->pusher, round, url, token);
    if (rc == 0 && url && url[0]) {
        rc = set_add(&o->pushed, round);
        cr_log(CR_LOG_INFO, "round %s: pushing to %s", round, url);
    }
    return rc;
}

void cr_outputs_set_event(cr_outputs *o, const char *event)
{
    snprintf(o->event, sizeof o->event, "%s", event && event[0] ? event : "chessrelay");
}

void cr_outputs_set_pgn_marks(cr_outputs *o, bool on)
{
    o->bare = !on;
}

void cr_outputs_set_evals(cr_outputs *o, bool push, bool export_dir)
{
    o->push_evals = push;
    o->export_evals = export_dir;
}

void cr_outputs_changed_game(cr_outputs *o, const cr_store *store, int game)
{
    const cr_store_game *g = o ? cr_store_find(store, game) : NULL;
    if (g && set_add(&o->dirty, g->round)) {
        cr_log(CR_LOG_WARN, "outputs: out of memory (round %s not updated)", g->round);
    }
}

const cr_pusher *cr_outputs_pusher(const cr_outputs *o)
{
    return o->pusher;
}

uint64_t cr_outputs_files_written(const cr_outputs *o)
{
    return o->exporter ? cr_exporter_files_written(o->exporter) : 0;
}

void cr_outputs_changed(cr_outputs *o, const cr_store *store, const cr_store_event *ev)
{
    if (!o || !ev || ev->kind == CR_SEV_CLOCK || ev->kind == CR_SEV_STATUS) {
        return;
    }
    const cr_store_game *g = cr_store_find(store, ev->game);
    if (g && set_add(&o->dirty, g->round)) {
        cr_log(CR_LOG_WARN, "outputs: out of memory (round %s not updated)", g->round);
    }
}

void cr_outputs_changed_all(cr_outputs *o, const cr_store *store)
{
    if (!o) {
        return;
    }
    for (int i = 0; i < cr_store_game_count(store); i++) {
        set_add(&o->dirty, cr_store_game_at(store, i)->round);
    }
}

/* A round name the export folder can use: a plain decimal 1..100000. */
static int round_number(const char *name)
{
    int n = 0;
    if (!name[0] || name[0] == '0') {
        return 0;
    }
    for (const char *p = name; *p; p++) {
        if (*p < '0' || *p > '9' || n > 10000) {
            return 0;
        }
        n = n * 10 + (*p - '0');
    }
    return n;
}

static int by_table(const void *a, const void *b)
{
    const cr_store_game *x = *(const cr_store_game *const *)a;
    const cr_store_game *y = *(const cr_store_game *const *)b;
    if (x->table != y->table) {
        return x->table < y->table ? -1 : 1;
    }
    return (x->id > y->id) - (x->id < y->id);
}

static void export_error(cr_outputs *o, const cr_error *err)
{
    /* Once per distinct error: a full disk would otherwise log every tick. */
    if (strcmp(o->last_export_error, err->text) != 0) {
        snprintf(o->last_export_error, sizeof o->last_export_error, "%s", err->text);
        cr_log(CR_LOG_ERROR, "export: %s", err->text);
    }
}

void cr_outputs_write_results(cr_outputs *o, int round, const char *trf_text)
{
    cr_error err;
    if (o && o->exporter && cr_exporter_write_results(o->exporter, round, trf_text, &err)) {
        export_error(o, &err);
    }
}

static unsigned pgn_what(const cr_outputs *o, bool evals)
{
    return (evals ? CR_STORE_PGN_EVALS : 0) | (o->bare ? CR_STORE_PGN_BARE : 0);
}

/* The games' PGNs (texts[i], malloc'd, to be freed by the caller) and
 * all of them joined (malloc'd), or NULL when out of memory. */
static char *render(const cr_store_game **games, int n, unsigned what, char **texts, size_t *len)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        texts[i] = cr_store_game_pgn_text_ex(games[i], what);
        if (!texts[i]) {
            return NULL;
        }
        total += strlen(texts[i]);
    }
    char *all = malloc(total + 1);
    if (!all) {
        return NULL;
    }
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        size_t k = strlen(texts[i]);
        memcpy(all + at, texts[i], k);
        at += k;
    }
    all[at] = '\0';
    *len = at;
    return all;
}

static void free_texts(char **texts, int n)
{
    for (int i = 0; texts && i < n; i++) {
        free(texts[i]);
        texts[i] = NULL;
    }
}

/*----- The LiveChess layout's JSON files -----*/

/* A player as LiveChess names one: "Last, First" split at the comma. */
static json_t *livechess_player(const cr_game *game, const char *side)
{
    char tag[32];
    const char *name = cr_game_tag(game, side);
    snprintf(tag, sizeof tag, "%sTitle", side);
    const char *title = cr_game_tag(game, tag);
    snprintf(tag, sizeof tag, "%sFed", side);
    const char *fed = cr_game_tag(game, tag);
    name = name && strcmp(name, "?") != 0 ? name : "";
    const char *comma = strchr(name, ',');
    size_t last_len = comma ? (size_t)(comma - name) : strlen(name);
    const char *first = comma ? comma + 1 : "";
    while (*first == ' ') {
        first++;
    }
    json_t *p = json_object();
    json_object_set_new(p, "fname", first[0] ? json_string(first) : json_null());
    json_object_set_new(p, "mname", json_null());
    json_object_set_new(p, "lname", json_stringn(name, last_len));
    json_object_set_new(p, "title", title && title[0] ? json_string(title) : json_null());
    json_object_set_new(p, "federation", fed && fed[0] ? json_string(fed) : json_null());
    return p;
}

static bool game_live(const cr_store_game *g)
{
    return cr_game_result(g->game) == CR_RESULT_NONE && g->board[0] &&
           cr_game_ply_count(g->game) > 0;
}

/* round-<n>/index.json: the newest game of each table, in table order
 * (games sorted by table, then id). */
static char *index_json(const cr_store_game **games, int n)
{
    json_t *pairings = json_array();
    for (int i = 0; i < n; i++) {
        bool newest = i + 1 == n || games[i + 1]->table != games[i]->table;
        if (games[i]->table < 1 || !newest) {
            continue;
        }
        json_t *p = json_object();
        json_object_set_new(p, "white", livechess_player(games[i]->game, "White"));
        json_object_set_new(p, "black", livechess_player(games[i]->game, "Black"));
        json_object_set_new(p, "result",
                            json_string(cr_result_string(cr_game_result(games[i]->game))));
        json_object_set_new(p, "live", json_boolean(game_live(games[i])));
        json_array_append_new(pairings, p);
    }
    json_t *root = json_object();
    json_object_set_new(root, "pairings", pairings);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return text;
}

static int by_round_table(const void *a, const void *b)
{
    const cr_store_game *x = *(const cr_store_game *const *)a;
    const cr_store_game *y = *(const cr_store_game *const *)b;
    int rx = round_number(x->round), ry = round_number(y->round);
    if (rx != ry) {
        return rx < ry ? -1 : 1;
    }
    return by_table(a, b);
}

/* tournament.json: the event and, for rounds 1 to the highest exported,
 * how many boards each has and how many are live (the newest game of each
 * table, as game-<table>.pgn holds). */
static void write_tournament(cr_outputs *o, const cr_store *store)
{
    int total = cr_store_game_count(store), n = 0;
    const cr_store_game **games = malloc((size_t)(total ? total : 1) * sizeof *games);
    json_t *root = json_object(), *rounds = json_array();
    char *text = NULL;
    if (games && root && rounds) {
        for (int i = 0; i < total; i++) {
            const cr_store_game *g = cr_store_game_at(store, i);
            if (round_number(g->round) > 0 && g->table >= 1) {
                games[n++] = g;
            }
        }
        qsort(games, (size_t)n, sizeof *games, by_round_table);
        int max = n ? round_number(games[n - 1]->round) : 0;
        for (int r = 1, i = 0; r <= max; r++) {
            int count = 0, live = 0;
            for (; i < n && round_number(games[i]->round) == r; i++) {
                bool newest = i + 1 == n || games[i + 1]->table != games[i]->table ||
                              strcmp(games[i + 1]->round, games[i]->round) != 0;
                count += newest;
                live += newest && game_live(games[i]);
            }
            json_t *x = json_object();
            json_object_set_new(x, "count", json_integer(count));
            json_object_set_new(x, "live", json_integer(live));
            json_array_append_new(rounds, x);
        }
        json_object_set_new(root, "id", json_string(o->event));
        json_object_set_new(root, "name", json_string(o->event));
        json_object_set_new(root, "rounds", rounds);
        rounds = NULL;
        text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    }
    json_decref(rounds);
    json_decref(root);
    free(games);
    cr_error err;
    if (!n && text) {
        free(text); /* no round named by a number: nothing exported */
        return;
    }
    if (!text) {
        cr_log(CR_LOG_WARN, "outputs: out of memory (tournament.json not updated)");
    } else if (cr_exporter_write_tournament(o->exporter, text, &err)) {
        export_error(o, &err);
    }
    free(text);
}

static void flush_round(cr_outputs *o, const cr_store *store, const char *round)
{
    bool push = set_has(&o->pushed, round);
    int number = o->exporter ? round_number(round) : 0;
    if (!push && !number) {
        return;
    }
    int total = cr_store_game_count(store), n = 0;
    const cr_store_game **games = malloc((size_t)(total ? total : 1) * sizeof *games);
    char **texts = calloc((size_t)(total ? total : 1), sizeof *texts);
    if (!games || !texts) {
        free(games);
        free(texts);
        cr_log(CR_LOG_WARN, "outputs: out of memory (round %s not updated)", round);
        return;
    }
    for (int i = 0; i < total; i++) {
        const cr_store_game *g = cr_store_game_at(store, i);
        if (strcmp(g->round, round) == 0) {
            games[n++] = g;
        }
    }
    qsort(games, (size_t)n, sizeof *games, by_table);
    size_t len = 0;
    bool ok = true;
    if (push) {
        char *all = render(games, n, pgn_what(o, o->push_evals), texts, &len);
        if (all) {
            cr_pusher_offer(o->pusher, round, all, len);
        }
        ok = all != NULL;
        free(all);
        free_texts(texts, n);
    }
    if (number && ok) {
        char *all = render(games, n, pgn_what(o, o->export_evals), texts, &len);
        ok = all != NULL;
        cr_error err;
        if (all && cr_exporter_write_round(o->exporter, number, all, &err)) {
            export_error(o, &err);
        }
        char *index = all ? index_json(games, n) : NULL;
        if (index && cr_exporter_write_index(o->exporter, number, index, &err)) {
            export_error(o, &err);
        }
        ok = ok && (!all || index);
        free(index);
        for (int i = 0; all && i < n; i++) {
            /* games are sorted by table, then id: the newest of a table is last */
            bool newest = i + 1 == n || games[i + 1]->table != games[i]->table;
            if (games[i]->table >= 1 && newest &&
                cr_exporter_write_game(o->exporter, number, games[i]->table, texts[i], &err)) {
                export_error(o, &err);
            }
        }
        free(all);
    }
    if (!ok) {
        cr_log(CR_LOG_WARN, "outputs: out of memory (round %s not updated)", round);
    }
    free_texts(texts, n);
    free(texts);
    free(games);
}

void cr_outputs_flush(cr_outputs *o, const cr_store *store)
{
    if (!o || !o->dirty.n) {
        return;
    }
    bool exported = false;
    for (int i = 0; i < o->dirty.n; i++) {
        flush_round(o, store, o->dirty.v[i].name);
        exported |= o->exporter && round_number(o->dirty.v[i].name) > 0;
    }
    o->dirty.n = 0;
    if (exported) {
        write_tournament(o, store);
    }
}
