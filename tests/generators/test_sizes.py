"""The size scale (`Choices.size_scale`, `generators.sizes`): fresh sizes shrink with it,
recorded ones replay exactly whatever it is."""

from __future__ import annotations

import csv
import io
import statistics
import zipfile
from collections.abc import Callable
from typing import Any

import pytest

from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.archives import MAX_ENTRIES
from lambdafuzz.generators.files.csv_files import csv_files
from lambdafuzz.generators.files.dispatch import zip_archives
from lambdafuzz.generators.files.images import images
from lambdafuzz.generators.files.text_files import text_documents
from lambdafuzz.generators.sizes import MIN_MEAN, scaled_mean, scaled_p

SMALL = 0.25

GENERATORS: dict[str, Callable[[Choices], Any]] = {
    "csv": lambda c: csv_files(c).data,
    "zip": zip_archives,
    "image": lambda c: images(c).data,
    "text": text_documents,
    "any": lambda c: draw_file(c).data,
}


def _rows(data: bytes) -> int:
    return len(list(csv.reader(io.StringIO(data.decode("utf-8-sig", "replace")))))


def _members(data: bytes) -> int:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return len(archive.infolist())


def test_scaled_parameters_follow_the_scale_and_keep_small_means() -> None:
    full, small = Choices(), Choices(size_scale=SMALL)
    assert scaled_mean(full, 5.0) == 5.0 and scaled_p(full, 0.01) == 0.01
    assert scaled_mean(small, 5.0) == 1.25 and scaled_p(small, 0.01) == 0.0025
    assert scaled_mean(small, 1.0) == MIN_MEAN  # floored ...
    assert scaled_mean(small, 0.3) == 0.3  # ... but never raised
    for bad in (0.0, -1.0, 1.5):
        with pytest.raises(InvalidArgument):
            Choices(size_scale=bad)


@pytest.mark.parametrize("name", sorted(GENERATORS))
@pytest.mark.parametrize(("made_at", "replayed_at"), [(SMALL, 1.0), (1.0, SMALL)])
def test_a_recording_replays_exactly_at_any_scale(
    name: str, made_at: float, replayed_at: float
) -> None:
    generate = GENERATORS[name]
    for seed in range(40):
        choices = Choices(seed=seed, size_scale=made_at, policy=DrawPolicy(edge_values=True))
        made = generate(choices)
        recording = choices.recording()
        # another seed: any fresh draw would differ, so every value must come from the prefix
        again = Choices(
            recording.values(),
            seed=seed + 1000,
            size_scale=replayed_at,
            policy=DrawPolicy(edge_values=True),
        )
        assert generate(again) == made, f"{name} seed {seed}"
        assert again.misaligned_at is None
        assert again.recording().values() == recording.values()


def _mean_over_seeds(measure: Callable[[Choices], int], scale: float, n: int = 300) -> float:
    return statistics.fmean(measure(Choices(seed=seed, size_scale=scale)) for seed in range(n))


def test_fresh_csvs_have_fewer_rows_at_a_small_scale() -> None:
    def rows(choices: Choices) -> int:
        return _rows(csv_files(choices, header=False).data)

    small, full = _mean_over_seeds(rows, SMALL), _mean_over_seeds(rows, 1.0)
    assert small < 0.5 * full, (small, full)  # mean 1.25 against 5


def test_fresh_zips_have_fewer_members_and_no_long_tail_at_a_small_scale() -> None:
    def members(choices: Choices) -> int:
        return _members(zip_archives(choices))

    counts = {scale: [members(Choices(seed=s, size_scale=scale)) for s in range(400)]
              for scale in (SMALL, 1.0)}  # fmt: skip
    tail = {scale: sum(n > 3 * MAX_ENTRIES for n in c) for scale, c in counts.items()}
    assert tail[1.0] >= 2 and tail[SMALL] <= tail[1.0] // 2, tail  # MANY_P scaled
    short = {
        scale: statistics.fmean(n for n in c if n <= MAX_ENTRIES) for scale, c in counts.items()
    }
    assert short[SMALL] < short[1.0], short


def test_fresh_images_have_fewer_pixels_at_a_small_scale() -> None:
    def pixels(choices: Choices) -> int:
        image = images(choices)
        return image.width * image.height

    small, full = _mean_over_seeds(pixels, SMALL, 200), _mean_over_seeds(pixels, 1.0, 200)
    assert small < 0.5 * full, (small, full)


def test_texts_keep_their_size_at_a_small_scale() -> None:
    """A text's words are where code constants land (`word in NAMES`): fewer of them cost a
    seeded campaign its finds (tests/fuzzer/test_comparison_forms_e2e.py, seed 0: none of
    three at 200 executions), for little time, so texts are not scaled."""
    for seed in range(20):
        small = text_documents(Choices(seed=seed, size_scale=SMALL))
        assert small == text_documents(Choices(seed=seed))
