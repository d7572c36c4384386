/*
 * The greenhouse's durable idempotency records and actuator log: the
 * --state-dir, --actuator-log, --recover and (tests only) --crash-at and
 * --vent-interval-ms options of every greenhouse binary.
 *
 * --state-dir DIR keeps the duplicate table in DIR/idempotency.log through
 * emcp::store_file, so a set_vent retried after a restart is answered from
 * its record and never moves the vent twice. --actuator-log FILE appends one
 * line per physical vent movement, "vent key=<k> from=<b> to=<a>", fsynced
 * before set_vent returns; at start-up the vent is where its last line left
 * it (a real vent does not move when the gateway restarts). --recover
 * settles a call found interrupted from that log: a movement line for its
 * key means it happened, none means it did not.
 */

#define _POSIX_C_SOURCE 200809L

#include "greenhouse.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emcp_store_file.h"

static const char *state_dir;
static const char *actuator_path;
static const char *crash_at;
static bool recover;
static bool retry_keys;
static long vent_interval_ms = -1;

static emcp_store_file_t file;
static mcp_store_t store;
static uint8_t last_kind; /* kind of the last record appended */

static int actuated(const char *key, int before, int after);
static void answered(const char *tool, size_t tool_len, uint32_t outcome);

static const char *const crash_points[] = {
    "before-intent", "after-intent", "after-actuate", "after-result", "before-respond",
};

/* Refuses an option's value, printed as "PROG: OPTION: WHY"; returns -1. */
static int refuse_option(const char *prog, const char *opt, const char *why)
{
    fprintf(stderr, "%s: %s: %s\n", prog, opt, why);
    return -1;
}

static int durable_option(const char *prog, int argc, char **argv, int *i)
{
    const char *opt = argv[*i];
    bool takes_value = strcmp(opt, "--state-dir") == 0 || strcmp(opt, "--actuator-log") == 0 ||
                       strcmp(opt, "--crash-at") == 0 || strcmp(opt, "--vent-interval-ms") == 0;
    if (strcmp(opt, "--recover") == 0) {
        recover = true;
        return 1;
    }
    if (!takes_value) {
        return 0;
    }
    if (*i + 1 >= argc) {
        return refuse_option(prog, opt, "needs a value");
    }
    const char *v = argv[++*i];
    if (strcmp(opt, "--state-dir") == 0) {
        state_dir = v;
    } else if (strcmp(opt, "--actuator-log") == 0) {
        actuator_path = v;
    } else if (strcmp(opt, "--vent-interval-ms") == 0) {
        char *end = NULL;
        vent_interval_ms = strtol(v, &end, 10);
        if (end == v || *end != '\0' || vent_interval_ms < 0 || vent_interval_ms > 3600000) {
            return refuse_option(prog, opt, "wants milliseconds 0-3600000");
        }
    } else {
        size_t n = sizeof crash_points / sizeof crash_points[0];
        size_t k = 0;
        while (k < n && strcmp(crash_points[k], v) != 0) {
            k++;
        }
        if (k == n) {
            return refuse_option(prog, opt,
                                 "wants before-intent, after-intent, after-actuate, after-result or before-respond");
        }
        crash_at = v;
    }
    return 1;
}

void greenhouse_durable_retry_keys(void)
{
    retry_keys = true;
}

int greenhouse_durable_options(const char *prog, int *argc, char **argv)
{
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        int d = durable_option(prog, *argc, argv, &i);
        if (d < 0) {
            return -1;
        }
        if (d == 0) {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    argv[kept] = NULL;
    return 0;
}

static void greenhouse_crash_point(const char *point)
{
    if (crash_at != NULL && strcmp(crash_at, point) == 0) {
        fprintf(stderr, "greenhouse: --crash-at %s: SIGKILL\n", point);
        fflush(stderr);
        kill(getpid(), SIGKILL);
    }
}

/* The file backend's hooks, with the crash points around them. */
static int crash_append(void *user, const uint8_t *record, size_t len)
{
    mcp_store_t *inner = user;
    last_kind = len > 1 ? record[1] : 0;
    if (last_kind == MCP_STORE_INTENT) {
        greenhouse_crash_point("before-intent");
    }
    return inner->append(inner->user, record, len);
}

static int crash_sync(void *user)
{
    mcp_store_t *inner = user;
    int rc = inner->sync(inner->user);
    if (rc == 0 && last_kind == MCP_STORE_INTENT) {
        greenhouse_crash_point("after-intent");
    } else if (rc == 0 && last_kind == MCP_STORE_RESULT) {
        greenhouse_crash_point("after-result");
    }
    return rc;
}

static int crash_read(void *user, size_t offset, uint8_t *buf, size_t cap)
{
    mcp_store_t *inner = user;
    return inner->read(inner->user, offset, buf, cap);
}

static int crash_restart(void *user)
{
    mcp_store_t *inner = user;
    return inner->restart(inner->user);
}

static mcp_store_t inner;

/* Copies @p key into out[0..cap) with every byte outside [A-Za-z0-9_.:-]
 * written as \xHH, so a key can neither split a log line nor pass for
 * another. */
static void escape_key(const char *key, char *out, size_t cap)
{
    size_t at = 0;
    for (const unsigned char *p = (const unsigned char *)key; *p != '\0' && at + 5 < cap; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("_.:-", *p) != NULL) {
            out[at++] = (char)*p;
        } else {
            at += (size_t)snprintf(out + at, cap - at, "\\x%02x", *p);
        }
    }
    out[at] = '\0';
}

/* Room for an escaped key. */
#define ESCAPED_KEY_MAX (4 * MCP_DEDUP_KEY_MAX + 1)

/* Finds the last movement line for @p key (escaped; NULL: any) in the actuator log;
 * returns its "to" percent, or -1 when there is none. */
