/* Export folder: change-only PGN files per game and per round, named here
 * and written by the caller's cr_export_io. See cr/export.h. */
#include "cr/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_MAX_LEN 4096

/* The keys of the files that are not a game's (table >= 1). */
enum { KEY_GAMES = 0, KEY_INDEX = -1, KEY_TOURNAMENT = -2, KEY_RESULTS = -3, ROUND_ROOT = -1 };

typedef struct file_hash {
    int round, table; /* round 0: empty slot */
    uint64_t hash;
    size_t len;
} file_hash;

struct cr_exporter {
    char *root;
    cr_export_io io;
    cr_export_cb cb;
    void *cb_data;
    file_hash *slots; /* open addressing, power-of-two size */
    size_t slot_count, used;
    uint64_t written, unchanged;
};

/* FNV-1a, 64 bits: enough to tell a changed file with the length beside it. */
static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

cr_exporter *cr_exporter_new(const char *root, const cr_export_io *io)
{
    if (!root || !root[0] || !io || !io->read || !io->replace || !io->remove) {
        return NULL;
    }
    cr_exporter *ex = calloc(1, sizeof *ex);
    if (!ex) {
        return NULL;
    }
    ex->io = *io;
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/') {
        n--; /* "out/" and "out" name the same folder */
    }
    ex->root = malloc(n + 1);
    if (!ex->root) {
        free(ex);
        return NULL;
    }
    memcpy(ex->root, root, n);
    ex->root[n] = '\0';
    return ex;
}

void cr_exporter_free(cr_exporter *ex)
{
    if (!ex) {
        return;
    }
    free(ex->slots);
    free(ex->root);
    free(ex);
}

void cr_exporter_set_callback(cr_exporter *ex, cr_export_cb cb, void *data)
{
    if (ex) {
        ex->cb = cb;
        ex->cb_data = data;
    }
}

uint64_t cr_exporter_files_written(const cr_exporter *ex)
{
    return ex ? ex->written : 0;
}

uint64_t cr_exporter_files_unchanged(const cr_exporter *ex)
{
    return ex ? ex->unchanged : 0;
}

void cr_exporter_forget(cr_exporter *ex)
{
    if (ex && ex->slots) {
        memset(ex->slots, 0, ex->slot_count * sizeof *ex->slots);
        ex->used = 0;
    }
}

/*----- Hash table of what was last written -----*/

static size_t slot_index(const cr_exporter *ex, int round, int table)
{
    uint64_t k = ((uint64_t)(uint32_t)round << 32) | (uint32_t)table;
    k *= 0x9E3779B97F4A7C15ULL;
    return (size_t)(k >> 32) & (ex->slot_count - 1);
}

static file_hash *find_slot(const cr_exporter *ex, int round, int table)
{
    if (!ex->slots) {
        return NULL;
    }
    for (size_t i = slot_index(ex, round, table);; i = (i + 1) & (ex->slot_count - 1)) {
        file_hash *s = &ex->slots[i];
        if (s->round == 0) {
            return NULL;
        }
        if (s->round == round && s->table == table) {
            return s;
        }
    }
}

static int remember(cr_exporter *ex, int round, int table, uint64_t hash, size_t len)
{
    file_hash *s = find_slot(ex, round, table);
    if (s) {
        s->hash = hash;
        s->len = len;
        return 0;
    }
    if ((ex->used + 1) * 4 > ex->slot_count * 3) {
        /* Grow to keep the table at most 3/4 full. */
        size_t ncount = ex->slot_count ? ex->slot_count * 2 : 64;
        file_hash *old = ex->slots;
        size_t old_count = ex->slot_count;
        ex->slots = calloc(ncount, sizeof *ex->slots);
        if (!ex->slots) {
            ex->slots = old;
            return CR_ENOMEM;
        }
        ex->slot_count = ncount;
        for (size_t i = 0; i < old_count; i++) {
            if (old[i].round) {
                size_t j = slot_index(ex, old[i].round, old[i].table);
                while (ex->slots[j].round) {
                    j = (j + 1) & (ncount - 1);
                }
                ex->slots[j] = old[i];
            }
        }
        free(old);
    }
    size_t j = slot_index(ex, round, table);
    while (ex->slots[j].round) {
        j = (j + 1) & (ex->slot_count - 1);
    }
    ex->slots[j] = (file_hash){round, table, hash, len};
    ex->used++;
    return 0;
}

/*----- Files -----*/

int cr_exporter_path(const cr_exporter *ex, int round, int table, char *buf, size_t size)
{
    if (!ex || round < 1 || table < 0 || !buf) {
        return CR_EINVAL;
    }
    int n = table ? snprintf(buf, size, "%s/round-%d/game-%d.pgn", ex->root, round, table)
                  : snprintf(buf, size, "%s/round-%d/games.pgn", ex->root, round);
    if (n < 0 || (size_t)n >= size) {
        return CR_ENOSPC;
    }
    return n;
}

