/*
 * test_args: what a tool callback reads: mcp_arg_* accessors and paths,
 * mcp_call_arguments, mcp_call_tool_name, mcp_call_ctx and the user pointer.
 * The checks run inside the callback; each test also checks that it ran.
 */
#include "check.h"

static mcp_server_t server;
static void (*scenario)(const mcp_call_t *call);
static int ran;
static void *seen_user;
static const mcp_call_t *seen_call;

static const char probe_name[] = "probe";
static const char probe2_name[] = "probe.two";
static int user_object;

static int probe_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    ran++;
    seen_user = user;
    seen_call = call;
    if (scenario) {
        scenario(call);
    }
    return mcp_result_text(result, "done", 4);
}

/* A legacy tools/call of `tool` with `args` (raw JSON members of params, or ""). */
static void call_tool(const mcp_request_ctx_t *ctx, const char *tool, const char *params_extra,
                      void (*fn)(const mcp_call_t *))
{
    static char req[4096];
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"%s}}",
             tool, params_extra);
    scenario = fn;
    ran = 0;
    HANDLE(&server, ctx, req);
    scenario = NULL;
    CHECK_INT(ran, 1);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("result>content>0>text", "\"done\"");
}

/* The main argument object; its member count is ARGS_MEMBERS. */
#define ARGS                                                                                              \
    ",\"arguments\":{\"a\":{\"b\":7,\"c\":{\"d\":\"deep\"}},\"list\":[10,20,{\"x\":-3,\"y\":[true]}],"     \
    "\"one\":1.0,\"hundred\":1e2,\"neg\":-1E+2,\"zero\":-0,\"frac0\":100.000,\"exp_frac\":1.5e1,"         \
    "\"half\":1.5,\"negfrac\":-2.5,\"small_exp\":15e-1,\"pi\":3.25,"                                       \
    "\"big\":9223372036854775808,\"max\":9223372036854775807,\"min\":-9223372036854775808,"               \
    "\"under\":-9223372036854775809,\"huge\":1e400,\"nhuge\":-1e400,\"e18\":1e18,"                         \
    "\"f53\":9007199254740993.0,"                                                                         \
    "\"s\":\"text\",\"esc\":\"q\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\",\"empty\":\"\","           \
    "\"nul\":\"a\\u0000b\",\"t\":true,\"f\":false,\"n\":null,\"e\":[],\"o\":{},\"k\\u0065y\":5}"
#define ARGS_MEMBERS 30

static const char *const malformed_paths[] = {
    "a..b", ".a", "a.", "list[", "list[]", "list[x]", "list[-1]", "list[0]x", "list[1", "list[0]]",
    "list[ 0]", "[", "a.[0]", "list[0].", "bad\xff",
};
#define N_MALFORMED (sizeof malformed_paths / sizeof malformed_paths[0])

#define CHECK_INT_ARG(call, path, want)                               \
    do {                                                              \
        int64_t v_ = 0;                                               \
        CHECK_INT(mcp_arg_int((call), (path), &v_), 0);               \
        CHECK(v_ == (int64_t)(want));                                 \
    } while (0)

