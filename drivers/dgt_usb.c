/* DGT boards over libusb-1.0 on libevent: see dgt_usb.h. */
#include "dgt_usb.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libusb.h>

#define USB_MAX_FDS 32
#define USB_MAX_KNOWN 64
#define USB_IN_TRANSFERS 2
#define USB_IN_SIZE 512 /* 8 FTDI packets */
#define USB_CTRL_TIMEOUT 1000

typedef struct usb_fd {
    int fd;
    struct event *ev;
} usb_fd;

struct cr_usb {
    struct event_base *base;
    libusb_context *ctx;
    cr_usb_config cfg;
    usb_fd fds[USB_MAX_FDS];
    int nfds;
    struct event *timeout_ev;
    struct event *rescan_ev;
    bool hotplug;
    libusb_hotplug_callback_handle hp;
    cr_usb_watch_cb watch;
    void *watch_data;
    cr_usb_board_desc known[USB_MAX_KNOWN];
    int nknown;
};

void cr_usb_config_default(cr_usb_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cdc_acm = true;
    cfg->latency_ms = 4;
}

size_t cr_ftdi_strip_status(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t n = 0;
    for (size_t off = 0; off < len; off += 64) {
        size_t pkt = len - off < 64 ? len - off : 64;
        if (pkt > 2) {
            memcpy(out + n, in + off + 2, pkt - 2);
            n += pkt - 2;
        }
    }
    return n;
}

/*----- libusb on the libevent loop -----*/

static void arm_timeout(cr_usb *u)
{
    if (libusb_pollfds_handle_timeouts(u->ctx)) {
        return; /* timerfd: libusb's timeouts arrive on a pollfd */
    }
    struct timeval tv;
    if (libusb_get_next_timeout(u->ctx, &tv) == 1) {
        evtimer_add(u->timeout_ev, &tv);
    }
}

static void handle_events(cr_usb *u)
{
    struct timeval zero = {0, 0};
    libusb_handle_events_timeout_completed(u->ctx, &zero, NULL);
    arm_timeout(u);
}

static void on_usb_fd(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    handle_events(arg);
}

static void on_usb_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    handle_events(arg);
}

static void fd_added(int fd, short events, void *data)
{
    cr_usb *u = data;
    if (u->nfds >= USB_MAX_FDS) {
        return;
    }
    short what = EV_PERSIST;
    if (events & POLLIN) {
        what |= EV_READ;
    }
    if (events & POLLOUT) {
        what |= EV_WRITE;
    }
    struct event *ev = event_new(u->base, fd, what, on_usb_fd, u);
    if (!ev) {
        return;
    }
    event_add(ev, NULL);
    u->fds[u->nfds].fd = fd;
    u->fds[u->nfds].ev = ev;
    u->nfds++;
}

static void fd_removed(int fd, void *data)
{
    cr_usb *u = data;
    for (int i = 0; i < u->nfds; i++) {
        if (u->fds[i].fd == fd) {
            event_free(u->fds[i].ev);
            u->fds[i] = u->fds[--u->nfds];
            return;
        }
    }
}

static void on_rescan(evutil_socket_t fd, short what, void *arg);

static int on_hotplug(libusb_context *ctx, libusb_device *dev, libusb_hotplug_event event, void *data)
{
    (void)ctx;
    (void)dev;
    (void)event;
    cr_usb *u = data;
    /* Only a few calls are safe in here: rescan from the loop instead. */
    event_active(u->rescan_ev, EV_TIMEOUT, 0);
    return 0;
}

cr_usb *cr_usb_new(struct event_base *base, const cr_usb_config *cfg, cr_error *err)
{
    if (!base) {
        cr_error_set(err, CR_EINVAL, 0, 0, "usb: no event loop");
        return NULL;
    }
    cr_usb *u = calloc(1, sizeof *u);
    if (!u) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "usb: out of memory");
        return NULL;
    }
    u->base = base;
    if (cfg) {
        u->cfg = *cfg;
    } else {
        cr_usb_config_default(&u->cfg);
    }
    if (u->cfg.latency_ms < 1 || u->cfg.latency_ms > 255) {
        u->cfg.latency_ms = 4;
    }
    int rc = libusb_init(&u->ctx);
    if (rc != 0) {
        cr_error_set(err, CR_EIO, 0, 0, "usb: libusb_init: %s", libusb_error_name(rc));
        free(u);
        return NULL;
    }
    u->timeout_ev = evtimer_new(base, on_usb_timeout, u);
    u->rescan_ev = event_new(base, -1, 0, on_rescan, u);
    if (!u->timeout_ev || !u->rescan_ev) {
        cr_error_set(err, CR_ENOMEM, 0, 0, "usb: out of memory");
        cr_usb_free(u);
        return NULL;
    }
    const struct libusb_pollfd **pfds = libusb_get_pollfds(u->ctx);
    if (pfds) {
        for (int i = 0; pfds[i]; i++) {
            fd_added(pfds[i]->fd, pfds[i]->events, u);
        }
        libusb_free_pollfds(pfds);
    }
    libusb_set_pollfd_notifiers(u->ctx, fd_added, fd_removed, u);
    return u;
}

