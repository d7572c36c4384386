/*
 * test_result: the result builder a tool callback writes with: text blocks,
 * isError, structuredContent through the mcp_json_* calls, the order rules,
 * and how a failing callback or an unfinished result is answered.
 */
#include <float.h>
#include <math.h>

#include "check.h"

static mcp_server_t server;
static int (*builder)(mcp_result_t *r);
static int ran;

static int build_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    ran++;
    return builder ? builder(result) : 0;
}

/* Runs `fn` as the tool and leaves the response in R. */
static void build(int (*fn)(mcp_result_t *), bool modern, size_t cap)
{
    builder = fn;
    ran = 0;
    if (modern) {
        HANDLE_CAP(&server, NULL,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{" ENVELOPE ",\"name\":\"r\"}}",
                   cap);
    } else {
        HANDLE_CAP(&server, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"r\"}}",
                   cap);
    }
    builder = NULL;
    CHECK_INT(ran, 1);
}

#define T(s) (s), (sizeof(s) - 1)

/* Return values seen inside the callbacks, checked afterwards. */
static int rcs[64];
static size_t nrc;
static void reset_rcs(void)
{
    nrc = 0;
    memset(rcs, 0x7f, sizeof rcs);
}
#define RC(expr) (nrc < sizeof rcs / sizeof rcs[0] ? (rcs[nrc++] = (expr)) : (expr))

static int b_nothing(mcp_result_t *r)
{
    (void)r;
    return 0;
}

static int b_texts(mcp_result_t *r)
{
    RC(mcp_result_text(r, T("hello")));
    RC(mcp_result_text(r, T("w\xc3\xb6rld \"q\"\n\x01\\/\t\xf0\x9f\x98\x80")));
    RC(mcp_result_text(r, "", 0));
    RC(mcp_result_text(r, T("a\0b")));
    return 0;
}

static int b_error(mcp_result_t *r)
{
    RC(mcp_result_text(r, T("reading")));
    RC(mcp_result_error(r, T("refused: door open")));
    return 0;
}

static int b_set_error(mcp_result_t *r)
{
    RC(mcp_result_set_error(r, true));
    return 0;
}

static int b_set_error_cleared(mcp_result_t *r)
{
    RC(mcp_result_error(r, T("transient")));
    RC(mcp_result_set_error(r, false));
    return 0;
}

static int b_structured(mcp_result_t *r)
{
    RC(mcp_result_text(r, T("summary")));
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "s"));
    RC(mcp_json_string(r, T("x y")));
    RC(mcp_json_key(r, "i"));
    RC(mcp_json_int(r, -42));
    RC(mcp_json_key(r, "max"));
    RC(mcp_json_int(r, INT64_MAX));
    RC(mcp_json_key(r, "min"));
    RC(mcp_json_int(r, INT64_MIN));
    RC(mcp_json_key(r, "d"));
    RC(mcp_json_number(r, 21.5));
    RC(mcp_json_key(r, "dec"));
    RC(mcp_json_array_begin(r));
    RC(mcp_json_decimal(r, 215, 1));
    RC(mcp_json_decimal(r, 620, 1));
    RC(mcp_json_decimal(r, -5, 3));
    RC(mcp_json_decimal(r, INT64_MIN, 2));
    RC(mcp_json_decimal(r, 7, 0));
    RC(mcp_json_array_end(r));
    RC(mcp_json_key(r, "b"));
    RC(mcp_json_bool(r, true));
    RC(mcp_json_key(r, "f"));
    RC(mcp_json_bool(r, false));
    RC(mcp_json_key(r, "nul"));
    RC(mcp_json_null(r));
    RC(mcp_json_key(r, "o"));
    RC(mcp_json_object_begin(r));
    RC(mcp_json_key(r, "arr"));
    RC(mcp_json_array_begin(r));
    RC(mcp_json_int(r, 1));
    RC(mcp_json_string(r, T("two")));
    RC(mcp_json_array_begin(r));
    RC(mcp_json_array_end(r));
    RC(mcp_json_object_begin(r));
    RC(mcp_json_object_end(r));
    RC(mcp_json_null(r));
    RC(mcp_json_bool(r, false));
    RC(mcp_json_number(r, -0.25));
    RC(mcp_json_array_end(r));
    RC(mcp_json_key(r, "deep"));
    RC(mcp_json_object_begin(r));
    RC(mcp_json_key(r, "x"));
    RC(mcp_json_int(r, 0));
    RC(mcp_json_object_end(r));
    RC(mcp_json_object_end(r));
    RC(mcp_json_key(r, "empty"));
    RC(mcp_json_string(r, "", 0));
    RC(mcp_result_structured_end(r));
    return 0;
}

