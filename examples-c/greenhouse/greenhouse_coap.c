/*
 * greenhouse-coap: the greenhouse gateway as an MCP server over CoAP
 * (docs/bindings/coap.md), on libcoap 4.3 with its OpenSSL DTLS backend.
 *
 *   greenhouse-coap [--listen ADDR:PORT] [--psk IDENTITY:KEY]
 *                   [--cert FILE --key FILE --ca FILE] [--wind-lock] [--log-requests]
 *                   [--policy PRINCIPAL=TOOL[,TOOL...]]...
 *
 * Plain coap:// by default; with --psk (or certificates) the same port serves
 * coaps:// (DTLS) only. Logs and audit lines go to stderr. SIGINT or SIGTERM
 * stops it (exit 0).
 *
 * Built on libcoap's wolfSSL backend (EMCP_COAP_LIBCOAP_WOLFSSL, the
 * post-quantum profile, docs/pqc.md) it also takes --dtls-groups G[:G...],
 * the DTLS key-exchange groups (e.g. X25519MLKEM768:X25519), handed to
 * libcoap through emcp_coap_wolfssl_groups() (bindings/coap/libcoap_wolfssl_groups.h).
 */

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emcp.h"
#include "emcp_clock.h"
#include "emcp_coap.h"
#ifdef EMCP_COAP_WOLFSSL
#include "libcoap_wolfssl_groups.h"

/* --dtls-groups: read by libcoap when it sets up its DTLS context. */
static const char *dtls_groups;

const char *emcp_coap_wolfssl_groups(void)
{
    return dtls_groups;
}
#define GREENHOUSE_DTLS_GROUPS_USAGE                                                          \
    "  --dtls-groups G[:G...]  DTLS key-exchange groups, wolfSSL's names (X25519MLKEM768,\n" \
    "                      X25519, ...); default wolfSSL's\n"
#else
#define GREENHOUSE_DTLS_GROUPS_USAGE ""
#endif
#include "greenhouse.h"

/** Longest PEM file accepted for --cert, --key and --ca (bytes). */
#define GREENHOUSE_PEM_MAX 16384
/** Longest --psk argument (identity:key) in bytes. */
#define GREENHOUSE_PSK_ARG_MAX 256
/** How long one poll waits, so a signal is noticed promptly (ms). */
#define GREENHOUSE_POLL_MS 200

static mcp_server_t server;
static emcp_coap_t coap;
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void log_stderr(void *user, const char *line)
{
    (void)user;
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "usage: %s [--listen ADDR:PORT] [--psk IDENTITY:KEY] [--cert FILE --key FILE --ca FILE]\n"
            "          [--wind-lock] [--log-requests] [--policy PRINCIPAL=TOOL[,TOOL...]]...\n"
            "  Serves the greenhouse gateway over MCP-over-CoAP: POST coap://ADDR:PORT/mcp.\n"
            "  --listen ADDR:PORT  address to listen on (default 127.0.0.1:5683, or :5684 with DTLS);\n"
            "                      IPv6 as [::1]:5683\n"
            "  --psk IDENTITY:KEY  serve coaps:// (DTLS-PSK) on that port instead; the identity is\n"
            "                      the request's principal\n"
            "  --cert/--key/--ca   serve coaps:// with certificates (PEM files); clients need a\n"
            "                      certificate signed by the CA, its CN is the principal\n"
            "  --wind-lock         start with the wind lock on (set_vent above 0 is refused)\n"
            "  --log-requests      log one line per request (peer, principal, code)\n"
            GREENHOUSE_DTLS_GROUPS_USAGE GREENHOUSE_POLICY_USAGE GREENHOUSE_DURABLE_USAGE
            "  Plain coap:// authenticates no principal: with --policy it sees no tool.\n",
            prog);
}

