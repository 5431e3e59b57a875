/* Game record: tags, start position, plies (each with the position after it).
 *
 * Keeping the position after every ply costs about 200 bytes a ply (a long
 * game of 300 plies: 60 KiB) and buys O(1) access to any position for
 * takebacks, corrections, repetition counts and the relay's snapshots. */
#include "cr/game.h"

#include <stdlib.h>
#include <string.h>

#include "cr/notation.h"

#include "board_private.h" /* SAN of a move already made */

struct tag {
    char *name;
    char *value;
};

struct cr_game {
    cr_position start;
    cr_ply *plies;
    int ply_count;
    int ply_cap;
    struct tag *tags;
    int tag_count;
    int tag_cap;
    char **comments; /* [ply_cap + 1]: index 0 = before the first move, i + 1 = after ply i */
    cr_result result;
};

cr_game *cr_game_new(const cr_position *start)
{
    cr_game *g = calloc(1, sizeof *g);
    if (!g) {
        return NULL;
    }
    if (start) {
        g->start = *start;
    } else {
        cr_position_init_start(&g->start);
    }
    return g;
}

static void free_comments(cr_game *g)
{
    if (g->comments) {
        for (int i = 0; i <= g->ply_cap; i++) {
            free(g->comments[i]);
        }
        free(g->comments);
        g->comments = NULL;
    }
}

