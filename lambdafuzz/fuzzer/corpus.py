"""Saved inputs on disk: `out/corpus/` and `out/failures/`, readable JSON, written atomically.

A saved file holds the choice sequence (all that replay needs) plus what a human needs to
understand it: a summary of the world, the event, the outcome and the provenance.  Files
are never rewritten in place (temp file + `os.replace`) and corrupt ones are skipped with a
warning, never deleted.

Saved files may come from anywhere (a restored CI cache, a colleague's out dir), so reading
one checks everything before any of it is used: only regular files, at most
`MAX_SAVED_BYTES`, JSON nested at most `MAX_JSON_DEPTH` deep, the format version this
release writes, every field of the type it must have.  Any problem is one `CorpusError`
that names the file, the field and what was expected.  A file's name on disk is its name;
the `name` it records must be a plain file name (`SAFE_NAME`) too.
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lambdafuzz.atomic_files import write_text_atomic
from lambdafuzz.errors import CorpusError
from lambdafuzz.generators.core import ChoiceSequence, ReplayMode

#: The `lambdafuzz` field of every saved input: the version of this file format.
FORMAT_VERSION = 1
#: Larger files are refused without being read (a saved input is kilobytes to a few MB).
MAX_SAVED_BYTES = 32 * 1024 * 1024
#: Deeper JSON is refused (lambdafuzz writes less than 20 levels).
MAX_JSON_DEPTH = 200
#: More choices than any input can draw (`Choices.max_choices` is about 10k).
MAX_CHOICES_SAVED = 100_000
#: What the name of a saved input may be: one file name, never a path (no separator, no
#: control character, not `.` or `..`).
SAFE_NAME = re.compile(r"[^/\\\x00-\x1f\x7f]{1,240}")
#: The fields of a saved input (anything else is kept in `extra`).
KNOWN_FIELDS = frozenset(
    {"lambdafuzz", "name", "outcome", "provenance", "seed", "mode", "failure"}
    | {"world", "event", "log", "sequence"}
)
#: Longest `log` read back (the worker keeps 64 KB of output; escaping may grow it 4 times).
MAX_LOG_CHARS = 1 << 20
_TEXT_FAILURE_FIELDS = ("signature", "status", "exception_type", "message", "location")
_TEXT_FAILURE_FIELDS += ("cause", "traceback", "world_inconsistency")
_SEED_RANGE = (-(2**63), 2**64 - 1)


def write_json_atomic(path: Path, data: Any, *, real_parent: bool = False) -> None:
    """Write JSON so that a reader (or a crash) never sees a half-written file;
    `real_parent`: refuse a parent that is a symlink (`write_bytes_atomic`)."""
    text = json.dumps(data, indent=1, default=_json_default)
    write_text_atomic(path, text, durable=True, real_parent=real_parent)


def _json_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"$bytes": value[:256].hex(), "size": len(value)}
    if isinstance(value, set | frozenset | tuple):
        return sorted(value, key=repr)
    return repr(value)


#: A corpus input that failed, kept as a parent for the arms it covered (`Engine._keep`):
#: `"failing": true` in its file.  Replays expect it to fail; it is in failures/ too.
FAILING_FIELD = "failing"
#: How many times a saved input's event was delivered when it was found (2: the
#: idempotency oracle's second delivery, `model.redelivery`); absent: once.
DELIVERIES_FIELD = "deliveries"
#: The most deliveries a saved input may ask for.
MAX_DELIVERIES = 2


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
    # what the handler printed and logged in the saved run (failures; "" for others)
    log: str = ""

    @property
    def failing_parent(self) -> bool:
        """A failing input kept in the corpus as a parent (`FAILING_FIELD`)."""
        return self.extra.get(FAILING_FIELD) is True

    @property
    def deliveries(self) -> int:
        """How many times a replay delivers its event (`DELIVERIES_FIELD`); 1 for a value
        out of range."""
        value = self.extra.get(DELIVERIES_FIELD)
        return value if type(value) is int and 1 <= value <= MAX_DELIVERIES else 1

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
            **({"log": self.log} if self.log else {}),
            "sequence": self.sequence.to_json(),
        }
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], name: str) -> SavedInput:
        """A saved input from already validated JSON (`load_input` validates); `name` is
        the file's name on disk, which wins over the one recorded."""
        return cls(
            name=name,
            sequence=ChoiceSequence.from_json(data["sequence"]),
            seed=int(data.get("seed", 0)),
            mode=ReplayMode(data.get("mode", ReplayMode.EXECUTION_INDEXED.value)),
            outcome=str(data.get("outcome", "")),
            provenance=str(data.get("provenance", "")),
            world=data.get("world"),
            event=data.get("event"),
            failure=data.get("failure"),
            extra={k: v for k, v in data.items() if k not in KNOWN_FIELDS},
            log=data.get("log") or "",
        )


