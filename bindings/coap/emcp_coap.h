/**
 * @file emcp_coap.h
 * @brief The MCP CoAP binding for emcp on libcoap 4.3 (docs/bindings/coap.md).
 *
 * One JSON-RPC message per CoAP POST to the resource `mcp`, Content-Format 50
 * (application/json). The response carries the JSON-RPC response with
 * Content-Format 50 and code 2.05 (4.00 / 4.04 for JSON-RPC errors, mirroring
 * the HTTP status the core reports), or 2.04 with no payload for a
 * notification. Block-wise transfer (RFC 7959) is libcoap's job in both
 * directions: the binding sets COAP_BLOCK_USE_LIBCOAP | COAP_BLOCK_SINGLE_BODY,
 * reads the reassembled request with coap_get_data_large() and hands the
 * response to coap_add_data_large_response(), which keeps it until the last
 * Block2 block has gone out and then gives its buffer back.
 *
 * Security: plain CoAP (coap://, no principal), or DTLS (coaps://) with
 * pre-shared keys (the PSK identity is the principal) and/or certificates
 * (the client certificate's subject CN is the principal), through whatever
 * DTLS backend libcoap was built with.
 *
 * Portability: only the libcoap 4.3 API and C11 (snprintf, memcpy). No
 * sockets, files, threads or clocks of the platform are used here: the
 * caller passes a coap_address_t, PEM buffers and a clock function, so the
 * same file is meant to build on Linux, on Zephyr's libcoap module and on
 * lwIP (Linux and Zephyr's native_sim are built and tested here; lwIP is not).
 *
 * Memory: nothing is allocated by the binding. Its state, including
 * EMCP_COAP_RESPONSE_SLOTS response buffers of EMCP_COAP_RESPONSE_MAX bytes,
 * lives in the caller's emcp_coap_t (e.g. `static emcp_coap_t coap;`).
 * libcoap itself allocates its sessions, PDUs and block-wise state through
 * its own allocator, bounded by the session limits below (except Block1
 * reassembly in libcoap 4.3.1: see docs/bindings/coap.md, section 11).
 *
 * Retransmissions: a request repeated with the same Message ID and token
 * (its ACK was lost) is answered with the kept response and not run again.
 *
 * Threading: one emcp_coap_t is driven by one thread (the one calling
 * emcp_coap_poll()); several instances may share one mcp_server_t.
 */

#ifndef EMCP_COAP_H
#define EMCP_COAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <coap3/coap.h>

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Limits (each documented in docs/bindings/coap.md) ------------------ */

/** Largest request body in bytes after Block1 reassembly; larger → 4.13. */
#ifndef EMCP_COAP_REQUEST_MAX
#define EMCP_COAP_REQUEST_MAX 8192
#endif

/** Size of one response buffer (the response_cap given to the core). */
#ifndef EMCP_COAP_RESPONSE_MAX
#define EMCP_COAP_RESPONSE_MAX 8192
#endif

/**
 * Response buffers. A response that needs Block2 keeps its buffer until
 * libcoap has sent the last block (or given up on the transfer); with every
 * buffer taken a request is answered 5.03 with Max-Age EMCP_COAP_BUSY_RETRY_S.
 */
#ifndef EMCP_COAP_RESPONSE_SLOTS
#define EMCP_COAP_RESPONSE_SLOTS 8
#endif

/** Idle sessions libcoap keeps (least recently used beyond that are freed). */
#ifndef EMCP_COAP_MAX_SESSIONS
#define EMCP_COAP_MAX_SESSIONS 8
#endif

/** DTLS handshakes in progress at once (the oldest beyond that is dropped). */
#ifndef EMCP_COAP_MAX_HANDSHAKES
#define EMCP_COAP_MAX_HANDSHAKES 4
#endif

/** Seconds of inactivity after which libcoap closes a server session. */
#ifndef EMCP_COAP_SESSION_TIMEOUT_S
#define EMCP_COAP_SESSION_TIMEOUT_S 60
#endif

/** Longest certificate subject CN kept as a principal (bytes, without NUL). */
#ifndef EMCP_COAP_PRINCIPAL_MAX
#define EMCP_COAP_PRINCIPAL_MAX 64
#endif

/** Certificate principals remembered at once (one per DTLS-PKI session). */
#ifndef EMCP_COAP_PKI_PRINCIPALS
#define EMCP_COAP_PKI_PRINCIPALS EMCP_COAP_MAX_SESSIONS
#endif

/**
 * Seconds during which a repeated request (same peer, Message ID and token:
 * a CoAP retransmission) is answered from the kept response instead of being
 * run again; RFC 7252's EXCHANGE_LIFETIME. Only responses still held in one
 * of the EMCP_COAP_RESPONSE_SLOTS buffers can be replayed.
 */
#ifndef EMCP_COAP_DEDUP_LIFETIME_S
#define EMCP_COAP_DEDUP_LIFETIME_S 247
#endif

/** Max-Age (seconds) of a 5.03 answer: when a client may retry. */
#ifndef EMCP_COAP_BUSY_RETRY_S
#define EMCP_COAP_BUSY_RETRY_S 2
#endif

/** Longest log line the binding writes (bytes, with the NUL). */
#ifndef EMCP_COAP_LOG_LINE_MAX
#define EMCP_COAP_LOG_LINE_MAX 256
#endif

/** The resource path, without a leading slash. */
#define EMCP_COAP_RESOURCE "mcp"

/* ---- Configuration ------------------------------------------------------ */

