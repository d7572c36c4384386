/*
 * The portable part of the MQTT 5 binding: topics, properties, correlation
 * and the replay cache. No MQTT library and no allocation; the shims own the
 * network. See emcp_mqtt.h and docs/bindings/mqtt.md.
 */

#include "emcp_mqtt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

_Static_assert(EMCP_MQTT_RESPONSE_MAX >= MCP_MIN_RESPONSE_CAP,
               "EMCP_MQTT_RESPONSE_MAX must be at least MCP_MIN_RESPONSE_CAP");
_Static_assert(EMCP_MQTT_RESPONSE_MAX <= 65535, "slot lengths are 16-bit");
_Static_assert(EMCP_MQTT_TOPIC_MAX <= 65535, "slot lengths are 16-bit");
_Static_assert(EMCP_MQTT_RETRY_KEY_LEN <= MCP_DEDUP_KEY_MAX, "the retry key is a duplicate-table key");
_Static_assert(EMCP_MQTT_CORRELATION_MAX <= 65535, "slot lengths are 16-bit");
_Static_assert(EMCP_MQTT_PRESENCE_MAX >= 128, "EMCP_MQTT_PRESENCE_MAX too small for offline presence");

/* ---- Logging ------------------------------------------------------------ */

#if defined(__GNUC__)
static void logf_(const emcp_mqtt_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#endif

static void logf_(const emcp_mqtt_t *b, const char *fmt, ...)
{
    if (b->config.log == NULL) {
        return;
    }
    char line[EMCP_MQTT_LOG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    b->config.log(b->config.log_user, line);
}

/* ---- Names and topics --------------------------------------------------- */

static bool name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

/* A server id, group or instance id: 1..EMCP_MQTT_NAME_MAX of [A-Za-z0-9_.-]. */
static bool valid_name(const char *s)
{
    if (s == NULL) {
        return false;
    }
    size_t n = strlen(s);
    if (n == 0 || n > EMCP_MQTT_NAME_MAX) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!name_char(s[i])) {
            return false;
        }
    }
    return true;
}

/* A prefix: names separated by single '/', not starting with '$' (reserved
 * for the broker) and without wildcards. */
static bool valid_prefix(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > EMCP_MQTT_NAME_MAX || s[0] == '/' || s[n - 1] == '/') {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '/') {
            if (s[i + 1] == '/') {
                return false;
            }
        } else if (!name_char(s[i])) {
            return false;
        }
    }
    return true;
}

static int build(char *dst, const char *fmt, const char *a, const char *b, const char *c)
{
    int n = snprintf(dst, EMCP_MQTT_TOPIC_MAX + 1, fmt, a, b, c);
    return (n < 0 || n > EMCP_MQTT_TOPIC_MAX) ? -MCP_ENOBUFS : 0;
}

int emcp_mqtt_init(emcp_mqtt_t *b, mcp_server_t *server, const emcp_mqtt_config_t *config)
{
    if (b == NULL || server == NULL || config == NULL || config->name == NULL ||
        config->version == NULL || config->name[0] == '\0' || config->version[0] == '\0') {
        return -MCP_EINVAL;
    }
    const char *prefix = config->prefix != NULL ? config->prefix : EMCP_MQTT_DEFAULT_PREFIX;
    if (!valid_prefix(prefix) || !valid_name(config->server_id)) {
        return -MCP_EINVAL;
    }
    if (config->share_group != NULL && !valid_name(config->share_group)) {
        return -MCP_EINVAL;
    }
    if (config->instance_id != NULL && !valid_name(config->instance_id)) {
        return -MCP_EINVAL;
    }
    if (config->share_group != NULL && config->instance_id == NULL) {
        return -MCP_EINVAL;
    }

    memset(b, 0, sizeof *b);
    b->server = server;
    b->config = *config;
    b->config.prefix = prefix;
    mcp_dedup_init(&b->dedup);
#if EMCP_MQTT_ROUNDTRIP_MAX > 0
    /* Fails soft in a build without the legacy era: no round trips then. */
    (void)mcp_roundtrip_init(&b->rt, b->rt_buf, sizeof b->rt_buf, 1);
#endif

    int rc = build(b->request_topic, "%s/%s/request%s", prefix, config->server_id, "");
    if (rc == 0 && config->share_group != NULL) {
        rc = build(b->subscription, "$share/%s/%s/%s", config->share_group, prefix,
                   b->request_topic + strlen(prefix) + 1);
        /* One instance's Will must not mark the whole group offline. */
        if (rc == 0) {
            int n = snprintf(b->presence_topic, sizeof b->presence_topic, "%s/%s/presence/%s", prefix,
                             config->server_id, config->instance_id);
            rc = (n < 0 || n > EMCP_MQTT_TOPIC_MAX) ? -MCP_ENOBUFS : 0;
        }
    } else if (rc == 0) {
        memcpy(b->subscription, b->request_topic, sizeof b->subscription);
        rc = build(b->presence_topic, "%s/%s/presence%s", prefix, config->server_id, "");
    }
    return rc;
}

