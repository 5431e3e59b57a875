#include "cr/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *cr_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
#define CR_ERRNO_CASE_(name, val, text) \
    case CR_##name:                     \
        return text;
        CR_ERRNO_MAP(CR_ERRNO_CASE_)
#undef CR_ERRNO_CASE_
    default:
        return "unknown error";
    }
}

void cr_error_clear(cr_error *err)
{
    if (err) { /* called per feed line: no need to wipe the text buffer */
        err->code = err->line = err->column = 0;
        err->text[0] = '\0';
    }
}

int cr_error_set(cr_error *err, int code, int line, int column, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->code = code;
        err->line = line;
        err->column = column;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
    }
    return code;
}
