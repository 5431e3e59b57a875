/* chessrelay relay: the boards as DGT LiveChess shows them ("eboards"), for
 * the LiveChess local API (net/livechess.h, docs/protocol.md section "DGT
 * LiveChess local API"). Loop thread.
 *
 * Per board (its id is the API's `serialnr`): its source (a live board's
 * device, a feed file's base name, "agent:<id>"), whether it is connected,
 * what it shows (the last snapshot the inference was fed, decoded from RAW
 * and named for occupancy boards: core/board_infer.h), its clock, battery
 * and orientation. Each change is published (CR_PUB_EBOARD, core/publish.h) as
 * ready JSON: the board's "eboards" entry and its "eboardevent" feed param.
 * While quiet (a journal rebuild) nothing is published; leaving quiet
 * publishes every board once.
 *
 * Ownership: cr_eboards_new returns a new object, freed by cr_eboards_free;
 * the cr_board_infer objects handed in are borrowed and must outlive it (the
 * loop frees its boards after it). Every function accepts a NULL cr_eboards
 * (the API is off) and then does nothing. */
#ifndef CR_RELAY_EBOARDS_H
#define CR_RELAY_EBOARDS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/board_infer.h"
#include "core/publish.h"
#include "cr/feed.h"
#include "dgt_link.h"

typedef struct cr_eboards_config {
    void (*publish)(void *data, cr_pub *p); /* takes p */
    void *data;
    int64_t (*now_ms)(void *data);          /* wall clock, ms since the epoch (NULL: the system's) */
} cr_eboards_config;

typedef struct cr_eboards cr_eboards;

cr_eboards *cr_eboards_new(const cr_eboards_config *cfg); /* NULL when out of memory */
void cr_eboards_free(cr_eboards *e);                       /* accepts NULL */

/* Quiet while rebuilding from the journal; turning it off publishes every
 * board's state once. */
void cr_eboards_set_quiet(cr_eboards *e, bool quiet);

/* A feed event of a board, before the inference gets it (infer: the
 * board's; its POS and CLOCK reach the board through cr_board_infer_watch).
 * feed_path: the feed file it came from, or NULL; agent: the agent that fed
 * it, or NULL. Out of memory: logged, the board not followed. */
void cr_eboards_feed(cr_eboards *e, const cr_feed_event *ev, cr_board_infer *infer,
                    const char *feed_path, const char *agent);

/* A live board's link changed (source_boards.h): device name and health. */
void cr_eboards_health(cr_eboards *e, const char *name, const cr_dgt_health *h);

/* Boards known, and the JSON of the i-th (new malloc'ed strings, NULL when
 * out of memory): its "eboards" entry, and its feed param. For tests. */
int cr_eboards_count(const cr_eboards *e);
char *cr_eboards_entry_json(const cr_eboards *e, int i);
char *cr_eboards_feed_json(const cr_eboards *e, int i);

#endif