static const char structured_json[] =
    "{\"s\":\"x y\",\"i\":-42,\"max\":9223372036854775807,\"min\":-9223372036854775808,\"d\":21.5,"
    "\"dec\":[21.5,62.0,-0.005,-92233720368547758.08,7],\"b\":true,"
    "\"f\":false,\"nul\":null,\"o\":{\"arr\":[1,\"two\",[],{},null,false,-0.25],\"deep\":{\"x\":0}},\"empty\":\"\"}";

static int b_escapes(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "k\"\\\n\x1f\xc3\xa9"));
    RC(mcp_json_string(r, T("v\"\\\b\f\r\x7f\xe2\x82\xac\0")));
    RC(mcp_result_structured_end(r));
    return 0;
}

static const double numbers[] = {
    0.1, 1e300, -1e-300, 5e-324, DBL_MAX, -DBL_MAX, 123456789.125, 1e21, 1e-7, 3.0, -0.0, 2.5e-5,
    9007199254740993.0, 1.7976931348623157e308, 4.9406564584124654e-324, 0.30000000000000004,
};
#define N_NUMBERS (sizeof numbers / sizeof numbers[0])

static int b_numbers(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "v"));
    RC(mcp_json_array_begin(r));
    for (size_t i = 0; i < N_NUMBERS; i++) {
        if (mcp_json_number(r, numbers[i]) != 0) {
            RC(-1000 - (int)i);
        }
    }
    RC(mcp_json_array_end(r));
    RC(mcp_result_structured_end(r));
    return 0;
}

static int b_only_structured(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_result_structured_end(r));
    return 0;
}

/* Calls out of order that are refused without harm. */
static int b_order(mcp_result_t *r)
{
    /* Before structured_begin: no JSON calls, no structured_end. */
    RC(mcp_json_key(r, "k"));            /* 0 */
    RC(mcp_json_int(r, 1));              /* 1 */
    RC(mcp_json_string(r, T("s")));      /* 2 */
    RC(mcp_json_number(r, 1.0));         /* 3 */
    RC(mcp_json_bool(r, true));          /* 4 */
    RC(mcp_json_null(r));                /* 5 */
    RC(mcp_json_object_begin(r));        /* 6 */
    RC(mcp_json_object_end(r));          /* 7 */
    RC(mcp_json_array_begin(r));         /* 8 */
    RC(mcp_json_array_end(r));           /* 9 */
    RC(mcp_result_structured_end(r));    /* 10 */
    RC(mcp_result_text(r, T("first"))); /* 11: 0 */
    RC(mcp_result_structured_begin(r)); /* 12: 0 */
    /* After structured_begin: no more content blocks, no second begin. */
    RC(mcp_result_text(r, T("late")));  /* 13 */
    RC(mcp_result_error(r, T("late"))); /* 14 */
    RC(mcp_result_structured_begin(r)); /* 15 */
    RC(mcp_json_object_end(r));         /* 16: the structuredContent object itself */
    RC(mcp_json_array_end(r));          /* 17 */
    RC(mcp_json_key(r, "o"));           /* 18: 0 */
    RC(mcp_json_object_begin(r));       /* 19: 0 */
    RC(mcp_result_structured_end(r));   /* 20: object still open */
    RC(mcp_json_object_end(r));         /* 21: 0 */
    RC(mcp_json_key(r, "a"));           /* 22: 0 */
    RC(mcp_json_array_begin(r));        /* 23: 0 */
    RC(mcp_result_structured_end(r));   /* 24: array still open */
    RC(mcp_json_array_end(r));          /* 25: 0 */
    RC(mcp_result_structured_end(r));   /* 26: 0 */
    RC(mcp_result_structured_end(r));   /* 27: already closed */
    RC(mcp_json_key(r, "after"));       /* 28: after the end */
    RC(mcp_result_text(r, T("after"))); /* 29 */
    return 0;
}

