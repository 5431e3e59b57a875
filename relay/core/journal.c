/* chessrelay relay: the journal. */
#include "core/journal.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cr/pgn.h"

#include "util/fileio.h"

struct cr_journal {
    int fd;
    bool dirty;
    uint64_t syncs;
    char path[4096];
};

/* Journal files are "journal-NNNNNN.feed"; returns N or -1. */
static long journal_number(const char *name)
{
    unsigned long n;
    int used = 0;
    if (sscanf(name, "journal-%6lu.feed%n", &n, &used) == 1 && used > 0 &&
        name[used] == '\0' && strlen(name) == strlen("journal-000000.feed")) {
        return (long)n;
    }
    return -1;
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The journal numbers in dir, sorted; *count set. NULL with count 0 if none. */
static long *list_journals(const char *dir, int *count)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        return NULL;
    }
    long *v = NULL;
    int cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long n = journal_number(e->d_name);
        if (n < 0) {
            continue;
        }
        if (*count == cap) {
            cap = cap ? 2 * cap : 16;
            long *nv = realloc(v, (size_t)cap * sizeof *v);
            if (!nv) {
                break;
            }
            v = nv;
        }
        v[(*count)++] = n;
    }
    closedir(d);
    if (v) {
        qsort(v, (size_t)*count, sizeof *v, cmp_long);
    }
    return v;
}

static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

cr_journal *cr_journal_open(const char *dir, cr_error *err)
{
    if (cr_mkdir_p(dir)) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: cannot create: %s", dir, strerror(errno));
        return NULL;
    }
    int count;
    long *nums = list_journals(dir, &count);
    long next = count ? nums[count - 1] + 1 : 1;
    free(nums);
    cr_journal *j = calloc(1, sizeof *j);
    if (!j) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    snprintf(j->path, sizeof j->path, "%s/journal-%06ld.feed", dir, next);
    j->fd = open(j->path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (j->fd < 0) {
        cr_error_set(err, CR_EIO, 0, 0, "%s: %s", j->path, strerror(errno));
        free(j);
        return NULL;
    }
    /* The new file must survive a crash as much as its lines do. */
    sync_dir(dir);
    return j;
}

int cr_journal_append(cr_journal *j, const char *line, size_t len)
{
    int rc;
    if (len && line[len - 1] == '\n') {
        rc = cr_write_all(j->fd, line, len);
    } else {
        /* One write per line so that a line is torn only by a crash. */
        char stackbuf[1024];
        char *b = len + 1 <= sizeof stackbuf ? stackbuf : malloc(len + 1);
        if (!b) {
            return CR_ENOMEM;
        }
        memcpy(b, line, len);
        b[len] = '\n';
        rc = cr_write_all(j->fd, b, len + 1);
        if (b != stackbuf) {
            free(b);
        }
    }
    if (rc == 0) {
        j->dirty = true;
    }
    return rc;
}

int cr_journal_sync(cr_journal *j)
{
    if (!j->dirty) {
        return 0;
    }
    j->dirty = false;
    j->syncs++;
    return fdatasync(j->fd) ? CR_EIO : 0;
}

bool cr_journal_dirty(const cr_journal *j)
{
    return j->dirty;
}

const char *cr_journal_path(const cr_journal *j)
{
    return j->path;
}

uint64_t cr_journal_syncs(const cr_journal *j)
{
    return j->syncs;
}

void cr_journal_close(cr_journal *j)
{
    if (!j) {
        return;
    }
    cr_journal_sync(j);
    close(j->fd);
    free(j);
}

typedef struct replay_ctx {
    const char *name;
    cr_journal_line_fn fn;
    void *data;
    cr_journal_stats *st;
} replay_ctx;

static int replay_line(void *data, const char *line, size_t len, int lineno)
{
    replay_ctx *c = data;
    c->st->lines++;
    return c->fn(c->data, line, len, c->name, lineno);
}

/* Reads one journal file; drops (and cuts off) a torn last line, so that
 * the file reads as a clean feed. */
static int replay_file(const char *path, const char *name, cr_journal_line_fn fn, void *data,
                       cr_journal_stats *st, cr_error *err)
{
    replay_ctx c = {name, fn, data, st};
    bool torn;
    int rc = cr_read_lines(path, replay_line, &c, &torn, err);
    st->torn += torn;
    return rc;
}

int cr_journal_replay(const char *dir, cr_journal_line_fn fn, void *data, cr_journal_stats *stats,
                      cr_error *err)
{
    cr_journal_stats local = {0};
    cr_journal_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    int count;
    long *nums = list_journals(dir, &count);
    int rc = 0;
    for (int i = 0; i < count && !rc; i++) {
        char path[4096], name[64];
        snprintf(name, sizeof name, "journal-%06ld.feed", nums[i]);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        st->files++;
        rc = replay_file(path, name, fn, data, st, err);
    }
    free(nums);
    return rc;
}

/*----- command lines -----*/

