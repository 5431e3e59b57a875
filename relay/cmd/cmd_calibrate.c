/* chessrelay calibrate --serial DEV: learns which RFID is which piece on a
 * Certabo board (certabo.h). The board must show the start position with a
 * spare white queen on d3 and a spare black queen on d6; the table is written
 * to STATE/certabo/ID.cal (ID: the device's name, the board id the relay
 * gives the board), where record/serve --state find it, or to --out FILE.
 * Waits up to --timeout ms for the position to stand (voted over frames). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "certabo.h"
#include "cmd/commands.h"
#include "board_link.h"
#include "serial.h"
#include "util/opts.h"

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay calibrate --serial DEV [--state DIR | --out FILE] [--timeout MS]\n");
    return 2;
}

static int write_table(const char *path, const cr_certabo_calibration *cal)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "chessrelay calibrate: %s: %s\n", tmp, strerror(errno));
        return 1;
    }
    fprintf(f, "# chessrelay Certabo calibration: piece, then its RFID's 5 numbers\n");
    if (cr_certabo_calibration_write(f, cal) != 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "chessrelay calibrate: %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return 1;
    }
    return 0;
}

int cr_cmd_calibrate(int argc, char **argv)
{
    const char *dev = NULL, *state = NULL, *out = NULL;
    long long timeout = 30000;
    /* every option takes a value */
    for (int i = 1; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--serial") == 0 && v) {
            dev = v;
        } else if (strcmp(argv[i], "--state") == 0 && v) {
            state = v;
        } else if (strcmp(argv[i], "--out") == 0 && v) {
            out = v;
        } else if (strcmp(argv[i], "--timeout") == 0 && v) {
            if (!cr_opt_int("calibrate", argv[i], v, 1, 3600000, "milliseconds (1..3600000)",
                            &timeout)) {
                return 2;
            }
        } else {
            fprintf(stderr, "chessrelay calibrate: unknown or incomplete option '%s'\n", argv[i]);
            return usage();
        }
    }
    if (!dev || (!state && !out) || (state && out)) {
        return usage();
    }
    char path[4096];
    if (state) {
        char id[CR_BOARD_ID_MAX + 1];
        cr_serial_fallback_id(dev, id);
        snprintf(path, sizeof path, "%s/certabo", state);
        if (mkdir(state, 0750) != 0 && errno != EEXIST) {
            fprintf(stderr, "chessrelay calibrate: %s: %s\n", state, strerror(errno));
            return 1;
        }
        if (mkdir(path, 0750) != 0 && errno != EEXIST) {
            fprintf(stderr, "chessrelay calibrate: %s: %s\n", path, strerror(errno));
            return 1;
        }
        if (cr_certabo_calibration_path(path, sizeof path, state, id) != 0) {
            fprintf(stderr, "chessrelay calibrate: %s: path too long\n", state);
            return 1;
        }
    } else {
        snprintf(path, sizeof path, "%s", out);
    }
    cr_error err;
    int fd = cr_serial_open(dev, &err);
    if (fd < 0) {
        fprintf(stderr, "chessrelay calibrate: %s\n", err.text);
        return 1;
    }
    if (cr_serial_configure_baud(fd, cr_certabo_ops.serial.baud) != 0) {
        fprintf(stderr, "chessrelay calibrate: %s: cannot set 38400 8N1\n", dev);
        close(fd);
        return 1;
    }
    cr_certabo_reader *r = cr_certabo_reader_new(NULL);
    if (!r) {
        close(fd);
        fprintf(stderr, "chessrelay calibrate: out of memory\n");
        return 1;
    }
    uint8_t leds[8];
    int nl = cr_certabo_ops.encode_start(leds, sizeof leds);
    if (nl > 0 && write(fd, leds, (size_t)nl) != nl) {
        fprintf(stderr, "chessrelay calibrate: %s: write: %s\n", dev, strerror(errno));
    }
    fprintf(stderr, "chessrelay calibrate: %s: waiting for the start position with queens on d3 and d6\n",
            dev);
    int64_t deadline = cr_dgt_now_ms() + timeout;
    cr_certabo_calibration cal;
    cr_error why;
    snprintf(why.text, sizeof why.text, "no frame read from the board");
    int status = 1;
    while (cr_dgt_now_ms() < deadline) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int left = (int)(deadline - cr_dgt_now_ms());
        if (poll(&p, 1, left > 0 ? left : 0) <= 0) {
            continue;
        }
        uint8_t buf[2048];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) {
            if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
                continue;
            }
            snprintf(why.text, sizeof why.text, "%s: the board went away", dev);
            break;
        }
        (void)cr_certabo_reader_feed(r, buf, (size_t)n);
        uint8_t squares[64];
        cr_certabo_rfid rfids[64];
        /* Once a few frames voted: does the board hold the calibration position? */
        (void)cr_certabo_reader_next(r, squares);
        if (cr_certabo_reader_rfids(r, rfids) && cr_certabo_reader_stats(r).frames >= 3) {
            if (cr_certabo_calibrate(rfids, &cal, &why) == 0) {
                status = 0;
                break;
            }
        }
    }
    cr_certabo_reader_free(r);
    close(fd);
    if (status != 0) {
        fprintf(stderr, "chessrelay calibrate: %s: not calibrated: %s\n", dev, why.text);
        return 1;
    }
    if (write_table(path, &cal) != 0) {
        return 1;
    }
    printf("%s\t%zu pieces\n", path, cal.n);
    return 0;
}
