/*
 * conformance-server: the fixtures of the official MCP conformance suite
 * (@modelcontextprotocol/conformance, src/scenarios/server/ in its repository) that the
 * library supports today, served over the HTTP binding (with subscriptions/listen streams).
 *
 *   conformance-server [--listen ADDR:PORT] [--stateless-fixtures] [--legacy-fixtures]
 *                      [--idle-timeout-ms MS] [--keepalive-ms MS] [--input-timeout-ms MS]
 *
 * Resources: test://static-text, test://static-binary (a 1x1 PNG),
 * test://watched-resource and the template test://template/{id}/data (JSON
 * naming the id). Prompts: test_simple_prompt, test_prompt_with_arguments
 * (arg1, arg2 required), test_prompt_with_embedded_resource (resourceUri
 * required), test_prompt_with_image, test_dynamic_prompt (registered
 * disabled) and test_input_required_result_prompt (asks for context with an
 * input_required result first). A completion callback offers fixed candidates
 * by prefix.
 *
 * Tools: test_simple_text (also the SEP-2243 x-mcp-header
 * fixture), test_error_handling, test_image_content, test_audio_content,
 * test_embedded_resource, test_multiple_content_types, test_tool_with_progress
 * (progress goes out as SSE events before the result), test_missing_capability
 * (-32021), and two sets that need 21 tool slots together: with the default
 * MCP_MAX_TOOLS (16) only one of them fits, chosen by the flag; a build with
 * EMCP_LIMITS=MAX_TOOLS=28 (scripts/test.d/10-http.sh) serves both, and the
 * five 2025-11-25 fixtures as well (test_tool_with_logging, test_sampling,
 * test_elicitation, test_elicitation_sep1034_defaults,
 * test_elicitation_sep1330_enums: log messages and server-to-client requests
 * on the call's SSE stream, through the binding's legacy round trip), which
 * --legacy-fixtures chooses instead of the other sets in a default build:
 * - default: the eight test_input_required_result_* tools (multi-round-trip
 *   requests with a MAC-protected requestState; _capabilities asks only
 *   through what the client declared);
 * - --stateless-fixtures: the server-stateless scenario's diagnostic tools:
 *   test_trigger_tool_change and test_trigger_prompt_change (each call lists
 *   or unlists test_dynamic_tool / test_dynamic_prompt with mcp_server_enable,
 *   which notifies open listen streams), test_dynamic_tool, test_logging_tool
 *   and test_streaming_elicitation.
 * Not possible yet: json_schema_2020_12_tool (the validator
 * refuses $defs/$ref/allOf/anyOf/if). The baselines
 * tests/http/conformance-baseline-*.yml list what fails and why.
 */

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emcp.h"
#include "emcp_http.h"

static mcp_server_t server;
static emcp_http_t http;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void log_line(void *user, const char *line)
{
    fprintf((FILE *)user, "%s\n", line);
}

static int simple_text(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    static const char text[] = "This is a simple text response for testing.";
    return mcp_result_text(r, text, sizeof text - 1);
}

static int error_handling(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    static const char text[] = "This tool intentionally returns an error for testing";
    return mcp_result_error(r, text, sizeof text - 1);
}

/* A 1x1 red PNG and 8 samples of 8 kHz silence as WAV, made for these fixtures. */
static const uint8_t red_pixel_png[] = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90,
    0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8,
    0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0xc9, 0xfe, 0x92, 0xef, 0x00, 0x00, 0x00,
    0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
