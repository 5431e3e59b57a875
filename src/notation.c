/* Algebraic notation (FIDE Laws, Appendix C): writing moves in PGN SAN and
 * the other printed styles and languages, and reading whatever a scoresheet
 * or a book shows back into a legal move.
 *
 * Writing is the relay's hot path: disambiguation comes from the attack
 * lines of the other pieces of the same kind (plus a legality test for
 * those few), never from generating all legal moves.
 *
 * Reading is a small hand-written scanner over UTF-8 code points: piece
 * letter (per language, figurine, or Cyrillic/Latin look-alike), up to two
 * squares with optional capture marks and hyphens, promotion, and the
 * suffixes (+ ++ # e.p. !? (=)). The parsed pieces of information are then
 * matched against the legal moves of the position. */
#include "cr/notation.h"

#include <stdio.h>
#include <string.h>

#include "board_private.h" /* attack tables: legality without move generation */

/* ---------------------------------------------------------------- names */

static const char *const lang_names[CR_LANG_NB] = {"en", "ru", "de", "fr", "es", "it", "nl"};

/* Piece letters per language, indexed by piece type (UTF-8). */
static const char *const lang_letters[CR_LANG_NB][CR_TYPE_NB] = {
    [CR_LANG_EN] = {"", "", "N", "B", "R", "Q", "K"},
    [CR_LANG_RU] = {"", "", "\xd0\x9a", "\xd0\xa1", "\xd0\x9b", "\xd0\xa4", "\xd0\x9a\xd1\x80"},
    [CR_LANG_DE] = {"", "", "S", "L", "T", "D", "K"},
    [CR_LANG_FR] = {"", "", "C", "F", "T", "D", "R"},
    [CR_LANG_ES] = {"", "", "C", "A", "T", "D", "R"},
    [CR_LANG_IT] = {"", "", "C", "A", "T", "D", "R"},
    [CR_LANG_NL] = {"", "", "P", "L", "T", "D", "K"},
};

/* White figurines (used for both colours, as printed books do). */
static const char *const figurines[CR_TYPE_NB] = {
    "", "", "\xe2\x99\x98", "\xe2\x99\x97", "\xe2\x99\x96", "\xe2\x99\x95", "\xe2\x99\x94"};

static const char *const type_names[CR_TYPE_NB] = {"", "pawn", "knight", "bishop", "rook", "queen", "king"};

static int lower_ascii(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

static bool name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        if (lower_ascii((unsigned char)*a) != lower_ascii((unsigned char)*b)) {
            return false;
        }
    }
    return *a == *b;
}

int cr_lang_parse(const char *name)
{
    if (!name) {
        return -1;
    }
    for (int i = 0; i < CR_LANG_NB; i++) {
        if (name_eq(name, lang_names[i])) {
            return i;
        }
    }
    return -1;
}

const char *cr_lang_name(cr_lang lang)
{
    return ((unsigned)lang < CR_LANG_NB) ? lang_names[lang] : "?";
}

int cr_style_parse(const char *name)
{
    static const char *const names[] = {"san", "fide", "long", "uci", "figurine"};
    if (!name) {
        return -1;
    }
    for (int i = 0; i < 5; i++) {
        if (name_eq(name, names[i])) {
            return i;
        }
    }
    return -1;
}

/* ---------------------------------------------------------------- writer */

/* Squares of the other pieces like the one on `from` that could legally go
 * to `to` as well: same-type pieces attacking `to`, minus pinned ones. */
static cr_bb rivals(const cr_position *pos, int from, int to)
{
    int piece = pos->board[from];
    int type = cr_type_of(piece);
    cr_bb same = pos->by_piece[piece] & ~CR_BB(from);
    if (!same) {
        return 0;
    }
    cr_bb occ = pos->occupied, cand;
    switch (type) {
    case CR_KNIGHT: cand = cr_knight_att_[to]; break;
    case CR_BISHOP: cand = cr_bishop_att_(to, occ); break;
    case CR_ROOK: cand = cr_rook_att_(to, occ); break;
    case CR_QUEEN: cand = cr_bishop_att_(to, occ) | cr_rook_att_(to, occ); break;
    default: return 0;
    }
    cand &= same;
    if (!cand) {
        return 0;
    }
    int ksq = cr_king_sq_(pos, pos->side);
    cr_bb legal = 0;
    while (cand) {
        int sq = cr_pop_lsb_(&cand);
        if (cr_king_safe_after_(pos, ksq, sq, to, 0)) {
            legal |= CR_BB(sq);
        }
    }
    return legal;
}

static char *put_str(char *o, const char *s)
{
    while (*s) {
        *o++ = *s++;
    }
    return o;
}

static char *put_square(char *o, int sq)
{
    *o++ = (char)('a' + cr_file_of(sq));
    *o++ = (char)('1' + cr_rank_of(sq));
    return o;
}

