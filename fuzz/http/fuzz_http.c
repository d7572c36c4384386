/*
 * libFuzzer harness for the Streamable HTTP binding's request handling
 * (bindings/http/emcp_http.c): arbitrary bytes, in arbitrary chunks, as the
 * input of one client connection, with a real emcp server behind the binding.
 *
 * Built by CMake with EMCP_FUZZ=ON and clang (-fsanitize=fuzzer,address,
 * undefined); see docs/fuzzing.md. The binding is driven exactly as in
 * production, through emcp_http_poll(): the harness hands one end of a
 * socketpair() to emcp_http_adopt() and writes the input into the other.
 *
 * Input: byte 0 selects the instance and the chunking, the rest is what the
 * client sends.
 *   bit 0      0: no authentication; 1: an instance that requires
 *              "Authorization: Bearer fuzz-token"
 *   bits 1..7  0: everything in one write; k > 0: chunk sizes drawn from a
 *              generator seeded with k (1..k*8 bytes), with emcp_http_poll()
 *              between chunks, so requests arrive split at every place
 *
 * Invariants (a violation aborts, which libFuzzer reports as a crash):
 * - Everything the server sends parses as a sequence of HTTP/1.1 responses:
 *   a status line "HTTP/1.1 NNN Reason" with a known status, header lines,
 *   exactly one Content-Length (except "100 Continue") and exactly that many
 *   body bytes; nothing after a response that said "Connection: close"; no
 *   partial response when the connection ends.
 * - 202 has an empty body; every other body is one JSON-RPC message
 *   (application/json: one JSON value, an object starting with
 *   {"jsonrpc":"2.0","id": ) or an SSE stream of such messages.
 * - A tool runs only inside a POST to /mcp that reached the core with
 *   MCP_CTX_HTTP (and the principal, on the authenticated instance), with
 *   arguments inside its schema, and every run is answered: its result
 *   ("probe_run":K for run K) appears in exactly one 200 response. So a
 *   notification, a refused or malformed request never runs a tool.
 * - After the client closes, the connection slot is free again.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "emcp.h"
#include "emcp_http.h"

#define FUZZ_OUT_MAX (1u << 20) /* everything one input makes the server send */
#define FUZZ_MAX_RUNS 64        /* tool runs tracked per input */
#define FUZZ_PUMP_ROUNDS 64     /* poll rounds after the last byte */

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_http invariant broken (%s:%d): %s\n  ", __FILE__,       \
                    __LINE__, #cond);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

static mcp_server_t server;
static emcp_http_t plain, authed;
static emcp_http_bearer_t bearer = {"fuzz-token", "fuzz-client"};
static emcp_http_t *current;
static unsigned runs; /* tool runs of the current input */

/* ---- The tools ------------------------------------------------------------ */

static bool in_endpoint_post(const mcp_call_t *call)
{
    const mcp_request_ctx_t *ctx = mcp_call_ctx(call);
    if (ctx == NULL || (ctx->flags & MCP_CTX_HTTP) == 0 || ctx->transport_context == NULL) {
        return false;
    }
    const struct emcp_http_conn *c = ctx->transport_context;
    if (c->parser.method != HTTP_POST || !c->url.set || c->url.len < 4 ||
        memcmp(c->rx + c->url.off, "/mcp", 4) != 0 ||
        (c->url.len > 4 && c->rx[c->url.off + 4] != '?')) {
        return false;
    }
    if (current == &authed) {
        return ctx->principal.len == strlen(bearer.principal) &&
               memcmp(ctx->principal.ptr, bearer.principal, ctx->principal.len) == 0;
    }
    return true;
}

static int answer_run(mcp_result_t *r)
{
    runs++;
    mcp_result_structured_begin(r);
    mcp_json_key(r, "probe_run");
    mcp_json_int(r, runs);
    return mcp_result_structured_end(r);
}

static int probe(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    int64_t n = -1;
    CHECK(in_endpoint_post(call), "probe ran outside a POST /mcp that reached the core");
    CHECK(mcp_arg_int(call, "n", &n) == 0 && n >= 0 && n <= 9, "probe.n = %lld passed the schema",
          (long long)n);
    return answer_run(r);
}

