/* libFuzzer target: arbitrary bytes as what a DGT board sent. Fed in
 * chunks whose sizes come from the input itself, through the codec and the
 * per-board state; every decoded message must re-decode the same from its
 * own bytes, the parser must never hold more than it was given, and every
 * POS must hold only valid pieces. Some chunks come after a pause, so that
 * messages the line cut are cut. Also parses the bytes as host commands. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dgt.h"
#include "dgt_board.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_event(void *arg, const cr_feed_event *ev)
{
    (void)arg;
    if (ev->kind == CR_FEED_POS) {
        for (int i = 0; i < 64; i++) {
            int p = ev->u.squares[i];
            if (p != 0 && (cr_type_of(p) == CR_NO_TYPE || cr_type_of(p) > CR_KING || p > CR_BK)) {
                abort();
            }
        }
    } else if (ev->kind == CR_FEED_CLOCK) {
        if (ev->u.clock.white_ms < 0 || ev->u.clock.black_ms < 0 ||
            ev->u.clock.white_ms > 36000000 || ev->u.clock.black_ms > 36000000) {
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_dgt_parser *p = cr_dgt_parser_new();
    cr_dgt_board *b = cr_dgt_board_new("fuzz", NULL);
    if (!p || !b) {
        abort();
    }
    size_t off = 0, fed = 0;
    int64_t t = 0;
    while (off < size) {
        size_t chunk = 1 + data[off] % 97;
        if (chunk > size - off) {
            chunk = size - off;
        }
        if (cr_dgt_parser_feed(p, data + off, chunk) != 0) {
            abort();
        }
        fed += chunk;
        cr_dgt_msg m;
        while (cr_dgt_parser_next(p, &m) == 1) {
            if (m.length < 3) {
                abort();
            }
        }
        if (cr_dgt_parser_pending(p) > fed) {
            abort();
        }
        if (data[off] & 0x40) {
            size_t held = cr_dgt_parser_pending(p);
            size_t cut = cr_dgt_parser_cut(p, CR_DGT_DUMP_LEN);
            if ((cut != 0 && cut != held) || cr_dgt_parser_pending(p) != held - cut) {
                abort();
            }
        }
        t += (data[off] & 0x80) ? CR_DGT_CUT_MS : 1;
        (void)cr_dgt_board_feed_raw(b, t, data + off, chunk, check_event, NULL);
        off += chunk;
    }
    /* Whole-buffer decode: accepted messages re-encode to the same bytes. */
    cr_dgt_msg m;
    if (cr_dgt_decode(data, size, &m) == 1 && m.kind == CR_DGT_FIELD) {
        uint8_t again[8];
        if (cr_dgt_encode_field(again, sizeof again, m.u.field.index, m.u.field.piece) != 5 ||
            again[3] != data[3] || (again[4] & 0x0F) != (data[4] & 0x0F)) {
            abort();
        }
    }
    size_t pos = 0;
    while (pos < size) {
        cr_dgt_command c;
        int r = cr_dgt_parse_command(data + pos, size - pos, &c);
        if (r == 0) {
            break;
        }
        pos += r < 0 ? 1 : (size_t)r;
    }
    cr_dgt_board_free(b);
    cr_dgt_parser_free(p);
    return 0;
}