static const char *letter_of(int type, cr_style style, cr_lang lang)
{
    return style == CR_STYLE_FIGURINE ? figurines[type] : lang_letters[lang][type];
}

/* Writes m (already known legal) into o; returns the end. o needs CR_SAN_MAX.
 * after: the position after m, or NULL to make it here. Inlined into both
 * callers, as when it had one: a call cost SAN reading and writing a few
 * percent (bench_san). */
__attribute__((always_inline)) static inline char *format_legal(const cr_position *pos, cr_move m, cr_style style,
                                                                cr_lang lang, unsigned fmt, const cr_position *after,
                                                                char *o)
{
    int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
    int type = cr_type_of(pos->board[from]);
    bool capture = kind == CR_MOVE_EN_PASSANT || (kind != CR_MOVE_CASTLE && pos->board[to] != 0);
    bool print = style == CR_STYLE_FIDE || style == CR_STYLE_LONG;

    if (kind == CR_MOVE_CASTLE) {
        bool king_side = cr_file_of(to) > cr_file_of(from);
        const char *s = print ? (king_side ? "0-0" : "0-0-0") : (king_side ? "O-O" : "O-O-O");
        o = put_str(o, s);
    } else if (type == CR_PAWN) {
        if (style == CR_STYLE_LONG) {
            o = put_square(o, from);
        } else if (capture) {
            *o++ = (char)('a' + cr_file_of(from));
        }
        if (capture) {
            *o++ = 'x';
        }
        o = put_square(o, to);
        if (kind == CR_MOVE_PROMOTION) {
            if (!print) {
                *o++ = '=';
            }
            o = put_str(o, letter_of(cr_move_promo(m), style, lang));
        }
    } else {
        o = put_str(o, letter_of(type, style, lang));
        if (style == CR_STYLE_LONG) {
            o = put_square(o, from);
        } else {
            cr_bb others = rivals(pos, from, to);
            if (others) {
                cr_bb file_mask = 0x0101010101010101ULL << cr_file_of(from);
                cr_bb rank_mask = 0xffULL << (8 * cr_rank_of(from));
                if (!(others & file_mask)) {
                    *o++ = (char)('a' + cr_file_of(from));
                } else if (!(others & rank_mask)) {
                    *o++ = (char)('1' + cr_rank_of(from));
                } else {
                    o = put_square(o, from);
                }
            }
        }
        if (capture) {
            *o++ = 'x';
        }
        o = put_square(o, to);
    }

    cr_position made;
    if (!after) {
        made = *pos;
        cr_position_do_move(&made, m);
        after = &made;
    }
    if (cr_in_check(after)) {
        *o++ = cr_has_legal_move_(after) ? '+' : '#';
    }
    if (kind == CR_MOVE_EN_PASSANT && (fmt & CR_FMT_EP_SUFFIX)) {
        o = put_str(o, " e.p.");
    }
    return o;
}

int cr_san_of_legal_(const cr_position *pos, cr_move m, const cr_position *after, char *buf)
{
    char *end = format_legal(pos, m, CR_STYLE_SAN, CR_LANG_EN, 0, after, buf);
    *end = '\0';
    return (int)(end - buf);
}

int cr_move_to_san(const cr_position *pos, cr_move m, char *buf, size_t size)
{
    return cr_move_format_ex(pos, m, CR_STYLE_SAN, CR_LANG_EN, 0, buf, size);
}

int cr_move_format(const cr_position *pos, cr_move m, cr_style style, cr_lang lang, char *buf,
                   size_t size)
{
    return cr_move_format_ex(pos, m, style, lang, style == CR_STYLE_FIDE ? CR_FMT_EP_SUFFIX : 0, buf,
                             size);
}

int cr_move_format_ex(const cr_position *pos, cr_move m, cr_style style, cr_lang lang, unsigned fmt,
                      char *buf, size_t size)
{
    if (!pos || !buf || (unsigned)lang >= CR_LANG_NB || (unsigned)style > CR_STYLE_FIGURINE) {
        return CR_EINVAL;
    }
    if (m == CR_MOVE_NONE || !cr_is_legal(pos, m)) {
        return CR_EMOVE;
    }
    char tmp[CR_SAN_MAX + 8];
    size_t n;
    if (style == CR_STYLE_UCI) {
        n = (size_t)cr_move_to_uci(pos, m, tmp);
    } else {
        n = (size_t)(format_legal(pos, m, style, lang, fmt, NULL, tmp) - tmp);
    }
    if (n + 1 > size) {
        return CR_ENOSPC;
    }
    memcpy(buf, tmp, n);
    buf[n] = '\0';
    return (int)n;
}

/* ---------------------------------------------------------------- UTF-8 */

/* Decodes the code point at s (NUL-terminated somewhere); *len gets its
 * byte length. Malformed bytes come back as U+FFFD, length 1. */
