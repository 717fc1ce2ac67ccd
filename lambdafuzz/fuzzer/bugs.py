"""Bugs and their variants: what a campaign saves one file for (`model.bug` says what a bug
is keyed by).

Every failure signature of a campaign is a *variant* of the bug its key names, with its
own record (`FailureRecord`: hits, first execution, the re-run that confirmed it) and its
smallest input so far.  A bug holds at most `MAX_VARIANTS` of them; hits of further
signatures are counted in `Bug.other_hits`.  The bug's file in `failures/` (or
`handled/`) holds its smallest variant's input at the top level, as any saved input, so
everything that replays a saved file replays the bug; its `failure` record is that
variant's, with the bug's key, total hits and every variant (record, size and input) in
`variants`.

Files written before bugs existed hold one signature each: read, they are one-variant bugs
(`read_bug_file`), and `merged` joins the files of one bug into the first one's
(`OutDir._group_bug_files`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lambdafuzz.errors import CorpusError
from lambdafuzz.fuzzer.corpus import SavedInput, input_from_json
from lambdafuzz.fuzzer.failures import FailureRecord, failure_slug
from lambdafuzz.model.bug import bug_key

#: Variants kept per bug (each with its own input); a bug rarely has more than a few.
MAX_VARIANTS = 10
#: The failure record's field that names a file's bug; its absence marks an older file.
BUG_FIELD = "bug"
VARIANTS_FIELD = "variants"


@dataclass(slots=True)
class Variant:
    """One signature of a bug: its record and its smallest input so far."""

    name: str  # "v1", "v2", ...: the order the campaign found them in
    record: FailureRecord
    saved: SavedInput
    size: int  # `ChoiceSequence.size` of `saved`: a smaller input replaces it

    @property
    def signature(self) -> str:
        return self.record.signature

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "size": self.size,
            "record": self.record.to_json(),
            "input": self.saved.to_json(),
        }


@dataclass(slots=True)
class Bug:
    """One bug of a campaign: its key, its file, its variants in the order found."""

    key: str
    file_name: str
    variants: list[Variant] = field(default_factory=list)
    # signatures past MAX_VARIANTS: their records (still counting hits), and the hits such
    # signatures had in a file read back
    others: list[FailureRecord] = field(default_factory=list)
    earlier_other_hits: int = 0

    @property
    def other_hits(self) -> int:
        """Hits of signatures past MAX_VARIANTS, which keep no input."""
        return self.earlier_other_hits + sum(r.hits for r in self.others)

    @property
    def primary(self) -> Variant:
        """The variant with the smallest input (the first found among equals): what the
        bug's file replays by default."""
        return min(self.variants, key=lambda v: v.size)

    @property
    def hits(self) -> int:
        return sum(v.record.hits for v in self.variants) + self.other_hits

    @property
    def first_exec(self) -> int:
        return min(v.record.first_exec for v in self.variants)

    def variant(self, name: str) -> Variant | None:
        """A variant by its name (`v2`), its number (`2`) or its signature."""
        wanted = f"v{name}" if name.isdigit() else name
        return next((v for v in self.variants if wanted in (v.name, v.signature)), None)

    def next_name(self) -> str:
        taken = {v.name for v in self.variants}
        number = len(self.variants) + 1
        while f"v{number}" in taken:
            number += 1
        return f"v{number}"

    def to_json(self) -> dict[str, Any]:
        """The bug's file: its primary variant's input with the whole bug in `failure`."""
        primary = self.primary
        data = primary.saved.to_json()
        data["name"] = self.file_name.removesuffix(".json")
        data["failure"] = {
            **primary.record.to_json(),
            BUG_FIELD: self.key,
            "bug_hits": self.hits,
            "variant": primary.name,
            VARIANTS_FIELD: [v.to_json() for v in self.variants],
        }
        if self.other_hits:
            data["failure"]["other_hits"] = self.other_hits
        return data


