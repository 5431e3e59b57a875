/* chessrelay pairings: reads the pairing program's output (FIDE TRF from
 * Swiss-Manager, Vega, JaVaFo...; or a tags-only PGN) and prints who plays
 * whom at which table, round by round; --pgn writes the pairings as a
 * tags-only PGN (one game per board) for the export folder or a broadcast
 * host; --boards prints the "boards" entries of the tournament file
 * (core/config.h), so that the relay names the players of each table. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/opts.h"
#include "cr/pairings.h"
#include "util/fileio.h"

static int usage(void)
{
    fprintf(stderr,
            "usage: chessrelay pairings FILE [--round N] [--format trf|pgn] [--pgn OUT|-] [--boards]\n"
            "  FILE: a FIDE TRF (Swiss-Manager, Vega, JaVaFo...) or a tags-only PGN\n"
            "  --round N   only round N (default: every round)\n"
            "  --format F  how FILE is written (default: guessed from its first line)\n"
            "  --pgn OUT   also write the boards as a tags-only PGN to OUT ('-': stdout only)\n"
            "  --boards    print {\"boards\": [...]} for the tournament file instead of the table\n");
    return 2;
}

/* Prints s padded with spaces to `width` characters (UTF-8 code points, so
 * that names with accents line up). */
static void print_padded(FILE *out, const char *s, int width)
{
    int n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        n += (*p & 0xC0) != 0x80;
    }
    fputs(s, out);
    for (; n < width; n++) {
        fputc(' ', out);
    }
}

static void player_label(const cr_pairing_player *pl, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s", pl->title, pl->title[0] ? " " : "", pl->name[0] ? pl->name : "?");
}

static const char *bye_text(char kind)
{
    switch (kind) {
    case 'U':
        return "pairing-allocated bye";
    case 'F':
        return "full-point bye";
    case 'H':
        return "half-point bye";
    case 'Z':
        return "absent (zero-point bye)";
    case '+':
        return "bye, scored as a forfeit win";
    case '-':
        return "bye, scored as a forfeit loss";
    default:
        return "bye";
    }
}

static void print_round(FILE *out, const cr_pairings *p, int round)
{
    int ntables = 0, ny = 0;
    const cr_pairing *tables = cr_pairings_boards(p, round, &ntables);
    const cr_pairing_bye *byes = cr_pairings_byes(p, round, &ny);
    fprintf(out, "Round %d\n", round);
    if (ntables == 0 && ny == 0) {
        fprintf(out, "  (no pairings)\n\n");
        return;
    }
    if (ntables) {
        fprintf(out, "%5s  ", "Table");
        print_padded(out, "White", 34);
        fprintf(out, "%6s  ", "Rating");
        print_padded(out, "Black", 34);
        fprintf(out, "%6s  Result\n", "Rating");
    }
    for (int i = 0; i < ntables; i++) {
        const cr_pairing *pr = &tables[i];
        char w[CR_PAIRINGS_NAME_MAX + 8], k[CR_PAIRINGS_NAME_MAX + 8];
        player_label(&pr->white, w, sizeof w);
        player_label(&pr->black, k, sizeof k);
        fprintf(out, "%5d  ", pr->table);
        print_padded(out, w, 34);
        if (pr->white.rating) {
            fprintf(out, "%6d  ", pr->white.rating);
        } else {
            fprintf(out, "%6s  ", "-");
        }
        print_padded(out, k, 34);
        if (pr->black.rating) {
            fprintf(out, "%6d  ", pr->black.rating);
        } else {
            fprintf(out, "%6s  ", "-");
        }
        fprintf(out, "%s\n", pr->result);
    }
    for (int i = 0; i < ny; i++) {
        char name[CR_PAIRINGS_NAME_MAX + 8];
        player_label(&byes[i].player, name, sizeof name);
        fprintf(out, "  bye: %s", name);
        if (byes[i].player.rating) {
            fprintf(out, " (%d)", byes[i].player.rating);
        }
        fprintf(out, ": %s\n", bye_text(byes[i].kind));
    }
    fputc('\n', out);
}

