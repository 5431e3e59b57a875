/* relay_load_client: opens N WebSocket viewers to a relay (or the bare
 * broadcast server), subscribes each to a round, and measures for every
 * message the time from its `ts` (microseconds since the epoch, stamped
 * when the event entered the server) to its arrival here.
 *
 *   relay_load_client --port P --viewers N --seconds S [--round R] [--resume 1]
 *                     [--summary 1] [--reconnect 1] [--server-pid PID] [--record FILE]
 *
 * --resume 1: each viewer says hello and subscribes with `since` = the seq
 * of the welcome, so it gets no snapshots: the pure broadcast, to compare
 * with the bare server. Without it each viewer gets its snapshots first.
 *
 * --summary 1: subscribe as the web viewer does (`"summary":true`: the
 * round's list in brief, then a summary per change; latency from each
 * summary's ts). --reconnect 1: a viewer whose connection ends (a server
 * restarted) is opened again, at most 100 a turn (the rehearsal's edge
 * restart); `closed` counts the connections that ended.
 *
 * --server-pid: the server's CPU time (user + system, all threads, and the
 * thread named cr-lws if there is one: the relay's WebSocket thread) over
 * the measured seconds, read from /proc, as is the client's own.
 * --record: one viewer's events as "ts length" lines (the relay's event
 * stream, for the bare server to send the same: relay_load_bare --schedule).
 *
 * SIGTERM or SIGINT ends the measurement early (msgs_per_s over the
 * seconds measured).
 *
 * Prints one line: viewers connected, messages, messages/s, latency p50,
 * p99 and max in milliseconds, and the CPU figures. Measuring starts once
 * the viewers' snapshots have arrived (none for a second) and snapshots are
 * not counted (their ts is the game's last event, not now). */
#define _GNU_SOURCE /* memmem */
#include <inttypes.h>
#include <libwebsockets.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_now; /* SIGTERM/SIGINT: print what was measured, exit */
static struct lws_context *stop_ctx;

static void on_stop(int sig)
{
    (void)sig;
    stop_now = 1;
    if (stop_ctx) {
        lws_cancel_service(stop_ctx); /* a write to lws's own pipe: wakes its poll */
    }
}

#define BUCKET_US 10
#define BUCKETS 200000 /* 2 s in 10 us steps; beyond goes to the last */

/* Per viewer: with --resume, hello first, then subscribe from the seq the
 * welcome gives (the steady state without the join's snapshots). */
typedef struct cpss {
    int state; /* 0: send hello/subscribe, 1: waiting for welcome, 2: send subscribe, 3: done */
    long long since;
    bool recorded; /* the viewer whose stream --record writes */
} cpss;

typedef struct bench {
    struct lws_context *ctx;
    const char *round;
    int port, want, opened, connected, failed;
    bool resume, summary, reconnect;
    int active, up, closed; /* open or opening; open; ended after being open */
    int64_t messages;
    uint32_t *hist;
    int64_t max_us;
    int64_t snapshots, last_snapshot_us;
    bool measuring;
    FILE *record;
    bool recorder_taken;
} bench;

/* CPU time (ms, user + system) of a process or one of its threads, from
 * the stat file of /proc; -1 if unreadable. */
static double stat_cpu_ms(const char *path, char *comm, size_t comm_size)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    char line[1024];
    size_t n = fread(line, 1, sizeof line - 1, f);
    fclose(f);
    line[n] = '\0';
    char *open = strchr(line, '('), *close = strrchr(line, ')');
    if (!open || !close) {
        return -1;
    }
    if (comm) {
        snprintf(comm, comm_size, "%.*s", (int)(close - open - 1), open + 1);
    }
    /* after ") ": state(3) ... utime(14) stime(15) */
    char *p = close + 2;
    unsigned long long v[13];
    for (int i = 0; i < 13; i++) {
        v[i] = strtoull(p, &p, 10);
        if (i == 0) {
            while (*p == ' ' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')) {
                p++; /* the state letter */
            }
        }
    }
    return (double)(v[11] + v[12]) * 1000.0 / (double)sysconf(_SC_CLK_TCK);
}

/* The server's CPU time: all threads, and its cr-lws thread (-1: none). */
static void server_cpu(int pid, double *all, double *lws)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    *all = stat_cpu_ms(path, NULL, 0);
    *lws = -1;
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') {
            continue;
        }
        char tpath[300], comm[64];
        snprintf(tpath, sizeof tpath, "/proc/%d/task/%s/stat", pid, e->d_name);
        double ms = stat_cpu_ms(tpath, comm, sizeof comm);
        if (ms >= 0 && strcmp(comm, "cr-lws") == 0) {
            *lws = ms;
        }
    }
    if (d) {
        closedir(d);
    }
}

