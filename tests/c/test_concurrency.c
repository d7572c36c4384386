/*
 * test_concurrency: two threads call one server at the same instant, as the
 * Zephyr console and HTTP threads do. A tool with min_interval_ms must run
 * once per interval, and a repeated idempotency key (one shared mcp_dedup_t)
 * must run its tool once, however the two calls interleave. Meant to run
 * under ThreadSanitizer too (EMCP_TSAN=ON, scripts/test.d/15-tsan.sh).
 *
 * Each trial: both threads wait on a barrier, then send the same tools/call
 * with the same now_ms; the callback sleeps 1 ms so the calls overlap. The
 * next trial's now_ms is one interval later, so exactly one run is due.
 *
 * Then the same two cases again with the two tools at indexes 202 and 203
 * of a table of slots the program gives (mcp_server_set_tool_storage): a
 * tool far past MCP_MAX_TOOLS is as thread-safe as the first ones.
 *
 * Usage: test_concurrency [trials]   (default 1000)
 */
#include <pthread.h>
#include <time.h>

#include "check.h"

#define INTERVAL_MS 60000u

static mcp_server_t server;
static mcp_dedup_t dedup;
static pthread_barrier_t start;
static pthread_barrier_t done;
static int runs; /* callback runs, atomically counted */
static int trials = 1000;
/* The tools the two cases call: rate-limited, keyed. */
static const char *case_tool[2] = {"limited", "once"};
#define FAR_TOOLS 256
static mcp_tool_slot_t far_slots[FAR_TOOLS];
static char far_names[FAR_TOOLS][8];

static void sleep_1ms(void)
{
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

static int slow_tool(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    (void)call;
    (void)user;
    __atomic_fetch_add(&runs, 1, __ATOMIC_SEQ_CST);
    sleep_1ms();
    return mcp_result_text(result, "ran", 3);
}

/* What the two threads of one trial answered. */
enum answer { RAN, LIMITED, IN_PROGRESS, BUSY, OTHER };

struct worker {
    int which;              /* 0: rate limit, 1: idempotency key */
    int answers[OTHER + 1]; /* counts over all trials */
    char last_other[512];
};

static enum answer classify(const char *r, int rc)
{
    if (rc <= 0) {
        return OTHER;
    }
    if (strstr(r, "\"text\":\"ran\"") && strstr(r, "\"isError\":false")) {
        return RAN; /* or the replay of a run: told apart by the counter */
    }
    if (strstr(r, "rate limited") && strstr(r, "\"isError\":true")) {
        return LIMITED;
    }
    if (strstr(r, "still in progress") && strstr(r, "\"isError\":true")) {
        return IN_PROGRESS;
    }
    if (strstr(r, "duplicate check busy") && strstr(r, "\"isError\":true")) {
        return BUSY; /* the table's lock stayed taken: also no run, retry */
    }
    return OTHER;
}

static void *worker(void *arg)
{
    struct worker *w = arg;
    char req[256];
    char out[2048];
    for (int t = 0; t < trials; t++) {
        if (w->which == 0) {
            snprintf(req, sizeof req,
                     "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\"}}", t,
                     case_tool[0]);
        } else {
            snprintf(req, sizeof req,
                     "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
                     "\"arguments\":{\"key\":\"k%d\"}}}",
                     t, case_tool[1], t);
        }
        mcp_request_ctx_t ctx = {
            /* Both threads: the same clock reading; one interval per trial. */
            .now_ms = (uint64_t)(t + 1) * INTERVAL_MS,
            .dedup = w->which == 1 ? &dedup : NULL,
        };
        mcp_response_info_t info;
        pthread_barrier_wait(&start);
        int rc = mcp_server_handle(&server, &ctx, (const uint8_t *)req, strlen(req), (uint8_t *)out, sizeof out - 1,
                                   &info);
        out[rc > 0 ? rc : 0] = '\0';
        enum answer a = classify(out, rc);
        w->answers[a]++;
        if (a == OTHER) {
            snprintf(w->last_other, sizeof w->last_other, "rc %d: %.480s", rc, out);
        }
        pthread_barrier_wait(&done);
    }
    return NULL;
}

/* Runs `trials` trials of case `which` on two threads; returns the trials
 * in which the callback ran more than once. */
static int run_case(int which, const char *name)
{
    struct worker w[2] = {{.which = which}, {.which = which}};
    pthread_t th[2];
    int doubles = 0, none = 0;
    CHECK_INT(pthread_barrier_init(&start, NULL, 3), 0);
    CHECK_INT(pthread_barrier_init(&done, NULL, 3), 0);
    for (int i = 0; i < 2; i++) {
        CHECK_INT(pthread_create(&th[i], NULL, worker, &w[i]), 0);
    }
    for (int t = 0; t < trials; t++) {
        int before = __atomic_load_n(&runs, __ATOMIC_SEQ_CST);
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&done);
        int n = __atomic_load_n(&runs, __ATOMIC_SEQ_CST) - before;
        doubles += n > 1;
        none += n == 0;
    }
    for (int i = 0; i < 2; i++) {
        CHECK_INT(pthread_join(th[i], NULL), 0);
    }
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&done);
    int a[OTHER + 1];
    for (int k = 0; k <= OTHER; k++) {
        a[k] = w[0].answers[k] + w[1].answers[k];
    }
    printf("%s: %d trials, %d ran twice, %d ran never; answers: %d ran/replayed, %d rate limited, "
           "%d in progress, %d busy, %d other\n",
           name, trials, doubles, none, a[RAN], a[LIMITED], a[IN_PROGRESS], a[BUSY], a[OTHER]);
    for (int i = 0; i < 2; i++) {
        if (w[i].answers[OTHER]) {
            fprintf(stderr, "    unexpected answer: %s\n", w[i].last_other);
        }
    }
    CHECK_INT(a[OTHER], 0);
    CHECK_INT(a[RAN] + a[LIMITED] + a[IN_PROGRESS] + a[BUSY], 2 * trials);
    if (which == 0) {
        /* Exactly one run per interval, and the other call is told to wait. */
        CHECK_INT(none, 0);
        CHECK_INT(a[LIMITED], trials - doubles);
        CHECK_INT(a[IN_PROGRESS] + a[BUSY], 0);
    } else {
        /* One run per key; the other call got the original result or was
         * told the first is still running. */
        CHECK_INT(none, 0);
        CHECK_INT(a[LIMITED], 0);
    }
    return doubles;
}

