/* Move inference: silences the search does not bridge. The budget of the
 * searches while the board is lost, the clock's count of the plies played
 * over a silence, the bound on guesses chained one onto another, and the
 * gap ply that stands for a stretch nobody saw (never an end of the game,
 * never invented moves). */
#include "infer_private.h"

/* The board is followed again: the searches of the next silence start
 * with their whole budget. */
void cr_infer__in_step(cr_infer *inf)
{
    inf->hunt_nodes = 0;
    inf->gave_up = false;
    inf->chain_base = -1;
}

/* The searches of this silence have used their budget: no more of them
 * (a long silence must not cost a search per picture for ever); the
 * stretch becomes a gap. True once it has run out (counted once). */
bool cr_infer__out_of_budget(cr_infer *inf)
{
    if (inf->hunt_nodes < HUNT_NODES) {
        return false;
    }
    if (!inf->gave_up) {
        inf->gave_up = true;
        inf->stats.gave_up++;
    }
    return true;
}

/* The plies played from `base` to the board as it stands, counted by the
 * clock: the presses since the last one read in step with the game, from
 * the time the increment added (elapsed - time used = presses x increment;
 * the readings' truncated seconds stay far inside one increment). -1 when
 * the clock cannot tell: no Fischer increment of GAP_INC_MIN_MS or more
 * seen, no reading since the silence, or one that does not fit. */
int cr_infer__clock_count(const cr_infer *inf, int base, int side_to_move)
{
    if (!inf->anchor_ok || inf->anchor_plies > base || !inf->clock_seen || inf->clock_stale || !inf->reading_counts ||
        inf->running != side_to_move || inf->clock_t <= inf->anchor_t || inf->t_change > inf->clock_t ||
        cr_clock_detected_mode(inf->clk) != CR_CLOCK_MODE_INCREMENT) {
        return -1;
    }
    int64_t inc = cr_clock_detected_bonus_ms(inf->clk);
    if (inc < GAP_INC_MIN_MS || inf->clock_ms[0] < 0 || inf->clock_ms[1] < 0) {
        return -1;
    }
    int64_t used = (int64_t)inf->anchor_ms[0] + inf->anchor_ms[1] - inf->clock_ms[0] - inf->clock_ms[1];
    int64_t gained = inf->clock_t - inf->anchor_t - used;
    int64_t presses = (gained + inc / 2) / inc;
    if (gained < 0 || presses > 1000 || llabs(gained - presses * inc) > 3000) {
        return -1;
    }
    /* A period's bonus (90/40+30 adds 30 minutes at move 40) would count as
     * presses: a stretch over move 40 or 60 is not counted. */
    int from = pos_at(inf, inf->anchor_plies)->fullmove, to = from + (int)presses / 2 + 1;
    if ((from <= 41 && to >= 40) || (from <= 61 && to >= 60)) {
        return -1;
    }
    /* the plies of the game since the anchor: a counted gap stands for its
     * count, one that is not makes the rest unknown */
    int played = 0;
    for (int i = inf->anchor_plies; i < base; i++) {
        const cr_ply *p = cr_game_ply(inf->game, i);
        if ((p->flags & CR_PLY_MISSING) && !(p->flags & CR_PLY_COUNTED)) {
            return -1;
        }
        played += (p->flags & CR_PLY_MISSING) ? p->missing : 1;
    }
    return (int)presses - played;
}

/* Plies guessed by a search just before ply `base`: the reconstruction
 * of the silence so far. */
int cr_infer__guessed_before(const cr_infer *inf, int base)
{
    int b = base;
    while (b > 0 && (cr_game_ply(inf->game, b - 1)->flags & CR_PLY_RECONSTRUCTED)) {
        b--;
    }
    return base - b;
}

/* A search may bridge MAX_SEQ plies, and a chain of searches no more: the
 * guesses before q and q's own plies together stay within one search. */
bool cr_infer__chain_ok(const cr_infer *inf, const seq *q)
{
    return cr_infer__guessed_before(inf, q->base) + q->n <= MAX_SEQ;
}

/* Whether s is p with pieces lifted and nothing else: every piece s shows
 * stands where p has it. A move in progress (a victim taken off before the
 * capturer lands, a piece held), never a game that went on. */
static bool only_lifted(const cr_position *p, const snap *s)
{
    if ((s->occ & ~p->occupied) != 0) {
        return false;
    }
    for (int sq = 0; sq < CR_SQ_NB; sq++) {
        if (((s->occ >> sq) & 1) && s->sq[sq] != p->board[sq]) {
            return false;
        }
    }
    return true;
}

/* The game goes on from the board as it stands, side_to_move to move
 * (-1: the side the clock runs for, else the game's): one ply flagged
 * CR_PLY_ILLEGAL | CR_PLY_MISSING holds the stretch nobody saw (no move is
 * invented), counted by the clock's presses when it can tell
 * (CR_PLY_COUNTED), else as the fewest plies that lead there; `reason` goes
 * with its MOVE event. A gap that nothing has followed yet is replaced,
 * never piled on: the board went on while it was still being read, or
 * (recount) the press after it lets the clock count it. */
