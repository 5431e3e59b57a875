/* Tests of the libusb transport (drivers/dgt_usb.h) with libusb replaced at
 * link time (-Wl,--wrap=libusb_..., see test_usb.cmake): a fake FT232 whose
 * bulk-IN packets the test writes by hand or from an emulated board
 * (drivers/dgt_emu.h). Covers the FTDI bring-up control transfers, the
 * status bytes at every 64-byte boundary, short reads, a stall, an unplug and
 * a replug. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libusb.h>

#include "dgt_emu.h"
#include "board_link.h"
#include "dgt_usb.h"
#include "test_squares.h"

/*----- The fake libusb -----*/

typedef struct ctrl_rec {
    uint8_t type, req;
    uint16_t value, index;
} ctrl_rec;

static struct {
    bool plugged;
    int opens, closes, detaches, claims, releases, clear_halts, handle_calls;
    ctrl_rec ctrl[64];
    int nctrl;
    struct libusb_transfer *pending[16]; /* submitted, not completed */
    int npending;
    struct libusb_transfer *cancelled[16];
    int ncancelled;
    libusb_hotplug_callback_fn hotplug_cb;
    void *hotplug_data;
    int pipefd[2];
    bool fail_submit;
    bool cdc;                 /* the device is a CDC-ACM board instead of an FT232 */
    uint8_t ctrl_data[64][8]; /* data stage of each control transfer */
} fake;

/* A CDC-ACM configuration: communication interface 0, data interface 1 with
 * bulk IN 0x83 and bulk OUT 0x04. */
static const struct libusb_endpoint_descriptor cdc_eps[2] = {
    {.bLength = 7, .bDescriptorType = LIBUSB_DT_ENDPOINT, .bEndpointAddress = 0x83,
     .bmAttributes = LIBUSB_TRANSFER_TYPE_BULK, .wMaxPacketSize = 64},
    {.bLength = 7, .bDescriptorType = LIBUSB_DT_ENDPOINT, .bEndpointAddress = 0x04,
     .bmAttributes = LIBUSB_TRANSFER_TYPE_BULK, .wMaxPacketSize = 64},
};
static const struct libusb_interface_descriptor cdc_alts[2] = {
    {.bInterfaceNumber = 0, .bInterfaceClass = LIBUSB_CLASS_COMM, .bInterfaceSubClass = 0x02},
    {.bInterfaceNumber = 1, .bInterfaceClass = LIBUSB_CLASS_DATA, .bNumEndpoints = 2, .endpoint = cdc_eps},
};
static const struct libusb_interface cdc_ifaces[2] = {
    {.altsetting = &cdc_alts[0], .num_altsetting = 1},
    {.altsetting = &cdc_alts[1], .num_altsetting = 1},
};
static struct libusb_config_descriptor cdc_config = {.bNumInterfaces = 2, .interface = cdc_ifaces};

static char fake_ctx_obj, fake_dev_obj, fake_handle_obj;
static libusb_device *const fake_dev = (libusb_device *)&fake_dev_obj;
static libusb_device_handle *const fake_handle = (libusb_device_handle *)&fake_handle_obj;

int __wrap_libusb_init(libusb_context **ctx);
int __wrap_libusb_init(libusb_context **ctx)
{
    *ctx = (libusb_context *)&fake_ctx_obj;
    return 0;
}

void __wrap_libusb_exit(libusb_context *ctx);
void __wrap_libusb_exit(libusb_context *ctx)
{
    assert_ptr_equal(ctx, &fake_ctx_obj);
}

static struct libusb_pollfd fake_pollfd;
static const struct libusb_pollfd *fake_pollfds[2];

const struct libusb_pollfd **__wrap_libusb_get_pollfds(libusb_context *ctx);
const struct libusb_pollfd **__wrap_libusb_get_pollfds(libusb_context *ctx)
{
    (void)ctx;
    fake_pollfd.fd = fake.pipefd[0];
    fake_pollfd.events = POLLIN;
    fake_pollfds[0] = &fake_pollfd;
    fake_pollfds[1] = NULL;
    return fake_pollfds;
}

