/* chessrelay relay: the tournament file. */
#include "core/config.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/clock.h"
#include "cr/pairings.h"
#include "core/config_media.h"
#include "util/fileio.h"
#include "out/push.h"

cr_config *cr_config_new(void)
{
    cr_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) {
        return NULL;
    }
    strcpy(cfg->listen_host, "127.0.0.1");
    cfg->listen_port = 8080;
    cfg->fsync_ms = 100;
    cr_config_engine_defaults(&cfg->engine);
    return cfg;
}

void cr_config_engine_defaults(cr_config_engine *e)
{
    char *path = e->path;
    memset(e, 0, sizeof *e);
    e->path = path;
    e->processes = 1;
    e->threads = 1;
    e->hash_mb = 16;
    e->movetime_ms = 1000;
    e->multipv = 1;
    e->pgn_http = e->pgn_export = e->pgn_push = true;
    e->idle = true;
}

static void free_strv(char **v, int n)
{
    for (int i = 0; i < n; i++) {
        free(v[i]);
    }
    free(v);
}

void cr_config_free(cr_config *cfg)
{
    if (!cfg) {
        return;
    }
    free(cfg->tls_cert);
    free(cfg->tls_key);
    free(cfg->tokens);
    free_strv(cfg->origins, cfg->origin_count);
    free(cfg->trusted_proxies);
    free(cfg->state_dir);
    free(cfg->web_root);
    free_strv(cfg->feeds, cfg->feed_count);
    free_strv(cfg->devices, cfg->device_count);
    free(cfg->boards);
    free(cfg->pushes);
    free(cfg->round_tcs);
    free(cfg->export_dir);
    free(cfg->push_ca_file);
    free(cfg->pairings);
    free(cfg->engine.path);
    cr_config_media_free(cfg);
    free(cfg);
}

int cr_parse_listen(const char *s, char *host, size_t host_size, int *port)
{
    const char *colon = NULL;
    const char *h = s;
    size_t hlen = 0;
    if (s[0] == '[') {
        const char *close = strchr(s, ']');
        if (!close || close[1] != ':') {
            return CR_EINVAL;
        }
        h = s + 1;
        hlen = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr(s, ':');
        hlen = colon ? (size_t)(colon - s) : 0;
    }
    const char *p = colon ? colon + 1 : s;
    char *end;
    errno = 0;
    long v = strtol(p, &end, 10);
    if (*p == '\0' || *end != '\0' || errno || v < 0 || v > 65535 || hlen >= host_size) {
        return CR_EINVAL;
    }
    if (hlen) {
        memcpy(host, h, hlen);
        host[hlen] = '\0';
    } else {
        snprintf(host, host_size, "%s", "127.0.0.1");
    }
    *port = (int)v;
    return 0;
}

/*----- Reading with errors that name the field -----*/

typedef struct ctx {
    const char *name;
    const char *base;
    cr_error *err;
} ctx;

static int fail(ctx *c, const char *field, const char *what)
{
    return cr_error_set(c->err, CR_ECONFIG, 0, 0, "%s: %s: %s", c->name, field, what);
}

static char *resolve(ctx *c, const char *path)
{
    if (path[0] == '/' || !c->base || !c->base[0]) {
        return strdup(path);
    }
    size_t n = strlen(c->base) + strlen(path) + 2;
    char *s = malloc(n);
    if (s) {
        snprintf(s, n, "%s/%s", c->base, path);
    }
    return s;
}

static int get_str(ctx *c, json_t *v, const char *field, char *dst, size_t size)
{
    if (!json_is_string(v)) {
        return fail(c, field, "expected a string");
    }
    if (json_string_length(v) >= size) {
        char what[64];
        snprintf(what, sizeof what, "longer than %zu characters", size - 1);
        return fail(c, field, what);
    }
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

/* A time control is refused at start, not at the first game that uses it
 * (docs/venue.md). Returns true (err set) when `text` is not one. */
static bool bad_time_control(ctx *c, const char *field, const char *text)
{
    if (cr_time_control_parse(text, &(cr_time_control){0}, NULL) == 0) {
        return false;
    }
    char what[128];
    snprintf(what, sizeof what,
             "\"%.40s\" is not a time control (expected such as \"5400+30\", \"40/5400:1800+30\" or "
             "\"180d2\")",
             text);
    fail(c, field, what);
    return true;
}

/* "time_control": {"<round>": "<time control>", ..., "*": "<the others>"} */
static int get_round_tcs(ctx *c, json_t *v, cr_config *cfg)
{
    size_t n = json_object_size(v);
    cfg->round_tcs = calloc(n ? n : 1, sizeof *cfg->round_tcs);
    if (!cfg->round_tcs) {
        return fail(c, "time_control", "out of memory");
    }
    const char *round;
    json_t *tc;
    json_object_foreach(v, round, tc)
    {
        char field[64];
        snprintf(field, sizeof field, "time_control.%.40s", round);
        cr_config_round_tc *r = &cfg->round_tcs[cfg->round_tc_count];
        if (!round[0] || strlen(round) >= sizeof r->round) {
            return fail(c, field, "expected a round name (1 to 15 characters) or \"*\"");
        }
        int rc = get_str(c, tc, field, r->time_control, sizeof r->time_control);
        if (rc) {
            return rc;
        }
        if (bad_time_control(c, field, r->time_control)) {
            return CR_ECONFIG;
        }
        snprintf(r->round, sizeof r->round, "%s", round);
        cfg->round_tc_count++;
    }
    return 0;
}

/* "time_control": one for every round, or one per round. */
static int get_time_controls(ctx *c, json_t *v, cr_config *cfg)
{
    if (json_is_object(v)) {
        return get_round_tcs(c, v, cfg);
    }
    int rc = get_str(c, v, "time_control", cfg->time_control, sizeof cfg->time_control);
    return rc ? rc : bad_time_control(c, "time_control", cfg->time_control) ? CR_ECONFIG : 0;
}

static int get_int(ctx *c, json_t *v, const char *field, int lo, int hi, int *dst)
{
    if (!json_is_integer(v)) {
        return fail(c, field, "expected an integer");
    }
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) {
        char what[80];
        snprintf(what, sizeof what, "%lld is out of range %d..%d", (long long)x, lo, hi);
        return fail(c, field, what);
    }
    *dst = (int)x;
    return 0;
}

