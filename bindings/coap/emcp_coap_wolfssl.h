/*
 * The key-exchange groups of CoAP over DTLS 1.3 on libcoap's wolfSSL backend
 * (the post-quantum profile, docs/pqc.md).
 *
 * libcoap (4.3.5) sets wolfSSL's groups only from the compile-time macro
 * COAP_WOLFSSL_GROUPS, pasted into a call of wolfSSL_CTX_set1_groups_list()
 * whenever it sets up a DTLS context (client and server). Building libcoap
 * with this header forced in (CFLAGS "-include .../emcp_coap_wolfssl.h")
 * turns that macro into a call of emcp_coap_wolfssl_groups(), which the
 * program linking that libcoap defines: the groups then come from the
 * program's configuration (greenhouse-coap --dtls-groups). A program linking
 * such a libcoap must define the function; NULL keeps wolfSSL's defaults.
 */
#ifndef EMCP_COAP_WOLFSSL_H
#define EMCP_COAP_WOLFSSL_H

/** The colon-separated wolfSSL group list, e.g. "X25519MLKEM768:X25519", or NULL. */
const char *emcp_coap_wolfssl_groups(void);

#define COAP_WOLFSSL_GROUPS emcp_coap_wolfssl_groups()

#endif /* EMCP_COAP_WOLFSSL_H */
