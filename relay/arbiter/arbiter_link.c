/* chessrelay relay: arbiter monitoring in the relay. */
#include "arbiter/arbiter_link.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/verdicts.h"
#include "util/fileio.h"
#include "util/grow.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/seal_head.h"
#include "util/sealed_file.h"
#include "util/sign.h"

#define LOG_NAME "incidents.log"

enum { STATE_EVERY_MS = 1000 }; /* the snapshot's clocks at least this fresh */

typedef struct arb_game {
    int id;
    char board[CR_BOARD_ID_MAX + 1];
    char round[CR_ROUND_MAX];
    int table;
    cr_verdict *v;  /* the result rules (core/verdicts.h): the monitor over its own game */
    cr_game *game;  /* the three borrowed from v */
    cr_clock *clock;
    cr_monitor *mon;
    int published;   /* incidents journaled and published so far */
    bool push_due;   /* the monitor ended the game: tell the store at the next tick */
    cr_monitor_state last; /* at the last state check, clock fields zeroed */
    char *state_key; /* last published state, without the clock times */
} arb_game;

/* An alert an arbiter acknowledged: shared by every dashboard, journaled. */
typedef struct arb_ack {
    int game;
    char alert[CR_ARB_ALERT_MAX];
    char who[64];
    int64_t wall;
} arb_ack;

/* A standing relay alert: sealed files that do not verify (tampered or
 * cut). In every snapshot and incidents.json until an arbiter acknowledges
 * it (an ack of game 0); raised and acknowledged in incidents.log. */
typedef struct arb_standing {
    char key[CR_ARB_ALERT_MAX]; /* "tamper:<file>:<hash of what>" */
    char file[64];
    char what[320];
    int64_t wall;
    bool logged; /* in incidents.log (raised before it was open: at start) */
} arb_standing;

typedef struct arb_claim_ref {
    int game; /* store id */
    int index; /* in the monitor's claims */
} arb_claim_ref;

/* A clock the arbiter changed (a rejected claim's added time): no store
 * event, but journaled by the caller so that a rebuild changes it again. */
typedef struct arb_adjust {
    struct arb_adjust *next;
    cr_arbiter_adjust a;
} arb_adjust;

/* The store events made by a call, for the caller to apply after it. */
typedef struct arb_event {
    struct arb_event *next;
    cr_store_event *ev;
    char who[64]; /* the arbiter token's name, "relay" for the monitor's own */
} arb_event;

struct cr_arbiter_link {
    cr_arbiter_link_config cfg;
    bool started;
    arb_event *out_head, **out_tail;
    arb_adjust *adj_head, **adj_tail;
    arb_game **games;
    int ngames;
    size_t capgames;
    arb_claim_ref *claims;
    int nclaims;
    size_t capclaims;
    arb_ack *acks;
    int nacks;
    size_t capacks;
    arb_standing *standing;
    int nstanding;
    size_t capstanding;
    int64_t aseq;       /* last arbiter message number */
    int64_t aseq_logged; /* the last aseq written to incidents.log */
    int64_t state_aseq; /* aseq of the last published snapshot (-1: none yet) */
    int64_t state_wall; /* and when it was published */
    char *log_path;
    int log; /* incidents.log, sealed records (util/sealed_file.h); -1: none */
    cr_seal log_chain;
    const char *pushing; /* who push_to_store's events are made for */
};

/*----- small helpers -----*/

static arb_game *find_game(const cr_arbiter_link *l, int id)
{
    for (int i = 0; i < l->ngames; i++) {
        if (l->games[i]->id == id) {
            return l->games[i];
        }
    }
    return NULL;
}

static const char *color_code(int c)
{
    return c == CR_WHITE ? "w" : c == CR_BLACK ? "b" : NULL;
}

