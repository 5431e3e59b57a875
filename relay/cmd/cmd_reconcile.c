/* chessrelay reconcile: a player's scoresheet against the board's record
 * (cr/reconcile.h): each difference with both versions, the position and
 * the board's clock; gaps of the record filled from the sheet. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cr/notation.h"
#include "cr/pgn.h"
#include "cr/reconcile.h"
#include "util/fileio.h"

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay reconcile RECORD.pgn SCORESHEET [--game N | --board ID] "
                    "[--lang L] [--pgn OUT]\n"
                    "  RECORD: the board's game as PGN (/game/N.pgn, `chessrelay replay FEED`);\n"
                    "  SCORESHEET: the moves as written, any notation and language (- for stdin)\n");
    return 2;
}

typedef struct opts {
    const char *record, *sheet, *pgn_out, *board;
    int game, lang;
} opts;

static int parse_args(int argc, char **argv, opts *o)
{
    *o = (opts){.game = 1, .lang = -1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--game") == 0 && v) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 1000000) {
                fprintf(stderr, "reconcile: --game %s: expected a game number from 1\n", v);
                return 2;
            }
            o->game = (int)n;
            i++;
        } else if (strcmp(a, "--board") == 0 && v) {
            o->board = argv[++i];
        } else if (strcmp(a, "--lang") == 0 && v) {
            if ((o->lang = cr_lang_parse(v)) < 0) {
                fprintf(stderr, "reconcile: unknown language '%s' (en ru de fr es it nl)\n", v);
                return 2;
            }
            i++;
        } else if (strcmp(a, "--pgn") == 0 && v) {
            o->pgn_out = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "reconcile: unknown option '%s'\n", a);
            return usage();
        } else if (!o->record) {
            o->record = a;
        } else if (!o->sheet) {
            o->sheet = a;
        } else {
            return usage();
        }
    }
    return o->record && o->sheet ? 0 : usage();
}

/* The record's game: the o->game-th of the file, or the one of board o->board. */
static cr_game *read_record(const opts *o)
{
    FILE *f = fopen(o->record, "rb");
    if (!f) {
        fprintf(stderr, "reconcile: cannot open %s\n", o->record);
        return NULL;
    }
    cr_pgn_reader *r = cr_pgn_reader_new_file(f);
    fclose(f);
    if (!r) {
        fprintf(stderr, "reconcile: %s: read error\n", o->record);
        return NULL;
    }
    cr_game *found = NULL;
    for (int n = 1; !found;) {
        cr_game *g = NULL;
        cr_error err;
        int rc = cr_pgn_read(r, &g, &err);
        if (rc == CR_EEOF) {
            break;
        }
        if (rc < 0) {
            fprintf(stderr, "reconcile: %s:%d:%d: %s\n", o->record, err.line, err.column, err.text);
            break;
        }
        const char *board = cr_game_tag(g, "Board");
        if (o->board ? board && strcmp(board, o->board) == 0 : n == o->game) {
            found = g;
        } else {
            cr_game_free(g);
        }
        n++;
    }
    cr_pgn_reader_free(r);
    if (!found) {
        if (o->board) {
            fprintf(stderr, "reconcile: %s: no game of board %s\n", o->record, o->board);
        } else {
            fprintf(stderr, "reconcile: %s: no game %d\n", o->record, o->game);
        }
    }
    return found;
}

/* A scoresheet is a page or two of moves. */
#define SHEET_MAX (1u << 20)

static int read_stdin(char **out, size_t *len, cr_error *err)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, stdin)) > 0) {
        n += got;
        if (n > SHEET_MAX) {
            free(buf);
            return cr_error_set(err, CR_ERANGE, 0, 0, "stdin: more than %u bytes", SHEET_MAX);
        }
        if (cap - n - 1 == 0) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (!buf) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "stdin: out of memory");
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* "12." or "12..." for the move at ply of g. */
static void move_number(const cr_game *g, int ply, char *buf, size_t size)
{
    const cr_position *p = cr_game_position_at(g, ply);
    snprintf(buf, size, "%d%s", p->fullmove, p->side == CR_WHITE ? "." : "...");
}

