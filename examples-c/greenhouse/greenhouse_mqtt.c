/*
 * greenhouse-mqtt: the greenhouse gateway as an MCP server behind an MQTT 5
 * broker (docs/bindings/mqtt.md).
 *
 *   greenhouse-mqtt --server-id ID [--broker HOST:PORT] [--share GROUP]
 *                   [--wind-lock] [--prefix P] [--client-id ID] [--keepalive S]
 *                   [--username U] [--password-env VAR]
 *                   [--cafile F] [--capath D] [--cert F] [--key F]
 *                   [--tls-version V] [--tls-insecure]
 *                   [--policy PRINCIPAL=TOOL[,TOOL...]]... [--list-page-size N]
 *
 * Requests on {prefix}/{ID}/request, presence on {prefix}/{ID}/presence
 * (per instance below it with --share). Logs and the audit lines of the
 * tools go to stderr. SIGINT/SIGTERM publish offline presence and stop.
 */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emcp.h"
#include "emcp_clock.h"
#include "emcp_mqtt.h"
#include "emcp_mqtt_mosq.h"
#include "greenhouse.h"
#include "greenhouse_mqtt_id.h"

static mcp_server_t server;
static emcp_mqtt_t binding;
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

static void usage(FILE *to, const char *prog)
{
    fprintf(to,
            "usage: %s --server-id ID [options]\n"
            "  Serves the greenhouse gateway over MCP through an MQTT 5 broker.\n"
            "  --server-id ID       id in the topics, [A-Za-z0-9_.-] (required)\n"
            "  --share GROUP        join the shared subscription $share/GROUP/...\n"
            "  --prefix P           first topic level(s) (default mcp)\n"
            "  --client-id ID       MQTT client id (default ID-HOSTNAME-PID)\n"
            "  --wind-lock          start with the wind lock on\n"
            "  --list-page-size N   at most N tools per tools/list page (default: all that fit)\n"
            EMCP_MQTT_MOSQ_USAGE
            "  The MQTT username is also the principal of the requests (default anonymous).\n"
            GREENHOUSE_POLICY_USAGE GREENHOUSE_DURABLE_USAGE,
            prog);
}

int main(int argc, char **argv)
{
    const char *prog = (argc > 0 && argv[0] != NULL) ? argv[0] : "greenhouse-mqtt";
    emcp_mqtt_mosq_options_t opt;
    memset(&opt, 0, sizeof opt);
    opt.host = "127.0.0.1";
    opt.port = 1883;
    const char *server_id = NULL;
    const char *share = NULL;
    const char *prefix = NULL;
    bool wind_lock = false;

    if (greenhouse_durable_options(prog, &argc, argv) < 0) {
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout, prog);
            return 0;
        }
        int brc = emcp_mqtt_mosq_parse_option(&opt, argc, argv, &i, stderr);
        if (brc < 0) {
            return 2;
        }
        if (brc > 0) {
            continue;
        }
        if (strcmp(a, "--wind-lock") == 0) {
            wind_lock = true;
            continue;
        }
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (v == NULL) {
            fprintf(stderr, "%s: '%s' needs a value or is unknown\n", prog, a);
            usage(stderr, prog);
            return 2;
        }
        i++;
        if (strcmp(a, "--server-id") == 0) {
            server_id = v;
        } else if (strcmp(a, "--share") == 0) {
            share = v;
        } else if (strcmp(a, "--prefix") == 0) {
            prefix = v;
        } else if (strcmp(a, "--list-page-size") == 0) {
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (end == v || *end != '\0' || n < 1 || n > 1000) {
                fprintf(stderr, "%s: --list-page-size wants 1 to 1000\n", prog);
                return 2;
            }
            greenhouse_set_list_page_size((uint32_t)n);
        } else if (strcmp(a, "--policy") == 0) {
            const char *why = NULL;
            if (greenhouse_add_policy(v, &why) != 0) {
                fprintf(stderr, "%s: --policy %s: %s\n", prog, v, why);
                return 2;
            }
        } else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
            usage(stderr, prog);
            return 2;
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

    /* A request's Correlation Data keys a set_vent without idempotency_key. */
    greenhouse_durable_retry_keys();
    const mcp_store_t *store = NULL;
    int rc = greenhouse_setup(prog, &server, wind_lock, &store);
    if (rc != 0) {
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
    if (store != NULL) {
        rc = emcp_mqtt_set_store(&binding, store, emcp_monotonic_ms());
        if (rc < 0) {
            fprintf(stderr, "%s: cannot read the durable store (%d)\n", prog, rc);
            return 1;
        }
        fprintf(stderr, "%s: %d idempotency records restored\n", prog, rc);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal; /* no SA_RESTART: wake the loop's select */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    opt.stop = &stop_requested;
    opt.log = stderr;
    fprintf(stderr, "%s: serving MCP on %s via %s:%d%s (subscription %s, presence %s, principal %s, wind lock %s)\n",
            prog, emcp_mqtt_request_topic(&binding), opt.host, opt.port,
            (opt.cafile || opt.capath) ? " with TLS" : "", emcp_mqtt_subscription(&binding),
            emcp_mqtt_presence_topic(&binding), opt.username ? opt.username : "anonymous",
            wind_lock ? "on" : "off");
    rc = emcp_mqtt_mosq_run(&binding, &opt);
    if (rc != 0) {
        fprintf(stderr, "%s: stopped (%d)\n", prog, rc);
        return 1;
    }
    return 0;
}
