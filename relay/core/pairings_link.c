/* chessrelay relay: the pairings file as a source. */
#include "core/pairings_link.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fileio.h"
#include "util/grow.h"
#include "util/log.h"
#include "util/prom.h"

enum { FILE_MAX = 64 << 20, SIDE_FIELDS = 5 };

/* What a file looked like at a stat(); equal stamps: most likely the same
 * content (the content is compared anyway before anything is done). */
typedef struct stamp {
    bool exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
} stamp;

/* A game made from the pairings. */
typedef struct pgame {
    int round, table, id;
    char board[CR_BOARD_ID_MAX + 1];
} pgame;

struct cr_pairings_link {
    cr_pairings_link_config cfg;
    char *path;
    cr_pairings *set; /* in force, NULL before the first good read */
    char *text;       /* its file text */
    size_t len;
    int round; /* played, 0 none */
    pgame *games;
    int ngames;
    size_t capgames;
    stamp tried, seen; /* at the last read attempt; at the last poll */
    bool polled;
    cr_pairings_link_stats st;
};

static const char *const white_tags[SIDE_FIELDS] = {"White", "WhiteElo", "WhiteTitle", "WhiteFed",
                                                    "WhiteFideId"};
static const char *const black_tags[SIDE_FIELDS] = {"Black", "BlackElo", "BlackTitle", "BlackFed",
                                                    "BlackFideId"};

cr_pairings_link *cr_pairings_link_new(const cr_pairings_link_config *cfg)
{
    if (!cfg || !cfg->path || !cfg->path[0] || !cfg->store || !cfg->new_game || !cfg->emit) {
        return NULL;
    }
    cr_pairings_link *l = calloc(1, sizeof *l);
    if (!l) {
        return NULL;
    }
    l->cfg = *cfg;
    l->path = strdup(cfg->path);
    if (!l->path) {
        free(l);
        return NULL;
    }
    l->cfg.path = l->path;
    return l;
}

void cr_pairings_link_free(cr_pairings_link *l)
{
    if (!l) {
        return;
    }
    cr_pairings_free(l->set);
    free(l->text);
    free(l->games);
    free(l->path);
    free(l);
}

/*----- games -----*/

static const pgame *find_game(const cr_pairings_link *l, int round, int table)
{
    for (int i = 0; i < l->ngames; i++) {
        if (l->games[i].round == round && l->games[i].table == table) {
            return &l->games[i];
        }
    }
    return NULL;
}

static bool in_progress(const cr_store_game *g)
{
    return cr_game_ply_count(g->game) > 0 || cr_game_result(g->game) != CR_RESULT_NONE;
}

int cr_pairings_link_take(const cr_pairings_link *l, const char *board)
{
    if (!l || !board || !l->round) {
        return 0;
    }
    for (int i = l->ngames - 1; i >= 0; i--) {
        const pgame *pg = &l->games[i];
        if (pg->round != l->round || strcmp(pg->board, board) != 0) {
            continue;
        }
        const cr_store_game *g = cr_store_find(l->cfg.store, pg->id);
        if (g && !in_progress(g)) {
            return pg->id;
        }
    }
    return 0;
}

bool cr_pairings_link_owns(const cr_pairings_link *l, int game)
{
    for (int i = 0; l && i < l->ngames; i++) {
        if (l->games[i].id == game) {
            return true;
        }
    }
    return false;
}

int cr_pairings_link_round(const cr_pairings_link *l)
{
    return l ? l->round : 0;
}

const cr_pairings *cr_pairings_link_current(const cr_pairings_link *l)
{
    return l ? l->set : NULL;
}

bool cr_pairings_link_unpaired(const cr_pairings_link *l, int *round, const char **event,
                               const char **site)
{
    if (!l || !l->set) {
        return false;
    }
    *round = l->round > 0 ? l->round : cr_pairings_round_count(l->set) + 1; /* 0: all over */
    *event = cr_pairings_info(l->set, CR_PF_NAME);
    *site = cr_pairings_info(l->set, CR_PF_CITY);
    return true;
}

const char *cr_pairings_link_text(const cr_pairings_link *l, size_t *len)
{
    *len = l && l->set ? l->len : 0;
    return l && l->set ? l->text : NULL;
}

/* The board a table's game is on: the tournament file's serial for the
 * table (an entry of this round first), else the table number. */