def save_input(path: Path, saved: SavedInput, *, real_parent: bool = False) -> None:
    write_json_atomic(path, saved.to_json(), real_parent=real_parent)


def input_name(path: Path) -> str:
    """The name of the saved input in `path`: its file name without `.json`."""
    return Path(path).name.removesuffix(".json")


def load_input(path: Path) -> SavedInput:
    """Read one saved input; any problem becomes a `CorpusError` naming the file."""
    path = Path(path)
    data = read_json_file(path, what="saved input")
    problem = _check_saved(data)
    if problem is not None:
        raise CorpusError(f"{path}: {problem}")
    try:
        return SavedInput.from_json(data, input_name(path))
    except Exception as exc:  # noqa: BLE001 - validated above; anything left is still the file's
        raise CorpusError(
            f"{path}: unreadable saved input: {type(exc).__name__}: {_short(exc)}"
        ) from exc


def input_from_json(data: Any, name: str, where: str) -> SavedInput:
    """A saved input held inside another file (a bug's variant, `fuzzer.bugs`), checked as
    `load_input` checks a file; `where` names it in the `CorpusError`."""
    problem = _check_saved(data)
    if problem is not None:
        raise CorpusError(f"{where}: {problem}")
    try:
        return SavedInput.from_json(data, name)
    except Exception as exc:  # noqa: BLE001 - validated above; anything left is still the file's
        raise CorpusError(
            f"{where}: unreadable saved input: {type(exc).__name__}: {_short(exc)}"
        ) from exc


def iter_inputs(directory: Path) -> Iterator[SavedInput | CorpusError]:
    """Every `*.json` input in `directory` in name order; corrupt ones as `CorpusError`s."""
    if not directory.is_dir():
        return
    for path in sorted(directory.glob("*.json")):
        try:
            yield load_input(path)
        except CorpusError as exc:
            yield exc


# =========================================================================== reading files
def read_json_file(path: Path, *, what: str, max_bytes: int = MAX_SAVED_BYTES) -> Any:
    """The JSON in `path`, read without trusting the file: a FIFO, device or directory is
    refused without blocking, at most `max_bytes` are read, nesting is bounded.  Every
    problem is a `CorpusError` naming the file and what was expected."""
    text = read_text_file(path, what=what, max_bytes=max_bytes)
    try:
        data = json.loads(text)
    except RecursionError:
        raise CorpusError(
            f"{path}: unreadable {what}: JSON nested too deeply "
            f"(expected at most {MAX_JSON_DEPTH} levels)"
        ) from None
    except ValueError as exc:
        raise CorpusError(f"{path}: unreadable {what}: not valid JSON: {_short(exc)}") from None
    if _depth_exceeds(data, MAX_JSON_DEPTH):
        raise CorpusError(
            f"{path}: unreadable {what}: JSON nested too deeply "
            f"(expected at most {MAX_JSON_DEPTH} levels)"
        )
    return data


def read_text_file(path: Path, *, what: str, max_bytes: int = MAX_SAVED_BYTES) -> str:
    """The UTF-8 text of a regular file of at most `max_bytes` (see `read_json_file`)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise CorpusError(f"{path}: unreadable {what}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise CorpusError(
                f"{path}: not a regular file ({_file_kind(info.st_mode)}); "
                f"expected a {what} in a JSON file"
            )
        if info.st_size > max_bytes:
            raise CorpusError(
                f"{path}: {what} too large ({info.st_size} bytes); "
                f"expected at most {max_bytes} bytes"
            )
        chunks = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:  # grew while being read
            raise CorpusError(
                f"{path}: {what} too large (over {max_bytes} bytes); "
                f"expected at most {max_bytes} bytes"
            )
    except OSError as exc:
        raise CorpusError(f"{path}: unreadable {what}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(
            f"{path}: unreadable {what}: not UTF-8 text (byte {exc.start}); expected JSON"
        ) from None


def _file_kind(mode: int) -> str:
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def _depth_exceeds(data: Any, limit: int) -> bool:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


# =========================================================================== validation
def _check_saved(data: Any) -> str | None:
    """What is wrong with a saved input's JSON, as `field: expected ..., found ...`."""
    if not isinstance(data, dict):
        return f"expected a JSON object (a lambdafuzz saved input), found {_describe(data)}"
    if "lambdafuzz" not in data:
        return (
            "not a lambdafuzz saved input: no 'lambdafuzz' format field "
            f"(expected 'lambdafuzz': {FORMAT_VERSION})"
        )
    version = data["lambdafuzz"]
    if type(version) is not int or version != FORMAT_VERSION:
        return (
            f"field 'lambdafuzz': unsupported format version {_describe(version)}; "
            f"expected {FORMAT_VERSION} (written by a different lambdafuzz release?)"
        )
    if "sequence" not in data:
        return "field 'sequence': missing; expected the list of recorded choices"
    checks = (
        ("name", _check_name),
        ("outcome", _check_short_text),
        ("provenance", _check_text),
        ("seed", _check_seed),
        ("mode", _check_mode),
        ("failure", _check_failure),
        ("arms", _check_count),
        ("exec", _check_count),
        ("return_value", _check_text),
        ("log", _check_log),
        ("sequence", _check_sequence),
    )
    for name, check in checks:
        if name in data:
            problem = check(data[name])
            if problem is not None:
                return (
                    f"field {problem}" if problem.startswith("'") else f"field '{name}': {problem}"
                )
    return None


