/*
 * check.h: the C tests' own assertion macros and helpers (no framework).
 *
 * Every CHECK* macro counts one check, prints the failing expression with its
 * file and line, and goes on, so one run reports every failure. A test
 * program ends with `return check_summary("name");`, which prints
 * "N passed, M failed" and returns the exit status (non-zero on any failure).
 *
 * Also here: a small strict JSON validator and path lookup (tj_*) to parse
 * fields out of responses, and run_request(), which calls mcp_server_handle
 * with a heap buffer followed by guard bytes and checks, for every response,
 * that the guard is intact, the length fits, and the bytes are one valid
 * JSON-RPC message.
 */
#ifndef EMCP_TEST_CHECK_H
#define EMCP_TEST_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emcp.h"

static int check_passed;
static int check_failed;

static inline bool check_record(bool ok, const char *file, int line, const char *what)
{
    if (ok) {
        check_passed++;
    } else {
        check_failed++;
        fprintf(stderr, "FAIL %s:%d: %s\n", file, line, what);
    }
    return ok;
}

/* Prints a byte span readably (escapes control and non-ASCII bytes). */
static inline void check_print_bytes(const char *label, const void *p, size_t n)
{
    const unsigned char *b = p;
    fprintf(stderr, "    %s (%zu bytes): ", label, n);
    for (size_t i = 0; i < n; i++) {
        if (b[i] >= 0x20 && b[i] < 0x7f) {
            fputc(b[i], stderr);
        } else {
            fprintf(stderr, "\\x%02x", b[i]);
        }
    }
    fputc('\n', stderr);
}

#define CHECK(cond) check_record((cond) ? true : false, __FILE__, __LINE__, #cond)

#define CHECK_INT(actual, expected)                                                            \
    do {                                                                                       \
        long long check_a_ = (long long)(actual);                                              \
        long long check_e_ = (long long)(expected);                                            \
        if (!check_record(check_a_ == check_e_, __FILE__, __LINE__, #actual " == " #expected)) \
            fprintf(stderr, "    actual %lld, expected %lld\n", check_a_, check_e_);           \
    } while (0)

#define CHECK_STR(actual, expected)                                                      \
    do {                                                                                 \
        const char *check_a_ = (actual);                                                 \
        const char *check_e_ = (expected);                                               \
        bool check_ok_ = check_a_ != NULL && strcmp(check_a_, check_e_) == 0;            \
        if (!check_record(check_ok_, __FILE__, __LINE__, #actual " equals " #expected)) \
            fprintf(stderr, "    actual \"%s\", expected \"%s\"\n",                      \
                    check_a_ ? check_a_ : "(null)", check_e_);                           \
    } while (0)

/* A byte span equals a C string literal's bytes exactly. */
#define CHECK_MEM(ptr, len, expected)                                                      \
    do {                                                                                   \
        const void *check_p_ = (ptr);                                                      \
        size_t check_n_ = (size_t)(len);                                                   \
        const char *check_e_ = (expected);                                                 \
        size_t check_en_ = strlen(check_e_);                                               \
        bool check_ok_ = check_n_ == check_en_ && memcmp(check_p_, check_e_, check_n_) == 0; \
        if (!check_record(check_ok_, __FILE__, __LINE__, #ptr " equals " #expected)) {    \
            check_print_bytes("actual  ", check_p_, check_n_);                            \
            check_print_bytes("expected", check_e_, check_en_);                           \
        }                                                                                  \
    } while (0)

static inline int check_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}

/* ---------------------------------------------------------------------------
 * tj: strict JSON (RFC 8259) validation and lookup over a byte span.
 * ------------------------------------------------------------------------ */

static inline bool tj_utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t extra;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            extra = 1;
            cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            extra = 2;
            cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (n - i <= extra) {
            return false;
        }
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xc0) != 0x80) {
                return false;
            }
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff)) {
            return false;
        }
        i += extra + 1;
    }
    return true;
}

static inline void tj_ws(const char *s, size_t n, size_t *p)
{
    while (*p < n && (s[*p] == ' ' || s[*p] == '\t' || s[*p] == '\n' || s[*p] == '\r')) {
        (*p)++;
    }
}

