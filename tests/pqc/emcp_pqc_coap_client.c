/*
 * emcp-pqc-coap-client: test client of the post-quantum profile's CoAP leg
 * (issue 39; tests/pqc/test_pqc_coap.py). One MCP message POSTed to
 * coaps://HOST:PORT/mcp over DTLS with a certificate, on a libcoap built
 * with its wolfSSL backend and bindings/coap/libcoap_wolfssl_groups.h (the
 * key-exchange groups from --groups). Prints the response's payload on
 * stdout and one line on stderr:
 *   group=G version=DTLSv1.3 code=C.DD bytes=N
 * Exit 0 when answered in the group --expect names (or any, without it),
 * 3 when answered in another group, 4 when no answer came (handshake or
 * request failed, or timed out), 2 on a usage error.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <coap3/coap.h>
#include <wolfssl/options.h>
#include <wolfssl/ssl.h>

#include "libcoap_wolfssl_groups.h"

static const char *emcp_groups;
static int emcp_done;
static unsigned emcp_code;
static char emcp_group[64] = "none";

const char *emcp_coap_wolfssl_groups(void)
{
    return emcp_groups;
}

static void emcp_usage(FILE *to)
{
    fprintf(to, "Usage: emcp-pqc-coap-client --connect IPV4:PORT --cert CERT.pem --key KEY.pem --ca CA.pem\n"
                "                            --payload JSON [--groups G[:G...]] [--expect GROUP] [--timeout MS]\n"
                "                            [--verbose]\n"
                "  POSTs one MCP message to coaps://IPV4:PORT/mcp over DTLS (libcoap's wolfSSL backend),\n"
                "  with a client certificate, offering the key-exchange groups of --groups (wolfSSL's\n"
                "  names; the first gets the key share). Prints the response payload on stdout and\n"
                "  'group=G version=V code=C.DD bytes=N' on stderr. Exit 3 when the group negotiated is not\n"
                "  --expect, 4 when no response came within --timeout (default 10000 ms).\n"
                "  --verbose: libcoap's and its DTLS layer's debug log on stderr.\n");
}

static coap_response_t emcp_response(coap_session_t *session, const coap_pdu_t *sent, const coap_pdu_t *received,
                                     const coap_mid_t mid)
{
    (void)sent;
    (void)mid;
    size_t len = 0, offset = 0, total = 0;
    const uint8_t *data = NULL;
    if (coap_get_data_large(received, &len, &data, &offset, &total) && data != NULL) {
        fwrite(data, 1, len, stdout);
        fputc('\n', stdout);
    }
    emcp_code = (unsigned)coap_pdu_get_code(received);
    coap_tls_library_t lib = COAP_TLS_LIBRARY_NOTLS;
    /* The wolfSSL backend returns the address of its WOLFSSL pointer. */
    WOLFSSL **pssl = coap_session_get_tls(session, &lib);
    WOLFSSL *ssl = pssl != NULL ? *pssl : NULL;
    const char *name = (ssl != NULL && lib == COAP_TLS_LIBRARY_WOLFSSL) ? wolfSSL_get_curve_name(ssl) : NULL;
    snprintf(emcp_group, sizeof emcp_group, "%s", name != NULL ? name : "none");
    fprintf(stderr, "group=%s version=%s code=%u.%02u bytes=%zu\n", emcp_group,
            ssl != NULL ? wolfSSL_get_version(ssl) : "none", emcp_code >> 5, emcp_code & 31, len);
    emcp_done = 1;
    return COAP_RESPONSE_OK;
}

