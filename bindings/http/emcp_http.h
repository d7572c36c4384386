/**
 * @file emcp_http.h
 * @brief The MCP Streamable HTTP binding for emcp (revision 2026-07-28, and
 *        2025-11-25 for legacy clients), over BSD sockets and http_parser.
 *
 * Single-threaded and non-blocking: the firmware's loop (or one thread) calls
 * emcp_http_poll(), which waits at most the given time in one poll() over the
 * listening socket and every open connection, then accepts, reads, parses,
 * answers and writes as far as each socket allows. One slow client never
 * blocks another. Nothing is allocated: the connection table, each
 * connection's receive and transmit buffers and the poll set live inside
 * emcp_http_t (static storage of the caller), and every limit is a named
 * constant below (documented in docs/bindings/http.md).
 *
 * HTTP rules (docs/bindings/http.md has the full table):
 * - POST on the endpoint path only ("/mcp"); other methods 405 with
 *   "Allow: POST", other paths 404; Content-Type application/json (415),
 *   Accept must admit application/json (406); a body over
 *   EMCP_HTTP_BODY_MAX is 413, headers over EMCP_HTTP_HEADER_MAX 431,
 *   slow headers 408; beyond the connection limit 503.
 * - Host and Origin: when bound to a loopback address, Host must name the
 *   loopback (DNS rebinding protection); a present Origin must be a loopback
 *   origin or in the allow-list (403 otherwise).
 * - Bearer authentication: an optional hook; a refused request gets 401 with
 *   WWW-Authenticate. The principal it returns reaches the core
 *   (mcp_request_ctx_t.principal, visible to tools through mcp_call_ctx()).
 * - MCP-Protocol-Version, Mcp-Method, Mcp-Name and Mcp-Param-* are handed to
 *   the core (MCP_CTX_HTTP), which compares them with the body (-32020); the
 *   response status is mcp_response_info_t.http_status (202 and no body for
 *   a notification).
 * - Legacy clients (no or a legacy MCP-Protocol-Version): a successful
 *   initialize gets an Mcp-Session-Id minted without a session table (a
 *   SipHash-2-4 MAC over a counter under a key drawn at start); later legacy
 *   requests without it get 400, with one that does not verify 404.
 * - Legacy server-to-client requests: a 2025-11-25 tool call whose tool asks
 *   for input (mcp_result_elicit, mcp_result_sample, mcp_result_list_roots,
 *   through the core's MCP_CTX_LEGACY_* flags and its mcp_roundtrip_t) is
 *   answered on an SSE stream: each input request the core writes goes out
 *   as an event, the client POSTs the responses (202), the core matches
 *   them by id and re-runs the call with them under inputResponses (and its
 *   requestState), and the final result ends the stream. The capabilities the client declared at initialize travel in its
 *   Mcp-Session-Id (MAC-protected); at most EMCP_HTTP_MAX_INPUT_CALLS calls
 *   wait at once, each at most input_timeout_ms; a disconnect cancels.
 * - Legacy GET stream (2025-11-25, with emcp_http_config_t.legacy_stream):
 *   a legacy session's GET opens the standalone SSE stream, which carries
 *   the same list changes as a listen stream (one pool slot each).
 * - subscriptions/listen (2026-07-28): a long-lived SSE stream, the
 *   acknowledgement first, then the list changes and resource updates the
 *   core emits (queued on the connection, sent by the poll loop); Accept
 *   must admit text/event-stream (406), at most EMCP_HTTP_MAX_LISTENERS at
 *   once (503). A disconnect ends the stream, a full queue closes it, and
 *   emcp_http_close() ends every stream with its final result.
 */

#ifndef EMCP_HTTP_H
#define EMCP_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__ZEPHYR__)
/* Zephyr: its copy of http_parser (CONFIG_HTTP_PARSER) and its BSD sockets
 * under POSIX names (CONFIG_NET_SOCKETS_POSIX_NAMES: poll, struct pollfd). */