static int get_path(ctx *c, json_t *v, const char *field, char **dst)
{
    char tmp[4096];
    int rc = get_str(c, v, field, tmp, sizeof tmp);
    if (rc) {
        return rc;
    }
    if (!tmp[0]) {
        return fail(c, field, "empty path");
    }
    free(*dst);
    *dst = resolve(c, tmp);
    return *dst ? 0 : cr_error_set(c->err, CR_ENOMEM, 0, 0, "out of memory");
}

static int get_strv(ctx *c, json_t *v, const char *field, bool paths, char ***dst, int *count)
{
    if (!json_is_array(v)) {
        return fail(c, field, "expected an array of strings");
    }
    size_t n = json_array_size(v);
    *dst = calloc(n ? n : 1, sizeof **dst);
    if (!*dst) {
        return cr_error_set(c->err, CR_ENOMEM, 0, 0, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        char f[96];
        snprintf(f, sizeof f, "%s[%zu]", field, i);
        json_t *e = json_array_get(v, i);
        int rc;
        if (paths) {
            rc = get_path(c, e, f, &(*dst)[i]);
        } else if (!json_is_string(e)) {
            rc = fail(c, f, "expected a string");
        } else {
            (*dst)[i] = strdup(json_string_value(e));
            rc = (*dst)[i] ? 0 : CR_ENOMEM;
        }
        if (rc) {
            return rc;
        }
        *count = (int)i + 1;
    }
    return 0;
}

/* An object's fields, each handed to field() with its name for errors
 * ("limits.idle_s"); a field it does not know is its to refuse. `expect`
 * says what the object should look like when it is none. */
typedef int (*field_fn)(ctx *c, const char *key, json_t *v, const char *f, void *data);

static int read_object(ctx *c, json_t *o, const char *name, const char *expect, field_fn field,
                       void *data)
{
    if (!json_is_object(o)) {
        return fail(c, name, expect);
    }
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        char f[112];
        snprintf(f, sizeof f, "%s.%.64s", name, key);
        int rc = field(c, key, v, f, data);
        if (rc) {
            return rc;
        }
    }
    return 0;
}

static int read_board(ctx *c, json_t *o, size_t index, cr_config_board *b)
{
    char base[32], f[64];
    snprintf(base, sizeof base, "boards[%zu]", index);
    if (!json_is_object(o)) {
        return fail(c, base, "expected an object");
    }
    memset(b, 0, sizeof *b);
    strcpy(b->round, "1");
    const char *key;
    json_t *v;
    int rc = 0;
    json_object_foreach(o, key, v)
    {
        snprintf(f, sizeof f, "%s.%s", base, key);
        if (strcmp(key, "board") == 0) {
            rc = get_str(c, v, f, b->board, sizeof b->board);
            if (!rc) {
                for (const char *p = b->board; *p; p++) {
                    if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", *p)) {
                        return fail(c, f, "a board id has only letters, digits, '.', '_' and '-'");
                    }
                }
                if (!b->board[0]) {
                    return fail(c, f, "empty board id");
                }
            }
        } else if (strcmp(key, "table") == 0) {
            rc = get_int(c, v, f, 1, 100000, &b->table);
        } else if (strcmp(key, "round") == 0) {
            if (json_is_integer(v)) {
                int r;
                rc = get_int(c, v, f, 0, 10000, &r);
                snprintf(b->round, sizeof b->round, "%d", r);
            } else {
                rc = get_str(c, v, f, b->round, sizeof b->round);
            }
        } else if (strcmp(key, "game") == 0) {
            rc = get_int(c, v, f, 1, 100000, &b->game);
        } else if (strcmp(key, "white") == 0) {
            rc = get_str(c, v, f, b->white, sizeof b->white);
        } else if (strcmp(key, "black") == 0) {
            rc = get_str(c, v, f, b->black, sizeof b->black);
        } else if (strcmp(key, "white_elo") == 0) {
            rc = get_int(c, v, f, 0, 4000, &b->white_elo);
        } else if (strcmp(key, "black_elo") == 0) {
            rc = get_int(c, v, f, 0, 4000, &b->black_elo);
        } else if (strcmp(key, "white_title") == 0) {
            rc = get_str(c, v, f, b->white_title, sizeof b->white_title);
        } else if (strcmp(key, "black_title") == 0) {
            rc = get_str(c, v, f, b->black_title, sizeof b->black_title);
        } else if (strcmp(key, "white_fed") == 0) {
            rc = get_str(c, v, f, b->white_fed, sizeof b->white_fed);
        } else if (strcmp(key, "black_fed") == 0) {
            rc = get_str(c, v, f, b->black_fed, sizeof b->black_fed);
        } else {
            return fail(c, f, "unknown field");
        }
        if (rc) {
            return rc;
        }
    }
    if (!b->board[0] && !b->table) {
        return fail(c, base, "needs \"board\" (serial) or \"table\"");
    }
    return 0;
}

