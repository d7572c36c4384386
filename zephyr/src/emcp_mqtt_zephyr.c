/*
 * MCP over MQTT 5 on Zephyr's MQTT library: the portable part
 * (bindings/mqtt/emcp_mqtt.c) behind Zephyr's mqtt_client, with the
 * Response Topic, Correlation Data and Content Type of
 * mqtt_publish_param.prop (CONFIG_MQTT_VERSION_5_0).
 *
 * NOT BUILT HERE: written against the current upstream
 * include/zephyr/net/mqtt.h (MQTT 5 properties); Zephyr 3.4.99, the tree this
 * project builds with, has MQTT 3.1.1 only, and CONFIG_EMCP_MQTT depends on
 * CONFIG_MQTT_VERSION_5_0 so it cannot be selected there. docs/zephyr.md.
 *
 * Behaviour of the libmosquitto and coreMQTT shims, kept thin: clean start,
 * QoS 1 subscription to the request filter, retained presence and a retained
 * offline Will, replies at QoS 1 with Correlation Data echoed and Content
 * Type application/json, reconnect with backoff; one thread.
 */
#include "emcp_zephyr.h"

#include <errno.h>
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/net/mqtt.h>
#include <zephyr/net/socket.h>
#include <zephyr/random/random.h>

#include "emcp_mqtt.h"

LOG_MODULE_DECLARE(emcp, CONFIG_EMCP_LOG_LEVEL);

/* Zephyr's buffers hold a packet's header and properties; payloads are read
 * into request_buf, replies are encoded into tx_buf. */
#define EMCP_MQTT_ZEPHYR_RX_MAX (EMCP_MQTT_TOPIC_MAX * 2 + EMCP_MQTT_CORRELATION_MAX + 128)
#define EMCP_MQTT_ZEPHYR_TX_MAX (EMCP_MQTT_RESPONSE_MAX + EMCP_MQTT_TOPIC_MAX + EMCP_MQTT_CORRELATION_MAX + 128)

static emcp_mqtt_t binding;
static struct mqtt_client client;
static struct sockaddr_storage broker;
static uint8_t rx_buf[EMCP_MQTT_ZEPHYR_RX_MAX];
static uint8_t tx_buf[EMCP_MQTT_ZEPHYR_TX_MAX];
static uint8_t request_buf[EMCP_MQTT_PAYLOAD_MAX];
static char presence[EMCP_MQTT_PRESENCE_MAX];
static char will[EMCP_MQTT_PRESENCE_MAX];
static struct mqtt_topic will_topic;
static struct mqtt_utf8 will_message;
static bool connected;
static bool running;
static const char content_type[] = EMCP_MQTT_CONTENT_TYPE;

K_THREAD_STACK_DEFINE(mqtt_stack, CONFIG_EMCP_THREAD_STACK_SIZE);
static struct k_thread mqtt_thread;

static void set_json_props(struct mqtt_publish_param *p)
{
    p->prop.content_type.utf8 = (const uint8_t *)content_type;
    p->prop.content_type.size = sizeof content_type - 1;
    p->prop.payload_format_indicator = 1;
}

static void publish_presence(bool online)
{
    int n = emcp_mqtt_presence(&binding, online, presence, sizeof presence);
    if (n < 0) {
        return;
    }
    struct mqtt_publish_param p;
    memset(&p, 0, sizeof p);
    p.message.topic.topic.utf8 = (const uint8_t *)emcp_mqtt_presence_topic(&binding);
    p.message.topic.topic.size = strlen(emcp_mqtt_presence_topic(&binding));
    p.message.topic.qos = MQTT_QOS_1_AT_LEAST_ONCE;
    p.message.payload.data = (uint8_t *)presence;
    p.message.payload.len = (uint32_t)n;
    p.message_id = sys_rand16_get() | 1u;
    p.retain_flag = 1;
    set_json_props(&p);
    int rc = mqtt_publish(&client, &p);
    if (rc != 0) {
        LOG_WRN("cannot publish presence: %d", rc);
    }
}

static void subscribe(void)
{
    struct mqtt_topic t = {
        .topic = {.utf8 = (const uint8_t *)emcp_mqtt_subscription(&binding),
                  .size = strlen(emcp_mqtt_subscription(&binding))},
        .qos = MQTT_QOS_1_AT_LEAST_ONCE,
    };
    struct mqtt_subscription_list list = {.list = &t, .list_count = 1, .message_id = sys_rand16_get() | 1u};
    int rc = mqtt_subscribe(&client, &list);
    if (rc != 0) {
        LOG_ERR("cannot subscribe to %s: %d", emcp_mqtt_subscription(&binding), rc);
    }
}

