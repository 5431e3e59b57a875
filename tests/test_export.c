/* Export folder: layout, atomic replacement (no partial file, no temp file
 * left), change-only writes (inode and mtime kept), restart, errors, with
 * the relay's file work (relay/out/export_files.c); and the core's decisions
 * alone, with an in-memory io that records every call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <sys/select.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cr/export.h"
#include "out/export_files.h"
#include "test_util.h"

typedef struct fixture {
    char dir[64];
    char root[128];
} fixture;

static int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        return 0;
    }
    if (S_ISDIR(st.st_mode)) {
        chmod(path, 0700);
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
                    continue;
                }
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub);
            }
            closedir(d);
        }
        return rmdir(path);
    }
    return unlink(path);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) {
        return -1;
    }
    snprintf(f->dir, sizeof f->dir, "/tmp/cr_export_XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->root, sizeof f->root, "%s/live/open-a", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_tree(f->dir);
    free(f);
    return 0;
}

/* Names in dir that start with '.' (other than . and ..): leftover temps. */
static int hidden_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            n++;
        }
    }
    closedir(d);
    return n;
}

typedef struct calls {
    int count;
    char last[512];
    int round, table;
} calls;

static void on_written(const char *path, int round, int table, void *data)
{
    calls *c = data;
    c->count++;
    snprintf(c->last, sizeof c->last, "%s", path);
    c->round = round;
    c->table = table;
}

static const char game_a[] =
    "[Event \"Open A\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 *\n\n";
static const char game_b[] =
    "[Event \"Open A\"]\n[Round \"1\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 *\n\n";

static void test_layout_and_callback(void **state)
{
    fixture *f = *state;
    cr_exporter *ex = cr_exporter_new(f->root, cr_export_files_io());
    assert_non_null(ex);
    calls c = {0};
    cr_exporter_set_callback(ex, on_written, &c);
    cr_error err;
    assert_int_equal(cr_exporter_write_game(ex, 1, 3, game_a, &err), 0);
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/round-1/game-3.pgn", f->root);
    cr_test_assert_file(path, game_a);
    assert_int_equal(c.count, 1);
    assert_string_equal(c.last, path);
    assert_int_equal(c.round, 1);
    assert_int_equal(c.table, 3);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* readable by a watcher running as another user */

    assert_int_equal(cr_exporter_write_round(ex, 1, game_a, &err), 0);
    snprintf(path, sizeof path, "%s/round-1/games.pgn", f->root);
    cr_test_assert_file(path, game_a);
    assert_int_equal(c.table, 0);

    char buf[512];
    assert_int_equal(cr_exporter_path(ex, 12, 40, buf, sizeof buf), (int)strlen(f->root) + 21);
    snprintf(path, sizeof path, "%s/round-12/game-40.pgn", f->root);
    assert_string_equal(buf, path);
    assert_int_equal(cr_exporter_path(ex, 12, 40, buf, 10), CR_ENOSPC);
    assert_int_equal(cr_exporter_path(ex, 0, 1, buf, sizeof buf), CR_EINVAL);

    snprintf(dir, sizeof dir, "%s/round-1", f->root);
    assert_int_equal(hidden_files(dir), 0);
    assert_int_equal(cr_exporter_files_written(ex), 2);
    cr_exporter_free(ex);

    /* A trailing slash names the same folder. */
    snprintf(buf, sizeof buf, "%s/", f->root);
    ex = cr_exporter_new(buf, cr_export_files_io());
    assert_int_equal(cr_exporter_path(ex, 1, 3, buf, sizeof buf), (int)strlen(f->root) + 19);
    cr_exporter_free(ex);
}

/* The LiveChess layout's JSON files: index.json per round beside the PGN,
 * tournament.json at the root; written when changed, never handed to the
 * callback (hosts take PGN). */