const char *emcp_mqtt_subscription(const emcp_mqtt_t *b)
{
    return b->subscription;
}

const char *emcp_mqtt_request_topic(const emcp_mqtt_t *b)
{
    return b->request_topic;
}

const char *emcp_mqtt_presence_topic(const emcp_mqtt_t *b)
{
    return b->presence_topic;
}

/* ---- Presence ----------------------------------------------------------- */

/* Appends s as a JSON string body (no quotes); returns false when full. */
static bool json_escape(char *buf, size_t cap, size_t *pos, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[7];
        size_t n = 0;
        if (c == '"' || c == '\\') {
            esc[n++] = '\\';
            esc[n++] = (char)c;
        } else if (c < 0x20) {
            esc[n++] = '\\';
            esc[n++] = 'u';
            esc[n++] = '0';
            esc[n++] = '0';
            esc[n++] = hex[c >> 4];
            esc[n++] = hex[c & 15];
        } else {
            esc[n++] = (char)c;
        }
        if (*pos + n > cap) {
            return false;
        }
        memcpy(buf + *pos, esc, n);
        *pos += n;
    }
    return true;
}

/* The core's list of protocol versions (mcp_protocol_versions_json). */
static bool append_versions(char *buf, size_t cap, size_t *pos)
{
    int n = mcp_protocol_versions_json(buf + *pos, cap - *pos);
    if (n < 0) {
        return false;
    }
    *pos += (size_t)n;
    return true;
}

static bool append(char *buf, size_t cap, size_t *pos, const char *s)
{
    size_t n = strlen(s);
    if (*pos + n > cap) {
        return false;
    }
    memcpy(buf + *pos, s, n);
    *pos += n;
    return true;
}

int emcp_mqtt_presence(const emcp_mqtt_t *b, bool online, char *buf, size_t cap)
{
    if (b == NULL || buf == NULL) {
        return -MCP_EINVAL;
    }
    size_t pos = 0;
    bool ok = append(buf, cap, &pos, online ? "{\"status\":\"online\"" : "{\"status\":\"offline\"") &&
              append(buf, cap, &pos, ",\"serverId\":\"") &&
              json_escape(buf, cap, &pos, b->config.server_id) && append(buf, cap, &pos, "\"");
    if (ok && b->config.instance_id != NULL) {
        ok = append(buf, cap, &pos, ",\"instance\":\"") &&
             json_escape(buf, cap, &pos, b->config.instance_id) && append(buf, cap, &pos, "\"");
    }
    if (ok && online) {
        ok = append(buf, cap, &pos, ",\"name\":\"") && json_escape(buf, cap, &pos, b->config.name) &&
             append(buf, cap, &pos, "\",\"version\":\"") &&
             json_escape(buf, cap, &pos, b->config.version) &&
             append(buf, cap, &pos, "\",\"protocolVersions\":") &&
             append_versions(buf, cap, &pos) &&
             append(buf, cap, &pos, ",\"requestTopic\":\"") &&
             json_escape(buf, cap, &pos, b->request_topic) && append(buf, cap, &pos, "\"");
    }
    ok = ok && append(buf, cap, &pos, "}");
    return ok ? (int)pos : -MCP_ENOBUFS;
}

