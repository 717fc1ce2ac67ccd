"""File-format edge values (issue 16): each class at its documented rate, each file what its
class claims, nothing changed with edge values off, and replay exact with them on."""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from xml.etree import ElementTree

import pytest
from PIL import Image
from pypdf import PdfReader
from pypdf.errors import FileNotDecryptedError, PdfReadError, PdfStreamError
from scipy.stats import binom

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices, ChoiceSequence, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files import draw_file, file_edges
from lambdafuzz.generators.files.csv_files import csv_files
from lambdafuzz.generators.files.dispatch import zip_archives
from lambdafuzz.generators.files.images import EDGE_MODES, READ_BACK_MODES, images
from lambdafuzz.generators.files.json_files import json_documents
from lambdafuzz.generators.files.pdf_files import PdfDocument, pdf_documents
from lambdafuzz.generators.files.text_files import text_documents
from lambdafuzz.generators.files.xml_files import xml_documents

GROUPS = ("png", "jpeg", "gif", "zip", "csv", "json", "xml", "text", "pdf", "any")
#: The column names a handler reads, as the constant harvest would find them.
DICTIONARY = ("order_id", "amount", "customer", "created_at", "not a column!", "%Y-%m-%d")


def _interval(n: int, p: float) -> tuple[int, int]:
    """Two-sided 99.99% binomial interval: a correct generator fails 1 run in 10,000."""
    low, high = binom.interval(0.9999, n, p)
    return int(low), int(high)


# ----------------------------------------------------------------------------- rates
@pytest.mark.parametrize("group", GROUPS)
def test_each_class_is_drawn_at_its_documented_rate(group: str) -> None:
    n = 10_000
    counts = Counter(
        file_edges.draw_edge(Choices(seed=s, policy=DrawPolicy(edge_values=True)), group)
        for s in range(n)
    )
    classes = file_edges.classes_for(group)
    assert classes and set(counts) - {None} <= {c.name for c in classes}
    for c in classes:
        low, high = _interval(n, c.rate)
        assert low <= counts[c.name] <= high, f"{c.name}: {counts[c.name]} of {n}, rate {c.rate}"


def test_images_meet_each_class_at_its_rate_through_the_generator() -> None:
    n = 1_500
    counts = Counter(
        images(Choices(seed=s, policy=DrawPolicy(edge_values=True)), format="png").edge
        for s in range(n)
    )
    for c in file_edges.classes_for("png"):
        low, high = _interval(n, c.rate)
        assert low <= counts[c.name] <= high, f"{c.name}: {counts[c.name]} of {n}"


def test_the_class_draw_is_labelled_and_absent_with_edge_values_off() -> None:
    on, off = Choices(seed=3, policy=DrawPolicy(edge_values=True)), Choices(seed=3)
    json_documents(on)
    json_documents(off)
    assert len(on.recording().indices_with_label(labels.FILE_EDGE)) == 1
    assert off.recording().indices_with_label(labels.FILE_EDGE) == []


def test_inapplicable_classes_are_left_out_and_the_others_keep_their_rates() -> None:
    names = {c.name for c in file_edges.classes_for("csv", exclude={"columns-all"})}
    assert "columns-all" not in names and "header-only" in names
    assert {c.name for c in file_edges.classes_for("gif")} & {"orientation"} == set()
    # no column names in the dictionary: no columns-* class, whatever the seed
    real, drawn = file_edges.draw_edge, Counter()

    def spy(choices: Choices, group: str, **options: object) -> str | None:
        drawn[real(choices, group, **options)] += 1  # type: ignore[arg-type]
        return None

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(file_edges, "draw_edge", spy)
        for seed in range(400):
            csv_files(
                Choices(seed=seed, policy=DrawPolicy(edge_values=True, dictionary=("%d", "!")))
            )
    assert drawn["header-only"] and not any(str(name).startswith("columns-") for name in drawn)


@contextlib.contextmanager
def forcing(edge: str) -> Iterator[None]:
    """Every file whose group has class `edge` takes it (claims are checked on a few files
    instead of waiting for a rare class; the rates are tested above)."""
    real = file_edges.draw_edge

    def forced(choices: Choices, group: str, **options: object) -> str | None:
        if any(c.name == edge for c in file_edges.classes_for(group)):
            return edge
        return real(choices, group, **options)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(file_edges, "draw_edge", forced)
        yield


