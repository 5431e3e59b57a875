/* PGN import (see include/cr/pgn.h for the format decisions; export is in
 * pgn_write.c). */
#include "cr/pgn.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* ---------------------------------------------------------------- reader */

struct cr_pgn_reader {
    char *buf; /* NUL-terminated copy, BOM removed */
    size_t len;
    size_t pos;
    int line; /* line number of pos (1-based) */
    int lang;
};

cr_pgn_reader *cr_pgn_reader_new(const char *data, size_t len)
{
    if (!data && len) {
        return NULL;
    }
    cr_pgn_reader *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
        data += 3;
        len -= 3;
    }
    r->buf = malloc(len + 1);
    if (!r->buf) {
        free(r);
        return NULL;
    }
    if (len) {
        memcpy(r->buf, data, len);
    }
    r->buf[len] = '\0';
    /* an embedded NUL ends the input: everything is NUL-terminated text */
    r->len = strlen(r->buf);
    r->lang = -1;
    r->line = 1;
    return r;
}

cr_pgn_reader *cr_pgn_reader_new_file(FILE *f)
{
    cr_sb b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        cr_sb_add(&b, chunk, n);
    }
    if (ferror(f) || b.failed) {
        free(b.p);
        return NULL;
    }
    cr_pgn_reader *r = cr_pgn_reader_new(b.p ? b.p : "", b.len);
    free(b.p);
    return r;
}

void cr_pgn_reader_free(cr_pgn_reader *r)
{
    if (r) {
        free(r->buf);
        free(r);
    }
}

void cr_pgn_reader_set_lang(cr_pgn_reader *r, int lang)
{
    r->lang = (lang >= 0 && lang < CR_LANG_NB) ? lang : -1;
}

/* State while one game is read. */
typedef struct gctx {
    const char *buf;
    size_t len;
    cr_game *g;
    int lang;
    int result; /* -1 until a terminator is seen */
    cr_error *err;
    size_t base;   /* a line start at or before everything of this game */
    int base_line; /* its line number */
    size_t err_off;
    bool auto_lang; /* lang was detected, not given */
    bool gap_counted; /* the writer's words before the next [%missing] said an exact count */
} gctx;

