/* chessrelay relay: the journal. Every feed event that enters the relay is
 * appended as one feed line (docs/feed-format.md) to the journal of
 * the current run, before anything else is done with it; a restart rebuilds
 * the whole state by reading all journals of the state folder in order.
 *
 * Files: <dir>/journal-000001.feed, -000002, ... one per run. A journal is a
 * valid feed (the relay's own notes are comment lines, "# tick 1234").
 * Every record (what one cr_journal_append wrote: a line, or an agent's
 * comment and its line) is followed by its seal, "#= <SHA-256 hex>", the
 * hash of the previous seal and the record, chained across the files:
 * a changed, removed or reordered line breaks the chain.
 * Lines go to the file with write(2) at once, so a killed process loses
 * nothing the kernel has; fsync (group commit) runs when cr_journal_sync is
 * called, which the loop does every fsync_ms (default 100 ms) when there is
 * something new. A crash can leave a last line without its "\n" (torn): the
 * reader detects it, drops it and cuts it off the file. */
#ifndef CR_RELAY_JOURNAL_H
#define CR_RELAY_JOURNAL_H

#include <stdio.h>
#include <sys/types.h>

#include "cr/common.h"
#include "core/journal_lines.h"
#include "core/store.h"

typedef struct cr_journal cr_journal;

/* Creates dir if needed and opens a new journal file after the existing
 * ones. Returns a new object (close with cr_journal_close) or NULL with err
 * filled. */
cr_journal *cr_journal_open(const char *dir, cr_error *err);

/* Appends one line; a missing final "\n" is added. Each accepted line gets
 * the next position (1, 2, ...: cr_journal_appended after the call). When a
 * write fails (a full disk) the journal cuts a torn line off, holds this line
 * and the following ones in memory (up to 64 MiB) and writes them at the
 * next cr_journal_sync that can; it says so once in the log and in
 * cr_journal_problem. Returns 0 (written or held), CR_ENOMEM, or CR_EIO when
 * the line is lost: the memory bound was reached, after which every line is
 * refused (nothing may follow a lost line). */
int cr_journal_append(cr_journal *j, const char *line, size_t len);

/* Writes held lines (retry), then fsync()s what is written and not yet
 * synced. Returns 0, or CR_EIO while lines are held or the fsync failed. */
int cr_journal_sync(cr_journal *j);

/* Lines appended and not yet durable (held, or not fsync'ed). */
bool cr_journal_dirty(const cr_journal *j);
/* The position of the last accepted line, and of the last durable one
 * (written whole and fsync'ed): every line up to it is on disk. */
uint64_t cr_journal_appended(const cr_journal *j);
uint64_t cr_journal_durable(const cr_journal *j);
/* Why the journal is not sound (for /healthz), or NULL. */
const char *cr_journal_problem(const cr_journal *j);
/* chessrelay_journal_* metrics, Prometheus text. */
void cr_journal_metrics(const cr_journal *j, FILE *f);

/* The file operations, replaceable by tests to inject failures. */
typedef struct cr_journal_io {
    ssize_t (*write)(void *data, int fd, const void *buf, size_t len);
    int (*sync)(void *data, int fd);
    int (*truncate)(void *data, int fd, off_t size);
    void *data;
} cr_journal_io;
void cr_journal_set_io(cr_journal *j, const cr_journal_io *io);
const char *cr_journal_path(const cr_journal *j);
uint64_t cr_journal_syncs(const cr_journal *j); /* fsyncs done */

/* Syncs and closes (accepts NULL). */
void cr_journal_close(cr_journal *j);

/* Called for each complete line of the journals, oldest first, without its
 * "\n". Returning non-zero stops the reading (that value is returned). */
typedef int (*cr_journal_line_fn)(void *data, const char *line, size_t len, const char *file,
                                  int lineno);

typedef struct cr_journal_stats {
    int files;
    long lines;
    int torn;          /* torn tails dropped (a crash mid-write) */
    int unsealed;      /* files without seals (written before seals) */
    long bad;          /* problems: bad records, unsealed files after sealed ones */
    long bad_records;  /* records that do not match their seal */
    char bad_file[64]; /* the first problem: file, line, what */
    int bad_line;
    char bad_why[96];
    long keyed, unkeyed; /* records with keyed seals, with plain (older) ones */
} cr_journal_stats;

/* Reads every journal of dir (a missing dir has none), checking every seal
 * (docs/feed-format.md, "Seals"): the callback gets the lines of each
 * record, seal lines never; a record that does not match its seal is
 * handed over all the same and counted in stats (the caller reports it);
 * a torn tail is dropped and cut off the file. Returns 0, the callback's
 * non-zero value, or CR_EIO with err filled. stats may be NULL. */
int cr_journal_replay(const char *dir, cr_journal_line_fn fn, void *data, cr_journal_stats *stats,
                      cr_error *err);

/* The same check without a callback and without changing any file
 * (`chessrelay journal verify`). Returns 0 (stats tells what was found) or
 * CR_EIO with err filled. */
int cr_journal_verify(const char *dir, cr_journal_stats *stats, cr_error *err);
/* cr_journal_replay without changing any file (a torn tail is only dropped). */
int cr_journal_read(const char *dir, cr_journal_line_fn fn, void *data, cr_journal_stats *stats,
                    cr_error *err);

/* The command line of a store event (RESULT, TAG, CORRECTION, MOVE): fills
 * c's game and fields (who, at, tick and t left for the caller: none).
 * Returns false for the other kinds. */
bool cr_journal_cmd_of_event(const cr_store_event *ev, cr_journal_cmd *c);

/* The store event of a command line read back, for the store as it stands
 * (a move's UCI resolved in the game's position; a result of an older
 * journal, without a reason, gets "arbiter"). NULL with why filled when the
 * game is unknown, the move is not legal there, the command makes no store
 * event (CLOCK_ADJUST), or out of memory. The
 * caller owns it (gives seq/ts and applies it). */
cr_store_event *cr_journal_cmd_event(const cr_journal_cmd *c, const cr_store *store, char *why,
                                     size_t why_size);

#endif