static void board_of_table(const cr_pairings_link *l, int round, int table, char *out, size_t size)
{
    const cr_config *t = l->cfg.tournament;
    const char *any = NULL;
    char name[16];
    snprintf(name, sizeof name, "%d", round);
    for (int i = 0; t && i < t->board_count; i++) {
        const cr_config_board *e = &t->boards[i];
        if (e->table != table || !e->board[0]) {
            continue;
        }
        if (strcmp(e->round, name) == 0) {
            snprintf(out, size, "%s", e->board);
            return;
        }
        if (!any) {
            any = e->board;
        }
    }
    if (any) {
        snprintf(out, size, "%s", any);
    } else {
        snprintf(out, size, "%d", table);
    }
}

/* The values of a side's tags, in the order of white_tags/black_tags. */
static void side_values(const cr_pairing_player *p, char v[SIDE_FIELDS][CR_TAG_VALUE_MAX])
{
    snprintf(v[0], CR_TAG_VALUE_MAX, "%s", p->name);
    if (p->rating > 0) {
        snprintf(v[1], CR_TAG_VALUE_MAX, "%d", p->rating);
    } else {
        v[1][0] = '\0';
    }
    snprintf(v[2], CR_TAG_VALUE_MAX, "%s", p->title);
    snprintf(v[3], CR_TAG_VALUE_MAX, "%s", p->fed);
    if (p->fide_id > 0) {
        snprintf(v[4], CR_TAG_VALUE_MAX, "%" PRId64, p->fide_id);
    } else {
        v[4][0] = '\0';
    }
}

static void add_tag(cr_store_event *ev, const char *name, const char *value)
{
    if (value && value[0]) {
        cr_store_event_add_tag(ev, name, value);
    }
}

/* "2026/11/25" or "2026-11-25" as PGN writes dates ("2026.11.25"); "" for
 * anything else (free text is no PGN date). */
static void pgn_date(const char *s, char *out, size_t size)
{
    out[0] = '\0';
    if (strlen(s) != 10) {
        return;
    }
    for (int i = 0; i < 10; i++) {
        bool sep = i == 4 || i == 7;
        if (sep ? !strchr("/-.", s[i]) : (s[i] < '0' || s[i] > '9')) {
            return;
        }
    }
    snprintf(out, size, "%.4s.%.2s.%.2s", s, s + 5, s + 8);
}

static void create_game(cr_pairings_link *l, const cr_pairing *pr)
{
    const cr_config *t = l->cfg.tournament;
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    if (!ev) {
        cr_log(CR_LOG_ERROR, "pairings: out of memory");
        return;
    }
    ev->game = l->cfg.new_game(l->cfg.data);
    snprintf(ev->round, sizeof ev->round, "%d", pr->round);
    ev->table = pr->table;
    board_of_table(l, pr->round, pr->table, ev->board, sizeof ev->board);
    char date[16];
    pgn_date(cr_pairings_info(l->set, CR_PF_START), date, sizeof date);
    add_tag(ev, "Event", t && t->event[0] ? t->event : cr_pairings_info(l->set, CR_PF_NAME));
    add_tag(ev, "Site", t && t->site[0] ? t->site : cr_pairings_info(l->set, CR_PF_CITY));
    add_tag(ev, "Date", t && t->date[0] ? t->date : date);
    add_tag(ev, "Round", ev->round);
    char w[SIDE_FIELDS][CR_TAG_VALUE_MAX], k[SIDE_FIELDS][CR_TAG_VALUE_MAX];
    side_values(&pr->white, w);
    side_values(&pr->black, k);
    for (int i = 0; i < SIDE_FIELDS; i++) {
        add_tag(ev, white_tags[i], w[i]);
        add_tag(ev, black_tags[i], k[i]);
    }
    add_tag(ev, "TimeControl", cr_config_time_control(t, ev->round));
    add_tag(ev, "Board", ev->board);
    int id = ev->game;
    char board[CR_BOARD_ID_MAX + 1];
    snprintf(board, sizeof board, "%s", ev->board);
    l->cfg.emit(l->cfg.data, ev);
    if (!cr_store_find(l->cfg.store, id)) {
        return; /* refused by the store (logged by the loop) */
    }
    pgame *g = cr_grow(l->games, &l->capgames, (size_t)l->ngames + 1, sizeof *g, 32);
    if (!g) {
        cr_log(CR_LOG_ERROR, "pairings: out of memory");
        return;
    }
    l->games = g;
    pgame *pg = &l->games[l->ngames++];
    pg->round = pr->round;
    pg->table = pr->table;
    pg->id = id;
    snprintf(pg->board, sizeof pg->board, "%s", board);
    l->st.games++;
    /* No board has taken it yet: viewers see it offline. */
    cr_store_event *st = cr_store_event_new(CR_SEV_STATUS);
    if (st) {
        st->game = id;
        l->cfg.emit(l->cfg.data, st);
    }
    cr_log(CR_LOG_INFO, "pairings: round %d table %d (board %s): %s - %s, game %d", pr->round,
           pr->table, board, pr->white.name, pr->black.name, id);
    if (l->cfg.created) {
        l->cfg.created(l->cfg.data, id, board);
    }
}

