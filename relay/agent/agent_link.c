/* chessrelay relay: the agent link's loop-thread side (and its start):
 * the scan of the journals, each agent's events mapped onto the feed
 * clock, journaled and fed, the boards' owners, the tick bounds. The
 * server thread's side is agent_ws.c; the records both share are
 * agent_records.c (agent_link_impl.h). */
#include "agent/agent_link_impl.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_msg.h"
#include "core/journal.h"
#include "core/journal_lines.h"
#include "util/log.h"
#include "util/prom.h"

enum {
    IN_QUEUE = 4096,            /* batches in flight to the loop */
    HOLD_US = 10 * 1000 * 1000, /* an agent away (or silent) this long no longer holds ticks */
    REFUSALS_MAX = 1024         /* (board, source) pairs counted one by one; the rest together */
};

void cr_agent_item_free(void *p)
{
    cr_agent_item *it = p;
    if (!it) {
        return;
    }
    for (size_t i = 0; i < it->count; i++) {
        free(it->lines[i]);
    }
    free(it->lines);
    free(it->lens);
    free(it);
}

static uint32_t board_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++) {
        h = (h ^ (uint8_t)*s) * 16777619u;
    }
    return h;
}

/* The first source of board `board`, or NULL. */
static cr_agent_owner *find_owner(cr_agent_link *l, const char *board)
{
    if (!l->hcap) {
        return NULL;
    }
    uint32_t mask = (uint32_t)(l->hcap - 1);
    for (uint32_t i = board_hash(board) & mask;; i = (i + 1) & mask) {
        int k = l->hidx[i];
        if (k == 0) {
            return NULL;
        }
        if (strcmp(l->owners[k - 1].board, board) == 0) {
            return &l->owners[k - 1];
        }
    }
}

/* Owner `k` (an index) into the hash index, grown first if need be. */
static bool index_owner(cr_agent_link *l, int k)
{
    if (2 * (l->nowners + 1) > l->hcap) {
        int cap = l->hcap ? 2 * l->hcap : 64;
        int *h = calloc((size_t)cap, sizeof *h);
        if (!h) {
            return false;
        }
        free(l->hidx);
        l->hidx = h;
        l->hcap = cap;
        for (int i = 0; i < k; i++) {
            index_owner(l, i); /* fits: no growth */
        }
    }
    uint32_t i = board_hash(l->owners[k].board) & (uint32_t)(l->hcap - 1);
    while (l->hidx[i]) {
        i = (i + 1) & (uint32_t)(l->hcap - 1);
    }
    l->hidx[i] = k + 1;
    return true;
}

const char *cr_agent_link_owner(const cr_agent_link *l, const char *board)
{
    cr_agent_owner *o = l ? find_owner((cr_agent_link *)l, board) : NULL;
    return o && o->agent[0] ? o->agent : NULL;
}

/* Board `board` is fed by `agent` ("" for the relay's own sources): true if
 * it is that source's (its first source, now or before). */
static bool claim(cr_agent_link *l, const char *board, const char *agent)
{
    cr_agent_owner *o = find_owner(l, board);
    if (o) {
        return strcmp(o->agent, agent) == 0;
    }
    cr_agent_owner *n = realloc(l->owners, (size_t)(l->nowners + 1) * sizeof *n);
    if (!n) {
        return false;
    }
    l->owners = n;
    o = &n[l->nowners];
    snprintf(o->board, sizeof o->board, "%s", board);
    snprintf(o->agent, sizeof o->agent, "%s", agent);
    if (!index_owner(l, l->nowners)) {
        return false;
    }
    l->nowners++;
    return true;
}

/* The board id of a feed line (its second word) into out; false if none. */
static bool line_board(const char *line, size_t len, char *out)
{
    const char *sp = memchr(line, ' ', len);
    if (!sp) {
        return false;
    }
    const char *id = sp + 1;
    const char *end = memchr(id, ' ', len - (size_t)(id - line));
    size_t idn = end ? (size_t)(end - id) : len - (size_t)(id - line);
    if (!idn || idn > CR_BOARD_ID_MAX) {
        return false;
    }
    memcpy(out, id, idn);
    out[idn] = '\0';
    return true;
}