/* Counts critical sections: on a target with compare-and-swap (every host)
 * the server stores the hook but never calls it. */
static int critical_calls;

static uint32_t critical_enter(void *user)
{
    (void)user;
    __atomic_fetch_add(&critical_calls, 1, __ATOMIC_SEQ_CST);
    return 0;
}

static void critical_leave(void *user, uint32_t state)
{
    (void)user;
    (void)state;
}

static void setup(void)
{
    init_server(&server, 0, MCP_CACHE_PRIVATE);
    mcp_tool_t limited = {
        .name = "limited",
        .input_schema = "{\"type\":\"object\"}",
        .min_interval_ms = INTERVAL_MS,
        .max_result_len = 28, /* slow_tool's {"type":"text","text":"ran"} */
    };
    mcp_tool_t once = {
        .name = "once",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}}}",
        .idempotency_key = "key",
        .max_result_len = 28,
    };
    if (mcp_server_add_tool(&server, &limited, slow_tool, NULL) ||
        mcp_server_add_tool(&server, &once, slow_tool, NULL) || mcp_dedup_init(&dedup)) {
        fprintf(stderr, "setup failed\n");
        exit(2);
    }
    CHECK_INT(mcp_server_set_critical(&server, critical_enter, NULL, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_critical(&server, NULL, critical_leave, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_critical(NULL, critical_enter, critical_leave, NULL), -MCP_EINVAL);
    CHECK_INT(mcp_server_set_critical(&server, critical_enter, critical_leave, NULL), 0);
}

/* The server's tools move into slots of the program's; 200 more tools
 * follow, then the two cases' tools again, at indexes 202 and 203. */
static void setup_far(void)
{
    CHECK_INT(mcp_server_set_tool_storage(&server, far_slots, FAR_TOOLS), 0);
    for (int i = 0; i < 200; i++) {
        snprintf(far_names[i], sizeof far_names[i], "f%03d", i);
        mcp_tool_t t = {.name = far_names[i], .input_schema = "{\"type\":\"object\"}", .max_result_len = 28};
        CHECK_INT(mcp_server_add_tool(&server, &t, slow_tool, NULL), 0);
    }
    mcp_tool_t limited = {
        .name = "limited_far",
        .input_schema = "{\"type\":\"object\"}",
        .min_interval_ms = INTERVAL_MS,
        .max_result_len = 28,
    };
    mcp_tool_t once = {
        .name = "once_far",
        .input_schema = "{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}}}",
        .idempotency_key = "key",
        .max_result_len = 28,
    };
    CHECK_INT(mcp_server_add_tool(&server, &limited, slow_tool, NULL), 0);
    CHECK_INT(mcp_server_add_tool(&server, &once, slow_tool, NULL), 0);
    mcp_tool_usage_t u;
    CHECK_INT(mcp_server_tool_usage(&server, 203, &u), 0);
    CHECK_STR(u.name, "once_far");
    case_tool[0] = "limited_far";
    case_tool[1] = "once_far";
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        trials = atoi(argv[1]);
    }
    setup();
    CHECK_INT(run_case(0, "min_interval_ms"), 0);
    CHECK_INT(run_case(1, "idempotency_key"), 0);
    setup_far();
    CHECK_INT(run_case(0, "min_interval_ms, tool 202 in the program's slots"), 0);
    CHECK_INT(run_case(1, "idempotency_key, tool 203 in the program's slots"), 0);
    CHECK_INT(__atomic_load_n(&critical_calls, __ATOMIC_SEQ_CST), 0);
    return check_summary("test_concurrency");
}
