/* A board checked before the round (see cr/board_check.h). */
#include "cr/board_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cr/occupancy.h"
#include "strbuf.h"

#define LOW_BATTERY 20

struct cr_board_check {
    cr_board_check_config cfg;
    bool heard, online;
    bool has_pos;
    uint8_t pos[CR_SQ_NB];
    cr_bb seen_occupied, seen_empty;
    bool has_clock;
    int32_t white_ms, black_ms;
    int running;
    int battery;
};

cr_board_check *cr_board_check_new(const cr_board_check_config *cfg)
{
    cr_board_check *c = calloc(1, sizeof *c);
    if (!c) {
        return NULL;
    }
    if (cfg) {
        c->cfg = *cfg;
    }
    if (c->cfg.tolerance_ms <= 0) {
        c->cfg.tolerance_ms = 2000;
    }
    c->battery = -1;
    c->running = CR_CLOCK_STOPPED;
    return c;
}

void cr_board_check_free(cr_board_check *c)
{
    free(c);
}

void cr_board_check_feed(cr_board_check *c, const cr_feed_event *ev)
{
    if (!c || !ev) {
        return;
    }
    c->heard = true;
    switch (ev->kind) {
    case CR_FEED_DISCONNECT:
        c->online = false;
        return;
    case CR_FEED_POS:
        memcpy(c->pos, ev->u.squares, sizeof c->pos);
        c->has_pos = true;
        for (int sq = 0; sq < CR_SQ_NB; sq++) {
            if (ev->u.squares[sq] != CR_NO_PIECE) {
                c->seen_occupied |= (cr_bb)1 << sq;
            } else {
                c->seen_empty |= (cr_bb)1 << sq;
            }
        }
        break;
    case CR_FEED_CLOCK:
        c->has_clock = true;
        c->white_ms = ev->u.clock.white_ms;
        c->black_ms = ev->u.clock.black_ms;
        c->running = ev->u.clock.running;
        break;
    default:
        break;
    }
    c->online = true; /* anything but a disconnect: the link is up */
}

void cr_board_check_battery(cr_board_check *c, int percent)
{
    if (c) {
        c->battery = percent < -1 || percent > 100 ? -1 : percent;
    }
}

static void piece_name(int piece, char *buf, size_t size)
{
    static const char *const types[] = {"?", "pawn", "knight", "bishop", "rook", "queen", "king", "piece"};
    if (piece == CR_OCCUPIED) {
        snprintf(buf, size, "a piece");
        return;
    }
    snprintf(buf, size, "%s %s", cr_color_of(piece) == CR_WHITE ? "white" : "black",
             types[cr_type_of(piece)]);
}

/* Appends "; " and the item to b unless that leaves no room for "...". */
static void add_item(cr_sb *b, size_t size, bool *cut, const char *item)
{
    if (*cut) {
        return;
    }
    size_t need = (b->len ? 2 : 0) + strlen(item);
    if (b->len + need + 5 >= size) { /* room kept for "; ..." */
        cr_sb_str(b, b->len ? "; ..." : "...");
        *cut = true;
        return;
    }
    if (b->len) {
        cr_sb_str(b, "; ");
    }
    cr_sb_str(b, item);
}

/* Whether the board's piece matches the expected one ('?' matches any). */
static bool same_piece(int have, int want)
{
    return have == want || (have == CR_OCCUPIED && want != CR_NO_PIECE);
}

int cr_board_check_setup(const uint8_t squares[CR_SQ_NB], bool *rotated, char *buf, size_t size)
{
    uint8_t start[CR_SQ_NB];
    cr_placement_read("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", start, NULL);
    int diff[2] = {0, 0};
    for (int r = 0; r < 2; r++) {
        for (int sq = 0; sq < CR_SQ_NB; sq++) {
            diff[r] += !same_piece(squares[r ? 63 - sq : sq], start[sq]);
        }
    }
    int rot = diff[1] < diff[0];
    if (rotated) {
        *rotated = rot;
    }
    uint8_t have[CR_SQ_NB]; /* in the game's squares */
    for (int sq = 0; sq < CR_SQ_NB; sq++) {
        have[sq] = squares[rot ? 63 - sq : sq];
    }
    cr_sb b;
    cr_sb_init_fixed(&b, buf, size);
    bool cut = false;
    /* A square's expected piece found elsewhere (missing explained), its
     * piece come from elsewhere (extra explained). */
    bool found[CR_SQ_NB] = {false}, placed[CR_SQ_NB] = {false};
    char item[96], pn[24], sa[3], sb[3];
    for (int from = 0; from < CR_SQ_NB; from++) {
        if (start[from] == CR_NO_PIECE || same_piece(have[from], start[from])) {
            continue;
        }
        for (int to = 0; to < CR_SQ_NB; to++) {
            if (!placed[to] && have[to] == start[from] && !same_piece(have[to], start[to])) {
                piece_name(start[from], pn, sizeof pn);
                cr_square_name(to, sa);
                cr_square_name(from, sb);
                snprintf(item, sizeof item, "%s on %s, not %s", pn, sa, sb);
                add_item(&b, size, &cut, item);
                found[from] = placed[to] = true;
                break;
            }
        }
    }
    for (int sq = 0; sq < CR_SQ_NB; sq++) {
        if (same_piece(have[sq], start[sq])) {
            continue;
        }
        bool missing = start[sq] != CR_NO_PIECE && !found[sq];
        bool extra = have[sq] != CR_NO_PIECE && !placed[sq];
        char want[24];
        cr_square_name(sq, sa);
        piece_name(have[sq], pn, sizeof pn);
        piece_name(start[sq], want, sizeof want);
        if (missing && extra) {
            snprintf(item, sizeof item, "%s: %s, not %s", sa, pn, want);
        } else if (missing) {
            snprintf(item, sizeof item, have[sq] == CR_NO_PIECE ? "%s empty (%s)" : "%s: %s missing",
                     sa, want);
        } else if (extra) {
            snprintf(item, sizeof item, "%s: %s too many", sa, pn);
        } else {
            continue;
        }
        add_item(&b, size, &cut, item);
    }
    return diff[rot];
}

