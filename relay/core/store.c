/* chessrelay relay: the game store. */
#include "core/store.h"
#include "util/grow.h"

#include "cr/pgn.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

struct cr_store {
    cr_store_game *games;
    int count;
    size_t cap;
    int64_t last_seq;
    bool pgn_evals;
    bool pgn_bare; /* no words of uncertainty in cr_store_pgn */
};

static void copy_str(char *dst, size_t size, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= size) {
        n = size - 1;
    }
    if (n) {
        memcpy(dst, src, n);
    }
    dst[n] = '\0';
}

/* Each thread keeps the event it freed last for its next one: a feed's
 * every clock reading makes and frees an event, and a new one cost about
 * as much as applying it. A thread's spare goes with the thread (the key's
 * destructor), the main thread's at exit. */
static _Thread_local cr_store_event *spare;
static _Thread_local bool spare_kept; /* this thread's destructor is set */
static once_flag spare_once = ONCE_FLAG_INIT;
static tss_t spare_key;
static bool spare_ok;

static void spare_free(void *unused)
{
    (void)unused;
    free(spare);
    spare = NULL;
}

static void spare_init(void)
{
    spare_ok = tss_create(&spare_key, spare_free) == thrd_success;
}

cr_store_event *cr_store_event_new(cr_sev_kind kind)
{
    cr_store_event *ev = spare;
    if (ev) {
        spare = NULL;
        memset(ev, 0, sizeof *ev);
    } else {
        ev = calloc(1, sizeof *ev);
    }
    if (ev) {
        ev->kind = kind;
        ev->running = CR_CLOCK_STOPPED;
        ev->clock_ply = -1;
    }
    return ev;
}

void cr_store_event_free(cr_store_event *ev)
{
    if (ev) {
        free(ev->tags);
        free(ev->comment);
        if (!spare && !spare_kept) {
            call_once(&spare_once, spare_init);
            spare_kept = spare_ok && tss_set(spare_key, &spare_kept) == thrd_success;
        }
        if (!spare && spare_kept) {
            spare = ev;
        } else {
            free(ev);
        }
    }
}

int cr_store_event_add_tag(cr_store_event *ev, const char *name, const char *value)
{
    cr_store_tag *t = realloc(ev->tags, (size_t)(ev->tag_count + 1) * sizeof *t);
    if (!t) {
        return CR_ENOMEM;
    }
    ev->tags = t;
    copy_str(t[ev->tag_count].name, sizeof t->name, name);
    copy_str(t[ev->tag_count].value, sizeof t->value, value);
    ev->tag_count++;
    return 0;
}

/*----- JSON -----*/

static const char *running_text(int running)
{
    return running == CR_WHITE ? "w" : running == CR_BLACK ? "b" : "-";
}

static json_t *flags_json(uint32_t flags)
{
    json_t *a = json_array();
    if (flags & CR_PLY_RECONSTRUCTED) {
        json_array_append_new(a, json_string("reconstructed"));
    }
    if (flags & CR_PLY_ILLEGAL) {
        json_array_append_new(a, json_string("illegal"));
    }
    if (flags & CR_PLY_AMBIGUOUS) {
        json_array_append_new(a, json_string("ambiguous"));
    }
    if (flags & CR_PLY_DRAW_OFFER) {
        json_array_append_new(a, json_string("draw-offer"));
    }
    if (flags & CR_PLY_MISSING) {
        json_array_append_new(a, json_string("missing"));
    }
    if ((flags & CR_PLY_MISSING) && (flags & CR_PLY_COUNTED)) {
        json_array_append_new(a, json_string("counted"));
    }
    return a;
}

/* ["d7", "e2"]: a bitboard's squares, a1 first. */
static json_t *squares_json(cr_bb squares)
{
    json_t *a = json_array();
    for (int sq = 0; sq < CR_SQ_NB; sq++) {
        if (squares >> sq & 1) {
            char name[3];
            cr_square_name(sq, name);
            json_array_append_new(a, json_string(name));
        }
    }
    return a;
}

