/*
 * greenhouse-coremqtt: the greenhouse gateway behind an MQTT 5 broker through
 * coreMQTT v5 (the emcp_mqtt_core shim) on a plain host: one thread, the
 * coreMQTT transport interface over POSIX sockets (transport_posix.c). The
 * command line is greenhouse-mqtt's without the TLS options (TLS belongs to
 * the transport, which is plain TCP here):
 *
 *   greenhouse-coremqtt --server-id ID [--broker HOST:PORT] [--share GROUP]
 *                       [--wind-lock] [--prefix P] [--client-id ID]
 *                       [--keepalive S] [--username U] [--password-env VAR]
 *                       [--policy PRINCIPAL=TOOL[,TOOL...]]...
 *
 * Logs and the audit lines of the tools go to stderr. SIGINT/SIGTERM publish
 * offline presence and stop.
 *
 * Built with GREENHOUSE_COREMQTT_WOLFSSL (greenhouse-coremqtt-wolfssl, when
 * the build has wolfSSL: EMCP_HTTP_TLS=wolfssl), --tls-ca FILE switches the
 * transport to TLS 1.3 on wolfSSL (transport_wolfssl.c) with the
 * key-exchange groups of --tls-groups (default X25519MLKEM768) and the name
 * of --tls-server-name (default the broker's host): the post-quantum profile
 * (docs/pqc.md).
 *
 * Built with GREENHOUSE_COREMQTT_FREERTOS (greenhouse-coremqtt-freertos, when
 * FREERTOS_KERNEL_PATH is given), the same gateway runs inside one FreeRTOS
 * task on the POSIX simulator port: the clock is the tick count, the shim's
 * sleeps are vTaskDelay, and the transport's 10 ms waits return 0 when the
 * port's tick signal interrupts them.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "emcp.h"
#include "emcp_clock.h"
#include "emcp_mqtt.h"
#include "emcp_mqtt_core.h"
#include "greenhouse.h"
#include "greenhouse_mqtt_id.h"
#include "transport_posix.h"
#ifdef GREENHOUSE_COREMQTT_WOLFSSL
#include "transport_wolfssl.h"
#endif
#ifdef GREENHOUSE_COREMQTT_FREERTOS
#include "FreeRTOS.h"
#include "freertos_run.h"
#include "task.h"
#endif

static mcp_server_t server;
static emcp_mqtt_t binding;
static emcp_mqtt_core_t shim;
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void log_line(void *user, const char *msg)
{
    FILE *f = user;
    fprintf(f, "%s\n", msg);
    fflush(f);
}

/* The clock of rate limits and keep-alive. On hardware a FreeRTOS build
 * would return xTaskGetTickCount() in ms; the POSIX simulator's tick comes
 * from SIGALRM and falls behind the wall clock when signals are missed under
 * load (about 1.8 s of ticks over 2 s of wall time in the MQTT tests), so
 * the simulator build keeps the host's monotonic clock. */
static uint32_t now_ms(void)
{
    return (uint32_t)emcp_monotonic_ms();
}

#ifdef GREENHOUSE_COREMQTT_FREERTOS
static void sleep_ms(unsigned ms)
{
    TickType_t ticks = pdMS_TO_TICKS(ms);
    vTaskDelay(ticks > 0 ? ticks : 1);
}

void vAssertCalled(const char *file, unsigned long line)
{
    fprintf(stderr, "FreeRTOS assertion failed at %s:%lu\n", file, line);
    abort();
}
#else
static void sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    nanosleep(&ts, NULL);
}
#endif

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "usage: %s --server-id ID [options]\n"
            "  Serves the greenhouse gateway over MCP through an MQTT 5 broker (coreMQTT v5).\n"
            "  --broker HOST:PORT   broker address (default 127.0.0.1:1883)\n"
            "  --server-id ID       id in the topics, [A-Za-z0-9_.-] (required)\n"
            "  --share GROUP        join the shared subscription $share/GROUP/...\n"
            "  --prefix P           first topic level(s) (default mcp)\n"
            "  --client-id ID       MQTT client id (default ID-HOSTNAME-PID)\n"
            "  --keepalive S        keep-alive in seconds, 5-65535 (default %d)\n"
            "  --wind-lock          start with the wind lock on\n"
            "  --username U         MQTT username (also the principal; default anonymous)\n"
            "  --password-env VAR   read the MQTT password from environment variable VAR\n"
