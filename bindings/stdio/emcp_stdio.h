/**
 * @file emcp_stdio.h
 * @brief The MCP stdio binding for emcp: one JSON-RPC message per line.
 *
 * Reads newline-delimited JSON-RPC messages from @p in into the core's
 * stream framer (mcp_framer_t), has each one answered by mcp_framer_poll()
 * and writes each response as one line on @p out. The same framing serves a
 * UART or any other byte stream that can be opened as a FILE (MCP
 * 2026-07-28, section "stdio").
 *
 * - A trailing "\r" is stripped, so CRLF line endings work; empty lines are
 *   skipped.
 * - Nothing is allocated. The receive, response, output and round-trip
 *   buffers are static arrays (EMCP_STDIO_LINE_MAX + 1,
 *   EMCP_STDIO_RESPONSE_MAX + 1, EMCP_STDIO_OUT_BLOCK and
 *   EMCP_STDIO_ROUNDTRIP_MAX bytes), so only one emcp_stdio_serve() loop may
 *   run at a time.
 * - A line longer than EMCP_STDIO_LINE_MAX bytes (its "\n" not counted;
 *   EMCP_STDIO_LINE_MAX - 1 with "\r\n") is discarded up to its newline and
 *   answered with the framer's JSON-RPC -32600 error "Request exceeds the
 *   receive buffer" with the request's id, found in the line's first bytes
 *   (id null only when they do not hold it), so the client is not left
 *   waiting.
 * - Input is read in blocks from @p in's file descriptor where POSIX
 *   provides one (bytes already read from @p in through stdio before the
 *   call are not seen: pass a stream nothing has read yet, such as stdin at
 *   start-up), else a byte at a time. Every complete message of a block is
 *   answered into an output block of EMCP_STDIO_OUT_BLOCK bytes, sent when
 *   it is full or when no more input is waiting (poll(), no timeout), always
 *   before the loop waits for input: a client that pipelines requests gets
 *   its answers a block per write (on @p out's descriptor where it has one,
 *   after whatever @p out's own buffer held), and a client that waits for
 *   each answer gets it at once. @p log is flushed before each block leaves,
 *   so a buffered @p log line (an audit record) is out before the answer it
 *   belongs to: a program may buffer @p log fully (greenhouse-stdio does) and
 *   pay one write per block for its log lines. A notification (progress,
 *   log) is sent at once, after the answers made before it.
 * - @p out carries only MCP messages; every diagnostic goes to @p log.
 * - subscriptions/listen (2026-07-28) is served: the acknowledgement and the
 *   stream's notifications are lines on @p out, tagged with the listen id;
 *   up to EMCP_STDIO_MAX_LISTENERS streams, all ended by end of input.
 * - A 2025-11-25 client that declared elicitation (sampling, roots) at
 *   initialize can answer a tool that asks for input: the tool call is
 *   answered with server-to-client requests (elicitation/create, ...) on
 *   @p out, the client's responses are matched by id, and the call's final
 *   response follows (mcp_roundtrip_t; one such call waits at a time, a
 *   second one sees a client without the capability).
 */

#ifndef EMCP_STDIO_H
#define EMCP_STDIO_H

#include <stdio.h>

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest accepted message in bytes, without its line ending. */
#ifndef EMCP_STDIO_LINE_MAX
#define EMCP_STDIO_LINE_MAX 16384
#endif

/** Size of the response buffer passed to mcp_server_handle(). */
#ifndef EMCP_STDIO_RESPONSE_MAX
#define EMCP_STDIO_RESPONSE_MAX 16384
#endif

/** The output block: answers to pipelined requests gather here and leave in
 *  one write. At least EMCP_STDIO_RESPONSE_MAX + 1. */
#ifndef EMCP_STDIO_OUT_BLOCK
#define EMCP_STDIO_OUT_BLOCK 32768
#endif

/** Round-trip buffer for a legacy call waiting for the client's answers
 *  (see mcp_roundtrip_init: the call, its answers and its requestState);
 *  0 turns legacy server-to-client requests off. */
#ifndef EMCP_STDIO_ROUNDTRIP_MAX
#define EMCP_STDIO_ROUNDTRIP_MAX 4096
#endif

/** subscriptions/listen streams that can be open at once (each holds one
 *  mcp_listener_t, MCP_LISTENER_WORDS * 8 bytes, in static storage). */
#ifndef EMCP_STDIO_MAX_LISTENERS
#define EMCP_STDIO_MAX_LISTENERS 2
#endif

/**
 * Serves @p server on a line-delimited stream until end of input.
 *
 * Each request is handled with a zeroed mcp_request_ctx_t whose principal is
 * "local" (or the one emcp_stdio_set_principal() set) and whose now_ms is
 * read from CLOCK_MONOTONIC. Each response is written with a "\n"; the
 * responses leave in blocks, never later than when the loop would wait for
 * input (see above).
 *
 * @param server An initialised server with its tools registered.
 * @param in     The message source (e.g. stdin).
 * @param out    Where responses go (e.g. stdout); nothing else is written.
 * @param log    Diagnostics (e.g. stderr), or NULL for none.
 * @retval 0 End of input on @p in (the client's shutdown signal).
 * @retval -MCP_EINVAL @p server, @p in or @p out is NULL.
 * @retval -MCP_EIO A read or write error (e.g. the client went away).
 */
int emcp_stdio_serve(mcp_server_t *server, FILE *in, FILE *out, FILE *log);

/**
 * Sets the principal of the requests emcp_stdio_serve() handles from then
 * on: the identity the host that started the program gave it (the stdio
 * transport authenticates nobody itself). NULL or "" restores the default
 * "local". @p principal must stay valid while a serve loop runs.
 */
void emcp_stdio_set_principal(const char *principal);

/**
 * Adds @p flags (MCP_CTX_* bits) to the mcp_request_ctx_t.flags of every
 * request emcp_stdio_serve() handles from then on; 0 adds none. A program
 * that writes notifications/tools/list_changed lines itself (emcp-gateway)
 * passes MCP_CTX_LEGACY_LIST_CHANGED, so a 2025-11-25 client's initialize
 * is told that lists change.
 */
void emcp_stdio_set_ctx_flags(uint32_t flags);

/**
 * emcp_stdio_serve() with the duplicate table made durable on @p store
 * (mcp_dedup_set_store, read once before the first message): a call of a
 * tool with an idempotency key that finished before a restart is answered
 * from its record; one interrupted by the restart is answered "earlier
 * outcome unknown" (or as @p store's recover callback settles it), never
 * run again. NULL @p store: as emcp_stdio_serve().
 *
 * @retval <0 Also the error of mcp_dedup_set_store (nothing was served).
 */
int emcp_stdio_serve_store(mcp_server_t *server, FILE *in, FILE *out, FILE *log,
                           const mcp_store_t *store);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_STDIO_H */
