"""The format dispatcher: acceptance by the standard parsers, erroneous rate, replay laws."""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
import json
import random
import zipfile
from xml.etree import ElementTree

import pytest
from PIL import Image
from pypdf import PdfReader
from scipy.stats import binom

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import FRESH, MINIMAL, Choices, ChoiceSequence, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files import FORMATS, GeneratedFile, draw_file
from lambdafuzz.generators.files.dispatch import (
    CONCRETE_FORMATS,
    CONTENT_TYPES,
    DOCUMENT_FORMATS,
    EXTENSIONS,
    NAMED_IMAGE_FORMATS,
    resolve_formats,
)
from lambdafuzz.generators.files.validation import extension_of, rejection

#: Draws per format here; the benchmark script runs the full 2,000 of the issue.
DRAWS = 150
#: Every format a file can be asked for by name (PDF, BMP, TIFF, WebP are not part of `any`).
ALL_FORMATS = (*CONCRETE_FORMATS, *DOCUMENT_FORMATS, *NAMED_IMAGE_FORMATS)


def standard_parse(fmt: str, data: bytes, inner: str = "") -> None:
    """Parse `data` as `fmt` with the stdlib / Pillow parser only (independent of
    `validation.py`); raises if the parser rejects it."""
    if fmt == "csv":  # strict reading with the written dialect: test_file_csv.py
        list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
    elif fmt == "json":
        json.loads(data)
    elif fmt == "xml":
        ElementTree.fromstring(data)
    elif fmt == "text":
        data.decode("utf-8")
    elif fmt in ("png", "jpeg", "gif", *NAMED_IMAGE_FORMATS):
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            assert image.format == fmt.upper()
    elif fmt == "zip":
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert archive.testzip() is None
    elif fmt == "pdf":
        reader = PdfReader(io.BytesIO(data), strict=True)
        assert not reader.is_encrypted and all(
            page.extract_text() is not None for page in reader.pages
        )
    else:  # gzip, csv.gz: the content too, as the format its inner extension names
        standard_parse(inner or "csv", gzip.decompress(data))


_BY_EXTENSION = {"txt": "text", "jpg": "jpeg", "jpeg": "jpeg"}


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_standard_parsers_accept_every_file_without_errors(fmt: str) -> None:
    for seed in range(DRAWS):
        file = draw_file(
            Choices(seed=seed, policy=DrawPolicy(dictionary=("id", "x\x00y"))), fmt, erroneous_p=0
        )
        assert file.erroneous is None
        try:
            inner = file.extension.removesuffix(".gz") if fmt == "gzip" else ""
            standard_parse(fmt, file.data, _BY_EXTENSION.get(inner, inner))
        except Exception as e:  # noqa: BLE001 - report the seed with any parser error
            pytest.fail(f"seed {seed}: {fmt} parser rejected the file: {e!r}")
        assert rejection(file.extension, file.data) is None, f"seed {seed}"


def _rejected_share(formats: tuple[str, ...], n: int, p: float) -> tuple[int, int]:
    rejected = marked = 0
    for seed in range(n):
        file = draw_file(Choices(seed=seed), formats, erroneous_p=p)
        is_rejected = rejection(file.extension, file.data) is not None
        assert is_rejected == (file.erroneous is not None), f"seed {seed}: {file.erroneous}"
        rejected += is_rejected
        marked += file.erroneous is not None
    return rejected, marked


def _interval(n: int, p: float) -> tuple[int, int]:
    """Two-sided 99.99% binomial interval: a correct generator fails 1 run in 10,000."""
    low, high = binom.interval(0.9999, n, p)
    return int(low), int(high)


def test_erroneous_rate_at_a_high_configured_probability() -> None:
    n, p = 1_000, 0.1
    rejected, _ = _rejected_share(("any",), n, p)
    low, high = _interval(n, p)
    assert low <= rejected <= high, f"{rejected} of {n} rejected, expected within [{low}, {high}]"


def test_erroneous_rate_at_the_default_probability() -> None:
    n, p = 3_000, 0.003
    rejected, _ = _rejected_share(("json", "text"), n, p)
    low, high = _interval(n, p)
    assert low <= rejected <= high, f"{rejected} of {n} rejected, expected within [{low}, {high}]"
    assert rejected > 0  # the interval's lower end is 1 for this n: make the point explicit


def test_every_corruption_kind_occurs_and_is_rejected() -> None:
    kinds: dict[str, int] = {}
    for seed in range(200):
        file = draw_file(Choices(seed=seed), "any", erroneous_p=1.0)
        assert file.erroneous is not None
        assert rejection(file.extension, file.data) is not None, f"seed {seed}"
        kinds[file.erroneous] = kinds.get(file.erroneous, 0) + 1
        if file.erroneous == "missing-extension":
            assert file.extension == ""
        if file.erroneous == "wrong-extension":
            assert file.extension
    assert set(kinds) == {"wrong-extension", "missing-extension", "truncated", "mismatched-content"}


