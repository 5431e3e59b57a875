/* libFuzzer target: the occupancy namer (cr/occupancy.h) on arbitrary
 * snapshot sequences. Each 9 input bytes are one snapshot: 8 bytes of
 * occupancy (bit = square) and one of time step; with bit 0 of the step set,
 * the start position's occupancy comes first. Named boards must hold only
 * pieces or empty squares, and a followed position must fit its snapshot. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cr/occupancy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_occ_namer *n = cr_occ_namer_new();
    if (!n) {
        abort();
    }
    int64_t t = 0;
    for (size_t off = 0; off + 9 <= size; off += 9) {
        uint64_t occ = 0;
        memcpy(&occ, data + off, 8);
        uint8_t step = data[off + 8];
        if (step & 1) {
            occ = 0xFFFF00000000FFFFull;
        }
        t += step * 16;
        uint8_t in[CR_SQ_NB], out[CR_SQ_NB], pre[CR_SQ_NB];
        for (int s = 0; s < CR_SQ_NB; s++) {
            in[s] = (occ >> s & 1) ? CR_OCCUPIED : CR_NO_PIECE;
        }
        (void)cr_occ_namer_settle(n, t, in, pre);
        int rc = cr_occ_namer_name(n, t, in, out);
        for (int s = 0; s < CR_SQ_NB; s++) {
            int p = out[s];
            if (p != CR_NO_PIECE && (cr_type_of(p) < CR_PAWN || cr_type_of(p) > CR_KING || p > CR_BK)) {
                abort();
            }
            if (rc == 1 && (p != CR_NO_PIECE) != (in[s] != CR_NO_PIECE)) {
                abort();
            }
        }
        if (rc == 1 && !cr_occ_namer_position(n)) {
            abort();
        }
    }
    cr_occ_namer_free(n);
    return 0;
}
