/* chessrelay relay: the agent link's server-thread side, the /agent
 * WebSocket protocol: hellos and their tokens, events handed to the loop
 * (agent_link.c) as items, acks once the loop says they are durable. It
 * sees the agents only through their records (agent_records.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_link_impl.h"
#include "agent/agent_msg.h"
#include "net/ws_text.h"
#include "util/log.h"

enum {
    SILENT_S = 20, /* an agent silent this long is disconnected (it ticks 4/s) */
    MAX_FAULTS = 5
};

/* Per connection; lws allocates it zeroed. */
typedef struct apss {
    struct lws *wsi;
    cr_agent_rec *rec;
    const cr_config_token *tok; /* the token of its hello */
    bool welcome;  /* a welcome is due */
    int64_t acked; /* last ack sent */
    char *out;     /* an error to send, then close */
    bool closing;
    cr_ws_rx rx;
    int faults;
} apss;

static void queue_error(apss *p, const char *error, const char *where, bool close)
{
    if (!p->out) {
        p->out = cr_amsg_error(error, where);
    }
    p->closing = p->closing || close;
    p->faults++;
    lws_callback_on_writable(p->wsi);
}

static void peer_of(struct lws *wsi, char *buf, size_t size)
{
    buf[0] = '\0';
    lws_get_peer_simple(wsi, buf, size);
    if (!buf[0]) {
        snprintf(buf, size, "?");
    }
}

/* The token of an agent-hello: true if it is an agent's; *tok is its entry
 * (the tournament file's, or --agent-token's), with the ids and boards it
 * may use. */
static bool token_ok(cr_agent_link *l, const char *token, const cr_config_token **tok)
{
    /* Both checks always run: the time does not tell which one matched. */
    bool ok = l->token && token[0] && cr_secret_equal(token, l->token->token);
    const cr_config_token *t = l->tournament ? cr_config_find_token(l->tournament, token) : NULL;
    *tok = t && strcmp(t->role, "agent") == 0 ? t : ok ? l->token : NULL;
    return *tok != NULL;
}

