/* The link (drivers/board_link.h) with boards of every kind over a pty pair:
 * the test holds the master side and plays the board with the emulators of
 * drivers/board_emu.h. The link probes for the kind (AUTO), names the board,
 * turns its snapshots into POS events, asks again after garbage, and goes
 * through not responding / lost / back as for DGT boards. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board_emu.h"
#include "certabo.h"
#include "board_link.h"
#include "serial.h"
#include "millennium.h"
#include "test_squares.h"
#include "test_pty.h"

typedef struct rig {
    struct event_base *base;
    int master;
    char slave[128];
    char dir[64];
    struct event *rd, *stream;
    cr_board_emu *emu;
    cr_board_link *link;
    int connects, disconnects, positions;
    cr_feed_event last_pos;
    bool board_dead;
    bool garbage_once;
    cr_certabo_calibration cal;
    bool use_cal;
    cr_board_kind kind;
    uint8_t before_reply[256]; /* what the board got before it first spoke */
    size_t before_reply_len;
    bool replied;
} rig;

static void flush_board(rig *r)
{
    uint8_t out[4096];
    size_t n;
    while ((n = cr_board_emu_take_output(r->emu, out, sizeof out)) > 0) {
        if (r->board_dead) {
            continue;
        }
        r->replied = true;
        if (r->garbage_once) { /* a frame cut by noise: a byte lost, one flipped */
            r->garbage_once = false;
            out[n / 2] ^= 0x80;
            assert_int_equal(write(r->master, "\x00\xff", 2), 2);
        }
        assert_int_equal(write(r->master, out, n), (ssize_t)n);
    }
}

static void on_master(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    rig *r = arg;
    uint8_t buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0 && !r->board_dead) {
        for (ssize_t i = 0; i < n && !r->replied && r->before_reply_len < sizeof r->before_reply; i++) {
            r->before_reply[r->before_reply_len++] = buf[i];
        }
        cr_board_emu_input(r->emu, 0, buf, (size_t)n);
        flush_board(r);
    }
}

static void on_stream(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    rig *r = arg;
    cr_board_emu_stream(r->emu, cr_dgt_now_ms());
    flush_board(r);
}

static void on_event(void *data, const cr_feed_event *ev)
{
    rig *r = data;
    r->connects += ev->kind == CR_FEED_CONNECT;
    r->disconnects += ev->kind == CR_FEED_DISCONNECT;
    assert_true(ev->kind != CR_FEED_RAW || r->kind == CR_BOARD_DGT); /* raw: DGT bytes only */
    if (ev->kind == CR_FEED_POS) {
        r->positions++;
        r->last_pos = *ev;
    }
}

static void run_ms(rig *r, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    event_base_loopexit(r->base, &tv);
    event_base_dispatch(r->base);
}

#define RUN_UNTIL(r, ms, cond)                                            \
    do {                                                                  \
        for (int waited_ = 0; waited_ < (ms) && !(cond); waited_ += 10) { \
            run_ms((r), 10);                                              \
        }                                                                 \
    } while (0)

static const void *params(void *data, cr_board_kind kind, const char *id)
{
    rig *r = data;
    assert_string_equal(id, "board");
    return kind == CR_BOARD_CERTABO && r->use_cal ? &r->cal : NULL;
}

typedef struct rig_opts {
    bool refuse_reports; /* Millennium: the board keeps automatic reports off */
    int ping_ms;         /* 0: 100 */
} rig_opts;

