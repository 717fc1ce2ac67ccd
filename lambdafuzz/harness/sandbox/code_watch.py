"""Where the workers' code folders could not be made read-only: what the campaign's handler
changed in them, said once.

A worker makes the function's code read-only in its mount namespace (`private_view`).
Without one (guard-only mode, a kernel that refuses namespaces, another OS) a handler can
append to its own module or drop new ones, and the next worker imports them.  The
campaign then takes a `CodeSnapshot` of the app dirs' `*.py` files (their digests) before
its workers start and compares after the campaign (`changes`): a file changed, added or
removed is named in one notice.  Bounded: `MAX_FILES` files of at most `MAX_BYTES` each
(a larger one is compared by size and mtime); ~1 ms for a handler's package.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MAX_FILES = 2000
MAX_BYTES = 4 * 1024 * 1024
#: Folders never walked (not the function's code).
SKIPPED = frozenset({"__pycache__", ".git", ".venv", "node_modules", ".mypy_cache"})


@dataclass(slots=True, frozen=True)
class CodeSnapshot:
    """Digest of every `*.py` file under the code folders, by path."""

    digests: Mapping[str, str]
    complete: bool  # False: more than MAX_FILES files, the rest not watched

    @classmethod
    def take(cls, folders: Iterable[str]) -> CodeSnapshot:
        digests: dict[str, str] = {}
        complete = True
        for path in _python_files(folders):
            if len(digests) >= MAX_FILES:
                complete = False
                break
            digests[path] = _digest(path)
        return cls(digests, complete)

    def changes(self, folders: Iterable[str]) -> list[str]:
        """The files changed, added or removed since this snapshot, each with how."""
        now = CodeSnapshot.take(folders)
        found = []
        for path, digest in now.digests.items():
            before = self.digests.get(path)
            if before is None:
                if self.complete:
                    found.append(f"{path} (added)")
            elif before != digest:
                found.append(f"{path} (changed)")
        if now.complete:
            found += [f"{path} (removed)" for path in self.digests if path not in now.digests]
        return sorted(found)


def _python_files(folders: Iterable[str]) -> list[str]:
    found: list[str] = []
    for folder in folders:
        if os.path.isfile(folder):
            found.append(folder)
            continue
        for top, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
            found += [os.path.join(top, f) for f in sorted(files) if f.endswith(".py")]
            if len(found) > MAX_FILES:
                return found
    return found


def _digest(path: str) -> str:
    try:
        info = os.stat(path)
        if info.st_size > MAX_BYTES:
            return f"size {info.st_size} mtime {info.st_mtime_ns}"
        with open(path, "rb") as fh:
            return hashlib.blake2b(fh.read(), digest_size=16).hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"


__all__ = ["CodeSnapshot"]
