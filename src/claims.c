/* Quickplay-finish draw claims (FIDE Appendix D1) with their evidence, and
 * the arbiter's decisions on them (see cr/arbiter.h). */
#include "cr/arbiter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_private.h"
#include "cr/notation.h"

/* ---------------------------------------------------------------- claims */

static bool same_position(const cr_position *a, const cr_position *b)
{
    return a->key == b->key && a->side == b->side && a->ep == b->ep &&
           memcmp(a->castle_rook, b->castle_rook, sizeof a->castle_rook) == 0 &&
           memcmp(a->board, b->board, sizeof a->board) == 0;
}

/* Capture / pawn move of ply i (illegal plies: by the material change). */
static void ply_kind(const cr_game *g, int i, bool *capture, bool *pawn)
{
    const cr_ply *p = cr_game_ply(g, i);
    const cr_position *before = cr_game_position_at(g, i);
    if (p->move == CR_MOVE_NONE) {
        *capture = __builtin_popcountll(p->after.occupied) < __builtin_popcountll(before->occupied);
        *pawn = (before->by_piece[CR_WP] | before->by_piece[CR_BP]) !=
                    (p->after.by_piece[CR_WP] | p->after.by_piece[CR_BP]) &&
                !*capture;
        return;
    }
    int from = cr_move_from(p->move), to = cr_move_to(p->move), kind = cr_move_kind(p->move);
    *pawn = cr_type_of(before->board[from]) == CR_PAWN;
    *capture = kind == CR_MOVE_EN_PASSANT || (kind != CR_MOVE_CASTLE && before->board[to] != 0);
}

const char *cr_material_key(int type)
{
    static const char *const keys[CR_TYPE_NB] = {NULL, "p", "n", "b", "r", "q", "k"};
    return type >= CR_PAWN && type <= CR_KING ? keys[type] : NULL;
}

static void compute_evidence(const cr_monitor *m, cr_claim *c)
{
    const cr_game *g = c->frozen;
    const cr_position *pos = cr_game_position(g);
    int n = cr_game_ply_count(g);
    static const int value[CR_TYPE_NB] = {0, 1, 3, 3, 5, 9, 0};
    for (int s = 0; s < CR_COLOR_NB; s++) {
        cr_material *mat = &c->material[s];
        for (int ty = CR_PAWN; ty <= CR_KING; ty++) {
            mat->count[ty] = __builtin_popcountll(pos->by_piece[cr_make_piece(s, ty)]);
            mat->points += mat->count[ty] * value[ty];
        }
    }
    c->evidence_moves = m->cfg.evidence_moves;
    int k = 2 * c->evidence_moves;
    int from = n > k ? n - k : 0;
    c->recent_count = n - from;
    c->max_repetitions = 1;
    for (int i = from; i < n; i++) {
        cr_claim_move *cm = &c->recent[i - from];
        const cr_ply *p = cr_game_ply(g, i);
        cm->ply = i;
        snprintf(cm->san, sizeof cm->san, "%s", p->san);
        cm->white_ms =
            (m->ply_clock && i < m->ply_cap) ? m->ply_clock[i][CR_WHITE] : CR_CLOCK_UNKNOWN;
        cm->black_ms =
            (m->ply_clock && i < m->ply_cap) ? m->ply_clock[i][CR_BLACK] : CR_CLOCK_UNKNOWN;
        ply_kind(g, i, &cm->capture, &cm->pawn_move);
        c->recent_captures += cm->capture;
        c->recent_pawn_moves += cm->pawn_move;
        int reps = 1;
        for (int j = i - 1; j >= -1; j--) {
            const cr_position *q = j >= 0 ? &cr_game_ply(g, j)->after : cr_game_start(g);
            if (same_position(q, &p->after)) {
                reps++;
            }
        }
        if (reps > c->max_repetitions) {
            c->max_repetitions = reps;
        }
    }
    c->last_irreversible_ply = -1;
    for (int i = n - 1; i >= 0; i--) {
        bool cap, pawn;
        ply_kind(g, i, &cap, &pawn);
        if (cap || pawn) {
            c->last_irreversible_ply = i;
            break;
        }
    }
    c->plies_since_irreversible = c->last_irreversible_ply >= 0 ? n - 1 - c->last_irreversible_ply
                                                                : n + cr_game_start(g)->halfmove;
    c->repetitions = cr_game_repetitions(g);
    c->opponent_can_mate = cr_can_mate(pos, c->claimant ^ 1);
}

