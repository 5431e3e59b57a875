/* chessrelay relay: an edge's state log, DIR/edge-<stream>.log: every
 * stream message the edge receives, appended before it is applied, one
 * sealed record per message (util/sealed_file: its line, edge_msg.h, then
 * the seal line), so that a restart applies the file again without the
 * network and resumes the stream after its last message.
 *
 * Reading it back: a torn last record (a crash mid-write) is cut off the
 * file (the stream sends that message again); a record that does not match
 * its seal is handed over all the same and reported (cr_edge_log_stats, "PATH:LINE:
 * why"), like the journal's other files; a line that is not a message is
 * skipped and the first one named (PATH:LINE). A file from before seals
 * (plain lines) is read as it is and sealed once, so that sealed records
 * can follow.
 *
 * Ownership: cr_edge_log_open returns a new log holding the file open for
 * appending; cr_edge_log_free closes it. Loop thread only. */
#ifndef CR_RELAY_EDGE_LOG_H
#define CR_RELAY_EDGE_LOG_H

#include <stdbool.h>

#include "cr/common.h"
#include "edge/edge_msg.h"

typedef struct cr_edge_log cr_edge_log;

/* A message read back; the callee takes it (free() it). */
typedef void (*cr_edge_log_fn)(void *data, cr_edge_msg *m);

typedef struct cr_edge_log_stats {
    bool found;         /* the file was there */
    long messages;      /* handed over */
    long unreadable;    /* lines that are not a message, skipped */
    char first_unreadable[320]; /* "PATH:LINE: why" of the first one */
    bool torn;          /* a torn last record was cut off */
    bool unsealed;      /* written before seals (now sealed) */
    long bad_seals;     /* records that do not match their seals (handed over) */
    char seal_problem[320]; /* "PATH:LINE: why" of the first one */
} cr_edge_log_stats;

/* Creates dir if needed, hands every message of DIR/edge-<stream>.log (if
 * there is one) to fn, in file order, and opens the file for appending.
 * Returns the log, or NULL with err filled (the folder or file cannot be
 * made, read or repaired; out of memory). */
cr_edge_log *cr_edge_log_open(const char *dir, const char *stream, cr_edge_log_fn fn, void *data,
                              cr_edge_log_stats *st, cr_error *err);
void cr_edge_log_free(cr_edge_log *l); /* accepts NULL */

const char *cr_edge_log_path(const cr_edge_log *l);

/* Appends m as one sealed record (one write). Returns 0, CR_ENOMEM or
 * CR_EIO (errno tells why). */
int cr_edge_log_append(cr_edge_log *l, const cr_edge_msg *m);

#endif
