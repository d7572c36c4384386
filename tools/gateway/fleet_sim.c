/*
 * emcp-fleet-sim: many emcp devices in one process, for the fleet benchmark
 * (scripts/fleet-bench, docs/gateway.md). Each device is what greenhouse-mqtt
 * is: its own emcp core (mcp_server_t) with the greenhouse tools generated
 * from examples-c/greenhouse/greenhouse_tools.json (emcp_generate_tools), its
 * own MQTT binding (emcp_mqtt_t) and its own MQTT 5 connection through the
 * libmosquitto shim (emcp_mqtt_mosq_run), with retained presence and a Last
 * Will. One thread per device runs the shim's loop. The devices' state (the
 * vent) is per device; the readings are the greenhouse's fixed ones.
 *
 * Control on stdin, one command a line, answered on stdout:
 *   stop ID    the device stops cleanly (offline presence, DISCONNECT);
 *              answered "stopped ID" once its thread has ended
 *   start ID   a device with that id starts (new, or one stopped before);
 *              answered "started ID"
 * With --rich every device also offers sample_media, whose result holds every
 * kind of content block the result API writes (annotated text, image, audio,
 * resource_link, embedded text and binary resources) and structuredContent
 * with nested arrays, edge numbers and escapes, padded on request to near
 * the MQTT binding's response limit: what tests/gateway compares, through
 * the gateway and directly, for the result pass-through.
 * End of input or SIGINT/SIGTERM stops every device cleanly.
 */

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mosquitto.h>

#include "emcp.h"
#include "emcp_clock.h"
#include "emcp_mqtt.h"
#include "emcp_mqtt_mosq.h"
#include "greenhouse_tools.h" /* generated from greenhouse_tools.json */

#define SIM_NAME "emcp-fleet-sim"
#define SIM_MAX_DEVICES 4096
#define SIM_ID_MAX 40

struct sim_device {
    char id[SIM_ID_MAX + 1];
    char client_id[EMCP_MQTT_NAME_MAX + 1];
    mcp_server_t server;
    emcp_mqtt_t binding;
    emcp_mqtt_mosq_options_t opt;
    volatile sig_atomic_t stop;
    atomic_int vent_percent;
    uint64_t started_ms;
    pthread_t thread;
    bool running;
};

static struct sim_device *devices[SIM_MAX_DEVICES];
static int ndevices;
static volatile sig_atomic_t stop_all;
static emcp_mqtt_mosq_options_t base_opt;
static const char *prefix;
static bool verbose;
static unsigned vent_interval_ms = 2000;
/* --vent-max: set_vent's schema allows 0 to this (default 100, the tools
 * file's); another value gives the device a changed schema. */
static long vent_max = 100;
static char vent_schema[160];
static bool rich; /* --rich: sample_media too */

static void on_signal(int sig)
{
    (void)sig;
    stop_all = 1;
    for (int i = 0; i < ndevices; i++) {
        devices[i]->stop = 1;
    }
}

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "Usage: %s [--devices N] [--id-prefix S] [--prefix P] [--vent-interval-ms MS]\n"
            "       %*s [--rich] [--verbose] [broker options]\n"
            "\n"
            "  Serves N emcp devices from one process, for the fleet benchmark\n"
            "  (scripts/fleet-bench). Each device is a greenhouse-mqtt: its own emcp core\n"
            "  with the greenhouse tools (read_sensor, set_vent; generated from\n"
            "  examples-c/greenhouse/greenhouse_tools.json), its own MQTT binding and its\n"
            "  own MQTT 5 connection (libmosquitto) with retained presence and a Last Will,\n"
            "  each on its own thread. Device ids are S000, S001, ... (requests on\n"
            "  {P}/{id}/request, presence on {P}/{id}/presence).\n"
            "\n"
            "Options:\n"
            "  --devices N          devices to start, 0-%d (default 20)\n"
            "  --id-prefix S        device id prefix (default sim-)\n"
            "  --prefix P           first topic level(s) (default mcp)\n"
            "  --vent-interval-ms MS  set_vent's rate limit per device (default 2000)\n"
            "  --vent-max N         set_vent's schema allows percent 0 to N, 1-100\n"
            "                       (default 100; another value is a changed schema)\n"
            "  --rich               every device also offers sample_media: a result with\n"
            "                       every content block kind, annotations, nested arrays,\n"
            "                       edge numbers and escapes; pad (0-4000) adds that many\n"
            "                       bytes of text, to reach the response limit\n"
            "  --verbose            the shim's connection log on stderr\n"
            EMCP_MQTT_MOSQ_USAGE
            "  Client ids are ID-fleet-PID; --client-id is not taken.\n"
            "\n"
            "Control (stdin, one command a line; answered on stdout):\n"
            "  stop ID              stop that device cleanly (offline presence): \"stopped ID\"\n"
            "  start ID             start a device with that id: \"started ID\"\n"
            "  End of input, SIGINT or SIGTERM stops every device cleanly.\n",
            prog, (int)strlen(prog), "", SIM_MAX_DEVICES);
}

