/* chessrelay relay: Ed25519 signatures of the sealed files (see sign.h). */
#define _GNU_SOURCE /* memrchr */
#include "util/sign.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "util/fileio.h"
#include "util/log.h"

enum { FOLLOW_MAX = 8, LINE_MAX_ = 400 };

void cr_sign_hex(const unsigned char *b, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * n] = '\0';
}

bool cr_sign_unhex(const char *s, size_t len, unsigned char *out, size_t n)
{
    if (len != 2 * n) {
        return false;
    }
    for (size_t i = 0; i < 2 * n; i++) {
        char c = s[i] | (s[i] >= 'A' && s[i] <= 'F' ? 32 : 0);
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) {
            return false;
        }
        out[i / 2] = (unsigned char)(i % 2 ? out[i / 2] * 16 + d : d);
    }
    return true;
}

static bool pub_of(const unsigned char seed[32], unsigned char pub[CR_SIGN_PUB_BYTES])
{
    EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    size_t n = CR_SIGN_PUB_BYTES;
    bool ok = k && EVP_PKEY_get_raw_public_key(k, pub, &n) == 1 && n == CR_SIGN_PUB_BYTES;
    EVP_PKEY_free(k);
    return ok;
}

bool cr_sign_make(const cr_sign_key *key, const void *msg, size_t len,
                  unsigned char sig[CR_SIGN_BYTES])
{
    EVP_PKEY *k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, key->seed, 32);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    size_t n = CR_SIGN_BYTES;
    bool ok = k && c && EVP_DigestSignInit(c, NULL, NULL, NULL, k) == 1 &&
              EVP_DigestSign(c, sig, &n, msg, len) == 1 && n == CR_SIGN_BYTES;
    EVP_MD_CTX_free(c);
    EVP_PKEY_free(k);
    return ok;
}

bool cr_sign_check(const unsigned char pub[CR_SIGN_PUB_BYTES], const void *msg, size_t len,
                   const unsigned char sig[CR_SIGN_BYTES])
{
    EVP_PKEY *k = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, CR_SIGN_PUB_BYTES);
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    bool ok = k && c && EVP_DigestVerifyInit(c, NULL, NULL, NULL, k) == 1 &&
              EVP_DigestVerify(c, sig, CR_SIGN_BYTES, msg, len) == 1;
    EVP_MD_CTX_free(c);
    EVP_PKEY_free(k);
    return ok;
}

size_t cr_sign_message(char *out, size_t size, const char *file, long long bytes,
                       const char *sha_hex, long long wall_ms)
{
    int n = snprintf(out, size, "chessrelay-sig v1 %s %lld %s %lld", file, bytes, sha_hex, wall_ms);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* 64 hex digits (and "\n") at path into out (n = 32 bytes). */
static int read_hex_file(const char *path, unsigned char *out, size_t n, cr_error *err)
{
    char *text;
    size_t len;
    int rc = cr_read_file(path, 4096, &text, &len, err);
    if (rc) {
        return rc;
    }
    while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) {
        len--;
    }
    bool ok = cr_sign_unhex(text, len, out, n);
    free(text);
    return ok ? 0
              : cr_error_set(err, CR_ECONFIG, 0, 0, "%s: expected %zu hex digits (a key of "
                             "`chessrelay journal keygen`)", path, 2 * n);
}

int cr_sign_key_load(const char *path, cr_sign_key *key, cr_error *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    if (sb.st_mode & 077) {
        return cr_error_set(err, CR_ECONFIG, 0, 0, "%s: readable by others (chmod 600 it): "
                            "whoever reads it can sign", path);
    }
    int rc = read_hex_file(path, key->seed, sizeof key->seed, err);
    if (!rc && !pub_of(key->seed, key->pub)) {
        rc = cr_error_set(err, CR_ECONFIG, 0, 0, "%s: not an Ed25519 key", path);
    }
    return rc;
}

