/* chessrelay relay: the head of the seals (see seal_head.h). */
#include "util/seal_head.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/log.h"

enum { HEAD_EVERY_MS = 1000, HEADER_LEN = 25 };
static const char header[] = "# chessrelay seal head v1\n";

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running, stopping, dirty, failing;
    char path[PATH_MAX];
    cr_seal_head_entry e[CR_SEAL_HEAD_KINDS];
    int n;
    struct {
        char name[32];
        bool sound;
    } sound[CR_SEAL_HEAD_KINDS];
    int nsound;
    cr_seal_problem problems[CR_SEAL_HEAD_KINDS + 1]; /* found at start */
    int nproblems;
} H = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static void hex(const unsigned char *b, char *out)
{
    for (int i = 0; i < CR_SEAL_BYTES; i++) {
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    }
}

static bool unhex(const char *s, unsigned char *out)
{
    for (int i = 0; i < 2 * CR_SEAL_BYTES; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) {
            return false;
        }
        out[i / 2] = (unsigned char)(i % 2 ? out[i / 2] * 16 + d : d);
    }
    return true;
}

/* Writes the head by rename. Under the lock. */
static void write_head(void)
{
    char text[CR_SEAL_HEAD_KINDS * 128 + 128], tmp[PATH_MAX + 8];
    size_t at = (size_t)snprintf(text, sizeof text, "%s", header);
    for (int i = 0; i < H.n; i++) {
        char h[2 * CR_SEAL_BYTES + 1];
        hex(H.e[i].seal.h, h);
        at += (size_t)snprintf(text + at, sizeof text - at, "%s %s\n", H.e[i].name, h);
    }
    unsigned char mac[CR_SEAL_BYTES];
    if (!cr_seal_mac(text, at, mac)) {
        return;
    }
    char h[2 * CR_SEAL_BYTES + 1];
    hex(mac, h);
    at += (size_t)snprintf(text + at, sizeof text - at, "#%% %s\n", h);
    snprintf(tmp, sizeof tmp, "%s.tmp", H.path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && cr_write_all(fd, text, at) == 0 && fdatasync(fd) == 0;
    if (fd >= 0) {
        close(fd);
    }
    if (!ok || rename(tmp, H.path) != 0) {
        if (!H.failing) { /* once until it works again (a full disk says so elsewhere too) */
            cr_log(CR_LOG_WARN, "%s: the head of the seals is not written: %s", H.path,
                   strerror(errno));
        }
        H.failing = true;
        unlink(tmp);
        return;
    }
    H.failing = false;
    H.dirty = false;
}

static void *head_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&H.lock);
    while (!H.stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += HEAD_EVERY_MS % 1000 * 1000000L;
        until.tv_sec += HEAD_EVERY_MS / 1000 + until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&H.wake, &H.lock, &until);
        if (H.dirty) {
            write_head();
        }
    }
    pthread_mutex_unlock(&H.lock);
    return NULL;
}

int cr_seal_head_read(const char *dir, cr_seal_head_entry *out, int max, int *count,
                      cr_error *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, CR_SEAL_HEAD_FILE);
    char *text;
    size_t len;
    *count = 0;
    if (access(path, F_OK) != 0 && errno == ENOENT) {
        return CR_EEOF;
    }
    int rc = cr_read_file(path, 64 * 1024, &text, &len, err);
    if (rc) {
        return rc;
    }
    /* The MAC line is the last; everything before it is what it covers. */
    const char *mac_line = len > 1 ? text + len - 1 : text;
    while (mac_line > text && mac_line[-1] != '\n') {
        mac_line--;
    }
    size_t covered = (size_t)(mac_line - text);
    unsigned char want[CR_SEAL_BYTES], got[CR_SEAL_BYTES];
    rc = CR_ECONFIG;
    if (len < HEADER_LEN || memcmp(text, header, HEADER_LEN) != 0 || covered == len ||
        strlen(mac_line) != 3 + 2 * CR_SEAL_BYTES + 1 || memcmp(mac_line, "#% ", 3) != 0 ||
        !unhex(mac_line + 3, got)) {
        cr_error_set(err, rc, 0, 0, "%s: not a head of seals", path);
    } else if (!cr_seal_mac(text, covered, want)) {
        cr_error_set(err, rc, 0, 0, "%s: no key (seal.key) to check it", path);
    } else if (memcmp(want, got, sizeof want) != 0) {
        cr_error_set(err, rc, 0, 0, "%s: its MAC does not match (the head was changed)", path);
    } else {
        rc = 0;
        for (const char *p = text + HEADER_LEN + 1; p < mac_line && *count < max;) {
            const char *sp = memchr(p, ' ', (size_t)(mac_line - p));
            cr_seal_head_entry *e = &out[*count];
            if (!sp || (size_t)(sp - p) >= sizeof e->name || !unhex(sp + 1, e->seal.h)) {
                rc = cr_error_set(err, CR_ECONFIG, 0, 0, "%s: a bad line", path);
                break;
            }
            snprintf(e->name, sizeof e->name, "%.*s", (int)(sp - p), p);
            e->seal.keyed = true;
            (*count)++;
            p = sp + 1 + 2 * CR_SEAL_BYTES + 1;
        }
    }
    free(text);
    return rc;
}

