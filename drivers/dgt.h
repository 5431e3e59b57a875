/* chessrelay drivers: the DGT board protocol codec (DGT's dgtbrd.h protocol).
 *
 * Pure: no I/O, no clock, no allocation beyond the parser itself. In the style
 * of hiredis's reader: push the bytes a board sent with cr_dgt_parser_feed(),
 * pull decoded messages with cr_dgt_parser_next(). Garbage, truncated, unknown
 * or oversized messages are skipped: the parser drops bytes until the next one
 * with bit 7 set (only a header's first byte has it) and counts a resync.
 *
 * Encoders write host commands (board <- host) and, for the emulator and the
 * tests, board messages (board -> host) into caller buffers; each returns the
 * number of bytes written or CR_ENOSPC / CR_EINVAL.
 *
 * Squares: DGT index 0 = a8 ... 7 = h8, 8 = a7 ... 63 = h1. Piece codes are the
 * DGT ones (0 empty, 1 WP, 2 WR, 3 WN, 4 WB, 5 WK, 6 WQ, 7..12 black, 13..15
 * "magic" result pieces), always masked with 0x0F. */
#ifndef CR_DRIVERS_DGT_H
#define CR_DRIVERS_DGT_H

#include "cr/common.h"

/* Host -> board single-byte commands. */
enum {
    CR_DGT_SEND_RESET = 0x40,
    CR_DGT_SEND_CLK = 0x41,
    CR_DGT_SEND_BRD = 0x42,
    CR_DGT_SEND_UPDATE = 0x43,
    CR_DGT_SEND_UPDATE_BRD = 0x44,
    CR_DGT_RETURN_SERIALNR = 0x45,
    CR_DGT_RETURN_BUSADRES = 0x46,
    CR_DGT_SEND_TRADEMARK = 0x47,
    CR_DGT_SEND_EE_MOVES = 0x49,
    CR_DGT_TO_BUSMODE = 0x4A,
    CR_DGT_SEND_UPDATE_NICE = 0x4B,
    CR_DGT_SEND_BATTERY_STATUS = 0x4C,
    CR_DGT_SEND_VERSION = 0x4D,
    CR_DGT_RETURN_LONG_SERIALNR = 0x55,
    CR_DGT_SET_LEDS = 0x60,
    CR_DGT_CLOCK_MESSAGE = 0x2B
};

/* Clock wrapper sub-commands (2B size 03 sub payload... 00). */
enum {
    CR_DGT_CLOCK_DISPLAY = 0x01,
    CR_DGT_CLOCK_ICONS = 0x02,
    CR_DGT_CLOCK_END = 0x03,
    CR_DGT_CLOCK_BUTTON = 0x08,
    CR_DGT_CLOCK_VERSION = 0x09,
    CR_DGT_CLOCK_SETNRUN = 0x0A,
    CR_DGT_CLOCK_BEEP = 0x0B,
    CR_DGT_CLOCK_ASCII = 0x0C
};

/* Board -> host message ids (bit 7 set). */
enum {
    CR_DGT_MSG_BOARD_DUMP = 0x86,
    CR_DGT_MSG_BWTIME = 0x8D,
    CR_DGT_MSG_FIELD_UPDATE = 0x8E,
    CR_DGT_MSG_EE_MOVES = 0x8F,
    CR_DGT_MSG_BUSADRES = 0x90,
    CR_DGT_MSG_SERIALNR = 0x91,
    CR_DGT_MSG_TRADEMARK = 0x92,
    CR_DGT_MSG_VERSION = 0x93,
    CR_DGT_MSG_BOARD_DUMP_50B = 0x94,
    CR_DGT_MSG_BOARD_DUMP_50W = 0x95,
    CR_DGT_MSG_BATTERY_STATUS = 0xA0,
    CR_DGT_MSG_LONG_SERIALNR = 0xA2
};

/* Payload limits: a message longer than its kind allows is garbage. */
#define CR_DGT_DUMP_LEN 67        /* a board dump, header included */
#define CR_DGT_EE_MOVES_MAX 8200 /* the log is 0x1F00 bytes + EOF */
#define CR_DGT_TEXT_MAX 200      /* trademark */

