"""No write of a campaign leaves its out dir through a symlink (issue 39): every folder and
file lambdafuzz writes there that is a symlink is refused before anything is written (exit
2, one message naming it), a folder made mid-campaign is made and written through without
following one, and a symlinked file is replaced, never written through.  The out dir
itself may be a symlink: the user chose it.

Every campaign here runs with fake credentials and a fake HOME, and the refused ones stop
before any worker starts."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.atomic_files import write_text_atomic
from lambdafuzz.cli.main import cli
from lambdafuzz.fuzzer.corpus import SavedInput
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.out_dir import OWN_FILES, OWN_FOLDERS, OutDir, OutDirError
from lambdafuzz.generators.core import Choices, ReplayMode
from lambdafuzz.model.outcome import FailureInfo

ADDER = Path(__file__).parent / "adder" / "lambdafuzz.yaml"
FAKE_KEY = "AKIAFAKEFAKEFAKEFAKE"


@pytest.fixture
def fake_env(tmp_path) -> dict[str, str]:
    """The environment a campaign gets here: fake credentials in it and in a fake HOME."""
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(
        f"[default]\naws_access_key_id = {FAKE_KEY}\naws_secret_access_key = fake\n"
    )
    return {
        "HOME": str(home),
        "AWS_ACCESS_KEY_ID": FAKE_KEY,
        "AWS_SECRET_ACCESS_KEY": "fakefakefake",
        "AWS_PROFILE": "default",
    }


def _fuzz(out: Path, env: dict[str, str], execs: int = 2):
    return CliRunner().invoke(
        cli, ["fuzz", str(ADDER), "--execs", str(execs), "--out", str(out), "--quiet"], env=env
    )


def _contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


PLANTED = [*OWN_FOLDERS, "efs/jobs", *OWN_FILES]


@pytest.mark.parametrize("name", PLANTED)
def test_a_symlink_in_the_out_dir_stops_fuzz_with_exit_2_and_writes_nothing_outside(
    tmp_path, fake_env, name
):
    out = tmp_path / "out"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    planted = out / name
    planted.parent.mkdir(parents=True)
    if name in OWN_FILES:
        victim = elsewhere / "victim"
        victim.write_text("precious\n")
        planted.symlink_to(victim)
    else:
        planted.symlink_to(elsewhere, target_is_directory=True)
    result = _fuzz(out, fake_env)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert f"{planted}: expected a " in result.stderr and "found a symlink" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.output
    assert _contents(elsewhere) == ({"victim": b"precious\n"} if name in OWN_FILES else {})
    assert planted.is_symlink()  # left for the user to look at
    assert not (out / "campaign.json").exists() or name == "campaign.json"


def test_a_folder_that_is_a_file_is_refused_too(tmp_path, fake_env):
    out = tmp_path / "out"
    out.mkdir()
    (out / "flaky").write_text("not a folder")
    result = _fuzz(out, fake_env)
    assert result.exit_code == 2, result.output
    assert f"{out / 'flaky'}: expected a directory, found a regular file" in result.stderr


def test_a_symlinked_out_dir_itself_is_fuzzed_in(tmp_path, fake_env):
    real = tmp_path / "real"
    real.mkdir()
    out = tmp_path / "out"
    out.symlink_to(real, target_is_directory=True)
    result = _fuzz(out, fake_env, execs=3)
    assert result.exit_code in (0, 1), result.output
    assert (real / "campaign.json").is_file() and (real / "corpus").is_dir()


def saved(name: str) -> SavedInput:
    choices = Choices(seed=1)
    choices.draw_integer(0, 9)
    return SavedInput(
        name, choices.recording(), 1, ReplayMode.EXECUTION_INDEXED, "FAILURE", "", {}, {}
    )


def _flaky_record() -> FailureRecord:
    info = FailureInfo("ValueError", "boom", "", "app/h.py:3", function="f")
    return FailureRecord(info.signature, info, "FAILURE", "valueerror.json", 2, 0.5)


def test_a_folder_made_a_symlink_mid_campaign_is_refused_not_followed(tmp_path):
    """After `check_layout` (a folder the campaign makes on first use, e.g. flaky/ on the
    first flaky failure): the write goes through the folder opened without following."""
    out = OutDir(tmp_path / "out")
    out.path.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out.check_layout()
    (out.path / "flaky").symlink_to(elsewhere, target_is_directory=True)
    (out.path / "cost").symlink_to(tmp_path / "dangling")
    (out.path / "corpus").write_text("a file")
    with pytest.raises(OutDirError, match=r"flaky: expected a directory, found a symlink"):
        out.save_flaky(_flaky_record(), saved("x"))
    with pytest.raises(OutDirError, match=r"corpus: expected a directory, found a regular"):
        out.save_corpus_input(saved("id-000000"))
    assert list(elsewhere.iterdir()) == []
    assert not (tmp_path / "dangling").exists()
    # and made safely when nothing is there: a real folder
    (out.path / "flaky").unlink()
    path = out.save_flaky(_flaky_record(), saved("x"))
    assert path.parent.is_dir() and not path.parent.is_symlink() and path.is_file()


def test_a_symlinked_file_is_replaced_never_written_through(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    link = tmp_path / "out" / "stats.json"
    link.parent.mkdir()
    link.symlink_to(victim)
    write_text_atomic(link, "{}\n")
    assert victim.read_text() == "precious\n"
    assert not link.is_symlink() and link.read_text() == "{}\n"
    link.unlink()
    link.symlink_to(victim)
    write_text_atomic(link, "{}\n", durable=True, real_parent=True)
    assert victim.read_text() == "precious\n" and not link.is_symlink()


def test_a_functions_campaign_folder_that_is_a_symlink_is_refused(tmp_path, fake_env):
    """A template fuzzed without --function runs one campaign per function in
    OUT/<Function>/, a folder lambdafuzz makes: a symlink there is refused too."""
    template = Path(__file__).parents[1] / "fixtures" / "sam_app" / "template.yaml"
    out, outside = tmp_path / "out", tmp_path / "outside"
    out.mkdir()
    outside.mkdir()
    (out / "IngestFunction").symlink_to(outside, target_is_directory=True)
    result = CliRunner().invoke(
        cli, ["fuzz", str(template), "--execs", "2", "--out", str(out), "--quiet"], env=fake_env
    )
    assert result.exit_code == 2, result.output
    assert "IngestFunction" in result.output and "found a symlink" in result.output
    assert list(outside.iterdir()) == []