void cr_game_free(cr_game *g)
{
    if (!g) {
        return;
    }
    for (int i = 0; i < g->tag_count; i++) {
        free(g->tags[i].name);
        free(g->tags[i].value);
    }
    free(g->tags);
    free_comments(g);
    free(g->plies);
    free(g);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

/* Grows plies (and comments, which share the capacity) to hold `need` plies. */
static int reserve(cr_game *g, int need)
{
    if (need <= g->ply_cap) {
        return 0;
    }
    int cap = g->ply_cap ? g->ply_cap * 2 : 64;
    while (cap < need) {
        cap *= 2;
    }
    cr_ply *p = realloc(g->plies, (size_t)cap * sizeof *p);
    if (!p) {
        return CR_ENOMEM;
    }
    g->plies = p;
    if (g->comments) {
        char **c = realloc(g->comments, (size_t)(cap + 1) * sizeof *c);
        if (!c) {
            return CR_ENOMEM;
        }
        memset(c + g->ply_cap + 1, 0, (size_t)(cap - g->ply_cap) * sizeof *c);
        g->comments = c;
    }
    g->ply_cap = cap;
    return 0;
}

cr_game *cr_game_clone(const cr_game *g)
{
    cr_game *c = cr_game_new(&g->start);
    if (!c) {
        return NULL;
    }
    if (reserve(c, g->ply_count) != 0) {
        goto fail;
    }
    if (g->ply_count) {
        memcpy(c->plies, g->plies, (size_t)g->ply_count * sizeof *g->plies);
    }
    c->ply_count = g->ply_count;
    c->result = g->result;
    for (int i = 0; i < g->tag_count; i++) {
        if (cr_game_set_tag(c, g->tags[i].name, g->tags[i].value) != 0) {
            goto fail;
        }
    }
    if (g->comments) {
        for (int i = -1; i < g->ply_count; i++) {
            const char *t = cr_game_comment(g, i);
            if (t && cr_game_set_comment(c, i, t) != 0) {
                goto fail;
            }
        }
    }
    return c;
fail:
    cr_game_free(c);
    return NULL;
}

static int find_tag(const cr_game *g, const char *name)
{
    for (int i = 0; i < g->tag_count; i++) {
        if (strcmp(g->tags[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

int cr_game_set_tag(cr_game *g, const char *name, const char *value)
{
    if (!name || !*name || strcmp(name, "FEN") == 0 || strcmp(name, "SetUp") == 0) {
        return CR_EINVAL;
    }
    int i = find_tag(g, name);
    if (!value) {
        if (i >= 0) {
            free(g->tags[i].name);
            free(g->tags[i].value);
            memmove(&g->tags[i], &g->tags[i + 1], (size_t)(g->tag_count - i - 1) * sizeof *g->tags);
            g->tag_count--;
        }
        return 0;
    }
    char *v = dup_str(value);
    if (!v) {
        return CR_ENOMEM;
    }
    if (i >= 0) {
        free(g->tags[i].value);
        g->tags[i].value = v;
        return 0;
    }
    if (g->tag_count == g->tag_cap) {
        int cap = g->tag_cap ? g->tag_cap * 2 : 16;
        struct tag *t = realloc(g->tags, (size_t)cap * sizeof *t);
        if (!t) {
            free(v);
            return CR_ENOMEM;
        }
        g->tags = t;
        g->tag_cap = cap;
    }
    char *n = dup_str(name);
    if (!n) {
        free(v);
        return CR_ENOMEM;
    }
    g->tags[g->tag_count].name = n;
    g->tags[g->tag_count].value = v;
    g->tag_count++;
    return 0;
}

const char *cr_game_tag(const cr_game *g, const char *name)
{
    int i = find_tag(g, name);
    return i >= 0 ? g->tags[i].value : NULL;
}

int cr_game_tag_count(const cr_game *g)
{
    return g->tag_count;
}

void cr_game_tag_at(const cr_game *g, int i, const char **name, const char **value)
{
    if (i < 0 || i >= g->tag_count) {
        *name = *value = NULL;
        return;
    }
    *name = g->tags[i].name;
    *value = g->tags[i].value;
}

const cr_position *cr_game_start(const cr_game *g)
{
    return &g->start;
}

const cr_position *cr_game_position(const cr_game *g)
{
    return g->ply_count ? &g->plies[g->ply_count - 1].after : &g->start;
}

int cr_game_ply_count(const cr_game *g)
{
    return g->ply_count;
}

const cr_ply *cr_game_ply(const cr_game *g, int i)
{
    return (i >= 0 && i < g->ply_count) ? &g->plies[i] : NULL;
}

cr_ply *cr_game_ply_mut(cr_game *g, int i)
{
    return (i >= 0 && i < g->ply_count) ? &g->plies[i] : NULL;
}

const cr_position *cr_game_position_at(const cr_game *g, int i)
{
    if (i <= 0) {
        return &g->start;
    }
    if (i > g->ply_count) {
        i = g->ply_count;
    }
    return &g->plies[i - 1].after;
}

int cr_game_push(cr_game *g, cr_move m, int32_t clock_ms, int64_t ts, uint32_t flags)
{
    const cr_position *pos = cr_game_position(g);
    if (m == CR_MOVE_NONE || !cr_is_legal(pos, m)) {
        return CR_EMOVE;
    }
    int rc = reserve(g, g->ply_count + 1);
    if (rc) {
        return rc;
    }
    /* pos points into g->plies, which reserve() may have moved. */
    pos = cr_game_position(g);
    cr_ply *p = &g->plies[g->ply_count];
    memset(p, 0, sizeof *p);
    p->move = m;
    p->flags = flags & ~(uint32_t)CR_PLY_ILLEGAL;
    p->clock_ms = clock_ms;
    p->emt_ms = CR_CLOCK_UNKNOWN;
    p->ts = ts;
    p->fits = 1;
    p->after = *pos;
    cr_position_do_move(&p->after, m);
    cr_san_of_legal_(pos, m, &p->after, p->san); /* legal: checked above */
    cr_move_to_uci(pos, m, p->uci);
    g->ply_count++;
    return 0;
}

int cr_game_push_illegal(cr_game *g, const cr_position *after, const char *text, int32_t clock_ms,
                         int64_t ts)
{
    int rc = reserve(g, g->ply_count + 1);
    if (rc) {
        return rc;
    }
    cr_ply *p = &g->plies[g->ply_count];
    memset(p, 0, sizeof *p);
    p->move = CR_MOVE_NONE;
    p->flags = CR_PLY_ILLEGAL;
    p->clock_ms = clock_ms;
    p->emt_ms = CR_CLOCK_UNKNOWN;
    p->ts = ts;
    p->fits = 1;
    size_t n = text ? strlen(text) : 0;
    if (n >= sizeof p->san) {
        n = sizeof p->san - 1;
    }
    if (n) {
        memcpy(p->san, text, n);
    }
    p->san[n] = '\0';
    p->after = *after;
    g->ply_count++;
    return 0;
}

/* The same position to play on, counters and notation too (not only the
 * same in FIDE's sense: same_position below). */
static bool same_standing(const cr_position *a, const cr_position *b)
{
    return a->key == b->key && memcmp(a->board, b->board, sizeof a->board) == 0 &&
           a->side == b->side && a->ep == b->ep &&
           memcmp(a->castle_rook, b->castle_rook, sizeof a->castle_rook) == 0 &&
           a->chess960 == b->chess960 && a->halfmove == b->halfmove && a->fullmove == b->fullmove;
}

int cr_game_push_ply(cr_game *g, const cr_position *before, const cr_ply *p)
{
    if (!same_standing(cr_game_position(g), before)) {
        return CR_EMOVE;
    }
    int rc = reserve(g, g->ply_count + 1);
    if (rc) {
        return rc;
    }
    g->plies[g->ply_count++] = *p;
    return 0;
}

int cr_game_push_from(cr_game *g, const cr_game *src, int i)
{
    if (i < 0 || i >= src->ply_count) {
        return CR_EMOVE;
    }
    return cr_game_push_ply(g, cr_game_position_at(src, i), &src->plies[i]);
}

void cr_game_truncate(cr_game *g, int ply_count)
{
    if (ply_count < 0) {
        ply_count = 0;
    }
    if (ply_count >= g->ply_count) {
        return;
    }
    if (g->comments) {
        for (int i = ply_count; i < g->ply_count; i++) {
            free(g->comments[i + 1]);
            g->comments[i + 1] = NULL;
        }
    }
    g->ply_count = ply_count;
}

cr_result cr_game_result(const cr_game *g)
{
    return g->result;
}

void cr_game_set_result(cr_game *g, cr_result r)
{
    g->result = r;
}

const char *cr_result_string(cr_result r)
{
    switch (r) {
    case CR_RESULT_WHITE:
        return "1-0";
    case CR_RESULT_BLACK:
        return "0-1";
    case CR_RESULT_DRAW:
        return "1/2-1/2";
    default:
        return "*";
    }
}

int cr_result_parse(const char *s)
{
    if (strcmp(s, "1-0") == 0) {
        return CR_RESULT_WHITE;
    }
    if (strcmp(s, "0-1") == 0) {
        return CR_RESULT_BLACK;
    }
    if (strcmp(s, "1/2-1/2") == 0 || strcmp(s, "\xc2\xbd-\xc2\xbd") == 0) {
        return CR_RESULT_DRAW;
    }
    if (strcmp(s, "*") == 0) {
        return CR_RESULT_NONE;
    }
    return -1;
}

static bool same_position(const cr_position *a, const cr_position *b)
{
    return a->key == b->key && a->side == b->side && a->ep == b->ep &&
           memcmp(a->castle_rook, b->castle_rook, sizeof a->castle_rook) == 0 &&
           memcmp(a->board, b->board, sizeof a->board) == 0;
}

/* Repetitions of the position after the first n plies. */
static int repetitions_at(const cr_game *g, int n)
{
    const cr_position *cur = cr_game_position_at(g, n);
    /* Only positions since the last irreversible move can repeat: the
     * halfmove counter says how far back that is. A position set up by an
     * illegal move starts afresh, like a capture. */
    int lo = n - (int)cur->halfmove;
    if (lo < 0) {
        lo = 0;
    }
    for (int i = n - 1; i >= lo; i--) {
        if (g->plies[i].flags & CR_PLY_ILLEGAL) {
            lo = i + 1;
            break;
        }
    }
    int count = 1;
    for (int j = n - 2; j >= lo; j -= 2) {
        if (same_position(cr_game_position_at(g, j), cur)) {
            count++;
        }
    }
    return count;
}

int cr_game_repetitions(const cr_game *g)
{
    return repetitions_at(g, g->ply_count);
}

int cr_game_automatic_draw(const cr_game *g, const char **why)
{
    for (int n = 1; n <= g->ply_count; n++) {
        const cr_position *pos = cr_game_position_at(g, n);
        if (repetitions_at(g, n) >= 5) {
            if (why) {
                *why = "fivefold repetition";
            }
            return n;
        }
        if (pos->halfmove >= 150 && cr_position_status(pos) != CR_STATUS_CHECKMATE) {
            if (why) {
                *why = "75-move rule";
            }
            return n;
        }
    }
    return -1;
}

int cr_game_replace_ply(cr_game *g, int ply, cr_move m)
{
    if (ply < 0 || ply >= g->ply_count) {
        return CR_EINVAL;
    }
    if (m == CR_MOVE_NONE || !cr_is_legal(cr_game_position_at(g, ply), m)) {
        return CR_EMOVE;
    }
    int n = g->ply_count, later = n - ply - 1;
    cr_ply *old = malloc((size_t)(later + 1) * sizeof *old);
    char **notes = calloc((size_t)(later + 1), sizeof *notes);
    if (!old || !notes) {
        free(old);
        free(notes);
        return CR_ENOMEM;
    }
    memcpy(old, &g->plies[ply], (size_t)(later + 1) * sizeof *old);
    if (g->comments) {
        /* Taken over before the truncation frees them. */
        for (int i = 0; i <= later; i++) {
            notes[i] = g->comments[ply + i + 1];
            g->comments[ply + i + 1] = NULL;
        }
    }
    cr_game_truncate(g, ply);
    int kept = -1;
    for (int i = 0; i <= later; i++) {
        const cr_ply *o = &old[i];
        cr_move mv = i == 0 ? m : o->move;
        /* Marks of how the board reading found the move go with the old move. */
        uint32_t flags = i == 0 ? (o->flags & CR_PLY_DRAW_OFFER) : o->flags;
        if (mv == CR_MOVE_NONE || cr_game_push(g, mv, o->clock_ms, o->ts, flags) != 0) {
            break; /* illegal now (or an illegal move that stood): the rest goes */
        }
        cr_ply *p = &g->plies[g->ply_count - 1];
        p->emt_ms = o->emt_ms;
        p->fits = i == 0 ? 1 : o->fits;
        if (notes[i]) {
            cr_game_set_comment(g, g->ply_count - 1, notes[i]);
        }
        kept = i;
    }
    for (int i = 0; i <= later; i++) {
        free(notes[i]);
    }
    free(notes);
    free(old);
    return kept;
}

int cr_game_set_comment(cr_game *g, int ply, const char *text)
{
    if (ply < -1 || ply >= g->ply_count) {
        return CR_EINVAL;
    }
    if (!g->comments) {
        if (!text) {
            return 0;
        }
        g->comments = calloc((size_t)g->ply_cap + 1, sizeof *g->comments);
        if (!g->comments) {
            return CR_ENOMEM;
        }
    }
    char *t = NULL;
    if (text) {
        t = dup_str(text);
        if (!t) {
            return CR_ENOMEM;
        }
    }
    free(g->comments[ply + 1]);
    g->comments[ply + 1] = t;
    return 0;
}

const char *cr_game_comment(const cr_game *g, int ply)
{
    if (!g->comments || ply < -1 || ply >= g->ply_count) {
        return NULL;
    }
    return g->comments[ply + 1];
}
