/*
 * CONFIG_GREENHOUSE_COAP_SELFTEST: a libcoap client thread that POSTs MCP
 * requests to the image's own CoAP binding (coap://<own address>/mcp, over
 * Zephyr's UDP stack and network interface) and prints every response as
 *   coap-selftest: <label> <code> <payload>
 * (the payload in lines "coap-selftest: <label> + <up to SELFTEST_CHUNK
 * bytes>" after the first, then "coap-selftest: <label> udp <n>", the UDP
 * datagrams Zephyr's stack received during the exchange), followed by
 * "coap-selftest: done". It checks nothing itself:
 * tests/rtos/zephyr_coap_check.py parses and checks the lines.
 */
#include <string.h>

#include <zephyr/kernel.h>
#include <zephyr/net/net_ip.h>
#include <zephyr/net/net_mgmt.h>
#include <zephyr/net/net_stats.h>
#include <zephyr/sys/printk.h>

#include <coap3/coap.h>

#include "coap_selftest.h"

/* Largest response payload kept for printing (tools/list is about 2 KB). */
#define SELFTEST_BODY_MAX 8192
/* Payload bytes per printed line (native_sim's console breaks longer lines). */
#define SELFTEST_CHUNK 160
/* One coap_io_process() wait, ms. */
#define SELFTEST_POLL_MS 100
#define SELFTEST_STACK_SIZE 8192
#define SELFTEST_PRIORITY 8
#define SELFTEST_START_DELAY_MS 500
/* The last exchange goes block-wise in both directions (RFC 7959): its
 * session's MTU is SELFTEST_SMALL_MTU bytes, so libcoap sends the request in
 * Block1 blocks, and the request asks for Block2 blocks of 2^(4 + SZX) =
 * 64 bytes. */
#define SELFTEST_SMALL_MTU 128
#define SELFTEST_SMALL_BLOCK 64
#define SELFTEST_SMALL_SZX 2

#define ENVELOPE                                                                                   \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                      \
    "\"io.modelcontextprotocol/clientCapabilities\":{},"                                          \
    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"zephyr-coap-selftest\",\"version\":\"1\"}}"

static const struct {
    const char *label;
    const char *json;
} requests[] = {
    {"discover", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" ENVELOPE "}}"},
    {"tools_list", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}"},
    {"read_sensor", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" ENVELOPE
                    ",\"name\":\"read_sensor\",\"arguments\":{\"sensor_id\":\"rh1\"}}}"},
    {"set_vent_120", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" ENVELOPE
                     ",\"name\":\"set_vent\",\"arguments\":{\"percent\":120}}}"},
    {"set_vent_30", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{" ENVELOPE
                    ",\"name\":\"set_vent\",\"arguments\":{\"percent\":30}}}"},
    /* Sent last, block-wise in both directions (SELFTEST_SMALL_MTU). */
    {"tools_list_64", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}"},
};

static uint8_t body[SELFTEST_BODY_MAX + 1];
static size_t body_len;
static bool body_truncated;
static coap_pdu_code_t code;
static volatile int outcome; /* 0 waiting, 1 response, -1 no response */

static coap_response_t on_response(coap_session_t *session, const coap_pdu_t *sent,
                                   const coap_pdu_t *received, const coap_mid_t mid)
{
    ARG_UNUSED(session);
    ARG_UNUSED(sent);
    ARG_UNUSED(mid);
    size_t len = 0, offset = 0, total = 0;
    const uint8_t *data = NULL;
    code = coap_pdu_get_code(received);
    body_len = 0;
    body_truncated = false;
    if (coap_get_data_large(received, &len, &data, &offset, &total) && data != NULL) {
        body_truncated = len > SELFTEST_BODY_MAX;
        body_len = body_truncated ? SELFTEST_BODY_MAX : len;
        memcpy(body, data, body_len);
    }
    body[body_len] = '\0';
    outcome = 1;
    return COAP_RESPONSE_OK;
}