#include <zephyr/net/http/parser.h>
#include <zephyr/net/socket.h>
/* nodejs http_parser's typedefs, which Zephyr's copy leaves out, and poll()'s
 * count type (Zephyr's poll takes an int). */
typedef struct http_parser http_parser;
typedef struct http_parser_settings http_parser_settings;
typedef int nfds_t;
#else
#include <http_parser.h>
#include <poll.h>
#endif

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Connection table size: concurrent connections beyond it get 503. */
#ifndef EMCP_HTTP_MAX_CONNS
#define EMCP_HTTP_MAX_CONNS 80
#endif

/** Most bytes of a request line plus headers (more: 431). */
#ifndef EMCP_HTTP_HEADER_MAX
#define EMCP_HTTP_HEADER_MAX 4096
#endif

/** Most header lines in one request (more: 431). */
#ifndef EMCP_HTTP_MAX_HEADERS
#define EMCP_HTTP_MAX_HEADERS 48
#endif

/** Most Mcp-Param-* headers passed to the core (more: 431). */
#ifndef EMCP_HTTP_MAX_PARAM_HEADERS
#define EMCP_HTTP_MAX_PARAM_HEADERS 8
#endif

/** Largest request body (one JSON-RPC message) in bytes (more: 413). */
#ifndef EMCP_HTTP_BODY_MAX
#define EMCP_HTTP_BODY_MAX 8192
#endif

/** Response body buffer per connection (the mcp_server_handle() buffer). */
#ifndef EMCP_HTTP_RESPONSE_MAX
#define EMCP_HTTP_RESPONSE_MAX 16384
#endif

/** Room for the response status line and headers. */
#define EMCP_HTTP_RESPONSE_HEAD_MAX 512

/** Room per connection for the notifications a request emits before its
 *  result (progress, log messages), framed as SSE events; the response then
 *  goes out as text/event-stream. An emit beyond it returns -MCP_ENOBUFS. */
#ifndef EMCP_HTTP_SSE_MAX
#define EMCP_HTTP_SSE_MAX 2048
#endif

/** Listen streams (subscriptions/listen at 2026-07-28) open at once: the pool
 *  of mcp_listener_t storage inside emcp_http_t. A listen request beyond it
 *  gets 503; 0 disables listen (the core then answers -32601 and advertises
 *  no listChanged). Each open stream also holds one connection slot. */
#ifndef EMCP_HTTP_MAX_LISTENERS
#define EMCP_HTTP_MAX_LISTENERS 4
#endif

/** An idle listen stream gets a ": ping" SSE comment this often, so proxies
 *  and clients do not time it out; a client that has not taken the bytes
 *  sent before (a stalled reader) is cut off at the next one. */
#ifndef EMCP_HTTP_LISTEN_KEEPALIVE_MS
#define EMCP_HTTP_LISTEN_KEEPALIVE_MS 15000
#endif

/** Legacy (2025-11-25) calls waiting at once for the client's answers to
 *  server-to-client requests (sampling, elicitation, roots): the table of
 *  struct emcp_http_input in emcp_http_t. While all are in use, a legacy
 *  call is run without the core's MCP_CTX_LEGACY_{ELICITATION,SAMPLING,ROOTS}
 *  flags, so a tool asking for input sees -MCP_ENOTSUP. 0 disables the
 *  legacy round trip. Each waiting call also holds its connection. */
#ifndef EMCP_HTTP_MAX_INPUT_CALLS
#define EMCP_HTTP_MAX_INPUT_CALLS 4
#endif

/** Round-trip buffer per waiting call (mcp_roundtrip_init): the call
 *  itself, the client's answers and the requestState, and, while a round
 *  starts, the tool's input requests. A call that does not fit is run as if
 *  the client could not be asked; answers that overflow it end the call
 *  with -32603. Requests per round and rounds per call are the core's
 *  MCP_ROUNDTRIP_MAX_REQUESTS and MCP_ROUNDTRIP_MAX_ROUNDS. */
