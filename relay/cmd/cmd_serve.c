/* chessrelay serve / replay --serve: the relay daemon's command lines.
 *
 *   chessrelay serve [--config FILE] [--listen ADDR:PORT] [--state DIR] [--speed X]
 *                    [--agent-token T[:agents=ID,..][:boards=ID,..]]
 *                                        (venue agents at /agent: agent_link.h)
 *                    [--serial DEV]... [--usb]      live boards (source_boards.h)
 *                    [--kind auto|dgt|millennium|certabo]  the serial boards' kind (default: probe)
 *                    [--pairings FILE [--round N]]  pairings file, watched (pairings_link.h)
 *   chessrelay replay FEED... --serve [--listen ADDR:PORT] [--speed X]
 *                     [--delay MINUTES] [--arbiter-token T] [--state DIR]
 *
 * Both take --livechess [ADDR:PORT]: the DGT LiveChess local API
 * (net/livechess.h) on that address, 127.0.0.1:1982 without one.
 *
 * Both take --engine PATH: a UCI engine (a name is looked up in $PATH and
 * /usr/games) evaluating every public position (engine/evals.h), over the
 * tournament file's "engine" path (its other settings kept).
 *
 * Both take --signing-key FILE (`chessrelay journal keygen FILE`): signed
 * checkpoints of the state folder's journal and incidents.log
 * (util/sign.h), checkable with the public key alone.
 *
 * Both end in cr_loop_run (loop.h). Common options: --port-file FILE (the
 * bound port is written there; use --listen 127.0.0.1:0 for any free port),
 * --web-root DIR, --exit-at-end, --quiet, --verbose (every store event). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "board_kind.h"
#include "core/config.h"
#include "cr/pairings.h"
#include "util/log.h"
#include "core/loop.h"
#include "net/server.h"
#include "out/nats_out.h"
#include "util/opts.h"
#include "util/seal_head.h"
#include "util/seal_key.h"
#include "util/sign.h"

typedef struct serve_args {
    const char *config_path, *listen, *state_dir, *port_file, *web_root, *token;
    const char *signing_key; /* --signing-key: Ed25519 checkpoints (util/sign.h) */
    bool livechess;              /* --livechess [ADDR:PORT] */
    char livechess_host[128];
    int livechess_port;
    cr_config_token agent_token; /* --agent-token: venue agents (with its scope) */
    bool has_agent_token;
    const char *pairings;    /* --pairings: over the tournament file's "pairings" */
    const char *engine;      /* --engine: over the tournament file's engine path */
    int round;               /* --round: the round played of the pairings, 0: not given */
    double speed;
    int delay_s; /* -1: not given */
    bool exit_at_end, serve;
    const char **feeds;
    int feed_count;
    const char **serials; /* the second half of the feeds allocation */
    int serial_count;
    bool usb;
    int board_kind; /* --kind: cr_board_kind of the serial boards */
    cr_nats_out_config publish; /* --publish and its options */
} serve_args;

