/* chessrelay relay: IP addresses and ranges, X-Forwarded-For (see addr.h). */
#include "util/addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const unsigned char mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool cr_addr_parse(const char *text, unsigned char out[16])
{
    char buf[64];
    size_t n = strlen(text);
    if (n >= 2 && text[0] == '[' && text[n - 1] == ']') {
        text++;
        n -= 2;
    }
    if (n == 0 || n >= sizeof buf) {
        return false;
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
    struct in_addr v4;
    if (inet_pton(AF_INET, buf, &v4) == 1) {
        memcpy(out, mapped_prefix, 12);
        memcpy(out + 12, &v4, 4);
        return true;
    }
    return inet_pton(AF_INET6, buf, out) == 1;
}

bool cr_addr_range_parse(const char *text, cr_addr_range *out)
{
    char buf[64];
    const char *slash = strchr(text, '/');
    size_t n = slash ? (size_t)(slash - text) : strlen(text);
    if (n >= sizeof buf) {
        return false;
    }
    memcpy(buf, text, n);
    buf[n] = '\0';
    if (!cr_addr_parse(buf, out->addr)) {
        return false;
    }
    bool v4 = memcmp(out->addr, mapped_prefix, 12) == 0 && !strchr(buf, ':');
    int max = v4 ? 32 : 128;
    int bits = max;
    if (slash) {
        char *end;
        long b = strtol(slash + 1, &end, 10);
        if (!slash[1] || *end || slash[1] == '-' || slash[1] == '+' || b < 0 || b > max) {
            return false;
        }
        bits = (int)b;
    }
    out->bits = v4 ? 96 + bits : bits;
    for (int i = out->bits; i < 128; i++) {
        if (out->addr[i / 8] & (0x80 >> (i % 8))) {
            return false;
        }
    }
    return true;
}

static bool in_range(const unsigned char a[16], const cr_addr_range *r)
{
    int full = r->bits / 8, rest = r->bits % 8;
    if (memcmp(a, r->addr, (size_t)full) != 0) {
        return false;
    }
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return rest == 0 || (a[full] & mask) == r->addr[full];
}

bool cr_addr_in_ranges(const unsigned char a[16], const cr_addr_range *ranges, int n)
{
    for (int i = 0; i < n; i++) {
        if (in_range(a, &ranges[i])) {
            return true;
        }
    }
    return false;
}

void cr_addr_from_sockaddr(const struct sockaddr *sa, socklen_t len, unsigned char out[16])
{
    memset(out, 0, 16);
    if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        memcpy(out, mapped_prefix, 12);
        memcpy(out + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
    } else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        memcpy(out, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
    }
}

void cr_addr_text(const unsigned char a[16], char *buf, size_t size)
{
    if (memcmp(a, mapped_prefix, 12) == 0) {
        inet_ntop(AF_INET, a + 12, buf, (socklen_t)size);
    } else {
        inet_ntop(AF_INET6, a, buf, (socklen_t)size);
    }
}

bool cr_addr_forwarded_client(const unsigned char peer[16], const char *xff,
                              const cr_addr_range *ranges, int n, unsigned char out[16])
{
    memcpy(out, peer, 16);
    if (!xff || !cr_addr_in_ranges(peer, ranges, n)) {
        return false;
    }
    const char *end = xff + strlen(xff);
    while (end > xff) {
        const char *start = end;
        while (start > xff && start[-1] != ',') {
            start--;
        }
        const char *a = start, *b = end;
        while (a < b && (*a == ' ' || *a == '\t')) {
            a++;
        }
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) {
            b--;
        }
        char entry[64];
        unsigned char hop[16];
        if (b - a <= 0 || (size_t)(b - a) >= sizeof entry) {
            break;
        }
        memcpy(entry, a, (size_t)(b - a));
        entry[b - a] = '\0';
        if (!cr_addr_parse(entry, hop)) {
            break;
        }
        memcpy(out, hop, 16);
        if (!cr_addr_in_ranges(hop, ranges, n)) {
            break;
        }
        end = start > xff ? start - 1 : xff;
    }
    return memcmp(out, peer, 16) != 0;
}
