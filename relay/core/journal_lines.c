/* chessrelay relay: the journal's grammar (formats and parses every record
 * type; see the header for the lines). */
#include "core/journal_lines.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cr/pgn.h"

/*----- command lines -----*/

/* The JSON of a command's own fields (without who, at, tick). */
static json_t *cmd_json(const cr_journal_cmd *c)
{
    json_int_t game = (json_int_t)c->game;
    switch (c->kind) {
    case CR_JCMD_RESULT: {
        json_t *j = json_pack("{s:s, s:I, s:s}", "cmd", "result", "game", game, "result",
                              cr_result_string(c->result));
        if (j && c->reason[0]) {
            json_object_set_new(j, "reason", json_string(c->reason));
        }
        return j;
    }
    case CR_JCMD_TAG:
        return json_pack("{s:s, s:I, s:s, s:s}", "cmd", "tag", "game", game, "name", c->name,
                         "value", c->value);
    case CR_JCMD_CORRECTION:
        return json_pack("{s:s, s:I, s:i}", "cmd", "correction", "game", game, "ply", c->ply);
    case CR_JCMD_CLOCK_ADJUST:
        return json_pack("{s:s, s:I, s:s, s:i}", "cmd", "clock-adjust", "game", game, "color",
                         c->color == CR_WHITE ? "w" : "b", "ms", (int)c->delta_ms);
    case CR_JCMD_MOVE:
        break;
    }
    const cr_ply *p = &c->move;
    json_t *j = json_pack("{s:s, s:I, s:i}", "cmd", "move", "game", game, "ply", c->ply);
    if (j && (p->flags & CR_PLY_ILLEGAL)) {
        char fen[CR_FEN_MAX];
        if (cr_position_to_fen(&p->after, fen, sizeof fen) < 0) {
            json_decref(j);
            return NULL;
        }
        json_object_set_new(j, "san", json_string(p->san));
        json_object_set_new(j, "after", json_string(fen));
    } else if (j) {
        json_object_set_new(j, "uci", json_string(p->uci));
    }
    json_t *more = json_pack("{s:I, s:i, s:i, s:I, s:i}", "flags", (json_int_t)p->flags, "clock",
                             (int)p->clock_ms, "emt", (int)p->emt_ms, "ts", (json_int_t)p->ts,
                             "fits", (int)p->fits);
    if (j && more) {
        json_object_update(j, more);
    }
    json_decref(more);
    return j;
}

/* The command's line as snprintf would write it: the length it needs, or -1. */
static int cmd_line(const cr_journal_cmd *c, char *out, size_t size)
{
    json_t *j = cmd_json(c);
    if (j && c->who[0]) {
        json_object_set_new(j, "who", json_string(c->who));
    }
    if (j && c->at > 0) {
        json_object_set_new(j, "at", json_integer(c->at));
    }
    if (j && c->tick >= 0) {
        json_object_set_new(j, "tick", json_integer(c->tick));
    }
    if (j && c->t >= 0) {
        json_object_set_new(j, "t", json_integer(c->t));
    }
    /* Compact JSON escapes every control character: one line whatever the
     * value holds. */
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    int n = text ? snprintf(out, size, "# cmd %s\n", text) : -1;
    free(text);
    return n;
}

int cr_journal_cmd_format(const cr_journal_cmd *c, char *out, size_t size)
{
    int n = cmd_line(c, out, size);
    return n < 0 || (size_t)n >= size ? -1 : n;
}

/* The old format: "# cmd result N R", "# cmd tag N NAME VALUE" (VALUE is the
 * rest of the line after one space). */