static double self_cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    bench *b = lws_context_user(lws_get_context(wsi));
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        b->connected++;
        b->up++;
        lws_callback_on_writable(wsi);
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        b->failed++;
        b->active--;
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        b->closed++;
        b->up--;
        b->active--;
        break;
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        cpss *c = user;
        unsigned char buf[LWS_PRE + 128];
        int n;
        if (c->state == 0 && b->resume) {
            n = snprintf((char *)buf + LWS_PRE, 128, "{\"op\":\"hello\"}");
            c->state = 1;
        } else if (c->state == 0 || c->state == 2) {
            const char *sum = b->summary ? ",\"summary\":true" : "";
            if (c->state == 2) {
                n = snprintf((char *)buf + LWS_PRE, 128,
                             "{\"op\":\"subscribe\",\"round\":\"%s\",\"since\":%lld%s}", b->round,
                             c->since, sum);
            } else {
                n = snprintf((char *)buf + LWS_PRE, 128,
                             "{\"op\":\"subscribe\",\"round\":\"%s\"%s}", b->round, sum);
            }
            c->state = 3;
        } else {
            break;
        }
        if (lws_write(wsi, buf + LWS_PRE, (size_t)n, LWS_WRITE_TEXT) < n) {
            return -1;
        }
        break;
    }
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        cpss *c = user;
        if (c->state == 1 && len > 17 && memcmp(in, "{\"type\":\"welcome\"", 17) == 0) {
            char text[256];
            size_t n = len < sizeof text - 1 ? len : sizeof text - 1;
            memcpy(text, in, n);
            text[n] = '\0';
            const char *q = strstr(text, "\"seq\":");
            c->since = q ? strtoll(q + 6, NULL, 10) : 0;
            c->state = 2;
            lws_callback_on_writable(wsi);
            break;
        }
        if (len >= 18 && memcmp(in, "{\"type\":\"snapshot\"", 18) == 0) {
            b->snapshots++;
            b->last_snapshot_us = now_us();
            break;
        }
        if (b->record && c->state == 3 && !c->recorded && !b->recorder_taken) {
            c->recorded = b->recorder_taken = true;
        }
        if (c->recorded && len >= 20) {
            const char *q = memmem(in, len < 200 ? len : 200, "\"ts\":", 5);
            if (q) {
                fprintf(b->record, "%lld %zu\n", strtoll(q + 5, NULL, 10), len);
            }
        }
        if (!b->measuring || len < 20) {
            break;
        }
        /* The ts field without a JSON parser: the client must stay cheap. */
        const char *p = in;
        const char *end = p + len;
        for (; p + 5 < end && memcmp(p, "\"ts\":", 5) != 0; p++) {
        }
        if (p + 5 >= end) {
            break;
        }
        int64_t ts = strtoll(p + 5, NULL, 10);
        int64_t lat = now_us() - ts;
        if (lat < 0) {
            lat = 0;
        }
        if (lat > b->max_us) {
            b->max_us = lat;
        }
        int64_t k = lat / BUCKET_US;
        b->hist[k < BUCKETS ? k : BUCKETS - 1]++;
        b->messages++;
        break;
    }
    default:
        break;
    }
    return 0;
}

static double percentile(const bench *b, double q)
{
    int64_t want = (int64_t)((double)b->messages * q), seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
        seen += b->hist[i];
        if (seen > want) {
            return (double)i * BUCKET_US / 1000.0;
        }
    }
    return (double)b->max_us / 1000.0;
}

