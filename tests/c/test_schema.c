/*
 * test_schema: JSON Schema compilation at mcp_server_add_tool and argument
 * validation before the callback (issue 3), through the public header only.
 *
 * - registration: every unsupported keyword (-MCP_ENOTSUP), every malformed
 *   case (-MCP_EINVAL) and full tables (-MCP_ENOSPC), each with the exact
 *   mcp_server_schema_error text; a refused schema leaves the tables as they were;
 * - every supported keyword: a valid call (the callback runs) and an invalid
 *   one (SEP-1303: an isError result whose text is the exact message and whose
 *   text block's _meta names the path and keyword, HTTP 200, the callback
 *   does not run);
 * - `default` seen through mcp_arg_int/number/bool/string/type/count when the
 *   argument is absent;
 * - outputSchema: a mismatching structuredContent is -32603 with the message;
 * - nested objects and array items read through the accessors after validation;
 * - integers beyond 64 bits and 1e400 refused cleanly.
 */
#include "check.h"
#ifdef EMCP_TEST_GREENHOUSE
#include "greenhouse.h"
#endif

#define OBJ "{\"type\":\"object\"}"

static int calls; /* callback runs */

static int nop_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    calls++;
    return mcp_result_text(result, "ran", 3);
}

static mcp_tool_t def(const char *name, const char *in, const char *out)
{
    mcp_tool_t t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.input_schema = in;
    t.output_schema = out;
    t.max_result_len = 28; /* nop_tool's and probe_tool's {"type":"text","text":"ran"} */
    return t;
}

/* The text mcp_server_schema_error gives now. */
static const char *schema_error(const mcp_server_t *s)
{
    static char buf[512];
    memset(buf, 0x5A, sizeof buf);
    int n = mcp_server_schema_error(s, buf, sizeof buf);
    if (n < 0) {
        snprintf(buf, sizeof buf, "(mcp_server_schema_error returned %d)", n);
    } else if ((size_t)n != strlen(buf)) {
        snprintf(buf, sizeof buf, "(length %d does not match the text)", n);
    }
    return buf;
}

/* Registering a tool with these schemas fails with `code` and this schema error text. */
#define REFUSED(s, in, out, code, text) refused_at(__FILE__, __LINE__, (s), (in), (out), (code), (text))

static void refused_at(const char *file, int line, mcp_server_t *s, const char *in, const char *out, int code,
                       const char *text)
{
    mcp_tool_t t = def("refused", in, out);
    int rc = mcp_server_add_tool(s, &t, nop_tool, NULL);
    if (!check_record(rc == code, file, line, "mcp_server_add_tool refuses the schema with the expected code"))
        fprintf(stderr, "    rc %d, expected %d\n    input:  %s\n    output: %s\n    error:  %s\n", rc, code, in,
                out ? out : "(none)", schema_error(s));
    const char *got = schema_error(s);
    if (!check_record(strcmp(got, text) == 0, file, line, "mcp_server_schema_error text"))
        fprintf(stderr, "    actual   \"%s\"\n    expected \"%s\"\n", got, text);
}

/* ---------------------------------------------------------------------------
 * Registration
 * ------------------------------------------------------------------------ */

static void test_unsupported_keywords(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);

    /* Keywords the validator does not implement, on a property and at the root. */
    static const char *const kws[] = {
        "pattern",          "format",      "oneOf",         "anyOf",           "allOf",
        "not",              "$ref",        "$defs",         "definitions",     "if",
        "then",             "else",        "patternProperties", "propertyNames", "dependentRequired",
        "dependentSchemas", "minProperties", "maxProperties", "uniqueItems",    "contains",
        "minContains",      "maxContains", "prefixItems",   "additionalItems", "unevaluatedProperties",
        "unevaluatedItems", "contentEncoding", "contentMediaType", "readOnly",   "writeOnly",
        "deprecated",       "$id",         "$comment",      "nullable",        "x-other",
    };
    for (size_t i = 0; i < sizeof kws / sizeof kws[0]; i++) {
        char in[256];
        char want[128];
        snprintf(in, sizeof in, "{\"type\":\"object\",\"properties\":{\"p\":{\"type\":\"string\",\"%s\":\"x\"}}}", kws[i]);
        snprintf(want, sizeof want, "inputSchema: properties.p.%s: unsupported keyword", kws[i]);
        REFUSED(&s, in, NULL, -MCP_ENOTSUP, want);
        snprintf(in, sizeof in, "{\"type\":\"object\",\"%s\":[]}", kws[i]);
        snprintf(want, sizeof want, "inputSchema: %s: unsupported keyword", kws[i]);
        REFUSED(&s, in, NULL, -MCP_ENOTSUP, want);
        /* The same in an output schema names the output schema. */
        snprintf(in, sizeof in, "{\"type\":\"object\",\"properties\":{\"p\":{\"%s\":1}}}", kws[i]);
        snprintf(want, sizeof want, "outputSchema: properties.p.%s: unsupported keyword", kws[i]);
        REFUSED(&s, OBJ, in, -MCP_ENOTSUP, want);
    }

    /* Deep inside: an item schema of a nested object. */
    REFUSED(&s,
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\","
            "\"items\":{\"type\":\"string\",\"pattern\":\"^a\"}}}}}}",
            NULL, -MCP_ENOTSUP, "inputSchema: properties.a.properties.l.items.pattern: unsupported keyword");
    /* An unknown keyword next to a valid root. */
    REFUSED(&s, "{\"type\":\"object\",\"a\":1}", NULL, -MCP_ENOTSUP, "inputSchema: a: unsupported keyword");
    /* {"a":1}: the unknown keyword "a" is found before the missing root type. */
    REFUSED(&s, "{\"a\":1}", NULL, -MCP_ENOTSUP, "inputSchema: a: unsupported keyword");

    /* Supported keywords in forms the validator does not implement. */
    REFUSED(&s, "{\"type\":\"object\",\"additionalProperties\":{}}", NULL, -MCP_ENOTSUP,
            "inputSchema: additionalProperties: additionalProperties must be true or false (a schema there is not "
            "supported)");
    REFUSED(&s, "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}}", NULL, -MCP_ENOTSUP,
            "inputSchema: additionalProperties: additionalProperties must be true or false (a schema there is not "
            "supported)");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\",\"items\":[{\"type\":\"string\"}]}}}",
            NULL, -MCP_ENOTSUP,
            "inputSchema: properties.l.items: items must be a single schema object (an array of schemas is not supported)");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"l\":{\"items\":true}}}", NULL, -MCP_ENOTSUP,
            "inputSchema: properties.l.items: boolean schemas are not supported at true");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[[1]]}}}", NULL, -MCP_ENOTSUP,
            "inputSchema: properties.e.enum: enum members must be strings, numbers, booleans or null at [[1]]");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[\"a\",{\"b\":1}]}}}", NULL, -MCP_ENOTSUP,
            "inputSchema: properties.e.enum: enum members must be strings, numbers, booleans or null at [\"a\",{\"b\":1}]");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"c\":{\"const\":{\"a\":1}}}}", NULL, -MCP_ENOTSUP,
            "inputSchema: properties.c.const: const must be a string, number, boolean or null at {\"a\":1}");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"c\":{\"const\":[1]}}}", NULL, -MCP_ENOTSUP,
            "inputSchema: properties.c.const: const must be a string, number, boolean or null at [1]");
    /* Boolean schemas. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"p\":true}}", NULL, -MCP_ENOTSUP,
            "inputSchema: properties.p: boolean schemas are not supported at true");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"p\":false}}", NULL, -MCP_ENOTSUP,
            "inputSchema: properties.p: boolean schemas are not supported at false");

    /* Nothing was registered. */
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}", 0, 200);
}