/* "limits": {"connections": N, "per_address": N, "idle_s": N,
 * "token_checks": N}. */
static int limits_field(ctx *c, const char *key, json_t *v, const char *f, void *data)
{
    cr_config *cfg = data;
    if (strcmp(key, "connections") == 0) {
        return get_int(c, v, f, 1, 1000000, &cfg->max_connections);
    }
    if (strcmp(key, "per_address") == 0) {
        return get_int(c, v, f, 1, 1000000, &cfg->max_connections_per_address);
    }
    if (strcmp(key, "idle_s") == 0) {
        return get_int(c, v, f, 1, 3600, &cfg->idle_s);
    }
    if (strcmp(key, "token_checks") == 0) {
        return get_int(c, v, f, 1, 100000, &cfg->token_checks);
    }
    return fail(c, f, "unknown field");
}

static int read_limits(ctx *c, json_t *o, cr_config *cfg)
{
    return read_object(c, o, "limits", "expected an object", limits_field, cfg);
}

/* "livechess": true (127.0.0.1:1982), false, or {"listen": "HOST:PORT"}
 * (a port alone listens on 127.0.0.1: another address only when written). */
static int livechess_field(ctx *c, const char *key, json_t *x, const char *f, void *data)
{
    cr_config *cfg = data;
    char tmp[160];
    int rc;
    if (strcmp(key, "listen") != 0) {
        rc = fail(c, f, "unknown field");
    } else if ((rc = get_str(c, x, f, tmp, sizeof tmp)) == 0 &&
               cr_parse_listen(tmp, cfg->livechess_host, sizeof cfg->livechess_host,
                               &cfg->livechess_port)) {
        rc = fail(c, f, "expected \"HOST:PORT\" (e.g. \"127.0.0.1:1982\")");
    }
    return rc;
}

static int read_livechess(ctx *c, json_t *v, cr_config *cfg)
{
    snprintf(cfg->livechess_host, sizeof cfg->livechess_host, "127.0.0.1");
    cfg->livechess_port = CR_LIVECHESS_PORT;
    if (json_is_boolean(v)) {
        cfg->livechess = json_is_true(v);
        return 0;
    }
    int rc = read_object(c, v, "livechess", "expected true, false or {\"listen\": \"HOST:PORT\"}",
                         livechess_field, cfg);
    if (rc) {
        return rc;
    }
    cfg->livechess = true;
    return 0;
}

/* "trusted_proxies": ["127.0.0.1", "10.0.0.0/8", "fd00::/8"]. */
static int read_proxies(ctx *c, json_t *v, cr_config *cfg)
{
    if (!json_is_array(v)) {
        return fail(c, "trusted_proxies", "expected an array of addresses or CIDR ranges");
    }
    cfg->trusted_proxies = calloc(json_array_size(v) + 1, sizeof *cfg->trusted_proxies);
    if (!cfg->trusted_proxies) {
        return cr_error_set(c->err, CR_ENOMEM, 0, 0, "out of memory");
    }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        char f[48];
        snprintf(f, sizeof f, "trusted_proxies[%zu]", i);
        const char *s = json_string_value(e);
        if (!s || !cr_addr_range_parse(s, &cfg->trusted_proxies[i])) {
            return fail(c, f, "expected an IP address or a CIDR range such as \"10.0.0.0/8\" "
                              "(no bits set past the prefix)");
        }
        cfg->trusted_proxy_count = (int)i + 1;
    }
    return 0;
}

/* A token's "agents" or "boards": an array of ids. */
static int read_token_ids(ctx *c, json_t *v, const char *f, cr_config_token *t, bool agents)
{
    size_t max = agents ? CR_TOKEN_AGENTS_MAX : CR_TOKEN_BOARDS_MAX;
    if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > max) {
        char why[64];
        snprintf(why, sizeof why, "expected an array of 1 to %zu ids", max);
        return fail(c, f, why);
    }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        const char *s = json_string_value(e);
        /* Agent and board ids have the same alphabet and length. */
        if (!s || !cr_feed_board_id_valid(s, strlen(s))) {
            return fail(c, f, "expected ids of 1..64 of A-Z a-z 0-9 . _ -");
        }
        if (agents) {
            snprintf(t->agents[t->agent_count++], sizeof t->agents[0], "%s", s);
        } else {
            snprintf(t->boards[t->board_count++], sizeof t->boards[0], "%s", s);
        }
    }
    return 0;
}

static int read_token(ctx *c, json_t *o, size_t index, cr_config_token *t)
{
    char base[32], f[64];
    snprintf(base, sizeof base, "tokens[%zu]", index);
    if (!json_is_object(o)) {
        return fail(c, base, "expected an object");
    }
    memset(t, 0, sizeof *t);
    strcpy(t->role, "arbiter");
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        snprintf(f, sizeof f, "%s.%s", base, key);
        int rc;
        if (strcmp(key, "name") == 0) {
            rc = get_str(c, v, f, t->name, sizeof t->name);
        } else if (strcmp(key, "role") == 0) {
            rc = get_str(c, v, f, t->role, sizeof t->role);
            if (!rc && strcmp(t->role, "arbiter") && strcmp(t->role, "agent")) {
                rc = fail(c, f, "expected \"arbiter\" or \"agent\"");
            }
        } else if (strcmp(key, "token") == 0) {
            rc = get_str(c, v, f, t->token, sizeof t->token);
            if (!rc && cr_config_token_problem(t->token)) {
                rc = fail(c, f, cr_config_token_problem(t->token));
            }
        } else if (strcmp(key, "agents") == 0 || strcmp(key, "boards") == 0) {
            rc = read_token_ids(c, v, f, t, key[0] == 'a');
        } else {
            rc = fail(c, f, "unknown field");
        }
        if (rc) {
            return rc;
        }
    }
    if (!t->token[0]) {
        snprintf(f, sizeof f, "%s.token", base);
        return fail(c, f, "missing");
    }
    return 0;
}

