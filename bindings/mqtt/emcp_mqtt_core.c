/*
 * The coreMQTT v5 shim: session, reconnect and property coding around the
 * portable binding (emcp_mqtt.c), with the behaviour of the libmosquitto
 * shim (emcp_mqtt_mosq.c). One task, MQTT_ProcessLoop(); no allocation.
 */

#include "emcp_mqtt_core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const uint8_t publish_type = MQTT_PACKET_TYPE_PUBLISH;
static const uint8_t connect_type = MQTT_PACKET_TYPE_CONNECT;

static void slog(const emcp_mqtt_core_t *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void slog(const emcp_mqtt_core_t *s, const char *fmt, ...)
{
    if (s->opt->log == NULL) {
        return;
    }
    char line[EMCP_MQTT_LOG_MAX];
    int n = snprintf(line, sizeof line, "emcp_mqtt_core: ");
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof line) {
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    }
    va_end(ap);
    s->opt->log(s->opt->log_user, line);
}

/* now_ms() wraps at 2^32 ms (49 days); the replay cache wants 64 bits. */
static uint64_t now64(emcp_mqtt_core_t *s)
{
    uint32_t now = s->opt->now_ms();
    if (now < s->clock_last) {
        s->clock_hi += (uint64_t)1 << 32;
    }
    s->clock_last = now;
    return s->clock_hi | now;
}

static bool stopping(const emcp_mqtt_core_t *s)
{
    return s->opt->stop != NULL && *s->opt->stop != 0;
}

/* Sleeps ms, waking early when asked to stop. */
static void nap(const emcp_mqtt_core_t *s, unsigned ms)
{
    while (ms > 0 && !stopping(s)) {
        unsigned step = ms < 50 ? ms : 50;
        s->opt->sleep_ms(step);
        ms -= step;
    }
}

/* Content Type application/json and Payload Format Indicator 1 (UTF-8), plus
 * Correlation Data when @p corr is not NULL, into a PUBLISH property builder. */
static MQTTStatus_t json_props(MQTTPropBuilder_t *pb, uint8_t *buf, size_t cap, const uint8_t *corr,
                               size_t corr_len, const uint8_t *packet_type)
{
    MQTTStatus_t st = MQTTPropertyBuilder_Init(pb, buf, cap);
    if (st == MQTTSuccess) {
        st = MQTTPropAdd_ContentType(pb, EMCP_MQTT_CONTENT_TYPE, sizeof EMCP_MQTT_CONTENT_TYPE - 1, packet_type);
    }
    if (st == MQTTSuccess) {
        st = MQTTPropAdd_PayloadFormat(pb, true, packet_type);
    }
    if (st == MQTTSuccess && corr != NULL) {
        st = MQTTPropAdd_CorrelationData(pb, corr, corr_len, packet_type);
    }
    return st;
}

/* Publishes presence (retained, QoS 1, Content Type application/json). */
static MQTTStatus_t publish_presence(emcp_mqtt_core_t *s, bool online, uint16_t *packet_id)
{
    int n = emcp_mqtt_presence(s->b, online, s->presence, sizeof s->presence);
    if (n < 0) {
        return MQTTBadParameter;
    }
    MQTTPropBuilder_t pb;
    MQTTStatus_t st = json_props(&pb, s->props, sizeof s->props, NULL, 0, &publish_type);
    MQTTPublishInfo_t info;
    memset(&info, 0, sizeof info);
    info.qos = MQTTQoS1;
    info.retain = true;
    info.pTopicName = emcp_mqtt_presence_topic(s->b);
    info.topicNameLength = strlen(info.pTopicName);
    info.pPayload = s->presence;
    info.payloadLength = (size_t)n;
    uint16_t id = MQTT_GetPacketId(&s->ctx);
    if (st == MQTTSuccess) {
        st = MQTT_Publish(&s->ctx, &info, id, &pb);
    }
    if (st != MQTTSuccess) {
        slog(s, "cannot publish presence: %s", MQTT_Status_strerror(st));
    } else if (packet_id != NULL) {
        *packet_id = id;
    }
    return st;
}

/* ---- Incoming packets (inside MQTT_ProcessLoop, on our task) ------------ */

