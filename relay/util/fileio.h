/* chessrelay relay: the few file operations every module needs, written once.
 *
 * All of them are plain POSIX; errors come back as CR_E* codes (and, where
 * an err is taken, a message naming the path). Nothing here is kept
 * between calls. */
#ifndef CR_RELAY_FILEIO_H
#define CR_RELAY_FILEIO_H

#include <stddef.h>

#include "cr/common.h"

/* Writes all n bytes of p to fd, again after EINTR and short writes.
 * Returns 0 or CR_EIO (errno tells why). */
int cr_write_all(int fd, const char *p, size_t n);

/* Creates dir and every missing parent (mode 0755); an existing folder is
 * fine, an existing file in the way is ENOTDIR. Returns 0, or -1 with errno
 * set (ENAMETOOLONG past 4095 bytes). */
int cr_mkdir_p(const char *dir);

/* Reads the whole file at path into a new malloc'ed buffer, NUL-terminated
 * (*len excludes the NUL; the content may hold NUL bytes). Files larger
 * than max bytes are refused. Returns 0, or CR_EIO (cannot open: the
 * strerror text; a read error), CR_ERANGE (too large) or CR_ENOMEM with err
 * filled ("<path>: ..."); *out is NULL then. err may be NULL. */
int cr_read_file(const char *path, size_t max, char **out, size_t *len, cr_error *err);

#endif
