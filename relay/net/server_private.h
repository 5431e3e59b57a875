/* chessrelay relay: the server's parts (server.c: the lws callback and the
 * thread; server_ws.c: viewers on /ws, their ops and the broadcast;
 * server_http.c: HTTP, live PGN, /metrics). Private to those three files:
 * everything here runs in the lws service thread. */
#ifndef CR_RELAY_SERVER_PRIVATE_H
#define CR_RELAY_SERVER_PRIVATE_H

#include <libwebsockets.h>
#include <pthread.h>
#include <stdatomic.h>

#include "net/arbiter_view.h"
#include "net/server.h"
#include "net/limits.h"
#include "net/view.h"
#include "net/ws_text.h"

_Static_assert(LWS_PRE <= CR_BUF_PRE, "cr_buf headroom must hold the WebSocket frame header");

enum { LANE_LIVE = 0, LANE_PUBLIC = 1, LANE_NB = 2 };
enum { MAX_FAULTS = 5, WALK_MAX = 4096, HTTP_CHUNK = 16384, WRITE_BATCH = 8, BATCH_BYTES = 65536 };
enum { EVAL_QUEUE_MAX = 256 }; /* evals queued for a viewer at most (server_ws.c) */

/* Delivery latency buckets (seconds) for /metrics (server_ws.c). */
#define LATENCY_NB 12
extern const double cr_srv_latency_bounds[LATENCY_NB];

typedef struct sub {
    int game;
    int64_t seen; /* last seq sent (or covered by a snapshot) */
} sub;

typedef struct rsub {
    char round[CR_ROUND_MAX];
    int64_t from; /* games of the round whose events are newer join; with
                     summary: the last event whose summary was sent */
    bool summary; /* summaries of its games, not their events (docs/protocol.md) */
} rsub;

typedef struct outq {
    struct outq *next;
    cr_buf *b;
} outq;

enum { PSS_NONE = 0, PSS_HTTP, PSS_WS };

/* Per connection (HTTP request or WebSocket viewer); lws allocates it zeroed.
 * What viewer_writeable reads for every message comes first, within 64
 * bytes: with 10,000 viewers each WRITEABLE starts from a cold cache. */
typedef struct pss {
    int kind;
    int lane;
    int nsubs, nrsubs;
    int64_t tail;
    sub *subs; /* sorted by game */
    outq *qhead;
    struct lws *wsi;
    bool closing; /* too many faults: close once the replies are out */
    /* HTTP */
    cr_buf *body;
    size_t off;
    /* WebSocket */
    int slot;                        /* its entry in cr_server.slots */
    struct pss *arb_prev, *arb_next; /* in cr_server.arbiters while arbiter_sub */
    bool trusted;
    bool arbiter, arbiter_sub; /* an arbiter's token; on the arbiter channel */
    size_t capsubs;
    rsub *rsubs;
    outq *qtail;
    int qlen;
    cr_ws_rx rx;
    double tokens;
    int64_t refill_us;
    int faults;
    bool greeted; /* said hello, listed or subscribed: not idle */
    char who[64]; /* an arbiter's token's name, for the journal and the log */
} pss;

/* What drain_pubs needs to wake a viewer, packed in one array: after each
 * batch of events it walks every viewer, and 10,000 of these fit in the
 * cache where 10,000 scattered pss do not. Kept in step by slot_sync. */
typedef struct vslot {
    struct lws *wsi;
    pss *p;
    int lane;
    bool subscribed; /* has a game or round: new events concern it */
} vslot;