/* Returns 0, or 2 after printing a usage error. `who` names the command. */
static int parse_args(const char *who, int argc, char **argv, bool feeds_allowed, serve_args *a)
{
    memset(a, 0, sizeof *a);
    a->speed = 1.0;
    a->delay_s = -1;
    a->feeds = calloc(2 * ((size_t)argc + 1), sizeof *a->feeds);
    if (!a->feeds) {
        return 1;
    }
    a->serials = a->feeds + argc + 1;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        if (strcmp(o, "--serve") == 0) {
            a->serve = true;
            continue;
        }
        if (strcmp(o, "--exit-at-end") == 0) {
            a->exit_at_end = true;
            continue;
        }
        if (strcmp(o, "--usb") == 0) {
            a->usb = true;
            continue;
        }
        if (strcmp(o, "--livechess") == 0) { /* its address is optional */
            a->livechess = true;
            snprintf(a->livechess_host, sizeof a->livechess_host, "127.0.0.1");
            a->livechess_port = CR_LIVECHESS_PORT;
            if (v && v[0] != '-' && strpbrk(v, ":") &&
                cr_parse_listen(v, a->livechess_host, sizeof a->livechess_host,
                                &a->livechess_port) == 0) {
                i++;
            } else if (v && v[0] != '-' && strpbrk(v, ":")) {
                fprintf(stderr, "chessrelay %s: --livechess: expected ADDR:PORT, got '%s'\n", who, v);
                return 2;
            }
            continue;
        }
        if (strcmp(o, "--quiet") == 0) {
            cr_log_set_level(CR_LOG_WARN);
            continue;
        }
        if (strcmp(o, "--verbose") == 0) {
            cr_log_set_level(CR_LOG_DEBUG);
            continue;
        }
        if (o[0] != '-' || strcmp(o, "-") == 0) {
            if (!feeds_allowed) {
                fprintf(stderr, "chessrelay %s: unexpected argument '%s'\n", who, o);
                return 2;
            }
            a->feeds[a->feed_count++] = o;
            continue;
        }
        if (!v) {
            fprintf(stderr, "chessrelay %s: %s needs a value\n", who, o);
            return 2;
        }
        i++;
        int nats_opt = cr_nats_out_option(&a->publish, who, o, v);
        if (nats_opt) {
            if (nats_opt < 0) {
                return 2;
            }
            continue;
        }
        if (strcmp(o, "--config") == 0) {
            a->config_path = v;
        } else if (strcmp(o, "--serial") == 0) {
            a->serials[a->serial_count++] = v;
        } else if (strcmp(o, "--kind") == 0) {
            cr_board_kind k;
            if (cr_board_kind_parse(v, &k) != 0) {
                fprintf(stderr, "chessrelay %s: --kind: auto, dgt, millennium or certabo\n", who);
                return 2;
            }
            a->board_kind = (int)k;
        } else if (strcmp(o, "--listen") == 0) {
            a->listen = v;
        } else if (strcmp(o, "--state") == 0) {
            a->state_dir = v;
        } else if (strcmp(o, "--signing-key") == 0) {
            a->signing_key = v;
        } else if (strcmp(o, "--port-file") == 0) {
            a->port_file = v;
        } else if (strcmp(o, "--web-root") == 0) {
            a->web_root = v;
        } else if (strcmp(o, "--arbiter-token") == 0) {
            a->token = v;
        } else if (strcmp(o, "--agent-token") == 0) {
            char why[160];
            if (cr_config_parse_agent_token(v, &a->agent_token, why, sizeof why)) {
                fprintf(stderr, "chessrelay %s: --agent-token: %s\n", who, why);
                return 2;
            }
            a->has_agent_token = true;
        } else if (strcmp(o, "--engine") == 0) {
            if (!v[0]) {
                fprintf(stderr, "chessrelay %s: --engine: expected an engine's path or name\n",
                        who);
                return 2;
            }
            a->engine = v;
        } else if (strcmp(o, "--pairings") == 0 && v[0]) {
            a->pairings = v;
        } else if (strcmp(o, "--round") == 0) {
            long long n;
            if (!cr_opt_int(who, o, v, 1, 10000, "a round number", &n)) {
                return 2;
            }
            a->round = (int)n;
        } else if (strcmp(o, "--speed") == 0) {
            if (!cr_opt_number(who, o, v, 0.001, 1e6, "a number > 0", &d)) {
                return 2;
            }
            a->speed = d;
        } else if (strcmp(o, "--delay") == 0) {
            if (!cr_opt_number(who, o, v, 0, 24 * 60, "minutes (0..1440)", &d)) {
                return 2;
            }
            a->delay_s = (int)(d * 60 + 0.5);
        } else {
            fprintf(stderr, "chessrelay %s: unknown option '%s'\n", who, o);
            return 2;
        }
    }
    return 0;
}

/* The tournament file given with --config (without one: the defaults,
 * games named by the boards). NULL, said on stderr and a's feeds freed,
 * when it cannot be read. */
static cr_config *load_config(const char *who, serve_args *a)
{
    cr_error err;
    cr_config *cfg = a->config_path ? cr_config_load(a->config_path, &err) : cr_config_new();
    if (!cfg) {
        fprintf(stderr, "chessrelay %s: %s\n", who, a->config_path ? err.text : "out of memory");
        free(a->feeds);
        a->feeds = NULL;
    }
    return cfg;
}

/* The loop's server thread (core/loop.h): the tournament's listen address,
 * web root, TLS and tokens, on the loop's queues; its port announced. */