static int note(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char text[8 * 4 + 1]; /* 8 code points of at most 4 bytes */
    size_t len = 0;
    CHECK(in_endpoint_post(call), "note ran outside a POST /mcp that reached the core");
    CHECK(mcp_arg_string(call, "text", text, sizeof text, &len) == 0 && len >= 1 && len <= 8 * 4,
          "note.text of %zu bytes passed the schema", len);
    (void)mcp_progress(call, 1, 2, "half"); /* an SSE event when the client takes a stream */
    return answer_run(r);
}

static const mcp_tool_t probe_tool = {
    .name = "probe",
    .description = "Counts its runs.",
    .input_schema = "{\"type\":\"object\",\"required\":[\"n\"],\"additionalProperties\":false,"
                    "\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":9,"
                    "\"x-mcp-header\":\"N\"}}}",
    /* answer_run's ,"structuredContent":{"probe_run":N} for any unsigned N. */
    .max_result_len = 45,
};
static const mcp_tool_t note_tool = {
    .name = "note",
    .description = "Counts its runs and reports progress.",
    .input_schema = "{\"type\":\"object\",\"required\":[\"text\"],\"properties\":{\"text\":"
                    "{\"type\":\"string\",\"minLength\":1,\"maxLength\":8}}}",
    .max_result_len = 45,
};

/* ---- A strict JSON checker (RFC 8259, UTF-8) ------------------------------ */

struct js {
    const uint8_t *p, *end;
    int depth;
};

static void ws(struct js *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) {
        j->p++;
    }
}

static bool lit(struct js *j, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0) {
        return false;
    }
    j->p += n;
    return true;
}

static bool utf8(struct js *j)
{
    uint8_t b = *j->p;
    size_t n = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : 1;
    uint32_t cp = b >= 0xF0 ? b & 7u : b >= 0xE0 ? b & 15u : b & 31u;
    if (b < 0xC2 || b > 0xF4 || (size_t)(j->end - j->p) <= n) {
        return false;
    }
    for (size_t i = 1; i <= n; i++) {
        if ((j->p[i] & 0xC0) != 0x80) {
            return false;
        }
        cp = (cp << 6) | (j->p[i] & 0x3Fu);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
        return false;
    }
    j->p += n + 1;
    return true;
}

static bool string(struct js *j)
{
    if (!lit(j, "\"")) {
        return false;
    }
    while (j->p < j->end) {
        uint8_t c = *j->p;
        if (c == '"') {
            j->p++;
            return true;
        }
        if (c < 0x20) {
            return false;
        }
        if (c == '\\') {
            if (j->end - j->p < 2) {
                return false;
            }
            uint8_t e = j->p[1];
            if (e == 'u') {
                if (j->end - j->p < 6) {
                    return false;
                }
                for (int i = 2; i < 6; i++) {
                    uint8_t h = j->p[i];
                    if (!((h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'))) {
                        return false;
                    }
                }
                j->p += 6;
            } else if (strchr("\"\\/bfnrt", e) != NULL && e != 0) {
                j->p += 2;
            } else {
                return false;
            }
        } else if (c < 0x80) {
            j->p++;
        } else if (!utf8(j)) {
            return false;
        }
    }
    return false;
}

static bool digits(struct js *j)
{
    const uint8_t *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        j->p++;
    }
    return j->p > s;
}

static bool number(struct js *j)
{
    lit(j, "-");
    if (lit(j, "0")) {
    } else if (j->p < j->end && *j->p >= '1' && *j->p <= '9') {
        digits(j);
    } else {
        return false;
    }
    if (lit(j, ".") && !digits(j)) {
        return false;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (!lit(j, "+")) {
            lit(j, "-");
        }
        if (!digits(j)) {
            return false;
        }
    }
    return true;
}

static bool value(struct js *j)
{
    ws(j);
    if (j->p >= j->end || ++j->depth > 200) {
        return false;
    }
    bool ok;
    uint8_t c = *j->p;
    if (c == '{' || c == '[') {
        uint8_t close = c == '{' ? '}' : ']';
        j->p++;
        ws(j);
        ok = true;
        if (!lit(j, (const char[]){(char)close, 0})) {
            for (;;) {
                if (c == '{') {
                    ws(j);
                    if (!string(j)) {
                        ok = false;
                        break;
                    }
                    ws(j);
                    if (!lit(j, ":")) {
                        ok = false;
                        break;
                    }
                }
                if (!value(j)) {
                    ok = false;
                    break;
                }
                ws(j);
                if (lit(j, ",")) {
                    continue;
                }
                ok = lit(j, (const char[]){(char)close, 0});
                break;
            }
        }
    } else if (c == '"') {
        ok = string(j);
    } else if (c == 't') {
        ok = lit(j, "true");
    } else if (c == 'f') {
        ok = lit(j, "false");
    } else if (c == 'n') {
        ok = lit(j, "null");
    } else {
        ok = number(j);
    }
    j->depth--;
    return ok;
}

/* One JSON-RPC message from the core or the binding: exactly one JSON value,
 * an object that starts with the members the core always writes first. */
static void check_message(const uint8_t *p, size_t n)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
    struct js j = {p, p + n, 0};
    CHECK(value(&j), "a response body is not JSON: %.*s", (int)(n > 400 ? 400 : n), (const char *)p);
    ws(&j);
    CHECK(j.p == j.end, "bytes after the JSON value: %.*s", (int)(n > 400 ? 400 : n), (const char *)p);
    CHECK(n >= sizeof head - 1 && memcmp(p, head, sizeof head - 1) == 0,
          "not a JSON-RPC response: %.*s", (int)(n > 200 ? 200 : n), (const char *)p);
}