static void on_publish(emcp_mqtt_core_t *s, const MQTTPublishInfo_t *pub, const MQTTPropBuilder_t *props)
{
    emcp_mqtt_message_t msg;
    memset(&msg, 0, sizeof msg);
    msg.topic.ptr = pub->pTopicName;
    msg.topic.len = pub->topicNameLength;
    msg.payload = pub->pPayload;
    msg.payload_len = pub->payloadLength;
    msg.retained = pub->retain;

    /* The spans point into coreMQTT's network buffer, valid during this callback. */
    if (props != NULL && props->pBuffer != NULL) {
        size_t at = 0;
        uint8_t type;
        while (MQTT_GetNextPropertyType(props, &at, &type) == MQTTSuccess) {
            const char *p = NULL;
            size_t len = 0;
            MQTTStatus_t st;
            if (type == MQTT_RESPONSE_TOPIC_ID) {
                st = MQTTPropGet_ResponseTopic(props, &at, &p, &len);
                msg.response_topic.ptr = p;
                msg.response_topic.len = len;
            } else if (type == MQTT_CORRELATION_DATA_ID) {
                static const char none[1] = {0};
                st = MQTTPropGet_CorrelationData(props, &at, &p, &len);
                msg.correlation.ptr = p != NULL ? p : none; /* present but empty */
                msg.correlation.len = len;
            } else if (type == MQTT_CONTENT_TYPE_ID) {
                st = MQTTPropGet_ContentType(props, &at, &p, &len);
                msg.content_type.ptr = p;
                msg.content_type.len = len;
            } else {
                st = MQTT_SkipNextProperty(props, &at);
            }
            if (st != MQTTSuccess) {
                break;
            }
        }
    }
    msg.principal = emcp_mqtt_principal(s->opt->username);
    msg.now_ms = now64(s);

    emcp_mqtt_reply_t reply;
    if (emcp_mqtt_handle(s->b, &msg, &reply) != 1) {
        return;
    }
    /* One JSON-RPC message per PUBLISH (several for a round of
     * server-to-client requests). */
    const uint8_t *one = NULL;
    size_t one_len = 0;
    size_t at = 0;
    while (emcp_mqtt_reply_next(&reply, &at, &one, &one_len) == 1) {
        MQTTPropBuilder_t pb;
        MQTTStatus_t st = json_props(&pb, s->props, sizeof s->props, reply.correlation,
                                     reply.correlation_len, &publish_type);
        if (st == MQTTSuccess && reply.response_topic != NULL) {
            st = MQTTPropAdd_ResponseTopic(&pb, reply.response_topic, strlen(reply.response_topic),
                                           &publish_type);
        }
        MQTTPublishInfo_t info;
        memset(&info, 0, sizeof info);
        info.qos = MQTTQoS1;
        info.retain = false;
        info.pTopicName = reply.topic;
        info.topicNameLength = strlen(reply.topic);
        info.pPayload = one;
        info.payloadLength = one_len;
        if (st == MQTTSuccess) {
            st = MQTT_Publish(&s->ctx, &info, MQTT_GetPacketId(&s->ctx), &pb);
        }
        if (st != MQTTSuccess) {
            slog(s, "cannot publish a reply to %s: %s", reply.topic, MQTT_Status_strerror(st));
        }
    }
}

static bool on_event(MQTTContext_t *ctx, MQTTPacketInfo_t *packet, MQTTDeserializedInfo_t *info,
                     MQTTSuccessFailReasonCode_t *reason, MQTTPropBuilder_t *send_props,
                     MQTTPropBuilder_t *get_props)
{
    (void)reason;
    (void)send_props;
    emcp_mqtt_core_t *s = (emcp_mqtt_core_t *)(void *)ctx; /* ctx is the first member */
    uint8_t type = packet->type & 0xF0u;
    if (type == MQTT_PACKET_TYPE_PUBLISH) {
        on_publish(s, info->pPublishInfo, get_props);
    } else if (type == MQTT_PACKET_TYPE_SUBACK && info->packetIdentifier == s->sub_id) {
        uint8_t *codes = NULL;
        size_t count = 0;
        MQTTStatus_t st = MQTT_GetSubAckStatusCodes(packet, &codes, &count);
        if (st != MQTTSuccess || count < 1 || codes[0] > EMCP_MQTT_QOS) {
            slog(s, "subscription to %s refused (reason %d)", emcp_mqtt_subscription(s->b),
                 (st != MQTTSuccess || count < 1) ? -1 : codes[0]);
        } else {
            slog(s, "subscribed to %s (QoS %d)", emcp_mqtt_subscription(s->b), codes[0]);
        }
    } else if (type == MQTT_PACKET_TYPE_PUBACK && s->offline_id != 0 &&
               info->packetIdentifier == s->offline_id) {
        s->offline_acked = true;
    }
    return true;
}