static void ints(const mcp_call_t *c)
{
    int64_t v = 0;
    CHECK_INT_ARG(c, "a.b", 7);
    CHECK_INT_ARG(c, "list[0]", 10);
    CHECK_INT_ARG(c, "list[1]", 20);
    CHECK_INT_ARG(c, "list[2].x", -3);
    CHECK_INT_ARG(c, "one", 1);
    CHECK_INT_ARG(c, "hundred", 100);
    CHECK_INT_ARG(c, "neg", -100);
    CHECK_INT_ARG(c, "zero", 0);
    CHECK_INT_ARG(c, "frac0", 100);
    CHECK_INT_ARG(c, "exp_frac", 15);
    CHECK_INT_ARG(c, "max", INT64_MAX);
    CHECK_INT_ARG(c, "min", INT64_MIN);
    CHECK_INT_ARG(c, "key", 5); /* the key is written "k\u0065y" */

    /* Not integers. */
    CHECK_INT(mcp_arg_int(c, "half", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "negfrac", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "small_exp", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "pi", &v), -MCP_EDOM);
    /* Not numbers. */
    CHECK_INT(mcp_arg_int(c, "s", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "t", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "n", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "a", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "list", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "list[2].y[0]", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_int(c, "", &v), -MCP_EDOM);
    /* Out of range. */
    CHECK_INT(mcp_arg_int(c, "big", &v), -MCP_ERANGE);
    CHECK_INT(mcp_arg_int(c, "under", &v), -MCP_ERANGE);
    CHECK_INT(mcp_arg_int(c, "huge", &v), -MCP_ERANGE);
    CHECK_INT(mcp_arg_int(c, "nhuge", &v), -MCP_ERANGE);

    /* 1e18 is an integral number that fits int64_t. */
    v = 0;
    CHECK_INT(mcp_arg_int(c, "e18", &v), 0);
    CHECK_INT(v, 1000000000000000000LL);

    /* 9007199254740993.0 fits int64_t but not a double: the exact value or
     * -MCP_ERANGE, never a silently rounded one. */
    v = 0;
    int rc = mcp_arg_int(c, "f53", &v);
    if (!check_record((rc == 0 && v == 9007199254740993LL) || rc == -MCP_ERANGE, __FILE__, __LINE__,
                      "mcp_arg_int(\"f53\") is exact or -MCP_ERANGE"))
        fprintf(stderr, "    rc %d, value %lld\n", rc, (long long)v);

    /* Missing. */
    CHECK_INT(mcp_arg_int(c, "missing", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "a.x", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "a.b.c", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "a[0]", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "list[3]", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "list[99]", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "list.x", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "list[2].z", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "A.b", &v), -MCP_ENOENT);

    /* Malformed paths and NULL pointers. */
    for (size_t i = 0; i < N_MALFORMED; i++) {
        if (!check_record(mcp_arg_int(c, malformed_paths[i], &v) == -MCP_EINVAL, __FILE__, __LINE__,
                          "malformed path: mcp_arg_int gives -MCP_EINVAL"))
            fprintf(stderr, "    path \"%s\"\n", malformed_paths[i]);
    }
    CHECK_INT(mcp_arg_int(c, NULL, &v), -MCP_EINVAL);
    CHECK_INT(mcp_arg_int(c, "a.b", NULL), -MCP_EINVAL);
    CHECK_INT(mcp_arg_int(NULL, "a.b", &v), -MCP_EINVAL);
}

static void numbers(const mcp_call_t *c)
{
    double d = 0;
    CHECK_INT(mcp_arg_number(c, "pi", &d), 0);
    CHECK(d == 3.25);
    CHECK_INT(mcp_arg_number(c, "one", &d), 0);
    CHECK(d == 1.0);
    CHECK_INT(mcp_arg_number(c, "neg", &d), 0);
    CHECK(d == -100.0);
    CHECK_INT(mcp_arg_number(c, "list[2].x", &d), 0);
    CHECK(d == -3.0);
    CHECK_INT(mcp_arg_number(c, "half", &d), 0);
    CHECK(d == 1.5);
    CHECK_INT(mcp_arg_number(c, "big", &d), 0);
    CHECK(d == 9223372036854775808.0);
    CHECK_INT(mcp_arg_number(c, "min", &d), 0);
    CHECK(d == -9223372036854775808.0);
    CHECK_INT(mcp_arg_number(c, "huge", &d), -MCP_ERANGE);
    CHECK_INT(mcp_arg_number(c, "nhuge", &d), -MCP_ERANGE);
    CHECK_INT(mcp_arg_number(c, "s", &d), -MCP_EDOM);
    CHECK_INT(mcp_arg_number(c, "t", &d), -MCP_EDOM);
    CHECK_INT(mcp_arg_number(c, "n", &d), -MCP_EDOM);
    CHECK_INT(mcp_arg_number(c, "o", &d), -MCP_EDOM);
    CHECK_INT(mcp_arg_number(c, "missing", &d), -MCP_ENOENT);
    CHECK_INT(mcp_arg_number(c, "list[7]", &d), -MCP_ENOENT);
    for (size_t i = 0; i < N_MALFORMED; i++) {
        if (!check_record(mcp_arg_number(c, malformed_paths[i], &d) == -MCP_EINVAL, __FILE__, __LINE__,
                          "malformed path: mcp_arg_number gives -MCP_EINVAL"))
            fprintf(stderr, "    path \"%s\"\n", malformed_paths[i]);
    }
    CHECK_INT(mcp_arg_number(c, "pi", NULL), -MCP_EINVAL);
    CHECK_INT(mcp_arg_number(NULL, "pi", &d), -MCP_EINVAL);
}

static void bools(const mcp_call_t *c)
{
    bool b = false;
    CHECK_INT(mcp_arg_bool(c, "t", &b), 0);
    CHECK(b == true);
    CHECK_INT(mcp_arg_bool(c, "f", &b), 0);
    CHECK(b == false);
    CHECK_INT(mcp_arg_bool(c, "list[2].y[0]", &b), 0);
    CHECK(b == true);
    CHECK_INT(mcp_arg_bool(c, "n", &b), -MCP_EDOM);
    CHECK_INT(mcp_arg_bool(c, "one", &b), -MCP_EDOM);
    CHECK_INT(mcp_arg_bool(c, "zero", &b), -MCP_EDOM);
    CHECK_INT(mcp_arg_bool(c, "s", &b), -MCP_EDOM);
    CHECK_INT(mcp_arg_bool(c, "e", &b), -MCP_EDOM);
    CHECK_INT(mcp_arg_bool(c, "missing", &b), -MCP_ENOENT);
    for (size_t i = 0; i < N_MALFORMED; i++) {
        if (!check_record(mcp_arg_bool(c, malformed_paths[i], &b) == -MCP_EINVAL, __FILE__, __LINE__,
                          "malformed path: mcp_arg_bool gives -MCP_EINVAL"))
            fprintf(stderr, "    path \"%s\"\n", malformed_paths[i]);
    }
    CHECK_INT(mcp_arg_bool(c, "t", NULL), -MCP_EINVAL);
    CHECK_INT(mcp_arg_bool(NULL, "t", &b), -MCP_EINVAL);
}

static void strings(const mcp_call_t *c)
{
    char buf[64];
    size_t len = 0;
    /* q " \ / BS FF LF CR TAB, e-acute (2 bytes), U+1F600 (4 bytes) */
    static const char esc[] = "q\"\\/\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80";
    const size_t esc_len = sizeof esc - 1;

    CHECK_INT(mcp_arg_string(c, "s", buf, sizeof buf, &len), 0);
    CHECK_STR(buf, "text");
    CHECK_INT(len, 4);
    CHECK_INT(mcp_arg_string(c, "a.c.d", buf, sizeof buf, &len), 0);
    CHECK_STR(buf, "deep");
    CHECK_INT(mcp_arg_string(c, "s", buf, sizeof buf, NULL), 0);
    CHECK_STR(buf, "text");

    memset(buf, 0x5A, sizeof buf);
    CHECK_INT(mcp_arg_string(c, "esc", buf, sizeof buf, &len), 0);
    CHECK_INT(len, esc_len);
    CHECK_MEM(buf, len, esc);
    CHECK(buf[esc_len] == '\0');

    /* Exactly length + 1 fits; one byte less does not, but reports the length. */
    memset(buf, 0x5A, sizeof buf);
    len = 0;
    CHECK_INT(mcp_arg_string(c, "esc", buf, esc_len + 1, &len), 0);
    CHECK_INT(len, esc_len);
    CHECK_MEM(buf, len, esc);
    CHECK(buf[esc_len] == '\0');
    memset(buf, 0x5A, sizeof buf);
    len = 0;
    CHECK_INT(mcp_arg_string(c, "esc", buf, esc_len, &len), -MCP_ENOBUFS);
    CHECK_INT(len, esc_len);
    memset(buf, 0x5A, sizeof buf);
    len = 0;
    CHECK_INT(mcp_arg_string(c, "esc", buf, 4, &len), -MCP_ENOBUFS);
    CHECK_INT(len, esc_len);
    bool untouched = true;
    for (size_t i = 4; i < sizeof buf; i++) {
        untouched = untouched && buf[i] == 0x5A;
    }
    CHECK(untouched); /* nothing written past cap */
    len = 0;
    CHECK_INT(mcp_arg_string(c, "esc", NULL, 0, &len), -MCP_ENOBUFS);
    CHECK_INT(len, esc_len);

    CHECK_INT(mcp_arg_string(c, "empty", buf, 1, &len), 0);
    CHECK_INT(len, 0);
    CHECK(buf[0] == '\0');

    CHECK_INT(mcp_arg_string(c, "nul", buf, sizeof buf, &len), 0);
    CHECK_INT(len, 3);
    CHECK(buf[0] == 'a' && buf[1] == '\0' && buf[2] == 'b' && buf[3] == '\0');

    CHECK_INT(mcp_arg_string(c, "one", buf, sizeof buf, &len), -MCP_EDOM);
    CHECK_INT(mcp_arg_string(c, "n", buf, sizeof buf, &len), -MCP_EDOM);
    CHECK_INT(mcp_arg_string(c, "t", buf, sizeof buf, &len), -MCP_EDOM);
    CHECK_INT(mcp_arg_string(c, "a", buf, sizeof buf, &len), -MCP_EDOM);
    CHECK_INT(mcp_arg_string(c, "missing", buf, sizeof buf, &len), -MCP_ENOENT);
    CHECK_INT(mcp_arg_string(c, "list[2].x.q", buf, sizeof buf, &len), -MCP_ENOENT);
    for (size_t i = 0; i < N_MALFORMED; i++) {
        if (!check_record(mcp_arg_string(c, malformed_paths[i], buf, sizeof buf, &len) == -MCP_EINVAL, __FILE__,
                          __LINE__, "malformed path: mcp_arg_string gives -MCP_EINVAL"))
            fprintf(stderr, "    path \"%s\"\n", malformed_paths[i]);
    }
    CHECK_INT(mcp_arg_string(c, NULL, buf, sizeof buf, &len), -MCP_EINVAL);
    CHECK_INT(mcp_arg_string(NULL, "s", buf, sizeof buf, &len), -MCP_EINVAL);
}

static void types_and_counts(const mcp_call_t *c)
{
    CHECK_INT(mcp_arg_type(c, ""), MCP_JSON_OBJECT);
    CHECK_INT(mcp_arg_type(c, "a"), MCP_JSON_OBJECT);
    CHECK_INT(mcp_arg_type(c, "o"), MCP_JSON_OBJECT);
    CHECK_INT(mcp_arg_type(c, "list[2]"), MCP_JSON_OBJECT);
    CHECK_INT(mcp_arg_type(c, "list"), MCP_JSON_ARRAY);
    CHECK_INT(mcp_arg_type(c, "e"), MCP_JSON_ARRAY);
    CHECK_INT(mcp_arg_type(c, "list[2].y"), MCP_JSON_ARRAY);
    CHECK_INT(mcp_arg_type(c, "s"), MCP_JSON_STRING);
    CHECK_INT(mcp_arg_type(c, "empty"), MCP_JSON_STRING);
    CHECK_INT(mcp_arg_type(c, "one"), MCP_JSON_NUMBER);
    CHECK_INT(mcp_arg_type(c, "huge"), MCP_JSON_NUMBER);
    CHECK_INT(mcp_arg_type(c, "list[0]"), MCP_JSON_NUMBER);
    CHECK_INT(mcp_arg_type(c, "t"), MCP_JSON_BOOL);
    CHECK_INT(mcp_arg_type(c, "f"), MCP_JSON_BOOL);
    CHECK_INT(mcp_arg_type(c, "n"), MCP_JSON_NULL);
    CHECK_INT(mcp_arg_type(c, "missing"), -MCP_ENOENT);
    CHECK_INT(mcp_arg_type(c, "list[3]"), -MCP_ENOENT);
    for (size_t i = 0; i < N_MALFORMED; i++) {
        if (!check_record(mcp_arg_type(c, malformed_paths[i]) == -MCP_EINVAL, __FILE__, __LINE__,
                          "malformed path: mcp_arg_type gives -MCP_EINVAL"))
            fprintf(stderr, "    path \"%s\"\n", malformed_paths[i]);
    }
    CHECK_INT(mcp_arg_type(c, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_arg_type(NULL, "s"), -MCP_EINVAL);

    CHECK_INT(mcp_arg_count(c, ""), ARGS_MEMBERS);
    CHECK_INT(mcp_arg_count(c, "list"), 3);
    CHECK_INT(mcp_arg_count(c, "a"), 2);
    CHECK_INT(mcp_arg_count(c, "a.c"), 1);
    CHECK_INT(mcp_arg_count(c, "list[2]"), 2);
    CHECK_INT(mcp_arg_count(c, "list[2].y"), 1);
    CHECK_INT(mcp_arg_count(c, "e"), 0);
    CHECK_INT(mcp_arg_count(c, "o"), 0);
    CHECK_INT(mcp_arg_count(c, "s"), -MCP_EDOM);
    CHECK_INT(mcp_arg_count(c, "one"), -MCP_EDOM);
    CHECK_INT(mcp_arg_count(c, "n"), -MCP_EDOM);
    CHECK_INT(mcp_arg_count(c, "t"), -MCP_EDOM);
    CHECK_INT(mcp_arg_count(c, "missing"), -MCP_ENOENT);
    for (size_t i = 0; i < N_MALFORMED; i++) {
        if (!check_record(mcp_arg_count(c, malformed_paths[i]) == -MCP_EINVAL, __FILE__, __LINE__,
                          "malformed path: mcp_arg_count gives -MCP_EINVAL"))
            fprintf(stderr, "    path \"%s\"\n", malformed_paths[i]);
    }
    CHECK_INT(mcp_arg_count(c, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_arg_count(NULL, ""), -MCP_EINVAL);
}

/* Compact JSON of the arguments below, as mcp_call_arguments writes it. */
static const char args_compact[] = "{\"a\":[1,2],\"s\":\"x  y\",\"q\":\"a\\\"b\\\\\",\"o\":{},\"n\":-1.5e3}";

static void arguments_json(const mcp_call_t *c)
{
    char buf[128];
    const size_t n = sizeof args_compact - 1;

    memset(buf, 0x5A, sizeof buf);
    CHECK_INT(mcp_call_arguments(c, buf, sizeof buf), (int)n);
    CHECK_MEM(buf, n, args_compact);
    CHECK(buf[n] == '\0');

    memset(buf, 0x5A, sizeof buf);
    CHECK_INT(mcp_call_arguments(c, buf, n + 1), (int)n);
    CHECK_MEM(buf, n, args_compact);
    CHECK(buf[n] == '\0');

    memset(buf, 0x5A, sizeof buf);
    CHECK_INT(mcp_call_arguments(c, buf, n), -MCP_ENOBUFS);
    bool untouched = true;
    for (size_t i = n; i < sizeof buf; i++) {
        untouched = untouched && buf[i] == 0x5A;
    }
    CHECK(untouched);
    memset(buf, 0x5A, sizeof buf);
    CHECK_INT(mcp_call_arguments(c, buf, 10), -MCP_ENOBUFS);
    untouched = true;
    for (size_t i = 10; i < sizeof buf; i++) {
        untouched = untouched && buf[i] == 0x5A;
    }
    CHECK(untouched);

    CHECK_INT(mcp_call_arguments(c, NULL, sizeof buf), -MCP_EINVAL);
    CHECK_INT(mcp_call_arguments(NULL, buf, sizeof buf), -MCP_EINVAL);
}

static void no_arguments(const mcp_call_t *c)
{
    char buf[8];
    int64_t v;
    size_t len;

    memset(buf, 0x5A, sizeof buf);
    CHECK_INT(mcp_call_arguments(c, buf, sizeof buf), 2);
    CHECK(buf[0] == '{' && buf[1] == '}' && buf[2] == '\0');
    CHECK_INT(mcp_call_arguments(c, buf, 3), 2);
    CHECK_INT(mcp_call_arguments(c, buf, 2), -MCP_ENOBUFS);

    CHECK_INT(mcp_arg_int(c, "x", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_string(c, "x", buf, sizeof buf, &len), -MCP_ENOENT);
    CHECK_INT(mcp_arg_type(c, "x"), -MCP_ENOENT);
}

static void name_probe(const mcp_call_t *c)
{
    const char *n = mcp_call_tool_name(c);
    CHECK(n == probe_name);
    CHECK_STR(n, "probe");
    CHECK(mcp_call_tool_name(NULL) == NULL);
    CHECK(mcp_call_ctx(NULL) == NULL);
}

static void name_probe2(const mcp_call_t *c)
{
    const char *n = mcp_call_tool_name(c);
    CHECK(n == probe2_name);
    CHECK_STR(n, "probe.two");
}

static const mcp_request_ctx_t *expected_ctx;

static void ctx_probe(const mcp_call_t *c)
{
    const mcp_request_ctx_t *ctx = mcp_call_ctx(c);
    CHECK(ctx == expected_ctx);
    if (ctx != NULL) {
        CHECK_MEM(ctx->principal.ptr, ctx->principal.len, "local");
        CHECK_INT(ctx->now_ms, 123456789);
        CHECK(ctx->transport_context == (void *)&user_object);
    }
}

static void modern_probe(const mcp_call_t *c)
{
    char buf[64];
    CHECK_INT_ARG(c, "a.b", 7);
    CHECK_INT(mcp_arg_type(c, "_meta"), -MCP_ENOENT);
    CHECK_INT(mcp_arg_count(c, ""), 1);
    CHECK_INT(mcp_call_arguments(c, buf, sizeof buf), (int)strlen("{\"a\":{\"b\":7}}"));
    CHECK_STR(buf, "{\"a\":{\"b\":7}}");
}

int main(void)
{
    init_server(&server, 0, MCP_CACHE_PRIVATE);
    /* 29: probe_tool's {"type":"text","text":"done"}. */
    mcp_tool_t probe = {.name = probe_name, .input_schema = "{\"type\":\"object\"}", .max_result_len = 29};
    mcp_tool_t probe2 = {.name = probe2_name, .input_schema = "{\"type\":\"object\"}", .max_result_len = 29};
    CHECK_INT(mcp_server_add_tool(&server, &probe, probe_tool, &user_object), 0);
    CHECK_INT(mcp_server_add_tool(&server, &probe2, probe_tool, NULL), 0);

    call_tool(NULL, "probe", ARGS, ints);
    CHECK(seen_user == &user_object);
    call_tool(NULL, "probe", ARGS, numbers);
    call_tool(NULL, "probe", ARGS, bools);
    call_tool(NULL, "probe", ARGS, strings);
    call_tool(NULL, "probe", ARGS, types_and_counts);

    call_tool(NULL, "probe",
              ",\"arguments\" : { \"a\" : [ 1 , 2 ] ,\n \"s\" : \"x  y\" ,\t\"q\":\"a\\\"b\\\\\", \"o\" : { } , "
              "\"n\" : -1.5e3 }",
              arguments_json);
    call_tool(NULL, "probe", "", no_arguments);
    call_tool(NULL, "probe", ",\"arguments\":{}", NULL);

    call_tool(NULL, "probe", "", name_probe);
    call_tool(NULL, "probe.two", "", name_probe2);
    CHECK(seen_user == NULL);

    /* mcp_call_ctx gives back the ctx pointer passed to mcp_server_handle. */
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.principal.ptr = "local";
    ctx.principal.len = 5;
    ctx.now_ms = 123456789;
    ctx.transport_context = &user_object;
    expected_ctx = &ctx;
    call_tool(&ctx, "probe", "", ctx_probe);
    expected_ctx = NULL;
    call_tool(NULL, "probe", "", ctx_probe);

    /* Modern era: the envelope is not part of the arguments. */
    scenario = modern_probe;
    ran = 0;
    HANDLE(&server, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" ENVELOPE
           ",\"name\":\"probe\",\"arguments\":{\"a\":{\"b\":7}}}}");
    scenario = NULL;
    CHECK_INT(ran, 1);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_AT("result>resultType", "\"complete\"");

    CHECK(seen_call != NULL);

    return check_summary("test_args");
}
