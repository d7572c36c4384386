/* emcp-gateway's JSON reader (gw_json.h): a recursive-descent parser into
 * a flat node array, and string decoding (escapes, surrogate pairs). */
#include "gw_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct parser {
    struct emcp_gw_json *j;
    size_t at;
};

static void skip_ws(struct parser *p)
{
    while (p->at < p->j->n) {
        char c = p->j->s[p->at];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            break;
        }
        p->at++;
    }
}

static int add_node(struct parser *p, enum emcp_gw_jtype type)
{
    struct emcp_gw_json *j = p->j;
    if (j->len == j->cap) {
        int cap = j->cap ? j->cap * 2 : 64;
        struct emcp_gw_jnode *grown = realloc(j->nodes, (size_t)cap * sizeof *grown);
        if (grown == NULL) {
            return -1;
        }
        j->nodes = grown;
        j->cap = cap;
    }
    struct emcp_gw_jnode *nd = &j->nodes[j->len];
    nd->type = type;
    nd->start = p->at;
    nd->end = p->at;
    nd->next = j->len + 1;
    return j->len++;
}

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int parse_string(struct parser *p)
{
    const char *s = p->j->s;
    int i = add_node(p, EMCP_GW_J_STRING);
    if (i < 0) {
        return -1;
    }
    p->at++; /* the opening quote */
    while (p->at < p->j->n) {
        unsigned char c = (unsigned char)s[p->at];
        if (c == '"') {
            p->at++;
            p->j->nodes[i].end = p->at;
            return i;
        }
        if (c < 0x20) {
            return -1;
        }
        if (c == '\\') {
            if (p->at + 1 >= p->j->n) {
                return -1;
            }
            char e = s[p->at + 1];
            if (e == 'u') {
                if (p->at + 6 > p->j->n) {
                    return -1;
                }
                for (int k = 2; k < 6; k++) {
                    if (!is_hex(s[p->at + (size_t)k])) {
                        return -1;
                    }
                }
                p->at += 6;
                continue;
            }
            if (strchr("\"\\/bfnrt", e) == NULL || e == '\0') {
                return -1;
            }
            p->at += 2;
            continue;
        }
        p->at++;
    }
    return -1;
}

static int parse_value(struct parser *p, int depth);

static int parse_container(struct parser *p, int depth, bool object)
{
    int i = add_node(p, object ? EMCP_GW_J_OBJECT : EMCP_GW_J_ARRAY);
    if (i < 0) {
        return -1;
    }
    char close = object ? '}' : ']';
    p->at++;
    skip_ws(p);
    if (p->at < p->j->n && p->j->s[p->at] == close) {
        p->at++;
        p->j->nodes[i].end = p->at;
        p->j->nodes[i].next = p->j->len;
        return i;
    }
    for (;;) {
        skip_ws(p);
        if (object) {
            if (p->at >= p->j->n || p->j->s[p->at] != '"' || parse_string(p) < 0) {
                return -1;
            }
            skip_ws(p);
            if (p->at >= p->j->n || p->j->s[p->at] != ':') {
                return -1;
            }
            p->at++;
            skip_ws(p);
        }
        if (parse_value(p, depth + 1) < 0) {
            return -1;
        }
        skip_ws(p);
        if (p->at >= p->j->n) {
            return -1;
        }
        char c = p->j->s[p->at++];
        if (c == close) {
            break;
        }
        if (c != ',') {
            return -1;
        }
    }
    p->j->nodes[i].end = p->at;
    p->j->nodes[i].next = p->j->len;
    return i;
}

static int parse_number(struct parser *p)
{
    const char *s = p->j->s;
    size_t n = p->j->n;
    int i = add_node(p, EMCP_GW_J_NUMBER);
    if (i < 0) {
        return -1;
    }
    if (p->at < n && s[p->at] == '-') {
        p->at++;
    }
    if (p->at >= n) {
        return -1;
    }
    if (s[p->at] == '0') {
        p->at++;
    } else if (s[p->at] >= '1' && s[p->at] <= '9') {
        while (p->at < n && s[p->at] >= '0' && s[p->at] <= '9') {
            p->at++;
        }
    } else {
        return -1;
    }
    if (p->at < n && s[p->at] == '.') {
        p->at++;
        size_t d = p->at;
        while (p->at < n && s[p->at] >= '0' && s[p->at] <= '9') {
            p->at++;
        }
        if (p->at == d) {
            return -1;
        }
    }
    if (p->at < n && (s[p->at] == 'e' || s[p->at] == 'E')) {
        p->at++;
        if (p->at < n && (s[p->at] == '+' || s[p->at] == '-')) {
            p->at++;
        }
        size_t d = p->at;
        while (p->at < n && s[p->at] >= '0' && s[p->at] <= '9') {
            p->at++;
        }
        if (p->at == d) {
            return -1;
        }
    }
    p->j->nodes[i].end = p->at;
    return i;
}

