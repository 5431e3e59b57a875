/* chessrelay relay: parsing arbiters' actions. */
#include "arbiter/arbiter_cmd.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

static int fail(char *err, size_t size, const char *text)
{
    if (err && size) {
        snprintf(err, size, "%s", text);
    }
    return CR_EINVAL;
}

/* Copies an optional string field; false when present but not a string or too long. */
static bool opt_string(json_t *j, const char *name, char *out, size_t size, bool *present)
{
    json_t *v = json_object_get(j, name);
    if (present) {
        *present = v != NULL;
    }
    if (!v) {
        out[0] = '\0';
        return true;
    }
    const char *s = json_string_value(v);
    if (!s || strlen(s) >= size) {
        return false;
    }
    snprintf(out, size, "%s", s);
    return true;
}

/* "w"/"b" (or "white"/"black") in field `name`: CR_WHITE/CR_BLACK, -1 otherwise. */
static int color_field(json_t *j, const char *name)
{
    const char *who = json_string_value(json_object_get(j, name));
    if (!who) {
        return -1;
    }
    if (strcmp(who, "w") == 0 || strcmp(who, "white") == 0) {
        return CR_WHITE;
    }
    return strcmp(who, "b") == 0 || strcmp(who, "black") == 0 ? CR_BLACK : -1;
}

bool cr_arbiter_alert_ok(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n >= CR_ARB_ALERT_MAX) {
        return false;
    }
    return strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@:._-") == n;
}

/* One parser per action: the fields of that action into c. */
static int parse_result(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    const char *r = json_string_value(json_object_get(j, "result"));
    int res = r ? cr_result_parse(r) : -1;
    if (res < 0) {
        return fail(err, es, "result: expected \"1-0\", \"0-1\", \"1/2-1/2\" or \"*\"");
    }
    c->result = (cr_result)res;
    if (!opt_string(j, "reason", c->text, sizeof c->text, NULL)) {
        return fail(err, es, "reason: expected a string");
    }
    return 0;
}

static int parse_draw_offer(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    json_t *ply = json_object_get(j, "ply");
    json_t *off = json_object_get(j, "offered");
    if (ply && (!json_is_integer(ply) || json_integer_value(ply) < -1 ||
                json_integer_value(ply) > 100000)) {
        return fail(err, es, "ply: expected a ply index (0-based) or -1");
    }
    if (off && !json_is_boolean(off)) {
        return fail(err, es, "offered: expected true or false");
    }
    c->ply = ply ? (int)json_integer_value(ply) : -1;
    c->offered = off ? json_is_true(off) : true;
    return 0;
}

static int parse_take_back(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    json_t *plies = json_object_get(j, "plies");
    if (!json_is_integer(plies) || json_integer_value(plies) < 0 ||
        json_integer_value(plies) > 100000) {
        return fail(err, es, "plies: expected the number of plies to keep (>= 0)");
    }
    c->ply = (int)json_integer_value(plies);
    if (!opt_string(j, "reason", c->text, sizeof c->text, NULL)) {
        return fail(err, es, "reason: expected a string");
    }
    return 0;
}

static int parse_players(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    if (!opt_string(j, "white", c->white, sizeof c->white, &c->has_white) ||
        !opt_string(j, "black", c->black, sizeof c->black, &c->has_black)) {
        return fail(err, es, "white/black: expected strings (at most 127 bytes)");
    }
    if (!c->has_white && !c->has_black) {
        return fail(err, es, "players: expected \"white\" and/or \"black\"");
    }
    return 0;
}

static int parse_claim(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    const char *basis = json_string_value(json_object_get(j, "basis"));
    int b = basis ? cr_claim_basis_parse(basis) : -1;
    c->color = color_field(j, "claimant");
    if (c->color < 0) {
        return fail(err, es, "claimant: expected \"w\" or \"b\"");
    }
    if (b < 0) {
        return fail(err, es, "basis: expected \"a\" (cannot win), \"b\" (no effort), "
                             "\"threefold\" or \"fifty-moves\"");
    }
    c->basis = (cr_claim_basis)b;
    bool has_move = false;
    if (!opt_string(j, "move", c->move, sizeof c->move, &has_move)) {
        return fail(err, es, "move: expected a move (SAN or UCI)");
    }
    if (has_move && (c->basis == CR_CLAIM_CANNOT_WIN || c->basis == CR_CLAIM_NO_EFFORT)) {
        return fail(err, es, "move: only for a threefold or fifty-moves claim");
    }
    return 0;
}