static json_t *fen_json(const cr_position *pos)
{
    char fen[CR_FEN_MAX];
    if (cr_position_to_fen(pos, fen, sizeof fen) < 0) {
        return json_null();
    }
    return json_string(fen);
}

/* json_string() refuses invalid UTF-8 (tags come from boards and files):
 * fall back to a copy with the bad bytes replaced. */
static json_t *text_json(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j) {
        return j;
    }
    char buf[512];
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && n + 1 < sizeof buf; p++) {
        buf[n++] = *p < 0x80 ? (char)*p : '?';
    }
    buf[n] = '\0';
    return json_string(buf);
}

static json_t *clock_value(int32_t ms)
{
    return ms == CR_CLOCK_UNKNOWN ? json_null() : json_integer(ms);
}

static json_t *line_json(bool mate, int value, int depth, const char *pv)
{
    json_t *j = json_object();
    json_object_set_new(j, mate ? "mate" : "cp", json_integer(value));
    json_object_set_new(j, "depth", json_integer(depth));
    json_object_set_new(j, "pv", text_json(pv));
    return j;
}

static json_t *eval_json(const cr_eval *e)
{
    json_t *j = json_object();
    json_object_set_new(j, e->mate ? "mate" : "cp", json_integer(e->value));
    json_object_set_new(j, "depth", json_integer(e->depth));
    json_object_set_new(j, "best", text_json(e->best));
    json_object_set_new(j, "pv", text_json(e->pv));
    if (e->nag) {
        json_object_set_new(j, "nag", json_integer(e->nag));
    }
    /* multipv: every line, the first one this eval's own */
    if (e->nlines > 1) {
        json_t *a = json_array();
        json_array_append_new(a, line_json(e->mate, e->value, e->depth, e->pv));
        for (int i = 0; i < e->nlines - 1 && i < CR_EVAL_LINES_MAX - 1; i++) {
            const cr_eval_line *l = &e->more[i];
            json_array_append_new(a, line_json(l->mate, l->value, l->depth, l->pv));
        }
        json_object_set_new(j, "lines", a);
    }
    return j;
}

bool cr_eval_equal(const cr_eval *a, const cr_eval *b)
{
    if (a->depth != b->depth || a->mate != b->mate || a->value != b->value || a->nag != b->nag ||
        a->nlines != b->nlines || strcmp(a->best, b->best) != 0 || strcmp(a->pv, b->pv) != 0) {
        return false;
    }
    for (int i = 0; i < a->nlines - 1 && i < CR_EVAL_LINES_MAX - 1; i++) {
        const cr_eval_line *x = &a->more[i], *y = &b->more[i];
        if (x->depth != y->depth || x->mate != y->mate || x->value != y->value ||
            strcmp(x->pv, y->pv) != 0) {
            return false;
        }
    }
    return true;
}

/* e: the ply's evaluation or NULL (no "eval" key then). */
static json_t *move_json(const cr_ply *p, const cr_eval *e)
{
    json_t *m = json_object();
    json_object_set_new(m, "san", text_json(p->san));
    json_object_set_new(m, "uci", text_json(p->uci));
    json_object_set_new(m, "fen", fen_json(&p->after));
    json_object_set_new(m, "clock", clock_value(p->clock_ms));
    /* %emt: the viewer's time per move (docs/protocol.md) */
    json_object_set_new(m, "emt", clock_value(p->emt_ms));
    json_object_set_new(m, "flags", flags_json(p->flags));
    if (p->flags & CR_PLY_MISSING) {
        /* a gap: plies not seen, at least this many ("counted": exactly) */
        json_object_set_new(m, "missing", json_integer(p->missing));
    }
    if (e) {
        json_object_set_new(m, "eval", eval_json(e));
    }
    return m;
}

static cr_buf *dump(json_t *j)
{
    if (!j) {
        return NULL;
    }
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return cr_buf_take_str(s);
}

