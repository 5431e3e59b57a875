/* chessrelay relay: the venue agent's own journal of the events it has not
 * yet seen acknowledged by the relay, so that nothing is lost across a
 * restart of the agent, of the relay, or of the link between them.
 *
 * Files in the state folder:
 *   events.feed  "# chessrelay agent journal v2 base B epoch E" then one feed
 *                line per event: the k-th event line is event number B + k.
 *                Every line is a sealed record (util/seal.h: followed by
 *                "#= <SHA-256>" chained over the file), so a changed byte is
 *                found (cr_agent_journal_problem, `chessrelay journal
 *                verify`). Append-only; a crash can tear the last record:
 *                it is cut off at open (counted in cr_agent_journal_torn).
 *                A v1 file (from before seals) is rewritten as v2 at open.
 *   acked        "N\n": the relay has journaled every event up to N.
 *                Written by rename; if it lags (crash), events are only
 *                sent again and the relay drops what it already has.
 * When every event is acknowledged (or many are), events.feed is rewritten
 * (compacted) with a new base and only the unacknowledged lines, by a
 * rename, so it never grows without bound.
 *
 * The epoch (wall ms at the first open) is the origin of the agent's feed
 * clock; it is kept by every compaction so a restarted agent goes on with
 * the same clock.
 *
 * Not thread-safe: the caller serialises access. Ownership: open returns a
 * new object, free with cr_agent_journal_close. */
#ifndef CR_RELAY_AGENT_JOURNAL_H
#define CR_RELAY_AGENT_JOURNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cr/common.h"

typedef struct cr_agent_journal cr_agent_journal;

/* Creates dir if needed and opens (or starts) its journal; now_ms becomes
 * the epoch of a new journal. Returns NULL with err filled (names the file
 * and the line for a damaged journal). */
cr_agent_journal *cr_agent_journal_open(const char *dir, int64_t now_ms, cr_error *err);
void cr_agent_journal_close(cr_agent_journal *j); /* accepts NULL */

int64_t cr_agent_journal_last(const cr_agent_journal *j);  /* last event number (0: none yet) */
int64_t cr_agent_journal_acked(const cr_agent_journal *j); /* acknowledged up to */
int64_t cr_agent_journal_epoch(const cr_agent_journal *j);
int cr_agent_journal_torn(const cr_agent_journal *j);      /* torn lines cut off at open */
int cr_agent_journal_compactions(const cr_agent_journal *j);
/* The first record of events.feed that did not match its seal at open
 * ("<path>:<line>: why"), or NULL: the events are used all the same, the
 * caller reports it. */
const char *cr_agent_journal_problem(const cr_agent_journal *j);

/* Appends one event (a feed line, with or without its final "\n"; no other
 * newline). Returns 0 with *n (may be NULL) set to its number, CR_EINVAL
 * for a bad line, or CR_EIO. */
int cr_agent_journal_append(cr_agent_journal *j, const char *line, size_t len, int64_t *n);

/* fsync()s the appended lines (before they are sent). Returns 0 or CR_EIO. */
int cr_agent_journal_sync(cr_agent_journal *j);

/* The relay acknowledged everything up to n. n beyond the last event is
 * CR_ERANGE; n at or below the current mark changes nothing. May compact.
 * Returns 0 or CR_EIO. */
int cr_agent_journal_ack(cr_agent_journal *j, int64_t n);

/* Event n (acked < n <= last), without "\n", valid until the next call
 * that changes the journal; NULL otherwise. */
const char *cr_agent_journal_line(const cr_agent_journal *j, int64_t n, size_t *len);

/* The relay knows this agent up to `acked`, more than this journal ever
 * numbered (the agent's state was lost), or less than it acknowledged (the
 * relay's was): renumbers the unacknowledged events to follow it, so that
 * the relay neither takes them for duplicates nor for a jump it refuses
 * (the relay's numbering wins). Returns 0, CR_EINVAL if acked is between
 * the acknowledged mark and last (nothing to renumber), or CR_EIO. */
int cr_agent_journal_rebase(cr_agent_journal *j, int64_t acked);

#endif