/* ---- Replay cache ------------------------------------------------------- */

/* FNV-1a, 64-bit: tells a retry (same principal and payload) from a client
 * that reused its correlation data for another request. */
static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint64_t fingerprint(const emcp_mqtt_message_t *msg)
{
    uint64_t h = 14695981039346656037ull;
    if (msg->principal.ptr != NULL) {
        h = fnv1a(h, msg->principal.ptr, msg->principal.len);
    }
    h = fnv1a(h, "\0", 1);
    return fnv1a(h, msg->payload, msg->payload_len);
}

/* EMCP_MQTT_RETRY_KEY_LEN bytes: FNV-1a 64 of (Response Topic, Correlation
 * Data), then the fingerprint, little-endian. */
static void retry_key(uint8_t out[EMCP_MQTT_RETRY_KEY_LEN], const emcp_mqtt_message_t *msg, uint64_t fp)
{
    uint64_t h = fnv1a(14695981039346656037ull, msg->response_topic.ptr, msg->response_topic.len);
    h = fnv1a(h, "\0", 1);
    h = fnv1a(h, msg->correlation.ptr, msg->correlation.len);
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(h >> (8 * i));
        out[8 + i] = (uint8_t)(fp >> (8 * i));
    }
}

#if EMCP_MQTT_REPLAY_SLOTS > 0
static bool slot_live(const struct emcp_mqtt_slot *s, uint64_t now_ms)
{
    return s->stamp != 0 && now_ms - s->stored_ms < EMCP_MQTT_REPLAY_TTL_MS;
}

static struct emcp_mqtt_slot *cache_find(emcp_mqtt_t *b, const emcp_mqtt_message_t *msg)
{
    for (size_t i = 0; i < EMCP_MQTT_REPLAY_SLOTS; i++) {
        struct emcp_mqtt_slot *s = &b->slots[i];
        if (slot_live(s, msg->now_ms) && s->topic_len == msg->response_topic.len &&
            s->corr_len == msg->correlation.len &&
            memcmp(s->topic, msg->response_topic.ptr, s->topic_len) == 0 &&
            memcmp(s->corr, msg->correlation.ptr, s->corr_len) == 0) {
            return s;
        }
    }
    return NULL;
}

/* The slot to overwrite: the same key if present, else an empty or expired
 * slot, else the least recently used one. */
static struct emcp_mqtt_slot *cache_victim(emcp_mqtt_t *b, const emcp_mqtt_message_t *msg,
                                           struct emcp_mqtt_slot *same_key)
{
    if (same_key != NULL) {
        return same_key;
    }
    struct emcp_mqtt_slot *lru = &b->slots[0];
    for (size_t i = 0; i < EMCP_MQTT_REPLAY_SLOTS; i++) {
        struct emcp_mqtt_slot *s = &b->slots[i];
        if (!slot_live(s, msg->now_ms)) {
            return s;
        }
        if (s->stamp < lru->stamp) {
            lru = s;
        }
    }
    b->stats.evicted++;
    return lru;
}
#endif

/* ---- Legacy round trip (server-to-client requests) ---------------------- */

#if EMCP_MQTT_ROUNDTRIP_MAX > 0
static struct emcp_mqtt_legacy *legacy_find(emcp_mqtt_t *b, mcp_str_t topic)
{
    for (size_t i = 0; i < EMCP_MQTT_LEGACY_CLIENTS; i++) {
        struct emcp_mqtt_legacy *l = &b->legacy[i];
        if (l->stamp != 0 && l->topic_len == topic.len && memcmp(l->topic, topic.ptr, topic.len) == 0) {
            return l;
        }
    }
    return NULL;
}