void cr_usb_free(cr_usb *u)
{
    if (!u) {
        return;
    }
    if (u->hotplug) {
        libusb_hotplug_deregister_callback(u->ctx, u->hp);
    }
    if (u->ctx) {
        libusb_set_pollfd_notifiers(u->ctx, NULL, NULL, NULL);
    }
    for (int i = 0; i < u->nfds; i++) {
        event_free(u->fds[i].ev);
    }
    if (u->timeout_ev) {
        event_free(u->timeout_ev);
    }
    if (u->rescan_ev) {
        event_free(u->rescan_ev);
    }
    if (u->ctx) {
        libusb_exit(u->ctx);
    }
    free(u);
}

bool cr_usb_has_hotplug(const cr_usb *u)
{
    return u && u->hotplug;
}

/*----- Finding boards -----*/

static bool has_cdc(libusb_device *dev)
{
    struct libusb_config_descriptor *cfg = NULL;
    if (libusb_get_active_config_descriptor(dev, &cfg) != 0 || !cfg) {
        return false;
    }
    bool found = false;
    for (int i = 0; i < cfg->bNumInterfaces && !found; i++) {
        const struct libusb_interface *it = &cfg->interface[i];
        for (int a = 0; a < it->num_altsetting; a++) {
            if (it->altsetting[a].bInterfaceClass == LIBUSB_CLASS_COMM &&
                it->altsetting[a].bInterfaceSubClass == 0x02) {
                found = true;
            }
        }
    }
    libusb_free_config_descriptor(cfg);
    return found;
}

/* Fills d if dev looks like a board. */
static bool describe(const cr_usb *u, libusb_device *dev, cr_usb_board_desc *d)
{
    struct libusb_device_descriptor dd;
    if (libusb_get_device_descriptor(dev, &dd) != 0) {
        return false;
    }
    bool match = dd.idVendor == CR_USB_VID_FTDI && dd.idProduct == CR_USB_PID_FT232;
    for (int i = 0; i < u->cfg.n_extra && !match; i++) {
        match = dd.idVendor == u->cfg.extra_ids[i][0] && dd.idProduct == u->cfg.extra_ids[i][1];
    }
    bool cdc = false;
    if (!match || dd.idVendor != CR_USB_VID_FTDI) {
        cdc = (u->cfg.cdc_acm || match) && has_cdc(dev);
        match = match || cdc;
    }
    if (!match) {
        return false;
    }
    memset(d, 0, sizeof *d);
    d->vid = dd.idVendor;
    d->pid = dd.idProduct;
    d->ftdi = !cdc;
    d->bus = libusb_get_bus_number(dev);
    int n = libusb_get_port_numbers(dev, d->ports, (int)sizeof d->ports);
    d->nports = n > 0 ? n : 0;
    int k = snprintf(d->name, sizeof d->name, "usb:%u-", d->bus);
    for (int i = 0; i < d->nports && k > 0 && (size_t)k < sizeof d->name; i++) {
        k += snprintf(d->name + k, sizeof d->name - (size_t)k, i ? ".%u" : "%u", d->ports[i]);
    }
    if (d->nports == 0 && k > 0 && (size_t)k < sizeof d->name) {
        snprintf(d->name + k, sizeof d->name - (size_t)k, "a%u", libusb_get_device_address(dev));
    }
    return true;
}

