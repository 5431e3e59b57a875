/* chessrelay relay: agent link messages. */
#include "agent/agent_msg.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

bool cr_agent_id_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > CR_AGENT_ID_MAX) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-')) {
            return false;
        }
    }
    return true;
}

void cr_amsg_clear(cr_amsg *m)
{
    if (!m) {
        return;
    }
    for (size_t i = 0; i < m->count; i++) {
        free(m->lines[i]);
    }
    free(m->lines);
    free(m->lens);
    memset(m, 0, sizeof *m);
}

static char *dump(json_t *j)
{
    if (!j) {
        return NULL;
    }
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return s;
}

char *cr_amsg_hello(const char *agent, const char *token, int64_t clock, int64_t last)
{
    return dump(json_pack("{s:s,s:s,s:s,s:I,s:I}", "op", "agent-hello", "agent", agent, "token",
                          token ? token : "", "clock", (json_int_t)clock, "last", (json_int_t)last));
}

char *cr_amsg_events(int64_t first, int64_t clock, const char *const *lines, const size_t *lens,
                     size_t count)
{
    json_t *arr = json_array();
    if (!arr) {
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (json_array_append_new(arr, json_stringn(lines[i], lens[i]))) {
            json_decref(arr);
            return NULL;
        }
    }
    return dump(json_pack("{s:s,s:I,s:I,s:o}", "op", "ev", "n", (json_int_t)first, "clock",
                          (json_int_t)clock, "lines", arr));
}

char *cr_amsg_tick(int64_t clock, int64_t last)
{
    return dump(json_pack("{s:s,s:I,s:I}", "op", "tick", "clock", (json_int_t)clock, "last",
                          (json_int_t)last));
}

char *cr_amsg_bye(int64_t last)
{
    return dump(json_pack("{s:s,s:I}", "op", "bye", "last", (json_int_t)last));
}

char *cr_amsg_welcome(const char *agent, int64_t acked)
{
    return dump(json_pack("{s:s,s:s,s:I}", "type", "welcome", "agent", agent, "acked",
                          (json_int_t)acked));
}

char *cr_amsg_ack(int64_t n)
{
    return dump(json_pack("{s:s,s:I}", "type", "ack", "n", (json_int_t)n));
}

char *cr_amsg_error(const char *error, const char *where)
{
    return dump(json_pack("{s:s,s:s,s:s}", "type", "error", "error", error ? error : "", "where",
                          where ? where : ""));
}

/* A required event number: 0..CR_AGENT_SEQ_MAX. */
static int get_count(json_t *j, const char *what, const char *name, int64_t *out, cr_error *err)
{
    json_t *v = json_object_get(j, name);
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > CR_AGENT_SEQ_MAX) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "%s: %s: expected an integer 0..2^40", what,
                            name);
    }
    *out = json_integer_value(v);
    return 0;
}

/* A required time in ms (may be negative, not huge). */
static int get_int(json_t *j, const char *what, const char *name, int64_t *out, cr_error *err)
{
    json_t *v = json_object_get(j, name);
    if (!json_is_integer(v) || json_integer_value(v) > CR_AGENT_TIME_MAX ||
        json_integer_value(v) < -CR_AGENT_TIME_MAX) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "%s: %s: expected an integer (ms) within +-2^50",
                            what, name);
    }
    *out = json_integer_value(v);
    return 0;
}

static int parse_lines(json_t *j, cr_amsg *m, cr_error *err)
{
    json_t *arr = json_object_get(j, "lines");
    if (!json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > CR_AGENT_BATCH_MAX) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "ev: lines: expected an array of 1..%d strings",
                            CR_AGENT_BATCH_MAX);
    }
    size_t n = json_array_size(arr);
    m->lines = calloc(n, sizeof *m->lines);
    m->lens = calloc(n, sizeof *m->lens);
    if (!m->lines || !m->lens) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        json_t *s = json_array_get(arr, i);
        const char *v = json_string_value(s);
        size_t len = json_string_length(s);
        if (!v || len == 0 || memchr(v, '\n', len) || memchr(v, '\r', len) || memchr(v, '\0', len)) {
            return cr_error_set(err, CR_EPROTO, 0, 0,
                                "ev: lines[%zu]: expected a non-empty string without newlines", i);
        }
        m->lines[i] = malloc(len + 1);
        if (!m->lines[i]) {
            return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
        memcpy(m->lines[i], v, len + 1);
        m->lens[i] = len;
        m->count = i + 1;
    }
    return 0;
}

