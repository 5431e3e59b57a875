/* chessrelay relay: the agents' records, the one object the agent link's
 * two threads share (docs/architecture.md, "Threads"). The server thread
 * (agent/agent_ws.c: hellos, events received, acks to send, closes) and the
 * loop thread (agent/agent_link.c: events journaled and fed, watermarks,
 * what the journal has made durable, tick bounds) each see an agent only
 * through the calls below; every call takes the records' own mutex, so
 * no other code of the link locks anything.
 *
 * Per agent: its event numbers (received, journaled, durable, its own last),
 * its clock offset and watermark, whether it is connected or said bye, its
 * connection (an opaque pointer the server thread owns), counters and its
 * boards for /agents.json.
 *
 * Ownership: cr_agent_records_new returns a new object (free with
 * cr_agent_records_free, after both threads are done with it); a record
 * lives as long as its object, so a cr_agent_rec pointer stays valid. */
#ifndef CR_RELAY_AGENT_RECORDS_H
#define CR_RELAY_AGENT_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "cr/feed.h"
#include "util/buf.h"

typedef struct cr_agent_records cr_agent_records;
typedef struct cr_agent_rec cr_agent_rec;

cr_agent_records *cr_agent_records_new(void); /* NULL when out of memory */
void cr_agent_records_free(cr_agent_records *s); /* accepts NULL */

/* Agent `name`'s record, made if `create` (NULL: none, or out of memory). */
cr_agent_rec *cr_agent_records_get(cr_agent_records *s, const char *name, bool create);
/* Its id (fixed: no lock needed). */
const char *cr_agent_rec_name(const cr_agent_rec *r);

/* The highest journaled event number of agent `name` (0 if unknown). */
int64_t cr_agent_records_journaled(cr_agent_records *s, const char *name);

/* {"agents":[...]} for GET /agents.json (new reference; NULL when out of
 * memory). Any thread. */
cr_buf *cr_agent_records_status_json(cr_agent_records *s);

/*----- the scan of the journals at start (before the threads) -----*/

/* Logs, per agent, how far the journal holds its events. */
void cr_agent_records_log(cr_agent_records *s);

/* The agent said bye after its event n. */
void cr_agent_records_scan_bye(cr_agent_records *s, cr_agent_rec *r, int64_t n);
/* An "# agent" record: the agent is back (after a bye, events again). */
void cr_agent_records_scan_back(cr_agent_records *s, cr_agent_rec *r);
/* Its event n, with offset off, is in the journal whole; board (NULL for a
 * skipped number) is where it went, with its feed time t (agent clock, its
 * watermark) when has_t. */
void cr_agent_records_scan_event(cr_agent_records *s, cr_agent_rec *r, int64_t n, int64_t off,
                                 const char *board, bool has_t, int64_t t);

/*----- loop thread -----*/

/* The agent's clock offset; sets it to `off` first if it has none (true
 * then: its first message). */
bool cr_agent_records_fix_offset(cr_agent_records *s, cr_agent_rec *r, int64_t off,
                                 int64_t *out);
/* Event n is at or below the highest journaled one (a duplicate). */
bool cr_agent_records_have(cr_agent_records *s, cr_agent_rec *r, int64_t n);
/* One more event refused (its board): the count so far. */
uint64_t cr_agent_records_refused(cr_agent_records *s, cr_agent_rec *r);

/* Event n was handed to the journal at position pos (0: the journal did not
 * take it); ev is the event fed (NULL: its number skipped), lag_ms how long
 * it waited at the agent. Returns true when this is the first line of the
 * agent the journal lost (then no ack again in this run; the caller logs
 * it). `journaled`: a journal's sync acknowledges, not the feed. */
bool cr_agent_records_delivered(cr_agent_records *s, cr_agent_rec *r, int64_t n, uint64_t pos,
                                bool journaled, const cr_feed_event *ev, int64_t lag_ms);
/* Everything of the agent up to its clock `clock` is in: its watermark. */
void cr_agent_records_watermark(cr_agent_records *s, cr_agent_rec *r, int64_t clock);
/* Its bye reached the loop after its events: returns its last number. */
int64_t cr_agent_records_bye_in(cr_agent_records *s, cr_agent_rec *r);
/* Journal lines up to position `durable` are synced: true if an agent has
 * new durable events (its connection is to send an ack). */
bool cr_agent_records_synced(cr_agent_records *s, uint64_t durable);
/* cr_agent_link_board_bound for the board's owner `name`. */
int64_t cr_agent_records_board_bound(cr_agent_records *s, const char *name, int64_t bound);
/* cr_agent_link_tick_bound: agents away (or silent) hold_us or longer, or
 * that said bye, no longer hold it. */
int64_t cr_agent_records_tick_bound(cr_agent_records *s, int64_t bound, int64_t now_us,
                                    int64_t hold_us);

/*----- server thread -----*/

/* The server thread's wake-up (lws_cancel_service), called by
 * cr_agent_records_wake from the loop thread; NULL: none. */
void cr_agent_records_set_wake(cr_agent_records *s, void (*fn)(void *), void *data);
void cr_agent_records_wake(cr_agent_records *s);

/* What an agent-hello found. */
typedef struct cr_agent_hello_info {
    void *replaced; /* the agent's previous connection, still open (to close), or NULL */
    int64_t durable; /* its events the relay holds durably */
} cr_agent_hello_info;

/* Agent `name` connected on conn from peer, with events up to n and its
 * clock: its record (made if new; NULL when out of memory). */
cr_agent_rec *cr_agent_records_hello(cr_agent_records *s, const char *name, void *conn,
                                     const char *peer, int64_t n, int64_t clock,
                                     cr_agent_hello_info *info);

/* The number the agent's next new event must have (one past the highest
 * received, or journaled before a restart). */
int64_t cr_agent_records_expected(cr_agent_records *s, cr_agent_rec *r);

/* An "ev" of `count` events numbered from `first` (count 0: a tick, from the
 * next number) with the agent's clock: counts duplicates, marks the new
 * ones received. *skip: how many of them the loop has had already; *old:
 * the previous received number (for cr_agent_records_unreceive). Returns
 * the number of the first one of the message. */
int64_t cr_agent_records_received(cr_agent_records *s, cr_agent_rec *r, int64_t first,
                                  size_t count, int64_t clock, size_t *skip, int64_t *old);
/* The hand-off of events up to `last` failed: received is `old` again (the
 * agent sends them after its reconnect). */
void cr_agent_records_unreceive(cr_agent_records *s, cr_agent_rec *r, int64_t last, int64_t old);
/* A tick or a bye with the agent's last number n. */
void cr_agent_records_seen(cr_agent_records *s, cr_agent_rec *r, int64_t n, bool bye);
/* Whether conn is still the agent's connection; *durable: what to ack. */
bool cr_agent_records_current(cr_agent_records *s, cr_agent_rec *r, const void *conn,
                              int64_t *durable);
/* Calls fn with each connection with new durable events to acknowledge. */
void cr_agent_records_notify(cr_agent_records *s, void (*fn)(void *conn));
/* conn closed: true if it was the agent's current connection (now away). */
bool cr_agent_records_closed(cr_agent_records *s, cr_agent_rec *r, const void *conn);

#endif
