/* chessrelay relay: a pool of UCI engines (see pool.h). */
#include "engine/pool.h"

#include <event2/event.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/board.h"
#include "util/grow.h"
#include "util/log.h"

enum {
    BACKOFF_MIN_MS = 500,
    BACKOFF_MAX_MS = 30000,
    MAX_KILLS = 3,
    CACHE_BUCKETS = 1 << 14,
    CACHE_MAX = 200000, /* entries; past it the cache starts again empty */
    KEY_MAX = 104
};

typedef struct job {
    char fen[CR_FEN_MAX];
    char key[KEY_MAX];
    bool chess960;
    int64_t prio;
    int kills;
} job;

typedef struct centry {
    struct centry *next;
    char key[KEY_MAX];
    cr_uci_result r;
} centry;

typedef struct slot {
    cr_engine_pool *pool;
    cr_uci *e; /* NULL while waiting for a restart */
    bool has_job;
    job cur; /* the position it analyses */
    int backoff_ms;
    struct event *restart_ev;
    bool dead; /* e died: freed by restart_ev */
} slot;

struct cr_engine_pool {
    cr_engine_pool_config cfg;
    char path[4096];
    slot *slots;
    job *jobs; /* the queue (unordered: the highest priority is searched) */
    int njobs;
    size_t capjobs;
    centry *buckets[CACHE_BUCKETS];
    int ncache;
    cr_engine_pool_stats st;
};

/* The cache key: placement, side, castling, en passant (the counters do
 * not change an engine's view enough to analyse again), and " 960" for a
 * Chess960 game's. */
static int position_key(const char *fen, bool chess960, char *key, size_t size)
{
    size_t n = 0;
    int spaces = 0;
    for (const char *s = fen; *s; s++) {
        if (*s == ' ' && ++spaces == 4) {
            break;
        }
        if (n + 1 >= size) {
            return CR_EINVAL;
        }
        key[n++] = *s;
    }
    key[n] = '\0';
    if (chess960 && (size_t)snprintf(key + n, size - n, " 960") >= size - n) {
        return CR_EINVAL;
    }
    return spaces >= 3 ? 0 : CR_EINVAL;
}

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++) {
        h = (h ^ (unsigned char)*s) * 16777619u;
    }
    return h % CACHE_BUCKETS;
}

static centry *cache_find(const cr_engine_pool *p, const char *key)
{
    for (centry *c = p->buckets[hash(key)]; c; c = c->next) {
        if (strcmp(c->key, key) == 0) {
            return c;
        }
    }
    return NULL;
}

static void cache_clear(cr_engine_pool *p)
{
    for (int i = 0; i < CACHE_BUCKETS; i++) {
        while (p->buckets[i]) {
            centry *c = p->buckets[i];
            p->buckets[i] = c->next;
            free(c);
        }
    }
    p->ncache = 0;
}

static void cache_put(cr_engine_pool *p, const char *key, const cr_uci_result *r)
{
    if (cache_find(p, key)) {
        return;
    }
    if (p->ncache >= CACHE_MAX) {
        cache_clear(p);
    }
    centry *c = malloc(sizeof *c);
    if (!c) {
        return;
    }
    snprintf(c->key, sizeof c->key, "%s", key);
    c->r = *r;
    unsigned h = hash(key);
    c->next = p->buckets[h];
    p->buckets[h] = c;
    p->ncache++;
}

static int find_job(const cr_engine_pool *p, const char *key)
{
    for (int i = 0; i < p->njobs; i++) {
        if (strcmp(p->jobs[i].key, key) == 0) {
            return i;
        }
    }
    return -1;
}

static bool running_key(const cr_engine_pool *p, const char *key)
{
    for (int i = 0; i < p->cfg.processes; i++) {
        if (p->slots[i].has_job && strcmp(p->slots[i].cur.key, key) == 0) {
            return true;
        }
    }
    return false;
}

