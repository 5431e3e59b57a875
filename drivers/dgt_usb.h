/* chessrelay drivers: DGT boards over libusb-1.0, on a libevent loop.
 *
 * Finds boards by VID:PID (0403:6001, the FTDI FT232 of older USB boards,
 * plus configured extra ids) and CDC-ACM boards by interface class. Opening a
 * board detaches the kernel driver (ftdi_sio / cdc_acm), claims the
 * interface(s) and brings the link up: FTDI reset, purge RX/TX, 9600 baud
 * (divisor 0x4138), 8N1 (0x0008), no flow control, DTR and RTS on, latency
 * timer; CDC-ACM: line coding 9600 8N1 and DTR|RTS. Reads are asynchronous
 * bulk transfers whose completion runs from libusb's pollfds, watched by
 * libevent events (libusb_get_pollfds + libusb_set_pollfd_notifiers, plus a
 * timer for libusb's timeouts when the platform needs it): never a busy loop.
 * FTDI packets carry 2 status bytes at every 64-byte boundary: stripped.
 *
 * Hotplug: libusb_hotplug_register_callback where supported, else a rescan
 * every second; boards are identified by their port path ("usb:1-2.3"), so a
 * board replugged in the same port is reopened by its link.
 *
 * Ownership: cr_usb_new returns a new context, free with cr_usb_free after
 * every link using it. The event_base is borrowed. */
#ifndef CR_DRIVERS_DGT_USB_H
#define CR_DRIVERS_DGT_USB_H

#include <event2/event.h>

#include "board_link.h"

#define CR_USB_VID_FTDI 0x0403
#define CR_USB_PID_FT232 0x6001
#define CR_USB_EXTRA_IDS 8

/* FTDI vendor requests (bmRequestType 0x40) and values. */
enum {
    CR_FTDI_RESET = 0x00,
    CR_FTDI_MODEM_CTRL = 0x01,
    CR_FTDI_SET_FLOW_CTRL = 0x02,
    CR_FTDI_SET_BAUD_RATE = 0x03,
    CR_FTDI_SET_DATA = 0x04,
    CR_FTDI_SET_LATENCY_TIMER = 0x09,
    CR_FTDI_BAUD_9600 = 0x4138,
    CR_FTDI_DATA_8N1 = 0x0008
};

typedef struct cr_usb_config {
    uint16_t extra_ids[CR_USB_EXTRA_IDS][2]; /* more VID:PID pairs to treat as boards */
    int n_extra;
    bool cdc_acm;          /* also CDC-ACM devices (class 0x02/0x0A); default true */
    int latency_ms;        /* FTDI latency timer, 1..255 (default 4) */
} cr_usb_config;

void cr_usb_config_default(cr_usb_config *cfg);

typedef struct cr_usb cr_usb;

typedef struct cr_usb_board_desc {
    char name[64];         /* "usb:BUS-PORT.PORT..." */
    uint16_t vid, pid;
    uint8_t bus;
    uint8_t ports[8];
    int nports;
    bool ftdi;             /* FTDI framing; false = CDC-ACM */
} cr_usb_board_desc;

/* Returns a new context, or NULL with err filled (libusb missing, no USB). */
cr_usb *cr_usb_new(struct event_base *base, const cr_usb_config *cfg, cr_error *err);
void cr_usb_free(cr_usb *u); /* accepts NULL */

/* Lists the boards plugged in now. Returns how many (<= max) or CR_EIO. */
int cr_usb_scan(cr_usb *u, cr_usb_board_desc *out, int max);

/* Calls cb when a board arrives or leaves (hotplug or a 1 s rescan). */
typedef void (*cr_usb_watch_cb)(void *data, const cr_usb_board_desc *d, bool arrived);
int cr_usb_watch(cr_usb *u, cr_usb_watch_cb cb, void *data);
/* Whether libusb reports hotplug support (else rescanning). */
bool cr_usb_has_hotplug(const cr_usb *u);

/* A transport for the board at d's port, for cr_board_link_new (which takes it). */
int cr_usb_transport_new(cr_usb *u, const cr_usb_board_desc *d, cr_dgt_transport *out);

/* Copies the data bytes of an FTDI bulk-IN buffer to out (at least len bytes),
 * dropping the 2 status bytes that start every 64-byte packet. Returns the
 * number of data bytes. */
size_t cr_ftdi_strip_status(const uint8_t *in, size_t len, uint8_t *out);

#endif