/* A token has one role and one scope: the same token twice (say as arbiter
 * and as agent) would act as whichever comes first. */
static int token_twice(ctx *c, const cr_config *cfg, size_t i)
{
    for (size_t j = 0; j < i; j++) {
        if (strcmp(cfg->tokens[j].token, cfg->tokens[i].token) == 0) {
            char f[48], what[96];
            snprintf(f, sizeof f, "tokens[%zu].token", i);
            snprintf(what, sizeof what, "the same token as tokens[%zu] (give each role its own token)", j);
            return fail(c, f, what);
        }
    }
    return 0;
}

/* One "push" entry: {"round": "1", "url": "...", "token": "..."}. */
static int read_push(ctx *c, json_t *o, size_t index, cr_config *cfg)
{
    char base[32], f[64];
    snprintf(base, sizeof base, "push[%zu]", index);
    if (!json_is_object(o)) {
        return fail(c, base, "expected an object with \"round\", \"url\" and \"token\"");
    }
    cr_config_push *p = &cfg->pushes[index];
    memset(p, 0, sizeof *p);
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v)
    {
        snprintf(f, sizeof f, "%s.%s", base, key);
        int rc;
        if (strcmp(key, "round") == 0) {
            if (json_is_integer(v)) {
                int r;
                rc = get_int(c, v, f, 1, 10000, &r);
                snprintf(p->round, sizeof p->round, "%d", r);
            } else {
                rc = get_str(c, v, f, p->round, sizeof p->round);
            }
        } else if (strcmp(key, "url") == 0) {
            char why[160];
            rc = get_str(c, v, f, p->url, sizeof p->url);
            if (!rc && cr_pusher_check_url(p->url, why, sizeof why)) {
                rc = fail(c, f, why);
            }
        } else if (strcmp(key, "token") == 0) {
            rc = get_str(c, v, f, p->token, sizeof p->token);
        } else {
            rc = fail(c, f, "unknown field");
        }
        if (rc) {
            return rc;
        }
    }
    if (!p->round[0] || !p->url[0]) {
        snprintf(f, sizeof f, "%s.%s", base, p->round[0] ? "url" : "round");
        return fail(c, f, "missing");
    }
    for (size_t i = 0; i < index; i++) {
        if (strcmp(cfg->pushes[i].round, p->round) == 0) {
            snprintf(f, sizeof f, "%s.round", base);
            return fail(c, f, "this round already has a push entry");
        }
    }
    return 0;
}

/* "pairings": "file" or {"file": "...", "round": 5, "format": "trf"}. */
static int pairings_field(ctx *c, const char *key, json_t *x, const char *f, void *data)
{
    cr_config *cfg = data;
    if (strcmp(key, "file") == 0) {
        return get_path(c, x, f, &cfg->pairings);
    }
    if (strcmp(key, "round") == 0) {
        return get_int(c, x, f, 1, 10000, &cfg->pairings_round);
    }
    if (strcmp(key, "format") == 0) {
        char fmt[8];
        int rc = get_str(c, x, f, fmt, sizeof fmt);
        if (!rc && cr_config_pairings_format(fmt, &cfg->pairings_format)) {
            rc = fail(c, f, "expected \"trf\", \"pgn\" or \"auto\"");
        }
        return rc;
    }
    return fail(c, f, "unknown field");
}

static int read_pairings(ctx *c, json_t *v, cr_config *cfg)
{
    if (json_is_string(v)) {
        return get_path(c, v, "pairings", &cfg->pairings);
    }
    int rc = read_object(c, v, "pairings", "expected a file name or {\"file\", \"round\", \"format\"}",
                         pairings_field, cfg);
    if (rc) {
        return rc;
    }
    if (!cfg->pairings) {
        return fail(c, "pairings.file", "missing");
    }
    return 0;
}

/* "incidents": {"press-without-move": true, "move-without-press": true}: the
 * incidents the board and the clock reveal, each switched on by name (issue 29). */
static int get_bool(ctx *c, json_t *v, const char *field, bool *dst)
{
    if (!json_is_boolean(v)) {
        return fail(c, field, "expected true or false");
    }
    *dst = json_is_true(v);
    return 0;
}

static int incidents_field(ctx *c, const char *k, json_t *x, const char *f, void *data)
{
    cr_config *cfg = data;
    bool *on = strcmp(k, "press-without-move") == 0   ? &cfg->press_without_move
               : strcmp(k, "move-without-press") == 0 ? &cfg->move_without_press
               : strcmp(k, "time-added") == 0         ? &cfg->time_added
                                                      : NULL;
    if (!on) {
        return fail(c, f, "unknown incident (press-without-move, move-without-press, time-added)");
    }
    return get_bool(c, x, f, on);
}

static int read_incidents(ctx *c, json_t *v, cr_config *cfg)
{
    return read_object(c, v, "incidents", "expected an object such as {\"press-without-move\": true}",
                       incidents_field, cfg);
}

