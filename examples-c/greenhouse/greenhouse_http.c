/*
 * greenhouse-http: the greenhouse gateway as an MCP server over Streamable
 * HTTP (POST /mcp).
 *
 *   greenhouse-http [--listen ADDR:PORT] [--wind-lock]
 *                   [--token TOKEN | --token NAME:TOKEN...]
 *                   [--policy PRINCIPAL=TOOL[,TOOL...]]...
 *                   [--allow-origin ORIGIN]... [--max-conns N]
 *                   [--header-timeout-ms MS] [--idle-timeout-ms MS]
 *                   [--tls-cert CERT.pem --tls-key KEY.pem [--tls-groups G[:G...]]]
 *
 * Listens on 127.0.0.1:8080 unless told otherwise; logs and audit lines go to
 * stderr; once listening it prints "listening on http(s)://ADDR:PORT/mcp" to
 * stderr (PORT 0 picks a free port). With a certificate and key it serves
 * HTTPS (OpenSSL, Mbed TLS or wolfSSL, as the binding was built) behind the
 * same binding; --tls-groups picks the TLS 1.3 key exchange (X25519 or the
 * post-quantum hybrid X25519MLKEM768 with wolfSSL). Stops on SIGINT or SIGTERM.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emcp.h"
#include "emcp_clock.h"
#include "emcp_http.h"
#include "greenhouse.h"

#define MAX_ORIGINS 8
/** Bearer tokens --token can configure. */
#define MAX_TOKENS 8
/** Longest NAME in --token NAME:TOKEN (bytes). */
#define TOKEN_NAME_MAX 63

static mcp_server_t server;
static emcp_http_t http;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void log_line(void *user, const char *line)
{
    fprintf((FILE *)user, "%s\n", line);
}

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "usage: %s [--listen ADDR:PORT] [--wind-lock]\n"
            "          [--token TOKEN | --token NAME:TOKEN...] [--policy P=T[,T...]]...\n"
            "          [--allow-origin ORIGIN]... [--max-conns N]\n"
            "          [--header-timeout-ms MS] [--idle-timeout-ms MS]\n"
            "          [--tls-cert CERT.pem --tls-key KEY.pem [--tls-groups G[:G...]]]\n"
            "  Serves the greenhouse gateway over MCP Streamable HTTP at /mcp.\n"
            "  --listen        IPv4 address and port (default 127.0.0.1:8080; port 0: any)\n"
            "  --wind-lock     start with the wind lock on (set_vent above 0 is refused)\n"
            "  --token TOKEN   require 'Authorization: Bearer TOKEN' (401 otherwise); the\n"
            "                  principal is \"bearer-client\"\n"
            "  --token NAME:TOKEN  accept this token as principal NAME (repeatable, at most\n"
            "                  %d; a bearer token has no ':', so the first one splits)\n"
            GREENHOUSE_POLICY_USAGE GREENHOUSE_DURABLE_USAGE
            "  --allow-origin  accept this Origin besides loopback ones (repeatable)\n"
            "  --max-conns     concurrent connections (at most %d; beyond: 503)\n"
            "  --tls-cert/--tls-key  serve HTTPS with this PEM certificate and key\n"
            "  --tls-groups    the TLS 1.3 key-exchange groups accepted, ':'-separated, e.g.\n"
            "                  X25519MLKEM768 or X25519 (wolfSSL build: X25519, X25519MLKEM768,\n"
            "                  SecP256r1MLKEM768, ML-KEM-768, secp256r1; default: the TLS library's own)\n",
            prog, MAX_TOKENS, EMCP_HTTP_MAX_CONNS);
}

