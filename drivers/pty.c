/* Pseudo-terminals for emulated boards: see pty.h. */
#define _XOPEN_SOURCE 700 /* posix_openpt, grantpt, unlockpt, ptsname */
#include "pty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

int cr_pty_open(cr_pty *p, bool hold_slave, cr_error *err)
{
    p->master = -1;
    p->slave = -1;
    p->path[0] = '\0';
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0) {
        int e = errno;
        if (m >= 0) {
            close(m);
        }
        return cr_error_set(err, CR_EIO, 0, 0, "cannot create a pty: %s", strerror(e));
    }
    p->master = m;
    const char *name = ptsname(m);
    if (!name || strlen(name) >= sizeof p->path) {
        cr_pty_close(p);
        return cr_error_set(err, CR_EIO, 0, 0, "pty: no usable slave name");
    }
    snprintf(p->path, sizeof p->path, "%s", name);
    if (fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK) < 0 || fcntl(m, F_SETFD, FD_CLOEXEC) < 0) {
        int e = errno;
        cr_pty_close(p);
        return cr_error_set(err, CR_EIO, 0, 0, "pty %s: %s", name, strerror(e));
    }
    if (hold_slave) {
        p->slave = open(p->path, O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (p->slave < 0) {
            int e = errno;
            cr_error_set(err, CR_EIO, 0, 0, "%s: %s", p->path, strerror(e));
            cr_pty_close(p);
            return CR_EIO;
        }
        struct termios tio;
        if (tcgetattr(p->slave, &tio) == 0) {
            cfmakeraw(&tio);
            tcsetattr(p->slave, TCSANOW, &tio);
        }
    }
    return 0;
}

int cr_pty_link(const cr_pty *p, const char *link, cr_error *err)
{
    size_t n = strlen(link) + sizeof ".tmp";
    char *tmp = malloc(n);
    if (!tmp) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "%s: out of memory", link);
    }
    snprintf(tmp, n, "%s.tmp", link);
    unlink(tmp);
    int rc = 0;
    if (symlink(p->path, tmp) < 0 || rename(tmp, link) < 0) {
        rc = cr_error_set(err, CR_EIO, 0, 0, "%s: %s", link, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

void cr_pty_close(cr_pty *p)
{
    if (p->slave >= 0) {
        close(p->slave);
    }
    if (p->master >= 0) {
        close(p->master);
    }
    p->slave = -1;
    p->master = -1;
}
