/*
 * The MCP CoAP binding on libcoap 4.3 (see emcp_coap.h and
 * docs/bindings/coap.md). Only the libcoap API and C11 are used here, so the
 * file is the same on Linux, Zephyr and lwIP.
 */

#include "emcp_coap.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef EMCP_COAP_WOLFSSL
/* libcoap on its wolfSSL backend (EMCP_COAP_LIBCOAP_WOLFSSL, the post-quantum
 * profile, docs/pqc.md). Its setup_pki_ssl() (4.3.5 up to at least
 * v4.3.5-11-g92b3db23) loads a COAP_PKI_KEY_PEM_BUF certificate from the
 * private key's buffer, so the server would hold no certificate and refuse the
 * first ClientHello (wolfSSL NO_PRIVATE_KEY, -317). The certificate is handed
 * over as DER (its DER_BUF path is right), the CA and the key stay PEM. One
 * buffer for the process: one certificate-mode binding per process. */
#include <wolfssl/options.h>
#include <wolfssl/ssl.h>
#include <wolfssl/wolfcrypt/asn_public.h>

#define EMCP_COAP_WOLFSSL_CERT_DER_MAX 4096
static unsigned char emcp_coap_wolfssl_cert_der[EMCP_COAP_WOLFSSL_CERT_DER_MAX];
#endif

_Static_assert(EMCP_COAP_RESPONSE_MAX >= MCP_MIN_RESPONSE_CAP,
               "EMCP_COAP_RESPONSE_MAX must be at least MCP_MIN_RESPONSE_CAP");
_Static_assert(EMCP_COAP_RESPONSE_SLOTS > 0, "EMCP_COAP_RESPONSE_SLOTS must be positive");
_Static_assert(EMCP_COAP_REQUEST_MAX > 0, "EMCP_COAP_REQUEST_MAX must be positive");
_Static_assert(EMCP_COAP_PKI_PRINCIPALS > 0, "EMCP_COAP_PKI_PRINCIPALS must be positive");

/* ---- Logging ------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void log_line(const emcp_coap_t *b, const char *fmt, ...)
{
    if (b->cfg.log == NULL) {
        return;
    }
    char line[EMCP_COAP_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    b->cfg.log(b->cfg.log_user, line);
}

/* ---- Small CoAP helpers ------------------------------------------------- */

/* The value of an unsigned-integer option, or -1 when absent. */
static long option_uint(const coap_pdu_t *pdu, coap_option_num_t num)
{
    coap_opt_iterator_t it;
    coap_opt_t *opt = coap_check_option(pdu, num, &it);
    if (opt == NULL) {
        return -1;
    }
    return (long)coap_decode_var_bytes(coap_opt_value(opt), coap_opt_length(opt));
}

static void add_uint_option(coap_pdu_t *pdu, coap_option_num_t num, unsigned int value)
{
    uint8_t buf[4];
    coap_add_option(pdu, num, coap_encode_var_safe(buf, sizeof buf, value), buf);
}

/* A transport-level failure: code, optional extra option, a short
 * human-readable diagnostic payload (RFC 7252 section 5.5.2: no
 * Content-Format). Options must go in ascending order before the payload. */
static void reply_diag(coap_pdu_t *resp, coap_pdu_code_t code, coap_option_num_t opt,
                       unsigned int opt_value, const char *diag)
{
    coap_pdu_set_code(resp, code);
    if (opt != 0) {
        add_uint_option(resp, opt, opt_value);
    }
    coap_add_data(resp, strlen(diag), (const uint8_t *)diag);
}

static const char *code_str(coap_pdu_code_t code, char buf[8])
{
    snprintf(buf, 8, "%u.%02u", (unsigned)(code >> 5) & 7u, (unsigned)code & 31u);
    return buf;
}

/* ---- Response buffers --------------------------------------------------- */

/* A free buffer, searched round-robin so that the most recent responses stay
 * replayable for as long as possible. With none free, the buffer this very
 * session's pending Block2 transfer holds is taken over: libcoap replaces a
 * session's transfer for the resource by the new response anyway (and gives
 * the buffer back first), and nothing is sent while the handler runs. */
