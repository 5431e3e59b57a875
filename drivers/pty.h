/* chessrelay drivers: a pseudo-terminal standing in for a board's serial
 * port. The emulator (`chessrelay emulate`) plays a board on the master side;
 * the test rigs of the serial transport, the link and the board sources do
 * the same. The host opens the slave's path like any tty (serial.h).
 *
 * Ownership: cr_pty_open fills a caller-owned cr_pty; cr_pty_close closes
 * its descriptors (the struct itself is the caller's). */
#ifndef CR_DRIVERS_PTY_H
#define CR_DRIVERS_PTY_H

#include <stdbool.h>

#include "cr/common.h"

typedef struct cr_pty {
    int master;     /* non-blocking, close-on-exec; -1 when closed */
    int slave;      /* raw mode, close-on-exec; -1 unless held */
    char path[128]; /* the slave's device, /dev/pts/N */
} cr_pty;

/* Opens a master and makes its slave usable. With hold_slave the slave is
 * opened (raw) and kept open by us: a master whose slave nobody holds reads
 * EIO/hang-up in a loop while its host is between opens. Returns 0, or
 * CR_EIO with err saying why (p is then closed). */
int cr_pty_open(cr_pty *p, bool hold_slave, cr_error *err);

/* Points the symbolic link `link` at the slave, replacing whatever was there
 * in one rename (a host reopening the link never sees it missing). Returns
 * 0, or CR_EIO with err naming the link and the cause. */
int cr_pty_link(const cr_pty *p, const char *link, cr_error *err);

/* Closes both sides (accepts a closed or half-open one). */
void cr_pty_close(cr_pty *p);

#endif
