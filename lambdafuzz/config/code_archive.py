"""A function whose `CodeUri` is a zip archive, unpacked as Lambda unpacks it.

SAM uploads a `.zip` CodeUri as the deployment package itself, and Lambda imports the
handler from its root.  lambdafuzz unpacks it once into its cache, in a directory named by
the archive's hash (the same archive always has the same path, so saved inputs replay and
coverage keys stay stable; nothing is written beside the template).  Archives are treated
as hostile: members that would land outside the directory, links, and archives larger than
Lambda's own limit are refused with a clear message.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from lambdafuzz.config.inline_code import cache_root
from lambdafuzz.errors import ConfigError

#: Lambda's limit on an unzipped deployment package.
MAX_UNPACKED_BYTES = 250 * 1024 * 1024
_MARKER = ".lambdafuzz-unpacked"


def code_archive_dir(archive: Path) -> Path:
    """The directory holding `archive`'s files (unpacked once, atomically)."""
    data = archive.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:20]
    directory = cache_root().parent / "code" / digest
    if (directory / _MARKER).is_file():
        return directory
    partial = directory.with_name(f".{digest}.{os.getpid()}.tmp")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    try:
        _unpack(archive, partial)
        (partial / _MARKER).write_text(str(archive))
        try:
            os.replace(partial, directory)
        except OSError:  # another process unpacked it first
            if not (directory / _MARKER).is_file():
                raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return directory


def _unpack(archive: Path, into: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if sum(m.file_size for m in members) > MAX_UNPACKED_BYTES:
                raise ConfigError(
                    f"{archive}: unpacks to more than 250 MB, Lambda's limit for a package."
                )
            for member in members:
                _check_member(archive, member)
            zf.extractall(into)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ConfigError(
            f"{archive}: not a readable zip archive ({exc}); expected the function's "
            "deployment package (CodeUri)."
        ) from None


def _check_member(archive: Path, member: zipfile.ZipInfo) -> None:
    name = PurePosixPath(member.filename)
    mode = member.external_attr >> 16
    if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
        raise ConfigError(
            f"{archive}: member {member.filename!r} would be written outside the package "
            "directory; refused."
        )
    if stat.S_ISLNK(mode):
        raise ConfigError(f"{archive}: member {member.filename!r} is a symbolic link; refused.")