/* Writes every table of the round as a tags-only PGN game. Returns 0 or -1. */
static int write_round_pgn(FILE *out, const cr_pairings *p, int round)
{
    int ntables = 0;
    const cr_pairing *tables = cr_pairings_boards(p, round, &ntables);
    size_t size = 4096;
    char *buf = malloc(size);
    if (!buf) {
        return -1;
    }
    for (int i = 0; i < ntables; i++) {
        int n;
        while ((n = cr_pairing_to_pgn(p, &tables[i], buf, size)) == CR_ENOSPC) {
            char *b = realloc(buf, size * 2);
            if (!b) {
                free(buf);
                return -1;
            }
            buf = b;
            size *= 2;
        }
        if (n < 0 || fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
            free(buf);
            return -1;
        }
    }
    free(buf);
    return 0;
}

/* Adds the player's fields of a tournament-file board entry (side "white"
 * or "black"); unknown values are left out. */
static int add_player(json_t *o, const char *side, const cr_pairing_player *pl)
{
    char key[32];
    int rc = json_object_set_new(o, side, json_string(pl->name));
    if (pl->rating) {
        snprintf(key, sizeof key, "%s_elo", side);
        rc |= json_object_set_new(o, key, json_integer(pl->rating));
    }
    if (pl->title[0]) {
        snprintf(key, sizeof key, "%s_title", side);
        rc |= json_object_set_new(o, key, json_string(pl->title));
    }
    if (pl->fed[0]) {
        snprintf(key, sizeof key, "%s_fed", side);
        rc |= json_object_set_new(o, key, json_string(pl->fed));
    }
    return rc;
}

/* {"boards": [...]}: one entry per table and round, in round then table
 * order, which is the order the tournament file wants for a table's games. */
static int print_boards_json(FILE *out, const cr_pairings *p, int first, int last)
{
    fputs("{\"boards\": [", out);
    bool any = false;
    for (int r = first; r <= last; r++) {
        int ntables = 0;
        const cr_pairing *tables = cr_pairings_boards(p, r, &ntables);
        for (int i = 0; i < ntables; i++) {
            char round[16];
            snprintf(round, sizeof round, "%d", r);
            json_t *o = json_object();
            int rc = o ? 0 : -1;
            if (o) {
                rc |= json_object_set_new(o, "table", json_integer(tables[i].table));
                rc |= json_object_set_new(o, "round", json_string(round));
                rc |= add_player(o, "white", &tables[i].white);
                rc |= add_player(o, "black", &tables[i].black);
            }
            char *text = rc ? NULL : json_dumps(o, JSON_PRESERVE_ORDER);
            json_decref(o);
            if (!text) {
                return -1;
            }
            fprintf(out, "%s\n  %s", any ? "," : "", text);
            free(text);
            any = true;
        }
    }
    fputs(any ? "\n]}\n" : "]}\n", out);
    return 0;
}

/* The loader's message is "path:line: text"; say path:line:column: text. */
static void print_error(const char *path, const cr_error *err)
{
    const char *text = err->text;
    char prefix[64];
    snprintf(prefix, sizeof prefix, ":%d: ", err->line);
    size_t plen = strlen(path);
    if (err->line > 0 && strncmp(text, path, plen) == 0 && strncmp(text + plen, prefix, strlen(prefix)) == 0) {
        text += plen + strlen(prefix);
    } else if (strncmp(text, path, plen) == 0 && strncmp(text + plen, ": ", 2) == 0) {
        text += plen + 2;
    }
    if (err->line > 0 && err->column > 0) {
        fprintf(stderr, "%s:%d:%d: %s\n", path, err->line, err->column, text);
    } else if (err->line > 0) {
        fprintf(stderr, "%s:%d: %s\n", path, err->line, text);
    } else {
        fprintf(stderr, "%s: %s\n", path, text);
    }
}