/*----- the scan of the relay's journals -----*/

typedef struct scan {
    cr_agent_link *l;
    cr_agent_rec *pending; /* a comment waiting for its feed line */
    int64_t n, off;
} scan;

_Static_assert(CR_AGENT_ID_MAX <= CR_JLINE_ID_MAX, "an agent id fits a journal record");

/* An agent record of the journal within the link's bounds (the grammar
 * takes any number; what an agent may send is narrower). */
static bool agent_record_ok(const cr_jline *jl)
{
    if (jl->kind == CR_JLINE_AGENT_BYE) {
        return cr_agent_id_valid(jl->u.bye.id) && jl->u.bye.n <= CR_AGENT_SEQ_MAX;
    }
    return cr_agent_id_valid(jl->u.agent.id) && jl->u.agent.n <= CR_AGENT_SEQ_MAX &&
           jl->u.agent.off <= 4 * CR_AGENT_TIME_MAX && jl->u.agent.off >= -4 * CR_AGENT_TIME_MAX;
}

static int scan_line(void *data, const char *line, size_t len, const char *file, int lineno)
{
    scan *s = data;
    cr_jline jl;
    char why[160];
    if (len && line[0] == '#') {
        s->pending = NULL;
        /* A record that cannot be read is the rebuild's to report. */
        if (cr_jline_parse(line, len, &jl, why, sizeof why) ||
            (jl.kind != CR_JLINE_AGENT && jl.kind != CR_JLINE_AGENT_BYE)) {
            return 0;
        }
        if (!agent_record_ok(&jl)) {
            cr_log(CR_LOG_WARN, "journal: %s:%d: an agent record out of bounds (ignored)", file,
                   lineno);
            return 0;
        }
        bool bye = jl.kind == CR_JLINE_AGENT_BYE;
        cr_agent_records *recs = s->l->recs;
        cr_agent_rec *r = cr_agent_records_get(recs, bye ? jl.u.bye.id : jl.u.agent.id, true);
        if (!r) {
            return CR_ENOMEM;
        }
        if (bye) {
            cr_agent_records_scan_bye(recs, r, jl.u.bye.n);
            return 0;
        }
        cr_agent_records_scan_back(recs, r); /* back after a bye: events again */
        if (jl.u.agent.skip) {
            cr_agent_records_scan_event(recs, r, jl.u.agent.n, jl.u.agent.off, NULL, false, 0);
        } else {
            s->pending = r;
            s->n = jl.u.agent.n;
            s->off = jl.u.agent.off;
        }
        return 0;
    }
    char board[CR_BOARD_ID_MAX + 1];
    if (!s->pending && len && line_board(line, len, board)) {
        claim(s->l, board, ""); /* the relay's own source fed it */
    }
    /* The comment and its line are one write: both are whole here, so the
     * event is in the journal. */
    if (s->pending && len) {
        /* Until the agent is back, ticks stay at its last event: the
         * line's time (its first word) is its watermark. */
        char num[24];
        size_t k = len < sizeof num - 1 ? len : sizeof num - 1;
        memcpy(num, line, k); /* the line is not NUL-terminated */
        num[k] = '\0';
        char *end;
        errno = 0;
        long long t = strtoll(num, &end, 10);
        bool has_t = end != num && errno == 0 && t < 4 * CR_AGENT_TIME_MAX &&
                     t > -4 * CR_AGENT_TIME_MAX;
        /* Its board, for /agents.json: the id is the line's second word. */
        bool has_board = line_board(line, len, board);
        if (has_board) {
            claim(s->l, board, cr_agent_rec_name(s->pending));
        }
        cr_agent_records_scan_event(s->l->recs, s->pending, s->n, s->off,
                                    has_board ? board : NULL, has_t, t);
    }
    s->pending = NULL;
    return 0;
}

/*----- lifetime -----*/