static int logged_movement(const char *key)
{
    FILE *f = actuator_path != NULL ? fopen(actuator_path, "r") : NULL;
    if (f == NULL) {
        return -1;
    }
    char line[ESCAPED_KEY_MAX + 64];
    int to = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        char k[ESCAPED_KEY_MAX + 1];
        int from = 0, t = 0;
        if (sscanf(line, "vent key=%257s from=%d to=%d", k, &from, &t) == 3 &&
            (key == NULL || strcmp(k, key) == 0)) {
            to = t;
        }
    }
    fclose(f);
    return to;
}

/* The store's recovery callback (--recover): the actuator log says whether
 * the interrupted call moved the vent. It never moves it. */
static int recover_from_log(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    char key[MCP_DEDUP_KEY_MAX + 1];
    if (actuator_path == NULL ||
        mcp_arg_string(call, "idempotency_key", key, sizeof key, NULL) != 0) {
        return -MCP_ENOENT; /* cannot tell: answered "earlier outcome unknown" */
    }
    char escaped[ESCAPED_KEY_MAX];
    escape_key(key, escaped, sizeof escaped);
    int moved_to = logged_movement(escaped);
    char text[192];
    bool ok = moved_to >= 0;
    int n = ok ? snprintf(text, sizeof text,
                          "vent set to %d%% (an interrupted call, confirmed from the actuator "
                          "after a restart)",
                          moved_to)
               : snprintf(text, sizeof text,
                          "not moved: the call was interrupted before the vent moved (vent at "
                          "%d%%); retry with a new idempotency_key if still wanted",
                          greenhouse_vent_percent());
    int rc = ok ? mcp_result_text(r, text, (size_t)n) : mcp_result_error(r, text, (size_t)n);
    if (rc == 0) {
        rc = mcp_result_structured_begin(r);
    }
    if (rc == 0) {
        rc = mcp_json_key(r, "ok");
    }
    if (rc == 0) {
        rc = mcp_json_bool(r, ok);
    }
    if (rc == 0 && ok) {
        rc = mcp_json_key(r, "percent");
        if (rc == 0) {
            rc = mcp_json_int(r, moved_to);
        }
    }
    if (rc == 0) {
        rc = mcp_result_structured_end(r);
    }
    return rc;
}

int greenhouse_durable_open(const mcp_store_t **out, const char **why)
{
    *out = NULL;
    if (recover && (state_dir == NULL || actuator_path == NULL)) {
        *why = "--recover needs --state-dir and --actuator-log";
        return -MCP_EINVAL;
    }
    greenhouse_durable_t d = {
        .key_required = state_dir != NULL,
        .retry_keys = retry_keys,
        .vent_interval_ms = vent_interval_ms,
        .vent_percent = actuator_path != NULL ? logged_movement(NULL) : -1,
        .actuated = actuator_path != NULL ? actuated : NULL,
        .answered = crash_at != NULL ? answered : NULL,
    };
    greenhouse_set_durable(&d);
    if (state_dir == NULL) {
        if (crash_at != NULL && strcmp(crash_at, "after-actuate") != 0 &&
            strcmp(crash_at, "before-respond") != 0) {
            *why = "--crash-at at a record needs --state-dir";
            return -MCP_EINVAL;
        }
        return 0;
    }
    if (mkdir(state_dir, 0700) != 0 && errno != EEXIST) {
        *why = "cannot create --state-dir";
        return -MCP_EIO;
    }
    char path[EMCP_STORE_FILE_PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/idempotency.log", state_dir);
    if (n < 0 || (size_t)n >= sizeof path) {
        *why = "--state-dir path too long";
        return -MCP_EINVAL;
    }
    int rc = emcp_store_file_open(&file, path, &inner);
    if (rc != 0) {
        *why = "cannot open DIR/idempotency.log";
        return rc;
    }
    store = (mcp_store_t){
        .append = crash_append,
        .sync = crash_sync,
        .read = crash_read,
        .restart = crash_restart,
        .user = &inner,
        .recover = recover ? recover_from_log : NULL,
    };
    *out = &store;
    return 0;
}

/* The audit line of a call is written: its answer goes out next. */
static void answered(const char *tool, size_t tool_len, uint32_t outcome)
{
    if (outcome == MCP_AUDIT_OK && tool_len == 8 && memcmp(tool, "set_vent", 8) == 0) {
        greenhouse_crash_point("before-respond");
    }
}

/* One line per vent movement, durable before set_vent answers. */
static int actuated(const char *key, int before, int after)
{
    char escaped[ESCAPED_KEY_MAX];
    escape_key(key, escaped, sizeof escaped);
    char line[ESCAPED_KEY_MAX + 64];
    int n = snprintf(line, sizeof line, "vent key=%s from=%d to=%d\n", escaped, before, after);
    if (n < 0 || (size_t)n >= sizeof line) {
        return -MCP_ENOBUFS;
    }
    int fd = open(actuator_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd < 0) {
        return -MCP_EIO;
    }
    int rc = write(fd, line, (size_t)n) == n && fsync(fd) == 0 ? 0 : -MCP_EIO;
    close(fd);
    if (rc == 0) {
        greenhouse_crash_point("after-actuate");
    }
    return rc;
}

int greenhouse_setup(const char *prog, mcp_server_t *server, bool wind_lock, const mcp_store_t **store)
{
    const char *why = NULL;
    int rc = greenhouse_durable_open(store, &why);
    if (rc != 0) {
        fprintf(stderr, "%s: %s (%d)\n", prog, why, rc);
        return rc;
    }
    rc = greenhouse_register(server, wind_lock);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot set up the server (%d)\n", prog, rc);
    }
    return rc;
}
