/* chessrelay relay: the key of the seals (util/seal.h), kept in a state
 * folder as "seal.key": 64 hex digits and "\n", made on the first start
 * from getrandom(), mode 0600. A key readable by others is refused (anyone
 * who can read it can reseal a rewritten file). The relay keeps its own
 * (its --state), an agent its own (its --state); `chessrelay journal
 * verify DIR` reads DIR's to check the keyed seals.
 *
 * Ownership: no state of its own; cr_seal_key_setup hands the key to
 * cr_seal_use_key (process-wide, before the threads). */
#ifndef CR_RELAY_SEAL_KEY_H
#define CR_RELAY_SEAL_KEY_H

#include <stdbool.h>

#include "cr/common.h"
#include "util/seal.h"

#define CR_SEAL_KEY_FILE "seal.key"

/* Reads dir's seal.key into *key. Returns 0, CR_EEOF when there is none
 * (err not set), or CR_EIO/CR_ECONFIG with err naming the file and what is
 * wrong (unreadable, not 64 hex digits, readable by others). */
int cr_seal_key_load(const char *dir, cr_seal_key *key, cr_error *err);

/* cr_seal_key_load, making dir (and its parents) and a new key first when there is
 * none if create; then cr_seal_use_key with it (none: unkeyed). *created
 * (may be NULL): a new key was made. Returns 0 or the error of load. */
int cr_seal_key_setup(const char *dir, bool create, bool *created, cr_error *err);

#endif
