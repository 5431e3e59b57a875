/* chessrelay relay: the DGT LiveChess local API (see livechess.h). */
#include "net/livechess.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/log.h"

_Static_assert(LWS_PRE <= CR_BUF_PRE, "cr_buf headroom must hold the WebSocket frame header");

struct cr_lc_item {
    cr_lc_item *next;
    cr_buf *b;
    int sub; /* the subscription's slot for a feed message, -1 for an answer */
};

typedef struct lc_board {
    char id[CR_BOARD_ID_MAX + 1];
    cr_buf *entry, *feed; /* the "eboards" entry, the feed param */
} lc_board;

struct cr_livechess {
    cr_livechess_config cfg;
    struct lws_protocols protocols[2]; /* its vhost's: this API, end */
    lc_board *boards;
    int nboards;
    size_t capboards;
    cr_lc_conn *conns;
    int nconns;
};

static int64_t now_ms(const cr_livechess *lc)
{
    return lc->cfg.now_ms ? lc->cfg.now_ms() : cr_now_us() / 1000;
}

cr_livechess *cr_livechess_new(const cr_livechess_config *cfg)
{
    cr_livechess *lc = calloc(1, sizeof *lc);
    if (!lc) {
        return NULL;
    }
    lc->cfg = *cfg;
    if (!lc->cfg.max_message) {
        lc->cfg.max_message = 4096;
    }
    if (lc->cfg.rate <= 0) {
        lc->cfg.rate = 20;
    }
    if (lc->cfg.connections <= 0) {
        lc->cfg.connections = 64;
    }
    return lc;
}

static void q_clear(cr_lc_conn *c)
{
    while (c->qhead) {
        cr_lc_item *it = c->qhead;
        c->qhead = it->next;
        cr_buf_unref(it->b);
        free(it);
    }
    c->qtail = NULL;
    c->answers = 0;
    memset(c->feeds, 0, sizeof c->feeds);
}

void cr_livechess_free(cr_livechess *lc)
{
    if (!lc) {
        return;
    }
    /* Its connections were closed (LWS_CALLBACK_CLOSED) with the context,
     * which owned their memory; tests close theirs. */
    for (int i = 0; i < lc->nboards; i++) {
        cr_buf_unref(lc->boards[i].entry);
        cr_buf_unref(lc->boards[i].feed);
    }
    free(lc->boards);
    free(lc);
}

int cr_livechess_board_count(const cr_livechess *lc)
{
    return lc->nboards;
}

static int find_board(const cr_livechess *lc, const char *id)
{
    for (int i = 0; i < lc->nboards; i++) {
        if (strcmp(lc->boards[i].id, id) == 0) {
            return i;
        }
    }
    return -1;
}

/*----- the queue of a connection -----*/

static void want_write(cr_lc_conn *c)
{
    if (c->wsi) {
        lws_callback_on_writable(c->wsi);
    }
}

/* Removes the oldest queued feed message of subscription slot `slot`. */
static void q_drop_feed(cr_lc_conn *c, int slot)
{
    cr_lc_item **pp = &c->qhead, *prev = NULL;
    while (*pp && (*pp)->sub != slot) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    cr_lc_item *it = *pp;
    if (!it) {
        return;
    }
    *pp = it->next;
    if (c->qtail == it) {
        c->qtail = prev;
    }
    c->feeds[slot]--;
    cr_buf_unref(it->b);
    free(it);
}

/* Queues b (taken; NULL: out of memory, dropped): an answer (slot -1) or a
 * feed message of subscription slot `slot`. */
