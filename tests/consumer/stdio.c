/* consumer-stdio: emcp::stdio from a project that did add_subdirectory(emcp):
 * an MCP server without tools on stdin/stdout (run.cmake sends a ping). */
#include <stdio.h>

#include "emcp.h"
#include "emcp_stdio.h"

static mcp_server_t server;

int main(void)
{
    static const mcp_server_config_t config = {.name = "emcp-consumer", .version = "1"};
    if (mcp_server_init(&server, &config) != 0) {
        fprintf(stderr, "consumer-stdio: cannot set up the server\n");
        return 1;
    }
    return emcp_stdio_serve(&server, stdin, stdout, stderr) == 0 ? 0 : 1;
}