static int parse_old_cmd(const char *line, size_t len, cr_journal_cmd *c, char *err, size_t es)
{
    char copy[512];
    if (len >= sizeof copy) {
        snprintf(err, es, "command line too long");
        return -1;
    }
    memcpy(copy, line, len);
    copy[len] = '\0';
    char *save = NULL;
    strtok_r(copy, " ", &save);               /* "#" */
    strtok_r(NULL, " ", &save);               /* "cmd" */
    const char *word = strtok_r(NULL, " ", &save);
    const char *game = strtok_r(NULL, " ", &save);
    char *end = NULL;
    long g = game ? strtol(game, &end, 10) : 0;
    if (!word || !game || *end || g < 1 || g > INT_MAX) {
        snprintf(err, es, "command line without a game number");
        return -1;
    }
    c->game = (int)g;
    if (strcmp(word, "result") == 0) {
        const char *res = strtok_r(NULL, " ", &save);
        int r = res ? cr_result_parse(res) : -1;
        if (r < 0 || strtok_r(NULL, " ", &save)) {
            snprintf(err, es, "command line with a bad result");
            return -1;
        }
        c->result = (cr_result)r;
        return 1;
    }
    if (strcmp(word, "tag") == 0) {
        /* save points after the game's space: NAME, one space, VALUE. */
        const char *rest = save ? save : "";
        const char *sp = strchr(rest, ' ');
        size_t nl = sp ? (size_t)(sp - rest) : strlen(rest);
        const char *value = sp ? sp + 1 : "";
        if (!nl || nl >= sizeof c->name || strlen(value) >= sizeof c->value) {
            snprintf(err, es, "command line with a bad tag");
            return -1;
        }
        c->kind = CR_JCMD_TAG;
        memcpy(c->name, rest, nl);
        c->name[nl] = '\0';
        snprintf(c->value, sizeof c->value, "%s", value);
        return 1;
    }
    snprintf(err, es, "unknown command '%.20s'", word);
    return -1;
}

/* An integer field within [lo, hi], or def when absent; false when present
 * and not such an integer. */
