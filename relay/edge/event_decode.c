/* chessrelay relay: store events back from their JSON. */
#include "edge/event_decode.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {"game",   "move",   "correction", "clock",
                                         "result", "status", "tag"};

/* The keys each kind may and must have, besides type, seq and ts. */
static const char *const game_keys[] = {"game", NULL};
static const char *const move_keys[] = {"game", "ply", "san", "uci", "fen", "clock", "emt", "flags", NULL};
static const char *const correction_keys[] = {"game", "ply", "retracted", NULL};
static const char *const clock_keys[] = {"game", "white", "black", "running", NULL}; /* + ply */
static const char *const result_keys[] = {"game", "result", "reason", NULL};
static const char *const status_keys[] = {"game", "online", "attention", NULL}; /* + reason,
                                                                                  squares */
static const char *const tag_keys[] = {"game", "name", "value", NULL};
static const char *const *const kind_keys[] = {
    game_keys, move_keys, correction_keys, clock_keys, result_keys, status_keys, tag_keys};

static bool listed(const char *const *keys, const char *key)
{
    for (; *keys; keys++) {
        if (strcmp(*keys, key) == 0) {
            return true;
        }
    }
    return false;
}

/* Every decode error goes through here: "<kind>: <field>: <what>". */
static int bad(cr_error *err, const char *kind, const char *field, const char *what)
{
    return cr_error_set(err, CR_EPROTO, 0, 0, "%s: %s: %s", kind, field, what);
}

static int get_int(json_t *o, const char *kind, const char *key, int64_t lo, int64_t hi,
                   int64_t *out, cr_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        return bad(err, kind, key, "missing");
    }
    if (!json_is_integer(v)) {
        return bad(err, kind, key, "expected an integer");
    }
    json_int_t n = json_integer_value(v);
    if (n < lo || n > hi) {
        return bad(err, kind, key, "out of range");
    }
    *out = (int64_t)n;
    return 0;
}

static int get_int32(json_t *o, const char *kind, const char *key, int64_t lo, int64_t hi, int *out,
                     cr_error *err)
{
    int64_t v = 0;
    int rc = get_int(o, kind, key, lo, hi, &v, err);
    if (rc == 0) {
        *out = (int)v;
    }
    return rc;
}

/* A string that fits in size bytes with its NUL. */
static int get_text(json_t *o, const char *kind, const char *key, char *dst, size_t size,
                    cr_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        return bad(err, kind, key, "missing");
    }
    if (!json_is_string(v)) {
        return bad(err, kind, key, "expected a string");
    }
    size_t n = json_string_length(v);
    if (n >= size || strlen(json_string_value(v)) != n) {
        return bad(err, kind, key, n >= size ? "too long" : "contains a NUL");
    }
    memcpy(dst, json_string_value(v), n + 1);
    return 0;
}

static int get_bool(json_t *o, const char *kind, const char *key, bool *out, cr_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        return bad(err, kind, key, "missing");
    }
    if (!json_is_boolean(v)) {
        return bad(err, kind, key, "expected true or false");
    }
    *out = json_is_true(v);
    return 0;
}

static int get_fen(json_t *o, const char *kind, const char *key, cr_position *pos, cr_error *err)
{
    char fen[CR_FEN_MAX];
    int rc = get_text(o, kind, key, fen, sizeof fen, err);
    if (rc) {
        return rc;
    }
    cr_error ferr;
    if (cr_position_from_fen(pos, fen, &ferr)) {
        char what[sizeof ferr.text + 16];
        snprintf(what, sizeof what, "invalid FEN: %s", ferr.text);
        return bad(err, kind, key, what);
    }
    return 0;
}