/* ---- The response stream -------------------------------------------------- */

static bool known_status(unsigned s)
{
    static const unsigned ok[] = {100, 200, 202, 400, 401, 403, 404, 405,
                                  406, 408, 413, 415, 431, 500, 503};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (ok[i] == s) {
            return true;
        }
    }
    return false;
}

static const uint8_t *find(const uint8_t *p, const uint8_t *end, const char *needle)
{
    size_t n = strlen(needle);
    for (; (size_t)(end - p) >= n; p++) {
        if (memcmp(p, needle, n) == 0) {
            return p;
        }
    }
    return NULL;
}

static bool ihas_prefix(const uint8_t *p, const uint8_t *end, const char *lit_)
{
    size_t n = strlen(lit_);
    if ((size_t)(end - p) < n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        if (c >= 'A' && c <= 'Z') {
            c = (uint8_t)(c - 'A' + 'a');
        }
        if (c != (uint8_t)lit_[i]) {
            return false;
        }
    }
    return true;
}

/* Number of 200 bodies that carry "probe_run":k, for each k. */
static unsigned answered[FUZZ_MAX_RUNS + 1];

static void note_runs(const uint8_t *b, size_t n)
{
    static const char key[] = "\"probe_run\":";
    const uint8_t *end = b + n;
    for (const uint8_t *p = find(b, end, key); p != NULL; p = find(p + 1, end, key)) {
        unsigned long k = strtoul((const char *)p + sizeof key - 1, NULL, 10);
        if (k >= 1 && k <= FUZZ_MAX_RUNS) {
            answered[k]++;
        }
    }
}

static void check_sse(const uint8_t *b, size_t n)
{
    static const char pre[] = "event: message\r\ndata: ";
    const uint8_t *p = b, *end = b + n;
    CHECK(n > 0, "empty event stream");
    while (p < end) {
        CHECK((size_t)(end - p) > sizeof pre - 1 && memcmp(p, pre, sizeof pre - 1) == 0,
              "not an SSE event: %.*s", (int)(end - p > 100 ? 100 : end - p), (const char *)p);
        p += sizeof pre - 1;
        const uint8_t *e = find(p, end, "\r\n\r\n");
        CHECK(e != NULL, "unterminated SSE event");
        struct js j = {p, e, 0};
        CHECK(value(&j) && j.p == e, "SSE data is not one JSON value: %.*s", (int)(e - p), p);
        p = e + 4;
    }
}