cr_buf *cr_store_event_json(const cr_store_event *ev)
{
    static const char *const types[] = {"game", "move", "correction", "clock",
                                        "result", "status", "tag"};
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string(types[ev->kind]));
    json_object_set_new(j, "seq", json_integer(ev->seq));
    json_object_set_new(j, "ts", json_integer(ev->ts));
    switch (ev->kind) {
    case CR_SEV_GAME: {
        json_t *g = json_object();
        json_object_set_new(g, "id", json_integer(ev->game));
        json_object_set_new(g, "round", text_json(ev->round));
        json_object_set_new(g, "board", text_json(ev->board));
        if (ev->table) {
            json_object_set_new(g, "table", json_integer(ev->table));
        }
        json_t *tags = json_object();
        for (int i = 0; i < ev->tag_count; i++) {
            json_object_set_new(tags, ev->tags[i].name, text_json(ev->tags[i].value));
        }
        json_object_set_new(g, "tags", tags);
        cr_position start;
        if (ev->has_start) {
            start = ev->start;
        } else {
            cr_position_init_start(&start);
        }
        json_object_set_new(g, "start", fen_json(&start));
        json_object_set_new(j, "game", g);
        break;
    }
    case CR_SEV_MOVE: {
        json_object_set_new(j, "game", json_integer(ev->game));
        json_object_set_new(j, "ply", json_integer(ev->ply));
        json_t *m = move_json(&ev->move, NULL);
        json_object_update(j, m);
        json_decref(m);
        break;
    }
    case CR_SEV_CORRECTION:
        json_object_set_new(j, "game", json_integer(ev->game));
        json_object_set_new(j, "ply", json_integer(ev->ply));
        json_object_set_new(j, "retracted", json_integer(ev->retracted));
        break;
    case CR_SEV_CLOCK:
        json_object_set_new(j, "game", json_integer(ev->game));
        json_object_set_new(j, "white", json_integer(ev->white_ms));
        json_object_set_new(j, "black", json_integer(ev->black_ms));
        json_object_set_new(j, "running", json_string(running_text(ev->running)));
        if (ev->clock_ply >= 0) {
            json_object_set_new(j, "ply", json_integer(ev->clock_ply));
            json_object_set_new(j, "ply_clock", clock_value(ev->ply_clock_ms));
            json_object_set_new(j, "emt", clock_value(ev->ply_emt_ms));
        }
        break;
    case CR_SEV_RESULT:
        json_object_set_new(j, "game", json_integer(ev->game));
        json_object_set_new(j, "result", json_string(cr_result_string(ev->result)));
        json_object_set_new(j, "reason", text_json(ev->reason));
        break;
    case CR_SEV_STATUS:
        json_object_set_new(j, "game", json_integer(ev->game));
        json_object_set_new(j, "online", json_boolean(ev->online));
        json_object_set_new(j, "attention", json_boolean(ev->attention));
        if (ev->reason[0]) {
            json_object_set_new(j, "reason", text_json(ev->reason));
        }
        if (ev->attention && ev->squares) {
            json_object_set_new(j, "squares", squares_json(ev->squares));
        }
        break;
    case CR_SEV_TAG:
        json_object_set_new(j, "game", json_integer(ev->game));
        json_object_set_new(j, "name", text_json(ev->tag.name));
        json_object_set_new(j, "value", text_json(ev->tag.value));
        break;
    }
    return dump(j);
}

/*----- The store -----*/

cr_store *cr_store_new(void)
{
    return calloc(1, sizeof(cr_store));
}

void cr_store_free(cr_store *s)
{
    if (!s) {
        return;
    }
    for (int i = 0; i < s->count; i++) {
        cr_game_free(s->games[i].game);
        free(s->games[i].evals);
    }
    free(s->games);
    free(s);
}

int cr_store_game_count(const cr_store *s)
{
    return s->count;
}

const cr_store_game *cr_store_game_at(const cr_store *s, int i)
{
    return i >= 0 && i < s->count ? &s->games[i] : NULL;
}

