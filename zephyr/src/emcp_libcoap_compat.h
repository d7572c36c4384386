/*
 * Force-included (-include) into libcoap's sources and the CoAP glue when
 * CONFIG_EMCP_COAP is built with Zephyr's minimal C library on Zephyr
 * releases older than 3.5 (zephyr/CMakeLists.txt; docs/zephyr.md "CoAP"
 * lists each item and the error it fixes). Everything here only fills in
 * what that combination lacks and libcoap 4.3.5 needs to compile:
 *
 * - fd_set: libcoap's headers use it without <sys/select.h> (picolibc and
 *   newlib declare it in <sys/types.h>; the minimal libc does not);
 * - random()/srandom() for libcoap's default PRNG (HAVE_RANDOM), defined in
 *   emcp_coap_zephyr.c on sys_csrand_get(); RAND_MAX from <stdlib.h>;
 * - fflush() (libcoap's log output and the greenhouse's audit lines call it;
 *   the minimal libc's streams are unbuffered, so it is defined in
 *   emcp_coap_zephyr.c as a no-op);
 * - localtime()/strftime() for the wall-clock prefix of libcoap's own log
 *   lines (the minimal libc has neither): the prefix is left empty;
 * - close(), which libcoap calls without <unistd.h> (that header is preset
 *   absent: Zephyr 3.4's POSIX <sys/stat.h> behind it does not compile with
 *   the minimal libc on native_sim_64);
 * - the socket options Zephyr 3.4 does not have: IP_PKTINFO and
 *   IPV6_RECVPKTINFO (libcoap's coap_io.c stops with #error without them;
 *   Zephyr 3.4 refuses the setsockopt at run time, which libcoap logs and
 *   then serves without the local address of each datagram), struct ip_mreq
 *   and IP_ADD_MEMBERSHIP, IP_MULTICAST_TTL, SIOCGIFADDR and ifreq.ifr_addr (libcoap's
 *   multicast join, never called by emcp), IN_MULTICAST;
 * - with DTLS (libcoap's Mbed TLS backend, CONFIG_MBEDTLS): strdup(),
 *   strndup() and strcasecmp(), which the minimal libc lacks (defined in
 *   emcp_coap_zephyr.c), and the BSD type u_char.
 */
#ifndef EMCP_LIBCOAP_COMPAT_H
#define EMCP_LIBCOAP_COMPAT_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/select.h>
#include <zephyr/net/socket.h>
#if __has_include(<zephyr/version.h>)
#include <zephyr/version.h>
#else
#include <version.h> /* Zephyr < 3.5 */
#endif

#include <stdio.h>
#include <time.h>

long random(void);
void srandom(unsigned int seed);
char *strdup(const char *s);
char *strndup(const char *s, size_t n);
int strcasecmp(const char *a, const char *b);
typedef unsigned char u_char;
int close(int fd);
int fflush(FILE *stream);

#ifndef RAND_MAX
#define RAND_MAX 0x7fffffff /* random() returns 31 bits */
#endif
#define localtime(t) ((void)(t), (struct tm *)NULL)
#define strftime(s, len, fmt, tm) ((void)(s), (void)(len), (void)(fmt), (void)(tm), (size_t)0)

#ifndef IP_PKTINFO
#define IP_PKTINFO 8 /* Linux's value, as later Zephyr releases use */
#endif
#ifndef IPV6_RECVPKTINFO
#define IPV6_RECVPKTINFO 49
#endif
#ifndef IN_MULTICAST
#define IN_MULTICAST(a) ((((uint32_t)(a)) & 0xf0000000u) == 0xe0000000u)
#endif
#ifndef IP_ADD_MEMBERSHIP
#define IP_ADD_MEMBERSHIP 35
struct ip_mreq {
    struct in_addr imr_multiaddr;
    struct in_addr imr_interface;
};
#endif
#ifndef IP_MULTICAST_TTL
#define IP_MULTICAST_TTL 33 /* libcoap's client (coap_mcast_set_hops) */
#endif
#ifndef SIOCGIFADDR
#define SIOCGIFADDR 0x8915
#endif
#if ZEPHYR_VERSION_CODE < ZEPHYR_VERSION(3, 5, 0)
/* Zephyr 3.4's struct ifreq has only ifr_name. */
struct emcp_ifreq_compat {
    char ifr_name[IFNAMSIZ];
    struct sockaddr ifr_addr;
};
#define ifreq emcp_ifreq_compat
#endif

#endif /* EMCP_LIBCOAP_COMPAT_H */