static void q_push(cr_lc_conn *c, cr_buf *b, int slot)
{
    if (!b) {
        return;
    }
    if (slot < 0 && c->answers >= CR_LC_ANSWER_BACKLOG) {
        c->closing = true; /* it calls and does not read */
        cr_buf_unref(b);
        want_write(c);
        return;
    }
    if (slot >= 0 && c->feeds[slot] >= CR_LC_SUB_BACKLOG) {
        q_drop_feed(c, slot); /* fallen behind: the oldest state goes */
    }
    cr_lc_item *it = malloc(sizeof *it);
    if (!it) {
        cr_buf_unref(b);
        return;
    }
    it->next = NULL;
    it->b = b;
    it->sub = slot;
    if (c->qtail) {
        c->qtail->next = it;
    } else {
        c->qhead = it;
    }
    c->qtail = it;
    if (slot < 0) {
        c->answers++;
    } else {
        c->feeds[slot]++;
    }
    want_write(c);
}

cr_buf *cr_livechess_next(cr_lc_conn *c)
{
    cr_lc_item *it = c->qhead;
    if (!it) {
        return NULL;
    }
    c->qhead = it->next;
    if (!c->qhead) {
        c->qtail = NULL;
    }
    if (it->sub < 0) {
        c->answers--;
    } else {
        c->feeds[it->sub]--;
    }
    cr_buf *b = it->b;
    free(it);
    return b;
}

/*----- messages -----*/

/* {"response":KIND,"id":ID,"param":PARAM,"time":T}, PARAM raw JSON. */
static cr_buf *message(const cr_livechess *lc, const char *kind, const char *id, const char *param,
                       size_t param_len)
{
    char head[96], tail[48];
    int h = snprintf(head, sizeof head, "{\"response\":\"%s\",\"id\":%s,\"param\":", kind, id);
    int t = snprintf(tail, sizeof tail, ",\"time\":%" PRId64 "}", now_ms(lc));
    cr_buf *b = cr_buf_new(NULL, (size_t)h + param_len + (size_t)t);
    if (b) {
        memcpy(b->data, head, (size_t)h);
        memcpy(b->data + h, param, param_len);
        memcpy(b->data + h + param_len, tail, (size_t)t);
    }
    return b;
}

/* An error answer; fault: the message was not a call at all (bad JSON, too
 * big, too fast), and a client that sends only such is closed. */
static void answer_error(cr_livechess *lc, cr_lc_conn *c, const char *id, const char *why,
                         bool fault)
{
    /* The texts quote the client's words cut short, maybe within a UTF-8
     * sequence: anything but ASCII is written '?'. */
    char text_ascii[256];
    snprintf(text_ascii, sizeof text_ascii, "%s", why);
    for (char *q = text_ascii; *q; q++) {
        if ((unsigned char)*q >= 0x80) {
            *q = '?';
        }
    }
    json_t *s = json_string(text_ascii);
    char *text = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;
    json_decref(s);
    if (text) {
        q_push(c, message(lc, "error", id, text, strlen(text)), -1);
    }
    free(text);
    if (fault && ++c->faults > CR_LC_FAULTS) {
        c->closing = true; /* a client that does not speak this API */
        want_write(c);
    }
}

static void feed_board(cr_livechess *lc, cr_lc_conn *c, int slot)
{
    const lc_board *b = &lc->boards[c->sub_board[slot]];
    char id[24];
    snprintf(id, sizeof id, "%d", c->subs[slot]);
    q_push(c, message(lc, "feed", id, b->feed->data, b->feed->len), slot);
}

static void call_eboards(cr_livechess *lc, cr_lc_conn *c, const char *id)
{
    size_t n = 2;
    for (int i = 0; i < lc->nboards; i++) {
        n += lc->boards[i].entry->len + 1;
    }
    char *list = malloc(n + 1);
    if (!list) {
        return;
    }
    size_t k = 0;
    list[k++] = '[';
    for (int i = 0; i < lc->nboards; i++) {
        if (i) {
            list[k++] = ',';
        }
        memcpy(list + k, lc->boards[i].entry->data, lc->boards[i].entry->len);
        k += lc->boards[i].entry->len;
    }
    list[k++] = ']';
    q_push(c, message(lc, "call", id, list, k), -1);
    free(list);
}

