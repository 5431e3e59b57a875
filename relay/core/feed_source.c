/* chessrelay relay: feed files on a feed clock. */
#include "core/feed_source.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/log.h"

typedef struct file {
    char *path;
    FILE *f;
    cr_feed_reader *rd;
    cr_feed_event ev;
    bool have;
} file;

struct cr_feed_source {
    cr_feed_source_config cfg;
    file *files;
    int nfiles, left;
    struct event *timer;
    const char *current; /* the path of the file whose event is being passed on */
};

int64_t cr_feed_clock_now(const cr_feed_clock *c)
{
    int64_t w = cr_now_us() / 1000;
    return c->epoch_ms + (int64_t)((double)(w - c->epoch_ms) * c->speed);
}

static const char *prefix(const cr_feed_source *s)
{
    return s->cfg.log_prefix ? s->cfg.log_prefix : "";
}

/* The file's next event; at its end, says so. */
static void read_next(cr_feed_source *s, file *fl)
{
    for (;;) {
        cr_error err;
        int rc = cr_feed_reader_next(fl->rd, &fl->ev, &err);
        if (rc < 0) {
            cr_log(CR_LOG_WARN, "%s%s (line skipped)", prefix(s), err.text);
            if (rc == CR_EFEED) {
                continue;
            }
        } else if (rc > 0 && err.code) {
            cr_log(CR_LOG_WARN, "%s%s", prefix(s), err.text);
        }
        fl->have = rc > 0;
        break;
    }
    if (!fl->have) {
        s->left--;
        if (s->cfg.file_done) {
            s->cfg.file_done(s->cfg.data, fl->path);
        }
    }
}

/* The file whose event comes first (ties: the first file), or NULL. */
static file *next_file(const cr_feed_source *s)
{
    file *best = NULL;
    for (int i = 0; i < s->nfiles; i++) {
        if (s->files[i].have && (!best || s->files[i].ev.t < best->ev.t)) {
            best = &s->files[i];
        }
    }
    return best;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    cr_feed_source *s = arg;
    const cr_feed_clock *c = s->cfg.clock;
    int64_t now = cr_feed_clock_now(c);
    int n = 0;
    file *fl;
    while ((fl = next_file(s)) != NULL && n < s->cfg.batch) {
        if (s->cfg.skip && s->cfg.skip(s->cfg.data, &fl->ev)) {
            read_next(s, fl); /* journaled by an earlier run */
            continue;
        }
        if (c->epoch_ms + fl->ev.t > now) {
            break;
        }
        cr_feed_event ev = fl->ev;
        ev.t += c->epoch_ms;
        n++;
        s->current = fl->path;
        s->cfg.event(s->cfg.data, &ev);
        s->current = NULL;
        read_next(s, fl);
    }
    if (!fl) {
        if (s->cfg.done) {
            s->cfg.done(s->cfg.data);
        }
        return;
    }
    int64_t due_wall = c->epoch_ms + (int64_t)((double)fl->ev.t / c->speed);
    int64_t wait = n >= s->cfg.batch ? 0 : due_wall - cr_now_us() / 1000;
    if (wait < 0) {
        wait = 0;
    }
    struct timeval tv = {(time_t)(wait / 1000), (suseconds_t)(wait % 1000) * 1000};
    evtimer_add(s->timer, &tv);
}

const char *cr_feed_source_current(const cr_feed_source *s)
{
    return s ? s->current : NULL;
}

cr_feed_source *cr_feed_source_new(struct event_base *base, const char *const *paths, int count,
                                   const cr_feed_source_config *cfg, cr_error *err)
{
    cr_feed_source *s = calloc(1, sizeof *s);
    if (!s || !(s->files = calloc((size_t)(count > 0 ? count : 1), sizeof *s->files)) ||
        !(s->timer = evtimer_new(base, on_timer, s))) {
        cr_feed_source_free(s);
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    if (s->cfg.batch <= 0) {
        s->cfg.batch = 1000;
    }
    for (int i = 0; i < count; i++) {
        file *fl = &s->files[s->nfiles++];
        fl->path = strdup(paths[i]);
        fl->f = fopen(paths[i], "r");
        if (!fl->f || !fl->path) {
            cr_error_set(err, CR_EIO, 0, 0, "%s: %s", paths[i], strerror(errno));
            cr_feed_source_free(s);
            return NULL;
        }
        fl->rd = cr_feed_reader_new(fl->f, paths[i]);
        if (!fl->rd) {
            cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
            cr_feed_source_free(s);
            return NULL;
        }
        cr_feed_reader_set_keep_going(fl->rd, true);
    }
    return s;
}

void cr_feed_source_start(cr_feed_source *s)
{
    s->left = s->nfiles;
    for (int i = 0; i < s->nfiles; i++) {
        read_next(s, &s->files[i]);
    }
    struct timeval zero = {0, 0};
    evtimer_add(s->timer, &zero);
}

void cr_feed_source_stop(cr_feed_source *s)
{
    if (s) {
        event_del(s->timer);
    }
}

int64_t cr_feed_source_next_t(const cr_feed_source *s)
{
    const file *fl = s ? next_file(s) : NULL;
    return fl ? s->cfg.clock->epoch_ms + fl->ev.t : INT64_MAX;
}

void cr_feed_source_free(cr_feed_source *s)
{
    if (!s) {
        return;
    }
    if (s->timer) {
        event_free(s->timer);
    }
    for (int i = 0; i < s->nfiles; i++) {
        cr_feed_reader_free(s->files[i].rd);
        if (s->files[i].f) {
            fclose(s->files[i].f);
        }
        free(s->files[i].path);
    }
    free(s->files);
    free(s);
}