/* ---- The tools (per-device state in the callback's user pointer) -------- */

struct sensor {
    const char *id;
    int32_t tenths;
    const char *unit;
};

/* greenhouse.c's readings; soil1 has none yet. */
static const struct sensor sensors[] = {{"t1", 215, "C"}, {"t2", 341, "C"}, {"rh1", 620, "%"}};

static int refuse(mcp_result_t *r, const char *msg)
{
    return mcp_result_error(r, msg, strlen(msg));
}

static int read_sensor(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    struct sim_device *d = user;
    char id[16];
    size_t len = 0;
    if (mcp_arg_string(call, "sensor_id", id, sizeof id, &len) != 0 || strlen(id) != len) {
        return refuse(r, "unknown sensor_id");
    }
    const struct sensor *s = NULL;
    for (size_t i = 0; i < sizeof sensors / sizeof sensors[0]; i++) {
        if (strcmp(sensors[i].id, id) == 0) {
            s = &sensors[i];
        }
    }
    if (s == NULL) {
        return refuse(r, strcmp(id, "soil1") == 0 ? "no reading yet" : "unknown sensor_id");
    }
    const mcp_request_ctx_t *ctx = mcp_call_ctx(call);
    uint64_t now = ctx != NULL && ctx->now_ms != 0 ? ctx->now_ms : emcp_monotonic_ms();
    int64_t age_s = now > d->started_ms ? (int64_t)((now - d->started_ms + 500u) / 1000u) : 0;
    char text[64];
    int n = snprintf(text, sizeof text, "%ld.%ld %s, %llds old", (long)(s->tenths / 10),
                     (long)(s->tenths % 10), s->unit, (long long)age_s);
    int rc = mcp_result_text(r, text, (size_t)n);
    rc = rc ? rc : mcp_result_structured_begin(r);
    rc = rc ? rc : mcp_json_key(r, "value");
    rc = rc ? rc : mcp_json_decimal(r, s->tenths, 1);
    rc = rc ? rc : mcp_json_key(r, "unit");
    rc = rc ? rc : mcp_json_string(r, s->unit, strlen(s->unit));
    rc = rc ? rc : mcp_json_key(r, "age_s");
    rc = rc ? rc : mcp_json_int(r, age_s);
    return rc ? rc : mcp_result_structured_end(r);
}

static int set_vent(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    struct sim_device *d = user;
    int64_t percent = -1;
    if (mcp_arg_int(call, "percent", &percent) != 0 || percent < 0 || percent > 80) {
        /* The greenhouse asks for a confirmation above 80 %; the simulator
         * has no elicitation and refuses instead. */
        return refuse(r, "percent must be an integer 0-80 on a simulated device");
    }
    atomic_store(&d->vent_percent, (int)percent);
    char text[32];
    int n = snprintf(text, sizeof text, "vent set to %d%%", (int)percent);
    int rc = mcp_result_text(r, text, (size_t)n);
    rc = rc ? rc : mcp_result_structured_begin(r);
    rc = rc ? rc : mcp_json_key(r, "ok");
    rc = rc ? rc : mcp_json_bool(r, true);
    rc = rc ? rc : mcp_json_key(r, "percent");
    rc = rc ? rc : mcp_json_int(r, percent);
    return rc ? rc : mcp_result_structured_end(r);
}

/* --rich: every block kind and annotation the result API writes, nested
 * arrays, int64 and double edge numbers, escapes and non-ASCII text; `pad`
 * more bytes of text (a multi-byte pattern) in a last block. */
