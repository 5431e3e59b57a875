/* relay_load_bare: the baseline. A bare libwebsockets broadcast server that
 * does only what a relay must do at the least: every `1/rate` seconds it
 * serialises one message of `size` bytes with the current time as "ts", once,
 * and writes the same buffer to every connected client in its WRITEABLE
 * callback (the lws ring example's pattern, one message per callback).
 *
 *   relay_load_bare --port P --rate EVENTS_PER_S --size BYTES [--port-file F]
 *
 * Runs until SIGTERM/SIGINT. */
#include <inttypes.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RING 1024

typedef struct msg {
    size_t len;
    unsigned char *buf; /* LWS_PRE + payload */
} msg;

typedef struct pss {
    int64_t next; /* next seq to send */
} pss;

typedef struct server {
    struct lws_context *ctx;
    lws_sorted_usec_list_t sul;
    msg ring[RING];
    int64_t head; /* next seq */
    int rate, size;
    int64_t start_us;
} server;

static volatile sig_atomic_t stop;

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len);

static struct lws_protocols protocols[] = {{"bare", callback, sizeof(pss), 1024, 0, NULL, 0},
                                           {NULL, NULL, 0, 0, 0, NULL, 0}};

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void add_message(server *s)
{
    msg *m = &s->ring[s->head % RING];
    free(m->buf);
    m->buf = malloc(LWS_PRE + (size_t)s->size + 64);
    char *p = (char *)m->buf + LWS_PRE;
    int n = snprintf(p, (size_t)s->size + 64, "{\"type\":\"move\",\"seq\":%" PRId64 ",\"ts\":%" PRId64 ",\"pad\":\"",
                     s->head + 1, now_us());
    while (n < s->size - 2) {
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
    int64_t due = (now_us() - s->start_us) * s->rate / 1000000;
    while (s->head < due) {
        add_message(s);
    }
    lws_callback_on_writable_all_protocol(s->ctx, &protocols[0]);
    lws_sul_schedule(s->ctx, 0, &s->sul, on_timer, 1000000 / s->rate);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
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
        if (p->next < s->head) {
            msg *m = &s->ring[p->next % RING];
            if (lws_write(wsi, m->buf + LWS_PRE, m->len, LWS_WRITE_TEXT) < (int)m->len) {
                return -1;
            }
            p->next++;
            if (p->next < s->head) {
                lws_callback_on_writable(wsi);
            }
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
    server s;
    memset(&s, 0, sizeof s);
    s.rate = 20;
    s.size = 200;
    int port = 0;
    const char *port_file = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port") == 0) {
            port = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--rate") == 0) {
            s.rate = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--size") == 0) {
            s.size = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--port-file") == 0) {
            port_file = argv[i + 1];
        }
    }
    if (s.rate <= 0 || s.size < 64) {
        fprintf(stderr, "usage: relay_load_bare --port P --rate N --size BYTES [--port-file F]\n");
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
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
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
    lws_sul_schedule(s.ctx, 0, &s.sul, on_timer, 1000000 / s.rate);
    while (!stop && lws_service(s.ctx, 0) >= 0) {
    }
    lws_context_destroy(s.ctx);
    for (int i = 0; i < RING; i++) {
        free(s.ring[i].buf);
    }
    return 0;
}
