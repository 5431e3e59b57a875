/* chessrelay relay: the journal. */
#include "core/journal.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/log.h"
#include "util/seal.h"
#include "util/seal_head.h"
#include "util/sealed_file.h"
#include "util/sign.h"

enum { PENDING_MAX = 64 * 1024 * 1024 }; /* bytes held while the disk refuses them */
#define JOURNAL_MAX ((size_t)4 << 30) /* bytes of one journal file read back */

/* bytes held while the disk refuses them */

struct cr_journal {
    int fd;
    uint64_t syncs;
    char path[4096];
    cr_journal_io io;
    off_t good;            /* the file's size after its last whole line */
    uint64_t appended;     /* lines accepted (their positions are 1, 2, ...) */
    uint64_t written;      /* of those, written whole */
    uint64_t synced;       /* of those, written and fsync'ed */
    bool failing;          /* a write failed: lines are held in `pend`, retried */
    bool cut;              /* the file must be cut back to `good` first */
    bool full;             /* `pend` overflowed: nothing more is accepted */
    char *pend;            /* held lines, each with its "\n" */
    size_t pend_len, pend_cap;
    uint64_t write_errors; /* failed writes and fsyncs */
    char problem[200];     /* why the journal is not sound ("": it is) */
    cr_seal chain;         /* the last record's seal */
};

static ssize_t default_write(void *data, int fd, const void *buf, size_t len)
{
    (void)data;
    return write(fd, buf, len);
}

static int default_sync(void *data, int fd)
{
    (void)data;
    return fdatasync(fd);
}

static int default_truncate(void *data, int fd, off_t size)
{
    (void)data;
    return ftruncate(fd, size);
}

/* Writes len bytes; false (errno set) if not all of them were written. */
static bool write_whole(cr_journal *j, const char *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = j->io.write(j->io.data, j->fd, buf + done, len - done);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = ENOSPC;
            }
            if (done) {
                j->cut = true; /* a torn line: never appended after */
            }
            return false;
        }
        done += (size_t)n;
    }
    j->good += (off_t)len;
    return true;
}

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

/* The last whole seal of the journal at path into out (left as it is when
 * the file has none: an older journal, or none yet). */
static void last_seal(const char *path, cr_seal *out)
{
    char *text;
    size_t len;
    if (cr_read_file(path, JOURNAL_MAX, &text, &len, NULL)) {
        return;
    }
    cr_seal_last(text, len, out);
    free(text);
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
    cr_seal chain = {{0}, false};
    if (count) {
        char prev[4096];
        snprintf(prev, sizeof prev, "%s/journal-%06ld.feed", dir, nums[count - 1]);
        last_seal(prev, &chain);
    }
    free(nums);
    cr_journal *j = calloc(1, sizeof *j);
    if (!j) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    j->io = (cr_journal_io){default_write, default_sync, default_truncate, NULL};
    j->chain = chain; /* the chain goes on across runs */
    snprintf(j->path, sizeof j->path, "%s/journal-%06ld.feed", dir, next);
    j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (j->fd < 0) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: %s", j->path, strerror(errno));
        free(j);
        return NULL;
    }
    /* The new file must survive a crash as much as its lines do. */
    sync_dir(dir);
    const char *slash = strrchr(j->path, '/');
    cr_signer_follow(slash ? slash + 1 : j->path); /* signed checkpoints, with a --signing-key */
    return j;
}

void cr_journal_set_io(cr_journal *j, const cr_journal_io *io)
{
    j->io = *io;
}

