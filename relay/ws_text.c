/* chessrelay relay: one text frame on a WebSocket (see ws_text.h). */
#include "ws_text.h"

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