cr_agent_link *cr_agent_link_new(const cr_agent_link_config *cfg, cr_error *err)
{
    cr_agent_link *l = calloc(1, sizeof *l);
    if (!l) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    l->tournament = cfg->tournament;
    l->speed = cfg->speed > 0 ? cfg->speed : 1.0;
    l->recs = cr_agent_records_new();
    l->in = cr_queue_new(IN_QUEUE, NULL, NULL);
    if (cfg->token && (l->token = malloc(sizeof *l->token))) {
        *l->token = *cfg->token;
    }
    if ((cfg->token && !l->token) || !l->in || !l->recs) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        cr_agent_link_free(l);
        return NULL;
    }
    if (cfg->state_dir) {
        scan s = {l, NULL, 0, 0};
        int rc = cr_journal_replay(cfg->state_dir, scan_line, &s, NULL, err);
        if (rc) {
            if (rc != CR_EIO) {
                cr_error_set(err, rc, 0, 0, "%s: agents: %s", cfg->state_dir, cr_strerror(rc));
            }
            cr_agent_link_free(l);
            return NULL;
        }
        cr_agent_records_log(l->recs);
    }
    return l;
}

void cr_agent_link_free(cr_agent_link *l)
{
    if (!l) {
        return;
    }
    if (l->ev) {
        event_free(l->ev);
    }
    if (l->in) {
        cr_queue_free(l->in, cr_agent_item_free);
    }
    cr_agent_records_free(l->recs);
    free(l->owners);
    free(l->hidx);
    free(l->refusals);
    free(l->token);
    free(l->buf);
    free(l);
}

int64_t cr_agent_link_journaled(cr_agent_link *l, const char *agent)
{
    return cr_agent_records_journaled(l->recs, agent);
}

/*----- the loop thread -----*/

static bool reserve(cr_agent_link *l, size_t need)
{
    if (need <= l->bufcap) {
        return true;
    }
    char *n = realloc(l->buf, need);
    if (!n) {
        return false;
    }
    l->buf = n;
    l->bufcap = need;
    return true;
}

/* An event of `source` ("" for the relay's own) for `board`, which `owner`
 * ("" likewise) fed first, refused: counted; the first of the pair told to
 * on_refused. */
static void refused_owned(cr_agent_link *l, const char *board, const char *source,
                          const char *owner_name)
{
    for (int i = 0; i < l->nrefusals; i++) {
        if (strcmp(l->refusals[i].board, board) == 0 &&
            strcmp(l->refusals[i].source, source) == 0) {
            l->refusals[i].count++;
            return;
        }
    }
    cr_agent_refusal *n = l->nrefusals < REFUSALS_MAX
                     ? realloc(l->refusals, (size_t)(l->nrefusals + 1) * sizeof *n)
                     : NULL;
    if (!n) {
        l->refusals_other++;
        return;
    }
    l->refusals = n;
    cr_agent_refusal *f = &n[l->nrefusals++];
    snprintf(f->board, sizeof f->board, "%s", board);
    snprintf(f->source, sizeof f->source, "%s", source);
    f->count = 1;
    if (l->on_refused) {
        l->on_refused(l->refused_data, board, source, owner_name);
    }
}

void cr_agent_link_on_refused(cr_agent_link *l, cr_agent_refused_fn fn, void *data)
{
    l->on_refused = fn;
    l->refused_data = data;
}

void cr_agent_link_metrics(const cr_agent_link *l, FILE *f)
{
    fprintf(f, "# HELP chessrelay_board_ownership_refused_total Events refused because another "
               "source fed the board first, by board and refused source (agent:ID, or relay).\n"
               "# TYPE chessrelay_board_ownership_refused_total counter\n");
    for (int i = 0; i < l->nrefusals; i++) {
        const cr_agent_refusal *r = &l->refusals[i];
        fputs("chessrelay_board_ownership_refused_total{board=\"", f);
        cr_prom_label(f, r->board);
        fprintf(f, "\",source=\"%s", r->source[0] ? "agent:" : "relay");
        cr_prom_label(f, r->source);
        fprintf(f, "\"} %" PRIu64 "\n", r->count);
    }
    if (l->refusals_other) {
        fprintf(f, "chessrelay_board_ownership_refused_total{board=\"\",source=\"\"} %" PRIu64 "\n",
                l->refusals_other);
    }
}