static void test_malformed_schemas(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);

    /* Not JSON. */
    REFUSED(&s, "{", NULL, -MCP_EINVAL, "inputSchema: schema is not valid JSON at {");
    REFUSED(&s, "{\"type\":\"object\",}", NULL, -MCP_EINVAL,
            "inputSchema: schema is not valid JSON at {\"type\":\"object\",}");
    REFUSED(&s, OBJ, "{\"type\":\"object\"", -MCP_EINVAL, "outputSchema: schema is not valid JSON at {\"type\":\"object\"");

    /* The root must declare "type":"object" (only). */
    REFUSED(&s, "{}", NULL, -MCP_EINVAL, "inputSchema: the root schema must declare \"type\": \"object\" at {}");
    REFUSED(&s, "{\"type\":\"string\"}", NULL, -MCP_EINVAL,
            "inputSchema: the root schema must declare \"type\": \"object\" at {\"type\":\"string\"}");
    REFUSED(&s, "{\"type\":[\"object\",\"null\"]}", NULL, -MCP_EINVAL,
            "inputSchema: the root schema must declare \"type\": \"object\" at {\"type\":[\"object\",\"null\"]}");
    REFUSED(&s, "{\"properties\":{\"a\":{\"type\":\"string\"}}}", NULL, -MCP_EINVAL,
            "inputSchema: the root schema must declare \"type\": \"object\" at "
            "{\"properties\":{\"a\":{\"type\":\"string\"}}}");
    REFUSED(&s, OBJ, "{}", -MCP_EINVAL, "outputSchema: the root schema must declare \"type\": \"object\" at {}");

    /* required: an array of declared property names. */
    REFUSED(&s, "{\"type\":\"object\",\"required\":[\"nope\"]}", NULL, -MCP_EINVAL,
            "inputSchema: required[0]: required names a property that properties does not declare at \"nope\"");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{}},\"required\":[\"a\",\"b\"]}", NULL, -MCP_EINVAL,
            "inputSchema: required[1]: required names a property that properties does not declare at \"b\"");
    REFUSED(&s,
            "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"properties\":{\"x\":{}},"
            "\"required\":[\"y\"]}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.o.required[0]: required names a property that properties does not declare at \"y\"");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{}},\"required\":\"a\"}", NULL, -MCP_EINVAL,
            "inputSchema: required: required must be an array of names at \"a\"");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{}},\"required\":[1]}", NULL, -MCP_EINVAL,
            "inputSchema: required[0]: required must be an array of names at 1");

    /* type: a known name or a non-empty array of them. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"int\"}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.a.type: unknown type name at \"int\"");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"string\",\"float\"]}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.a.type[1]: unknown type name at \"float\"");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[]}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.a.type: type must be a type name or a non-empty array of them at []");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":5}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.a.type: type must be a type name or a non-empty array of them at 5");
    REFUSED(&s, "{\"type\":\"Object\"}", NULL, -MCP_EINVAL, "inputSchema: type: unknown type name at \"Object\"");

    /* properties: an object, each name once. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":[]}", NULL, -MCP_EINVAL,
            "inputSchema: properties: properties must be an object at []");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{},\"a\":{}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.a: property declared twice");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{},\"\\u0061\":{}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.\\u0061: property declared twice");

    /* Numeric bounds: finite numbers. */
    static const char *const bounds[] = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"};
    for (size_t i = 0; i < 4; i++) {
        static const char *const bad[] = {"\"1\"", "true", "null", "1e400", "[1]"};
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            char in[160];
            char want[160];
            snprintf(in, sizeof in, "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"%s\":%s}}}",
                     bounds[i], bad[j]);
            snprintf(want, sizeof want, "inputSchema: properties.n.%s: a numeric bound must be a finite number at %s",
                     bounds[i], bad[j]);
            REFUSED(&s, in, NULL, -MCP_EINVAL, want);
        }
    }
    /* multipleOf: a number above 0. */
    static const char *const bad_multiple[] = {"0", "-2", "0.0", "\"2\"", "1e400"};
    for (size_t j = 0; j < sizeof bad_multiple / sizeof bad_multiple[0]; j++) {
        char in[160];
        char want[160];
        snprintf(in, sizeof in, "{\"type\":\"object\",\"properties\":{\"n\":{\"multipleOf\":%s}}}", bad_multiple[j]);
        snprintf(want, sizeof want, "inputSchema: properties.n.multipleOf: multipleOf must be a number greater than 0 at %s",
                 bad_multiple[j]);
        REFUSED(&s, in, NULL, -MCP_EINVAL, want);
    }
    /* Length and count bounds: non-negative integers. */
    static const char *const counts[] = {"minLength", "maxLength", "minItems", "maxItems"};
    for (size_t i = 0; i < 4; i++) {
        static const char *const bad[] = {"-1", "1.5", "\"2\"", "4294967296", "null"};
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            char in[160];
            char want[160];
            snprintf(in, sizeof in, "{\"type\":\"object\",\"properties\":{\"n\":{\"%s\":%s}}}", counts[i], bad[j]);
            snprintf(want, sizeof want, "inputSchema: properties.n.%s: a length or count bound must be a non-negative integer at %s",
                     counts[i], bad[j]);
            REFUSED(&s, in, NULL, -MCP_EINVAL, want);
        }
    }
    /* enum: a non-empty array. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[]}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.e.enum: enum must be a non-empty array at []");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":\"a\"}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.e.enum: enum must be a non-empty array at \"a\"");

    /* x-mcp-header: a non-empty string, on a property only. */
    REFUSED(&s, "{\"type\":\"object\",\"x-mcp-header\":\"H\"}", NULL, -MCP_EINVAL,
            "inputSchema: x-mcp-header: x-mcp-header must be a non-empty string on a property at \"H\"");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.r.x-mcp-header: x-mcp-header must be a non-empty string on a property at \"\"");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"r\":{\"type\":\"string\",\"x-mcp-header\":5}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.r.x-mcp-header: x-mcp-header must be a non-empty string on a property at 5");

    /* Beyond the token and depth limits. */
    {
        static char big[8192];
        size_t n = (size_t)snprintf(big, sizeof big, "{\"type\":\"object\",\"description\":\"many\",\"examples\":[");
        for (int i = 0; i < MCP_MAX_SCHEMA_TOKENS; i++) {
            n += (size_t)snprintf(big + n, sizeof big - n, "%s%d", i ? "," : "", i % 10);
        }
        snprintf(big + n, sizeof big - n, "]}");
        char want[160];
        snprintf(want, sizeof want, "inputSchema: schema has more JSON tokens than MCP_MAX_SCHEMA_TOKENS at %.60s...",
                 big);
        REFUSED(&s, big, NULL, -MCP_EINVAL, want);
    }
    {
        static char deep[1024];
        size_t n = (size_t)snprintf(deep, sizeof deep, "{\"type\":\"object\",\"examples\":");
        for (int i = 0; i < MCP_MAX_DEPTH + 1; i++) {
            n += (size_t)snprintf(deep + n, sizeof deep - n, "[");
        }
        for (int i = 0; i < MCP_MAX_DEPTH + 1; i++) {
            n += (size_t)snprintf(deep + n, sizeof deep - n, "]");
        }
        snprintf(deep + n, sizeof deep - n, "}");
        char want[160];
        snprintf(want, sizeof want, "inputSchema: schema nests deeper than MCP_MAX_DEPTH at %.60s...", deep);
        REFUSED(&s, deep, NULL, -MCP_EINVAL, want);
    }

    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}", 0, 200);
}

