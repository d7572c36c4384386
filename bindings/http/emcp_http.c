/*
 * The MCP Streamable HTTP binding: BSD sockets, poll() and http_parser,
 * single-threaded and non-blocking, no allocation. See emcp_http.h and
 * docs/bindings/http.md.
 */

#include "emcp_http.h"

#include "emcp_clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#if defined(__ZEPHYR__)
/* Zephyr's sockets under POSIX names (socket, recv, close, fcntl, inet_pton
 * come with <zephyr/net/socket.h> through emcp_http.h); entropy from the
 * CSPRNG. */
#if __has_include(<zephyr/random/random.h>)
#include <zephyr/random/random.h>
#else
#include <zephyr/random/rand32.h> /* Zephyr before 3.5 */
#endif
#include <sys/types.h>
#else
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#endif

#if (EMCP_HTTP_WITH_OPENSSL + EMCP_HTTP_WITH_MBEDTLS + EMCP_HTTP_WITH_WOLFSSL) > 1
#error "emcp_http: build with one TLS library, EMCP_HTTP_WITH_OPENSSL, _MBEDTLS or _WOLFSSL"
#endif
/* TLS goes through one engine, linked beside this file: emcp_http_tls_none.c,
 * emcp_http_openssl.c, emcp_http_mbedtls.c or emcp_http_wolfssl.c
 * (emcp_http_tls.h). */
#include "emcp_http_tls.h"

#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0 /* the application ignores SIGPIPE instead */
#endif

_Static_assert(EMCP_HTTP_RESPONSE_MAX >= MCP_MIN_RESPONSE_CAP,
               "EMCP_HTTP_RESPONSE_MAX must be at least MCP_MIN_RESPONSE_CAP");
_Static_assert(EMCP_HTTP_HEADER_MAX + EMCP_HTTP_BODY_MAX < 65535,
               "header spans are 16-bit offsets into the receive buffer");
_Static_assert(EMCP_HTTP_MAX_CONNS > 0, "EMCP_HTTP_MAX_CONNS must be positive");
_Static_assert(EMCP_HTTP_MAX_LISTENERS >= 0 && EMCP_HTTP_MAX_LISTENERS <= EMCP_HTTP_MAX_CONNS,
               "EMCP_HTTP_MAX_LISTENERS must be 0 to EMCP_HTTP_MAX_CONNS");
_Static_assert(EMCP_HTTP_LISTEN_KEEPALIVE_MS > 0, "EMCP_HTTP_LISTEN_KEEPALIVE_MS must be positive");
_Static_assert(EMCP_HTTP_MAX_INPUT_CALLS >= 0 && EMCP_HTTP_MAX_INPUT_CALLS <= EMCP_HTTP_MAX_CONNS,
               "EMCP_HTTP_MAX_INPUT_CALLS must be 0 to EMCP_HTTP_MAX_CONNS");
_Static_assert(EMCP_HTTP_INPUT_BUF_MAX >= MCP_ROUNDTRIP_MIN_BUF,
               "EMCP_HTTP_INPUT_BUF_MAX must be at least MCP_ROUNDTRIP_MIN_BUF");

/* ---- Small helpers ------------------------------------------------------ */


static void logf_(const emcp_http_t *h, const char *fmt, ...)
{
    if (h->cfg.log == NULL) {
        return;
    }
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    h->cfg.log(h->cfg.log_user, line);
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Case-insensitive equality of a span with a NUL-terminated lowercase name. */
static bool ieq(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    if (len != n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (lower(s[i]) != lit[i]) {
            return false;
        }
    }
    return true;
}

static bool iprefix(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    return len >= n && ieq(s, n, lit);
}

/* Case-insensitive search of a lowercase needle. */
static bool icontains(const char *s, size_t len, const char *lit)
{
    size_t n = strlen(lit);
    for (size_t i = 0; i + n <= len; i++) {
        if (ieq(s + i, n, lit)) {
            return true;
        }
    }
    return false;
}

static void trim(const char **s, size_t *len)
{
    while (*len > 0 && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t')) {
        (*len)--;
    }
}

int emcp_http_ct_compare(const char *expected, size_t expected_len, const char *got,
                         size_t got_len)
{
    /* Every byte of the expected value is visited whatever arrives, so the
     * time reveals only the expected length. */
    unsigned diff = (unsigned)(expected_len != got_len);
    for (size_t i = 0; i < expected_len; i++) {
        unsigned char g = i < got_len ? (unsigned char)got[i] : 0u;
        diff |= (unsigned)((unsigned char)expected[i] ^ g);
    }
    return diff != 0;
}

/* The token of an `Authorization: Bearer <token>` value (case-insensitive
 * scheme, surrounding whitespace trimmed); false for any other scheme. */
static bool bearer_token(const char *authorization, size_t len, const char **tok, size_t *tok_len)
{
    trim(&authorization, &len);
    if (!iprefix(authorization, len, "bearer ")) {
        return false;
    }
    *tok = authorization + 7;
    *tok_len = len - 7;
    trim(tok, tok_len);
    return true;
}

int emcp_http_bearer_auth(void *user, const char *authorization, size_t len,
                          mcp_str_t *principal)
{
    const emcp_http_bearer_t *b = user;
    const char *tok;
    size_t tok_len;
    if (b == NULL || b->token == NULL || authorization == NULL ||
        !bearer_token(authorization, len, &tok, &tok_len)) {
        return -1;
    }
    if (emcp_http_ct_compare(b->token, strlen(b->token), tok, tok_len) != 0) {
        return -1;
    }
    principal->ptr = b->principal != NULL ? b->principal : "bearer";
    principal->len = strlen(principal->ptr);
    return 0;
}

int emcp_http_bearer_list_auth(void *user, const char *authorization, size_t len,
                               mcp_str_t *principal)
{
    const emcp_http_bearer_list_t *l = user;
    const char *tok;
    size_t tok_len;
    if (l == NULL || authorization == NULL || !bearer_token(authorization, len, &tok, &tok_len)) {
        return -1;
    }
    /* No early exit: every entry costs the same whether or not one matched. */
    const emcp_http_bearer_t *match = NULL;
    for (size_t i = 0; i < l->len; i++) {
        const emcp_http_bearer_t *b = &l->entries[i];
        if (b->token == NULL) {
            continue;
        }
        bool equal = emcp_http_ct_compare(b->token, strlen(b->token), tok, tok_len) == 0;
        match = (equal && match == NULL) ? b : match;
    }
    if (match == NULL) {
        return -1;
    }
    principal->ptr = match->principal != NULL ? match->principal : "bearer";
    principal->len = strlen(principal->ptr);
    return 0;
}

/* ---- SipHash-2-4 and stateless session ids ------------------------------ */

#define ROTL64(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                       \
    do {                                                                               \
        v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0; v0 = ROTL64(v0, 32);                  \
        v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2;                                       \
        v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0;                                       \
        v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2; v2 = ROTL64(v2, 32);                  \
    } while (0)

static uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) {
        v = (v << 8) | p[i];
    }
    return v;
}

