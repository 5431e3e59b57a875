/* libFuzzer target: arbitrary bytes as a feed file. The reader must never
 * crash, hang or leak; every error names a line; every event it accepts
 * must format back into a line that parses to the same event. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/feed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const cr_feed_event *ev)
{
    size_t cap = CR_FEED_LINE_MAX + (ev->kind == CR_FEED_RAW ? 2 * ev->u.raw.len : 0) +
                 (ev->kind == CR_FEED_META ? strlen(ev->u.meta.key) + strlen(ev->u.meta.value) : 0);
    char *line = malloc(cap);
    char *scratch = malloc(cap + 2);
    if (!line || !scratch) {
        abort();
    }
    int n = cr_feed_format(ev, line, cap);
    if (n < 0) {
        abort();
    }
    cr_feed_event back;
    if (cr_feed_parse_line(line, (size_t)n, &back, scratch, cap + 2, NULL) != 1 || back.kind != ev->kind ||
        back.t != ev->t || strcmp(back.board, ev->board) != 0) {
        abort();
    }
    if (ev->kind == CR_FEED_POS && memcmp(back.u.squares, ev->u.squares, CR_SQ_NB) != 0) {
        abort();
    }
    if (ev->kind == CR_FEED_RAW &&
        (back.u.raw.len != ev->u.raw.len || memcmp(back.u.raw.bytes, ev->u.raw.bytes, ev->u.raw.len) != 0)) {
        abort();
    }
    free(line);
    free(scratch);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *in = fmemopen((void *)data, size ? size : 1, "r");
    if (!in) {
        return 0;
    }
    if (size == 0) {
        fclose(in);
        return 0;
    }
    cr_feed_reader *r = cr_feed_reader_new(in, "fuzz.feed");
    if (!r) {
        abort();
    }
    cr_feed_reader_set_keep_going(r, size & 1);
    cr_feed_event ev;
    cr_error err;
    int rc, guard = 0;
    while ((rc = cr_feed_reader_next(r, &ev, &err)) != 0 && guard++ < 100000) {
        if (rc < 0) {
            if (err.text[0] == '\0' || err.line <= 0) {
                abort();
            }
            continue;
        }
        check_roundtrip(&ev);
    }
    cr_feed_reader_free(r);
    fclose(in);
    return 0;
}
