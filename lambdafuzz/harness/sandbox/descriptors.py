"""Descriptors the worker keeps for itself (its pipe, saved stdio, fault files), moved where a
handler that closes low descriptors does not reach them."""

from __future__ import annotations

import os

#: Descriptors the worker keeps for itself are moved at least this close below the limit.
_HIGH_FD_HEADROOM = 64


def high_fd(fd: int) -> int:
    """`fd` moved to the highest range the descriptor limit allows (close-on-exec), out of
    reach of a handler closing low descriptors."""
    import fcntl
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft < 0:
        soft = 1024
    floor = min(soft, 1024) - _HIGH_FD_HEADROOM
    if floor <= fd:
        return fd
    try:
        high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor)
    except OSError:
        return fd
    os.close(fd)
    return high