/* Keeps what a legacy client declared at initialize, by its Response Topic. */
static void legacy_remember(emcp_mqtt_t *b, mcp_str_t topic, uint32_t flags)
{
    struct emcp_mqtt_legacy *l = legacy_find(b, topic);
    if (l == NULL) {
        /* An empty entry (stamp 0) or else the least recently initialized. */
        l = &b->legacy[0];
        for (size_t i = 1; i < EMCP_MQTT_LEGACY_CLIENTS; i++) {
            if (b->legacy[i].stamp < l->stamp) {
                l = &b->legacy[i];
            }
        }
    }
    l->stamp = ++b->use_counter;
    l->flags = flags;
    l->topic_len = (uint16_t)topic.len;
    memcpy(l->topic, topic.ptr, topic.len);
}

/* A message while a legacy call waits: the client's answer to our request
 * (kept, or the last one: the call runs again and its output is the
 * reply), or -1 for anything else (handled as usual). */
static int rt_offer(emcp_mqtt_t *b, const emcp_mqtt_message_t *msg, const uint8_t *payload,
                    emcp_mqtt_reply_t *reply)
{
    if (mcp_roundtrip_waiting(&b->rt) != 1) {
        return -1;
    }
    if (msg->now_ms - b->rt_since_ms >= EMCP_MQTT_ROUNDTRIP_TIMEOUT_MS) {
        (void)mcp_roundtrip_cancel(&b->rt, 0, NULL, NULL, 0);
        logf_(b, "emcp_mqtt: a legacy call waited longer than EMCP_MQTT_ROUNDTRIP_TIMEOUT_MS for its "
                 "client's answer; forgotten");
        return -1;
    }
    int rc = mcp_roundtrip_answer(&b->rt, payload, msg->payload_len);
    if (rc == -MCP_EDOM || rc == -MCP_EINVAL) {
        return -1; /* a request or a notification */
    }
    if (rc == 2) {
        /* notifications/cancelled for the waiting call: no response for it. */
        logf_(b, "emcp_mqtt: a legacy call waiting for input was cancelled by its client; no reply");
        return 0;
    }
    if (rc == -MCP_ENOENT || rc < 0) {
        b->stats.dropped++;
        logf_(b, "emcp_mqtt: dropped a JSON-RPC response to no request of ours");
        return 0;
    }
    if (rc == 0) {
        return 0; /* more answers are due */
    }
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.principal = msg->principal;
    ctx.now_ms = msg->now_ms;
    ctx.dedup = &b->dedup;
    ctx.flags = b->rt_flags;
    ctx.roundtrip = &b->rt;
    if (b->rt_has_retry_key) {
        ctx.retry_key.ptr = (const char *)b->rt_retry_key;
        ctx.retry_key.len = sizeof b->rt_retry_key;
    }
    mcp_response_info_t info;
    memset(&info, 0, sizeof info);
    int n = mcp_roundtrip_resume(b->server, &ctx, &b->rt, b->response, sizeof b->response, &info);
    b->stats.executed++;
    if (n <= 0) {
        n = mcp_roundtrip_cancel(&b->rt, -32603, "Internal error", b->response, sizeof b->response);
    }
    memcpy(b->reply_topic, b->rt_topic, sizeof b->reply_topic);
    reply->topic = b->reply_topic;
    if (b->rt_has_corr) {
        memcpy(b->reply_corr, b->rt_corr, b->rt_corr_len);
        reply->correlation = b->reply_corr;
        reply->correlation_len = b->rt_corr_len;
    }
    reply->payload = b->response;
    reply->payload_len = n > 0 ? (size_t)n : 0;
    reply->source = EMCP_MQTT_REPLY_EXECUTED;
    if ((info.flags & MCP_RESPONSE_CLIENT_REQUEST) != 0) {
        reply->source = EMCP_MQTT_REPLY_CLIENT_REQUEST; /* the next round */
        reply->response_topic = b->request_topic;
        b->rt_since_ms = msg->now_ms;
    }
    return n > 0 ? 1 : 0;
}

