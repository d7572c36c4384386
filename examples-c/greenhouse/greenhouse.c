/*
 * The greenhouse gateway's tools on a simulated controller. A real gateway
 * would fill the readings from its sensor bus and drive the vent actuator;
 * here both are variables.
 */

#include "greenhouse.h"
#include "greenhouse_tools.h" /* generated from greenhouse_tools.json */

#include "emcp_clock.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__ZEPHYR__)
#if __has_include(<zephyr/random/random.h>)
#include <zephyr/random/random.h>
#else
#include <zephyr/random/rand32.h> /* Zephyr before 3.5 */
#endif
#endif

/* ---- Simulated controller ---------------------------------------------- */

/* A reading is kept as the sensor bus gives it, a scaled integer (tenths of
 * a degree or of a percent), and written with mcp_json_decimal: no double
 * arithmetic or double formatting on a part without an FPU. */
struct sensor {
    const char *id;
    bool has_reading;
    int32_t tenths;
    const char *unit;
};

/* The readings taken at startup; soil1 has not reported yet. */
static const struct sensor sensors[] = {
    {"t1", true, 215, "C"},
    {"t2", true, 341, "C"},
    {"rh1", true, 620, "%"},
    {"soil1", false, 0, NULL},
};

static _Atomic uint64_t readings_taken_ms; /* monotonic ms of the readings */
static greenhouse_durable_t durable = {.vent_interval_ms = -1, .vent_percent = -1};
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

/* read_sensor's refusal: isError and the message as text, no
 * structuredContent. read_sensor declares an outputSchema, and a client may
 * hold even an isError result's structuredContent to it (the TypeScript SDK
 * 1.32.2 does, and would turn {"ok":false} into an error of its own, hiding
 * the message from the model). */
