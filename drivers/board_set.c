/* chessrelay drivers: a set of board links (see board_set.h). */
#include "board_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_usbtty.h"
#include "serial.h"
#include "dgt_usb.h"

enum { DEFAULT_MAX = 256, USB_SCAN_MAX = 64 };

struct cr_board_set {
    struct event_base *base;
    cr_board_set_config cfg;
    cr_board_link **links;
    int nlinks, cap;
    cr_usb *usb;
};

static void on_event(void *data, const cr_feed_event *ev)
{
    cr_board_set *s = data;
    if (s->cfg.event) {
        s->cfg.event(s->cfg.data, ev);
    }
}

static void on_state(void *data, cr_board_link *link, cr_board_link_state st)
{
    cr_board_set *s = data;
    if (s->cfg.state) {
        s->cfg.state(s->cfg.data, link, st);
    }
}

cr_board_set *cr_board_set_new(struct event_base *base, const cr_board_set_config *cfg)
{
    cr_board_set *s = base && cfg ? calloc(1, sizeof *s) : NULL;
    if (s) {
        s->base = base;
        s->cfg = *cfg;
        if (s->cfg.max_links <= 0) {
            s->cfg.max_links = DEFAULT_MAX;
        }
    }
    return s;
}

void cr_board_set_free(cr_board_set *s)
{
    if (!s) {
        return;
    }
    for (int i = 0; i < s->nlinks; i++) {
        cr_board_link_free(s->links[i]);
    }
    free(s->links);
    cr_usb_free(s->usb); /* after every link using it */
    free(s);
}

/* Takes tr (freed on failure). kind: the link's kind of board, or -1 for
 * the set's (USB links: DGT). */
static int add_link_kind(cr_board_set *s, cr_dgt_transport *tr, int kind, cr_error *err)
{
    if (s->nlinks == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        if (cap > s->cfg.max_links) {
            cap = s->cfg.max_links;
        }
        cr_board_link **n = cap > s->nlinks ? realloc(s->links, (size_t)cap * sizeof *n) : NULL;
        if (!n) {
            if (tr->free) {
                tr->free(tr->impl);
            }
            return cr_error_set(err, CR_ENOMEM, 0, 0,
                                "%s: too many boards (at most %d) or out of memory", tr->name,
                                s->cfg.max_links);
        }
        s->links = n;
        s->cap = cap;
    }
    cr_board_link_callbacks cbs = {.event = on_event, .state = on_state, .data = s};
    char name[sizeof tr->name];
    snprintf(name, sizeof name, "%s", tr->name);
    cr_board_link_config lc = s->cfg.link;
    if (kind >= 0) {
        lc.kind = (cr_board_kind)kind;
    } else if (!tr->settings) {
        lc.kind = CR_BOARD_DGT; /* the USB transport speaks to DGT boards only (dgt_usb.h) */
    }
    cr_board_link *l = cr_board_link_new(s->base, tr, &lc, &cbs);
    if (!l) {
        return cr_error_set(err, CR_ENOMEM, 0, 0, "%s: out of memory", name);
    }
    s->links[s->nlinks++] = l;
    cr_board_link_start(l);
    return 0;
}

static int add_link(cr_board_set *s, cr_dgt_transport *tr, cr_error *err)
{
    return add_link_kind(s, tr, -1, err);
}

int cr_board_set_add_serial(cr_board_set *s, const char *path, cr_error *err)
{
    cr_dgt_transport tr;
    if (!path || !path[0] || cr_serial_transport_new(s->base, path, &tr) != 0) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "board device '%s': bad path", path ? path : "");
    }
    return add_link(s, &tr, err);
}

static void on_usb(void *data, const cr_usb_board_desc *d, bool arrived)
{
    cr_board_set *s = data;
    if (!arrived) {
        return; /* its link notices on its own and reopens when the board is back */
    }
    for (int i = 0; i < s->nlinks; i++) {
        if (strcmp(cr_board_link_name(s->links[i]), d->name) == 0) {
            return;
        }
    }
    cr_dgt_transport tr;
    cr_error err;
    bool ok = cr_usb_transport_new(s->usb, d, &tr) == 0 && add_link(s, &tr, &err) == 0;
    if (s->cfg.usb) {
        s->cfg.usb(s->cfg.data, d->name, ok);
    }
}

int cr_board_set_add_usb(cr_board_set *s, bool watch, cr_error *err)
{
    if (s->usb) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "USB: opened already");
    }
    /* Boards the kernel made serial ports of (Certabo): probed for the kind. */
    cr_board_usb_tty tty[USB_SCAN_MAX];
    int nt = cr_board_usb_ttys("", tty, USB_SCAN_MAX), ntty = 0;
    for (int i = 0; i < nt; i++) {
        char name[sizeof tty[i].dev + 8];
        snprintf(name, sizeof name, "serial:%.95s", tty[i].dev);
        bool have = false;
        for (int k = 0; k < s->nlinks && !have; k++) {
            have = strcmp(cr_board_link_name(s->links[k]), name) == 0;
        }
        cr_dgt_transport tr;
        cr_error terr;
        if (!have && cr_serial_transport_new(s->base, tty[i].dev, &tr) == 0 &&
            add_link_kind(s, &tr, CR_BOARD_AUTO, &terr) == 0) {
            ntty++;
        }
    }
    cr_usb_config ucfg;
    cr_usb_config_default(&ucfg);
    cr_error uerr;
    cr_error_clear(&uerr);
    s->usb = cr_usb_new(s->base, &ucfg, &uerr);
    if (!s->usb) {
        if (ntty > 0) {
            return ntty;
        }
        return cr_error_set(err, CR_EIO, 0, 0, "USB unavailable: %s", uerr.text);
    }
    cr_usb_board_desc d[USB_SCAN_MAX];
    int n = cr_usb_scan(s->usb, d, USB_SCAN_MAX);
    for (int i = 0; i < n; i++) {
        on_usb(s, &d[i], true);
    }
    if (watch) {
        cr_usb_watch(s->usb, on_usb, s);
    }
    return (n > 0 ? n : 0) + ntty;
}

bool cr_board_set_usb_hotplug(const cr_board_set *s)
{
    return s && s->usb && cr_usb_has_hotplug(s->usb);
}

int cr_board_set_count(const cr_board_set *s)
{
    return s ? s->nlinks : 0;
}

cr_board_link *cr_board_set_link(const cr_board_set *s, int i)
{
    return s && i >= 0 && i < s->nlinks ? s->links[i] : NULL;
}