static bool parse_u32(const char *s, unsigned long max, uint32_t *out)
{
    char *end = NULL;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end != '\0' || v > max) {
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* --token TOKEN (principal "bearer-client") or --token NAME:TOKEN. */
static bool add_token(const char *prog, const char *v, char names[][TOKEN_NAME_MAX + 1],
                      emcp_http_bearer_t *bearers, size_t *len)
{
    if (*len >= MAX_TOKENS) {
        fprintf(stderr, "%s: at most %d --token\n", prog, MAX_TOKENS);
        return false;
    }
    const char *colon = strchr(v, ':');
    const char *token = colon != NULL ? colon + 1 : v;
    size_t name_len = colon != NULL ? (size_t)(colon - v) : 0;
    if (token[0] == '\0' || (colon != NULL && (name_len == 0 || name_len > TOKEN_NAME_MAX))) {
        fprintf(stderr, "%s: --token wants TOKEN or NAME:TOKEN (NAME 1-%d bytes, TOKEN non-empty)\n",
                prog, TOKEN_NAME_MAX);
        return false;
    }
    for (size_t i = 0; i < *len; i++) {
        if (strcmp(bearers[i].token, token) == 0) {
            fprintf(stderr, "%s: two --token options with the same TOKEN\n", prog);
            return false;
        }
    }
    if (colon != NULL) {
        memcpy(names[*len], v, name_len);
        names[*len][name_len] = '\0';
    } else {
        snprintf(names[*len], TOKEN_NAME_MAX + 1, "bearer-client");
    }
    bearers[*len].token = token;
    bearers[*len].principal = names[*len];
    (*len)++;
    return true;
}

int main(int argc, char **argv)
{
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : "greenhouse-http";
    static char addr[64] = "127.0.0.1";
    static const char *origins[MAX_ORIGINS];
    static char names[MAX_TOKENS][TOKEN_NAME_MAX + 1];
    static emcp_http_bearer_t bearers[MAX_TOKENS];
    static emcp_http_bearer_list_t bearer_list = {bearers, 0};
    emcp_http_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.port = 8080;
    bool wind_lock = false;

    if (greenhouse_durable_options(prog, &argc, argv) < 0) {
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint32_t n = 0;
        if (strcmp(a, "--wind-lock") == 0) {
            wind_lock = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, prog);
            return 0;
        }
        if (v == NULL) {
            fprintf(stderr, "%s: '%s' needs a value or is unknown\n", prog, a);
            usage(stderr, prog);
            return 2;
        }
        i++;
        if (strcmp(a, "--listen") == 0) {
            const char *colon = strrchr(v, ':');
            if (colon == NULL || (size_t)(colon - v) >= sizeof addr ||
                !parse_u32(colon + 1, 65535, &n)) {
                fprintf(stderr, "%s: --listen wants ADDR:PORT\n", prog);
                return 2;
            }
            memcpy(addr, v, (size_t)(colon - v));
            addr[colon - v] = '\0';
            cfg.port = (uint16_t)n;
        } else if (strcmp(a, "--token") == 0) {
            if (!add_token(prog, v, names, bearers, &bearer_list.len)) {
                return 2;
            }
            cfg.auth = emcp_http_bearer_list_auth;
            cfg.auth_user = &bearer_list;
        } else if (strcmp(a, "--policy") == 0) {
            const char *why = NULL;
            if (greenhouse_add_policy(v, &why) != 0) {
                fprintf(stderr, "%s: --policy %s: %s\n", prog, v, why);
                return 2;
            }
        } else if (strcmp(a, "--allow-origin") == 0) {
            if (cfg.allowed_origins_len >= MAX_ORIGINS) {
                fprintf(stderr, "%s: at most %d --allow-origin\n", prog, MAX_ORIGINS);
                return 2;
            }
            origins[cfg.allowed_origins_len++] = v;
        } else if (strcmp(a, "--max-conns") == 0 && parse_u32(v, EMCP_HTTP_MAX_CONNS, &n) && n > 0) {
            cfg.max_conns = n;
        } else if (strcmp(a, "--header-timeout-ms") == 0 && parse_u32(v, 3600000, &n)) {
            cfg.header_timeout_ms = n;
            cfg.request_timeout_ms = 2 * n;
        } else if (strcmp(a, "--tls-cert") == 0) {
            cfg.tls_cert_file = v;
        } else if (strcmp(a, "--tls-key") == 0) {
            cfg.tls_key_file = v;
        } else if (strcmp(a, "--tls-groups") == 0) {
            cfg.tls_groups = v;
        } else if (strcmp(a, "--idle-timeout-ms") == 0 && parse_u32(v, 3600000, &n)) {
            cfg.idle_timeout_ms = n;
        } else {
            fprintf(stderr, "%s: bad argument '%s %s'\n", prog, a, v);
            usage(stderr, prog);
            return 2;
        }
    }
    if (cfg.tls_groups != NULL && cfg.tls_cert_file == NULL) {
        fprintf(stderr, "%s: --tls-groups needs --tls-cert and --tls-key\n", prog);
        return 2;
    }
    cfg.bind_addr = addr;
    cfg.allowed_origins = origins;
    cfg.log = log_line;
    cfg.log_user = stderr;

    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);

    const mcp_store_t *store = NULL;
    int rc = greenhouse_setup(prog, &server, wind_lock, &store);
    if (rc != 0) {
        return 1;
    }
    rc = emcp_http_open(&http, &server, &cfg);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot listen on %s:%u (%d)\n", prog, addr, cfg.port, rc);
        return 1;
    }
    if (store != NULL) {
        /* The binding's key table, made durable before the first request. */
        rc = mcp_dedup_set_store(&http.dedup, store, emcp_monotonic_ms());
        if (rc < 0) {
            fprintf(stderr, "%s: cannot read the durable store (%d)\n", prog, rc);
            return 1;
        }
        fprintf(stderr, "%s: %d idempotency records restored\n", prog, rc);
    }
    fprintf(stderr, "%s: listening on %s://%s:%u/mcp (wind lock %s%s)\n", prog,
            cfg.tls_cert_file != NULL ? "https" : "http", addr,
            emcp_http_port(&http), wind_lock ? "on" : "off", cfg.auth ? ", bearer token" : "");
    for (size_t i = 0; i < bearer_list.len; i++) {
        fprintf(stderr, "%s: token %zu authenticates principal %s\n", prog, i + 1, names[i]);
    }
    fflush(stderr);

    while (!stop) {
        if (emcp_http_poll(&http, 1000) != 0) {
            fprintf(stderr, "%s: poll failed\n", prog);
            break;
        }
    }
    emcp_http_close(&http);
    fprintf(stderr, "%s: stopped (%llu requests, %llu refused with 503, %llu timeouts)\n", prog,
            (unsigned long long)http.stats.requests, (unsigned long long)http.stats.rejected,
            (unsigned long long)http.stats.timeouts);
    return 0;
}
