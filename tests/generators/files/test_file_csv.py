"""CSV files: strict round trip with the written dialect, options, labels, cell kinds."""

from __future__ import annotations

import csv
import io
import statistics

import pytest

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files.csv_files import CsvFile, csv_files


def read_back(file: CsvFile) -> list[list[str]]:
    text = file.data.decode("utf-8").removeprefix("\ufeff")
    return list(csv.reader(io.StringIO(text, newline=""), **file.reader_options()))  # type: ignore[arg-type]


def test_strict_reader_reads_back_exactly_what_was_written() -> None:
    for seed in range(300):
        file = csv_files(
            Choices(seed=seed, policy=DrawPolicy(dictionary=("a,b", 'say "hi"', "x\ny", "\x00")))
        )
        rows = read_back(file)
        expected = ([list(file.header)] if file.header is not None else []) + [
            list(r) for r in file.rows
        ]
        assert rows == expected, f"seed {seed}"
        assert file.data.endswith(file.lineterminator.encode()) or not file.data


def test_rows_are_geometric_with_mean_about_five() -> None:
    counts = [len(csv_files(Choices(seed=seed)).rows) for seed in range(400)]
    assert 4.0 <= statistics.mean(counts) <= 6.0
    assert min(counts) == 0 and max(counts) > 15


def test_cells_cover_every_kind_and_tricky_text() -> None:
    cells: list[str] = []
    ragged = 0
    for seed in range(300):
        file = csv_files(Choices(seed=seed), header=False)
        widths = {len(r) for r in file.rows}
        ragged += len(widths) > 1
        cells += [c for row in file.rows for c in row]
    assert "" in cells
    assert any(c.lstrip("-").isdigit() for c in cells)
    assert any(c.count(".") == 1 and c.replace(".", "").lstrip("-").isdigit() for c in cells)
    assert any(len(c) == 10 and c[4] == "-" and c[7] == "-" for c in cells)  # ISO dates
    assert {"true", "false"} & set(cells)
    assert any("," in c for c in cells) and any('"' in c for c in cells)
    assert ragged > 0


def test_dialects_vary() -> None:
    files = [csv_files(Choices(seed=seed)) for seed in range(200)]
    assert {f.delimiter for f in files} == {",", ";", "\t", "|"}
    assert {f.quoting for f in files} == {
        csv.QUOTE_MINIMAL,
        csv.QUOTE_ALL,
        csv.QUOTE_NONNUMERIC,
        csv.QUOTE_NONE,
    }
    assert {f.lineterminator for f in files} == {"\r\n", "\n"}


def test_fixed_options_are_honoured() -> None:
    for seed in range(50):
        file = csv_files(
            Choices(seed=seed),
            header=True,
            columns=["student_id", "grade"],
            delimiter=";",
            quotechar="'",
            ragged_p=0.0,
        )
        assert file.header == ("student_id", "grade")
        assert (file.delimiter, file.quotechar) == (";", "'")
        assert all(len(r) == 2 for r in file.rows)
        assert read_back(file)[0] == ["student_id", "grade"]
    assert all(csv_files(Choices(seed=s), header=False).header is None for s in range(20))
    assert all(len(csv_files(Choices(seed=s), columns=3).header or "abc") == 3 for s in range(20))


def test_header_names_come_from_the_dictionary() -> None:
    file = csv_files(
        Choices(seed=3, policy=DrawPolicy(dictionary=("student_id",), dictionary_p=1.0)),
        header=True,
    )
    assert file.header and set(file.header) == {"student_id"}


@pytest.mark.parametrize(
    "options",
    [
        {"header": "yes"},
        {"columns": 0},
        {"columns": []},
        {"columns": "abc"},
        {"columns": [1, 2]},
        {"delimiter": ",,"},
        {"delimiter": "a"},
        {"quotechar": "\n"},
        {"delimiter": ";", "quotechar": ";"},
        {"delimiter": "\\"},
        {"mean_rows": 0},
        {"ragged_p": 2.0},
    ],
)
def test_bad_options_raise_before_any_draw(options: dict[str, object]) -> None:
    choices = Choices(seed=0)
    with pytest.raises(InvalidArgument, match="csv_files"):
        csv_files(choices, **options)  # type: ignore[arg-type]
    assert choices.choices == []


def test_parts_are_labelled() -> None:
    choices = Choices(seed=11)
    file = csv_files(choices, header=True)
    assert file.rows
    recording = choices.recording()
    counts = recording.label_counts()
    assert counts[labels.CSV_FILE] == len(recording)
    for label in (labels.CSV_HEADER, labels.CSV_ROW, labels.CSV_CELL, labels.CSV_DIALECT):
        assert counts.get(label, 0) > 0, label
    assert all(labels.CSV_ROW in c.labels for c in recording.choices if labels.CSV_CELL in c.labels)
    row_frames = {c.ei[:2] for c in recording.choices if labels.CSV_ROW in c.labels}
    assert len(row_frames) == len(file.rows)  # one frame per row