static int find_sub(const cr_lc_conn *c, json_int_t sub)
{
    for (int i = 0; i < c->nsubs; i++) {
        if (c->subs[i] == sub) {
            return i;
        }
    }
    return -1;
}

static void call_subscribe(cr_livechess *lc, cr_lc_conn *c, const char *id, json_t *param)
{
    json_t *feed = json_object_get(param, "feed");
    json_t *sid = json_object_get(param, "id");
    json_t *serial = json_object_get(json_object_get(param, "param"), "serialnr");
    char why[200];
    if (!json_is_string(feed) || !json_is_integer(sid) || !json_is_string(serial)) {
        answer_error(lc, c, id, "subscribe: param needs \"feed\" (a string), \"id\" (an integer) "
                                "and \"param\": {\"serialnr\": a string}", false);
        return;
    }
    json_int_t sub = json_integer_value(sid);
    int board = find_board(lc, json_string_value(serial));
    if (strcmp(json_string_value(feed), "eboardevent") != 0) {
        snprintf(why, sizeof why, "unknown feed '%.60s': this relay serves \"eboardevent\" only",
                 json_string_value(feed));
    } else if (sub < INT32_MIN || sub > INT32_MAX) {
        snprintf(why, sizeof why, "subscribe: id %" JSON_INTEGER_FORMAT " is out of range", sub);
    } else if (find_sub(c, sub) >= 0) {
        snprintf(why, sizeof why, "subscribe: subscription id %" JSON_INTEGER_FORMAT " is in use",
                 sub);
    } else if (board < 0) {
        snprintf(why, sizeof why, "subscribe: unknown serialnr '%.70s' (the call \"eboards\" "
                 "lists the boards)", json_string_value(serial));
    } else if (c->nsubs >= CR_LC_SUBS_MAX) {
        snprintf(why, sizeof why, "subscribe: %d subscriptions at most", CR_LC_SUBS_MAX);
    } else {
        why[0] = '\0';
    }
    if (why[0]) {
        answer_error(lc, c, id, why, false);
        return;
    }
    int slot = c->nsubs++;
    c->subs[slot] = (int)sub;
    c->sub_board[slot] = board;
    c->feeds[slot] = 0;
    q_push(c, message(lc, "call", id, "null", 4), -1);
    feed_board(lc, c, slot); /* what the board shows now */
}

static void call_unsubscribe(cr_livechess *lc, cr_lc_conn *c, const char *id, json_t *param)
{
    json_t *sid = json_object_get(param, "id");
    int slot = json_is_integer(sid) ? find_sub(c, json_integer_value(sid)) : -1;
    if (slot < 0) {
        answer_error(lc, c, id, json_is_integer(sid) ? "unsubscribe: no such subscription"
                                                     : "unsubscribe: param needs \"id\" (an integer)",
                     false);
        return;
    }
    while (c->feeds[slot] > 0) {
        q_drop_feed(c, slot); /* nothing of it after the answer */
    }
    int last = --c->nsubs;
    if (slot != last) { /* the last slot moves into the freed one, with its queued items */
        c->subs[slot] = c->subs[last];
        c->sub_board[slot] = c->sub_board[last];
        c->feeds[slot] = c->feeds[last];
        for (cr_lc_item *it = c->qhead; it; it = it->next) {
            if (it->sub == last) {
                it->sub = slot;
            }
        }
    }
    c->feeds[last] = 0;
    q_push(c, message(lc, "call", id, "null", 4), -1);
}

/* Token bucket: `rate` calls a second, bursts of `rate`. */
static bool rate_ok(const cr_livechess *lc, cr_lc_conn *c)
{
    int64_t now = cr_mono_us();
    c->tokens += (double)(now - c->refill_us) * lc->cfg.rate / 1e6;
    c->refill_us = now;
    if (c->tokens > lc->cfg.rate) {
        c->tokens = lc->cfg.rate;
    }
    if (c->tokens < 1) {
        return false;
    }
    c->tokens -= 1;
    return true;
}

