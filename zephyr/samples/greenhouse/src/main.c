/*
 * The greenhouse gateway on Zephyr: registers the greenhouse tools
 * (examples-c/greenhouse/greenhouse.c) and starts the transport bindings
 * enabled in Kconfig (prj.conf: the console UART; overlay-http.conf: HTTP;
 * overlay-coap.conf: CoAP; overlay-https.conf: HTTPS, with the test
 * certificate the sample's CMake makes). Audit lines go to stderr
 * (the host's on native_sim).
 */
#include <zephyr/kernel.h>

#include "emcp.h"
#include "emcp_zephyr.h"
#include "greenhouse.h"
#ifdef CONFIG_GREENHOUSE_COAP_SELFTEST
#include "coap_selftest.h"
#endif

static mcp_server_t server;

#ifdef CONFIG_EMCP_HTTP_TLS
/* The throw-away certificate and key of the sample's CMake (DER). */
static const unsigned char server_cert[] = {
#include "emcp_server_cert.der.inc"
};
static const unsigned char server_key[] = {
#include "emcp_server_key.der.inc"
};
#endif

/* greenhouse.c's clock (emcp_clock.h on the host examples). */
uint64_t emcp_monotonic_ms(void)
{
    return emcp_zephyr_now_ms();
}

int main(void)
{
    if (emcp_zephyr_check_limits() != 0) {
        return 1;
    }
    int rc = greenhouse_register(&server, false);
    if (rc != 0) {
        return 1;
    }
#ifdef CONFIG_EMCP_CONSOLE
    rc = emcp_console_start(&server);
    if (rc != 0) {
        return 1;
    }
#endif
#ifdef CONFIG_EMCP_HTTP
#ifdef CONFIG_EMCP_HTTP_TLS
    if (emcp_http_set_credentials(server_cert, sizeof server_cert, server_key, sizeof server_key) != 0) {
        return 1;
    }
#endif
    rc = emcp_http_start(&server);
    if (rc != 0) {
        return 1;
    }
#endif
#ifdef CONFIG_EMCP_COAP
    rc = emcp_coap_start(&server);
    if (rc != 0) {
        return 1;
    }
#ifdef CONFIG_GREENHOUSE_COAP_SELFTEST
    coap_selftest_start();
#endif
#endif
#ifdef CONFIG_EMCP_MQTT
    rc = emcp_mqtt_start(&server);
    if (rc != 0) {
        return 1;
    }
#endif
    return 0;
}