/* Appends text to the comment after ply (or before the first move). */
static void add_comment(cr_game *g, int ply, const char *text)
{
    const char *old = cr_game_comment(g, ply);
    if (!old) {
        cr_game_set_comment(g, ply, text);
        return;
    }
    size_t n = strlen(old) + strlen(text) + 2;
    char *s = malloc(n);
    if (s) {
        snprintf(s, n, "%s %s", old, text);
        cr_game_set_comment(g, ply, s);
        free(s);
    }
}

static int refuse(cr_monitor *m, int claimant, int64_t t, char *why, size_t why_size,
                  const char *fmt, ...) CR_PRINTF(6, 7);

static int refuse(cr_monitor *m, int claimant, int64_t t, char *why, size_t why_size,
                  const char *fmt, ...)
{
    char text[CR_INCIDENT_TEXT_MAX - 40];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (why && why_size) {
        snprintf(why, why_size, "%s", text);
    }
    if (claimant == CR_WHITE || claimant == CR_BLACK) {
        cr_monitor_log_incident(m, CR_INC_CLAIM, CR_URGENCY_INFO, claimant, t,
                                "draw claim by %s refused: %s", color_name(claimant), text);
    }
    return CR_EINVAL;
}

const char *cr_claim_basis_name(cr_claim_basis basis)
{
    switch (basis) {
    case CR_CLAIM_CANNOT_WIN:
        return "a";
    case CR_CLAIM_NO_EFFORT:
        return "b";
    case CR_CLAIM_THREEFOLD:
        return "threefold";
    case CR_CLAIM_FIFTY_MOVES:
        return "fifty-moves";
    default:
        return "?";
    }
}

int cr_claim_basis_parse(const char *name)
{
    for (int b = CR_CLAIM_CANNOT_WIN; b <= CR_CLAIM_FIFTY_MOVES; b++) {
        if (name && strcmp(name, cr_claim_basis_name((cr_claim_basis)b)) == 0) {
            return b;
        }
    }
    return -1;
}

static bool is_d1(cr_claim_basis b)
{
    return b == CR_CLAIM_CANNOT_WIN || b == CR_CLAIM_NO_EFFORT;
}

/* "D1 a", "9.2 threefold repetition", "9.3 50 moves". */
static const char *basis_label(cr_claim_basis b)
{
    switch (b) {
    case CR_CLAIM_CANNOT_WIN:
        return "D1 a";
    case CR_CLAIM_NO_EFFORT:
        return "D1 b";
    case CR_CLAIM_THREEFOLD:
        return "9.2 threefold repetition";
    default:
        return "9.3 50 moves";
    }
}

/* D1: a quickplay finish, the claimant under two minutes, flag up. 0 or the
 * refusal. */
