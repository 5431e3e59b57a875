/* chessrelay core, private: the one string builder of src/.
 *
 * Two kinds, one set of functions:
 *  - growable (cr_sb_init): the text lives on the heap and grows; running
 *    out of memory sets `failed` and stops appending. Take the text with
 *    cr_sb_take or drop it with cr_sb_free.
 *  - fixed (cr_sb_init_fixed): the caller's buffer, with snprintf semantics:
 *    `len` counts everything appended, the buffer keeps what fits and is
 *    always NUL-terminated (when its size is > 0); text that does not fit
 *    sets `failed`.
 * Either way p[len] is '\0' while nothing failed. */
#ifndef CR_STRBUF_H
#define CR_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

#include "cr/common.h"

typedef struct cr_sb {
    char *p;
    size_t len;  /* bytes appended (fixed: may exceed what the buffer holds) */
    size_t cap;  /* bytes p holds, with the NUL */
    bool fixed;  /* the caller's buffer: never grows */
    bool failed; /* out of memory (growable) or out of room (fixed) */
} cr_sb;

void cr_sb_init(cr_sb *b);
void cr_sb_init_fixed(cr_sb *b, char *buf, size_t size);
void cr_sb_add(cr_sb *b, const char *s, size_t n);
void cr_sb_str(cr_sb *b, const char *s);
void cr_sb_char(cr_sb *b, char c);
void cr_sb_fmt(cr_sb *b, const char *fmt, ...) CR_PRINTF(2, 3);
/* Growable: the text (the caller frees it) and its length, or NULL when
 * something failed (the text is then freed). The builder is left empty. */
char *cr_sb_take(cr_sb *b, size_t *len);
void cr_sb_free(cr_sb *b); /* growable: frees the text; fixed: nothing */

#endif
