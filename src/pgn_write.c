/* PGN export (see include/cr/pgn.h for the format decisions; import is in
 * pgn_read.c). */
#include "cr/pgn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgn_private.h"

typedef struct wrap {
    cr_sb *b;
    int width;
    int col;
} wrap;

/* Appends one word (no spaces in it), breaking the line when needed. */
static void put_word(wrap *w, const char *s, size_t n)
{
    int chars = 0;
    for (size_t k = 0; k < n; k++) {
        chars += ((unsigned char)s[k] & 0xc0) != 0x80;
    }
    if (w->col > 0 && w->col + 1 + chars > w->width) {
        cr_sb_add(w->b, "\n", 1);
        w->col = 0;
    } else if (w->col > 0) {
        cr_sb_add(w->b, " ", 1);
        w->col++;
    }
    cr_sb_add(w->b, s, n);
    w->col += chars;
}

/* Appends text as words; a `[%...]` command is kept on one line. */
static void put_words(wrap *w, const char *s)
{
    size_t i = 0, n = strlen(s);
    while (i < n) {
        while (i < n && s[i] == ' ') {
            i++;
        }
        size_t st = i;
        bool cmd = false;
        while (i < n && (s[i] != ' ' || cmd)) {
            if (s[i] == '[' && s[i + 1] == '%') {
                cmd = true;
            } else if (s[i] == ']') {
                cmd = false;
            }
            i++;
        }
        if (i - st > 60) {
            /* a long command ([%illegal ... FEN]) may be broken at its spaces */
            i = st;
            while (i < n && s[i] != ' ') {
                i++;
            }
        }
        if (i > st) {
            put_word(w, s + st, i - st);
        }
    }
}

static void fmt_clock(cr_sb *b, const char *name, int32_t ms)
{
    int s = ms / 1000, frac = ms % 1000;
    /* by hand: every ply has one, and printf is most of writing a game */
    char t[32];
    int n = 0, h = s / 3600, m = s / 60 % 60, sec = s % 60;
    t[n++] = '[';
    t[n++] = '%';
    for (const char *c = name; *c && n < 8; c++) {
        t[n++] = *c;
    }
    t[n++] = ' ';
    char hd[12];
    int hl = 0;
    do {
        hd[hl++] = (char)('0' + h % 10);
        h /= 10;
    } while (h > 0 && hl < 10);
    while (hl > 0) {
        t[n++] = hd[--hl];
    }
    t[n++] = ':';
    t[n++] = (char)('0' + m / 10);
    t[n++] = (char)('0' + m % 10);
    t[n++] = ':';
    t[n++] = (char)('0' + sec / 10);
    t[n++] = (char)('0' + sec % 10);
    cr_sb_add(b, t, (size_t)n);
    if (frac) {
        char f[8];
        snprintf(f, sizeof f, "%03d", frac);
        int fl = 3;
        while (f[fl - 1] == '0') {
            fl--;
        }
        cr_sb_fmt(b, ".%.*s", fl, f);
    }
    cr_sb_add(b, "]", 1);
}

/* Comment text made safe for `{...}` (and, in_command, for `[%comment ...]`),
 * on one line. */
static void clean_text(cr_sb *b, const char *s, bool in_command)
{
    for (; *s; s++) {
        char ch = *s;
        if (ch == '}' || (in_command && ch == ']')) {
            ch = ')';
        } else if (ch == '\n' || ch == '\r' || ch == '\t') {
            ch = ' ';
        }
        cr_sb_add(b, &ch, 1);
    }
}

/* The commands of a ply's comment, each preceded by a space when t is
 * not empty. */