static int decode_game(json_t *j, cr_store_event *ev, cr_error *err)
{
    json_t *g = json_object_get(j, "game");
    if (!json_is_object(g)) {
        return bad(err, "game", "game", g ? "expected an object" : "missing");
    }
    static const char *const keys[] = {"id", "round", "board", "table", "tags", "start", NULL};
    const char *key;
    json_t *v;
    json_object_foreach(g, key, v)
    {
        if (!listed(keys, key)) {
            char field[96];
            snprintf(field, sizeof field, "game.%.60s", key);
            return bad(err, "game", field, "unknown field");
        }
    }
    int rc;
    if ((rc = get_int32(g, "game", "id", 1, INT32_MAX, &ev->game, err)) ||
        (rc = get_text(g, "game", "round", ev->round, sizeof ev->round, err)) ||
        (rc = get_text(g, "game", "board", ev->board, sizeof ev->board, err))) {
        return rc;
    }
    if (json_object_get(g, "table")) {
        /* the encoder leaves out an unknown (0) table */
        if ((rc = get_int32(g, "game", "table", 1, INT32_MAX, &ev->table, err))) {
            return rc;
        }
    }
    json_t *tags = json_object_get(g, "tags");
    if (!json_is_object(tags)) {
        return bad(err, "game", "tags", tags ? "expected an object" : "missing");
    }
    json_object_foreach(tags, key, v)
    {
        char field[96];
        snprintf(field, sizeof field, "tags.%.60s", key);
        if (strlen(key) >= CR_TAG_NAME_MAX || !key[0]) {
            return bad(err, "game", field, "tag name empty or too long");
        }
        if (!json_is_string(v)) {
            return bad(err, "game", field, "expected a string");
        }
        if (json_string_length(v) >= CR_TAG_VALUE_MAX ||
            strlen(json_string_value(v)) != json_string_length(v)) {
            return bad(err, "game", field, "value too long or with a NUL");
        }
        if (cr_store_event_add_tag(ev, key, json_string_value(v))) {
            return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
    }
    cr_position start, std;
    if ((rc = get_fen(g, "game", "start", &start, err))) {
        return rc;
    }
    /* The encoder always writes the start; only a non-standard one is kept. */
    char a[CR_FEN_MAX], b[CR_FEN_MAX];
    cr_position_init_start(&std);
    cr_position_to_fen(&start, a, sizeof a);
    cr_position_to_fen(&std, b, sizeof b);
    if (strcmp(a, b) != 0) {
        ev->has_start = true;
        ev->start = start;
    }
    return 0;
}

/* A status's "squares": ["d7", "e2"]. */
static int decode_squares(json_t *j, cr_bb *squares, cr_error *err)
{
    json_t *a = json_object_get(j, "squares");
    if (!json_is_array(a)) {
        return bad(err, "status", "squares", "expected an array");
    }
    size_t i;
    json_t *v;
    *squares = 0;
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        if (!s || strlen(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') {
            return bad(err, "status", "squares", "expected square names such as \"d7\"");
        }
        *squares |= 1ull << ((s[1] - '1') * 8 + (s[0] - 'a'));
    }
    return 0;
}

static int decode_flags(json_t *j, uint32_t *flags, cr_error *err)
{
    json_t *a = json_object_get(j, "flags");
    if (!json_is_array(a)) {
        return bad(err, "move", "flags", a ? "expected an array" : "missing");
    }
    static const struct {
        const char *name;
        uint32_t flag;
    } names[] = {{"reconstructed", CR_PLY_RECONSTRUCTED},
                 {"illegal", CR_PLY_ILLEGAL},
                 {"ambiguous", CR_PLY_AMBIGUOUS},
                 {"draw-offer", CR_PLY_DRAW_OFFER},
                 {"missing", CR_PLY_MISSING},
                 {"counted", CR_PLY_COUNTED}};
    size_t i;
    json_t *v;
    *flags = 0;
    json_array_foreach(a, i, v)
    {
        const char *s = json_string_value(v);
        uint32_t f = 0;
        for (size_t k = 0; s && k < sizeof names / sizeof names[0]; k++) {
            if (strcmp(s, names[k].name) == 0) {
                f = names[k].flag;
            }
        }
        if (!f) {
            char field[32];
            snprintf(field, sizeof field, "flags[%zu]", i);
            return bad(err, "move", field, s ? "unknown flag" : "expected a string");
        }
        *flags |= f;
    }
    return 0;
}

static int decode_move(json_t *j, cr_store_event *ev, cr_error *err)
{
    cr_ply *p = &ev->move;
    int rc;
    if ((rc = get_int32(j, "move", "ply", 0, INT32_MAX, &ev->ply, err)) ||
        (rc = get_text(j, "move", "san", p->san, sizeof p->san, err)) ||
        (rc = get_text(j, "move", "uci", p->uci, sizeof p->uci, err)) ||
        (rc = get_fen(j, "move", "fen", &p->after, err)) ||
        (rc = decode_flags(j, &p->flags, err))) {
        return rc;
    }
    json_t *c = json_object_get(j, "clock");
    if (!c) {
        return bad(err, "move", "clock", "missing");
    }
    if (json_is_null(c)) {
        p->clock_ms = CR_CLOCK_UNKNOWN;
    } else if ((rc = get_int32(j, "move", "clock", 0, INT32_MAX, &p->clock_ms, err))) {
        return bad(err, "move", "clock", "expected an integer >= 0 or null");
    }
    /* the time the move took (%emt); absent from older venues */
    json_t *emt = json_object_get(j, "emt");
    p->emt_ms = CR_CLOCK_UNKNOWN;
    if (emt && !json_is_null(emt) &&
        get_int32(j, "move", "emt", 0, INT32_MAX, &p->emt_ms, err)) {
        return bad(err, "move", "emt", "expected an integer >= 0 or null");
    }
    /* a gap's plies not seen; absent from older venues */
    int missing = 0;
    if ((p->flags & CR_PLY_MISSING) && json_object_get(j, "missing") &&
        (rc = get_int32(j, "move", "missing", 0, UINT16_MAX, &missing, err))) {
        return rc;
    }
    p->missing = (uint16_t)missing;
    p->move = CR_MOVE_NONE;
    p->ts = -1;
    p->fits = 1;
    return 0;
}

static int decode_body(json_t *j, cr_store_event *ev, cr_error *err)
{
    int rc;
    const char *kind = kind_names[ev->kind];
    if (ev->kind != CR_SEV_GAME &&
        (rc = get_int32(j, kind, "game", 1, INT32_MAX, &ev->game, err))) {
        return rc;
    }
    switch (ev->kind) {
    case CR_SEV_GAME:
        return decode_game(j, ev, err);
    case CR_SEV_MOVE:
        return decode_move(j, ev, err);
    case CR_SEV_CORRECTION:
        if ((rc = get_int32(j, kind, "ply", 0, INT32_MAX, &ev->ply, err))) {
            return rc;
        }
        return get_int32(j, kind, "retracted", 0, INT32_MAX, &ev->retracted, err);
    case CR_SEV_CLOCK: {
        char running[4];
        /* CR_CLOCK_UNKNOWN (-1) is written as is */
        if ((rc = get_int32(j, kind, "white", -1, INT32_MAX, &ev->white_ms, err)) ||
            (rc = get_int32(j, kind, "black", -1, INT32_MAX, &ev->black_ms, err)) ||
            (rc = get_text(j, kind, "running", running, sizeof running, err))) {
            return rc;
        }
        if (strcmp(running, "w") == 0) {
            ev->running = CR_WHITE;
        } else if (strcmp(running, "b") == 0) {
            ev->running = CR_BLACK;
        } else if (strcmp(running, "-") == 0) {
            ev->running = CR_CLOCK_STOPPED;
        } else {
            return bad(err, kind, "running", "expected \"w\", \"b\" or \"-\"");
        }
        /* the ply a press timed, with its clock and %emt (null: unknown) */
        ev->clock_ply = -1;
        if (json_object_get(j, "ply")) {
            json_t *pc = json_object_get(j, "ply_clock"), *emt = json_object_get(j, "emt");
            if ((rc = get_int32(j, kind, "ply", 0, INT32_MAX, &ev->clock_ply, err))) {
                return rc;
            }
            ev->ply_clock_ms = CR_CLOCK_UNKNOWN;
            ev->ply_emt_ms = CR_CLOCK_UNKNOWN;
            if (json_is_integer(pc) && (rc = get_int32(j, kind, "ply_clock", 0, INT32_MAX,
                                                       &ev->ply_clock_ms, err))) {
                return rc;
            }
            if (json_is_integer(emt) &&
                (rc = get_int32(j, kind, "emt", 0, INT32_MAX, &ev->ply_emt_ms, err))) {
                return rc;
            }
        }
        return 0;
    }
    case CR_SEV_RESULT: {
        char result[16];
        if ((rc = get_text(j, kind, "result", result, sizeof result, err)) ||
            (rc = get_text(j, kind, "reason", ev->reason, sizeof ev->reason, err))) {
            return rc;
        }
        int r = cr_result_parse(result);
        if (r < 0) {
            return bad(err, kind, "result", "expected 1-0, 0-1, 1/2-1/2 or *");
        }
        ev->result = (cr_result)r;
        return 0;
    }
    case CR_SEV_STATUS:
        if ((rc = get_bool(j, kind, "online", &ev->online, err)) ||
            (rc = get_bool(j, kind, "attention", &ev->attention, err))) {
            return rc;
        }
        if (json_object_get(j, "squares") && (rc = decode_squares(j, &ev->squares, err))) {
            return rc;
        }
        if (json_object_get(j, "reason")) {
            return get_text(j, kind, "reason", ev->reason, sizeof ev->reason, err);
        }
        return 0;
    case CR_SEV_TAG:
        if ((rc = get_text(j, kind, "name", ev->tag.name, sizeof ev->tag.name, err)) ||
            (rc = get_text(j, kind, "value", ev->tag.value, sizeof ev->tag.value, err))) {
            return rc;
        }
        if (!ev->tag.name[0]) {
            return bad(err, kind, "name", "empty");
        }
        return 0;
    }
    return 0;
}

int cr_event_decode(const char *text, size_t len, cr_store_event **out, cr_error *err)
{
    *out = NULL;
    json_error_t jerr;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        return cr_error_set(err, CR_EPROTO, jerr.line, jerr.column, "event: not JSON: %s",
                            jerr.text);
    }
    int rc = 0;
    cr_store_event *ev = NULL;
    const char *type = json_string_value(json_object_get(j, "type"));
    int kind = -1;
    for (int k = 0; type && k < (int)(sizeof kind_names / sizeof kind_names[0]); k++) {
        if (strcmp(type, kind_names[k]) == 0) {
            kind = k;
        }
    }
    if (!json_is_object(j)) {
        rc = bad(err, "event", "(message)", "expected an object");
        goto out;
    }
    if (kind < 0) {
        rc = bad(err, "event", "type",
                 !json_object_get(j, "type") ? "missing"
                 : type                      ? "unknown event type"
                                             : "expected a string");
        goto out;
    }
    ev = cr_store_event_new((cr_sev_kind)kind);
    if (!ev) {
        rc = cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        goto out;
    }
    const char *key;
    json_t *v;
    json_object_foreach(j, key, v)
    {
        bool known = strcmp(key, "type") == 0 || strcmp(key, "seq") == 0 ||
                     strcmp(key, "ts") == 0 || listed(kind_keys[kind], key) ||
                     (kind == CR_SEV_MOVE && strcmp(key, "missing") == 0) ||
                     (kind == CR_SEV_STATUS &&
                      (strcmp(key, "reason") == 0 || strcmp(key, "squares") == 0)) ||
                     (kind == CR_SEV_CLOCK && (strcmp(key, "ply") == 0 ||
                                               strcmp(key, "ply_clock") == 0 ||
                                               strcmp(key, "emt") == 0));
        if (!known) {
            char field[80];
            snprintf(field, sizeof field, "%.60s", key);
            rc = bad(err, type, field, "unknown field");
            goto out;
        }
    }
    if ((rc = get_int(j, type, "seq", 1, INT64_MAX, &ev->seq, err)) ||
        (rc = get_int(j, type, "ts", 0, INT64_MAX, &ev->ts, err)) ||
        (rc = decode_body(j, ev, err))) {
        goto out;
    }
out:
    json_decref(j);
    if (rc) {
        cr_store_event_free(ev);
        return rc;
    }
    *out = ev;
    return 0;
}

