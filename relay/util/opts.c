/* chessrelay relay: checked numbers of the command lines. */
#include "util/opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static bool bad(const char *cmd, const char *opt, const char *s, const char *what)
{
    fprintf(stderr, "chessrelay %s: %s: expected %s, got '%s'\n", cmd, opt, what, s ? s : "");
    return false;
}

bool cr_opt_number(const char *cmd, const char *opt, const char *s, double lo, double hi,
                   const char *what, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = s && *s && !isspace((unsigned char)*s) ? strtod(s, &end) : 0;
    if (!end || *end || errno || !(v >= lo && v <= hi)) {
        return bad(cmd, opt, s, what);
    }
    *out = v;
    return true;
}

bool cr_opt_int(const char *cmd, const char *opt, const char *s, long long lo, long long hi,
                const char *what, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = s && *s && !isspace((unsigned char)*s) ? strtoll(s, &end, 10) : 0;
    if (!end || *end || errno || v < lo || v > hi) {
        return bad(cmd, opt, s, what);
    }
    *out = v;
    return true;
}

bool cr_opt_u64(const char *cmd, const char *opt, const char *s, const char *what, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = s && isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
    if (!end || *end || errno) {
        return bad(cmd, opt, s, what);
    }
    *out = v;
    return true;
}
