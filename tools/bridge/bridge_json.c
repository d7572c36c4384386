/*
 * emcp-bridge's JSON check (bridge_json.h): one pass over the line, an
 * explicit bit stack of open containers instead of recursion, so the stack
 * use is fixed whatever the input.
 */
#include "bridge_json.h"

#include <string.h>

_Static_assert(EMCP_BRIDGE_JSON_MAX_DEPTH <= 64, "the container stack is one 64-bit word");

struct scan {
    const uint8_t *p;
    const uint8_t *end;
};

static void skip_ws(struct scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) {
        s->p++;
    }
}

static bool is_digit(uint8_t c)
{
    return c >= '0' && c <= '9';
}

static bool is_hex(uint8_t c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* One UTF-8 sequence starting at a byte >= 0x80: shortest form, no
 * surrogates, at most U+10FFFF. */
static bool utf8_seq(struct scan *s)
{
    uint8_t c = *s->p;
    size_t more;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        more = 1;
        cp = c & 0x1Fu;
    } else if (c >= 0xE0 && c <= 0xEF) {
        more = 2;
        cp = c & 0x0Fu;
    } else if (c >= 0xF0 && c <= 0xF4) {
        more = 3;
        cp = c & 0x07u;
    } else {
        return false;
    }
    if ((size_t)(s->end - s->p) <= more) {
        return false;
    }
    for (size_t i = 1; i <= more; i++) {
        uint8_t k = s->p[i];
        if ((k & 0xC0u) != 0x80u) {
            return false;
        }
        cp = (cp << 6) | (k & 0x3Fu);
    }
    if ((more == 2 && (cp < 0x800u || (cp >= 0xD800u && cp <= 0xDFFFu))) ||
        (more == 3 && (cp < 0x10000u || cp > 0x10FFFFu))) {
        return false;
    }
    s->p += more + 1;
    return true;
}

/* A string, the opening quote at s->p. */
static bool string(struct scan *s)
{
    s->p++;
    while (s->p < s->end) {
        uint8_t c = *s->p;
        if (c == '"') {
            s->p++;
            return true;
        }
        if (c < 0x20) {
            return false;
        }
        if (c == '\\') {
            if (s->end - s->p < 2) {
                return false;
            }
            uint8_t e = s->p[1];
            if (e == 'u') {
                if (s->end - s->p < 6 || !is_hex(s->p[2]) || !is_hex(s->p[3]) || !is_hex(s->p[4]) ||
                    !is_hex(s->p[5])) {
                    return false;
                }
                s->p += 6;
            } else if (strchr("\"\\/bfnrt", e) != NULL && e != '\0') {
                s->p += 2;
            } else {
                return false;
            }
        } else if (c >= 0x80) {
            if (!utf8_seq(s)) {
                return false;
            }
        } else {
            s->p++;
        }
    }
    return false;
}

static bool digits(struct scan *s)
{
    const uint8_t *start = s->p;
    while (s->p < s->end && is_digit(*s->p)) {
        s->p++;
    }
    return s->p > start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number(struct scan *s)
{
    if (*s->p == '-') {
        s->p++;
    }
    if (s->p < s->end && *s->p == '0') {
        s->p++;
    } else if (!digits(s)) {
        return false;
    }
    if (s->p < s->end && *s->p == '.') {
        s->p++;
        if (!digits(s)) {
            return false;
        }
    }
    if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
        s->p++;
        if (s->p < s->end && (*s->p == '+' || *s->p == '-')) {
            s->p++;
        }
        if (!digits(s)) {
            return false;
        }
    }
    return true;
}

static bool literal(struct scan *s, const char *word)
{
    size_t k = strlen(word);
    if ((size_t)(s->end - s->p) < k || memcmp(s->p, word, k) != 0) {
        return false;
    }
    s->p += k;
    return true;
}

enum member { MEMBER_OTHER, MEMBER_ID, MEMBER_METHOD };

static enum member member_of(const uint8_t *key, size_t len)
{
    if (len == 4 && memcmp(key, "\"id\"", 4) == 0) {
        return MEMBER_ID;
    }
    if (len == 8 && memcmp(key, "\"method\"", 8) == 0) {
        return MEMBER_METHOD;
    }
    return MEMBER_OTHER;
}

