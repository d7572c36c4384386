/*
 * emcp-bridge's JSON check and request table alone (CTest bridge_units):
 * which device lines are forwarded, which ids are seen, and how the table
 * keeps, expires and forgets in-flight requests.
 */
#include <string.h>

#include "bridge_ids.h"
#include "bridge_json.h"
#include "check.h"

static int scan(const char *s, struct emcp_bridge_msg *m)
{
    return emcp_bridge_json_scan((const uint8_t *)s, strlen(s), m);
}

static bool id_is(const struct emcp_bridge_msg *m, const char *raw)
{
    return m->id != NULL && m->id_len == strlen(raw) && memcmp(m->id, raw, m->id_len) == 0;
}

static void test_scan(void)
{
    struct emcp_bridge_msg m;
    CHECK(scan("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}", &m) == 0 && id_is(&m, "7") && !m.has_method);
    CHECK(scan(" {\"method\":\"x\",\"params\":{\"id\":1},\"id\":\"a\\\"b\"} ", &m) == 0 && id_is(&m, "\"a\\\"b\"") &&
          m.has_method);
    CHECK(scan("{\"id\":-1.5e+3,\"id\":2}", &m) == 0 && id_is(&m, "-1.5e+3"));
    CHECK(scan("{\"id\":null}", &m) == 0 && emcp_bridge_id_is_null(m.id, m.id_len));
    CHECK(scan("{\"id\":[1,{\"a\":[]}],\"x\":true}", &m) == 0 && id_is(&m, "[1,{\"a\":[]}]"));
    CHECK(scan("{\"a\":{\"id\":5}}", &m) == 0 && m.id == NULL);
    CHECK(scan("{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x8c\xb1\"}", &m) == 0);
    /* Not forwarded: noise, half lines, other values, trailing bytes, bad text. */
    static const char *const bad[] = {
        "", "boot ok", "{", "{\"id\":1", "{\"id\":1,\"result\":{\"half", "[1]", "\"s\"", "{} {}", "{}x",
        "{\"a\":01}", "{\"a\":1.}", "{\"a\":tru}", "{\"a\":\"\x01\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\u12g4\"}",
        "{\"s\":\"\xc3\x28\"}", "{\"s\":\"\xed\xa0\x80\"}", "{\"s\":\"\xc0\xaf\"}", "{\"a\" 1}", "{\"a\":1,}",
        "{,}", "{\"a\":[1,]}", "{\"a\":[1 2]}", "{1:2}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(scan(bad[i], &m) != 0);
    }
    /* The id seen before the line broke off is still reported. */
    CHECK(scan("{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":\"x\",\"params\":{bad}}", &m) != 0 && id_is(&m, "\"q\"") &&
          m.has_method);
    /* Depth: EMCP_BRIDGE_JSON_MAX_DEPTH levels pass, one more does not. */
    char deep[2 * EMCP_BRIDGE_JSON_MAX_DEPTH + 16];
    for (int extra = 0; extra <= 1; extra++) {
        size_t n = 0;
        deep[n++] = '{';
        memcpy(deep + n, "\"a\":", 4);
        n += 4;
        int levels = EMCP_BRIDGE_JSON_MAX_DEPTH - 1 + extra;
        for (int i = 0; i < levels; i++) {
            deep[n++] = '[';
        }
        for (int i = 0; i < levels; i++) {
            deep[n++] = ']';
        }
        deep[n++] = '}';
        deep[n] = '\0';
        CHECK((scan(deep, &m) == 0) == (extra == 0));
    }
}

static size_t start_of(const char *s)
{
    return emcp_bridge_last_message_start((const uint8_t *)s, strlen(s));
}

static void test_glued(void)
{
    struct emcp_bridge_msg m;
    const char *glued = "{\"jsonrpc\":\"2.0\",\"id\":4,\"res\x00boot{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}";
    size_t at = start_of(glued);
    CHECK(at > 0 && scan(glued + at, &m) == 0 && id_is(&m, "5"));
    CHECK(start_of("{\"jsonrpc\":\"2.0\",\"id\":1}") == 0);
    CHECK(start_of("noise only") == 0 && start_of("") == 0 && start_of("{\"jsonrpc\"") == 0);
    CHECK(start_of("x{\"jsonrpc\"") == 1);
}

