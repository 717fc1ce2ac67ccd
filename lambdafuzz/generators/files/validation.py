"""What a strict consumer of a file accepts, judged by its extension.

The erroneous-file rate is only meaningful if "erroneous" means "a consumer would reject
it".  So the check here reads a file the way a handler that trusts the extension would:
no extension or an unknown one is rejected; otherwise the standard parser for that
extension must accept the bytes (csv in strict mode, json, xml.etree, Pillow with the
format the extension names, zipfile.testzip, gzip, pypdf in strict mode reading every
page's text without a password).  Text formats (csv, txt) must be UTF-8
without control characters and end with a newline (POSIX text file), which is what makes a
truncated CSV recognisable.  `deep` also checks zip entries and gzip contents by their own
extensions.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import zipfile
import zlib
from collections.abc import Callable
from typing import Final
from xml.etree import ElementTree

from lambdafuzz.generators.files.alphabets import is_text_char

#: Pillow's format name for each image extension.
IMAGE_EXTENSIONS: Final = {
    "png": "PNG", "jpg": "JPEG", "jpeg": "JPEG", "gif": "GIF",
    "bmp": "BMP", "tif": "TIFF", "tiff": "TIFF", "webp": "WEBP",
}  # fmt: skip
_CSV_DIALECTS: Final = tuple(
    {"delimiter": d, "quotechar": q, "strict": True}
    for q in ('"', "'")
    for d in (",", ";", "\t", "|")
    if d != q
) + tuple(
    {"delimiter": d, "quoting": csv.QUOTE_NONE, "escapechar": "\\", "strict": True}
    for d in (",", ";", "\t", "|")
)


def rejection(extension: str, data: bytes, *, deep: bool = True) -> str | None:
    """Why a strict consumer rejects `data` named `*.extension`; None if it accepts it."""
    ext = extension.lower()
    if not ext:
        return "missing extension"
    if ext == "gz" or ext.endswith(".gz"):
        return _gzip(ext[:-3], data, deep)
    if ext == "zip":
        return _zip(data, deep)
    if ext in IMAGE_EXTENSIONS:
        return _image(IMAGE_EXTENSIONS[ext], data)
    check = _CHECKS.get(ext)
    if check is None:
        return f"unknown extension {extension!r}"
    return check(data)


def extension_of(name: str) -> str:
    """The extension of a path: `csv` for `a/b.csv`, `csv.gz` for `b.csv.gz`, "" for `b`."""
    parts = name.rpartition("/")[2].split(".")
    if len(parts) < 2:
        return ""
    if parts[-1].lower() == "gz" and len(parts) >= 3:
        return f"{parts[-2]}.{parts[-1]}"
    return parts[-1]


def accepts(extension: str, data: bytes, *, deep: bool = True) -> bool:
    return rejection(extension, data, deep=deep) is None


def _text(data: bytes) -> tuple[str | None, str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8: {e}", ""
    bad = next((ch for ch in text if not is_text_char(ch)), None)
    if bad is not None:
        return f"control character {bad!r}", ""
    if text and not text.endswith("\n"):
        return "last line not terminated (truncated?)", ""
    return None, text


def _plain(data: bytes) -> str | None:
    return _text(data)[0]


def _csv(data: bytes) -> str | None:
    error, text = _text(data)
    if error:
        return error
    last = ""
    for dialect in _CSV_DIALECTS:
        try:
            for _ in csv.reader(io.StringIO(text, newline=""), **dialect):  # type: ignore[arg-type]
                pass
        except csv.Error as e:
            last = str(e)
            continue
        return None
    return f"csv: {last}"


def _json(data: bytes) -> str | None:
    try:
        json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        return f"json: {e}"
    return None


def _xml(data: bytes) -> str | None:
    try:
        ElementTree.fromstring(data)
    except ElementTree.ParseError as e:
        return f"xml: {e}"
    return None


def _image(expected: str, data: bytes) -> str | None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            found = image.format
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as e:
        return f"image: {type(e).__name__}: {e}"
    if found != expected:
        return f"image: expected {expected}, found {found}"
    return None


def _zip(data: bytes, deep: bool) -> str | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            bad = archive.testzip()
            if bad is not None:
                return f"zip: bad entry {bad!r}"
            if not deep:
                return None
            for info in archive.infolist():
                if info.is_dir():
                    continue
                ext = extension_of(info.filename)
                if ext and (error := rejection(ext, archive.read(info), deep=True)):
                    return f"zip entry {info.filename!r}: {error}"
    except (
        zipfile.BadZipFile,
        zlib.error,
        OSError,
        EOFError,
        ValueError,
        NotImplementedError,
        RuntimeError,  # a member flagged encrypted: "password required for extraction"
    ) as e:
        return f"zip: {type(e).__name__}: {e}"
    return None


def _gzip(inner_extension: str, data: bytes, deep: bool) -> str | None:
    try:
        inner = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as e:
        return f"gzip: {type(e).__name__}: {e}"
    if deep and inner_extension:
        error = rejection(inner_extension, inner, deep=True)
        return f"inside gzip: {error}" if error else None
    return None


def _pdf(data: bytes) -> str | None:
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data), strict=True)
        if reader.is_encrypted:
            return "pdf: encrypted"
        for page in reader.pages:
            page.extract_text()
    except Exception as e:  # pypdf raises a dozen kinds on damaged input (fuzzed: 1,500 files)
        return f"pdf: {type(e).__name__}: {e}"
    return None


_CHECKS: Final[dict[str, Callable[[bytes], str | None]]] = {
    "csv": _csv,
    "txt": _plain,
    "json": _json,
    "xml": _xml,
    "pdf": _pdf,
}
