/*
 * emcp-gateway: one MCP server (stdio, Streamable HTTP with --http, or both
 * with --http --stdio) for every emcp device behind an MQTT 5 broker (issue
 * 40; docs/gateway.md).
 *
 * Threads:
 * - the serving thread (main). On stdio: emcp_stdio_serve() of the stdio
 *   binding on the host's stdin/stdout. Its input is a cookie stream
 *   (in_read) that hands the binding one line at a time, and between lines
 *   applies what the MQTT side learnt: tool registration (never while
 *   mcp_server_handle runs, the core's rule, since both happen on this
 *   thread) and list-change notifications (written by the binding's own
 *   emit, on this thread; for a 2025-11-25 host a line of the gateway's).
 *   On HTTP: the HTTP binding's poll loop, which applies the same between
 *   two polls; a poll's wait ends when the wake pipe says the MQTT side has
 *   news. Both: the stdio loop, whose cookie stream polls the HTTP binding
 *   while it waits for a line, a poll ending when stdin is readable too.
 * - the MQTT thread (mqtt_main, libmosquitto's loop): presence messages and
 *   the devices' replies.
 * - the discovery thread: tools/list over MQTT for each device that came
 *   online, following nextCursor.
 * A tool call runs its callback on the serving thread, which publishes the
 * request and waits (bounded) for the reply that the loop thread files.
 */
#define _GNU_SOURCE /* fopencookie */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mosquitto.h>
#include <mqtt_protocol.h>

#include "emcp.h"
#include "emcp_clock.h"
#include "emcp_http.h"
#include "emcp_mqtt_mosq.h"
#include "emcp_stdio.h"
#include "gw_json.h"
#include "gw_relay.h"

#define GW_NAME "emcp-gateway"
#define GW_VERSION "0.1.0"
/* The envelope of every request the gateway sends to a device. */
#define GW_PROTOCOL "2026-07-28"
#define GW_MAX_DEVICES 256
#define GW_MAX_INSTANCES 8
/* Tools the gateway tracks and, by default, serves (--max-tools: fewer). */
#define GW_MAX_TOOLS 1024
/* Program storage per tool slot: a tool's tools/list entry and argument
 * programs, about its schemas' and description's length. */
#define GW_PROGRAM_PER_TOOL 4096
#define GW_MAX_WAITS 64
#define GW_ID_MAX 64
#define GW_TOPIC_MAX 256
#define GW_ARGS_MAX 16384
/* max_result_len declared for a device tool that is not read-only: what a
 * device's answer can hold (its EMCP_MQTT_RESPONSE_MAX is 4096) with room,
 * inside the stdio binding's 16384-byte response buffer. */
#define GW_RESULT_MAX 8192
/* Longest input line the cookie stream buffers before handing it on. */
#define GW_LINE_BUF_MAX (1u << 20)
/* Longest wait of one HTTP binding poll: it ends earlier on the wake pipe
 * (and stdin with --stdio); this bounds a stop signal's latency. */
#define GW_HTTP_POLL_MS 1000
/* tools/list pages followed per device (a loop guard). */
#define GW_MAX_PAGES 64

struct gw_options {
    /* Broker, client id, keep-alive, credentials and TLS: the MQTT
     * binding's options, parsed and applied by its libmosquitto shim. */
    emcp_mqtt_mosq_options_t mqtt;
    const char *prefix;
    /* --separator: between the device and its tool in a tool's name. */
    const char *separator;
    const char *reply_topic;
    unsigned timeout_ms;
    unsigned discover_ms;
    /* --max-tools: tools the core serves (the slots the gateway gives it,
     * mcp_server_set_tool_storage). */
    unsigned max_tools;
    /* --http: serve Streamable HTTP through the HTTP binding on this IPv4
     * address and port; instead of stdio, or besides it with --stdio. */
    const char *http_addr;
    uint16_t http_port;
    bool http;
    bool stdio; /* --stdio: stdio too (the default without --http) */
};

/* Bearer tokens (--token-env PRINCIPAL=VAR) and extra Origins
 * (--allow-origin) handed to the HTTP binding, which applies them. */
#define GW_MAX_TOKENS 16
#define GW_MAX_ORIGINS 8
#define GW_PRINCIPAL_MAX 64
static emcp_http_bearer_t bearers[GW_MAX_TOKENS];
static char bearer_names[GW_MAX_TOKENS][GW_PRINCIPAL_MAX + 1];
static emcp_http_bearer_list_t bearer_list = {bearers, 0};
static const char *origins[GW_MAX_ORIGINS];
static size_t norigins;
static emcp_http_t http;
static bool http_open; /* emcp_http_open succeeded: poll it */
static volatile sig_atomic_t stop_requested;

/* --allow PRINCIPAL=ITEM[,ITEM...]: which principals see which devices'
 * tools. The gateway turns them into each tool's mcp_tool_t.principals, so
 * the core applies them as it does a device's own principal lists: a tool
 * is listed and callable only for the principals named, and a call by
 * another is answered as an unknown tool. No --allow: every principal sees
 * every device. */
#define GW_MAX_ALLOWS 64
struct gw_allow {
    char principal[GW_PRINCIPAL_MAX + 1];
    const char *item; /* DEVICE or DEVICE.TOOL; '*' matches any run */
    size_t item_len;
};
static struct gw_allow allows[GW_MAX_ALLOWS];
static int nallows;
/* --principal (or EMCP_GATEWAY_PRINCIPAL): the stdio host's principal. */
static const char *stdio_principal;

/* A principal as the core's principal lists hold it: no ',' or spaces. */
static bool principal_ok(const char *p, size_t len)
{
    if (len == 0 || len > GW_PRINCIPAL_MAX) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (p[i] == ',' || p[i] == ' ' || p[i] == '\t' || (unsigned char)p[i] < 0x20) {
            return false;
        }
    }
    return true;
}

/* --allow PRINCIPAL=ITEM[,ITEM...]: one rule per item. */
static bool add_allow(const char *prog, const char *v)
{
    const char *eq = strchr(v, '=');
    size_t plen = eq != NULL ? (size_t)(eq - v) : 0;
    if (eq == NULL || !principal_ok(v, plen) || eq[1] == '\0') {
        fprintf(stderr, "%s: --allow wants PRINCIPAL=ITEM[,ITEM...] (PRINCIPAL 1-%d bytes, no ',' or spaces)\n",
                prog, GW_PRINCIPAL_MAX);
        return false;
    }
    for (const char *item = eq + 1; *item != '\0';) {
        const char *end = strchr(item, ',');
        size_t ilen = end != NULL ? (size_t)(end - item) : strlen(item);
        if (ilen == 0) {
            fprintf(stderr, "%s: --allow %s: an empty item\n", prog, v);
            return false;
        }
        if (nallows == GW_MAX_ALLOWS) {
            fprintf(stderr, "%s: at most %d --allow items\n", prog, GW_MAX_ALLOWS);
            return false;
        }
        struct gw_allow *r = &allows[nallows++];
        memcpy(r->principal, v, plen);
        r->principal[plen] = '\0';
        r->item = item;
        r->item_len = ilen;
        item += ilen + (end != NULL ? 1 : 0);
    }
    return true;
}

/* Whether @p s (NUL-terminated) matches @p pat (@p n bytes), where '*'
 * stands for any run of characters. */
static bool glob_match(const char *pat, size_t n, const char *s)
{
    while (n > 0 && *pat != '*') {
        if (*s == '\0' || *s != *pat) {
            return false;
        }
        pat++, n--, s++;
    }
    if (n == 0) {
        return *s == '\0';
    }
    for (;; s++) { /* *pat == '*' */
        if (glob_match(pat + 1, n - 1, s)) {
            return true;
        }
        if (*s == '\0') {
            return false;
        }
    }
}

/* Whether rule @p r names the tool @p full (DEVICE.TOOL) of device @p dev:
 * its item matches the device id (all its tools) or the full name. */
static bool allow_matches(const struct gw_allow *r, const char *dev, const char *full)
{
    return glob_match(r->item, r->item_len, dev) || glob_match(r->item, r->item_len, full);
}

/* The tool's principal list from the --allow rules (malloc'd), or NULL for
 * every principal (no rules); *nobody when rules exist and none names it. */
static char *principals_for(const char *dev, const char *full, bool *nobody)
{
    *nobody = false;
    if (nallows == 0) {
        return NULL;
    }
    size_t cap = 1;
    for (int i = 0; i < nallows; i++) {
        cap += strlen(allows[i].principal) + 1;
    }
    char *list = malloc(cap);
    if (list == NULL) {
        *nobody = true;
        return NULL;
    }
    size_t len = 0;
    list[0] = '\0';
    for (int i = 0; i < nallows; i++) {
        if (!allow_matches(&allows[i], dev, full)) {
            continue;
        }
        bool dup = false;
        for (int k = 0; k < i && !dup; k++) {
            dup = strcmp(allows[k].principal, allows[i].principal) == 0 && allow_matches(&allows[k], dev, full);
        }
        if (!dup) {
            len += (size_t)snprintf(list + len, cap - len, "%s%s", len ? "," : "", allows[i].principal);
        }
    }
    if (len == 0) {
        free(list);
        *nobody = true;
        return NULL;
    }
    return list;
}