/* Game ids are handed out in increasing order, so the array is sorted by id. */
static cr_store_game *find(const cr_store *s, int id)
{
    int lo = 0, hi = s->count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (s->games[mid].id == id) {
            return &s->games[mid];
        }
        if (s->games[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return NULL;
}

const cr_store_game *cr_store_find(const cr_store *s, int id)
{
    return find(s, id);
}

const cr_store_game *cr_store_board_game(const cr_store *s, const char *board)
{
    for (int i = s->count - 1; i >= 0; i--) {
        if (strcmp(s->games[i].board, board) == 0) {
            return &s->games[i];
        }
    }
    return NULL;
}

int64_t cr_store_last_seq(const cr_store *s)
{
    return s->last_seq;
}

static int apply_game(cr_store *s, const cr_store_event *ev, cr_error *err)
{
    if (s->count && ev->game <= s->games[s->count - 1].id) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "game id %d is not new", ev->game);
    }
    cr_game *game = cr_game_new(ev->has_start ? &ev->start : NULL);
    if (!game) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    for (int i = 0; i < ev->tag_count; i++) {
        if (strcmp(ev->tags[i].name, "FEN") && strcmp(ev->tags[i].name, "SetUp")) {
            cr_game_set_tag(game, ev->tags[i].name, ev->tags[i].value);
        }
    }
    /* Every PGN names its round and board (lichess broadcasts match on them). */
    if (!cr_game_tag(game, "Round") && ev->round[0]) {
        cr_game_set_tag(game, "Round", ev->round);
    }
    if (!cr_game_tag(game, "Board") && ev->board[0]) {
        cr_game_set_tag(game, "Board", ev->board);
    }
    cr_store_game *v = cr_grow(s->games, &s->cap, (size_t)s->count + 1, sizeof *v, 16);
    if (!v) {
        cr_game_free(game);
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    s->games = v;
    cr_store_game *g = &s->games[s->count++];
    memset(g, 0, sizeof *g);
    g->id = ev->game;
    copy_str(g->board, sizeof g->board, ev->board);
    copy_str(g->round, sizeof g->round, ev->round);
    g->table = ev->table;
    g->game = game;
    g->white_ms = g->black_ms = CR_CLOCK_UNKNOWN;
    g->running = CR_CLOCK_STOPPED;
    g->online = true;
    return 0;
}

static int apply_move(cr_store_game *g, const cr_store_event *ev, cr_error *err)
{
    int n = cr_game_ply_count(g->game);
    if (ev->ply != n) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "game %d: move for ply %d, the game has %d", g->id,
                            ev->ply, n);
    }
    const cr_ply *p = &ev->move;
    int rc;
    if (p->flags & CR_PLY_ILLEGAL) {
        rc = cr_game_push_illegal(g->game, &p->after, p->san, p->clock_ms, p->ts);
    } else if (!ev->has_before || (rc = cr_game_push_ply(g->game, &ev->before, p)) == CR_EMOVE) {
        rc = cr_game_push(g->game, p->move, p->clock_ms, p->ts, p->flags);
    }
    if (rc < 0) {
        return cr_error_set(err, rc, 0, 0, "game %d: ply %d (%s) does not fit: %s", g->id, ev->ply,
                            p->san, cr_strerror(rc));
    }
    cr_ply *q = cr_game_ply_mut(g->game, n);
    q->flags |= p->flags;
    q->emt_ms = p->emt_ms;
    q->fits = p->fits;
    q->missing = p->missing;
    if (ev->comment && cr_game_set_comment(g->game, n, ev->comment) != 0) {
        cr_game_truncate(g->game, n);
        return cr_error_set(err, CR_ENOMEM, 0, 0, "game %d: ply %d: out of memory", g->id, n);
    }
    return 0;
}

