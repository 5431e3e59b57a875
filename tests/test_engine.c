/* Tests of the engine modules (relay/engine/): the UCI process against
 * tests/tools/fake_uci (deterministic, answers at once), the pool (queue
 * by priority, cache, restart with back-off, bad path), the evaluations
 * (score to white's view, SAN line, NAGs), the store's evals (JSON, PGN)
 * and the delay rule: nothing is analysed before the position is public.
 * Every wait is on a condition, bounded by a deadline. */
#define _GNU_SOURCE /* SCHED_IDLE */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <sched.h>
#include <event2/event.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/lanes.h"
#include "core/store.h"
#include "engine/evals.h"
#include "engine/pool.h"
#include "engine/uci.h"
#include "net/queue.h"
#include "out/outputs.h"
#include "net/view.h"
#include "util/log.h"
#include "test_util.h"

#define START_FEN "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
#define E4_FEN "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"

/*----- waiting on conditions -----*/

typedef bool (*cond_fn)(void *arg);

/* Runs the loop until cond holds; fails after ms. */
static void run_until(struct event_base *base, cond_fn cond, void *arg, int ms, const char *what)
{
    int64_t end = cr_mono_us() + (int64_t)ms * 1000;
    while (!cond(arg)) {
        if (cr_mono_us() > end) {
            fail_msg("timed out waiting for %s", what);
        }
        struct timeval tv = {0, 20000};
        event_base_loopexit(base, &tv);
        event_base_dispatch(base);
    }
}

static bool flag_set(void *arg)
{
    return *(bool *)arg;
}

/* Runs the loop for ms (only to show that something did not happen). */
static void spin(struct event_base *base, int ms)
{
    struct timeval tv = {0, ms * 1000};
    event_base_loopexit(base, &tv);
    event_base_dispatch(base);
}

/* fake_uci's score of a position (tests/tools/fake_uci.c). */
static int fake_score(const char *fen)
{
    unsigned h = 2166136261u;
    for (const char *s = fen; *s && *s != ' '; s++) {
        h = (h ^ (unsigned char)*s) * 16777619u;
    }
    return (int)(h % 600) - 300;
}

/*----- cr_uci -----*/

typedef struct uci_ctx {
    bool ready, got, died;
    cr_uci_result r;
    char why[128];
} uci_ctx;

static void u_ready(void *data, cr_uci *e)
{
    (void)e;
    ((uci_ctx *)data)->ready = true;
}

static void u_result(void *data, cr_uci *e, const cr_uci_result *r)
{
    (void)e;
    uci_ctx *c = data;
    c->r = *r;
    c->got = true;
}

static void u_died(void *data, cr_uci *e, const char *why)
{
    (void)e;
    uci_ctx *c = data;
    c->died = true;
    snprintf(c->why, sizeof c->why, "%s", why);
}

static cr_uci *start_fake(struct event_base *base, uci_ctx *c, const char *mode, int nice_by)
{
    setenv("FAKE_UCI_MODE", mode, 1);
    memset(c, 0, sizeof *c);
    cr_uci_config cfg = {.base = base,
                         .path = CR_FAKE_UCI,
                         .threads = 1,
                         .hash_mb = 16,
                         .multipv = 2,
                         .nice = nice_by,
                         .idle = nice_by > 0,
                         .start_timeout_ms = 2000,
                         .ready = u_ready,
                         .result = u_result,
                         .died = u_died,
                         .data = c};
    cr_error err;
    cr_uci *e = cr_uci_new(&cfg, &err);
    if (!e) {
        fail_msg("cr_uci_new: %s", err.text);
    }
    return e;
}

static void test_parse_info(void **state)
{
    (void)state;
    cr_uci_result r;
    memset(&r, 0, sizeof r);
    assert_true(cr_uci_parse_info(
        "info depth 12 seldepth 15 multipv 1 score cp 35 nodes 100 nps 5 pv e2e4 e7e5 g1f3", &r));
    assert_int_equal(r.depth, 12);
    assert_false(r.mate);
    assert_int_equal(r.value, 35);
    assert_string_equal(r.pv, "e2e4 e7e5 g1f3");
    assert_true(cr_uci_parse_info("info depth 20 score mate -3 pv h7h8q", &r));
    assert_true(r.mate);
    assert_int_equal(r.value, -3);
    assert_string_equal(r.pv, "h7h8q");
    /* kept as they were: bounds, other lines, free text, no pv, no score */
    assert_false(cr_uci_parse_info("info depth 21 score cp 99 lowerbound pv a2a3", &r));
    assert_false(cr_uci_parse_info("info depth 21 multipv 6 score cp 99 pv a2a3", &r));
    assert_false(cr_uci_parse_info("info string depth 3 score cp 1 pv a2a3", &r));
    assert_false(cr_uci_parse_info("info depth 21 score cp 99", &r));
    assert_false(cr_uci_parse_info("info depth 21 currmove e2e4 pv a2a3", &r));
    assert_false(cr_uci_parse_info("bestmove e2e4", &r));
    assert_false(cr_uci_parse_info("info depth x score cp 1 pv a2a3", &r));
    assert_int_equal(r.depth, 20);
    assert_int_equal(r.value, -3);
    /* a long line is cut at a move */
    char line[1024] = "info depth 5 score cp 1 pv";
    for (int i = 0; i < 100; i++) {
        strcat(line, " e2e4");
    }
    assert_true(cr_uci_parse_info(line, &r));
    assert_true(strlen(r.pv) < CR_UCI_PV_MAX);
    assert_int_equal(strlen(r.pv) % 5, 4);
}

/* multipv: the lines of several iterations interleaved, as an engine
 * prints them; each line keeps its last exact score, bounds are passed
 * over. */
