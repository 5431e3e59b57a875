/* chessrelay drivers: boards of every kind on serial ttys (RS-232 adapters /dev/ttyUSB*,
 * CDC-ACM /dev/ttyACM*, Bluetooth /dev/rfcomm*, and ptys for the emulator).
 *
 * The port is opened non-blocking at 9600 baud (or the speed the kind of
 * board being probed or linked needs, board_kind.h), 8N1, raw, no flow control,
 * with DTR/RTS raised; reads are driven by a libevent `struct event` on the
 * fd. EOF, EIO or a hang-up reports the link as broken; the link reopens the
 * path (so a replugged adapter or a re-created pty symlink is picked up).
 *
 * Ownership: cr_serial_transport_new returns a transport for cr_board_link_new,
 * which takes it. */
#ifndef CR_DRIVERS_SERIAL_H
#define CR_DRIVERS_SERIAL_H

#include <event2/event.h>

#include "board_link.h"

/* Opens and configures a tty. Returns the fd (O_NONBLOCK, O_NOCTTY,
 * close-on-exec) or a negative CR_E* code with err naming the path and cause. */
int cr_serial_open(const char *path, cr_error *err);

/* Puts an open terminal fd in raw 9600 8N1 mode. Returns 0 or CR_EIO. */
int cr_serial_configure(int fd);
/* The same at another speed (9600, 19200, 38400): the kinds of board_kind.h
 * all use 8N1 (Millennium's 7O1 is 8N1 with the parity bit made by its
 * codec, millennium.h). The transport follows the link's cr_serial_settings. */
int cr_serial_configure_baud(int fd, int baud);

/* The board id a port gives when the board does not say one: the path's
 * last part with characters outside A-Za-z0-9._- made '_' (at most 64). */
void cr_serial_fallback_id(const char *path, char out[CR_BOARD_ID_MAX + 1]);

/* A transport for path on base (borrowed). Returns 0 with *out filled, or
 * CR_EINVAL / CR_ENOMEM. The fallback board id is the path's last part. */
int cr_serial_transport_new(struct event_base *base, const char *path, cr_dgt_transport *out);

#endif
