/* Tests of relay/arbiter/arbiter_link.c, relay/arbiter/arbiter_cmd.c and
 * relay/net/arbiter_view.c: the arbiter monitoring driven by store events,
 * its queued store events applied after each call, and what the server
 * thread answers from the publications. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/sealed_file.h"
#include "arbiter/arbiter_link.h"
#include "net/arbiter_view.h"

enum { MAX_MSGS = 512 };

typedef struct harness {
    cr_store *store;
    cr_arbiter_link *link;
    cr_arbiter_view *view; /* the server thread's side */
    int64_t seq, t;
    char *msgs[MAX_MSGS];
    int nmsgs;
    char dir[64];
} harness;

/* What the loop does with an event: seq/ts, apply to the live store. */
static void h_store(harness *h, cr_store_event *ev)
{
    ev->seq = ++h->seq;
    ev->ts = h->t * 1000;
    cr_error err;
    int rc = cr_store_apply(h->store, ev, &err);
    if (rc) {
        fail_msg("store refused an event: %s", err.text);
    }
}

/* After every call into the link: the events it queued, applied (and not
 * fed back). Returns how many. */
static int h_drain(harness *h)
{
    int n = 0;
    cr_store_event *ev;
    while ((ev = cr_arbiter_link_take_event(h->link, NULL, 0)) != NULL) {
        h_store(h, ev);
        cr_store_event_free(ev);
        n++;
    }
    return n;
}

/* An event from the boards: applied, then the link told. */
static void h_emit(harness *h, cr_store_event *ev)
{
    h_store(h, ev);
    cr_arbiter_link_on_store_event(h->link, ev, h->t, h->t);
    cr_store_event_free(ev);
    h_drain(h);
}

static void h_tick(harness *h, int64_t t)
{
    h->t = t;
    cr_arbiter_link_tick(h->link, t, t);
    h_drain(h);
}

/* A claim message never names a report the server thread lacks. */
static void check_report_there(const harness *h, const char *msg)
{
    const char *r = strstr(msg, "\"report\":\"");
    if (!strstr(msg, "\"type\":\"claim\"") || !r) {
        return;
    }
    char uri[64];
    assert_int_equal(sscanf(r + 10, "%63[^\"]", uri), 1);
    int status;
    const char *ctype;
    cr_buf *b = cr_arbiter_view_http(h->view, uri, true, &status, &ctype);
    assert_int_equal(status, 200);
    cr_buf_unref(b);
}

/* What the server thread does with a publication. */
static void h_publish(void *data, cr_pub *p)
{
    harness *h = data;
    if (p->kind == CR_PUB_ARBITER && h->nmsgs < MAX_MSGS) {
        h->msgs[h->nmsgs++] = strdup(p->event->data);
        check_report_there(h, p->event->data);
    }
    cr_arbiter_view_apply(h->view, p);
    cr_pub_free(p);
}

static void h_clear(harness *h)
{
    for (int i = 0; i < h->nmsgs; i++) {
        free(h->msgs[i]);
    }
    h->nmsgs = 0;
}

/* Messages containing all of the given strings. */
static int h_count(const harness *h, const char *a, const char *b)
{
    int n = 0;
    for (int i = 0; i < h->nmsgs; i++) {
        n += strstr(h->msgs[i], a) && (!b || strstr(h->msgs[i], b));
    }
    return n;
}

/* A dashboard's end of cr_arbiter_view_join. */
static void h_collect(void *data, cr_buf *b)
{
    harness *h = data;
    if (b && h->nmsgs < MAX_MSGS) {
        h->msgs[h->nmsgs++] = strdup(b->data);
    }
    cr_buf_unref(b);
}

static const char *link_time_control = "5400"; /* the event's, for games without one */

static cr_arbiter_link *h_link(harness *h)
{
    cr_arbiter_link_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.store = h->store;
    cfg.state_dir = h->dir;
    cfg.time_control = link_time_control;
    cfg.publish = h_publish;
    cfg.data = h;
    cr_arbiter_link *l = cr_arbiter_link_new(&cfg);
    assert_non_null(l);
    return l;
}

static void h_init(harness *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->dir, sizeof h->dir, "/tmp/cr_arblink_XXXXXX");
    assert_non_null(mkdtemp(h->dir));
    h->store = cr_store_new();
    assert_non_null(h->store);
    h->view = cr_arbiter_view_new();
    assert_non_null(h->view);
    h->link = h_link(h);
    cr_error err;
    assert_int_equal(cr_arbiter_link_start(h->link, 0, 0, &err), 0);
}

static void h_free(harness *h)
{
    cr_arbiter_link_free(h->link);
    cr_arbiter_view_free(h->view);
    cr_store_free(h->store);
    h_clear(h);
    char path[128];
    snprintf(path, sizeof path, "%s/incidents.log", h->dir);
    unlink(path);
    rmdir(h->dir);
}

static void new_game(harness *h, int id, const char *board, const char *tc)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    assert_non_null(ev);
    ev->game = id;
    snprintf(ev->board, sizeof ev->board, "%s", board);
    snprintf(ev->round, sizeof ev->round, "1");
    ev->table = id;
    cr_store_event_add_tag(ev, "White", "Alpha, Ann");
    cr_store_event_add_tag(ev, "Black", "Beta, Bob");
    cr_store_event_add_tag(ev, "TimeControl", tc);
    h_emit(h, ev);
}

