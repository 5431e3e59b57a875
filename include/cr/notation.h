/* chessrelay: algebraic notation as FIDE's Laws (Appendix C) define it and as
 * real scoresheets contain it: writing moves in canonical PGN SAN or another
 * style and language, and reading any of those forms back against a
 * position. */
#ifndef CR_NOTATION_H
#define CR_NOTATION_H

#include "cr/board.h"

typedef enum cr_style {
    CR_STYLE_SAN = 0,  /* PGN export SAN: Nbd2 exd6 O-O e8=Q Qe3+ Qh7# */
    CR_STYLE_FIDE,     /* FIDE print form: 0-0, d8Q, exd6 e.p. (with CR_FMT_EP_SUFFIX) */
    CR_STYLE_LONG,     /* long algebraic: Ng1f3 e5xd6 Qd1xd4 0-0 */
    CR_STYLE_UCI,      /* g1f3 e7e8q */
    CR_STYLE_FIGURINE  /* SAN with figurines: ♘f3 (UTF-8) */
} cr_style;

/* Piece-letter languages. */
typedef enum cr_lang {
    CR_LANG_EN = 0, /* K Q R B N */
    CR_LANG_RU,     /* Кр Ф Л С К */
    CR_LANG_DE,     /* K D T L S */
    CR_LANG_FR,     /* R D T F C */
    CR_LANG_ES,     /* R D T A C */
    CR_LANG_IT,     /* R D T A C */
    CR_LANG_NL,     /* K D T L P */
    CR_LANG_NB
} cr_lang;

/* Parses "en", "ru", ... (case-insensitive); returns -1 if unknown. */
CR_EXTERN int cr_lang_parse(const char *name);
CR_EXTERN const char *cr_lang_name(cr_lang lang);
/* Parses "san", "fide", "long", "uci", "figurine"; -1 if unknown. */
CR_EXTERN int cr_style_parse(const char *name);

#define CR_SAN_MAX 32 /* any move in any style and language, with the NUL */

/* Writes legal move m of pos in canonical PGN SAN (with +/#). buf needs
 * CR_SAN_MAX bytes (16 suffice for SAN). Returns the length, or CR_EMOVE if
 * m is not legal in pos. The hot path of the relay: no allocation. */
CR_EXTERN int cr_move_to_san(const cr_position *pos, cr_move m, char *buf, size_t size);

/* Writes m in the given style and language. Returns the length or CR_EMOVE /
 * CR_ENOSPC. */
CR_EXTERN int cr_move_format(const cr_position *pos, cr_move m, cr_style style, cr_lang lang,
                             char *buf, size_t size);

/* What a move's text said besides the move. */
enum {
    CR_SANF_CHECK = 1u << 0,      /* + written */
    CR_SANF_MATE = 1u << 1,       /* # or ++ written */
    CR_SANF_DRAW_OFFER = 1u << 2, /* = or (=) after the move */
    CR_SANF_EP = 1u << 3,         /* e.p. / ep written */
    CR_SANF_LONG = 1u << 4        /* long form (origin square given) */
};

typedef struct cr_san_info {
    unsigned flags;  /* CR_SANF_* */
    int nag;         /* !,?,!!,??,!?,?! as NAG 1..6, or 0 */
    int consumed;    /* bytes of the input that made up the move token */
} cr_san_info;

/* Reads one move written in any form Appendix C allows or scoresheets show
 * (see notation.c) and resolves it against pos. lang: the piece letters to
 * expect, or -1 to accept any language whose letters are unambiguous here.
 * Returns the legal move, or CR_MOVE_NONE with err filled: code CR_EMOVE for
 * unreadable or illegal text (with the reason, e.g. "the queen on d4 cannot
 * reach d3; legal queen moves from d4 are ..."), CR_EAMBIG for text that fits
 * more than one legal move. info may be NULL. text need not be NUL-terminated
 * at the move: reading stops at the token's end (space, NUL, ')' ...). */
CR_EXTERN cr_move cr_move_from_text(const cr_position *pos, const char *text, int lang,
                                    cr_san_info *info, cr_error *err);

/* Extra formatting options for cr_move_format_ex. */
enum {
    CR_FMT_EP_SUFFIX = 1u << 0 /* append " e.p." to en-passant captures (FIDE style) */
};

/* cr_move_format with CR_FMT_* options. */
CR_EXTERN int cr_move_format_ex(const cr_position *pos, cr_move m, cr_style style, cr_lang lang,
                                unsigned fmt, char *buf, size_t size);

/* Guesses the piece-letter language of a game from its movetext (len bytes,
 * UTF-8; comments and move numbers are skipped): every piece letter votes for
 * the languages that have it and against those that do not. Returns a
 * cr_lang, or -1 when the text has no piece letters at all (any language
 * then reads it the same). */
CR_EXTERN int cr_notation_detect_lang(const char *text, size_t len);

#endif