static bool int_field(json_t *j, const char *key, int64_t lo, int64_t hi, int64_t def, int64_t *out)
{
    json_t *v = json_object_get(j, key);
    if (!v) {
        *out = def;
        return true;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi) {
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

/* A move command's ply (c->ply set already). */
static bool parse_move(json_t *j, cr_journal_cmd *c)
{
    cr_ply *p = &c->move;
    int64_t flags, clock, emt, ts, fits;
    if (!int_field(j, "flags", 0, UINT32_MAX, 0, &flags) ||
        !int_field(j, "clock", -1, INT32_MAX, -1, &clock) ||
        !int_field(j, "emt", -1, INT32_MAX, -1, &emt) ||
        !int_field(j, "ts", -1, INT64_MAX, -1, &ts) || !int_field(j, "fits", 0, UINT16_MAX, 1, &fits)) {
        return false;
    }
    p->move = CR_MOVE_NONE;
    p->flags = (uint32_t)flags;
    p->clock_ms = (int32_t)clock;
    p->emt_ms = (int32_t)emt;
    p->ts = ts;
    p->fits = (uint16_t)fits;
    if (p->flags & CR_PLY_ILLEGAL) {
        const char *san = json_string_value(json_object_get(j, "san"));
        const char *after = json_string_value(json_object_get(j, "after"));
        if (!san || !after || strlen(san) >= sizeof p->san ||
            cr_position_from_fen(&p->after, after, NULL) != 0) {
            return false;
        }
        snprintf(p->san, sizeof p->san, "%s", san);
        return true;
    }
    const char *uci = json_string_value(json_object_get(j, "uci"));
    if (!uci || strlen(uci) < 4 || strlen(uci) >= sizeof p->uci) {
        return false;
    }
    snprintf(p->uci, sizeof p->uci, "%s", uci);
    return true;
}

/* The fields of a JSON command line; returns 1, or -1 with err filled. */
static int parse_cmd_fields(json_t *j, const char *cmd, cr_journal_cmd *c, char *err, size_t es)
{
    int64_t ply;
    bool has_ply = int_field(j, "ply", 0, 1 << 20, -1, &ply) && ply >= 0;
    if (strcmp(cmd, "result") == 0) {
        const char *res = json_string_value(json_object_get(j, "result"));
        const char *reason = json_string_value(json_object_get(j, "reason"));
        int r = res ? cr_result_parse(res) : -1;
        if (r < 0 || (reason && strlen(reason) >= sizeof c->reason)) {
            snprintf(err, es, "command line with a bad result");
            return -1;
        }
        c->kind = CR_JCMD_RESULT;
        c->result = (cr_result)r;
        snprintf(c->reason, sizeof c->reason, "%s", reason ? reason : "");
    } else if (strcmp(cmd, "tag") == 0) {
        const char *name = json_string_value(json_object_get(j, "name"));
        const char *value = json_string_value(json_object_get(j, "value"));
        if (!name || !value || !cr_pgn_tag_name_ok(name) || strlen(name) >= sizeof c->name ||
            strlen(value) >= sizeof c->value) {
            snprintf(err, es, "command line with a bad tag");
            return -1;
        }
        c->kind = CR_JCMD_TAG;
        snprintf(c->name, sizeof c->name, "%s", name);
        snprintf(c->value, sizeof c->value, "%s", value);
    } else if (strcmp(cmd, "correction") == 0 || strcmp(cmd, "move") == 0) {
        c->kind = cmd[0] == 'c' ? CR_JCMD_CORRECTION : CR_JCMD_MOVE;
        c->ply = (int)ply;
        if (!has_ply || (c->kind == CR_JCMD_MOVE && !parse_move(j, c))) {
            snprintf(err, es, "command line with a bad %s", cmd);
            return -1;
        }
    } else if (strcmp(cmd, "clock-adjust") == 0) {
        const char *color = json_string_value(json_object_get(j, "color"));
        int64_t ms;
        if (!color || (strcmp(color, "w") && strcmp(color, "b")) ||
            !int_field(j, "ms", INT32_MIN, INT32_MAX, 0, &ms)) {
            snprintf(err, es, "command line with a bad clock-adjust");
            return -1;
        }
        c->kind = CR_JCMD_CLOCK_ADJUST;
        c->color = color[0] == 'w' ? CR_WHITE : CR_BLACK;
        c->delta_ms = (int32_t)ms;
    } else {
        snprintf(err, es, "unknown command '%.20s'", cmd);
        return -1;
    }
    return 1;
}

int cr_journal_cmd_parse(const char *line, size_t len, cr_journal_cmd *c, char *err,
                         size_t err_size)
{
    static const char head[] = "# cmd ";
    if (len < sizeof head - 1 || memcmp(line, head, sizeof head - 1) != 0) {
        return 0;
    }
    memset(c, 0, sizeof *c);
    c->tick = c->t = -1;
    const char *p = line + sizeof head - 1;
    size_t n = len - (sizeof head - 1);
    if (!n || *p != '{') {
        return parse_old_cmd(line, len, c, err, err_size);
    }
    json_error_t jerr;
    json_t *j = json_loadb(p, n, JSON_REJECT_DUPLICATES, &jerr);
    const char *cmd = json_string_value(json_object_get(j, "cmd"));
    json_t *game = json_object_get(j, "game");
    const char *who = json_string_value(json_object_get(j, "who"));
    int64_t at, tick, t;
    int rc = -1;
    if (!j || !cmd || !json_is_integer(game) || json_integer_value(game) < 1 ||
        json_integer_value(game) > INT_MAX || (who && strlen(who) >= sizeof c->who) ||
        !int_field(j, "at", 0, INT64_MAX, 0, &at) || !int_field(j, "tick", -1, INT64_MAX, -1, &tick) ||
        !int_field(j, "t", -1, INT64_MAX, -1, &t)) {
        snprintf(err, err_size, "%s", j ? "command line without its fields" : "command line not JSON");
    } else {
        rc = parse_cmd_fields(j, cmd, c, err, err_size);
    }
    if (rc == 1) {
        c->game = (int)json_integer_value(game);
        snprintf(c->who, sizeof c->who, "%s", who ? who : "");
        c->at = at;
        c->tick = tick;
        c->t = t;
    }
    json_decref(j);
    return rc;
}

/*----- the other records -----*/

static const char *const kind_names[] = {
    [CR_JLINE_FEED] = "feed",          [CR_JLINE_COMMENT] = "comment",
    [CR_JLINE_EPOCH] = "epoch",        [CR_JLINE_BOARD] = "board",
    [CR_JLINE_GAME] = "game",          [CR_JLINE_TICK] = "tick",
    [CR_JLINE_FINISH] = "finish",      [CR_JLINE_ACCEPT_BOARD] = "accept-board",
    [CR_JLINE_PAIRINGS] = "pairings",  [CR_JLINE_CMD] = "cmd",
    [CR_JLINE_AGENT] = "agent",        [CR_JLINE_AGENT_BYE] = "agent-bye"};

const char *cr_jline_kind_name(cr_jline_kind k)
{
    return (unsigned)k < sizeof kind_names / sizeof kind_names[0] ? kind_names[k] : "?";
}

/* One word of a record: 1..max-1 bytes, none a space or a control. */
static bool word_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (!n || n >= max) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f) {
            return false;
        }
    }
    return true;
}

/* The rest of a record (accept-board's who): no control characters. */
static bool text_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (!n || n >= max) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if ((unsigned char)s[i] < ' ' || s[i] == 0x7f) {
            return false;
        }
    }
    return true;
}

/* snprintf's answer, -1 on an output error. */
static int done(int n)
{
    return n < 0 ? -1 : n;
}