struct gw_instance {
    char topic[GW_TOPIC_MAX + 1];
    bool online;
};

struct gw_device {
    char id[GW_ID_MAX + 1];
    char request_topic[GW_TOPIC_MAX + 1];
    struct gw_instance inst[GW_MAX_INSTANCES];
    int ninst;
    bool online;
    bool listed;           /* its tools were read in this online period */
    bool need_discovery;   /* queued for the discovery thread */
    bool discovering;      /* the discovery thread is reading its tools */
    unsigned failed_lists; /* failed tools/list attempts in a row */
    uint64_t changed_ms;   /* when it last went online or offline */
};

struct gw_tool {
    int dev;
    char *name;        /* <device>.<tool> */
    char *device_tool; /* the name on the device */
    char *title;
    char *description;
    char *input_schema;
    char *output_schema;
    uint32_t annotations;
    char *principals; /* mcp_tool_t.principals from --allow, or NULL: all */
    bool nobody;      /* --allow rules exist and none names this tool */
    bool offered;    /* in the device's latest tools/list */
    bool registered; /* mcp_server_add_tool succeeded */
    bool refused;    /* mcp_server_add_tool refused it (logged once) */
    /* The device came back with other schemas: replaced on the serving
     * thread (mcp_server_replace_tool), which then frees the old texts. */
    bool replace;
    char *new_input_schema;
    char *new_output_schema;
};

struct gw_wait {
    bool used;
    bool done;
    bool dev_gone;
    int dev;
    char corr[48];
    size_t corr_len;
    char *reply;
    size_t reply_len;
    /* What was published, for a resend after the broker connection was
     * lost: the same Correlation Data, so the device's replay cache answers
     * a request it already ran instead of running it again. */
    const char *payload; /* the caller's, valid while the wait is used */
    char topic[GW_TOPIC_MAX + 1];
    unsigned gen; /* connection it was published on (conn_gen) */
};

static struct gw_options opt;
static mcp_server_t server;
static struct mosquitto *mosq;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reply_cond;     /* a reply arrived, or a device left */
static pthread_cond_t discovery_cond; /* a device needs its tools read */
static struct gw_device devices[GW_MAX_DEVICES];
static int ndevices;
static struct gw_tool tools[GW_MAX_TOOLS];
static int ntools;
static struct gw_wait waits[GW_MAX_WAITS];
static uint64_t corr_counter;
static uint64_t corr_nonce; /* random, per run */
static bool connected;
/* Counts CONNACKs: a wait published on an earlier connection is resent. */
static unsigned conn_gen;
static unsigned long resends;
/* The retained presence present at start-up has arrived (the sync marker
 * published after the subscriptions came back after it). */
static bool synced;
#define GW_SYNC_CORR "emcp-gateway-sync"
static bool list_changed; /* the serving thread must apply and notify */
static int wake_pipe[2] = {-1, -1};
static char reply_topic_buf[GW_TOPIC_MAX + 1];
static char client_id_buf[GW_ID_MAX + 1];
static char presence_filter[GW_TOPIC_MAX + 1];

/* The line the binding is handling now is a tools/call (serving thread). */
static bool current_is_call;
/* The stdio host initialized a 2025-11-25 session (serving thread): list
 * changes go to it as notifications/tools/list_changed lines. */
static bool stdio_legacy;
/* What the gateway itself answered for the running call, for its audit
 * line ("offline", "timeout", ...), or NULL (serving thread). */
static const char *call_note;

static void gw_log(const char *fmt, ...)
{
    /* One write per line: three threads log. */
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, GW_NAME ": %s\n", line);
}

/* Empties the wake pipe (non-blocking). */
static void drain_wake_pipe(void)
{
    char drain[64];
    while (read(wake_pipe[0], drain, sizeof drain) > 0) {
    }
}

static void wake_server(void)
{
    char b = 1;
    ssize_t r = write(wake_pipe[1], &b, 1);
    (void)r; /* a full pipe already wakes the serving thread */
}

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "Usage: %s [options]\n"
            "\n"
            "  One MCP server (stdio, Streamable HTTP with --http, or both) for every emcp device\n"
            "  behind an MQTT 5 broker.\n"
            "  Devices are found by their retained presence ({prefix}/+/presence[/instance]),\n"
            "  their tools read with tools/list over MQTT and offered as DEVICE.TOOL. A call\n"
            "  is checked by the core against the device's schema, then forwarded to\n"
            "  {prefix}/DEVICE/request with a Response Topic and Correlation Data of the\n"
            "  gateway's own; the device's result is passed back. A device whose presence\n"
            "  is cleared (its Last Will, a clean stop) leaves the list; a call to it, or one\n"
            "  not answered in time, gets an isError result naming the device.\n"
            "\n"
            "Options:\n"
            "  --http ADDR:PORT     serve Streamable HTTP (both eras) on http://ADDR:PORT/mcp\n"
            "                       instead of stdio, through emcp's HTTP binding: Host and\n"
            "                       Origin checks, bearer tokens; ADDR is IPv4, 127.0.0.1\n"
            "                       when only :PORT or PORT is given; port 0: any free one.\n"
            "                       SIGINT or SIGTERM stops it.\n"
            "  --stdio              with --http: serve stdio too, from the same process (one\n"
            "                       broker connection, one tool table); end of input or\n"
            "                       SIGINT/SIGTERM stops both\n"
            "  --token-env P=VAR    HTTP: accept 'Authorization: Bearer T' where T is the\n"
            "                       value of environment variable VAR, as principal P\n"
            "                       (repeatable, at most 16); with any, other requests get 401\n"
            "  --allow-origin O     HTTP: accept Origin O besides loopback ones (repeatable)\n"
            "  --principal P        stdio: the principal of the host's requests (default\n"
            "                       $EMCP_GATEWAY_PRINCIPAL, else local)\n"
            "  --allow P=ITEM[,ITEM...]  principal P sees and may call the tools ITEM names:\n"
            "                       DEVICE (all its tools) or DEVICE.TOOL, where * matches\n"
            "                       any run (gh-*, *.read_sensor); repeatable. With any\n"
            "                       --allow, a tool no rule gives a principal is neither\n"
            "                       listed nor callable for it (answered as an unknown\n"
            "                       tool). Default: every principal sees every device.\n"
            "  --prefix P           first topic level(s) of the devices (default mcp)\n"
            "  --separator S        between device and tool in a tool's name: 1-8 of\n"
            "                       A-Z a-z 0-9 _ . - (default \".\": gh-a.set_vent); the\n"
            "                       --allow items use it too\n"
            "  --client-id ID       MQTT client id (default emcp-gateway-HOST-PID)\n"
            "  --reply-topic T      where devices answer (default clients/CLIENT-ID/responses)\n"
            "  --timeout-ms N       how long a call waits for its device (default 10000)\n"
            "  --discover-ms N      at start, how long to wait for the devices' tools\n"
            "                       before serving (default 3000)\n"
            "  --max-tools N        most tools served, all devices together (1-1024,\n"
            "                       default 1024; a greenhouse device has 2); the core's\n"
            "                       table is sized for N at start-up (MCP_TOOL_SLOT_SIZE,\n"
            "                       184 bytes, each)\n"
            "\n"
            "The broker (the MQTT binding's options, as greenhouse-mqtt takes them):\n"
            EMCP_MQTT_MOSQ_USAGE
            "\n"
            "  -h, --help           this text\n"
            "\n"
            "On stdio, stdout carries MCP messages only and end of input stops it. Logs and\n"
            "one audit line per call go to stderr.\n",
            prog);
}

static uint64_t now_ms(void)
{
    return emcp_monotonic_ms();
}

/* ---- Devices (call with the lock held) ---------------------------------- */

static int find_device(const char *id, size_t len)
{
    for (int i = 0; i < ndevices; i++) {
        if (strlen(devices[i].id) == len && memcmp(devices[i].id, id, len) == 0) {
            return i;
        }
    }
    return -1;
}

static int find_tool(const char *name, size_t len)
{
    for (int i = 0; i < ntools; i++) {
        if (strlen(tools[i].name) == len && memcmp(tools[i].name, name, len) == 0) {
            return i;
        }
    }
    return -1;
}

static bool id_ok(const char *s, size_t len)
{
    if (len == 0 || len > GW_ID_MAX) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '.' || c == '-';
        if (!ok) {
            return false;
        }
    }
    return true;
}

