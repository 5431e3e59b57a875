/* chessrelay relay: one text frame on a WebSocket. */
#include "net/ws_text.h"

#include <stdlib.h>
#include <string.h>

int cr_ws_send_text(struct lws *wsi, char *s)
{
    if (!s) {
        return -1;
    }
    size_t n = strlen(s);
    unsigned char *b = malloc(LWS_PRE + n); /* lws writes its header before the payload */
    if (!b) {
        free(s);
        return -1;
    }
    memcpy(b + LWS_PRE, s, n);
    free(s);
    int w = lws_write(wsi, b + LWS_PRE, n, LWS_WRITE_TEXT);
    free(b);
    return w < (int)n ? -1 : 0;
}

void cr_ws_rx_reset(cr_ws_rx *rx)
{
    free(rx->buf);
    rx->buf = NULL;
    rx->len = 0;
}

cr_ws_rx_result cr_ws_rx_add(cr_ws_rx *rx, struct lws *wsi, const char *in, size_t len, size_t max,
                             const char **msg, size_t *msg_len)
{
    bool final = lws_is_final_fragment(wsi) && lws_remaining_packet_payload(wsi) == 0;
    if (!rx->too_big && rx->len + len > max) {
        rx->too_big = true;
        cr_ws_rx_reset(rx);
    }
    if (rx->too_big) {
        if (!final) {
            return CR_WS_RX_MORE;
        }
        rx->too_big = false;
        return CR_WS_RX_TOO_BIG;
    }
    if (final && !rx->buf) {
        *msg = in;
        *msg_len = len;
        return CR_WS_RX_MESSAGE;
    }
    char *n = realloc(rx->buf, rx->len + len + 1);
    if (!n) {
        return CR_WS_RX_NOMEM;
    }
    rx->buf = n;
    memcpy(rx->buf + rx->len, in, len);
    rx->len += len;
    if (!final) {
        return CR_WS_RX_MORE;
    }
    *msg = rx->buf;
    *msg_len = rx->len;
    return CR_WS_RX_MESSAGE;
}
