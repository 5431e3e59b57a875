/* A scoresheet reconciled with the board's record (cr/reconcile.h). */
#include "cr/reconcile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/notation.h"

/* A gap is filled with at most this many of the sheet's moves. */
#define GAP_MAX 400

typedef struct token {
    const char *p;
    size_t len;
} token;

typedef struct sheet {
    token *v;
    int n, cap;
} sheet;

typedef struct ctx {
    const cr_game *rec;
    const sheet *sh;
    int lang;
    cr_recon_result *res;
    int items_cap;
} ctx;

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Bytes of a token: up to a space or the start of a comment/variation. */
static size_t token_len(const char *s, const char *end)
{
    const char *p = s;
    while (p < end && !is_space((unsigned char)*p) && *p != '{' && *p != '(' && *p != ';') {
        p++;
    }
    return (size_t)(p - s);
}

/* Skips "{...}", ";...\n", "(...)" (nested), "[...]" tag lines. */
static const char *skip_aside(const char *p, const char *end)
{
    if (*p == '{') {
        while (p < end && *p != '}') {
            p++;
        }
        return p < end ? p + 1 : end;
    }
    if (*p == ';') {
        while (p < end && *p != '\n') {
            p++;
        }
        return p;
    }
    char open = *p, close = *p == '(' ? ')' : ']';
    int depth = 0;
    for (; p < end; p++) {
        if (*p == open) {
            depth++;
        } else if (*p == close && --depth == 0) {
            return p + 1;
        }
    }
    return end;
}

static bool token_is(const token *t, const char *s)
{
    return t->len == strlen(s) && memcmp(t->p, s, t->len) == 0;
}

/* Not a move: a result, an e.p. mark, a lone check or annotation mark
 * (marks after them too: "e.p.!"). */
static bool not_a_move(const token *t)
{
    static const char *const words[] = {"1-0", "0-1", "1/2-1/2", "\xc2\xbd-\xc2\xbd", "*",
                                        "e.p.", "ep", "e.p", "=", ""};
    if (t->len > 0 && t->p[0] == '$') {
        return true;
    }
    token core = *t;
    while (core.len > 0 && strchr("!?+#", core.p[core.len - 1])) {
        core.len--;
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (token_is(&core, words[i])) {
            return true;
        }
    }
    return false;
}

/* The sheet's move tokens, move numbers ("12.", "12...", "12") taken off. */
static int tokenize(const char *s, size_t len, sheet *sh)
{
    const char *p = s, *end = s + len;
    while (p < end) {
        if (is_space((unsigned char)*p)) {
            p++;
            continue;
        }
        if (*p == '{' || *p == ';' || *p == '(' || *p == '[') {
            p = skip_aside(p, end);
            continue;
        }
        token t = {p, token_len(p, end)};
        p += t.len;
        /* a move number, with its dots (or an ellipsis) */
        size_t k = 0;
        while (k < t.len && t.p[k] >= '0' && t.p[k] <= '9') {
            k++;
        }
        size_t dots = k;
        while (dots < t.len && (t.p[dots] == '.' ||
                                (t.len - dots >= 3 && memcmp(t.p + dots, "\xe2\x80\xa6", 3) == 0))) {
            dots += t.p[dots] == '.' ? 1 : 3;
        }
        if (k > 0 && (dots > k || dots == t.len)) {
            t.p += dots;
            t.len -= dots;
        }
        if (t.len == 0 || not_a_move(&t)) {
            continue;
        }
        if (sh->n == sh->cap) {
            int cap = sh->cap ? sh->cap * 2 : 128;
            token *v = realloc(sh->v, (size_t)cap * sizeof *v);
            if (!v) {
                return CR_ENOMEM;
            }
            sh->v = v;
            sh->cap = cap;
        }
        sh->v[sh->n++] = t;
    }
    return 0;
}

/* The sheet's token j read where pos stands; CR_MOVE_NONE if it is no
 * move there or fits more than one. */
