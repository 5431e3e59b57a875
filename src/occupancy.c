/* Naming occupancy snapshots by legal play: see cr/occupancy.h. */
#include "cr/occupancy.h"

#include <stdlib.h>
#include <string.h>

#define HIST 9 /* the position followed and the 8 before it */

static const cr_bb START_OCC = 0xFFFF00000000FFFFull;

struct cr_occ_namer {
    bool synced;
    cr_position hist[HIST]; /* hist[nhist - 1] is the position followed */
    int nhist;
    cr_bb vacated;          /* squares seen empty since it was reached */
    /* The last snapshot, when it was not explained: its occupancy and time. */
    bool held;
    cr_bb held_occ;
    int64_t held_t;
    /* 1: the board stands the right way round; -1: turned 180 degrees (the
     * namer works on the turned squares); 0: not known since the start. */
    int orient;
};

bool cr_occ_has_unknown(const uint8_t squares[CR_SQ_NB])
{
    for (int i = 0; i < CR_SQ_NB; i++) {
        if (squares[i] == CR_OCCUPIED) {
            return true;
        }
    }
    return false;
}

cr_occ_namer *cr_occ_namer_new(void)
{
    return calloc(1, sizeof(cr_occ_namer));
}

void cr_occ_namer_free(cr_occ_namer *n)
{
    free(n);
}

void cr_occ_namer_set(cr_occ_namer *n, const cr_position *pos)
{
    n->hist[0] = *pos;
    n->nhist = 1;
    n->synced = true;
    n->vacated = 0;
    n->held = false;
    n->orient = 1;
}

static void turn(const uint8_t in[CR_SQ_NB], uint8_t out[CR_SQ_NB])
{
    for (int s = 0; s < CR_SQ_NB; s++) {
        out[s] = in[s ^ 63];
    }
}

const cr_position *cr_occ_namer_position(const cr_occ_namer *n)
{
    return n->synced ? &n->hist[n->nhist - 1] : NULL;
}

/* What the snapshot says: occupied squares, and the pieces it names. */
typedef struct want {
    cr_bb occ;
    cr_bb named;
    const uint8_t *sq;
} want;

static bool fits(const cr_position *p, const want *w)
{
    if (p->occupied != w->occ) {
        return false;
    }
    for (cr_bb b = w->named; b; b &= b - 1) {
        int s = __builtin_ctzll(b);
        if (p->board[s] != w->sq[s]) {
            return false;
        }
    }
    return true;
}

typedef struct cands {
    cr_position pos[8];
    int from[8];       /* history index the candidate starts from */
    bool capture[8];   /* reached by a capture whose victim's square ... */
    bool seen_empty[8];/* ... was seen empty */
    int n;
    int total;         /* distinct placements found (may exceed 8) */
} cands;

static void add(cands *c, const cr_position *p, int from, bool capture, bool seen_empty)
{
    for (int i = 0; i < c->n; i++) {
        if (memcmp(c->pos[i].board, p->board, CR_SQ_NB) == 0) {
            return;
        }
    }
    c->total++;
    if (c->n < 8) {
        c->pos[c->n] = *p;
        c->from[c->n] = from;
        c->capture[c->n] = capture;
        c->seen_empty[c->n] = seen_empty;
        c->n++;
    }
}

/* One legal move from hist[h] to a fitting position. Promotions other than
 * to a queen are skipped: occupancy cannot tell them apart. */
static void one_move(const cr_occ_namer *n, int h, const want *w, cands *c, bool unseen_ok)
{
    const cr_position *base = &n->hist[h];
    cr_movelist ml;
    cr_generate_legal(base, &ml);
    for (int i = 0; i < ml.count; i++) {
        cr_move m = ml.moves[i];
        if (cr_move_kind(m) == CR_MOVE_PROMOTION && cr_move_promo(m) != CR_QUEEN &&
            !(w->named >> cr_move_to(m) & 1)) {
            continue; /* unless the board names the piece */
        }
        cr_position p = *base;
        cr_position_do_move(&p, m);
        if (fits(&p, w)) {
            int to = cr_move_to(m);
            bool cap = cr_move_kind(m) != CR_MOVE_CASTLE && base->board[to] != CR_NO_PIECE;
            /* A capture leaves the same squares occupied as the mover held
             * in the air: it counts once its victim was seen lifted. */
            if (!cap || unseen_ok || (n->vacated >> to & 1)) {
                add(c, &p, h, cap, cap);
            }
        }
    }
}