static void test_parse_multipv(void **state)
{
    (void)state;
    cr_uci_result r;
    memset(&r, 0, sizeof r);
    static const char *const lines[] = {
        "info depth 10 multipv 1 score cp 40 pv e2e4 e7e5",
        "info depth 10 multipv 2 score cp 30 pv d2d4 d7d5",
        "info depth 10 multipv 3 score cp 20 pv g1f3 g8f6",
        "info depth 11 multipv 1 score cp 90 lowerbound pv e2e4",
        "info depth 11 multipv 1 score cp 45 pv e2e4 c7c5 g1f3",
        "info depth 11 multipv 3 score cp -20 upperbound pv c2c4",
        "info depth 11 multipv 2 score mate 5 pv d2d4 d7d5 c2c4",
        "info depth 11 seldepth 14 multipv 3 score cp 15 nodes 9 pv c2c4 e7e5",
        "info depth 12 currmove e2e4 currmovenumber 1",
        "info depth 12 multipv 1 score cp 50 upperbound pv e2e4",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        bool bound = strstr(lines[i], "bound") != NULL || strstr(lines[i], "currmove") != NULL;
        assert_int_equal(cr_uci_parse_info(lines[i], &r), !bound);
    }
    assert_int_equal(r.nlines, 3);
    assert_int_equal(r.depth, 11);
    assert_false(r.mate);
    assert_int_equal(r.value, 45);
    assert_string_equal(r.pv, "e2e4 c7c5 g1f3");
    assert_int_equal(r.more[0].depth, 11);
    assert_true(r.more[0].mate);
    assert_int_equal(r.more[0].value, 5);
    assert_string_equal(r.more[0].pv, "d2d4 d7d5 c2c4");
    assert_int_equal(r.more[1].depth, 11);
    assert_false(r.more[1].mate);
    assert_int_equal(r.more[1].value, 15);
    assert_string_equal(r.more[1].pv, "c2c4 e7e5");
    assert_int_equal(r.more[2].depth, 0); /* no line 4 */
    /* a long line 2 is cut at a move */
    char line[1024] = "info depth 5 multipv 2 score cp 1 pv";
    for (int i = 0; i < 40; i++) {
        strcat(line, " e2e4");
    }
    assert_true(cr_uci_parse_info(line, &r));
    assert_true(strlen(r.more[0].pv) < CR_UCI_LINE_PV_MAX);
    assert_int_equal(strlen(r.more[0].pv) % 5, 4);
    /* the lines to white's view and SAN, line 1 the eval's own fields;
     * a line with no legal first move is left out */
    cr_uci_result u = {.depth = 11,
                       .value = 45,
                       .best = "e7e5",
                       .pv = "e7e5 g1f3",
                       .nlines = 4,
                       .more = {{.depth = 11, .value = 30, .pv = "c7c5 g1f3"},
                                {.depth = 10, .value = 0, .pv = "a1a8"},
                                {.depth = 11, .mate = true, .value = -4, .pv = "g7g5 d1h5"}}};
    cr_eval e;
    assert_int_equal(cr_evals_from_uci(E4_FEN, &u, &e), 0);
    assert_int_equal(e.value, -45);
    assert_string_equal(e.pv, "e5 Nf3");
    assert_int_equal(e.nlines, 3);
    assert_int_equal(e.more[0].value, -30);
    assert_string_equal(e.more[0].pv, "c5 Nf3");
    assert_true(e.more[1].mate);
    assert_int_equal(e.more[1].value, 4);
    assert_string_equal(e.more[1].pv, "g5 Qh5");
}

static void test_resolve(void **state)
{
    (void)state;
    char out[4096];
    cr_error err;
    assert_int_equal(cr_uci_resolve("sh", out, sizeof out, &err), 0);
    assert_true(strchr(out, '/') != NULL);
    assert_int_equal(cr_uci_resolve(CR_FAKE_UCI, out, sizeof out, &err), 0);
    assert_string_equal(out, CR_FAKE_UCI);
    assert_int_equal(cr_uci_resolve("/nonexistent/engine", out, sizeof out, &err), CR_EINVAL);
    assert_non_null(strstr(err.text, "/nonexistent/engine: no such file"));
    assert_int_equal(cr_uci_resolve("no-such-engine-anywhere", out, sizeof out, &err), CR_EINVAL);
    assert_non_null(strstr(err.text, "not found"));
    char tmp[] = "/tmp/cr_engine_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(cr_uci_resolve(tmp, out, sizeof out, &err), CR_EINVAL);
    assert_non_null(strstr(err.text, "not executable"));
    unlink(tmp);
}

static void test_uci_go(void **state)
{
    (void)state;
    struct event_base *base = event_base_new();
    uci_ctx c;
    cr_uci *e = start_fake(base, &c, "", 10);
    assert_false(cr_uci_idle(e));
    assert_int_equal(cr_uci_go(e, START_FEN, false, 10, 0, 1000), CR_EINVAL); /* not ready yet */
    run_until(base, flag_set, &c.ready, 5000, "readyok");
    assert_true(cr_uci_idle(e));
    /* niced: the relay's work first */
    errno = 0;
    int mine = getpriority(PRIO_PROCESS, 0);
    int its = getpriority(PRIO_PROCESS, (id_t)cr_uci_pid(e));
    assert_int_equal(its, mine + 10 > 19 ? 19 : mine + 10);
    assert_int_equal(sched_getscheduler(cr_uci_pid(e)), SCHED_IDLE); /* CPU only when idle */

    assert_int_equal(cr_uci_go(e, START_FEN, false, 10, 0, 2000), 0);
    assert_false(cr_uci_idle(e));
    assert_int_equal(cr_uci_go(e, START_FEN, false, 10, 0, 2000), CR_EINVAL); /* busy */
    run_until(base, flag_set, &c.got, 5000, "bestmove");
    assert_true(cr_uci_idle(e));
    assert_int_equal(c.r.depth, 7); /* the deeper line; "string" not kept */
    assert_false(c.r.mate);
    assert_int_equal(c.r.value, fake_score(START_FEN));
    assert_string_equal(c.r.best, "e2e4");
    assert_string_equal(c.r.pv, "e2e4 e7e5");
    assert_int_equal(c.r.nlines, 2); /* multipv 2 kept as it came */
    assert_int_equal(c.r.more[0].value, -999);
    assert_string_equal(c.r.more[0].pv, "0000");
    int first = c.r.value;
    c.got = false;
    assert_int_equal(cr_uci_go(e, START_FEN, false, 0, 5, 2000), 0);
    run_until(base, flag_set, &c.got, 5000, "bestmove");
    assert_int_equal(c.r.value, first); /* deterministic */
    assert_false(c.died);
    pid_t pid = cr_uci_pid(e);
    cr_uci_free(e);
    assert_int_equal(kill(pid, 0), -1); /* reaped */
    assert_false(c.died);               /* no callback from free */
    event_base_free(base);
}