static cr_move read_move(const ctx *c, const cr_position *pos, int j)
{
    if (j < 0 || j >= c->sh->n) {
        return CR_MOVE_NONE;
    }
    char text[64];
    const token *t = &c->sh->v[j];
    size_t n = t->len < sizeof text - 1 ? t->len : sizeof text - 1;
    memcpy(text, t->p, n);
    text[n] = '\0';
    cr_error err;
    return cr_move_from_text(pos, text, c->lang, NULL, &err);
}

static bool same_move(const ctx *c, const cr_position *pos, int j, const cr_ply *p)
{
    if (p->flags & CR_PLY_ILLEGAL) {
        return false;
    }
    cr_move m = read_move(c, pos, j);
    return m != CR_MOVE_NONE && m == p->move;
}

static cr_recon_item *add_item(ctx *c, cr_recon_kind kind, int ply, const cr_position *before)
{
    cr_recon_result *r = c->res;
    if (r->count == c->items_cap) {
        int cap = c->items_cap ? c->items_cap * 2 : 16;
        cr_recon_item *v = realloc(r->items, (size_t)cap * sizeof *v);
        if (!v) {
            return NULL;
        }
        r->items = v;
        c->items_cap = cap;
    }
    cr_recon_item *it = &r->items[r->count++];
    memset(it, 0, sizeof *it);
    it->kind = kind;
    it->ply = ply;
    it->clock_ms = CR_CLOCK_UNKNOWN;
    if (before) {
        cr_position_to_fen(before, it->fen, sizeof it->fen);
    }
    if (kind != CR_RECON_GAP_FILLED) {
        r->differences++;
    }
    return it;
}

static void set_sheet(const ctx *c, cr_recon_item *it, const cr_position *pos, int j)
{
    if (j < 0 || j >= c->sh->n) {
        return;
    }
    const token *t = &c->sh->v[j];
    size_t n = t->len < sizeof it->sheet_text - 1 ? t->len : sizeof it->sheet_text - 1;
    memcpy(it->sheet_text, t->p, n);
    it->sheet_text[n] = '\0';
    cr_move m = pos ? read_move(c, pos, j) : CR_MOVE_NONE;
    if (m != CR_MOVE_NONE) {
        cr_move_to_san(pos, m, it->sheet_san, sizeof it->sheet_san);
    }
}

static void set_board(cr_recon_item *it, const cr_ply *p)
{
    snprintf(it->board_san, sizeof it->board_san, "%s", p->san);
    it->clock_ms = p->clock_ms;
}

/* Appends the record's ply i to the reconciled game, all it carries kept. */
static int copy_ply(ctx *c, int i)
{
    cr_game *g = c->res->game;
    const cr_ply *p = cr_game_ply(c->rec, i);
    int rc = (p->flags & CR_PLY_ILLEGAL) ? CR_EMOVE : cr_game_push(g, p->move, p->clock_ms, p->ts, 0);
    if (rc == CR_EMOVE) { /* illegal on the board, or after a filled gap's castling rights */
        rc = cr_game_push_illegal(g, &p->after, p->san, p->clock_ms, p->ts);
    }
    if (rc) {
        return rc;
    }
    int n = cr_game_ply_count(g) - 1;
    cr_ply *q = cr_game_ply_mut(g, n);
    q->flags = p->flags;
    q->emt_ms = p->emt_ms;
    q->fits = p->fits;
    q->missing = p->missing;
    memcpy(q->nag, p->nag, sizeof q->nag);
    const char *comment = cr_game_comment(c->rec, i);
    return comment ? cr_game_set_comment(g, n, comment) : 0;
}

/* Positions alike for a gap's end: the pieces and the side to move (the
 * board shows no castling rights). */
static bool same_placement(const cr_position *a, const cr_position *b)
{
    return a->side == b->side && memcmp(a->board, b->board, sizeof a->board) == 0;
}

/* The record's gap at ply i, filled from the sheet's moves from token j:
 * how many it takes (0: none lead to where the board stood next). */
