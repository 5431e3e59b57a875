/* Pairings import: FIDE TRF and tag-only PGN pairing lists, table order for
 * TRF rounds, and the diff between two imports. See cr/pairings.h. */
#include "cr/pairings.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgn_private.h"

#define MAX_ROUNDS 99       /* no Swiss or round robin comes near; bounds work on bad input */
#define MAX_START_RANK 9999 /* TRF columns 5-8 */
#define MAX_TABLE 9999
#define INFO_MAX 256
#define PATH_MAX_LEN 4096

typedef struct round_set {
    cr_pairing *boards;
    int board_count, board_cap;
    cr_pairing_bye *byes;
    int bye_count, bye_cap;
} round_set;

struct cr_pairings {
    cr_pairings_format source;
    char info[CR_PF_NB][INFO_MAX];
    cr_pairing_player *players;
    int player_count, player_cap;
    round_set rounds[MAX_ROUNDS]; /* index round - 1 */
    int round_count;
};

/*----- Small helpers -----*/

static void *grow(void *ptr, int *cap, int need, size_t elem)
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

static int add_player(cr_pairings *p, const cr_pairing_player *pl)
{
    cr_pairing_player *np = grow(p->players, &p->player_cap, p->player_count + 1, sizeof *np);
    if (!np) {
        return CR_ENOMEM;
    }
    p->players = np;
    p->players[p->player_count++] = *pl;
    return 0;
}

static int add_board(round_set *rs, const cr_pairing *b)
{
    cr_pairing *nb = grow(rs->boards, &rs->board_cap, rs->board_count + 1, sizeof *nb);
    if (!nb) {
        return CR_ENOMEM;
    }
    rs->boards = nb;
    rs->boards[rs->board_count++] = *b;
    return 0;
}

static int add_bye(round_set *rs, const cr_pairing_bye *b)
{
    cr_pairing_bye *nb = grow(rs->byes, &rs->bye_cap, rs->bye_count + 1, sizeof *nb);
    if (!nb) {
        return CR_ENOMEM;
    }
    rs->byes = nb;
    rs->byes[rs->bye_count++] = *b;
    return 0;
}

static bool is_space(int c)
{
    return c == ' ' || c == '\t';
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int lower_ascii(int c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static int upper_ascii(int c)
{
    return (c >= 'a' && c <= 'z') ? c - 32 : c;
}

/* Copies s (n bytes) into dst (size bytes), cutting at a UTF-8 character
 * boundary when it does not fit. */
static void copy_utf8(char *dst, size_t size, const char *s, size_t n)
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
static long long parse_uint(const char *s, size_t n, long long max)
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
static int utf8_len(const unsigned char *s, size_t n)
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
        int l = utf8_len((const unsigned char *)s + i, n - i);
        if (l == 0) {
            return false;
        }
        i += (size_t)l;
    }
    return true;
}

/* Copies n bytes of s into dst as UTF-8: as is when they are valid UTF-8,
 * else read as Windows-1252. Always leaves valid UTF-8, cut at a character. */
