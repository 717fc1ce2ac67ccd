"""File-format edge values: the rare files that break real handlers, drawn on purpose.

Real handlers fail on images in an unusual mode or too large for the size they resize to,
on text in cp1252 or UTF-16, on a CSV whose header lacks the column they read, on a zip
member they cannot decompress, on an encrypted PDF.  The plain generators make such files
rarely or never.  With `Choices.edge_values` set, each format generator first draws one
*edge class* for the file (or none) here, with a documented rate per class; the class then
shapes the draws that follow.  With the flag off nothing is drawn, so the recording and the
bytes are exactly those of the plain generator.

The class draw is one `draw_weighted` labelled `lambdafuzz.FileEdge`: it is recorded,
replays, and a mutation that changes it moves the file to another class (or to none).
Classes that do not apply to a particular call (no column names in the dictionary, a
format without EXIF) are left out of that draw and the others keep their rates.
"""

from __future__ import annotations

import io
import math
import re
import struct
import zipfile
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices, generator

# ----------------------------------------------------------------------------- rates
# Per file of the format.  A campaign of 3000 executions draws a few thousand files, so a
# class at 2% still appears dozens of times; the sum per format stays well under one half
# so most files remain the plain generator's.

#: An image in a mode Pillow writes for the format but the plain generator rarely or never
#: draws (PNG 1/LA/P with transparency/I;16/RGBA/L, JPEG CMYK/L, GIF P with transparency/1).
IMAGE_MODE_RATE: Final = 0.06
#: A 1x1 image.
IMAGE_TINY_RATE: Final = 0.02
#: An extreme aspect ratio: one side 1-3 px, the other up to `MAX_LARGE_SIDE`.
IMAGE_ASPECT_RATE: Final = 0.03
#: EXIF orientation 1-8 always written (JPEG and PNG).
IMAGE_ORIENTATION_RATE: Final = 0.04
#: Sides at, just below, just above (and twice) the numbers of the code (`Choices.numbers`)
#: or common thresholds: a handler's resize path.  Top-level images only (not archive members).
#: The costliest class (a large image takes 2-10x a plain one to encode), so the rate is
#: set where edge values stay near the 10% bound of `benchmarks/file_generators.py`.
IMAGE_LARGE_RATE: Final = 0.06
#: The encoded image cut short, so that Pillow fails to load it fully.
IMAGE_TRUNCATED_RATE: Final = 0.03

#: Per zip archive with at least one file member: one member's CRC-32 is wrong
#: (`zipfile` raises BadZipFile on read).  When the code names file extensions, the broken
#: member is one with such an extension (`READ_MEMBER_P`), added if the archive has none.
ZIP_BAD_CRC_RATE: Final = 0.04
#: The share of member edges that break a member the code reads (one whose extension the
#: code names, `code_extensions`) rather than any member: a handler that stages only the
#: `.csv` members of an archive never opens the broken `.png`.
READ_MEMBER_P: Final = 0.8
#: One member has the "encrypted" flag set (`zipfile` raises RuntimeError: password required).
ZIP_ENCRYPTED_RATE: Final = 0.03
#: One member names a compression method zipfile lacks (NotImplementedError).
ZIP_UNKNOWN_METHOD_RATE: Final = 0.03

#: Text formats (CSV, JSON, XML, plain text), each encoding class at this rate.
TEXT_ENCODING_RATE: Final = 0.02
#: JSON and XML with Windows line endings (CSV and text already draw CRLF half the time).
CRLF_RATE: Final = 0.03

#: A CSV that is a header line and nothing else.
CSV_HEADER_ONLY_RATE: Final = 0.03
#: A CSV whose header is every column name the code reads (from the dictionary).
CSV_COLUMNS_ALL_RATE: Final = 0.04
#: ... all of them but one.
CSV_COLUMNS_BUT_ONE_RATE: Final = 0.03
#: ... all of them, one misspelt.
CSV_COLUMNS_MISSPELT_RATE: Final = 0.03

#: A PDF encrypted with a user password (RC4, deterministic bytes).
PDF_ENCRYPTED_RATE: Final = 0.05
#: A PDF cut short (no `%%EOF`, no xref).
PDF_TRUNCATED_RATE: Final = 0.03
#: A PDF whose `startxref` points at the wrong place and whose xref table is damaged.
PDF_BAD_XREF_RATE: Final = 0.03
#: A PDF among top-level files of any format (PDF is not one of the plain `any` formats).
#: Low: a PDF costs about six plain `any` files to generate (fpdf2), and this class alone
#: at 3% made edge values cost 14% of `any`'s generation time (benchmarks/file_generators.py).
PDF_IN_ANY_RATE: Final = 0.01