static int b_key_twice(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "a"));
    RC(mcp_json_key(r, "b"));
    RC(mcp_json_int(r, 1));
    RC(mcp_result_structured_end(r));
    return 0;
}

static int b_value_without_key(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_int(r, 1));
    RC(mcp_result_structured_end(r));
    return 0;
}

static int b_key_in_array(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "a"));
    RC(mcp_json_array_begin(r));
    RC(mcp_json_key(r, "x"));
    RC(mcp_json_array_end(r));
    RC(mcp_result_structured_end(r));
    return 0;
}

static int b_array_end_in_object(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "o"));
    RC(mcp_json_object_begin(r));
    RC(mcp_json_array_end(r));
    RC(mcp_json_object_end(r));
    RC(mcp_result_structured_end(r));
    return 0;
}

static int b_fail(mcp_result_t *r)
{
    (void)r;
    return -MCP_EINVAL;
}

static int b_fail_after_text(mcp_result_t *r)
{
    RC(mcp_result_text(r, T("partial")));
    return -1;
}

static int b_left_open(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "a"));
    RC(mcp_json_int(r, 1));
    return 0;
}

static int b_left_open_nested(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "a"));
    RC(mcp_json_array_begin(r));
    return 0;
}

static int b_bad_utf8(mcp_result_t *r)
{
    RC(mcp_result_text(r, T("a")));
    RC(mcp_result_text(r, T("\xff")));
    RC(mcp_result_text(r, T("x\xc3")));
    RC(mcp_result_error(r, T("\xed\xa0\x80")));
    RC(mcp_result_error(r, T("\xc0\x80")));
    RC(mcp_result_text(r, T("b")));
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "k\xff"));
    RC(mcp_json_key(r, "k"));
    RC(mcp_json_string(r, T("\xf4\x90\x80\x80")));
    RC(mcp_json_string(r, T("ok")));
    RC(mcp_result_structured_end(r));
    return 0;
}

static int b_not_finite(mcp_result_t *r)
{
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "v"));
    RC(mcp_json_number(r, NAN));
    RC(mcp_json_number(r, INFINITY));
    RC(mcp_json_number(r, -INFINITY));
    RC(mcp_json_null(r));
    RC(mcp_result_structured_end(r));
    return 0;
}

static int b_null_args(mcp_result_t *r)
{
    RC(mcp_result_text(r, NULL, 3));
    RC(mcp_result_error(r, NULL, 3));
    RC(mcp_result_text(NULL, T("x")));
    RC(mcp_result_error(NULL, T("x")));
    RC(mcp_result_set_error(NULL, true));
    RC(mcp_result_structured_begin(NULL));
    RC(mcp_result_structured_end(NULL));
    RC(mcp_json_key(NULL, "k"));
    RC(mcp_json_string(NULL, T("s")));
    RC(mcp_json_int(NULL, 1));
    RC(mcp_json_number(NULL, 1.0));
    RC(mcp_json_bool(NULL, true));
    RC(mcp_json_null(NULL));
    RC(mcp_json_object_begin(NULL));
    RC(mcp_json_object_end(NULL));
    RC(mcp_json_array_begin(NULL));
    RC(mcp_json_array_end(NULL));
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, NULL));
    RC(mcp_json_key(r, "k"));
    RC(mcp_json_string(r, NULL, 2));
    RC(mcp_json_int(r, 5));
    RC(mcp_result_structured_end(r));
    return 0;
}

static char filler[4096];

static int b_overflow_text(mcp_result_t *r)
{
    RC(mcp_result_text(r, T("fits")));
    RC(mcp_result_text(r, filler, 600));
    RC(mcp_result_text(r, T("x")));
    RC(mcp_result_structured_begin(r));
    return 0;
}

