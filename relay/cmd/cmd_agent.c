/* chessrelay agent: runs next to the boards and forwards their feed events
 * to a central relay over one WebSocket (docs/protocol.md, "Agents").
 *
 *   chessrelay agent --to ws://HOST:PORT/agent --token T [--id ID]
 *                    [--usb | --serial DEV... | --feed FILE... [--speed X]]
 *                    [--kind auto|dgt|millennium|certabo] [--calibration FILE]
 *                    [--state DIR] [--insecure] [--exit-at-end] [--quiet]
 *
 * Serial ports are probed for the kind of board on them unless --kind names
 * it, as with `record` and `serve`; a Certabo board's table is read from
 * STATE/certabo/ID.cal (`chessrelay calibrate --state STATE`), else from
 * --calibration FILE (docs/boards.md).
 *
 * Two threads: the main one runs a libevent loop with the sources (boards
 * through the drivers, or feed files played on the agent's feed clock) and
 * hands every event to the agent client (agent/agent_client.h), which
 * journals it; the client's link thread sends it to the relay. */
#include <event2/event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent_client.h"
#include "agent/agent_msg.h"
#include "cmd/commands.h"
#include "cr/feed.h"
#include "certabo.h"
#include "board_set.h"
#include "core/feed_source.h"
#include "util/feed_line.h"
#include "util/log.h"
#include "util/opts.h"
#include "util/seal_head.h"
#include "util/seal_key.h"
#include "core/sigwatch.h"

#define AGENT_MAX_LINKS 64
#define AGENT_MAX_FEEDS 64

typedef struct agent {
    char id[CR_AGENT_ID_MAX + 1];
    const char *token;
    bool insecure, exit_at_end;
    cr_feed_clock clock; /* the journal's epoch, advancing at --speed */
    cr_agent_client *client;
    struct event_base *base;
    cr_feed_source *feeds; /* NULL without --feed */
    int64_t skip; /* feed events already journaled by an earlier run */
    cr_board_set *boards;
    cr_certabo_params_dir cal; /* Certabo tables: the state folder, --calibration */
    char state_dir[512];
    char *line;
    size_t line_cap;
    struct event *check; /* watermark, and the end of the link thread */
    int status;
} agent;

static int64_t agent_clock(void *data)
{
    agent *a = data;
    return cr_feed_clock_now(&a->clock);
}

static void fatal(agent *a, int status)
{
    a->status = status;
    event_base_loopexit(a->base, NULL);
}

static void on_board_event(void *data, const cr_feed_event *ev)
{
    agent *a = data;
    int len = cr_feed_line(ev, &a->line, &a->line_cap);
    if (len == CR_ENOMEM) {
        cr_log(CR_LOG_ERROR, "agent: out of memory");
        fatal(a, 1);
        return;
    }
    if (len < 0) {
        cr_log(CR_LOG_WARN, "agent: board %s: cannot format an event: %s", ev->board,
               cr_strerror(len));
        return;
    }
    int rc = cr_agent_client_record(a->client, a->line, (size_t)len);
    if (rc) {
        cr_log(CR_LOG_ERROR, "agent: journal: cannot append: %s", cr_strerror(rc));
        fatal(a, 1);
    }
}

static void on_link_state(void *data, cr_board_link *link, cr_board_link_state st)
{
    cr_dgt_health h = cr_board_link_health(link);
    const char *err = cr_board_link_error(link);
    bool active = st == CR_LINK_ACTIVE && h.identified;
    cr_log(CR_LOG_INFO, "agent: %s: board %s %s%s%s%s%s", cr_board_link_name(link), h.id,
           cr_board_link_state_name(st), st == CR_LINK_LOST && *err ? ": " : "",
           st == CR_LINK_LOST ? err : "", active ? " " : "",
           active ? cr_board_kind_name(h.kind) : "");
}

/* Every event stamped up to the returned time has been journaled (events
 * are stamped and recorded in this thread, in order; feed files on the
 * agent's feed clock). */
