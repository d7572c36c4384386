/*
 * MCP over CoAP on Zephyr: the portable libcoap binding
 * (bindings/coap/emcp_coap.c) on libcoap's own Zephyr module
 * (CONFIG_LIBCOAP, ZEPHYR_EXTRA_MODULES="<emcp>;<libcoap>"), driven by one
 * thread. Plain coap:// on CONFIG_EMCP_COAP_BIND_ADDR:CONFIG_EMCP_COAP_PORT
 * (requests carry no principal), or coaps:// with the pre-shared key of
 * CONFIG_EMCP_COAP_PSK_IDENTITY / _KEY (its identity is the principal). See
 * emcp_zephyr.h and docs/zephyr.md.
 */
#include "emcp_zephyr.h"

#include <stddef.h>
#include <string.h>

/* Zephyr's logging macros first: libcoap's coap_debug.h defines LOG_ERR and
 * friends as its own levels unless they exist already. */
#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>
#include <zephyr/net/net_ip.h>

#include "emcp_coap.h"
#ifdef CONFIG_MBEDTLS
#include <mbedtls/platform.h>
#endif

LOG_MODULE_DECLARE(emcp, CONFIG_EMCP_LOG_LEVEL);

/* One coap_io_process() waits at most this long, ms (libcoap's
 * retransmissions and session timeouts are handled between waits). */
#define EMCP_COAP_ZEPHYR_POLL_MS 200
/* Pause after a failed poll before the next one, ms. */
#define EMCP_COAP_ZEPHYR_RETRY_MS 200

static emcp_coap_t coap;
static bool running;

K_THREAD_STACK_DEFINE(coap_stack, CONFIG_EMCP_THREAD_STACK_SIZE);
static struct k_thread coap_thread;

static void serve(void *a, void *b, void *c)
{
    ARG_UNUSED(a);
    ARG_UNUSED(b);
    ARG_UNUSED(c);
    for (;;) {
        if (emcp_coap_poll(&coap, EMCP_COAP_ZEPHYR_POLL_MS) < 0) {
            LOG_ERR("emcp_coap_poll failed");
            k_msleep(EMCP_COAP_ZEPHYR_RETRY_MS);
        }
    }
}

int emcp_coap_start(mcp_server_t *server)
{
    if (server == NULL || running) {
        return -MCP_EINVAL;
    }
    static coap_address_t listen_addr;
    coap_address_init(&listen_addr);
    listen_addr.addr.sin.sin_family = AF_INET;
    if (net_addr_pton(AF_INET, CONFIG_EMCP_COAP_BIND_ADDR, &listen_addr.addr.sin.sin_addr) != 0) {
        LOG_ERR("CONFIG_EMCP_COAP_BIND_ADDR \"%s\" is not an IPv4 address",
                CONFIG_EMCP_COAP_BIND_ADDR);
        return -MCP_EINVAL;
    }
    listen_addr.size = sizeof(listen_addr.addr.sin);
    coap_address_set_port(&listen_addr, CONFIG_EMCP_COAP_PORT);

    coap_startup();
    coap_set_log_level(COAP_LOG_WARN);

    emcp_coap_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.listen = &listen_addr;
    cfg.clock_ms = emcp_zephyr_now_ms;
    cfg.log = emcp_zephyr_log_line;
    cfg.log_requests = IS_ENABLED(CONFIG_EMCP_COAP_LOG_REQUESTS);
#ifdef CONFIG_EMCP_COAP_PSK_IDENTITY
    static const emcp_coap_psk_t psk = {
        .identity = (const uint8_t *)CONFIG_EMCP_COAP_PSK_IDENTITY,
        .identity_len = sizeof(CONFIG_EMCP_COAP_PSK_IDENTITY) - 1,
        .key = (const uint8_t *)CONFIG_EMCP_COAP_PSK_KEY,
        .key_len = sizeof(CONFIG_EMCP_COAP_PSK_KEY) - 1,
    };
    if (psk.identity_len > 0) {
        if (psk.key_len == 0 || !coap_dtls_is_supported()) {
            LOG_ERR("CONFIG_EMCP_COAP_PSK_IDENTITY needs CONFIG_EMCP_COAP_PSK_KEY and libcoap with DTLS");
            coap_cleanup();
            return -MCP_EINVAL;
        }
        cfg.psks = &psk;
        cfg.psk_count = 1;
    }
#endif
    int rc = emcp_coap_open(&coap, server, &cfg);
    if (rc != 0) {
        LOG_ERR("emcp_coap_open(%s:%d): %d", CONFIG_EMCP_COAP_BIND_ADDR, CONFIG_EMCP_COAP_PORT, rc);
        coap_cleanup();
        return rc;
    }
    running = true;
    LOG_INF("MCP over CoAP on %s://%s:%d/" EMCP_COAP_RESOURCE, cfg.psk_count > 0 ? "coaps" : "coap",
            CONFIG_EMCP_COAP_BIND_ADDR, CONFIG_EMCP_COAP_PORT);
    k_thread_create(&coap_thread, coap_stack, K_THREAD_STACK_SIZEOF(coap_stack), serve, NULL, NULL,
                    NULL, CONFIG_EMCP_THREAD_PRIORITY, 0, K_NO_WAIT);
    k_thread_name_set(&coap_thread, "emcp_coap");
    return 0;
}

