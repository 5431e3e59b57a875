/* relay/edge/edge_log and edge_msg: an edge's state log is sealed like the
 * relay's other logs. Messages come back as written (fields and order),
 * a restart puts them through the resequencer again, a torn tail is cut,
 * a changed record and a line that is no message are named by file and
 * line (never a crash), and a log from before seals still reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "edge/edge_log.h"
#include "edge/edge_seq.h"
#include "test_util.h"

typedef struct got {
    cr_edge_msg *m[32];
    int n;
} got;

static void collect(void *data, cr_edge_msg *m)
{
    got *g = data;
    assert_true(g->n < 32);
    g->m[g->n++] = m;
}

static void got_free(got *g)
{
    for (int i = 0; i < g->n; i++) {
        free(g->m[i]);
    }
    g->n = 0;
}

static cr_edge_msg *msg(uint64_t sseq, int64_t seq, const char *json)
{
    cr_edge_msg *m = cr_edge_msg_new(json, strlen(json));
    assert_non_null(m);
    m->sseq = sseq;
    m->seq = seq;
    m->delay_s = 0;
    snprintf(m->tournament, sizeof m->tournament, "open-2026");
    return m;
}

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/cr_edge_log_XXXXXX");
    if (!mkdtemp(f->dir)) {
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/edge-S.log", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    cr_test_rm_rf(f->dir);
    free(f);
    return 0;
}

static cr_edge_log *open_log(const fixture *f, got *g, cr_edge_log_stats *st)
{
    cr_error err;
    cr_error_clear(&err);
    cr_edge_log *l = cr_edge_log_open(f->dir, "S", collect, g, st, &err);
    if (!l) {
        fail_msg("open: %s", err.text);
    }
    assert_string_equal(cr_edge_log_path(l), f->path);
    return l;
}

/* Three messages: a move with its ply data, an eval, a plain event. */
static void write_three(const fixture *f)
{
    got g = {0};
    cr_edge_log_stats st;
    cr_edge_log *l = open_log(f, &g, &st);
    assert_false(st.found);
    assert_int_equal(g.n, 0);
    cr_edge_msg *a = msg(1, 1, "{\"type\":\"game\",\"seq\":1}");
    cr_edge_msg *b = msg(2, 1, "{\"type\":\"eval\",\"game\":1}");
    cr_edge_msg *c = msg(3, 2, "{\"type\":\"move\",\"seq\":2, \"san\":\"e4\"}");
    b->eval = true;
    c->has_ply = true;
    c->emt_ms = 1500;
    c->ply_ts = 1764427200123456;
    c->fits = 0;
    c->delay_s = 900;
    assert_int_equal(cr_edge_log_append(l, a), 0);
    assert_int_equal(cr_edge_log_append(l, b), 0);
    assert_int_equal(cr_edge_log_append(l, c), 0);
    free(a);
    free(b);
    free(c);
    cr_edge_log_free(l);
}

static void test_round_trip(void **state)
{
    fixture *f = *state;
    write_three(f);
    size_t len = 0;
    char *text = cr_test_read_file(f->path, &len);
    assert_non_null(text);
    /* one record and its seal per message */
    assert_non_null(strstr(text, "1 open-2026 1 0 - {\"type\":\"game\",\"seq\":1}\n#= "));
    assert_non_null(strstr(text, "2 open-2026 1 0 eval {"));
    assert_non_null(strstr(text, "3 open-2026 2 900 1500,1764427200123456,0 {"));
    free(text);
    got g = {0};
    cr_edge_log_stats st;
    cr_edge_log *l = open_log(f, &g, &st);
    assert_true(st.found);
    assert_false(st.torn || st.unsealed);
    assert_true(st.messages == 3 && st.unreadable == 0 && st.bad_seals == 0);
    assert_int_equal(g.n, 3);
    assert_true(g.m[0]->sseq == 1 && g.m[0]->seq == 1 && !g.m[0]->eval && !g.m[0]->has_ply);
    assert_string_equal(g.m[0]->data, "{\"type\":\"game\",\"seq\":1}");
    assert_string_equal(g.m[0]->tournament, "open-2026");
    assert_true(g.m[1]->eval && g.m[1]->seq == 1);
    assert_true(g.m[2]->has_ply && g.m[2]->emt_ms == 1500 && g.m[2]->ply_ts == 1764427200123456 &&
                g.m[2]->fits == 0 && g.m[2]->delay_s == 900);
    assert_string_equal(g.m[2]->data, "{\"type\":\"move\",\"seq\":2, \"san\":\"e4\"}");
    /* restored messages never say the stream is caught up */
    assert_true(g.m[2]->npending == 1);
    got_free(&g);
    cr_edge_log_free(l);
}

