/* chessrelay emulate FEED --pty: plays one board of a feed as a DGT board with
 * a DGT 3000 clock on a pseudo-terminal, for tests and demos without hardware;
 * with --kind millennium or certabo, as a Millennium ChessLink or a Certabo
 * board (no clock; board_emu.h). A Certabo emulator streams a line every
 * 20 ms and can write the table of its pieces' RFIDs (--calibration-out) as
 * `chessrelay calibrate` would learn it; --occupancy makes it an
 * occupancy-only board.
 *
 * The first line on stdout is the device path to open (the pty slave, or the
 * --link symlink). The feed's timeline starts when the host first selects an
 * update mode, runs --speed times faster (gaps longer than --max-gap feed ms
 * are shortened to it) and ends with a short drain. Faults (--faults, seeded
 * by --seed): garbage (stray bytes between messages), drop (lost bytes), and
 * disconnect (the pty is unplugged and re-created, the timeline pausing
 * meanwhile; needs --link so that the host can find the new one). The feed's
 * own disconnect/connect lines unplug the pty when --link is given, and mute
 * the board otherwise; either way the timeline waits at the connect for the
 * host to take the board up again.
 *
 * A streaming board's lines are steps of the timeline like the feed's events
 * (one every 20 ms times --speed of feed time, or every --line-ms), so that a late emulator (a
 * loaded machine) still sends each position on as many lines as the feed
 * gives it: the timeline shifts, the sequence of lines does not change.
 * --clock FILE shares the feed time with the host (emu_clock.h: `chessrelay
 * record --clock FILE`): each step sets it, and no step is taken before the
 * host has handled every byte sent, so that the host stamps what it reads
 * with the feed time it was sent at, however late it got to read it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <event2/event.h>

#include "cmd/commands.h"
#include "cr/feed.h"
#include "board_emu.h"
#include "certabo.h"
#include "board_link.h"
#include "serial.h"
#include "emu_clock.h"
#include "pty.h"
#include "util/grow.h"
#include "util/opts.h"
#include "core/sigwatch.h"

typedef struct emu_event {
    int64_t t;     /* feed time */
    int64_t play;  /* feed time with long gaps shortened */
    cr_feed_kind kind;
    uint8_t squares[64];
    int32_t white_ms, black_ms;
    int running;
} emu_event;

typedef struct emu_events {
    emu_event *v;
    size_t n, cap;
    char board[CR_BOARD_ID_MAX + 1];
    bool oom;
} emu_events;

typedef struct emulator {
    struct event_base *base;
    struct event *rd, *timer, *stream;
    cr_board_emu *emu;
    emu_events evs;
    size_t next;
    double speed;
    cr_pty pty; /* the board's end; the host opens pty.path or --link */
    const char *link;
    bool f_garbage, f_drop, f_disconnect;
    uint64_t rng;
    bool started, finished, unplugged, paused;
    bool muted;             /* a feed disconnect without --link: the line is dead */
    int64_t real_start;     /* real ms when play time 0 was due */
    int64_t pause_at;
    int64_t emu_now;        /* feed time of the last applied event */
    int64_t end_at;         /* real ms to exit at, once done */
    int64_t replug_at;      /* real ms: re-create the pty */
    bool pause_pending;     /* pause once the events at pause_t are in */
    int64_t pause_t;
    bool unplug_pending;    /* a random unplug, once the host has read what was sent */
    int64_t drain_since;    /* real ms we started waiting for the host to read, 0 = not */
    int64_t backlog_since;  /* real ms the timeline has been held for the host, 0 = not */
    int64_t sent_at;        /* real ms bytes last went to the host */
    int unplugs_left;
    size_t pos_since_unplug;
    int status;
    /* A streaming board: the feed time of the next line, the lines sent
     * since the position last changed, the time handed to the board's
     * stream (monotonic, real ms while the timeline is not running). */
    bool streaming;
    int64_t line_play, line_every;
    int lines_since_pos;
    int64_t stream_t, stream_last;
    /* --clock: the shared feed clock, the feed time of the timeline's play
     * time 0, and what the host had handled when it last held a step. */
    cr_emu_clock *clock;
    int64_t clock_off;
    uint64_t held_handled;
    int64_t held_since, stuck_since;
} emulator;