#ifdef GREENHOUSE_COREMQTT_WOLFSSL
            "  --tls-ca FILE        TLS 1.3 on wolfSSL: the broker's certificate must chain to FILE\n"
            "  --tls-groups G[:G]   key-exchange groups offered, the first with a key share: X25519,\n"
            "                       X25519MLKEM768, SecP256r1MLKEM768, ML-KEM-768, secp256r1\n"
            "                       (default X25519MLKEM768)\n"
            "  --tls-server-name N  name the certificate must carry, also the SNI (default the broker host)\n"
#endif
            GREENHOUSE_POLICY_USAGE,
            prog, EMCP_MQTT_CORE_KEEPALIVE_S);
}

/* Splits HOST:PORT (the last colon). */
static bool parse_broker(char *arg, const char **host, int *port)
{
    char *colon = strrchr(arg, ':');
    if (colon == NULL) {
        *host = arg;
        return arg[0] != '\0';
    }
    *colon = '\0';
    char *end = NULL;
    long p = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || *end != '\0' || p <= 0 || p > 65535 || arg[0] == '\0') {
        return false;
    }
    *host = arg;
    *port = (int)p;
    return true;
}

static int run(int argc, char **argv)
{
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : "greenhouse-coremqtt";
    emcp_mqtt_core_options_t opt;
    memset(&opt, 0, sizeof opt);
#ifdef GREENHOUSE_COREMQTT_WOLFSSL
    static emcp_core_wolfssl_t tls = {.net = {.host = "127.0.0.1", .port = 1883, .fd = -1},
                                      .groups = "X25519MLKEM768"};
    NetworkContext_t *net_ctx = &tls.net;
#else
    static NetworkContext_t plain_ctx = {.host = "127.0.0.1", .port = 1883, .fd = -1};
    NetworkContext_t *net_ctx = &plain_ctx;
#endif
    const char *server_id = NULL;
    const char *share = NULL;
    const char *prefix = NULL;
    bool wind_lock = false;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        bool takes_value = true;
        if (strcmp(a, "--wind-lock") == 0) {
            wind_lock = true;
            takes_value = false;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, prog);
            return 0;
#ifdef GREENHOUSE_COREMQTT_WOLFSSL
        } else if (v != NULL && strcmp(a, "--tls-ca") == 0) {
            tls.ca_file = v;
        } else if (v != NULL && strcmp(a, "--tls-groups") == 0) {
            tls.groups = v;
        } else if (v != NULL && strcmp(a, "--tls-server-name") == 0) {
            tls.server_name = v;
#endif
        } else if (strncmp(a, "--tls", 5) == 0 || strcmp(a, "--cafile") == 0 || strcmp(a, "--capath") == 0 ||
                   strcmp(a, "--cert") == 0 || strcmp(a, "--key") == 0) {
            fprintf(stderr, "%s: %s: TLS belongs to coreMQTT's transport, and this one is plain TCP "
                            "(use greenhouse-mqtt for TLS)\n", prog, a);
            return 2;
        } else if (v == NULL) {
            fprintf(stderr, "%s: '%s' needs a value or is unknown\n", prog, a);
            usage(stderr, prog);
            return 2;
        } else if (strcmp(a, "--broker") == 0) {
            if (!parse_broker(argv[i + 1], &net_ctx->host, &net_ctx->port)) {
                fprintf(stderr, "%s: --broker wants HOST:PORT\n", prog);
                return 2;
            }
        } else if (strcmp(a, "--server-id") == 0) {
            server_id = v;
        } else if (strcmp(a, "--share") == 0) {
            share = v;
        } else if (strcmp(a, "--prefix") == 0) {
            prefix = v;
        } else if (strcmp(a, "--client-id") == 0) {
            opt.client_id = v;
        } else if (strcmp(a, "--keepalive") == 0) {
            char *end = NULL;
            long k = strtol(v, &end, 10);
            if (end == v || *end != '\0' || k < 5 || k > 65535) {
                fprintf(stderr, "%s: --keepalive wants 5 to 65535 seconds\n", prog);
                return 2;
            }
            opt.keepalive_s = (unsigned)k;
        } else if (strcmp(a, "--policy") == 0) {
            const char *why = NULL;
            if (greenhouse_add_policy(v, &why) != 0) {
                fprintf(stderr, "%s: --policy %s: %s\n", prog, v, why);
                return 2;
            }
        } else if (strcmp(a, "--username") == 0) {
            opt.username = v;
        } else if (strcmp(a, "--password-env") == 0) {
            opt.password = getenv(v);
            if (opt.password == NULL) {
                fprintf(stderr, "%s: environment variable %s is not set\n", prog, v);
                return 2;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
            usage(stderr, prog);
            return 2;
        }
        if (takes_value) {
            i++;
        }
    }
    if (server_id == NULL) {
        fprintf(stderr, "%s: --server-id is required\n", prog);
        usage(stderr, prog);
        return 2;
    }

    /* Each instance needs its own client id (greenhouse_mqtt_id.h says why). */
    static char client_id[EMCP_MQTT_NAME_MAX + 1];
    if (opt.client_id == NULL) {
        greenhouse_mqtt_client_id(client_id, sizeof client_id, server_id);
        opt.client_id = client_id;
    }

    int rc = greenhouse_register(&server, wind_lock);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot set up the server (%d)\n", prog, rc);
        return 1;
    }
    emcp_mqtt_config_t cfg = {
        .prefix = prefix,
        .server_id = server_id,
        .share_group = share,
        .instance_id = opt.client_id,
        .name = "greenhouse-gw",
        .version = "0.4.0",
        .log = log_line,
        .log_user = stderr,
    };
    rc = emcp_mqtt_init(&binding, &server, &cfg);
    if (rc != 0) {
        fprintf(stderr,
                "%s: bad topic settings (%d): ids are 1-%d characters of [A-Za-z0-9_.-], "
                "topics at most %d bytes\n",
                prog, rc, EMCP_MQTT_NAME_MAX, EMCP_MQTT_TOPIC_MAX);
        return 2;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    static char broker[300];
    snprintf(broker, sizeof broker, "%s:%d", net_ctx->host, net_ctx->port);
    opt.broker = broker;
    opt.stop = &stop_requested;
    opt.now_ms = now_ms;
    opt.sleep_ms = sleep_ms;
    opt.log = log_line;
    opt.log_user = stderr;
    emcp_mqtt_core_net_t net = {
        .connect = emcp_core_posix_connect,
        .disconnect = emcp_core_posix_disconnect,
        .user = net_ctx,
    };
#ifdef GREENHOUSE_COREMQTT_WOLFSSL
    if (tls.ca_file != NULL) {
        const char *why = NULL;
        if (tls.server_name == NULL) {
            tls.server_name = net_ctx->host;
        }
        tls.log = log_line;
        tls.log_user = stderr;
        if (emcp_core_wolfssl_init(&tls, &why) != 0) {
            fprintf(stderr, "%s: --tls-ca %s, --tls-groups %s: %s\n", prog, tls.ca_file, tls.groups, why);
            return 2;
        }
        net.connect = emcp_core_wolfssl_connect;
        net.disconnect = emcp_core_wolfssl_disconnect;
        net.user = &tls;
    }
#endif
    fprintf(stderr, "%s: serving MCP on %s via %s with coreMQTT (subscription %s, presence %s, principal %s, "
                    "wind lock %s)\n",
            prog, emcp_mqtt_request_topic(&binding), broker, emcp_mqtt_subscription(&binding),
            emcp_mqtt_presence_topic(&binding), opt.username ? opt.username : "anonymous",
            wind_lock ? "on" : "off");
    rc = emcp_mqtt_core_run(&shim, &binding, &opt, &net);
    if (rc != 0) {
        fprintf(stderr, "%s: stopped (%d)\n", prog, rc);
        return 1;
    }
    return 0;
}

#ifdef GREENHOUSE_COREMQTT_FREERTOS
/* The gateway's task: all of run() (parsing, set-up, serving), then the
 * scheduler stops and main() returns its status (freertos_run.h: no exit()
 * from inside the task). */
#define GATEWAY_STACK_WORDS 65536

static int task_argc;
static char **task_argv;

static void gateway_task(void *arg)
{
    (void)arg;
    freertos_finish(run(task_argc, task_argv));
}

int main(int argc, char **argv)
{
    task_argc = argc;
    task_argv = argv;
    return freertos_run(gateway_task, "mqtt", GATEWAY_STACK_WORDS);
}
#else
int main(int argc, char **argv)
{
    return run(argc, argv);
}
#endif