static void test_livechess_json_files(void **state)
{
    fixture *f = *state;
    cr_exporter *ex = cr_exporter_new(f->root, cr_export_files_io());
    assert_non_null(ex);
    calls c = {0};
    cr_exporter_set_callback(ex, on_written, &c);
    cr_error err;
    const char *index = "{\"pairings\": []}";
    assert_int_equal(cr_exporter_write_index(ex, 2, index, &err), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/round-2/index.json", f->root);
    cr_test_assert_file(path, index);
    assert_int_equal(cr_exporter_write_tournament(ex, "{\"rounds\": []}", &err), 0);
    snprintf(path, sizeof path, "%s/tournament.json", f->root);
    cr_test_assert_file(path, "{\"rounds\": []}");
    assert_int_equal(c.count, 0);
    assert_int_equal(cr_exporter_files_written(ex), 2);
    /* unchanged: not rewritten; the game files of the same round are apart */
    assert_int_equal(cr_exporter_write_index(ex, 2, index, &err), 0);
    assert_int_equal(cr_exporter_write_tournament(ex, "{\"rounds\": []}", &err), 0);
    assert_int_equal(cr_exporter_files_unchanged(ex), 2);
    assert_int_equal(cr_exporter_write_round(ex, 2, index, &err), 0);
    assert_int_equal(cr_exporter_files_written(ex), 3);
    assert_int_equal(c.count, 1);
    assert_int_equal(cr_exporter_write_tournament(ex, "{}", &err), 0);
    cr_test_assert_file(path, "{}");
    assert_int_equal(cr_exporter_write_index(ex, 0, index, &err), CR_EINVAL);
    assert_int_equal(cr_exporter_write_index(ex, 1, NULL, &err), CR_EINVAL);
    cr_exporter_free(ex);
}

static void test_unchanged_not_rewritten(void **state)
{
    fixture *f = *state;
    cr_exporter *ex = cr_exporter_new(f->root, cr_export_files_io());
    calls c = {0};
    cr_exporter_set_callback(ex, on_written, &c);
    cr_error err;
    char path[512];
    snprintf(path, sizeof path, "%s/round-2/game-1.pgn", f->root);
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_a, &err), 0);
    struct stat before, after;
    assert_int_equal(stat(path, &before), 0);
    usleep(20000); /* a rewrite would show in mtime (ns) and the inode */
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_a, &err), 0);
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino);
    assert_int_equal(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
    assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
    assert_int_equal(c.count, 1);
    assert_int_equal(cr_exporter_files_unchanged(ex), 1);

    /* Changed content: replaced whole (a new inode through the rename). */
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_b, &err), 0);
    assert_int_equal(stat(path, &after), 0);
    assert_int_not_equal(before.st_ino, after.st_ino);
    cr_test_assert_file(path, game_b);
    assert_int_equal(c.count, 2);
    /* Back to the first text: that is a change too. */
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_a, &err), 0);
    cr_test_assert_file(path, game_a);
    assert_int_equal(cr_exporter_files_written(ex), 3);

    /* Removed, then the same text again: written anew. */
    assert_int_equal(cr_exporter_remove(ex, 2, 1, &err), 0);
    assert_int_equal(access(path, F_OK), -1);
    assert_int_equal(cr_exporter_remove(ex, 2, 1, &err), 0); /* already gone */
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_a, &err), 0);
    cr_test_assert_file(path, game_a);
    assert_int_equal(cr_exporter_files_written(ex), 4);
    assert_int_equal(cr_exporter_remove(ex, 0, 1, &err), CR_EINVAL);
    assert_int_equal(cr_exporter_remove(ex, 2, -1, &err), CR_EINVAL);
    cr_exporter_free(ex);

    /* A restarted relay compares with the disk: nothing rewritten. */
    assert_int_equal(stat(path, &before), 0);
    ex = cr_exporter_new(f->root, cr_export_files_io());
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_a, &err), 0);
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_ino, after.st_ino);
    assert_int_equal(cr_exporter_files_written(ex), 0);
    assert_int_equal(cr_exporter_files_unchanged(ex), 1);
    /* After forget, someone else's edit on disk is seen again. */
    FILE *fp = fopen(path, "w");
    fputs("edited", fp);
    fclose(fp);
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_a, &err), 0);
    cr_test_assert_file(path, "edited");
    cr_exporter_forget(ex);
    assert_int_equal(cr_exporter_write_game(ex, 2, 1, game_a, &err), 0);
    cr_test_assert_file(path, game_a);
    cr_exporter_free(ex);
}

static void test_many_files(void **state)
{
    /* Enough files to grow the hash table a few times. */
    fixture *f = *state;
    cr_exporter *ex = cr_exporter_new(f->root, cr_export_files_io());
    cr_error err;
    char text[64];
    for (int t = 1; t <= 150; t++) {
        snprintf(text, sizeof text, "[Board \"%d\"]\n\n*\n", t);
        assert_int_equal(cr_exporter_write_game(ex, 3, t, text, &err), 0);
    }
    for (int t = 1; t <= 150; t++) {
        snprintf(text, sizeof text, "[Board \"%d\"]\n\n*\n", t);
        assert_int_equal(cr_exporter_write_game(ex, 3, t, text, &err), 0);
    }
    assert_int_equal(cr_exporter_files_written(ex), 150);
    assert_int_equal(cr_exporter_files_unchanged(ex), 150);
    char path[512];
    snprintf(path, sizeof path, "%s/round-3/game-77.pgn", f->root);
    cr_test_assert_file(path, "[Board \"77\"]\n\n*\n");
    cr_exporter_free(ex);
}