static const uint8_t silence_wav[] = {
    0x52, 0x49, 0x46, 0x46, 0x2c, 0x00, 0x00, 0x00, 0x57, 0x41, 0x56, 0x45, 0x66, 0x6d, 0x74,
    0x20, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x40, 0x1f, 0x00, 0x00, 0x40, 0x1f,
    0x00, 0x00, 0x01, 0x00, 0x08, 0x00, 0x64, 0x61, 0x74, 0x61, 0x08, 0x00, 0x00, 0x00, 0x80,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

static int image_content(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return mcp_result_image(r, red_pixel_png, sizeof red_pixel_png, "image/png", NULL);
}

static int audio_content(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return mcp_result_audio(r, silence_wav, sizeof silence_wav, "audio/wav", NULL);
}

static int embedded_resource(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    static const char text[] = "This is an embedded resource content.";
    return mcp_result_resource_text(r, "test://embedded-resource", "text/plain", text,
                                    sizeof text - 1, NULL);
}

static int multiple_content_types(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    static const char text[] = "Multiple content types test:";
    static const char json[] = "{\"test\":\"data\",\"value\":123}";
    int rc = mcp_result_text(r, text, sizeof text - 1);
    if (rc == 0) {
        rc = mcp_result_image(r, red_pixel_png, sizeof red_pixel_png, "image/png", NULL);
    }
    if (rc == 0) {
        rc = mcp_result_resource_text(r, "test://mixed-content-resource", "application/json", json,
                                      sizeof json - 1, NULL);
    }
    return rc;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Progress 0, 50, 100 of 100, ~50 ms apart; the binding sends them as SSE
 * events before the result when the request carries a progressToken. */
static int tool_with_progress(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    for (int step = 0; step <= 2; step++) {
        int rc = mcp_progress(call, step * 50.0, 100.0, NULL);
        if (rc < 0) {
            return rc;
        }
        if (step < 2) {
            sleep_ms(50);
        }
    }
    static const char text[] = "Progress tool completed";
    return mcp_result_text(r, text, sizeof text - 1);
}

/* ---- input_required (multi-round-trip) fixtures ------------------------- */

static const char name_schema[] =
    "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}";

/* True when the retried call carries an answer under inputResponses[key]. */
static bool answered(const mcp_call_t *call, const char *key)
{
    char path[64], action[16];
    snprintf(path, sizeof path, "%s.action", key);
    if (mcp_input_string(call, path, action, sizeof action, NULL) == 0) {
        return true;
    }
    /* sampling and roots answers carry no action */
    snprintf(path, sizeof path, "%s.content", key);
    char dummy[8];
    int rc = mcp_input_string(call, path, dummy, sizeof dummy, NULL);
    if (rc != -MCP_ENOENT) {
        return true;
    }
    snprintf(path, sizeof path, "%s.roots[0].uri", key);
    rc = mcp_input_string(call, path, dummy, sizeof dummy, NULL);
    return rc != -MCP_ENOENT;
}

static int text_result(mcp_result_t *r, const char *text)
{
    return mcp_result_text(r, text, strlen(text));
}

/* -32021: needs sampling, which the probing client does not declare. */
static int missing_capability(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    if (answered(call, "sample")) {
        return text_result(r, "sampling answered");
    }
    return mcp_result_sample(r, "sample",
                             "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                             "\"text\":\"Say hi\"}}],\"maxTokens\":10}");
}

static int ir_elicitation(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char name[64], text[96];
    if (mcp_input_string(call, "user_name.content.name", name, sizeof name, NULL) == 0) {
        snprintf(text, sizeof text, "Hello, %s!", name);
        return text_result(r, text);
    }
    return mcp_result_elicit(r, "user_name", "What is your name?", name_schema);
}

static int ir_sampling(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char answer[128], text[160];
    if (mcp_input_string(call, "capital_question.content.text", answer, sizeof answer, NULL) == 0) {
        snprintf(text, sizeof text, "Sampling response: %s", answer);
        return text_result(r, text);
    }
    return mcp_result_sample(r, "capital_question",
                             "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                             "\"text\":\"What is the capital of France?\"}}],\"maxTokens\":100}");
}

static int ir_list_roots(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char uri[128], text[160];
    if (mcp_input_string(call, "client_roots.roots[0].uri", uri, sizeof uri, NULL) == 0) {
        snprintf(text, sizeof text, "Client roots: %s", uri);
        return text_result(r, text);
    }
    return mcp_result_list_roots(r, "client_roots");
}

/* The state a round hands to the next one; the core MACs it, bound to the tool. */
static int set_state(mcp_result_t *r, const char *state)
{
    return mcp_result_request_state(r, (const uint8_t *)state, strlen(state));
}

static bool state_is(const mcp_call_t *call, const char *expect)
{
    uint8_t buf[MCP_MAX_REQUEST_STATE];
    int n = mcp_call_request_state(call, buf, sizeof buf);
    return n >= 0 && (size_t)n == strlen(expect) && memcmp(buf, expect, (size_t)n) == 0;
}

static int ir_request_state(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    if (answered(call, "confirm") && state_is(call, "confirm-pending")) {
        return text_result(r, "state-ok: the confirmation arrived with a valid requestState");
    }
    int rc = mcp_result_elicit(r, "confirm", "Please confirm",
                               "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}},"
                               "\"required\":[\"ok\"]}");
    return rc == 0 ? set_state(r, "confirm-pending") : rc;
}

static int ir_multiple_inputs(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    if (answered(call, "user_name") && answered(call, "greeting") && answered(call, "client_roots") &&
        state_is(call, "multi")) {
        return text_result(r, "All three inputs received");
    }
    int rc = mcp_result_elicit(r, "user_name", "What is your name?", name_schema);
    if (rc == 0) {
        rc = mcp_result_sample(r, "greeting",
                               "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                               "\"text\":\"Generate a greeting\"}}],\"maxTokens\":50}");
    }
    if (rc == 0) {
        rc = mcp_result_list_roots(r, "client_roots");
    }
    return rc == 0 ? set_state(r, "multi") : rc;
}

/* Asks only for what the client declared in this request's _meta
 * (clientCapabilities): sampling, else elicitation, else roots; with none of
 * them there is nothing to ask, so it answers at once. */
static int ir_capabilities(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    if (answered(call, "capital_question") || answered(call, "user_name") ||
        answered(call, "client_roots")) {
        return text_result(r, "Input received for a declared capability");
    }
    if (mcp_call_client_capability(call, "sampling") == 1) {
        return mcp_result_sample(r, "capital_question",
                                 "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
                                 "\"text\":\"What is the capital of France?\"}}],\"maxTokens\":100}");
    }
    if (mcp_call_client_capability(call, "elicitation") == 1) {
        return mcp_result_elicit(r, "user_name", "What is your name?", name_schema);
    }
    if (mcp_call_client_capability(call, "roots") == 1) {
        return mcp_result_list_roots(r, "client_roots");
    }
    return text_result(r, "The client declared no capability to ask through");
}

static int ir_multi_round(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    if (state_is(call, "round-2") && answered(call, "step2")) {
        return text_result(r, "Both steps completed");
    }
    if (state_is(call, "round-1") && answered(call, "step1")) {
        int rc = mcp_result_elicit(r, "step2", "Step 2: What is your favorite color?",
                                   "{\"type\":\"object\",\"properties\":{\"color\":{\"type\":\"string\"}},"
                                   "\"required\":[\"color\"]}");
        return rc == 0 ? set_state(r, "round-2") : rc;
    }
    int rc = mcp_result_elicit(r, "step1", "Step 1: What is your name?", name_schema);
    return rc == 0 ? set_state(r, "round-1") : rc;
}

/* ---- Resources ---------------------------------------------------------- */

/* test://template/{id}/data: JSON naming the id. Ids are limited to a plain
 * alphabet, so the JSON needs no escaping; anything else is "not found". */
static int template_data(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char id[64], uri[MCP_MAX_URI_LEN + 1], json[160];
    int n = mcp_call_uri_var(call, "id", id, sizeof id);
    if (n <= 0) {
        return -MCP_ENOENT;
    }
    for (int i = 0; i < n; i++) {
        char ch = id[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_' || ch == '.')) {
            return -MCP_ENOENT;
        }
    }
    size_t ulen = 0;
    const char *u = mcp_call_uri(call, &ulen);
    if (u == NULL || ulen >= sizeof uri) {
        return -MCP_ENOENT;
    }
    memcpy(uri, u, ulen);
    uri[ulen] = '\0';
    int jn = snprintf(json, sizeof json,
                      "{\"id\":\"%s\",\"templateTest\":true,\"data\":\"Data for ID: %s\"}", id, id);
    return mcp_result_resource_text(r, uri, "application/json", json, (size_t)jn, NULL);
}

static const mcp_resource_t resources[] = {
    {.uri = "test://static-text", .name = "static-text", .title = "Static text",
     .description = "A static text resource for testing", .mime_type = "text/plain",
     .text = "This is the content of the static text resource."},
    {.uri = "test://static-binary", .name = "static-binary", .title = "Static binary",
     .description = "A static binary resource (a 1x1 PNG) for testing", .mime_type = "image/png",
     .blob = red_pixel_png, .blob_len = sizeof red_pixel_png},
    {.uri = "test://watched-resource", .name = "watched-resource", .title = "Watched resource",
     .description = "A resource for subscription tests", .mime_type = "text/plain",
     .text = "Watched resource content"},
    {.uri = "test://template/{id}/data", .name = "template-data", .title = "Template data",
     .description = "A resource template with an id parameter", .mime_type = "application/json"},
};
static const mcp_tool_fn resource_fns[] = {NULL, NULL, NULL, template_data};
_Static_assert(sizeof resources / sizeof resources[0] <= MCP_MAX_RESOURCES, "MCP_MAX_RESOURCES");

/* ---- Prompts ------------------------------------------------------------ */

static int simple_prompt(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return text_result(r, "This is a simple prompt for testing.");
}

static int prompt_with_arguments(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char a1[256], a2[256], text[600];
    if (mcp_arg_string(call, "arg1", a1, sizeof a1, NULL) != 0 ||
        mcp_arg_string(call, "arg2", a2, sizeof a2, NULL) != 0) {
        return -MCP_EINVAL; /* the core checked they are present: too long */
    }
    snprintf(text, sizeof text, "Prompt with arguments: arg1='%s', arg2='%s'", a1, a2);
    return text_result(r, text);
}

static int prompt_with_embedded_resource(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char uri[MCP_MAX_URI_LEN + 1];
    static const char text[] = "Embedded resource content for testing.";
    if (mcp_arg_string(call, "resourceUri", uri, sizeof uri, NULL) != 0) {
        return -MCP_EINVAL;
    }
    int rc = mcp_result_resource_text(r, uri, "text/plain", text, sizeof text - 1, NULL);
    return rc == 0 ? text_result(r, "Please process the embedded resource above.") : rc;
}

static int prompt_with_image(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    int rc = mcp_result_image(r, red_pixel_png, sizeof red_pixel_png, "image/png", NULL);
    return rc == 0 ? text_result(r, "Please analyze the image above.") : rc;
}

static int dynamic_prompt(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return text_result(r, "This prompt is listed only while test_trigger_prompt_change has it on.");
}

/* SEP-2322 on a non-tool request: asks for context first, answers with it on
 * the retry (the requestState the core MAC-binds to this prompt). */
static int input_required_prompt(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    uint8_t state[8];
    char context[128];
    char text[200];
    if (mcp_call_request_state(call, state, sizeof state) == 2 && memcmp(state, "r1", 2) == 0 &&
        mcp_input_string(call, "user_context.content.context", context, sizeof context, NULL) == 0) {
        snprintf(text, sizeof text, "Prompt using context: %s", context);
        return text_result(r, text);
    }
    int rc = mcp_result_elicit(r, "user_context", "What context should the prompt use?",
                               "{\"type\":\"object\",\"properties\":{\"context\":{\"type\":"
                               "\"string\"}},\"required\":[\"context\"]}");
    return rc == 0 ? mcp_result_request_state(r, (const uint8_t *)"r1", 2) : rc;
}

static const mcp_prompt_t prompts[] = {
    {.name = "test_simple_prompt", .title = "Simple prompt",
     .description = "A simple prompt without arguments"},
    {.name = "test_prompt_with_arguments", .title = "Prompt with arguments",
     .description = "A prompt with required arguments",
     .arguments = "[{\"name\":\"arg1\",\"description\":\"First test argument\",\"required\":true},"
                  "{\"name\":\"arg2\",\"description\":\"Second test argument\",\"required\":true}]"},
    {.name = "test_prompt_with_embedded_resource", .title = "Prompt with embedded resource",
     .description = "A prompt that embeds a resource",
     .arguments = "[{\"name\":\"resourceUri\",\"description\":\"URI of the resource to embed\","
                  "\"required\":true}]"},
    {.name = "test_prompt_with_image", .title = "Prompt with image",
     .description = "A prompt with image content"},
    {.name = "test_dynamic_prompt", .title = "Dynamic prompt",
     .description = "Registered disabled; test_trigger_prompt_change toggles it"},
    {.name = "test_input_required_result_prompt", .title = "Prompt asking for input",
     .description = "Asks for context with input_required, then answers (SEP-2322)"},
};
static const mcp_tool_fn prompt_fns[] = {simple_prompt, prompt_with_arguments,
                                         prompt_with_embedded_resource, prompt_with_image,
                                         dynamic_prompt, input_required_prompt};
_Static_assert(sizeof prompts / sizeof prompts[0] == sizeof prompt_fns / sizeof prompt_fns[0],
               "one callback per prompt");
_Static_assert(sizeof prompts / sizeof prompts[0] <= MCP_MAX_PROMPTS, "MCP_MAX_PROMPTS");

/* completion/complete: candidates for the prompt arguments and the template
 * variable that start with what the user typed so far. */
static int complete(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    static const char *const candidates[] = {"test", "testValue1", "testValue2", "paris", "park",
                                             "party", "123", "456"};
    char typed[128];
    if (mcp_arg_string(call, "argument.value", typed, sizeof typed, NULL) != 0) {
        typed[0] = '\0';
    }
    size_t n = strlen(typed);
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        if (strncmp(candidates[i], typed, n) == 0) {
            int rc = mcp_result_completion(r, candidates[i]);
            if (rc != 0) {
                return rc;
            }
        }
    }
    return 0;
}

/* ---- Live lists --------------------------------------------------------- */

/* Each call flips the dynamic entry in or out of its list: a real change,
 * which the core announces on every listen stream that asked for it. */
static int toggle(mcp_result_t *r, uint32_t kind, const char *name, bool *on)
{
    *on = !*on;
    int rc = mcp_server_enable(&server, kind, name, *on);
    if (rc < 0) {
        return rc;
    }
    char text[128];
    snprintf(text, sizeof text, "%s is now %s", name, *on ? "listed" : "unlisted");
    return text_result(r, text);
}

static bool dynamic_tool_on, dynamic_prompt_on;

static int trigger_tool_change(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return toggle(r, MCP_LIST_TOOLS, "test_dynamic_tool", &dynamic_tool_on);
}

static int trigger_prompt_change(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return toggle(r, MCP_LIST_PROMPTS, "test_dynamic_prompt", &dynamic_prompt_on);
}

static int dynamic_tool(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    return text_result(r, "This tool is listed only while test_trigger_tool_change has it on.");
}

/* No notifications/message unless the request's _meta set a logLevel: the
 * core's mcp_log sends nothing then. */
static int logging_tool(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    static const char *const lines[] = {"Tool execution started", "Tool processing data",
                                        "Tool execution completed"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        (void)mcp_log(call, MCP_LOG_INFO, lines[i]);
    }
    return text_result(r, "Tool with logging executed successfully");
}

/* ---- 2025-11-25 fixtures: logging and server-to-client requests ----------
 * The same callbacks as at 2026-07-28: mcp_log, and input asked with
 * mcp_result_sample / mcp_result_elicit. For a legacy client the HTTP binding
 * delivers the log messages on the call's SSE stream (MCP_CTX_LEGACY_LOG) and
 * turns each input request into a server-to-client request on that stream,
 * re-running the call with the client's answer (MCP_CTX_LEGACY_*). */

/* The log messages go out ~50 ms apart, as the scenario asks (they reach the
 * client with the result: the tool runs inside one poll step). */
static int tool_with_logging(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    static const char *const lines[] = {"Tool execution started", "Tool processing data",
                                        "Tool execution completed"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        if (i > 0) {
            sleep_ms(50);
        }
        int rc = mcp_log(call, MCP_LOG_INFO, lines[i]);
        if (rc < 0) {
            return rc;
        }
    }
    return text_result(r, "Tool with logging executed successfully");
}

/* Copies @p s into @p out as the inside of a JSON string. False when it
 * does not fit. */
static bool json_escape(const char *s, char *out, size_t cap)
{
    size_t o = 0;
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        char esc[8];
        int n;
        if (ch == '"' || ch == '\\') {
            n = snprintf(esc, sizeof esc, "\\%c", ch);
        } else if (ch < 0x20) {
            n = snprintf(esc, sizeof esc, "\\u%04x", ch);
        } else {
            esc[0] = (char)ch;
            n = 1;
        }
        if (o + (size_t)n >= cap) {
            return false;
        }
        memcpy(out + o, esc, (size_t)n);
        o += (size_t)n;
    }
    out[o] = '\0';
    return true;
}

