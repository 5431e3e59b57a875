/* chessrelay relay: the journal's grammar, every record type the relay
 * writes into its journal (core/journal.h) formatted and parsed in one
 * place. Pure: no I/O, no loop; the writers (core/loop.c, the agent link)
 * and the readers (the rebuild, the agent link's scan, `journal export`)
 * all go through it, so a record reads back as it was written.
 *
 * A journal line is a feed line (docs/feed-format.md) or a comment line
 * "# WORD ...": the records below are comments, so a journal stays a valid
 * feed. Numbers are decimal (a '-' allowed where a value may be negative),
 * words are separated by one space, ids are one word.
 *   # epoch MS                          the feed clock's epoch (wall ms)
 *   # board TABLE ID                    a board's number, fixed at its first event
 *   # game N board ID                   game N starts on board ID
 *   # tick ID MS                        a tick of board ID that changed the store
 *   # finish T [REACH]                  the sources' end (REACH: older journals lack it)
 *   # accept-board TS TICK T SIDE GAME ID WHO   an arbiter accepted a board's position
 *   # pairings TS TICK TEXT             a pairings import (TEXT: the link's own line)
 *   # cmd {JSON}                        a client's or an arbiter's change (below)
 *   # agent ID N OFF [skip]             an agent's event N, its feed line follows
 *                                       in the same record (none with "skip")
 *   # agent-bye ID N                    the agent left after its event N
 * Other comments are read as CR_JLINE_COMMENT and skipped by every reader.
 *
 * Ownership: a parsed record points into the line it was parsed from
 * (feed and comment text, the pairings text): valid as long as that line. */
#ifndef CR_RELAY_JOURNAL_LINES_H
#define CR_RELAY_JOURNAL_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cr/feed.h"
#include "cr/game.h"
#include "core/store.h" /* the sizes of a tag and a reason */

/* The longest id (board, agent, a who) of a record; an agent id is at most
 * as long (agent/agent_msg.h checks it). */
#define CR_JLINE_ID_MAX 64

/* Command lines: what a client or an arbiter changed in a game, as the
 * comment line "# cmd {JSON}" (one JSON object, compact, on one line), so
 * that every byte of a name or value comes back and a rebuild applies the
 * same store events at the same point of the event stream:
 *   {"cmd":"result","game":N,"result":"1-0","reason":"flag fall"}
 *   {"cmd":"tag","game":N,"name":"...","value":"..."}
 *   {"cmd":"correction","game":N,"ply":K}     plies from K retracted
 *   {"cmd":"move","game":N,"ply":K,"uci":"e2e4","flags":0,"clock":ms,"emt":ms,"ts":T,"fits":1}
 *       (an illegal ply: "san" and "after", the FEN it left, instead of "uci")
 *   {"cmd":"clock-adjust","game":N,"color":"b","ms":120000}  time an arbiter
 *       gave a side (a rejected claim): no store event, the arbiters' clock
 * each with (all optional) "who" (the arbiter token's name, "relay" for a result the
 * monitor found), "at" (ms), "tick" (the feed ms the boards were ticked to: the
 * rebuild ticks them there first) and "t" (the feed ms the sources had
 * reached, the action's time: the rebuild applies it then).
 * A take-back, a replaced move or a draw-offer mark is a correction and
 * the moves that stand. The reader still takes the lines of older journals:
 * "# cmd result N R" and "# cmd tag N NAME VALUE". */
typedef enum cr_journal_cmd_kind {
    CR_JCMD_RESULT = 0,
    CR_JCMD_TAG,
    CR_JCMD_CORRECTION,
    CR_JCMD_MOVE,
    CR_JCMD_CLOCK_ADJUST
} cr_journal_cmd_kind;