void cr_livechess_message(cr_livechess *lc, cr_lc_conn *c, const char *text, size_t len)
{
    if (!rate_ok(lc, c)) {
        answer_error(lc, c, "null", "rate limit exceeded: wait a second", true);
        return;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    json_t *jid = json_object_get(root, "id");
    json_t *call = json_object_get(root, "call");
    char id[32] = "null", why[200];
    if (json_is_integer(jid)) {
        snprintf(id, sizeof id, "%" JSON_INTEGER_FORMAT, json_integer_value(jid));
    }
    if (!root) {
        snprintf(why, sizeof why, "bad JSON at column %d: %.100s", jerr.column, jerr.text);
        answer_error(lc, c, "null", why, true);
    } else if (!json_is_object(root) || !json_is_integer(jid) || !json_is_string(call)) {
        answer_error(lc, c, "null", "a call is {\"id\": an integer, \"call\": a string, "
                                    "\"param\": ...}", true);
    } else if (strcmp(json_string_value(call), "eboards") == 0) {
        call_eboards(lc, c, id);
    } else if (strcmp(json_string_value(call), "subscribe") == 0) {
        call_subscribe(lc, c, id, json_object_get(root, "param"));
    } else if (strcmp(json_string_value(call), "unsubscribe") == 0) {
        call_unsubscribe(lc, c, id, json_object_get(root, "param"));
    } else {
        snprintf(why, sizeof why, "unknown call '%.60s': this API is read-only (eboards, "
                 "subscribe, unsubscribe)", json_string_value(call));
        answer_error(lc, c, id, why, false);
    }
    json_decref(root);
}

void cr_livechess_apply(cr_livechess *lc, const cr_pub *p)
{
    if (!lc || p->kind != CR_PUB_EBOARD || !p->event || !p->snapshot) {
        return;
    }
    int i = find_board(lc, p->eboard);
    if (i < 0) {
        lc_board *n = cr_grow(lc->boards, &lc->capboards, (size_t)lc->nboards + 1, sizeof *n, 16);
        if (!n) {
            return;
        }
        lc->boards = n;
        i = lc->nboards++;
        memset(&n[i], 0, sizeof n[i]);
        snprintf(n[i].id, sizeof n[i].id, "%s", p->eboard);
    }
    lc_board *b = &lc->boards[i];
    /* Only the list's fields changed (its state, battery, source): no feed message. */
    bool same = b->feed && b->feed->len == p->snapshot->len &&
                memcmp(b->feed->data, p->snapshot->data, b->feed->len) == 0;
    cr_buf_unref(b->entry);
    cr_buf_unref(b->feed);
    b->entry = cr_buf_ref(p->event);
    b->feed = cr_buf_ref(p->snapshot);
    for (cr_lc_conn *c = lc->conns; c && !same; c = c->next) {
        for (int s = 0; s < c->nsubs; s++) {
            if (c->sub_board[s] == i) {
                feed_board(lc, c, s);
            }
        }
    }
}

bool cr_livechess_open(cr_livechess *lc, cr_lc_conn *c, struct lws *wsi)
{
    memset(c, 0, sizeof *c);
    if (lc->nconns >= lc->cfg.connections) {
        return false;
    }
    c->wsi = wsi;
    c->open = true;
    c->tokens = lc->cfg.rate;
    c->refill_us = cr_mono_us();
    c->next = lc->conns;
    if (lc->conns) {
        lc->conns->prev = c;
    }
    lc->conns = c;
    lc->nconns++;
    return true;
}

void cr_livechess_close(cr_livechess *lc, cr_lc_conn *c)
{
    if (!c->open) {
        return;
    }
    if (c->prev) {
        c->prev->next = c->next;
    } else {
        lc->conns = c->next;
    }
    if (c->next) {
        c->next->prev = c->prev;
    }
    lc->nconns--;
    q_clear(c);
    cr_ws_rx_reset(&c->rx);
    c->open = false;
}

/*----- lws -----*/

static int writeable(cr_lc_conn *c)
{
    if (c->closing) {
        lws_close_reason(c->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)"faults", 6);
        return -1;
    }
    cr_buf *b = cr_livechess_next(c);
    if (!b) {
        return 0;
    }
    int w = lws_write(c->wsi, (unsigned char *)b->data, b->len, LWS_WRITE_TEXT);
    int rc = w < (int)b->len ? -1 : 0;
    cr_buf_unref(b);
    if (!rc && c->qhead) {
        lws_callback_on_writable(c->wsi);
    }
    return rc;
}