/* "pgn": {"marks": true|false}: the words of uncertainty in every PGN. */
static int pgn_field(ctx *c, const char *k, json_t *x, const char *f, void *data)
{
    cr_config *cfg = data;
    bool marks = !cfg->pgn_bare;
    if (strcmp(k, "marks") != 0) {
        return fail(c, f, "unknown field");
    }
    int rc = get_bool(c, x, f, &marks);
    if (!rc) {
        cfg->pgn_bare = !marks;
    }
    return rc;
}

static int read_pgn(ctx *c, json_t *v, cr_config *cfg)
{
    return read_object(c, v, "pgn", "expected an object such as {\"marks\": false}", pgn_field, cfg);
}

/* "engine": {"path", "processes", "threads", "hash_mb", "movetime_ms" or
 * "depth", "multipv", "pgn", "alerts", "live", "idle"}. */
static int read_engine(ctx *c, json_t *v, cr_config_engine *e)
{
    if (!json_is_object(v)) {
        return fail(c, "engine", "expected an object with \"path\"");
    }
    const char *key;
    json_t *x;
    bool movetime = false;
    json_object_foreach(v, key, x)
    {
        char f[64];
        snprintf(f, sizeof f, "engine.%s", key);
        int rc;
        if (strcmp(key, "path") == 0) {
            char tmp[4096];
            rc = get_str(c, x, f, tmp, sizeof tmp);
            if (!rc && !tmp[0]) {
                rc = fail(c, f, "empty path");
            }
            if (!rc) { /* a bare name is looked up in $PATH, a path is relative to the file */
                free(e->path);
                e->path = strchr(tmp, '/') ? resolve(c, tmp) : strdup(tmp);
                rc = e->path ? 0 : cr_error_set(c->err, CR_ENOMEM, 0, 0, "out of memory");
            }
        } else if (strcmp(key, "processes") == 0) {
            rc = get_int(c, x, f, 1, 64, &e->processes);
        } else if (strcmp(key, "threads") == 0) {
            rc = get_int(c, x, f, 1, 256, &e->threads);
        } else if (strcmp(key, "hash_mb") == 0) {
            rc = get_int(c, x, f, 1, 65536, &e->hash_mb);
        } else if (strcmp(key, "movetime_ms") == 0) {
            rc = get_int(c, x, f, 10, 600000, &e->movetime_ms);
            movetime = true;
        } else if (strcmp(key, "depth") == 0) {
            rc = get_int(c, x, f, 1, 100, &e->depth);
        } else if (strcmp(key, "multipv") == 0) {
            rc = get_int(c, x, f, 1, 5, &e->multipv); /* the lines kept: CR_EVAL_LINES_MAX */
        } else if (strcmp(key, "pgn") == 0) {
            rc = json_is_array(x)
                     ? 0
                     : fail(c, f, "expected an array of \"http\", \"export\", \"push\"");
            e->pgn_http = e->pgn_export = e->pgn_push = false;
            for (size_t i = 0; !rc && i < json_array_size(x); i++) {
                const char *o = json_string_value(json_array_get(x, i));
                if (o && strcmp(o, "http") == 0) {
                    e->pgn_http = true;
                } else if (o && strcmp(o, "export") == 0) {
                    e->pgn_export = true;
                } else if (o && strcmp(o, "push") == 0) {
                    e->pgn_push = true;
                } else {
                    rc = fail(c, f, "expected \"http\", \"export\" or \"push\"");
                }
            }
        } else if (strcmp(key, "live") == 0) {
            rc = json_is_boolean(x) ? 0 : fail(c, f, "expected true or false");
            e->live = json_is_true(x);
        } else if (strcmp(key, "idle") == 0) {
            rc = json_is_boolean(x) ? 0 : fail(c, f, "expected true or false");
            e->idle = json_is_true(x);
        } else if (strcmp(key, "alerts") == 0) {
            rc = 0;
            if (json_is_boolean(x)) {
                e->mistake_cp = json_is_true(x) ? 150 : 0;
                e->blunder_cp = json_is_true(x) ? 300 : 0;
            } else if (json_is_object(x)) {
                e->mistake_cp = 150;
                e->blunder_cp = 300;
                const char *k2;
                json_t *x2;
                json_object_foreach(x, k2, x2)
                {
                    char f2[80];
                    snprintf(f2, sizeof f2, "engine.alerts.%s", k2);
                    if (strcmp(k2, "mistake_cp") == 0) {
                        rc = get_int(c, x2, f2, 10, 10000, &e->mistake_cp);
                    } else if (strcmp(k2, "blunder_cp") == 0) {
                        rc = get_int(c, x2, f2, 10, 10000, &e->blunder_cp);
                    } else {
                        rc = fail(c, f2, "unknown field");
                    }
                    if (rc) {
                        return rc;
                    }
                }
            } else {
                rc = fail(c, f, "expected true, false or {\"mistake_cp\", \"blunder_cp\"}");
            }
        } else {
            rc = fail(c, f, "unknown field");
        }
        if (rc) {
            return rc;
        }
    }
    if (!e->path) {
        return fail(c, "engine.path", "missing");
    }
    if (e->depth && !movetime) {
        e->movetime_ms = 0; /* "depth" alone: to that depth */
    }
    return 0;
}

int cr_config_pairings_format(const char *name, int *format)
{
    if (strcmp(name, "auto") == 0) {
        *format = CR_PAIRINGS_AUTO;
    } else if (strcmp(name, "trf") == 0) {
        *format = CR_PAIRINGS_TRF;
    } else if (strcmp(name, "pgn") == 0) {
        *format = CR_PAIRINGS_PGN;
    } else {
        return CR_EINVAL;
    }
    return 0;
}

