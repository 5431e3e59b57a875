/* chessrelay relay: a feed event as its text line, in a buffer that grows
 * to fit (a RAW event's hex can be far longer than the other kinds), for
 * the commands that write feeds (record, agent). */
#ifndef CR_RELAY_FEED_LINE_H
#define CR_RELAY_FEED_LINE_H

#include <stddef.h>

#include "cr/feed.h"

/* Formats ev (cr_feed_format) into *buf, which is grown (realloc) to fit;
 * *buf and *cap start as NULL and 0 and belong to the caller (free(*buf)).
 * Returns the line's length, CR_ENOMEM, or cr_feed_format's error. */
int cr_feed_line(const cr_feed_event *ev, char **buf, size_t *cap);

#endif