@dataclass(frozen=True, slots=True)
class FileEdge:
    """One edge-value class: its name, the groups (formats) it applies to, its rate."""

    name: str
    groups: frozenset[str]
    rate: float


_IMAGES: Final = frozenset({"png", "jpeg", "gif", "bmp", "tiff", "webp"})
_TEXTS: Final = frozenset({"csv", "json", "xml", "text"})

#: Text encoding classes and what they write.
ENCODINGS: Final = ("cp1252", "latin-1", "utf-16-bom", "utf-8-bom", "invalid-utf-8")

CLASSES: Final = (
    FileEdge("mode", _IMAGES, IMAGE_MODE_RATE),
    FileEdge("tiny", _IMAGES, IMAGE_TINY_RATE),
    FileEdge("aspect", _IMAGES, IMAGE_ASPECT_RATE),
    FileEdge("orientation", frozenset({"png", "jpeg"}), IMAGE_ORIENTATION_RATE),
    FileEdge("large", _IMAGES, IMAGE_LARGE_RATE),
    FileEdge("truncated-image", _IMAGES, IMAGE_TRUNCATED_RATE),
    FileEdge("bad-crc", frozenset({"zip"}), ZIP_BAD_CRC_RATE),
    FileEdge("encrypted-member", frozenset({"zip"}), ZIP_ENCRYPTED_RATE),
    FileEdge("unknown-method", frozenset({"zip"}), ZIP_UNKNOWN_METHOD_RATE),
    *(FileEdge(name, _TEXTS, TEXT_ENCODING_RATE) for name in ENCODINGS),
    FileEdge("crlf", frozenset({"json", "xml"}), CRLF_RATE),
    FileEdge("header-only", frozenset({"csv"}), CSV_HEADER_ONLY_RATE),
    FileEdge("columns-all", frozenset({"csv"}), CSV_COLUMNS_ALL_RATE),
    FileEdge("columns-but-one", frozenset({"csv"}), CSV_COLUMNS_BUT_ONE_RATE),
    FileEdge("columns-misspelt", frozenset({"csv"}), CSV_COLUMNS_MISSPELT_RATE),
    FileEdge("encrypted", frozenset({"pdf"}), PDF_ENCRYPTED_RATE),
    FileEdge("truncated", frozenset({"pdf"}), PDF_TRUNCATED_RATE),
    FileEdge("bad-xref", frozenset({"pdf"}), PDF_BAD_XREF_RATE),
    FileEdge("pdf", frozenset({"any"}), PDF_IN_ANY_RATE),
)


def classes_for(group: str, exclude: Collection[str] = ()) -> tuple[FileEdge, ...]:
    """The classes drawn for a file of `group`, minus those that do not apply here."""
    return tuple(c for c in CLASSES if group in c.groups and c.name not in exclude)


def _options(
    group: str, exclude: Collection[str]
) -> tuple[tuple[str | None, ...], tuple[float, ...]]:
    classes = classes_for(group, exclude)
    rates = tuple(c.rate for c in classes)
    return (None, *(c.name for c in classes)), (1.0 - sum(rates), *rates)


#: The options and weights of each group's class draw without exclusions, built once: the
#: draw runs for every file, and rebuilding them each time cost a third of it (measured).
_PLAIN_OPTIONS: Final = {group: _options(group, ()) for c in CLASSES for group in c.groups}
_SITES: Final = {group: f"{group}-edge" for group in _PLAIN_OPTIONS}


def draw_edge(choices: Choices, group: str, *, exclude: Collection[str] = ()) -> str | None:
    """The edge class of this file (None: a plain one); draws nothing unless edge values
    are on, so the plain generator's recording is untouched."""
    if not choices.edge_values:
        return None
    options, weights = _options(group, exclude) if exclude else _PLAIN_OPTIONS[group]
    if len(options) == 1:
        return None
    return _edge_class(choices, options, weights, _SITES[group])


@generator(labels.FILE_EDGE)
def _edge_class(
    choices: Choices, options: tuple[str | None, ...], weights: tuple[float, ...], site: str
) -> str | None:
    # a generator frame, not `choices.scope`: the context manager cost ~1.4 of the 11.7 us
    # this draw took per file (measured), and it runs for every file
    return choices.draw_weighted(options, weights, site=site)


