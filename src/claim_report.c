/* The printable report of a quickplay-finish draw claim (FIDE Appendix D1):
 * one self-contained HTML page (inline CSS, no scripts, no external files)
 * that an arbiter prints and has signed, and the game's PGN.
 *
 * Everything that comes from outside (tags such as player names, notes,
 * SAN of illegal moves as the board showed them) is HTML-escaped. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cr/arbiter.h"
#include "cr/pgn.h"
#include "strbuf.h"

/* Output goes into the caller's buffer through a fixed cr_sb: snprintf
 * semantics, len counts everything and the buffer keeps what fits. */

/* HTML text or attribute value. */
static void o_esc(cr_sb *o, const char *s)
{
    if (!s) {
        return;
    }
    for (; *s; s++) {
        switch (*s) {
        case '&':
            cr_sb_str(o, "&amp;");
            break;
        case '<':
            cr_sb_str(o, "&lt;");
            break;
        case '>':
            cr_sb_str(o, "&gt;");
            break;
        case '"':
            cr_sb_str(o, "&quot;");
            break;
        case '\'':
            cr_sb_str(o, "&#39;");
            break;
        default:
            if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') {
                cr_sb_str(o, " "); /* control characters have no place in the page */
            } else {
                cr_sb_add(o, s, 1);
            }
        }
    }
}

static int finish(const cr_sb *o)
{
    return o->len > (size_t)INT32_MAX ? CR_ENOSPC : (int)o->len;
}

static const char *color_name(int c)
{
    return c == CR_WHITE ? "White" : "Black";
}

static void o_clock(cr_sb *o, int64_t ms)
{
    if (ms < 0) {
        cr_sb_str(o, "&ndash;");
        return;
    }
    int64_t s = ms / 1000;
    cr_sb_fmt(o, "%" PRId64 ":%02d:%02d", s / 3600, (int)(s / 60 % 60), (int)(s % 60));
}