static void clock_text(int32_t ms, char *buf, size_t size)
{
    if (ms < 0) {
        snprintf(buf, size, "-");
    } else {
        int s = ms / 1000;
        snprintf(buf, size, "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
    }
}

static void print_item(const cr_recon_result *r, const cr_recon_item *it)
{
    char num[16], clk[16];
    move_number(r->game, it->ply, num, sizeof num);
    clock_text(it->clock_ms, clk, sizeof clk);
    switch (it->kind) {
    case CR_RECON_DIFFER:
    case CR_RECON_UNREADABLE:
        printf("%s %s: board %s, scoresheet \"%s\" (%s); board's clock %s; before it %s\n", num,
               cr_recon_kind_name(it->kind), it->board_san, it->sheet_text,
               it->sheet_san[0] ? it->sheet_san : "no legal move there", clk, it->fen);
        break;
    case CR_RECON_SHEET_LACKS:
        printf("%s sheet lacks: board %s, not on the scoresheet; board's clock %s; before it %s\n", num,
               it->board_san, clk, it->fen);
        break;
    case CR_RECON_SHEET_EXTRA:
        printf("%s sheet extra: scoresheet \"%s\", never on the board; before it %s\n", num, it->sheet_text,
               it->fen);
        break;
    case CR_RECON_GAP_FILLED:
        printf("%s gap filled from the scoresheet, %d plies:", num, it->count);
        for (int i = it->ply; i < it->ply + it->count; i++) {
            printf(" %s", cr_game_ply(r->game, i)->san);
        }
        printf("\n");
        break;
    case CR_RECON_GAP_OPEN:
        printf("%s gap open: the scoresheet's moves from \"%s\" do not reach the position the board "
               "showed next; compared no further; before it %s\n", num, it->sheet_text, it->fen);
        break;
    case CR_RECON_SHEET_ENDS:
        printf("%s sheet ends: %d plies of the board from %s not written\n", num, it->count, it->board_san);
        break;
    case CR_RECON_BOARD_ENDS:
        printf("%s board ends: %d more moves on the scoresheet from \"%s\"\n", num, it->count, it->sheet_text);
        break;
    }
}

int cr_cmd_reconcile(int argc, char **argv)
{
    opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc) {
        return rc == 1 ? 0 : rc;
    }
    cr_game *rec = read_record(&o);
    if (!rec) {
        return 2;
    }
    char *text = NULL;
    size_t len = 0;
    cr_error err;
    if (strcmp(o.sheet, "-") == 0 ? read_stdin(&text, &len, &err)
                                  : cr_read_file(o.sheet, SHEET_MAX, &text, &len, &err)) {
        fprintf(stderr, "reconcile: %s\n", err.text);
        cr_game_free(rec);
        return 2;
    }
    cr_recon_result *r = NULL;
    if (cr_reconcile(rec, text, len, o.lang, &r, &err)) {
        fprintf(stderr, "reconcile: %s: %s\n", o.sheet, err.text);
        free(text);
        cr_game_free(rec);
        return 2;
    }
    int filled = 0, filled_plies = 0;
    for (int i = 0; i < r->count; i++) {
        print_item(r, &r->items[i]);
        if (r->items[i].kind == CR_RECON_GAP_FILLED) {
            filled++;
            filled_plies += r->items[i].count;
        }
    }
    printf("%d plies of the board compared: %d difference%s, %d gap%s filled (%d plies)\n", r->compared,
           r->differences, r->differences == 1 ? "" : "s", filled, filled == 1 ? "" : "s", filled_plies);
    int status = r->differences ? 1 : 0;
    if (o.pgn_out) {
        cr_pgn_options po = {.style = CR_STYLE_SAN, .lang = CR_LANG_EN, .width = 80};
        FILE *f = fopen(o.pgn_out, "w");
        if (!f || cr_pgn_write_file(r->game, &po, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "reconcile: cannot write %s\n", o.pgn_out);
            status = 2;
        }
    }
    cr_reconcile_free(r);
    free(text);
    cr_game_free(rec);
    return status;
}