int cr_usb_scan(cr_usb *u, cr_usb_board_desc *out, int max)
{
    if (!u || (!out && max > 0)) {
        return CR_EINVAL;
    }
    libusb_device **list = NULL;
    ssize_t n = libusb_get_device_list(u->ctx, &list);
    if (n < 0) {
        return CR_EIO;
    }
    int k = 0;
    for (ssize_t i = 0; i < n && k < max; i++) {
        if (describe(u, list[i], &out[k])) {
            k++;
        }
    }
    libusb_free_device_list(list, 1);
    return k;
}

static void on_rescan(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    cr_usb *u = arg;
    cr_usb_board_desc now[USB_MAX_KNOWN];
    int n = cr_usb_scan(u, now, USB_MAX_KNOWN);
    if (n < 0) {
        n = 0;
    }
    for (int i = 0; i < u->nknown; i++) {
        bool still = false;
        for (int j = 0; j < n && !still; j++) {
            still = strcmp(u->known[i].name, now[j].name) == 0;
        }
        if (!still && u->watch) {
            u->watch(u->watch_data, &u->known[i], false);
        }
    }
    for (int j = 0; j < n; j++) {
        bool old = false;
        for (int i = 0; i < u->nknown && !old; i++) {
            old = strcmp(u->known[i].name, now[j].name) == 0;
        }
        if (!old && u->watch) {
            u->watch(u->watch_data, &now[j], true);
        }
    }
    memcpy(u->known, now, (size_t)n * sizeof now[0]);
    u->nknown = n;
    if (!u->hotplug) {
        struct timeval tv = {1, 0};
        event_add(u->rescan_ev, &tv);
    }
}

int cr_usb_watch(cr_usb *u, cr_usb_watch_cb cb, void *data)
{
    if (!u || !cb) {
        return CR_EINVAL;
    }
    u->watch = cb;
    u->watch_data = data;
    int n = cr_usb_scan(u, u->known, USB_MAX_KNOWN);
    u->nknown = n > 0 ? n : 0;
    if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG) &&
        libusb_hotplug_register_callback(
            u->ctx, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED | LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, 0,
            LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY, on_hotplug, u,
            &u->hp) == LIBUSB_SUCCESS) {
        u->hotplug = true;
        return 0;
    }
    struct timeval tv = {1, 0};
    event_add(u->rescan_ev, &tv);
    return 0;
}

/*----- One board: the transport -----*/

typedef struct usb_impl {
    cr_usb *u;
    cr_usb_board_desc d;
    cr_board_link *link;
    libusb_device_handle *h;
    int ifaces[2];
    int nifaces;
    int comm_iface;
    uint8_t ep_in, ep_out;
    struct libusb_transfer *in[USB_IN_TRANSFERS];
    uint8_t inbuf[USB_IN_TRANSFERS][USB_IN_SIZE];
    bool in_active[USB_IN_TRANSFERS];
    int writes;             /* OUT transfers in flight */
    struct libusb_transfer *outs[32];
    bool closing;
    bool stalled;
    int stalls;
    struct event *deferred; /* work that may not run inside libusb callbacks */
} usb_impl;

static bool same_port(const cr_usb_board_desc *a, const cr_usb_board_desc *b)
{
    return strcmp(a->name, b->name) == 0;
}

static int in_flight(const usb_impl *s)
{
    int n = s->writes;
    for (int i = 0; i < USB_IN_TRANSFERS; i++) {
        n += s->in_active[i];
    }
    return n;
}

static void release_handle(usb_impl *s)
{
    if (!s->h) {
        return;
    }
    for (int i = 0; i < s->nifaces; i++) {
        libusb_release_interface(s->h, s->ifaces[i]);
    }
    libusb_close(s->h);
    s->h = NULL;
    s->nifaces = 0;
}

static void on_in(struct libusb_transfer *t);

static int submit_in(usb_impl *s, int i)
{
    libusb_fill_bulk_transfer(s->in[i], s->h, s->ep_in, s->inbuf[i], USB_IN_SIZE, on_in, s, 0);
    int rc = libusb_submit_transfer(s->in[i]);
    s->in_active[i] = rc == 0;
    return rc;
}

static void on_deferred(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    usb_impl *s = arg;
    if (s->closing) {
        if (in_flight(s) == 0) {
            release_handle(s);
        }
        return;
    }
    if (s->stalled && s->h) {
        s->stalled = false;
        libusb_clear_halt(s->h, s->ep_in);
        for (int i = 0; i < USB_IN_TRANSFERS; i++) {
            if (!s->in_active[i] && submit_in(s, i) != 0) {
                cr_board_link_transport_error(s->link, "usb: cannot restart reading after a stall");
                return;
            }
        }
    }
}

