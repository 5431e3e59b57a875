/* Results back to the pairing program: a round's results written into the
 * TRF the pairings were read from, every other byte kept (cr/pairings.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairings_private.h"
#include "strbuf.h"

/* The two codes of a result (White's, Black's), or false when it is none. */
static bool result_codes(const char *r, bool unrated, char *w, char *b)
{
    static const struct {
        const char *s;
        char w, b, uw, ub;
    } map[] = {{"1-0", '1', '0', 'W', 'L'},     {"0-1", '0', '1', 'L', 'W'},
               {"1/2-1/2", '=', '=', 'D', 'D'}, {"+--", '+', '-', '+', '-'},
               {"--+", '-', '+', '-', '+'},     {"---", '-', '-', '-', '-'}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(r, map[i].s) == 0) {
            *w = unrated ? map[i].uw : map[i].w;
            *b = unrated ? map[i].ub : map[i].b;
            return true;
        }
    }
    return false;
}

/* What goes into one player's line: the code for start rank `rank`, who
 * met `opp` with `colour` in the round. */
typedef struct put {
    int rank, opp;
    char colour, code;
} put;

/* The ASCII text in columns [first, last] (1-based), trimmed, into out. */
static void field(const char *s, const size_t *starts, int count, int first, int last, char *out,
                  size_t size)
{
    size_t o = 0;
    for (int c = first; c <= last && c <= count && o + 1 < size; c++) {
        size_t a = starts[c - 1];
        if (starts[c] - a == 1 && s[a] != ' ') {
            out[o++] = s[a];
        }
    }
    out[o] = '\0';
}

/* Whether the round's block of this line pairs `p`: opponent in columns
 * col..col+3, colour at col+5. */
static bool block_holds(const char *s, const size_t *starts, int count, int col, const put *p)
{
    char buf[8];
    field(s, starts, count, col, col + 3, buf, sizeof buf);
    if (atoi(buf) != p->opp) {
        return false;
    }
    field(s, starts, count, col + 5, col + 5, buf, sizeof buf);
    return (buf[0] | 0x20) == p->colour;
}

/* Appends the line s (n bytes, its end not included) with p's code and
 * the points changed. Returns 0, or CR_EINVAL with err filled. */
static int write_line(cr_sb *out, const char *s, size_t n, int round, const put *p,
                      int lineno, size_t *starts, cr_error *err)
{
    int col = 92 + 10 * (round - 1);
    int count = cr_pairings_trf_line_columns(s, n, starts); /* as the reader counts them */
    if (count < 0 || !block_holds(s, starts, count, col, p)) {
        return cr_error_set(err, CR_EINVAL, lineno, col,
                            "start rank %d: round %d does not pair %d with %c here", p->rank, round,
                            p->opp, p->colour);
    }
    char buf[8];
    field(s, starts, count, col + 7, col + 7, buf, sizeof buf);
    char old = (char)(buf[0] >= 'a' && buf[0] <= 'z' ? buf[0] - 32 : buf[0] ? buf[0] : ' ');
    if (old == p->code) {
        cr_sb_add(out, s, n);
        return 0;
    }
    field(s, starts, count, 81, 84, buf, sizeof buf);
    char *comma = strchr(buf, ',');
    if (comma) {
        *comma = '.';
    }
    double pts = atof(buf) - cr_pairings_trf_points(old) + cr_pairings_trf_points(p->code);
    char pbuf[16];
    snprintf(pbuf, sizeof pbuf, "%4.1f", pts < 0 ? 0.0 : pts);
    if (count < 84 || strlen(pbuf) != 4) {
        return cr_error_set(err, CR_EINVAL, lineno, 81, "start rank %d: no points column",
                            p->rank);
    }
    cr_sb_add(out, s, starts[80]);
    cr_sb_add(out, pbuf, 4);
    int res = col + 7; /* 1-based column of the code */
    if (count >= res) {
        cr_sb_add(out, s + starts[84], starts[res - 1] - starts[84]);
        cr_sb_add(out, &p->code, 1);
        cr_sb_add(out, s + starts[res], n - starts[res]);
    } else { /* the line ends before the result column: padded to it */
        cr_sb_add(out, s + starts[84], n - starts[84]);
        for (int c = count + 1; c < res; c++) {
            cr_sb_add(out, " ", 1);
        }
        cr_sb_add(out, &p->code, 1);
    }
    return 0;
}

/* The items of the confirmed results (two per board) into *items; the
 * comment lines of the others into notes. Returns how many items, or < 0. */