static void ply_commands(cr_sb *t, const cr_ply *p, bool draw, bool relay)
{
#define SEP_() (t->len > 0 ? cr_sb_add(t, " ", 1) : (void)0)
    if (p->clock_ms >= 0) {
        SEP_();
        fmt_clock(t, "clk", p->clock_ms);
    }
    if (p->emt_ms >= 0) {
        SEP_();
        fmt_clock(t, "emt", p->emt_ms);
    }
    if (draw && (p->flags & CR_PLY_DRAW_OFFER)) {
        SEP_();
        cr_sb_str(t, "[%draw offer]");
    }
    if (relay) {
        if (p->ts >= 0) {
            SEP_();
            cr_sb_fmt(t, "[%%ts %lld]", (long long)p->ts);
        }
        if (p->fits != 1) {
            SEP_();
            cr_sb_fmt(t, "[%%fits %u]", (unsigned)p->fits);
        }
        if (p->flags & CR_PLY_RECONSTRUCTED) {
            SEP_();
            cr_sb_str(t, "[%reconstructed]");
        }
        if (p->flags & CR_PLY_AMBIGUOUS) {
            SEP_();
            cr_sb_str(t, "[%ambiguous]");
        }
    }
#undef SEP_
}

/* The words that say how sure a ply is, and the ply's comment after them:
 * "reconstructed", "reconstructed, ambiguous: also Nf3 Nc6 Nc3 Nf6". The
 * reader takes them back as flags. Nothing without a mark (or with bare). */
static void ply_text(cr_sb *t, const cr_ply *p, const char *comment, bool bare, bool in_command)
{
    bool mark = !bare && (p->flags & CR_PLY_RECONSTRUCTED);
    if (mark) {
        cr_sb_str(t, (p->flags & CR_PLY_AMBIGUOUS) ? "reconstructed, ambiguous" : "reconstructed");
    }
    if (comment) {
        if (mark) {
            cr_sb_str(t, ": ");
        }
        clean_text(t, comment, in_command);
    }
}

/* The ply's comment as written: bare PGN leaves out the other sequences
 * that fit an ambiguous gap (the inference's "also ..."), a word of
 * uncertainty like the marks. */
static const char *shown_comment(const cr_ply *p, const char *comment, bool bare)
{
    if (bare && comment && (p->flags & CR_PLY_AMBIGUOUS) && strncmp(comment, "also ", 5) == 0) {
        return NULL;
    }
    return comment;
}

static const char *const str_tags[7] = {"Event", "Site", "Date", "Round", "White", "Black", "Result"};

bool cr_pgn_tag_name_ok(const char *name)
{
    size_t n = 0;
    for (; name[n]; n++) {
        unsigned char c = (unsigned char)name[n];
        if (n >= CR_PGN_TAG_NAME_MAX ||
            !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_')) {
            return false;
        }
    }
    return n > 0;
}

void cr_pgn_put_tag(cr_sb *b, const char *name, const char *value)
{
    /* A name outside the grammar cannot be escaped: such a tag is left out,
     * never written as something that would read back as other tags. */
    if (!cr_pgn_tag_name_ok(name)) {
        return;
    }
    cr_sb_fmt(b, "[%s \"", name);
    for (const char *s = value; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            cr_sb_add(b, "\\", 1);
        }
        if (c < 0x20 || c == 0x7f) {
            cr_sb_add(b, " ", 1); /* a string token holds printing characters only */
        } else {
            cr_sb_add(b, s, 1);
        }
    }
    cr_sb_str(b, "\"]\n");
}

/* Text of ply i's move in the chosen style. */
static void move_text(const cr_game *g, int i, const cr_pgn_options *o, char *out, size_t size)
{
    const cr_ply *p = cr_game_ply(g, i);
    if (o->style == CR_STYLE_SAN && o->lang == CR_LANG_EN) {
        size_t n = strnlen(p->san, size - 1); /* as snprintf "%s" would, without it */
        memcpy(out, p->san, n);
        out[n] = '\0';
        return;
    }
    unsigned fmt = o->style == CR_STYLE_FIDE ? CR_FMT_EP_SUFFIX : 0;
    if (cr_move_format_ex(cr_game_position_at(g, i), p->move, o->style, o->lang, fmt, out, size) < 0) {
        snprintf(out, size, "%s", p->san);
    }
}

