/* Tests of the DGT codec (drivers/dgt.h) and the per-board state (drivers/dgt_board.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "dgt.h"
#include "dgt_board.h"
#include "dgt_emu.h"
#include "test_squares.h"

/* The same as a DGT dump payload (index 0 = a8). */
static void start_dump(uint8_t d[64])
{
    uint8_t sq[64];
    cr_test_start_squares(sq);
    for (int i = 0; i < 64; i++) {
        d[i] = (uint8_t)cr_dgt_piece_from_cr(sq[cr_dgt_index_to_sq(i)]);
    }
}

static int feed_all(cr_dgt_parser *p, const uint8_t *b, size_t n, cr_dgt_msg *out, int max)
{
    assert_int_equal(cr_dgt_parser_feed(p, b, n), 0);
    int k = 0;
    while (k < max && cr_dgt_parser_next(p, &out[k]) == 1) {
        k++;
    }
    return k;
}

static void test_every_message_kind(void **state)
{
    (void)state;
    uint8_t buf[512];
    size_t n = 0;
    uint8_t dump[64];
    start_dump(dump);
    dump[10] |= 0x40; /* an undocumented high bit: masked away */
    int r;
    r = cr_dgt_encode_msg(buf + n, sizeof buf - n, CR_DGT_MSG_BOARD_DUMP, dump, 64); n += (size_t)r;
    r = cr_dgt_encode_field(buf + n, sizeof buf - n, 52, 1); n += (size_t)r;
    cr_dgt_clock c = {.left_ms = (1 * 3600 + 29 * 60 + 58) * 1000, .right_ms = (1 * 3600 + 30 * 60) * 1000,
                      .running = true, .right_high = true, .battery_low = true};
    r = cr_dgt_encode_bwtime(buf + n, sizeof buf - n, &c); n += (size_t)r;
    uint8_t ack[4] = {0x10, 0x8A, 0x90, 0x31};
    r = cr_dgt_encode_ack(buf + n, sizeof buf - n, ack); n += (size_t)r;
    r = cr_dgt_encode_serial(buf + n, sizeof buf - n, "23164"); n += (size_t)r;
    r = cr_dgt_encode_long_serial(buf + n, sizeof buf - n, "3000147740"); n += (size_t)r;
    r = cr_dgt_encode_version(buf + n, sizeof buf - n, 1, 2); n += (size_t)r;
    r = cr_dgt_encode_trademark(buf + n, sizeof buf - n, "Digital Game Technology\r\n"); n += (size_t)r;
    r = cr_dgt_encode_busaddr(buf + n, sizeof buf - n, 1025); n += (size_t)r;
    cr_dgt_battery bat = {.percent = 87, .run_h = -1, .run_min = 12, .charging = true};
    r = cr_dgt_encode_battery(buf + n, sizeof buf - n, &bat); n += (size_t)r;
    uint8_t ee[5] = {0x6A, 0x41, 0x34, 0x6F, 0x6B};
    r = cr_dgt_encode_msg(buf + n, sizeof buf - n, CR_DGT_MSG_EE_MOVES, ee, 5); n += (size_t)r;

    cr_dgt_parser *p = cr_dgt_parser_new();
    cr_dgt_msg m[16];
    int k = feed_all(p, buf, n, m, 16);
    assert_int_equal(k, 11);
    assert_int_equal(m[0].kind, CR_DGT_DUMP);
    assert_int_equal(m[0].u.squares[10], 7); /* c7: black pawn, masked */
    assert_int_equal(m[0].u.squares[60], 5); /* e1: white king */
    assert_int_equal(m[1].kind, CR_DGT_FIELD);
    assert_int_equal(m[1].u.field.index, 52);
    assert_int_equal(m[1].u.field.piece, 1);
    assert_int_equal(m[2].kind, CR_DGT_CLOCK);
    assert_true(m[2].u.clock.valid);
    assert_int_equal(m[2].u.clock.left_ms, c.left_ms);
    assert_int_equal(m[2].u.clock.right_ms, c.right_ms);
    assert_true(m[2].u.clock.running);
    assert_true(m[2].u.clock.right_high);
    assert_true(m[2].u.clock.battery_low);
    assert_int_equal(m[3].kind, CR_DGT_CLOCK_ACK);
    assert_memory_equal(m[3].u.ack.ack, ack, 4);
    assert_true(m[3].u.ack.ok);
    assert_true(m[3].u.ack.from_clock);
    assert_int_equal(m[4].kind, CR_DGT_SERIAL);
    assert_string_equal(m[4].u.text, "23164");
    assert_int_equal(m[5].kind, CR_DGT_LONG_SERIAL);
    assert_string_equal(m[5].u.text, "3000147740");
    assert_int_equal(m[6].kind, CR_DGT_VERSION);
    assert_int_equal(m[6].u.version.major, 1);
    assert_int_equal(m[6].u.version.minor, 2);
    assert_int_equal(m[7].kind, CR_DGT_TRADEMARK);
    assert_string_equal(m[7].u.text, "Digital Game Technology");
    assert_int_equal(m[8].kind, CR_DGT_BUSADDR);
    assert_int_equal(m[8].u.busaddr, 1025);
    assert_int_equal(m[9].kind, CR_DGT_BATTERY);
    assert_int_equal(m[9].u.battery.percent, 87);
    assert_int_equal(m[9].u.battery.run_h, -1);
    assert_int_equal(m[9].u.battery.run_min, 12);
    assert_true(m[9].u.battery.charging);
    assert_int_equal(m[10].kind, CR_DGT_EE_MOVES);
    assert_int_equal(m[10].u.ee.len, 5);
    assert_memory_equal(m[10].u.ee.bytes, ee, 5);
    assert_int_equal(cr_dgt_parser_stats_get(p).resyncs, 0);
    assert_int_equal(cr_dgt_parser_pending(p), 0);
    cr_dgt_parser_free(p);
}