static void test_accepted_schemas(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t;

    /* Every supported keyword and annotation in one schema. */
    t = def("all",
            "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"title\":\"T\",\"description\":\"D\","
            "\"examples\":[{\"a\":1}],\"type\":\"object\",\"required\":[\"a\"],\"additionalProperties\":false,"
            "\"properties\":{"
            "\"a\":{\"type\":[\"integer\",\"null\"],\"minimum\":0,\"maximum\":10,\"exclusiveMinimum\":-1,"
            "\"exclusiveMaximum\":11,\"multipleOf\":2,\"default\":4,\"x-mcp-header\":\"A\",\"title\":\"a\","
            "\"description\":\"d\",\"examples\":[2]},"
            "\"b\":{\"type\":\"string\",\"enum\":[\"x\",\"y\"],\"minLength\":1,\"maxLength\":3},"
            "\"c\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"d\":{\"const\":true}},"
            "\"additionalProperties\":true},\"minItems\":0,\"maxItems\":2},"
            "\"e\":{},\"f\":{\"type\":\"number\"},\"g\":{\"type\":\"boolean\"},\"h\":{\"type\":\"null\"}}}",
            "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}}}");
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);
    /* A fresh server reports no schema error; an accepted one does not set it either. */
    CHECK_STR(schema_error(&s), "");

    /* mcp_server_schema_error arguments. */
    static mcp_server_t zero;
    char buf[64];
    CHECK_INT(mcp_server_schema_error(NULL, buf, sizeof buf), -MCP_EINVAL);
    CHECK_INT(mcp_server_schema_error(&zero, buf, sizeof buf), -MCP_EINVAL);
    CHECK_INT(mcp_server_schema_error(&s, NULL, sizeof buf), -MCP_EINVAL);
    CHECK_INT(mcp_server_schema_error(&s, buf, 0), -MCP_EINVAL);

    /* A refusal, then a buffer too small: cut and terminated. */
    REFUSED(&s, "{\"type\":\"object\",\"oneOf\":[]}", NULL, -MCP_ENOTSUP, "inputSchema: oneOf: unsupported keyword");
    memset(buf, 0x5A, sizeof buf);
    CHECK_INT(mcp_server_schema_error(&s, buf, 10), -MCP_ENOBUFS);
    CHECK_STR(buf, "inputSche");
    CHECK(buf[10] == 0x5A);
    const char *full = "inputSchema: oneOf: unsupported keyword";
    CHECK_INT(mcp_server_schema_error(&s, buf, strlen(full) + 1), (int)strlen(full));
    CHECK_STR(buf, full);
    CHECK_INT(mcp_server_schema_error(&s, buf, strlen(full)), -MCP_ENOBUFS);

    /* Listed exactly as written (minified). */
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK_INT(resp_count("result>tools"), 1);
    CHECK_AT("result>tools>0>inputSchema>additionalProperties", "false");
    CHECK_AT("result>tools>0>inputSchema>properties>a>x-mcp-header", "\"A\"");
    CHECK_AT("result>tools>0>outputSchema", "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\"}}}");

    /* Annotations are not enforced (examples lists 2; 6 and null pass), the
     * constraints are (an odd number is refused). "all" returns no
     * structuredContent, so its outputSchema turns a valid call into -32603. */
    static const struct {
        const char *args;
        int code;
        const char *message;
    } calls_all[] = {
        {"{\"a\":6}", MCP_RPC_INTERNAL_ERROR, "Tool declares an outputSchema but returned no structuredContent"},
        {"{\"a\":null,\"b\":\"y\",\"c\":[{\"d\":true}],\"e\":[],\"f\":0.5,\"g\":true,\"h\":null}",
         MCP_RPC_INTERNAL_ERROR, "Tool declares an outputSchema but returned no structuredContent"},
        {"{\"a\":3}", 0, "a: 3 is not a multiple of 2"},
        {"{\"a\":12}", 0, "a: 12 is above maximum 10"},
        {"{\"a\":2,\"c\":[{\"d\":false}]}", 0, "c[0].d: false must equal true"},
        {"{\"a\":2,\"z\":1}", 0, "z: is not allowed (additionalProperties is false)"},
    };
    for (size_t i = 0; i < sizeof calls_all / sizeof calls_all[0]; i++) {
        char req[512];
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"all\",\"arguments\":%s}}",
                 calls_all[i].args);
        calls = 0;
        HANDLE(&s, NULL, req);
        char want[400];
        if (calls_all[i].code == 0) { /* SEP-1303: a tool error, the message as its text */
            snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s\"",
                     calls_all[i].message);
        } else {
            snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":%d,\"message\":\"%s\"}}",
                     calls_all[i].code, calls_all[i].message);
        }
        bool ok = (calls_all[i].code == 0 ? strncmp(R.text, want, strlen(want)) == 0 && R.info.rpc_error == 0 &&
                                                strstr(R.text, "\"isError\":true") != NULL
                                          : strcmp(R.text, want) == 0) &&
                  calls == (calls_all[i].code == 0 ? 0 : 1);
        if (!check_record(ok, __FILE__, __LINE__, "annotations are not enforced, constraints are"))
            fprintf(stderr, "    arguments %s\n    calls %d\n    actual   %s\n    expected %s\n", calls_all[i].args,
                    calls, R.text, want);
    }
}

/* Schema with `n` properties; each property schema is `prop` (printf %d gets the index). */
static const char *props_schema(char *buf, size_t cap, int n, const char *prop)
{
    size_t len = (size_t)snprintf(buf, cap, "{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < n; i++) {
        len += (size_t)snprintf(buf + len, cap - len, "%s\"p%d\":", i ? "," : "", i);
        len += (size_t)snprintf(buf + len, cap - len, prop, i);
    }
    snprintf(buf + len, cap - len, "}}");
    return buf;
}

/* Schemas are read in place, never compiled into the server: nothing in
 * mcp_server_t fills up with them. Every tool slot takes a schema with more
 * properties, keywords and nested objects than the old fixed tables held
 * (48 nodes, 32 properties, 64 keywords for the whole server), a refused
 * registration takes nothing, and each tool still validates as declared. */
static void test_schemas_take_no_table(void)
{
    static char in[MCP_MAX_TOOLS][4096];
    static mcp_server_t s;
    char name[MCP_MAX_TOOLS][8];
    char req[300];
    mcp_tool_t t;

    init_server(&s, 0, MCP_CACHE_PRIVATE);
    /* A refused schema first: it leaves nothing behind. */
    t = def("bad", "{\"type\":\"object\",\"properties\":{\"x\":{}}}", "{\"type\":\"object\",\"pattern\":\"z\"}");
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), -MCP_ENOTSUP);
    CHECK_STR(schema_error(&s), "outputSchema: pattern: unsupported keyword");
    for (int i = 0; i < MCP_MAX_TOOLS; i++) {
        /* 14 properties, 84 keywords and 15 nodes in each schema (228 of
         * its MCP_MAX_SCHEMA_TOKENS): the server holds 16 times that. */
        props_schema(in[i], sizeof in[i], 14,
                     "{\"type\":\"integer\",\"minimum\":0,\"maximum\":9,\"multipleOf\":1,\"default\":1,\"enum\":[1,2]}");
        snprintf(name[i], sizeof name[i], "t%d", i);
        t = def(name[i], in[i], NULL);
        CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);
    }
    /* The table that can fill is the tool table, and it says so. */
    REFUSED(&s, OBJ, NULL, -MCP_ENOSPC, "tool table full: raise MCP_MAX_TOOLS (16)");
    calls = 0;
    for (int i = 0; i < MCP_MAX_TOOLS; i++) {
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t%d\","
                 "\"arguments\":{\"p13\":3}}}", i);
        HANDLE(&s, NULL, req);
        CHECK_AT("result>isError", "true");
        CHECK_TEXT_AT("result>content>0>text", "p13: 3 is not one of 1, 2", strlen("p13: 3 is not one of 1, 2"));
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t%d\","
                 "\"arguments\":{\"p0\":2,\"p13\":1}}}", i);
        HANDLE(&s, NULL, req);
        CHECK_AT("result>isError", "false");
    }
    CHECK_INT(calls, MCP_MAX_TOOLS);
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t0\","
                     "\"arguments\":{\"p5\":10}}}");
    CHECK_TEXT_AT("result>content>0>text", "p5: 10 is above maximum 9", strlen("p5: 10 is above maximum 9"));
    CHECK_AT("result>content>0>_meta>emcp/invalidArgument>keyword", "\"maximum\"");
}

/* A schema contradicting itself is refused at registration, naming the path
 * of the offending keyword: a `default`, `const` or `enum` member its own
 * schema refuses (a call without the argument would otherwise read a value a
 * client may not send), bounds that leave no value, an empty enum. */
