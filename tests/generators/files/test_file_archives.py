"""ZIP archives and gzip files: valid, nested, reproducible, safe entry names."""

from __future__ import annotations

import gzip
import io
import zipfile

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.archives import MANY_SCALES, MAX_ENTRIES, MAX_MANY_ENTRIES
from lambdafuzz.generators.files.dispatch import gzip_files, zip_archives
from lambdafuzz.generators.files.validation import rejection


def test_zip_archives_are_valid_with_valid_entries() -> None:
    empty = with_dirs = nested_names = nested_zip = entries = many = 0
    for seed in range(120):
        data = zip_archives(Choices(seed=seed))
        assert rejection("zip", data, deep=True) is None, f"seed {seed}"
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert archive.testzip() is None
            infos = archive.infolist()
        if len(infos) > 16:  # the long tail (MANY_P), checked below
            many += 1
            continue
        entries += len(infos)
        empty += not infos
        with_dirs += any(i.is_dir() for i in infos)
        nested_names += any("/" in i.filename.rstrip("/") for i in infos)
        nested_zip += any(i.filename.endswith(".zip") for i in infos)
        for info in infos:
            assert not info.filename.startswith("/")
            assert ".." not in info.filename.split("/")
    assert empty > 0 and with_dirs > 10 and nested_names > 20 and nested_zip > 3
    assert many <= 8 and 2.0 <= entries / (120 - many) <= 4.0


def test_some_archives_have_many_cheap_members() -> None:
    counts = []
    for seed in range(20):
        choices = Choices([False, True], seed=seed)  # not empty; many members
        data = zip_archives(choices)
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert archive.testzip() is None
            names = archive.namelist()
        assert len(names) == len(set(names))
        assert len(choices.choices) < 1500  # the copies cost no draws
        if seed < 3:  # every member checked: slow for hundreds
            assert rejection("zip", data, deep=True) is None, f"seed {seed}"
        counts.append(len(names))
    assert min(counts) > MAX_ENTRIES and max(counts) <= MAX_MANY_ENTRIES
    hundreds = sum(n >= 100 for n in counts)
    assert 4 <= hundreds <= 16, counts  # tens or hundreds, equally likely


def test_member_count_mutates_into_the_long_tail() -> None:
    """The count is one draw: a replay that changes it changes the number of members."""
    scale = MANY_SCALES.index(1000)
    for count in (9, 300, 1000):
        data = zip_archives(Choices([False, True, scale, count], seed=3))
        assert len(_names(data)) == count


def _names(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return archive.namelist()


def test_archives_nest_at_most_two_levels_deep() -> None:
    def depth(data: bytes) -> int:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            inner = [archive.read(i) for i in archive.infolist() if i.filename.endswith(".zip")]
        return 1 + max((depth(d) for d in inner), default=0)

    depths = [depth(zip_archives(Choices(seed=s))) for s in range(120)]
    assert max(depths) == 2  # a zip in a zip, never deeper


def test_same_seed_gives_byte_identical_archives() -> None:
    for seed in range(15):
        assert zip_archives(Choices(seed=seed)) == zip_archives(Choices(seed=seed))
        assert gzip_files(Choices(seed=seed)) == gzip_files(Choices(seed=seed))


def test_gzip_is_deterministic_and_wraps_a_generated_file() -> None:
    for seed in range(40):
        file = draw_file(Choices(seed=seed), "gzip", erroneous_p=0)
        assert file.data[4:8] == b"\0\0\0\0"  # mtime 0
        inner_extension = file.extension.removesuffix(".gz")
        assert inner_extension and "gz" not in inner_extension
        assert rejection(inner_extension, gzip.decompress(file.data)) is None
    file = draw_file(Choices(seed=1), "csv.gz", erroneous_p=0)
    assert file.extension == "csv.gz" and file.content_type == "application/gzip"
    assert rejection("csv", gzip.decompress(file.data)) is None


def test_entry_names_come_from_the_dictionary() -> None:
    names: list[str] = []
    for seed in range(30):
        data = zip_archives(
            Choices(seed=seed, policy=DrawPolicy(dictionary=("incoming",), dictionary_p=1.0))
        )
        names += zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert any("incoming" in n for n in names)


def test_parts_are_labelled() -> None:
    totals: dict[str, int] = {}
    for seed in range(5):
        choices = Choices(seed=seed)
        zip_archives(choices)
        counts = choices.recording().label_counts()
        assert counts[labels.ZIP_ARCHIVE] == len(choices.choices)
        for label, n in counts.items():
            totals[label] = totals.get(label, 0) + n
    assert totals[labels.ZIP_ENTRY] > 0 and totals[labels.ZIP_ENTRY_NAME] > 0
    assert totals.get(labels.FILE, 0) > 0  # entries are generated files
    choices = Choices(seed=2)
    gzip_files(choices)
    assert choices.recording().label_counts()[labels.GZIP_FILE] == len(choices.choices)
