/*
 * The key-exchange groups of CoAP over DTLS 1.3 on libcoap's wolfSSL backend
 * (the post-quantum profile, docs/pqc.md).
 *
 * libcoap (4.3.5) sets wolfSSL's groups only from the compile-time macro
 * COAP_WOLFSSL_GROUPS, pasted into a call of wolfSSL_CTX_set1_groups_list()
 * whenever it sets up a DTLS context (client and server). Building libcoap
 * with this header forced in (CFLAGS "-include .../libcoap_wolfssl_groups.h")
 * turns that macro into a call of emcp_coap_wolfssl_groups(), which the
 * program linking that libcoap defines: the groups then come from the
 * program's configuration (greenhouse-coap --dtls-groups). A program linking
 * such a libcoap must define the function; NULL keeps wolfSSL's defaults.
 *
 * Not a public emcp header: build glue forced into libcoap's own build (so
 * it defines libcoap's macro, and is not named emcp*.h).
 */
#ifndef EMCP_COAP_WOLFSSL_H
#define EMCP_COAP_WOLFSSL_H

#ifdef __cplusplus
extern "C" {
#endif

/** The colon-separated wolfSSL group list, e.g. "X25519MLKEM768:X25519", or NULL. */
const char *emcp_coap_wolfssl_groups(void);

#ifdef __cplusplus
}
#endif

#define COAP_WOLFSSL_GROUPS emcp_coap_wolfssl_groups()

#endif /* EMCP_COAP_WOLFSSL_H */
