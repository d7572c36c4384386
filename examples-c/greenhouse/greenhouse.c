/*
 * The greenhouse gateway's tools on a simulated controller. A real gateway
 * would fill the readings from its sensor bus and drive the vent actuator;
 * here both are variables.
 */

#include "greenhouse.h"

#include "emcp_clock.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- Simulated controller ---------------------------------------------- */

struct sensor {
    const char *id;
    bool has_reading;
    double value;
    const char *unit;
};

/* The readings taken at startup; soil1 has not reported yet. */
static const struct sensor sensors[] = {
    {"t1", true, 21.5, "C"},
    {"t2", true, 34.1, "C"},
    {"rh1", true, 62.0, "%"},
    {"soil1", false, 0.0, NULL},
};

static _Atomic uint64_t readings_taken_ms; /* monotonic ms of the readings */
static atomic_bool wind_lock_on;
static atomic_int vent_percent;

/* The request's clock if the transport set one, else our own reading. */
static uint64_t call_now_ms(const mcp_call_t *call)
{
    const mcp_request_ctx_t *ctx = mcp_call_ctx(call);
    if (ctx != NULL && ctx->now_ms != 0) {
        return ctx->now_ms;
    }
    return emcp_monotonic_ms();
}

void greenhouse_set_wind_lock(bool on)
{
    atomic_store(&wind_lock_on, on);
}

int greenhouse_vent_percent(void)
{
    return atomic_load(&vent_percent);
}

/* ---- Result helpers ---------------------------------------------------- */

/* A tool execution error the model sees: isError, the message as text and
 * structuredContent {"ok":false}. */
static int result_refused(mcp_result_t *r, bool *is_error, const char *msg)
{
    *is_error = true;
    int rc = mcp_result_error(r, msg, strlen(msg));
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "ok");
    }
    if (rc == 0) {
        rc = mcp_json_bool(r, false);
    }
    if (rc == 0) {
        rc = mcp_result_structured_end(r);
    }
    return rc;
}

/* Appends a formatted text block. */
static int result_text(mcp_result_t *r, const char *text, int n, size_t cap)
{
    if (n < 0 || (size_t)n >= cap) {
        return -MCP_ENOBUFS;
    }
    return mcp_result_text(r, text, (size_t)n);
}

/* ---- Tools ------------------------------------------------------------- */

/* A tool body: writes the result and sets *is_error for an isError result.
 * Returns 0 or a negative MCP_E* value (the request then fails with -32603). */
typedef int (*tool_body_fn)(const mcp_call_t *call, mcp_result_t *r, bool *is_error);

static int read_sensor(const mcp_call_t *call, mcp_result_t *r, bool *is_error)
{
    /* Schema validation is not in the core yet: check the argument here. */
    char id[16];
    size_t id_len = 0;
    int rc = mcp_arg_string(call, "sensor_id", id, sizeof id, &id_len);
    if (rc == -MCP_ENOENT || rc == -MCP_EDOM || rc == -MCP_ENOBUFS) {
        return result_refused(r, is_error, "unknown sensor_id");
    }
    if (rc != 0) {
        return rc;
    }
    const struct sensor *s = NULL;
    if (strlen(id) == id_len) { /* no embedded NUL ("t1\u0000x") */
        for (size_t i = 0; i < sizeof sensors / sizeof sensors[0]; i++) {
            if (strcmp(sensors[i].id, id) == 0) {
                s = &sensors[i];
                break;
            }
        }
    }
    if (s == NULL) {
        return result_refused(r, is_error, "unknown sensor_id");
    }
    if (!s->has_reading) {
        return result_refused(r, is_error, "no reading yet");
    }

    uint64_t taken = atomic_load(&readings_taken_ms);
    uint64_t now = call_now_ms(call);
    int64_t age_s = now > taken ? (int64_t)((now - taken + 500u) / 1000u) : 0;

    char text[64];
    rc = result_text(r, text,
                     snprintf(text, sizeof text, "%g %s, %llds old", s->value, s->unit,
                              (long long)age_s),
                     sizeof text);
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "value");
    }
    if (rc == 0) {
        rc = mcp_json_number(r, s->value);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "unit");
    }
    if (rc == 0) {
        rc = mcp_json_string(r, s->unit, strlen(s->unit));
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "age_s");
    }
    if (rc == 0) {
        rc = mcp_json_int(r, age_s);
    }
    if (rc == 0) {
        rc = mcp_result_structured_end(r);
    }
    return rc;
}

