/* Move inference: the game record. What the state machine (infer.c)
 * decided becomes final here: plies retracted and appended with the flags
 * that say what the board did not show, the clock readings a replaced
 * move keeps or a press left waiting, the result, and the events the
 * caller sees. Nothing here decides what a snapshot is. */
#include "infer_private.h"

void cr_infer__set_result(cr_infer *inf, cr_result r, const char *reason, int64_t t)
{
    cr_game_set_result(inf->game, r);
    inf->ended = true;
    cr_infer_event ev = {
        .kind = CR_INFER_GAME_ENDED, .t = t, .result = r, .reason = reason, .running = CR_CLOCK_STOPPED};
    emit(inf, &ev);
}

void cr_infer__check_status(cr_infer *inf, int64_t t)
{
    const cr_position *p = cr_game_position(inf->game);
    switch (cr_position_status(p)) {
    case CR_STATUS_CHECKMATE:
        cr_infer__set_result(inf, p->side == CR_WHITE ? CR_RESULT_BLACK : CR_RESULT_WHITE, "checkmate", t);
        break;
    case CR_STATUS_STALEMATE:
        cr_infer__set_result(inf, CR_RESULT_DRAW, "stalemate", t);
        break;
    case CR_STATUS_DEAD:
        cr_infer__set_result(inf, CR_RESULT_DRAW, "dead position", t);
        break;
    default:
        break;
    }
}

void cr_infer__resynced(cr_infer *inf, int64_t t)
{
    if (inf->attention) {
        inf->attention = false;
        emit_simple(inf, CR_INFER_RESYNCED, t, "board matches the game again");
    }
}

void cr_infer__remember_board(cr_infer *inf, const uint8_t *board)
{
    memcpy(inf->seen[inf->seen_head], board, CR_SQ_NB);
    inf->seen_head = (inf->seen_head + 1) % SEEN_MAX;
    if (inf->nseen < SEEN_MAX) {
        inf->nseen++;
    }
}

/* Did the board show this since the last commit? */
static bool was_seen(const cr_infer *inf, const uint8_t *board)
{
    for (int k = 0; k < inf->nseen; k++) {
        int i = (inf->seen_head - 1 - k + SEEN_MAX) % SEEN_MAX;
        if (memcmp(inf->seen[i], board, CR_SQ_NB) == 0) {
            return true;
        }
    }
    return false;
}

/* The other sequences that fitted, as the comment of the sequence's first
 * ply: "also Nf3 Nc6 Nc3 Nf6 or ... (and 3 more)". */
static void note_alternatives(cr_infer *inf, const seq *q, int idx)
{
    char text[512];
    size_t len = (size_t)snprintf(text, sizeof text, "also");
    for (int a = 0; a < q->nalt && len < sizeof text; a++) {
        if (a > 0) {
            len += (size_t)snprintf(text + len, sizeof text - len, " or");
        }
        cr_position p = *pos_at(inf, q->base);
        for (int i = 0; i < q->n && len < sizeof text; i++) {
            char san[CR_SAN_MAX];
            if (cr_move_to_san(&p, q->alt[a][i], san, sizeof san) < 0) {
                break;
            }
            len += (size_t)snprintf(text + len, sizeof text - len, " %s", san);
            cr_position_do_move(&p, q->alt[a][i]);
        }
    }
    if (q->fits > q->nalt + 1 && len < sizeof text) {
        snprintf(text + len, sizeof text - len, " (and %d more)", q->fits - q->nalt - 1);
    }
    (void)cr_game_set_comment(inf->game, idx, text);
}

/* Takes back the plies from q->base on, keeping their clock readings
 * (and times used) in old_clock/old_emt for the moves that replace them.
 * Returns how many were kept. */
