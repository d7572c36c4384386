/*
 * wolfSSL's configuration for the thumbv7em size measurement of the
 * post-quantum profile (scripts/pqc-report, docs/pqc.md): a TLS 1.3 client
 * only, as a device would build it. Bare metal: no file system, no sockets
 * (I/O through callbacks), one thread, the random block from the platform.
 * Key exchange X25519 (and P-256, the certificate's curve); with
 * EMCP_FW_MLKEM also ML-KEM-768 and the hybrid X25519MLKEM768. The
 * certificate is ECDSA P-256 with SHA-256, AES-GCM the cipher; no RSA, no
 * DH, no TLS 1.2. Certificate dates are not checked (no clock: NO_ASN_TIME).
 */
#ifndef EMCP_PQC_FW_USER_SETTINGS_H
#define EMCP_PQC_FW_USER_SETTINGS_H

/* Platform */
#define SINGLE_THREADED
#define NO_FILESYSTEM
#define WOLFSSL_USER_IO
#define WOLFSSL_NO_SOCK
#define NO_WRITEV
#define NO_DEV_RANDOM
#define NO_ASN_TIME
#define NO_ERROR_STRINGS
#define NO_SESSION_CACHE
int emcp_fw_random_block(unsigned char *out, unsigned int len);
#define CUSTOM_RAND_GENERATE_BLOCK emcp_fw_random_block

/* TLS 1.3 client */
#define WOLFSSL_TLS13
#define WOLFSSL_NO_TLS12
#define NO_OLD_TLS
#define NO_WOLFSSL_SERVER
#define HAVE_TLS_EXTENSIONS
#define HAVE_SUPPORTED_CURVES
#define HAVE_SNI
#define HAVE_HKDF

/* Algorithms */
#define HAVE_ECC
#define ECC_TIMING_RESISTANT
#define HAVE_CURVE25519
#define CURVE25519_SMALL
#define HAVE_AESGCM
#define GCM_SMALL
#define WOLFSSL_SP_MATH_ALL
#define WOLFSSL_SP_SMALL
#define TFM_TIMING_RESISTANT
#define NO_RSA
#define NO_DH
#define NO_DSA
#define NO_MD4
#define NO_MD5
#define NO_RC4
#define NO_DES3
#define NO_PSK

#ifdef EMCP_FW_MLKEM
#define WOLFSSL_HAVE_MLKEM
#define WOLFSSL_WC_MLKEM
#define WOLFSSL_PQC_HYBRIDS
#define WOLFSSL_NO_ML_KEM_512
#define WOLFSSL_NO_ML_KEM_1024
#define WOLFSSL_SHA3
#define WOLFSSL_SHAKE128
#define WOLFSSL_SHAKE256
#define WOLFSSL_MLKEM_SMALL
#endif

#endif /* EMCP_PQC_FW_USER_SETTINGS_H */
