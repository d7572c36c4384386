/**
 * @file greenhouse.h
 * @brief The greenhouse gateway's MCP tools on a simulated controller,
 *        independent of the transport (stdio, HTTP, CoAP, MQTT).
 *
 * Tools, listed in this order:
 * - read_sensor {sensor_id}: the latest reading of t1, t2, rh1 or soil1
 *   (soil1 has none yet), with its age in seconds.
 * - set_vent {percent, idempotency_key?}: moves the roof vent; refused above
 *   0 while the wind lock is on; asks for a confirmation above 80 %; runs at
 *   most once every GREENHOUSE_VENT_INTERVAL_MS (a call within it gets an
 *   isError result "rate limited: retry in N ms" and the vent does not move);
 *   a repeated idempotency_key (same principal, within MCP_DEDUP_WINDOW_MS)
 *   is answered with the first call's result and the vent does not move again
 *   (when the transport passes a duplicate table; every binding here does).
 *   With --state-dir (greenhouse_durable_open) the key is required and its
 *   record survives a restart: a call interrupted by one is answered
 *   "earlier outcome unknown" and never moves the vent again.
 *
 * Audit: the core calls the greenhouse's audit hook once for every tools/call
 * of a registered tool, after validation and policy, and it writes one line
 * to stderr:
 *
 *     audit: principal=<p> tool=<name> args=<compact json> outcome=<o> trace=<t> ms=<d>
 *
 * - principal: what the transport authenticated ("local" on stdio, the
 *   bearer token's name over HTTP, the DTLS PSK identity or certificate CN
 *   over CoAP, the MQTT username), "-" for none; bytes other than printable
 *   ASCII (and space and backslash) are written as \xHH.
 * - args: the arguments as sent, minified; "(over N bytes)" beyond
 *   GREENHOUSE_AUDIT_ARGS_MAX.
 * - outcome: ok, is_error (an isError result), refused (the policy does not
 *   let the principal call the tool; answered as an unknown tool),
 *   rate_limited, duplicate (answered from the duplicate table),
 *   invalid_arguments (schema, Mcp-Param headers, requestState or
 *   idempotency key), input_required (asked the client for input), failed
 *   (the call failed with a JSON-RPC error after the tool ran), no_space
 *   (the response buffer cannot hold the tool's declared result; it did not
 *   run), over_declared (the tool ran and its result, sent, was larger than
 *   its max_result_len). Only ok, is_error, input_required, failed and
 *   over_declared mean the tool ran.
 * - trace: the 32 hex digits of the trace id of the request's traceparent,
 *   or "-".
 * - ms: how long the call took, from the request's now_ms.
 *
 * Calls to an unknown tool and requests that never reach a tool (malformed,
 * notifications) have no audit line.
 *
 * The simulated actuator logs every movement of the vent to stderr as
 * `vent: <before>% -> <after>%` (a real gateway would log its ack).
 *
 * Policy: without greenhouse_add_policy every principal sees and calls both
 * tools. With it, a principal sees and calls only the tools granted to it,
 * and a principal no entry names (or none) sees no tool.
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

/** Bytes of a principal written in an audit line (longer ones end in "..."). */
#ifndef GREENHOUSE_AUDIT_PRINCIPAL_MAX
#define GREENHOUSE_AUDIT_PRINCIPAL_MAX 128
#endif

/* GREENHOUSE_NO_POLICY: build for a library without the `policy` feature
 * (the `minimal` profile): set_vent then has no rate limit and no idempotency
 * key, which such a library would refuse to register, and no audit is written. */

/** Least milliseconds between two runs of set_vent (mcp_tool_t.min_interval_ms). */
#ifndef GREENHOUSE_VENT_INTERVAL_MS
#define GREENHOUSE_VENT_INTERVAL_MS 2000
#endif

/** Principals greenhouse_add_policy can name. */
#ifndef GREENHOUSE_POLICY_MAX
#define GREENHOUSE_POLICY_MAX 8
#endif

/** The --policy option, for the binaries' --help. */
#define GREENHOUSE_POLICY_USAGE                                                             \
    "  --policy P=T[,T...]  principal P may see and call only tools T (read_sensor,\n"    \
    "                       set_vent); repeatable; with any --policy, a principal\n"     \
    "                       no --policy names sees no tool (default: all may call all)\n"

