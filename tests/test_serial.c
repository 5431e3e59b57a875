/* Tests of the serial transport and the link lifecycle (drivers/serial.h,
 * drivers/board_link.h) over a pty pair: the test holds the master side and
 * plays the board with the emulator core (drivers/dgt_emu.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "dgt_emu.h"
#include "board_link.h"
#include "serial.h"
#include "test_squares.h"
#include "test_pty.h"

typedef struct rig {
    struct event_base *base;
    int master;
    char slave[128]; /* the link's path: a link to the pty in dir, as udev makes them */
    char dir[64];
    struct event *rd;
    cr_dgt_emu *emu;
    cr_board_link *link;
    int connects, disconnects, positions, clocks;
    cr_feed_event last_pos;
    cr_board_link_state states[32];
    int nstates;
    bool board_dead; /* the board neither reads nor answers */
} rig;

static void flush_board(rig *r)
{
    uint8_t out[2048];
    size_t n;
    while ((n = cr_dgt_emu_take_output(r->emu, out, sizeof out)) > 0) {
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
        cr_dgt_emu_input(r->emu, 0, buf, (size_t)n);
        flush_board(r);
    }
}

static void on_event(void *data, const cr_feed_event *ev)
{
    rig *r = data;
    r->connects += ev->kind == CR_FEED_CONNECT;
    r->disconnects += ev->kind == CR_FEED_DISCONNECT;
    r->clocks += ev->kind == CR_FEED_CLOCK;
    if (ev->kind == CR_FEED_POS) {
        r->positions++;
        r->last_pos = *ev;
    }
}

static void on_state(void *data, cr_board_link *link, cr_board_link_state st)
{
    (void)link;
    rig *r = data;
    if (r->nstates < 32) {
        r->states[r->nstates++] = st;
    }
}

static void run_ms(rig *r, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    event_base_loopexit(r->base, &tv);
    event_base_dispatch(r->base);
}

/* Runs the loop until cond holds or ms pass; returns whether it held. */
#define RUN_UNTIL(r, ms, cond)                                 \
    do {                                                       \
        for (int waited_ = 0; waited_ < (ms) && !(cond); waited_ += 10) { \
            run_ms((r), 10);                                   \
        }                                                      \
    } while (0)

static void open_master(rig *r)
{
    snprintf(r->dir, sizeof r->dir, "/tmp/cr-serial-XXXXXX");
    r->master = cr_test_pty_open(r->slave, sizeof r->slave, r->dir, "dgt");
    r->rd = event_new(r->base, r->master, EV_READ | EV_PERSIST, on_master, r);
    event_add(r->rd, NULL);
}

static int setup(void **state)
{
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->base = event_base_new();
    open_master(r);
    cr_dgt_emu_config ecfg = {.serial = "12345", .version_major = 3, .version_minor = 1};
    r->emu = cr_dgt_emu_new(&ecfg);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    cr_dgt_emu_set_squares(r->emu, 0, sq);
    cr_dgt_emu_set_clock(r->emu, 0, 5400000, 5400000, CR_CLOCK_STOPPED);
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    rig *r = *state;
    cr_board_link_free(r->link);
    if (r->rd) {
        event_free(r->rd);
    }
    if (r->master >= 0) {
        close(r->master);
    }
    cr_dgt_emu_free(r->emu);
    event_base_free(r->base);
    cr_test_pty_unlink(r->slave, r->dir);
    free(r);
    return 0;
}

static void start_link(rig *r, int scale)
{
    cr_dgt_transport tr;
    assert_int_equal(cr_serial_transport_new(r->base, r->slave, &tr), 0);
    char name[160];
    snprintf(name, sizeof name, "serial:%s", r->slave);
    assert_string_equal(tr.name, name);
    cr_board_link_config cfg;
    cr_board_link_config_default(&cfg);
    cfg.board.emit_raw = true;
    /* Short timers so that the lifecycle runs in a fraction of a second. */
    cfg.ping_ms = 50 * scale;
    cfg.silent_ms = 150 * scale;
    cfg.lost_ms = 300 * scale;
    cfg.reopen_ms = 30;
    cfg.probe_ms = 100;
    cr_board_link_callbacks cbs = {.event = on_event, .state = on_state, .data = r};
    r->link = cr_board_link_new(r->base, &tr, &cfg, &cbs);
    assert_non_null(r->link);
    assert_int_equal(cr_board_link_start(r->link), 0);
}