static void update_watermark(agent *a)
{
    int64_t wm = agent_clock(a);
    if (a->feeds) {
        if (a->skip > 0) {
            return; /* the earlier run's events are not skipped yet */
        }
        int64_t next = cr_feed_source_next_t(a->feeds);
        if (next != INT64_MAX && next - 1 < wm) {
            wm = next - 1; /* that event is due but not recorded yet */
        }
    }
    cr_agent_client_watermark(a->client, wm);
}

static void feeds_done(void *data)
{
    agent *a = data;
    update_watermark(a);
    cr_log(CR_LOG_INFO, "agent: feeds played to the end");
    cr_agent_client_sources_done(a->client);
}

static bool feed_skip(void *data, const cr_feed_event *ev)
{
    agent *a = data;
    (void)ev;
    if (a->skip > 0) {
        a->skip--; /* journaled by an earlier run of this agent */
        return true;
    }
    return false;
}

/* The signal watcher: the link thread says bye and ends. */
static void on_signal(void *data)
{
    agent *a = data;
    cr_agent_client_stop(a->client);
}

static void on_check(evutil_socket_t fd, short what, void *arg)
{
    agent *a = arg;
    update_watermark(a);
    if (cr_agent_client_finished(a->client)) {
        event_base_loopexit(a->base, NULL);
    }
}

static int usage(void)
{
    fprintf(stderr,
            "usage: chessrelay agent --to ws://HOST:PORT/agent --token T [--id ID]\n"
            "       [--usb | --serial DEV... | --feed FILE... [--speed X]] [--state DIR]\n"
            "       [--kind auto|dgt|millennium|certabo] [--calibration FILE]\n"
            "       [--insecure] [--exit-at-end] [--quiet]\n"
            "  --token may also come from $CHESSRELAY_AGENT_TOKEN\n");
    return 2;
}

typedef struct agent_args {
    const char *to, *state;
    const char *serials[AGENT_MAX_LINKS];
    int nserial;
    const char *feeds[AGENT_MAX_FEEDS];
    int nfeeds;
    bool usb;
    cr_board_kind kind; /* of the serial boards; AUTO: probe */
    const char *calibration;
} agent_args;

/* An option with a value; returns 0, or 2 after a usage error. */
static int parse_value(agent *a, agent_args *g, const char *o, const char *v)
{
    if (strcmp(o, "--to") == 0) {
        g->to = v;
    } else if (strcmp(o, "--token") == 0) {
        a->token = v;
    } else if (strcmp(o, "--id") == 0) {
        if (!cr_agent_id_valid(v)) {
            fprintf(stderr, "chessrelay agent: --id: expected 1..%d of A-Z a-z 0-9 . _ -\n",
                    CR_AGENT_ID_MAX);
            return 2;
        }
        snprintf(a->id, sizeof a->id, "%s", v);
    } else if (strcmp(o, "--state") == 0) {
        g->state = v;
    } else if (strcmp(o, "--serial") == 0 && g->nserial < AGENT_MAX_LINKS) {
        g->serials[g->nserial++] = v;
    } else if (strcmp(o, "--kind") == 0) {
        if (cr_board_kind_parse(v, &g->kind) != 0) {
            fprintf(stderr, "chessrelay agent: --kind: auto, dgt, millennium or certabo\n");
            return 2;
        }
    } else if (strcmp(o, "--calibration") == 0) {
        g->calibration = v; /* a Certabo table (chessrelay calibrate) */
    } else if (strcmp(o, "--feed") == 0 && g->nfeeds < AGENT_MAX_FEEDS) {
        g->feeds[g->nfeeds++] = v;
    } else if (strcmp(o, "--speed") == 0) {
        if (!cr_opt_number("agent", o, v, 1e-6, 1e6, "a number > 0", &a->clock.speed)) {
            return 2;
        }
    } else {
        fprintf(stderr, "chessrelay agent: unknown option '%s'\n", o);
        return usage();
    }
    return 0;
}

