/* chessrelay drivers: the state of one DGT board, fed with the bytes it sent.
 *
 * Keeps the 64-square image from dumps and field updates and turns the
 * board's messages into feed events (include/cr/feed.h): POS with the squares
 * in the board's own orientation (a1 = 0, DGT index ^ 56, never rotated),
 * CLOCK assigned to White/Black, and optionally RAW with the bytes as fed.
 * Used by the live link (board_link.h) and by `replay` to decode the `raw`
 * lines of a feed: both go through cr_dgt_board_feed_raw().
 *
 * Clock sides: the DGT clock reports left/right, not colours. Rule (documented
 * in docs/boards.md): White is the LEFT side, unless the board has been seen
 * standing the wrong way round (a start position rotated by 180 degrees in a
 * snapshot), then White is the RIGHT side; a configuration can force either.
 * In AUTO mode the rule also learns from play: a clock press ends the
 * presser's move, so the presser should own the piece placed last; when three
 * more presses contradict the rule than agree with it, the sides swap
 * (info.clock_swapped) for the readings that follow.
 * The running side comes from the lever bit: the side whose lever is up runs.
 *
 * Field-update storms: every field update that changes the image yields a
 * POS (the inference settles them); after any resynchronisation of the byte
 * stream the board wants a fresh dump (cr_dgt_board_take_want_dump).
 * Before the first dump the image is taken as empty.
 *
 * Ownership: cr_dgt_board_new returns a new object, free it with
 * cr_dgt_board_free. Events passed to the callback are borrowed for the call. */
#ifndef CR_DRIVERS_DGT_BOARD_H
#define CR_DRIVERS_DGT_BOARD_H

#include "cr/feed.h"
#include "dgt.h"

typedef enum cr_dgt_white_side {
    CR_DGT_WHITE_AUTO = 0, /* left, or right when the board stands rotated */
    CR_DGT_WHITE_LEFT,
    CR_DGT_WHITE_RIGHT
} cr_dgt_white_side;

typedef struct cr_dgt_board_config {
    cr_dgt_white_side white_side;
    bool emit_raw; /* emit a RAW event with the fed bytes before the decoded ones */
} cr_dgt_board_config;

typedef void (*cr_dgt_event_cb)(void *data, const cr_feed_event *ev);

typedef struct cr_dgt_board cr_dgt_board;

typedef struct cr_dgt_board_info {
    char serial[CR_DGT_TEXT_MAX + 1];      /* "" until the board said it */
    char long_serial[CR_DGT_TEXT_MAX + 1];
    char trademark[CR_DGT_TEXT_MAX + 1];
    int version_major, version_minor;      /* -1 unknown */
    int battery_percent;                   /* -1 unknown */
    int busaddr;                           /* -1 unknown */
    bool rotated;                          /* start position seen rotated */
    bool clock_swapped;                    /* AUTO: presses showed the other side convention */
    bool have_dump;
    uint8_t squares[64];                   /* cr pieces, a1 = 0 */
    bool clock_seen;                       /* a valid clock reading arrived */
    cr_dgt_clock clock;                    /* last valid reading */
    cr_dgt_ack last_ack;
    uint64_t messages, dumps, fields, clocks, acks, resyncs, skipped;
    uint64_t ee_logs;                      /* EE_MOVES logs received */
    uint64_t ee_replayed;                  /* field changes replayed from them */
    int64_t last_t;                        /* t of the last decoded message, -1 none */
} cr_dgt_board_info;

/* id: the board id of the events (copied; 1..64 chars of A-Za-z0-9._-).
 * cfg may be NULL for the defaults (auto clock sides, no RAW events).
 * Returns NULL when out of memory or for a bad id. */
cr_dgt_board *cr_dgt_board_new(const char *id, const cr_dgt_board_config *cfg);
void cr_dgt_board_free(cr_dgt_board *b); /* accepts NULL */

/* Changes the id used for later events. Returns 0 or CR_EINVAL. */
int cr_dgt_board_set_id(cr_dgt_board *b, const char *id);
const char *cr_dgt_board_id(const cr_dgt_board *b);

/* Feeds bytes the board sent at time t (same unit as feed events) and calls
 * cb for each resulting event, in order: for each message completed, a RAW
 * event with its bytes (if configured; with any garbage before it, and the
 * part of it fed in earlier calls excluded) followed by the POS / CLOCK it
 * decodes to; then a RAW event for the bytes left over (a message not yet
 * complete, trailing garbage). The RAW events of one call cover its bytes
 * exactly once, in order. Messages may
 * be split across calls; garbage between them is skipped. Returns the number
 * of messages decoded (>= 0) or CR_ENOMEM / CR_EINVAL. cb may be NULL.
 *
 * A short message (a dump or shorter) whose bytes stopped CR_DGT_CUT_MS or
 * more before these came is cut first, as a resync (a dump is then wanted).
 * A board sends one in a single burst, so such a pause means a byte of it
 * was lost on the line; taken as its end, the next stray byte would complete
 * it: a dump shifted by one square, or a field update with a wrong piece,
 * believed until the next dump. The rule uses t alone, so `replay` of the
 * raw lines decides as the live link did. The event log (EE_MOVES, up to
 * 8 KB) is exempt: it spans many reads, and a reader the system delays
 * between two reads makes a pause the board never made. */
#define CR_DGT_CUT_MS 150

int cr_dgt_board_feed_raw(cr_dgt_board *b, int64_t t, const uint8_t *bytes, size_t len,
                          cr_dgt_event_cb cb, void *data);

/* Feeds one already decoded message (what feed_raw does per message). */
void cr_dgt_board_feed_msg(cr_dgt_board *b, int64_t t, const cr_dgt_msg *msg, cr_dgt_event_cb cb,
                           void *data);

/* True once after the stream lost sync (bytes skipped): the caller should send
 * SEND_BRD. Clears the flag. */
bool cr_dgt_board_take_want_dump(cr_dgt_board *b);

/* The link went down: forget half-received bytes (the image is kept). The
 * last field changes received are kept too: when the board's event log
 * (EE_MOVES) arrives next, the changes it holds after them are replayed as
 * POS events (stamped with the log's arrival time), so that what happened
 * on the board while the host was away is observed, not guessed. A log in
 * which they cannot be found is not replayed. */
void cr_dgt_board_reset_stream(cr_dgt_board *b);

/* True while a stream reset waits for the board's log: the caller asks for
 * it (SEND_EE_MOVES) before the dump, and does not feed what the board sent
 * before it said who it is (changes in its old mode, not in order). */
bool cr_dgt_board_gap_pending(const cr_dgt_board *b);

const cr_dgt_board_info *cr_dgt_board_info_get(const cr_dgt_board *b);
/* Bytes of a message started but not complete yet. */
size_t cr_dgt_board_pending(const cr_dgt_board *b);

/* Maps a clock reading to White/Black times and the running colour
 * (CR_WHITE, CR_BLACK, CR_CLOCK_STOPPED) following the rule above. */
void cr_dgt_clock_to_colors(const cr_dgt_clock *c, cr_dgt_white_side side, bool rotated,
                            int32_t *white_ms, int32_t *black_ms, int *running);
/* The inverse, for the emulator: fills left_ms, right_ms, running, right_high. */
void cr_dgt_clock_from_colors(cr_dgt_clock *c, cr_dgt_white_side side, bool rotated,
                              int32_t white_ms, int32_t black_ms, int running);

/* Whether s is a valid feed board id (1..64 of A-Za-z0-9._-). */
bool cr_dgt_valid_id(const char *s);

#endif
