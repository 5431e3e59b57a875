/* chessrelay relay: seals, the tamper evidence of the files the relay and
 * the agent append to (docs/feed-format.md, "Seals"). Every record (one or
 * more whole lines written together) is followed by its seal line
 * "#= <SHA-256 hex>", the hash of the previous record's seal and the
 * record: a changed, removed or reordered line breaks the chain. Used by
 * the relay's journal (core/journal: the chain goes on across its files),
 * incidents.log (arbiter/arbiter_link) and the agent's events.feed
 * (agent/agent_journal), and checked by `chessrelay journal verify`.
 *
 * Pure functions over memory; no state, no I/O. */
#ifndef CR_RELAY_SEAL_H
#define CR_RELAY_SEAL_H

#include <stdbool.h>
#include <stddef.h>

#define CR_SEAL_BYTES 32
#define CR_SEAL_LINE (3 + 2 * CR_SEAL_BYTES + 1) /* "#= " 64 hex "\n" */

/* The last record's seal; all zero before the first record. `keyed`: the
 * chain has a keyed seal, so an unkeyed one after it is a forgery (someone
 * without the key resealed). */
typedef struct cr_seal {
    unsigned char h[CR_SEAL_BYTES];
    bool keyed;
} cr_seal;

/* Keyed seals: with a key (the state folder's seal.key, util/seal_key.h)
 * a seal is HMAC-SHA-256(key, previous seal || record), written "#% <hex>",
 * so that nobody without the key can recompute the chain after an edit.
 * Without one it is plain SHA-256, written "#= <hex>" (the older format:
 * tamper evidence against accidents only). Files may hold both (older
 * records first). */
typedef struct cr_seal_key {
    unsigned char k[CR_SEAL_BYTES];
} cr_seal_key;

/* The key of new seals and of checking keyed ones, for the whole process
 * (NULL: none). Set once at start, before any thread that seals. */
void cr_seal_use_key(const cr_seal_key *key);
/* Whether a key is in use. */
bool cr_seal_have_key(void);

/* HMAC-SHA-256 of data with the key in use; false when there is none. */
bool cr_seal_mac(const void *data, size_t len, unsigned char out[CR_SEAL_BYTES]);

/* HMAC-SHA-256 (RFC 2104) of a || b with key (klen <= 64 bytes). */
void cr_seal_hmac(const unsigned char *key, size_t klen, const void *a, size_t alen, const void *b,
                  size_t blen, unsigned char out[CR_SEAL_BYTES]);

/* The seal line of record rec (len bytes, whole lines with their "\n")
 * after *chain into out (CR_SEAL_LINE bytes, no NUL); *chain becomes the
 * record's seal. */
void cr_seal_record(cr_seal *chain, const char *rec, size_t len, char *out);

/* rec (len bytes; a missing final "\n" is added) followed by its seal line
 * after *chain: in buf when it fits (size bytes), else in a new malloc'ed
 * buffer (free it when it is not buf). *n: its bytes; *next: the record's
 * seal (for the chain once it is written). NULL when out of memory. */
char *cr_seal_frame(const cr_seal *chain, const char *rec, size_t len, char *buf, size_t size,
                    size_t *n, cr_seal *next);

/* Whether a line (without its "\n") is a seal line (keyed or not). */
bool cr_seal_is_line(const char *line, size_t len);

/* Whether text holds any seal line (a file written with seals). */
bool cr_seal_any(const char *text, size_t len);

/* A sealed text read back: called for each record (text[from, to), whole
 * lines) with the number of its first line, whether its seal is keyed, and
 * why it does not match its seal (NULL when it does; then the number of
 * the line to report is bad_line). Returning non-zero stops the scan (that value is returned). */
typedef int (*cr_seal_record_fn)(void *data, size_t from, size_t to, int first_line,
                                 const char *bad, int bad_line, bool keyed);

/* Checks every record of text (len bytes) against its seal, going on from
 * *chain (updated); after a bad record the chain goes on from the seal
 * written, so that only the changed record is reported. *keep: the end of
 * the last sealed record (what follows is a torn tail: a crash mid-write);
 * *lines: the lines up to it. Returns 0 or the callback's value. */
int cr_seal_scan(const char *text, size_t len, cr_seal *chain, cr_seal_record_fn fn, void *data,
                 size_t *keep, int *lines);

/* The last whole seal of text into *out (left as it is when there is none). */
void cr_seal_last(const char *text, size_t len, cr_seal *out);

#endif