int main(int argc, char **argv)
{
    const char *connect = NULL, *cert = NULL, *key = NULL, *ca = NULL, *payload = NULL, *expect = NULL;
    long timeout_ms = 10000;
    int verbose = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            emcp_usage(stdout);
            return 0;
        }
        if (strcmp(a, "--verbose") == 0) {
            verbose = 1;
            continue;
        }
        if (v == NULL) {
            emcp_usage(stderr);
            return 2;
        }
        i++;
        if (strcmp(a, "--connect") == 0) {
            connect = v;
        } else if (strcmp(a, "--cert") == 0) {
            cert = v;
        } else if (strcmp(a, "--key") == 0) {
            key = v;
        } else if (strcmp(a, "--ca") == 0) {
            ca = v;
        } else if (strcmp(a, "--payload") == 0) {
            payload = v;
        } else if (strcmp(a, "--groups") == 0) {
            emcp_groups = v;
        } else if (strcmp(a, "--expect") == 0) {
            expect = v;
        } else if (strcmp(a, "--timeout") == 0) {
            timeout_ms = strtol(v, NULL, 10);
        } else {
            emcp_usage(stderr);
            return 2;
        }
    }
    char host[64];
    const char *colon = connect != NULL ? strrchr(connect, ':') : NULL;
    if (colon == NULL || (size_t)(colon - connect) >= sizeof host || cert == NULL || key == NULL || ca == NULL ||
        payload == NULL || timeout_ms <= 0) {
        fprintf(stderr, "emcp-pqc-coap-client: --connect IPV4:PORT, --cert, --key, --ca and --payload are required\n");
        return 2;
    }
    memcpy(host, connect, (size_t)(colon - connect));
    host[colon - connect] = '\0';
    coap_address_t dst;
    coap_address_init(&dst);
    dst.addr.sin.sin_family = AF_INET;
    dst.addr.sin.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &dst.addr.sin.sin_addr) != 1) {
        fprintf(stderr, "emcp-pqc-coap-client: '%s' is not an IPv4 address\n", host);
        return 2;
    }
    dst.size = sizeof(struct sockaddr_in);

    coap_startup();
    coap_set_log_level(verbose ? COAP_LOG_DEBUG : COAP_LOG_WARN);
    coap_dtls_set_log_level(verbose ? COAP_LOG_DEBUG : COAP_LOG_WARN);
    coap_context_t *ctx = coap_new_context(NULL);
    if (ctx == NULL) {
        fprintf(stderr, "emcp-pqc-coap-client: no libcoap context\n");
        return 4;
    }
    coap_context_set_block_mode(ctx, COAP_BLOCK_USE_LIBCOAP | COAP_BLOCK_SINGLE_BODY);
    coap_register_response_handler(ctx, emcp_response);

    coap_dtls_pki_t pki;
    memset(&pki, 0, sizeof pki);
    pki.version = COAP_DTLS_PKI_SETUP_VERSION;
    pki.verify_peer_cert = 1;
    pki.check_common_ca = 1;
    pki.cert_chain_validation = 1;
    pki.cert_chain_verify_depth = 3;
    pki.client_sni = host;
    pki.pki_key.key_type = COAP_PKI_KEY_PEM;
    pki.pki_key.key.pem.ca_file = ca;
    pki.pki_key.key.pem.public_cert = cert;
    pki.pki_key.key.pem.private_key = key;
    coap_session_t *session = coap_new_client_session_pki(ctx, NULL, &dst, COAP_PROTO_DTLS, &pki);
    int rc = 4;
    if (session == NULL) {
        fprintf(stderr, "emcp-pqc-coap-client: no DTLS session\n");
        goto out;
    }
    coap_pdu_t *pdu = coap_pdu_init(COAP_MESSAGE_CON, COAP_REQUEST_CODE_POST, coap_new_message_id(session),
                                    coap_session_max_pdu_size(session));
    uint8_t cf[4];
    if (pdu == NULL || !coap_add_option(pdu, COAP_OPTION_URI_PATH, 3, (const uint8_t *)"mcp") ||
        !coap_add_option(pdu, COAP_OPTION_CONTENT_FORMAT,
                         coap_encode_var_safe(cf, sizeof cf, COAP_MEDIATYPE_APPLICATION_JSON), cf) ||
        !coap_add_data_large_request(session, pdu, strlen(payload), (const uint8_t *)payload, NULL, NULL) ||
        coap_send(session, pdu) == COAP_INVALID_MID) {
        fprintf(stderr, "emcp-pqc-coap-client: the request could not be sent\n");
        goto out;
    }
    for (long waited = 0; !emcp_done && waited < timeout_ms; waited += 50) {
        coap_io_process(ctx, 50);
    }
    if (!emcp_done) {
        fprintf(stderr, "emcp-pqc-coap-client: no response within %ld ms\n", timeout_ms);
    } else if (expect != NULL && strcmp(expect, emcp_group) != 0) {
        fprintf(stderr, "emcp-pqc-coap-client: negotiated %s, expected %s\n", emcp_group, expect);
        rc = 3;
    } else {
        rc = 0;
    }
out:
    coap_free_context(ctx);
    coap_cleanup();
    return rc;
}