/* Certabo lines go out every 20 ms (of real time at --speed): 4 of them
 * carry a position through a 2-of-3 vote. */
#define STREAM_PERIOD_MS 20
#define STREAM_SETTLE_LINES 4
/* --clock: a host that has read everything (the pty is empty) but not
 * counted as much as was sent for this long dropped the rest (it flushes
 * the port on opening it; a pty unplugged with bytes in it). */
#define CLOCK_LOST_MS 300
/* Long: a recorder the scheduler leaves without the CPU for seconds (a
 * loaded machine) must not be given up, or the lockstep ends and what it
 * records depends on the load again. */
#define CLOCK_STUCK_MS 60000

static uint32_t rnd(emulator *em)
{
    em->rng ^= em->rng << 13;
    em->rng ^= em->rng >> 7;
    em->rng ^= em->rng << 17;
    return (uint32_t)(em->rng >> 11);
}

static void push(emu_events *e, const emu_event *x)
{
    emu_event *nv = cr_grow(e->v, &e->cap, e->n + 1, sizeof *nv, 256);
    if (!nv) {
        e->oom = true;
        return;
    }
    e->v = nv;
    e->v[e->n++] = *x;
}

static void collect_decoded(void *data, const cr_feed_event *ev)
{
    emu_events *e = data;
    emu_event x;
    memset(&x, 0, sizeof x);
    x.t = ev->t;
    x.kind = ev->kind;
    if (ev->kind == CR_FEED_POS) {
        memcpy(x.squares, ev->u.squares, 64);
    } else if (ev->kind == CR_FEED_CLOCK) {
        x.white_ms = ev->u.clock.white_ms;
        x.black_ms = ev->u.clock.black_ms;
        x.running = ev->u.clock.running;
    } else {
        return;
    }
    push(e, &x);
}

/* Reads the events of one board (the first one seen, or `want`). */
static int load_feed(const char *path, const char *want, int64_t max_gap, emu_events *out)
{
    FILE *in = fopen(path, "r");
    if (!in) {
        fprintf(stderr, "chessrelay emulate: %s: %s\n", path, strerror(errno));
        return 1;
    }
    cr_feed_reader *r = cr_feed_reader_new(in, path);
    if (!r) {
        fclose(in);
        fprintf(stderr, "chessrelay emulate: out of memory\n");
        return 1;
    }
    cr_dgt_board *raw = NULL;
    int status = 0;
    if (want) {
        snprintf(out->board, sizeof out->board, "%s", want);
    }
    for (;;) {
        cr_feed_event ev;
        cr_error err;
        int rc = cr_feed_reader_next(r, &ev, &err);
        if (rc == 0) {
            break;
        }
        if (rc < 0) {
            fprintf(stderr, "chessrelay emulate: warning: %s (line skipped)\n", err.text);
            continue;
        }
        if (!out->board[0]) {
            snprintf(out->board, sizeof out->board, "%s", ev.board);
        }
        if (strcmp(ev.board, out->board) != 0) {
            continue;
        }
        if (ev.kind == CR_FEED_RAW) {
            if (!raw) {
                raw = cr_dgt_board_new(out->board, NULL);
            }
            if (raw) {
                cr_dgt_board_feed_raw(raw, ev.t, ev.u.raw.bytes, ev.u.raw.len, collect_decoded, out);
            }
            continue;
        }
        if (ev.kind == CR_FEED_POS || ev.kind == CR_FEED_CLOCK) {
            collect_decoded(out, &ev);
        } else if (ev.kind == CR_FEED_CONNECT || ev.kind == CR_FEED_DISCONNECT) {
            emu_event x;
            memset(&x, 0, sizeof x);
            x.t = ev.t;
            x.kind = ev.kind;
            push(out, &x);
        }
    }
    cr_dgt_board_free(raw);
    cr_feed_reader_free(r);
    fclose(in);
    if (out->oom) {
        fprintf(stderr, "chessrelay emulate: out of memory\n");
        return 1;
    }
    if (out->n == 0) {
        fprintf(stderr, "chessrelay emulate: %s: no events for board '%s'\n", path,
                out->board[0] ? out->board : "(none)");
        return 1;
    }
    for (size_t i = 0; i < out->n; i++) {
        int64_t gap = i == 0 ? 0 : out->v[i].t - out->v[i - 1].t;
        if (max_gap > 0 && gap > max_gap) {
            gap = max_gap;
        }
        out->v[i].play = i == 0 ? 0 : out->v[i - 1].play + gap;
    }
    return status;
}

