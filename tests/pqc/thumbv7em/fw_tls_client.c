/*
 * The program whose size scripts/pqc-report compares (docs/pqc.md): a TLS
 * 1.3 client on wolfSSL as a device would hold it (context, certificate
 * check against a CA, SNI, the key-exchange group, the handshake, one
 * application write and read), cross-built for thumbv7em. With
 * EMCP_FW_NO_TLS the same program without wolfSSL: the baseline whose size
 * is subtracted. It is linked, never run: the I/O callbacks talk to no one.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifndef EMCP_FW_NO_TLS
#include <wolfssl/wolfcrypt/settings.h>
#include <wolfssl/ssl.h>
#endif

/* The device's transport and entropy (a UART, a radio, a TRNG). */
static volatile uint8_t link_reg;
static volatile uint32_t trng_reg;

int emcp_fw_random_block(unsigned char *out, unsigned int len);
int emcp_fw_random_block(unsigned char *out, unsigned int len)
{
    for (unsigned int i = 0; i < len; i++) {
        out[i] = (unsigned char)trng_reg;
    }
    return 0;
}

static int link_recv(char *buf, int sz)
{
    for (int i = 0; i < sz; i++) {
        buf[i] = (char)link_reg;
    }
    return sz;
}

static int link_send(const char *buf, int sz)
{
    for (int i = 0; i < sz; i++) {
        link_reg = (uint8_t)buf[i];
    }
    return sz;
}

/* The CA certificate a device carries (DER; contents do not change the size). */
static const unsigned char ca_der[512] = {0x30};

#ifdef EMCP_FW_NO_TLS
int main(void)
{
    char buf[64];
    (void)emcp_fw_random_block((unsigned char *)buf, sizeof buf);
    (void)link_send((const char *)ca_der, (int)sizeof ca_der);
    (void)link_send("PING", 4);
    return link_recv(buf, (int)sizeof buf) > 0 ? 0 : 1;
}
#else
static int io_recv(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    (void)ssl;
    (void)ctx;
    return link_recv(buf, sz);
}

static int io_send(WOLFSSL *ssl, char *buf, int sz, void *ctx)
{
    (void)ssl;
    (void)ctx;
    return link_send(buf, sz);
}

int main(void)
{
    char buf[64];
    int rc = 1;
    (void)emcp_fw_random_block((unsigned char *)buf, sizeof buf);
    if (wolfSSL_Init() != WOLFSSL_SUCCESS) {
        return 1;
    }
    WOLFSSL_CTX *ctx = wolfSSL_CTX_new(wolfTLSv1_3_client_method());
    if (ctx != NULL &&
        wolfSSL_CTX_load_verify_buffer(ctx, ca_der, (long)sizeof ca_der, WOLFSSL_FILETYPE_ASN1) ==
            WOLFSSL_SUCCESS) {
        wolfSSL_CTX_set_verify(ctx, WOLFSSL_VERIFY_PEER, NULL);
        wolfSSL_SetIORecv(ctx, io_recv);
        wolfSSL_SetIOSend(ctx, io_send);
        WOLFSSL *ssl = wolfSSL_new(ctx);
#ifdef EMCP_FW_MLKEM
        int groups[] = {WOLFSSL_X25519MLKEM768};
#else
        int groups[] = {WOLFSSL_ECC_X25519};
#endif
        if (ssl != NULL && wolfSSL_set_groups(ssl, groups, 1) == WOLFSSL_SUCCESS &&
            wolfSSL_UseSNI(ssl, WOLFSSL_SNI_HOST_NAME, "broker", 6) == WOLFSSL_SUCCESS &&
            wolfSSL_check_domain_name(ssl, "broker") == WOLFSSL_SUCCESS && wolfSSL_connect(ssl) == WOLFSSL_SUCCESS &&
            wolfSSL_write(ssl, "PING", 4) == 4 && wolfSSL_read(ssl, buf, (int)sizeof buf) > 0) {
            rc = 0;
        }
        wolfSSL_shutdown(ssl);
        wolfSSL_free(ssl);
    }
    wolfSSL_CTX_free(ctx);
    wolfSSL_Cleanup();
    return rc;
}
#endif
