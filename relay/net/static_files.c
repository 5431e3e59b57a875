/* chessrelay relay: the web root's files: precompressed copies by
 * Accept-Encoding, caching headers, ETag and 304 (static_files.h). */
#include "net/static_files.h"

#include <inttypes.h>
#include <libwebsockets.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

static const char *mime_of(const char *path)
{
    static const char *const map[][2] = {{".html", "text/html; charset=utf-8"},
                                         {".js", "text/javascript"},
                                         {".mjs", "text/javascript"},
                                         {".css", "text/css"},
                                         {".json", "application/json"},
                                         {".svg", "image/svg+xml"},
                                         {".png", "image/png"},
                                         {".ico", "image/x-icon"},
                                         {".woff2", "font/woff2"},
                                         {".woff", "font/woff"},
                                         {".txt", "text/plain; charset=utf-8"},
                                         {".map", "application/json"},
                                         {".wasm", "application/wasm"},
                                         {".webmanifest", "application/manifest+json"},
                                         {".pgn", "application/x-chess-pgn"},
                                         {".jpg", "image/jpeg"},
                                         {".jpeg", "image/jpeg"},
                                         {".webp", "image/webp"},
                                         /* A copy asked for by its own name is that file,
                                          * sent as it is (no Content-Encoding). */
                                         {".gz", "application/gzip"}};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof map / sizeof map[0]; i++) {
        if (strcmp(dot, map[i][0]) == 0) {
            return map[i][1];
        }
    }
    return "application/octet-stream";
}

/* The kinds web/build.mjs writes .gz and .br copies of. */
static bool compressible(const char *path)
{
    static const char *const ext[] = {".html", ".js", ".css", ".svg", ".json", ".map", ".txt"};
    const char *dot = strrchr(path, '.');
    for (size_t i = 0; dot && i < sizeof ext / sizeof ext[0]; i++) {
        if (strcmp(dot, ext[i]) == 0) {
            return true;
        }
    }
    return false;
}

static bool is_ows(char c) { return c == ' ' || c == '\t'; }

/* A qvalue ("0", "0.5", "1.000") in thousandths; -1 when malformed. */
static int parse_qvalue(const char *s, size_t n)
{
    if (n == 0 || (s[0] != '0' && s[0] != '1') || (n > 1 && s[1] != '.') || n > 5) {
        return -1;
    }
    int q = (s[0] - '0') * 1000, scale = 100;
    for (size_t i = 2; i < n; i++, scale /= 10) {
        if (s[i] < '0' || s[i] > '9') {
            return -1;
        }
        q += (s[i] - '0') * scale;
    }
    return q > 1000 ? -1 : q;
}

/* One element "coding *(OWS ; OWS param)": its coding and q; false when
 * malformed. */
static bool parse_element(const char *s, size_t n, const char **coding, size_t *clen, int *q)
{
    while (n && is_ows(*s)) {
        s++, n--;
    }
    while (n && is_ows(s[n - 1])) {
        n--;
    }
    size_t c = 0;
    while (c < n && s[c] != ';' && !is_ows(s[c])) {
        c++;
    }
    if (c == 0) {
        return false;
    }
    *coding = s, *clen = c, *q = 1000;
    for (size_t i = c; i < n;) {
        while (i < n && is_ows(s[i])) {
            i++;
        }
        if (i == n) {
            break;
        }
        if (s[i] != ';') {
            return false;
        }
        i++;
        while (i < n && is_ows(s[i])) {
            i++;
        }
        size_t p = i;
        while (i < n && s[i] != ';' && !is_ows(s[i])) {
            i++;
        }
        if (i - p >= 2 && (s[p] == 'q' || s[p] == 'Q') && s[p + 1] == '=') {
            *q = parse_qvalue(s + p + 2, i - p - 2);
            if (*q < 0) {
                return false;
            }
        }
    }
    return true;
}

static bool coding_is(const char *c, size_t n, const char *name)
{
    return strlen(name) == n && strncasecmp(c, name, n) == 0;
}