/* "127.0.0.1:5683", "[::1]:5683" or "::1" alone (then default_port). */
static bool parse_listen(const char *arg, uint16_t default_port, coap_address_t *out)
{
    char host[64];
    const char *port_str = NULL;
    size_t host_len;
    if (arg[0] == '[') {
        const char *end = strchr(arg, ']');
        if (end == NULL) {
            return false;
        }
        host_len = (size_t)(end - arg - 1);
        if (host_len >= sizeof host) {
            return false;
        }
        memcpy(host, arg + 1, host_len);
        if (end[1] == ':') {
            port_str = end + 2;
        } else if (end[1] != '\0') {
            return false;
        }
    } else {
        const char *colon = strrchr(arg, ':');
        if (colon != NULL && strchr(arg, ':') == colon) {
            host_len = (size_t)(colon - arg);
            port_str = colon + 1;
        } else {
            host_len = strlen(arg); /* no port, or a bare IPv6 address */
        }
        if (host_len >= sizeof host) {
            return false;
        }
        memcpy(host, arg, host_len);
    }
    host[host_len] = '\0';

    unsigned long port = default_port;
    if (port_str != NULL) {
        char *end = NULL;
        port = strtoul(port_str, &end, 10);
        if (port_str[0] == '\0' || *end != '\0' || port == 0 || port > 65535) {
            return false;
        }
    }

    coap_address_init(out);
    if (inet_pton(AF_INET, host, &out->addr.sin.sin_addr) == 1) {
        out->addr.sin.sin_family = AF_INET;
        out->addr.sin.sin_port = htons((uint16_t)port);
        out->size = sizeof out->addr.sin;
        return true;
    }
    if (inet_pton(AF_INET6, host, &out->addr.sin6.sin6_addr) == 1) {
        out->addr.sin6.sin6_family = AF_INET6;
        out->addr.sin6.sin6_port = htons((uint16_t)port);
        out->size = sizeof out->addr.sin6;
        return true;
    }
    return false;
}

/* Reads a whole PEM file into buf (NUL-terminated; *len counts the NUL, as
 * libcoap's PEM buffers prefer). */
static bool read_pem(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return false;
    }
    size_t n = fread(buf, 1, cap - 1, f);
    bool ok = !ferror(f) && feof(f) && n > 0;
    fclose(f);
    if (!ok) {
        return false;
    }
    buf[n] = '\0';
    *len = n + 1;
    return true;
}

int main(int argc, char **argv)
{
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : "greenhouse-coap";
    const char *listen_arg = NULL;
    const char *psk_arg = NULL;
    const char *cert_path = NULL, *key_path = NULL, *ca_path = NULL;
    bool wind_lock = false;
    bool log_requests = false;

    if (greenhouse_durable_options(prog, &argc, argv) < 0) {
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "--wind-lock") == 0) {
            wind_lock = true;
        } else if (strcmp(a, "--log-requests") == 0) {
            log_requests = true;
        } else if (strcmp(a, "--listen") == 0 && has_value) {
            listen_arg = argv[++i];
        } else if (strcmp(a, "--psk") == 0 && has_value) {
            psk_arg = argv[++i];
        } else if (strcmp(a, "--cert") == 0 && has_value) {
            cert_path = argv[++i];
        } else if (strcmp(a, "--key") == 0 && has_value) {
            key_path = argv[++i];
        } else if (strcmp(a, "--ca") == 0 && has_value) {
            ca_path = argv[++i];
#ifdef EMCP_COAP_WOLFSSL
        } else if (strcmp(a, "--dtls-groups") == 0 && has_value) {
            dtls_groups = argv[++i];
#endif
        } else if (strcmp(a, "--policy") == 0 && has_value) {
            const char *why = NULL;
            if (greenhouse_add_policy(argv[++i], &why) != 0) {
                fprintf(stderr, "%s: --policy %s: %s\n", prog, argv[i], why);
                return 2;
            }
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, prog);
            return 0;
        } else {
            fprintf(stderr, "%s: unknown or incomplete argument '%s'\n", prog, a);
            usage(stderr, prog);
            return 2;
        }
    }

    /* --psk IDENTITY:KEY, split at the first colon. */
    static char psk_buf[GREENHOUSE_PSK_ARG_MAX];
    static emcp_coap_psk_t psk;
    if (psk_arg != NULL) {
        size_t n = strlen(psk_arg);
        const char *colon = strchr(psk_arg, ':');
        if (n >= sizeof psk_buf || colon == NULL || colon == psk_arg || colon[1] == '\0') {
            fprintf(stderr, "%s: --psk wants IDENTITY:KEY, both non-empty\n", prog);
            return 2;
        }
        memcpy(psk_buf, psk_arg, n + 1);
        size_t id_len = (size_t)(colon - psk_arg);
        psk.identity = (const uint8_t *)psk_buf;
        psk.identity_len = id_len;
        psk.key = (const uint8_t *)psk_buf + id_len + 1;
        psk.key_len = n - id_len - 1;
    }

    static uint8_t ca_pem[GREENHOUSE_PEM_MAX], cert_pem[GREENHOUSE_PEM_MAX],
        key_pem[GREENHOUSE_PEM_MAX];
    static emcp_coap_pki_t pki;
    bool use_pki = cert_path != NULL || key_path != NULL || ca_path != NULL;
    if (use_pki) {
        if (cert_path == NULL || key_path == NULL || ca_path == NULL) {
            fprintf(stderr, "%s: certificate mode needs --cert, --key and --ca\n", prog);
            return 2;
        }
        if (!read_pem(ca_path, ca_pem, sizeof ca_pem, &pki.ca_pem_len) ||
            !read_pem(cert_path, cert_pem, sizeof cert_pem, &pki.cert_pem_len) ||
            !read_pem(key_path, key_pem, sizeof key_pem, &pki.key_pem_len)) {
            fprintf(stderr, "%s: cannot read the PEM files (each at most %d bytes)\n", prog,
                    GREENHOUSE_PEM_MAX - 1);
            return 2;
        }
        pki.ca_pem = ca_pem;
        pki.cert_pem = cert_pem;
        pki.key_pem = key_pem;
    }
    bool secure = psk_arg != NULL || use_pki;

    coap_address_t listen_addr;
    if (!parse_listen(listen_arg != NULL ? listen_arg : "127.0.0.1", secure ? 5684 : 5683,
                      &listen_addr)) {
        fprintf(stderr, "%s: --listen wants ADDR:PORT, e.g. 127.0.0.1:5683 or [::1]:5683\n", prog);
        return 2;
    }

