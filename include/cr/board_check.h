/* chessrelay: a board checked before the round. Fed what one board and its
 * clock said while it was set up (its feed events, in order: a recorded
 * feed, or a live board's events), it says whether the board is ready for
 * the round and, when not, what to fix:
 *
 *  - connected: the last link event is not a disconnect, and the board
 *    said something;
 *  - the start position set up right: the last position against the
 *    standard one, in the orientation it is nearer to (a board set up the
 *    other way round is fine, the relay reads both; it is reported).
 *    Pieces misplaced are named in the game's squares: "white knight on
 *    f3, not g1", "e2 empty (white pawn)", "e4: black pawn too many";
 *  - the sensors (when asked: the setters slid a piece over every square
 *    of an empty board before setting up): every square seen occupied and
 *    seen empty in the history; a square never seen occupied is named as
 *    a dead sensor, never seen empty as a stuck one (the board's own
 *    squares, as its sensors are);
 *  - its clock: a reading seen, set to the round's control (both sides at
 *    the control's base time, within a tolerance) and stopped;
 *  - battery: what the caller was told (a wireless board's report), low
 *    below 20%.
 *
 * Pure: no I/O. Ownership: cr_board_check_new returns a new checker, free
 * it with cr_board_check_free. */
#ifndef CR_BOARD_CHECK_H
#define CR_BOARD_CHECK_H

#include "cr/board.h"
#include "cr/clock.h"
#include "cr/feed.h"

typedef struct cr_board_check cr_board_check;

typedef struct cr_board_check_config {
    cr_time_control control; /* the round's control; base_ms 0: the clock's times not checked */
    int32_t tolerance_ms;    /* a side's time within this of the base counts as set (0: 2000) */
    bool sensors;            /* judge the sensors from the history (a sweep was made) */
} cr_board_check_config;

/* What is wrong, as bits of cr_board_check_report.problems. */
enum {
    CR_BCHK_OFFLINE = 1u << 0,       /* not connected (or never heard from) */
    CR_BCHK_NO_POSITION = 1u << 1,   /* no position seen */
    CR_BCHK_SETUP = 1u << 2,         /* not the start position: `setup` names the pieces */
    CR_BCHK_SENSORS = 1u << 3,       /* dead or stuck sensors: `dead`, `stuck` */
    CR_BCHK_NO_CLOCK = 1u << 4,      /* no clock reading */
    CR_BCHK_CLOCK_TIME = 1u << 5,    /* the clock is not set to the control */
    CR_BCHK_CLOCK_RUNNING = 1u << 6, /* the clock runs */
    CR_BCHK_BATTERY = 1u << 7        /* battery below 20% */
};

#define CR_BOARD_CHECK_TEXT_MAX 512

typedef struct cr_board_check_report {
    unsigned problems;  /* CR_BCHK_*; 0: ready */
    bool rotated;       /* set up with White on the board's ranks 7 and 8 */
    int misplaced;      /* squares that differ from the start position */
    cr_bb dead, stuck;  /* board's own squares never seen occupied / empty (with `sensors`) */
    bool clock_seen;
    int32_t white_ms, black_ms; /* the last reading (with clock_seen) */
    int running;        /* CR_WHITE, CR_BLACK, CR_CLOCK_STOPPED */
    int battery;        /* percent, -1 unknown */
    /* The position's faults, "; "-separated ("" when none), cut at a
     * boundary with "..." when longer. */
    char setup[CR_BOARD_CHECK_TEXT_MAX];
    /* Everything to fix in one line, "; "-separated, "" when ready. */
    char fix[CR_BOARD_CHECK_TEXT_MAX];
} cr_board_check_report;

/* cfg may be NULL (no control, sensors not judged). NULL when out of memory. */
CR_EXTERN cr_board_check *cr_board_check_new(const cr_board_check_config *cfg);
CR_EXTERN void cr_board_check_free(cr_board_check *c); /* accepts NULL */

/* One event of the board (its id is not looked at: one checker per board). */
CR_EXTERN void cr_board_check_feed(cr_board_check *c, const cr_feed_event *ev);
/* The board's battery, percent (0-100; -1: unknown). */
CR_EXTERN void cr_board_check_battery(cr_board_check *c, int percent);

CR_EXTERN void cr_board_check_report_get(const cr_board_check *c, cr_board_check_report *out);

/* The standard start position's differences from squares (the board's own
 * squares, as a feed's pos), in the nearer orientation: writes the names
 * as in `setup` above into buf (size bytes) and returns how many squares
 * differ; *rotated (may be NULL) says which way it was read. */
CR_EXTERN int cr_board_check_setup(const uint8_t squares[CR_SQ_NB], bool *rotated, char *buf,
                                   size_t size);

#endif