static void where(const gctx *g, size_t off, int *line, int *col)
{
    const char *buf = g->buf;
    int l = g->base_line, c = 1;
    for (size_t i = g->base; i < off && buf[i]; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else if (((unsigned char)buf[i] & 0xc0) != 0x80) {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static int fail_at(gctx *c, int code, size_t off, const char *fmt, ...) CR_PRINTF(4, 5);

static int fail_at(gctx *c, int code, size_t off, const char *fmt, ...)
{
    if (off > c->len) {
        off = c->len;
    }
    c->err_off = off;
    if (c->err) {
        va_list ap;
        va_start(ap, fmt);
        c->err->code = code;
        where(c, off, &c->err->line, &c->err->column);
        vsnprintf(c->err->text, sizeof c->err->text, fmt, ap);
        va_end(ap);
    }
    return code;
}

static bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v'; }

static bool at_line_start(const char *buf, size_t i) { return i == 0 || buf[i - 1] == '\n'; }

/* "1:29:58", "1:29:58.5", "29:58" -> ms, or -1. */
static int64_t parse_clock(const char *s, size_t n)
{
    int64_t parts[3] = {0};
    int np = 0;
    size_t i = 0;
    while (i < n) {
        if (!(s[i] >= '0' && s[i] <= '9') || np == 3) {
            return -1;
        }
        int64_t v = 0;
        size_t d = 0;
        while (i < n && s[i] >= '0' && s[i] <= '9' && d < 9) {
            v = v * 10 + (s[i] - '0');
            i++;
            d++;
        }
        parts[np++] = v;
        if (i < n && s[i] == ':') {
            i++;
            continue;
        }
        break;
    }
    if (np < 2) {
        return -1;
    }
    int64_t ms = 0;
    for (int k = 0; k < np; k++) {
        if (k > 0 && parts[k] >= 60) {
            return -1;
        }
        ms = ms * 60 + parts[k];
    }
    ms *= 1000;
    if (i < n && s[i] == '.') {
        i++;
        int64_t scale = 100;
        if (i >= n) {
            return -1;
        }
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            ms += (s[i] - '0') * scale;
            scale /= 10;
            i++;
        }
    }
    if (i != n || ms > INT32_MAX) {
        return -1;
    }
    return ms;
}

/* Appends text to the comment after ply `ply`, whitespace collapsed. */
static int add_comment(gctx *c, int ply, const char *s, size_t n)
{
    cr_sb b = {0};
    const char *old = cr_game_comment(c->g, ply);
    if (old) {
        cr_sb_str(&b, old);
    }
    size_t i = 0;
    while (i < n) {
        while (i < n && is_space(s[i])) {
            i++;
        }
        size_t st = i;
        while (i < n && !is_space(s[i])) {
            i++;
        }
        if (i > st) {
            if (b.len) {
                cr_sb_add(&b, " ", 1);
            }
            cr_sb_add(&b, s + st, i - st);
        }
    }
    int rc = 0;
    if (b.failed) {
        rc = CR_ENOMEM;
    } else if (b.len) {
        rc = cr_game_set_comment(c->g, ply, b.p);
    }
    free(b.p);
    return rc;
}

static int parse_span(gctx *c, size_t i, size_t end, bool cont, size_t *stop);

/* The writer's marks of uncertainty lead a ply's comment: "reconstructed",
 * "reconstructed, ambiguous", then ": " and the rest. They become flags
 * again; the rest stays the comment. */
static int take_marks(gctx *c, int ply)
{
    const char *cm = ply >= 0 ? cr_game_comment(c->g, ply) : NULL;
    if (!cm || strncmp(cm, "reconstructed", 13) != 0 || (cm[13] && cm[13] != ',' && cm[13] != ':')) {
        return 0;
    }
    uint32_t flags = CR_PLY_RECONSTRUCTED;
    const char *r = cm + 13;
    if (strncmp(r, ", ambiguous", 11) == 0 && (!r[11] || r[11] == ':')) {
        flags |= CR_PLY_AMBIGUOUS;
        r += 11;
    }
    if (*r == ':') {
        r++;
    } else if (*r) {
        return 0; /* not the writer's form: leave the text alone */
    }
    while (*r == ' ') {
        r++;
    }
    cr_ply *p = cr_game_ply_mut(c->g, ply);
    p->flags |= flags;
    char *rest = *r ? strdup(r) : NULL;
    if (*r && !rest) {
        return CR_ENOMEM;
    }
    int rc = cr_game_set_comment(c->g, ply, rest);
    free(rest);
    return rc;
}

/* Handles one `[%name args]` command at [a, b) (a at '[', b after ']').
 * *rest_is_cont: set when the command was %illegal and the remainder of the
 * comment is continuation movetext. */
static int handle_command(gctx *c, size_t a, size_t b, bool *is_illegal)
{
    const char *s = c->buf + a + 2;
    size_t n = b - a - 3;
    size_t k = 0;
    while (k < n && !is_space(s[k])) {
        k++;
    }
    size_t as = k;
    while (as < n && is_space(s[as])) {
        as++;
    }
    size_t ae = n;
    while (ae > as && is_space(s[ae - 1])) {
        ae--;
    }
    int last = cr_game_ply_count(c->g) - 1;
    *is_illegal = false;
    if ((k == 3 && memcmp(s, "clk", 3) == 0) || (k == 3 && memcmp(s, "emt", 3) == 0)) {
        int64_t ms = parse_clock(s + as, ae - as);
        if (ms < 0) {
            return fail_at(c, CR_EPGN, a, "bad time '%.*s' in [%%%.3s]", (int)(ae - as > 20 ? 20 : ae - as),
                           s + as, s);
        }
        cr_ply *p = cr_game_ply_mut(c->g, last);
        if (p) {
            if (s[0] == 'c') {
                p->clock_ms = (int32_t)ms;
            } else {
                p->emt_ms = (int32_t)ms;
            }
        }
        return 0;
    }
    if (k == 4 && memcmp(s, "draw", 4) == 0) {
        cr_ply *p = cr_game_ply_mut(c->g, last);
        if (p) {
            p->flags |= CR_PLY_DRAW_OFFER;
        }
        return 0;
    }
    if ((k == 2 && memcmp(s, "ts", 2) == 0) || (k == 4 && memcmp(s, "fits", 4) == 0)) {
        char num[24];
        size_t nl = ae - as;
        char *end = NULL;
        long long v = -1;
        if (nl > 0 && nl < sizeof num) {
            memcpy(num, s + as, nl);
            num[nl] = '\0';
            v = strtoll(num, &end, 10);
        }
        if (!end || *end || v < 0 || (k == 4 && v > 65535)) {
            return fail_at(c, CR_EPGN, a, "bad number in [%%%.*s]", (int)k, s);
        }
        cr_ply *p = cr_game_ply_mut(c->g, last);
        if (p) {
            if (k == 2) {
                p->ts = v;
            } else {
                p->fits = (uint16_t)v;
            }
        }
        return 0;
    }
    if ((k == 13 && memcmp(s, "reconstructed", 13) == 0) || (k == 9 && memcmp(s, "ambiguous", 9) == 0)) {
        cr_ply *p = cr_game_ply_mut(c->g, last);
        if (p) {
            p->flags |= k == 13 ? CR_PLY_RECONSTRUCTED : CR_PLY_AMBIGUOUS;
        }
        return 0;
    }
    if (k == 7 && memcmp(s, "comment", 7) == 0) {
        int rc = add_comment(c, last, s + as, ae - as);
        return rc ? rc : take_marks(c, last);
    }
    bool missing = k == 7 && memcmp(s, "missing", 7) == 0;
    if ((k == 7 && memcmp(s, "illegal", 7) == 0) || missing) {
        /* [%illegal SAN FEN]; [%missing FEN]: moves not known, the position after */
        size_t se = as;
        while (!missing && se < ae && !is_space(s[se])) {
            se++;
        }
        char san[16], fen[CR_FEN_MAX + 40];
        size_t sl = se - as;
        long count = 0; /* [%missing N FEN]: at least N plies not seen */
        if (missing && se < ae && s[se] >= '0' && s[se] <= '9') {
            size_t ne = se;
            while (ne < ae && s[ne] >= '0' && s[ne] <= '9' && count <= 65535) {
                count = count * 10 + (s[ne++] - '0');
            }
            if (ne < ae && is_space(s[ne])) {
                if (count > 65535) {
                    return fail_at(c, CR_EPGN, a, "bad count in [%%missing N FEN]");
                }
                se = ne;
            } else {
                count = 0; /* no count: the FEN's first rank ("8/...") */
            }
        }
        if (missing) {
            snprintf(san, sizeof san, "--");
        } else if (sl == 0 || sl >= sizeof san) {
            return fail_at(c, CR_EPGN, a, "bad [%%illegal] command");
        } else {
            memcpy(san, s + as, sl);
            san[sl] = '\0';
        }
        /* the FEN may have been wrapped: collapse whitespace */
        size_t fl = 0;
        for (size_t q = se; q < ae && fl + 2 < sizeof fen; q++) {
            if (is_space(s[q])) {
                if (fl && fen[fl - 1] != ' ') {
                    fen[fl++] = ' ';
                }
            } else {
                fen[fl++] = s[q];
            }
        }
        while (fl && fen[fl - 1] == ' ') {
            fl--;
        }
        fen[fl] = '\0';
        cr_position after;
        cr_error fe;
        cr_error_clear(&fe);
        const char *f = fen[0] == ' ' ? fen + 1 : fen;
        if (cr_position_from_fen(&after, f, &fe) < 0) {
            return fail_at(c, CR_EFEN, a, "[%%illegal %s]: %s", san, fe.text);
        }
        if (cr_game_start(c->g)->chess960) {
            after.chess960 = 1;
        }
        int rc = cr_game_push_illegal(c->g, &after, san, CR_CLOCK_UNKNOWN, -1);
        if (rc) {
            return fail_at(c, rc, a, "out of memory");
        }
        if (missing) {
            cr_ply *gp = cr_game_ply_mut(c->g, cr_game_ply_count(c->g) - 1);
            gp->flags |= CR_PLY_MISSING | (c->gap_counted && count > 0 ? CR_PLY_COUNTED : 0u);
            gp->missing = (uint16_t)count;
        }
        c->gap_counted = false;
        *is_illegal = true;
        return 0;
    }
    /* unknown commands ([%eval ...], [%csl ...]) stay in the comment text */
    return add_comment(c, last, c->buf + a, b - a);
}

/* The writer's words before a gap, "gap: at least N plies not seen" (a
 * lower bound) or "gap: N plies not seen" (counted; "1 ply" either way), at
 * i and followed by `[%missing`: returns the index of that '[', else 0, and
 * tells which in *counted. They say what the command says and are not kept. */
static size_t gap_words(const char *buf, size_t i, size_t end, bool *counted)
{
    /* word by word: the writer may have wrapped the line between any two */
    static const char *const words[] = {"gap:", "at", "least", "#", "plies|ply", "not", "seen"};
    size_t j = i;
    bool least = true;
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        if (k > 0) {
            size_t sp = j;
            while (j < end && is_space(buf[j])) {
                j++;
            }
            if (j == sp) {
                return 0;
            }
        }
        size_t st = j;
        while (j < end && !is_space(buf[j]) && buf[j] != '[') {
            j++;
        }
        size_t wl = j - st;
        const char *w = words[k];
        if (k == 1 && !(wl == 2 && memcmp(buf + st, "at", 2) == 0)) {
            least = false; /* no "at least": the count itself */
            k = 3;
            w = words[k];
        }
        bool ok;
        if (w[0] == '#') {
            ok = wl > 0 && wl < 6;
            for (size_t q = st; q < j && ok; q++) {
                ok = buf[q] >= '0' && buf[q] <= '9';
            }
        } else if (strchr(w, '|')) {
            ok = (wl == 5 && memcmp(buf + st, "plies", 5) == 0) || (wl == 3 && memcmp(buf + st, "ply", 3) == 0);
        } else {
            ok = wl == strlen(w) && memcmp(buf + st, w, wl) == 0;
        }
        if (!ok) {
            return 0;
        }
    }
    while (j < end && is_space(buf[j])) {
        j++;
    }
    if (end - j >= 9 && memcmp(buf + j, "[%missing", 9) == 0) {
        *counted = !least;
        return j;
    }
    return 0;
}

/* Finds the end of a `[%...]` command starting at a; returns the index after
 * ']' or 0 if it does not close before end. */
static size_t command_end(const char *buf, size_t a, size_t end)
{
    for (size_t i = a; i < end; i++) {
        if (buf[i] == ']') {
            return i + 1;
        }
    }
    return 0;
}

/* Comment content [a, b): commands and text. */
static int handle_comment(gctx *c, size_t a, size_t b)
{
    int ply = cr_game_ply_count(c->g) - 1;
    size_t i = a, text_start = a;
    while (i < b) {
        if (c->buf[i] == '[' && i + 1 < b && c->buf[i + 1] == '%') {
            size_t e = command_end(c->buf, i, b);
            if (!e || memchr(c->buf + i + 1, '[', e - i - 1)) {
                /* "[%" that never closes, or holds another '[' (not a
                 * command the writer makes), is just text */
                break;
            }
            size_t text_end = i;
            for (size_t g = text_start; g < i; g++) {
                if (c->buf[g] == 'g' && gap_words(c->buf, g, b, &c->gap_counted) == i) {
                    text_end = g;
                    break;
                }
            }
            int rc = add_comment(c, ply, c->buf + text_start, text_end - text_start);
            bool illegal = false;
            if (!rc) {
                rc = handle_command(c, i, e, &illegal);
            }
            if (rc) {
                return rc;
            }
            if (illegal) {
                size_t stop;
                rc = take_marks(c, ply); /* the marks of the ply before the continuation */
                return rc ? rc : parse_span(c, e, b, true, &stop);
            }
            i = text_start = e;
            continue;
        }
        i++;
    }
    int rc = add_comment(c, ply, c->buf + text_start, b - text_start);
    return rc ? rc : take_marks(c, ply);
}

static bool is_result_at(const char *s, int *result, size_t *n)
{
    static const struct {
        const char *t;
        int r;
    } res[] = {{"1-0", CR_RESULT_WHITE}, {"0-1", CR_RESULT_BLACK}, {"1/2-1/2", CR_RESULT_DRAW},
               {"\xc2\xbd-\xc2\xbd", CR_RESULT_DRAW}, {"*", CR_RESULT_NONE}};
    for (size_t k = 0; k < sizeof res / sizeof res[0]; k++) {
        size_t l = strlen(res[k].t);
        if (strncmp(s, res[k].t, l) == 0) {
            char nx = s[l];
            if (nx == '\0' || is_space(nx) || nx == '{' || nx == ';' || nx == ')' || nx == '(' || nx == '[' ||
                nx == '}') {
                *result = res[k].r;
                *n = l;
                return true;
            }
        }
    }
    return false;
}

/* Skips a variation starting at '(' (index i); returns the index after the
 * matching ')' or 0 if it does not close before end. */
static size_t skip_variation(const char *buf, size_t i, size_t end)
{
    int depth = 0;
    while (i < end) {
        char ch = buf[i];
        if (ch == '{') {
            while (i < end && buf[i] != '}') {
                i++;
            }
            if (i >= end) {
                return 0;
            }
        } else if (ch == ';') {
            while (i < end && buf[i] != '\n') {
                i++;
            }
            continue;
        } else if (ch == '(') {
            depth++;
        } else if (ch == ')') {
            if (--depth == 0) {
                return i + 1;
            }
        }
        i++;
    }
    return 0;
}

static void set_draw_offer(gctx *c)
{
    cr_ply *p = cr_game_ply_mut(c->g, cr_game_ply_count(c->g) - 1);
    if (p) {
        p->flags |= CR_PLY_DRAW_OFFER;
    }
}

/* A NAG (1..255) for the last ply: kept in its list; one that does not fit
 * there (or before any move) stays as "$N" in the comment. */
static int add_nag(gctx *c, long nag, size_t at)
{
    if (nag < 1 || nag > 255) {
        return fail_at(c, CR_EPGN, at, "NAG $%ld out of range (1 to 255)", nag);
    }
    int last = cr_game_ply_count(c->g) - 1;
    cr_ply *p = cr_game_ply_mut(c->g, last);
    for (int k = 0; p && k < CR_PLY_NAGS; k++) {
        if (p->nag[k] == 0) {
            p->nag[k] = (uint8_t)nag;
            return 0;
        }
    }
    char t[8];
    int n = snprintf(t, sizeof t, "$%ld", nag);
    return add_comment(c, last, t, (size_t)n);
}

/* "!", "?", "!!", "??", "!?", "?!" standing apart from the move: $1..$6. */
static int read_glyph(gctx *c, size_t *at, size_t end)
{
    static const char *const glyphs[7] = {"", "!", "?", "!!", "??", "!?", "?!"};
    size_t i = *at, e = i;
    while (e < end && (c->buf[e] == '!' || c->buf[e] == '?')) {
        e++;
    }
    for (int k = 1; k < 7; k++) {
        if (strlen(glyphs[k]) == e - i && memcmp(glyphs[k], c->buf + i, e - i) == 0) {
            *at = e;
            return add_nag(c, k, i);
        }
    }
    return fail_at(c, CR_EPGN, i, "unknown annotation '%.*s' (! ? !! ?? !? ?! or $N)", (int)(e - i < 8 ? e - i : 8),
                   c->buf + i);
}

/* A move number at *i ("12.", "12...", "12…", "12 "): moves *i past it and
 * returns true; false when the digits start something else (a result). */
static bool skip_move_number(const char *buf, size_t *i, size_t end)
{
    size_t e = *i;
    while (e < end && buf[e] >= '0' && buf[e] <= '9') {
        e++;
    }
    if (e >= end || buf[e] == '.' || is_space(buf[e])) {
        while (e < end && buf[e] == '.') {
            e++;
        }
        /* "1. 1. e4" happens on printed scoresheets: numbers are not checked */
        *i = e;
        return true;
    }
    if (buf[e] == '\xe2' && buf[e + 1] == '\x80' && buf[e + 2] == '\xa6') {
        *i = e + 3; /* "12…" */
        return true;
    }
    return false;
}

/* The move at *i, played on the game; *i moves past it. */
static int read_move(gctx *c, size_t *at, size_t end)
{
    const char *buf = c->buf;
    size_t i = *at;
    const cr_position *pos = cr_game_position(c->g);
    cr_san_info info;
    cr_error e;
    cr_error_clear(&e);
    cr_move m = cr_move_from_text(pos, buf + i, c->lang, &info, &e);
    if (m == CR_MOVE_NONE && c->auto_lang && c->lang >= 0) {
        /* the guessed language does not fit this move: take a reading
         * that no other language contradicts */
        m = cr_move_from_text(pos, buf + i, -1, &info, NULL);
    }
    if (m == CR_MOVE_NONE) {
        size_t te = i;
        while (te < end && !is_space(buf[te]) && buf[te] != '{' && buf[te] != '(' && buf[te] != ')' &&
               buf[te] != ';' && te - i < 24) {
            te++;
        }
        return fail_at(c, e.code ? e.code : CR_EMOVE, i, "move %d (%s): %.*s: %s", pos->fullmove,
                       pos->side == CR_WHITE ? "white" : "black", (int)(te - i), buf + i, e.text);
    }
    uint32_t flags = (info.flags & CR_SANF_DRAW_OFFER) ? CR_PLY_DRAW_OFFER : 0;
    int rc = cr_game_push(c->g, m, CR_CLOCK_UNKNOWN, -1, flags);
    if (rc) {
        return fail_at(c, rc, i, "cannot store the move");
    }
    *at = i + (info.consumed > 0 ? (size_t)info.consumed : 1);
    return info.nag > 0 ? add_nag(c, info.nag, i) : 0;
}

/* Movetext in [i, end). cont: inside an %illegal continuation comment, where
 * `[%...]` stands for `{[%...]}`. Stops after a result, or (not cont) at a
 * '[' that starts a line (next game's tags). *stop gets where it stopped. */
static int parse_span(gctx *c, size_t i, size_t end, bool cont, size_t *stop)
{
    const char *buf = c->buf;
    while (i < end) {
        char ch = buf[i];
        if (is_space(ch)) {
            i++;
            continue;
        }
        if (ch == '%' && at_line_start(buf, i) && !cont) {
            while (i < end && buf[i] != '\n') {
                i++;
            }
            continue;
        }
        if (ch == '{' && !cont) {
            size_t e = i + 1;
            while (e < end && buf[e] != '}') {
                e++;
            }
            if (e >= end) {
                return fail_at(c, CR_EPGN, i, "unterminated comment");
            }
            int rc = handle_comment(c, i + 1, e);
            if (rc) {
                return rc;
            }
            i = e + 1;
            continue;
        }
        if (ch == ';' && !cont) {
            size_t e = i + 1;
            while (e < end && buf[e] != '\n') {
                e++;
            }
            int rc = handle_comment(c, i + 1, e); /* same meaning as {...} */
            if (rc) {
                return rc;
            }
            i = e;
            continue;
        }
        size_t gw = cont && ch == 'g' ? gap_words(buf, i, end, &c->gap_counted) : 0;
        if (gw) {
            i = gw;
            continue;
        }
        if (ch == '[') {
            if (cont && buf[i + 1] == '%') {
                size_t e = command_end(buf, i, end);
                if (!e) {
                    return fail_at(c, CR_EPGN, i, "unterminated [%% command");
                }
                bool illegal;
                int rc = handle_command(c, i, e, &illegal);
                if (rc) {
                    return rc;
                }
                i = e;
                continue;
            }
            if (!cont && at_line_start(buf, i)) {
                break; /* the next game's tags: this one had no result */
            }
            return fail_at(c, CR_EPGN, i, "unexpected '['");
        }
        if (ch == '(') {
            if (buf[i + 1] == '=' && buf[i + 2] == ')') {
                set_draw_offer(c);
                i += 3;
                continue;
            }
            size_t e = skip_variation(buf, i, end);
            if (!e) {
                return fail_at(c, CR_EPGN, i, "unterminated variation");
            }
            i = e;
            continue;
        }
        if (ch == ')' || ch == '}' || ch == ']') {
            return fail_at(c, CR_EPGN, i, "unexpected '%c'", ch);
        }
        if (ch == '$') {
            size_t e = i + 1;
            while (e < end && buf[e] >= '0' && buf[e] <= '9') {
                e++;
            }
            if (e == i + 1) {
                return fail_at(c, CR_EPGN, i, "NAG number expected after '$'");
            }
            long nag = 0;
            for (size_t q = i + 1; q < e && nag < 1000; q++) {
                nag = nag * 10 + (buf[q] - '0');
            }
            int rc = add_nag(c, nag, i);
            if (rc) {
                return rc;
            }
            i = e;
            continue;
        }
        if (ch == '!' || ch == '?') {
            int rc = read_glyph(c, &i, end);
            if (rc) {
                return rc;
            }
            continue;
        }
        if (ch == '=' && (i + 1 >= end || is_space(buf[i + 1]))) {
            set_draw_offer(c);
            i++;
            continue;
        }
        int result;
        size_t rn;
        if (is_result_at(buf + i, &result, &rn)) {
            c->result = result;
            i += rn;
            break;
        }
        if (ch >= '0' && ch <= '9' && skip_move_number(buf, &i, end)) {
            continue;
        }
        int rc = read_move(c, &i, end);
        if (rc) {
            return rc;
        }
    }
    *stop = i;
    return 0;
}

typedef struct tag {
    char *name, *value;
    size_t at; /* offset of the value in the input, for error positions */
} tag;

static void free_tags(tag *t, int n)
{
    for (int k = 0; k < n; k++) {
        free(t[k].name);
        free(t[k].value);
    }
    free(t);
}

static bool name_ieq_sub(const char *s, const char *sub)
{
    /* case-insensitive "contains" for Variant values */
    size_t n = strlen(sub);
    for (; *s; s++) {
        size_t k = 0;
        while (k < n && s[k] && ((s[k] | 32) == (sub[k] | 32))) {
            k++;
        }
        if (k == n) {
            return true;
        }
    }
    return false;
}

/* One tag pair at *at ('[' there): appended to *tags; *at moves past ']'. */
static int read_tag(gctx *c, size_t *at, tag **tags, int *ntags, int *cap)
{
    const char *buf = c->buf;
    size_t len = c->len, i = *at, open = i;
    i++;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t')) {
        i++;
    }
    size_t ns = i;
    while (i < len && (((buf[i] | 32) >= 'a' && (buf[i] | 32) <= 'z') || (buf[i] >= '0' && buf[i] <= '9') ||
                       buf[i] == '_' || buf[i] == '-')) {
        i++;
    }
    if (i == ns) {
        return fail_at(c, CR_EPGN, i, "tag name expected");
    }
    size_t ne = i;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t')) {
        i++;
    }
    if (buf[i] != '"') {
        return fail_at(c, CR_EPGN, i, "'\"' expected after the tag name");
    }
    size_t vs = ++i;
    cr_sb v = {0};
    cr_sb_add(&v, "", 0);
    while (i < len && buf[i] != '"' && buf[i] != '\n') {
        if (buf[i] == '\\' && (buf[i + 1] == '"' || buf[i + 1] == '\\')) {
            i++;
        }
        cr_sb_add(&v, buf + i, 1);
        i++;
    }
    if (buf[i] != '"') {
        cr_sb_free(&v);
        return fail_at(c, CR_EPGN, vs - 1, "unterminated tag value");
    }
    i++;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t')) {
        i++;
    }
    if (buf[i] != ']') {
        cr_sb_free(&v);
        return fail_at(c, CR_EPGN, i, "']' expected to close the tag");
    }
    i++;
    if (*ntags == *cap) {
        int ncap = *cap ? *cap * 2 : 16;
        tag *t = realloc(*tags, (size_t)ncap * sizeof *t);
        if (!t) {
            cr_sb_free(&v);
            return fail_at(c, CR_ENOMEM, open, "out of memory");
        }
        *tags = t;
        *cap = ncap;
    }
    tag *tg = &(*tags)[*ntags];
    tg->name = malloc(ne - ns + 1);
    tg->at = vs;
    if (!tg->name || v.failed) {
        free(tg->name);
        cr_sb_free(&v);
        return fail_at(c, CR_ENOMEM, open, "out of memory");
    }
    tg->value = v.p;
    memcpy(tg->name, buf + ns, ne - ns);
    tg->name[ne - ns] = '\0';
    (*ntags)++;
    *at = i;
    return 0;
}

