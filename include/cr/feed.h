/* chessrelay: feed events and the feed file format v1
 * (docs/feed-format.md): what boards said over time. Drivers produce
 * feed events, the inference consumes them, the recorder and the journal
 * write them, and replay reads them back.
 *
 * The reader does no I/O of its own beyond what the caller hands it: feed it
 * lines (cr_feed_parse_line) or a whole FILE (cr_feed_reader_*). */
#ifndef CR_FEED_H
#define CR_FEED_H

#include <stdio.h>

#include "cr/board.h"

#define CR_BOARD_ID_MAX 64

typedef enum cr_feed_kind {
    CR_FEED_POS = 0,
    CR_FEED_CLOCK,
    CR_FEED_RAW,
    CR_FEED_META,
    CR_FEED_CONNECT,
    CR_FEED_DISCONNECT
} cr_feed_kind;

enum { CR_CLOCK_STOPPED = -1 }; /* running side: CR_WHITE, CR_BLACK or stopped */

typedef struct cr_feed_event {
    int64_t t;                          /* ms since the feed's start (or since the epoch, live) */
    char board[CR_BOARD_ID_MAX + 1];    /* board id, NUL-terminated */
    cr_feed_kind kind;
    union {
        uint8_t squares[CR_SQ_NB];      /* POS: the board's own squares (not rotated) */
        struct {
            int32_t white_ms, black_ms; /* CLOCK */
            int running;                /* CR_WHITE, CR_BLACK or CR_CLOCK_STOPPED */
        } clock;
        struct {
            const uint8_t *bytes;       /* RAW: borrowed, valid until the next read */
            size_t len;
        } raw;
        struct {
            const char *key;            /* META: borrowed, valid until the next read */
            const char *value;
        } meta;
    } u;
} cr_feed_event;

/* A META key is a PGN tag name of 1 to this many letters, digits and
 * underscores (the relay's limit for tag names, as for an arbiter's tag on
 * the WebSocket): a longer or other key is an error of its line. */
#define CR_FEED_META_KEY_MAX 31

/* Parses one line (without or with its "\n"; a trailing "\r" is ignored).
 * Returns 1 with ev filled, 0 for a blank or comment line, or CR_EFEED with
 * err filled (column; the caller knows the line number and file). Borrowed
 * pointers in ev point into `scratch` (at least as long as the line + 1) */
CR_EXTERN int cr_feed_parse_line(const char *line, size_t len, cr_feed_event *ev, char *scratch,
                                 size_t scratch_size, cr_error *err);

/* Writes ev as one feed line with its "\n" into buf. Returns the length or
 * CR_ENOSPC. CR_FEED_LINE_MAX fits any event but RAW, which needs
 * 2 * len + CR_FEED_LINE_MAX. */
#define CR_FEED_LINE_MAX 256
CR_EXTERN int cr_feed_format(const cr_feed_event *ev, char *buf, size_t size);

/* Streaming reader over a FILE (not owned). Lines can be arbitrarily long. */
typedef struct cr_feed_reader cr_feed_reader;

/* name: used in error texts ("p01.feed:17: ..."). Returns NULL when out of memory. */
CR_EXTERN cr_feed_reader *cr_feed_reader_new(FILE *in, const char *name);
/* The same over a whole feed in memory: len bytes of text (borrowed: they
 * must outlive the reader), read line by line in place, without copying
 * each line out of a FILE. */
CR_EXTERN cr_feed_reader *cr_feed_reader_new_text(const char *text, size_t len, const char *name);
CR_EXTERN void cr_feed_reader_free(cr_feed_reader *r);

/* Reads the next event. Returns 1 with ev filled (borrowed parts valid until
 * the next call), 0 at end of input, or CR_EFEED with err filled (line,
 * column, text naming the file); the reader can go on after an error (the
 * bad line is skipped). A timestamp smaller than the previous line's is an
 * error too (the event is still returned with t raised to the previous one
 * when keep_going is set: see cr_feed_reader_set_keep_going). */
CR_EXTERN int cr_feed_reader_next(cr_feed_reader *r, cr_feed_event *ev, cr_error *err);
CR_EXTERN int cr_feed_reader_line(const cr_feed_reader *r); /* line number of the last event */

/* Keep-going mode (off by default). A timestamp going backwards is then not
 * an error: cr_feed_reader_next returns 1 with t clamped to the previous
 * line's, and err->code set to CR_EFEED with the warning text (err->code is 0
 * for a clean line). Bad lines are reported as errors either way; the caller
 * decides whether to stop or to call cr_feed_reader_next again. */
CR_EXTERN void cr_feed_reader_set_keep_going(cr_feed_reader *r, bool keep_going);

/* Parses "H:MM:SS" (H one or more digits) into milliseconds; -1 if malformed. */
CR_EXTERN int64_t cr_feed_parse_clock(const char *s, size_t len);
/* Writes ms as "H:MM:SS" (rounded down to the second, negative as 0:00:00)
 * into buf (16 bytes suffice). Returns the length. */
CR_EXTERN int cr_feed_format_clock(int64_t ms, char *buf, size_t size);

/* True if s is a valid board id (1..CR_BOARD_ID_MAX of A-Z a-z 0-9 . _ -). */
CR_EXTERN bool cr_feed_board_id_valid(const char *s, size_t len);

#endif
