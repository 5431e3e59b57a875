#include "util/datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static bool take(const char *path, char *out, size_t size)
{
    char real[PATH_MAX];
    if (!realpath(path, real)) {
        snprintf(out, size, "%s", path);
        return false;
    }
    snprintf(out, size, "%s", real);
    return strlen(real) < size;
}

bool cr_datadir_find(const char *name, const char *env_var, char *out, size_t size)
{
    const char *env = env_var ? getenv(env_var) : NULL;
    if (env && *env) {
        return take(env, out, size);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(out, size, "/proc/self/exe");
        return false;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) {
        snprintf(out, size, "%s", exe);
        return false;
    }
    *slash = '\0';
    static const char *const places[] = {"/../share/chessrelay/", "/share/chessrelay/"};
    char path[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
        snprintf(path, sizeof path, "%s%s%s", exe, places[i], name);
        if (take(path, out, size)) {
            return true;
        }
    }
    return false;
}