static void on_master(evutil_socket_t fd, short what, void *arg);
static void schedule(emulator *em);

static int make_pty(emulator *em)
{
    cr_error err;
    if (cr_pty_open(&em->pty, true, &err) < 0) {
        fprintf(stderr, "chessrelay emulate: %s\n", err.text);
        return -1;
    }
    em->rd = event_new(em->base, em->pty.master, EV_READ | EV_PERSIST, on_master, em);
    event_add(em->rd, NULL);
    if (em->link && cr_pty_link(&em->pty, em->link, &err) < 0) {
        fprintf(stderr, "chessrelay emulate: %s\n", err.text);
        return -1;
    }
    return 0;
}

static void unplug(emulator *em)
{
    if (em->unplugged) {
        return;
    }
    if (em->link) {
        unlink(em->link);
    }
    if (em->rd) {
        event_free(em->rd);
        em->rd = NULL;
    }
    cr_pty_close(&em->pty);
    em->unplugged = true;
    cr_board_emu_power_up(em->emu);
}

static int64_t now_ms(void)
{
    return cr_dgt_now_ms();
}

static void flush_output(emulator *em)
{
    if (em->unplugged) {
        return;
    }
    uint8_t buf[4096], out[8192];
    size_t n;
    while ((n = cr_board_emu_take_output(em->emu, buf, sizeof buf)) > 0) {
        size_t k = 0;
        if (em->f_garbage && rnd(em) % 8 == 0) { /* stray bytes between messages */
            int g = 1 + (int)(rnd(em) % 5);
            for (int i = 0; i < g; i++) {
                out[k++] = (uint8_t)rnd(em);
            }
        }
        for (size_t i = 0; i < n; i++) {
            if (em->f_drop && rnd(em) % 400 == 0) {
                continue;
            }
            out[k++] = buf[i];
        }
        size_t off = 0;
        while (off < k) {
            ssize_t w = write(em->pty.master, out + off, k - off);
            if (w < 0) {
                if (errno == EINTR) {
                    continue;
                }
                /* The pty is full (nobody reads): the bytes are lost, as on a
                 * serial line with no listener. */
                break;
            }
            off += (size_t)w;
        }
        if (off > 0) {
            em->sent_at = now_ms();
            if (em->clock) {
                cr_emu_clock_sent(em->clock, off);
            }
        }
    }
}

/* The timeline's play time now (real_start shifted by every wait so far). */
static int64_t play_now(const emulator *em, int64_t now)
{
    return (int64_t)((double)(now - em->real_start) * em->speed);
}

/* The timeline stops (a pause, the end): the shared clock runs on in real
 * time at --speed, as the feed's time would. */
static void clock_runs(emulator *em, int64_t now)
{
    if (em->clock) {
        cr_emu_clock_run(em->clock, cr_emu_clock_now(em->clock), now);
    }
}

/* The timeline (re)starts at its play time now: the shared clock goes on from
 * where it ran to; the next line is not before now. */
static void timeline_goes(emulator *em, int64_t now)
{
    int64_t p = play_now(em, now);
    if (em->clock) {
        em->clock_off = cr_emu_clock_now(em->clock) - p;
        cr_emu_clock_stand(em->clock, p + em->clock_off);
    }
    if (em->line_play < p) {
        em->line_play = p;
    }
}

static void on_master(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    emulator *em = arg;
    uint8_t buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
        return;
    }
    cr_board_emu_input(em->emu, em->emu_now, buf, (size_t)n);
    bool updating = cr_board_emu_host_ready(em->emu);
    int64_t now = now_ms();
    if (updating && !em->started) {
        em->started = true;
        em->real_start = now;
        timeline_goes(em, now);
        schedule(em);
    } else if (updating && em->paused) {
        em->paused = false;
        em->real_start += now - em->pause_at;
        timeline_goes(em, now);
        schedule(em);
    }
    flush_output(em);
}