/*----- the head against the files -----*/

/* Looking for a seal in a chain. */
typedef struct find {
    const cr_seal *chain; /* the chain being scanned: the previous record's seal */
    const cr_seal *target;
    long records, at;     /* at: the record the target seals (-1: not found) */
} find;

static void find_check(find *f)
{
    if (f->at < 0 && f->records > 0 && memcmp(f->chain->h, f->target->h, CR_SEAL_BYTES) == 0) {
        f->at = f->records;
    }
}

static int find_record(void *data, size_t from, size_t to, int first_line, const char *bad,
                       int bad_line, bool keyed)
{
    (void)from, (void)to, (void)first_line, (void)bad, (void)bad_line, (void)keyed;
    find *f = data;
    find_check(f); /* the chain is the previous record's seal here */
    f->records++;
    return 0;
}

/* Scans one file of a chain for f's target (a file that cannot be read
 * holds no record). */
static void find_in(find *f, cr_seal *chain, const char *path)
{
    char *text;
    size_t len, keep;
    int lines;
    cr_error err;
    if (cr_read_file(path, SIZE_MAX / 2, &text, &len, &err)) {
        return;
    }
    cr_seal_scan(text, len, chain, find_record, f, &keep, &lines);
    find_check(f);
    free(text);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

long cr_seal_head_find(const char *dir, const char *name, const cr_seal *target, long *records)
{
    cr_seal chain = {{0}, false};
    find f = {&chain, target, 0, -1};
    char path[PATH_MAX];
    if (strcmp(name, "journal") != 0) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        find_in(&f, &chain, path);
    } else {
        /* journal-NNNNNN.feed: the fixed width sorts them by name. */
        DIR *d = opendir(dir);
        size_t n = 0, cap = 0;
        char **names = NULL;
        for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
            size_t l = strlen(e->d_name);
            if (strncmp(e->d_name, "journal-", 8) != 0 || l <= 5 ||
                strcmp(e->d_name + l - 5, ".feed") != 0) {
                continue;
            }
            if (n == cap) {
                char **v = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *v);
                if (!v) {
                    break;
                }
                names = v;
            }
            if ((names[n] = strdup(e->d_name)) != NULL) {
                n++;
            }
        }
        if (d) {
            closedir(d);
        }
        if (n) {
            qsort(names, n, sizeof *names, by_name);
        }
        for (size_t i = 0; i < n; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            find_in(&f, &chain, path);
            free(names[i]);
        }
        free(names);
    }
    *records = f.records;
    return f.at;
}

int cr_seal_head_check(const char *dir, cr_seal_problem *out, int max, int *n_head)
{
    cr_seal_head_entry e[CR_SEAL_HEAD_KINDS];
    int n = 0, found = 0;
    cr_error err;
    int rc = cr_seal_head_read(dir, e, CR_SEAL_HEAD_KINDS, &n, &err);
    if (n_head) {
        *n_head = rc ? 0 : n;
    }
    if (rc == CR_EEOF) {
        return 0;
    }
    if (rc) {
        if (found < max) {
            snprintf(out[found].name, sizeof out[found].name, "%s", CR_SEAL_HEAD_FILE);
            snprintf(out[found].text, sizeof out[found].text, "%.230s", err.text);
        }
        return 1;
    }
    for (int i = 0; i < n; i++) {
        long records;
        if (cr_seal_head_find(dir, e[i].name, &e[i].seal, &records) >= 0) {
            continue;
        }
        if (found < max) {
            memcpy(out[found].name, e[i].name, sizeof out[found].name);
            snprintf(out[found].text, sizeof out[found].text,
                     "%.100s/%.31s: cut after record %ld, or rewritten: the head's last seal is "
                     "not among its records",
                     dir, e[i].name, records);
        }
        found++;
    }
    return found;
}