/* The game's start: the FEN tag's position (or the standard one), Chess960
 * when a Variant tag says so. */
static int start_position(gctx *c, const tag *tags, int ntags, cr_position *start)
{
    cr_position_init_start(start);
    bool chess960 = false;
    for (int k = 0; k < ntags; k++) {
        if (strcmp(tags[k].name, "Variant") == 0 &&
            (name_ieq_sub(tags[k].value, "960") || name_ieq_sub(tags[k].value, "fischer"))) {
            chess960 = true;
        }
    }
    for (int k = 0; k < ntags; k++) {
        if (strcmp(tags[k].name, "FEN") == 0) {
            cr_error fe;
            cr_error_clear(&fe);
            if (cr_position_from_fen(start, tags[k].value, &fe) < 0) {
                return fail_at(c, CR_EFEN, tags[k].at + (size_t)(fe.column > 0 ? fe.column - 1 : 0),
                               "FEN: %s", fe.text);
            }
        }
    }
    if (chess960) {
        start->chess960 = 1;
    }
    return 0;
}

/* Reads one game starting at *pos in buf. */
static int read_game(const char *buf, size_t len, size_t *pos, int lang, cr_game **out, cr_error *err,
                     bool *in_tags, size_t base, int base_line, size_t *err_off)
{
    gctx c = {.buf = buf, .len = len, .lang = lang, .result = -1, .err = err, .base = base,
              .base_line = base_line, .err_off = *pos};
    size_t i = *pos;
    tag *tags = NULL;
    int ntags = 0, cap = 0;
    int rc = 0;
    *out = NULL;
    *in_tags = true;

    /* skip blank space, escape lines, and stray annotations before a game */
    for (;;) {
        while (i < len && is_space(buf[i])) {
            i++;
        }
        if (i < len && buf[i] == '%' && at_line_start(buf, i)) {
            while (i < len && buf[i] != '\n') {
                i++;
            }
            continue;
        }
        break;
    }
    if (i >= len) {
        *pos = i;
        return CR_EEOF;
    }
    while (i < len && buf[i] == '[') {
        rc = read_tag(&c, &i, &tags, &ntags, &cap);
        if (rc) {
            goto fail;
        }
        while (i < len && is_space(buf[i])) {
            i++;
        }
    }
    *in_tags = false;

    cr_position start;
    rc = start_position(&c, tags, ntags, &start);
    if (rc) {
        goto fail;
    }
    c.g = cr_game_new(&start);
    if (!c.g) {
        rc = fail_at(&c, CR_ENOMEM, i, "out of memory");
        goto fail;
    }
    for (int k = 0; k < ntags; k++) {
        if (strcmp(tags[k].name, "FEN") && strcmp(tags[k].name, "SetUp") &&
            cr_game_set_tag(c.g, tags[k].name, tags[k].value) == CR_ENOMEM) {
            rc = fail_at(&c, CR_ENOMEM, i, "out of memory");
            goto fail;
        }
    }
    if (c.lang < 0) {
        c.auto_lang = true;
        /* the language of this game's movetext: up to the next tag line */
        size_t e = i;
        while (e < len && !(buf[e] == '[' && at_line_start(buf, e))) {
            e++;
        }
        c.lang = cr_notation_detect_lang(buf + i, e - i);
    }
    size_t stop = i;
    rc = parse_span(&c, i, len, false, &stop);
    if (rc) {
        goto fail;
    }
    i = stop;
    if (c.result < 0) {
        const char *rt = cr_game_tag(c.g, "Result");
        c.result = rt ? cr_result_parse(rt) : -1;
    }
    if (c.result >= 0) {
        cr_game_set_result(c.g, (cr_result)c.result);
    }
    free_tags(tags, ntags);
    *pos = i;
    *out = c.g;
    return 0;
fail:
    *err_off = c.err_off;
    free_tags(tags, ntags);
    cr_game_free(c.g);
    return rc;
}