static void on_in(struct libusb_transfer *t)
{
    usb_impl *s = t->user_data;
    int i = t == s->in[0] ? 0 : 1;
    s->in_active[i] = false;
    if (s->closing) {
        if (in_flight(s) == 0) {
            event_active(s->deferred, EV_TIMEOUT, 0);
        }
        return;
    }
    switch (t->status) {
    case LIBUSB_TRANSFER_COMPLETED: {
        s->stalls = 0;
        uint8_t data[USB_IN_SIZE];
        size_t n;
        size_t len = t->actual_length > 0 ? (size_t)t->actual_length : 0;
        if (s->d.ftdi) {
            n = cr_ftdi_strip_status(t->buffer, len, data);
        } else {
            memcpy(data, t->buffer, len);
            n = len;
        }
        if (n > 0) {
            cr_board_link_input(s->link, data, n);
        }
        if (s->closing) { /* the link gave up on us while handling the bytes */
            if (in_flight(s) == 0) {
                event_active(s->deferred, EV_TIMEOUT, 0);
            }
            return;
        }
        if (submit_in(s, i) != 0) {
            cr_board_link_transport_error(s->link, "usb: cannot resubmit a read (unplugged?)");
        }
        return;
    }
    case LIBUSB_TRANSFER_STALL:
        if (++s->stalls > 5) {
            cr_board_link_transport_error(s->link, "usb: bulk IN endpoint keeps stalling");
            return;
        }
        s->stalled = true;
        event_active(s->deferred, EV_TIMEOUT, 0);
        return;
    case LIBUSB_TRANSFER_NO_DEVICE:
        cr_board_link_transport_error(s->link, "usb: board unplugged");
        return;
    case LIBUSB_TRANSFER_CANCELLED:
        return;
    default:
        /* ERROR, TIMED_OUT, OVERFLOW: try again a few times. */
        if (++s->stalls > 5 || submit_in(s, i) != 0) {
            cr_board_link_transport_error(s->link, "usb: read failed");
        }
        return;
    }
}

static void on_out(struct libusb_transfer *t)
{
    usb_impl *s = t->user_data;
    for (int i = 0; i < s->writes; i++) {
        if (s->outs[i] == t) {
            s->outs[i] = s->outs[s->writes - 1];
            break;
        }
    }
    s->writes--;
    bool gone = t->status == LIBUSB_TRANSFER_NO_DEVICE;
    free(t->buffer);
    libusb_free_transfer(t);
    if (s->closing) {
        if (in_flight(s) == 0) {
            event_active(s->deferred, EV_TIMEOUT, 0);
        }
        return;
    }
    if (gone) {
        cr_board_link_transport_error(s->link, "usb: board unplugged");
    }
}

static int ctrl(libusb_device_handle *h, uint8_t type, uint8_t req, uint16_t value, uint16_t index,
                unsigned char *data, uint16_t len)
{
    int rc = libusb_control_transfer(h, type, req, value, index, data, len, USB_CTRL_TIMEOUT);
    return rc < 0 ? rc : 0;
}

static int ftdi_bring_up(usb_impl *s)
{
    libusb_device_handle *h = s->h;
    const uint8_t out = LIBUSB_REQUEST_TYPE_VENDOR | LIBUSB_RECIPIENT_DEVICE | LIBUSB_ENDPOINT_OUT;
    int rc = 0;
    rc = rc ? rc : ctrl(h, out, CR_FTDI_RESET, 0, 0, NULL, 0);          /* reset SIO */
    rc = rc ? rc : ctrl(h, out, CR_FTDI_RESET, 1, 0, NULL, 0);          /* purge RX */
    rc = rc ? rc : ctrl(h, out, CR_FTDI_RESET, 2, 0, NULL, 0);          /* purge TX */
    rc = rc ? rc : ctrl(h, out, CR_FTDI_SET_BAUD_RATE, CR_FTDI_BAUD_9600, 0, NULL, 0);
    rc = rc ? rc : ctrl(h, out, CR_FTDI_SET_DATA, CR_FTDI_DATA_8N1, 0, NULL, 0);
    rc = rc ? rc : ctrl(h, out, CR_FTDI_SET_FLOW_CTRL, 0, 0, NULL, 0);
    rc = rc ? rc : ctrl(h, out, CR_FTDI_MODEM_CTRL, 0x0101, 0, NULL, 0); /* DTR on */
    rc = rc ? rc : ctrl(h, out, CR_FTDI_MODEM_CTRL, 0x0202, 0, NULL, 0); /* RTS on */
    rc = rc ? rc : ctrl(h, out, CR_FTDI_SET_LATENCY_TIMER, (uint16_t)s->u->cfg.latency_ms, 0, NULL, 0);
    return rc;
}