static void test_self_consistent_schemas(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);

    /* default 9 with maximum 3, deep inside: the path names the keyword. */
    REFUSED(&s,
            "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
            "\"properties\":{\"rpm\":{\"type\":\"integer\",\"maximum\":3,\"default\":9}}}}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.steps.items.properties.rpm.default: 9 is above maximum 3");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"rpm\":{\"type\":\"integer\",\"maximum\":3,\"default\":9}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.rpm.default: 9 is above maximum 3");
    /* default "fast" on an integer. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"speed\":{\"type\":\"integer\",\"default\":\"fast\"}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.speed.default: \"fast\" is not an integer");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"z\":{\"type\":[\"integer\",\"null\"],\"default\":\"x\"}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.z.default: \"x\" is none of the declared types");
    /* A default outside the enum, or an object default missing a required property. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"m\":{\"enum\":[\"eco\",\"boost\"],\"default\":\"turbo\"}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.m.default: \"turbo\" is not one of [\"eco\",\"boost\"]");
    REFUSED(&s,
            "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"properties\":{\"x\":{}},"
            "\"required\":[\"x\"],\"default\":{}}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.o.default: {} is missing required property x");
    REFUSED(&s,
            "{\"type\":\"object\",\"properties\":{\"o\":{\"type\":\"object\",\"properties\":{\"x\":"
            "{\"type\":\"integer\",\"maximum\":1}},\"default\":{\"x\":2}}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.o.default.x: 2 is above maximum 1");
    /* An enum member of the wrong type; a const below the minimum. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\",\"enum\":[\"eco\",3]}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.mode.enum[1]: 3 is not a string");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"number\",\"minimum\":5,\"const\":4}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.t.const: 4 is below minimum 5");
    /* The same in an output schema. */
    REFUSED(&s, OBJ, "{\"type\":\"object\",\"properties\":{\"ok\":{\"type\":\"boolean\",\"default\":1}}}",
            -MCP_EINVAL, "outputSchema: properties.ok.default: 1 is not a boolean");

    /* Bounds no value can meet. */
    REFUSED(&s,
            "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
            "\"properties\":{\"rpm\":{\"type\":\"integer\",\"minimum\":5,\"maximum\":3}}}}}}",
            NULL, -MCP_EINVAL, "inputSchema: properties.steps.items.properties.rpm.maximum: 3 is below minimum 5");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"a\":{\"maximum\":3,\"minimum\":5}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.a.maximum: 3 is below minimum 5");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"s\":{\"minLength\":4,\"maxLength\":2}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.s.maxLength: 2 is below minLength 4");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"l\":{\"minItems\":3,\"maxItems\":1}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.l.maxItems: 1 is below minItems 3");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"x\":{\"exclusiveMinimum\":1,\"exclusiveMaximum\":1}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.x.exclusiveMaximum: 1 is not above exclusiveMinimum 1");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"x\":{\"exclusiveMinimum\":2,\"maximum\":2}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.x.maximum: 2 is not above exclusiveMinimum 2");
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"x\":{\"minimum\":2,\"exclusiveMaximum\":2}}}", NULL,
            -MCP_EINVAL, "inputSchema: properties.x.exclusiveMaximum: 2 is not above minimum 2");
    /* An empty enum; an unsupported keyword deep inside, named by its path. */
    REFUSED(&s, "{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[]}}}", NULL, -MCP_EINVAL,
            "inputSchema: properties.e.enum: enum must be a non-empty array at []");
    REFUSED(&s,
            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\",\"properties\":{\"l\":{\"type\":\"array\","
            "\"items\":{\"type\":\"string\",\"pattern\":\"^a\"}}}}}}",
            NULL, -MCP_ENOTSUP, "inputSchema: properties.a.properties.l.items.pattern: unsupported keyword");

    /* Nothing was registered; consistent ones are. */
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"tools\":[]}}", 0, 200);
    mcp_tool_t t = def("ok",
                       "{\"type\":\"object\",\"properties\":{\"rpm\":{\"type\":\"integer\",\"minimum\":3,\"maximum\":3,"
                       "\"default\":3},\"m\":{\"type\":\"string\",\"enum\":[\"eco\",\"boost\"],\"default\":\"eco\"},"
                       "\"x\":{\"exclusiveMinimum\":1,\"maximum\":1.5,\"const\":1.25}}}",
                       NULL);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    /* A full tool table says which limit to raise, like the schema tables. */
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    static char names[MCP_MAX_TOOLS][16];
    for (int i = 0; i < MCP_MAX_TOOLS; i++) {
        snprintf(names[i], sizeof names[i], "t%d", i);
        t = def(names[i], OBJ, NULL);
        CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);
    }
    char want[96];
    snprintf(want, sizeof want, "tool table full: raise MCP_MAX_TOOLS (%d)", (int)MCP_MAX_TOOLS);
    REFUSED(&s, OBJ, NULL, -MCP_ENOSPC, want);

#ifdef EMCP_TEST_GREENHOUSE
    /* The greenhouse example's schemas are self-consistent. */
    static mcp_server_t gh;
    CHECK_INT(greenhouse_register(&gh, false), 0);
    CHECK_STR(schema_error(&gh), "");
#endif
}

/* ---------------------------------------------------------------------------
 * Validation before the callback
 * ------------------------------------------------------------------------ */

static mcp_server_t vs; /* the validation server */

static const char V_SCHEMA[] =
    "{\"type\":\"object\",\"required\":[\"percent\"],\"additionalProperties\":false,\"properties\":{"
    "\"percent\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100},"
    "\"sensor_id\":{\"type\":\"string\",\"enum\":[\"t1\",\"t2\",\"rh1\",\"soil1\"]},"
    "\"ratio\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":1,\"multipleOf\":0.25},"
    "\"step\":{\"type\":\"integer\",\"multipleOf\":5},"
    "\"name\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":3},"
    "\"mode\":{\"const\":\"auto\"},"
    "\"opt\":{\"type\":[\"string\",\"null\"]},"
    "\"flag\":{\"type\":\"boolean\"},"
    "\"nul\":{\"type\":\"null\"},"
    "\"num\":{\"type\":\"number\"},"
    "\"big\":{\"type\":\"integer\"},"
    "\"any\":{},"
    "\"codes\":{\"enum\":[1,2.5,true,null,\"x\"]},"
    "\"obj\":{\"type\":\"object\",\"required\":[\"a\"],\"properties\":{\"a\":{\"type\":\"integer\"}}},"
    "\"list\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":2,\"items\":{\"type\":\"object\",\"required\":[\"x\"],"
    "\"properties\":{\"x\":{\"type\":\"boolean\"}}}}}}";

/* A tools/call of `tool` with params members `extra` (e.g. ,"arguments":{...}); legacy or modern. */
static void send_call(const char *tool, const char *extra, bool modern_era)
{
    static char req[4096];
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":\"v\",\"method\":\"tools/call\",\"params\":{%s\"name\":\"%s\"%s}}",
             modern_era ? ENVELOPE "," : "", tool, extra);
    calls = 0;
    HANDLE(&vs, NULL, req);
}

/* The arguments are valid: the callback ran once and the result is its. */
#define VALID(args) valid_at(__FILE__, __LINE__, "v", ",\"arguments\":" args)
#define INVALID(args, msg) invalid_at(__FILE__, __LINE__, "v", ",\"arguments\":" args, (msg), false, NULL)
#define INVALID_KW(args, msg, kw) invalid_at(__FILE__, __LINE__, "v", ",\"arguments\":" args, (msg), false, (kw))

static void valid_at(const char *file, int line, const char *tool, const char *extra)
{
    send_call(tool, extra, false);
    bool ok = calls == 1 && R.info.rpc_error == 0 && strstr(R.text, "\"result\":{\"content\":[{\"type\":\"text\","
                                                                     "\"text\":\"ran\"}]") != NULL;
    if (!check_record(ok, file, line, "valid arguments reach the callback"))
        fprintf(stderr, "    params%s\n    calls %d, response %s\n", extra, calls, R.text);
}

/* JSON-escapes `msg` into `esc` the way the core writes it (quotes and backslashes). */
static void json_esc(char *esc, size_t cap, const char *msg)
{
    size_t o = 0;
    for (const char *p = msg; *p && o + 2 < cap; p++) {
        if (*p == '"' || *p == '\\') {
            esc[o++] = '\\';
        }
        esc[o++] = *p;
    }
    esc[o] = '\0';
}

/* SEP-1303: invalid arguments are a tool execution error the model reads, a
 * result with isError and the message as its text; the text block's `_meta`
 * names the argument's path (the message up to its first ": ") and, when `kw`
 * is given, the keyword. HTTP 200 in both eras; the callback does not run. */
static void invalid_at(const char *file, int line, const char *tool, const char *extra, const char *msg,
                       bool modern_era, const char *kw)
{
    send_call(tool, extra, modern_era);
    char esc[512], path[256], want[1024];
    json_esc(esc, sizeof esc, msg);
    const char *colon = strstr(msg, ": ");
    snprintf(path, sizeof path, "%.*s", colon ? (int)(colon - msg) : 0, msg);
    char path_esc[512];
    json_esc(path_esc, sizeof path_esc, path);
    int n = snprintf(want, sizeof want,
                     "{\"jsonrpc\":\"2.0\",\"id\":\"v\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"%s\","
                     "\"_meta\":{\"emcp/invalidArgument\":{\"path\":\"%s\",\"keyword\":\"",
                     esc, path_esc);
    size_t prefix = (size_t)n;
    if (kw) {
        snprintf(want + n, sizeof want - (size_t)n, "%s\"}}}],\"isError\":true%s", kw,
                 modern_era ? ",\"resultType\":\"complete\",\"_meta\":{" : "}}");
        prefix = strlen(want);
    }
    bool ok = calls == 0 && R.rc > 0 && strncmp(R.text, want, prefix) == 0 && R.info.rpc_error == 0 &&
              R.info.http_status == 200 && strstr(R.text, "\"isError\":true") != NULL &&
              (modern_era || !kw || strcmp(R.text, want) == 0);
    if (!check_record(ok, file, line, "invalid arguments: an isError result with the message, callback not run"))
        fprintf(stderr, "    params%s\n    calls %d, http %d\n    actual   %s\n    expected %s%s\n", extra, calls,
                R.info.http_status, R.text, want, kw ? "" : "...");
}