int main(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof b);
    b.round = "1";
    int seconds = 10, server_pid = 0;
    const char *record = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port") == 0) {
            b.port = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--viewers") == 0) {
            b.want = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--seconds") == 0) {
            seconds = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--round") == 0) {
            b.round = argv[i + 1];
        } else if (strcmp(argv[i], "--resume") == 0) {
            b.resume = atoi(argv[i + 1]) != 0;
        } else if (strcmp(argv[i], "--summary") == 0) {
            b.summary = atoi(argv[i + 1]) != 0;
        } else if (strcmp(argv[i], "--reconnect") == 0) {
            b.reconnect = atoi(argv[i + 1]) != 0;
        } else if (strcmp(argv[i], "--server-pid") == 0) {
            server_pid = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--record") == 0) {
            record = argv[i + 1];
        }
    }
    if (!b.port || b.want <= 0) {
        fprintf(stderr, "usage: relay_load_client --port P --viewers N --seconds S [--round R]\n");
        return 2;
    }
    b.hist = calloc(BUCKETS, sizeof *b.hist);
    if (record && !(b.record = fopen(record, "w"))) {
        fprintf(stderr, "relay_load_client: cannot write %s\n", record);
        return 1;
    }
    double cpu0 = 0, lws0 = 0, self0 = 0, cpu1 = 0, lws1 = 0, self1 = 0;
    static struct lws_protocols protocols[] = {{"bench", callback, sizeof(cpss), 65536, 0, NULL, 0},
                                               {NULL, NULL, 0, 0, 0, NULL, 0}};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.user = &b;
    info.fd_limit_per_thread = (unsigned)b.want + 600;
    lws_set_log_level(LLL_ERR, NULL);
    b.ctx = lws_create_context(&info);
    if (!b.ctx) {
        return 1;
    }
    stop_ctx = b.ctx;
    signal(SIGTERM, on_stop);
    signal(SIGINT, on_stop);
    int64_t start = now_us(), measure_from = 0, stop_at = 0, last_reopen = 0;
    double seconds_done = seconds;
    while (1) {
        /* Open connections a batch at a time so that the listen backlog
         * never overflows. */
        int64_t t_open = now_us();
        bool again = b.reconnect && b.opened >= b.want && t_open - last_reopen >= 200000;
        if (again) {
            last_reopen = t_open; /* a server that is down: try 5 times a second */
        }
        for (int k = 0; k < 100 && (b.opened < b.want || (again && b.active < b.want)) &&
                        b.active - b.up < 500;
             k++) {
            struct lws_client_connect_info ci;
            memset(&ci, 0, sizeof ci);
            ci.context = b.ctx;
            ci.address = "127.0.0.1";
            ci.port = b.port;
            ci.path = "/ws";
            ci.host = "127.0.0.1";
            ci.origin = "127.0.0.1";
            ci.protocol = NULL;
            b.active++;
            if (!lws_client_connect_via_info(&ci)) {
                b.failed++;
                b.active--;
            }
            if (b.opened < b.want) {
                b.opened++;
            }
        }
        lws_service(b.ctx, 0);
        int64_t now = now_us();
        if (!measure_from && b.connected + b.failed >= b.want) {
            fprintf(stderr, "connected %d (failed %d) in %.1f s\n", b.connected, b.failed,
                    (double)(now - start) / 1e6);
            measure_from = now + 1000000; /* let subscriptions settle */
        }
        /* Measure the steady state: after every viewer got its snapshots
         * (none for a second), so the join burst is not counted. */
        if (measure_from && !b.measuring && now >= measure_from &&
            (now - b.last_snapshot_us >= 1000000 || now - measure_from > 30000000)) {
            b.measuring = true;
            stop_at = now + (int64_t)seconds * 1000000;
            if (server_pid) {
                server_cpu(server_pid, &cpu0, &lws0);
            }
            self0 = self_cpu_ms();
            fprintf(stderr, "snapshots %" PRId64 " received, measuring after %.1f s\n", b.snapshots,
                    (double)(now - start) / 1e6);
        }
        if (b.measuring && (now >= stop_at || stop_now)) {
            if (now < stop_at) {
                seconds_done = (double)(now - (stop_at - (int64_t)seconds * 1000000)) / 1e6;
            }
            if (server_pid) {
                server_cpu(server_pid, &cpu1, &lws1);
            }
            self1 = self_cpu_ms();
            break;
        }
        if (stop_now && !b.measuring) {
            break;
        }
        if (!measure_from && now - start > 120000000) {
            fprintf(stderr, "gave up connecting: %d of %d\n", b.connected, b.want);
            break;
        }
    }
    printf("viewers=%d messages=%" PRId64 " msgs_per_s=%.0f p50_ms=%.2f p95_ms=%.2f p99_ms=%.2f "
           "max_ms=%.2f closed=%d open=%d server_cpu_ms=%.0f lws_cpu_ms=%.0f client_cpu_ms=%.0f\n",
           b.connected, b.messages, (double)b.messages / (seconds_done > 0 ? seconds_done : 1), percentile(&b, 0.5),
           percentile(&b, 0.95), percentile(&b, 0.99), (double)b.max_us / 1000.0, b.closed, b.active,
           server_pid ? cpu1 - cpu0 : -1,
           server_pid && lws0 >= 0 ? lws1 - lws0 : -1, self1 - self0);
    if (b.record) {
        fclose(b.record);
    }
    lws_context_destroy(b.ctx);
    free(b.hist);
    return 0;
}