/* Returns 0, or 2 after a usage error. */
static int parse_args(agent *a, agent_args *g, int argc, char **argv)
{
    memset(g, 0, sizeof *g);
    a->token = getenv("CHESSRELAY_AGENT_TOKEN");
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "--usb") == 0) {
            g->usb = true;
        } else if (strcmp(o, "--insecure") == 0) {
            a->insecure = true;
        } else if (strcmp(o, "--exit-at-end") == 0) {
            a->exit_at_end = true;
        } else if (strcmp(o, "--quiet") == 0) {
            cr_log_set_level(CR_LOG_WARN);
        } else if (!v) {
            fprintf(stderr, "chessrelay agent: unknown or incomplete option '%s'\n", o);
            return usage();
        } else if (parse_value(a, g, o, argv[++i])) {
            return 2;
        }
    }
    if (!g->to || !a->token || !a->token[0]) {
        fprintf(stderr, "chessrelay agent: --to and --token are required\n");
        return usage();
    }
    if ((g->nfeeds > 0) + (g->nserial > 0) + g->usb > 1) {
        fprintf(stderr, "chessrelay agent: give one of --usb, --serial or --feed\n");
        return 2;
    }
    if (g->nfeeds == 0 && g->nserial == 0) {
        g->usb = true;
    }
    if (g->nfeeds == 0 && a->clock.speed != 1.0) {
        fprintf(stderr, "chessrelay agent: --speed applies to --feed only\n");
        return 2;
    }
    char host[256] = ""; /* no --id: the host's name, made a valid id */
    if (!a->id[0]) {
        cr_agent_id_from_host(gethostname(host, sizeof host - 1) ? "" : host, a->id);
    }
    return 0;
}

/* The client and its journal: where the feed clock starts and what is
 * sent. */
static int open_client(agent *a, const agent_args *g)
{
    if (!g->state) {
        snprintf(a->state_dir, sizeof a->state_dir, "chessrelay-agent-%.64s", a->id);
    } else {
        snprintf(a->state_dir, sizeof a->state_dir, "%s", g->state);
    }
    cr_agent_client_config cfg = {.id = a->id,
                                  .token = a->token,
                                  .url = g->to,
                                  .state_dir = a->state_dir,
                                  .insecure = a->insecure,
                                  .exit_at_end = a->exit_at_end,
                                  .clock = agent_clock,
                                  .clock_data = a};
    cr_error err;
    /* Its events.feed sealed with its own key (util/seal_key.h). */
    if (cr_seal_key_setup(a->state_dir, true, NULL, &err)) {
        fprintf(stderr, "chessrelay agent: %s\n", err.text);
        return 1;
    }
    if (cr_seal_head_start(a->state_dir)) {
        fprintf(stderr, "chessrelay agent: cannot start the head of the seals\n");
        return 1;
    }
    a->client = cr_agent_client_new(&cfg, &err);
    if (!a->client) {
        fprintf(stderr, "chessrelay agent: %s%s\n", err.code == CR_EINVAL ? "--to: " : "", err.text);
        return err.code == CR_EINVAL ? 2 : 1; /* a bad URL is a usage error */
    }
    a->clock.epoch_ms = cr_agent_client_epoch(a->client);
    return 0;
}