int cr_sign_pub_load(const char *path, unsigned char pub[CR_SIGN_PUB_BYTES], cr_error *err)
{
    return read_hex_file(path, pub, CR_SIGN_PUB_BYTES, err);
}

static int write_new(const char *path, const char *text, mode_t mode, cr_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    int rc = cr_write_all(fd, text, strlen(text));
    if (close(fd) || rc) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    return 0;
}

int cr_sign_keygen(const char *path, cr_error *err)
{
    cr_sign_key k;
    if (getrandom(k.seed, sizeof k.seed, 0) != (ssize_t)sizeof k.seed || !pub_of(k.seed, k.pub)) {
        return cr_error_set(err, CR_EIO, 0, 0, "no random bytes for a key");
    }
    char hex[2 * 32 + 2], pub_path[PATH_MAX];
    snprintf(pub_path, sizeof pub_path, "%s.pub", path);
    cr_sign_hex(k.seed, 32, hex);
    strcat(hex, "\n");
    int rc = write_new(path, hex, 0600, err);
    if (!rc) {
        cr_sign_hex(k.pub, 32, hex);
        strcat(hex, "\n");
        rc = write_new(pub_path, hex, 0644, err);
    }
    return rc;
}

/*----- the signer -----*/

typedef struct followed {
    char name[64];
    long long hashed;   /* bytes in ctx: whole lines */
    long long signed_at; /* bytes of the last checkpoint */
    EVP_MD_CTX *ctx;
    char last[LINE_MAX_]; /* the last checkpoint's line */
} followed;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    bool running, stopping, failing;
    char dir[PATH_MAX];
    cr_sign_key key;
    int log; /* signatures.log */
    followed f[FOLLOW_MAX];
    int n;
} S = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .log = -1};

/* Hashes what f's file gained since, up to its last "\n" (a record being
 * written is left for the next time). */
static void catch_up(followed *f)
{
    char path[PATH_MAX + 80], buf[65536];
    snprintf(path, sizeof path, "%s/%s", S.dir, f->name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return;
    }
    for (;;) {
        ssize_t got = pread(fd, buf, sizeof buf, (off_t)f->hashed);
        if (got <= 0) {
            break;
        }
        const char *nl = memrchr(buf, '\n', (size_t)got);
        if (!nl) {
            break;
        }
        size_t n = (size_t)(nl + 1 - buf);
        EVP_DigestUpdate(f->ctx, buf, n);
        f->hashed += (long long)n;
    }
    close(fd);
}

/* A checkpoint of f when it grew. Under the lock. */
static void checkpoint(followed *f)
{
    catch_up(f);
    if (f->hashed == f->signed_at) {
        return;
    }
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned char h[32], sig[CR_SIGN_BYTES];
    unsigned int hl = 0;
    if (!c || !EVP_MD_CTX_copy_ex(c, f->ctx) || !EVP_DigestFinal_ex(c, h, &hl)) {
        EVP_MD_CTX_free(c);
        return;
    }
    EVP_MD_CTX_free(c);
    char sha[65], sig_hex[2 * CR_SIGN_BYTES + 1], msg[LINE_MAX_];
    cr_sign_hex(h, 32, sha);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long ms = (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    size_t ml = cr_sign_message(msg, sizeof msg, f->name, f->hashed, sha, ms);
    if (!cr_sign_make(&S.key, msg, ml, sig)) {
        return;
    }
    cr_sign_hex(sig, CR_SIGN_BYTES, sig_hex);
    int n = snprintf(f->last, sizeof f->last, "%s %lld %s %lld %s\n", f->name, f->hashed, sha, ms,
                     sig_hex);
    if (cr_write_all(S.log, f->last, (size_t)n) != 0 || fdatasync(S.log) != 0) {
        if (!S.failing) {
            cr_log(CR_LOG_WARN, "%s/%s: a checkpoint is not written: %s", S.dir, CR_SIGN_FILE,
                   strerror(errno));
        }
        S.failing = true;
        return;
    }
    S.failing = false;
    f->signed_at = f->hashed;
}

static void *sign_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&S.lock);
    while (!S.stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += CR_SIGN_EVERY_MS / 1000;
        pthread_cond_timedwait(&S.wake, &S.lock, &until);
        for (int i = 0; i < S.n && !S.stopping; i++) {
            checkpoint(&S.f[i]);
        }
    }
    pthread_mutex_unlock(&S.lock);
    return NULL;
}

