/* chessrelay: pairings imported from the pairing program, so that the relay
 * knows which players sit at which table in each round.
 *
 * Two inputs are read:
 *
 *  - FIDE TRF (Tournament Report File, TRF-06/TRF-16/TRF-26 as Swiss-Manager,
 *    Vega, JaVaFo, bbpPairings and Tornelo write it). Tournament lines 012
 *    (name), 022 (city), 032 (federation), 042/052 (dates), 062 (players), 092
 *    (type), 102/112 (arbiters), 122 (time control), 142 or the JaVaFo
 *    extension XXR (number of rounds); player lines 001 in fixed columns
 *    (start rank 5-8, sex 10, title 11-13, name 15-47, rating 49-52,
 *    federation 54-56, FIDE id 58-68, birth date 70-79, points 81-84, rank
 *    86-89, then per round a 10-column block from 92: opponent start rank
 *    92-95 (0000 or blank: bye / not paired), colour 97 (w, b, -), result 99
 *    (1 = 0 + - W D L H F U Z, any case, blank: not played yet)); 240 bye
 *    records (TRF-26); 132, the rounds' dates, one in each round's block
 *    (from column 92, every 10 columns) as YY/MM/DD (TRF-16; YYYY/MM/DD and
 *    '.' or '-' separators are read too; a date that is none of these is
 *    left out, since dates do not bear on the pairings). A dated round
 *    counts as a round of the file. Once a round has a game, a player with nothing in
 *    that round is listed as absent (bye 'Z'); before that, blanks say
 *    nothing. A round counts once anything stands in it. Other records
 *    (013, 250, 260, DAT, XX*, ### comments, national rating lines)
 *    are skipped; a line that is no record at all is an error. A 0x1A
 *    (DOS end of file) line is ignored. Columns count characters:
 *    a line that is valid UTF-8 is read by code points, any other line byte
 *    by byte as Windows-1252 (Latin-1 plus the letters Windows programs put
 *    in 0x80-0x9F) and converted to UTF-8; a UTF-8 line whose writer padded
 *    by bytes is retried by byte columns.
 *
 *    TRF has no board numbers, so tables are computed with the rule of the
 *    FIDE General Handling Rules for Swiss Tournaments (C.04.2): the pairs of
 *    a round are sorted by (1) the score before the round of the
 *    higher-scored player of the pair, descending, (2) the sum of both
 *    players' scores, descending, (3) the start rank of the higher-ranked
 *    player (smaller start rank), ascending; tables are then numbered 1, 2,
 *    ... Scores use the default points (win, forfeit win, full-point and
 *    pairing-allocated bye 1; draw and half-point bye 0.5; else 0); custom
 *    point systems (TRF-26 162, JaVaFo XXS) are not applied to the order.
 *    A round robin is recognised when the start ranks are 1..N and every
 *    game of every round is the one the FIDE Berger table (C.05 Annex 1)
 *    gives for those draw numbers: its boards then follow the table (for an
 *    odd N the bye board is left out and the others close up). No known TRF
 *    extension carries board numbers; a venue that numbers boards otherwise
 *    (fixed boards, a top board on a stage) should hand over a pairings PGN.
 *
 *  - A PGN of pairings: one game per board with tags only (movetext empty or
 *    just a result such as "*"). Tags read: Event, Site, Date, Round, Board,
 *    White, Black, WhiteElo, BlackElo, WhiteTitle, BlackTitle, WhiteFideId,
 *    BlackFideId, WhiteFed, BlackFed, Result. Round "3" or "3.1" (round 3,
 *    board 1 as ChessBase writes it); Board overrides the part after the dot;
 *    without either a game takes the next free table of its round in file
 *    order. A White or Black of "BYE" (any case) makes the other player's
 *    bye. Tag values that are not UTF-8 are read as Windows-1252 (old PGN
 *    files are Latin-1). Lines starting with '%' or ';' and {comments} are
 *    skipped. The scanner here reads tags only (it does not use cr/pgn.h,
 *    so that a pairing list never depends on legal movetext). A tag name
 *    outside the PGN grammar (letters, digits, '_'; at most 63) refuses the
 *    file, the error naming its line, column and the character.
 *
 * Errors: parse functions return NULL and fill err with the line (and the
 * column where one applies) and what was wrong.
 *
 * Ownership: parse/load functions return a new cr_pairings, free it with
 * cr_pairings_free. Every pointer an accessor returns is borrowed from the
 * set and valid until it is freed. All strings are UTF-8, NUL-terminated. */
#ifndef CR_PAIRINGS_H
#define CR_PAIRINGS_H

#include "cr/common.h"

typedef struct cr_pairings cr_pairings;

/* Bytes with the NUL of a player's name; tournament strings keep up to 255
 * bytes. Longer text is cut at a UTF-8 character boundary. */
#define CR_PAIRINGS_NAME_MAX 128