static void move(harness *h, int id, const char *uci)
{
    const cr_store_game *g = cr_store_find(h->store, id);
    assert_non_null(g);
    cr_game *scratch = cr_game_clone(g->game);
    assert_non_null(scratch);
    cr_move m = cr_move_from_uci(cr_game_position(scratch), uci);
    assert_int_equal(cr_game_push(scratch, m, CR_CLOCK_UNKNOWN, h->t, 0), 0);
    cr_store_event *ev = cr_store_event_new(CR_SEV_MOVE);
    ev->game = id;
    ev->ply = cr_game_ply_count(scratch) - 1;
    ev->move = *cr_game_ply(scratch, ev->ply);
    cr_game_free(scratch);
    h_emit(h, ev);
}

static void clock_reading(harness *h, int id, int32_t w, int32_t b, int running)
{
    cr_store_event *ev = cr_store_event_new(CR_SEV_CLOCK);
    ev->game = id;
    ev->white_ms = w;
    ev->black_ms = b;
    ev->running = running;
    h_emit(h, ev);
}

static int command(harness *h, const char *json, char *why, size_t why_size)
{
    cr_arbiter_cmd c;
    char err[200];
    int rc = cr_arbiter_cmd_parse(json, strlen(json), &c, err, sizeof err);
    if (rc) {
        fail_msg("parse %s: %s", json, err);
    }
    snprintf(c.who, sizeof c.who, "test");
    rc = cr_arbiter_link_command(h->link, &c, h->t, h->t, why, why_size);
    h_drain(h);
    return rc;
}

static char *http(harness *h, const char *uri, bool auth, int *status, const char **ctype)
{
    cr_buf *b = cr_arbiter_view_http(h->view, uri, auth, status, ctype);
    assert_non_null(b);
    char *s = strdup(b->data);
    cr_buf_unref(b);
    return s;
}

/* A quickplay finish: Black drops under two minutes, claims, the claim is
 * rejected (time to White), claims again, and it is upheld. */
static void quickplay(harness *h)
{
    new_game(h, 1, "B1", "180");
    h->t = 0;
    clock_reading(h, 1, 130000, 123000, CR_WHITE);
    h->t = 5000;
    move(h, 1, "e2e4");
    clock_reading(h, 1, 125000, 123000, CR_BLACK);
    h->t = 10000;
    move(h, 1, "e7e5");
    clock_reading(h, 1, 125000, 118000, CR_WHITE);
}

static void test_claim_workflow(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    quickplay(&h);
    assert_int_equal(h_count(&h, "\"type\":\"incident\"", "\"kind\":\"two-minutes\""), 1);
    assert_true(h_count(&h, "\"type\":\"arbiter-state\"", "\"claim_window\":true") >= 1);
    assert_true(h_count(&h, "\"type\":\"arbiter-state\"", "\"flag_check\":\"-\"") >= 1);

    /* White has more than two minutes: refused, with the reason. */
    char why[256] = "";
    h.t = 11000;
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"claim\",\"claimant\":\"w\",\"basis\":\"a\"}",
                             why, sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "two minutes"));
    assert_int_equal(h_count(&h, "\"type\":\"arbiter-error\"", "two minutes"), 1);

    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"claim\",\"claimant\":\"b\",\"basis\":\"a\"}",
                             why, sizeof why),
                     0);
    assert_int_equal(h_count(&h, "\"type\":\"claim\"", "\"decision\":\"pending\""), 1);
    assert_int_equal(h_count(&h, "\"type\":\"claim\"", "\"san\":\"e5\""), 1);
    /* The evidence names each piece by its own key (issue 14: the king was
     * dropped and every other key shifted by one). */
    assert_int_equal(h_count(&h, "\"type\":\"claim\"",
                             "\"white_material\":{\"p\":8,\"n\":2,\"b\":2,\"r\":2,\"q\":1,"
                             "\"k\":1,\"points\":39}"),
                     1);
    /* A second claim while one is pending is refused. */
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"claim\",\"claimant\":\"b\",\"basis\":\"b\"}",
                             why, sizeof why),
                     CR_EINVAL);

    h.t = 12000;
    assert_int_equal(
        command(&h, "{\"game\":1,\"action\":\"decide\",\"decision\":\"rejected\",\"added_ms\":60000}",
                why, sizeof why),
        0);
    assert_int_equal(h_count(&h, "\"type\":\"claim\"", "\"decision\":\"rejected\""), 1);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 1)->game), CR_RESULT_NONE);

    h.t = 13000;
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"claim\",\"claimant\":\"b\",\"basis\":\"b\"}",
                             why, sizeof why),
                     0);
    assert_int_equal(command(&h,
                             "{\"game\":1,\"action\":\"decide\",\"decision\":\"draw\",\"note\":\"no "
                             "winning attempts <script>\"}",
                             why, sizeof why),
                     0);
    /* The decision reached the store (viewers see the result). */
    assert_int_equal(cr_game_result(cr_store_find(h.store, 1)->game), CR_RESULT_DRAW);
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"decide\",\"decision\":\"draw\"}", why,
                             sizeof why),
                     CR_EINVAL);

    int status;
    const char *ctype;
    char *body = http(&h, "/arbiter/incidents.json", false, &status, &ctype);
    assert_int_equal(status, 401);
    free(body);
    body = http(&h, "/arbiter/incidents.json", true, &status, &ctype);
    assert_int_equal(status, 200);
    assert_string_equal(ctype, "application/json");
    assert_non_null(strstr(body, "\"kind\":\"two-minutes\""));
    assert_non_null(strstr(body, "\"kind\":\"claim\""));
    assert_non_null(strstr(body, "\"kind\":\"decision\""));
    assert_non_null(strstr(body, "\"kind\":\"result\""));
    assert_non_null(strstr(body, "\"board\":\"B1\""));
    assert_non_null(strstr(body, "\"white_ms\":"));
    free(body);

    body = http(&h, "/arbiter/claim/2.html", true, &status, &ctype);
    assert_int_equal(status, 200);
    assert_non_null(strstr(ctype, "text/html"));
    assert_non_null(strstr(body, "<html"));
    assert_null(strstr(body, "<script>")); /* the note is escaped */
    free(body);
    body = http(&h, "/arbiter/claim/1.pgn", true, &status, &ctype);
    assert_int_equal(status, 200);
    assert_non_null(strstr(body, "1. e4 "));
    assert_non_null(strstr(body, "e5"));
    free(body);
    body = http(&h, "/arbiter/claim/3.pgn", true, &status, &ctype);
    assert_int_equal(status, 404);
    free(body);
    body = http(&h, "/arbiter/claim/1.html", false, &status, &ctype);
    assert_int_equal(status, 401);
    free(body);
    body = http(&h, "/arbiter/claim/x1.html", true, &status, &ctype);
    assert_int_equal(status, 404);
    free(body);

    /* A dashboard joining now: the snapshot (after the last command) first. */
    h_clear(&h);
    assert_int_equal(cr_arbiter_view_join(h.view, h_collect, &h), 1);
    assert_non_null(strstr(h.msgs[0], "\"type\":\"arbiter\""));
    assert_non_null(strstr(h.msgs[0], "\"claims\":[{"));
    assert_non_null(strstr(h.msgs[0], "\"report\":\"/arbiter/claim/1.html\""));
    h_free(&h);
}