static void set_online(int d, bool online)
{
    struct gw_device *dev = &devices[d];
    if (dev->online == online) {
        return;
    }
    dev->online = online;
    dev->changed_ms = now_ms();
    if (online) {
        /* Read its tools again: it may have changed while away. */
        dev->listed = false;
        dev->need_discovery = true;
        dev->failed_lists = 0;
        pthread_cond_broadcast(&discovery_cond);
        gw_log("device %s is online", dev->id);
        /* Listed (and the list changes) once its tools are read. */
        return;
    } else {
        for (int w = 0; w < GW_MAX_WAITS; w++) {
            if (waits[w].used && waits[w].dev == d) {
                waits[w].dev_gone = true;
            }
        }
        pthread_cond_broadcast(&reply_cond);
        gw_log("device %s is offline", dev->id);
    }
    list_changed = true;
    wake_server();
}

/* A presence message: {prefix}/{id}/presence or {prefix}/{id}/presence/{instance}. */
static void on_presence(const char *topic, const void *payload, int len)
{
    size_t plen = strlen(opt.prefix);
    if (strncmp(topic, opt.prefix, plen) != 0 || topic[plen] != '/') {
        return;
    }
    const char *id = topic + plen + 1;
    const char *slash = strchr(id, '/');
    if (slash == NULL || strncmp(slash, "/presence", 9) != 0 || (slash[9] != '\0' && slash[9] != '/')) {
        return;
    }
    size_t idlen = (size_t)(slash - id);
    if (!id_ok(id, idlen) || strlen(topic) > GW_TOPIC_MAX) {
        gw_log("presence on %s ignored: not a server id of [A-Za-z0-9_.-], 1-%d characters", topic,
               GW_ID_MAX);
        return;
    }
    bool online = false;
    if (len > 0) {
        struct emcp_gw_json j;
        if (emcp_gw_json_parse(&j, payload, (size_t)len) == 0) {
            online = emcp_gw_json_str_eq(&j, emcp_gw_json_get(&j, 0, "status"), "online");
        } else {
            gw_log("presence on %s is not JSON; taken as offline", topic);
        }
        emcp_gw_json_free(&j);
    }
    pthread_mutex_lock(&lock);
    int d = find_device(id, idlen);
    if (d < 0) {
        if (!online) {
            pthread_mutex_unlock(&lock); /* never seen online: nothing to list */
            return;
        }
        if (ndevices == GW_MAX_DEVICES) {
            pthread_mutex_unlock(&lock);
            gw_log("device table full (%d); %.*s not served", GW_MAX_DEVICES, (int)idlen, id);
            return;
        }
        d = ndevices++;
        memset(&devices[d], 0, sizeof devices[d]);
        memcpy(devices[d].id, id, idlen);
        snprintf(devices[d].request_topic, sizeof devices[d].request_topic, "%s/%.*s/request", opt.prefix,
                 (int)idlen, id);
    }
    struct gw_device *dev = &devices[d];
    int k = 0;
    while (k < dev->ninst && strcmp(dev->inst[k].topic, topic) != 0) {
        k++;
    }
    if (k == dev->ninst) {
        if (dev->ninst == GW_MAX_INSTANCES) {
            /* Reuse an offline slot; every slot online: count it as one of them. */
            for (k = 0; k < dev->ninst && dev->inst[k].online; k++) {
            }
            if (k == dev->ninst) {
                k = dev->ninst - 1;
            }
        } else {
            dev->ninst++;
        }
        snprintf(dev->inst[k].topic, sizeof dev->inst[k].topic, "%s", topic);
    }
    dev->inst[k].online = online;
    bool any = false;
    for (int i = 0; i < dev->ninst; i++) {
        any = any || dev->inst[i].online;
    }
    set_online(d, any);
    pthread_mutex_unlock(&lock);
}

/* ---- Requests to devices ------------------------------------------------ */

/* Publishes one request (QoS 1) with the gateway's Response Topic and
 * @p corr as its Correlation Data. */
static int publish_request(const char *topic, const char *payload, const void *corr, size_t corr_len)
{
    mosquitto_property *props = NULL;
    mosquitto_property_add_string(&props, MQTT_PROP_RESPONSE_TOPIC, opt.reply_topic);
    mosquitto_property_add_binary(&props, MQTT_PROP_CORRELATION_DATA, corr, (uint16_t)corr_len);
    mosquitto_property_add_string(&props, MQTT_PROP_CONTENT_TYPE, "application/json");
    int rc = mosquitto_publish_v5(mosq, NULL, topic, (int)strlen(payload), payload, 1, false, props);
    mosquitto_property_free_all(&props);
    return rc;
}

/* Sends @p payload to device @p d and waits for the reply, at most
 * timeout_ms. @return the reply (malloc'd) or NULL with *why set. */
static char *device_rpc(int d, const char *payload, size_t *reply_len, const char **why)
{
    pthread_mutex_lock(&lock);
    int w = 0;
    while (w < GW_MAX_WAITS && waits[w].used) {
        w++;
    }
    if (w == GW_MAX_WAITS) {
        pthread_mutex_unlock(&lock);
        *why = "the gateway has too many calls waiting";
        return NULL;
    }
    struct gw_wait *wt = &waits[w];
    memset(wt, 0, sizeof *wt);
    wt->used = true;
    wt->dev = d;
    /* New for every request of every run: the device's replay cache keys
     * on (Response Topic, Correlation Data), and a gateway restarted with
     * the same --client-id has the same Response Topic. */
    wt->corr_len = (size_t)snprintf(wt->corr, sizeof wt->corr, "%016" PRIx64 "-%" PRIu64, corr_nonce,
                                    ++corr_counter);
    char topic[GW_TOPIC_MAX + 1];
    snprintf(topic, sizeof topic, "%s", devices[d].request_topic);
    char corr[48];
    memcpy(corr, wt->corr, wt->corr_len);
    size_t corr_len = wt->corr_len;
    bool online = devices[d].online;
    wt->payload = payload;
    snprintf(wt->topic, sizeof wt->topic, "%s", topic);
    wt->gen = conn_gen;
    pthread_mutex_unlock(&lock);

    char *reply = NULL;
    if (!online) {
        *why = "is offline";
        goto out;
    }
    int rc = publish_request(topic, payload, corr, corr_len);
    if (rc != MOSQ_ERR_SUCCESS) {
        *why = "could not be reached: the gateway cannot publish to the broker";
        goto out;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(opt.timeout_ms / 1000);
    until.tv_nsec += (long)(opt.timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&lock);
    int wrc = 0;
    while (!wt->done && !wt->dev_gone && wrc != ETIMEDOUT) {
        wrc = pthread_cond_timedwait(&reply_cond, &lock, &until);
    }
    if (wt->done) {
        reply = wt->reply;
        *reply_len = wt->reply_len;
    } else if (wt->dev_gone) {
        *why = "went offline during the call (its presence was cleared); the call may or may not have run";
    } else {
        *why = "did not answer within the timeout";
    }
    pthread_mutex_unlock(&lock);
out:
    pthread_mutex_lock(&lock);
    wt->used = false;
    pthread_mutex_unlock(&lock);
    return reply;
}

/* A reply on our Response Topic: hand it to the call with its Correlation Data. */
static void on_reply(const struct mosquitto_message *m, const mosquitto_property *props)
{
    void *corr = NULL;
    uint16_t corr_len = 0;
    if (mosquitto_property_read_binary(props, MQTT_PROP_CORRELATION_DATA, &corr, &corr_len, false) == NULL) {
        gw_log("a reply without Correlation Data on %s was dropped", m->topic);
        return;
    }
    bool matched = false;
    pthread_mutex_lock(&lock);
    if (corr_len == sizeof GW_SYNC_CORR - 1 && memcmp(corr, GW_SYNC_CORR, corr_len) == 0) {
        synced = true;
        matched = true;
    }
    for (int w = 0; w < GW_MAX_WAITS; w++) {
        struct gw_wait *wt = &waits[w];
        if (wt->used && !wt->done && wt->corr_len == corr_len && memcmp(wt->corr, corr, corr_len) == 0) {
            wt->reply = malloc((size_t)m->payloadlen + 1);
            if (wt->reply != NULL) {
                memcpy(wt->reply, m->payload, (size_t)m->payloadlen);
                wt->reply[m->payloadlen] = '\0';
                wt->reply_len = (size_t)m->payloadlen;
                wt->done = true;
            }
            matched = true;
            pthread_cond_broadcast(&reply_cond);
            break;
        }
    }
    pthread_mutex_unlock(&lock);
    free(corr);
    if (!matched) {
        gw_log("a reply that matches no waiting call was dropped (late, after its timeout?)");
    }
}

/* ---- MQTT callbacks (libmosquitto's thread) ------------------------------ */

static void on_connect(struct mosquitto *m, void *obj, int rc, int flags, const mosquitto_property *props)
{
    (void)obj;
    (void)flags;
    (void)props;
    if (rc != 0) {
        gw_log("broker refused the connection: %s", mosquitto_reason_string(rc));
        return;
    }
    /* No Local is not needed: the gateway publishes on neither filter. */
    int r1 = mosquitto_subscribe_v5(m, NULL, opt.reply_topic, 1, 0, NULL);
    int r2 = mosquitto_subscribe_v5(m, NULL, presence_filter, 1, 0, NULL);
    if (r1 != MOSQ_ERR_SUCCESS || r2 != MOSQ_ERR_SUCCESS) {
        gw_log("cannot subscribe: %s", mosquitto_strerror(r1 != MOSQ_ERR_SUCCESS ? r1 : r2));
    }
    /* A marker to ourselves: the broker handles this connection's packets
     * in order, so it comes back after the retained presence that the
     * subscription above delivers. */
    mosquitto_property *sp = NULL;
    mosquitto_property_add_binary(&sp, MQTT_PROP_CORRELATION_DATA, GW_SYNC_CORR, sizeof GW_SYNC_CORR - 1);
    (void)mosquitto_publish_v5(m, NULL, opt.reply_topic, 0, NULL, 1, false, sp);
    mosquitto_property_free_all(&sp);
    /* Requests published on a connection that was lost since and still
     * waiting: their replies may have been lost with it. Sent again with the
     * same Correlation Data (after the subscriptions above, which the broker
     * handles first): a device that ran one answers from its replay cache,
     * one that never got it runs it now. Never run twice. */
    pthread_mutex_lock(&lock);
    connected = true;
    unsigned gen = ++conn_gen;
    for (int w = 0; w < GW_MAX_WAITS; w++) {
        struct gw_wait *wt = &waits[w];
        if (wt->used && !wt->done && !wt->dev_gone && wt->payload != NULL && wt->gen < gen &&
            devices[wt->dev].online) {
            wt->gen = gen;
            int prc = publish_request(wt->topic, wt->payload, wt->corr, wt->corr_len);
            resends++;
            gw_log("resent a request to %s after reconnecting (%s)", wt->topic,
                   prc == MOSQ_ERR_SUCCESS ? "same Correlation Data" : mosquitto_strerror(prc));
        }
    }
    pthread_mutex_unlock(&lock);
    gw_log("connected to %s:%d; presence %s, replies on %s", opt.mqtt.host, opt.mqtt.port, presence_filter,
           opt.reply_topic);
}

static void on_disconnect(struct mosquitto *m, void *obj, int rc, const mosquitto_property *props)
{
    (void)m;
    (void)obj;
    (void)props;
    pthread_mutex_lock(&lock);
    connected = false;
    pthread_mutex_unlock(&lock);
    if (rc != 0) {
        gw_log("lost the broker (%s); reconnecting", mosquitto_strerror(rc));
    }
}

static void on_message(struct mosquitto *m, void *obj, const struct mosquitto_message *msg,
                       const mosquitto_property *props)
{
    (void)m;
    (void)obj;
    if (strcmp(msg->topic, opt.reply_topic) == 0) {
        on_reply(msg, props);
    } else {
        on_presence(msg->topic, msg->payload, msg->payloadlen);
    }
}

/* ---- Discovery ---------------------------------------------------------- */

static uint32_t annotation_flags(const struct emcp_gw_json *j, int ann)
{
    static const struct {
        const char *key;
        uint32_t flag;
    } hints[] = {
        {"readOnlyHint", MCP_TOOL_READ_ONLY},
        {"destructiveHint", MCP_TOOL_DESTRUCTIVE},
        {"idempotentHint", MCP_TOOL_IDEMPOTENT},
        {"openWorldHint", MCP_TOOL_OPEN_WORLD},
    };
    uint32_t flags = 0;
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        int v = emcp_gw_json_get(j, ann, hints[i].key);
        if (v >= 0 && j->nodes[v].type == EMCP_GW_J_TRUE) {
            flags |= hints[i].flag;
        }
    }
    return flags;
}

