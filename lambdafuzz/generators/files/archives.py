"""ZIP archives of other generated files, and gzip-compressed files.

Entries get nested directory names (sometimes with explicit directory entries, sometimes
without, as real tools differ), a drawn timestamp and compression method; an archive is
now and then empty, and now and then has many members (`MANY_P`).  What goes inside
comes from callbacks (the dispatcher's `member_file` and `read_member`, which also holds
the public `zip_archives` and `gzip_files` generators), which keeps this module free of
the format table, and of importing the dispatcher, and bounds the nesting.

Output is byte-for-byte reproducible: entry timestamps are drawn, gzip's mtime is 0 and
no file name is stored in the gzip header.  Entry names never contain `..` or a leading
`/`: a handler that extracts a zip must not be able to write outside its target while the
fuzzer runs it in-process.

With edge values on, an archive with a file member may have one member broken after
writing (`file_edges`: a wrong CRC-32, the encrypted flag, an unknown compression method),
patched into both its local and its central header.  When the code names file extensions
(`.csv`), the broken member is mostly one the handler reads: a member with such an
extension, appended to the archive when it has none.
"""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable
from typing import Final

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import datetimes
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.alphabets import NAME
from lambdafuzz.generators.files.budget import fits
from lambdafuzz.generators.files.generated import GeneratedFile
from lambdafuzz.generators.sizes import scaled_mean, scaled_p

MemberT = Callable[[Choices, int], GeneratedFile]
GzipMemberT = Callable[[Choices, int], bytes]
#: A plain (not archive) file with one of the extensions the code names, drawn, or None
#: without a draw when no plain format has such an extension.
ReadMemberT = Callable[[Choices, frozenset[str]], GeneratedFile | None]

DIRECTORIES: Final = ("data", "images", "reports", "2024", "archive", "in", "__MACOSX", "tmp")
STEMS: Final = ("data", "report", "image", "photo", "export", "grades", "readme", "IMG_0001")
MAX_ENTRIES: Final = 8
#: Real archives have a long tail of member counts (a camera dump, a month of log shards,
#: an export in parts): with probability MANY_P an archive has tens (up to 99) or hundreds
#: (up to MAX_MANY_ENTRIES) of members, uniformly within the scale drawn: numbered copies
#: of one to three generated members, so they cost no draws.  A fresh count is as likely
#: to be large as small (not geometric: with a geometric mean of 60, a child's fresh count
#: passed 500 once in 3000), so the cost objective can push a handler's per-member work
#: to the top by mutation.  Measured on `zip_archives` over seeds 0-599: without it 2.72
#: entries on average (parent directories included), at most 13; with it 4.05, three
#: archives of more than 50 members, at most 529.  Generation time, two alternating runs
#: each on a box at load 7: mean 8.4 and 11.0 ms before, 11.8 and 10.9 ms after (inside
#: the noise), median 1.44 and 1.46 ms before, 1.39 and 1.35 after; an archive forced
#: into the tail took 25 ms for its 320 members on average (78 us a member).
MANY_P: Final = 0.01
MANY_SCALES: Final = (99, 1000)
MAX_MANY_ENTRIES: Final = MANY_SCALES[-1]
#: Copies stop once the members' bytes pass this (a template may be a nested zip).
MAX_MANY_BYTES: Final = 2 * 1024 * 1024
#: How copies are numbered, as tools name them: `IMG_0001_0002.jpg`, `part-2.csv`, `a (2).txt`.
NUMBERINGS: Final = ("_{:04d}", "-{}", " ({})")


def _segment(choices: Choices, known: tuple[str, ...], site: str) -> str:
    """A path segment: vocabulary or fresh/dictionary, without `/`, `\\`, NUL or a lone dot."""
    if choices.draw_boolean(0.6, site=f"{site}-common?"):
        return choices.draw_choice(known, site=site)
    raw = choices.draw_string(NAME + "-. ", 1, 12, site=site)
    cleaned = "".join("_" if ch in "/\\\0" or ord(ch) < 32 else ch for ch in raw).strip(".")
    return cleaned or "_"