/* ---- Session -------------------------------------------------------------- */

/* A fresh coreMQTT context, CONNECT (clean start, the Will, our Maximum
 * Packet Size), SUBSCRIBE and presence. 0 when connected. */
static int session_start(emcp_mqtt_core_t *s, const emcp_mqtt_core_net_t *net)
{
    TransportInterface_t transport;
    memset(&transport, 0, sizeof transport);
    if (net->connect(net->user, &transport) != 0) {
        return -1;
    }
    MQTTFixedBuffer_t buf = {.pBuffer = s->netbuf, .size = sizeof s->netbuf};
    MQTTStatus_t st = MQTT_Init(&s->ctx, &transport, s->opt->now_ms, on_event, &buf);
    if (st == MQTTSuccess) {
        st = MQTT_InitStatefulQoS(&s->ctx, s->outgoing, EMCP_MQTT_CORE_INFLIGHT, s->incoming,
                                  EMCP_MQTT_CORE_INCOMING, s->ack_props, sizeof s->ack_props);
    }

    MQTTConnectInfo_t ci;
    memset(&ci, 0, sizeof ci);
    ci.cleanSession = true;
    ci.keepAliveSeconds = (uint16_t)(s->opt->keepalive_s ? s->opt->keepalive_s : EMCP_MQTT_CORE_KEEPALIVE_S);
    ci.pClientIdentifier = s->opt->client_id;
    ci.clientIdentifierLength = strlen(s->opt->client_id);
    if (s->opt->username != NULL) {
        ci.pUserName = s->opt->username;
        ci.userNameLength = strlen(s->opt->username);
    }
    if (s->opt->password != NULL) {
        ci.pPassword = s->opt->password;
        ci.passwordLength = strlen(s->opt->password);
    }

    /* The Will: retained offline presence, published by the broker when we
     * vanish without a DISCONNECT (crash, power loss, network cut). */
    int n = emcp_mqtt_presence(s->b, false, s->will, sizeof s->will);
    MQTTPublishInfo_t will;
    memset(&will, 0, sizeof will);
    will.qos = MQTTQoS1;
    will.retain = true;
    will.pTopicName = emcp_mqtt_presence_topic(s->b);
    will.topicNameLength = strlen(will.pTopicName);
    will.pPayload = s->will;
    will.payloadLength = n > 0 ? (size_t)n : 0;
    MQTTPropBuilder_t will_pb;
    if (st == MQTTSuccess) {
        st = MQTTPropertyBuilder_Init(&will_pb, s->will_props, sizeof s->will_props);
    }
    if (st == MQTTSuccess) {
        st = MQTTPropAdd_ContentType(&will_pb, EMCP_MQTT_CONTENT_TYPE, sizeof EMCP_MQTT_CONTENT_TYPE - 1, NULL);
    }
    MQTTPropBuilder_t connect_pb;
    if (st == MQTTSuccess) {
        st = MQTTPropertyBuilder_Init(&connect_pb, s->connect_props, sizeof s->connect_props);
    }
    if (st == MQTTSuccess) {
        st = MQTTPropAdd_MaxPacketSize(&connect_pb, EMCP_MQTT_CORE_PACKET_MAX, &connect_type);
    }
    bool session_present = false;
    if (st == MQTTSuccess && n > 0) {
        st = MQTT_Connect(&s->ctx, &ci, &will, EMCP_MQTT_CORE_CONNACK_MS, &session_present, &connect_pb,
                          &will_pb);
    }
    if (st != MQTTSuccess) {
        if (st == MQTTServerRefused) {
            slog(s, "broker refused the connection (CONNACK reason code >= 0x80)");
        }
        net->disconnect(net->user);
        return -1;
    }
    s->connected = true;
    emcp_mqtt_backoff_reset(&s->backoff);
    slog(s, "%s to %s as client id %s", s->was_connected ? "reconnected" : "connected",
         s->opt->broker != NULL ? s->opt->broker : "the broker", s->opt->client_id);
    s->was_connected = true;

    /* Clean start: the broker forgot our subscription, so subscribe again.
     * No Local stays off: a shared subscription cannot use it. */
    MQTTSubscribeInfo_t sub;
    memset(&sub, 0, sizeof sub);
    sub.qos = MQTTQoS1;
    sub.pTopicFilter = emcp_mqtt_subscription(s->b);
    sub.topicFilterLength = strlen(sub.pTopicFilter);
    sub.retainHandlingOption = retainSendOnSub;
    s->sub_id = MQTT_GetPacketId(&s->ctx);
    st = MQTT_Subscribe(&s->ctx, &sub, 1, s->sub_id, NULL);
    if (st != MQTTSuccess) {
        slog(s, "cannot subscribe to %s: %s", sub.pTopicFilter, MQTT_Status_strerror(st));
    }
    publish_presence(s, true, NULL);
    return 0;
}