static void test_ids(void)
{
    static struct emcp_bridge_ids t;
    memset(&t, 0, sizeof t);
    char id[16];
    for (int i = 0; i < EMCP_BRIDGE_MAX_INFLIGHT; i++) {
        int n = snprintf(id, sizeof id, "%d", i);
        CHECK(emcp_bridge_ids_add(&t, (const uint8_t *)id, (size_t)n, 100u + (uint64_t)i) == 0);
    }
    CHECK(emcp_bridge_ids_full(&t));
    CHECK(emcp_bridge_ids_add(&t, (const uint8_t *)"x", 1, 1) == -1);
    CHECK(emcp_bridge_ids_take(&t, (const uint8_t *)"5", 1) && !emcp_bridge_ids_take(&t, (const uint8_t *)"5", 1));
    CHECK(!emcp_bridge_ids_full(&t) && emcp_bridge_ids_next_deadline(&t) == 100u);
    uint8_t longid[EMCP_BRIDGE_ID_MAX + 1];
    memset(longid, '7', sizeof longid);
    CHECK(emcp_bridge_ids_add(&t, longid, sizeof longid, 1) == -1);
    struct emcp_bridge_id e;
    CHECK(emcp_bridge_ids_pop_due(&t, 101, false, &e) && e.len == 1 && e.bytes[0] == '0');
    CHECK(emcp_bridge_ids_pop_due(&t, 101, false, &e) && e.bytes[0] == '1');
    CHECK(!emcp_bridge_ids_pop_due(&t, 101, false, &e));
    /* A late answer to an id the bridge answered itself is recognised once. */
    CHECK(emcp_bridge_ids_was_answered(&t, (const uint8_t *)"1", 1));
    CHECK(!emcp_bridge_ids_was_answered(&t, (const uint8_t *)"1", 1));
    size_t left = t.count;
    size_t popped = 0;
    while (emcp_bridge_ids_pop_due(&t, 0, true, &e)) {
        popped++;
    }
    CHECK(popped == left && t.count == 0 && emcp_bridge_ids_next_deadline(&t) == UINT64_MAX);
}

/* Answers with id null go to the oldest line waiting: the device answers in order. */
static void test_in_order(void)
{
    static struct emcp_bridge_ids t;
    memset(&t, 0, sizeof t);
    struct emcp_bridge_id e;
    CHECK(!emcp_bridge_ids_take_oldest(&t, &e));
    CHECK(emcp_bridge_ids_add(&t, (const uint8_t *)"1", 1, 100) == 0);
    CHECK(emcp_bridge_ids_add_anonymous(&t, 100) == 0);
    CHECK(emcp_bridge_ids_add(&t, (const uint8_t *)"\"b\"", 3, 100) == 0);
    CHECK(emcp_bridge_ids_take_oldest(&t, &e) && e.len == 1 && e.bytes[0] == '1');
    CHECK(emcp_bridge_ids_take_oldest(&t, &e) && e.len == 0);
    CHECK(emcp_bridge_ids_take_oldest(&t, &e) && e.len == 3 && t.count == 0);
    /* An answer by id settles the nameless lines sent before it, not after. */
    CHECK(emcp_bridge_ids_add_anonymous(&t, 100) == 0);
    CHECK(emcp_bridge_ids_add(&t, (const uint8_t *)"2", 1, 100) == 0);
    CHECK(emcp_bridge_ids_add_anonymous(&t, 100) == 0);
    CHECK(emcp_bridge_ids_take(&t, (const uint8_t *)"2", 1) && t.count == 1 && t.inflight[0].len == 0);
    /* A nameless line that times out is forgotten, never answered. */
    CHECK(emcp_bridge_ids_add(&t, (const uint8_t *)"3", 1, 200) == 0);
    CHECK(emcp_bridge_ids_pop_due(&t, 150, false, &e) == false && t.count == 1);
    CHECK(emcp_bridge_ids_pop_due(&t, 300, false, &e) && e.len == 1 && e.bytes[0] == '3' && t.count == 0);
    CHECK(!emcp_bridge_ids_was_answered(&t, (const uint8_t *)"", 0));
    for (int i = 0; i < EMCP_BRIDGE_MAX_INFLIGHT; i++) {
        CHECK(emcp_bridge_ids_add_anonymous(&t, 1) == 0);
    }
    CHECK(emcp_bridge_ids_add_anonymous(&t, 1) == -1 && emcp_bridge_ids_full(&t));
    CHECK(!emcp_bridge_ids_pop_due(&t, 5, true, &e) && t.count == 0);
}

int main(void)
{
    test_scan();
    test_glued();
    test_ids();
    test_in_order();
    return check_summary("test_bridge");
}
