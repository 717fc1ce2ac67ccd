"""CSV files: a header, a dialect, typed columns and a geometric number of rows.

Each column gets a kind (integer, decimal, date, boolean, free text, or mixed), so a
handler that parses `int(row["age"])` succeeds on most rows and meets the odd empty cell,
a quoted comma or a ragged row on a few.  Output comes from the stdlib writer, so it
always parses back (with the dialect recorded in `CsvFile`).

With edge values on (`file_edges`), a file may be a header line only, have a header built
from the column names the code reads (the identifier-like dictionary constants: all of
them, all but one, or one misspelt), or be written in another encoding.  The edge class
is the file's first draw, since it decides the columns.  Also with edge values on, a
file's column count is now and then a number the code compares with (`CODE_WIDTH_P`), and
when the code parses dates, date columns are more frequent and mostly in the formats the
code's dates are in (`CODE_DATE_KIND_WEIGHTS`, `CODE_DATE_FORMAT_P`): a fixed layout such
as `account,amount,booked_on` read by position is met several times as often.
"""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Final

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import code_date_texts, dates
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.alphabets import FREE_TEXT, NAME, clean_text
from lambdafuzz.generators.files.budget import fits
from lambdafuzz.generators.sizes import scaled_mean

DELIMITERS = (",", ";", "\t", "|")
QUOTECHARS = ('"', "'")
#: (name, csv constant); NONNUMERIC leaves numbers bare and quotes everything else.
QUOTINGS = (
    ("minimal", csv.QUOTE_MINIMAL),
    ("all", csv.QUOTE_ALL),
    ("nonnumeric", csv.QUOTE_NONNUMERIC),
    ("none", csv.QUOTE_NONE),
)
LINE_TERMINATORS = ("\r\n", "\n")
ESCAPECHAR = "\\"
CELL_KINDS = ("integer", "decimal", "date", "boolean", "text", "mixed")
DATE_FORMATS = ("%Y-%m-%d", "%d/%m/%Y", "%m/%d/%Y", "%Y%m%d", "%d.%m.%Y")
MAX_COLUMNS: Final = 20
#: With edge values on, the share of files whose column count is one the code compares
#: with (`Choices.numbers`: `if len(fields) != 3`), when it compares with such a number.
CODE_WIDTH_P: Final = 0.3
#: With edge values on, the share of date columns written in a format the code's own
#: dates are in (`code_date_formats`), when there is one.
CODE_DATE_FORMAT_P: Final = 0.6
#: How often each of CELL_KINDS is a column's kind.
KIND_WEIGHTS: Final = (3.0, 2.0, 2.0, 1.0, 3.0, 1.0)
#: ... when the code parses dates in one of DATE_FORMATS (edge values on): dates twice as
#: often.  With `CODE_WIDTH_P` and `CODE_DATE_FORMAT_P`, `csv_crlf_ledger`'s failing
#: layout (3 columns, a number, a `%d/%m/%Y` date, CRLF) went from 0.1% to 0.33% of
#: fresh inputs (3000 inputs, seeds 0-2999).
CODE_DATE_KIND_WEIGHTS: Final = (3.0, 2.0, 4.0, 1.0, 3.0, 1.0)
BOOLEANS = ("true", "false", "True", "False", "TRUE", "FALSE", "1", "0", "yes", "no", "Y", "N")


@dataclass(slots=True, frozen=True)
class CsvFile:
    """The bytes plus what a test needs to read them back exactly."""

    data: bytes
    delimiter: str
    quotechar: str
    quoting: int
    lineterminator: str
    header: tuple[str, ...] | None
    rows: tuple[tuple[str, ...], ...]  # data rows as written (strings), header excluded

    def reader_options(self) -> dict[str, object]:
        """Keyword arguments for `csv.reader` that read `data` back into the rows."""
        options: dict[str, object] = {
            "delimiter": self.delimiter,
            "quotechar": self.quotechar,
            "lineterminator": self.lineterminator,
            "strict": True,
        }
        if self.quoting == csv.QUOTE_NONE:
            options.update(quoting=csv.QUOTE_NONE, escapechar=ESCAPECHAR)
        return options