static void apply(emulator *em, const emu_event *x)
{
    em->emu_now = x->t;
    switch (x->kind) {
    case CR_FEED_POS:
        cr_board_emu_set_squares(em->emu, x->t, x->squares);
        em->pos_since_unplug++;
        em->lines_since_pos = 0;
        break;
    case CR_FEED_CLOCK:
        cr_board_emu_set_clock(em->emu, x->t, x->white_ms, x->black_ms, x->running);
        break;
    case CR_FEED_DISCONNECT:
        if (em->link) {
            unplug(em);
        } else {
            cr_board_emu_set_muted(em->emu, true);
            em->muted = true;
        }
        break;
    case CR_FEED_CONNECT:
        if (em->unplugged) {
            em->unplugged = false;
            if (make_pty(em) < 0) {
                em->status = 1;
                event_base_loopexit(em->base, NULL);
            }
            /* The position at reconnection is what the host's dump shows: the
             * events of this instant go in silently (bus mode after power-up),
             * then the timeline waits for the host to set an update mode. */
            em->pause_pending = true;
            em->pause_t = x->t;
        } else if (em->muted) {
            cr_board_emu_set_muted(em->emu, false);
            em->muted = false;
            /* The host, finding the board back, re-initialises it (probe,
             * serial number, dump, update mode): a few ms of its time, but
             * --speed times as much feed time, in which a position or two
             * could go by unseen. As after a replug, the events of this
             * instant go in, then the timeline waits for the host to speak
             * to the board in an update mode again. */
            em->pause_pending = true;
            em->pause_t = x->t;
        }
        break;
    default:
        break;
    }
}

static void schedule(emulator *em)
{
    int64_t now = now_ms();
    int64_t due;
    if (em->finished) {
        due = em->end_at;
    } else if (em->replug_at > 0) {
        due = em->replug_at;
    } else if (!em->started) {
        return;
    } else if (em->paused) {
        due = em->pause_at + 10000; /* a host that does not come back: play on */
    } else {
        int64_t play = em->evs.v[em->next].play;
        if (em->streaming && em->line_play < play) {
            play = em->line_play;
        }
        due = em->real_start + (int64_t)((double)play / em->speed);
    }
    int64_t wait = due > now ? due - now : 0;
    struct timeval tv = {(time_t)(wait / 1000), (suseconds_t)(wait % 1000) * 1000};
    evtimer_add(em->timer, &tv);
}

/* Bytes written to the pty that the host has not read yet. */
static int host_backlog(const emulator *em)
{
    int n = 0;
    if (em->pty.slave < 0 || ioctl(em->pty.slave, FIONREAD, &n) < 0) {
        return 0;
    }
    return n;
}

/* Bytes the host wrote that we have not read yet. */
static int host_request(const emulator *em)
{
    int n = 0;
    if (em->pty.master < 0 || ioctl(em->pty.master, FIONREAD, &n) < 0) {
        return 0;
    }
    return n;
}

/* --clock: whether the host has yet to handle bytes sent, or has written
 * what we have yet to answer (a host asks for a dump while it handles the
 * bytes that made it lose track: the answer comes before the next step). A
 * host that read everything but counts less than was sent for CLOCK_LOST_MS
 * lost the rest; one that counts more had them counted lost too early. A
 * host that handles nothing for CLOCK_STUCK_MS (it stopped reading, or is
 * not `record --clock`) is no longer waited for. */
static bool clock_waits(emulator *em, int64_t now)
{
    if (!em->clock) {
        return false;
    }
    if (host_request(em) > 0) {
        return true; /* on_master reads it first */
    }
    int64_t unhandled = cr_emu_clock_unhandled(em->clock);
    if (unhandled <= 0) {
        if (unhandled < 0) {
            cr_emu_clock_forget(em->clock, unhandled);
        }
        em->held_since = 0;
        if (cr_emu_clock_handled_count(em->clock) != em->held_handled) {
            em->stuck_since = 0; /* it handled what it was waited for */
        }
        return false;
    }
    uint64_t handled = cr_emu_clock_handled_count(em->clock);
    if (em->stuck_since == 0 || handled != em->held_handled) {
        em->stuck_since = now;
    } else if (now - em->stuck_since >= CLOCK_STUCK_MS) {
        fprintf(stderr, "chessrelay emulate: --clock: the host handled nothing for %d s; "
                        "playing on without it\n", CLOCK_STUCK_MS / 1000);
        cr_emu_clock_close(em->clock);
        em->clock = NULL;
        return false;
    }
    if (em->held_since == 0 || handled != em->held_handled || host_backlog(em) > 0) {
        em->held_since = now;
        em->held_handled = handled;
        return true;
    }
    if (now - em->held_since < CLOCK_LOST_MS) {
        return true;
    }
    cr_emu_clock_forget(em->clock, unhandled);
    em->held_since = 0; /* not stuck_since: a host that never counts is given up */
    return false;
}