class BugBook:
    """A campaign's bugs of one kind (failures, handled exceptions), by key, with the
    signature of every variant mapped to its bug."""

    def __init__(self) -> None:
        self.bugs: dict[str, Bug] = {}
        self._by_signature: dict[str, Bug] = {}

    def __len__(self) -> int:
        return len(self.bugs)

    def __iter__(self) -> Iterable[Bug]:
        return iter(self.bugs.values())

    @property
    def variants(self) -> int:
        return sum(len(b.variants) for b in self.bugs.values())

    @property
    def hits(self) -> int:
        return sum(b.hits for b in self.bugs.values())

    def add(self, record: FailureRecord, saved: SavedInput, size: int) -> tuple[Bug, bool]:
        """File a new signature under its bug; (the bug, whether the bug is new).  Past
        MAX_VARIANTS its hits (now and later) count in the bug's `other_hits` and it keeps
        no input."""
        key = bug_key(record.info)
        bug = self.bugs.get(key)
        new = bug is None
        if bug is None:
            bug = self.bugs[key] = Bug(key, failure_slug(key) + ".json")
        if len(bug.variants) >= MAX_VARIANTS:
            bug.others.append(record)
        else:
            record.file_name = bug.file_name
            bug.variants.append(Variant(bug.next_name(), record, saved, size))
        self._by_signature[record.signature] = bug
        return bug, new

    def load(self, key: str, file_name: str, variants: Iterable[Variant], other: int) -> Bug:
        """A bug read back from its file (a resumed campaign)."""
        bug = self.bugs.get(key)
        if bug is None:
            bug = self.bugs[key] = Bug(key, file_name, earlier_other_hits=other)
        for variant in variants:
            if variant.signature in self._by_signature:
                continue
            variant.record.file_name = bug.file_name
            bug.variants.append(variant)
            self._by_signature[variant.signature] = bug
        return bug

    def smaller(self, signature: str, size: int) -> Variant | None:
        """The variant of `signature` when an input of `size` is smaller than its own."""
        bug = self._by_signature.get(signature)
        if bug is None or size <= 0:
            return None
        variant = next((v for v in bug.variants if v.signature == signature), None)
        return variant if variant is not None and size < variant.size else None


# =========================================================================== reading
@dataclass(slots=True, frozen=True)
class BugFile:
    """One file of failures/ or handled/ read back: its bug and variants (one variant, keyed
    from its record, for a file written before bugs)."""

    path: Path
    saved: SavedInput  # the file's top-level input (its primary variant's)
    key: str
    variants: tuple[Variant, ...]
    other_hits: int
    grouped: bool  # written as a bug (False: an older one-signature file)


def read_bug_file(path: Path, saved: SavedInput) -> BugFile:
    """The bug a loaded failure file holds.  A variant whose input is unreadable is left out
    (the others stay); a file whose variants are all unreadable reads as its top level."""
    raw: Mapping[str, Any] = saved.failure if isinstance(saved.failure, Mapping) else {}
    top = FailureRecord.from_json(raw, path.name, saved.outcome)
    variants: list[Variant] = []
    listed = raw.get(VARIANTS_FIELD)
    if isinstance(listed, list):
        for i, item in enumerate(listed[:MAX_VARIANTS]):
            variant = _variant(item, path, i)
            if variant is not None:
                variants.append(variant)
    grouped = bool(variants) and isinstance(raw.get(BUG_FIELD), str)
    if not grouped:
        variants = [Variant("v1", top, saved, saved.sequence.size)]
    key = str(raw[BUG_FIELD]) if grouped else bug_key(top.info)
    other = raw.get("other_hits")
    other_hits = other if type(other) is int and other > 0 else 0
    return BugFile(path, saved, key, tuple(variants), other_hits, grouped)


def _variant(item: Any, path: Path, index: int) -> Variant | None:
    if not isinstance(item, Mapping):
        return None
    name = item.get("name")
    name = name if isinstance(name, str) and name.isprintable() and name else f"v{index + 1}"
    record_raw = item.get("record")
    if not isinstance(record_raw, Mapping):
        return None
    try:
        saved = input_from_json(item.get("input"), f"{path.stem}.{name}", f"{path}: variant {name}")
    except CorpusError:
        return None
    record = FailureRecord.from_json(record_raw, path.name, saved.outcome)
    size = item.get("size")
    size = size if type(size) is int and size >= 0 else saved.sequence.size
    return Variant(name[:40], record, saved, size)


def merged(files: list[BugFile]) -> BugFile:
    """Files of one bug as one: the first file's path; a signature listed twice kept once;
    a grouped file's variants keep their names, the others get the next free ones."""
    first = files[0]
    if len(files) == 1:
        return first
    seen: set[str] = set()
    variants: list[Variant] = []
    for found in files:
        for variant in found.variants:
            if variant.signature in seen or len(variants) >= MAX_VARIANTS:
                continue
            seen.add(variant.signature)
            variants.append(variant)
    names: set[str] = set()
    for found in files:
        if found.grouped:
            names.update(v.name for v in found.variants if v in variants)
    number = 1
    for variant in variants:
        if variant.name in names and any(f.grouped and variant in f.variants for f in files):
            continue
        while f"v{number}" in names:
            number += 1
        variant.name = f"v{number}"
        names.add(variant.name)
    other = sum(f.other_hits for f in files)
    return BugFile(first.path, first.saved, first.key, tuple(variants), other, True)


def bug_of_file(found: BugFile) -> Bug:
    """The in-memory bug a file holds."""
    bug = Bug(found.key, found.path.name, earlier_other_hits=found.other_hits)
    for variant in found.variants:
        variant.record.file_name = bug.file_name
        bug.variants.append(variant)
    return bug