static int sample_media(const mcp_call_t *call, mcp_result_t *r, void *user)
{
    (void)user;
    int64_t pad = 0;
    if (mcp_arg_type(call, "pad") >= 0 && (mcp_arg_int(call, "pad", &pad) != 0 || pad < 0 || pad > 4000)) {
        return refuse(r, "pad must be an integer 0-4000");
    }
    static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0x0d, 'I', 'H', 'D', 'R', 0xff};
    static const uint8_t wav[] = {'R', 'I', 'F', 'F', 0x24, 0, 0, 0, 'W', 'A', 'V', 'E'};
    const mcp_annotations_t ann = {MCP_AUDIENCE_USER | MCP_AUDIENCE_ASSISTANT, 0.75, "2026-07-28T09:30:00Z"};
    const mcp_annotations_t user_only = {MCP_AUDIENCE_USER, 0.0, NULL};
    const mcp_annotations_t bare = {0, -1.0, NULL};
    static const char text[] = "Gew\xc3\xa4" "chshaus \xf0\x9f\x8c\xb1 \"zone a\" \\ \x01\x1f\t\xe2\x80\xa8 </b>";
    int rc = mcp_result_text_annotated(r, text, sizeof text - 1, &ann);
    rc = rc ? rc : mcp_result_image(r, png, sizeof png, "image/png", &user_only);
    rc = rc ? rc : mcp_result_audio(r, wav, sizeof wav, "audio/wav", &bare);
    rc = rc ? rc : mcp_result_resource_link(r, "greenhouse://zone/a/log", "zone a log", "text/plain",
                                            "the last hour", &ann);
    rc = rc ? rc : mcp_result_resource_text(r, "greenhouse://zone/a", "application/json", "{\"t\":21.5}", 11, NULL);
    rc = rc ? rc : mcp_result_resource_blob(r, "greenhouse://zone/a/raw", "application/octet-stream", wav, 5,
                                            &user_only);
    if (rc == 0 && pad > 0) {
        static const char unit[] = "\xc3\xa9t\xc3\xa9 "; /* 6 bytes */
        char *big = malloc((size_t)pad);
        if (big == NULL) {
            return -MCP_ENOBUFS;
        }
        for (int64_t i = 0; i < pad; i++) {
            big[i] = unit[i % 6];
        }
        /* Whole characters only: cut a trailing first half of the two-byte é. */
        size_t len = (size_t)pad;
        if ((unsigned char)big[len - 1] == 0xc3) {
            len--;
        }
        rc = mcp_result_text(r, big, len);
        free(big);
    }
    rc = rc ? rc : mcp_result_structured_begin(r);
    rc = rc ? rc : mcp_json_key(r, "matrix");
    rc = rc ? rc : mcp_json_array_begin(r);
    for (int row = 0; row < 3 && rc == 0; row++) {
        rc = mcp_json_array_begin(r);
        for (int col = 0; col < 3 && rc == 0; col++) {
            rc = mcp_json_decimal(r, (int64_t)(row * 3 + col) * 25 - 100, 2);
        }
        rc = rc ? rc : mcp_json_array_begin(r);
        rc = rc ? rc : mcp_json_array_end(r);
        rc = rc ? rc : mcp_json_array_end(r);
    }
    rc = rc ? rc : mcp_json_array_end(r);
    rc = rc ? rc : mcp_json_key(r, "edges");
    rc = rc ? rc : mcp_json_array_begin(r);
    rc = rc ? rc : mcp_json_int(r, INT64_MAX);
    rc = rc ? rc : mcp_json_int(r, INT64_MIN);
    rc = rc ? rc : mcp_json_decimal(r, INT64_MAX, 4);
    rc = rc ? rc : mcp_json_number(r, 0.1 + 0.2);
    rc = rc ? rc : mcp_json_number(r, 6.02214076e23);
    rc = rc ? rc : mcp_json_number(r, -1.5e-7);
    rc = rc ? rc : mcp_json_number(r, -0.0);
    rc = rc ? rc : mcp_json_number(r, 1e16);
    rc = rc ? rc : mcp_json_array_end(r);
    rc = rc ? rc : mcp_json_key(r, "labels");
    rc = rc ? rc : mcp_json_object_begin(r);
    rc = rc ? rc : mcp_json_key(r, "de");
    rc = rc ? rc : mcp_json_string(r, text, sizeof text - 1);
    rc = rc ? rc : mcp_json_key(r, "none");
    rc = rc ? rc : mcp_json_null(r);
    rc = rc ? rc : mcp_json_key(r, "ok");
    rc = rc ? rc : mcp_json_bool(r, true);
    rc = rc ? rc : mcp_json_object_end(r);
    return rc ? rc : mcp_result_structured_end(r);
}

