/* Ed25519 signatures of the state folder (issue 27, util/sign.h): the
 * signature of RFC 8032's first test vector; key files (0600, refused when
 * others may read them, never overwritten); the signer's checkpoints of a
 * growing file (whole lines only) checked with the public key alone, and
 * an edit, a cut tail, a deleted file, a forged checkpoint and an unsigned
 * file each found. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_util.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/sign.h"

static void write_text(const char *path, const char *text, const char *mode)
{
    FILE *f = fopen(path, mode);
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_rfc8032(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_sign_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/k", dir);
    write_text(path, "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60\n", "w");
    chmod(path, 0644);
    cr_sign_key k;
    cr_error err;
    assert_int_equal(cr_sign_key_load(path, &k, &err), CR_ECONFIG); /* readable by others */
    assert_non_null(strstr(err.text, "readable by others"));
    chmod(path, 0600);
    assert_int_equal(cr_sign_key_load(path, &k, &err), 0);
    char hex[2 * CR_SIGN_BYTES + 1];
    cr_sign_hex(k.pub, 32, hex);
    assert_string_equal(hex, "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    unsigned char sig[CR_SIGN_BYTES];
    assert_true(cr_sign_make(&k, "", 0, sig));
    cr_sign_hex(sig, CR_SIGN_BYTES, hex);
    assert_string_equal(hex, "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8"
                             "821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b");
    assert_true(cr_sign_check(k.pub, "", 0, sig));
    assert_false(cr_sign_check(k.pub, "x", 1, sig));
    sig[0] ^= 1;
    assert_false(cr_sign_check(k.pub, "", 0, sig));
    /* keygen: a pair, the secret 0600, never over a key */
    snprintf(path, sizeof path, "%s/new.key", dir);
    assert_int_equal(cr_sign_keygen(path, &err), 0);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(cr_sign_keygen(path, &err), CR_EIO);
    unsigned char pub[CR_SIGN_PUB_BYTES];
    char pub_path[300];
    snprintf(pub_path, sizeof pub_path, "%s.pub", path);
    assert_int_equal(cr_sign_key_load(path, &k, &err), 0);
    assert_int_equal(cr_sign_pub_load(pub_path, pub, &err), 0);
    assert_memory_equal(pub, k.pub, sizeof pub);
    write_text(pub_path, "not hex\n", "w");
    assert_int_equal(cr_sign_pub_load(pub_path, pub, &err), CR_ECONFIG);
    cr_test_rm_rf(dir);
}

/* cr_sign_verify's report on dir: its problems, and whether want is in it. */
static long check(const char *dir, const unsigned char *pub, const char *want, int *unsig)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    long problems;
    assert_int_equal(cr_sign_verify(dir, pub, f, &problems, unsig), 0);
    fclose(f);
    if (want && !strstr(out, want)) {
        fail_msg("'%s' not in:\n%s", want, out);
    }
    free(out);
    return problems;
}

static void test_signer(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_test_sign_XXXXXX", path[256], copy[300], sig_path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/key", dir);
    cr_error err;
    cr_sign_key k;
    assert_int_equal(cr_sign_keygen(path, &err), 0);
    assert_int_equal(cr_sign_key_load(path, &k, &err), 0);
    snprintf(path, sizeof path, "%s/journal-000001.feed", dir);
    write_text(path, "0 b1 connect\n", "w");
    assert_int_equal(cr_signer_start(dir, &k), 0);
    cr_signer_follow("journal-000001.feed");
    cr_signer_checkpoint();
    write_text(path, "10 b1 pos 8/8/8/8/8/8/8/8\n20 b1 clock", "a"); /* a line being written */
    cr_signer_checkpoint();
    char head[1024];
    cr_signer_head(head, sizeof head);
    assert_non_null(strstr(head, "journal-000001.feed 39 ")); /* whole lines: 13 + 26 bytes */
    write_text(path, " 1000 2000\n", "a");
    cr_signer_stop(); /* the last checkpoint: the whole file */
    int unsig;
    assert_int_equal(check(dir, k.pub, NULL, &unsig), 0);
    assert_int_equal(unsig, 0);
    snprintf(copy, sizeof copy, "%s.orig", path);
    snprintf(sig_path, sizeof sig_path, "%s/%s", dir, CR_SIGN_FILE);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "cp %s %s", path, copy);
    assert_int_equal(system(cmd), 0);
    /* an edit of line 2: between the first checkpoint (line 1) and the next */
    FILE *f = fopen(path, "r+");
    fseek(f, 15, SEEK_SET);
    fputc('X', f);
    fclose(f);
    assert_int_equal(check(dir, k.pub, "journal-000001.feed:2: changed between lines 2 and 2", &unsig), 1);
    /* a cut tail */
    assert_int_equal(rename(copy, path), 0);
    assert_int_equal(truncate(path, 39), 0);
    assert_int_equal(check(dir, k.pub, "cut: 39 bytes, but signatures.log:4 signed 61", &unsig), 1);
    /* deleted */
    unlink(path);
    assert_int_equal(check(dir, k.pub, "missing (deleted?)", &unsig), 1);
    /* a file nobody signed */
    snprintf(path, sizeof path, "%s/journal-000002.feed", dir);
    write_text(path, "0 b2 connect\n", "w");
    check(dir, k.pub, "journal-000002.feed: not signed", &unsig);
    assert_int_equal(unsig, 1);
    /* a forged checkpoint, and another key */
    write_text(sig_path, "journal-000002.feed 13 0000000000000000000000000000000000000000000000000000000000000000 1 "
                         "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\n", "a");
    check(dir, k.pub, "signatures.log:5: its signature does not verify", &unsig);
    write_text(sig_path, "journal-000002.feed 13 00", "a"); /* torn: not a problem */
    long before = check(dir, k.pub, "signatures.log:6: a torn last line", &unsig);
    assert_int_equal(before, 2); /* the forged line and the deleted file, as before */
    unsigned char other[CR_SIGN_PUB_BYTES] = {1};
    assert_true(check(dir, other, "does not verify", &unsig) >= 4);
    cr_test_rm_rf(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc8032),
        cmocka_unit_test(test_signer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