cr_http_encoding cr_http_pick_encoding(const char *accept, unsigned have)
{
    /* q in thousandths; -1: not named. */
    int q_br = -1, q_gzip = -1, q_identity = -1, q_any = -1;
    for (const char *s = accept ? accept : ""; *s;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        const char *c;
        size_t clen;
        int q;
        if (parse_element(s, n, &c, &clen, &q)) {
            if (coding_is(c, clen, "br")) {
                q_br = q;
            } else if (coding_is(c, clen, "gzip") || coding_is(c, clen, "x-gzip")) {
                q_gzip = q;
            } else if (coding_is(c, clen, "identity")) {
                q_identity = q;
            } else if (coding_is(c, clen, "*")) {
                q_any = q;
            }
        }
        s += n + (comma ? 1 : 0);
    }
    /* A coding not named takes `*`'s q; identity not named (nor `*`) stays
     * acceptable, after every coding the client named. */
    int br = q_br >= 0 ? q_br : q_any >= 0 ? q_any : 0;
    int gzip = q_gzip >= 0 ? q_gzip : q_any >= 0 ? q_any : 0;
    int identity = q_identity >= 0 ? q_identity : q_any >= 0 ? q_any : 1;
    if (!(have & CR_HAVE_BR)) {
        br = 0;
    }
    if (!(have & CR_HAVE_GZIP)) {
        gzip = 0;
    }
    if (br > 0 && br >= gzip && br >= identity) {
        return CR_ENC_BR;
    }
    if (gzip > 0 && gzip >= identity) {
        return CR_ENC_GZIP;
    }
    return identity > 0 ? CR_ENC_IDENTITY : CR_ENC_REFUSED;
}

bool cr_http_etag_matches(const char *inm, const char *etag)
{
    size_t elen = strlen(etag);
    for (const char *s = inm ? inm : ""; *s;) {
        const char *comma = strchr(s, ',');
        size_t n = comma ? (size_t)(comma - s) : strlen(s);
        const char *t = s;
        while (n && is_ows(*t)) {
            t++, n--;
        }
        while (n && is_ows(t[n - 1])) {
            n--;
        }
        if (n >= 2 && t[0] == 'W' && t[1] == '/') {
            t += 2, n -= 2;
        }
        if ((n == 1 && t[0] == '*') || (n == elen && memcmp(t, etag, n) == 0)) {
            return true;
        }
        s = comma ? comma + 1 : s + strlen(s);
    }
    return false;
}

/* The copy `real`+suffix when it is a regular file inside the web root and
 * not older than the file itself (a copy left from an earlier build is
 * another file's bytes). */
static bool copy_of(const char *web_root, const char *real, const struct stat *orig,
                    const char *suffix, char *out, struct stat *st)
{
    char path[PATH_MAX + 8];
    size_t rlen = strlen(web_root);
    if ((size_t)snprintf(path, sizeof path, "%s%s", real, suffix) >= sizeof path ||
        !realpath(path, out) || stat(out, st) || !S_ISREG(st->st_mode) ||
        strncmp(out, web_root, rlen) || out[rlen] != '/') {
        return false;
    }
    return st->st_mtim.tv_sec > orig->st_mtim.tv_sec ||
           (st->st_mtim.tv_sec == orig->st_mtim.tv_sec &&
            st->st_mtim.tv_nsec >= orig->st_mtim.tv_nsec);
}

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p,
                      unsigned char *end)
{
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name,
                                       (const unsigned char *)value, (int)strlen(value), p, end);
}

/* lws_serve_http_file adds its own "cache-control: no-store" unless strstr()
 * finds "cache-control" in the extra headers; lws encodes an h2 header by
 * name from a 0 byte on, which ends that search. On h2 this one is HPACK's
 * literal never indexed with a new name (0x10, RFC 7541 6.2.3), which lws
 * finds. */
static int add_cache_control(struct lws *wsi, const char *value, unsigned char **p,
                             unsigned char *end)
{
    if (lws_get_network_wsi(wsi) == wsi) { /* HTTP/1 */
        return add_header(wsi, "cache-control:", value, p, end);
    }
    static const char name[] = "cache-control";
    size_t nlen = sizeof name - 1, vlen = strlen(value);
    if (vlen > 126 || (size_t)(end - *p) < 3 + nlen + vlen) {
        return 1;
    }
    *(*p)++ = 0x10;
    *(*p)++ = (unsigned char)nlen; /* lengths under 127: one byte, no Huffman */
    memcpy(*p, name, nlen);
    *p += nlen;
    *(*p)++ = (unsigned char)vlen;
    memcpy(*p, value, vlen);
    *p += vlen;
    return 0;
}

