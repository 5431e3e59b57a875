/* chessrelay: arbiter monitoring of one game. A cr_monitor watches a game
 * record and its clock and keeps, always current: the repetition count of
 * the position, the 50/75-move counter, dead position, the sides under two
 * minutes, flag falls (FIDE 6.9: no mating material -> draw), completed
 * illegal moves, board offline/online. Each alert is raised once per
 * occurrence into an append-only incident log, next to the arbiter's own
 * actions (claims, decisions, results, corrections, draw offers).
 *
 * Quickplay-finish claims (FIDE Laws, Appendix D1 / Guidelines III): the
 * player with less than two minutes claims a draw because the opponent
 * (a) cannot win by normal means or (b) makes no effort to win. The monitor
 * freezes the position, the scoresheet and both clocks at the claim, computes
 * the evidence, records the arbiter's decision and writes a printable claim
 * report (HTML) and the game's PGN.
 *
 * How the relay drives it (one monitor per board/game):
 *   - the game gained or lost plies (inference MOVE / CORRECTION): cr_monitor_update
 *   - a clock reading: cr_monitor_clock (feeds the cr_clock too)
 *   - time passes (timer, ~every 100 ms): cr_monitor_tick, never with a
 *     time past the board's source (see cr_monitor_source_time)
 *   - the board's source reached time t without an event (agent heartbeat
 *     watermark, feed time): cr_monitor_source_time
 *   - board link CONNECT/DISCONNECT: cr_monitor_board_link
 *   - arbiter actions: cr_monitor_set_result, _mark_draw_offer, _take_back,
 *     _assign_players, _claim, _decide
 *   - new incidents: the on_incident callback, or poll cr_monitor_incident_count
 *   - the wall clock for incident stamps: cr_monitor_set_wall before each call
 *   - journal: cr_incident_format each new incident; on restart create the
 *     monitor on the game as it stands with silent_start, then
 *     cr_monitor_restore_incident each journaled line (parsed)
 * Actions change the borrowed game (result, ply flags, plies, tags, comments)
 * directly; a relay whose store changes only through store events reads the
 * game back after the action (cr_game_result, cr_game_ply_count, tags) and
 * emits the matching RESULT / CORRECTION / TAG events.
 *
 * Time: `t` is the feed time in ms (as given to the clock); `wall` a wall
 * time (ms since the epoch) that the caller supplies. The library never reads
 * a clock itself. Every decision depends on the events' times only: the
 * clock is checked at each event's time before the event is applied, ticks
 * are cut at the board's source time, and clock alerts are stamped with the
 * moment they became true (a flag's fall, the crossing of two minutes), so
 * the log is the same whatever the timing of the calls.
 *
 * Results on evidence only: the public result changes from the board (mate,
 * stalemate, dead position, a flag shown by the clock or run down while the
 * model was sure, see cr/clock.h), an automatic draw (fivefold, 75 moves)
 * or the arbiter. What the model only suspects (a side at 0:00 without
 * evidence) is a "flag-check" alert; cr_monitor_confirm_flag makes it the
 * result.
 *
 * Ownership: the monitor borrows the game and the clock (both may be changed
 * through the monitor's actions; neither is freed by it); they must outlive
 * the monitor or be replaced with cr_monitor_attach. Incidents and claims
 * returned are borrowed, valid until the monitor is changed or freed. */
#ifndef CR_ARBITER_H
#define CR_ARBITER_H

#include "cr/clock.h"
#include "cr/game.h"

/* ---- Incidents ---------------------------------------------------------- */