typedef enum cr_pairings_format {
    CR_PAIRINGS_AUTO = 0, /* PGN if the first line not blank, '%' or ';' opens a tag, else TRF */
    CR_PAIRINGS_TRF,
    CR_PAIRINGS_PGN
} cr_pairings_format;

/* One player as the pairing program knows them. Unknown numbers are 0,
 * unknown strings empty. */
typedef struct cr_pairing_player {
    int start_rank;                  /* TRF start rank (pairing number); 0 from PGN */
    char name[CR_PAIRINGS_NAME_MAX]; /* "Lastname, Firstname" */
    char title[4];                   /* GM IM FM CM WGM WIM WFM WCM (TRF "g", "m"... normalised) */
    char fed[4];                     /* FIDE federation, e.g. "NOR" */
    char sex;                        /* 'm', 'w' or 0 */
    int rating;                      /* FIDE rating */
    int64_t fide_id;
    char birth[11];                  /* as written, e.g. "1990/11/30" */
    double points;                   /* TRF points column (total), 0 from PGN */
    char team[CR_PAIRINGS_NAME_MAX]; /* TRF 013: the team the player is listed in; "" for none */
} cr_pairing_player;

/* One board of a round. */
typedef struct cr_pairing {
    int round; /* 1-based */
    int table; /* 1-based */
    cr_pairing_player white, black;
    /* "1-0", "0-1", "1/2-1/2", "*" (not played yet), forfeits "+--", "--+",
     * "---", and "1-0", "0-1", "1/2-1/2" for games under one move (TRF W/D/L). */
    char result[8];
} cr_pairing;

/* A player without a board in a round: bye or announced absence. */
typedef struct cr_pairing_bye {
    int round;
    cr_pairing_player player;
    /* TRF code upper-cased: 'U' pairing-allocated bye, 'F' full-point bye,
     * 'H' half-point bye, 'Z' zero-point bye / absent, '+' bye scored as a
     * forfeit win, '-' as a forfeit loss; PGN "BYE" games give 'U'. */
    char kind;
} cr_pairing_bye;

/* Parses text (len bytes, need not be NUL-terminated) in the given format.
 * Returns a new set, or NULL with err filled (CR_EPGN for a bad PGN,
 * CR_EINVAL for a bad TRF, CR_ENOMEM). An input without any player or game
 * is an error. */
CR_EXTERN cr_pairings *cr_pairings_parse(const char *text, size_t len, cr_pairings_format format,
                                         cr_error *err);
/* cr_pairings_parse for the text of a file its caller read: on an error
 * err->text becomes "name:line: message" (name: the file's path, or NULL
 * for the parser's message alone). The library opens no file. */
CR_EXTERN cr_pairings *cr_pairings_load(const char *text, size_t len, const char *name,
                                        cr_pairings_format format, cr_error *err);
CR_EXTERN void cr_pairings_free(cr_pairings *p); /* accepts NULL */

/* Which format the set was read from (CR_PAIRINGS_TRF or _PGN). */
CR_EXTERN cr_pairings_format cr_pairings_source(const cr_pairings *p);

/* Tournament data (TRF 012...122; PGN Event, Site, Date of the first game).
 * Never NULL; "" when absent. */
typedef enum cr_pairings_field {
    CR_PF_NAME = 0, /* 012 / Event */
    CR_PF_CITY,     /* 022 / Site */
    CR_PF_FED,      /* 032 */
    CR_PF_START,    /* 042 / Date */
    CR_PF_END,      /* 052 */
    CR_PF_TYPE,     /* 092 */
    CR_PF_ARBITER,  /* 102 */
    CR_PF_DEPUTIES, /* 112 lines joined with "; " */
    CR_PF_TIME,     /* 122 */
    CR_PF_NB
} cr_pairings_field;
CR_EXTERN const char *cr_pairings_info(const cr_pairings *p, cr_pairings_field field);

/* Number of rounds: the largest of the rounds seen, 142/XXR and 0 if none. */
CR_EXTERN int cr_pairings_round_count(const cr_pairings *p);
/* The day round `round` (1-based) is played, "YYYY-MM-DD" (TRF 132), or ""
 * when the file does not say. Never NULL. */
CR_EXTERN const char *cr_pairings_round_date(const cr_pairings *p, int round);
/* Players (TRF: in start-rank order; PGN: in order of first appearance). */
CR_EXTERN int cr_pairings_player_count(const cr_pairings *p);
CR_EXTERN const cr_pairing_player *cr_pairings_player(const cr_pairings *p, int i);

/* Boards of round `round` (1-based) in table order: *count gets their number.
 * Returns NULL with *count 0 for a round without boards. */
CR_EXTERN const cr_pairing *cr_pairings_boards(const cr_pairings *p, int round, int *count);
/* The board at round/table, or NULL. */
CR_EXTERN const cr_pairing *cr_pairings_board(const cr_pairings *p, int round, int table);
/* Byes of a round, in start-rank (PGN: file) order. */
CR_EXTERN const cr_pairing_bye *cr_pairings_byes(const cr_pairings *p, int round, int *count);