static int result_refused_text(mcp_result_t *r, bool *is_error, const char *msg)
{
    *is_error = true;
    return mcp_result_error(r, msg, strlen(msg));
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

/* The sensors in the order of read_sensor's sensor_id enum (the generated
 * GREENHOUSE_READ_SENSOR_SENSOR_ID_*), checked at build time. */
_Static_assert(GREENHOUSE_READ_SENSOR_SENSOR_ID_SOIL1 == 3 && sizeof sensors / sizeof sensors[0] == 4,
               "sensors[] follows the sensor_id enum of greenhouse_tools.json");

static int read_sensor(const struct greenhouse_read_sensor_args *args, const mcp_call_t *call,
                       mcp_result_t *r, bool *is_error)
{
    /* The core validated the arguments against the schema and filled args;
     * this second check keeps the lookup safe even if the schema and the
     * code drift apart. */
    if ((unsigned)args->sensor_id >= sizeof sensors / sizeof sensors[0]) {
        return result_refused_text(r, is_error, "unknown sensor_id");
    }
    const struct sensor *s = &sensors[args->sensor_id];
    int rc;
    if (!s->has_reading) {
        return result_refused_text(r, is_error, "no reading yet");
    }

    uint64_t taken = atomic_load(&readings_taken_ms);
    uint64_t now = call_now_ms(call);
    int64_t age_s = now > taken ? (int64_t)((now - taken + 500u) / 1000u) : 0;

    /* The reading as text the way %g writes it: "21.5", "62" for 62.0. */
    int32_t whole = s->tenths / 10;
    int32_t tenth = s->tenths % 10;
    char number[16];
    if (tenth == 0) {
        snprintf(number, sizeof number, "%ld", (long)whole);
    } else {
        snprintf(number, sizeof number, "%s%ld.%ld", s->tenths < 0 && whole == 0 ? "-" : "",
                 (long)whole, (long)(tenth < 0 ? -tenth : tenth));
    }
    char text[64];
    rc = result_text(r, text,
                     snprintf(text, sizeof text, "%s %s, %llds old", number, s->unit,
                              (long long)age_s),
                     sizeof text);
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "value");
    }
    if (rc == 0) {
        rc = mcp_json_decimal(r, s->tenths, 1);
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

/* Above this opening a person must confirm through the client first. */
#define GREENHOUSE_CONFIRM_ABOVE 80
/* A tool body's return value: it asked the client for input instead of acting. */
#define BODY_ASKED 1

static const char confirm_schema[] =
    "{\"type\":\"object\",\"required\":[\"confirm\"],"
    "\"properties\":{\"confirm\":{\"type\":\"boolean\",\"title\":\"Open the vent that far\"}}}";

/* 0 when this retry carries a confirmation of exactly this opening;
 * BODY_ASKED after asking for one (input_required); otherwise a refusal
 * result was written or an error code is returned. */
static int confirm_opening(const mcp_call_t *call, mcp_result_t *r, bool *is_error, int64_t percent)
{
    char want[8];
    int wn = snprintf(want, sizeof want, "%d", (int)percent);
    uint8_t state[8];
    int sn = mcp_call_request_state(call, state, sizeof state);
    char action[16];
    if (sn == wn && memcmp(state, want, (size_t)wn) == 0 &&
        mcp_input_string(call, "confirm.action", action, sizeof action, NULL) == 0) {
        bool yes = false;
        if (strcmp(action, "accept") == 0 && mcp_input_bool(call, "confirm.content.confirm", &yes) == 0 &&
            yes) {
            return 0;
        }
        return result_refused(r, is_error, "not confirmed: vent unchanged");
    }
    char message[96];
    snprintf(message, sizeof message,
             "Open the roof vent to %d%%? Above %d%% wind and rain can get in.", (int)percent,
             GREENHOUSE_CONFIRM_ABOVE);
    int rc = mcp_result_elicit(r, "confirm", message, confirm_schema);
    if (rc == -MCP_ENOTSUP) {
        return result_refused(r, is_error,
                              "refused: opening above 80% needs a confirmation this client cannot give");
    }
    if (rc == -MCP_EACCES) {
        *is_error = true; /* the core answers -32021: the client must declare elicitation */
        return 0;
    }
    if (rc == 0) {
        /* The retry must confirm this very opening, not another one. */
        rc = mcp_result_request_state(r, (const uint8_t *)want, (size_t)wn);
    }
    return rc == 0 ? BODY_ASKED : rc;
}

/* Out of line, so their key buffers are on the stack only in durable mode. */
#if defined(__GNUC__)
#define GREENHOUSE_NOINLINE __attribute__((noinline))
#else
#define GREENHOUSE_NOINLINE
#endif

/* The transport's retry key of the call (MQTT Correlation Data), or NULL. */
static const mcp_str_t *retry_key(const mcp_call_t *call)
{
    const mcp_request_ctx_t *ctx = durable.retry_keys ? mcp_call_ctx(call) : NULL;
    return ctx != NULL && ctx->retry_key.ptr != NULL && ctx->retry_key.len > 0 &&
                   ctx->retry_key.len <= MCP_DEDUP_KEY_MAX
               ? &ctx->retry_key
               : NULL;
}

/* Reports a movement to durable mode's actuator log, with the call's key
 * (the idempotency_key argument; else "retry:" and the retry key in hex;
 * else "-"). */
static GREENHOUSE_NOINLINE int vent_moved(const mcp_call_t *call, const mcp_str_t *arg_key, int before,
                                          int after)
{
    char key[2 * MCP_DEDUP_KEY_MAX + 8];
    const mcp_str_t *rk = retry_key(call);
    if (arg_key != NULL && arg_key->len <= MCP_DEDUP_KEY_MAX) {
        memcpy(key, arg_key->ptr, arg_key->len);
        key[arg_key->len] = '\0';
    } else {
        strcpy(key, rk != NULL ? "retry:" : "-");
        for (size_t i = 0; rk != NULL && i < rk->len; i++) {
            snprintf(key + 6 + 2 * i, 3, "%02x", (unsigned)(uint8_t)rk->ptr[i]);
        }
    }
    return durable.actuated(key, before, after);
}

/* set_vent through either definition: percent, and the idempotency_key
 * argument (NULL when the call has none). */
static int set_vent(const mcp_call_t *call, mcp_result_t *r, bool *is_error, int64_t percent,
                    const mcp_str_t *arg_key)
{
    /* The core validated the arguments against the schema and filled them
     * in; this second check keeps the actuator safe even if the schema and
     * the code drift apart. */
    if (percent < 0 || percent > 100) {
        return result_refused(r, is_error, "percent must be an integer 0-100");
    }
    int rc;
    if (percent > 0 && atomic_load(&wind_lock_on)) {
        return result_refused(r, is_error, "refused: wind lock active");
    }
    if (percent > GREENHOUSE_CONFIRM_ABOVE) {
        rc = confirm_opening(call, r, is_error, percent);
        if (rc != 0 || *is_error) {
            return rc;
        }
    }

    /* The schema requires it (or the transport keys the request): never move without one. */
    if (durable.key_required && arg_key == NULL && retry_key(call) == NULL) {
        return result_refused(r, is_error, "idempotency_key is required");
    }

    /* A real gateway commands the actuator here and waits for its ack. */
    int before = atomic_load(&vent_percent); /* for the log (no exchange on Cortex-M0) */
    atomic_store(&vent_percent, (int)percent);
    fprintf(stderr, "vent: %d%% -> %d%%\n", before, (int)percent);
    if (durable.actuated != NULL) {
        rc = vent_moved(call, arg_key, before, (int)percent);
        if (rc != 0) {
            return rc;
        }
    }

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

/* ---- Registration ------------------------------------------------------ */

/* The typed callbacks emcp-gen declared (greenhouse_tools.h): each gets its
 * arguments filled in by the core, after they passed the schema. */
static int tool_done(int rc)
{
    return rc == BODY_ASKED ? 0 : rc;
}

int greenhouse_read_sensor(const struct greenhouse_read_sensor_args *args, const mcp_call_t *call,
                           mcp_result_t *r, void *user)
{
    (void)user;
    bool is_error = false;
    return tool_done(read_sensor(args, call, r, &is_error));
}

int greenhouse_set_vent(const struct greenhouse_set_vent_args *args, const mcp_call_t *call,
                        mcp_result_t *r, void *user)
{
    (void)user;
    bool is_error = false;
    return tool_done(set_vent(call, r, &is_error, args->percent,
                              args->has_idempotency_key ? &args->idempotency_key : NULL));
}

int greenhouse_set_vent_keyed(const struct greenhouse_set_vent_keyed_args *args,
                              const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    bool is_error = false;
    return tool_done(set_vent(call, r, &is_error, args->percent, &args->idempotency_key));
}

struct greenhouse_tool {
    const mcp_tool_t *def;
    mcp_tool_fn fn;
};

/* The definitions (names, descriptions, schemas, limits, typed arguments)
 * are those of greenhouse_tools.json, turned into constants at build time
 * by emcp-gen (emcp_generate_tools in CMakeLists.txt): every schema was
 * checked then, so a library without the schema checker (the minimal
 * profile, as the QEMU firmware) registers them as they are. set_vent's
 * longest answer is the refusal "refused: opening above 80% needs a
 * confirmation this client cannot give" with {"ok":false} (maxResultLen 129;
 * success is 87), measured by mcp_server_tool_usage after the e2e tests, so
 * a call whose answer cannot be delivered never moves the vent.
 *
 * Registered in this order; a fixed order helps client and prompt caches.
 * The policy bits of --policy are indices into this table. */
static const struct greenhouse_tool tools[] = {
    {.def = &greenhouse_tools[GREENHOUSE_TOOL_READ_SENSOR], .fn = greenhouse_read_sensor_call},
    {.def = &greenhouse_tools[GREENHOUSE_TOOL_SET_VENT], .fn = greenhouse_set_vent_call},
};

#define TOOL_COUNT (sizeof tools / sizeof tools[0])

void greenhouse_set_durable(const greenhouse_durable_t *d)
{
    durable = *d;
}
_Static_assert(TOOL_COUNT <= 32, "--policy keeps one bit per tool in a uint32_t");

/* ---- Policy (--policy PRINCIPAL=TOOL[,TOOL...]) ------------------------- */

struct policy_entry {
    const char *principal; /* points into the option's text (argv) */
    size_t len;
    uint32_t tools; /* bit i: tools[i] */
};

static struct policy_entry policy[GREENHOUSE_POLICY_MAX];
static size_t policy_len;

int greenhouse_add_policy(const char *spec, const char **why)
{
    static const char *msg;
    const char *eq = spec != NULL ? strchr(spec, '=') : NULL;
    if (eq == NULL || eq == spec) {
        msg = "wants PRINCIPAL=TOOL[,TOOL...]";
        goto fail;
    }
    size_t plen = (size_t)(eq - spec);
    uint32_t mask = 0;
    for (const char *t = eq + 1; *t != '\0';) {
        const char *comma = strchr(t, ',');
        size_t tlen = comma != NULL ? (size_t)(comma - t) : strlen(t);
        size_t i = 0;
        while (i < TOOL_COUNT &&
               !(strlen(tools[i].def->name) == tlen && memcmp(tools[i].def->name, t, tlen) == 0)) {
            i++;
        }
        if (i == TOOL_COUNT) {
            msg = "names a tool that does not exist (read_sensor, set_vent)";
            goto fail;
        }
        mask |= 1u << i;
        if (comma == NULL) {
            break;
        }
        t = comma + 1;
    }
    for (size_t i = 0; i < policy_len; i++) {
        if (policy[i].len == plen && memcmp(policy[i].principal, spec, plen) == 0) {
            policy[i].tools |= mask; /* a repeated principal gets both lists */
            return 0;
        }
    }
    if (policy_len >= GREENHOUSE_POLICY_MAX) {
        msg = "names more than GREENHOUSE_POLICY_MAX principals";
        goto fail;
    }
    policy[policy_len].principal = spec;
    policy[policy_len].len = plen;
    policy[policy_len].tools = mask;
    policy_len++;
    return 0;
fail:
    if (why != NULL) {
        *why = msg;
    }
    return -MCP_EINVAL;
}

/* The core's policy hook: only what --policy granted (never a guess). */
static bool policy_allows(void *user, const uint8_t *principal, size_t principal_len,
                          const char *tool, size_t tool_len)
{
    (void)user;
    if (principal == NULL) {
        return false;
    }
    for (size_t i = 0; i < policy_len; i++) {
        if (policy[i].len != principal_len || memcmp(policy[i].principal, principal, principal_len) != 0) {
            continue;
        }
        for (size_t t = 0; t < TOOL_COUNT; t++) {
            if (strlen(tools[t].def->name) == tool_len && memcmp(tools[t].def->name, tool, tool_len) == 0) {
                return (policy[i].tools & (1u << t)) != 0;
            }
        }
        return false;
    }
    return false;
}

/* ---- Audit ------------------------------------------------------------- */

static const char *outcome_name(uint32_t outcome)
{
    switch (outcome) {
    case MCP_AUDIT_OK:
        return "ok";
    case MCP_AUDIT_IS_ERROR:
        return "is_error";
    case MCP_AUDIT_REFUSED:
        return "refused";
    case MCP_AUDIT_RATE_LIMITED:
        return "rate_limited";
    case MCP_AUDIT_DUPLICATE:
        return "duplicate";
    case MCP_AUDIT_INVALID_ARGUMENTS:
        return "invalid_arguments";
    case MCP_AUDIT_INPUT_REQUIRED:
        return "input_required";
    case MCP_AUDIT_FAILED:
        return "failed";
    case MCP_AUDIT_NO_SPACE:
        return "no_space";
    case MCP_AUDIT_OVER_DECLARED:
        return "over_declared";
    default:
        return "unknown";
    }
}

/* Appends up to @p len bytes of @p p, stopping at a NUL (as printf's "%.*s"),
 * to line[*at..cap), as many as fit with the line's NUL. The audit line is
 * made with these rather than snprintf: it is written for every call, and
 * snprintf cost more than the rest of the hook together. */
static void put_bytes(char *line, size_t cap, size_t *at, const char *p, size_t len)
{
    for (size_t i = 0; i < len && p[i] != '\0' && *at + 1 < cap; i++) {
        line[(*at)++] = p[i];
    }
    line[*at] = '\0';
}

static void put_str(char *line, size_t cap, size_t *at, const char *p)
{
    put_bytes(line, cap, at, p, SIZE_MAX);
}

/* Appends @p v in decimal (as printf's "%llu"). */
static void put_u64(char *line, size_t cap, size_t *at, uint64_t v)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    while (n > 0 && *at + 1 < cap) {
        line[(*at)++] = digits[--n];
    }
    line[*at] = '\0';
}

/* Appends the principal to line[*at..cap): printable ASCII other than space
 * and backslash as is, any other byte as \xHH, so a name can neither split
 * the line nor forge a field; "-" when the transport authenticated none. */
static void put_principal(char *line, size_t cap, size_t *at, const char *p, size_t len)
{
    if (p == NULL) {
        *at += (size_t)snprintf(line + *at, cap - *at, "-");
        return;
    }
    size_t shown = len <= GREENHOUSE_AUDIT_PRINCIPAL_MAX ? len : GREENHOUSE_AUDIT_PRINCIPAL_MAX;
    for (size_t i = 0; i < shown && *at + 5 < cap; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c > 0x20 && c < 0x7f && c != '\\') {
            line[(*at)++] = (char)c;
        } else {
            *at += (size_t)snprintf(line + *at, cap - *at, "\\x%02x", c);
        }
    }
    if (shown < len && *at + 4 < cap) {
        *at += (size_t)snprintf(line + *at, cap - *at, "...");
    }
    line[*at] = '\0';
}