static int gap_fill(const ctx *c, int i, int j)
{
    const cr_ply *gap = cr_game_ply(c->rec, i);
    cr_position q = *cr_game_position(c->res->game);
    int least = gap->missing > 0 ? gap->missing : 1;
    for (int k = 1; k <= GAP_MAX && j + k - 1 < c->sh->n; k++) {
        cr_move m = read_move(c, &q, j + k - 1);
        if (m == CR_MOVE_NONE) {
            return 0;
        }
        cr_position_do_move(&q, m);
        if (k >= least && same_placement(&q, &gap->after)) {
            return k;
        }
    }
    return 0;
}

static int push_filled(ctx *c, int j, int k)
{
    cr_game *g = c->res->game;
    for (int t = 0; t < k; t++) {
        cr_move m = read_move(c, cr_game_position(g), j + t);
        int rc = cr_game_push(g, m, CR_CLOCK_UNKNOWN, -1, 0);
        if (rc) {
            return rc;
        }
    }
    char note[80];
    snprintf(note, sizeof note, "gap filled from the scoresheet: %d plies", k);
    return cr_game_set_comment(g, cr_game_ply_count(g) - 1, note);
}

/* One mismatch at record ply i, sheet token j: a move left out or written
 * twice on the sheet (the next two fit once shifted), else a difference.
 * Returns how far each side moves on: *di record plies, *dj tokens. */
static int mismatch(ctx *c, int i, int j, int *di, int *dj)
{
    const cr_game *rec = c->rec;
    int plies = cr_game_ply_count(rec);
    const cr_position *pos = cr_game_position(c->res->game);
    const cr_ply *p = cr_game_ply(rec, i);
    int ply = cr_game_ply_count(c->res->game);
    /* the sheet lacks ply i: token j is ply i+1's move (and j+1 ply i+2's) */
    if (i + 1 < plies && !(p->flags & CR_PLY_ILLEGAL) &&
        same_move(c, &p->after, j, cr_game_ply(rec, i + 1)) &&
        (i + 2 >= plies || j + 1 >= c->sh->n ||
         same_move(c, &cr_game_ply(rec, i + 1)->after, j + 1, cr_game_ply(rec, i + 2)))) {
        cr_recon_item *it = add_item(c, CR_RECON_SHEET_LACKS, ply, pos);
        if (!it) {
            return CR_ENOMEM;
        }
        set_board(it, p);
        *di = 1, *dj = 0;
        return 0;
    }
    /* the sheet has an extra move: token j+1 is ply i's move (and j+2 ply i+1's) */
    if (same_move(c, pos, j + 1, p) &&
        (i + 1 >= plies || j + 2 >= c->sh->n ||
         same_move(c, &p->after, j + 2, cr_game_ply(rec, i + 1)))) {
        cr_recon_item *it = add_item(c, CR_RECON_SHEET_EXTRA, ply, pos);
        if (!it) {
            return CR_ENOMEM;
        }
        set_sheet(c, it, pos, j);
        *di = 0, *dj = 1;
        return 0;
    }
    cr_move m = read_move(c, pos, j);
    cr_recon_item *it = add_item(c, m != CR_MOVE_NONE ? CR_RECON_DIFFER : CR_RECON_UNREADABLE, ply, pos);
    if (!it) {
        return CR_ENOMEM;
    }
    set_board(it, p);
    set_sheet(c, it, pos, j);
    *di = 1, *dj = 1;
    return 0;
}

static int new_game(ctx *c)
{
    const cr_game *rec = c->rec;
    cr_game *g = cr_game_new(cr_game_start(rec));
    if (!g) {
        return CR_ENOMEM;
    }
    c->res->game = g;
    for (int t = 0; t < cr_game_tag_count(rec); t++) {
        const char *name, *value;
        cr_game_tag_at(rec, t, &name, &value);
        if (strcmp(name, "FEN") != 0 && strcmp(name, "SetUp") != 0 && cr_game_set_tag(g, name, value)) {
            return CR_ENOMEM;
        }
    }
    cr_game_set_result(g, cr_game_result(rec));
    const char *first = cr_game_comment(rec, -1);
    return first ? cr_game_set_comment(g, -1, first) : 0;
}