typedef enum cr_incident_kind {
    CR_INC_TWO_MINUTES = 0,    /* "two-minutes" */
    CR_INC_FLAG,               /* "flag" */
    CR_INC_THREEFOLD,          /* "threefold" (claimable) */
    CR_INC_FIVEFOLD,           /* "fivefold" (game drawn) */
    CR_INC_FIFTY_MOVES,        /* "fifty-moves" (claimable) */
    CR_INC_SEVENTY_FIVE_MOVES, /* "seventy-five-moves" (game drawn) */
    CR_INC_DEAD_POSITION,      /* "dead-position" (game drawn) */
    CR_INC_ILLEGAL_MOVE,       /* "illegal-move" (completed: clock pressed) */
    CR_INC_BOARD_OFFLINE,      /* "board-offline" */
    CR_INC_BOARD_ONLINE,       /* "board-online" */
    CR_INC_CLAIM,              /* "claim" */
    CR_INC_DECISION,           /* "decision" */
    CR_INC_RESULT,             /* "result" */
    CR_INC_CORRECTION,         /* "correction" */
    CR_INC_DRAW_OFFER,         /* "draw-offer" */
    CR_INC_FLAG_CHECK,         /* "flag-check": the model puts a side at 0:00 without
                                  evidence; the arbiter checks (cr_monitor_confirm_flag) */
    CR_INC_PRESS_WITHOUT_MOVE, /* "press-without-move": a side pressed its clock and no
                                  move of its own followed (cfg.press_without_move) */
    CR_INC_MOVE_WITHOUT_PRESS, /* "move-without-press": a move stood and a reading
                                  unpressed_ms later still runs the mover's clock
                                  (cfg.move_without_press) */
    CR_INC_TIME_ADDED,         /* "time-added": a reading gives a side more time than the
                                  control adds: time added or the clock set again in the
                                  middle of the game (cfg.time_added) */
    CR_INC_KIND_NB
} cr_incident_kind;

CR_EXTERN const char *cr_incident_kind_name(cr_incident_kind kind); /* "?" if out of range */
CR_EXTERN int cr_incident_kind_parse(const char *name);             /* -1 if unknown */

/* Urgency for sorting alerts (higher first). */
typedef enum cr_urgency {
    CR_URGENCY_INFO = 0,    /* record only: results, decisions, corrections, board online */
    CR_URGENCY_NOTICE = 1,  /* something to know: two minutes, claimable draws, draw offers */
    CR_URGENCY_WARNING = 2, /* needs a look: board offline, automatic game end, claims */
    CR_URGENCY_CRITICAL = 3 /* act now: flag fall, completed illegal move */
} cr_urgency;

#define CR_INCIDENT_TEXT_MAX 240

typedef struct cr_incident {
    int seq; /* 1, 2, ... in the log */
    cr_incident_kind kind;
    cr_urgency urgency;
    int ply;                         /* plies played when it happened */
    int color;                       /* side concerned (CR_WHITE/CR_BLACK) or -1 */
    int32_t white_ms, black_ms;      /* both clocks then, or CR_CLOCK_UNKNOWN */
    int64_t t;                       /* feed time (ms), -1 unknown */
    int64_t wall;                    /* wall time (ms since the epoch), -1 unknown */
    char text[CR_INCIDENT_TEXT_MAX]; /* one line, UTF-8 */
} cr_incident;

/* One incident as one line of text (no newline), tab-separated fields:
 *   seq kind urgency ply color white_ms black_ms t wall text
 * kind and urgency by name ("flag", "critical"); color is "w", "b" or "-";
 * numbers are decimal (-1: unknown). In text a backslash, tab, newline and
 * CR are written as two characters each (backslash + one of \ t n r), other
 * control bytes as backslash + xHH. Returns the length, CR_ENOSPC, or
 * CR_EINVAL for an out-of-range kind/urgency. CR_INCIDENT_LINE_MAX always
 * suffices. */
#define CR_INCIDENT_LINE_MAX (4 * CR_INCIDENT_TEXT_MAX + 160)
CR_EXTERN int cr_incident_format(const cr_incident *inc, char *buf, size_t size);

/* Reads a line written by cr_incident_format (a trailing "\n" or "\r\n" is
 * allowed). Returns 0, or CR_EFEED for a malformed line with err filled (column
 * and which field is wrong); inc is then unspecified. */