/* Keeps the captures whose victim was seen lifted, if any is. */
static void prefer_seen(cands *c)
{
    int keep = 0;
    for (int i = 0; i < c->n; i++) {
        keep += c->seen_empty[i];
    }
    if (keep == 0 || keep == c->n || c->total != c->n) {
        return;
    }
    int k = 0;
    for (int i = 0; i < c->n; i++) {
        if (c->seen_empty[i]) {
            c->pos[k] = c->pos[i];
            c->from[k] = c->from[i];
            c->capture[k] = c->capture[i];
            c->seen_empty[k] = true;
            k++;
        }
    }
    c->n = c->total = k;
}

static void adopt(cr_occ_namer *n, const cr_position *p, int from)
{
    n->nhist = from + 1; /* a take-back drops what came after */
    if (memcmp(n->hist[n->nhist - 1].board, p->board, CR_SQ_NB) != 0 ||
        n->hist[n->nhist - 1].side != p->side) {
        if (n->nhist == HIST) {
            memmove(&n->hist[0], &n->hist[1], (HIST - 1) * sizeof n->hist[0]);
            n->nhist--;
        }
        n->hist[n->nhist++] = *p;
    }
    n->vacated = 0;
}

/* The best picture of an in-between board: the followed position with the
 * emptied squares cleared, and one piece carried to one new square. */
static void picture(const cr_occ_namer *n, const want *w, uint8_t out[CR_SQ_NB])
{
    const cr_position *p = &n->hist[n->nhist - 1];
    cr_bb gone = p->occupied & ~w->occ, arrived = w->occ & ~p->occupied;
    memcpy(out, p->board, CR_SQ_NB);
    for (cr_bb b = gone; b; b &= b - 1) {
        out[__builtin_ctzll(b)] = CR_NO_PIECE;
    }
    if (__builtin_popcountll(gone) == 1 && __builtin_popcountll(arrived) == 1) {
        out[__builtin_ctzll(arrived)] = p->board[__builtin_ctzll(gone)];
    }
    for (cr_bb b = w->named; b; b &= b - 1) {
        int s = __builtin_ctzll(b);
        out[s] = w->sq[s];
    }
}

/* The board stood hold_ms with one piece gone from the followed position and
 * no victim seen lifted: a capture whose victim was swapped for the mover in
 * one motion, if exactly one capture by that piece leaves these squares
 * occupied (a piece held in the air that long is rarer than that). */
static bool settle_swap_capture(cr_occ_namer *n)
{
    const cr_position *top = &n->hist[n->nhist - 1];
    cr_bb gone = top->occupied & ~n->held_occ;
    if ((n->held_occ & ~top->occupied) || __builtin_popcountll(gone) != 1) {
        return false;
    }
    int from = __builtin_ctzll(gone);
    cr_movelist ml;
    cr_generate_legal(top, &ml);
    cr_position found;
    int nfound = 0;
    for (int i = 0; i < ml.count; i++) {
        cr_move m = ml.moves[i];
        int to = cr_move_to(m);
        if (cr_move_from(m) != from || cr_move_kind(m) == CR_MOVE_CASTLE ||
            top->board[to] == CR_NO_PIECE ||
            (cr_move_kind(m) == CR_MOVE_PROMOTION && cr_move_promo(m) != CR_QUEEN)) {
            continue;
        }
        found = *top;
        cr_position_do_move(&found, m);
        nfound++;
    }
    if (nfound == 1) {
        adopt(n, &found, n->nhist - 1);
        return true;
    }
    return false;
}

static cr_bb occupancy_of(const uint8_t in[CR_SQ_NB])
{
    cr_bb occ = 0;
    for (int s = 0; s < CR_SQ_NB; s++) {
        if (in[s] != CR_NO_PIECE) {
            occ |= 1ull << s;
        }
    }
    return occ;
}

static bool settle_frame(cr_occ_namer *n, int64_t t, const uint8_t in[CR_SQ_NB],
                         uint8_t out[CR_SQ_NB])
{
    if (!n->synced || !n->held || occupancy_of(in) == n->held_occ || t - n->held_t < CR_OCC_HOLD_MS) {
        return false;
    }
    n->held = false;
    if (!settle_swap_capture(n)) {
        return false;
    }
    memcpy(out, n->hist[n->nhist - 1].board, CR_SQ_NB);
    return true;
}

/* What the board shows: the occupied squares, and those a piece is named on. */
static want want_of(const uint8_t in[CR_SQ_NB])
{
    want w = {0, 0, in};
    for (int s = 0; s < CR_SQ_NB; s++) {
        if (in[s] != CR_NO_PIECE) {
            w.occ |= 1ull << s;
            if (in[s] != CR_OCCUPIED) {
                w.named |= 1ull << s;
            }
        }
    }
    return w;
}

