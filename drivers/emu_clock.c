/* The feed clock shared by an emulator and its host: see emu_clock.h. */
#include "emu_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "board_link.h"

#define EMU_CLOCK_MAGIC 0x6372636c6f636b31ull /* "crclock1" */

/* The feed time is three numbers read together: a sequence count, odd while
 * the emulator writes them, lets the host read a consistent set. */
typedef struct clock_page {
    uint64_t magic;
    _Atomic uint64_t seq;
    _Atomic int64_t feed_ms;   /* the feed time at real_ms */
    _Atomic int64_t real_ms;   /* running: from when; standing: -1 */
    _Atomic int64_t speed_ppm; /* feed ms per real ms, in millionths */
    _Atomic uint64_t sent, handled, forgotten;
} clock_page;

struct cr_emu_clock {
    clock_page *p;
    int64_t speed_ppm;
};

static cr_emu_clock *map_file(int fd)
{
    cr_emu_clock *c = calloc(1, sizeof *c);
    void *m = c ? mmap(NULL, sizeof(clock_page), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) {
        free(c);
        errno = e;
        return NULL;
    }
    c->p = m;
    return c;
}

cr_emu_clock *cr_emu_clock_create(const char *path, double speed)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return NULL;
    }
    if (ftruncate(fd, sizeof(clock_page)) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    cr_emu_clock *c = map_file(fd);
    if (c) {
        c->speed_ppm = (int64_t)(speed * 1e6);
        cr_emu_clock_run(c, 0, cr_dgt_now_ms());
        c->p->magic = EMU_CLOCK_MAGIC;
        msync(c->p, sizeof(clock_page), MS_SYNC);
    }
    return c;
}

cr_emu_clock *cr_emu_clock_open(const char *path)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        return NULL;
    }
    off_t size = lseek(fd, 0, SEEK_END);
    if (size != (off_t)sizeof(clock_page)) {
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    cr_emu_clock *c = map_file(fd);
    if (c && c->p->magic != EMU_CLOCK_MAGIC) {
        cr_emu_clock_close(c);
        errno = EINVAL;
        return NULL;
    }
    return c;
}

void cr_emu_clock_close(cr_emu_clock *c)
{
    if (c) {
        munmap(c->p, sizeof(clock_page));
        free(c);
    }
}

int64_t cr_emu_clock_now(const cr_emu_clock *c)
{
    for (;;) {
        uint64_t s = atomic_load(&c->p->seq);
        int64_t feed = atomic_load(&c->p->feed_ms);
        int64_t real = atomic_load(&c->p->real_ms);
        int64_t ppm = atomic_load(&c->p->speed_ppm);
        if ((s & 1) == 0 && atomic_load(&c->p->seq) == s) {
            if (real < 0) {
                return feed;
            }
            int64_t dt = cr_dgt_now_ms() - real;
            return feed + (dt > 0 ? dt * ppm / 1000000 : 0);
        }
    }
}

static void set(cr_emu_clock *c, int64_t t, int64_t real)
{
    atomic_fetch_add(&c->p->seq, 1);
    atomic_store(&c->p->feed_ms, t);
    atomic_store(&c->p->real_ms, real);
    atomic_store(&c->p->speed_ppm, c->speed_ppm);
    atomic_fetch_add(&c->p->seq, 1);
}

void cr_emu_clock_stand(cr_emu_clock *c, int64_t t)
{
    set(c, t, -1);
}

void cr_emu_clock_run(cr_emu_clock *c, int64_t t, int64_t real_now)
{
    set(c, t, real_now);
}

void cr_emu_clock_sent(cr_emu_clock *c, size_t n)
{
    atomic_fetch_add(&c->p->sent, n);
}

void cr_emu_clock_handled(cr_emu_clock *c, size_t n)
{
    atomic_fetch_add(&c->p->handled, n);
}

int64_t cr_emu_clock_unhandled(const cr_emu_clock *c)
{
    return (int64_t)(atomic_load(&c->p->sent) - atomic_load(&c->p->forgotten) -
                     atomic_load(&c->p->handled));
}

uint64_t cr_emu_clock_handled_count(const cr_emu_clock *c)
{
    return atomic_load(&c->p->handled);
}

void cr_emu_clock_forget(cr_emu_clock *c, int64_t n)
{
    atomic_fetch_add(&c->p->forgotten, (uint64_t)n);
}
