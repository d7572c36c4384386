/*
 * emcp::store_file: the durable idempotency log in one file (see
 * emcp_store_file.h).
 */

#define _POSIX_C_SOURCE 200809L

#include "emcp_store_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

/* write(2) until all of buf is written (or an error). */
static int write_all(int fd, const uint8_t *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return -MCP_EIO;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int store_append(void *user, const uint8_t *record, size_t len)
{
    emcp_store_file_t *f = user;
    if (f->len + len > MCP_STORE_LOG_MAX) {
        return -MCP_ENOSPC; /* the core compacts, then appends again */
    }
    int rc = write_all(f->fd, record, len);
    if (rc == 0) {
        f->len += len;
    }
    return rc;
}

/* fsync of the directory holding f->path, so a rename in it is durable. */
static int sync_dir(const emcp_store_file_t *f)
{
    char dir[EMCP_STORE_FILE_PATH_MAX];
    memcpy(dir, f->path, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (slash == NULL) {
        dir[0] = '.';
        dir[1] = '\0';
    } else if (slash == dir) {
        dir[1] = '\0';
    } else {
        *slash = '\0';
    }
    int d = open(dir, O_RDONLY | O_CLOEXEC);
    if (d < 0) {
        return -MCP_EIO;
    }
    int rc = fsync(d) == 0 ? 0 : -MCP_EIO;
    close(d);
    return rc;
}

static int store_sync(void *user)
{
    emcp_store_file_t *f = user;
    if (fsync(f->fd) != 0) {
        return -MCP_EIO;
    }
    if (!f->swapping) {
        return 0;
    }
    /* The compacted log is durable: it replaces the old one in one step. */
    if (rename(f->tmp, f->path) != 0) {
        return -MCP_EIO;
    }
    f->swapping = false;
    close(f->old_fd);
    f->old_fd = -1;
    return sync_dir(f);
}

static int store_read(void *user, size_t offset, uint8_t *buf, size_t cap)
{
    emcp_store_file_t *f = user;
    int fd = f->swapping ? f->old_fd : f->fd;
    for (;;) {
        ssize_t n = pread(fd, buf, cap > 65536 ? 65536 : cap, (off_t)offset);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        return n < 0 ? -MCP_EIO : (int)n;
    }
}

static int store_restart(void *user)
{
    emcp_store_file_t *f = user;
    if (f->swapping) { /* a compaction that failed before its sync: start it over */
        close(f->fd);
        f->fd = f->old_fd;
        f->swapping = false;
    }
    int fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) {
        return -MCP_EIO;
    }
    f->old_fd = f->fd;
    f->fd = fd;
    f->len = 0;
    f->swapping = true;
    return 0;
}

int emcp_store_file_open(emcp_store_file_t *f, const char *path, mcp_store_t *store)
{
    if (f == NULL || path == NULL || store == NULL) {
        return -MCP_EINVAL;
    }
    size_t n = strlen(path);
    if (n == 0 || n >= EMCP_STORE_FILE_PATH_MAX) {
        return -MCP_EINVAL;
    }
    memset(f, 0, sizeof *f);
    memcpy(f->path, path, n + 1);
    memcpy(f->tmp, path, n);
    memcpy(f->tmp + n, ".tmp", 5);
    f->old_fd = -1;
    (void)unlink(f->tmp); /* a compaction that never reached its rename */
    f->fd = open(f->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (f->fd < 0) {
        return -MCP_EIO;
    }
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        close(f->fd);
        f->fd = -1;
        return -MCP_EIO;
    }
    f->len = (size_t)st.st_size;
    memset(store, 0, sizeof *store);
    store->append = store_append;
    store->sync = store_sync;
    store->read = store_read;
    store->restart = store_restart;
    store->user = f;
    return 0;
}

void emcp_store_file_close(emcp_store_file_t *f)
{
    if (f == NULL) {
        return;
    }
    if (f->swapping) {
        close(f->fd);
        (void)unlink(f->tmp);
        f->fd = f->old_fd;
        f->swapping = false;
    }
    if (f->fd >= 0) {
        close(f->fd);
    }
    f->fd = -1;
    f->old_fd = -1;
}