static json_t *ms_json(int64_t v)
{
    return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static const char *urgency_name(cr_urgency u)
{
    static const char *const names[] = {"info", "notice", "warning", "critical"};
    return (unsigned)u < 4 ? names[u] : "info";
}

static char *fen_of(const cr_position *pos, char buf[CR_FEN_MAX])
{
    if (cr_position_to_fen(pos, buf, CR_FEN_MAX) < 0) {
        buf[0] = '\0';
    }
    return buf;
}

/* Takes j; NULL stays NULL. */
static cr_buf *json_to_buf(json_t *j)
{
    if (!j) {
        return NULL;
    }
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    return cr_buf_take_str(s);
}

static void publish_pub(cr_arbiter_link *l, cr_pub *p)
{
    if (p && l->cfg.publish) {
        l->cfg.publish(l->cfg.data, p);
    } else {
        cr_pub_free(p);
    }
}

/* One message of the arbiter channel. Takes msg. */
static void publish(cr_arbiter_link *l, json_t *msg)
{
    if (!msg) {
        return;
    }
    json_object_set_new(msg, "aseq", json_integer((json_int_t)++l->aseq));
    cr_buf *b = json_to_buf(msg);
    cr_pub *p = b ? cr_pub_new(CR_PUB_ARBITER) : NULL;
    if (!p) {
        cr_buf_unref(b);
        return;
    }
    p->event = b;
    publish_pub(l, p);
}

/*----- JSON of incidents, states and claims -----*/

static json_t *incident_json(const arb_game *g, const cr_incident *inc)
{
    return json_pack("{s:i,s:s,s:s,s:i,s:s,s:s,s:i,s:s,s:o,s:o,s:o,s:o,s:s}", "game", g->id,
                     "board", g->board, "round", g->round, "seq", inc->seq, "kind",
                     cr_incident_kind_name(inc->kind), "urgency", urgency_name(inc->urgency),
                     "ply", inc->ply, "color", color_code(inc->color) ? color_code(inc->color) : "-",
                     "white_ms", ms_json(inc->white_ms), "black_ms", ms_json(inc->black_ms), "t",
                     ms_json(inc->t), "wall", ms_json(inc->wall), "text", inc->text);
}

/* The state of one game; with_clock false gives the key that decides
 * whether a new state message is due (clock times change every tick). */
static json_t *state_json(const cr_arbiter_link *l, const arb_game *g, bool with_clock)
{
    cr_monitor_state st;
    cr_monitor_get_state(g->mon, &st);
    char fen[CR_FEN_MAX];
    const char *white = cr_game_tag(g->game, "White");
    const char *black = cr_game_tag(g->game, "Black");
    cr_clock_mode mode = st.clock_mode;
    int claims = 0;
    for (int i = 0; i < l->nclaims; i++) {
        claims += l->claims[i].game == g->id;
    }
    json_t *j = json_pack(
        "{s:i,s:s,s:s,s:i,s:s,s:s,s:s,s:i,s:s,s:s,s:i,s:i,s:b,s:b,s:b,s:b,s:b,s:{s:b,s:b},s:s,"
        "s:s,s:b,s:{s:i,s:i},s:i,s:i,s:b,s:b,s:s,s:i,s:i,s:i}",
        "game", g->id, "board", g->board, "round", g->round, "table", g->table, "white",
        white ? white : "", "black", black ? black : "", "result",
        cr_result_string(st.result), "plies", st.ply_count, "fen",
        fen_of(cr_game_position(g->game), fen), "side", st.side_to_move == CR_WHITE ? "w" : "b",
        "repetitions", st.repetitions, "halfmove", st.halfmove, "threefold", st.threefold,
        "fifty_moves", st.fifty_moves, "fivefold", st.fivefold, "seventy_five", st.seventy_five,
        "dead", st.dead, "under_two_minutes", "w", st.under_two_minutes[CR_WHITE], "b",
        st.under_two_minutes[CR_BLACK], "running",
        st.running == CR_WHITE ? "w" : st.running == CR_BLACK ? "b" : "-", "flagged",
        st.flagged == CR_WHITE ? "w" : st.flagged == CR_BLACK ? "b" : "-", "online",
        st.board_online, "illegal", "w", st.illegal_completed[CR_WHITE], "b",
        st.illegal_completed[CR_BLACK], "pending_illegal", st.pending_illegal, "last_draw_offer",
        st.last_draw_offer, "claim_pending", st.claim_pending, "claim_window",
        st.claim_window[CR_WHITE] || st.claim_window[CR_BLACK],
        "clock_mode", cr_clock_mode_name(mode), "bonus_ms", (int)st.bonus_ms, "incidents",
        cr_monitor_incident_count(g->mon), "claims", claims);
    /* The board shows a picture the game cannot explain: why, and where. */
    const cr_store_game *sg = l->cfg.store ? cr_store_find(l->cfg.store, g->id) : NULL;
    if (j) {
        json_t *sq = json_array();
        for (int i = 0; sg && sg->attention && i < 64; i++) {
            if (sg->attention_squares >> i & 1) {
                char name[3] = {(char)('a' + i % 8), (char)('1' + i / 8), '\0'};
                json_array_append_new(sq, json_string(name));
            }
        }
        json_object_set_new(j, "attention", json_boolean(sg && sg->attention));
        json_object_set_new(j, "attention_reason",
                            json_string(sg && sg->attention ? sg->attention_reason : ""));
        json_object_set_new(j, "attention_squares", sq);
        /* Open alerts close when their cause is gone: the page reads these. */
        json_object_set_new(j, "flag_check",
                            json_string(st.flag_check == CR_WHITE   ? "w"
                                        : st.flag_check == CR_BLACK ? "b"
                                                                    : "-"));
        json_object_set_new(j, "claim_open", json_pack("{s:b,s:b}", "w", st.claim_window[CR_WHITE],
                                                       "b", st.claim_window[CR_BLACK]));
    }
    if (j && with_clock) {
        json_object_set_new(j, "white_ms", ms_json(st.remaining_ms[CR_WHITE]));
        json_object_set_new(j, "black_ms", ms_json(st.remaining_ms[CR_BLACK]));
        json_object_set_new(j, "t", json_integer((json_int_t)st.t));
    }
    return j;
}

static json_t *material_json(const cr_material *m)
{
    json_t *j = json_object();
    for (int ty = CR_PAWN; ty <= CR_KING && j; ty++) {
        json_object_set_new(j, cr_material_key(ty), json_integer(m->count[ty]));
    }
    json_object_set_new(j, "points", json_integer(m->points));
    return j;
}

static json_t *claim_json(const arb_game *g, const cr_claim *c, int global_id)
{
    char fen[CR_FEN_MAX];
    const cr_game *fz = c->frozen;
    json_t *sheet = json_array();
    for (int i = 0; fz && i < cr_game_ply_count(fz) && sheet; i++) {
        const cr_ply *p = cr_game_ply(fz, i);
        json_array_append_new(sheet, json_pack("{s:i,s:s,s:o}", "ply", i, "san", p->san, "clock",
                                               ms_json(p->clock_ms)));
    }
    json_t *recent = json_array();
    for (int i = 0; i < c->recent_count && recent; i++) {
        const cr_claim_move *mv = &c->recent[i];
        json_array_append_new(recent, json_pack("{s:i,s:s,s:o,s:o,s:b,s:b}", "ply", mv->ply, "san",
                                                mv->san, "white_ms", ms_json(mv->white_ms),
                                                "black_ms", ms_json(mv->black_ms), "capture",
                                                mv->capture, "pawn_move", mv->pawn_move));
    }
    char html[48], pgn[48];
    snprintf(html, sizeof html, "/arbiter/claim/%d.html", global_id);
    snprintf(pgn, sizeof pgn, "/arbiter/claim/%d.pgn", global_id);
    json_t *j = json_pack(
        "{s:i,s:i,s:s,s:i,s:s,s:s,s:i,s:o,s:o,s:o,s:s,s:o,s:o,"
        "s:{s:o,s:o,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:b,s:o},"
        "s:s,s:o,s:s,s:s,s:s}",
        "id", global_id, "game", g->id, "board", g->board, "number", c->id, "claimant",
        c->claimant == CR_WHITE ? "w" : "b", "basis", cr_claim_basis_name(c->basis),
        "ply", c->ply, "white_ms", ms_json(c->white_ms), "black_ms", ms_json(c->black_ms), "wall",
        ms_json(c->wall), "fen", fz ? fen_of(cr_game_position(fz), fen) : "", "scoresheet", sheet,
        "recent", recent, "evidence", "white_material", material_json(&c->material[CR_WHITE]),
        "black_material", material_json(&c->material[CR_BLACK]), "moves", c->evidence_moves,
        "captures", c->recent_captures, "pawn_moves", c->recent_pawn_moves,
        "plies_since_irreversible", c->plies_since_irreversible, "last_irreversible_ply",
        c->last_irreversible_ply, "repetitions", c->repetitions, "max_repetitions",
        c->max_repetitions, "opponent_can_mate", c->opponent_can_mate, "recent_count",
        json_integer(c->recent_count), "decision", cr_decision_name(c->decision), "added_ms",
        ms_json(c->decision == CR_DECISION_REJECTED ? c->added_ms : -1), "note", c->note, "report",
        html, "pgn", pgn);
    if (j && fz) {
        json_object_set_new(j, "start", json_string(fen_of(cr_game_start(fz), fen)));
    }
    if (j) { /* threefold / 50 moves: the position claimed and the relay's check */
        json_object_set_new(j, "move", c->move[0] ? json_string(c->move) : json_null());
        json_object_set_new(j, "correct", json_boolean(c->correct));
        json_object_set_new(j, "claimed_repetitions", json_integer(c->claimed_repetitions));
        json_object_set_new(j, "claimed_halfmove", json_integer(c->claimed_halfmove));
    }
    return j;
}

static int claim_global_id(const cr_arbiter_link *l, int game, int index)
{
    for (int i = 0; i < l->nclaims; i++) {
        if (l->claims[i].game == game && l->claims[i].index == index) {
            return i + 1;
        }
    }
    return 0;
}

/*----- incidents: journal and publish -----*/

/* A claim and its decision: "<game>\tclaim\t<cr_claim_format line>" in the
 * same log, after the incidents it made, so that a restart restores the
 * claims in order after the incidents. */
static void journal_line(cr_arbiter_link *l, const char *line, int n)
{
    /* One sealed record per line, written at once: a crash leaves at most a
     * torn last one, cut on restart. */
    if (n < 0 || cr_sealed_append(l->log, &l->log_chain, line, (size_t)n)) {
        cr_log(CR_LOG_ERROR, "%s: cannot write: %s", l->log_path, strerror(errno));
    } else {
        cr_seal_head_note("incidents.log", &l->log_chain, false); /* a cut tail is found */
    }
}

/* "aseq\t<N>": the arbiter channel's message number so far, so that a
 * restart numbers on from it (dashboards drop what they have seen). Written
 * when a snapshot goes out (after each action, at the tick after other
 * messages) and at a clean stop. */
static void log_aseq(cr_arbiter_link *l)
{
    if (l->log < 0 || l->aseq == l->aseq_logged) {
        return;
    }
    char rec[48];
    int n = snprintf(rec, sizeof rec, "aseq\t%" PRId64 "\n", l->aseq);
    journal_line(l, rec, n < (int)sizeof rec ? n : -1);
    l->aseq_logged = l->aseq;
}

static void journal_claim(cr_arbiter_link *l, const arb_game *g, const cr_claim *c)
{
    char line[CR_CLAIM_LINE_MAX], rec[CR_CLAIM_LINE_MAX + 32];
    if (l->log < 0 || !c || cr_claim_format(c, line, sizeof line) < 0) {
        return;
    }
    int n = snprintf(rec, sizeof rec, "%d\tclaim\t%s\n", g->id, line);
    journal_line(l, rec, n < (int)sizeof rec ? n : -1);
}

static void journal_incident(cr_arbiter_link *l, const arb_game *g, const cr_incident *inc)
{
    char line[CR_INCIDENT_LINE_MAX], rec[CR_INCIDENT_LINE_MAX + 32];
    if (l->log < 0 || cr_incident_format(inc, line, sizeof line) < 0) {
        return;
    }
    int n = snprintf(rec, sizeof rec, "%d\t%s\n", g->id, line);
    journal_line(l, rec, n < (int)sizeof rec ? n : -1);
}

/* Registers claims the monitor has and we have not numbered yet. */
static void note_claims(cr_arbiter_link *l, arb_game *g)
{
    int n = cr_monitor_claim_count(g->mon);
    for (int i = 0; i < n; i++) {
        if (claim_global_id(l, g->id, i)) {
            continue;
        }
        arb_claim_ref *c = cr_grow(l->claims, &l->capclaims, (size_t)l->nclaims + 1, sizeof *c, 8);
        if (!c) {
            return;
        }
        l->claims = c;
        l->claims[l->nclaims].game = g->id;
        l->claims[l->nclaims].index = i;
        l->nclaims++;
    }
}

static void publish_claim(cr_arbiter_link *l, arb_game *g, int index)
{
    const cr_claim *c = cr_monitor_claim_at(g->mon, index);
    if (!c) {
        return;
    }
    json_t *cj = claim_json(g, c, claim_global_id(l, g->id, index));
    publish(l, cj ? json_pack("{s:s,s:i,s:o}", "type", "claim", "game", g->id, "claim", cj) : NULL);
}

/* The printable report and the PGN of each of the game's claims, for the
 * server to answer /arbiter/claim/<id>.html and .pgn. */
static void publish_reports(cr_arbiter_link *l, const arb_game *g)
{
    for (int i = 0; i < l->nclaims; i++) {
        const cr_claim *c =
            l->claims[i].game == g->id ? cr_monitor_claim_at(g->mon, l->claims[i].index) : NULL;
        cr_pub *p = c ? cr_pub_new(CR_PUB_ARBITER_REPORT) : NULL;
        if (!p) {
            continue;
        }
        p->claim = i + 1;
        p->report_html = cr_buf_take_str(cr_claim_report_html_new(g->mon, c));
        p->report_pgn = cr_buf_take_str(cr_claim_report_pgn_new(g->mon, c));
        publish_pub(l, p);
    }
}

/* The game's state message if its state changed (force: compare the whole
 * state, e.g. after a store event changed the tags); NULL otherwise. */
static json_t *state_message(cr_arbiter_link *l, arb_game *g, bool force)
{
    /* Ticks come ten times a second for every game: the JSON is only built
     * when the monitor's state (clock times aside) or the incidents moved. */
    cr_monitor_state st;
    memset(&st, 0, sizeof st);
    cr_monitor_get_state(g->mon, &st);
    st.remaining_ms[CR_WHITE] = st.remaining_ms[CR_BLACK] = 0;
    st.t = 0;
    if (!force && g->state_key && memcmp(&st, &g->last, sizeof st) == 0) {
        return NULL;
    }
    g->last = st;
    json_t *key = state_json(l, g, false);
    char *ks = key ? json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(key);
    if (!ks || (g->state_key && strcmp(ks, g->state_key) == 0)) {
        free(ks);
        return NULL;
    }
    free(g->state_key);
    g->state_key = ks;
    json_t *sj = state_json(l, g, true);
    return sj ? json_pack("{s:s,s:i,s:o}", "type", "arbiter-state", "game", g->id, "state", sj)
              : NULL;
}

/* New incidents: journaled and published; then the state if it changed.
 * The claim reports go first, so that a claim message never names a report
 * the server does not have yet. */
static void flush(cr_arbiter_link *l, arb_game *g, bool force)
{
    int from = g->published, n = cr_monitor_incident_count(g->mon);
    for (int i = from; i < n; i++) {
        cr_incident_kind k = cr_monitor_incident(g->mon, i)->kind;
        if (k == CR_INC_CLAIM || k == CR_INC_DECISION) {
            note_claims(l, g);
            break;
        }
    }
    json_t *state = state_message(l, g, force || from < n);
    if (from < n || state) {
        publish_reports(l, g);
    }
    for (; g->published < n; g->published++) {
        const cr_incident *inc = cr_monitor_incident(g->mon, g->published);
        journal_incident(l, g, inc);
        json_t *ij = incident_json(g, inc);
        publish(l, ij ? json_pack("{s:s,s:i,s:o}", "type", "incident", "game", g->id, "incident", ij)
                      : NULL);
        if (inc->kind == CR_INC_CLAIM || inc->kind == CR_INC_DECISION) {
            int k = cr_monitor_claim_count(g->mon);
            if (k > 0) {
                publish_claim(l, g, k - 1);
            }
        }
    }
    publish(l, state);
}

void cr_arbiter_link_alert(cr_arbiter_link *l, const char *kind, const char *text, int64_t wall)
{
    publish(l, json_pack("{s:s,s:s,s:s,s:I}", "type", "relay-alert", "alert", kind, "text", text,
                         "wall", (json_int_t)wall));
}

static void publish_error(cr_arbiter_link *l, const cr_arbiter_cmd *c, const char *why)
{
    publish(l, json_pack("{s:s,s:i,s:s,s:s,s:s}", "type", "arbiter-error", "game", c->game, "action",
                         cr_arbiter_action_name(c->action), "error", why, "who", c->who));
}

/*----- acknowledgements -----*/

static json_t *ack_json(const arb_ack *a)
{
    return json_pack("{s:i,s:s,s:s,s:I}", "game", a->game, "alert", a->alert, "who", a->who, "wall",
                     (json_int_t)a->wall);
}

static const arb_ack *find_ack(const cr_arbiter_link *l, int game, const char *alert)
{
    for (int i = 0; i < l->nacks; i++) {
        if (l->acks[i].game == game && strcmp(l->acks[i].alert, alert) == 0) {
            return &l->acks[i];
        }
    }
    return NULL;
}

/* Records an acknowledgement (the first one of an alert counts); NULL when
 * out of memory or already acknowledged. */
static const arb_ack *add_ack(cr_arbiter_link *l, int game, const char *alert, const char *who,
                              int64_t wall)
{
    if (find_ack(l, game, alert)) {
        return NULL;
    }
    arb_ack *v = cr_grow(l->acks, &l->capacks, (size_t)l->nacks + 1, sizeof *v, 16);
    if (!v) {
        return NULL;
    }
    l->acks = v;
    arb_ack *a = &l->acks[l->nacks++];
    a->game = game;
    snprintf(a->alert, sizeof a->alert, "%s", alert);
    /* The name goes into a tab-separated line: no tab or line break in it. */
    snprintf(a->who, sizeof a->who, "%s", who && who[0] ? who : "?");
    for (char *c = a->who; *c; c++) {
        if (*c == '\t' || *c == '\n' || *c == '\r') {
            *c = ' ';
        }
    }
    a->wall = wall;
    return a;
}

/* "<game>\tack\t<wall>\t<alert>\t<who>" in incidents.log. */
static void journal_ack(cr_arbiter_link *l, const arb_ack *a)
{
    char rec[CR_ARB_ALERT_MAX + 160];
    if (l->log < 0) {
        return;
    }
    int n = snprintf(rec, sizeof rec, "%d\tack\t%" PRId64 "\t%s\t%s\n", a->game, a->wall, a->alert,
                     a->who);
    journal_line(l, rec, n < (int)sizeof rec ? n : -1);
}

/* Reads back what journal_ack wrote (after "<game>\tack\t"). */
static bool restore_ack(cr_arbiter_link *l, int game, const char *s, size_t len)
{
    char buf[CR_ARB_ALERT_MAX + 64 + 32];
    if (len >= sizeof buf) {
        return false;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end, *alert, *who;
    long long wall = strtoll(buf, &end, 10);
    if (*end != '\t' || !(who = strchr(alert = end + 1, '\t')) || who == alert) {
        return false;
    }
    *who++ = '\0';
    if (!cr_arbiter_alert_ok(alert)) {
        return false;
    }
    add_ack(l, game, alert, who, (int64_t)wall);
    return true;
}

/*----- standing relay alerts (tamper evidence) -----*/

static void publish_state(cr_arbiter_link *l, int64_t wall);

static arb_standing *find_standing(const cr_arbiter_link *l, const char *key)
{
    for (int i = 0; i < l->nstanding; i++) {
        if (strcmp(l->standing[i].key, key) == 0) {
            return &l->standing[i];
        }
    }
    return NULL;
}

/* The open ones (not acknowledged), for the snapshot and incidents.json. */
static json_t *standing_json(const cr_arbiter_link *l)
{
    json_t *a = json_array();
    for (int i = 0; i < l->nstanding; i++) {
        const arb_standing *s = &l->standing[i];
        if (!find_ack(l, 0, s->key)) {
            json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s,s:I}", "alert", s->key, "kind",
                                               "tamper", "file", s->file, "what", s->what, "wall",
                                               (json_int_t)s->wall));
        }
    }
    return a;
}

