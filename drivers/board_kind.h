/* chessrelay drivers: the board interface shared by every kind of e-board.
 *
 * Every board chessrelay reads gives the same thing: a snapshot of the 64
 * squares, sometimes a clock reading. A kind of board is three parts:
 *
 * - a codec (cr_board_codec_ops): bytes in; snapshots, clock readings and
 *   health counters out. Pure: no I/O, no clock, no allocation beyond the
 *   codec object. Garbage and broken frames are skipped and counted.
 * - a prober (in the same ops): the bytes a host sends to ask "are you this
 *   kind?" and a test that recognises the reply in what came back.
 * - the serial settings its transport needs (baud rate; the serial and USB
 *   transports themselves, serial.h and dgt_usb.h, are shared by kinds).
 *
 * DGT (dgt.h, dgt_board.h), Millennium ChessLink (millennium.h) and Certabo
 * (certabo.h) implement it. Snapshots use cr squares (a1 = 0) in the board's
 * own orientation and cr pieces, plus CR_BOARD_OCCUPIED for a square a board
 * knows is occupied without knowing by what (an uncalibrated Certabo).
 *
 * Ownership: cr_board_codec_new returns a codec object, free it with
 * cr_board_codec_free. The ops tables are static. */
#ifndef CR_DRIVERS_BOARD_KIND_H
#define CR_DRIVERS_BOARD_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "cr/board.h"
#include "cr/common.h"
#include "cr/occupancy.h"

/* A square that holds a piece of unknown identity (cr/occupancy.h). */
#define CR_BOARD_OCCUPIED CR_OCCUPIED

typedef enum cr_board_kind {
    CR_BOARD_AUTO = 0, /* not known yet: probe for it */
    CR_BOARD_DGT,
    CR_BOARD_MILLENNIUM,
    CR_BOARD_CERTABO,
    CR_BOARD_KIND_NB
} cr_board_kind;

/* "dgt", "millennium", "certabo", "auto". */
const char *cr_board_kind_name(cr_board_kind k);
/* The inverse; returns 0 with *out set, or CR_EINVAL. */
int cr_board_kind_parse(const char *s, cr_board_kind *out);

typedef enum cr_board_reading_kind {
    CR_READING_SNAPSHOT = 1, /* squares */
    CR_READING_CLOCK         /* white_ms, black_ms, running */
} cr_board_reading_kind;

typedef struct cr_board_reading {
    cr_board_reading_kind kind;
    uint8_t squares[64];       /* cr squares, a1 = 0: cr pieces or CR_BOARD_OCCUPIED */
    int32_t white_ms, black_ms;
    int running;               /* CR_WHITE, CR_BLACK, CR_CLOCK_STOPPED */
} cr_board_reading;

typedef struct cr_board_codec_health {
    uint64_t frames;       /* complete frames decoded */
    uint64_t snapshots;    /* snapshots given out */
    uint64_t bad_frames;   /* frames dropped: check digits, parity, bad contents */
    uint64_t resyncs;      /* times the stream had to be resynchronised */
    uint64_t skipped;      /* bytes dropped while resynchronising */
    bool has_clock;        /* the kind can report a clock */
    /* The board answered that it will not report changes by itself (a
     * Millennium board whose EEPROM echo kept another report mode): the
     * link asks for a snapshot this often instead (0: not needed). */
    int poll_ms;
} cr_board_codec_health;

/* How the serial transport opens a port for a kind. */
typedef struct cr_serial_settings {
    int baud;              /* 9600, 38400 */
} cr_serial_settings;

