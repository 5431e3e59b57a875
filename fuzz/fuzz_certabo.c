/* libFuzzer target: arbitrary bytes as what a Certabo board sent
 * (certabo.h), fed in chunks whose sizes come from the input, through the
 * codec ops with and without a calibration; also as one line to the line
 * parser (a parsed line must format back to a line that parses the same) and
 * as a calibration file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certabo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void run_codec(const cr_certabo_calibration *cal, const uint8_t *data, size_t size)
{
    cr_board_codec c;
    if (cr_board_codec_new(&c, CR_BOARD_CERTABO, cal) != 0) {
        abort();
    }
    size_t off = 0;
    while (off < size) {
        size_t chunk = 1 + data[off] % 257;
        if (chunk > size - off) {
            chunk = size - off;
        }
        (void)c.ops->feed(c.impl, data + off, chunk);
        cr_board_reading r;
        while (c.ops->next(c.impl, &r) == 1) {
            for (int i = 0; i < 64; i++) {
                int pc = r.squares[i];
                bool ok = pc == CR_NO_PIECE || pc == CR_BOARD_OCCUPIED ||
                          (cal && cr_type_of(pc) >= CR_PAWN && cr_type_of(pc) <= CR_KING && pc <= CR_BK);
                if (!ok) {
                    abort();
                }
            }
        }
        if (c.ops->pending(c.impl) > 2048) {
            abort();
        }
        off += chunk;
    }
    cr_board_codec_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_certabo_calibration cal;
    cr_certabo_emu_calibration(&cal);
    run_codec(NULL, data, size);
    run_codec(&cal, data, size);
    cr_certabo_rfid sq[64], back[64];
    bool occ, occ2;
    if (cr_certabo_parse_line((const char *)data, size, sq, &occ) == 1) {
        char line[2048];
        int n = occ ? cr_certabo_format_occupancy(line, sizeof line, sq)
                    : cr_certabo_format_line(line, sizeof line, sq);
        if (n < 2 || cr_certabo_parse_line(line, (size_t)n - 2, back, &occ2) != 1 || occ2 != occ ||
            memcmp(sq, back, sizeof sq) != 0) {
            abort();
        }
        cr_certabo_calibration learnt;
        cr_error err;
        (void)cr_certabo_calibrate(sq, &learnt, &err);
    }
    FILE *f = fmemopen((void *)data, size, "r");
    if (f) {
        cr_certabo_calibration got;
        cr_error err;
        (void)cr_certabo_calibration_read(f, &got, &err);
        if (got.n > CR_CERTABO_CAL_MAX) {
            abort();
        }
        fclose(f);
    }
    return 0;
}
