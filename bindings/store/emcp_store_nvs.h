/**
 * @file emcp_store_nvs.h
 * @brief A Zephyr NVS backend for emcp's durable idempotency records
 *        (mcp_store_t, mcp_dedup_set_store), CONFIG_EMCP_STORE_NVS.
 *
 * The log lives in EMCP_STORE_NVS_RECORDS + 1 NVS entries of a file system
 * the application mounts (nvs_mount), from @c first_id on:
 *
 * - @c first_id holds the meta entry (12 bytes: magic, the live log's
 *   generation, its first ring slot, the ring size);
 * - @c first_id + 1 + i is ring slot i: one record per entry, as
 *   [generation, 4 bytes LE][record, at most MCP_STORE_RECORD_MAX bytes].
 *
 * The live log is the run of slots from the meta's first slot on whose
 * generation equals the meta's; it holds at most
 * EMCP_STORE_NVS_RECORDS - MCP_DEDUP_SLOTS records, and an append past that
 * is refused with -MCP_ENOSPC, so the core compacts. A compaction
 * (restart) writes its records, under a generation never used before, into
 * the slots after the live log (the rest of the ring, at least
 * MCP_DEDUP_SLOTS of them), and its sync writes the meta entry naming them:
 * that one NVS write is the atomic switch. Until it, a reset finds the old
 * log unchanged. NVS makes each entry's write atomic (its allocation entry
 * is written after the data), so a power cut loses at most the entry being
 * written; the core's CRC-32 checks each record besides.
 *
 * Flash writes (nvs_write calls), counted in emcp_store_nvs_t.writes:
 * one per append (intent, result, release), none per sync except after a
 * compaction (the meta entry); a compaction is one write per live entry
 * (at most MCP_DEDUP_SLOTS) plus the meta. Nothing else: NVS writes are
 * durable when nvs_write returns, so sync has nothing to flush. NVS's own
 * garbage collection copies the live entries of a full sector and erases
 * it, on top. Nothing is allocated; open reads every slot once. One
 * emcp_store_nvs_t per duplicate table, each on its own range of ids.
 */

#ifndef EMCP_STORE_NVS_H
#define EMCP_STORE_NVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zephyr/fs/nvs.h>

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Ring slots (NVS entries besides the meta): CONFIG_EMCP_STORE_NVS_RECORDS,
 * 32 by default; at least 2 * MCP_DEDUP_SLOTS + 1. */
#ifdef CONFIG_EMCP_STORE_NVS_RECORDS
#define EMCP_STORE_NVS_RECORDS CONFIG_EMCP_STORE_NVS_RECORDS
#else
#define EMCP_STORE_NVS_RECORDS 32
#endif

/** NVS ids the backend uses from first_id on: the meta entry and the ring. */
#define EMCP_STORE_NVS_IDS (EMCP_STORE_NVS_RECORDS + 1)

/** Bytes of the largest ring entry: a generation word and a record. */
#define EMCP_STORE_NVS_ENTRY_MAX (4 + MCP_STORE_RECORD_MAX)

/** One log on NVS. Fill with emcp_store_nvs_open; only @c writes is for
 * the application to read. */
typedef struct emcp_store_nvs_t {
    struct nvs_fs *fs;
    uint32_t writes;   /**< nvs_write calls that wrote flash since open */
    uint32_t gen;      /* generation of the live log */
    uint32_t next_gen; /* of the log a compaction is writing */
    uint32_t max_gen;  /* highest generation seen on flash or handed out */
    uint16_t first_id;
    uint16_t start;      /* ring slot of the live log's first record */
    uint16_t count;      /* records in the live log */
    uint16_t next_start; /* the same for the log a compaction is writing */
    uint16_t next_count;
    bool swapping;  /* a compaction is writing; the next sync swaps it in */
    int32_t cached; /* ring slot whose entry buf holds, or -1 */
    uint16_t len[EMCP_STORE_NVS_RECORDS]; /* record bytes in each slot */
    uint8_t buf[EMCP_STORE_NVS_ENTRY_MAX];
} emcp_store_nvs_t;

/**
 * Opens the log in the mounted NVS file system @p fs at ids @p first_id
 * .. @p first_id + EMCP_STORE_NVS_IDS - 1 (which nothing else may use) and
 * fills @p store with hooks on it (append, sync, read, restart; user =
 * @p s). The caller may set store->recover afterwards, then passes
 * @p store to mcp_dedup_set_store. @p s, @p fs and @p store must outlive
 * the table's use. On a file system without the meta entry, writes it (a
 * new, empty log).
 *
 * @retval 0 Success.
 * @retval -MCP_EINVAL A NULL argument, @p fs not mounted, the ids past
 *         0xFFFE, or a log written with another EMCP_STORE_NVS_RECORDS.
 * @retval -MCP_ENOSPC @p fs cannot hold EMCP_STORE_NVS_IDS entries of
 *         EMCP_STORE_NVS_ENTRY_MAX bytes in all but one of its sectors
 *         (NVS keeps one free for its garbage collection).
 * @retval -MCP_EIO An NVS read or write failed, or the meta entry is not
 *         this backend's.
 */
int emcp_store_nvs_open(emcp_store_nvs_t *s, struct nvs_fs *fs, uint16_t first_id,
                        mcp_store_t *store);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_STORE_NVS_H */
