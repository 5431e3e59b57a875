/* chessrelay drivers: Certabo boards, codec, calibration and emulator.
 *
 * Wire: a CP210x USB serial adapter (10C4:EA60) at 38400 baud 8N1. The board
 * streams lines by itself, several a second: ':' then 320 decimal numbers
 * separated by spaces, then CRLF. Each square has 5 numbers, the RFID of the
 * piece on it (all 0 when empty), squares in the order a8..h8, a7..h7, ...,
 * a1..h1. Boards without piece recognition send 8 numbers instead, one per
 * rank from rank 8 down, bit 7 = a-file ... bit 0 = h-file set when occupied
 * (that bit order is our reading of the sources, unconfirmed on hardware).
 *
 * RFIDs are read with noise: a square's value is taken once it was seen in at
 * least 2 of the last 3 frames (majority vote), else the previous one stays.
 * A snapshot goes out when the voted board changed.
 *
 * Pieces come from a calibration: the table RFID -> piece learnt from a start
 * position plus a spare queen of each colour (white on d3, black on d6), see
 * cr_certabo_calibrate(). Without one, and on an occupancy-only board, an
 * occupied square is CR_BOARD_OCCUPIED; an RFID missing from the table too.
 *
 * Ownership: objects from _new are freed with the matching _free. */
#ifndef CR_DRIVERS_CERTABO_H
#define CR_DRIVERS_CERTABO_H

#include <stdio.h>

#include "board_kind.h"

extern const cr_board_codec_ops cr_certabo_ops;

#define CR_CERTABO_CAL_MAX 128

typedef struct cr_certabo_rfid {
    uint8_t b[5];
} cr_certabo_rfid;

/* The table RFID -> cr piece. */
typedef struct cr_certabo_calibration {
    size_t n;
    cr_certabo_rfid rfid[CR_CERTABO_CAL_MAX];
    uint8_t piece[CR_CERTABO_CAL_MAX];
} cr_certabo_calibration;

/* The piece of an RFID (CR_BOARD_OCCUPIED when not in the table, CR_NO_PIECE
 * for the empty RFID). cal may be NULL. */
int cr_certabo_piece(const cr_certabo_calibration *cal, const cr_certabo_rfid *r);

/* Learns the table from one frame's squares (cr squares, a1 = 0): the start
 * position, white queen on d3, black queen on d6. Returns 0, or CR_EPROTO
 * with err filled when a square that should hold a piece is empty, one that
 * should be empty is not, or two pieces share an RFID. */
int cr_certabo_calibrate(const cr_certabo_rfid squares[64], cr_certabo_calibration *cal,
                         cr_error *err);

/* Text form, one line per entry: "<piece letter> n n n n n". */
int cr_certabo_calibration_write(FILE *f, const cr_certabo_calibration *cal);
/* Returns 0, or CR_EPROTO / CR_EIO with err filled. */
int cr_certabo_calibration_read(FILE *f, cr_certabo_calibration *cal, cr_error *err);

/* Where a board's table lives: DIR/certabo/ID.cal (ID: the board id, for a
 * serial port its device name). Returns 0 or CR_ENOSPC. */
int cr_certabo_calibration_path(char *out, size_t size, const char *dir, const char *id);
/* Reads a table file. Returns 0, CR_EIO (no such file; err filled) or CR_EPROTO. */
int cr_certabo_calibration_load(const char *path, cr_certabo_calibration *cal, cr_error *err);

/* For cr_board_link_config.codec_params: data is a cr_certabo_params_dir; a
 * Certabo board gets the table of its id from the folder if there is one,
 * or the one given by file, else none (occupancy only). */
typedef struct cr_certabo_params_dir {
    const char *dir;        /* a state folder, or NULL */
    const char *file;       /* one table for every board, or NULL */
    cr_certabo_calibration cal; /* scratch */
} cr_certabo_params_dir;
const void *cr_certabo_params_from_dir(void *data, cr_board_kind kind, const char *id);

/* One line, without CRLF: 1 with squares filled (64 RFIDs, or occupancy
 * as RFID {1,0,0,0,0} per occupied square with *occupancy set), 0 for a bad
 * line. */
int cr_certabo_parse_line(const char *line, size_t len, cr_certabo_rfid squares[64],
                          bool *occupancy);
/* Writes a line (with CRLF) for squares; returns the length or CR_ENOSPC. */
int cr_certabo_format_line(char *out, size_t size, const cr_certabo_rfid squares[64]);
int cr_certabo_format_occupancy(char *out, size_t size, const cr_certabo_rfid squares[64]);

/* The line decoder with the vote: what the codec ops wrap. */
typedef struct cr_certabo_reader cr_certabo_reader;
typedef struct cr_certabo_stats {
    uint64_t frames, bad_frames, resyncs, skipped, snapshots;
    uint64_t salvaged; /* frames (counted in frames) read from a damaged line */
} cr_certabo_stats;

/* cal is copied (NULL: none). NULL when out of memory. */
cr_certabo_reader *cr_certabo_reader_new(const cr_certabo_calibration *cal);
void cr_certabo_reader_free(cr_certabo_reader *r);
void cr_certabo_reader_reset(cr_certabo_reader *r);
int cr_certabo_reader_feed(cr_certabo_reader *r, const uint8_t *bytes, size_t len);
/* 1 with the voted squares (cr pieces / CR_BOARD_OCCUPIED) when they changed. */
int cr_certabo_reader_next(cr_certabo_reader *r, uint8_t squares[64]);
/* The last voted RFIDs (for calibration). False before any frame. */
bool cr_certabo_reader_rfids(const cr_certabo_reader *r, cr_certabo_rfid squares[64]);
cr_certabo_stats cr_certabo_reader_stats(const cr_certabo_reader *r);
size_t cr_certabo_reader_pending(const cr_certabo_reader *r);

/*----- Emulator -----*/

/* The emulator's RFIDs: piece p's k-th copy on the board (square order) gets
 * a fixed RFID; cr_certabo_emu_calibration gives the table as a host would
 * learn it. */
void cr_certabo_emu_rfid(int piece, int k, cr_certabo_rfid *out);
void cr_certabo_emu_calibration(cr_certabo_calibration *cal);

typedef struct cr_certabo_emu cr_certabo_emu;
/* occupancy: the board sends 8 numbers. period_ms: a line this often. */
cr_certabo_emu *cr_certabo_emu_new(bool occupancy, int period_ms);
void cr_certabo_emu_free(cr_certabo_emu *e);
/* Host bytes: LED commands (8 bytes, written at once); the first one marks
 * the host ready. */
void cr_certabo_emu_input(cr_certabo_emu *e, const uint8_t *bytes, size_t len);
void cr_certabo_emu_set_squares(cr_certabo_emu *e, const uint8_t squares[64]);
/* Real time passes: a line every period (unless muted). */
void cr_certabo_emu_tick(cr_certabo_emu *e, int64_t now);
void cr_certabo_emu_set_muted(cr_certabo_emu *e, bool muted);
void cr_certabo_emu_power_up(cr_certabo_emu *e);
size_t cr_certabo_emu_take_output(cr_certabo_emu *e, uint8_t *out, size_t max);
bool cr_certabo_emu_host_ready(const cr_certabo_emu *e);

#endif