static inline int tj_hex4(const char *s, size_t n, size_t *p, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        if (*p >= n) {
            return -1;
        }
        char c = s[*p];
        unsigned d;
        if (c >= '0' && c <= '9') {
            d = (unsigned)(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            d = (unsigned)(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            d = (unsigned)(c - 'A' + 10);
        } else {
            return -1;
        }
        v = (v << 4) | d;
        (*p)++;
    }
    *out = v;
    return 0;
}

/* A string starting at its opening quote; *p ends after the closing quote. */
static inline int tj_string(const char *s, size_t n, size_t *p)
{
    if (*p >= n || s[*p] != '"') {
        return -1;
    }
    (*p)++;
    while (*p < n) {
        unsigned char c = (unsigned char)s[*p];
        if (c == '"') {
            (*p)++;
            return 0;
        }
        if (c < 0x20) {
            return -1;
        }
        if (c == '\\') {
            (*p)++;
            if (*p >= n) {
                return -1;
            }
            char e = s[*p];
            if (e == 'u') {
                unsigned cp;
                (*p)++;
                if (tj_hex4(s, n, p, &cp)) {
                    return -1;
                }
                if (cp >= 0xdc00 && cp <= 0xdfff) {
                    return -1;
                }
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned lo;
                    if (*p + 1 >= n || s[*p] != '\\' || s[*p + 1] != 'u') {
                        return -1;
                    }
                    *p += 2;
                    if (tj_hex4(s, n, p, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                        return -1;
                    }
                }
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || e == '\0') {
                return -1;
            }
        }
        (*p)++;
    }
    return -1;
}

static inline size_t tj_digits(const char *s, size_t n, size_t *p)
{
    size_t from = *p;
    while (*p < n && s[*p] >= '0' && s[*p] <= '9') {
        (*p)++;
    }
    return *p - from;
}

static inline int tj_number(const char *s, size_t n, size_t *p)
{
    if (*p < n && s[*p] == '-') {
        (*p)++;
    }
    if (*p < n && s[*p] == '0') {
        (*p)++;
    } else if (tj_digits(s, n, p) == 0) {
        return -1;
    }
    if (*p < n && s[*p] == '.') {
        (*p)++;
        if (tj_digits(s, n, p) == 0) {
            return -1;
        }
    }
    if (*p < n && (s[*p] == 'e' || s[*p] == 'E')) {
        (*p)++;
        if (*p < n && (s[*p] == '+' || s[*p] == '-')) {
            (*p)++;
        }
        if (tj_digits(s, n, p) == 0) {
            return -1;
        }
    }
    return 0;
}

static inline int tj_value(const char *s, size_t n, size_t *p, int depth)
{
    if (depth > 64) {
        return -1;
    }
    tj_ws(s, n, p);
    if (*p >= n) {
        return -1;
    }
    char c = s[*p];
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        (*p)++;
        tj_ws(s, n, p);
        if (*p < n && s[*p] == close) {
            (*p)++;
            return 0;
        }
        for (;;) {
            if (c == '{') {
                tj_ws(s, n, p);
                if (tj_string(s, n, p)) {
                    return -1;
                }
                tj_ws(s, n, p);
                if (*p >= n || s[*p] != ':') {
                    return -1;
                }
                (*p)++;
            }
            if (tj_value(s, n, p, depth + 1)) {
                return -1;
            }
            tj_ws(s, n, p);
            if (*p >= n) {
                return -1;
            }
            if (s[*p] == ',') {
                (*p)++;
                continue;
            }
            if (s[*p] == close) {
                (*p)++;
                return 0;
            }
            return -1;
        }
    }
    if (c == '"') {
        return tj_string(s, n, p);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        return tj_number(s, n, p);
    }
    static const char *const words[] = {"true", "false", "null"};
    for (size_t k = 0; k < 3; k++) {
        size_t wl = strlen(words[k]);
        if (n - *p >= wl && memcmp(s + *p, words[k], wl) == 0) {
            *p += wl;
            return 0;
        }
    }
    return -1;
}