static void test_uci_failures(void **state)
{
    (void)state;
    struct event_base *base = event_base_new();
    uci_ctx c;
    /* never says uciok */
    cr_uci *e = start_fake(base, &c, "mute", 0);
    run_until(base, flag_set, &c.died, 5000, "the start timeout");
    assert_string_equal(c.why, "did not answer uci/isready");
    assert_false(c.ready);
    assert_int_equal(cr_uci_pid(e), -1);
    cr_uci_free(e);
    /* hangs on go */
    e = start_fake(base, &c, "hang", 0);
    run_until(base, flag_set, &c.ready, 5000, "readyok");
    pid_t pid = cr_uci_pid(e);
    assert_int_equal(cr_uci_go(e, START_FEN, false, 10, 0, 200), 0);
    run_until(base, flag_set, &c.died, 5000, "the go timeout");
    assert_string_equal(c.why, "gave no bestmove in time (hung)");
    assert_int_equal(kill(pid, 0), -1); /* killed and reaped */
    assert_false(c.got);
    cr_uci_free(e);
    /* crashes on go */
    e = start_fake(base, &c, "crash", 0);
    run_until(base, flag_set, &c.ready, 5000, "readyok");
    assert_int_equal(cr_uci_go(e, START_FEN, false, 10, 0, 5000), 0);
    run_until(base, flag_set, &c.died, 5000, "the crash");
    assert_string_equal(c.why, "exited");
    cr_uci_free(e);
    event_base_free(base);
}

/*----- the pool -----*/

typedef struct pool_ctx {
    char order[8][CR_FEN_MAX];
    int n;
    cr_uci_result last;
} pool_ctx;

static void p_result(void *data, const char *fen, const cr_uci_result *r)
{
    pool_ctx *c = data;
    if (c->n < 8) {
        snprintf(c->order[c->n], sizeof c->order[0], "%s", fen);
    }
    c->n++;
    c->last = *r;
}

typedef struct count_wait {
    pool_ctx *c;
    int n;
} count_wait;

static bool got_n(void *arg)
{
    count_wait *w = arg;
    return w->c->n >= w->n;
}

static bool queue_empty(void *arg)
{
    cr_engine_pool_stats st;
    cr_engine_pool_get_stats(arg, &st);
    return st.queued == 0;
}

static cr_engine_pool *new_pool(struct event_base *base, pool_ctx *c, int processes)
{
    memset(c, 0, sizeof *c);
    cr_engine_pool_config cfg = {.base = base,
                                 .path = CR_FAKE_UCI,
                                 .processes = processes,
                                 .movetime_ms = 10,
                                 .nice = 0,
                                 .result = p_result,
                                 .data = c};
    cr_error err;
    cr_engine_pool *p = cr_engine_pool_new(&cfg, &err);
    if (!p) {
        fail_msg("pool: %s", err.text);
    }
    return p;
}

static void test_pool_priority_and_cache(void **state)
{
    (void)state;
    setenv("FAKE_UCI_MODE", "slow", 1);
    setenv("FAKE_UCI_SLEEP_MS", "150", 1);
    struct event_base *base = event_base_new();
    pool_ctx c;
    cr_engine_pool *p = new_pool(base, &c, 1);
    const char *a = START_FEN, *b = E4_FEN;
    const char *cc = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    const char *d = "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2";
    assert_int_equal(cr_engine_pool_want(p, "not a fen", false, 1), CR_EINVAL);
    assert_int_equal(cr_engine_pool_want(p, a, false, 1), 0);
    /* a is sent once the engine is ready; the others wait behind it */
    cr_engine_pool_stats st;
    run_until(base, queue_empty, p, 5000, "a sent to the engine");
    assert_int_equal(cr_engine_pool_want(p, b, false, 1), 0);
    assert_int_equal(cr_engine_pool_want(p, cc, false, 5), 0);
    assert_int_equal(cr_engine_pool_want(p, d, false, 3), 0);
    assert_int_equal(cr_engine_pool_want(p, b, false, 2), 0); /* queued again: priority raised */
    assert_int_equal(cr_engine_pool_want(p, a, false, 9), 0); /* running: nothing more */
    cr_engine_pool_get_stats(p, &st);
    assert_int_equal(st.queued, 3);
    count_wait w = {&c, 4};
    run_until(base, got_n, &w, 10000, "four results");
    assert_string_equal(c.order[0], a);
    assert_string_equal(c.order[1], cc);
    assert_string_equal(c.order[2], d);
    assert_string_equal(c.order[3], b);
    /* the same position again (other counters): from the cache, at once */
    assert_int_equal(
        cr_engine_pool_want(p, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 5 9", false, 1),
        0);
    assert_int_equal(c.n, 5);
    cr_engine_pool_get_stats(p, &st);
    assert_int_equal(st.analysed, 4);
    assert_int_equal(st.cached, 1);
    assert_int_equal(st.queued, 0);
    cr_engine_pool_free(p);
    event_base_free(base);
    unsetenv("FAKE_UCI_SLEEP_MS");
}

static void test_pool_restart(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_engine_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char marker[256];
    snprintf(marker, sizeof marker, "%s/crashed", dir);
    setenv("FAKE_UCI_MODE", "crash-once", 1);
    setenv("FAKE_UCI_STATE", marker, 1);
    struct event_base *base = event_base_new();
    pool_ctx c;
    cr_engine_pool *p = new_pool(base, &c, 1);
    pid_t before;
    assert_int_equal(cr_engine_pool_pids(p, &before, 1), 1);
    assert_int_equal(cr_engine_pool_want(p, START_FEN, false, 1), 0);
    count_wait w = {&c, 1};
    run_until(base, got_n, &w, 10000, "the result after the restart");
    assert_string_equal(c.order[0], START_FEN);
    assert_int_equal(access(marker, F_OK), 0); /* it did crash once */
    cr_engine_pool_stats st;
    cr_engine_pool_get_stats(p, &st);
    assert_int_equal(st.restarts, 1);
    assert_int_equal(st.analysed, 1);
    assert_int_equal(st.running, 1);
    pid_t after;
    assert_int_equal(cr_engine_pool_pids(p, &after, 1), 1);
    assert_int_not_equal(before, after);
    assert_int_equal(kill(before, 0), -1); /* the crashed one was reaped */
    cr_engine_pool_free(p);
    assert_int_equal(kill(after, 0), -1);
    event_base_free(base);
    unlink(marker);
    rmdir(dir);
    unsetenv("FAKE_UCI_STATE");
}

static void test_pool_bad_path(void **state)
{
    (void)state;
    struct event_base *base = event_base_new();
    cr_engine_pool_config cfg = {
        .base = base, .path = "/nonexistent/stockfish", .processes = 2, .movetime_ms = 10};
    cr_error err;
    assert_null(cr_engine_pool_new(&cfg, &err));
    assert_non_null(strstr(err.text, "engine /nonexistent/stockfish: no such file"));
    cfg.path = CR_FAKE_UCI;
    cfg.movetime_ms = 0;
    assert_null(cr_engine_pool_new(&cfg, &err)); /* neither movetime nor depth */
    event_base_free(base);
}

/*----- evaluations -----*/

static void test_from_uci(void **state)
{
    (void)state;
    cr_uci_result r = {.depth = 18, .value = 35, .best = "e7e5", .pv = "e7e5 g1f3 b8c6 zz99"};
    cr_eval e;
    assert_int_equal(cr_evals_from_uci(E4_FEN, &r, &e), 0);
    assert_int_equal(e.depth, 18);
    assert_false(e.mate);
    assert_int_equal(e.value, -35); /* black to move: white's view is the opposite */
    assert_string_equal(e.best, "e5");
    assert_string_equal(e.pv, "e5 Nf3 Nc6"); /* SAN, cut at the first move that is not legal */
    r = (cr_uci_result){.depth = 9, .mate = true, .value = 2, .best = "d1h5", .pv = "d1h5"};
    assert_int_equal(cr_evals_from_uci(START_FEN, &r, &e), 0);
    assert_true(e.mate);
    assert_int_equal(e.value, 2);
    assert_string_equal(e.best, ""); /* Qh5 is not legal in the start position */
    r.depth = 0;
    assert_int_equal(cr_evals_from_uci(START_FEN, &r, &e), CR_EINVAL); /* no score */
}

static void test_nag(void **state)
{
    (void)state;
    cr_eval a = {.depth = 10, .value = 50}, b = {.depth = 10, .value = -120};
    assert_int_equal(cr_evals_nag(&a, &b, CR_WHITE, 150, 300), 2); /* white lost 1.70 */
    assert_int_equal(cr_evals_nag(&a, &b, CR_BLACK, 150, 300), 0); /* black gained */
    assert_int_equal(cr_evals_nag(&a, &b, CR_WHITE, 0, 0), 0);     /* alerts off */
    b.value = -400;
    assert_int_equal(cr_evals_nag(&a, &b, CR_WHITE, 150, 300), 4);
    /* clamped at 10 pawns: +15 to +8 is no mistake, a mate missed from +9 is */
    a.value = 1500;
    b.value = 800;
    assert_int_equal(cr_evals_nag(&a, &b, CR_WHITE, 150, 300), 2);
    a = (cr_eval){.depth = 10, .mate = true, .value = 3};
    b = (cr_eval){.depth = 10, .value = 200};
    assert_int_equal(cr_evals_nag(&a, &b, CR_WHITE, 150, 300), 4);
    assert_int_equal(cr_evals_nag(NULL, &b, CR_WHITE, 150, 300), 0);
}

/*----- the store's evaluations -----*/

static cr_store_event *game_ev(int id, int64_t seq)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    ev->seq = seq;
    ev->ts = seq;
    ev->game = id;
    strcpy(ev->board, "B1");
    strcpy(ev->round, "1");
    return ev;
}