/* A TAG event when the store's value differs ("" removes the tag). */
static void set_tag(cr_pairings_link *l, int id, const char *name, const char *value)
{
    const cr_store_game *g = cr_store_find(l->cfg.store, id);
    if (!g) {
        return;
    }
    const char *have = cr_game_tag(g->game, name);
    if (strcmp(have ? have : "", value) == 0) {
        return;
    }
    cr_store_event *ev = cr_store_event_new(CR_SEV_TAG);
    if (!ev) {
        return;
    }
    ev->game = id;
    snprintf(ev->tag.name, sizeof ev->tag.name, "%s", name);
    size_t n = strnlen(value, sizeof ev->tag.value - 1); /* values are shorter already */
    memcpy(ev->tag.value, value, n);
    ev->tag.value[n] = '\0';
    l->cfg.emit(l->cfg.data, ev);
    l->st.tags++;
}

/* One side of a game whose pairing changed. old_p NULL: not known (the
 * table came back); then the store's name tells whether the player is
 * another one. */
static void update_side(cr_pairings_link *l, const pgame *pg, bool white,
                        const cr_pairing_player *old_p, const cr_pairing_player *new_p,
                        bool other_player)
{
    const cr_store_game *g = cr_store_find(l->cfg.store, pg->id);
    if (!g) {
        return;
    }
    const char *const *names = white ? white_tags : black_tags;
    if (!old_p) {
        const char *have = cr_game_tag(g->game, names[0]);
        other_player = strcmp(have ? have : "", new_p->name) != 0;
    }
    if (other_player && in_progress(g)) {
        const char *have = cr_game_tag(g->game, names[0]);
        l->st.conflicts++;
        cr_log(CR_LOG_WARN,
               "pairings: round %d table %d: %s is now %s, but game %d has started: players kept "
               "(an arbiter can set the %s tag)",
               pg->round, pg->table, have ? have : "?", new_p->name, pg->id, names[0]);
        return;
    }
    char nv[SIDE_FIELDS][CR_TAG_VALUE_MAX], ov[SIDE_FIELDS][CR_TAG_VALUE_MAX];
    side_values(new_p, nv);
    if (old_p) {
        side_values(old_p, ov);
    }
    for (int i = 0; i < SIDE_FIELDS; i++) {
        /* Only what changed in the file: an arbiter's own correction of
         * another field stays. */
        if (!old_p || other_player || strcmp(ov[i], nv[i]) != 0) {
            set_tag(l, pg->id, names[i], nv[i]);
        }
    }
}

static void apply_change(cr_pairings_link *l, const cr_pairing_change *c)
{
    const pgame *pg = find_game(l, c->round, c->table);
    if (!pg) {
        return; /* no game at that table: made below if the round is played */
    }
    switch (c->kind) {
    case CR_PAIRING_REMOVED:
        l->st.removed++;
        cr_log(CR_LOG_WARN, "pairings: round %d table %d is no longer in %s: game %d kept",
               c->round, c->table, l->path, pg->id);
        return;
    case CR_PAIRING_ADDED:
        update_side(l, pg, true, NULL, &c->new_board->white, false);
        update_side(l, pg, false, NULL, &c->new_board->black, false);
        return;
    case CR_PAIRING_CHANGED: {
        unsigned w = c->what;
        if (c->old_table_of_pair && c->old_table_of_pair != c->table) {
            cr_log(CR_LOG_INFO, "pairings: round %d: the pair of table %d is now at table %d",
                   c->round, c->old_table_of_pair, c->table);
        }
        if (w & (CR_PCHG_WHITE | CR_PCHG_WHITE_INFO)) {
            update_side(l, pg, true, &c->old_board->white, &c->new_board->white,
                        (w & CR_PCHG_WHITE) != 0);
        }
        if (w & (CR_PCHG_BLACK | CR_PCHG_BLACK_INFO)) {
            update_side(l, pg, false, &c->old_board->black, &c->new_board->black,
                        (w & CR_PCHG_BLACK) != 0);
        }
        /* CR_PCHG_RESULT: results come from the boards and the arbiters. */
        return;
    }
    }
}