CR_EXTERN int cr_incident_parse(const char *line, size_t len, cr_incident *inc, cr_error *err);

/* qsort comparator: urgency first (highest first), then newest first. */
CR_EXTERN int cr_incident_compare(const void *a, const void *b);

/* ---- Claims --------------------------------------------------------------- */

typedef enum cr_claim_basis {
    CR_CLAIM_CANNOT_WIN = 0, /* D1 (a): the opponent cannot win by normal means */
    CR_CLAIM_NO_EFFORT = 1,  /* D1 (b): the opponent is making no effort to win by normal means */
    CR_CLAIM_THREEFOLD = 2,  /* 9.2: the same position for the third time */
    CR_CLAIM_FIFTY_MOVES = 3 /* 9.3: 50 moves by each side without a capture or pawn move */
} cr_claim_basis;

/* "a", "b", "threefold", "fifty-moves"; cr_claim_basis_parse: -1 if unknown. */
CR_EXTERN const char *cr_claim_basis_name(cr_claim_basis basis);
CR_EXTERN int cr_claim_basis_parse(const char *name);

typedef enum cr_decision {
    CR_DECISION_NONE = 0, /* pending */
    CR_DECISION_DRAW,     /* claim upheld: game drawn */
    CR_DECISION_REJECTED, /* claim rejected: time added to the opponent, play goes on */
    CR_DECISION_POSTPONED /* decision postponed (play goes on; decide later) */
} cr_decision;

CR_EXTERN const char *
cr_decision_name(cr_decision d); /* "pending", "draw", "rejected", "postponed" */

/* One side's material. */
typedef struct cr_material {
    int count[CR_TYPE_NB]; /* pieces by type, indexed CR_PAWN..CR_KING (index 0 unused) */
    int points;            /* P=1 N=B=3 R=5 Q=9 */
} cr_material;

/* The key of piece type `type` in the evidence's material ("p", "n", "b",
 * "r", "q", "k" for CR_PAWN..CR_KING), NULL for anything else. */
CR_EXTERN const char *cr_material_key(int type);

/* A ply of the frozen scoresheet with the clocks after it. */
typedef struct cr_claim_move {
    int ply; /* 0-based ply index */
    char san[16];
    int32_t white_ms, black_ms; /* clocks after the ply, or CR_CLOCK_UNKNOWN */
    bool capture, pawn_move;
} cr_claim_move;

#define CR_CLAIM_MOVES_MAX 200 /* 100 moves each side */

typedef struct cr_claim {
    int id;       /* 1, 2, ... claims of this game */
    int claimant; /* CR_WHITE or CR_BLACK */
    cr_claim_basis basis;
    int64_t t, wall;            /* when claimed */
    int ply;                    /* plies played at the claim */
    int32_t white_ms, black_ms; /* clocks at the claim */
    const cr_game *frozen;      /* game as it stood at the claim (owned by the monitor) */
    /* Evidence. */
    cr_material material[CR_COLOR_NB];
    int evidence_moves;                       /* N: last N moves of each side */
    int recent_count;                         /* plies in `recent` (up to 2N) */
    cr_claim_move recent[CR_CLAIM_MOVES_MAX]; /* the last plies, oldest first */
    int recent_captures;                      /* captures among them */
    int recent_pawn_moves;                    /* pawn moves among them */
    int plies_since_irreversible;             /* plies since the last capture or pawn move */
    int last_irreversible_ply; /* 0-based index of that ply, -1 if none in the game */
    int repetitions;           /* of the final position */
    int max_repetitions;       /* highest repetition count reached in the recent plies */
    bool opponent_can_mate;    /* cr_can_mate of the opponent */
    /* Threefold / 50 moves: the position claimed is the one on the board, or
     * the one the move the claimant wrote and declared would give (9.2.1.1,
     * 9.3.1); the relay checks it. */
    char move[16];           /* SAN of the written move, "" if none */
    int claimed_repetitions; /* times the claimed position stands (with this one) */
    int claimed_halfmove;    /* plies without capture or pawn move there */
    bool correct;            /* the check: the claim is right (D1: always false, the
                                arbiter judges) */
    /* Decision. */
    cr_decision decision;
    int32_t added_ms; /* time added to the opponent on rejection */
    int64_t decided_t, decided_wall;
    char note[CR_INCIDENT_TEXT_MAX]; /* arbiter's note (may be empty) */
} cr_claim;