def _check_char(name: str, value: str | None) -> None:
    if value is not None and (
        not isinstance(value, str) or len(value) != 1 or value in "\r\n" or value.isalnum()
    ):
        raise InvalidArgument(f"csv_files: {name}={value!r} must be one non-alphanumeric character")


def _validate(
    header: bool | None,
    columns: Sequence[str] | int | None,
    delimiter: str | None,
    quotechar: str | None,
    mean_rows: float,
    max_rows: int,
    ragged_p: float,
) -> None:
    if header not in (None, True, False):
        raise InvalidArgument(f"csv_files: header={header!r} must be True, False or None")
    if isinstance(columns, bool) or not (
        columns is None
        or (isinstance(columns, int) and 1 <= columns <= 1000)
        or (
            isinstance(columns, Sequence)
            and not isinstance(columns, str)
            and len(columns) >= 1
            and all(isinstance(c, str) for c in columns)
        )
    ):
        raise InvalidArgument(
            f"csv_files: columns={columns!r} must be None, an int in [1, 1000] "
            "or a non-empty sequence of names"
        )
    _check_char("delimiter", delimiter)
    _check_char("quotechar", quotechar)
    if delimiter is not None and delimiter == quotechar:
        raise InvalidArgument("csv_files: delimiter and quotechar must differ")
    if ESCAPECHAR in (delimiter, quotechar):
        raise InvalidArgument(f"csv_files: {ESCAPECHAR!r} is reserved as escape character")
    if not mean_rows > 0 or max_rows < 0:
        raise InvalidArgument(f"csv_files: bad mean_rows={mean_rows!r} or max_rows={max_rows!r}")
    if not 0.0 <= ragged_p <= 1.0:
        raise InvalidArgument(f"csv_files: ragged_p={ragged_p!r} must be within [0, 1]")


@generator(labels.CSV_DIALECT)
def _dialect(
    choices: Choices, delimiter: str | None, quotechar: str | None
) -> tuple[str, str, int, str, bool]:
    if delimiter is None:
        delimiter = choices.draw_weighted(DELIMITERS, (6, 2, 1, 1), site="delimiter")
    if quotechar is None:
        options = tuple(q for q in QUOTECHARS if q != delimiter)
        quotechar = choices.draw_weighted(options, (9, 1)[: len(options)], site="quotechar")
    quoting = choices.draw_weighted(QUOTINGS, (6, 1, 1, 1), site="quoting")[1]
    terminator = choices.draw_choice(LINE_TERMINATORS, site="lineterminator")
    bom = choices.draw_boolean(0.05, site="bom?")
    return delimiter, quotechar, quoting, terminator, bom


@generator(labels.CSV_HEADER)
def _header(choices: Choices, n: int) -> tuple[str, ...]:
    # draw_string consults the dictionary: a handler's `row["student_id"]` can be met.
    return tuple(clean_text(choices.draw_string(NAME, 1, 12, site="name")) for _ in range(n))


def _integer(choices: Choices) -> int:
    magnitude = choices.draw_geometric(50.0, max_value=10**12, site="magnitude")
    return -magnitude if choices.draw_boolean(0.1, site="negative?") else magnitude


@generator(labels.DECIMAL)
def _decimal(choices: Choices) -> Decimal:
    whole = _integer(choices)
    places = choices.draw_integer(1, 4, site="places")
    fraction = choices.draw_integer(0, 10**places - 1, site="fraction")
    sign = "-" if whole < 0 else ""
    return Decimal(f"{sign}{abs(whole)}.{fraction:0{places}d}")


@generator(labels.CSV_CELL)
def _cell(choices: Choices, kind: str, date_format: str) -> str | int | Decimal:
    """One cell; numbers stay numbers so QUOTE_NONNUMERIC leaves them bare."""
    if choices.draw_boolean(0.05, site="empty?"):
        return ""
    if kind == "mixed":
        kind = choices.draw_choice(CELL_KINDS[:-1], site="kind")
    if kind == "integer":
        return _integer(choices)
    if kind == "decimal":
        return _decimal(choices)
    if kind == "date":
        return dates(choices).strftime(date_format)
    if kind == "boolean":
        return choices.draw_choice(BOOLEANS, site="boolean")
    return clean_text(choices.draw_string(FREE_TEXT, 0, 24, site="text"))


