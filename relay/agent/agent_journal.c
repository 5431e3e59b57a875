/* chessrelay relay: the venue agent's journal. */
#include "agent/agent_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/seal_head.h"
#include "util/sealed_file.h"

/* v2: every line is a record of its own, followed by its seal (v1, from
 * before seals, is read and rewritten as v2 at open). */
#define HEADER_FMT "# chessrelay agent journal v2 base %" PRId64 " epoch %" PRId64 "\n"
enum { COMPACT_EVERY = 4096 }; /* acknowledged events that force a compaction */

struct cr_agent_journal {
    char *dir;
    char *path; /* events.feed */
    int fd;
    int64_t base, acked, epoch;
    char **lines; /* lines[i] is event base + 1 + i */
    size_t *lens;
    size_t count, cap;
    bool dirty;
    int torn, compactions;
    cr_seal chain;     /* the last record's seal in events.feed */
    char problem[200]; /* the first record that does not match its seal, or "" */
    char damaged[200]; /* load: why the file cannot be read, or "" */
};

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s/%s", dir, name);
    }
    return p;
}

static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* Writes name in dir as a whole, by a rename: readers see the old or the new
 * content, never a mix. durable: fsync the file and the folder. */
static int write_atomic(const char *dir, const char *name, const char *const *parts,
                        const size_t *lens, size_t nparts, bool durable)
{
    char *path = join(dir, name);
    char *tmp = join(dir, "agent.tmp");
    int rc = CR_EIO;
    int fd = -1;
    if (!path || !tmp) {
        rc = CR_ENOMEM;
        goto out;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        goto out;
    }
    for (size_t i = 0; i < nparts; i++) {
        if (cr_write_all(fd, parts[i], lens[i])) {
            goto out;
        }
    }
    if (durable && fdatasync(fd)) {
        goto out;
    }
    if (close(fd)) {
        fd = -1;
        goto out;
    }
    fd = -1;
    if (rename(tmp, path)) {
        goto out;
    }
    if (durable) {
        sync_dir(dir);
    }
    rc = 0;
out:
    if (fd >= 0) {
        close(fd);
    }
    free(path);
    free(tmp);
    return rc;
}

static int write_acked(cr_agent_journal *j)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%" PRId64 "\n", j->acked);
    const char *parts[] = {buf};
    size_t lens[] = {(size_t)n};
    return write_atomic(j->dir, "acked", parts, lens, 1, false);
}

/* Rewrites events.feed with base `base` and lines[from..count), each line a
 * sealed record (a new chain), then drops the lines before `from` from
 * memory. */
static int rewrite(cr_agent_journal *j, int64_t base, size_t from)
{
    char header[128];
    int hn = snprintf(header, sizeof header, HEADER_FMT, base, j->epoch);
    size_t size = (size_t)hn + CR_SEAL_LINE;
    for (size_t i = from; i < j->count; i++) {
        size += j->lens[i] + 1 + CR_SEAL_LINE;
    }
    char *text = malloc(size);
    cr_seal chain = {{0}, false};
    int rc = CR_ENOMEM;
    if (!text) {
        goto out;
    }
    /* Each record framed with its seal in place (the buffer has room). */
    size_t at, n;
    cr_seal_frame(&chain, header, (size_t)hn, text, size, &at, &chain);
    for (size_t i = from; i < j->count; i++) {
        cr_seal_frame(&chain, j->lines[i], j->lens[i], text + at, size - at, &n, &chain);
        at += n;
    }
    const char *parts[] = {text};
    rc = write_atomic(j->dir, "events.feed", parts, &at, 1, true);
    if (rc) {
        goto out;
    }
    int fd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) {
        rc = CR_EIO;
        goto out;
    }
    if (j->fd >= 0) {
        close(j->fd);
    }
    j->fd = fd;
    j->chain = chain;
    cr_seal_head_note("events.feed", &j->chain, true); /* the older seals are gone */
    j->dirty = false; /* the rename made everything durable */
    for (size_t i = 0; i < from; i++) {
        free(j->lines[i]);
    }
    if (j->count > from) {
        memmove(j->lines, j->lines + from, (j->count - from) * sizeof *j->lines);
        memmove(j->lens, j->lens + from, (j->count - from) * sizeof *j->lens);
    }
    j->count -= from;
    j->base = base;
    j->compactions++;
out:
    free(text);
    return rc;
}

