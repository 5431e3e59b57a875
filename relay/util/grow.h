/* chessrelay relay: the one way an array of the relay grows. */
#ifndef CR_RELAY_GROW_H
#define CR_RELAY_GROW_H

#include <stddef.h>

/* Returns the array v (room for *cap elements of elem bytes) with room for
 * at least need: realloc'ed to twice its room (first, when it had none)
 * until need fits, *cap updated. NULL when out of memory or on overflow: v
 * and *cap are then as they were, v still the caller's. */
void *cr_grow(void *v, size_t *cap, size_t need, size_t elem, size_t first);

#endif