def is_safe_name(name: Any) -> bool:
    """Whether `name` is one file name (`SAFE_NAME`), so that `folder / name` stays in
    `folder`."""
    return type(name) is str and bool(SAFE_NAME.fullmatch(name)) and name not in (".", "..")


def _check_name(value: Any) -> str | None:
    if not is_safe_name(value):
        return (
            "expected a plain file name (no '/', '\\' or control characters, not '..'), "
            f"found {_describe(value)}"
        )
    return None


def _check_text(value: Any) -> str | None:
    return (
        None if value is None or type(value) is str else f"expected text, found {_describe(value)}"
    )


def _check_log(value: Any) -> str | None:
    if value is None or (type(value) is str and len(value) <= MAX_LOG_CHARS):
        return None
    if type(value) is str:
        return (
            f"expected the handler's output, at most {MAX_LOG_CHARS} characters, found {len(value)}"
        )
    return f"expected the handler's output (text), found {_describe(value)}"


def _check_short_text(value: Any) -> str | None:
    if type(value) is not str or len(value) > 100:
        return f'expected a short text such as "VALID", found {_describe(value)}'
    return None


def _check_seed(value: Any) -> str | None:
    lo, hi = _SEED_RANGE
    if type(value) is not int or not lo <= value <= hi:
        return f"expected an integer of at most 64 bits, found {_describe(value)}"
    return None


def _check_mode(value: Any) -> str | None:
    modes = [m.value for m in ReplayMode]
    if value not in modes or type(value) is not str:
        return f"expected one of {', '.join(map(repr, modes))}, found {_describe(value)}"
    return None


def _check_count(value: Any) -> str | None:
    if type(value) is not int or value < 0:
        return f"expected a non-negative integer, found {_describe(value)}"
    return None


def _check_failure(value: Any) -> str | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        return (
            "expected null or an object with the failure's signature, exception_type, "
            f"message, traceback and hits, found {_describe(value)}"
        )
    for key in _TEXT_FAILURE_FIELDS:
        if key in value and value[key] is not None and type(value[key]) is not str:
            return f"'failure.{key}': expected text, found {_describe(value[key])}"
    for key in ("first_exec", "hits"):
        if key in value and value[key] is not None and _check_count(value[key]) is not None:
            return (
                f"'failure.{key}': expected a non-negative integer, found {_describe(value[key])}"
            )
    if "first_time_s" in value:
        raw = value["first_time_s"]
        if raw is not None and not (_is_number(raw) and math.isfinite(raw) and raw >= 0):
            return f"'failure.first_time_s': expected seconds (a number), found {_describe(raw)}"
    return None


#: kind -> (what its value must be, check); values are as `ChoiceSequence.to_json` writes
_VALUE_CHECKS: dict[str, tuple[str, Any]] = {
    "int": ("an integer", lambda v: type(v) is int),
    "float": ("a finite float in hex (float.hex)", lambda v: _finite_hex(v)),
    "bool": ("true or false", lambda v: type(v) is bool or (type(v) is int and v in (0, 1))),
    "bytes": ("bytes in hex", lambda v: _hex_bytes(v)),
    "str": ("text", lambda v: type(v) is str),
}
#: kind -> the constraint fields, in the order of the older positional lists
_CONSTRAINT_FIELDS: dict[str, tuple[str, ...]] = {
    "int": ("min_value", "max_value"),
    "float": ("min_value", "max_value"),
    "bool": ("p",),
    "bytes": ("min_size", "max_size"),
    "str": ("alphabet", "min_size", "max_size"),
}


