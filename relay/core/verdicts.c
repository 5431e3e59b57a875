/* chessrelay relay: the result rules of the arbiters' monitors. */
#include "core/verdicts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"

struct cr_verdict {
    cr_game *game; /* the monitor's copy of the store's game */
    cr_clock *clock;
    cr_monitor *mon;
    bool online;
    /* Leading plies the game shares with the store's, as of the last store
     * event followed: each MOVE is then compared from there, not from the
     * first ply (a long game's every move would cost its length). The store
     * changes them only by events followed here (a CORRECTION cuts them)
     * or by the events of cr_verdict_to_store, which start it over. */
    int matched;
};

/*----- one game -----*/

/* A clock model for a store game: its TimeControl tag, else the event's. */
static cr_clock *new_clock(const cr_store_game *sg, const char *time_control)
{
    const char *tc_text = cr_game_tag(sg->game, "TimeControl");
    if (!tc_text || !tc_text[0]) {
        tc_text = time_control;
    }
    cr_time_control tc;
    bool have_tc = tc_text && tc_text[0] && cr_time_control_parse(tc_text, &tc, NULL) == 0;
    return cr_clock_new(have_tc ? &tc : NULL, NULL);
}

cr_verdict *cr_verdict_new(const cr_store_game *sg, const char *time_control, bool silent_start,
                           bool quiet, int64_t t, int64_t wall)
{
    cr_verdict *v = calloc(1, sizeof *v);
    if (!v) {
        return NULL;
    }
    v->online = sg->online;
    v->game = cr_game_clone(sg->game);
    v->clock = new_clock(sg, time_control);
    cr_monitor_config mc;
    cr_monitor_config_default(&mc);
    mc.silent_start = silent_start;
    if (v->game && v->clock) {
        if (sg->clock_at > 0 && sg->white_ms >= 0 && sg->black_ms >= 0) {
            /* The reading at its own time, not now: the clock runs on from
             * there. Games with a reading here were rebuilt from the
             * journal, whose events are stamped with their feed time. */
            int64_t at = sg->clock_at / 1000;
            cr_clock_feed(v->clock, at < t ? at : t, sg->white_ms, sg->black_ms, sg->running);
        }
        v->mon = cr_monitor_new(v->game, v->clock, &mc);
    }
    if (!v->mon) {
        cr_verdict_free(v);
        return NULL;
    }
    cr_monitor_set_silent(v->mon, quiet);
    cr_monitor_set_wall(v->mon, wall);
    if (!sg->online) {
        cr_monitor_board_link(v->mon, false, t);
    }
    return v;
}

void cr_verdict_free(cr_verdict *v)
{
    if (!v) {
        return;
    }
    cr_monitor_free(v->mon);
    cr_clock_free(v->clock);
    cr_game_free(v->game);
    free(v);
}

cr_monitor *cr_verdict_monitor(const cr_verdict *v)
{
    return v->mon;
}

cr_game *cr_verdict_game(const cr_verdict *v)
{
    return v->game;
}

cr_clock *cr_verdict_clock(const cr_verdict *v)
{
    return v->clock;
}

static bool same_ply(const cr_ply *a, const cr_ply *b)
{
    uint32_t mask = CR_PLY_ILLEGAL | CR_PLY_DRAW_OFFER;
    return a->move == b->move && strcmp(a->san, b->san) == 0 && (a->flags & mask) == (b->flags & mask);
}

/* The first ply where a and b differ; the first `from` are taken as equal
 * (the last of them checked). */
static int first_difference(const cr_game *a, const cr_game *b, int from)
{
    int n = cr_game_ply_count(a), m = cr_game_ply_count(b);
    int k = from < n ? (from < m ? from : m) : (n < m ? n : m);
    if (k > 0 && !same_ply(cr_game_ply(a, k - 1), cr_game_ply(b, k - 1))) {
        k = 0;
    }
    while (k < n && k < m && same_ply(cr_game_ply(a, k), cr_game_ply(b, k))) {
        k++;
    }
    return k;
}

