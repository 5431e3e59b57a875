/* chessrelay relay: the few file operations every module needs, written once.
 *
 * All of them are plain POSIX; errors come back as CR_E* codes (and, where
 * an err is taken, a message naming the path). Nothing here is kept
 * between calls. */
#ifndef CR_RELAY_FILEIO_H
#define CR_RELAY_FILEIO_H

#include <stdbool.h>
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

/* Calls fn for each complete line of the append-only file at path, in
 * order (text without its "\n" or "\r\n"; lineno from 1), until fn returns
 * non-zero. A torn last line (no "\n": a crash mid-write) is not passed on
 * but cut off the file, so that the next append starts a line of its own;
 * *torn (may be NULL) tells. Returns 0, what fn returned, or CR_EIO with
 * err filled ("<path>: ..."; errno is ENOENT for a missing file). err may
 * be NULL. */
typedef int (*cr_line_fn)(void *data, const char *line, size_t len, int lineno);
int cr_read_lines(const char *path, cr_line_fn fn, void *data, bool *torn, cr_error *err);

#endif
