/* chessrelay record: records live boards into a feed (raw + decoded lines),
 * flushed line by line, until SIGINT/SIGTERM. Events are stamped with the
 * real time since the start times --time-scale, or (tests: --clock FILE)
 * with the feed time of the emulator that shares that clock (emu_clock.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "cmd/commands.h"
#include "cr/feed.h"
#include "certabo.h"
#include "board_set.h"
#include "serial.h"
#include "emu_clock.h"
#include "util/opts.h"
#include "core/sigwatch.h"
#include "util/feed_line.h"

#define RECORD_MAX_LINKS 64

typedef struct recorder {
    struct event_base *base;
    FILE *out;
    const char *out_name;
    cr_board_set *boards;
    cr_board_set_config cfg;
    int64_t t0;
    double scale;
    char *line;
    size_t line_cap;
    bool failed;
    bool quiet;
    cr_certabo_params_dir cal;
    const char *clock_path;
    cr_emu_clock *clock;
} recorder;

static int64_t record_clock(void *data)
{
    recorder *r = data;
    if (r->clock) {
        return cr_emu_clock_now(r->clock);
    }
    return (int64_t)((double)(cr_dgt_now_ms() - r->t0) * r->scale);
}

/* The emulator sharing the clock waits for this before its next step. */
static void record_handled(void *data, size_t n)
{
    recorder *r = data;
    if (r->clock) {
        cr_emu_clock_handled(r->clock, n);
    }
}

static void on_event(void *data, const cr_feed_event *ev)
{
    recorder *r = data;
    if (r->failed) {
        return;
    }
    int n = cr_feed_line(ev, &r->line, &r->line_cap);
    if (n == CR_ENOMEM) {
        fprintf(stderr, "chessrelay record: out of memory\n");
        r->failed = true;
        event_base_loopexit(r->base, NULL);
        return;
    }
    if (n < 0) {
        fprintf(stderr, "chessrelay record: cannot format an event of board %s: %s\n", ev->board,
                cr_strerror(n));
        return;
    }
    if (fwrite(r->line, 1, (size_t)n, r->out) != (size_t)n || fflush(r->out) != 0) {
        fprintf(stderr, "chessrelay record: %s: %s\n", r->out_name, strerror(errno));
        r->failed = true;
        event_base_loopexit(r->base, NULL);
    }
}

static void on_state(void *data, cr_board_link *link, cr_board_link_state st)
{
    recorder *r = data;
    if (r->quiet) {
        return;
    }
    cr_dgt_health h = cr_board_link_health(link);
    const char *err = cr_board_link_error(link);
    /* The kind is named when it is not DGT's (found by probing, board_kind.h). */
    bool other = h.identified && h.kind != CR_BOARD_DGT && st == CR_LINK_ACTIVE;
    fprintf(stderr, "chessrelay record: %s: board %s %s%s%s%s%s%s\n", cr_board_link_name(link), h.id,
            cr_board_link_state_name(st), st == CR_LINK_LOST && *err ? ": " : "",
            st == CR_LINK_LOST ? err : "", other ? " (" : "", other ? cr_board_kind_name(h.kind) : "",
            other ? ")" : "");
}

static void on_duration(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopexit(arg, NULL);
}

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay record [--serial DEV]... [--usb] [--out FILE] [--time-scale X]\n"
                    "       [--clock-white auto|left|right] [--no-raw] [--update] [--duration MS] [--quiet]\n"
                    "       [--kind auto|dgt|millennium|certabo] [--calibration FILE] [--state DIR]\n"
                    "       [--clock FILE]\n");
    return 2;
}

/* What the command line asks for besides the recorder's own settings. */
typedef struct record_opts {
    const char *serials[RECORD_MAX_LINKS];
    int nserial;
    bool usb;
    long long duration; /* ms, 0: until a signal */
} record_opts;

static void recorder_init(recorder *r)
{
    memset(r, 0, sizeof *r);
    r->scale = 1.0;
    r->out = stdout;
    r->out_name = "stdout";
    r->cfg.max_links = RECORD_MAX_LINKS;
    r->cfg.event = on_event;
    r->cfg.state = on_state;
    r->cfg.data = r;
    cr_board_link_config_default(&r->cfg.link);
    r->cfg.link.board.emit_raw = true;
    r->cfg.link.clock = record_clock;
    r->cfg.link.handled = record_handled;
    r->cfg.link.clock_data = r;
    r->cfg.link.kind = CR_BOARD_AUTO; /* serial ports: probe for each kind of board */
    r->cfg.link.codec_params = cr_certabo_params_from_dir;
    r->cfg.link.codec_params_data = &r->cal;
}

/* Fills r's settings and o from the command line: 0, or the exit status
 * (2: a usage error). */