def _check_sequence(value: Any) -> str | None:
    if not isinstance(value, list):
        return f"expected a list of recorded choices, found {_describe(value)}"
    if len(value) > MAX_CHOICES_SAVED:
        return f"expected at most {MAX_CHOICES_SAVED} choices, found {len(value)}"
    for i, choice in enumerate(value):
        problem = _check_choice(choice)
        if problem is not None:
            return f"'sequence[{i}]{problem}"
    return None


def _check_choice(choice: Any) -> str | None:
    """A problem as `.field': expected ...` (appended to `'sequence[i]`)."""
    if not isinstance(choice, dict):
        return (
            "': expected an object with kind, value, constraints, ei and labels, "
            f"found {_describe(choice)}"
        )
    kind = choice.get("kind")
    if kind not in _VALUE_CHECKS or type(kind) is not str:
        return f".kind': expected one of {', '.join(map(repr, _VALUE_CHECKS))}, found {_describe(kind)}"
    if "value" not in choice:
        return ".value': missing"
    expected, check = _VALUE_CHECKS[kind]
    if not check(choice["value"]):
        return (
            f".value': expected {expected} for a {kind} choice, found {_describe(choice['value'])}"
        )
    problem = _check_constraints(kind, choice.get("constraints"))
    if problem is not None:
        return f".constraints{problem}"
    ei = choice.get("ei", "")
    if type(ei) is not str or not _valid_ei(ei):
        return f".ei': expected an execution index such as 'site#0/site#1', found {_describe(ei)}"
    labels = choice.get("labels", [])
    if not isinstance(labels, list) or not all(type(x) is str for x in labels):
        return f".labels': expected a list of type labels (text), found {_describe(labels)}"
    return None


def _check_constraints(kind: str, raw: Any) -> str | None:
    names = _CONSTRAINT_FIELDS[kind]
    if isinstance(raw, dict):
        if set(raw) != set(names):
            return f"': expected the fields {', '.join(names)}, found {_describe(raw)}"
        fields = raw
    elif isinstance(raw, list) and len(raw) == len(names):
        fields = dict(zip(names, raw, strict=True))
    else:
        return f"': expected an object with {', '.join(names)}, found {_describe(raw)}"
    if kind == "int":
        lo, hi = fields["min_value"], fields["max_value"]
        if not (type(lo) is int and type(hi) is int and lo <= hi):
            return f"': expected integer bounds min_value <= max_value, found {_describe(raw)}"
    elif kind == "float":
        if not (_finite_hex(fields["min_value"]) and _finite_hex(fields["max_value"])):
            return f"': expected finite float bounds in hex, found {_describe(raw)}"
        if float.fromhex(fields["min_value"]) > float.fromhex(fields["max_value"]):
            return f"': expected min_value <= max_value, found {_describe(raw)}"
    elif kind == "bool":
        p = fields["p"]
        if not (_is_number(p) and 0.0 <= p <= 1.0):
            return f".p': expected a probability from 0 to 1, found {_describe(p)}"
    else:
        lo, hi = fields["min_size"], fields["max_size"]
        if not (type(lo) is int and type(hi) is int and 0 <= lo <= hi):
            return f"': expected sizes 0 <= min_size <= max_size, found {_describe(raw)}"
        if kind == "str":
            alphabet = fields["alphabet"]
            if type(alphabet) is not str or not alphabet:
                return f".alphabet': expected a non-empty text, found {_describe(alphabet)}"
    return None


def _is_number(value: Any) -> bool:
    return type(value) in (int, float)


def _finite_hex(value: Any) -> bool:
    if type(value) is not str or len(value) > 64:
        return False
    try:
        return math.isfinite(float.fromhex(value))
    except ValueError:
        return False


def _hex_bytes(value: Any) -> bool:
    if type(value) is not str:
        return False
    try:
        bytes.fromhex(value)
    except ValueError:
        return False
    return True


def _valid_ei(text: str) -> bool:
    if not text:
        return True
    for part in text.split("/"):
        _site, sep, n = part.rpartition("#")
        if not sep or not n.isdigit() or len(n) > 9:
            return False
    return True


def _describe(value: Any) -> str:
    """A short rendering of a JSON value for a message."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} (a number out of range)"
    if isinstance(value, dict):
        return f"an object with {len(value)} fields" if len(repr(value)) > 80 else json.dumps(value)
    if isinstance(value, list):
        return f"a list of {len(value)} items" if len(repr(value)) > 80 else json.dumps(value)
    text = json.dumps(value) if isinstance(value, str | int | float | bool | None) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _short(exc: BaseException) -> str:
    text = str(exc)
    return text if len(text) <= 200 else text[:197] + "..."
