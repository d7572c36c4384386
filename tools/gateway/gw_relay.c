/* emcp-gateway: a device's tools/call result written again through the
 * result API (gw_relay.h; docs/gateway.md, "Results"). */
#include "gw_relay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes a JSON number as the device wrote it where the result API can:
 * integers (int64) and plain decimals of up to 18 digits exactly; other
 * forms (exponents, longer mantissas) through a double. */
static int put_number(mcp_result_t *result, const char *s, size_t len)
{
    char buf[64];
    if (len < sizeof buf && memchr(s, 'e', len) == NULL && memchr(s, 'E', len) == NULL) {
        size_t o = 0;
        int places = -1;
        for (size_t i = 0; i < len; i++) {
            if (s[i] == '.') {
                places = 0;
                continue;
            }
            buf[o++] = s[i];
            if (places >= 0) {
                places++;
            }
        }
        buf[o] = '\0';
        size_t digits = o - (buf[0] == '-');
        if (digits <= 18) {
            long long v = strtoll(buf, NULL, 10);
            return places < 0 ? mcp_json_int(result, v) : mcp_json_decimal(result, v, (uint32_t)places);
        }
    }
    char *text = strndup(s, len); /* a long mantissa keeps its magnitude */
    if (text == NULL) {
        return -MCP_EIO;
    }
    double v = strtod(text, NULL);
    free(text);
    return mcp_json_number(result, v);
}

static int put_value(mcp_result_t *result, const struct emcp_gw_json *j, int v);

/* The members of the object at node `obj`, each key and its value, into the
 * object being written. */
static int put_members(mcp_result_t *result, const struct emcp_gw_json *j, int obj)
{
    int rc = 0;
    for (int k = obj + 1; rc == 0 && k < j->nodes[obj].next; k = j->nodes[k + 1].next) {
        size_t klen = 0;
        char *key = emcp_gw_json_str(j, k, &klen);
        rc = key ? mcp_json_key_n(result, key, klen) : -MCP_EIO;
        free(key);
        if (rc == 0) {
            rc = put_value(result, j, k + 1);
        }
    }
    return rc;
}

static int put_value(mcp_result_t *result, const struct emcp_gw_json *j, int v)
{
    const struct emcp_gw_jnode *nd = &j->nodes[v];
    switch (nd->type) {
    case EMCP_GW_J_OBJECT: {
        int rc = mcp_json_object_begin(result);
        rc = rc == 0 ? put_members(result, j, v) : rc;
        return rc == 0 ? mcp_json_object_end(result) : rc;
    }
    case EMCP_GW_J_ARRAY: {
        int rc = mcp_json_array_begin(result);
        for (int k = v + 1; rc == 0 && k < nd->next; k = j->nodes[k].next) {
            rc = put_value(result, j, k);
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
        return put_number(result, j->s + nd->start, nd->end - nd->start);
    case EMCP_GW_J_TRUE:
        return mcp_json_bool(result, true);
    case EMCP_GW_J_FALSE:
        return mcp_json_bool(result, false);
    case EMCP_GW_J_NULL:
    default:
        return mcp_json_null(result);
    }
}

int emcp_gw_relay_result(mcp_result_t *result, const char *device, const struct emcp_gw_json *j, int res)
{
    int rc = 0;
    int content = emcp_gw_json_get(j, res, "content");
    if (content >= 0 && j->nodes[content].type == EMCP_GW_J_ARRAY) {
        for (int b = content + 1; rc == 0 && b < j->nodes[content].next; b = j->nodes[b].next) {
            int type = emcp_gw_json_get(j, b, "type");
            if (emcp_gw_json_str_eq(j, type, "text")) {
                size_t len = 0;
                char *text = emcp_gw_json_str(j, emcp_gw_json_get(j, b, "text"), &len);
                rc = text ? mcp_result_text(result, text, len) : -MCP_EIO;
                free(text);
            } else {
                char *t = emcp_gw_json_str(j, type, NULL);
                char note[160];
                snprintf(note, sizeof note, "[device %s sent a %s block, which emcp-gateway does not pass on yet]",
                         device, t ? t : "untyped");
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
        rc = rc == 0 ? put_members(result, j, sc) : rc;
        if (rc == 0) {
            rc = mcp_result_structured_end(result);
        }
    }
    return rc;
}
