/*
 * What the greenhouse offers besides its tools: the sensor map as a
 * resource, one resource per sensor through a template, and the vent
 * operating procedure as a prompt, with completion of its argument.
 */

#include "greenhouse.h"

#include <stdio.h>
#include <string.h>

/* The installation as commissioned: which sensor sits where. A real gateway
 * would keep this in flash next to its calibration data. */
static const char sensor_map[] =
    "{\"sensors\":["
    "{\"id\":\"t1\",\"kind\":\"air temperature\",\"unit\":\"C\",\"zone\":\"north bench\"},"
    "{\"id\":\"t2\",\"kind\":\"air temperature\",\"unit\":\"C\",\"zone\":\"south bench\"},"
    "{\"id\":\"rh1\",\"kind\":\"relative humidity\",\"unit\":\"%\",\"zone\":\"centre\"},"
    "{\"id\":\"soil1\",\"kind\":\"soil moisture\",\"unit\":\"%\",\"zone\":\"seed beds\"}"
    "],\"actuators\":[{\"id\":\"vent\",\"kind\":\"roof vent\",\"range\":\"0-100 %\"}]}";

static const char *const sensor_ids[] = {"t1", "t2", "rh1", "soil1"};

/* greenhouse://sensors/{sensor_id}: one sensor's entry of the map. */
static int read_sensor_entry(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char id[16];
    if (mcp_call_uri_var(call, "sensor_id", id, sizeof id) < 0) {
        return -MCP_ENOENT;
    }
    const char *entry = NULL;
    char key[32];
    snprintf(key, sizeof key, "{\"id\":\"%s\"", id);
    for (size_t i = 0; i < sizeof sensor_ids / sizeof sensor_ids[0]; i++) {
        if (strcmp(id, sensor_ids[i]) == 0) {
            entry = strstr(sensor_map, key);
        }
    }
    if (entry == NULL) {
        return -MCP_ENOENT; /* answered as "Resource not found" */
    }
    const char *end = strchr(entry, '}');
    char text[160];
    int n = snprintf(text, sizeof text, "%.*s}", (int)(end - entry), entry);
    if (n < 0 || (size_t)n >= sizeof text) {
        return -MCP_ENOBUFS;
    }
    size_t uri_len = 0;
    const char *uri = mcp_call_uri(call, &uri_len);
    char uri_z[MCP_MAX_URI_LEN + 1];
    snprintf(uri_z, sizeof uri_z, "%.*s", (int)uri_len, uri);
    return mcp_result_resource_text(r, uri_z, "application/json", text, (size_t)n, NULL);
}

/* The vent procedure: what an operator (or a model acting for one) does
 * before moving the vent, filled in with the requested opening. */
static int vent_procedure(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char target[8];
    int n = mcp_arg_string(call, "target_percent", target, sizeof target, NULL);
    if (n < 0) {
        return n; /* required: the core checked it is there */
    }
    char text[512];
    n = snprintf(text, sizeof text,
                 "Open the roof vent to %s%% following the greenhouse procedure:\n"
                 "1. Call read_sensor for t1 and t2 and report both temperatures.\n"
                 "2. If the wind lock refuses the change, stop and report it; never retry.\n"
                 "3. Call set_vent with percent %s. Above 80%% the gateway asks for a "
                 "confirmation: show it to the operator and wait for the answer.\n"
                 "4. Read t1 again after the change and report the new value.",
                 target, target);
    if (n < 0 || (size_t)n >= sizeof text) {
        return -MCP_ENOBUFS;
    }
    int rc = mcp_result_resource_text(r, "greenhouse://sensors", "application/json", sensor_map,
                                      sizeof sensor_map - 1, NULL);
    if (rc == 0) {
        rc = mcp_result_text(r, text, (size_t)n);
    }
    return rc;
}

/* Completion of the procedure's target_percent and the template's sensor_id. */
static int complete(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    static const char *const percents[] = {"0", "10", "25", "50", "80", "100"};
    char arg[32];
    char prefix[32];
    if (mcp_arg_string(call, "argument.name", arg, sizeof arg, NULL) < 0 ||
        mcp_arg_string(call, "argument.value", prefix, sizeof prefix, NULL) < 0) {
        return 0; /* nothing to suggest */
    }
    const char *const *values = NULL;
    size_t count = 0;
    if (strcmp(arg, "target_percent") == 0) {
        values = percents;
        count = sizeof percents / sizeof percents[0];
    } else if (strcmp(arg, "sensor_id") == 0) {
        values = sensor_ids;
        count = sizeof sensor_ids / sizeof sensor_ids[0];
    }
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < count; i++) {
        if (strncmp(values[i], prefix, plen) == 0) {
            int rc = mcp_result_completion(r, values[i]);
            if (rc != 0) {
                return rc;
            }
        }
    }
    return 0;
}

int greenhouse_register_catalog(mcp_server_t *server)
{
    static const mcp_resource_t map = {
        .uri = "greenhouse://sensors",
        .name = "sensors",
        .title = "Sensor map",
        .description = "Every sensor and actuator of the greenhouse: id, kind, unit and zone.",
        .mime_type = "application/json",
        .text = sensor_map,
    };
    static const mcp_resource_t one = {
        .uri = "greenhouse://sensors/{sensor_id}",
        .name = "sensor",
        .title = "One sensor",
        .description = "The map entry of one sensor (t1, t2, rh1, soil1).",
        .mime_type = "application/json",
    };
    static const mcp_prompt_t procedure = {
        .name = "vent_procedure",
        .title = "Vent operating procedure",
        .description = "The steps to follow before and after moving the roof vent.",
        .arguments = "[{\"name\":\"target_percent\",\"description\":\"Requested opening, "
                     "0 to 100\",\"required\":true}]",
    };
    int rc = mcp_server_add_resource(server, &map, NULL, NULL);
    if (rc == 0) {
        rc = mcp_server_add_resource(server, &one, read_sensor_entry, NULL);
    }
    if (rc == 0) {
        rc = mcp_server_add_prompt(server, &procedure, vent_procedure, NULL);
    }
    if (rc == 0) {
        rc = mcp_server_set_completion(server, complete, NULL);
    }
    return rc;
}
