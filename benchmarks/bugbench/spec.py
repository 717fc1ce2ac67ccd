"""What each app of the bug benchmark plants, read from its `expect.yaml`, and how a finding
in a campaign's out dir is recognised as that bug.

    id: img-rgba-jpeg                 # unique across the benchmark
    class: image-mode                 # the issue's bug class
    kind: uncaught                    # uncaught | handled | status
    exception: OSError                # short type name; Status500 for a status bug
    file: img_rgba_jpeg/handler.py    # where the finding is located (not for status bugs)
    function: make_thumbnail          # ... inside this function (or a list of them)
    message: cannot write mode        # optional: a substring of the message
    target: template.yaml             # optional: what to fuzz (default: the app folder)

Uncaught and status bugs are looked for in `failures/`, handled ones in `handled/`.  A
finding matches when its exception's short name is `exception`, its message holds
`message`, and its location (`file:line`) is in `file` within one of the functions' line
spans (read from the source, so editing the handler keeps the expectation valid).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import yaml

BUGBENCH = Path(__file__).resolve().parent
KINDS = ("uncaught", "handled", "status")
#: Where each kind of finding is saved in an out dir.
FINDINGS_DIR = {"uncaught": "failures", "status": "failures", "handled": "handled"}


@dataclass(frozen=True)
class PlantedBug:
    """The one bug an app plants and how its finding looks."""

    id: str
    bug_class: str
    kind: str
    exception: str
    file: str = ""
    functions: tuple[str, ...] = ()
    message: str = ""
    # (first, last) line of each function in `functions`, read from the app's source
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def folder(self) -> str:
        return FINDINGS_DIR[self.kind]

    def matches(self, exception_type: str, message: str, location: str) -> bool:
        """Whether a finding (its type, message and `file:line`) is this bug."""
        if exception_type.rsplit(".", 1)[-1] != self.exception:
            return False
        if self.message and self.message not in message:
            return False
        if self.kind == "status":
            return True
        file, _, line = location.rpartition(":")
        if not file.endswith(self.file) or not line.isdigit():
            return False
        return any(first <= int(line) <= last for first, last in self.spans)


@dataclass(frozen=True)
class BenchApp:
    """One app folder of the benchmark."""

    name: str
    path: Path
    bug: PlantedBug
    target: str = ""  # file to fuzz, relative to the app; "" = the folder itself

    @property
    def fuzz_path(self) -> Path:
        return self.path / self.target if self.target else self.path

    @classmethod
    def load(cls, path: Path) -> BenchApp:
        spec = yaml.safe_load((path / "expect.yaml").read_text(encoding="utf-8"))
        kind = str(spec["kind"])
        if kind not in KINDS:
            raise ValueError(f"{path}/expect.yaml: kind {kind!r} is none of {KINDS}")
        functions = spec.get("function") or ()
        functions = (functions,) if isinstance(functions, str) else tuple(functions)
        file = str(spec.get("file") or "")
        spans = _function_spans(path, file, functions) if kind != "status" else ()
        bug = PlantedBug(
            id=str(spec["id"]),
            bug_class=str(spec["class"]),
            kind=kind,
            exception=str(spec["exception"]),
            file=file,
            functions=functions,
            message=str(spec.get("message") or ""),
            spans=spans,
        )
        return cls(path.name, path, bug, str(spec.get("target") or ""))


def _function_spans(
    app: Path, file: str, functions: tuple[str, ...]
) -> tuple[tuple[int, int], ...]:
    """The line span of each named function in the app's `file` (found below the app)."""
    matches = [p for p in app.rglob("*.py") if p.as_posix().endswith(file)] if file else []
    if len(matches) != 1 or not functions:
        raise ValueError(f"{app}/expect.yaml: `file` and `function` must name one source file")
    tree = ast.parse(matches[0].read_text(encoding="utf-8"))
    spans = {
        node.name: (node.lineno, node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    missing = [f for f in functions if f not in spans]
    if missing:
        raise ValueError(f"{app}/expect.yaml: no function {missing} in {file}")
    return tuple(spans[f] for f in functions)


def all_apps(root: Path = BUGBENCH) -> list[BenchApp]:
    """Every app of the benchmark, by name."""
    return [BenchApp.load(p) for p in sorted(root.iterdir()) if (p / "expect.yaml").is_file()]
