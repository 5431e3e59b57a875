/* Pairings import: the set, its accessors, format detection and the diff
 * between two imports (see cr/pairings.h). The TRF reader is in
 * pairings_trf.c, the tag-only PGN reader and writer in pairings_pgn.c. */
#include "cr/pairings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairings_private.h"

#define PATH_MAX_LEN 4096

/*----- Small helpers -----*/

void *cr_pairings_grow(void *ptr, int *cap, int need, size_t elem)
{
    if (need <= *cap) {
        return ptr;
    }
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need) {
        ncap *= 2;
    }
    void *p = realloc(ptr, (size_t)ncap * elem);
    if (p) {
        *cap = ncap;
    }
    return p;
}

int cr_pairings_add_player(cr_pairings *p, const cr_pairing_player *pl)
{
    cr_pairing_player *np =
        cr_pairings_grow(p->players, &p->player_cap, p->player_count + 1, sizeof *np);
    if (!np) {
        return CR_ENOMEM;
    }
    p->players = np;
    p->players[p->player_count++] = *pl;
    return 0;
}

int cr_pairings_add_board(round_set *rs, const cr_pairing *b)
{
    cr_pairing *nb = cr_pairings_grow(rs->boards, &rs->board_cap, rs->board_count + 1, sizeof *nb);
    if (!nb) {
        return CR_ENOMEM;
    }
    rs->boards = nb;
    rs->boards[rs->board_count++] = *b;
    return 0;
}

int cr_pairings_add_bye(round_set *rs, const cr_pairing_bye *b)
{
    cr_pairing_bye *nb = cr_pairings_grow(rs->byes, &rs->bye_cap, rs->bye_count + 1, sizeof *nb);
    if (!nb) {
        return CR_ENOMEM;
    }
    rs->byes = nb;
    rs->byes[rs->bye_count++] = *b;
    return 0;
}

/* Copies s (n bytes) into dst (size bytes), cutting at a UTF-8 character
 * boundary when it does not fit. */
void cr_pairings_copy_utf8(char *dst, size_t size, const char *s, size_t n)
{
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) {
            n--;
        }
    }
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* Parses an unsigned decimal of n bytes (already trimmed). -1 if not a
 * number or above max. */
long long cr_pairings_parse_uint(const char *s, size_t n, long long max)
{
    if (n == 0) {
        return -1;
    }
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit((unsigned char)s[i])) {
            return -1;
        }
        v = v * 10 + (s[i] - '0');
        if (v > max) {
            return -1;
        }
    }
    return v;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
int cr_pairings_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int len;
    unsigned min;
    if (c < 0x80) {
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        len = 2;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if ((size_t)len > n) {
        return 0;
    }
    unsigned cp = c & (0x7Fu >> len);
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    return len;
}

/* Windows-1252 for 0x80-0x9F (Swiss-Manager and other Windows programs
 * write it); the rest of the upper half is Latin-1. Undefined codes stay
 * C1 controls. */
static const uint16_t cp1252_high[32] = {
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160,
    0x2039, 0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022,
    0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178};

static bool valid_utf8(const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        int l = cr_pairings_utf8_len((const unsigned char *)s + i, n - i);
        if (l == 0) {
            return false;
        }
        i += (size_t)l;
    }
    return true;
}

/* Copies n bytes of s into dst as UTF-8: as is when they are valid UTF-8,
 * else read as Windows-1252. Always leaves valid UTF-8, cut at a character. */
