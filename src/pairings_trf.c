/* Pairings import: FIDE TRF, with table order for Swiss rounds (C.04.2)
 * and the Berger tables of round robins (see cr/pairings.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairings_private.h"

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
            int l = cr_pairings_utf8_len((const unsigned char *)s + i, n - i);
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
    cr_pairings_to_utf8(dst, size, tl->s + a, b - a);
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
    long long sr = cr_pairings_parse_uint(buf, strlen(buf), MAX_START_RANK);
    if (sr < 1) {
        return cr_error_set(err, CR_EINVAL, line, 5, "start rank \"%s\" is not a number 1-%d", buf,
                            MAX_START_RANK);
    }
    pl->start_rank = (int)sr;
    int sex = lower_ascii(trf_char(tl, 10));
    pl->sex = sex == 'm' ? 'm' : (sex == 'w' || sex == 'f') ? 'w' : 0;
    trf_field(tl, 11, 13, buf, sizeof buf);
    cr_pairings_normalise_title(buf, pl->title);
    trf_field(tl, 15, 47, pl->name, sizeof pl->name);
    if (pl->name[0] == '\0') {
        return cr_error_set(err, CR_EINVAL, line, 15, "player %d has no name", pl->start_rank);
    }
    trf_field(tl, 49, 52, buf, sizeof buf);
    if (buf[0]) {
        long long r = cr_pairings_parse_uint(buf, strlen(buf), 9999);
        if (r < 0) {
            return cr_error_set(err, CR_EINVAL, line, 49, "rating \"%s\" is not a number", buf);
        }
        pl->rating = (int)r;
    }
    trf_field(tl, 54, 56, buf, sizeof buf);
    cr_pairings_copy_utf8(pl->fed, sizeof pl->fed, buf, strlen(buf));
    trf_field(tl, 58, 68, buf, sizeof buf);
    if (buf[0]) {
        long long id = cr_pairings_parse_uint(buf, strlen(buf), 99999999999LL);
        if (id < 0) {
            return cr_error_set(err, CR_EINVAL, line, 58, "FIDE id \"%s\" is not a number", buf);
        }
        pl->fide_id = id;
    }
    trf_field(tl, 70, 79, buf, sizeof buf);
    cr_pairings_copy_utf8(pl->birth, sizeof pl->birth, buf, strlen(buf));
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
            long long opp = cr_pairings_parse_uint(buf, strlen(buf), MAX_START_RANK);
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

int cr_pairings_trf_line_columns(const char *s, size_t n, size_t *starts)
{
    trf_line tl;
    trf_player pl;
    trf_line_init(&tl, s, n, false, starts);
    if (trf_parse_player(&tl, 0, &pl, NULL) == 0) {
        return tl.count;
    }
    if (!tl.latin1 && (size_t)tl.count != n) { /* the reader's retry by bytes */
        trf_line_init(&tl, s, n, true, starts);
        if (trf_parse_player(&tl, 0, &pl, NULL) == 0) {
            return tl.count;
        }
    }
    return -1;
}