static cr_store_event *move_ev(const cr_store *s, int id, const char *uci, int64_t seq, int64_t ts)
{
    const cr_store_game *g = cr_store_find(s, id);
    cr_game *scratch = cr_game_clone(g->game);
    cr_move m = cr_move_from_uci(cr_game_position(scratch), uci);
    assert_int_equal(cr_game_push(scratch, m, CR_CLOCK_UNKNOWN, ts, 0), 0);
    cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
    ev->seq = seq;
    ev->ts = ts;
    ev->game = id;
    ev->ply = cr_game_ply_count(scratch) - 1;
    ev->move = *cr_game_ply(scratch, ev->ply);
    cr_game_free(scratch);
    return ev;
}

static void apply(cr_store *s, cr_store_event *ev)
{
    cr_error err;
    if (cr_store_apply(s, ev, &err)) {
        fail_msg("%s", err.text);
    }
    cr_store_event_free(ev);
}

static void test_store_evals(void **state)
{
    (void)state;
    cr_store *s = cr_store_new();
    apply(s, game_ev(1, 1));
    apply(s, move_ev(s, 1, "e2e4", 2, 2));
    apply(s, move_ev(s, 1, "e7e5", 3, 3));
    cr_eval e = {.depth = 18, .value = 35, .best = "Nf3", .pv = "Nf3 Nc6"};
    cr_error err;
    assert_int_equal(cr_store_set_eval(s, 1, 0, &e, &err), 0);
    e = (cr_eval){.depth = 20, .mate = true, .value = -3, .best = "Qh4", .pv = "Qh4", .nag = 4};
    assert_int_equal(cr_store_set_eval(s, 1, 1, &e, &err), 0);
    assert_int_equal(cr_store_set_eval(s, 1, 2, &e, &err), CR_EINVAL); /* no such ply */
    assert_int_equal(cr_store_set_eval(s, 7, 0, &e, &err), CR_EINVAL);
    /* the PGN: only when asked */
    cr_buf *pgn = cr_store_pgn(s, 1);
    assert_null(strstr(pgn->data, "%eval"));
    cr_buf_unref(pgn);
    cr_store_set_pgn_evals(s, true);
    pgn = cr_store_pgn(s, 1);
    assert_non_null(strstr(pgn->data, "1. e4 {[%eval 0.35]} 1... e5 $4 {[%eval #-3]}"));
    cr_buf_unref(pgn);
    /* the messages */
    cr_buf *m = cr_store_eval_json(s, 1, 1);
    json_t *j = json_loadb(m->data, m->len, 0, NULL);
    assert_string_equal(json_string_value(json_object_get(j, "type")), "eval");
    assert_int_equal(json_integer_value(json_object_get(j, "ply")), 1);
    json_t *ej = json_object_get(j, "eval");
    assert_int_equal(json_integer_value(json_object_get(ej, "mate")), -3);
    assert_null(json_object_get(ej, "cp"));
    assert_int_equal(json_integer_value(json_object_get(ej, "nag")), 4);
    assert_string_equal(json_string_value(json_object_get(ej, "best")), "Qh4");
    json_decref(j);
    cr_buf_unref(m);
    cr_buf *snap = cr_store_snapshot_json(s, 1, 0);
    j = json_loadb(snap->data, snap->len, 0, NULL);
    json_t *moves = json_object_get(json_object_get(j, "game"), "moves");
    assert_int_equal(json_integer_value(
                         json_object_get(json_object_get(json_array_get(moves, 0), "eval"), "cp")),
                     35);
    json_decref(j);
    cr_buf_unref(snap);
    cr_buf *sum = cr_store_summary_json(s, 1);
    assert_non_null(strstr(sum->data, "\"eval\":{\"mate\":-3"));
    cr_buf_unref(sum);
    /* a correction drops the retracted plies' evals, and a new move has none */
    cr_store_event *c = cr_store_event_new(CR_SEV_CORRECTION);
    c->seq = 4;
    c->ts = 4;
    c->game = 1;
    c->ply = 1;
    c->retracted = 1;
    apply(s, c);
    apply(s, move_ev(s, 1, "c7c5", 5, 5));
    assert_null(cr_store_eval(cr_store_find(s, 1), 1));
    assert_non_null(cr_store_eval(cr_store_find(s, 1), 0));
    m = cr_store_evals_json(s, 1);
    assert_string_equal(m->data,
                        "{\"type\":\"evals\",\"game\":1,\"evals\":[{\"cp\":35,\"depth\":18,"
                        "\"best\":\"Nf3\",\"pv\":\"Nf3 Nc6\"},null]}");
    cr_buf_unref(m);
    cr_store_free(s);
}

