"""The havoc probe (benchmarks/study/havoc.py): serialisation, mutation distance, the
shares and quartiles it reports, and one small end-to-end run of benchmarks/havoc.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from benchmarks.study import havoc
from benchmarks.study.havoc import Regenerator, distance, serialise
from benchmarks.study.layout import LAMBDAS_DIR, REPO
from lambdafuzz.config import load_config
from lambdafuzz.generators.aws.world_generator import generate_input
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec, choices_for

EI = ReplayMode.EXECUTION_INDEXED


def _generated(lambda_name: str, seed: int, mode: ReplayMode = EI):
    target = load_config(LAMBDAS_DIR / lambda_name)
    spec = WorkerSpec(target=target)
    choices = choices_for(spec, TestRequest({} if mode is EI else [], seed, mode))
    return spec, choices, generate_input(choices, target)


@pytest.mark.parametrize("lambda_name", ["gradebook", "year_thumbnails", "unzip"])
def test_the_distance_of_an_input_to_itself_is_zero(lambda_name):
    spec, choices, generated = _generated(lambda_name, seed=4)
    data = serialise(generated)
    assert distance(data, data) == 0.0
    # regenerated from its own recording, in either mode, it is the same input again
    recording = choices.recording()
    for mode in (EI, ReplayMode.LINEAR):
        again, _ = Regenerator(spec, mode).input(recording.prefix(mode), 4)
        assert again == data and distance(data, again) == 0.0
    _, _, other = _generated(lambda_name, seed=5)
    assert 0.0 < distance(data, serialise(other)) <= 1.0


def test_a_child_that_changes_one_exif_date_is_close_to_its_parent_in_ei_mode():
    """year_thumbnails: an input whose JPEG has an EXIF DateTimeOriginal (drawn in
    generators/files/images.py `_exif`, through generators/dates.py), and a child whose
    only change is that date's year."""
    for seed in range(40):
        spec, choices, _ = _generated("year_thumbnails", seed)
        years = [
            c
            for c in choices.choices
            if c.ei[-1][0] == "year" and any(site == "DateTimeOriginal" for site, _ in c.ei)
        ]
        if years:
            break
    else:
        pytest.fail("no input with an EXIF DateTimeOriginal in 40 seeds")
    parent = choices.recording()
    year = years[0]
    child_prefix = parent.by_ei()
    child_prefix[year.ei] = year.value + 1  # one year further from 2026
    regenerate = Regenerator(spec, EI)
    before, _ = regenerate.input(parent.by_ei(), seed)
    after, _ = regenerate.input(child_prefix, seed)
    # the child read the parent's values but that one
    child = choices_for(spec, TestRequest(child_prefix, seed, EI))
    generate_input(child, spec.target)
    assert len(child.choices) == len(parent.choices)
    pairs = zip(parent.choices, child.choices, strict=True)
    assert [i for i, (a, b) in enumerate(pairs) if a != b] == [parent.choices.index(year)]
    assert before is not None and after is not None
    d = distance(before, after)
    # a byte of the EXIF date, plus the object's ETag in the S3 event when it is the
    # event's object: a few dozen bytes of a 1-8 KB input
    assert 0.0 < d < 0.05, d


def test_long_inputs_are_compared_on_windows():
    rng = __import__("random").Random(1)
    big = rng.randbytes(havoc.MAX_EXACT * 3)
    edited = big[:1000] + b"x" + big[1001:]
    assert distance(big, big) == 0.0
    assert 0.0 < distance(big, edited) < 0.01
    assert distance(big, rng.randbytes(len(big))) > 0.5
    # a difference outside every window still makes a non-zero distance
    outside = big[:2500] + b"\x00" + big[2501:]
    assert havoc._windows(outside) == havoc._windows(big)
    assert distance(big, outside) > 0.0


def _child(distance_value, *, parent_valid=True, status="VALID", saved=False, kind="random"):
    return {
        "parent": 0,
        "parent_valid": parent_valid,
        "kind": kind,
        "label": None if kind == "random" else "t",
        "positions": 1,
        "status": status,
        "saved": saved,
        "skipped": False,
        "distance": distance_value,
        "zero": None if distance_value is None else distance_value == 0.0,
    }


def test_shares_quartiles_and_validity_by_hand():
    skipped = dict(_child(0.0), skipped=True, status=None)
    children = [
        skipped,
        _child(0.0),  # identical input, different values: run anyway
        _child(0.1, saved=True),
        _child(0.2, status="INVALID"),
        _child(0.3, kind="targeted"),
        _child(0.5, parent_valid=False, status="INVALID", kind="targeted"),
        _child(None),  # not measured (sampled out)
    ]
    zero = havoc.zero_shares(children)
    # 1 skipped; of the 5 measured children that ran, 1 identical -> 1/5 of the 6 that ran
    assert zero["skipped"] == 1 and zero["identical_ran"] == 1 and zero["measured_ran"] == 5
    assert zero["zero_share"] == round((1 + 6 / 5) / 7, 4)
    assert havoc.nonzero_distances(children) == [0.1, 0.2, 0.3, 0.5]
    assert havoc.nonzero_distances(children, saved=True) == [0.1]
    assert havoc.quantiles([0.1, 0.2, 0.3, 0.5]) == {
        "n": 4,
        "q1": 0.175,
        "median": 0.25,
        "q3": 0.35,
        "mean": 0.275,
    }
    # children of VALID parents that ran and differ: 0.1, 0.2, 0.3, and the unmeasured one
    assert havoc.validity(children) == {"children": 4, "valid": 3, "share": 0.75}
    assert havoc.validity(children, "targeted") == {"children": 1, "valid": 1, "share": 1.0}


def test_a_small_havoc_study_end_to_end(tmp_path):
    """Two campaigns (linear, EI) of one lambda: every child regenerated as its worker made
    it, the report, the results and the four figures written."""
    out = tmp_path / "havoc"
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED="0")
    command = [
        sys.executable,
        "benchmarks/havoc.py",
        "--lambdas",
        "survey_upload",
        "--reps",
        "1",
        "--execs",
        "25",
        "--out",
        str(out),
    ]
    proc = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((out / "results.json").read_text())
    cell = results["lambdas"]["survey_upload"]["modes"]
    for mode in ("linear", "ei"):
        run = json.loads((out / "raw" / "survey_upload" / mode / "rep0" / "havoc.json").read_text())
        assert run["stats"]["execs"] == 25
        assert len(run["children"]) == cell[mode]["children"] > 0
        assert cell[mode]["regenerated_differently"] == 0
        assert all(c["distance"] is not None or c.get("no_input") for c in run["children"])
    report = (out / "report.md").read_text()
    for heading in ("Mutation distance", "Zero mutations", "Validity preservation", "Coverage"):
        assert heading in report
    for name in ("figure6-linear", "figure6-ei", "figure7", "figure8"):
        assert (out / "plots" / f"{name}.png").stat().st_size > 1000
    # a rerun reuses the finished runs
    again = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "[1/" not in again.stdout
