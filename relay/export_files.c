/* chessrelay relay: export folder files with POSIX calls (see export_files.h). */
#include "export_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_MAX_LEN 4096

int cr_file_read_all(const char *path, size_t max, char **text, size_t *len, cr_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            size_t ncap = cap ? 2 * cap : 65536 * 2;
            char *b = n <= max ? realloc(buf, ncap) : NULL;
            if (!b) {
                free(buf);
                fclose(f);
                return n > max ? cr_error_set(err, CR_ERANGE, 0, 0, "%s: larger than %zu MB", path,
                                              max >> 20)
                               : cr_error_set(err, CR_ENOMEM, 0, 0, "%s: out of memory", path);
            }
            buf = b;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, 65536, f);
        n += got;
        if (got < 65536) {
            break;
        }
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad || n > max) {
        free(buf);
        return bad ? cr_error_set(err, CR_EIO, 0, 0, "%s: read error", path)
                   : cr_error_set(err, CR_ERANGE, 0, 0, "%s: larger than %zu MB", path, max >> 20);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

/* mkdir -p: creates path and its missing parents. */
static int make_dirs(char *path, cr_error *err)
{
    size_t n = strlen(path);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0') {
            continue;
        }
        char saved = path[i];
        path[i] = '\0';
        struct stat st;
        int rc = 0;
        if (stat(path, &st) != 0) {
            if (errno != ENOENT || (mkdir(path, 0755) != 0 && errno != EEXIST)) {
                rc = cr_error_set(err, CR_EIO, 0, 0, "%s: cannot create directory: %s", path,
                                  strerror(errno));
            }
        } else if (!S_ISDIR(st.st_mode)) {
            rc = cr_error_set(err, CR_EIO, 0, 0, "%s: not a directory", path);
        }
        path[i] = saved;
        if (rc) {
            return rc;
        }
    }
    return 0;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static int io_read(void *data, const char *path, char **text, size_t *len)
{
    (void)data;
    /* A PGN file of a round is a few MB at most; a larger one is rewritten. */
    return cr_file_read_all(path, (size_t)64 << 20, text, len, NULL);
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
    if (write_all(fd, text, len) != 0) {
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