/* multipv: "lines" in the messages (line 1 the eval's own fields), only
 * line 1 in the PGN; an eval without other lines has no "lines". */
static void test_store_eval_lines(void **state)
{
    (void)state;
    cr_store *s = cr_store_new();
    apply(s, game_ev(1, 1));
    apply(s, move_ev(s, 1, "e2e4", 2, 2));
    cr_eval e = {.depth = 18,
                 .value = -35,
                 .best = "e5",
                 .pv = "e5 Nf3",
                 .nlines = 3,
                 .more = {{.depth = 18, .value = -20, .pv = "c5 Nf3"},
                          {.depth = 17, .mate = true, .value = 6, .pv = "g5 d4"}}};
    cr_error err;
    assert_int_equal(cr_store_set_eval(s, 1, 0, &e, &err), 0);
    cr_buf *m = cr_store_eval_json(s, 1, 0);
    assert_string_equal(m->data,
                        "{\"type\":\"eval\",\"game\":1,\"ply\":0,\"eval\":{\"cp\":-35,\"depth\":18,"
                        "\"best\":\"e5\",\"pv\":\"e5 Nf3\",\"lines\":["
                        "{\"cp\":-35,\"depth\":18,\"pv\":\"e5 Nf3\"},"
                        "{\"cp\":-20,\"depth\":18,\"pv\":\"c5 Nf3\"},"
                        "{\"mate\":6,\"depth\":17,\"pv\":\"g5 d4\"}]}}");
    cr_buf_unref(m);
    cr_store_set_pgn_evals(s, true);
    cr_buf *pgn = cr_store_pgn(s, 1);
    assert_non_null(strstr(pgn->data, "1. e4 {[%eval -0.35]}"));
    assert_null(strstr(pgn->data, "-0.20"));
    assert_null(strstr(pgn->data, "#6"));
    cr_buf_unref(pgn);
    cr_eval same = e;
    assert_true(cr_eval_equal(&e, &same));
    same.more[1].value = 5;
    assert_false(cr_eval_equal(&e, &same)); /* a line differs: a new eval */
    e.nlines = 0;
    assert_int_equal(cr_store_set_eval(s, 1, 0, &e, &err), 0);
    m = cr_store_eval_json(s, 1, 0);
    assert_null(strstr(m->data, "lines"));
    cr_buf_unref(m);
    cr_store_free(s);
}

