/* Quickplay-finish draw claims (FIDE Appendix D1) with their evidence, and
 * the arbiter's decisions on them (see cr/arbiter.h). */
#include "cr/arbiter.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter_private.h"

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

int cr_monitor_claim(cr_monitor *m, int claimant, cr_claim_basis basis, int64_t t, char *why,
                     size_t why_size)
{
    if (!m) {
        return CR_EINVAL;
    }
    if (claimant != CR_WHITE && claimant != CR_BLACK) {
        return refuse(m, claimant, t, why, why_size, "the claimant must be White or Black");
    }
    if (basis != CR_CLAIM_CANNOT_WIN && basis != CR_CLAIM_NO_EFFORT) {
        return refuse(m, claimant, t, why, why_size, "unknown basis (a or b expected)");
    }
    if (!m->cfg.quickplay_finish) {
        return refuse(m, claimant, t, why, why_size,
                      "this event has no quickplay finish: D1 claims are not allowed");
    }
    if (cr_monitor_game_over(m)) {
        return refuse(m, claimant, t, why, why_size, "the game is over (%s)",
                      cr_result_string(cr_game_result(m->game)));
    }
    if (m->claim_open) {
        return refuse(m, claimant, t, why, why_size, "claim %d awaits a decision",
                      m->claims[m->nclaims - 1]->id);
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
    cr_claim *c = calloc(1, sizeof *c);
    cr_claim **list = c ? realloc(m->claims, (size_t)(m->nclaims + 1) * sizeof *list) : NULL;
    cr_game *frozen = list ? cr_game_clone(m->game) : NULL;
    if (!frozen) {
        if (list) {
            m->claims = list;
        }
        free(c);
        return CR_ENOMEM;
    }
    m->claims = list;
    c->id = m->nclaims + 1;
    c->claimant = claimant;
    c->basis = basis;
    c->t = t;
    c->wall = m->wall;
    c->ply = cr_game_ply_count(m->game);
    c->white_ms = remaining(m, CR_WHITE, t);
    c->black_ms = remaining(m, CR_BLACK, t);
    c->frozen = frozen;
    c->decided_t = c->decided_wall = -1;
    /* The scoresheet shows each mover's clock: fill what the board did not
     * give from the clock as seen when the ply arrived. */
    for (int i = 0; i < c->ply && i < m->ply_cap; i++) {
        cr_ply *p = cr_game_ply_mut(frozen, i);
        if (p->clock_ms < 0) {
            p->clock_ms = m->ply_clock[i][cr_game_position_at(frozen, i)->side];
        }
    }
    compute_evidence(m, c);
    m->claims[m->nclaims++] = c;
    m->claim_open = true;
    char wb[24], bb[24];
    fmt_ms(c->white_ms, wb);
    fmt_ms(c->black_ms, bb);
    char note[160];
    snprintf(note, sizeof note, "Draw claim by %s (D1 %s) with White %s, Black %s.",
             color_name(claimant), basis == CR_CLAIM_CANNOT_WIN ? "a" : "b", wb, bb);
    add_comment(frozen, c->ply - 1, note);
    return cr_monitor_log_incident(
        m, CR_INC_CLAIM, CR_URGENCY_WARNING, claimant, t,
        "claim %d: %s claims a draw (D1 %s: %s %s by normal means); clocks White %s, "
        "Black %s",
        c->id, color_name(claimant), basis == CR_CLAIM_CANNOT_WIN ? "a" : "b",
        color_name(claimant ^ 1),
        basis == CR_CLAIM_CANNOT_WIN ? "cannot win" : "makes no effort to win", wb, bb);
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
    char text[CR_INCIDENT_TEXT_MAX];
    const char *basis = c->basis == CR_CLAIM_CANNOT_WIN ? "a" : "b";
    if (d == CR_DECISION_DRAW) {
        snprintf(text, sizeof text, "Draw claim by %s (D1 %s) upheld by the arbiter: draw.%s%.150s",
                 color_name(c->claimant), basis, note ? " " : "", note ? note : "");
    } else if (d == CR_DECISION_REJECTED) {
        c->added_ms = added_ms >= 0 ? added_ms : m->cfg.claim_added_ms;
        char add[24];
        fmt_ms(c->added_ms, add);
        snprintf(
            text, sizeof text,
            "Draw claim by %s (D1 %s) rejected by the arbiter; %s added to %s's clock.%s%.120s",
            color_name(c->claimant), basis, add, color_name(opp), note ? " " : "",
            note ? note : "");
    } else {
        snprintf(text, sizeof text,
                 "Draw claim by %s (D1 %s): decision postponed by the arbiter.%s%.150s",
                 color_name(c->claimant), basis, note ? " " : "", note ? note : "");
    }
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
         * meanwhile (Guidelines III). */
        cr_result old = cr_game_result(m->game);
        if (old != CR_RESULT_DRAW) {
            cr_game_set_result(m->game, CR_RESULT_DRAW);
            m->last_result = CR_RESULT_DRAW;
            m->auto_end_ply = -1;
            if (old == CR_RESULT_NONE) {
                cr_monitor_log_incident(m, CR_INC_RESULT, CR_URGENCY_INFO, -1, t,
                                        "1/2-1/2: draw claim %d upheld (D1)", c->id);
            } else {
                cr_monitor_log_incident(
                    m, CR_INC_CORRECTION, CR_URGENCY_INFO, -1, t,
                    "result changed from %s to 1/2-1/2: draw claim %d upheld (D1)",
                    cr_result_string(old), c->id);
            }
        }
    } else if (d == CR_DECISION_REJECTED) {
        m->claim_open = false;
    }
    return rc;
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