void cr_pairings_to_utf8(char *dst, size_t size, const char *s, size_t n)
{
    if (valid_utf8(s, n)) {
        cr_pairings_copy_utf8(dst, size, s, n);
        return;
    }
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        unsigned cp = (c >= 0x80 && c < 0xA0) ? cp1252_high[c - 0x80] : c;
        char enc[3];
        size_t need;
        if (cp < 0x80) {
            enc[0] = (char)cp;
            need = 1;
        } else if (cp < 0x800) {
            enc[0] = (char)(0xC0 | (cp >> 6));
            enc[1] = (char)(0x80 | (cp & 0x3F));
            need = 2;
        } else {
            enc[0] = (char)(0xE0 | (cp >> 12));
            enc[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
            enc[2] = (char)(0x80 | (cp & 0x3F));
            need = 3;
        }
        if (o + need >= size) {
            break;
        }
        memcpy(dst + o, enc, need);
        o += need;
    }
    dst[o] = '\0';
}

void cr_pairings_normalise_title(const char *raw, char out[4])
{
    static const char *const map[][2] = {
        {"g", "GM"},    {"m", "IM"},    {"f", "FM"},    {"c", "CM"},   {"wg", "WGM"}, {"wm", "WIM"},
        {"wf", "WFM"},  {"wc", "WCM"},  {"gm", "GM"},   {"im", "IM"},  {"fm", "FM"},  {"cm", "CM"},
        {"wgm", "WGM"}, {"wim", "WIM"}, {"wfm", "WFM"}, {"wcm", "WCM"}};
    char low[4] = {0};
    size_t n = 0;
    while (n < 3 && raw[n] && !((unsigned char)raw[n] & 0x80)) {
        n++; /* titles are ASCII: never cut a character in two */
    }
    for (size_t i = 0; i < n; i++) {
        low[i] = (char)lower_ascii((unsigned char)raw[i]);
    }
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(low, map[i][0]) == 0) {
            strcpy(out, map[i][1]);
            return;
        }
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = (char)upper_ascii((unsigned char)raw[i]);
    }
    out[n] = '\0';
}

/*----- Lines -----*/

/* Hands out the next line without its end (\n, \r\n or \r). */
bool cr_pairings_next_line(line_iter *it, const char **line, size_t *n)
{
    if (it->pos >= it->len) {
        return false;
    }
    size_t start = it->pos, end = start;
    while (end < it->len && it->text[end] != '\n' && it->text[end] != '\r') {
        end++;
    }
    *line = it->text + start;
    *n = end - start;
    if (end < it->len && it->text[end] == '\r') {
        end++;
        if (end < it->len && it->text[end] == '\n') {
            end++;
        }
    } else if (end < it->len) {
        end++; /* '\n' */
    }
    it->pos = end;
    it->number++;
    return true;
}

void cr_pairings_init_lines(line_iter *it, const char *text, size_t len)
{
    it->text = text;
    it->len = len;
    it->pos = 0;
    it->number = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        it->pos = 3; /* UTF-8 BOM */
    }
}

/*----- Public API -----*/

/* PGN when the first line that is not blank, a '%' escape or a ';' comment
 * opens a tag. */
static cr_pairings_format detect_format(const char *text, size_t len)
{
    line_iter it;
    cr_pairings_init_lines(&it, text, len);
    const char *s;
    size_t n;
    while (cr_pairings_next_line(&it, &s, &n)) {
        size_t i = 0;
        while (i < n && is_space((unsigned char)s[i])) {
            i++;
        }
        if (i == n || s[0] == '%' || s[i] == ';') {
            continue;
        }
        return s[i] == '[' ? CR_PAIRINGS_PGN : CR_PAIRINGS_TRF;
    }
    return CR_PAIRINGS_TRF;
}

cr_pairings *cr_pairings_parse(const char *text, size_t len, cr_pairings_format format,
                               cr_error *err)
{
    cr_error_clear(err);
    if (!text && len) {
        cr_error_set(err, CR_EINVAL, 0, 0, "no text");
        return NULL;
    }
    if (!text) {
        text = "";
    }
    if (format == CR_PAIRINGS_AUTO) {
        format = detect_format(text, len);
    }
    if (format != CR_PAIRINGS_TRF && format != CR_PAIRINGS_PGN) {
        cr_error_set(err, CR_EINVAL, 0, 0, "unknown pairings format %d", (int)format);
        return NULL;
    }
    cr_pairings *p = calloc(1, sizeof *p);
    if (!p) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    p->source = format;
    int rc = format == CR_PAIRINGS_TRF ? cr_pairings_parse_trf(p, text, len, err)
                                       : cr_pairings_parse_pgn(p, text, len, err);
    if (rc) {
        cr_pairings_free(p);
        return NULL;
    }
    return p;
}