static uint32_t utf8_at(const char *s, int *len)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] < 0x80) {
        *len = u[0] ? 1 : 0;
        return u[0];
    }
    if ((u[0] & 0xe0) == 0xc0 && u[0] >= 0xc2 && (u[1] & 0xc0) == 0x80) {
        *len = 2;
        return ((uint32_t)(u[0] & 0x1f) << 6) | (u[1] & 0x3f);
    }
    if ((u[0] & 0xf0) == 0xe0 && (u[1] & 0xc0) == 0x80 && (u[2] & 0xc0) == 0x80 &&
        (u[0] != 0xe0 || u[1] >= 0xa0)) {
        *len = 3;
        return ((uint32_t)(u[0] & 0x0f) << 12) | ((uint32_t)(u[1] & 0x3f) << 6) | (u[2] & 0x3f);
    }
    if ((u[0] & 0xf8) == 0xf0 && (u[1] & 0xc0) == 0x80 && (u[2] & 0xc0) == 0x80 &&
        (u[3] & 0xc0) == 0x80 && (u[0] != 0xf0 || u[1] >= 0x90)) {
        *len = 4;
        return ((uint32_t)(u[0] & 0x07) << 18) | ((uint32_t)(u[1] & 0x3f) << 12) |
               ((uint32_t)(u[2] & 0x3f) << 6) | (u[3] & 0x3f);
    }
    *len = 1;
    return 0xfffd;
}

/* Cyrillic capitals that look like Latin ones, folded to ASCII. */
static uint32_t fold_cyrillic_upper(uint32_t c)
{
    switch (c) {
    case 0x410: return 'A';
    case 0x412: return 'B';
    case 0x415: return 'E';
    case 0x41a: return 'K';
    case 0x41c: return 'M';
    case 0x41d: return 'H';
    case 0x41e: return 'O';
    case 0x420: return 'P';
    case 0x421: return 'C';
    case 0x422: return 'T';
    case 0x425: return 'X';
    default: return c;
    }
}

/* File letter (0..7) of a code point, Cyrillic look-alikes included, or -1. */
static int file_of_cp(uint32_t c)
{
    if (c >= 'a' && c <= 'h') {
        return (int)(c - 'a');
    }
    switch (c) {
    case 0x430: return 0; /* а */
    case 0x431:           /* б */
    case 0x432:           /* в */
    case 0x44c: return 1; /* ь */
    case 0x441: return 2; /* с */
    case 0x435: return 4; /* е */
    case 0x4bb: return 7; /* һ */
    default: return -1;
    }
}

static bool is_capture_mark(uint32_t c)
{
    return c == 'x' || c == 'X' || c == ':' || c == 0x445 || c == 0x425 || c == 0xd7;
}

static bool is_hyphen(uint32_t c) { return c == '-' || c == 0x2013 || c == 0x2014; }

static bool is_castle_letter(uint32_t c) { return c == '0' || c == 'O' || c == 'o' || c == 0x41e || c == 0x43e; }

static bool is_upper_letter(uint32_t c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 0x410 && c <= 0x42f);
}

/* Characters that end a move token. */
static bool is_terminator(uint32_t c)
{
    return c == 0 || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '{' || c == '}' ||
           c == ';' || c == '(' || c == ')' || c == '[' || c == ']' || c == ',' || c == '$' ||
           c == 0xa0;
}

/* ---------------------------------------------------------------- reader */

typedef struct parsed {
    int castle;    /* 0, 1 king side, 2 queen side */
    int type;      /* piece type (CR_PAWN when no letter) */
    bool letter;   /* a piece letter was written */
    bool folded;   /* ... but only as a look-alike of another script's letter */
    int from_file, from_rank, to_file, to_rank; /* -1 = not given */
    int promo;     /* piece type or 0 */
    bool capture;
    unsigned flags;
    int nag;
    int consumed;
} parsed;

/* Reads a piece letter for `lang` at s. Returns the piece type and sets
 * *len, 0 if s does not start with a letter that could be a piece, or -1
 * for a capital that is no piece in that language. */
static int read_piece(int lang, const char *s, int *len, bool *folded)
{
    int l1;
    uint32_t c = utf8_at(s, &l1);
    *len = l1;
    *folded = (lang == CR_LANG_RU) != (c >= 0x400 && c < 0x500);
    if (c >= 0x2654 && c <= 0x265f) {
        static const int fig[6] = {CR_KING, CR_QUEEN, CR_ROOK, CR_BISHOP, CR_KNIGHT, CR_PAWN};
        return fig[(c - 0x2654) % 6];
    }
    if (!is_upper_letter(c)) {
        return 0;
    }
    if (lang == CR_LANG_RU) {
        if (c == 0x41a || c == 'K') {
            int l2;
            uint32_t n = utf8_at(s + l1, &l2);
            if (n == 0x440 || n == 0x420 || n == 'p' || n == 'P') {
                *len = l1 + l2;
                return CR_KING;
            }
            return CR_KNIGHT;
        }
        switch (c) {
        case 0x424: return CR_QUEEN;
        case 0x41b: return CR_ROOK;
        case 0x421:
        case 'C': return CR_BISHOP;
        case 0x41f:
        case 'P': return CR_PAWN;
        default: return -1;
        }
    }
    c = fold_cyrillic_upper(c);
    if (c > 'Z') {
        return -1;
    }
    for (int t = CR_KNIGHT; t <= CR_KING; t++) {
        if (lang_letters[lang][t][0] == (char)c) {
            return t;
        }
    }
    return c == 'P' ? CR_PAWN : -1;
}