static void to_utf8(char *dst, size_t size, const char *s, size_t n)
{
    if (valid_utf8(s, n)) {
        copy_utf8(dst, size, s, n);
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

/*----- Lines -----*/

typedef struct line_iter {
    const char *text;
    size_t len, pos;
    int number;
} line_iter;

/* Hands out the next line without its end (\n, \r\n or \r). */
static bool next_line(line_iter *it, const char **line, size_t *n)
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

static void init_lines(line_iter *it, const char *text, size_t len)
{
    it->text = text;
    it->len = len;
    it->pos = 0;
    it->number = 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        it->pos = 3; /* UTF-8 BOM */
    }
}

/*----- TRF columns -----
 * A TRF line is a row of fixed columns. A column is one character: a UTF-8
 * code point on a valid UTF-8 line, a byte (Latin-1) otherwise, or a byte of
 * a UTF-8 line when its writer padded by bytes (the retry). */

typedef struct trf_line {
    const char *s;
    size_t n;
    bool latin1;    /* not UTF-8: one column per byte (Windows-1252 / Latin-1) */
    bool by_bytes;  /* one column per byte */
    size_t *starts; /* byte offset of each column, count + 1 entries */
    int count;
} trf_line;

static int trf_line_init(trf_line *tl, const char *s, size_t n, bool by_bytes, size_t *scratch)
{
    tl->s = s;
    tl->n = n;
    tl->starts = scratch;
    tl->latin1 = false;
    tl->by_bytes = by_bytes;
    int count = 0;
    if (!by_bytes) {
        size_t i = 0;
        while (i < n) {
            int l = utf8_len((const unsigned char *)s + i, n - i);
            if (l == 0) {
                tl->latin1 = true;
                break;
            }
            scratch[count++] = i;
            i += (size_t)l;
        }
    }
    if (by_bytes || tl->latin1) {
        count = 0;
        for (size_t i = 0; i < n; i++) {
            scratch[count++] = i;
        }
    }
    scratch[count] = n;
    tl->count = count;
    return count;
}

/* Byte range of columns [first, last] (1-based, inclusive), clipped. */
static void trf_span(const trf_line *tl, int first, int last, size_t *a, size_t *b)
{
    int f = first - 1, l = last; /* [f, l) in 0-based columns */
    if (f > tl->count) {
        f = tl->count;
    }
    if (l > tl->count) {
        l = tl->count;
    }
    if (l < f) {
        l = f;
    }
    *a = tl->starts[f];
    *b = tl->starts[l];
}

/* The field in columns [first, last], trimmed, as UTF-8 into dst. */
static void trf_field(const trf_line *tl, int first, int last, char *dst, size_t size)
{
    size_t a, b;
    trf_span(tl, first, last, &a, &b);
    while (a < b && is_space((unsigned char)tl->s[a])) {
        a++;
    }
    while (b > a && is_space((unsigned char)tl->s[b - 1])) {
        b--;
    }
    to_utf8(dst, size, tl->s + a, b - a);
}

/* The character at column col (ASCII), ' ' past the end or for non-ASCII. */
static int trf_char(const trf_line *tl, int col)
{
    if (col < 1 || col > tl->count) {
        return ' ';
    }
    size_t a = tl->starts[col - 1];
    unsigned char c = (unsigned char)tl->s[a];
    if (tl->starts[col] - a != 1 || c >= 0x80) {
        return '?';
    }
    return c;
}

/*----- TRF player lines -----*/

typedef struct trf_entry {
    int opp;     /* start rank, 0 for none */
    char colour; /* 'w', 'b' or '-' */
    char result; /* upper-cased code, ' ' for none */
    int col;     /* column of the block, for errors */
} trf_entry;

typedef struct trf_player {
    cr_pairing_player info;
    int line;
    trf_entry entries[MAX_ROUNDS];
    int entry_count;
} trf_player;

static void normalise_title(const char *raw, char out[4])
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

static bool valid_result_code(int c)
{
    return c != 0 && strchr("10=+-WDLHFUZ ", c) != NULL;
}

/* Reads one 001 line with the given column mode. */
static int trf_parse_player(const trf_line *tl, int line, trf_player *out, cr_error *err)
{
    char buf[CR_PAIRINGS_NAME_MAX];
    memset(out, 0, sizeof *out);
    out->line = line;
    cr_pairing_player *pl = &out->info;

    trf_field(tl, 5, 8, buf, sizeof buf);
    long long sr = parse_uint(buf, strlen(buf), MAX_START_RANK);
    if (sr < 1) {
        return cr_error_set(err, CR_EINVAL, line, 5, "start rank \"%s\" is not a number 1-%d", buf,
                            MAX_START_RANK);
    }
    pl->start_rank = (int)sr;
    int sex = lower_ascii(trf_char(tl, 10));
    pl->sex = sex == 'm' ? 'm' : (sex == 'w' || sex == 'f') ? 'w' : 0;
    trf_field(tl, 11, 13, buf, sizeof buf);
    normalise_title(buf, pl->title);
    trf_field(tl, 15, 47, pl->name, sizeof pl->name);
    if (pl->name[0] == '\0') {
        return cr_error_set(err, CR_EINVAL, line, 15, "player %d has no name", pl->start_rank);
    }
    trf_field(tl, 49, 52, buf, sizeof buf);
    if (buf[0]) {
        long long r = parse_uint(buf, strlen(buf), 9999);
        if (r < 0) {
            return cr_error_set(err, CR_EINVAL, line, 49, "rating \"%s\" is not a number", buf);
        }
        pl->rating = (int)r;
    }
    trf_field(tl, 54, 56, buf, sizeof buf);
    copy_utf8(pl->fed, sizeof pl->fed, buf, strlen(buf));
    trf_field(tl, 58, 68, buf, sizeof buf);
    if (buf[0]) {
        long long id = parse_uint(buf, strlen(buf), 99999999999LL);
        if (id < 0) {
            return cr_error_set(err, CR_EINVAL, line, 58, "FIDE id \"%s\" is not a number", buf);
        }
        pl->fide_id = id;
    }
    trf_field(tl, 70, 79, buf, sizeof buf);
    copy_utf8(pl->birth, sizeof pl->birth, buf, strlen(buf));
    trf_field(tl, 81, 84, buf, sizeof buf);
    char *comma = strchr(buf, ',');
    if (comma) {
        *comma = '.'; /* "2,5" from a writer using a decimal comma */
    }
    if (buf[0]) {
        char *end;
        errno = 0;
        double pts = strtod(buf, &end);
        if (*end != '\0' || errno || !(pts >= 0 && pts <= 999) ||
            !is_digit((unsigned char)buf[0])) {
            return cr_error_set(err, CR_EINVAL, line, 81, "points \"%s\" is not a number like 11.5",
                                buf);
        }
        pl->points = pts;
    }
    /* 86-89 rank: not needed for pairings. Rounds from column 92, 10 wide. */
    /* A block exists once anything stands past column 89: stray text in the
     * blanks between blocks is an error, not silently dropped. */
    for (int col = 92; col - 2 <= tl->count; col += 10) {
        int r = (col - 92) / 10;
        if (r >= MAX_ROUNDS) {
            return cr_error_set(err, CR_EINVAL, line, col, "more than %d rounds", MAX_ROUNDS);
        }
        if (trf_char(tl, col - 1) != ' ' || trf_char(tl, col - 2) != ' ') {
            int bad = trf_char(tl, col - 2) != ' ' ? col - 2 : col - 1;
            return cr_error_set(err, CR_EINVAL, line, bad,
                                "round %d: expected blanks before the block at column %d", r + 1,
                                col);
        }
        trf_entry *e = &out->entries[r];
        e->col = col;
        trf_field(tl, col, col + 3, buf, sizeof buf);
        if (buf[0]) {
            long long opp = parse_uint(buf, strlen(buf), MAX_START_RANK);
            if (opp < 0) {
                return cr_error_set(err, CR_EINVAL, line, col,
                                    "round %d: opponent \"%s\" is not a start rank", r + 1, buf);
            }
            e->opp = (int)opp;
        }
        if (trf_char(tl, col + 4) != ' ' || trf_char(tl, col + 6) != ' ') {
            int bad = trf_char(tl, col + 4) != ' ' ? col + 4 : col + 6;
            return cr_error_set(err, CR_EINVAL, line, bad,
                                "round %d: expected a blank at column %d", r + 1, bad);
        }
        int c = lower_ascii(trf_char(tl, col + 5));
        if (c == ' ') {
            c = '-';
        }
        if (c != 'w' && c != 'b' && c != '-') {
            return cr_error_set(err, CR_EINVAL, line, col + 5,
                                "round %d: colour '%c' is not w, b or -", r + 1,
                                trf_char(tl, col + 5));
        }
        e->colour = (char)c;
        int res = upper_ascii(trf_char(tl, col + 7));
        if (!valid_result_code(res)) {
            return cr_error_set(err, CR_EINVAL, line, col + 7,
                                "round %d: result '%c' is not one of 1 0 = + - W D L H F U Z",
                                r + 1, trf_char(tl, col + 7));
        }
        e->result = (char)res;
        out->entry_count = r + 1;
    }
    return 0;
}

static double result_points(char code)
{
    switch (code) {
    case '1':
    case '+':
    case 'W':
    case 'F':
    case 'U':
        return 1.0;
    case '=':
    case 'D':
    case 'H':
        return 0.5;
    default:
        return 0.0;
    }
}

/* The result string for White's and Black's codes, or NULL if they do not agree. */
static const char *pair_result(char w, char b)
{
    static const struct {
        char w, b;
        const char *s;
    } ok[] = {{'1', '0', "1-0"}, {'0', '1', "0-1"},     {'=', '=', "1/2-1/2"}, {'W', 'L', "1-0"},
              {'L', 'W', "0-1"}, {'D', 'D', "1/2-1/2"}, {'+', '-', "+--"},     {'-', '+', "--+"},
              {'-', '-', "---"}, {' ', ' ', "*"}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (ok[i].w == w && ok[i].b == b) {
            return ok[i].s;
        }
    }
    return NULL;
}

typedef struct sort_pair {
    int white, black; /* indexes into the player table */
    double hi, sum;
    int top_rank;
    int berger; /* board in the Berger table, 0 when not used */
} sort_pair;

/* C.04.2 board order: higher score of the pair, sum of scores, then the
 * higher-ranked player's start rank. A round robin keeps its Berger boards. */
static int cmp_pairs(const void *a, const void *b)
{
    const sort_pair *x = a, *y = b;
    if (x->berger != y->berger) {
        return (x->berger > y->berger) - (x->berger < y->berger);
    }
    if (x->hi != y->hi) {
        return x->hi > y->hi ? -1 : 1;
    }
    if (x->sum != y->sum) {
        return x->sum > y->sum ? -1 : 1;
    }
    return (x->top_rank > y->top_rank) - (x->top_rank < y->top_rank);
}

/* The board of players a and b (start ranks = draw numbers) in round r of
 * the FIDE Berger table for n players (n even; a dummy n for an odd field),
 * or 0 when the table does not pair them in that round. Player n meets
 * p = (r-1)*n/2 mod (n-1) + 1 on board 1; board k pairs p+(k-1) with
 * p-(k-1), modulo n-1. Later cycles (double round robin) repeat it. */
static int berger_board(int n, int r, int a, int b)
{
    int m = n - 1;
    int rr = (r - 1) % m;
    int pivot = (rr * (n / 2)) % m + 1;
    if (a == n || b == n) {
        return (a == pivot || b == pivot) ? 1 : 0;
    }
    for (int swap = 0; swap < 2; swap++) {
        int x = swap ? b : a, y = swap ? a : b;
        int dx = ((x - pivot) % m + m) % m;
        int dy = ((pivot - y) % m + m) % m;
        if (dx == dy && dx >= 1 && dx <= n / 2 - 1) {
            return dx + 1;
        }
    }
    return 0;
}

typedef struct trf_state {
    trf_player *players;
    int count, cap;
    int by_rank[MAX_START_RANK + 1]; /* index + 1, 0 = none */
    int rounds_declared;
    struct {
        char kind;
        int round, rank, line, col;
    } * byes240;
    int bye_count, bye_cap;
} trf_state;

static void set_info(cr_pairings *p, cr_pairings_field f, const trf_line *tl)
{
    trf_field(tl, 5, tl->count > 5 ? tl->count : 5, p->info[f], INFO_MAX);
}

/* 240 records (TRF-26): type col 5, round 7-9, players from 11 every 5. */
static int trf_parse_240(trf_state *st, const trf_line *tl, int line, cr_error *err)
{
    char buf[16];
    int kind = upper_ascii(trf_char(tl, 5));
    if (kind != 'F' && kind != 'H' && kind != 'Z') {
        return cr_error_set(err, CR_EINVAL, line, 5, "bye type '%c' is not F, H or Z",
                            trf_char(tl, 5));
    }
    trf_field(tl, 7, 9, buf, sizeof buf);
    long long round = parse_uint(buf, strlen(buf), MAX_ROUNDS);
    if (round < 1) {
        return cr_error_set(err, CR_EINVAL, line, 7, "round \"%s\" is not a number 1-%d", buf,
                            MAX_ROUNDS);
    }
    for (int col = 11; col <= tl->count; col += 5) {
        trf_field(tl, col, col + 3, buf, sizeof buf);
        if (!buf[0]) {
            continue;
        }
        long long rank = parse_uint(buf, strlen(buf), MAX_START_RANK);
        if (rank < 1) {
            return cr_error_set(err, CR_EINVAL, line, col, "player \"%s\" is not a start rank",
                                buf);
        }
        void *nb = grow(st->byes240, &st->bye_cap, st->bye_count + 1, sizeof *st->byes240);
        if (!nb) {
            return cr_error_set(err, CR_ENOMEM, line, 0, "out of memory");
        }
        st->byes240 = nb;
        st->byes240[st->bye_count].kind = (char)kind;
        st->byes240[st->bye_count].round = (int)round;
        st->byes240[st->bye_count].rank = (int)rank;
        st->byes240[st->bye_count].line = line;
        st->byes240[st->bye_count].col = col;
        st->bye_count++;
    }
    return 0;
}

static int trf_read_lines(cr_pairings *p, trf_state *st, const char *text, size_t len,
                          cr_error *err)
{
    line_iter it;
    init_lines(&it, text, len);
    const char *s;
    size_t n;
    size_t *scratch = NULL;
    size_t scratch_cap = 0;
    int rc = 0;
    while (next_line(&it, &s, &n)) {
        if (n + 1 > scratch_cap) {
            size_t *ns = realloc(scratch, (n + 1) * sizeof *ns);
            if (!ns) {
                rc = cr_error_set(err, CR_ENOMEM, it.number, 0, "out of memory");
                break;
            }
            scratch = ns;
            scratch_cap = n + 1;
        }
        trf_line tl;
        trf_line_init(&tl, s, n, false, scratch);
        size_t blank = 0;
        while (blank < n && (is_space((unsigned char)s[blank]) || s[blank] == '\x1A')) {
            blank++; /* 0x1A: the DOS end-of-file mark some old writers append */
        }
        if (blank == n || (n >= 3 && memcmp(s, "###", 3) == 0)) {
            continue;
        }
        if (n < 3 || (n > 3 && s[3] != ' ' && s[3] != '\t')) {
            rc = cr_error_set(err, CR_EINVAL, it.number, 1,
                              "not a TRF record (3-character code and a blank expected)");
            break;
        }
        char code[4] = {s[0], s[1], s[2], 0};
        if (strcmp(code, "001") == 0) {
            trf_player *np = grow(st->players, &st->cap, st->count + 1, sizeof *np);
            if (!np) {
                rc = cr_error_set(err, CR_ENOMEM, it.number, 0, "out of memory");
                break;
            }
            st->players = np;
            trf_player *pl = &st->players[st->count];
            rc = trf_parse_player(&tl, it.number, pl, err);
            if (rc && !tl.latin1 && (size_t)tl.count != n) {
                /* A UTF-8 name padded by bytes shifts every later column. */
                cr_error first = err ? *err : (cr_error){0};
                trf_line tb;
                trf_line_init(&tb, s, n, true, scratch);
                rc = trf_parse_player(&tb, it.number, pl, NULL);
                if (rc && err) {
                    *err = first;
                }
            }
            if (rc) {
                break;
            }
            if (st->by_rank[pl->info.start_rank]) {
                rc = cr_error_set(err, CR_EINVAL, it.number, 5,
                                  "start rank %d already used on line %d", pl->info.start_rank,
                                  st->players[st->by_rank[pl->info.start_rank] - 1].line);
                break;
            }
            st->count++;
            st->by_rank[pl->info.start_rank] = st->count;
        } else if (strcmp(code, "012") == 0) {
            set_info(p, CR_PF_NAME, &tl);
        } else if (strcmp(code, "022") == 0) {
            set_info(p, CR_PF_CITY, &tl);
        } else if (strcmp(code, "032") == 0) {
            set_info(p, CR_PF_FED, &tl);
        } else if (strcmp(code, "042") == 0) {
            set_info(p, CR_PF_START, &tl);
        } else if (strcmp(code, "052") == 0) {
            set_info(p, CR_PF_END, &tl);
        } else if (strcmp(code, "092") == 0) {
            set_info(p, CR_PF_TYPE, &tl);
        } else if (strcmp(code, "102") == 0) {
            set_info(p, CR_PF_ARBITER, &tl);
        } else if (strcmp(code, "122") == 0) {
            set_info(p, CR_PF_TIME, &tl);
        } else if (strcmp(code, "112") == 0) {
            char buf[INFO_MAX];
            trf_field(&tl, 5, tl.count > 5 ? tl.count : 5, buf, sizeof buf);
            char *d = p->info[CR_PF_DEPUTIES];
            if (buf[0]) {
                size_t used = strlen(d);
                if (used && used + 2 < INFO_MAX) {
                    memcpy(d + used, "; ", 3);
                    used += 2;
                }
                copy_utf8(d + used, INFO_MAX - used, buf, strlen(buf));
            }
        } else if (strcmp(code, "142") == 0 || strcmp(code, "XXR") == 0) {
            char buf[16];
            trf_field(&tl, 5, 12, buf, sizeof buf);
            long long r = parse_uint(buf, strlen(buf), MAX_ROUNDS);
            if (r < 0) {
                rc = cr_error_set(err, CR_EINVAL, it.number, 5,
                                  "number of rounds \"%s\" is not 0-%d", buf, MAX_ROUNDS);
                break;
            }
            st->rounds_declared = (int)r;
        } else if (strcmp(code, "240") == 0) {
            rc = trf_parse_240(st, &tl, it.number, err);
            if (rc) {
                break;
            }
        }
        /* Everything else (013, 132, 162, 250, 260, 3xx, DAT, XX*, national
         * rating lines) does not bear on who sits where. */
    }
    free(scratch);
    return rc;
}

static int trf_build(cr_pairings *p, trf_state *st, cr_error *err)
{
    if (st->count == 0) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "no player (001) lines");
    }
    /* 240 byes fill empty round blocks. */
    for (int i = 0; i < st->bye_count; i++) {
        int idx = st->by_rank[st->byes240[i].rank];
        if (!idx) {
            return cr_error_set(err, CR_EINVAL, st->byes240[i].line, st->byes240[i].col,
                                "bye for start rank %d, who has no 001 line", st->byes240[i].rank);
        }
        trf_player *pl = &st->players[idx - 1];
        int r = st->byes240[i].round - 1;
        trf_entry *e = &pl->entries[r];
        if (r < pl->entry_count && (e->opp || e->result != ' ')) {
            if (e->opp == 0 && e->result == st->byes240[i].kind) {
                continue;
            }
            return cr_error_set(err, CR_EINVAL, st->byes240[i].line, st->byes240[i].col,
                                "round %d: start rank %d already has an entry on line %d", r + 1,
                                st->byes240[i].rank, pl->line);
        }
        for (int k = pl->entry_count; k <= r; k++) {
            pl->entries[k] = (trf_entry){0, '-', ' ', 92 + 10 * k};
        }
        if (pl->entry_count < r + 1) {
            pl->entry_count = r + 1;
        }
        e->opp = 0;
        e->colour = '-';
        e->result = st->byes240[i].kind;
    }
    /* Players in start-rank order. */
    for (int rank = 1; rank <= MAX_START_RANK; rank++) {
        if (st->by_rank[rank] && add_player(p, &st->players[st->by_rank[rank] - 1].info)) {
            return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
    }
    int rounds = st->rounds_declared;
    for (int i = 0; i < st->count; i++) {
        trf_player *pl = &st->players[i];
        /* Only rounds with something in them count: trailing blank blocks do not. */
        for (int r = pl->entry_count - 1; r >= 0; r--) {
            if (pl->entries[r].opp || pl->entries[r].result != ' ' ||
                pl->entries[r].colour != '-') {
                if (r + 1 > rounds) {
                    rounds = r + 1;
                }
                break;
            }
        }
    }
    p->round_count = rounds;

    /* A round robin: start ranks 1..N and every game of every round on the
     * Berger table. Then its boards are the table's (a Swiss hardly ever
     * matches it for a whole event, and if it did the order would still be
     * a sound one). */
    int berger_n = 0;
    bool contiguous = st->count >= 3 && st->count <= MAX_ROUNDS + 1;
    for (int i = 0; i < st->count && contiguous; i++) {
        contiguous = st->players[i].info.start_rank <= st->count; /* unique, so 1..N */
    }
    if (contiguous) {
        berger_n = st->count + (st->count & 1);
        bool any = false;
        for (int i = 0; i < st->count && berger_n; i++) {
            const trf_player *pl = &st->players[i];
            for (int r = 0; r < pl->entry_count && r < rounds; r++) {
                int opp = pl->entries[r].opp;
                if (opp < 1 || opp > st->count) {
                    continue;
                }
                any = true;
                if (!berger_board(berger_n, r + 1, pl->info.start_rank, opp)) {
                    berger_n = 0;
                    break;
                }
            }
        }
        if (!any) {
            berger_n = 0;
        }
    }

    double *score = calloc((size_t)st->count, sizeof *score);
    sort_pair *pairs = malloc((size_t)st->count * sizeof *pairs);
    if (!score || !pairs) {
        free(score);
        free(pairs);
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    int rc = 0;
    for (int r = 0; r < rounds && rc == 0; r++) {
        bool round_used = false, round_paired = false;
        for (int i = 0; i < st->count; i++) {
            const trf_entry *e = &st->players[i].entries[r];
            if (r < st->players[i].entry_count &&
                (e->opp || e->result != ' ' || e->colour != '-')) {
                round_used = true;
                round_paired |= e->opp != 0;
            }
        }
        int npairs = 0;
        round_set *rs = &p->rounds[r];
        for (int i = 0; i < st->count && rc == 0 && round_used; i++) {
            trf_player *pl = &st->players[i];
            trf_entry blank = {0, '-', ' ', 92 + 10 * r};
            const trf_entry *e = r < pl->entry_count ? &pl->entries[r] : &blank;
            int me = pl->info.start_rank;
            if (e->opp == 0) {
                /* No opponent: a bye of some kind, or absent (blank = Z) once
                 * the round is paired; before that a blank says nothing. */
                if (!round_paired && e->result == ' ' && e->colour == '-') {
                    continue;
                }
                if (e->colour != '-' && e->result == ' ') {
                    rc =
                        cr_error_set(err, CR_EINVAL, pl->line, e->col + 5,
                                     "round %d: colour '%c' without an opponent", r + 1, e->colour);
                    break;
                }
                cr_pairing_bye bye = {r + 1, pl->info, e->result == ' ' ? 'Z' : e->result};
                if (strchr("10=WDL", bye.kind)) {
                    rc = cr_error_set(err, CR_EINVAL, pl->line, e->col + 7,
                                      "round %d: game result '%c' without an opponent", r + 1,
                                      e->result);
                    break;
                }
                if (add_bye(rs, &bye)) {
                    rc = cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
                }
                continue;
            }
            int oi = st->by_rank[e->opp];
            if (!oi) {
                rc = cr_error_set(err, CR_EINVAL, pl->line, e->col,
                                  "round %d: opponent %d has no 001 line", r + 1, e->opp);
                break;
            }
            if (e->opp == me) {
                rc = cr_error_set(err, CR_EINVAL, pl->line, e->col,
                                  "round %d: player %d paired with themself", r + 1, me);
                break;
            }
            trf_player *op = &st->players[oi - 1];
            const trf_entry *oe = r < op->entry_count ? &op->entries[r] : &blank;
            if (oe->opp != me) {
                rc = cr_error_set(err, CR_EINVAL, pl->line, e->col,
                                  "round %d: %d plays %d, but line %d gives %d %s %d", r + 1, me,
                                  e->opp, op->line, e->opp, oe->opp ? "opponent" : "no opponent",
                                  oe->opp);
                break;
            }
            if (e->colour == '-' || e->colour == oe->colour) {
                rc = cr_error_set(err, CR_EINVAL, pl->line, e->col + 5,
                                  "round %d: colours of %d (%c) and %d (%c) must be w and b", r + 1,
                                  me, e->colour, e->opp, oe->colour);
                break;
            }
            if (me > e->opp) {
                continue; /* the pair was taken with the lower start rank */
            }
            const trf_entry *we = e->colour == 'w' ? e : oe;
            const trf_entry *be = e->colour == 'w' ? oe : e;
            const char *res = pair_result(we->result, be->result);
            if (!res) {
                rc = cr_error_set(err, CR_EINVAL, pl->line, e->col + 7,
                                  "round %d: results of %d (%c) and %d (%c) do not agree", r + 1,
                                  me, e->result, e->opp, oe->result);
                break;
            }
            sort_pair *sp = &pairs[npairs++];
            sp->white = e->colour == 'w' ? i : oi - 1;
            sp->black = e->colour == 'w' ? oi - 1 : i;
            double a = score[i], b = score[oi - 1];
            sp->hi = a > b ? a : b;
            sp->sum = a + b;
            sp->top_rank = me;
            sp->berger = berger_n ? berger_board(berger_n, r + 1, me, e->opp) : 0;
        }
        if (rc) {
            break;
        }
        qsort(pairs, (size_t)npairs, sizeof *pairs, cmp_pairs);
        for (int k = 0; k < npairs && rc == 0; k++) {
            cr_pairing b;
            memset(&b, 0, sizeof b);
            b.round = r + 1;
            b.table = k + 1;
            b.white = st->players[pairs[k].white].info;
            b.black = st->players[pairs[k].black].info;
            const trf_entry *we = &st->players[pairs[k].white].entries[r];
            const trf_entry *be = &st->players[pairs[k].black].entries[r];
            snprintf(b.result, sizeof b.result, "%s", pair_result(we->result, be->result));
            if (add_board(rs, &b)) {
                rc = cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
            }
        }
        /* Scores after this round, for the next round's order. */
        for (int i = 0; i < st->count; i++) {
            if (r < st->players[i].entry_count) {
                score[i] += result_points(st->players[i].entries[r].result);
            }
        }
    }
    /* Byes were added in file order; list them by start rank. */
    for (int r = 0; r < rounds && rc == 0; r++) {
        round_set *rs = &p->rounds[r];
        for (int a = 1; a < rs->bye_count; a++) {
            cr_pairing_bye t = rs->byes[a];
            int b = a - 1;
            while (b >= 0 && rs->byes[b].player.start_rank > t.player.start_rank) {
                rs->byes[b + 1] = rs->byes[b];
                b--;
            }
            rs->byes[b + 1] = t;
        }
    }
    free(score);
    free(pairs);
    return rc;
}

static int parse_trf(cr_pairings *p, const char *text, size_t len, cr_error *err)
{
    trf_state *st = calloc(1, sizeof *st);
    if (!st) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    int rc = trf_read_lines(p, st, text, len, err);
    if (rc == 0) {
        rc = trf_build(p, st, err);
    }
    free(st->players);
    free(st->byes240);
    free(st);
    return rc;
}

/*----- Tag-only PGN scanner -----*/

typedef struct pgn_game {
    int line; /* first tag */
    int round, table;
    int round_line, round_col, table_line, table_col;
    bool has_round, has_white, has_black;
    bool white_bye, black_bye;
    cr_pairing_player white, black;
    char result[8];
    char event[INFO_MAX], site[INFO_MAX], date[INFO_MAX];
} pgn_game;

typedef struct pgn_state {
    pgn_game *games;
    int count, cap;
    pgn_game cur;
    bool open;      /* cur holds tags */
    bool tags_done; /* a non-tag line followed cur's tags */
} pgn_state;

static bool is_bye_name(const char *s)
{
    return (lower_ascii((unsigned char)s[0]) == 'b' && lower_ascii((unsigned char)s[1]) == 'y' &&
            lower_ascii((unsigned char)s[2]) == 'e' && s[3] == '\0');
}

static int pgn_number(const char *value, int line, int col, const char *tag, int *out,
                      cr_error *err)
{
    size_t n = strlen(value);
    if (n == 0 || strcmp(value, "-") == 0 || strcmp(value, "?") == 0) {
        *out = 0;
        return 0;
    }
    long long v = parse_uint(value, n, 99999999999LL);
    if (v < 0) {
        return cr_error_set(err, CR_EPGN, line, col, "%s \"%s\" is not a number", tag, value);
    }
    *out = (int)(v > 2147483647LL ? 2147483647LL : v);
    return 0;
}

static int pgn_tag(pgn_game *g, const char *name, const char *value, int line, int col,
                   cr_error *err)
{
    cr_pairing_player *side = NULL;
    const char *field = name;
    if (strncmp(name, "White", 5) == 0) {
        side = &g->white;
        field = name + 5;
    } else if (strncmp(name, "Black", 5) == 0) {
        side = &g->black;
        field = name + 5;
    }
    if (side) {
        int v = 0;
        if (field[0] == '\0') {
            copy_utf8(side->name, sizeof side->name, value, strlen(value));
            if (side == &g->white) {
                g->has_white = true;
                g->white_bye = is_bye_name(value);
            } else {
                g->has_black = true;
                g->black_bye = is_bye_name(value);
            }
        } else if (strcmp(field, "Elo") == 0) {
            if (pgn_number(value, line, col, name, &v, err)) {
                return CR_EPGN;
            }
            side->rating = v;
        } else if (strcmp(field, "Title") == 0) {
            normalise_title(value, side->title);
        } else if (strcmp(field, "FideId") == 0) {
            size_t n = strlen(value);
            long long id = parse_uint(value, n, 99999999999LL);
            if (n && id < 0 && strcmp(value, "-") != 0 && strcmp(value, "?") != 0) {
                return cr_error_set(err, CR_EPGN, line, col, "%s \"%s\" is not a number", name,
                                    value);
            }
            side->fide_id = id < 0 ? 0 : id;
        } else if (strcmp(field, "Fed") == 0) {
            copy_utf8(side->fed, sizeof side->fed, value, strlen(value));
        }
        return 0;
    }
    if (strcmp(name, "Round") == 0) {
        /* "5", "5.3" (round.board); anything else such as "?" is an error
         * because the relay cannot place the game. */
        const char *dot = strchr(value, '.');
        size_t rn = dot ? (size_t)(dot - value) : strlen(value);
        long long r = parse_uint(value, rn, MAX_ROUNDS);
        if (r < 1) {
            return cr_error_set(err, CR_EPGN, line, col, "Round \"%s\" is not a round number 1-%d",
                                value, MAX_ROUNDS);
        }
        g->round = (int)r;
        g->has_round = true;
        g->round_line = line;
        g->round_col = col;
        if (dot && g->table == 0) {
            long long t = parse_uint(dot + 1, strlen(dot + 1), MAX_TABLE);
            if (t < 1) {
                return cr_error_set(err, CR_EPGN, line, col,
                                    "Round \"%s\": board after the dot is not 1-%d", value,
                                    MAX_TABLE);
            }
            g->table = (int)t;
            g->table_line = line;
            g->table_col = col;
        }
    } else if (strcmp(name, "Board") == 0) {
        long long t = parse_uint(value, strlen(value), MAX_TABLE);
        if (t < 1) {
            return cr_error_set(err, CR_EPGN, line, col, "Board \"%s\" is not a number 1-%d", value,
                                MAX_TABLE);
        }
        g->table = (int)t;
        g->table_line = line;
        g->table_col = col;
    } else if (strcmp(name, "Result") == 0) {
        copy_utf8(g->result, sizeof g->result, value, strlen(value));
    } else if (strcmp(name, "Event") == 0) {
        copy_utf8(g->event, sizeof g->event, value, strlen(value));
    } else if (strcmp(name, "Site") == 0) {
        copy_utf8(g->site, sizeof g->site, value, strlen(value));
    } else if (strcmp(name, "Date") == 0) {
        copy_utf8(g->date, sizeof g->date, value, strlen(value));
    }
    return 0;
}

static int pgn_finish(pgn_state *st, cr_error *err)
{
    if (!st->open) {
        return 0;
    }
    pgn_game *g = &st->cur;
    if (!g->has_round) {
        return cr_error_set(err, CR_EPGN, g->line, 0, "game starting on line %d has no Round tag",
                            g->line);
    }
    if (!g->has_white || !g->has_black) {
        return cr_error_set(err, CR_EPGN, g->line, 0, "game starting on line %d has no %s tag",
                            g->line, g->has_white ? "Black" : "White");
    }
    if (g->white.name[0] == '\0' || g->black.name[0] == '\0') {
        return cr_error_set(err, CR_EPGN, g->line, 0,
                            "game starting on line %d has an empty %s name", g->line,
                            g->white.name[0] ? "Black" : "White");
    }
    if (g->white_bye && g->black_bye) {
        return cr_error_set(err, CR_EPGN, g->line, 0,
                            "game starting on line %d: both sides are BYE", g->line);
    }
    pgn_game *ng = grow(st->games, &st->cap, st->count + 1, sizeof *ng);
    if (!ng) {
        return cr_error_set(err, CR_ENOMEM, g->line, 0, "out of memory");
    }
    st->games = ng;
    st->games[st->count++] = *g;
    st->open = false;
    return 0;
}

/* Reads the tag pairs of one line from s[i]: `[Name "value"]`, several per
 * line allowed. */
static int pgn_tag_line(pgn_state *st, const char *s, size_t n, size_t i, int line, cr_error *err)
{
    char name[64], value[INFO_MAX];
    while (i < n) {
        while (i < n && is_space((unsigned char)s[i])) {
            i++;
        }
        if (i >= n) {
            break;
        }
        int col = (int)i + 1;
        if (s[i] != '[') {
            return cr_error_set(err, CR_EPGN, line, col, "text after a tag pair");
        }
        i++;
        while (i < n && is_space((unsigned char)s[i])) {
            i++;
        }
        size_t nl = 0;
        while (i < n && (is_digit((unsigned char)s[i]) || s[i] == '_' ||
                         (lower_ascii((unsigned char)s[i]) >= 'a' &&
                          lower_ascii((unsigned char)s[i]) <= 'z'))) {
            if (nl + 1 >= sizeof name) {
                return cr_error_set(err, CR_EPGN, line, (int)i + 1, "tag name too long");
            }
            name[nl++] = s[i++];
        }
        name[nl] = '\0';
        if (nl == 0) {
            return cr_error_set(err, CR_EPGN, line, (int)i + 1, "tag name expected after '['");
        }
        while (i < n && is_space((unsigned char)s[i])) {
            i++;
        }
        if (i >= n || s[i] != '"') {
            return cr_error_set(err, CR_EPGN, line, (int)i + 1,
                                "tag %s: '\"' expected before the value", name);
        }
        i++;
        size_t vl = 0;
        bool closed = false;
        while (i < n) {
            char c = s[i];
            if (c == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\')) {
                c = s[i + 1];
                i += 2;
            } else if (c == '"') {
                i++;
                closed = true;
                break;
            } else {
                i++;
            }
            if (vl + 1 < sizeof value) {
                value[vl++] = c;
            }
        }
        value[vl] = '\0';
        if (vl + 1 >= sizeof value) {
            /* Cut: drop a character the cut split. */
            while (vl > 0 && ((unsigned char)value[vl - 1] & 0xC0) == 0x80) {
                vl--;
            }
            if (vl > 0 && ((unsigned char)value[vl - 1] & 0x80)) {
                vl--;
            }
            value[vl] = '\0';
        }
        if (!closed) {
            return cr_error_set(err, CR_EPGN, line, (int)n + 1, "tag %s: value not closed by '\"'",
                                name);
        }
        while (i < n && is_space((unsigned char)s[i])) {
            i++;
        }
        if (i >= n || s[i] != ']') {
            return cr_error_set(err, CR_EPGN, line, (int)i + 1, "tag %s: ']' expected", name);
        }
        i++;
        /* Values become UTF-8 (old PGN files are Latin-1 / Windows-1252). */
        char clean[INFO_MAX];
        to_utf8(clean, sizeof clean, value, vl);
        if (st->open && st->tags_done) {
            int rc = pgn_finish(st, err);
            if (rc) {
                return rc;
            }
        }
        if (!st->open) {
            memset(&st->cur, 0, sizeof st->cur);
            st->cur.line = line;
            snprintf(st->cur.result, sizeof st->cur.result, "*");
            st->open = true;
            st->tags_done = false;
        }
        int rc = pgn_tag(&st->cur, name, clean, line, col, err);
        if (rc) {
            return rc;
        }
    }
    return 0;
}

static int pgn_scan(pgn_state *st, const char *text, size_t len, cr_error *err)
{
    line_iter it;
    init_lines(&it, text, len);
    const char *s;
    size_t n;
    bool in_comment = false; /* inside { } across lines */
    while (next_line(&it, &s, &n)) {
        size_t i = 0;
        if (in_comment) {
            while (i < n && s[i] != '}') {
                i++;
            }
            if (i == n) {
                continue;
            }
            in_comment = false;
            i++;
        }
        if (i == 0 && n > 0 && s[0] == '%') {
            continue; /* escape line */
        }
        size_t j = i;
        while (j < n && is_space((unsigned char)s[j])) {
            j++;
        }
        if (i == 0 && j < n && s[j] == '[') {
            int rc = pgn_tag_line(st, s, n, j, it.number, err);
            if (rc) {
                return rc;
            }
            continue;
        }
        if (j < n && st->open) {
            st->tags_done = true;
        } else if (j == n && st->open) {
            st->tags_done = true; /* blank line closes the tag section */
        }
        /* Movetext: only comments matter (they may hold '[' lines). */
        for (; j < n; j++) {
            if (s[j] == ';') {
                break;
            }
            if (s[j] == '{') {
                while (j < n && s[j] != '}') {
                    j++;
                }
                if (j == n) {
                    in_comment = true;
                }
            }
        }
    }
    if (in_comment) {
        return cr_error_set(err, CR_EPGN, it.number, 0,
                            "comment '{' not closed at the end of the input");
    }
    return pgn_finish(st, err);
}

static int cmp_boards(const void *a, const void *b)
{
    const cr_pairing *x = a, *y = b;
    return (x->table > y->table) - (x->table < y->table);
}

static int note_player(cr_pairings *p, const cr_pairing_player *pl)
{
    for (int i = 0; i < p->player_count; i++) {
        if (cr_pairing_player_same(&p->players[i], pl)) {
            return 0;
        }
    }
    return add_player(p, pl);
}

static int pgn_build(cr_pairings *p, pgn_state *st, cr_error *err)
{
    if (st->count == 0) {
        return cr_error_set(err, CR_EPGN, 0, 0, "no game with tags");
    }
    pgn_game *first = &st->games[0];
    copy_utf8(p->info[CR_PF_NAME], INFO_MAX, first->event, strlen(first->event));
    copy_utf8(p->info[CR_PF_CITY], INFO_MAX, first->site, strlen(first->site));
    copy_utf8(p->info[CR_PF_START], INFO_MAX, first->date, strlen(first->date));
    /* Players in the order the file names them. */
    for (int k = 0; k < st->count; k++) {
        const pgn_game *g = &st->games[k];
        if ((!g->white_bye && note_player(p, &g->white)) ||
            (!g->black_bye && note_player(p, &g->black))) {
            return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
    }
    /* Explicit tables first, then the rest take the next free table. */
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < st->count; k++) {
            pgn_game *g = &st->games[k];
            round_set *rs = &p->rounds[g->round - 1];
            if (g->round > p->round_count) {
                p->round_count = g->round;
            }
            if (g->white_bye || g->black_bye) {
                if (pass == 0) {
                    cr_pairing_bye bye = {g->round, g->white_bye ? g->black : g->white, 'U'};
                    if (add_bye(rs, &bye)) {
                        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
                    }
                }
                continue;
            }
            if ((pass == 0) != (g->table != 0)) {
                continue;
            }
            if (pass == 1) {
                int t = 1;
                while (cr_pairings_board(p, g->round, t)) {
                    t++;
                }
                g->table = t;
            } else if (cr_pairings_board(p, g->round, g->table)) {
                int other = 0;
                for (int e = 0; e < k; e++) {
                    const pgn_game *o = &st->games[e];
                    if (o->round == g->round && o->table == g->table && !o->white_bye &&
                        !o->black_bye) {
                        other = o->line;
                        break;
                    }
                }
                return cr_error_set(err, CR_EPGN, g->table_line, g->table_col,
                                    "round %d board %d given twice (also by the game of line %d)",
                                    g->round, g->table, other);
            }
            cr_pairing b;
            memset(&b, 0, sizeof b);
            b.round = g->round;
            b.table = g->table;
            b.white = g->white;
            b.black = g->black;
            memcpy(b.result, g->result, sizeof b.result);
            if (add_board(rs, &b)) {
                return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
            }
        }
    }
    for (int r = 0; r < p->round_count; r++) {
        if (p->rounds[r].board_count > 1) {
            qsort(p->rounds[r].boards, (size_t)p->rounds[r].board_count, sizeof(cr_pairing),
                  cmp_boards);
        }
    }
    return 0;
}