/* Holds one line (with its "\n") in memory; false if over the bound. */
static bool hold(cr_journal *j, const char *line, size_t len)
{
    if (j->pend_len + len > PENDING_MAX) {
        return false;
    }
    if (j->pend_len + len > j->pend_cap) {
        size_t cap = j->pend_cap ? j->pend_cap : 4096;
        while (cap < j->pend_len + len) {
            cap *= 2;
        }
        char *n = realloc(j->pend, cap);
        if (!n) {
            return false;
        }
        j->pend = n;
        j->pend_cap = cap;
    }
    memcpy(j->pend + j->pend_len, line, len);
    j->pend_len += len;
    return true;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void set_problem(cr_journal *j, const char *what, int e)
{
    snprintf(j->problem, sizeof j->problem, "journal %.80s: %s: %s (%" PRIu64 " line(s) held)",
             base_name(j->path), what, strerror(e), j->appended - j->written);
}

/* One whole line (with its "\n"): written, or held while the disk refuses. */
static int append_line(cr_journal *j, const char *line, size_t len)
{
    if (j->full) {
        return CR_EIO;
    }
    if (!j->failing && write_whole(j, line, len)) {
        j->appended++;
        j->written++;
        return 0;
    }
    if (!j->failing) {
        int e = errno;
        j->failing = true;
        j->write_errors++;
        set_problem(j, "cannot write, holding lines and retrying", e);
        cr_log(CR_LOG_ERROR, "%s", j->problem);
    }
    if (!hold(j, line, len)) {
        /* Nothing after a lost line may be written: a restart would take the
         * lines after it for the whole story. */
        j->full = true;
        snprintf(j->problem, sizeof j->problem,
                 "journal %.80s: over %d MiB held in memory: no more lines accepted (restart "
                 "when the disk has room)",
                 base_name(j->path), PENDING_MAX >> 20);
        cr_log(CR_LOG_ERROR, "%s", j->problem);
        return CR_EIO;
    }
    j->appended++;
    return 0;
}

int cr_journal_append(cr_journal *j, const char *line, size_t len)
{
    if (j->full) {
        return CR_EIO;
    }
    /* The record and its seal in one write: torn only by a crash. */
    char stackbuf[1024];
    size_t n;
    cr_seal next;
    char *b = cr_seal_frame(&j->chain, line, len, stackbuf, sizeof stackbuf, &n, &next);
    if (!b) {
        return CR_ENOMEM;
    }
    int rc = append_line(j, b, n);
    if (rc == 0) {
        j->chain = next;
        cr_seal_head_note("journal", &j->chain, false);
    }
    if (b != stackbuf) {
        free(b);
    }
    return rc;
}

/* Writes the held lines again, after cutting a torn line off. */
static void retry(cr_journal *j)
{
    if (j->cut) {
        if (j->io.truncate(j->io.data, j->fd, j->good)) {
            set_problem(j, "cannot cut a torn line off", errno);
            return;
        }
        j->cut = false;
    }
    size_t off = 0;
    while (off < j->pend_len) {
        const char *nl = memchr(j->pend + off, '\n', j->pend_len - off);
        size_t n = (size_t)(nl - (j->pend + off)) + 1;
        if (!write_whole(j, j->pend + off, n)) {
            set_problem(j, "cannot write, holding lines and retrying", errno);
            break;
        }
        /* A record counts as written with its seal line. */
        j->written += cr_seal_is_line(j->pend + off, n);
        off += n;
    }
    memmove(j->pend, j->pend + off, j->pend_len - off);
    j->pend_len -= off;
    if (!j->pend_len && !j->cut) {
        cr_log(CR_LOG_INFO, "journal %s: writing again (%" PRIu64 " failed write(s) so far)", j->path,
               j->write_errors);
        j->failing = false;
        if (!j->full) {
            j->problem[0] = '\0';
        }
    }
}

int cr_journal_sync(cr_journal *j)
{
    if (j->failing) {
        retry(j);
    }
    if (j->synced < j->written) {
        uint64_t upto = j->written;
        j->syncs++;
        if (j->io.sync(j->io.data, j->fd)) {
            int e = errno;
            j->write_errors++;
            if (!j->failing) {
                /* Nothing written since the last good fsync counts as durable;
                 * they are tried again at the next sync. */
                snprintf(j->problem, sizeof j->problem, "journal %.80s: fsync failed: %s",
                         base_name(j->path), strerror(e));
                cr_log(CR_LOG_ERROR, "%s", j->problem);
            }
            return CR_EIO;
        }
        j->synced = upto;
        if (!j->failing && !j->full && strstr(j->problem, "fsync failed")) {
            cr_log(CR_LOG_INFO, "journal %s: fsync works again", j->path);
            j->problem[0] = '\0';
        }
    }
    return j->failing || j->full ? CR_EIO : 0;
}

bool cr_journal_dirty(const cr_journal *j)
{
    return j->synced < j->appended;
}

uint64_t cr_journal_appended(const cr_journal *j)
{
    return j->appended;
}

uint64_t cr_journal_durable(const cr_journal *j)
{
    return j->synced;
}

const char *cr_journal_problem(const cr_journal *j)
{
    return j->problem[0] ? j->problem : NULL;
}

void cr_journal_metrics(const cr_journal *j, FILE *f)
{
    cr_seal_sound_metrics(f); /* the journal's and incidents.log's seals at start */
    fprintf(f,
            "# HELP chessrelay_journal_write_errors_total Failed journal writes and fsyncs.\n"
            "# TYPE chessrelay_journal_write_errors_total counter\n"
            "chessrelay_journal_write_errors_total %" PRIu64 "\n"
            "# HELP chessrelay_journal_held_lines Journal lines held in memory, not yet on disk.\n"
            "# TYPE chessrelay_journal_held_lines gauge\n"
            "chessrelay_journal_held_lines %" PRIu64 "\n"
            "# HELP chessrelay_journal_ok 1 while every journal line is written, 0 otherwise.\n"
            "# TYPE chessrelay_journal_ok gauge\n"
            "chessrelay_journal_ok %d\n",
            j->write_errors, j->appended - j->written, j->problem[0] ? 0 : 1);
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
    if (j->appended > j->written) {
        cr_log(CR_LOG_ERROR, "journal %s: %" PRIu64 " line(s) never reached the disk", j->path,
               j->appended - j->written);
    }
    close(j->fd);
    free(j->pend);
    free(j);
}

/* What reading carries from file to file. */
typedef struct reader {
    cr_journal_line_fn fn; /* NULL: only check */
    void *data;
    cr_journal_stats *st;
    bool cut;                           /* cut torn tails off (a restart), or only read (verify) */
    bool sealed_seen;                   /* a sealed file came before */
    cr_seal chain;                      /* the last seal */
    const char *name;                   /* the file being read */
} reader;

static void bad(reader *r, const char *name, int lineno, const char *why)
{
    if (!r->st->bad++) {
        snprintf(r->st->bad_file, sizeof r->st->bad_file, "%s", name);
        r->st->bad_line = lineno;
        snprintf(r->st->bad_why, sizeof r->st->bad_why, "%s", why);
    }
}

static int journal_line(void *data, const char *line, size_t len, int lineno)
{
    reader *r = data;
    return r->fn ? r->fn(r->data, line, len, r->name, lineno) : 0;
}

/* One journal file (util/sealed_file.h): every record is checked against
 * its seal and the chain, and handed over (a bad one too, reported); a torn
 * tail (a crash mid-write) is dropped and, with r->cut, cut off. An older
 * file without seals is read line by line, but only before any sealed
 * file. */
static int read_file(reader *r, const char *path, const char *name, cr_error *err)
{
    char *text;
    size_t len, keep;
    int rc = cr_read_file(path, JOURNAL_MAX, &text, &len, err);
    if (rc) {
        return rc;
    }
    bool sealed = cr_seal_any(text, len);
    if (!sealed && r->sealed_seen && len) {
        bad(r, name, 1, "no seals after sealed journals (seals removed?)");
    }
    r->sealed_seen |= sealed;
    r->name = name;
    cr_sealed_stats ss;
    rc = cr_sealed_scan_text(text, len, &r->chain, journal_line, r, &ss, &keep);
    r->st->lines += ss.lines;
    r->st->keyed += ss.keyed;
    r->st->unkeyed += ss.unkeyed;
    r->st->unsealed += !sealed && len;
    if (ss.bad) {
        bad(r, name, ss.bad_line, ss.bad_why);
        r->st->bad += ss.bad - 1;
        r->st->bad_records += ss.bad;
    }
    if (ss.torn) {
        r->st->torn++;
        if (r->cut && truncate(path, (off_t)keep) != 0) {
            rc = cr_error_set(err, CR_EIO, 0, 0, "%s: cannot cut the torn tail: %s", path,
                              strerror(errno));
        }
    }
    free(text);
    return rc;
}

static int read_dir(const char *dir, reader *r, cr_error *err)
{
    cr_journal_stats *st = r->st;
    memset(st, 0, sizeof *st);
    int count;
    long *nums = list_journals(dir, &count);
    int rc = 0;
    for (int i = 0; i < count && !rc; i++) {
        char path[4096], name[64];
        snprintf(name, sizeof name, "journal-%06ld.feed", nums[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        st->files++;
        rc = read_file(r, path, name, err);
    }
    free(nums);
    return rc;
}

int cr_journal_replay(const char *dir, cr_journal_line_fn fn, void *data, cr_journal_stats *stats,
                      cr_error *err)
{
    cr_journal_stats local;
    reader r = {fn, data, stats ? stats : &local, true, false, {{0}, false}, NULL};
    return read_dir(dir, &r, err);
}

int cr_journal_verify(const char *dir, cr_journal_stats *stats, cr_error *err)
{
    reader r = {NULL, NULL, stats, false, false, {{0}, false}, NULL};
    return read_dir(dir, &r, err);
}

int cr_journal_read(const char *dir, cr_journal_line_fn fn, void *data, cr_journal_stats *stats,
                    cr_error *err)
{
    reader r = {fn, data, stats, false, false, {{0}, false}, NULL};
    return read_dir(dir, &r, err);
}

/*----- command lines and store events -----*/

bool cr_journal_cmd_of_event(const cr_store_event *ev, cr_journal_cmd *c)
{
    memset(c, 0, sizeof *c);
    c->game = ev->game;
    c->tick = c->t = -1;
    switch (ev->kind) {
    case CR_SEV_RESULT:
        c->kind = CR_JCMD_RESULT;
        c->result = ev->result;
        snprintf(c->reason, sizeof c->reason, "%s", ev->reason);
        return true;
    case CR_SEV_TAG:
        c->kind = CR_JCMD_TAG;
        snprintf(c->name, sizeof c->name, "%s", ev->tag.name);
        snprintf(c->value, sizeof c->value, "%s", ev->tag.value);
        return true;
    case CR_SEV_CORRECTION:
        c->kind = CR_JCMD_CORRECTION;
        c->ply = ev->ply;
        return true;
    case CR_SEV_MOVE:
        c->kind = CR_JCMD_MOVE;
        c->ply = ev->ply;
        c->move = ev->move;
        return true;
    default:
        return false;
    }
}

static const cr_sev_kind cmd_event_kind[] = {
    [CR_JCMD_RESULT] = CR_SEV_RESULT, [CR_JCMD_TAG] = CR_SEV_TAG,
    [CR_JCMD_CORRECTION] = CR_SEV_CORRECTION, [CR_JCMD_MOVE] = CR_SEV_MOVE};

cr_store_event *cr_journal_cmd_event(const cr_journal_cmd *c, const cr_store *store, char *why,
                                     size_t why_size)
{
    const cr_store_game *g = cr_store_find(store, c->game);
    if (!g || c->kind == CR_JCMD_CLOCK_ADJUST) {
        snprintf(why, why_size, g ? "a clock-adjust makes no store event" : "command for unknown game %d",
                 c->game);
        return NULL;
    }
    cr_store_event *ev = cr_store_event_new(cmd_event_kind[c->kind]);
    if (!ev) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    ev->game = c->game;
    ev->ply = c->ply;
    switch (c->kind) {
    case CR_JCMD_RESULT:
        ev->result = c->result;
        snprintf(ev->reason, sizeof ev->reason, "%s", c->reason[0] ? c->reason : "arbiter");
        break;
    case CR_JCMD_TAG:
        snprintf(ev->tag.name, sizeof ev->tag.name, "%s", c->name);
        snprintf(ev->tag.value, sizeof ev->tag.value, "%s", c->value);
        break;
    case CR_JCMD_CORRECTION:
        ev->retracted = cr_game_ply_count(g->game) - c->ply;
        break;
    case CR_JCMD_CLOCK_ADJUST:
        break;
    case CR_JCMD_MOVE:
        ev->move = c->move;
        if (!(c->move.flags & CR_PLY_ILLEGAL)) {
            ev->move.move = cr_move_from_uci(cr_game_position(g->game), c->move.uci);
            if (ev->move.move == CR_MOVE_NONE) {
                snprintf(why, why_size, "game %d: %s is not legal at ply %d", c->game, c->move.uci,
                         cr_game_ply_count(g->game));
                cr_store_event_free(ev);
                return NULL;
            }
        }
        break;
    }
    return ev;
}