/* "0\ttamper\t<wall>\t<key>\t<file>\t<what>" in incidents.log. */
static void journal_standing(cr_arbiter_link *l, arb_standing *s)
{
    char rec[sizeof s->key + sizeof s->file + sizeof s->what + 64];
    if (l->log < 0 || s->logged) {
        return;
    }
    int n = snprintf(rec, sizeof rec, "0\ttamper\t%" PRId64 "\t%s\t%s\t%s\n", s->wall, s->key,
                     s->file, s->what);
    journal_line(l, rec, n < (int)sizeof rec ? n : -1);
    s->logged = true;
}

/* Adds a standing alert (none when its key is there). NULL if not added. */
static arb_standing *add_standing(cr_arbiter_link *l, const char *file, const char *what,
                                  int64_t wall)
{
    char key[CR_ARB_ALERT_MAX], name[24];
    size_t n = 0;
    for (const char *p = file; *p && n < sizeof name - 1; p++) { /* a key's characters only */
        name[n++] = strchr("@:._-", *p) || (*p >= '0' && *p <= '9') ||
                            ((*p | 32) >= 'a' && (*p | 32) <= 'z')
                        ? *p
                        : '_';
    }
    name[n] = '\0';
    char both[sizeof ((arb_standing *)0)->file + sizeof ((arb_standing *)0)->what];
    int bl = snprintf(both, sizeof both, "%s\n%s", file, what);
    snprintf(key, sizeof key, "tamper:%s:%08" PRIx32, name,
             (uint32_t)cr_fnv1a(both, bl < (int)sizeof both ? (size_t)bl : sizeof both - 1));
    if (find_standing(l, key)) {
        return NULL;
    }
    arb_standing *v = cr_grow(l->standing, &l->capstanding, (size_t)l->nstanding + 1, sizeof *v, 4);
    if (!v) {
        return NULL;
    }
    l->standing = v;
    arb_standing *s = &l->standing[l->nstanding++];
    memset(s, 0, sizeof *s);
    snprintf(s->key, sizeof s->key, "%s", key);
    snprintf(s->file, sizeof s->file, "%s", file);
    /* One line in incidents.log: no tab or line break inside a field. */
    snprintf(s->what, sizeof s->what, "%s", what);
    for (char *p = s->what; *p; p++) {
        *p = *p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p;
    }
    for (char *p = s->file; *p; p++) {
        *p = *p == '\t' || *p == '\n' || *p == '\r' ? ' ' : *p;
    }
    s->wall = wall;
    return s;
}