/* Incidents survive a restart (journal), and are not raised twice. */
static void test_restart(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    quickplay(&h);
    int before = cr_arbiter_link_incident_count(h.link);
    assert_true(before >= 1);
    cr_arbiter_link_free(h.link);
    h_clear(&h);

    h.link = h_link(&h);
    cr_error err;
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(cr_arbiter_link_incident_count(h.link), before);
    cr_arbiter_link_free(h.link);

    /* A crash left a torn last line: dropped and cut off, the rest restored. */
    char path[128];
    snprintf(path, sizeof path, "%s/incidents.log", h.dir);
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("1\t99\tflag\tcrit", f);
    fclose(f);
    h.link = h_link(&h);
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(cr_arbiter_link_incident_count(h.link), before);
    h.t = 15000;
    clock_reading(&h, 1, 125000, 113000, CR_WHITE);
    assert_int_equal(h_count(&h, "\"kind\":\"two-minutes\"", NULL), 0);
    int status;
    const char *ctype;
    char *body = http(&h, "/arbiter/incidents.json", true, &status, &ctype);
    assert_non_null(strstr(body, "two-minutes"));
    free(body);
    /* New incidents follow on lines of their own. */
    h.t = 16000;
    char why[200];
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"result\",\"result\":\"0-1\"}", why, sizeof why), 0);
    cr_arbiter_link_free(h.link);
    h.link = h_link(&h);
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(cr_arbiter_link_incident_count(h.link), before + 1);
    h_free(&h);
}

/* A Fischer game (15 min + 10 s) without a TimeControl: the control is
 * read off the presses. */
static void fischer(harness *h)
{
    new_game(h, 1, "F1", NULL);
    static const char *const moves[] = {"e2e4", "e7e5", "g1f3", "b8c6", "f1c4"};
    int32_t ms[2] = {900000, 900000};
    h->t = 1000;
    clock_reading(h, 1, ms[0], ms[1], CR_WHITE);
    for (int i = 0; i < 5; i++) {
        int mover = i % 2;
        h->t += 4000 + 1000 * i;
        ms[mover] += 10000 - (4000 + 1000 * i);
        move(h, 1, moves[i]);
        clock_reading(h, 1, ms[0], ms[1], mover ^ 1);
    }
}

/* Issue 24: a restart rebuilds the monitors from the journal's events
 * (fed to the link before it starts, silently), so the clock control
 * detected live, the clocks and the markers are what they were: the
 * arbiters' view is the same as the live link's. */
static void test_rebuild_keeps_monitor_state(void **state)
{
    (void)state;
    harness live, re;
    link_time_control = NULL; /* the control as the clock shows it */
    h_init(&live);
    cr_arbiter_link_free(live.link);
    live.link = h_link(&live);
    cr_error err;
    memset(&re, 0, sizeof re);
    snprintf(re.dir, sizeof re.dir, "/tmp/cr_arblink_XXXXXX");
    assert_non_null(mkdtemp(re.dir));
    re.store = cr_store_new();
    re.view = cr_arbiter_view_new();
    assert_true(re.store && re.view);
    re.link = h_link(&re);
    assert_int_equal(cr_arbiter_link_start(live.link, 0, 0, &err), 0);
    fischer(&live);
    fischer(&re); /* the rebuild: the link not started yet */
    assert_int_equal(re.nmsgs, 0); /* nothing published while rebuilding */
    assert_int_equal(cr_arbiter_link_start(re.link, re.t, re.t, &err), 0);
    h_tick(&live, live.t);
    h_tick(&re, re.t);
    int status;
    const char *ctype;
    char *a = http(&live, "/arbiter/incidents.json", true, &status, &ctype);
    char *b = http(&re, "/arbiter/incidents.json", true, &status, &ctype);
    assert_non_null(strstr(a, "\"clock_mode\":\"increment\",\"bonus_ms\":10000"));
    assert_string_equal(a, b);
    free(a);
    free(b);
    h_free(&live);
    h_free(&re);
    link_time_control = "5400";
}

/* Killed between a flag's fall and the tick that told the store: the
 * journal has the clock's 0:00 and no result. The rebuilt monitor ends the
 * game silently; the store hears of it at the first tick after start. */
