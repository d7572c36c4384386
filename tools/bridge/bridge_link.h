/*
 * emcp-bridge's link to the device: a serial port (termios raw mode: 8N1,
 * no echo, no line discipline, no flow control, the baud rate given) or a
 * TCP socket (QEMU's UART, ser2net), opened without blocking. What goes over
 * it, and when to reconnect, is bridge.c's business.
 */
#ifndef EMCP_BRIDGE_LINK_H
#define EMCP_BRIDGE_LINK_H

#include <stdbool.h>
#include <stddef.h>

/** Longest serial device path or TCP host name. */
#define EMCP_BRIDGE_SPEC_MAX 256
/** The serial port's speed when --baud is not given. */
#define EMCP_BRIDGE_DEFAULT_BAUD 115200

enum emcp_bridge_link_kind { EMCP_BRIDGE_SERIAL, EMCP_BRIDGE_TCP };

struct emcp_bridge_link {
    enum emcp_bridge_link_kind kind;
    char path[EMCP_BRIDGE_SPEC_MAX]; /**< Serial: the device path; TCP: the host. */
    char port[8];                    /**< TCP: the port. */
    long baud;                       /**< Serial: bits per second. */
    int fd;                          /**< -1 when closed. */
};

/**
 * Reads a device argument: "tcp:HOST:PORT" or a serial device path.
 * @param why Set to a message when the argument is refused.
 * @retval 0 Success. @retval -1 Refused.
 */
int emcp_bridge_link_parse(struct emcp_bridge_link *l, const char *spec, long baud, const char **why);

/** True when @p baud is a speed the serial port can be set to. */
bool emcp_bridge_baud_ok(long baud);

/**
 * Starts opening the link (non-blocking).
 * @retval 0 Open (serial, configured) or connected.
 * @retval 1 A TCP connect is under way: wait for POLLOUT, then emcp_bridge_link_finish.
 * @retval <0 -errno; the link stays closed.
 */
int emcp_bridge_link_open(struct emcp_bridge_link *l);

/** Completes a TCP connect after POLLOUT. @retval 0 connected. @retval <0 -errno (closed). */
int emcp_bridge_link_finish(struct emcp_bridge_link *l);

void emcp_bridge_link_close(struct emcp_bridge_link *l);

#endif /* EMCP_BRIDGE_LINK_H */
