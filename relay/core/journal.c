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

#include <jansson.h>

#include "cr/pgn.h"

#include "util/fileio.h"
#include "util/log.h"
#include "util/seal.h"
#include "util/sealed_file.h"

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
    cr_seal chain = {{0}};
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
    reader r = {fn, data, stats ? stats : &local, true, false, {{0}}, NULL};
    return read_dir(dir, &r, err);
}

int cr_journal_verify(const char *dir, cr_journal_stats *stats, cr_error *err)
{
    reader r = {NULL, NULL, stats, false, false, {{0}}, NULL};
    return read_dir(dir, &r, err);
}

int cr_journal_read(const char *dir, cr_journal_line_fn fn, void *data, cr_journal_stats *stats,
                    cr_error *err)
{
    reader r = {fn, data, stats, false, false, {{0}}, NULL};
    return read_dir(dir, &r, err);
}

/*----- command lines -----*/

/* The JSON of a command's own fields (without who, at, tick). */
static json_t *cmd_json(const cr_journal_cmd *c)
{
    json_int_t game = (json_int_t)c->game;
    switch (c->kind) {
    case CR_JCMD_RESULT: {
        json_t *j = json_pack("{s:s, s:I, s:s}", "cmd", "result", "game", game, "result",
                              cr_result_string(c->result));
        if (j && c->reason[0]) {
            json_object_set_new(j, "reason", json_string(c->reason));
        }
        return j;
    }
    case CR_JCMD_TAG:
        return json_pack("{s:s, s:I, s:s, s:s}", "cmd", "tag", "game", game, "name", c->name,
                         "value", c->value);
    case CR_JCMD_CORRECTION:
        return json_pack("{s:s, s:I, s:i}", "cmd", "correction", "game", game, "ply", c->ply);
    case CR_JCMD_CLOCK_ADJUST:
        return json_pack("{s:s, s:I, s:s, s:i}", "cmd", "clock-adjust", "game", game, "color",
                         c->color == CR_WHITE ? "w" : "b", "ms", (int)c->delta_ms);
    case CR_JCMD_MOVE:
        break;
    }
    const cr_ply *p = &c->move;
    json_t *j = json_pack("{s:s, s:I, s:i}", "cmd", "move", "game", game, "ply", c->ply);
    if (j && (p->flags & CR_PLY_ILLEGAL)) {
        char fen[CR_FEN_MAX];
        if (cr_position_to_fen(&p->after, fen, sizeof fen) < 0) {
            json_decref(j);
            return NULL;
        }
        json_object_set_new(j, "san", json_string(p->san));
        json_object_set_new(j, "after", json_string(fen));
    } else if (j) {
        json_object_set_new(j, "uci", json_string(p->uci));
    }
    json_t *more = json_pack("{s:I, s:i, s:i, s:I, s:i}", "flags", (json_int_t)p->flags, "clock",
                             (int)p->clock_ms, "emt", (int)p->emt_ms, "ts", (json_int_t)p->ts,
                             "fits", (int)p->fits);
    if (j && more) {
        json_object_update(j, more);
    }
    json_decref(more);
    return j;
}

int cr_journal_cmd_format(const cr_journal_cmd *c, char *out, size_t size)
{
    json_t *j = cmd_json(c);
    if (j && c->who[0]) {
        json_object_set_new(j, "who", json_string(c->who));
    }
    if (j && c->at > 0) {
        json_object_set_new(j, "at", json_integer(c->at));
    }
    if (j && c->tick >= 0) {
        json_object_set_new(j, "tick", json_integer(c->tick));
    }
    if (j && c->t >= 0) {
        json_object_set_new(j, "t", json_integer(c->t));
    }
    /* Compact JSON escapes every control character: one line whatever the
     * value holds. */
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    int n = text ? snprintf(out, size, "# cmd %s\n", text) : -1;
    free(text);
    return n < 0 || (size_t)n >= size ? -1 : n;
}

/* The old format: "# cmd result N R", "# cmd tag N NAME VALUE" (VALUE is the
 * rest of the line after one space). */