uint64_t emcp_http_siphash24(const uint8_t key[16], const uint8_t *data, size_t len)
{
    uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
    uint64_t v0 = k0 ^ 0x736f6d6570736575ULL;
    uint64_t v1 = k1 ^ 0x646f72616e646f6dULL;
    uint64_t v2 = k0 ^ 0x6c7967656e657261ULL;
    uint64_t v3 = k1 ^ 0x7465646279746573ULL;
    size_t full = len & ~(size_t)7;
    for (size_t i = 0; i < full; i += 8) {
        uint64_t m = load_le64(data + i);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    uint64_t b = (uint64_t)len << 56;
    for (size_t j = 0; j < len - full; j++) {
        b |= (uint64_t)data[full + j] << (8 * j);
    }
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

static void hex64(uint64_t v, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--) {
        out[i] = digits[v & 15u];
        v >>= 4;
    }
}

static uint64_t session_mac(const emcp_http_t *h, uint64_t counter)
{
    uint8_t msg[8];
    for (int i = 0; i < 8; i++) {
        msg[i] = (uint8_t)(counter >> (8 * i));
    }
    return emcp_http_siphash24(h->cfg.session_key, msg, sizeof msg);
}

void emcp_http_session_mint(const emcp_http_t *h, uint64_t counter,
                            char out[EMCP_HTTP_SESSION_ID_LEN + 1])
{
    hex64(counter, out);
    hex64(session_mac(h, counter), out + 16);
    out[EMCP_HTTP_SESSION_ID_LEN] = '\0';
}

int emcp_http_session_valid(const emcp_http_t *h, const char *id, size_t len)
{
    if (len != EMCP_HTTP_SESSION_ID_LEN) {
        return 0;
    }
    uint64_t counter = 0;
    for (size_t i = 0; i < 16; i++) {
        char c = id[i];
        unsigned d;
        if (c >= '0' && c <= '9') {
            d = (unsigned)(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            d = (unsigned)(c - 'a' + 10);
        } else {
            return 0;
        }
        counter = (counter << 4) | d;
    }
    char expect[EMCP_HTTP_SESSION_ID_LEN + 1];
    emcp_http_session_mint(h, counter, expect);
    return emcp_http_ct_compare(expect + 16, 16, id + 16, 16) == 0;
}

/* ---- Connection state --------------------------------------------------- */

static uint64_t now_ms(void)
{
    return emcp_monotonic_ms();
}

static struct emcp_http_conn *conn_of(http_parser *p)
{
    return (struct emcp_http_conn *)p->data;
}

static void span_extend(struct emcp_http_conn *c, struct emcp_http_span *s, const char *at,
                        size_t len)
{
    size_t off = (size_t)((const uint8_t *)at - c->rx);
    if (!s->set) {
        s->off = (uint16_t)off;
        s->len = (uint16_t)len;
        s->set = true;
    } else {
        s->len = (uint16_t)(off + len - s->off);
    }
}

/* Header bytes are counted by position: a message starts at rx[0]. */
static int header_bounds(struct emcp_http_conn *c, const char *at, size_t len)
{
    if ((size_t)((const uint8_t *)at - c->rx) + len > EMCP_HTTP_HEADER_MAX) {
        c->status = 431;
        return -1;
    }
    return 0;
}

static const char *span_ptr(const struct emcp_http_conn *c, const struct emcp_http_span *s)
{
    return (const char *)c->rx + s->off;
}

static void request_reset(struct emcp_http_conn *c)
{
    c->headers_done = false;
    c->message_done = false;
    c->last_was_value = false;
    c->status = 0;
    c->header_count = 0;
    c->dup_routing = 0;
    c->n_params = 0;
    memset(&c->url, 0, sizeof c->url);
    memset(&c->field, 0, sizeof c->field);
    memset(&c->value, 0, sizeof c->value);
    memset(&c->h_content_type, 0, sizeof c->h_content_type);
    memset(&c->h_accept, 0, sizeof c->h_accept);
    memset(&c->h_origin, 0, sizeof c->h_origin);
    memset(&c->h_host, 0, sizeof c->h_host);
    memset(&c->h_auth, 0, sizeof c->h_auth);
    memset(&c->h_version, 0, sizeof c->h_version);
    memset(&c->h_method, 0, sizeof c->h_method);
    memset(&c->h_name, 0, sizeof c->h_name);
    memset(&c->h_session, 0, sizeof c->h_session);
    memset(&c->h_expect, 0, sizeof c->h_expect);
    c->continue_sent = false;
    c->body_off = 0;
    c->body_len = 0;
}

/* ---- http_parser callbacks ---------------------------------------------- */

static int on_message_begin(http_parser *p)
{
    request_reset(conn_of(p));
    return 0;
}

static int on_url(http_parser *p, const char *at, size_t len)
{
    struct emcp_http_conn *c = conn_of(p);
    if (header_bounds(c, at, len) != 0) {
        return -1;
    }
    span_extend(c, &c->url, at, len);
    return 0;
}

/* Stores a header we care about; others are only counted. */
static int commit_header(struct emcp_http_conn *c)
{
    if (!c->field.set) {
        return 0;
    }
    if (++c->header_count > EMCP_HTTP_MAX_HEADERS) {
        c->status = 431;
        return -1;
    }
    const char *f = span_ptr(c, &c->field);
    size_t n = c->field.len;
    struct emcp_http_span v = c->value;
    if (!v.set) { /* an empty value */
        v.off = (uint16_t)(c->field.off + c->field.len);
        v.len = 0;
        v.set = true;
    }
    struct emcp_http_span *dst = NULL;
    bool routing = false;
    if (ieq(f, n, "content-type")) {
        dst = &c->h_content_type;
    } else if (ieq(f, n, "accept")) {
        dst = &c->h_accept;
    } else if (ieq(f, n, "origin")) {
        dst = &c->h_origin;
    } else if (ieq(f, n, "host")) {
        dst = &c->h_host;
    } else if (ieq(f, n, "authorization")) {
        dst = &c->h_auth;
    } else if (ieq(f, n, "expect")) {
        dst = &c->h_expect;
    } else if (ieq(f, n, "mcp-session-id")) {
        dst = &c->h_session;
    } else if (ieq(f, n, "mcp-protocol-version")) {
        dst = &c->h_version;
        routing = true;
    } else if (ieq(f, n, "mcp-method")) {
        dst = &c->h_method;
        routing = true;
    } else if (ieq(f, n, "mcp-name")) {
        dst = &c->h_name;
        routing = true;
    } else if (iprefix(f, n, "mcp-param-")) {
        if (c->n_params >= EMCP_HTTP_MAX_PARAM_HEADERS) {
            c->status = 431;
            return -1;
        }
        struct emcp_http_span name = {(uint16_t)(c->field.off + 10), (uint16_t)(n - 10), true};
        c->p_name[c->n_params] = name;
        c->p_value[c->n_params] = v;
        c->n_params++;
    }
    if (dst != NULL) {
        if (dst->set && routing) {
            c->dup_routing = 1;
        }
        if (!dst->set) {
            *dst = v;
        }
    }
    memset(&c->field, 0, sizeof c->field);
    memset(&c->value, 0, sizeof c->value);
    return 0;
}

static int on_header_field(http_parser *p, const char *at, size_t len)
{
    struct emcp_http_conn *c = conn_of(p);
    if (header_bounds(c, at, len) != 0) {
        return -1;
    }
    if (c->last_was_value) {
        if (commit_header(c) != 0) {
            return -1;
        }
        c->last_was_value = false;
    }
    span_extend(c, &c->field, at, len);
    return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t len)
{
    struct emcp_http_conn *c = conn_of(p);
    if (header_bounds(c, at, len) != 0) {
        return -1;
    }
    c->last_was_value = true;
    span_extend(c, &c->value, at, len);
    return 0;
}

static int on_headers_complete(http_parser *p)
{
    struct emcp_http_conn *c = conn_of(p);
    if (commit_header(c) != 0) {
        return -1;
    }
    c->headers_done = true;
    if ((p->flags & F_CONTENTLENGTH) && p->content_length > EMCP_HTTP_BODY_MAX) {
        c->status = 413;
        return -1;
    }
    return 0;
}

static int on_body(http_parser *p, const char *at, size_t len)
{
    struct emcp_http_conn *c = conn_of(p);
    if (c->body_len + len > EMCP_HTTP_BODY_MAX) {
        c->status = 413;
        return -1;
    }
    if (c->body_len == 0) {
        c->body_off = (size_t)((const uint8_t *)at - c->rx);
    }
    /* Chunked bodies arrive in pieces: pack them together over the chunk
     * framing already parsed (the destination never passes the source). */
    memmove(c->rx + c->body_off + c->body_len, at, len);
    c->body_len += len;
    return 0;
}

static int on_message_complete(http_parser *p)
{
    struct emcp_http_conn *c = conn_of(p);
    c->message_done = true;
    http_parser_pause(p, 1); /* one request at a time; the rest waits in rx */
    return 0;
}

/* ---- Socket I/O, plain or TLS ------------------------------------------- */

enum { IO_AGAIN = EMCP_HTTP_TLS_AGAIN, IO_ERROR = EMCP_HTTP_TLS_ERROR };

/* Bytes read, 0 at end of stream, IO_AGAIN or IO_ERROR. */
static ssize_t conn_recv(struct emcp_http_conn *c, void *buf, size_t len)
{
    if (c->tls != NULL) {
        return emcp_http_tls_recv(c->tls, buf, len, &c->tls_want_write);
    }
    ssize_t n = recv(c->fd, buf, len, 0);
    if (n >= 0) {
        return n;
    }
    return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? IO_AGAIN : IO_ERROR;
}

/* Bytes written (> 0), IO_AGAIN or IO_ERROR. */
static ssize_t conn_send(struct emcp_http_conn *c, const void *buf, size_t len)
{
    if (c->tls != NULL) {
        return emcp_http_tls_send(c->tls, buf, len);
    }
    ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
    if (n > 0) {
        return n;
    }
    return (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) ? IO_AGAIN
                                                                                 : IO_ERROR;
}

/* Decrypted bytes the TLS engine holds that poll() cannot see. */
static bool conn_pending(const struct emcp_http_conn *c)
{
    return c->tls != NULL && emcp_http_tls_pending(c->tls);
}

static void tls_free(struct emcp_http_conn *c, bool notify)
{
    if (c->tls != NULL) {
        emcp_http_tls_detach(c->tls, notify);
    }
    c->tls = NULL;
}

/* ---- Sending ------------------------------------------------------------ */

/* Detaches the connection's listen stream, if any (the client went away or
 * the stream broke: nothing more is sent), and frees its pool slot. */
static void listen_drop(emcp_http_t *h, struct emcp_http_conn *c)
{
    if (c->listen_slot < 0) {
        return;
    }
    (void)mcp_server_listen_end(h->server, &h->listeners[c->listen_slot], NULL, 0);
    h->listener_busy[c->listen_slot] = false;
    c->listen_slot = -1;
    c->listen_broken = false;
    c->legacy_stream = false;
}

static void input_drop(emcp_http_t *h, struct emcp_http_conn *c);

static void conn_close(emcp_http_t *h, struct emcp_http_conn *c)
{
    listen_drop(h, c);
    input_drop(h, c); /* a disconnect cancels a call waiting for input */
    tls_free(c, false);
    if (c->fd >= 0) {
        close(c->fd);
    }
    c->fd = -1;
}

static const char *reason(unsigned status)
{
    switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Internal Server Error";
    }
}

/* Places the status line and headers right before the body, which is
 * already at tx + body_off (body_off >= EMCP_HTTP_RESPONSE_HEAD_MAX). */
static void set_response(struct emcp_http_conn *c, unsigned status, size_t body_off,
                         size_t body_len, bool sse, const char *extra_headers)
{
    char head[EMCP_HTTP_RESPONSE_HEAD_MAX];
    const char *type = body_len == 0 ? ""
                       : sse         ? "Content-Type: text/event-stream\r\nX-Accel-Buffering: no\r\n"
                                     : "Content-Type: application/json\r\n";
    int n = snprintf(head, sizeof head, "HTTP/1.1 %u %s\r\n%s%s%sContent-Length: %zu\r\n%s\r\n",
                     status, reason(status), type, extra_headers != NULL ? extra_headers : "",
                     status == 200 ? "Cache-Control: no-store\r\n" : "", body_len,
                     c->close_after_tx ? "Connection: close\r\n" : "");
    if (n < 0 || (size_t)n >= sizeof head) {
        n = snprintf(head, sizeof head,
                     "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
                     "Connection: close\r\n\r\n");
        body_len = 0;
        c->close_after_tx = true;
    }
    memcpy(c->tx + body_off - (size_t)n, head, (size_t)n);
    c->tx_off = body_off - (size_t)n;
    c->tx_len = body_off + body_len;
}

/* A response the binding itself decides, with a JSON-RPC error body. */
static void respond_error(emcp_http_t *h, struct emcp_http_conn *c, unsigned status, int code,
                          const char *message, const char *extra_headers, bool close_conn)
{
    char *body = (char *)c->tx + EMCP_HTTP_RESPONSE_HEAD_MAX;
    int n = mcp_write_error(body, EMCP_HTTP_RESPONSE_MAX, NULL, 0, code, message);
    if (close_conn) {
        c->close_after_tx = true;
    }
    set_response(c, status, EMCP_HTTP_RESPONSE_HEAD_MAX, n > 0 ? (size_t)n : 0, false,
                 extra_headers);
    h->stats.requests++;
    logf_(h, "emcp_http: %u %s", status, message);
}

/* Writes what the socket takes. Returns false when the connection closed. */
static bool flush_tx(emcp_http_t *h, struct emcp_http_conn *c)
{
    while (c->tx_off < c->tx_len) {
        ssize_t n = conn_send(c, c->tx + c->tx_off, c->tx_len - c->tx_off);
        if (n > 0) {
            c->tx_off += (size_t)n;
            continue;
        }
        if (n == IO_AGAIN) {
            return true;
        }
        conn_close(h, c);
        return false;
    }
    c->tx_off = c->tx_len = 0;
    if (c->close_after_tx) {
        /* Half-close, then discard what the client still sends for a while:
         * closing with unread input would reset the connection and could
         * destroy the response before the client reads it. */
        tls_free(c, true);
        shutdown(c->fd, SHUT_WR);
        c->draining = true;
        c->in_request = false;
        c->deadline_ms = now_ms() + EMCP_HTTP_LINGER_MS;
        return false;
    }
    return true;
}

/* ---- Request rules ------------------------------------------------------ */

/* host[:port] names the loopback. */
static bool loopback_host(const char *s, size_t len)
{
    static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (len >= n && ieq(s, n, names[i]) && (len == n || s[n] == ':')) {
            bool digits = true;
            for (size_t j = n + 1; j < len; j++) {
                digits = digits && s[j] >= '0' && s[j] <= '9';
            }
            return digits;
        }
    }
    return false;
}

