"""File-format sub-generators: CSV, JSON, XML, text, images with EXIF, ZIP, gzip.

`draw_file(choices, formats)` is the entry point; the per-format generators live in their
own modules (`csv_files`, `json_files`, ...), named so they do not shadow the stdlib.
"""

from __future__ import annotations

from lambdafuzz.generators.files.dispatch import (
    CONTENT_TYPES,
    FORMATS,
    draw_file,
    resolve_formats,
)
from lambdafuzz.generators.files.generated import GeneratedFile

__all__ = ["CONTENT_TYPES", "FORMATS", "GeneratedFile", "draw_file", "resolve_formats"]
