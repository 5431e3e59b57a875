#include "util/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *cr_grow(void *v, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap) {
        return v;
    }
    size_t n = *cap ? *cap : (first ? first : 1);
    while (n < need) {
        if (n > SIZE_MAX / 2) {
            return NULL;
        }
        n *= 2;
    }
    if (elem && n > SIZE_MAX / elem) {
        return NULL;
    }
    void *nv = realloc(v, n * elem);
    if (!nv) {
        return NULL;
    }
    *cap = n;
    return nv;
}