/* Reads back what journal_standing wrote (after "0\ttamper\t"). */
static bool restore_standing(cr_arbiter_link *l, const char *s, size_t len)
{
    char buf[512];
    if (len >= sizeof buf) {
        return false;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end, *key, *file, *what;
    long long wall = strtoll(buf, &end, 10);
    if (*end != '\t' || !(file = strchr(key = end + 1, '\t')) ||
        !(what = strchr(file + 1, '\t'))) {
        return false;
    }
    *file++ = '\0';
    *what++ = '\0';
    if (!cr_arbiter_alert_ok(key) || find_standing(l, key)) {
        return cr_arbiter_alert_ok(key);
    }
    arb_standing *st = add_standing(l, file, what, (int64_t)wall);
    if (st) {
        snprintf(st->key, sizeof st->key, "%s", key); /* as raised, whatever the hash */
        st->logged = true;
    }
    return true;
}

void cr_arbiter_link_tamper(cr_arbiter_link *l, const char *file, const char *what, int64_t wall)
{
    if (!l) {
        return;
    }
    arb_standing *s = add_standing(l, file, what, wall);
    if (!s) {
        return; /* raised before (a restart of a relay with the same problem) */
    }
    publish(l, json_pack("{s:s,s:s,s:s,s:s,s:s,s:I}", "type", "relay-alert", "alert", "tamper",
                         "key", s->key, "text", s->what, "file", s->file, "wall",
                         (json_int_t)wall));
    if (l->started) {
        journal_standing(l, s);
        publish_state(l, wall);
    }
}

/* An arbiter acknowledges standing alert c->alert (game 0). */
static int ack_standing(cr_arbiter_link *l, const cr_arbiter_cmd *c, int64_t wall, char *why,
                        size_t why_size)
{
    if (!find_standing(l, c->alert)) {
        char reason[CR_ARB_ALERT_MAX + 32];
        snprintf(reason, sizeof reason, "no relay alert %s", c->alert);
        if (why && why_size) {
            snprintf(why, why_size, "%s", reason);
        }
        publish_error(l, c, reason);
        return CR_EINVAL;
    }
    const arb_ack *a = add_ack(l, 0, c->alert, c->who, wall);
    if (a) {
        cr_log(CR_LOG_INFO, "arbiter %s acknowledged %s", c->who, c->alert);
        journal_ack(l, a);
        json_t *aj = ack_json(a);
        publish(l, aj ? json_pack("{s:s,s:i,s:o}", "type", "ack", "game", 0, "ack", aj) : NULL);
        publish_state(l, wall);
    }
    return 0;
}

/*----- games -----*/

static void game_free(arb_game *g)
{
    if (!g) {
        return;
    }
    cr_verdict_free(g->v);
    free(g->state_key);
    free(g);
}

/* Creates the monitor for a store game (a copy of its game and a clock). */
static arb_game *add_game(cr_arbiter_link *l, const cr_store_game *sg, bool silent, int64_t t,
                          int64_t wall)
{
    arb_game **n = cr_grow(l->games, &l->capgames, (size_t)l->ngames + 1, sizeof *n, 16);
    if (!n) {
        return NULL;
    }
    l->games = n;
    arb_game *g = calloc(1, sizeof *g);
    if (!g) {
        return NULL;
    }
    g->id = sg->id;
    snprintf(g->board, sizeof g->board, "%s", sg->board);
    snprintf(g->round, sizeof g->round, "%s", sg->round);
    g->table = sg->table;
    /* In the rebuild the monitor follows the journal's events as it did
     * live (its clock learns the control, its markers are set), logging
     * nothing: the log is restored from incidents.log at start. */
    g->v = cr_verdict_new(sg, l->cfg.time_control, silent, !l->started, t, wall);
    if (!g->v) {
        game_free(g);
        return NULL;
    }
    g->game = cr_verdict_game(g->v);
    g->clock = cr_verdict_clock(g->v);
    g->mon = cr_verdict_monitor(g->v);
    /* The board-and-clock incidents the tournament file switches on. */
    cr_monitor_set_floor_checks(g->mon, l->cfg.press_without_move, l->cfg.move_without_press,
                                l->cfg.time_added);
    if (silent) {
        g->published = cr_monitor_incident_count(g->mon);
    }
    l->games[l->ngames++] = g;
    return g;
}

/* Queues a store event for the caller (cr_arbiter_link_take_event), made
 * on behalf of who. Takes ev. */
static void emit(cr_arbiter_link *l, cr_store_event *ev, const char *who)
{
    arb_event *e = ev ? malloc(sizeof *e) : NULL;
    if (!e) {
        cr_store_event_free(ev);
        cr_log(CR_LOG_ERROR, "arbiter: out of memory, a store event is lost");
        return;
    }
    e->ev = ev;
    snprintf(e->who, sizeof e->who, "%s", who && who[0] ? who : "?");
    e->next = NULL;
    *l->out_tail = e;
    l->out_tail = &e->next;
}

/* emit for cr_verdict_to_store: on behalf of l->pushing. */
static void emit_pushed(void *data, cr_store_event *ev)
{
    cr_arbiter_link *l = data;
    emit(l, ev, l->pushing);
}

/* An arbiter's result equal to the store's: no change to push, but the
 * arbiter now stands behind it (core/round_results.h): the result is
 * stated again as a RESULT of theirs, journaled like any other. */
static void restate_result(cr_arbiter_link *l, const arb_game *g, const cr_arbiter_cmd *c)
{
    const cr_store_game *sgr = l->cfg.store ? cr_store_find(l->cfg.store, g->id) : NULL;
    if (!sgr || c->result == CR_RESULT_NONE || cr_game_result(sgr->game) != c->result) {
        return;
    }
    cr_store_event *ev = cr_store_event_new(CR_SEV_RESULT);
    if (ev) {
        ev->game = g->id;
        ev->result = c->result;
        snprintf(ev->reason, sizeof ev->reason, "arbiter"); /* the text is in the log */
    }
    emit(l, ev, c->who);
}

/* After an action or an automatic end: the store events that bring the
 * store's game to the monitor's (the monitor's game is the truth here).
 * They are queued, so the store stands as it is until they are applied. */
static void push_to_store(cr_arbiter_link *l, arb_game *g, const char *who)
{
    const cr_store_game *sgr = l->cfg.store ? cr_store_find(l->cfg.store, g->id) : NULL;
    if (sgr) {
        l->pushing = who;
        cr_verdict_to_store(g->v, sgr, emit_pushed, l);
        l->pushing = NULL;
    }
}

/* A rejected claim gave the opponent time (cr_monitor_decide adjusted the
 * clock): queued for the caller's journal. */
static void note_adjust(cr_arbiter_link *l, const arb_game *g, const cr_claim *c, const char *who,
                        int64_t t)
{
    if (!c || c->decision != CR_DECISION_REJECTED || !c->added_ms) {
        return;
    }
    arb_adjust *e = malloc(sizeof *e);
    if (!e) {
        cr_log(CR_LOG_ERROR, "arbiter: out of memory, game %d's added time is not journaled", g->id);
        return;
    }
    e->next = NULL;
    e->a = (cr_arbiter_adjust){.game = g->id, .color = c->claimant ^ 1, .delta_ms = c->added_ms, .t = t};
    snprintf(e->a.who, sizeof e->a.who, "%s", who && who[0] ? who : "?");
    *l->adj_tail = e;
    l->adj_tail = &e->next;
}

bool cr_arbiter_link_take_adjust(cr_arbiter_link *l, cr_arbiter_adjust *out)
{
    arb_adjust *e = l ? l->adj_head : NULL;
    if (!e) {
        return false;
    }
    l->adj_head = e->next;
    if (!l->adj_head) {
        l->adj_tail = &l->adj_head;
    }
    *out = e->a;
    free(e);
    return true;
}

void cr_arbiter_link_adjust_clock(cr_arbiter_link *l, int game, int color, int32_t delta_ms,
                                  int64_t t)
{
    arb_game *g = l ? find_game(l, game) : NULL;
    if (g && (color == CR_WHITE || color == CR_BLACK)) {
        cr_clock_adjust(g->clock, color, delta_ms, t);
    }
}

/*----- what the server serves: the snapshot and incidents.json -----*/

/* Every game's state and every published incident, as two arrays. */
static void states_and_incidents(const cr_arbiter_link *l, json_t **games, json_t **incs)
{
    *games = json_array();
    *incs = json_array();
    for (int i = 0; i < l->ngames; i++) {
        const arb_game *g = l->games[i];
        json_array_append_new(*games, state_json(l, g, true));
        for (int k = 0; k < g->published; k++) {
            json_array_append_new(*incs, incident_json(g, cr_monitor_incident(g->mon, k)));
        }
    }
}

/* {"type":"arbiter","aseq":N,"games":[...],"incidents":[...],"claims":[...]}:
 * everything a dashboard needs when it joins (later messages have aseq >
 * N), and {"incidents":[...],"games":[...]} for /arbiter/incidents.json. */
static void publish_state(cr_arbiter_link *l, int64_t wall)
{
    json_t *games, *incs, *claims = json_array();
    states_and_incidents(l, &games, &incs);
    for (int i = 0; i < l->nclaims; i++) {
        arb_game *g = find_game(l, l->claims[i].game);
        const cr_claim *c = g ? cr_monitor_claim_at(g->mon, l->claims[i].index) : NULL;
        if (c) {
            json_array_append_new(claims, claim_json(g, c, i + 1));
        }
    }
    json_t *acks = json_array();
    for (int i = 0; i < l->nacks; i++) {
        json_array_append_new(acks, ack_json(&l->acks[i]));
    }
    json_t *alerts = standing_json(l);
    json_t *inc_doc = json_pack("{s:O,s:O,s:O,s:O}", "incidents", incs, "games", games, "acks",
                                acks, "alerts", alerts);
    json_t *snap = json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:o}", "type", "arbiter", "aseq",
                             (json_int_t)l->aseq, "games", games, "incidents", incs, "claims",
                             claims, "acks", acks, "alerts", alerts);
    cr_pub *p = cr_pub_new(CR_PUB_ARBITER_STATE);
    if (p) {
        p->snapshot = json_to_buf(snap);
        p->incidents = json_to_buf(inc_doc);
    } else {
        json_decref(snap);
        json_decref(inc_doc);
    }
    log_aseq(l);
    if (p && p->snapshot && p->incidents) {
        l->state_aseq = l->aseq;
        l->state_wall = wall;
        publish_pub(l, p);
    } else {
        cr_pub_free(p);
    }
}

