/* chessrelay core: the string builder (see strbuf.h). */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cr_sb_init(cr_sb *b)
{
    *b = (cr_sb){0};
}

void cr_sb_init_fixed(cr_sb *b, char *buf, size_t size)
{
    *b = (cr_sb){.p = buf, .cap = size, .fixed = true};
    if (size) {
        buf[0] = '\0';
    }
}

static bool grow(cr_sb *b, size_t need)
{
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) {
        cap *= 2;
    }
    char *q = realloc(b->p, cap);
    if (!q) {
        b->failed = true;
        return false;
    }
    b->p = q;
    b->cap = cap;
    return true;
}

void cr_sb_add(cr_sb *b, const char *s, size_t n)
{
    if (b->fixed) {
        if (b->len + n + 1 > b->cap) {
            b->failed = true;
        }
        if (b->cap && b->len + 1 < b->cap) {
            size_t room = b->cap - 1 - b->len;
            memcpy(b->p + b->len, s, n < room ? n : room);
        }
        b->len += n;
        if (b->cap) {
            b->p[b->len < b->cap ? b->len : b->cap - 1] = '\0';
        }
        return;
    }
    if (b->failed || (b->len + n + 1 > b->cap && !grow(b, b->len + n + 1))) {
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void cr_sb_str(cr_sb *b, const char *s)
{
    cr_sb_add(b, s, strlen(s));
}

void cr_sb_char(cr_sb *b, char c)
{
    cr_sb_add(b, &c, 1);
}

void cr_sb_fmt(cr_sb *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    if ((size_t)n < sizeof tmp) {
        cr_sb_add(b, tmp, (size_t)n);
        return;
    }
    /* Longer than the scratch: format again into a heap copy. */
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cr_sb_add(b, big, (size_t)n);
    free(big);
}

char *cr_sb_take(cr_sb *b, size_t *len)
{
    char *p = b->p;
    size_t n = b->len;
    bool failed = b->failed;
    *b = (cr_sb){0};
    if (failed) {
        free(p);
        return NULL;
    }
    if (!p) {
        p = calloc(1, 1);
    }
    if (len) {
        *len = p ? n : 0;
    }
    return p;
}

void cr_sb_free(cr_sb *b)
{
    if (!b->fixed) {
        free(b->p);
    }
    *b = (cr_sb){0};
}
