"""ZIP archives and gzip files: valid, nested, reproducible, safe entry names."""

from __future__ import annotations

import gzip
import io
import zipfile

from lambdafuzz import labels
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.archives import gzip_files, zip_archives
from lambdafuzz.generators.files.validation import rejection


def test_zip_archives_are_valid_with_valid_entries() -> None:
    empty = with_dirs = nested_names = nested_zip = entries = 0
    for seed in range(120):
        data = zip_archives(Choices(seed=seed))
        assert rejection("zip", data, deep=True) is None, f"seed {seed}"
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            assert archive.testzip() is None
            infos = archive.infolist()
        entries += len(infos)
        empty += not infos
        with_dirs += any(i.is_dir() for i in infos)
        nested_names += any("/" in i.filename.rstrip("/") for i in infos)
        nested_zip += any(i.filename.endswith(".zip") for i in infos)
        for info in infos:
            assert not info.filename.startswith("/")
            assert ".." not in info.filename.split("/")
    assert empty > 0 and with_dirs > 10 and nested_names > 20 and nested_zip > 3
    assert 2.0 <= entries / 120 <= 4.0


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
        data = zip_archives(Choices(seed=seed, dictionary=("incoming",), dictionary_p=1.0))
        names += zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert any("incoming" in n for n in names)


def test_parts_are_labelled() -> None:
    choices = Choices(seed=2)
    zip_archives(choices)
    counts = choices.recording().label_counts()
    assert counts[labels.ZIP_ARCHIVE] == len(choices.choices)
    assert counts[labels.ZIP_ENTRY] > 0 and counts[labels.ZIP_ENTRY_NAME] > 0
    assert counts[labels.FILE] > 0  # entries are generated files
    choices = Choices(seed=2)
    gzip_files(choices)
    assert choices.recording().label_counts()[labels.GZIP_FILE] == len(choices.choices)
