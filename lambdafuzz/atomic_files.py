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


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Replace `path` with `data` in one step; the parent directory is created if needed."""
    path = Path(path)
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


def write_text_atomic(path: Path, text: str, *, durable: bool = False) -> None:
    """`write_bytes_atomic` of UTF-8 text."""
    write_bytes_atomic(path, text.encode("utf-8"), durable=durable)


def fsync_directory(directory: Path) -> None:
    """Make a rename (or creation, or removal) in `directory` durable.  Filesystems that
    cannot fsync a directory are accepted as they are."""
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EACCES):
            raise
    finally:
        os.close(fd)


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


def _create_temp(path: Path) -> tuple[int, str]:
    """A new, empty temporary file beside `path`, created with mode 0666 so that the
    process's umask decides the final permissions."""
    for _ in range(100):
        tmp = str(path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp"))
        try:
            return os.open(tmp, _CREATE_FLAGS, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(path.parent))