/** One pre-shared key: the identity (the principal) and its secret. */
typedef struct emcp_coap_psk_t {
    const uint8_t *identity;
    size_t identity_len;
    const uint8_t *key;
    size_t key_len;
} emcp_coap_psk_t;

/**
 * Certificate mode: the server's certificate and key and the CA that signs
 * client certificates, all PEM text in memory (no file system needed). Every
 * client must present a certificate signed by that CA; its subject CN becomes
 * the principal.
 */
typedef struct emcp_coap_pki_t {
    const uint8_t *ca_pem;
    size_t ca_pem_len;
    const uint8_t *cert_pem;
    size_t cert_pem_len;
    const uint8_t *key_pem;
    size_t key_pem_len;
} emcp_coap_pki_t;

/** Receives one NUL-terminated log line (no newline). */
typedef void (*emcp_coap_log_fn)(void *user, const char *line);

/** Milliseconds of a monotonic clock (for mcp_request_ctx_t.now_ms). */
typedef uint64_t (*emcp_coap_clock_fn)(void);

/**
 * What emcp_coap_open() needs. Everything pointed to must stay valid until
 * emcp_coap_close().
 */
typedef struct emcp_coap_config_t {
    /** Address and port to listen on (e.g. 127.0.0.1:5683). */
    const coap_address_t *listen;
    /** Pre-shared keys, or NULL; with any, the endpoint is DTLS (coaps://). */
    const emcp_coap_psk_t *psks;
    size_t psk_count;
    /** Certificate mode, or NULL; with it, the endpoint is DTLS (coaps://). */
    const emcp_coap_pki_t *pki;
    /** The clock for now_ms, or NULL (now_ms is then 0). */
    emcp_coap_clock_fn clock_ms;
    /** Diagnostics, or NULL for none. */
    emcp_coap_log_fn log;
    void *log_user;
    /** Also log one line per handled POST (peer, principal, code, sizes). */
    bool log_requests;
} emcp_coap_config_t;

/* ---- The binding -------------------------------------------------------- */

/** @internal One response buffer, and the request it answered (for
 *  replaying the response to a retransmission of that request). */
struct emcp_coap_slot {
    unsigned refs;      /* 1 while being filled, then one per libcoap transfer */
    const coap_session_t *owner; /* the session it was filled for */
    bool has_key;       /* peer/mid/token below name the answered request */
    coap_address_t peer;
    coap_mid_t mid;
    uint8_t token_len;
    uint8_t token[8];
    coap_tick_t answered_at;
    coap_pdu_code_t code;
    size_t len;
    uint8_t buf[EMCP_COAP_RESPONSE_MAX];
};

/** @internal A certificate principal tied to one DTLS session. */
struct emcp_coap_principal {
    const coap_session_t *owner; /* NULL when free */
    uint32_t last_used;          /* for least-recently-used reuse */
    size_t len;
    char name[EMCP_COAP_PRINCIPAL_MAX + 1];
};

/** One binding instance; caller-owned storage, contents private. */
typedef struct emcp_coap_t {
    mcp_server_t *server;
    emcp_coap_config_t cfg;
    coap_context_t *ctx;
    coap_resource_t *resource;
    bool secure;
    uint32_t use_counter;
    uint64_t requests; /* POSTs handed to the core (for the log and tests) */
    uint64_t replays;  /* retransmissions answered from a kept response */
    size_t next_slot;  /* where the search for a free buffer starts */
    struct emcp_coap_slot slots[EMCP_COAP_RESPONSE_SLOTS];
    struct emcp_coap_principal principals[EMCP_COAP_PKI_PRINCIPALS];
    /* Idempotency keys of this server's tools (one libcoap loop, one table). */
    mcp_dedup_t dedup;
} emcp_coap_t;

/* Failures are the core's codes (emcp.h): -MCP_EIO when libcoap could not
 * set up the context, keys or endpoint, -MCP_ENOTSUP when DTLS was asked for
 * but libcoap has no DTLS backend. */

/**
 * Creates the libcoap context, the `mcp` resource (with `rt="mcp";ct=50` in
 * /.well-known/core) and the endpoint. Call coap_startup() once before.
 *
 * @param b      Storage for the binding.
 * @param server An initialised server with its tools registered.
 * @param cfg    Listen address, keys, clock and log; copied.
 * @retval 0 Success.
 * @retval -MCP_EINVAL A NULL pointer, no listen address, a PSK entry with an
 *         empty identity or key, or incomplete PKI buffers.
 * @retval -MCP_ENOTSUP DTLS requested but not available in libcoap.
 * @retval -MCP_EIO libcoap failed (e.g. the address is in use).
 */
int emcp_coap_open(emcp_coap_t *b, mcp_server_t *server, const emcp_coap_config_t *cfg);

/**
 * Runs libcoap's I/O once: waits at most @p timeout_ms for datagrams and
 * timers, handles what arrived, retransmits what is due.
 *
 * @return The milliseconds spent, as coap_io_process() reports it.
 * @retval -MCP_EIO libcoap reported an I/O failure.
 * @retval -MCP_EINVAL @p b is not open.
 */
int emcp_coap_poll(emcp_coap_t *b, uint32_t timeout_ms);

/** Frees the libcoap context (sessions, pending blocks); @p b may be reused. */
void emcp_coap_close(emcp_coap_t *b);

/** POST requests handed to the core so far. */
uint64_t emcp_coap_requests(const emcp_coap_t *b);

/** Retransmitted requests answered from a kept response (not run again). */
uint64_t emcp_coap_replays(const emcp_coap_t *b);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_COAP_H */
