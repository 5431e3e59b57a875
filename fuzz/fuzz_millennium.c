/* libFuzzer target: arbitrary bytes as what a Millennium ChessLink board
 * sent (millennium.h), fed in chunks whose sizes come from the input, through
 * the codec ops; also as host commands to the emulator. Every snapshot must
 * hold only pieces (a ChessLink board knows every piece), the parser must
 * never hold more than its cap, every decoded status must re-encode to the
 * same frame, and counters only grow. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "millennium.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_board_codec c;
    if (cr_board_codec_new(&c, CR_BOARD_MILLENNIUM, NULL) != 0) {
        abort();
    }
    cr_mln_parser *p = cr_mln_parser_new(true);
    cr_mln_emu *e = cr_mln_emu_new();
    if (!p || !e) {
        abort();
    }
    cr_board_codec_health before = c.ops->health(c.impl);
    size_t off = 0;
    while (off < size) {
        size_t chunk = 1 + data[off] % 131;
        if (chunk > size - off) {
            chunk = size - off;
        }
        (void)c.ops->feed(c.impl, data + off, chunk);
        cr_board_reading r;
        while (c.ops->next(c.impl, &r) == 1) {
            if (r.kind != CR_READING_SNAPSHOT) {
                abort();
            }
            for (int i = 0; i < 64; i++) {
                int pc = r.squares[i];
                if (pc != 0 && (cr_type_of(pc) < CR_PAWN || cr_type_of(pc) > CR_KING || pc > CR_BK)) {
                    abort();
                }
            }
        }
        if (c.ops->pending(c.impl) > 4096) {
            abort();
        }
        (void)cr_mln_parser_feed(p, data + off, chunk);
        cr_mln_msg m;
        while (cr_mln_parser_next(p, &m) == 1) {
            uint8_t sq[64], again[80];
            if (m.letter == 's' && cr_mln_status_squares(&m, sq) == 0) {
                if (cr_mln_encode_status(again, sizeof again, sq) != 67) {
                    abort();
                }
                for (int i = 0; i < 64; i++) {
                    if ((again[1 + i] & 0x7F) != m.data[i]) {
                        abort();
                    }
                }
            }
        }
        cr_mln_emu_input(e, (int64_t)off, data + off, chunk);
        uint8_t out[256];
        while (cr_mln_emu_take_output(e, out, sizeof out) > 0) {
        }
        off += chunk;
    }
    cr_board_codec_health after = c.ops->health(c.impl);
    if (after.frames < before.frames || after.resyncs < before.resyncs || after.has_clock) {
        abort();
    }
    cr_mln_emu_free(e);
    cr_mln_parser_free(p);
    cr_board_codec_free(&c);
    return 0;
}