static bool origin_allowed(const emcp_http_t *h, const char *o, size_t len)
{
    for (size_t i = 0; i < h->cfg.allowed_origins_len; i++) {
        const char *a = h->cfg.allowed_origins[i];
        if (a != NULL && strlen(a) == len && memcmp(a, o, len) == 0) {
            return true;
        }
    }
    if (iprefix(o, len, "http://")) {
        return loopback_host(o + 7, len - 7);
    }
    if (iprefix(o, len, "https://")) {
        return loopback_host(o + 8, len - 8);
    }
    return false;
}

/* SSE framing of one message. */
static const char sse_prefix[] = "event: message\r\ndata: ";
static const char sse_suffix[] = "\r\n\r\n";
#define SSE_PREFIX_LEN (sizeof sse_prefix - 1)
#define SSE_SUFFIX_LEN (sizeof sse_suffix - 1)

/* Appends bytes to an open stream's transmit queue (tx_off..tx_len), moving
 * what is still unsent to the front when the tail has no room. Never blocks:
 * the poll loop sends it. False when it does not fit. */
static bool stream_append(struct emcp_http_conn *c, const void *pre, size_t pre_len,
                          const void *body, size_t len, const void *post, size_t post_len)
{
    size_t need = pre_len + len + post_len;
    if (c->tx_len + need > sizeof c->tx) {
        size_t pending = c->tx_len - c->tx_off;
        memmove(c->tx, c->tx + c->tx_off, pending);
        c->tx_off = 0;
        c->tx_len = pending;
        if (pending + need > sizeof c->tx) {
            return false;
        }
    }
    uint8_t *dst = c->tx + c->tx_len;
    if (pre_len > 0) {
        memcpy(dst, pre, pre_len);
    }
    if (len > 0) {
        memcpy(dst + pre_len, body, len);
    }
    if (post_len > 0) {
        memcpy(dst + pre_len + len, post, post_len);
    }
    c->tx_len += need;
    return true;
}

/* mcp_request_ctx_t.emit: on an open listen stream (a list change or a
 * resource update, possibly while another connection's request runs) the
 * notification is queued as the next SSE event; a stream whose queue is full
 * is marked broken and ended by the poll loop, never left with a silent gap.
 * Otherwise it stages a notification of the running request as an SSE event;
 * they go out, in order, before the final response. */
static int http_emit(void *transport_context, const uint8_t *message, size_t len)
{
    struct emcp_http_conn *c = transport_context;
    if (c != NULL && c->listen_slot >= 0) {
        if (c->fd < 0 || c->listen_broken) {
            return -MCP_ENOBUFS;
        }
        if (!stream_append(c, sse_prefix, SSE_PREFIX_LEN, message, len, sse_suffix,
                           SSE_SUFFIX_LEN)) {
            c->listen_broken = true;
            return -MCP_ENOBUFS;
        }
        return 0;
    }
    size_t need = SSE_PREFIX_LEN + len + SSE_SUFFIX_LEN;
    /* Keep room for the final event's prefix in the same region. */
    if (c == NULL || c->sse_len + need + SSE_PREFIX_LEN > EMCP_HTTP_SSE_MAX) {
        return -MCP_ENOBUFS;
    }
    uint8_t *dst = c->tx + EMCP_HTTP_RESPONSE_HEAD_MAX + c->sse_len;
    memcpy(dst, sse_prefix, SSE_PREFIX_LEN);
    memcpy(dst + SSE_PREFIX_LEN, message, len);
    memcpy(dst + SSE_PREFIX_LEN + len, sse_suffix, SSE_SUFFIX_LEN);
    c->sse_len += need;
    return 0;
}

/* The acknowledgement (n bytes at tx + out_off) becomes the first SSE event
 * of a response that stays open: no Content-Length, "Connection: close", so
 * the stream ends when the connection does. The pool slot is the
 * connection's until the stream ends. */
static void start_listen(emcp_http_t *h, struct emcp_http_conn *c, int slot, size_t out_off,
                         size_t n)
{
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                               "Cache-Control: no-store\r\nX-Accel-Buffering: no\r\n"
                               "Connection: close\r\n\r\n";
    _Static_assert(sizeof head - 1 + SSE_PREFIX_LEN <= EMCP_HTTP_RESPONSE_HEAD_MAX + EMCP_HTTP_SSE_MAX,
                   "room for the stream head before the acknowledgement");
    size_t start = out_off - SSE_PREFIX_LEN - (sizeof head - 1);
    memcpy(c->tx + start, head, sizeof head - 1);
    memcpy(c->tx + out_off - SSE_PREFIX_LEN, sse_prefix, SSE_PREFIX_LEN);
    memcpy(c->tx + out_off + n, sse_suffix, SSE_SUFFIX_LEN);
    c->sse_len = 0;
    c->tx_off = start;
    c->tx_len = out_off + n + SSE_SUFFIX_LEN;
    c->listen_slot = slot;
    c->listen_broken = false;
    h->listener_busy[slot] = true;
    h->stats.listens++;
    /* A pipelined request behind the listen request is never answered. */
    c->close_after_tx = false;
    logf_(h, "emcp_http: listen stream opened (%u open)", emcp_http_listen_count(h));
}

/* ---- Legacy server-to-client requests (2025-11-25) -----------------------
 * A legacy tool call that asks for input is answered by the core, through
 * the call's mcp_roundtrip_t (ctx.roundtrip), with server-to-client requests
 * (MCP_RESPONSE_CLIENT_REQUEST, one per line). Here they become an SSE stream
 * on the call's connection, one event per request. The client POSTs its
 * responses on other connections (202): mcp_roundtrip_answer() matches them
 * by id, and once the last one is in, mcp_roundtrip_resume() runs the call
 * again (when its stream has drained). Its output is the next round's
 * requests or the final response, which ends the stream. */

static const char stream_head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                  "Cache-Control: no-store\r\nX-Accel-Buffering: no\r\n"
                                  "Connection: close\r\n\r\n";
#define STREAM_HEAD_LEN (sizeof stream_head - 1)

/* Client capabilities declared at initialize, carried in the low bits of the
 * session id's counter (covered by its MAC). */
#define SESSION_CAP_BITS 3u
#define SESSION_CAP_ELICITATION 1u
#define SESSION_CAP_SAMPLING 2u
#define SESSION_CAP_ROOTS 4u

static uint32_t session_flags(uint64_t counter)
{
    uint32_t f = 0;
    f |= (counter & SESSION_CAP_ELICITATION) ? MCP_CTX_LEGACY_ELICITATION : 0u;
    f |= (counter & SESSION_CAP_SAMPLING) ? MCP_CTX_LEGACY_SAMPLING : 0u;
    f |= (counter & SESSION_CAP_ROOTS) ? MCP_CTX_LEGACY_ROOTS : 0u;
    return f;
}

/* The capabilities the core saw declared in an initialize request
 * (MCP_RESPONSE_CLIENT_* of its answer), as SESSION_CAP_* bits. */
static uint64_t session_caps(uint16_t info_flags)
{
    uint64_t bits = 0;
    bits |= (info_flags & MCP_RESPONSE_CLIENT_ELICITATION) ? SESSION_CAP_ELICITATION : 0u;
    bits |= (info_flags & MCP_RESPONSE_CLIENT_SAMPLING) ? SESSION_CAP_SAMPLING : 0u;
    bits |= (info_flags & MCP_RESPONSE_CLIENT_ROOTS) ? SESSION_CAP_ROOTS : 0u;
    return bits;
}

static uint64_t session_counter_of(const char *id)
{
    uint64_t counter = 0;
    for (size_t i = 0; i < 16; i++) {
        char ch = id[i];
        counter = (counter << 4) | (uint64_t)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
    }
    return counter;
}

static struct emcp_http_input *input_of(emcp_http_t *h, struct emcp_http_conn *c)
{
    return c->input_slot >= 0 ? &h->inputs[c->input_slot] : NULL;
}

/* A slot whose round-trip storage is free (none in a library built
 * without the legacy era: its storage never initialises). */