#ifdef CONFIG_MINIMAL_LIBC
/* libcoap's default PRNG (HAVE_RANDOM) on the minimal libc, which has no
 * random(): Zephyr's CSPRNG (emcp_libcoap_compat.h declares them). libcoap
 * draws its Message IDs, tokens and DTLS cookies from it. Weak, like
 * fflush() below, so a C library that has them keeps its own. */
#include <zephyr/random/rand32.h>

__weak long random(void)
{
    uint32_t v = 0;
    (void)sys_csrand_get(&v, sizeof v);
    return (long)(v & 0x7fffffffu);
}

__weak void srandom(unsigned int seed)
{
    ARG_UNUSED(seed); /* the CSPRNG needs no seed */
}

#ifdef CONFIG_MBEDTLS
/* String helpers libcoap's Mbed TLS backend calls (certificate names, CA file
 * names): it frees their results with mbedtls_free(), so they come from Mbed
 * TLS's allocator (its heap, CONFIG_MBEDTLS_HEAP_SIZE). */
__weak char *strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *copy = mbedtls_calloc(1, len + 1);
    if (copy != NULL) {
        memcpy(copy, s, len);
        copy[len] = '\0';
    }
    return copy;
}

__weak char *strdup(const char *s)
{
    return strndup(s, SIZE_MAX);
}

__weak int strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = (*a >= 'A' && *a <= 'Z') ? *a + ('a' - 'A') : *a;
        int cb = (*b >= 'A' && *b <= 'Z') ? *b + ('a' - 'A') : *b;
        if (ca != cb || ca == 0) {
            return ca - cb;
        }
    }
}
#endif

/* The minimal libc writes through printk at once: nothing to flush. */
__weak int fflush(FILE *stream)
{
    ARG_UNUSED(stream);
    return 0;
}
#endif

#ifdef EMCP_LIBCOAP_REALLOC
/* libcoap's allocator on Zephyr before 3.7, which has no k_realloc()
 * (zephyr/CMakeLists.txt): coap_mem.c allocates through this pair, which
 * records each block's size in front of it, so coap_realloc_type() can move
 * a block to a larger one. Memory still comes from the system heap
 * (CONFIG_HEAP_MEM_POOL_SIZE). */
#define EMCP_COAP_ALLOC_HEADER sizeof(max_align_t)

void *emcp_coap_k_malloc(size_t size);
void emcp_coap_k_free(void *ptr);

void *emcp_coap_k_malloc(size_t size)
{
    if (size > SIZE_MAX - EMCP_COAP_ALLOC_HEADER) {
        return NULL;
    }
    uint8_t *block = k_malloc(size + EMCP_COAP_ALLOC_HEADER);
    if (block == NULL) {
        return NULL;
    }
    memcpy(block, &size, sizeof size);
    return block + EMCP_COAP_ALLOC_HEADER;
}

void emcp_coap_k_free(void *ptr)
{
    if (ptr != NULL) {
        k_free((uint8_t *)ptr - EMCP_COAP_ALLOC_HEADER);
    }
}

void *coap_realloc_type(coap_memory_tag_t type, void *p, size_t size)
{
    ARG_UNUSED(type);
    if (p == NULL) {
        return emcp_coap_k_malloc(size);
    }
    size_t old;
    memcpy(&old, (uint8_t *)p - EMCP_COAP_ALLOC_HEADER, sizeof old);
    if (size <= old) {
        return p; /* the block is large enough already */
    }
    void *grown = emcp_coap_k_malloc(size);
    if (grown == NULL) {
        return NULL; /* p stays valid, as with realloc() */
    }
    memcpy(grown, p, old);
    emcp_coap_k_free(p);
    return grown;
}
#endif