static void test_keywords(void)
{
    init_server(&vs, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = def("v", V_SCHEMA, NULL);
    if (!check_record(mcp_server_add_tool(&vs, &t, nop_tool, NULL) == 0, __FILE__, __LINE__, "V_SCHEMA registers"))
        fprintf(stderr, "    %s\n", schema_error(&vs));

    /* type: integer (integral numbers in any notation) */
    VALID("{\"percent\":5}");
    VALID("{\"percent\":1e1}");
    VALID("{\"percent\":100.0}");
    VALID("{\"percent\":-0}");
    INVALID("{\"percent\":\"60\"}", "percent: expected integer, got string");
    INVALID("{\"percent\":60.5}", "percent: expected integer, got number");
    INVALID("{\"percent\":1e-1}", "percent: expected integer, got number");
    INVALID("{\"percent\":true}", "percent: expected integer, got boolean");
    INVALID("{\"percent\":null}", "percent: expected integer, got null");
    INVALID("{\"percent\":[60]}", "percent: expected integer, got array");
    INVALID("{\"percent\":{}}", "percent: expected integer, got object");
    /* type: string, number, boolean, null, object, array, and a list of types */
    VALID("{\"percent\":1,\"sensor_id\":\"t1\"}");
    INVALID("{\"percent\":1,\"sensor_id\":5}", "sensor_id: expected string, got integer");
    VALID("{\"percent\":1,\"num\":1}");
    VALID("{\"percent\":1,\"num\":-1.5e-3}");
    INVALID("{\"percent\":1,\"num\":\"1\"}", "num: expected number, got string");
    INVALID("{\"percent\":1,\"num\":false}", "num: expected number, got boolean");
    VALID("{\"percent\":1,\"flag\":false}");
    INVALID("{\"percent\":1,\"flag\":1}", "flag: expected boolean, got integer");
    INVALID("{\"percent\":1,\"flag\":\"true\"}", "flag: expected boolean, got string");
    VALID("{\"percent\":1,\"nul\":null}");
    INVALID("{\"percent\":1,\"nul\":0}", "nul: expected null, got integer");
    VALID("{\"percent\":1,\"obj\":{\"a\":1}}");
    INVALID("{\"percent\":1,\"obj\":[]}", "obj: expected object, got array");
    VALID("{\"percent\":1,\"list\":[{\"x\":true}]}");
    INVALID("{\"percent\":1,\"list\":{\"x\":true}}", "list: expected array, got object");
    VALID("{\"percent\":1,\"opt\":null}");
    VALID("{\"percent\":1,\"opt\":\"s\"}");
    INVALID("{\"percent\":1,\"opt\":3}", "opt: expected string or null, got integer");
    INVALID("{\"percent\":1,\"opt\":[]}", "opt: expected string or null, got array");
    /* A property without constraints takes any value. */
    VALID("{\"percent\":1,\"any\":[1,{\"x\":null}]}");
    VALID("{\"percent\":1,\"any\":\"s\"}");

    /* required */
    INVALID("{}", "percent: required");
    INVALID("{\"sensor_id\":\"t1\"}", "percent: required");
    invalid_at(__FILE__, __LINE__, "v", "", "percent: required", false, "required"); /* no arguments at all */
    INVALID_KW("{\"percent\":1,\"obj\":{}}", "obj.a: required", "required");
    INVALID_KW("{\"percent\":1,\"list\":[{}]}", "list[0].x: required", "required");

    /* additionalProperties: false at the root; nested objects stay open. */
    INVALID_KW("{\"percent\":1,\"x\":1}", "x: is not allowed (additionalProperties is false)", "additionalProperties");
    INVALID("{\"percent\":1,\"Percent\":1}", "Percent: is not allowed (additionalProperties is false)");
    INVALID("{\"x\":1}", "percent: required");
    VALID("{\"percent\":1,\"obj\":{\"a\":1,\"b\":\"extra\"}}");
    /* An escaped name is the same name. */
    VALID("{\"p\\u0065rcent\":7}");

    /* properties: nested values are checked */
    INVALID("{\"percent\":1,\"obj\":{\"a\":\"x\"}}", "obj.a: expected integer, got string");
    INVALID_KW("{\"percent\":1,\"list\":[{\"x\":1}]}", "list[0].x: expected boolean, got integer", "type");
    INVALID("{\"percent\":1,\"list\":[{\"x\":true},{\"x\":5}]}", "list[1].x: expected boolean, got integer");
    INVALID("{\"percent\":1,\"list\":[7]}", "list[0]: expected object, got integer");

    /* enum */
    VALID("{\"percent\":1,\"sensor_id\":\"soil1\"}");
    VALID("{\"percent\":1,\"sensor_id\":\"t\\u0031\"}");
    INVALID_KW("{\"percent\":1,\"sensor_id\":\"t9\"}", "sensor_id: \"t9\" is not one of t1, t2, rh1, soil1", "enum");
    INVALID("{\"percent\":1,\"sensor_id\":\"T1\"}", "sensor_id: \"T1\" is not one of t1, t2, rh1, soil1");
    INVALID("{\"percent\":1,\"sensor_id\":\"t1 \"}", "sensor_id: \"t1 \" is not one of t1, t2, rh1, soil1");
    VALID("{\"percent\":1,\"codes\":1}");
    VALID("{\"percent\":1,\"codes\":1.0}");
    VALID("{\"percent\":1,\"codes\":2.5}");
    VALID("{\"percent\":1,\"codes\":25e-1}");
    VALID("{\"percent\":1,\"codes\":true}");
    VALID("{\"percent\":1,\"codes\":null}");
    VALID("{\"percent\":1,\"codes\":\"x\"}");
    INVALID("{\"percent\":1,\"codes\":3}", "codes: 3 is not one of 1, 2.5, true, null, x");
    INVALID("{\"percent\":1,\"codes\":\"1\"}", "codes: \"1\" is not one of 1, 2.5, true, null, x");
    INVALID("{\"percent\":1,\"codes\":false}", "codes: false is not one of 1, 2.5, true, null, x");
    INVALID("{\"percent\":1,\"codes\":[1]}", "codes: [1] is not one of 1, 2.5, true, null, x");

    /* const */
    VALID("{\"percent\":1,\"mode\":\"auto\"}");
    INVALID_KW("{\"percent\":1,\"mode\":\"manual\"}", "mode: \"manual\" must equal \"auto\"", "const");
    INVALID("{\"percent\":1,\"mode\":1}", "mode: 1 must equal \"auto\"");

    /* minimum, maximum */
    VALID("{\"percent\":0}");
    VALID("{\"percent\":100}");
    INVALID_KW("{\"percent\":-1}", "percent: -1 is below minimum 0", "minimum");
    INVALID_KW("{\"percent\":120}", "percent: 120 is above maximum 100", "maximum");
    INVALID("{\"percent\":101}", "percent: 101 is above maximum 100");
    INVALID("{\"percent\":1e3}", "percent: 1e3 is above maximum 100");
    INVALID("{\"percent\":9223372036854775807}", "percent: 9223372036854775807 is above maximum 100");
    INVALID("{\"percent\":-9223372036854775808}", "percent: -9223372036854775808 is below minimum 0");

    /* exclusiveMinimum, exclusiveMaximum, multipleOf (number) */
    VALID("{\"percent\":1,\"ratio\":0.25}");
    VALID("{\"percent\":1,\"ratio\":0.75}");
    INVALID_KW("{\"percent\":1,\"ratio\":0}", "ratio: 0 is not above exclusiveMinimum 0", "exclusiveMinimum");
    INVALID("{\"percent\":1,\"ratio\":-0.5}", "ratio: -0.5 is not above exclusiveMinimum 0");
    INVALID_KW("{\"percent\":1,\"ratio\":1}", "ratio: 1 is not below exclusiveMaximum 1", "exclusiveMaximum");
    INVALID("{\"percent\":1,\"ratio\":1.0}", "ratio: 1.0 is not below exclusiveMaximum 1");
    INVALID_KW("{\"percent\":1,\"ratio\":0.3}", "ratio: 0.3 is not a multiple of 0.25", "multipleOf");
    /* multipleOf (integer) */
    VALID("{\"percent\":1,\"step\":0}");
    VALID("{\"percent\":1,\"step\":-15}");
    VALID("{\"percent\":1,\"step\":5e1}");
    INVALID("{\"percent\":1,\"step\":7}", "step: 7 is not a multiple of 5");
    INVALID("{\"percent\":1,\"step\":-9223372036854775808}", "step: -9223372036854775808 is not a multiple of 5");

    /* minLength, maxLength: code points, escapes decoded */
    VALID("{\"percent\":1,\"name\":\"ab\"}");
    VALID("{\"percent\":1,\"name\":\"\xc3\xa9\xc3\xa9\xc3\xa9\"}");                       /* 3 code points, 6 bytes */
    VALID("{\"percent\":1,\"name\":\"\\u00e9\\u00e9\"}");                                 /* escaped */
    VALID("{\"percent\":1,\"name\":\"\\ud83d\\ude00\xf0\x9f\x98\x80\"}");                 /* 2 emoji, one escaped */
    INVALID("{\"percent\":1,\"name\":\"\xc3\xa9\"}", "name: \"\xc3\xa9\" is shorter than minLength 2");
    INVALID_KW("{\"percent\":1,\"name\":\"\"}", "name: \"\" is shorter than minLength 2", "minLength");
    INVALID_KW("{\"percent\":1,\"name\":\"abcd\"}", "name: \"abcd\" is longer than maxLength 3", "maxLength");
    INVALID("{\"percent\":1,\"name\":\"a\\nbc\"}", "name: \"a\\nbc\" is longer than maxLength 3");

    /* items, minItems, maxItems */
    VALID("{\"percent\":1,\"list\":[{\"x\":true},{\"x\":false}]}");
    INVALID_KW("{\"percent\":1,\"list\":[]}", "list: has fewer items than minItems 1", "minItems");
    INVALID_KW("{\"percent\":1,\"list\":[{\"x\":true},{\"x\":true},{\"x\":true}]}", "list: has more items than maxItems 2", "maxItems");

    /* Numbers that do not fit: refused, never wrapped or rounded into range. */
    VALID("{\"percent\":1,\"big\":9223372036854775807}");
    VALID("{\"percent\":1,\"big\":-9223372036854775808}");
    INVALID("{\"percent\":1,\"big\":9223372036854775808}", "big: 9223372036854775808 is beyond the 64-bit integer range");
    INVALID("{\"percent\":1,\"big\":-9223372036854775809}",
            "big: -9223372036854775809 is beyond the 64-bit integer range");
    INVALID_KW("{\"percent\":18446744073709551616}", "percent: 18446744073709551616 is beyond the 64-bit integer range", "type");
    INVALID("{\"percent\":18446744073709551717}", "percent: 18446744073709551717 is beyond the 64-bit integer range");
    INVALID_KW("{\"percent\":1e400}", "percent: 1e400 is out of range", "type");
    INVALID("{\"percent\":1,\"num\":1e400}", "num: 1e400 is out of range");
    INVALID("{\"percent\":1,\"num\":-1e400}", "num: -1e400 is out of range");
    INVALID("{\"percent\":1,\"any\":1e400}", "any: 1e400 is out of range");
    INVALID("{\"percent\":1,\"ratio\":1e400}", "ratio: 1e400 is out of range");
    /* A number beyond i64 is still a valid JSON number. */
    VALID("{\"percent\":1,\"num\":18446744073709551616}");
    /* Long values are quoted shortened. */
    INVALID("{\"percent\":123456789012345678901234567890123456789012345678901234567890}",
            "percent: 1234567890123456789012345678901234567890... is beyond the 64-bit integer range");

    /* Duplicate members: each one is checked, so whichever a callback reads passed. */
    INVALID("{\"percent\":1,\"percent\":200}", "percent: 200 is above maximum 100");
    INVALID("{\"percent\":\"1\",\"percent\":2}", "percent: expected integer, got string");

    /* The first violation wins, in member order. */
    INVALID("{\"percent\":500,\"sensor_id\":\"t9\"}", "percent: 500 is above maximum 100");
    INVALID("{\"sensor_id\":\"t9\",\"percent\":500}", "sensor_id: \"t9\" is not one of t1, t2, rh1, soil1");

    /* The modern era validates the same way; the envelope is not an argument. */
    invalid_at(__FILE__, __LINE__, "v", ",\"arguments\":{\"percent\":120}", "percent: 120 is above maximum 100", true,
               "maximum");
    invalid_at(__FILE__, __LINE__, "v", ",\"arguments\":{}", "percent: required", true, "required");
    send_call("v", ",\"arguments\":{\"percent\":1}", true);
    CHECK_INT(calls, 1);
    CHECK_AT("result>resultType", "\"complete\"");

    /* A notification is never run, valid or not. */
    calls = 0;
    CHECK_INT(HANDLE(&vs, NULL,
                     "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{\"name\":\"v\",\"arguments\":"
                     "{\"percent\":120}}}"),
              0);
    CHECK_INT(calls, 0);
}

static void test_open_objects(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = def("open", "{\"type\":\"object\",\"additionalProperties\":true,\"properties\":{\"a\":{\"type\":\"integer\"}}}", NULL);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);
    t = def("bare", OBJ, NULL);
    CHECK_INT(mcp_server_add_tool(&s, &t, nop_tool, NULL), 0);

    calls = 0;
    HANDLE(&s, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"open\",\"arguments\":"
           "{\"a\":1,\"extra\":[1,2],\"more\":\"x\"}}}");
    CHECK_AT("result>isError", "false");
    CHECK_INT(calls, 1);
    HANDLE(&s, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"open\",\"arguments\":"
           "{\"a\":1.5,\"extra\":1}}}");
    CHECK_TEXT_AT("result>content>0>text", "a: expected integer, got number", strlen("a: expected integer, got number"));
    CHECK_INT(calls, 1);
    /* {"type":"object"} alone accepts any arguments object (accessors then check types). */
    HANDLE(&s, NULL,
           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"bare\",\"arguments\":"
           "{\"s\":\"x\",\"n\":1e400,\"o\":{\"p\":[null]}}}}");
    CHECK_AT("result>isError", "false");
    CHECK_INT(calls, 2);
}