/* Files one tool of device @p d from its tools/list (lock held). */
static void file_tool(int d, const struct emcp_gw_json *j, int t)
{
    int name_i = emcp_gw_json_get(j, t, "name");
    int schema_i = emcp_gw_json_get(j, t, "inputSchema");
    char *dname = emcp_gw_json_str(j, name_i, NULL);
    if (dname == NULL || schema_i < 0) {
        free(dname);
        gw_log("device %s listed a tool without name or inputSchema; skipped", devices[d].id);
        return;
    }
    char full[GW_ID_MAX + 8 + 256];
    int n = snprintf(full, sizeof full, "%s%s%s", devices[d].id, opt.separator, dname);
    if (n < 0 || (size_t)n >= sizeof full || (size_t)n > MCP_MAX_TOOL_NAME_LEN) {
        gw_log("device %s: tool %s: the name %s%s%s is too long; skipped", devices[d].id, dname,
               devices[d].id, opt.separator, dname);
        free(dname);
        return;
    }
    char *schema = emcp_gw_json_raw(j, schema_i);
    int existing = find_tool(full, (size_t)n);
    if (existing >= 0) {
        struct gw_tool *tl = &tools[existing];
        char *out = emcp_gw_json_raw(j, emcp_gw_json_get(j, t, "outputSchema"));
        const char *was_out = tl->output_schema ? tl->output_schema : "";
        if (schema != NULL && (strcmp(schema, tl->input_schema) != 0 || strcmp(out ? out : "", was_out) != 0)) {
            /* Re-read: the serving thread replaces the registered tool. */
            gw_log("device %s changed the schemas of %s; the tool is replaced", devices[d].id, dname);
            free(tl->new_input_schema);
            free(tl->new_output_schema);
            tl->new_input_schema = schema;
            tl->new_output_schema = out;
            tl->replace = true;
            list_changed = true;
            schema = NULL;
            out = NULL;
        }
        free(out);
        tl->offered = true;
        free(schema);
        free(dname);
        return;
    }
    if (ntools == GW_MAX_TOOLS) {
        gw_log("tool table full (%d, the most --max-tools takes); %s not served", GW_MAX_TOOLS, full);
        free(schema);
        free(dname);
        return;
    }
    struct gw_tool *tl = &tools[ntools++];
    memset(tl, 0, sizeof *tl);
    tl->dev = d;
    tl->name = strdup(full);
    tl->device_tool = dname;
    tl->input_schema = schema;
    tl->output_schema = emcp_gw_json_raw(j, emcp_gw_json_get(j, t, "outputSchema"));
    char *title = emcp_gw_json_str(j, emcp_gw_json_get(j, t, "title"), NULL);
    char *desc = emcp_gw_json_str(j, emcp_gw_json_get(j, t, "description"), NULL);
    int ann = emcp_gw_json_get(j, t, "annotations");
    tl->annotations = annotation_flags(j, ann);
    tl->principals = principals_for(devices[d].id, full, &tl->nobody);
    if (title == NULL && ann >= 0) {
        title = emcp_gw_json_str(j, emcp_gw_json_get(j, ann, "title"), NULL);
    }
    size_t tlen = strlen(title ? title : dname) + strlen(devices[d].id) + 16;
    tl->title = malloc(tlen);
    if (tl->title != NULL) {
        snprintf(tl->title, tlen, "%s (device %s)", title ? title : dname, devices[d].id);
    }
    size_t dlen = (desc ? strlen(desc) : 0) + strlen(devices[d].id) + strlen(dname) + 64;
    tl->description = malloc(dlen);
    if (tl->description != NULL) {
        snprintf(tl->description, dlen, "On device %s (its tool %s, through MQTT).%s%s", devices[d].id, dname,
                 desc ? " " : "", desc ? desc : "");
    }
    free(title);
    free(desc);
    tl->offered = true;
}

