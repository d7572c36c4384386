/**
 * @file emcp_mqtt.h
 * @brief The portable part of the MQTT 5 binding for emcp: topic scheme,
 *        request/response properties, correlation and the replay cache.
 *
 * This part knows MQTT 5 concepts (topics, Response Topic, Correlation Data,
 * Content Type, the retain flag) but no MQTT library: a shim (libmosquitto on
 * Linux, emcp_mqtt_mosq.h; Zephyr MQTT or coreMQTT on firmware) decodes each
 * PUBLISH into an emcp_mqtt_message_t, calls emcp_mqtt_handle() and publishes
 * the emcp_mqtt_reply_t it gets back. docs/bindings/mqtt.md is the binding's
 * specification.
 *
 * - Topics (prefix configurable, default "mcp"): requests on
 *   `{prefix}/{server-id}/request`, presence on `{prefix}/{server-id}/presence`
 *   (with a shared subscription `$share/{group}/{prefix}/{server-id}/request`,
 *   each instance's presence is `{prefix}/{server-id}/presence/{instance}`).
 * - A request carries one JSON-RPC message, a Response Topic and Correlation
 *   Data; the reply goes to the Response Topic with the same Correlation Data
 *   and Content Type "application/json", QoS 1, not retained.
 * - The replay cache keeps the last EMCP_MQTT_REPLAY_SLOTS responses keyed by
 *   (Response Topic, Correlation Data), so a redelivered request is answered
 *   from the cache and its tool never runs twice.
 *
 * Nothing is allocated: the cache, the response buffer and the topics live in
 * the caller's emcp_mqtt_t (e.g. `static emcp_mqtt_t binding;`). The binding
 * is not reentrant: one shim thread calls emcp_mqtt_handle() at a time.
 */