double cr_pairings_trf_points(char code)
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
    int rounds_dated; /* the last round with a 132 date */
    struct {
        char kind;
        int round, rank, line, col;
    } * byes240;
    int bye_count, bye_cap;
    /* 013 records: a team's name and the line it is on; team_of[rank] is
     * index + 1 of the team listing that start rank, 0 for none. */
    struct {
        char name[CR_PAIRINGS_NAME_MAX];
        int line;
    } * teams;
    int team_count, team_cap;
    int team_of[MAX_START_RANK + 1];
    int team_col[MAX_START_RANK + 1]; /* the column it is listed at, for errors */
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
    long long round = cr_pairings_parse_uint(buf, strlen(buf), MAX_ROUNDS);
    if (round < 1) {
        return cr_error_set(err, CR_EINVAL, line, 7, "round \"%s\" is not a number 1-%d", buf,
                            MAX_ROUNDS);
    }
    for (int col = 11; col <= tl->count; col += 5) {
        trf_field(tl, col, col + 3, buf, sizeof buf);
        if (!buf[0]) {
            continue;
        }
        long long rank = cr_pairings_parse_uint(buf, strlen(buf), MAX_START_RANK);
        if (rank < 1) {
            return cr_error_set(err, CR_EINVAL, line, col, "player \"%s\" is not a start rank",
                                buf);
        }
        void *nb =
            cr_pairings_grow(st->byes240, &st->bye_cap, st->bye_count + 1, sizeof *st->byes240);
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

/* 013 records (TRF-16): team name in columns 5-36, then the start ranks
 * of its players, 4 columns each from 37 on, one blank between (37-40,
 * 42-45, ...). A player is in one team at most. */
static int trf_parse_013(trf_state *st, const trf_line *tl, int line, cr_error *err)
{
    char name[CR_PAIRINGS_NAME_MAX], buf[16];
    trf_field(tl, 5, 36, name, sizeof name);
    if (!name[0]) {
        return cr_error_set(err, CR_EINVAL, line, 5, "team has no name");
    }
    void *nt = cr_pairings_grow(st->teams, &st->team_cap, st->team_count + 1, sizeof *st->teams);
    if (!nt) {
        return cr_error_set(err, CR_ENOMEM, line, 0, "out of memory");
    }
    st->teams = nt;
    memcpy(st->teams[st->team_count].name, name, sizeof name);
    st->teams[st->team_count].line = line;
    st->team_count++;
    for (int col = 37; col <= tl->count; col += 5) {
        trf_field(tl, col, col + 3, buf, sizeof buf);
        if (!buf[0]) {
            continue;
        }
        long long rank = cr_pairings_parse_uint(buf, strlen(buf), MAX_START_RANK);
        if (rank < 1) {
            return cr_error_set(err, CR_EINVAL, line, col, "team %s: \"%s\" is not a start rank",
                                name, buf);
        }
        int other = st->team_of[rank];
        if (other) {
            return cr_error_set(err, CR_EINVAL, line, col,
                                "start rank %lld is already in team %s (line %d)", rank,
                                st->teams[other - 1].name, st->teams[other - 1].line);
        }
        st->team_of[rank] = st->team_count;
        st->team_col[rank] = col;
    }
    return 0;
}

/* Gives each player listed by a 013 record its team's name. */
static int apply_teams(trf_state *st, cr_error *err)
{
    for (int rank = 1; rank <= MAX_START_RANK; rank++) {
        int t = st->team_of[rank];
        if (!t) {
            continue;
        }
        if (!st->by_rank[rank]) {
            return cr_error_set(err, CR_EINVAL, st->teams[t - 1].line, st->team_col[rank],
                                "team %s: start rank %d has no 001 line", st->teams[t - 1].name,
                                rank);
        }
        trf_player *pl = &st->players[st->by_rank[rank] - 1];
        memcpy(pl->info.team, st->teams[t - 1].name, sizeof pl->info.team);
    }
    return 0;
}

/* A 132 date, "YY/MM/DD" (or YYYY, '.' or '-'), as "YYYY-MM-DD"; false
 * when it is not one. */
static bool trf_date(const char *s, char out[11])
{
    int y, m, d, n = 0;
    char s1, s2;
    if (sscanf(s, "%d%c%d%c%d%n", &y, &s1, &m, &s2, &d, &n) != 5 || s[n] != '\0' || s1 != s2 ||
        !strchr("/.-", s1) || m < 1 || m > 12 || d < 1 || d > 31 || y < 0 || y > 9999) {
        return false;
    }
    if (!is_digit((unsigned char)s[0]) || strchr(s, '+') || strchr(s, ' ')) {
        return false;
    }
    size_t ylen = strcspn(s, "/.-");
    if (ylen != 2 && ylen != 4) {
        return false;
    }
    char tmp[40]; /* the ranges are checked; the room is for the compiler */
    snprintf(tmp, sizeof tmp, "%04d-%02d-%02d", ylen == 2 ? 2000 + y : y, m, d);
    memcpy(out, tmp, 11);
    return true;
}

/* 132 (TRF-16): each round's date in the round's block, column 92 on. */
static void trf_parse_132(cr_pairings *p, trf_state *st, const trf_line *tl)
{
    char buf[16];
    for (int col = 92; col <= tl->count && (col - 92) / 10 < MAX_ROUNDS; col += 10) {
        int r = (col - 92) / 10;
        trf_field(tl, col, col + 9, buf, sizeof buf);
        if (buf[0] && trf_date(buf, p->rounds[r].date) && r + 1 > st->rounds_dated) {
            st->rounds_dated = r + 1;
        }
    }
}

static int trf_read_lines(cr_pairings *p, trf_state *st, const char *text, size_t len,
                          cr_error *err)
{
    line_iter it;
    cr_pairings_init_lines(&it, text, len);
    const char *s;
    size_t n;
    size_t *scratch = NULL;
    size_t scratch_cap = 0;
    int rc = 0;
    while (cr_pairings_next_line(&it, &s, &n)) {
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
            trf_player *np = cr_pairings_grow(st->players, &st->cap, st->count + 1, sizeof *np);
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
        } else if (strcmp(code, "013") == 0) {
            rc = trf_parse_013(st, &tl, it.number, err);
            if (rc) {
                break;
            }
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
                cr_pairings_copy_utf8(d + used, INFO_MAX - used, buf, strlen(buf));
            }
        } else if (strcmp(code, "142") == 0 || strcmp(code, "XXR") == 0) {
            char buf[16];
            trf_field(&tl, 5, 12, buf, sizeof buf);
            long long r = cr_pairings_parse_uint(buf, strlen(buf), MAX_ROUNDS);
            if (r < 0) {
                rc = cr_error_set(err, CR_EINVAL, it.number, 5,
                                  "number of rounds \"%s\" is not 0-%d", buf, MAX_ROUNDS);
                break;
            }
            st->rounds_declared = (int)r;
        } else if (strcmp(code, "132") == 0) {
            trf_parse_132(p, st, &tl);
        } else if (strcmp(code, "240") == 0) {
            rc = trf_parse_240(st, &tl, it.number, err);
            if (rc) {
                break;
            }
        }
        /* Everything else (162, 250, 260, 3xx, DAT, XX*, national
         * rating lines) does not bear on who sits where. */
    }
    free(scratch);
    return rc;
}