static void test_bwtime_wire_bytes(void **state)
{
    (void)state;
    /* Right 0:05:09, left 1:29:58, running, left lever up, right flag: by hand. */
    const uint8_t raw[] = {0x8D, 0x00, 0x0A, 0x10, 0x05, 0x09, 0x01, 0x29, 0x58, 0x01};
    cr_dgt_msg m;
    assert_int_equal(cr_dgt_decode(raw, sizeof raw, &m), 1);
    assert_int_equal(m.kind, CR_DGT_CLOCK);
    assert_int_equal(m.u.clock.right_ms, 309000);
    assert_int_equal(m.u.clock.left_ms, (3600 + 29 * 60 + 58) * 1000);
    assert_true(m.u.clock.right_flag);
    assert_false(m.u.clock.left_flag);
    assert_true(m.u.clock.running);
    assert_false(m.u.clock.right_high);
    assert_true(m.u.clock.valid);
    /* No clock connected; all zero; bad BCD: not valid. */
    const uint8_t noclk[] = {0x8D, 0x00, 0x0A, 0, 0, 0, 0, 0, 0, 0x20};
    assert_int_equal(cr_dgt_decode(noclk, sizeof noclk, &m), 1);
    assert_true(m.u.clock.no_clock);
    assert_false(m.u.clock.valid);
    const uint8_t zero[] = {0x8D, 0x00, 0x0A, 0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(cr_dgt_decode(zero, sizeof zero, &m), 1);
    assert_false(m.u.clock.valid);
    const uint8_t badbcd[] = {0x8D, 0x00, 0x0A, 0, 0x6A & 0x7F, 0, 0, 0, 0, 1};
    assert_int_equal(cr_dgt_decode(badbcd, sizeof badbcd, &m), 1);
    assert_false(m.u.clock.valid);
    /* The turn bits a DGT 3000 sets: bit3 right's turn, bit4 left's; none
     * while stopped. The reading is the same with or without them. */
    uint8_t enc[16];
    cr_dgt_clock clk = {.left_ms = 60000, .right_ms = 120000, .running = true, .right_high = true};
    assert_int_equal(cr_dgt_encode_bwtime(enc, sizeof enc, &clk), 10);
    assert_int_equal(enc[9], 0x01 | 0x02 | 0x08);
    assert_int_equal(cr_dgt_decode(enc, 10, &m), 1);
    assert_true(m.u.clock.running && m.u.clock.right_high && m.u.clock.valid);
    assert_int_equal(m.u.clock.right_ms, 120000);
    clk.right_high = false;
    assert_int_equal(cr_dgt_encode_bwtime(enc, sizeof enc, &clk), 10);
    assert_int_equal(enc[9], 0x01 | 0x10);
    assert_int_equal(cr_dgt_decode(enc, 10, &m), 1);
    assert_true(m.u.clock.running && !m.u.clock.right_high);
    clk.running = false;
    assert_int_equal(cr_dgt_encode_bwtime(enc, sizeof enc, &clk), 10);
    assert_int_equal(enc[9], 0x00);
    /* Ack of a SETNRUN (ack1 = 0x0A echoes the command) marked by d3. */
    const uint8_t ack[] = {0x8D, 0x00, 0x0A, 0x00, 0x10, 0x0A, 0x0A, 0x00, 0x00, 0x00};
    assert_int_equal(cr_dgt_decode(ack, sizeof ack, &m), 1);
    assert_int_equal(m.kind, CR_DGT_CLOCK_ACK);
    assert_true(m.u.ack.ok);
    assert_false(m.u.ack.from_clock);
    assert_int_equal(m.u.ack.command, CR_DGT_CLOCK_SETNRUN);
}

static void test_split_messages(void **state)
{
    (void)state;
    uint8_t buf[256];
    uint8_t dump[64];
    start_dump(dump);
    int n = cr_dgt_encode_dump(buf, sizeof buf, dump);
    n += cr_dgt_encode_field(buf + n, sizeof buf - (size_t)n, 12, 0);
    cr_dgt_parser *p = cr_dgt_parser_new();
    cr_dgt_msg m;
    int got = 0;
    for (int i = 0; i < n; i++) { /* one byte at a time */
        assert_int_equal(cr_dgt_parser_feed(p, buf + i, 1), 0);
        while (cr_dgt_parser_next(p, &m) == 1) {
            got++;
            if (got == 1) {
                assert_int_equal(i, 66);
                assert_int_equal(m.kind, CR_DGT_DUMP);
            } else {
                assert_int_equal(m.kind, CR_DGT_FIELD);
                assert_int_equal(i, n - 1);
            }
        }
    }
    assert_int_equal(got, 2);
    assert_int_equal(cr_dgt_parser_stats_get(p).resyncs, 0);
    cr_dgt_parser_free(p);
}

static void test_garbage_and_resync(void **state)
{
    (void)state;
    uint8_t buf[256];
    size_t n = 0;
    const uint8_t junk[] = {0x00, 0x13, 0x7F, 0x41};
    memcpy(buf + n, junk, sizeof junk); n += sizeof junk;
    n += (size_t)cr_dgt_encode_field(buf + n, sizeof buf - n, 1, 2);
    buf[n++] = 0x8E; /* a header cut after its first byte */
    n += (size_t)cr_dgt_encode_field(buf + n, sizeof buf - n, 2, 3);
    const uint8_t cut[] = {0x8E, 0x00, 0x05, 0x07}; /* cut inside the payload */
    memcpy(buf + n, cut, sizeof cut); n += sizeof cut;
    n += (size_t)cr_dgt_encode_version(buf + n, sizeof buf - n, 3, 1);
    const uint8_t unknown[] = {0xC4, 0x00, 0x05, 0x01, 0x02}; /* unknown id */
    memcpy(buf + n, unknown, sizeof unknown); n += sizeof unknown;
    const uint8_t badlen[] = {0x8E, 0x00, 0x02, 0x86, 0x00, 0x01}; /* length < 3, dump length 1 */
    memcpy(buf + n, badlen, sizeof badlen); n += sizeof badlen;
    const uint8_t badsq[] = {0x8E, 0x00, 0x05, 0x40, 0x01}; /* index 64 */
    memcpy(buf + n, badsq, sizeof badsq); n += sizeof badsq;
    n += (size_t)cr_dgt_encode_field(buf + n, sizeof buf - n, 63, 12);

    cr_dgt_parser *p = cr_dgt_parser_new();
    cr_dgt_msg m[8];
    int k = feed_all(p, buf, n, m, 8);
    assert_int_equal(k, 4);
    assert_int_equal(m[0].u.field.index, 1);
    assert_int_equal(m[1].u.field.index, 2);
    assert_int_equal(m[2].kind, CR_DGT_VERSION);
    assert_int_equal(m[3].u.field.index, 63);
    assert_int_equal(m[3].u.field.piece, 12);
    cr_dgt_parser_stats s = cr_dgt_parser_stats_get(p);
    assert_true(s.resyncs >= 6);
    assert_true(cr_dgt_parser_take_resyncs(p) > 0);
    assert_int_equal(cr_dgt_parser_take_resyncs(p), 0);
    assert_int_equal(cr_dgt_parser_pending(p), 0);
    cr_dgt_parser_free(p);
}

static void test_truncated_waits_and_limits(void **state)
{
    (void)state;
    cr_dgt_parser *p = cr_dgt_parser_new();
    cr_dgt_msg m;
    const uint8_t part[] = {0x86, 0x00, 0x43, 0x01, 0x02};
    assert_int_equal(cr_dgt_parser_feed(p, part, sizeof part), 0);
    assert_int_equal(cr_dgt_parser_next(p, &m), 0);
    assert_int_equal(cr_dgt_parser_pending(p), sizeof part);
    /* EE_MOVES over the payload limit: dropped as garbage. */
    const uint8_t big[] = {0x8F, 0x7F, 0x7F};
    cr_dgt_parser_reset(p);
    assert_int_equal(cr_dgt_parser_feed(p, big, sizeof big), 0);
    assert_int_equal(cr_dgt_parser_next(p, &m), 0);
    assert_int_equal(cr_dgt_parser_pending(p), 0);
    /* decode() rejects bad input without reading past it. */
    assert_int_equal(cr_dgt_decode(part, sizeof part, &m), CR_EPROTO);
    assert_int_equal(cr_dgt_decode(part, 2, &m), CR_EPROTO);
    const uint8_t hibit[] = {0x8E, 0x00, 0x05, 0x01, 0x81};
    assert_int_equal(cr_dgt_decode(hibit, sizeof hibit, &m), CR_EPROTO);
    assert_int_equal(cr_dgt_parser_feed(p, NULL, 3), CR_EINVAL);
    cr_dgt_parser_free(p);
}

static void test_command_encoders(void **state)
{
    (void)state;
    uint8_t b[32];
    assert_int_equal(cr_dgt_encode_cmd(b, sizeof b, CR_DGT_SEND_UPDATE_NICE), 1);
    assert_int_equal(b[0], 0x4B);
    assert_int_equal(cr_dgt_encode_cmd(b, sizeof b, 0x2B), CR_EINVAL);
    assert_int_equal(cr_dgt_encode_cmd(b, 0, 0x42), CR_ENOSPC);
    int n = cr_dgt_encode_clock_setnrun(b, sizeof b, (3600 + 30 * 60 + 5) * 1000, 65000, 0x01);
    const uint8_t setnrun[] = {0x2B, 0x0A, 0x03, 0x0A, 1, 30, 5, 0, 1, 5, 0x01, 0x00};
    assert_int_equal(n, sizeof setnrun);
    assert_memory_equal(b, setnrun, sizeof setnrun);
    n = cr_dgt_encode_clock_end(b, sizeof b);
    const uint8_t end[] = {0x2B, 0x03, 0x03, 0x03, 0x00};
    assert_int_equal(n, 5);
    assert_memory_equal(b, end, 5);
    n = cr_dgt_encode_clock_beep(b, sizeof b, 4);
    const uint8_t beep[] = {0x2B, 0x04, 0x03, 0x0B, 0x04, 0x00};
    assert_int_equal(n, 6);
    assert_memory_equal(b, beep, 6);
    n = cr_dgt_encode_clock_ascii(b, sizeof b, "e2e4", 2);
    const uint8_t ascii[] = {0x2B, 0x0C, 0x03, 0x0C, 'e', '2', 'e', '4', ' ', ' ', ' ', ' ', 2, 0};
    assert_int_equal(n, sizeof ascii);
    assert_memory_equal(b, ascii, sizeof ascii);
    n = cr_dgt_encode_leds(b, sizeof b, 0, 0x40, 0x40);
    const uint8_t leds[] = {0x60, 0x04, 0x00, 0x40, 0x40, 0x00};
    assert_int_equal(n, 6);
    assert_memory_equal(b, leds, 6);
    assert_int_equal(cr_dgt_encode_clock_ascii(b, 10, "x", 0), CR_ENOSPC);
    assert_int_equal(cr_dgt_encode_clock_button(b, sizeof b), 5);
    assert_int_equal(b[3], CR_DGT_CLOCK_BUTTON);
    assert_int_equal(cr_dgt_encode_clock_version(b, sizeof b), 5);
    assert_int_equal(b[3], CR_DGT_CLOCK_VERSION);

    /* The board side parses them back. */
    cr_dgt_command cmd;
    assert_int_equal(cr_dgt_parse_command(setnrun, sizeof setnrun, &cmd), (int)sizeof setnrun);
    assert_int_equal(cmd.cmd, 0x2B);
    assert_int_equal(cmd.sub, CR_DGT_CLOCK_SETNRUN);
    assert_int_equal(cmd.len, 7);
    assert_int_equal(cmd.data[1], 30);
    assert_int_equal(cr_dgt_parse_command(setnrun, 5, &cmd), 0);
    assert_int_equal(cr_dgt_parse_command(leds, sizeof leds, &cmd), 6);
    assert_int_equal(cmd.len, 3);
    const uint8_t single[] = {0x42};
    assert_int_equal(cr_dgt_parse_command(single, 1, &cmd), 1);
    const uint8_t bad[] = {0x99};
    assert_int_equal(cr_dgt_parse_command(bad, 1, &cmd), CR_EPROTO);
}

static void test_orientation(void **state)
{
    (void)state;
    uint8_t sq[64], rot[64];
    cr_test_start_squares(sq);
    assert_int_equal(cr_dgt_start_orientation(sq), 1);
    for (int i = 0; i < 64; i++) {
        rot[i] = sq[63 - i];
    }
    assert_int_equal(cr_dgt_start_orientation(rot), -1);
    sq[12] = 0;
    assert_int_equal(cr_dgt_start_orientation(sq), 0);
    assert_int_equal(cr_dgt_piece_to_cr(13), CR_NO_PIECE);
    for (int p = 1; p <= 12; p++) {
        assert_int_equal(cr_dgt_piece_from_cr(cr_dgt_piece_to_cr(p)), p);
    }
}

/*----- cr_dgt_board -----*/

typedef struct collected {
    cr_feed_event ev[64];
    int n;
    size_t raw_bytes;
} collected;

static void collect(void *data, const cr_feed_event *ev)
{
    collected *c = data;
    if (ev->kind == CR_FEED_RAW) {
        c->raw_bytes += ev->u.raw.len;
    }
    if (c->n < 64) {
        c->ev[c->n++] = *ev;
    }
}

/* A board that has sent the start position (events to c when not NULL). */
static cr_dgt_board *board_at_start(const char *id, collected *c)
{
    cr_dgt_board *b = cr_dgt_board_new(id, NULL);
    assert_non_null(b);
    uint8_t buf[128], dump[64];
    start_dump(dump);
    int n = cr_dgt_encode_dump(buf, sizeof buf, dump);
    assert_int_equal(cr_dgt_board_feed_raw(b, 0, buf, (size_t)n, c ? collect : NULL, c), 1);
    return b;
}

static void test_board_events(void **state)
{
    (void)state;
    cr_dgt_board_config cfg = {.emit_raw = true};
    cr_dgt_board *b = cr_dgt_board_new("DGT23164", &cfg);
    assert_non_null(b);
    assert_null(cr_dgt_board_new("bad id", NULL));
    uint8_t buf[512];
    uint8_t dump[64];
    start_dump(dump);
    int n = cr_dgt_encode_dump(buf, sizeof buf, dump);
    /* e2-e4 as two field updates, split across calls. */
    n += cr_dgt_encode_field(buf + n, sizeof buf - (size_t)n, cr_dgt_sq_to_index(CR_SQ_E2), 0);
    n += cr_dgt_encode_field(buf + n, sizeof buf - (size_t)n, cr_dgt_sq_to_index(CR_SQ_E4), 1);
    collected c = {0};
    assert_int_equal(cr_dgt_board_feed_raw(b, 100, buf, 70, collect, &c), 1);
    assert_int_equal(cr_dgt_board_feed_raw(b, 200, buf + 70, (size_t)n - 70, collect, &c), 2);
    assert_int_equal(c.raw_bytes, (size_t)n);
    /* One RAW per message, then its POS; the split message's parts apart. */
    assert_int_equal(c.n, 7); /* RAW(67) POS RAW(3) | RAW(2) POS RAW(5) POS */
    assert_int_equal(c.ev[0].kind, CR_FEED_RAW);
    assert_int_equal(c.ev[0].u.raw.len, 67);
    assert_int_equal(c.ev[2].kind, CR_FEED_RAW);
    assert_int_equal(c.ev[2].u.raw.len, 3);
    assert_int_equal(c.ev[3].kind, CR_FEED_RAW);
    assert_int_equal(c.ev[3].u.raw.len, 2);
    assert_int_equal(c.ev[5].kind, CR_FEED_RAW);
    assert_int_equal(c.ev[5].u.raw.len, 5);
    assert_int_equal(c.ev[1].kind, CR_FEED_POS);
    assert_int_equal(c.ev[1].t, 100);
    assert_string_equal(c.ev[1].board, "DGT23164");
    uint8_t sq[64];
    cr_test_start_squares(sq);
    assert_memory_equal(c.ev[1].u.squares, sq, 64);
    assert_int_equal(c.ev[4].kind, CR_FEED_POS);
    assert_int_equal(c.ev[4].u.squares[CR_SQ_E2], CR_NO_PIECE);
    assert_int_equal(c.ev[6].u.squares[CR_SQ_E4], CR_WP);
    assert_int_equal(c.ev[6].t, 200);
    assert_false(cr_dgt_board_take_want_dump(b));

    /* Clock: left runs for White (lever up on the left); repeats are dropped. */
    cr_dgt_clock clk = {.left_ms = 5400000, .right_ms = 5390000, .running = true, .right_high = false};
    n = cr_dgt_encode_bwtime(buf, sizeof buf, &clk);
    n += cr_dgt_encode_bwtime(buf + n, sizeof buf - (size_t)n, &clk);
    c.n = 0;
    assert_int_equal(cr_dgt_board_feed_raw(b, 300, buf, (size_t)n, collect, &c), 2);
    assert_int_equal(c.n, 3); /* RAW CLOCK RAW */
    assert_int_equal(c.ev[2].kind, CR_FEED_RAW);
    assert_int_equal(c.ev[1].kind, CR_FEED_CLOCK);
    assert_int_equal(c.ev[1].u.clock.white_ms, 5400000);
    assert_int_equal(c.ev[1].u.clock.black_ms, 5390000);
    assert_int_equal(c.ev[1].u.clock.running, CR_WHITE);

    /* Garbage: resync asks for a dump; the update after it still counts. */
    uint8_t g[16] = {0x12, 0x8E, 0x00};
    n = 3 + cr_dgt_encode_field(g + 3, sizeof g - 3, cr_dgt_sq_to_index(CR_SQ_E4), 0);
    c.n = 0;
    assert_int_equal(cr_dgt_board_feed_raw(b, 400, g, (size_t)n, collect, &c), 1);
    assert_true(cr_dgt_board_take_want_dump(b));
    assert_false(cr_dgt_board_take_want_dump(b));
    assert_int_equal(c.n, 2);
    assert_int_equal(c.ev[0].u.raw.len, (size_t)n); /* the garbage goes with the message after it */
    assert_int_equal(c.ev[1].u.squares[CR_SQ_E4], CR_NO_PIECE);
    assert_true(cr_dgt_board_info_get(b)->resyncs > 0);
    cr_dgt_board_free(b);
}

/* A byte lost at the end of a dump, then a stray byte a second later: taken
 * as the dump's last byte, it would shift every square after the lost one
 * (seen in e2e emulator_record: a knight "moved" and a game misread). */
static void test_board_cuts_a_message_the_line_cut(void **state)
{
    (void)state;
    collected c = {0};
    cr_dgt_board *b = board_at_start("CUT1", &c);
    assert_false(cr_dgt_board_take_want_dump(b));
    uint8_t buf[512], dump[64];
    start_dump(dump);
    int n = cr_dgt_encode_dump(buf, sizeof buf, dump);
    uint8_t sq[64];
    cr_test_start_squares(sq);

    /* The same dump without its byte for c7 (index 10). */
    memmove(buf + 3 + 10, buf + 3 + 11, (size_t)n - 14);
    assert_int_equal(cr_dgt_board_feed_raw(b, 1000, buf, (size_t)n - 1, collect, &c), 0);
    assert_int_equal(cr_dgt_board_pending(b), (size_t)n - 1);
    uint8_t late[32] = {0x01}; /* stray: a white pawn's code */
    cr_dgt_clock clk = {.left_ms = 60000, .right_ms = 60000, .running = true};
    int m = 1 + cr_dgt_encode_bwtime(late + 1, sizeof late - 1, &clk);
    c.n = 0;
    assert_int_equal(cr_dgt_board_feed_raw(b, 1000 + CR_DGT_CUT_MS, late, (size_t)m, collect, &c), 1);
    assert_int_equal(c.n, 1);
    assert_int_equal(c.ev[0].kind, CR_FEED_CLOCK);
    assert_memory_equal(cr_dgt_board_info_get(b)->squares, sq, 64);
    assert_int_equal(cr_dgt_board_info_get(b)->dumps, 1);
    assert_true(cr_dgt_board_take_want_dump(b));
    assert_int_equal(cr_dgt_board_pending(b), 0);

    /* A field update cut after its square: the next bytes are no piece. */
    n = cr_dgt_encode_field(buf, sizeof buf, cr_dgt_sq_to_index(CR_SQ_E4), 1);
    assert_int_equal(cr_dgt_board_feed_raw(b, 2000, buf, (size_t)n - 1, collect, &c), 0);
    clk.left_ms = 59000;
    m = 1 + cr_dgt_encode_bwtime(late + 1, sizeof late - 1, &clk);
    c.n = 0;
    assert_int_equal(cr_dgt_board_feed_raw(b, 2500, late, (size_t)m, collect, &c), 1);
    assert_int_equal(c.n, 1);
    assert_int_equal(cr_dgt_board_info_get(b)->squares[CR_SQ_E4], CR_NO_PIECE);
    assert_true(cr_dgt_board_take_want_dump(b));

    /* A message split by a shorter pause is one message. */
    n = cr_dgt_encode_dump(buf, sizeof buf, dump);
    assert_int_equal(cr_dgt_board_feed_raw(b, 3000, buf, 30, collect, &c), 0);
    assert_int_equal(cr_dgt_board_feed_raw(b, 3000 + CR_DGT_CUT_MS - 1, buf + 30, (size_t)n - 30, collect, &c), 1);
    assert_int_equal(cr_dgt_board_info_get(b)->dumps, 2);
    assert_false(cr_dgt_board_take_want_dump(b));
    /* A message longer than a dump (a long trademark; the 8 KB event log)
     * may pause between reads: it is not cut. */
    uint8_t text[100];
    memset(text, 'D', sizeof text);
    n = cr_dgt_encode_msg(buf, sizeof buf, CR_DGT_MSG_TRADEMARK, text, sizeof text);
    assert_int_equal(n, 103);
    assert_int_equal(cr_dgt_board_feed_raw(b, 4000, buf, 50, collect, &c), 0);
    assert_int_equal(cr_dgt_board_feed_raw(b, 5000, buf + 50, (size_t)n - 50, collect, &c), 1);
    assert_int_equal(strlen(cr_dgt_board_info_get(b)->trademark), sizeof text);
    assert_false(cr_dgt_board_take_want_dump(b));
    cr_dgt_board_free(b);

    /* The parser's part: a message longer than max_len stays. */
    cr_dgt_parser *p = cr_dgt_parser_new();
    n = cr_dgt_encode_dump(buf, sizeof buf, dump);
    assert_int_equal(cr_dgt_parser_feed(p, buf, 40), 0);
    cr_dgt_msg msg;
    assert_int_equal(cr_dgt_parser_next(p, &msg), 0);
    assert_int_equal(cr_dgt_parser_cut(p, 66), 0);
    assert_int_equal(cr_dgt_parser_pending(p), 40);
    assert_int_equal(cr_dgt_parser_cut(p, 67), 40);
    assert_int_equal(cr_dgt_parser_pending(p), 0);
    assert_int_equal(cr_dgt_parser_take_resyncs(p), 1);
    assert_int_equal(cr_dgt_parser_stats_get(p).skipped, 40);
    assert_int_equal(cr_dgt_parser_feed(p, buf, 2), 0); /* length not in yet */
    assert_int_equal(cr_dgt_parser_next(p, &msg), 0);
    assert_int_equal(cr_dgt_parser_cut(p, 5), 2);
    assert_int_equal(cr_dgt_parser_cut(p, 5), 0);
    assert_int_equal(cr_dgt_parser_position(p), 42);
    cr_dgt_parser_free(p);
}

static void test_board_rotated_clock_and_info(void **state)
{
    (void)state;
    cr_dgt_board *b = cr_dgt_board_new("B298", NULL);
    uint8_t sq[64], dump[64], buf[256];
    cr_test_start_squares(sq);
    for (int i = 0; i < 64; i++) { /* rotated: index i shows what sq 63 - i holds */
        dump[i] = (uint8_t)cr_dgt_piece_from_cr(sq[63 - cr_dgt_index_to_sq(i)]);
    }
    int n = cr_dgt_encode_dump(buf, sizeof buf, dump);
    cr_dgt_clock clk = {.left_ms = 1000, .right_ms = 2000, .running = true, .right_high = true};
    n += cr_dgt_encode_bwtime(buf + n, sizeof buf - (size_t)n, &clk);
    n += cr_dgt_encode_serial(buf + n, sizeof buf - (size_t)n, "00298");
    n += cr_dgt_encode_version(buf + n, sizeof buf - (size_t)n, 1, 7);
    collected c = {0};
    assert_int_equal(cr_dgt_board_feed_raw(b, 5, buf, (size_t)n, collect, &c), 4);
    assert_int_equal(c.n, 2); /* no RAW by default */
    const cr_dgt_board_info *in = cr_dgt_board_info_get(b);
    assert_true(in->rotated);
    assert_string_equal(in->serial, "00298");
    assert_int_equal(in->version_major, 1);
    assert_int_equal(in->version_minor, 7);
    /* Rotated: White is on the right and the right lever is up: White runs. */
    assert_int_equal(c.ev[1].u.clock.white_ms, 2000);
    assert_int_equal(c.ev[1].u.clock.black_ms, 1000);
    assert_int_equal(c.ev[1].u.clock.running, CR_WHITE);
    /* The inverse mapping gives the same sides back. */
    cr_dgt_clock back = {0};
    cr_dgt_clock_from_colors(&back, CR_DGT_WHITE_AUTO, true, 2000, 1000, CR_WHITE);
    assert_int_equal(back.left_ms, 1000);
    assert_true(back.right_high);
    int32_t w, k;
    int run;
    cr_dgt_clock_to_colors(&back, CR_DGT_WHITE_LEFT, true, &w, &k, &run);
    assert_int_equal(w, 1000);
    assert_int_equal(run, CR_BLACK);
    back.running = false;
    cr_dgt_clock_to_colors(&back, CR_DGT_WHITE_AUTO, false, &w, &k, &run);
    assert_int_equal(run, CR_CLOCK_STOPPED);
    assert_int_equal(cr_dgt_board_set_id(b, "x y"), CR_EINVAL);
    assert_int_equal(cr_dgt_board_set_id(b, "T1.2"), 0);
    assert_string_equal(cr_dgt_board_id(b), "T1.2");
    cr_dgt_board_free(b);
}

/* Random bytes never crash the parser, and it never holds more than it was given. */
static void test_random_bytes(void **state)
{
    (void)state;
    cr_dgt_parser *p = cr_dgt_parser_new();
    uint32_t x = 12345;
    uint8_t buf[97];
    cr_dgt_msg m;
    size_t fed = 0;
    for (int round = 0; round < 2000; round++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            x = x * 1103515245u + 12345u;
            buf[i] = (uint8_t)(x >> 16);
        }
        size_t n = (x >> 8) % sizeof buf;
        assert_int_equal(cr_dgt_parser_feed(p, buf, n), 0);
        fed += n;
        while (cr_dgt_parser_next(p, &m) == 1) {
        }
        assert_true(cr_dgt_parser_pending(p) <= 3 + CR_DGT_EE_MOVES_MAX);
    }
    assert_true(cr_dgt_parser_stats_get(p).skipped > fed / 2);
    cr_dgt_parser_free(p);
}

