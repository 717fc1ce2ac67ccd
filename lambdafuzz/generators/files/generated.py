"""A generated file, as every file generator and the dispatcher hand it on."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True, frozen=True)
class GeneratedFile:
    """A generated file.  `format` is what was asked for (and what `content_type` says);
    `erroneous` names the corruption applied, if any, in which case `extension` or `data`
    may not match `format`."""

    format: str
    extension: str  # without the dot; "" for none
    content_type: str
    data: bytes
    erroneous: str | None = None

    @property
    def suffix(self) -> str:
        """`.csv`, `.csv.gz`, or "" without an extension."""
        return f".{self.extension}" if self.extension else ""
