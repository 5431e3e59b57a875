/* FEN and piece-placement text, read with strict validation (each fault is
 * reported with its 1-based column) and written canonically: KQkq when the
 * castling rooks are the outermost ones, Shredder file letters otherwise. */
#include "board_private.h"

#include <stdio.h>
#include <string.h>

static const char piece_chars[] = " PNBRQK  pnbrqk";

/* A table, not strchr: every snapshot of a feed is a placement. */
static const uint8_t piece_of_char[256] = {
    ['P'] = CR_WP, ['N'] = CR_WN, ['B'] = CR_WB, ['R'] = CR_WR, ['Q'] = CR_WQ, ['K'] = CR_WK,
    ['p'] = CR_BP, ['n'] = CR_BN, ['b'] = CR_BB, ['r'] = CR_BR, ['q'] = CR_BQ, ['k'] = CR_BK,
};

static int piece_from_char(char c)
{
    return piece_of_char[(unsigned char)c];
}

/* What a placement character does, for the fast reader: bits 0-7 the
 * piece (0 for a digit or '/'), 8-11 the squares it fills, bit 12 a digit,
 * bit 13 the rank separator, bit 14 set for every placement character
 * (0: any other byte). */
#define PL_DIGIT (1u << 12)
#define PL_SLASH (1u << 13)
#define PL_OK (1u << 14)
#define PL_PIECE(p) ((uint32_t)(p) | 1u << 8 | PL_OK)
#define PL_EMPTY(n) ((uint32_t)(n) << 8 | PL_DIGIT | PL_OK)
static const uint32_t pl_code[256] = {
    ['P'] = PL_PIECE(CR_WP), ['N'] = PL_PIECE(CR_WN), ['B'] = PL_PIECE(CR_WB),
    ['R'] = PL_PIECE(CR_WR), ['Q'] = PL_PIECE(CR_WQ), ['K'] = PL_PIECE(CR_WK),
    ['p'] = PL_PIECE(CR_BP), ['n'] = PL_PIECE(CR_BN), ['b'] = PL_PIECE(CR_BB),
    ['r'] = PL_PIECE(CR_BR), ['q'] = PL_PIECE(CR_BQ), ['k'] = PL_PIECE(CR_BK),
    ['1'] = PL_EMPTY(1), ['2'] = PL_EMPTY(2), ['3'] = PL_EMPTY(3), ['4'] = PL_EMPTY(4),
    ['5'] = PL_EMPTY(5), ['6'] = PL_EMPTY(6), ['7'] = PL_EMPTY(7), ['8'] = PL_EMPTY(8),
    ['/'] = PL_SLASH | PL_OK,
};

/* A well-formed placement, read with a handful of operations a character
 * and no branch (every snapshot of a feed is one). Returns false on any
 * fault: placement_parse then reads it again to say which. Squares go
 * into text order (a8 first): a digit writes one empty square and skips
 * on. The checks come after the loop: no bad character, no two digits in
 * a row, 64 squares, and each of the 7 separators after exactly 8, 16, ...
 * squares (so no rank over- or underflows). */
static bool placement_fast(const char *s, size_t len, uint8_t board[CR_SQ_NB])
{
    uint8_t text[128]; /* written at fi & 127: a fi past 64 fails at the end anyway */
    unsigned at_slash[8];
    unsigned fi = 0, slashes = 0, all = PL_OK, pairs = 0, prev = 0;
    memset(text, 0, CR_SQ_NB);
    for (size_t i = 0; i < len; i++) {
        uint32_t v = pl_code[(unsigned char)s[i]];
        text[fi & 127] = (uint8_t)v;
        at_slash[slashes & 7] = fi; /* the last write before a '/' counts */
        fi += (v >> 8) & 15;
        slashes += (v & PL_SLASH) != 0;
        all &= v;
        pairs |= v & prev;
        prev = v;
    }
    if (!(all & PL_OK) || (pairs & PL_DIGIT) || fi != CR_SQ_NB || slashes != 7) {
        return false;
    }
    for (unsigned k = 0; k < 7; k++) {
        if (at_slash[k] != 8 * (k + 1)) {
            return false;
        }
    }
    for (int r = 0; r < 8; r++) {
        memcpy(board + (7 - r) * 8, text + r * 8, 8);
    }
    return true;
}

