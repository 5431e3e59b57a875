/* libFuzzer target: arbitrary bytes as what a Certabo board sent
 * (certabo.h), fed in chunks whose sizes come from the input, through the
 * codec ops with and without a calibration; also as one line to the line
 * parser (a parsed line must format back to a line that parses the same) and
 * as a calibration file; and as the places where a line of the start
 * position loses, gains or changes bytes (the damaged-line reading), after
 * which three whole lines must bring the board back to the start. */
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

/* The start position's line (the emulator's RFIDs, as the board writes it)
 * and its pieces. */
static int start_line(char *out, size_t size, uint8_t want[64])
{
    static const int back[8] = {CR_ROOK, CR_KNIGHT, CR_BISHOP, CR_QUEEN,
                                CR_KING, CR_BISHOP, CR_KNIGHT, CR_ROOK};
    cr_certabo_rfid sq[64];
    memset(sq, 0, sizeof sq);
    memset(want, CR_NO_PIECE, 64);
    for (int f = 0; f < 8; f++) {
        const int at[4] = {cr_square(f, 0), cr_square(f, 1), cr_square(f, 6), cr_square(f, 7)};
        const int pc[4] = {cr_make_piece(CR_WHITE, back[f]), cr_make_piece(CR_WHITE, CR_PAWN),
                           cr_make_piece(CR_BLACK, CR_PAWN), cr_make_piece(CR_BLACK, back[f])};
        for (int k = 0; k < 4; k++) {
            cr_certabo_emu_rfid(pc[k], f, &sq[at[k]]);
            want[at[k]] = (uint8_t)pc[k];
        }
    }
    return cr_certabo_format_line(out, size, sq);
}

/* Each pair of input bytes damages the line at a place: drop a byte, add
 * one, or change one (the faults of a serial line). */
static void run_damaged(const cr_certabo_calibration *cal, const uint8_t *data, size_t size)
{
    char line[2048], bad[4096];
    uint8_t want[64];
    int n = start_line(line, sizeof line, want);
    if (n <= 0) {
        abort();
    }
    size_t len = 0;
    size_t at = 0;
    for (size_t i = 0; i + 1 < size && len + 2 < sizeof bad; i += 2) {
        size_t to = at + (size_t)(data[i] >> 2); /* the next damage, up to 63 bytes on */
        if (to > (size_t)n) {
            to = (size_t)n;
        }
        memcpy(bad + len, line + at, to - at < sizeof bad - len ? to - at : 0);
        len += to - at;
        at = to;
        switch (data[i] & 3) {
        case 0: /* lost */
            at += at < (size_t)n;
            break;
        case 1: /* stray */
            bad[len++] = (char)data[i + 1];
            break;
        default: /* changed */
            if (at < (size_t)n) {
                bad[len++] = (char)data[i + 1];
                at++;
            }
        }
    }
    if (len + ((size_t)n - at) > sizeof bad) {
        return;
    }
    memcpy(bad + len, line + at, (size_t)n - at);
    len += (size_t)n - at;
    cr_certabo_reader *r = cr_certabo_reader_new(cal);
    if (!r) {
        abort();
    }
    uint8_t sq[64], last[64];
    bool any = false;
    (void)cr_certabo_reader_feed(r, (const uint8_t *)bad, len);
    for (int k = 0; k < 3; k++) {
        (void)cr_certabo_reader_feed(r, (const uint8_t *)line, (size_t)n);
    }
    while (cr_certabo_reader_next(r, sq) == 1) {
        memcpy(last, sq, 64);
        any = true;
    }
    if (!any || memcmp(last, want, 64) != 0) {
        abort(); /* three whole lines always bring the start position */
    }
    cr_certabo_reader_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_certabo_calibration cal;
    cr_certabo_emu_calibration(&cal);
    run_codec(NULL, data, size);
    run_codec(&cal, data, size);
    run_damaged(&cal, data, size);
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