#ifndef EMCP_HTTP_INPUT_BUF_MAX
#define EMCP_HTTP_INPUT_BUF_MAX 4096
#endif

/** Default time a legacy call waits for the client's answers (after it,
 *  the stream ends with a -32001 error). */
#ifndef EMCP_HTTP_INPUT_TIMEOUT_MS
#define EMCP_HTTP_INPUT_TIMEOUT_MS 60000
#endif

/** Most descriptors of the caller's that emcp_http_poll() also waits on
 *  (emcp_http_config_t.wake_fds). */
#define EMCP_HTTP_MAX_WAKE_FDS 2

/** Longest endpoint path, e.g. "/mcp". */
#define EMCP_HTTP_PATH_MAX 64

/** Default time from a request's first byte to the end of its headers. */
#ifndef EMCP_HTTP_HEADER_TIMEOUT_MS
#define EMCP_HTTP_HEADER_TIMEOUT_MS 5000
#endif

/** Default time from a request's first byte to the end of its body. */
#ifndef EMCP_HTTP_REQUEST_TIMEOUT_MS
#define EMCP_HTTP_REQUEST_TIMEOUT_MS 10000
#endif

/** Default idle time of a kept-alive connection, and the longest a response
 *  may take to drain to a client that does not read. */
#ifndef EMCP_HTTP_IDLE_TIMEOUT_MS
#define EMCP_HTTP_IDLE_TIMEOUT_MS 30000
#endif

/** How long a connection closed after an error keeps reading (and
 *  discarding) what the client still sends, so it reads the response instead
 *  of a reset. */
#ifndef EMCP_HTTP_LINGER_MS
#define EMCP_HTTP_LINGER_MS 2000
#endif

/** Length of a minted Mcp-Session-Id: hex of a 64-bit counter and a 64-bit MAC. */
#define EMCP_HTTP_SESSION_ID_LEN 32

/* Failures are the core's codes (emcp.h): -MCP_EIO when a socket call
 * failed, -MCP_ENOTSUP when TLS was asked for but is not built in or the
 * certificate or key could not be loaded. */

/**
 * The authentication hook. Called for every request on the endpoint with the
 * raw Authorization header value (NULL and 0 when absent).
 *
 * @param user          emcp_http_config_t.auth_user.
 * @param authorization The header value, not NUL-terminated, or NULL.
 * @param len           Its length.
 * @param principal     Set it to the authenticated identity (static or
 *                      user-owned storage, valid until the next call).
 * @return 0 to accept; anything else refuses with 401.
 */
typedef int (*emcp_http_auth_fn)(void *user, const char *authorization, size_t len,
                                 mcp_str_t *principal);

/** A single bearer token for emcp_http_bearer_auth. */
typedef struct emcp_http_bearer_t {
    const char *token;     /**< The expected token (NUL-terminated). */
    const char *principal; /**< The principal of a request bearing it. */
} emcp_http_bearer_t;

/**
 * A ready emcp_http_auth_fn: accepts "Bearer <token>" when the token equals
 * ((emcp_http_bearer_t *)user)->token, compared in constant time (the time
 * depends only on the expected token's length).
 */
int emcp_http_bearer_auth(void *user, const char *authorization, size_t len,
                          mcp_str_t *principal);

/** Several named bearer tokens for emcp_http_bearer_list_auth. */
typedef struct emcp_http_bearer_list_t {
    const emcp_http_bearer_t *entries; /**< Token and principal of each. */
    size_t len;                        /**< Number of entries. */
} emcp_http_bearer_list_t;

/**
 * A ready emcp_http_auth_fn for several clients: accepts "Bearer <token>"
 * when the token equals one entry's token of
 * ((emcp_http_bearer_list_t *)user), and sets that entry's principal (so
 * each client is a principal of its own, e.g. "operator" and "viewer").
 * Every entry is compared, in constant time, whichever matches: the time
 * depends only on the expected tokens' lengths. Give the entries distinct
 * tokens; with duplicates the first entry's principal is used.
 */
