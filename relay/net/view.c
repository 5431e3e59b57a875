/* chessrelay relay: the broadcast side's copy of the games. */
#include "net/view.h"
#include "util/grow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cr_view {
    cr_view_game *games;
    int count;
    size_t cap;
    cr_view_entry *ring;
    size_t ring_cap;
    int64_t head, oldest;
};

cr_view *cr_view_new(size_t ring)
{
    cr_view *v = calloc(1, sizeof *v);
    if (!v) {
        return NULL;
    }
    v->ring_cap = ring ? ring : 1;
    v->ring = calloc(v->ring_cap, sizeof *v->ring);
    if (!v->ring) {
        free(v);
        return NULL;
    }
    v->head = v->oldest = 1;
    return v;
}

void cr_view_free(cr_view *v)
{
    if (!v) {
        return;
    }
    for (int i = 0; i < v->count; i++) {
        cr_buf_unref(v->games[i].snapshot);
        cr_buf_unref(v->games[i].summary);
        cr_buf_unref(v->games[i].brief);
        cr_buf_unref(v->games[i].pgn);
        cr_buf_unref(v->games[i].evals);
    }
    for (size_t i = 0; i < v->ring_cap; i++) {
        cr_buf_unref(v->ring[i].msg);
        cr_buf_unref(v->ring[i].summary);
    }
    free(v->games);
    free(v->ring);
    free(v);
}

static int find_index(const cr_view *v, int id, bool *found)
{
    int lo = 0, hi = v->count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (v->games[mid].id < id) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *found = lo < v->count && v->games[lo].id == id;
    return lo;
}

const cr_view_game *cr_view_find(const cr_view *v, int id)
{
    bool found;
    int i = find_index(v, id, &found);
    return found ? &v->games[i] : NULL;
}

static cr_view_game *game_slot(cr_view *v, int id)
{
    bool found;
    int i = find_index(v, id, &found);
    if (found) {
        return &v->games[i];
    }
    cr_view_game *g = cr_grow(v->games, &v->cap, (size_t)v->count + 1, sizeof *g, 16);
    if (!g) {
        return NULL;
    }
    v->games = g;
    memmove(&v->games[i + 1], &v->games[i], (size_t)(v->count - i) * sizeof *v->games);
    v->count++;
    memset(&v->games[i], 0, sizeof v->games[i]);
    v->games[i].id = id;
    return &v->games[i];
}

static void replace(cr_buf **slot, cr_buf *b)
{
    if (b) {
        cr_buf_unref(*slot);
        *slot = cr_buf_ref(b);
    }
}

void cr_view_apply(cr_view *v, const cr_pub *p, int64_t now_us)
{
    if (p->kind == CR_PUB_MARK) {
        if (p->seq + 1 > v->head) {
            v->head = v->oldest = p->seq + 1;
        }
        return;
    }
    if (p->kind != CR_PUB_EVENT && p->kind != CR_PUB_STATE && p->kind != CR_PUB_EVAL) {
        return;
    }
    cr_view_game *g =
        p->kind == CR_PUB_EVAL ? (cr_view_game *)cr_view_find(v, p->game) : game_slot(v, p->game);
    if (g) {
        if (p->kind != CR_PUB_EVAL) {
            memcpy(g->round, p->round, sizeof g->round);
            g->round[sizeof g->round - 1] = '\0';
            g->seq = p->seq;
        }
        g->modified_us = now_us;
        replace(&g->snapshot, p->snapshot);
        replace(&g->summary, p->summary);
        replace(&g->brief, p->brief);
        replace(&g->pgn, p->pgn);
        if (p->has_evals) {
            cr_buf_unref(g->evals);
            g->evals = cr_buf_ref(p->evals);
        }
    }
    if (p->kind == CR_PUB_EVAL) {
        return;
    }
    if (p->kind == CR_PUB_STATE) {
        if (p->seq + 1 > v->head) {
            v->head = v->oldest = p->seq + 1;
        }
        return;
    }
    if (p->seq < v->head) {
        return; /* already held (or older): never reorder the ring */
    }
    cr_view_entry *e = &v->ring[(size_t)p->seq % v->ring_cap];
    cr_buf_unref(e->msg);
    e->seq = p->seq;
    e->ts = p->ts;
    e->game = p->game;
    e->msg = cr_buf_ref(p->event);
    cr_buf_unref(e->summary);
    e->summary = cr_buf_ref(p->summary_msg);
    v->head = p->seq + 1;
    if (v->head - v->oldest > (int64_t)v->ring_cap) {
        v->oldest = v->head - (int64_t)v->ring_cap;
    }
}