/* Whether agent r (with token tok) may feed ev's board: its token lists it
 * (or lists none) and no other source fed it first. Reported when not. */
static bool may_feed(cr_agent_link *l, cr_agent_rec *r, const cr_config_token *tok,
                     const cr_feed_event *ev, int64_t n)
{
    const char *why = NULL;
    if (!cr_config_board_allowed(l->tournament, tok, ev->board)) {
        why = tok && tok->board_count ? "its token does not list that board"
                                      : "the tournament file reserves it for another token";
    } else if (!claim(l, ev->board, cr_agent_rec_name(r))) {
        cr_agent_owner *o = find_owner(l, ev->board);
        why = o && o->agent[0] ? "another agent fed it first" : "the relay's own source feeds it";
        if (o) {
            refused_owned(l, ev->board, cr_agent_rec_name(r), o->agent);
        }
    }
    if (!why) {
        return true;
    }
    uint64_t refused = cr_agent_records_refused(l->recs, r);
    /* The first ten refusals logged, then every 1000th: a flood stays quiet. */
    if (refused <= 10 || refused % 1000 == 0) {
        cr_log(CR_LOG_WARN, "agent %s: event %" PRId64 " for board %s refused: %s (%" PRIu64
               " refused)", cr_agent_rec_name(r), n, ev->board, why, refused);
    }
    return false;
}

bool cr_agent_link_claim_local(cr_agent_link *l, const char *board)
{
    if (claim(l, board, "")) {
        return true;
    }
    cr_agent_owner *o = find_owner(l, board);
    refused_owned(l, board, "", o ? o->agent : "");
    cr_log(CR_LOG_WARN, "board %s: an agent feeds it; the relay's own event refused", board);
    return false;
}

/* One agent line: map, journal (via the callback) and feed. */
/* One agent line, its clock offset off: map, journal (via the callback)
 * and feed. */
static void deliver(cr_agent_link *l, cr_agent_rec *r, const cr_config_token *tok, int64_t n,
                    int64_t off, int64_t item_clock, const char *line, size_t len)
{
    const char *name = cr_agent_rec_name(r);
    char *scratch = malloc(len + 1);
    cr_feed_event ev;
    cr_error err;
    cr_error_clear(&err);
    int rc = scratch ? cr_feed_parse_line(line, len, &ev, scratch, len + 1, &err) : CR_ENOMEM;
    if (rc == 1 && (ev.t > CR_AGENT_TIME_MAX || ev.t < -CR_AGENT_TIME_MAX)) {
        rc = cr_error_set(&err, CR_ERANGE, 0, 1, "time out of range");
    }
    if (rc == 1 && !may_feed(l, r, tok, &ev, n)) {
        rc = 0; /* journaled as skipped: its number is used, the event is not */
    }
    int64_t agent_t = rc == 1 ? ev.t : 0;
    /* The comment before the event's line, in one write with it. */
    cr_jline jl = {.kind = CR_JLINE_AGENT, .u.agent = {"", n, off, false}};
    snprintf(jl.u.agent.id, sizeof jl.u.agent.id, "%s", name);
    char head[CR_AGENT_ID_MAX + 80];
    int hn = cr_jline_format(&jl, head, sizeof head);
    size_t total = 0;
    if (rc == 1 && hn > 0 && hn < (int)sizeof head) {
        ev.t += off;
        size_t room = CR_FEED_LINE_MAX + (ev.kind == CR_FEED_RAW ? 2 * ev.u.raw.len : 0);
        if (reserve(l, (size_t)hn + room)) {
            memcpy(l->buf, head, (size_t)hn);
            int fl = cr_feed_format(&ev, l->buf + hn, room);
            if (fl > 0) {
                total = (size_t)hn + (size_t)fl;
            }
        }
    }
    uint64_t pos;
    if (total) {
        pos = l->feed(l->data, &ev, l->buf, total);
    } else {
        if (rc != 0) {
            cr_log(CR_LOG_WARN, "agent %s: event %" PRId64 ": %s (skipped)", name, n,
                   rc < 0 ? err.text[0] ? err.text : cr_strerror(rc) : "not an event");
        }
        jl.u.agent.skip = true;
        hn = cr_jline_format(&jl, head, sizeof head);
        pos = hn > 0 && hn < (int)sizeof head ? l->feed(l->data, NULL, head, (size_t)hn) : 0;
    }
    int64_t lag_ms = (int64_t)((double)(item_clock - agent_t) / l->speed);
    if (cr_agent_records_delivered(l->recs, r, n, pos, l->journaled, total ? &ev : NULL, lag_ms)) {
        cr_log(CR_LOG_ERROR, "agent %s: event %" PRId64 " not journaled: no more acks until a "
               "restart (the agent keeps its events)", name, n);
    }
    free(scratch);
}

