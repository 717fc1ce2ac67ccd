"""Writing a file so that a reader, a crash or a kill never sees half of it.

Every file lambdafuzz saves (corpus and failure inputs, stats, sampled files, the analysis
cache, the report) goes through here: a temporary file in the same directory, then
`os.replace`, which is atomic on POSIX filesystems. `durable` also fsyncs before the
rename, for what must survive a power cut (saved inputs), not just a killed process.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_bytes_atomic(path: Path, data: bytes, *, durable: bool = False) -> None:
    """Replace `path` with `data` in one step; the parent directory is created if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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


def write_text_atomic(path: Path, text: str, *, durable: bool = False) -> None:
    """`write_bytes_atomic` of UTF-8 text."""
    write_bytes_atomic(path, text.encode("utf-8"), durable=durable)