int cr_cmd_pairings(int argc, char **argv)
{
    const char *path = NULL, *pgn_out = NULL;
    cr_pairings_format format = CR_PAIRINGS_AUTO;
    int only = 0;
    bool boards_json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--round") == 0) {
            long long n;
            if (!cr_opt_int("pairings", a, v, 1, 10000, "a round number", &n)) {
                return 2;
            }
            only = (int)n;
            i++;
        } else if (strcmp(a, "--format") == 0) {
            if (v && strcmp(v, "trf") == 0) {
                format = CR_PAIRINGS_TRF;
            } else if (v && strcmp(v, "pgn") == 0) {
                format = CR_PAIRINGS_PGN;
            } else if (v && strcmp(v, "auto") == 0) {
                format = CR_PAIRINGS_AUTO;
            } else {
                fprintf(stderr, "pairings: --format is trf or pgn, got '%s'\n", v ? v : "");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--boards") == 0) {
            boards_json = true;
        } else if (strcmp(a, "--pgn") == 0) {
            if (!v) {
                return usage();
            }
            pgn_out = v;
            i++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "pairings: unknown option '%s'\n", a);
            return usage();
        } else if (path) {
            return usage();
        } else {
            path = a;
        }
    }
    if (!path) {
        return usage();
    }
    cr_error err;
    cr_error_clear(&err);
    char *text = NULL;
    size_t len = 0;
    cr_pairings *p = NULL;
    if (cr_read_file(path, (size_t)64 << 20, &text, &len, &err) == 0) {
        p = cr_pairings_load(text, len, path, format, &err);
        free(text);
    }
    if (!p) {
        print_error(path, &err);
        return 1;
    }
    int rounds = cr_pairings_round_count(p);
    int first = 1, last = rounds;
    if (only) {
        int ntables = 0, ny = 0;
        cr_pairings_boards(p, only, &ntables);
        cr_pairings_byes(p, only, &ny);
        if (ntables == 0 && ny == 0) {
            fprintf(stderr, "%s: no pairings for round %d (the file has %d round%s)\n", path, only,
                    rounds, rounds == 1 ? "" : "s");
            cr_pairings_free(p);
            return 1;
        }
        first = last = only;
    }
    bool pgn_stdout = pgn_out && strcmp(pgn_out, "-") == 0;
    int status = 0;
    if (boards_json && pgn_stdout) {
        fprintf(stderr, "pairings: --boards and --pgn - both want stdout\n");
        cr_pairings_free(p);
        return 2;
    }
    if (boards_json) {
        if (print_boards_json(stdout, p, first, last)) {
            fprintf(stderr, "pairings: out of memory\n");
            status = 1;
        }
    } else if (!pgn_stdout) {
        const char *name = cr_pairings_info(p, CR_PF_NAME);
        const char *city = cr_pairings_info(p, CR_PF_CITY);
        const char *start = cr_pairings_info(p, CR_PF_START);
        printf("%s", name[0] ? name : path);
        if (city[0] || start[0]) {
            printf(" (%s%s%s)", city, city[0] && start[0] ? ", " : "", start);
        }
        printf(": %d players, %d round%s, from %s\n\n", cr_pairings_player_count(p), rounds,
               rounds == 1 ? "" : "s", cr_pairings_source(p) == CR_PAIRINGS_TRF ? "TRF" : "PGN");
        for (int r = first; r <= last; r++) {
            int ntables = 0, ny = 0;
            cr_pairings_boards(p, r, &ntables);
            cr_pairings_byes(p, r, &ny);
            /* A pairings PGN often holds one round: do not list the others. */
            if (ntables || ny || only) {
                print_round(stdout, p, r);
            }
        }
    }
    if (pgn_out) {
        FILE *out = pgn_stdout ? stdout : fopen(pgn_out, "wb");
        if (!out) {
            fprintf(stderr, "pairings: cannot write %s\n", pgn_out);
            status = 1;
        } else {
            for (int r = first; r <= last && status == 0; r++) {
                if (write_round_pgn(out, p, r)) {
                    status = 1;
                }
            }
            if ((out != stdout && fclose(out) != 0) || (out == stdout && fflush(out) != 0)) {
                status = 1;
            }
            if (status) {
                fprintf(stderr, "pairings: error writing %s\n", pgn_stdout ? "stdout" : pgn_out);
            }
        }
    }
    cr_pairings_free(p);
    return status;
}
