/* Helpers shared by the cmocka suites (header only: each suite is one
 * executable). */
#ifndef CR_TEST_UTIL_H
#define CR_TEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* Removes dir and everything below it (a test's temporary folder). */
static inline void cr_test_rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) {
                continue;
            }
            char p[1024];
            struct stat st;
            if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) {
                continue; /* not one of ours */
            }
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
                cr_test_rm_rf(p);
            } else {
                unlink(p);
            }
        }
        closedir(d);
    }
    rmdir(dir);
}

/* The whole of a file, NUL-terminated (malloc'd; *len its size if len is
 * not NULL), or NULL. */
static inline char *cr_test_read_file(const char *path, size_t *len)
{
    if (len) {
        *len = 0;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    char *buf = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
        if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        } else {
            buf[n] = '\0';
            if (len) {
                *len = (size_t)n;
            }
        }
    }
    fclose(f);
    return buf;
}

#ifdef cmocka_unit_test /* with <cmocka.h> included before */
/* cr_test_read_file of a file the test needs: fails the test if unreadable. */
static inline char *cr_test_must_read(const char *path, size_t *len)
{
    char *text = cr_test_read_file(path, len);
    if (!text) {
        fail_msg("cannot read %s", path);
    }
    return text;
}

/* Fails the test unless the file at path holds exactly want. */
static inline void cr_test_assert_file(const char *path, const char *want)
{
    char *text = cr_test_must_read(path, NULL);
    assert_string_equal(text, want);
    free(text);
}
#endif

#endif
