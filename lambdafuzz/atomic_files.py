"""Writing a file so that a reader, a crash or a kill never sees half of it.

Every file lambdafuzz saves (corpus and failure inputs, stats, sampled files, the analysis
cache, the report) goes through here: a temporary file in the same directory, then
`os.replace`, which is atomic on POSIX filesystems.  `durable` also fsyncs the file before
the rename and its directory after it, for what must survive a power cut (saved inputs),
not just a killed process.

Files are created like `open(path, "w")` creates them: mode 0666 less the umask (0644
under the usual umask 022), not the 0600 of `mkstemp`.  A process killed between creating
the temporary file and the rename leaves a `.NAME.XXXXXXXXXXXX.tmp` behind;
`remove_stale_temps` clears those.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
from pathlib import Path

#: `.NAME.<random>.tmp`: what `write_bytes_atomic` (and the `mkstemp` it replaced) names
#: its temporary files.
TEMP_NAME = re.compile(r"\..+\.[A-Za-z0-9_]{6,16}\.tmp")
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_CREATE_FLAGS |= getattr(os, "O_NOFOLLOW", 0)
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS |= getattr(os, "O_NOFOLLOW", 0)


def write_bytes_atomic(
    path: Path, data: bytes, *, durable: bool = False, real_parent: bool = False
) -> None:
    """Replace `path` with `data` in one step; the parent directory is created if needed.

    A symlink at `path` is replaced, never followed (a rename replaces the link itself).
    `real_parent`: the parent must be a directory, not a symlink to one (`OSError` ELOOP,
    or ENOTDIR for anything else there); it is opened once (`O_NOFOLLOW`) and the file is
    made and renamed through that descriptor, so it cannot be swapped for a symlink between
    the check and the write."""
    path = Path(path)
    if real_parent:
        _write_in_real_parent(path, data, durable)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if durable:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if durable:
        fsync_directory(path.parent)


def write_text_atomic(
    path: Path, text: str, *, durable: bool = False, real_parent: bool = False
) -> None:
    """`write_bytes_atomic` of UTF-8 text."""
    write_bytes_atomic(path, text.encode("utf-8"), durable=durable, real_parent=real_parent)


def _write_in_real_parent(path: Path, data: bytes, durable: bool) -> None:
    """`write_bytes_atomic` relative to a descriptor of `path.parent` opened without
    following a symlink (one open and close more per write)."""
    with contextlib.suppress(FileExistsError):  # something there: the open below decides
        path.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(path.parent, _FOLDER_FLAGS)
    try:
        fd, tmp = _create_temp(path, folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                if durable:
                    fh.flush()
                    os.fsync(fh.fileno())
            os.replace(tmp, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            raise
        if durable:
            _fsync_fd(folder)
    finally:
        os.close(folder)


def fsync_directory(directory: Path) -> None:
    """Make a rename (or creation, or removal) in `directory` durable.  Filesystems that
    cannot fsync a directory are accepted as they are."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        _fsync_fd(fd)
    finally:
        os.close(fd)


def _fsync_fd(fd: int) -> None:
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EACCES):
            raise


def remove_stale_temps(directory: Path) -> int:
    """Delete the temporary files a killed writer left in `directory`; how many there were.
    Call it only when no other process writes there (a campaign owns its out dir)."""
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if TEMP_NAME.fullmatch(entry.name) and entry.is_file(follow_symlinks=False):
            try:
                os.unlink(entry.path)
                removed += 1
            except OSError:
                continue
    return removed


def _create_temp(path: Path, folder: int | None = None) -> tuple[int, str]:
    """A new, empty temporary file beside `path`, created with mode 0666 so that the
    process's umask decides the final permissions; `folder`: a descriptor of the parent,
    then the name returned is relative to it."""
    for _ in range(100):
        name = f".{path.name}.{secrets.token_hex(6)}.tmp"
        tmp = name if folder is not None else str(path.with_name(name))
        try:
            return os.open(tmp, _CREATE_FLAGS, 0o666, dir_fd=folder), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(path.parent))