static int parse_decide(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    const char *d = json_string_value(json_object_get(j, "decision"));
    json_t *added = json_object_get(j, "added_ms");
    static const struct {
        const char *name;
        cr_decision decision;
    } decisions[] = {{"draw", CR_DECISION_DRAW},
                     {"rejected", CR_DECISION_REJECTED},
                     {"postponed", CR_DECISION_POSTPONED}};
    size_t k = 0;
    while (d && k < sizeof decisions / sizeof decisions[0] && strcmp(d, decisions[k].name) != 0) {
        k++;
    }
    if (!d || k == sizeof decisions / sizeof decisions[0]) {
        return fail(err, es, "decision: expected \"draw\", \"rejected\" or \"postponed\"");
    }
    c->decision = decisions[k].decision;
    if (added && (!json_is_integer(added) || json_integer_value(added) < 0 ||
                  json_integer_value(added) > 3600000)) {
        return fail(err, es, "added_ms: expected milliseconds (0..3600000)");
    }
    c->added_ms = added ? (int32_t)json_integer_value(added) : -1;
    if (!opt_string(j, "note", c->text, sizeof c->text, NULL)) {
        return fail(err, es, "note: expected a string");
    }
    return 0;
}

static int parse_confirm_flag(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    c->color = color_field(j, "color");
    if (c->color < 0) {
        return fail(err, es, "color: expected \"w\" or \"b\" (whose flag fell)");
    }
    if (!opt_string(j, "reason", c->text, sizeof c->text, NULL)) {
        return fail(err, es, "reason: expected a string");
    }
    return 0;
}

static int parse_replace_move(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    json_t *ply = json_object_get(j, "ply");
    bool has_move = false;
    if (!json_is_integer(ply) || json_integer_value(ply) < 0 ||
        json_integer_value(ply) > 100000) {
        return fail(err, es, "ply: expected a ply index (0-based)");
    }
    c->ply = (int)json_integer_value(ply);
    if (!opt_string(j, "move", c->move, sizeof c->move, &has_move) || !has_move ||
        !c->move[0]) {
        return fail(err, es, "move: expected the move played (SAN or UCI)");
    }
    if (!opt_string(j, "reason", c->text, sizeof c->text, NULL)) {
        return fail(err, es, "reason: expected a string");
    }
    return 0;
}

static int parse_ack(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    const char *key = json_string_value(json_object_get(j, "alert"));
    if (!cr_arbiter_alert_ok(key)) {
        return fail(err, es,
                    "alert: expected the alert's key (1 to 47 of A-Z a-z 0-9 @ : . _ -)");
    }
    snprintf(c->alert, sizeof c->alert, "%s", key);
    return 0;
}

/* The actions by name, in cr_arbiter_action's order. */
typedef int (*action_parser)(json_t *j, cr_arbiter_cmd *c, char *err, size_t es);
static const struct {
    const char *name;
    action_parser parse;
} actions[CR_ARB_ACTION_NB] = {
    [CR_ARB_RESULT] = {"result", parse_result},
    [CR_ARB_DRAW_OFFER] = {"draw-offer", parse_draw_offer},
    [CR_ARB_TAKE_BACK] = {"take-back", parse_take_back},
    [CR_ARB_PLAYERS] = {"players", parse_players},
    [CR_ARB_CLAIM] = {"claim", parse_claim},
    [CR_ARB_DECIDE] = {"decide", parse_decide},
    [CR_ARB_CONFIRM_FLAG] = {"confirm-flag", parse_confirm_flag},
    [CR_ARB_REPLACE_MOVE] = {"replace-move", parse_replace_move},
    [CR_ARB_ACK] = {"ack", parse_ack},
};

const char *cr_arbiter_action_name(cr_arbiter_action a)
{
    return (unsigned)a < CR_ARB_ACTION_NB ? actions[a].name : "?";
}

static int parse_object(json_t *j, cr_arbiter_cmd *c, char *err, size_t es)
{
    json_t *game = json_object_get(j, "game");
    const char *action = json_string_value(json_object_get(j, "action"));
    /* Game 0 is the relay's own: only its standing alerts are acknowledged. */
    bool relay_ack = action && strcmp(action, "ack") == 0 && json_is_integer(game) &&
                     json_integer_value(game) == 0;
    if (!relay_ack && (!json_is_integer(game) || json_integer_value(game) <= 0 ||
                       json_integer_value(game) > 1000000000)) {
        return fail(err, es, "game: expected a game id (integer > 0; 0 only to ack a relay alert)");
    }
    c->game = (int)json_integer_value(game);
    if (!action) {
        return fail(err, es, "action: expected a string");
    }
    for (int i = 0; i < CR_ARB_ACTION_NB; i++) {
        if (strcmp(action, actions[i].name) == 0) {
            c->action = (cr_arbiter_action)i;
            return actions[i].parse(j, c, err, es);
        }
    }
    return fail(err, es,
                "action: expected result, draw-offer, take-back, players, claim, decide, "
                "confirm-flag, replace-move or ack");
}

int cr_arbiter_cmd_parse(const char *json, size_t len, cr_arbiter_cmd *out, char *err,
                         size_t err_size)
{
    if (!json || !out) {
        return fail(err, err_size, "no message");
    }
    memset(out, 0, sizeof *out);
    out->added_ms = -1;
    json_error_t jerr;
    json_t *j = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!j || !json_is_object(j)) {
        json_decref(j);
        return fail(err, err_size, "expected a JSON object");
    }
    int rc = parse_object(j, out, err, err_size);
    json_decref(j);
    return rc;
}
