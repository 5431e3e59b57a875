/* One interface over the board emulators: see board_emu.h. */
#include "board_emu.h"

#include <stdlib.h>

#include "certabo.h"
#include "millennium.h"

struct cr_board_emu {
    cr_board_kind kind;
    cr_dgt_emu *dgt;
    cr_mln_emu *mln;
    cr_certabo_emu *cb;
};

cr_board_emu *cr_board_emu_new(const cr_board_emu_config *cfg)
{
    cr_board_emu *e = calloc(1, sizeof *e);
    if (!e) {
        return NULL;
    }
    e->kind = cfg->kind;
    switch (cfg->kind) {
    case CR_BOARD_DGT: e->dgt = cr_dgt_emu_new(&cfg->dgt); break;
    case CR_BOARD_MILLENNIUM:
        e->mln = cr_mln_emu_new();
        if (e->mln) {
            cr_mln_emu_set_seven_bit(e->mln, cfg->seven_bit);
            cr_mln_emu_set_refuse_reports(e->mln, cfg->refuse_reports);
        }
        break;
    case CR_BOARD_CERTABO:
        e->cb = cr_certabo_emu_new(cfg->occupancy, cfg->period_ms > 0 ? cfg->period_ms : 20);
        break;
    default: break;
    }
    if (!e->dgt && !e->mln && !e->cb) {
        free(e);
        return NULL;
    }
    return e;
}

void cr_board_emu_free(cr_board_emu *e)
{
    if (e) {
        cr_dgt_emu_free(e->dgt);
        cr_mln_emu_free(e->mln);
        cr_certabo_emu_free(e->cb);
        free(e);
    }
}

cr_board_kind cr_board_emu_kind(const cr_board_emu *e)
{
    return e->kind;
}

void cr_board_emu_input(cr_board_emu *e, int64_t now, const uint8_t *bytes, size_t len)
{
    if (e->dgt) {
        cr_dgt_emu_input(e->dgt, now, bytes, len);
    } else if (e->mln) {
        cr_mln_emu_input(e->mln, now, bytes, len);
    } else {
        cr_certabo_emu_input(e->cb, bytes, len);
    }
}

void cr_board_emu_set_squares(cr_board_emu *e, int64_t now, const uint8_t squares[64])
{
    if (e->dgt) {
        cr_dgt_emu_set_squares(e->dgt, now, squares);
    } else if (e->mln) {
        cr_mln_emu_set_squares(e->mln, now, squares);
    } else {
        cr_certabo_emu_set_squares(e->cb, squares);
    }
}

void cr_board_emu_set_clock(cr_board_emu *e, int64_t now, int32_t white_ms, int32_t black_ms,
                            int running)
{
    if (e->dgt) {
        cr_dgt_emu_set_clock(e->dgt, now, white_ms, black_ms, running);
    }
}

void cr_board_emu_tick(cr_board_emu *e, int64_t now)
{
    if (e->dgt) {
        cr_dgt_emu_tick(e->dgt, now);
    } else if (e->mln) {
        cr_mln_emu_tick(e->mln, now);
    }
}

void cr_board_emu_stream(cr_board_emu *e, int64_t real_ms)
{
    if (e->cb) {
        cr_certabo_emu_tick(e->cb, real_ms);
    }
}

bool cr_board_emu_streams(const cr_board_emu *e)
{
    return e->cb != NULL;
}

void cr_board_emu_set_muted(cr_board_emu *e, bool muted)
{
    if (e->dgt) {
        cr_dgt_emu_set_muted(e->dgt, muted);
    } else if (e->mln) {
        cr_mln_emu_set_muted(e->mln, muted);
    } else {
        cr_certabo_emu_set_muted(e->cb, muted);
    }
}

void cr_board_emu_power_up(cr_board_emu *e)
{
    if (e->dgt) {
        cr_dgt_emu_power_up(e->dgt);
    } else if (e->mln) {
        cr_mln_emu_power_up(e->mln);
    } else {
        cr_certabo_emu_power_up(e->cb);
    }
}

size_t cr_board_emu_take_output(cr_board_emu *e, uint8_t *out, size_t max)
{
    if (e->dgt) {
        return cr_dgt_emu_take_output(e->dgt, out, max);
    }
    if (e->mln) {
        return cr_mln_emu_take_output(e->mln, out, max);
    }
    return cr_certabo_emu_take_output(e->cb, out, max);
}

bool cr_board_emu_host_ready(const cr_board_emu *e)
{
    if (e->dgt) {
        cr_dgt_emu_mode m = cr_dgt_emu_mode_get(e->dgt);
        return m == CR_EMU_UPDATE || m == CR_EMU_UPDATE_NICE || m == CR_EMU_UPDATE_BRD;
    }
    if (e->mln) {
        return cr_mln_emu_host_ready(e->mln);
    }
    return cr_certabo_emu_host_ready(e->cb);
}