static struct cr_server *start_server(const cr_loop_server_args *la, cr_error *err)
{
    cr_server_config scfg;
    cr_server_config_from(&scfg, la->tournament);
    scfg.arbiter = la->arbiter;
    scfg.agents = la->agents;
    cr_server *s = cr_server_start(&scfg, la->pubs, la->cmds, err);
    if (s) {
        cr_server_announce(s, "", la->port_file);
    }
    return s;
}

/* Applies the command line over the config and runs the loop. */
/* The seals' key (util/seal_key.h) of the state folder, made on the first
 * start: the journals and incidents.log are then sealed with it. */
static int seal_key(const char *who, const char *state_dir, const char *signing_key)
{
    bool created;
    cr_error err;
    if (signing_key && !state_dir) {
        fprintf(stderr, "chessrelay %s: --signing-key needs a state folder (--state)\n", who);
        return 1;
    }
    cr_sign_key key;
    if (signing_key && cr_sign_key_load(signing_key, &key, &err)) {
        fprintf(stderr, "chessrelay %s: --signing-key: %s\n", who, err.text);
        return 1;
    }
    if (state_dir && cr_seal_key_setup(state_dir, true, &created, &err)) {
        fprintf(stderr, "chessrelay %s: %s\n", who, err.text);
        return 1;
    }
    if (state_dir && cr_seal_head_start(state_dir)) {
        fprintf(stderr, "chessrelay %s: cannot start the head of the seals\n", who);
        return 1;
    }
    if (state_dir && created) {
        cr_log(CR_LOG_INFO, "%s/%s: a new key for the seals (keep it: it checks them)", state_dir,
               CR_SEAL_KEY_FILE);
    }
    if (signing_key && cr_signer_start(state_dir, &key)) {
        fprintf(stderr, "chessrelay %s: cannot start the signatures\n", who);
        return 1;
    }
    if (state_dir && !signing_key) {
        cr_log(CR_LOG_INFO, "%s: sealed with the folder's key (tamper-evident to whoever holds "
               "seal.key), not signed: no --signing-key", state_dir);
    }
    return 0;
}

static int run(const char *who, serve_args *a, cr_config *cfg, const char *state_dir)
{
    if (seal_key(who, state_dir, a->signing_key)) {
        return 1;
    }
    if (a->listen && cr_parse_listen(a->listen, cfg->listen_host, sizeof cfg->listen_host,
                                     &cfg->listen_port)) {
        fprintf(stderr, "chessrelay %s: --listen: expected ADDR:PORT, got '%s'\n", who, a->listen);
        return 2;
    }
    if (a->delay_s >= 0) {
        cfg->delay_s = a->delay_s;
    }
    if (a->livechess) {
        cfg->livechess = true;
        memcpy(cfg->livechess_host, a->livechess_host, sizeof cfg->livechess_host);
        cfg->livechess_port = a->livechess_port;
    }
    if (a->web_root) {
        free(cfg->web_root);
        cfg->web_root = strdup(a->web_root);
    }
    if (a->pairings) {
        free(cfg->pairings);
        cfg->pairings = strdup(a->pairings);
        cfg->pairings_format = CR_PAIRINGS_AUTO;
        cfg->pairings_round = 0;
        if (!cfg->pairings) {
            return 1;
        }
    }
    if (a->engine) {
        free(cfg->engine.path);
        cfg->engine.path = strdup(a->engine);
        if (!cfg->engine.path) {
            return 1;
        }
    }
    if (a->round) {
        if (!cfg->pairings) {
            fprintf(stderr,
                    "chessrelay %s: --round is the round of the pairings: give --pairings FILE "
                    "(or \"pairings\" in the tournament file)\n",
                    who);
            return 2;
        }
        cfg->pairings_round = a->round;
    }
    int rc = a->token ? cr_config_add_token(cfg, "command line", "arbiter", a->token) : 0;
    if (rc) {
        fprintf(stderr, "chessrelay %s: --arbiter-token: %s\n", who,
                rc == CR_EINVAL    ? cr_config_token_problem(a->token)
                : rc == CR_ECONFIG ? "the tournament file has this token already (one role a token)"
                                   : "out of memory");
        return rc == CR_ENOMEM ? 1 : 2;
    }
    /* In the tournament's tokens too, so that it works (scope and all)
     * wherever the file's agent tokens do: /agent, /ws, HTTP. */
    rc = a->has_agent_token ? cr_config_add_token_entry(cfg, &a->agent_token) : 0;
    if (rc) {
        fprintf(stderr, "chessrelay %s: --agent-token: %s\n", who,
                rc == CR_ECONFIG ? "the same token as the arbiter's or one of the tournament file "
                                   "(one role a token)"
                                 : "out of memory");
        return rc == CR_ENOMEM ? 1 : 2;
    }
    static const cr_loop_server server = {start_server, cr_server_stop};
    cr_loop_config lc;
    memset(&lc, 0, sizeof lc);
    lc.tournament = cfg;
    lc.feeds = a->feeds;
    lc.feed_count = a->feed_count;
    lc.speed = a->speed;
    lc.state_dir = state_dir;
    lc.port_file = a->port_file;
    lc.exit_at_end = a->exit_at_end;
    lc.agent_token = a->has_agent_token ? &a->agent_token : NULL;
    lc.publish = &a->publish;
    lc.serials = a->serials;
    lc.serial_count = a->serial_count;
    lc.usb = a->usb;
    lc.board_kind = a->board_kind;
    lc.server = &server;
    rc = cr_loop_run(&lc);
    cr_seal_head_stop(); /* the head as the files end (a clean stop) */
    cr_signer_stop();    /* and their last signed checkpoint */
    return rc;
}

