/* chessrelay: shared definitions of the public API: export macro, error codes
 * and the error record that every parser of outside input fills.
 *
 * Errors: functions return 0 on success or a negative CR_E* code; cr_strerror()
 * names a code. Text parsers (FEN, SAN, PGN, feeds, config) also fill a
 * caller-provided cr_error with where and what went wrong. The library never
 * prints; only the program (relay/) logs. */
#ifndef CR_COMMON_H
#define CR_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(__GNUC__)
#define CR_EXTERN __attribute__((visibility("default")))
/* A printf-style function: fmt is argument number fmt_arg (1-based), its
 * values start at number args_arg (0 for a va_list). */
#define CR_PRINTF(fmt_arg, args_arg) __attribute__((format(printf, fmt_arg, args_arg)))
#else
#define CR_EXTERN
#define CR_PRINTF(fmt_arg, args_arg)
#endif

/* One table for all error codes: name, value, text. */
#define CR_ERRNO_MAP(X)                                                  \
    X(EINVAL, -1, "invalid argument")                                    \
    X(ENOMEM, -2, "out of memory")                                       \
    X(EFEN, -3, "invalid FEN")                                           \
    X(EMOVE, -4, "illegal or unreadable move")                           \
    X(EAMBIG, -5, "ambiguous move")                                      \
    X(EPGN, -6, "malformed PGN")                                         \
    X(EFEED, -7, "malformed feed line")                                  \
    X(EIO, -8, "input/output error")                                     \
    X(ERANGE, -9, "value out of range")                                  \
    X(EPROTO, -10, "protocol error")                                     \
    X(ENOSPC, -11, "buffer too small")                                   \
    X(ECONFIG, -12, "invalid configuration")                             \
    X(EEOF, -13, "end of input")

enum {
#define CR_ERRNO_ENUM_(name, val, text) CR_##name = (val),
    CR_ERRNO_MAP(CR_ERRNO_ENUM_)
#undef CR_ERRNO_ENUM_
};

/* Returns a static string describing a CR_E* code (never NULL). */
CR_EXTERN const char *cr_strerror(int code);

/* Where and what went wrong in a text input. line and column are 1-based;
 * 0 means "not applicable" (e.g. a FEN given on the command line). */
typedef struct cr_error {
    int code;      /* CR_E* */
    int line;
    int column;
    char text[200]; /* one line, no trailing newline */
} cr_error;

/* Clears an error record (code 0, empty text). err may be NULL. */
CR_EXTERN void cr_error_clear(cr_error *err);

/* Fills err (if not NULL) with code, position and a printf-style message, and
 * returns code, so that parsers can write `return cr_error_set(...)`. */
CR_EXTERN int cr_error_set(cr_error *err, int code, int line, int column, const char *fmt, ...)
    CR_PRINTF(5, 6);

#endif