static int retract(cr_infer *inf, const seq *q, int64_t t_snapshot, int64_t t, int32_t old_clock[MAX_SEQ],
                   int32_t old_emt[MAX_SEQ])
{
    int n = ply_count(inf);
    int nold = 0;
    bool confirmed = inf->confirmed > q->base;
    for (int i = q->base; i < n && nold < MAX_SEQ; i++) {
        old_emt[nold] = cr_game_ply(inf->game, i)->emt_ms;
        old_clock[nold++] = cr_game_ply(inf->game, i)->clock_ms;
    }
    cr_game_truncate(inf->game, q->base);
    if (q->base < inf->anchor_plies) {
        inf->anchor_ok = false; /* the clock's count started from plies now gone */
    }
    if (inf->plies_at_press > q->base) {
        inf->plies_at_press = q->base;
    }
    if (inf->confirmed > q->base) {
        inf->confirmed = q->base;
    }
    if (inf->ended && !inf->ended_by_board) {
        inf->ended = false;
        cr_game_set_result(inf->game, CR_RESULT_NONE);
    }
    inf->stats.corrections++;
    inf->stats.retracted += (uint64_t)(n - q->base);
    if (!confirmed && q->n > 0) {
        inf->stats.replaced += (uint64_t)(n - q->base);
    }
    cr_infer_event ev = {.kind = CR_INFER_CORRECTION,
                         .t = t,
                         .t_snapshot = t_snapshot,
                         .ply = q->base,
                         .retracted = n - q->base,
                         .reason = q->n == 0 ? "takeback" : confirmed ? "takeback and another move" : "replaced",
                         .running = CR_CLOCK_STOPPED};
    emit(inf, &ev);
    return nold;
}

void cr_infer__commit(cr_infer *inf, const seq *q, int64_t t_snapshot, int64_t t)
{
    int32_t old_clock[MAX_SEQ], old_emt[MAX_SEQ];
    int nold = 0;
    if (q->base < ply_count(inf)) {
        nold = retract(inf, q, t_snapshot, t, old_clock, old_emt);
    }
    cr_position walk = *pos_at(inf, q->base);
    bool before_seen = true; /* the position before the ply is certain */
    for (int i = 0; i < q->n; i++) {
        uint32_t flags = 0;
        int rc;
        bool shown = false;
        if (q->reconstructed && !(i == 0 && q->illegal)) {
            /* Only plies the board did not show are guesses: shown is a
             * ply whose positions before and after the board both showed. */
            cr_position_do_move(&walk, q->moves[i]);
            bool after_seen = was_seen(inf, walk.board);
            shown = before_seen && after_seen;
            before_seen = after_seen;
        }
        if (q->reconstructed && !shown) {
            flags |= CR_PLY_RECONSTRUCTED;
            if (q->fits > 1) {
                flags |= CR_PLY_AMBIGUOUS;
            }
        }
        if (i == 0 && q->illegal) {
            rc = cr_game_push_illegal(inf->game, &q->after, q->illegal_text, CR_CLOCK_UNKNOWN, t_snapshot);
            inf->stats.illegal++;
        } else {
            rc = cr_game_push(inf->game, q->moves[i], CR_CLOCK_UNKNOWN, t_snapshot, flags);
        }
        if (rc != 0) {
            break; /* cannot happen for generated moves; keep the game consistent */
        }
        int idx = cr_game_ply_count(inf->game) - 1;
        cr_ply *pl = cr_game_ply_mut(inf->game, idx);
        pl->fits = q->fits ? q->fits : 1;
        if (i < nold && old_clock[i] != CR_CLOCK_UNKNOWN) {
            pl->clock_ms = old_clock[i]; /* a replaced move keeps its press */
            pl->emt_ms = old_emt[i];
        }
        if (i == q->n - 1 && inf->stash_valid) {
            int mover = !pl->after.side;
            if (mover == inf->stash_color) {
                pl->clock_ms = inf->stash_ms;
                pl->emt_ms = inf->stash_emt;
                inf->stash_valid = false;
            }
        }
        if (i == 0 && q->fits > 1 && q->nalt > 0) {
            note_alternatives(inf, q, idx);
        }
        inf->stats.moves++;
        cr_infer_event ev = {
            .kind = CR_INFER_MOVE, .t = t, .t_snapshot = t_snapshot, .ply = idx, .running = CR_CLOCK_STOPPED};
        emit(inf, &ev);
    }
    if (q->fits > 1) {
        inf->stats.attentions++;
        emit_simple(inf, CR_INFER_ATTENTION, t, "ambiguous: more than one move sequence fits the missed snapshots");
    }
    inf->has_pending = false;
    inf->have_illegal = false;
    inf->swept = false;
    inf->nseen = 0;
    if (q->n > 0) {
        inf->lost = false;
    }
    if (q->n > 0 && !q->reconstructed) {
        /* a move the board was followed through: the next stretch's
         * searches start afresh (guesses do not: a board that keeps
         * being guessed anew keeps spending the one budget) */
        inf->hunt_nodes = 0;
        inf->chain_base = -1;
        inf->gave_up = false;
    }
    cr_infer__resynced(inf, t);
    if (!inf->ended) {
        cr_infer__check_status(inf, t);
    }
}