static void move_number(wrap *w, const cr_position *before, bool force)
{
    if (before->side != CR_WHITE && !force) {
        return;
    }
    /* "12." or "12...", by hand: one per move of every game written */
    char num[24];
    size_t n = 0;
    unsigned v = before->fullmove;
    char digits[12];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (nd > 0) {
        num[n++] = digits[--nd];
    }
    num[n++] = '.';
    if (before->side != CR_WHITE) {
        num[n++] = '.';
        num[n++] = '.';
    }
    put_word(w, num, n);
}

/* The continuation after the first illegal ply, as comment content. */
static void write_continuation(const cr_game *g, int k, const cr_pgn_options *o, cr_sb *b)
{
    bool need_number = true;
    int n = cr_game_ply_count(g);
    for (int i = k; i < n; i++) {
        const cr_ply *p = cr_game_ply(g, i);
        if (i > k) {
            cr_sb_add(b, " ", 1);
        }
        if (p->flags & CR_PLY_ILLEGAL) {
            char fen[CR_FEN_MAX];
            cr_position_to_fen(&p->after, fen, sizeof fen);
            if ((p->flags & CR_PLY_MISSING) && p->missing > 0) {
                /* the moves are not known: how many (exactly, when the clock
                 * counted them, else at least), then the position */
                cr_sb_fmt(b, "gap: %s%u %s not seen [%%missing %u %s]", (p->flags & CR_PLY_COUNTED) ? "" : "at least ",
                          (unsigned)p->missing, p->missing == 1 ? "ply" : "plies", (unsigned)p->missing, fen);
            } else if (p->flags & CR_PLY_MISSING) {
                cr_sb_fmt(b, "[%%missing %s]", fen); /* the moves are not known */
            } else {
                cr_sb_str(b, "[%illegal ");
                for (const char *s = p->san[0] ? p->san : "?"; *s; s++) {
                    cr_sb_add(b, (*s == ' ' || *s == ']' || *s == '}') ? "_" : s, 1);
                }
                cr_sb_fmt(b, " %s]", fen);
            }
            need_number = true;
        } else {
            const cr_position *before = cr_game_position_at(g, i);
            if (before->side == CR_WHITE) {
                cr_sb_fmt(b, "%d. ", before->fullmove);
            } else if (need_number) {
                cr_sb_fmt(b, "%d... ", before->fullmove);
            }
            char mv[CR_SAN_MAX + 8];
            move_text(g, i, o, mv, sizeof mv);
            cr_sb_str(b, mv);
            for (int q = 0; q < CR_PLY_NAGS && p->nag[q]; q++) {
                cr_sb_fmt(b, " $%u", (unsigned)p->nag[q]);
            }
            need_number = false;
        }
        ply_commands(b, p, true, o->flags & CR_PGN_RELAY_DATA);
        bool bare = o->flags & CR_PGN_BARE;
        const char *cm = shown_comment(p, cr_game_comment(g, i), bare);
        if (cm || (!bare && (p->flags & CR_PLY_RECONSTRUCTED))) {
            cr_sb_str(b, " [%comment ");
            ply_text(b, p, cm, bare, true);
            cr_sb_str(b, "]");
            need_number = true;
        }
    }
}

/* The seven tag roster, SetUp/FEN (and Variant) for a start other than
 * the standard one, the game's other tags, and the blank line after them. */
