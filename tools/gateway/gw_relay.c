/* emcp-gateway: a device's tools/call result written again through the
 * result API (gw_relay.h; docs/gateway.md, "Results"). Each content block
 * goes through the API call that writes its type (mcp_result_text_annotated,
 * mcp_result_image, ...), so an emcp device's block comes out as its core
 * wrote it: the same core writes the same members in the same order. What
 * the API has no call for (a member outside the ones it writes, a block of
 * another type) is left out and named in the report. */
#include "gw_relay.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void lost(struct emcp_gw_relay_report *r, const char *fmt, ...)
{
    if (r == NULL) {
        return;
    }
    size_t len = strlen(r->lost);
    if (len + 4 >= sizeof r->lost) {
        return; /* already full ("..." written) */
    }
    char note[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    int n = snprintf(r->lost + len, sizeof r->lost - len, "%s%s", len ? "; " : "", note);
    if (n < 0 || (size_t)n >= sizeof r->lost - len) {
        memcpy(r->lost + sizeof r->lost - 4, "...", 4);
    }
}

/* Writes a JSON number as the device wrote it where the result API can:
 * integers and plain decimals whose digits fit an int64 exactly
 * (mcp_json_int, mcp_json_decimal); `-0.0` through the double -0.0, whose
 * text the core writes so; other forms (exponents, longer mantissas)
 * through a double, which keeps the value of a number an emcp core wrote
 * (its shortest round-trip text) and its text too. */
static int put_number(mcp_result_t *result, const char *s, size_t len, struct emcp_gw_relay_report *report)
{
    if (memchr(s, 'e', len) == NULL && memchr(s, 'E', len) == NULL) {
        bool neg = len > 0 && s[0] == '-';
        uint64_t mant = 0;
        int places = -1;
        bool overflow = false;
        for (size_t i = neg ? 1 : 0; i < len; i++) {
            if (s[i] == '.') {
                places = 0;
                continue;
            }
            unsigned d = (unsigned)(s[i] - '0');
            if (mant > (UINT64_MAX - d) / 10) {
                overflow = true;
                break;
            }
            mant = mant * 10 + d;
            if (places >= 0) {
                places++;
            }
        }
        uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
        if (!overflow && mant <= limit) {
            if (neg && mant == 0) {
                if (places != 1) {
                    lost(report, "number %.*s written without its sign", (int)len, s);
                    return places < 0 ? mcp_json_int(result, 0) : mcp_json_decimal(result, 0, (uint32_t)places);
                }
                return mcp_json_number(result, -0.0);
            }
            int64_t v = neg ? (mant == limit ? INT64_MIN : -(int64_t)mant) : (int64_t)mant;
            return places < 0 ? mcp_json_int(result, v) : mcp_json_decimal(result, v, (uint32_t)places);
        }
        lost(report, "number %.*s%s (more digits than an int64) written through a double", (int)(len < 24 ? len : 24),
             s, len < 24 ? "" : "...");
    }
    char *text = strndup(s, len); /* a long mantissa keeps its magnitude */
    if (text == NULL) {
        return -MCP_EIO;
    }
    double v = strtod(text, NULL);
    free(text);
    return mcp_json_number(result, v);
}

static int put_value(mcp_result_t *result, const struct emcp_gw_json *j, int v,
                     struct emcp_gw_relay_report *report);

/* The members of the object at node `obj`, each key and its value, into the
 * object being written. */
static int put_members(mcp_result_t *result, const struct emcp_gw_json *j, int obj,
                       struct emcp_gw_relay_report *report)
{
    int rc = 0;
    for (int k = obj + 1; rc == 0 && k < j->nodes[obj].next; k = j->nodes[k + 1].next) {
        size_t klen = 0;
        char *key = emcp_gw_json_str(j, k, &klen);
        rc = key ? mcp_json_key_n(result, key, klen) : -MCP_EIO;
        free(key);
        if (rc == 0) {
            rc = put_value(result, j, k + 1, report);
        }
    }
    return rc;
}

static int put_value(mcp_result_t *result, const struct emcp_gw_json *j, int v,
                     struct emcp_gw_relay_report *report)
{
    const struct emcp_gw_jnode *nd = &j->nodes[v];
    switch (nd->type) {
    case EMCP_GW_J_OBJECT: {
        int rc = mcp_json_object_begin(result);
        rc = rc == 0 ? put_members(result, j, v, report) : rc;
        return rc == 0 ? mcp_json_object_end(result) : rc;
    }
    case EMCP_GW_J_ARRAY: {
        int rc = mcp_json_array_begin(result);
        for (int k = v + 1; rc == 0 && k < nd->next; k = j->nodes[k].next) {
            rc = put_value(result, j, k, report);
        }
        return rc == 0 ? mcp_json_array_end(result) : rc;
    }
    case EMCP_GW_J_STRING: {
        size_t len = 0;
        char *s = emcp_gw_json_str(j, v, &len);
        int rc = s ? mcp_json_string(result, s, len) : -MCP_EIO;
        free(s);
        return rc;
    }
    case EMCP_GW_J_NUMBER:
        return put_number(result, j->s + nd->start, nd->end - nd->start, report);
    case EMCP_GW_J_TRUE:
        return mcp_json_bool(result, true);
    case EMCP_GW_J_FALSE:
        return mcp_json_bool(result, false);
    case EMCP_GW_J_NULL:
    default:
        return mcp_json_null(result);
    }
}

/* ---- Content blocks --------------------------------------------------------- */

static int b64_digit(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes canonical base64 (padded, unused bits zero: what the core's
 * writer produces, so encoding the bytes again gives the same text).
 * @return the bytes (malloc'd, *out_len set) or NULL. */
static uint8_t *b64_decode(const char *s, size_t len, size_t *out_len)
{
    if (len % 4 != 0) {
        return NULL;
    }
    uint8_t *out = malloc(len / 4 * 3 + 1);
    if (out == NULL) {
        return NULL;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int d[4];
        int pad = 0;
        for (int k = 0; k < 4; k++) {
            if (s[i + k] == '=' && i + 4 == len && k >= 2) {
                d[k] = 0;
                pad++;
            } else {
                d[k] = pad ? -1 : b64_digit(s[i + k]);
            }
            if (d[k] < 0) {
                free(out);
                return NULL;
            }
        }
        if ((pad == 1 && s[i + 2] == '=') || (pad == 2 && (d[1] & 15) != 0) || (pad == 1 && (d[2] & 3) != 0)) {
            free(out);
            return NULL;
        }
        uint32_t v = (uint32_t)d[0] << 18 | (uint32_t)d[1] << 12 | (uint32_t)d[2] << 6 | (uint32_t)d[3];
        out[o++] = (uint8_t)(v >> 16);
        if (pad < 2) {
            out[o++] = (uint8_t)(v >> 8);
        }
        if (pad < 1) {
            out[o++] = (uint8_t)v;
        }
    }
    *out_len = o;
    return out;
}

/* Whether every member of object @p obj is one of @p keys (NULL-terminated);
 * the others are reported as dropped under @p where. */
static void check_members(const struct emcp_gw_json *j, int obj, const char *const *keys, const char *where,
                          struct emcp_gw_relay_report *report)
{
    for (int k = obj + 1; k < j->nodes[obj].next; k = j->nodes[k + 1].next) {
        bool known = false;
        for (size_t i = 0; keys[i] != NULL && !known; i++) {
            known = emcp_gw_json_str_eq(j, k, keys[i]);
        }
        if (!known) {
            char *key = emcp_gw_json_str(j, k, NULL);
            lost(report, "%s.%s dropped", where, key ? key : "?");
            free(key);
        }
    }
}

/* The block's annotations as the API takes them; *has false when none. */
static int read_annotations(const struct emcp_gw_json *j, int blk, mcp_annotations_t *ann, bool *has,
                            char **last_modified, const char *where, struct emcp_gw_relay_report *report)
{
    memset(ann, 0, sizeof *ann);
    ann->priority = -1.0;
    *has = false;
    *last_modified = NULL;
    int a = emcp_gw_json_get(j, blk, "annotations");
    if (a < 0) {
        return 0;
    }
    char at[64];
    snprintf(at, sizeof at, "%s.annotations", where);
    if (j->nodes[a].type != EMCP_GW_J_OBJECT) {
        lost(report, "%s dropped (not an object)", at);
        return 0;
    }
    *has = true;
    static const char *const keys[] = {"audience", "priority", "lastModified", NULL};
    check_members(j, a, keys, at, report);
    int aud = emcp_gw_json_get(j, a, "audience");
    if (aud >= 0 && j->nodes[aud].type == EMCP_GW_J_ARRAY) {
        for (int k = aud + 1; k < j->nodes[aud].next; k = j->nodes[k].next) {
            if (emcp_gw_json_str_eq(j, k, "user")) {
                ann->audience |= MCP_AUDIENCE_USER;
            } else if (emcp_gw_json_str_eq(j, k, "assistant")) {
                ann->audience |= MCP_AUDIENCE_ASSISTANT;
            } else {
                lost(report, "%s.audience: an entry other than user or assistant dropped", at);
            }
        }
    } else if (aud >= 0) {
        lost(report, "%s.audience dropped (not an array)", at);
    }
    int pr = emcp_gw_json_get(j, a, "priority");
    if (pr >= 0 && j->nodes[pr].type == EMCP_GW_J_NUMBER) {
        ann->priority = strtod(j->s + j->nodes[pr].start, NULL);
        if (ann->priority < 0 || ann->priority > 1) {
            lost(report, "%s.priority dropped (outside 0..1)", at);
            ann->priority = -1.0;
        }
    } else if (pr >= 0) {
        lost(report, "%s.priority dropped (not a number)", at);
    }
    int lm = emcp_gw_json_get(j, a, "lastModified");
    if (lm >= 0) {
        *last_modified = emcp_gw_json_str(j, lm, NULL);
        if (*last_modified == NULL) {
            lost(report, "%s.lastModified dropped (not a string)", at);
        }
        ann->last_modified = *last_modified;
    }
    return 0;
}

/* A string member of @p obj, decoded (malloc'd), or NULL when absent. */
static char *str_member(const struct emcp_gw_json *j, int obj, const char *key, size_t *len)
{
    return emcp_gw_json_str(j, emcp_gw_json_get(j, obj, key), len);
}

/* Writes one content block with the API call of its type. @return 0, a
 * negative MCP_E* value, or 1 when the block cannot be written (a note
 * replaces it). */
static int put_block(mcp_result_t *result, const struct emcp_gw_json *j, int b, int index,
                     struct emcp_gw_relay_report *report)
{
    char where[32];
    snprintf(where, sizeof where, "content[%d]", index);
    if (j->nodes[b].type != EMCP_GW_J_OBJECT) {
        return 1;
    }
    int type = emcp_gw_json_get(j, b, "type");
    mcp_annotations_t ann;
    bool has_ann = false;
    char *last_modified = NULL;
    int rc = 1;
    char *s1 = NULL, *s2 = NULL, *s3 = NULL, *s4 = NULL;
    uint8_t *bytes = NULL;
    size_t len1 = 0, blen = 0;
    if (emcp_gw_json_str_eq(j, type, "text")) {
        static const char *const keys[] = {"type", "text", "annotations", NULL};
        s1 = str_member(j, b, "text", &len1);
        if (s1 != NULL) {
            check_members(j, b, keys, where, report);
            read_annotations(j, b, &ann, &has_ann, &last_modified, where, report);
            rc = mcp_result_text_annotated(result, s1, len1, has_ann ? &ann : NULL);
        }
    } else if (emcp_gw_json_str_eq(j, type, "image") || emcp_gw_json_str_eq(j, type, "audio")) {
        static const char *const keys[] = {"type", "data", "mimeType", "annotations", NULL};
        s1 = str_member(j, b, "data", &len1);
        s2 = str_member(j, b, "mimeType", NULL);
        bytes = s1 != NULL ? b64_decode(s1, len1, &blen) : NULL;
        if (bytes != NULL && s2 != NULL) {
            check_members(j, b, keys, where, report);
            read_annotations(j, b, &ann, &has_ann, &last_modified, where, report);
            rc = emcp_gw_json_str_eq(j, type, "image")
                     ? mcp_result_image(result, bytes, blen, s2, has_ann ? &ann : NULL)
                     : mcp_result_audio(result, bytes, blen, s2, has_ann ? &ann : NULL);
        }
    } else if (emcp_gw_json_str_eq(j, type, "resource_link")) {
        static const char *const keys[] = {"type", "uri", "name", "mimeType", "description", "annotations", NULL};
        s1 = str_member(j, b, "uri", NULL);
        s2 = str_member(j, b, "name", NULL);
        s3 = str_member(j, b, "mimeType", NULL);
        s4 = str_member(j, b, "description", NULL);
        if (s1 != NULL && s2 != NULL) {
            check_members(j, b, keys, where, report);
            read_annotations(j, b, &ann, &has_ann, &last_modified, where, report);
            rc = mcp_result_resource_link(result, s1, s2, s3, s4, has_ann ? &ann : NULL);
        }
    } else if (emcp_gw_json_str_eq(j, type, "resource")) {
        static const char *const keys[] = {"type", "resource", "annotations", NULL};
        static const char *const rkeys[] = {"uri", "mimeType", "text", "blob", NULL};
        int res = emcp_gw_json_get(j, b, "resource");
        if (res >= 0 && j->nodes[res].type == EMCP_GW_J_OBJECT) {
            s1 = str_member(j, res, "uri", NULL);
            s2 = str_member(j, res, "mimeType", NULL);
            s3 = str_member(j, res, "text", &len1);
            s4 = s3 == NULL ? str_member(j, res, "blob", &blen) : NULL;
            if (s4 != NULL) {
                bytes = b64_decode(s4, blen, &blen);
            }
        }
        if (s1 != NULL && (s3 != NULL || bytes != NULL)) {
            char rwhere[48];
            snprintf(rwhere, sizeof rwhere, "%s.resource", where);
            check_members(j, b, keys, where, report);
            check_members(j, res, rkeys, rwhere, report);
            read_annotations(j, b, &ann, &has_ann, &last_modified, where, report);
            rc = s3 != NULL ? mcp_result_resource_text(result, s1, s2, s3, len1, has_ann ? &ann : NULL)
                            : mcp_result_resource_blob(result, s1, s2, bytes, blen, has_ann ? &ann : NULL);
        }
    }
    /* Annotations the core refuses (-MCP_EINVAL, e.g. a lastModified that is
     * not UTF-8): the block is replaced by a note, the report says why. */
    if (rc == -MCP_EINVAL && has_ann) {
        lost(report, "%s.annotations refused by the result API", where);
        rc = 1;
    }
    free(last_modified);
    free(s1);
    free(s2);
    free(s3);
    free(s4);
    free(bytes);
    return rc;
}

int emcp_gw_relay_result(mcp_result_t *result, const char *device, const struct emcp_gw_json *j, int res,
                         struct emcp_gw_relay_report *report)
{
    int rc = 0;
    if (report != NULL) {
        report->lost[0] = '\0';
    }
    /* _meta is the device's (its serverInfo); the gateway's core writes its own. */
    static const char *const keys[] = {"content", "structuredContent", "isError", "resultType", "_meta", NULL};
    check_members(j, res, keys, "result", report);
    int content = emcp_gw_json_get(j, res, "content");
    if (content >= 0 && j->nodes[content].type == EMCP_GW_J_ARRAY) {
        int index = 0;
        for (int b = content + 1; rc == 0 && b < j->nodes[content].next; b = j->nodes[b].next, index++) {
            rc = put_block(result, j, b, index, report);
            if (rc == 1) {
                int type = j->nodes[b].type == EMCP_GW_J_OBJECT ? emcp_gw_json_get(j, b, "type") : -1;
                char *t = emcp_gw_json_str(j, type, NULL);
                char note[160];
                snprintf(note, sizeof note,
                         "[device %s sent a %s block that emcp-gateway cannot write through the result API]",
                         device, t ? t : "untyped");
                lost(report, "content[%d] (%s) replaced by a note", index, t ? t : "untyped");
                free(t);
                rc = mcp_result_text_cstr(result, note);
            }
        }
    }
    int is_error = emcp_gw_json_get(j, res, "isError");
    if (rc == 0 && is_error >= 0 && j->nodes[is_error].type == EMCP_GW_J_TRUE) {
        rc = mcp_result_set_error(result, true);
    }
    int sc = emcp_gw_json_get(j, res, "structuredContent");
    if (rc == 0 && sc >= 0 && j->nodes[sc].type == EMCP_GW_J_OBJECT) {
        rc = mcp_result_structured_begin(result);
        rc = rc == 0 ? put_members(result, j, sc, report) : rc;
        if (rc == 0) {
            rc = mcp_result_structured_end(result);
        }
    }
    return rc;
}