/* A call now waits for its client's answers: where its response goes. */
static void rt_wait(emcp_mqtt_t *b, const emcp_mqtt_message_t *msg, const mcp_request_ctx_t *ctx,
                    emcp_mqtt_reply_t *reply)
{
    memcpy(b->rt_topic, b->reply_topic, sizeof b->rt_topic);
    b->rt_has_corr = msg->correlation.ptr != NULL;
    b->rt_corr_len = b->rt_has_corr ? msg->correlation.len : 0;
    memcpy(b->rt_corr, b->reply_corr, b->rt_corr_len);
    b->rt_flags = ctx->flags;
    b->rt_since_ms = msg->now_ms;
    b->rt_has_retry_key = ctx->retry_key.ptr != NULL;
    if (b->rt_has_retry_key) {
        memcpy(b->rt_retry_key, b->retry_key, sizeof b->rt_retry_key);
    }
    reply->source = EMCP_MQTT_REPLY_CLIENT_REQUEST;
    reply->response_topic = b->request_topic;
}
#endif

int emcp_mqtt_reply_next(const emcp_mqtt_reply_t *reply, size_t *at, const uint8_t **msg, size_t *len)
{
    if (reply == NULL || at == NULL || msg == NULL || len == NULL || reply->payload == NULL) {
        return 0;
    }
    size_t i = *at;
    if (reply->source != EMCP_MQTT_REPLY_CLIENT_REQUEST) {
        /* One message, whatever its bytes. */
        if (i > 0) {
            return 0;
        }
        *msg = reply->payload;
        *len = reply->payload_len;
        *at = reply->payload_len + 1;
        return 1;
    }
    while (i < reply->payload_len && (reply->payload[i] == '\n' || reply->payload[i] == '\r')) {
        i++;
    }
    if (i >= reply->payload_len) {
        *at = i;
        return 0;
    }
    size_t end = i;
    while (end < reply->payload_len && reply->payload[end] != '\n') {
        end++;
    }
    *msg = reply->payload + i;
    *len = end - i;
    *at = end;
    return 1;
}

/* ---- Requests ----------------------------------------------------------- */

static int refuse(emcp_mqtt_t *b, emcp_mqtt_reply_t *reply, const char *message)
{
    /* The id stays null: the payload was not read (the core's rule for an
     * unread request). The response buffer always holds MCP_MIN_RESPONSE_CAP. */
    int n = mcp_write_error((char *)b->response, sizeof b->response, NULL, 0, MCP_RPC_INVALID_REQUEST,
                            message);
    reply->payload = b->response;
    reply->payload_len = n > 0 ? (size_t)n : 0;
    reply->source = EMCP_MQTT_REPLY_REFUSED;
    b->stats.refused++;
    logf_(b, "emcp_mqtt: request refused: %s", message);
    return 1;
}

static bool topic_has_wildcard(mcp_str_t t)
{
    for (size_t i = 0; i < t.len; i++) {
        if (t.ptr[i] == '+' || t.ptr[i] == '#' || t.ptr[i] == '\0') {
            return true;
        }
    }
    return false;
}

