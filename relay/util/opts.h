/* chessrelay relay: the command lines' numbers, checked the same way by
 * every command. A value that is not a number, has anything after it, or
 * lies outside its range is an error (never strtod(v, NULL)): the message
 * "chessrelay <cmd>: <option>: expected <what>, got '<value>'" goes to
 * stderr and the command exits with status 2. */
#ifndef CR_RELAY_OPTS_H
#define CR_RELAY_OPTS_H

#include <stdbool.h>
#include <stdint.h>

/* s as a decimal number in [lo, hi]. */
bool cr_opt_number(const char *cmd, const char *opt, const char *s, double lo, double hi,
                   const char *what, double *out);

/* s as a whole decimal number in [lo, hi]. */
bool cr_opt_int(const char *cmd, const char *opt, const char *s, long long lo, long long hi,
                const char *what, long long *out);

/* s as a whole decimal number in [0, UINT64_MAX] (seeds). */
bool cr_opt_u64(const char *cmd, const char *opt, const char *s, const char *what, uint64_t *out);

#endif