/* ---- Monitor -------------------------------------------------------------- */

typedef struct cr_monitor cr_monitor;

typedef void (*cr_incident_cb)(void *data, const cr_incident *inc);

typedef struct cr_monitor_config {
    int32_t two_minutes_ms;     /* claim window / alert threshold (default 120000) */
    int32_t claim_added_ms;     /* added to the opponent on a rejected claim (default 120000) */
    int evidence_moves;         /* N for the evidence (default 10; 1..100) */
    bool quickplay_finish;      /* D1/Guidelines III apply to this event (default true) */
    bool flag_ends_game;        /* a flag fall sets the result at once (default true) */
    bool press_without_move;    /* watch for a clock pressed without a move (default false:
                                   the tournament file switches it on) */
    int32_t press_grace_ms;     /* how long the move may lag behind the press (default 3000) */
    bool move_without_press;    /* watch for a move whose clock is not pressed (default false) */
    int32_t unpressed_ms;       /* how long the mover's clock may run on (default 10000) */
    bool time_added;            /* watch for time added or the clock reset (default false): a
                                   side's reading up on its previous one by more than the
                                   bonus (60 s while the bonus is unknown) and 3 s, except
                                   the control's period time once, at the side's move 40 (or
                                   the control's number of moves) */
    bool silent_start;          /* cr_monitor_new examines the game without logging
                                   (restart: restore the journaled incidents instead) */
    cr_incident_cb on_incident; /* called for every new incident (may be NULL) */
    void *cb_data;
} cr_monitor_config;

CR_EXTERN void cr_monitor_config_default(cr_monitor_config *cfg);

/* game: required; clock: may be NULL (no times then). cfg: NULL for the
 * defaults. Examines the game as it stands (alerts for it are raised).
 * Returns NULL when out of memory or game is NULL. */
CR_EXTERN cr_monitor *cr_monitor_new(cr_game *game, cr_clock *clock, const cr_monitor_config *cfg);
CR_EXTERN void cr_monitor_free(cr_monitor *m); /* accepts NULL */

/* While silent the monitor follows the game and the clock as ever (its
 * markers, counters, clock snapshots per ply) but logs nothing: a restart
 * replays the journal through it silently, then restores the journaled
 * incidents (cr_monitor_restore_incident), so that it stands as it did
 * live. */
CR_EXTERN void cr_monitor_set_silent(cr_monitor *m, bool silent);

/* Switches the board-and-clock checks (cr_monitor_config's press_without_move,
 * move_without_press and time_added) of a monitor made elsewhere (core/verdicts). */
CR_EXTERN void cr_monitor_set_floor_checks(cr_monitor *m, bool press_without_move,
                                           bool move_without_press, bool time_added);

/* Replaces the borrowed game/clock (e.g. the store swapped objects); the
 * new game is examined as if its plies were new. */
CR_EXTERN void cr_monitor_attach(cr_monitor *m, cr_game *game, cr_clock *clock);

/* Wall time used to stamp the next incidents (ms since the epoch; -1 unknown). */
CR_EXTERN void cr_monitor_set_wall(cr_monitor *m, int64_t wall);

/* The game changed (plies appended or retracted) at feed time t: new plies
 * are examined (draw offers, illegal moves, repetition, counters, dead
 * position, mate), retracted ones logged as a correction. Returns 0 or
 * CR_ENOMEM. */
