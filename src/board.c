/* The rules engine: position bookkeeping, making moves, keys, status.
 *
 * Representation. A cr_position holds one bitboard per piece (by_piece, bit i
 * = square i, a1 = 0) plus per-colour and total occupancy, and a mailbox
 * (board[]) for "what stands on square s" in O(1). Both are kept in step by
 * put/remove helpers; cr_position_ok() checks that. Positions are copied, not
 * unmade (copy-make): a position is ~230 bytes and copying is cheaper and
 * simpler than an undo stack.
 *
 * Castling is stored as the rook square holding each right
 * (castle_rook[color][side]); a castling move is "king takes own rook", which
 * covers standard chess and every Chess960 set-up alike.
 *
 * Attack tables (leapers, between/line masks, magic bitboards for sliders)
 * and Zobrist keys are const data generated at build time by
 * src/gen/gen_tables.c; nothing is initialised at run time, so there is no
 * global mutable state. Legal move generation (movegen.c) uses check and pin
 * masks instead of trying moves. FEN text lives in fen.c.
 *
 * Keys: piece-square keys, one key per castling rook square, the e.p. file
 * (only when e.p. is really possible, see board.h) and the side to move. */
#include "board_private.h"

#include <string.h>

void cr_square_name(int sq, char buf[3])
{
    if (sq < 0 || sq >= 64) {
        buf[0] = '-';
        buf[1] = '\0';
        buf[2] = '\0';
        return;
    }
    buf[0] = (char)('a' + cr_file_of(sq));
    buf[1] = (char)('1' + cr_rank_of(sq));
    buf[2] = '\0';
}

int cr_square_parse(const char *s)
{
    if (!s || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8') {
        return CR_SQ_NONE;
    }
    return cr_square(s[0] - 'a', s[1] - '1');
}

uint64_t cr_position_compute_key(const cr_position *pos)
{
    uint64_t k = 0;
    for (int sq = 0; sq < 64; sq++) {
        if (pos->board[sq]) {
            k ^= cr_zobrist_piece_[pos->board[sq] * 64 + sq];
        }
    }
    for (int c = 0; c < 2; c++) {
        for (int s = 0; s < 2; s++) {
            if (pos->castle_rook[c][s] < 64) {
                k ^= cr_zobrist_castle_[pos->castle_rook[c][s]];
            }
        }
    }
    if (pos->ep < 64) {
        k ^= cr_zobrist_ep_[cr_file_of(pos->ep)];
    }
    if (pos->side == CR_BLACK) {
        k ^= cr_zobrist_side_;
    }
    return k;
}

void cr_position_rebuild_(cr_position *pos)
{
    memset(pos->by_piece, 0, sizeof pos->by_piece);
    pos->by_color[0] = pos->by_color[1] = 0;
    for (int sq = 0; sq < 64; sq++) {
        int pc = pos->board[sq];
        if (pc) {
            pos->by_piece[pc] |= CR_BB(sq);
            pos->by_color[cr_color_of(pc)] |= CR_BB(sq);
        }
    }
    pos->occupied = pos->by_color[0] | pos->by_color[1];
    pos->key = cr_position_compute_key(pos);
}

static inline void put_piece(cr_position *pos, int pc, int sq)
{
    pos->board[sq] = (uint8_t)pc;
    pos->by_piece[pc] |= CR_BB(sq);
    pos->by_color[cr_color_of(pc)] |= CR_BB(sq);
    pos->occupied |= CR_BB(sq);
    pos->key ^= cr_zobrist_piece_[pc * 64 + sq];
}

static inline void remove_piece(cr_position *pos, int sq)
{
    int pc = pos->board[sq];
    pos->board[sq] = CR_NO_PIECE;
    pos->by_piece[pc] &= ~CR_BB(sq);
    pos->by_color[cr_color_of(pc)] &= ~CR_BB(sq);
    pos->occupied &= ~CR_BB(sq);
    pos->key ^= cr_zobrist_piece_[pc * 64 + sq];
}