static void write_tags(const cr_game *g, cr_sb *b)
{
    for (int k = 0; k < 7; k++) {
        const char *v = cr_game_tag(g, str_tags[k]);
        if (k == 6) {
            v = cr_result_string(cr_game_result(g));
        } else if (!v) {
            v = k == 2 ? "????.??.??" : "?";
        }
        cr_pgn_put_tag(b, str_tags[k], v);
    }
    const cr_position *start = cr_game_start(g);
    char fen[CR_FEN_MAX], std_fen[CR_FEN_MAX];
    cr_position std;
    cr_position_init_start(&std);
    cr_position_to_fen(start, fen, sizeof fen);
    cr_position_to_fen(&std, std_fen, sizeof std_fen);
    bool setup = strcmp(fen, std_fen) != 0;
    if (start->chess960 && !cr_game_tag(g, "Variant")) {
        cr_pgn_put_tag(b, "Variant", "Chess960");
    }
    if (setup) {
        cr_pgn_put_tag(b, "SetUp", "1");
        cr_pgn_put_tag(b, "FEN", fen);
    }
    for (int k = 0; k < cr_game_tag_count(g); k++) {
        const char *name, *value;
        cr_game_tag_at(g, k, &name, &value);
        bool skip = strcmp(name, "FEN") == 0 || strcmp(name, "SetUp") == 0;
        for (int s = 0; s < 7; s++) {
            skip |= strcmp(name, str_tags[s]) == 0;
        }
        if (!skip) {
            cr_pgn_put_tag(b, name, value);
        }
    }
    cr_sb_add(b, "\n", 1);
}

static bool illegal_at(const cr_game *g, int k)
{
    return k < cr_game_ply_count(g) && (cr_game_ply(g, k)->flags & CR_PLY_ILLEGAL);
}

/* A comment in braces: text (cleaned, or none), then, when cont >= 0, the
 * continuation from the illegal ply cont. */
static int put_comment(wrap *w, const cr_game *g, const char *text, int cont, const cr_pgn_options *o)
{
    cr_sb t = {0};
    cr_sb_add(&t, "{", 1);
    if (text) {
        clean_text(&t, text, false);
        if (cont >= 0) {
            cr_sb_add(&t, " ", 1);
        }
    }
    if (cont >= 0) {
        write_continuation(g, cont, o, &t);
    }
    cr_sb_add(&t, "}", 1);
    if (t.failed) {
        free(t.p);
        return CR_ENOMEM;
    }
    put_words(w, t.p);
    free(t.p);
    return 0;
}

/* Legal ply i: its number when due, the move, a NAG, a FIDE draw offer
 * and its comment with the commands. The continuation after an illegal
 * next ply goes into that comment when there is one: readers such as
 * chess.js do not take two comments in a row. Returns true when that
 * ended the movetext. */
static bool write_ply(const cr_game *g, int i, const cr_pgn_options *o, wrap *w, bool *need_number)
{
    const cr_ply *p = cr_game_ply(g, i);
    const cr_position *before = cr_game_position_at(g, i);
    move_number(w, before, *need_number);
    *need_number = false;
    char mv[CR_SAN_MAX + 8];
    move_text(g, i, o, mv, sizeof mv);
    size_t mvlen = strlen(mv);
    if (mvlen > 0 && !memchr(mv, ' ', mvlen)) {
        put_word(w, mv, mvlen); /* what put_words does with one word */
    } else {
        put_words(w, mv);
    }
    for (int k = 0; k < CR_PLY_NAGS && p->nag[k]; k++) {
        char nb[8];
        int len = snprintf(nb, sizeof nb, "$%u", (unsigned)p->nag[k]);
        put_word(w, nb, (size_t)len);
    }
    int nag = 0;
    const char *extra = o->ply_extra ? o->ply_extra(o->extra_data, i, &nag) : NULL;
    if (nag > 0 && nag < 256) {
        char nb[8];
        int k = snprintf(nb, sizeof nb, "$%d", nag);
        put_word(w, nb, (size_t)k);
    }
    bool fide_draw = o->style == CR_STYLE_FIDE && (p->flags & CR_PLY_DRAW_OFFER);
    if (fide_draw) {
        put_word(w, "(=)", 3);
    }
    cr_sb t = {0};
    if (extra && extra[0]) {
        cr_sb_str(&t, extra);
    }
    ply_commands(&t, p, !fide_draw, o->flags & CR_PGN_RELAY_DATA);
    bool bare = o->flags & CR_PGN_BARE;
    const char *cm = shown_comment(p, cr_game_comment(g, i), bare);
    if (cm || (!bare && (p->flags & CR_PLY_RECONSTRUCTED))) {
        if (t.len) {
            cr_sb_add(&t, " ", 1);
        }
        ply_text(&t, p, cm, bare, false);
    }
    bool merged = t.len && illegal_at(g, i + 1);
    if (merged) {
        cr_sb_add(&t, " ", 1);
        write_continuation(g, i + 1, o, &t);
    }
    if (t.len) {
        cr_sb u = {0};
        cr_sb_add(&u, "{", 1);
        cr_sb_add(&u, t.p, t.len);
        cr_sb_add(&u, "}", 1);
        if (!u.failed) {
            put_words(w, u.p);
        }
        w->b->failed |= u.failed;
        free(u.p);
        *need_number = true;
    }
    w->b->failed |= t.failed;
    free(t.p);
    return merged;
}

