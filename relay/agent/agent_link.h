/* chessrelay relay: the relay's end of the venue agent link (WebSocket path
 * /agent, messages in agent_msg.h, contract in docs/protocol.md "Agents").
 *
 * Threads: the lws protocol (cr_agent_link_protocol) runs in the server
 * thread: it checks the token (constant time), drops events it already has
 * (per agent, by event number) and hands the new ones to the loop thread
 * through a cr_queue woken with event_active(). The loop thread maps each
 * event onto its feed clock, journals it behind a "# agent ID N OFFSET"
 * comment line (one write, so the pair is never split) and feeds it to the
 * inference (the feed callback). After the journal's group commit the loop
 * calls cr_agent_link_synced(), and the server thread sends the cumulative
 * ack. On start the journals of the state folder are scanned for those
 * comments, so the numbers (and the clock offsets) survive a restart: an
 * event is dropped as a duplicate only if its feed line was journaled whole.
 * One file per thread: agent_ws.c (the server thread's calls below),
 * agent_link.c (the loop's, and the start); the per-agent records both
 * read and write are agent_records.h, the one object they share.
 *
 * Time: an agent stamps events with its own feed clock. The relay adds a
 * per-agent offset, fixed at the agent's first message (relay clock - agent
 * clock) and journaled with every event. Every message of an agent carries
 * a watermark ("clock"): all its events up to that time have been sent. The
 * loop must not tick past any agent's watermark (cr_agent_link_tick_bound),
 * so a tick never overtakes an event still on the wire or waiting at the
 * agent; the ticks then depend only on the event stream, live, after a cut
 * and in a rebuild alike. An agent that is away holds the relay's common
 * ticks for at most 10 s (none after it said bye); its own boards stay at
 * its watermark until it is back or said bye (cr_agent_link_board_bound).
 *
 * Ownership: cr_agent_link_new returns a new object; free it with
 * cr_agent_link_free after the server has stopped. */
#ifndef CR_RELAY_AGENT_LINK_H
#define CR_RELAY_AGENT_LINK_H

#include <event2/event.h>
#include <libwebsockets.h>
#include <stdio.h>

#include "util/buf.h"
#include "core/config.h"
#include "cr/feed.h"

typedef struct cr_agent_link cr_agent_link;

typedef struct cr_agent_link_config {
    const cr_config_token *token; /* --agent-token (copied, with its scope), or NULL */
    const cr_config *tournament; /* its tokens with role "agent" are accepted too; may be NULL */
    const char *state_dir;       /* the relay's journals (scanned at start), or NULL */
    double speed;                /* the relay's feed clock rate (1 = real time) */
} cr_agent_link_config;

/* Returns a new link, or NULL with err filled (unreadable journal). */
cr_agent_link *cr_agent_link_new(const cr_agent_link_config *cfg, cr_error *err);
void cr_agent_link_free(cr_agent_link *l); /* accepts NULL */

/*----- server thread -----*/

/* The protocol entry for the server's list (copy it; its `user` points at
 * the link). Agents connect to /agent with the WebSocket subprotocol
 * CR_AGENT_PROTOCOL. */
#define CR_AGENT_PROTOCOL "chessrelay-agent"
struct lws_protocols cr_agent_link_protocol(cr_agent_link *l);

/* {"agents":[...]} for GET /agents.json (new reference; NULL when out of
 * memory). Safe from any thread. */
cr_buf *cr_agent_link_status_json(cr_agent_link *l);

/*----- loop thread -----*/

/* ev: the event on the relay's feed clock, or NULL for an agent line that
 * could not be used (text is then only to be journaled). text (len bytes,
 * ends with "\n") is what the journal must get for it. Returns the
 * journal position of text (cr_journal_appended), or 0 if the journal did
 * not take it (then nothing of this agent is acknowledged again in this
 * run: the agent keeps its events and sends them after a restart). */
typedef uint64_t (*cr_agent_feed_fn)(void *data, const cr_feed_event *ev, const char *text,
                                     size_t len);
/* The relay's feed clock now (ms). */
typedef int64_t (*cr_agent_clock_fn)(void *data);

/* Starts delivering events on base. journaled: the feed callback writes a
 * journal and cr_agent_link_synced() will be called after each sync;
 * otherwise events are acknowledged as soon as they are fed. Returns 0 or
 * CR_ENOMEM. */
int cr_agent_link_attach(cr_agent_link *l, struct event_base *base, cr_agent_feed_fn feed,
                         cr_agent_clock_fn clock, void *data, bool journaled);

/* Every journal line up to position `durable` (cr_journal_durable;
 * UINT64_MAX without a journal) is written and synced: acknowledge the
 * events in them. An event is acknowledged only once its line is durable. */
void cr_agent_link_synced(cr_agent_link *l, uint64_t durable);

/* The latest feed-clock time the loop may tick to: `bound`, or less while
 * an agent's watermark is behind it (see above). */
int64_t cr_agent_link_tick_bound(cr_agent_link *l, int64_t bound);

/* The latest feed-clock time board `board` may be ticked to: `bound`, or
 * less while the agent that feeds it has not delivered everything up to it
 * (its watermark), however long that agent is away: events it still holds
 * come later with their own times, and a board ticked past them would take
 * them late. Only its bye (after its last events, in order) frees its
 * boards. A board of the relay's own sources: `bound`. Loop thread. */
int64_t cr_agent_link_board_bound(cr_agent_link *l, const char *board, int64_t bound);

/* The relay's own source (a feed file, a DGT board) feeds board `board`:
 * true if the board is not an agent's (it becomes the relay's if nobody fed
 * it yet); false (logged) if an agent fed it first: the event is refused.
 * Loop thread, outside the rebuild. */
bool cr_agent_link_claim_local(cr_agent_link *l, const char *board);

/* The agent that fed board `board` first, or NULL (none, the relay's own
 * source, or l NULL). Loop thread. */
const char *cr_agent_link_owner(const cr_agent_link *l, const char *board);

/* An event refused because another source owns its board: called once per
 * (board, source) pair and run, on the first such refusal. source and owner
 * are agent ids, "" for the relay's own sources. Loop thread. */
typedef void (*cr_agent_refused_fn)(void *data, const char *board, const char *source,
                                    const char *owner);
void cr_agent_link_on_refused(cr_agent_link *l, cr_agent_refused_fn fn, void *data);

/* chessrelay_board_ownership_refused_total{board,source}, Prometheus text
 * (source "agent:ID", or "relay" for the relay's own). Loop thread. */
void cr_agent_link_metrics(const cr_agent_link *l, FILE *f);

/* Events held per agent after the scan: the highest journaled number of
 * agent `agent` (0 if unknown). For tests and logs. */
int64_t cr_agent_link_journaled(cr_agent_link *l, const char *agent);

#endif
