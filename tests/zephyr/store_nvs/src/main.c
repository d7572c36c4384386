/*
 * The NVS backend of the durable idempotency records, under test on
 * native_sim_64: a server with one tool, "move", keyed by its
 * idempotency_key argument, whose duplicate table is durable on NVS in the
 * flash simulator's storage partition (emcp_store_nvs_open). One run makes
 * --count tools/call requests with the keys <prefix>-<first> ... and
 * prints, on stdout, one line per event the driver
 * (tests/zephyr/store_nvs_check.py) checks across restarts on the same
 * --flash file:
 *
 *   RESTORED <n>                      entries mcp_dedup_set_store kept
 *   ACTUATE key=<k>                   the tool's action ran (before its result)
 *   ANSWER key=<k> writes=<w> <json>  the response, and the flash writes it took
 *   CRASH <point>                     then SIGKILL (the process dies there)
 *   DONE writes=<w> hooks=<h>         all calls answered: flash writes since
 *                                     open, store writes (append, sync,
 *                                     restart) since boot
 *
 * --crash-at POINT kills the process at a step of the first call that
 * reaches it: before-intent (its intent record not yet appended),
 * after-intent (the callback entered: the intent durable, nothing done),
 * after-actuate, after-result (the result record synced), before-respond.
 * --kill-at-write N kills it before the Nth store write of the run
 * (append, sync or restart, counted from 1, compactions included).
 * --drop append|sync makes the store lie: that hook returns success and
 * writes nothing, which the driver must catch. --sectors N mounts NVS on
 * the partition's first N sectors only (emcp_store_nvs_open's size check).
 */
#include <stdarg.h>
#include <string.h>

#include <zephyr/device.h>
#include <zephyr/drivers/flash.h>
#include <zephyr/fs/nvs.h>
#include <zephyr/kernel.h>
#include <zephyr/storage/flash_map.h>
#include <zephyr/sys/printk.h>

#include "cmdline.h"
#include "nsi_host_trampolines.h"
#include "posix_board_if.h"
#include "soc.h"

#include "emcp.h"
#include "emcp_store_nvs.h"
#include "emcp_zephyr.h"

#define NVS_FIRST_ID 0x0100 /* the records' ids: 0x100 .. 0x100 + EMCP_STORE_NVS_IDS - 1 */
#define REQUEST_MAX 768
#define RESPONSE_MAX 2048

void emcp_test_host_sigkill(void); /* src/host_kill.c, runner side */

/* One line on the host's stdout in one write(2), whatever its length
 * (printk's native console splits lines at its own buffer's size). */
