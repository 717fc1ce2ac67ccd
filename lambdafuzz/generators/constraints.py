"""What a draw may return: one small immutable record per kind of choice.

Every recorded `Choice` carries the constraints its draw was made under.  A record knows

* `simplest()`: the value a `MINIMAL` marker replays as and the minimizer shrinks toward
  (0, or the bound nearest 0; the shortest legal string or bytes; False);
* `permits(value)`: whether a replayed prefix value can be taken as it is;
* `fit(value)`: a legal value for any misfitting prefix value, deterministically, so a
  mutated or misaligned prefix never makes replay raise.

The records are frozen and slotted, pickle as `(class, fields)` for the worker pipe, and
are interned: draws with the same arguments share one record (see "interning" below).
"""

from __future__ import annotations

import enum
import math
import operator
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from lambdafuzz.errors import InvalidArgument


class ChoiceKind(enum.StrEnum):
    INTEGER = "int"
    FLOAT = "float"
    BOOLEAN = "bool"
    BYTES = "bytes"
    STRING = "str"


@dataclass(slots=True, frozen=True)
class IntegerConstraints:
    """An integer in [min_value, max_value]."""

    kind: ClassVar[ChoiceKind] = ChoiceKind.INTEGER
    min_value: int
    max_value: int

    def __reduce__(self) -> tuple[Any, ...]:
        return (IntegerConstraints, (self.min_value, self.max_value))

    def simplest(self) -> int:
        lo, hi = self.min_value, self.max_value
        return 0 if lo <= 0 <= hi else (lo if lo > 0 else hi)

    def permits(self, value: Any) -> bool:
        return type(value) is int and self.min_value <= value <= self.max_value

    def fit(self, value: Any) -> int:
        return self.min_value + as_int(value) % (self.max_value - self.min_value + 1)


@dataclass(slots=True, frozen=True)
class FloatConstraints:
    """A finite float in [min_value, max_value]."""

    kind: ClassVar[ChoiceKind] = ChoiceKind.FLOAT
    min_value: float
    max_value: float

    def __reduce__(self) -> tuple[Any, ...]:
        return (FloatConstraints, (self.min_value, self.max_value))

    def simplest(self) -> float:
        lo, hi = self.min_value, self.max_value
        return 0.0 if lo <= 0.0 <= hi else (lo if lo > 0.0 else hi)

    def permits(self, value: Any) -> bool:
        return type(value) is float and self.min_value <= value <= self.max_value

    def fit(self, value: Any) -> float:
        frac = (as_int(value) % 1_000_003) / 1_000_003
        return self.min_value + (self.max_value - self.min_value) * frac


@dataclass(slots=True, frozen=True)
class BooleanConstraints:
    """A boolean, True with probability `p` when fresh."""

    kind: ClassVar[ChoiceKind] = ChoiceKind.BOOLEAN
    p: float

    def __reduce__(self) -> tuple[Any, ...]:
        return (BooleanConstraints, (self.p,))

    def simplest(self) -> bool:
        return False

    def permits(self, value: Any) -> bool:
        return type(value) is bool

    def fit(self, value: Any) -> bool:
        return bool(as_int(value) & 1)


@dataclass(slots=True, frozen=True)
class BytesConstraints:
    """A byte string whose length lies in [min_size, max_size]."""

    kind: ClassVar[ChoiceKind] = ChoiceKind.BYTES
    min_size: int
    max_size: int

    def __reduce__(self) -> tuple[Any, ...]:
        return (BytesConstraints, (self.min_size, self.max_size))

    def simplest(self) -> bytes:
        return bytes(self.min_size)

    def permits(self, value: Any) -> bool:
        return type(value) is bytes and self.min_size <= len(value) <= self.max_size

    def fit(self, value: Any) -> bytes:
        data = value if type(value) is bytes else str(value).encode()
        return data[: self.max_size].ljust(self.min_size, b"\0")


@dataclass(slots=True, frozen=True)
class StringConstraints:
    """A string over `alphabet` whose length lies in [min_size, max_size].

    (A dictionary constant drawn in its place is recorded under these constraints too,
    although it may leave them; `Choices.draw_string` replays such constants verbatim.)
    """

    kind: ClassVar[ChoiceKind] = ChoiceKind.STRING
    alphabet: str
    min_size: int
    max_size: int

    def __reduce__(self) -> tuple[Any, ...]:
        return (StringConstraints, (self.alphabet, self.min_size, self.max_size))

    def simplest(self) -> str:
        return self.alphabet[0] * self.min_size

    def permits(self, value: Any) -> bool:
        if type(value) is not str or not self.min_size <= len(value) <= self.max_size:
            return False
        alphabet = self.alphabet
        return all(ch in alphabet for ch in value)

    def fit(self, value: Any) -> str:
        text = value if type(value) is str else str(value)
        alphabet = self.alphabet
        mapped = "".join(ch if ch in alphabet else alphabet[ord(ch) % len(alphabet)] for ch in text)
        return mapped[: self.max_size].ljust(self.min_size, alphabet[0])


ConstraintsT = (
    IntegerConstraints
    | FloatConstraints
    | BooleanConstraints
    | BytesConstraints
    | StringConstraints
)

