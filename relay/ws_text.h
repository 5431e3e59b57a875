/* chessrelay relay: one text frame written on a libwebsockets connection,
 * for the agent link's two ends (agent_link.c, cmd_agent.c), which write a
 * single message per WRITEABLE.
 *
 * Threads: the lws service thread of wsi only (lws rule). */
#ifndef CR_RELAY_WS_TEXT_H
#define CR_RELAY_WS_TEXT_H

#include <libwebsockets.h>

/* Writes the NUL-terminated s as one text message and frees it (s may be
 * NULL: a message that could not be built). Returns 0, or -1 when s is
 * NULL, memory ran out or the write fell short (close the connection). */
int cr_ws_send_text(struct lws *wsi, char *s);

#endif