/* Ply i of the store's game src onto dst, which stands where src did
 * before it: taken as the store worked it out (nothing worked out again
 * for each move of each game), but for the length of a gap, which is the
 * store's to tell (a MOVE the verdict makes carries none). */
static int copy_ply(cr_game *dst, const cr_game *src, int i)
{
    if (cr_game_push_from(dst, src, i) == 0) {
        cr_game_ply_mut(dst, cr_game_ply_count(dst) - 1)->missing = 0;
        return 0;
    }
    const cr_ply *p = cr_game_ply(src, i);
    int rc;
    if (p->flags & CR_PLY_ILLEGAL) {
        rc = cr_game_push_illegal(dst, &p->after, p->san, p->clock_ms, p->ts);
    } else {
        rc = cr_game_push(dst, p->move, p->clock_ms, p->ts, p->flags);
    }
    if (rc == 0) {
        cr_ply *q = cr_game_ply_mut(dst, cr_game_ply_count(dst) - 1);
        q->flags = p->flags;
        q->emt_ms = p->emt_ms;
        q->fits = p->fits;
    }
    return rc;
}

/* Brings the verdict's game to the store's (plies, result). Returns true if
 * anything changed. */
static bool follow_store(cr_verdict *v, const cr_game *sg)
{
    bool changed = false;
    int k = first_difference(v->game, sg, v->matched);
    if (k < cr_game_ply_count(v->game)) {
        cr_game_truncate(v->game, k);
        changed = true;
    }
    for (int i = k; i < cr_game_ply_count(sg); i++) {
        if (copy_ply(v->game, sg, i)) {
            break;
        }
        changed = true;
    }
    v->matched = cr_game_ply_count(v->game);
    if (cr_game_result(sg) != cr_game_result(v->game)) {
        cr_game_set_result(v->game, cr_game_result(sg));
        changed = true;
    }
    return changed;
}

bool cr_verdict_on_store_event(cr_verdict *v, const cr_store_game *sg, const cr_store_event *ev,
                               int64_t t)
{
    cr_result before = cr_game_result(v->game);
    switch (ev->kind) {
    case CR_SEV_GAME:
        break;
    case CR_SEV_MOVE:
    case CR_SEV_CORRECTION:
    case CR_SEV_RESULT:
        if (follow_store(v, sg->game)) {
            cr_monitor_update(v->mon, t);
        }
        break;
    case CR_SEV_CLOCK:
        if (ev->clock_ply >= 0) { /* a ply timed: the scoresheet's clock */
            cr_ply *p = ev->clock_ply < cr_game_ply_count(v->game)
                            ? cr_game_ply_mut(v->game, ev->clock_ply)
                            : NULL;
            if (p) {
                p->clock_ms = ev->ply_clock_ms;
                p->emt_ms = ev->ply_emt_ms;
            }
        }
        if (!ev->reread) {
            cr_monitor_clock(v->mon, t, ev->white_ms, ev->black_ms, ev->running);
        }
        break;
    case CR_SEV_STATUS:
        if (ev->online != v->online) {
            v->online = ev->online;
            cr_monitor_board_link(v->mon, ev->online, t);
        }
        break;
    case CR_SEV_TAG:
        cr_game_set_tag(v->game, ev->tag.name, ev->tag.value[0] ? ev->tag.value : NULL);
        break;
    }
    cr_result now = cr_game_result(v->game);
    return now != before && now != cr_game_result(sg->game);
}

bool cr_verdict_source_time(cr_verdict *v, int64_t t)
{
    cr_result before = cr_game_result(v->game);
    cr_monitor_source_time(v->mon, t);
    return cr_game_result(v->game) != before;
}

bool cr_verdict_tick(cr_verdict *v, int64_t t)
{
    cr_result before = cr_game_result(v->game);
    cr_monitor_tick(v->mon, t);
    return cr_game_result(v->game) != before;
}