static rig *make_rig_opts(cr_board_kind kind, bool use_cal, rig_opts o)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->base = event_base_new();
    snprintf(r->dir, sizeof r->dir, "/tmp/cr-boardlink-XXXXXX");
    r->master = cr_test_pty_open(r->slave, sizeof r->slave, r->dir, "board");
    r->rd = event_new(r->base, r->master, EV_READ | EV_PERSIST, on_master, r);
    event_add(r->rd, NULL);
    cr_board_emu_config ecfg = {.kind = kind, .period_ms = 20, .refuse_reports = o.refuse_reports};
    ecfg.dgt.serial = "12345";
    r->emu = cr_board_emu_new(&ecfg);
    assert_non_null(r->emu);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    cr_board_emu_set_squares(r->emu, 0, sq);
    r->stream = event_new(r->base, -1, EV_PERSIST, on_stream, r);
    struct timeval every = {0, 10000};
    event_add(r->stream, &every);
    cr_certabo_emu_calibration(&r->cal);
    r->use_cal = use_cal;
    r->kind = kind;

    cr_dgt_transport tr;
    assert_int_equal(cr_serial_transport_new(r->base, r->slave, &tr), 0);
    cr_board_link_config cfg;
    cr_board_link_config_default(&cfg);
    cfg.kind = CR_BOARD_AUTO;
    cfg.board.emit_raw = true;
    cfg.ping_ms = o.ping_ms ? o.ping_ms : 100;
    cfg.silent_ms = o.ping_ms ? 4 * o.ping_ms : 400;
    cfg.lost_ms = 800;
    cfg.reopen_ms = 30;
    cfg.probe_ms = 150;
    cfg.codec_params = params;
    cfg.codec_params_data = r;
    cr_board_link_callbacks cbs = {.event = on_event, .data = r};
    r->link = cr_board_link_new(r->base, &tr, &cfg, &cbs);
    assert_non_null(r->link);
    assert_int_equal(cr_board_link_start(r->link), 0);
    return r;
}

static rig *make_rig(cr_board_kind kind, bool use_cal)
{
    return make_rig_opts(kind, use_cal, (rig_opts){0});
}

static void free_rig(rig *r)
{
    cr_board_link_free(r->link);
    event_free(r->rd);
    event_free(r->stream);
    close(r->master);
    cr_board_emu_free(r->emu);
    event_base_free(r->base);
    cr_test_pty_unlink(r->slave, r->dir);
    free(r);
}

static void test_dgt_found_by_probing(void **state)
{
    (void)state;
    rig *r = make_rig(CR_BOARD_DGT, false);
    RUN_UNTIL(r, 3000, r->positions > 0);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_true(h.identified);
    assert_int_equal(h.kind, CR_BOARD_DGT);
    assert_true(h.has_clock);
    assert_string_equal(h.id, "12345");
    free_rig(r);
}

static void test_millennium(void **state)
{
    (void)state;
    rig *r = make_rig(CR_BOARD_MILLENNIUM, false);
    RUN_UNTIL(r, 3000, r->positions > 0);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_true(h.identified);
    assert_int_equal(h.kind, CR_BOARD_MILLENNIUM);
    assert_false(h.has_clock);
    assert_string_equal(h.id, "board"); /* no serial number: the device's name */
    assert_int_equal(r->connects, 1);
    /* probed first: nothing of another kind's probe came before its own */
    uint8_t probe[32];
    int pn = cr_board_codec_ops_get(CR_BOARD_MILLENNIUM)->probe_request(probe, sizeof probe);
    assert_true(r->before_reply_len >= 3 && r->before_reply_len <= (size_t)pn); /* V, maybe S */
    assert_memory_equal(r->before_reply, probe, r->before_reply_len);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    /* the link set on-change reports: a move is reported by itself */
    assert_true(cr_board_emu_host_ready(r->emu));
    sq[CR_SQ_E2] = 0;
    sq[CR_SQ_E4] = CR_WP;
    int before = r->positions;
    cr_board_emu_set_squares(r->emu, 10, sq);
    flush_board(r);
    RUN_UNTIL(r, 1000, r->positions > before);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    /* a frame spoilt by noise: dropped, counted, and a fresh status asked for */
    sq[CR_SQ_E7] = 0;
    sq[CR_SQ_E5] = CR_BP;
    before = r->positions;
    r->garbage_once = true;
    cr_board_emu_set_squares(r->emu, 20, sq);
    flush_board(r);
    RUN_UNTIL(r, 1000, r->positions > before);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    h = cr_board_link_health(r->link);
    assert_true(h.bad_frames >= 1);
    assert_true(h.resyncs >= 1);
    /* quiet board: pinged with status requests, no new POS, stays active */
    before = r->positions;
    run_ms(r, 600);
    assert_int_equal(cr_board_link_health(r->link).state, CR_LINK_ACTIVE);
    assert_int_equal(r->positions, before);
    /* dead board: DISCONNECT; back: CONNECT and its position again */
    r->board_dead = true;
    RUN_UNTIL(r, 2000, r->disconnects > 0);
    assert_int_equal(r->disconnects, 1);
    r->board_dead = false;
    RUN_UNTIL(r, 3000, r->connects > 1 && r->positions > before);
    assert_int_equal(r->connects, 2);
    assert_int_equal(cr_board_link_health(r->link).kind, CR_BOARD_MILLENNIUM);
    free_rig(r);
}