static int format_raw(const cr_jline *l, char *out, size_t size)
{
    if (l->u.raw.len > INT_MAX - 2 || memchr(l->u.raw.text, '\n', l->u.raw.len)) {
        return -1;
    }
    return done(snprintf(out, size, "%.*s\n", (int)l->u.raw.len, l->u.raw.text));
}

static int format_pairings(const cr_jline *l, char *out, size_t size)
{
    if (l->u.pairings.tick < 0 || l->u.pairings.len > INT_MAX - 64 ||
        memchr(l->u.pairings.text, '\n', l->u.pairings.len)) {
        return -1;
    }
    return done(snprintf(out, size, "# pairings %" PRId64 " %" PRId64 " %.*s\n", l->u.pairings.ts_us,
                         l->u.pairings.tick, (int)l->u.pairings.len, l->u.pairings.text));
}

int cr_jline_format(const cr_jline *l, char *out, size_t size)
{
    const char *id = "";
    switch (l->kind) {
    case CR_JLINE_FEED:
    case CR_JLINE_COMMENT:
        return format_raw(l, out, size);
    case CR_JLINE_EPOCH:
        return done(snprintf(out, size, "# epoch %" PRId64 "\n", l->u.epoch.ms));
    case CR_JLINE_BOARD:
        id = l->u.board.id;
        if (l->u.board.table < 1 || !word_ok(id, sizeof l->u.board.id)) {
            return -1;
        }
        return done(snprintf(out, size, "# board %d %s\n", l->u.board.table, id));
    case CR_JLINE_GAME:
        id = l->u.game.board;
        if (l->u.game.game < 1 || !word_ok(id, sizeof l->u.game.board)) {
            return -1;
        }
        return done(snprintf(out, size, "# game %d board %s\n", l->u.game.game, id));
    case CR_JLINE_TICK:
        if (!word_ok(l->u.tick.board, sizeof l->u.tick.board)) {
            return -1;
        }
        return done(snprintf(out, size, "# tick %s %" PRId64 "\n", l->u.tick.board, l->u.tick.t));
    case CR_JLINE_FINISH:
        if (!l->u.finish.has_reach) {
            return done(snprintf(out, size, "# finish %" PRId64 "\n", l->u.finish.t));
        }
        return done(snprintf(out, size, "# finish %" PRId64 " %" PRId64 "\n", l->u.finish.t,
                             l->u.finish.reach));
    case CR_JLINE_ACCEPT_BOARD: {
        const char *who = l->u.accept.who[0] ? l->u.accept.who : "-";
        if (!word_ok(l->u.accept.board, sizeof l->u.accept.board) ||
            !text_ok(who, sizeof l->u.accept.who) || l->u.accept.game < 1) {
            return -1;
        }
        return done(snprintf(out, size,
                             "# accept-board %" PRId64 " %" PRId64 " %" PRId64 " %d %d %s %s\n",
                             l->u.accept.ts_us, l->u.accept.tick, l->u.accept.t, l->u.accept.side,
                             l->u.accept.game, l->u.accept.board, who));
    }
    case CR_JLINE_PAIRINGS:
        return format_pairings(l, out, size);
    case CR_JLINE_CMD:
        return cmd_line(&l->u.cmd, out, size);
    case CR_JLINE_AGENT:
        if (!word_ok(l->u.agent.id, sizeof l->u.agent.id) || l->u.agent.n < 1) {
            return -1;
        }
        return done(snprintf(out, size, "# agent %s %" PRId64 " %" PRId64 "%s\n", l->u.agent.id,
                             l->u.agent.n, l->u.agent.off, l->u.agent.skip ? " skip" : ""));
    case CR_JLINE_AGENT_BYE:
        if (!word_ok(l->u.bye.id, sizeof l->u.bye.id) || l->u.bye.n < 0) {
            return -1;
        }
        return done(snprintf(out, size, "# agent-bye %s %" PRId64 "\n", l->u.bye.id, l->u.bye.n));
    }
    return -1;
}

/* Reading one record: its fields, one space before each. */
typedef struct cursor {
    const char *p, *end;
    const char *kind; /* the record's word, for errors */
    int field;        /* the field being read (1: the first after the word) */
    char *err;
    size_t es;
} cursor;

static bool fail(cursor *c, const char *what, const char *expected, const char *got, size_t n)
{
    if (got) {
        snprintf(c->err, c->es, "%s: field %d (%s): expected %s, got '%.*s'", c->kind, c->field,
                 what, expected, (int)(n > 24 ? 24 : n), got);
    } else {
        snprintf(c->err, c->es, "%s: field %d (%s) missing", c->kind, c->field, what);
    }
    return false;
}