void __wrap_libusb_free_pollfds(const struct libusb_pollfd **p);
void __wrap_libusb_free_pollfds(const struct libusb_pollfd **p)
{
    assert_ptr_equal(p, fake_pollfds);
}

void __wrap_libusb_set_pollfd_notifiers(libusb_context *ctx, libusb_pollfd_added_cb a,
                                        libusb_pollfd_removed_cb r, void *data);
void __wrap_libusb_set_pollfd_notifiers(libusb_context *ctx, libusb_pollfd_added_cb a,
                                        libusb_pollfd_removed_cb r, void *data)
{
    (void)ctx;
    (void)a;
    (void)r;
    (void)data;
}

int __wrap_libusb_pollfds_handle_timeouts(libusb_context *ctx);
int __wrap_libusb_pollfds_handle_timeouts(libusb_context *ctx)
{
    (void)ctx;
    return 1;
}

int __wrap_libusb_get_next_timeout(libusb_context *ctx, struct timeval *tv);
int __wrap_libusb_get_next_timeout(libusb_context *ctx, struct timeval *tv)
{
    (void)ctx;
    (void)tv;
    return 0;
}

/* Event handling delivers the cancellations, as libusb would. */
int __wrap_libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv, int *done);
int __wrap_libusb_handle_events_timeout_completed(libusb_context *ctx, struct timeval *tv, int *done)
{
    (void)ctx;
    (void)tv;
    (void)done;
    fake.handle_calls++;
    while (fake.ncancelled > 0) {
        struct libusb_transfer *t = fake.cancelled[--fake.ncancelled];
        t->status = LIBUSB_TRANSFER_CANCELLED;
        t->actual_length = 0;
        t->callback(t);
    }
    return 0;
}

ssize_t __wrap_libusb_get_device_list(libusb_context *ctx, libusb_device ***list);
ssize_t __wrap_libusb_get_device_list(libusb_context *ctx, libusb_device ***list)
{
    (void)ctx;
    libusb_device **l = calloc(2, sizeof *l);
    assert_non_null(l);
    if (fake.plugged) {
        l[0] = fake_dev;
    }
    *list = l;
    return fake.plugged ? 1 : 0;
}

void __wrap_libusb_free_device_list(libusb_device **list, int unref);
void __wrap_libusb_free_device_list(libusb_device **list, int unref)
{
    (void)unref;
    free(list);
}

int __wrap_libusb_get_device_descriptor(libusb_device *dev, struct libusb_device_descriptor *d);
int __wrap_libusb_get_device_descriptor(libusb_device *dev, struct libusb_device_descriptor *d)
{
    assert_ptr_equal(dev, fake_dev);
    memset(d, 0, sizeof *d);
    d->idVendor = fake.cdc ? 0x045b : 0x0403;
    d->idProduct = fake.cdc ? 0x1234 : 0x6001;
    d->bcdDevice = 0x0400;
    return 0;
}

int __wrap_libusb_get_active_config_descriptor(libusb_device *dev, struct libusb_config_descriptor **c);
int __wrap_libusb_get_active_config_descriptor(libusb_device *dev, struct libusb_config_descriptor **c)
{
    (void)dev;
    if (fake.cdc) {
        *c = &cdc_config;
        return 0;
    }
    *c = NULL;
    return LIBUSB_ERROR_NOT_FOUND; /* an FT232 is no CDC device */
}

void __wrap_libusb_free_config_descriptor(struct libusb_config_descriptor *c);
void __wrap_libusb_free_config_descriptor(struct libusb_config_descriptor *c)
{
    assert_true(c == NULL || c == &cdc_config);
}

uint8_t __wrap_libusb_get_bus_number(libusb_device *dev);
uint8_t __wrap_libusb_get_bus_number(libusb_device *dev)
{
    (void)dev;
    return 1;
}

int __wrap_libusb_get_port_numbers(libusb_device *dev, uint8_t *ports, int len);
int __wrap_libusb_get_port_numbers(libusb_device *dev, uint8_t *ports, int len)
{
    (void)dev;
    assert_true(len >= 2);
    ports[0] = 2;
    ports[1] = 3;
    return 2;
}

