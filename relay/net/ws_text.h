/* chessrelay relay: text messages on libwebsockets connections. One text
 * frame written, for the agent link's two ends (agent_link.c, cmd_agent.c),
 * which write a single message per WRITEABLE; and a message received in
 * fragments put back together, for every server end (server.c,
 * agent_link.c).
 *
 * Threads: the lws service thread of wsi only (lws rule). */
#ifndef CR_RELAY_WS_TEXT_H
#define CR_RELAY_WS_TEXT_H

#include <libwebsockets.h>
#include <stdbool.h>

/* Writes the NUL-terminated s as one text message and frees it (s may be
 * NULL: a message that could not be built). Returns 0, or -1 when s is
 * NULL, memory ran out or the write fell short (close the connection). */
int cr_ws_send_text(struct lws *wsi, char *s);

/* A message being received; zeroed to start. Memory is used only for a
 * message in several pieces. */
typedef struct cr_ws_rx {
    char *buf;
    size_t len;
    bool too_big;
} cr_ws_rx;

typedef enum cr_ws_rx_result {
    CR_WS_RX_MORE = 0,    /* the message goes on */
    CR_WS_RX_MESSAGE = 1, /* *msg, *msg_len: the whole message, valid until cr_ws_rx_reset */
    CR_WS_RX_TOO_BIG = 2, /* a message over max ended here (its bytes were dropped) */
    CR_WS_RX_NOMEM = -1
} cr_ws_rx_result;

/* Takes a fragment received on wsi (LWS_CALLBACK_RECEIVE). After
 * CR_WS_RX_MESSAGE the caller handles the message, then calls
 * cr_ws_rx_reset. */
cr_ws_rx_result cr_ws_rx_add(cr_ws_rx *rx, struct lws *wsi, const char *in, size_t len, size_t max,
                             const char **msg, size_t *msg_len);

/* Frees what was collected (after a message, or when the connection
 * closes). */
void cr_ws_rx_reset(cr_ws_rx *rx);

#endif