/* 304: the headers a 200 would have had, no body (on h2 the HEADERS frame
 * ends the stream). */
static int not_modified(struct lws *wsi, const char *ctype, const unsigned char *extra,
                        size_t extra_len)
{
    unsigned char hbuf[LWS_PRE + 1024];
    unsigned char *start = hbuf + LWS_PRE, *p = start, *end = hbuf + sizeof hbuf - 1;
    if (lws_add_http_header_status(wsi, HTTP_STATUS_NOT_MODIFIED, &p, end) ||
        lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE,
                                     (const unsigned char *)ctype, (int)strlen(ctype), &p, end) ||
        (size_t)(end - p) < extra_len) {
        return -1;
    }
    memcpy(p, extra, extra_len);
    p += extra_len;
    if (lws_finalize_http_header(wsi, &p, end)) {
        return -1;
    }
    int n = (int)(p - start);
    if (lws_write(wsi, start, (size_t)n, LWS_WRITE_HTTP_HEADERS | LWS_WRITE_H2_STREAM_END) != n) {
        return -1;
    }
    return 2; /* the caller ends the transaction */
}

int cr_static_serve(struct lws *wsi, const char *web_root, const char *real)
{
    struct stat st;
    if (stat(real, &st)) {
        return -1;
    }
    const char *ctype = mime_of(real);
    char accept[512] = "", inm[512] = "";
    if (lws_hdr_copy(wsi, accept, sizeof accept, WSI_TOKEN_HTTP_ACCEPT_ENCODING) < 0) {
        accept[0] = '\0'; /* longer than any real one: identity */
    }
    char br[PATH_MAX], gz[PATH_MAX];
    struct stat br_st, gz_st;
    unsigned have = 0;
    bool vary = compressible(real);
    if (vary && copy_of(web_root, real, &st, ".br", br, &br_st)) {
        have |= CR_HAVE_BR;
    }
    if (vary && copy_of(web_root, real, &st, ".gz", gz, &gz_st)) {
        have |= CR_HAVE_GZIP;
    }
    cr_http_encoding enc = cr_http_pick_encoding(accept, have);
    if (enc == CR_ENC_REFUSED) {
        return 1;
    }
    const char *file = enc == CR_ENC_BR ? br : enc == CR_ENC_GZIP ? gz : real;
    const struct stat *fst = enc == CR_ENC_BR ? &br_st : enc == CR_ENC_GZIP ? &gz_st : &st;
    const char *coding = enc == CR_ENC_BR ? "br" : enc == CR_ENC_GZIP ? "gzip" : NULL;
    /* Each copy is its own representation: its own tag. */
    char etag[80];
    snprintf(etag, sizeof etag, "\"%" PRIx64 "-%" PRIx64 "%s%s\"", (uint64_t)fst->st_size,
             (uint64_t)fst->st_mtim.tv_sec * 1000000000u + (uint64_t)fst->st_mtim.tv_nsec,
             coding ? "-" : "", coding ? coding : "");
    bool immutable = strncmp(real + strlen(web_root), "/assets/", 8) == 0;
    /* cache-control first: lws adds its own (no-store) unless it finds one
     * in these headers. */
    unsigned char extra[512], *p = extra, *end = extra + sizeof extra;
    if (add_cache_control(wsi, immutable ? "public, max-age=31536000, immutable" : "no-cache", &p,
                          end) ||
        add_header(wsi, "etag:", etag, &p, end) ||
        (vary && add_header(wsi, "vary:", "Accept-Encoding", &p, end)) ||
        (coding && add_header(wsi, "content-encoding:", coding, &p, end))) {
        return -1;
    }
    if (lws_hdr_copy(wsi, inm, sizeof inm, WSI_TOKEN_HTTP_IF_NONE_MATCH) > 0 &&
        cr_http_etag_matches(inm, etag)) {
        return not_modified(wsi, ctype, extra, (size_t)(p - extra));
    }
    int n = lws_serve_http_file(wsi, file, ctype, (const char *)extra, (int)(p - extra));
    if (n < 0) {
        return -1;
    }
    return n > 0 ? 2 : 0; /* 2: sent whole, the caller ends the transaction */
}
