/* chessrelay relay: arbiter monitoring in the relay. One cr_monitor (with
 * its cr_clock and its own copy of the game) per game of the live store,
 * driven from the loop thread by the store events, the clock readings and a
 * ~100 ms tick; the arbiters' actions (arbiter_cmd.h) come in as commands and
 * go out as store events (RESULT, CORRECTION + MOVEs, TAG) through the
 * loop's emit callback, so that every viewer sees them.
 *
 * Incidents are appended to <state_dir>/incidents.log ("<game>\t" + one
 * cr_incident_format line) and published as protocol messages (JSON, one
 * cr_buf each) through the publish callback, for the trusted clients that
 * asked for the arbiter channel. On restart cr_arbiter_link_start creates
 * the monitors on the games as they stand (silently) and restores the
 * journaled incidents. Claims are not journaled: a claim pending at a
 * restart is lost (its incidents stay).
 *
 * Threads: every function may be called from any thread; a recursive mutex
 * inside serialises them (the HTTP handler runs in the server's thread, the
 * rest in the loop thread; emit may call back into the link).
 *
 * Time: `t` is the loop's feed clock (ms), `wall` ms since the epoch.
 * Ownership: cr_arbiter_link_new returns a new object (cr_arbiter_link_free);
 * the store is borrowed and must outlive the link. */
#ifndef CR_RELAY_ARBITER_LINK_H
#define CR_RELAY_ARBITER_LINK_H

#include "arbiter/arbiter_cmd.h"
#include "net/buf.h"
#include "cr/arbiter.h"
#include "core/store.h"

typedef struct cr_arbiter_link cr_arbiter_link;

typedef struct cr_arbiter_link_config {
    const cr_store *store;    /* the live store (read in the loop thread only) */
    const char *state_dir;    /* incidents.log goes there; NULL: not journaled */
    const char *time_control; /* the event's TimeControl (when a game has no tag); may be NULL */
    /* Emits a store event (the link fills kind, game and the payload; the
     * loop gives seq/ts, applies and publishes it). Takes ev. */
    void (*emit)(void *data, cr_store_event *ev);
    /* Sends one arbiter message to the trusted clients. Takes one ref.
     * Must not block: the link's lock is held, and the HTTP thread may be
     * waiting for it. */
    void (*publish)(void *data, cr_buf *msg);
    void *data;
} cr_arbiter_link_config;

/* Returns NULL when out of memory. */
cr_arbiter_link *cr_arbiter_link_new(const cr_arbiter_link_config *cfg);
void cr_arbiter_link_free(cr_arbiter_link *l); /* accepts NULL */

/* Starts monitoring: a monitor for every game of the store as it stands
 * (silent start), then the incidents of incidents.log restored. Store
 * events before this are ignored (the journal rebuild). Returns 0, or
 * CR_EIO with err filled (the log cannot be read or opened). */
int cr_arbiter_link_start(cr_arbiter_link *l, int64_t t, int64_t wall, cr_error *err);

/* A store event was applied to the live store (called right after, also
 * from inside the loop's emit: this never emits; an end of the game the
 * monitor finds here (fivefold, dead position) goes out at the next tick). */
void cr_arbiter_link_on_store_event(cr_arbiter_link *l, const cr_store_event *ev, int64_t t,
                                    int64_t wall);

/* Time passes: flag falls, two-minute windows, state messages, and the
 * RESULT events of games the monitor ended (through emit). */
void cr_arbiter_link_tick(cr_arbiter_link *l, int64_t t, int64_t wall);

/* An arbiter's action. Returns 0, or CR_EINVAL with why filled (unknown
 * game, a claim refused, ...); refusals are also published as
 * "arbiter-error" messages. */
int cr_arbiter_link_command(cr_arbiter_link *l, const cr_arbiter_cmd *c, int64_t t, int64_t wall,
                            char *why, size_t why_size);

/* {"type":"arbiter","aseq":N,"games":[...],"incidents":[...],"claims":[...]}:
 * everything a dashboard needs when it joins; later messages have aseq > N.
 * New reference, NULL when out of memory. */
cr_buf *cr_arbiter_link_snapshot(cr_arbiter_link *l);

/* GET /arbiter/...: incidents.json, claim/<id>.html, claim/<id>.pgn.
 * authorized: the request carried an arbiter's token. Returns the body (new
 * reference) and sets *status (200, 401, 404) and *ctype. */
cr_buf *cr_arbiter_link_http(cr_arbiter_link *l, const char *uri, bool authorized, int *status,
                             const char **ctype);

/* Incidents held (all games), for tests and metrics. */
int cr_arbiter_link_incident_count(cr_arbiter_link *l);

#endif
