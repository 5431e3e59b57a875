/* chessrelay relay: immutable, reference-counted byte buffers with headroom.
 *
 * A message is serialised once (JSON of an event, a snapshot, a game's PGN)
 * into a cr_buf and then shared by every recipient: the loop thread creates
 * it, the WebSocket thread writes the same bytes to every viewer. The payload
 * is preceded by CR_BUF_PRE bytes that lws_write() may use for the frame
 * header (LWS_PRE), and followed by a NUL.
 *
 * Only the reference count is shared between threads (atomic); the payload
 * is never changed after cr_buf_finish(). */
#ifndef CR_RELAY_BUF_H
#define CR_RELAY_BUF_H

#include <stdatomic.h>
#include <stddef.h>

#define CR_BUF_PRE 16 /* >= LWS_PRE (checked in net/server_private.h) */

typedef struct cr_buf {
    atomic_int refs;
    size_t len;                 /* payload bytes, without the NUL */
    unsigned char pre[CR_BUF_PRE];
    char data[];                /* payload, then a NUL */
} cr_buf;

/* Returns a new buffer (one reference) holding a copy of len bytes of s (s
 * NULL: uninitialised, for the caller to fill), or
 * NULL when out of memory. */
cr_buf *cr_buf_new(const char *s, size_t len);

/* Takes a malloc'ed NUL-terminated string (e.g. from json_dumps) and returns
 * a new buffer with its copy; frees s in all cases. NULL s gives NULL. */
cr_buf *cr_buf_take_str(char *s);

/* Adds a reference; returns b (accepts NULL). */
cr_buf *cr_buf_ref(cr_buf *b);

/* Drops a reference; frees on the last one (accepts NULL). */
void cr_buf_unref(cr_buf *b);

#endif