int cr_store_apply(cr_store *s, const cr_store_event *ev, cr_error *err)
{
    if (ev->seq <= s->last_seq) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "seq %" PRId64 " after %" PRId64, ev->seq,
                            s->last_seq);
    }
    int rc = 0;
    if (ev->kind == CR_SEV_GAME) {
        rc = apply_game(s, ev, err);
    } else {
        cr_store_game *g = find(s, ev->game);
        if (!g) {
            return cr_error_set(err, CR_EINVAL, 0, 0, "unknown game %d", ev->game);
        }
        switch (ev->kind) {
        case CR_SEV_MOVE:
            rc = apply_move(g, ev, err);
            break;
        case CR_SEV_CORRECTION:
            if (ev->ply < 0 || ev->ply > cr_game_ply_count(g->game)) {
                return cr_error_set(err, CR_EINVAL, 0, 0, "game %d: correction from ply %d of %d",
                                    g->id, ev->ply, cr_game_ply_count(g->game));
            }
            cr_game_truncate(g->game, ev->ply);
            for (int i = ev->ply; i < g->evals_cap; i++) {
                g->evals[i].depth = 0; /* retracted with their plies */
            }
            /* A result stood on the retracted moves no longer holds. */
            cr_game_set_result(g->game, CR_RESULT_NONE);
            break;
        case CR_SEV_CLOCK:
            /* A ply's time comes from the inference alone (never guessed
             * from the order of MOVE and CLOCK, which depends on timing). */
            if (ev->clock_ply >= 0) {
                if (ev->clock_ply >= cr_game_ply_count(g->game)) {
                    return cr_error_set(err, CR_EINVAL, 0, 0, "game %d: clock for ply %d of %d",
                                        g->id, ev->clock_ply, cr_game_ply_count(g->game));
                }
                cr_ply *q = cr_game_ply_mut(g->game, ev->clock_ply);
                q->clock_ms = ev->ply_clock_ms;
                q->emt_ms = ev->ply_emt_ms;
            }
            g->white_ms = ev->white_ms;
            g->black_ms = ev->black_ms;
            g->running = ev->running;
            g->clock_at = ev->ts;
            break;
        case CR_SEV_RESULT:
            cr_game_set_result(g->game, ev->result);
            copy_str(g->reason, sizeof g->reason, ev->reason);
            cr_game_set_tag(g->game, "Result", cr_result_string(ev->result));
            break;
        case CR_SEV_STATUS:
            g->online = ev->online;
            g->attention = ev->attention;
            /* A status that only restates the attention (the link came
             * back) keeps its squares and reason. */
            if (!ev->attention) {
                g->attention_squares = 0;
                g->attention_reason[0] = '\0';
            } else {
                if (ev->squares) {
                    g->attention_squares = ev->squares;
                }
                if (ev->reason[0]) {
                    copy_str(g->attention_reason, sizeof g->attention_reason, ev->reason);
                }
            }
            break;
        case CR_SEV_TAG:
            if (strcmp(ev->tag.name, "FEN") == 0 || strcmp(ev->tag.name, "SetUp") == 0) {
                return cr_error_set(err, CR_EINVAL, 0, 0, "tag %s cannot be set", ev->tag.name);
            }
            rc = cr_game_set_tag(g->game, ev->tag.name, ev->tag.value[0] ? ev->tag.value : NULL);
            if (rc < 0) {
                return cr_error_set(err, rc, 0, 0, "tag '%s' refused", ev->tag.name);
            }
            break;
        case CR_SEV_GAME:
            break;
        }
    }
    if (rc < 0) {
        return rc;
    }
    cr_store_game *g = find(s, ev->game);
    g->last_seq = ev->seq;
    g->last_ts = ev->ts;
    if (ev->kind != CR_SEV_CLOCK) {
        g->list_seq = ev->seq;
    }
    if (ev->kind == CR_SEV_MOVE || ev->kind == CR_SEV_CORRECTION) {
        g->plies_seq = ev->seq;
    }
    s->last_seq = ev->seq;
    return 0;
}

static json_t *tags_json(const cr_game *game)
{
    json_t *tags = json_object();
    for (int i = 0; i < cr_game_tag_count(game); i++) {
        const char *name, *value;
        cr_game_tag_at(game, i, &name, &value);
        json_object_set_new(tags, name, text_json(value));
    }
    return tags;
}

