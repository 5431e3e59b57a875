/* chessrelay relay: seals (see seal.h). */
#define _GNU_SOURCE /* memrchr, memmem */
#include "util/seal.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

/* Set once before the threads (seal.h): read-only afterwards. */
static cr_seal_key the_key;
static bool have_key;

void cr_seal_use_key(const cr_seal_key *key)
{
    have_key = key != NULL;
    if (key) {
        the_key = *key;
    } else {
        memset(&the_key, 0, sizeof the_key);
    }
}

bool cr_seal_have_key(void)
{
    return have_key;
}

/* out = SHA-256(p1 || a || b) (p1 may be NULL). */
static void sha256(const void *p1, size_t n1, const void *a, size_t alen, const void *b, size_t blen,
                   unsigned char *out)
{
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    unsigned n = 0;
    if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL) || (p1 && !EVP_DigestUpdate(c, p1, n1)) ||
        !EVP_DigestUpdate(c, a, alen) || !EVP_DigestUpdate(c, b, blen) ||
        !EVP_DigestFinal_ex(c, out, &n)) {
        memset(out, 0, CR_SEAL_BYTES); /* out of memory: a seal no reader accepts */
    }
    EVP_MD_CTX_free(c);
}

void cr_seal_hmac(const unsigned char *key, size_t klen, const void *a, size_t alen, const void *b,
                  size_t blen, unsigned char out[CR_SEAL_BYTES])
{
    enum { BLOCK = 64 };
    unsigned char ipad[BLOCK], opad[BLOCK], inner[CR_SEAL_BYTES];
    for (size_t i = 0; i < BLOCK; i++) {
        unsigned char k = i < klen ? key[i] : 0;
        ipad[i] = k ^ 0x36;
        opad[i] = k ^ 0x5c;
    }
    sha256(ipad, BLOCK, a, alen, b, blen, inner);
    sha256(opad, BLOCK, inner, sizeof inner, "", 0, out);
}

bool cr_seal_mac(const void *data, size_t len, unsigned char out[CR_SEAL_BYTES])
{
    if (have_key) {
        cr_seal_hmac(the_key.k, sizeof the_key.k, "", 0, data, len, out);
    }
    return have_key;
}

/* out = the seal of data after prev: keyed (HMAC) or plain SHA-256. */
static void seal_of(const cr_seal *prev, const char *data, size_t len, bool keyed, cr_seal *out)
{
    if (keyed) {
        cr_seal_hmac(the_key.k, sizeof the_key.k, prev->h, CR_SEAL_BYTES, data, len, out->h);
    } else {
        sha256(NULL, 0, prev->h, CR_SEAL_BYTES, data, len, out->h);
    }
    out->keyed = keyed || prev->keyed;
}

void cr_seal_record(cr_seal *chain, const char *rec, size_t len, char *out)
{
    static const char hex[] = "0123456789abcdef";
    cr_seal s;
    seal_of(chain, rec, len, have_key, &s);
    memcpy(out, have_key ? "#% " : "#= ", 3);
    for (int i = 0; i < CR_SEAL_BYTES; i++) {
        out[3 + 2 * i] = hex[s.h[i] >> 4];
        out[4 + 2 * i] = hex[s.h[i] & 15];
    }
    out[CR_SEAL_LINE - 1] = '\n';
    *chain = s;
}

char *cr_seal_frame(const cr_seal *chain, const char *rec, size_t len, char *buf, size_t size,
                    size_t *n, cr_seal *next)
{
    bool nl = len && rec[len - 1] == '\n';
    size_t r = len + !nl;
    char *b = r + CR_SEAL_LINE <= size ? buf : malloc(r + CR_SEAL_LINE);
    if (!b) {
        return NULL;
    }
    memcpy(b, rec, len);
    b[r - 1] = '\n';
    *next = *chain;
    cr_seal_record(next, b, r, b + r);
    *n = r + CR_SEAL_LINE;
    return b;
}

bool cr_seal_is_line(const char *line, size_t len)
{
    return len >= 3 && (memcmp(line, "#= ", 3) == 0 || memcmp(line, "#% ", 3) == 0);
}

bool cr_seal_any(const char *text, size_t len)
{
    return (len >= 3 && cr_seal_is_line(text, len)) || memmem(text, len, "\n#= ", 4) ||
           memmem(text, len, "\n#% ", 4);
}

/* The seal written on a seal line (without its "\n"); false if malformed. */
static bool parse_seal(const char *line, size_t len, cr_seal *out)
{
    if (len != CR_SEAL_LINE - 1) {
        return false;
    }
    for (int i = 0; i < CR_SEAL_BYTES; i++) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = line[3 + 2 * i + k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) {
                return false;
            }
            v = v * 16 + d;
        }
        out->h[i] = (unsigned char)v;
    }
    return true;
}

int cr_seal_scan(const char *text, size_t len, cr_seal *chain, cr_seal_record_fn fn, void *data,
                 size_t *keep, int *lines)
{
    size_t start = 0, pos = 0;
    int lineno = 0, start_line = 1, rc = 0;
    for (const char *nl; rc == 0 && (nl = memchr(text + pos, '\n', len - pos)) != NULL;) {
        const char *line = text + pos;
        size_t ll = (size_t)(nl - line);
        lineno++;
        pos += ll + 1;
        if (!cr_seal_is_line(line, ll)) {
            continue;
        }
        cr_seal want, got;
        size_t rec_end = (size_t)(line - text);
        bool keyed = line[1] == '%';
        seal_of(chain, text + start, rec_end - start, keyed && have_key, &want);
        bool ok = parse_seal(line, ll, &got);
        got.keyed = keyed || chain->keyed;
        const char *bad = NULL;
        if (!ok) {
            bad = "malformed seal";
        } else if (keyed && !have_key) {
            bad = "a keyed seal, and no key (seal.key) to check it";
        } else if (!keyed && chain->keyed) {
            bad = "an unkeyed seal after keyed ones (resealed without the key)";
        } else if (rec_end == start) {
            bad = "a seal without its record";
        } else if (memcmp(want.h, got.h, CR_SEAL_BYTES) != 0) {
            bad = "the record does not match its seal (changed, removed or moved lines)";
        }
        rc = fn(data, start, rec_end, start_line, bad, rec_end == start ? lineno : start_line, keyed);
        *chain = ok ? got : want;
        start = pos;
        start_line = lineno + 1;
    }
    *keep = start;
    *lines = start_line - 1;
    return rc;
}

void cr_seal_last(const char *text, size_t len, cr_seal *out)
{
    size_t end = len;
    while (end > 0) {
        /* the line ending at end - 1 ("\n") */
        size_t stop = end - 1;
        if (text[stop] != '\n') { /* a torn tail */
            const char *nl = memrchr(text, '\n', stop);
            end = nl ? (size_t)(nl - text) + 1 : 0;
            continue;
        }
        const char *nl = stop ? memrchr(text, '\n', stop) : NULL;
        size_t start = nl ? (size_t)(nl - text) + 1 : 0;
        if (cr_seal_is_line(text + start, stop - start) &&
            parse_seal(text + start, stop - start, out)) {
            /* Seals are keyed from the first keyed one on (older first). */
            out->keyed = text[start + 1] == '%';
            break;
        }
        end = start;
    }
}
