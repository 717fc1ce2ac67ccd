"""The machine's processes read from /proc, for tests that kill campaigns and look for
what outlived them (tests/fuzzer/test_kill_resume.py, tests/harness/test_fork_server.py)."""

from __future__ import annotations

import os
from pathlib import Path


def stat(pid: int) -> tuple[int, int, str] | None:
    """(ppid, session id, state) of a live process, None when it is gone or a zombie."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    state, ppid, session = fields[0], int(fields[1]), int(fields[3])
    return None if state in ("Z", "X") else (ppid, session, state)


def processes() -> dict[int, tuple[int, int, str]]:
    table = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and (info := stat(int(name))) is not None:
            table[int(name)] = info
    return table


def campaign_processes(leader: int) -> set[int]:
    """The campaign's processes: descendants of `leader`, and its session's members."""
    table = processes()
    found = {pid for pid, (_, session, _) in table.items() if session == leader}
    frontier = [leader]
    while frontier:
        parent = frontier.pop()
        for pid, (ppid, _, _) in table.items():
            if ppid == parent and pid not in found:
                found.add(pid)
                frontier.append(pid)
    found.discard(leader)
    return found


def alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if stat(pid) is not None}


def command(pid: int) -> str:
    """A process's command line, arguments joined by spaces ("" when it is gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""
