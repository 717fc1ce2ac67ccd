"""PNG, JPEG and GIF images through Pillow, with EXIF metadata for JPEG.

Pixels are drawn one chunk of `CHUNK_PIXELS` pixels of a row per `draw_bytes`, never per
pixel: a 20x20 RGB image costs ~100 draws, fast to make, and still far more draws than its
~20 EXIF draws.  That imbalance is the point (SpotOn): the branch-deciding metadata is a
small part of the sequence, so uniform mutation rarely touches it and type-targeted
mutation (`image.exif`, `datetime.datetime`) is needed to reach it.

EXIF is drawn after the pixels under its own frame, so in either replay mode rewriting the
EXIF draws leaves every pixel draw, and therefore the decoded pixels, unchanged.

With edge values on (`file_edges`), an image may be of an edge class: a rare mode, 1x1, an
extreme aspect ratio, a forced EXIF orientation, truncated, or large.  Large and oddly
shaped images draw a small tile (at most `TILE_SIDE` square) and upscale it with NEAREST,
so a 1000x1000 image costs the draws of an 8x8 one.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from lambdafuzz import labels
from lambdafuzz.errors import InvalidArgument
from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.dates import datetimes
from lambdafuzz.generators.files import file_edges
from lambdafuzz.generators.files.budget import fits, room
from lambdafuzz.generators.sizes import scaled_mean

if TYPE_CHECKING:
    from PIL import Image

#: What a drawn image without a format is (the `image` group of `files.dispatch`).
IMAGE_FORMATS: Final = ("png", "jpeg", "gif")
#: Formats drawn only when asked for by name (a key filter or the code names them).
NAMED_IMAGE_FORMATS: Final = ("bmp", "tiff", "webp")
PIL_FORMATS: Final = {
    "png": "PNG", "jpeg": "JPEG", "gif": "GIF", "bmp": "BMP", "tiff": "TIFF", "webp": "WEBP",
}  # fmt: skip
#: Modes per format and their weights: every mode Pillow writes for the format, under
#: every strategy (a handler converting `P` or `I;16` wrongly breaks on one file in a few
#: dozen, not only with edge values on); CMYK JPEGs are rare but break many thumbnailers.
#: `P;transparency`: a palette with a transparent index; `1`: drawn as L, thresholded;
#: `animated`: several frames (GIF, WebP), each a palette (GIF) or RGB (WebP) image.
MODES: Final = {
    "png": (
        ("RGB", "RGBA", "L", "P", "LA", "1", "P;transparency", "I;16"),
        (8, 4, 4, 2, 1, 1, 1, 1),
    ),
    "jpeg": (("RGB", "L", "CMYK"), (8, 2, 1)),
    "gif": (("P", "L", "P;transparency", "animated"), (6, 2, 1, 1)),
    "bmp": (("RGB", "L", "P", "1"), (4, 2, 1, 1)),
    "tiff": (("RGB", "RGBA", "L", "CMYK", "I;16"), (4, 2, 2, 1, 1)),
    "webp": (("RGB", "RGBA", "animated"), (4, 2, 1)),
}
#: Modes `_pixels` draws directly; the others go through `_edge_mode_pixels`.
_PLAIN_MODES: Final = frozenset({"RGB", "RGBA", "L", "P", "CMYK", "LA", "I;16"})
#: Frames of an animated image (each as costly as one still image of its size).
MAX_FRAMES: Final = 3
BYTES_PER_PIXEL: Final = {"RGB": 3, "RGBA": 4, "L": 1, "P": 1, "CMYK": 4, "LA": 2, "I;16": 2}
#: Edge modes per format: what Pillow writes for it beyond the common RGB.  `P;transparency`
#: is a palette image with a transparent index; `1` is drawn as L and thresholded.
EDGE_MODES: Final = {
    "png": ("1", "L", "LA", "P;transparency", "RGBA", "I;16"),
    "jpeg": ("CMYK", "L"),
    "gif": ("1", "P;transparency"),
    "bmp": ("1", "P"),
    "tiff": ("CMYK", "I;16", "RGBA"),
    "webp": ("RGBA", "L"),
}
#: The mode Pillow reports when it reads an edge mode back (GIF stores 1-bit as grey).
READ_BACK_MODES: Final = {
    ("gif", "1"): "L",
    ("png", "P;transparency"): "P",
    ("gif", "P;transparency"): "P",
    ("gif", "animated"): "P",
    ("webp", "animated"): "RGB",
    ("webp", "L"): "RGB",
    ("bmp", "1"): "1",
}
#: Large and oddly shaped images are a drawn tile of at most this side, upscaled.
TILE_SIDE: Final = 8
#: Sizing edge classes (drawn as a tile, then upscaled).
_SIZED: Final = frozenset({"tiny", "aspect", "large"})
#: Pixels per `draw_bytes`: a 4x1 tile.  Per-row draws would make pixels only ~half of an
#: EXIF-bearing JPEG's draws at the default sizes; per-pixel draws would be slow.
CHUNK_PIXELS: Final = 4

EXIF_IFD: Final = 0x8769
GPS_IFD: Final = 0x8825
TAG_DATETIME: Final = 306
TAG_ORIENTATION: Final = 274
TAG_MAKE: Final = 271
TAG_MODEL: Final = 272
TAG_DATETIME_ORIGINAL: Final = 36867
EXIF_DATE_FORMAT: Final = "%Y:%m:%d %H:%M:%S"
MAKES: Final = ("Canon", "NIKON CORPORATION", "Apple", "SONY", "FUJIFILM", "samsung", "Google")
MODELS: Final = ("iPhone 12", "Canon EOS 5D Mark IV", "NIKON D750", "ILCE-7M3", "Pixel 7", "X-T4")
_ASCII: Final = "".join(chr(c) for c in range(32, 127))


@dataclass(slots=True, frozen=True)
class Exif:
    """The EXIF tags written (None: tag absent)."""

    date_time_original: dt.datetime | None
    date_time: dt.datetime | None
    orientation: int | None
    make: str | None
    model: str | None
    gps: tuple[float, float] | None  # latitude, longitude in degrees


@dataclass(slots=True, frozen=True)
class GeneratedImage:
    data: bytes
    format: str  # png | jpeg | gif
    width: int
    height: int
    mode: str
    exif: Exif | None
    edge: str | None = None  # the file-format edge class (`file_edges`), if any


def _validate(
    fmt: str | None, min_side: int, max_side: int, mean_side: float, exif: bool | None
) -> None:
    if fmt is not None and fmt not in PIL_FORMATS:
        raise InvalidArgument(f"images: format={fmt!r}; valid: {', '.join(PIL_FORMATS)}")
    if not 1 <= min_side <= max_side <= 4096:
        raise InvalidArgument(
            f"images: need 1 <= min_side <= max_side <= 4096, got {min_side}, {max_side}"
        )
    if not mean_side > 0:
        raise InvalidArgument(f"images: mean_side={mean_side!r} must be positive")
    if exif and fmt not in (None, "jpeg"):
        raise InvalidArgument(f"images: exif=True needs format='jpeg', not {fmt!r}")


@generator(labels.PIL_IMAGE)
def images(
    choices: Choices,
    *,
    format: str | None = None,  # noqa: A002 - the word every image API uses
    min_side: int = 1,
    max_side: int = 64,
    mean_side: float = 20.0,
    exif: bool | None = None,
) -> GeneratedImage:
    """An encoded image; sides geometric with mean about `mean_side` within the bounds.

    `exif`: JPEG only; True always writes EXIF, False never, None draws it (80%)."""
    _validate(format, min_side, max_side, mean_side, exif)
    if format is None:
        format = choices.draw_choice(IMAGE_FORMATS if exif is None else ("jpeg",), site="format")
    edge = file_edges.draw_edge(choices, format, exclude=_inapplicable(max_side, exif))
    if edge in _SIZED:
        return _sized(choices, format, edge, exif)
    with choices.scope(labels.IMAGE_SIZE):
        # at the size scale (`generators.sizes`): pixels are most of an image's draws
        mean = scaled_mean(choices, max(mean_side - min_side, 0.5))
        width = choices.draw_geometric(mean, min_value=min_side, max_value=max_side, site="width")
        height = choices.draw_geometric(mean, min_value=min_side, max_value=max_side, site="height")
    width, height = _fit(choices, width, height, min_side)
    if edge == "mode":
        mode = choices.draw_choice(EDGE_MODES[format], site="edge-mode")
        image = _edge_mode_pixels(choices, mode, width, height)
    else:
        modes, weights = MODES[format]
        mode = choices.draw_weighted(modes, weights, site="mode")
        image = _mode_pixels(choices, format, mode, width, height)
    metadata = None
    if format == "jpeg":
        metadata = _exif(choices, exif)
    if edge == "orientation":
        metadata = _orientation(choices, metadata)
    data = _encode(choices, image, format, metadata)
    if edge == "truncated-image":
        data = _truncated(choices, data)
    return GeneratedImage(data, format, width, height, mode, metadata, edge)


def _inapplicable(max_side: int, exif: bool | None) -> tuple[str, ...]:
    """Edge classes this call cannot take: no EXIF when told so, and no large images for
    archive members (kept small so a zip of several stays cheap)."""
    excluded = []
    if exif is False:
        excluded.append("orientation")
    if max_side < 64:
        excluded.append("large")
    return tuple(excluded)


def _sized(choices: Choices, fmt: str, edge: str, exif: bool | None) -> GeneratedImage:
    """A 1x1, extremely narrow or large image: a drawn tile upscaled (NEAREST)."""
    from PIL import Image

    with choices.scope(labels.IMAGE_SIZE):
        if edge == "tiny":
            width = height = 1
        elif edge == "aspect":
            short = choices.draw_integer(1, 3, site="short-side")
            long = choices.draw_integer(64, file_edges.MAX_LARGE_SIDE, site="long-side")
            width, height = (
                (short, long) if choices.draw_boolean(0.5, site="tall?") else (long, short)
            )
        else:
            width, height = file_edges.large_sides(choices)
        tile_w = choices.draw_integer(1, min(TILE_SIDE, width), site="tile-width")
        tile_h = choices.draw_integer(1, min(TILE_SIDE, height), site="tile-height")
    modes, weights = MODES[fmt]
    mode = choices.draw_weighted(modes, weights, site="mode")
    if mode == "animated":  # one frame: an upscaled animation would cost every frame's
        mode = modes[0]
    image = _mode_pixels(choices, fmt, mode, tile_w, tile_h)
    if (tile_w, tile_h) != (width, height):
        image = image.resize((width, height), Image.Resampling.NEAREST)
    metadata = _exif(choices, exif) if fmt == "jpeg" else None
    data = _encode(choices, image, fmt, metadata, fast=True)
    return GeneratedImage(data, fmt, width, height, mode, metadata, edge)


def _mode_pixels(choices: Choices, fmt: str, mode: str, width: int, height: int) -> Image.Image:
    """Pixels of `mode`; an animation's further frames ride in `info["frames"]`."""
    if mode in _PLAIN_MODES:
        return _pixels(choices, mode, width, height)
    if mode == "animated":
        return _animation(choices, fmt, width, height)
    return _edge_mode_pixels(choices, mode, width, height)


