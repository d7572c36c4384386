/*
 * emcp-gateway: writes a device's tools/call `result` object again through
 * the C result API, as exactly as that API allows (docs/gateway.md,
 * "Results"): text, image, audio, resource_link and embedded resource
 * blocks with their annotations, isError, structuredContent with integers
 * and plain decimals that fit an int64 as written; other numbers through a
 * double. What the API cannot write is named in a report for the log.
 */
#ifndef EMCP_GW_RELAY_H
#define EMCP_GW_RELAY_H

#include <stddef.h>

#include "emcp.h"
#include "gw_json.h"

/** What a relay could not pass on exactly (for one log line). */
struct emcp_gw_relay_report {
    /** "; "-separated notes ("content[1]._meta dropped", ...), NUL-terminated,
     *  truncated with "..." when long; empty when nothing was lost. */
    char lost[256];
};

/**
 * Writes the result object at node @p res of @p j into @p result (inside a
 * tool callback). @p device names the device in notes. @p report (may be
 * NULL) gets what was dropped or changed.
 * @return 0, or the negative MCP_E* value of the failing result call.
 */
int emcp_gw_relay_result(mcp_result_t *result, const char *device, const struct emcp_gw_json *j, int res,
                         struct emcp_gw_relay_report *report);

#endif /* EMCP_GW_RELAY_H */