int cr_view_game_count(const cr_view *v)
{
    return v->count;
}

const cr_view_game *cr_view_game_at(const cr_view *v, int i)
{
    return i >= 0 && i < v->count ? &v->games[i] : NULL;
}

int64_t cr_view_head(const cr_view *v)
{
    return v->head;
}

int64_t cr_view_oldest(const cr_view *v)
{
    return v->oldest;
}

const cr_view_entry *cr_view_entry_at(const cr_view *v, int64_t seq)
{
    if (seq < v->oldest || seq >= v->head) {
        return NULL;
    }
    const cr_view_entry *e = &v->ring[(size_t)seq % v->ring_cap];
    return e->seq == seq && e->msg ? e : NULL;
}

static bool in_round(const cr_view_game *g, const char *round)
{
    return !round || strcmp(g->round, round) == 0;
}

/* Concatenates buffers with a prefix, separator and suffix. */
static cr_buf *join(const cr_view *v, const char *round, size_t field, const char *prefix,
                    const char *sep, const char *suffix, bool empty_is_null)
{
    size_t len = strlen(prefix) + strlen(suffix), n = 0;
    for (int i = 0; i < v->count; i++) {
        const cr_buf *b = *(cr_buf *const *)((const char *)&v->games[i] + field);
        if (b && in_round(&v->games[i], round)) {
            len += b->len + strlen(sep);
            n++;
        }
    }
    if (!n && empty_is_null) {
        return NULL;
    }
    cr_buf *out = cr_buf_new(NULL, len);
    if (!out) {
        return NULL;
    }
    char *p = out->data;
    p += strlen(strcpy(p, prefix));
    size_t k = 0;
    for (int i = 0; i < v->count; i++) {
        const cr_buf *b = *(cr_buf *const *)((const char *)&v->games[i] + field);
        if (b && in_round(&v->games[i], round)) {
            if (k++) {
                p += strlen(strcpy(p, sep));
            }
            memcpy(p, b->data, b->len);
            p += b->len;
        }
    }
    p += strlen(strcpy(p, suffix));
    out->len = (size_t)(p - out->data);
    *p = '\0';
    return out;
}

cr_buf *cr_view_games_json(const cr_view *v, const char *round)
{
    return join(v, round, offsetof(cr_view_game, summary), "{\"type\":\"games\",\"games\":[", ",",
                "]}", false);
}

cr_buf *cr_view_round_list(const cr_view *v, const char *round, int64_t seq)
{
    char name[CR_ROUND_MAX * 6 + 1], prefix[sizeof name + 96];
    size_t k = 0;
    for (const unsigned char *c = (const unsigned char *)round; *c && k + 7 < sizeof name; c++) {
        if (*c == '"' || *c == '\\') {
            name[k++] = '\\';
            name[k++] = (char)*c;
        } else if (*c < 0x20) {
            k += (size_t)snprintf(name + k, sizeof name - k, "\\u%04x", *c);
        } else {
            name[k++] = (char)*c;
        }
    }
    name[k] = '\0';
    snprintf(prefix, sizeof prefix, "{\"type\":\"games\",\"round\":\"%s\",\"seq\":%" PRId64
             ",\"games\":[", name, seq);
    return join(v, round, offsetof(cr_view_game, brief), prefix, ",", "]}", false);
}

cr_buf *cr_view_games_array(const cr_view *v, const char *round)
{
    return join(v, round, offsetof(cr_view_game, summary), "[", ",", "]\n", false);
}

cr_buf *cr_view_pgn(const cr_view *v, const char *round)
{
    return join(v, round, offsetof(cr_view_game, pgn), "", "", "", round != NULL);
}

int64_t cr_view_modified(const cr_view *v, const char *round)
{
    int64_t m = 0;
    for (int i = 0; i < v->count; i++) {
        if (in_round(&v->games[i], round) && v->games[i].modified_us > m) {
            m = v->games[i].modified_us;
        }
    }
    return m;
}