/* ---------------------------------------------------------------------------
 * Defaults and nested values through the accessors
 * ------------------------------------------------------------------------ */

static void (*scenario)(const mcp_call_t *call);

static int probe_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)user;
    calls++;
    if (scenario) {
        scenario(call);
    }
    return mcp_result_text(result, "ran", 3);
}

static void run_probe(mcp_server_t *s, const char *tool, const char *extra, void (*fn)(const mcp_call_t *))
{
    static char req[4096];
    snprintf(req, sizeof req, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"%s}}",
             tool, extra);
    scenario = fn;
    calls = 0;
    HANDLE(s, NULL, req);
    scenario = NULL;
    if (!check_record(calls == 1 && R.info.rpc_error == 0, __FILE__, __LINE__, "the probe callback ran"))
        fprintf(stderr, "    request %s\n    response %s\n", req, R.text);
}

static const char D_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"i\":{\"type\":\"integer\",\"default\":42},"
    "\"neg\":{\"type\":\"integer\",\"default\":-9223372036854775808},"
    "\"n\":{\"type\":\"number\",\"default\":2.5},"
    "\"b\":{\"type\":\"boolean\",\"default\":true},"
    "\"f\":{\"type\":\"boolean\",\"default\":false},"
    "\"s\":{\"type\":\"string\",\"default\":\"d\\u00e9f \\\"q\\\"\"},"
    "\"z\":{\"type\":[\"string\",\"null\"],\"default\":null},"
    "\"l\":{\"type\":\"array\",\"default\":[1,2,3]},"
    "\"cfg\":{\"type\":\"object\",\"default\":{\"a\":1}},"
    "\"o\":{\"type\":\"object\",\"properties\":{\"inner\":{\"type\":\"integer\",\"default\":-7}}},"
    "\"nodef\":{\"type\":\"integer\"}}}";