static void __printf_like(1, 2) out(const char *fmt, ...)
{
    static char line[RESPONSE_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintk(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        static const char cut[] = "FAIL output line too long\n";
        nsi_host_write(1, (void *)cut, sizeof cut - 1);
        return;
    }
    nsi_host_write(1, line, (unsigned long)n);
}

/* Command line (native_sim options, parsed before boot; an option not
 * given is left NULL or UINT32_MAX, replaced by its default in main()). */
static char *opt_prefix;
static uint32_t opt_first;
static uint32_t opt_count;
static char *opt_crash_at;
static uint32_t opt_kill_at_write;
static char *opt_drop;
static uint32_t opt_sectors;

static void add_options(void)
{
    static struct args_struct_t options[] = {
        {.option = "prefix", .name = "text", .type = 's', .dest = &opt_prefix,
         .descript = "keys are <prefix>-<n>"},
        {.option = "first", .name = "n", .type = 'u', .dest = &opt_first,
         .descript = "number of the first key"},
        {.option = "count", .name = "n", .type = 'u', .dest = &opt_count,
         .descript = "calls to make, keys first .. first + n - 1"},
        {.option = "crash-at", .name = "point", .type = 's', .dest = &opt_crash_at,
         .descript = "before-intent, after-intent, after-actuate, after-result, before-respond"},
        {.option = "kill-at-write", .name = "n", .type = 'u', .dest = &opt_kill_at_write,
         .descript = "SIGKILL before the nth store write (append, sync, restart)"},
        {.option = "drop", .name = "hook", .type = 's', .dest = &opt_drop,
         .descript = "append or sync: that hook writes nothing and reports success"},
        {.option = "sectors", .name = "n", .type = 'u', .dest = &opt_sectors,
         .descript = "NVS on the partition's first n sectors only (default: all)"},
        ARG_TABLE_ENDMARKER};
    native_add_command_line_opts(options);
}
NATIVE_TASK(add_options, PRE_BOOT_1, 10);

static struct nvs_fs fs;
static emcp_store_nvs_t nvs;
static mcp_store_t inner; /* the backend's hooks */
static mcp_store_t store; /* the table's: the backend's, wrapped below */
static mcp_server_t server;
static mcp_dedup_t dedup;
static uint32_t writes_seen;
static uint8_t last_kind;

static void crash(const char *point)
{
    out("CRASH %s\n", point);
    emcp_test_host_sigkill();
}

static void crash_point(const char *point)
{
    if (strcmp(opt_crash_at, point) == 0) {
        crash(point);
    }
}

/* Counts a store write and dies before it when asked to. */
static void before_write(void)
{
    writes_seen++;
    if (opt_kill_at_write != 0 && writes_seen == opt_kill_at_write) {
        crash("kill-at-write");
    }
}

static int wrap_append(void *user, const uint8_t *record, size_t len)
{
    if (len > 1 && record[1] == MCP_STORE_INTENT) {
        crash_point("before-intent");
    }
    before_write();
    last_kind = len > 1 ? record[1] : 0;
    if (strcmp(opt_drop, "append") == 0) {
        return 0;
    }
    return inner.append(user, record, len);
}

static int wrap_sync(void *user)
{
    before_write();
    int rc = strcmp(opt_drop, "sync") == 0 ? 0 : inner.sync(user);
    if (rc == 0 && last_kind == MCP_STORE_RESULT) {
        crash_point("after-result");
    }
    return rc;
}

static int wrap_restart(void *user)
{
    before_write();
    return inner.restart(user);
}

static int wrap_read(void *user, size_t offset, uint8_t *buf, size_t cap)
{
    return inner.read(user, offset, buf, cap);
}

/* The tool: its "action" is the ACTUATE line. */
static int move(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    ARG_UNUSED(user);
    char key[MCP_DEDUP_KEY_MAX + 1];
    if (mcp_arg_string(call, "idempotency_key", key, sizeof key, NULL) != 0) {
        static const char refused[] = "idempotency_key is required";
        return mcp_result_error(r, refused, sizeof refused - 1);
    }
    crash_point("after-intent");
    out("ACTUATE key=%s\n", key);
    crash_point("after-actuate");
    char text[MCP_DEDUP_KEY_MAX + 16];
    int n = snprintk(text, sizeof text, "moved %s", key);
    return mcp_result_text(r, text, (size_t)n);
}

static int mount_nvs(void)
{
    fs.flash_device = FIXED_PARTITION_DEVICE(storage_partition);
    if (!device_is_ready(fs.flash_device)) {
        return -ENODEV;
    }
    fs.offset = FIXED_PARTITION_OFFSET(storage_partition);
    struct flash_pages_info page;
    int rc = flash_get_page_info_by_offs(fs.flash_device, fs.offset, &page);
    if (rc != 0) {
        return rc;
    }
    fs.sector_size = (uint16_t)page.size;
    fs.sector_count = (uint16_t)MIN(FIXED_PARTITION_SIZE(storage_partition) / page.size, opt_sectors);
    return nvs_mount(&fs);
}

static int setup(void)
{
    static const mcp_server_config_t config = {.name = "emcp-store-nvs-test", .version = "1"};
    static const mcp_tool_t tool = {
        .name = "move",
        .description = "Moves the test actuator once per idempotency key.",
        .input_schema = "{\"type\":\"object\",\"required\":[\"idempotency_key\"],"
                        "\"properties\":{\"idempotency_key\":{\"type\":\"string\",\"minLength\":1,"
                        "\"maxLength\":64}}}",
        .annotations = MCP_TOOL_IDEMPOTENT,
        .idempotency_key = "idempotency_key",
        /* move's {"type":"text","text":"moved KEY"}, every byte of the key
         * escaped as \u00XX at worst. */
        .max_result_len = 31 + 6 * MCP_DEDUP_KEY_MAX,
    };
    int rc = emcp_zephyr_check_limits();
    if (rc == 0) {
        rc = mount_nvs();
        if (rc != 0) {
            out("FAIL nvs_mount: %d\n", rc);
            return rc;
        }
    }
    if (rc == 0) {
        rc = emcp_store_nvs_open(&nvs, &fs, NVS_FIRST_ID, &inner);
        if (rc != 0) {
            out("FAIL emcp_store_nvs_open: %d\n", rc);
            return rc;
        }
    }
    store = inner;
    store.append = wrap_append;
    store.sync = wrap_sync;
    store.restart = wrap_restart;
    store.read = wrap_read;
    if (rc == 0) {
        rc = mcp_server_init(&server, &config);
    }
    if (rc == 0) {
        rc = mcp_server_add_tool(&server, &tool, move, NULL);
    }
    if (rc == 0) {
        rc = mcp_dedup_init(&dedup);
    }
    if (rc == 0) {
        rc = mcp_dedup_set_store(&dedup, &store, emcp_zephyr_now_ms());
        if (rc < 0) {
            out("FAIL mcp_dedup_set_store: %d\n", rc);
            return rc;
        }
        out("RESTORED %d\n", rc);
        rc = 0;
    }
    return rc;
}

static int call_once(uint32_t n)
{
    static uint8_t request[REQUEST_MAX];
    static uint8_t response[RESPONSE_MAX + 1];
    char key[MCP_DEDUP_KEY_MAX + 1];
    int klen = snprintk(key, sizeof key, "%s-%u", opt_prefix, (unsigned)n);
    if (klen <= 0 || (size_t)klen >= sizeof key) {
        return -MCP_EINVAL;
    }
    int len = snprintk((char *)request, sizeof request,
                       "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/call\",\"params\":{"
                       "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                       "\"io.modelcontextprotocol/clientCapabilities\":{},"
                       "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"store-nvs-test\","
                       "\"version\":\"1\"}},"
                       "\"name\":\"move\",\"arguments\":{\"idempotency_key\":\"%s\"}}}",
                       (unsigned)n + 1, key);
    if (len <= 0 || (size_t)len >= sizeof request) {
        return -MCP_ENOSPC;
    }
    mcp_request_ctx_t ctx = {
        .principal = {.ptr = "local", .len = 5},
        .now_ms = emcp_zephyr_now_ms(),
        .dedup = &dedup,
    };
    uint32_t before = nvs.writes;
    int rc = mcp_server_handle(&server, &ctx, request, (size_t)len, response, RESPONSE_MAX, NULL);
    if (rc < 0) {
        out("FAIL mcp_server_handle: %d\n", rc);
        return rc;
    }
    crash_point("before-respond");
    response[rc] = '\0';
    out("ANSWER key=%s writes=%u %s\n", key, (unsigned)(nvs.writes - before), response);
    return 0;
}

static void option_defaults(void)
{
    opt_prefix = opt_prefix != NULL ? opt_prefix : "k";
    opt_first = opt_first != UINT32_MAX ? opt_first : 0;
    opt_count = opt_count != UINT32_MAX ? opt_count : 1;
    opt_crash_at = opt_crash_at != NULL ? opt_crash_at : "";
    opt_kill_at_write = opt_kill_at_write != UINT32_MAX ? opt_kill_at_write : 0;
    opt_drop = opt_drop != NULL ? opt_drop : "";
    /* UINT32_MAX when not given: all the partition's sectors */
}

int main(void)
{
    option_defaults();
    int rc = setup();
    for (uint32_t i = 0; rc == 0 && i < opt_count; i++) {
        /* Each call a millisecond after the last on the request clock
         * (native_sim's simulated time does not move by itself): the table
         * evicts its oldest entry, and entries of the same millisecond tie. */
        k_sleep(K_MSEC(1));
        rc = call_once(opt_first + i);
    }
    if (rc == 0) {
        out("DONE writes=%u hooks=%u\n", (unsigned)nvs.writes, (unsigned)writes_seen);
    }
    posix_exit(rc == 0 ? 0 : 1);
    return 0;
}