static int parse_pgn(cr_pairings *p, const char *text, size_t len, cr_error *err)
{
    pgn_state *st = calloc(1, sizeof *st);
    if (!st) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    int rc = pgn_scan(st, text, len, err);
    if (rc == 0) {
        rc = pgn_build(p, st, err);
    }
    free(st->games);
    free(st);
    return rc;
}

/*----- Public API -----*/

/* PGN when the first line that is not blank, a '%' escape or a ';' comment
 * opens a tag. */
static cr_pairings_format detect_format(const char *text, size_t len)
{
    line_iter it;
    init_lines(&it, text, len);
    const char *s;
    size_t n;
    while (next_line(&it, &s, &n)) {
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
    int rc =
        format == CR_PAIRINGS_TRF ? parse_trf(p, text, len, err) : parse_pgn(p, text, len, err);
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
        copy_utf8(err->text, sizeof err->text, msg, n < 0 ? 0 : strlen(msg));
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

/*----- Pairings as PGN -----*/

static void out_player_tags(cr_sb *o, const char *side, const cr_pairing_player *pl)
{
    char name[32], value[32];
    if (pl->title[0]) {
        snprintf(name, sizeof name, "%sTitle", side);
        cr_pgn_put_tag(o, name, pl->title);
    }
    if (pl->rating > 0) {
        snprintf(name, sizeof name, "%sElo", side);
        snprintf(value, sizeof value, "%d", pl->rating);
        cr_pgn_put_tag(o, name, value);
    }
    if (pl->fide_id > 0) {
        snprintf(name, sizeof name, "%sFideId", side);
        snprintf(value, sizeof value, "%lld", (long long)pl->fide_id);
        cr_pgn_put_tag(o, name, value);
    }
    if (pl->fed[0]) {
        snprintf(name, sizeof name, "%sFed", side);
        cr_pgn_put_tag(o, name, pl->fed);
    }
}

int cr_pairing_to_pgn(const cr_pairings *p, const cr_pairing *b, char *buf, size_t size)
{
    if (!p || !b || !buf || size == 0) {
        return CR_EINVAL;
    }
    cr_sb o;
    cr_sb_init_fixed(&o, buf, size);
    const char *event = p->info[CR_PF_NAME][0] ? p->info[CR_PF_NAME] : "?";
    const char *site = p->info[CR_PF_CITY][0] ? p->info[CR_PF_CITY] : "?";
    char date[INFO_MAX];
    const char *start = p->info[CR_PF_START];
    /* TRF dates are YYYY/MM/DD, PGN wants YYYY.MM.DD. */
    if (strlen(start) == 10 && start[4] == '/' && start[7] == '/') {
        snprintf(date, sizeof date, "%.4s.%.2s.%.2s", start, start + 5, start + 8);
    } else {
        snprintf(date, sizeof date, "%s", start[0] ? start : "????.??.??");
    }
    const char *result = b->result;
    if (strcmp(result, "+--") == 0) {
        result = "1-0";
    } else if (strcmp(result, "--+") == 0) {
        result = "0-1";
    } else if (strcmp(result, "1-0") != 0 && strcmp(result, "0-1") != 0 &&
               strcmp(result, "1/2-1/2") != 0) {
        result = "*";
    }
    char num[16];
    cr_pgn_put_tag(&o, "Event", event);
    cr_pgn_put_tag(&o, "Site", site);
    cr_pgn_put_tag(&o, "Date", date);
    snprintf(num, sizeof num, "%d", b->round);
    cr_pgn_put_tag(&o, "Round", num);
    cr_pgn_put_tag(&o, "White", b->white.name);
    cr_pgn_put_tag(&o, "Black", b->black.name);
    cr_pgn_put_tag(&o, "Result", result);
    snprintf(num, sizeof num, "%d", b->table);
    cr_pgn_put_tag(&o, "Board", num);
    out_player_tags(&o, "White", &b->white);
    out_player_tags(&o, "Black", &b->black);
    cr_sb_fmt(&o, "\n%s\n\n", result);
    if (o.failed) {
        buf[0] = '\0';
        return CR_ENOSPC;
    }
    return (int)o.len;
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
            cr_pairing_change *no = grow(out, &cap, count + 1, sizeof *no);
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
