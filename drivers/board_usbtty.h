/* chessrelay drivers: USB boards that the kernel makes serial ports of.
 *
 * Boards of kinds other than DGT (board_kind.h's USB table: Certabo's CP210x)
 * are read through the kernel's USB serial driver, not libusb: their
 * /dev/ttyUSB* or /dev/ttyACM* is found in sysfs, where
 * /sys/class/tty/NAME/device leads (up the tree) to the USB device and its
 * idVendor / idProduct. The board set adds them as serial links that probe
 * for the kind (board_set.h). */
#ifndef CR_DRIVERS_BOARD_USBTTY_H
#define CR_DRIVERS_BOARD_USBTTY_H

#include "board_kind.h"

typedef struct cr_board_usb_tty {
    char dev[96];                /* "/dev/ttyUSB0" */
    const cr_board_usb_id *id;   /* its entry in the USB table */
} cr_board_usb_tty;

/* Fills out (at most max) with the ttys of USB boards of non-DGT kinds, in
 * name order. sysroot: "" for the machine, or a test's tree that holds
 * sys/class/tty. Returns how many (0 when sysfs cannot be read). */
int cr_board_usb_ttys(const char *sysroot, cr_board_usb_tty *out, int max);

#endif