typedef enum cr_dgt_kind {
    CR_DGT_DUMP = 1,     /* squares[64] */
    CR_DGT_FIELD,        /* field.index, field.piece */
    CR_DGT_CLOCK,        /* clock times */
    CR_DGT_CLOCK_ACK,    /* clock ack */
    CR_DGT_SERIAL,       /* text: 5 digits (old boards: more) */
    CR_DGT_LONG_SERIAL,  /* text: 10 characters */
    CR_DGT_VERSION,      /* version.major, version.minor */
    CR_DGT_TRADEMARK,    /* text */
    CR_DGT_BUSADDR,      /* busaddr */
    CR_DGT_BATTERY,      /* battery */
    CR_DGT_EE_MOVES,     /* ee: borrowed payload */
    CR_DGT_DUMP_50       /* draughts dump: ignored by chess code, raw payload in ee */
} cr_dgt_kind;

/* Clock times from BWTIME. Sides are the clock's own (seen from its front),
 * not colours; see cr_dgt_board for the mapping. */
typedef struct cr_dgt_clock {
    int32_t left_ms, right_ms;
    bool valid;          /* digits in range, a clock is connected, not all zero */
    bool no_clock;       /* d6 bit5: no clock connected */
    bool running;        /* d6 bit0 */
    bool right_high;     /* d6 bit1: lever up on the right = right side's time runs */
    bool battery_low;    /* d6 bit2 */
    bool left_flag, right_flag; /* flag fallen (bit4 of the hours byte) */
    uint8_t status;      /* d6 as sent */
} cr_dgt_clock;

typedef struct cr_dgt_ack {
    uint8_t ack[4];      /* reconstructed ack0..ack3 */
    bool ok;             /* ack0 == 0x10 */
    bool from_clock;     /* ack1 bit 7: the clock sent it by itself (button, ready) */
    uint8_t command;     /* echoed sub-command (ack1 & 0x7F when !from_clock) */
} cr_dgt_ack;

typedef struct cr_dgt_battery {
    int percent;         /* 0..100 */
    int run_h, run_min;  /* -1 = n/a (0x7F) */
    bool charging, discharging;
} cr_dgt_battery;

typedef struct cr_dgt_msg {
    cr_dgt_kind kind;
    uint8_t id;          /* message id as sent */
    size_t length;       /* total length incl. the 3-byte header */
    union {
        uint8_t squares[64];                       /* DUMP: DGT index order, masked */
        struct { uint8_t index, piece; } field;    /* FIELD: index 0..63, masked piece */
        cr_dgt_clock clock;
        cr_dgt_ack ack;
        char text[CR_DGT_TEXT_MAX + 1];            /* SERIAL, LONG_SERIAL, TRADEMARK: NUL-terminated */
        struct { int major, minor; } version;
        int busaddr;                               /* 14-bit */
        cr_dgt_battery battery;
        struct { const uint8_t *bytes; size_t len; } ee; /* EE_MOVES, DUMP_50: borrowed until next feed/next */
    } u;
} cr_dgt_msg;

typedef struct cr_dgt_parser cr_dgt_parser;

typedef struct cr_dgt_parser_stats {
    uint64_t messages;   /* decoded messages */
    uint64_t skipped;    /* bytes dropped while resynchronising */
    uint64_t resyncs;    /* times the parser had to resynchronise */
} cr_dgt_parser_stats;

/* Returns a new parser (free with cr_dgt_parser_free), or NULL when out of memory. */
cr_dgt_parser *cr_dgt_parser_new(void);
void cr_dgt_parser_free(cr_dgt_parser *p); /* accepts NULL */
/* Forgets buffered bytes (e.g. after the link went down); keeps the stats. */
void cr_dgt_parser_reset(cr_dgt_parser *p);

/* Appends bytes (copied). Returns 0, CR_EINVAL, or CR_ENOMEM. Drain with
 * cr_dgt_parser_next() after each feed: the buffer holds what was fed and not
 * yet consumed (it is capped at CR_DGT_PARSER_MAX bytes: CR_ENOMEM past it). */
#define CR_DGT_PARSER_MAX (1u << 20)
int cr_dgt_parser_feed(cr_dgt_parser *p, const uint8_t *buf, size_t len);

