"""The static arm catalog is scanned once per campaign and shared by whoever needs it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from lambdafuzz.config import load_config
from lambdafuzz.fuzzer.campaign import build_engine
from lambdafuzz.fuzzer.events import CampaignFinished, CampaignStarted
from lambdafuzz.harness.measure import arm_catalog
from lambdafuzz.harness.measure.arm_catalog import Scope
from lambdafuzz.model.target import app_dirs

GRADEBOOK = Path(__file__).resolve().parents[3] / "benchmarks" / "lambdas" / "gradebook"


def spy_on_scan_arms(monkeypatch) -> list[Scope]:
    """Wrap the real scan_arms wherever a loaded lambdafuzz module holds it (a module-level
    ``from ... import scan_arms`` binds its own name); returns the scopes it was called on."""
    real = arm_catalog.scan_arms
    calls: list[Scope] = []

    def counting(scope: Scope) -> arm_catalog.ArmCatalog:
        calls.append(scope)
        return real(scope)

    for name, module in list(sys.modules.items()):
        if name.startswith("lambdafuzz") and getattr(module, "scan_arms", None) is real:
            monkeypatch.setattr(module, "scan_arms", counting)
    return calls


def test_a_spoton_campaign_scans_the_catalog_once(tmp_path, monkeypatch):
    target = load_config(GRADEBOOK)
    expected = arm_catalog.scan_arms(Scope.of(app_dirs(target)))
    calls = spy_on_scan_arms(monkeypatch)
    engine = build_engine(target, out_dir=tmp_path / "out", strategy="spoton", seed=5, max_execs=40)
    events = list(engine.run())
    assert isinstance(events[-1], CampaignFinished)
    assert len(calls) == 1, calls  # in this (the campaign) process; workers get the total
    assert engine.mutator._coverage._catalog is engine.catalog  # the targeted mutator shares it
    # the same totals and lines as a scan of their own would give
    (started,) = [e for e in events if isinstance(e, CampaignStarted)]
    assert started.app_branches_total == expected.total > 0
    coverage = json.loads((tmp_path / "out" / "coverage.json").read_text())
    assert coverage["app_branches_total"] == expected.total
    assert coverage["covered"]
    for arm in coverage["covered"]:
        site = expected.site(arm_catalog.ArmKey(*arm["arm"]))
        assert site is not None
        assert (arm["from_line"], arm["to_line"]) == (site.from_line, site.to_line)