/* Reads the tools of device @p d, every page. @return 0 or -1. */
static int discover(int d)
{
    char *cursor = NULL;
    bool first = true;
    int pages = 0;
    for (;;) {
        char req[1024];
        char *cur_json = NULL;
        if (cursor != NULL) {
            /* The cursor goes back as the device wrote it (raw JSON string). */
            cur_json = cursor;
        }
        int rlen = snprintf(req, sizeof req,
                 "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/list\",\"params\":{\"_meta\":{"
                 "\"io.modelcontextprotocol/protocolVersion\":\"" GW_PROTOCOL "\","
                 "\"io.modelcontextprotocol/clientCapabilities\":{}}%s%s}}",
                 pages + 1, cur_json ? ",\"cursor\":" : "", cur_json ? cur_json : "");
        free(cursor);
        cursor = NULL;
        if (rlen < 0 || (size_t)rlen >= sizeof req) {
            gw_log("tools/list of device %s: its cursor is too long; the rest is not served", devices[d].id);
            return 0;
        }
        size_t len = 0;
        const char *why = NULL;
        char *reply = device_rpc(d, req, &len, &why);
        if (reply == NULL) {
            gw_log("tools/list of device %s: it %s", devices[d].id, why);
            return -1;
        }
        struct emcp_gw_json j;
        int result = -1;
        int tools_i = -1;
        if (emcp_gw_json_parse(&j, reply, len) == 0) {
            result = emcp_gw_json_get(&j, 0, "result");
            tools_i = emcp_gw_json_get(&j, result, "tools");
        }
        if (tools_i < 0 || j.nodes[tools_i].type != EMCP_GW_J_ARRAY) {
            gw_log("tools/list of device %s: unexpected answer: %.200s", devices[d].id, reply);
            emcp_gw_json_free(&j);
            free(reply);
            return -1;
        }
        pthread_mutex_lock(&lock);
        if (first) {
            for (int i = 0; i < ntools; i++) {
                if (tools[i].dev == d) {
                    tools[i].offered = false;
                }
            }
            first = false;
        }
        int end = j.nodes[tools_i].next;
        for (int t = tools_i + 1; t < end; t = j.nodes[t].next) {
            if (j.nodes[t].type == EMCP_GW_J_OBJECT) {
                file_tool(d, &j, t);
            }
        }
        pthread_mutex_unlock(&lock);
        int next = emcp_gw_json_get(&j, result, "nextCursor");
        if (next >= 0 && j.nodes[next].type == EMCP_GW_J_STRING) {
            cursor = emcp_gw_json_raw(&j, next);
        }
        emcp_gw_json_free(&j);
        free(reply);
        if (cursor == NULL) {
            return 0;
        }
        if (++pages == GW_MAX_PAGES) {
            gw_log("tools/list of device %s: more than %d pages; the rest is not served", devices[d].id,
                   GW_MAX_PAGES);
            free(cursor);
            return 0;
        }
    }
}

static void *discovery_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        int d = -1;
        for (int i = 0; i < ndevices && d < 0; i++) {
            if (devices[i].need_discovery && devices[i].online) {
                d = i;
            }
        }
        if (d < 0) {
            pthread_cond_wait(&discovery_cond, &lock);
            continue;
        }
        devices[d].need_discovery = false;
        devices[d].discovering = true;
        pthread_mutex_unlock(&lock);
        int rc = discover(d);
        pthread_mutex_lock(&lock);
        devices[d].discovering = false;
        if (rc == 0) {
            int offered = 0;
            for (int i = 0; i < ntools; i++) {
                offered += tools[i].dev == d && tools[i].offered;
            }
            devices[d].listed = true;
            gw_log("device %s offers %d tool(s)", devices[d].id, offered);
            list_changed = true;
            wake_server();
        } else if (devices[d].online && devices[d].failed_lists++ < 5) {
            /* Try again shortly (it may still be starting). */
            pthread_mutex_unlock(&lock);
            usleep(500000);
            pthread_mutex_lock(&lock);
            devices[d].need_discovery = devices[d].online && !devices[d].listed;
        }
    }
    return NULL;
}

/* ---- The serving thread ----------------------------------------------------- */

static int tool_call(const mcp_call_t *call, mcp_result_t *result, void *user);

/* The core's definition of tool @p tl (its strings stay with @p tl). */
static mcp_tool_t tool_def(const struct gw_tool *tl)
{
    mcp_tool_t def;
    memset(&def, 0, sizeof def);
    def.name = tl->name;
    def.title = tl->title;
    def.description = tl->description;
    def.input_schema = tl->input_schema;
    def.output_schema = tl->output_schema;
    def.annotations = tl->annotations;
    def.principals = tl->principals;
    def.max_result_len = (tl->annotations & MCP_TOOL_READ_ONLY) ? 0 : GW_RESULT_MAX;
    return def;
}

/* Replaces registered tool @p i with the schemas its device listed last
 * (lock held, serving thread). The old texts are freed once the core holds
 * the new ones; a refusal keeps the tool as it was. */
static void replace_tool(struct gw_tool *tl, int i)
{
    mcp_tool_t def = tool_def(tl);
    def.input_schema = tl->new_input_schema;
    def.output_schema = tl->new_output_schema;
    int rc = mcp_server_replace_tool(&server, &def, tool_call, (void *)(intptr_t)i);
    if (rc == 0) {
        free(tl->input_schema);
        free(tl->output_schema);
        tl->input_schema = tl->new_input_schema;
        tl->output_schema = tl->new_output_schema;
    } else {
        char why[256];
        if (mcp_server_schema_error(&server, why, sizeof why) <= 0) {
            snprintf(why, sizeof why, "error %d", rc);
        }
        gw_log("tool %s keeps its schemas: the core refused the new ones (%s)", tl->name, why);
        free(tl->new_input_schema);
        free(tl->new_output_schema);
    }
    tl->new_input_schema = NULL;
    tl->new_output_schema = NULL;
    tl->replace = false;
}

/* Registers the tools discovered since the last time and tells the listen
 * streams when the list changed. Serving thread, between messages. */
static void apply_pending(void)
{
    pthread_mutex_lock(&lock);
    bool changed = list_changed;
    list_changed = false;
    for (int i = 0; i < ntools; i++) {
        struct gw_tool *tl = &tools[i];
        if (tl->registered && tl->replace) {
            replace_tool(tl, i);
        }
        if (tl->registered || tl->refused) {
            continue;
        }
        if (tl->nobody) {
            gw_log("tool %s not served: no --allow rule names it", tl->name);
            tl->refused = true;
            continue;
        }
        mcp_tool_t def = tool_def(tl);
        int rc = mcp_server_add_tool(&server, &def, tool_call, (void *)(intptr_t)i);
        if (rc == 0) {
            tl->registered = true; /* the core told the listen streams itself */
        } else {
            char why[256];
            if (mcp_server_schema_error(&server, why, sizeof why) <= 0) {
                snprintf(why, sizeof why, "error %d", rc);
            }
            gw_log("tool %s not served: the core refused it (%s)%s", tl->name, why,
                   rc == -MCP_ENOSPC ? "; start the gateway with a larger --max-tools" : "");
            tl->refused = true;
        }
    }
    pthread_mutex_unlock(&lock);
    if (changed) {
        (void)mcp_server_notify_list_changed(&server, MCP_LIST_TOOLS);
        /* A 2025-11-25 stdio host has no listen stream: the notification
         * goes to it as a line of its own. Written here, while the stdio
         * binding waits for input (in_read), so it never splits a message of
         * the binding's; 2025-11-25 lets a server send it at any time. */
        if (stdio_legacy) {
            static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n";
            (void)fwrite(note, 1, sizeof note - 1, stdout);
        }
        fflush(stdout);
    }
}

/* The policy hook: a device's tool is listed while the device is online and
 * offers it; a call to any registered tool reaches its callback, which then
 * answers "offline" itself (the core would answer an unlisted tool as an
 * unknown one). */
static bool tool_policy(void *user, const uint8_t *principal, size_t principal_len, const char *tool,
                        size_t tool_len)
{
    (void)user;
    (void)principal;
    (void)principal_len;
    if (current_is_call) {
        return true;
    }
    pthread_mutex_lock(&lock);
    int t = find_tool(tool, tool_len);
    bool visible = t >= 0 && devices[tools[t].dev].online && devices[tools[t].dev].listed && tools[t].offered;
    pthread_mutex_unlock(&lock);
    return visible;
}

static void result_errorf(mcp_result_t *result, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    (void)mcp_result_error_cstr(result, text);
}

