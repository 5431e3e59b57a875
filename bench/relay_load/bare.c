/* relay_load_bare: the baseline. A bare libwebsockets broadcast server that
 * does only what a relay must do at the least: for each event it serialises
 * one message with the current time as "ts", once, and writes the same
 * buffer to every connected client in its WRITEABLE callback (the lws ring
 * example's pattern, one message per callback).
 *
 *   relay_load_bare --port P --schedule FILE [--batch B] [--port-file F]
 *   relay_load_bare --port P --rate EVENTS_PER_S --size BYTES [--batch B] [--port-file F]
 *
 * --schedule: "ts length" lines, the relay's event stream as a viewer saw it
 * (relay_load_client --record): the same events at the same moments (offsets
 * of ts from the first line; the file is replayed in a loop, its last
 * moment being the next round's first) and of the same sizes. Otherwise
 * `rate` events a second of `size` bytes.
 * --batch B: up to B waiting messages per WRITEABLE, framed here and written
 * in one send, as the relay does (relay/server.c viewer_writeable); the
 * default, 1, is the lws ring example's one message per callback.
 *
 * The lws context is set up as the relay's (relay/server.c): same options,
 * receive buffer and descriptor limit. Runs until SIGTERM/SIGINT. */
#include <inttypes.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define RING 1024
#define BATCH_BYTES 65536
#define MAX_SIZE 65000
#define MOMENT_US 50000

typedef struct msg {
    size_t len;
    unsigned char *buf; /* LWS_PRE + payload */
} msg;

typedef struct pss {
    int64_t next; /* next seq to send */
} pss;

typedef struct event {
    int64_t at_us; /* offset from the start of the schedule */
    int size;
} event;

typedef struct server {
    struct lws_context *ctx;
    lws_sorted_usec_list_t sul;
    msg ring[RING];
    int64_t head; /* next seq */
    int rate, size;
    int64_t start_us;
    event *schedule; /* NULL: `rate` events a second of `size` bytes */
    size_t nschedule;
    int64_t period_us; /* the schedule's length; it starts again after */
    int64_t made;      /* events made from the schedule (all rounds) */
    int batch;         /* messages per WRITEABLE (1: the lws ring example) */
    unsigned char wbuf[LWS_PRE + BATCH_BYTES + MAX_SIZE + 16];
} server;

static volatile sig_atomic_t stop;

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len);

/* rx_buffer_size as the relay's */
static struct lws_protocols protocols[] = {{"bare", callback, sizeof(pss), 1024, 0, NULL, 0},
                                           {NULL, NULL, 0, 0, 0, NULL, 0}};

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void add_message(server *s, int size)
{
    msg *m = &s->ring[s->head % RING];
    free(m->buf);
    m->buf = malloc(LWS_PRE + (size_t)size + 64);
    char *p = (char *)m->buf + LWS_PRE;
    int n = snprintf(p, (size_t)size + 64,
                     "{\"type\":\"move\",\"seq\":%" PRId64 ",\"ts\":%" PRId64 ",\"pad\":\"",
                     s->head + 1, now_us());
    while (n < size - 2) {
        p[n++] = 'x';
    }
    p[n++] = '"';
    p[n++] = '}';
    m->len = (size_t)n;
    s->head++;
}

/* Keeps the rate exact under load: as many messages as are due since the
 * start (a late timer catches up), like events that keep coming. */
static void on_timer(lws_sorted_usec_list_t *sul)
{
    server *s = lws_container_of(sul, server, sul);
    int64_t elapsed = now_us() - s->start_us, next;
    if (s->schedule) {
        for (;;) {
            const event *e = &s->schedule[s->made % (int64_t)s->nschedule];
            int64_t at = (s->made / (int64_t)s->nschedule) * s->period_us + e->at_us;
            if (at > elapsed) {
                next = at - elapsed;
                break;
            }
            add_message(s, e->size);
            s->made++;
        }
    } else {
        int64_t due = elapsed * s->rate / 1000000;
        while (s->head < due) {
            add_message(s, s->size);
        }
        next = 1000000 / s->rate;
    }
    lws_callback_on_writable_all_protocol(s->ctx, &protocols[0]);
    lws_sul_schedule(s->ctx, 0, &s->sul, on_timer, next);
}

