/* chessrelay relay: live DGT boards as sources of the loop thread (see
 * source_boards.h). */
#include "source_boards.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dgt_serial.h"
#include "dgt_usb.h"
#include "log.h"
#include "prom.h"

enum { MAX_LINKS = 256 };

struct cr_board_sources {
    struct event_base *base;
    cr_board_sources_config cfg;
    cr_dgt_link_config lcfg;
    cr_dgt_link **links;
    int nlinks, cap;
    cr_usb *usb;
};

static void on_link_event(void *data, const cr_feed_event *ev)
{
    cr_board_sources *s = data;
    s->cfg.event(s->cfg.data, ev);
}

static void on_link_state(void *data, cr_dgt_link *link, cr_dgt_link_state st)
{
    cr_board_sources *s = data;
    cr_dgt_health h = cr_dgt_link_health(link);
    const char *err = cr_dgt_link_error(link);
    cr_log(st == CR_LINK_ACTIVE ? CR_LOG_INFO : CR_LOG_WARN, "%s: board %s %s%s%s",
           cr_dgt_link_name(link), h.id, cr_dgt_link_state_name(st),
           st == CR_LINK_LOST && *err ? ": " : "", st == CR_LINK_LOST ? err : "");
    if (s->cfg.state) {
        s->cfg.state(s->cfg.data, cr_dgt_link_name(link), &h);
    }
}

/* Takes tr (freed on failure). */
static int add_link(cr_board_sources *s, cr_dgt_transport *tr, cr_error *err)
{
    if (s->nlinks == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        cr_dgt_link **n = cap <= MAX_LINKS ? realloc(s->links, (size_t)cap * sizeof *n) : NULL;
        if (!n) {
            if (tr->free) {
                tr->free(tr->impl);
            }
            cr_error_set(err, CR_ENOMEM, 0, 0, "%s: too many boards (at most %d) or out of memory",
                         tr->name, MAX_LINKS);
            return CR_ENOMEM;
        }
        s->links = n;
        s->cap = cap;
    }
    cr_dgt_link_callbacks cbs = {.event = on_link_event, .state = on_link_state, .data = s};
    char name[sizeof tr->name];
    snprintf(name, sizeof name, "%s", tr->name);
    cr_dgt_link *l = cr_dgt_link_new(s->base, tr, &s->lcfg, &cbs);
    if (!l) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "%s: out of memory", name);
        return CR_ENOMEM;
    }
    s->links[s->nlinks++] = l;
    cr_dgt_link_start(l);
    return 0;
}

static void on_usb(void *data, const cr_usb_board_desc *d, bool arrived)
{
    cr_board_sources *s = data;
    if (!arrived) {
        return; /* its link notices on its own and reopens when the board is back */
    }
    for (int i = 0; i < s->nlinks; i++) {
        if (strcmp(cr_dgt_link_name(s->links[i]), d->name) == 0) {
            return;
        }
    }
    cr_dgt_transport tr;
    cr_error err;
    if (cr_usb_transport_new(s->usb, d, &tr) == 0 && add_link(s, &tr, &err) == 0) {
        cr_log(CR_LOG_INFO, "%s: USB board found", d->name);
    } else {
        cr_log(CR_LOG_WARN, "%s: cannot use this USB board", d->name);
    }
}

cr_board_sources *cr_board_sources_start(struct event_base *base, const cr_board_sources_config *cfg,
                                         cr_error *err)
{
    cr_error_clear(err);
    if (!base || !cfg || !cfg->event || cfg->serial_count < 0) {
        cr_error_set(err, CR_EINVAL, 0, 0, "board sources: bad arguments");
        return NULL;
    }
    cr_board_sources *s = calloc(1, sizeof *s);
    if (!s) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "board sources: out of memory");
        return NULL;
    }
    s->base = base;
    s->cfg = *cfg;
    s->cfg.serials = NULL;
    cr_dgt_link_config_default(&s->lcfg);
    s->lcfg.board.emit_raw = true; /* the journal keeps the bytes as received */
    s->lcfg.clock = cfg->clock;
    s->lcfg.clock_data = cfg->data;
    for (int i = 0; i < cfg->serial_count; i++) {
        cr_dgt_transport tr;
        const char *path = cfg->serials[i];
        if (!path || !path[0] || cr_serial_transport_new(base, path, &tr) != 0) {
            cr_error_set(err, CR_EINVAL, 0, 0, "board device '%s': bad path", path ? path : "");
            cr_board_sources_free(s);
            return NULL;
        }
        if (add_link(s, &tr, err)) {
            cr_board_sources_free(s);
            return NULL;
        }
    }
    if (cfg->usb) {
        cr_usb_config ucfg;
        cr_usb_config_default(&ucfg);
        cr_error uerr;
        cr_error_clear(&uerr);
        s->usb = cr_usb_new(base, &ucfg, &uerr);
        if (!s->usb) {
            if (cfg->serial_count == 0) {
                cr_error_set(err, CR_EIO, 0, 0, "USB unavailable: %s", uerr.text);
                cr_board_sources_free(s);
                return NULL;
            }
            cr_log(CR_LOG_WARN, "USB unavailable: %s (serial boards only)", uerr.text);
        } else {
            cr_usb_board_desc d[64];
            int n = cr_usb_scan(s->usb, d, 64);
            for (int i = 0; i < n; i++) {
                on_usb(s, &d[i], true);
            }
            cr_usb_watch(s->usb, on_usb, s);
            cr_log(CR_LOG_INFO, "USB: %d board(s) now, %s", n > 0 ? n : 0,
                   cr_usb_has_hotplug(s->usb) ? "hotplug" : "rescanning every second");
        }
    }
    return s;
}