/* After an error: go to the next line that starts with '[' (past this
 * game's own tag lines when the error was among them). */
static size_t next_game(const char *buf, size_t len, size_t at, bool in_tags)
{
    size_t i = at;
    while (i < len && buf[i] != '\n') {
        i++;
    }
    if (i < len) {
        i++;
    }
    if (in_tags) {
        while (i < len && buf[i] == '[') {
            while (i < len && buf[i] != '\n') {
                i++;
            }
            if (i < len) {
                i++;
            }
        }
    }
    while (i < len && !(buf[i] == '[' && at_line_start(buf, i))) {
        i++;
    }
    return i;
}

int cr_pgn_read(cr_pgn_reader *r, cr_game **game, cr_error *err)
{
    if (!r || !game) {
        return CR_EINVAL;
    }
    cr_error_clear(err);
    size_t pos = r->pos;
    bool in_tags = false;
    cr_error local;
    cr_error_clear(&local);
    cr_error *e = err ? err : &local;
    size_t base = r->pos;
    while (base > 0 && r->buf[base - 1] != '\n') {
        base--;
    }
    size_t err_off = pos;
    int rc = read_game(r->buf, r->len, &pos, r->lang, game, e, &in_tags, base, r->line, &err_off);
    size_t next = pos;
    if (rc != 0 && rc != CR_EEOF) {
        next = next_game(r->buf, r->len, err_off < r->pos ? r->pos : err_off, in_tags);
    }
    for (size_t k = r->pos; k < next; k++) {
        r->line += r->buf[k] == '\n';
    }
    r->pos = next;
    return rc;
}

int cr_pgn_parse(const char *text, size_t len, int lang, cr_game **game, cr_error *err)
{
    cr_pgn_reader *r = cr_pgn_reader_new(text, len);
    if (!r) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    cr_pgn_reader_set_lang(r, lang);
    int rc = cr_pgn_read(r, game, err);
    if (rc == CR_EEOF) {
        rc = cr_error_set(err, CR_EPGN, 1, 1, "no game in the input");
    }
    cr_pgn_reader_free(r);
    return rc;
}