/* Decodes the next complete message into msg. Returns 1 with msg filled
 * (borrowed parts valid until the next feed/next call), 0 when more bytes
 * are needed. Never fails: bad bytes are skipped and counted. */
int cr_dgt_parser_next(cr_dgt_parser *p, cr_dgt_msg *msg);

/* Resyncs since the last call (and resets that count): a caller that keeps a
 * board image asks for a fresh dump when this is not 0. */
uint64_t cr_dgt_parser_take_resyncs(cr_dgt_parser *p);
cr_dgt_parser_stats cr_dgt_parser_stats_get(const cr_dgt_parser *p);
/* Bytes buffered, waiting for the rest of a message. */
size_t cr_dgt_parser_pending(const cr_dgt_parser *p);
/* Drops the bytes of a message begun but not complete, if it declares a total
 * length of at most max_len (or its length is not in yet), and counts a
 * resync. Returns the number of bytes dropped (0: nothing pending, or a
 * longer message). For a caller that knows the line went quiet in the middle
 * of a message: its end was lost, and the next bytes, stray or not, must not
 * be read as that end. */
size_t cr_dgt_parser_cut(cr_dgt_parser *p, size_t max_len);
/* Stream position: how many of the bytes ever fed were consumed (decoded,
 * skipped or forgotten by a reset). After next() returned a message, the
 * message ends at this position. */
uint64_t cr_dgt_parser_position(const cr_dgt_parser *p);

/* Decodes one complete message (header included) as the parser would.
 * Returns 1 with msg filled, or CR_EPROTO (bad length, unknown id, payload
 * byte with bit 7 set, out-of-range field). */
int cr_dgt_decode(const uint8_t *buf, size_t len, cr_dgt_msg *msg);

/*----- Host command encoders -----*/

/* One single-byte command (0x40..0x55). */
int cr_dgt_encode_cmd(uint8_t *out, size_t size, uint8_t cmd);
/* Clock wrapper around a sub-command and its payload: 2B size 03 sub data... 00. */
int cr_dgt_encode_clock(uint8_t *out, size_t size, uint8_t sub, const uint8_t *data, size_t len);
/* SETNRUN: times in ms (rounded down to seconds, at most 9:59:59), mode bits
 * 0x01 left runs, 0x02 right runs, 0x04 pause, 0x08 toggle on lever. */
int cr_dgt_encode_clock_setnrun(uint8_t *out, size_t size, int32_t left_ms, int32_t right_ms,
                                uint8_t mode);
/* DGT 3000 text: up to 8 characters (padded with spaces), beep 0..15. */
int cr_dgt_encode_clock_ascii(uint8_t *out, size_t size, const char *text, int beep);
int cr_dgt_encode_clock_end(uint8_t *out, size_t size);
/* duration in 64 ms units (1..255). */
int cr_dgt_encode_clock_beep(uint8_t *out, size_t size, int units);
int cr_dgt_encode_clock_button(uint8_t *out, size_t size);
int cr_dgt_encode_clock_version(uint8_t *out, size_t size);
/* Revelation II LEDs: pattern (0 off, 1 on, 2 auto) for DGT indices first..last. */
int cr_dgt_encode_leds(uint8_t *out, size_t size, uint8_t pattern, int first, int last);

/* A host command as a board sees it: the emulator's parser. */
typedef struct cr_dgt_command {
    uint8_t cmd;            /* command byte */
    uint8_t sub;            /* clock wrapper: sub-command */
    uint8_t data[16];       /* wrapper payload (after the sub-command, or after the size byte) */
    size_t len;
} cr_dgt_command;

/* Parses one host command at the start of buf. Returns the bytes consumed
 * (>= 1) with cmd filled, 0 if buf holds only the start of a longer command,
 * or CR_EPROTO for a byte that starts no command (consumes 1 byte). */
int cr_dgt_parse_command(const uint8_t *buf, size_t len, cr_dgt_command *cmd);

/*----- Board message encoders (emulator, tests) -----*/