static int input_free_slot(emcp_http_t *h)
{
    for (int i = 0; i < EMCP_HTTP_MAX_INPUT_CALLS; i++) {
        if (h->inputs[i].conn < 0 && mcp_roundtrip_waiting(&h->inputs[i].rt) == 0) {
            return i;
        }
    }
    return -1;
}

unsigned emcp_http_input_count(const emcp_http_t *h)
{
    unsigned n = 0;
    for (int i = 0; h != NULL && i < EMCP_HTTP_MAX_INPUT_CALLS; i++) {
        n += h->inputs[i].conn >= 0;
    }
    return n;
}

/* The connection stops waiting: its slot is free again (pending ids die). */
static void input_drop(emcp_http_t *h, struct emcp_http_conn *c)
{
    if (c->input_slot < 0) {
        return;
    }
    struct emcp_http_input *in = &h->inputs[c->input_slot];
    (void)mcp_roundtrip_cancel(&in->rt, 0, NULL, NULL, 0);
    in->conn = -1;
    in->ready = false;
    c->input_slot = -1;
}

/* Ends a waiting call with its JSON-RPC error as the last event. */
static void input_fail(emcp_http_t *h, struct emcp_http_conn *c, int code, const char *message)
{
    struct emcp_http_input *in = input_of(h, c);
    if (in == NULL || c->fd < 0) {
        return;
    }
    uint8_t body[256 + MCP_MAX_ID_LEN];
    int n = mcp_roundtrip_cancel(&in->rt, code, message, body, sizeof body);
    input_drop(h, c);
    c->close_after_tx = true;
    logf_(h, "emcp_http: legacy input call ended: %s", message);
    if (n <= 0 || !stream_append(c, sse_prefix, SSE_PREFIX_LEN, body, (size_t)n, sse_suffix,
                                 SSE_SUFFIX_LEN)) {
        conn_close(h, c);
        return;
    }
    c->deadline_ms = now_ms() + h->cfg.idle_timeout_ms; /* to drain */
    (void)flush_tx(h, c);
}

/* After a run of a waiting call (or the first run of a legacy call), with
 * its output (n bytes at tx + out_off) and staged events (sse_len at
 * tx + RESPONSE_HEAD_MAX) in an otherwise empty transmit buffer: sends the
 * stream head (first round), the events, and either the round's requests
 * (`requests`: the call waits) or the final response (the stream ends). */
static void input_stream(emcp_http_t *h, struct emcp_http_conn *c, size_t out_off, size_t n,
                         bool requests, bool first)
{
    struct emcp_http_input *in = input_of(h, c);
    /* The requests move to the end of tx, so the events written from the
     * front never overtake a request still to be read. */
    size_t src = sizeof c->tx - n;
    if (requests) {
        memmove(c->tx + src, c->tx + out_off, n);
    }
    /* The stream head (first round) and the staged events, from tx[0]; the
     * head is shorter than RESPONSE_HEAD_MAX, so they stay before out_off. */
    size_t head = first ? STREAM_HEAD_LEN : 0;
    memmove(c->tx + head, c->tx + EMCP_HTTP_RESPONSE_HEAD_MAX, c->sse_len);
    if (first) {
        memcpy(c->tx, stream_head, STREAM_HEAD_LEN);
    }
    c->tx_off = 0;
    c->tx_len = head + c->sse_len;
    c->sse_len = 0;
    c->close_after_tx = false;
    if (!requests) {
        /* The final response ends the stream: framed in place, moved down
         * to follow the events (the regions may overlap; http_emit kept
         * room for the prefix before out_off). */
        input_drop(h, c);
        c->close_after_tx = true;
        memmove(c->tx + c->tx_len + SSE_PREFIX_LEN, c->tx + out_off, n);
        memcpy(c->tx + c->tx_len, sse_prefix, SSE_PREFIX_LEN);
        memcpy(c->tx + c->tx_len + SSE_PREFIX_LEN + n, sse_suffix, SSE_SUFFIX_LEN);
        c->tx_len += SSE_PREFIX_LEN + n + SSE_SUFFIX_LEN;
        c->deadline_ms = now_ms() + h->cfg.idle_timeout_ms;
        (void)flush_tx(h, c);
        return;
    }
    /* One event per request line: the request moves first (memmove), then
     * its prefix and suffix go around it, never past the next line. */
    size_t end = src + n;
    unsigned count = 0;
    while (src < end) {
        const uint8_t *nl = memchr(c->tx + src, '\n', end - src);
        size_t len = nl != NULL ? (size_t)(nl - (c->tx + src)) : end - src;
        size_t limit = nl != NULL ? src + len + 1 : sizeof c->tx;
        if (c->tx_len + SSE_PREFIX_LEN + len + SSE_SUFFIX_LEN > limit) {
            input_fail(h, c, -32603, "Input requests do not fit the transmit buffer");
            return;
        }
        memmove(c->tx + c->tx_len + SSE_PREFIX_LEN, c->tx + src, len);
        memcpy(c->tx + c->tx_len, sse_prefix, SSE_PREFIX_LEN);
        memcpy(c->tx + c->tx_len + SSE_PREFIX_LEN + len, sse_suffix, SSE_SUFFIX_LEN);
        c->tx_len += SSE_PREFIX_LEN + len + SSE_SUFFIX_LEN;
        src += len + 1;
        count++;
    }
    in->deadline_ms = now_ms() + h->cfg.input_timeout_ms;
    c->deadline_ms = in->deadline_ms;
    h->stats.input_rounds++;
    logf_(h, "emcp_http: legacy call waits for %u input response(s)", count);
    (void)flush_tx(h, c);
}

static void fill_ctx(emcp_http_t *h, struct emcp_http_conn *c, mcp_request_ctx_t *ctx,
                     mcp_header_param_t *params, mcp_str_t principal);

/* Every request of the round answered and the stream drained: the call
 * runs again (the core inserts the answers into its copy of the call). */
static void input_rerun(emcp_http_t *h, struct emcp_http_conn *c)
{
    struct emcp_http_input *in = input_of(h, c);
    if (in == NULL || !in->ready || c->tx_len != 0 || c->fd < 0) {
        return;
    }
    in->ready = false;
    mcp_request_ctx_t ctx;
    mcp_header_param_t params[EMCP_HTTP_MAX_PARAM_HEADERS];
    mcp_str_t principal = {NULL, 0};
    if (h->cfg.auth != NULL) { /* the principal of the call, afresh */
        const char *a = c->h_auth.set ? span_ptr(c, &c->h_auth) : NULL;
        size_t an = c->h_auth.set ? c->h_auth.len : 0;
        if (h->cfg.auth(h->cfg.auth_user, a, an, &principal) != 0) {
            input_fail(h, c, -32600, "Unauthorized");
            return;
        }
    }
    fill_ctx(h, c, &ctx, params, principal);
    ctx.emit = http_emit;
    ctx.flags |= in->flags;
    mcp_response_info_t info;
    memset(&info, 0, sizeof info);
    const size_t out_off = EMCP_HTTP_RESPONSE_HEAD_MAX + EMCP_HTTP_SSE_MAX;
    c->sse_len = 0;
    int n = mcp_roundtrip_resume(h->server, &ctx, &in->rt, c->tx + out_off,
                                 EMCP_HTTP_RESPONSE_MAX, &info);
    h->stats.requests++;
    if (n <= 0) {
        c->sse_len = 0;
        input_fail(h, c, -32603, "Internal error");
        return;
    }
    input_stream(h, c, out_off, (size_t)n, (info.flags & MCP_RESPONSE_CLIENT_REQUEST) != 0,
                 false);
}

/* A notifications/cancelled for a waiting call of this session ends it: its
 * stream closes without a response (MCP cancellation: none is sent for a
 * cancelled request) and its slot is free. */
static void input_cancelled(emcp_http_t *h, uint64_t session, const uint8_t *body, size_t len)
{
    for (int i = 0; i < EMCP_HTTP_MAX_INPUT_CALLS; i++) {
        struct emcp_http_input *e = &h->inputs[i];
        if (e->conn >= 0 && e->session == session && mcp_roundtrip_answer(&e->rt, body, len) == 2) {
            struct emcp_http_conn *wc = &h->conns[e->conn];
            input_drop(h, wc);
            wc->close_after_tx = true;
            logf_(h, "emcp_http: legacy input call cancelled by the client; no response");
            (void)flush_tx(h, wc);
            return;
        }
    }
}

/* A legacy POST whose body is a JSON-RPC response: the client's answer to
 * one of our requests. 202 when it belongs to a waiting call of the same
 * session (the call re-runs once every request of its round is answered),
 * 400 otherwise. True when the body was a response (answered here). */
static bool input_answer(emcp_http_t *h, struct emcp_http_conn *c, uint64_t session)
{
    const uint8_t *body = c->rx + c->body_off;
    size_t len = c->body_len;
    int rc = mcp_roundtrip_answer(NULL, body, len);
    if (rc == -MCP_EDOM) {
        input_cancelled(h, session, body, len);
        return false; /* a request or notification: served as usual */
    }
    if (rc == -MCP_EINVAL) {
        return false;
    }
    struct emcp_http_input *in = NULL;
    for (int i = 0; i < EMCP_HTTP_MAX_INPUT_CALLS && in == NULL; i++) {
        struct emcp_http_input *e = &h->inputs[i];
        if (e->conn >= 0 && e->session == session && !e->ready) {
            rc = mcp_roundtrip_answer(&e->rt, body, len);
            in = rc >= 0 ? e : NULL;
        }
    }
    if (in == NULL) {
        respond_error(h, c, 400, -32600, "No pending request with this id", NULL, false);
        return true;
    }
    if (rc == 1) {
        in->ready = true;
        input_rerun(h, &h->conns[in->conn]); /* now, or when its stream drains */
    }
    set_response(c, 202, EMCP_HTTP_RESPONSE_HEAD_MAX, 0, false, NULL);
    h->stats.requests++;
    return true;
}

/* A waiting call's client sends nothing more; what it does send is
 * discarded (not into rx, which holds the call's headers), and end of
 * stream or an error is the client going away, which cancels the call. */