/* Tool errors for a client that cannot be asked: a legacy transport without
 * server-to-client requests (-MCP_ENOTSUP). A client that did not declare
 * the capability gets -32021 from the core (-MCP_EACCES: return 0). */
static int asked(mcp_result_t *r, int rc, const char *what)
{
    if (rc == -MCP_ENOTSUP) {
        char text[96];
        snprintf(text, sizeof text, "This transport cannot ask the client for %s", what);
        return mcp_result_error(r, text, strlen(text));
    }
    return rc == -MCP_EACCES ? 0 : rc;
}

static int sampling(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char answer[256], text[300];
    if (mcp_input_string(call, "sampling.content.text", answer, sizeof answer, NULL) == 0) {
        snprintf(text, sizeof text, "LLM response: %s", answer);
        return text_result(r, text);
    }
    char prompt[256], escaped[512], params[640];
    if (mcp_arg_string(call, "prompt", prompt, sizeof prompt, NULL) != 0 ||
        !json_escape(prompt, escaped, sizeof escaped)) {
        return text_result(r, "prompt must be a string of at most 255 bytes");
    }
    snprintf(params, sizeof params,
             "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"%s\"}}],"
             "\"maxTokens\":100}",
             escaped);
    return asked(r, mcp_result_sample(r, "sampling", params), "sampling");
}

