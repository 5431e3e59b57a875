/* Tests of the relay's live board sources (relay/core/source_boards.h): a board
 * emulated on a pty (the test holds the master side and answers with the
 * emulator core), its events stamped by the caller's clock, its health as
 * JSON and Prometheus text, and the errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/config.h"
#include "dgt_emu.h"
#include "util/log.h"
#include "core/source_boards.h"
#include "test_pty.h"

typedef struct rig {
    struct event_base *base;
    int master;
    char slave[128];
    struct event *rd;
    cr_dgt_emu *emu;
    int64_t now;       /* the clock given to the sources */
    cr_feed_event evs[64];
    int nevs;
    int raws, positions, connects, disconnects;
    int states_active;
} rig;

static void on_master(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    rig *r = arg;
    uint8_t buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
        cr_dgt_emu_input(r->emu, 0, buf, (size_t)n);
        uint8_t out[2048];
        size_t k;
        while ((k = cr_dgt_emu_take_output(r->emu, out, sizeof out)) > 0) {
            assert_int_equal(write(r->master, out, k), (ssize_t)k);
        }
    }
}

static int64_t test_clock(void *data)
{
    rig *r = data;
    return r->now;
}

static void on_event(void *data, const cr_feed_event *ev)
{
    rig *r = data;
    if (r->nevs < 64) {
        r->evs[r->nevs++] = *ev;
    }
    r->raws += ev->kind == CR_FEED_RAW;
    r->positions += ev->kind == CR_FEED_POS;
    r->connects += ev->kind == CR_FEED_CONNECT;
    r->disconnects += ev->kind == CR_FEED_DISCONNECT;
}

static void on_state(void *data, const char *name, const cr_dgt_health *h)
{
    rig *r = data;
    assert_true(strncmp(name, "serial:", 7) == 0);
    r->states_active += h->state == CR_LINK_ACTIVE;
}

static void run_until(rig *r, int ms, const int *counter, int want)
{
    for (int waited = 0; waited < ms && *counter < want; waited += 10) {
        struct timeval tv = {0, 10000};
        event_base_loopexit(r->base, &tv);
        event_base_dispatch(r->base);
    }
}

static int setup(void **state)
{
    cr_log_set_level(CR_LOG_ERROR);
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->base = event_base_new();
    r->master = cr_test_pty_open(r->slave, sizeof r->slave, NULL, NULL);
    r->rd = event_new(r->base, r->master, EV_READ | EV_PERSIST, on_master, r);
    event_add(r->rd, NULL);
    cr_dgt_emu_config ecfg = {.serial = "DGT4242", .version_major = 3, .version_minor = 1};
    r->emu = cr_dgt_emu_new(&ecfg);
    uint8_t sq[64] = {0};
    sq[4] = CR_WK;
    sq[60] = CR_BK;
    cr_dgt_emu_set_squares(r->emu, 0, sq);
    r->now = 1795970000000;
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    rig *r = *state;
    event_free(r->rd);
    if (r->master >= 0) {
        close(r->master);
    }
    cr_dgt_emu_free(r->emu);
    event_base_free(r->base);
    free(r);
    return 0;
}

static cr_board_sources *start(rig *r, const char *const *paths, int n)
{
    cr_board_sources_config cfg = {.serials = paths, .serial_count = n, .clock = test_clock,
                                   .event = on_event, .state = on_state, .data = r};
    cr_error err;
    cr_board_sources *s = cr_board_sources_start(r->base, &cfg, &err);
    assert_non_null(s);
    return s;
}