/* Checks everything the server sent; returns the number of 200 responses. */
static unsigned check_stream(const uint8_t *out, size_t len, bool eof)
{
    const uint8_t *p = out, *end = out + len;
    unsigned ok200 = 0;
    bool closed = false;
    memset(answered, 0, sizeof answered);
    while (p < end) {
        CHECK(!closed, "%zu bytes after a response with Connection: close", (size_t)(end - p));
        const uint8_t *head_end = find(p, end, "\r\n\r\n");
        CHECK(head_end != NULL, "partial response head at the end: %.*s",
              (int)(end - p > 200 ? 200 : end - p), (const char *)p);
        CHECK(end - p > 13 && memcmp(p, "HTTP/1.1 ", 9) == 0 && p[12] == ' ',
              "bad status line: %.*s", (int)(head_end - p), (const char *)p);
        unsigned status = 0;
        for (int i = 9; i < 12; i++) {
            CHECK(p[i] >= '0' && p[i] <= '9', "status code is not 3 digits");
            status = status * 10 + (unsigned)(p[i] - '0');
        }
        CHECK(known_status(status), "unexpected status %u", status);
        const uint8_t *line = find(p, head_end + 2, "\r\n") + 2;
        int n_len = 0;
        size_t clen = 0;
        bool json = false, sse = false;
        while (line < head_end + 2) {
            const uint8_t *eol = find(line, head_end + 2, "\r\n");
            const uint8_t *colon = find(line, eol, ": ");
            CHECK(colon != NULL && colon > line, "bad header line: %.*s", (int)(eol - line), line);
            for (const uint8_t *q = line; q < eol; q++) {
                CHECK(*q >= 0x20 && *q < 0x7F, "control or non-ASCII byte in a response header");
            }
            if (ihas_prefix(line, eol, "content-length: ")) {
                n_len++;
                const uint8_t *d = line + 16;
                CHECK(d < eol, "empty Content-Length");
                for (; d < eol; d++) {
                    CHECK(*d >= '0' && *d <= '9' && clen < FUZZ_OUT_MAX, "bad Content-Length");
                    clen = clen * 10 + (size_t)(*d - '0');
                }
            } else if (ihas_prefix(line, eol, "content-type: application/json")) {
                json = true;
            } else if (ihas_prefix(line, eol, "content-type: text/event-stream")) {
                sse = true;
            } else if (ihas_prefix(line, eol, "connection: close")) {
                closed = true;
            }
            line = eol + 2;
        }
        p = head_end + 4;
        if (status == 100) {
            CHECK(n_len == 0 && !closed, "100 Continue with headers");
            continue;
        }
        CHECK(n_len == 1, "%d Content-Length headers on a %u", n_len, status);
        CHECK((size_t)(end - p) >= clen, "body shorter than Content-Length (%zu < %zu), %s",
              (size_t)(end - p), clen, eof ? "connection ended" : "stalled");
        const uint8_t *body = p;
        p += clen;
        if (status == 202) {
            CHECK(clen == 0, "202 with a body");
            continue;
        }
        CHECK(clen > 0 && (json != sse), "status %u: body of %zu bytes, type %s", status, clen,
              json ? "json" : sse ? "sse" : "none");
        if (json) {
            check_message(body, clen);
        } else {
            check_sse(body, clen);
        }
        if (status == 200) {
            ok200++;
            note_runs(body, clen);
        }
    }
    return ok200;
}

/* ---- Driving one connection ----------------------------------------------- */

static uint8_t out[FUZZ_OUT_MAX];
static size_t out_len;
static bool peer_eof;

static void drain(int fd)
{
    for (;;) {
        if (out_len == sizeof out) {
            return;
        }
        ssize_t n = read(fd, out + out_len, sizeof out - out_len);
        if (n > 0) {
            out_len += (size_t)n;
            continue;
        }
        if (n == 0) {
            peer_eof = true;
        }
        return;
    }
}

static void pump(emcp_http_t *h, int fd)
{
    CHECK(emcp_http_poll(h, 0) == 0, "emcp_http_poll failed");
    drain(fd);
}