/* Copies the JSON text minified (whitespace outside strings dropped) into
 * out[0..cap); returns its length, or -1 when it does not fit. JSON strings
 * hold no raw control characters, so the result is one line. */
static int minify(const char *json, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    bool in_string = false, escaped = false;
    for (size_t i = 0; i < len; i++) {
        char c = json[i];
        if (!in_string && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
            continue;
        }
        if (n + 1 >= cap) {
            return -1;
        }
        out[n++] = c;
        if (escaped) {
            escaped = false;
        } else if (in_string && c == '\\') {
            escaped = true;
        } else if (c == '"') {
            in_string = !in_string;
        }
    }
    out[n] = '\0';
    return (int)n;
}

/* The core's audit hook: one line per tools/call of a registered tool, after
 * validation and policy, whatever the outcome, written with one call. */
static void greenhouse_audit(void *user, const mcp_audit_t *rec)
{
    (void)user;
    char line[4 * GREENHOUSE_AUDIT_PRINCIPAL_MAX + MCP_MAX_TOOL_NAME_LEN + GREENHOUSE_AUDIT_ARGS_MAX +
              160];
    size_t at = 0;
    put_str(line, sizeof line, &at, "audit: principal=");
    put_principal(line, sizeof line, &at, rec->principal, rec->principal_len);
    put_str(line, sizeof line, &at, " tool=");
    put_bytes(line, sizeof line, &at, rec->tool, rec->tool_len);
    put_str(line, sizeof line, &at, " args=");
    int n = minify(rec->arguments, rec->arguments_len, line + at, GREENHOUSE_AUDIT_ARGS_MAX);
    at += n >= 0 ? (size_t)n
                 : (size_t)snprintf(line + at, sizeof line - at, "(over %d bytes)",
                                    GREENHOUSE_AUDIT_ARGS_MAX - 1);
    put_str(line, sizeof line, &at, " outcome=");
    put_str(line, sizeof line, &at, outcome_name(rec->outcome));
    put_str(line, sizeof line, &at, " trace=");
    put_bytes(line, sizeof line, &at, rec->trace_id != NULL ? rec->trace_id : "-",
              rec->trace_id != NULL ? 32 : 1);
    put_str(line, sizeof line, &at, " ms=");
    put_u64(line, sizeof line, &at, rec->duration_ms);
    put_str(line, sizeof line, &at, "\n");
    /* No flush: stderr is unbuffered unless the program chose otherwise
     * (greenhouse-stdio buffers it and has the binding flush it before each
     * block of answers leaves and before each wait for input). */
    fwrite(line, 1, at < sizeof line ? at : sizeof line - 1, stderr);
    if (durable.answered != NULL) {
        durable.answered(rec->tool, rec->tool_len, rec->outcome);
    }
}

