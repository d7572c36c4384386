/*
 * emcp-gateway's JSON reader: parses one JSON text (RFC 8259) into a flat
 * array of nodes that point into the text, so the gateway can read a
 * device's tools/list and tools/call answers and pass schemas on as the
 * device wrote them. Host code (it allocates); the gateway only reads
 * answers with it, the protocol rules stay in the core.
 */
#ifndef EMCP_GW_JSON_H
#define EMCP_GW_JSON_H

#include <stdbool.h>
#include <stddef.h>

/** Deepest nesting accepted. */
#define EMCP_GW_JSON_MAX_DEPTH 64

enum emcp_gw_jtype {
    EMCP_GW_J_OBJECT,
    EMCP_GW_J_ARRAY,
    EMCP_GW_J_STRING,
    EMCP_GW_J_NUMBER,
    EMCP_GW_J_TRUE,
    EMCP_GW_J_FALSE,
    EMCP_GW_J_NULL,
};

/** One value (or object key: a string). */
struct emcp_gw_jnode {
    enum emcp_gw_jtype type;
    size_t start; /**< First byte of the value in the text (a string's quote). */
    size_t end;   /**< One past its last byte. */
    int next;     /**< Index of the node after this value's subtree. */
};

/** A parsed text; the nodes point into @c s, which must outlive it. */
struct emcp_gw_json {
    const char *s;
    size_t n;
    struct emcp_gw_jnode *nodes;
    int len;
    int cap;
};

/** Parses @p s[0..n); @return 0, or -1 (not one JSON value, or too deep, or out of memory). */
int emcp_gw_json_parse(struct emcp_gw_json *j, const char *s, size_t n);

/** Frees the nodes. */
void emcp_gw_json_free(struct emcp_gw_json *j);

/** The value of member @p key of object node @p obj, or -1. */
int emcp_gw_json_get(const struct emcp_gw_json *j, int obj, const char *key);

/** True when node @p i is a string equal to @p s (escapes decoded). */
bool emcp_gw_json_str_eq(const struct emcp_gw_json *j, int i, const char *s);

/**
 * The decoded bytes of string node @p i, NUL-terminated, malloc'd (the
 * caller frees); *len (if not NULL) gets their count. NULL when @p i is
 * not a string or memory runs out.
 */
char *emcp_gw_json_str(const struct emcp_gw_json *j, int i, size_t *len);

/** The raw text of node @p i, malloc'd and NUL-terminated, or NULL. */
char *emcp_gw_json_raw(const struct emcp_gw_json *j, int i);

#endif /* EMCP_GW_JSON_H */