static bool starts_ep(const char *s, int *len)
{
    int i = 0, l;
    uint32_t c = utf8_at(s, &l);
    if (c != 'e' && c != 0x435) {
        return false;
    }
    i += l;
    if (s[i] == '.') {
        i++;
    }
    c = utf8_at(s + i, &l);
    if (c != 'p' && c != 0x440) {
        return false;
    }
    i += l;
    if (s[i] == '.') {
        i++;
    }
    *len = i;
    return true;
}

static int unreadable(cr_error *err, const char *what, const char *s, int at)
{
    int l;
    uint32_t c = utf8_at(s + at, &l);
    if (c == 0) {
        return cr_error_set(err, CR_EMOVE, 0, 0, "%s at the end of the move", what);
    }
    return cr_error_set(err, CR_EMOVE, 0, 0, "%s at '%.*s' (character %d)", what, l, s + at, at + 1);
}

/* Castling: "O-O", "0-0-0", "OO" and look-alikes; *i gets past it. */
static int parse_castle(const char *s, parsed *p, int *i, cr_error *err)
{
    int n = 0, j = 0, l;
    for (;;) {
        uint32_t d = utf8_at(s + j, &l);
        if (!is_castle_letter(d)) {
            break;
        }
        n++;
        j += l;
        d = utf8_at(s + j, &l);
        if (is_hyphen(d) && is_castle_letter(utf8_at(s + j + l, &(int){0}))) {
            j += l;
        }
    }
    if (n != 2 && n != 3) {
        return unreadable(err, "cannot read castling", s, j);
    }
    p->castle = n - 1;
    p->type = CR_KING;
    *i = j;
    return 0;
}

/* The squares after the piece letter (t: its type, 0 for none) from s + *i:
 * files and ranks as a pattern ("frfr" long, "ffr", "rfr", "fr", pawn "ff"),
 * capture marks and hyphens between them. */
static int parse_squares(const char *s, int t, parsed *p, int *at, cr_error *err)
{
    int i = *at, l;
    char pat[6];
    int val[6], n = 0;
    for (;;) {
        uint32_t c = utf8_at(s + i, &l);
        int f = file_of_cp(c);
        if (f >= 0) {
            /* A file right after a full square that is not followed by a
             * rank is a lower-case promotion letter (UCI "e7e8b"). */
            int l2;
            uint32_t nx = utf8_at(s + i + l, &l2);
            if (n > 0 && pat[n - 1] == 'r' && !(nx >= '1' && nx <= '8')) {
                break;
            }
            if (n == 5) {
                return unreadable(err, "too many coordinates", s, i);
            }
            pat[n] = 'f';
            val[n++] = f;
        } else if (c >= '1' && c <= '8') {
            if (n == 5) {
                return unreadable(err, "too many coordinates", s, i);
            }
            pat[n] = 'r';
            val[n++] = (int)(c - '1');
        } else if (is_capture_mark(c)) {
            if (c == 0x425 && n == 0 && t == 0) {
                break; /* a capital Х alone is no capture mark */
            }
            p->capture = true;
        } else if (is_hyphen(c) && n > 0) {
            /* e2-e4, Ng1-f3 */
        } else {
            break;
        }
        i += l;
    }
    *at = i;
    pat[n] = '\0';
    if (strcmp(pat, "frfr") == 0) {
        p->from_file = val[0];
        p->from_rank = val[1];
        p->to_file = val[2];
        p->to_rank = val[3];
        p->flags |= CR_SANF_LONG;
    } else if (strcmp(pat, "ffr") == 0) {
        p->from_file = val[0];
        p->to_file = val[1];
        p->to_rank = val[2];
    } else if (strcmp(pat, "rfr") == 0) {
        p->from_rank = val[0];
        p->to_file = val[1];
        p->to_rank = val[2];
    } else if (strcmp(pat, "fr") == 0) {
        p->to_file = val[0];
        p->to_rank = val[1];
    } else if (strcmp(pat, "ff") == 0 && p->type == CR_PAWN) {
        p->from_file = val[0];
        p->to_file = val[1];
        p->capture = true;
    } else if (n == 0) {
        return unreadable(err, t ? "no square after the piece letter" : "cannot read a move", s, i);
    } else {
        return unreadable(err, "cannot read the squares", s, i);
    }
    return 0;
}