static void log_line(void *user, const char *msg)
{
    struct sim_device *d = user;
    if (verbose) {
        fprintf(stderr, "%s: %s\n", d->id, msg);
    }
}

/* ---- Devices ------------------------------------------------------------ */

static int device_init(struct sim_device *d)
{
    const mcp_server_config_t config = {
        .name = "greenhouse-gw",
        .version = "0.4.0",
        .title = "Greenhouse gateway (simulated)",
        .list_ttl_ms = 3600000u,
        .cache_scope = MCP_CACHE_PUBLIC,
    };
    int rc = mcp_server_init(&d->server, &config);
    mcp_tool_t rs = greenhouse_tools[GREENHOUSE_TOOL_READ_SENSOR];
    mcp_tool_t sv = greenhouse_tools[GREENHOUSE_TOOL_SET_VENT];
    sv.min_interval_ms = vent_interval_ms;
    if (vent_max != 100) {
        /* The same tool from a schema text of its own: registered as text,
         * as a device whose firmware changed would list it. */
        snprintf(vent_schema, sizeof vent_schema,
                 "{\"type\":\"object\",\"required\":[\"percent\"],\"additionalProperties\":false,"
                 "\"properties\":{\"percent\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":%ld}}}",
                 vent_max);
        sv.input_schema = vent_schema;
        sv.listing = NULL;
        sv.input_program = NULL;
        sv.input_program_len = 0;
        sv.args = NULL;
        sv.args_len = 0;
        sv.idempotency_key = NULL;
        sv.schema_seal = 0;
    }
    rc = rc ? rc : mcp_server_add_tool(&d->server, &rs, read_sensor, d);
    rc = rc ? rc : mcp_server_add_tool(&d->server, &sv, set_vent, d);
    if (rc == 0 && rich) {
        static const mcp_tool_t media = {
            .name = "sample_media",
            .title = "A sample of every result part",
            .description = "Every content block kind with annotations, and structuredContent with nested "
                           "arrays and edge numbers (emcp-fleet-sim --rich).",
            .input_schema = "{\"type\":\"object\",\"properties\":{\"pad\":{\"type\":\"integer\","
                            "\"minimum\":0,\"maximum\":4000}},\"additionalProperties\":false}",
            .annotations = MCP_TOOL_READ_ONLY,
        };
        rc = mcp_server_add_tool(&d->server, &media, sample_media, d);
    }
    if (rc != 0) {
        return rc;
    }
    snprintf(d->client_id, sizeof d->client_id, "%s-fleet-%ld", d->id, (long)getpid());
    emcp_mqtt_config_t cfg = {
        .prefix = prefix,
        .server_id = d->id,
        .instance_id = d->client_id,
        .name = "greenhouse-gw",
        .version = "0.4.0",
        .log = log_line,
        .log_user = d,
    };
    rc = emcp_mqtt_init(&d->binding, &d->server, &cfg);
    d->opt = base_opt;
    d->opt.client_id = d->client_id;
    d->opt.stop = &d->stop;
    d->opt.log = verbose ? stderr : NULL;
    d->stop = stop_all;
    d->started_ms = emcp_monotonic_ms();
    return rc;
}

static void *device_thread(void *arg)
{
    struct sim_device *d = arg;
    int rc = emcp_mqtt_mosq_run(&d->binding, &d->opt);
    if (rc != 0) {
        fprintf(stderr, "%s: device %s stopped (%d)\n", SIM_NAME, d->id, rc);
    }
    return NULL;
}

static struct sim_device *find(const char *id)
{
    for (int i = 0; i < ndevices; i++) {
        if (strcmp(devices[i]->id, id) == 0) {
            return devices[i];
        }
    }
    return NULL;
}

static int start(const char *id)
{
    struct sim_device *d = find(id);
    if (d != NULL && d->running) {
        return 0;
    }
    if (d == NULL) {
        if (ndevices == SIM_MAX_DEVICES || strlen(id) > SIM_ID_MAX) {
            return -MCP_ENOBUFS;
        }
        d = calloc(1, sizeof *d);
        if (d == NULL) {
            return -MCP_ENOBUFS;
        }
        snprintf(d->id, sizeof d->id, "%s", id);
        devices[ndevices++] = d;
    }
    int rc = device_init(d);
    if (rc != 0) {
        fprintf(stderr, "%s: device %s: setup failed (%d)\n", SIM_NAME, id, rc);
        return rc;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 512u * 1024u);
    rc = pthread_create(&d->thread, &attr, device_thread, d);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        return -MCP_ENOBUFS;
    }
    d->running = true;
    return 0;
}

