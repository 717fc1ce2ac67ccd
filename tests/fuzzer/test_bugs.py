"""The bug is the unit of a finding (`model.bug`, `fuzzer.bugs`): one file, one JUnit test
case and one SARIF result per bug, its message shapes and type pairs variants inside it;
out dirs written before bugs are grouped on resume without losing anything."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.fuzzer.bugs import MAX_VARIANTS, BugBook
from lambdafuzz.fuzzer.corpus import SavedInput
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.out_dir import OutDir
from lambdafuzz.generators.core import ChoiceSequence, ReplayMode
from lambdafuzz.model.bug import app_frame, bug_fingerprint, bug_key
from lambdafuzz.model.outcome import FailureInfo, message_shape

APP = Path(__file__).parent / "adder"
BUG = 'TypeError at adder/handler.py in total: return job["a"] + job["b"] + job["c"]'


def _traceback(line: int, code: str, *, cause: str = "") -> str:
    chained = ""
    if cause:
        chained = (
            "Traceback (most recent call last):\n"
            '  File "/srv/app/h.py", line 3, in helper\n    return d["k"]\n'
            f"{cause}: 'k'\n\nThe above exception was the direct cause of the following "
            "exception:\n\n"
        )
    return (
        f"{chained}Traceback (most recent call last):\n"
        '  File "/opt/runtime/worker.py", line 40, in run\n    value = handler(event)\n'
        f'  File "/srv/app/h.py", line {line}, in total\n    {code}\n    ~~~^~~\n'
        "TypeError: unsupported\n"
    )


def _info(message: str, line: int = 12, code: str = "return x + y", **more) -> FailureInfo:
    return FailureInfo(
        exception_type=more.pop("exception_type", "TypeError"),
        message=message,
        traceback=_traceback(line, code, cause=more.get("cause", "")),
        location=f"app/h.py:{line}",
        shape=message_shape(message),
        **more,
    )


def test_a_bug_is_keyed_by_type_function_and_code_not_by_message_or_line_number():
    one = _info("unsupported operand type(s) for +: 'int' and 'str'")
    two = _info("unsupported operand type(s) for +: 'list' and 'int'")
    moved = _info("unsupported operand type(s) for +: 'int' and 'str'", line=17)
    assert one.signature != two.signature  # two variants ...
    assert bug_key(one) == bug_key(two) == bug_key(moved)  # ... of one bug, wherever it is
    assert bug_key(one) == "TypeError at app/h.py in total: return x + y"
    commented = _info("unsupported", code="return x + y  # sums them")
    assert bug_key(commented) == bug_key(one)  # a comment is no part of the code
    frame = app_frame(moved)
    assert frame is not None and (frame.line, frame.function) == (17, "total")


def test_another_line_type_or_cause_is_another_bug():
    base = bug_key(_info("boom"))
    assert bug_key(_info("boom", code="return x - y")) != base
    assert bug_key(_info("boom", exception_type="ValueError")) != base
    caused = bug_key(_info("boom", cause="KeyError"))
    assert caused == f"{base} (from KeyError)"


def test_hangs_statuses_and_frames_outside_the_app_keep_their_signature_keys():
    hang = FailureInfo("Hang", "timeout", "", "app/h.py:9", function="poll")
    assert bug_key(hang) == "Hang at app/h.py in poll" == hang.signature
    status = FailureInfo("Status500", "returned 500", "", "", detail="{error}")
    assert bug_key(status) == status.signature == "Status500 {error} returned by the handler"
    library = FailureInfo("KeyError", "'x'", "", "botocore/validate.py:88 in check", shape="'…'")
    assert bug_key(library) == (
        "KeyError at no application frame; innermost frame botocore/validate.py in check"
    )
    # without a traceback that shows the line, the line's number stands in for its code
    bare = FailureInfo("KeyError", "'x'", "", "app/h.py:5")
    assert bug_key(bare) == "KeyError at app/h.py:5"


def _saved(size: int) -> SavedInput:
    sequence = ChoiceSequence.of_rows(tuple(("int", 1, (0, 9), "x", ()) for _ in range(size)))
    return SavedInput("x", sequence, 0, ReplayMode.EXECUTION_INDEXED, "FAILURE", "")


def _record(message: str, hits: int = 1) -> FailureRecord:
    info = _info(message)
    return FailureRecord(info.signature, info, "FAILURE", "x.json", 0, 0.0, hits=hits)


def test_a_bug_book_bounds_variants_and_keeps_each_ones_smallest_input():
    book = BugBook()
    bug, new = book.add(_record("a 'int' b", hits=3), _saved(5), 5)
    assert new and bug.primary.name == "v1"
    again, new = book.add(_record("a 'str' b c"), _saved(3), 3)
    assert again is bug and not new and [v.name for v in bug.variants] == ["v1", "v2"]
    assert bug.primary.name == "v2"  # the smallest input is what the file replays
    assert book.smaller(bug.variants[0].signature, 4) is bug.variants[0]
    assert book.smaller(bug.variants[0].signature, 9) is None
    extra = [_record(f"shape number {'x' * (i + 1)}", hits=2) for i in range(MAX_VARIANTS + 3)]
    for record in extra:
        book.add(record, _saved(8), 8)
    assert len(bug.variants) == MAX_VARIANTS and bug.other_hits == 2 * 5
    extra[-1].hits += 1  # a signature past the limit is hit again: the bug counts it
    assert bug.other_hits == 2 * 5 + 1
    assert bug.hits == 3 + 1 + 2 * (MAX_VARIANTS - 2) + 2 * 5 + 1
    assert len(book) == 1 and book.variants == MAX_VARIANTS
    assert bug_fingerprint(bug.key) == bug_fingerprint(bug_key(_info("other", line=40)))


def fuzz(out: Path, *args: str):
    return CliRunner().invoke(
        cli, ["fuzz", str(APP), "--seed", "0", "--out", str(out), "--quiet", *args]
    )


@pytest.fixture(scope="module")
def adder(tmp_path_factory) -> tuple[Path, Path, Path, str]:
    tmp = tmp_path_factory.mktemp("adder")
    junit, sarif = tmp / "junit.xml", tmp / "out.sarif"
    result = fuzz(tmp / "out", "--execs", "500", "--junit", str(junit), "--sarif", str(sarif))
    assert result.exit_code == 1, result.output
    return tmp / "out", junit, sarif, result.output


@pytest.mark.slow
def test_one_line_failing_with_many_type_pairs_is_one_bug_with_variants(adder):
    out, junit, sarif, output = adder
    (path,) = sorted((out / "failures").glob("*.json"))  # one file for the one bug
    record = json.loads(path.read_text())["failure"]
    assert record["bug"] == BUG
    variants = record["variants"]
    signatures = [v["record"]["signature"] for v in variants]
    assert len(signatures) >= 3 and len(set(signatures)) == len(signatures)
    assert all(s.startswith("TypeError at adder/handler.py:10") for s in signatures)
    assert all(v["record"]["hits"] >= 1 and v["input"]["sequence"] for v in variants)
    assert record["bug_hits"] == sum(v["record"]["hits"] for v in variants)
    smallest = min(variants, key=lambda v: v["size"])
    assert record["variant"] == smallest["name"]  # the file replays the smallest variant
    stats = json.loads((out / "stats.json").read_text())
    assert stats["unique_failures"] == 1 and stats["failure_variants"] == len(variants)
    assert f"failures: 1 bug, {len(variants)} variants" in ET.parse(junit).getroot().findtext(
        "testsuite/system-out"
    )
    cases = [c for c in ET.parse(junit).getroot().iter("testcase") if c.find("failure") is not None]
    assert [c.get("name") for c in cases] == [BUG]
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    errors = [r for r in results if r["level"] == "error"]
    assert len(errors) == 1 and errors[0]["properties"]["bug"] == BUG
    assert len(errors[0]["properties"]["variants"]) == len(variants)
    fingerprints = [json.dumps(r["partialFingerprints"]) for r in results]
    assert len(set(fingerprints)) == len(fingerprints)


@pytest.mark.slow
def test_repro_and_minimize_take_the_smallest_variant_or_one_by_name(adder, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(adder[0], out)
    (path,) = sorted((out / "failures").glob("*.json"))
    record = json.loads(path.read_text())["failure"]
    by_name = {v["name"]: v["record"]["signature"] for v in record["variants"]}
    runner = CliRunner()
    default = runner.invoke(cli, ["repro", str(path)])
    assert default.exit_code == 1, default.output
    assert f"failure: {by_name[record['variant']]}" in default.output
    other = next(name for name in by_name if name != record["variant"])
    named = runner.invoke(cli, ["repro", str(path), "--variant", other])
    assert named.exit_code == 1, named.output
    assert f"failure: {by_name[other]}" in named.output
    assert f"replaying variant {other} of {len(by_name)}" in named.output
    unknown = runner.invoke(cli, ["repro", str(path), "--variant", "v99"])
    assert unknown.exit_code == 2 and "no variant 'v99'; its variants: v1 (" in unknown.output
    shrunk = runner.invoke(cli, ["minimize", str(path), "--variant", other, "--max-attempts", "30"])
    assert shrunk.exit_code == 0, shrunk.output
    written = path.with_name(f"{path.stem}.{other}.min.json")
    assert written.is_file() and f"same failure: {by_name[other]}" in shrunk.output
    page = __import__("lambdafuzz.report.html", fromlist=["render_report"]).render_report(out)
    assert f"{len(by_name)} variants of this bug" in page and f"--variant {other}" in page


def _legacy(tmp_path: Path) -> Path:
    """A copy of the adder app with an out dir written before bugs existed (seven failure
    files of one line's TypeError, one of them minimized)."""
    app = tmp_path / "adder"
    shutil.copytree(APP, app)
    return app


def test_an_out_dir_written_before_bugs_reads_as_one_bug_with_every_failure(tmp_path):
    out = _legacy(tmp_path) / "legacy_out"
    old = sorted(p for p in (out / "failures").glob("*.json") if ".min." not in p.name)
    signatures = {json.loads(p.read_text())["failure"]["signature"] for p in old}
    assert len(old) == len(signatures) == 7
    (entry,) = OutDir(out).read().failures
    assert entry.title == BUG
    assert {v.signature for v in entry.variants} == signatures
    assert entry.hits == sum(json.loads(p.read_text())["failure"]["hits"] for p in old)


@pytest.mark.slow
def test_resume_groups_old_failure_files_into_bugs_and_loses_nothing(tmp_path):
    app = _legacy(tmp_path)
    out = app / "legacy_out"
    old = {
        (data := json.loads(p.read_text()))["failure"]["signature"]: data["failure"]["hits"]
        for p in out.glob("failures/*.json")
        if ".min." not in p.name
    }
    minimized = json.loads(next(out.glob("failures/*.min.json")).read_text())
    result = CliRunner().invoke(
        cli, ["fuzz", str(app), "--seed", "1", "--out", str(out), "--execs", "40"]
    )
    assert result.exit_code == 1, result.output
    assert "grouped 7 files of failures/ into 1 bug file(s)" in result.output
    files = sorted(p for p in out.glob("failures/*.json") if ".min." not in p.name)
    assert len(files) == 1
    record = json.loads(files[0].read_text())["failure"]
    hits = {v["record"]["signature"]: v["record"]["hits"] for v in record["variants"]}
    assert set(old) <= set(hits)  # every old failure is a variant now
    assert all(hits[s] >= n for s, n in old.items())
    (kept_min,) = out.glob("failures/*.min.json")  # the minimized input moved with it
    assert json.loads(kept_min.read_text())["sequence"] == minimized["sequence"]
    again = CliRunner().invoke(
        cli, ["fuzz", str(app), "--seed", "2", "--out", str(out), "--execs", "20"]
    )
    assert again.exit_code == 1 and "grouped" not in again.output  # once only
    assert len([p for p in out.glob("failures/*.json") if ".min." not in p.name]) == 1
