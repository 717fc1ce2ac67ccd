"""PDF documents through fpdf2: pages of drawn text and drawn metadata.

Handlers that take PDFs read their text (pypdf, pdfminer), their page count or their
metadata (title, author, creation date), so those are what is drawn: a geometric number of
pages (mostly one, sometimes many), lines of words and numbers per page, and each metadata
field present or absent.  The creation date is drawn too, which also keeps the bytes
reproducible (fpdf2 would stamp the current time).

With edge values on (`file_edges`) a document may be encrypted with a drawn user password
(RC4: fpdf2's AES draws its IV from the OS, which no recording could replay), truncated,
or have a broken cross-reference table (strict readers refuse it; lenient ones rebuild it).
"""

from __future__ import annotations

import datetime as dt
import textwrap
from dataclasses import dataclass
from typing import Final

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import datetimes
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.alphabets import NAME, clean_text
from lambdafuzz.generators.files.budget import fits
from lambdafuzz.generators.files.text_files import text_lines

TITLES: Final = ("Invoice", "Report", "Statement", "Contract", "Receipt", "Grades", "Minutes")
AUTHORS: Final = ("Finance", "J. Smith", "HR Department", "Microsoft Word", "LaTeX", "Scanner")
FONT_SIZES: Final = (8, 10, 11, 12, 14)
#: Line height per font size (mm): a readable 1.2x leading.
_LEADING: Final = 0.42
#: Text width of an A4 page between fpdf2's default margins (mm), and Helvetica's mean
#: character width (em) with 1 pt = 0.3528 mm.
_TEXT_WIDTH: Final = 190.0
_CHAR_EM: Final = 0.5 * 0.3528


def _chars_per_line(size: int) -> int:
    return max(10, int(_TEXT_WIDTH / (size * _CHAR_EM)))


@dataclass(slots=True, frozen=True)
class PdfDocument:
    """A generated PDF and what a test needs to check it."""

    data: bytes
    pages: int  # as written (a long page of text continues on the next)
    title: str | None
    author: str | None
    created: dt.datetime
    password: str | None  # the user password, when encrypted
    edge: str | None  # the file-format edge class (`file_edges`), if any


def _latin1(text: str) -> str:
    """fpdf2's core fonts hold Latin-1 only; other characters become `?`."""
    return clean_text(text, newlines=False).encode("latin-1", errors="replace").decode("latin-1")


def _field(choices: Choices, known: tuple[str, ...], p: float, site: str) -> str | None:
    if not choices.draw_boolean(p, site=f"{site}?"):
        return None
    if choices.draw_boolean(0.7, site=f"{site}-known?"):
        return choices.draw_choice(known, site=site)
    return _latin1(choices.draw_string(NAME + " ", 1, 24, site=site))


@generator(labels.PDF_PAGE)
def _page(choices: Choices) -> list[str]:
    n = choices.draw_geometric(5.0, max_value=60, site="lines")
    return [_latin1(text_lines(choices)) for _ in range(n) if fits(choices, 200)]


@generator(labels.PDF_DOCUMENT)
def pdf_documents(choices: Choices, *, mean_pages: float = 1.0, max_pages: int = 30) -> PdfDocument:
    """A PDF of 1 + geometric(`mean_pages`) pages (at most `max_pages`)."""
    if not mean_pages > 0 or not 1 <= max_pages <= 1000:
        raise InvalidArgument(
            f"pdf_documents: need mean_pages > 0 and 1 <= max_pages <= 1000, got {mean_pages!r}, {max_pages!r}"
        )
    from fpdf import FPDF
    from fpdf.enums import EncryptionMethod

    edge = file_edges.draw_edge(choices, "pdf")
    title = _field(choices, TITLES, 0.7, "title")
    author = _field(choices, AUTHORS, 0.6, "author")
    created = datetimes(choices, site="created").replace(tzinfo=dt.UTC)
    size = choices.draw_choice(FONT_SIZES, site="font-size")
    n_pages = choices.draw_geometric(mean_pages, min_value=1, max_value=max_pages, site="pages")
    document = FPDF()
    document.set_creation_date(created)
    if title is not None:
        document.set_title(title)
    if author is not None:
        document.set_author(author)
    document.set_font("Helvetica", size=size)
    for _ in range(n_pages):
        if not fits(choices, 400):
            break
        document.add_page()
        # wrapped here, one `cell` per line: fpdf2's multi_cell measures every character
        # and took 75% of the generation time (cProfile, 100 documents); 3x faster overall
        for line in _page(choices):
            for part in textwrap.wrap(line, _chars_per_line(size)) or [""]:
                document.cell(0, size * _LEADING, part, new_x="LMARGIN", new_y="NEXT")
    password = None
    if edge == "encrypted":
        password = choices.draw_string(NAME, 1, 12, site="password")
        document.set_encryption(
            owner_password=password + "-owner",
            user_password=password,
            encryption_method=EncryptionMethod.RC4,
        )
    data = bytes(document.output())
    if edge == "truncated":
        data = _truncated(choices, data)
    elif edge == "bad-xref":
        data = _bad_xref(data)
    # long pages flow onto more pages (fpdf2's automatic page break)
    return PdfDocument(data, document.page, title, author, created, password, edge)


def _truncated(choices: Choices, data: bytes) -> bytes:
    """A prefix that ends before the cross-reference table (so no `%%EOF` either)."""
    end = data.rfind(b"xref")
    fraction = choices.draw_float(0.1, 0.95, site="truncate-at")
    return data[: max(1, int(end * fraction))]


def _bad_xref(data: bytes) -> bytes:
    """`startxref` pointing into the header and the xref table's offsets zeroed: strict
    readers fail; lenient ones rebuild the table by scanning the file."""
    start = data.rfind(b"startxref")
    head, tail = data[:start], data[start:]
    table = head.rfind(b"\nxref\n")
    body, xref = head[:table], head[table:]
    xref = xref.replace(b" 00000 n ", b" 00000 f ")
    return body + xref + b"startxref\n9\n%%EOF\n" if tail else data
