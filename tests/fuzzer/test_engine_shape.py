"""The engine stays the loop and its phases (issue 41): under 600 lines, at most 25
attributes set in `Engine.__init__`; secondary concerns live in their own modules, which
never reach back into the engine."""

from __future__ import annotations

import ast
from pathlib import Path

FUZZER = Path(__file__).resolve().parents[2] / "lambdafuzz" / "fuzzer"
ENGINE = FUZZER / "engine.py"
MAX_LINES = 600
MAX_ATTRIBUTES = 25
#: the modules split out of the engine: each keeps one concern behind a small interface
PARTS = (
    "campaign_stats",
    "confirmation",
    "cost_objective",
    "coverage_map",
    "entries",
    "events",
    "fresh_entries",
    "handled_findings",
    "recordings",
    "resume",
    "stability",
)


def _init_attributes(source: str) -> list[str]:
    """The `self.x` names `Engine.__init__` assigns (plain, annotated or augmented)."""
    tree = ast.parse(source)
    (engine,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Engine"]
    (init,) = [n for n in engine.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    names: list[str] = []
    for node in ast.walk(init):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for leaf in ast.walk(target):
                if (
                    isinstance(leaf, ast.Attribute)
                    and isinstance(leaf.value, ast.Name)
                    and leaf.value.id == "self"
                    and leaf.attr not in names
                ):
                    names.append(leaf.attr)
    return names


def test_the_engine_is_under_600_lines():
    lines = len(ENGINE.read_text(encoding="utf-8").splitlines())
    assert lines < MAX_LINES, f"engine.py has {lines} lines"


def test_the_engine_sets_at_most_25_attributes():
    names = _init_attributes(ENGINE.read_text(encoding="utf-8"))
    assert len(names) <= MAX_ATTRIBUTES, (len(names), names)


def test_the_attribute_count_sees_every_kind_of_assignment():
    source = (
        "class Engine:\n"
        "    def __init__(self):\n"
        "        self.a = self.b = 0\n"
        "        self.c: int = 1\n"
        "        self.d, self.e = 2, 3\n"
        "        self.a += 1\n"
        "        other = 4\n"
    )
    assert _init_attributes(source) == ["a", "b", "c", "d", "e"]


def test_no_part_of_the_engine_imports_the_engine():
    for name in PARTS:
        tree = ast.parse((FUZZER / f"{name}.py").read_text(encoding="utf-8"))
        imported = {
            node.module
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module is not None
        }
        assert "lambdafuzz.fuzzer.engine" not in imported, name