static uint64_t audit_clock(void *user)
{
    (void)user;
    return emcp_monotonic_ms();
}

#if defined(__ZEPHYR__)
/* Fills buf from Zephyr's cryptographically secure generator. */
static int random_bytes(uint8_t *buf, size_t len)
{
    return sys_csrand_get(buf, len) == 0 ? 0 : -1;
}
#else
/* Fills buf from the host's entropy source. */
static int random_bytes(uint8_t *buf, size_t len)
{
    FILE *f = fopen("/dev/urandom", "rb");
    if (f == NULL) {
        fprintf(stderr, "greenhouse: cannot open /dev/urandom for the state key\n");
        return -1;
    }
    size_t got = fread(buf, 1, len, f);
    fclose(f);
    return got == len ? 0 : -1;
}
#endif

static uint32_t list_page_size;

void greenhouse_set_list_page_size(uint32_t tools_per_page)
{
    list_page_size = tools_per_page;
}

int greenhouse_register(mcp_server_t *server, bool wind_lock)
{
    const mcp_server_config_t config = {
        .name = "greenhouse-gw",
        .version = "0.4.0",
        .title = "Greenhouse gateway",
        .instructions = NULL,
        .list_ttl_ms = 3600000u,
        .cache_scope = MCP_CACHE_PUBLIC,
        .list_page_size = list_page_size,
    };

    atomic_store(&readings_taken_ms, emcp_monotonic_ms());
    atomic_store(&wind_lock_on, wind_lock);
    atomic_store(&vent_percent, durable.vent_percent >= 0 ? durable.vent_percent : 0);

    int rc = mcp_server_init(server, &config);
    if (rc != 0) {
        return rc;
    }
    /* requestState of the vent confirmation is MAC-protected under a key
     * that lives as long as this process; firmware uses its TRNG. */
    uint8_t key[32];
    if (random_bytes(key, sizeof key) != 0) {
        return -MCP_EINVAL;
    }
    rc = mcp_server_set_state_key(server, key, sizeof key);
    if (rc != 0 && rc != -MCP_ENOTSUP) { /* -MCP_ENOTSUP: a build without `mrtr`, where
                                           set_vent refuses openings above 80 % instead */
        return rc;
    }
    for (size_t i = 0; i < TOOL_COUNT; i++) {
        mcp_tool_t def = *tools[i].def;
        mcp_tool_fn fn = tools[i].fn;
        if (def.idempotency_key != NULL && durable.key_required && !durable.retry_keys) {
            /* With durable records every call carries an idempotency key,
             * so none can move the vent without one. */
            def = greenhouse_tools[GREENHOUSE_TOOL_SET_VENT_KEYED];
            fn = greenhouse_set_vent_keyed_call;
        }
        if (def.min_interval_ms != 0) {
            /* The tools file marks set_vent rate-limited; the interval is
             * GREENHOUSE_VENT_INTERVAL_MS (a build may change it), or the
             * durable state's. */
            def.min_interval_ms = durable.vent_interval_ms >= 0 ? (uint32_t)durable.vent_interval_ms
                                                                : GREENHOUSE_VENT_INTERVAL_MS;
        }
        rc = mcp_server_add_tool(server, &def, fn, NULL);
        if (rc != 0) {
            char why[160];
            if (mcp_server_schema_error(server, why, sizeof why) > 0) {
                fprintf(stderr, "greenhouse: %s: %s\n", tools[i].def->name, why);
            }
            return rc;
        }
    }
    /* A build without `policy` has no audit hook and no rate limits: the
     * tools still run (their schemas are enforced), unaudited. A --policy it
     * cannot enforce is refused rather than ignored. */
    rc = mcp_server_set_audit(server, greenhouse_audit, audit_clock, NULL);
    if (rc == -MCP_ENOTSUP && policy_len == 0) {
        rc = 0;
    }
    if (rc == 0 && policy_len > 0) {
        rc = mcp_server_set_policy(server, policy_allows, NULL);
    }
    if (rc == 0) {
        rc = greenhouse_register_catalog(server);
        rc = rc == -MCP_ENOTSUP ? 0 : rc; /* a build without `catalog`: tools only */
    }
    return rc;
}