int emcp_mqtt_handle(emcp_mqtt_t *b, const emcp_mqtt_message_t *msg, emcp_mqtt_reply_t *reply)
{
    if (b == NULL || msg == NULL || reply == NULL || (msg->payload == NULL && msg->payload_len > 0)) {
        return -MCP_EINVAL;
    }
    static const uint8_t empty[1] = {0};
    const uint8_t *payload = msg->payload != NULL ? msg->payload : empty;
    memset(reply, 0, sizeof *reply);

    size_t req_len = strlen(b->request_topic);
    if (msg->topic.ptr != NULL &&
        (msg->topic.len != req_len || memcmp(msg->topic.ptr, b->request_topic, req_len) != 0)) {
        b->stats.dropped++;
        logf_(b, "emcp_mqtt: dropped a message on a topic other than %s (not executed)",
              b->request_topic);
        return 0;
    }
    if (msg->retained) {
        /* A retained request would run again at every subscribe. */
        b->stats.dropped++;
        logf_(b, "emcp_mqtt: dropped a retained message on the request topic (not executed)");
        return 0;
    }
#if EMCP_MQTT_ROUNDTRIP_MAX > 0
    /* A client's answer needs no Response Topic: its call's reply has one. */
    int offered = rt_offer(b, msg, payload, reply);
    if (offered >= 0) {
        return offered;
    }
#endif
    if (msg->response_topic.ptr == NULL) {
        b->stats.dropped++;
        logf_(b, "emcp_mqtt: dropped a request without Response Topic (%lu bytes, not executed)",
              (unsigned long)msg->payload_len);
        return 0;
    }
    if (msg->response_topic.len == 0 || msg->response_topic.len > EMCP_MQTT_TOPIC_MAX ||
        topic_has_wildcard(msg->response_topic)) {
        b->stats.dropped++;
        logf_(b, "emcp_mqtt: dropped a request whose Response Topic is empty, longer than "
                 "EMCP_MQTT_TOPIC_MAX (%d) or has a wildcard (not executed)",
              EMCP_MQTT_TOPIC_MAX);
        return 0;
    }
    memcpy(b->reply_topic, msg->response_topic.ptr, msg->response_topic.len);
    b->reply_topic[msg->response_topic.len] = '\0';
    reply->topic = b->reply_topic;

    if (msg->correlation.ptr != NULL) {
        size_t n = msg->correlation.len;
        if (n > EMCP_MQTT_CORRELATION_MAX) {
            /* Not echoed: a truncated echo would match nothing. */
            return refuse(b, reply, "Correlation Data exceeds EMCP_MQTT_CORRELATION_MAX");
        }
        memcpy(b->reply_corr, msg->correlation.ptr, n);
        reply->correlation = b->reply_corr;
        reply->correlation_len = n;
    }
    if (msg->content_type.ptr != NULL &&
        (msg->content_type.len != sizeof EMCP_MQTT_CONTENT_TYPE - 1 ||
         memcmp(msg->content_type.ptr, EMCP_MQTT_CONTENT_TYPE, msg->content_type.len) != 0)) {
        return refuse(b, reply, "Content Type must be application/json");
    }
    if (msg->payload_len > EMCP_MQTT_PAYLOAD_MAX) {
        return refuse(b, reply, "Request exceeds EMCP_MQTT_PAYLOAD_MAX");
    }

    uint64_t fp = fingerprint(msg);
#if EMCP_MQTT_REPLAY_SLOTS > 0
    struct emcp_mqtt_slot *hit = NULL;
    if (msg->correlation.ptr != NULL) {
        hit = cache_find(b, msg);
        if (hit != NULL && hit->fingerprint == fp) {
            hit->stamp = ++b->use_counter;
            reply->payload = hit->response;
            reply->payload_len = hit->response_len;
            reply->source = EMCP_MQTT_REPLY_REPLAYED;
            b->stats.replayed++;
            logf_(b, "emcp_mqtt: duplicate request answered from the replay cache (not executed)");
            return 1;
        }
        if (hit != NULL) {
            logf_(b, "emcp_mqtt: correlation data reused for a different request; executing it");
        }
    }
#endif

    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.principal = msg->principal;
    ctx.now_ms = msg->now_ms;
    ctx.dedup = &b->dedup;
    if (b->durable && msg->correlation.ptr != NULL) {
        /* The replay cache's key, durable through the core's records. */
        retry_key(b->retry_key, msg, fp);
        ctx.retry_key.ptr = (const char *)b->retry_key;
        ctx.retry_key.len = sizeof b->retry_key;
    }
#if EMCP_MQTT_ROUNDTRIP_MAX > 0
    const struct emcp_mqtt_legacy *client = legacy_find(b, msg->response_topic);
    ctx.flags = client != NULL ? client->flags : 0;
    if (mcp_roundtrip_waiting(&b->rt) == 0) {
        ctx.roundtrip = &b->rt;
    }
#endif
    mcp_response_info_t info;
    memset(&info, 0, sizeof info);
    int n = mcp_server_handle(b->server, &ctx, payload, msg->payload_len, b->response,
                              sizeof b->response, &info);
    b->stats.executed++;
    if (n < 0) {
        logf_(b, "emcp_mqtt: mcp_server_handle failed (%d); no reply", n);
        return 0;
    }
#if EMCP_MQTT_ROUNDTRIP_MAX > 0
    if (info.rpc_error == 0 && (info.flags & MCP_RESPONSE_CLIENT_CAPS) != 0) {
        legacy_remember(b, msg->response_topic, info.flags & MCP_RESPONSE_CLIENT_CAPS);
    }
#endif
    if (n == 0) {
        return 0; /* a notification */
    }
    reply->payload = b->response;
    reply->payload_len = (size_t)n;
    reply->source = EMCP_MQTT_REPLY_EXECUTED;
#if EMCP_MQTT_ROUNDTRIP_MAX > 0
    if ((info.flags & MCP_RESPONSE_CLIENT_REQUEST) != 0) {
        rt_wait(b, msg, &ctx, reply); /* not cached: the call is not answered yet */
        return 1;
    }
#endif

#if EMCP_MQTT_REPLAY_SLOTS > 0
    if (msg->correlation.ptr != NULL) {
        struct emcp_mqtt_slot *s = cache_victim(b, msg, hit);
        s->stamp = ++b->use_counter;
        s->stored_ms = msg->now_ms;
        s->fingerprint = fp;
        s->topic_len = (uint16_t)msg->response_topic.len;
        memcpy(s->topic, msg->response_topic.ptr, s->topic_len);
        s->topic[s->topic_len] = '\0';
        s->corr_len = (uint16_t)msg->correlation.len;
        memcpy(s->corr, msg->correlation.ptr, s->corr_len);
        s->response_len = (uint16_t)n;
        memcpy(s->response, b->response, (size_t)n);
    }
#else
    (void)fp;
#endif
    return 1;
}