static int receive(cr_livechess *lc, cr_lc_conn *c, const char *in, size_t len)
{
    const char *msg;
    size_t n;
    switch (cr_ws_rx_add(&c->rx, c->wsi, in, len, lc->cfg.max_message, &msg, &n)) {
    case CR_WS_RX_MORE:
        return 0;
    case CR_WS_RX_NOMEM:
        return -1;
    case CR_WS_RX_TOO_BIG: {
        char why[80];
        snprintf(why, sizeof why, "message over %zu bytes", lc->cfg.max_message);
        answer_error(lc, c, "null", why, true);
        return 0;
    }
    case CR_WS_RX_MESSAGE:
        cr_livechess_message(lc, c, msg, n);
        cr_ws_rx_reset(&c->rx);
        return 0;
    }
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_vhost *vh = lws_get_vhost(wsi);
    cr_livechess *lc = vh ? lws_get_vhost_user(vh) : NULL;
    cr_lc_conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        char uri[64];
        return lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) <= 0 ||
               strcmp(uri, CR_LC_PATH) != 0;
    }
    case LWS_CALLBACK_ESTABLISHED:
        if (!lc || !cr_livechess_open(lc, c, wsi)) {
            lws_close_reason(wsi, (enum lws_close_status)1013, (unsigned char *)"full", 4);
            return -1;
        }
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (lc && c) {
            cr_livechess_close(lc, c);
        }
        return 0;
    case LWS_CALLBACK_RECEIVE:
        return lc && c && c->open ? receive(lc, c, in, len) : -1;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        return lc && c && c->open ? writeable(c) : 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

struct lws_protocols cr_livechess_protocol(cr_livechess *lc)
{
    return (struct lws_protocols){
        .name = "livechess",
        .callback = callback,
        .per_session_data_size = sizeof(cr_lc_conn),
        .rx_buffer_size = 1024,
        .user = lc,
    };
}

cr_livechess *cr_livechess_listen(struct lws_context *ctx, const char *host, int port,
                                  const cr_livechess_config *cfg, cr_error *err)
{
    cr_livechess *lc = cr_livechess_new(cfg);
    if (!lc) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    lc->protocols[0] = cr_livechess_protocol(lc);
    /* Dead peers: pinged after 30 s without traffic, closed after 60 s. */
    static const lws_retry_bo_t idle_policy = {.secs_since_valid_ping = 30,
                                               .secs_since_valid_hangup = 60};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.vhost_name = "livechess";
    info.port = port;
    info.iface = host;
    info.protocols = lc->protocols;
    info.user = lc;
    info.retry_and_idle_policy = &idle_policy;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
    if (!strchr(host, ':')) {
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    }
    struct lws_vhost *vh = lws_create_vhost(ctx, &info);
    if (!vh) {
        cr_error_set(err, CR_EIO, 0, 0, "livechess: cannot listen on %s:%d", host, port);
        cr_livechess_free(lc);
        return NULL;
    }
    cr_log(CR_LOG_INFO, "livechess: DGT LiveChess API (read-only, boards live) on ws://%s%s%s:%d%s",
           strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
           lws_get_vhost_listen_port(vh), CR_LC_PATH);
    return lc;
}