# ----------------------------------------------------------------------------- images
@pytest.mark.parametrize("fmt", ["png", "jpeg", "gif"])
def test_every_edge_mode_is_written_and_pillow_reports_it(fmt: str) -> None:
    seen = set()
    with forcing("mode"):
        for seed in range(60):
            image = images(Choices(seed=seed, policy=DrawPolicy(edge_values=True)), format=fmt)
            with Image.open(io.BytesIO(image.data)) as read:
                read.load()
                assert read.mode == READ_BACK_MODES.get((fmt, image.mode), image.mode)
                assert read.format == fmt.upper()
                if image.mode == "P;transparency" and fmt == "png":
                    assert "transparency" in read.info
            seen.add(image.mode)
    assert seen == set(EDGE_MODES[fmt])


@pytest.mark.parametrize("fmt", ["png", "jpeg"])
def test_orientation_reads_back_and_takes_every_value(fmt: str) -> None:
    seen = set()
    with forcing("orientation"):
        for seed in range(80):
            image = images(Choices(seed=seed, policy=DrawPolicy(edge_values=True)), format=fmt)
            with Image.open(io.BytesIO(image.data)) as read:
                assert read.getexif()[274] == image.exif.orientation
            seen.add(image.exif.orientation)
    assert seen == set(range(1, 9))


@pytest.mark.parametrize("fmt", ["png", "jpeg", "gif"])
def test_truncated_images_fail_to_load(fmt: str) -> None:
    with forcing("truncated-image"):
        for seed in range(40):
            image = images(Choices(seed=seed, policy=DrawPolicy(edge_values=True)), format=fmt)
            assert image.edge == "truncated-image"
            with pytest.raises((OSError, SyntaxError, ValueError, EOFError)):  # noqa: SIM117
                with Image.open(io.BytesIO(image.data)) as read:
                    read.load()


def test_large_images_have_sides_near_the_code_numbers_and_load() -> None:
    near = {199, 200, 201, 400, 299, 300, 301, 600}
    sides = Counter()
    with forcing("large"):
        for seed in range(60):
            choices = Choices(
                seed=seed, policy=DrawPolicy(edge_values=True, numbers=(300, 200, 1e309, True, -5))
            )
            image = images(choices, format="jpeg")
            assert {image.width, image.height} <= near
            with Image.open(io.BytesIO(image.data)) as read:
                assert read.size == (image.width, image.height)
            sides[image.width >= 300 and image.height >= 200] += 1
    assert sides[True] > 10 and sides[False] > 10  # both sides of a 300x200 threshold


@pytest.mark.parametrize("edge", ["large", "tiny", "aspect"])
def test_without_numbers_sizes_use_the_common_thresholds_and_stay_capped(edge: str) -> None:
    assert file_edges.size_targets(()) == file_edges.COMMON_SIDES
    with forcing(edge):
        for seed in range(30):
            image = images(Choices(seed=seed, policy=DrawPolicy(edge_values=True)), format="png")
            with Image.open(io.BytesIO(image.data)) as read:
                assert read.size == (image.width, image.height)
            if edge == "large":
                assert image.width * image.height <= file_edges.MAX_LARGE_PIXELS
                assert max(image.width, image.height) > 64
            elif edge == "tiny":
                assert (image.width, image.height) == (1, 1)
            else:
                assert max(image.width, image.height) >= 21 * min(image.width, image.height)


def test_archive_members_get_no_large_images() -> None:
    for seed in range(300):
        image = images(
            Choices(seed=seed, policy=DrawPolicy(edge_values=True)), format="png", max_side=16
        )
        assert image.edge != "large"


# ----------------------------------------------------------------------------- PDF
def _pdf(edge: str) -> PdfDocument:
    with forcing(edge):
        document = pdf_documents(Choices(seed=1, policy=DrawPolicy(edge_values=True)))
    assert document.edge == edge
    return document