static struct emcp_coap_slot *slot_acquire(emcp_coap_t *b, const coap_session_t *session)
{
    struct emcp_coap_slot *own = NULL;
    for (size_t k = 0; k < EMCP_COAP_RESPONSE_SLOTS; k++) {
        size_t i = (b->next_slot + k) % EMCP_COAP_RESPONSE_SLOTS;
        struct emcp_coap_slot *slot = &b->slots[i];
        if (slot->refs == 0) {
            own = slot;
            b->next_slot = (i + 1) % EMCP_COAP_RESPONSE_SLOTS;
            break;
        }
        if (own == NULL && slot->owner == session && slot->refs == 1) {
            own = slot; /* taken over below; libcoap's release then makes refs 1 again */
        }
    }
    if (own == NULL) {
        return NULL;
    }
    own->refs++;
    own->owner = session;
    own->has_key = false;
    return own;
}

/* libcoap calls this when it no longer needs the response data: at once for a
 * response that fit one datagram, after the last Block2 block otherwise, or
 * when the transfer or its session is abandoned. The bytes stay (for
 * replaying) until the buffer is acquired again. */
static void slot_release(coap_session_t *session, void *app_ptr)
{
    (void)session;
    struct emcp_coap_slot *slot = app_ptr;
    if (slot != NULL && slot->refs > 0) {
        slot->refs--;
    }
}

/* The kept response to this very request (a retransmission: same peer,
 * Message ID and token, within EMCP_COAP_DEDUP_LIFETIME_S), or NULL. */
static struct emcp_coap_slot *slot_find_answered(emcp_coap_t *b, const coap_session_t *session,
                                                  const coap_pdu_t *request)
{
    const coap_address_t *peer = coap_session_get_addr_remote(session);
    coap_bin_const_t token = coap_pdu_get_token(request);
    coap_mid_t mid = coap_pdu_get_mid(request);
    coap_tick_t now;
    coap_ticks(&now);
    if (peer == NULL || token.length > sizeof b->slots[0].token) {
        return NULL;
    }
    for (size_t i = 0; i < EMCP_COAP_RESPONSE_SLOTS; i++) {
        struct emcp_coap_slot *slot = &b->slots[i];
        if (slot->has_key && slot->mid == mid && slot->token_len == token.length &&
            (token.length == 0 || memcmp(slot->token, token.s, token.length) == 0) &&
            now - slot->answered_at < (coap_tick_t)EMCP_COAP_DEDUP_LIFETIME_S * COAP_TICKS_PER_SECOND &&
            coap_address_equals(&slot->peer, peer)) {
            return slot;
        }
    }
    return NULL;
}

static void slot_set_key(struct emcp_coap_slot *slot, const coap_session_t *session,
                         const coap_pdu_t *request, coap_pdu_code_t code, size_t len)
{
    const coap_address_t *peer = coap_session_get_addr_remote(session);
    coap_bin_const_t token = coap_pdu_get_token(request);
    if (peer == NULL || token.length > sizeof slot->token) {
        return;
    }
    coap_address_copy(&slot->peer, peer);
    slot->mid = coap_pdu_get_mid(request);
    slot->token_len = (uint8_t)token.length;
    if (token.length > 0) {
        memcpy(slot->token, token.s, token.length);
    }
    coap_ticks(&slot->answered_at);
    slot->code = code;
    slot->len = len;
    slot->has_key = true;
}

/* ---- Principals --------------------------------------------------------- */

/* Certificate mode: the CN is kept in a fixed table; the session's app data
 * points at its entry, and the entry names its owner, so an entry reused for
 * another session is never read for the old one. */
static int pki_cn_callback(const char *cn, const uint8_t *asn1_cert, size_t asn1_len,
                           coap_session_t *session, unsigned depth, int validated, void *arg)
{
    (void)asn1_cert;
    (void)asn1_len;
    emcp_coap_t *b = arg;
    if (depth != 0) {
        return validated ? 1 : 0; /* a CA in the chain: libcoap's verdict */
    }
    if (!validated || cn == NULL) {
        return 0;
    }
    size_t len = strlen(cn);
    if (len == 0 || len > EMCP_COAP_PRINCIPAL_MAX) {
        log_line(b, "emcp_coap: %s: certificate CN empty or over %d bytes; rejected",
              coap_session_str(session), EMCP_COAP_PRINCIPAL_MAX);
        return 0;
    }
    /* The entry this session already has, a free one, or the least recently used. */
    struct emcp_coap_principal *p = coap_session_get_app_data(session);
    if (p == NULL || p->owner != session) {
        p = &b->principals[0];
        for (size_t i = 0; i < EMCP_COAP_PKI_PRINCIPALS; i++) {
            struct emcp_coap_principal *e = &b->principals[i];
            if (e->owner == NULL) {
                p = e;
                break;
            }
            if (e->last_used < p->last_used) {
                p = e;
            }
        }
    }
    p->owner = session;
    p->last_used = ++b->use_counter;
    p->len = len;
    memcpy(p->name, cn, len);
    p->name[len] = '\0';
    coap_session_set_app_data(session, p);
    return 1;
}