static void defaults_absent(const mcp_call_t *c)
{
    int64_t v = 0;
    double d = 0;
    bool b = false;
    char buf[32];
    size_t len = 0;

    CHECK_INT(mcp_arg_int(c, "i", &v), 0);
    CHECK_INT(v, 42);
    CHECK_INT(mcp_arg_int(c, "neg", &v), 0);
    CHECK(v == INT64_MIN);
    CHECK_INT(mcp_arg_number(c, "i", &d), 0);
    CHECK(d == 42.0);
    CHECK_INT(mcp_arg_number(c, "n", &d), 0);
    CHECK(d == 2.5);
    CHECK_INT(mcp_arg_int(c, "n", &v), -MCP_EDOM);
    CHECK_INT(mcp_arg_bool(c, "b", &b), 0);
    CHECK(b == true);
    CHECK_INT(mcp_arg_bool(c, "f", &b), 0);
    CHECK(b == false);
    CHECK_INT(mcp_arg_string(c, "s", buf, sizeof buf, &len), 0);
    CHECK_STR(buf, "d\xc3\xa9" "f \"q\"");
    CHECK_INT(len, 8);
    CHECK_INT(mcp_arg_string(c, "s", buf, 4, &len), -MCP_ENOBUFS);
    CHECK_INT(len, 8);
    CHECK_INT(mcp_arg_string(c, "i", buf, sizeof buf, &len), -MCP_EDOM);
    CHECK_INT(mcp_arg_bool(c, "i", &b), -MCP_EDOM);

    CHECK_INT(mcp_arg_type(c, "i"), MCP_JSON_NUMBER);
    CHECK_INT(mcp_arg_type(c, "n"), MCP_JSON_NUMBER);
    CHECK_INT(mcp_arg_type(c, "b"), MCP_JSON_BOOL);
    CHECK_INT(mcp_arg_type(c, "s"), MCP_JSON_STRING);
    CHECK_INT(mcp_arg_type(c, "z"), MCP_JSON_NULL);
    CHECK_INT(mcp_arg_type(c, "l"), MCP_JSON_ARRAY);
    CHECK_INT(mcp_arg_type(c, "cfg"), MCP_JSON_OBJECT);
    CHECK_INT(mcp_arg_count(c, "l"), 3);
    CHECK_INT(mcp_arg_count(c, "cfg"), 1);

    /* A default inside an absent object is found by its path. */
    CHECK_INT(mcp_arg_int(c, "o.inner", &v), 0);
    CHECK_INT(v, -7);

    /* No default: absent. Undeclared: absent. */
    CHECK_INT(mcp_arg_int(c, "nodef", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_type(c, "nodef"), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "undeclared", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_type(c, "o"), -MCP_ENOENT);
    /* Malformed paths stay -MCP_EINVAL, also when a prefix of one has a default. */
    CHECK_INT(mcp_arg_int(c, "i..x", &v), -MCP_EINVAL);
    CHECK_INT(mcp_arg_int(c, "i[", &v), -MCP_EINVAL);
    CHECK_INT(mcp_arg_int(c, "o.inner.", &v), -MCP_EINVAL);
    CHECK_INT(mcp_arg_type(c, "s[x]"), -MCP_EINVAL);
    /* A path into a scalar default finds nothing. */
    CHECK_INT(mcp_arg_int(c, "i.x", &v), -MCP_ENOENT);
    CHECK_INT(mcp_arg_int(c, "i[0]", &v), -MCP_ENOENT);
}

static void defaults_present(const mcp_call_t *c)
{
    int64_t v = 0;
    bool b = true;
    char buf[32];

    /* A sent value wins over the default. */
    CHECK_INT(mcp_arg_int(c, "i", &v), 0);
    CHECK_INT(v, 5);
    CHECK_INT(mcp_arg_bool(c, "b", &b), 0);
    CHECK(b == false);
    CHECK_INT(mcp_arg_type(c, "z"), MCP_JSON_STRING);
    CHECK_INT(mcp_arg_int(c, "o.inner", &v), 0);
    CHECK_INT(v, 3);
    /* Absent ones still default. */
    CHECK_INT(mcp_arg_string(c, "s", buf, sizeof buf, NULL), 0);
    CHECK_STR(buf, "d\xc3\xa9" "f \"q\"");
    /* The arguments as sent: defaults are not added. */
    char args[64];
    const char *sent = "{\"i\":5,\"b\":false,\"z\":\"x\",\"o\":{\"inner\":3}}";
    CHECK_INT(mcp_call_arguments(c, args, sizeof args), (int)strlen(sent));
    CHECK_STR(args, sent);
}

static void defaults_partial_object(const mcp_call_t *c)
{
    int64_t v = 0;
    /* "o" is present without "inner": the inner default applies. */
    CHECK_INT(mcp_arg_type(c, "o"), MCP_JSON_OBJECT);
    CHECK_INT(mcp_arg_count(c, "o"), 0);
    CHECK_INT(mcp_arg_int(c, "o.inner", &v), 0);
    CHECK_INT(v, -7);
}

static void test_defaults(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = def("d", D_SCHEMA, NULL);
    if (!check_record(mcp_server_add_tool(&s, &t, probe_tool, NULL) == 0, __FILE__, __LINE__, "schema registers"))
        fprintf(stderr, "    %s\n", schema_error(&s));
    run_probe(&s, "d", "", defaults_absent);
    run_probe(&s, "d", ",\"arguments\":{}", defaults_absent);
    run_probe(&s, "d", ",\"arguments\":{\"i\":5,\"b\":false,\"z\":\"x\",\"o\":{\"inner\":3}}", defaults_present);
    run_probe(&s, "d", ",\"arguments\":{\"o\":{}}", defaults_partial_object);
}

static const char N_SCHEMA[] =
    "{\"type\":\"object\",\"required\":[\"cfg\"],\"properties\":{"
    "\"cfg\":{\"type\":\"object\",\"required\":[\"zones\"],\"additionalProperties\":false,\"properties\":{"
    "\"name\":{\"type\":\"string\",\"maxLength\":8},"
    "\"zones\":{\"type\":\"array\",\"minItems\":1,\"items\":{\"type\":\"object\",\"required\":[\"id\",\"pct\"],"
    "\"properties\":{\"id\":{\"type\":\"string\"},\"pct\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":100},"
    "\"on\":{\"type\":\"boolean\",\"default\":true}}}}}},"
    "\"vals\":{\"type\":\"array\",\"items\":{\"type\":\"number\",\"minimum\":0}},"
    "\"grid\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"maxItems\":2,\"items\":{\"type\":\"integer\"}}}}}";

static void nested_reads(const mcp_call_t *c)
{
    int64_t v = 0;
    double d = 0;
    bool b = false;
    char buf[16];

    CHECK_INT(mcp_arg_type(c, "cfg"), MCP_JSON_OBJECT);
    CHECK_INT(mcp_arg_count(c, "cfg"), 2);
    CHECK_INT(mcp_arg_string(c, "cfg.name", buf, sizeof buf, NULL), 0);
    CHECK_STR(buf, "house");
    CHECK_INT(mcp_arg_count(c, "cfg.zones"), 2);
    CHECK_INT(mcp_arg_string(c, "cfg.zones[0].id", buf, sizeof buf, NULL), 0);
    CHECK_STR(buf, "north");
    CHECK_INT(mcp_arg_int(c, "cfg.zones[0].pct", &v), 0);
    CHECK_INT(v, 0);
    CHECK_INT(mcp_arg_bool(c, "cfg.zones[0].on", &b), 0);
    CHECK(b == false);
    CHECK_INT(mcp_arg_string(c, "cfg.zones[1].id", buf, sizeof buf, NULL), 0);
    CHECK_STR(buf, "south");
    CHECK_INT(mcp_arg_int(c, "cfg.zones[1].pct", &v), 0);
    CHECK_INT(v, 100);
    /* cfg.zones[1].on is absent: the item schema's default. */
    CHECK_INT(mcp_arg_bool(c, "cfg.zones[1].on", &b), 0);
    CHECK(b == true);
    CHECK_INT(mcp_arg_count(c, "vals"), 3);
    CHECK_INT(mcp_arg_number(c, "vals[1]", &d), 0);
    CHECK(d == 2.5);
    CHECK_INT(mcp_arg_int(c, "vals[2]", &v), 0);
    CHECK_INT(v, 1000);
    CHECK_INT(mcp_arg_int(c, "grid[1][0]", &v), 0);
    CHECK_INT(v, 3);
    CHECK_INT(mcp_arg_count(c, "grid[1]"), 2);
    CHECK_INT(mcp_arg_type(c, "grid[0]"), MCP_JSON_ARRAY);
    CHECK_INT(mcp_arg_count(c, "grid[0]"), 0);
}