/* Parses len bytes of s as a placement; col0 is the column of s[0]. */
static int placement_parse(const char *s, size_t len, int col0, uint8_t board[CR_SQ_NB],
                           cr_error *err)
{
    if (placement_fast(s, len, board)) {
        return 0;
    }
    int rank = 7, file = 0;
    bool last_digit = false;
    memset(board, 0, CR_SQ_NB);
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int col = col0 + (int)i;
        if (c == '/') {
            if (file != 8) {
                return cr_error_set(err, CR_EFEN, 0, col, "rank %d has %d squares, not 8",
                                    rank + 1, file);
            }
            if (rank == 0) {
                return cr_error_set(err, CR_EFEN, 0, col, "more than 8 ranks");
            }
            rank--;
            file = 0;
            last_digit = false;
        } else if (c >= '1' && c <= '8') {
            if (last_digit) {
                return cr_error_set(err, CR_EFEN, 0, col, "two digits in a row");
            }
            file += c - '0';
            if (file > 8) {
                return cr_error_set(err, CR_EFEN, 0, col, "rank %d has more than 8 squares",
                                    rank + 1);
            }
            last_digit = true;
        } else {
            int pc = piece_from_char(c);
            if (!pc) {
                if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f) {
                    return cr_error_set(err, CR_EFEN, 0, col, "bad piece letter '%c'", c);
                }
                return cr_error_set(err, CR_EFEN, 0, col, "bad piece letter (byte 0x%02x)",
                                    (unsigned char)c);
            }
            if (file >= 8) {
                return cr_error_set(err, CR_EFEN, 0, col, "rank %d has more than 8 squares",
                                    rank + 1);
            }
            board[cr_square(file, rank)] = (uint8_t)pc;
            file++;
            last_digit = false;
        }
    }
    int col = col0 + (int)len;
    if (file != 8) {
        return cr_error_set(err, CR_EFEN, 0, col, "rank %d has %d squares, not 8", rank + 1, file);
    }
    if (rank != 0) {
        return cr_error_set(err, CR_EFEN, 0, col, "only %d ranks, not 8", 8 - rank);
    }
    return 0;
}

int cr_placement_read(const char *s, uint8_t board[CR_SQ_NB], cr_error *err)
{
    if (!s || !board) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "no placement");
    }
    return placement_parse(s, strlen(s), 1, board, err);
}

int cr_placement_read_len(const char *s, size_t len, uint8_t board[CR_SQ_NB], cr_error *err)
{
    if (!s || !board) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "no placement");
    }
    return placement_parse(s, len, 1, board, err);
}

int cr_placement_write(const uint8_t board[CR_SQ_NB], char *buf, size_t size)
{
    char tmp[CR_FEN_MAX];
    size_t n = 0;
    for (int rank = 7; rank >= 0; rank--) {
        int empty = 0;
        for (int file = 0; file < 8; file++) {
            int pc = board[cr_square(file, rank)];
            if (!pc || pc >= CR_PIECE_NB || piece_chars[pc] == ' ') {
                empty++;
                continue;
            }
            if (empty) {
                tmp[n++] = (char)('0' + empty);
                empty = 0;
            }
            tmp[n++] = piece_chars[pc];
        }
        if (empty) {
            tmp[n++] = (char)('0' + empty);
        }
        if (rank) {
            tmp[n++] = '/';
        }
    }
    if (!buf || n + 1 > size) {
        return CR_ENOSPC;
    }
    memcpy(buf, tmp, n);
    buf[n] = '\0';
    return (int)n;
}

