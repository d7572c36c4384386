/*
 * test_tool_storage: a tool table sized by the program
 * (mcp_server_set_tool_storage), through the public C API only.
 *
 * 300 tools in a static array of mcp_tool_slot_t, used instead of the
 * server's own MCP_MAX_TOOLS slots (the first tools registered before it
 * move into it). Every tool is listed, page by page, in registration order;
 * tools far past MCP_MAX_TOOLS are called, disabled, rate limited and
 * deduplicated (a keyed tool at index 290, whose duplicate-table tag does
 * not fit a byte) as the first ones are; the usage reports count them; the
 * 301st registration is -MCP_ENOSPC with a message naming the limit; a
 * misaligned, too small or NULL storage gets its own error.
 * Built with the other C tests, so it runs under ASan/UBSan in the
 * sanitizer build (scripts/test.sh).
 */
#include <inttypes.h>
#include <stdalign.h>

#include "check.h"

#define OBJ "{\"type\":\"object\"}"
#define N_TOOLS 300
#define KEYED 290
#define LIMITED 270
#define OFF 250

static mcp_tool_slot_t slots[N_TOOLS];
static char names[N_TOOLS + 1][8];
static int runs[N_TOOLS];

/* Writes its own index as text; counts its runs. */
static int index_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    int i = (int)(intptr_t)user;
    runs[i]++;
    char text[8];
    snprintf(text, sizeof text, "%d", i);
    return mcp_result_text_cstr(result, text);
}

static mcp_tool_t def(int i)
{
    mcp_tool_t t;
    memset(&t, 0, sizeof t);
    t.name = names[i];
    t.input_schema = OBJ;
    t.max_result_len = 64;
    if (i == KEYED) {
        t.idempotency_key = "key";
    }
    if (i == LIMITED) {
        t.min_interval_ms = 1000;
    }
    return t;
}

static void init(mcp_server_t *s, uint32_t page_size)
{
    mcp_server_config_t cfg = {
        .name = "test-server",
        .version = "1.2.3",
        .cache_scope = MCP_CACHE_PRIVATE,
        .list_page_size = page_size,
    };
    if (mcp_server_init(s, &cfg) != 0) {
        fprintf(stderr, "mcp_server_init failed\n");
        exit(2);
    }
}

/* Calls tool `i` with `args` at `now_ms`; the response is in R. */
static void call(mcp_server_t *s, int i, const char *args, uint64_t now_ms, mcp_dedup_t *dedup)
{
    char req[256];
    snprintf(req, sizeof req,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{" ENVELOPE
             ",\"name\":\"%s\",\"arguments\":%s}}",
             i, names[i], args);
    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.now_ms = now_ms;
    ctx.dedup = dedup;
    HANDLE(s, &ctx, req);
}

/* The text of the last response's first content block, or "". */
static const char *text0(void)
{
    static char out[64];
    const char *v;
    size_t vl;
    out[0] = '\0';
    if (tj_lookup(R.text, R.len, "result>content>0>text", &v, &vl) == 0) {
        (void)tj_unescape(v, vl, out, sizeof out);
    }
    return out;
}

static bool is_error(void)
{
    const char *v;
    size_t vl;
    return tj_lookup(R.text, R.len, "result>isError", &v, &vl) == 0 && vl == 4 && memcmp(v, "true", 4) == 0;
}

/* Lists every tool page by page; writes the names in order into `seen`
 * (comma-separated); returns how many, -1 on a malformed page. */
static int list_all(mcp_server_t *s, char *seen, size_t cap, int *pages)
{
    char cursor[32] = "";
    int n = 0;
    size_t at = 0;
    *pages = 0;
    seen[0] = '\0';
    for (;;) {
        char req[256];
        snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" ENVELOPE "%s%s}}",
                 cursor[0] ? ",\"cursor\":" : "", cursor);
        if (HANDLE_CAP(s, NULL, req, 60000) <= 0) {
            return -1;
        }
        (*pages)++;
        int k = resp_count("result>tools");
        if (k < 0) {
            return -1;
        }
        for (int j = 0; j < k; j++) {
            char path[48];
            const char *v;
            size_t vl;
            snprintf(path, sizeof path, "result>tools>%d>name", j);
            if (tj_lookup(R.text, R.len, path, &v, &vl) != 0 || vl < 2 || at + vl + 1 >= cap) {
                return -1;
            }
            at += (size_t)snprintf(seen + at, cap - at, "%.*s,", (int)vl - 2, v + 1);
            n++;
        }
        const char *v;
        size_t vl;
        if (tj_lookup(R.text, R.len, "result>nextCursor", &v, &vl) != 0) {
            return n;
        }
        if (vl >= sizeof cursor) {
            return -1;
        }
        memcpy(cursor, v, vl);
        cursor[vl] = '\0';
    }
}