/* The principal of a request: the PSK identity, or the certificate CN, or
 * absent on plain CoAP. Returns false for a DTLS session without one. */
static bool session_principal(emcp_coap_t *b, coap_session_t *session, mcp_str_t *out)
{
    out->ptr = NULL;
    out->len = 0;
    if (coap_session_get_proto(session) == COAP_PROTO_UDP) {
        return true;
    }
    const coap_bin_const_t *id = coap_session_get_psk_identity(session);
    if (id != NULL && id->length > 0) {
        out->ptr = (const char *)id->s;
        out->len = id->length;
        return true;
    }
    struct emcp_coap_principal *p = coap_session_get_app_data(session);
    if (p != NULL && p->owner == session) {
        p->last_used = ++b->use_counter;
        out->ptr = p->name;
        out->len = p->len;
        return true;
    }
    return false;
}

static const coap_bin_const_t *psk_id_callback(coap_bin_const_t *identity,
                                               coap_session_t *session, void *arg)
{
    emcp_coap_t *b = arg;
    for (size_t i = 0; i < b->cfg.psk_count; i++) {
        const emcp_coap_psk_t *k = &b->cfg.psks[i];
        if (identity != NULL && identity->length == k->identity_len &&
            memcmp(identity->s, k->identity, k->identity_len) == 0) {
            /* libcoap copies the key into the session. */
            static coap_bin_const_t key;
            key.s = k->key;
            key.length = k->key_len;
            return &key;
        }
    }
    log_line(b, "emcp_coap: %s: unknown PSK identity; handshake refused", coap_session_str(session));
    return NULL;
}

static int event_handler(coap_session_t *session, const coap_event_t event)
{
    emcp_coap_t *b = coap_get_app_data(coap_session_get_context(session));
    if (b == NULL) {
        return 0;
    }
    if (event == COAP_EVENT_SERVER_SESSION_DEL || event == COAP_EVENT_DTLS_CLOSED) {
        struct emcp_coap_principal *p = coap_session_get_app_data(session);
        if (p != NULL && p->owner == session) {
            p->owner = NULL;
        }
        coap_session_set_app_data(session, NULL);
    }
    if (event == COAP_EVENT_DTLS_ERROR) {
        log_line(b, "emcp_coap: %s: DTLS error (handshake failed or bad record)",
              coap_session_str(session));
    }
    return 0;
}

/* ---- The resource ------------------------------------------------------- */