/* Two moves from the newest position (a snapshot missed), into c; stops
 * once more than eight fit. */
static void two_moves(const cr_occ_namer *n, int top, const want *w, bool arrival, cands *c)
{
    cr_movelist ml;
    cr_generate_legal(&n->hist[top], &ml);
    for (int i = 0; i < ml.count && c->total <= 8; i++) {
        cr_move m = ml.moves[i];
        if (cr_move_kind(m) == CR_MOVE_PROMOTION && cr_move_promo(m) != CR_QUEEN) {
            continue;
        }
        int to = cr_move_to(m);
        if (cr_move_kind(m) != CR_MOVE_CASTLE && n->hist[top].board[to] != CR_NO_PIECE &&
            !(n->vacated >> to & 1) && !arrival) {
            continue; /* a capture whose victim was not seen lifted */
        }
        cr_occ_namer tmp = *n;
        cr_position p = n->hist[top];
        cr_position_do_move(&p, m);
        adopt(&tmp, &p, top);
        /* the second move may take what the first set down unseen;
         * with a piece set down somewhere new, any capture (two lifts
         * alone never set a piece down: no false fit from them) */
        tmp.vacated = arrival ? ~0ull : n->vacated | ~n->hist[top].occupied;
        cands c2;
        memset(&c2, 0, sizeof c2);
        one_move(&tmp, tmp.nhist - 1, w, &c2, false);
        for (int k = 0; k < c2.n; k++) {
            add(c, &c2.pos[k], top, c2.capture[k], c2.seen_empty[k]);
        }
    }
}

/* The candidates of one tier, cheapest first as the inference explains a
 * board: 0 one move; 1 an earlier position (take-back); 2 an earlier
 * position and a move; 3 two moves. */
static void tier_cands(const cr_occ_namer *n, int tier, int top, const want *w, bool arrival, cands *c)
{
    memset(c, 0, sizeof *c);
    if (tier == 0) {
        one_move(n, top, w, c, false);
    } else if (tier == 1) {
        for (int h = top - 1; h >= 0; h--) {
            if (fits(&n->hist[h], w)) {
                add(c, &n->hist[h], h, false, false);
            }
        }
    } else if (tier == 2) {
        for (int h = top - 1; h >= 0; h--) {
            one_move(n, h, w, c, false);
        }
    } else {
        two_moves(n, top, w, arrival, c);
    }
}

/* Two moves lead from the newest position to target: the first is
 * implied; both are adopted, so that a take-back of one ply finds the
 * first. False if no pair of moves gives target. */
static bool adopt_two_moves(cr_occ_namer *n, int top, const cr_position *target)
{
    cr_movelist ml;
    cr_generate_legal(&n->hist[top], &ml);
    for (int i = 0; i < ml.count; i++) {
        cr_move m = ml.moves[i];
        if (cr_move_kind(m) == CR_MOVE_PROMOTION && cr_move_promo(m) != CR_QUEEN) {
            continue;
        }
        cr_position p = n->hist[top];
        cr_position_do_move(&p, m);
        cr_movelist ml2;
        cr_generate_legal(&p, &ml2);
        for (int j = 0; j < ml2.count; j++) {
            cr_position q = p;
            cr_position_do_move(&q, ml2.moves[j]);
            if (memcmp(q.board, target->board, CR_SQ_NB) == 0 && q.side == target->side) {
                adopt(n, &p, top);
                adopt(n, &q, n->nhist - 1);
                return true;
            }
        }
    }
    return false;
}

/* One move made and a piece (or two) lifted after it: the move counts
 * when it is the only one that set down what arrived. Adopts it; returns
 * the newest position's index. */