void cr_board_sources_free(cr_board_sources *s)
{
    if (!s) {
        return;
    }
    for (int i = 0; i < s->nlinks; i++) {
        cr_dgt_link_free(s->links[i]);
    }
    free(s->links);
    cr_usb_free(s->usb); /* after every link using it */
    free(s);
}

int cr_board_sources_count(const cr_board_sources *s)
{
    return s ? s->nlinks : 0;
}

cr_dgt_health cr_board_sources_health(const cr_board_sources *s, int i, const char **name)
{
    cr_dgt_health h;
    memset(&h, 0, sizeof h);
    h.battery_percent = -1;
    h.delay_ms = -1;
    if (!s || i < 0 || i >= s->nlinks) {
        if (name) {
            *name = "";
        }
        return h;
    }
    if (name) {
        *name = cr_dgt_link_name(s->links[i]);
    }
    return cr_dgt_link_health(s->links[i]);
}

char *cr_board_sources_json(const cr_board_sources *s)
{
    json_t *a = json_array();
    if (!a) {
        return NULL;
    }
    for (int i = 0; i < cr_board_sources_count(s); i++) {
        const char *name;
        cr_dgt_health h = cr_board_sources_health(s, i, &name);
        json_t *o = json_object();
        json_object_set_new(o, "device", json_string(name));
        json_object_set_new(o, "board", json_string(h.id));
        json_object_set_new(o, "state", json_string(cr_dgt_link_state_name(h.state)));
        json_object_set_new(o, "identified", json_boolean(h.identified));
        json_object_set_new(o, "snapshots_per_min", json_real(h.snapshot_rate));
        json_object_set_new(o, "delay_ms", h.delay_ms >= 0 ? json_integer(h.delay_ms) : json_null());
        json_object_set_new(o, "battery", h.battery_percent >= 0 ? json_integer(h.battery_percent)
                                                                 : json_null());
        json_object_set_new(o, "disconnects", json_integer(h.disconnects));
        json_object_set_new(o, "resyncs", json_integer((json_int_t)h.resyncs));
        json_object_set_new(o, "rotated", json_boolean(h.rotated));
        json_array_append_new(a, o);
    }
    char *text = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    return text;
}

char *cr_board_sources_metrics(const cr_board_sources *s)
{
    char *out = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&out, &size);
    if (!f) {
        return NULL;
    }
    static const struct {
        const char *name, *type, *help;
    } m[] = {
        {"chessrelay_board_link_up", "gauge", "1 while the board's link is active."},
        {"chessrelay_board_link_state", "gauge",
         "Link state: 0 connecting, 1 active, 2 not responding, 3 lost."},
        {"chessrelay_board_snapshots_per_minute", "gauge", "Position snapshots per minute while active."},
        {"chessrelay_board_delay_ms", "gauge", "Last command to reply delay (-1 unknown)."},
        {"chessrelay_board_battery_percent", "gauge", "Battery (-1 unknown or wired)."},
        {"chessrelay_board_disconnects_total", "counter", "Times the board's link was lost."},
        {"chessrelay_board_resyncs_total", "counter", "Byte stream resynchronisations."},
        {"chessrelay_board_rotated", "gauge", "1 if the board stands the wrong way round."},
    };
    int n = cr_board_sources_count(s);
    for (size_t k = 0; n > 0 && k < sizeof m / sizeof m[0]; k++) {
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", m[k].name, m[k].help, m[k].name, m[k].type);
        for (int i = 0; i < n; i++) {
            const char *name;
            cr_dgt_health h = cr_board_sources_health(s, i, &name);
            fprintf(f, "%s{board=\"", m[k].name);
            cr_prom_label(f, h.id);
            fputs("\",device=\"", f);
            cr_prom_label(f, name);
            fputs("\"} ", f);
            switch (k) {
            case 0: fprintf(f, "%d\n", h.state == CR_LINK_ACTIVE); break;
            case 1: fprintf(f, "%d\n", (int)h.state); break;
            case 2: fprintf(f, "%.2f\n", h.snapshot_rate); break;
            case 3: fprintf(f, "%" PRId64 "\n", h.delay_ms); break;
            case 4: fprintf(f, "%d\n", h.battery_percent); break;
            case 5: fprintf(f, "%" PRIu32 "\n", h.disconnects); break;
            case 6: fprintf(f, "%" PRIu64 "\n", h.resyncs); break;
            default: fprintf(f, "%d\n", h.rotated); break;
            }
        }
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}
