/* chessrelay relay: export folder files with POSIX calls. */
#include "out/export_files.h"

#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_MAX_LEN 4096

/* mkdir -p with the path named in the error. */
static int make_dirs(const char *path, cr_error *err)
{
    if (cr_mkdir_p(path) != 0) {
        return errno == ENOTDIR
                   ? cr_error_set(err, CR_EIO, 0, 0, "%s: a file where a folder must be: not a directory", path)
                   : cr_error_set(err, CR_EIO, 0, 0, "%s: cannot create directory: %s", path,
                                  strerror(errno));
    }
    return 0;
}

static int io_read(void *data, const char *path, char **text, size_t *len)
{
    (void)data;
    /* A PGN file of a round is a few MB at most; a larger one is rewritten. */
    return cr_read_file(path, (size_t)64 << 20, text, len, NULL);
}

/* Writes text to dir/name through a hidden temporary file in the same
 * directory and a rename, so that the target is replaced whole or not at all. */
static int io_replace(void *data, const char *dir, const char *name, const char *path,
                      const char *text, size_t len, cr_error *err)
{
    (void)data;
    char tmp[PATH_MAX_LEN];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s", dir) >= sizeof tmp) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: path too long", path);
    }
    int rc = make_dirs(tmp, err);
    if (rc) {
        return rc;
    }
    if ((size_t)snprintf(tmp, sizeof tmp, "%s/.%s.XXXXXX", dir, name) >= sizeof tmp) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: path too long", path);
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: cannot create a temporary file: %s", path,
                            strerror(errno));
    }
    const char *what = NULL;
    if (cr_write_all(fd, text, len) != 0) {
        what = "write";
    } else if (fchmod(fd, 0644) != 0) {
        what = "chmod";
    } else if (fsync(fd) != 0) {
        what = "fsync";
    }
    int e = errno;
    if (close(fd) != 0 && !what) {
        what = "close";
        e = errno;
    }
    if (!what && rename(tmp, path) != 0) {
        what = "rename";
        e = errno;
    }
    if (what) {
        unlink(tmp);
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s failed: %s", path, what, strerror(e));
    }
    /* Make the rename itself durable; a failure here loses nothing visible. */
    int dfd = open(dir, O_RDONLY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    return 0;
}

static int io_remove(void *data, const char *path, cr_error *err)
{
    (void)data;
    if (unlink(path) != 0 && errno != ENOENT) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: cannot remove: %s", path, strerror(errno));
    }
    return 0;
}

const cr_export_io *cr_export_files_io(void)
{
    static const cr_export_io io = {io_read, io_replace, io_remove, NULL};
    return &io;
}