static int push_job(cr_engine_pool *p, const job *j)
{
    job *n = cr_grow(p->jobs, &p->capjobs, (size_t)p->njobs + 1, sizeof *n, 64);
    if (!n) {
        return CR_ENOMEM;
    }
    p->jobs = n;
    p->jobs[p->njobs++] = *j;
    return 0;
}

/* Gives idle engines the queued positions of highest priority. */
static void dispatch(cr_engine_pool *p)
{
    for (int i = 0; i < p->cfg.processes && p->njobs; i++) {
        slot *s = &p->slots[i];
        if (s->has_job || !cr_uci_idle(s->e)) {
            continue;
        }
        int best = 0;
        for (int k = 1; k < p->njobs; k++) {
            if (p->jobs[k].prio > p->jobs[best].prio) {
                best = k;
            }
        }
        s->cur = p->jobs[best];
        p->jobs[best] = p->jobs[--p->njobs];
        /* A hung engine: no bestmove within four times the budget and 5 s. */
        int timeout = p->cfg.movetime_ms > 0 ? 4 * p->cfg.movetime_ms + 5000 : 60000;
        if (cr_uci_go(s->e, s->cur.fen, s->cur.chess960, p->cfg.movetime_ms, p->cfg.depth,
                      timeout) == 0) {
            s->has_job = true;
        } else {
            push_job(p, &s->cur); /* cannot fail: the slot was just freed */
        }
    }
}

static void on_ready(void *data, cr_uci *e)
{
    slot *s = data;
    (void)e;
    dispatch(s->pool);
}

static void on_result(void *data, cr_uci *e, const cr_uci_result *r)
{
    slot *s = data;
    cr_engine_pool *p = s->pool;
    (void)e;
    s->backoff_ms = BACKOFF_MIN_MS;
    job j = s->cur;
    s->has_job = false;
    p->st.analysed++;
    cache_put(p, j.key, r);
    if (p->cfg.result) {
        p->cfg.result(p->cfg.data, j.fen, r);
    }
    dispatch(p);
}

static int start_engine(slot *s, cr_error *err);

static void on_restart(evutil_socket_t fd, short what, void *arg)
{
    slot *s = arg;
    (void)fd;
    (void)what;
    cr_uci_free(s->e);
    s->e = NULL;
    s->dead = false;
    cr_error err;
    if (start_engine(s, &err)) {
        cr_log(CR_LOG_WARN, "engine: %s (trying again in %d ms)", err.text, s->backoff_ms);
        struct timeval tv = {s->backoff_ms / 1000, (s->backoff_ms % 1000) * 1000};
        event_add(s->restart_ev, &tv);
        if (s->backoff_ms < BACKOFF_MAX_MS) {
            s->backoff_ms *= 2;
        }
        return;
    }
    s->pool->st.restarts++;
}

static void on_died(void *data, cr_uci *e, const char *why)
{
    slot *s = data;
    cr_engine_pool *p = s->pool;
    (void)e;
    cr_log(CR_LOG_WARN, "engine %s %s; restarting in %d ms", p->path, why, s->backoff_ms);
    if (s->has_job) {
        s->has_job = false;
        if (++s->cur.kills >= MAX_KILLS) {
            cr_log(CR_LOG_WARN, "engine: giving up on %s (it killed the engine %d times)",
                   s->cur.fen, s->cur.kills);
            p->st.dropped++;
        } else {
            push_job(p, &s->cur);
        }
    }
    s->dead = true;
    struct timeval tv = {s->backoff_ms / 1000, (s->backoff_ms % 1000) * 1000};
    event_add(s->restart_ev, &tv); /* frees e there, never here */
    if (s->backoff_ms < BACKOFF_MAX_MS) {
        s->backoff_ms *= 2;
    }
}

