"""Images: Pillow reads them, EXIF reads back, pixels dominate and survive EXIF mutation."""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import FRESH, ChoiceKind, Choices, ChoiceSequence, ReplayMode
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.images import (
    CHUNK_PIXELS,
    EXIF_DATE_FORMAT,
    EXIF_IFD,
    GPS_IFD,
    IMAGE_FORMATS,
    MODES,
    TAG_DATETIME,
    TAG_DATETIME_ORIGINAL,
    TAG_MAKE,
    TAG_MODEL,
    TAG_ORIENTATION,
    images,
)


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def date_time_original(data: bytes) -> str | None:
    return decode(data).getexif().get_ifd(EXIF_IFD).get(TAG_DATETIME_ORIGINAL)


def pixel_draws(recording: ChoiceSequence) -> list[tuple[object, object]]:
    return [(c.ei, c.value) for c in recording.choices if labels.IMAGE_PIXELS in c.labels]


def test_exif_tags_read_back_as_drawn() -> None:
    seen_gps = seen_original = 0
    for seed in range(80):
        image = images(Choices(seed=seed), format="jpeg", exif=True)
        exif = image.exif
        assert exif is not None
        read = decode(image.data).getexif()
        original = read.get_ifd(EXIF_IFD).get(TAG_DATETIME_ORIGINAL)
        if exif.date_time_original is None:
            assert original is None
        else:
            seen_original += 1
            assert original == exif.date_time_original.strftime(EXIF_DATE_FORMAT), f"seed {seed}"
        stamp = exif.date_time.strftime(EXIF_DATE_FORMAT) if exif.date_time else None
        assert read.get(TAG_DATETIME) == stamp
        assert read.get(TAG_ORIENTATION) == exif.orientation
        assert read.get(TAG_MAKE) == exif.make and read.get(TAG_MODEL) == exif.model
        gps = read.get_ifd(GPS_IFD)
        assert bool(gps) == (exif.gps is not None)
        if exif.gps is not None:
            seen_gps += 1
            degrees, minutes, seconds = (float(x) for x in gps[2])
            latitude = (degrees + minutes / 60 + seconds / 3600) * (1 if gps[1] == "N" else -1)
            assert latitude == pytest.approx(exif.gps[0], abs=1e-3)
    assert seen_original > 60 and seen_gps > 10


def test_targeted_exif_change_leaves_pixels_identical() -> None:
    """SpotOn's premise: rewrite only the `image.exif` draws (EI mode) and the date
    changes while every pixel stays put."""
    tried = changed = 0
    for seed in range(40):
        choices = Choices(seed=seed)
        original = draw_file(choices, "jpeg", erroneous_p=0)
        before = date_time_original(original.data)
        if before is None:
            continue
        tried += 1
        recording = choices.recording()
        prefix = recording.by_ei()
        exif_positions = recording.indices_with_label(labels.IMAGE_EXIF)
        assert exif_positions
        for i in exif_positions:
            prefix[recording.choices[i].ei] = FRESH
        replay = Choices(prefix, seed=10_000 + seed, mode=ReplayMode.EXECUTION_INDEXED)
        mutated = draw_file(replay, "jpeg", erroneous_p=0)
        after_recording = replay.recording()
        assert pixel_draws(after_recording) == pixel_draws(recording), f"seed {seed}"
        untouched = [
            (c.ei, c.value) for c in recording.choices if labels.IMAGE_EXIF not in c.labels
        ]
        assert untouched == [
            (c.ei, c.value) for c in after_recording.choices if labels.IMAGE_EXIF not in c.labels
        ]
        assert decode(mutated.data).tobytes() == decode(original.data).tobytes()
        changed += date_time_original(mutated.data) != before
    assert tried >= 25
    assert changed >= 0.8 * tried, f"date changed in {changed} of {tried}"


def test_pixels_dominate_the_sequence() -> None:
    pixels = exif = pixel_bytes = 0
    for seed in range(100):
        choices = Choices(seed=seed)
        draw_file(choices, "jpeg", erroneous_p=0)
        for c in choices.choices:
            if labels.IMAGE_PIXELS in c.labels:
                pixels += 1
                pixel_bytes += len(c.value)
            elif labels.IMAGE_EXIF in c.labels:
                exif += 1
    assert pixels > 3 * exif, (pixels, exif)
    assert pixel_bytes > 20 * exif


@pytest.mark.parametrize("fmt", ["png", "jpeg", "gif"])
def test_pixels_are_drawn_in_chunks_not_per_pixel(fmt: str) -> None:
    for seed in range(30):
        choices = Choices(seed=seed)
        image = images(choices, format=fmt)
        if image.mode not in ("RGB", "RGBA", "L", "P", "CMYK", "LA", "I;16"):
            continue  # a transparent index, a 1-bit threshold or frames: more than pixels
        draws = [c for c in choices.choices if labels.IMAGE_PIXELS in c.labels]
        assert all(c.kind is ChoiceKind.BYTES for c in draws)
        palette = 1 if image.mode == "P" else 0
        assert len(draws) == image.height * math.ceil(image.width / CHUNK_PIXELS) + palette
        decoded = decode(image.data)
        assert decoded.size == (image.width, image.height)
        assert decoded.format == fmt.upper()


def test_sizes_are_small_and_geometric() -> None:
    sides = []
    for seed in range(200):
        image = images(Choices(seed=seed))
        assert 1 <= image.width <= 64 and 1 <= image.height <= 64
        sides += [image.width, image.height]
    assert 12 <= sum(sides) / len(sides) <= 28
    assert min(sides) <= 3 and max(sides) >= 50


def test_modes_and_formats_vary() -> None:
    seen = {(i.format, i.mode) for i in (images(Choices(seed=s)) for s in range(300))}
    assert seen == {(fmt, mode) for fmt in IMAGE_FORMATS for mode in MODES[fmt][0]}


def test_lossless_pixels_equal_the_drawn_bytes() -> None:
    choices = Choices(seed=3)
    image = images(choices, format="png")
    drawn = b"".join(
        c.value
        for c in choices.choices
        if labels.IMAGE_PIXELS in c.labels and c.ei[-1][0] == "chunk"
    )
    assert decode(image.data).tobytes() == drawn


def test_images_shrink_to_fit_a_small_choice_budget() -> None:
    choices = Choices(seed=1, max_choices=400)
    image = images(choices, min_side=1, max_side=64, mean_side=64)
    assert len(choices.choices) < 400
    decode(image.data)


@pytest.mark.parametrize(
    "options",
    [{"format": "svg"}, {"min_side": 0}, {"max_side": 5000}, {"format": "png", "exif": True}],
)
def test_bad_options_raise_before_any_draw(options: dict[str, object]) -> None:
    choices = Choices(seed=0)
    with pytest.raises(InvalidArgument, match="images"):
        images(choices, **options)  # type: ignore[arg-type]
    assert choices.choices == []


def test_whole_image_and_size_are_labelled() -> None:
    choices = Choices(seed=5)
    images(choices, format="jpeg", exif=True)
    counts = choices.recording().label_counts()
    assert counts[labels.PIL_IMAGE] == len(choices.choices)
    assert counts[labels.IMAGE_SIZE] == 2
    assert counts[labels.DATETIME] > 0  # the EXIF dates, nested inside image.exif
    assert all(
        labels.IMAGE_EXIF in c.labels for c in choices.choices if labels.DATETIME in c.labels
    )