@generator(labels.ZIP_ENTRY_NAME)
def _entry_name(choices: Choices, extension: str, is_dir: bool) -> str:
    depth = choices.draw_geometric(0.6, max_value=3, site="depth")
    parts = [_segment(choices, DIRECTORIES, "directory") for _ in range(depth)]
    if is_dir:
        parts.append(_segment(choices, DIRECTORIES, "directory"))
        return "/".join(parts) + "/"
    stem = _segment(choices, STEMS, "stem").replace(".", "_")
    parts.append(f"{stem}.{extension}" if extension else stem)
    return "/".join(parts)


@generator(labels.ZIP_ENTRY)
def _entry(choices: Choices, member: MemberT, depth: int) -> tuple[zipfile.ZipInfo, bytes]:
    is_dir = choices.draw_boolean(0.1, site="directory?")
    data = b""
    extension = ""
    if not is_dir:
        inner = member(choices, depth + 1)
        data, extension = inner.data, inner.extension
    name = _entry_name(choices, extension, is_dir)
    stamp = datetimes(choices, min_year=1980, max_year=2099)
    info = zipfile.ZipInfo(name, date_time=stamp.timetuple()[:6])
    if is_dir:
        info.external_attr = 0o40755 << 16 | 0x10  # what ZipFile.mkdir writes
    else:
        info.external_attr = 0o644 << 16
        deflate = choices.draw_boolean(0.7, site="deflate?")
        info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
    return info, data


def zip_archive(choices: Choices, member: MemberT, read_member: ReadMemberT, depth: int) -> bytes:
    """A zip archive of generated files; `depth` is this archive's nesting level."""
    if depth < 0:
        raise InvalidArgument(f"zip_archives: depth={depth!r} must be >= 0")
    n = 0
    if not choices.draw_boolean(0.05, site="empty?"):
        # both at the size scale (`generators.sizes`): with it unzip's handler took 15.0
        # ms a test against 20.5 (frontier, seed 1, 60 s; BENCHMARKS.md, "Size schedule")
        if choices.draw_boolean(scaled_p(choices, MANY_P), site="many?"):
            return _many_members(choices, member, depth)
        mean = scaled_mean(choices, 1.5)
        n = choices.draw_geometric(mean, min_value=1, max_value=MAX_ENTRIES, site="entries")
    buffer = io.BytesIO()
    files: list[str] = []  # the file members, in the archive's order
    with zipfile.ZipFile(buffer, "w") as archive:
        names: set[str] = set()
        for _ in range(n):
            if not fits(choices, 1500):
                break
            info, data = _entry(choices, member, depth)
            if info.filename in names:
                continue  # zipfile warns on duplicates; the first entry wins
            names.add(info.filename)
            with_parents = (
                choices.draw_boolean(0.3, site="parents?")
                if "/" in info.filename.rstrip("/")
                else False
            )
            if with_parents:
                _add_parents(archive, info, names)
            archive.writestr(info, data)
            if not info.is_dir():
                files.append(info.filename)
    data = buffer.getvalue()
    if choices.edge_values:
        data = _corrupt_member(choices, data, files, read_member)
    return data


def _corrupt_member(
    choices: Choices, data: bytes, files: list[str], read_member: ReadMemberT
) -> bytes:
    """`data` with one of its file members (`files`, in order) broken, if an edge class is
    drawn (archives without a file member draw none); mostly one the code reads
    (`file_edges.READ_MEMBER_P`: an extension it names), added when there is none."""
    if not files:
        return data
    edge = file_edges.draw_edge(choices, "zip")
    if edge is None:
        return data
    with choices.scope(labels.FILE_EDGE):
        index = choices.draw_integer(0, len(files) - 1, site="member")
        named = file_edges.code_extensions(choices)
        if named and choices.draw_boolean(file_edges.READ_MEMBER_P, site="read-member?"):
            read = [i for i, name in enumerate(files) if file_edges.extension_of(name) in named]
            if read:
                index = read[choices.draw_integer(0, len(read) - 1, site="read-member")]
            else:
                data, index = _add_read_member(choices, data, named, files, read_member)
        method = 99
        if edge == "unknown-method":
            method = choices.draw_choice(file_edges.UNKNOWN_METHODS, site="method")
    return file_edges.corrupt_member(data, index, edge, method)


