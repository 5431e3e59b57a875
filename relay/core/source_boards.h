/* chessrelay relay: live DGT boards as sources of the loop thread.
 *
 * Opens the serial devices given (serial.h) and, if asked, every USB
 * board plugged in now or later (dgt_usb.h), each as a cr_board_link on the
 * loop's event_base, and passes every event of every link (CONNECT, RAW with
 * the bytes as received, the POS / CLOCK they decode to, DISCONNECT: the
 * lines `chessrelay record` writes) to one callback, stamped with the
 * caller's clock. Boards are named by their serial number (the link asks for
 * it), else by the device's last path part.
 *
 * A serial device missing at start is not an error: its link retries until
 * it appears (an adapter plugged in late). No USB support at all is an error
 * only when USB is the only source asked for.
 *
 * Ownership: cr_board_sources_start returns a new object; free it with
 * cr_board_sources_free before the event_base (borrowed). Callbacks run in
 * the loop thread and must not free the object. */
#ifndef CR_RELAY_SOURCE_BOARDS_H
#define CR_RELAY_SOURCE_BOARDS_H

#include <event2/event.h>

#include "cr/common.h"
#include "cr/feed.h"
#include "board_link.h"

typedef struct cr_board_sources_config {
    const char *const *serials; /* tty paths (copied) */
    int serial_count;
    bool usb;                   /* every USB board, with hotplug */
    cr_board_kind kind;         /* serial ports: AUTO probes for each kind (board_kind.h) */
    const char *state_dir;      /* Certabo tables in DIR/certabo/ID.cal, or NULL (borrowed for the call) */
    int64_t (*clock)(void *data); /* event time (the loop's feed clock, ms) */
    void (*event)(void *data, const cr_feed_event *ev); /* required */
    /* A link changed state (may be NULL): health is its figures now. */
    void (*state)(void *data, const char *name, const cr_dgt_health *health);
    void *data;
} cr_board_sources_config;

typedef struct cr_board_sources cr_board_sources;

/* Returns the started sources, or NULL with err filled (bad path, too many
 * devices, out of memory, USB unavailable with nothing else asked for). */
cr_board_sources *cr_board_sources_start(struct event_base *base, const cr_board_sources_config *cfg,
                                         cr_error *err);
void cr_board_sources_free(cr_board_sources *s); /* accepts NULL */

/* Links open now (USB boards join as they are plugged in). */
int cr_board_sources_count(const cr_board_sources *s);
/* Health of the i-th link and its transport name ("serial:/dev/ttyUSB0"). */
cr_dgt_health cr_board_sources_health(const cr_board_sources *s, int i, const char **name);

/* The links' health as a JSON array (a new malloc'ed string, NULL when out
 * of memory): [{"device":..,"board":..,"state":"active","kind":"dgt"|
 * "millennium"|"certabo"|null,"clock":bool,"bad_frames":..,
 * "snapshots_per_min":..,"delay_ms":..,"battery":..,"disconnects":..,
 * "resyncs":..,"rotated":..}]. */
char *cr_board_sources_json(const cr_board_sources *s);

/* The same as Prometheus text (gauges labelled by board and device), a new
 * malloc'ed string or NULL. Empty string without links. */
char *cr_board_sources_metrics(const cr_board_sources *s);

#endif
