/* libFuzzer target: the move reader on arbitrary text in a few positions and
 * every language; whatever it accepts must be a legal move that the writer
 * renders and the reader reads back to the same move. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/notation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fens[] = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "1r5k/P7/8/8/8/8/8/4K3 w - - 0 1",
    "rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 256) {
        return 0;
    }
    char *text = malloc(size);
    if (!text) {
        return 0;
    }
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    cr_position pos;
    if (cr_position_from_fen(&pos, fens[data[0] % 5], NULL) != 0) {
        abort();
    }
    for (int lang = -1; lang < CR_LANG_NB; lang++) {
        cr_san_info info;
        cr_error err;
        cr_move m = cr_move_from_text(&pos, text, lang, &info, &err);
        if (m == CR_MOVE_NONE) {
            if (err.code != CR_EMOVE && err.code != CR_EAMBIG) {
                abort();
            }
            continue;
        }
        if (!cr_is_legal(&pos, m) || info.consumed <= 0 || (size_t)info.consumed > size - 1) {
            abort();
        }
        char san[CR_SAN_MAX];
        if (cr_move_to_san(&pos, m, san, sizeof san) <= 0 ||
            cr_move_from_text(&pos, san, CR_LANG_EN, NULL, NULL) != m) {
            abort();
        }
    }
    free(text);
    return 0;
}
