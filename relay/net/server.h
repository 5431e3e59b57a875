/* chessrelay relay: the HTTP and WebSocket server (libwebsockets), running
 * in its own service thread (Debian's lws has no libevent support, so it
 * cannot share the loop thread).
 *
 * It receives publications (core/publish.h) from the loop through one
 * bounded queue (woken with lws_cancel_service) and sends trusted clients'
 * and arbiters' commands (core/command.h) to the loop through another (woken
 * by the queue's wake callback, which the loop sets to event_active).
 * Everything else it needs it keeps itself, made of the publications: one
 * cr_view per lane, the arbiter view (arbiter_view.h), its clients. Viewers
 * are read-only; a trusted client (token via `hello` or `Authorization:
 * Bearer`) sees the live lane. The agents' protocol (agent_link.h) runs here
 * too.
 *
 * Endpoints and messages: docs/protocol.md. */
#ifndef CR_RELAY_SERVER_H
#define CR_RELAY_SERVER_H

#include "core/command.h"
#include "core/config.h"
#include "net/queue.h"
#include "core/store.h"

typedef struct cr_server_config {
    const char *host;      /* listen address, e.g. "127.0.0.1" */
    int port;              /* 0: any free port (see cr_server_port) */
    const char *web_root;  /* folder of the web build, or NULL: search the defaults */
    const char *tls_cert, *tls_key; /* both or neither */
    const cr_config *tournament;     /* tokens, origins; borrowed, read-only, outlives the server */
    int delay_s;           /* public delay, told to viewers in snapshots */
    size_t ring;           /* events held per lane for `since` (default 8192) */
    size_t backlog;        /* events a viewer may lag before a fresh snapshot (default 1024) */
    size_t max_message;    /* bytes, default 4096 */
    int rate;              /* messages a second per connection, default 20 */
    struct cr_agent_link *agents; /* venue agents at /agent, or NULL */
    bool arbiter;                 /* arbiter monitoring: published by the loop */
    const char *livechess_host;   /* the DGT LiveChess API (net/livechess.h) there, NULL: off */
    int livechess_port;
} cr_server_config;

typedef struct cr_server cr_server;

/* Binds and starts the service thread. pubs: cr_pub* from the loop (the
 * server sets its wake callback and frees what it pops); cmds: where
 * cr_command_msg* go. Returns NULL with err filled (e.g. port in use). */
cr_server *cr_server_start(const cr_server_config *cfg, cr_queue *pubs, cr_queue *cmds,
                           cr_error *err);

/* The port actually bound. */
int cr_server_port(const cr_server *s);

/* The listen address, web root, TLS files, tokens and delay of a
 * tournament file (the rest zero: defaults). */
void cr_server_config_from(cr_server_config *scfg, const cr_config *t);

/* Logs "<who>listening on ..." and writes the bound port to port_file (if
 * not NULL), as tests and tools read it. */
void cr_server_announce(const cr_server *s, const char *who, const char *port_file);

/* Stops the thread, closes every connection and frees the server. */
void cr_server_stop(cr_server *s);

/* Where the web app is looked for when cfg->web_root is NULL: $CR_WEB_ROOT,
 * else share/chessrelay/web beside the binary (datadir.h). Returns a new
 * string or NULL if none exists. */
char *cr_server_find_web_root(void);

#endif
