/* chessrelay relay: a command, what the server thread asks the loop thread
 * to do (docs/architecture.md, "Threads"): a trusted client's result or
 * tag, an arbiter's action, an arbiter accepting a board's position.
 *
 * Made in the server thread (net/server_ws.c) from a client's message and
 * applied in the loop thread (core/loop.c), or by the edge, which refuses
 * them. It lives here, beside the loop that applies it, so that the loop's
 * folder needs nothing of the server's.
 *
 * Ownership: plain data, no pointers: the sender mallocs it, the queue
 * (net/queue.h) carries it, the receiver frees it with free(). */
#ifndef CR_RELAY_COMMAND_H
#define CR_RELAY_COMMAND_H

#include "arbiter/arbiter_cmd.h"
#include "core/store.h"

typedef enum cr_command_kind {
    CR_COMMAND_RESULT = 0,
    CR_COMMAND_TAG,
    CR_COMMAND_ARBITER,
    CR_COMMAND_ACCEPT_BOARD /* the arbiter accepts the board's position ("accept-board") */
} cr_command_kind;

typedef struct cr_command_msg {
    cr_command_kind kind;
    int game;
    cr_result result;
    char name[CR_TAG_NAME_MAX];
    char value[CR_TAG_VALUE_MAX];
    char who[64]; /* the token's name or role, for the log */
    cr_arbiter_cmd arbiter; /* CR_COMMAND_ARBITER */
    int side; /* ACCEPT_BOARD: who is to move, CR_WHITE, CR_BLACK or -1 (the clock says) */
} cr_command_msg;

#endif
