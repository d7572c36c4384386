/*
 * The durable idempotency log on Zephyr's NVS (see emcp_store_nvs.h for the
 * layout: a meta entry and a ring of one record per entry, each tagged with
 * the generation of the log it belongs to).
 */

#include "emcp_store_nvs.h"

#include <errno.h>
#include <string.h>

#include <zephyr/drivers/flash.h>
#include <zephyr/fs/nvs.h>
#include <zephyr/sys/util.h>

#define RING EMCP_STORE_NVS_RECORDS
/* Records a live log may hold: the slots after it always have room for a
 * compaction (at most one record per table slot). */
#define LOG_CAP (RING - MCP_DEDUP_SLOTS)
#define GEN_LEN 4
#define META_LEN 12
#define META_MAGIC 0x4e434d45u /* "EMCN" */
#define NVS_ATE_LEN 8          /* sizeof(struct nvs_ate), private to NVS */

BUILD_ASSERT(RING >= 2 * MCP_DEDUP_SLOTS + 1,
             "CONFIG_EMCP_STORE_NVS_RECORDS must be at least 2 * CONFIG_EMCP_DEDUP_SLOTS + 1");
BUILD_ASSERT(RING < 0xFFFF && MCP_STORE_RECORD_MAX <= UINT16_MAX, "ring slots and lengths are 16-bit");

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get32(const uint8_t *p)
{
    return get16(p) | ((uint32_t)get16(p + 2) << 16);
}

static uint16_t slot(uint16_t start, uint16_t i)
{
    return (uint16_t)((start + i) % RING);
}

static uint16_t slot_id(const emcp_store_nvs_t *s, uint16_t pos)
{
    return (uint16_t)(s->first_id + 1u + pos);
}

/* One nvs_write, counted when it wrote (NVS skips a rewrite of equal data). */
static int write_entry(emcp_store_nvs_t *s, uint16_t id, const uint8_t *data, size_t len)
{
    ssize_t rc = nvs_write(s->fs, id, data, len);
    if (rc < 0) {
        return -MCP_EIO;
    }
    if (rc > 0) {
        s->writes++;
    }
    return 0;
}

static int write_meta(emcp_store_nvs_t *s, uint32_t gen, uint16_t start)
{
    uint8_t m[META_LEN];
    put32(m, META_MAGIC);
    put32(m + 4, gen);
    put16(m + 8, start);
    put16(m + 10, RING);
    return write_entry(s, s->first_id, m, sizeof m);
}

static int store_append(void *user, const uint8_t *record, size_t len)
{
    emcp_store_nvs_t *s = user;
    if (record == NULL || len == 0 || len > MCP_STORE_RECORD_MAX) {
        return -MCP_EINVAL;
    }
    /* A compaction's log grows into the slots after the live one, never
     * over it. */
    uint16_t start = s->swapping ? s->next_start : s->start;
    uint16_t n = s->swapping ? s->next_count : s->count;
    uint32_t gen = s->swapping ? s->next_gen : s->gen;
    uint16_t cap = s->swapping ? (uint16_t)MIN(LOG_CAP, RING - s->count) : LOG_CAP;
    if (n >= cap) {
        return -MCP_ENOSPC; /* the core compacts, then appends again */
    }
    uint16_t pos = slot(start, n);
    put32(s->buf, gen);
    memcpy(s->buf + GEN_LEN, record, len);
    s->cached = pos;
    int rc = write_entry(s, slot_id(s, pos), s->buf, GEN_LEN + len);
    if (rc != 0) {
        s->cached = -1;
        return rc;
    }
    s->len[pos] = (uint16_t)len;
    if (s->swapping) {
        s->next_count++;
    } else {
        s->count++;
    }
    return 0;
}

static int store_sync(void *user)
{
    emcp_store_nvs_t *s = user;
    if (!s->swapping) {
        return 0; /* every append was durable when nvs_write returned */
    }
    /* The compacted log is written: naming it in the meta entry is the switch. */
    int rc = write_meta(s, s->next_gen, s->next_start);
    if (rc != 0) {
        return rc;
    }
    s->gen = s->next_gen;
    s->start = s->next_start;
    s->count = s->next_count;
    s->swapping = false;
    return 0;
}

static int store_read(void *user, size_t offset, uint8_t *buf, size_t cap)
{
    emcp_store_nvs_t *s = user;
    size_t at = 0;
    for (uint16_t i = 0; i < s->count; i++) {
        uint16_t pos = slot(s->start, i);
        size_t n = s->len[pos];
        if (offset < at + n) {
            if (s->cached != pos) {
                ssize_t rc = nvs_read(s->fs, slot_id(s, pos), s->buf, GEN_LEN + n);
                if (rc != (ssize_t)(GEN_LEN + n) || get32(s->buf) != s->gen) {
                    s->cached = -1;
                    return -MCP_EIO;
                }
                s->cached = pos;
            }
            size_t k = MIN(cap, at + n - offset);
            memcpy(buf, s->buf + GEN_LEN + (offset - at), k);
            return (int)k;
        }
        at += n;
    }
    return 0;
}