/* Publishes offline presence, waits for its PUBACK, then DISCONNECTs (which
 * discards the Will: we said goodbye ourselves). */
static void session_stop(emcp_mqtt_core_t *s, const emcp_mqtt_core_net_t *net)
{
    if (!s->connected) {
        return;
    }
    s->offline_id = 0;
    s->offline_acked = false;
    if (publish_presence(s, false, &s->offline_id) == MQTTSuccess) {
        uint32_t start = s->opt->now_ms();
        while (!s->offline_acked && (uint32_t)(s->opt->now_ms() - start) < EMCP_MQTT_CORE_SHUTDOWN_MS) {
            MQTTStatus_t st = MQTT_ProcessLoop(&s->ctx);
            if (st != MQTTSuccess && st != MQTTNoDataAvailable && st != MQTTNeedMoreBytes) {
                break;
            }
        }
    }
    MQTTSuccessFailReasonCode_t normal = MQTT_REASON_DISCONNECT_NORMAL_DISCONNECTION;
    (void)MQTT_Disconnect(&s->ctx, NULL, &normal);
    net->disconnect(net->user);
    s->connected = false;
}

int emcp_mqtt_core_run(emcp_mqtt_core_t *s, emcp_mqtt_t *binding, const emcp_mqtt_core_options_t *opt,
                       const emcp_mqtt_core_net_t *net)
{
    if (s == NULL || binding == NULL || opt == NULL || net == NULL || net->connect == NULL ||
        net->disconnect == NULL || opt->client_id == NULL || opt->client_id[0] == '\0' ||
        opt->now_ms == NULL || opt->sleep_ms == NULL || opt->keepalive_s > 65535) {
        return -MCP_EINVAL;
    }
    memset(s, 0, sizeof *s);
    s->b = binding;
    s->opt = opt;
    s->clock_last = opt->now_ms();
    uint32_t seed = 2463534242u ^ s->clock_last;
    for (const char *p = opt->client_id; *p != '\0'; p++) {
        seed = seed * 31u + (uint8_t)*p;
    }
    emcp_mqtt_backoff_init(&s->backoff, opt->backoff_min_ms, opt->backoff_max_ms, seed);
    bool reported_down = false;

    while (!stopping(s)) {
        if (!s->connected) {
            if (session_start(s, net) != 0) {
                if (!reported_down) {
                    slog(s, "cannot reach %s; retrying with backoff",
                         opt->broker != NULL ? opt->broker : "the broker");
                    reported_down = true;
                }
                nap(s, emcp_mqtt_backoff_next(&s->backoff));
                continue;
            }
            reported_down = false;
        }
        MQTTStatus_t st = MQTT_ProcessLoop(&s->ctx);
        if (st != MQTTSuccess && st != MQTTNoDataAvailable && st != MQTTNeedMoreBytes) {
            /* Connection lost, or no PINGRESP: back off, then reconnect. */
            slog(s, "connection lost (%s); reconnecting", MQTT_Status_strerror(st));
            net->disconnect(net->user);
            s->connected = false;
            nap(s, emcp_mqtt_backoff_next(&s->backoff));
        }
    }

    session_stop(s, net);
    emcp_mqtt_stats_t st = emcp_mqtt_stats(binding);
    slog(s, "stopped: %lu executed, %lu replayed, %lu refused, %lu dropped, %lu evicted",
         (unsigned long)st.executed, (unsigned long)st.replayed, (unsigned long)st.refused,
         (unsigned long)st.dropped, (unsigned long)st.evicted);
    return 0;
}