int cr_signer_start(const char *dir, const cr_sign_key *key)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, CR_SIGN_FILE);
    struct stat sb;
    bool fresh = stat(path, &sb) != 0 || sb.st_size == 0;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        cr_log(CR_LOG_ERROR, "%s: %s", path, strerror(errno));
        return CR_EIO;
    }
    char pub[65];
    cr_sign_hex(key->pub, 32, pub);
    if (fresh) {
        char head[160];
        int n = snprintf(head, sizeof head, "# chessrelay signatures v1, public key %s\n", pub);
        cr_write_all(fd, head, (size_t)n);
    }
    pthread_mutex_lock(&S.lock);
    snprintf(S.dir, sizeof S.dir, "%s", dir);
    S.key = *key;
    S.log = fd;
    S.stopping = false;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    S.running = pthread_create(&S.thread, NULL, sign_thread, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_mutex_unlock(&S.lock);
    if (S.running) {
        cr_log(CR_LOG_INFO, "%s: signed with the Ed25519 key %s", path, pub);
    }
    return S.running ? 0 : CR_EIO;
}

void cr_signer_follow(const char *name)
{
    pthread_mutex_lock(&S.lock);
    if (S.running && S.n < FOLLOW_MAX && strlen(name) < sizeof S.f[0].name) {
        followed *f = &S.f[S.n];
        memset(f, 0, sizeof *f);
        snprintf(f->name, sizeof f->name, "%s", name);
        f->ctx = EVP_MD_CTX_new();
        if (f->ctx && EVP_DigestInit_ex(f->ctx, EVP_sha256(), NULL)) {
            S.n++;
        } else {
            EVP_MD_CTX_free(f->ctx);
        }
    }
    pthread_mutex_unlock(&S.lock);
}

void cr_signer_checkpoint(void)
{
    pthread_mutex_lock(&S.lock);
    for (int i = 0; S.running && i < S.n; i++) {
        checkpoint(&S.f[i]);
    }
    pthread_mutex_unlock(&S.lock);
}

void cr_signer_stop(void)
{
    pthread_mutex_lock(&S.lock);
    bool running = S.running;
    S.stopping = true;
    pthread_cond_signal(&S.wake);
    pthread_mutex_unlock(&S.lock);
    if (!running) {
        return;
    }
    pthread_join(S.thread, NULL);
    cr_signer_checkpoint(); /* the files as they end */
    pthread_mutex_lock(&S.lock);
    for (int i = 0; i < S.n; i++) {
        EVP_MD_CTX_free(S.f[i].ctx);
    }
    S.n = 0;
    close(S.log);
    S.log = -1;
    S.running = false;
    pthread_mutex_unlock(&S.lock);
}

bool cr_signer_pub(char *hex)
{
    pthread_mutex_lock(&S.lock);
    bool running = S.running;
    if (running) {
        cr_sign_hex(S.key.pub, 32, hex);
    }
    pthread_mutex_unlock(&S.lock);
    return running;
}

void cr_signer_head(char *out, size_t size)
{
    size_t at = 0;
    out[0] = '\0';
    pthread_mutex_lock(&S.lock);
    for (int i = 0; i < S.n && at < size; i++) {
        at += (size_t)snprintf(out + at, size - at, "%s", S.f[i].last);
    }
    pthread_mutex_unlock(&S.lock);
}
