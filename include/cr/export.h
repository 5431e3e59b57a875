/* chessrelay: the export folder, PGN files on disk for tools that watch an
 * e-board export folder (broadcast uploaders, DGT LiveChess-style watchers,
 * arbiters' laptops on a share).
 *
 * Layout under the root directory (created with its parents if missing):
 *
 *     <root>/tournament.json              the event and its rounds' counts
 *     <root>/round-<n>/game-<table>.pgn   one game, rewritten as it grows
 *     <root>/round-<n>/games.pgn          every game of the round, in table order
 *     <root>/round-<n>/index.json         the round's pairings
 *     <root>/round-<n>/results.trf        the pairings TRF with the round's results
 *
 * as DGT LiveChess writes its export folder, so that tools made for it
 * (lichess's Broadcaster app) take the folder unchanged. The JSON texts are
 * the caller's (the relay makes them with jansson: relay/out/outputs.c).
 *
 * <n> and <table> are decimal without leading zeros, 1-based.
 *
 * The exporter decides what to write and names the files; it does no file
 * work itself. The caller hands it a cr_export_io that reads, replaces and
 * removes files (the relay's relay/export_files.c does it with POSIX calls:
 * a hidden temporary ".<name>.XXXXXX" in the same folder, fsync, chmod 0644,
 * rename over the target, fsync of the folder, so a reader sees the old file
 * or the new one, never a part). A file is written only when its content
 * changed: the exporter keeps a hash (and the length) of what it last wrote
 * to each file; for a file it has not written yet it asks io->read for what
 * is there, so that a restarted relay does not touch unchanged files.
 * Changes made to the files by someone else after that are not noticed.
 *
 * Not thread-safe: one exporter per thread (the relay calls it from its loop).
 *
 * Ownership: cr_exporter_new returns a new object, free it with
 * cr_exporter_free. The text arguments are read, not kept. */
#ifndef CR_EXPORT_H
#define CR_EXPORT_H

#include "cr/common.h"

typedef struct cr_exporter cr_exporter;

/* The file work, done by the caller. data is handed back to each function. */
typedef struct cr_export_io {
    /* Reads the whole file at path into *text (malloc'ed; the exporter frees
     * it) and its length into *len. Returns 0, or non-zero when the file is
     * missing or unreadable (the exporter then writes it). */
    int (*read)(void *data, const char *path, char **text, size_t *len);
    /* Replaces the file name (a base name) in folder dir, whose full path is
     * path, by text (len bytes) whole or not at all, creating dir and its
     * parents. Returns 0 or CR_EIO with err naming the path and the reason. */
    int (*replace)(void *data, const char *dir, const char *name, const char *path,
                   const char *text, size_t len, cr_error *err);
    /* Removes path; a missing file is not an error. Returns 0 or CR_EIO. */
    int (*remove)(void *data, const char *path, cr_error *err);
    void *data;
} cr_export_io;

/* root: the export folder (copied); io: the file work (copied, every
 * function set). Nothing is created until the first write. Returns NULL for
 * an empty root, a missing io or when out of memory. */
CR_EXTERN cr_exporter *cr_exporter_new(const char *root, const cr_export_io *io);
CR_EXTERN void cr_exporter_free(cr_exporter *ex); /* accepts NULL */

/* Called after a file was actually replaced (not when unchanged): path is
 * the file's full path (borrowed, valid during the call), table 0 for the
 * round's games.pgn. The relay hangs its uploads to broadcast hosts here. */
typedef void (*cr_export_cb)(const char *path, int round, int table, void *data);
CR_EXTERN void cr_exporter_set_callback(cr_exporter *ex, cr_export_cb cb, void *data);

/* Writes round-<round>/game-<table>.pgn with pgn_text (NUL-terminated,
 * written as is) if it differs from what is there. Returns 0 (written or
 * unchanged), CR_EINVAL (round or table < 1, NULL text) or CR_EIO with err
 * naming the path and the system's reason. err may be NULL. */
CR_EXTERN int cr_exporter_write_game(cr_exporter *ex, int round, int table, const char *pgn_text,
                                     cr_error *err);
/* The same for round-<round>/games.pgn. */
CR_EXTERN int cr_exporter_write_round(cr_exporter *ex, int round, const char *pgn_text,
                                      cr_error *err);

/* The same for round-<round>/index.json (json_text: the pairings as
 * LiveChess writes them, made by the caller) and <root>/tournament.json.
 * These are not PGN: the callback is not called for them. */
CR_EXTERN int cr_exporter_write_index(cr_exporter *ex, int round, const char *json_text,
                                      cr_error *err);
CR_EXTERN int cr_exporter_write_tournament(cr_exporter *ex, const char *json_text, cr_error *err);
/* The same for round-<round>/results.trf: the round's results for the
 * pairing program (cr_pairings_trf_results). */
CR_EXTERN int cr_exporter_write_results(cr_exporter *ex, int round, const char *trf_text,
                                        cr_error *err);

/* Removes round-<round>/game-<table>.pgn (table 0: games.pgn), e.g. for a
 * board that a new pairing list dropped. A missing file is not an error.
 * Returns 0, CR_EINVAL or CR_EIO with err naming the path. */
CR_EXTERN int cr_exporter_remove(cr_exporter *ex, int round, int table, cr_error *err);

/* The path a file has (or will have): table 0 for games.pgn. Returns the
 * length, or CR_ENOSPC if buf is too small / CR_EINVAL. */
CR_EXTERN int cr_exporter_path(const cr_exporter *ex, int round, int table, char *buf, size_t size);

/* Files replaced and writes skipped as unchanged since the exporter was made. */
CR_EXTERN uint64_t cr_exporter_files_written(const cr_exporter *ex);
CR_EXTERN uint64_t cr_exporter_files_unchanged(const cr_exporter *ex);

/* Forgets the hash of every file, so the next write of each compares with
 * the disk again (e.g. after the operator emptied the folder). */
CR_EXTERN void cr_exporter_forget(cr_exporter *ex);

#endif
