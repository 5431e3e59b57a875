/* chessrelay drivers: a set of board links, of every kind, on one libevent loop.
 *
 * Every command that talks to boards (serve, agent, record, boards) holds
 * its boards in one of these: serial devices added by path (serial.h),
 * USB boards found by a scan and, if asked, those plugged in later
 * (dgt_usb.h, hotplug or a rescan), each as a cr_board_link (board_link.h)
 * started at once with the set's link configuration (its kind of board,
 * board_kind.h, applies to serial ports; USB links are DGT boards). A USB board already
 * linked is not added twice; one unplugged is left to its link, which
 * reopens it when it is back. Every link's events and state changes go to
 * the set's callbacks.
 *
 * Ownership: cr_board_set_new returns a new set; cr_board_set_free
 * frees its links and the USB context, and must come before the
 * event_base's (borrowed). Callbacks run in the loop's thread and must not
 * free the set. */
#ifndef CR_DRIVERS_BOARD_SET_H
#define CR_DRIVERS_BOARD_SET_H

#include <event2/event.h>

#include "cr/common.h"
#include "board_link.h"

typedef struct cr_board_set_config {
    cr_board_link_config link; /* for every link (clock, raw bytes, update mode...) */
    int max_links;           /* 0: 256 */
    cr_dgt_event_cb event;   /* may be NULL */
    void (*state)(void *data, cr_board_link *link, cr_board_link_state st); /* may be NULL */
    /* A USB board was seen: ok false when it could not be used (may be NULL). */
    void (*usb)(void *data, const char *name, bool ok);
    void *data;
} cr_board_set_config;

typedef struct cr_board_set cr_board_set;

/* NULL when out of memory. cfg is copied. */
cr_board_set *cr_board_set_new(struct event_base *base, const cr_board_set_config *cfg);
void cr_board_set_free(cr_board_set *s); /* accepts NULL */

/* Adds and starts a link on the tty at path (a device missing now is not an
 * error: the link retries until it appears). Returns 0, or CR_EINVAL (bad
 * path) / CR_ENOMEM (out of memory, or max_links reached) with err filled. */
int cr_board_set_add_serial(cr_board_set *s, const char *path, cr_error *err);

/* Opens USB, links every DGT board plugged in now and, with watch, every
 * one plugged in later; also the serial ports the kernel made of USB boards
 * of other kinds plugged in now (board_usbtty.h: Certabo), probed for the
 * kind. Returns the boards found now (>= 0), or CR_EIO with err filled when
 * USB is unavailable and no such port was found. Once per set. */
int cr_board_set_add_usb(cr_board_set *s, bool watch, cr_error *err);

/* Whether USB arrivals come by hotplug (else by a rescan every second). */
bool cr_board_set_usb_hotplug(const cr_board_set *s);

/* Links now (USB boards join as they are plugged in); the i-th (NULL if
 * out of range). */
int cr_board_set_count(const cr_board_set *s);
cr_board_link *cr_board_set_link(const cr_board_set *s, int i);

#endif