static int push_line(cr_agent_journal *j, const char *line, size_t len)
{
    if (j->count == j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 64;
        char **nl = realloc(j->lines, cap * sizeof *nl);
        if (!nl) {
            return CR_ENOMEM;
        }
        j->lines = nl;
        size_t *ns = realloc(j->lens, cap * sizeof *ns);
        if (!ns) {
            return CR_ENOMEM;
        }
        j->lens = ns;
        j->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy) {
        return CR_ENOMEM;
    }
    memcpy(copy, line, len);
    copy[len] = '\0';
    j->lines[j->count] = copy;
    j->lens[j->count++] = len;
    return 0;
}

/* One line of events.feed: the header, then one event per line. */
static int load_line(void *data, const char *line, size_t n, int lineno)
{
    cr_agent_journal *j = data;
    if (lineno == 1) {
        long long base, epoch;
        int used = 0, v = 0;
        char copy[128];
        snprintf(copy, sizeof copy, "%.*s", (int)(n < sizeof copy - 1 ? n : sizeof copy - 1), line);
        if (sscanf(copy, "# chessrelay agent journal v%d base %lld epoch %lld%n", &v, &base, &epoch,
                   &used) != 3 ||
            (size_t)used != n || (v != 1 && v != 2) || base < 0) {
            snprintf(j->damaged, sizeof j->damaged, "%s:1: not an agent journal (bad header)",
                     j->path);
            return CR_EIO;
        }
        j->base = base;
        j->acked = base;
        j->epoch = epoch;
        return 0;
    }
    if (n == 0 || memchr(line, '\0', n)) {
        snprintf(j->damaged, sizeof j->damaged, "%s:%d: damaged line", j->path, lineno);
        return CR_EIO;
    }
    return push_line(j, line, n) ? CR_ENOMEM : 0;
}

/* Reads events.feed into j (checking the seals); cuts a torn last record
 * off the file (never sent: lines are synced before sending). A journal
 * from before seals is rewritten with them. */
static int load(cr_agent_journal *j, cr_error *err)
{
    cr_sealed_stats st;
    int rc = cr_sealed_read(j->path, true, load_line, j, &j->chain, &st, err);
    if (rc == 0 && st.lines == 0) {
        snprintf(j->damaged, sizeof j->damaged, "%s:1: not an agent journal (bad header)", j->path);
        rc = CR_EIO;
    }
    if (rc) {
        if (j->damaged[0]) {
            cr_error_set(err, CR_EIO, 0, 0, "%s", j->damaged);
            return CR_EIO;
        }
        return rc == CR_ENOMEM ? cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory") : rc;
    }
    j->torn += st.torn;
    if (st.bad) {
        snprintf(j->problem, sizeof j->problem,
                 "%s:%d: %s (%ld record(s) do not match their seals)", j->path, st.bad_line,
                 st.bad_why, st.bad);
    }
    if (st.unsealed) {
        if (rewrite(j, j->base, 0)) {
            return cr_error_set(err, CR_EIO, 0, 0, "%s: cannot rewrite with seals: %s", j->path,
                                strerror(errno));
        }
        j->compactions--; /* not a compaction: the same events, sealed */
    }
    return 0;
}

static void load_acked(cr_agent_journal *j)
{
    char *path = join(j->dir, "acked");
    size_t len = 0;
    char *text = NULL;
    if (path) {
        (void)cr_read_file(path, 4096, &text, &len, NULL); /* none yet: nothing acked */
    }
    long long v;
    if (text && sscanf(text, "%lld", &v) == 1) {
        int64_t last = j->base + (int64_t)j->count;
        j->acked = v < j->base ? j->base : v > last ? last : v;
    }
    free(text);
    free(path);
}

