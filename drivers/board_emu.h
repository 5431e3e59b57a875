/* chessrelay drivers: an emulated board of any kind (board side), for
 * `chessrelay emulate`: one interface over the DGT (dgt_emu.h), Millennium
 * (millennium.h) and Certabo (certabo.h) emulators.
 *
 * Pure, no I/O: host bytes in, board bytes out. "Host ready" is the moment
 * the emulated game may start: DGT, an update mode was selected; Millennium,
 * an on-change report mode was written or a status asked for; Certabo, the
 * host sent an LED command (the link sends "LEDs off" when it starts).
 *
 * Ownership: cr_board_emu_new returns a new object, free with cr_board_emu_free. */
#ifndef CR_DRIVERS_BOARD_EMU_H
#define CR_DRIVERS_BOARD_EMU_H

#include "board_kind.h"
#include "dgt_emu.h"

typedef struct cr_board_emu_config {
    cr_board_kind kind;          /* DGT, MILLENNIUM or CERTABO */
    cr_dgt_emu_config dgt;       /* DGT: serial number, version, clock sides */
    bool occupancy;              /* Certabo: occupancy-only board (8 numbers) */
    int period_ms;               /* Certabo: a line this often (real ms; 0: 20) */
    bool seven_bit;              /* Millennium: plain 7-bit ASCII, no parity bit */
    bool refuse_reports;         /* Millennium: keeps automatic reports off whatever is written */
} cr_board_emu_config;

typedef struct cr_board_emu cr_board_emu;

/* NULL when out of memory or for a bad kind. */
cr_board_emu *cr_board_emu_new(const cr_board_emu_config *cfg);
void cr_board_emu_free(cr_board_emu *e);
cr_board_kind cr_board_emu_kind(const cr_board_emu *e);

void cr_board_emu_input(cr_board_emu *e, int64_t now, const uint8_t *bytes, size_t len);
void cr_board_emu_set_squares(cr_board_emu *e, int64_t now, const uint8_t squares[64]);
/* Only DGT boards have a clock: the others ignore it. */
void cr_board_emu_set_clock(cr_board_emu *e, int64_t now, int32_t white_ms, int32_t black_ms,
                            int running);
/* Feed time passes (DGT clock readings, Millennium's every-scan mode). */
void cr_board_emu_tick(cr_board_emu *e, int64_t now);
/* Real time passes (Certabo's stream of lines). */
void cr_board_emu_stream(cr_board_emu *e, int64_t real_ms);
/* Whether the kind streams by itself (the caller then calls _stream often). */
bool cr_board_emu_streams(const cr_board_emu *e);
void cr_board_emu_set_muted(cr_board_emu *e, bool muted);
void cr_board_emu_power_up(cr_board_emu *e);
size_t cr_board_emu_take_output(cr_board_emu *e, uint8_t *out, size_t max);
bool cr_board_emu_host_ready(const cr_board_emu *e);

#endif