static int parse_old_cmd(const char *line, size_t len, cr_journal_cmd *c, char *err, size_t es)
{
    char copy[512];
    if (len >= sizeof copy) {
        snprintf(err, es, "command line too long");
        return -1;
    }
    memcpy(copy, line, len);
    copy[len] = '\0';
    char *save = NULL;
    strtok_r(copy, " ", &save);               /* "#" */
    strtok_r(NULL, " ", &save);               /* "cmd" */
    const char *word = strtok_r(NULL, " ", &save);
    const char *game = strtok_r(NULL, " ", &save);
    char *end = NULL;
    long g = game ? strtol(game, &end, 10) : 0;
    if (!word || !game || *end || g < 1 || g > INT_MAX) {
        snprintf(err, es, "command line without a game number");
        return -1;
    }
    c->game = (int)g;
    if (strcmp(word, "result") == 0) {
        const char *res = strtok_r(NULL, " ", &save);
        int r = res ? cr_result_parse(res) : -1;
        if (r < 0 || strtok_r(NULL, " ", &save)) {
            snprintf(err, es, "command line with a bad result");
            return -1;
        }
        c->result = (cr_result)r;
        return 1;
    }
    if (strcmp(word, "tag") == 0) {
        /* save points after the game's space: NAME, one space, VALUE. */
        const char *rest = save ? save : "";
        const char *sp = strchr(rest, ' ');
        size_t nl = sp ? (size_t)(sp - rest) : strlen(rest);
        const char *value = sp ? sp + 1 : "";
        if (!nl || nl >= sizeof c->name || strlen(value) >= sizeof c->value) {
            snprintf(err, es, "command line with a bad tag");
            return -1;
        }
        c->kind = CR_JCMD_TAG;
        memcpy(c->name, rest, nl);
        c->name[nl] = '\0';
        snprintf(c->value, sizeof c->value, "%s", value);
        return 1;
    }
    snprintf(err, es, "unknown command '%.20s'", word);
    return -1;
}

/* An integer field within [lo, hi], or def when absent; false when present
 * and not such an integer. */
