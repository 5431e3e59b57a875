/* chessrelay drivers: the life of one board connection (DGT, or any kind of
 * board_kind.h through its codec ops) on a libevent loop.
 *
 * A link owns a transport (serial tty: serial.h, USB: dgt_usb.h) and a
 * cr_dgt_board. On (re)connect it resets the board to IDLE and asks for the
 * serial number and version (the serial number becomes the board id; a board
 * that does not say it gets the transport's fallback id), then asks for a
 * dump, switches to UPDATE_NICE and asks for one clock reading. Commands are
 * paced: at most `pace_bytes` command bytes per `pace_window_ms`, since a board
 * buffers only about 10. A board silent for `ping_ms` is pinged
 * (RETURN_SERIALNR); silent for `silent_ms` it is "not responding" and is
 * re-initialised; silent for `lost_ms` (or on a transport error) it is "lost":
 * a DISCONNECT event is emitted, the transport is closed and reopened every
 * `reopen_ms` until the board answers again (CONNECT).
 *
 * Other kinds of board (cfg.kind, board_kind.h) go through their codec ops:
 * probed with their prober at their serial speed, started with their start
 * commands, polled (ping, after a resync or a frame cut short) with their
 * poll command; their snapshots become POS events when they differ from the
 * last one. RAW events are DGT bytes only (the feed format's `raw`), so the
 * other kinds never emit them. Silence, loss and reopening work the same.
 *
 * Events go to the callback: CONNECT, RAW (if cfg.board.emit_raw), POS, CLOCK,
 * DISCONNECT, all stamped with cfg.clock() (default: monotonic ms since the
 * link was created).
 *
 * Ownership: cr_board_link_new takes the transport (freed with the link);
 * cr_board_link_free frees everything. The event_base is borrowed and must
 * outlive the link. Callbacks must not free the link. */
#ifndef CR_DRIVERS_BOARD_LINK_H
#define CR_DRIVERS_BOARD_LINK_H

#include <event2/event.h>

#include "board_kind.h"
#include "dgt_board.h"

typedef struct cr_board_link cr_board_link;

typedef enum cr_board_link_state {
    CR_LINK_CONNECTING = 0, /* transport opening or board not identified yet */
    CR_LINK_ACTIVE,
    CR_LINK_NOT_RESPONDING, /* silent: being re-initialised */
    CR_LINK_LOST            /* gone: reopening */
} cr_board_link_state;

const char *cr_board_link_state_name(cr_board_link_state st);

/* What a transport implements. The link calls open() (start delivering bytes
 * with cr_board_link_input() and failures with cr_board_link_transport_error()),
 * write() (returns the bytes taken, 0 if it cannot take them now, or < 0 on a
 * dead link), close() (stop; may be reopened) and free(). */
typedef struct cr_dgt_transport {
    char name[128];         /* "serial:/dev/ttyUSB0", "usb:1-2" */
    char fallback_id[CR_BOARD_ID_MAX + 1];
    bool wireless;          /* Bluetooth: the link also asks for the battery state */
    void *impl;
    int (*open)(void *impl, cr_board_link *link);
    int (*write)(void *impl, const uint8_t *bytes, size_t len);
    void (*close)(void *impl);
    void (*free)(void *impl);
    /* Optional (serial ports): the speed a kind of board wants, applied now
     * if open and on later opens. Returns 0 or CR_EIO. */
    int (*settings)(void *impl, const cr_serial_settings *s);
} cr_dgt_transport;

typedef struct cr_board_link_config {
    cr_dgt_board_config board;
    int ping_ms, silent_ms, lost_ms, reopen_ms, probe_ms;
    int partial_ms;        /* a message half received this long: ask for a dump */
    int pace_bytes, pace_window_ms;
    bool update_plain;     /* SEND_UPDATE instead of SEND_UPDATE_NICE */
    bool identify_only;    /* stop after serial number and version (no dump, no update mode) */
    /* The kind of board (board_kind.h): DGT by default; AUTO probes each kind in
     * turn (DGT, Millennium, Certabo, one probe period each) until one
     * answers, and keeps the kind found for the link's life. */
    cr_board_kind kind;
    /* Codec parameters for a board of a kind once it is found and named
     * (Certabo: its cr_certabo_calibration, or NULL): copied by the codec
     * at once. NULL: none. */
    const void *(*codec_params)(void *data, cr_board_kind kind, const char *id);
    void *codec_params_data;
    int64_t (*clock)(void *data); /* event time; NULL = monotonic ms since creation */
    /* Optional: told (with clock_data) after the link has handled n bytes of
     * the transport, their events emitted; a test's shared feed clock counts
     * them (emu_clock.h). */
    void (*handled)(void *data, size_t n);
    void *clock_data;
} cr_board_link_config;

void cr_board_link_config_default(cr_board_link_config *cfg);

typedef struct cr_board_link_callbacks {
    cr_dgt_event_cb event;
    void (*state)(void *data, cr_board_link *link, cr_board_link_state st);
    void *data;
} cr_board_link_callbacks;

typedef struct cr_dgt_health {
    cr_board_link_state state;
    char id[CR_BOARD_ID_MAX + 1];
    double snapshot_rate;   /* POS events per minute over the link's life while active */
    int64_t delay_ms;       /* last command -> reply delay (-1 unknown) */
    int battery_percent;    /* -1 unknown */
    uint32_t disconnects;
    uint64_t resyncs;
    bool rotated;
    bool identified;
    cr_board_kind kind;     /* the kind found (AUTO while not known) */
    bool has_clock;         /* the kind reports a clock (DGT) */
    uint64_t bad_frames;    /* frames dropped by the codec (check digits, parity) */
    int poll_ms;            /* the board refused to report changes: polled this often (0: not) */
} cr_dgt_health;

/* Returns a new link (not started), or NULL (out of memory / bad args; the
 * transport is then freed too). cfg and cbs are copied; cfg may be NULL. */
cr_board_link *cr_board_link_new(struct event_base *base, cr_dgt_transport *tr,
                             const cr_board_link_config *cfg, const cr_board_link_callbacks *cbs);
/* Opens the transport (retrying later if that fails) and starts the timers. */
int cr_board_link_start(cr_board_link *link);
void cr_board_link_free(cr_board_link *link); /* accepts NULL */

/* Queues a host command (paced). Returns 0, CR_EINVAL or CR_ENOSPC. */
int cr_board_link_send(cr_board_link *link, const uint8_t *bytes, size_t len);

/* Transport side: bytes arrived / the link broke (unplug, EOF, I/O error). */
void cr_board_link_input(cr_board_link *link, const uint8_t *bytes, size_t len);
void cr_board_link_transport_error(cr_board_link *link, const char *why);

cr_dgt_health cr_board_link_health(const cr_board_link *link);
const cr_dgt_board_info *cr_board_link_info(const cr_board_link *link);
const char *cr_board_link_name(const cr_board_link *link);
/* The last transport error text ("" if none). */
const char *cr_board_link_error(const cr_board_link *link);

/* Monotonic milliseconds (CLOCK_MONOTONIC). */
int64_t cr_dgt_now_ms(void);

#endif
