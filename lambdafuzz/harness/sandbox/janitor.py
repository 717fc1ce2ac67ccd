"""The janitor: a process in a session of its own that makes a directory and removes it
once both its owner and the campaign are gone, however they end (a SIGKILL of the
campaign's whole process group included). A worker forks one for its temp dir
(`worker_faults.start_janitor`); a campaign spawns one (`spawn_janitor`) for the directory
multiprocessing's fork server puts its socket in (`fork_server`).

Only the standard library here: the spawned janitor imports this module alone.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import sys
import time


def janitor(
    worker_dir: str, campaign_pid: int, worker_gone: int, made: int, cgroup: str = ""
) -> None:
    """Make `worker_dir` in a session of its own, say so on `made` ("+"), then remove it
    once `worker_gone` reads end of file and the campaign has exited.  `cgroup`: the
    worker's (a forked janitor only, whose parent is the worker): killed and removed as
    soon as the worker has exited (`process_group.end_cgroup`)."""

    if os.getsid(0) != os.getpid():  # a spawned janitor leads its session already
        os.setsid()
    try:
        os.mkdir(worker_dir, 0o700)
    except FileExistsError:
        pass
    except OSError:
        if not cgroup:
            return  # the worker makes it, or says why it cannot
        worker_dir = ""  # the same, but the cgroup is still this janitor's to end
    worker = -1
    if cgroup:  # the worker waits for `made`: it is alive and this process's parent now
        try:
            worker = os.pidfd_open(os.getppid())
        except (OSError, AttributeError):
            worker = -1
    try:
        os.write(made, b"+" if worker_dir else b"-")
    except OSError:  # the owner died before it could read this: clean up all the same
        pass
    os.close(made)
    try:
        campaign = os.pidfd_open(campaign_pid)
    except (OSError, AttributeError):
        campaign = -1
    keep = sorted(fd for fd in (worker_gone, campaign, worker) if fd >= 0)
    low = 0
    for fd in keep:
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)
    if cgroup:
        from lambdafuzz.harness.sandbox.process_group import end_cgroup

        # the worker's exit, not the pipe's end: a hidden descendant holds the pipe, and a
        # handler that closes every descriptor ends it while its worker lives
        select.select([worker if worker >= 0 else worker_gone], [], [])
        end_cgroup(cgroup)
    while os.read(worker_gone, 1):
        pass
    while worker_dir and os.path.exists(worker_dir):
        if campaign >= 0:
            if select.select([campaign], [], [], 0.1)[0]:
                break  # the campaign exited
        else:
            time.sleep(0.1)
            if not _running(campaign_pid):
                break
    if worker_dir:
        shutil.rmtree(worker_dir, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def spawn_janitor(directory: str) -> int | None:
    """A janitor for `directory`, spawned (not forked: the calling process may run
    threads) in a session of its own; its owner is this process. Returns the descriptor
    this process must keep open for as long as the directory is in use (its end of file
    tells the janitor the owner is gone), or None when no janitor could make it."""
    from lambdafuzz.harness.sandbox.clean_env import worker_environment  # not when run as a script

    gone_read, gone_write = os.pipe()
    made_read, made_write = os.pipe()
    # this file run as a script: nothing of lambdafuzz (or the campaign's sys.path) imported
    args = (directory, os.getpid(), gone_read, made_write)
    try:
        subprocess.Popen(
            [sys.executable, "-I", os.path.abspath(__file__), *map(str, args)],
            pass_fds=(gone_read, made_write),
            start_new_session=True,
            env=worker_environment(),  # nothing of the user's in its /proc/<pid>/environ
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        os.close(gone_write)
        return None
    finally:
        os.close(gone_read)
        os.close(made_write)
    made = os.read(made_read, 1)
    os.close(made_read)
    if made != b"+":
        os.close(gone_write)
        return None
    return gone_write


def main(directory: str, campaign_pid: int, owner_gone: int, made: int) -> None:
    """The spawned janitor's life (`spawn_janitor`)."""
    try:
        janitor(directory, campaign_pid, owner_gone, made)
    finally:
        os._exit(0)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
