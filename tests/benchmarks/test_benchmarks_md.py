"""BENCHMARKS.md and its history stay navigable: every link lands, every benchmark section
points to its history file, and the scripts write where the committed results live.

Issue 41 moved the dated measurements to benchmarks/history/ and the result folders under
benchmarks/results/<study>/; a later edit that renames a heading, a history file or a folder
breaks a link nobody clicks for weeks, which these tests catch at once."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from benchmarks.study.layout import DEFAULT_RESULTS, REPO

BENCHMARKS_MD = REPO / "BENCHMARKS.md"
HISTORY = REPO / "benchmarks" / "history"
RESULTS = REPO / "benchmarks" / "results"
#: Sections of BENCHMARKS.md that are not a benchmark, so have no history file.
NOT_BENCHMARKS = {"How to run them", "Contents", "Tests"}
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(path: Path) -> list[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


def sections(path: Path) -> dict[str, str]:
    """The `## ` sections of a markdown file, heading -> body."""
    parts = re.split(r"^## (.+)$", path.read_text(encoding="utf-8"), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def documents() -> list[Path]:
    return [BENCHMARKS_MD, *sorted(HISTORY.glob("*.md"))]


def load_script(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    # a script may share its name with a package beside it (bugbench): load it by path
    spec = importlib.util.spec_from_file_location(f"{name}_script", REPO / "benchmarks" / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look it up
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("doc", documents(), ids=lambda p: p.name)
def test_every_link_lands(doc: Path) -> None:
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(text):
        if "://" in target:
            continue
        path, _, fragment = target.partition("#")
        resolved = (doc.parent / path).resolve() if path else doc
        lands = resolved.exists() and (
            not fragment or fragment in {anchor(h) for h in headings(resolved)}
        )
        if not lands:
            broken.append(target)
    assert not broken, f"{doc.relative_to(REPO)}: links to nothing: {broken}"


def test_every_benchmark_section_links_its_history_and_every_history_is_linked() -> None:
    linked: set[str] = set()
    for heading, body in sections(BENCHMARKS_MD).items():
        if heading in NOT_BENCHMARKS:
            continue
        files = set(re.findall(r"\(benchmarks/history/([\w-]+\.md)\)", body))
        assert len(files) == 1, f"section {heading!r} links history files {sorted(files)}"
        linked |= files
    on_disk = {p.name for p in HISTORY.glob("*.md")} - {"README.md"}
    assert linked == on_disk


def test_the_contents_list_every_section_in_order() -> None:
    body = sections(BENCHMARKS_MD)["Contents"]
    listed = re.findall(r"^\* \[(.+)\]\(#([\w-]+)\)$", body, flags=re.M)
    after = list(sections(BENCHMARKS_MD))
    after = after[after.index("Contents") + 1 :]
    assert [title for title, _ in listed] == after
    assert all(link == anchor(title) for title, link in listed)


def test_history_files_say_what_they_are() -> None:
    for path in HISTORY.glob("*.md"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# ") and len(first) > 10, path.name


def test_scripts_write_under_results_study_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    bugbench = load_script("bugbench.py", monkeypatch)
    havoc = load_script("havoc.py", monkeypatch)
    defaults = {
        "run.py": DEFAULT_RESULTS,
        "bugbench.py": bugbench.RESULTS,
        "havoc.py": havoc.DEFAULT_OUT,
    }
    for script, out in defaults.items():
        assert out.parent == RESULTS, f"{script} writes to {out}, not benchmarks/results/<study>/"
        assert (out / "report.md").exists() or any(out.glob("*.md")), f"{out} holds no result"
    leftovers = sorted(p.name for p in (REPO / "benchmarks").glob("results-*"))
    assert not leftovers, f"result folders outside benchmarks/results/: {leftovers}"


@pytest.mark.parametrize(
    "scratch",
    ["benchmarks/results/ports/raw/x/stats.json", "benchmarks/results/bugbench/runs/app/x.json"],
)
def test_campaign_out_dirs_under_results_are_not_committed(scratch: str) -> None:
    ignored = subprocess.run(
        ["git", "-C", str(REPO), "check-ignore", "--no-index", "-q", scratch], check=False
    )
    assert ignored.returncode == 0, f"{scratch} is not ignored by .gitignore"
