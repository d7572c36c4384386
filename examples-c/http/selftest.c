/*
 * emcp-http-selftest: known-answer tests of the HTTP binding's helpers
 * (SipHash-2-4, session ids, constant-time comparison, bearer hooks).
 * Exit 0 when all pass; run by tests/http/test_http_raw.py.
 */

#include <stdio.h>
#include <string.h>

#include "emcp_http.h"

static int failures;

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            fprintf(stderr, "selftest: %s:%d: %s\n", __FILE__, __LINE__, #cond);   \
            failures++;                                                            \
        }                                                                          \
    } while (0)

static emcp_http_t h; /* only its session key is used */

int main(void)
{
    uint8_t key[16], msg[15];
    for (int i = 0; i < 16; i++) {
        key[i] = (uint8_t)i;
    }
    for (int i = 0; i < 15; i++) {
        msg[i] = (uint8_t)i;
    }
    /* Vectors from the SipHash paper (Aumasson, Bernstein), key 00..0f. */
    CHECK(emcp_http_siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ULL);
    CHECK(emcp_http_siphash24(key, msg, 15) == 0xa129ca6149be45e5ULL);

    memcpy(h.cfg.session_key, key, sizeof key);
    char id[EMCP_HTTP_SESSION_ID_LEN + 1];
    emcp_http_session_mint(&h, 42, id);
    CHECK(strlen(id) == EMCP_HTTP_SESSION_ID_LEN);
    CHECK(emcp_http_session_valid(&h, id, strlen(id)) == 1);
    char bad[EMCP_HTTP_SESSION_ID_LEN + 1];
    memcpy(bad, id, sizeof bad);
    bad[EMCP_HTTP_SESSION_ID_LEN - 1] ^= 1;
    CHECK(emcp_http_session_valid(&h, bad, strlen(bad)) == 0);
    memcpy(bad, id, sizeof bad);
    bad[0] = bad[0] == '0' ? '1' : '0'; /* another counter, same MAC */
    CHECK(emcp_http_session_valid(&h, bad, strlen(bad)) == 0);
    CHECK(emcp_http_session_valid(&h, id, 31) == 0);
    CHECK(emcp_http_session_valid(&h, "zz", 2) == 0);
    h.cfg.session_key[0] ^= 1; /* a restart with a new key forgets every id */
    CHECK(emcp_http_session_valid(&h, id, strlen(id)) == 0);

    CHECK(emcp_http_ct_compare("secret", 6, "secret", 6) == 0);
    CHECK(emcp_http_ct_compare("secret", 6, "secreT", 6) != 0);
    CHECK(emcp_http_ct_compare("secret", 6, "secret1", 7) != 0);
    CHECK(emcp_http_ct_compare("secret", 6, "", 0) != 0);

    emcp_http_bearer_t b = {"s3cret", "alice"};
    mcp_str_t who = {NULL, 0};
    const char ok[] = "Bearer s3cret";
    CHECK(emcp_http_bearer_auth(&b, ok, strlen(ok), &who) == 0);
    CHECK(who.len == 5 && memcmp(who.ptr, "alice", 5) == 0);
    const char lower[] = "bearer  s3cret ";
    CHECK(emcp_http_bearer_auth(&b, lower, strlen(lower), &who) == 0);
    const char wrong[] = "Bearer s3cre";
    CHECK(emcp_http_bearer_auth(&b, wrong, strlen(wrong), &who) != 0);
    const char basic[] = "Basic czNjcmV0";
    CHECK(emcp_http_bearer_auth(&b, basic, strlen(basic), &who) != 0);
    CHECK(emcp_http_bearer_auth(&b, NULL, 0, &who) != 0);

    /* Several named tokens: each request gets its own token's principal. */
    const emcp_http_bearer_t many[] = {{"op-secret", "operator"}, {"view-secret", "viewer"},
                                       {"op-secret2", NULL}};
    emcp_http_bearer_list_t list = {many, 3};
    const char op[] = "Bearer op-secret";
    CHECK(emcp_http_bearer_list_auth(&list, op, strlen(op), &who) == 0);
    CHECK(who.len == 8 && memcmp(who.ptr, "operator", 8) == 0);
    const char view[] = "bearer view-secret ";
    CHECK(emcp_http_bearer_list_auth(&list, view, strlen(view), &who) == 0);
    CHECK(who.len == 6 && memcmp(who.ptr, "viewer", 6) == 0);
    const char op2[] = "Bearer op-secret2";
    CHECK(emcp_http_bearer_list_auth(&list, op2, strlen(op2), &who) == 0);
    CHECK(who.len == 6 && memcmp(who.ptr, "bearer", 6) == 0); /* no name given */
    const char prefix[] = "Bearer op-secre";
    CHECK(emcp_http_bearer_list_auth(&list, prefix, strlen(prefix), &who) != 0);
    const char both[] = "Bearer op-secretview-secret";
    CHECK(emcp_http_bearer_list_auth(&list, both, strlen(both), &who) != 0);
    CHECK(emcp_http_bearer_list_auth(&list, basic, strlen(basic), &who) != 0);
    CHECK(emcp_http_bearer_list_auth(&list, NULL, 0, &who) != 0);
    emcp_http_bearer_list_t none = {many, 0};
    CHECK(emcp_http_bearer_list_auth(&none, op, strlen(op), &who) != 0);

    if (failures == 0) {
        printf("emcp-http-selftest: all checks passed\n");
    }
    return failures == 0 ? 0 : 1;
}
