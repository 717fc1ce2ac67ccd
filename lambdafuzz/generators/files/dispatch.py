"""Pick a file format, generate the file, and now and then break it on purpose.

This is what S3 objects, SQS bodies and zip entries are made of.  The format choice is
one labelled draw (`lambdafuzz.FileFormat`); the content is the format's own generator;
the corruption (SpotOn: probability 0.003) is a labelled draw after the content, so a
mutation that flips it leaves the content draws where they were.

PDF is a format of its own (`pdf`, `.pdf` keys, `application/pdf`) but not one of `any`'s:
a top-level `any` file is a PDF only as a file edge value (`file_edges.PDF_IN_ANY_RATE`),
so the plain generator's files stay what they were.

A corruption always yields a file the strict checks in `validation.py` reject: if the
drawn corruption happens to produce something still acceptable (a CSV cut exactly at a
line end), the extension is dropped instead, which no consumer accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, SiteT, generator
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.archives import gzip_of, zip_archive
from lambdafuzz.generators.files.csv_files import csv_files
from lambdafuzz.generators.files.generated import GeneratedFile
from lambdafuzz.generators.files.text_files import text_documents
from lambdafuzz.generators.files.validation import rejection

#: Formats that produce bytes of one kind each.
CONCRETE_FORMATS: Final = (
    "csv", "json", "xml", "text", "png", "jpeg", "gif", "zip", "gzip", "csv.gz",
)  # fmt: skip
#: Formats asked for by name only (not part of `any`): in a config's `formats`, or where a
#: key filter's suffix or the code names their extension (`named_formats`).
DOCUMENT_FORMATS: Final = ("pdf",)
NAMED_IMAGE_FORMATS: Final = ("bmp", "tiff", "webp")
#: Names that stand for several concrete formats.
FORMAT_GROUPS: Final = {"image": ("png", "jpeg", "gif"), "any": CONCRETE_FORMATS}
#: Every name `draw_file` accepts (and `lambdafuzz.yaml` `formats:` lists).
FORMATS: Final = (
    *CONCRETE_FORMATS[:7], "image", *CONCRETE_FORMATS[7:], *DOCUMENT_FORMATS,
    *NAMED_IMAGE_FORMATS, "any",
)  # fmt: skip

#: Usual extensions (the first is the default) and content types per concrete format.
EXTENSIONS: Final = {
    "csv": ("csv",),
    "json": ("json",),
    "xml": ("xml",),
    "text": ("txt",),
    "png": ("png",),
    "jpeg": ("jpg", "jpeg"),
    "gif": ("gif",),
    "zip": ("zip",),
    "gzip": ("gz",),  # really `<inner extension>.gz`
    "csv.gz": ("csv.gz",),
    "pdf": ("pdf",),
    "bmp": ("bmp",),
    "tiff": ("tif", "tiff"),
    "webp": ("webp",),
}
CONTENT_TYPES: Final = {
    "csv": "text/csv",
    "json": "application/json",
    "xml": "application/xml",
    "text": "text/plain",
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "zip": "application/zip",
    "gzip": "application/gzip",
    "csv.gz": "application/gzip",
    "pdf": "application/pdf",
    "bmp": "image/bmp",
    "tiff": "image/tiff",
    "webp": "image/webp",
}
CORRUPTIONS: Final = ("wrong-extension", "missing-extension", "truncated", "mismatched-content")
ARCHIVE_FORMATS: Final = frozenset({"zip", "gzip", "csv.gz"})
TEXT_FORMATS: Final = frozenset({"csv", "text"})
#: Files at this nesting depth are never archives: a zip in a zip is the deepest nesting.
MAX_DEPTH: Final = 2
#: Extensions a wrong-extension corruption picks from.
_WRONG_EXTENSIONS: Final = ("csv", "json", "xml", "txt", "png", "jpg", "gif", "zip", "gz", "pdf")
#: Weights of a two-extension format's extensions (`jpg` 3 to `jpeg` 1).
_EXTENSION_WEIGHTS: Final = (3, 1)


def resolve_formats(formats: Sequence[str] | str) -> tuple[str, ...]:
    """The concrete formats behind names like `image` or `any`, in order, without repeats."""
    names = (formats,) if isinstance(formats, str) else tuple(formats)
    if not names:
        raise InvalidArgument(f"no file formats given; valid formats: {', '.join(FORMATS)}")
    concrete: dict[str, None] = {}
    for name in names:
        if name in FORMAT_GROUPS:
            concrete.update(dict.fromkeys(FORMAT_GROUPS[name]))
        elif name in EXTENSIONS:
            concrete[name] = None
        else:
            raise InvalidArgument(
                f"unknown file format {name!r}; valid formats: {', '.join(FORMATS)}"
            )
    return tuple(concrete)


def draw_file(
    choices: Choices,
    formats: Sequence[str] | str = ("any",),
    *,
    erroneous_p: float = 0.003,
    site: SiteT | None = None,
) -> GeneratedFile:
    """A file of one of `formats`; erroneous with probability `erroneous_p` (0 disables).

    Arguments are checked before anything is drawn; `site` names the call site in the
    execution index when a caller draws files from several places."""
    concrete = resolve_formats(formats)
    if not 0.0 <= erroneous_p <= 1.0:
        raise InvalidArgument(f"erroneous_p={erroneous_p!r} must be within [0, 1]")
    return _file(choices, concrete, erroneous_p, 0, site=site)


@generator(labels.FILE)
def _file(
    choices: Choices, concrete: tuple[str, ...], erroneous_p: float, depth: int
) -> GeneratedFile:
    with choices.scope(labels.FILE_FORMAT):
        if (
            choices.edge_values
            and depth == 0  # not inside archives: a PDF costs ~6 plain files (benchmark)
            and frozenset(concrete) >= _ANY_PLAIN
            and file_edges.draw_edge(choices, "any") == "pdf"
        ):
            fmt = "pdf"
        elif len(concrete) == 1:
            fmt = concrete[0]
        else:
            fmt = choices.draw_choice(concrete, site="format")
    data, extension = _content(choices, fmt, depth)
    file = GeneratedFile(fmt, extension, CONTENT_TYPES[fmt], data)
    if erroneous_p > 0.0:
        with choices.scope(labels.ERRONEOUS):
            if choices.draw_boolean(erroneous_p, site="erroneous?"):
                file = _corrupt(choices, file)
    return file


def member_file(choices: Choices, depth: int) -> GeneratedFile:
    """A well-formed file to put inside an archive at nesting `depth` (no archives once
    `MAX_DEPTH` is reached)."""
    formats = CONCRETE_FORMATS if depth < MAX_DEPTH else _flat(CONCRETE_FORMATS)
    return _file(choices, formats, 0.0, depth)


def read_member(choices: Choices, named: frozenset[str]) -> GeneratedFile | None:
    """A plain file with one of the extensions the code names, to add to an archive as the
    member it reads; None, drawing nothing, when no plain format has such an extension."""
    formats = sorted(
        fmt
        for fmt, extensions in EXTENSIONS.items()
        if fmt not in ARCHIVE_FORMATS and named.intersection(extensions)
    )
    if not formats:
        return None
    fmt = choices.draw_choice(formats, site="read-format")
    return draw_file(choices, (fmt,), erroneous_p=0.0, site="read-file")


@generator(labels.ZIP_ARCHIVE)
def zip_archives(
    choices: Choices,
    *,
    member: Callable[[Choices, int], GeneratedFile] | None = None,
    depth: int = 0,
) -> bytes:
    """A zip archive of generated files (`archives.zip_archive` with this dispatcher's
    members); `depth` is this archive's nesting level."""
    return zip_archive(choices, member or member_file, read_member, depth)