static void test_live_board_events_and_health(void **state)
{
    rig *r = *state;
    const char *paths[] = {r->slave};
    cr_board_sources *s = start(r, paths, 1);
    assert_int_equal(cr_board_sources_count(s), 1);
    run_until(r, 3000, &r->positions, 1);
    assert_int_equal(r->connects, 1);
    assert_true(r->positions >= 1);
    assert_true(r->raws >= 1);
    assert_true(r->states_active >= 1);
    /* Named by the serial number, stamped by our clock; the bytes (RAW)
     * before the position they decode to, the CONNECT first. */
    assert_int_equal(r->evs[0].kind, CR_FEED_CONNECT);
    int first_pos = -1, first_raw = -1;
    for (int i = 0; i < r->nevs; i++) {
        assert_string_equal(r->evs[i].board, "DGT4242");
        assert_int_equal(r->evs[i].t, 1795970000000);
        if (r->evs[i].kind == CR_FEED_POS && first_pos < 0) {
            first_pos = i;
            assert_int_equal(r->evs[i].u.squares[4], CR_WK);
            assert_int_equal(r->evs[i].u.squares[60], CR_BK);
        }
        if (r->evs[i].kind == CR_FEED_RAW && first_raw < 0) {
            first_raw = i;
        }
    }
    assert_true(first_raw >= 0 && first_raw < first_pos);

    const char *name;
    cr_dgt_health h = cr_board_sources_health(s, 0, &name);
    assert_int_equal(h.state, CR_LINK_ACTIVE);
    assert_string_equal(h.id, "DGT4242");
    char want[160];
    snprintf(want, sizeof want, "serial:%s", r->slave);
    assert_string_equal(name, want);

    char *text = cr_board_sources_json(s);
    assert_non_null(text);
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    assert_non_null(j);
    assert_int_equal(json_array_size(j), 1);
    json_t *o = json_array_get(j, 0);
    assert_string_equal(json_string_value(json_object_get(o, "board")), "DGT4242");
    assert_string_equal(json_string_value(json_object_get(o, "device")), want);
    assert_string_equal(json_string_value(json_object_get(o, "state")), "active");
    assert_int_equal(json_integer_value(json_object_get(o, "disconnects")), 0);
    assert_true(json_is_null(json_object_get(o, "battery")));
    assert_string_equal(json_string_value(json_object_get(o, "kind")), "dgt");
    assert_true(json_is_true(json_object_get(o, "clock")));
    assert_int_equal(json_integer_value(json_object_get(o, "bad_frames")), 0);
    json_decref(j);
    free(text);

    text = cr_board_sources_metrics(s);
    assert_non_null(text);
    char line[256];
    snprintf(line, sizeof line, "chessrelay_board_link_up{board=\"DGT4242\",device=\"%s\"} 1\n", want);
    assert_non_null(strstr(text, line));
    assert_non_null(strstr(text, "# TYPE chessrelay_board_disconnects_total counter\n"));
    snprintf(line, sizeof line, "chessrelay_board_kind{board=\"DGT4242\",device=\"%s\",kind=\"dgt\"} 1\n",
             want);
    assert_non_null(strstr(text, line));
    snprintf(line, sizeof line, "chessrelay_board_has_clock{board=\"DGT4242\",device=\"%s\"} 1\n", want);
    assert_non_null(strstr(text, line));
    free(text);

    /* Unplugged (the pty's master side closed): DISCONNECT, counted. */
    r->now += 5000;
    event_del(r->rd);
    close(r->master);
    r->master = -1;
    run_until(r, 3000, &r->disconnects, 1);
    assert_int_equal(r->disconnects, 1);
    assert_int_equal(r->evs[r->nevs - 1].kind, CR_FEED_DISCONNECT);
    assert_int_equal(r->evs[r->nevs - 1].t, 1795970005000);
    h = cr_board_sources_health(s, 0, NULL);
    assert_int_equal(h.disconnects, 1);
    assert_int_not_equal(h.state, CR_LINK_ACTIVE);
    cr_board_sources_free(s);
}

static void test_missing_device_waits(void **state)
{
    rig *r = *state;
    const char *paths[] = {"/nonexistent/ttyUSB9", r->slave};
    cr_board_sources *s = start(r, paths, 2);
    assert_int_equal(cr_board_sources_count(s), 2);
    run_until(r, 3000, &r->connects, 1);
    assert_int_equal(r->connects, 1); /* the other board is served meanwhile */
    cr_dgt_health h = cr_board_sources_health(s, 0, NULL);
    assert_int_not_equal(h.state, CR_LINK_ACTIVE);
    char *text = cr_board_sources_metrics(s);
    assert_non_null(text);
    assert_non_null(strstr(text, "device=\"serial:/nonexistent/ttyUSB9\"} 0\n"));
    free(text);
    /* Out of range: zeroed figures, no crash. */
    const char *name = NULL;
    h = cr_board_sources_health(s, 7, &name);
    assert_string_equal(name, "");
    assert_int_equal(h.battery_percent, -1);
    cr_board_sources_free(s);
}

static void test_errors(void **state)
{
    rig *r = *state;
    cr_error err;
    cr_board_sources_config cfg = {.clock = test_clock, .data = r};
    assert_null(cr_board_sources_start(r->base, &cfg, &err)); /* no event callback */
    assert_int_equal(err.code, CR_EINVAL);
    const char *paths[] = {""};
    cfg.event = on_event;
    cfg.serials = paths;
    cfg.serial_count = 1;
    assert_null(cr_board_sources_start(r->base, &cfg, &err));
    assert_non_null(strstr(err.text, "bad path"));
    /* Nothing at all is fine (an empty set), and freeing NULL too. */
    cfg.serial_count = 0;
    cr_board_sources *s = cr_board_sources_start(r->base, &cfg, &err);
    assert_non_null(s);
    assert_int_equal(cr_board_sources_count(s), 0);
    char *text = cr_board_sources_metrics(s);
    assert_string_equal(text, "");
    free(text);
    text = cr_board_sources_json(s);
    assert_string_equal(text, "[]");
    free(text);
    cr_board_sources_free(s);
    cr_board_sources_free(NULL);
}

/* The tournament file names live boards too ("devices", "usb"). */
static void test_config_devices(void **state)
{
    (void)state;
    cr_error err;
    cr_config *c = cr_config_parse("{\"devices\": [\"/dev/ttyUSB0\", \"/dev/rfcomm1\"], \"usb\": true}",
                                   "t.json", "/base", &err);
    assert_non_null(c);
    assert_int_equal(c->device_count, 2);
    assert_string_equal(c->devices[0], "/dev/ttyUSB0");
    assert_string_equal(c->devices[1], "/dev/rfcomm1");
    assert_true(c->usb);
    cr_config_free(c);
    c = cr_config_parse("{\"usb\": \"yes\"}", "t.json", NULL, &err);
    assert_null(c);
    assert_non_null(strstr(err.text, "usb"));
    c = cr_config_parse("{\"devices\": \"/dev/ttyUSB0\"}", "t.json", NULL, &err);
    assert_null(c);
    assert_non_null(strstr(err.text, "devices"));
    c = cr_config_parse("{}", "t.json", NULL, &err);
    assert_non_null(c);
    assert_int_equal(c->device_count, 0);
    assert_false(c->usb);
    cr_config_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_live_board_events_and_health, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_device_waits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test(test_config_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