uint8_t __wrap_libusb_get_device_address(libusb_device *dev);
uint8_t __wrap_libusb_get_device_address(libusb_device *dev)
{
    (void)dev;
    return 7;
}

int __wrap_libusb_open(libusb_device *dev, libusb_device_handle **h);
int __wrap_libusb_open(libusb_device *dev, libusb_device_handle **h)
{
    assert_ptr_equal(dev, fake_dev);
    if (!fake.plugged) {
        return LIBUSB_ERROR_NO_DEVICE;
    }
    fake.opens++;
    *h = fake_handle;
    return 0;
}

void __wrap_libusb_close(libusb_device_handle *h);
void __wrap_libusb_close(libusb_device_handle *h)
{
    assert_ptr_equal(h, fake_handle);
    assert_int_equal(fake.npending, 0); /* every transfer is done before the close */
    fake.closes++;
}

int __wrap_libusb_kernel_driver_active(libusb_device_handle *h, int iface);
int __wrap_libusb_kernel_driver_active(libusb_device_handle *h, int iface)
{
    (void)h;
    assert_true(iface == 0 || (fake.cdc && iface == 1));
    return 1; /* ftdi_sio / cdc_acm holds it */
}

int __wrap_libusb_detach_kernel_driver(libusb_device_handle *h, int iface);
int __wrap_libusb_detach_kernel_driver(libusb_device_handle *h, int iface)
{
    (void)h;
    (void)iface;
    fake.detaches++;
    return 0;
}

int __wrap_libusb_claim_interface(libusb_device_handle *h, int iface);
int __wrap_libusb_claim_interface(libusb_device_handle *h, int iface)
{
    (void)h;
    assert_true(iface == 0 || (fake.cdc && iface == 1));
    assert_true(fake.detaches > fake.claims); /* detached first */
    fake.claims++;
    return 0;
}

int __wrap_libusb_release_interface(libusb_device_handle *h, int iface);
int __wrap_libusb_release_interface(libusb_device_handle *h, int iface)
{
    (void)h;
    (void)iface;
    fake.releases++;
    return 0;
}

int __wrap_libusb_control_transfer(libusb_device_handle *h, uint8_t type, uint8_t req, uint16_t value,
                                   uint16_t index, unsigned char *data, uint16_t len, unsigned int timeout);
int __wrap_libusb_control_transfer(libusb_device_handle *h, uint8_t type, uint8_t req, uint16_t value,
                                   uint16_t index, unsigned char *data, uint16_t len, unsigned int timeout)
{
    (void)timeout;
    assert_ptr_equal(h, fake_handle);
    assert_true(len <= 8);
    if (fake.nctrl < 64) {
        if (len > 0) {
            memcpy(fake.ctrl_data[fake.nctrl], data, len);
        }
        fake.ctrl[fake.nctrl++] = (ctrl_rec){type, req, value, index};
    }
    return len;
}

int __wrap_libusb_submit_transfer(struct libusb_transfer *t);
int __wrap_libusb_submit_transfer(struct libusb_transfer *t)
{
    if (!fake.plugged || fake.fail_submit) {
        return LIBUSB_ERROR_NO_DEVICE;
    }
    assert_ptr_equal(t->dev_handle, fake_handle);
    assert_int_equal(t->type, LIBUSB_TRANSFER_TYPE_BULK);
    assert_true(fake.npending < 16);
    fake.pending[fake.npending++] = t;
    return 0;
}

static bool take_pending(struct libusb_transfer *t)
{
    for (int i = 0; i < fake.npending; i++) {
        if (fake.pending[i] == t) {
            fake.pending[i] = fake.pending[--fake.npending];
            return true;
        }
    }
    return false;
}

int __wrap_libusb_cancel_transfer(struct libusb_transfer *t);
int __wrap_libusb_cancel_transfer(struct libusb_transfer *t)
{
    if (!take_pending(t)) {
        return LIBUSB_ERROR_NOT_FOUND;
    }
    fake.cancelled[fake.ncancelled++] = t;
    return 0;
}

