/* libFuzzer target: arbitrary bytes as a state folder's signatures.log
 * (relay/util/sign.h), as `chessrelay journal verify DIR --pubkey FILE`
 * reads it from a copy anyone may have changed, beside a small journal
 * file and incidents.log. The check must never crash, hang or leak; it
 * reports, never trusts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void put(const char *name, const void *data, size_t size)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        abort();
    }
    fwrite(data, 1, size, f);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/cr_fuzz_signatures_XXXXXX");
        if (!mkdtemp(dir)) {
            abort();
        }
        static const char journal[] = "0 b1 connect\n#% 00\n10 b1 pos 8/8/8/8/8/8/8/8\n";
        put("journal-000001.feed", journal, sizeof journal - 1);
        put("incidents.log", "1\tack\t5\t3\tchief\n", 16);
    }
    put(CR_SIGN_FILE, data, size);
    /* RFC 8032's first public key: nothing the input holds is signed by it. */
    static const unsigned char pub[CR_SIGN_PUB_BYTES] = {
        0xd7, 0x5a, 0x98, 0x01, 0x82, 0xb1, 0x0a, 0xb7, 0xd5, 0x4b, 0xfe, 0xd3, 0xc9, 0x64, 0x07, 0x3a,
        0x0e, 0xe1, 0x72, 0xf3, 0xda, 0xa6, 0x23, 0x25, 0xaf, 0x02, 0x1a, 0x68, 0xf7, 0x07, 0x51, 0x1a};
    FILE *out = fopen("/dev/null", "w");
    long problems;
    int unsigned_files;
    if (!out || cr_sign_verify(dir, pub, out, &problems, &unsigned_files) != 0 || problems < 0 ||
        unsigned_files < 0) {
        abort();
    }
    fclose(out);
    char line[512];
    int lineno;
    cr_sign_last_checkpoint(dir, "journal-000001.feed", line, sizeof line, &lineno);
    return 0;
}