static void test_nested(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = def("n", N_SCHEMA, NULL);
    if (!check_record(mcp_server_add_tool(&s, &t, probe_tool, NULL) == 0, __FILE__, __LINE__, "schema registers"))
        fprintf(stderr, "    %s\n", schema_error(&s));
    run_probe(&s, "n",
              ",\"arguments\":{\"cfg\":{\"name\":\"house\",\"zones\":[{\"id\":\"north\",\"pct\":0,\"on\":false},"
              "{\"id\":\"south\",\"pct\":1e2}]},\"vals\":[0,2.5,1e3],\"grid\":[[],[3,4]]}",
              nested_reads);

    static const struct {
        const char *args;
        const char *msg;
    } bad[] = {
        {"{}", "cfg: required"},
        {"{\"cfg\":{}}", "cfg.zones: required"},
        {"{\"cfg\":{\"zones\":[]}}", "cfg.zones: has fewer items than minItems 1"},
        {"{\"cfg\":{\"zones\":[{\"pct\":1}]}}", "cfg.zones[0].id: required"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1},{\"id\":\"b\",\"pct\":101}]}}",
         "cfg.zones[1].pct: 101 is above maximum 100"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1,\"on\":\"yes\"}]}}", "cfg.zones[0].on: expected boolean, got string"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1}],\"x\":1}}", "cfg.x: is not allowed (additionalProperties is false)"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1}],\"name\":\"greenhouse\"}}",
         "cfg.name: \"greenhouse\" is longer than maxLength 8"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1}]},\"vals\":[1,2,-1]}", "vals[2]: -1 is below minimum 0"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1}]},\"vals\":[1e400]}", "vals[0]: 1e400 is out of range"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1}]},\"grid\":[[1],[1,2,3]]}",
         "grid[1]: has more items than maxItems 2"},
        {"{\"cfg\":{\"zones\":[{\"id\":\"a\",\"pct\":1}]},\"grid\":[[1],[1,18446744073709551616]]}",
         "grid[1][1]: 18446744073709551616 is beyond the 64-bit integer range"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[1024];
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"n\",\"arguments\":%s}}",
                 bad[i].args);
        calls = 0;
        HANDLE(&s, NULL, req);
        const char *v = NULL;
        size_t vl = 0;
        char got[256];
        long n = -1;
        if (tj_lookup(R.text, R.len, "result>content>0>text", &v, &vl) == 0) {
            n = tj_unescape(v, vl, got, sizeof got - 1);
        }
        got[n < 0 ? 0 : n] = '\0';
        /* The path in the block's _meta is the message's, up to its ": ". */
        char path[256], want_path[300];
        const char *colon = strstr(bad[i].msg, ": ");
        snprintf(path, sizeof path, "%.*s", colon ? (int)(colon - bad[i].msg) : 0, bad[i].msg);
        snprintf(want_path, sizeof want_path, "\"%s\"", path);
        const char *pv = NULL;
        size_t pl = 0;
        bool path_ok = tj_lookup(R.text, R.len, "result>content>0>_meta>emcp/invalidArgument>path", &pv, &pl) == 0 &&
                       pl == strlen(want_path) && memcmp(pv, want_path, pl) == 0;
        /* SEP-1303: a tool error (isError, HTTP 200), not -32602. */
        bool ok = calls == 0 && R.info.rpc_error == 0 && R.info.http_status == 200 && strcmp(got, bad[i].msg) == 0 &&
                  strstr(R.text, "\"isError\":true") != NULL && path_ok;
        if (!check_record(ok, __FILE__, __LINE__, "nested violation: an isError result with the path, callback not run"))
            fprintf(stderr, "    arguments %s\n    actual   %s\n    expected %s\n", bad[i].args, R.text, bad[i].msg);
    }
}

/* ---------------------------------------------------------------------------
 * outputSchema
 * ------------------------------------------------------------------------ */

static int out_mode;

static int out_tool(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)call;
    (void)user;
    calls++;
    int rc = 0;
    switch (out_mode) {
    case 5: /* no structuredContent */
        return mcp_result_text(r, "plain", 5);
    case 6: /* an execution error without structuredContent */
        return mcp_result_error(r, "failed", 6);
    case 7: /* an execution error with structuredContent that does not match */
        rc = mcp_result_error(r, "failed", 6);
        break;
    default:
        break;
    }
    rc = rc ? rc : mcp_result_structured_begin(r);
    switch (out_mode) {
    case 0: /* matches */
        rc = rc ? rc : mcp_json_key(r, "ok");
        rc = rc ? rc : mcp_json_bool(r, true);
        rc = rc ? rc : mcp_json_key(r, "pct");
        rc = rc ? rc : mcp_json_int(r, 50);
        rc = rc ? rc : mcp_json_key(r, "list");
        rc = rc ? rc : mcp_json_array_begin(r);
        rc = rc ? rc : mcp_json_int(r, 1);
        rc = rc ? rc : mcp_json_array_end(r);
        break;
    case 1: /* wrong type */
    case 7:
        rc = rc ? rc : mcp_json_key(r, "ok");
        rc = rc ? rc : mcp_json_string(r, "yes", 3);
        break;
    case 2: /* required member missing */
        rc = rc ? rc : mcp_json_key(r, "pct");
        rc = rc ? rc : mcp_json_int(r, 5);
        break;
    case 3: /* above maximum */
        rc = rc ? rc : mcp_json_key(r, "ok");
        rc = rc ? rc : mcp_json_bool(r, true);
        rc = rc ? rc : mcp_json_key(r, "pct");
        rc = rc ? rc : mcp_json_int(r, 150);
        break;
    case 4: /* not declared */
        rc = rc ? rc : mcp_json_key(r, "ok");
        rc = rc ? rc : mcp_json_bool(r, true);
        rc = rc ? rc : mcp_json_key(r, "extra");
        rc = rc ? rc : mcp_json_int(r, 1);
        break;
    case 8: /* an array item of the wrong type */
        rc = rc ? rc : mcp_json_key(r, "ok");
        rc = rc ? rc : mcp_json_bool(r, false);
        rc = rc ? rc : mcp_json_key(r, "list");
        rc = rc ? rc : mcp_json_array_begin(r);
        rc = rc ? rc : mcp_json_int(r, 1);
        rc = rc ? rc : mcp_json_string(r, "two", 3);
        rc = rc ? rc : mcp_json_array_end(r);
        break;
    case 9: /* more tokens than MCP_MAX_OUTPUT_TOKENS */
        rc = rc ? rc : mcp_json_key(r, "ok");
        rc = rc ? rc : mcp_json_bool(r, true);
        rc = rc ? rc : mcp_json_key(r, "list");
        rc = rc ? rc : mcp_json_array_begin(r);
        for (int i = 0; i < MCP_MAX_OUTPUT_TOKENS; i++) {
            rc = rc ? rc : mcp_json_int(r, i);
        }
        rc = rc ? rc : mcp_json_array_end(r);
        break;
    default:
        break;
    }
    rc = rc ? rc : mcp_result_structured_end(r);
    return rc;
}

static void test_output_schema(void)
{
    static mcp_server_t s;
    init_server(&s, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t t = def("out", OBJ,
                       "{\"type\":\"object\",\"required\":[\"ok\"],\"additionalProperties\":false,\"properties\":{"
                       "\"ok\":{\"type\":\"boolean\"},\"pct\":{\"type\":\"integer\",\"maximum\":100},"
                       "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}}}");
    t.max_result_len = 223; /* out_tool's largest result (measured) */
    CHECK_INT(mcp_server_add_tool(&s, &t, out_tool, NULL), 0);

    static const struct {
        int mode;
        const char *message; /* NULL: a result */
    } cases[] = {
        {0, NULL},
        {1, "structuredContent does not match outputSchema: ok: expected boolean, got string"},
        {2, "structuredContent does not match outputSchema: ok: required"},
        {3, "structuredContent does not match outputSchema: pct: 150 is above maximum 100"},
        {4, "structuredContent does not match outputSchema: extra: is not allowed (additionalProperties is false)"},
        {5, "Tool declares an outputSchema but returned no structuredContent"},
        {6, NULL},
        {7, NULL},
        {8, "structuredContent does not match outputSchema: list[1]: expected integer, got string"},
        {9, "structuredContent does not match outputSchema: larger than MCP_MAX_OUTPUT_TOKENS"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int era = 0; era < 2; era++) {
            out_mode = cases[i].mode;
            calls = 0;
            HANDLE(&s, NULL,
                   era ? "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{" ENVELOPE
                         ",\"name\":\"out\"}}"
                       : "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"out\"}}");
            bool ok;
            if (cases[i].message == NULL) {
                const char *v;
                size_t vl;
                ok = R.info.rpc_error == 0 && tj_lookup(R.text, R.len, "result>isError", &v, &vl) == 0;
            } else {
                char want[512];
                snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32603,\"message\":\"%s\"}}",
                         cases[i].message);
                ok = strcmp(R.text, want) == 0 && R.info.rpc_error == MCP_RPC_INTERNAL_ERROR;
            }
            ok = ok && calls == 1;
            if (!check_record(ok, __FILE__, __LINE__, "outputSchema check after the callback"))
                fprintf(stderr, "    mode %d era %d\n    actual   %s\n    expected %s\n", cases[i].mode, era, R.text,
                        cases[i].message ? cases[i].message : "(a result)");
        }
    }
    /* The matching result is sent as written. */
    out_mode = 0;
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"out\"}}");
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[],\"structuredContent\":{\"ok\":true,\"pct\":50,"
               "\"list\":[1]},\"isError\":false}}",
               0, 200);
    /* An execution error's structuredContent is not checked. */
    out_mode = 7;
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"out\"}}");
    CHECK_AT("result>isError", "true");
    CHECK_AT("result>structuredContent", "{\"ok\":\"yes\"}");
    /* A mismatch answers -32603 without any of the result. */
    out_mode = 3;
    HANDLE(&s, NULL, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"out\"}}");
    CHECK_ABSENT("result");
    CHECK(strstr(R.text, "150") == NULL || strstr(R.text, "150 is above maximum 100") != NULL);
    CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
}

int main(void)
{
    test_unsupported_keywords();
    test_malformed_schemas();
    test_accepted_schemas();
    test_schemas_take_no_table();
    test_self_consistent_schemas();
    test_keywords();
    test_open_objects();
    test_defaults();
    test_nested();
    test_output_schema();
    return check_summary("test_schema");
}