static void input_readable(emcp_http_t *h, struct emcp_http_conn *c)
{
    uint8_t scratch[256];
    for (;;) {
        ssize_t n = conn_recv(c, scratch, sizeof scratch);
        if (n == IO_AGAIN) {
            return;
        }
        if (n == 0 || n == IO_ERROR) {
            logf_(h, "emcp_http: legacy input call cancelled by a disconnect");
            conn_close(h, c);
            return;
        }
    }
}

/* ---- Legacy GET stream (2025-11-25) --------------------------------------
 * A legacy session's GET (emcp_http_config_t.legacy_stream) becomes a listen
 * stream in the core: the binding hands it a subscriptions/listen request of
 * its own for every list kind, keeps the listener attached to the
 * connection and drops the acknowledgement, so the client sees only the
 * notifications (notifications/tools/list_changed, ...). It ends as the
 * connection does; at emcp_http_close() without a final result (the client
 * sent no request id). */

static const char legacy_listen_body[] =
    "{\"jsonrpc\":\"2.0\",\"id\":\"legacy-get-stream\",\"method\":\"subscriptions/listen\","
    "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{}},\"notifications\":{"
    "\"toolsListChanged\":true,\"promptsListChanged\":true,\"resourcesListChanged\":true}}}";

static void legacy_get_stream(emcp_http_t *h, struct emcp_http_conn *c, mcp_str_t principal)
{
    const char *a = c->h_accept.set ? span_ptr(c, &c->h_accept) : "";
    if (!icontains(a, c->h_accept.set ? c->h_accept.len : 0, "text/event-stream")) {
        respond_error(h, c, 406, -32600, "Not Acceptable: the GET stream needs Accept: text/event-stream",
                      NULL, false);
        return;
    }
    if (!c->h_session.set) {
        respond_error(h, c, 400, -32600, "Bad Request: Missing session ID", NULL, false);
        return;
    }
    const char *sid = span_ptr(c, &c->h_session);
    size_t sn = c->h_session.len;
    trim(&sid, &sn);
    if (!emcp_http_session_valid(h, sid, sn)) {
        respond_error(h, c, 404, -32600, "Session not found", NULL, false);
        return;
    }
    int slot = -1;
    for (int i = 0; i < EMCP_HTTP_MAX_LISTENERS && slot < 0; i++) {
        slot = h->listener_busy[i] ? -1 : i;
    }
    if (slot < 0) {
        h->stats.listen_rejected++;
        respond_error(h, c, 503, -32603, "Too many listen streams", "Retry-After: 1\r\n", false);
        return;
    }
    /* The binding's own request: no routing headers to compare (flags 0). */
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.transport_context = c;
    ctx.principal = principal;
    ctx.now_ms = now_ms();
    ctx.emit = http_emit;
    ctx.listener = &h->listeners[slot];
    mcp_response_info_t info;
    memset(&info, 0, sizeof info);
    const size_t out_off = EMCP_HTTP_RESPONSE_HEAD_MAX + EMCP_HTTP_SSE_MAX;
    c->sse_len = 0;
    int n = mcp_server_handle(h->server, &ctx, (const uint8_t *)legacy_listen_body,
                              sizeof legacy_listen_body - 1, c->tx + out_off, EMCP_HTTP_RESPONSE_MAX,
                              &info);
    h->stats.requests++;
    if (n <= 0 || (info.flags & MCP_RESPONSE_LISTEN) == 0) {
        (void)mcp_server_listen_end(h->server, ctx.listener, NULL, 0);
        respond_error(h, c, 405, -32600, "Method Not Allowed: no stream", "Allow: POST\r\n", false);
        return;
    }
    /* The head alone: the acknowledgement is not a legacy message. */
    memcpy(c->tx, stream_head, STREAM_HEAD_LEN);
    c->tx_off = 0;
    c->tx_len = STREAM_HEAD_LEN;
    c->sse_len = 0;
    c->listen_slot = slot;
    c->listen_broken = false;
    c->legacy_stream = true;
    h->listener_busy[slot] = true;
    h->stats.listens++;
    c->close_after_tx = false;
    logf_(h, "emcp_http: legacy GET stream opened (%u open)", emcp_http_listen_count(h));
}

/* The request context from the connection's headers (shared by the first
 * run of a request and the re-runs of a legacy call waiting for input). */
static void fill_ctx(emcp_http_t *h, struct emcp_http_conn *c, mcp_request_ctx_t *ctx,
                     mcp_header_param_t *params, mcp_str_t principal)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->transport_context = c;
    ctx->principal = principal;
    ctx->now_ms = now_ms();
    ctx->flags = MCP_CTX_HTTP | (c->dup_routing ? MCP_CTX_DUPLICATE_HEADER : 0u);
    if (c->h_version.set) {
        ctx->protocol_version.ptr = span_ptr(c, &c->h_version);
        ctx->protocol_version.len = c->h_version.len;
    }
    if (c->h_method.set) {
        ctx->method.ptr = span_ptr(c, &c->h_method);
        ctx->method.len = c->h_method.len;
    }
    if (c->h_name.set) {
        ctx->name.ptr = span_ptr(c, &c->h_name);
        ctx->name.len = c->h_name.len;
    }
    for (uint16_t i = 0; i < c->n_params; i++) {
        params[i].name.ptr = span_ptr(c, &c->p_name[i]);
        params[i].name.len = c->p_name[i].len;
        params[i].value.ptr = span_ptr(c, &c->p_value[i]);
        params[i].value.len = c->p_value[i].len;
    }
    ctx->params = c->n_params > 0 ? params : NULL;
    ctx->params_len = c->n_params;
    ctx->dedup = &h->dedup; /* idempotency keys of this server's tools */
}

