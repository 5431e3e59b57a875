/* chessrelay relay: IP addresses and ranges, and the client behind trusted
 * reverse proxies (X-Forwarded-For).
 *
 * An address is 16 bytes: IPv6, or IPv4 mapped (::ffff:a.b.c.d), so that
 * both kinds compare and hash alike. Pure functions; no state, no
 * allocation: the caller owns every buffer. */
#ifndef CR_RELAY_ADDR_H
#define CR_RELAY_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

typedef struct cr_addr_range {
    unsigned char addr[16]; /* the bits past `bits` are zero */
    int bits;               /* prefix length, 0..128 (an IPv4 /n is 96+n) */
} cr_addr_range;

/* "a.b.c.d" or an IPv6 address (brackets allowed): false if not one. */
bool cr_addr_parse(const char *text, unsigned char out[16]);
/* An address or "ADDRESS/BITS" (0..32 for IPv4, 0..128 for IPv6): false if
 * not one, or if bits are set past the prefix ("10.1.0.0/8"), which is
 * rather a typo than a wish. */
bool cr_addr_range_parse(const char *text, cr_addr_range *out);
bool cr_addr_in_ranges(const unsigned char a[16], const cr_addr_range *ranges, int n);

/* A socket address as 16 bytes (all zero for another family). */
void cr_addr_from_sockaddr(const struct sockaddr *sa, socklen_t len, unsigned char out[16]);
/* As text: dotted IPv4 for a mapped address, else IPv6. */
void cr_addr_text(const unsigned char a[16], char *buf, size_t size);

/* The client of a request that came from `peer` (the TCP peer) with the
 * X-Forwarded-For value `xff` (NULL or "": none). Only a trusted peer
 * (in `ranges`) is believed: then the entries are read from the right,
 * each one appended by the proxy to its right, and the client is the first
 * that is not itself a trusted proxy (all trusted: the leftmost). An entry
 * that is not an address stops the walk: the client is then the last
 * trusted hop, since anything further left was written by whoever
 * connected to it. Returns whether out differs from peer. */
bool cr_addr_forwarded_client(const unsigned char peer[16], const char *xff,
                              const cr_addr_range *ranges, int n, unsigned char out[16]);

#endif
