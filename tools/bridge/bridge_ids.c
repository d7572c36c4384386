/* emcp-bridge's request table (bridge_ids.h). */
#include "bridge_ids.h"

#include <string.h>

static bool same(const struct emcp_bridge_id *e, const uint8_t *id, size_t len)
{
    return e->len == len && memcmp(e->bytes, id, len) == 0;
}

int emcp_bridge_ids_add(struct emcp_bridge_ids *t, const uint8_t *id, size_t len, uint64_t deadline_ms)
{
    if (t->count >= EMCP_BRIDGE_MAX_INFLIGHT || len == 0 || len > EMCP_BRIDGE_ID_MAX) {
        return -1;
    }
    struct emcp_bridge_id *e = &t->inflight[t->count++];
    memcpy(e->bytes, id, len);
    e->len = len;
    e->deadline_ms = deadline_ms;
    return 0;
}

int emcp_bridge_ids_add_anonymous(struct emcp_bridge_ids *t, uint64_t deadline_ms)
{
    if (t->count >= EMCP_BRIDGE_MAX_INFLIGHT) {
        return -1;
    }
    struct emcp_bridge_id *e = &t->inflight[t->count++];
    e->len = 0;
    e->deadline_ms = deadline_ms;
    return 0;
}

bool emcp_bridge_ids_full(const struct emcp_bridge_ids *t)
{
    return t->count >= EMCP_BRIDGE_MAX_INFLIGHT;
}

static void remove_at(struct emcp_bridge_ids *t, size_t i)
{
    memmove(&t->inflight[i], &t->inflight[i + 1], (t->count - i - 1) * sizeof t->inflight[0]);
    t->count--;
}

bool emcp_bridge_ids_take(struct emcp_bridge_ids *t, const uint8_t *id, size_t len)
{
    for (size_t i = 0; i < t->count; i++) {
        if (len > 0 && same(&t->inflight[i], id, len)) {
            remove_at(t, i);
            size_t j = 0;
            while (j < i) {
                if (t->inflight[j].len == 0) {
                    remove_at(t, j);
                    i--;
                } else {
                    j++;
                }
            }
            return true;
        }
    }
    return false;
}

bool emcp_bridge_ids_take_oldest(struct emcp_bridge_ids *t, struct emcp_bridge_id *out)
{
    if (t->count == 0) {
        return false;
    }
    *out = t->inflight[0];
    remove_at(t, 0);
    return true;
}

bool emcp_bridge_ids_was_answered(struct emcp_bridge_ids *t, const uint8_t *id, size_t len)
{
    for (size_t i = 0; i < EMCP_BRIDGE_ANSWERED_MAX; i++) {
        if (t->answered[i].len != 0 && same(&t->answered[i], id, len)) {
            t->answered[i].len = 0;
            return true;
        }
    }
    return false;
}

bool emcp_bridge_ids_pop_due(struct emcp_bridge_ids *t, uint64_t now_ms, bool all, struct emcp_bridge_id *out)
{
    size_t i = 0;
    while (i < t->count) {
        if (!all && t->inflight[i].deadline_ms > now_ms) {
            i++;
            continue;
        }
        if (t->inflight[i].len == 0) {
            remove_at(t, i);
            continue;
        }
        *out = t->inflight[i];
        t->answered[t->answered_next] = t->inflight[i];
        t->answered_next = (t->answered_next + 1) % EMCP_BRIDGE_ANSWERED_MAX;
        remove_at(t, i);
        return true;
    }
    return false;
}

uint64_t emcp_bridge_ids_next_deadline(const struct emcp_bridge_ids *t)
{
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < t->count; i++) {
        next = t->inflight[i].deadline_ms < next ? t->inflight[i].deadline_ms : next;
    }
    return next;
}