static void test_storage_errors(void)
{
    static mcp_server_t s;
    static alignas(8) unsigned char bytes[4 * MCP_TOOL_SLOT_SIZE + 8];
    static mcp_tool_slot_t few[2];
    CHECK_INT(sizeof(mcp_tool_slot_t), MCP_TOOL_SLOT_SIZE);
    CHECK_INT(mcp_build_limit("MCP_TOOL_SLOT_SIZE"), MCP_TOOL_SLOT_SIZE);
    CHECK_INT(mcp_server_set_tool_storage(&s, few, 2), -MCP_EINVAL); /* not initialised */
    init(&s, 0);
    CHECK_INT(mcp_server_set_tool_storage(NULL, few, 2), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_tool_storage(&s, NULL, 2), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_tool_storage(&s, (mcp_tool_slot_t *)(void *)(bytes + 4), 2), -MCP_EDOM);
    CHECK_INT(mcp_server_set_tool_storage(&s, few, 0), -MCP_ENOBUFS);
    CHECK_INT(mcp_server_set_tool_storage(&s, few, ((size_t)1 << 22) + 1), -MCP_ERANGE);
    /* Three tools in the server's own slots, one of them disabled. */
    for (int i = 0; i < 3; i++) {
        snprintf(names[i], sizeof names[i], "t%03d", i);
        mcp_tool_t t = def(i);
        CHECK_INT(mcp_server_add_tool(&s, &t, index_tool, (void *)(intptr_t)i), 0);
    }
    int en = mcp_server_enable(&s, MCP_LIST_TOOLS, names[1], false); /* the catalog feature's */
    CHECK(en == 1 || en == -MCP_ENOTSUP);
    /* Too few slots for them: refused, nothing changes. */
    CHECK_INT(mcp_server_set_tool_storage(&s, few, 2), -MCP_ENOBUFS);
    mcp_usage_t u;
    CHECK_INT(mcp_server_usage(&s, &u), 0);
    CHECK_INT(u.tools.capacity, MCP_MAX_TOOLS);
    /* A byte buffer aligned to 8 and sized with MCP_TOOL_SLOT_SIZE: the
     * tools move into it, the table holds 4. */
    CHECK_INT(mcp_server_set_tool_storage(&s, (mcp_tool_slot_t *)(void *)bytes, 4), 0);
    CHECK_INT(mcp_server_usage(&s, &u), 0);
    CHECK_INT(u.tools.used, 3);
    CHECK_INT(u.tools.capacity, 4);
    int pages = 0;
    char seen[64];
    int listed = list_all(&s, seen, sizeof seen, &pages);
    if (en == -MCP_ENOTSUP) {
        CHECK_INT(listed, 3);
        CHECK_STR(seen, "t000,t001,t002,");
    } else {
        CHECK_INT(listed, 2); /* t001 is still disabled */
        CHECK_STR(seen, "t000,t002,");
    }
    call(&s, 2, "{}", 0, NULL);
    CHECK_STR(text0(), "2");
    snprintf(names[3], sizeof names[3], "t003");
    mcp_tool_t t = def(3);
    CHECK_INT(mcp_server_add_tool(&s, &t, index_tool, (void *)(intptr_t)3), 0);
    snprintf(names[N_TOOLS], sizeof names[N_TOOLS], "over");
    t = def(N_TOOLS);
    CHECK_INT(mcp_server_add_tool(&s, &t, index_tool, NULL), -MCP_ENOSPC);
    char why[MCP_MAX_ERROR_MESSAGE + 1];
    CHECK(mcp_server_schema_error(&s, why, sizeof why) > 0);
    CHECK_STR(why, "tool table full: give mcp_server_set_tool_storage more slots (4)");
    memset(runs, 0, sizeof runs);
}

