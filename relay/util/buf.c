/* chessrelay relay: reference-counted message buffers. */
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>

cr_buf *cr_buf_new(const char *s, size_t len)
{
    cr_buf *b = malloc(sizeof *b + len + 1);
    if (!b) {
        return NULL;
    }
    atomic_init(&b->refs, 1);
    b->len = len;
    if (len && s) { /* s NULL: the caller fills data */
        memcpy(b->data, s, len);
    }
    b->data[len] = '\0';
    return b;
}

cr_buf *cr_buf_take_str(char *s)
{
    if (!s) {
        return NULL;
    }
    cr_buf *b = cr_buf_new(s, strlen(s));
    free(s);
    return b;
}

cr_buf *cr_buf_ref(cr_buf *b)
{
    if (b) {
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    }
    return b;
}

void cr_buf_unref(cr_buf *b)
{
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1) {
        free(b);
    }
}
