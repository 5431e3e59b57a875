/* libFuzzer target: arbitrary bytes as protocol messages (one per line), as
 * an edge relay receives them from NATS (relay/event_decode.h), applied in
 * order to one store, and as engine evaluations (cr_eval_decode), which
 * travel on the same stream. The decoders must never crash, hang or leak; an
 * error names a field; an event that applies must encode back to a message
 * that decodes to the same message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "edge/event_decode.h"
#include "core/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_roundtrip(const cr_store_event *ev)
{
    cr_buf *a = cr_store_event_json(ev);
    if (!a) {
        abort();
    }
    cr_store_event *back = NULL;
    cr_error err;
    if (cr_event_decode(a->data, a->len, &back, &err) != 0) {
        abort(); /* the encoder wrote what the decoder refuses */
    }
    back->move = ev->move; /* resolved against the store, not carried */
    cr_buf *b = cr_store_event_json(back);
    if (!b || b->len != a->len || memcmp(a->data, b->data, a->len) != 0) {
        abort();
    }
    cr_buf_unref(a);
    cr_buf_unref(b);
    cr_store_event_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cr_store *store = cr_store_new();
    if (!store) {
        return 0;
    }
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        cr_store_event *ev = NULL;
        cr_error err;
        if (cr_event_apply_json(store, p, len, &ev, &err) == 0) {
            check_roundtrip(ev);
            cr_store_event_free(ev);
        } else if (!err.text[0]) {
            abort(); /* an error must say what is wrong */
        }
        int game, ply;
        char fen[CR_FEN_MAX];
        cr_eval e;
        if (cr_eval_decode(p, len, &game, &ply, fen, &e, &err) != 0 && !err.text[0]) {
            abort();
        }
        p += len + 1;
    }
    cr_store_free(store);
    return 0;
}