int cr_event_resolve_move(cr_store_event *ev, const cr_position *before, cr_error *err)
{
    if (ev->kind != CR_SEV_MOVE) {
        return 0;
    }
    cr_ply *p = &ev->move;
    char want[CR_FEN_MAX], got[CR_FEN_MAX];
    cr_position_to_fen(&p->after, want, sizeof want);
    if (p->flags & CR_PLY_ILLEGAL) {
        p->move = CR_MOVE_NONE;
        return 0;
    }
    cr_move m = cr_move_from_uci(before, p->uci);
    if (m == CR_MOVE_NONE) {
        char fen[CR_FEN_MAX];
        cr_position_to_fen(before, fen, sizeof fen);
        return cr_error_set(err, CR_EPROTO, 0, 0, "move: uci: %s is not legal in %s", p->uci, fen);
    }
    cr_position after = *before;
    cr_position_do_move(&after, m);
    cr_position_to_fen(&after, got, sizeof got);
    if (strcmp(want, got) != 0) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "move: fen: %s does not follow %s (%s)", want,
                            p->uci, got);
    }
    p->move = m;
    return 0;
}

int cr_event_apply_json(cr_store *store, const char *text, size_t len, cr_store_event **out,
                        cr_error *err)
{
    if (out) {
        *out = NULL;
    }
    cr_store_event *ev;
    int rc = cr_event_decode(text, len, &ev, err);
    if (rc) {
        return rc;
    }
    if (ev->kind == CR_SEV_MOVE) {
        const cr_store_game *g = cr_store_find(store, ev->game);
        if (!g) {
            int id = ev->game;
            cr_store_event_free(ev);
            return cr_error_set(err, CR_EINVAL, 0, 0, "move: game: unknown game %d", id);
        }
        rc = cr_event_resolve_move(ev, cr_game_position(g->game), err);
    }
    if (rc == 0) {
        rc = cr_store_apply(store, ev, err);
    }
    if (rc == 0 && out) {
        *out = ev;
    } else {
        cr_store_event_free(ev);
    }
    return rc;
}