cr_buf *cr_store_snapshot_json(const cr_store *s, int id, int delay_s)
{
    const cr_store_game *g = find(s, id);
    if (!g) {
        return NULL;
    }
    json_t *gj = json_object();
    json_object_set_new(gj, "id", json_integer(g->id));
    json_object_set_new(gj, "round", text_json(g->round));
    json_object_set_new(gj, "board", text_json(g->board));
    if (g->table) {
        json_object_set_new(gj, "table", json_integer(g->table));
    }
    json_object_set_new(gj, "tags", tags_json(g->game));
    json_object_set_new(gj, "start", fen_json(cr_game_start(g->game)));
    json_t *moves = json_array();
    for (int i = 0; i < cr_game_ply_count(g->game); i++) {
        json_array_append_new(moves, move_json(cr_game_ply(g->game, i), cr_store_eval(g, i)));
    }
    json_object_set_new(gj, "moves", moves);
    if (g->clock_at) {
        json_t *c = json_object();
        json_object_set_new(c, "white", clock_value(g->white_ms));
        json_object_set_new(c, "black", clock_value(g->black_ms));
        json_object_set_new(c, "running", json_string(running_text(g->running)));
        json_object_set_new(c, "at", json_integer(g->clock_at));
        json_object_set_new(gj, "clock", c);
    } else {
        json_object_set_new(gj, "clock", json_null());
    }
    json_object_set_new(gj, "result", json_string(cr_result_string(cr_game_result(g->game))));
    if (g->reason[0]) {
        json_object_set_new(gj, "reason", text_json(g->reason));
    }
    json_object_set_new(gj, "online", json_boolean(g->online));
    json_object_set_new(gj, "attention", json_boolean(g->attention));
    if (g->attention_squares) {
        json_object_set_new(gj, "squares", squares_json(g->attention_squares));
    }
    json_object_set_new(gj, "delay", json_integer(delay_s));
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string("snapshot"));
    json_object_set_new(j, "seq", json_integer(g->last_seq));
    json_object_set_new(j, "ts", json_integer(g->last_ts));
    json_object_set_new(j, "game", gj);
    return dump(j);
}

/* A list entry's and a brief's first fields: the game's id, round, board
 * and table. */
static json_t *entry_head(const cr_store_game *g)
{
    json_t *j = json_object();
    json_object_set_new(j, "id", json_integer(g->id));
    json_object_set_new(j, "round", text_json(g->round));
    json_object_set_new(j, "board", text_json(g->board));
    if (g->table) {
        json_object_set_new(j, "table", json_integer(g->table));
    }
    return j;
}

/* A player as the tags name them (from the pairings or the tournament
 * file): name, rating (0: none), title, federation, team ("" each: none). */
enum { PLAYER_NAME, PLAYER_ELO, PLAYER_TITLE, PLAYER_FED, PLAYER_TEAM, PLAYER_FIELDS };

static void player_tags(const cr_game *game, const char *side, const char *v[PLAYER_FIELDS],
                        int *elo)
{
    static const char *const tags[PLAYER_FIELDS] = {"", "Elo", "Title", "Fed", "Team"};
    for (int i = 0; i < PLAYER_FIELDS; i++) {
        char name[16];
        snprintf(name, sizeof name, "%s%s", side, tags[i]);
        const char *t = cr_game_tag(game, name);
        v[i] = t ? t : i == PLAYER_NAME ? "?" : "";
    }
    *elo = atoi(v[PLAYER_ELO]);
}

