"""Both pools implement the whole `Pool` protocol, and the campaign asks it directly:
nothing in the fuzzer probes a pool for what it can do."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lambdafuzz.harness.process.pool import Pool, WorkerPool
from lambdafuzz.harness.process.ray_pool import RayWorkerPool

FUZZER = Path(__file__).resolve().parents[3] / "lambdafuzz" / "fuzzer"


def _members(cls: type) -> set[str]:
    return {name for name in dir(cls) if not name.startswith("_")}


PROTOCOL = {name for name in vars(Pool) if not name.startswith("_") and name not in {"mro"}}


def test_the_protocol_names_what_the_campaign_asks():
    assert {"imap", "rerun", "rerun_later", "run_again", "kept", "recycle", "forget"} <= PROTOCOL
    assert {"info", "restarts", "stray", "lost", "keeps_recordings", "warm_spare"} <= PROTOCOL


@pytest.mark.parametrize("pool", [WorkerPool, RayWorkerPool], ids=lambda c: c.__name__)
def test_each_pool_implements_the_whole_protocol(pool):
    missing = PROTOCOL - _members(pool)
    assert not missing, f"{pool.__name__} lacks {sorted(missing)}"


@pytest.mark.parametrize("path", sorted(FUZZER.rglob("*.py")), ids=lambda p: p.name)
def test_no_fuzzer_module_probes_a_pool(path):
    probes = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"getattr", "hasattr"}
        and node.args
        and "pool" in ast.unparse(node.args[0]).lower()
    ]
    assert not probes, f"{path.name}: a pool probed at lines {probes}"