/* Per output: the export folder with the evals, then without. */
static void test_export_evals(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_engine_XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct event_base *base = event_base_new();
    cr_outputs *o = cr_outputs_new(base, dir, NULL);
    assert_non_null(o);
    cr_store *s = cr_store_new();
    apply(s, game_ev(1, 1));
    apply(s, move_ev(s, 1, "e2e4", 2, 2));
    cr_eval e = {.depth = 18, .value = -42, .best = "e5", .pv = "e5"};
    cr_error err;
    assert_int_equal(cr_store_set_eval(s, 1, 0, &e, &err), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/round-1/games.pgn", dir);
    cr_outputs_set_evals(o, false, true);
    cr_outputs_changed_game(o, s, 1);
    cr_outputs_flush(o, s);
    size_t len;
    char *text = NULL;
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_true(getdelim(&text, &len, '\0', f) > 0);
    fclose(f);
    assert_non_null(strstr(text, "1. e4 {[%eval -0.42]}"));
    free(text);
    text = NULL;
    cr_outputs_set_evals(o, true, false); /* pushes would have them, the folder not */
    apply(s, move_ev(s, 1, "e7e5", 3, 3));
    cr_outputs_changed_game(o, s, 1);
    cr_outputs_flush(o, s);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_true(getdelim(&text, &len, '\0', f) > 0);
    fclose(f);
    assert_non_null(strstr(text, "1. e4 e5"));
    assert_null(strstr(text, "%eval"));
    free(text);
    cr_store_free(s);
    cr_outputs_free(o);
    event_base_free(base);
    cr_test_rm_rf(dir);
}

/*----- the delay rule: lanes and evals together -----*/

typedef struct relay_ctx {
    cr_evals *evals;
    int evaluated;
} relay_ctx;

static void on_public(void *data, const cr_store *pub, const cr_store_event *ev)
{
    relay_ctx *r = data;
    cr_evals_public_event(r->evals, pub, ev);
}

static void on_evaluated(void *data, const cr_store *pub, int game, int ply)
{
    (void)pub;
    (void)game;
    (void)ply;
    ((relay_ctx *)data)->evaluated++;
}

static void free_pub(void *p)
{
    cr_pub_free(p);
}

typedef struct eval_wait {
    const cr_lanes *l;
    int ply;
} eval_wait;

static bool public_has_eval(void *arg)
{
    eval_wait *w = arg;
    const cr_store_game *g = cr_store_find(cr_lanes_public(w->l), 1);
    return g && cr_store_eval(g, w->ply) != NULL;
}

static void add(cr_lanes *l, cr_store_event *ev)
{
    cr_error err;
    if (cr_lanes_add(l, ev, NULL, &err)) {
        fail_msg("%s", err.text);
    }
}

static void test_delay_rule(void **state)
{
    (void)state;
    char dir[] = "/tmp/cr_engine_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char log[256];
    snprintf(log, sizeof log, "%s/positions", dir);
    setenv("FAKE_UCI_MODE", "log", 1);
    setenv("FAKE_UCI_STATE", log, 1);
    setenv("FAKE_UCI_PV", "g1f3 g1f3", 1);
    struct event_base *base = event_base_new();
    cr_queue *pubs = cr_queue_new(1 << 12, NULL, NULL);
    relay_ctx rc = {0};
    cr_lanes_config lc = {
        .delay_s = 60, .pubs = pubs, .base = base, .public_event = on_public, .data = &rc};
    cr_lanes *l = cr_lanes_new(&lc);
    cr_config_engine eng;
    memset(&eng, 0, sizeof eng);
    cr_config_engine_defaults(&eng);
    eng.path = CR_FAKE_UCI;
    eng.processes = 2;
    eng.movetime_ms = 10;
    eng.mistake_cp = 150;
    eng.blunder_cp = 300;
    cr_evals_config ec = {.base = base,
                          .engine = &eng,
                          .lanes = l,
                          .nice = 10,
                          .evaluated = on_evaluated,
                          .data = &rc};
    cr_error err;
    rc.evals = cr_evals_new(&ec, &err);
    if (!rc.evals) {
        fail_msg("%s", err.text);
    }
    cr_store *live = cr_lanes_live(l);
    int64_t t0 = 1000000;
    add(l, game_ev(1, 1));
    add(l, move_ev(live, 1, "e2e4", 2, t0));
    add(l, move_ev(live, 1, "e7e5", 3, t0 + 1000));
    /* live only: nothing asked of the engines, nothing public */
    cr_engine_pool_stats st;
    cr_evals_get_stats(rc.evals, &st);
    assert_int_equal(st.analysed + st.cached + (uint64_t)st.queued, 0);
    spin(base, 100);
    assert_int_not_equal(access(log, F_OK), 0); /* no engine saw a position */
    assert_null(cr_store_find(cr_lanes_public(l), 1));
    /* the first move becomes public: only it is analysed */
    cr_lanes_tick(l, t0 + 60 * 1000000);
    eval_wait w = {l, 0};
    run_until(base, public_has_eval, &w, 10000, "the public eval of ply 0");
    const cr_store_game *pg = cr_store_find(cr_lanes_public(l), 1);
    assert_int_equal(cr_game_ply_count(pg->game), 1);
    assert_non_null(cr_store_eval(cr_store_find(live, 1), 0)); /* the live lane has it too */
    assert_null(cr_store_eval(cr_store_find(live, 1), 1));     /* not ply 1: not public yet */
    FILE *f = fopen(log, "r");
    char line[256];
    int n = 0;
    while (f && fgets(line, sizeof line, f)) {
        assert_non_null(strstr(line, E4_FEN));
        n++;
    }
    fclose(f);
    assert_int_equal(n, 1);
    assert_int_equal(rc.evaluated, 1);
    /* then the second */
    cr_lanes_tick(l, t0 + 1000 + 60 * 1000000);
    w.ply = 1;
    run_until(base, public_has_eval, &w, 10000, "the public eval of ply 1");
    const cr_eval *e0 = cr_store_eval(cr_store_find(cr_lanes_public(l), 1), 0);
    assert_int_equal(e0->depth, 7);
    assert_int_equal(e0->value, -fake_score(E4_FEN)); /* black to move: white's view */
    assert_string_equal(e0->best, "");                /* e2e4 is no move for black */
    const cr_eval *e1 = cr_store_eval(cr_store_find(cr_lanes_public(l), 1), 1);
    assert_int_equal(e1->value, fake_score("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR"));
    assert_string_equal(e1->pv, "Nf3"); /* FAKE_UCI_PV below: g1f3 then a move that is not */
    /* NAG of ply 1 (black's e5) from the two: what black lost */
    int loss = e1->value - e0->value;
    assert_int_equal(e1->nag, loss >= 300 ? 4 : loss >= 150 ? 2 : 0);
    assert_int_equal(rc.evaluated >= 2, true);
    cr_evals_free(rc.evals);
    cr_lanes_free(l);
    cr_queue_free(pubs, free_pub);
    event_base_free(base);
    unlink(log);
    rmdir(dir);
    unsetenv("FAKE_UCI_STATE");
    unsetenv("FAKE_UCI_PV");
}

static void on_live(void *data, const cr_store *live, const cr_store_event *ev, cr_buf *json)
{
    (void)json;
    relay_ctx *r = data;
    cr_evals_live_event(r->evals, live, ev);
}

typedef struct live_wait {
    cr_lanes *l;
    int ply;
} live_wait;

static bool live_has_eval(void *arg)
{
    live_wait *w = arg;
    const cr_store_game *g = cr_store_find(cr_lanes_live(w->l), 1);
    return g && cr_store_eval(g, w->ply) != NULL;
}

/* engine.live: the arbiters' lane gets evals of live positions at once;
 * the public store still only once it has the position (from the cache). */
static void test_live_evals(void **state)
{
    (void)state;
    setenv("FAKE_UCI_MODE", "", 1);
    struct event_base *base = event_base_new();
    cr_queue *pubs = cr_queue_new(1 << 12, NULL, NULL);
    relay_ctx rc = {0};
    cr_lanes_config lc = {.delay_s = 60,
                          .pubs = pubs,
                          .base = base,
                          .live_event = on_live,
                          .public_event = on_public,
                          .data = &rc};
    cr_lanes *l = cr_lanes_new(&lc);
    cr_config_engine eng;
    memset(&eng, 0, sizeof eng);
    cr_config_engine_defaults(&eng);
    eng.path = CR_FAKE_UCI;
    eng.movetime_ms = 10;
    eng.live = true;
    cr_evals_config ec = {
        .base = base, .engine = &eng, .lanes = l, .evaluated = on_evaluated, .data = &rc};
    cr_error err;
    rc.evals = cr_evals_new(&ec, &err);
    assert_non_null(rc.evals);
    cr_store *live = cr_lanes_live(l);
    int64_t t0 = 1000000;
    add(l, game_ev(1, 1));
    add(l, move_ev(live, 1, "e2e4", 2, t0));
    live_wait lw = {l, 0};
    run_until(base, live_has_eval, &lw, 10000, "the live eval of ply 0");
    assert_null(cr_store_find(cr_lanes_public(l), 1)); /* nothing public yet */
    assert_int_equal(rc.evaluated, 0);                 /* no public eval, no output changed */
    cr_engine_pool_stats st;
    cr_evals_get_stats(rc.evals, &st);
    assert_int_equal(st.analysed, 1);
    /* public: taken from the cache at once, not analysed again */
    cr_lanes_tick(l, t0 + 60 * 1000000);
    const cr_store_game *pg = cr_store_find(cr_lanes_public(l), 1);
    assert_non_null(pg);
    assert_non_null(cr_store_eval(pg, 0));
    assert_int_equal(cr_store_eval(pg, 0)->value, -fake_score(E4_FEN));
    cr_evals_get_stats(rc.evals, &st);
    assert_int_equal(st.analysed, 1);
    assert_int_equal(st.cached, 1);
    assert_int_equal(rc.evaluated, 1);
    cr_evals_free(rc.evals);
    cr_lanes_free(l);
    cr_queue_free(pubs, free_pub);
    event_base_free(base);
}

/*----- the tournament file's "engine" -----*/

static cr_config *parse_cfg(const char *text, cr_error *err)
{
    return cr_config_parse(text, "t.json", "/base", err);
}

/*----- Chess960 -----*/

/* A 960 set-up (king b1, rooks a1 and h1) where both sides may castle at
 * once; in UCI_Chess960 notation O-O is b1h1, O-O-O b8a8. */
#define FRC_FEN "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w HAha - 0 1"

/* The lines of file that start with prefix, in order, joined by '|'. */
static void grep_lines(const char *file, const char *prefix, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(file, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            size_t n = strlen(out);
            snprintf(out + n, size - n, "%s%s", n ? "|" : "", line);
        }
    }
    if (f) {
        fclose(f);
    }
}