/* Outermost rook of colour c on its back rank on one side of the king. */
static int outer_rook(const cr_position *pos, int c, int side, int ksq)
{
    int back = c == CR_WHITE ? 0 : 56;
    int rook = cr_make_piece(c, CR_ROOK);
    if (side == CR_CASTLE_KING_SIDE) {
        for (int f = 7; f > cr_file_of(ksq); f--) {
            if (pos->board[back + f] == rook) {
                return back + f;
            }
        }
    } else {
        for (int f = 0; f < cr_file_of(ksq); f++) {
            if (pos->board[back + f] == rook) {
                return back + f;
            }
        }
    }
    return CR_SQ_NONE;
}

int cr_position_to_fen(const cr_position *pos, char *buf, size_t size)
{
    char tmp[CR_FEN_MAX + 40];
    int n = cr_placement_write(pos->board, tmp, sizeof tmp);
    if (n < 0) {
        return n;
    }
    tmp[n++] = ' ';
    tmp[n++] = pos->side == CR_WHITE ? 'w' : 'b';
    tmp[n++] = ' ';
    int before = n;
    for (int c = 0; c < 2; c++) {
        for (int s = 0; s < 2; s++) {
            int r = pos->castle_rook[c][s];
            if (r >= 64) {
                continue;
            }
            cr_bb k = cr_pieces_(pos, c, CR_KING);
            char letter;
            if (k && outer_rook(pos, c, s, cr_lsb_(k)) == r) {
                letter = s == CR_CASTLE_KING_SIDE ? 'K' : 'Q';
            } else {
                letter = (char)('A' + cr_file_of(r));
            }
            tmp[n++] = c == CR_WHITE ? letter : (char)(letter - 'A' + 'a');
        }
    }
    if (n == before) {
        tmp[n++] = '-';
    }
    tmp[n++] = ' ';
    if (pos->ep < 64) {
        cr_square_name(pos->ep, tmp + n);
        n += 2;
    } else {
        tmp[n++] = '-';
    }
    n += snprintf(tmp + n, sizeof tmp - (size_t)n, " %u %u", (unsigned)pos->halfmove,
                  (unsigned)pos->fullmove);
    if (!buf || (size_t)n + 1 > size) {
        return CR_ENOSPC;
    }
    memcpy(buf, tmp, (size_t)n + 1);
    return n;
}

/* Reads a decimal counter field; false if not digits or above max. */
static bool parse_counter(const char *s, size_t len, unsigned max, unsigned *out)
{
    unsigned v = 0;
    if (len == 0 || len > 6) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return v <= max;
}

static int check_material(const cr_position *pos, int col, cr_error *err)
{
    static const char *const names[2] = {"white", "black"};
    for (int c = 0; c < 2; c++) {
        int kings = cr_popcount_(cr_pieces_(pos, c, CR_KING));
        if (kings == 0) {
            return cr_error_set(err, CR_EFEN, 0, col, "missing %s king", names[c]);
        }
        if (kings > 1) {
            return cr_error_set(err, CR_EFEN, 0, col, "%d %s kings", kings, names[c]);
        }
        int pawns = cr_popcount_(cr_pieces_(pos, c, CR_PAWN));
        if (pawns > 8) {
            return cr_error_set(err, CR_EFEN, 0, col, "%d %s pawns (at most 8)", pawns, names[c]);
        }
        int total = cr_popcount_(pos->by_color[c]);
        if (total > 16) {
            return cr_error_set(err, CR_EFEN, 0, col, "%d %s pieces (at most 16)", total,
                                names[c]);
        }
        /* Pieces beyond the initial set must come from promoted pawns. */
        static const int initial[7] = {0, 8, 2, 2, 2, 1, 1};
        int extra = 0;
        for (int t = CR_KNIGHT; t <= CR_QUEEN; t++) {
            int n = cr_popcount_(cr_pieces_(pos, c, t));
            extra += n > initial[t] ? n - initial[t] : 0;
        }
        if (extra > 8 - pawns) {
            return cr_error_set(err, CR_EFEN, 0, col,
                                "too many %s promoted pieces for %d pawns", names[c], pawns);
        }
    }
    cr_bb back_pawns = (pos->by_piece[CR_WP] | pos->by_piece[CR_BP]) & (CR_RANK_1 | CR_RANK_1 << 56);
    if (back_pawns) {
        int sq = cr_lsb_(back_pawns);
        char name[3];
        cr_square_name(sq, name);
        return cr_error_set(err, CR_EFEN, 0, col, "pawn on rank %d (%s)", cr_rank_of(sq) + 1, name);
    }
    return 0;
}

