/* A feed through the inference into a monitor, as the relay's arbiter link
 * drives them (moves, corrections, clock readings, a source time for every
 * line), the board's first game only: shared by the cmocka suites that
 * judge whole feeds (test_arbiter, test_floor). Header only, each suite is
 * one executable; include it after <cmocka.h>.
 *
 * Ownership: cr_test_feed_run_file fills r with a game, a clock and a monitor of
 * its own, freed by cr_test_feed_run_free. */
#ifndef CR_TEST_FEED_RUN_H
#define CR_TEST_FEED_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "cr/arbiter.h"
#include "cr/feed.h"
#include "cr/infer.h"

typedef struct cr_test_feed_run {
    cr_game *game;
    cr_clock *clock;
    cr_monitor *mon;
} cr_test_feed_run;

/* The inference's events for game 1, applied as the arbiter link does. */
static inline void cr_test_feed_run_event(void *data, const cr_infer_event *ev)
{
    cr_test_feed_run *r = data;
    if (ev->game_number != 1) {
        return;
    }
    if (ev->kind == CR_INFER_MOVE && ev->ply == cr_game_ply_count(r->game)) {
        const cr_ply *p = cr_game_ply(ev->game, ev->ply);
        if (p->flags & CR_PLY_ILLEGAL) {
            assert_int_equal(cr_game_push_illegal(r->game, &p->after, p->san, p->clock_ms, p->ts),
                             0);
        } else {
            assert_int_equal(cr_game_push(r->game, p->move, p->clock_ms, p->ts, p->flags), 0);
        }
        cr_monitor_update(r->mon, ev->t);
    } else if (ev->kind == CR_INFER_CORRECTION) {
        cr_game_truncate(r->game, ev->ply);
        cr_monitor_update(r->mon, ev->t);
    } else if (ev->kind == CR_INFER_CLOCK) {
        cr_monitor_clock(r->mon, ev->t, ev->white_ms, ev->black_ms, ev->running);
    }
}

/* Runs the feed at path (a game from the standard position, a clock without
 * a time control, a monitor with cfg or the defaults when NULL), then a
 * source time `after_ms` past its last line. Fails the test when the file
 * cannot be opened or a line cannot be read. */
static inline void cr_test_feed_run_file(cr_test_feed_run *r, const char *path,
                                         const cr_monitor_config *cfg, int64_t after_ms)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fail_msg("%s: cannot open", path);
    }
    r->game = cr_game_new(NULL);
    r->clock = cr_clock_new(NULL, NULL);
    assert_non_null(r->game);
    assert_non_null(r->clock);
    r->mon = cr_monitor_new(r->game, r->clock, cfg);
    assert_non_null(r->mon);
    cr_infer *inf = cr_infer_new("x", NULL, cr_test_feed_run_event, r);
    cr_feed_reader *rd = cr_feed_reader_new(f, path);
    assert_non_null(inf);
    assert_non_null(rd);
    cr_feed_event ev;
    cr_error err;
    int64_t last = 0;
    int rc;
    while ((rc = cr_feed_reader_next(rd, &ev, &err)) == 1) {
        cr_infer_feed(inf, &ev);
        cr_monitor_source_time(r->mon, ev.t);
        last = ev.t;
    }
    if (rc != 0) {
        fail_msg("%s: %s", path, err.text);
    }
    cr_infer_finish(inf, last);
    cr_monitor_source_time(r->mon, last + after_ms);
    cr_feed_reader_free(rd);
    fclose(f);
    cr_infer_free(inf);
}

static inline void cr_test_feed_run_free(cr_test_feed_run *r)
{
    cr_monitor_free(r->mon);
    cr_clock_free(r->clock);
    cr_game_free(r->game);
}

#endif