int cr_infer__push_gap(cr_infer *inf, int side_to_move, int64_t t, const char *reason, bool arbiter, bool recount)
{
    if (!inf->game || !inf->have_snap || !plausible(&inf->cur)) {
        return CR_EINVAL;
    }
    int n = ply_count(inf);
    if (!recount && same_board(pos_at(inf, n), &inf->cur)) {
        return 0;
    }
    if (side_to_move != CR_WHITE && side_to_move != CR_BLACK) {
        side_to_move = inf->clock_seen && inf->running != CR_CLOCK_STOPPED ? inf->running : pos_at(inf, n)->side;
    }
    int base = n;
    const cr_ply *last = n > 0 ? cr_game_ply(inf->game, n - 1) : NULL;
    if (last && (last->flags & CR_PLY_MISSING) && last->missing > 0) {
        base = n - 1; /* the gap before it is the same silence */
    } else if (!arbiter && inf->chain_base >= 0 && inf->chain_base < n) {
        base = inf->chain_base; /* guesses the next search could not go on from */
    }
    const cr_position *pb = pos_at(inf, base);
    if (!arbiter && only_lifted(pos_at(inf, n), &inf->cur)) {
        return CR_EINVAL; /* pieces lifted however long: the move is still being made */
    }
    int plies = cr_infer__plies_needed(pb, &inf->cur, side_to_move);
    if (plies < 0 && !arbiter) {
        return CR_EINVAL; /* pieces set up anew, not a game gone on: ATTENTION stands */
    }
    int counted = plies >= 0 ? cr_infer__clock_count(inf, base, side_to_move) : -1;
    if (counted < plies || (counted - plies) % 2 != 0) {
        counted = -1; /* the clock says fewer than the board needs, or the wrong side: not told */
    }
    if (recount && (counted < 0 || base == n)) {
        return CR_EINVAL;
    }
    if (counted >= 0) {
        plies = counted;
    }
    cr_position after;
    if (cr_infer__board_position_n(pb, &inf->cur, side_to_move, plies > 0 ? plies : 0, &after) != 0) {
        return CR_EINVAL;
    }
    if (t < inf->t_last) {
        t = inf->t_last;
    }
    inf->has_pending = false;
    inf->have_illegal = false;
    if (base < n) {
        cr_game_truncate(inf->game, base);
        if (base < inf->anchor_plies) {
            inf->anchor_ok = false; /* the plies it counted from are gone */
        }
        inf->stats.corrections++;
        inf->stats.retracted += (uint64_t)(n - base);
        cr_infer_event ce;
        memset(&ce, 0, sizeof ce);
        ce.kind = CR_INFER_CORRECTION;
        ce.t = t;
        ce.ply = base;
        ce.retracted = n - base;
        ce.reason = recount ? "gap counted by the clock" : "gap went on";
        ce.running = CR_CLOCK_STOPPED;
        emit(inf, &ce);
    }
    int rc = cr_game_push_illegal(inf->game, &after, "--", CR_CLOCK_UNKNOWN, t);
    if (rc != 0) {
        return rc;
    }
    int idx = cr_game_ply_count(inf->game) - 1;
    cr_ply *gp = cr_game_ply_mut(inf->game, idx);
    gp->flags |= CR_PLY_MISSING | (counted > 0 ? CR_PLY_COUNTED : 0u);
    gp->missing = (uint16_t)(plies > 0 ? plies : 0);
    inf->stats.gaps_counted += counted > 0;
    if (inf->gave_up) {
        cr_game_set_comment(inf->game, idx, "search gave up");
    }
    if (inf->plies_at_press > idx) {
        inf->plies_at_press = idx;
    }
    if (inf->confirmed > idx) {
        inf->confirmed = idx;
    }
    if (inf->ended && !inf->ended_by_board) {
        inf->ended = false;
        cr_game_set_result(inf->game, CR_RESULT_NONE);
    }
    inf->stats.moves++;
    cr_infer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = CR_INFER_MOVE;
    ev.t = t;
    ev.t_snapshot = inf->t_change;
    ev.ply = idx;
    ev.reason = reason;
    ev.running = CR_CLOCK_STOPPED;
    emit(inf, &ev);
    inf->explained = true;
    inf->lost = false;
    inf->gap_open = false;
    cr_infer__in_step(inf);
    inf->swept = false;
    inf->nseen = 0;
    inf->searched = 0;
    cr_infer__resynced(inf, t);
    if (!inf->ended) {
        cr_infer__check_status(inf, t);
    }
    return 0;
}

bool cr_infer__recount_gap(cr_infer *inf, int presser, int64_t t)
{
    int n = ply_count(inf);
    const cr_ply *last = n > 0 ? cr_game_ply(inf->game, n - 1) : NULL;
    if (!last || !(last->flags & CR_PLY_MISSING) || (last->flags & CR_PLY_COUNTED) || last->missing == 0 ||
        inf->running == CR_CLOCK_STOPPED || (last->after.side ^ 1) != presser || n - 1 < inf->plies_at_press ||
        !same_board(&last->after, &inf->cur) || inf->has_pending) {
        return false;
    }
    /* the press that ends the gap's last ply: the clock may count it now */
    return cr_infer__push_gap(inf, inf->running, t, "gap counted by the clock", false, true) == 0;
}

void cr_infer__anchor(cr_infer *inf, int64_t t)
{
    if (inf->running != CR_CLOCK_STOPPED && inf->explained && !inf->has_pending && !inf->lost && !inf->gap_open &&
        cr_game_position(inf->game)->side == inf->running) {
        /* in step: the next silence's presses are counted from here */
        inf->anchor_ok = true;
        inf->anchor_t = t;
        inf->anchor_ms[CR_WHITE] = inf->clock_ms[CR_WHITE];
        inf->anchor_ms[CR_BLACK] = inf->clock_ms[CR_BLACK];
        inf->anchor_plies = ply_count(inf);
    }
}