cr_agent_journal *cr_agent_journal_open(const char *dir, int64_t now_ms, cr_error *err)
{
    if (!dir || !dir[0]) {
        cr_error_set(err, CR_EINVAL, 0, 0, "agent state folder: empty path");
        return NULL;
    }
    if (cr_mkdir_p(dir)) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: cannot create: %s", dir, strerror(errno));
        return NULL;
    }
    cr_agent_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->dir = strdup(dir)) || !(j->path = join(dir, "events.feed"))) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        cr_agent_journal_close(j);
        return NULL;
    }
    j->fd = -1;
    struct stat st;
    if (stat(j->path, &st) != 0) {
        if (errno != ENOENT) {
            cr_error_set(err, CR_EIO, 0, 0, "%s: %s", j->path, strerror(errno));
            cr_agent_journal_close(j);
            return NULL;
        }
        j->epoch = now_ms;
        if (rewrite(j, 0, 0)) {
            cr_error_set(err, CR_EIO, 0, 0, "%s: cannot create: %s", j->path, strerror(errno));
            cr_agent_journal_close(j);
            return NULL;
        }
        j->compactions = 0;
    } else {
        if (load(j, err)) {
            cr_agent_journal_close(j);
            return NULL;
        }
        load_acked(j);
        if (j->fd < 0) {
            j->fd = open(j->path, O_WRONLY | O_APPEND | O_CLOEXEC);
        }
        if (j->fd < 0) {
            cr_error_set(err, CR_EIO, 0, 0, "%s: %s", j->path, strerror(errno));
            cr_agent_journal_close(j);
            return NULL;
        }
    }
    return j;
}

void cr_agent_journal_close(cr_agent_journal *j)
{
    if (!j) {
        return;
    }
    if (j->fd >= 0) {
        if (j->dirty) {
            fdatasync(j->fd);
        }
        close(j->fd);
    }
    for (size_t i = 0; i < j->count; i++) {
        free(j->lines[i]);
    }
    free(j->lines);
    free(j->lens);
    free(j->dir);
    free(j->path);
    free(j);
}

int64_t cr_agent_journal_last(const cr_agent_journal *j)
{
    return j->base + (int64_t)j->count;
}

int64_t cr_agent_journal_acked(const cr_agent_journal *j)
{
    return j->acked;
}

int64_t cr_agent_journal_epoch(const cr_agent_journal *j)
{
    return j->epoch;
}

int cr_agent_journal_torn(const cr_agent_journal *j)
{
    return j->torn;
}

int cr_agent_journal_compactions(const cr_agent_journal *j)
{
    return j->compactions;
}

const char *cr_agent_journal_problem(const cr_agent_journal *j)
{
    return j->problem[0] ? j->problem : NULL;
}

int cr_agent_journal_append(cr_agent_journal *j, const char *line, size_t len, int64_t *n)
{
    if (len && line[len - 1] == '\n') {
        len--;
    }
    if (len == 0 || memchr(line, '\n', len) || memchr(line, '\0', len)) {
        return CR_EINVAL;
    }
    if (push_line(j, line, len)) {
        return CR_ENOMEM;
    }
    /* One write per line and its seal: a crash tears at most the last one. */
    if (cr_sealed_append(j->fd, &j->chain, line, len)) {
        free(j->lines[--j->count]);
        return CR_EIO;
    }
    cr_seal_head_note("events.feed", &j->chain, false);
    j->dirty = true;
    if (n) {
        *n = cr_agent_journal_last(j);
    }
    return 0;
}

int cr_agent_journal_sync(cr_agent_journal *j)
{
    if (!j->dirty) {
        return 0;
    }
    if (fdatasync(j->fd)) {
        return CR_EIO;
    }
    j->dirty = false;
    return 0;
}

int cr_agent_journal_ack(cr_agent_journal *j, int64_t n)
{
    int64_t last = cr_agent_journal_last(j);
    if (n > last || n < 0) {
        return CR_ERANGE;
    }
    if (n <= j->acked) {
        return 0;
    }
    j->acked = n;
    if (write_acked(j)) {
        return CR_EIO;
    }
    if (j->acked == last || j->acked - j->base >= COMPACT_EVERY) {
        if (cr_agent_journal_sync(j)) {
            return CR_EIO;
        }
        return rewrite(j, j->acked, (size_t)(j->acked - j->base));
    }
    return 0;
}

const char *cr_agent_journal_line(const cr_agent_journal *j, int64_t n, size_t *len)
{
    if (n <= j->acked || n > cr_agent_journal_last(j)) {
        return NULL;
    }
    size_t i = (size_t)(n - j->base - 1);
    if (len) {
        *len = j->lens[i];
    }
    return j->lines[i];
}

int cr_agent_journal_rebase(cr_agent_journal *j, int64_t acked)
{
    if (acked < 0 || (acked <= cr_agent_journal_last(j) && acked >= j->acked)) {
        return CR_EINVAL;
    }
    if (cr_agent_journal_sync(j)) {
        return CR_EIO;
    }
    int rc = rewrite(j, acked, (size_t)(j->acked - j->base));
    if (rc) {
        return rc;
    }
    j->acked = acked;
    return write_acked(j);
}
