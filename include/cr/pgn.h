/* chessrelay: PGN import and export.
 *
 * Reader: an opaque cr_pgn_reader over a buffer or a FILE hands out one new
 * cr_game per game. It reads tags, movetext in any notation the move reader
 * accepts (language given or detected per game), comments `{}` and `;`
 * (both become the ply's comment; whitespace is collapsed), NAGs (`$N`, and
 * the glyphs ! ? !! ?? !? ?! as $1..$6, attached to the move or apart; kept
 * in the ply's nag[], a fourth stays in the comment as "$N"; anything else
 * of ! and ? is an error naming it and where), variations `( )` (skipped, nesting and
 * comments inside respected), `%` escape lines, move numbers with or
 * without dots (not checked against the position: printed scoresheets
 * repeat them), clock commands (`[%clk H:MM:SS(.s)]`, `[%emt ...]`) into
 * the plies, draw offers (`=`, `(=)`, `[%draw offer]`), `[SetUp]/[FEN]`
 * starts and Chess960 (`[Variant "Chess960"]`, X-FEN/Shredder-FEN), a UTF-8
 * BOM and CRLF. Other `[%...]` commands stay in the comment text. The
 * result comes from the movetext terminator, else from the Result tag.
 * Malformed input gives an error with line and column, and the reader goes
 * on with the next game (the next line that starts with '[').
 *
 * Writer: PGN export format. Seven Tag Roster first ("?" / "????.??.??"
 * defaults, Result from the game), other tags, SetUp/FEN (and Variant
 * "Chess960") when the start is not the standard one; movetext wrapped at 80
 * columns; after a ply a comment {[%clk 1:29:58] [%emt 0:00:12]
 * [%draw offer] text} with what is known.
 *
 * Illegal moves that stood (CR_PLY_ILLEGAL) cannot be played by any PGN
 * tool, so the playable part of the game is written as normal movetext and
 * everything from the first illegal ply on goes into one comment that this
 * reader turns back into plies:
 *
 *   23. Kd2 {[%illegal Ke1-e3 <FEN after it>] 23... Kd7 [%clk 0:10:00]
 *   24. Nf3 [%comment text] ...} 1-0
 *
 * (in the comment of the ply before, when it has one: no two comments in a
 * row, which some readers such as chess.js refuse)
 *
 * A stretch the board was not followed through (CR_PLY_MISSING: a gap the
 * inference went on after, or the arbiter accepted the board) goes the same
 * way as `gap: at least N plies not seen [%missing N <FEN after it>]`
 * (N = cr_ply.missing; without a count, `[%missing <FEN>]`): the moves are
 * unknown and are never invented. The reader takes the words as the
 * command's, not as a comment. NAGs are written as `$N` after the move.
 *
 * i.e. the continuation is movetext in which `[%...]` replaces `{[%...]}`.
 * Result tag and terminator keep the real result. A `}` in comment text
 * (and a `]` in comments after an illegal ply) is written as `)`, and
 * comment text that itself spells a command this reader knows
 * ("[%clk 1:00:00]") is read back as that command; nothing else is lost.
 * The relay's own ply data (time stamps, fits, reconstructed) is only
 * written with CR_PGN_RELAY_DATA.
 *
 * Ownership: games returned are new (free with cr_game_free); strings from
 * cr_pgn_write are malloc'd (caller frees). */
#ifndef CR_PGN_H
#define CR_PGN_H

#include <stdio.h>

#include "cr/game.h"
#include "cr/notation.h"

typedef struct cr_pgn_reader cr_pgn_reader;

/* Reader over len bytes of data (copied). NULL when out of memory. */
CR_EXTERN cr_pgn_reader *cr_pgn_reader_new(const char *data, size_t len);
/* Reader over a FILE (read entirely now; the FILE stays the caller's). NULL
 * on a read error or out of memory. */
CR_EXTERN cr_pgn_reader *cr_pgn_reader_new_file(FILE *f);
CR_EXTERN void cr_pgn_reader_free(cr_pgn_reader *r); /* accepts NULL */

