/* chessrelay notation: reads games (PGN or bare movetext, any algebraic
 * notation and piece-letter language) and prints them as PGN in the chosen
 * style and language. */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cr/pgn.h"

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay notation [--lang L] [--style S] [--from-lang L] [FILE|-]\n"
                    "  L: en ru de fr es it nl; S: san fide long uci figurine\n");
    return 2;
}

int cr_cmd_notation(int argc, char **argv)
{
    cr_pgn_options opt = {.style = CR_STYLE_SAN, .lang = CR_LANG_EN, .width = 80};
    int from_lang = -1;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--lang") == 0 || strcmp(a, "--from-lang") == 0) {
            int l = cr_lang_parse(v);
            if (l < 0) {
                fprintf(stderr, "notation: unknown language '%s' (en ru de fr es it nl)\n", v ? v : "");
                return 2;
            }
            if (a[2] == 'l') {
                opt.lang = (cr_lang)l;
            } else {
                from_lang = l;
            }
            i++;
        } else if (strcmp(a, "--style") == 0) {
            int s = cr_style_parse(v);
            if (s < 0) {
                fprintf(stderr, "notation: unknown style '%s' (san fide long uci figurine)\n", v ? v : "");
                return 2;
            }
            opt.style = (cr_style)s;
            i++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage();
            return 0;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "notation: unknown option '%s'\n", a);
            return usage();
        } else if (path) {
            return usage();
        } else {
            path = a;
        }
    }
    FILE *f = stdin;
    const char *name = "-";
    if (path && strcmp(path, "-") != 0) {
        f = fopen(path, "rb");
        if (!f) {
            fprintf(stderr, "notation: cannot open %s\n", path);
            return 1;
        }
        name = path;
    }
    cr_pgn_reader *r = cr_pgn_reader_new_file(f);
    if (f != stdin) {
        fclose(f);
    }
    if (!r) {
        fprintf(stderr, "notation: %s: read error\n", name);
        return 1;
    }
    cr_pgn_reader_set_lang(r, from_lang);
    int status = 0, games = 0;
    for (;;) {
        cr_game *g = NULL;
        cr_error err;
        int rc = cr_pgn_read(r, &g, &err);
        if (rc == CR_EEOF) {
            break;
        }
        if (rc < 0) {
            fprintf(stderr, "notation: %s:%d:%d: %s\n", name, err.line, err.column, err.text);
            status = 1;
            continue;
        }
        games++;
        if (cr_pgn_write_file(g, &opt, stdout) < 0) {
            fprintf(stderr, "notation: write error\n");
            status = 1;
        }
        cr_game_free(g);
    }
    cr_pgn_reader_free(r);
    if (games == 0 && status == 0) {
        fprintf(stderr, "notation: %s: no game found\n", name);
        status = 1;
    }
    return status;
}
