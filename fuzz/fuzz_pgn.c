/* libFuzzer target: the PGN reader on arbitrary bytes. Every game it
 * returns must survive write -> read unchanged in its moves. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/pgn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16) {
        return 0;
    }
    cr_pgn_reader *r = cr_pgn_reader_new((const char *)data, size);
    if (!r) {
        return 0;
    }
    for (int games = 0; games < 64; games++) {
        cr_game *g = NULL;
        cr_error err;
        int rc = cr_pgn_read(r, &g, &err);
        if (rc == CR_EEOF) {
            break;
        }
        if (rc < 0) {
            if (g || err.line < 1 || err.column < 1) {
                abort();
            }
            continue;
        }
        char *out;
        size_t len;
        if (cr_pgn_write(g, NULL, &out, &len) == 0) {
            cr_game *back = NULL;
            if (cr_pgn_parse(out, len, CR_LANG_EN, &back, &err) != 0 ||
                cr_game_ply_count(back) != cr_game_ply_count(g)) {
                abort();
            }
            for (int i = 0; i < cr_game_ply_count(g); i++) {
                if (cr_game_ply(g, i)->move != cr_game_ply(back, i)->move) {
                    abort();
                }
            }
            cr_game_free(back);
            free(out);
        }
        cr_game_free(g);
    }
    cr_pgn_reader_free(r);
    return 0;
}
