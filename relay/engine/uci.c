/* chessrelay relay: one UCI engine process (see uci.h). */
#define _GNU_SOURCE
#include "engine/uci.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"

typedef enum { ST_HANDSHAKE, ST_READYING, ST_IDLE, ST_BUSY, ST_DEAD } state;

struct cr_uci {
    cr_uci_config cfg;
    pid_t pid;
    state st;
    struct bufferevent *in, *out; /* in: the engine's stdin (we write); out: its stdout */
    struct event *timer;          /* handshake or go timeout */
    cr_uci_result cur;
    bool has960; /* listed the UCI_Chess960 option */
    bool set960; /* UCI_Chess960 is set true now */
};

int cr_uci_resolve(const char *name, char *out, size_t size, cr_error *err)
{
    if (!name || !name[0]) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "engine: no path given");
    }
    struct stat st;
    if (strchr(name, '/')) {
        if (stat(name, &st) != 0 || !S_ISREG(st.st_mode)) {
            return cr_error_set(err, CR_EINVAL, 0, 0, "engine %s: no such file", name);
        }
        if (access(name, X_OK) != 0) {
            return cr_error_set(err, CR_EINVAL, 0, 0, "engine %s: not executable", name);
        }
        snprintf(out, size, "%s", name);
        return 0;
    }
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/games:/usr/local/games", path ? path : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char cand[4096];
        if ((size_t)snprintf(cand, sizeof cand, "%s/%s", d[0] ? d : ".", name) >= sizeof cand) {
            continue;
        }
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0) {
            if ((size_t)snprintf(out, size, "%s", cand) >= size) {
                break;
            }
            return 0;
        }
    }
    return cr_error_set(err, CR_EINVAL, 0, 0,
                        "engine %s: not found in $PATH, /usr/games or /usr/local/games "
                        "(Debian: apt-get install stockfish)",
                        name);
}

/*----- parsing -----*/

/* The next word of *s (NUL-terminated in place of the space), or NULL. */
static char *word(char **s)
{
    char *p = *s;
    while (*p == ' ' || *p == '\t') {
        p++;
    }
    if (!*p) {
        *s = p;
        return NULL;
    }
    char *w = p;
    while (*p && *p != ' ' && *p != '\t') {
        p++;
    }
    if (*p) {
        *p++ = '\0';
    }
    *s = p;
    return w;
}

static bool to_int(const char *w, int *v)
{
    if (!w) {
        return false;
    }
    char *end;
    long n = strtol(w, &end, 10);
    if (end == w || *end || n < -1000000 || n > 1000000) {
        return false;
    }
    *v = (int)n;
    return true;
}

bool cr_uci_parse_info(const char *line, cr_uci_result *r)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", line);
    char *s = buf, *w = word(&s);
    if (!w || strcmp(w, "info") != 0) {
        return false;
    }
    int depth = -1, multipv = 1, value = 0;
    bool has_score = false, mate = false, bound = false;
    char pv[CR_UCI_PV_MAX] = "";
    while ((w = word(&s)) != NULL) {
        if (strcmp(w, "depth") == 0) {
            if (!to_int(word(&s), &depth)) {
                return false;
            }
        } else if (strcmp(w, "multipv") == 0) {
            if (!to_int(word(&s), &multipv)) {
                return false;
            }
        } else if (strcmp(w, "score") == 0) {
            const char *kind = word(&s);
            if (!kind || (strcmp(kind, "cp") && strcmp(kind, "mate")) ||
                !to_int(word(&s), &value)) {
                return false;
            }
            mate = kind[0] == 'm';
            has_score = true;
        } else if (strcmp(w, "lowerbound") == 0 || strcmp(w, "upperbound") == 0) {
            bound = true;
        } else if (strcmp(w, "pv") == 0) {
            size_t n = 0;
            while ((w = word(&s)) != NULL) {
                size_t k = strlen(w);
                if (k >= CR_UCI_MOVE_MAX || n + k + 2 > sizeof pv) {
                    break; /* cut at a move */
                }
                if (n) {
                    pv[n++] = ' ';
                }
                memcpy(pv + n, w, k);
                n += k;
                pv[n] = '\0';
            }
            break; /* pv is the last field */
        } else if (strcmp(w, "string") == 0) {
            return false; /* free text */
        }
    }
    if (!has_score || bound || multipv < 1 || multipv > CR_UCI_LINES_MAX || depth < 0 || !pv[0]) {
        return false;
    }
    if (multipv == 1) {
        r->depth = depth;
        r->mate = mate;
        r->value = value;
        snprintf(r->pv, sizeof r->pv, "%s", pv);
    } else {
        cr_uci_line *l = &r->more[multipv - 2];
        l->depth = depth;
        l->mate = mate;
        l->value = value;
        /* cut at a move: the last space that fits */
        size_t n = strlen(pv);
        if (n >= sizeof l->pv) {
            n = sizeof l->pv - 1;
            while (n && pv[n] != ' ') {
                n--;
            }
        }
        memcpy(l->pv, pv, n);
        l->pv[n] = '\0';
    }
    if (multipv > r->nlines) {
        r->nlines = multipv;
    }
    return true;
}