/* CDC-ACM: find the interfaces and bulk endpoints, set 9600 8N1 and DTR|RTS. */
static int cdc_bring_up(usb_impl *s, libusb_device *dev)
{
    struct libusb_config_descriptor *cfg = NULL;
    if (libusb_get_active_config_descriptor(dev, &cfg) != 0 || !cfg) {
        return LIBUSB_ERROR_IO;
    }
    int comm = -1, data = -1;
    uint8_t ep_in = 0, ep_out = 0;
    for (int i = 0; i < cfg->bNumInterfaces; i++) {
        const struct libusb_interface_descriptor *a = &cfg->interface[i].altsetting[0];
        if (a->bInterfaceClass == LIBUSB_CLASS_COMM && comm < 0) {
            comm = a->bInterfaceNumber;
        } else if (a->bInterfaceClass == LIBUSB_CLASS_DATA && data < 0) {
            data = a->bInterfaceNumber;
            for (int e = 0; e < a->bNumEndpoints; e++) {
                const struct libusb_endpoint_descriptor *ep = &a->endpoint[e];
                if ((ep->bmAttributes & 0x03) != LIBUSB_TRANSFER_TYPE_BULK) {
                    continue;
                }
                if (ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) {
                    ep_in = ep->bEndpointAddress;
                } else {
                    ep_out = ep->bEndpointAddress;
                }
            }
        }
    }
    libusb_free_config_descriptor(cfg);
    if (comm < 0 || data < 0 || !ep_in || !ep_out) {
        return LIBUSB_ERROR_NOT_FOUND;
    }
    int ifs[2] = {comm, data};
    for (int i = 0; i < 2; i++) {
        if (libusb_kernel_driver_active(s->h, ifs[i]) == 1) {
            libusb_detach_kernel_driver(s->h, ifs[i]);
        }
        int rc = libusb_claim_interface(s->h, ifs[i]);
        if (rc != 0) {
            return rc;
        }
        s->ifaces[s->nifaces++] = ifs[i];
    }
    s->comm_iface = comm;
    s->ep_in = ep_in;
    s->ep_out = ep_out;
    unsigned char coding[7] = {0x80, 0x25, 0x00, 0x00, 0, 0, 8}; /* 9600, 1 stop, no parity, 8 bits */
    const uint8_t out = LIBUSB_REQUEST_TYPE_CLASS | LIBUSB_RECIPIENT_INTERFACE | LIBUSB_ENDPOINT_OUT;
    int rc = ctrl(s->h, out, 0x20, 0, (uint16_t)comm, coding, sizeof coding);
    return rc ? rc : ctrl(s->h, out, 0x22, 0x03, (uint16_t)comm, NULL, 0);
}

static void usb_close(void *impl)
{
    usb_impl *s = impl;
    if (!s->h) {
        return;
    }
    s->closing = true;
    for (int i = 0; i < USB_IN_TRANSFERS; i++) {
        if (s->in_active[i]) {
            libusb_cancel_transfer(s->in[i]);
        }
    }
    for (int i = 0; i < s->writes; i++) {
        libusb_cancel_transfer(s->outs[i]);
    }
    if (in_flight(s) == 0) {
        event_active(s->deferred, EV_TIMEOUT, 0);
    }
}

