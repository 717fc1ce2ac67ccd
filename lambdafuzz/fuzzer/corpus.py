"""Saved inputs on disk: `out/corpus/` and `out/failures/`, readable JSON, written atomically.

A saved file holds the choice sequence (all that replay needs) plus what a human needs to
understand it: a summary of the world, the event, the outcome and the provenance.  Files
are never rewritten in place (temp file + `os.replace`) and corrupt ones are skipped with a
warning, never deleted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lambdafuzz.atomic_files import write_text_atomic
from lambdafuzz.errors import CorpusError
from lambdafuzz.generators.core import ChoiceSequence, ReplayMode

FORMAT_VERSION = 1


def write_json_atomic(path: Path, data: Any) -> None:
    """Write JSON so that a reader (or a crash) never sees a half-written file."""
    write_text_atomic(path, json.dumps(data, indent=1, default=_json_default), durable=True)


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"$bytes": value[:256].hex(), "size": len(value)}
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=repr)
    return repr(value)


@dataclass(slots=True, frozen=True)
class SavedInput:
    """One input as stored on disk."""

    name: str
    sequence: ChoiceSequence
    seed: int
    mode: ReplayMode
    outcome: str
    provenance: str
    world: Any = None
    event: Any = None
    failure: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = {
            "lambdafuzz": FORMAT_VERSION,
            "name": self.name,
            "outcome": self.outcome,
            "provenance": self.provenance,
            "seed": self.seed,
            "mode": self.mode.value,
            "failure": self.failure,
            "world": self.world,
            "event": self.event,
            **self.extra,
            "sequence": self.sequence.to_json(),
        }
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], name: str) -> SavedInput:
        known = {"lambdafuzz", "name", "outcome", "provenance", "seed", "mode", "failure"}
        known |= {"world", "event", "sequence"}
        return cls(
            name=data.get("name", name),
            sequence=ChoiceSequence.from_json(data["sequence"]),
            seed=int(data.get("seed", 0)),
            mode=ReplayMode(data.get("mode", ReplayMode.EXECUTION_INDEXED.value)),
            outcome=str(data.get("outcome", "")),
            provenance=str(data.get("provenance", "")),
            world=data.get("world"),
            event=data.get("event"),
            failure=data.get("failure"),
            extra={k: v for k, v in data.items() if k not in known},
        )


def save_input(path: Path, saved: SavedInput) -> None:
    write_json_atomic(path, saved.to_json())


def load_input(path: Path) -> SavedInput:
    """Read one saved input; any problem becomes a `CorpusError` naming the file."""
    try:
        data = json.loads(Path(path).read_text())
        if not isinstance(data, dict) or "sequence" not in data:
            raise ValueError("not a lambdafuzz input (no 'sequence')")
        return SavedInput.from_json(data, Path(path).stem)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CorpusError(f"{path}: unreadable saved input: {exc}") from exc


def iter_inputs(directory: Path) -> Iterator[SavedInput | CorpusError]:
    """Every `*.json` input in `directory` in name order; corrupt ones as `CorpusError`s."""
    if not directory.is_dir():
        return
    for path in sorted(directory.glob("*.json")):
        try:
            yield load_input(path)
        except CorpusError as exc:
            yield exc