@generator(labels.GZIP_FILE)
def gzip_files(
    choices: Choices, *, member: Callable[[Choices, int], bytes] | None = None, depth: int = 0
) -> bytes:
    """The gzip of a generated file (deterministic: mtime 0, no stored name)."""
    return gzip_of(choices, member or (lambda c, d: member_file(c, d).data), depth)


def _flat(formats: Sequence[str]) -> tuple[str, ...]:
    return tuple(f for f in formats if f not in ARCHIVE_FORMATS)


#: A format set counts as `any` (and so may hold a PDF edge value) when it has all of these.
_ANY_PLAIN: Final = frozenset(_flat(CONCRETE_FORMATS))


# ------------------------------------------------------------------------- content
def _content(choices: Choices, fmt: str, depth: int) -> tuple[bytes, str]:
    """The bytes of a well-formed `fmt` file and its extension."""
    return _CONTENT[fmt](choices, depth)


def _csv(choices: Choices, depth: int) -> tuple[bytes, str]:
    return csv_files(choices).data, "csv"


def _text(choices: Choices, depth: int) -> tuple[bytes, str]:
    return text_documents(choices), "txt"


def _json(choices: Choices, depth: int) -> tuple[bytes, str]:
    from lambdafuzz.generators.files.json_files import json_documents

    return json_documents(choices), "json"


def _xml(choices: Choices, depth: int) -> tuple[bytes, str]:
    from lambdafuzz.generators.files.xml_files import xml_documents

    return xml_documents(choices), "xml"


def _pdf(choices: Choices, depth: int) -> tuple[bytes, str]:
    from lambdafuzz.generators.files.pdf_files import pdf_documents

    return pdf_documents(choices).data, "pdf"