static int tool_call(const mcp_call_t *call, mcp_result_t *result, void *user)
{
    int t = (int)(intptr_t)user;
    pthread_mutex_lock(&lock);
    struct gw_tool *tl = &tools[t];
    int d = tl->dev;
    char device[GW_ID_MAX + 1];
    snprintf(device, sizeof device, "%s", devices[d].id);
    bool online = devices[d].online;
    bool gone = devices[d].listed && !tl->offered;
    const char *dtool = tl->device_tool;
    pthread_mutex_unlock(&lock);
    if (!online) {
        call_note = "offline";
        result_errorf(result, "device %s is offline (its presence was cleared); %s was not called", device,
                      dtool);
        return 0;
    }
    if (gone) {
        call_note = "not_offered";
        result_errorf(result, "device %s no longer offers %s", device, dtool);
        return 0;
    }
    static char args[GW_ARGS_MAX];
    int alen = mcp_call_arguments(call, args, sizeof args);
    if (alen < 0) {
        result_errorf(result, "the arguments for device %s are too large for the gateway", device);
        return 0;
    }
    /* dtool is [A-Za-z0-9_.-] (the core checked the full name), no escaping needed. */
    size_t cap = (size_t)alen + strlen(dtool) + 512;
    char *req = malloc(cap);
    if (req == NULL) {
        return -MCP_EIO;
    }
    snprintf(req, cap,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":{"
             "\"io.modelcontextprotocol/protocolVersion\":\"" GW_PROTOCOL "\","
             "\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"%s\",\"arguments\":%s}}",
             dtool, args);
    size_t len = 0;
    const char *why = NULL;
    char *reply = device_rpc(d, req, &len, &why);
    free(req);
    if (reply == NULL) {
        if (strcmp(why, "did not answer within the timeout") == 0) {
            call_note = "timeout";
            result_errorf(result, "device %s did not answer %s within %u ms (timeout); it may or may not have run it",
                          device, dtool, opt.timeout_ms);
        } else {
            call_note = "unreachable";
            result_errorf(result, "device %s %s", device, why);
        }
        return 0;
    }
    struct emcp_gw_json j;
    int rc = 0;
    if (emcp_gw_json_parse(&j, reply, len) != 0) {
        result_errorf(result, "device %s answered with something that is not JSON", device);
    } else {
        int res = emcp_gw_json_get(&j, 0, "result");
        int err = emcp_gw_json_get(&j, 0, "error");
        if (res >= 0 && j.nodes[res].type == EMCP_GW_J_OBJECT) {
            int rt = emcp_gw_json_get(&j, res, "resultType");
            if (rt >= 0 && !emcp_gw_json_str_eq(&j, rt, "complete")) {
                char *k = emcp_gw_json_str(&j, rt, NULL);
                result_errorf(result, "device %s answered %s with resultType %s, which emcp-gateway does not pass on yet",
                              device, dtool, k ? k : "?");
                free(k);
            } else {
                struct emcp_gw_relay_report lost;
                rc = emcp_gw_relay_result(result, device, &j, res, &lost);
                if (lost.lost[0] != '\0') {
                    gw_log("the answer of device %s to %s was not passed on exactly: %s", device, dtool, lost.lost);
                }
            }
        } else if (err >= 0) {
            call_note = "device_error";
            char *msg = emcp_gw_json_str(&j, emcp_gw_json_get(&j, err, "message"), NULL);
            char *code = emcp_gw_json_raw(&j, emcp_gw_json_get(&j, err, "code"));
            result_errorf(result, "device %s refused %s: error %s: %s", device, dtool, code ? code : "?",
                          msg ? msg : "");
            free(msg);
            free(code);
        } else {
            result_errorf(result, "device %s answered without result or error", device);
        }
    }
    emcp_gw_json_free(&j);
    free(reply);
    if (rc == -MCP_ENOBUFS) {
        gw_log("the answer of device %s to %s does not fit the response buffer", device, dtool);
    }
    return rc;
}

/* One audit line per tools/call on stderr: principal, device, tool, outcome
 * (the core's, or what the gateway answered itself) and latency. */
static void audit(void *user, const mcp_audit_t *a)
{
    (void)user;
    static const char *const outcomes[] = {"ok",           "is_error",          "refused",
                                           "rate_limited", "duplicate",         "invalid_arguments",
                                           "input_required", "failed",          "no_space",
                                           "over_declared"};
    const char *outcome = a->outcome < sizeof outcomes / sizeof outcomes[0] ? outcomes[a->outcome] : "other";
    if (call_note != NULL && a->outcome == MCP_AUDIT_IS_ERROR) {
        outcome = call_note;
    }
    call_note = NULL;
    /* The device and its tool from the tool's own record (a separator may
     * also occur in a device id). */
    pthread_mutex_lock(&lock);
    int ti = find_tool(a->tool, a->tool_len);
    int dev_len = ti >= 0 ? (int)strlen(devices[tools[ti].dev].id) : 0;
    const char *tool = ti >= 0 ? tools[ti].device_tool : a->tool;
    int tool_len = ti >= 0 ? (int)strlen(tool) : (int)a->tool_len;
    pthread_mutex_unlock(&lock);
    fprintf(stderr, "audit: principal=%.*s device=%.*s tool=%.*s outcome=%s ms=%" PRIu64 "\n",
            a->principal ? (int)a->principal_len : 1, a->principal ? a->principal : "-", dev_len, a->tool,
            tool_len, tool, outcome,
            a->duration_ms);
}

static uint64_t audit_clock(void *user)
{
    (void)user;
    return now_ms();
}

/* ---- The binding's input: one line at a time ------------------------------ */

struct gw_input {
    char *buf;
    size_t len;
    size_t cap;
    size_t line_left; /* bytes of the current line not yet handed out */
    bool eof;
};

/* Notes whether the message is a tools/call; @return whether it is an
 * initialize (a 2025-11-25 session: 2026-07-28 has no initialize). */
static bool classify(const char *line, size_t len)
{
    struct emcp_gw_json j;
    current_is_call = false;
    bool init = false;
    if (emcp_gw_json_parse(&j, line, len) == 0) {
        int m = emcp_gw_json_get(&j, 0, "method");
        current_is_call = emcp_gw_json_str_eq(&j, m, "tools/call");
        init = emcp_gw_json_str_eq(&j, m, "initialize");
    }
    emcp_gw_json_free(&j);
    return init;
}

static ssize_t in_read(void *cookie, char *out, size_t size)
{
    struct gw_input *in = cookie;
    for (;;) {
        if (in->line_left > 0) {
            size_t n = in->line_left < size ? in->line_left : size;
            memcpy(out, in->buf, n);
            memmove(in->buf, in->buf + n, in->len - n);
            in->len -= n;
            in->line_left -= n;
            return (ssize_t)n;
        }
        char *nl = memchr(in->buf, '\n', in->len);
        if (nl != NULL || (in->eof && in->len > 0) || in->len == GW_LINE_BUF_MAX) {
            size_t n = nl != NULL ? (size_t)(nl - in->buf) + 1 : in->len;
            if (classify(in->buf, n)) {
                stdio_legacy = true;
            }
            in->line_left = n;
            continue;
        }
        if (in->eof) {
            return 0;
        }
        /* Waiting for the host: apply what the devices changed meanwhile. */
        apply_pending();
        if (stop_requested) {
            return 0; /* SIGINT or SIGTERM (--http with --stdio): end of input */
        }
        struct pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {wake_pipe[0], POLLIN, 0}};
        /* With HTTP too: the HTTP binding waits, and its wait ends when stdin
         * or the wake pipe is readable (its wake_fds), so both are served by
         * this thread (the core's threading rule) without delay. */
        int pr = poll(fds, 2, http_open ? 0 : -1);
        if (pr == 0 && http_open) {
            if (emcp_http_poll(&http, GW_HTTP_POLL_MS) != 0 && !stop_requested) {
                gw_log("HTTP poll failed");
                return -1;
            }
            continue;
        }
        if (pr < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        if (fds[1].revents & POLLIN) {
            drain_wake_pipe();
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            if (in->cap - in->len < 4096 && in->cap < GW_LINE_BUF_MAX) {
                size_t cap = in->cap * 2;
                char *grown = realloc(in->buf, cap);
                if (grown == NULL) {
                    return -1;
                }
                in->buf = grown;
                in->cap = cap;
            }
            ssize_t r = read(STDIN_FILENO, in->buf + in->len, in->cap - in->len);
            if (r < 0) {
                if (errno == EINTR || errno == EAGAIN) {
                    continue;
                }
                return -1;
            }
            if (r == 0) {
                in->eof = true;
            }
            in->len += (size_t)r;
        }
    }
}

/* ---- Serving: stdio or Streamable HTTP --------------------------------------- */

static int serve_stdio(void)
{
    if (stdio_principal == NULL) {
        const char *env = getenv("EMCP_GATEWAY_PRINCIPAL");
        if (env != NULL && env[0] != '\0') {
            if (!principal_ok(env, strlen(env))) {
                gw_log("EMCP_GATEWAY_PRINCIPAL wants 1-%d bytes without ',' or spaces", GW_PRINCIPAL_MAX);
                return -1;
            }
            stdio_principal = env;
        }
    }
    emcp_stdio_set_principal(stdio_principal);
    /* List changes reach a legacy stdio client as lines this program writes. */
    emcp_stdio_set_ctx_flags(MCP_CTX_LEGACY_LIST_CHANGED);
    struct gw_input input = {0};
    input.cap = 65536;
    input.buf = malloc(input.cap);
    cookie_io_functions_t io = {.read = in_read};
    FILE *in = input.buf ? fopencookie(&input, "r", io) : NULL;
    if (in == NULL) {
        gw_log("cannot open the input stream");
        free(input.buf);
        return -1;
    }
    int rc = emcp_stdio_serve(&server, in, stdout, stderr);
    fclose(in);
    free(input.buf);
    return rc;
}

/* The HTTP binding's inspect hook: the body it hands the core next. */
static void http_inspect(void *user, const uint8_t *body, size_t len)
{
    (void)user;
    (void)classify((const char *)body, len);
}

static void http_log(void *user, const char *line)
{
    (void)user;
    gw_log("http: %s", line);
}

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

