/* chessrelay check-boards: the boards checked before the round
 * (cr/board_check.h) from what they said while being set up: a feed
 * recorded from them (`chessrelay record --duration S`), or several. Prints
 * each board that is not ready with what to fix, then "Ready R/N". With
 * --config, the tournament file's boards are the ones expected (a board
 * never heard from is not ready) and its time control the clocks' one. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "core/config.h"
#include "cr/board_check.h"
#include "cr/clock.h"
#include "cr/feed.h"

#define CHECK_BOARDS_MAX 4096

typedef struct checked {
    char id[CR_BOARD_ID_MAX + 1];
    cr_board_check *check;
} checked;

typedef struct check_run {
    checked *boards;
    int n;
    cr_board_check_config cfg;
    bool json, failed;
} check_run;

static int usage(void)
{
    fprintf(stderr,
            "usage: chessrelay check-boards FEED... [--config FILE] [--control TC] [--sensors] [--json]\n"
            "  FEED: the boards recorded while set up before the round ('-': stdin),\n"
            "        e.g. chessrelay record --usb --duration 60 --out setup.feed\n"
            "  --config F   the tournament file: its boards are the ones expected, its\n"
            "               time control the clocks' (for the round given by --round N)\n"
            "  --round N    the round whose time control counts (default: \"*\")\n"
            "  --control TC the clocks' control, e.g. 5400+30 (overrides the file's)\n"
            "  --sensors    a piece was slid over every square of each empty board:\n"
            "               name the squares whose sensor never saw it (dead) or never\n"
            "               saw the square empty (stuck)\n"
            "  --json       {\"ready\":R,\"boards\":N,\"list\":[{\"board\",\"ready\",\"problems\",\"fix\"}]}\n"
            "exit status: 0 every board ready, 1 not, 2 usage or unreadable input\n");
    return 2;
}

static cr_board_check *board_of(check_run *run, const char *id)
{
    for (int i = 0; i < run->n; i++) {
        if (strcmp(run->boards[i].id, id) == 0) {
            return run->boards[i].check;
        }
    }
    if (run->n == CHECK_BOARDS_MAX) {
        return NULL;
    }
    checked *c = &run->boards[run->n];
    c->check = cr_board_check_new(&run->cfg);
    if (!c->check) {
        return NULL;
    }
    snprintf(c->id, sizeof c->id, "%s", id);
    run->n++;
    return c->check;
}

static int read_feed(check_run *run, const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f) {
        fprintf(stderr, "check-boards: %s: cannot open\n", path);
        return 2;
    }
    cr_feed_reader *r = cr_feed_reader_new(f, path);
    int rc = r ? 0 : 2;
    cr_feed_event ev;
    cr_error err;
    int got;
    while (r && (got = cr_feed_reader_next(r, &ev, &err)) != 0) {
        if (got < 0) {
            fprintf(stderr, "check-boards: %s (skipped)\n", err.text);
            continue;
        }
        cr_board_check *c = board_of(run, ev.board);
        if (!c) {
            fprintf(stderr, "check-boards: more than %d boards\n", CHECK_BOARDS_MAX);
            rc = 2;
            break;
        }
        cr_board_check_feed(c, &ev);
    }
    cr_feed_reader_free(r);
    if (f != stdin) {
        fclose(f);
    }
    return rc;
}

static const char *const problem_names[] = {"offline",  "no-position",   "setup",
                                            "sensors",  "no-clock",      "clock-time",
                                            "clock-running", "battery"};

static int report(const check_run *run)
{
    int ready = 0;
    json_t *list = run->json ? json_array() : NULL;
    for (int i = 0; i < run->n; i++) {
        cr_board_check_report r;
        cr_board_check_report_get(run->boards[i].check, &r);
        ready += r.problems == 0;
        if (list) {
            json_t *p = json_array();
            for (size_t k = 0; k < sizeof problem_names / sizeof problem_names[0]; k++) {
                if (r.problems >> k & 1) {
                    json_array_append_new(p, json_string(problem_names[k]));
                }
            }
            json_array_append_new(list, json_pack("{s:s,s:b,s:o,s:s,s:b}", "board",
                                                  run->boards[i].id, "ready", r.problems == 0,
                                                  "problems", p, "fix", r.fix, "rotated",
                                                  r.rotated));
        } else if (r.problems) {
            printf("%-16s %s\n", run->boards[i].id, r.fix);
        }
    }
    if (list) {
        json_t *o = json_pack("{s:i,s:i,s:o}", "ready", ready, "boards", run->n, "list", list);
        char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
        printf("%s\n", s ? s : "null");
        free(s);
        json_decref(o);
    } else {
        printf("Ready %d/%d\n", ready, run->n);
    }
    return ready == run->n ? 0 : 1;
}

/* The tournament file's boards (expected) and time control. */
static int use_config(check_run *run, const char *path, const char *round, bool have_control)
{
    cr_error err;
    cr_config *cfg = cr_config_load(path, &err);
    if (!cfg) {
        fprintf(stderr, "check-boards: %s\n", err.text);
        return 2;
    }
    const char *tc = cr_config_time_control(cfg, round);
    if (!have_control && tc && tc[0] && cr_time_control_parse(tc, &run->cfg.control, &err)) {
        fprintf(stderr, "check-boards: %s: time control \"%s\": %s\n", path, tc, err.text);
        cr_config_free(cfg);
        return 2;
    }
    int rc = 0;
    for (int i = 0; i < cfg->board_count && rc == 0; i++) {
        const char *id = cfg->boards[i].board;
        if (id[0] && (round[0] == '*' || !cfg->boards[i].round[0] ||
                      strcmp(cfg->boards[i].round, round) == 0) &&
            !board_of(run, id)) {
            rc = 2;
        }
    }
    cr_config_free(cfg);
    return rc;
}

int cr_cmd_check_boards(int argc, char **argv)
{
    check_run run = {0};
    const char *config = NULL, *control = NULL, *round = "*";
    const char *feeds[64];
    int nfeeds = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--config") == 0 && v) {
            config = v;
            i++;
        } else if (strcmp(a, "--control") == 0 && v) {
            control = v;
            i++;
        } else if (strcmp(a, "--round") == 0 && v) {
            round = v;
            i++;
        } else if (strcmp(a, "--sensors") == 0) {
            run.cfg.sensors = true;
        } else if (strcmp(a, "--json") == 0) {
            run.json = true;
        } else if ((a[0] != '-' || strcmp(a, "-") == 0) && nfeeds < 64) {
            feeds[nfeeds++] = a;
        } else {
            return usage();
        }
    }
    cr_error err;
    if (!nfeeds || (control && cr_time_control_parse(control, &run.cfg.control, &err))) {
        if (nfeeds) {
            fprintf(stderr, "check-boards: --control %s: %s\n", control, err.text);
        }
        return usage();
    }
    run.boards = calloc(CHECK_BOARDS_MAX, sizeof *run.boards);
    int rc = run.boards ? 0 : 2;
    if (rc == 0 && config) {
        rc = use_config(&run, config, round, control != NULL);
    }
    for (int i = 0; i < nfeeds && rc == 0; i++) {
        rc = read_feed(&run, feeds[i]);
    }
    if (rc == 0) {
        rc = report(&run);
    }
    for (int i = 0; i < run.n; i++) {
        cr_board_check_free(run.boards[i].check);
    }
    free(run.boards);
    return rc;
}