static void test_rebuild_result_told(void **state)
{
    (void)state;
    harness h;
    memset(&h, 0, sizeof h);
    snprintf(h.dir, sizeof h.dir, "/tmp/cr_arblink_XXXXXX");
    assert_non_null(mkdtemp(h.dir));
    h.store = cr_store_new();
    h.view = cr_arbiter_view_new();
    assert_true(h.store && h.view);
    h.link = h_link(&h); /* not started: the rebuild */
    new_game(&h, 5, "B5", "60");
    h.t = 0;
    clock_reading(&h, 5, 3000, 60000, CR_WHITE);
    h.t = 3100;
    clock_reading(&h, 5, 0, 60000, CR_WHITE);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 5)->game), CR_RESULT_NONE);
    assert_int_equal(h.nmsgs, 0);
    cr_error err;
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    h_tick(&h, 3200);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 5)->game), CR_RESULT_BLACK);
    h_free(&h);
}

/* A rejected claim's added time is handed to the caller to journal, and a
 * rebuild that gets it again at its point gives the clock the same time. */
static void test_rejected_claim_adjust(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    quickplay(&h);
    char why[200];
    h.t = 12000;
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"claim\",\"claimant\":\"b\",\"basis\":\"a\"}",
                             why, sizeof why), 0);
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"decide\",\"decision\":\"rejected\",\"added_ms\":60000}",
                             why, sizeof why), 0);
    cr_arbiter_adjust a;
    assert_true(cr_arbiter_link_take_adjust(h.link, &a));
    assert_int_equal(a.game, 1);
    assert_int_equal(a.color, CR_WHITE);
    assert_int_equal(a.delta_ms, 60000);
    assert_int_equal(a.t, 12000);
    assert_string_equal(a.who, "test");
    assert_false(cr_arbiter_link_take_adjust(h.link, &a));
    /* A decision that gives no time: nothing to journal. */
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"claim\",\"claimant\":\"b\",\"basis\":\"b\"}",
                             why, sizeof why), 0);
    assert_int_equal(command(&h, "{\"game\":1,\"action\":\"decide\",\"decision\":\"postponed\"}", why,
                             sizeof why), 0);
    assert_false(cr_arbiter_link_take_adjust(h.link, &a));
    h_free(&h);
}

/* incidents.log is sealed like the journal: a changed byte is reported at
 * restart (log and a journal-not-sound alert naming file and line), the
 * incidents restored all the same; a log from before seals is sealed as it
 * stands and goes on. */
static void test_incidents_sealed(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    quickplay(&h);
    int before = cr_arbiter_link_incident_count(h.link);
    assert_true(before >= 1);
    cr_arbiter_link_free(h.link);
    h_clear(&h);
    char path[128];
    snprintf(path, sizeof path, "%s/incidents.log", h.dir);
    char *text;
    size_t len;
    assert_int_equal(cr_read_file(path, 1 << 20, &text, &len, NULL), 0);
    /* every line of its own record: line, seal, line, seal ... */
    assert_true(len > 3 && strncmp(strchr(text, '\n') + 1, "#= ", 3) == 0);
    /* the sound log: no alert */
    h.link = h_link(&h);
    cr_error err;
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(h_count(&h, "journal-not-sound", NULL), 0);
    cr_arbiter_link_free(h.link);
    h_clear(&h);

    /* one byte of the first line changed (its game's tab is a space now) */
    char *changed = malloc(len);
    assert_non_null(changed);
    memcpy(changed, text, len);
    *strchr(changed, '\t') = ' ';
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite(changed, 1, len, f);
    fclose(f);
    free(changed);
    h.link = h_link(&h);
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(h_count(&h, "journal-not-sound", "incidents.log:1: the record does not match"),
                     1);
    cr_arbiter_link_free(h.link);
    h_clear(&h);

    /* written before seals: the lines without their seals */
    f = fopen(path, "w");
    assert_non_null(f);
    for (const char *l = text; l < text + len;) {
        const char *nl = strchr(l, '\n');
        if (strncmp(l, "#= ", 3) != 0) {
            fwrite(l, 1, (size_t)(nl - l) + 1, f);
        }
        l = nl + 1;
    }
    fclose(f);
    h.link = h_link(&h);
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(cr_arbiter_link_incident_count(h.link), before);
    assert_int_equal(h_count(&h, "journal-not-sound", NULL), 0);
    h.t = 16000;
    char why[200];
    assert_int_equal(
        command(&h, "{\"game\":1,\"action\":\"result\",\"result\":\"0-1\"}", why, sizeof why), 0);
    cr_arbiter_link_free(h.link);
    h_clear(&h);
    cr_sealed_stats st;
    assert_int_equal(cr_sealed_read(path, false, NULL, NULL, NULL, &st, &err), 0);
    assert_false(st.unsealed);
    assert_int_equal(st.bad, 0);
    h.link = h_link(&h);
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(cr_arbiter_link_incident_count(h.link), before + 1);
    assert_int_equal(h_count(&h, "journal-not-sound", NULL), 0);
    free(text);
    h_free(&h);
}

