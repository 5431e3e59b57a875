/* chessrelay relay: an edge's resequencer (see edge_seq.h). */
#include "edge/edge_seq.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/log.h"

struct cr_edge_seq {
    cr_edge_seq_config cfg;
    cr_edge_msg **pending; /* waiting for an earlier seq, sorted by seq */
    int npending;
    cr_edge_msg **evals; /* waiting for their Cr-After seq, in arrival order */
    int nevals;
    size_t capevals;
    int64_t gap_since; /* when the head of pending started waiting; 0: none */
    int64_t done_seq, skipped, duplicates;
};

cr_edge_seq *cr_edge_seq_new(const cr_edge_seq_config *cfg)
{
    cr_edge_seq *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->cfg = *cfg;
    if (s->cfg.pending_max <= 0) {
        s->cfg.pending_max = 1 << 17;
    }
    s->pending = calloc((size_t)s->cfg.pending_max, sizeof *s->pending);
    if (!s->pending) {
        free(s);
        return NULL;
    }
    return s;
}

void cr_edge_seq_free(cr_edge_seq *s)
{
    if (!s) {
        return;
    }
    for (int i = 0; i < s->npending; i++) {
        free(s->pending[i]);
    }
    for (int i = 0; i < s->nevals; i++) {
        free(s->evals[i]);
    }
    free(s->pending);
    free(s->evals);
    free(s);
}

/* The evals whose events are all applied. */
static void drain_evals(cr_edge_seq *s)
{
    int k = 0;
    for (int i = 0; i < s->nevals; i++) {
        if (s->evals[i]->seq <= s->done_seq) {
            s->cfg.eval(s->cfg.data, s->evals[i]);
            free(s->evals[i]);
        } else {
            s->evals[k++] = s->evals[i];
        }
    }
    s->nevals = k;
}

/* Applies the first n pending events (each the next seq, or after a gap
 * given up on) and drops them from the list. */
static void apply_first(cr_edge_seq *s, int n, int64_t now_us)
{
    for (int k = 0; k < n; k++) {
        s->cfg.event(s->cfg.data, s->pending[k]);
        /* a refused event still takes its seq: the next ones must not wait */
        s->done_seq = s->pending[k]->seq;
        free(s->pending[k]);
    }
    memmove(s->pending, s->pending + n, (size_t)(s->npending - n) * sizeof *s->pending);
    s->npending -= n;
    s->gap_since = s->npending ? now_us : 0;
}

/* Applies the pending events that are next in seq order. */
static void drain_pending(cr_edge_seq *s, int64_t now_us)
{
    int k = 0;
    while (k < s->npending && s->pending[k]->seq == s->done_seq + 1 + k) {
        k++;
    }
    if (k) {
        apply_first(s, k, now_us);
        drain_evals(s);
    }
}

int64_t cr_edge_seq_skip(cr_edge_seq *s, int64_t now_us)
{
    if (!s->npending) {
        return 0;
    }
    int64_t from = s->done_seq + 1, to = s->pending[0]->seq - 1;
    cr_log(CR_LOG_WARN, "edge: events %" PRId64 "..%" PRId64 " never came: going on without them",
           from, to);
    s->skipped += to - from + 1;
    apply_first(s, 1, now_us);
    drain_pending(s, now_us);
    drain_evals(s);
    return to - from + 1;
}

int64_t cr_edge_seq_tick(cr_edge_seq *s, int64_t now_us, int64_t wait_us)
{
    if (s->npending && s->gap_since && now_us - s->gap_since > wait_us) {
        return cr_edge_seq_skip(s, now_us);
    }
    return 0;
}

static void take_eval(cr_edge_seq *s, cr_edge_msg *m)
{
    if (m->seq <= s->done_seq) {
        s->cfg.eval(s->cfg.data, m);
        free(m);
        return;
    }
    cr_edge_msg **n = cr_grow(s->evals, &s->capevals, (size_t)s->nevals + 1, sizeof *n, 64);
    if (!n) {
        free(m);
        return;
    }
    s->evals = n;
    s->evals[s->nevals++] = m;
}

void cr_edge_seq_take(cr_edge_seq *s, cr_edge_msg *m, int64_t now_us)
{
    if (m->eval) {
        take_eval(s, m);
        return;
    }
    if (m->seq <= s->done_seq) {
        s->duplicates++;
        free(m);
        return;
    }
    /* insert sorted; an equal seq is a duplicate */
    int lo = 0, hi = s->npending;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (s->pending[mid]->seq < m->seq) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo < s->npending && s->pending[lo]->seq == m->seq) {
        s->duplicates++;
        free(m);
        return;
    }
    if (s->npending == s->cfg.pending_max) {
        cr_edge_seq_skip(s, now_us);
        if (m->seq <= s->done_seq) {
            free(m);
            return;
        }
        cr_edge_seq_take(s, m, now_us);
        return;
    }
    memmove(s->pending + lo + 1, s->pending + lo, (size_t)(s->npending - lo) * sizeof *s->pending);
    s->pending[lo] = m;
    s->npending++;
    if (!s->gap_since) {
        s->gap_since = now_us;
    }
    drain_pending(s, now_us);
}

void cr_edge_seq_get_stats(const cr_edge_seq *s, cr_edge_seq_stats *st)
{
    st->done_seq = s->done_seq;
    st->skipped = s->skipped;
    st->duplicates = s->duplicates;
    st->pending = s->npending;
    st->evals = s->nevals;
}