int cr_seal_head_problems(cr_seal_problem *out, int max)
{
    pthread_mutex_lock(&H.lock);
    int n = H.nproblems < max ? H.nproblems : max;
    memcpy(out, H.problems, (size_t)n * sizeof *out);
    pthread_mutex_unlock(&H.lock);
    return n;
}

int cr_seal_head_start(const char *dir)
{
    if (!cr_seal_have_key()) {
        return 0;
    }
    /* Before this run writes anything (its records, its head): a cut made
     * while it was stopped shows only now. */
    cr_seal_problem found[CR_SEAL_HEAD_KINDS + 1];
    int nfound = cr_seal_head_check(dir, found, CR_SEAL_HEAD_KINDS + 1, NULL);
    if (nfound > CR_SEAL_HEAD_KINDS + 1) {
        nfound = CR_SEAL_HEAD_KINDS + 1;
    }
    for (int i = 0; i < nfound; i++) {
        cr_log(CR_LOG_ERROR, "%s (at start; `chessrelay journal verify %s` tells more)",
               found[i].text, dir);
        cr_seal_sound_note(found[i].name, false);
    }
    pthread_mutex_lock(&H.lock);
    memcpy(H.problems, found, (size_t)nfound * sizeof *found);
    H.nproblems = nfound;
    snprintf(H.path, sizeof H.path, "%s/%s", dir, CR_SEAL_HEAD_FILE);
    cr_error err;
    if (cr_seal_head_read(dir, H.e, CR_SEAL_HEAD_KINDS, &H.n, &err) == CR_ECONFIG) {
        H.n = 0; /* reported above */
    }
    H.stopping = false;
    /* No signal for this thread: the program's signal watch has them. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    H.running = pthread_create(&H.thread, NULL, head_thread, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_unlock(&H.lock);
    return H.running ? 0 : CR_EIO;
}

void cr_seal_head_note(const char *name, const cr_seal *last, bool now)
{
    pthread_mutex_lock(&H.lock);
    if (H.running) {
        int i = 0;
        while (i < H.n && strcmp(H.e[i].name, name) != 0) {
            i++;
        }
        if (i == H.n && H.n < CR_SEAL_HEAD_KINDS) {
            snprintf(H.e[H.n++].name, sizeof H.e[0].name, "%s", name);
        }
        if (i < H.n) {
            H.e[i].seal = *last;
            H.dirty = true;
        }
        if (now) {
            write_head();
        }
    }
    pthread_mutex_unlock(&H.lock);
}

void cr_seal_head_stop(void)
{
    pthread_mutex_lock(&H.lock);
    bool running = H.running;
    H.stopping = true;
    pthread_cond_signal(&H.wake);
    pthread_mutex_unlock(&H.lock);
    if (running) {
        pthread_join(H.thread, NULL);
    }
    pthread_mutex_lock(&H.lock);
    if (running && H.dirty) {
        write_head();
    }
    H.running = false;
    pthread_mutex_unlock(&H.lock);
}

void cr_seal_sound_note(const char *name, bool sound)
{
    pthread_mutex_lock(&H.lock);
    int i = 0;
    while (i < H.nsound && strcmp(H.sound[i].name, name) != 0) {
        i++;
    }
    if (i == H.nsound && H.nsound < CR_SEAL_HEAD_KINDS) {
        snprintf(H.sound[H.nsound++].name, sizeof H.sound[0].name, "%s", name);
        H.sound[i].sound = true;
    }
    if (i < H.nsound) {
        H.sound[i].sound &= sound; /* a problem found by either check stays */
    }
    pthread_mutex_unlock(&H.lock);
}

void cr_seal_sound_metrics(FILE *f)
{
    pthread_mutex_lock(&H.lock);
    if (H.nsound) {
        fprintf(f, "# HELP chessrelay_journal_sound Whether the sealed files of a kind matched "
                   "their seals when read at start (0: tampered or damaged).\n"
                   "# TYPE chessrelay_journal_sound gauge\n");
    }
    for (int i = 0; i < H.nsound; i++) {
        fprintf(f, "chessrelay_journal_sound{kind=\"%s\"} %d\n", H.sound[i].name,
                H.sound[i].sound);
    }
    pthread_mutex_unlock(&H.lock);
}