static void handle_request(emcp_http_t *h, struct emcp_http_conn *c)
{
    http_parser *p = &c->parser;
    if (!http_should_keep_alive(p) || p->upgrade) {
        c->close_after_tx = true; /* no protocol upgrades: answer, then close */
    }

    /* Host and Origin first: a rebinding page learns nothing else. */
    if (h->loopback && c->h_host.set) {
        const char *s = span_ptr(c, &c->h_host);
        size_t n = c->h_host.len;
        trim(&s, &n);
        if (!loopback_host(s, n)) {
            respond_error(h, c, 403, -32600, "Invalid Host header", NULL, false);
            return;
        }
    }
    if (c->h_origin.set) {
        const char *s = span_ptr(c, &c->h_origin);
        size_t n = c->h_origin.len;
        trim(&s, &n);
        if (!origin_allowed(h, s, n)) {
            respond_error(h, c, 403, -32600, "Invalid Origin header", NULL, false);
            return;
        }
    }

    const char *url = span_ptr(c, &c->url);
    size_t url_len = c->url.len;
    for (size_t i = 0; i < url_len; i++) {
        if (url[i] == '?') {
            url_len = i;
            break;
        }
    }
    if (url_len != strlen(h->path) || memcmp(url, h->path, url_len) != 0) {
        respond_error(h, c, 404, -32600, "Not Found", NULL, false);
        return;
    }
    bool get_stream = p->method == HTTP_GET && h->cfg.legacy_stream && EMCP_HTTP_MAX_LISTENERS > 0;
    if (get_stream && c->h_version.set) {
        const char *v = span_ptr(c, &c->h_version);
        size_t vn = c->h_version.len;
        trim(&v, &vn);
        get_stream = mcp_protocol_version_is_legacy(v, vn); /* 2026-07-28 has no GET stream */
    }
    if (p->method != HTTP_POST && !get_stream) {
        respond_error(h, c, 405, -32600, "Method Not Allowed: POST only", "Allow: POST\r\n",
                      false);
        return;
    }

    mcp_str_t principal = {NULL, 0};
    if (h->cfg.auth != NULL) {
        const char *a = c->h_auth.set ? span_ptr(c, &c->h_auth) : NULL;
        size_t an = c->h_auth.set ? c->h_auth.len : 0;
        if (h->cfg.auth(h->cfg.auth_user, a, an, &principal) != 0) {
            respond_error(h, c, 401, -32600, "Unauthorized",
                          a != NULL ? "WWW-Authenticate: Bearer realm=\"mcp\", "
                                      "error=\"invalid_token\"\r\n"
                                    : "WWW-Authenticate: Bearer realm=\"mcp\"\r\n",
                          false);
            return;
        }
    }

    if (get_stream) {
        legacy_get_stream(h, c, principal);
        return;
    }

    {
        const char *ct = c->h_content_type.set ? span_ptr(c, &c->h_content_type) : "";
        size_t n = c->h_content_type.set ? c->h_content_type.len : 0;
        for (size_t i = 0; i < n; i++) {
            if (ct[i] == ';') {
                n = i;
                break;
            }
        }
        trim(&ct, &n);
        if (!ieq(ct, n, "application/json")) {
            respond_error(h, c, 415, -32600,
                          "Unsupported Media Type: Content-Type must be application/json", NULL,
                          false);
            return;
        }
    }
    if (c->h_accept.set) {
        const char *a = span_ptr(c, &c->h_accept);
        size_t n = c->h_accept.len;
        if (!icontains(a, n, "application/json") && !icontains(a, n, "*/*") &&
            !icontains(a, n, "application/*")) {
            respond_error(h, c, 406, -32600,
                          "Not Acceptable: Accept must include application/json", NULL, false);
            return;
        }
    }
    bool takes_sse = c->h_accept.set &&
                     (icontains(span_ptr(c, &c->h_accept), c->h_accept.len, "text/event-stream") ||
                      icontains(span_ptr(c, &c->h_accept), c->h_accept.len, "*/*") ||
                      icontains(span_ptr(c, &c->h_accept), c->h_accept.len, "text/*"));

    mcp_request_ctx_t ctx;
    mcp_header_param_t params[EMCP_HTTP_MAX_PARAM_HEADERS];
    fill_ctx(h, c, &ctx, params, principal);
    /* Notifications before the result only to a client that takes a stream. */
    c->sse_len = 0;
    if (takes_sse) {
        ctx.emit = http_emit;
    }
    bool modern = false;
    if (c->h_version.set) {
        modern = !mcp_protocol_version_is_legacy(ctx.protocol_version.ptr, ctx.protocol_version.len);
    }

    /* Listen streams (2026-07-28 only): a listen request needs a client that
     * takes text/event-stream and a free pool slot; it is recognised by its
     * Mcp-Method header, which the core then holds to the body (-32020). */
    int slot = -1;
    if (modern && EMCP_HTTP_MAX_LISTENERS > 0) {
        bool listen = false;
        if (c->h_method.set) {
            const char *m = span_ptr(c, &c->h_method);
            size_t mn = c->h_method.len;
            trim(&m, &mn);
            listen = mn == 20 && memcmp(m, "subscriptions/listen", 20) == 0;
        }
        for (int i = 0; i < EMCP_HTTP_MAX_LISTENERS; i++) {
            if (!h->listener_busy[i]) {
                slot = i;
                break;
            }
        }
        if (listen && !takes_sse) {
            respond_error(h, c, 406, -32600,
                          "Not Acceptable: subscriptions/listen needs Accept: text/event-stream",
                          NULL, false);
            return;
        }
        if (listen && slot < 0) {
            h->stats.listen_rejected++;
            respond_error(h, c, 503, -32603, "Too many listen streams", "Retry-After: 1\r\n",
                          false);
            return;
        }
        if (slot < 0) {
            slot = EMCP_HTTP_MAX_LISTENERS; /* scratch: this request opens no stream */
        }
        ctx.listener = &h->listeners[slot];
    }

    /* Legacy era: the session id is checked here, statelessly. A modern
     * request ignores Mcp-Session-Id. */
    bool sessionless = false;
    uint32_t input_flags = 0;
    int input_slot = -1;
    uint64_t session = 0;
    if (!modern) {
        if (c->h_session.set) {
            const char *s = span_ptr(c, &c->h_session);
            size_t n = c->h_session.len;
            trim(&s, &n);
            if (!emcp_http_session_valid(h, s, n)) {
                respond_error(h, c, 404, -32600, "Session not found", NULL, false);
                return;
            }
            uint64_t counter = session_counter_of(s);
            /* The client's answer to one of our requests. */
            if (input_answer(h, c, counter)) {
                return;
            }
            /* A tool may ask for input (as the client declared at
             * initialize) when a waiting slot is free for the call. */
            input_slot = takes_sse ? input_free_slot(h) : -1;
            if (input_slot >= 0) {
                input_flags = session_flags(counter);
                session = counter;
            }
        } else {
            sessionless = true;
            ctx.flags |= MCP_CTX_LEGACY_NO_SESSION;
        }
        if (takes_sse) {
            ctx.flags |= MCP_CTX_LEGACY_LOG; /* log messages reach the client */
        }
        if (h->cfg.legacy_stream) {
            ctx.flags |= MCP_CTX_LEGACY_LIST_CHANGED; /* its GET stream carries list changes */
        }
        ctx.flags |= input_flags;
        if (input_flags != 0) {
            ctx.roundtrip = &h->inputs[input_slot].rt;
        }
    }

    mcp_response_info_t info;
    memset(&info, 0, sizeof info);
    const size_t out_off = EMCP_HTTP_RESPONSE_HEAD_MAX + EMCP_HTTP_SSE_MAX;
    uint8_t *out = c->tx + out_off;
    if (h->cfg.inspect != NULL) {
        h->cfg.inspect(h->cfg.inspect_user, c->rx + c->body_off, c->body_len);
    }
    int n = mcp_server_handle(h->server, &ctx, c->rx + c->body_off, c->body_len, out,
                              EMCP_HTTP_RESPONSE_MAX, &info);
    if (n < 0) {
        respond_error(h, c, 500, -32603, "Internal error", NULL, true);
        return;
    }
    h->stats.requests++;
    if ((info.flags & MCP_RESPONSE_LISTEN) != 0 && n > 0) {
        if (slot < 0 || slot >= EMCP_HTTP_MAX_LISTENERS) {
            /* Cannot happen (a listen request without a pool slot got 503
             * above), but never leave scratch storage attached. */
            (void)mcp_server_listen_end(h->server, ctx.listener, NULL, 0);
            c->sse_len = 0;
            respond_error(h, c, 503, -32603, "Too many listen streams", "Retry-After: 1\r\n",
                          false);
            return;
        }
        start_listen(h, c, slot, out_off, (size_t)n);
        return;
    }
    /* A legacy call asking for input: it continues as an SSE stream. */
    if (input_flags != 0 && n > 0 && (info.flags & MCP_RESPONSE_CLIENT_REQUEST) != 0) {
        struct emcp_http_input *in = &h->inputs[input_slot];
        in->conn = (int)(c - h->conns);
        in->session = session;
        in->flags = input_flags;
        in->ready = false;
        c->input_slot = input_slot;
        input_stream(h, c, out_off, (size_t)n, true, true);
        return;
    }
    unsigned status = info.http_status != 0 ? info.http_status : (n > 0 ? 200u : 202u);
    char extra[64] = "";
    /* Only initialize and ping succeed without a session: their answer
     * carries a freshly minted one, whose counter's low bits keep the
     * client capabilities initialize declared. */
    if (sessionless && n > 0 && info.rpc_error == 0) {
        char id[EMCP_HTTP_SESSION_ID_LEN + 1];
        uint64_t counter = (h->session_counter++ << SESSION_CAP_BITS) | session_caps(info.flags);
        emcp_http_session_mint(h, counter, id);
        snprintf(extra, sizeof extra, "Mcp-Session-Id: %s\r\n", id);
    }
    if (c->sse_len > 0 && n > 0) {
        /* A stream: the staged events, then the response as the last event,
         * contiguous right before and after the response. */
        size_t start = out_off - SSE_PREFIX_LEN - c->sse_len;
        memmove(c->tx + start, c->tx + EMCP_HTTP_RESPONSE_HEAD_MAX, c->sse_len);
        memcpy(c->tx + out_off - SSE_PREFIX_LEN, sse_prefix, SSE_PREFIX_LEN);
        memcpy(out + n, sse_suffix, SSE_SUFFIX_LEN);
        size_t total = c->sse_len + SSE_PREFIX_LEN + (size_t)n + SSE_SUFFIX_LEN;
        c->sse_len = 0;
        set_response(c, 200, start, total, true, extra);
        return;
    }
    c->sse_len = 0;
    set_response(c, status, out_off, (size_t)n, false, extra);
}

/* ---- The connection loop ------------------------------------------------ */

static void start_waiting(emcp_http_t *h, struct emcp_http_conn *c, uint64_t now, bool fresh)
{
    c->in_request = false;
    c->deadline_ms = now + (fresh ? h->cfg.header_timeout_ms : h->cfg.idle_timeout_ms);
}

/* Parses what is in rx and answers complete requests, one at a time. */
static void process(emcp_http_t *h, struct emcp_http_conn *c)
{
    while (c->fd >= 0 && !c->draining && c->tx_len == 0 && c->listen_slot < 0 &&
           c->input_slot < 0) {
        if (c->rx_parsed < c->rx_len) {
            size_t got = http_parser_execute(&c->parser, &h->settings,
                                             (const char *)c->rx + c->rx_parsed,
                                             c->rx_len - c->rx_parsed);
            c->rx_parsed += got;
        }
        enum http_errno err = HTTP_PARSER_ERRNO(&c->parser);
        if (c->status != 0) {
            respond_error(h, c, c->status, -32600,
                          c->status == 413 ? "Request body too large"
                                           : "Request headers too large",
                          NULL, true);
            break;
        }
        if (err != HPE_OK && err != HPE_PAUSED) {
            respond_error(h, c, 400, -32700, "Malformed HTTP request", NULL, true);
            break;
        }
        if (!c->headers_done && c->rx_len > EMCP_HTTP_HEADER_MAX) {
            respond_error(h, c, 431, -32600, "Request headers too large", NULL, true);
            break;
        }
        if (!c->message_done) {
            if (c->rx_len == sizeof c->rx) { /* chunk framing filled the buffer */
                respond_error(h, c, 413, -32600, "Request body too large", NULL, true);
            } else if (c->headers_done) {
                c->deadline_ms = c->started_ms + h->cfg.request_timeout_ms;
                if (c->h_expect.set && !c->continue_sent) {
                    /* curl waits for this before sending a large body; the
                     * body limit was already checked against Content-Length. */
                    static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
                    c->continue_sent = true;
                    (void)conn_send(c, cont, sizeof cont - 1);
                }
            }
            break;
        }
        handle_request(h, c);
        if (c->listen_slot >= 0) {
            /* The connection now carries a listen stream: nothing behind the
             * listen request is read as a request any more. */
            c->rx_len = c->rx_parsed = 0;
            c->in_request = false;
            c->deadline_ms = now_ms() + h->cfg.listen_keepalive_ms;
            flush_tx(h, c);
            break;
        }
        if (c->input_slot >= 0) {
            /* A legacy call waits for input: rx keeps its request, and
             * nothing behind it is read as a request any more. */
            c->in_request = false;
            break;
        }
        /* Keep the unparsed rest (a pipelined request) at the start of rx. */
        size_t rest = c->rx_len - c->rx_parsed;
        memmove(c->rx, c->rx + c->rx_parsed, rest);
        c->rx_len = rest;
        c->rx_parsed = 0;
        c->message_done = false;
        c->headers_done = false;
        http_parser_pause(&c->parser, 0);
        uint64_t now = now_ms();
        if (rest > 0) {
            c->in_request = true;
            c->started_ms = now;
        } else {
            c->in_request = false;
        }
        /* The response must drain within the idle time. */
        c->deadline_ms = now + h->cfg.idle_timeout_ms;
        flush_tx(h, c);
    }
}

/* A listen stream's client sends nothing more; what it does send is
 * discarded, and end of stream or an error is the client going away, which
 * cancels the stream. */
static void listen_readable(emcp_http_t *h, struct emcp_http_conn *c)
{
    for (;;) {
        ssize_t n = conn_recv(c, c->rx, sizeof c->rx);
        if (n == IO_AGAIN) {
            return;
        }
        if (n == 0 || n == IO_ERROR) {
            logf_(h, "emcp_http: listen stream closed by the client");
            conn_close(h, c);
            return;
        }
    }
}