typedef struct cr_journal_cmd {
    cr_journal_cmd_kind kind;
    int game;
    cr_result result;
    char reason[CR_REASON_MAX]; /* RESULT: why (may be empty) */
    char name[CR_TAG_NAME_MAX];
    char value[CR_TAG_VALUE_MAX];
    int ply;      /* CORRECTION: the first ply retracted; MOVE: its index */
    int color;    /* CLOCK_ADJUST: whose clock (CR_WHITE, CR_BLACK) */
    int32_t delta_ms; /* CLOCK_ADJUST: time given */
    cr_ply move;  /* MOVE: flags, clock_ms, emt_ms, ts, fits; uci (legal) or san and
                     after (illegal); `move` is left CR_MOVE_NONE: the reader
                     resolves uci in the game's position */
    char who[64];
    int64_t at;   /* wall clock, ms since 1970 (0: not known) */
    int64_t tick; /* feed ms the boards were ticked to (-1: not said) */
    int64_t t;    /* feed ms the sources had reached (-1: not said) */
} cr_journal_cmd;

/* The line (with its "\n") into out. Returns its length, or -1 if it does
 * not fit. */
int cr_journal_cmd_format(const cr_journal_cmd *c, char *out, size_t size);

/* 0: not a command line; 1: *c filled; -1: a command line that cannot be
 * read (why in err, err_size bytes): the caller reports it, never drops it
 * silently. */
int cr_journal_cmd_parse(const char *line, size_t len, cr_journal_cmd *c, char *err,
                         size_t err_size);

typedef enum cr_jline_kind {
    CR_JLINE_FEED = 0,  /* a feed line, or an empty one: text as it is */
    CR_JLINE_COMMENT,   /* a comment of no record type: text as it is */
    CR_JLINE_EPOCH,
    CR_JLINE_BOARD,
    CR_JLINE_GAME,
    CR_JLINE_TICK,
    CR_JLINE_FINISH,
    CR_JLINE_ACCEPT_BOARD,
    CR_JLINE_PAIRINGS,
    CR_JLINE_CMD,
    CR_JLINE_AGENT,
    CR_JLINE_AGENT_BYE
} cr_jline_kind;

typedef struct cr_jline {
    cr_jline_kind kind;
    union {
        struct {
            const char *text; /* FEED, COMMENT: the line without its "\n" */
            size_t len;
        } raw;
        struct {
            int64_t ms;
        } epoch;
        struct {
            int table; /* >= 1 */
            char id[CR_JLINE_ID_MAX + 1];
        } board;
        struct {
            int game; /* >= 1 */
            char board[CR_JLINE_ID_MAX + 1];
        } game;
        struct {
            char board[CR_JLINE_ID_MAX + 1];
            int64_t t; /* feed ms */
        } tick;
        struct {
            int64_t t;     /* feed ms of the end */
            bool has_reach; /* older journals do not say */
            int64_t reach; /* how far the sources had come */
        } finish;
        struct {
            int64_t ts_us, tick, t; /* wall us; feed ms ticked to; feed ms */
            int side, game;
            char board[CR_JLINE_ID_MAX + 1];
            char who[CR_JLINE_ID_MAX]; /* "-" when nobody was named */
        } accept;
        struct {
            int64_t ts_us, tick;
            const char *text; /* the pairings link's line, as written (may hold "\n") */
            size_t len;
        } pairings;
        cr_journal_cmd cmd;
        struct {
            char id[CR_JLINE_ID_MAX + 1];
            int64_t n, off; /* its event number, its clock offset (ms) */
            bool skip;      /* the number is used, no event follows */
        } agent;
        struct {
            char id[CR_JLINE_ID_MAX + 1];
            int64_t n;
        } bye;
    } u;
} cr_jline;

/* The record as its line, with its "\n" (FEED, COMMENT: text and "\n"; an
 * AGENT record: its comment line only, the feed line is the caller's),
 * NUL-terminated into out. Returns the length the line needs (as snprintf:
 * out holds it whole only if that is < size), or -1 when the record
 * cannot be written (an id with a space or empty, a JSON failure). */
int cr_jline_format(const cr_jline *l, char *out, size_t size);

/* One journal line (without its "\n", len bytes) into *l. Returns 0, or
 * -1 with err (err_size bytes) saying what is wrong and where in the line
 * ("tick: field 2 (feed ms): expected an integer, got 'x'"). A comment of
 * no record type is CR_JLINE_COMMENT, never an error. */
int cr_jline_parse(const char *line, size_t len, cr_jline *l, char *err, size_t err_size);

/* The name of a record type as it is written ("epoch", "accept-board";
 * "feed" and "comment" for the others). */
const char *cr_jline_kind_name(cr_jline_kind k);

#endif
