/* chessrelay relay: Ed25519 signatures over the state folder's sealed files
 * (OpenSSL's libcrypto), so that anyone with the relay's public key, and
 * without its secrets, can check a copy of the folder (docs/feed-format.md,
 * "Signatures"). The seals (util/seal.h) are HMACs: checking them takes the
 * folder's seal.key, and whoever holds it can reseal. A signature can be
 * checked by anybody and made only with the signing key, which lives
 * outside the state folder (`chessrelay journal keygen FILE`, then
 * `serve --signing-key FILE`).
 *
 * What is signed: checkpoints of the files the relay appends to (its
 * journal file of this run, incidents.log). A checkpoint is one line of
 * STATE/signatures.log:
 *
 *   <file> <bytes> <SHA-256 hex of the file's first <bytes> bytes> <wall ms> <signature hex>
 *
 * the signature over "chessrelay-sig v1 <file> <bytes> <sha256> <ms>". One
 * is written at most every CR_SIGN_EVERY_MS while a file grows (by a thread
 * of its own) and at a clean stop. An edit before a checkpoint's end
 * changes its hash, a cut tail or a deleted file leaves a checkpoint longer
 * than the file: `chessrelay journal verify DIR --pubkey FILE` finds both.
 * The latest checkpoints are also published (GET /journal/head, the public
 * key at /journal/pubkey), so that a copy of them kept elsewhere finds
 * checkpoints removed from signatures.log as well.
 *
 * The key files: 64 hex digits and "\n"; the secret one (the seed) mode
 * 0600, refused when others may read it; the public one beside it (.pub).
 *
 * The signer is process-wide and thread-safe (one mutex). */
#ifndef CR_RELAY_SIGN_H
#define CR_RELAY_SIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cr/common.h"

#define CR_SIGN_FILE "signatures.log"
#define CR_SIGN_EVERY_MS 5000
#define CR_SIGN_PUB_BYTES 32
#define CR_SIGN_BYTES 64

typedef struct cr_sign_key {
    unsigned char seed[32];
    unsigned char pub[CR_SIGN_PUB_BYTES];
} cr_sign_key;

/* A new key pair: path (the secret, 0600; not overwritten) and path.pub.
 * Returns 0 or CR_EIO/CR_ECONFIG with err naming the file. */
int cr_sign_keygen(const char *path, cr_error *err);
/* The secret key at path (its public half computed). 0 or CR_EIO/CR_ECONFIG. */
int cr_sign_key_load(const char *path, cr_sign_key *key, cr_error *err);
/* A public key: a .pub file (64 hex digits). 0 or CR_EIO/CR_ECONFIG. */
int cr_sign_pub_load(const char *path, unsigned char pub[CR_SIGN_PUB_BYTES], cr_error *err);

/* Ed25519 of msg with key; false when libcrypto fails. */
bool cr_sign_make(const cr_sign_key *key, const void *msg, size_t len,
                  unsigned char sig[CR_SIGN_BYTES]);
/* Whether sig is pub's signature of msg. */
bool cr_sign_check(const unsigned char pub[CR_SIGN_PUB_BYTES], const void *msg, size_t len,
                   const unsigned char sig[CR_SIGN_BYTES]);

/* The message a checkpoint signs, into out (size bytes). Returns its length. */
size_t cr_sign_message(char *out, size_t size, const char *file, long long bytes,
                       const char *sha_hex, long long wall_ms);

/* Hex of n bytes into out (2n + 1 bytes); false from unhex on anything but
 * exactly 2n lower- or upper-case hex digits. */
void cr_sign_hex(const unsigned char *b, size_t n, char *out);
bool cr_sign_unhex(const char *s, size_t len, unsigned char *out, size_t n);

/* Checks dir's signatures.log with pub (util/sign_check.c), without any
 * secret: each checkpoint's signature, then each signed file against its
 * checkpoints. Every problem is printed to out with the file and line (a
 * changed file: the lines between the last checkpoint that holds and the
 * first that does not; a cut one: its length against the checkpoint's), and
 * what could not be checked (files without a checkpoint, bytes after the
 * last one). *problems: contradictions (forged, changed, cut, deleted);
 * *unsigned_files: files of the journal without any checkpoint. Returns 0,
 * or CR_EEOF when there is no signatures.log. */
int cr_sign_verify(const char *dir, const unsigned char pub[CR_SIGN_PUB_BYTES], FILE *out,
                   long *problems, int *unsigned_files);
/* The last checkpoint line of file `name` in dir's signatures.log into
 * line (size bytes, no "\n"), *lineno its line; false when none. */
bool cr_sign_last_checkpoint(const char *dir, const char *name, char *line, size_t size,
                             int *lineno);

/* Starts signing checkpoints of the followed files into dir's
 * signatures.log with key (copied). Returns 0 or CR_EIO. */
int cr_signer_start(const char *dir, const cr_sign_key *key);
/* A file of dir (its name, no folder) to checkpoint from now on; nothing
 * when the signer is not running. */
void cr_signer_follow(const char *name);
/* A checkpoint of every file that grew, now (also what the thread does). */
void cr_signer_checkpoint(void);
/* The last checkpoint and stop (a clean stop). */
void cr_signer_stop(void);
/* The public key in use as hex (65 bytes); false when not signing. */
bool cr_signer_pub(char *hex);
/* The latest checkpoint line of each followed file, into out (size bytes,
 * NUL-terminated); "" when none. */
void cr_signer_head(char *out, size_t size);

#endif