/* A recording made with the other clock convention (White on the right):
 * presses contradict the rule, and after three of them the sides swap. */
static void test_board_learns_clock_sides(void **state)
{
    (void)state;
    collected c = {0};
    cr_dgt_board *b = board_at_start("T1", &c);
    uint8_t buf[512];
    /* White's clock (right side here) is started. */
    cr_dgt_clock clk = {.left_ms = 600000, .right_ms = 600000, .running = true, .right_high = true};
    int n = cr_dgt_encode_bwtime(buf, sizeof buf, &clk);
    cr_dgt_board_feed_raw(b, 10, buf, (size_t)n, collect, &c);
    static const int moves[][2] = {{CR_SQ_E2, CR_SQ_E4}, {CR_SQ_E7, CR_SQ_E5}, {CR_SQ_G1, CR_SQ_F3},
                                   {CR_SQ_B8, CR_SQ_C6}, {CR_SQ_F1, CR_SQ_C4}};
    static const int piece[] = {1, 7, 3, 9, 4}; /* DGT codes: WP, BP, WN, BN, WB */
    int last_running = -2;
    for (int i = 0; i < 5; i++) {
        n = cr_dgt_encode_field(buf, sizeof buf, cr_dgt_sq_to_index(moves[i][0]), 0);
        n += cr_dgt_encode_field(buf + n, sizeof buf - (size_t)n, cr_dgt_sq_to_index(moves[i][1]), piece[i]);
        clk.right_high = !clk.right_high; /* the mover presses */
        clk.right_ms -= 1000;
        n += cr_dgt_encode_bwtime(buf + n, sizeof buf - (size_t)n, &clk);
        c.n = 0;
        cr_dgt_board_feed_raw(b, 1000 * (i + 1), buf, (size_t)n, collect, &c);
        assert_int_equal(c.ev[c.n - 1].kind, CR_FEED_CLOCK);
        last_running = c.ev[c.n - 1].u.clock.running;
    }
    const cr_dgt_board_info *in = cr_dgt_board_info_get(b);
    assert_true(in->clock_swapped);
    /* After White's bishop move Black's clock runs: the left side, Black's here. */
    assert_int_equal(last_running, CR_BLACK);
    cr_dgt_board_free(b);

    /* The same presses with the rule's own convention never swap. */
    b = board_at_start("T2", NULL);
    clk = (cr_dgt_clock){.left_ms = 600000, .right_ms = 600000, .running = true, .right_high = false};
    n = cr_dgt_encode_bwtime(buf, sizeof buf, &clk);
    cr_dgt_board_feed_raw(b, 10, buf, (size_t)n, NULL, NULL);
    for (int i = 0; i < 5; i++) {
        n = cr_dgt_encode_field(buf, sizeof buf, cr_dgt_sq_to_index(moves[i][0]), 0);
        n += cr_dgt_encode_field(buf + n, sizeof buf - (size_t)n, cr_dgt_sq_to_index(moves[i][1]), piece[i]);
        clk.right_high = !clk.right_high;
        n += cr_dgt_encode_bwtime(buf + n, sizeof buf - (size_t)n, &clk);
        cr_dgt_board_feed_raw(b, 1000 * (i + 1), buf, (size_t)n, NULL, NULL);
    }
    assert_false(cr_dgt_board_info_get(b)->clock_swapped);
    cr_dgt_board_free(b);
}

