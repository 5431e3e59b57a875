/* relay/util/addr: addresses, ranges, and the client behind trusted
 * reverse proxies (X-Forwarded-For). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/addr.h"

static void text_of(const unsigned char a[16], char *buf)
{
    cr_addr_text(a, buf, 64);
}

static void test_parse(void **state)
{
    (void)state;
    unsigned char a[16];
    char t[64];
    assert_true(cr_addr_parse("192.0.2.7", a));
    text_of(a, t);
    assert_string_equal(t, "192.0.2.7");
    assert_true(cr_addr_parse("2001:db8::1", a));
    text_of(a, t);
    assert_string_equal(t, "2001:db8::1");
    assert_true(cr_addr_parse("[2001:db8::2]", a));
    text_of(a, t);
    assert_string_equal(t, "2001:db8::2");
    const char *bad[] = {"", "unknown", "192.0.2.7:8080", "192.0.2", "300.1.1.1", "[::1", "_hidden",
                         "1.2.3.4 ", "2001:db8::1/64"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(cr_addr_parse(bad[i], a));
    }
}

static void test_ranges(void **state)
{
    (void)state;
    cr_addr_range r[3];
    assert_true(cr_addr_range_parse("10.0.0.0/8", &r[0]));
    assert_int_equal(r[0].bits, 104);
    assert_true(cr_addr_range_parse("127.0.0.1", &r[1]));
    assert_int_equal(r[1].bits, 128);
    assert_true(cr_addr_range_parse("fd00::/8", &r[2]));
    assert_int_equal(r[2].bits, 8);
    unsigned char a[16];
    const char *in[] = {"10.0.0.1", "10.255.255.255", "127.0.0.1", "fd12::5"};
    const char *out[] = {"11.0.0.1", "9.255.255.255", "127.0.0.2", "fe00::1", "::1"};
    for (size_t i = 0; i < 4; i++) {
        assert_true(cr_addr_parse(in[i], a));
        assert_true(cr_addr_in_ranges(a, r, 3));
    }
    for (size_t i = 0; i < 5; i++) {
        assert_true(cr_addr_parse(out[i], a));
        assert_false(cr_addr_in_ranges(a, r, 3));
    }
    cr_addr_range any;
    assert_true(cr_addr_range_parse("0.0.0.0/0", &any));
    assert_true(cr_addr_parse("203.0.113.9", a));
    assert_true(cr_addr_in_ranges(a, &any, 1));
    assert_true(cr_addr_parse("2001:db8::1", a));
    assert_false(cr_addr_in_ranges(a, &any, 1)); /* IPv4 /0 is every IPv4 address only */
    assert_true(cr_addr_range_parse("172.16.0.0/12", &any));
    assert_true(cr_addr_parse("172.31.1.1", a));
    assert_true(cr_addr_in_ranges(a, &any, 1));
    assert_true(cr_addr_parse("172.32.0.1", a));
    assert_false(cr_addr_in_ranges(a, &any, 1));
    const char *bad[] = {"10.0.0.0/33", "10.1.0.0/8", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8",
                         "10.0.0.0/8x", "::/129", "localhost", "10.0.0.0/8/8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_false(cr_addr_range_parse(bad[i], &any));
    }
}

/* The client cr_addr_forwarded_client picks, as text. */
static void expect_client(const char *peer, const char *xff, const char *want)
{
    cr_addr_range r[2];
    assert_true(cr_addr_range_parse("127.0.0.1", &r[0]));
    assert_true(cr_addr_range_parse("10.0.0.0/8", &r[1]));
    unsigned char p[16], out[16];
    char t[64];
    assert_true(cr_addr_parse(peer, p));
    bool moved = cr_addr_forwarded_client(p, xff, r, 2, out);
    text_of(out, t);
    assert_string_equal(t, want);
    assert_int_equal(moved, strcmp(peer, want) != 0);
}

static void test_forwarded(void **state)
{
    (void)state;
    /* A trusted proxy: the rightmost address that is not a proxy. */
    expect_client("127.0.0.1", "203.0.113.5", "203.0.113.5");
    expect_client("127.0.0.1", "198.51.100.1, 203.0.113.5", "203.0.113.5");
    expect_client("127.0.0.1", "198.51.100.1, 203.0.113.5, 10.1.2.3", "203.0.113.5");
    expect_client("127.0.0.1", " 203.0.113.5 ,10.9.9.9 ", "203.0.113.5");
    expect_client("127.0.0.1", "2001:db8::7", "2001:db8::7");
    /* A client cannot pass itself off: what it wrote is left of its address. */
    expect_client("127.0.0.1", "1.1.1.1, 203.0.113.5", "203.0.113.5");
    /* Every hop a proxy: the leftmost. */
    expect_client("127.0.0.1", "10.0.0.2, 10.0.0.3", "10.0.0.2");
    /* No header, or an empty one: the peer. */
    expect_client("127.0.0.1", NULL, "127.0.0.1");
    expect_client("127.0.0.1", "", "127.0.0.1");
    /* Not an address: the walk stops at the last trusted hop. */
    expect_client("127.0.0.1", "unknown", "127.0.0.1");
    expect_client("127.0.0.1", "203.0.113.5, garbage, 10.0.0.4", "10.0.0.4");
    expect_client("127.0.0.1", "203.0.113.5,,", "127.0.0.1");
    expect_client("127.0.0.1", "203.0.113.5:4711", "127.0.0.1");
    /* An untrusted peer: its header is ignored. */
    expect_client("192.0.2.1", "203.0.113.5", "192.0.2.1");
    expect_client("192.0.2.1", "10.0.0.1", "192.0.2.1");
    /* No trusted proxies at all: always the peer. */
    unsigned char p[16], out[16];
    assert_true(cr_addr_parse("127.0.0.1", p));
    assert_false(cr_addr_forwarded_client(p, "203.0.113.5", NULL, 0, out));
    assert_memory_equal(p, out, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_forwarded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