static void test_open_configures_tty(void **state)
{
    rig *r = *state;
    cr_error err;
    int fd = cr_serial_open(r->slave, &err);
    assert_true(fd >= 0);
    struct termios tio;
    assert_int_equal(tcgetattr(fd, &tio), 0);
    assert_int_equal(cfgetispeed(&tio), B9600);
    assert_int_equal(cfgetospeed(&tio), B9600);
    assert_int_equal(tio.c_cflag & CSIZE, CS8);
    assert_int_equal(tio.c_cflag & (PARENB | CSTOPB | CRTSCTS), 0);
    assert_int_equal(tio.c_lflag & (ICANON | ECHO | ISIG), 0);
    assert_int_equal(tio.c_iflag & (IXON | IXOFF | ICRNL), 0);
    assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
    close(fd);
    assert_true(cr_serial_open("/dev/null", &err) < 0);
    assert_non_null(strstr(err.text, "/dev/null: not a terminal"));
    assert_true(cr_serial_open("/nonexistent/ttyUSB9", &err) < 0);
    assert_non_null(strstr(err.text, "/nonexistent/ttyUSB9"));
}

static void test_connect_dump_updates(void **state)
{
    rig *r = *state;
    start_link(r, 10);
    RUN_UNTIL(r, 2000, r->positions >= 1 && cr_dgt_emu_mode_get(r->emu) == CR_EMU_UPDATE_NICE);
    assert_int_equal(r->connects, 1);
    assert_int_equal(cr_dgt_emu_mode_get(r->emu), CR_EMU_UPDATE_NICE);
    assert_string_equal(r->last_pos.board, "12345");
    uint8_t sq[64];
    cr_test_start_squares(sq);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    const cr_dgt_board_info *in = cr_board_link_info(r->link);
    assert_int_equal(in->version_major, 3);
    assert_string_equal(in->serial, "12345");
    /* A move: two field updates, two snapshots. Then a clock press. */
    int before = r->positions;
    sq[CR_SQ_G1] = 0;
    cr_dgt_emu_set_squares(r->emu, 1000, sq);
    sq[CR_SQ_F3] = CR_WN;
    cr_dgt_emu_set_squares(r->emu, 1200, sq);
    cr_dgt_emu_set_clock(r->emu, 1300, 5395000, 5400000, CR_BLACK);
    flush_board(r);
    RUN_UNTIL(r, 1000, r->positions >= before + 2 && r->clocks >= 1);
    assert_int_equal(r->positions, before + 2);
    assert_int_equal(r->last_pos.u.squares[CR_SQ_F3], CR_WN);
    assert_true(r->clocks >= 1);
    /* Garbage on the line: resync and a fresh dump. */
    uint64_t dumps = in->dumps;
    const uint8_t junk[] = {0x8E, 0x00, 0x05, 0x12, 0x33, 0x7F, 0x01};
    assert_int_equal(write(r->master, junk, sizeof junk), (ssize_t)sizeof junk);
    RUN_UNTIL(r, 1000, in->dumps > dumps);
    assert_true(in->dumps > dumps);
    assert_true(in->resyncs > 0);
    assert_memory_equal(r->last_pos.u.squares, sq, 64);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.state, CR_LINK_ACTIVE);
    assert_true(h.delay_ms >= 0);
    assert_true(h.snapshot_rate > 0);
}

