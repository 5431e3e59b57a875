/* chessrelay relay: arbiter monitoring in the relay. One cr_verdict
 * (core/verdicts.h: the result rules, a cr_monitor with its cr_clock and
 * its own copy of the game) per game of the live store,
 * driven by the store events, the clock readings and a ~100 ms tick; the
 * arbiters' actions (arbiter_cmd.h) come in as commands and go out as store
 * events (RESULT, CORRECTION + MOVEs, TAG), so that every viewer sees them.
 *
 * The link never calls back into its caller's state: the store events it
 * makes are queued, and the caller takes them (cr_arbiter_link_take_event)
 * and applies them after the call that made them returns.
 *
 * Incidents are appended to <state_dir>/incidents.log ("<game>\t" + one
 * cr_incident_format line). What the server thread serves is published to
 * it as ready buffers (cr_pub, core/publish.h): each message of the arbiter channel
 * (CR_PUB_ARBITER), the claim reports as they change (CR_PUB_ARBITER_REPORT,
 * before the message that names them), and the channel's snapshot with
 * incidents.json (CR_PUB_ARBITER_STATE, after a command, after a change at
 * the next tick, and once a second for the clocks). On restart the
 * journal's rebuild feeds the link its store events before it starts: each
 * game's monitor follows them silently, as it did live (its clock learns
 * the clock control from the same readings, its markers are set). Then
 * cr_arbiter_link_start restores the journaled incidents, then the claims
 * and their decisions, journaled in the same log after each claim and
 * decision ("<game>\tclaim\t" + one cr_claim_format line), the
 * acknowledgements and the message number ("aseq\t<N>"), and publishes the
 * claims' reports.
 *
 * Threads: the loop thread only (the store is read there too).
 * Time: `t` is the source event's feed time (ms), never its arrival;
 * `wall` ms since the epoch.
 * Ownership: cr_arbiter_link_new returns a new object (cr_arbiter_link_free);
 * the store is borrowed and must outlive the link. */
#ifndef CR_RELAY_ARBITER_LINK_H
#define CR_RELAY_ARBITER_LINK_H

#include "arbiter/arbiter_cmd.h"
#include "core/publish.h"
#include "core/store.h"
#include "cr/arbiter.h"

typedef struct cr_arbiter_link cr_arbiter_link;

typedef struct cr_arbiter_link_config {
    const cr_store *store;    /* the live store */
    const char *state_dir;    /* incidents.log goes there; NULL: not journaled */
    const char *time_control; /* the event's TimeControl (when a game has no tag); may be NULL */
    bool press_without_move;  /* the monitors watch for a clock pressed without a move */
    bool move_without_press;  /* ... and for a move whose clock is not pressed */
    bool time_added;          /* ... and for time added or the clock reset mid-game */
    /* Hands one publication (CR_PUB_ARBITER...) to the server thread. Takes p. */
    void (*publish)(void *data, cr_pub *p);
    void *data;
} cr_arbiter_link_config;

/* Returns NULL when out of memory. */
cr_arbiter_link *cr_arbiter_link_new(const cr_arbiter_link_config *cfg);
void cr_arbiter_link_free(cr_arbiter_link *l); /* accepts NULL */

/* Starts monitoring: the monitors the rebuild's store events made (and one
 * for any other game of the store, silent start), the incidents of
 * incidents.log restored, every monitor at the sources' reach t. Store
 * events before this (the journal rebuild) are followed silently: nothing is
 * published, journaled or queued. Returns 0, or CR_EIO with err filled (the
 * log cannot be read or opened). */
int cr_arbiter_link_start(cr_arbiter_link *l, int64_t t, int64_t wall, cr_error *err);

/* A store event was applied to the live store (called right after; not
 * for the link's own events). An end of the game the monitor finds here
 * (fivefold, dead position) is queued at the next tick. */
void cr_arbiter_link_on_store_event(cr_arbiter_link *l, const cr_store_event *ev, int64_t t,
                                    int64_t wall);

/* The source of `board` (NULL: of every board) has reached feed time t
 * with nothing more to say before it (the feed's time, an agent's
 * watermark): its game's monitor may check its clock up to t. Never past
 * what the source sent: a feed that ended, or a silent agent, stops it. */
void cr_arbiter_link_source_time(cr_arbiter_link *l, const char *board, int64_t t);

/* Time passes: flag falls, two-minute windows, state messages, and the
 * RESULT events of games the monitor ended (queued). t never past the
 * boards' source time (the monitors cut it there too). */
void cr_arbiter_link_tick(cr_arbiter_link *l, int64_t t, int64_t wall);

/* An arbiter's action; its store events are queued. Returns 0, or CR_EINVAL
 * with why filled (unknown game, a claim refused, ...); refusals are also
 * published as "arbiter-error" messages. */
int cr_arbiter_link_command(cr_arbiter_link *l, const cr_arbiter_cmd *c, int64_t t, int64_t wall,
                            char *why, size_t why_size);

/* The oldest queued store event (kind, game and payload filled; the caller
 * gives seq/ts and applies it), or NULL when none is left. The caller owns
 * it, applies it after the call that queued it has returned, and does not
 * pass it back to cr_arbiter_link_on_store_event: the monitor made it.
 * who (may be NULL) gets who made it, for the journal: the arbiter token's
 * name of the action, or "relay" for a game the monitor ended. */
cr_store_event *cr_arbiter_link_take_event(cr_arbiter_link *l, char *who, size_t who_size);

/* A clock an arbiter changed without a store event: a rejected claim's
 * time added to the opponent (cr_monitor_decide). */
typedef struct cr_arbiter_adjust {
    int game;
    int color; /* CR_WHITE or CR_BLACK: whose clock */
    int32_t delta_ms;
    int64_t t; /* feed ms */
    char who[64];
} cr_arbiter_adjust;

/* The oldest queued clock change, for the caller's journal (take them after
 * the call's store events). Returns false when none is left. */
bool cr_arbiter_link_take_adjust(cr_arbiter_link *l, cr_arbiter_adjust *out);

/* A journaled clock change made again in the rebuild (before
 * cr_arbiter_link_start), at its point of the event stream. */
void cr_arbiter_link_adjust_clock(cr_arbiter_link *l, int game, int color, int32_t delta_ms,
                                  int64_t t);

/* A relay-wide alert for the arbiters (not a game's incident): the journal
 * cannot write or is not sound, ... Published as {"type":"relay-alert",
 * "alert":kind,"text":text,"wall":ms}; kind "ok" when it is over. */
void cr_arbiter_link_alert(cr_arbiter_link *l, const char *kind, const char *text, int64_t wall);

/* A standing alert: `file` (a journal file, "incidents.log", "seal.head")
 * does not verify; `what` says what failed. Unlike cr_arbiter_link_alert it
 * stays in every snapshot and incidents.json ("alerts") until an arbiter
 * acknowledges it ({"action":"ack","game":0,"alert":key}), and is raised
 * and acknowledged in incidents.log, so that it stands across restarts.
 * The same file and problem again is the same alert. Accepts l NULL. */
void cr_arbiter_link_tamper(cr_arbiter_link *l, const char *file, const char *what, int64_t wall);

/* Incidents held (all games), for tests and metrics. */
int cr_arbiter_link_incident_count(const cr_arbiter_link *l);

#endif