def _image(fmt: str) -> Callable[[Choices, int], tuple[bytes, str]]:
    def content(choices: Choices, depth: int) -> tuple[bytes, str]:
        from lambdafuzz.generators.files.images import images

        # Images inside archives stay small so a zip of several fits the choice budget.
        image = images(choices, format=fmt, max_side=64 if depth == 0 else 16)
        extension = EXTENSIONS[fmt][0]
        if len(EXTENSIONS[fmt]) > 1:
            with choices.scope(labels.FILE_FORMAT):
                extension = choices.draw_weighted(
                    EXTENSIONS[fmt], _EXTENSION_WEIGHTS, site="extension"
                )
        return image.data, extension

    return content


def _zip(choices: Choices, depth: int) -> tuple[bytes, str]:
    return zip_archives(choices, member=member_file, depth=depth), "zip"


def _gzip_of(inner_formats: tuple[str, ...] | None) -> Callable[[Choices, int], tuple[bytes, str]]:
    def content(choices: Choices, depth: int) -> tuple[bytes, str]:
        formats = inner_formats or (
            _flat(CONCRETE_FORMATS) if depth + 1 >= MAX_DEPTH else _gzip_inner()
        )
        inner: list[GeneratedFile] = []

        def member(c: Choices, d: int) -> bytes:
            inner.append(_file(c, formats, 0.0, d))
            return inner[-1].data

        data = gzip_files(choices, member=member, depth=depth)
        return data, f"{inner[0].extension}.gz"

    return content


def _gzip_inner() -> tuple[str, ...]:
    """Anything but gzip inside gzip (a `.gz.gz` helps nobody)."""
    return tuple(f for f in CONCRETE_FORMATS if f not in ("gzip", "csv.gz"))


_CONTENT: Final[dict[str, Callable[[Choices, int], tuple[bytes, str]]]] = {
    "csv": _csv,
    "json": _json,
    "xml": _xml,
    "text": _text,
    "png": _image("png"),
    "jpeg": _image("jpeg"),
    "gif": _image("gif"),
    "zip": _zip,
    "gzip": _gzip_of(None),
    "csv.gz": _gzip_of(("csv",)),
    "pdf": _pdf,
    "bmp": _image("bmp"),
    "tiff": _image("tiff"),
    "webp": _image("webp"),
}


# ------------------------------------------------------------------------- corruption
def _corrupt(choices: Choices, file: GeneratedFile) -> GeneratedFile:
    kind = choices.draw_choice(CORRUPTIONS, site="kind")
    extension, data = file.extension, file.data
    if kind == "wrong-extension":
        wrong = [e for e in _WRONG_EXTENSIONS if e != extension and rejection(e, data)]
        extension = choices.draw_choice(wrong, site="extension") if wrong else extension
    elif kind == "missing-extension":
        extension = ""
    elif kind == "truncated":
        data = _truncate(choices, file)
    else:
        others = _MISMATCH_SOURCES[file.format]
        other = choices.draw_choice(others, site="content-format")
        data, _ = _content(choices, other, MAX_DEPTH)
    if extension and rejection(extension, data) is None:
        kind, extension, data = "missing-extension", "", file.data
    return GeneratedFile(file.format, extension, file.content_type, data, kind)


def _truncate(choices: Choices, file: GeneratedFile) -> bytes:
    """A proper prefix; text files lose their last newline too, so the cut shows."""
    data = file.data
    if len(data) < 2:
        return data  # nothing to cut: the caller falls back to dropping the extension
    cut = choices.draw_integer(1, len(data) - 1, site="cut")
    if file.format in TEXT_FORMATS:
        return data[:cut].rstrip(b"\r\n")
    return data[:cut]


_BINARY: Final = ("png", "jpeg", "gif", "zip", "gzip")  # no pdf: `any` draws stay as they were
#: Formats whose content the parser for a given declared format cannot read.
_MISMATCH_SOURCES: Final = {
    "csv": _BINARY,
    "text": _BINARY,
    "json": ("csv", "xml", "text", *_BINARY),
    "xml": ("csv", "json", "text", *_BINARY),
    "png": ("csv", "json", "xml", "text", "jpeg", "gif", "zip", "gzip"),
    "jpeg": ("csv", "json", "xml", "text", "png", "gif", "zip", "gzip"),
    "gif": ("csv", "json", "xml", "text", "png", "jpeg", "zip", "gzip"),
    "zip": ("csv", "json", "xml", "text", "png", "jpeg", "gif", "gzip"),
    "gzip": ("csv", "json", "xml", "text", "png", "jpeg", "gif", "zip"),
    "csv.gz": ("csv", "json", "xml", "text", "png", "jpeg", "gif", "zip"),
    "pdf": ("csv", "json", "xml", "text", "png", "jpeg", "gif", "zip", "gzip"),
    "bmp": ("csv", "json", "xml", "text", "png", "jpeg", "gif", "zip", "gzip"),
    "tiff": ("csv", "json", "xml", "text", "png", "jpeg", "gif", "zip", "gzip"),
    "webp": ("csv", "json", "xml", "text", "png", "jpeg", "gif", "zip", "gzip"),
}