static int parse_object(json_t *j, cr_amsg *m, cr_error *err)
{
    const char *op = json_string_value(json_object_get(j, "op"));
    const char *type = json_string_value(json_object_get(j, "type"));
    if (op && type) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "message: both \"op\" and \"type\"");
    }
    if (op && strcmp(op, "agent-hello") == 0) {
        m->kind = CR_AMSG_HELLO;
        const char *agent = json_string_value(json_object_get(j, "agent"));
        const char *token = json_string_value(json_object_get(j, "token"));
        if (!agent || !cr_agent_id_valid(agent)) {
            return cr_error_set(err, CR_EPROTO, 0, 0,
                                "agent-hello: agent: expected 1..%d of A-Z a-z 0-9 . _ -",
                                CR_AGENT_ID_MAX);
        }
        if (!token || strlen(token) > CR_AGENT_TOKEN_MAX) {
            return cr_error_set(err, CR_EPROTO, 0, 0, "agent-hello: token: expected a string");
        }
        snprintf(m->agent, sizeof m->agent, "%s", agent);
        snprintf(m->token, sizeof m->token, "%s", token);
        if (get_int(j, "agent-hello", "clock", &m->clock, err)) {
            return CR_EPROTO;
        }
        return get_count(j, "agent-hello", "last", &m->n, err);
    }
    if (op && strcmp(op, "ev") == 0) {
        m->kind = CR_AMSG_EV;
        if (get_count(j, "ev", "n", &m->n, err) || get_int(j, "ev", "clock", &m->clock, err)) {
            return CR_EPROTO;
        }
        if (m->n < 1) {
            return cr_error_set(err, CR_EPROTO, 0, 0, "ev: n: events are numbered from 1");
        }
        int rc = parse_lines(j, m, err);
        if (!rc && m->n - 1 > CR_AGENT_SEQ_MAX - (int64_t)m->count) {
            return cr_error_set(err, CR_EPROTO, 0, 0, "ev: n: the batch ends beyond 2^40");
        }
        return rc;
    }
    if (op && strcmp(op, "tick") == 0) {
        m->kind = CR_AMSG_TICK;
        if (get_int(j, "tick", "clock", &m->clock, err)) {
            return CR_EPROTO;
        }
        return get_count(j, "tick", "last", &m->n, err);
    }
    if (op && strcmp(op, "bye") == 0) {
        m->kind = CR_AMSG_BYE;
        return get_count(j, "bye", "last", &m->n, err);
    }
    if (type && strcmp(type, "welcome") == 0) {
        m->kind = CR_AMSG_WELCOME;
        const char *agent = json_string_value(json_object_get(j, "agent"));
        if (!agent || !cr_agent_id_valid(agent)) {
            return cr_error_set(err, CR_EPROTO, 0, 0, "welcome: agent: expected an agent id");
        }
        snprintf(m->agent, sizeof m->agent, "%s", agent);
        return get_count(j, "welcome", "acked", &m->n, err);
    }
    if (type && strcmp(type, "ack") == 0) {
        m->kind = CR_AMSG_ACK;
        return get_count(j, "ack", "n", &m->n, err);
    }
    if (type && strcmp(type, "error") == 0) {
        m->kind = CR_AMSG_ERROR;
        const char *e = json_string_value(json_object_get(j, "error"));
        const char *w = json_string_value(json_object_get(j, "where"));
        snprintf(m->error, sizeof m->error, "%s%s%s", w ? w : "", w ? ": " : "", e ? e : "?");
        return 0;
    }
    if (op) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "op: unknown op '%.40s'", op);
    }
    if (type) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "type: unknown type '%.40s'", type);
    }
    return cr_error_set(err, CR_EPROTO, 0, 0, "message: expected \"op\" or \"type\"");
}

int cr_amsg_parse(const char *text, size_t len, cr_amsg *m, cr_error *err)
{
    memset(m, 0, sizeof *m);
    cr_error_clear(err);
    if (!text || len > CR_AGENT_MESSAGE_MAX) {
        return cr_error_set(err, CR_EPROTO, 0, 0, "message: over %d bytes", CR_AGENT_MESSAGE_MAX);
    }
    json_error_t jerr;
    json_t *j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j) {
        return cr_error_set(err, CR_EPROTO, 0, jerr.column, "message: malformed JSON: %s", jerr.text);
    }
    if (!json_is_object(j)) {
        json_decref(j);
        return cr_error_set(err, CR_EPROTO, 0, 0, "message: expected a JSON object");
    }
    int rc = parse_object(j, m, err);
    json_decref(j);
    return rc ? CR_EPROTO : 0;
}