/* Whatever the chunking and the garbage, the RAW events of a board cover the
 * bytes fed exactly once, in order. */
typedef struct raw_cat {
    uint8_t bytes[8192];
    size_t len;
    int pos;
} raw_cat;

static void cat_raw(void *data, const cr_feed_event *ev)
{
    raw_cat *rc = data;
    if (ev->kind == CR_FEED_RAW) {
        assert_true(rc->len + ev->u.raw.len <= sizeof rc->bytes);
        memcpy(rc->bytes + rc->len, ev->u.raw.bytes, ev->u.raw.len);
        rc->len += ev->u.raw.len;
    } else if (ev->kind == CR_FEED_POS) {
        rc->pos++;
    }
}

static void test_board_raw_covers_input(void **state)
{
    (void)state;
    cr_dgt_board_config cfg = {.emit_raw = true};
    cr_dgt_board *b = cr_dgt_board_new("r1", &cfg);
    uint8_t in[6000];
    size_t n = 0;
    uint32_t x = 99;
    uint8_t dump[64];
    start_dump(dump);
    n += (size_t)cr_dgt_encode_dump(in + n, sizeof in - n, dump);
    while (n < sizeof in - 80) {
        x = x * 1103515245u + 12345u;
        if ((x >> 16) % 4 == 0) {
            in[n++] = (uint8_t)(x >> 8); /* a stray byte */
        } else {
            n += (size_t)cr_dgt_encode_field(in + n, sizeof in - n, (int)((x >> 10) % 64), (int)((x >> 20) % 13));
        }
    }
    raw_cat *rc = calloc(1, sizeof *rc);
    size_t off = 0;
    while (off < n) {
        x = x * 1103515245u + 12345u;
        size_t k = 1 + (x >> 16) % 23;
        if (k > n - off) {
            k = n - off;
        }
        assert_true(cr_dgt_board_feed_raw(b, (int64_t)off, in + off, k, cat_raw, rc) >= 0);
        off += k;
    }
    assert_int_equal(rc->len, n);
    assert_memory_equal(rc->bytes, in, n);
    assert_true(rc->pos > 100);
    free(rc);
    cr_dgt_board_free(b);
}