/* The reason of the latest result incident, for the RESULT event. */
static void result_reason(const cr_verdict *v, char *buf, size_t size)
{
    snprintf(buf, size, "arbiter");
    for (int i = cr_monitor_incident_count(v->mon) - 1; i >= 0; i--) {
        const cr_incident *inc = cr_monitor_incident(v->mon, i);
        if (inc->kind == CR_INC_RESULT || inc->kind == CR_INC_CORRECTION ||
            inc->kind == CR_INC_DECISION) {
            const char *colon = strstr(inc->text, ": ");
            const char *src = colon && inc->kind == CR_INC_RESULT ? colon + 2 : inc->text;
            size_t n = strlen(src) < size - 1 ? strlen(src) : size - 1; /* cut to the field */
            memcpy(buf, src, n);
            buf[n] = '\0';
            return;
        }
    }
}

/* What the events change is worked out from the store as it stands (they
 * are applied after): a correction clears the store's result. */
int cr_verdict_to_store(cr_verdict *v, const cr_store_game *sgr,
                        void (*emit)(void *data, cr_store_event *ev), void *data)
{
    const cr_game *sg = sgr->game;
    cr_result store_result = cr_game_result(sg);
    int k = first_difference(v->game, sg, 0), made = 0;
    v->matched = 0; /* the store takes these without telling the verdict */
    if (k < cr_game_ply_count(sg)) {
        cr_store_event *ev = cr_store_event_new(CR_SEV_CORRECTION);
        if (ev) {
            ev->game = sgr->id;
            ev->ply = k;
            ev->retracted = cr_game_ply_count(sg) - k;
        }
        emit(data, ev);
        made++;
        store_result = CR_RESULT_NONE;
    }
    for (int i = k; i < cr_game_ply_count(v->game); i++) {
        cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
        if (ev) {
            ev->game = sgr->id;
            ev->ply = i;
            ev->move = *cr_game_ply(v->game, i);
        }
        emit(data, ev);
        made++;
    }
    static const char *const tags[] = {"White", "Black"};
    for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++) {
        const char *mine = cr_game_tag(v->game, tags[i]);
        const char *theirs = cr_game_tag(sg, tags[i]);
        if (mine && (!theirs || strcmp(mine, theirs))) {
            cr_store_event *ev = cr_store_event_new(CR_SEV_TAG);
            if (ev) {
                ev->game = sgr->id;
                snprintf(ev->tag.name, sizeof ev->tag.name, "%s", tags[i]);
                snprintf(ev->tag.value, sizeof ev->tag.value, "%s", mine);
            }
            emit(data, ev);
            made++;
        }
    }
    if (store_result != cr_game_result(v->game)) {
        cr_store_event *ev = cr_store_event_new(CR_SEV_RESULT);
        if (ev) {
            ev->game = sgr->id;
            ev->result = cr_game_result(v->game);
            result_reason(v, ev->reason, sizeof ev->reason);
        }
        emit(data, ev);
        made++;
    }
    return made;
}

/*----- every game of a store -----*/

typedef struct judged {
    int id;
    int board; /* in boards[] */
    cr_verdict *v;
    bool due; /* the rules ended it: the store hears of it at the next source time */
} judged;

typedef struct queued {
    struct queued *next;
    cr_store_event *ev;
} queued;

struct cr_verdicts {
    const cr_store *store;
    char *time_control;
    judged *games;
    size_t ngames, capgames;
    /* The boards' names, each once: a source time (every feed line) finds
     * its games by number, not by name. */
    char (*boards)[CR_BOARD_ID_MAX + 1];
    size_t nboards, capboards;
    size_t last; /* the game found last: a board's events come in runs */
    queued *head, **tail;
    bool oom;
};

cr_verdicts *cr_verdicts_new(const cr_store *store, const char *time_control)
{
    cr_verdicts *vs = calloc(1, sizeof *vs);
    if (!vs) {
        return NULL;
    }
    vs->store = store;
    vs->tail = &vs->head;
    if (time_control && !(vs->time_control = strdup(time_control))) {
        free(vs);
        return NULL;
    }
    return vs;
}

