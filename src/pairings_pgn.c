/* Pairings import and export as tag-only PGN (see cr/pairings.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pairings_private.h"
#include "pgn_private.h"

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
    long long v = cr_pairings_parse_uint(value, n, 99999999999LL);
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
            cr_pairings_copy_utf8(side->name, sizeof side->name, value, strlen(value));
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
            cr_pairings_normalise_title(value, side->title);
        } else if (strcmp(field, "FideId") == 0) {
            size_t n = strlen(value);
            long long id = cr_pairings_parse_uint(value, n, 99999999999LL);
            if (n && id < 0 && strcmp(value, "-") != 0 && strcmp(value, "?") != 0) {
                return cr_error_set(err, CR_EPGN, line, col, "%s \"%s\" is not a number", name,
                                    value);
            }
            side->fide_id = id < 0 ? 0 : id;
        } else if (strcmp(field, "Fed") == 0) {
            cr_pairings_copy_utf8(side->fed, sizeof side->fed, value, strlen(value));
        }
        return 0;
    }
    if (strcmp(name, "Round") == 0) {
        /* "5", "5.3" (round.board); anything else such as "?" is an error
         * because the relay cannot place the game. */
        const char *dot = strchr(value, '.');
        size_t rn = dot ? (size_t)(dot - value) : strlen(value);
        long long r = cr_pairings_parse_uint(value, rn, MAX_ROUNDS);
        if (r < 1) {
            return cr_error_set(err, CR_EPGN, line, col, "Round \"%s\" is not a round number 1-%d",
                                value, MAX_ROUNDS);
        }
        g->round = (int)r;
        g->has_round = true;
        g->round_line = line;
        g->round_col = col;
        if (dot && g->table == 0) {
            long long t = cr_pairings_parse_uint(dot + 1, strlen(dot + 1), MAX_TABLE);
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
        long long t = cr_pairings_parse_uint(value, strlen(value), MAX_TABLE);
        if (t < 1) {
            return cr_error_set(err, CR_EPGN, line, col, "Board \"%s\" is not a number 1-%d", value,
                                MAX_TABLE);
        }
        g->table = (int)t;
        g->table_line = line;
        g->table_col = col;
    } else if (strcmp(name, "Result") == 0) {
        cr_pairings_copy_utf8(g->result, sizeof g->result, value, strlen(value));
    } else if (strcmp(name, "Event") == 0) {
        cr_pairings_copy_utf8(g->event, sizeof g->event, value, strlen(value));
    } else if (strcmp(name, "Site") == 0) {
        cr_pairings_copy_utf8(g->site, sizeof g->site, value, strlen(value));
    } else if (strcmp(name, "Date") == 0) {
        cr_pairings_copy_utf8(g->date, sizeof g->date, value, strlen(value));
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
    pgn_game *ng = cr_pairings_grow(st->games, &st->cap, st->count + 1, sizeof *ng);
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
                return cr_error_set(err, CR_EPGN, line, (int)i + 1,
                                    "tag name longer than %d characters", (int)sizeof name - 1);
            }
            name[nl++] = s[i++];
        }
        name[nl] = '\0';
        if (nl == 0) {
            return cr_error_set(err, CR_EPGN, line, (int)i + 1, "tag name expected after '['");
        }
        /* A tag name is letters, digits and '_' (PGN grammar): anything else
         * right after it is named, not taken for a missing quote. */
        if (i < n && !is_space((unsigned char)s[i]) && s[i] != '"') {
            unsigned char c = (unsigned char)s[i];
            if (c >= 0x20 && c < 0x7f) {
                return cr_error_set(err, CR_EPGN, line, (int)i + 1,
                                    "tag name %s%c...: '%c' is not a letter, digit or '_'", name, c,
                                    c);
            }
            return cr_error_set(err, CR_EPGN, line, (int)i + 1,
                                "tag name %s...: byte 0x%02x is not a letter, digit or '_'", name,
                                c);
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
        cr_pairings_to_utf8(clean, sizeof clean, value, vl);
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
    cr_pairings_init_lines(&it, text, len);
    const char *s;
    size_t n;
    bool in_comment = false; /* inside { } across lines */
    while (cr_pairings_next_line(&it, &s, &n)) {
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
    return cr_pairings_add_player(p, pl);
}

static int pgn_build(cr_pairings *p, pgn_state *st, cr_error *err)
{
    if (st->count == 0) {
        return cr_error_set(err, CR_EPGN, 0, 0, "no game with tags");
    }
    pgn_game *first = &st->games[0];
    cr_pairings_copy_utf8(p->info[CR_PF_NAME], INFO_MAX, first->event, strlen(first->event));
    cr_pairings_copy_utf8(p->info[CR_PF_CITY], INFO_MAX, first->site, strlen(first->site));
    cr_pairings_copy_utf8(p->info[CR_PF_START], INFO_MAX, first->date, strlen(first->date));
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
                    if (cr_pairings_add_bye(rs, &bye)) {
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
            if (cr_pairings_add_board(rs, &b)) {
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

int cr_pairings_parse_pgn(cr_pairings *p, const char *text, size_t len, cr_error *err)
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