static int parse_castling(cr_position *pos, const char *s, size_t len, int col, cr_error *err)
{
    if (len == 1 && s[0] == '-') {
        return 0;
    }
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        int c, side, rsq;
        int ccol = col + (int)i;
        if (ch >= 'A' && ch <= 'Z') {
            c = CR_WHITE;
        } else if (ch >= 'a' && ch <= 'z') {
            c = CR_BLACK;
            ch = (char)(ch - 'a' + 'A');
        } else {
            return cr_error_set(err, CR_EFEN, 0, ccol, "bad castling character '%c'",
                                s[i] > 32 && s[i] < 127 ? s[i] : '?');
        }
        int back = c == CR_WHITE ? 0 : 56;
        cr_bb kbb = cr_pieces_(pos, c, CR_KING);
        int ksq = kbb ? cr_lsb_(kbb) : -1;
        if (ksq < 0 || cr_rank_of(ksq) != back / 8) {
            return cr_error_set(err, CR_EFEN, 0, ccol, "castling right '%c' but the %s king is not on its back rank",
                                s[i], c == CR_WHITE ? "white" : "black");
        }
        if (ch == 'K' || ch == 'Q') {
            side = ch == 'K' ? CR_CASTLE_KING_SIDE : CR_CASTLE_QUEEN_SIDE;
            rsq = outer_rook(pos, c, side, ksq);
            if (rsq == CR_SQ_NONE) {
                return cr_error_set(err, CR_EFEN, 0, ccol, "castling right '%c' but no rook on that side",
                                    s[i]);
            }
        } else if (ch >= 'A' && ch <= 'H') {
            rsq = back + (ch - 'A');
            if (pos->board[rsq] != cr_make_piece(c, CR_ROOK)) {
                return cr_error_set(err, CR_EFEN, 0, ccol, "castling right '%c' but no rook on %c%d",
                                    s[i], ch - 'A' + 'a', back / 8 + 1);
            }
            if (cr_file_of(rsq) == cr_file_of(ksq)) {
                return cr_error_set(err, CR_EFEN, 0, ccol, "bad castling character '%c'", s[i]);
            }
            side = cr_file_of(rsq) > cr_file_of(ksq) ? CR_CASTLE_KING_SIDE : CR_CASTLE_QUEEN_SIDE;
        } else {
            return cr_error_set(err, CR_EFEN, 0, ccol, "bad castling character '%c'", s[i]);
        }
        if (pos->castle_rook[c][side] != CR_SQ_NONE) {
            return cr_error_set(err, CR_EFEN, 0, ccol, "castling right '%c' given twice", s[i]);
        }
        pos->castle_rook[c][side] = (uint8_t)rsq;
        /* Anything but king on e-file with a/h rooks is a Chess960 set-up. */
        if (cr_file_of(ksq) != 4 || (cr_file_of(rsq) != 0 && cr_file_of(rsq) != 7)) {
            pos->chess960 = 1;
        }
    }
    return 0;
}

int cr_position_from_fen(cr_position *pos, const char *fen, cr_error *err)
{
    if (!pos || !fen) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "no FEN");
    }
    memset(pos, 0, sizeof *pos);
    pos->ep = CR_SQ_NONE;
    for (int c = 0; c < 2; c++) {
        pos->castle_rook[c][0] = pos->castle_rook[c][1] = CR_SQ_NONE;
    }

    /* Split into whitespace-separated fields, remembering columns. */
    const char *field[7];
    size_t flen[7];
    int nf = 0;
    const char *p = fen;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
            p++;
        }
        if (!*p) {
            break;
        }
        if (nf == 6) {
            return cr_error_set(err, CR_EFEN, 0, (int)(p - fen) + 1, "too many fields (more than 6)");
        }
        field[nf] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            p++;
        }
        flen[nf] = (size_t)(p - field[nf]);
        nf++;
    }
    if (nf < 4) {
        return cr_error_set(err, CR_EFEN, 0, (int)(p - fen) + 1,
                            "%d field%s, need at least 4 (placement, side, castling, e.p.)", nf,
                            nf == 1 ? "" : "s");
    }