/* Any message: header + payload (payload bytes must have bit 7 clear). */
int cr_dgt_encode_msg(uint8_t *out, size_t size, uint8_t id, const uint8_t *payload, size_t len);
int cr_dgt_encode_dump(uint8_t *out, size_t size, const uint8_t squares[64]);
int cr_dgt_encode_field(uint8_t *out, size_t size, int index, int piece);
/* Clock times: uses left_ms, right_ms, running, right_high, battery_low,
 * no_clock and the flags of c. */
int cr_dgt_encode_bwtime(uint8_t *out, size_t size, const cr_dgt_clock *c);
/* Clock ack carrying ack0..ack3 (spread over the payload as the clock does). */
int cr_dgt_encode_ack(uint8_t *out, size_t size, const uint8_t ack[4]);
int cr_dgt_encode_serial(uint8_t *out, size_t size, const char *serial);
int cr_dgt_encode_long_serial(uint8_t *out, size_t size, const char *serial);
int cr_dgt_encode_version(uint8_t *out, size_t size, int major, int minor);
int cr_dgt_encode_trademark(uint8_t *out, size_t size, const char *text);
int cr_dgt_encode_busaddr(uint8_t *out, size_t size, int addr);
int cr_dgt_encode_battery(uint8_t *out, size_t size, const cr_dgt_battery *b);

/*----- The board's own event log (EE_MOVES payload) -----*/

/* A DGT board logs every field change, and the clock times when the lever
 * moves, into a cyclic EEPROM buffer (oldest first, ending in EOF) that
 * SEND_EE_MOVES returns. One entry: */
typedef enum cr_dgt_ee_kind {
    CR_DGT_EE_FIELD = 1,   /* index (0 = a8), piece (DGT code, 0 = the square emptied), quick */
    CR_DGT_EE_CLOCK,       /* left (the left clock, else the right), ms */
    CR_DGT_EE_POWERUP,     /* 0x6A */
    CR_DGT_EE_EOF,         /* 0x6B: the end of the log */
    CR_DGT_EE_FOURROWS,    /* 0x6C */
    CR_DGT_EE_EMPTYBOARD,  /* 0x6D */
    CR_DGT_EE_DOWNLOADED,  /* 0x6E */
    CR_DGT_EE_BEGINPOS,    /* 0x6F: the start position stands */
    CR_DGT_EE_BEGINPOS_ROT,/* 0x7A: the same, board turned round */
    CR_DGT_EE_START_TAG,   /* 0x7B */
    CR_DGT_EE_WATCHDOG,    /* 0x7C */
    CR_DGT_EE_NOP,         /* 0x7F, 0x00 */
    CR_DGT_EE_UNKNOWN      /* any other byte (skipped, one byte) */
} cr_dgt_ee_kind;

typedef struct cr_dgt_ee_entry {
    cr_dgt_ee_kind kind;
    uint8_t index, piece;  /* FIELD */
    bool quick;            /* FIELD: under about 250 ms after the previous change */
    bool left;             /* CLOCK */
    int32_t ms;            /* CLOCK: hours 0..9, minutes, seconds */
} cr_dgt_ee_entry;

/* Decodes a whole EE_MOVES payload into out (max entries): returns how many
 * were decoded (a field or clock entry cut short at the end is dropped). */
size_t cr_dgt_ee_decode(const uint8_t *payload, size_t len, cr_dgt_ee_entry *out, size_t max);
/* Encodes one entry: returns its bytes (1..3), CR_ENOSPC or CR_EINVAL. */
int cr_dgt_ee_encode(const cr_dgt_ee_entry *e, uint8_t *out, size_t size);

/*----- Squares and pieces -----*/

/* DGT piece code -> cr piece (CR_WP...), magic pieces and unknown codes -> CR_NO_PIECE. */
int cr_dgt_piece_to_cr(int code);
/* cr piece -> DGT piece code (0 for none). */
int cr_dgt_piece_from_cr(int piece);
/* DGT index (0 = a8) <-> cr square (a1 = 0): the same flip both ways. */
static inline int cr_dgt_index_to_sq(int index) { return index ^ 56; }
static inline int cr_dgt_sq_to_index(int sq) { return sq ^ 56; }

/* Start-position test on cr squares: 1 = standard start (or a Chess960 start)
 * as seen normally, -1 = the same rotated by 180 degrees, 0 = neither. */
int cr_dgt_start_orientation(const uint8_t squares[64]);

#endif
