/* Keyed seals (issue 27): HMAC-SHA-256 as RFC 4231 says; a file sealed
 * with the key cannot be edited and resealed without it; a keyed seal
 * without the key, or with another, is reported; unkeyed (older) files
 * still read; the key file is made 0600 and refused when others can read
 * it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/seal.h"
#include "util/seal_key.h"
#include "util/sealed_file.h"

static void test_hmac_rfc4231(void **state)
{
    (void)state;
    /* RFC 4231, test case 2 (the data given in two parts) */
    unsigned char out[CR_SEAL_BYTES];
    cr_seal_hmac((const unsigned char *)"Jefe", 4, "what do ya ", 11, "want for nothing?", 17, out);
    char hex[2 * CR_SEAL_BYTES + 1];
    for (int i = 0; i < CR_SEAL_BYTES; i++) {
        snprintf(hex + 2 * i, 3, "%02x", out[i]);
    }
    assert_string_equal(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

/* Three records sealed after each other into buf. */
static size_t seal_three(char *buf, size_t size, const char *second)
{
    cr_seal chain = {{0}, false};
    const char *recs[] = {"1 b1 connect\n", second, "3 b1 disconnect\n"};
    size_t at = 0, n;
    for (int i = 0; i < 3; i++) {
        cr_seal_frame(&chain, recs[i], strlen(recs[i]), buf + at, size - at, &n, &chain);
        at += n;
    }
    buf[at] = '\0';
    return at;
}

static cr_sealed_stats scan_text(const char *text)
{
    cr_seal chain = {{0}, false};
    cr_sealed_stats st;
    size_t keep;
    assert_int_equal(cr_sealed_scan_text(text, strlen(text), &chain, NULL, NULL, &st, &keep), 0);
    return st;
}

static void test_keyed_chain(void **state)
{
    (void)state;
    char good[1024], forged[1024], plain[1024];
    cr_seal_key key, other;
    memset(key.k, 7, sizeof key.k);
    memset(other.k, 8, sizeof other.k);
    cr_seal_use_key(&key);
    assert_true(cr_seal_have_key());
    seal_three(good, sizeof good, "2 b1 pos 8/8/8/8/8/8/8/8\n");
    assert_non_null(strstr(good, "\n#% "));
    assert_null(strstr(good, "\n#= "));
    cr_sealed_stats st = scan_text(good);
    assert_int_equal(st.bad, 0);
    assert_int_equal(st.keyed, 3);
    assert_int_equal(st.unkeyed, 0);
    /* an edit resealed with plain SHA-256 from the edit on: found */
    cr_seal_use_key(NULL);
    char tail[512];
    cr_seal chain = {{0}, false};
    size_t first = (size_t)(strstr(good, "\n2 b1") + 1 - good), n;
    cr_seal_last(good, first, &chain);
    assert_true(chain.keyed);
    memcpy(forged, good, first);
    cr_seal_frame(&chain, "2 b1 pos 8/8/8/8/8/8/8/K\n", 25, tail, sizeof tail, &n, &chain);
    memcpy(forged + first, tail, n);
    forged[first + n] = '\0';
    cr_seal_use_key(&key);
    st = scan_text(forged);
    assert_int_equal(st.bad, 1);
    assert_int_equal(st.bad_line, 3);
    assert_non_null(strstr(st.bad_why, "resealed without the key"));
    /* keyed-looking seals made with another key: found */
    cr_seal_use_key(&other);
    seal_three(forged, sizeof forged, "2 b1 pos 8/8/8/8/8/8/8/K\n");
    cr_seal_use_key(&key);
    st = scan_text(forged);
    assert_int_equal(st.bad, 3);
    assert_int_equal(st.bad_line, 1);
    /* without the key: a keyed file is not vouched for */
    cr_seal_use_key(NULL);
    st = scan_text(good);
    assert_int_equal(st.bad, 3);
    assert_non_null(strstr(st.bad_why, "no key"));
    /* an older, unkeyed file still reads sound, counted as unkeyed */
    seal_three(plain, sizeof plain, "2 b1 pos 8/8/8/8/8/8/8/8\n");
    assert_non_null(strstr(plain, "\n#= "));
    cr_seal_use_key(&key);
    st = scan_text(plain);
    assert_int_equal(st.bad, 0);
    assert_int_equal(st.unkeyed, 3);
    assert_int_equal(st.keyed, 0);
    cr_seal_use_key(NULL);
}

static void test_key_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_seal_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[128], path[160];
    snprintf(sub, sizeof sub, "%s/state", dir);
    snprintf(path, sizeof path, "%s/seal.key", sub);
    cr_error err;
    cr_seal_key k1, k2;
    assert_int_equal(cr_seal_key_load(sub, &k1, &err), CR_EEOF);
    bool created = false;
    assert_int_equal(cr_seal_key_setup(sub, false, &created, &err), 0); /* none: unkeyed */
    assert_false(created);
    assert_false(cr_seal_have_key());
    assert_int_equal(cr_seal_key_setup(sub, true, &created, &err), 0);
    assert_true(created);
    assert_true(cr_seal_have_key());
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(cr_seal_key_load(sub, &k1, &err), 0);
    assert_int_equal(cr_seal_key_setup(sub, true, &created, &err), 0); /* kept */
    assert_false(created);
    assert_int_equal(cr_seal_key_load(sub, &k2, &err), 0);
    assert_memory_equal(k1.k, k2.k, sizeof k1.k);
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(cr_seal_key_load(sub, &k2, &err), CR_ECONFIG);
    assert_non_null(strstr(err.text, "seal.key: readable by others (mode 0644)"));
    FILE *f = fopen(path, "w");
    fputs("not a key\n", f);
    fclose(f);
    assert_int_equal(chmod(path, 0600), 0);
    assert_int_equal(cr_seal_key_setup(sub, true, NULL, &err), CR_ECONFIG);
    assert_non_null(strstr(err.text, "expected 64 hex digits"));
    cr_seal_use_key(NULL);
    cr_test_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hmac_rfc4231),
        cmocka_unit_test(test_keyed_chain),
        cmocka_unit_test(test_key_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