typedef struct order {
    int64_t seqs[32];
    int n;
} order;

static void note(void *data, const cr_edge_msg *m)
{
    order *o = data;
    o->seqs[o->n++] = m->eval ? -m->seq : m->seq;
}

typedef struct restore {
    cr_edge_seq *seq;
    int64_t now;
} restore;

static void to_seq(void *data, cr_edge_msg *m)
{
    restore *r = data;
    cr_edge_seq_take(r->seq, m, r->now);
}

/* The stream delivered 1, 3, an eval after 3, 1 again and 5; a restart
 * puts the log through the resequencer: 1 applied, 3, 5 and the eval
 * wait for 2 as before. */
static void test_restore_into_resequencer(void **state)
{
    fixture *f = *state;
    got g = {0};
    cr_edge_log_stats st;
    cr_edge_log *l = open_log(f, &g, &st);
    const int64_t seqs[] = {1, 3, -3, 1, 5};
    for (int i = 0; i < 5; i++) {
        cr_edge_msg *m = msg((uint64_t)i + 1, seqs[i] < 0 ? -seqs[i] : seqs[i], "{}");
        m->eval = seqs[i] < 0;
        assert_int_equal(cr_edge_log_append(l, m), 0);
        free(m);
    }
    cr_edge_log_free(l);
    order o = {{0}, 0};
    cr_edge_seq_config sc = {.event = note, .eval = note, .data = &o};
    restore r = {cr_edge_seq_new(&sc), 1};
    assert_non_null(r.seq);
    cr_error err;
    l = cr_edge_log_open(f->dir, "S", to_seq, &r, &st, &err);
    assert_non_null(l);
    assert_true(st.messages == 5);
    assert_int_equal(o.n, 1);
    assert_true(o.seqs[0] == 1);
    cr_edge_seq_stats ss;
    cr_edge_seq_get_stats(r.seq, &ss);
    assert_true(ss.duplicates == 1 && ss.pending == 2 && ss.evals == 1 && ss.done_seq == 1);
    /* then the stream brings 2 */
    cr_edge_msg *two = msg(6, 2, "{}");
    assert_int_equal(cr_edge_log_append(l, two), 0);
    cr_edge_seq_take(r.seq, two, 2);
    assert_int_equal(o.n, 4);
    assert_true(o.seqs[1] == 2 && o.seqs[2] == 3 && o.seqs[3] == -3);
    /* 4 never comes: after the wait, 5 */
    assert_true(cr_edge_seq_tick(r.seq, 3 + 10000000, 10000000) == 1);
    assert_int_equal(o.n, 5);
    assert_true(o.seqs[4] == 5);
    cr_edge_seq_free(r.seq);
    cr_edge_log_free(l);
}