/**
 * Grants a principal tools, from a --policy option: "PRINCIPAL=TOOL[,TOOL...]"
 * (e.g. "viewer=read_sensor", "operator=read_sensor,set_vent"; "nobody=" grants
 * none). Call before greenhouse_register. @p spec is kept, not copied: it must
 * live as long as the server (argv does).
 *
 * @param spec The option's value.
 * @param why  Set to a message when the option is refused (may be NULL).
 * @retval 0 Success.
 * @retval -MCP_EINVAL Not PRINCIPAL=..., an unknown tool, or more than
 *         GREENHOUSE_POLICY_MAX principals.
 */
int greenhouse_add_policy(const char *spec, const char **why);

/**
 * Most tools per tools/list page (mcp_server_config_t.list_page_size; 0, the
 * default: as many as fit). Set before greenhouse_register; greenhouse-mqtt's
 * --list-page-size, so a client's nextCursor handling can be tested.
 */
void greenhouse_set_list_page_size(uint32_t tools_per_page);

/**
 * Initialises @p server as "greenhouse-gw" 0.4.0 and registers the tools,
 * the audit hook and (after greenhouse_add_policy) the policy hook.
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

/* ---- Durable records (greenhouse_durable.c, POSIX hosts) ---------------- */

/** What durable mode changes in the tools (greenhouse_set_durable). */
typedef struct greenhouse_durable_t {
    /** set_vent's schema requires idempotency_key. */
    bool key_required;
    /** The transport keys a request itself (MQTT: its Correlation Data,
     *  mcp_request_ctx_t.retry_key): with key_required, set_vent's schema
     *  keeps idempotency_key optional and a call with neither key is refused. */
    bool retry_keys;
    /** set_vent's min_interval_ms, or -1 for GREENHOUSE_VENT_INTERVAL_MS. */
    long vent_interval_ms;
    /** The vent's opening at start-up, or -1 for closed. */
    int vent_percent;
    /** Called after each vent movement, before set_vent answers (key "-"
     *  without one); nonzero fails the call. NULL: none. */
    int (*actuated)(const char *key, int before, int after);
    /** Called at the end of each audit record (the call is answered next). */
    void (*answered)(const char *tool, size_t tool_len, uint32_t outcome);
} greenhouse_durable_t;

/** Called by a program whose transport gives requests a retry key (MQTT),
 *  before greenhouse_setup: see greenhouse_durable_t.retry_keys. */
void greenhouse_durable_retry_keys(void);

/** Sets durable mode; call before greenhouse_register. */
void greenhouse_set_durable(const greenhouse_durable_t *d);

/** --state-dir, --actuator-log, --recover, --crash-at and --vent-interval-ms, for --help. */
#define GREENHOUSE_DURABLE_USAGE                                                              \
    "  --state-dir DIR      keep idempotency records in DIR/idempotency.log (fsynced): a\n"   \
    "                       set_vent retried after a restart is answered from its record\n"  \
    "                       and never moves the vent twice; set_vent then requires an\n"     \
    "                       idempotency_key (MQTT: or Correlation Data on the request)\n"   \
    "  --actuator-log FILE  append one line per vent movement (fsynced before set_vent\n"    \
    "                       answers); the vent starts where its last line left it\n"        \
    "  --recover            settle a call interrupted by a restart from the actuator log\n" \
    "                       (default: answered \"earlier outcome unknown\")\n"                \
    "  --crash-at POINT     tests only: SIGKILL at before-intent, after-intent,\n"           \
    "                       after-actuate, after-result or before-respond\n"                 \
    "  --vent-interval-ms MS  tests only: set_vent's rate limit (default 2000)\n"

/**
 * Takes the options above out of argv (before a program reads its own),
 * leaving the others in order in argv[1..*argc-1]. @return 0, or -1 for a
 * bad value (then "PROG: OPTION: what is wrong" is on stderr).
 */
int greenhouse_durable_options(const char *prog, int *argc, char **argv);

/**
 * Applies the options: opens DIR/idempotency.log (emcp::store_file) and
 * the actuator log, and calls greenhouse_set_durable. Call before
 * greenhouse_register. *store is the store to pass to the transport
 * (mcp_dedup_set_store), or NULL without --state-dir.
 * @return 0, or a negative MCP_E* value (*why says what failed).
 */
int greenhouse_durable_open(const mcp_store_t **store, const char **why);

/**
 * What every greenhouse program does before serving: greenhouse_durable_open,
 * then greenhouse_register(server, wind_lock). Says on stderr what failed,
 * as "PROG: ...". @return 0, or the failing call's negative MCP_E* value.
 */
int greenhouse_setup(const char *prog, mcp_server_t *server, bool wind_lock, const mcp_store_t **store);

#ifdef __cplusplus
}
#endif

#endif /* GREENHOUSE_H */