enum { HOST_GO, HOST_HOLD, HOST_RECHECK };

/* Back-pressure before a step: a host that has not read the last bytes yet
 * (a loaded machine) holds the timeline, up to 200 ms; with --clock, until it
 * has handled them, without a limit. The timeline then shifts by the host's
 * delay: the step comes as long after the host read the last bytes as the
 * feed says it comes after them, not at once (at --speed N, the gap lost
 * would be N times the delay). HOST_HOLD: the timer is re-armed. */
static int host_hold(emulator *em, int64_t now)
{
    int backlog = host_backlog(em);
    bool hold = em->clock ? clock_waits(em, now)
                          : backlog > 0 && (em->backlog_since == 0 || now - em->backlog_since < 200);
    if (hold) {
        if (em->backlog_since == 0) {
            em->backlog_since = now;
        }
        struct timeval tv = {0, 1000};
        evtimer_add(em->timer, &tv);
        return HOST_HOLD;
    }
    if (em->backlog_since != 0) {
        em->backlog_since = 0;
        if (backlog == 0) {
            em->real_start += now - em->sent_at;
            return HOST_RECHECK; /* what is due on the shifted timeline */
        }
        /* 200 ms and still unread: the step goes now (shifted by the caller) */
    }
    return HOST_GO;
}

/* A streaming board's line, a step of the timeline. */
static void send_line(emulator *em)
{
    if (em->clock) {
        cr_emu_clock_stand(em->clock, em->line_play + em->clock_off);
    }
    em->stream_t += STREAM_PERIOD_MS;
    cr_board_emu_stream(em->emu, em->stream_t);
    em->stream_last = em->stream_t;
    em->lines_since_pos++;
    em->line_play += em->line_every;
    flush_output(em);
}

/* Before an unplug: give the host up to 500 ms to read what was sent, so
 * that the lines of the feed before a disconnect reach it (a loaded machine
 * may lag). Returns true (with the timer re-armed) while waiting. */
static bool wait_for_host(emulator *em, int64_t now)
{
    /* A streaming board (Certabo) is read by a vote over its last lines: the
     * position before an unplug must have been on the wire for a few lines,
     * as it would be on a real board unless pulled within a scan or two. */
    bool streaming = em->streaming && em->lines_since_pos < STREAM_SETTLE_LINES;
    if (host_backlog(em) > 0 || streaming || clock_waits(em, now)) {
        if (em->drain_since == 0) {
            em->drain_since = now;
        }
        if (now - em->drain_since < 500) {
            struct timeval tv = {0, 5000};
            evtimer_add(em->timer, &tv);
            return true;
        }
    }
    em->drain_since = 0;
    return false;
}

