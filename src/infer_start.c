/* Move inference: recognising a start position on the board, the standard
 * one, a given FEN's or a Chess960 one, either way round. */
#include "infer_private.h"

static bool board_equals(const uint8_t *a, const uint8_t *b)
{
    return memcmp(a, b, CR_SQ_NB) == 0;
}

/* The board turned round: square i is square 63 - i. */
static void rotate(const uint8_t *in, uint8_t *out)
{
    for (int i = 0; i < CR_SQ_NB; i++) {
        out[i] = in[63 - i];
    }
}

/* Chess960 number of a back rank by Scharnagl's scheme (518 is the
 * standard one), or -1; the caller checks it against the whole board.
 * Computed directly: the library's cr_chess960_index tries all 960. */
static int scharnagl(const uint8_t *b)
{
    int light = -1, dark = -1, queen = -1, kn[2], nk = 0, free_i = 0;
    for (int f = 0; f < 8; f++) {
        if (b[f] == CR_WB) {
            if (f & 1) {
                light = (f - 1) / 2;
            } else {
                dark = f / 2;
            }
        }
    }
    if (light < 0 || dark < 0) {
        return -1;
    }
    for (int f = 0; f < 8; f++) {
        if (b[f] == CR_WB) {
            continue;
        }
        if (b[f] == CR_WQ) {
            queen = free_i;
        }
        free_i++;
    }
    free_i = 0;
    for (int f = 0; f < 8; f++) {
        if (b[f] == CR_WB || b[f] == CR_WQ) {
            continue;
        }
        if (b[f] == CR_WN && nk < 2) {
            kn[nk++] = free_i;
        }
        free_i++;
    }
    if (queen < 0 || nk != 2) {
        return -1;
    }
    static const int first[4] = {0, 4, 7, 9}; /* codes of pairs (a, a+1..4) */
    int code = first[kn[0]] + (kn[1] - kn[0] - 1);
    return light + 4 * dark + 16 * queen + 96 * code;
}

bool cr_infer__recognise_start(cr_infer *inf, cr_position *pos, bool *rotated)
{
    static const uint8_t empty_middle[32];
    if (!inf->have_fen && memcmp(inf->raw + 16, empty_middle, sizeof empty_middle) != 0) {
        return false; /* ranks 3 to 6 hold a piece: no start position (checked per snapshot) */
    }
    uint8_t rot[CR_SQ_NB];
    rotate(inf->raw, rot);
    if (inf->have_fen) {
        if (board_equals(inf->raw, inf->fen_start.board) || board_equals(rot, inf->fen_start.board)) {
            *pos = inf->fen_start;
            *rotated = !board_equals(inf->raw, inf->fen_start.board);
            return true;
        }
    }
    const cr_position *std = &inf->std_start;
    if (board_equals(inf->raw, std->board) || board_equals(rot, std->board)) {
        *pos = *std;
        *rotated = !board_equals(inf->raw, std->board);
        return true;
    }
    /* Chess960: only a full set on ranks 1, 2, 7 and 8 can be one. */
    cr_bb occ = 0;
    for (int i = 0; i < CR_SQ_NB; i++) {
        occ |= (cr_bb)(inf->raw[i] != 0) << i;
    }
    if (occ != 0xFFFF00000000FFFFull) {
        return false;
    }
    for (int r = 0; r < 2; r++) {
        const uint8_t *b = r ? rot : inf->raw;
        int n = scharnagl(b);
        if (n >= 0 && cr_position_init_960(pos, n) == 0 && board_equals(b, pos->board)) {
            *rotated = r;
            return true;
        }
    }
    return false;
}