int emcp_http_bearer_list_auth(void *user, const char *authorization, size_t len,
                               mcp_str_t *principal);

/** Byte comparison whose time depends only on @p expected_len. 0 when equal. */
int emcp_http_ct_compare(const char *expected, size_t expected_len, const char *got,
                         size_t got_len);

/** Where and how to serve. Zero-initialise, then set what you need. */
typedef struct emcp_http_config_t {
    /** IPv4 address to bind, dotted quad; NULL means "127.0.0.1". */
    const char *bind_addr;
    /** TCP port; 0 lets the system choose (see emcp_http_port()). */
    uint16_t port;
    /** Endpoint path; NULL means "/mcp". */
    const char *path;
    /** Extra allowed Origin values (exact, e.g. "https://app.example"). */
    const char *const *allowed_origins;
    /** Number of entries in allowed_origins. */
    size_t allowed_origins_len;
    /** Authentication hook, or NULL for none. */
    emcp_http_auth_fn auth;
    /** Passed to auth. */
    void *auth_user;
    /** 16 random bytes keying the session MAC; all zero: drawn at
     *  emcp_http_open() from /dev/urandom, or on Zephyr from sys_csrand_get()
     *  (other firmware: pass its TRNG output). */
    uint8_t session_key[16];
    /** Concurrent connections allowed, at most EMCP_HTTP_MAX_CONNS (0: that). */
    unsigned max_conns;
    /** Timeouts in ms; 0 selects the EMCP_HTTP_*_TIMEOUT_MS default. */
    uint32_t header_timeout_ms;
    uint32_t request_timeout_ms; /**< See EMCP_HTTP_REQUEST_TIMEOUT_MS. */
    uint32_t idle_timeout_ms;    /**< See EMCP_HTTP_IDLE_TIMEOUT_MS. */
    uint32_t listen_keepalive_ms; /**< See EMCP_HTTP_LISTEN_KEEPALIVE_MS. */
    uint32_t input_timeout_ms;    /**< See EMCP_HTTP_INPUT_TIMEOUT_MS. */
    /** Diagnostics (one line per event), or NULL. */
    void (*log)(void *log_user, const char *line);
    /** Passed to log. */
    void *log_user;
    /** PEM certificate (chain) and private key files: serve HTTPS through
     *  the TLS library the binding is built with (EMCP_HTTP_WITH_OPENSSL,
     *  EMCP_HTTP_WITH_MBEDTLS or EMCP_HTTP_WITH_WOLFSSL; Mbed TLS needs
     *  MBEDTLS_FS_IO). NULL, and no tls_cert below: plain HTTP. */
    const char *tls_cert_file;
    const char *tls_key_file; /**< See tls_cert_file. */
    /** The certificate and key in memory instead of files (Mbed TLS only):
     *  DER, or PEM with its terminating NUL counted in the length. Firmware
     *  without a file system passes these. */
    const uint8_t *tls_cert;
    size_t tls_cert_len; /**< See tls_cert. */
    const uint8_t *tls_key;
    size_t tls_key_len; /**< See tls_cert. */
    /** TLS 1.3 key-exchange groups the server accepts, in order of
     *  preference, separated by ':' (e.g. "X25519MLKEM768" or
     *  "X25519MLKEM768:X25519"); the certificate and its verification do not
     *  depend on it. NULL: the TLS library's defaults. The wolfSSL engine
     *  (EMCP_HTTP_WITH_WOLFSSL) knows X25519, X25519MLKEM768,
     *  SecP256r1MLKEM768, secp256r1 and, in a wolfSSL built with standalone
     *  ML-KEM, ML-KEM-768; an unknown name fails emcp_http_open() with
     *  -MCP_ENOTSUP. OpenSSL takes its own group names; Mbed TLS refuses a
     *  list (-MCP_ENOTSUP). */
    const char *tls_groups;
    /** Called with each request body just before the core handles it (on
     *  the polling thread, after the HTTP checks and authentication passed),
     *  or NULL. For a host program whose core hooks need to know which
     *  message is being handled: emcp-gateway tells a tools/call from a
     *  tools/list there, since its policy hook lists a device's tools only
     *  while the device is online but lets a call through to answer
     *  "offline". The body is not NUL-terminated and valid during the call. */
    void (*inspect)(void *inspect_user, const uint8_t *body, size_t len);
    /** Passed to inspect. */
    void *inspect_user;
    /** Serve the 2025-11-25 standalone SSE stream: a legacy client's GET on
     *  the endpoint with `Accept: text/event-stream` and a valid
     *  Mcp-Session-Id gets a stream that carries the list changes the core
     *  emits (notifications/tools/list_changed, prompts, resources), as a
     *  2026-07-28 subscriptions/listen stream does. It takes a listen pool
     *  slot (EMCP_HTTP_MAX_LISTENERS; 503 when none is free), and the rules
     *  of a POST apply: Host, Origin, the auth hook (401), a missing session
     *  400, one that does not verify 404, Accept without text/event-stream
     *  406. A GET with a 2026-07-28 MCP-Protocol-Version is 405 as before.
     *  false: every GET is 405 (the default; 2025-11-25 allows it). */
    bool legacy_stream;
    /** Descriptors of the caller's (a pipe, stdin) that emcp_http_poll()
     *  waits on too, the first wake_fds_len of them: when one is readable
     *  or hangs up, the wait ends early and emcp_http_poll() returns, so a
     *  program that serves something else on the same thread (emcp-gateway:
     *  stdin with --http --stdio, its MQTT side's wake pipe) is not held up
     *  to timeout_ms. The binding never reads them; while one stays
     *  readable, emcp_http_poll() does not wait. 0 (the default): none. */
    int wake_fds[EMCP_HTTP_MAX_WAKE_FDS];
    size_t wake_fds_len; /**< See wake_fds; at most EMCP_HTTP_MAX_WAKE_FDS. */
} emcp_http_config_t;