static void stop_device(struct sim_device *d)
{
    if (d->running) {
        d->stop = 1;
        pthread_join(d->thread, NULL);
        d->running = false;
    }
}

int main(int argc, char **argv)
{
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : SIM_NAME;
    long count = 20;
    const char *id_prefix = "sim-";
    base_opt.host = "127.0.0.1";
    base_opt.port = 1883;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, prog);
            return 0;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--client-id") == 0) {
            fprintf(stderr, "%s: --client-id is not taken (each device has its own)\n", prog);
            return 2;
        }
        int brc = emcp_mqtt_mosq_parse_option(&base_opt, argc, argv, &i, stderr);
        if (brc < 0) {
            return 2;
        }
        if (brc > 0) {
            continue;
        }
        if (strcmp(a, "--verbose") == 0) {
            verbose = true;
            continue;
        }
        if (strcmp(a, "--rich") == 0) {
            rich = true;
            continue;
        }
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (v == NULL) {
            fprintf(stderr, "%s: '%s' needs a value or is unknown\n", prog, a);
            usage(stderr, prog);
            return 2;
        }
        i++;
        char *end = NULL;
        if (strcmp(a, "--devices") == 0) {
            count = strtol(v, &end, 10);
            if (end == v || *end != '\0' || count < 0 || count > SIM_MAX_DEVICES) {
                fprintf(stderr, "%s: --devices wants 0 to %d\n", prog, SIM_MAX_DEVICES);
                return 2;
            }
        } else if (strcmp(a, "--id-prefix") == 0) {
            id_prefix = v;
        } else if (strcmp(a, "--prefix") == 0) {
            prefix = v;
        } else if (strcmp(a, "--vent-interval-ms") == 0) {
            long n = strtol(v, &end, 10);
            if (end == v || *end != '\0' || n < 0 || n > 3600000) {
                fprintf(stderr, "%s: --vent-interval-ms wants 0 to 3600000\n", prog);
                return 2;
            }
            vent_interval_ms = (unsigned)n;
        } else if (strcmp(a, "--vent-max") == 0) {
            vent_max = strtol(v, &end, 10);
            if (end == v || *end != '\0' || vent_max < 1 || vent_max > 100) {
                fprintf(stderr, "%s: --vent-max wants 1 to 100\n", prog);
                return 2;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
            usage(stderr, prog);
            return 2;
        }
    }
    if (strlen(id_prefix) + 6 > SIM_ID_MAX) {
        fprintf(stderr, "%s: --id-prefix is too long\n", prog);
        return 2;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    /* Held for the whole run: the shim's own init and cleanup per device
     * thread then only count up and down. */
    mosquitto_lib_init();
    for (long n = 0; n < count && !stop_all; n++) {
        char id[SIM_ID_MAX + 1];
        snprintf(id, sizeof id, "%s%03ld", id_prefix, n);
        if (start(id) != 0) {
            stop_all = 1;
        }
    }
    fprintf(stderr, "%s: %d devices on %s:%d, prefix %s\n", prog, ndevices, base_opt.host, base_opt.port,
            prefix ? prefix : "mcp");
    printf("running %d\n", ndevices);
    fflush(stdout);

    char line[128];
    while (!stop_all && fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "stop ", 5) == 0) {
            struct sim_device *d = find(line + 5);
            if (d != NULL) {
                stop_device(d);
            }
            printf("%s %s\n", d ? "stopped" : "unknown", line + 5);
        } else if (strncmp(line, "start ", 6) == 0) {
            int rc = start(line + 6);
            printf("%s %s\n", rc == 0 ? "started" : "failed", line + 6);
        } else if (line[0] != '\0') {
            printf("unknown command %s\n", line);
        }
        fflush(stdout);
    }
    stop_all = 1;
    for (int i = 0; i < ndevices; i++) {
        devices[i]->stop = 1;
    }
    for (int i = 0; i < ndevices; i++) {
        stop_device(devices[i]);
        free(devices[i]);
    }
    mosquitto_lib_cleanup();
    return 0;
}