/* The next field's bytes (up to the next space); false if there is none. */
static bool next(cursor *c, const char *what, const char **s, size_t *n)
{
    c->field++;
    if (c->p >= c->end || *c->p != ' ' || c->p + 1 >= c->end || c->p[1] == ' ') {
        return fail(c, what, "", NULL, 0);
    }
    *s = c->p + 1;
    const char *sp = memchr(*s, ' ', (size_t)(c->end - *s));
    c->p = sp ? sp : c->end;
    *n = (size_t)(c->p - *s);
    return true;
}

/* A decimal integer field within [lo, hi]. */
static bool num(cursor *c, const char *what, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s;
    size_t n;
    if (!next(c, what, &s, &n)) {
        return false;
    }
    char buf[24];
    bool ok = n < sizeof buf && (s[0] == '-' ? n > 1 : true);
    for (size_t i = s[0] == '-'; ok && i < n; i++) {
        ok = s[i] >= '0' && s[i] <= '9';
    }
    long long v = 0;
    if (ok) {
        memcpy(buf, s, n);
        buf[n] = '\0';
        errno = 0;
        v = strtoll(buf, NULL, 10);
        ok = errno == 0 && v >= lo && v <= hi;
    }
    if (!ok) {
        char expected[64];
        snprintf(expected, sizeof expected, lo == INT64_MIN ? "an integer" : "an integer >= %" PRId64,
                 lo);
        return fail(c, what, expected, s, n);
    }
    *out = v;
    return true;
}

static bool num_int(cursor *c, const char *what, int lo, int *out)
{
    int64_t v;
    if (!num(c, what, lo, INT_MAX, &v)) {
        return false;
    }
    *out = (int)v;
    return true;
}

/* A one-word field (an id) into out (size bytes). */
static bool word(cursor *c, const char *what, char *out, size_t size)
{
    const char *s;
    size_t n;
    if (!next(c, what, &s, &n)) {
        return false;
    }
    bool ok = n < size;
    for (size_t i = 0; ok && i < n; i++) {
        ok = (unsigned char)s[i] > ' ' && s[i] != 0x7f;
    }
    if (!ok) {
        char expected[64];
        snprintf(expected, sizeof expected, "a word of 1 to %zu characters", size - 1);
        return fail(c, what, expected, s, n);
    }
    memcpy(out, s, n);
    out[n] = '\0';
    return true;
}

/* The end of the record: nothing after its last field. */
static bool end(cursor *c)
{
    if (c->p < c->end) {
        snprintf(c->err, c->es, "%s: after field %d: unexpected '%.*s'", c->kind, c->field,
                 (int)(c->end - c->p > 24 ? 24 : c->end - c->p), c->p);
        return false;
    }
    return true;
}

static bool parse_accept(cursor *c, cr_jline *l)
{
    if (!num(c, "wall us", INT64_MIN, INT64_MAX, &l->u.accept.ts_us) ||
        !num(c, "feed ms ticked", INT64_MIN, INT64_MAX, &l->u.accept.tick) ||
        !num(c, "feed ms", INT64_MIN, INT64_MAX, &l->u.accept.t) ||
        !num_int(c, "side", INT_MIN, &l->u.accept.side) ||
        !num_int(c, "game", 1, &l->u.accept.game) ||
        !word(c, "board", l->u.accept.board, sizeof l->u.accept.board)) {
        return false;
    }
    /* who: the rest of the line (a token's name) */
    c->field++;
    size_t n = c->p < c->end && *c->p == ' ' ? (size_t)(c->end - c->p - 1) : 0;
    char *who = l->u.accept.who; /* zeroed */
    if (n && n < sizeof l->u.accept.who) {
        memcpy(who, c->p + 1, n);
    }
    if (!n || n >= sizeof l->u.accept.who || !text_ok(who, sizeof l->u.accept.who)) {
        who[0] = '\0';
        return fail(c, "who", "a name of 1 to 63 characters", n ? c->p + 1 : NULL, n);
    }
    c->p = c->end;
    return true;
}

static bool parse_pairings(cursor *c, cr_jline *l)
{
    if (!num(c, "wall us", INT64_MIN, INT64_MAX, &l->u.pairings.ts_us) ||
        !num(c, "feed ms ticked", 0, INT64_MAX, &l->u.pairings.tick)) {
        return false;
    }
    c->field++;
    if (c->p >= c->end || *c->p != ' ') {
        return fail(c, "the pairings", "", NULL, 0);
    }
    l->u.pairings.text = c->p + 1;
    l->u.pairings.len = (size_t)(c->end - c->p - 1);
    c->p = c->end;
    return true;
}