int emcp_bridge_json_scan(const uint8_t *text, size_t n, struct emcp_bridge_msg *out)
{
    memset(out, 0, sizeof *out);
    struct scan s = {text, text + n};
    uint64_t arrays = 0; /* bit d set: the container at depth d+1 is an array */
    unsigned depth = 0;
    enum member member = MEMBER_OTHER; /* the top-level member whose value is being read */
    const uint8_t *value_start = NULL;

    skip_ws(&s);
    if (s.p >= s.end || *s.p != '{') {
        return -1;
    }
    for (;;) {
        /* A value at s.p. */
        skip_ws(&s);
        if (s.p >= s.end) {
            return -1;
        }
        const uint8_t *start = s.p;
        uint8_t c = *s.p;
        bool opened = false;
        if (c == '{' || c == '[') {
            if (depth == EMCP_BRIDGE_JSON_MAX_DEPTH) {
                return -1;
            }
            arrays = c == '[' ? arrays | ((uint64_t)1 << depth) : arrays & ~((uint64_t)1 << depth);
            depth++;
            s.p++;
            skip_ws(&s);
            if (s.p < s.end && (*s.p == (c == '{' ? '}' : ']'))) {
                s.p++;
                depth--;
            } else {
                opened = true;
            }
        } else if (c == '"') {
            if (!string(&s)) {
                return -1;
            }
        } else if (c == '-' || is_digit(c)) {
            if (!number(&s)) {
                return -1;
            }
        } else if (!literal(&s, "true") && !literal(&s, "false") && !literal(&s, "null")) {
            return -1;
        }
        if (depth == 1 && !opened && start == value_start) {
            /* A scalar or empty container as a top-level member's value. */
            if (member == MEMBER_ID && out->id == NULL) {
                out->id = start;
                out->id_len = (size_t)(s.p - start);
            }
            member = MEMBER_OTHER;
        }
        if (!opened) {
            /* After a value: separators and closers, possibly several levels up. */
            for (;;) {
                skip_ws(&s);
                if (depth == 0) {
                    return s.p == s.end ? 0 : -1;
                }
                if (s.p >= s.end) {
                    return -1;
                }
                bool in_array = (arrays >> (depth - 1)) & 1u;
                c = *s.p;
                if (c == (in_array ? ']' : '}')) {
                    s.p++;
                    depth--;
                    if (depth == 1 && member == MEMBER_ID && out->id == NULL) {
                        out->id = value_start; /* an object or array as id: the device refuses it */
                        out->id_len = (size_t)(s.p - value_start);
                    }
                    if (depth == 1) {
                        member = MEMBER_OTHER;
                    }
                    continue;
                }
                if (c != ',') {
                    return -1;
                }
                s.p++;
                break;
            }
        }
        /* The next element: a value in an array, a key and ':' in an object. */
        if ((arrays >> (depth - 1)) & 1u) {
            continue;
        }
        skip_ws(&s);
        if (s.p >= s.end || *s.p != '"') {
            return -1;
        }
        const uint8_t *key = s.p;
        if (!string(&s)) {
            return -1;
        }
        if (depth == 1) {
            member = member_of(key, (size_t)(s.p - key));
            if (member == MEMBER_METHOD) {
                out->has_method = true;
            }
        }
        skip_ws(&s);
        if (s.p >= s.end || *s.p != ':') {
            return -1;
        }
        s.p++;
        skip_ws(&s);
        if (depth == 1) {
            value_start = s.p;
        }
    }
}

bool emcp_bridge_id_is_null(const uint8_t *id, size_t len)
{
    return len == 4 && memcmp(id, "null", 4) == 0;
}

size_t emcp_bridge_last_message_start(const uint8_t *s, size_t n)
{
    static const char head[] = "{\"jsonrpc\"";
    const size_t k = sizeof head - 1;
    for (size_t i = n >= k ? n - k : 0; i > 0; i--) {
        if (memcmp(s + i, head, k) == 0) {
            return i;
        }
    }
    return 0;
}
