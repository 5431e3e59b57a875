/* chessrelay relay: feed lines in a growing buffer. */
#include "util/feed_line.h"

#include <stdlib.h>

int cr_feed_line(const cr_feed_event *ev, char **buf, size_t *cap)
{
    size_t need = CR_FEED_LINE_MAX + (ev->kind == CR_FEED_RAW ? 2 * ev->u.raw.len : 0);
    if (need > *cap) {
        char *n = realloc(*buf, need);
        if (!n) {
            return CR_ENOMEM;
        }
        *buf = n;
        *cap = need;
    }
    return cr_feed_format(ev, *buf, *cap);
}