static void on_nack(coap_session_t *session, const coap_pdu_t *sent, const coap_nack_reason_t reason,
                    const coap_mid_t mid)
{
    ARG_UNUSED(session);
    ARG_UNUSED(sent);
    ARG_UNUSED(mid);
    printk("coap-selftest: nack reason %d\n", (int)reason);
    outcome = -1;
}

/* UDP datagrams Zephyr's stack has received so far (all interfaces). */
static uint32_t udp_received(void)
{
    struct net_stats_udp udp;
    memset(&udp, 0, sizeof udp);
    if (net_mgmt(NET_REQUEST_STATS_GET_UDP, NULL, &udp, sizeof udp) != 0) {
        return 0;
    }
    return (uint32_t)udp.recv;
}

/* POSTs @p json to mcp and waits for the (reassembled) response; with
 * @p small_blocks the request asks for SELFTEST_SMALL_BLOCK-byte Block2. */
static int post(coap_context_t *ctx, coap_session_t *session, const char *json, bool small_blocks)
{
    coap_pdu_t *pdu = coap_pdu_init(COAP_MESSAGE_CON, COAP_REQUEST_CODE_POST,
                                    coap_new_message_id(session), coap_session_max_pdu_size(session));
    if (pdu == NULL) {
        return -1;
    }
    uint8_t token[8];
    size_t token_len = 0;
    coap_session_new_token(session, &token_len, token);
    coap_add_token(pdu, token_len, token);
    coap_add_option(pdu, COAP_OPTION_URI_PATH, 3, (const uint8_t *)"mcp");
    uint8_t cf[4];
    coap_add_option(pdu, COAP_OPTION_CONTENT_FORMAT,
                    coap_encode_var_safe(cf, sizeof cf, COAP_MEDIATYPE_APPLICATION_JSON), cf);
    if (small_blocks) {
        uint8_t b2[4]; /* block 0, more 0, SZX */
        coap_add_option(pdu, COAP_OPTION_BLOCK2,
                        coap_encode_var_safe(b2, sizeof b2, SELFTEST_SMALL_SZX), b2);
    }
    if (!coap_add_data_large_request(session, pdu, strlen(json), (const uint8_t *)json, NULL, NULL)) {
        return -1;
    }
    outcome = 0;
    if (coap_send(session, pdu) == COAP_INVALID_MID) {
        return -1;
    }
    int64_t deadline = k_uptime_get() + CONFIG_GREENHOUSE_COAP_SELFTEST_TIMEOUT_MS;
    while (outcome == 0 && k_uptime_get() < deadline) {
        coap_io_process(ctx, SELFTEST_POLL_MS);
    }
    return outcome == 1 ? 0 : -1;
}

/* A libcoap client context and session to @p dst; @p mtu 0 leaves libcoap's
 * default. *session stays NULL on failure. */
static coap_context_t *new_client(const coap_address_t *dst, unsigned mtu, coap_session_t **session)
{
    coap_context_t *ctx = coap_new_context(NULL);
    if (ctx == NULL) {
        return NULL;
    }
    /* Before the session: it copies the block mode when it is created. */
    coap_context_set_block_mode(ctx, COAP_BLOCK_USE_LIBCOAP | COAP_BLOCK_SINGLE_BODY);
    if (mtu != 0) {
        coap_context_set_max_block_size(ctx, SELFTEST_SMALL_BLOCK);
    }
    coap_register_response_handler(ctx, on_response);
    coap_register_nack_handler(ctx, on_nack);
#ifdef CONFIG_EMCP_COAP_PSK_IDENTITY
    if (sizeof(CONFIG_EMCP_COAP_PSK_IDENTITY) > 1) {
        /* coaps://: the binding's own pre-shared key (DTLS 1.2). */
        static coap_dtls_cpsk_t psk;
        memset(&psk, 0, sizeof psk);
        psk.version = COAP_DTLS_CPSK_SETUP_VERSION;
        psk.psk_info.identity.s = (const uint8_t *)CONFIG_EMCP_COAP_PSK_IDENTITY;
        psk.psk_info.identity.length = sizeof(CONFIG_EMCP_COAP_PSK_IDENTITY) - 1;
        psk.psk_info.key.s = (const uint8_t *)CONFIG_EMCP_COAP_PSK_KEY;
        psk.psk_info.key.length = sizeof(CONFIG_EMCP_COAP_PSK_KEY) - 1;
        *session = coap_new_client_session_psk2(ctx, NULL, dst, COAP_PROTO_DTLS, &psk);
    } else
#endif
    {
        *session = coap_new_client_session(ctx, NULL, dst, COAP_PROTO_UDP);
    }
    if (*session == NULL) {
        coap_free_context(ctx);
        return NULL;
    }
    if (mtu != 0) {
        coap_session_set_mtu(*session, mtu);
    }
    return ctx;
}

