/*
 * emcp-gateway: writes a device's tools/call `result` object again through
 * the C result API, as exactly as that API allows (docs/gateway.md,
 * "Results"): text blocks, isError, structuredContent with integers and
 * plain decimals of up to 18 digits as written; other numbers through a
 * double; other block types as a text note.
 */
#ifndef EMCP_GW_RELAY_H
#define EMCP_GW_RELAY_H

#include "emcp.h"
#include "gw_json.h"

/**
 * Writes the result object at node @p res of @p j into @p result (inside a
 * tool callback). @p device names the device in notes.
 * @return 0, or the negative MCP_E* value of the failing result call.
 */
int emcp_gw_relay_result(mcp_result_t *result, const char *device, const struct emcp_gw_json *j, int res);

#endif /* EMCP_GW_RELAY_H */