#if EMCP_HTTP_WITH_MBEDTLS
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

/** The binding's Mbed TLS state (emcp_http_mbedtls.c): one configuration and
 *  one TLS context per connection slot, set up (and their record buffers
 *  allocated from Mbed TLS's heap) once at emcp_http_open(), reset for each
 *  new connection. Private to the binding. */
struct emcp_http_mbedtls {
    mbedtls_ssl_config conf;
    mbedtls_ctr_drbg_context drbg;
    mbedtls_x509_crt cert;
    mbedtls_pk_context key;
    mbedtls_ssl_context ssl[EMCP_HTTP_MAX_CONNS];
    bool ready;
};
#endif

/** Header spans of the request being received, as offsets into rx. */
struct emcp_http_span {
    uint16_t off;
    uint16_t len;
    bool set;
};

/** One connection slot. Private to the binding. */
struct emcp_http_conn {
    int fd; /* -1: free */
    http_parser parser;
    uint64_t deadline_ms;
    uint64_t started_ms;
    size_t rx_len;    /* bytes in rx */
    size_t rx_parsed; /* bytes of rx consumed by the parser */
    size_t tx_len, tx_off;
    bool in_request;       /* a request's first byte has arrived */
    bool headers_done;
    bool message_done;
    bool close_after_tx;
    bool draining;       /* response sent, write side shut: discarding input */
    bool tls_want_write; /* the TLS engine waits for the socket to be writable */
    void *tls;           /* SSL * of an HTTPS connection, else NULL */
    bool last_was_value; /* header callback state */
    uint16_t status;     /* early error status decided while parsing, 0: none */
    uint16_t header_count;
    uint16_t dup_routing; /* a routing header was repeated */
    uint16_t n_params;
    struct emcp_http_span url, field, value;
    struct emcp_http_span h_content_type, h_accept, h_origin, h_host, h_auth, h_version,
        h_method, h_name, h_session, h_expect;
    bool continue_sent; /* "100 Continue" answered to Expect */
    int listen_slot;    /* index into emcp_http_t.listeners of the open listen
                           stream this connection carries, -1: none */
    bool legacy_stream; /* that stream is a legacy GET stream: no final result */
    bool listen_broken; /* a notification did not fit: end the stream */
    int input_slot;     /* index into emcp_http_t.inputs of the legacy call
                           waiting on this connection for input, -1: none */
    struct emcp_http_span p_name[EMCP_HTTP_MAX_PARAM_HEADERS];
    struct emcp_http_span p_value[EMCP_HTTP_MAX_PARAM_HEADERS];
    size_t body_off, body_len;
    uint8_t rx[EMCP_HTTP_HEADER_MAX + EMCP_HTTP_BODY_MAX];
    size_t sse_len; /* bytes of SSE events staged at tx + RESPONSE_HEAD_MAX */
    uint8_t tx[EMCP_HTTP_RESPONSE_HEAD_MAX + EMCP_HTTP_SSE_MAX + EMCP_HTTP_RESPONSE_MAX + 4];
};

