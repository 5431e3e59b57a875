/* chessrelay perft [--divide] FEN|startpos DEPTH: leaf count of the legal
 * move tree; with --divide one line per root move ("e2e4: 20"), then the
 * total. A check of the rules engine against published counts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "util/opts.h"
#include "cr/board.h"

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay perft [--divide] FEN|startpos DEPTH\n");
    return 2;
}

int cr_cmd_perft(int argc, char **argv)
{
    bool divide = false;
    int i = 1;
    if (i < argc && strcmp(argv[i], "--divide") == 0) {
        divide = true;
        i++;
    }
    if (argc - i != 2) {
        return usage();
    }
    const char *fen = argv[i];
    long long depth;
    if (!cr_opt_int("perft", "depth", argv[i + 1], 0, 20, "0..20", &depth)) {
        return 2;
    }
    cr_position pos;
    if (strcmp(fen, "startpos") == 0) {
        cr_position_init_start(&pos);
    } else {
        cr_error err;
        cr_error_clear(&err);
        if (cr_position_from_fen(&pos, fen, &err) != 0) {
            fprintf(stderr, "chessrelay perft: column %d: %s\n", err.column, err.text);
            return 1;
        }
    }
    if (!divide || depth == 0) {
        printf("%llu\n", (unsigned long long)cr_perft(&pos, (int)depth));
        return 0;
    }
    cr_movelist list;
    cr_generate_legal(&pos, &list);
    uint64_t total = 0;
    for (int m = 0; m < list.count; m++) {
        cr_position next = pos;
        char uci[6];
        cr_position_do_move(&next, list.moves[m]);
        uint64_t n = cr_perft(&next, (int)depth - 1);
        cr_move_to_uci(&pos, list.moves[m], uci);
        printf("%s: %llu\n", uci, (unsigned long long)n);
        total += n;
    }
    printf("\n%llu\n", (unsigned long long)total);
    return 0;
}
