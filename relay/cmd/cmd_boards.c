/* chessrelay boards: lists the boards reachable now: transport, board id
 * (a DGT board's serial number, else the device's name), and a DGT board's
 * version or the kind found (serial ports are probed for each kind unless
 * --kind names one; USB boards are DGT boards). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "cmd/commands.h"
#include "board_set.h"
#include "serial.h"
#include "util/opts.h"

#define BOARDS_MAX 64

typedef struct lister {
    struct event_base *base;
    cr_board_set *set;
    int64_t deadline;
} lister;

/* Done when every link has its serial number and version, or time is up. */
static void on_check(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    lister *ls = arg;
    bool all = true;
    for (int i = 0; i < cr_board_set_count(ls->set); i++) {
        cr_board_link *l = cr_board_set_link(ls->set, i);
        const cr_dgt_board_info *in = cr_board_link_info(l);
        cr_dgt_health h = cr_board_link_health(l);
        all = all && h.identified && (h.kind != CR_BOARD_DGT || in->version_major >= 0);
    }
    if (all || cr_dgt_now_ms() >= ls->deadline) {
        event_base_loopexit(ls->base, NULL);
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay boards [--serial DEV]... [--usb] [--timeout MS]\n"
                    "       [--kind auto|dgt|millennium|certabo]\n");
    return 2;
}

int cr_cmd_boards(int argc, char **argv)
{
    const char *serials[BOARDS_MAX];
    int nserial = 0;
    bool usb = false;
    long long timeout = 3000;
    cr_board_kind kind = CR_BOARD_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--serial") == 0 && v && nserial < BOARDS_MAX) {
            serials[nserial++] = v;
            i++;
        } else if (strcmp(argv[i], "--kind") == 0 && v) {
            if (cr_board_kind_parse(v, &kind) != 0) {
                fprintf(stderr, "chessrelay boards: --kind: auto, dgt, millennium or certabo\n");
                return 2;
            }
            i++;
        } else if (strcmp(argv[i], "--usb") == 0) {
            usb = true;
        } else if (strcmp(argv[i], "--timeout") == 0 && v) {
            if (!cr_opt_int("boards", argv[i], v, 0, 3600000, "milliseconds (0..3600000)",
                            &timeout)) {
                return 2;
            }
            i++;
        } else {
            fprintf(stderr, "chessrelay boards: unknown or incomplete option '%s'\n", argv[i]);
            return usage();
        }
    }
    if (nserial == 0) {
        usb = true;
    }
    lister ls;
    memset(&ls, 0, sizeof ls);
    ls.base = event_base_new();
    if (!ls.base) {
        fprintf(stderr, "chessrelay boards: cannot create the event loop\n");
        return 1;
    }
    cr_board_set_config cfg = {.max_links = BOARDS_MAX};
    cr_board_link_config_default(&cfg.link);
    cfg.link.reopen_ms = 250;
    cfg.link.identify_only = true; /* leave the board as it was: no update mode */
    cfg.link.kind = kind;
    ls.set = cr_board_set_new(ls.base, &cfg);
    if (!ls.set) {
        fprintf(stderr, "chessrelay boards: out of memory\n");
        event_base_free(ls.base);
        return 1;
    }
    int status = 0;
    for (int i = 0; i < nserial; i++) {
        cr_error err;
        int fd = cr_serial_open(serials[i], &err);
        if (fd < 0) {
            fprintf(stderr, "chessrelay boards: %s\n", err.text);
            status = 1;
            continue;
        }
        close(fd);
        if (cr_board_set_add_serial(ls.set, serials[i], &err)) {
            fprintf(stderr, "chessrelay boards: %s\n", err.text);
            status = 1;
        }
    }
    if (usb) {
        cr_error err;
        if (cr_board_set_add_usb(ls.set, false, &err) < 0) {
            fprintf(stderr, "chessrelay boards: %s\n", err.text);
        }
    }
    int n = cr_board_set_count(ls.set);
    if (n > 0) {
        ls.deadline = cr_dgt_now_ms() + timeout;
        struct event *check = event_new(ls.base, -1, EV_PERSIST, on_check, &ls);
        struct timeval tv = {0, 50000};
        event_add(check, &tv);
        event_base_dispatch(ls.base);
        event_free(check);
    }
    int found = 0;
    for (int i = 0; i < n; i++) {
        cr_board_link *l = cr_board_set_link(ls.set, i);
        cr_dgt_health h = cr_board_link_health(l);
        const cr_dgt_board_info *in = cr_board_link_info(l);
        if (!h.identified) {
            fprintf(stderr, "chessrelay boards: %s: no %s board answered\n", cr_board_link_name(l),
                    kind == CR_BOARD_AUTO ? "known" : cr_board_kind_name(kind));
            status = 1;
            continue;
        }
        found++;
        if (h.kind != CR_BOARD_DGT) {
            printf("%s\t%s\t%s\n", cr_board_link_name(l), h.id, cr_board_kind_name(h.kind));
            continue;
        }
        char version[32] = "?";
        if (in->version_major >= 0) {
            snprintf(version, sizeof version, "%d.%02d", in->version_major, in->version_minor);
        }
        printf("%s\t%s\tversion %s\n", cr_board_link_name(l), in->serial[0] ? in->serial : "-",
               version);
    }
    if (found == 0 && status == 0) {
        printf("no boards found\n");
    }
    cr_board_set_free(ls.set);
    event_base_free(ls.base);
    return status;
}