/* The agent's bye, after its last events: journaled, so that a restarted
 * relay knows the agent left (its boards are no longer held at its
 * watermark, and /agents.json says "left" as before the restart). */
static void bye_in(cr_agent_link *l, cr_agent_rec *r)
{
    int64_t last = cr_agent_records_bye_in(l->recs, r);
    cr_jline jl = {.kind = CR_JLINE_AGENT_BYE, .u.bye.n = last};
    snprintf(jl.u.bye.id, sizeof jl.u.bye.id, "%s", cr_agent_rec_name(r));
    char line[CR_AGENT_ID_MAX + 48];
    int n = cr_jline_format(&jl, line, sizeof line);
    if (n > 0 && n < (int)sizeof line) {
        (void)l->feed(l->data, NULL, line, (size_t)n);
    }
}

static void on_items(evutil_socket_t fd, short what, void *arg)
{
    cr_agent_link *l = arg;
    cr_agent_item *it;
    while ((it = cr_queue_pop(l->in)) != NULL) {
        if (it->bye) {
            bye_in(l, it->rec);
            cr_agent_item_free(it);
            continue;
        }
        /* The agent's offset, fixed at its first message. */
        int64_t off;
        if (cr_agent_records_fix_offset(l->recs, it->rec, l->clock(l->data) - it->clock, &off)) {
            cr_log(CR_LOG_INFO, "agent %s: clock offset %" PRId64 " ms", cr_agent_rec_name(it->rec),
                   off);
        }
        for (size_t i = 0; i < it->count; i++) {
            int64_t n = it->first + (int64_t)i;
            if (!cr_agent_records_have(l->recs, it->rec, n)) {
                deliver(l, it->rec, it->tok, n, off, it->clock, it->lines[i], it->lens[i]);
            }
        }
        /* Everything of this agent up to its watermark is in now. */
        cr_agent_records_watermark(l->recs, it->rec, it->clock);
        cr_agent_item_free(it);
    }
    if (!l->journaled) {
        cr_agent_link_synced(l, UINT64_MAX);
    }
}

static void wake_loop(void *data)
{
    event_active(data, EV_READ, 0);
}

int cr_agent_link_attach(cr_agent_link *l, struct event_base *base, cr_agent_feed_fn feed,
                         cr_agent_clock_fn clock, void *data, bool journaled)
{
    l->feed = feed;
    l->clock = clock;
    l->data = data;
    l->journaled = journaled;
    l->ev = event_new(base, -1, 0, on_items, l);
    if (!l->ev) {
        return CR_ENOMEM;
    }
    cr_queue_set_wake(l->in, wake_loop, l->ev);
    if (cr_queue_length(l->in)) {
        event_active(l->ev, EV_READ, 0); /* what came during the rebuild */
    }
    return 0;
}

void cr_agent_link_synced(cr_agent_link *l, uint64_t durable)
{
    if (cr_agent_records_synced(l->recs, durable)) {
        cr_agent_records_wake(l->recs); /* the server thread sends the acks */
    }
}

int64_t cr_agent_link_board_bound(cr_agent_link *l, const char *board, int64_t bound)
{
    const cr_agent_owner *o = find_owner(l, board);
    if (!o || !o->agent[0]) {
        return bound; /* the relay's own source */
    }
    return cr_agent_records_board_bound(l->recs, o->agent, bound);
}

int64_t cr_agent_link_tick_bound(cr_agent_link *l, int64_t bound)
{
    return cr_agent_records_tick_bound(l->recs, bound, cr_now_us(), HOLD_US);
}
