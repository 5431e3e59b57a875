/* chessrelay relay: limits on the server's sockets, in the server thread
 * (docs/protocol.md, "Limits"): a global and a per-address cap on
 * connections (HTTP, WebSocket and agents alike), an idle timeout for
 * sockets that never say hello or subscribe, and a throttle on wrong tokens
 * per address, logged in summary.
 *
 * The accounting follows lws: cr_limits_accept at
 * LWS_CALLBACK_FILTER_NETWORK_CONNECTION (the peer's address; the new wsi
 * does not exist yet), cr_limits_created at the LWS_CALLBACK_WSI_CREATE
 * that follows it, cr_limits_destroyed at LWS_CALLBACK_WSI_DESTROY. Every
 * other call takes any wsi of the connection: an HTTP/2 stream's is mapped
 * to its connection (lws_get_network_wsi), so HTTP/2 is limited as HTTP/1.1.
 * cr_limits_request names the client behind a trusted reverse proxy. A
 * connection over a cap is accepted and marked: HTTP is answered 503 and a
 * WebSocket closed with 1013 (try again later); beyond a small margin over
 * the global cap it is closed at once. Connections are few thousand at
 * most: plain arrays, scanned.
 *
 * accept() failing for want of descriptors (EMFILE, ENFILE) is reported by
 * cr_limits_accept_failed, which says how long to leave the listening
 * socket alone (the server takes it out of the poll set for that long).
 *
 * Ownership: cr_limits_new returns a new object, cr_limits_free frees it.
 * Every function is for the server thread only. */
#ifndef CR_RELAY_LIMITS_H
#define CR_RELAY_LIMITS_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/addr.h"

typedef struct cr_limits_config {
    int connections;    /* global cap; 0: the fd limit less a reserve */
    int per_address;    /* cap per peer address; 0: 256 */
    int idle_s;         /* a socket that never says hello/subscribes; 0: 30 s */
    int token_failures; /* wrong tokens per address and minute before refusing; 0: 10 */
    int token_checks;   /* tokens checked per minute at such an address; 0: 60 */
    /* Reverse proxies (the caller's array, kept while the limits live):
     * their connections are counted against the client their request's
     * X-Forwarded-For names, not against the proxy. */
    const cr_addr_range *trusted;
    int ntrusted;
} cr_limits_config;

typedef struct cr_limits cr_limits;

cr_limits *cr_limits_new(const cr_limits_config *cfg);
void cr_limits_free(cr_limits *l); /* accepts NULL */

typedef enum { CR_LIMIT_OK, CR_LIMIT_OVER, CR_LIMIT_REFUSE } cr_limit_verdict;

/* A new connection from addr (len bytes). OVER: accept it, answer 503 or
 * close 1013; REFUSE: close it now. */
cr_limit_verdict cr_limits_accept(cr_limits *l, const struct sockaddr *addr, socklen_t len);
/* The wsi of the connection cr_limits_accept just let in. */
void cr_limits_created(cr_limits *l, struct lws *wsi);
void cr_limits_destroyed(cr_limits *l, struct lws *wsi);
/* A request (HTTP, or a WebSocket's handshake) on wsi's connection, with
 * its X-Forwarded-For (NULL: none): from a trusted proxy, the connection's
 * client becomes the address the header names (util/addr.h), and the
 * connection is over the cap if that client has too many. An HTTP/2
 * connection that carried a request is not idle (lws times it out). wsi
 * may be an HTTP/2 stream: the accounting is its connection's. */
void cr_limits_request(cr_limits *l, struct lws *wsi, const char *xff);
/* The client address of wsi's connection as text; false if unknown. */
bool cr_limits_client_text(const cr_limits *l, struct lws *wsi, char *buf, size_t size);
/* Whether wsi's connection is over a cap (to be answered and closed). */
bool cr_limits_over(const cr_limits *l, struct lws *wsi);

/* Once a second or more often: closes connections over a cap that are
 * still there after 2 s, and idle ones (active(wsi) false) older than
 * idle_s; logs the summary of refusals every 10 s when there were any. */
void cr_limits_sweep(cr_limits *l, int64_t now_us, bool (*active)(void *data, struct lws *wsi),
                     void *data);

/* The token throttle, per client address and minute. An address that gave
 * token_failures wrong tokens is throttled: its wrong tokens are answered
 * 429, but a right one still passes (one mistyping client behind a NAT or
 * a proxy must not lock the arbiters out). So that this does not leave
 * guessing unbounded, every token checked from an address with a wrong
 * one this minute counts against a budget (token_checks): beyond it, no
 * token of that address is checked (429, right or wrong) for the rest of
 * the minute. Addresses without a wrong token are never counted.
 *
 * cr_limits_token_check before checking a token: false when over the
 * budget (do not check it: answer 429). cr_limits_token_wrong after a
 * wrong one: true when the address was already throttled (answer 429, not
 * "wrong token"). */
bool cr_limits_token_check(cr_limits *l, struct lws *wsi);
bool cr_limits_token_wrong(cr_limits *l, struct lws *wsi);
/* The same for a client address (util/addr.h's 16 bytes) at now_us. */
bool cr_limits_token_check_at(cr_limits *l, const unsigned char key[16], int64_t now_us);
bool cr_limits_token_wrong_at(cr_limits *l, const unsigned char key[16], int64_t now_us);

/* accept() failed with err (EMFILE or ENFILE) at now_us: counted, and
 * logged at most once per 10 s. Returns how long not to accept: 100 ms,
 * doubled while the failures go on (one within 2 s of the last pause's
 * end), at most 1 s. */
int64_t cr_limits_accept_failed(cr_limits *l, int err, int64_t now_us);

/* chessrelay_connections_* metrics, Prometheus text. */
void cr_limits_metrics(const cr_limits *l, FILE *f);

#endif
