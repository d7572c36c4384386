/*
 * The body shared by the link tests: a C program that uses the library
 * through emcp.h (one server, one ping), so the library's objects, and the
 * Rust `core` objects whose unwind tables name rust_eh_personality, are
 * linked in. Exit status 0 when the server answered.
 */
#ifndef EMCP_LINK_MAIN_H
#define EMCP_LINK_MAIN_H

#include <stdio.h>
#include <string.h>

#include "emcp.h"

static mcp_server_t emcp_link_server;

static int emcp_link_main(const char *name)
{
    static const char ping[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
    uint8_t out[512];
    mcp_server_config_t config;
    memset(&config, 0, sizeof config);
    config.name = name;
    config.version = "1";
    if (mcp_server_init(&emcp_link_server, &config) != 0) {
        printf("%s: mcp_server_init failed\n", name);
        return 1;
    }
    int n = mcp_server_handle(&emcp_link_server, NULL, (const uint8_t *)ping, sizeof ping - 1, out,
                              sizeof out, NULL);
    if (n <= 0) {
        printf("%s: mcp_server_handle returned %d\n", name, n);
        return 1;
    }
    printf("%s: linked and answered %.*s\n", name, n, (const char *)out);
    return 0;
}

#endif