static int set_vent(const mcp_call_t *call, mcp_result_t *r, bool *is_error)
{
    /* Schema validation is not in the core yet: check the argument here. */
    int64_t percent = -1;
    int rc = mcp_arg_int(call, "percent", &percent);
    if (rc == -MCP_ENOENT || rc == -MCP_EDOM || rc == -MCP_ERANGE ||
        (rc == 0 && (percent < 0 || percent > 100))) {
        return result_refused(r, is_error, "percent must be an integer 0-100");
    }
    if (rc != 0) {
        return rc;
    }
    if (percent > 0 && atomic_load(&wind_lock_on)) {
        return result_refused(r, is_error, "refused: wind lock active");
    }

    /* A real gateway commands the actuator here and waits for its ack. */
    atomic_store(&vent_percent, (int)percent);

    char text[32];
    rc = result_text(r, text, snprintf(text, sizeof text, "vent set to %d%%", (int)percent),
                     sizeof text);
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "ok");
    }
    if (rc == 0) {
        rc = mcp_json_bool(r, true);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "percent");
    }
    if (rc == 0) {
        rc = mcp_json_int(r, percent);
    }
    if (rc == 0) {
        rc = mcp_result_structured_end(r);
    }
    return rc;
}

/* ---- Registration and audit ------------------------------------------- */

struct greenhouse_tool {
    mcp_tool_t def;
    tool_body_fn body;
};

/* Registered in this order; a fixed order helps client and prompt caches. */
static const struct greenhouse_tool tools[] = {
    {{"read_sensor", NULL, "Latest reading of one sensor: value, unit, age_s.",
      "{\"type\":\"object\",\"required\":[\"sensor_id\"],\"properties\":{\"sensor_id\":"
      "{\"type\":\"string\",\"enum\":[\"t1\",\"t2\",\"rh1\",\"soil1\"]}}}",
      NULL, MCP_TOOL_READ_ONLY},
     read_sensor},
    {{"set_vent", NULL, "Open the roof vent to 0-100 percent. Refused while the wind lock is on.",
      "{\"type\":\"object\",\"required\":[\"percent\"],\"properties\":{\"percent\":"
      "{\"type\":\"integer\",\"minimum\":0,\"maximum\":100}}}",
      NULL, MCP_TOOL_IDEMPOTENT},
     set_vent},
};

/* The callback of every tool: runs its body, then writes the audit line. */
static int tool_audited(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    const struct greenhouse_tool *tool = user;
    bool is_error = false;
    int rc = tool->body(call, r, &is_error);

    char args[GREENHOUSE_AUDIT_ARGS_MAX];
    int n = mcp_call_arguments(call, args, sizeof args);
    const char *outcome = (rc < 0 || is_error) ? "error" : "ok";
    if (n >= 0) {
        fprintf(stderr, "audit: tool=%s args=%s outcome=%s\n", tool->def.name, args, outcome);
    } else if (n == -MCP_ENOBUFS) {
        fprintf(stderr, "audit: tool=%s args=(over %d bytes) outcome=%s\n", tool->def.name,
                GREENHOUSE_AUDIT_ARGS_MAX - 1, outcome);
    } else {
        fprintf(stderr, "audit: tool=%s args=(unavailable: %d) outcome=%s\n", tool->def.name, n,
                outcome);
    }
    return rc;
}

int greenhouse_register(mcp_server_t *server, bool wind_lock)
{
    static const mcp_server_config_t config = {
        .name = "greenhouse-gw",
        .version = "0.4.0",
        .title = "Greenhouse gateway",
        .instructions = NULL,
        .list_ttl_ms = 3600000u,
        .cache_scope = MCP_CACHE_PUBLIC,
    };

    atomic_store(&readings_taken_ms, emcp_monotonic_ms());
    atomic_store(&wind_lock_on, wind_lock);
    atomic_store(&vent_percent, 0);

    int rc = mcp_server_init(server, &config);
    if (rc != 0) {
        return rc;
    }
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        rc = mcp_server_add_tool(server, &tools[i].def, tool_audited, (void *)&tools[i]);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}