/* Draw offer, take back, players: store events follow. */
static void test_actions(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    new_game(&h, 3, "B3", "5400");
    h.t = 1000;
    move(&h, 3, "d2d4");
    move(&h, 3, "d7d5");
    move(&h, 3, "c2c4");
    char why[200];
    assert_int_equal(command(&h, "{\"game\":3,\"action\":\"draw-offer\",\"ply\":1}", why, sizeof why),
                     0);
    const cr_game *g = cr_store_find(h.store, 3)->game;
    assert_int_equal(cr_game_ply_count(g), 3);
    assert_true(cr_game_ply(g, 1)->flags & CR_PLY_DRAW_OFFER);
    assert_int_equal(h_count(&h, "\"kind\":\"draw-offer\"", NULL), 1);

    assert_int_equal(
        command(&h, "{\"game\":3,\"action\":\"take-back\",\"plies\":2,\"reason\":\"knocked\"}", why,
                sizeof why),
        0);
    g = cr_store_find(h.store, 3)->game;
    assert_int_equal(cr_game_ply_count(g), 2);
    assert_int_equal(h_count(&h, "\"kind\":\"correction\"", NULL), 1);
    assert_int_equal(command(&h, "{\"game\":3,\"action\":\"take-back\",\"plies\":9}", why, sizeof why),
                     CR_EINVAL);

    /* The board goes on: a new ply reaches the monitor's copy too. */
    move(&h, 3, "g1f3");
    assert_int_equal(cr_game_ply_count(cr_store_find(h.store, 3)->game), 3);

    assert_int_equal(
        command(&h, "{\"game\":3,\"action\":\"players\",\"white\":\"Gamma, Gil\"}", why, sizeof why), 0);
    g = cr_store_find(h.store, 3)->game;
    assert_string_equal(cr_game_tag(g, "White"), "Gamma, Gil");
    assert_string_equal(cr_game_tag(g, "Black"), "Beta, Bob");

    assert_int_equal(
        command(&h, "{\"game\":3,\"action\":\"result\",\"result\":\"1-0\",\"reason\":\"resigned\"}",
                why, sizeof why),
        0);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 3)->game), CR_RESULT_WHITE);
    assert_int_equal(command(&h, "{\"game\":99,\"action\":\"result\",\"result\":\"1-0\"}", why,
                             sizeof why),
                     CR_EINVAL);
    assert_non_null(strstr(why, "unknown game"));
    h_free(&h);
}

/* A flag falls when the clock shows it: critical incident, result in the
 * store. Ticks alone, past the last reading, decide nothing. */
static void test_flag(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    new_game(&h, 5, "B5", "60");
    h.t = 0;
    clock_reading(&h, 5, 3000, 60000, CR_WHITE);
    h_clear(&h);
    for (int64_t t = 100; t <= 4000; t += 100) {
        h_tick(&h, t);
    }
    assert_int_equal(h_count(&h, "\"kind\":\"flag\"", NULL), 0);
    h.t = 4100;
    clock_reading(&h, 5, 0, 60000, CR_WHITE);
    h_tick(&h, 4200); /* the RESULT the link queued is applied after the call */
    assert_int_equal(h_count(&h, "\"kind\":\"flag\"", "\"urgency\":\"critical\""), 1);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 5)->game), CR_RESULT_BLACK);
    assert_true(h_count(&h, "\"type\":\"arbiter-state\"", "\"flagged\":\"w\"") >= 1);

    /* Board offline/online are incidents too. */
    cr_store_event *ev = cr_store_event_new(CR_SEV_STATUS);
    ev->game = 5;
    ev->online = false;
    h_emit(&h, ev);
    assert_int_equal(h_count(&h, "\"kind\":\"board-offline\"", NULL), 1);
    h_free(&h);
}

/* A dead position reached by a move: the result reaches the store at the
 * next tick, never from inside the store event's handling. */
static void test_dead_position(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    cr_store_event *ev = cr_store_event_new(CR_SEV_GAME);
    ev->game = 6;
    snprintf(ev->board, sizeof ev->board, "B6");
    snprintf(ev->round, sizeof ev->round, "2");
    ev->has_start = true;
    assert_int_equal(cr_position_from_fen(&ev->start, "k7/8/8/8/8/8/1r6/K1B5 w - - 0 50", NULL), 0);
    h_emit(&h, ev);
    h.t = 500;
    move(&h, 6, "a1b2");
    assert_int_equal(h_count(&h, "\"kind\":\"dead-position\"", NULL), 1);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 6)->game), CR_RESULT_NONE);
    h_tick(&h, 600);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 6)->game), CR_RESULT_DRAW);
    h_free(&h);
}

/* The link never applies its store events itself: an action's events wait
 * in the queue until the call has returned, and the caller applies them.
 * What they change is worked out from the store as it stood: a take-back
 * after a result retracts plies, which clears the store's result, so the
 * result the monitor keeps follows again. */
static void test_events_after_call(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    new_game(&h, 4, "B4", "5400");
    h.t = 1000;
    move(&h, 4, "e2e4");
    move(&h, 4, "e7e5");
    move(&h, 4, "g1f3");

    cr_arbiter_cmd c;
    char err[200];
    const char *res = "{\"game\":4,\"action\":\"result\",\"result\":\"1-0\"}";
    assert_int_equal(cr_arbiter_cmd_parse(res, strlen(res), &c, err, sizeof err), 0);
    int64_t seq = h.seq;
    assert_int_equal(cr_arbiter_link_command(h.link, &c, h.t, h.t, NULL, 0), 0);
    /* Returned: nothing applied yet. */
    assert_int_equal(h.seq, seq);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 4)->game), CR_RESULT_NONE);
    cr_store_event *ev = cr_arbiter_link_take_event(h.link, NULL, 0);
    assert_non_null(ev);
    assert_int_equal(ev->kind, CR_SEV_RESULT);
    assert_int_equal(ev->game, 4);
    assert_int_equal(ev->result, CR_RESULT_WHITE);
    h_store(&h, ev);
    cr_store_event_free(ev);
    assert_null(cr_arbiter_link_take_event(h.link, NULL, 0));
    assert_int_equal(cr_game_result(cr_store_find(h.store, 4)->game), CR_RESULT_WHITE);

    const char *back = "{\"game\":4,\"action\":\"take-back\",\"plies\":2}";
    assert_int_equal(cr_arbiter_cmd_parse(back, strlen(back), &c, err, sizeof err), 0);
    assert_int_equal(cr_arbiter_link_command(h.link, &c, h.t, h.t, NULL, 0), 0);
    assert_int_equal(cr_game_ply_count(cr_store_find(h.store, 4)->game), 3);
    ev = cr_arbiter_link_take_event(h.link, NULL, 0);
    assert_non_null(ev);
    assert_int_equal(ev->kind, CR_SEV_CORRECTION);
    assert_int_equal(ev->ply, 2);
    assert_int_equal(ev->retracted, 1);
    h_store(&h, ev);
    cr_store_event_free(ev);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 4)->game), CR_RESULT_NONE);
    ev = cr_arbiter_link_take_event(h.link, NULL, 0);
    assert_non_null(ev);
    assert_int_equal(ev->kind, CR_SEV_RESULT);
    assert_int_equal(ev->result, CR_RESULT_WHITE);
    h_store(&h, ev);
    cr_store_event_free(ev);
    assert_null(cr_arbiter_link_take_event(h.link, NULL, 0));
    const cr_game *g = cr_store_find(h.store, 4)->game;
    assert_int_equal(cr_game_ply_count(g), 2);
    assert_int_equal(cr_game_result(g), CR_RESULT_WHITE);

    /* The monitor's copy and the store agree: nothing more to bring over. */
    h_tick(&h, 2000);
    assert_int_equal(h.seq, seq + 3);
    h_free(&h);
}