bool cr_square_attacked(const cr_position *pos, int sq, int color)
{
    if (sq < 0 || sq >= 64 || color < 0 || color > 1) {
        return false;
    }
    return (cr_attackers_(pos, sq, pos->occupied) & pos->by_color[color]) != 0;
}

bool cr_in_check(const cr_position *pos)
{
    cr_bb k = cr_pieces_(pos, pos->side, CR_KING);
    return k && cr_square_attacked(pos, cr_lsb_(k), pos->side ^ 1);
}

int cr_castle_king_to(cr_move m, int color)
{
    int side = cr_move_to(m) > cr_move_from(m) ? CR_CASTLE_KING_SIDE : CR_CASTLE_QUEEN_SIDE;
    return cr_square(side == CR_CASTLE_KING_SIDE ? 6 : 2, color == CR_WHITE ? 0 : 7);
}

int cr_castle_rook_to(cr_move m, int color)
{
    int side = cr_move_to(m) > cr_move_from(m) ? CR_CASTLE_KING_SIDE : CR_CASTLE_QUEEN_SIDE;
    return cr_square(side == CR_CASTLE_KING_SIDE ? 5 : 3, color == CR_WHITE ? 0 : 7);
}

void cr_position_set_ep_(cr_position *pos, int candidate)
{
    if (pos->ep < 64) {
        pos->key ^= cr_zobrist_ep_[cr_file_of(pos->ep)];
    }
    pos->ep = CR_SQ_NONE;
    if (candidate < 0 || candidate >= 64) {
        return;
    }
    int us = pos->side, them = us ^ 1;
    /* The pawn that just moved two squares stands one step beyond e.p. */
    int capsq = us == CR_WHITE ? candidate - 8 : candidate + 8;
    cr_bb cand = cr_pawn_att_[them * 64 + candidate] & cr_pieces_(pos, us, CR_PAWN);
    cr_bb kbb = cr_pieces_(pos, us, CR_KING);
    if (!cand || !kbb || pos->board[capsq] != cr_make_piece(them, CR_PAWN) ||
        (pos->occupied & CR_BB(candidate))) {
        return;
    }
    int ksq = cr_lsb_(kbb);
    while (cand) {
        int from = cr_pop_lsb_(&cand);
        cr_bb occ = (pos->occupied ^ CR_BB(from) ^ CR_BB(capsq)) | CR_BB(candidate);
        cr_bb att = cr_attackers_(pos, ksq, occ) & pos->by_color[them] & ~CR_BB(capsq);
        if (!att) {
            pos->ep = (uint8_t)candidate;
            pos->key ^= cr_zobrist_ep_[cr_file_of(candidate)];
            return;
        }
    }
}

static inline void drop_right(cr_position *pos, int c, int s)
{
    if (pos->castle_rook[c][s] < 64) {
        pos->key ^= cr_zobrist_castle_[pos->castle_rook[c][s]];
        pos->castle_rook[c][s] = CR_SQ_NONE;
    }
}

/* A move from or to a castling rook's square loses that right. */
static inline void touch_rights(cr_position *pos, int sq)
{
    for (int c = 0; c < 2; c++) {
        for (int s = 0; s < 2; s++) {
            if (pos->castle_rook[c][s] == sq) {
                drop_right(pos, c, s);
            }
        }
    }
}