static void test_300_tools(void)
{
    static mcp_server_t s;
    static char seen[N_TOOLS * 8 + 1];
    static char want[N_TOOLS * 8 + 1];
    static mcp_dedup_t dedup;
    init(&s, 64);
    CHECK_INT(mcp_server_set_tool_storage(&s, slots, sizeof slots / sizeof slots[0]), 0);
    size_t at = 0;
    for (int i = 0; i < N_TOOLS; i++) {
        snprintf(names[i], sizeof names[i], "t%03d", i);
        mcp_tool_t t = def(i);
        CHECK_INT(mcp_server_add_tool(&s, &t, index_tool, (void *)(intptr_t)i), 0);
        at += (size_t)snprintf(want + at, sizeof want - at, "%s,", names[i]);
    }
    /* The 301st: -MCP_ENOSPC, and the message names both limits. */
    snprintf(names[N_TOOLS], sizeof names[N_TOOLS], "over");
    mcp_tool_t over = def(N_TOOLS);
    CHECK_INT(mcp_server_add_tool(&s, &over, index_tool, NULL), -MCP_ENOSPC);
    char why[MCP_MAX_ERROR_MESSAGE + 1];
    char expect[MCP_MAX_ERROR_MESSAGE + 1];
    snprintf(expect, sizeof expect, "tool table full: give mcp_server_set_tool_storage more slots (%d)", N_TOOLS);
    CHECK(mcp_server_schema_error(&s, why, sizeof why) > 0);
    CHECK_STR(why, expect);

    mcp_usage_t u;
    CHECK_INT(mcp_server_usage(&s, &u), 0);
    CHECK_INT(u.tools.used, N_TOOLS);
    CHECK_INT(u.tools.capacity, N_TOOLS);

    /* Every tool listed once, in registration order, 64 to a page. */
    int pages = 0;
    CHECK_INT(list_all(&s, seen, sizeof seen, &pages), N_TOOLS);
    CHECK_STR(seen, want);
    CHECK_INT(pages, (N_TOOLS + 63) / 64);

    /* Calls reach the right callback, on either side of the own slots. */
    int probe[] = {0, MCP_MAX_TOOLS - 1, MCP_MAX_TOOLS, 129, 200, N_TOOLS - 1};
    for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++) {
        char num[8];
        snprintf(num, sizeof num, "%d", probe[k]);
        call(&s, probe[k], "{}", 0, NULL);
        CHECK_STR(text0(), num);
        CHECK_INT(runs[probe[k]], 1);
    }
    /* The largest result of a tool in the given slots is counted for it. */
    mcp_tool_usage_t tu;
    CHECK_INT(mcp_server_tool_usage(&s, N_TOOLS - 1, &tu), 0);
    CHECK_STR(tu.name, names[N_TOOLS - 1]);
    CHECK_INT(tu.largest_result, strlen("{\"type\":\"text\",\"text\":\"299\"}"));
    CHECK_INT(mcp_server_tool_usage(&s, N_TOOLS - 2, &tu), 0);
    CHECK_INT(tu.largest_result, 0);
    CHECK_INT(mcp_server_tool_usage(&s, N_TOOLS, &tu), -MCP_ENOENT);

    /* Disabled: neither listed nor callable; its neighbours are untouched. */
    int en = mcp_server_enable(&s, MCP_LIST_TOOLS, names[OFF], false);
    if (en != -MCP_ENOTSUP) {
        CHECK_INT(en, 1);
        CHECK_INT(list_all(&s, seen, sizeof seen, &pages), N_TOOLS - 1);
        CHECK(strstr(seen, "t250,") == NULL && strstr(seen, "t249,t251,") != NULL);
        call(&s, OFF, "{}", 0, NULL);
        CHECK_INT(runs[OFF], 0);
        CHECK_INT(R.info.rpc_error, MCP_RPC_INVALID_PARAMS);
        CHECK_INT(mcp_server_enable(&s, MCP_LIST_TOOLS, names[OFF], true), 1);
        call(&s, OFF, "{}", 0, NULL);
        CHECK_INT(runs[OFF], 1);
    }

    /* Rate limit and idempotency keys: the policy feature (full profile). */
    if (mcp_dedup_init(&dedup) == -MCP_ENOTSUP) {
        return;
    }
    call(&s, LIMITED, "{}", 10000, NULL);
    call(&s, LIMITED, "{}", 10500, NULL);
    CHECK(is_error());
    CHECK_INT(runs[LIMITED], 1);
    call(&s, LIMITED - 1, "{}", 10500, NULL);
    CHECK_INT(runs[LIMITED - 1], 1); /* its neighbour has no limit */
    call(&s, LIMITED, "{}", 11000, NULL);
    CHECK_INT(runs[LIMITED], 2);

    /* Index 290: tag 290 * 2 + 1 = 581, past a byte. A repeated key runs it once. */
    call(&s, KEYED, "{\"key\":\"a\"}", 0, &dedup);
    CHECK_STR(text0(), "290");
    call(&s, KEYED, "{\"key\":\"a\"}", 1, &dedup);
    CHECK_STR(text0(), "290");
    CHECK(!is_error());
    CHECK_INT(runs[KEYED], 1);
    call(&s, KEYED, "{\"key\":\"b\"}", 2, &dedup);
    CHECK_INT(runs[KEYED], 2);
}

int main(void)
{
    test_storage_errors();
    test_300_tools();
    return check_summary("test_tool_storage");
}