/* True when the file at path holds len bytes hashing to hash. */
static bool same_on_disk(const cr_exporter *ex, const char *path, uint64_t hash, size_t len)
{
    char *text = NULL;
    size_t n = 0;
    if (ex->io.read(ex->io.data, path, &text, &n) != 0) {
        return false;
    }
    bool same = n == len && fnv1a(text, n) == hash;
    free(text);
    return same;
}

/* Replaces dir/base (whose full path is path) by text unless it holds the
 * same already; key is (round, table) in the table of what was written. */
static int replace_if_changed(cr_exporter *ex, int round, int table, const char *dir,
                              const char *base, const char *path, const char *text, cr_error *err)
{
    size_t len = strlen(text);
    uint64_t h = fnv1a(text, len);
    file_hash *known = find_slot(ex, round, table);
    if (known ? (known->hash == h && known->len == len) : same_on_disk(ex, path, h, len)) {
        ex->unchanged++;
        if (!known) {
            (void)remember(ex, round, table, h,
                           len); /* without memory: compare with the disk again */
        }
        return 0;
    }
    int rc = ex->io.replace(ex->io.data, dir, base, path, text, len, err);
    if (rc) {
        return rc;
    }
    ex->written++;
    /* Out of memory here only loses the hash: the next write rewrites. */
    (void)remember(ex, round, table, h, len);
    if (ex->cb && table >= KEY_GAMES) { /* PGN files only: hosts take PGN */
        ex->cb(path, round, table, ex->cb_data);
    }
    return 0;
}

static int write_file(cr_exporter *ex, int round, int table, const char *text, cr_error *err)
{
    cr_error_clear(err);
    if (!ex || round < 1 || (table < KEY_INDEX && table != KEY_RESULTS) || !text) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "export: bad round %d / table %d or no text",
                            round, table);
    }
    char path[PATH_MAX_LEN], dir[PATH_MAX_LEN], base[64];
    if ((size_t)snprintf(dir, sizeof dir, "%s/round-%d", ex->root, round) >= sizeof dir) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s/round-%d: path too long", ex->root, round);
    }
    if (table > 0) {
        snprintf(base, sizeof base, "game-%d.pgn", table);
    } else {
        snprintf(base, sizeof base, "%s",
                 table == KEY_INDEX     ? "index.json"
                 : table == KEY_RESULTS ? "results.trf"
                                        : "games.pgn");
    }
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, base) >= sizeof path) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s/round-%d: path too long", ex->root, round);
    }
    return replace_if_changed(ex, round, table, dir, base, path, text, err);
}

int cr_exporter_write_index(cr_exporter *ex, int round, const char *json_text, cr_error *err)
{
    return write_file(ex, round, KEY_INDEX, json_text, err);
}

int cr_exporter_write_results(cr_exporter *ex, int round, const char *trf_text, cr_error *err)
{
    return write_file(ex, round, KEY_RESULTS, trf_text, err);
}

int cr_exporter_write_tournament(cr_exporter *ex, const char *json_text, cr_error *err)
{
    cr_error_clear(err);
    if (!ex || !json_text) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "export: no text");
    }
    char path[PATH_MAX_LEN];
    if ((size_t)snprintf(path, sizeof path, "%s/tournament.json", ex->root) >= sizeof path) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: path too long", ex->root);
    }
    return replace_if_changed(ex, ROUND_ROOT, KEY_TOURNAMENT, ex->root, "tournament.json", path,
                              json_text, err);
}

int cr_exporter_write_game(cr_exporter *ex, int round, int table, const char *pgn_text,
                           cr_error *err)
{
    if (table < 1) {
        cr_error_clear(err);
        return cr_error_set(err, CR_EINVAL, 0, 0, "export: table %d is not 1 or more", table);
    }
    return write_file(ex, round, table, pgn_text, err);
}

int cr_exporter_write_round(cr_exporter *ex, int round, const char *pgn_text, cr_error *err)
{
    return write_file(ex, round, 0, pgn_text, err);
}

int cr_exporter_remove(cr_exporter *ex, int round, int table, cr_error *err)
{
    cr_error_clear(err);
    char path[PATH_MAX_LEN];
    if (!ex || table < 0) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "export: bad round %d / table %d", round, table);
    }
    int n = cr_exporter_path(ex, round, table, path, sizeof path);
    if (n == CR_EINVAL) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "export: bad round %d / table %d", round, table);
    }
    if (n < 0) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s/round-%d: path too long", ex->root, round);
    }
    file_hash *known = find_slot(ex, round, table);
    if (known) {
        /* Mark as "empty file": an absent file hashes like nothing written,
         * so the next write of any text goes to disk. */
        known->hash = fnv1a("", 0);
        known->len = (size_t)-1;
    }
    return ex->io.remove(ex->io.data, path, err);
}