static void on_publish(struct mqtt_client *c, const struct mqtt_publish_param *in)
{
    /* The payload follows the header on the socket: read what fits, drain the
     * rest. A payload beyond EMCP_MQTT_PAYLOAD_MAX is refused by its length
     * alone (emcp_mqtt_handle() reads no byte of it). */
    uint32_t len = in->message.payload.len;
    uint32_t keep = len < sizeof request_buf ? len : (uint32_t)sizeof request_buf;
    if (mqtt_readall_publish_payload(c, request_buf, keep) != 0) {
        return;
    }
    for (uint32_t left = len - keep; left > 0;) {
        static uint8_t sink[64];
        uint32_t n = left < sizeof sink ? left : (uint32_t)sizeof sink;
        if (mqtt_readall_publish_payload(c, sink, n) != 0) {
            return;
        }
        left -= n;
    }
    if (in->message.topic.qos == MQTT_QOS_1_AT_LEAST_ONCE) {
        struct mqtt_puback_param ack = {.message_id = in->message_id};
        (void)mqtt_publish_qos1_ack(c, &ack);
    }

    emcp_mqtt_message_t msg;
    memset(&msg, 0, sizeof msg);
    msg.topic.ptr = (const char *)in->message.topic.topic.utf8;
    msg.topic.len = in->message.topic.topic.size;
    msg.payload = request_buf;
    msg.payload_len = len;
    msg.retained = in->retain_flag;
    if (in->prop.rx.has_response_topic) {
        msg.response_topic.ptr = (const char *)in->prop.response_topic.utf8;
        msg.response_topic.len = in->prop.response_topic.size;
    }
    if (in->prop.rx.has_correlation_data) {
        static const char none[1] = {0};
        msg.correlation.ptr = in->prop.correlation_data.data != NULL
                                  ? (const char *)in->prop.correlation_data.data
                                  : none;
        msg.correlation.len = in->prop.correlation_data.len;
    }
    if (in->prop.rx.has_content_type) {
        msg.content_type.ptr = (const char *)in->prop.content_type.utf8;
        msg.content_type.len = in->prop.content_type.size;
    }
    msg.principal = emcp_mqtt_principal(CONFIG_EMCP_MQTT_USERNAME);
    msg.now_ms = emcp_zephyr_now_ms();

    emcp_mqtt_reply_t reply;
    if (emcp_mqtt_handle(&binding, &msg, &reply) != 1) {
        return;
    }
    struct mqtt_publish_param out;
    memset(&out, 0, sizeof out);
    out.message.topic.topic.utf8 = (const uint8_t *)reply.topic;
    out.message.topic.topic.size = strlen(reply.topic);
    out.message.topic.qos = MQTT_QOS_1_AT_LEAST_ONCE;
    out.message.payload.data = (uint8_t *)reply.payload;
    out.message.payload.len = (uint32_t)reply.payload_len;
    out.message_id = sys_rand16_get() | 1u;
    set_json_props(&out);
    if (reply.correlation != NULL) {
        out.prop.correlation_data.data = (uint8_t *)reply.correlation;
        out.prop.correlation_data.len = (uint32_t)reply.correlation_len;
    }
    int rc = mqtt_publish(c, &out);
    if (rc != 0) {
        LOG_WRN("cannot publish a reply to %s: %d", reply.topic, rc);
    }
}

static void on_event(struct mqtt_client *c, const struct mqtt_evt *evt)
{
    switch (evt->type) {
    case MQTT_EVT_CONNACK:
        if (evt->result != 0) {
            LOG_WRN("broker refused the connection: %d", evt->result);
            break;
        }
        connected = true;
        LOG_INF("connected as client id %s", CONFIG_EMCP_MQTT_CLIENT_ID);
        subscribe(); /* clean start: the broker forgot our subscription */
        publish_presence(true);
        break;
    case MQTT_EVT_SUBACK:
        LOG_INF("subscribed to %s", emcp_mqtt_subscription(&binding));
        break;
    case MQTT_EVT_PUBLISH:
        if (evt->result == 0) {
            on_publish(c, &evt->param.publish);
        }
        break;
    case MQTT_EVT_DISCONNECT:
        connected = false;
        break;
    default:
        break;
    }
}