static void random_unplug(emulator *em, int64_t now)
{
    if (wait_for_host(em, now)) {
        return;
    }
    em->unplug_pending = false;
    unplug(em);
    em->unplugs_left--;
    em->pos_since_unplug = 0;
    em->replug_at = now + 700;
    schedule(em);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    emulator *em = arg;
    int64_t now = now_ms();
    if (em->finished) {
        if (now >= em->end_at) {
            event_base_loopexit(em->base, NULL);
            return;
        }
        schedule(em);
        return;
    }
    if (em->unplug_pending) {
        random_unplug(em, now);
        return;
    }
    if (em->replug_at > 0) {
        if (now < em->replug_at) {
            schedule(em);
            return;
        }
        em->replug_at = 0;
        em->unplugged = false;
        if (make_pty(em) < 0) {
            em->status = 1;
            event_base_loopexit(em->base, NULL);
            return;
        }
        em->paused = true; /* still, since the unplug: until the host sets an update mode */
        schedule(em);
        return;
    }
    if (!em->started) {
        event_base_loopexit(em->base, NULL); /* the 30 s wait for a host ran out */
        return;
    }
    if (em->paused) {
        if (now < em->pause_at + 10000) {
            schedule(em);
            return;
        }
        em->paused = false;
        em->real_start += now - em->pause_at;
        timeline_goes(em, now);
    }
    while (em->next < em->evs.n) {
        const emu_event *x = &em->evs.v[em->next];
        bool line = em->streaming && em->line_play < x->play;
        int64_t due = em->real_start + (int64_t)((double)(line ? em->line_play : x->play) / em->speed);
        if (due > now) {
            break;
        }
        int hold = host_hold(em, now);
        if (hold == HOST_HOLD) {
            return;
        }
        if (hold == HOST_RECHECK) {
            continue;
        }
        if (due < now) {
            /* Late ourselves (a loaded machine): this step goes now and the
             * ones after it keep their gaps to it, rather than all that came
             * due meanwhile going out at once. */
            em->real_start += now - due;
        }
        if (line) {
            send_line(em);
            continue;
        }
        if (x->kind == CR_FEED_DISCONNECT && em->link && wait_for_host(em, now)) {
            return;
        }
        if (em->clock) {
            cr_emu_clock_stand(em->clock, x->play + em->clock_off);
        }
        apply(em, x);
        em->next++;
        if (em->pause_pending && (em->next >= em->evs.n || em->evs.v[em->next].t != em->pause_t)) {
            em->pause_pending = false;
            em->paused = true;
            em->pause_at = now;
            clock_runs(em, now);
            schedule(em);
            return;
        }
        /* A random unplug: pause the timeline, re-create the pty a bit later. */
        if (em->f_disconnect && !em->unplugged && em->unplugs_left > 0 && x->kind == CR_FEED_POS &&
            em->pos_since_unplug > 40 && rnd(em) % 60 == 0) {
            flush_output(em);
            em->unplug_pending = true;
            em->paused = true;
            em->pause_at = now;
            clock_runs(em, now);
            random_unplug(em, now);
            return;
        }
    }
    cr_board_emu_tick(em->emu, em->emu_now);
    flush_output(em);
    if (em->next >= em->evs.n) {
        em->finished = true;
        em->end_at = now + 1500; /* drain: let the host ask for what it missed */
        clock_runs(em, now);
    }
    schedule(em);
}

/* A streaming board (Certabo) sends its lines in real time, game or not. */
static void on_stream(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    emulator *em = arg;
    bool timeline = em->started && !em->paused && !em->finished && em->replug_at == 0;
    if (!em->unplugged && !timeline) { /* the timeline sends its own lines */
        int64_t now = now_ms();
        if (now > em->stream_t) {
            em->stream_t = now;
        }
        cr_board_emu_stream(em->emu, em->stream_t);
        if (em->stream_t - em->stream_last >= STREAM_PERIOD_MS) { /* a line went out */
            em->stream_last = em->stream_t;
            em->lines_since_pos++;
        }
        flush_output(em);
    }
}

static int usage(void)
{
    fprintf(stderr, "usage: chessrelay emulate FEED --pty [--link PATH] [--board ID] [--speed X]\n"
                    "       [--max-gap MS] [--faults garbage,drop,disconnect] [--seed N]\n"
                    "       [--serial-number S] [--clock-white auto|left|right]\n"
                    "       [--kind dgt|millennium|certabo] [--occupancy] [--seven-bit]\n"
                    "       [--calibration-out FILE] [--clock FILE] [--line-ms MS]\n");
    return 2;
}

/* The command line, checked. */
typedef struct emulate_opts {
    const char *feed, *board, *serial, *faults, *cal_out, *link, *clock;
    cr_board_kind kind;
    bool occupancy, pty, seven_bit;
    double speed;
    uint64_t rng;
    int64_t max_gap;
    int64_t line_ms; /* feed ms between a streaming board's lines; 0: 20 x speed */
    cr_dgt_white_side side;
} emulate_opts;