#define COL(i) ((int)(field[i] - fen) + 1)
    int rc = placement_parse(field[0], flen[0], 1, pos->board, err);
    if (rc) {
        return rc;
    }
    if (flen[1] != 1 || (field[1][0] != 'w' && field[1][0] != 'b')) {
        return cr_error_set(err, CR_EFEN, 0, COL(1), "side to move must be 'w' or 'b'");
    }
    pos->side = field[1][0] == 'w' ? CR_WHITE : CR_BLACK;
    cr_position_rebuild_(pos);
    rc = check_material(pos, 1, err);
    if (rc) {
        return rc;
    }
    rc = parse_castling(pos, field[2], flen[2], COL(2), err);
    if (rc) {
        return rc;
    }

    int ep = CR_SQ_NONE;
    if (!(flen[3] == 1 && field[3][0] == '-')) {
        char name[3] = {0};
        if (flen[3] == 2) {
            name[0] = field[3][0];
            name[1] = field[3][1];
        }
        ep = cr_square_parse(name);
        if (ep == CR_SQ_NONE) {
            return cr_error_set(err, CR_EFEN, 0, COL(3), "bad en-passant field (want '-' or a square)");
        }
        /* Plausible: right rank, the double-pushed pawn in front, the two
         * squares it crossed empty. */
        int us = pos->side;
        int ep_rank = us == CR_WHITE ? 5 : 2;
        int pawn_sq = us == CR_WHITE ? ep - 8 : ep + 8;
        int orig_sq = us == CR_WHITE ? ep + 8 : ep - 8;
        if (cr_rank_of(ep) != ep_rank || pos->board[pawn_sq] != cr_make_piece(us ^ 1, CR_PAWN) ||
            pos->board[ep] != CR_NO_PIECE || pos->board[orig_sq] != CR_NO_PIECE) {
            return cr_error_set(err, CR_EFEN, 0, COL(3), "impossible en-passant square %s", name);
        }
    }

    unsigned half = 0, full = 1;
    if (nf >= 5 && !parse_counter(field[4], flen[4], 65535, &half)) {
        return cr_error_set(err, CR_EFEN, 0, COL(4), "bad halfmove clock '%.*s'",
                            (int)(flen[4] > 10 ? 10 : flen[4]), field[4]);
    }
    if (nf >= 6 && (!parse_counter(field[5], flen[5], 65535, &full) || full == 0)) {
        return cr_error_set(err, CR_EFEN, 0, COL(5), "bad fullmove number '%.*s'",
                            (int)(flen[5] > 10 ? 10 : flen[5]), field[5]);
    }
    pos->halfmove = (uint16_t)half;
    pos->fullmove = (uint16_t)full;
    pos->key = cr_position_compute_key(pos);

    if (cr_square_attacked(pos, cr_king_sq_(pos, pos->side ^ 1), pos->side)) {
        return cr_error_set(err, CR_EFEN, 0, COL(1), "side not to move is in check");
    }
    /* No move can give more than a double check. */
    int ksq = cr_king_sq_(pos, pos->side);
    int checkers = cr_popcount_(cr_attackers_(pos, ksq, pos->occupied) & pos->by_color[pos->side ^ 1]);
    if (checkers > 2) {
        return cr_error_set(err, CR_EFEN, 0, COL(1), "side to move is in check by %d pieces",
                            checkers);
    }
    cr_position_set_ep_(pos, ep);
#undef COL
    return 0;
}
