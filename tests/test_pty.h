/* The pty rig the driver suites share (header only): the test plays the
 * board on the master side of a pty (drivers/pty.h) and the code under test
 * opens the slave. Include after <cmocka.h>. */
#ifndef CR_TEST_PTY_H
#define CR_TEST_PTY_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pty.h"

/* Opens a pty and returns its master (non-blocking). The slave is reached
 * at path: the device itself when dir is NULL; else a symbolic link
 * dir/name in a fresh folder made from dir's mkdtemp template, e.g.
 * "/tmp/cr-serial-XXXXXX" (not the device's own path: once closed, its
 * number may go to another process's new pty, since tests run side by side,
 * and reopening it would then succeed; the link is ours to remove, like a
 * USB adapter's node). */
static inline int cr_test_pty_open(char *path, size_t size, char *dir, const char *name)
{
    cr_pty p;
    cr_error err;
    if (cr_pty_open(&p, false, &err) != 0) {
        fail_msg("%s", err.text);
    }
    if (!dir) {
        snprintf(path, size, "%s", p.path);
        return p.master;
    }
    assert_non_null(mkdtemp(dir));
    assert_true((size_t)snprintf(path, size, "%s/%s", dir, name) < size);
    if (cr_pty_link(&p, path, &err) != 0) {
        fail_msg("%s", err.text);
    }
    return p.master;
}

/* Removes what cr_test_pty_open made besides the master (closed by the rig,
 * which may have closed it already to unplug the board). */
static inline void cr_test_pty_unlink(const char *path, const char *dir)
{
    if (dir) {
        unlink(path);
        rmdir(dir);
    }
}

#endif
