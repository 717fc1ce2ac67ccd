"""Line pairs of targets agree with the arms the harness reports at run time.

The fuzzer marks a target covered when the harness reports an arm whose (from_line,
to_line) is one of the target's `line_pairs`; these tests pin that convention, first by
hand, then against the harness's own static scan of the same files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from analysis_support import BENCHMARKS, FIXTURES, AnalyzeT

from lambdafuzz.analysis import analyze_sources

SAMPLE = """\
import functools

@functools.cache
def handler(event, context):
    x = event["x"]
    if x:
        a = 1
    else:
        a = 2
    for i in event["items"]:
        a += i
    if a:
        return 1
"""


def _pairs(result, line: int, kind: str, arm: str) -> set[tuple[int, int]]:
    found = [t for t in result.targets if t.line == line and t.kind == kind and t.arm == arm]
    assert len(found) == 1
    return set(found[0].line_pairs)


def test_pairs_by_hand(analyze_app: AnalyzeT):
    result = analyze_app(SAMPLE)
    assert _pairs(result, 6, "if", "true") == {(6, 7)}
    assert _pairs(result, 6, "if", "false") == {(6, 9)}
    assert _pairs(result, 10, "for", "true") == {(10, 11)}
    assert _pairs(result, 10, "for", "false") == {(10, 12)}
    assert _pairs(result, 12, "if", "true") == {(12, 13)}
    # falling off the end leaves the code object: minus its first line (the decorator's)
    assert _pairs(result, 12, "if", "false") == {(12, -3)}


def test_arm_index_maps_runtime_keys_to_targets(analyze_app: AnalyzeT):
    result = analyze_app(SAMPLE)
    index = result.arm_index()
    target = next(t for t in result.targets if t.line == 12 and t.arm == "false")
    assert index[(target.file, 12, -3)] == (target.id,)


MORE = """\
def handler(event, context):
    x, y, xs = event["x"], event["y"], event["xs"]
    if (x > 1 and
            y < 2):
        z = 1
    else:
        z = 2
    while x < 3:
        x += 1
    for i in xs:
        if i:
            z = 9
    z = 5 if x else 6
    w = [a for a in xs if a > 2]
    try:
        int(x)
    except ValueError:
        z = 1
    except KeyError:
        z = 2
    match x:
        case 1:
            z = 3
        case 2:
            z = 4
    if x == 9:
        return 7
    v = {q: 1 for q in xs if q}
    for a, b in xs:
        if a: z = 3
    try:
        if x: y = 1
    finally:
        pass
    return y or z and w and v


def other(x):
    if not x:
        return 1
    elif x == 4:
        return 2
"""


def _site_coverage(files: list[str]) -> tuple[list, list]:  # exact, for stable sources
    """(arm sites no target predicts, target arms no site matches) for these files."""
    arm_catalog = pytest.importorskip("lambdafuzz.harness.measure.arm_catalog")
    result = analyze_sources([Path(f) for f in files], None, use_cache=False)
    missed_sites, missed_arms = [], []
    for path in result.files:
        arms = arm_catalog.scan_file(path, path)
        sites = {(s.from_line, s.to_line) for s in arms.sites if s.kind not in ("with", "assert")}
        predicted = {p for t in result.targets if t.file == path for p in t.line_pairs}
        missed_sites += [(path, s) for s in sorted(sites - predicted)]
        missed_arms += [
            t.id for t in result.targets if t.file == path and not set(t.line_pairs) & sites
        ]
    return missed_sites, missed_arms


def test_every_harness_arm_of_the_sample_is_predicted(tmp_path: Path):
    app = tmp_path / "more.py"
    app.write_text(MORE)
    missed_sites, missed_arms = _site_coverage([str(app)])
    assert missed_sites == []
    assert missed_arms == []


def test_fixture_arms_are_predicted():
    roots = [p for p in FIXTURES.glob("*/*") if p.is_dir()]
    missed_sites, missed_arms = _site_coverage([str(r) for r in roots])
    assert missed_sites == []
    assert missed_arms == []


def test_benchmark_arms_are_mostly_predicted():
    """The benchmark lambdas evolve under other hands: a tolerance, not an exact list."""
    roots = [p for p in BENCHMARKS.glob("*/*") if p.is_dir() and (p / "__init__.py").exists()]
    if not roots:
        pytest.skip("no benchmark lambdas yet")
    arm_catalog = pytest.importorskip("lambdafuzz.harness.measure.arm_catalog")
    result = analyze_sources(roots, None, use_cache=False)
    sites = {
        (path, s.from_line, s.to_line)
        for path in result.files
        for s in arm_catalog.scan_file(path, path).sites
        if s.kind not in ("with", "assert")
    }
    predicted = {k for t in result.targets for k in t.arm_keys()}
    assert len(sites & predicted) >= 0.95 * len(sites), sorted(sites - predicted)
    seen = sum(1 for t in result.targets if set(t.arm_keys()) & sites)
    assert seen >= 0.95 * len(result.targets)


SPREAD = """\
import json


def handler(event, context):
    x = event["x"]
    if x:
        item = {
            "a": 1,
            "b": x,
        }
    else:
        item = {}
    with (
        open("b") as g,
        open("c") as h,
    ):
        if x == 2:
            item = None
    out = [
        v
        for v in x
    ]
    total = sum(
        v * 2
        for v in x
    )
    if x == 5:
        with open("a") as f:
            f.read()
    return [
        1,
        {
            "a": 1 if x else 2,
            "b": json.dumps(out),
        },
        total,
    ]
"""


def test_arms_into_multi_line_literals_and_out_of_with_blocks_are_predicted(tmp_path: Path):
    """An arm entering `item = {` first runs on the element's line; one leaving a
    parenthesised `with` reaches `__exit__` on the last item's line (3.13); a ternary in a
    multi-line literal continues on the next element's line (the issue's 'covered arms
    stay uncovered targets')."""
    app = tmp_path / "spread.py"
    app.write_text(SPREAD)
    missed_sites, missed_arms = _site_coverage([str(app)])
    assert missed_sites == []
    assert missed_arms == []


def test_pairs_of_spread_statements_by_hand(analyze_app: AnalyzeT):
    result = analyze_app(SPREAD)
    assert (6, 8) in _pairs(result, 6, "if", "true")  # the dict's first element
    assert (27, 31) in _pairs(result, 27, "if", "false")  # the list's first element
    assert {(17, 13), (17, 15)} <= _pairs(result, 17, "if", "false")  # 3.12, 3.13 __exit__
    assert (33, 34) in _pairs(result, 33, "ifexp", "true")  # the next element of the dict