static bool int_field(json_t *j, const char *key, int64_t lo, int64_t hi, int64_t def, int64_t *out)
{
    json_t *v = json_object_get(j, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

/* A move command's ply (c->ply set already). */
static bool parse_move(json_t *j, cr_journal_cmd *c)
{
    cr_ply *p = &c->move;
    int64_t flags, clock, emt, ts, fits;
    if (!int_field(j, "flags", 0, UINT32_MAX, 0, &flags) ||
        !int_field(j, "clock", -1, INT32_MAX, -1, &clock) ||
        !int_field(j, "emt", -1, INT32_MAX, -1, &emt) ||
        !int_field(j, "ts", -1, INT64_MAX, -1, &ts) || !int_field(j, "fits", 0, UINT16_MAX, 1, &fits)) {
        return false;
    }
    p->move = CR_MOVE_NONE;
    p->flags = (uint32_t)flags;
    p->clock_ms = (int32_t)clock;
    p->emt_ms = (int32_t)emt;
    p->ts = ts;
    p->fits = (uint16_t)fits;
    if (p->flags & CR_PLY_ILLEGAL) {
        const char *san = json_string_value(json_object_get(j, "san"));
        const char *after = json_string_value(json_object_get(j, "after"));
        if (!san || !after || strlen(san) >= sizeof p->san ||
            cr_position_from_fen(&p->after, after, NULL) != 0) {
            return false;
        }
        snprintf(p->san, sizeof p->san, "%s", san);
        return true;
    }
    const char *uci = json_string_value(json_object_get(j, "uci"));
    if (!uci || strlen(uci) < 4 || strlen(uci) >= sizeof p->uci) {
        return false;
    }
    snprintf(p->uci, sizeof p->uci, "%s", uci);
    return true;
}

/* The fields of a JSON command line; returns 1, or -1 with err filled. */
static int parse_cmd_fields(json_t *j, const char *cmd, cr_journal_cmd *c, char *err, size_t es)
{
    int64_t ply;
    bool has_ply = int_field(j, "ply", 0, 1 << 20, -1, &ply) && ply >= 0;
    if (strcmp(cmd, "result") == 0) {
        const char *res = json_string_value(json_object_get(j, "result"));
        const char *reason = json_string_value(json_object_get(j, "reason"));
        int r = res ? cr_result_parse(res) : -1;
        if (r < 0 || (reason && strlen(reason) >= sizeof c->reason)) {
            snprintf(err, es, "command line with a bad result");
            return -1;
        }
        c->kind = CR_JCMD_RESULT;
        c->result = (cr_result)r;
        snprintf(c->reason, sizeof c->reason, "%s", reason ? reason : "");
    } else if (strcmp(cmd, "tag") == 0) {
        const char *name = json_string_value(json_object_get(j, "name"));
        const char *value = json_string_value(json_object_get(j, "value"));
        if (!name || !value || !cr_pgn_tag_name_ok(name) || strlen(name) >= sizeof c->name ||
            strlen(value) >= sizeof c->value) {
            snprintf(err, es, "command line with a bad tag");
            return -1;
        }
        c->kind = CR_JCMD_TAG;
        snprintf(c->name, sizeof c->name, "%s", name);
        snprintf(c->value, sizeof c->value, "%s", value);
    } else if (strcmp(cmd, "correction") == 0 || strcmp(cmd, "move") == 0) {
        c->kind = cmd[0] == 'c' ? CR_JCMD_CORRECTION : CR_JCMD_MOVE;
        c->ply = (int)ply;
        if (!has_ply || (c->kind == CR_JCMD_MOVE && !parse_move(j, c))) {
            snprintf(err, es, "command line with a bad %s", cmd);
            return -1;
        }
    } else if (strcmp(cmd, "clock-adjust") == 0) {
        const char *color = json_string_value(json_object_get(j, "color"));
        int64_t ms;
        if (!color || (strcmp(color, "w") && strcmp(color, "b")) ||
            !int_field(j, "ms", INT32_MIN, INT32_MAX, 0, &ms)) {
            snprintf(err, es, "command line with a bad clock-adjust");
            return -1;
        }
        c->kind = CR_JCMD_CLOCK_ADJUST;
        c->color = color[0] == 'w' ? CR_WHITE : CR_BLACK;
        c->delta_ms = (int32_t)ms;
    } else {
        snprintf(err, es, "unknown command '%.20s'", cmd);
        return -1;
    }
    return 1;
}

int cr_journal_cmd_parse(const char *line, size_t len, cr_journal_cmd *c, char *err,
                         size_t err_size)
{
    static const char head[] = "# cmd ";
    if (len < sizeof head - 1 || memcmp(line, head, sizeof head - 1) != 0) {
        return 0;
    }
    memset(c, 0, sizeof *c);
    c->tick = c->t = -1;
    const char *p = line + sizeof head - 1;
    size_t n = len - (sizeof head - 1);
    if (!n || *p != '{') {
        return parse_old_cmd(line, len, c, err, err_size);
    }
    json_error_t jerr;
    json_t *j = json_loadb(p, n, JSON_REJECT_DUPLICATES, &jerr);
    const char *cmd = json_string_value(json_object_get(j, "cmd"));
    json_t *game = json_object_get(j, "game");
    const char *who = json_string_value(json_object_get(j, "who"));
    int64_t at, tick, t;
    int rc = -1;
    if (!j || !cmd || !json_is_integer(game) || json_integer_value(game) < 1 ||
        json_integer_value(game) > INT_MAX || (who && strlen(who) >= sizeof c->who) ||
        !int_field(j, "at", 0, INT64_MAX, 0, &at) || !int_field(j, "tick", -1, INT64_MAX, -1, &tick) ||
        !int_field(j, "t", -1, INT64_MAX, -1, &t)) {
        snprintf(err, err_size, "%s", j ? "command line without its fields" : "command line not JSON");
    } else {
        rc = parse_cmd_fields(j, cmd, c, err, err_size);
    }
    if (rc == 1) {
        c->game = (int)json_integer_value(game);
        snprintf(c->who, sizeof c->who, "%s", who ? who : "");
        c->at = at;
        c->tick = tick;
        c->t = t;
    }
    json_decref(j);
    return rc;
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