# ----------------------------------------------------------------------------- text
#: Byte sequences that are no UTF-8: a lone continuation byte, a truncated two-byte
#: sequence, an overlong NUL, an encoded surrogate, bytes UTF-8 never uses.
INVALID_UTF8: Final = (b"\x80", b"\xc3\x28", b"\xc0\x80", b"\xed\xa0\x80", b"\xff", b"\xfe\xfe")


def encode_text(choices: Choices, text: str, edge: str | None) -> bytes | None:
    """`text` in the encoding of `edge`, or None when `edge` is no encoding class.

    Characters the codec lacks become `?` (what a Windows tool writes); a leading BOM of
    the plain generator is dropped first so each class has exactly its own marks."""
    if edge not in ENCODINGS:
        return None
    text = text.removeprefix("\ufeff")
    if edge == "cp1252":
        return text.encode("cp1252", errors="replace")
    if edge == "latin-1":
        return text.encode("latin-1", errors="replace")
    if edge == "utf-16-bom":
        # explicit little-endian with its BOM: "utf-16" would follow the machine's byte order
        return b"\xff\xfe" + text.encode("utf-16-le", errors="replace")
    data = text.encode("utf-8", errors="replace")
    if edge == "utf-8-bom":
        return b"\xef\xbb\xbf" + data
    at = choices.draw_integer(0, len(data), site="invalid-at")
    bad = choices.draw_choice(INVALID_UTF8, site="invalid-bytes")
    return data[:at] + bad + data[at:]


def crlf(text: str) -> str:
    """Windows line endings throughout; a one-line document gets a final CRLF (else the
    class would leave a compact JSON document unchanged)."""
    text = text.replace("\r\n", "\n")
    if not text.endswith("\n"):
        text += "\n"
    return text.replace("\n", "\r\n")


# ----------------------------------------------------------------------------- columns
#: Dictionary constants that look like a column name a handler reads (`row["amount"]`).
_COLUMN: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_ .\-]{0,39}")
#: At most this many harvested names make one header (a header of 500 columns helps nobody).
MAX_HANDLER_COLUMNS: Final = 32


def handler_columns(choices: Choices) -> tuple[str, ...]:
    """The column names the code may read: identifier-like dictionary constants, in order."""
    dictionary = choices.dictionary
    cached = _COLUMNS.get(id(dictionary))
    if cached is not None and cached[0] is dictionary:
        return cached[1]
    found: dict[str, None] = {}
    for constant in dictionary:
        if _COLUMN.fullmatch(constant) and not constant.isdigit():
            found[constant] = None
            if len(found) == MAX_HANDLER_COLUMNS:
                break
    _COLUMNS.clear()
    _COLUMNS[id(dictionary)] = (dictionary, tuple(found))
    return tuple(found)


#: Dictionary constants that look like a file extension the code tests for (`.csv`).
_EXTENSION: Final = re.compile(r"\.[A-Za-z0-9]{1,8}")


def code_extensions(choices: Choices) -> frozenset[str]:
    """The file extensions the code names (`name.endswith(".csv")`), lower case, no dot:
    the members of an archive a handler reads."""
    dictionary = choices.dictionary
    cached = _EXTENSIONS.get(id(dictionary))
    if cached is not None and cached[0] is dictionary:
        return cached[1]
    found = frozenset(c[1:].lower() for c in dictionary if _EXTENSION.fullmatch(c))
    _EXTENSIONS.clear()
    _EXTENSIONS[id(dictionary)] = (dictionary, found)
    return found


#: The last dictionary's extensions, cached as `_COLUMNS` is (950 constants: 192 us a
#: scan, 0.17 us cached, per broken member; timeit, best of 3).
_EXTENSIONS: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {}


def extension_of(name: str) -> str:
    """The extension of an archive member's name, lower case, without the dot ("" none)."""
    base = name.rsplit("/", 1)[-1]
    return base.rsplit(".", 1)[-1].lower() if "." in base else ""


