/* Serial tty transport: see serial.h. */
#include "serial.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

typedef struct serial_impl {
    struct event_base *base;
    char path[256];
    int fd;
    struct event *ev;
    cr_board_link *link;
    int baud;
} serial_impl;

int cr_serial_configure(int fd)
{
    return cr_serial_configure_baud(fd, 9600);
}

int cr_serial_configure_baud(int fd, int baud)
{
    speed_t speed = baud == 38400 ? B38400 : baud == 19200 ? B19200 : B9600;
    struct termios tio;
    if (tcgetattr(fd, &tio) < 0) {
        return CR_EIO;
    }
    cfmakeraw(&tio);
    tio.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CSIZE | CRTSCTS);
    tio.c_cflag |= CS8 | CLOCAL | CREAD;
    tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
    tio.c_cc[VMIN] = 0;
    tio.c_cc[VTIME] = 0;
    cfsetispeed(&tio, speed);
    cfsetospeed(&tio, speed);
    if (tcsetattr(fd, TCSANOW, &tio) < 0) {
        return CR_EIO;
    }
    /* DTR and RTS up, as a tty open does and dgtnix insists on (ptys refuse: fine). */
    int bits = TIOCM_DTR | TIOCM_RTS;
    (void)ioctl(fd, TIOCMBIS, &bits);
    tcflush(fd, TCIOFLUSH);
    return 0;
}

int cr_serial_open(const char *path, cr_error *err)
{
    if (!path || !*path) {
        return cr_error_set(err, CR_EINVAL, 0, 0, "serial: no device path");
    }
    int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return cr_error_set(err, CR_EIO, 0, 0, "%s: %s", path, strerror(errno));
    }
    if (!isatty(fd)) {
        close(fd);
        return cr_error_set(err, CR_EINVAL, 0, 0, "%s: not a terminal", path);
    }
    if (cr_serial_configure(fd) < 0) {
        int e = errno;
        close(fd);
        return cr_error_set(err, CR_EIO, 0, 0, "%s: cannot set 9600 8N1 raw: %s", path, strerror(e));
    }
    return fd;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    serial_impl *s = arg;
    uint8_t buf[512];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            cr_board_link_input(s->link, buf, (size_t)n);
            if (s->fd < 0) {
                return; /* the link closed us from its callback */
            }
            if ((size_t)n < sizeof buf) {
                return;
            }
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        }
        if (n < 0 && errno == EINTR) {
            continue;
        }
        char why[300];
        snprintf(why, sizeof why, "%s: %s", s->path, n == 0 ? "end of file (hang-up)" : strerror(errno));
        cr_board_link_transport_error(s->link, why);
        return;
    }
}

static void serial_close(void *impl)
{
    serial_impl *s = impl;
    if (s->ev) {
        event_free(s->ev);
        s->ev = NULL;
    }
    if (s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
}

static int serial_open_cb(void *impl, cr_board_link *link)
{
    serial_impl *s = impl;
    serial_close(s);
    s->link = link;
    int fd = cr_serial_open(s->path, NULL);
    if (fd < 0) {
        return fd;
    }
    s->fd = fd;
    if (s->baud != 9600 && cr_serial_configure_baud(fd, s->baud) < 0) {
        serial_close(s);
        return CR_EIO;
    }
    s->ev = event_new(s->base, fd, EV_READ | EV_PERSIST, on_readable, s);
    if (!s->ev || event_add(s->ev, NULL) < 0) {
        serial_close(s);
        return CR_ENOMEM;
    }
    return 0;
}

static int serial_write(void *impl, const uint8_t *bytes, size_t len)
{
    serial_impl *s = impl;
    if (s->fd < 0) {
        return CR_EIO;
    }
    ssize_t n = write(s->fd, bytes, len);
    if (n < 0) {
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : CR_EIO;
    }
    return (int)n;
}

/* Another kind of board is tried: its speed (8N1 raw for every kind). */
static int serial_settings(void *impl, const cr_serial_settings *st)
{
    serial_impl *s = impl;
    if (st->baud == s->baud) {
        return 0;
    }
    s->baud = st->baud;
    return s->fd >= 0 ? cr_serial_configure_baud(s->fd, s->baud) : 0;
}

static void serial_free(void *impl)
{
    serial_impl *s = impl;
    if (s) {
        serial_close(s);
        free(s);
    }
}

void cr_serial_fallback_id(const char *path, char out[CR_BOARD_ID_MAX + 1])
{
    /* The device's last path part, cleaned to feed id characters. */
    const char *base_name = strrchr(path, '/');
    base_name = base_name ? base_name + 1 : path;
    size_t k = 0;
    for (const char *c = base_name; *c && k < CR_BOARD_ID_MAX; c++) {
        char ch = *c;
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
                  ch == '.' || ch == '_' || ch == '-';
        out[k++] = ok ? ch : '_';
    }
    out[k] = '\0';
}

int cr_serial_transport_new(struct event_base *base, const char *path, cr_dgt_transport *out)
{
    if (!base || !path || !out || strlen(path) >= sizeof ((serial_impl *)0)->path) {
        return CR_EINVAL;
    }
    serial_impl *s = calloc(1, sizeof *s);
    if (!s) {
        return CR_ENOMEM;
    }
    s->base = base;
    s->fd = -1;
    s->baud = 9600;
    snprintf(s->path, sizeof s->path, "%s", path);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "serial:%s", path);
    cr_serial_fallback_id(path, out->fallback_id);
    out->wireless = strstr(path, "rfcomm") != NULL;
    out->impl = s;
    out->open = serial_open_cb;
    out->write = serial_write;
    out->close = serial_close;
    out->free = serial_free;
    out->settings = serial_settings;
    return 0;
}