static void append_raw(const char *path, const char *text)
{
    FILE *fp = fopen(path, "ab");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

static void test_torn_tail_cut(void **state)
{
    fixture *f = *state;
    write_three(f);
    size_t whole = 0;
    free(cr_test_read_file(f->path, &whole));
    append_raw(f->path, "4 open-2026 3 0 - {\"type\":\"ga");
    got g = {0};
    cr_edge_log_stats st;
    cr_edge_log *l = open_log(f, &g, &st);
    assert_true(st.torn);
    assert_true(st.messages == 3 && st.bad_seals == 0);
    size_t len = 0;
    free(cr_test_read_file(f->path, &len));
    assert_true(len == whole); /* cut off the file */
    cr_edge_msg *m = msg(4, 3, "{}");
    assert_int_equal(cr_edge_log_append(l, m), 0);
    free(m);
    cr_edge_log_free(l);
    got_free(&g);
    l = open_log(f, &g, &st);
    assert_false(st.torn);
    assert_true(st.messages == 4 && st.bad_seals == 0);
    got_free(&g);
    cr_edge_log_free(l);
}

static void test_tampered_record_named(void **state)
{
    fixture *f = *state;
    write_three(f);
    size_t len = 0;
    char *text = cr_test_read_file(f->path, &len);
    char *at = strstr(text, "\"game\":1");
    assert_non_null(at);
    at[7] = '2'; /* the eval's game, in the second record (line 3) */
    FILE *fp = fopen(f->path, "wb");
    fwrite(text, 1, len, fp);
    fclose(fp);
    free(text);
    got g = {0};
    cr_edge_log_stats st;
    cr_edge_log *l = open_log(f, &g, &st);
    assert_true(st.bad_seals == 1);
    char want[160];
    snprintf(want, sizeof want, "%s:3: ", f->path);
    if (strncmp(st.seal_problem, want, strlen(want)) != 0) {
        fail_msg("seal problem: '%s', expected it to start with '%s'", st.seal_problem, want);
    }
    assert_non_null(strstr(st.seal_problem, "does not match its seal"));
    /* handed over all the same, like the journal's other files */
    assert_int_equal(g.n, 3);
    assert_string_equal(g.m[1]->data, "{\"type\":\"eval\",\"game\":2}");
    got_free(&g);
    cr_edge_log_free(l);
}

/* A state log written before seals (plain lines, one unreadable): read,
 * the bad line named, sealed once; appends after it are sealed. */
static void test_unsealed_log_still_read(void **state)
{
    fixture *f = *state;
    append_raw(f->path, "1 open-2026 1 0 - {\"type\":\"game\",\"seq\":1}\n"
                        "not a message\n"
                        "2 open-2026 2 0 1200,1764427200000000,1 {\"type\":\"move\"}\n"
                        "3 open-2026 3 0 9,x {\"type\":\"move\"}\n");
    got g = {0};
    cr_edge_log_stats st;
    cr_edge_log *l = open_log(f, &g, &st);
    assert_true(st.found && st.unsealed);
    assert_true(st.messages == 2 && st.unreadable == 2);
    char want[160];
    snprintf(want, sizeof want, "%s:2: expected <stream seq>", f->path);
    if (strncmp(st.first_unreadable, want, strlen(want)) != 0) {
        fail_msg("unreadable: '%s', expected it to start with '%s'", st.first_unreadable, want);
    }
    assert_true(g.m[1]->has_ply && g.m[1]->emt_ms == 1200 && g.m[1]->sseq == 2);
    cr_edge_msg *m = msg(4, 3, "{}");
    assert_int_equal(cr_edge_log_append(l, m), 0);
    free(m);
    cr_edge_log_free(l);
    got_free(&g);
    l = open_log(f, &g, &st);
    assert_false(st.unsealed);
    assert_true(st.bad_seals == 0 && st.messages == 3 && st.unreadable == 2);
    assert_true(g.m[2]->sseq == 4);
    got_free(&g);
    cr_edge_log_free(l);
}

static void test_line_errors(void **state)
{
    (void)state;
    const char *bad[] = {"", "12", "1 t 2 0 -", "1 t 2 0 - ", "x t 2 0 - {}", "1 t 2 0 1,2 {}",
                         "1 t 2 0 1,2,3x {}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_error err;
        cr_error_clear(&err);
        cr_edge_msg *m = cr_edge_msg_parse(bad[i], strlen(bad[i]), &err);
        if (m) {
            fail_msg("'%s' parsed", bad[i]);
        }
        assert_int_equal(err.code, CR_EPROTO);
        assert_true(err.text[0] != '\0');
    }
}

static void test_folder_is_a_file(void **state)
{
    fixture *f = *state;
    char file[160];
    snprintf(file, sizeof file, "%s/plain", f->dir);
    append_raw(file, "x\n");
    got g = {0};
    cr_edge_log_stats st;
    cr_error err;
    cr_error_clear(&err);
    assert_null(cr_edge_log_open(file, "S", collect, &g, &st, &err));
    assert_non_null(strstr(err.text, file));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_restore_into_resequencer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_cut, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tampered_record_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unsealed_log_still_read, setup, teardown),
        cmocka_unit_test(test_line_errors),
        cmocka_unit_test_setup_teardown(test_folder_is_a_file, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