#ifdef SIGPIPE
    signal(SIGPIPE, SIG_IGN);
#endif
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);

    const mcp_store_t *store = NULL;
    int rc = greenhouse_setup(prog, &server, wind_lock, &store);
    if (rc != 0) {
        return 1;
    }

    coap_startup();
    coap_set_log_level(LOG_ERR);
    coap_dtls_set_log_level(LOG_ERR);

    emcp_coap_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.listen = &listen_addr;
    cfg.psks = psk_arg != NULL ? &psk : NULL;
    cfg.psk_count = psk_arg != NULL ? 1 : 0;
    cfg.pki = use_pki ? &pki : NULL;
    cfg.clock_ms = emcp_monotonic_ms;
    cfg.log = log_stderr;
    cfg.log_requests = log_requests;
    rc = emcp_coap_open(&coap, &server, &cfg);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot serve CoAP on %s (%d)\n", prog,
                listen_arg != NULL ? listen_arg : "the default address", rc);
        coap_cleanup();
        return 1;
    }
    if (store != NULL) {
        /* The binding's key table, made durable before the first request. */
        rc = mcp_dedup_set_store(&coap.dedup, store, emcp_monotonic_ms());
        if (rc < 0) {
            fprintf(stderr, "%s: cannot read the durable store (%d)\n", prog, rc);
            return 1;
        }
        fprintf(stderr, "%s: %d idempotency records restored\n", prog, rc);
    }
    fprintf(stderr, "%s: serving MCP on %s://%s/mcp (%s, wind lock %s)\n", prog,
            secure ? "coaps" : "coap", listen_arg != NULL ? listen_arg : "127.0.0.1",
            psk_arg != NULL ? (use_pki ? "DTLS-PSK and certificates" : "DTLS-PSK")
                            : (use_pki ? "DTLS certificates" : "no security"),
            wind_lock ? "on" : "off");
    fflush(stderr);

    int status = 0;
    while (!stop_requested) {
        rc = emcp_coap_poll(&coap, GREENHOUSE_POLL_MS);
        if (rc < 0) {
            fprintf(stderr, "%s: CoAP I/O failed (%d)\n", prog, rc);
            status = 1;
            break;
        }
    }
    fprintf(stderr, "%s: stopping after %llu requests (%llu retransmissions answered again)\n",
            prog, (unsigned long long)emcp_coap_requests(&coap),
            (unsigned long long)emcp_coap_replays(&coap));
    emcp_coap_close(&coap);
    coap_cleanup();
    return status;
}