int cr_journal_cmd_format(const cr_journal_cmd *c, char *out, size_t size)
{
    json_t *j = c->tag ? json_pack("{s:s, s:i, s:s, s:s}", "cmd", "tag", "game", (json_int_t)c->game,
                                   "name", c->name, "value", c->value)
                       : json_pack("{s:s, s:i, s:s}", "cmd", "result", "game", (json_int_t)c->game,
                                   "result", cr_result_string(c->result));
    if (j && c->who[0]) {
        json_object_set_new(j, "who", json_string(c->who));
    }
    /* Compact JSON escapes every control character: one line whatever the
     * value holds. */
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    int n = text ? snprintf(out, size, "# cmd %s\n", text) : -1;
    free(text);
    return n < 0 || (size_t)n >= size ? -1 : n;
}

/* The old format: "# cmd result N R", "# cmd tag N NAME VALUE" (VALUE is the
 * rest of the line after one space). */
static int parse_old_cmd(const char *line, size_t len, cr_journal_cmd *c, char *err, size_t es)
{
    char copy[512];
    if (len >= sizeof copy) {
        snprintf(err, es, "command line too long");
        return -1;
    }
    memcpy(copy, line, len);
    copy[len] = '\0';
    char *save = NULL;
    strtok_r(copy, " ", &save);               /* "#" */
    strtok_r(NULL, " ", &save);               /* "cmd" */
    const char *word = strtok_r(NULL, " ", &save);
    const char *game = strtok_r(NULL, " ", &save);
    char *end = NULL;
    long g = game ? strtol(game, &end, 10) : 0;
    if (!word || !game || *end || g < 1 || g > INT_MAX) {
        snprintf(err, es, "command line without a game number");
        return -1;
    }
    c->game = (int)g;
    if (strcmp(word, "result") == 0) {
        const char *res = strtok_r(NULL, " ", &save);
        int r = res ? cr_result_parse(res) : -1;
        if (r < 0 || strtok_r(NULL, " ", &save)) {
            snprintf(err, es, "command line with a bad result");
            return -1;
        }
        c->result = (cr_result)r;
        return 1;
    }
    if (strcmp(word, "tag") == 0) {
        /* save points after the game's space: NAME, one space, VALUE. */
        const char *rest = save ? save : "";
        const char *sp = strchr(rest, ' ');
        size_t nl = sp ? (size_t)(sp - rest) : strlen(rest);
        const char *value = sp ? sp + 1 : "";
        if (!nl || nl >= sizeof c->name || strlen(value) >= sizeof c->value) {
            snprintf(err, es, "command line with a bad tag");
            return -1;
        }
        c->tag = true;
        memcpy(c->name, rest, nl);
        c->name[nl] = '\0';
        snprintf(c->value, sizeof c->value, "%s", value);
        return 1;
    }
    snprintf(err, es, "unknown command '%.20s'", word);
    return -1;
}

int cr_journal_cmd_parse(const char *line, size_t len, cr_journal_cmd *c, char *err,
                         size_t err_size)
{
    static const char head[] = "# cmd ";
    if (len < sizeof head - 1 || memcmp(line, head, sizeof head - 1) != 0) {
        return 0;
    }
    memset(c, 0, sizeof *c);
    const char *p = line + sizeof head - 1;
    size_t n = len - (sizeof head - 1);
    if (!n || *p != '{') {
        return parse_old_cmd(line, len, c, err, err_size);
    }
    json_error_t jerr;
    json_t *j = json_loadb(p, n, JSON_REJECT_DUPLICATES, &jerr);
    const char *cmd = json_string_value(json_object_get(j, "cmd"));
    json_t *game = json_object_get(j, "game");
    const char *who = json_string_value(json_object_get(j, "who"));
    int rc = -1;
    if (!j || !cmd || !json_is_integer(game) || json_integer_value(game) < 1 ||
        json_integer_value(game) > INT_MAX || (who && strlen(who) >= sizeof c->who)) {
        snprintf(err, err_size, "%s", j ? "command line without its fields" : "command line not JSON");
    } else if (strcmp(cmd, "result") == 0) {
        const char *res = json_string_value(json_object_get(j, "result"));
        int r = res ? cr_result_parse(res) : -1;
        if (r < 0) {
            snprintf(err, err_size, "command line with a bad result");
        } else {
            c->result = (cr_result)r;
            rc = 1;
        }
    } else if (strcmp(cmd, "tag") == 0) {
        const char *name = json_string_value(json_object_get(j, "name"));
        const char *value = json_string_value(json_object_get(j, "value"));
        if (!name || !value || !cr_pgn_tag_name_ok(name) || strlen(name) >= sizeof c->name ||
            strlen(value) >= sizeof c->value) {
            snprintf(err, err_size, "command line with a bad tag");
        } else {
            c->tag = true;
            snprintf(c->name, sizeof c->name, "%s", name);
            snprintf(c->value, sizeof c->value, "%s", value);
            rc = 1;
        }
    } else {
        snprintf(err, err_size, "unknown command '%.20s'", cmd);
    }
    if (rc == 1) {
        c->game = (int)json_integer_value(game);
        snprintf(c->who, sizeof c->who, "%s", who ? who : "");
    }
    json_decref(j);
    return rc;
}
