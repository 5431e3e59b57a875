/* chessrelay relay: a fast non-cryptographic hash of bytes (FNV-1a, 64
 * bits), for ETags and for telling whether a body changed. Not for
 * anything an attacker may choose to collide. */
#ifndef CR_RELAY_HASH_H
#define CR_RELAY_HASH_H

#include <stddef.h>
#include <stdint.h>

uint64_t cr_fnv1a(const char *p, size_t n);

#endif
