/* Internals of the move inference shared by infer.c (the state machine),
 * infer_commit.c (making an explanation final in the game),
 * infer_search.c (the search for missed snapshots) and infer_start.c
 * (recognising a start position). Not installed. */
#ifndef CR_INFER_PRIVATE_H
#define CR_INFER_PRIVATE_H

#include "cr/clock.h"
#include "cr/infer.h"
#include "cr/notation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEQ 8       /* plies in one pending explanation */
#define MAX_TAGS 32
#define RECENT_PLIES 8  /* earlier positions tried on every snapshot */
#define SOLUTIONS_CAP 64
#define ALT_MAX 4       /* sequences kept from one search (the first and alternatives) */
#define AMBIG_MAX 48    /* a recovery commits when at most this many sequences fit
                           (transpositions: four quiet moves a side in 8 plies give
                           up to 576, but a few captures or checks cut that down) */
#define SEEN_MAX 16     /* recent boards remembered: a ply the board showed is no guess */
#define RECOVER_NODES 200000 /* node budget of one recovery search (under 10 ms) */
#define HUNT_NODES 2000000  /* node budget of all searches between two moves the board was
                               followed through (~100 ms): past it the search gives up and a
                               board still lost becomes a gap, however long it stays so */
#define GAP_INC_MIN_MS 10000 /* an increment that counts a gap's presses: the readings'
                                seconds (truncated, 2 s at most) stay well inside it */

static const cr_bb CENTRE = (1ull << CR_SQ_D4) | (1ull << CR_SQ_E4) | (1ull << CR_SQ_D5) | (1ull << CR_SQ_E5);
static const cr_bb BACK_RANKS = 0xFF000000000000FFull;

/* SWAR: the builtin becomes a slow library call without -mpopcnt. */
static inline int popcount(cr_bb b)
{
    b = b - ((b >> 1) & 0x5555555555555555ull);
    b = (b & 0x3333333333333333ull) + ((b >> 2) & 0x3333333333333333ull);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((b * 0x0101010101010101ull) >> 56);
}
static inline int lsb(cr_bb b) { return __builtin_ctzll(b); }

/* A snapshot as the engine sees it: rotated into the game's orientation. */
typedef struct snap {
    uint8_t sq[CR_SQ_NB];
    cr_bb bb[CR_PIECE_NB];
    cr_bb by_color[CR_COLOR_NB];
    cr_bb occ;
} snap;

typedef struct seq {
    int base;            /* ply index the moves start from */
    int n;               /* moves */
    cr_move moves[MAX_SEQ];
    uint16_t fits;       /* sequences that fitted (1 when certain) */
    bool reconstructed;  /* found by the gap search */
    bool illegal;        /* moves[0] is an illegal move: `after` holds its position */
    cr_position after;
    char illegal_text[16];
    int nalt;            /* other sequences that fit (up to ALT_MAX - 1 kept) */
    cr_move alt[ALT_MAX - 1][MAX_SEQ];
} seq;

struct cr_infer {
    char id[CR_BOARD_ID_MAX + 1];
    cr_infer_config cfg;
    cr_infer_cb cb;
    void *data;

    cr_game *game;
    int game_number;
    bool ended;          /* result known */
    bool ended_by_board; /* result from the kings signal: no more moves */
    bool rotated;

    char *tag_name[MAX_TAGS];
    char *tag_value[MAX_TAGS];
    int ntags;
    bool have_fen;
    cr_position fen_start;
    cr_position std_start; /* the standard start, made once */

    snap cur;            /* last snapshot (normalised) */
    uint8_t raw[CR_SQ_NB];
    bool have_snap;
    int64_t t_last;      /* last event time */
    int64_t t_change;    /* time of the last snapshot that changed the board */

    bool has_pending;
    seq pending;
    int64_t pending_t;   /* snapshot that completed it */
    int64_t deadline;

    bool explained;      /* the current snapshot is P(n) or the pending end */
    int64_t unexplained_since;
    bool attention;
    int searched;        /* gap search depth done for the current snapshot (0: none) */
    bool forward_tried;  /* prefer_forward ran for the current snapshot */
    bool swept;          /* the board was (nearly) cleared since the last sync */
    bool signal;         /* the snapshot shows both kings in the centre */

