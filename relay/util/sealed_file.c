/* chessrelay relay: append-only files of sealed records (see sealed_file.h). */
#define _GNU_SOURCE /* memrchr */
#include "util/sealed_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct scan {
    const char *text;
    cr_line_fn fn;
    void *data;
    cr_sealed_stats *st;
} scan;

/* The lines of text[from, to) to the callback, numbered from lineno. */
static int hand_over(scan *s, size_t from, size_t to, int lineno)
{
    while (from < to) {
        const char *line = s->text + from;
        const char *nl = memchr(line, '\n', to - from);
        size_t len = (size_t)(nl - line);
        from += len + 1;
        s->st->lines++;
        int rc =
            s->fn ? s->fn(s->data, line, len && line[len - 1] == '\r' ? len - 1 : len, lineno) : 0;
        if (rc) {
            return rc;
        }
        lineno++;
    }
    return 0;
}

static int on_record(void *data, size_t from, size_t to, int first_line, const char *why,
                     int bad_line, bool keyed)
{
    scan *s = data;
    if (keyed) {
        s->st->keyed++;
    } else {
        s->st->unkeyed++;
    }
    if (why && !s->st->bad++) {
        s->st->bad_line = bad_line;
        snprintf(s->st->bad_why, sizeof s->st->bad_why, "%s", why);
    }
    return hand_over(s, from, to, first_line);
}

int cr_sealed_scan_text(const char *text, size_t len, cr_seal *chain, cr_line_fn fn, void *data,
                        cr_sealed_stats *st, size_t *keep)
{
    memset(st, 0, sizeof *st);
    scan s = {text, fn, data, st};
    int rc;
    if (!cr_seal_any(text, len)) {
        const char *last = len ? memrchr(text, '\n', len) : NULL;
        *keep = last ? (size_t)(last - text) + 1 : 0;
        st->unsealed = *keep > 0;
        rc = hand_over(&s, 0, *keep, 1);
    } else {
        int lines;
        rc = cr_seal_scan(text, len, chain, on_record, &s, keep, &lines);
    }
    st->torn = rc == 0 && *keep < len;
    return rc;
}

int cr_sealed_read(const char *path, bool repair, cr_line_fn fn, void *data, cr_seal *chain,
                   cr_sealed_stats *st, cr_error *err)
{
    cr_sealed_stats local;
    st = st ? st : &local;
    memset(st, 0, sizeof *st);
    cr_seal c = {{0}, false};
    char *text;
    size_t len, keep;
    int rc = cr_read_file(path, SIZE_MAX / 2, &text, &len, err);
    if (rc) {
        return rc;
    }
    rc = cr_sealed_scan_text(text, len, &c, fn, data, st, &keep);
    if (st->torn && repair && truncate(path, (off_t)keep) != 0) {
        rc = cr_error_set(err, CR_EIO, 0, 0, "%s: cannot cut the torn tail: %s", path,
                          strerror(errno));
    }
    if (rc == 0 && repair && st->unsealed) {
        /* The lines from before seals become the first record. */
        char line[CR_SEAL_LINE];
        cr_seal_record(&c, text, keep, line);
        int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd < 0 || cr_write_all(fd, line, sizeof line)) {
            rc = cr_error_set(err, CR_EIO, 0, 0, "%s: cannot seal: %s", path, strerror(errno));
        }
        if (fd >= 0) {
            close(fd);
        }
    }
    if (chain) {
        *chain = c;
    }
    free(text);
    return rc;
}

int cr_sealed_append(int fd, cr_seal *chain, const char *rec, size_t len)
{
    char stackbuf[1024];
    size_t n;
    cr_seal next;
    char *b = cr_seal_frame(chain, rec, len, stackbuf, sizeof stackbuf, &n, &next);
    if (!b) {
        return CR_ENOMEM;
    }
    int rc = cr_write_all(fd, b, n);
    if (rc == 0) {
        *chain = next;
    }
    if (b != stackbuf) {
        free(b);
    }
    return rc;
}