int __wrap_libusb_clear_halt(libusb_device_handle *h, unsigned char ep);
int __wrap_libusb_clear_halt(libusb_device_handle *h, unsigned char ep)
{
    (void)h;
    assert_int_equal(ep, 0x81);
    fake.clear_halts++;
    return 0;
}

int __wrap_libusb_has_capability(uint32_t cap);
int __wrap_libusb_has_capability(uint32_t cap)
{
    return cap == LIBUSB_CAP_HAS_HOTPLUG;
}

int __wrap_libusb_hotplug_register_callback(libusb_context *ctx, int events, int flags, int vid, int pid,
                                            int cls, libusb_hotplug_callback_fn cb, void *data,
                                            libusb_hotplug_callback_handle *handle);
int __wrap_libusb_hotplug_register_callback(libusb_context *ctx, int events, int flags, int vid, int pid,
                                            int cls, libusb_hotplug_callback_fn cb, void *data,
                                            libusb_hotplug_callback_handle *handle)
{
    (void)ctx;
    (void)events;
    (void)flags;
    (void)vid;
    (void)pid;
    (void)cls;
    fake.hotplug_cb = cb;
    fake.hotplug_data = data;
    *handle = 1;
    return 0;
}

void __wrap_libusb_hotplug_deregister_callback(libusb_context *ctx, libusb_hotplug_callback_handle h);
void __wrap_libusb_hotplug_deregister_callback(libusb_context *ctx, libusb_hotplug_callback_handle h)
{
    (void)ctx;
    assert_int_equal(h, 1);
    fake.hotplug_cb = NULL;
}

/*----- Helpers -----*/

typedef struct rig {
    struct event_base *base;
    cr_usb *usb;
    cr_board_link *link;
    cr_dgt_emu *emu;
    cr_feed_event ev[256];
    int nev;
    int connects, disconnects, positions;
} rig;

static void on_event(void *data, const cr_feed_event *ev)
{
    rig *r = data;
    if (r->nev < 256) {
        r->ev[r->nev++] = *ev;
    }
    r->connects += ev->kind == CR_FEED_CONNECT;
    r->disconnects += ev->kind == CR_FEED_DISCONNECT;
    r->positions += ev->kind == CR_FEED_POS;
}

static void run_ms(rig *r, int ms)
{
    struct timeval tv = {0, ms * 1000};
    event_base_loopexit(r->base, &tv);
    event_base_dispatch(r->base);
}

static bool is_in(const struct libusb_transfer *t)
{
    return (t->endpoint & LIBUSB_ENDPOINT_IN) != 0;
}

static struct libusb_transfer *pending_in(void)
{
    for (int i = 0; i < fake.npending; i++) {
        if (is_in(fake.pending[i])) {
            return fake.pending[i];
        }
    }
    return NULL;
}

static int count_in(void)
{
    int n = 0;
    for (int i = 0; i < fake.npending; i++) {
        n += is_in(fake.pending[i]);
    }
    return n;
}

/* Completes one bulk-IN transfer with raw packet bytes (status bytes included). */
static void complete_in(const uint8_t *bytes, size_t len, enum libusb_transfer_status st)
{
    struct libusb_transfer *t = pending_in();
    assert_non_null(t);
    assert_true(len <= (size_t)t->length);
    take_pending(t);
    if (len > 0) {
        memcpy(t->buffer, bytes, len);
    }
    t->actual_length = (int)len;
    t->status = st;
    t->callback(t);
}

/* Sends data bytes the way an FT232 does: 2 status bytes + up to 62 data bytes per packet. */
static void send_ftdi(const uint8_t *data, size_t len)
{
    uint8_t buf[512];
    while (len > 0) {
        size_t k = 0;
        while (len > 0 && k + 2 < sizeof buf) {
            size_t chunk = len < 62 ? len : 62;
            buf[k++] = 0x01; /* modem status: bit0 always set */
            buf[k++] = 0x60; /* line status: THR and TX empty */
            memcpy(buf + k, data, chunk);
            k += chunk;
            data += chunk;
            len -= chunk;
            if (chunk < 62) {
                break; /* a short packet ends the transfer */
            }
        }
        complete_in(buf, k, LIBUSB_TRANSFER_COMPLETED);
    }
}