CR_EXTERN int cr_monitor_update(cr_monitor *m, int64_t t);

/* A clock reading: fed to the clock, then flags, two minutes and illegal
 * moves completed by the press are checked. Returns cr_clock_feed's result
 * (or CR_EINVAL; 0 without a clock). */
CR_EXTERN int cr_monitor_clock(cr_monitor *m, int64_t t, int32_t white_ms, int32_t black_ms,
                               int running);

/* Time has passed: flag falls and two-minute windows. t is cut at the
 * source time (the latest of the events' times and cr_monitor_source_time),
 * so a timer running ahead of the board's source acts on nothing unseen. */
CR_EXTERN void cr_monitor_tick(cr_monitor *m, int64_t t);

/* The board's source has reached t (no event since): e.g. the agent's
 * watermark, or the feed's time. Checks the clock at t. Source time never
 * goes back. */
CR_EXTERN void cr_monitor_source_time(cr_monitor *m, int64_t t);

/* The board went offline/online at t (alerts on changes only). */
CR_EXTERN void cr_monitor_board_link(cr_monitor *m, bool online, int64_t t);

/* Always-current state (as of the last call).
 *
 * When alerts are raised (each once per occurrence):
 *   two-minutes         once per side per game, when its time first drops below
 *                       two_minutes_ms (both sides tracked)
 * The same kind for the same side is never logged twice for one ply, and
 * fivefold, seventy-five-moves and dead-position once per game.
 *   flag                once per side; sets the result (6.9) if flag_ends_game
 *   threefold           at each ply whose position stands for the 3rd/4th time
 *   fifty-moves         once per run without capture or pawn move (100 plies)
 *   fivefold, seventy-five-moves, dead-position
 *                       once at the ply; the game is drawn (result set if none)
 *   illegal-move        once per illegal ply, when its mover has pressed the
 *                       clock after it (or the opponent has moved)
 *   flag-check          once per side while the model puts it at 0:00 without
 *                       evidence (again after a reading showed time left)
 *   board-offline/online on changes
 *   draw-offer          per ply marked CR_PLY_DRAW_OFFER (board or arbiter)
 *   result              when the monitor ends the game, the arbiter sets a
 *                       result, or the game record's result changed elsewhere
 * Plies taken back or retracted lose their markers, so their replacements
 * can raise again; a game the monitor ended by a position that no longer
 * stands is reopened. */
typedef struct cr_monitor_state {
    int ply_count;
    int side_to_move;
    int repetitions;                     /* of the current position (1 = first time) */
    int halfmove;                        /* plies since the last capture or pawn move */
    bool threefold;                      /* repetitions >= 3: a claim would succeed */
    bool fifty_moves;                    /* halfmove >= 100: a claim would succeed */
    bool fivefold, seventy_five, dead;   /* the game ended (drawn) for that reason */
    int32_t remaining_ms[CR_COLOR_NB];   /* at the last call's t, or CR_CLOCK_UNKNOWN */
    bool under_two_minutes[CR_COLOR_NB]; /* under the two-minute mark */
    bool claim_window[CR_COLOR_NB];      /* a D1 claim by this side would be heard */
    int flag_check;                      /* side whose flag-check alert stands, -1 none */
    int running;                         /* clock's running side, -1 stopped/unknown */
    int flagged;                         /* first side flagged, -1 none */
    bool board_online;
    int illegal_completed[CR_COLOR_NB]; /* completed illegal moves per side */
    int pending_illegal; /* ply index of an illegal ply awaiting the press, -1 none */
    int last_draw_offer; /* ply index of the last draw offer, -1 none */
    cr_result result;    /* the game's result */
    bool claim_pending;  /* a claim awaits a decision (pending or postponed) */
    cr_clock_mode clock_mode;
    int32_t bonus_ms;
    int64_t t; /* time of the last call */
} cr_monitor_state;