/* The keep-alive tick of a listen stream: a ": ping" comment, unless the
 * client has not even taken what was sent before (then it is cut off). */
static void listen_tick(emcp_http_t *h, struct emcp_http_conn *c)
{
    static const char ping[] = ": ping\r\n\r\n";
    /* Events queued in this very poll step are not a stall: send first. */
    if (c->tx_off < c->tx_len && !flush_tx(h, c)) {
        return; /* the connection failed and is closed */
    }
    if (c->tx_off < c->tx_len || !stream_append(c, ping, sizeof ping - 1, NULL, 0, NULL, 0)) {
        h->stats.timeouts++;
        logf_(h, "emcp_http: listen stream stalled, closed");
        conn_close(h, c);
        return;
    }
    c->deadline_ms = now_ms() + h->cfg.listen_keepalive_ms;
    (void)flush_tx(h, c);
}

static void on_readable(emcp_http_t *h, struct emcp_http_conn *c)
{
    if (c->listen_slot >= 0) {
        listen_readable(h, c);
        return;
    }
    if (c->input_slot >= 0) {
        input_readable(h, c);
        return;
    }
    if (c->draining) {
        ssize_t d;
        while ((d = recv(c->fd, c->rx, sizeof c->rx, 0)) > 0) {
        }
        if (d == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
            conn_close(h, c);
        }
        return;
    }
    do {
        if (c->rx_len >= sizeof c->rx) {
            return; /* process() answers a full buffer */
        }
        ssize_t n = conn_recv(c, c->rx + c->rx_len, sizeof c->rx - c->rx_len);
        if (n == 0 || n == IO_ERROR) {
            conn_close(h, c); /* the client is done, or the connection failed */
            return;
        }
        if (n == IO_AGAIN) {
            return;
        }
        uint64_t now = now_ms();
        if (!c->in_request) {
            c->in_request = true;
            c->started_ms = now;
            c->deadline_ms = now + h->cfg.header_timeout_ms;
        }
        c->rx_len += (size_t)n;
        process(h, c);
    } while (c->fd >= 0 && !c->draining && c->tx_len == 0 && c->listen_slot < 0 &&
             c->input_slot < 0 && conn_pending(c));
}

static void on_timeout(emcp_http_t *h, struct emcp_http_conn *c)
{
    if (c->listen_slot >= 0) {
        listen_tick(h, c);
        return;
    }
    if (c->input_slot >= 0) {
        /* The client did not answer in time (or did not read our requests). */
        h->stats.input_timeouts++;
        input_fail(h, c, -32001, "Timed out waiting for the client's input responses");
        return;
    }
    if (c->draining) {
        conn_close(h, c);
        return;
    }
    h->stats.timeouts++;
    if (c->tx_len == 0 && c->in_request) {
        /* Best effort: a client that stalls mid-request hears why. */
        respond_error(h, c, 408, -32600, "Request timeout", NULL, true);
        (void)flush_tx(h, c);
        if (c->draining) {
            c->deadline_ms = now_ms() + EMCP_HTTP_LINGER_MS / 4;
            return;
        }
    }
    if (c->fd >= 0) {
        logf_(h, "emcp_http: connection timed out");
        conn_close(h, c);
    }
}

static unsigned active_conns(const emcp_http_t *h)
{
    unsigned n = 0;
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        n += h->conns[i].fd >= 0;
    }
    return n;
}

static void reject_busy(emcp_http_t *h, int fd)
{
    char busy[128 + MCP_MIN_RESPONSE_CAP];
    int hn = 0;
    char body[MCP_MIN_RESPONSE_CAP];
    int bn = mcp_write_error(body, sizeof body, NULL, 0, MCP_RPC_INTERNAL_ERROR, "Too many connections");
    if (bn > 0) {
        hn = snprintf(busy, sizeof busy - (size_t)bn,
                      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                      "Retry-After: 1\r\nConnection: close\r\nContent-Length: %d\r\n\r\n",
                      bn);
    }
    if (hn > 0 && (size_t)hn < sizeof busy - (size_t)bn) {
        memcpy(busy + hn, body, (size_t)bn);
        (void)!send(fd, busy, (size_t)hn + (size_t)bn, MSG_NOSIGNAL);
    }
    shutdown(fd, SHUT_WR);
    /* Read what already arrived, so closing does not reset the connection
     * before the client reads the 503. */
    uint8_t scratch[512];
    while (recv(fd, scratch, sizeof scratch, 0) > 0) {
    }
    close(fd);
    h->stats.rejected++;
    logf_(h, "emcp_http: 503, connection table full");
}

int emcp_http_adopt(emcp_http_t *h, int fd)
{
    if (h == NULL || fd < 0) {
        if (fd >= 0) {
            close(fd);
        }
        return -MCP_EINVAL;
    }
    int fl = fcntl(fd, F_GETFL, 0);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        close(fd);
        return -MCP_EIO;
    }
    struct emcp_http_conn *c = NULL;
    if (active_conns(h) < h->cfg.max_conns) {
        for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
            if (h->conns[i].fd < 0) {
                c = &h->conns[i];
                break;
            }
        }
    }
    if (c == NULL) {
        if (h->tls_ctx == NULL) {
            reject_busy(h, fd);
        } else { /* no room to run a handshake: just refuse */
            close(fd);
            h->stats.rejected++;
        }
        return -MCP_ENOBUFS;
    }
    c->tls = NULL;
    c->tls_want_write = false;
    if (h->tls_ctx != NULL) {
        /* The handshake runs inside the first reads, a step per poll. */
        c->fd = fd;
        c->tls = emcp_http_tls_attach(h, (size_t)(c - h->conns), &c->fd);
        if (c->tls == NULL) {
            c->fd = -1;
            close(fd);
            return -MCP_EIO;
        }
    }
    c->fd = fd;
    http_parser_init(&c->parser, HTTP_REQUEST);
    c->parser.data = c;
    c->rx_len = c->rx_parsed = 0;
    c->tx_len = c->tx_off = 0;
    c->close_after_tx = false;
    c->draining = false;
    c->listen_slot = -1;
    c->listen_broken = false;
    c->legacy_stream = false;
    c->input_slot = -1;
    request_reset(c);
    start_waiting(h, c, now_ms(), true);
    return 0;
}

static void accept_new(emcp_http_t *h)
{
    for (int k = 0; k < 64; k++) {
        int fd = accept(h->listen_fd, NULL, NULL);
        if (fd < 0) {
            return; /* EAGAIN: none left */
        }
        (void)emcp_http_adopt(h, fd);
    }
}

int emcp_http_poll(emcp_http_t *h, int timeout_ms)
{
    if (h == NULL || h->listen_fd < 0) {
        return -MCP_EINVAL;
    }
    uint64_t now = now_ms();
    nfds_t n = 0;
    int slot[EMCP_HTTP_MAX_CONNS];
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        struct emcp_http_conn *c = &h->conns[i];
        if (c->fd >= 0 && c->listen_slot >= 0 && c->listen_broken) {
            /* A notification did not fit its queue (the client reads too
             * slowly): end the stream rather than lose messages silently.
             * The client sees the stream end without its final result. */
            h->stats.listen_overflows++;
            logf_(h, "emcp_http: listen stream overflowed, closed");
            conn_close(h, c);
        }
        if (c->fd < 0) {
            continue;
        }
        if (c->deadline_ms != 0) {
            int64_t left = (int64_t)(c->deadline_ms - now);
            if (left < 0) {
                left = 0;
            }
            if (timeout_ms < 0 || left < timeout_ms) {
                timeout_ms = (int)left;
            }
        }
        h->pfds[n].fd = c->fd;
        h->pfds[n].events = (c->tx_len > 0 || c->tls_want_write) ? POLLOUT : POLLIN;
        if (c->listen_slot >= 0 || c->input_slot >= 0) {
            h->pfds[n].events |= POLLIN; /* a disconnect cancels the stream */
        }
        h->pfds[n].revents = 0;
        slot[n] = (int)i;
        n++;
    }
    h->pfds[n].fd = h->listen_fd;
    h->pfds[n].events = POLLIN;
    h->pfds[n].revents = 0;
    /* The caller's descriptors: readable ends the wait (never read here). */
    nfds_t total = n + 1;
    for (size_t w = 0; w < h->cfg.wake_fds_len; w++) {
        h->pfds[total].fd = h->cfg.wake_fds[w];
        h->pfds[total].events = POLLIN;
        h->pfds[total].revents = 0;
        total++;
    }
    int r = poll(h->pfds, total, timeout_ms);
    if (r < 0) {
        return errno == EINTR ? 0 : -MCP_EIO;
    }
    for (nfds_t k = 0; k < n; k++) {
        struct emcp_http_conn *c = &h->conns[slot[k]];
        short ev = h->pfds[k].revents;
        if (c->fd < 0 || ev == 0) {
            continue;
        }
        if (c->listen_slot >= 0) {
            if ((ev & POLLOUT) && c->tx_len > 0 && !flush_tx(h, c)) {
                continue;
            }
            if (c->fd >= 0 && (ev & (POLLIN | POLLHUP | POLLERR))) {
                listen_readable(h, c);
            }
            continue;
        }
        if (c->input_slot >= 0) {
            if ((ev & POLLOUT) && c->tx_len > 0 && !flush_tx(h, c)) {
                continue;
            }
            if (c->fd >= 0 && (ev & (POLLIN | POLLHUP | POLLERR))) {
                input_readable(h, c);
            }
            if (c->fd >= 0 && c->input_slot >= 0 && c->tx_len == 0) {
                input_rerun(h, c); /* answers that came while we were sending */
            }
            continue;
        }
        if ((ev & POLLOUT) && c->tx_len > 0) {
            if (flush_tx(h, c) && c->tx_len == 0 && !c->draining) {
                if (c->rx_len > 0) {
                    process(h, c); /* a pipelined request waits */
                } else {
                    start_waiting(h, c, now_ms(), false);
                }
                if (c->fd >= 0 && c->tx_len == 0 && conn_pending(c)) {
                    on_readable(h, c);
                }
            }
        } else if (ev & (POLLIN | POLLOUT | POLLHUP | POLLERR)) {
            on_readable(h, c);
        }
    }
    now = now_ms();
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        struct emcp_http_conn *c = &h->conns[i];
        if (c->fd >= 0 && c->deadline_ms != 0 && now >= c->deadline_ms) {
            on_timeout(h, c);
        }
    }
    if (h->pfds[n].revents & POLLIN) {
        accept_new(h);
    }
    return 0;
}