/* A dashboard joining gets the latest snapshot and the messages published
 * after it, each exactly once. */
static void test_join(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    new_game(&h, 1, "B1", "180");
    h_tick(&h, 100); /* the new game in a snapshot */
    h_clear(&h);
    assert_int_equal(cr_arbiter_view_join(h.view, h_collect, &h), 1);
    long snap_aseq = strtol(strstr(h.msgs[0], "\"aseq\":") + 7, NULL, 10);
    assert_non_null(strstr(h.msgs[0], "\"board\":\"B1\""));

    h_clear(&h);
    h.t = 200;
    clock_reading(&h, 1, 130000, 119000, CR_BLACK); /* Black under two minutes */
    int published = h.nmsgs;
    assert_true(published >= 1);
    h_clear(&h);
    assert_int_equal(cr_arbiter_view_join(h.view, h_collect, &h), 1 + published);
    assert_int_equal(strtol(strstr(h.msgs[0], "\"aseq\":") + 7, NULL, 10), snap_aseq);
    for (int i = 1; i < h.nmsgs; i++) {
        assert_int_equal(strtol(strstr(h.msgs[i], "\"aseq\":") + 7, NULL, 10), snap_aseq + i);
    }
    /* The next tick's snapshot covers them. */
    h_tick(&h, 300);
    h_clear(&h);
    assert_int_equal(cr_arbiter_view_join(h.view, h_collect, &h), 1);
    assert_non_null(strstr(h.msgs[0], "\"two-minutes\""));
    h_free(&h);
}

/* An acknowledgement: journaled, told to every dashboard once, in the
 * snapshot and incidents.json, and back after a restart. */
static void test_ack(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    quickplay(&h);
    h_clear(&h);
    char why[200] = "";
    h.t = 20000;
    assert_int_equal(
        command(&h, "{\"game\":1,\"action\":\"ack\",\"alert\":\"1\"}", why, sizeof why), 0);
    assert_int_equal(h_count(&h, "\"type\":\"ack\"", "\"alert\":\"1\",\"who\":\"test\""), 1);
    /* A second arbiter acknowledging the same alert changes nothing. */
    assert_int_equal(
        command(&h, "{\"game\":1,\"action\":\"ack\",\"alert\":\"1\"}", why, sizeof why), 0);
    assert_int_equal(h_count(&h, "\"type\":\"ack\"", NULL), 1);
    assert_int_equal(
        command(&h, "{\"game\":1,\"action\":\"ack\",\"alert\":\"attention@2\"}", why, sizeof why),
        0);
    assert_int_equal(h_count(&h, "\"type\":\"ack\"", "attention@2"), 1);
    /* An unknown game is refused. */
    assert_int_equal(
        command(&h, "{\"game\":9,\"action\":\"ack\",\"alert\":\"1\"}", why, sizeof why), CR_EINVAL);
    h_clear(&h);
    assert_int_equal(cr_arbiter_view_join(h.view, h_collect, &h), 1);
    assert_non_null(strstr(
        h.msgs[0], "\"acks\":[{\"game\":1,\"alert\":\"1\",\"who\":\"test\",\"wall\":20000}"));

    cr_arbiter_link_free(h.link);
    h_clear(&h);
    h.link = h_link(&h);
    cr_error err;
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    assert_int_equal(cr_arbiter_view_join(h.view, h_collect, &h), 1);
    assert_non_null(
        strstr(h.msgs[0], "{\"game\":1,\"alert\":\"1\",\"who\":\"test\",\"wall\":20000}"));
    assert_non_null(strstr(h.msgs[0], "\"alert\":\"attention@2\""));
    int status;
    const char *ctype;
    char *body = http(&h, "/arbiter/incidents.json", true, &status, &ctype);
    assert_non_null(strstr(body, "\"acks\":[{"));
    free(body);
    h_free(&h);
}

/* A board whose picture the game cannot explain: the state says why and
 * which squares; back to normal, it says none. */