/*----- the process -----*/

static void die(cr_uci *e, const char *why)
{
    if (e->st == ST_DEAD) {
        return;
    }
    e->st = ST_DEAD;
    event_del(e->timer);
    if (e->in) {
        bufferevent_disable(e->in, EV_READ | EV_WRITE);
    }
    if (e->out) {
        bufferevent_disable(e->out, EV_READ | EV_WRITE);
    }
    if (e->pid > 0) {
        kill(e->pid, SIGKILL);
        while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR) {
        }
        e->pid = -1;
    }
    if (e->cfg.died) {
        e->cfg.died(e->cfg.data, e, why);
    }
}

static void send_line(cr_uci *e, const char *fmt, ...) CR_PRINTF(2, 3);
static void send_line(cr_uci *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    evbuffer_add_vprintf(bufferevent_get_output(e->in), fmt, ap);
    va_end(ap);
    evbuffer_add(bufferevent_get_output(e->in), "\n", 1);
}

static void arm(cr_uci *e, int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    event_add(e->timer, &tv);
}

/* One line from the engine. Returns false when e died in it. */
static bool on_line(cr_uci *e, char *line)
{
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\r' || line[n - 1] == ' ')) {
        line[--n] = '\0';
    }
    switch (e->st) {
    case ST_HANDSHAKE:
        if (strncmp(line, "option name UCI_Chess960 type check", 35) == 0) {
            e->has960 = true;
        }
        if (strcmp(line, "uciok") == 0) {
            if (e->cfg.threads > 0) {
                send_line(e, "setoption name Threads value %d", e->cfg.threads);
            }
            if (e->cfg.hash_mb > 0) {
                send_line(e, "setoption name Hash value %d", e->cfg.hash_mb);
            }
            if (e->cfg.multipv > 1) {
                send_line(e, "setoption name MultiPV value %d", e->cfg.multipv);
            }
            send_line(e, "isready");
            e->st = ST_READYING;
        }
        return true;
    case ST_READYING:
        if (strcmp(line, "readyok") == 0) {
            event_del(e->timer);
            e->st = ST_IDLE;
            if (e->cfg.ready) {
                e->cfg.ready(e->cfg.data, e);
            }
        }
        return true;
    case ST_BUSY:
        if (strncmp(line, "info ", 5) == 0) {
            cr_uci_parse_info(line, &e->cur);
        } else if (strncmp(line, "bestmove", 8) == 0 && (line[8] == ' ' || !line[8])) {
            char *s = line + 8, *w = word(&s);
            if (w && strlen(w) < CR_UCI_MOVE_MAX && strcmp(w, "(none)") != 0) {
                snprintf(e->cur.best, sizeof e->cur.best, "%s", w);
            }
            event_del(e->timer);
            e->st = ST_IDLE;
            cr_uci_result r = e->cur;
            if (e->cfg.result) {
                e->cfg.result(e->cfg.data, e, &r);
            }
        }
        return e->st != ST_DEAD;
    case ST_IDLE:
    case ST_DEAD:
        return e->st != ST_DEAD;
    }
    return true;
}

static void on_read(struct bufferevent *bev, void *arg)
{
    cr_uci *e = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    char *line;
    size_t n;
    while (e->st != ST_DEAD && (line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF)) != NULL) {
        bool alive = on_line(e, line);
        free(line);
        if (!alive) {
            return;
        }
    }
    /* A line longer than anything UCI sends: not an engine talking. */
    if (e->st != ST_DEAD && evbuffer_get_length(in) > 65536) {
        die(e, "sent a line of more than 64 KiB");
    }
}

static void on_out_event(struct bufferevent *bev, short what, void *arg)
{
    cr_uci *e = arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        die(e, e->st == ST_HANDSHAKE ? "exited before uciok (not a UCI engine?)" : "exited");
    }
}

static void on_in_event(struct bufferevent *bev, short what, void *arg)
{
    cr_uci *e = arg;
    if (what & BEV_EVENT_ERROR) {
        die(e, "closed its input");
    }
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
    cr_uci *e = arg;
    die(e, e->st == ST_BUSY ? "gave no bestmove in time (hung)" : "did not answer uci/isready");
}

