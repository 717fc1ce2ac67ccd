"""Formats named by a key's ending or by the code: content consistent with its name.

An object's key takes the extension of the file drawn for it, so name and content agree,
except where the key's ending comes from elsewhere: a notification's suffix filter
(`.jpg`) ended every key whatever its file was, so a handler past `key.endswith(".jpg")`
met a CSV named `.jpg` nine times in ten, never a JPEG in an unusual mode.  Here a suffix
picks the formats whose extension it ends with, and the extensions the code compares
with (dictionary constants `.webp`, `png`) pick theirs now and then, so the code past a
suffix check runs on that format's edge cases.  Erroneous files (`dispatch._corrupt`)
keep the mismatches at their own small share.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from lambdafuzz.generators.files.dispatch import (
    DOCUMENT_FORMATS,
    EXTENSIONS,
    NAMED_IMAGE_FORMATS,
    resolve_formats,
)

#: How often a file takes one of the formats whose extension the code names, when the
#: code names any the object's formats admit: often enough that each suffix branch meets
#: its own format every few inputs, rare enough that the other formats stay common.
CODE_FORMAT_P: Final = 0.3
#: Formats a group admits when a name asks for them, beyond the group's drawn ones.
_WIDER: Final = {"image": NAMED_IMAGE_FORMATS, "any": (*NAMED_IMAGE_FORMATS, *DOCUMENT_FORMATS)}


def admitted(formats: Sequence[str] | str) -> tuple[str, ...]:
    """The concrete formats `formats` draws, then those its groups admit by name (`image`:
    BMP, TIFF, WebP; `any`: those and PDF)."""
    names = (formats,) if isinstance(formats, str) else tuple(formats)
    found = dict.fromkeys(resolve_formats(names))
    for name in names:
        found.update(dict.fromkeys(_WIDER.get(name, ())))
    return tuple(found)


def formats_for_ending(ending: str, formats: Sequence[str] | str) -> tuple[str, ...]:
    """The admitted formats whose extension `ending` ends with (case-insensitive), the
    longest extension first wins (`.csv.gz` is csv.gz, not any gzip); () if none."""
    low = ending.lower()
    best: dict[str, int] = {}
    for fmt in admitted(formats):
        for extension in EXTENSIONS[fmt]:
            if low.endswith("." + extension) or low == extension:
                best[fmt] = max(best.get(fmt, 0), len(extension))
    if not best:
        return ()
    longest = max(best.values())
    return tuple(fmt for fmt, size in best.items() if size == longest)


@functools.lru_cache(maxsize=64)  # per object draw otherwise: a dictionary of hundreds
def code_formats(constants: tuple[str, ...], formats: tuple[str, ...]) -> tuple[str, ...]:
    """The admitted formats whose extension is one of `constants` (`.png`, `png`,
    `.JPG`): what the code compares a key's ending with."""
    named = {c.strip().lower().lstrip(".") for c in constants if 0 < len(c) <= 8}
    return tuple(fmt for fmt in admitted(formats) if any(ext in named for ext in EXTENSIONS[fmt]))
