/* The standard start position as 64 cr squares (a1 = 0), for the board
 * suites that build snapshots by hand (header only). */
#ifndef CR_TEST_SQUARES_H
#define CR_TEST_SQUARES_H

#include <stdint.h>
#include <string.h>

#include "cr/board.h"

static inline void cr_test_start_squares(uint8_t sq[64])
{
    static const uint8_t back[8] = {CR_WR, CR_WN, CR_WB, CR_WQ, CR_WK, CR_WB, CR_WN, CR_WR};
    memset(sq, 0, 64);
    for (int f = 0; f < 8; f++) {
        sq[f] = back[f];
        sq[8 + f] = CR_WP;
        sq[48 + f] = CR_BP;
        sq[56 + f] = (uint8_t)(back[f] | 8);
    }
}

#endif
