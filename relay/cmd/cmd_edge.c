/* chessrelay edge: a relay without boards, serving viewers from the store
 * events a venue relay publishes to NATS JetStream (out/nats_out.h). The
 * edge itself is relay/edge/edge.h; this file reads the command line.
 *
 *   chessrelay edge --from nats://HOST:PORT[,...] [--tournament T]
 *                   [--listen ADDR:PORT] [--config FILE] [--state DIR]
 *                   [--stream NAME] [--delay MINUTES] [--arbiter-token T]
 *                   [--gap-wait S] [--port-file FILE] [--web-root DIR] [--quiet]
 *
 * Early events wait at most --gap-wait seconds for a missing seq, then the
 * gap is logged and skipped. With --state DIR every message received is
 * appended to the sealed log DIR/edge-<stream>.log first; a restart applies
 * that file again and resumes the stream after its last message. Without
 * --tournament the edge follows the first tournament it sees. An "engine"
 * block in --config is ignored (evaluations come from the venue), but its
 * "pgn" setting is kept. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/config.h"
#include "core/sigwatch.h"
#include "edge/edge.h"
#include "out/nats_out.h"
#include "util/log.h"
#include "util/opts.h"

/*----- the command -----*/

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay edge --from nats://HOST:PORT[,...] [--tournament T]\n"
                    "         [--listen ADDR:PORT] [--config FILE] [--state DIR] [--stream NAME]\n"
                    "         [--delay MINUTES] [--arbiter-token T] [--gap-wait S]\n"
                    "         [--port-file FILE] [--web-root DIR] [--quiet]\n");
    return 2;
}

typedef struct edge_args {
    const char *from, *tournament, *listen, *config, *state, *stream, *token, *port_file, *web_root;
    double delay_min, gap_wait;
} edge_args;

/* Returns 0, or 2 after a usage error. */
static int parse_args(int argc, char **argv, edge_args *a)
{
    memset(a, 0, sizeof *a);
    a->stream = CR_NATS_STREAM;
    a->delay_min = -1;
    a->gap_wait = 10;
    static const struct {
        const char *name;
        size_t field;
    } strs[] = {
        {"--from", offsetof(edge_args, from)},
        {"--tournament", offsetof(edge_args, tournament)},
        {"--listen", offsetof(edge_args, listen)},
        {"--config", offsetof(edge_args, config)},
        {"--state", offsetof(edge_args, state)},
        {"--stream", offsetof(edge_args, stream)},
        {"--arbiter-token", offsetof(edge_args, token)},
        {"--port-file", offsetof(edge_args, port_file)},
        {"--web-root", offsetof(edge_args, web_root)},
    };
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--quiet") == 0) {
            cr_log_set_level(CR_LOG_WARN);
            continue;
        }
        if (!v) {
            fprintf(stderr, "chessrelay edge: %s needs a value\n", o);
            return usage();
        }
        i++;
        size_t k = 0;
        while (k < sizeof strs / sizeof strs[0] && strcmp(o, strs[k].name) != 0) {
            k++;
        }
        if (k < sizeof strs / sizeof strs[0]) {
            *(const char **)((char *)a + strs[k].field) = v;
        } else if (strcmp(o, "--delay") == 0) {
            if (!cr_opt_number("edge", o, v, 0, 24 * 60, "minutes (0..1440)", &a->delay_min)) {
                return 2;
            }
        } else if (strcmp(o, "--gap-wait") == 0) {
            if (!cr_opt_number("edge", o, v, 0, 3600, "seconds (0..3600)", &a->gap_wait)) {
                return 2;
            }
        } else {
            fprintf(stderr, "chessrelay edge: unknown option '%s'\n", o);
            return usage();
        }
    }
    if (!a->from) {
        return usage();
    }
    char tok[CR_NATS_TOKEN_MAX];
    if (a->tournament) {
        cr_nats_token(a->tournament, tok);
        if (strcmp(tok, a->tournament) != 0) {
            fprintf(stderr,
                    "chessrelay edge: --tournament: a subject token (letters, digits, _ -), "
                    "got '%s' (as published: '%s')\n",
                    a->tournament, tok);
            return 2;
        }
    }
    cr_nats_token(a->stream, tok);
    if (strcmp(tok, a->stream) != 0) {
        fprintf(stderr, "chessrelay edge: --stream: letters, digits, _ and - only, got '%s'\n",
                a->stream);
        return 2;
    }
    return 0;
}

/* The tournament file (or none) with the command line over it into *out.
 * Returns 0, 1 or 2 (usage). */
static int load_config(cr_config **out, const edge_args *a)
{
    cr_error err;
    cr_config *c = *out = a->config ? cr_config_load(a->config, &err) : cr_config_new();
    if (!c) {
        fprintf(stderr, "chessrelay edge: %s\n", a->config ? err.text : "out of memory");
        return 1;
    }
    if (a->listen &&
        cr_parse_listen(a->listen, c->listen_host, sizeof c->listen_host, &c->listen_port)) {
        fprintf(stderr, "chessrelay edge: --listen: expected ADDR:PORT, got '%s'\n", a->listen);
        return 2;
    }
    if (a->delay_min >= 0) {
        c->delay_s = (int)(a->delay_min * 60 + 0.5);
    }
    if (a->web_root) {
        free(c->web_root);
        c->web_root = strdup(a->web_root);
    }
    if (c->engine.path) {
        cr_log(CR_LOG_INFO, "edge: the \"engine\" of %s is not used: evaluations come from the "
                            "venue relay",
               a->config);
    }
    int rc = a->token ? cr_config_add_token(c, "command line", "arbiter", a->token) : 0;
    if (rc) {
        fprintf(stderr, "chessrelay edge: --arbiter-token: %s\n",
                rc == CR_EINVAL    ? cr_config_token_problem(a->token)
                : rc == CR_ECONFIG ? "the tournament file has this token already (one role a token)"
                                   : "out of memory");
        return rc == CR_ENOMEM ? 1 : 2;
    }
    return 0;
}

int cr_cmd_edge(int argc, char **argv)
{
    edge_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) {
        return rc;
    }
    cr_config *cfg = NULL;
    rc = load_config(&cfg, &a);
    if (rc) {
        cr_config_free(cfg);
        return rc;
    }
    cr_edge_config ec = {.from = a.from,
                         .stream = a.stream,
                         .tournament = a.tournament,
                         .state_dir = a.state,
                         .port_file = a.port_file,
                         .gap_wait_us = (int64_t)(a.gap_wait * 1e6),
                         .config = cfg};
    cr_edge *e = cr_edge_new(&ec);
    /* Before any thread is made; it also turns on libevent's locking before
     * the base exists (the queues wake it from other threads). */
    cr_sigwatch *sw = cr_sigwatch_new(false);
    int status = 1;
    if (!e) {
        cr_log(CR_LOG_ERROR, "out of memory");
    } else {
        status = cr_edge_run(e, sw);
    }
    cr_edge_free(e);
    cr_config_free(cfg);
    cr_sigwatch_free(sw); /* the other threads are stopped */
    return status;
}