/** A legacy call waiting for the client's answers to server-to-client
 *  requests. Private to the binding. */
struct emcp_http_input {
    int conn;              /* index of the waiting connection, -1: free */
    uint64_t session;      /* counter of the call's Mcp-Session-Id */
    uint64_t deadline_ms;
    uint32_t flags;        /* the call's MCP_CTX_LEGACY_* flags, for the re-run */
    bool ready;            /* every request answered: re-run when the stream drains */
    mcp_roundtrip_t rt;    /* the core's state of the waiting call */
    uint8_t buf[EMCP_HTTP_INPUT_BUF_MAX]; /* rt's buffer */
};

/** A server instance: `static emcp_http_t http;`. Private contents. */
typedef struct emcp_http_t {
    mcp_server_t *server; /* not const: ending a listen stream detaches it */
    emcp_http_config_t cfg;
    int listen_fd;
    bool loopback;
    uint16_t port;
    char path[EMCP_HTTP_PATH_MAX];
    uint64_t session_counter;
    void *tls_ctx; /* SSL_CTX * (OpenSSL), &mbedtls (Mbed TLS) or WOLFSSL_CTX * (wolfSSL) when serving HTTPS */
#if EMCP_HTTP_WITH_MBEDTLS
    struct emcp_http_mbedtls mbedtls;
#endif
    http_parser_settings settings;
    struct pollfd pfds[EMCP_HTTP_MAX_CONNS + 1 + EMCP_HTTP_MAX_WAKE_FDS];
    struct emcp_http_conn conns[EMCP_HTTP_MAX_CONNS];
    /* Listen stream storage: EMCP_HTTP_MAX_LISTENERS pool slots, and one
     * scratch slot handed to requests that cannot open a stream (so
     * server/discover reports listChanged whether or not the pool is full). */
    mcp_listener_t listeners[EMCP_HTTP_MAX_LISTENERS + 1];
    bool listener_busy[EMCP_HTTP_MAX_LISTENERS + 1];
    /* Idempotency keys of this server's tools (one poll loop, so one table). */
    mcp_dedup_t dedup;
    /* Legacy calls waiting for input (one more, never used, keeps the array
     * well-formed when EMCP_HTTP_MAX_INPUT_CALLS is 0). */
    struct emcp_http_input inputs[EMCP_HTTP_MAX_INPUT_CALLS + 1];
    struct emcp_http_stats {
        uint64_t requests;  /**< Requests answered. */
        uint64_t rejected;  /**< Connections refused with 503. */
        uint64_t timeouts;  /**< Connections cut off by a timeout. */
        uint64_t listens;   /**< Listen streams opened. */
        uint64_t listen_rejected; /**< Listen requests refused with 503 (pool full). */
        uint64_t listen_overflows; /**< Streams ended because a notification did not fit. */
        uint64_t input_rounds;   /**< Rounds of legacy server-to-client requests sent. */
        uint64_t input_timeouts; /**< Legacy calls ended waiting for the client's answers. */
    } stats;
} emcp_http_t;