@generator(labels.IMAGE_PIXELS)
def _animation(choices: Choices, fmt: str, width: int, height: int) -> Image.Image:
    """2 to MAX_FRAMES frames (palette for GIF, RGB for WebP) with drawn durations."""
    mode = "P" if fmt == "gif" else "RGB"
    count = choices.draw_integer(2, MAX_FRAMES, site="frames")
    frame_draws = height * math.ceil(width / CHUNK_PIXELS) + 1
    frames = [_pixels(choices, mode, width, height)]
    while len(frames) < count and fits(choices, frame_draws):
        frames.append(_pixels(choices, mode, width, height))
    first = frames[0]
    first.info["frames"] = frames[1:]
    first.info["duration"] = choices.draw_integer(20, 500, site="duration")
    return first


@generator(labels.IMAGE_PIXELS)
def _edge_mode_pixels(choices: Choices, mode: str, width: int, height: int) -> Image.Image:
    """Pixels in an edge mode; `P;transparency` also marks a drawn palette index transparent."""
    if mode == "1":
        return _pixels(choices, "L", width, height).convert("1")
    if mode == "P;transparency":
        image = _pixels(choices, "P", width, height)
        image.info["transparency"] = choices.draw_integer(0, 255, site="transparent-index")
        return image
    return _pixels(choices, mode, width, height)