static int b_overflow_structured(mcp_result_t *r)
{
    int first = 0;
    RC(mcp_result_structured_begin(r));
    RC(mcp_json_key(r, "v"));
    RC(mcp_json_array_begin(r));
    for (int i = 0; i < 200; i++) {
        int rc = mcp_json_int(r, 1000000 + i);
        if (rc != 0 && first == 0) {
            first = rc;
        }
    }
    RC(first);
    RC(mcp_json_array_end(r));
    RC(mcp_result_structured_end(r));
    return 0;
}

#define EXPECT_RCS(...)                                                                \
    do {                                                                               \
        const int want_[] = {__VA_ARGS__};                                             \
        size_t nwant_ = sizeof want_ / sizeof want_[0];                                \
        CHECK_INT(nrc, nwant_);                                                        \
        for (size_t i_ = 0; i_ < nwant_ && i_ < nrc; i_++) {                           \
            if (!check_record(rcs[i_] == want_[i_], __FILE__, __LINE__, "return code")) \
                fprintf(stderr, "    call %zu: returned %d, expected %d\n", i_, rcs[i_], want_[i_]); \
        }                                                                              \
    } while (0)

#define STAMP "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"test-server\",\"version\":\"1.2.3\"}}"

static void check_internal_error(const char *id)
{
    CHECK_INT(R.info.rpc_error, MCP_RPC_INTERNAL_ERROR);
    CHECK_INT(R.info.http_status, 200);
    CHECK_AT("error>code", "-32603");
    CHECK_ABSENT("result");
    const char *v;
    size_t vl;
    CHECK(tj_lookup(R.text, R.len, "id", &v, &vl) == 0 && vl == strlen(id) && memcmp(v, id, vl) == 0);
}