/* Promotion from s + *i: =Q Q (Q) /Q, any language's letter or lower-case UCI. */
static int parse_promotion(int lang, const char *s, parsed *p, int *i, cr_error *err)
{
    int l;
    uint32_t c = utf8_at(s + *i, &l);
    int j = *i;
    bool paren = false;
    if (c == '=' || c == '/' || c == '(') {
        paren = c == '(';
        j += l;
    }
    int pl;
    bool pfold;
    int pt = read_piece(lang, s + j, &pl, &pfold);
    if (pt <= 0) {
        uint32_t lc = utf8_at(s + j, &pl);
        pt = lc == 'q' ? CR_QUEEN : lc == 'r' ? CR_ROOK : lc == 'b' ? CR_BISHOP : lc == 'n' ? CR_KNIGHT : 0;
        if (pt && !(p->type == CR_PAWN && p->to_rank >= 0)) {
            pt = 0;
        }
    }
    if (pt > 0) {
        if (pt == CR_PAWN || pt == CR_KING) {
            return unreadable(err, "cannot promote to that piece", s, j);
        }
        j += pl;
        if (paren) {
            if (s[j] != ')') {
                return unreadable(err, "')' expected after the promotion piece", s, j);
            }
            j++;
        }
        p->promo = pt;
        *i = j;
    }
    return 0;
}

/* "!", "?", "!!", "??", "!?", "?!" at s + *i as a NAG. */
static int parse_annotation(const char *s, parsed *p, int *i, cr_error *err)
{
    int j = *i;
    char a[3] = {0};
    int k = 0;
    while ((s[j] == '!' || s[j] == '?') && k < 3) {
        a[k < 2 ? k : 2] = s[j];
        j++;
        k++;
    }
    if (k == 0) {
        /* a look-alike that is not an ASCII ! or ?: never loop on it */
        return unreadable(err, "unexpected character", s, *i);
    }
    if (k > 2) {
        return unreadable(err, "cannot read the annotation", s, *i);
    }
    static const char *const nags[7] = {"", "!", "?", "!!", "??", "!?", "?!"};
    a[2] = 0;
    for (int q = 1; q <= 6; q++) {
        if (strcmp(a, nags[q]) == 0) {
            p->nag = q;
        }
    }
    *i = j;
    return 0;
}

/* Suffixes right after the move: check, mate, annotation, e.p., draw offer;
 * then the end of the token, and "exd6 e.p." and "Kb1 (=)" written apart. */
static int parse_suffixes(const char *s, parsed *p, int *at, cr_error *err)
{
    int i = *at, l;
    uint32_t c;
    for (;;) {
        c = utf8_at(s + i, &l);
        int el;
        if (c == '+' || c == 0x2020) {
            if (p->flags & CR_SANF_CHECK && c == '+') {
                p->flags = (p->flags & ~(unsigned)CR_SANF_CHECK) | CR_SANF_MATE; /* ++ */
            } else {
                p->flags |= CR_SANF_CHECK;
            }
            i += l;
        } else if (c == '#' || c == 0x2021) {
            p->flags |= CR_SANF_MATE;
            i += l;
        } else if (c == '!' || c == '?') {
            int rc = parse_annotation(s, p, &i, err);
            if (rc) {
                return rc;
            }
        } else if (starts_ep(s + i, &el)) {
            p->flags |= CR_SANF_EP;
            i += el;
        } else if (c == '(' && s[i + 1] == '=' && s[i + 2] == ')') {
            p->flags |= CR_SANF_DRAW_OFFER;
            i += 3;
        } else if (c == '=' && is_terminator(utf8_at(s + i + 1, &el))) {
            p->flags |= CR_SANF_DRAW_OFFER;
            i += 1;
        } else {
            break;
        }
    }
    c = utf8_at(s + i, &l);
    if (!is_terminator(c)) {
        return unreadable(err, "unexpected character", s, i);
    }
    /* Written apart, also across a line break (a scoresheet line or a
     * wrapped PGN line ends after "exd6"): still this move's. */
    for (int round = 0; round < 3; round++) {
        int j = i, el;
        while (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n') {
            j++;
        }
        int k = j;
        while (s[k] == '+' || s[k] == '#') {
            k++;
        }
        if (k > j && k - j <= 2 && is_terminator(utf8_at(s + k, &l)) &&
            !(p->flags & (CR_SANF_CHECK | CR_SANF_MATE))) {
            p->flags |= s[j] == '#' || k - j == 2 ? CR_SANF_MATE : CR_SANF_CHECK;
            i = k;
        } else if (!(p->flags & CR_SANF_EP) && starts_ep(s + j, &el) && is_terminator(utf8_at(s + j + el, &l))) {
            p->flags |= CR_SANF_EP;
            i = j + el;
        } else if (!(p->flags & CR_SANF_DRAW_OFFER) && s[j] == '(' && s[j + 1] == '=' && s[j + 2] == ')') {
            p->flags |= CR_SANF_DRAW_OFFER;
            i = j + 3;
        } else if (!(p->flags & CR_SANF_DRAW_OFFER) && s[j] == '=' && is_terminator(utf8_at(s + j + 1, &l))) {
            p->flags |= CR_SANF_DRAW_OFFER;
            i = j + 1;
        }
    }
    *at = i;
    return 0;
}