static int start_engine(slot *s, cr_error *err)
{
    cr_engine_pool *p = s->pool;
    cr_uci_config uc = {.base = p->cfg.base,
                        .path = p->path,
                        .threads = p->cfg.threads,
                        .hash_mb = p->cfg.hash_mb,
                        .multipv = p->cfg.multipv,
                        .nice = p->cfg.nice,
                        .idle = p->cfg.idle,
                        .start_timeout_ms = p->cfg.start_timeout_ms,
                        .ready = on_ready,
                        .result = on_result,
                        .died = on_died,
                        .data = s};
    s->e = cr_uci_new(&uc, err);
    return s->e ? 0 : -1;
}

cr_engine_pool *cr_engine_pool_new(const cr_engine_pool_config *cfg, cr_error *err)
{
    if (cfg->processes < 1 || (cfg->movetime_ms <= 0 && cfg->depth <= 0)) {
        cr_error_set(err, CR_EINVAL, 0, 0, "engine: processes >= 1 and movetime_ms or depth > 0");
        return NULL;
    }
    cr_engine_pool *p = calloc(1, sizeof *p);
    if (!p) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    p->cfg = *cfg;
    if (cr_uci_resolve(cfg->path, p->path, sizeof p->path, err)) {
        free(p);
        return NULL;
    }
    p->slots = calloc((size_t)cfg->processes, sizeof *p->slots);
    if (!p->slots) {
        free(p);
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    for (int i = 0; i < cfg->processes; i++) {
        slot *s = &p->slots[i];
        s->pool = p;
        s->backoff_ms = BACKOFF_MIN_MS;
        s->restart_ev = evtimer_new(cfg->base, on_restart, s);
        if (!s->restart_ev || start_engine(s, err)) {
            p->cfg.processes = i + 1;
            cr_engine_pool_free(p);
            return NULL;
        }
    }
    return p;
}

void cr_engine_pool_free(cr_engine_pool *p)
{
    if (!p) {
        return;
    }
    for (int i = 0; p->slots && i < p->cfg.processes; i++) {
        cr_uci_free(p->slots[i].e);
        if (p->slots[i].restart_ev) {
            event_free(p->slots[i].restart_ev);
        }
    }
    cache_clear(p);
    free(p->slots);
    free(p->jobs);
    free(p);
}

int cr_engine_pool_want(cr_engine_pool *p, const char *fen, bool chess960, int64_t priority)
{
    job j;
    memset(&j, 0, sizeof j);
    j.chess960 = chess960;
    if (strlen(fen) >= sizeof j.fen || strchr(fen, '\n') ||
        position_key(fen, chess960, j.key, sizeof j.key)) {
        return CR_EINVAL;
    }
    const centry *c = cache_find(p, j.key);
    if (c) {
        p->st.cached++;
        cr_uci_result r = c->r;
        if (p->cfg.result) {
            p->cfg.result(p->cfg.data, fen, &r);
        }
        return 0;
    }
    int k = find_job(p, j.key);
    if (k >= 0) {
        if (priority > p->jobs[k].prio) {
            p->jobs[k].prio = priority;
        }
        return 0;
    }
    if (running_key(p, j.key)) {
        return 0;
    }
    snprintf(j.fen, sizeof j.fen, "%s", fen);
    j.prio = priority;
    int rc = push_job(p, &j);
    if (rc == 0) {
        dispatch(p);
    }
    return rc;
}

void cr_engine_pool_get_stats(const cr_engine_pool *p, cr_engine_pool_stats *st)
{
    *st = p->st;
    st->queued = p->njobs;
    st->running = 0;
    for (int i = 0; i < p->cfg.processes; i++) {
        st->running += p->slots[i].e && !p->slots[i].dead;
    }
}

int cr_engine_pool_pids(const cr_engine_pool *p, pid_t *pids, int n)
{
    int k = 0;
    for (int i = 0; i < p->cfg.processes && k < n; i++) {
        const slot *s = &p->slots[i];
        if (s->e && !s->dead && cr_uci_pid(s->e) > 0) {
            pids[k++] = cr_uci_pid(s->e);
        }
    }
    return k;
}