/* The engine's transcript: UCI_Chess960 set for a 960 game's position
 * (and unset for a standard one) only when the engine offers it; its
 * king-takes-rook castling comes back as O-O / O-O-O. */
static void test_uci_chess960(void **state)
{
    (void)state;
    char transcript[] = "/tmp/cr_uci960_XXXXXX";
    int fd = mkstemp(transcript);
    assert_true(fd >= 0);
    close(fd);
    setenv("FAKE_UCI_TRANSCRIPT", transcript, 1);
    setenv("FAKE_UCI_960", "1", 1);
    setenv("FAKE_UCI_PV", "b1h1 b8a8", 1);
    struct event_base *base = event_base_new();
    uci_ctx c;
    cr_uci *e = start_fake(base, &c, "", 0);
    run_until(base, flag_set, &c.ready, 5000, "readyok");
    assert_true(cr_uci_has_chess960(e));
    assert_int_equal(cr_uci_go(e, FRC_FEN, true, 10, 0, 2000), 0);
    run_until(base, flag_set, &c.got, 5000, "bestmove");
    assert_string_equal(c.r.pv, "b1h1 b8a8");
    cr_eval ev;
    assert_int_equal(cr_evals_from_uci(FRC_FEN, &c.r, &ev), 0);
    assert_string_equal(ev.best, "O-O");
    assert_string_equal(ev.pv, "O-O O-O-O");
    /* again 960: set already; then a standard game: unset */
    c.got = false;
    assert_int_equal(cr_uci_go(e, FRC_FEN, true, 10, 0, 2000), 0);
    run_until(base, flag_set, &c.got, 5000, "bestmove");
    c.got = false;
    assert_int_equal(cr_uci_go(e, START_FEN, false, 10, 0, 2000), 0);
    run_until(base, flag_set, &c.got, 5000, "bestmove");
    cr_uci_free(e);
    char got[2048];
    grep_lines(transcript, "setoption name UCI_Chess960", got, sizeof got);
    assert_string_equal(got, "setoption name UCI_Chess960 value true|"
                             "setoption name UCI_Chess960 value false");
    /* in order: set before the position it is for */
    grep_lines(transcript, "", got, sizeof got);
    assert_non_null(strstr(got, "isready|setoption name UCI_Chess960 value true|position fen " FRC_FEN
                                "|go movetime 10|position fen " FRC_FEN "|go movetime 10|"
                                "setoption name UCI_Chess960 value false|position fen " START_FEN));
    /* an engine without the option is never told it */
    unsetenv("FAKE_UCI_960");
    assert_int_equal(truncate(transcript, 0), 0);
    e = start_fake(base, &c, "", 0);
    run_until(base, flag_set, &c.ready, 5000, "readyok");
    assert_false(cr_uci_has_chess960(e));
    assert_int_equal(cr_uci_go(e, FRC_FEN, true, 10, 0, 2000), 0);
    run_until(base, flag_set, &c.got, 5000, "bestmove");
    cr_uci_free(e);
    grep_lines(transcript, "setoption name UCI_Chess960", got, sizeof got);
    assert_string_equal(got, "");
    grep_lines(transcript, "position fen", got, sizeof got);
    assert_string_equal(got, "position fen " FRC_FEN);
    event_base_free(base);
    unlink(transcript);
    unsetenv("FAKE_UCI_TRANSCRIPT");
    unsetenv("FAKE_UCI_PV");
}

/* Through the lanes: a game that starts from a 960 set-up is analysed
 * with UCI_Chess960, a standard game's position without it. */
