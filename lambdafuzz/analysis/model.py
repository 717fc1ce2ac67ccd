"""The analysis result: what crosses from `analysis/` to the fuzzer, the CLI and the cache.

Everything here is a frozen, slotted dataclass that round-trips through JSON, because the
result is cached on disk and read back by a later run (maybe a later version: the
`version` field lets the cache refuse what it does not understand).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

#: Bumped whenever the analysis would produce a different result for the same sources.
ANALYSIS_VERSION = 8

#: The harvest kind (`constants.py`) of a DynamoDB key value, before its attribute's name.
KEY_VALUE_KIND = "key_value:"
#: The harvest kinds (`constants.py`) of a name the code reads its input by.
FIELD_KINDS = frozenset({"subscript_key", "dict_key", "attribute", "field_name"})
#: What a field name looks like (`order_id`, `detail-type`, `Content.Type`, `Bucket Name`,
#: `ACL Allows Upload/Delete`: up to five words), not a sentence; 64 characters at most.
FIELD_NAME = re.compile(r"(?=.{1,64}$)[A-Za-z_][\w./-]*(?: [\w./-]+){0,4}")

#: A runtime coverage arm as the harness places it: (file, from_line, to_line).
ArmKeyT = tuple[str, int, int]


class TargetKind(StrEnum):
    """Which construct a code target belongs to."""

    IF = "if"
    ELIF = "elif"
    WHILE = "while"
    FOR = "for"
    IFEXP = "ifexp"
    BOOLOP = "boolop"
    MATCH = "match"
    EXCEPT = "except"
    COMPREHENSION = "comprehension"


@dataclass(frozen=True, slots=True)
class InfluencingType:
    """A type label that flows into a branch condition, `distance` def-use edges away."""

    label: str
    distance: int


@dataclass(frozen=True, slots=True)
class CodeTarget:
    """One arm of one branch: the thing the fuzzer tries to cover (SpotOn's code target).

    `line_pairs` are candidate (from_line, to_line) pairs of the harness's `ArmSite` for this
    arm (best effort, see `targets.py`; a negative to_line is minus the first line of the
    code object the arm leaves, coverage.py's convention).  `index` is the operand index of
    a boolean operator, the case index of a `match` or the handler index of a `try`; 0
    otherwise.
    """

    id: str
    file: str
    module: str
    function: str
    line: int
    end_line: int
    kind: TargetKind
    arm: str
    index: int
    condition: str
    line_pairs: tuple[tuple[int, int], ...]
    types: tuple[InfluencingType, ...]
    input_dependent: bool

    def arm_keys(self) -> tuple[ArmKeyT, ...]:
        """The coverage keys that count as covering this target."""
        return tuple((self.file, a, b) for a, b in self.line_pairs)

    def closest(self) -> InfluencingType | None:
        """The nearest influencing type, if any."""
        return self.types[0] if self.types else None


@dataclass(frozen=True, slots=True)
class UnifiedType:
    """One entry of SpotOn's unified map D: a label and the distance the fuzzer starts from.

    `target` is the id of the code target whose distance was kept (the one with the most
    influencing types); `targets` counts how many targets this label influences.
    """

    label: str
    distance: int
    target: str
    targets: int


@dataclass(frozen=True, slots=True)
class Constant:
    """A collected literal with why it was collected (`kinds`) and where (`module:line`)."""

    value: str | int | float
    kinds: tuple[str, ...]
    locations: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class MatchReport:
    """How many input-dependent targets have an influencing type some generator produces."""

    total: int
    matched: int
    produced: tuple[str, ...]
    unmatched: tuple[str, ...]

    @property
    def percent(self) -> float:
        """Matched share in percent; 100 when there is nothing to match."""
        return 100.0 * self.matched / self.total if self.total else 100.0


@dataclass(frozen=True, slots=True)
class AnalysisResult:
    """Static analysis of one application: targets with types, unified map, constants.

    `constants` is SpotOn's constant-string table (what string draws may pick);
    `numeric_constants` is empty unless the analysis ran with `numeric=True`;
    `constant_details` says for each of them why and where it was collected.
    """

    version: int
    digest: str
    files: tuple[str, ...]
    handler: str | None
    targets: tuple[CodeTarget, ...]
    unified: tuple[UnifiedType, ...]
    constants: tuple[str, ...]
    numeric_constants: tuple[int | float, ...]
    constant_details: tuple[Constant, ...]
    match: MatchReport
    elapsed_s: float = field(compare=False)  # how long this run took, not part of the result
    from_cache: bool = field(default=False, compare=False)
    # the code stores DynamoDB items it did not spell out (`put_item(Item=payload)`): what
    # it is sent may be such an item (`rich` harvest only)
    stores_items: bool = False

    # --- views the fuzzer uses -------------------------------------------------------------
    def distances(self) -> dict[str, int]:
        """SpotOn's map D: label -> unified distance."""
        return {u.label: u.distance for u in self.unified}

    def field_names(self) -> tuple[str, ...]:
        """The names the code reads its input by (subscript and `.get` keys, attributes of
        parsed models, CSV field names), in the harvest's order: what a record the handler
        accepts is made of.  Only name-like strings (a key, not a sentence or a path)."""
        return tuple(
            str(c.value)
            for c in self.constant_details
            if isinstance(c.value, str)
            and FIELD_NAME.fullmatch(c.value)
            and not FIELD_KINDS.isdisjoint(c.kinds)
        )

    def key_values(self) -> tuple[tuple[str, str], ...]:
        """(attribute, value) pairs of the DynamoDB keys the code looks items up by
        (`Key={"SK": "PROFILE"}`, `Key("SK").begins_with("ORDER#")`), in value order: the
        items a lookup by a constant sort key can find are made of these."""
        return tuple(
            (kind.removeprefix(KEY_VALUE_KIND), str(c.value))
            for c in self.constant_details
            if isinstance(c.value, str)
            for kind in c.kinds
            if kind.startswith(KEY_VALUE_KIND)
        )

    def dictionary(self) -> tuple[str, ...]:
        """The constant strings, sorted (SpotOn's constant-string lookup table)."""
        return self.constants

    def target(self, target_id: str) -> CodeTarget:
        """Look a target up by id (raises KeyError)."""
        for t in self.targets:
            if t.id == target_id:
                return t
        raise KeyError(target_id)

    def arm_index(self) -> dict[ArmKeyT, tuple[str, ...]]:
        """Coverage arm key -> ids of the targets it may cover (several when lines collide)."""
        index: dict[ArmKeyT, list[str]] = {}
        for t in self.targets:
            for key in t.arm_keys():
                index.setdefault(key, []).append(t.id)
        return {k: tuple(v) for k, v in index.items()}

    # --- JSON ----------------------------------------------------------------------------
    def to_json(self, *, indent: int | None = 1) -> str:
        """Serialise (without `from_cache`, which describes this process, not the result)."""
        return json.dumps(_result_to_dict(self), indent=indent, sort_keys=False)

    @classmethod
    def from_json(cls, text: str) -> AnalysisResult:
        """Inverse of `to_json`; raises ValueError on a document of another shape."""
        try:
            return _result_from_dict(json.loads(text))
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not an analysis result: {exc!r}") from exc


def _result_to_dict(r: AnalysisResult) -> dict[str, Any]:
    return {
        "version": r.version,
        "digest": r.digest,
        "files": list(r.files),
        "handler": r.handler,
        "elapsed_s": r.elapsed_s,
        "targets": [
            {
                "id": t.id,
                "file": t.file,
                "module": t.module,
                "function": t.function,
                "line": t.line,
                "end_line": t.end_line,
                "kind": t.kind.value,
                "arm": t.arm,
                "index": t.index,
                "condition": t.condition,
                "line_pairs": [list(p) for p in t.line_pairs],
                "types": [[x.label, x.distance] for x in t.types],
                "input_dependent": t.input_dependent,
            }
            for t in r.targets
        ],
        "unified": [[u.label, u.distance, u.target, u.targets] for u in r.unified],
        "constants": list(r.constants),
        "numeric_constants": list(r.numeric_constants),
        "constant_details": [_constant_to_dict(c) for c in r.constant_details],
        "stores_items": r.stores_items,
        "match": {
            "total": r.match.total,
            "matched": r.match.matched,
            "produced": list(r.match.produced),
            "unmatched": list(r.match.unmatched),
        },
    }


def _constant_to_dict(c: Constant) -> dict[str, Any]:
    return {"value": c.value, "kinds": list(c.kinds), "locations": list(c.locations)}


def _constant_from_dict(d: dict[str, Any]) -> Constant:
    return Constant(d["value"], tuple(d["kinds"]), tuple(d["locations"]))


def _result_from_dict(d: dict[str, Any]) -> AnalysisResult:
    targets = tuple(
        CodeTarget(
            id=t["id"],
            file=t["file"],
            module=t["module"],
            function=t["function"],
            line=t["line"],
            end_line=t["end_line"],
            kind=TargetKind(t["kind"]),
            arm=t["arm"],
            index=t["index"],
            condition=t["condition"],
            line_pairs=tuple((int(a), int(b)) for a, b in t["line_pairs"]),
            types=tuple(InfluencingType(lbl, int(dist)) for lbl, dist in t["types"]),
            input_dependent=bool(t["input_dependent"]),
        )
        for t in d["targets"]
    )
    m = d["match"]
    return AnalysisResult(
        version=int(d["version"]),
        digest=d["digest"],
        files=tuple(d["files"]),
        handler=d["handler"],
        targets=targets,
        unified=tuple(UnifiedType(a, int(b), c, int(n)) for a, b, c, n in d["unified"]),
        constants=tuple(d["constants"]),
        numeric_constants=tuple(d["numeric_constants"]),
        constant_details=tuple(_constant_from_dict(c) for c in d["constant_details"]),
        match=MatchReport(
            int(m["total"]), int(m["matched"]), tuple(m["produced"]), tuple(m["unmatched"])
        ),
        elapsed_s=float(d["elapsed_s"]),
        stores_items=bool(d.get("stores_items", False)),
    )