/* Moves written commands to the emulated board and its answers back. */
static void pump(rig *r)
{
    for (int round = 0; round < 20; round++) {
        bool any = false;
        for (int i = 0; i < fake.npending; i++) {
            struct libusb_transfer *t = fake.pending[i];
            if (is_in(t)) {
                continue;
            }
            take_pending(t);
            cr_dgt_emu_input(r->emu, 0, t->buffer, (size_t)t->length);
            t->actual_length = t->length;
            t->status = LIBUSB_TRANSFER_COMPLETED;
            t->callback(t);
            any = true;
            i = -1;
        }
        uint8_t out[1024];
        size_t n = cr_dgt_emu_take_output(r->emu, out, sizeof out);
        if (n > 0 && !fake.cdc) {
            send_ftdi(out, n);
            any = true;
        } else if (n > 0) {
            for (size_t off = 0; off < n; off += 512) { /* CDC: raw bytes, no status */
                complete_in(out + off, n - off < 512 ? n - off : 512, LIBUSB_TRANSFER_COMPLETED);
            }
            any = true;
        }
        run_ms(r, 30); /* paced commands go out on the link's timer */
        if (!any && fake.npending == count_in()) {
            return;
        }
    }
}

static int setup(void **state)
{
    memset(&fake, 0, sizeof fake);
    assert_int_equal(pipe(fake.pipefd), 0);
    fake.plugged = true;
    rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    r->base = event_base_new();
    cr_error err;
    r->usb = cr_usb_new(r->base, NULL, &err);
    assert_non_null(r->usb);
    cr_dgt_emu_config ecfg = {.serial = "23164", .version_major = 1, .version_minor = 2};
    r->emu = cr_dgt_emu_new(&ecfg);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    cr_dgt_emu_set_squares(r->emu, 0, sq);
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    rig *r = *state;
    cr_board_link_free(r->link);
    assert_int_equal(fake.npending, 0);
    cr_usb_free(r->usb);
    cr_dgt_emu_free(r->emu);
    event_base_free(r->base);
    close(fake.pipefd[0]);
    close(fake.pipefd[1]);
    free(r);
    return 0;
}

static void open_link(rig *r)
{
    cr_usb_board_desc d[4];
    assert_int_equal(cr_usb_scan(r->usb, d, 4), 1);
    assert_string_equal(d[0].name, "usb:1-2.3");
    assert_true(d[0].ftdi == !fake.cdc);
    cr_dgt_transport tr;
    assert_int_equal(cr_usb_transport_new(r->usb, &d[0], &tr), 0);
    assert_string_equal(tr.fallback_id, "usb-1-2.3");
    cr_board_link_config cfg;
    cr_board_link_config_default(&cfg);
    cfg.reopen_ms = 20;
    cr_board_link_callbacks cbs = {.event = on_event, .data = r};
    r->link = cr_board_link_new(r->base, &tr, &cfg, &cbs);
    assert_non_null(r->link);
    assert_int_equal(cr_board_link_start(r->link), 0);
}

/*----- Tests -----*/

static void test_strip_status(void **state)
{
    (void)state;
    uint8_t in[200], out[200];
    for (int i = 0; i < 200; i++) {
        in[i] = (uint8_t)i;
    }
    /* Two full packets and a status-only one. */
    assert_int_equal(cr_ftdi_strip_status(in, 130, out), 124);
    assert_int_equal(out[0], 2);
    assert_int_equal(out[61], 63);
    assert_int_equal(out[62], 66); /* bytes 64 and 65 were status */
    /* A short packet, and a lone status pair. */
    assert_int_equal(cr_ftdi_strip_status(in, 7, out), 5);
    assert_int_equal(out[0], 2);
    assert_int_equal(cr_ftdi_strip_status(in, 2, out), 0);
    assert_int_equal(cr_ftdi_strip_status(in, 1, out), 0);
}