void cr_verdicts_free(cr_verdicts *vs)
{
    if (!vs) {
        return;
    }
    for (size_t i = 0; i < vs->ngames; i++) {
        cr_verdict_free(vs->games[i].v);
    }
    free(vs->games);
    free(vs->boards);
    cr_store_event *ev;
    while ((ev = cr_verdicts_take_event(vs)) != NULL) {
        cr_store_event_free(ev);
    }
    free(vs->time_control);
    free(vs);
}

static judged *find(cr_verdicts *vs, int id)
{
    if (vs->last < vs->ngames && vs->games[vs->last].id == id) {
        return &vs->games[vs->last];
    }
    for (size_t i = vs->ngames; i-- > 0;) { /* the newest games are the busy ones */
        if (vs->games[i].id == id) {
            vs->last = i;
            return &vs->games[i];
        }
    }
    return NULL;
}

/* The board's number; -1 when unknown (add: made then, -1 when out of
 * memory). */
static int board_index(cr_verdicts *vs, const char *board, bool add)
{
    for (size_t i = vs->nboards; i-- > 0;) {
        if (vs->boards[i][0] == board[0] && strcmp(vs->boards[i], board) == 0) {
            return (int)i;
        }
    }
    if (!add) {
        return -1;
    }
    char(*n)[CR_BOARD_ID_MAX + 1] = cr_grow(vs->boards, &vs->capboards, vs->nboards + 1, sizeof *n, 8);
    if (!n) {
        return -1;
    }
    vs->boards = n;
    snprintf(vs->boards[vs->nboards], sizeof vs->boards[vs->nboards], "%s", board);
    return (int)vs->nboards++;
}

int cr_verdicts_on_store_event(cr_verdicts *vs, const cr_store_event *ev, int64_t t)
{
    const cr_store_game *sg = cr_store_find(vs->store, ev->game);
    if (!sg) {
        return 0;
    }
    judged *j = find(vs, ev->game);
    if (!j) {
        judged *n = cr_grow(vs->games, &vs->capgames, vs->ngames + 1, sizeof *n, 16);
        int board = n ? board_index(vs, sg->board, true) : -1;
        if (!n || board < 0) {
            return CR_ENOMEM;
        }
        vs->games = n;
        j = &vs->games[vs->ngames];
        memset(j, 0, sizeof *j);
        j->id = sg->id;
        j->board = board;
        if (!(j->v = cr_verdict_new(sg, vs->time_control, false, false, t, 0))) {
            return CR_ENOMEM;
        }
        vs->last = vs->ngames++;
    }
    if (cr_verdict_on_store_event(j->v, sg, ev, t)) {
        j->due = true;
    }
    return 0;
}

static void enqueue(void *data, cr_store_event *ev)
{
    cr_verdicts *vs = data;
    queued *q = ev ? malloc(sizeof *q) : NULL;
    if (!q) {
        cr_store_event_free(ev);
        vs->oom = true;
        return;
    }
    q->ev = ev;
    q->next = NULL;
    *vs->tail = q;
    vs->tail = &q->next;
}

int cr_verdicts_source_time(cr_verdicts *vs, const char *board, int64_t t)
{
    vs->oom = false;
    int which = board ? board_index(vs, board, false) : -1;
    for (size_t i = 0; i < vs->ngames; i++) {
        judged *j = &vs->games[i];
        if ((!board || j->board == which) && cr_verdict_source_time(j->v, t)) {
            j->due = true;
        }
        const cr_store_game *sg = j->due ? cr_store_find(vs->store, j->id) : NULL;
        if (sg) {
            j->due = false;
            cr_verdict_to_store(j->v, sg, enqueue, vs);
        }
    }
    return vs->oom ? CR_ENOMEM : 0;
}

cr_store_event *cr_verdicts_take_event(cr_verdicts *vs)
{
    queued *q = vs ? vs->head : NULL;
    if (!q) {
        return NULL;
    }
    vs->head = q->next;
    if (!vs->head) {
        vs->tail = &vs->head;
    }
    cr_store_event *ev = q->ev;
    free(q);
    return ev;
}
