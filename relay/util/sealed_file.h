/* chessrelay relay: an append-only text file of sealed records (seal.h), for
 * the files beside the journal: incidents.log (arbiter/arbiter_link) and
 * the agent's events.feed (agent/agent_journal). Each append is one record
 * (whole lines) and its seal line in one write, so a crash tears at most
 * the last record; the chain starts afresh in each file.
 *
 * Nothing is kept between calls: the caller holds the fd and the chain. */
#ifndef CR_RELAY_SEALED_FILE_H
#define CR_RELAY_SEALED_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "cr/common.h"
#include "util/fileio.h"
#include "util/seal.h"

/* What reading a sealed file found. */
typedef struct cr_sealed_stats {
    int lines;     /* lines handed over (seal lines not counted) */
    bool unsealed; /* written before seals: no seal at all */
    bool torn;     /* a torn tail (a crash mid-write), dropped */
    long bad;      /* records that do not match their seals */
    int bad_line;  /* the first one's line, and why */
    char bad_why[96];
    long keyed, unkeyed; /* records with keyed seals, with plain ones (older) */
} cr_sealed_stats;

/* The check of cr_sealed_read on text (len bytes) already read, the chain
 * going on from *chain (updated; for files chained one after another);
 * *keep: the end of what is whole (a torn tail after it). Changes nothing. */
int cr_sealed_scan_text(const char *text, size_t len, cr_seal *chain, cr_line_fn fn, void *data,
                        cr_sealed_stats *st, size_t *keep);

/* Reads the file at path: fn (may be NULL) gets every line of every record
 * (without "\n", numbered as in the file), never a seal line; a record that
 * does not match its seal is handed over all the same and counted in *st.
 * A file without any seal (from before seals) is read line by line. With
 * repair set, a torn tail is cut off the file, and a file from before seals
 * gets one seal over all its lines, so that sealed records can follow.
 * *chain (may be NULL) gets the last seal, for cr_sealed_append. Returns 0,
 * fn's non-zero value, or CR_EIO with err filled (errno ENOENT: no file). */
int cr_sealed_read(const char *path, bool repair, cr_line_fn fn, void *data, cr_seal *chain,
                   cr_sealed_stats *st, cr_error *err);

/* Appends rec (len bytes; a missing final "\n" is added) and its seal to
 * fd in one write; *chain goes on only if it was written. Returns 0,
 * CR_ENOMEM or CR_EIO (errno tells why). */
int cr_sealed_append(int fd, cr_seal *chain, const char *rec, size_t len);

#endif
