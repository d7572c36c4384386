/* emcp's Zephyr glue: limits check and clock (see emcp_zephyr.h). */
#include "emcp_zephyr.h"

#include <zephyr/kernel.h>
#include <zephyr/logging/log.h>

LOG_MODULE_REGISTER(emcp, CONFIG_EMCP_LOG_LEVEL);

#define EMCP_LIMIT(name) {#name, (size_t)(name)}

int emcp_zephyr_check_limits(void)
{
    static const struct {
        const char *name;
        size_t value;
    } limits[] = {
        EMCP_LIMIT(MCP_SERVER_SIZE),      EMCP_LIMIT(MCP_MAX_TOOLS),
        EMCP_LIMIT(MCP_MAX_JSON_TOKENS),  EMCP_LIMIT(MCP_MAX_DEPTH),
        EMCP_LIMIT(MCP_MAX_SCHEMA_TOKENS), EMCP_LIMIT(MCP_DEDUP_WORDS),
    };
    int rc = 0;
    for (size_t i = 0; i < ARRAY_SIZE(limits); i++) {
        size_t lib = mcp_build_limit(limits[i].name);
        if (lib != limits[i].value) {
            LOG_ERR("%s: emcp.h says %zu, the linked library %zu", limits[i].name,
                    limits[i].value, lib);
            rc = -MCP_EINVAL;
        }
    }
    return rc;
}

uint64_t emcp_zephyr_now_ms(void)
{
    return (uint64_t)k_uptime_get();
}

void emcp_zephyr_log_line(void *user, const char *line)
{
    ARG_UNUSED(user);
    LOG_INF("%s", line);
}

/* emcp_clock.h's clock for the portable bindings (emcp_http.c); weak, so an
 * application that defines it (the greenhouse sample) keeps its own. */
__weak uint64_t emcp_monotonic_ms(void)
{
    return emcp_zephyr_now_ms();
}
