/* chessrelay relay: an edge's sealed state log (see edge_log.h). */
#include "edge/edge_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/sealed_file.h"

struct cr_edge_log {
    char *path;
    int fd;
    cr_seal chain;
    char *line; /* the record being written */
    size_t cap;
};

typedef struct reader {
    const char *path;
    cr_edge_log_fn fn;
    void *data;
    cr_edge_log_stats *st;
} reader;

static int read_line(void *data, const char *line, size_t len, int lineno)
{
    reader *r = data;
    cr_error err;
    cr_error_clear(&err);
    cr_edge_msg *m = cr_edge_msg_parse(line, len, &err);
    if (!m) {
        if (err.code == CR_ENOMEM) {
            return CR_ENOMEM;
        }
        if (!r->st->unreadable++) {
            snprintf(r->st->first_unreadable, sizeof r->st->first_unreadable, "%s:%d: %s",
                     r->path, lineno, err.text);
        }
        return 0;
    }
    r->st->messages++;
    r->fn(r->data, m);
    return 0;
}

cr_edge_log *cr_edge_log_open(const char *dir, const char *stream, cr_edge_log_fn fn, void *data,
                              cr_edge_log_stats *st, cr_error *err)
{
    memset(st, 0, sizeof *st);
    if (cr_mkdir_p(dir)) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    cr_edge_log *l = calloc(1, sizeof *l);
    size_t n = strlen(dir) + strlen(stream) + 16;
    char *path = malloc(n);
    if (!l || !path) {
        free(l);
        free(path);
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    snprintf(path, n, "%s/edge-%s.log", dir, stream);
    l->path = path;
    l->fd = -1;
    reader r = {path, fn, data, st};
    cr_sealed_stats ss;
    int rc = cr_sealed_read(path, true, read_line, &r, &l->chain, &ss, err);
    if (rc == CR_ENOMEM) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "%s: out of memory", path);
    }
    if (rc && !(rc == CR_EIO && errno == ENOENT)) {
        cr_edge_log_free(l);
        return NULL;
    }
    st->found = rc == 0;
    st->torn = ss.torn;
    st->unsealed = ss.unsealed;
    st->bad_seals = ss.bad;
    if (ss.bad) {
        snprintf(st->seal_problem, sizeof st->seal_problem, "%s:%d: %s", path, ss.bad_line,
                 ss.bad_why);
    }
    l->fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (l->fd < 0) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
        cr_edge_log_free(l);
        return NULL;
    }
    return l;
}

void cr_edge_log_free(cr_edge_log *l)
{
    if (!l) {
        return;
    }
    if (l->fd >= 0) {
        close(l->fd);
    }
    free(l->path);
    free(l->line);
    free(l);
}

const char *cr_edge_log_path(const cr_edge_log *l)
{
    return l->path;
}

int cr_edge_log_append(cr_edge_log *l, const cr_edge_msg *m)
{
    int n = cr_edge_msg_line(m, &l->line, &l->cap);
    if (n < 0) {
        return n;
    }
    return cr_sealed_append(l->fd, &l->chain, l->line, (size_t)n);
}