static void test_ftdi_bring_up(void **state)
{
    rig *r = *state;
    open_link(r);
    assert_int_equal(fake.opens, 1);
    assert_int_equal(fake.detaches, 1);
    assert_int_equal(fake.claims, 1);
    const ctrl_rec want[] = {
        {0x40, 0x00, 0, 0},      {0x40, 0x00, 1, 0},      {0x40, 0x00, 2, 0},
        {0x40, 0x03, 0x4138, 0}, {0x40, 0x04, 0x0008, 0}, {0x40, 0x02, 0, 0},
        {0x40, 0x01, 0x0101, 0}, {0x40, 0x01, 0x0202, 0}, {0x40, 0x09, 4, 0},
    };
    assert_int_equal(fake.nctrl, (int)(sizeof want / sizeof want[0]));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(fake.ctrl[i].type, want[i].type);
        assert_int_equal(fake.ctrl[i].req, want[i].req);
        assert_int_equal(fake.ctrl[i].value, want[i].value);
        assert_int_equal(fake.ctrl[i].index, want[i].index);
    }
    assert_int_equal(count_in(), 2); /* reads always pending */
    assert_int_equal(pending_in()->length, 512);
    /* The probe went out as bulk OUT writes: reset, serial number, version. */
    uint8_t cmds[16];
    size_t n = 0;
    for (int i = 0; i < fake.npending; i++) {
        if (fake.pending[i]->endpoint == 0x02) {
            memcpy(cmds + n, fake.pending[i]->buffer, (size_t)fake.pending[i]->length);
            n += (size_t)fake.pending[i]->length;
        }
    }
    assert_true(n >= 3);
    assert_int_equal(cmds[0], 0x40);
    assert_int_equal(cmds[1], 0x45);
    assert_int_equal(cmds[2], 0x4D);
}

static void test_framing_and_short_reads(void **state)
{
    rig *r = *state;
    open_link(r);
    /* A status-only packet (no data) and then the serial number split over
     * two transfers, the second starting with its own status bytes. */
    const uint8_t none[2] = {0x01, 0x60};
    complete_in(none, 2, LIBUSB_TRANSFER_COMPLETED);
    assert_int_equal(r->nev, 0);
    uint8_t msg[16];
    int n = cr_dgt_encode_serial(msg, sizeof msg, "23164");
    uint8_t a[8] = {0x01, 0x60};
    memcpy(a + 2, msg, 3);
    complete_in(a, 5, LIBUSB_TRANSFER_COMPLETED);
    uint8_t b[16] = {0x01, 0x60};
    memcpy(b + 2, msg + 3, (size_t)n - 3);
    complete_in(b, 2 + (size_t)n - 3, LIBUSB_TRANSFER_COMPLETED);
    assert_int_equal(r->connects, 1);
    assert_string_equal(r->ev[0].board, "23164");
    /* From here the emulated board answers: a dump whose 67 bytes cross a
     * packet boundary (status bytes in the middle of the message). */
    pump(r);
    assert_true(r->positions >= 1);
    uint8_t sq[64];
    cr_test_start_squares(sq);
    const cr_feed_event *last = NULL;
    for (int i = 0; i < r->nev; i++) {
        if (r->ev[i].kind == CR_FEED_POS) {
            last = &r->ev[i];
        }
    }
    assert_non_null(last);
    assert_memory_equal(last->u.squares, sq, 64);
    assert_int_equal(cr_dgt_emu_mode_get(r->emu), CR_EMU_UPDATE_NICE);
    /* A move as field updates arrives decoded. */
    sq[CR_SQ_E2] = 0;
    sq[CR_SQ_E4] = CR_WP;
    int before = r->positions;
    cr_dgt_emu_set_squares(r->emu, 0, sq);
    pump(r);
    assert_int_equal(r->positions, before + 2);
    assert_int_equal(r->ev[r->nev - 1].u.squares[CR_SQ_E4], CR_WP);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.state, CR_LINK_ACTIVE);
    assert_string_equal(h.id, "23164");
    assert_int_equal(h.disconnects, 0);
}

