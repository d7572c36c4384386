/*
 * emcp-bridge's JSON check: is a line exactly one JSON object, and which
 * top-level members (id, method) does it have. A bounded, allocation-free
 * scan; the bridge never rewrites a message, it only decides whether to
 * forward it and whose answer it is.
 */
#ifndef EMCP_BRIDGE_JSON_H
#define EMCP_BRIDGE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Deepest nesting the scan accepts (deeper: not a message the bridge forwards). */
#define EMCP_BRIDGE_JSON_MAX_DEPTH 64

/** What the scan found at the top level of a line. */
struct emcp_bridge_msg {
    const uint8_t *id; /**< The first top-level "id" value, raw (NULL: none seen). */
    size_t id_len;     /**< Its length in bytes. */
    bool has_method;   /**< A top-level "method" member was seen (a request or notification). */
};

/**
 * Scans @p s[0..n): whitespace, one JSON object (RFC 8259, UTF-8 checked,
 * depth at most EMCP_BRIDGE_JSON_MAX_DEPTH), whitespace.
 *
 * @return 0 when the line is one JSON object; -1 otherwise. @p out is filled
 *         either way with what was seen before the scan stopped.
 */
int emcp_bridge_json_scan(const uint8_t *s, size_t n, struct emcp_bridge_msg *out);

/**
 * Where the last `{"jsonrpc"` of a line starts after its first byte (every
 * message of the core starts so): a reset mid-line glues the half line to
 * the next message, which the bridge then keeps if it scans whole.
 * @return Its offset, or 0 when there is none after the first byte.
 */
size_t emcp_bridge_last_message_start(const uint8_t *s, size_t n);

/** True when the raw id is the JSON literal null. */
bool emcp_bridge_id_is_null(const uint8_t *id, size_t len);

#endif /* EMCP_BRIDGE_JSON_H */
