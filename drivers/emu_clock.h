/* chessrelay drivers: the feed clock a board emulator shares with the host
 * that reads it, for tests (`chessrelay emulate --clock FILE` and `chessrelay
 * record --clock FILE`, docs/boards.md).
 *
 * An emulated board on a pty is read in real time; a host that stamps what it
 * reads with its own clock times a position by when it got to read it, so a
 * loaded machine changes the feed it records. With a shared clock the host
 * stamps with the emulator's feed time instead, and the emulator waits, before
 * each step of its timeline, until the host has handled every byte it sent:
 * the recording no longer depends on how fast either process is scheduled.
 *
 * The file holds one small page (mmap'ed by both): the feed time, and while
 * the emulator's timeline is held (before the host starts it, during an
 * unplug) the real moment and speed from which the feed time runs on; the
 * bytes the emulator wrote and the bytes the host handled. Both processes
 * are on one machine and read CLOCK_MONOTONIC (cr_dgt_now_ms).
 *
 * Ownership: cr_emu_clock_create/_open return a mapping freed with
 * cr_emu_clock_close (the file stays; the emulator's caller removes it). */
#ifndef CR_DRIVERS_EMU_CLOCK_H
#define CR_DRIVERS_EMU_CLOCK_H

#include <stddef.h>
#include <stdint.h>

typedef struct cr_emu_clock cr_emu_clock;

/* The emulator's side: creates (or empties) the file, feed time 0 running at
 * `speed` times real time from now. NULL with errno set. */
cr_emu_clock *cr_emu_clock_create(const char *path, double speed);
/* The host's side: maps a file an emulator created. NULL with errno set
 * (EINVAL: not such a file). */
cr_emu_clock *cr_emu_clock_open(const char *path);
void cr_emu_clock_close(cr_emu_clock *c); /* accepts NULL */

/* The feed time now (ms). */
int64_t cr_emu_clock_now(const cr_emu_clock *c);
/* Emulator: the feed time stands at t (a step of the timeline), or runs on
 * from t at `speed` times real time (real_now: cr_dgt_now_ms()). */
void cr_emu_clock_stand(cr_emu_clock *c, int64_t t);
void cr_emu_clock_run(cr_emu_clock *c, int64_t t, int64_t real_now);

/* Emulator: n bytes went to the host. Host: n bytes were handled. */
void cr_emu_clock_sent(cr_emu_clock *c, size_t n);
void cr_emu_clock_handled(cr_emu_clock *c, size_t n);
/* Emulator: bytes sent that the host has not handled, and the host's count
 * of handled bytes (to tell a host at work from bytes that were lost). */
int64_t cr_emu_clock_unhandled(const cr_emu_clock *c);
uint64_t cr_emu_clock_handled_count(const cr_emu_clock *c);
/* Emulator: bytes sent that the host will never handle (it flushed them on
 * opening the port, or they were in a pty that was unplugged). */
void cr_emu_clock_forget(cr_emu_clock *c, int64_t n);

#endif
