/*
 * The peak heap of greenhouse-http's own wolfSSL engine
 * (bindings/http/emcp_http_wolfssl.c), for scripts/pqc-report's HTTP rows:
 * linked into emcp-pqc-greenhouse-http, which is greenhouse-http built from
 * its unchanged sources plus this file (tests/pqc/CMakeLists.txt).
 *
 * Before main, the counting allocators of emcp_pqc_heap.h are installed
 * (before the engine's wolfSSL_Init). The link wraps wolfSSL_new and
 * wolfSSL_free (-Wl,--wrap: the linker sends the engine's calls to the
 * __wrap_ functions below, which call wolfSSL's as __real_; those names are
 * the linker's convention): each connection's WOLFSSL object is made after a
 * mark, and when it is freed the most wolfSSL held above the mark is that
 * connection's peak, the WOLFSSL object included and the WOLFSSL_CTX not
 * (as emcp-pqc-relay and emcp-pqc-terminator count). The server is one
 * thread; with more than one connection open at once the peaks would mix,
 * so the line says so. At exit, on stderr:
 *
 *   emcp-pqc-heap: connections=N heap_peak_median=BYTES overlapped=0|1
 */
#include "emcp_pqc_heap.h"

#include <wolfssl/ssl.h>

#include <stdio.h>
#include <stdlib.h>

WOLFSSL *__real_wolfSSL_new(WOLFSSL_CTX *ctx);
void __real_wolfSSL_free(WOLFSSL *ssl);
WOLFSSL *__wrap_wolfSSL_new(WOLFSSL_CTX *ctx);
void __wrap_wolfSSL_free(WOLFSSL *ssl);

#define EMCP_PQC_ENGINE_MAX_CONNS 4096

static long emcp_pqc_engine_peaks[EMCP_PQC_ENGINE_MAX_CONNS];
static int emcp_pqc_engine_n;
static int emcp_pqc_engine_open;
static int emcp_pqc_engine_overlapped;

WOLFSSL *__wrap_wolfSSL_new(WOLFSSL_CTX *ctx)
{
    if (emcp_pqc_engine_open > 0) {
        emcp_pqc_engine_overlapped = 1;
    } else {
        emcp_pqc_heap_mark();
    }
    WOLFSSL *ssl = __real_wolfSSL_new(ctx);
    emcp_pqc_engine_open += ssl != NULL;
    return ssl;
}

void __wrap_wolfSSL_free(WOLFSSL *ssl)
{
    __real_wolfSSL_free(ssl);
    if (ssl != NULL && emcp_pqc_engine_open > 0 && --emcp_pqc_engine_open == 0 &&
        emcp_pqc_engine_n < EMCP_PQC_ENGINE_MAX_CONNS) {
        emcp_pqc_engine_peaks[emcp_pqc_engine_n++] = emcp_pqc_heap_peak();
    }
}

static int emcp_pqc_engine_cmp(const void *a, const void *b)
{
    long x = *(const long *)a;
    long y = *(const long *)b;
    return (x > y) - (x < y);
}

static void emcp_pqc_engine_report(void)
{
    long median = 0;
    int n = emcp_pqc_engine_n;
    if (n > 0) {
        qsort(emcp_pqc_engine_peaks, (size_t)n, sizeof emcp_pqc_engine_peaks[0], emcp_pqc_engine_cmp);
        median = n % 2 ? emcp_pqc_engine_peaks[n / 2]
                       : (emcp_pqc_engine_peaks[n / 2 - 1] + emcp_pqc_engine_peaks[n / 2]) / 2;
    }
    fprintf(stderr, "emcp-pqc-heap: connections=%d heap_peak_median=%ld overlapped=%d\n", n, median,
            emcp_pqc_engine_overlapped);
}

__attribute__((constructor)) static void emcp_pqc_engine_init(void)
{
    if (emcp_pqc_heap_install() != 0) {
        fprintf(stderr, "emcp-pqc-heap: wolfSSL_SetAllocators failed\n");
        exit(1);
    }
    atexit(emcp_pqc_engine_report);
}