static int write_all(const cr_game *g, const cr_pgn_options *opt, cr_sb *b)
{
    cr_pgn_options o = {.style = CR_STYLE_SAN, .lang = CR_LANG_EN, .width = 80};
    if (opt) {
        o = *opt;
    }
    if (o.width <= 0) {
        o.width = 80;
    }
    if ((unsigned)o.lang >= CR_LANG_NB || (unsigned)o.style > CR_STYLE_FIGURINE) {
        return CR_EINVAL;
    }
    write_tags(g, b);

    wrap w = {b, o.width, 0};
    bool need_number = true;
    const char *c0 = cr_game_comment(g, -1);
    int n = cr_game_ply_count(g);
    if (c0) {
        /* the game's comment takes the continuation of an illegal first ply */
        int cont = illegal_at(g, 0) ? 0 : -1;
        if (put_comment(&w, g, c0, cont, &o) != 0) {
            return CR_ENOMEM;
        }
        if (cont == 0) {
            n = 0;
        }
    }
    for (int i = 0; i < n; i++) {
        if (cr_game_ply(g, i)->flags & CR_PLY_ILLEGAL) {
            if (put_comment(&w, g, NULL, i, &o) != 0) {
                return CR_ENOMEM;
            }
            break;
        }
        if (write_ply(g, i, &o, &w, &need_number)) {
            break;
        }
    }
    const char *res = cr_result_string(cr_game_result(g));
    put_word(&w, res, strlen(res));
    cr_sb_str(b, "\n\n");
    return b->failed ? CR_ENOMEM : 0;
}

int cr_pgn_write(const cr_game *game, const cr_pgn_options *opt, char **out, size_t *len)
{
    if (!game || !out) {
        return CR_EINVAL;
    }
    cr_sb b = {0};
    int rc = write_all(game, opt, &b);
    if (rc) {
        free(b.p);
        *out = NULL;
        return rc;
    }
    *out = cr_sb_take(&b, len);
    return *out ? 0 : CR_ENOMEM;
}

int cr_pgn_write_buf(const cr_game *game, const cr_pgn_options *opt, char *buf, size_t size)
{
    char *s;
    size_t n;
    int rc = cr_pgn_write(game, opt, &s, &n);
    if (rc) {
        return rc;
    }
    if (n + 1 > size) {
        free(s);
        return CR_ENOSPC;
    }
    memcpy(buf, s, n + 1);
    free(s);
    return (int)n;
}

int cr_pgn_write_file(const cr_game *game, const cr_pgn_options *opt, FILE *f)
{
    char *s;
    size_t n;
    int rc = cr_pgn_write(game, opt, &s, &n);
    if (rc) {
        return rc;
    }
    size_t w = fwrite(s, 1, n, f);
    free(s);
    return w == n ? 0 : CR_EIO;
}