/* A Millennium board whose echo of the report-mode write shows it kept
 * reports off: the link polls it every CR_MLN_POLL_MS, so a move's steps
 * are seen although the board never speaks unasked and the link's ping
 * (here 2 s) is far off. */
static void test_millennium_refusing_reports(void **state)
{
    (void)state;
    rig *r = make_rig_opts(CR_BOARD_MILLENNIUM, false, (rig_opts){.refuse_reports = true, .ping_ms = 2000});
    RUN_UNTIL(r, 3000, r->positions > 0);
    RUN_UNTIL(r, 1000, cr_board_link_health(r->link).poll_ms > 0);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.kind, CR_BOARD_MILLENNIUM);
    assert_int_equal(h.poll_ms, CR_MLN_POLL_MS);
    assert_int_equal(cr_board_emu_kind(r->emu), CR_BOARD_MILLENNIUM);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    int64_t lifted_at = cr_dgt_now_ms();
    sq[CR_SQ_G1] = 0; /* a knight lifted ... */
    int before = r->positions;
    cr_board_emu_set_squares(r->emu, 10, sq);
    flush_board(r);
    RUN_UNTIL(r, 1000, r->positions > before);
    assert_true(r->positions > before);
    assert_true(cr_dgt_now_ms() - lifted_at < 1500); /* polled, not pinged after 2 s */
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    sq[CR_SQ_F3] = CR_WN; /* ... and set down */
    before = r->positions;
    cr_board_emu_set_squares(r->emu, 20, sq);
    flush_board(r);
    RUN_UNTIL(r, 1000, r->positions > before);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    free_rig(r);
}

/* A board that kept on-change reports as written: never polled. */
static void test_millennium_reports_kept(void **state)
{
    (void)state;
    rig *r = make_rig_opts(CR_BOARD_MILLENNIUM, false, (rig_opts){.ping_ms = 2000});
    RUN_UNTIL(r, 3000, r->positions > 0);
    run_ms(r, 200);
    assert_int_equal(cr_board_link_health(r->link).poll_ms, 0);
    free_rig(r);
}

static void test_certabo(void **state)
{
    (void)state;
    rig *r = make_rig(CR_BOARD_CERTABO, true);
    RUN_UNTIL(r, 3000, r->positions > 0);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.kind, CR_BOARD_CERTABO);
    assert_false(h.has_clock);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    assert_true(cr_board_emu_host_ready(r->emu)); /* the link sent "LEDs off" */
    sq[CR_SQ_G1] = 0;
    sq[CR_SQ_F3] = CR_WN;
    int before = r->positions;
    cr_board_emu_set_squares(r->emu, 10, sq);
    RUN_UNTIL(r, 1000, r->positions > before);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    /* a stream that stops: lost */
    r->board_dead = true;
    RUN_UNTIL(r, 2000, r->disconnects > 0);
    assert_int_equal(r->disconnects, 1);
    free_rig(r);
}

static void test_certabo_uncalibrated(void **state)
{
    (void)state;
    rig *r = make_rig(CR_BOARD_CERTABO, false);
    RUN_UNTIL(r, 3000, r->positions > 0);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    for (int i = 0; i < 64; i++) {
        assert_int_equal(r->last_pos.u.squares[i], sq[i] ? CR_BOARD_OCCUPIED : CR_NO_PIECE);
    }
    free_rig(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dgt_found_by_probing),
        cmocka_unit_test(test_millennium),
        cmocka_unit_test(test_millennium_refusing_reports),
        cmocka_unit_test(test_millennium_reports_kept),
        cmocka_unit_test(test_certabo),
        cmocka_unit_test(test_certabo_uncalibrated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