/* The round played when none is given: the last one with a table that has
 * no result yet. */
static int round_played(const cr_pairings *p)
{
    for (int r = cr_pairings_round_count(p); r >= 1; r--) {
        int n = 0;
        const cr_pairing *tables = cr_pairings_boards(p, r, &n);
        for (int i = 0; i < n; i++) {
            if (strcmp(tables[i].result, "*") == 0) {
                return r;
            }
        }
    }
    return 0;
}

/* Puts (nset, text, round) in force: the diff against the set in force
 * becomes TAG events, the round played gets its missing games. Takes nset
 * (NULL: the set in force stays) and text. */
static void commit(cr_pairings_link *l, cr_pairings *nset, char *text, size_t len, int round)
{
    cr_pairings *old = l->set;
    if (nset) {
        l->set = nset;
        free(l->text);
        l->text = text;
        l->len = len;
    } else {
        free(text);
    }
    if (old && nset) {
        cr_pairing_change *ch = NULL;
        int n = cr_pairings_diff(old, nset, &ch);
        if (n < 0) {
            cr_log(CR_LOG_ERROR, "pairings: %s", cr_strerror(n));
        }
        for (int i = 0; i < n; i++) {
            apply_change(l, &ch[i]);
        }
        cr_pairing_changes_free(ch);
    }
    if (round != l->round) {
        cr_log(CR_LOG_INFO, "pairings: round played: %d%s", round, round ? "" : " (none)");
    }
    l->round = round; /* before the games: `created` takes them for this round */
    int ntables = 0;
    const cr_pairing *tables = round ? cr_pairings_boards(l->set, round, &ntables) : NULL;
    if (round && ntables == 0) {
        cr_log(CR_LOG_WARN, "pairings: %s has no pairings in round %d", l->path, round);
    }
    for (int i = 0; i < ntables; i++) {
        if (!find_game(l, round, tables[i].table)) {
            create_game(l, &tables[i]);
        }
    }
    if (old != l->set) {
        cr_pairings_free(old);
    }
}

/*----- the journal line: "<round> <auto|trf|pgn> <text, escaped>" -----*/

static const char *format_name(cr_pairings_format f)
{
    return f == CR_PAIRINGS_TRF ? "trf" : f == CR_PAIRINGS_PGN ? "pgn" : "auto";
}

/* Backslash, CR, LF and NUL escaped, everything else as it is. New string. */
static char *journal_line(const cr_pairings_link *l, const char *text, size_t len, int round,
                          size_t *out_len)
{
    char head[48];
    int h = snprintf(head, sizeof head, "%d %s ", round, format_name(l->cfg.format));
    char *out = malloc((size_t)h + 2 * len + 1);
    if (!out) {
        return NULL;
    }
    memcpy(out, head, (size_t)h);
    size_t o = (size_t)h;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        const char *esc = c == '\\'   ? "\\\\"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\0' ? "\\0"
                                      : NULL;
        if (esc) {
            out[o++] = esc[0];
            out[o++] = esc[1];
        } else {
            out[o++] = c;
        }
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}

static int parse_error(cr_pairings_link *l, const cr_error *perr, cr_error *err)
{
    int code = perr->code ? perr->code : CR_EINVAL;
    if (perr->line > 0 && perr->column > 0) {
        return cr_error_set(err, code, perr->line, perr->column, "%s:%d:%d: %s", l->path,
                            perr->line, perr->column, perr->text);
    }
    if (perr->line > 0) {
        return cr_error_set(err, code, perr->line, 0, "%s:%d: %s", l->path, perr->line, perr->text);
    }
    return cr_error_set(err, code, 0, 0, "%s: %s", l->path, perr->text);
}