/*----- engine evaluations -----*/

/* cp or mate (exactly one), and depth, of an eval or one of its lines. */
static int get_score(json_t *o, const char *kind, bool *mate, int *value, int *depth,
                     cr_error *err)
{
    json_t *cp = json_object_get(o, "cp"), *m = json_object_get(o, "mate");
    if (!cp == !m) {
        return bad(err, kind, "cp", "expected cp or mate");
    }
    *mate = m != NULL;
    int rc = get_int32(o, kind, m ? "mate" : "cp", -1000000, 1000000, value, err);
    return rc ? rc : get_int32(o, kind, "depth", 1, 1000, depth, err);
}

static int decode_lines(json_t *a, cr_eval *e, cr_error *err)
{
    if (!json_is_array(a) || json_array_size(a) < 2 || json_array_size(a) > CR_EVAL_LINES_MAX) {
        return bad(err, "eval", "lines", "expected an array of 2 to 5 lines");
    }
    /* the first line is the eval's own fields */
    for (size_t i = 1; i < json_array_size(a); i++) {
        json_t *l = json_array_get(a, i);
        cr_eval_line *o = &e->more[i - 1];
        if (!json_is_object(l)) {
            return bad(err, "eval", "lines", "expected objects");
        }
        int rc = get_score(l, "eval line", &o->mate, &o->value, &o->depth, err);
        if (rc == 0) {
            rc = get_text(l, "eval line", "pv", o->pv, sizeof o->pv, err);
        }
        if (rc) {
            return rc;
        }
    }
    e->nlines = (int)json_array_size(a);
    return 0;
}