static int collect(const cr_pairings *p, int round, const cr_round_result *results, int count,
                   put *items, cr_sb *notes, const char *eol, cr_error *err)
{
    int n = 0;
    for (int i = 0; i < count; i++) {
        const cr_round_result *r = &results[i];
        const cr_pairing *b = cr_pairings_board(p, round, r->table);
        if (!b) {
            return cr_error_set(err, CR_EINVAL, 0, 0, "round %d has no table %d", round, r->table);
        }
        if (!r->result[0] || strcmp(r->result, "*") == 0) {
            continue;
        }
        char w, k;
        if (!result_codes(r->result, r->unrated, &w, &k)) {
            return cr_error_set(err, CR_EINVAL, 0, 0, "table %d: \"%.8s\" is not a result",
                                r->table, r->result);
        }
        if (!r->confirmed) {
            cr_sb_fmt(notes, "### chessrelay: round %d table %d: %s not confirmed by an "
                                     "arbiter%s", round, r->table, r->result, eol);
            continue;
        }
        items[n++] = (put){b->white.start_rank, b->black.start_rank, 'w', w};
        items[n++] = (put){b->black.start_rank, b->white.start_rank, 'b', k};
    }
    return n;
}

static const put *find_put(const put *items, int n, int rank)
{
    for (int i = 0; i < n; i++) {
        if (items[i].rank == rank) {
            return &items[i];
        }
    }
    return NULL;
}

/* The start rank of a 001 line (columns 5-8, ASCII before any name), or 0. */
static int line_rank(const char *s, size_t n)
{
    if (n < 9 || memcmp(s, "001", 3) != 0 || (s[3] != ' ' && s[3] != '\t')) {
        return 0;
    }
    char buf[5] = {0};
    int o = 0;
    for (int i = 4; i < 8; i++) {
        if (s[i] >= '0' && s[i] <= '9') {
            buf[o++] = s[i];
        }
    }
    return atoi(buf);
}

static int copy_lines(cr_sb *out, const char *text, size_t len, int round, const put *items,
                      int nitems, int *done, cr_error *err)
{
    size_t *starts = malloc((len + 2) * sizeof *starts);
    if (!starts) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    size_t pos = 0;
    int lineno = 0, rc = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        cr_sb_add(out, text, 3);
        pos = 3;
    }
    while (pos < len && rc == 0) {
        size_t e = pos;
        while (e < len && text[e] != '\n' && text[e] != '\r') {
            e++;
        }
        size_t next = e < len && text[e] == '\r' && e + 1 < len && text[e + 1] == '\n' ? e + 2
                      : e < len                                                       ? e + 1
                                                                                      : e;
        lineno++;
        const put *p = find_put(items, nitems, line_rank(text + pos, e - pos));
        if (p) {
            rc = write_line(out, text + pos, e - pos, round, p, lineno, starts, err);
            (*done)++;
        } else {
            cr_sb_add(out, text + pos, e - pos);
        }
        cr_sb_add(out, text + e, next - e);
        pos = next;
    }
    free(starts);
    return rc;
}

char *cr_pairings_trf_results(const cr_pairings *p, const char *text, size_t len, int round,
                              const cr_round_result *results, int count, size_t *out_len,
                              cr_error *err)
{
    if (!p || !text || (count > 0 && !results) || count < 0) {
        cr_error_set(err, CR_EINVAL, 0, 0, "no pairings, text or results");
        return NULL;
    }
    if (cr_pairings_source(p) != CR_PAIRINGS_TRF) {
        cr_error_set(err, CR_EINVAL, 0, 0, "the pairings were not read from a TRF");
        return NULL;
    }
    if (round < 1 || round > MAX_ROUNDS) {
        cr_error_set(err, CR_EINVAL, 0, 0, "no round %d", round);
        return NULL;
    }
    const char *cr = memchr(text, '\r', len);
    const char *eol = cr && (size_t)(cr - text) + 1 < len && cr[1] == '\n' ? "\r\n" : "\n";
    put *items = malloc(((size_t)count * 2 + 1) * sizeof *items);
    cr_sb out, notes;
    cr_sb_init(&out);
    cr_sb_init(&notes);
    int nitems = items ? collect(p, round, results, count, items, &notes, eol, err)
                     : cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    int done = 0, rc = nitems < 0 ? nitems : 0;
    if (rc == 0) {
        rc = copy_lines(&out, text, len, round, items, nitems, &done, err);
    }
    if (rc == 0 && done != nitems) {
        rc = cr_error_set(err, CR_EINVAL, 0, 0, "%d of the round's players have no 001 line",
                          nitems - done);
    }
    if (rc == 0 && notes.len) {
        if (len && text[len - 1] != '\n' && text[len - 1] != '\r') {
            cr_sb_add(&out, eol, strlen(eol));
        }
        cr_sb_add(&out, notes.p, notes.len);
    }
    free(items);
    if (rc == 0 && (out.failed || notes.failed)) {
        rc = cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    cr_sb_free(&notes);
    size_t n = 0;
    char *res = rc == 0 ? cr_sb_take(&out, &n) : NULL;
    cr_sb_free(&out);
    if (rc == 0 && !res) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    if (res && out_len) {
        *out_len = n;
    }
    return res;
}