/* True when s[0..n) is exactly one JSON text (valid UTF-8, strict grammar). */
static inline bool tj_valid(const char *s, size_t n)
{
    size_t p = 0;
    if (!tj_utf8_valid((const unsigned char *)s, n) || tj_value(s, n, &p, 0)) {
        return false;
    }
    tj_ws(s, n, &p);
    return p == n;
}

/*
 * Finds the value at `path` in the JSON text s[0..n). Segments are separated
 * by '>' (keys may contain '.' and '/'); a segment applied to an array is a
 * decimal index. Keys are compared with the raw (escaped) key bytes. "" is the
 * root. Returns 0 and the value's raw span, or -1 when absent or invalid.
 */
static inline int tj_lookup(const char *s, size_t n, const char *path, const char **out, size_t *out_len)
{
    size_t p = 0;
    const char *seg = path;
    tj_ws(s, n, &p);
    while (*seg) {
        const char *end = strchr(seg, '>');
        size_t sl = end ? (size_t)(end - seg) : strlen(seg);
        if (p >= n) {
            return -1;
        }
        if (s[p] == '{') {
            p++;
            tj_ws(s, n, &p);
            if (p < n && s[p] == '}') {
                return -1;
            }
            for (;;) {
                tj_ws(s, n, &p);
                size_t q = p;
                if (tj_string(s, n, &p)) {
                    return -1;
                }
                bool match = p - q - 2 == sl && memcmp(s + q + 1, seg, sl) == 0;
                tj_ws(s, n, &p);
                if (p >= n || s[p] != ':') {
                    return -1;
                }
                p++;
                tj_ws(s, n, &p);
                if (match) {
                    break;
                }
                if (tj_value(s, n, &p, 0)) {
                    return -1;
                }
                tj_ws(s, n, &p);
                if (p < n && s[p] == ',') {
                    p++;
                    continue;
                }
                return -1;
            }
        } else if (s[p] == '[') {
            size_t idx = 0;
            if (sl == 0) {
                return -1;
            }
            for (size_t k = 0; k < sl; k++) {
                if (seg[k] < '0' || seg[k] > '9') {
                    return -1;
                }
                idx = idx * 10 + (size_t)(seg[k] - '0');
            }
            p++;
            tj_ws(s, n, &p);
            if (p < n && s[p] == ']') {
                return -1;
            }
            for (size_t i = 0;; i++) {
                tj_ws(s, n, &p);
                if (i == idx) {
                    break;
                }
                if (tj_value(s, n, &p, 0)) {
                    return -1;
                }
                tj_ws(s, n, &p);
                if (p < n && s[p] == ',') {
                    p++;
                    continue;
                }
                return -1;
            }
        } else {
            return -1;
        }
        seg = end ? end + 1 : seg + sl;
    }
    size_t start = p;
    if (tj_value(s, n, &p, 0)) {
        return -1;
    }
    *out = s + start;
    *out_len = p - start;
    return 0;
}

/* Decodes a JSON string given as its raw span (with quotes) into out; returns
 * the decoded length, or -1 when it is not a valid string or does not fit. */