static int usb_open(void *impl, cr_board_link *link)
{
    usb_impl *s = impl;
    s->link = link;
    if (s->h) {
        return CR_EIO; /* the previous handle is still being released */
    }
    libusb_device **list = NULL;
    ssize_t n = libusb_get_device_list(s->u->ctx, &list);
    if (n < 0) {
        return CR_EIO;
    }
    libusb_device *dev = NULL;
    for (ssize_t i = 0; i < n && !dev; i++) {
        cr_usb_board_desc d;
        if (describe(s->u, list[i], &d) && same_port(&d, &s->d)) {
            dev = list[i];
            s->d.ftdi = d.ftdi;
        }
    }
    int rc = dev ? libusb_open(dev, &s->h) : LIBUSB_ERROR_NO_DEVICE;
    if (rc != 0) {
        s->h = NULL;
        libusb_free_device_list(list, 1);
        return CR_EIO;
    }
    s->closing = false;
    s->stalled = false;
    s->stalls = 0;
    s->nifaces = 0;
    if (s->d.ftdi) {
        if (libusb_kernel_driver_active(s->h, 0) == 1) {
            libusb_detach_kernel_driver(s->h, 0);
        }
        rc = libusb_claim_interface(s->h, 0);
        if (rc == 0) {
            s->ifaces[s->nifaces++] = 0;
            s->ep_in = 0x81;
            s->ep_out = 0x02;
            rc = ftdi_bring_up(s);
        }
    } else {
        rc = cdc_bring_up(s, dev);
    }
    libusb_free_device_list(list, 1);
    for (int i = 0; rc == 0 && i < USB_IN_TRANSFERS; i++) {
        rc = submit_in(s, i);
    }
    if (rc != 0) {
        s->closing = true;
        for (int i = 0; i < USB_IN_TRANSFERS; i++) {
            if (s->in_active[i]) {
                libusb_cancel_transfer(s->in[i]);
            }
        }
        if (in_flight(s) == 0) {
            release_handle(s);
        }
        return CR_EIO;
    }
    return 0;
}

static int usb_write(void *impl, const uint8_t *bytes, size_t len)
{
    usb_impl *s = impl;
    if (!s->h || s->closing) {
        return CR_EIO;
    }
    if (s->writes >= (int)(sizeof s->outs / sizeof s->outs[0])) {
        return 0; /* the board is not taking bytes: try again later */
    }
    struct libusb_transfer *t = libusb_alloc_transfer(0);
    uint8_t *buf = malloc(len);
    if (!t || !buf) {
        libusb_free_transfer(t);
        free(buf);
        return 0; /* try again later */
    }
    memcpy(buf, bytes, len);
    libusb_fill_bulk_transfer(t, s->h, s->ep_out, buf, (int)len, on_out, s, USB_CTRL_TIMEOUT);
    int rc = libusb_submit_transfer(t);
    if (rc != 0) {
        libusb_free_transfer(t);
        free(buf);
        return rc == LIBUSB_ERROR_NO_DEVICE ? CR_EIO : 0;
    }
    s->outs[s->writes++] = t;
    return (int)len;
}

static void usb_free(void *impl)
{
    usb_impl *s = impl;
    if (!s) {
        return;
    }
    usb_close(s);
    /* Let the cancellations complete before the handle goes (bounded). */
    for (int i = 0; i < 100 && in_flight(s) > 0; i++) {
        struct timeval tv = {0, 10000};
        libusb_handle_events_timeout_completed(s->u->ctx, &tv, NULL);
    }
    release_handle(s);
    for (int i = 0; i < USB_IN_TRANSFERS; i++) {
        libusb_free_transfer(s->in[i]);
    }
    if (s->deferred) {
        event_free(s->deferred);
    }
    free(s);
}

int cr_usb_transport_new(cr_usb *u, const cr_usb_board_desc *d, cr_dgt_transport *out)
{
    if (!u || !d || !out) {
        return CR_EINVAL;
    }
    usb_impl *s = calloc(1, sizeof *s);
    if (!s) {
        return CR_ENOMEM;
    }
    s->u = u;
    s->d = *d;
    s->deferred = event_new(u->base, -1, 0, on_deferred, s);
    for (int i = 0; i < USB_IN_TRANSFERS; i++) {
        s->in[i] = libusb_alloc_transfer(0);
    }
    if (!s->deferred || !s->in[0] || !s->in[1]) {
        usb_free(s);
        return CR_ENOMEM;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", d->name);
    /* Fallback id from the port path: usb-1-2.3 */
    size_t k = 0;
    for (const char *c = d->name; *c && k < CR_BOARD_ID_MAX; c++) {
        out->fallback_id[k++] = *c == ':' ? '-' : *c;
    }
    out->fallback_id[k] = '\0';
    out->impl = s;
    out->open = usb_open;
    out->write = usb_write;
    out->close = usb_close;
    out->free = usb_free;
    return 0;
}
