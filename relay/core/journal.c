/* chessrelay relay: the journal. */
#include "core/journal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"

struct cr_journal {
    int fd;
    bool dirty;
    uint64_t syncs;
    char path[4096];
};

/* Journal files are "journal-NNNNNN.feed"; returns N or -1. */
static long journal_number(const char *name)
{
    unsigned long n;
    int used = 0;
    if (sscanf(name, "journal-%6lu.feed%n", &n, &used) == 1 && used > 0 &&
        name[used] == '\0' && strlen(name) == strlen("journal-000000.feed")) {
        return (long)n;
    }
    return -1;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The journal numbers in dir, sorted; *count set. NULL with count 0 if none. */
static long *list_journals(const char *dir, int *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        return NULL;
    }
    long *v = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long n = journal_number(e->d_name);
        if (n < 0) {
            continue;
        }
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            long *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) {
                break;
            }
            v = nv;
        }
        v[(*count)++] = n;
    }
    closedir(d);
    if (v) {
        qsort(v, (size_t)*count, sizeof *v, cmp_long);
    }
    return v;
}

static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

cr_journal *cr_journal_open(const char *dir, cr_error *err)
{
    if (cr_mkdir_p(dir)) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: cannot create: %s", dir, strerror(errno));
        return NULL;
    }
    int count;
    long *nums = list_journals(dir, &count);
    long next = count ? nums[count - 1] + 1 : 1;
    free(nums);
    cr_journal *j = calloc(1, sizeof *j);
    if (!j) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    snprintf(j->path, sizeof j->path, "%s/journal-%06ld.feed", dir, next);
    j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (j->fd < 0) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: %s", j->path, strerror(errno));
        free(j);
        return NULL;
    }
    /* The new file must survive a crash as much as its lines do. */
    sync_dir(dir);
    return j;
}

int cr_journal_append(cr_journal *j, const char *line, size_t len)
{
    int rc;
    if (len && line[len - 1] == '\n') {
        rc = cr_write_all(j->fd, line, len);
    } else {
        /* One write per line so that a line is torn only by a crash. */
        char stackbuf[1024];
        char *b = len + 1 <= sizeof stackbuf ? stackbuf : malloc(len + 1);
        if (!b) {
            return CR_ENOMEM;
        }
        memcpy(b, line, len);
        b[len] = '\n';
        rc = cr_write_all(j->fd, b, len + 1);
        if (b != stackbuf) {
            free(b);
        }
    }
    if (rc == 0) {
        j->dirty = true;
    }
    return rc;
}

int cr_journal_sync(cr_journal *j)
{
    if (!j->dirty) {
        return 0;
    }
    j->dirty = false;
    j->syncs++;
    return fdatasync(j->fd) ? CR_EIO : 0;
}

bool cr_journal_dirty(const cr_journal *j)
{
    return j->dirty;
}

const char *cr_journal_path(const cr_journal *j)
{
    return j->path;
}

uint64_t cr_journal_syncs(const cr_journal *j)
{
    return j->syncs;
}

void cr_journal_close(cr_journal *j)
{
    if (!j) {
        return;
    }
    cr_journal_sync(j);
    close(j->fd);
    free(j);
}

typedef struct replay_ctx {
    const char *name;
    cr_journal_line_fn fn;
    void *data;
    cr_journal_stats *st;
} replay_ctx;

static int replay_line(void *data, const char *line, size_t len, int lineno)
{
    replay_ctx *c = data;
    c->st->lines++;
    return c->fn(c->data, line, len, c->name, lineno);
}

/* Reads one journal file; drops (and cuts off) a torn last line, so that
 * the file reads as a clean feed. */
static int replay_file(const char *path, const char *name, cr_journal_line_fn fn, void *data,
                       cr_journal_stats *st, cr_error *err)
{
    replay_ctx c = {name, fn, data, st};
    bool torn;
    int rc = cr_read_lines(path, replay_line, &c, &torn, err);
    st->torn += torn;
    return rc;
}

int cr_journal_replay(const char *dir, cr_journal_line_fn fn, void *data, cr_journal_stats *stats,
                      cr_error *err)
{
    cr_journal_stats local = {0};
    cr_journal_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    int count;
    long *nums = list_journals(dir, &count);
    int rc = 0;
    for (int i = 0; i < count && !rc; i++) {
        char path[4096], name[64];
        snprintf(name, sizeof name, "journal-%06ld.feed", nums[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        st->files++;
        rc = replay_file(path, name, fn, data, st, err);
    }
    free(nums);
    return rc;
}
