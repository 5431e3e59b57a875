/* chessrelay relay: feed files played on a feed clock, the one file source
 * of the relay's loop and of the agent.
 *
 * The feed clock: milliseconds since the epoch, where a feed file's t = 0
 * is the clock's epoch (the start of the first run, kept in a journal), and
 * which advances at `speed` times the wall clock. The files given are
 * merged in time order (ties: the earlier file) and each event is passed on
 * when the clock reaches it, with its t moved onto the clock (epoch added),
 * at most `batch` events per loop turn (a burst after a restart). Events the
 * skip callback takes (journaled by an earlier run) are passed over without
 * waiting for their time. Unreadable lines are logged and skipped.
 *
 * Ownership: cr_feed_source_new returns a new source; cr_feed_source_free
 * before the event_base (borrowed) and the clock (borrowed, read at every
 * turn: its epoch may be set between new and start). Callbacks run in the
 * loop's thread and must not free the source. */
#ifndef CR_RELAY_FEED_SOURCE_H
#define CR_RELAY_FEED_SOURCE_H

#include <event2/event.h>

#include "cr/common.h"
#include "cr/feed.h"

typedef struct cr_feed_clock {
    int64_t epoch_ms; /* wall ms at feed time 0 */
    double speed;     /* feed time per wall time (> 0) */
} cr_feed_clock;

/* The feed clock now: epoch + (wall - epoch) * speed. */
int64_t cr_feed_clock_now(const cr_feed_clock *c);

typedef struct cr_feed_source_config {
    const cr_feed_clock *clock; /* required */
    /* Whether to pass over ev (t as in the file); NULL: none is. */
    bool (*skip)(void *data, const cr_feed_event *ev);
    void (*event)(void *data, const cr_feed_event *ev); /* required; t on the clock */
    void (*file_done)(void *data, const char *path);    /* a file played to its end; may be NULL */
    void (*done)(void *data);                           /* every file played; may be NULL */
    void *data;
    int batch;              /* events per turn at most (0: 1000) */
    const char *log_prefix; /* before logged messages ("agent: "), may be NULL */
} cr_feed_source_config;

typedef struct cr_feed_source cr_feed_source;

/* Opens the files (paths copied). NULL with err filled if one cannot be
 * opened, or when out of memory. */
cr_feed_source *cr_feed_source_new(struct event_base *base, const char *const *paths, int count,
                                   const cr_feed_source_config *cfg, cr_error *err);

/* Reads the first events and starts playing (done at once if there are
 * none). */
void cr_feed_source_start(cr_feed_source *s);

/* Stops playing (no more callbacks); start is not called again. */
void cr_feed_source_stop(cr_feed_source *s);

/* The clock time of the next event to play, INT64_MAX when none is left. */
int64_t cr_feed_source_next_t(const cr_feed_source *s);

void cr_feed_source_free(cr_feed_source *s); /* accepts NULL */

/* During the event callback: the path of the file the event comes from
 * (borrowed); NULL otherwise (s NULL too). */
const char *cr_feed_source_current(const cr_feed_source *s);

#endif
