"""The top-level modules a code directory holds that are the team's own: what coverage and
the analysis read as the application (`app_packages`), not what the directory vendors.

A function's dedicated CodeUri and its local layers (`python/` of a layer directory, which
Lambda puts on sys.path as /opt/python) hold the team's modules beside, sometimes, packages
installed into them (`pip install -t`): those come with a `*.dist-info` or `*.egg-info`
directory naming what they installed, and are left out.  Tests, private and setup modules
are left out too.
"""

from __future__ import annotations

from pathlib import Path

_SKIPPED = ("conftest", "setup")


def own_modules(directory: Path) -> list[str]:
    """Importable top-level module and package names in `directory`, sorted, without
    tests, private modules and what an installed distribution put there."""
    if not directory.is_dir():
        return []
    vendored = installed_names(directory)
    found = []
    for entry in sorted(directory.iterdir()):
        name = entry.stem if entry.suffix == ".py" else entry.name
        if (
            not name.isidentifier()
            or name.startswith(("test", "_", "."))
            or name in _SKIPPED
            or name in vendored
        ):
            continue
        is_module = entry.suffix == ".py" and entry.is_file()
        is_package = entry.is_dir() and (entry / "__init__.py").is_file()
        if is_module or is_package:
            found.append(name)
    return found


def installed_names(directory: Path) -> frozenset[str]:
    """Top-level names the distributions installed into `directory` put there (their
    `top_level.txt`, else the first parts of their `RECORD`'s paths)."""
    names: set[str] = set()
    for meta in directory.glob("*.*-info"):
        if meta.suffix not in (".dist-info", ".egg-info") or not meta.is_dir():
            continue
        listed = _lines(meta / "top_level.txt")
        if not listed:
            listed = [line.split(",", 1)[0].split("/", 1)[0] for line in _lines(meta / "RECORD")]
        names.update(n.removesuffix(".py") for n in listed if n)
    return frozenset(names)


def _lines(path: Path) -> list[str]:
    try:
        return [line.strip() for line in path.read_text(errors="replace").splitlines()]
    except OSError:
        return []