static void o_wall(cr_sb *o, int64_t wall)
{
    if (wall < 0) {
        cr_sb_str(o, "&ndash;");
        return;
    }
    time_t secs = (time_t)(wall / 1000);
    struct tm tm;
    if (!gmtime_r(&secs, &tm)) {
        cr_sb_str(o, "&ndash;");
        return;
    }
    cr_sb_fmt(o, "%04d-%02d-%02d %02d:%02d:%02d UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
              tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static const char *tag_or(const cr_game *g, const char *name, const char *dflt)
{
    const char *v = cr_game_tag(g, name);
    return (v && *v) ? v : dflt;
}

/* Unicode chess symbols, indexed by piece (cr_make_piece). */
static const char *piece_glyph(int pc)
{
    static const char *const white[] = {"",       "\u2659", "\u2658", "\u2657",
                                        "\u2656", "\u2655", "\u2654"};
    static const char *const black[] = {"",       "\u265F", "\u265E", "\u265D",
                                        "\u265C", "\u265B", "\u265A"};
    int ty = cr_type_of(pc);
    if (pc == CR_NO_PIECE || ty < CR_PAWN || ty > CR_KING) {
        return "";
    }
    return cr_color_of(pc) == CR_WHITE ? white[ty] : black[ty];
}

static void o_board(cr_sb *o, const cr_position *pos)
{
    cr_sb_str(o, "<table class=\"board\" aria-label=\"final position\">\n");
    for (int r = 7; r >= 0; r--) {
        cr_sb_fmt(o, "<tr><th>%d</th>", r + 1);
        for (int f = 0; f < 8; f++) {
            int sq = cr_square(f, r);
            int pc = pos->board[sq];
            char name[3];
            cr_square_name(sq, name);
            cr_sb_fmt(o, "<td class=\"%s%s\" title=\"%s\">%s</td>", (f + r) % 2 ? "l" : "d",
                      pc && cr_color_of(pc) == CR_WHITE ? " w" : "", name, piece_glyph(pc));
        }
        cr_sb_str(o, "</tr>\n");
    }
    cr_sb_str(o, "<tr><th></th>");
    for (int f = 0; f < 8; f++) {
        cr_sb_fmt(o, "<th>%c</th>", 'a' + f);
    }
    cr_sb_str(o, "</tr>\n</table>\n");
}

static void o_material(cr_sb *o, const cr_material *mat)
{
    static const char letters[] = " PNBRQK";
    bool first = true;
    for (int ty = CR_KING; ty >= CR_PAWN; ty--) {
        if (mat->count[ty]) {
            cr_sb_fmt(o, "%s%d%c", first ? "" : ", ", mat->count[ty], letters[ty]);
            first = false;
        }
    }
    cr_sb_fmt(o, " (%d points)", mat->points);
}

static void o_ply_text(cr_sb *o, const cr_ply *p)
{
    o_esc(o, p->san);
    if (p->flags & CR_PLY_DRAW_OFFER) {
        cr_sb_str(o, " (=)");
    }
    if (p->flags & CR_PLY_ILLEGAL) {
        cr_sb_str(o, " <span class=\"ill\">(illegal)</span>");
    }
}

static void o_scoresheet(cr_sb *o, const cr_game *g)
{
    int n = cr_game_ply_count(g);
    cr_sb_str(o, "<table class=\"sheet\">\n<thead><tr><th>No.</th><th>White</th><th>Clock</th>"
                 "<th>Black</th><th>Clock</th></tr></thead>\n<tbody>\n");
    int i = 0;
    if (n == 0) {
        cr_sb_str(o, "<tr><td colspan=\"5\">no moves</td></tr>\n");
    }
    while (i < n) {
        const cr_position *before = cr_game_position_at(g, i);
        cr_sb_fmt(o, "<tr><td>%d</td>", before->fullmove);
        if (before->side == CR_BLACK) {
            cr_sb_str(o, "<td>&hellip;</td><td class=\"c\"></td>");
        } else {
            const cr_ply *p = cr_game_ply(g, i);
            cr_sb_str(o, "<td>");
            o_ply_text(o, p);
            cr_sb_str(o, "</td><td class=\"c\">");
            if (p->clock_ms >= 0) {
                o_clock(o, p->clock_ms);
            }
            cr_sb_str(o, "</td>");
            i++;
        }
        if (i < n && cr_game_position_at(g, i)->side == CR_BLACK) {
            const cr_ply *p = cr_game_ply(g, i);
            cr_sb_str(o, "<td>");
            o_ply_text(o, p);
            cr_sb_str(o, "</td><td class=\"c\">");
            if (p->clock_ms >= 0) {
                o_clock(o, p->clock_ms);
            }
            cr_sb_str(o, "</td>");
            i++;
        } else {
            cr_sb_str(o, "<td></td><td class=\"c\"></td>");
        }
        cr_sb_str(o, "</tr>\n");
    }
    cr_sb_str(o, "</tbody>\n</table>\n");
}

static void o_label(cr_sb *o, const cr_game *g, int ply)
{
    const cr_ply *p = cr_game_ply(g, ply);
    if (!p) {
        cr_sb_str(o, "&ndash;");
        return;
    }
    const cr_position *before = cr_game_position_at(g, ply);
    cr_sb_fmt(o, "%d%s ", before->fullmove, before->side == CR_WHITE ? "." : "&hellip;");
    o_esc(o, p->san);
}

static const char css[] =
    "body{font-family:Georgia,'Times New Roman',serif;color:#000;background:#fff;margin:1.5cm;"
    "font-size:11pt;line-height:1.35}\n"
    "h1{font-size:16pt;margin:0 0 .2em}h2{font-size:12.5pt;margin:1.2em 0 .4em;"
    "border-bottom:1px solid #000;page-break-after:avoid}\n"
    "table{border-collapse:collapse}\n"
    ".meta td,.meta th{padding:.1em .8em .1em 0;text-align:left;vertical-align:top}\n"
    ".board{border:2px solid #000;margin:.4em 0}\n"
    ".board td{width:1.45em;height:1.45em;text-align:center;vertical-align:middle;"
    "font-size:20pt;line-height:1;padding:0;font-family:'DejaVu Sans','Segoe UI Symbol',serif}\n"
    ".board td.l{background:#f0f0f0}.board td.d{background:#b8b8b8}\n"
    ".board th{font-size:9pt;font-weight:normal;padding:0 .3em;background:#fff}\n"
    ".sheet{font-size:10pt}.sheet td,.sheet th{border:1px solid #777;padding:.05em .5em}\n"
    ".sheet td.c,.recent td.c{font-family:'DejaVu Sans "
    "Mono',monospace;font-size:9pt;text-align:right}\n"
    ".recent td,.recent th{border:1px solid #777;padding:.05em .5em;font-size:10pt}\n"
    ".fen{font-family:'DejaVu Sans Mono',monospace;font-size:10pt}\n"
    ".ill{color:#a00}.decision{font-size:12pt;font-weight:bold}\n"
    "pre{white-space:pre-wrap;font-size:9pt;border:1px solid #aaa;padding:.5em}\n"
    ".sig{display:flex;gap:2em;margin-top:3em}.sig div{flex:1;border-top:1px solid #000;"
    "padding-top:.3em;font-size:10pt}\n"
    "@media print{body{margin:1cm}.sheet,.recent{page-break-inside:auto}"
    "tr{page-break-inside:avoid}.sig{page-break-inside:avoid}}\n";

/* The game: its tags and players. */
static void o_game(cr_sb *o, const cr_game *g, const char *white, const char *black)
{
    cr_sb_str(o, "<table class=\"meta\">\n");
    static const char *const tags[] = {"Event", "Site", "Date", "Round", "Board"};
    for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
        const char *v = cr_game_tag(g, tags[i]);
        if (v && *v) {
            cr_sb_fmt(o, "<tr><th>%s</th><td>", tags[i]);
            o_esc(o, v);
            cr_sb_str(o, "</td></tr>\n");
        }
    }
    cr_sb_str(o, "<tr><th>White</th><td>");
    o_esc(o, white);
    cr_sb_str(o, "</td></tr>\n<tr><th>Black</th><td>");
    o_esc(o, black);
    cr_sb_str(o, "</td></tr>\n</table>\n");
}

/* Who claimed, on what basis, when, with which clocks. */
static void o_claim(cr_sb *o, const cr_claim *c, const char *claimant_name)
{
    const cr_game *g = c->frozen;
    cr_sb_fmt(o, "<h2>Claim %d</h2>\n<table class=\"meta\">\n<tr><th>Claimant</th><td>%s (", c->id,
              color_name(c->claimant));
    o_esc(o, claimant_name);
    cr_sb_str(o, ")</td></tr>\n<tr><th>Basis</th><td>");
    if (c->basis == CR_CLAIM_CANNOT_WIN) {
        cr_sb_str(o, "D1 (a): the opponent cannot win by normal means");
    } else if (c->basis == CR_CLAIM_NO_EFFORT) {
        cr_sb_str(o, "D1 (b): the opponent has been making no effort to win by normal means");
    } else {
        cr_sb_str(o, c->basis == CR_CLAIM_THREEFOLD
                         ? "9.2: the same position for at least the third time"
                         : "9.3: the last 50 moves by each player without a capture or pawn move");
        cr_sb_str(o, "</td></tr>\n<tr><th>Position claimed</th><td>");
        if (c->move[0]) {
            cr_sb_str(o, "after the move written and declared: ");
            o_esc(o, c->move);
        } else {
            cr_sb_str(o, "on the board");
        }
        cr_sb_str(o, "</td></tr>\n<tr><th>Relay's check</th><td>");
        if (c->basis == CR_CLAIM_THREEFOLD) {
            cr_sb_fmt(o, "the position stands for the %d. time", c->claimed_repetitions);
        } else {
            cr_sb_fmt(o, "%d moves each without a capture or pawn move", c->claimed_halfmove / 2);
        }
        cr_sb_str(o, c->correct ? ": the claim is correct" : ": the claim is not correct");
    }
    cr_sb_str(o, "</td></tr>\n<tr><th>Claimed</th><td>");
    if (c->ply > 0) {
        cr_sb_str(o, "after ");
        o_label(o, g, c->ply - 1);
    } else {
        cr_sb_str(o, "before the first move");
    }
    cr_sb_fmt(o, "; %s to move; ", color_name(cr_game_position(g)->side));
    o_wall(o, c->wall);
    cr_sb_str(o, "</td></tr>\n<tr><th>Clocks</th><td>White ");
    o_clock(o, c->white_ms);
    cr_sb_str(o, ", Black ");
    o_clock(o, c->black_ms);
    cr_sb_str(o, "</td></tr>\n</table>\n");
}

/* The final position as a diagram and FEN. */
static void o_final_position(cr_sb *o, const cr_position *pos)
{
    cr_sb_str(o, "<h2>Final position</h2>\n");
    o_board(o, pos);
    char fen[CR_FEN_MAX];
    if (cr_position_to_fen(pos, fen, sizeof fen) < 0) {
        fen[0] = '\0';
    }
    cr_sb_str(o, "<p>FEN: <span class=\"fen\">");
    o_esc(o, fen);
    cr_sb_str(o, "</span></p>\n");
}

/* The evidence gathered when the claim was made. */
static void o_evidence(cr_sb *o, const cr_claim *c)
{
    const cr_game *g = c->frozen;
    cr_sb_str(o, "<h2>Evidence</h2>\n<table class=\"meta\">\n<tr><th>Material</th><td>White ");
    o_material(o, &c->material[CR_WHITE]);
    cr_sb_str(o, "<br>Black ");
    o_material(o, &c->material[CR_BLACK]);
    cr_sb_fmt(o, "</td></tr>\n<tr><th>Opponent's mating material</th><td>%s %s</td></tr>\n",
              color_name(c->claimant ^ 1),
              c->opponent_can_mate ? "could checkmate by some legal sequence"
                                   : "cannot checkmate by any legal sequence");
    cr_sb_fmt(o,
              "<tr><th>Repetitions</th><td>final position: %d time%s; most frequent position "
              "of the last moves: %d time%s</td></tr>\n",
              c->repetitions, c->repetitions == 1 ? "" : "s", c->max_repetitions,
              c->max_repetitions == 1 ? "" : "s");
    cr_sb_fmt(o,
              "<tr><th>Last %d moves of each side</th><td>%d capture%s, %d pawn move%s</td></tr>\n",
              c->evidence_moves, c->recent_captures, c->recent_captures == 1 ? "" : "s",
              c->recent_pawn_moves, c->recent_pawn_moves == 1 ? "" : "s");
    cr_sb_fmt(o, "<tr><th>Since the last capture or pawn move</th><td>%d pl%s (",
              c->plies_since_irreversible, c->plies_since_irreversible == 1 ? "y" : "ies");
    if (c->last_irreversible_ply >= 0) {
        cr_sb_str(o, "last: ");
        o_label(o, g, c->last_irreversible_ply);
    } else {
        cr_sb_str(o, "none in the game");
    }
    cr_sb_str(o, ")</td></tr>\n</table>\n");
    cr_sb_str(o, "<table class=\"recent\">\n<thead><tr><th>Move</th><th>White clock</th>"
                 "<th>Black clock</th><th></th></tr></thead>\n<tbody>\n");
    for (int i = 0; i < c->recent_count; i++) {
        const cr_claim_move *cm = &c->recent[i];
        cr_sb_str(o, "<tr><td>");
        o_label(o, g, cm->ply);
        cr_sb_str(o, "</td><td class=\"c\">");
        o_clock(o, cm->white_ms);
        cr_sb_str(o, "</td><td class=\"c\">");
        o_clock(o, cm->black_ms);
        cr_sb_fmt(o, "</td><td>%s%s%s</td></tr>\n", cm->capture ? "capture" : "",
                  cm->capture && cm->pawn_move ? ", " : "", cm->pawn_move ? "pawn move" : "");
    }
    cr_sb_str(o, "</tbody>\n</table>\n");
}

/* The arbiter's decision, note and time. */
static void o_decision(cr_sb *o, const cr_claim *c)
{
    cr_sb_str(o, "<h2>Decision</h2>\n<p class=\"decision\">");
    switch (c->decision) {
    case CR_DECISION_DRAW:
        cr_sb_str(o, "Claim upheld: the game is drawn (1/2-1/2).");
        break;
    case CR_DECISION_REJECTED:
        cr_sb_str(o, "Claim rejected: ");
        o_clock(o, c->added_ms);
        cr_sb_fmt(o, " added to %s's clock; the game continues.", color_name(c->claimant ^ 1));
        break;
    case CR_DECISION_POSTPONED:
        cr_sb_str(o, "Decision postponed; the game continues under observation.");
        break;
    default:
        cr_sb_str(o, "Pending: Draw &#9744; &nbsp; Rejected (time added to the opponent) &#9744; "
                     "&nbsp; Postponed &#9744;");
        break;
    }
    cr_sb_str(o, "</p>\n");
    if (c->note[0]) {
        cr_sb_str(o, "<p>Arbiter's note: ");
        o_esc(o, c->note);
        cr_sb_str(o, "</p>\n");
    }
    if (c->decision != CR_DECISION_NONE) {
        cr_sb_str(o, "<p>Decided: ");
        o_wall(o, c->decided_wall);
        cr_sb_str(o, "</p>\n");
    }
}

/* Incidents of the game so far (flags, illegal moves, offers...). */
static void o_incidents(const cr_monitor *m, cr_sb *o)
{
    int ninc = cr_monitor_incident_count(m);
    if (ninc > 0) {
        cr_sb_str(o, "<h2>Incident log</h2>\n<table class=\"recent\">\n<thead><tr><th>#</th>"
                     "<th>Kind</th><th>Ply</th><th>White</th><th>Black</th><th>Text</th></tr>"
                     "</thead>\n<tbody>\n");
        for (int i = 0; i < ninc; i++) {
            const cr_incident *inc = cr_monitor_incident(m, i);
            cr_sb_fmt(o, "<tr><td>%d</td><td>%s</td><td>%d</td><td class=\"c\">", inc->seq,
                      cr_incident_kind_name(inc->kind), inc->ply);
            o_clock(o, inc->white_ms);
            cr_sb_str(o, "</td><td class=\"c\">");
            o_clock(o, inc->black_ms);
            cr_sb_str(o, "</td><td>");
            o_esc(o, inc->text);
            cr_sb_str(o, "</td></tr>\n");
        }
        cr_sb_str(o, "</tbody>\n</table>\n");
    }
}

int cr_claim_report_html(const cr_monitor *m, const cr_claim *c, char *buf, size_t size)
{
    if (!c || !c->frozen || (!buf && size)) {
        return CR_EINVAL;
    }
    cr_sb o;
    cr_sb_init_fixed(&o, buf, size);
    if (size) {
        buf[0] = '\0';
    }
    const cr_game *g = c->frozen;
    const cr_position *pos = cr_game_position(g);
    const char *white = tag_or(g, "White", "?"), *black = tag_or(g, "Black", "?");
    const char *claimant_name = c->claimant == CR_WHITE ? white : black;
    const char *opponent_name = c->claimant == CR_WHITE ? black : white;

    cr_sb_str(&o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    cr_sb_fmt(&o, "Draw claim %d: ", c->id);
    o_esc(&o, white);
    cr_sb_str(&o, " &ndash; ");
    o_esc(&o, black);
    cr_sb_str(&o, "</title>\n<style>\n");
    cr_sb_str(&o, css);
    cr_sb_str(&o, "</style>\n</head>\n<body>\n");
    if (c->basis == CR_CLAIM_CANNOT_WIN || c->basis == CR_CLAIM_NO_EFFORT) {
        cr_sb_str(&o, "<h1>Draw claim in a quickplay finish</h1>\n<p>FIDE Laws of Chess, "
                      "Appendix D1 (Guidelines III): a player with less than two minutes on the "
                      "clock claims a draw.</p>\n");
    } else {
        cr_sb_str(&o, c->basis == CR_CLAIM_THREEFOLD
                          ? "<h1>Draw claim: threefold repetition</h1>\n<p>FIDE Laws of Chess, "
                            "Article 9.2.</p>\n"
                          : "<h1>Draw claim: 50 moves</h1>\n<p>FIDE Laws of Chess, Article "
                            "9.3.</p>\n");
    }

    o_game(&o, g, white, black);
    o_claim(&o, c, claimant_name);
    o_final_position(&o, pos);
    o_evidence(&o, c);
    /* Scoresheet. */
    cr_sb_str(&o, "<h2>Scoresheet</h2>\n");
    o_scoresheet(&o, g);

    o_decision(&o, c);
    o_incidents(m, &o);

    /* PGN. */
    char *pgn = cr_claim_report_pgn_new(m, c);
    if (pgn) {
        cr_sb_str(&o, "<h2>PGN</h2>\n<pre>");
        o_esc(&o, pgn);
        cr_sb_str(&o, "</pre>\n");
        free(pgn);
    }

    /* Signatures. */
    cr_sb_str(&o, "<div class=\"sig\">\n<div>Claimant: ");
    o_esc(&o, claimant_name);
    cr_sb_str(&o, "</div>\n<div>Opponent: ");
    o_esc(&o, opponent_name);
    cr_sb_str(&o, "</div>\n<div>Arbiter</div>\n</div>\n</body>\n</html>\n");
    return finish(&o);
}

int cr_claim_report_pgn(const cr_monitor *m, const cr_claim *c, char *buf, size_t size)
{
    (void)m;
    if (!c || !c->frozen || (!buf && size)) {
        return CR_EINVAL;
    }
    char *s = NULL;
    size_t n = 0;
    int rc = cr_pgn_write(c->frozen, NULL, &s, &n);
    if (rc) {
        return rc;
    }
    cr_sb o;
    cr_sb_init_fixed(&o, buf, size);
    if (size) {
        buf[0] = '\0';
    }
    cr_sb_add(&o, s, n);
    free(s);
    return finish(&o);
}

typedef int (*writer_fn)(const cr_monitor *, const cr_claim *, char *, size_t);

static char *write_new(writer_fn fn, const cr_monitor *m, const cr_claim *c)
{
    int n = fn(m, c, NULL, 0);
    if (n < 0) {
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        return NULL;
    }
    if (fn(m, c, s, (size_t)n + 1) != n) {
        free(s);
        return NULL;
    }
    return s;
}

char *cr_claim_report_html_new(const cr_monitor *m, const cr_claim *c)
{
    return write_new(cr_claim_report_html, m, c);
}

char *cr_claim_report_pgn_new(const cr_monitor *m, const cr_claim *c)
{
    return write_new(cr_claim_report_pgn, m, c);
}