/* Parses one move token for a language. Returns 0 or CR_EMOVE (err filled). */
static int parse_move(int lang, const char *s, parsed *p, cr_error *err)
{
    memset(p, 0, sizeof *p);
    p->from_file = p->from_rank = p->to_file = p->to_rank = -1;
    int i = 0, l, rc;
    if (is_castle_letter(utf8_at(s, &l))) {
        rc = parse_castle(s, p, &i, err);
    } else {
        int t = read_piece(lang, s, &l, &p->folded);
        p->folded &= t > 0;
        if (t < 0) {
            return cr_error_set(err, CR_EMOVE, 0, 0, "'%.*s' is no piece letter in %s", l, s,
                                lang_names[lang]);
        }
        p->type = t ? t : CR_PAWN;
        p->letter = t != 0;
        if (t) {
            i += l;
        }
        rc = parse_squares(s, t, p, &i, err);
        if (rc == 0) {
            rc = parse_promotion(lang, s, p, &i, err);
        }
    }
    if (rc == 0) {
        rc = parse_suffixes(s, p, &i, err);
    }
    if (rc == 0) {
        p->consumed = i;
    }
    return rc;
}

/* Long text of a legal move for error messages: Qd4-a1, e5xd6, 0-0. */
static void long_text(const cr_position *pos, cr_move m, int lang, char *o, size_t size)
{
    int from = cr_move_from(m), to = cr_move_to(m);
    if (cr_move_kind(m) == CR_MOVE_CASTLE) {
        snprintf(o, size, "%s", cr_file_of(to) > cr_file_of(from) ? "0-0" : "0-0-0");
        return;
    }
    char a[3], b[3];
    cr_square_name(from, a);
    cr_square_name(to, b);
    bool capture = cr_move_kind(m) == CR_MOVE_EN_PASSANT || pos->board[to];
    int promo = cr_move_promo(m);
    snprintf(o, size, "%s%s%c%s%s", lang_letters[lang][cr_type_of(pos->board[from])], a, capture ? 'x' : '-', b,
             promo ? lang_letters[lang][promo] : "");
}

/* Appends the moves of list (filtered by keep[]) to text, as far as it fits. */
static void list_moves(const cr_position *pos, const cr_movelist *list, const bool *keep, int lang, char *text,
                       size_t size)
{
    size_t n = strlen(text);
    bool first = true;
    for (int i = 0; i < list->count; i++) {
        if (!keep[i]) {
            continue;
        }
        char mv[CR_SAN_MAX];
        long_text(pos, list->moves[i], lang, mv, sizeof mv);
        size_t need = strlen(mv) + 2;
        if (n + need + 5 >= size) {
            snprintf(text + n, size - n, " ...");
            return;
        }
        n += (size_t)snprintf(text + n, size - n, "%s%s", first ? "" : ", ", mv);
        first = false;
    }
}

static bool matches(const cr_position *pos, cr_move m, const parsed *p)
{
    int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
    if (p->castle) {
        return kind == CR_MOVE_CASTLE && (p->castle == 1) == (cr_file_of(to) > cr_file_of(from));
    }
    /* UCI and letterless long forms ("g1f3"): the origin square says which piece */
    bool any_type = !p->letter && p->from_file >= 0 && p->from_rank >= 0;
    if (cr_type_of(pos->board[from]) != p->type && !any_type) {
        return false;
    }
    if (p->from_file >= 0 && cr_file_of(from) != p->from_file) {
        return false;
    }
    if (p->from_rank >= 0 && cr_rank_of(from) != p->from_rank) {
        return false;
    }
    if (kind == CR_MOVE_CASTLE) {
        /* a king move written to the king's castling square, or onto the rook */
        int kto = cr_castle_king_to(m, pos->side);
        if (p->to_rank < 0) {
            return false;
        }
        int want = cr_square(p->to_file, p->to_rank);
        /* "Kg1"/"e1g1" only when no plain king step could be meant (Chess960:
         * Kb1-c1 is a king move, castling is O-O-O or king-takes-rook b1a1) */
        int dist = cr_file_of(kto) - cr_file_of(from);
        return (want == kto && (dist > 1 || dist < -1)) || (want == to && p->from_file >= 0);
    }
    if (p->to_rank >= 0) {
        if (to != cr_square(p->to_file, p->to_rank)) {
            return false;
        }
    } else if (cr_file_of(to) != p->to_file || cr_file_of(from) == cr_file_of(to)) {
        return false;
    }
    if (p->type == CR_PAWN && p->from_file < 0 && cr_file_of(from) != cr_file_of(to)) {
        return false; /* "d5" is a pawn's step, not a capture */
    }
    int promo = cr_move_promo(m);
    if (p->promo && promo != p->promo) {
        return false;
    }
    return true;
}