/* 240 byes fill empty round blocks. */
static int apply_240_byes(trf_state *st, cr_error *err)
{
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
    return 0;
}

/* The number of rounds: the declared one, or the last round block with
 * something in it (trailing blank blocks do not count). */
static int count_rounds(const trf_state *st)
{
    int rounds = st->rounds_declared > st->rounds_dated ? st->rounds_declared : st->rounds_dated;
    for (int i = 0; i < st->count; i++) {
        const trf_player *pl = &st->players[i];
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
    return rounds;
}

/* A round robin: start ranks 1..N and every game of every round on the
 * Berger table. Then its boards are the table's (a Swiss hardly ever
 * matches it for a whole event, and if it did the order would still be a
 * sound one). Returns the table's size (N rounded up to even), or 0. */
static int berger_size(const trf_state *st, int rounds)
{
    bool contiguous = st->count >= 3 && st->count <= MAX_ROUNDS + 1;
    for (int i = 0; i < st->count && contiguous; i++) {
        contiguous = st->players[i].info.start_rank <= st->count; /* unique, so 1..N */
    }
    if (!contiguous) {
        return 0;
    }
    int berger_n = st->count + (st->count & 1);
    bool any = false;
    for (int i = 0; i < st->count; i++) {
        const trf_player *pl = &st->players[i];
        for (int r = 0; r < pl->entry_count && r < rounds; r++) {
            int opp = pl->entries[r].opp;
            if (opp < 1 || opp > st->count) {
                continue;
            }
            any = true;
            if (!berger_board(berger_n, r + 1, pl->info.start_rank, opp)) {
                return 0;
            }
        }
    }
    return any ? berger_n : 0;
}

/* What one round builds: its pairs (for the table order) and byes. */
typedef struct round_build {
    int r;               /* 0-based */
    bool paired;         /* some player of the round has an opponent */
    const double *score; /* per player, before the round */
    sort_pair *pairs;
    int npairs;
    int berger_n;
} round_build;

/* A player's entry without an opponent: a bye of some kind, or absent
 * (blank = Z) once the round is paired; before that a blank says nothing. */
static int take_bye(round_set *rs, const trf_player *pl, const trf_entry *e, const round_build *rb,
                    cr_error *err)
{
    int r = rb->r;
    if (!rb->paired && e->result == ' ' && e->colour == '-') {
        return 0;
    }
    if (e->colour != '-' && e->result == ' ') {
        return cr_error_set(err, CR_EINVAL, pl->line, e->col + 5,
                            "round %d: colour '%c' without an opponent", r + 1, e->colour);
    }
    cr_pairing_bye bye = {r + 1, pl->info, e->result == ' ' ? 'Z' : e->result};
    if (strchr("10=WDL", bye.kind)) {
        return cr_error_set(err, CR_EINVAL, pl->line, e->col + 7,
                            "round %d: game result '%c' without an opponent", r + 1, e->result);
    }
    if (cr_pairings_add_bye(rs, &bye)) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    return 0;
}

/* Player i's entry with an opponent: both lines must agree; the pair is
 * taken once, from the lower start rank. */
static int take_pair(const trf_state *st, int i, const trf_entry *e, round_build *rb, cr_error *err)
{
    int r = rb->r;
    const trf_player *pl = &st->players[i];
    int me = pl->info.start_rank;
    int oi = st->by_rank[e->opp];
    if (!oi) {
        return cr_error_set(err, CR_EINVAL, pl->line, e->col,
                            "round %d: opponent %d has no 001 line", r + 1, e->opp);
    }
    if (e->opp == me) {
        return cr_error_set(err, CR_EINVAL, pl->line, e->col,
                            "round %d: player %d paired with themself", r + 1, me);
    }
    const trf_player *op = &st->players[oi - 1];
    trf_entry blank = {0, '-', ' ', 92 + 10 * r};
    const trf_entry *oe = r < op->entry_count ? &op->entries[r] : &blank;
    if (oe->opp != me) {
        return cr_error_set(err, CR_EINVAL, pl->line, e->col,
                            "round %d: %d plays %d, but line %d gives %d %s %d", r + 1, me, e->opp,
                            op->line, e->opp, oe->opp ? "opponent" : "no opponent", oe->opp);
    }
    if (e->colour == '-' || e->colour == oe->colour) {
        return cr_error_set(err, CR_EINVAL, pl->line, e->col + 5,
                            "round %d: colours of %d (%c) and %d (%c) must be w and b", r + 1, me,
                            e->colour, e->opp, oe->colour);
    }
    if (me > e->opp) {
        return 0; /* the pair was taken with the lower start rank */
    }
    const trf_entry *we = e->colour == 'w' ? e : oe;
    const trf_entry *be = e->colour == 'w' ? oe : e;
    if (!pair_result(we->result, be->result)) {
        return cr_error_set(err, CR_EINVAL, pl->line, e->col + 7,
                            "round %d: results of %d (%c) and %d (%c) do not agree", r + 1, me,
                            e->result, e->opp, oe->result);
    }
    sort_pair *sp = &rb->pairs[rb->npairs++];
    sp->white = e->colour == 'w' ? i : oi - 1;
    sp->black = e->colour == 'w' ? oi - 1 : i;
    double a = rb->score[i], b = rb->score[oi - 1];
    sp->hi = a > b ? a : b;
    sp->sum = a + b;
    sp->top_rank = me;
    sp->berger = rb->berger_n ? berger_board(rb->berger_n, r + 1, me, e->opp) : 0;
    return 0;
}

/* The boards (in table order) and byes of round rb->r. */
static int build_round(cr_pairings *p, const trf_state *st, round_build *rb, cr_error *err)
{
    int r = rb->r;
    bool used = false;
    rb->paired = false;
    rb->npairs = 0;
    for (int i = 0; i < st->count; i++) {
        const trf_entry *e = &st->players[i].entries[r];
        if (r < st->players[i].entry_count && (e->opp || e->result != ' ' || e->colour != '-')) {
            used = true;
            rb->paired |= e->opp != 0;
        }
    }
    round_set *rs = &p->rounds[r];
    for (int i = 0; i < st->count && used; i++) {
        const trf_player *pl = &st->players[i];
        trf_entry blank = {0, '-', ' ', 92 + 10 * r};
        const trf_entry *e = r < pl->entry_count ? &pl->entries[r] : &blank;
        int rc = e->opp == 0 ? take_bye(rs, pl, e, rb, err) : take_pair(st, i, e, rb, err);
        if (rc) {
            return rc;
        }
    }
    qsort(rb->pairs, (size_t)rb->npairs, sizeof *rb->pairs, cmp_pairs);
    for (int k = 0; k < rb->npairs; k++) {
        cr_pairing b;
        memset(&b, 0, sizeof b);
        b.round = r + 1;
        b.table = k + 1;
        b.white = st->players[rb->pairs[k].white].info;
        b.black = st->players[rb->pairs[k].black].info;
        const trf_entry *we = &st->players[rb->pairs[k].white].entries[r];
        const trf_entry *be = &st->players[rb->pairs[k].black].entries[r];
        snprintf(b.result, sizeof b.result, "%s", pair_result(we->result, be->result));
        if (cr_pairings_add_board(rs, &b)) {
            return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
    }
    return 0;
}

/* Byes were added in file order; list them by start rank. */
static void sort_byes(round_set *rs)
{
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

static int trf_build(cr_pairings *p, trf_state *st, cr_error *err)
{
    if (st->count == 0) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "no player (001) lines");
    }
    int rc = apply_240_byes(st, err);
    if (rc == 0) {
        rc = apply_teams(st, err);
    }
    if (rc) {
        return rc;
    }
    /* Players in start-rank order. */
    for (int rank = 1; rank <= MAX_START_RANK; rank++) {
        if (st->by_rank[rank] &&
            cr_pairings_add_player(p, &st->players[st->by_rank[rank] - 1].info)) {
            return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
    }
    int rounds = count_rounds(st);
    p->round_count = rounds;
    double *score = calloc((size_t)st->count, sizeof *score);
    sort_pair *pairs = malloc((size_t)st->count * sizeof *pairs);
    if (!score || !pairs) {
        free(score);
        free(pairs);
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    round_build rb = {.score = score, .pairs = pairs, .berger_n = berger_size(st, rounds)};
    for (int r = 0; r < rounds && rc == 0; r++) {
        rb.r = r;
        rc = build_round(p, st, &rb, err);
        /* Scores after this round, for the next round's order. */
        for (int i = 0; i < st->count; i++) {
            if (r < st->players[i].entry_count) {
                score[i] += cr_pairings_trf_points(st->players[i].entries[r].result);
            }
        }
    }
    for (int r = 0; r < rounds && rc == 0; r++) {
        sort_byes(&p->rounds[r]);
    }
    free(score);
    free(pairs);
    return rc;
}

int cr_pairings_parse_trf(cr_pairings *p, const char *text, size_t len, cr_error *err)
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
    free(st->teams);
    free(st);
    return rc;
}