static int move_then_lift(cr_occ_namer *n, int top, const want *w)
{
    const cr_position *base = &n->hist[top];
    cr_bb arrived = w->occ & ~base->occupied;
    cr_movelist ml;
    cr_generate_legal(base, &ml);
    cr_position found;
    int nfound = 0;
    for (int i = 0; arrived && i < ml.count && nfound < 2; i++) {
        cr_move m = ml.moves[i];
        int to = cr_move_to(m);
        bool cap = cr_move_kind(m) != CR_MOVE_CASTLE && base->board[to] != CR_NO_PIECE;
        if ((cr_move_kind(m) == CR_MOVE_PROMOTION && cr_move_promo(m) != CR_QUEEN) ||
            (cap && !(n->vacated >> to & 1))) {
            continue;
        }
        cr_position p = *base;
        cr_position_do_move(&p, m);
        cr_bb lifted = p.occupied & ~w->occ;
        if ((w->occ & ~p.occupied) || __builtin_popcountll(lifted) > 2) {
            continue;
        }
        bool named_ok = true;
        for (cr_bb b = w->named & p.occupied; b; b &= b - 1) {
            int sq = __builtin_ctzll(b);
            named_ok = named_ok && p.board[sq] == w->sq[sq];
        }
        if (named_ok && (nfound == 0 || memcmp(found.board, p.board, CR_SQ_NB) != 0)) {
            found = p;
            nfound++;
        }
    }
    if (nfound == 1) {
        adopt(n, &found, top);
        return n->nhist - 1;
    }
    return top;
}

static int name_frame(cr_occ_namer *n, int64_t t, const uint8_t in[CR_SQ_NB], uint8_t out[CR_SQ_NB])
{
    want w = want_of(in);
    if (w.occ == START_OCC) {
        cr_position start;
        cr_position_init_start(&start);
        if (fits(&start, &w)) {
            cr_occ_namer_set(n, &start);
            n->orient = 0; /* the start's occupancy looks the same both ways */
            memcpy(out, start.board, CR_SQ_NB);
            return 1;
        }
    }
    bool was_held = n->held;
    n->held = false;
    if (!n->synced) {
        for (int s = 0; s < CR_SQ_NB; s++) {
            out[s] = in[s] == CR_OCCUPIED ? CR_NO_PIECE : in[s];
        }
        return 0;
    }
    int top = n->nhist - 1;
    if (fits(&n->hist[top], &w)) {
        memcpy(out, n->hist[top].board, CR_SQ_NB);
        return 1;
    }
    bool arrival = (w.occ & ~n->hist[top].occupied) != 0;
    for (int tier = 0; tier < 4; tier++) {
        cands c;
        tier_cands(n, tier, top, &w, arrival, &c);
        if (c.total == 0) {
            continue;
        }
        prefer_seen(&c);
        if (c.total > 1) {
            break; /* several fit: not named yet */
        }
        if (!(tier == 3 && adopt_two_moves(n, top, &c.pos[0]))) {
            adopt(n, &c.pos[0], c.from[0]);
        }
        memcpy(out, c.pos[0].board, CR_SQ_NB);
        return 1;
    }
    top = move_then_lift(n, top, &w);
    n->vacated |= n->hist[top].occupied & ~w.occ;
    if (!was_held || w.occ != n->held_occ) {
        n->held_t = t;
    }
    n->held = true;
    n->held_occ = w.occ;
    picture(n, &w, out);
    return 0;
}

int cr_occ_namer_name(cr_occ_namer *n, int64_t t, const uint8_t in[CR_SQ_NB], uint8_t out[CR_SQ_NB])
{
    uint8_t ignored[CR_SQ_NB];
    (void)cr_occ_namer_settle(n, t, in, ignored); /* if the caller did not */
    if (n->orient >= 0) {
        return name_frame(n, t, in, out);
    }
    uint8_t g[CR_SQ_NB], o[CR_SQ_NB];
    turn(in, g);
    int rc = name_frame(n, t, g, o);
    turn(o, out);
    return rc;
}

bool cr_occ_namer_settle(cr_occ_namer *n, int64_t t, const uint8_t in[CR_SQ_NB],
                         uint8_t out[CR_SQ_NB])
{
    if (n->synced && n->orient == 0 && occupancy_of(in) != START_OCC) {
        /* The first move after a start tells which way the board stands:
         * White's first move is legal one way round only. */
        cr_occ_namer a = *n, b = *n;
        uint8_t tmp[CR_SQ_NB];
        a.orient = 1;
        b.orient = -1;
        int ra = cr_occ_namer_name(&a, t, in, tmp);
        int rb = cr_occ_namer_name(&b, t, in, tmp);
        if (ra == 1 && rb != 1) {
            n->orient = 1;
        } else if (rb == 1 && ra != 1) {
            n->orient = -1;
            turn(n->hist[n->nhist - 1].board, out); /* the start, as the board shows it */
            return true;
        }
    }
    if (n->orient >= 0) {
        return settle_frame(n, t, in, out);
    }
    uint8_t g[CR_SQ_NB], o[CR_SQ_NB];
    turn(in, g);
    if (!settle_frame(n, t, g, o)) {
        return false;
    }
    turn(o, out);
    return true;
}