static void on_hello(cr_agent_link *l, apss *p, const cr_amsg *m)
{
    char peer[64];
    peer_of(p->wsi, peer, sizeof peer);
    if (p->rec) {
        queue_error(p, "hello twice", "op", false);
        return;
    }
    const cr_config_token *tok;
    if (!token_ok(l, m->token, &tok)) {
        cr_log(CR_LOG_WARN, "agent %s from %s: wrong token refused", m->agent, peer);
        queue_error(p, "wrong token", "token", true);
        return;
    }
    if (!cr_config_token_allows_agent(tok, m->agent)) {
        cr_log(CR_LOG_WARN, "agent %s from %s: its token (%s) is not for this agent id", m->agent,
               peer, tok->name);
        queue_error(p, "this token is not for this agent id", "token", true);
        return;
    }
    p->tok = tok;
    cr_agent_hello_info info;
    cr_agent_rec *r = cr_agent_records_hello(l->recs, m->agent, p->wsi, peer, m->n, m->clock, &info);
    if (!r) {
        queue_error(p, "out of memory", "agent", true);
        return;
    }
    if (info.replaced) {
        /* The old connection is probably dead and not noticed yet. */
        cr_log(CR_LOG_INFO, "agent %s: new connection replaces the old one", m->agent);
        lws_set_timeout(info.replaced, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    }
    cr_log(CR_LOG_INFO,
           "agent %s connected from %s (it has events up to %" PRId64 ", the relay up to %" PRId64
           ")",
           m->agent, peer, m->n, info.durable);
    p->rec = r;
    p->welcome = true;
    lws_callback_on_writable(p->wsi);
}

/* Hands the new lines of an "ev" (or none, for a "tick": only the
 * watermark) to the loop, in order with everything else of this agent. */
static void on_events(cr_agent_link *l, apss *p, cr_amsg *m)
{
    cr_agent_rec *r = p->rec;
    int64_t next = cr_agent_records_expected(l->recs, r);
    if (m->count && m->n - next > CR_AGENT_AHEAD_MAX) {
        char text[160];
        snprintf(text, sizeof text,
                 "event %" PRId64 " is beyond what this agent has sent (next expected %" PRId64
                 ", at most %d ahead)",
                 m->n, next, CR_AGENT_AHEAD_MAX);
        cr_log(CR_LOG_WARN, "agent %s: %s: refused", cr_agent_rec_name(r), text);
        queue_error(p, text, "ev", true); /* never received, never acked */
        return;
    }
    size_t skip;
    int64_t old;
    int64_t first = cr_agent_records_received(l->recs, r, m->n, m->count, m->clock, &skip, &old);
    int64_t end = first + (int64_t)m->count; /* [first, end) */
    if (m->count && first > old + 1) {
        cr_log(CR_LOG_WARN, "agent %s: events %" PRId64 "..%" PRId64 " never arrived (lost state?)",
               cr_agent_rec_name(r), old + 1, first - 1);
    }
    cr_agent_item *it = calloc(1, sizeof *it);
    if (!it) {
        goto fail;
    }
    it->rec = r;
    it->tok = p->tok;
    it->first = first + (int64_t)skip;
    it->clock = m->clock;
    it->count = m->count - skip;
    if (it->count) {
        it->lines = calloc(it->count, sizeof *it->lines);
        it->lens = calloc(it->count, sizeof *it->lens);
        if (!it->lines || !it->lens) {
            it->count = 0;
            goto fail;
        }
    }
    /* The lines move from the message to the item. */
    for (size_t i = 0; i < it->count; i++) {
        it->lines[i] = m->lines[skip + i];
        it->lens[i] = m->lens[skip + i];
        m->lines[skip + i] = NULL;
    }
    if (cr_queue_push(l->in, it, false)) {
        return;
    }
fail:
    cr_agent_item_free(it);
    if (skip < m->count) {
        cr_agent_records_unreceive(l->recs, r, end - 1, old); /* they come again after the reconnect */
    }
    cr_log(CR_LOG_WARN, "agent %s: relay busy, closing the link (the agent resends)",
           cr_agent_rec_name(r));
    queue_error(p, "busy, reconnect later", "ev", true);
}

static void on_bye(cr_agent_link *l, apss *p, const cr_amsg *m)
{
    cr_log(CR_LOG_INFO, "agent %s: bye (last event %" PRId64 ")", cr_agent_rec_name(p->rec), m->n);
    /* Through the queue: the loop learns it after the last events. */
    cr_agent_item *it = calloc(1, sizeof *it);
    if (it) {
        it->rec = p->rec;
        it->bye = true;
        if (!cr_queue_push(l->in, it, false)) {
            cr_agent_item_free(it);
        }
    }
}

static void handle(cr_agent_link *l, apss *p, const char *text, size_t len)
{
    cr_amsg m;
    cr_error err;
    if (cr_amsg_parse(text, len, &m, &err)) {
        char peer[64];
        peer_of(p->wsi, peer, sizeof peer);
        cr_log(CR_LOG_WARN, "agent link %s: %s", peer, err.text);
        queue_error(p, err.text, "message", false);
        cr_amsg_clear(&m);
        return;
    }
    int64_t durable;
    if (m.kind != CR_AMSG_HELLO &&
        (!p->rec || !cr_agent_records_current(l->recs, p->rec, p->wsi, &durable))) {
        queue_error(p, p->rec ? "replaced by a newer connection" : "agent-hello first", "op", true);
    } else if (m.kind == CR_AMSG_HELLO) {
        on_hello(l, p, &m);
    } else if (m.kind == CR_AMSG_EV) {
        on_events(l, p, &m);
    } else if (m.kind == CR_AMSG_TICK || m.kind == CR_AMSG_BYE) {
        cr_agent_records_seen(l->recs, p->rec, m.n, m.kind == CR_AMSG_BYE);
        if (m.kind == CR_AMSG_BYE) {
            on_bye(l, p, &m);
        } else {
            m.count = 0;
            on_events(l, p, &m); /* the watermark, in order with the events */
        }
    } else {
        queue_error(p, "not an agent message", "op", false);
    }
    cr_amsg_clear(&m);
}

static int receive(cr_agent_link *l, apss *p, const char *in, size_t len)
{
    const char *msg;
    size_t msg_len;
    switch (cr_ws_rx_add(&p->rx, p->wsi, in, len, CR_AGENT_MESSAGE_MAX, &msg, &msg_len)) {
    case CR_WS_RX_NOMEM:
        return -1;
    case CR_WS_RX_TOO_BIG:
        queue_error(p, "message too large", "message", false);
        break;
    case CR_WS_RX_MESSAGE:
        handle(l, p, msg, msg_len);
        cr_ws_rx_reset(&p->rx);
        break;
    case CR_WS_RX_MORE:
        break;
    }
    if (p->faults >= MAX_FAULTS && !p->closing) {
        p->closing = true;
        lws_callback_on_writable(p->wsi);
    }
    return 0;
}

/* One message per WRITEABLE (lws rule): error, welcome, ack. */
static int writeable(cr_agent_link *l, apss *p)
{
    if (p->out) {
        char *s = p->out;
        p->out = NULL;
        if (cr_ws_send_text(p->wsi, s)) {
            return -1;
        }
        lws_callback_on_writable(p->wsi);
        return 0;
    }
    if (p->closing) {
        lws_close_reason(p->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, NULL, 0);
        return -1;
    }
    if (!p->rec) {
        return 0;
    }
    int64_t durable;
    if (!cr_agent_records_current(l->recs, p->rec, p->wsi, &durable)) {
        return -1;
    }
    if (p->welcome) {
        p->welcome = false;
        p->acked = durable;
        if (cr_ws_send_text(p->wsi, cr_amsg_welcome(cr_agent_rec_name(p->rec), durable))) {
            return -1;
        }
    } else if (durable > p->acked) {
        p->acked = durable;
        if (cr_ws_send_text(p->wsi, cr_amsg_ack(durable))) {
            return -1;
        }
    }
    return 0;
}

/* The loop's wake-up of this thread (cr_agent_records_wake). */
static void wake_service(void *ctx)
{
    lws_cancel_service(ctx);
}

static void ack_due(void *conn)
{
    lws_callback_on_writable(conn);
}

static void closed(cr_agent_link *l, apss *p, struct lws *wsi)
{
    if (p->rec && cr_agent_records_closed(l->recs, p->rec, wsi)) {
        cr_log(CR_LOG_INFO, "agent %s: disconnected", cr_agent_rec_name(p->rec));
    }
    cr_ws_rx_reset(&p->rx);
    free(p->out);
    memset(p, 0, sizeof *p);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    const struct lws_protocols *proto = lws_get_protocol(wsi);
    cr_agent_link *l = proto ? proto->user : NULL;
    apss *p = user;
    if (!l) {
        return 0;
    }
    switch (reason) {
    case LWS_CALLBACK_PROTOCOL_INIT:
        cr_agent_records_set_wake(l->recs, wake_service, lws_get_context(wsi));
        return 0;
    case LWS_CALLBACK_PROTOCOL_DESTROY:
        cr_agent_records_set_wake(l->recs, NULL, NULL);
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        char uri[64];
        return lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) > 0 && strcmp(uri, "/agent") == 0
                   ? 0
                   : 1;
    }
    case LWS_CALLBACK_ESTABLISHED:
        memset(p, 0, sizeof *p);
        p->wsi = wsi;
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, SILENT_S);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        if (!p || !p->wsi) {
            return -1;
        }
        /* A half-open link (the venue's network gone) is closed, so that
         * the agent counts as away. */
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, SILENT_S);
        return receive(l, p, in, len);
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return p && p->wsi ? writeable(l, p) : 0;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        /* New durable events: the agents' connections send their acks. */
        cr_agent_records_notify(l->recs, ack_due);
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (p && p->wsi) {
            closed(l, p, wsi);
        }
        return 0;
    default:
        return 0;
    }
}

struct lws_protocols cr_agent_link_protocol(cr_agent_link *l)
{
    struct lws_protocols p;
    memset(&p, 0, sizeof p);
    p.name = CR_AGENT_PROTOCOL;
    p.callback = callback;
    p.per_session_data_size = sizeof(apss);
    p.rx_buffer_size = 16384;
    p.user = l;
    return p;
}

cr_buf *cr_agent_link_status_json(cr_agent_link *l)
{
    return cr_agent_records_status_json(l->recs);
}
