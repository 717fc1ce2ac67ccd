"""Content consistent with its name: a key filter's suffix picks the content's format, the
code's extensions pick theirs now and then, and images come in every mode their format
allows without edge values too (palette, LA, I;16, 1-bit, animated GIFs)."""

from __future__ import annotations

import io
from collections import Counter

from PIL import Image

from lambdafuzz.generators.aws.s3 import draw_object
from lambdafuzz.generators.core import Choices
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files import draw_file
from lambdafuzz.generators.files.images import images
from lambdafuzz.generators.files.named_formats import code_formats, formats_for_ending
from lambdafuzz.generators.files.validation import accepts
from lambdafuzz.model.target import ObjectsSpec

SEEDS = range(300)


def _pillow_format(data: bytes) -> str | None:
    try:
        with Image.open(io.BytesIO(data)) as image:
            return image.format
    except Exception:  # noqa: BLE001 - anything Pillow cannot read is "no image"
        return None


def test_a_suffix_filter_names_the_content() -> None:
    """`.png` keys of `any` objects hold PNGs (before: one in ten, the rest CSV, zip...)."""
    spec = ObjectsSpec(1, 1, ("any",), suffixes=(".png",))
    objects = [draw_object(Choices(seed=s), spec) for s in SEEDS]
    assert all(o.key.endswith(".png") for o in objects)
    share = sum(_pillow_format(o.data) == "PNG" for o in objects) / len(objects)
    assert share >= 0.95, share
    assert sum(o.content_type == "image/png" for o in objects) >= 0.85 * len(objects)


def test_an_extension_key_holds_its_format_most_of_the_time() -> None:
    spec = ObjectsSpec(1, 1, ("any",))
    objects = [draw_object(Choices(seed=s), spec) for s in range(600)]
    named = [o for o in objects if "." in o.key.rsplit("/", 1)[-1]]
    agree = sum(accepts(o.key.rsplit(".", 1)[-1], o.data, deep=False) for o in named)
    assert agree >= 0.95 * len(named), (agree, len(named))


def test_suffixes_pick_the_longest_extension_and_named_only_formats() -> None:
    assert formats_for_ending(".csv.gz", ("any",)) == ("csv.gz",)
    assert formats_for_ending("_thumb.JPG", ("image",)) == ("jpeg",)
    assert formats_for_ending(".webp", ("image",)) == ("webp",)
    assert formats_for_ending(".pdf", ("any",)) == ("pdf",)
    assert formats_for_ending(".webp", ("csv",)) == ()
    assert formats_for_ending("-input", ("any",)) == ()


def test_the_codes_extensions_pick_their_formats_now_and_then() -> None:
    """A handler comparing with `.webp` meets WebP objects under a `.webp` key (before:
    `image` meant PNG, JPEG or GIF only)."""
    assert code_formats((".webp", "order_id", "png"), ("image",)) == ("png", "webp")
    spec = ObjectsSpec(1, 1, ("image",))
    objects = [
        draw_object(Choices(seed=s, policy=DrawPolicy(dictionary=(".webp",))), spec) for s in SEEDS
    ]
    webp = [o for o in objects if o.key.endswith(".webp")]
    assert 0.15 * len(objects) <= len(webp) <= 0.5 * len(objects), len(webp)
    assert all(_pillow_format(o.data) == "WEBP" for o in webp if not o.format.startswith("err"))


def test_named_only_image_formats_are_drawn_and_read_back() -> None:
    for fmt, pillow in (("bmp", "BMP"), ("tiff", "TIFF"), ("webp", "WEBP")):
        for seed in range(20):
            file = draw_file(Choices(seed=seed), fmt, erroneous_p=0.0)
            assert _pillow_format(file.data) == pillow and accepts(file.extension, file.data)


def test_pngs_and_gifs_come_in_every_mode_without_edge_values() -> None:
    png: Counter[str] = Counter()
    gif_frames: Counter[int] = Counter()
    for seed in SEEDS:
        with Image.open(io.BytesIO(images(Choices(seed=seed), format="png").data)) as image:
            png[image.mode + (";t" if "transparency" in image.info else "")] += 1
        with Image.open(io.BytesIO(images(Choices(seed=seed), format="gif").data)) as image:
            gif_frames[getattr(image, "n_frames", 1)] += 1
    for mode in ("P", "P;t", "LA", "I;16", "1", "L", "RGB", "RGBA"):
        assert png[mode] >= 3, png  # before: LA, I;16, 1 and P;t only with edge values on
    assert sum(n for frames, n in gif_frames.items() if frames > 1) >= 10, gif_frames