cr_pairings *cr_pairings_load(const char *text, size_t len, const char *name,
                              cr_pairings_format format, cr_error *err)
{
    cr_pairings *p = cr_pairings_parse(text, len, format, err);
    if (!p && name && err && err->text[0]) {
        /* Name the file in front of the parser's message. */
        char msg[sizeof err->text + PATH_MAX_LEN + 16];
        int n = snprintf(msg, sizeof msg, "%s:%d: %s", name, err->line, err->text);
        cr_pairings_copy_utf8(err->text, sizeof err->text, msg, n < 0 ? 0 : strlen(msg));
    }
    return p;
}

void cr_pairings_free(cr_pairings *p)
{
    if (!p) {
        return;
    }
    for (int r = 0; r < MAX_ROUNDS; r++) {
        free(p->rounds[r].boards);
        free(p->rounds[r].byes);
    }
    free(p->players);
    free(p);
}

cr_pairings_format cr_pairings_source(const cr_pairings *p)
{
    return p ? p->source : CR_PAIRINGS_AUTO;
}

const char *cr_pairings_info(const cr_pairings *p, cr_pairings_field field)
{
    if (!p || (int)field < 0 || field >= CR_PF_NB) {
        return "";
    }
    return p->info[field];
}

int cr_pairings_round_count(const cr_pairings *p)
{
    return p ? p->round_count : 0;
}

const char *cr_pairings_round_date(const cr_pairings *p, int round)
{
    if (!p || round < 1 || round > p->round_count) {
        return "";
    }
    return p->rounds[round - 1].date;
}

int cr_pairings_player_count(const cr_pairings *p)
{
    return p ? p->player_count : 0;
}

const cr_pairing_player *cr_pairings_player(const cr_pairings *p, int i)
{
    return (p && i >= 0 && i < p->player_count) ? &p->players[i] : NULL;
}

const cr_pairing *cr_pairings_boards(const cr_pairings *p, int round, int *count)
{
    if (count) {
        *count = 0;
    }
    if (!p || round < 1 || round > MAX_ROUNDS || p->rounds[round - 1].board_count == 0) {
        return NULL;
    }
    if (count) {
        *count = p->rounds[round - 1].board_count;
    }
    return p->rounds[round - 1].boards;
}

const cr_pairing *cr_pairings_board(const cr_pairings *p, int round, int table)
{
    int n;
    const cr_pairing *b = cr_pairings_boards(p, round, &n);
    for (int i = 0; i < n; i++) {
        if (b[i].table == table) {
            return &b[i];
        }
    }
    return NULL;
}

const cr_pairing_bye *cr_pairings_byes(const cr_pairings *p, int round, int *count)
{
    if (count) {
        *count = 0;
    }
    if (!p || round < 1 || round > MAX_ROUNDS || p->rounds[round - 1].bye_count == 0) {
        return NULL;
    }
    if (count) {
        *count = p->rounds[round - 1].bye_count;
    }
    return p->rounds[round - 1].byes;
}

/*----- Diff -----*/

/* Names compare without case (ASCII) and without blanks, so that
 * "Carlsen,Magnus" and "carlsen, magnus" are one person. */
static bool same_name(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '\t') {
            a++;
        }
        while (*b == ' ' || *b == '\t') {
            b++;
        }
        if (lower_ascii((unsigned char)*a) != lower_ascii((unsigned char)*b)) {
            return false;
        }
        if (*a == '\0') {
            return true;
        }
        a++;
        b++;
    }
}