int cr_pairings_link_replay(cr_pairings_link *l, const char *line, size_t len, cr_error *err)
{
    cr_error_clear(err);
    const char *sp1 = memchr(line, ' ', len);
    const char *sp2 = sp1 ? memchr(sp1 + 1, ' ', len - (size_t)(sp1 + 1 - line)) : NULL;
    char num[12], fmt[8];
    if (!sp2 || sp1 - line >= (ptrdiff_t)sizeof num || sp2 - sp1 - 1 >= (ptrdiff_t)sizeof fmt) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "pairings journal line: cannot read its head");
    }
    snprintf(num, sizeof num, "%.*s", (int)(sp1 - line), line);
    snprintf(fmt, sizeof fmt, "%.*s", (int)(sp2 - sp1 - 1), sp1 + 1);
    char *end = NULL;
    long round = strtol(num, &end, 10);
    if (!num[0] || *end || round < 0 || round > 100000) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "pairings journal line: round '%s'", num);
    }
    size_t used = (size_t)(sp2 + 1 - line);
    cr_pairings_format f = strcmp(fmt, "trf") == 0   ? CR_PAIRINGS_TRF
                           : strcmp(fmt, "pgn") == 0 ? CR_PAIRINGS_PGN
                                                     : CR_PAIRINGS_AUTO;
    if (f == CR_PAIRINGS_AUTO && strcmp(fmt, "auto") != 0) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "pairings journal line: format '%s'", fmt);
    }
    char *text = malloc(len - used + 1);
    if (!text) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
    }
    size_t n = 0;
    for (size_t i = used; i < len; i++) {
        char c = line[i];
        if (c == '\\' && i + 1 < len) {
            char e = line[++i];
            c = e == 'n' ? '\n' : e == 'r' ? '\r' : e == '0' ? '\0' : e;
        }
        text[n++] = c;
    }
    text[n] = '\0';
    cr_error perr;
    cr_pairings *p = NULL;
    if (!(l->text && n == l->len && memcmp(text, l->text, n) == 0)) {
        p = cr_pairings_parse(text, n, f, &perr);
        if (!p) {
            free(text);
            return parse_error(l, &perr, err);
        }
    }
    commit(l, p, text, n, (int)round);
    return 0;
}

/*----- reading the file -----*/

static void take_stamp(const char *path, stamp *s)
{
    struct stat sb;
    memset(s, 0, sizeof *s);
    if (stat(path, &sb) == 0) {
        s->exists = true;
        s->dev = sb.st_dev;
        s->ino = sb.st_ino;
        s->size = sb.st_size;
        s->mtime = sb.st_mtim;
        s->ctime = sb.st_ctim;
    }
}

static bool same_stamp(const stamp *a, const stamp *b)
{
    if (a->exists != b->exists) {
        return false;
    }
    return !a->exists ||
           (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
            a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
            a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec);
}

static int failed(cr_pairings_link *l, int rc, cr_error *err)
{
    l->st.failed++;
    l->st.failing = true;
    l->st.last_error = *err;
    return rc;
}

int cr_pairings_link_import(cr_pairings_link *l, cr_error *err)
{
    cr_error_clear(err);
    take_stamp(l->path, &l->tried);
    char *text = NULL;
    size_t len = 0;
    int rc = cr_read_file(l->path, FILE_MAX, &text, &len, err);
    if (rc) {
        return failed(l, rc, err);
    }
    cr_pairings *p = NULL;
    const cr_pairings *set = l->set;
    if (!(l->text && len == l->len && memcmp(text, l->text, len) == 0)) {
        cr_error perr;
        p = cr_pairings_parse(text, len, l->cfg.format, &perr);
        if (!p) {
            free(text);
            return failed(l, parse_error(l, &perr, err), err);
        }
        set = p;
    }
    int round = l->cfg.round > 0 ? l->cfg.round : round_played(set);
    l->st.failing = false;
    cr_error_clear(&l->st.last_error);
    l->st.last_ok_us = cr_now_us();
    if (!p && round == l->round) {
        free(text);
        l->st.unchanged++;
        return 0;
    }
    if (l->cfg.journal) {
        size_t jlen = 0;
        char *line = journal_line(l, text, len, round, &jlen);
        if (!line) {
            cr_pairings_free(p);
            free(text);
            return failed(l, cr_error_set(err, CR_ENOMEM, 0, 0, "%s: out of memory", l->path), err);
        }
        l->cfg.journal(l->cfg.data, line, jlen);
        free(line);
    }
    l->st.applied++;
    cr_log(CR_LOG_INFO, "pairings: %s read (%s, %d players, %d rounds)", l->path,
           cr_pairings_source(set) == CR_PAIRINGS_TRF ? "TRF" : "PGN",
           cr_pairings_player_count(set), cr_pairings_round_count(set));
    commit(l, p, text, len, round);
    return 1;
}