    bool have_illegal;   /* an illegal move that may have stood */
    seq illegal;

    bool gap_open;       /* the link was down: the board may be several plies ahead */
    bool clock_stale;    /* no clock reading since the link was down */
    bool lost;           /* the board stood unreachable: every settled picture is
                            searched deeply from P(n) until one fits */
    uint8_t seen[SEEN_MAX][CR_SQ_NB]; /* recent boards (normalised), a ring */
    int nseen, seen_head;

    bool clock_seen;
    int running;
    int32_t clock_ms[2];
    int plies_at_press;  /* ply count right after the last press */
    int confirmed;       /* plies the clock has confirmed (running for the side to move) */
    bool stash_valid;    /* a press whose move is not committed yet */
    int stash_color;
    int32_t stash_ms;
    int32_t stash_emt;
    int64_t turn_from[2]; /* when each side's clock started running this turn, -1 unknown */
    cr_clock *clk;       /* the readings' model: the increment a gap's presses are counted by */
    int64_t clock_t;     /* time of the last reading */
    bool reading_counts; /* it may count a silence's presses (not noise) */
    bool anchor_ok;      /* a press was read with the board in step with the game: */
    int64_t anchor_t;    /* its time, */
    int32_t anchor_ms[2]; /* both clocks then, */
    int anchor_plies;    /* and the plies the game had */
    long hunt_nodes;     /* nodes searched since the board was last followed */
    bool gave_up;        /* hunt_nodes ran past HUNT_NODES: no search until in step */
    int chain_base;      /* a search refused to chain onto the guesses from this ply: the
                            gap replaces them (-1: none) */

    cr_infer_stats stats;
};

/* Squares where the snapshot differs from the position. */
static inline cr_bb diff_bb(const cr_position *p, const snap *s)
{
    /* written out: a loop over a table of the twelve pieces stays a loop,
     * loading each index (this runs for every node searched) */
#define D_(pc) (p->by_piece[pc] ^ s->bb[pc])
    return D_(CR_WP) | D_(CR_WN) | D_(CR_WB) | D_(CR_WR) | D_(CR_WQ) | D_(CR_WK) | D_(CR_BP) | D_(CR_BN) |
           D_(CR_BB) | D_(CR_BR) | D_(CR_BQ) | D_(CR_BK);
#undef D_
}

/* Single-move filter: could one legal move of `side` turn the base's board
 * into s, given d = the changed squares? */
static inline bool one_move_shape(const snap *s, cr_bb d, int side)
{
    int n = popcount(d);
    if (n < 2 || n > 4) {
        return false;
    }
    cr_bb arrived = d & s->occ;
    return arrived && (arrived & ~s->by_color[side]) == 0;
}

/* The occupancy first: most positions compared differ there already. */
static inline bool same_board(const cr_position *p, const snap *s)
{
    return p->occupied == s->occ && memcmp(p->board, s->sq, CR_SQ_NB) == 0;
}

/* Two kings, not side by side, no pawn on a last rank: a position. */
static inline bool plausible(const snap *s)
{
    if (popcount(s->bb[CR_WK]) != 1 || popcount(s->bb[CR_BK]) != 1) {
        return false;
    }
    int w = lsb(s->bb[CR_WK]), b = lsb(s->bb[CR_BK]);
    int df = cr_file_of(w) - cr_file_of(b), dr = cr_rank_of(w) - cr_rank_of(b);
    if (df >= -1 && df <= 1 && dr >= -1 && dr <= 1) {
        return false; /* kings side by side: never a position */
    }
    return ((s->bb[CR_WP] | s->bb[CR_BP]) & BACK_RANKS) == 0;
}

static inline const cr_position *pos_at(const cr_infer *inf, int i) { return cr_game_position_at(inf->game, i); }
static inline int ply_count(const cr_infer *inf) { return inf->game ? cr_game_ply_count(inf->game) : 0; }

/* Hands ev, stamped with the game, to the caller's callback. */
static inline void emit(cr_infer *inf, cr_infer_event *ev)
{
    ev->game = inf->game;
    ev->game_number = inf->game_number;
    if (inf->cb) {
        inf->cb(inf->data, ev);
    }
}