/* Reads "ts length" lines; false (with a message) if none or malformed. */
static bool read_schedule(server *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "relay_load_bare: cannot read %s\n", path);
        return false;
    }
    long long ts, first = 0;
    int size, line = 0;
    size_t cap = 0;
    while (fscanf(f, "%lld %d", &ts, &size) == 2) {
        line++;
        if (size < 64 || size > MAX_SIZE ||
            (s->nschedule && ts < first + s->schedule[s->nschedule - 1].at_us)) {
            fprintf(stderr, "relay_load_bare: %s:%d: bad line\n", path, line);
            fclose(f);
            return false;
        }
        if (s->nschedule == cap) {
            cap = cap ? 2 * cap : 1024;
            event *e = realloc(s->schedule, cap * sizeof *e);
            if (!e) {
                fclose(f);
                return false;
            }
            s->schedule = e;
        }
        if (!s->nschedule) {
            first = ts;
        }
        s->schedule[s->nschedule++] = (event){ts - first, size};
    }
    fclose(f);
    if (s->nschedule < 2) {
        fprintf(stderr, "relay_load_bare: %s: fewer than two events\n", path);
        return false;
    }
    /* Events less than MOMENT_US apart are one moment (a move and its
     * clock). The last moment is where the next round starts: the events
     * before it are sent every `period` (the rate the recording had between
     * its first moment and its last, whatever its bursts). */
    size_t last = s->nschedule - 1;
    while (last > 0 && s->schedule[last].at_us - s->schedule[last - 1].at_us < MOMENT_US) {
        last--;
    }
    s->period_us = s->schedule[last].at_us;
    s->nschedule = last;
    if (s->period_us <= 0 || last == 0) {
        fprintf(stderr, "relay_load_bare: %s: all events at one moment\n", path);
        return false;
    }
    return true;
}

/* An RFC 6455 final unmasked text frame of m at out; returns its size. */
static size_t frame(unsigned char *out, const msg *m)
{
    size_t h = 2;
    out[0] = 0x81;
    if (m->len < 126) {
        out[1] = (unsigned char)m->len;
    } else {
        out[1] = 126;
        out[2] = (unsigned char)(m->len >> 8);
        out[3] = (unsigned char)m->len;
        h = 4;
    }
    memcpy(out + h, m->buf + LWS_PRE, m->len);
    return h + m->len;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    server *s = ctx ? lws_context_user(ctx) : NULL;
    pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
        p->next = s->head;
        break;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (p->next < s->head - RING + 1) {
            p->next = s->head - RING + 1; /* fell a ring behind */
        }
        if (p->next < s->head && (s->batch <= 1 || p->next + 1 == s->head)) {
            msg *m = &s->ring[p->next % RING];
            if (lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) < (int)m->len) {
                return -1;
            }
            p->next++;
        } else if (p->next < s->head) {
            /* --batch: up to `batch` messages framed here, one send (as the relay does) */
            size_t out = 0;
            for (int n = 0; n < s->batch && p->next < s->head && out < BATCH_BYTES; n++) {
                msg *m = &s->ring[p->next++ % RING];
                out += frame(s->wbuf + LWS_PRE + out, m);
            }
            if (lws_write(wsi, s->wbuf + LWS_PRE, out, LWS_WRITE_HTTP) < (int)out) {
                return -1;
            }
        }
        if (p->next < s->head) {
            lws_callback_on_writable(wsi);
        }
        break;
    default:
        break;
    }
    return 0;
}

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    static server s; /* zeroed */
    s.rate = 20;
    s.size = 200;
    int port = 0;
    const char *port_file = NULL, *schedule = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port") == 0) {
            port = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--rate") == 0) {
            s.rate = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--size") == 0) {
            s.size = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--port-file") == 0) {
            port_file = argv[i + 1];
        } else if (strcmp(argv[i], "--schedule") == 0) {
            schedule = argv[i + 1];
        } else if (strcmp(argv[i], "--batch") == 0) {
            s.batch = atoi(argv[i + 1]);
        }
    }
    if (s.rate <= 0 || s.size < 64 || s.size > MAX_SIZE) {
        fprintf(stderr, "usage: relay_load_bare --port P (--schedule FILE | --rate N --size BYTES) "
                        "[--port-file F]\n");
        return 2;
    }
    if (schedule && !read_schedule(&s, schedule)) {
        return 2;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.user = &s;
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_DISABLE_IPV6;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        info.fd_limit_per_thread = (unsigned)rl.rlim_cur;
    }
    lws_set_log_level(LLL_ERR, NULL);
    s.ctx = lws_create_context(&info);
    if (!s.ctx) {
        return 1;
    }
    if (port_file) {
        FILE *f = fopen(port_file, "w");
        if (f) {
            fprintf(f, "%d\n", lws_get_vhost_listen_port(lws_get_vhost_by_name(s.ctx, "default")));
            fclose(f);
        }
    }
    s.start_us = now_us();
    lws_sul_schedule(s.ctx, 0, &s.sul, on_timer, 1000);
    while (!stop && lws_service(s.ctx, 0) >= 0) {
    }
    lws_context_destroy(s.ctx);
    for (int i = 0; i < RING; i++) {
        free(s.ring[i].buf);
    }
    free(s.schedule);
    return 0;
}