cr_buf *cr_store_summary_json(const cr_store *s, int id)
{
    const cr_store_game *g = find(s, id);
    if (!g) {
        return NULL;
    }
    const cr_game *game = g->game;
    json_t *j = entry_head(g);
    const char *w[PLAYER_FIELDS], *b[PLAYER_FIELDS];
    int welo, belo;
    player_tags(game, "White", w, &welo);
    player_tags(game, "Black", b, &belo);
    json_object_set_new(j, "white", text_json(w[PLAYER_NAME]));
    json_object_set_new(j, "black", text_json(b[PLAYER_NAME]));
    if (welo > 0) {
        json_object_set_new(j, "white_elo", json_integer(welo));
    }
    if (belo > 0) {
        json_object_set_new(j, "black_elo", json_integer(belo));
    }
    /* Titles, federations and teams, when known: the viewer's standings
     * are computed from this list. */
    static const char *const extra[][2] = {{"white_title", "black_title"},
                                           {"white_fed", "black_fed"},
                                           {"white_team", "black_team"}};
    for (int i = 0; i < 3; i++) {
        if (w[PLAYER_TITLE + i][0]) {
            json_object_set_new(j, extra[i][0], text_json(w[PLAYER_TITLE + i]));
        }
        if (b[PLAYER_TITLE + i][0]) {
            json_object_set_new(j, extra[i][1], text_json(b[PLAYER_TITLE + i]));
        }
    }
    json_object_set_new(j, "result", json_string(cr_result_string(cr_game_result(game))));
    int n = cr_game_ply_count(game);
    json_object_set_new(j, "plies", json_integer(n));
    json_object_set_new(j, "fen", fen_json(cr_game_position(game)));
    json_object_set_new(j, "last", n ? text_json(cr_game_ply(game, n - 1)->san) : json_null());
    const cr_eval *e = n ? cr_store_eval(g, n - 1) : NULL;
    if (e) {
        json_object_set_new(j, "eval", eval_json(e));
    }
    json_object_set_new(j, "online", json_boolean(g->online));
    json_object_set_new(j, "attention", json_boolean(g->attention));
    if (g->attention_squares) {
        json_object_set_new(j, "squares", squares_json(g->attention_squares));
    }
    /* The list entry is published again for what changes it, not for each
     * clock reading: its seq is the last such event's. */
    json_object_set_new(j, "seq", json_integer(g->list_seq));
    return dump(j);
}

static json_t *brief_player(const cr_game *game, const char *side)
{
    const char *v[PLAYER_FIELDS];
    int elo;
    player_tags(game, side, v, &elo);
    json_t *a = json_array();
    for (int i = 0; i < PLAYER_FIELDS; i++) {
        json_array_append_new(a, i != PLAYER_ELO ? text_json(v[i])
                                 : elo > 0       ? json_integer(elo)
                                                 : json_null());
    }
    return a;
}

cr_buf *cr_store_brief_json(const cr_store *s, int id)
{
    const cr_store_game *g = find(s, id);
    if (!g) {
        return NULL;
    }
    const cr_game *game = g->game;
    json_t *j = entry_head(g);
    json_object_set_new(j, "w", brief_player(game, "White"));
    json_object_set_new(j, "b", brief_player(game, "Black"));
    json_object_set_new(j, "result", json_string(cr_result_string(cr_game_result(game))));
    if (g->reason[0]) {
        json_object_set_new(j, "reason", text_json(g->reason));
    }
    int n = cr_game_ply_count(game);
    json_object_set_new(j, "plies", json_integer(n));
    json_object_set_new(j, "fen", fen_json(cr_game_position(game)));
    if (n) {
        json_object_set_new(j, "last", text_json(cr_game_ply(game, n - 1)->san));
        json_object_set_new(j, "uci", text_json(cr_game_ply(game, n - 1)->uci));
    }
    if (g->clock_at) {
        json_object_set_new(j, "clock", json_pack("[o,o,s,I]", clock_value(g->white_ms),
                                                  clock_value(g->black_ms),
                                                  running_text(g->running), (json_int_t)g->clock_at));
    }
    const cr_eval *e = n ? cr_store_eval(g, n - 1) : NULL;
    if (e) {
        json_object_set_new(j, "eval", eval_json(e));
    }
    if (!g->online) {
        json_object_set_new(j, "online", json_false());
    }
    if (g->attention) {
        json_object_set_new(j, "attention", json_true());
    }
    if (g->attention_squares) {
        json_object_set_new(j, "squares", squares_json(g->attention_squares));
    }
    return dump(j);
}

/*----- evaluations -----*/

int cr_store_set_eval(cr_store *s, int game, int ply, const cr_eval *e, cr_error *err)
{
    cr_store_game *g = find(s, game);
    if (!g) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "unknown game %d", game);
    }
    if (ply < 0 || ply >= cr_game_ply_count(g->game)) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "game %d: no ply %d", game, ply);
    }
    if (ply >= g->evals_cap) {
        int cap = g->evals_cap ? g->evals_cap : 64;
        while (cap <= ply) {
            cap *= 2;
        }
        cr_eval *n = realloc(g->evals, (size_t)cap * sizeof *n);
        if (!n) {
            return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
        memset(n + g->evals_cap, 0, (size_t)(cap - g->evals_cap) * sizeof *n);
        g->evals = n;
        g->evals_cap = cap;
    }
    g->evals[ply] = *e;
    return 0;
}