/* The fields of a record whose word is c->kind; false with c->err filled. */
static bool parse_fields(cursor *c, cr_jline *l)
{
    switch (l->kind) {
    case CR_JLINE_EPOCH:
        return num(c, "wall ms", INT64_MIN, INT64_MAX, &l->u.epoch.ms) && end(c);
    case CR_JLINE_BOARD:
        return num_int(c, "table", 1, &l->u.board.table) &&
               word(c, "board", l->u.board.id, sizeof l->u.board.id) && end(c);
    case CR_JLINE_GAME: {
        char kw[8];
        if (!num_int(c, "game", 1, &l->u.game.game) || !word(c, "'board'", kw, sizeof kw)) {
            return false;
        }
        if (strcmp(kw, "board") != 0) {
            return fail(c, "'board'", "the word 'board'", kw, strlen(kw));
        }
        return word(c, "board", l->u.game.board, sizeof l->u.game.board) && end(c);
    }
    case CR_JLINE_TICK:
        return word(c, "board", l->u.tick.board, sizeof l->u.tick.board) &&
               num(c, "feed ms", INT64_MIN, INT64_MAX, &l->u.tick.t) && end(c);
    case CR_JLINE_FINISH:
        if (!num(c, "feed ms", INT64_MIN, INT64_MAX, &l->u.finish.t)) {
            return false;
        }
        l->u.finish.has_reach = c->p < c->end;
        return (!l->u.finish.has_reach ||
                num(c, "feed ms reached", INT64_MIN, INT64_MAX, &l->u.finish.reach)) &&
               end(c);
    case CR_JLINE_ACCEPT_BOARD:
        return parse_accept(c, l);
    case CR_JLINE_PAIRINGS:
        return parse_pairings(c, l);
    case CR_JLINE_AGENT: {
        if (!word(c, "agent", l->u.agent.id, sizeof l->u.agent.id) ||
            !num(c, "event number", 1, INT64_MAX, &l->u.agent.n) ||
            !num(c, "clock offset", INT64_MIN, INT64_MAX, &l->u.agent.off)) {
            return false;
        }
        if (c->p < c->end) {
            char kw[8];
            if (!word(c, "'skip'", kw, sizeof kw)) {
                return false;
            }
            if (strcmp(kw, "skip") != 0) {
                return fail(c, "'skip'", "the word 'skip'", kw, strlen(kw));
            }
            l->u.agent.skip = true;
        }
        return end(c);
    }
    case CR_JLINE_AGENT_BYE:
        return word(c, "agent", l->u.bye.id, sizeof l->u.bye.id) &&
               num(c, "event number", 0, INT64_MAX, &l->u.bye.n) && end(c);
    default:
        return false;
    }
}

int cr_jline_parse(const char *line, size_t len, cr_jline *l, char *err, size_t err_size)
{
    memset(l, 0, sizeof *l);
    l->u.raw.text = line;
    l->u.raw.len = len;
    if (!len || line[0] != '#') {
        l->kind = CR_JLINE_FEED;
        return 0;
    }
    l->kind = CR_JLINE_COMMENT;
    if (len < 2 || line[1] != ' ') {
        return 0;
    }
    const char *w = line + 2, *end_of = line + len;
    const char *sp = memchr(w, ' ', (size_t)(end_of - w));
    size_t wn = (size_t)((sp ? sp : end_of) - w);
    for (int k = CR_JLINE_EPOCH; k <= CR_JLINE_AGENT_BYE; k++) {
        if (strlen(kind_names[k]) == wn && memcmp(kind_names[k], w, wn) == 0) {
            l->kind = (cr_jline_kind)k;
        }
    }
    if (l->kind == CR_JLINE_COMMENT) {
        return 0;
    }
    if (l->kind == CR_JLINE_CMD) {
        char why[120] = "";
        int rc = cr_journal_cmd_parse(line, len, &l->u.cmd, why, sizeof why);
        if (rc != 1) {
            snprintf(err, err_size, "cmd: %s", rc < 0 ? why : "no command");
            return -1;
        }
        return 0;
    }
    memset(&l->u, 0, sizeof l->u);
    cursor c = {w + wn, end_of, kind_names[l->kind], 0, err, err_size};
    return parse_fields(&c, l) ? 0 : -1;
}
