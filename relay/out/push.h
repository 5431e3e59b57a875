/* chessrelay relay: pushing each round's PGN to a broadcast host that takes
 * pushes, such as lichess ("POST /api/broadcast/round/<id>/push").
 *
 * Per round the tournament file gives a URL and a token. Each push is
 *
 *     POST <path>?<query> HTTP/1.1
 *     Host: <host>[:<port>]
 *     Authorization: Bearer <token>        (when the token is not empty)
 *     Content-Type: text/plain; charset=utf-8
 *     User-Agent: chessrelay/<version>
 *
 * with the whole round as the body (every game of the round, as PGN).
 * Any 2xx answer is a success.
 *
 * CONTRACT: the caller hands over the PUBLIC PGN, the one viewers without a
 * token see, i.e. already behind the public delay (the loop offers what its
 * public store holds, or the live store when there is no delay). The pusher
 * adds no delay of its own and never sees the live lane.
 *
 * Behaviour:
 *  - Only changes are sent: a 64-bit hash (and the length) of the last body
 *    the host accepted is kept per round; an offer equal to it sends nothing.
 *  - At most one request per round is in flight. Offers made meanwhile
 *    replace each other (coalescing): when the request ends, only the
 *    newest body is sent, the ones in between never are.
 *  - Transient failures (connection refused or reset, DNS failure, timeout,
 *    408, 5xx, 429) are retried with exponential back-off with jitter: the n-th
 *    retry waits a random time in [d/2, d], d = min(backoff_max,
 *    backoff_base * 2^(n-1)); a 429 waits at least its Retry-After (seconds
 *    or an HTTP date, capped at retry_after_max_s). A retry sends the newest
 *    body. An offer during the wait replaces the body but does not shorten
 *    the wait.
 *  - Two requests of a round are at least min_interval_ms apart (1 s by
 *    default), so that a busy round does not run into the host's rate
 *    limit: the changes of that second go out together.
 *  - Any other answer (4xx: bad token, unknown round, bad PGN; 3xx) is a
 *    permanent failure: logged with the status and an excerpt of the answer,
 *    and not retried; the next offer with a different body is sent (as soon
 *    as min_interval_ms allows).
 *  - Nothing blocks: requests use libevent's evhttp client on the caller's
 *    event_base (the relay's loop), with an asynchronous DNS resolver; the
 *    per-request timeout covers connecting, sending and the answer.
 *  - https:// is supported when chessrelay was built with libevent_openssl
 *    (cr_pusher_https_supported()); certificates are verified against the
 *    system's trust store (or ca_file) and the host name.
 *
 * Threads: every function must be called from the thread running the
 * event_base (the loop thread); the stats are read there too (the loop
 * copies them into its publications for /metrics).
 *
 * Ownership: cr_pusher_new returns a new object, free it with
 * cr_pusher_free (before the event_base): requests in flight are dropped.
 * Every string argument is copied. */
#ifndef CR_RELAY_PUSH_H
#define CR_RELAY_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cr/common.h"

struct event_base;

typedef struct cr_pusher cr_pusher;

typedef struct cr_pusher_config {
    int timeout_ms;        /* one request, connect to answer; 0: 15000 */
    int backoff_base_ms;   /* first retry wait d; 0: 1000 */
    int backoff_max_ms;    /* longest back-off; 0: 60000 */
    int retry_after_max_s; /* cap on a host's Retry-After; 0: 600 */
    int min_interval_ms;   /* least time between two requests of a round; 0: 1000, < 0: none */
    const char *ca_file;   /* https: PEM file of trusted CAs instead of the system's; NULL */
} cr_pusher_config;

/* base: the loop's event_base (borrowed, must outlive the pusher); cfg may
 * be NULL (defaults). Returns NULL when out of memory. */
cr_pusher *cr_pusher_new(struct event_base *base, const cr_pusher_config *cfg);
void cr_pusher_free(cr_pusher *p); /* accepts NULL */

/* True when https:// URLs can be used in this build. */
bool cr_pusher_https_supported(void);

/* Checks a push URL: "http://host[:port]/path[?query]" (or https:// when
 * supported). Returns 0, or CR_EINVAL with why (if not NULL) filled. */
int cr_pusher_check_url(const char *url, char *why, size_t why_size);

/* Sets where round `round` (the store's round name, e.g. "1") is pushed.
 * url NULL or "" stops pushing the round. A new url or token cancels the
 * request in flight and sends the newest body to the new place (nothing is
 * known to be there yet). token may be NULL or "" (no Authorization).
 * Returns 0, or CR_EINVAL (bad URL, a token with control characters, a
 * round name over 31 bytes; logged) or CR_ENOMEM. */
int cr_pusher_set_round(cr_pusher *p, const char *round, const char *url, const char *token);

/* Offers the round's current public PGN (len bytes, need not be
 * NUL-terminated). Sent now when nothing is in flight or waiting, else
 * kept as the newest body. Offers for a round without a URL are ignored.
 * Returns 0 or CR_ENOMEM (CR_EINVAL for NULL arguments). */
int cr_pusher_offer(cr_pusher *p, const char *round, const char *pgn, size_t len);

typedef struct cr_pusher_stats {
    uint64_t pushes_ok;   /* requests answered with 2xx */
    uint64_t failures;    /* failed requests, transient or permanent */
    uint64_t retries;     /* requests that were a retry after a transient failure */
    uint64_t unchanged;   /* offers that sent nothing: equal to the newest or the accepted body */
    uint64_t coalesced;   /* bodies replaced by a newer one before they were sent */
    uint64_t bytes_sent;  /* PGN bytes of the requests sent (bodies only) */
    /* Wall time since which the host has not had the newest body (offered,
     * not yet accepted: in flight, waiting, refused), 0 when it has it.
     * For the totals: the oldest of the rounds. */
    int64_t behind_since_us;
    int64_t last_push_us; /* wall time of the last success, 0 if none */
    int last_status;      /* HTTP status of the last answer, 0 if none */
    bool in_flight;       /* a request is running (any round, for the totals) */
    bool waiting;         /* a retry is waiting for its back-off */
    char last_error[256]; /* the last failure ("round 1: HTTP 401: {...}"), "" if none */
    char game_error[200]; /* from the last accepted push: the host's first complaint about a
                           * game ("\"error\":\"Invalid move: Nxe5\"..."), "" if none */
} cr_pusher_stats;

/* Figures of one round, or of every round summed up when round is NULL
 * (last_* then from the most recent one). Returns 0, or CR_EINVAL for an
 * unknown round. */
int cr_pusher_stats_get(const cr_pusher *p, const char *round, cr_pusher_stats *out);

/* Rounds that were given a URL (in that order), and their names (borrowed,
 * valid until the pusher is freed; NULL for i out of range). */
int cr_pusher_round_count(const cr_pusher *p);
const char *cr_pusher_round_name(const cr_pusher *p, int i);

/* Writes the figures of every round with a URL as Prometheus text, one
 * series per round (label round): chessrelay_push_requests_total{result=
 * "ok"|"failed"}, _retries_total, _bytes_total, _unchanged_total,
 * _coalesced_total, _last_success_timestamp_seconds (0: none),
 * _last_status (0: no answer yet), _behind_seconds (how long the host has
 * lacked the newest PGN: the one to alert on) and _retry_waiting. Nothing
 * when no round has a URL. */
void cr_pusher_metrics(const cr_pusher *p, FILE *out);

#endif