int cr_cmd_serve(int argc, char **argv)
{
    serve_args a;
    int rc = parse_args("serve", argc, argv, false, &a);
    if (rc) {
        free(a.feeds);
        return rc;
    }
    cr_config *cfg = load_config("serve", &a);
    if (!cfg) {
        return 1;
    }
    char *state = NULL;
    if (a.state_dir) {
        state = strdup(a.state_dir);
    } else if (cfg->state_dir) {
        state = strdup(cfg->state_dir);
    } else if (a.config_path) {
        /* next to the tournament file */
        size_t n = strlen(a.config_path) + 16;
        state = malloc(n);
        if (state) {
            const char *slash = strrchr(a.config_path, '/');
            snprintf(state, n, "%.*s%sstate", slash ? (int)(slash - a.config_path) : 0, a.config_path,
                     slash ? "/" : "");
        }
    }
    if (!state) {
        cr_log(CR_LOG_WARN, "no --state DIR: nothing is journalled, a restart starts empty");
    }
    rc = run("serve", &a, cfg, state);
    free(state);
    cr_config_free(cfg);
    free(a.feeds);
    return rc;
}

int cr_relay_wants_serve(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--serve") == 0) {
            return true;
        }
    }
    return false;
}

int cr_relay_replay_serve(int argc, char **argv)
{
    serve_args a;
    int rc = parse_args("replay", argc, argv, true, &a);
    if (rc || a.feed_count == 0) {
        if (!rc) {
            fprintf(stderr,
                    "usage: chessrelay replay FEED... --serve [--config FILE] [--listen ADDR:PORT] [--speed X]\n"
                    "                         [--delay MINUTES] [--arbiter-token T] [--state DIR]\n"
                    "                         [--engine PATH] [--livechess [ADDR:PORT]]\n");
        }
        free(a.feeds);
        return rc ? rc : 2;
    }
    /* A tournament file names the event, limits, engine...; the feeds to
     * replay are the command line's. */
    cr_config *cfg = load_config("replay", &a);
    if (!cfg) {
        return 1;
    }
    rc = run("replay", &a, cfg, a.state_dir);
    cr_config_free(cfg);
    free(a.feeds);
    return rc;
}

int cr_relay_demo(int argc, char **argv, const char *feed)
{
    serve_args a;
    int rc = parse_args("demo", argc, argv, false, &a);
    if (rc) {
        free(a.feeds);
        return rc;
    }
    a.feeds[0] = feed;
    a.feed_count = 1;
    cr_config *cfg = cr_config_new();
    if (cfg) {
        snprintf(cfg->event, sizeof cfg->event, "chessrelay demo: famous games");
        snprintf(cfg->site, sizeof cfg->site, "chessrelay");
    }
    rc = cfg ? run("demo", &a, cfg, a.state_dir) : 1;
    cr_config_free(cfg);
    free(a.feeds);
    return rc;
}