static bool slot_free(const emcp_http_t *h)
{
    for (size_t i = 0; i < EMCP_HTTP_MAX_CONNS; i++) {
        if (h->conns[i].fd >= 0) {
            return false;
        }
    }
    return true;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    mcp_server_config_t cfg = {.name = "fuzz-http", .version = "1"};
    if (mcp_server_init(&server, &cfg) != 0 ||
        mcp_server_add_tool(&server, &probe_tool, probe, NULL) != 0 ||
        mcp_server_add_tool(&server, &note_tool, note, NULL) != 0) {
        fprintf(stderr, "fuzz_http: server setup failed\n");
        abort();
    }
    emcp_http_config_t hc;
    memset(&hc, 0, sizeof hc);
    memset(hc.session_key, 0x5a, sizeof hc.session_key); /* fixed: reproducible ids */
    if (emcp_http_open(&plain, &server, &hc) != 0) {
        abort();
    }
    hc.auth = emcp_http_bearer_auth;
    hc.auth_user = &bearer;
    if (emcp_http_open(&authed, &server, &hc) != 0) {
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    uint8_t mode = data[0];
    data++;
    size--;
    emcp_http_t *h = (mode & 1) ? &authed : &plain;
    current = h;
    runs = 0;
    out_len = 0;
    peer_eof = false;

    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair: %s", strerror(errno));
    CHECK(fcntl(sv[0], F_SETFL, O_NONBLOCK) == 0, "fcntl");
    CHECK(emcp_http_adopt(h, sv[1]) == 0, "emcp_http_adopt refused the connection");

    uint32_t rng = (uint32_t)(mode >> 1) * 2654435761u + 1u;
    size_t max_chunk = (size_t)(mode >> 1) * 8;
    size_t pos = 0;
    int stuck = 0;
    while (pos < size && !peer_eof) {
        size_t want = size - pos;
        if (max_chunk > 0) {
            rng = rng * 1103515245u + 12345u;
            size_t c = 1 + (rng >> 8) % max_chunk;
            want = want < c ? want : c;
        }
        ssize_t n = send(sv[0], data + pos, want, MSG_NOSIGNAL);
        if (n > 0) {
            pos += (size_t)n;
            stuck = 0;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* The server is not reading (e.g. it waits for us to read a
             * response, or is discarding after an error): let it run. */
            if (++stuck > 1000) {
                break;
            }
        } else {
            break; /* the server closed the connection */
        }
        pump(h, sv[0]);
    }
    for (int i = 0; i < FUZZ_PUMP_ROUNDS && !peer_eof; i++) {
        size_t before = out_len;
        pump(h, sv[0]);
        if (out_len == before && h->conns[0].tx_len == 0 && i > 2) {
            break;
        }
    }
    /* Everything complete so far must be well formed (a request still
     * incomplete has no answer yet). */
    unsigned ok200 = check_stream(out, out_len, false);

    /* The client goes away: the slot must come free. */
    shutdown(sv[0], SHUT_WR);
    for (int i = 0; i < FUZZ_PUMP_ROUNDS && !slot_free(h); i++) {
        pump(h, sv[0]);
    }
    drain(sv[0]);
    close(sv[0]);
    CHECK(slot_free(h), "the connection slot is still taken after the client closed");
    if (getenv("FUZZ_HTTP_DUMP") != NULL) { /* what the server sent, for reading a seed */
        fprintf(stderr, "--- %u tool run(s); the server sent %zu bytes:\n", runs, out_len);
        fwrite(out, 1, out_len, stderr);
        fputc('\n', stderr);
    }
    ok200 = check_stream(out, out_len, true);

    CHECK(runs <= FUZZ_MAX_RUNS, "%u tool runs", runs);
    CHECK(runs <= ok200, "%u tool runs but %u responses with status 200", runs, ok200);
    for (unsigned k = 1; k <= runs; k++) {
        CHECK(answered[k] == 1, "tool run %u answered %u times", k, answered[k]);
    }
    for (unsigned k = runs + 1; k <= FUZZ_MAX_RUNS; k++) {
        CHECK(answered[k] == 0, "a response claims run %u of %u", k, runs);
    }
    return 0;
}