bool cr_pairing_player_same(const cr_pairing_player *a, const cr_pairing_player *b)
{
    if (!a || !b) {
        return false;
    }
    if (a->fide_id && b->fide_id) {
        return a->fide_id == b->fide_id;
    }
    return same_name(a->name, b->name);
}

static bool same_info(const cr_pairing_player *a, const cr_pairing_player *b)
{
    return strcmp(a->name, b->name) == 0 && a->rating == b->rating &&
           strcmp(a->title, b->title) == 0 && strcmp(a->fed, b->fed) == 0;
}

static int find_pair_table(const cr_pairings *p, const cr_pairing *b)
{
    int n;
    const cr_pairing *boards = cr_pairings_boards(p, b->round, &n);
    for (int i = 0; i < n; i++) {
        if (cr_pairing_player_same(&boards[i].white, &b->white) &&
            cr_pairing_player_same(&boards[i].black, &b->black)) {
            return boards[i].table;
        }
    }
    return 0;
}

int cr_pairings_diff(const cr_pairings *old_set, const cr_pairings *new_set,
                     cr_pairing_change **changes)
{
    if (!changes) {
        return CR_EINVAL;
    }
    *changes = NULL;
    if (!old_set || !new_set) {
        return CR_EINVAL;
    }
    cr_pairing_change *out = NULL;
    int count = 0, cap = 0;
    int rounds =
        old_set->round_count > new_set->round_count ? old_set->round_count : new_set->round_count;
    for (int r = 1; r <= rounds; r++) {
        int on, nn;
        const cr_pairing *ob = cr_pairings_boards(old_set, r, &on);
        const cr_pairing *nb = cr_pairings_boards(new_set, r, &nn);
        int i = 0, j = 0;
        while (i < on || j < nn) {
            cr_pairing_change c;
            memset(&c, 0, sizeof c);
            c.round = r;
            if (j >= nn || (i < on && ob[i].table < nb[j].table)) {
                c.kind = CR_PAIRING_REMOVED;
                c.table = ob[i].table;
                c.old_board = &ob[i++];
            } else if (i >= on || nb[j].table < ob[i].table) {
                c.kind = CR_PAIRING_ADDED;
                c.table = nb[j].table;
                c.new_board = &nb[j++];
                c.old_table_of_pair = find_pair_table(old_set, c.new_board);
            } else {
                const cr_pairing *a = &ob[i++], *b = &nb[j++];
                c.kind = CR_PAIRING_CHANGED;
                c.table = a->table;
                c.old_board = a;
                c.new_board = b;
                if (!cr_pairing_player_same(&a->white, &b->white)) {
                    c.what |= CR_PCHG_WHITE;
                } else if (!same_info(&a->white, &b->white)) {
                    c.what |= CR_PCHG_WHITE_INFO;
                }
                if (!cr_pairing_player_same(&a->black, &b->black)) {
                    c.what |= CR_PCHG_BLACK;
                } else if (!same_info(&a->black, &b->black)) {
                    c.what |= CR_PCHG_BLACK_INFO;
                }
                if (strcmp(a->result, b->result) != 0) {
                    c.what |= CR_PCHG_RESULT;
                }
                if (c.what == 0) {
                    continue;
                }
                if (c.what & (CR_PCHG_WHITE | CR_PCHG_BLACK)) {
                    c.old_table_of_pair = find_pair_table(old_set, b);
                }
            }
            cr_pairing_change *no = cr_pairings_grow(out, &cap, count + 1, sizeof *no);
            if (!no) {
                free(out);
                return CR_ENOMEM;
            }
            out = no;
            out[count++] = c;
        }
    }
    *changes = out;
    return count;
}

void cr_pairing_changes_free(cr_pairing_change *changes)
{
    free(changes);
}