const cr_eval *cr_store_eval(const cr_store_game *g, int ply)
{
    if (ply < 0 || ply >= g->evals_cap || ply >= cr_game_ply_count(g->game) ||
        g->evals[ply].depth <= 0) {
        return NULL;
    }
    return &g->evals[ply];
}

cr_buf *cr_store_eval_json(const cr_store *s, int game, int ply)
{
    const cr_store_game *g = find(s, game);
    const cr_eval *e = g ? cr_store_eval(g, ply) : NULL;
    if (!e) {
        return NULL;
    }
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string("eval"));
    json_object_set_new(j, "game", json_integer(game));
    json_object_set_new(j, "ply", json_integer(ply));
    json_object_set_new(j, "eval", eval_json(e));
    return dump(j);
}

cr_buf *cr_store_evals_json(const cr_store *s, int game)
{
    const cr_store_game *g = find(s, game);
    if (!g) {
        return NULL;
    }
    json_t *a = json_array();
    bool any = false;
    for (int i = 0; i < cr_game_ply_count(g->game); i++) {
        const cr_eval *e = cr_store_eval(g, i);
        json_array_append_new(a, e ? eval_json(e) : json_null());
        any |= e != NULL;
    }
    if (!any) {
        json_decref(a);
        return NULL;
    }
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string("evals"));
    json_object_set_new(j, "game", json_integer(game));
    json_object_set_new(j, "evals", a);
    return dump(j);
}

void cr_store_set_pgn_evals(cr_store *s, bool on)
{
    s->pgn_evals = on;
}

bool cr_store_pgn_evals(const cr_store *s)
{
    return s->pgn_evals;
}

void cr_store_set_pgn_marks(cr_store *s, bool on)
{
    s->pgn_bare = !on;
}

/*----- PGN -----*/

typedef struct pgn_extra {
    const cr_store_game *g;
    char text[32];
} pgn_extra;

/* [%eval 0.35] / [%eval #-3] (lichess), and the ply's NAG. */
static const char *eval_extra(void *data, int ply, int *nag)
{
    pgn_extra *x = data;
    const cr_eval *e = cr_store_eval(x->g, ply);
    if (!e) {
        return NULL;
    }
    *nag = e->nag;
    if (e->mate) {
        snprintf(x->text, sizeof x->text, "[%%eval #%d]", e->value);
    } else {
        int v = e->value < 0 ? -e->value : e->value;
        snprintf(x->text, sizeof x->text, "[%%eval %s%d.%02d]", e->value < 0 ? "-" : "", v / 100,
                 v % 100);
    }
    return x->text;
}

char *cr_store_game_pgn_text_ex(const cr_store_game *g, unsigned what)
{
    char *out = NULL;
    pgn_extra x = {.g = g};
    cr_pgn_options o = {.style = CR_STYLE_SAN, .lang = CR_LANG_EN, .width = 80};
    if (what & CR_STORE_PGN_BARE) {
        o.flags |= CR_PGN_BARE;
    }
    if (what & CR_STORE_PGN_EVALS) {
        o.ply_extra = eval_extra;
        o.extra_data = &x;
    }
    if (cr_pgn_write(g->game, &o, &out, NULL) != 0) {
        return NULL;
    }
    return out;
}

char *cr_store_game_pgn_text(const cr_store_game *g)
{
    return cr_store_game_pgn_text_ex(g, 0);
}

cr_buf *cr_store_pgn(const cr_store *s, int id)
{
    const cr_store_game *g = find(s, id);
    unsigned what = (s->pgn_evals ? CR_STORE_PGN_EVALS : 0) | (s->pgn_bare ? CR_STORE_PGN_BARE : 0);
    return g ? cr_buf_take_str(cr_store_game_pgn_text_ex(g, what)) : NULL;
}