@generator(labels.IMAGE_EXIF)
def _orientation(choices: Choices, metadata: Exif | None) -> Exif:
    """`metadata` (or EXIF of nothing else) with an orientation 1-8 always written."""
    orientation = choices.draw_integer(1, 8, site="edge-orientation")
    if metadata is None:
        return Exif(None, None, orientation, None, None, None)
    return dataclasses.replace(metadata, orientation=orientation)


def _truncated(choices: Choices, data: bytes) -> bytes:
    """A prefix of `data` that Pillow cannot load fully: cut at a drawn fraction, and
    shorter still (deterministically) until loading fails."""
    from PIL import Image

    fraction = choices.draw_float(0.2, 0.95, site="truncate-at")
    cut = max(1, min(len(data) - 1, int(len(data) * fraction)))
    while cut > 1:
        try:
            with Image.open(io.BytesIO(data[:cut])) as image:
                image.load()
        except (OSError, SyntaxError, ValueError, EOFError):
            break
        cut //= 2
    return data[:cut]


def _fit(choices: Choices, width: int, height: int, min_side: int) -> tuple[int, int]:
    """Halve the larger side until the pixel draws fit the choice budget (deterministic)."""
    budget = room(choices) - 256
    while height * math.ceil(width / CHUNK_PIXELS) > budget and max(width, height) > min_side:
        if width >= height:
            width = max(min_side, width // 2)
        else:
            height = max(min_side, height // 2)
    return width, height


@generator(labels.IMAGE_PIXELS)
def _pixels(choices: Choices, mode: str, width: int, height: int) -> Image.Image:
    from PIL import Image

    bpp = BYTES_PER_PIXEL[mode]
    palette = choices.draw_bytes(768, 768, site="palette") if mode == "P" else None
    chunks = [(min(CHUNK_PIXELS, width - x) * bpp) for x in range(0, width, CHUNK_PIXELS)]
    raw = b"".join(choices.draw_bytes(n, n, site="chunk") for _ in range(height) for n in chunks)
    image = Image.frombytes(mode, (width, height), raw)
    if palette is not None:
        image.putpalette(palette)
    return image


def _ascii(text: str) -> str:
    """EXIF ASCII: printable 7-bit, no NUL (which would end the string early)."""
    return "".join(ch if " " <= ch <= "~" else "?" for ch in text)


def _maker(choices: Choices, known: tuple[str, ...], site: str) -> str:
    if choices.draw_boolean(0.8, site=f"{site}-known?"):
        return choices.draw_choice(known, site=site)
    return _ascii(choices.draw_string(_ASCII, 1, 24, site=site))


@generator(labels.IMAGE_EXIF)
def _exif(choices: Choices, present: bool | None) -> Exif | None:
    if present is None:
        present = choices.draw_boolean(0.8, site="exif?")
    if not present:
        return None
    original = (
        datetimes(choices, site="DateTimeOriginal")
        if choices.draw_boolean(0.9, site="DateTimeOriginal?")
        else None
    )
    stamp = (
        datetimes(choices, site="DateTime") if choices.draw_boolean(0.7, site="DateTime?") else None
    )
    orientation = (
        choices.draw_integer(1, 8, site="Orientation")
        if choices.draw_boolean(0.5, site="Orientation?")
        else None
    )
    make = _maker(choices, MAKES, "Make") if choices.draw_boolean(0.6, site="Make?") else None
    model = _maker(choices, MODELS, "Model") if choices.draw_boolean(0.5, site="Model?") else None
    gps = None
    if choices.draw_boolean(0.3, site="GPS?"):
        gps = (
            choices.draw_float(-90.0, 90.0, site="latitude"),
            choices.draw_float(-180.0, 180.0, site="longitude"),
        )
    return Exif(original, stamp, orientation, make, model, gps)


def _dms(value: float) -> tuple[object, ...]:
    from PIL.TiffImagePlugin import IFDRational

    value = abs(value)
    degrees = int(value)
    minutes = int((value - degrees) * 60)
    hundredths = round(((value - degrees) * 60 - minutes) * 6000)
    return (IFDRational(degrees, 1), IFDRational(minutes, 1), IFDRational(hundredths, 100))


def exif_block(metadata: Exif) -> Image.Exif:
    """The Pillow `Exif` object for `metadata` (IFD0, Exif IFD, GPS IFD)."""
    from PIL import Image

    block = Image.Exif()
    if metadata.date_time is not None:
        block[TAG_DATETIME] = metadata.date_time.strftime(EXIF_DATE_FORMAT)
    if metadata.orientation is not None:
        block[TAG_ORIENTATION] = metadata.orientation
    if metadata.make is not None:
        block[TAG_MAKE] = metadata.make
    if metadata.model is not None:
        block[TAG_MODEL] = metadata.model
    if metadata.date_time_original is not None:
        block.get_ifd(EXIF_IFD)[TAG_DATETIME_ORIGINAL] = metadata.date_time_original.strftime(
            EXIF_DATE_FORMAT
        )
    if metadata.gps is not None:
        latitude, longitude = metadata.gps
        gps = block.get_ifd(GPS_IFD)
        gps[1] = "N" if latitude >= 0 else "S"
        gps[2] = _dms(latitude)
        gps[3] = "E" if longitude >= 0 else "W"
        gps[4] = _dms(longitude)
    return block


def _encode(
    choices: Choices, image: Image.Image, fmt: str, metadata: Exif | None, *, fast: bool = False
) -> bytes:
    """`fast` (large images): PNG at compress_level 1 with zlib's RLE strategy and GIF
    without palette optimisation; on an upscaled 600x400 tile 2.6 vs 2x that ms for PNG's
    default and 2.6 vs 3.8 ms for GIF (process time, measured): the time matters there."""
    buffer = io.BytesIO()
    if fmt == "jpeg":
        quality = choices.draw_integer(30, 95, site="quality")
        options: dict[str, object] = {"quality": quality}
        if metadata is not None:
            options["exif"] = exif_block(metadata)
        image.save(buffer, "JPEG", **options)
        return buffer.getvalue()
    options = {}
    frames = image.info.get("frames")
    if frames:
        options.update(save_all=True, append_images=frames, loop=0)
        options["duration"] = image.info["duration"]
    if fmt == "webp":
        options["lossless"] = True  # exact pixels, and ~3x faster than lossy at these sizes
    if fast and fmt == "png":
        options.update(compress_level=1, compress_type=3)  # zlib.Z_RLE
    elif fast and fmt == "gif":
        options["optimize"] = False
    if "transparency" in image.info:
        options["transparency"] = image.info["transparency"]
    if metadata is not None and fmt == "png":
        options["exif"] = exif_block(metadata)
    image.save(buffer, PIL_FORMATS[fmt], **options)
    return buffer.getvalue()