#ifndef EMCP_MQTT_H
#define EMCP_MQTT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @defgroup emcp_mqtt emcp MQTT 5 binding (portable part)
 *  @{ */

/** Default first topic level. */
#define EMCP_MQTT_DEFAULT_PREFIX "mcp"

/** Content Type of every request and reply. */
#define EMCP_MQTT_CONTENT_TYPE "application/json"

/** QoS of requests, replies and presence. */
#define EMCP_MQTT_QOS 1

/** Longest server id, share group, prefix or instance id, in bytes. Server
 *  ids, groups and instance ids are `[A-Za-z0-9_.-]`; the prefix may also
 *  hold `/` between levels. */
#ifndef EMCP_MQTT_NAME_MAX
#define EMCP_MQTT_NAME_MAX 64
#endif

/** Longest topic in bytes, without the NUL: the binding's own topics and the
 *  Response Topic of a request (longer → no reply, one log line). */
#ifndef EMCP_MQTT_TOPIC_MAX
#define EMCP_MQTT_TOPIC_MAX 256
#endif

/** Longest Correlation Data in bytes (longer → -32600 reply, not executed). */
#ifndef EMCP_MQTT_CORRELATION_MAX
#define EMCP_MQTT_CORRELATION_MAX 64
#endif

/** Longest request payload in bytes (longer → -32600 reply, not executed). */
#ifndef EMCP_MQTT_PAYLOAD_MAX
#define EMCP_MQTT_PAYLOAD_MAX 16384
#endif

/** The response buffer passed to mcp_server_handle(), and the size of the
 *  response each replay slot holds. */
#ifndef EMCP_MQTT_RESPONSE_MAX
#define EMCP_MQTT_RESPONSE_MAX 4096
#endif

/** Replay cache slots (0 disables the cache: duplicates execute again). */
#ifndef EMCP_MQTT_REPLAY_SLOTS
#define EMCP_MQTT_REPLAY_SLOTS 16
#endif

/** How long a cached response answers duplicates, in ms of now_ms. */
#ifndef EMCP_MQTT_REPLAY_TTL_MS
#define EMCP_MQTT_REPLAY_TTL_MS 600000u
#endif

/** Buffer of the one legacy-era (2025-11-25) call that may wait for the
 *  client's answer to a server-to-client request (elicitation, sampling,
 *  roots: mcp_roundtrip_t): the call with the answers. 0 disables the
 *  round trip: such a call is answered as to a client that cannot be asked. */
#ifndef EMCP_MQTT_ROUNDTRIP_MAX
#define EMCP_MQTT_ROUNDTRIP_MAX 4096
#endif

/** How long that call waits for the client's answers, in ms of now_ms; a
 *  call still waiting then is forgotten when the next message arrives (its
 *  client's own timeout ended it long before; one log line). */
#ifndef EMCP_MQTT_ROUNDTRIP_TIMEOUT_MS
#define EMCP_MQTT_ROUNDTRIP_TIMEOUT_MS 120000u
#endif

/** Legacy clients (by Response Topic) whose initialize capabilities
 *  (elicitation, sampling, roots) the binding remembers; the least recently
 *  initialized is forgotten first. */
#ifndef EMCP_MQTT_LEGACY_CLIENTS
#define EMCP_MQTT_LEGACY_CLIENTS 4
#endif
#if EMCP_MQTT_LEGACY_CLIENTS < 1
#error "EMCP_MQTT_LEGACY_CLIENTS must be at least 1 (EMCP_MQTT_ROUNDTRIP_MAX 0 disables the round trip)"
#endif

/** Longest presence payload in bytes. */
#ifndef EMCP_MQTT_PRESENCE_MAX
#define EMCP_MQTT_PRESENCE_MAX 512
#endif

/** Longest log line passed to emcp_mqtt_config_t.log, in bytes with the NUL
 *  (longer lines are cut). */
#ifndef EMCP_MQTT_LOG_MAX
#define EMCP_MQTT_LOG_MAX 256
#endif

/** Bytes of the retry key (mcp_request_ctx_t.retry_key) a durable binding
 *  gives a request with Correlation Data: a 64-bit FNV-1a of (Response
 *  Topic, Correlation Data), then the replay cache's fingerprint. */
#define EMCP_MQTT_RETRY_KEY_LEN 16

/** A log line: @p msg is NUL-terminated and has no newline. */
typedef void (*emcp_mqtt_log_fn)(void *user, const char *msg);

/** Configuration for emcp_mqtt_init(); the strings must outlive the binding. */
typedef struct emcp_mqtt_config_t {
    const char *prefix;      /**< First topic level(s), or NULL for "mcp". */
    const char *server_id;   /**< The server's id in the topics (required). */
    const char *share_group; /**< Shared-subscription group, or NULL for none. */
    const char *instance_id; /**< This instance (its MQTT client id); required with share_group. */
    const char *name;        /**< serverInfo.name for presence (required). */
    const char *version;     /**< serverInfo.version for presence (required). */
    emcp_mqtt_log_fn log;    /**< Diagnostics, or NULL. */
    void *log_user;          /**< Passed to @c log. */
} emcp_mqtt_config_t;

/** One replay slot (private). */
struct emcp_mqtt_slot {
    uint64_t stamp;       /**< Use order for LRU eviction; 0 = empty. */
    uint64_t stored_ms;   /**< now_ms when the response was stored. */
    uint64_t fingerprint; /**< FNV-1a of principal and payload. */
    uint16_t topic_len;
    uint16_t corr_len;
    uint16_t response_len;
    char topic[EMCP_MQTT_TOPIC_MAX + 1];
    uint8_t corr[EMCP_MQTT_CORRELATION_MAX];
    uint8_t response[EMCP_MQTT_RESPONSE_MAX];
};

/** Counters, for logs and tests. */
typedef struct emcp_mqtt_stats_t {
    uint32_t executed;       /**< Requests handed to mcp_server_handle(). */
    uint32_t replayed;       /**< Duplicates answered from the cache. */
    uint32_t refused;        /**< Requests answered with a binding error. */
    uint32_t dropped;        /**< Messages with no reply (no Response Topic, retained, bad topic). */
    uint32_t evicted;        /**< Live cache entries replaced before their TTL. */
} emcp_mqtt_stats_t;

/** A legacy client's capabilities (private). */
struct emcp_mqtt_legacy {
    uint64_t stamp; /**< 0 = empty. */
    uint32_t flags; /**< MCP_CTX_LEGACY_* of its initialize. */
    uint16_t topic_len;
    char topic[EMCP_MQTT_TOPIC_MAX];
};

/** The binding's state; caller-owned, e.g. `static emcp_mqtt_t binding;`. */
typedef struct emcp_mqtt_t {
    mcp_server_t *server;
    emcp_mqtt_config_t config;
    char request_topic[EMCP_MQTT_TOPIC_MAX + 1];
    char subscription[EMCP_MQTT_TOPIC_MAX + 1];
    char presence_topic[EMCP_MQTT_TOPIC_MAX + 1];
    char reply_topic[EMCP_MQTT_TOPIC_MAX + 1];
    uint8_t reply_corr[EMCP_MQTT_CORRELATION_MAX];
    uint8_t response[EMCP_MQTT_RESPONSE_MAX];
    uint64_t use_counter;
    emcp_mqtt_stats_t stats;
#if EMCP_MQTT_REPLAY_SLOTS > 0
    struct emcp_mqtt_slot slots[EMCP_MQTT_REPLAY_SLOTS];
#endif
    /* Idempotency keys of this server's tools (one message loop, one table). */
    mcp_dedup_t dedup;
    /* A store is set: requests with Correlation Data carry a retry key. */
    bool durable;
    uint8_t retry_key[EMCP_MQTT_RETRY_KEY_LEN];
#if EMCP_MQTT_ROUNDTRIP_MAX > 0
    /* The legacy call waiting for its client's answers, and where its
     * final response goes. */
    mcp_roundtrip_t rt;
    uint8_t rt_buf[EMCP_MQTT_ROUNDTRIP_MAX];
    char rt_topic[EMCP_MQTT_TOPIC_MAX + 1];
    uint8_t rt_corr[EMCP_MQTT_CORRELATION_MAX];
    size_t rt_corr_len;
    bool rt_has_corr;
    uint32_t rt_flags;
    uint64_t rt_since_ms;
    bool rt_has_retry_key;
    uint8_t rt_retry_key[EMCP_MQTT_RETRY_KEY_LEN];
    struct emcp_mqtt_legacy legacy[EMCP_MQTT_LEGACY_CLIENTS];
#endif
} emcp_mqtt_t;

/** An incoming PUBLISH as the shim decoded it. Spans are absent when ptr is NULL. */
typedef struct emcp_mqtt_message_t {
    mcp_str_t topic;          /**< The topic it was published to (absent: not checked). */
    const uint8_t *payload;   /**< The payload bytes. */
    size_t payload_len;       /**< Their length. */
    mcp_str_t response_topic; /**< Response Topic property. */
    mcp_str_t correlation;    /**< Correlation Data property (binary). */
    mcp_str_t content_type;   /**< Content Type property. */
    bool retained;            /**< Delivered from the broker's retained store. */
    mcp_str_t principal;      /**< The identity the shim authenticated as. */
    uint64_t now_ms;          /**< Monotonic clock in ms. */
} emcp_mqtt_message_t;

/** Where a reply came from. */
typedef enum emcp_mqtt_reply_source_t {
    EMCP_MQTT_REPLY_EXECUTED = 0, /**< mcp_server_handle() produced it now. */
    EMCP_MQTT_REPLY_REPLAYED = 1, /**< The replay cache answered a duplicate. */
    EMCP_MQTT_REPLY_REFUSED = 2,  /**< The binding refused the request (-32600). */
    /** Server-to-client requests of a waiting legacy call, one JSON-RPC
     *  request per line: publish each line (emcp_mqtt_reply_next) with
     *  Response Topic = the request topic, where the client publishes its
     *  JSON-RPC responses (their Correlation Data echoed, or none). */
    EMCP_MQTT_REPLY_CLIENT_REQUEST = 3,
} emcp_mqtt_reply_source_t;

/** The reply to publish: QoS 1, not retained, Content Type
 *  EMCP_MQTT_CONTENT_TYPE, Correlation Data echoed when present. The spans
 *  point into the binding and stay valid until the next emcp_mqtt_handle(). */
typedef struct emcp_mqtt_reply_t {
    const char *topic;          /**< NUL-terminated Response Topic. */
    const uint8_t *correlation; /**< Correlation Data, or NULL when the request had none. */
    size_t correlation_len;     /**< Its length. */
    const uint8_t *payload;     /**< One JSON-RPC response. */
    size_t payload_len;         /**< Its length. */
    emcp_mqtt_reply_source_t source; /**< Executed, replayed, refused or client requests. */
    const char *response_topic; /**< Response Topic to set on the reply, or NULL (none). */
} emcp_mqtt_reply_t;

/**
 * The next message of @p reply to publish: one JSON-RPC message per
 * PUBLISH (a reply of EMCP_MQTT_REPLY_CLIENT_REQUEST may hold several
 * lines). Start with `*at = 0`.
 *
 * @return 1 with *msg and *len set, or 0 when none is left.
 */
int emcp_mqtt_reply_next(const emcp_mqtt_reply_t *reply, size_t *at, const uint8_t **msg, size_t *len);

/**
 * Builds the topics and empties the replay cache.
 *
 * @retval 0 Success.
 * @retval -MCP_EINVAL NULL pointer, missing server_id/name/version, a name
 *         with characters outside `[A-Za-z0-9_.-]` (prefix: also `/`, not at
 *         either end), a share_group without instance_id, or a name longer
 *         than EMCP_MQTT_NAME_MAX.
 * @retval -MCP_ENOBUFS A topic would exceed EMCP_MQTT_TOPIC_MAX.
 */
int emcp_mqtt_init(emcp_mqtt_t *b, mcp_server_t *server, const emcp_mqtt_config_t *config);

/** The topic filter to subscribe to with QoS 1 (shared when share_group is set). */
const char *emcp_mqtt_subscription(const emcp_mqtt_t *b);

/** The request topic `{prefix}/{server-id}/request`. */
const char *emcp_mqtt_request_topic(const emcp_mqtt_t *b);

/** The presence topic to publish retained presence and the Will on. */
const char *emcp_mqtt_presence_topic(const emcp_mqtt_t *b);

/**
 * Writes the presence payload (JSON): online with name, version, the
 * supported protocol versions and the request topic, or offline (the Will).
 *
 * @return The length written (not NUL-terminated).
 * @retval -MCP_ENOBUFS @p cap is too small.
 * @retval -MCP_EINVAL NULL pointer.
 */
int emcp_mqtt_presence(const emcp_mqtt_t *b, bool online, char *buf, size_t cap);

/**
 * Handles one incoming PUBLISH.
 *
 * Legacy era (2025-11-25): the capabilities a client declares at
 * initialize are kept by its Response Topic. A tools/call (prompt,
 * resource read) of such a client that asks for input (set_vent 90's
 * confirmation) is answered with the server-to-client request
 * (EMCP_MQTT_REPLY_CLIENT_REQUEST, to the call's Response Topic with its
 * Correlation Data); the client's JSON-RPC response, published to the
 * request topic (a Response Topic is not needed), is matched by id, and the
 * call's final response then goes to the call's Response Topic with its
 * Correlation Data. One call waits at a time; meanwhile another call that
 * asks for input is answered as to a client that cannot be asked.
 *
 * @retval 1 @p reply holds a reply to publish.
 * @retval 0 Nothing to publish (a topic other than the request topic, no
 *         Response Topic, a retained message, a notification, an unusable
 *         Response Topic); the reason was logged.
 * @retval -MCP_EINVAL NULL pointer.
 */
int emcp_mqtt_handle(emcp_mqtt_t *b, const emcp_mqtt_message_t *msg, emcp_mqtt_reply_t *reply);

/** The binding's counters. */
emcp_mqtt_stats_t emcp_mqtt_stats(const emcp_mqtt_t *b);

/**
 * Makes the binding's idempotency-key table durable on @p store
 * (mcp_dedup_set_store; call after emcp_mqtt_init, before the first
 * message). A request retried or redelivered after the gateway was killed
 * is then answered from the key's durable record ("earlier outcome unknown"
 * when it was interrupted mid-call), never run again. The replay cache's
 * key becomes durable too, through the same records: a request with
 * Correlation Data carries a retry key (mcp_request_ctx_t.retry_key,
 * EMCP_MQTT_RETRY_KEY_LEN bytes of its Response Topic, Correlation Data,
 * principal and payload), so a call of such a tool whose arguments carry
 * no key, re-published with the same Correlation Data after a restart, is
 * answered from its record as well. (The RAM cache still answers every
 * other duplicate within a run; requests to tools without an idempotency
 * key are not recorded: no flash write for reads.)
 *
 * @return The records kept from the log (0 or more), or the negative
 *         error of mcp_dedup_set_store.
 */
int emcp_mqtt_set_store(emcp_mqtt_t *b, const mcp_store_t *store, uint64_t now_ms);

/** The principal of a request on a connection made as `username`: the
 *  username itself, or "anonymous" for NULL or "" (every shim's rule). */
mcp_str_t emcp_mqtt_principal(const char *username);

/** Smallest reconnect delay in ms, after the first failed attempt. */
#define EMCP_MQTT_BACKOFF_MIN_MS 100
/** Largest reconnect delay in ms (before jitter of up to +25%). */
#define EMCP_MQTT_BACKOFF_MAX_MS 2000

/** Reconnect backoff of every MQTT shim (libmosquitto, coreMQTT, Zephyr):
 *  caller-owned state, no clock, no allocation. */
typedef struct emcp_mqtt_backoff_t {
    unsigned min_ms;   /**< First delay. */
    unsigned max_ms;   /**< Cap of the doubling. */
    unsigned attempts; /**< Failed attempts since the last success. */
    uint32_t rng;      /**< Jitter state (xorshift32, never 0). */
} emcp_mqtt_backoff_t;

/**
 * Starts a backoff: `min_ms`/`max_ms` 0 take EMCP_MQTT_BACKOFF_MIN_MS /
 * _MAX_MS; `seed` should differ between devices (a client id hash, a clock
 * reading), so a fleet that lost the same broker does not return in lockstep.
 */
void emcp_mqtt_backoff_init(emcp_mqtt_backoff_t *bo, unsigned min_ms, unsigned max_ms, uint32_t seed);

/**
 * Counts one failed attempt and returns the delay before the next one:
 * `min_ms` doubled per earlier failure, capped at `max_ms`, plus 0–25 %
 * jitter.
 */
unsigned emcp_mqtt_backoff_next(emcp_mqtt_backoff_t *bo);

/** After a successful connection: the next failure waits `min_ms` again. */
void emcp_mqtt_backoff_reset(emcp_mqtt_backoff_t *bo);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* EMCP_MQTT_H */