int main(void)
{
    init_server(&server, 0, MCP_CACHE_PRIVATE);
    /* Read-only, so it may leave max_result_len undeclared: its builders
     * test results that outgrow the buffer inside the callback. */
    mcp_tool_t t = {.name = "r", .input_schema = "{\"type\":\"object\"}", .annotations = MCP_TOOL_READ_ONLY};
    CHECK_INT(mcp_server_add_tool(&server, &t, build_tool, NULL), 0);
    memset(filler, 'f', sizeof filler);

    /* No content at all. */
    reset_rcs();
    build(b_nothing, false, RESP_DEFAULT_CAP);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"isError\":false}}", 0, 200);

    /* Text blocks. */
    reset_rcs();
    build(b_texts, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0, 0, 0);
    CHECK_INT(R.info.rpc_error, 0);
    CHECK_INT(resp_count("result>content"), 4);
    CHECK_AT("result>content>0", "{\"type\":\"text\",\"text\":\"hello\"}");
    CHECK_AT("result>content>1>type", "\"text\"");
    CHECK_TEXT_AT("result>content>1>text", "w\xc3\xb6rld \"q\"\n\x01\\/\t\xf0\x9f\x98\x80",
                  sizeof "w\xc3\xb6rld \"q\"\n\x01\\/\t\xf0\x9f\x98\x80" - 1);
    CHECK_AT("result>content>2>text", "\"\"");
    CHECK_TEXT_AT("result>content>3>text", "a\0b", 3);
    CHECK_AT("result>isError", "false");
    CHECK_ABSENT("result>structuredContent");

    /* mcp_result_error: isError, and still a JSON-RPC result. */
    reset_rcs();
    build(b_error, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"reading\"},{"
               "\"type\":\"text\",\"text\":\"refused: door open\"}],\"isError\":true}}",
               0, 200);
    reset_rcs();
    build(b_error, true, RESP_DEFAULT_CAP);
    /* resultType follows the content: it is known only once the callback returned. */
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\","
               "\"text\":\"reading\"},{\"type\":\"text\",\"text\":\"refused: door open\"}],\"isError\":true,"
               "\"resultType\":\"complete\"," STAMP "}}",
               0, 200);

    reset_rcs();
    build(b_set_error, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"isError\":true}}", 0, 200);
    reset_rcs();
    build(b_set_error_cleared, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"transient\"}],"
               "\"isError\":false}}",
               0, 200);

    /* structuredContent with every value type, nested. */
    reset_rcs();
    build(b_structured, false, RESP_DEFAULT_CAP);
    for (size_t i = 0; i < nrc; i++) {
        if (!check_record(rcs[i] == 0, __FILE__, __LINE__, "structured builder call returns 0"))
            fprintf(stderr, "    call %zu returned %d\n", i, rcs[i]);
    }
    CHECK_INT(nrc, 49);
    CHECK_AT("result>structuredContent", structured_json);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"summary\"}],"
               "\"structuredContent\":{\"s\":\"x y\",\"i\":-42,\"max\":9223372036854775807,\"min\":"
               "-9223372036854775808,\"d\":21.5,\"dec\":[21.5,62.0,-0.005,-92233720368547758.08,7],"
               "\"b\":true,\"f\":false,\"nul\":null,\"o\":{\"arr\":[1,\"two\",[],{},"
               "null,false,-0.25],\"deep\":{\"x\":0}},\"empty\":\"\"},\"isError\":false}}",
               0, 200);
    reset_rcs();
    build(b_structured, true, RESP_DEFAULT_CAP);
    CHECK_AT("result>resultType", "\"complete\"");
    CHECK_AT("result>structuredContent", structured_json);
    CHECK_AT("result>isError", "false");
    CHECK_AT("result>_meta>io.modelcontextprotocol/serverInfo>name", "\"test-server\"");

    /* Escapes in keys and strings decode back to the bytes written. */
    reset_rcs();
    build(b_escapes, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0, 0, 0);
    CHECK_INT(resp_count("result>structuredContent"), 1);
    {
        /* The one member of structuredContent, key and value decoded. */
        static const char want_key[] = "k\"\\\n\x1f\xc3\xa9";
        static const char want_val[] = "v\"\\\b\f\r\x7f\xe2\x82\xac\0";
        const char *obj = NULL;
        size_t objl = 0;
        char key[32];
        char val[32];
        long kn = -1;
        long vn = -1;
        if (tj_lookup(R.text, R.len, "result>structuredContent", &obj, &objl) == 0) {
            size_t p = 1;
            tj_ws(obj, objl, &p);
            size_t q = p;
            if (tj_string(obj, objl, &p) == 0) {
                kn = tj_unescape(obj + q, p - q, key, sizeof key);
                tj_ws(obj, objl, &p);
                p++; /* ':' */
                tj_ws(obj, objl, &p);
                q = p;
                if (tj_string(obj, objl, &p) == 0) {
                    vn = tj_unescape(obj + q, p - q, val, sizeof val);
                }
            }
        }
        CHECK(kn == (long)sizeof want_key - 1 && memcmp(key, want_key, sizeof want_key - 1) == 0);
        CHECK(vn == (long)sizeof want_val - 1 && memcmp(val, want_val, sizeof want_val - 1) == 0);
    }

    /* Numbers: valid JSON that reads back to the same double. */
    reset_rcs();
    build(b_numbers, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0, 0, 0, 0);
    CHECK_INT(resp_count("result>structuredContent>v"), (int)N_NUMBERS);
    for (size_t i = 0; i < N_NUMBERS; i++) {
        char path[64];
        char num[64];
        const char *v;
        size_t vl;
        snprintf(path, sizeof path, "result>structuredContent>v>%zu", i);
        bool ok = tj_lookup(R.text, R.len, path, &v, &vl) == 0 && vl < sizeof num;
        double back = NAN;
        if (ok) {
            memcpy(num, v, vl);
            num[vl] = '\0';
            back = strtod(num, NULL);
        }
        if (!check_record(ok && back == numbers[i] && signbit(back) == signbit(numbers[i]), __FILE__, __LINE__,
                          "mcp_json_number round-trips"))
            fprintf(stderr, "    %.17g written as %s\n", numbers[i], ok ? num : "(missing)");
    }

    reset_rcs();
    build(b_only_structured, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"structuredContent\":{},\"isError\":false}}",
               0, 200);

    /* Order rules; each refused call changes nothing. */
    reset_rcs();
    build(b_order, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(-MCP_EPERM, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM,
               -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, 0, 0, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM, 0,
               0, -MCP_EPERM, 0, 0, 0, -MCP_EPERM, 0, 0, -MCP_EPERM, -MCP_EPERM, -MCP_EPERM);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"first\"}],"
               "\"structuredContent\":{\"o\":{},\"a\":[]},\"isError\":false}}",
               0, 200);

    /* Misuse inside structuredContent fails the request with -32603. */
    reset_rcs();
    build(b_key_twice, false, RESP_DEFAULT_CAP);
    CHECK_INT(rcs[0], 0);
    CHECK_INT(rcs[1], 0);
    CHECK_INT(rcs[2], -MCP_EPERM);
    check_internal_error("1");
    reset_rcs();
    build(b_value_without_key, false, RESP_DEFAULT_CAP);
    CHECK_INT(rcs[0], 0);
    CHECK_INT(rcs[1], -MCP_EPERM);
    check_internal_error("1");
    reset_rcs();
    build(b_key_in_array, true, RESP_DEFAULT_CAP);
    CHECK_INT(rcs[3], -MCP_EPERM);
    check_internal_error("1");
    reset_rcs();
    build(b_array_end_in_object, false, RESP_DEFAULT_CAP);
    CHECK_INT(rcs[3], -MCP_EPERM);
    CHECK(R.info.rpc_error == 0 || R.info.rpc_error == MCP_RPC_INTERNAL_ERROR);

    /* A failing callback: -32603, same id, nothing of its partial result. */
    reset_rcs();
    build(b_fail, false, RESP_DEFAULT_CAP);
    check_internal_error("1");
    reset_rcs();
    build(b_fail_after_text, true, RESP_DEFAULT_CAP);
    EXPECT_RCS(0);
    check_internal_error("1");
    CHECK(strstr(R.text, "partial") == NULL);

    /* structuredContent left open: -32603. */
    reset_rcs();
    build(b_left_open, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0, 0);
    check_internal_error("1");
    reset_rcs();
    build(b_left_open_nested, true, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0, 0);
    check_internal_error("1");

    /* Invalid UTF-8 is refused and leaves nothing behind. */
    reset_rcs();
    build(b_bad_utf8, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, -MCP_EILSEQ, -MCP_EILSEQ, -MCP_EILSEQ, -MCP_EILSEQ, 0, 0, -MCP_EILSEQ, 0, -MCP_EILSEQ, 0, 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\"},{\"type\":"
               "\"text\",\"text\":\"b\"}],\"structuredContent\":{\"k\":\"ok\"},\"isError\":false}}",
               0, 200);

    /* NaN and infinities are not JSON numbers. */
    reset_rcs();
    build(b_not_finite, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(0, 0, -MCP_EDOM, -MCP_EDOM, -MCP_EDOM, 0, 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"structuredContent\":{\"v\":null},"
               "\"isError\":false}}",
               0, 200);

    /* NULL handles and pointers. */
    reset_rcs();
    build(b_null_args, false, RESP_DEFAULT_CAP);
    EXPECT_RCS(-MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL,
               -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL, -MCP_EINVAL,
               -MCP_EINVAL, 0, -MCP_EINVAL, 0, -MCP_EINVAL, 0, 0);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[],\"structuredContent\":{\"k\":5},"
               "\"isError\":false}}",
               0, 200);

    /* The response buffer fills up: -MCP_ENOBUFS to the callback, then the
     * request fails with -32603 "Response exceeds the response buffer". */
    reset_rcs();
    build(b_overflow_text, false, 512);
    EXPECT_RCS(0, -MCP_ENOBUFS, -MCP_ENOBUFS, -MCP_ENOBUFS);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"Response exceeds the response "
               "buffer\"}}",
               MCP_RPC_INTERNAL_ERROR, 200);
    reset_rcs();
    build(b_overflow_structured, true, MCP_MIN_RESPONSE_CAP);
    EXPECT_RCS(0, 0, 0, -MCP_ENOBUFS, -MCP_ENOBUFS, -MCP_ENOBUFS);
    CHECK_RESP("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32603,\"message\":\"Response exceeds the response "
               "buffer\"}}",
               MCP_RPC_INTERNAL_ERROR, 200);

    return check_summary("test_result");
}