/* A reader process keeps reading the file while the writer alternates two
 * large texts: every read must be one text or the other, never a mix. */
static void test_atomic_replace(void **state)
{
    fixture *f = *state;
    enum { SIZE = 200000, ROUNDS = 40 };
    char *a = malloc(SIZE + 1), *b = malloc(SIZE + 1);
    assert_non_null(a);
    assert_non_null(b);
    memset(a, 'a', SIZE);
    memset(b, 'b', SIZE);
    a[SIZE] = b[SIZE] = '\0';
    cr_exporter *ex = cr_exporter_new(f->root, cr_export_files_io());
    cr_error err;
    assert_int_equal(cr_exporter_write_round(ex, 4, a, &err), 0);
    char path[512], dir[512];
    snprintf(path, sizeof path, "%s/round-4/games.pgn", f->root);
    snprintf(dir, sizeof dir, "%s/round-4", f->root);

    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pipefd[1]);
        char *buf = malloc(SIZE + 2);
        int bad = 0, reads = 0;
        char stop;
        time_t give_up = time(NULL) + 60; /* the writer died in a failed assert */
        while (time(NULL) < give_up) {
            FILE *fp = fopen(path, "rb");
            if (!fp) {
                bad++; /* the name must always exist */
            } else {
                size_t n = fread(buf, 1, SIZE + 1, fp);
                fclose(fp);
                reads++;
                if (n != SIZE || memchr(buf, buf[0] == 'a' ? 'b' : 'a', n)) {
                    bad++;
                }
            }
            /* Stop when the writer closes the pipe (non-blocking check). */
            fd_set set;
            FD_ZERO(&set);
            FD_SET(pipefd[0], &set);
            struct timeval tv = {0, 0};
            if (select(pipefd[0] + 1, &set, NULL, NULL, &tv) > 0) {
                if (read(pipefd[0], &stop, 1) <= 0) {
                    break;
                }
            }
        }
        free(buf);
        _exit(bad ? 1 : (reads > 0 ? 0 : 2));
    }
    close(pipefd[0]);
    for (int i = 0; i < ROUNDS; i++) {
        assert_int_equal(cr_exporter_write_round(ex, 4, (i & 1) ? a : b, &err), 0);
    }
    close(pipefd[1]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(hidden_files(dir), 0);
    assert_int_equal(cr_exporter_files_written(ex), ROUNDS + 1);
    cr_exporter_free(ex);
    free(a);
    free(b);
}

static void test_errors(void **state)
{
    fixture *f = *state;
    cr_error err;
    /* The root's parent is a regular file: fails for root as well. */
    char file[256], root[300];
    snprintf(file, sizeof file, "%s/plain-file", f->dir);
    FILE *fp = fopen(file, "w");
    assert_non_null(fp);
    fclose(fp);
    snprintf(root, sizeof root, "%s/export", file);
    cr_exporter *ex = cr_exporter_new(root, cr_export_files_io());
    assert_non_null(ex);
    assert_int_equal(cr_exporter_write_game(ex, 1, 1, game_a, &err), CR_EIO);
    assert_int_equal(err.code, CR_EIO);
    assert_non_null(strstr(err.text, file));
    assert_int_equal(cr_exporter_files_written(ex), 0);
    cr_exporter_free(ex);

    /* The round folder name taken by a file. */
    ex = cr_exporter_new(f->root, cr_export_files_io());
    char path[512];
    assert_int_equal(cr_exporter_write_game(ex, 1, 1, game_a, &err), 0);
    snprintf(path, sizeof path, "%s/round-5", f->root);
    fp = fopen(path, "w");
    fclose(fp);
    assert_int_equal(cr_exporter_write_round(ex, 5, game_a, &err), CR_EIO);
    assert_non_null(strstr(err.text, "round-5"));
    assert_non_null(strstr(err.text, "not a directory"));

    /* An unwritable folder (root ignores permissions, so only as a user). */
    if (geteuid() != 0) {
        snprintf(path, sizeof path, "%s/round-1", f->root);
        assert_int_equal(chmod(path, 0555), 0);
        assert_int_equal(cr_exporter_write_game(ex, 1, 2, game_a, &err), CR_EIO);
        assert_non_null(strstr(err.text, "game-2.pgn"));
        assert_int_equal(chmod(path, 0755), 0);
    }

    assert_int_equal(cr_exporter_write_game(ex, 0, 1, game_a, &err), CR_EINVAL);
    assert_int_equal(cr_exporter_write_game(ex, 1, 0, game_a, &err), CR_EINVAL);
    assert_int_equal(cr_exporter_write_game(ex, 1, 1, NULL, &err), CR_EINVAL);
    assert_int_equal(cr_exporter_write_round(ex, -1, game_a, NULL), CR_EINVAL);
    assert_int_equal(cr_exporter_write_game(NULL, 1, 1, game_a, &err), CR_EINVAL);
    cr_exporter_free(ex);
    assert_null(cr_exporter_new("", cr_export_files_io()));
    assert_null(cr_exporter_new(NULL, cr_export_files_io()));
    assert_null(cr_exporter_new("x", NULL));
    cr_export_io partial = *cr_export_files_io();
    partial.remove = NULL;
    assert_null(cr_exporter_new("x", &partial));
    cr_exporter_free(NULL);
}

