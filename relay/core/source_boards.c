/* chessrelay relay: live DGT boards as sources of the loop thread (see
 * source_boards.h). */
#include "core/source_boards.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_set.h"
#include "util/log.h"
#include "util/prom.h"

struct cr_board_sources {
    cr_board_sources_config cfg;
    cr_board_set *set;
    cr_board_params *params; /* per-board parameters (Certabo's tables) from the state folder */
};

static void on_link_event(void *data, const cr_feed_event *ev)
{
    cr_board_sources *s = data;
    s->cfg.event(s->cfg.data, ev);
}

static void on_link_state(void *data, cr_board_link *link, cr_board_link_state st)
{
    cr_board_sources *s = data;
    cr_dgt_health h = cr_board_link_health(link);
    const char *err = cr_board_link_error(link);
    cr_log(st == CR_LINK_ACTIVE ? CR_LOG_INFO : CR_LOG_WARN, "%s: board %s %s%s%s",
           cr_board_link_name(link), h.id, cr_board_link_state_name(st),
           st == CR_LINK_LOST && *err ? ": " : "", st == CR_LINK_LOST ? err : "");
    if (s->cfg.state) {
        s->cfg.state(s->cfg.data, cr_board_link_name(link), &h);
    }
}

static void on_usb(void *data, const char *name, bool ok)
{
    (void)data;
    if (ok) {
        cr_log(CR_LOG_INFO, "%s: USB board found", name);
    } else {
        cr_log(CR_LOG_WARN, "%s: cannot use this USB board", name);
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
    if (s && !(s->params = cr_board_params_new(cfg->state_dir, NULL))) {
        free(s);
        s = NULL;
    }
    cr_board_set_config bc = {
        .event = on_link_event, .state = on_link_state, .usb = on_usb, .data = s};
    cr_board_link_config_default(&bc.link);
    bc.link.board.emit_raw = true; /* the journal keeps the bytes as received */
    bc.link.clock = cfg->clock;
    bc.link.clock_data = cfg->data;
    bc.link.kind = cfg->kind;
    bc.link.codec_params = cr_board_params_get;
    bc.link.codec_params_data = s ? s->params : NULL;
    if (!s || !(s->set = cr_board_set_new(base, &bc))) {
        if (s) {
            cr_board_params_free(s->params);
        }
        free(s);
        cr_error_set(err, CR_ENOMEM, 0, 0, "board sources: out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    s->cfg.serials = NULL;
    s->cfg.state_dir = NULL;
    for (int i = 0; i < cfg->serial_count; i++) {
        if (cr_board_set_add_serial(s->set, cfg->serials[i], err)) {
            cr_board_sources_free(s);
            return NULL;
        }
    }
    if (cfg->usb) {
        cr_error uerr;
        int n = cr_board_set_add_usb(s->set, true, &uerr);
        if (n < 0 && cfg->serial_count == 0) {
            *err = uerr;
            cr_board_sources_free(s);
            return NULL;
        }
        if (n < 0) {
            cr_log(CR_LOG_WARN, "%s (serial boards only)", uerr.text);
        } else {
            cr_log(CR_LOG_INFO, "USB: %d board(s) now, %s", n,
                   cr_board_set_usb_hotplug(s->set) ? "hotplug" : "rescanning every second");
        }
    }
    return s;
}

void cr_board_sources_free(cr_board_sources *s)
{
    if (!s) {
        return;
    }
    cr_board_set_free(s->set);
    cr_board_params_free(s->params);
    free(s);
}

int cr_board_sources_count(const cr_board_sources *s)
{
    return s ? cr_board_set_count(s->set) : 0;
}

cr_dgt_health cr_board_sources_health(const cr_board_sources *s, int i, const char **name)
{
    cr_dgt_health h;
    memset(&h, 0, sizeof h);
    h.battery_percent = -1;
    h.delay_ms = -1;
    cr_board_link *link = s ? cr_board_set_link(s->set, i) : NULL;
    if (!link) {
        if (name) {
            *name = "";
        }
        return h;
    }
    if (name) {
        *name = cr_board_link_name(link);
    }
    return cr_board_link_health(link);
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
        json_object_set_new(o, "state", json_string(cr_board_link_state_name(h.state)));
        json_object_set_new(o, "kind", h.identified ? json_string(cr_board_kind_name(h.kind))
                                                    : json_null());
        json_object_set_new(o, "clock", json_boolean(h.has_clock));
        json_object_set_new(o, "bad_frames", json_integer((json_int_t)h.bad_frames));
        json_object_set_new(o, "polled_ms", h.poll_ms > 0 ? json_integer(h.poll_ms) : json_null());
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
        {"chessrelay_board_bad_frames_total", "counter",
         "Frames dropped by the codec (check digits, parity, bad contents)."},
        {"chessrelay_board_has_clock", "gauge", "1 if the kind of board reports a clock (DGT)."},
        {"chessrelay_board_kind", "gauge",
         "Always 1: the kind of board (dgt, millennium, certabo; unknown before it answered)."},
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
            if (k == 10) { /* the info gauge carries the kind as a label */
                fputs("\",kind=\"", f);
                cr_prom_label(f, h.identified ? cr_board_kind_name(h.kind) : "unknown");
            }
            fputs("\"} ", f);
            switch (k) {
            case 0: fprintf(f, "%d\n", h.state == CR_LINK_ACTIVE); break;
            case 1: fprintf(f, "%d\n", (int)h.state); break;
            case 2: fprintf(f, "%.2f\n", h.snapshot_rate); break;
            case 3: fprintf(f, "%" PRId64 "\n", h.delay_ms); break;
            case 4: fprintf(f, "%d\n", h.battery_percent); break;
            case 5: fprintf(f, "%" PRIu32 "\n", h.disconnects); break;
            case 6: fprintf(f, "%" PRIu64 "\n", h.resyncs); break;
            case 7: fprintf(f, "%d\n", h.rotated); break;
            case 8: fprintf(f, "%" PRIu64 "\n", h.bad_frames); break;
            case 9: fprintf(f, "%d\n", h.has_clock); break;
            default: fputs("1\n", f); break;
            }
        }
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}