def test_a_valid_pdf_opens_with_its_pages_and_metadata() -> None:
    for seed in range(12):
        document = pdf_documents(Choices(seed=seed))
        reader = PdfReader(io.BytesIO(document.data), strict=True)
        assert len(reader.pages) == document.pages >= 1
        assert reader.metadata.title == document.title
        assert reader.metadata.author == document.author
        assert reader.metadata.creation_date.replace(tzinfo=None) == document.created.replace(
            tzinfo=None, microsecond=0
        )
    many = [pdf_documents(Choices(seed=s)).pages for s in range(40)]
    assert max(many) > 1  # multi-page documents are plain ones


def test_an_encrypted_pdf_needs_its_password() -> None:
    document = _pdf("encrypted")
    reader = PdfReader(io.BytesIO(document.data))
    assert reader.is_encrypted
    with pytest.raises(FileNotDecryptedError):
        reader.pages[0].extract_text()
    assert reader.decrypt("wrong" + (document.password or "")) == 0
    assert reader.decrypt(document.password or "") != 0
    assert len(reader.pages) == document.pages


def test_corrupt_pdfs_fail_to_read() -> None:
    with pytest.raises((PdfReadError, PdfStreamError)):
        PdfReader(io.BytesIO(_pdf("truncated").data)).pages[0].extract_text()
    with pytest.raises(PdfReadError):  # a lenient reader rebuilds this xref by scanning
        PdfReader(io.BytesIO(_pdf("bad-xref").data), strict=True)


def test_pdf_is_asked_for_by_key_and_content_type_and_rarely_in_any() -> None:
    file = draw_file(Choices(seed=0), "pdf", erroneous_p=0)
    assert (file.extension, file.content_type) == ("pdf", "application/pdf")
    assert file.data.startswith(b"%PDF-")
    n = 600
    pdfs = sum(
        draw_file(Choices(seed=s, policy=DrawPolicy(edge_values=True)), "any", erroneous_p=0).format
        == "pdf"
        for s in range(n)
    )
    low, high = _interval(n, file_edges.PDF_IN_ANY_RATE)
    assert low <= pdfs <= high
    assert all(draw_file(Choices(seed=s), "any").format != "pdf" for s in range(200))


# ----------------------------------------------------------------------------- zip
@pytest.mark.parametrize(
    ("edge", "error"),
    [
        ("bad-crc", zipfile.BadZipFile),
        ("encrypted-member", RuntimeError),
        ("unknown-method", NotImplementedError),
    ],
)
def test_a_corrupt_member_raises_on_read(edge: str, error: type[Exception]) -> None:
    broken = 0
    with forcing(edge):
        for seed in range(40):
            data = zip_archives(Choices(seed=seed, policy=DrawPolicy(edge_values=True)))
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [info for info in archive.infolist() if not info.is_dir()]
                failures = []
                for info in members:
                    try:
                        archive.read(info)
                    except Exception as e:  # noqa: BLE001 - which one is the point
                        failures.append(type(e))
            assert failures == ([error] if members else []), f"seed {seed}"
            broken += bool(failures)
    assert broken >= 30


# ----------------------------------------------------------------------------- text
TEXT_GENERATORS: dict[str, Callable[[Choices], bytes]] = {
    "csv": lambda c: csv_files(c).data,
    "json": json_documents,
    "xml": xml_documents,
    "text": text_documents,
}


def _classed(fmt: str, edge: str) -> list[bytes]:
    """Five files of `fmt` of class `edge`."""
    with forcing(edge):
        return [
            TEXT_GENERATORS[fmt](
                Choices(seed=seed, policy=DrawPolicy(edge_values=True, dictionary=DICTIONARY))
            )
            for seed in range(5)
        ]