void cr_position_do_move(cr_position *pos, cr_move m)
{
    int us = pos->side;
    int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
    int pc = pos->board[from];
    int ep_candidate = CR_SQ_NONE;

    if (pos->ep < 64) {
        pos->key ^= cr_zobrist_ep_[cr_file_of(pos->ep)];
        pos->ep = CR_SQ_NONE;
    }
    pos->halfmove++;

    if (kind == CR_MOVE_CASTLE) {
        int rook = pos->board[to];
        int kto = cr_castle_king_to(m, us), rto = cr_castle_rook_to(m, us);
        /* Remove both first: in Chess960 the squares may overlap. */
        remove_piece(pos, from);
        remove_piece(pos, to);
        put_piece(pos, pc, kto);
        put_piece(pos, rook, rto);
        drop_right(pos, us, 0);
        drop_right(pos, us, 1);
    } else {
        int capsq = kind == CR_MOVE_EN_PASSANT ? (us == CR_WHITE ? to - 8 : to + 8) : to;
        if (pos->board[capsq]) {
            remove_piece(pos, capsq);
            pos->halfmove = 0;
            touch_rights(pos, capsq);
        }
        remove_piece(pos, from);
        if (kind == CR_MOVE_PROMOTION) {
            put_piece(pos, cr_make_piece(us, cr_move_promo(m)), to);
        } else {
            put_piece(pos, pc, to);
        }
        if (cr_type_of(pc) == CR_PAWN) {
            pos->halfmove = 0;
            if ((from ^ to) == 16) {
                ep_candidate = (from + to) / 2;
            }
        } else if (cr_type_of(pc) == CR_KING) {
            drop_right(pos, us, 0);
            drop_right(pos, us, 1);
        } else {
            touch_rights(pos, from);
        }
    }
    pos->side = (uint8_t)(us ^ 1);
    pos->key ^= cr_zobrist_side_;
    if (us == CR_BLACK) {
        pos->fullmove++;
    }
    if (ep_candidate != CR_SQ_NONE) {
        cr_position_set_ep_(pos, ep_candidate);
    }
}

/* Legality of one move without generating the others: the move's shape for
 * its piece (and kind), then the safety of the king on the changed
 * occupancy. Accepts exactly the moves cr_generate_legal lists (tested
 * against it on random positions and move codes). */
bool cr_is_legal(const cr_position *pos, cr_move m)
{
    const int us = pos->side;
    const int from = cr_move_from(m), to = cr_move_to(m), kind = cr_move_kind(m);
    const cr_bb kbb = cr_pieces_(pos, us, CR_KING);
    /* The promotion field is zero in every move but a promotion. */
    if (!kbb || from == to || (kind != CR_MOVE_PROMOTION && ((m >> 12) & 3))) {
        return false;
    }
    const int pc = pos->board[from];
    if (!pc || cr_color_of(pc) != us) {
        return false;
    }
    const int ksq = cr_lsb_(kbb);
    const cr_bb theirs = pos->by_color[us ^ 1];
    if (kind == CR_MOVE_CASTLE) {
        int s = pos->castle_rook[us][CR_CASTLE_KING_SIDE] == to    ? CR_CASTLE_KING_SIDE
                : pos->castle_rook[us][CR_CASTLE_QUEEN_SIDE] == to ? CR_CASTLE_QUEEN_SIDE
                                                                    : -1;
        return from == ksq && s >= 0 &&
               !(cr_attackers_(pos, ksq, pos->occupied) & theirs) &&
               cr_castle_ok_(pos, ksq, to, s);
    }
    const int victim = pos->board[to];
    if (victim && (cr_color_of(victim) == us || cr_type_of(victim) == CR_KING)) {
        return false;
    }
    const int type = cr_type_of(pc);
    const cr_bb tob = CR_BB(to);
    cr_bb gone = 0;
    if (type == CR_PAWN) {
        const int dir = us == CR_WHITE ? 8 : -8;
        if ((cr_rank_of(to) == (us == CR_WHITE ? 7 : 0)) != (kind == CR_MOVE_PROMOTION)) {
            return false;
        }
        const bool attack = (cr_pawn_att_[us * 64 + from] & tob) != 0;
        if (kind == CR_MOVE_EN_PASSANT) {
            if (pos->ep >= 64 || to != pos->ep || !attack) {
                return false;
            }
            /* In double check only the king moves (no e.p. capture can
             * answer both checks; the generator never lists one). */
            if (cr_more_than_one_(cr_attackers_(pos, ksq, pos->occupied) & theirs)) {
                return false;
            }
            gone = CR_BB(to - dir);
        } else if (attack) {
            if (!victim) {
                return false;
            }
        } else if (to == from + dir) {
            if (victim) {
                return false;
            }
        } else if (to == from + 2 * dir && cr_rank_of(from) == (us == CR_WHITE ? 1 : 6)) {
            if (victim || pos->board[from + dir]) {
                return false;
            }
        } else {
            return false;
        }
    } else {
        if (kind != CR_MOVE_NORMAL) {
            return false;
        }
        const cr_bb occ = pos->occupied;
        cr_bb att;
        switch (type) {
        case CR_KNIGHT: att = cr_knight_att_[from]; break;
        case CR_BISHOP: att = cr_bishop_att_(from, occ); break;
        case CR_ROOK: att = cr_rook_att_(from, occ); break;
        case CR_QUEEN: att = cr_bishop_att_(from, occ) | cr_rook_att_(from, occ); break;
        default: att = cr_king_att_[from]; break;
        }
        if (!(att & tob)) {
            return false;
        }
        if (type == CR_KING) {
            return cr_king_safe_after_(pos, to, from, to, 0);
        }
    }
    return cr_king_safe_after_(pos, ksq, from, to, gone);
}