static void mcp_post(coap_resource_t *resource, coap_session_t *session,
                     const coap_pdu_t *request, const coap_string_t *query, coap_pdu_t *resp)
{
    emcp_coap_t *b = coap_resource_get_userdata(resource);
    char cbuf[8];

    /* The resource takes no query: refusing one also keeps each session to
     * at most one pending Block2 response (libcoap keys them by query). */
    if (query != NULL && query->length > 0) {
        reply_diag(resp, COAP_RESPONSE_CODE(402), 0, 0, "Uri-Query is not supported on mcp");
        return;
    }
    /* A retransmission of a request already answered (its ACK was lost):
     * send the same response again and do not run the request twice. */
    struct emcp_coap_slot *kept = slot_find_answered(b, session, request);
    if (kept != NULL) {
        kept->refs++; /* libcoap's new hold; released like any other */
        coap_pdu_set_code(resp, kept->code);
        b->replays++;
        if (!coap_add_data_large_response(resource, session, request, resp, query,
                                          COAP_MEDIATYPE_APPLICATION_JSON, 0, 0, kept->len,
                                          kept->buf, slot_release, kept)) {
            return;
        }
        if (b->cfg.log_requests) {
            log_line(b, "emcp_coap: %s duplicate request -> %s (response replayed, not run again)",
                  coap_session_str(session), code_str(kept->code, cbuf));
        }
        return;
    }

    long fmt = option_uint(request, COAP_OPTION_CONTENT_FORMAT);
    if (fmt != COAP_MEDIATYPE_APPLICATION_JSON) {
        reply_diag(resp, COAP_RESPONSE_CODE(415), 0, 0,
                   "Content-Format must be 50 (application/json)");
        return;
    }
    long accept = option_uint(request, COAP_OPTION_ACCEPT);
    if (accept >= 0 && accept != COAP_MEDIATYPE_APPLICATION_JSON) {
        reply_diag(resp, COAP_RESPONSE_CODE(406), 0, 0, "Only application/json (50) is served");
        return;
    }
    /* A later Block2 block whose transfer libcoap no longer holds: running
     * the request again could repeat a tool call, so ask for a new request. */
    coap_block_b_t block2;
    if (coap_get_block_b(session, request, COAP_OPTION_BLOCK2, &block2) && block2.num != 0) {
        reply_diag(resp, COAP_RESPONSE_CODE(408), 0, 0,
                   "Block2 transfer expired; send the request again");
        return;
    }

    size_t len = 0, offset = 0, total = 0;
    const uint8_t *data = NULL;
    if (!coap_get_data_large(request, &len, &data, &offset, &total)) {
        len = 0;
        offset = 0;
        total = 0;
        data = NULL;
    }
    if (total > EMCP_COAP_REQUEST_MAX) {
        reply_diag(resp, COAP_RESPONSE_CODE(413), COAP_OPTION_SIZE1, EMCP_COAP_REQUEST_MAX,
                   "Request exceeds EMCP_COAP_REQUEST_MAX");
        return;
    }
    if (offset != 0 || len != total) {
        /* Only part of a Block1 body (libcoap hands those over when it
         * cannot track the transfer). */
        reply_diag(resp, COAP_RESPONSE_CODE(408), 0, 0, "Incomplete Block1 body");
        return;
    }

    mcp_request_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.transport_context = session;
    if (!session_principal(b, session, &ctx.principal)) {
        reply_diag(resp, COAP_RESPONSE_CODE(401), 0, 0, "No authenticated DTLS identity");
        return;
    }
    ctx.now_ms = b->cfg.clock_ms != NULL ? b->cfg.clock_ms() : 0;
    ctx.dedup = &b->dedup;

    struct emcp_coap_slot *slot = slot_acquire(b, session);
    if (slot == NULL) {
        reply_diag(resp, COAP_RESPONSE_CODE(503), COAP_OPTION_MAXAGE, EMCP_COAP_BUSY_RETRY_S,
                   "All response buffers in use; retry");
        log_line(b, "emcp_coap: %s: 5.03, all %d response buffers in use", coap_session_str(session),
              EMCP_COAP_RESPONSE_SLOTS);
        return;
    }

    static const uint8_t empty[1] = {0};
    mcp_response_info_t info;
    memset(&info, 0, sizeof info);
    int n = mcp_server_handle(b->server, &ctx, data != NULL ? data : empty, len, slot->buf,
                              sizeof slot->buf, &info);
    b->requests++;

    coap_pdu_code_t code;
    if (n < 0) {
        slot->refs--; /* back to 0, or to the hold of a taken-over transfer */
        reply_diag(resp, COAP_RESPONSE_CODE(500), 0, 0, "MCP server failure");
        log_line(b, "emcp_coap: %s: mcp_server_handle failed (%d)", coap_session_str(session), n);
        return;
    }
    if (n == 0) {
        /* A notification: nothing to answer but the acknowledgement. */
        slot->refs--; /* back to 0, or to the hold of a taken-over transfer */
        code = COAP_RESPONSE_CODE(204);
        coap_pdu_set_code(resp, code);
    } else {
        switch (info.http_status) {
        case 400:
            code = COAP_RESPONSE_CODE(400);
            break;
        case 404:
            code = COAP_RESPONSE_CODE(404);
            break;
        default:
            code = COAP_RESPONSE_CODE(205);
            break;
        }
        coap_pdu_set_code(resp, code);
        slot_set_key(slot, session, request, code, (size_t)n);
        /* Max-Age 0: a CoAP response is cacheable by its code, whatever the
         * method, and no proxy may replay one MCP answer for another POST. */
        if (!coap_add_data_large_response(resource, session, request, resp, query,
                                          COAP_MEDIATYPE_APPLICATION_JSON, 0, 0, (size_t)n,
                                          slot->buf, slot_release, slot)) {
            /* libcoap has released the slot and set 5.00. */
            log_line(b, "emcp_coap: %s: cannot queue a %d-byte response", coap_session_str(session),
                  n);
            return;
        }
    }
    if (b->cfg.log_requests) {
        log_line(b, "emcp_coap: %s principal=%.*s request=%lu bytes -> %s rpc_error=%ld response=%d bytes",
              coap_session_str(session), ctx.principal.ptr != NULL ? (int)ctx.principal.len : 1,
              ctx.principal.ptr != NULL ? ctx.principal.ptr : "-", (unsigned long)len,
              code_str(code, cbuf), (long)info.rpc_error, n);
    }
}

