/* chessrelay relay: the agent link's parts, private to agent/. The link is
 * three files, one per thread (docs/architecture.md, "Threads"):
 * agent_link.c (the loop thread: events mapped, journaled and fed,
 * ownership of boards, tick bounds; and the scan at start, before the
 * threads), agent_ws.c (the server thread: the /agent protocol) and
 * agent_records.c (the per-agent records, the one object both share, with
 * its own mutex). Besides the records, the threads meet only in the
 * queue of items, which hands each item over whole. */
#ifndef CR_RELAY_AGENT_LINK_IMPL_H
#define CR_RELAY_AGENT_LINK_IMPL_H

#include "agent/agent_link.h"
#include "agent/agent_msg.h"
#include "agent/agent_records.h"
#include "net/queue.h"

/* What the server thread hands to the loop: an agent's new events (its
 * lines, numbered from `first`) and its watermark, or its bye. */
typedef struct cr_agent_item {
    cr_agent_rec *rec;
    const cr_config_token *tok; /* the token it came with */
    int64_t first, clock;
    bool bye; /* the agent's bye: everything of it is in before this */
    size_t count;
    char **lines;
    size_t *lens;
} cr_agent_item;

void cr_agent_item_free(void *item); /* accepts NULL */

/* Who fed a board first: an agent, or the relay's own sources (""). */
typedef struct cr_agent_owner {
    char board[CR_BOARD_ID_MAX + 1];
    char agent[CR_AGENT_ID_MAX + 1];
} cr_agent_owner;

/* Events refused because another source owns the board: per board and
 * refused source. */
typedef struct cr_agent_refusal {
    char board[CR_BOARD_ID_MAX + 1];
    char source[CR_AGENT_ID_MAX + 1]; /* an agent id; "" for the relay's own sources */
    uint64_t count;
} cr_agent_refusal;

struct cr_agent_link {
    /* Fixed at cr_agent_link_new: read by both threads. */
    cr_config_token *token; /* --agent-token, or NULL */
    const cr_config *tournament;
    double speed;
    cr_agent_records *recs; /* the one shared object */
    cr_queue *in;           /* server thread -> loop: cr_agent_items */
    /* The loop thread's (and the scan's, before the threads). */
    struct event *ev;
    cr_agent_feed_fn feed;
    cr_agent_clock_fn clock;
    void *data;
    bool journaled;
    char *buf; /* journal text being built */
    size_t bufcap;
    cr_agent_owner *owners; /* boards and their first source */
    int nowners;
    /* owners by board id: open addressing, index + 1 (0: empty), hcap a
     * power of two over 2 * nowners. Every event ticks every board, and each
     * tick asks for its owner: a scan made that quadratic in the boards (800
     * boards kept the loop thread busy; docs/scale.md, the rehearsal). */
    int *hidx;
    int hcap;
    cr_agent_refusal *refusals;
    int nrefusals;
    uint64_t refusals_other; /* pairs past the ones counted one by one */
    cr_agent_refused_fn on_refused;
    void *refused_data;
};

#endif
