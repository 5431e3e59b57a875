/* chessrelay relay: publications, the one thing the loop thread hands the
 * server thread (docs/architecture.md, "Threads").
 *
 * The loop thread owns the game store; after every store event it publishes
 * a cr_pub: the event's message plus the game's new snapshot, summary,
 * brief (and its "summary" message) and PGN, all serialised here, once, in the loop thread (and by the edge's
 * loop alike). The server thread applies them to what it holds (net/view.h,
 * net/arbiter_view.h, net/livechess.h) and never reads the store.
 *
 * Threads: made and filled in the loop thread; once queued (net/queue.h)
 * the server thread owns it and frees it. Its buffers' reference counts are
 * atomic and their bytes never change once made (util/buf.h), so a buffer
 * may be held by both threads. */
#ifndef CR_RELAY_PUBLISH_H
#define CR_RELAY_PUBLISH_H

#include <stdbool.h>
#include <stdint.h>

#include "util/buf.h"
#include "core/store.h"

enum { CR_LANE_LIVE = 1u << 0, CR_LANE_PUBLIC = 1u << 1 };

typedef enum cr_pub_kind {
    CR_PUB_EVENT = 0,     /* an event and the game's state after it */
    CR_PUB_STATE,         /* a game's state only (after a rebuild); no ring entry */
    CR_PUB_MARK,          /* the ring starts at seq + 1 (after a rebuild) */
    CR_PUB_STATS,         /* loop figures for /metrics and /healthz */
    CR_PUB_STOP,          /* the server thread should exit */
    CR_PUB_ARBITER,       /* event: a message of the arbiter channel */
    CR_PUB_ARBITER_STATE, /* snapshot: the channel's; incidents: /arbiter/incidents.json */
    CR_PUB_ARBITER_REPORT, /* claim's report_html and report_pgn (/arbiter/claim/<claim>.*) */
    CR_PUB_EVAL,          /* event: an engine's "eval" message (no seq, no ring entry) and the
                             game's state with it (engine/evals.h) */
    CR_PUB_EBOARD         /* eboard: a board's state for the LiveChess API (core/eboards.h):
                             event its "eboards" entry, snapshot its feed param */
} cr_pub_kind;

/* One publication. Owns one reference to each buffer; free with cr_pub_free. */
typedef struct cr_pub {
    cr_pub_kind kind;
    unsigned lanes; /* CR_LANE_* */
    int64_t seq, ts;
    int game;
    char round[CR_ROUND_MAX];
    cr_buf *event, *snapshot, *summary, *pgn;
    /* The game in brief (cr_store_brief_json), and {"type":"summary","seq",
     * "ts","game":brief}: what a round's summary subscribers get for this
     * event instead of it (docs/protocol.md). Made for every event. */
    cr_buf *brief, *summary_msg;
    cr_buf *evals;  /* the game's "evals" message (NULL: none) ... */
    bool has_evals; /* ... when this is set (else the view keeps its own) */
    /* STATS */
    int boards_online, boards_known;
    bool ready;
    char problem[200]; /* why the relay is not sound (a journal that cannot write), or "" */
    int64_t journal_syncs;
    cr_buf *boards_metrics; /* live boards' link health, Prometheus text (NULL: none) */
    cr_buf *boards_json;    /* the same as a JSON array (/boards.json; NULL: none) */
    cr_buf *pairings_json;  /* the pairings file for the standings (/pairings.json; NULL: none) */
    cr_buf *results_trf;    /* the round's results for the pairing program (core/round_results.h,
                               /arbiter/results.trf; NULL: none) */
    cr_buf *loop_metrics;   /* pushes and the pairings file, Prometheus text (NULL: none) */
    /* ARBITER_STATE, ARBITER_REPORT */
    cr_buf *incidents;
    int claim; /* 1, 2, ... */
    cr_buf *report_html, *report_pgn;
    /* EBOARD */
    char eboard[CR_BOARD_ID_MAX + 1];
} cr_pub;

cr_pub *cr_pub_new(cr_pub_kind kind);
void cr_pub_free(cr_pub *p); /* accepts NULL */

/* The publication of one store event (which the store has applied): the
 * event's JSON (a new reference is taken) and the game's fresh snapshot,
 * list entry and PGN as the event changes them. delay_s goes into the
 * snapshot. Returns NULL when out of memory or the game is unknown. Shared
 * by the relay's loop and the NATS edge so both publish alike. */
cr_pub *cr_pub_for_event(const cr_store *store, const cr_store_event *ev, cr_buf *json,
                         unsigned lanes, int delay_s);

/* The "summary" message of a game in brief (cr_store_brief_json) as of
 * event seq at ts: new reference, NULL when summary is NULL or out of
 * memory. Serialised here once for every viewer of the round. */
cr_buf *cr_pub_summary_message(const cr_buf *brief, int64_t seq, int64_t ts);

/* A game's whole state (CR_PUB_STATE), e.g. after a rebuild. */
cr_pub *cr_pub_for_game(const cr_store *store, const cr_store_game *g, unsigned lanes, int delay_s);

/* The publication of an evaluation the store has just taken
 * (cr_store_set_eval): the "eval" message and the game's state with it. */
cr_pub *cr_pub_for_eval(const cr_store *store, int game, int ply, unsigned lanes, int delay_s);

#endif