static void test_attention_squares(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    new_game(&h, 1, "B1", "180");
    h_clear(&h);
    cr_store_event *ev = cr_store_event_new(CR_SEV_STATUS);
    ev->game = 1;
    ev->online = true;
    ev->attention = true;
    ev->squares = (1ull << 28) | (1ull << 35); /* e4, d5 */
    snprintf(ev->reason, sizeof ev->reason, "position not reachable from the game");
    h_emit(&h, ev);
    assert_int_equal(h_count(&h, "\"type\":\"arbiter-state\"", "\"attention\":true"), 1);
    assert_int_equal(h_count(&h, "\"attention_squares\":[\"e4\",\"d5\"]",
                             "\"attention_reason\":\"position not reachable from the game\""),
                     1);
    /* The link restated (board back online): squares and reason stay. */
    ev = cr_store_event_new(CR_SEV_STATUS);
    ev->game = 1;
    ev->online = false;
    ev->attention = true;
    h_emit(&h, ev);
    h_tick(&h, 100);
    h_clear(&h);
    assert_int_equal(cr_arbiter_view_join(h.view, h_collect, &h), 1);
    assert_non_null(strstr(h.msgs[0], "\"attention_squares\":[\"e4\",\"d5\"]"));
    h_clear(&h);
    ev = cr_store_event_new(CR_SEV_STATUS);
    ev->game = 1;
    ev->online = true;
    ev->attention = false;
    h_emit(&h, ev);
    assert_int_equal(h_count(&h, "\"attention\":false", "\"attention_squares\":[]"), 1);
    h_free(&h);
}

static void test_cmd_parse(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "[]",
        "{\"action\":\"result\",\"result\":\"1-0\"}",
        "{\"game\":0,\"action\":\"result\",\"result\":\"1-0\"}",
        "{\"game\":1,\"action\":\"resign\"}",
        "{\"game\":1,\"action\":\"result\",\"result\":\"2-0\"}",
        "{\"game\":1,\"action\":\"claim\",\"claimant\":\"x\",\"basis\":\"a\"}",
        "{\"game\":1,\"action\":\"claim\",\"claimant\":\"w\",\"basis\":\"c\"}",
        "{\"game\":1,\"action\":\"decide\",\"decision\":\"maybe\"}",
        "{\"game\":1,\"action\":\"decide\",\"decision\":\"rejected\",\"added_ms\":-5}",
        "{\"game\":1,\"action\":\"take-back\"}",
        "{\"game\":1,\"action\":\"players\"}",
        "{\"game\":1,\"action\":\"draw-offer\",\"ply\":\"x\"}",
        "{\"game\":1,\"game\":2,\"action\":\"result\",\"result\":\"1-0\"}",
        "{\"game\":1,\"action\":\"claim\",\"claimant\":\"w\",\"basis\":\"a\",\"move\":\"Nf3\"}",
        "{\"game\":1,\"action\":\"confirm-flag\"}",
        "{\"game\":1,\"action\":\"confirm-flag\",\"color\":\"x\"}",
        "{\"game\":1,\"action\":\"replace-move\",\"ply\":2}",
        "{\"game\":1,\"action\":\"replace-move\",\"ply\":-1,\"move\":\"e4\"}",
        "{\"game\":1,\"action\":\"ack\"}",
        "{\"game\":1,\"action\":\"ack\",\"alert\":\"\"}",
        "{\"game\":1,\"action\":\"ack\",\"alert\":\"a\\tb\"}",
        "{\"game\":1,\"action\":\"ack\",\"alert\":3}",
        "{\"game\":1,\"action\":\"ack\",\"alert\":"
        "\"0123456789012345678901234567890123456789012345678\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_arbiter_cmd c;
        char err[200] = "";
        assert_int_equal(cr_arbiter_cmd_parse(bad[i], strlen(bad[i]), &c, err, sizeof err), CR_EINVAL);
        assert_true(err[0] != '\0');
    }
    cr_arbiter_cmd c;
    char err[200];
    const char *ok = "{\"op\":\"arbiter-action\",\"game\":7,\"action\":\"decide\",\"decision\":"
                     "\"postponed\",\"note\":\"later\"}";
    assert_int_equal(cr_arbiter_cmd_parse(ok, strlen(ok), &c, err, sizeof err), 0);
    assert_int_equal(c.game, 7);
    assert_int_equal(c.action, CR_ARB_DECIDE);
    assert_int_equal(c.decision, CR_DECISION_POSTPONED);
    assert_int_equal(c.added_ms, -1);
    assert_string_equal(c.text, "later");
    assert_string_equal(cr_arbiter_action_name(CR_ARB_TAKE_BACK), "take-back");
    assert_string_equal(cr_arbiter_action_name(CR_ARB_ACTION_NB), "?");
    ok = "{\"game\":7,\"action\":\"claim\",\"claimant\":\"b\",\"basis\":\"threefold\","
         "\"move\":\"Nf3\"}";
    assert_int_equal(cr_arbiter_cmd_parse(ok, strlen(ok), &c, err, sizeof err), 0);
    assert_int_equal(c.basis, CR_CLAIM_THREEFOLD);
    assert_int_equal(c.color, CR_BLACK);
    assert_string_equal(c.move, "Nf3");
    ok = "{\"game\":7,\"action\":\"confirm-flag\",\"color\":\"w\",\"reason\":\"seen\"}";
    assert_int_equal(cr_arbiter_cmd_parse(ok, strlen(ok), &c, err, sizeof err), 0);
    assert_int_equal(c.action, CR_ARB_CONFIRM_FLAG);
    assert_int_equal(c.color, CR_WHITE);
    ok = "{\"game\":7,\"action\":\"replace-move\",\"ply\":2,\"move\":\"g1f3\"}";
    assert_int_equal(cr_arbiter_cmd_parse(ok, strlen(ok), &c, err, sizeof err), 0);
    assert_int_equal(c.action, CR_ARB_REPLACE_MOVE);
    assert_int_equal(c.ply, 2);
    assert_string_equal(c.move, "g1f3");
}

/* replace-move: the store gets a CORRECTION from the ply and the plies that
 * stand; confirm-flag ends the game 6.9; a threefold claim is checked. */