static int read_root(ctx *c, json_t *root, cr_config *cfg)
{
    if (!json_is_object(root)) {
        return fail(c, "tournament", "expected an object");
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        int rc = 0;
        if (strcmp(key, "event") == 0) {
            rc = get_str(c, v, key, cfg->event, sizeof cfg->event);
        } else if (strcmp(key, "site") == 0) {
            rc = get_str(c, v, key, cfg->site, sizeof cfg->site);
        } else if (strcmp(key, "date") == 0) {
            rc = get_str(c, v, key, cfg->date, sizeof cfg->date);
        } else if (strcmp(key, "rounds") == 0) {
            rc = get_int(c, v, key, 1, 1000, &cfg->rounds);
        } else if (strcmp(key, "time_control") == 0) {
            rc = get_time_controls(c, v, cfg);
        } else if (strcmp(key, "delay_minutes") == 0) {
            int m;
            rc = get_int(c, v, key, 0, 24 * 60, &m);
            cfg->delay_s = m * 60;
        } else if (strcmp(key, "delay_seconds") == 0) {
            rc = get_int(c, v, key, 0, 24 * 3600, &cfg->delay_s);
        } else if (strcmp(key, "listen") == 0) {
            char tmp[160];
            rc = get_str(c, v, key, tmp, sizeof tmp);
            if (!rc && cr_parse_listen(tmp, cfg->listen_host, sizeof cfg->listen_host,
                                       &cfg->listen_port)) {
                rc = fail(c, key, "expected \"HOST:PORT\"");
            }
        } else if (strcmp(key, "tls") == 0) {
            if (!json_is_object(v)) {
                rc = fail(c, key, "expected an object with \"cert\" and \"key\"");
            } else {
                const char *k2;
                json_t *v2;
                json_object_foreach(v, k2, v2)
                {
                    char f[32];
                    snprintf(f, sizeof f, "tls.%s", k2);
                    if (strcmp(k2, "cert") == 0) {
                        rc = get_path(c, v2, f, &cfg->tls_cert);
                    } else if (strcmp(k2, "key") == 0) {
                        rc = get_path(c, v2, f, &cfg->tls_key);
                    } else {
                        rc = fail(c, f, "unknown field");
                    }
                    if (rc) {
                        return rc;
                    }
                }
                if (!cfg->tls_cert || !cfg->tls_key) {
                    rc = fail(c, cfg->tls_cert ? "tls.key" : "tls.cert", "missing");
                }
            }
        } else if (strcmp(key, "tokens") == 0) {
            if (!json_is_array(v)) {
                rc = fail(c, key, "expected an array");
            } else {
                cfg->tokens = calloc(json_array_size(v) + 1, sizeof *cfg->tokens);
                if (!cfg->tokens) {
                    return cr_error_set(c->err, CR_ENOMEM, 0, 0, "out of memory");
                }
                for (size_t i = 0; i < json_array_size(v) && !rc; i++) {
                    rc = read_token(c, json_array_get(v, i), i, &cfg->tokens[i]);
                    cfg->token_count = (int)i + 1;
                    rc = rc ? rc : token_twice(c, cfg, i);
                }
            }
        } else if (strcmp(key, "origins") == 0) {
            rc = get_strv(c, v, key, false, &cfg->origins, &cfg->origin_count);
        } else if (strcmp(key, "trusted_proxies") == 0) {
            rc = read_proxies(c, v, cfg);
        } else if (strcmp(key, "state_dir") == 0) {
            rc = get_path(c, v, key, &cfg->state_dir);
        } else if (strcmp(key, "web_root") == 0) {
            rc = get_path(c, v, key, &cfg->web_root);
        } else if (strcmp(key, "fsync_ms") == 0) {
            rc = get_int(c, v, key, 1, 60000, &cfg->fsync_ms);
        } else if (strcmp(key, "limits") == 0) {
            rc = read_limits(c, v, cfg);
        } else if (strcmp(key, "feeds") == 0) {
            rc = get_strv(c, v, key, true, &cfg->feeds, &cfg->feed_count);
        } else if (strcmp(key, "devices") == 0) {
            rc = get_strv(c, v, key, false, &cfg->devices, &cfg->device_count);
        } else if (strcmp(key, "usb") == 0) {
            if (!json_is_boolean(v)) {
                rc = fail(c, key, "expected true or false");
            } else {
                cfg->usb = json_is_true(v);
            }
        } else if (strcmp(key, "push") == 0) {
            if (!json_is_array(v)) {
                rc = fail(c, key, "expected an array of {\"round\", \"url\", \"token\"}");
            } else {
                cfg->pushes = calloc(json_array_size(v) + 1, sizeof *cfg->pushes);
                if (!cfg->pushes) {
                    return cr_error_set(c->err, CR_ENOMEM, 0, 0, "out of memory");
                }
                for (size_t i = 0; i < json_array_size(v) && !rc; i++) {
                    rc = read_push(c, json_array_get(v, i), i, cfg);
                    cfg->push_count = (int)i + 1;
                }
            }
        } else if (strcmp(key, "export_dir") == 0) {
            rc = get_path(c, v, key, &cfg->export_dir);
        } else if (strcmp(key, "push_ca_file") == 0) {
            rc = get_path(c, v, key, &cfg->push_ca_file);
            FILE *ca = rc ? NULL : fopen(cfg->push_ca_file, "r");
            if (!rc && !ca) {
                char why[4200];
                snprintf(why, sizeof why, "cannot read %s: %s", cfg->push_ca_file, strerror(errno));
                rc = fail(c, key, why);
            }
            if (ca) {
                fclose(ca);
            }
        } else if (strcmp(key, "pgn") == 0 || strcmp(key, "incidents") == 0) {
            rc = *key == 'p' ? read_pgn(c, v, cfg) : read_incidents(c, v, cfg);
        } else if (strcmp(key, "livechess") == 0) {
            rc = read_livechess(c, v, cfg);
        } else if (strcmp(key, "pairings") == 0) {
            rc = read_pairings(c, v, cfg);
        } else if (strcmp(key, "engine") == 0) {
            rc = read_engine(c, v, &cfg->engine);
        } else if (strcmp(key, "boards") == 0) {
            if (!json_is_array(v)) {
                rc = fail(c, key, "expected an array");
            } else {
                cfg->boards = calloc(json_array_size(v) + 1, sizeof *cfg->boards);
                if (!cfg->boards) {
                    return cr_error_set(c->err, CR_ENOMEM, 0, 0, "out of memory");
                }
                for (size_t i = 0; i < json_array_size(v) && !rc; i++) {
                    rc = read_board(c, json_array_get(v, i), i, &cfg->boards[i]);
                    cfg->board_count = (int)i + 1;
                }
            }
        } else { /* "streams", "players", else an unknown field (config_media.h) */
            rc = cr_config_read_media(key, v, cfg, c->name, c->base, c->err);
        }
        if (rc) {
            return rc;
        }
    }
    return 0;
}

