"""The package's layers, kept true by reading every module's imports.

cli -> config / report -> fuzzer -> analysis / harness -> generators -> model; leaves
(errors, labels, compat, atomic_files) are importable from anywhere.  Nothing imports
upward, and the hot worker process never pulls in pydantic or YAML through `config`.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "lambdafuzz"
LEAVES = {"errors", "labels", "compat", "atomic_files", "__init__"}
#: layer -> the layers (besides itself and the leaves) it may import
ALLOWED: dict[str, set[str]] = {
    "model": set(),
    "generators": {"model"},
    "analysis": {"model", "generators"},
    "harness": {"model", "generators"},
    "fuzzer": {"model", "generators", "analysis", "harness"},
    "config": {"model", "generators", "analysis", "harness", "fuzzer"},
    "report": {"model", "generators", "analysis", "harness", "fuzzer", "config"},
    "cli": {"model", "generators", "analysis", "harness", "fuzzer", "config", "report"},
    "pytest_plugin": {"model", "generators", "analysis", "harness", "fuzzer", "config"},
    "__main__": {"cli"},
}
#: third-party packages a layer must not import (the worker stays light)
FORBIDDEN_THIRD_PARTY = {
    "model": {"pydantic", "yaml", "boto3", "botocore", "moto"},
    "fuzzer": {"pydantic", "yaml"},
    "harness": {"pydantic", "yaml"},
    "generators": {"pydantic", "yaml", "boto3", "botocore", "moto"},
}


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _layer(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path) -> set[str]:
    package = ".".join(("lambdafuzz", *path.relative_to(PACKAGE).parent.parts))
    return _imported_names(path.read_text(encoding="utf-8"), package)


def _imported_names(source: str, package: str) -> set[str]:
    """Absolute dotted names imported by a module (relative imports resolved)."""
    tree = ast.parse(source)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            found.add(module)
            if module == "lambdafuzz":  # `from lambdafuzz import errors` (not `__version__`)
                found.update(
                    f"lambdafuzz.{alias.name}"
                    for alias in node.names
                    if (PACKAGE / alias.name).is_dir() or (PACKAGE / f"{alias.name}.py").is_file()
                )
    return found


def _project_layer(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] != "lambdafuzz" or len(parts) == 1:
        return None
    return parts[1]


def test_the_package_root_holds_at_most_eight_modules():
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 8, root


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_imports_a_layer_above_it(path):
    layer = _layer(path)
    if layer in LEAVES:
        allowed = set()
    else:
        assert layer in ALLOWED, f"{path}: a module outside the known layers"
        allowed = ALLOWED[layer]
    upward = sorted(
        name
        for name in _imports(path)
        if (target := _project_layer(name)) is not None
        and target != layer
        and target not in LEAVES
        and target not in allowed
    )
    assert not upward, f"{path.relative_to(PACKAGE)} ({layer}) imports upward: {upward}"
    banned = FORBIDDEN_THIRD_PARTY.get(layer, set())
    third = sorted(n for n in _imports(path) if n.split(".")[0] in banned)
    assert not third, f"{path.relative_to(PACKAGE)} ({layer}) imports {third}"


def test_the_checker_sees_every_spelling_of_an_upward_import():
    # the rule is only as good as the import reader
    source = (
        "from lambdafuzz import config, __version__\n"
        "import lambdafuzz.report.html\n"
        "from ..cli import main\n"
        "from . import corpus\n"
    )
    names = _imported_names(source, "lambdafuzz.fuzzer")
    layers = {_project_layer(n) for n in names} - {None}
    assert layers == {"config", "report", "cli", "fuzzer"}
