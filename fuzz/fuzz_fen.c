/* libFuzzer target: arbitrary bytes as a FEN. Whatever is accepted must be
 * consistent, survive a to_fen/from_fen round trip unchanged, and every
 * legal move must lead to a consistent position. Rejections must come with
 * a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[256];
    if (size >= sizeof text) {
        size = sizeof text - 1;
    }
    memcpy(text, data, size);
    text[size] = '\0';

    cr_position pos;
    cr_error err;
    cr_error_clear(&err);
    if (cr_position_from_fen(&pos, text, &err) != 0) {
        if (err.code != CR_EFEN || err.text[0] == '\0') {
            abort();
        }
        return 0;
    }
    if (!cr_position_ok(&pos)) {
        abort();
    }
    char fen[CR_FEN_MAX], fen2[CR_FEN_MAX];
    if (cr_position_to_fen(&pos, fen, sizeof fen) < 0) {
        abort();
    }
    cr_position back;
    if (cr_position_from_fen(&back, fen, &err) != 0 || back.key != pos.key ||
        memcmp(back.board, pos.board, sizeof pos.board) != 0 ||
        cr_position_to_fen(&back, fen2, sizeof fen2) < 0 || strcmp(fen, fen2) != 0) {
        abort();
    }
    cr_movelist list;
    int n = cr_generate_legal(&pos, &list);
    if (n != cr_count_legal(&pos)) {
        abort();
    }
    for (int i = 0; i < n; i++) {
        cr_position next = pos;
        char uci[6];
        cr_move_to_uci(&pos, list.moves[i], uci);
        if (cr_move_from_uci(&pos, uci) != list.moves[i]) {
            abort();
        }
        cr_position_do_move(&next, list.moves[i]);
        if (!cr_position_ok(&next) || next.key != cr_position_compute_key(&next)) {
            abort();
        }
        (void)cr_position_status(&next);
    }
    return 0;
}
