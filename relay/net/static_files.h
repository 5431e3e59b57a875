/* chessrelay relay: the web root's files as HTTP answers (server thread).
 *
 * The web build (web/build.mjs) leaves beside each compressible file a gzip
 * (`.gz`) and a brotli (`.br`) copy; a client gets the copy its
 * Accept-Encoding prefers, with Content-Encoding and Vary. Files under
 * /assets/ have content-hashed names and are cached for a year as immutable;
 * every other file (index.html, flags) is revalidated: an ETag from the sent
 * file's size and mtime, 304 on a matching If-None-Match.
 * Nothing here is kept between calls: the caller owns every string. */
#ifndef CR_NET_STATIC_FILES_H
#define CR_NET_STATIC_FILES_H

#include <stdbool.h>

struct lws;

typedef enum {
    CR_ENC_IDENTITY,
    CR_ENC_GZIP,
    CR_ENC_BR,
    CR_ENC_REFUSED /* identity refused and no other coding there: 406 */
} cr_http_encoding;

/* Bits of `have`: the copies that exist besides the file itself. */
#define CR_HAVE_GZIP 1u
#define CR_HAVE_BR 2u

/* The coding to send for an Accept-Encoding value (RFC 9110 12.5.3: q-values,
 * `*`, `identity`; NULL or empty: identity). The highest q among what `have`
 * offers wins; on a tie br before gzip before identity. Malformed elements
 * are ignored. */
cr_http_encoding cr_http_pick_encoding(const char *accept, unsigned have);

/* Whether an If-None-Match value names `etag` (weak comparison) or is `*`. */
bool cr_http_etag_matches(const char *if_none_match, const char *etag);

/* Answers a request for `real`, a regular file already resolved inside
 * `web_root` (index.html too when it answers `/` or a client route: by the
 * file, not the URI, so a route under /assets/ is not immutable). Returns <0
 * to close the connection, 0 when the answer is under way, 1 when the client
 * accepts no coding there is (the caller answers 406), 2 when the answer is
 * complete (the caller ends the transaction: on HTTP/2 the server must
 * also see the connection's buffered tail out, server_private.h). */
int cr_static_serve(struct lws *wsi, const char *web_root, const char *real);

#endif
