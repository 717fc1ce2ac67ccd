"""The package's layers, kept true by reading every module's imports.

cli -> config / report -> fuzzer -> analysis / harness -> generators -> model; leaves
(errors, labels, compat, atomic_files) are importable from anywhere.  Nothing imports
upward, and the hot worker process never pulls in pydantic or YAML through `config`.
`tests/` mirrors the package: the tests of `lambdafuzz/<p>` are in `tests/<p>`.
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


#: harness/ is in subpackages by kind; sublayer -> the sublayers it may import ("" is the
#: harness root: `invoke`, calling a handler, which every kind uses)
HARNESS_KINDS: dict[str, set[str]] = {
    "sandbox": set(),
    "": {"sandbox"},
    "emulator": {"sandbox", ""},
    "measure": {"sandbox", ""},
    "oracle": {"sandbox", "", "emulator", "measure"},
    "process": {"sandbox", "", "emulator", "measure", "oracle"},
}
HARNESS = PACKAGE / "harness"


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


def _harness_kind(parts: list[str]) -> str:
    """The sublayer of `lambdafuzz.harness.<parts>` ("" for a root module)."""
    return parts[0] if parts and (HARNESS / parts[0]).is_dir() else ""


def test_harness_holds_subpackages_by_kind_and_one_root_module():
    kinds = sorted(p.name for p in HARNESS.iterdir() if (p / "__init__.py").is_file())
    assert kinds == sorted(k for k in HARNESS_KINDS if k)
    root = sorted(p.name for p in HARNESS.glob("*.py"))
    assert root == ["__init__.py", "invoke.py"], root


@pytest.mark.parametrize(
    "path", sorted(HARNESS.rglob("*.py")), ids=lambda p: str(p.relative_to(HARNESS))
)
def test_no_harness_module_imports_a_kind_above_it(path):
    rel = path.relative_to(HARNESS).parts
    kind = rel[0] if len(rel) > 1 else ""
    above = sorted(
        name
        for name in _imports(path)
        if name.startswith("lambdafuzz.harness.")
        and (target := _harness_kind(name.split(".")[2:])) != kind
        and target not in HARNESS_KINDS[kind]
    )
    assert not above, f"harness/{'/'.join(rel)} ({kind or 'root'}) imports {above}"


def test_no_import_circle_in_the_package():
    # every import counts, also those inside functions and under TYPE_CHECKING: a circle
    # is two modules that cannot be understood (or moved) one without the other
    modules = {
        ".".join(("lambdafuzz", *p.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(
            ".__init__"
        ): p
        for p in _modules()
    }
    graph = {name: set() for name in modules}
    for name, path in modules.items():
        for imported in _imports(path):
            if imported in modules and imported != name and not name.startswith(imported + "."):
                graph[name].add(imported)
    circles = _circles(graph)
    assert not circles, circles


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]


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


# ------------------------------------------------------------------ tests/ mirrors the package
TESTS = Path(__file__).resolve().parent
#: test folders that mirror no package folder: campaigns over whole apps (bundled lambdas,
#: oracle and construct apps, SAM templates per trigger kind, planted cost problems), the
#: benchmark scripts' tests, the shared fixtures and the docs site's tests
OUTSIDE_THE_PACKAGE = ("e2e", "benchmarks", "fixtures", "docs")
#: the tests root holds these and the tests of the package's root modules (`test_<module>.py`)
PACKAGE_WIDE = {"test_layers.py", "test_packaging.py"}


def _package_folders() -> set[str]:
    """`lambdafuzz/<p>` folders holding modules, as `p` ("." for the package root)."""
    return {
        p.parent.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*.py")
        if (p.parent / "__init__.py").is_file() and p.name != "__init__.py"
    }


def _test_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts)


def test_every_test_folder_mirrors_a_package_folder_or_lies_outside_the_package():
    # a test of one module or layer sits at tests/<p> for lambdafuzz/<p>: decided by what
    # it tests, not by where its campaign's app came from
    folders = {p.parent.relative_to(TESTS).as_posix() for p in _test_modules()}
    stray = sorted(
        folder
        for folder in folders - _package_folders()
        if folder.split("/")[0] not in OUTSIDE_THE_PACKAGE
    )
    assert not stray, f"test folders with no lambdafuzz/ folder of that name: {stray}"


def test_the_tests_root_holds_package_wide_tests_and_those_of_root_modules():
    root_modules = {f"test_{p.stem}.py" for p in PACKAGE.glob("*.py")}
    stray = sorted(
        p.name for p in TESTS.glob("test_*.py") if p.name not in PACKAGE_WIDE | root_modules
    )
    assert not stray, (
        f"tests/ root files that test one layer (move them to tests/<layer>/): {stray}"
    )


def test_every_package_folder_has_its_test_folder():
    missing = sorted(
        f for f in _package_folders() - {"."} if not any((TESTS / f).glob("test_*.py"))
    )
    assert not missing, f"package folders without tests/<folder>/test_*.py: {missing}"


def test_test_modules_and_helpers_have_names_unique_in_the_suite():
    # test folders are no packages: pytest puts a test's own folder on sys.path (its
    # fixture apps and helpers import by their bare names, and failure locations are
    # relative to that folder), so one basename in two folders would be one module
    seen: dict[str, list[str]] = {}
    for folder in {p.parent for p in _test_modules()}:
        for module in folder.glob("*.py"):
            if module.name not in ("conftest.py", "__init__.py"):
                seen.setdefault(module.name, []).append(module.relative_to(TESTS).as_posix())
    twice = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not twice, twice
    packages = sorted(
        p.parent.relative_to(TESTS).as_posix()
        for p in TESTS.rglob("__init__.py")
        if any(p.parent.glob("test_*.py"))
    )
    assert not packages, f"test folders that are packages: {packages}"
