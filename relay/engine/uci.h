/* chessrelay relay: one UCI chess engine as a child process, driven from the
 * loop thread through two pipes (libevent bufferevents: never a blocking
 * read or write).
 *
 * Life of an engine: cr_uci_new spawns it (nice'd, optionally SCHED_IDLE,
 * with SIGKILL as its
 * parent-death signal so a relay that dies leaves no engine behind) and
 * sends "uci"; after "uciok" the options (Threads, Hash, MultiPV) and
 * "isready"; after "readyok" it is idle and `ready` is called. cr_uci_go
 * sends "position fen ..." and "go movetime N" (or "go depth N"); "info"
 * lines with a score and a principal variation (exact scores only: bounds
 * are passed over) are kept, the last one of each multipv line (up to
 * CR_UCI_LINES_MAX), and "bestmove" hands them to `result`, after which
 * the engine is idle again (`ready` is not called again).
 *
 * Chess960: an engine that lists "option name UCI_Chess960 type check"
 * before uciok is told "setoption name UCI_Chess960 value true" before the
 * position of a go for a Chess960 game (and false again for a standard
 * one). It then writes castling as king-takes-rook ("e1h1"), which
 * cr_move_from_uci reads back (engine/evals.c turns it into O-O). An
 * engine without the option gets the position all the same.
 *
 * An engine that closes its output (crash, exit, exec failure), answers
 * nothing within start_timeout_ms of its start, or gives no bestmove within
 * its go's timeout is killed and reaped, and `died` is called once; after
 * that the engine does nothing and must be freed (not from `died`: later,
 * from a timer of the caller, as the pool does).
 *
 * Threads: the loop thread only. Ownership: cr_uci_new returns a new object;
 * cr_uci_free kills the child if it still runs and reaps it. */
#ifndef CR_RELAY_UCI_H
#define CR_RELAY_UCI_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "cr/common.h"

struct event_base;

enum { CR_UCI_PV_MAX = 160, CR_UCI_MOVE_MAX = 6, CR_UCI_LINES_MAX = 5, CR_UCI_LINE_PV_MAX = 64 };

/* A line of multipv 2 and up (shorter: only its start is shown). */
typedef struct cr_uci_line {
    int depth; /* 0: the engine gave no such line */
    bool mate;
    int value;
    char pv[CR_UCI_LINE_PV_MAX]; /* UCI moves, cut at a move */
} cr_uci_line;

/* What the engine said about the position of the last go. Scores are the
 * engine's: from the side to move's point of view. The fields are line 1
 * (multipv 1); more[i] is line i + 2. */
typedef struct cr_uci_result {
    int depth;                  /* of the kept info line; 0: no score was given */
    bool mate;                  /* value is moves to mate (negative: the side to move is mated) */
    int value;                  /* centipawns, or moves to mate */
    char best[CR_UCI_MOVE_MAX]; /* bestmove in UCI ("" for "(none)") */
    char pv[CR_UCI_PV_MAX];     /* the line, UCI moves separated by spaces (cut at a move) */
    int nlines;                 /* highest multipv given (line 1 counted); 0: none */
    cr_uci_line more[CR_UCI_LINES_MAX - 1];
} cr_uci_result;

typedef struct cr_uci cr_uci;

typedef struct cr_uci_config {
    struct event_base *base;
    const char *path;     /* the engine's executable (see cr_uci_resolve) */
    int threads, hash_mb; /* setoption Threads / Hash; 0: the engine's default */
    int multipv;          /* setoption MultiPV when > 1 (up to CR_UCI_LINES_MAX kept) */
    int nice;             /* added to the child's niceness (0: none) */
    bool idle;            /* and the SCHED_IDLE policy: CPU only when nothing else wants it */
    int start_timeout_ms; /* uciok and readyok within this (0: 10 s) */
    void (*ready)(void *data, cr_uci *e);
    void (*result)(void *data, cr_uci *e, const cr_uci_result *r);
    void (*died)(void *data, cr_uci *e, const char *why); /* why: a static string */
    void *data;
} cr_uci_config;

/* The executable for name: name itself when it holds a '/', else the first
 * match in $PATH, then /usr/games and /usr/local/games (Debian's stockfish
 * is /usr/games/stockfish). Returns 0 with out filled, or CR_EINVAL with
 * err saying why (not found, not executable). */
int cr_uci_resolve(const char *name, char *out, size_t size, cr_error *err);

/* Spawns the engine and starts the handshake. NULL with err filled when
 * the process cannot be made (pipes, fork). */
cr_uci *cr_uci_new(const cr_uci_config *cfg, cr_error *err);
void cr_uci_free(cr_uci *e); /* accepts NULL */

/* Idle: ready and not analysing. */
bool cr_uci_idle(const cr_uci *e);
/* The engine listed the UCI_Chess960 option (known once ready). */
bool cr_uci_has_chess960(const cr_uci *e);
pid_t cr_uci_pid(const cr_uci *e);

/* Analyses fen for movetime_ms (> 0) or to depth (> 0, when movetime_ms is
 * 0). chess960: the position is of a Chess960 game (UCI_Chess960 set when
 * the engine has it). timeout_ms: no bestmove by then means a hung engine.
 * Returns 0, or CR_EINVAL when the engine is not idle or fen has a
 * newline. */
int cr_uci_go(cr_uci *e, const char *fen, bool chess960, int movetime_ms, int depth,
              int timeout_ms);

/* Parses one "info" line into r: its multipv line (1 when not given, up to
 * CR_UCI_LINES_MAX; r->nlines raised to it) takes the line's score, depth
 * and pv. Keeps what it has when the line gives no exact score (lowerbound,
 * upperbound) with a pv, or a multipv beyond CR_UCI_LINES_MAX. Returns true
 * when r was updated. */
bool cr_uci_parse_info(const char *line, cr_uci_result *r);

#endif