typedef struct cr_board_codec_ops {
    cr_board_kind kind;
    const char *name;
    cr_serial_settings serial;
    /* Codec object: NULL when out of memory. params is kind specific and may
     * be NULL (Certabo: a calibration, see certabo.h). */
    void *(*create)(const void *params);
    void (*destroy)(void *c);
    /* Appends bytes; returns 0 or CR_ENOMEM (buffer cap reached: the codec
     * then forgets what it held and counts a resync). */
    int (*feed)(void *c, const uint8_t *bytes, size_t len);
    /* 1 with *out filled, 0 when more bytes are needed. */
    int (*next)(void *c, cr_board_reading *out);
    /* Forgets buffered bytes (link down); keeps the counters. */
    void (*reset)(void *c);
    cr_board_codec_health (*health)(const void *c);
    /* Bytes of a frame begun but not complete. */
    size_t (*pending)(const void *c);
    /* Prober: writes the probe request (0 bytes: the board talks unasked). */
    int (*probe_request)(uint8_t *out, size_t size);
    /* Whether bytes (all received since the probe went out) hold a reply of
     * this kind: 1 yes, 0 not (yet). */
    int (*probe_match)(const uint8_t *bytes, size_t len);
    /* Commands that put a board in reporting mode after it was recognised,
     * and the request for a snapshot now (0 bytes: none needed). */
    int (*encode_start)(uint8_t *out, size_t size);
    int (*encode_poll)(uint8_t *out, size_t size);
} cr_board_codec_ops;

/* The ops of a kind (NULL for AUTO or out of range). */
const cr_board_codec_ops *cr_board_codec_ops_get(cr_board_kind k);

/* A codec object with its ops. */
typedef struct cr_board_codec {
    const cr_board_codec_ops *ops;
    void *impl;
} cr_board_codec;

/* Returns 0 with c filled, CR_EINVAL (AUTO/unknown kind) or CR_ENOMEM. */
int cr_board_codec_new(cr_board_codec *c, cr_board_kind k, const void *params);
void cr_board_codec_free(cr_board_codec *c); /* accepts an empty one */

/* Per-board codec parameters found by the board's id, for
 * cr_board_link_config.codec_params (cr_board_params_get, its data a
 * cr_board_params): a kind that has some (Certabo: its calibration tables,
 * certabo.h) looks in a state folder, then in one file for every board;
 * other kinds, and boards with none, get NULL. So a board's user need not
 * know which kinds take parameters.
 * Ownership: cr_board_params_new copies dir and file (either may be NULL)
 * and returns NULL when out of memory; cr_board_params_free frees. */
typedef struct cr_board_params cr_board_params;
cr_board_params *cr_board_params_new(const char *dir, const char *file);
void cr_board_params_free(cr_board_params *p); /* accepts NULL */
const void *cr_board_params_get(void *data, cr_board_kind kind, const char *id);

/* USB identities of boards (for enumeration and the udev rules). */
typedef struct cr_board_usb_id {
    uint16_t vid, pid;
    cr_board_kind kind;    /* AUTO: a generic adapter several kinds use, probe */
    const char *what;
} cr_board_usb_id;

/* The table (terminated by a zero vid) and a look-up (NULL if unknown). */
const cr_board_usb_id *cr_board_usb_ids(void);
const cr_board_usb_id *cr_board_usb_find(uint16_t vid, uint16_t pid);

/* Bytes an emulator (board_emu.h) has to send: a bounded FIFO. Encoders
 * write at the tail (cr_board_outq_tail gives the room) and commit. */
typedef struct cr_board_outq {
    uint8_t *buf;
    size_t len, cap;
} cr_board_outq;

int cr_board_outq_init(cr_board_outq *q, size_t cap); /* 0 or CR_ENOMEM */
void cr_board_outq_free(cr_board_outq *q);
uint8_t *cr_board_outq_tail(cr_board_outq *q, size_t *room);
void cr_board_outq_commit(cr_board_outq *q, size_t n);
/* Moves up to max bytes from the head to out; returns how many. */
size_t cr_board_outq_take(cr_board_outq *q, uint8_t *out, size_t max);

/* The FEN-like letter of a snapshot square ('?' for CR_BOARD_OCCUPIED,
 * '.' for empty) and the inverse (-1 for a bad letter). */
char cr_board_square_char(int piece);
int cr_board_square_from_char(char c);

#endif