/*----- The emulated board (drivers/dgt_emu.h) -----*/

static int emu_messages(cr_dgt_emu *e, cr_dgt_msg *m, int max)
{
    uint8_t out[2048];
    size_t n = cr_dgt_emu_take_output(e, out, sizeof out);
    cr_dgt_parser *p = cr_dgt_parser_new();
    int k = feed_all(p, out, n, m, max);
    assert_int_equal(cr_dgt_parser_stats_get(p).resyncs, 0);
    cr_dgt_parser_free(p);
    return k;
}

/* The EEPROM log: every entry kind decodes and encodes back. */
static void test_ee_log_codec(void **state)
{
    (void)state;
    /* POWERUP, BEGINPOS, Pe2 lifted, Pe4 set (quick), clocks L 1:29:58 and
     * R 0:09:05, NOP, an unknown byte, EOF */
    const uint8_t log[] = {0x6A, 0x6F, 0x40, 52, 0x51, 36, 0x71, 0x29, 0x58, 0x60, 0x09, 0x05, 0x7F, 0x23, 0x6B};
    cr_dgt_ee_entry e[16];
    size_t n = cr_dgt_ee_decode(log, sizeof log, e, 16);
    assert_int_equal(n, 9);
    assert_int_equal(e[0].kind, CR_DGT_EE_POWERUP);
    assert_int_equal(e[1].kind, CR_DGT_EE_BEGINPOS);
    assert_int_equal(e[2].kind, CR_DGT_EE_FIELD);
    assert_int_equal(cr_dgt_index_to_sq(e[2].index), CR_SQ_E2);
    assert_int_equal(e[2].piece, 0);
    assert_false(e[2].quick);
    assert_int_equal(cr_dgt_index_to_sq(e[3].index), CR_SQ_E4);
    assert_int_equal(cr_dgt_piece_to_cr(e[3].piece), CR_WP);
    assert_true(e[3].quick);
    assert_int_equal(e[4].kind, CR_DGT_EE_CLOCK);
    assert_true(e[4].left);
    assert_int_equal(e[4].ms, (1 * 3600 + 29 * 60 + 58) * 1000);
    assert_false(e[5].left);
    assert_int_equal(e[5].ms, (9 * 60 + 5) * 1000);
    assert_int_equal(e[6].kind, CR_DGT_EE_NOP);
    assert_int_equal(e[7].kind, CR_DGT_EE_UNKNOWN);
    assert_int_equal(e[8].kind, CR_DGT_EE_EOF);
    uint8_t back[32];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].kind == CR_DGT_EE_UNKNOWN) {
            back[len++] = 0x23; /* no encoding: it is not an entry */
            continue;
        }
        int r = cr_dgt_ee_encode(&e[i], back + len, sizeof back - len);
        assert_true(r > 0);
        len += (size_t)r;
    }
    assert_int_equal(len, sizeof log);
    assert_memory_equal(back, log, sizeof log);
    /* an entry cut short at the end is not decoded */
    assert_int_equal(cr_dgt_ee_decode(log, 3, e, 16), 2);
    cr_dgt_ee_entry bad = {.kind = CR_DGT_EE_FIELD, .index = 64};
    assert_int_equal(cr_dgt_ee_encode(&bad, back, sizeof back), CR_EINVAL);
    cr_dgt_ee_entry clk = {.kind = CR_DGT_EE_CLOCK, .ms = 1000};
    assert_int_equal(cr_dgt_ee_encode(&clk, back, 2), CR_ENOSPC);
}

