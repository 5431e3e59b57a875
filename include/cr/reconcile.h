/* chessrelay: a player's scoresheet reconciled with the board's record.
 *
 * The board's record (a cr_game: moves as the board showed them, gaps it
 * was not followed through marked CR_PLY_MISSING) is the evidence of what
 * stood on the board; the scoresheet is what a player wrote, in any
 * notation cr_move_from_text reads (FIDE Appendix C, short or long, with or
 * without `x`, any language's letters, figurines, move numbers and line
 * breaks anywhere). Each written move is read against the position the
 * board showed before that ply, so one slip of the pen is one difference,
 * not the rest of the game. A gap of the record is filled from the
 * scoresheet when its moves are legal, each fits one move only, and they
 * lead from the position before the gap to the one the board showed after
 * it; a move left out or written twice on the sheet is found by looking
 * one ply ahead.
 *
 * Pure: reads the buffers it is handed, no I/O.
 *
 * Ownership: cr_reconcile returns a new result (free with
 * cr_reconcile_free); its game is owned by the result. */
#ifndef CR_RECONCILE_H
#define CR_RECONCILE_H

#include "cr/game.h"

typedef enum cr_recon_kind {
    CR_RECON_DIFFER = 0,   /* the sheet's move is another legal move than the board's */
    CR_RECON_UNREADABLE,   /* the sheet's text is no legal move where the board stood */
    CR_RECON_SHEET_LACKS,  /* the sheet leaves out the board's move (the next ones fit) */
    CR_RECON_SHEET_EXTRA,  /* the sheet has a move the board never showed (skipped) */
    CR_RECON_GAP_FILLED,   /* a gap of the record filled with `count` plies of the sheet */
    CR_RECON_GAP_OPEN,     /* a gap the sheet's moves do not bridge: compared no further */
    CR_RECON_SHEET_ENDS,   /* the sheet ends before the record (`count` plies unwritten) */
    CR_RECON_BOARD_ENDS    /* the sheet goes on after the record (`count` moves more) */
} cr_recon_kind;

typedef struct cr_recon_item {
    cr_recon_kind kind;
    int ply;              /* 0-based ply of the reconciled game it is at */
    int count;            /* GAP_FILLED: plies filled; SHEET_ENDS/BOARD_ENDS: how many */
    char board_san[16];   /* the board's move ("" if none) */
    char sheet_text[32];  /* what the sheet says there, as written ("" if none) */
    char sheet_san[16];   /* the sheet's move in SAN where it reads as one, else "" */
    char fen[100];        /* the position before the ply */
    int32_t clock_ms;     /* the board's clock after its move, or CR_CLOCK_UNKNOWN */
} cr_recon_item;

typedef struct cr_recon_result {
    cr_game *game;        /* the record with its gaps filled from the sheet (owned) */
    cr_recon_item *items; /* in ply order */
    int count;
    int compared;         /* plies of the record compared with the sheet */
    int differences;      /* items other than GAP_FILLED */
} cr_recon_result;

/* Reconciles record with the scoresheet text (len bytes, UTF-8). lang: the
 * sheet's piece letters (cr_lang), or -1 to detect them. Returns 0 with
 * *out set, or an error code with err filled (out of memory; a sheet with
 * no move at all). The record is not changed. */
CR_EXTERN int cr_reconcile(const cr_game *record, const char *sheet, size_t len, int lang,
                           cr_recon_result **out, cr_error *err);
CR_EXTERN void cr_reconcile_free(cr_recon_result *r); /* accepts NULL */

/* "differ", "unreadable", ... for reports. */
CR_EXTERN const char *cr_recon_kind_name(cr_recon_kind kind);

#endif