/* Opens the HTTP binding and installs the stop signals. */
static int http_start(void)
{
    emcp_http_config_t hc;
    memset(&hc, 0, sizeof hc);
    hc.bind_addr = opt.http_addr;
    hc.port = opt.http_port;
    hc.allowed_origins = origins;
    hc.allowed_origins_len = norigins;
    if (bearer_list.len > 0) {
        hc.auth = emcp_http_bearer_list_auth;
        hc.auth_user = &bearer_list;
    }
    hc.log = http_log;
    hc.inspect = http_inspect;
    /* Legacy (2025-11-25) clients' GET stream: list changes reach them too. */
    hc.legacy_stream = true;
    /* The binding's wait ends as soon as the MQTT side has news (the wake
     * pipe) or, with --stdio, the host wrote a line. */
    hc.wake_fds[hc.wake_fds_len++] = wake_pipe[0];
    if (opt.stdio) {
        hc.wake_fds[hc.wake_fds_len++] = STDIN_FILENO;
    }
    int rc = emcp_http_open(&http, &server, &hc);
    if (rc != 0) {
        gw_log("cannot serve HTTP on %s:%u (%d)", opt.http_addr, (unsigned)opt.http_port, rc);
        return rc;
    }
    http_open = true;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    gw_log("listening on http://%s:%u/mcp (%zu bearer token(s), %zu extra origin(s))", opt.http_addr,
           (unsigned)emcp_http_port(&http), bearer_list.len, norigins);
    return 0;
}

/* One thread, as the binding wants: between two polls (a poll ends when the
 * wake pipe is written) the tools the devices brought are registered and
 * list changes go to the listen streams, so registration never overlaps
 * mcp_server_handle. */
static int serve_http(void)
{
    int rc = http_start();
    if (rc != 0) {
        return rc;
    }
    while (!stop_requested) {
        drain_wake_pipe(); /* before applying: a wake after it ends the next poll */
        apply_pending();
        rc = emcp_http_poll(&http, GW_HTTP_POLL_MS);
        if (rc != 0 && !stop_requested) {
            gw_log("HTTP poll failed (%d)", rc);
            break;
        }
    }
    emcp_http_close(&http);
    http_open = false;
    return stop_requested ? 0 : rc;
}

/* --http with --stdio: the stdio binding's loop on this thread, and the
 * HTTP binding polled while it waits for a line (in_read). */
static int serve_both(void)
{
    int rc = http_start();
    if (rc != 0) {
        return rc;
    }
    rc = serve_stdio();
    emcp_http_close(&http);
    http_open = false;
    return rc;
}

/* ---- Start-up -------------------------------------------------------------- */

/* --http ADDR:PORT, :PORT or PORT (the address defaults to 127.0.0.1). */
static bool parse_listen(char *arg)
{
    char *colon = strrchr(arg, ':');
    const char *port = colon != NULL ? colon + 1 : arg;
    char *end = NULL;
    long p = strtol(port, &end, 10);
    if (end == port || *end != '\0' || p < 0 || p > 65535) {
        return false;
    }
    opt.http_addr = "127.0.0.1";
    if (colon != NULL && colon != arg) {
        *colon = '\0';
        opt.http_addr = arg;
    }
    opt.http_port = (uint16_t)p;
    opt.http = true;
    return true;
}

/* --token-env PRINCIPAL=VAR: the token is read from the environment, never
 * from the command line (where ps shows it). */
static bool add_token(const char *prog, const char *v)
{
    const char *eq = strchr(v, '=');
    size_t plen = eq != NULL ? (size_t)(eq - v) : 0;
    if (eq == NULL || !principal_ok(v, plen) || eq[1] == '\0') {
        fprintf(stderr, "%s: --token-env wants PRINCIPAL=VAR (PRINCIPAL 1-%d bytes, no ',' or spaces)\n", prog,
                GW_PRINCIPAL_MAX);
        return false;
    }
    if (bearer_list.len == GW_MAX_TOKENS) {
        fprintf(stderr, "%s: at most %d --token-env\n", prog, GW_MAX_TOKENS);
        return false;
    }
    const char *token = getenv(eq + 1);
    if (token == NULL || token[0] == '\0') {
        fprintf(stderr, "%s: --token-env %.*s=%s: environment variable %s is not set or empty\n", prog,
                (int)plen, v, eq + 1, eq + 1);
        return false;
    }
    for (size_t i = 0; i < bearer_list.len; i++) {
        if (strcmp(bearers[i].token, token) == 0) {
            fprintf(stderr, "%s: two --token-env options with the same token\n", prog);
            return false;
        }
    }
    memcpy(bearer_names[bearer_list.len], v, plen);
    bearer_names[bearer_list.len][plen] = '\0';
    bearers[bearer_list.len].token = token;
    bearers[bearer_list.len].principal = bearer_names[bearer_list.len];
    bearer_list.len++;
    return true;
}

static bool parse_ms(const char *v, unsigned *out)
{
    char *end = NULL;
    unsigned long n = strtoul(v, &end, 10);
    if (end == v || *end != '\0' || n == 0 || n > 3600000ul) {
        return false;
    }
    *out = (unsigned)n;
    return true;
}

static int parse_args(int argc, char **argv, const char *prog)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, prog);
            return 1;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int brc = emcp_mqtt_mosq_parse_option(&opt.mqtt, argc, argv, &i, stderr);
        if (brc < 0) {
            return -1;
        }
        if (brc > 0) {
            continue;
        }
        if (strcmp(a, "--stdio") == 0) {
            opt.stdio = true;
            continue;
        }
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (v == NULL) {
            fprintf(stderr, "%s: '%s' needs a value or is unknown\n", prog, a);
            return -1;
        }
        i++;
        if (strcmp(a, "--prefix") == 0) {
            opt.prefix = v;
        } else if (strcmp(a, "--separator") == 0) {
            if (strlen(v) > 8 || !id_ok(v, strlen(v))) {
                fprintf(stderr, "%s: --separator wants 1 to 8 of A-Z a-z 0-9 _ . -\n", prog);
                return -1;
            }
            opt.separator = v;
        } else if (strcmp(a, "--reply-topic") == 0) {
            opt.reply_topic = v;
        } else if (strcmp(a, "--http") == 0) {
            if (!parse_listen(argv[i])) {
                fprintf(stderr, "%s: --http wants ADDR:PORT (IPv4), :PORT or PORT\n", prog);
                return -1;
            }
        } else if (strcmp(a, "--token-env") == 0) {
            if (!add_token(prog, v)) {
                return -1;
            }
        } else if (strcmp(a, "--principal") == 0) {
            if (!principal_ok(v, strlen(v))) {
                fprintf(stderr, "%s: --principal wants 1-%d bytes without ',' or spaces\n", prog, GW_PRINCIPAL_MAX);
                return -1;
            }
            stdio_principal = v;
        } else if (strcmp(a, "--allow") == 0) {
            if (!add_allow(prog, v)) {
                return -1;
            }
        } else if (strcmp(a, "--allow-origin") == 0) {
            if (norigins == GW_MAX_ORIGINS) {
                fprintf(stderr, "%s: at most %d --allow-origin\n", prog, GW_MAX_ORIGINS);
                return -1;
            }
            origins[norigins++] = v;
        } else if (strcmp(a, "--timeout-ms") == 0) {
            if (!parse_ms(v, &opt.timeout_ms)) {
                fprintf(stderr, "%s: --timeout-ms wants 1 to 3600000\n", prog);
                return -1;
            }
        } else if (strcmp(a, "--max-tools") == 0) {
            char *end = NULL;
            errno = 0;
            unsigned long n = strtoul(v, &end, 10);
            if (errno != 0 || end == v || *end != '\0' || v[0] == '-' || n < 1 || n > GW_MAX_TOOLS) {
                fprintf(stderr, "%s: --max-tools wants 1 to %d\n", prog, GW_MAX_TOOLS);
                return -1;
            }
            opt.max_tools = (unsigned)n;
        } else if (strcmp(a, "--discover-ms") == 0) {
            if (!parse_ms(v, &opt.discover_ms)) {
                fprintf(stderr, "%s: --discover-ms wants 1 to 3600000\n", prog);
                return -1;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
            return -1;
        }
    }
    return 0;
}

static volatile bool mqtt_stopping;

/* Connects (again after a failure, 100 ms doubling to 2 s) and runs
 * libmosquitto's loop, which reconnects by itself once it was connected. */
static void *mqtt_main(void *arg)
{
    (void)arg;
    unsigned delay_ms = 100;
    bool told = false;
    while (!mqtt_stopping) {
        int rc = mosquitto_connect(mosq, opt.mqtt.host, opt.mqtt.port,
                                   opt.mqtt.keepalive_s > 0 ? opt.mqtt.keepalive_s : EMCP_MQTT_KEEPALIVE_S);
        if (rc == MOSQ_ERR_SUCCESS) {
            told = false;
            delay_ms = 100;
            rc = mosquitto_loop_forever(mosq, -1, 1);
            if (mqtt_stopping) {
                break;
            }
            gw_log("MQTT loop ended (%s); connecting again", mosquitto_strerror(rc));
        } else if (!told) {
            gw_log("cannot connect to %s:%d yet (%s); retrying", opt.mqtt.host, opt.mqtt.port,
                   rc == MOSQ_ERR_ERRNO ? strerror(errno) : mosquitto_strerror(rc));
            told = true;
        }
        usleep(delay_ms * 1000);
        delay_ms = delay_ms < 1000 ? delay_ms * 2 : 2000;
    }
    return NULL;
}