cr_uci *cr_uci_new(const cr_uci_config *cfg, cr_error *err)
{
    cr_uci *e = calloc(1, sizeof *e);
    if (!e) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        return NULL;
    }
    e->cfg = *cfg;
    e->pid = -1;
    int to[2] = {-1, -1}, from[2] = {-1, -1};
    if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC)) {
        cr_error_set(err, CR_EIO, 0, 0, "engine %s: pipe: %s", cfg->path, strerror(errno));
        goto fail;
    }
    pid_t parent = getpid();
    e->pid = fork();
    if (e->pid < 0) {
        cr_error_set(err, CR_EIO, 0, 0, "engine %s: fork: %s", cfg->path, strerror(errno));
        goto fail;
    }
    if (e->pid == 0) {
        /* The child: async-signal-safe calls only until exec. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL); /* the relay blocks SIGINT/SIGTERM */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) {
            _exit(127);
        }
        if (cfg->nice) {
            errno = 0;
            (void)!nice(cfg->nice);
        }
        if (cfg->idle) {
            /* Runs only when nothing else wants the CPU (the nice value
             * stays for a kernel without SCHED_IDLE). */
            struct sched_param sp = {0};
            sched_setscheduler(0, SCHED_IDLE, &sp);
        }
        if (dup2(to[0], 0) < 0 || dup2(from[1], 1) < 0) {
            _exit(127);
        }
        char *argv[] = {(char *)cfg->path, NULL};
        execv(cfg->path, argv);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    to[0] = from[1] = -1;
    evutil_make_socket_nonblocking(to[1]);
    evutil_make_socket_nonblocking(from[0]);
    e->in = bufferevent_socket_new(cfg->base, to[1], BEV_OPT_CLOSE_ON_FREE);
    if (e->in) {
        to[1] = -1;
    }
    e->out = bufferevent_socket_new(cfg->base, from[0], BEV_OPT_CLOSE_ON_FREE);
    if (e->out) {
        from[0] = -1;
    }
    e->timer = evtimer_new(cfg->base, on_timer, e);
    if (!e->in || !e->out || !e->timer) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "out of memory");
        goto fail;
    }
    bufferevent_setcb(e->out, on_read, NULL, on_out_event, e);
    bufferevent_setcb(e->in, NULL, NULL, on_in_event, e);
    bufferevent_enable(e->out, EV_READ);
    bufferevent_enable(e->in, EV_WRITE);
    e->st = ST_HANDSHAKE;
    send_line(e, "uci");
    arm(e, cfg->start_timeout_ms > 0 ? cfg->start_timeout_ms : 10000);
    return e;
fail:
    for (int i = 0; i < 2; i++) {
        if (to[i] >= 0) {
            close(to[i]);
        }
        if (from[i] >= 0) {
            close(from[i]);
        }
    }
    e->cfg.died = NULL;
    cr_uci_free(e);
    return NULL;
}

void cr_uci_free(cr_uci *e)
{
    if (!e) {
        return;
    }
    e->cfg.died = NULL; /* no callback from here */
    if (e->timer) {
        die(e, "freed");
        event_free(e->timer);
    } else if (e->pid > 0) {
        kill(e->pid, SIGKILL);
        while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    if (e->in) {
        bufferevent_free(e->in);
    }
    if (e->out) {
        bufferevent_free(e->out);
    }
    free(e);
}

bool cr_uci_idle(const cr_uci *e)
{
    return e && e->st == ST_IDLE;
}

pid_t cr_uci_pid(const cr_uci *e)
{
    return e ? e->pid : -1;
}

bool cr_uci_has_chess960(const cr_uci *e)
{
    return e && e->has960;
}

int cr_uci_go(cr_uci *e, const char *fen, bool chess960, int movetime_ms, int depth,
              int timeout_ms)
{
    if (!cr_uci_idle(e) || strchr(fen, '\n') || (movetime_ms <= 0 && depth <= 0)) {
        return CR_EINVAL;
    }
    memset(&e->cur, 0, sizeof e->cur);
    if (e->has960 && chess960 != e->set960) {
        send_line(e, "setoption name UCI_Chess960 value %s", chess960 ? "true" : "false");
        e->set960 = chess960;
    }
    send_line(e, "position fen %s", fen);
    if (movetime_ms > 0) {
        send_line(e, "go movetime %d", movetime_ms);
    } else {
        send_line(e, "go depth %d", depth);
    }
    e->st = ST_BUSY;
    arm(e, timeout_ms > 0 ? timeout_ms : 30000);
    return 0;
}