/*----- public -----*/

cr_arbiter_link *cr_arbiter_link_new(const cr_arbiter_link_config *cfg)
{
    cr_arbiter_link *l = calloc(1, sizeof *l);
    if (!l) {
        return NULL;
    }
    l->cfg = *cfg;
    l->out_tail = &l->out_head;
    l->adj_tail = &l->adj_head;
    l->state_aseq = -1;
    l->log = -1;
    return l;
}

void cr_arbiter_link_free(cr_arbiter_link *l)
{
    if (!l) {
        return;
    }
    for (int i = 0; i < l->ngames; i++) {
        game_free(l->games[i]);
    }
    free(l->games);
    free(l->claims);
    free(l->acks);
    free(l->standing);
    if (l->log >= 0) {
        log_aseq(l); /* a clean stop: the numbering goes on from here */
        close(l->log);
    }
    free(l->log_path);
    cr_store_event *ev;
    while ((ev = cr_arbiter_link_take_event(l, NULL, 0)) != NULL) {
        cr_store_event_free(ev);
    }
    cr_arbiter_adjust a;
    while (cr_arbiter_link_take_adjust(l, &a)) {
    }
    free(l);
}

static int restore_line(void *data, const char *line, size_t len, int lineno)
{
    cr_arbiter_link *l = data;
    static const char aseq_tag[] = "aseq\t";
    if (len > sizeof aseq_tag - 1 && strncmp(line, aseq_tag, sizeof aseq_tag - 1) == 0) {
        char num[24];
        snprintf(num, sizeof num, "%.*s", (int)(len - (sizeof aseq_tag - 1)), line + sizeof aseq_tag - 1);
        char *e;
        long long n = strtoll(num, &e, 10);
        if (*e || n < 0) {
            cr_log(CR_LOG_WARN, "%s:%d: not a message number (skipped)", l->log_path, lineno);
        } else if (n > l->aseq) {
            l->aseq = l->aseq_logged = n;
        }
        return 0;
    }
    char *end;
    long id = strtol(line, &end, 10);
    arb_game *g = *end == '\t' && id > 0 && id < INT_MAX ? find_game(l, (int)id) : NULL;
    cr_incident inc;
    cr_error err;
    static const char claim_tag[] = "claim\t", ack_tag[] = "ack\t", tamper_tag[] = "tamper\t";
    if (*end == '\t' && id == 0 && end > line) { /* the relay's own: standing alerts, their acks */
        const char *a = end + 1;
        bool ok = false;
        if (strncmp(a, ack_tag, sizeof ack_tag - 1) == 0) {
            a += sizeof ack_tag - 1;
            ok = restore_ack(l, 0, a, (size_t)(line + len - a));
        } else if (strncmp(a, tamper_tag, sizeof tamper_tag - 1) == 0) {
            a += sizeof tamper_tag - 1;
            ok = restore_standing(l, a, (size_t)(line + len - a));
        }
        if (!ok) {
            cr_log(CR_LOG_WARN, "%s:%d: not a relay alert or its acknowledgement (skipped)",
                   l->log_path, lineno);
        }
        return 0;
    }
    if (g && strncmp(end + 1, ack_tag, sizeof ack_tag - 1) == 0) {
        const char *a = end + sizeof ack_tag;
        if (!restore_ack(l, g->id, a, (size_t)(line + len - a))) {
            cr_log(CR_LOG_WARN, "%s:%d: not an acknowledgement (skipped)", l->log_path, lineno);
        }
        return 0;
    }
    if (g && strncmp(end + 1, claim_tag, sizeof claim_tag - 1) == 0) {
        const char *cl = end + sizeof claim_tag;
        int rc = cr_monitor_restore_claim(g->mon, cl, (size_t)(line + len - cl), &err);
        if (rc) {
            cr_log(CR_LOG_WARN, "%s:%d: %s (skipped)", l->log_path, lineno,
                   rc == CR_EFEED ? err.text : cr_strerror(rc));
        }
        note_claims(l, g);
        return 0;
    }
    if (!g) {
        cr_log(CR_LOG_WARN, "%s:%d: unknown game, skipped", l->log_path, lineno);
    } else if (cr_incident_parse(end + 1, (size_t)(line + len - (end + 1)), &inc, &err)) {
        cr_log(CR_LOG_WARN, "%s:%d: %s (skipped)", l->log_path, lineno, err.text);
    } else {
        cr_monitor_restore_incident(g->mon, &inc);
        g->published = cr_monitor_incident_count(g->mon);
    }
    return 0;
}

