/* chessrelay drivers: DGT boards on serial ttys (RS-232 adapters /dev/ttyUSB*,
 * CDC-ACM /dev/ttyACM*, Bluetooth /dev/rfcomm*, and ptys for the emulator).
 *
 * The port is opened non-blocking at 9600 baud, 8N1, raw, no flow control,
 * with DTR/RTS raised; reads are driven by a libevent `struct event` on the
 * fd. EOF, EIO or a hang-up reports the link as broken; the link reopens the
 * path (so a replugged adapter or a re-created pty symlink is picked up).
 *
 * Ownership: cr_serial_transport_new returns a transport for cr_dgt_link_new,
 * which takes it. */
#ifndef CR_DRIVERS_DGT_SERIAL_H
#define CR_DRIVERS_DGT_SERIAL_H

#include <event2/event.h>

#include "dgt_link.h"

/* Opens and configures a tty. Returns the fd (O_NONBLOCK, O_NOCTTY,
 * close-on-exec) or a negative CR_E* code with err naming the path and cause. */
int cr_serial_open(const char *path, cr_error *err);

/* Puts an open terminal fd in raw 9600 8N1 mode. Returns 0 or CR_EIO. */
int cr_serial_configure(int fd);

/* A transport for path on base (borrowed). Returns 0 with *out filled, or
 * CR_EINVAL / CR_ENOMEM. The fallback board id is the path's last part. */
int cr_serial_transport_new(struct event_base *base, const char *path, cr_dgt_transport *out);

#endif