/**
 * Fills @p out with @p len bytes of the platform's CSPRNG: /dev/urandom on a
 * host, sys_csrand_get() on Zephyr. Used for the session key and by the
 * Mbed TLS engine's DRBG.
 * @retval 0 Filled.
 * @retval -1 No entropy source (other firmware: pass session_key, and seed
 *         TLS from the TRNG).
 */
int emcp_http_random(uint8_t *out, size_t len);

/**
 * Opens the listening socket and initialises the connection table.
 *
 * @retval 0 Success.
 * @retval -MCP_EINVAL NULL pointer, bad address or path, or more than
 *         EMCP_HTTP_MAX_WAKE_FDS wake_fds.
 * @retval -MCP_EIO socket, bind or listen failed.
 * @retval -MCP_ENOTSUP TLS asked for but unavailable, or the
 *         certificate or key did not load.
 */
int emcp_http_open(emcp_http_t *h, mcp_server_t *server, const emcp_http_config_t *cfg);

/**
 * Serves an already connected stream socket as if emcp_http_poll() had
 * accepted it from the listening socket: it is made non-blocking and takes a
 * connection slot (with TLS when the instance serves HTTPS). For sockets the
 * application accepts itself (inetd or systemd socket activation, a second
 * listener) and for tests that drive the binding through one end of a
 * socketpair() (fuzz/http). The binding owns @p fd from then on, whatever
 * the result.
 *
 * @retval 0 Served by the next emcp_http_poll() calls.
 * @retval -MCP_EINVAL NULL instance or negative fd.
 * @retval -MCP_ENOBUFS The table is full: answered 503 (plain HTTP) and closed.
 * @retval -MCP_EIO fcntl() or the TLS setup failed; closed.
 */
int emcp_http_adopt(emcp_http_t *h, int fd);

/** The bound port (useful with port 0). */
uint16_t emcp_http_port(const emcp_http_t *h);

/**
 * One bounded step: waits at most @p timeout_ms (less when a connection's
 * deadline comes first) for socket events and serves them.
 *
 * @return 0, or -MCP_EIO when poll() itself failed.
 */
int emcp_http_poll(emcp_http_t *h, int timeout_ms);

/** Number of listen streams open now. */
unsigned emcp_http_listen_count(const emcp_http_t *h);

/** Number of legacy calls waiting for the client's input now. */
unsigned emcp_http_input_count(const emcp_http_t *h);

/**
 * Closes every connection and the listening socket. Open listen streams end
 * gracefully first: each gets its final JSON-RPC result as the last SSE event
 * (mcp_server_listen_end), legacy calls waiting for input an error event,
 * and the binding waits up to EMCP_HTTP_LINGER_MS in total for those bytes
 * to leave.
 */
void emcp_http_close(emcp_http_t *h);

/**
 * Session id helpers (exposed for tests): writes the EMCP_HTTP_SESSION_ID_LEN
 * characters (and a NUL) for @p counter under the instance's key, and checks
 * one in constant time (1 valid, 0 not).
 */
void emcp_http_session_mint(const emcp_http_t *h, uint64_t counter,
                            char out[EMCP_HTTP_SESSION_ID_LEN + 1]);
int emcp_http_session_valid(const emcp_http_t *h, const char *id, size_t len);

/** SipHash-2-4 of @p len bytes under a 16-byte key (exposed for tests). */
uint64_t emcp_http_siphash24(const uint8_t key[16], const uint8_t *data, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_HTTP_H */