/* Writes board b (from p) as a tag-only PGN game: the Seven Tag Roster
 * (Event, Site, Date from the tournament data, "?" / "????.??.??" when
 * unknown), Board, and WhiteTitle/BlackTitle, WhiteElo/BlackElo,
 * WhiteFideId/BlackFideId, WhiteFed/BlackFed when known; then a blank line,
 * the result and a blank line. Forfeits become "1-0" / "0-1" ("*" for a
 * double forfeit). That is what the export folder can show for a game not
 * started yet, and cr_pairings_parse reads it back. Returns the length, or
 * CR_ENOSPC when buf (size bytes) is too small, CR_EINVAL. */
CR_EXTERN int cr_pairing_to_pgn(const cr_pairings *p, const cr_pairing *b, char *buf, size_t size);

/* ---- Re-import: what changed between two sets ---- */

enum {
    CR_PCHG_WHITE = 1u << 0,      /* a different player is White (name or FIDE id) */
    CR_PCHG_BLACK = 1u << 1,      /* a different player is Black */
    CR_PCHG_WHITE_INFO = 1u << 2, /* same White, other rating/title/federation/name spelling */
    CR_PCHG_BLACK_INFO = 1u << 3,
    CR_PCHG_RESULT = 1u << 4 /* the result column changed */
};

typedef enum cr_pairing_change_kind {
    CR_PAIRING_ADDED = 0, /* a board that `old` did not have */
    CR_PAIRING_REMOVED,   /* a board that `new` no longer has */
    CR_PAIRING_CHANGED    /* same round/table, see `what` */
} cr_pairing_change_kind;

typedef struct cr_pairing_change {
    cr_pairing_change_kind kind;
    int round, table;
    unsigned what;               /* CR_PCHG_* for CHANGED, 0 otherwise */
    const cr_pairing *old_board; /* borrowed from old, NULL when ADDED */
    const cr_pairing *new_board; /* borrowed from new, NULL when REMOVED */
    /* The table the same two players (same colours) had in old in this round,
     * or 0: lets the relay see a board that only moved (tables renumbered). */
    int old_table_of_pair;
} cr_pairing_change;

/* Compares two sets board by board (per round, per table), rounds and
 * tables ascending. A same player is matched by FIDE id when both have one,
 * else by name (case and space insensitive). Returns the number of changes
 * (0: nothing to do) and stores a new array in *changes (NULL when there are
 * none), free it with cr_pairing_changes_free; its board pointers borrow from
 * old and new, which must outlive it. Returns CR_ENOMEM or CR_EINVAL. */
CR_EXTERN int cr_pairings_diff(const cr_pairings *old_set, const cr_pairings *new_set,
                               cr_pairing_change **changes);
CR_EXTERN void cr_pairing_changes_free(cr_pairing_change *changes); /* accepts NULL */

/* True when a and b are the same person (FIDE id, else normalised name). */
CR_EXTERN bool cr_pairing_player_same(const cr_pairing_player *a, const cr_pairing_player *b);

/* ---- Results back to the pairing program ---- */

/* One board's result of a round as the relay has it. */
typedef struct cr_round_result {
    int table;      /* the round's table, as cr_pairings_boards numbers it */
    char result[8]; /* "1-0", "0-1", "1/2-1/2", forfeits "+--", "--+", "---"; "*" or "": none yet */
    bool confirmed; /* an arbiter stands behind it; false: left out of the file, named in a comment */
    bool unrated;   /* fewer than one move each (FIDE rating rules): TRF-16 W, D, L for 1, =, 0 */
} cr_round_result;

/* Writes the TRF `text` (len bytes: the file p was read from) with round
 * `round`'s results filled in: for each confirmed result, White's and
 * Black's result column (column 99 of the round's block: 1 0 = + - W D L)
 * and their points (81-84, as "%4.1f": the old total less the old code's
 * points plus the new code's). Every other byte stays as it was: other
 * lines, other rounds, columns past the block, line ends (\n, \r\n), a
 * BOM, Latin-1 lines (columns counted as the reader counts them). A line
 * whose result is unchanged is not touched. Results not confirmed (and not
 * "*") are not written: a "### chessrelay: round R table T: RESULT not
 * confirmed by an arbiter" line at the end of the file names each (TRF
 * readers skip "###" lines), so none is taken as final. cr_pairings_parse
 * reads the output back with the results in the round's boards.
 * Returns a new malloc'ed NUL-terminated text (its length in *out_len), or
 * NULL with err filled: CR_EINVAL when p is not from a TRF, the round or a
 * table is not in p, a result is not one of those above, or a player's line
 * in text does not hold the pairing p has (text is not p's file); CR_ENOMEM. */
CR_EXTERN char *cr_pairings_trf_results(const cr_pairings *p, const char *text, size_t len,
                                        int round, const cr_round_result *results, int count,
                                        size_t *out_len, cr_error *err);

#endif