/* Fills o from the command line: 0, or the exit status (2: a usage error). */
static int parse_options(int argc, char **argv, emulate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->faults = "";
    o->kind = CR_BOARD_DGT;
    o->speed = 1.0;
    o->rng = 88172645463325252ull;
    o->side = CR_DGT_WHITE_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--pty") == 0) {
            o->pty = true;
        } else if (strcmp(a, "--speed") == 0 && v) {
            if (!cr_opt_number("emulate", a, v, 1e-6, 1e6, "a number > 0", &o->speed)) {
                return 2;
            }
            i++;
        } else if (strcmp(a, "--faults") == 0 && v) {
            o->faults = v;
            i++;
        } else if (strcmp(a, "--seed") == 0 && v) {
            uint64_t seed;
            if (!cr_opt_u64("emulate", a, v, "a whole number", &seed)) {
                return 2;
            }
            o->rng = seed * 2654435761u + 1;
            i++;
        } else if (strcmp(a, "--board") == 0 && v) {
            o->board = v;
            i++;
        } else if (strcmp(a, "--link") == 0 && v) {
            o->link = v;
            i++;
        } else if (strcmp(a, "--max-gap") == 0 && v) {
            long long gap;
            if (!cr_opt_int("emulate", a, v, 0, INT64_MAX / 2, "milliseconds (0 or more)", &gap)) {
                return 2;
            }
            o->max_gap = gap;
            i++;
        } else if (strcmp(a, "--kind") == 0 && v) {
            if (cr_board_kind_parse(v, &o->kind) != 0 || o->kind == CR_BOARD_AUTO) {
                fprintf(stderr, "chessrelay emulate: --kind: dgt, millennium or certabo\n");
                return 2;
            }
            i++;
        } else if (strcmp(a, "--line-ms") == 0 && v) {
            long long ms;
            if (!cr_opt_int("emulate", a, v, 1, 3600000, "feed milliseconds (1 or more)", &ms)) {
                return 2;
            }
            o->line_ms = ms;
            i++;
        } else if (strcmp(a, "--clock") == 0 && v) {
            o->clock = v;
            i++;
        } else if (strcmp(a, "--occupancy") == 0) {
            o->occupancy = true;
        } else if (strcmp(a, "--seven-bit") == 0) {
            o->seven_bit = true;
        } else if (strcmp(a, "--calibration-out") == 0 && v) {
            o->cal_out = v;
            i++;
        } else if (strcmp(a, "--serial-number") == 0 && v) {
            o->serial = v;
            i++;
        } else if (strcmp(a, "--clock-white") == 0 && v) {
            o->side = strcmp(v, "left") == 0    ? CR_DGT_WHITE_LEFT
                      : strcmp(v, "right") == 0 ? CR_DGT_WHITE_RIGHT
                                                : CR_DGT_WHITE_AUTO;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "chessrelay emulate: unknown or incomplete option '%s'\n", a);
            return usage();
        } else if (!o->feed) {
            o->feed = a;
        } else {
            return usage();
        }
    }
    if (!o->feed || !o->pty || !(o->speed > 0)) {
        return usage();
    }
    return 0;
}

/* --faults garbage,drop,disconnect: 0, or the exit status (2). */
static int parse_faults(const char *faults, emulator *em)
{
    char fl[128];
    snprintf(fl, sizeof fl, "%s", faults);
    const struct {
        const char *name;
        bool *on;
    } kinds[] = {{"garbage", &em->f_garbage}, {"drop", &em->f_drop}, {"disconnect", &em->f_disconnect}};
    for (char *tok = strtok(fl, ","); tok; tok = strtok(NULL, ",")) {
        size_t k = 0;
        while (k < sizeof kinds / sizeof kinds[0] && strcmp(tok, kinds[k].name) != 0) {
            k++;
        }
        if (k == sizeof kinds / sizeof kinds[0]) {
            fprintf(stderr, "chessrelay emulate: unknown fault '%s'\n", tok);
            return usage();
        }
        *kinds[k].on = true;
    }
    if (em->f_disconnect && !em->link) {
        fprintf(stderr, "chessrelay emulate: --faults disconnect needs --link PATH\n");
        return 2;
    }
    return 0;
}

