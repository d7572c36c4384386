/*
 * emcp-bridge: a host's stdio MCP server that forwards newline-delimited
 * JSON-RPC to a device on a serial port or a TCP socket (bridge.c). Its
 * limits and the JSON-RPC errors it answers with when the device cannot.
 */
#ifndef EMCP_BRIDGE_H
#define EMCP_BRIDGE_H

/** Longest message either way, without its newline (longer host lines: -32600, id null). */
#define EMCP_BRIDGE_LINE_MAX 16384
/** Default for --timeout-ms: a request the device has not answered by then gets EMCP_BRIDGE_RPC_TIMEOUT. */
#define EMCP_BRIDGE_TIMEOUT_MS 30000
/** Default for --hold-ms: how long a request waits for the device to come back before EMCP_BRIDGE_RPC_GONE. */
#define EMCP_BRIDGE_HOLD_MS 5000
/** First and longest wait between two attempts to open the device (doubling in between). */
#define EMCP_BRIDGE_BACKOFF_MIN_MS 100
#define EMCP_BRIDGE_BACKOFF_MAX_MS 2000
/** After the host closes stdin, how long answers still in flight are waited for. */
#define EMCP_BRIDGE_DRAIN_MS 2000

/** The device went away (reset, unplugged, socket closed) before answering, or is not there. */
#define EMCP_BRIDGE_RPC_GONE (-32000)
/** The device did not answer within the timeout. */
#define EMCP_BRIDGE_RPC_TIMEOUT (-32001)

#endif /* EMCP_BRIDGE_H */