static inline void emit_simple(cr_infer *inf, cr_infer_kind kind, int64_t t, const char *reason)
{
    cr_infer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = kind;
    ev.t = t;
    ev.reason = reason;
    ev.running = CR_CLOCK_STOPPED;
    emit(inf, &ev);
}

/* infer_commit.c: the game record. cr_infer__commit makes q final: the
 * plies from q->base on are retracted (a correction event), q's moves
 * appended with their flags and the clock readings they keep, one event
 * each; t_snapshot is when the board showed it, t when it became final. */
void cr_infer__commit(cr_infer *inf, const seq *q, int64_t t_snapshot, int64_t t);
/* The game ends with r (an event with reason). */
void cr_infer__set_result(cr_infer *inf, cr_result r, const char *reason, int64_t t);
/* Checkmate, stalemate or a dead position ends the game. */
void cr_infer__check_status(cr_infer *inf, int64_t t);
/* An attention raised earlier is over: the board matches the game. */
void cr_infer__resynced(cr_infer *inf, int64_t t);
/* Remembers a board shown since the last commit (a normalised snapshot):
 * a reconstructed ply the board showed before and after is no guess. */
void cr_infer__remember_board(cr_infer *inf, const uint8_t *board);

/* Does the raw snapshot show a start position? Fills pos and rotated. */
bool cr_infer__recognise_start(cr_infer *inf, cr_position *pos, bool *rotated);

/* Sequences of mind..maxd plies (at most MAX_SEQ) from base to the
 * snapshot s, shortest first, into out (the first and up to ALT_MAX - 1
 * alternatives). budget: nodes (0: the board's search_nodes); cap:
 * solutions (0: SOLUTIONS_CAP); want_side >= 0: only sequences after which
 * that side is to move. Returns how many fit at the shortest length, 0 for
 * none, -1 when the budget ran out first. */
int cr_infer__gap_search_n(cr_infer *inf, const cr_position *base, const snap *s, seq *out, int mind,
                           int maxd, long budget, int cap, int want_side);
int cr_infer__gap_search(cr_infer *inf, const cr_position *base, const snap *s, seq *out, int mind,
                         int maxd);
/* The fewest plies that can lead from base to the board s (a lower bound:
 * the pieces each side must bring where, the captures), ending with
 * side_to_move to move (-1: either); -1 when no sequence of moves can
 * (a pawn gone back, a piece that no piece of its kind or pawn can become,
 * more pieces of a side than it had). */
int cr_infer__plies_needed(const cr_position *base, const snap *s, int side_to_move);

/* infer.c: the position the board shows, after p by moves nobody saw: side
 * to move given, castling rights kept where king and rook stand as in p; the
 * move number counts `plies` of them (0: the fewest for that side to move). */
int cr_infer__board_position_n(const cr_position *p, const snap *s, int side, int plies, cr_position *out);

/* infer_gap.c: silences the search does not bridge. */
/* The board is followed again: the next silence's searches start afresh. */
void cr_infer__in_step(cr_infer *inf);
/* The searches of this silence have used HUNT_NODES: true (and counted once). */
bool cr_infer__out_of_budget(cr_infer *inf);
/* Plies from `base` to the board, counted by the clock's presses; -1 unknown. */
int cr_infer__clock_count(const cr_infer *inf, int base, int side_to_move);
/* Plies guessed by a search just before ply `base`. */
int cr_infer__guessed_before(const cr_infer *inf, int base);
/* q chained onto earlier guesses stays within what one search bridges. */
bool cr_infer__chain_ok(const cr_infer *inf, const seq *q);
/* The game goes on from the board: one gap ply (see infer_gap.c). */
int cr_infer__push_gap(cr_infer *inf, int side_to_move, int64_t t, const char *reason, bool arbiter, bool recount);
/* A press (accepted reading) that ends a gap's last ply: the gap again,
 * counted by the clock when it can; true if it was pushed again. */
bool cr_infer__recount_gap(cr_infer *inf, int presser, int64_t t);
/* A press read with the board in step with the game: the next silence's
 * presses are counted from it. */
void cr_infer__anchor(cr_infer *inf, int64_t t);

#endif
