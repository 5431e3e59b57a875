/* libFuzzer target: arbitrary bytes as a tournament file's "streams" and
 * "players" (relay/core/config_media.h): a stream's URL is classified or
 * refused with a reason, never a crash, a hang or a read past the string;
 * what is accepted is one of the three kinds, and a whole tournament file
 * around the bytes is read or refused with an error naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/config_media.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = '\0';
    char why[200];
    const char *kind = cr_stream_kind(text, why, sizeof why);
    if (kind && strcmp(kind, "youtube") && strcmp(kind, "twitch") && strcmp(kind, "hls")) {
        abort();
    }
    /* The bytes as the "streams" value, then as the "players" value. */
    for (int k = 0; k < 2; k++) {
        size_t n = size + 64;
        char *doc = malloc(n);
        if (!doc) {
            break;
        }
        snprintf(doc, n, "{\"%s\":%s}", k ? "players" : "streams", text);
        cr_error err;
        cr_config *cfg = cr_config_parse(doc, "t.json", NULL, &err);
        if (!cfg && strncmp(err.text, "t.json", 6) != 0) {
            abort();
        }
        if (cfg) {
            free(cr_config_viewer_json(cfg));
        }
        cr_config_free(cfg);
        free(doc);
    }
    free(text);
    return 0;
}