/* --calibration-out: the emulated Certabo's RFID table. 0 or 1. */
static int write_calibration(const char *path)
{
    cr_certabo_calibration cal;
    cr_certabo_emu_calibration(&cal);
    FILE *f = fopen(path, "w");
    if (!f || cr_certabo_calibration_write(f, &cal) != 0 || fclose(f) != 0) {
        fprintf(stderr, "chessrelay emulate: %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* The board emulator, the event loop with its signal watch, the timeline
 * timer and (a streaming board) the stream's ticks. 0, or 1 with all freed. */
static int emulator_open(emulator *em, const emulate_opts *o, cr_sigwatch **sw)
{
    cr_board_emu_config cfg = {.kind = o->kind,
                               .occupancy = o->occupancy,
                               .period_ms = STREAM_PERIOD_MS,
                               .seven_bit = o->seven_bit};
    cfg.dgt = (cr_dgt_emu_config){.version_major = 1, .version_minor = 7, .white_side = o->side};
    cfg.dgt.serial = o->serial ? o->serial : em->evs.board; /* the recorder then names the board as the feed did */
    em->emu = cr_board_emu_new(&cfg);
    *sw = cr_sigwatch_new(false);
    em->base = *sw ? event_base_new() : NULL;
    if (!em->emu || !em->base || cr_sigwatch_start(*sw, em->base, NULL, NULL, NULL)) {
        fprintf(stderr, "chessrelay emulate: out of memory\n");
        cr_board_emu_free(em->emu);
        if (em->base) {
            event_base_free(em->base);
        }
        cr_sigwatch_free(*sw);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    em->timer = evtimer_new(em->base, on_timer, em);
    em->streaming = cr_board_emu_streams(em->emu);
    if (em->streaming) {
        em->stream = event_new(em->base, -1, EV_PERSIST, on_stream, em);
        struct timeval every = {0, 5000};
        event_add(em->stream, &every);
    }
    return 0;
}

/* Plays the feed until it is done, a signal, or no host within 30 s. */
static void emulator_run(emulator *em)
{
    if (make_pty(em) < 0) {
        em->status = 1;
        return;
    }
    printf("%s\n", em->link ? em->link : em->pty.path);
    fflush(stdout);
    /* A host that never comes: give up after a while rather than hang. */
    em->finished = false;
    struct timeval idle = {30, 0};
    evtimer_add(em->timer, &idle);
    event_base_dispatch(em->base);
    if (!em->started) {
        fprintf(stderr, "chessrelay emulate: no host selected an update mode within 30 s\n");
        em->status = 1;
    }
}

static void emulator_close(emulator *em, cr_sigwatch *sw)
{
    unplug(em); /* the pty and its link go, if still there */
    event_free(em->timer);
    if (em->stream) {
        event_free(em->stream);
    }
    event_base_free(em->base);
    cr_sigwatch_free(sw);
    cr_board_emu_free(em->emu);
    cr_emu_clock_close(em->clock);
}

int cr_cmd_emulate(int argc, char **argv)
{
    emulate_opts o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0) {
        return rc;
    }
    emulator em;
    memset(&em, 0, sizeof em);
    em.speed = o.speed;
    em.line_every = o.line_ms > 0 ? o.line_ms : (int64_t)(STREAM_PERIOD_MS * o.speed);
    if (em.line_every < 1) {
        em.line_every = 1;
    }
    em.pty.master = em.pty.slave = -1;
    em.rng = o.rng;
    em.link = o.link;
    rc = parse_faults(o.faults, &em);
    if (rc != 0) {
        return rc;
    }
    em.unplugs_left = 3;
    if (load_feed(o.feed, o.board, o.max_gap, &em.evs) != 0 ||
        (o.cal_out && write_calibration(o.cal_out) != 0)) {
        free(em.evs.v);
        return 1;
    }
    if (o.clock && !(em.clock = cr_emu_clock_create(o.clock, o.speed))) {
        fprintf(stderr, "chessrelay emulate: --clock %s: %s\n", o.clock, strerror(errno));
        free(em.evs.v);
        return 1;
    }
    cr_sigwatch *sw = NULL;
    if (emulator_open(&em, &o, &sw) != 0) {
        cr_emu_clock_close(em.clock);
        free(em.evs.v);
        return 1;
    }
    emulator_run(&em);
    emulator_close(&em, sw);
    free(em.evs.v);
    return em.status;
}