cr_config *cr_config_parse(const char *text, const char *name, const char *base_dir,
                           cr_error *err)
{
    cr_error_clear(err);
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        cr_error_set(err, CR_ECONFIG, jerr.line, jerr.column, "%s:%d:%d: %s", name, jerr.line,
                     jerr.column, jerr.text);
        return NULL;
    }
    cr_config *cfg = cr_config_new();
    ctx c = {name, base_dir, err};
    if (!cfg || read_root(&c, root, cfg)) {
        if (!cfg) {
            cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        }
        cr_config_free(cfg);
        cfg = NULL;
    }
    json_decref(root);
    return cfg;
}

cr_config *cr_config_load(const char *path, cr_error *err)
{
    char *text = NULL;
    size_t len = 0;
    if (cr_read_file(path, 64u << 20, &text, &len, err)) {
        return NULL;
    }
    if (strlen(text) != len) {
        free(text);
        cr_error_set(err, CR_ECONFIG, 0, 0, "%s: contains a NUL byte", path);
        return NULL;
    }
    char *base = strdup(path);
    char *slash = base ? strrchr(base, '/') : NULL;
    if (slash) {
        *slash = '\0';
    } else if (base) {
        base[0] = '\0';
    }
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    cr_config *cfg = cr_config_parse(text, name, base, err);
    free(text);
    free(base);
    return cfg;
}

const cr_config_board *cr_config_board_for(const cr_config *cfg, const char *board_id, int n)
{
    /* Serial numbers first: a board named by serial wins over a table number. */
    for (int pass = 0; pass < 2; pass++) {
        int seen = 0;
        for (int i = 0; i < cfg->board_count; i++) {
            const cr_config_board *b = &cfg->boards[i];
            bool match;
            if (pass == 0) {
                match = b->board[0] && strcmp(b->board, board_id) == 0;
            } else {
                char num[16];
                snprintf(num, sizeof num, "%d", b->table);
                match = !b->board[0] && b->table && strcmp(num, board_id) == 0;
            }
            if (match && seen++ == n) {
                return b;
            }
        }
        if (seen) {
            return NULL;
        }
    }
    return NULL;
}

bool cr_secret_equal(const char *given, const char *secret)
{
    size_t n = strlen(secret), g = strlen(given);
    unsigned char diff = (unsigned char)(n != g);
    for (size_t i = 0; i < n; i++) {
        /* Reads `given` cyclically so that the time does not depend on it. */
        unsigned char c = g ? (unsigned char)given[i % g] : 0;
        diff |= (unsigned char)(c ^ (unsigned char)secret[i]);
    }
    return diff == 0;
}

const cr_config_token *cr_config_find_token(const cr_config *cfg, const char *token)
{
    const cr_config_token *found = NULL;
    if (!token || !token[0]) {
        return NULL;
    }
    for (int i = 0; i < cfg->token_count; i++) {
        if (cr_secret_equal(token, cfg->tokens[i].token) && !found) {
            found = &cfg->tokens[i];
        }
    }
    return found;
}

const char *cr_config_check_token(const cr_config *cfg, const char *token)
{
    const cr_config_token *t = cr_config_find_token(cfg, token);
    return t ? t->role : NULL;
}

/* Agent and board ids have the same length limit: one list type. */
static bool listed(const char *s, const char (*list)[CR_BOARD_ID_MAX + 1], int count)
{
    for (int i = 0; i < count; i++) {
        if (strcmp(s, list[i]) == 0) {
            return true;
        }
    }
    return false;
}

bool cr_config_token_allows_agent(const cr_config_token *t, const char *agent)
{
    return !t || !t->agent_count || listed(agent, t->agents, t->agent_count);
}

bool cr_config_token_allows_board(const cr_config_token *t, const char *board)
{
    return !t || !t->board_count ||
           listed(board, t->boards, t->board_count);
}

