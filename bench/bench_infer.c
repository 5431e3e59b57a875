/* bench_infer: snapshots per second through the move inference, over the
 * sample feeds (tests/data/feeds) parsed once and replayed in a loop, one
 * engine per board as `replay` does; and the memory one board needs.
 *
 *   bench_infer [SECONDS] [FEED...]   (default: 3 s over the .feed files of tests/data/feeds)
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cr/infer.h"

typedef struct feed_data {
    cr_feed_event *ev;
    size_t n, cap;
    size_t pos_events;
} feed_data;

/* CPU time of this thread: the rate per core even on a busy machine. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int load(feed_data *d, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        return -1;
    }
    cr_feed_reader *r = cr_feed_reader_new(in, path);
    cr_feed_event ev;
    cr_error err;
    int rc;
    while ((rc = cr_feed_reader_next(r, &ev, &err)) != 0) {
        if (rc < 0 || ev.kind == CR_FEED_RAW || ev.kind == CR_FEED_META) {
            continue; /* borrowed pointers: keep the self-contained kinds */
        }
        if (d->n == d->cap) {
            d->cap = d->cap ? d->cap * 2 : 4096;
            d->ev = realloc(d->ev, d->cap * sizeof *d->ev);
            if (!d->ev) {
                abort();
            }
        }
        d->ev[d->n++] = ev;
        d->pos_events += ev.kind == CR_FEED_POS;
    }
    cr_feed_reader_free(r);
    fclose(in);
    return 0;
}

static uint64_t moves_seen;

static void on_event(void *data, const cr_infer_event *ev)
{
    (void)data;
    moves_seen += ev->kind == CR_INFER_MOVE;
}

typedef struct board {
    char id[CR_BOARD_ID_MAX + 1];
    cr_infer *inf;
} board;

/* One pass over the events; returns the number of boards used. */
static int run_once(const feed_data *d, board *boards, int max_boards, size_t *footprint, size_t *game_bytes)
{
    int nb = 0;
    for (size_t i = 0; i < d->n; i++) {
        const cr_feed_event *ev = &d->ev[i];
        int b;
        for (b = 0; b < nb; b++) {
            if (strcmp(boards[b].id, ev->board) == 0) {
                break;
            }
        }
        if (b == nb) {
            if (nb == max_boards) {
                continue;
            }
            snprintf(boards[nb].id, sizeof boards[nb].id, "%s", ev->board);
            boards[nb].inf = cr_infer_new(ev->board, NULL, on_event, NULL);
            nb++;
        }
        cr_infer_feed(boards[b].inf, ev);
    }
    for (int b = 0; b < nb; b++) {
        cr_infer_finish(boards[b].inf, INT64_MAX / 4);
        if (footprint) {
            size_t f = cr_infer_footprint(boards[b].inf);
            if (f > *footprint) {
                *footprint = f;
            }
        }
        const cr_game *g = cr_infer_game(boards[b].inf);
        if (game_bytes && g) {
            size_t gb = (size_t)cr_game_ply_count(g) * sizeof(cr_ply);
            if (gb > *game_bytes) {
                *game_bytes = gb;
            }
        }
        cr_infer_free(boards[b].inf);
    }
    return nb;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 3.0;
    if (seconds <= 0) {
        seconds = 3.0;
    }
    static feed_data fd[512];
    int files = 0;
    if (argc > 2) {
        for (int i = 2; i < argc && files < 512; i++) {
            files += load(&fd[files], argv[i]) == 0;
        }
    } else {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/feeds", CR_TEST_DATA_DIR);
        DIR *dp = opendir(dir);
        struct dirent *de;
        while (dp && (de = readdir(dp))) {
            size_t l = strlen(de->d_name);
            if (l > 5 && strcmp(de->d_name + l - 5, ".feed") == 0) {
                char path[1024];
                snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
                if (files < 512) {
                    files += load(&fd[files], path) == 0;
                }
            }
        }
        if (dp) {
            closedir(dp);
        }
    }
    size_t events = 0, pos_events = 0;
    for (int i = 0; i < files; i++) {
        events += fd[i].n;
        pos_events += fd[i].pos_events;
    }
    if (pos_events == 0) {
        fprintf(stderr, "bench_infer: no feeds\n");
        return 1;
    }
    /* Each feed is replayed with fresh engines, as `replay` does. */
    static board boards[256];
    size_t footprint = 0, game_bytes = 0;
    for (int i = 0; i < files; i++) {
        run_once(&fd[i], boards, 256, &footprint, &game_bytes);
    }
    uint64_t loops = 0, snaps = 0;
    double t0 = now_s(), t1 = t0;
    while (t1 - t0 < seconds) {
        for (int i = 0; i < files; i++) {
            run_once(&fd[i], boards, 256, NULL, NULL);
        }
        loops++;
        snaps += pos_events;
        t1 = now_s();
    }
    double rate = (double)snaps / (t1 - t0);
    printf("bench_infer: %d feeds, %zu events, %zu snapshots per pass, %" PRIu64 " passes in %.2f s of CPU\n",
           files, events, pos_events, loops, t1 - t0);
    printf("snapshots/s: %.0f (%.3f us per snapshot, one core)\n", rate, 1e6 / rate);
    printf("moves emitted per pass: %" PRIu64 "\n", moves_seen / (loops + 1));
    printf("bytes per board: engine %zu (sizeof + tags), largest game record ~%zu (plies x sizeof(cr_ply) = %zu)\n",
           footprint, game_bytes, sizeof(cr_ply));
    for (int i = 0; i < files; i++) {
        free(fd[i].ev);
    }
    return 0;
}