/* Reads incidents.log back: "<game>\t<incident line>", each line sealed;
 * a record that does not match its seal is restored all the same and
 * reported loudly. */
static void restore(cr_arbiter_link *l, int64_t wall)
{
    cr_error err;
    cr_sealed_stats st;
    if (cr_sealed_read(l->log_path, true, restore_line, l, &l->log_chain, &st, &err) &&
        errno != ENOENT) {
        cr_log(CR_LOG_WARN, "%s", err.text);
    }
    if (st.torn) {
        cr_log(CR_LOG_WARN, "%s: torn last line dropped", l->log_path);
    }
    cr_seal_sound_note(LOG_NAME, st.bad == 0);
    if (st.bad) {
        char text[400];
        snprintf(text, sizeof text,
                 "%s: NOT SOUND: %ld record(s) do not match their seals, the first at %s:%d: %s "
                 "(check with `chessrelay journal verify %s`)",
                 LOG_NAME, st.bad, l->log_path, st.bad_line, st.bad_why, l->cfg.state_dir);
        cr_log(CR_LOG_ERROR, "%s", text);
        cr_arbiter_link_alert(l, "journal-not-sound", text, wall);
        snprintf(text, sizeof text, "%ld record(s) do not match their seals, the first at line %d: %s",
                 st.bad, st.bad_line, st.bad_why);
        cr_arbiter_link_tamper(l, LOG_NAME, text, wall);
    }
    /* What the head of the seals found at start (util/seal_head.h): a cut
     * tail or a deleted last file, made while the relay was stopped. */
    cr_seal_problem p[CR_SEAL_HEAD_KINDS + 1];
    int np = cr_seal_head_problems(p, CR_SEAL_HEAD_KINDS + 1);
    for (int i = 0; i < np; i++) {
        cr_arbiter_link_tamper(l, p[i].name, p[i].text, wall);
    }
}