/* "action=accept, content={...}" of an elicitation answer, with the string
 * and array members named in @p fields (a trailing "[]" reads two elements). */
static void elicit_summary(const mcp_call_t *call, const char *key, const char *const *fields,
                           size_t n, char *out, size_t cap)
{
    char path[96], action[16] = "?";
    snprintf(path, sizeof path, "%s.action", key);
    (void)mcp_input_string(call, path, action, sizeof action, NULL);
    size_t o = (size_t)snprintf(out, cap, "action=%s, content={", action);
    for (size_t i = 0; i < n && o < cap; i++) {
        char v[64] = "";
        bool b;
        int64_t iv;
        snprintf(path, sizeof path, "%s.content.%s", key, fields[i]);
        if (mcp_input_string(call, path, v, sizeof v, NULL) == 0) {
            o += (size_t)snprintf(out + o, cap - o, "%s%s: \"%s\"", i ? ", " : "", fields[i], v);
        } else if (mcp_input_int(call, path, &iv) == 0) {
            o += (size_t)snprintf(out + o, cap - o, "%s%s: %lld", i ? ", " : "", fields[i],
                                  (long long)iv);
        } else if (mcp_input_bool(call, path, &b) == 0) {
            o += (size_t)snprintf(out + o, cap - o, "%s%s: %s", i ? ", " : "", fields[i],
                                  b ? "true" : "false");
        } else {
            char v0[32] = "", v1[32] = "";
            snprintf(path, sizeof path, "%s.content.%s[0]", key, fields[i]);
            if (mcp_input_string(call, path, v0, sizeof v0, NULL) == 0) {
                snprintf(path, sizeof path, "%s.content.%s[1]", key, fields[i]);
                (void)mcp_input_string(call, path, v1, sizeof v1, NULL);
                o += (size_t)snprintf(out + o, cap - o, "%s%s: [\"%s\"%s%s%s]", i ? ", " : "",
                                      fields[i], v0, v1[0] ? ", \"" : "", v1, v1[0] ? "\"" : "");
            }
        }
    }
    if (o < cap) {
        snprintf(out + o, cap - o, "}");
    }
}

