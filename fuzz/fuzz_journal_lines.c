/* libFuzzer target: arbitrary bytes as one line of the relay's journal
 * (relay/core/journal_lines.h), as a restart reads it back from a state
 * folder anyone with access may have changed. The parser must never crash,
 * hang or leak, and what it accepts (but a comment, which is kept as it
 * is) must write a line that parses back to the same record. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/journal_lines.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *line = (const char *)data;
    if (memchr(line, '\n', size)) {
        return 0; /* the journal hands over one line at a time */
    }
    cr_jline l;
    char why[160];
    if (cr_jline_parse(line, size, &l, why, sizeof why) != 0) {
        if (!why[0] || !memchr(why, '\0', sizeof why)) {
            abort(); /* refused without saying why */
        }
        return 0;
    }
    if (l.kind == CR_JLINE_FEED || l.kind == CR_JLINE_COMMENT || l.kind == CR_JLINE_CMD) {
        return 0; /* kept as it is; the commands have their own round trip */
    }
    int n = cr_jline_format(&l, NULL, 0);
    if (n <= 0) {
        return 0; /* e.g. a who with a control character: never written */
    }
    char *out = malloc((size_t)n + 1);
    if (!out) {
        return 0;
    }
    cr_jline back;
    if (cr_jline_format(&l, out, (size_t)n + 1) != n || out[n - 1] != '\n' ||
        cr_jline_parse(out, (size_t)n - 1, &back, why, sizeof why) != 0 || back.kind != l.kind) {
        abort();
    }
    char *again = malloc((size_t)n + 1);
    if (!again || cr_jline_format(&back, again, (size_t)n + 1) != n || memcmp(out, again, (size_t)n)) {
        abort();
    }
    free(again);
    free(out);
    return 0;
}