static int check_d1(cr_monitor *m, int claimant, int64_t t, char *why, size_t why_size)
{
    if (!m->cfg.quickplay_finish) {
        return refuse(m, claimant, t, why, why_size,
                      "this event has no quickplay finish: D1 claims are not allowed");
    }
    if (!m->clock) {
        return refuse(m, claimant, t, why, why_size, "no clock: the claimant's time is unknown");
    }
    cr_clock_mode mode = cr_clock_mode_of(m->clock);
    if (mode == CR_CLOCK_MODE_INCREMENT || mode == CR_CLOCK_MODE_DELAY_US ||
        mode == CR_CLOCK_MODE_BRONSTEIN) {
        return refuse(m, claimant, t, why, why_size,
                      "the clock has %s of %d s: no quickplay finish",
                      mode == CR_CLOCK_MODE_INCREMENT ? "an increment" : "a delay",
                      (int)(cr_clock_bonus_ms(m->clock) / 1000));
    }
    cr_monitor_check_clock(m, source_bound(m, t));
    if (cr_monitor_game_over(m)) {
        return refuse(m, claimant, t, why, why_size, "the game is over (%s)",
                      cr_result_string(cr_game_result(m->game)));
    }
    if (cr_clock_flagged(m->clock) == claimant) {
        return refuse(m, claimant, t, why, why_size, "%s's flag has fallen", color_name(claimant));
    }
    int32_t left = remaining(m, claimant, t);
    if (left < 0) {
        return refuse(m, claimant, t, why, why_size, "the claimant's time is unknown");
    }
    if (left >= m->cfg.two_minutes_ms) {
        char buf[24];
        fmt_ms(left, buf);
        return refuse(m, claimant, t, why, why_size,
                      "%s has %s left: a claim needs less than two minutes", color_name(claimant),
                      buf);
    }
    return 0;
}

/* Threefold / 50 moves: the claimed position, the one on the board or the
 * one the written move gives, counted in a copy of the game. */
static int check_position(const cr_game *g, cr_claim *c, const char *move, cr_error *err)
{
    cr_game *probe = cr_game_clone(g);
    if (!probe) {
        return CR_ENOMEM;
    }
    int rc = 0;
    if (move) {
        cr_move mv = cr_move_from_text(cr_game_position(probe), move, -1, NULL, err);
        if (mv == CR_MOVE_NONE) {
            rc = CR_EMOVE;
        } else if ((rc = cr_game_push(probe, mv, CR_CLOCK_UNKNOWN, -1, 0)) == 0) {
            int n = cr_game_ply_count(probe);
            snprintf(c->move, sizeof c->move, "%s", cr_game_ply(probe, n - 1)->san);
        }
    }
    if (rc == 0) {
        c->claimed_repetitions = cr_game_repetitions(probe);
        c->claimed_halfmove = (int)cr_game_position(probe)->halfmove;
        c->correct = c->basis == CR_CLAIM_THREEFOLD ? c->claimed_repetitions >= 3
                                                    : c->claimed_halfmove >= 100;
    }
    cr_game_free(probe);
    return rc;
}

/* Makes claim number nclaims + 1 on the game's first `ply` plies: frozen
 * copy, scoresheet clocks, evidence, check. NULL when out of memory or the
 * written move does not fit (err filled). */
