/* chessrelay relay: a pool of UCI engines (uci.h) with a queue of positions
 * by priority and a cache of what was analysed.
 *
 * The caller asks for positions (cr_engine_pool_want) with a priority (the
 * relay gives the seq of the move that made the position: the newest moves
 * go first); each idle engine takes the queued position of highest
 * priority. A position is analysed once: results are cached by position
 * (the FEN's first four fields, and whether it is of a Chess960 game: the
 * engine writes castling differently then) and a position asked for again
 * is answered from the cache at once; one already queued only has its
 * priority raised.
 *
 * An engine that dies (crash, exit, hang: uci.h) is restarted after a
 * back-off (0.5 s doubling to 30 s, back to 0.5 s after a result); the
 * position it was analysing goes back into the queue, and is dropped after
 * it killed engines three times.
 *
 * Threads: the loop thread only. Ownership: cr_engine_pool_new returns a
 * new object that owns its engines; cr_engine_pool_free kills and reaps
 * them. */
#ifndef CR_RELAY_ENGINE_POOL_H
#define CR_RELAY_ENGINE_POOL_H

#include <stdint.h>

#include "engine/uci.h"

struct event_base;

typedef struct cr_engine_pool_config {
    struct event_base *base;
    const char *path; /* the engine (resolved with cr_uci_resolve) */
    int processes;    /* engines (>= 1) */
    int threads, hash_mb, multipv;
    int movetime_ms;      /* per position; or */
    int depth;            /* when movetime_ms is 0 */
    int nice;             /* added to the engines' niceness */
    bool idle;            /* SCHED_IDLE engines (uci.h) */
    int start_timeout_ms; /* see uci.h (0: 10 s) */
    /* A position's analysis (fen as asked; r borrowed). Called from the
     * loop, or from cr_engine_pool_want when the position is cached. */
    void (*result)(void *data, const char *fen, const cr_uci_result *r);
    void *data;
} cr_engine_pool_config;

typedef struct cr_engine_pool cr_engine_pool;

typedef struct cr_engine_pool_stats {
    uint64_t analysed; /* positions analysed by an engine */
    uint64_t cached;   /* asked again and answered from the cache */
    uint64_t restarts; /* engines restarted */
    uint64_t dropped;  /* positions given up (they killed engines) */
    int queued;        /* waiting now */
    int running;       /* engines up (handshake done or under way) */
} cr_engine_pool_stats;

/* Resolves the path (cr_uci_resolve) and starts the engines. NULL with err
 * filled when the path is wrong or no process can be made. */
cr_engine_pool *cr_engine_pool_new(const cr_engine_pool_config *cfg, cr_error *err);
void cr_engine_pool_free(cr_engine_pool *p); /* accepts NULL */

/* Asks for fen's analysis (chess960: of a Chess960 game, see uci.h).
 * Returns 0 (queued, or answered from the cache through `result` before
 * returning), CR_EINVAL for a malformed fen, or CR_ENOMEM. */
int cr_engine_pool_want(cr_engine_pool *p, const char *fen, bool chess960, int64_t priority);

void cr_engine_pool_get_stats(const cr_engine_pool *p, cr_engine_pool_stats *st);

/* The pids of the engines now running (for tests): up to n into pids;
 * returns how many. */
int cr_engine_pool_pids(const cr_engine_pool *p, pid_t *pids, int n);

#endif