@pytest.mark.parametrize("fmt", ["csv", "json", "xml", "text"])
def test_encodings_decode_with_their_codec_and_carry_their_bom(fmt: str) -> None:
    for data in _classed(fmt, "utf-16-bom"):
        assert data.startswith(b"\xff\xfe")
        data[2:].decode("utf-16-le", errors="strict")  # raises unless it is UTF-16
    for data in _classed(fmt, "utf-8-bom"):
        assert data.startswith(b"\xef\xbb\xbf")
        data.decode("utf-8-sig")
        assert not data[3:].startswith(b"\xef\xbb\xbf")
    for edge, codec in (("cp1252", "cp1252"), ("latin-1", "latin-1")):
        for data in _classed(fmt, edge):
            assert not data.startswith((b"\xef\xbb\xbf", b"\xff\xfe"))
            data.decode(codec)
            if fmt == "xml" and data.startswith(b"<?xml"):
                assert ElementTree.fromstring(data) is not None  # the declaration names it
    for data in _classed(fmt, "invalid-utf-8"):
        with pytest.raises(UnicodeDecodeError):
            data.decode("utf-8")


@pytest.mark.parametrize("fmt", ["json", "xml"])
def test_crlf_files_end_every_line_with_cr_lf(fmt: str) -> None:
    for data in _classed(fmt, "crlf"):
        assert b"\r\n" in data and data.count(b"\n") == data.count(b"\r\n")


def _header(data: bytes) -> list[str]:
    text = data.decode("utf-8-sig")
    dialect = csv.Sniffer().sniff(text.splitlines()[0], delimiters=",;\t|")
    return next(csv.reader(io.StringIO(text), dialect))


def test_a_header_only_csv_is_one_line() -> None:
    for data in _classed("csv", "header-only"):
        assert len(data.decode("utf-8-sig").splitlines()) == 1


def test_csv_headers_built_from_the_code_column_names() -> None:
    names = file_edges.handler_columns(Choices(policy=DrawPolicy(dictionary=DICTIONARY)))
    assert names == ("order_id", "amount", "customer", "created_at")
    for data in _classed("csv", "columns-all"):
        assert [h.strip("'\"") for h in _header(data)] == list(names)
    for data in _classed("csv", "columns-but-one"):
        header = [h.strip("'\"") for h in _header(data)]
        assert len(header) == len(names) - 1 and set(header) < set(names)
    for data in _classed("csv", "columns-misspelt"):
        header = [h.strip("'\"") for h in _header(data)]
        assert len(header) == len(names)
        assert sum(a != b for a, b in zip(header, names, strict=True)) == 1


# ----------------------------------------------------------------------------- laws
def test_edge_values_off_leave_recordings_and_bytes_as_before() -> None:
    """The digest of 150 files (recording, extension, bytes) of the non-archive formats as
    the generators wrote them before file edge values existed (commit cf13624).  Archives
    are left out: their member count is changed on purpose elsewhere (issue 16); with edge
    values off they draw no class either (checked below)."""
    digest = hashlib.sha256()
    for seed in range(150):
        choices = Choices(seed=seed, policy=DrawPolicy(dictionary=("amount", "id", "x y")))
        formats = ("csv", "json", "xml", "text", "png", "jpeg", "gif")
        file = draw_file(choices, formats, erroneous_p=0.0)
        digest.update(file.data)
        digest.update(file.extension.encode())
        digest.update(repr(choices.recording().values()).encode())
    # recomputed once: PNG and GIF draw every mode Pillow writes for them under every
    # strategy (`images.MODES`: LA, 1, I;16, a transparent palette, animated GIFs)
    assert digest.hexdigest() == "c3140b31bd44dacac4ce21683d5734ef72fe44a55d884ef74462a064c223d432"
    for seed in range(100):
        choices = Choices(seed=seed)
        draw_file(choices, "any", erroneous_p=0.05)
        assert choices.recording().indices_with_label(labels.FILE_EDGE) == []


@pytest.mark.parametrize("formats", ["any", "image", "zip", "pdf", "csv"])
def test_edge_files_replay_exactly_in_both_modes(formats: str) -> None:
    for seed in range(25):
        policy = DrawPolicy(edge_values=True, dictionary=DICTIONARY, numbers=(300, 200))
        choices = Choices(seed=seed, policy=policy)
        original = draw_file(choices, formats, erroneous_p=0.05)
        recording = ChoiceSequence.loads(choices.recording().dumps())
        for mode in ReplayMode:
            replay = Choices(recording.prefix(mode), seed=999, mode=mode, policy=policy)
            assert draw_file(replay, formats, erroneous_p=0.05) == original, f"seed {seed} {mode}"
            assert replay.misaligned_at is None