struct cr_server {
    cr_server_config cfg;
    char *web_root; /* realpath, or NULL: built-in page */
    struct lws_context *ctx;
    struct lws_protocols protocols[3]; /* viewers, venue agents (if any), end */
    lws_callback_function *agent_callback; /* the agent link's, wrapped for the limits */
    cr_limits *limits;
    int64_t last_sweep_us;
    /* accept() out of descriptors: the listening wsi (known from the first
     * connection's FILTER_NETWORK_CONNECTION) is taken out of the poll set
     * until accept_sul fires. */
    struct lws *listen_wsi;
    lws_sorted_usec_list_t accept_sul;
    bool accept_paused;
    int accept_errno; /* the last accept() failure lws logged (EMFILE, ENFILE), 0: none */
    cr_queue *pubs, *cmds;
    pthread_t thread;
    atomic_bool stop;
    atomic_bool pubs_waiting; /* set by the loop's wake, cleared by drain_pubs' callers */
    int port;
    cr_view *views[LANE_NB];
    vslot *slots; /* WebSocket viewers, nviewers of them */
    size_t capslots;
    pss *arbiters;            /* viewers on the arbiter channel */
    cr_arbiter_view *arbiter; /* what it and /arbiter/ serve; NULL: no monitoring */
    struct cr_livechess *livechess; /* the DGT LiveChess API's vhost, NULL: off */
    /* figures (service thread only) */
    int nviewers, ntrusted;
    bool ready;
    char problem[200]; /* from the loop: why it is not sound, or "" */
    int boards_online, boards_known;
    int64_t journal_syncs;
    cr_buf *boards_metrics; /* the loop's last health text of the live boards */
    cr_buf *boards_json;    /* and as JSON */
    cr_buf *pairings_json;  /* the pairings file (core/pairings_json.h), NULL: none */
    cr_buf *results_trf;    /* the round's results TRF (core/round_results.h), NULL: none */
    cr_buf *loop_metrics;   /* the loop's pushes and pairings figures */
    uint64_t events_total, messages_sent, messages_in, refused_token, refused_message, refused_rate,
        resnapshots, http_requests, commands;
    uint64_t latency_buckets[LATENCY_NB + 1];
    double latency_sum;
    uint64_t latency_count;
    int64_t rate_window_start;
    uint64_t rate_window_events;
    double events_per_s;
    unsigned char *wbuf; /* viewer_writeable's frames (service thread only) */
    size_t wcap;
    struct lws **flush; /* HTTP/2 connections to ask to write after this turn */
    size_t nflush, capflush;
};

/* The Authorization header of a request. */
typedef enum {
    CR_AUTH_NONE,      /* no header */
    CR_AUTH_TOKEN,     /* "Bearer <token>": the token in buf */
    CR_AUTH_BAD,       /* another scheme, or an empty token: 401 */
    CR_AUTH_TOO_LARGE  /* longer than any token can be: 431 */
} cr_srv_auth;

/* Shared by the three files. */
cr_srv_auth cr_srv_bearer_token(struct lws *wsi, char *buf, size_t size);
/* A token from a client: its role (cr_config_check_token) or NULL, and
 * (name, may be NULL) the token's name or else its role. A wrong
 * one is counted (refused_token, the limits' throttle); while its address is
 * throttled nothing is checked and *throttled is set. */
const char *cr_srv_check_token(cr_server *s, struct lws *wsi, const char *token, bool *throttled,
                               const char **name);

/* Whether a token's role (cr_config_check_token) opens the arbiters' side:
 * arbiter ops and the undelayed lane (docs/protocol.md, "Roles"). */
bool cr_srv_role_arbiter(const char *role);
void cr_srv_drain_pubs(cr_server *s);
void cr_srv_free_viewer(pss *p);
/* The client's address for logs: the one a trusted proxy names, or the peer. */
void cr_srv_peer_name(cr_server *s, struct lws *wsi, char *buf, size_t size);
/* A request or WebSocket handshake: the limits learn its client from
 * X-Forwarded-For (cr_limits_request). */
void cr_srv_request(cr_server *s, struct lws *wsi);
/* After a write on an HTTP/2 stream: if its connection holds unsent bytes,
 * the connection is asked to write after this service turn (server.c). */
void cr_srv_flush_later(cr_server *s, struct lws *wsi);
void cr_srv_send_error(pss *p, const char *error, const char *where);
bool cr_srv_slot_add(cr_server *s, pss *p);
void cr_srv_slot_remove(cr_server *s, pss *p);
int cr_srv_viewer_receive(cr_server *s, pss *p, const char *in, size_t len);
/* One whole client message (JSON, an op of docs/protocol.md) handled: the
 * answers queued on p, commands sent to s->cmds. p->wsi may be NULL (the
 * fuzz target fuzz/fuzz_ws_msg.c drives it without a socket). */
void cr_srv_viewer_message(cr_server *s, pss *p, const char *text, size_t len);
int cr_srv_viewer_writeable(cr_server *s, pss *p);
int cr_srv_http_request(cr_server *s, struct lws *wsi, pss *p, const char *uri);
int cr_srv_http_writeable(cr_server *s, struct lws *wsi, pss *p);
/* The response is out: the transaction ends (-1: close). */
int cr_srv_http_done(cr_server *s, struct lws *wsi);

#endif