static int walk(ctx *c)
{
    const cr_game *rec = c->rec;
    int plies = cr_game_ply_count(rec);
    int i = 0, j = 0, rc = 0;
    while (i < plies && !rc) {
        const cr_ply *p = cr_game_ply(rec, i);
        const cr_position *pos = cr_game_position(c->res->game);
        int ply = cr_game_ply_count(c->res->game);
        if (j >= c->sh->n) {
            cr_recon_item *it = add_item(c, CR_RECON_SHEET_ENDS, ply, pos);
            if (!it) {
                return CR_ENOMEM;
            }
            set_board(it, p);
            it->count = plies - i;
            break;
        }
        c->res->compared++;
        if ((p->flags & CR_PLY_MISSING) && (p->flags & CR_PLY_ILLEGAL)) {
            int k = gap_fill(c, i, j);
            cr_recon_item *it = add_item(c, k ? CR_RECON_GAP_FILLED : CR_RECON_GAP_OPEN, ply, pos);
            if (!it) {
                return CR_ENOMEM;
            }
            set_sheet(c, it, pos, j);
            if (!k) {
                break; /* where the sheet picks up again is unknown */
            }
            it->count = k;
            rc = push_filled(c, j, k);
            i++, j += k;
            continue;
        }
        if (same_move(c, pos, j, p)) {
            rc = copy_ply(c, i);
            i++, j++;
            continue;
        }
        int di, dj;
        rc = mismatch(c, i, j, &di, &dj);
        for (int t = 0; t < di && !rc; t++) {
            rc = copy_ply(c, i + t);
        }
        i += di, j += dj;
    }
    for (int t = i; t < plies && !rc; t++) {
        rc = copy_ply(c, t); /* the rest after an open gap or the sheet's end */
    }
    if (!rc && i >= plies && j < c->sh->n) {
        cr_recon_item *it = add_item(c, CR_RECON_BOARD_ENDS, cr_game_ply_count(c->res->game),
                                     cr_game_position(c->res->game));
        if (!it) {
            return CR_ENOMEM;
        }
        set_sheet(c, it, cr_game_position(c->res->game), j);
        it->count = c->sh->n - j;
    }
    return rc;
}

int cr_reconcile(const cr_game *record, const char *text, size_t len, int lang,
                 cr_recon_result **out, cr_error *err)
{
    *out = NULL;
    sheet sh = {0};
    int rc = tokenize(text, len, &sh);
    if (rc) {
        free(sh.v);
        return cr_error_set(err, rc, 0, 0, "out of memory");
    }
    if (sh.n == 0) {
        free(sh.v);
        return cr_error_set(err, CR_EINVAL, 0, 0, "the scoresheet has no move");
    }
    cr_recon_result *res = calloc(1, sizeof *res);
    ctx c = {.rec = record, .sh = &sh, .lang = lang >= 0 ? lang : cr_notation_detect_lang(text, len),
             .res = res};
    rc = res ? new_game(&c) : CR_ENOMEM;
    if (!rc) {
        rc = walk(&c);
    }
    free(sh.v);
    if (rc) {
        cr_reconcile_free(res);
        return cr_error_set(err, rc, 0, 0, rc == CR_ENOMEM ? "out of memory" : "reconcile: error %d", rc);
    }
    *out = res;
    return 0;
}

void cr_reconcile_free(cr_recon_result *r)
{
    if (r) {
        cr_game_free(r->game);
        free(r->items);
        free(r);
    }
}

const char *cr_recon_kind_name(cr_recon_kind kind)
{
    static const char *const names[] = {"differ",    "unreadable", "sheet lacks", "sheet extra",
                                        "gap filled", "gap open",  "sheet ends",  "board ends"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}
