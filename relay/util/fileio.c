/* chessrelay relay: whole-file and line reads, full writes, folder
 * creation. */
#include "util/fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cr_write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            return CR_EIO;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* mkdir that is content with a folder already there, not with a file. */
static int make_one(const char *path)
{
    if (mkdir(path, 0755) == 0) {
        return 0;
    }
    struct stat st;
    if (errno != EEXIST || stat(path, &st) != 0) {
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int cr_mkdir_p(const char *dir)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s", dir) >= (int)sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (make_one(tmp) != 0) {
                return -1;
            }
            *p = '/';
        }
    }
    return make_one(tmp);
}

static int fail(cr_error *err, int code, const char *path, const char *what)
{
    if (err) {
        cr_error_set(err, code, 0, 0, "%s: %s", path, what);
    }
    return code;
}

int cr_read_file(const char *path, size_t max, char **out, size_t *len, cr_error *err)
{
    enum { CHUNK = 65536 };
    *out = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        return fail(err, CR_EIO, path, strerror(errno));
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (n + CHUNK + 1 > cap) {
            size_t ncap = cap ? 2 * cap : 2 * CHUNK;
            char *b = realloc(buf, ncap);
            if (!b) {
                rc = fail(err, CR_ENOMEM, path, "out of memory");
                break;
            }
            buf = b;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, CHUNK, f);
        n += got;
        if (n > max) {
            char what[64];
            snprintf(what, sizeof what, "larger than %zu MB", max >> 20);
            rc = fail(err, CR_ERANGE, path, what);
            break;
        }
        if (got < CHUNK) {
            if (ferror(f)) {
                rc = fail(err, CR_EIO, path, "read error");
            }
            break;
        }
    }
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

int cr_read_lines(const char *path, cr_line_fn fn, void *data, bool *torn, cr_error *err)
{
    if (torn) {
        *torn = false;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        fail(err, CR_EIO, path, strerror(e));
        errno = e;
        return CR_EIO;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0, rc = 0;
    off_t good_end = 0; /* after the last complete line */
    bool cut = false;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] != '\n') {
            cut = true;
            break;
        }
        good_end += (off_t)n;
        size_t len = (size_t)n - 1;
        if (len && line[len - 1] == '\r') {
            len--;
        }
        rc = fn(data, line, len, lineno);
        if (rc) {
            break;
        }
    }
    if (!rc && !cut && ferror(f)) {
        rc = fail(err, CR_EIO, path, "read error");
    }
    fclose(f);
    free(line);
    if (cut) {
        if (torn) {
            *torn = true;
        }
        if (truncate(path, good_end)) {
            char what[160];
            snprintf(what, sizeof what, "cannot cut the torn line %d: %s", lineno,
                     strerror(errno));
            rc = fail(err, CR_EIO, path, what);
        }
    }
    return rc;
}