emcp_mqtt_stats_t emcp_mqtt_stats(const emcp_mqtt_t *b)
{
    return b->stats;
}

int emcp_mqtt_set_store(emcp_mqtt_t *b, const mcp_store_t *store, uint64_t now_ms)
{
    if (b == NULL) {
        return -MCP_EINVAL;
    }
    int rc = mcp_dedup_set_store(&b->dedup, store, now_ms);
    b->durable = rc >= 0 && store != NULL;
    return rc;
}

mcp_str_t emcp_mqtt_principal(const char *username)
{
    static const char anonymous[] = "anonymous";
    mcp_str_t p = {anonymous, sizeof anonymous - 1};
    if (username != NULL && username[0] != '\0') {
        p.ptr = username;
        p.len = strlen(username);
    }
    return p;
}

/* ---- Reconnect backoff -------------------------------------------------- */

void emcp_mqtt_backoff_init(emcp_mqtt_backoff_t *bo, unsigned min_ms, unsigned max_ms, uint32_t seed)
{
    bo->min_ms = min_ms != 0 ? min_ms : EMCP_MQTT_BACKOFF_MIN_MS;
    bo->max_ms = max_ms != 0 ? max_ms : EMCP_MQTT_BACKOFF_MAX_MS;
    if (bo->max_ms < bo->min_ms) {
        bo->max_ms = bo->min_ms;
    }
    bo->attempts = 0;
    bo->rng = seed != 0 ? seed : 2463534242u;
}

unsigned emcp_mqtt_backoff_next(emcp_mqtt_backoff_t *bo)
{
    unsigned d = bo->min_ms;
    for (unsigned i = 0; i < bo->attempts && d < bo->max_ms; i++) {
        d = d > bo->max_ms / 2 ? bo->max_ms : d * 2;
    }
    if (d > bo->max_ms) {
        d = bo->max_ms;
    }
    bo->attempts++;
    /* Jitter (xorshift32): a fleet that lost the same broker must not return in lockstep. */
    bo->rng ^= bo->rng << 13;
    bo->rng ^= bo->rng >> 17;
    bo->rng ^= bo->rng << 5;
    return d + bo->rng % (d / 4 + 1);
}

void emcp_mqtt_backoff_reset(emcp_mqtt_backoff_t *bo)
{
    bo->attempts = 0;
}
