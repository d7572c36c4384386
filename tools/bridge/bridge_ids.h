/*
 * emcp-bridge's request table: the ids of the requests sent to the device
 * and not answered yet (each with its deadline), and a ring of the ids the
 * bridge answered itself (device gone, timeout), whose late answers from the
 * device must not reach the host a second time. Fixed capacity, no
 * allocation; ids are compared byte for byte, as the device echoes them.
 *
 * The device answers its lines in the order it receives them, so the table
 * keeps them in that order, and also holds the lines without an id that the
 * device still answers (with id null: a line it cannot parse): an answer
 * with id null then belongs to the oldest entry, and a request whose id the
 * device could not read (a line longer than its receive buffer) still gets
 * the device's error under its own id instead of a timeout.
 */
#ifndef EMCP_BRIDGE_IDS_H
#define EMCP_BRIDGE_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emcp.h"

/** Requests in flight at once; a host that sends more waits (stdin is not read). */
#define EMCP_BRIDGE_MAX_INFLIGHT 32
/** Bytes of an id the bridge tracks: the core's own limit (longer ids are refused by the device). */
#define EMCP_BRIDGE_ID_MAX MCP_MAX_ID_LEN
/** Ids the bridge answered itself and remembers, so a late device answer is dropped. */
#define EMCP_BRIDGE_ANSWERED_MAX 32

struct emcp_bridge_id {
    uint8_t bytes[EMCP_BRIDGE_ID_MAX];
    size_t len; /* 0: a line without an id that the device answers with id null */
    uint64_t deadline_ms;
};

struct emcp_bridge_ids {
    struct emcp_bridge_id inflight[EMCP_BRIDGE_MAX_INFLIGHT]; /* in the order sent */
    size_t count;
    struct emcp_bridge_id answered[EMCP_BRIDGE_ANSWERED_MAX]; /* a ring */
    size_t answered_next;
};

/** Adds a sent request. @retval 0 added. @retval -1 the table is full or the id too long. */
int emcp_bridge_ids_add(struct emcp_bridge_ids *t, const uint8_t *id, size_t len, uint64_t deadline_ms);

/**
 * Adds a sent line without an id that the device will answer with id null
 * (it cannot be parsed). @retval 0 added. @retval -1 the table is full.
 */
int emcp_bridge_ids_add_anonymous(struct emcp_bridge_ids *t, uint64_t deadline_ms);

/**
 * Takes the oldest entry, for an answer with id null: the device answers in
 * order. Copies it to @p out (len 0: a line without an id).
 * @return true when there was one.
 */
bool emcp_bridge_ids_take_oldest(struct emcp_bridge_ids *t, struct emcp_bridge_id *out);

/** True when the table has no room for another request. */
bool emcp_bridge_ids_full(const struct emcp_bridge_ids *t);

/**
 * Removes the first in-flight request with this id, and the lines without
 * an id sent before it (answered in order, they can no longer be pending);
 * true if there was one.
 */
bool emcp_bridge_ids_take(struct emcp_bridge_ids *t, const uint8_t *id, size_t len);

/** True (and forgets it) when the bridge already answered this id itself. */
bool emcp_bridge_ids_was_answered(struct emcp_bridge_ids *t, const uint8_t *id, size_t len);

/**
 * Takes the oldest in-flight request whose deadline is at or before @p now_ms
 * (every request when @p all), copies its id to @p out and remembers it as
 * answered by the bridge. Lines without an id that are due are forgotten on
 * the way (nobody waits for them). @return true when one was taken.
 */
bool emcp_bridge_ids_pop_due(struct emcp_bridge_ids *t, uint64_t now_ms, bool all, struct emcp_bridge_id *out);

/** The earliest deadline in flight, or UINT64_MAX when none. */
uint64_t emcp_bridge_ids_next_deadline(const struct emcp_bridge_ids *t);

#endif /* EMCP_BRIDGE_IDS_H */