/* An in-memory folder: one file, and a log of what the exporter asked. */
typedef struct mem_io {
    char path[256], text[256];
    bool exists;
    int reads, replaces, removes;
    bool fail;
    char dir[256], name[64];
} mem_io;

static int mem_read(void *data, const char *path, char **text, size_t *len)
{
    mem_io *m = data;
    m->reads++;
    if (!m->exists || strcmp(path, m->path) != 0) {
        return -1;
    }
    *len = strlen(m->text);
    *text = malloc(*len + 1);
    assert_non_null(*text);
    memcpy(*text, m->text, *len + 1);
    return 0;
}

static int mem_replace(void *data, const char *dir, const char *name, const char *path,
                       const char *text, size_t len, cr_error *err)
{
    mem_io *m = data;
    m->replaces++;
    if (m->fail) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: disk full", path);
    }
    snprintf(m->dir, sizeof m->dir, "%s", dir);
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->path, sizeof m->path, "%s", path);
    snprintf(m->text, sizeof m->text, "%.*s", (int)len, text);
    m->exists = true;
    return 0;
}

static int mem_remove(void *data, const char *path, cr_error *err)
{
    (void)err;
    mem_io *m = data;
    m->removes++;
    if (strcmp(path, m->path) == 0) {
        m->exists = false;
    }
    return 0;
}

static void test_core_decides_io_writes(void **state)
{
    (void)state;
    mem_io m = {0};
    /* What a restarted relay finds: the file already holds game_a. */
    snprintf(m.path, sizeof m.path, "out/round-2/game-7.pgn");
    snprintf(m.text, sizeof m.text, "%s", game_a);
    m.exists = true;
    cr_export_io io = {mem_read, mem_replace, mem_remove, &m};
    cr_exporter *ex = cr_exporter_new("out//", &io);
    assert_non_null(ex);
    cr_error err;
    assert_int_equal(cr_exporter_write_game(ex, 2, 7, game_a, &err), 0);
    assert_int_equal(m.reads, 1);
    assert_int_equal(m.replaces, 0);
    assert_int_equal(cr_exporter_files_unchanged(ex), 1);
    /* Known now: no second read, and a change goes to io->replace. */
    assert_int_equal(cr_exporter_write_game(ex, 2, 7, game_b, &err), 0);
    assert_int_equal(m.reads, 1);
    assert_int_equal(m.replaces, 1);
    assert_string_equal(m.dir, "out/round-2");
    assert_string_equal(m.name, "game-7.pgn");
    assert_string_equal(m.text, game_b);
    /* games.pgn of the round: never seen, nothing there, written. */
    assert_int_equal(cr_exporter_write_round(ex, 2, game_a, &err), 0);
    assert_int_equal(m.reads, 2);
    assert_string_equal(m.path, "out/round-2/games.pgn");
    assert_string_equal(m.name, "games.pgn");
    /* A failed replace is the caller's error, and the hash is not kept. */
    m.fail = true;
    assert_int_equal(cr_exporter_write_round(ex, 2, game_b, &err), CR_EIO);
    assert_string_equal(err.text, "out/round-2/games.pgn: disk full");
    m.fail = false;
    assert_int_equal(cr_exporter_write_round(ex, 2, game_b, &err), 0);
    assert_int_equal(m.replaces, 4);
    assert_int_equal(cr_exporter_files_written(ex), 3);
    /* Removing goes to io->remove; the next write of the same text rewrites. */
    assert_int_equal(cr_exporter_remove(ex, 2, 0, &err), 0);
    assert_int_equal(m.removes, 1);
    assert_false(m.exists);
    assert_int_equal(cr_exporter_write_round(ex, 2, game_b, &err), 0);
    assert_int_equal(m.replaces, 5);
    assert_true(m.exists);
    cr_exporter_free(ex);
}

int main(void)
{
    /* A reader killed by a failed assert must not take the runner down. */
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_layout_and_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(test_livechess_json_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unchanged_not_rewritten, setup, teardown),
        cmocka_unit_test_setup_teardown(test_many_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_atomic_replace, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test(test_core_decides_io_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