static cr_claim *make_claim(cr_monitor *m, int claimant, cr_claim_basis basis, int ply,
                            const char *move, cr_error *err)
{
    cr_claim *c = calloc(1, sizeof *c);
    cr_claim **list = c ? realloc(m->claims, (size_t)(m->nclaims + 1) * sizeof *list) : NULL;
    cr_game *frozen = list ? cr_game_clone(m->game) : NULL;
    if (list) {
        m->claims = list;
    }
    if (!frozen) {
        free(c);
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    cr_game_truncate(frozen, ply);
    c->id = m->nclaims + 1;
    c->claimant = claimant;
    c->basis = basis;
    c->ply = ply;
    c->frozen = frozen;
    c->decided_t = c->decided_wall = -1;
    if (!is_d1(basis) && check_position(frozen, c, move, err) != 0) {
        cr_game_free(frozen);
        free(c);
        return NULL;
    }
    /* The scoresheet shows each mover's clock: fill what the board did not
     * give from the clock as seen when the ply arrived. */
    for (int i = 0; i < c->ply && i < m->ply_cap; i++) {
        cr_ply *p = cr_game_ply_mut(frozen, i);
        if (p->clock_ms < 0) {
            p->clock_ms = m->ply_clock[i][cr_game_position_at(frozen, i)->side];
        }
    }
    compute_evidence(m, c);
    return c;
}

/* The claim's own line in the frozen scoresheet and the log. */
static void claim_text(const cr_claim *c, char *buf, size_t size)
{
    char wb[24], bb[24];
    fmt_ms(c->white_ms, wb);
    fmt_ms(c->black_ms, bb);
    if (is_d1(c->basis)) {
        snprintf(buf, size, "Draw claim by %s (%s) with White %s, Black %s.",
                 color_name(c->claimant), basis_label(c->basis), wb, bb);
        return;
    }
    bool three = c->basis == CR_CLAIM_THREEFOLD;
    char count[64];
    if (three) {
        snprintf(count, sizeof count, "stands for the %d%s time", c->claimed_repetitions,
                 c->claimed_repetitions == 1   ? "st"
                 : c->claimed_repetitions == 2 ? "nd"
                 : c->claimed_repetitions == 3 ? "rd"
                                               : "th");
    } else {
        snprintf(count, sizeof count, "has %d moves each without capture or pawn move",
                 c->claimed_halfmove / 2);
    }
    snprintf(buf, size, "Draw claim by %s (%s)%s%s%s: the position%s %s: the claim is %s.",
             color_name(c->claimant), basis_label(c->basis), c->move[0] ? " with the move " : "",
             c->move, c->move[0] ? " written" : "", c->move[0] ? " after it" : "", count,
             c->correct ? "correct" : "not correct");
}

int cr_monitor_claim_move(cr_monitor *m, int claimant, cr_claim_basis basis, const char *move,
                          int64_t t, char *why, size_t why_size)
{
    if (!m) {
        return CR_EINVAL;
    }
    if (claimant != CR_WHITE && claimant != CR_BLACK) {
        return refuse(m, claimant, t, why, why_size, "the claimant must be White or Black");
    }
    if ((int)basis < CR_CLAIM_CANNOT_WIN || basis > CR_CLAIM_FIFTY_MOVES) {
        return refuse(m, claimant, t, why, why_size,
                      "unknown basis (a, b, threefold or fifty-moves expected)");
    }
    if (cr_monitor_game_over(m)) {
        return refuse(m, claimant, t, why, why_size, "the game is over (%s)",
                      cr_result_string(cr_game_result(m->game)));
    }
    if (m->claim_open) {
        return refuse(m, claimant, t, why, why_size, "claim %d awaits a decision",
                      m->claims[m->nclaims - 1]->id);
    }
    if (is_d1(basis)) {
        if (move) {
            return refuse(m, claimant, t, why, why_size, "a D1 claim is made without a move");
        }
        if (check_d1(m, claimant, t, why, why_size) != 0) {
            return CR_EINVAL;
        }
    } else if (cr_game_position(m->game)->side != claimant) {
        return refuse(m, claimant, t, why, why_size,
                      "%s is not to move: only the player to move claims under %s",
                      color_name(claimant), basis == CR_CLAIM_THREEFOLD ? "9.2" : "9.3");
    }
    cr_error err;
    cr_claim *c = make_claim(m, claimant, basis, cr_game_ply_count(m->game), move, &err);
    if (!c) {
        if (err.code == CR_ENOMEM) {
            return CR_ENOMEM;
        }
        return refuse(m, claimant, t, why, why_size, "the written move %.16s: %.100s", move,
                      err.text);
    }
    c->t = t;
    c->wall = m->wall;
    c->white_ms = remaining(m, CR_WHITE, t);
    c->black_ms = remaining(m, CR_BLACK, t);
    m->claims[m->nclaims++] = c;
    m->claim_open = true;
    char note[CR_INCIDENT_TEXT_MAX - 20];
    claim_text(c, note, sizeof note);
    add_comment((cr_game *)c->frozen, c->ply - 1, note);
    if (is_d1(basis)) {
        char wb[24], bb[24];
        fmt_ms(c->white_ms, wb);
        fmt_ms(c->black_ms, bb);
        return cr_monitor_log_incident(
            m, CR_INC_CLAIM, CR_URGENCY_WARNING, claimant, t,
            "claim %d: %s claims a draw (D1 %s: %s %s by normal means); clocks White %s, "
            "Black %s",
            c->id, color_name(claimant), basis == CR_CLAIM_CANNOT_WIN ? "a" : "b",
            color_name(claimant ^ 1),
            basis == CR_CLAIM_CANNOT_WIN ? "cannot win" : "makes no effort to win", wb, bb);
    }
    return cr_monitor_log_incident(m, CR_INC_CLAIM, CR_URGENCY_WARNING, claimant, t, "claim %d: %s",
                                   c->id, note);
}

int cr_monitor_claim(cr_monitor *m, int claimant, cr_claim_basis basis, int64_t t, char *why,
                     size_t why_size)
{
    return cr_monitor_claim_move(m, claimant, basis, NULL, t, why, why_size);
}

/* The decision's line in the scoresheets and the log. */
static void decision_text(const cr_claim *c, const char *note, char *text, size_t size)
{
    const char *basis = basis_label(c->basis);
    if (c->decision == CR_DECISION_DRAW) {
        snprintf(text, size, "Draw claim by %s (%s) upheld by the arbiter: draw.%s%.150s",
                 color_name(c->claimant), basis, note ? " " : "", note ? note : "");
    } else if (c->decision == CR_DECISION_REJECTED) {
        char add[24];
        fmt_ms(c->added_ms, add);
        snprintf(text, size,
                 "Draw claim by %s (%s) rejected by the arbiter; %s added to %s's clock.%s%.120s",
                 color_name(c->claimant), basis, add, color_name(c->claimant ^ 1), note ? " " : "",
                 note ? note : "");
    } else {
        snprintf(text, size, "Draw claim by %s (%s): decision postponed by the arbiter.%s%.150s",
                 color_name(c->claimant), basis, note ? " " : "", note ? note : "");
    }
}

int cr_monitor_decide(cr_monitor *m, cr_decision d, int32_t added_ms, const char *note, int64_t t)
{
    if (!m || !m->claim_open ||
        (d != CR_DECISION_DRAW && d != CR_DECISION_REJECTED && d != CR_DECISION_POSTPONED)) {
        return CR_EINVAL;
    }
    cr_claim *c = m->claims[m->nclaims - 1];
    int opp = c->claimant ^ 1;
    c->decision = d;
    c->decided_t = t;
    c->decided_wall = m->wall;
    snprintf(c->note, sizeof c->note, "%s", note ? note : "");
    if (d == CR_DECISION_REJECTED) {
        c->added_ms = added_ms >= 0 ? added_ms : m->cfg.claim_added_ms;
    }
    char text[CR_INCIDENT_TEXT_MAX];
    decision_text(c, note, text, sizeof text);
    /* Comment in the live game (if the claim's ply still stands) and in the
     * frozen scoresheet. */
    if (c->ply <= cr_game_ply_count(m->game)) {
        add_comment(m->game, c->ply - 1, text);
    }
    add_comment((cr_game *)c->frozen, c->ply - 1, text);
    if (d == CR_DECISION_REJECTED && m->clock && c->added_ms) {
        cr_clock_adjust(m->clock, opp, c->added_ms, t); /* first, so the log shows it */
    }
    int rc = cr_monitor_log_incident(m, CR_INC_DECISION, CR_URGENCY_INFO, c->claimant, t,
                                     "claim %d: %s", c->id, text);
    if (d == CR_DECISION_DRAW) {
        m->claim_open = false;
        cr_game_set_result((cr_game *)c->frozen, CR_RESULT_DRAW);
        /* Upheld after a postponement, the draw stands even if a flag fell
         * meanwhile (Guidelines III, and likewise for 9.2/9.3). */
        cr_result old = cr_game_result(m->game);
        if (old != CR_RESULT_DRAW) {
            cr_game_set_result(m->game, CR_RESULT_DRAW);
            m->last_result = CR_RESULT_DRAW;
            m->auto_end_ply = -1;
            if (old == CR_RESULT_NONE) {
                cr_monitor_log_incident(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t,
                                        "1/2-1/2: draw claim %d upheld (%s)", c->id,
                                        basis_label(c->basis));
            } else {
                cr_monitor_log_incident(
                    m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                    "result changed from %s to 1/2-1/2: draw claim %d upheld (%s)",
                    cr_result_string(old), c->id, basis_label(c->basis));
            }
        }
    } else if (d == CR_DECISION_REJECTED) {
        m->claim_open = false;
    }
    return rc;
}

/* ---------------------------------------------------------------- journal */

int cr_claim_format(const cr_claim *c, char *buf, size_t size)
{
    if (!c || !buf || (c->claimant != CR_WHITE && c->claimant != CR_BLACK) ||
        (int)c->basis < CR_CLAIM_CANNOT_WIN || c->basis > CR_CLAIM_FIFTY_MOVES) {
        return CR_EINVAL;
    }
    cr_sb o;
    cr_sb_init_fixed(&o, buf, size);
    cr_sb_fmt(&o,
              "%d\t%s\t%s\t%" PRId64 "\t%" PRId64 "\t%d\t%" PRId32 "\t%" PRId32 "\t%s\t%s\t%" PRId32
              "\t%" PRId64 "\t%" PRId64 "\t",
              c->id, c->claimant == CR_WHITE ? "w" : "b", cr_claim_basis_name(c->basis), c->t,
              c->wall, c->ply, c->white_ms, c->black_ms, c->move[0] ? c->move : "-",
              cr_decision_name(c->decision), c->added_ms, c->decided_t, c->decided_wall);
    cr_arb_escape(&o, c->note, sizeof c->note);
    return o.failed ? CR_ENOSPC : (int)o.len;
}

/* A whole decimal field [s, e) into *out. */
static bool field_int(const char *s, const char *e, int64_t *out)
{
    char tmp[24];
    size_t n = (size_t)(e - s);
    if (n == 0 || n >= sizeof tmp) {
        return false;
    }
    memcpy(tmp, s, n);
    tmp[n] = '\0';
    char *end;
    long long v = strtoll(tmp, &end, 10);
    if (*end) {
        return false;
    }
    *out = v;
    return true;
}

#define CLAIM_FIELDS 14

int cr_monitor_restore_claim(cr_monitor *m, const char *line, size_t len, cr_error *err)
{
    static const char *const names[CLAIM_FIELDS] = {
        "id",       "claimant", "basis",    "t",        "wall",      "ply",          "white_ms",
        "black_ms", "move",     "decision", "added_ms", "decided_t", "decided_wall", "note"};
    if (!m || !line) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "claim: no line");
    }
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
        len--;
    }
    const char *f[CLAIM_FIELDS], *fe[CLAIM_FIELDS];
    int nf = 0;
    f[0] = line;
    for (const char *p = line; p < line + len; p++) {
        if (*p == '\t') {
            if (nf == CLAIM_FIELDS - 1) {
                return cr_error_set(err, CR_EFEED, 0, (int)(p - line) + 1,
                                    "claim: more than %d fields", CLAIM_FIELDS);
            }
            fe[nf++] = p;
            f[nf] = p + 1;
        }
    }
    fe[nf++] = line + len;
    if (nf != CLAIM_FIELDS) {
        return cr_error_set(err, CR_EFEED, 0, (int)len + 1, "claim: %d fields, %d expected", nf,
                            CLAIM_FIELDS);
    }
    int64_t v[CLAIM_FIELDS] = {0};
    char word[CLAIM_FIELDS][24];
    for (int i = 0; i < CLAIM_FIELDS - 1; i++) {
        size_t n = (size_t)(fe[i] - f[i]);
        bool text = i == 1 || i == 2 || i == 8 || i == 9;
        bool ok = text ? n > 0 && n < sizeof word[i] : field_int(f[i], fe[i], &v[i]);
        if (ok && text) {
            memcpy(word[i], f[i], n);
            word[i][n] = '\0';
        }
        if (!ok) {
            return cr_error_set(err, CR_EFEED, 0, (int)(f[i] - line) + 1, "claim: bad %s",
                                names[i]);
        }
    }
    int claimant = strcmp(word[1], "w") == 0 ? CR_WHITE : strcmp(word[1], "b") == 0 ? CR_BLACK : -1;
    int basis = cr_claim_basis_parse(word[2]);
    int decision = -1;
    for (int d = CR_DECISION_NONE; d <= CR_DECISION_POSTPONED; d++) {
        if (strcmp(word[9], cr_decision_name((cr_decision)d)) == 0) {
            decision = d;
        }
    }
    char note[CR_INCIDENT_TEXT_MAX];
    const char *why = "";
    const char *bad = cr_arb_unescape(f[13], fe[13], note, sizeof note, &why);
    if (claimant < 0 || basis < 0 || decision < 0 || bad) {
        int i = claimant < 0 ? 1 : basis < 0 ? 2 : decision < 0 ? 9 : 13;
        return cr_error_set(err, CR_EFEED, 0, (int)((bad ? bad : f[i]) - line) + 1, "claim: bad %s",
                            names[i]);
    }
    int id = (int)v[0], ply = (int)v[5];
    cr_claim *c;
    if (id == m->nclaims + 1) {
        if (ply < 0 || ply > cr_game_ply_count(m->game)) {
            return cr_error_set(err, CR_EINVAL, 0, 0, "claim %d: ply %d, the game has %d", id, ply,
                                cr_game_ply_count(m->game));
        }
        const char *move = strcmp(word[8], "-") ? word[8] : NULL;
        c = make_claim(m, claimant, (cr_claim_basis)basis, ply, move, err);
        if (!c) {
            return err && err->code == CR_ENOMEM ? CR_ENOMEM : CR_EINVAL;
        }
        c->t = v[3];
        c->wall = v[4];
        c->white_ms = (int32_t)v[6];
        c->black_ms = (int32_t)v[7];
        m->claims[m->nclaims++] = c;
        char text[CR_INCIDENT_TEXT_MAX - 20];
        claim_text(c, text, sizeof text);
        add_comment((cr_game *)c->frozen, c->ply - 1, text);
    } else if (id >= 1 && id <= m->nclaims) {
        c = m->claims[id - 1];
    } else {
        return cr_error_set(err, CR_EINVAL, 0, 0, "claim %d: the monitor has %d claims", id,
                            m->nclaims);
    }
    if (decision != CR_DECISION_NONE &&
        (c->decision != (cr_decision)decision || c->decided_t != v[11])) {
        c->decision = (cr_decision)decision;
        c->added_ms = (int32_t)v[10];
        c->decided_t = v[11];
        c->decided_wall = v[12];
        snprintf(c->note, sizeof c->note, "%s", note);
        char text[CR_INCIDENT_TEXT_MAX];
        decision_text(c, note[0] ? note : NULL, text, sizeof text);
        add_comment((cr_game *)c->frozen, c->ply - 1, text);
        if (c->decision == CR_DECISION_DRAW) {
            cr_game_set_result((cr_game *)c->frozen, CR_RESULT_DRAW);
        }
    }
    const cr_claim *last = m->claims[m->nclaims - 1];
    m->claim_open = last->decision == CR_DECISION_NONE || last->decision == CR_DECISION_POSTPONED;
    return 0;
}

const cr_claim *cr_monitor_claim_last(const cr_monitor *m)
{
    return (m && m->nclaims) ? m->claims[m->nclaims - 1] : NULL;
}

int cr_monitor_claim_count(const cr_monitor *m)
{
    return m ? m->nclaims : 0;
}

const cr_claim *cr_monitor_claim_at(const cr_monitor *m, int i)
{
    return (m && i >= 0 && i < m->nclaims) ? m->claims[i] : NULL;
}