static int parse_options(int argc, char **argv, recorder *r, record_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--serial") == 0 && v) {
            if (o->nserial == RECORD_MAX_LINKS) {
                return usage();
            }
            o->serials[o->nserial++] = v;
            i++;
        } else if (strcmp(a, "--kind") == 0 && v) {
            if (cr_board_kind_parse(v, &r->cfg.link.kind) != 0) {
                fprintf(stderr, "chessrelay record: --kind: auto, dgt, millennium or certabo\n");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--calibration") == 0 && v) {
            r->cal.file = v; /* a Certabo table (chessrelay calibrate) */
            i++;
        } else if (strcmp(a, "--state") == 0 && v) {
            r->cal.dir = v; /* Certabo tables in DIR/certabo/ID.cal */
            i++;
        } else if (strcmp(a, "--usb") == 0) {
            o->usb = true;
        } else if (strcmp(a, "--out") == 0 && v) {
            r->out_name = v;
            i++;
        } else if (strcmp(a, "--time-scale") == 0 && v) {
            if (!cr_opt_number("record", a, v, 1e-6, 1e6, "a number > 0", &r->scale)) {
                return 2;
            }
            i++;
        } else if (strcmp(a, "--clock-white") == 0 && v) {
            r->cfg.link.board.white_side = strcmp(v, "left") == 0    ? CR_DGT_WHITE_LEFT
                                           : strcmp(v, "right") == 0 ? CR_DGT_WHITE_RIGHT
                                                                     : CR_DGT_WHITE_AUTO;
            i++;
        } else if (strcmp(a, "--no-raw") == 0) {
            r->cfg.link.board.emit_raw = false;
        } else if (strcmp(a, "--update") == 0) {
            r->cfg.link.update_plain = true;
        } else if (strcmp(a, "--duration") == 0 && v) {
            if (!cr_opt_int("record", a, v, 0, INT64_MAX / 2, "milliseconds (0 or more)",
                            &o->duration)) {
                return 2;
            }
            i++;
        } else if (strcmp(a, "--clock") == 0 && v) {
            r->clock_path = v; /* tests: the clock of `chessrelay emulate --clock` */
            i++;
        } else if (strcmp(a, "--quiet") == 0) {
            r->quiet = true;
        } else {
            fprintf(stderr, "chessrelay record: unknown or incomplete option '%s'\n", a);
            return usage();
        }
    }
    if (!(r->scale > 0)) {
        return usage();
    }
    if (o->nserial == 0) {
        o->usb = true;
    }
    return 0;
}

/* The serial ports given, then (asked for, or no port given) USB boards as
 * they come. Returns the exit status so far (2: a bad port name). */
static int add_boards(recorder *r, const record_opts *o)
{
    int status = 0;
    for (int i = 0; i < o->nserial && status == 0; i++) {
        cr_error err;
        int fd = cr_serial_open(o->serials[i], &err);
        if (fd < 0) {
            fprintf(stderr, "chessrelay record: warning: %s (will retry)\n", err.text);
        } else {
            close(fd);
        }
        if (cr_board_set_add_serial(r->boards, o->serials[i], &err)) {
            fprintf(stderr, "chessrelay record: %s\n", err.text);
            status = err.code == CR_EINVAL ? 2 : 1;
        }
    }
    if (status == 0 && o->usb) {
        cr_error err;
        int n = cr_board_set_add_usb(r->boards, true, &err);
        if (n < 0) {
            fprintf(stderr, "chessrelay record: %s\n", err.text);
            if (o->nserial == 0) {
                status = 1;
            }
        } else if (n == 0 && !r->quiet) {
            fprintf(stderr, "chessrelay record: no USB boards yet; waiting for one\n");
        }
    }
    return status;
}

/* Records until a signal or --duration: the board set on r's loop. */
static int record_boards(recorder *r, const record_opts *o)
{
    r->t0 = cr_dgt_now_ms();
    int status = 0;
    fprintf(r->out, "# chessrelay record: feed format v1\n");
    fflush(r->out);
    r->boards = cr_board_set_new(r->base, &r->cfg);
    if (!r->boards) {
        fprintf(stderr, "chessrelay record: out of memory\n");
        status = 1;
    } else {
        status = add_boards(r, o);
    }
    struct event *dur = evtimer_new(r->base, on_duration, r->base);
    if (o->duration > 0) {
        struct timeval tv = {o->duration / 1000, (o->duration % 1000) * 1000};
        event_add(dur, &tv);
    }
    if (status == 0) {
        event_base_dispatch(r->base);
    }
    cr_board_set_free(r->boards);
    event_free(dur);
    return status;
}

/* Closes the feed file (stdout: flushed). Returns status, or 1 on an error. */
static int close_output(recorder *r, int status)
{
    if (r->out != stdout) {
        if (fclose(r->out) != 0) {
            fprintf(stderr, "chessrelay record: %s: %s\n", r->out_name, strerror(errno));
            status = 1;
        }
    } else {
        fflush(stdout);
    }
    return status;
}

int cr_cmd_record(int argc, char **argv)
{
    recorder r;
    record_opts o;
    recorder_init(&r);
    int status = parse_options(argc, argv, &r, &o);
    if (status != 0) {
        return status;
    }
    if (r.clock_path && !(r.clock = cr_emu_clock_open(r.clock_path))) {
        fprintf(stderr, "chessrelay record: --clock %s: %s\n", r.clock_path,
                errno == EINVAL ? "not the clock file of chessrelay emulate" : strerror(errno));
        return 1;
    }
    if (strcmp(r.out_name, "stdout") != 0 && strcmp(r.out_name, "-") != 0) {
        r.out = fopen(r.out_name, "w");
        if (!r.out) {
            fprintf(stderr, "chessrelay record: %s: %s\n", r.out_name, strerror(errno));
            cr_emu_clock_close(r.clock);
            return 1;
        }
    }
    cr_sigwatch *sw = cr_sigwatch_new(false); /* before libusb's threads */
    r.base = sw ? event_base_new() : NULL;
    if (!r.base || cr_sigwatch_start(sw, r.base, NULL, NULL, NULL)) {
        fprintf(stderr, "chessrelay record: cannot create the event loop\n");
        if (r.base) {
            event_base_free(r.base);
        }
        cr_sigwatch_free(sw);
        close_output(&r, 0);
        cr_emu_clock_close(r.clock);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    status = record_boards(&r, &o);
    event_base_free(r.base);
    cr_sigwatch_free(sw);
    if (r.failed) {
        status = 1;
    }
    status = close_output(&r, status);
    free(r.line);
    cr_emu_clock_close(r.clock);
    return status;
}
