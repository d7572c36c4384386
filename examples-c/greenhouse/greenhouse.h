/**
 * @file greenhouse.h
 * @brief The greenhouse gateway's MCP tools on a simulated controller,
 *        independent of the transport (stdio, HTTP, CoAP, MQTT).
 *
 * Tools, listed in this order:
 * - read_sensor {sensor_id}: the latest reading of t1, t2, rh1 or soil1
 *   (soil1 has none yet), with its age in seconds.
 * - set_vent {percent}: moves the roof vent; refused above 0 while the wind
 *   lock is on.
 *
 * Every executed tools/call writes one audit line to stderr:
 * `audit: tool=<name> args=<compact json> outcome=<ok|error|input_required>`,
 * followed by ` trace=<32 hex digits>` when the request carries a traceparent.
 *
 * The reading ages use the request's mcp_request_ctx_t.now_ms, so transports
 * must fill it from CLOCK_MONOTONIC in milliseconds (0 falls back to the
 * library's own reading of that clock). The tools may run on several threads
 * at once.
 */

#ifndef GREENHOUSE_H
#define GREENHOUSE_H

#include <stdbool.h>

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Room for a call's compact JSON arguments in its audit line. */
#ifndef GREENHOUSE_AUDIT_ARGS_MAX
#define GREENHOUSE_AUDIT_ARGS_MAX 512
#endif

/**
 * Initialises @p server as "greenhouse-gw" 0.4.0 and registers the tools.
 * Takes the simulated sensor readings now and closes the vent.
 *
 * @param server    Storage for the server, e.g. `static mcp_server_t server;`.
 * @param wind_lock Start with the wind lock on.
 * @return 0, or the negative MCP_E* value of the failing emcp call.
 */
int greenhouse_register(mcp_server_t *server, bool wind_lock);

/**
 * Registers the greenhouse's resources and prompt on @p server (called by
 * greenhouse_register): the sensor map `greenhouse://sensors`, the template
 * `greenhouse://sensors/{sensor_id}`, the prompt `vent_procedure`
 * {target_percent}, and completion of both arguments.
 *
 * @return 0, or the negative MCP_E* value of the failing emcp call.
 */
int greenhouse_register_catalog(mcp_server_t *server);

/** Turns the wind lock on or off (e.g. from a weather station feed). */
void greenhouse_set_wind_lock(bool on);

/** The simulated vent's current opening in percent (0-100). */
int greenhouse_vent_percent(void);

#ifdef __cplusplus
}
#endif

#endif /* GREENHOUSE_H */