#: The record class of each kind (JSON decoding picks it by the choice's kind).
CONSTRAINTS_BY_KIND: dict[ChoiceKind, type[ConstraintsT]] = {
    cls.kind: cls
    for cls in (
        IntegerConstraints,
        FloatConstraints,
        BooleanConstraints,
        BytesConstraints,
        StringConstraints,
    )
}


# --------------------------------------------------------------------------- interning
# A draw looks its record up by its own arguments (`INTERNED_INTEGERS[lo, hi]`) and calls
# the builder below only on a miss, instead of validating its arguments and building a new
# record every time: the benchmark targets use about a hundred distinct records in 140,000
# draws, building one (~0.5 us) costs a fifth of a replayed draw, and choices that share a
# record pickle it once.  Records are values, so clearing a full table changes nothing but
# identity.  The builders normalise their arguments to int or float, so which of two equal
# keys (1 and True, 0 and 0.0) came first never shows in the record.
INTERN_LIMIT: Final = 1024
INTERNED_INTEGERS: dict[tuple[int, int], IntegerConstraints] = {}
INTERNED_FLOATS: dict[tuple[float, float], FloatConstraints] = {}
INTERNED_BOOLEANS: dict[float, BooleanConstraints] = {}
INTERNED_BYTES: dict[tuple[int, int], BytesConstraints] = {}
INTERNED_STRINGS: dict[tuple[str, int, int], StringConstraints] = {}


def intern[K, V](table: dict[K, V], key: K, value: V) -> V:
    """Store `value` under `key`, emptying `table` first if it is full."""
    if len(table) >= INTERN_LIMIT:
        table.clear()
    table[key] = value
    return value


def integer_constraints(min_value: int, max_value: int, caller: str) -> IntegerConstraints:
    if min_value > max_value:
        raise InvalidArgument(f"{caller}: min_value={min_value} > max_value={max_value}")
    record = IntegerConstraints(operator.index(min_value), operator.index(max_value))
    return intern(INTERNED_INTEGERS, (min_value, max_value), record)


def float_constraints(min_value: float, max_value: float) -> FloatConstraints:
    if not (math.isfinite(min_value) and math.isfinite(max_value)) or min_value > max_value:
        raise InvalidArgument(f"draw_float: bad bounds [{min_value!r}, {max_value!r}]")
    record = FloatConstraints(float(min_value), float(max_value))
    return intern(INTERNED_FLOATS, (min_value, max_value), record)


def boolean_constraints(p: float) -> BooleanConstraints:
    return intern(INTERNED_BOOLEANS, p, BooleanConstraints(float(p)))


def bytes_constraints(min_size: int, max_size: int) -> BytesConstraints:
    if not 0 <= min_size <= max_size:
        raise InvalidArgument(f"draw_bytes: bad sizes [{min_size}, {max_size}]")
    record = BytesConstraints(operator.index(min_size), operator.index(max_size))
    return intern(INTERNED_BYTES, (min_size, max_size), record)


def string_constraints(alphabet: str, min_size: int, max_size: int) -> StringConstraints:
    if not alphabet:
        raise InvalidArgument("draw_string: empty alphabet")
    if not 0 <= min_size <= max_size:
        raise InvalidArgument(f"draw_string: bad sizes [{min_size}, {max_size}]")
    record = StringConstraints(alphabet, operator.index(min_size), operator.index(max_size))
    return intern(INTERNED_STRINGS, (alphabet, min_size, max_size), record)


# --------------------------------------------------------------------------- misfits
def as_int(raw: Any) -> int:
    """A deterministic non-negative integer for any foreign prefix value (maps misfits)."""
    if isinstance(raw, bool):
        return int(raw)
    if isinstance(raw, int):
        return abs(raw)
    if isinstance(raw, float):
        return abs(int(raw)) if math.isfinite(raw) else 0
    if isinstance(raw, bytes | bytearray):
        return int.from_bytes(bytes(raw[:8]).ljust(8, b"\0"), "little")
    if isinstance(raw, str):
        return int.from_bytes(raw.encode()[:8].ljust(8, b"\0"), "little")
    return 0


# --------------------------------------------------------------------------- JSON
def constraints_to_json(constraints: ConstraintsT) -> dict[str, Any]:
    """The record as a JSON object of its fields; float bounds as exact hex strings."""
    if type(constraints) is FloatConstraints:
        return {
            "min_value": float.hex(constraints.min_value),
            "max_value": float.hex(constraints.max_value),
        }
    return {name: getattr(constraints, name) for name in constraints.__slots__}


def constraints_from_json(kind: ChoiceKind, data: Any) -> ConstraintsT:
    """Read `constraints_to_json`'s object, or the positional list that saved inputs held
    before the records existed (e.g. `[min, max]`, `[alphabet, min_size, max_size]`)."""
    cls = CONSTRAINTS_BY_KIND[kind]
    if isinstance(data, Mapping):
        fields = dict(data)
        if cls is FloatConstraints:
            fields = {name: float.fromhex(x) for name, x in fields.items()}
        return cls(**fields)
    values = list(data)
    if cls is FloatConstraints:
        values = [float.fromhex(x) for x in values]
    return cls(*values)
