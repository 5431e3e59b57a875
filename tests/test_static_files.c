/* relay/net/static_files: the coding picked from Accept-Encoding, and
 * If-None-Match against an ETag. The serving itself: tests/e2e/web_assets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "net/static_files.h"

#define BOTH (CR_HAVE_BR | CR_HAVE_GZIP)

static void test_browsers(void **state)
{
    (void)state;
    assert_int_equal(cr_http_pick_encoding("gzip, deflate, br, zstd", BOTH), CR_ENC_BR);
    assert_int_equal(cr_http_pick_encoding("gzip, deflate, br", CR_HAVE_GZIP), CR_ENC_GZIP);
    assert_int_equal(cr_http_pick_encoding("gzip, deflate, br", 0), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("gzip, deflate", BOTH), CR_ENC_GZIP);
    assert_int_equal(cr_http_pick_encoding("x-gzip", BOTH), CR_ENC_GZIP);
    assert_int_equal(cr_http_pick_encoding("BR", BOTH), CR_ENC_BR);
    assert_int_equal(cr_http_pick_encoding(NULL, BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("deflate, zstd", BOTH), CR_ENC_IDENTITY);
}

static void test_qvalues(void **state)
{
    (void)state;
    assert_int_equal(cr_http_pick_encoding("gzip;q=1.0, br;q=0.5", BOTH), CR_ENC_GZIP);
    assert_int_equal(cr_http_pick_encoding("gzip ; q=0.8 , br ; Q=0.9", BOTH), CR_ENC_BR);
    assert_int_equal(cr_http_pick_encoding("br;q=0.001", BOTH), CR_ENC_BR);
    assert_int_equal(cr_http_pick_encoding("gzip;q=0, br;q=0", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("br;q=0, *", BOTH), CR_ENC_GZIP);
    assert_int_equal(cr_http_pick_encoding("*", BOTH), CR_ENC_BR);
    assert_int_equal(cr_http_pick_encoding("*;q=0.5, identity", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("identity;q=0.5, gzip;q=0.4", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("gzip;q=0.3", BOTH), CR_ENC_GZIP);
    /* Identity refused and nothing else acceptable there. */
    assert_int_equal(cr_http_pick_encoding("*;q=0", BOTH), CR_ENC_REFUSED);
    assert_int_equal(cr_http_pick_encoding("identity;q=0", 0), CR_ENC_REFUSED);
    assert_int_equal(cr_http_pick_encoding("br, identity;q=0", CR_HAVE_GZIP), CR_ENC_REFUSED);
    assert_int_equal(cr_http_pick_encoding("br, identity;q=0", BOTH), CR_ENC_BR);
}

static void test_malformed(void **state)
{
    (void)state;
    /* A malformed element is ignored, the rest still counts. */
    assert_int_equal(cr_http_pick_encoding("br;q=2, gzip", BOTH), CR_ENC_GZIP);
    assert_int_equal(cr_http_pick_encoding("br;q=0.5x", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("br;q=0.1234", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("br;q=, gzip;q=.5", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding(",,, ;q=1, br x", BOTH), CR_ENC_IDENTITY);
    assert_int_equal(cr_http_pick_encoding("gzip;level=9", BOTH), CR_ENC_GZIP);
    assert_int_equal(cr_http_pick_encoding("  br  ,", BOTH), CR_ENC_BR);
}

static void test_etag(void **state)
{
    (void)state;
    const char *tag = "\"1a2b-99-br\"";
    assert_true(cr_http_etag_matches("\"1a2b-99-br\"", tag));
    assert_true(cr_http_etag_matches("W/\"1a2b-99-br\"", tag));
    assert_true(cr_http_etag_matches("\"x\", \"1a2b-99-br\" ", tag));
    assert_true(cr_http_etag_matches("*", tag));
    assert_false(cr_http_etag_matches("\"1a2b-99\"", tag));
    assert_false(cr_http_etag_matches("\"1a2b-99-br-x\"", tag));
    assert_false(cr_http_etag_matches("1a2b-99-br", tag));
    assert_false(cr_http_etag_matches("", tag));
    assert_false(cr_http_etag_matches(NULL, tag));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_browsers),
        cmocka_unit_test(test_qvalues),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_etag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
