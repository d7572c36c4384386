/**
 * @file emcp_store_file.h
 * @brief A file backend for emcp's durable idempotency records
 *        (mcp_store_t, mcp_dedup_set_store) on a POSIX host.
 *
 * The log is one file: records are appended with write(2) and made durable
 * with fsync(2). It is bounded: an append that would take it past
 * MCP_STORE_LOG_MAX bytes is refused with -MCP_ENOSPC, and the core then
 * compacts. Compaction writes the live records to "<path>.tmp"; the sync
 * that follows fsyncs it, renames it over <path> and fsyncs the directory,
 * so a power cut leaves either the old log or the new one, never a mix.
 * A "<path>.tmp" found at open is a compaction that never finished, and is
 * removed. Nothing is allocated; one emcp_store_file_t per log.
 */

#ifndef EMCP_STORE_FILE_H
#define EMCP_STORE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "emcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Longest path accepted for the log file. */
#ifndef EMCP_STORE_FILE_PATH_MAX
#define EMCP_STORE_FILE_PATH_MAX 512
#endif

/** One open log. Fill with emcp_store_file_open; the fields are private. */
typedef struct emcp_store_file_t {
    int fd;       /**< where appends go: <path>, or <path>.tmp while swapping */
    int old_fd;   /**< <path> while a compaction writes <path>.tmp, else -1 */
    size_t len;   /**< bytes in the file appends go to */
    bool swapping; /**< the next sync renames <path>.tmp over <path> */
    char path[EMCP_STORE_FILE_PATH_MAX];
    char tmp[EMCP_STORE_FILE_PATH_MAX + 4];
} emcp_store_file_t;

/**
 * Opens (creating it if absent) the log at @p path and fills @p store with
 * hooks on it (append, sync, read, restart; user = @p f). The caller may
 * set store->recover afterwards, then passes @p store to
 * mcp_dedup_set_store. @p f and @p store must outlive the table's use.
 *
 * @retval 0 Success.
 * @retval -MCP_EINVAL A NULL argument, or @p path longer than
 *         EMCP_STORE_FILE_PATH_MAX - 1.
 * @retval -MCP_EIO The file cannot be opened (errno tells why).
 */
int emcp_store_file_open(emcp_store_file_t *f, const char *path, mcp_store_t *store);

/** Closes the log (its records stay durable). */
void emcp_store_file_close(emcp_store_file_t *f);

#ifdef __cplusplus
}
#endif

#endif /* EMCP_STORE_FILE_H */