bool cr_position_is_dead(const cr_position *pos)
{
    cr_bb kings = pos->by_piece[CR_WK] | pos->by_piece[CR_BK];
    cr_bb others = pos->occupied & ~kings;
    if (!others) {
        return true; /* K v K */
    }
    cr_bb minors = pos->by_piece[CR_WN] | pos->by_piece[CR_BN] | pos->by_piece[CR_WB] |
                   pos->by_piece[CR_BB];
    if (others == minors && !cr_more_than_one_(others)) {
        return true; /* K + N or K + B v K */
    }
    cr_bb bishops = pos->by_piece[CR_WB] | pos->by_piece[CR_BB];
    if (others == bishops) {
        const cr_bb light = 0x55AA55AA55AA55AAULL;
        if (!(bishops & light) || !(bishops & ~light)) {
            return true; /* all bishops on one square colour */
        }
    }
    return false;
}

/* The rule chosen (FIDE 6.9, practical form): `color` cannot mate when it
 * has a bare king, or when it has king + one knight or king + one bishop
 * (nothing else) and the opponent has a bare king; also when the position
 * is dead. Any other material can, by some sequence, mate (e.g. K+N v K+P:
 * the pawn can block its own king in). */
bool cr_can_mate(const cr_position *pos, int color)
{
    if (color < 0 || color > 1) {
        return false;
    }
    if (cr_position_is_dead(pos)) {
        return false;
    }
    cr_bb own = pos->by_color[color] & ~cr_pieces_(pos, color, CR_KING);
    if (!own) {
        return false;
    }
    cr_bb opp = pos->by_color[color ^ 1] & ~cr_pieces_(pos, color ^ 1, CR_KING);
    cr_bb minors = cr_pieces_(pos, color, CR_KNIGHT) | cr_pieces_(pos, color, CR_BISHOP);
    if (own == minors && !cr_more_than_one_(own) && !opp) {
        return false;
    }
    return true;
}

cr_status cr_position_status(const cr_position *pos)
{
    if (!cr_has_legal_move_(pos)) {
        return cr_in_check(pos) ? CR_STATUS_CHECKMATE : CR_STATUS_STALEMATE;
    }
    return cr_position_is_dead(pos) ? CR_STATUS_DEAD : CR_STATUS_ONGOING;
}

int cr_move_to_uci(const cr_position *pos, cr_move m, char buf[6])
{
    int from = cr_move_from(m), to = cr_move_to(m);
    if (cr_move_kind(m) == CR_MOVE_CASTLE && !pos->chess960) {
        to = cr_castle_king_to(m, cr_rank_of(from) == 0 ? CR_WHITE : CR_BLACK);
    }
    cr_square_name(from, buf);
    cr_square_name(to, buf + 2);
    int n = 4;
    if (cr_move_kind(m) == CR_MOVE_PROMOTION) {
        buf[n++] = "nbrq"[cr_move_promo(m) - CR_KNIGHT];
    }
    buf[n] = '\0';
    return n;
}