CR_EXTERN void cr_monitor_get_state(const cr_monitor *m, cr_monitor_state *out);

/* Incident log (append-only). */
CR_EXTERN int cr_monitor_incident_count(const cr_monitor *m);
CR_EXTERN const cr_incident *cr_monitor_incident(const cr_monitor *m,
                                                 int i); /* 0-based; NULL if out of range */

/* Appends an incident read back from a journal (cr_incident_parse) as it is,
 * seq renumbered to follow; the callback is not called. The game and the
 * clock are not touched, but the alert it records counts as raised (e.g. a
 * restored two-minutes for White is not raised again). Returns 0 or
 * CR_ENOMEM/CR_EINVAL. */
CR_EXTERN int cr_monitor_restore_incident(cr_monitor *m, const cr_incident *inc);

/* ---- Arbiter actions (each logged) -------------------------------------- */

/* Sets or changes the result (CR_RESULT_NONE reopens the game). reason: short
 * text for the log (may be NULL). A change of an existing result is logged as
 * a correction, otherwise as a result. Returns 0 or CR_EINVAL. */
CR_EXTERN int cr_monitor_set_result(cr_monitor *m, cr_result result, const char *reason, int64_t t);

/* Marks (or clears) a draw offer after ply `ply` (0-based; -1 = the last
 * ply): sets CR_PLY_DRAW_OFFER on the game's ply. Returns 0 or CR_EINVAL. */
CR_EXTERN int cr_monitor_mark_draw_offer(cr_monitor *m, int ply, bool offered, int64_t t);

/* Takes back plies so that `ply_count` remain (cr_game_truncate) and logs a
 * correction with the reason. Alerts of the removed plies may fire again for
 * the plies that replace them. Returns 0 or CR_EINVAL. */
CR_EXTERN int cr_monitor_take_back(cr_monitor *m, int ply_count, const char *reason, int64_t t);

/* The arbiter confirms that `color`'s flag fell (after a flag-check alert,
 * or seen on the clock): the result follows 6.9 (a win for the opponent, a
 * draw if the opponent cannot checkmate). Returns 0, or CR_EINVAL when the
 * game is over or color is not a side. */
CR_EXTERN int cr_monitor_confirm_flag(cr_monitor *m, int color, const char *reason, int64_t t);

/* The arbiter corrects ply `ply` (0-based) to `move` (SAN or any form
 * cr_move_from_text reads, in the position before that ply): see
 * cr_game_replace_ply; the later plies still legal are kept and examined
 * again, a correction is logged. Returns 0, CR_EMOVE (move not legal there,
 * reason in why) or CR_EINVAL. The relay then reads the game back and emits
 * CORRECTION from `ply` and MOVE events for the plies that stand. */
CR_EXTERN int cr_monitor_replace_move(cr_monitor *m, int ply, const char *move, const char *reason,
                                      int64_t t, char *why, size_t why_size);

/* Sets the White/Black tags (either may be NULL: unchanged) and logs it. */
CR_EXTERN int cr_monitor_assign_players(cr_monitor *m, const char *white, const char *black,
                                        int64_t t);

/* A draw claim by `claimant` at t. Never while the game is over or another
 * claim is pending.
 *   D1 (a/b): only in a quickplay finish (config, and no increment/delay on
 *   the clock), with the clock known and the claimant under two minutes
 *   with the flag still up. The arbiter judges.
 *   Threefold (9.2), 50 moves (9.3): by the side to move, on the position
 *   on the board or, with `move` (SAN or any form cr_move_from_text reads),
 *   on the position that move, written and declared, would give; an illegal
 *   move refuses the claim. The relay checks the claim (cr_claim.correct);
 *   the arbiter still decides (cr_monitor_decide), e.g. a wrong claim is
 *   rejected with time added to the opponent (9.5).
 * move must be NULL for D1. A refused claim returns CR_EINVAL with the
 * reason in why (if not NULL), logged. On success freezes the game and the
 * clocks, computes the evidence and logs the claim. */