static int parse_literal(struct parser *p, const char *word, enum emcp_gw_jtype type)
{
    size_t len = strlen(word);
    if (p->at + len > p->j->n || memcmp(p->j->s + p->at, word, len) != 0) {
        return -1;
    }
    int i = add_node(p, type);
    if (i < 0) {
        return -1;
    }
    p->at += len;
    p->j->nodes[i].end = p->at;
    return i;
}

static int parse_value(struct parser *p, int depth)
{
    if (depth > EMCP_GW_JSON_MAX_DEPTH || p->at >= p->j->n) {
        return -1;
    }
    char c = p->j->s[p->at];
    switch (c) {
    case '{':
        return parse_container(p, depth, true);
    case '[':
        return parse_container(p, depth, false);
    case '"':
        return parse_string(p);
    case 't':
        return parse_literal(p, "true", EMCP_GW_J_TRUE);
    case 'f':
        return parse_literal(p, "false", EMCP_GW_J_FALSE);
    case 'n':
        return parse_literal(p, "null", EMCP_GW_J_NULL);
    default:
        return parse_number(p);
    }
}

int emcp_gw_json_parse(struct emcp_gw_json *j, const char *s, size_t n)
{
    memset(j, 0, sizeof *j);
    j->s = s;
    j->n = n;
    struct parser p = {j, 0};
    skip_ws(&p);
    if (parse_value(&p, 0) < 0) {
        return -1;
    }
    skip_ws(&p);
    return p.at == n ? 0 : -1;
}

void emcp_gw_json_free(struct emcp_gw_json *j)
{
    free(j->nodes);
    memset(j, 0, sizeof *j);
}

static unsigned hex4(const char *h)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = h[k];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

char *emcp_gw_json_str(const struct emcp_gw_json *j, int i, size_t *len)
{
    if (i < 0 || i >= j->len || j->nodes[i].type != EMCP_GW_J_STRING) {
        return NULL;
    }
    const char *s = j->s + j->nodes[i].start + 1;
    const char *e = j->s + j->nodes[i].end - 1;
    /* Decoding never grows the text: \uXXXX (6 bytes) is at most 3 bytes
     * of UTF-8, a pair (12 bytes) 4. */
    char *out = malloc((size_t)(e - s) + 1);
    if (out == NULL) {
        return NULL;
    }
    size_t o = 0;
    while (s < e) {
        if (*s != '\\') {
            out[o++] = *s++;
            continue;
        }
        char c = s[1];
        s += 2;
        switch (c) {
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            uint32_t cp = hex4(s);
            s += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && e - s >= 6 && s[0] == '\\' && s[1] == 'u') {
                uint32_t lo = hex4(s + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    s += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD; /* a lone surrogate has no UTF-8 form */
            }
            o += put_utf8(out + o, cp);
            break;
        }
        default: out[o++] = c; break; /* " \ / */
        }
    }
    out[o] = '\0';
    if (len != NULL) {
        *len = o;
    }
    return out;
}

bool emcp_gw_json_str_eq(const struct emcp_gw_json *j, int i, const char *want)
{
    size_t len = 0;
    char *s = emcp_gw_json_str(j, i, &len);
    if (s == NULL) {
        return false;
    }
    bool eq = len == strlen(want) && memcmp(s, want, len) == 0;
    free(s);
    return eq;
}

int emcp_gw_json_get(const struct emcp_gw_json *j, int obj, const char *key)
{
    if (obj < 0 || obj >= j->len || j->nodes[obj].type != EMCP_GW_J_OBJECT) {
        return -1;
    }
    int end = j->nodes[obj].next;
    for (int k = obj + 1; k < end; k = j->nodes[k + 1].next) {
        if (emcp_gw_json_str_eq(j, k, key)) {
            return k + 1;
        }
    }
    return -1;
}

char *emcp_gw_json_raw(const struct emcp_gw_json *j, int i)
{
    if (i < 0 || i >= j->len) {
        return NULL;
    }
    size_t len = j->nodes[i].end - j->nodes[i].start;
    char *out = malloc(len + 1);
    if (out != NULL) {
        memcpy(out, j->s + j->nodes[i].start, len);
        out[len] = '\0';
    }
    return out;
}
