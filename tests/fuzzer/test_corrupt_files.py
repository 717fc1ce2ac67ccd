"""Corrupt saved files, as a poisoned CI cache or a crashed disk would leave them.

Every case is one bad corpus/failure file; each goes through every reader: `repro`,
`minimize` and `corpus replay` exit 2 with one message naming the file and what was
expected; a resumed campaign, `report` and the pytest plugin warn, skip it and keep it on
disk.  Never a traceback, never a hang (pytest-timeout), never a write outside the out dir.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.config import load_config
from lambdafuzz.fuzzer import resume as resume_module
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.corpus import MAX_SAVED_BYTES, load_input

ROOT = Path(__file__).resolve().parents[2]
GRADEBOOK = ROOT / "benchmarks" / "lambdas" / "gradebook"

pytestmark = pytest.mark.timeout(120)


# =========================================================================== the cases
@dataclass(frozen=True)
class Case:
    id: str
    make: Callable[[Path, dict[str, Any]], None]  # writes the bad file at path
    expected: str  # regex the message must contain (what was expected / what is wrong)

    @property
    def file_name(self) -> str:
        return f"{self.id}.json"


def _text(text: str) -> Callable[[Path, dict[str, Any]], None]:
    return lambda path, good: path.write_text(text)


def _raw(field: str, literal: str) -> Callable[[Path, dict[str, Any]], None]:
    """The good file with `field` set to a JSON literal json.dumps cannot write."""

    def make(path: Path, good: dict[str, Any]) -> None:
        data = copy.deepcopy(good)
        data[field] = "@@RAW@@"
        path.write_text(json.dumps(data).replace('"@@RAW@@"', literal))

    return make


def _edit(change: Callable[[dict[str, Any]], None]) -> Callable[[Path, dict[str, Any]], None]:
    def make(path: Path, good: dict[str, Any]) -> None:
        data = copy.deepcopy(good)
        change(data)
        path.write_text(json.dumps(data))

    return make


def _set(field: str, value: Any) -> Callable[[Path, dict[str, Any]], None]:
    return _edit(lambda d: d.__setitem__(field, value))


def _drop(field: str) -> Callable[[Path, dict[str, Any]], None]:
    return _edit(lambda d: d.pop(field))


def _choice(kind: str, key: str, value: Any) -> Callable[[Path, dict[str, Any]], None]:
    """The first choice of `kind` with `key` set to `value`."""

    def change(data: dict[str, Any]) -> None:
        choice = next(c for c in data["sequence"] if c["kind"] == kind)
        choice[key] = value

    return _edit(change)


def _failure(key: str, value: Any) -> Callable[[Path, dict[str, Any]], None]:
    return _edit(lambda d: d["failure"].__setitem__(key, value))


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def _truncated(path: Path, good: dict[str, Any]) -> None:
    text = json.dumps(good)
    path.write_text(text[: len(text) // 2])


def _fifo(path: Path, good: dict[str, Any]) -> None:
    os.mkfifo(path)


def _directory(path: Path, good: dict[str, Any]) -> None:
    path.mkdir()
    (path / "inner.json").write_text("{}")


def _device(path: Path, good: dict[str, Any]) -> None:
    path.symlink_to("/dev/zero")


def _huge(path: Path, good: dict[str, Any]) -> None:
    with path.open("wb") as fh:  # sparse: costs no disk
        fh.truncate(MAX_SAVED_BYTES + 1)


CASES = [
    Case("truncated", _truncated, r"not valid JSON"),
    Case("empty", _text(""), r"not valid JSON"),
    Case("not_json", _text("hello, world"), r"not valid JSON"),
    Case("not_utf8", lambda p, g: p.write_bytes(b'\xff\xfe{"a": 1}'), r"not UTF-8"),
    Case("top_level_list", _text("[1, 2, 3]"), r"expected a JSON object"),
    Case("top_level_null", _text("null"), r"expected a JSON object"),
    Case("seed_1e999", _raw("seed", "1e999"), r"field 'seed': expected an integer"),
    Case("seed_nan", _raw("seed", "NaN"), r"field 'seed': expected an integer"),
    Case("seed_text", _set("seed", "12"), r"field 'seed': expected an integer"),
    Case("seed_bool", _set("seed", True), r"field 'seed': expected an integer"),
    Case(
        "seed_2_pow_70",
        _set("seed", 2**70),
        r"field 'seed': expected an integer of at most 64 bits",
    ),
    Case("seed_5000_digits", _raw("seed", "9" * 5000), r"not valid JSON"),
    Case("world_100k_deep", _raw("world", _nested(100_000)), r"nested too deeply"),
    Case("top_100k_deep", _text(_nested(100_000)), r"nested too deeply"),
    Case("event_300_deep", _raw("event", _nested(300)), r"nested too deeply \(expected at most"),
    Case("failure_boom", _set("failure", "boom"), r"field 'failure': expected null or an object"),
    Case("failure_list", _set("failure", [1]), r"field 'failure': expected null or an object"),
    Case("failure_hits_text", _failure("hits", "many"), r"'failure\.hits': expected a non-neg"),
    Case("failure_sig_number", _failure("signature", 7), r"'failure\.signature': expected text"),
    Case("version_2", _set("lambdafuzz", 2), r"unsupported format version 2; expected 1"),
    Case("version_text", _set("lambdafuzz", "1"), r"unsupported format version \"1\""),
    Case("version_missing", _drop("lambdafuzz"), r"no 'lambdafuzz' format field"),
    Case("name_dotdot", _set("name", "../../x"), r"field 'name': expected a plain file name"),
    Case("name_absolute", _set("name", "/tmp/lf-evil"), r"field 'name': expected a plain file"),
    Case("name_number", _set("name", 42), r"field 'name': expected a plain file name"),
    Case("mode_unknown", _set("mode", "sideways"), r"field 'mode': expected one of"),
    Case("outcome_list", _set("outcome", ["VALID"]), r"field 'outcome': expected a short text"),
    Case("provenance_object", _set("provenance", {}), r"field 'provenance': expected text"),
    Case("arms_negative", _set("arms", -1), r"field 'arms': expected a non-negative integer"),
    Case("log_number", _set("log", 5), r"field 'log': expected the handler's output \(text\)"),
    Case("log_huge", _set("log", "x" * (1 << 20) + "y"), r"field 'log': expected .* at most"),
    Case("sequence_missing", _drop("sequence"), r"field 'sequence': missing"),
    Case("sequence_text", _set("sequence", "abc"), r"field 'sequence': expected a list"),
    Case("choice_number", _set("sequence", [1]), r"'sequence\[0\]': expected an object"),
    Case("choice_kind", _choice("int", "kind", "complex"), r"\.kind': expected one of"),
    Case("int_value_text", _choice("int", "value", "7"), r"\.value': expected an integer"),
    Case("float_value_bad", _choice("float", "value", "zz"), r"\.value': expected a finite"),
    Case("bytes_not_hex", _choice("bytes", "value", "xyz"), r"\.value': expected bytes in hex"),
    Case(
        "int_bounds_reversed",
        _choice("int", "constraints", {"min_value": 5, "max_value": 1}),
        r"\.constraints': expected integer bounds",
    ),
    Case(
        "str_empty_alphabet",
        _choice("str", "constraints", {"alphabet": "", "min_size": 0, "max_size": 3}),
        r"\.constraints\.alphabet': expected a non-empty text",
    ),
    Case("ei_bad", _choice("int", "ei", "site#x"), r"\.ei': expected an execution index"),
    Case("labels_text", _choice("int", "labels", "abc"), r"\.labels': expected a list"),
    Case("fifo", _fifo, r"not a regular file \(a FIFO\)"),
    Case("directory", _directory, r"directory"),
    Case("device_symlink", _device, r"not a regular file \(a character device\)"),
    Case("huge", _huge, rf"too large \({MAX_SAVED_BYTES + 1} bytes\); expected at most"),
]
assert len(CASES) >= 30 and len({c.id for c in CASES}) == len(CASES)
IDS = [c.id for c in CASES]


# =========================================================================== fixtures
@pytest.fixture(scope="module")
def base(tmp_path_factory) -> tuple[Path, dict[str, Any]]:
    """A real gradebook out dir, and a valid failure file (with every kind of choice) that
    the cases corrupt."""
    out = tmp_path_factory.mktemp("base") / "out"
    engine = build_engine(load_config(GRADEBOOK), out_dir=out, seed=5, max_execs=120)
    for _ in engine.run():
        pass
    failure = json.loads(next((out / "failures").glob("*.json")).read_text())
    good = json.loads(next((out / "corpus").glob("*.json")).read_text())
    good["failure"] = failure["failure"]
    kinds = {c["kind"] for c in good["sequence"]}
    assert kinds >= {"int", "float", "bool", "bytes", "str"}, kinds
    good_path = tmp_path_factory.mktemp("good") / "good.json"
    good_path.write_text(json.dumps(good))
    load_input(good_path)  # the template itself is fine: each case breaks one thing
    return out, good


def _copy_out(base_out: Path, dest: Path) -> Path:
    shutil.copytree(base_out, dest)
    return dest


def _outside(root: Path, out: Path) -> set[str]:
    """Every path under `root` that is not in the out dir."""
    return {str(p) for p in root.rglob("*") if out not in p.parents and p != out}


def _line_about(text: str, path: Path) -> str:
    lines = [line for line in text.splitlines() if str(path) in line]
    assert lines, f"no line names {path}:\n{text}"
    return lines[0]


def _assert_clean_exit_2(result, path: Path, case: Case) -> None:
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    message = _line_about(result.stderr, path)
    assert re.search(case.expected, message), message


# =========================================================================== exit 2
@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("command", ["repro", "minimize"])
def test_repro_and_minimize_exit_2_naming_the_file(base, tmp_path, case, command):
    out = tmp_path / "out"
    (out / "failures").mkdir(parents=True)
    shutil.copy(base[0] / "campaign.json", out / "campaign.json")
    bad = out / "failures" / case.file_name
    case.make(bad, base[1])
    before = _outside(tmp_path, out)
    result = CliRunner().invoke(cli, [command, str(bad)])
    if case.id == "directory":  # click's own check of the argument, also exit 2
        assert result.exit_code == 2 and "is a directory" in result.stderr, result.output
    else:
        _assert_clean_exit_2(result, bad, case)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr  # one line
    assert _outside(tmp_path, out) == before
    assert os.path.lexists(bad)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_corpus_replay_exits_2_naming_the_file(base, tmp_path, case):
    out = _copy_out(base[0], tmp_path / "out")
    bad = out / "corpus" / case.file_name
    case.make(bad, base[1])
    before = _outside(tmp_path, out)
    result = CliRunner().invoke(cli, ["corpus", "replay", str(out / "corpus")])
    _assert_clean_exit_2(result, bad, case)
    assert "--skip-corrupt" in result.stderr
    assert _outside(tmp_path, out) == before
    assert os.path.lexists(bad)


# =========================================================================== warn and skip
@pytest.fixture(scope="module")
def resumed(base, tmp_path_factory):
    """Every case in corpus/ and in failures/ of one out dir, then `fuzz --quiet` resumes
    there (in-process, every warning listed)."""
    root = tmp_path_factory.mktemp("resume")
    out = _copy_out(base[0], root / "out")
    for case in CASES:
        case.make(out / "corpus" / case.file_name, base[1])
        case.make(out / "failures" / case.file_name, base[1])
    before = _outside(root, out)
    args = ["fuzz", str(GRADEBOOK), "--execs", "3", "--out", str(out), "--quiet"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(resume_module, "MAX_CORRUPT_NOTICES", 1000)
        result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), result.output
    assert isinstance(result.exception, SystemExit | None), result.exception
    assert "Traceback" not in result.output
    assert _outside(root, out) == before  # nothing written outside the out dir
    return out, result


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_resume_warns_on_stderr_with_quiet_skips_and_keeps_the_file(resumed, case):
    out, result = resumed
    for folder in ("corpus", "failures"):
        bad = out / folder / case.file_name
        message = _line_about(result.stderr, bad)
        assert message.startswith("lambdafuzz: warning [corpus-corrupt]: skipped (kept on disk)")
        assert re.search(case.expected, message), message
        assert os.path.lexists(bad)


@pytest.fixture(scope="module")
def reported(resumed):
    out, _ = resumed
    result = CliRunner().invoke(cli, ["report", str(out)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return out, result, (out / "report.html").read_text()


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_report_warns_skips_and_lists_the_file(reported, case):
    out, result, page = reported
    bad = out / "failures" / case.file_name
    assert re.search(case.expected, _line_about(result.stderr, bad))
    assert case.file_name in page


@pytest.fixture(scope="module")
def plugin_run(resumed, tmp_path_factory):
    out, _ = resumed
    here = tmp_path_factory.mktemp("plugin")
    (here / "pytest.ini").write_text("[pytest]\n")
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        + ["--lambdafuzz-corpus", str(out), "-W", "default", "-o", "timeout=100"],
        cwd=here,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert "INTERNALERROR" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "error" not in proc.stdout.splitlines()[-1], proc.stdout  # no collection error
    return out, proc.stdout


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_pytest_plugin_warns_and_skips(plugin_run, case):
    out, text = plugin_run
    bad = out / "failures" / case.file_name
    message = _line_about(text, bad)
    assert "lambdafuzz: skipped" in message and re.search(case.expected, message), message
    assert f"failure[{case.id}]" not in text


# =========================================================================== around the cases
def test_many_corrupt_files_are_listed_up_to_a_limit_then_counted(base, tmp_path):
    out = _copy_out(base[0], tmp_path / "out")
    for i in range(resume_module.MAX_CORRUPT_NOTICES + 5):
        (out / "corpus" / f"bad-{i:03d}.json").write_text("{")
    proc = subprocess.run(
        [sys.executable, "-m", "lambdafuzz", "fuzz", str(GRADEBOOK), "--execs", "2"]
        + ["--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert proc.returncode in (0, 1), proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if "[corpus-corrupt]" in line]
    assert len(warnings) == resume_module.MAX_CORRUPT_NOTICES + 1, proc.stderr
    assert "and 5 more unreadable files skipped" in warnings[-1]
    assert "Traceback" not in proc.stderr
    assert len(list((out / "corpus").glob("bad-*.json"))) == resume_module.MAX_CORRUPT_NOTICES + 5


def test_corpus_replay_skip_corrupt_replays_the_rest(base, tmp_path):
    out = _copy_out(base[0], tmp_path / "out")
    (out / "corpus" / "broken.json").write_text("{")
    result = CliRunner().invoke(cli, ["corpus", "replay", str(out / "corpus"), "--skip-corrupt"])
    assert result.exit_code in (0, 1), result.output
    assert "broken.json" in _line_about(result.stderr, out / "corpus" / "broken.json")
    assert "skipped 1 unreadable inputs" in result.stdout
    assert "branches: " in result.stdout


@pytest.mark.parametrize("kind", ["file", "symlink"])
def test_a_corpus_that_is_not_a_directory_stops_fuzz_with_exit_2(base, tmp_path, kind):
    out = _copy_out(base[0], tmp_path / "out")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(out / "corpus")
    if kind == "file":
        (out / "corpus").write_text("not a folder")
    else:
        (out / "corpus").symlink_to(elsewhere)
    result = CliRunner().invoke(
        cli, ["fuzz", str(GRADEBOOK), "--execs", "2", "--out", str(out), "--quiet"]
    )
    assert result.exit_code == 2, result.output
    assert f"{out / 'corpus'}: expected a directory" in result.stderr
    assert "Traceback" not in result.output
    assert list(elsewhere.iterdir()) == []


def test_a_corrupt_campaign_json_is_one_line_exit_2_for_repro(base, tmp_path):
    out = _copy_out(base[0], tmp_path / "out")
    (out / "campaign.json").write_text('{"config": ' + _nested(100_000) + "}")
    failure = next((out / "failures").glob("*.json"))
    result = CliRunner().invoke(cli, ["repro", str(failure)])
    assert result.exit_code == 2, result.output
    assert "campaign.json" in result.stderr and "nested too deeply" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