int cr_pairings_link_poll(cr_pairings_link *l, cr_error *err)
{
    cr_error_clear(err);
    stamp now;
    take_stamp(l->path, &now);
    bool still = l->polled && same_stamp(&now, &l->seen);
    l->seen = now;
    l->polled = true;
    if (same_stamp(&now, &l->tried) || !still) {
        return 0;
    }
    return cr_pairings_link_import(l, err);
}

/*----- figures -----*/

void cr_pairings_link_stats_get(const cr_pairings_link *l, cr_pairings_link_stats *out)
{
    memset(out, 0, sizeof *out);
    if (l) {
        *out = l->st;
    }
}

void cr_pairings_link_metrics(const cr_pairings_link *l, FILE *out)
{
    const cr_pairings_link_stats *st = &l->st;
    fprintf(out,
            "# HELP chessrelay_pairings_imports_total Reads of the pairings file by outcome.\n"
            "# TYPE chessrelay_pairings_imports_total counter\n"
            "chessrelay_pairings_imports_total{result=\"applied\"} %" PRIu64 "\n"
            "chessrelay_pairings_imports_total{result=\"unchanged\"} %" PRIu64 "\n"
            "chessrelay_pairings_imports_total{result=\"error\"} %" PRIu64 "\n"
            "# HELP chessrelay_pairings_file_ok 0 while the pairings file cannot be read (the "
            "pairings read before stay in force).\n"
            "# TYPE chessrelay_pairings_file_ok gauge\nchessrelay_pairings_file_ok %d\n",
            st->applied, st->unchanged, st->failed, st->failing ? 0 : 1);
    if (st->failing) {
        fprintf(out,
                "# HELP chessrelay_pairings_error Why the pairings file cannot be read.\n"
                "# TYPE chessrelay_pairings_error gauge\n"
                "chessrelay_pairings_error{line=\"%d\",column=\"%d\",message=\"",
                st->last_error.line, st->last_error.column);
        cr_prom_label(out, st->last_error.text);
        fputs("\"} 1\n", out);
    }
    fprintf(
        out,
        "# HELP chessrelay_pairings_round The round whose pairings are played (0: none).\n"
        "# TYPE chessrelay_pairings_round gauge\nchessrelay_pairings_round %d\n"
        "# HELP chessrelay_pairings_games_total Games made from the pairings.\n"
        "# TYPE chessrelay_pairings_games_total counter\nchessrelay_pairings_games_total %" PRIu64
        "\n"
        "# HELP chessrelay_pairings_tag_updates_total Tags changed by a changed pairings file.\n"
        "# TYPE chessrelay_pairings_tag_updates_total counter\n"
        "chessrelay_pairings_tag_updates_total %" PRIu64 "\n"
        "# HELP chessrelay_pairings_conflicts_total Player changes not applied to a game in "
        "progress.\n"
        "# TYPE chessrelay_pairings_conflicts_total counter\n"
        "chessrelay_pairings_conflicts_total %" PRIu64 "\n"
        "# HELP chessrelay_pairings_tables_removed_total Tables gone from the file whose game "
        "stayed.\n"
        "# TYPE chessrelay_pairings_tables_removed_total counter\n"
        "chessrelay_pairings_tables_removed_total %" PRIu64 "\n"
        "# HELP chessrelay_pairings_last_read_timestamp_seconds The last good read of the file.\n"
        "# TYPE chessrelay_pairings_last_read_timestamp_seconds gauge\n"
        "chessrelay_pairings_last_read_timestamp_seconds %.3f\n",
        l->round, st->games, st->tags, st->conflicts, st->removed, (double)st->last_ok_us / 1e6);
}