/* Piece-letter language of the movetext: a cr_lang, or -1 (the default) to
 * detect it per game with cr_notation_detect_lang. */
CR_EXTERN void cr_pgn_reader_set_lang(cr_pgn_reader *r, int lang);

/* Reads the next game. Returns 0 with *game set (new), CR_EEOF at the end of
 * the input, or an error code (CR_EPGN, CR_EMOVE, CR_EAMBIG, CR_EFEN,
 * CR_ENOMEM) with err filled: line and column (1-based, in characters) of
 * the fault and e.g. "move 8 (white): Qd4d3: the queen on d4 cannot ...".
 * After an error the reader has skipped to the next game, so calling again
 * continues. */
CR_EXTERN int cr_pgn_read(cr_pgn_reader *r, cr_game **game, cr_error *err);

/* Reads a single game from text (NUL-terminated or len bytes). */
CR_EXTERN int cr_pgn_parse(const char *text, size_t len, int lang, cr_game **game, cr_error *err);

enum {
    /* Also write the relay's own ply data as comment commands, which this
     * reader restores: [%ts N] (time stamp), [%fits N] (when not 1),
     * [%reconstructed], [%ambiguous]. Off for plain PGN export. */
    CR_PGN_RELAY_DATA = 1u << 0,
    /* No words of uncertainty. By default a ply the board did not show
     * carries them in its comment: {reconstructed}, {reconstructed,
     * ambiguous: also Nf3 Nc6 Nc3 Nf6} (the ply's own comment follows the
     * colon); this reader turns them back into CR_PLY_RECONSTRUCTED and
     * CR_PLY_AMBIGUOUS. For a host that wants bare PGN: the marks and an
     * ambiguous ply's list of the other sequences ("also ...") are left
     * out; a missing stretch stays `[%missing FEN]` (the moves are still
     * unknown). */
    CR_PGN_BARE = 1u << 1
};

typedef struct cr_pgn_options {
    cr_style style; /* CR_STYLE_SAN for PGN export */
    cr_lang lang;   /* piece letters (CR_LANG_EN for PGN export) */
    int width;      /* movetext line width, 0 = 80 */
    unsigned flags; /* CR_PGN_* */
    /* The caller's additions per ply (NULL: none), e.g. an engine's
     * evaluation: returns commands put first in the ply's comment
     * ("[%eval 0.35]"; borrowed until the next call; NULL or "" for none)
     * and sets *nag to a NAG written after the move ($2 for "?"; 0: none). */
    const char *(*ply_extra)(void *data, int ply, int *nag);
    void *extra_data;
} cr_pgn_options;

/* Renders game as PGN (opt NULL: export SAN, English, 80 columns) into a
 * malloc'd NUL-terminated string (*out, length in *len if len is not NULL).
 * Ends with a blank line after the movetext. Returns 0 or CR_ENOMEM. In the
 * FIDE style a draw offer is printed as `(=)` after the move and e.p.
 * captures get " e.p."; every other style uses `[%draw offer]`. */
CR_EXTERN int cr_pgn_write(const cr_game *game, const cr_pgn_options *opt, char **out, size_t *len);

/* Same into buf (size bytes): returns the length, or CR_ENOSPC. */
CR_EXTERN int cr_pgn_write_buf(const cr_game *game, const cr_pgn_options *opt, char *buf, size_t size);

/* Same to a FILE: returns 0, CR_EIO or CR_ENOMEM. */
CR_EXTERN int cr_pgn_write_file(const cr_game *game, const cr_pgn_options *opt, FILE *f);

/* Longest tag name the writer accepts. */
#define CR_PGN_TAG_NAME_MAX 255
/* A PGN tag name: 1 to CR_PGN_TAG_NAME_MAX letters, digits and underscores
 * (PGN standard 8.1.1). The writer leaves out tags whose name is not one. */
CR_EXTERN bool cr_pgn_tag_name_ok(const char *name);

#endif