@generator(labels.CSV_ROW)
def _row(
    choices: Choices, kinds: Sequence[str], date_formats: Sequence[str], ragged_p: float
) -> list[str | int | Decimal]:
    n = len(kinds)
    if ragged_p and choices.draw_boolean(ragged_p, site="ragged?"):
        n = choices.draw_integer(0, 2 * len(kinds), site="length")
    return [_cell(choices, kinds[i % len(kinds)], date_formats[i % len(kinds)]) for i in range(n)]


@generator(labels.CSV_FILE)
def csv_files(
    choices: Choices,
    *,
    header: bool | None = None,
    columns: Sequence[str] | int | None = None,
    delimiter: str | None = None,
    quotechar: str | None = None,
    mean_rows: float = 5.0,
    max_rows: int = 100,
    ragged_p: float = 0.05,
) -> CsvFile:
    """A CSV file.  `header`: always/never/drawn (None); `columns`: fixed header names or a
    fixed count; `delimiter`/`quotechar`: fixed instead of drawn."""
    _validate(header, columns, delimiter, quotechar, mean_rows, max_rows, ragged_p)
    edge, columns = _edge(choices, header, columns)
    if edge in _HEADER_EDGES:
        header = True
    delimiter, quotechar, quoting, terminator, bom = _dialect(choices, delimiter, quotechar)
    if isinstance(columns, int):
        n_columns = columns
    elif columns is None:
        n_columns = _width(choices)
    else:
        n_columns = len(columns)
    weights = _kind_weights(choices)
    kinds = [choices.draw_weighted(CELL_KINDS, weights, site="kind") for _ in range(n_columns)]
    date_formats = [_date_format(choices) if k in ("date", "mixed") else "" for k in kinds]
    if header is None:
        header = choices.draw_boolean(0.85, site="header?")
    names: tuple[str, ...] | None = None
    if header:
        names = tuple(columns) if isinstance(columns, Sequence) else _header(choices, n_columns)
    n_rows = 0
    if edge != "header-only":
        mean = scaled_mean(choices, mean_rows)  # at the size scale (`generators.sizes`)
        n_rows = choices.draw_geometric(mean, max_value=max_rows, site="rows")
    rows = []
    for _ in range(n_rows):
        if not fits(choices, 8 * n_columns + 16):
            break
        rows.append(_row(choices, kinds, date_formats, ragged_p))
    file = _write(delimiter, quotechar, quoting, terminator, bom, names, rows)
    encoded = file_edges.encode_text(choices, file.data.decode("utf-8"), edge)
    return file if encoded is None else dataclasses.replace(file, data=encoded)


def _kind_weights(choices: Choices) -> tuple[float, ...]:
    """The weights of CELL_KINDS: dates twice as often (`CODE_DATE_KIND_WEIGHTS`) with edge
    values on when the code writes dates in a DATE_FORMATS format (it parses a date
    column)."""
    if choices.edge_values and code_date_formats(choices):
        return CODE_DATE_KIND_WEIGHTS
    return KIND_WEIGHTS


def _width(choices: Choices) -> int:
    """How many columns: with edge values on, at `CODE_WIDTH_P` a count the code compares
    with (`if len(fields) != 3`), else geometric."""
    if choices.edge_values:
        widths = code_widths(choices.numbers)
        if widths and choices.draw_boolean(CODE_WIDTH_P, site="code-width?"):
            return choices.draw_choice(widths, site="code-width")
    return choices.draw_geometric(3.0, min_value=1, max_value=MAX_COLUMNS, site="columns")


def code_widths(numbers: Sequence[int | float]) -> tuple[int, ...]:
    """The numbers the code compares with that can be a column count, in order."""
    whole = (n for n in numbers if isinstance(n, int) or (isinstance(n, float) and n.is_integer()))
    return tuple(dict.fromkeys(int(n) for n in whole if 1 <= n <= MAX_COLUMNS))


def _date_format(choices: Choices) -> str:
    """A date column's format: with edge values on, at `CODE_DATE_FORMAT_P` one the code
    writes its dates in (`code_date_formats`), else any of DATE_FORMATS."""
    if choices.edge_values:
        formats = code_date_formats(choices)
        if formats and choices.draw_boolean(CODE_DATE_FORMAT_P, site="code-format?"):
            return choices.draw_choice(formats, site="code-format")
    return choices.draw_choice(DATE_FORMATS, site="date-format")