static inline long tj_unescape(const char *s, size_t n, char *out, size_t cap)
{
    size_t p = 0;
    size_t o = 0;
    if (tj_string(s, n, &p) || p != n) {
        return -1;
    }
    for (p = 1; p + 1 < n;) {
        unsigned cp;
        char c = s[p++];
        if (c != '\\') {
            if (o >= cap) {
                return -1;
            }
            out[o++] = c;
            continue;
        }
        c = s[p++];
        switch (c) {
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case 'u':
            /* tj_string validated the escapes; checking again keeps cp and lo
             * set on every path the compiler can see (-Wmaybe-uninitialized
             * under -O2/-Os). */
            if (tj_hex4(s, n, &p, &cp)) {
                return -1;
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo;
                p += 2;
                if (tj_hex4(s, n, &p, &lo)) {
                    return -1;
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            }
            break;
        default: cp = (unsigned char)c; break;
        }
        unsigned char enc[4];
        size_t k;
        if (cp < 0x80) {
            enc[0] = (unsigned char)cp;
            k = 1;
        } else if (cp < 0x800) {
            enc[0] = (unsigned char)(0xc0 | (cp >> 6));
            enc[1] = (unsigned char)(0x80 | (cp & 0x3f));
            k = 2;
        } else if (cp < 0x10000) {
            enc[0] = (unsigned char)(0xe0 | (cp >> 12));
            enc[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            enc[2] = (unsigned char)(0x80 | (cp & 0x3f));
            k = 3;
        } else {
            enc[0] = (unsigned char)(0xf0 | (cp >> 18));
            enc[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
            enc[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            enc[3] = (unsigned char)(0x80 | (cp & 0x3f));
            k = 4;
        }
        if (o + k > cap) {
            return -1;
        }
        memcpy(out + o, enc, k);
        o += k;
    }
    return (long)o;
}

/* The string at `path` in the last response decodes to exactly the bytes
 * want[0..want_len) (escaping is the library's choice; the text is not). */
#define CHECK_TEXT_AT(path, want, want_len)                                                         \
    do {                                                                                            \
        const char *check_v_ = NULL;                                                                \
        size_t check_vl_ = 0;                                                                       \
        static char check_d_[RESP_TEXT_MAX];                                                        \
        long check_n_ = -1;                                                                         \
        if (tj_lookup(R.text, R.len, (path), &check_v_, &check_vl_) == 0)                           \
            check_n_ = tj_unescape(check_v_, check_vl_, check_d_, sizeof check_d_);                 \
        bool check_ok_ = check_n_ >= 0 && (size_t)check_n_ == (size_t)(want_len) &&                 \
                         memcmp(check_d_, (want), (size_t)(want_len)) == 0;                         \
        if (!check_record(check_ok_, __FILE__, __LINE__, "decoded text at " path " equals " #want)) { \
            check_print_bytes("actual  ", check_d_, check_n_ > 0 ? (size_t)check_n_ : 0);          \
            check_print_bytes("expected", (want), (size_t)(want_len));                             \
            check_print_bytes("response", R.text, R.len);                                           \
        }                                                                                           \
    } while (0)

/* Members of an object or elements of an array given as its raw span; -1 otherwise. */
static inline int tj_count(const char *s, size_t n)
{
    size_t p = 0;
    int count = 0;
    tj_ws(s, n, &p);
    if (p >= n || (s[p] != '{' && s[p] != '[')) {
        return -1;
    }
    bool obj = s[p] == '{';
    p++;
    tj_ws(s, n, &p);
    if (p < n && (s[p] == '}' || s[p] == ']')) {
        return 0;
    }
    for (;;) {
        if (obj) {
            tj_ws(s, n, &p);
            if (tj_string(s, n, &p)) {
                return -1;
            }
            tj_ws(s, n, &p);
            if (p >= n || s[p] != ':') {
                return -1;
            }
            p++;
        }
        if (tj_value(s, n, &p, 0)) {
            return -1;
        }
        count++;
        tj_ws(s, n, &p);
        if (p < n && s[p] == ',') {
            p++;
            continue;
        }
        return count;
    }
}

/* ---------------------------------------------------------------------------
 * Requests through mcp_server_handle with a guarded response buffer.
 * ------------------------------------------------------------------------ */

#define RESP_GUARD 32
#define RESP_DEFAULT_CAP 4096
#define RESP_TEXT_MAX 65536
#define GUARD_BYTE 0xA5

/* The last response (its bytes copied out of the guarded heap buffer). */
typedef struct {
    int rc;
    mcp_response_info_t info;
    size_t cap;
    size_t len;
    char text[RESP_TEXT_MAX];
} resp_t;

static resp_t R;

static inline int run_request_at(const char *file, int line, mcp_server_t *server,
                                 const mcp_request_ctx_t *ctx, const void *req, size_t req_len,
                                 size_t cap)
{
    unsigned char *buf = malloc(cap + RESP_GUARD);
    if (!buf) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(buf, GUARD_BYTE, cap + RESP_GUARD);
    memset(&R.info, 0xEE, sizeof R.info);
    R.rc = mcp_server_handle(server, ctx, req, req_len, buf, cap, &R.info);
    R.cap = cap;
    R.len = 0;
    R.text[0] = '\0';

    bool guard_ok = true;
    for (size_t i = cap; i < cap + RESP_GUARD; i++) {
        guard_ok = guard_ok && buf[i] == GUARD_BYTE;
    }
    check_record(guard_ok, file, line, "no byte after response_cap was written");

    if (R.rc > 0) {
        R.len = (size_t)R.rc;
        if (check_record(R.len <= cap, file, line, "response length <= response_cap") &&
            R.len < sizeof R.text) {
            memcpy(R.text, buf, R.len);
            R.text[R.len] = '\0';
        }
        if (!check_record(tj_valid(R.text, R.len), file, line, "response is one valid JSON text")) {
            check_print_bytes("response", R.text, R.len);
        }
        const char *v;
        size_t vl;
        bool rpc = tj_lookup(R.text, R.len, "jsonrpc", &v, &vl) == 0 && vl == 5 &&
                   memcmp(v, "\"2.0\"", 5) == 0;
        check_record(rpc, file, line, "response carries \"jsonrpc\":\"2.0\"");
        check_record((R.info.flags & ~(MCP_RESPONSE_LISTEN | MCP_RESPONSE_CLIENT_REQUEST | MCP_RESPONSE_CLIENT_CAPS)) == 0,
                     file, line, "no unknown info.flags");
    }
    free(buf);
    return R.rc;
}

#define HANDLE(server, ctx, req) \
    run_request_at(__FILE__, __LINE__, (server), (ctx), (req), strlen(req), RESP_DEFAULT_CAP)
#define HANDLE_CAP(server, ctx, req, cap) \
    run_request_at(__FILE__, __LINE__, (server), (ctx), (req), strlen(req), (cap))

/* The last response is exactly `expected`, with this rpc_error and HTTP status. */
#define CHECK_RESP(expected, rpc_error_, http_status_)          \
    do {                                                        \
        CHECK_INT(R.rc, (int)strlen(expected));                 \
        CHECK_MEM(R.text, R.len, (expected));                   \
        CHECK_INT(R.info.rpc_error, (rpc_error_));              \
        CHECK_INT(R.info.http_status, (http_status_));          \
    } while (0)

/* The value at `path` in the last response is exactly the raw JSON `expected`. */
#define CHECK_AT(path, expected)                                                            \
    do {                                                                                    \
        const char *check_v_ = NULL;                                                        \
        size_t check_vl_ = 0;                                                               \
        int check_r_ = tj_lookup(R.text, R.len, (path), &check_v_, &check_vl_);             \
        if (!check_record(check_r_ == 0, __FILE__, __LINE__, "present: " path)) {           \
            check_print_bytes("response", R.text, R.len);                                   \
        } else {                                                                            \
            CHECK_MEM(check_v_, check_vl_, (expected));                                     \
        }                                                                                   \
    } while (0)

/* No value at `path` in the last response. */
#define CHECK_ABSENT(path)                                                                  \
    do {                                                                                    \
        const char *check_v_ = NULL;                                                        \
        size_t check_vl_ = 0;                                                               \
        if (!check_record(tj_lookup(R.text, R.len, (path), &check_v_, &check_vl_) != 0,     \
                          __FILE__, __LINE__, "absent: " path))                             \
            check_print_bytes("found", check_v_, check_vl_);                                \
    } while (0)

/* The number of members/elements of the container at `path` in the last response. */
static inline int resp_count(const char *path)
{
    const char *v;
    size_t vl;
    if (tj_lookup(R.text, R.len, path, &v, &vl)) {
        return -1;
    }
    return tj_count(v, vl);
}

/* The 2026-07-28 request envelope, as the members of params. */
#define ENVELOPE                                                         \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* The result _meta stamp for the test server identity below. */
#define SERVER_NAME "test-server"
#define SERVER_VERSION "1.2.3"

static inline void init_server(mcp_server_t *s, uint32_t ttl, uint32_t scope)
{
    mcp_server_config_t cfg = {
        .name = SERVER_NAME,
        .version = SERVER_VERSION,
        .title = NULL,
        .instructions = NULL,
        .list_ttl_ms = ttl,
        .cache_scope = scope,
    };
    if (mcp_server_init(s, &cfg) != 0) {
        fprintf(stderr, "mcp_server_init failed\n");
        exit(2);
    }
}

#endif /* EMCP_TEST_CHECK_H */
