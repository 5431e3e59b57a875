/* chessrelay relay: the head of the seals, so that a cut tail or a file
 * rewritten from scratch is found. A chain of seals proves what it holds,
 * not that nothing followed: cutting the last records (or deleting the last
 * journal file, or resealing a whole file) leaves a sound chain. The head,
 * STATE/seal.head, names the last seal of each sealed file kind the process
 * writes ("journal", "incidents.log", "events.feed"):
 *
 *   # chessrelay seal head v1
 *   journal <64 hex>
 *   incidents.log <64 hex>
 *   #% <HMAC-SHA-256 with the seal key over the lines above>
 *
 * It is rewritten by rename at most every HEAD_EVERY_MS as records are
 * written (by a thread of its own, so a quiet relay's head is current too),
 * at once after a compaction, and at a clean stop. `chessrelay journal
 * verify` then finds each kind's head seal in its chain: missing, the file
 * was cut or rewritten. Only with a key (util/seal_key.h): without one a
 * head could be rewritten as easily as the files.
 *
 * Process-wide, thread-safe (one mutex). */
#ifndef CR_RELAY_SEAL_HEAD_H
#define CR_RELAY_SEAL_HEAD_H

#include <stdbool.h>
#include <stdio.h>

#include "cr/common.h"
#include "util/seal.h"

#define CR_SEAL_HEAD_FILE "seal.head"
#define CR_SEAL_HEAD_KINDS 4

/* Starts keeping dir's head (its entries from the head there, if sound)
 * when a key is in use; does nothing otherwise. Before anything is written
 * it checks the head against the files (cr_seal_head_check): a cut made
 * while the process was stopped is found now, before this run's records
 * and head hide it; each problem is logged, counted unsound
 * (cr_seal_sound_note) and kept for cr_seal_head_problems. Returns 0 or
 * CR_EIO/ENOMEM. */
int cr_seal_head_start(const char *dir);
/* Kind `name`'s chain now ends with `last` (after a written record); `now`:
 * write the head at once (a compaction dropped the older seals). */
void cr_seal_head_note(const char *name, const cr_seal *last, bool now);
/* Writes the head and stops (a clean stop). Accepts no start. */
void cr_seal_head_stop(void);

/* Whether kind `name`'s files matched their seals when read at start (the
 * journal's rebuild, incidents.log's restore): /metrics shows it as
 * chessrelay_journal_sound{kind="..."} 1 or 0 (cr_seal_sound_metrics). */
void cr_seal_sound_note(const char *name, bool sound);
void cr_seal_sound_metrics(FILE *f);

/* One kind of a head read back. */
typedef struct cr_seal_head_entry {
    char name[32];
    cr_seal seal;
} cr_seal_head_entry;

/* A problem of the head against the files: which kind (or "seal.head"
 * itself) and what is wrong. */
typedef struct cr_seal_problem {
    char name[32];
    char text[240];
} cr_seal_problem;

/* The problems cr_seal_head_start found (at most max into out). */
int cr_seal_head_problems(cr_seal_problem *out, int max);

/* Kind `name`'s records in dir (the journal's files "journal-*.feed" in
 * order, or the file dir/name) scanned for the seal `target`: the number
 * of the record it seals (1-based), or -1 when none does (a cut tail, a
 * deleted last file, a file rewritten); *records: how many there are. */
long cr_seal_head_find(const char *dir, const char *name, const cr_seal *target, long *records);

/* dir's head against its files: its MAC, then each kind's head seal among
 * its records. Returns the problems (at most max into out; *n_head: the
 * kinds the head names, may be NULL), 0 when sound or when there is no
 * head (CR_EEOF from cr_seal_head_read: nothing to check). */
int cr_seal_head_check(const char *dir, cr_seal_problem *out, int max, int *n_head);

/* Reads dir's head, checking its MAC with the key in use: 0 with *count
 * entries, CR_EEOF when there is none, or CR_ECONFIG with err naming what
 * is wrong (no key, a bad MAC: the head was changed). */
int cr_seal_head_read(const char *dir, cr_seal_head_entry *out, int max, int *count,
                      cr_error *err);

#endif