static void test_evals_chess960(void **state)
{
    (void)state;
    char transcript[] = "/tmp/cr_eval960_XXXXXX";
    int fd = mkstemp(transcript);
    assert_true(fd >= 0);
    close(fd);
    setenv("FAKE_UCI_MODE", "", 1);
    setenv("FAKE_UCI_TRANSCRIPT", transcript, 1);
    setenv("FAKE_UCI_960", "1", 1);
    setenv("FAKE_UCI_PV", "b8a8 b1h1", 1);
    struct event_base *base = event_base_new();
    cr_queue *pubs = cr_queue_new(1 << 12, NULL, NULL);
    relay_ctx rc = {0};
    cr_lanes_config lc = {.pubs = pubs, .base = base, .public_event = on_public, .data = &rc};
    cr_lanes *l = cr_lanes_new(&lc);
    cr_config_engine eng;
    memset(&eng, 0, sizeof eng);
    cr_config_engine_defaults(&eng);
    eng.path = CR_FAKE_UCI;
    eng.processes = 1;
    eng.movetime_ms = 10;
    cr_evals_config ec = {
        .base = base, .engine = &eng, .lanes = l, .evaluated = on_evaluated, .data = &rc};
    cr_error err;
    rc.evals = cr_evals_new(&ec, &err);
    assert_non_null(rc.evals);
    cr_store *live = cr_lanes_live(l);
    cr_store_event *g = game_ev(1, 1);
    g->has_start = true;
    assert_int_equal(cr_position_from_fen(&g->start, FRC_FEN, &err), 0);
    add(l, g);
    add(l, move_ev(live, 1, "a2a3", 2, 2)); /* black to move: may castle O-O-O (b8a8) */
    eval_wait w = {l, 0};
    run_until(base, public_has_eval, &w, 10000, "the 960 game's eval");
    const cr_eval *e = cr_store_eval(cr_store_find(cr_lanes_public(l), 1), 0);
    assert_string_equal(e->best, "O-O-O");
    assert_string_equal(e->pv, "O-O-O O-O");
    char got[2048];
    grep_lines(transcript, "setoption name UCI_Chess960", got, sizeof got);
    assert_string_equal(got, "setoption name UCI_Chess960 value true");
    /* a standard game next: the option unset before its position */
    add(l, game_ev(2, 3));
    add(l, move_ev(live, 2, "e2e4", 4, 4));
    const cr_store_game *pg = NULL;
    int64_t end = cr_mono_us() + 10000000;
    while (!(pg = cr_store_find(cr_lanes_public(l), 2)) || !cr_store_eval(pg, 0)) {
        assert_true(cr_mono_us() < end);
        spin(base, 20);
    }
    grep_lines(transcript, "setoption name UCI_Chess960", got, sizeof got);
    assert_string_equal(got, "setoption name UCI_Chess960 value true|"
                             "setoption name UCI_Chess960 value false");
    cr_evals_free(rc.evals);
    cr_lanes_free(l);
    cr_queue_free(pubs, free_pub);
    event_base_free(base);
    unlink(transcript);
    unsetenv("FAKE_UCI_TRANSCRIPT");
    unsetenv("FAKE_UCI_960");
    unsetenv("FAKE_UCI_PV");
}

static void test_config_engine(void **state)
{
    (void)state;
    cr_error err;
    cr_config *c = parse_cfg("{}", &err);
    assert_null(c->engine.path); /* no engine by default */
    cr_config_free(c);
    c = parse_cfg("{\"engine\": {\"path\": \"stockfish\"}}", &err);
    assert_string_equal(c->engine.path, "stockfish"); /* a name: looked up in $PATH later */
    assert_int_equal(c->engine.processes, 1);
    assert_int_equal(c->engine.movetime_ms, 1000);
    assert_true(c->engine.pgn_http && c->engine.pgn_export && c->engine.pgn_push);
    assert_int_equal(c->engine.blunder_cp, 0); /* alerts off */
    cr_config_free(c);
    c = parse_cfg("{\"engine\": {\"path\": \"bin/sf\", \"processes\": 8, \"threads\": 2, "
                  "\"hash_mb\": 64, \"depth\": 18, \"multipv\": 3, \"pgn\": [\"export\"], "
                  "\"alerts\": {\"blunder_cp\": 250}}}",
                  &err);
    assert_non_null(c);
    assert_string_equal(c->engine.path, "/base/bin/sf"); /* a path: relative to the file */
    assert_int_equal(c->engine.processes, 8);
    assert_int_equal(c->engine.threads, 2);
    assert_int_equal(c->engine.hash_mb, 64);
    assert_int_equal(c->engine.depth, 18);
    assert_int_equal(c->engine.movetime_ms, 0); /* depth alone: to that depth */
    assert_int_equal(c->engine.multipv, 3);
    assert_false(c->engine.pgn_http);
    assert_true(c->engine.pgn_export);
    assert_false(c->engine.pgn_push);
    assert_int_equal(c->engine.mistake_cp, 150);
    assert_int_equal(c->engine.blunder_cp, 250);
    assert_false(c->engine.live);
    assert_true(c->engine.idle); /* SCHED_IDLE unless told otherwise */
    cr_config_free(c);
    c = parse_cfg("{\"engine\": {\"path\": \"sf\", \"live\": true, \"idle\": false}}", &err);
    assert_true(c->engine.live);
    assert_false(c->engine.idle);
    cr_config_free(c);
    static const char *const bad[][2] = {
        {"{\"engine\": {\"processes\": 2}}", "t.json: engine.path: missing"},
        {"{\"engine\": {\"path\": \"sf\", \"procs\": 2}}", "t.json: engine.procs: unknown field"},
        {"{\"engine\": {\"path\": \"sf\", \"processes\": 0}}",
         "t.json: engine.processes: 0 is out of range"},
        {"{\"engine\": {\"path\": \"sf\", \"pgn\": [\"ftp\"]}}", "t.json: engine.pgn: expected"},
        {"{\"engine\": {\"path\": \"sf\", \"alerts\": {\"x\": 1}}}",
         "t.json: engine.alerts.x: unknown field"},
        {"{\"engine\": \"stockfish\"}", "t.json: engine: expected an object"},
        {"{\"engine\": {\"path\": \"sf\", \"idle\": 0}}", "t.json: engine.idle: expected true or false"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        c = parse_cfg(bad[i][0], &err);
        assert_null(c);
        if (!strstr(err.text, bad[i][1])) {
            fail_msg("%s: got '%s'", bad[i][0], err.text);
        }
    }
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    cr_log_set_level(CR_LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_info),
        cmocka_unit_test(test_parse_multipv),
        cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_uci_go),
        cmocka_unit_test(test_uci_failures),
        cmocka_unit_test(test_pool_priority_and_cache),
        cmocka_unit_test(test_pool_restart),
        cmocka_unit_test(test_pool_bad_path),
        cmocka_unit_test(test_from_uci),
        cmocka_unit_test(test_nag),
        cmocka_unit_test(test_store_evals),
        cmocka_unit_test(test_store_eval_lines),
        cmocka_unit_test(test_export_evals),
        cmocka_unit_test(test_delay_rule),
        cmocka_unit_test(test_live_evals),
        cmocka_unit_test(test_uci_chess960),
        cmocka_unit_test(test_evals_chess960),
        cmocka_unit_test(test_config_engine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
