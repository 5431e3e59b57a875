/* chessrelay relay: the seals' key file (see seal_key.h). */
#include "util/seal_key.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int cr_seal_key_load(const char *dir, cr_seal_key *key, cr_error *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, CR_SEAL_KEY_FILE);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) {
            return CR_EEOF;
        }
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    struct stat sb;
    char text[2 * CR_SEAL_BYTES + 2];
    ssize_t n = fstat(fd, &sb) == 0 ? read(fd, text, sizeof text) : -1;
    close(fd);
    if (n < 0) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    if (sb.st_mode & 077) {
        return cr_error_set(err, CR_ECONFIG, 0, 0,
                            "%s: readable by others (mode %04o): chmod 600 it", path,
                            (unsigned)(sb.st_mode & 07777));
    }
    if (n != (ssize_t)sizeof text - 1 || text[2 * CR_SEAL_BYTES] != '\n') {
        return cr_error_set(err, CR_ECONFIG, 0, 0, "%s: expected 64 hex digits and a newline",
                            path);
    }
    for (int i = 0; i < CR_SEAL_BYTES; i++) {
        int hi = hexval(text[2 * i]), lo = hexval(text[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return cr_error_set(err, CR_ECONFIG, 0, 0, "%s: expected 64 hex digits and a newline",
                                path);
        }
        key->k[i] = (unsigned char)(hi * 16 + lo);
    }
    return 0;
}

/* A new random key written to dir/seal.key (0600, never over another). */
static int make_key(const char *dir, cr_error *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, CR_SEAL_KEY_FILE);
    unsigned char k[CR_SEAL_BYTES];
    if (getrandom(k, sizeof k, 0) != (ssize_t)sizeof k) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: no random bytes: %s", path, strerror(errno));
    }
    char text[2 * CR_SEAL_BYTES + 1];
    for (int i = 0; i < CR_SEAL_BYTES; i++) {
        snprintf(text + 2 * i, 3, "%02x", k[i]);
    }
    text[2 * CR_SEAL_BYTES] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        return errno == EEXIST ? 0 : cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    int rc = cr_write_all(fd, text, sizeof text);
    if (rc == 0 && fsync(fd) != 0) {
        rc = CR_EIO;
    }
    close(fd);
    if (rc) {
        unlink(path);
        return cr_error_set(err, CR_EIO, 0, 0, "%s: cannot write: %s", path, strerror(errno));
    }
    return 0;
}

int cr_seal_key_setup(const char *dir, bool create, bool *created, cr_error *err)
{
    cr_seal_key key;
    if (created) {
        *created = false;
    }
    int rc = cr_seal_key_load(dir, &key, err);
    if (rc == CR_EEOF && create) {
        if (cr_mkdir_p(dir) != 0) {
            return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", dir, strerror(errno));
        }
        rc = make_key(dir, err);
        if (rc == 0 && created) {
            *created = true;
        }
        rc = rc ? rc : cr_seal_key_load(dir, &key, err);
    }
    if (rc && rc != CR_EEOF) {
        return rc;
    }
    cr_seal_use_key(rc == 0 ? &key : NULL);
    return 0;
}