cr_move cr_move_from_uci(const cr_position *pos, const char *text)
{
    if (!text) {
        return CR_MOVE_NONE;
    }
    size_t len = strlen(text);
    if (len != 4 && len != 5) {
        return CR_MOVE_NONE;
    }
    int from = cr_square_parse(text), to = cr_square_parse(text + 2);
    if (from == CR_SQ_NONE || to == CR_SQ_NONE) {
        return CR_MOVE_NONE;
    }
    int promo = CR_NO_TYPE;
    if (len == 5) {
        switch (text[4]) {
        case 'n': case 'N': promo = CR_KNIGHT; break;
        case 'b': case 'B': promo = CR_BISHOP; break;
        case 'r': case 'R': promo = CR_ROOK; break;
        case 'q': case 'Q': promo = CR_QUEEN; break;
        default: return CR_MOVE_NONE;
        }
    }
    cr_movelist list;
    int n = cr_generate_legal(pos, &list);
    cr_move castle_alt = CR_MOVE_NONE;
    for (int i = 0; i < n; i++) {
        cr_move m = list.moves[i];
        if (cr_move_from(m) != from || cr_move_promo(m) != promo) {
            continue;
        }
        if (cr_move_to(m) == to) {
            return m;
        }
        /* Standard chess also writes castling as the king's two-square step. */
        if (cr_move_kind(m) == CR_MOVE_CASTLE && !pos->chess960 &&
            cr_castle_king_to(m, pos->side) == to) {
            castle_alt = m;
        }
    }
    return castle_alt;
}

static uint64_t perft_rec(const cr_position *pos, int depth)
{
    if (depth <= 1) {
        return (uint64_t)cr_count_legal(pos);
    }
    cr_movelist list;
    int n = cr_generate_legal(pos, &list);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        cr_position next = *pos;
        cr_position_do_move(&next, list.moves[i]);
        total += perft_rec(&next, depth - 1);
    }
    return total;
}

uint64_t cr_perft(const cr_position *pos, int depth)
{
    if (depth <= 0) {
        return 1;
    }
    return perft_rec(pos, depth);
}

bool cr_position_ok(const cr_position *pos)
{
    if (pos->side > 1 || pos->fullmove < 1) {
        return false;
    }
    cr_position copy = *pos;
    for (int sq = 0; sq < 64; sq++) {
        int pc = pos->board[sq];
        if (pc >= CR_PIECE_NB || (pc && (cr_type_of(pc) == CR_NO_TYPE || cr_type_of(pc) == 7))) {
            return false;
        }
    }
    cr_position_rebuild_(&copy);
    if (memcmp(copy.by_piece, pos->by_piece, sizeof pos->by_piece) != 0 ||
        copy.by_color[0] != pos->by_color[0] || copy.by_color[1] != pos->by_color[1] ||
        copy.occupied != pos->occupied || copy.key != pos->key) {
        return false;
    }
    for (int c = 0; c < 2; c++) {
        if (cr_popcount_(cr_pieces_(pos, c, CR_KING)) != 1) {
            return false;
        }
    }
    if ((pos->by_piece[CR_WP] | pos->by_piece[CR_BP]) & (CR_RANK_1 | (CR_RANK_1 << 56))) {
        return false;
    }
    if (cr_square_attacked(pos, cr_king_sq_(pos, pos->side ^ 1), pos->side)) {
        return false;
    }
    for (int c = 0; c < 2; c++) {
        int ksq = cr_king_sq_(pos, c);
        int back = c == CR_WHITE ? 0 : 7;
        for (int s = 0; s < 2; s++) {
            int r = pos->castle_rook[c][s];
            if (r == CR_SQ_NONE) {
                continue;
            }
            if (r >= 64 || pos->board[r] != cr_make_piece(c, CR_ROOK) || cr_rank_of(r) != back ||
                cr_rank_of(ksq) != back ||
                (s == CR_CASTLE_KING_SIDE) != (cr_file_of(r) > cr_file_of(ksq))) {
                return false;
            }
        }
    }
    if (pos->ep != CR_SQ_NONE) {
        if (pos->ep >= 64) {
            return false;
        }
        /* ep must survive its own normalisation: a legal capture exists. */
        cr_position t = *pos;
        cr_position_set_ep_(&t, pos->ep);
        if (t.ep != pos->ep || t.key != pos->key) {
            return false;
        }
    }
    return true;
}

