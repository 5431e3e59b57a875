/* chessrelay relay: checking a state folder's signatures with the public
 * key alone (see sign.h, cr_sign_verify). */
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "util/fileio.h"
#include "util/sign.h"

typedef struct ckpt {
    char name[64];
    long long bytes, ms;
    unsigned char sha[32];
    int line; /* in signatures.log */
} ckpt;

/* One checkpoint line into c; false when it is not one. */
static bool parse_line(const char *s, size_t len, ckpt *c, unsigned char sig[CR_SIGN_BYTES],
                       char *msg, size_t msize, size_t *mlen)
{
    char buf[512], name[64], sha[80], sig_hex[160];
    if (len >= sizeof buf) {
        return false;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (sscanf(buf, "%63s %lld %79s %lld %159s", name, &c->bytes, sha, &c->ms, sig_hex) != 5 ||
        c->bytes < 0 || !cr_sign_unhex(sha, strlen(sha), c->sha, 32) ||
        !cr_sign_unhex(sig_hex, strlen(sig_hex), sig, CR_SIGN_BYTES)) {
        return false;
    }
    snprintf(c->name, sizeof c->name, "%s", name);
    *mlen = cr_sign_message(msg, msize, name, c->bytes, sha, c->ms);
    return true;
}

/* The line number (1-based) of byte `at` of text. */
static long line_at(const char *text, size_t at)
{
    long n = 1;
    for (const char *p = text; (p = memchr(p, '\n', (size_t)(text + at - p))) != NULL; p++) {
        n++;
    }
    return n;
}

static int by_file(const void *a, const void *b)
{
    const ckpt *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* The checkpoints c[0..n) of one file against it (sorted by bytes). */
static long check_file(const char *dir, const ckpt *c, int n, FILE *out)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, c[0].name);
    char *text;
    size_t len;
    cr_error err;
    if (cr_read_file(path, SIZE_MAX / 2, &text, &len, &err)) {
        fprintf(out, "%s: missing (deleted?), but %s:%d signed %lld bytes of it\n", path,
                CR_SIGN_FILE, c[n - 1].line, c[n - 1].bytes);
        return 1;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new(), *fin = EVP_MD_CTX_new();
    long problems = 0;
    size_t hashed = 0, good = 0;
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    for (int i = 0; i < n && !problems; i++) {
        if ((size_t)c[i].bytes > len) {
            fprintf(out, "%s:%ld: cut: %zu bytes, but %s:%d signed %lld (the end is missing)\n",
                    path, line_at(text, len), len, CR_SIGN_FILE, c[i].line, c[i].bytes);
            problems++;
            break;
        }
        EVP_DigestUpdate(ctx, text + hashed, (size_t)c[i].bytes - hashed);
        hashed = (size_t)c[i].bytes;
        unsigned char h[32];
        unsigned int hl;
        EVP_MD_CTX_copy_ex(fin, ctx);
        EVP_DigestFinal_ex(fin, h, &hl);
        if (memcmp(h, c[i].sha, 32) != 0) {
            fprintf(out, "%s:%ld: changed between lines %ld and %ld: its first %lld bytes are not "
                    "what %s:%d signed\n",
                    path, line_at(text, good), line_at(text, good),
                    line_at(text, hashed ? hashed - 1 : 0), c[i].bytes, CR_SIGN_FILE, c[i].line);
            problems++;
        } else {
            good = hashed;
        }
    }
    if (!problems && good < len) {
        fprintf(out, "%s: %zu byte(s) after its last checkpoint, not signed (written in its last "
                "seconds)\n", path, len - good);
    }
    EVP_MD_CTX_free(ctx);
    EVP_MD_CTX_free(fin);
    free(text);
    return problems;
}

/* Files of the journal in dir that no checkpoint names. */
static int unsigned_files(const char *dir, const ckpt *c, int n, FILE *out)
{
    DIR *d = opendir(dir);
    int count = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t l = strlen(e->d_name);
        bool journal = strncmp(e->d_name, "journal-", 8) == 0 && l > 5 &&
                       strcmp(e->d_name + l - 5, ".feed") == 0;
        if (!journal && strcmp(e->d_name, "incidents.log") != 0) {
            continue;
        }
        bool named = false;
        for (int i = 0; i < n && !named; i++) {
            named = strcmp(c[i].name, e->d_name) == 0;
        }
        if (!named) {
            fprintf(out, "%s/%s: not signed (no checkpoint: written without --signing-key)\n", dir,
                    e->d_name);
            count++;
        }
    }
    if (d) {
        closedir(d);
    }
    return count;
}

int cr_sign_verify(const char *dir, const unsigned char pub[CR_SIGN_PUB_BYTES], FILE *out,
                   long *problems, int *unsigned_count)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, CR_SIGN_FILE);
    char *text;
    size_t len;
    cr_error err;
    *problems = 0;
    *unsigned_count = 0;
    if (cr_read_file(path, SIZE_MAX / 2, &text, &len, &err)) {
        return CR_EEOF;
    }
    ckpt *c = NULL;
    int n = 0, cap = 0, lineno = 0;
    for (const char *p = text; p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        lineno++;
        ckpt k;
        unsigned char sig[CR_SIGN_BYTES];
        char msg[512];
        size_t ml;
        if (l && p[0] != '#' && !nl) {
            /* A crash in the middle of writing the last checkpoint. */
            fprintf(out, "%s:%d: a torn last line (a crash mid-write), not counted\n", path,
                    lineno);
        } else if (l && p[0] != '#') {
            if (!parse_line(p, l, &k, sig, msg, sizeof msg, &ml)) {
                fprintf(out, "%s:%d: not a checkpoint\n", path, lineno);
                (*problems)++;
            } else if (!cr_sign_check(pub, msg, ml, sig)) {
                fprintf(out, "%s:%d: its signature does not verify with the public key (forged, "
                        "or another relay's key)\n", path, lineno);
                (*problems)++;
            } else {
                if (n == cap) {
                    ckpt *v = realloc(c, (size_t)(cap = cap ? 2 * cap : 64) * sizeof *v);
                    if (!v) {
                        break;
                    }
                    c = v;
                }
                k.line = lineno;
                c[n++] = k;
            }
        }
        p = nl ? nl + 1 : text + len;
    }
    free(text);
    if (n) {
        qsort(c, (size_t)n, sizeof *c, by_file);
    }
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && strcmp(c[j].name, c[i].name) == 0) {
            j++;
        }
        *problems += check_file(dir, c + i, j - i, out);
        i = j;
    }
    *unsigned_count = unsigned_files(dir, c, n, out);
    free(c);
    return 0;
}

bool cr_sign_last_checkpoint(const char *dir, const char *name, char *line, size_t size,
                             int *lineno)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, CR_SIGN_FILE);
    char *text;
    size_t len;
    cr_error err;
    if (cr_read_file(path, SIZE_MAX / 2, &text, &len, &err)) {
        return false;
    }
    size_t nl_len = strlen(name);
    bool found = false;
    int at = 0;
    for (const char *p = text; p < text + len; at++) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(text + len - p);
        if (l > nl_len && memcmp(p, name, nl_len) == 0 && p[nl_len] == ' ') {
            snprintf(line, size, "%.*s", (int)l, p);
            *lineno = at + 1;
            found = true;
        }
        p = nl ? nl + 1 : text + len;
    }
    free(text);
    return found;
}
