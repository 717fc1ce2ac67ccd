"""What of the host's files a worker sees: the user's home hidden, the function's code
read-only.  Applied in the worker's mount namespace (`isolation.isolate_worker`), so
nothing changes on the host and it all vanishes with the worker.

* **Hidden** (`user_secrets`, named by the campaign): its HOME (`$HOME` and the passwd
  entry's), `/root` when it runs as root, and `AWS_SHARED_CREDENTIALS_FILE` /
  `AWS_CONFIG_FILE` when they are set to a file elsewhere.  A directory gets an empty,
  read-only tmpfs over it, a file `/dev/null` bound over it: `~/.aws`, `~/.ssh`, `~/.netrc`,
  `~/.config`, shell histories, ... are not there, by any path.  Hiding all of HOME rather
  than a list of its known secrets: the list is never complete.
* What the worker needs that lies under a hidden directory - the handler's root, layers and
  app dirs, the `sys.path` entries (a venv or a user site under HOME), Python's prefixes,
  its working directory - is **bound back read-only**, at its own path (held by a
  descriptor opened before anything was covered); its own temp dir (`worker_dir`) is bound
  back writable.  A needed path that is a hidden directory or above one (HOME itself on
  `sys.path`, the campaign started from HOME) does not unhide it: the worker sees the
  empty cover there.  Only handler code that is (or holds) a hidden directory leaves that
  one unhidden, and the isolation line says why.
* **Read-only code**: the handler's root, its layers and app dirs are bind-mounted onto
  themselves read-only: appending to the handler's module or dropping a new module next to
  it fails with EROFS (and Python's `__pycache__` writes there are skipped, silently).

Where no mount namespace can be made none of this is in force; the campaign then watches
the code folder instead (`code_watch`).  Cost: one open and two or three mount calls per
path, at a worker's start only.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import pwd
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
_MS_REMOUNT, _MS_BIND, _MS_REC = 0x20, 0x1000, 0x4000
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 0x400, 0x800, 0x200000
_ST_RELATIME = 0x1000
#: flags of a mount a user namespace may not clear when it remounts it read-only
_LOCKED = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC | _MS_NOATIME | _MS_NODIRATIME
COVER_SIZE = "16k"


@dataclass(slots=True, frozen=True)
class View:
    """What was done: the paths hidden, the code folders made read-only, and why anything
    asked for was not ("" when all was)."""

    hidden: tuple[str, ...] = ()
    readonly: tuple[str, ...] = ()
    reason: str = ""


def user_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """Campaign side: the paths a worker must not see (real paths, existing ones only)."""
    environ = os.environ if environ is None else environ
    found: list[str] = []
    homes = [environ.get("HOME", "")]
    with contextlib.suppress(KeyError, OSError):
        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    if os.geteuid() == 0:
        homes.append("/root")
    files = [environ.get(n, "") for n in ("AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE")]
    for path in (*homes, *files):
        if path and os.path.isabs(path) and os.path.exists(path):
            real = os.path.realpath(path)
            if real not in found and not any(_under(t, real) for t in _NEVER_COVERED):
                found.append(real)
    return tuple(found)


#: Folders a cover must never be over (nor over a folder above them): the worker's private
#: /tmp and HOME live there (a HOME of /tmp, as some CI sets, is hidden by that private /tmp).
_NEVER_COVERED = ("/tmp", "/dev/shm", "/var/tmp", "/usr", "/proc", "/dev")


def needed_paths(keep_visible: Iterable[str]) -> list[str]:
    """What a worker reads after it isolated itself (see `isolation._blocking_path`)."""
    paths = [
        *keep_visible,
        *(p for p in sys.path if p),
        sys.prefix,
        sys.exec_prefix,
        sys.base_prefix,
        sys.base_exec_prefix,
        os.path.dirname(sys.executable),
        os.path.dirname(os.path.realpath(sys.executable)),
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    ]
    with contextlib.suppress(OSError):
        paths.append(os.getcwd())
    return paths


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def apply_view(
    libc: ctypes.CDLL,
    *,
    hidden: Iterable[str],
    code: Iterable[str],
    needed: Iterable[str],
    writable: Iterable[str] = (),
) -> View:
    """In this process's (new, private) mount namespace: cover `hidden`, bind back what
    of `needed` (read-only) and `writable` lies under a covered directory, and make `code`
    read-only.  What fails is said in `View.reason`, never raised."""
    problems: list[str] = []
    code = _existing(code)
    hide = _existing(hidden)
    for path in code:  # the handler's code is (or holds) a hidden folder: that one stays
        for top in [t for t in hide if _under(t, path)]:
            hide.remove(top)
            problems.append(f"{top} not hidden: it holds the handler's code {path}")
    keep = [p for p in _existing(needed) if any(_under(p, h) and p != h for h in hide)]
    dirs = [h for h in hide if os.path.isdir(h)]
    files = [h for h in hide if not os.path.isdir(h) and not any(_under(h, d) for d in dirs)]
    # every source held before anything is covered
    ro = _outermost([*code, *(p for p in keep if any(_under(p, d) for d in dirs))])
    rw = _outermost([p for p in _existing(writable) if any(_under(p, d) for d in (*dirs, *ro))])
    held = [(path, _hold(path), False) for path in ro] + [(path, _hold(path), True) for path in rw]
    made_hidden: list[str] = []
    made_ro: list[str] = []
    try:
        for top in dirs:
            options = f"size={COVER_SIZE},mode=0755".encode()
            error = _mount(libc, b"tmpfs", top, b"tmpfs", _MS_NOSUID | _MS_NODEV, options)
            if error:
                problems.append(f"{top} not hidden: {error}")
            else:
                made_hidden.append(top)
        for path in files:
            error = _mount(libc, b"/dev/null", path, None, _MS_BIND, None)
            if error:
                problems.append(f"{path} not hidden: {error}")
            else:
                made_hidden.append(path)
        # parents before children: a writable worker dir inside a read-only folder
        for path, fd, writable_too in sorted(held, key=lambda h: h[0].count("/")):
            if fd < 0:
                problems.append(f"{path} not bound: it cannot be opened")
                continue
            error = _mount_point(path, made_hidden) or _bind(
                libc, fd, path, readonly=not writable_too
            )
            if error:
                problems.append(f"{path}: {error}")
            elif not writable_too and path in code:
                made_ro.append(path)
        for top in made_hidden:  # nothing to write on a cover either
            if os.path.isdir(top):
                _remount_readonly(libc, top)
    finally:
        for _, fd, _ in held:
            if fd >= 0:
                os.close(fd)
    return View(tuple(made_hidden), tuple(made_ro), "; ".join(problems))


def _existing(paths: Iterable[str]) -> list[str]:
    found: list[str] = []
    for path in paths:
        if path and os.path.isabs(path) and os.path.exists(path):
            real = os.path.realpath(path)
            if real != "/" and real not in found:
                found.append(real)
    return found


def _outermost(paths: Iterable[str]) -> list[str]:
    """`paths` without those inside another one of them."""
    ordered = sorted(set(paths), key=len)
    kept: list[str] = []
    for path in ordered:
        if not any(_under(path, top) for top in kept):
            kept.append(path)
    return kept


def _hold(path: str) -> int:
    try:
        return os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return -1


def _mount(
    libc: ctypes.CDLL,
    source: bytes | None,
    target: str,
    fstype: bytes | None,
    flags: int,
    data: bytes | None,
) -> str:
    if libc.mount(source, target.encode(), fstype, flags, data) != 0:
        return f"mount: {os.strerror(ctypes.get_errno())}"
    return ""


def _mount_point(path: str, covered: Iterable[str]) -> str:
    """Make the folders above `path` exist again on a cover it is under."""
    if os.path.exists(path) or not any(_under(path, top) for top in covered):
        return ""
    try:
        os.makedirs(os.path.dirname(path), 0o755, exist_ok=True)
    except OSError as exc:
        return f"making its mount point: {exc.strerror or exc}"
    return ""


def _bind(libc: ctypes.CDLL, fd: int, path: str, *, readonly: bool) -> str:
    source = f"/proc/self/fd/{fd}"
    try:
        if not os.path.exists(path):
            if os.path.isdir(source):
                os.mkdir(path, 0o755)
            else:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644))
    except OSError as exc:
        return f"making its mount point: {exc.strerror or exc}"
    error = _mount(libc, source.encode(), path, None, _MS_BIND | _MS_REC, None)
    if error or not readonly:
        return error
    return _remount_readonly(libc, path)


def _remount_readonly(libc: ctypes.CDLL, path: str) -> str:
    """Remount the bind (or tmpfs) at `path` read-only, keeping the flags a user namespace
    may not clear (they are locked)."""
    try:
        current = os.statvfs(path).f_flag
    except OSError as exc:
        return f"statvfs: {exc.strerror or exc}"
    flags = _MS_REMOUNT | _MS_BIND | _MS_RDONLY | (current & _LOCKED)
    if current & _ST_RELATIME:
        flags |= _MS_RELATIME
    return _mount(libc, None, path, None, flags, None)


__all__ = ["View", "apply_view", "needed_paths", "user_secrets"]