static int store_restart(void *user)
{
    emcp_store_nvs_t *s = user;
    if (s->max_gen == UINT32_MAX) {
        return -MCP_EIO; /* 4e9 compactions: far beyond any flash's endurance */
    }
    /* A fresh generation each time (also when a failed compaction starts
     * over), so no entry of an abandoned one can join a later log. */
    s->next_gen = ++s->max_gen;
    s->next_start = slot(s->start, s->count);
    s->next_count = 0;
    s->swapping = true;
    return 0;
}

/* Whether @p fs holds EMCP_STORE_NVS_IDS entries of the largest size in
 * all sectors but the one NVS keeps erased: each sector gives up three
 * allocation entries (close, garbage-collection done, a spare for deletes)
 * and holds whole entries only. */
static bool fits(const struct nvs_fs *fs)
{
    size_t wbs = fs->flash_parameters != NULL ? fs->flash_parameters->write_block_size : 1;
    wbs = wbs == 0 ? 1 : wbs;
    size_t ate = ROUND_UP(NVS_ATE_LEN, wbs);
    size_t entry = ROUND_UP(EMCP_STORE_NVS_ENTRY_MAX, wbs);
    if (fs->sector_count < 2 || fs->sector_size < 4 * ate + entry) {
        return false;
    }
    size_t per_sector = (fs->sector_size - 3 * ate) / (entry + ate);
    return per_sector * (fs->sector_count - 1u) >= (size_t)EMCP_STORE_NVS_IDS;
}

int emcp_store_nvs_open(emcp_store_nvs_t *s, struct nvs_fs *fs, uint16_t first_id,
                        mcp_store_t *store)
{
    if (s == NULL || fs == NULL || store == NULL || !fs->ready ||
        (uint32_t)first_id + EMCP_STORE_NVS_IDS > 0xFFFFu) { /* 0xFFFF is NVS's own */
        return -MCP_EINVAL;
    }
    if (!fits(fs)) {
        return -MCP_ENOSPC;
    }
    memset(s, 0, sizeof *s);
    s->fs = fs;
    s->first_id = first_id;
    s->cached = -1;

    uint8_t m[META_LEN];
    ssize_t rc = nvs_read(fs, first_id, m, sizeof m);
    bool fresh = rc == -ENOENT;
    if (!fresh) {
        if (rc != META_LEN || get32(m) != META_MAGIC) {
            return -MCP_EIO;
        }
        if (get16(m + 10) != RING) {
            return -MCP_EINVAL;
        }
        s->gen = get32(m + 4);
        s->start = get16(m + 8);
        if (s->start >= RING) {
            return -MCP_EIO;
        }
    }
    /* Every slot once: its length, and the highest generation on flash
     * (an abandoned compaction's included). */
    s->max_gen = s->gen;
    for (uint16_t pos = 0; pos < RING; pos++) {
        uint8_t g[GEN_LEN];
        rc = nvs_read(fs, slot_id(s, pos), g, sizeof g);
        if (rc == -ENOENT) {
            continue;
        }
        if (rc < 0) {
            return -MCP_EIO;
        }
        if (rc > GEN_LEN && rc <= EMCP_STORE_NVS_ENTRY_MAX) {
            s->len[pos] = (uint16_t)(rc - GEN_LEN);
            s->max_gen = MAX(s->max_gen, get32(g));
        }
    }
    if (fresh) {
        if (s->max_gen == UINT32_MAX) {
            return -MCP_EIO;
        }
        s->gen = ++s->max_gen;
        int w = write_meta(s, s->gen, 0);
        if (w != 0) {
            return w;
        }
    } else {
        /* The live log: the slots from start on that carry its generation. */
        while (s->count < LOG_CAP) {
            uint16_t pos = slot(s->start, s->count);
            uint8_t g[GEN_LEN];
            rc = nvs_read(fs, slot_id(s, pos), g, sizeof g);
            if (rc <= GEN_LEN || rc > EMCP_STORE_NVS_ENTRY_MAX || get32(g) != s->gen) {
                break;
            }
            s->count++;
        }
    }
    memset(store, 0, sizeof *store);
    store->append = store_append;
    store->sync = store_sync;
    store->read = store_read;
    store->restart = store_restart;
    store->user = s;
    return 0;
}