static void run(void *a, void *b, void *c)
{
    ARG_UNUSED(a);
    ARG_UNUSED(b);
    ARG_UNUSED(c);
    k_msleep(SELFTEST_START_DELAY_MS);

    coap_address_t dst;
    coap_address_init(&dst);
    dst.addr.sin.sin_family = AF_INET;
    if (net_addr_pton(AF_INET, CONFIG_NET_CONFIG_MY_IPV4_ADDR, &dst.addr.sin.sin_addr) != 0) {
        printk("coap-selftest: bad address\n");
        return;
    }
    dst.size = sizeof(dst.addr.sin);
    coap_address_set_port(&dst, CONFIG_EMCP_COAP_PORT);

    coap_session_t *session = NULL;
    coap_context_t *ctx = new_client(&dst, 0, &session);
    if (session == NULL) {
        printk("coap-selftest: no libcoap client session\n");
        return;
    }

    for (size_t i = 0; i < ARRAY_SIZE(requests); i++) {
        if (i == ARRAY_SIZE(requests) - 1) {
            /* A new client context whose blocks are SELFTEST_SMALL_BLOCK bytes. */
            coap_session_release(session);
            coap_free_context(ctx);
            session = NULL;
            ctx = new_client(&dst, SELFTEST_SMALL_MTU, &session);
            if (session == NULL) {
                printk("coap-selftest: no libcoap client session\n");
                return;
            }
        }
        bool small = i == ARRAY_SIZE(requests) - 1;
        uint32_t udp_before = udp_received();
        if (post(ctx, session, requests[i].json, small) != 0) {
            printk("coap-selftest: %s no-response\n", requests[i].label);
            continue;
        }
        printk("coap-selftest: %s %u.%02u%s\n", requests[i].label, (unsigned)(code >> 5),
               (unsigned)(code & 31u), body_truncated ? " truncated" : "");
        for (size_t at = 0; at < body_len; at += SELFTEST_CHUNK) {
            size_t n = MIN(SELFTEST_CHUNK, body_len - at);
            printk("coap-selftest: %s + %.*s\n", requests[i].label, (int)n, (const char *)body + at);
        }
        /* Datagrams of this exchange, both directions (the loopback delivers
         * the client's and the server's). */
        printk("coap-selftest: %s udp %u\n", requests[i].label, udp_received() - udp_before);
    }
    coap_session_release(session);
    coap_free_context(ctx);
    printk("coap-selftest: done\n");
}

K_THREAD_STACK_DEFINE(selftest_stack, SELFTEST_STACK_SIZE);
static struct k_thread selftest_thread;

void coap_selftest_start(void)
{
    k_thread_create(&selftest_thread, selftest_stack, K_THREAD_STACK_SIZEOF(selftest_stack), run, NULL,
                    NULL, NULL, SELFTEST_PRIORITY, 0, K_NO_WAIT);
    k_thread_name_set(&selftest_thread, "coap_selftest");
}