bool cr_config_board_allowed(const cr_config *cfg, const cr_config_token *t, const char *board)
{
    if (t && t->board_count) {
        return listed(board, t->boards, t->board_count);
    }
    /* Unscoped: any board but those the file reserves for another token. */
    for (int i = 0; cfg && i < cfg->token_count; i++) {
        const cr_config_token *u = &cfg->tokens[i];
        if (strcmp(u->role, "agent") == 0 && u->board_count && (!t || strcmp(u->token, t->token)) &&
            listed(board, u->boards, u->board_count)) {
            return false;
        }
    }
    return true;
}

const char *cr_config_token_problem(const char *token)
{
    size_t n = token ? strlen(token) : 0;
    if (n < CR_TOKEN_MIN) {
        return n ? "too short (at least 8 characters)" : "empty";
    }
    if (n >= sizeof ((cr_config_token *)0)->token) {
        return "too long (at most 255 characters)";
    }
    return NULL;
}

/* One ",ID,ID" list of --agent-token's scope (n bytes at s) into ids. */
static int scope_ids(const char *key, const char *s, size_t n, char (*ids)[CR_BOARD_ID_MAX + 1],
                     int max, int *count, char *why, size_t size)
{
    if (*count) {
        snprintf(why, size, "%s= given twice", key);
        return CR_EINVAL;
    }
    const char *end = s + n;
    while (true) {
        const char *comma = memchr(s, ',', (size_t)(end - s));
        const char *e = comma ? comma : end;
        if (!cr_feed_board_id_valid(s, (size_t)(e - s))) {
            snprintf(why, size, "%s=: \"%.*s\" is not an id (1..64 of A-Z a-z 0-9 . _ -)", key,
                     (int)(e - s > 70 ? 70 : e - s), s);
            return CR_EINVAL;
        }
        if (*count == max) {
            snprintf(why, size, "%s=: more than %d ids", key, max);
            return CR_EINVAL;
        }
        snprintf(ids[(*count)++], sizeof ids[0], "%.*s", (int)(e - s), s);
        if (!comma) {
            return 0;
        }
        s = comma + 1;
    }
}

int cr_config_parse_agent_token(const char *arg, cr_config_token *out, char *why, size_t size)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "--agent-token");
    snprintf(out->role, sizeof out->role, "agent");
    /* The scope starts at the first colon followed by a word and "=" (so a
     * misspelt key is an error, not part of the token). */
    const char *scope = NULL;
    for (const char *c = strchr(arg, ':'); c && !scope; c = strchr(c + 1, ':')) {
        size_t w = strspn(c + 1, "abcdefghijklmnopqrstuvwxyz");
        scope = w && c[1 + w] == '=' ? c : NULL;
    }
    size_t tn = scope ? (size_t)(scope - arg) : strlen(arg);
    if (tn >= sizeof out->token) {
        snprintf(why, size, "the token: too long (at most 255 characters)");
        return CR_EINVAL;
    }
    memcpy(out->token, arg, tn);
    if (cr_config_token_problem(out->token)) {
        snprintf(why, size, "the token: %s", cr_config_token_problem(out->token));
        return CR_EINVAL;
    }
    while (scope && *scope) {
        const char *part = scope + 1;
        const char *next = strchr(part, ':');
        size_t n = next ? (size_t)(next - part) : strlen(part);
        int rc;
        if (strncmp(part, "agents=", 7) == 0) {
            rc = scope_ids("agents", part + 7, n - 7, out->agents, CR_TOKEN_AGENTS_MAX,
                           &out->agent_count, why, size);
        } else if (strncmp(part, "boards=", 7) == 0) {
            rc = scope_ids("boards", part + 7, n - 7, out->boards, CR_TOKEN_BOARDS_MAX,
                           &out->board_count, why, size);
        } else {
            snprintf(why, size, "\"%.*s\": expected agents=ID,... or boards=ID,... after a colon",
                     (int)(n > 70 ? 70 : n), part);
            rc = CR_EINVAL;
        }
        if (rc) {
            return rc;
        }
        scope = next;
    }
    return 0;
}

int cr_config_add_token_entry(cr_config *cfg, const cr_config_token *entry)
{
    if (cr_config_token_problem(entry->token)) {
        return CR_EINVAL;
    }
    for (int i = 0; i < cfg->token_count; i++) {
        if (strcmp(cfg->tokens[i].token, entry->token) == 0) {
            return CR_ECONFIG;
        }
    }
    cr_config_token *t = realloc(cfg->tokens, (size_t)(cfg->token_count + 1) * sizeof *t);
    if (!t) {
        return CR_ENOMEM;
    }
    cfg->tokens = t;
    t[cfg->token_count++] = *entry;
    return 0;
}

int cr_config_add_token(cr_config *cfg, const char *name, const char *role, const char *token)
{
    if (cr_config_token_problem(token)) {
        return CR_EINVAL;
    }
    cr_config_token t;
    memset(&t, 0, sizeof t);
    snprintf(t.name, sizeof t.name, "%s", name);
    snprintf(t.role, sizeof t.role, "%s", role);
    snprintf(t.token, sizeof t.token, "%s", token);
    return cr_config_add_token_entry(cfg, &t);
}

const char *cr_config_time_control(const cr_config *cfg, const char *round)
{
    if (!cfg) {
        return NULL;
    }
    const char *any = NULL;
    for (int i = 0; i < cfg->round_tc_count; i++) {
        if (round && strcmp(cfg->round_tcs[i].round, round) == 0) {
            return cfg->round_tcs[i].time_control;
        }
        if (strcmp(cfg->round_tcs[i].round, "*") == 0) {
            any = cfg->round_tcs[i].time_control;
        }
    }
    return any ? any : cfg->time_control[0] ? cfg->time_control : NULL;
}