/* Resolves a parsed move. Returns the move or CR_MOVE_NONE with err set. */
static cr_move resolve(const cr_position *pos, const parsed *pp, int lang, cr_error *err)
{
    parsed q = *pp;
    const parsed *p = &q;
    if (!q.letter && q.from_file >= 0 && q.from_rank >= 0) {
        int pc = pos->board[cr_square(q.from_file, q.from_rank)];
        if (pc && cr_color_of(pc) == pos->side) {
            q.type = cr_type_of(pc); /* "g1f3": the piece standing there */
        }
    }
    cr_movelist list;
    cr_generate_legal(pos, &list);
    bool keep[CR_MAX_MOVES];
    int count = 0;
    cr_move found = CR_MOVE_NONE;
    bool promo_missing = false;
    for (int i = 0; i < list.count; i++) {
        keep[i] = matches(pos, list.moves[i], p);
        if (keep[i]) {
            count++;
            found = list.moves[i];
            if (cr_move_promo(found) && !p->promo) {
                promo_missing = true;
            }
        }
    }
    const char *side = pos->side == CR_WHITE ? "white" : "black";
    if (count == 1 && !promo_missing) {
        return found;
    }
    char *t = err ? err->text : NULL;
    size_t ts = err ? sizeof err->text : 0;
    if (count > 0) {
        if (promo_missing) {
            cr_error_set(err, CR_EAMBIG, 0, 0, "the pawn move needs a promotion piece; legal moves: ");
        } else {
            cr_error_set(err, CR_EAMBIG, 0, 0, "ambiguous: %d %s moves fit: ", count, type_names[p->type]);
        }
        if (t) {
            list_moves(pos, &list, keep, lang, t, ts);
        }
        return CR_MOVE_NONE;
    }
    if (p->castle) {
        cr_error_set(err, CR_EMOVE, 0, 0, "castling %s is not legal here",
                     p->castle == 1 ? "king side (0-0)" : "queen side (0-0-0)");
        return CR_MOVE_NONE;
    }
    /* nothing fits: say which piece cannot do what, and what it could do */
    const char *name = type_names[p->type];
    char to_name[3] = "?";
    if (p->to_rank >= 0) {
        cr_square_name(cr_square(p->to_file, p->to_rank), to_name);
    } else {
        to_name[0] = (char)('a' + p->to_file);
        to_name[1] = '\0';
    }
    for (int i = 0; i < list.count; i++) {
        int from = cr_move_from(list.moves[i]);
        keep[i] = cr_type_of(pos->board[from]) == p->type &&
                  (p->from_file < 0 || cr_file_of(from) == p->from_file) &&
                  (p->from_rank < 0 || cr_rank_of(from) == p->from_rank);
    }
    int own = cr_make_piece(pos->side, p->type);
    if (p->from_file >= 0 && p->from_rank >= 0) {
        int from = cr_square(p->from_file, p->from_rank);
        char fn[3];
        cr_square_name(from, fn);
        if (pos->board[from] != own) {
            cr_error_set(err, CR_EMOVE, 0, 0, "there is no %s %s on %s", side, name, fn);
            return CR_MOVE_NONE;
        }
        cr_error_set(err, CR_EMOVE, 0, 0, "the %s on %s cannot reach %s; legal %s moves from %s are ", name, fn,
                     to_name, name, fn);
    } else if (!(pos->by_piece[own])) {
        cr_error_set(err, CR_EMOVE, 0, 0, "%s has no %s", side, name);
        return CR_MOVE_NONE;
    } else {
        cr_error_set(err, CR_EMOVE, 0, 0, "no %s %s can reach %s%s; legal %s moves are ", side, name, to_name,
                     p->promo ? " promoting so" : "", name);
    }
    bool any = false;
    for (int i = 0; i < list.count; i++) {
        any |= keep[i];
    }
    if (t) {
        if (any) {
            list_moves(pos, &list, keep, lang, t, ts);
        } else {
            size_t n = strlen(t);
            snprintf(t + n, ts - n, "none");
        }
    }
    return CR_MOVE_NONE;
}