static int pos_count;
static uint8_t pos_last[64];
static void count_pos(void *data, const cr_feed_event *ev)
{
    (void)data;
    if (ev->kind == CR_FEED_POS) {
        pos_count++;
        memcpy(pos_last, ev->u.squares, 64);
    }
}

/* The emulator logs what stands on it, the line up or not; after a gap the
 * board state replays the log from the last changes it had received. */
static void test_ee_log_replay(void **state)
{
    (void)state;
    cr_dgt_emu *emu = cr_dgt_emu_new(NULL);
    cr_dgt_board *b = cr_dgt_board_new("EE1", NULL);
    uint8_t sq[64], out[16384];
    cr_test_start_squares(sq);
    cr_dgt_emu_set_squares(emu, 0, sq);
    cr_dgt_emu_input(emu, 0, (const uint8_t[]){CR_DGT_SEND_BRD, CR_DGT_SEND_UPDATE_NICE}, 2);
    size_t n = cr_dgt_emu_take_output(emu, out, sizeof out);
    cr_dgt_board_feed_raw(b, 0, out, n, count_pos, NULL);
    /* e4 seen by the host */
    sq[CR_SQ_E2] = 0;
    cr_dgt_emu_set_squares(emu, 1000, sq);
    sq[CR_SQ_E4] = CR_WP;
    cr_dgt_emu_set_squares(emu, 1400, sq);
    n = cr_dgt_emu_take_output(emu, out, sizeof out);
    cr_dgt_board_feed_raw(b, 1400, out, n, count_pos, NULL);
    /* the line goes dead: e5 Nf3 on the board only */
    cr_dgt_board_reset_stream(b);
    assert_true(cr_dgt_board_gap_pending(b));
    cr_dgt_emu_set_muted(emu, true);
    sq[CR_SQ_E7] = 0;
    cr_dgt_emu_set_squares(emu, 5000, sq);
    sq[CR_SQ_E5] = CR_BP;
    cr_dgt_emu_set_squares(emu, 5300, sq);
    sq[CR_SQ_G1] = 0;
    cr_dgt_emu_set_squares(emu, 9000, sq);
    sq[CR_SQ_F3] = CR_WN;
    cr_dgt_emu_set_squares(emu, 9200, sq);
    cr_dgt_emu_set_muted(emu, false);
    cr_dgt_emu_take_output(emu, out, sizeof out); /* old-mode updates: the host skips them */
    cr_dgt_emu_input(emu, 12000, (const uint8_t[]){CR_DGT_SEND_EE_MOVES}, 1);
    n = cr_dgt_emu_take_output(emu, out, sizeof out);
    pos_count = 0;
    assert_true(cr_dgt_board_feed_raw(b, 12000, out, n, count_pos, NULL) >= 1);
    /* four changes replayed: e7 lifted, e5 set, g1 lifted, f3 set */
    assert_int_equal(pos_count, 4);
    assert_memory_equal(pos_last, sq, 64);
    const cr_dgt_board_info *in = cr_dgt_board_info_get(b);
    assert_int_equal(in->ee_logs, 1);
    assert_int_equal(in->ee_replayed, 4);
    assert_false(cr_dgt_board_gap_pending(b));
    /* a log asked for without a gap replays nothing */
    cr_dgt_emu_input(emu, 14000, (const uint8_t[]){CR_DGT_SEND_EE_MOVES}, 1);
    n = cr_dgt_emu_take_output(emu, out, sizeof out);
    pos_count = 0;
    cr_dgt_board_feed_raw(b, 14000, out, n, count_pos, NULL);
    assert_int_equal(pos_count, 0);
    cr_dgt_board_free(b);
    cr_dgt_emu_free(emu);
}

