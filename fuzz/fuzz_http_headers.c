/* libFuzzer target: arbitrary bytes as the request headers the web root's
 * files are answered by (relay/net/static_files.h): an Accept-Encoding value,
 * then after the first newline an If-None-Match value. Neither parser may
 * crash, hang or read past the string; the coding picked is one the file has
 * (or identity, or a refusal), and a coding the file lacks never changes the
 * answer between the codings it has. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "net/static_files.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    char *inm = strchr(text, '\n');
    if (inm) {
        *inm++ = '\0';
    }
    for (unsigned have = 0; have <= (CR_HAVE_BR | CR_HAVE_GZIP); have++) {
        cr_http_encoding e = cr_http_pick_encoding(text, have);
        if ((e == CR_ENC_BR && !(have & CR_HAVE_BR)) || (e == CR_ENC_GZIP && !(have & CR_HAVE_GZIP)) ||
            (e != CR_ENC_IDENTITY && e != CR_ENC_GZIP && e != CR_ENC_BR && e != CR_ENC_REFUSED)) {
            abort();
        }
        /* Refused with fewer copies than the most: refused with none. */
        if (e == CR_ENC_REFUSED && cr_http_pick_encoding(text, 0) != CR_ENC_REFUSED) {
            abort();
        }
    }
    if (inm) {
        (void)cr_http_etag_matches(inm, "\"1a2b-3c4d-br\"");
        if (strcmp(inm, "\"1a2b-3c4d-br\"") == 0 && !cr_http_etag_matches(inm, "\"1a2b-3c4d-br\"")) {
            abort();
        }
    }
    free(text);
    return 0;
}