int cr_eval_decode(const char *text, size_t len, int *game, int *ply, char fen[CR_FEN_MAX],
                   cr_eval *e, cr_error *err)
{
    json_error_t jerr;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "eval: not JSON: %s", jerr.text);
    }
    memset(e, 0, sizeof *e);
    int rc = 0;
    json_t *t = json_object_get(j, "type"), *ev = json_object_get(j, "eval");
    if (!json_is_string(t) || strcmp(json_string_value(t), "eval") != 0) {
        rc = bad(err, "eval", "type", "expected \"eval\"");
    } else if (!json_is_object(ev)) {
        rc = bad(err, "eval", "eval", "expected an object");
    }
    if (rc == 0) {
        rc = get_int32(j, "eval", "game", 1, INT32_MAX, game, err);
    }
    if (rc == 0) {
        rc = get_int32(j, "eval", "ply", 0, 100000, ply, err);
    }
    if (rc == 0) {
        rc = get_text(j, "eval", "fen", fen, CR_FEN_MAX, err);
    }
    if (rc == 0) {
        rc = get_score(ev, "eval", &e->mate, &e->value, &e->depth, err);
    }
    if (rc == 0) {
        rc = get_text(ev, "eval", "best", e->best, sizeof e->best, err);
    }
    if (rc == 0) {
        rc = get_text(ev, "eval", "pv", e->pv, sizeof e->pv, err);
    }
    json_t *nag = rc == 0 ? json_object_get(ev, "nag") : NULL;
    if (nag) {
        rc = get_int32(ev, "eval", "nag", 0, 255, &e->nag, err);
    }
    json_t *lines = rc == 0 ? json_object_get(ev, "lines") : NULL;
    if (lines) {
        rc = decode_lines(lines, e, err);
    }
    json_decref(j);
    return rc;
}