cr_move cr_move_from_text(const cr_position *pos, const char *text, int lang, cr_san_info *info, cr_error *err)
{
    if (info) {
        memset(info, 0, sizeof *info);
    }
    if (!pos || !text || lang >= CR_LANG_NB || lang < -1) {
        cr_error_set(err, CR_EINVAL, 0, 0, "invalid argument");
        return CR_MOVE_NONE;
    }
    parsed p;
    if (lang >= 0) {
        if (parse_move(lang, text, &p, err) < 0) {
            return CR_MOVE_NONE;
        }
        cr_move m = resolve(pos, &p, lang, err);
        if (m != CR_MOVE_NONE && info) {
            info->flags = p.flags;
            info->nag = p.nag;
            info->consumed = p.consumed;
        }
        return m;
    }
    /* any language: take the reading if all languages that read it agree */
    cr_move found = CR_MOVE_NONE;
    int found_lang = -1;
    int err_rank = 0; /* 0 none, 1 unreadable, 2 read but not legal/ambiguous */
    cr_error first_err, e;
    cr_error_clear(&first_err);
    parsed best;
    memset(&best, 0, sizeof best);
    /* letters as written first; look-alikes of the other script only if
     * no language reads the letter as written */
    for (int pass = 0; pass < 2 && found == CR_MOVE_NONE; pass++) {
        for (int l = 0; l < CR_LANG_NB; l++) {
            cr_error_clear(&e);
            if (parse_move(l, text, &p, &e) < 0) {
                if (err_rank == 0) {
                    first_err = e;
                    err_rank = 1;
                }
                continue;
            }
            if (p.folded != (pass == 1)) {
                continue;
            }
            cr_move m = resolve(pos, &p, l, &e);
            if (m == CR_MOVE_NONE) {
                if (err_rank < 2) {
                    first_err = e;
                    err_rank = 2;
                }
                continue;
            }
            if (found != CR_MOVE_NONE && m != found) {
                char a[CR_SAN_MAX], b[CR_SAN_MAX];
                long_text(pos, found, CR_LANG_EN, a, sizeof a);
                long_text(pos, m, CR_LANG_EN, b, sizeof b);
                cr_error_set(err, CR_EAMBIG, 0, 0, "reads as %s in %s but as %s in %s; give the language", a,
                             lang_names[found_lang], b, lang_names[l]);
                return CR_MOVE_NONE;
            }
            if (found == CR_MOVE_NONE) {
                found = m;
                found_lang = l;
                best = p;
            }
        }
    }
    if (found == CR_MOVE_NONE) {
        if (err) {
            *err = first_err;
            if (err->code == 0) {
                cr_error_set(err, CR_EMOVE, 0, 0, "cannot read the move");
            }
        }
        return CR_MOVE_NONE;
    }
    if (info) {
        info->flags = best.flags;
        info->nag = best.nag;
        info->consumed = best.consumed;
    }
    return found;
}

/* ---------------------------------------------------------------- language detection */

int cr_notation_detect_lang(const char *text, size_t len)
{
    int score[CR_LANG_NB] = {0};
    bool any = false;
    size_t i = 0;
    int depth = 0;
    while (i < len && text[i]) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '{') {
            while (i < len && text[i] && text[i] != '}') {
                i++;
            }
            continue;
        }
        if (ch == ';') {
            while (i < len && text[i] && text[i] != '\n') {
                i++;
            }
            continue;
        }
        if (ch == '[' && (i == 0 || text[i - 1] == '\n')) {
            while (i < len && text[i] && text[i] != '\n') {
                i++;
            }
            continue;
        }
        if (ch == '(' || ch == ')') {
            depth += ch == '(' ? 1 : -1;
            i++;
            continue;
        }
        if (ch <= ' ' || ch == '.' || (ch >= '0' && ch <= '9')) {
            i++;
            continue;
        }
        /* a word starts: look at its piece letter and a promotion letter */
        size_t start = i;
        while (i < len && text[i] && (unsigned char)text[i] > ' ' && text[i] != '{' && text[i] != '(' &&
               text[i] != ')') {
            i++;
        }
        if (depth > 0) {
            continue;
        }
        char word[48];
        size_t wl = i - start < sizeof word - 1 ? i - start : sizeof word - 1;
        memcpy(word, text + start, wl);
        word[wl] = '\0';
        int l;
        uint32_t c = utf8_at(word, &l);
        if (!is_upper_letter(c) || c == 'O' || c == 0x41e) {
            continue; /* pawn move, castling, figurine or no move at all */
        }
        any = true;
        for (int lang = 0; lang < CR_LANG_NB; lang++) {
            int pl;
            bool fold;
            int t = read_piece(lang, word, &pl, &fold);
            if (t == CR_PAWN) {
                continue; /* "Pe4": a pawn, or a Dutch knight; no vote against */
            }
            if (t <= 0) {
                score[lang] -= 2;
                continue;
            }
            score[lang] += fold ? 1 : 2;
        }
    }
    if (!any) {
        return -1;
    }
    static const int order[CR_LANG_NB] = {CR_LANG_EN, CR_LANG_RU, CR_LANG_DE, CR_LANG_FR,
                                          CR_LANG_ES, CR_LANG_NL, CR_LANG_IT};
    int best = order[0];
    for (int k = 1; k < CR_LANG_NB; k++) {
        if (score[order[k]] > score[best]) {
            best = order[k];
        }
    }
    return best;
}
