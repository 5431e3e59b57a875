/* chessrelay relay: the loop thread. A libevent loop that owns the sources
 * (feed files played at a speed; later live boards), one cr_infer per
 * board, the journal, the game store(s) and the public delay line, and
 * publishes every store event to the server thread (cfg->server) through a
 * bounded queue. Arbiters' commands come back through another queue, woken
 * with event_active().
 *
 * Time: a feed event enters at wall time ts (microseconds, the protocol's
 * `ts`). The inference and the journal use the feed clock: milliseconds
 * since the epoch, where a feed file's t = 0 is the start of the first run
 * (kept in the journal), advancing at `speed` times the wall clock. So a
 * restart reads the journal and arrives at the same games, and file sources
 * go on where they were. */
#ifndef CR_RELAY_LOOP_H
#define CR_RELAY_LOOP_H

#include "core/config.h"
#include "net/queue.h"

struct cr_agent_link;
struct cr_server;

/* What the loop hands the server thread when it starts it. */
typedef struct cr_loop_server_args {
    const cr_config *tournament;
    cr_queue *pubs;               /* cr_pub* (core/publish.h) to the server */
    cr_queue *cmds;               /* cr_command_msg* (core/command.h) back to the loop */
    bool arbiter;                 /* arbiter monitoring is on */
    struct cr_agent_link *agents; /* venue agents at /agent, or NULL */
    const char *port_file;        /* the bound port goes there (may be NULL) */
} cr_loop_server_args;

/* The server thread (net/server.h), started by the loop once its queues and
 * links exist, before the rebuild (so that /healthz answers 503 during it),
 * and stopped at its end. The command gives it (cmd/cmd_serve.c) so that
 * core/ includes nothing of the server's (docs/architecture.md, "Threads"). */
typedef struct cr_loop_server {
    /* Returns the started server, or NULL with err filled. */
    struct cr_server *(*start)(const cr_loop_server_args *a, cr_error *err);
    void (*stop)(struct cr_server *s);
} cr_loop_server;

typedef struct cr_loop_config {
    const cr_config *tournament; /* required: listen, tokens, boards, delay, ... */
    const char *const *feeds;    /* feed files played as sources (besides tournament->feeds) */
    int feed_count;
    double speed;                /* feed time per wall time (1 = real time) */
    const char *state_dir;       /* journals; NULL: no journal */
    const char *port_file;       /* if set, the bound port is written there */
    bool exit_at_end;            /* stop once every source is done (tests, tools) */
    const cr_config_token *agent_token;       /* --agent-token: venue agents log in with it (within
                                                 its scope), or with a tournament token of role
                                                 "agent"; NULL: only those */
    const struct cr_nats_out_config *publish; /* NATS JetStream, or NULL */
    const char *const *serials;  /* live boards on these ttys (besides tournament->devices) */
    int serial_count;
    bool usb;                    /* live USB boards (also tournament->usb) */
    int board_kind;              /* cr_board_kind of the serial boards (0: probe each kind) */
    const cr_loop_server *server; /* required: the server thread */
} cr_loop_config;

/* Runs until SIGINT/SIGTERM (or the end, with exit_at_end). Returns the
 * process exit status; errors are logged. Both signals are blocked in the
 * calling thread and every thread it starts, and taken by a thread of its
 * own: a second one exits at once (_exit(1)) if the first one could not. */
int cr_loop_run(const cr_loop_config *cfg);

#endif
