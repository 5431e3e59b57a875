/* libFuzzer target: arbitrary bytes as the messages of one client of the
 * DGT LiveChess API (one message per line), handled by net/livechess
 * without a socket, with board states published in between (a line "!"
 * publishes the next state of both boards). It must never crash, hang or
 * leak; every frame it queues is JSON with "response", "id", "param" and
 * "time"; the queue stays within its bounds. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/livechess.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void publish(cr_livechess *lc, const char *id, int n)
{
    cr_pub *p = cr_pub_new(CR_PUB_EBOARD);
    char text[160];
    if (!p) {
        abort();
    }
    snprintf(p->eboard, sizeof p->eboard, "%s", id);
    snprintf(text, sizeof text, "{\"serialnr\":\"%s\",\"n\":%d}", id, n);
    p->event = cr_buf_new(text, strlen(text));
    snprintf(text, sizeof text, "{\"board\":\"%d/8/8/8/8/8/8/8\"}", n % 8 + 1);
    p->snapshot = cr_buf_new(text, strlen(text));
    cr_livechess_apply(lc, p);
    cr_pub_free(p);
}

/* Takes every queued frame and checks it. */
static void drain(cr_lc_conn *c)
{
    int n = 0;
    cr_buf *b;
    while ((b = cr_livechess_next(c)) != NULL) {
        json_t *o = json_loadb(b->data, b->len, 0, NULL);
        if (!o || !json_is_string(json_object_get(o, "response")) || !json_object_get(o, "id") ||
            !json_object_get(o, "param") || !json_is_integer(json_object_get(o, "time"))) {
            abort();
        }
        json_decref(o);
        cr_buf_unref(b);
        n++;
    }
    if (n > CR_LC_ANSWER_BACKLOG + CR_LC_SUBS_MAX * CR_LC_SUB_BACKLOG) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_livechess_config cfg = {.rate = 1000000};
    cr_livechess *lc = cr_livechess_new(&cfg);
    cr_lc_conn c;
    if (!lc || !cr_livechess_open(lc, &c, NULL)) {
        abort();
    }
    publish(lc, "23946", 0);
    publish(lc, "A-1", 0);
    const char *text = (const char *)data;
    size_t at = 0;
    int round = 0, lines = 0;
    while (at < size && !c.closing) {
        const char *nl = memchr(text + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (text + at)) : size - at;
        if (len == 1 && text[at] == '!') {
            round++;
            publish(lc, "23946", round);
            publish(lc, "A-1", round);
        } else {
            cr_livechess_message(lc, &c, text + at, len);
        }
        if (++lines % 4 == 0) {
            drain(&c); /* a client that reads now and then */
        }
        at += len + 1;
    }
    drain(&c);
    cr_livechess_close(lc, &c);
    cr_livechess_free(lc);
    return 0;
}