static void test_not_responding_lost_back(void **state)
{
    rig *r = *state;
    start_link(r, 1);
    RUN_UNTIL(r, 2000, r->positions >= 1);
    assert_int_equal(r->connects, 1);
    /* The board goes silent: pinged, re-initialised (a disconnect), then lost. */
    r->board_dead = true;
    RUN_UNTIL(r, 2000, cr_board_link_health(r->link).state == CR_LINK_LOST);
    assert_int_equal(r->disconnects, 1);
    bool saw_not_responding = false;
    for (int i = 0; i < r->nstates; i++) {
        saw_not_responding = saw_not_responding || r->states[i] == CR_LINK_NOT_RESPONDING;
    }
    assert_true(saw_not_responding);
    assert_int_equal(r->states[r->nstates - 1], CR_LINK_LOST);
    /* It comes back (after a power cycle): reopened, identified, dumped again. */
    cr_dgt_emu_power_up(r->emu);
    r->board_dead = false;
    int pos = r->positions;
    RUN_UNTIL(r, 2000, r->connects >= 2 && r->positions > pos);
    assert_int_equal(r->connects, 2);
    assert_true(r->positions > pos);
    assert_int_equal(cr_dgt_emu_mode_get(r->emu), CR_EMU_UPDATE_NICE);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.state, CR_LINK_ACTIVE);
    assert_int_equal(h.disconnects, 1);
}

/* A board whose line goes dead for a while (Bluetooth drop-out, loose
 * cable) and comes back chattering field updates in its old mode: the
 * silence is a DISCONNECT, the answer a CONNECT with a fresh dump. */
static void test_silence_is_disconnect(void **state)
{
    rig *r = *state;
    start_link(r, 2);
    RUN_UNTIL(r, 2000, r->positions >= 1 && cr_dgt_emu_mode_get(r->emu) == CR_EMU_UPDATE_NICE);
    assert_int_equal(r->connects, 1);
    cr_dgt_emu_set_muted(r->emu, true);
    RUN_UNTIL(r, 1000, r->disconnects >= 1);
    assert_int_equal(r->disconnects, 1);
    assert_int_equal(cr_board_link_health(r->link).state, CR_LINK_NOT_RESPONDING);
    /* Meanwhile a move is made; then the line is back and the board, which
     * never saw the probe, sends its updates. */
    uint8_t sq[64];
    cr_test_start_squares(sq);
    sq[CR_SQ_E2] = 0;
    sq[CR_SQ_E4] = CR_WP;
    cr_dgt_emu_set_squares(r->emu, 0, sq);
    cr_dgt_emu_set_muted(r->emu, false);
    flush_board(r);
    for (int i = 0; i < 20 && r->connects < 2; i++) {
        sq[CR_SQ_A8] = i % 2 ? CR_BR : 0; /* a rook straightened, again and again */
        cr_dgt_emu_set_squares(r->emu, 0, sq);
        flush_board(r);
        run_ms(r, 30);
    }
    RUN_UNTIL(r, 1000, r->connects >= 2 && r->last_pos.u.squares[CR_SQ_E4] == CR_WP);
    assert_int_equal(r->connects, 2);
    assert_int_equal(r->disconnects, 1);
    assert_int_equal(r->last_pos.u.squares[CR_SQ_E4], CR_WP);
    assert_int_equal(r->last_pos.u.squares[CR_SQ_E2], 0);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.state, CR_LINK_ACTIVE);
    assert_int_equal(h.disconnects, 1);
}

static void test_hangup(void **state)
{
    rig *r = *state;
    start_link(r, 10);
    RUN_UNTIL(r, 2000, r->positions >= 1);
    assert_int_equal(r->connects, 1);
    /* The other end goes away (unplugged adapter): reported at once. */
    event_free(r->rd);
    r->rd = NULL;
    close(r->master);
    r->master = -1;
    unlink(r->slave); /* the device node is gone with the adapter */
    RUN_UNTIL(r, 500, r->disconnects >= 1);
    assert_int_equal(r->disconnects, 1);
    assert_int_equal(cr_board_link_health(r->link).state, CR_LINK_LOST);
    assert_true(strlen(cr_board_link_error(r->link)) > 0);
    /* Reopening the vanished pty keeps failing quietly. */
    run_ms(r, 100);
    assert_int_equal(r->connects, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_configures_tty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connect_dump_updates, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_responding_lost_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_silence_is_disconnect, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hangup, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
