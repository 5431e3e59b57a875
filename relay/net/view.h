/* chessrelay relay: what the broadcast side (the WebSocket thread) holds.
 *
 * The loop thread owns the game store; after every store event it publishes
 * a cr_pub: the event's message plus the game's new snapshot, summary and
 * PGN, all serialised once in the loop thread. The WebSocket thread applies
 * publications to one cr_view per lane (live for trusted clients, public
 * for viewers, behind the public delay) and answers every request from it:
 * no other state is shared between the threads.
 *
 * A view keeps, per game, the latest serialisations, and a ring of the last
 * events (by seq) from which viewers are fed and resumed (`since`). */
#ifndef CR_RELAY_VIEW_H
#define CR_RELAY_VIEW_H

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

/* A game's whole state (CR_PUB_STATE), e.g. after a rebuild. */
cr_pub *cr_pub_for_game(const cr_store *store, const cr_store_game *g, unsigned lanes, int delay_s);

/* The publication of an evaluation the store has just taken
 * (cr_store_set_eval): the "eval" message and the game's state with it. */
cr_pub *cr_pub_for_eval(const cr_store *store, int game, int ply, unsigned lanes, int delay_s);

typedef struct cr_view_game {
    int id;
    char round[CR_ROUND_MAX];
    int64_t seq;         /* last event of the game in this view */
    int64_t modified_us; /* wall time the view last changed it */
    cr_buf *snapshot, *summary, *pgn;
    cr_buf *evals; /* "evals" message, NULL: none (sent to resuming viewers) */
} cr_view_game;

typedef struct cr_view_entry {
    int64_t seq, ts;
    int game;
    cr_buf *msg;
} cr_view_entry;

typedef struct cr_view cr_view;

/* ring: events held (at least 1). Returns NULL when out of memory. */
cr_view *cr_view_new(size_t ring);
void cr_view_free(cr_view *v);

/* Applies a publication (EVENT, STATE, MARK or EVAL); now_us stamps
 * changes. EVAL changes the game's state only (no seq, no ring entry). */
void cr_view_apply(cr_view *v, const cr_pub *p, int64_t now_us);

int cr_view_game_count(const cr_view *v);
const cr_view_game *cr_view_game_at(const cr_view *v, int i); /* by increasing id */
const cr_view_game *cr_view_find(const cr_view *v, int id);

/* Next seq to be published (all held events have smaller ones), and the
 * oldest held. Held: oldest <= seq < head. */
int64_t cr_view_head(const cr_view *v);
int64_t cr_view_oldest(const cr_view *v);
/* The held event with this seq, or NULL. */
const cr_view_entry *cr_view_entry_at(const cr_view *v, int64_t seq);

/* {"type":"games","games":[...]} (round NULL: all games); new reference. */
cr_buf *cr_view_games_json(const cr_view *v, const char *round);
/* [ ... ] only, for /games.json */
cr_buf *cr_view_games_array(const cr_view *v, const char *round);
/* All PGNs (round NULL) or a round's, concatenated; new reference. NULL if
 * the round has no game. */
cr_buf *cr_view_pgn(const cr_view *v, const char *round);
/* Latest change of the games concerned (0 if none). */
int64_t cr_view_modified(const cr_view *v, const char *round);

#endif