/* ---- Setup -------------------------------------------------------------- */

int emcp_http_random(uint8_t *out, size_t len)
{
#if defined(__ZEPHYR__)
    return sys_csrand_get(out, len) == 0 ? 0 : -1;
#elif defined(__unix__) || defined(__APPLE__)
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    size_t got = 0;
    while (fd >= 0 && got < len) {
        ssize_t n = read(fd, out + got, len - got);
        if (n <= 0 && !(n < 0 && errno == EINTR)) {
            break;
        }
        got += n > 0 ? (size_t)n : 0;
    }
    if (fd >= 0) {
        close(fd);
    }
    return got == len ? 0 : -1;
#else
    (void)out;
    (void)len;
    return -1;
#endif
}

static void draw_key(emcp_http_t *h)
{
    bool zero = true;
    for (size_t i = 0; i < sizeof h->cfg.session_key; i++) {
        zero = zero && h->cfg.session_key[i] == 0;
    }
    if (!zero) {
        return;
    }
    uint64_t salt = now_ms();
#if !defined(__ZEPHYR__) && (defined(__unix__) || defined(__APPLE__))
    salt ^= (uint64_t)getpid() << 32;
#endif
    if (emcp_http_random(h->cfg.session_key, sizeof h->cfg.session_key) != 0) {
        /* No entropy source (firmware should pass its TRNG output in
         * session_key): at least differ per boot time. */
        for (size_t i = 0; i < sizeof h->cfg.session_key; i++) {
            h->cfg.session_key[i] ^= (uint8_t)(salt >> ((i % 8) * 8)) ^ (uint8_t)(i * 37u);
        }
        logf_(h, "emcp_http: no entropy source; weak session key (set session_key)");
    }
    /* The counter starts at a key-derived value so ids do not reveal uptime. */
    h->session_counter = emcp_http_siphash24(h->cfg.session_key, (const uint8_t *)"ctr", 3) >> 16;
}

int emcp_http_open(emcp_http_t *h, mcp_server_t *server, const emcp_http_config_t *cfg)
{
    if (h == NULL || server == NULL || cfg == NULL) {
        return -MCP_EINVAL;
    }
    memset(h, 0, sizeof *h);
    h->listen_fd = -1;
    h->server = server;
    h->cfg = *cfg;
    if (cfg->wake_fds_len > EMCP_HTTP_MAX_WAKE_FDS) {
        return -MCP_EINVAL;
    }
    const char *path = cfg->path != NULL ? cfg->path : "/mcp";
    if (path[0] != '/' || strlen(path) >= sizeof h->path) {
        return -MCP_EINVAL;
    }
    memcpy(h->path, path, strlen(path) + 1);
    if (h->cfg.max_conns == 0 || h->cfg.max_conns > EMCP_HTTP_MAX_CONNS) {
        h->cfg.max_conns = EMCP_HTTP_MAX_CONNS;
    }
    if (h->cfg.header_timeout_ms == 0) {
        h->cfg.header_timeout_ms = EMCP_HTTP_HEADER_TIMEOUT_MS;
    }
    if (h->cfg.request_timeout_ms == 0) {
        h->cfg.request_timeout_ms = EMCP_HTTP_REQUEST_TIMEOUT_MS;
    }
    if (h->cfg.idle_timeout_ms == 0) {
        h->cfg.idle_timeout_ms = EMCP_HTTP_IDLE_TIMEOUT_MS;
    }
    if (h->cfg.listen_keepalive_ms == 0) {
        h->cfg.listen_keepalive_ms = EMCP_HTTP_LISTEN_KEEPALIVE_MS;
    }
    if (h->cfg.input_timeout_ms == 0) {
        h->cfg.input_timeout_ms = EMCP_HTTP_INPUT_TIMEOUT_MS;
    }
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        h->conns[i].fd = -1;
        h->conns[i].listen_slot = -1;
        h->conns[i].input_slot = -1;
    }
    for (size_t i = 0; i < sizeof h->inputs / sizeof h->inputs[0]; i++) {
        h->inputs[i].conn = -1;
        h->inputs[i].ready = false;
        /* Disjoint request ids per slot (a session may have several calls
         * waiting); fails soft in a library without the legacy era. */
        (void)mcp_roundtrip_init(&h->inputs[i].rt, h->inputs[i].buf, sizeof h->inputs[i].buf,
                                 ((uint64_t)i + 1) << 40);
    }
    mcp_dedup_init(&h->dedup);
    h->settings.on_message_begin = on_message_begin;
    h->settings.on_url = on_url;
    h->settings.on_header_field = on_header_field;
    h->settings.on_header_value = on_header_value;
    h->settings.on_headers_complete = on_headers_complete;
    h->settings.on_body = on_body;
    h->settings.on_message_complete = on_message_complete;
    draw_key(h);
    if (cfg->tls_cert_file != NULL || cfg->tls_key_file != NULL || cfg->tls_cert != NULL ||
        cfg->tls_key != NULL) {
        int tls_rc = emcp_http_tls_open(h, cfg);
        if (tls_rc != 0) {
            return tls_rc;
        }
    }

    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(cfg->port);
    const char *bind_addr = cfg->bind_addr != NULL ? cfg->bind_addr : "127.0.0.1";
    if (inet_pton(AF_INET, bind_addr, &addr.sin_addr) != 1) {
        emcp_http_close(h);
        return -MCP_EINVAL;
    }
    h->loopback = (ntohl(addr.sin_addr.s_addr) >> 24) == 127;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        emcp_http_close(h);
        return -MCP_EIO;
    }
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int fl = fcntl(fd, F_GETFL, 0);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
        bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 128) != 0) {
        close(fd);
        emcp_http_close(h);
        return -MCP_EIO;
    }
    socklen_t len = sizeof addr;
    if (getsockname(fd, (struct sockaddr *)&addr, &len) == 0) {
        h->port = ntohs(addr.sin_port);
    }
    h->listen_fd = fd;
    return 0;
}

uint16_t emcp_http_port(const emcp_http_t *h)
{
    return h != NULL ? h->port : 0;
}

unsigned emcp_http_listen_count(const emcp_http_t *h)
{
    unsigned n = 0;
    /* The scratch slot (the last) is never busy: counting it too keeps the
     * loop well-formed when EMCP_HTTP_MAX_LISTENERS is 0. */
    for (size_t i = 0; h != NULL && i < sizeof h->listener_busy / sizeof h->listener_busy[0]; i++) {
        n += h->listener_busy[i];
    }
    return n;
}

/* Server shutdown: every open listen stream gets its final result (the
 * graceful end) as the last event, every legacy call waiting for input an
 * error event; then the bytes get a bounded time to go. */
static void listen_end_all(emcp_http_t *h)
{
    bool any = false;
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        struct emcp_http_conn *c = &h->conns[i];
        if (c->fd >= 0 && c->input_slot >= 0) {
            /* A legacy call waiting for input ends with an error event. */
            input_fail(h, c, -32603, "Server shutting down");
            any = any || c->fd >= 0;
            continue;
        }
        if (c->fd < 0 || c->listen_slot < 0) {
            continue;
        }
        int slot = c->listen_slot;
        int n = -MCP_ENOBUFS;
        if (c->legacy_stream) {
            n = 0; /* a legacy GET stream just ends: the client sent no request id */
        } else if (!c->listen_broken && stream_append(c, sse_prefix, SSE_PREFIX_LEN, NULL, 0, NULL, 0)) {
            size_t room = sizeof c->tx - c->tx_len;
            n = room > SSE_SUFFIX_LEN
                    ? mcp_server_listen_end(h->server, &h->listeners[slot],
                                            (char *)c->tx + c->tx_len, room - SSE_SUFFIX_LEN)
                    : -MCP_ENOBUFS;
            if (n > 0) {
                c->tx_len += (size_t)n;
                (void)stream_append(c, sse_suffix, SSE_SUFFIX_LEN, NULL, 0, NULL, 0);
            } else {
                c->tx_len -= SSE_PREFIX_LEN;
            }
        }
        /* Detached now in every case (listen_end with a buffer detaches even
         * when the result does not fit). */
        (void)mcp_server_listen_end(h->server, &h->listeners[slot], NULL, 0);
        h->listener_busy[slot] = false;
        c->listen_slot = -1;
        c->listen_broken = false;
        c->legacy_stream = false;
        c->close_after_tx = true;
        any = any || n > 0;
    }
    uint64_t until = now_ms() + EMCP_HTTP_LINGER_MS;
    while (any && now_ms() < until) {
        any = false;
        nfds_t k = 0;
        for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
            struct emcp_http_conn *c = &h->conns[i];
            if (c->fd >= 0 && !c->draining && c->tx_off < c->tx_len) {
                (void)flush_tx(h, c);
                if (c->fd >= 0 && !c->draining && c->tx_off < c->tx_len) {
                    h->pfds[k].fd = c->fd;
                    h->pfds[k].events = POLLOUT;
                    h->pfds[k].revents = 0;
                    k++;
                    any = true;
                }
            }
        }
        if (any) {
            (void)poll(h->pfds, k, 50);
        }
    }
}

void emcp_http_close(emcp_http_t *h)
{
    if (h == NULL) {
        return;
    }
    listen_end_all(h);
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        conn_close(h, &h->conns[i]);
    }
    if (h->listen_fd >= 0) {
        close(h->listen_fd);
        h->listen_fd = -1;
    }
    emcp_http_tls_close(h);
    h->tls_ctx = NULL;
}