CR_EXTERN int cr_monitor_claim(cr_monitor *m, int claimant, cr_claim_basis basis, int64_t t,
                               char *why, size_t why_size);
CR_EXTERN int cr_monitor_claim_move(cr_monitor *m, int claimant, cr_claim_basis basis,
                                    const char *move, int64_t t, char *why, size_t why_size);

/* The arbiter's decision on the pending claim. added_ms: time added to the
 * opponent on rejection (< 0: the configured default); note may be NULL.
 * DRAW sets the result; REJECTED adds the time to the opponent's clock;
 * POSTPONED keeps the claim open. Each writes a decision incident and a PGN
 * comment after the claim's last ply. Returns 0, or CR_EINVAL when no claim
 * is pending or d is CR_DECISION_NONE. */
CR_EXTERN int cr_monitor_decide(cr_monitor *m, cr_decision d, int32_t added_ms, const char *note,
                                int64_t t);

/* A claim and its decision as one line (no newline), tab-separated:
 *   id claimant basis t wall ply white_ms black_ms move decision added_ms decided_t
 *   decided_wall note
 * claimant "w"/"b", basis by name, move "-" if none, decision by name, note
 * escaped like an incident's text. Journal it after every claim and decision;
 * returns the length, CR_ENOSPC or CR_EINVAL. CR_CLAIM_LINE_MAX suffices. */
#define CR_CLAIM_LINE_MAX (4 * CR_INCIDENT_TEXT_MAX + 200)
CR_EXTERN int cr_claim_format(const cr_claim *c, char *buf, size_t size);

/* On restart, after the game stands as it did (and cr_monitor_restore_incident
 * of the log): a claim line read back. A new id (the next one) makes the
 * claim again on the game's first `ply` plies, evidence and check
 * recomputed, without logging; a known id takes the decision of the line.
 * Neither the game, its result nor the clock is touched (the journal of the
 * store and the readings hold them). Returns 0, CR_EFEED for a malformed
 * line (err filled), CR_EINVAL when it does not fit the game (ply past its
 * end, id out of order), or CR_ENOMEM. */
CR_EXTERN int cr_monitor_restore_claim(cr_monitor *m, const char *line, size_t len, cr_error *err);

/* The latest claim (pending or decided), or NULL; claims by index. */
CR_EXTERN const cr_claim *cr_monitor_claim_last(const cr_monitor *m);
CR_EXTERN int cr_monitor_claim_count(const cr_monitor *m);
CR_EXTERN const cr_claim *cr_monitor_claim_at(const cr_monitor *m, int i);

/* ---- Claim report ---------------------------------------------------------- */

/* A printable, self-contained HTML page for claim `claim` (inline CSS, the
 * final position as a table with Unicode pieces, the scoresheet with clock
 * times, the claim, evidence, decision and signature lines), written into buf
 * (size bytes, NUL-terminated). Returns the length of the whole page; when
 * that is >= size the page was cut (like snprintf): call again with
 * length + 1 bytes. All outside text (tags, notes) is HTML-escaped.
 * Returns CR_EINVAL for a NULL claim. */
CR_EXTERN int cr_claim_report_html(const cr_monitor *m, const cr_claim *claim, char *buf,
                                   size_t size);

/* The frozen game as PGN (tags, FEN when set up, SAN movetext with
 * [%clk] comments, claim comment, result), same buffer convention. */
CR_EXTERN int cr_claim_report_pgn(const cr_monitor *m, const cr_claim *claim, char *buf,
                                  size_t size);

/* Both as new NUL-terminated strings (free with free()); NULL when out of
 * memory. */
CR_EXTERN char *cr_claim_report_html_new(const cr_monitor *m, const cr_claim *claim);
CR_EXTERN char *cr_claim_report_pgn_new(const cr_monitor *m, const cr_claim *claim);

#endif