def code_date_formats(choices: Choices) -> tuple[str, ...]:
    """The DATE_FORMATS the code's written dates (`dates.code_date_texts`) are in: the
    harvest renders the code's `strptime` formats, so `15/06/2026` says `%d/%m/%Y`."""
    texts = code_date_texts(choices)
    cached = _CODE_FORMATS.get(id(texts))
    if cached is not None and cached[0] is texts:
        return cached[1]
    counts = [sum(_written_in(t, f) for t in texts) for f in DATE_FORMATS]
    # a format that fits only a few of them (`01/01/2000` fits `%m/%d/%Y` as well as
    # `%d/%m/%Y`) is not one the code uses: the harvest renders each format 7+ times
    found = tuple(
        f for f, n in zip(DATE_FORMATS, counts, strict=True) if n and 2 * n >= max(counts)
    )
    _CODE_FORMATS.clear()
    _CODE_FORMATS[id(texts)] = (texts, found)
    return found


#: The last written dates' formats (`code_date_texts` returns one cached tuple per
#: dictionary), so each format is tried once per campaign, not per column (50 written
#: dates: 1.6 ms to try them all, 0.4 us cached; timeit, best of 3).
_CODE_FORMATS: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _written_in(text: str, fmt: str) -> bool:
    try:
        return datetime.strptime(text, fmt).strftime(fmt) == text
    except ValueError:
        return False


#: Edge classes that make the file have a header.
_HEADER_EDGES: Final = frozenset(
    {"header-only", "columns-all", "columns-but-one", "columns-misspelt"}
)


def _edge(
    choices: Choices, header: bool | None, columns: Sequence[str] | int | None
) -> tuple[str | None, Sequence[str] | int | None]:
    """The file's edge class, and the columns it fixes (the code's names for `columns-*`)."""
    if not choices.edge_values:
        return None, columns
    names = file_edges.handler_columns(choices) if columns is None else ()
    excluded = set()
    if not names or header is False:
        excluded |= {"columns-all", "columns-but-one", "columns-misspelt"}
    if header is False:
        excluded.add("header-only")
    edge = file_edges.draw_edge(choices, "csv", exclude=excluded)
    if edge in ("columns-but-one", "columns-misspelt"):
        with choices.scope(labels.FILE_EDGE):
            at = choices.draw_integer(0, len(names) - 1, site="column")
            if edge == "columns-but-one":
                names = names[:at] + names[at + 1 :]
            else:
                names = (*names[:at], file_edges.misspell(choices, names[at]), *names[at + 1 :])
    if edge is not None and edge.startswith("columns-") and names:
        return edge, names
    return edge, columns


def _write(
    delimiter: str,
    quotechar: str,
    quoting: int,
    terminator: str,
    bom: bool,
    names: tuple[str, ...] | None,
    rows: list[list[str | int | Decimal]],
) -> CsvFile:
    buffer = io.StringIO()
    options: dict[str, object] = {}
    if quoting == csv.QUOTE_NONE:
        options["escapechar"] = ESCAPECHAR
    writer = csv.writer(
        buffer,
        delimiter=delimiter,
        quotechar=quotechar,
        quoting=quoting,
        lineterminator=terminator,
        **options,
    )
    written: list[tuple[str, ...]] = []
    if names is not None:
        writer.writerow(_writable(list(names), quoting))
    for row in rows:
        cells = _writable(row, quoting)
        writer.writerow(cells)
        written.append(tuple(str(c) for c in cells))
    text = buffer.getvalue()
    if bom and text:
        text = "\ufeff" + text
    return CsvFile(
        data=text.encode("utf-8"),
        delimiter=delimiter,
        quotechar=quotechar,
        quoting=quoting,
        lineterminator=terminator,
        header=names,
        rows=tuple(written),
    )


def _writable(row: list[str | int | Decimal], quoting: int) -> list[str | int | Decimal]:
    """Without quoting, the writer cannot express a lone empty field; write no field."""
    if quoting == csv.QUOTE_NONE and len(row) == 1 and row[0] == "":
        return []
    return row