static int session_start(void)
{
    mqtt_client_init(&client);
    struct sockaddr_in *b4 = (struct sockaddr_in *)&broker;
    b4->sin_family = AF_INET;
    b4->sin_port = htons(CONFIG_EMCP_MQTT_BROKER_PORT);
    if (zsock_inet_pton(AF_INET, CONFIG_EMCP_MQTT_BROKER_ADDR, &b4->sin_addr) != 1) {
        return -EINVAL;
    }
    static struct mqtt_utf8 user, pass;
    user = (struct mqtt_utf8){(const uint8_t *)CONFIG_EMCP_MQTT_USERNAME, sizeof CONFIG_EMCP_MQTT_USERNAME - 1};
    pass = (struct mqtt_utf8){(const uint8_t *)CONFIG_EMCP_MQTT_PASSWORD, sizeof CONFIG_EMCP_MQTT_PASSWORD - 1};
    client.broker = &broker;
    client.evt_cb = on_event;
    client.client_id.utf8 = (const uint8_t *)CONFIG_EMCP_MQTT_CLIENT_ID;
    client.client_id.size = sizeof CONFIG_EMCP_MQTT_CLIENT_ID - 1;
    client.user_name = user.size > 0 ? &user : NULL;
    client.password = pass.size > 0 ? &pass : NULL;
    client.protocol_version = MQTT_VERSION_5_0;
    client.clean_session = 1;
    client.keepalive = CONFIG_EMCP_MQTT_KEEPALIVE_S;
    client.prop.maximum_packet_size = EMCP_MQTT_PAYLOAD_MAX + EMCP_MQTT_ZEPHYR_RX_MAX;
    client.rx_buf = rx_buf;
    client.rx_buf_size = sizeof rx_buf;
    client.tx_buf = tx_buf;
    client.tx_buf_size = sizeof tx_buf;
    client.transport.type = MQTT_TRANSPORT_NON_SECURE;

    /* The Will: retained offline presence, published by the broker when we
     * vanish without a DISCONNECT. */
    int n = emcp_mqtt_presence(&binding, false, will, sizeof will);
    if (n < 0) {
        return n;
    }
    will_topic.topic.utf8 = (const uint8_t *)emcp_mqtt_presence_topic(&binding);
    will_topic.topic.size = strlen(emcp_mqtt_presence_topic(&binding));
    will_topic.qos = MQTT_QOS_1_AT_LEAST_ONCE;
    will_message.utf8 = (const uint8_t *)will;
    will_message.size = (uint32_t)n;
    client.will_topic = &will_topic;
    client.will_message = &will_message;
    client.will_retain = 1;
    client.will_prop.content_type.utf8 = (const uint8_t *)content_type;
    client.will_prop.content_type.size = sizeof content_type - 1;
    return mqtt_connect(&client);
}

static void serve(void *a, void *b, void *c)
{
    ARG_UNUSED(a);
    ARG_UNUSED(b);
    ARG_UNUSED(c);
    emcp_mqtt_backoff_t backoff; /* the portable part's, shared with the other shims */
    emcp_mqtt_backoff_init(&backoff, 0, 0, sys_rand32_get());
    for (;;) {
        connected = false;
        if (session_start() != 0) {
            k_msleep(emcp_mqtt_backoff_next(&backoff));
            continue;
        }
        struct zsock_pollfd pfd = {.fd = client.transport.tcp.sock, .events = ZSOCK_POLLIN};
        for (;;) {
            int wait = mqtt_keepalive_time_left(&client);
            if (zsock_poll(&pfd, 1, wait) < 0 || (pfd.revents & (ZSOCK_POLLERR | ZSOCK_POLLHUP)) != 0) {
                break;
            }
            if ((pfd.revents & ZSOCK_POLLIN) != 0 && mqtt_input(&client) != 0) {
                break;
            }
            int lrc = mqtt_live(&client); /* PINGREQ when due */
            if (lrc != 0 && lrc != -EAGAIN) {
                break;
            }
            if (connected) {
                emcp_mqtt_backoff_reset(&backoff);
            }
        }
        LOG_WRN("connection lost; reconnecting");
        (void)mqtt_abort(&client);
        k_msleep(emcp_mqtt_backoff_next(&backoff));
    }
}

int emcp_mqtt_start(mcp_server_t *server)
{
    if (server == NULL || running) {
        return -MCP_EINVAL;
    }
    emcp_mqtt_config_t cfg = {
        .server_id = CONFIG_EMCP_MQTT_SERVER_ID,
        .instance_id = CONFIG_EMCP_MQTT_CLIENT_ID,
        .name = CONFIG_EMCP_MQTT_NAME,
        .version = CONFIG_EMCP_MQTT_VERSION,
        .log = emcp_zephyr_log_line,
    };
    int rc = emcp_mqtt_init(&binding, server, &cfg);
    if (rc != 0) {
        return rc;
    }
    running = true;
    k_thread_create(&mqtt_thread, mqtt_stack, K_THREAD_STACK_SIZEOF(mqtt_stack), serve, NULL, NULL, NULL,
                    CONFIG_EMCP_THREAD_PRIORITY, 0, K_NO_WAIT);
    k_thread_name_set(&mqtt_thread, "emcp_mqtt");
    return 0;
}