#: The last dictionary's column names: a campaign passes one dictionary tuple to every
#: input's `Choices`, and scanning a harvest of ~1,000 constants per CSV would cost more
#: than the CSV itself.  Keyed by identity, checked by identity (the tuple is kept alive).
_COLUMNS: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def misspell(choices: Choices, name: str) -> str:
    """`name` with one plausible typo: a letter dropped, doubled, case flipped, `_` -> ` `."""
    kind = choices.draw_choice(("drop", "double", "case", "separator"), site="typo")
    at = choices.draw_integer(0, len(name) - 1, site="typo-at")
    if kind == "separator" and "_" in name:
        return name.replace("_", " ", 1)
    if kind == "case" and name[at].swapcase() != name[at]:
        return name[:at] + name[at].swapcase() + name[at + 1 :]
    if kind == "drop" and len(name) > 1:
        return name[:at] + name[at + 1 :]
    return name[:at] + name[at] + name[at:]  # doubled: always differs


# ----------------------------------------------------------------------------- sizes
#: Thresholds image code commonly uses, when the code mentions no number of its own.
COMMON_SIDES: Final = (100, 128, 200, 256, 300, 512, 640, 800, 1024, 1080, 1920, 2048, 4096)
#: The longest side an edge image gets (Pillow's own generators allow this much).
MAX_LARGE_SIDE: Final = 4096
#: At most this many pixels per large image: encoding costs ~11 ms per megapixel as PNG
#: (compress_level 1) and ~55 ms as GIF (measured, Pillow 13), so larger areas would
#: dominate generation; a side above 724 comes with a shorter other side.
MAX_LARGE_PIXELS: Final = 1 << 19
#: Where a side lands relative to its target number.
_OFFSETS: Final = ("below", "at", "above", "double")


def size_targets(numbers: Sequence[int | float]) -> tuple[int, ...]:
    """The numbers usable as an image side, or the common thresholds when none is."""
    found = sorted(
        {
            int(n)
            for n in numbers
            if type(n) in (int, float) and math.isfinite(n) and 2 <= n <= MAX_LARGE_SIDE
        }
    )
    return tuple(found) or COMMON_SIDES


def near(choices: Choices, targets: Sequence[int], limit: int, site: str) -> int:
    """A side at, just below, just above or twice one of `targets`, at most `limit`."""
    target = choices.draw_choice(targets, site=f"{site}-target")
    offset = choices.draw_choice(_OFFSETS, site=f"{site}-offset")
    side = {"below": target - 1, "at": target, "above": target + 1, "double": 2 * target}[offset]
    return max(1, min(side, limit, MAX_LARGE_SIDE))


def large_sides(choices: Choices) -> tuple[int, int]:
    """Width and height of a large image, each near a number of the code, area capped."""
    targets = size_targets(choices.numbers)
    first = near(choices, targets, MAX_LARGE_SIDE, "side")
    second = near(choices, targets, max(1, MAX_LARGE_PIXELS // first), "other-side")
    if choices.draw_boolean(0.5, site="swap?"):
        return second, first
    return first, second


# ----------------------------------------------------------------------------- zip
_LOCAL: Final = b"PK\x03\x04"
_CENTRAL: Final = b"PK\x01\x02"
#: Methods zipfile cannot decompress: shrink, implode, deflate64, IBM TERSE, AES.
UNKNOWN_METHODS: Final = (1, 6, 9, 18, 99)


def corrupt_member(data: bytes, index: int, edge: str, method: int = 99) -> bytes:
    """The archive with its `index`-th file member broken as `edge` says, in both its local
    and its central header (readers trust either): `bad-crc` flips the CRC-32,
    `encrypted-member` sets general-purpose flag bit 0, `unknown-method` writes `method`."""
    buffer = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        infos = archive.infolist()
        position = archive.start_dir
    target = [info for info in infos if not info.is_dir()][index]
    for info in infos:
        if buffer[position : position + 4] != _CENTRAL:
            raise ValueError("zip central directory not where zipfile found it")
        names, extra, comment = struct.unpack_from("<HHH", buffer, position + 28)
        if info is target:
            break
        position += 46 + names + extra + comment
    local = target.header_offset
    if buffer[local : local + 4] != _LOCAL:
        raise ValueError("zip local header not where zipfile found it")
    if edge == "bad-crc":
        crc = target.CRC ^ 0xFFFFFFFF
        struct.pack_into("<I", buffer, local + 14, crc)
        struct.pack_into("<I", buffer, position + 16, crc)
    elif edge == "encrypted-member":
        buffer[local + 6] |= 1
        buffer[position + 8] |= 1
    elif edge == "unknown-method":
        struct.pack_into("<H", buffer, local + 8, method)
        struct.pack_into("<H", buffer, position + 10, method)
    else:
        raise ValueError(f"not a zip member edge class: {edge!r}")
    return bytes(buffer)
