/* chessrelay relay: the DGT LiveChess local API (docs/protocol.md, "DGT
 * LiveChess local API"), so that browser tools made for DGT boards read a
 * venue's boards through the relay. Read-only: `eboards`, `subscribe` to
 * the feed `eboardevent`, `unsubscribe`; any other call is answered with an
 * error.
 *
 * It runs in the server thread (server.c gives it a vhost of its own on the
 * configured address) and serves what the loop published of each board
 * (CR_PUB_EBOARD, core/eboards.h): the board's "eboards" entry and feed
 * param, kept here as the server thread's copy.
 *
 * Per connection: its subscriptions (at most CR_LC_SUBS_MAX) and a bounded
 * queue of frames: each subscription keeps at most CR_LC_SUB_BACKLOG feed
 * messages waiting (a client that falls behind loses the oldest, never the
 * latest state), answers at most CR_LC_ANSWER_BACKLOG (beyond, a client that
 * calls without reading is closed). One frame is written per WRITEABLE.
 *
 * Ownership: cr_livechess_new returns a new object, freed by
 * cr_livechess_free after the lws context that uses its protocol.
 * Threads: the server thread only. */
#ifndef CR_RELAY_LIVECHESS_H
#define CR_RELAY_LIVECHESS_H

#include <libwebsockets.h>
#include <stdbool.h>
#include <stdint.h>

#include "net/view.h"
#include "net/ws_text.h"

#define CR_LC_PATH "/api/v1.0"
enum { CR_LC_SUBS_MAX = 64, CR_LC_SUB_BACKLOG = 8, CR_LC_ANSWER_BACKLOG = 32, CR_LC_FAULTS = 5 };

typedef struct cr_livechess_config {
    size_t max_message; /* bytes a call may have (default 4096) */
    int rate;           /* calls a second per connection, bursts as many (default 20) */
    int connections;    /* connections at most (default 64) */
    int64_t (*now_ms)(void); /* wall clock for the answers' "time" (NULL: the system's) */
} cr_livechess_config;

typedef struct cr_livechess cr_livechess;

typedef struct cr_lc_item cr_lc_item; /* a queued frame */

/* One client; lws allocates it zeroed (the protocol's per-session data). */
typedef struct cr_lc_conn {
    struct lws *wsi; /* NULL in tests: nothing is asked of lws */
    struct cr_lc_conn *prev, *next; /* in the module's list */
    bool open;
    int subs[CR_LC_SUBS_MAX]; /* subscription ids */
    int sub_board[CR_LC_SUBS_MAX]; /* index of the board */
    int nsubs;
    cr_lc_item *qhead, *qtail;
    int answers;               /* answers queued */
    int feeds[CR_LC_SUBS_MAX]; /* feed messages queued per subscription */
    cr_ws_rx rx;
    double tokens;
    int64_t refill_us;
    int faults;
    bool closing; /* too many faults, or answers piled up: closed */
} cr_lc_conn;

cr_livechess *cr_livechess_new(const cr_livechess_config *cfg); /* NULL when out of memory */
void cr_livechess_free(cr_livechess *lc);                         /* accepts NULL */

/* The protocol for the vhost's list (copy it; no subprotocol name is
 * needed: the vhost has only this one). */
struct lws_protocols cr_livechess_protocol(cr_livechess *lc);

/* A new module listening with a vhost of its own on host:port (port 0: any
 * free one) of ctx, which the caller destroys before cr_livechess_free;
 * logs the address. NULL with err filled. */
cr_livechess *cr_livechess_listen(struct lws_context *ctx, const char *host, int port,
                                  const cr_livechess_config *cfg, cr_error *err);

/* A CR_PUB_EBOARD publication: the board's state kept, and queued to its
 * subscribers. */
void cr_livechess_apply(cr_livechess *lc, const cr_pub *p);

/* The connection's life, without lws (the protocol's callback calls them;
 * tests too). open returns false when over the connection cap. */
bool cr_livechess_open(cr_livechess *lc, cr_lc_conn *c, struct lws *wsi);
void cr_livechess_close(cr_livechess *lc, cr_lc_conn *c);
/* One whole message from the client: the answers (and, after a subscribe,
 * the board's state) queued on c. */
void cr_livechess_message(cr_livechess *lc, cr_lc_conn *c, const char *text, size_t len);
/* The next frame to send (a new reference), or NULL. */
cr_buf *cr_livechess_next(cr_lc_conn *c);

int cr_livechess_board_count(const cr_livechess *lc);

#endif