static void squares_list(cr_bb bb, char *buf, size_t size)
{
    cr_sb b;
    cr_sb_init_fixed(&b, buf, size);
    char name[3];
    for (int sq = 0; sq < CR_SQ_NB; sq++) {
        if (bb >> sq & 1) {
            cr_square_name(sq, name);
            cr_sb_fmt(&b, "%s%s", b.len ? " " : "", name);
        }
    }
}

static void clock_text(const cr_board_check *c, char *buf, size_t size)
{
    int32_t base = c->cfg.control.base_ms;
    snprintf(buf, size, "clock shows %d:%02d:%02d / %d:%02d:%02d, not %d:%02d:%02d",
             c->white_ms / 3600000, c->white_ms / 60000 % 60, c->white_ms / 1000 % 60,
             c->black_ms / 3600000, c->black_ms / 60000 % 60, c->black_ms / 1000 % 60,
             base / 3600000, base / 60000 % 60, base / 1000 % 60);
}

static bool near(int32_t a, int32_t b, int32_t tol)
{
    return (a > b ? a - b : b - a) <= tol;
}

void cr_board_check_report_get(const cr_board_check *c, cr_board_check_report *r)
{
    memset(r, 0, sizeof *r);
    r->battery = c->battery;
    r->running = c->running;
    cr_sb fix;
    cr_sb_init_fixed(&fix, r->fix, sizeof r->fix);
    bool cut = false;
    char item[CR_BOARD_CHECK_TEXT_MAX + 64];
    if (!c->heard || !c->online) {
        r->problems |= CR_BCHK_OFFLINE;
        add_item(&fix, sizeof r->fix, &cut, c->heard ? "disconnected" : "never heard from");
    }
    if (!c->has_pos) {
        r->problems |= CR_BCHK_NO_POSITION;
        add_item(&fix, sizeof r->fix, &cut, "no position seen");
    } else {
        r->misplaced = cr_board_check_setup(c->pos, &r->rotated, r->setup, sizeof r->setup);
        if (r->misplaced) {
            r->problems |= CR_BCHK_SETUP;
            snprintf(item, sizeof item, "set-up: %s", r->setup);
            add_item(&fix, sizeof r->fix, &cut, item);
        }
    }
    if (c->cfg.sensors) {
        r->dead = ~c->seen_occupied;
        r->stuck = ~c->seen_empty;
        char list[200];
        if (r->dead) {
            squares_list(r->dead, list, sizeof list);
            snprintf(item, sizeof item, "sensor never saw a piece (dead?): %s", list);
            add_item(&fix, sizeof r->fix, &cut, item);
        }
        if (r->stuck) {
            squares_list(r->stuck, list, sizeof list);
            snprintf(item, sizeof item, "sensor never saw the square empty (stuck?): %s", list);
            add_item(&fix, sizeof r->fix, &cut, item);
        }
        r->problems |= r->dead || r->stuck ? CR_BCHK_SENSORS : 0;
    }
    r->clock_seen = c->has_clock;
    r->white_ms = c->white_ms;
    r->black_ms = c->black_ms;
    int32_t base = c->cfg.control.base_ms, tol = c->cfg.tolerance_ms;
    if (!c->has_clock) {
        r->problems |= CR_BCHK_NO_CLOCK;
        add_item(&fix, sizeof r->fix, &cut, "no clock reading");
    } else {
        if (base > 0 && !(near(c->white_ms, base, tol) && near(c->black_ms, base, tol))) {
            r->problems |= CR_BCHK_CLOCK_TIME;
            clock_text(c, item, sizeof item);
            add_item(&fix, sizeof r->fix, &cut, item);
        }
        if (c->running != CR_CLOCK_STOPPED) {
            r->problems |= CR_BCHK_CLOCK_RUNNING;
            add_item(&fix, sizeof r->fix, &cut, "clock running");
        }
    }
    if (c->battery >= 0 && c->battery < LOW_BATTERY) {
        r->problems |= CR_BCHK_BATTERY;
        snprintf(item, sizeof item, "battery %d%%", c->battery);
        add_item(&fix, sizeof r->fix, &cut, item);
    }
}