static void test_stall(void **state)
{
    rig *r = *state;
    open_link(r);
    pump(r);
    assert_int_equal(r->connects, 1);
    complete_in(NULL, 0, LIBUSB_TRANSFER_STALL);
    assert_int_equal(count_in(), 1);
    run_ms(r, 5); /* the halt is cleared outside the libusb callback */
    assert_int_equal(fake.clear_halts, 1);
    assert_int_equal(count_in(), 2);
    assert_int_equal(r->disconnects, 0);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.state, CR_LINK_ACTIVE);
}

static void test_unplug_and_replug(void **state)
{
    rig *r = *state;
    open_link(r);
    pump(r);
    assert_int_equal(r->connects, 1);
    /* Unplugged: the read fails with NO_DEVICE. */
    fake.plugged = false;
    complete_in(NULL, 0, LIBUSB_TRANSFER_NO_DEVICE);
    assert_int_equal(r->disconnects, 1);
    assert_int_equal(cr_board_link_health(r->link).state, CR_LINK_LOST);
    /* The other read is cancelled; the handle closes once it is back. */
    run_ms(r, 1);
    __wrap_libusb_handle_events_timeout_completed(NULL, NULL, NULL);
    run_ms(r, 5);
    assert_int_equal(fake.closes, 1);
    assert_int_equal(fake.releases, 1);
    /* Reopening fails while it is away... */
    run_ms(r, 60);
    assert_int_equal(fake.opens, 1);
    /* ...and works once it is back: bring-up again, a new CONNECT. */
    fake.plugged = true;
    cr_dgt_emu_power_up(r->emu);
    run_ms(r, 60);
    assert_int_equal(fake.opens, 2);
    assert_int_equal(fake.nctrl, 18);
    pump(r);
    assert_int_equal(r->connects, 2);
    cr_dgt_health h = cr_board_link_health(r->link);
    assert_int_equal(h.state, CR_LINK_ACTIVE);
    assert_int_equal(h.disconnects, 1);
}

static void watch_cb(void *data, const cr_usb_board_desc *d, bool arrived)
{
    int *counts = data;
    assert_string_equal(d->name, "usb:1-2.3");
    counts[arrived ? 0 : 1]++;
}

static void test_hotplug_watch(void **state)
{
    rig *r = *state;
    int counts[2] = {0, 0};
    assert_int_equal(cr_usb_watch(r->usb, watch_cb, counts), 0);
    assert_true(cr_usb_has_hotplug(r->usb));
    assert_non_null(fake.hotplug_cb);
    fake.plugged = false;
    fake.hotplug_cb(NULL, fake_dev, LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT, fake.hotplug_data);
    run_ms(r, 5);
    assert_int_equal(counts[1], 1);
    fake.plugged = true;
    fake.hotplug_cb(NULL, fake_dev, LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED, fake.hotplug_data);
    run_ms(r, 5);
    assert_int_equal(counts[0], 1);
}

static void test_cdc_acm(void **state)
{
    rig *r = *state;
    fake.cdc = true;
    open_link(r);
    /* Both interfaces detached from cdc_acm and claimed; line coding 9600 8N1; DTR|RTS. */
    assert_int_equal(fake.detaches, 2);
    assert_int_equal(fake.claims, 2);
    assert_int_equal(fake.nctrl, 2);
    assert_int_equal(fake.ctrl[0].type, 0x21);
    assert_int_equal(fake.ctrl[0].req, 0x20);
    assert_int_equal(fake.ctrl[0].index, 0);
    const uint8_t coding[7] = {0x80, 0x25, 0x00, 0x00, 0, 0, 8};
    assert_memory_equal(fake.ctrl_data[0], coding, 7);
    assert_int_equal(fake.ctrl[1].req, 0x22);
    assert_int_equal(fake.ctrl[1].value, 0x03);
    assert_int_equal(pending_in()->endpoint, 0x83);
    /* No status bytes: the stream is the board's own. */
    pump(r);
    assert_int_equal(r->connects, 1);
    assert_true(r->positions >= 1);
    assert_int_equal(cr_board_link_health(r->link).state, CR_LINK_ACTIVE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strip_status),
        cmocka_unit_test_setup_teardown(test_ftdi_bring_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_framing_and_short_reads, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stall, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unplug_and_replug, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hotplug_watch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cdc_acm, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