static void test_emulator(void **state)
{
    (void)state;
    cr_dgt_emu_config cfg = {.serial = "54321", .version_major = 1, .version_minor = 7};
    cr_dgt_emu *e = cr_dgt_emu_new(&cfg);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    cr_dgt_emu_set_squares(e, 0, sq);
    assert_int_equal(cr_dgt_emu_mode_get(e), CR_EMU_BUS);
    cr_dgt_msg m[16];
    /* In IDLE nothing is sent on changes; commands are answered. */
    const uint8_t cmds[] = {0x45, 0x4D, 0x42, 0x47};
    cr_dgt_emu_input(e, 0, cmds, sizeof cmds);
    assert_int_equal(cr_dgt_emu_mode_get(e), CR_EMU_IDLE);
    assert_int_equal(emu_messages(e, m, 16), 4);
    assert_string_equal(m[0].u.text, "54321");
    assert_int_equal(m[1].u.version.minor, 7);
    assert_int_equal(m[2].kind, CR_DGT_DUMP);
    assert_int_equal(m[2].u.squares[cr_dgt_sq_to_index(CR_SQ_E1)], 5);
    assert_non_null(strstr(m[3].u.text, "Digital Game Technology"));
    /* UPDATE_NICE: a move gives lift then placement; a clock change a reading. */
    const uint8_t nice = 0x4B;
    cr_dgt_emu_input(e, 0, &nice, 1);
    sq[CR_SQ_E4] = CR_WP;
    sq[CR_SQ_E2] = 0;
    cr_dgt_emu_set_squares(e, 100, sq);
    cr_dgt_emu_set_clock(e, 200, 5400000, 5400000, CR_BLACK);
    assert_int_equal(emu_messages(e, m, 16), 3);
    assert_int_equal(m[0].u.field.index, cr_dgt_sq_to_index(CR_SQ_E2));
    assert_int_equal(m[0].u.field.piece, 0);
    assert_int_equal(m[1].u.field.index, cr_dgt_sq_to_index(CR_SQ_E4));
    assert_int_equal(m[2].kind, CR_DGT_CLOCK);
    int32_t w, k;
    int run;
    cr_dgt_clock_to_colors(&m[2].u.clock, CR_DGT_WHITE_AUTO, false, &w, &k, &run);
    assert_int_equal(run, CR_BLACK);
    /* The clock runs down between readings. */
    const uint8_t clk = 0x41;
    cr_dgt_emu_input(e, 10200, &clk, 1);
    assert_int_equal(emu_messages(e, m, 16), 1);
    cr_dgt_clock_to_colors(&m[0].u.clock, CR_DGT_WHITE_AUTO, false, &w, &k, &run);
    assert_int_equal(k, 5390000);
    assert_int_equal(w, 5400000);
    /* SETNRUN is acked and sets the clock. */
    uint8_t cmd[32];
    int n = cr_dgt_encode_clock_setnrun(cmd, sizeof cmd, 60000, 120000, 0x04);
    cr_dgt_emu_input(e, 10200, cmd, (size_t)n);
    assert_int_equal(emu_messages(e, m, 16), 2);
    assert_int_equal(m[0].kind, CR_DGT_CLOCK_ACK);
    assert_int_equal(m[0].u.ack.command, CR_DGT_CLOCK_SETNRUN);
    assert_int_equal(m[1].kind, CR_DGT_CLOCK);
    assert_int_equal(m[1].u.clock.left_ms, 60000);
    assert_int_equal(m[1].u.clock.right_ms, 120000);
    assert_false(m[1].u.clock.running);
    /* Muted: nothing; unmuted: the squares changed meanwhile. */
    cr_dgt_emu_set_muted(e, true);
    sq[CR_SQ_E7] = 0;
    cr_dgt_emu_set_squares(e, 20000, sq);
    cr_dgt_emu_input(e, 20000, &clk, 1);
    assert_int_equal(cr_dgt_emu_pending_output(e), 0);
    cr_dgt_emu_set_muted(e, false);
    assert_int_equal(emu_messages(e, m, 16), 1);
    assert_int_equal(m[0].u.field.index, cr_dgt_sq_to_index(CR_SQ_E7));
    /* Power cycle: bus mode again, silent on changes. */
    cr_dgt_emu_power_up(e);
    sq[CR_SQ_D7] = 0;
    cr_dgt_emu_set_squares(e, 30000, sq);
    assert_int_equal(cr_dgt_emu_pending_output(e), 0);
    assert_int_equal(cr_dgt_emu_mode_get(e), CR_EMU_BUS);
    assert_int_equal(cr_dgt_emu_commands(e), 7); /* the muted one never arrived */
    cr_dgt_emu_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_message_kind),
        cmocka_unit_test(test_bwtime_wire_bytes),
        cmocka_unit_test(test_split_messages),
        cmocka_unit_test(test_garbage_and_resync),
        cmocka_unit_test(test_truncated_waits_and_limits),
        cmocka_unit_test(test_command_encoders),
        cmocka_unit_test(test_orientation),
        cmocka_unit_test(test_board_events),
        cmocka_unit_test(test_board_cuts_a_message_the_line_cut),
        cmocka_unit_test(test_board_rotated_clock_and_info),
        cmocka_unit_test(test_random_bytes),
        cmocka_unit_test(test_emulator),
        cmocka_unit_test(test_ee_log_codec),
        cmocka_unit_test(test_ee_log_replay),
        cmocka_unit_test(test_board_raw_covers_input),
        cmocka_unit_test(test_board_learns_clock_sides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
