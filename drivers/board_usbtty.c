/* USB serial ports of boards, from sysfs: see board_usbtty.h. */
#include "board_usbtty.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int read_hex(const char *dir, const char *name, unsigned *out)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) {
        return -1;
    }
    int ok = fscanf(f, "%x", out) == 1;
    fclose(f);
    return ok ? 0 : -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const cr_board_usb_tty *)a)->dev, ((const cr_board_usb_tty *)b)->dev);
}

int cr_board_usb_ttys(const char *sysroot, cr_board_usb_tty *out, int max)
{
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s/sys/class/tty", sysroot ? sysroot : "");
    DIR *d = opendir(base);
    if (!d) {
        return 0;
    }
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < max) {
        if ((strncmp(e->d_name, "ttyUSB", 6) != 0 && strncmp(e->d_name, "ttyACM", 6) != 0) ||
            strlen(e->d_name) > 32) {
            continue;
        }
        char link[PATH_MAX + 300], dir[PATH_MAX];
        snprintf(link, sizeof link, "%s/%s/device", base, e->d_name);
        if (!realpath(link, dir)) {
            continue;
        }
        /* The USB device is 1 (ttyACM: the interface's parent) or 2 (ttyUSB:
         * port, interface, device) levels up. */
        for (int up = 0; up < 3; up++) {
            unsigned vid, pid;
            if (read_hex(dir, "idVendor", &vid) == 0 && read_hex(dir, "idProduct", &pid) == 0) {
                const cr_board_usb_id *id = cr_board_usb_find((uint16_t)vid, (uint16_t)pid);
                if (id && id->kind != CR_BOARD_DGT) {
                    snprintf(out[n].dev, sizeof out[n].dev, "/dev/%.32s", e->d_name);
                    out[n++].id = id;
                }
                break;
            }
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir) {
                break;
            }
            *slash = '\0';
        }
    }
    closedir(d);
    qsort(out, (size_t)n, sizeof *out, by_name);
    return n;
}