static int mqtt_setup(void)
{
    mosquitto_lib_init();
    mosq = mosquitto_new(opt.mqtt.client_id, true, NULL);
    if (mosq == NULL) {
        gw_log("cannot create the MQTT client");
        return -1;
    }
    /* MQTT 5, credentials and TLS exactly as the devices' shim sets them. */
    int rc = emcp_mqtt_mosq_configure(mosq, &opt.mqtt) == 0 ? MOSQ_ERR_SUCCESS : MOSQ_ERR_INVAL;
    if (rc == MOSQ_ERR_SUCCESS) {
        rc = mosquitto_reconnect_delay_set(mosq, 1, 2, true);
    }
    if (rc != MOSQ_ERR_SUCCESS) {
        gw_log("MQTT options refused: %s", mosquitto_strerror(rc));
        return -1;
    }
    mosquitto_connect_v5_callback_set(mosq, on_connect);
    mosquitto_disconnect_v5_callback_set(mosq, on_disconnect);
    mosquitto_message_v5_callback_set(mosq, on_message);
    /* Our own loop thread (mosquitto_loop_start does not retry a first
     * connection that failed): the other threads publish meanwhile. */
    mosquitto_threaded_set(mosq, true);
    pthread_t t;
    if (pthread_create(&t, NULL, mqtt_main, NULL) != 0) {
        gw_log("cannot start the MQTT thread");
        return -1;
    }
    /* Never joined: at the end of input it may still wait for a broker. */
    pthread_detach(t);
    return 0;
}

/* Waits until the retained presence has arrived and the devices online
 * then have their tools read, or discover_ms passed. */
static void initial_discovery(void)
{
    uint64_t start = now_ms();
    uint64_t deadline = start + opt.discover_ms;
    for (;;) {
        uint64_t t = now_ms();
        pthread_mutex_lock(&lock);
        bool busy = false;
        for (int i = 0; i < ndevices; i++) {
            busy = busy || (devices[i].online && !devices[i].listed &&
                            (devices[i].need_discovery || devices[i].discovering));
        }
        bool ready = connected && synced;
        pthread_mutex_unlock(&lock);
        if (t >= deadline || (ready && !busy)) {
            break;
        }
        usleep(20000);
    }
    pthread_mutex_lock(&lock);
    int online = 0, listed = 0;
    for (int i = 0; i < ndevices; i++) {
        online += devices[i].online;
        listed += devices[i].online && devices[i].listed;
    }
    pthread_mutex_unlock(&lock);
    gw_log("serving on %s: %d device(s) online, %d with their tools read (after %" PRIu64 " ms)",
           opt.http && opt.stdio ? "stdio and HTTP" : opt.http ? "HTTP" : "stdio", online,
           listed, now_ms() - start);
}

int main(int argc, char **argv)
{
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : GW_NAME;
    opt.mqtt.host = "127.0.0.1";
    opt.mqtt.port = 1883;
    opt.mqtt.log = stderr;
    opt.prefix = "mcp";
    opt.separator = ".";
    opt.timeout_ms = 10000;
    opt.discover_ms = 3000;
    opt.max_tools = GW_MAX_TOOLS;
    int prc = parse_args(argc, argv, prog);
    if (prc != 0) {
        if (prc < 0) {
            usage(stderr, prog);
        }
        return prc > 0 ? 0 : 2;
    }
    if (opt.mqtt.client_id == NULL) {
        char host[32] = "host";
        (void)gethostname(host, sizeof host - 1);
        host[sizeof host - 1] = '\0';
        for (char *c = host; *c; c++) {
            if (!id_ok(c, 1)) {
                *c = '_';
            }
        }
        snprintf(client_id_buf, sizeof client_id_buf, GW_NAME "-%s-%ld", host, (long)getpid());
        opt.mqtt.client_id = client_id_buf;
    } else {
        snprintf(client_id_buf, sizeof client_id_buf, "%s", opt.mqtt.client_id);
    }
    if (opt.reply_topic == NULL) {
        snprintf(reply_topic_buf, sizeof reply_topic_buf, "clients/%s/responses", client_id_buf);
        opt.reply_topic = reply_topic_buf;
    }
    if (strpbrk(opt.reply_topic, "+#") != NULL) {
        fprintf(stderr, "%s: --reply-topic cannot hold + or #\n", prog);
        return 2;
    }
    /* '#' also matches its parent level: both presence forms. */
    if (snprintf(presence_filter, sizeof presence_filter, "%s/+/presence/#", opt.prefix) >=
        (int)sizeof presence_filter) {
        fprintf(stderr, "%s: --prefix is too long\n", prog);
        return 2;
    }

    mcp_server_config_t cfg = {
        .name = GW_NAME,
        .version = GW_VERSION,
        .title = "emcp gateway",
        .instructions = "Each tool is DEVICE.TOOL: the tool TOOL of the device DEVICE behind an MQTT broker. "
                        "Devices come and go; a call to one that is offline answers so.",
        .list_ttl_ms = 0,
        .cache_scope = MCP_CACHE_PRIVATE,
        .list_page_size = 0,
    };
    if (mcp_server_init(&server, &cfg) != 0 || mcp_server_set_policy(&server, tool_policy, NULL) != 0 ||
        mcp_server_set_audit(&server, audit, audit_clock, NULL) != 0) {
        gw_log("cannot initialise the MCP server");
        return 1;
    }
    /* The core's tool table, sized here for --max-tools instead of its
     * MCP_MAX_TOOLS (allocated once and kept for the whole run; the core
     * allocates nothing). */
    mcp_tool_slot_t *slots = calloc(opt.max_tools, sizeof *slots);
    int src = slots != NULL ? mcp_server_set_tool_storage(&server, slots, opt.max_tools) : -MCP_ENOSPC;
    if (src != 0) {
        gw_log("cannot give the core %u tool slots (%d)", opt.max_tools, src);
        return 1;
    }
    /* Each tool is registered from the texts its device lists, and compiled
     * at registration into this storage (its tools/list entry and argument
     * programs): calls run the core's one interpreter, listing is a copy.
     * GW_PROGRAM_PER_TOOL bytes per slot, zero pages until a tool uses them. */
    void *programs = calloc(opt.max_tools, GW_PROGRAM_PER_TOOL);
    int grc = programs != NULL ? mcp_server_set_program_storage(&server, programs,
                                                                (size_t)opt.max_tools * GW_PROGRAM_PER_TOOL)
                               : -MCP_ENOSPC;
    if (grc != 0) {
        gw_log("cannot give the core program storage (%d)", grc);
        return 1;
    }
    mcp_usage_t usage_now;
    if (mcp_server_usage(&server, &usage_now) != 0) {
        gw_log("cannot read the MCP server's usage");
        return 1;
    }
    size_t max_tools = usage_now.tools.capacity;
    FILE *rnd = fopen("/dev/urandom", "rb");
    if (rnd == NULL || fread(&corr_nonce, sizeof corr_nonce, 1, rnd) != 1) {
        corr_nonce = now_ms() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL);
    }
    if (rnd != NULL) {
        fclose(rnd);
    }
    /* Non-blocking: a full pipe already wakes the serving thread, and a
     * writer holding the lock must never wait for it. */
    if (pipe(wake_pipe) != 0 || fcntl(wake_pipe[0], F_SETFL, O_NONBLOCK) != 0 ||
        fcntl(wake_pipe[1], F_SETFL, O_NONBLOCK) != 0) {
        gw_log("cannot create the wake pipe");
        return 1;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&reply_cond, &ca);
    pthread_cond_init(&discovery_cond, NULL);
    signal(SIGPIPE, SIG_IGN);

    pthread_t disc;
    if (pthread_create(&disc, NULL, discovery_main, NULL) != 0) {
        gw_log("cannot start the discovery thread");
        return 1;
    }
    if (mqtt_setup() != 0) {
        return 1;
    }
    gw_log("broker %s:%d%s, prefix %s, call timeout %u ms, up to %zu tools (--max-tools)", opt.mqtt.host,
           opt.mqtt.port,
           (opt.mqtt.cafile || opt.mqtt.capath) ? " with TLS" : "", opt.prefix, opt.timeout_ms, max_tools);
    initial_discovery();
    apply_pending();

    int rc = opt.http && opt.stdio ? serve_both() : opt.http ? serve_http() : serve_stdio();
    /* Not destroyed: the discovery thread may still be publishing with it
     * until the process exits. */
    mqtt_stopping = true;
    mosquitto_disconnect_v5(mosq, 0, NULL);
    gw_log("%s; stopped", stop_requested ? "signalled" : "end of input");
    return rc == 0 ? 0 : 1;
}