def test_zero_probability_draws_no_corruption_choice() -> None:
    choices = Choices(seed=1)
    draw_file(choices, "csv", erroneous_p=0)
    assert choices.recording().indices_with_label(labels.ERRONEOUS) == []


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_extension_and_content_type_match_the_format(fmt: str) -> None:
    expected = {"text": "txt", "jpeg": "jpg", "gzip": None, "csv.gz": "csv.gz"}
    for seed in range(20):
        file = draw_file(Choices(seed=seed), fmt, erroneous_p=0)
        assert file.format == fmt
        assert file.content_type == CONTENT_TYPES[fmt]
        if fmt == "gzip":
            assert file.extension.endswith(".gz") and extension_of(f"f.{file.extension}")
        elif fmt in ("jpeg", "tiff"):
            assert file.extension in EXTENSIONS[fmt]
        else:
            assert file.extension == expected.get(fmt, fmt)
        assert file.suffix == f".{file.extension}"


def test_labels_of_format_choice_and_whole_file() -> None:
    choices = Choices(seed=4)
    draw_file(choices, ("csv", "json"), erroneous_p=0.5)
    recording = choices.recording()
    assert all(labels.FILE in c.labels for c in recording.choices)
    assert recording.indices_with_label(labels.FILE_FORMAT) == [0]
    assert recording.indices_with_label(labels.ERRONEOUS)


def test_resolve_formats_expands_groups_without_repeats() -> None:
    assert resolve_formats("image") == ("png", "jpeg", "gif")
    assert resolve_formats(["csv", "image", "png"]) == ("csv", "png", "jpeg", "gif")
    assert resolve_formats(("any",)) == CONCRETE_FORMATS
    assert set(FORMATS) == {
        *CONCRETE_FORMATS,
        *DOCUMENT_FORMATS,
        *NAMED_IMAGE_FORMATS,
        "image",
        "any",
    }
    assert "pdf" not in resolve_formats("any")  # a PDF in `any` is an edge value only


@pytest.mark.parametrize("formats", [("docx",), (), ("csv", "CSV")])
def test_unknown_formats_are_rejected_listing_valid_ones(formats: tuple[str, ...]) -> None:
    choices = Choices(seed=0)
    with pytest.raises(InvalidArgument) as info:
        draw_file(choices, formats)
    assert "csv, json, xml" in str(info.value)
    assert choices.choices == []  # raised before anything was drawn


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_bad_erroneous_probability_is_rejected(p: float) -> None:
    with pytest.raises(InvalidArgument, match="erroneous_p"):
        draw_file(Choices(seed=0), "csv", erroneous_p=p)


def test_generated_file_is_frozen_and_slotted() -> None:
    file = GeneratedFile("csv", "csv", "text/csv", b"a\n")
    assert not hasattr(file, "__dict__")
    with pytest.raises(dataclasses.FrozenInstanceError):
        file.data = b""  # type: ignore[misc]


# ------------------------------------------------------------------------- replay laws
def _replay(recording: ChoiceSequence, mode: ReplayMode, formats: str, p: float) -> GeneratedFile:
    return draw_file(Choices(recording.prefix(mode), seed=999, mode=mode), formats, erroneous_p=p)


@pytest.mark.parametrize("fmt", ALL_FORMATS)
def test_same_sequence_gives_byte_identical_files_in_both_modes(fmt: str) -> None:
    for seed in range(8):
        choices = Choices(seed=seed)
        original = draw_file(choices, fmt, erroneous_p=0.3)
        recording = choices.recording()
        restored = ChoiceSequence.loads(recording.dumps())
        for mode in ReplayMode:
            for sequence in (recording, restored):
                replay = Choices(sequence.prefix(mode), seed=999, mode=mode)
                again = draw_file(replay, fmt, erroneous_p=0.3)
                assert again == original, f"seed {seed}, {mode}"
                assert replay.misaligned_at is None
                assert replay.recording().values() == recording.values()


def _mutate(recording: ChoiceSequence, rng: random.Random) -> list[object]:
    values = recording.values()
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(values))
        values[i] = rng.choice([FRESH, MINIMAL, 0, 7, -3, 10**9, "zz", b"\xff" * 5, 0.5, True])
    return values


def test_mutated_sequences_replay_without_error_into_valid_files() -> None:
    rng = random.Random(7)
    for seed in range(60):
        choices = Choices(seed=seed)
        draw_file(choices, "any", erroneous_p=0)
        recording = choices.recording()
        values = _mutate(recording, rng)
        by_ei = dict(zip((c.ei for c in recording.choices), values, strict=True))
        for mode, prefix in ((ReplayMode.LINEAR, values), (ReplayMode.EXECUTION_INDEXED, by_ei)):
            file = draw_file(Choices(prefix, seed=seed, mode=mode), "any", erroneous_p=0)
            assert rejection(file.extension, file.data) is None, f"seed {seed}, {mode}"