/* Chess960 start positions, Scharnagl numbering: the back rank of number n. */
static void back_rank_960(int n, int out[8])
{
    static const int knights[10][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 2},
                                       {1, 3}, {1, 4}, {2, 3}, {2, 4}, {3, 4}};
    for (int i = 0; i < 8; i++) {
        out[i] = CR_NO_TYPE;
    }
    out[(n % 4) * 2 + 1] = CR_BISHOP; /* light-squared: b, d, f, h */
    n /= 4;
    out[(n % 4) * 2] = CR_BISHOP; /* dark-squared: a, c, e, g */
    n /= 4;
    int q = n % 6;
    n /= 6;
    int empty = 0;
    for (int f = 0; f < 8; f++) {
        if (out[f] == CR_NO_TYPE && empty++ == q) {
            out[f] = CR_QUEEN;
            break;
        }
    }
    empty = 0;
    for (int f = 0; f < 8; f++) {
        if (out[f] == CR_NO_TYPE) {
            if (empty == knights[n][0] || empty == knights[n][1]) {
                out[f] = CR_KNIGHT;
            }
            empty++;
        }
    }
    static const int rkr[3] = {CR_ROOK, CR_KING, CR_ROOK};
    int k = 0;
    for (int f = 0; f < 8; f++) {
        if (out[f] == CR_NO_TYPE) {
            out[f] = rkr[k++];
        }
    }
}

int cr_chess960_index(const uint8_t board[CR_SQ_NB])
{
    for (int f = 0; f < 8; f++) {
        if (board[cr_square(f, 1)] != CR_WP || board[cr_square(f, 6)] != CR_BP) {
            return -1;
        }
        for (int r = 2; r < 6; r++) {
            if (board[cr_square(f, r)] != CR_NO_PIECE) {
                return -1;
            }
        }
    }
    for (int n = 0; n < 960; n++) {
        int rank[8];
        back_rank_960(n, rank);
        int f = 0;
        while (f < 8 && board[f] == cr_make_piece(CR_WHITE, rank[f]) &&
               board[56 + f] == cr_make_piece(CR_BLACK, rank[f])) {
            f++;
        }
        if (f == 8) {
            return n;
        }
    }
    return -1;
}

int cr_position_init_960(cr_position *pos, int n)
{
    if (!pos || n < 0 || n > 959) {
        return CR_EINVAL;
    }
    int rank[8];
    back_rank_960(n, rank);
    memset(pos, 0, sizeof *pos);
    int rooks = 0;
    for (int f = 0; f < 8; f++) {
        pos->board[f] = (uint8_t)cr_make_piece(CR_WHITE, rank[f]);
        pos->board[8 + f] = CR_WP;
        pos->board[48 + f] = CR_BP;
        pos->board[56 + f] = (uint8_t)cr_make_piece(CR_BLACK, rank[f]);
        if (rank[f] == CR_ROOK) {
            /* First rook found is left of the king: queen side. */
            int s = rooks++ == 0 ? CR_CASTLE_QUEEN_SIDE : CR_CASTLE_KING_SIDE;
            pos->castle_rook[CR_WHITE][s] = (uint8_t)f;
            pos->castle_rook[CR_BLACK][s] = (uint8_t)(56 + f);
        }
    }
    pos->side = CR_WHITE;
    pos->ep = CR_SQ_NONE;
    pos->chess960 = n != 518;
    pos->halfmove = 0;
    pos->fullmove = 1;
    cr_position_rebuild_(pos);
    return 0;
}

void cr_position_init_start(cr_position *pos)
{
    cr_position_init_960(pos, 518);
}
