/* CONFIG_GREENHOUSE_COAP_SELFTEST (coap_selftest.c). */
#ifndef GREENHOUSE_COAP_SELFTEST_H
#define GREENHOUSE_COAP_SELFTEST_H

/** Starts the thread that POSTs MCP requests to the image's CoAP binding. */
void coap_selftest_start(void);

#endif /* GREENHOUSE_COAP_SELFTEST_H */
