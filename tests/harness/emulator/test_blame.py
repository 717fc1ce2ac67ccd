"""Blame (`harness.blame`): an exception raised inside the emulator or lambdafuzz while
serving the handler's call is an emulator gap, never a failure of the application."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.harness.emulator import blame
from lambdafuzz.harness.emulator.blame import emulator_gap

APP = Path(__file__).parents[2] / "fuzzer" / "gapped"


def _raise_through(tmp_path: Path, monkeypatch, library: str, raising: str):
    """An exception raised by `raising` (code of a file in a fake `library` package), called
    from an application file: (the exception, the application's dirs)."""
    app = tmp_path / "app"
    app.mkdir(exist_ok=True)
    lib = tmp_path / library
    lib.mkdir(exist_ok=True)
    (lib / "service").mkdir(exist_ok=True)
    lib_file = lib / "service" / "models.py"
    lib_file.write_text(f"def serve():\n    {raising}\n")
    app_file = app / "h.py"
    app_file.write_text("def handler(serve):\n    return serve()\n")
    namespace: dict = {}
    exec(compile(lib_file.read_text(), str(lib_file), "exec"), namespace)
    serve = namespace["serve"]
    exec(compile(app_file.read_text(), str(app_file), "exec"), namespace)
    real = blame._package_dir
    monkeypatch.setattr(
        blame, "_package_dir", lambda name: str(lib.resolve()) if name == library else real(name)
    )
    blame._owner.cache_clear()  # files are told apart by the patched package folders
    try:
        namespace["handler"](serve)
    except BaseException as exc:  # noqa: BLE001
        return exc, [str(app.resolve())]
    raise AssertionError("expected the fake library to raise")


def test_a_module_moto_needs_names_the_extra_that_installs_it(tmp_path, monkeypatch):
    exc, app_dirs = _raise_through(
        tmp_path,
        monkeypatch,
        "moto",
        "raise ModuleNotFoundError(\"No module named 'openapi_spec_validator'\", "
        "name='openapi_spec_validator')",
    )
    gap = emulator_gap(exc, app_dirs)
    assert gap is not None
    assert gap.key == "missing module: openapi_spec_validator"
    # moto's own metadata says which extras bring it; none is "all", "server" or "proxy"
    assert "pip install 'moto[" in gap.advice and "moto[all]" not in gap.advice


def test_an_operation_moto_lacks_and_a_crash_in_moto_are_gaps(tmp_path, monkeypatch):
    exc, app_dirs = _raise_through(
        tmp_path,
        monkeypatch,
        "moto",
        'raise NotImplementedError("The frobnicate action has not been implemented")',
    )
    gap = emulator_gap(exc, app_dirs)
    assert gap is not None and gap.key == "not implemented: frobnicate"
    exc, app_dirs = _raise_through(tmp_path, monkeypatch, "moto", "return {}['TableArn']")
    gap = emulator_gap(exc, app_dirs)
    assert gap is not None
    assert gap.key == "moto crash: KeyError in moto/service/models.py in serve"
    assert "not a bug of the application" in gap.advice


def test_the_applications_own_exceptions_and_other_libraries_are_not_gaps(tmp_path, monkeypatch):
    exc, app_dirs = _raise_through(tmp_path, monkeypatch, "vendorlib", "return {}['id']")
    assert emulator_gap(exc, app_dirs) is None  # a library the application called: its bug
    app = tmp_path / "own"
    app.mkdir()
    try:
        exec(compile("{}['id']\n", str(app / "h.py"), "exec"), {})
    except KeyError as own:
        assert emulator_gap(own, [str(app.resolve())]) is None
    # no application frame at all (lambdafuzz calling a handler with the wrong arguments)
    try:
        (lambda: None)(1)  # noqa: PLC3002
    except TypeError as wrong:
        assert emulator_gap(wrong, [str(app.resolve())]) is None


@pytest.mark.slow
def test_a_campaign_reports_emulator_gaps_once_and_saves_only_the_real_bug(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["fuzz", str(APP), "--execs", "300", "--seed", "0", "--out", str(out)]
    )
    assert result.exit_code == 1, result.output  # the real bug
    files = sorted((out / "failures").glob("*.json"))
    bugs = [json.loads(p.read_text())["failure"]["bug"] for p in files]
    # nothing blamed on the lines that called the emulator
    assert bugs == [
        'ValueError at gapped/handler.py in lambda_handler: return {"count": int(body)}'
    ]
    stats = json.loads((out / "stats.json").read_text())
    gaps = stats["emulator_gaps"]
    assert set(gaps) == {
        "not implemented: dynamodb DescribeContributorInsights",
        "moto crash: KeyError in moto/dynamodb/responses.py in list_exports",
    }
    assert all(n > 1 for n in gaps.values())  # met many times ...
    assert result.output.count("warning [emulator-gap]") == 2  # ... said once each
    assert "emulator gaps   " in result.output
