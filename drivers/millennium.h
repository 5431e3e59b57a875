/* chessrelay drivers: Millennium ChessLink / eONE boards (the "Chess Link"
 * protocol), codec and emulator.
 *
 * Wire: 38400 baud, 7 data bits, odd parity, 1 stop. We open the port 8N1
 * and do the parity here: the 8th data bit of an 8N1 frame sits exactly where
 * the parity bit of a 7O1 frame does, so the bits on the wire are the same,
 * and the codec can see (and count) a parity error, which a driver doing 7O1
 * would hide or turn into a 0 byte (docs/boards.md). Every byte sent gets
 * its odd parity bit in bit 7. A frame received must have odd parity in
 * every byte, or be plain 7-bit ASCII in every byte (bit 7 clear, no
 * parity), as Bluetooth bridges and several board firmwares send it; the
 * block check guards the plain form.
 *
 * A message is a command letter, its data as ASCII, then a block check: the
 * XOR of the 7-bit characters before it, as 2 upper-case hex digits. Board
 * replies start with the command's letter in lower case; a status is
 * 's' + 64 squares (a8..h8, a7..h7, ..., a1..h1; "KQRNBPkqrnbp" or '.') +
 * check. A frame with a bad check, a parity error or an unknown letter is
 * dropped and the stream resynchronised at the next reply letter.
 *
 * Ownership: cr_millennium_parser_new / cr_millennium_emu_new return new
 * objects, freed with the matching _free. */
#ifndef CR_DRIVERS_MILLENNIUM_H
#define CR_DRIVERS_MILLENNIUM_H

#include "board_kind.h"

extern const cr_board_codec_ops cr_millennium_ops;

/* EEPROM addresses the relay writes (board option bytes). */
enum {
    CR_MLN_EE_SERIAL = 0x00,  /* b0: block check disabled */
    CR_MLN_EE_SCAN = 0x01,    /* scan time in 2.048 ms units, 15..255 (default 20) */
    CR_MLN_EE_REPORTS = 0x02, /* automatic reports, b2..b0 */
    CR_MLN_EE_REPORT_TIME = 0x03
};

/* Automatic report modes (EEPROM 0x02). */
enum {
    CR_MLN_REPORT_EVERY_SCAN = 0,
    CR_MLN_REPORT_OFF = 1,
    CR_MLN_REPORT_TIMED = 2,
    CR_MLN_REPORT_CHANGE = 3,
    CR_MLN_REPORT_CHANGE_DEBOUNCE2 = 4 /* ... 7: debounce over 2..5 scans */
};

/* The settings the relay writes on connect: on change, debounced over 2
 * scans, scanning every 20 x 2.048 ms = 41 ms (the board's default). */
#define CR_MLN_SCAN_UNITS 20
#define CR_MLN_REPORT_MODE CR_MLN_REPORT_CHANGE_DEBOUNCE2
/* A board whose EEPROM echo shows it kept reports off or timed (it refused
 * on-change reports) is asked for its status this often (ms). */
#define CR_MLN_POLL_MS 100

/* Odd parity in bit 7 of a 7-bit character; whether a byte has odd parity. */
uint8_t cr_mln_parity(uint8_t c7);
bool cr_mln_parity_ok(uint8_t byte);

/* Encodes one message: letter, data (7-bit ASCII), check digits, each byte
 * with its parity bit. Returns the length, CR_ENOSPC or CR_EINVAL. */
int cr_mln_encode(uint8_t *out, size_t size, char letter, const char *data, size_t len);
/* Host commands. */
int cr_mln_encode_status_request(uint8_t *out, size_t size);          /* S */
int cr_mln_encode_version_request(uint8_t *out, size_t size);         /* V */
int cr_mln_encode_eeprom_write(uint8_t *out, size_t size, int addr, int value); /* W */
/* The connect sequence: scan time, report mode, then a status request. */
int cr_mln_encode_start(uint8_t *out, size_t size);
/* Board replies (emulator, tests): status from cr squares (a1 = 0). */
int cr_mln_encode_status(uint8_t *out, size_t size, const uint8_t squares[64]);

/* A decoded message (either direction). */
typedef struct cr_mln_msg {
    char letter;         /* as received: 's', 'v', 'S', 'W', ... */
    char data[200];      /* 7-bit characters, NUL-terminated, check excluded */
    size_t len;
} cr_mln_msg;

typedef struct cr_mln_parser cr_mln_parser;

typedef struct cr_mln_stats {
    uint64_t frames, bad_frames, parity_errors, resyncs, skipped;
    uint64_t plain_frames; /* of frames: sent as plain 7-bit ASCII, no parity bit */
} cr_mln_stats;

/* host: true to decode what a board sends (s v w r l x), false for what a
 * host sends (S V W R L X T), as the emulator does. NULL when out of memory. */
cr_mln_parser *cr_mln_parser_new(bool host);
void cr_mln_parser_free(cr_mln_parser *p);
void cr_mln_parser_reset(cr_mln_parser *p);
/* Returns 0 or CR_ENOMEM (more than 4096 bytes pending: dropped, resync). */
int cr_mln_parser_feed(cr_mln_parser *p, const uint8_t *bytes, size_t len);
/* 1 with msg filled, 0 when more bytes are needed. */
int cr_mln_parser_next(cr_mln_parser *p, cr_mln_msg *msg);
cr_mln_stats cr_mln_parser_stats(const cr_mln_parser *p);
size_t cr_mln_parser_pending(const cr_mln_parser *p);

/* A status message's squares as cr squares: 0, or CR_EPROTO for a bad one. */
int cr_mln_status_squares(const cr_mln_msg *m, uint8_t squares[64]);

/*----- Emulator (board side): pure, like dgt_emu.h -----*/

typedef struct cr_mln_emu cr_mln_emu;

cr_mln_emu *cr_mln_emu_new(void);
/* Sends every byte as plain 7-bit ASCII (bit 7 clear, no parity), as
 * Bluetooth bridges and several board firmwares do. */
void cr_mln_emu_set_seven_bit(cr_mln_emu *e, bool on);
/* Keeps automatic reports off whatever the host writes to EEPROM 02 (as
 * some firmwares do); the write's echo then carries the value kept. */
void cr_mln_emu_set_refuse_reports(cr_mln_emu *e, bool on);
void cr_mln_emu_free(cr_mln_emu *e);
/* Host bytes: answers S V W R L X; T resets (no reply). */
void cr_mln_emu_input(cr_mln_emu *e, int64_t now, const uint8_t *bytes, size_t len);
/* The board now shows squares (cr squares): reported as the EEPROM's report
 * mode says (on change: at once; every scan: from tick). */
void cr_mln_emu_set_squares(cr_mln_emu *e, int64_t now, const uint8_t squares[64]);
void cr_mln_emu_tick(cr_mln_emu *e, int64_t now);
void cr_mln_emu_set_muted(cr_mln_emu *e, bool muted);
/* Power cycle: pending input and output forgotten; the EEPROM stays. */
void cr_mln_emu_power_up(cr_mln_emu *e);
size_t cr_mln_emu_take_output(cr_mln_emu *e, uint8_t *out, size_t max);
/* The host set an on-change report mode or asked for a status since power-up. */
bool cr_mln_emu_host_ready(const cr_mln_emu *e);
int cr_mln_emu_eeprom(const cr_mln_emu *e, int addr);

#endif