int cr_arbiter_link_start(cr_arbiter_link *l, int64_t t, int64_t wall, cr_error *err)
{
    int rc = 0;
    if (l->cfg.store) {
        for (int i = 0; i < cr_store_game_count(l->cfg.store); i++) {
            const cr_store_game *sg = cr_store_game_at(l->cfg.store, i);
            if (!find_game(l, sg->id) && !add_game(l, sg, true, t, wall)) {
                rc = cr_error_set(err, CR_ENOMEM, 0, 0, "arbiter: out of memory");
                goto out;
            }
        }
    }
    if (l->cfg.state_dir) {
        size_t size = strlen(l->cfg.state_dir) + sizeof LOG_NAME + 2;
        l->log_path = malloc(size);
        if (!l->log_path) {
            rc = cr_error_set(err, CR_ENOMEM, 0, 0, "arbiter: out of memory");
            goto out;
        }
        snprintf(l->log_path, size, "%s/%s", l->cfg.state_dir, LOG_NAME);
        restore(l, wall);
        l->log = open(l->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (l->log < 0) {
            rc = cr_error_set(err, CR_EIO, 0, 0, "%s: %s", l->log_path, strerror(errno));
            goto out;
        }
        cr_signer_follow(LOG_NAME); /* signed checkpoints, with a --signing-key */
        for (int i = 0; i < l->nstanding; i++) {
            journal_standing(l, &l->standing[i]); /* raised by the rebuild, before the log */
        }
    }
    for (int i = 0; i < l->ngames; i++) {
        /* The sources' reach, as live (after the restored incidents, which
         * count as raised); what it raises is new and goes out. */
        arb_game *g = l->games[i];
        cr_monitor_set_silent(g->mon, false);
        g->published = cr_monitor_incident_count(g->mon);
        cr_monitor_source_time(g->mon, t);
        /* A game the monitor ended whose result the journal lacks (killed
         * before the tick that told the store, or a flag at the reach):
         * the store hears of it at the first tick. */
        const cr_store_game *sg = l->cfg.store ? cr_store_find(l->cfg.store, g->id) : NULL;
        g->push_due = sg && cr_game_result(g->game) != cr_game_result(sg->game);
        json_t *key = state_json(l, l->games[i], false);
        free(l->games[i]->state_key);
        l->games[i]->state_key = key ? json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(key);
    }
    l->started = true;
    for (int i = 0; i < l->ngames; i++) {
        if (cr_monitor_claim_count(l->games[i]->mon) > 0) {
            publish_reports(l, l->games[i]); /* the restored claims' reports, before the snapshot */
        }
    }
    publish_state(l, wall);
out:
    return rc;
}

void cr_arbiter_link_on_store_event(cr_arbiter_link *l, const cr_store_event *ev, int64_t t,
                                    int64_t wall)
{
    if (!l || !ev) {
        return;
    }
    const cr_store_game *sg = l->cfg.store ? cr_store_find(l->cfg.store, ev->game) : NULL;
    arb_game *g = find_game(l, ev->game);
    if (!sg) {
        return;
    }
    if (!g) {
        g = add_game(l, sg, false, t, wall);
        if (!g) {
            return;
        }
    }
    cr_monitor_set_wall(g->mon, wall);
    bool ended = cr_verdict_on_store_event(g->v, sg, ev, t);
    if (!l->started) {
        return; /* the rebuild: what the monitor did then is in the journal and the log */
    }
    /* The monitor may have ended the game (fivefold, dead position, flag):
     * the RESULT is queued at the next tick, when the store has taken the
     * rest of this event's turn. */
    if (ended) {
        g->push_due = true;
    }
    flush(l, g, true);
}

void cr_arbiter_link_source_time(cr_arbiter_link *l, const char *board, int64_t t)
{
    if (!l) {
        return;
    }
    for (int i = 0; i < l->ngames; i++) {
        arb_game *g = l->games[i];
        if (!board || strcmp(g->board, board) == 0) {
            if (cr_verdict_source_time(g->v, t) && l->started) {
                g->push_due = true; /* a flag fell: told to the store at the next tick */
            }
        }
    }
}

void cr_arbiter_link_tick(cr_arbiter_link *l, int64_t t, int64_t wall)
{
    if (!l) {
        return;
    }
    if (!l->started) {
        return;
    }
    for (int i = 0; i < l->ngames; i++) {
        arb_game *g = l->games[i];
        cr_monitor_set_wall(g->mon, wall);
        bool ended = cr_verdict_tick(g->v, t);
        if (ended || g->push_due) {
            g->push_due = false;
            push_to_store(l, g, "relay"); /* the monitor ended it: no arbiter's doing */
        }
        flush(l, g, false);
    }
    if (l->aseq != l->state_aseq || wall - l->state_wall >= STATE_EVERY_MS) {
        publish_state(l, wall);
    }
}

int cr_arbiter_link_command(cr_arbiter_link *l, const cr_arbiter_cmd *c, int64_t t, int64_t wall,
                            char *why, size_t why_size)
{
    if (!l || !c) {
        return CR_EINVAL;
    }
    char reason[CR_INCIDENT_TEXT_MAX];
    reason[0] = '\0';
    if (c->game == 0 && c->action == CR_ARB_ACK) {
        return ack_standing(l, c, wall, why, why_size);
    }
    arb_game *g = l->started ? find_game(l, c->game) : NULL;
    int rc = CR_EINVAL;
    if (!g) {
        snprintf(reason, sizeof reason, "unknown game %d", c->game);
        goto out;
    }
    cr_monitor_set_wall(g->mon, wall);
    if (c->action == CR_ARB_ACK) {
        /* Not a change of the game: journaled and told to every dashboard. */
        const arb_ack *a = add_ack(l, g->id, c->alert, c->who, wall);
        if (a) {
            journal_ack(l, a);
            json_t *aj = ack_json(a);
            publish(l, aj ? json_pack("{s:s,s:i,s:o}", "type", "ack", "game", g->id, "ack", aj)
                          : NULL);
            publish_state(l, wall);
        }
        return 0;
    }
    const char *text = c->text[0] ? c->text : NULL;
    switch (c->action) {
    case CR_ARB_RESULT:
        rc = cr_monitor_set_result(g->mon, c->result, text ? text : "arbiter", t);
        if (rc == 0) {
            restate_result(l, g, c); /* before the push, which changes nothing then */
        }
        break;
    case CR_ARB_DRAW_OFFER:
        rc = cr_monitor_mark_draw_offer(g->mon, c->ply, c->offered, t);
        if (rc) {
            snprintf(reason, sizeof reason, "no ply %d in the game", c->ply);
        }
        break;
    case CR_ARB_TAKE_BACK:
        if (c->ply > cr_game_ply_count(g->game)) {
            snprintf(reason, sizeof reason, "the game has only %d plies",
                     cr_game_ply_count(g->game));
            goto out;
        }
        rc = cr_monitor_take_back(g->mon, c->ply, text ? text : "arbiter", t);
        break;
    case CR_ARB_PLAYERS:
        rc = cr_monitor_assign_players(g->mon, c->has_white ? c->white : NULL,
                                       c->has_black ? c->black : NULL, t);
        break;
    case CR_ARB_CLAIM:
        rc = cr_monitor_claim_move(g->mon, c->color, c->basis, c->move[0] ? c->move : NULL, t,
                                   reason, sizeof reason);
        break;
    case CR_ARB_CONFIRM_FLAG:
        rc = cr_monitor_confirm_flag(g->mon, c->color, text ? text : "arbiter", t);
        if (rc) {
            snprintf(reason, sizeof reason, "the game is over");
        }
        break;
    case CR_ARB_REPLACE_MOVE:
        if (c->ply >= cr_game_ply_count(g->game)) {
            snprintf(reason, sizeof reason, "the game has only %d plies",
                     cr_game_ply_count(g->game));
            goto out;
        }
        /* the store then gets a CORRECTION from the ply and the plies that stand */
        rc = cr_monitor_replace_move(g->mon, c->ply, c->move, text ? text : "arbiter", t, reason,
                                     sizeof reason)
                 ? CR_EINVAL /* not legal there: the reason says why */
                 : 0;
        break;
    case CR_ARB_DECIDE:
        rc = cr_monitor_decide(g->mon, c->decision, c->added_ms, text, t);
        if (rc) {
            snprintf(reason, sizeof reason, "no claim awaits a decision");
        }
        break;
    default:
        break;
    }
    if (rc == 0) {
        cr_log(CR_LOG_INFO, "arbiter %s: game %d: %s", c->who[0] ? c->who : "?", c->game,
               cr_arbiter_action_name(c->action));
        push_to_store(l, g, c->who);
    }
    flush(l, g, true);
    if (rc == 0 && c->action == CR_ARB_DECIDE) {
        note_adjust(l, g, cr_monitor_claim_last(g->mon), c->who, t);
    }
    if (rc == 0 && (c->action == CR_ARB_CLAIM || c->action == CR_ARB_DECIDE)) {
        journal_claim(l, g, cr_monitor_claim_last(g->mon));
    } else if (!reason[0]) {
        snprintf(reason, sizeof reason, "%s refused (%s)", cr_arbiter_action_name(c->action),
                 cr_strerror(rc));
    }
out:
    if (rc) {
        publish_error(l, c, reason);
        cr_log(CR_LOG_WARN, "arbiter %s: game %d: %s: %s", c->who[0] ? c->who : "?", c->game,
               cr_arbiter_action_name(c->action), reason);
        if (why && why_size) {
            snprintf(why, why_size, "%s", reason);
        }
    }
    if (l->started) {
        publish_state(l, wall);
    }
    return rc;
}

cr_store_event *cr_arbiter_link_take_event(cr_arbiter_link *l, char *who, size_t who_size)
{
    arb_event *e = l ? l->out_head : NULL;
    if (!e) {
        return NULL;
    }
    l->out_head = e->next;
    if (!l->out_head) {
        l->out_tail = &l->out_head;
    }
    cr_store_event *ev = e->ev;
    if (who && who_size) {
        snprintf(who, who_size, "%s", e->who);
    }
    free(e);
    return ev;
}

int cr_arbiter_link_incident_count(const cr_arbiter_link *l)
{
    int n = 0;
    for (int i = 0; l && i < l->ngames; i++) {
        n += l->games[i]->published;
    }
    return n;
}
