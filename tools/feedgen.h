/* chessrelay feed generator: turns games (move lists) into the noisy feeds a
 * DGT board on a tournament table would produce, with every behaviour the
 * inference must survive, seeded and reproducible. Used by tools/feedgen
 * (writes .feed + .expected corpora) and by the property test.
 *
 * Noise is only ever "no legal position" (pieces in the air, knocked over,
 * parked) except where real boards show legal in-between positions on
 * purpose: a piece slid over a square it could go to, a rook put down first
 * when castling, a move played and taken back. Gaps (missed lines) are only
 * made where exactly one sequence of legal plies joins the two positions. */
#ifndef CR_TOOLS_FEEDGEN_H
#define CR_TOOLS_FEEDGEN_H

#include <stdio.h>

#include "cr/board.h"
#include "cr/game.h"

struct cr_infer_config;

typedef struct fg_rng {
    uint64_t s;
} fg_rng;

void fg_seed(fg_rng *r, uint64_t seed);
uint64_t fg_next(fg_rng *r);
int fg_range(fg_rng *r, int n);           /* 0..n-1 */
int fg_between(fg_rng *r, int lo, int hi); /* lo..hi */
bool fg_chance(fg_rng *r, double p);

/* What a feed contains (counted per feed, for pass rates by behaviour). */
#define FG_BEHAVIOURS(X)                                                         \
    X(SETUP, "setup")                                                            \
    X(SETUP_SWAP, "setup_swap")                                                  \
    X(QUIET_DIRECT, "quiet_direct")                                              \
    X(LIFT_PLACE, "lift_place")                                                  \
    X(CAPTURE_VICTIM_FIRST, "capture_victim_first")                              \
    X(CAPTURE_MOVER_FIRST, "capture_mover_first")                                \
    X(PARK, "park")                                                              \
    X(CASTLE_KING_FIRST, "castle_king_first")                                    \
    X(CASTLE_ROOK_FIRST, "castle_rook_first")                                    \
    X(CASTLE_BOTH_LIFT, "castle_both_lift")                                      \
    X(EP_VICTIM_FIRST, "ep_victim_first")                                        \
    X(EP_VICTIM_AFTER, "ep_victim_after")                                        \
    X(PROMO_DIRECT, "promo_direct")                                              \
    X(PROMO_VIA_PAWN, "promo_via_pawn")                                          \
    X(UNDERPROMOTION, "underpromotion")                                          \
    X(KNOCK, "knock")                                                            \
    X(ADJUST, "adjust")                                                          \
    X(SLIDE, "slide")                                                            \
    X(SLIDE_LEGAL, "slide_legal")                                                \
    X(TAKEBACK, "takeback")                                                      \
    X(GAP2, "gap2")                                                              \
    X(GAP3, "gap3")                                                              \
    X(GAP_PARTIAL, "gap_partial")                                                \
    X(DISCONNECT, "disconnect")                                                  \
    X(ROTATED, "rotated")                                                        \
    X(MULTIGAME, "multigame")                                                    \
    X(KINGS_SIGNAL, "kings_signal")                                              \
    X(KING_TIP, "king_tip")                                                      \
    X(CHESS960, "chess960")                                                      \
    X(CLOCK, "clock")

enum {
#define FG_ENUM_(name, text) FG_##name,
    FG_BEHAVIOURS(FG_ENUM_)
#undef FG_ENUM_
    FG_NB
};

extern const char *const fg_behaviour_names[FG_NB];

#define FG_MAX_PLIES 400

typedef struct fg_game {
    cr_position start;
    int n;
    cr_move moves[FG_MAX_PLIES];
    cr_result signal;   /* result to show with the kings in the centre, or NONE */
} fg_game;

/* Noise settings: probabilities per move (0 disables). */
typedef struct fg_noise {
    double lift_place, slide, slide_legal, knock, adjust, takeback, gap, gap3, park, disconnect, king_tip,
        kings_signal, promo_via_pawn, setup_swap;
    bool setup;     /* start from an empty board */
    bool clock;
} fg_noise;

void fg_noise_default(fg_noise *n);

typedef struct fg_writer {
    FILE *out;
    char board[65];
    bool rotated;
    fg_rng rng;
    fg_noise noise;
    int64_t t;
    uint8_t shown[CR_SQ_NB]; /* what the board shows (true orientation) */
    uint8_t written[CR_SQ_NB];
    bool have_written;
    int32_t clk[2];
    int running;
    bool clock_on;
    unsigned used[FG_NB];    /* behaviours used */
} fg_writer;

void fg_writer_init(fg_writer *w, FILE *out, const char *board, uint64_t seed, bool rotated,
                    const fg_noise *noise);

/* Writes one game: meta lines, setup (or the start position standing),
 * the moves with noise, the end (clock stopped, kings signal, king laid
 * down), and a sweep of the pieces when more games follow. Writes the SAN
 * of the moves as they must be inferred to `expected` (one line) if not
 * NULL. */
void fg_write_game(fg_writer *w, const fg_game *g, int number, bool more_follow, FILE *expected);

/* A random legal game from start, biased toward captures, castling, en
 * passant and promotions. Returns the ply count; g->start is set. */
int fg_random_game(fg_rng *r, const cr_position *start, int max_plies, fg_game *g);


/* Runs feed text (len bytes) through the inference, one engine per board
 * id as `replay` does, and writes the games it finds (non-empty ones, one
 * line of space-separated SAN each, in order; boards in order of first
 * appearance) into out (malloc'd, caller frees). Returns 0 or a CR_E* code.
 * If results is not NULL it gets the result of each game (up to nres). */
int fg_replay(const char *feed, size_t len, const struct cr_infer_config *cfg, char **out, cr_result *results,
              int nres);

/* One feed from a seed: picks the games (random legal games, a Chess960 or
 * FEN start now and then, sometimes two games), the orientation and the
 * noise profile, writes the feed to out and the expected games (one line
 * each) to expected. used[] gets the behaviours the feed contains. Returns
 * the number of games written. */
int fg_make_feed(uint64_t seed, const char *board, FILE *out, FILE *expected, unsigned used[FG_NB],
                 const char **profile);

/* The same with the given game (standard start unless g->start says
 * otherwise) instead of random ones. */
int fg_make_feed_game(uint64_t seed, const char *board, const fg_game *g, FILE *out, FILE *expected,
                      unsigned used[FG_NB], const char **profile);

/* Reads a game written as SAN moves ("e4 e5 Nf3", move numbers and a
 * result allowed) from the standard start. Returns 0 or CR_EMOVE/CR_ERANGE
 * with err naming the ply. */
int fg_parse_san_line(const char *line, fg_game *g, cr_error *err);

#endif
