/* chessrelay relay: the server thread's copy of the arbiter monitoring. */
#include "net/arbiter_view.h"

#include <stdlib.h>
#include <string.h>

typedef struct arb_msg {
    struct arb_msg *next;
    cr_buf *msg;
} arb_msg;

typedef struct arb_report {
    cr_buf *html, *pgn;
} arb_report;

struct cr_arbiter_view {
    cr_buf *snapshot;  /* NULL until the link has started */
    cr_buf *incidents; /* incidents.json */
    /* Messages published after the snapshot; the next snapshot covers them.
     * The link publishes one at least every second, so this stays short. */
    arb_msg *since_head, **since_tail;
    arb_report *reports; /* by claim id - 1 */
    int nreports;
};

cr_arbiter_view *cr_arbiter_view_new(void)
{
    cr_arbiter_view *v = calloc(1, sizeof *v);
    if (v) {
        v->since_tail = &v->since_head;
    }
    return v;
}

static void drop_messages(cr_arbiter_view *v)
{
    while (v->since_head) {
        arb_msg *m = v->since_head;
        v->since_head = m->next;
        cr_buf_unref(m->msg);
        free(m);
    }
    v->since_tail = &v->since_head;
}

void cr_arbiter_view_free(cr_arbiter_view *v)
{
    if (!v) {
        return;
    }
    drop_messages(v);
    cr_buf_unref(v->snapshot);
    cr_buf_unref(v->incidents);
    for (int i = 0; i < v->nreports; i++) {
        cr_buf_unref(v->reports[i].html);
        cr_buf_unref(v->reports[i].pgn);
    }
    free(v->reports);
    free(v);
}

static void set_report(cr_arbiter_view *v, const cr_pub *p)
{
    if (p->claim <= 0 || p->claim > 1000000) {
        return;
    }
    if (p->claim > v->nreports) {
        arb_report *r = realloc(v->reports, (size_t)p->claim * sizeof *r);
        if (!r) {
            return;
        }
        memset(r + v->nreports, 0, (size_t)(p->claim - v->nreports) * sizeof *r);
        v->reports = r;
        v->nreports = p->claim;
    }
    arb_report *r = &v->reports[p->claim - 1];
    cr_buf_unref(r->html);
    cr_buf_unref(r->pgn);
    r->html = cr_buf_ref(p->report_html);
    r->pgn = cr_buf_ref(p->report_pgn);
}

void cr_arbiter_view_apply(cr_arbiter_view *v, const cr_pub *p)
{
    switch (p->kind) {
    case CR_PUB_ARBITER: {
        arb_msg *m = v->snapshot && p->event ? malloc(sizeof *m) : NULL;
        if (m) { /* before the first snapshot: a joiner gets nothing older anyway */
            m->msg = cr_buf_ref(p->event);
            m->next = NULL;
            *v->since_tail = m;
            v->since_tail = &m->next;
        }
        break;
    }
    case CR_PUB_ARBITER_STATE:
        drop_messages(v);
        cr_buf_unref(v->snapshot);
        v->snapshot = cr_buf_ref(p->snapshot);
        cr_buf_unref(v->incidents);
        v->incidents = cr_buf_ref(p->incidents);
        break;
    case CR_PUB_ARBITER_REPORT:
        set_report(v, p);
        break;
    default:
        break;
    }
}

static const char empty_snapshot[] =
    "{\"type\":\"arbiter\",\"aseq\":0,\"games\":[],\"incidents\":[],\"claims\":[]}";
static const char empty_incidents[] = "{\"incidents\":[],\"games\":[]}";

int cr_arbiter_view_join(const cr_arbiter_view *v, void (*send)(void *data, cr_buf *b), void *data)
{
    if (!v->snapshot) {
        send(data, cr_buf_new(empty_snapshot, sizeof empty_snapshot - 1));
        return 1;
    }
    int n = 1;
    send(data, cr_buf_ref(v->snapshot));
    for (const arb_msg *m = v->since_head; m; m = m->next, n++) {
        send(data, cr_buf_ref(m->msg));
    }
    return n;
}

static cr_buf *text_buf(const char *s)
{
    return cr_buf_new(s, strlen(s));
}

/* The claim id of "/arbiter/claim/<id><suffix>", or 0. */
static long claim_id(const char *uri, const char *suffix)
{
    static const char pre[] = "/arbiter/claim/";
    size_t n = strlen(uri), pn = sizeof pre - 1, sn = strlen(suffix);
    if (n <= pn + sn || strncmp(uri, pre, pn) || strcmp(uri + n - sn, suffix)) {
        return 0;
    }
    char *end;
    long id = strtol(uri + pn, &end, 10);
    return end == uri + n - sn && id > 0 ? id : 0;
}

cr_buf *cr_arbiter_view_http(const cr_arbiter_view *v, const char *uri, bool authorized,
                             int *status, const char **ctype)
{
    *ctype = "text/plain; charset=utf-8";
    if (!authorized) {
        *status = 401;
        return text_buf("arbiter token required\n");
    }
    if (strcmp(uri, "/arbiter/incidents.json") == 0) {
        *status = 200;
        *ctype = "application/json";
        return v->incidents ? cr_buf_ref(v->incidents)
                            : cr_buf_new(empty_incidents, sizeof empty_incidents - 1);
    }
    long html = claim_id(uri, ".html"), pgn = claim_id(uri, ".pgn");
    if (html || pgn) {
        long id = html ? html : pgn;
        const arb_report *r = id <= v->nreports ? &v->reports[id - 1] : NULL;
        cr_buf *b = r ? (html ? r->html : r->pgn) : NULL;
        if (b) {
            *status = 200;
            *ctype = html ? "text/html; charset=utf-8" : "application/x-chess-pgn";
            return cr_buf_ref(b);
        }
        *status = 404;
        return text_buf("no such claim\n");
    }
    *status = 404;
    return text_buf("not found\n");
}