def _add_read_member(
    choices: Choices,
    data: bytes,
    named: frozenset[str],
    files: list[str],
    read_member: ReadMemberT,
) -> tuple[bytes, int]:
    """`data` with a member appended whose extension the code names (a plain format's:
    no nested archive, so nesting stays bounded), and that member's index; `data` and a
    drawn index when no plain format has such an extension."""
    file = read_member(choices, named)
    if file is None:
        return data, choices.draw_integer(0, len(files) - 1, site="member")
    name = _entry_name(choices, file.extension, False)
    while name in files:
        name = "_" + name
    info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    buffer = io.BytesIO(data)
    with zipfile.ZipFile(buffer, "a") as archive:
        archive.writestr(info, file.data)
    files.append(name)
    return buffer.getvalue(), len(files) - 1


def _many_members(choices: Choices, member: MemberT, depth: int) -> bytes:
    """An archive of MAX_ENTRIES+1 to MAX_MANY_ENTRIES members: numbered copies of one to
    three generated entries (the draws are the count, the numbering and the templates)."""
    top = choices.draw_choice(MANY_SCALES, site="scale")
    n = choices.draw_integer(MAX_ENTRIES + 1, top, site="many")
    numbering = choices.draw_choice(NUMBERINGS, site="numbering")
    templates = [
        _entry(choices, member, depth)
        for _ in range(choices.draw_integer(1, 3, site="templates"))
        if fits(choices, 1500)
    ]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        names: set[str] = set()
        total = 0
        for i in range(n if templates else 0):
            info, data = templates[i % len(templates)]
            total += len(data)
            if total > MAX_MANY_BYTES:
                break
            name = _numbered(info.filename, numbering.format(i + 1))
            if name in names:
                continue
            names.add(name)
            copy = zipfile.ZipInfo(name, date_time=info.date_time)
            # stored, as zip tools store what does not shrink: deflating each copy cost
            # 383 us per 1 KiB member against 45 us stored (1000 members, load 7)
            copy.external_attr = info.external_attr
            archive.writestr(copy, data)
    return buffer.getvalue()


def _numbered(name: str, number: str) -> str:
    """`data/IMG_0001.jpg` with `_0002` -> `data/IMG_0001_0002.jpg` (directories too)."""
    slash = "/" if name.endswith("/") else ""
    head, sep, tail = name.rstrip("/").rpartition("/")
    if slash:
        return f"{head}{sep}{tail}{number}/"
    stem, dot, extension = tail.partition(".")  # the first dot: `.csv.gz` stays whole
    return f"{head}{sep}{stem}{number}{dot}{extension}"


def _add_parents(archive: zipfile.ZipFile, info: zipfile.ZipInfo, names: set[str]) -> None:
    """Explicit entries for the directories above `info`, as `zip -r` writes them."""
    parts = info.filename.rstrip("/").split("/")[:-1]
    for i in range(1, len(parts) + 1):
        name = "/".join(parts[:i]) + "/"
        if name not in names:
            names.add(name)
            parent = zipfile.ZipInfo(name, date_time=info.date_time)
            parent.external_attr = 0o40755 << 16 | 0x10
            archive.writestr(parent, b"")


def gzip_of(choices: Choices, member: GzipMemberT, depth: int) -> bytes:
    """The gzip of a generated file (deterministic: mtime 0, no stored name)."""
    level = choices.draw_integer(1, 9, site="level")
    return gzip.compress(member(choices, depth + 1), compresslevel=level, mtime=0)
