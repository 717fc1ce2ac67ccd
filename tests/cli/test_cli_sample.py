"""`lambdafuzz sample`: files plus index.json, group routing, errors, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path

import click
from click.testing import CliRunner

from lambdafuzz.cli.sample import sample
from lambdafuzz.generators.files.validation import rejection


def run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(sample, list(args))


def test_sample_format_writes_files_and_index(tmp_path: Path) -> None:
    result = run("csv", "--count", "5", "--seed", "3", "--out", str(tmp_path), "--erroneous", "0")
    assert result.exit_code == 0, result.output
    assert "wrote 5 files (0 erroneous)" in result.output
    index = json.loads((tmp_path / "index.json").read_text())
    assert index["count"] == 5 and index["formats"] == ["csv"]
    assert [e["file"] for e in index["files"]] == [f"000{i}.csv" for i in range(5)]
    for entry in index["files"]:
        data = (tmp_path / entry["file"]).read_bytes()
        assert entry["size"] == len(data) and entry["format"] == "csv"
        assert entry["erroneous"] is None and rejection("csv", data) is None
        assert entry["labels"]["csv.file"] == entry["choices"] > 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["index.json", *(e["file"] for e in index["files"])]
    )  # no temporary files left behind


def test_format_shortcut_equals_files_subcommand(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert run("image,zip", "-n", "6", "-s", "9", "-o", str(a)).exit_code == 0
    assert run("files", "image,zip", "-n", "6", "-s", "9", "-o", str(b)).exit_code == 0
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir())
    for path in a.iterdir():
        assert path.read_bytes() == (b / path.name).read_bytes()
    formats = {e["format"] for e in json.loads((a / "index.json").read_text())["files"]}
    assert formats <= {"png", "jpeg", "gif", "zip"}


def test_erroneous_probability_one_breaks_every_file(tmp_path: Path) -> None:
    result = run("any", "--count", "8", "--out", str(tmp_path), "--erroneous", "1")
    assert result.exit_code == 0, result.output
    entries = json.loads((tmp_path / "index.json").read_text())["files"]
    assert all(e["erroneous"] for e in entries)


def test_unknown_format_is_a_usage_error_listing_formats(tmp_path: Path) -> None:
    result = run("docx", "--out", str(tmp_path))
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert "'docx' is neither a file format (csv, json" in result.output
    result = run("files", "csv,docx", "--out", str(tmp_path))
    assert result.exit_code == 2 and "expected one of csv, json" in result.output


def test_bad_option_values_are_usage_errors(tmp_path: Path) -> None:
    assert run("csv", "--count", "0", "--out", str(tmp_path)).exit_code == 2
    assert run("csv", "--erroneous", "1.5", "--out", str(tmp_path)).exit_code == 2
    result = run("csv")
    assert result.exit_code == 2 and "--out" in result.output


def test_help_lists_the_files_command_and_examples() -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert "files" in result.output and "lambdafuzz sample csv" in result.output