/* Feed files or boards. Returns 0 or an exit status (logged). */
static int start_sources(agent *a, const agent_args *g)
{
    cr_error err;
    if (g->nfeeds) {
        /* Feed files restart where the journal ends: its events are the
         * first `last` of the merged feeds. */
        a->skip = cr_agent_client_last(a->client);
        cr_feed_source_config fcfg = {.clock = &a->clock,
                                      .skip = feed_skip,
                                      .event = on_board_event,
                                      .done = feeds_done,
                                      .data = a,
                                      .batch = 2000,
                                      .log_prefix = "agent: "};
        a->feeds = cr_feed_source_new(a->base, g->feeds, g->nfeeds, &fcfg, &err);
        if (!a->feeds) {
            cr_log(CR_LOG_ERROR, "agent: %s", err.text);
            return err.code == CR_EIO ? 2 : 1;
        }
        cr_feed_source_start(a->feeds);
    }
    cr_board_set_config bcfg = {
        .max_links = AGENT_MAX_LINKS, .event = on_board_event, .state = on_link_state, .data = a};
    cr_board_link_config_default(&bcfg.link);
    bcfg.link.board.emit_raw = false;
    bcfg.link.clock = agent_clock;
    bcfg.link.clock_data = a;
    bcfg.link.kind = g->kind;
    a->cal.dir = a->state_dir;
    a->cal.file = g->calibration;
    bcfg.link.codec_params = cr_certabo_params_from_dir;
    bcfg.link.codec_params_data = &a->cal;
    a->boards = cr_board_set_new(a->base, &bcfg);
    if (!a->boards) {
        cr_log(CR_LOG_ERROR, "agent: out of memory");
        return 1;
    }
    for (int i = 0; i < g->nserial; i++) {
        if (cr_board_set_add_serial(a->boards, g->serials[i], &err)) {
            cr_log(CR_LOG_ERROR, "agent: %s", err.text);
            return err.code == CR_EINVAL ? 2 : 1;
        }
    }
    if (g->usb) {
        int n = cr_board_set_add_usb(a->boards, true, &err);
        if (n < 0) {
            cr_log(CR_LOG_ERROR, "agent: %s", err.text);
            return 1;
        }
        if (n == 0) {
            cr_log(CR_LOG_INFO, "agent: no USB boards yet; waiting for one");
        }
    }
    return 0;
}

/* Stops the link (after a bye, if it is up) and frees the sources. */
static int stop_agent(agent *a, int status)
{
    cr_agent_client_end(a->client);
    cr_board_set_free(a->boards);
    cr_feed_source_free(a->feeds);
    if (a->check) {
        event_free(a->check);
    }
    if (a->base) {
        event_base_free(a->base);
    }
    if (a->exit_at_end && status == 0 && !cr_agent_client_all_done(a->client)) {
        cr_log(CR_LOG_ERROR, "agent: stopped before the relay had everything");
        status = 1;
    }
    return status;
}

int cr_cmd_agent(int argc, char **argv)
{
    static agent ag;
    agent *a = &ag;
    memset(a, 0, sizeof *a);
    a->clock.speed = 1.0;
    agent_args g;
    int status = parse_args(a, &g, argc, argv);
    if (status || (status = open_client(a, &g)) != 0) {
        return status;
    }
    /* Before any thread is made (libusb's, the link's). */
    cr_sigwatch *sw = cr_sigwatch_new(false);
    signal(SIGPIPE, SIG_IGN);
    a->base = sw ? event_base_new() : NULL;
    status = 1;
    if (!a->base || cr_sigwatch_start(sw, a->base, on_signal, a, NULL)) {
        cr_log(CR_LOG_ERROR, "agent: cannot create the event loop");
    } else if ((status = start_sources(a, &g)) == 0 &&
               (status = cr_agent_client_start(a->client, a->base)) == 0) {
        a->check = event_new(a->base, -1, EV_PERSIST, on_check, a);
        struct timeval fifty = {0, 50 * 1000};
        event_add(a->check, &fifty);
        event_base_dispatch(a->base);
        if (cr_sigwatch_signal(sw)) {
            cr_log(CR_LOG_INFO, "agent: signal %d: stopping", cr_sigwatch_signal(sw));
        }
        status = a->status ? a->status : cr_agent_client_status(a->client);
    } else if (status < 0) {
        status = 1;
    }
    status = stop_agent(a, status);
    cr_agent_client_free(a->client);
    cr_seal_head_stop();
    cr_sigwatch_free(sw); /* the other threads are stopped */
    free(a->line);
    return status;
}
