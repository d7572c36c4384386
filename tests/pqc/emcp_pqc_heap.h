/*
 * Peak heap of the TLS engine, for the post-quantum profile's test programs
 * (emcp-pqc-relay, emcp-pqc-terminator; scripts/pqc-report). wolfSSL takes
 * every allocation through wolfSSL_SetAllocators(); these hooks keep the
 * size in a header before each block and count, per thread, the bytes
 * wolfSSL holds and the most it held since emcp_pqc_heap_mark(). One
 * connection's handshake runs on one thread in both programs, so
 * emcp_pqc_heap_peak() after it is that handshake's peak heap, the WOLFSSL
 * object included (the WOLFSSL_CTX, made before, is not).
 */
#ifndef EMCP_PQC_HEAP_H
#define EMCP_PQC_HEAP_H

#include <wolfssl/options.h>
#include <wolfssl/wolfcrypt/memory.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* A header that keeps the caller's block aligned as malloc's would be. */
#define EMCP_PQC_HEAP_HDR (sizeof(max_align_t))

static _Thread_local long emcp_pqc_heap_cur;  /* bytes held by blocks allocated on this thread */
static _Thread_local long emcp_pqc_heap_top;  /* the most since the mark */
static _Thread_local long emcp_pqc_heap_base; /* emcp_pqc_heap_cur at the mark */

static void emcp_pqc_heap_add(long n)
{
    emcp_pqc_heap_cur += n;
    if (emcp_pqc_heap_cur > emcp_pqc_heap_top) {
        emcp_pqc_heap_top = emcp_pqc_heap_cur;
    }
}

static void *emcp_pqc_heap_malloc(size_t size)
{
    unsigned char *p = malloc(EMCP_PQC_HEAP_HDR + size);
    if (p == NULL) {
        return NULL;
    }
    memcpy(p, &size, sizeof size);
    emcp_pqc_heap_add((long)size);
    return p + EMCP_PQC_HEAP_HDR;
}

static void emcp_pqc_heap_free(void *ptr)
{
    if (ptr != NULL) {
        unsigned char *p = (unsigned char *)ptr - EMCP_PQC_HEAP_HDR;
        size_t size;
        memcpy(&size, p, sizeof size);
        emcp_pqc_heap_cur -= (long)size;
        free(p);
    }
}

static void *emcp_pqc_heap_realloc(void *ptr, size_t size)
{
    if (ptr == NULL) {
        return emcp_pqc_heap_malloc(size);
    }
    unsigned char *p = (unsigned char *)ptr - EMCP_PQC_HEAP_HDR;
    size_t old;
    memcpy(&old, p, sizeof old);
    unsigned char *q = realloc(p, EMCP_PQC_HEAP_HDR + size);
    if (q == NULL) {
        return NULL;
    }
    memcpy(q, &size, sizeof size);
    emcp_pqc_heap_cur -= (long)old;
    emcp_pqc_heap_add((long)size);
    return q + EMCP_PQC_HEAP_HDR;
}

/* Before wolfSSL_Init(): every wolfSSL allocation is counted from then on. */
static int emcp_pqc_heap_install(void)
{
    return wolfSSL_SetAllocators(emcp_pqc_heap_malloc, emcp_pqc_heap_free, emcp_pqc_heap_realloc);
}

/* Starts a measurement on this thread. */
static void emcp_pqc_heap_mark(void)
{
    emcp_pqc_heap_base = emcp_pqc_heap_cur;
    emcp_pqc_heap_top = emcp_pqc_heap_cur;
}

/* The most wolfSSL held on this thread since the mark, beyond what it held then. */
static long emcp_pqc_heap_peak(void)
{
    return emcp_pqc_heap_top - emcp_pqc_heap_base;
}

#endif /* EMCP_PQC_HEAP_H */