/* ---- Open, poll, close -------------------------------------------------- */

static bool span_ok(const void *p, size_t len)
{
    return p != NULL && len > 0;
}

int emcp_coap_open(emcp_coap_t *b, mcp_server_t *server, const emcp_coap_config_t *cfg)
{
    if (b == NULL || server == NULL || cfg == NULL || cfg->listen == NULL ||
        (cfg->psk_count > 0 && cfg->psks == NULL)) {
        return -MCP_EINVAL;
    }
    for (size_t i = 0; i < cfg->psk_count; i++) {
        if (!span_ok(cfg->psks[i].identity, cfg->psks[i].identity_len) ||
            !span_ok(cfg->psks[i].key, cfg->psks[i].key_len)) {
            return -MCP_EINVAL;
        }
    }
    if (cfg->pki != NULL &&
        (!span_ok(cfg->pki->ca_pem, cfg->pki->ca_pem_len) ||
         !span_ok(cfg->pki->cert_pem, cfg->pki->cert_pem_len) ||
         !span_ok(cfg->pki->key_pem, cfg->pki->key_pem_len))) {
        return -MCP_EINVAL;
    }

    memset(b, 0, sizeof *b);
    b->server = server;
    b->cfg = *cfg;
    mcp_dedup_init(&b->dedup);
    b->secure = cfg->psk_count > 0 || cfg->pki != NULL;

    if (b->secure && !coap_dtls_is_supported()) {
        log_line(b, "emcp_coap: this libcoap has no DTLS backend");
        return -MCP_ENOTSUP;
    }

    b->ctx = coap_new_context(NULL);
    if (b->ctx == NULL) {
        return -MCP_EIO;
    }
    coap_set_app_data(b->ctx, b);
    coap_context_set_block_mode(b->ctx, COAP_BLOCK_USE_LIBCOAP | COAP_BLOCK_SINGLE_BODY);
    coap_context_set_max_idle_sessions(b->ctx, EMCP_COAP_MAX_SESSIONS);
    coap_context_set_max_handshake_sessions(b->ctx, EMCP_COAP_MAX_HANDSHAKES);
    coap_context_set_session_timeout(b->ctx, EMCP_COAP_SESSION_TIMEOUT_S);
    coap_register_event_handler(b->ctx, event_handler);

    if (cfg->psk_count > 0) {
        coap_dtls_spsk_t psk;
        memset(&psk, 0, sizeof psk);
        psk.version = COAP_DTLS_SPSK_SETUP_VERSION;
        psk.validate_id_call_back = psk_id_callback;
        psk.id_call_back_arg = b;
        /* No default key: every identity is looked up in cfg->psks. */
        psk.psk_info.hint.s = (const uint8_t *)"emcp";
        psk.psk_info.hint.length = 4;
        if (!coap_context_set_psk2(b->ctx, &psk)) {
            log_line(b, "emcp_coap: libcoap refused the PSK setup");
            emcp_coap_close(b);
            return -MCP_EIO;
        }
    }
    if (cfg->pki != NULL) {
        coap_dtls_pki_t pki;
        memset(&pki, 0, sizeof pki);
        pki.version = COAP_DTLS_PKI_SETUP_VERSION;
        pki.verify_peer_cert = 1;
        pki.check_common_ca = 1;
        pki.allow_self_signed = 0;
        pki.allow_expired_certs = 0;
        pki.cert_chain_validation = 1;
        pki.cert_chain_verify_depth = 3;
        pki.validate_cn_call_back = pki_cn_callback;
        pki.cn_call_back_arg = b;
#ifdef EMCP_COAP_WOLFSSL
        int der_len = cfg->pki->cert_pem_len < (size_t)INT32_MAX
                          ? wolfSSL_CertPemToDer((const unsigned char *)cfg->pki->cert_pem,
                                                 (int)cfg->pki->cert_pem_len, emcp_coap_wolfssl_cert_der,
                                                 (int)sizeof emcp_coap_wolfssl_cert_der, CERT_TYPE)
                          : -1;
        if (der_len <= 0) {
            log_line(b, "emcp_coap: the certificate is not PEM wolfSSL can read (or over %d bytes as DER)",
                     EMCP_COAP_WOLFSSL_CERT_DER_MAX);
            emcp_coap_close(b);
            return -MCP_EINVAL;
        }
        pki.pki_key.key_type = COAP_PKI_KEY_DEFINE;
        pki.pki_key.key.define.ca.u_byte = cfg->pki->ca_pem;
        pki.pki_key.key.define.ca_len = cfg->pki->ca_pem_len;
        pki.pki_key.key.define.ca_def = COAP_PKI_KEY_DEF_PEM_BUF;
        pki.pki_key.key.define.public_cert.u_byte = emcp_coap_wolfssl_cert_der;
        pki.pki_key.key.define.public_cert_len = (size_t)der_len;
        pki.pki_key.key.define.public_cert_def = COAP_PKI_KEY_DEF_DER_BUF;
        pki.pki_key.key.define.private_key.u_byte = cfg->pki->key_pem;
        pki.pki_key.key.define.private_key_len = cfg->pki->key_pem_len;
        pki.pki_key.key.define.private_key_def = COAP_PKI_KEY_DEF_PEM_BUF;
#else
        pki.pki_key.key_type = COAP_PKI_KEY_PEM_BUF;
        pki.pki_key.key.pem_buf.ca_cert = cfg->pki->ca_pem;
        pki.pki_key.key.pem_buf.ca_cert_len = cfg->pki->ca_pem_len;
        pki.pki_key.key.pem_buf.public_cert = cfg->pki->cert_pem;
        pki.pki_key.key.pem_buf.public_cert_len = cfg->pki->cert_pem_len;
        pki.pki_key.key.pem_buf.private_key = cfg->pki->key_pem;
        pki.pki_key.key.pem_buf.private_key_len = cfg->pki->key_pem_len;
#endif
        if (!coap_context_set_pki(b->ctx, &pki)) {
            log_line(b, "emcp_coap: libcoap refused the certificate setup");
            emcp_coap_close(b);
            return -MCP_EIO;
        }
    }

    b->resource = coap_resource_init(coap_make_str_const(EMCP_COAP_RESOURCE), 0);
    if (b->resource == NULL) {
        emcp_coap_close(b);
        return -MCP_EIO;
    }
    coap_resource_set_userdata(b->resource, b);
    coap_register_handler(b->resource, COAP_REQUEST_POST, mcp_post);
    /* /.well-known/core: </mcp>;rt="mcp";ct=50 (libcoap lists the
     * attributes in the reverse order of their addition). */
    coap_add_attr(b->resource, coap_make_str_const("ct"), coap_make_str_const("50"), 0);
    coap_add_attr(b->resource, coap_make_str_const("rt"), coap_make_str_const("\"mcp\""), 0);
    coap_add_resource(b->ctx, b->resource);

    if (coap_new_endpoint(b->ctx, cfg->listen, b->secure ? COAP_PROTO_DTLS : COAP_PROTO_UDP) ==
        NULL) {
        log_line(b, "emcp_coap: cannot listen (address in use or not available)");
        emcp_coap_close(b);
        return -MCP_EIO;
    }
    return 0;
}

int emcp_coap_poll(emcp_coap_t *b, uint32_t timeout_ms)
{
    if (b == NULL || b->ctx == NULL) {
        return -MCP_EINVAL;
    }
    /* 0 means "wait forever" to libcoap; COAP_IO_NO_WAIT means "do not wait". */
    int rc = coap_io_process(b->ctx, timeout_ms == 0 ? COAP_IO_NO_WAIT : timeout_ms);
    return rc < 0 ? -MCP_EIO : rc;
}

void emcp_coap_close(emcp_coap_t *b)
{
    if (b == NULL || b->ctx == NULL) {
        return;
    }
    /* Frees the resource, the sessions and every pending Block2 transfer,
     * which gives the response buffers back through slot_release(). */
    coap_free_context(b->ctx);
    b->ctx = NULL;
    b->resource = NULL;
}

uint64_t emcp_coap_requests(const emcp_coap_t *b)
{
    return b != NULL ? b->requests : 0;
}

uint64_t emcp_coap_replays(const emcp_coap_t *b)
{
    return b != NULL ? b->replays : 0;
}