static void test_new_actions(void **state)
{
    (void)state;
    harness h;
    h_init(&h);
    new_game(&h, 4, "B4", NULL);
    move(&h, 4, "e2e4");
    move(&h, 4, "e7e5");
    move(&h, 4, "g1f3");
    char why[200];
    assert_int_equal(command(&h, "{\"game\":4,\"action\":\"replace-move\",\"ply\":2,"
                                 "\"move\":\"Nc3\"}", why, sizeof why), 0);
    const cr_game *g = cr_store_find(h.store, 4)->game;
    assert_int_equal(cr_game_ply_count(g), 3);
    assert_string_equal(cr_game_ply(g, 2)->san, "Nc3");
    assert_int_equal(command(&h, "{\"game\":4,\"action\":\"replace-move\",\"ply\":1,"
                                 "\"move\":\"Ke2\"}", why, sizeof why), CR_EINVAL);
    /* Knights out and back twice: the start position stands a third time
     * after Black's Ng8, White to move claims it. */
    move(&h, 4, "g8f6");
    move(&h, 4, "c3b1");
    move(&h, 4, "f6g8");
    move(&h, 4, "b1c3");
    move(&h, 4, "g8f6");
    move(&h, 4, "c3b1");
    move(&h, 4, "f6g8");
    assert_int_equal(command(&h, "{\"game\":4,\"action\":\"claim\",\"claimant\":\"w\","
                                 "\"basis\":\"threefold\"}", why, sizeof why), 0);
    assert_true(h_count(&h, "\"basis\":\"threefold\"", "\"correct\":true") >= 1);
    /* A restart with the claim pending: it is back (report and all), and the
     * decision goes on it. */
    cr_error err;
    cr_arbiter_link_free(h.link);
    cr_arbiter_view_free(h.view); /* the server thread starts afresh too */
    h.view = cr_arbiter_view_new();
    h.link = h_link(&h);
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    h_clear(&h);
    int status;
    const char *ctype;
    char *body = http(&h, "/arbiter/claim/1.html", true, &status, &ctype);
    assert_int_equal(status, 200);
    free(body);
    assert_int_equal(command(&h, "{\"game\":4,\"action\":\"decide\",\"decision\":\"draw\"}",
                             why, sizeof why), 0);
    /* and after a second restart the decision is kept: nothing pending */
    cr_arbiter_link_free(h.link);
    cr_arbiter_view_free(h.view);
    h.view = cr_arbiter_view_new();
    h.link = h_link(&h);
    assert_int_equal(cr_arbiter_link_start(h.link, h.t, h.t, &err), 0);
    h_clear(&h);
    body = http(&h, "/arbiter/claim/1.html", true, &status, &ctype);
    assert_int_equal(status, 200);
    free(body);
    assert_int_equal(command(&h, "{\"game\":4,\"action\":\"decide\",\"decision\":\"draw\"}",
                             why, sizeof why), CR_EINVAL);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 4)->game), CR_RESULT_DRAW);
    /* a game over: no flag to confirm */
    assert_int_equal(command(&h, "{\"game\":4,\"action\":\"confirm-flag\",\"color\":\"w\"}",
                             why, sizeof why), CR_EINVAL);
    new_game(&h, 5, "B5", NULL);
    move(&h, 5, "e2e4");
    assert_int_equal(command(&h, "{\"game\":5,\"action\":\"confirm-flag\",\"color\":\"b\"}",
                             why, sizeof why), 0);
    assert_int_equal(cr_game_result(cr_store_find(h.store, 5)->game), CR_RESULT_WHITE);
    h_free(&h);
}

/* Mutated messages never crash the parser and either parse or say why. */
static void test_cmd_parse_mutations(void **state)
{
    (void)state;
    static const char *const seeds[] = {
        "{\"game\":7,\"action\":\"claim\",\"claimant\":\"w\",\"basis\":\"a\"}",
        "{\"game\":7,\"action\":\"decide\",\"decision\":\"rejected\",\"added_ms\":120000,\"note\":\"x\"}",
        "{\"game\":7,\"action\":\"players\",\"white\":\"A\",\"black\":\"B\"}",
        "{\"game\":7,\"action\":\"draw-offer\",\"ply\":3,\"offered\":false}",
    };
    uint64_t x = 0x9e3779b97f4a7c15u;
    char buf[256];
    for (int i = 0; i < 20000; i++) {
        const char *seed = seeds[i % 4];
        size_t n = strlen(seed);
        memcpy(buf, seed, n + 1);
        for (int k = 0; k < 1 + i % 4; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[x % n] = (char)(x >> 32);
        }
        cr_arbiter_cmd c;
        char err[200] = "";
        int rc = cr_arbiter_cmd_parse(buf, n, &c, err, sizeof err);
        assert_true(rc == 0 || (rc == CR_EINVAL && err[0]));
        if (rc == 0) {
            assert_true(c.game > 0 && (unsigned)c.action < CR_ARB_ACTION_NB);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_workflow),
        cmocka_unit_test(test_restart),
        cmocka_unit_test(test_rebuild_keeps_monitor_state),
        cmocka_unit_test(test_rejected_claim_adjust),
        cmocka_unit_test(test_rebuild_result_told),
        cmocka_unit_test(test_incidents_sealed),
        cmocka_unit_test(test_actions),
        cmocka_unit_test(test_flag),
        cmocka_unit_test(test_dead_position),
        cmocka_unit_test(test_cmd_parse),
        cmocka_unit_test(test_new_actions),
        cmocka_unit_test(test_cmd_parse_mutations),
        cmocka_unit_test(test_events_after_call),
        cmocka_unit_test(test_join),
        cmocka_unit_test(test_ack),
        cmocka_unit_test(test_attention_squares),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
