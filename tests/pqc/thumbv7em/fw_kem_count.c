/*
 * Instruction counts of the key exchanges on the Cortex-M4 (docs/pqc.md,
 * scripts/pqc-report): run under QEMU (mps2-an386) with `-icount shift=0`,
 * where every instruction takes 1 ns of virtual time, so SysTick on the
 * 25 MHz processor clock ticks once per 40 instructions
 * (examples-c/firmware/fw_count.h). The wolfSSL build is fw-mlkem's
 * (user_settings.h with EMCP_FW_MLKEM). One line per operation on the
 * semihosting console:
 *
 *   op=x25519_keygen instructions=N
 *   op=x25519_shared_secret instructions=N
 *   op=mlkem768_keygen instructions=N
 *   op=mlkem768_encapsulate instructions=N
 *   op=mlkem768_decapsulate instructions=N
 *
 * and exit status 0 when both sides of each exchange agree on the secret.
 */
#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/wolfcrypt/curve25519.h>
#include <wolfssl/wolfcrypt/random.h>
#include <wolfssl/wolfcrypt/wc_mlkem.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fw_count.h"

/* A fixed pseudo-random stream (xorshift32): the counts are the same every run. */
static uint32_t rand_state = 0x2545F491u;

int emcp_fw_random_block(unsigned char *out, unsigned int len);
int emcp_fw_random_block(unsigned char *out, unsigned int len)
{
    for (unsigned int i = 0; i < len; i++) {
        rand_state ^= rand_state << 13;
        rand_state ^= rand_state >> 17;
        rand_state ^= rand_state << 5;
        out[i] = (unsigned char)rand_state;
    }
    return 0;
}

static uint32_t mark;

static void start(void)
{
    mark = fw_count_now();
}

static void report(const char *op)
{
    uint32_t counts = fw_count_since(mark, fw_count_now());
    printf("op=%s instructions=%lu\n", op, (unsigned long)counts * FW_COUNT_UNIT);
}

static WC_RNG rng;
static curve25519_key alice, bob;
static MlKemKey kem;
static unsigned char ct[WC_ML_KEM_768_CIPHER_TEXT_SIZE];

int main(void)
{
    unsigned char s1[32], s2[32], k1[32], k2[32];
    word32 n1 = sizeof s1, n2 = sizeof s2;
    fw_count_start();
    if (wc_InitRng(&rng) != 0 || wc_curve25519_init(&alice) != 0 || wc_curve25519_init(&bob) != 0) {
        return 1;
    }
    start();
    int rc = wc_curve25519_make_key(&rng, 32, &alice);
    report("x25519_keygen");
    rc |= wc_curve25519_make_key(&rng, 32, &bob);
    start();
    rc |= wc_curve25519_shared_secret(&alice, &bob, s1, &n1);
    report("x25519_shared_secret");
    rc |= wc_curve25519_shared_secret(&bob, &alice, s2, &n2);
    if (rc != 0 || n1 != n2 || memcmp(s1, s2, n1) != 0) {
        printf("x25519: the two sides disagree (%d)\n", rc);
        return 2;
    }

    if (wc_MlKemKey_Init(&kem, WC_ML_KEM_768, NULL, INVALID_DEVID) != 0) {
        return 3;
    }
    start();
    rc = wc_MlKemKey_MakeKey(&kem, &rng);
    report("mlkem768_keygen");
    start();
    rc |= wc_MlKemKey_Encapsulate(&kem, ct, k1, &rng);
    report("mlkem768_encapsulate");
    start();
    rc |= wc_MlKemKey_Decapsulate(&kem, k2, ct, sizeof ct);
    report("mlkem768_decapsulate");
    if (rc != 0 || memcmp(k1, k2, sizeof k1) != 0) {
        printf("mlkem768: the two sides disagree (%d)\n", rc);
        return 4;
    }
    wc_MlKemKey_Free(&kem);
    wc_curve25519_free(&alice);
    wc_curve25519_free(&bob);
    wc_FreeRng(&rng);
    return 0;
}
