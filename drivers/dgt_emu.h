/* chessrelay drivers: a DGT board with a DGT 3000 clock, emulated (board side).
 *
 * Pure state machine, no I/O: host command bytes go in with
 * cr_dgt_emu_input(), board messages come out of cr_dgt_emu_take_output().
 * It answers SEND_RESET, SEND_CLK, SEND_BRD, the update modes, serial numbers,
 * bus address, trademark, version, battery, EE moves (its event log), bus mode
 * (then silent), clock wrapper commands (acked in UPDATE / UPDATE_NICE;
 * SETNRUN sets the clock) and LEDs (no reply). Powers up in bus mode, as a
 * real board: the first single-board command switches it to IDLE.
 *
 * Time is the caller's (ms, any origin, non-decreasing): the clock runs down
 * between readings. Positions are cr squares (a1 = 0); changes are sent as
 * field updates (emptied squares first, then the placed ones) in the update
 * modes. While muted (link down) nothing is sent; unmuting sends the squares
 * changed meanwhile. Like a real board it logs every field change (emptied
 * squares first; quick when under 250 ms after the last), BEGINPOS when a
 * start position stands, both clock times when the lever moves, POWERUP at
 * power-up, muted or not, in a cyclic 0x1F00-byte log that SEND_EE_MOVES
 * returns (oldest first, then EOF).
 *
 * Ownership: cr_dgt_emu_new returns a new object, free with cr_dgt_emu_free. */
#ifndef CR_DRIVERS_DGT_EMU_H
#define CR_DRIVERS_DGT_EMU_H

#include "dgt_board.h"

typedef enum cr_dgt_emu_mode {
    CR_EMU_BUS = 0,
    CR_EMU_IDLE,
    CR_EMU_UPDATE,
    CR_EMU_UPDATE_BRD,
    CR_EMU_UPDATE_NICE
} cr_dgt_emu_mode;

typedef struct cr_dgt_emu_config {
    const char *serial;       /* default "00001" (copied) */
    const char *long_serial;  /* default "3000000001" */
    int version_major, version_minor; /* default 1.7 */
    bool no_clock;            /* no clock attached: BWTIME says so */
    cr_dgt_white_side white_side; /* colour -> clock side rule, as the reader uses */
} cr_dgt_emu_config;

typedef struct cr_dgt_emu cr_dgt_emu;

cr_dgt_emu *cr_dgt_emu_new(const cr_dgt_emu_config *cfg); /* cfg may be NULL */
void cr_dgt_emu_free(cr_dgt_emu *e);                       /* accepts NULL */

void cr_dgt_emu_input(cr_dgt_emu *e, int64_t now, const uint8_t *bytes, size_t len);
/* The board now shows squares: field updates for the changes (update modes). */
void cr_dgt_emu_set_squares(cr_dgt_emu *e, int64_t now, const uint8_t squares[64]);
/* The clock shows these times at `now`, the running colour's time falling. */
void cr_dgt_emu_set_clock(cr_dgt_emu *e, int64_t now, int32_t white_ms, int32_t black_ms,
                          int running);
/* Time passes: in UPDATE mode a clock reading goes out every second. */
void cr_dgt_emu_tick(cr_dgt_emu *e, int64_t now);
/* Link down (muted: nothing is answered or sent) / up again. */
void cr_dgt_emu_set_muted(cr_dgt_emu *e, bool muted);
/* Power cycle: bus mode, pending input forgotten, the host knows nothing. */
void cr_dgt_emu_power_up(cr_dgt_emu *e);

/* Moves up to max output bytes to out; returns how many. */
size_t cr_dgt_emu_take_output(cr_dgt_emu *e, uint8_t *out, size_t max);
size_t cr_dgt_emu_pending_output(const cr_dgt_emu *e);
cr_dgt_emu_mode cr_dgt_emu_mode_get(const cr_dgt_emu *e);
/* Commands received so far (all kinds). */
uint64_t cr_dgt_emu_commands(const cr_dgt_emu *e);

#endif