static bool has_action(const mcp_call_t *call, const char *key)
{
    char path[64], action[16];
    snprintf(path, sizeof path, "%s.action", key);
    return mcp_input_string(call, path, action, sizeof action, NULL) == 0;
}

static int elicitation(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    static const char *const fields[] = {"username", "email"};
    if (has_action(call, "user_info")) {
        char summary[256], text[300];
        elicit_summary(call, "user_info", fields, 2, summary, sizeof summary);
        snprintf(text, sizeof text, "User response: <%s>", summary);
        return text_result(r, text);
    }
    char message[256];
    if (mcp_arg_string(call, "message", message, sizeof message, NULL) != 0) {
        return text_result(r, "message must be a string of at most 255 bytes");
    }
    static const char schema[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
        "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
        "\"required\":[\"username\",\"email\"]}";
    return asked(r, mcp_result_elicit(r, "user_info", message, schema), "input");
}

static int elicitation_sep1034(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    static const char *const fields[] = {"name", "age", "score", "status", "verified"};
    if (has_action(call, "defaults")) {
        char summary[256], text[300];
        elicit_summary(call, "defaults", fields, 5, summary, sizeof summary);
        snprintf(text, sizeof text, "Elicitation completed: %s", summary);
        return text_result(r, text);
    }
    static const char schema[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"name\":{\"type\":\"string\",\"description\":\"User name\",\"default\":\"John Doe\"},"
        "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
        "\"score\":{\"type\":\"number\",\"description\":\"User score\",\"default\":95.5},"
        "\"status\":{\"type\":\"string\",\"description\":\"User status\","
        "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
        "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\",\"default\":true}"
        "}}";
    return asked(r, mcp_result_elicit(r, "defaults", "Please review and update the form fields",
                                      schema),
                 "input");
}

static int elicitation_sep1330(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    static const char *const fields[] = {"untitledSingle", "titledSingle", "legacyEnum",
                                         "untitledMulti", "titledMulti"};
    if (has_action(call, "enums")) {
        char summary[320], text[360];
        elicit_summary(call, "enums", fields, 5, summary, sizeof summary);
        snprintf(text, sizeof text, "Elicitation completed: %s", summary);
        return text_result(r, text);
    }
    static const char schema[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"untitledSingle\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]},"
        "\"titledSingle\":{\"type\":\"string\",\"oneOf\":["
        "{\"const\":\"value1\",\"title\":\"First Option\"},"
        "{\"const\":\"value2\",\"title\":\"Second Option\"},"
        "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
        "\"legacyEnum\":{\"type\":\"string\",\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
        "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
        "\"untitledMulti\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
        "\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
        "\"titledMulti\":{\"type\":\"array\",\"items\":{\"anyOf\":["
        "{\"const\":\"value1\",\"title\":\"First Choice\"},"
        "{\"const\":\"value2\",\"title\":\"Second Choice\"},"
        "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}"
        "}}";
    return asked(r, mcp_result_elicit(r, "enums", "Please select options", schema), "input");
}

#define NO_ARGS "{\"type\":\"object\",\"properties\":{}}"
/* test_simple_text takes no arguments, but it also carries the optional
 * string `region` mirrored in the Mcp-Param-Region header (SEP-2243): the
 * suite's http-custom-header-server-validation needs one tool with an
 * x-mcp-header property, and MCP_MAX_TOOLS leaves no slot for a tool of its
 * own. The core checks the header against the argument before the callback. */
#define SIMPLE_TEXT_ARGS                                                      \
    "{\"type\":\"object\",\"properties\":{\"region\":{\"type\":\"string\","   \
    "\"description\":\"Optional; sent also as the Mcp-Param-Region header\"," \
    "\"x-mcp-header\":\"Region\"}}}"

static const mcp_tool_t tools[] = {
    {.name = "test_simple_text",
     .description = "Tests simple text content response",
     .input_schema = SIMPLE_TEXT_ARGS,
     .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_error_handling",
     .description = "Tests error response handling",
     .input_schema = NO_ARGS,
     .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_image_content", .description = "Tests image content response",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_audio_content", .description = "Tests audio content response",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_embedded_resource", .description = "Tests embedded resource content response",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_multiple_content_types", .description = "Tests response with multiple content types",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_tool_with_progress", .description = "Tests tool that reports progress notifications",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_missing_capability", .description = "Needs the sampling capability",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
};
static const mcp_tool_fn fns[] = {
    simple_text,       error_handling,         image_content,      audio_content,
    embedded_resource, multiple_content_types, tool_with_progress, missing_capability,
};
_Static_assert(sizeof tools / sizeof tools[0] == sizeof fns / sizeof fns[0], "one callback per tool");

/* The default set: the SEP-2322 input_required fixtures. */
static const mcp_tool_t ir_tools[] = {
    {.name = "test_input_required_result_elicitation", .description = "Asks for the user's name",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_input_required_result_sampling", .description = "Asks the client's model a question",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_input_required_result_list_roots", .description = "Asks for the client's roots",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_input_required_result_request_state", .description = "Round-trips requestState",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_input_required_result_tampered_state", .description = "Rejects tampered requestState",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_input_required_result_multiple_inputs", .description = "Asks for three inputs at once",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_input_required_result_multi_round", .description = "Asks in two rounds",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_input_required_result_capabilities",
     .description = "Asks only through capabilities the client declared",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
};
static const mcp_tool_fn ir_fns[] = {
    ir_elicitation,   ir_sampling,        ir_list_roots,  ir_request_state,
    ir_request_state, ir_multiple_inputs, ir_multi_round, ir_capabilities,
};
_Static_assert(sizeof ir_tools / sizeof ir_tools[0] == sizeof ir_fns / sizeof ir_fns[0],
               "one callback per tool");
_Static_assert(sizeof tools / sizeof tools[0] + sizeof ir_tools / sizeof ir_tools[0] <= MCP_MAX_TOOLS,
               "MCP_MAX_TOOLS");

/* --stateless-fixtures: the diagnostic tools of the server-stateless scenario
 * instead of the input_required ones (MCP_MAX_TOOLS, 16, holds one set or the
 * other): the list-change triggers (and the tool they toggle, registered
 * disabled), test_logging_tool and test_streaming_elicitation (an elicitation
 * that comes back as an input_required result, never as a request on the
 * stream). */
static const mcp_tool_t stateless_tools[] = {
    {.name = "test_trigger_tool_change",
     .description = "Lists or unlists test_dynamic_tool (notifies listen streams)",
     .input_schema = NO_ARGS},
    {.name = "test_trigger_prompt_change",
     .description = "Lists or unlists test_dynamic_prompt (notifies listen streams)",
     .input_schema = NO_ARGS},
    {.name = "test_dynamic_tool", .description = "Listed only while test_trigger_tool_change has it on",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_logging_tool", .description = "Logs three messages (only with a logLevel)",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_streaming_elicitation", .description = "Asks for the user's name",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
};
static const mcp_tool_fn stateless_fns[] = {trigger_tool_change, trigger_prompt_change, dynamic_tool,
                                            logging_tool, ir_elicitation};
_Static_assert(sizeof stateless_tools / sizeof stateless_tools[0] ==
                   sizeof stateless_fns / sizeof stateless_fns[0],
               "one callback per tool");
_Static_assert(sizeof tools / sizeof tools[0] + sizeof stateless_tools / sizeof stateless_tools[0] <=
                   MCP_MAX_TOOLS,
               "MCP_MAX_TOOLS");

/* The 2025-11-25 fixtures (logging to a tool call's stream, sampling and
 * elicitation as server-to-client requests); registered when every set fits
 * (EMCP_LIMITS=MAX_TOOLS=28 in scripts/test.d/10-http.sh). */
static const mcp_tool_t legacy_tools[] = {
    {.name = "test_tool_with_logging", .description = "Logs three messages during execution",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_sampling", .description = "Asks the client's model (sampling/createMessage)",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\","
                     "\"description\":\"The prompt to send to the LLM\"}},\"required\":[\"prompt\"]}",
     .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_elicitation", .description = "Asks the user for a username and email",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\","
                     "\"description\":\"The message to show the user\"}},\"required\":[\"message\"]}",
     .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_elicitation_sep1034_defaults",
     .description = "Elicitation with a default for every primitive type (SEP-1034)",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
    {.name = "test_elicitation_sep1330_enums",
     .description = "Elicitation with the five enum schema forms (SEP-1330)",
     .input_schema = NO_ARGS, .annotations = MCP_TOOL_READ_ONLY},
};
static const mcp_tool_fn legacy_fns[] = {tool_with_logging, sampling, elicitation,
                                         elicitation_sep1034, elicitation_sep1330};
_Static_assert(sizeof legacy_tools / sizeof legacy_tools[0] ==
                   sizeof legacy_fns / sizeof legacy_fns[0],
               "one callback per tool");

static int add_tools(const mcp_tool_t *t, const mcp_tool_fn *f, size_t n)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        rc = mcp_server_add_tool(&server, &t[i], f[i], NULL);
    }
    return rc;
}

int main(int argc, char **argv)
{
    static char addr[64] = "127.0.0.1";
    bool stateless_fixtures = false;
    bool legacy_fixtures = false;
    emcp_http_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.port = 3000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            const char *colon = strrchr(v, ':');
            if (colon == NULL || (size_t)(colon - v) >= sizeof addr) {
                fprintf(stderr, "conformance-server: --listen wants ADDR:PORT\n");
                return 2;
            }
            memcpy(addr, v, (size_t)(colon - v));
            addr[colon - v] = '\0';
            cfg.port = (uint16_t)strtoul(colon + 1, NULL, 10);
        } else if (strcmp(argv[i], "--stateless-fixtures") == 0) {
            stateless_fixtures = true;
        } else if (strcmp(argv[i], "--legacy-fixtures") == 0) {
            legacy_fixtures = true;
        } else if (strcmp(argv[i], "--idle-timeout-ms") == 0 && i + 1 < argc) {
            cfg.idle_timeout_ms = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--keepalive-ms") == 0 && i + 1 < argc) {
            cfg.listen_keepalive_ms = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--input-timeout-ms") == 0 && i + 1 < argc) {
            cfg.input_timeout_ms = (uint32_t)strtoul(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "usage: conformance-server [--listen ADDR:PORT] [--stateless-fixtures]\n"
                            "                          [--legacy-fixtures]\n"
                            "                          [--idle-timeout-ms MS] [--keepalive-ms MS]\n"
                            "                          [--input-timeout-ms MS]\n");
            return 2;
        }
    }
    cfg.bind_addr = addr;
    cfg.log = log_line;
    cfg.log_user = stderr;

    static const mcp_server_config_t config = {
        .name = "emcp-conformance",
        .version = "0.1.0",
        .title = "emcp conformance fixtures",
        .instructions = NULL,
        .list_ttl_ms = 0,
        .cache_scope = MCP_CACHE_PRIVATE,
    };
    int rc = mcp_server_init(&server, &config);
    if (rc == 0) {
        rc = add_tools(tools, fns, sizeof tools / sizeof tools[0]);
    }
    /* A build with room for every fixture (e.g. EMCP_LIMITS=MAX_TOOLS=28, as
     * scripts/test.d/10-http.sh builds it) serves every set at once;
     * otherwise the flags choose one. */
    const bool all_fit = sizeof tools / sizeof tools[0] + sizeof ir_tools / sizeof ir_tools[0] +
                             sizeof stateless_tools / sizeof stateless_tools[0] +
                             sizeof legacy_tools / sizeof legacy_tools[0] <=
                         MCP_MAX_TOOLS;
    bool with_ir = all_fit || (!stateless_fixtures && !legacy_fixtures);
    bool with_stateless = all_fit || stateless_fixtures;
    bool with_legacy = all_fit || (legacy_fixtures && !stateless_fixtures);
    if (rc == 0 && with_ir) {
        rc = add_tools(ir_tools, ir_fns, sizeof ir_tools / sizeof ir_tools[0]);
    }
    if (rc == 0 && with_stateless) {
        rc = add_tools(stateless_tools, stateless_fns, sizeof stateless_tools / sizeof stateless_tools[0]);
        if (rc == 0) {
            rc = mcp_server_enable(&server, MCP_LIST_TOOLS, "test_dynamic_tool", false);
            rc = rc < 0 ? rc : 0;
        }
    }
    if (rc == 0 && with_legacy) {
        rc = add_tools(legacy_tools, legacy_fns, sizeof legacy_tools / sizeof legacy_tools[0]);
    }
    if (rc == 0 && !all_fit) {
        fprintf(stderr, "conformance-server: MCP_MAX_TOOLS %d holds only the %s fixtures\n",
                (int)MCP_MAX_TOOLS,
                with_stateless ? "server-stateless" : with_legacy ? "2025-11-25" : "input_required");
    }
    for (size_t i = 0; rc == 0 && i < sizeof resources / sizeof resources[0]; i++) {
        rc = mcp_server_add_resource(&server, &resources[i], resource_fns[i], NULL);
    }
    for (size_t i = 0; rc == 0 && i < sizeof prompts / sizeof prompts[0]; i++) {
        rc = mcp_server_add_prompt(&server, &prompts[i], prompt_fns[i], NULL);
    }
    if (rc == 0) {
        rc = mcp_server_enable(&server, MCP_LIST_PROMPTS, "test_dynamic_prompt", false);
        rc = rc < 0 ? rc : 0;
    }
    if (rc == 0) {
        rc = mcp_server_set_completion(&server, complete, NULL);
    }
    if (rc == 0) {
        /* The requestState MAC key: random per start. */
        uint8_t key[32] = {0};
        int fd = open("/dev/urandom", O_RDONLY);
        if (fd < 0 || read(fd, key, sizeof key) != (ssize_t)sizeof key) {
            fprintf(stderr, "conformance-server: no /dev/urandom\n");
            rc = -1;
        }
        if (fd >= 0) {
            close(fd);
        }
        if (rc == 0) {
            rc = mcp_server_set_state_key(&server, key, sizeof key);
        }
    }
    if (rc != 0) {
        fprintf(stderr, "conformance-server: cannot set up the server (%d)\n", rc);
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    rc = emcp_http_open(&http, &server, &cfg);
    if (rc != 0) {
        fprintf(stderr, "conformance-server: cannot listen on %s:%u (%d)\n", addr, cfg.port, rc);
        return 1;
    }
    fprintf(stderr, "conformance-server: listening on http://%s:%u/mcp\n", addr,
            emcp_http_port(&http));
    fflush(stderr);
    while (!stop && emcp_http_poll(&http, 1000) == 0) {
    }
    emcp_http_close(&http);
    return 0;
}
