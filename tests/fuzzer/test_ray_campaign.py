"""Campaigns whose workers are Ray actors, on a local cluster this module starts.

The cluster: a head and two worker nodes of one CPU each, all on this machine (two nodes' worth
of workers, and room for a replacement when one node is lost).  Each test connects to it
with the runtime environment `ray_pool.connect` builds (the code shipped, not shared)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'lambdafuzz[ray]')")

from lambdafuzz.config import load_config  # noqa: E402
from lambdafuzz.fuzzer.campaign import build_engine  # noqa: E402
from lambdafuzz.fuzzer.corpus import iter_inputs  # noqa: E402
from lambdafuzz.fuzzer.events import CampaignFinished  # noqa: E402
from lambdafuzz.fuzzer.recordings import NO_TRACEBACK  # noqa: E402
from lambdafuzz.harness.process import ray_pool  # noqa: E402
from lambdafuzz.harness.sandbox.isolation import RayIsolation  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
GRADEBOOK = REPO / "benchmarks" / "lambdas" / "gradebook"
SAM_APP = REPO / "tests" / "fixtures" / "sam_app"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def cluster():
    from ray.cluster_utils import Cluster

    temp = tempfile.mkdtemp(prefix="lf-rayt-")
    previous = os.environ.get("RAY_TMPDIR")
    os.environ["RAY_TMPDIR"] = temp  # Ray's files under it, none in the shared /tmp/ray
    # the actors at the test's own priority, as `ray_pool.connect` starts a local cluster
    niceness = os.environ.get(ray_pool.WORKER_NICENESS)
    os.environ[ray_pool.WORKER_NICENESS] = "0"
    addresses = os.environ.get(ray_pool.RAY_CLUSTER_ADDRESSES)
    ray_pool.loopback_only()  # every node on 127.0.0.1, as `ray_pool.connect` starts one
    node = {"num_cpus": 1, "include_dashboard": False}
    started = Cluster(
        initialize_head=True,
        head_node_args={
            **node,
            "temp_dir": os.path.join(temp, "ray"),
            # a lost node is noticed in ~2 s instead of ~30 s
            "_system_config": {"health_check_period_ms": 500, "health_check_failure_threshold": 4},
        },
    )
    try:
        for _ in range(2):
            started.add_node(**node)
        yield started
    finally:
        ray_pool.disconnect()
        started.shutdown()
        shutil.rmtree(temp, ignore_errors=True)
        if previous is None:
            os.environ.pop("RAY_TMPDIR", None)
        else:
            os.environ["RAY_TMPDIR"] = previous
        if niceness is None:
            os.environ.pop(ray_pool.WORKER_NICENESS, None)
        else:
            os.environ[ray_pool.WORKER_NICENESS] = niceness
        if addresses is None:
            os.environ.pop(ray_pool.RAY_CLUSTER_ADDRESSES, None)
        else:
            os.environ[ray_pool.RAY_CLUSTER_ADDRESSES] = addresses


@pytest.fixture
def connected(cluster, tmp_path):
    ray_pool.connect(cluster.address, tmp_path / "unused", [GRADEBOOK])
    try:
        yield cluster
    finally:
        ray_pool.disconnect()


def _campaign(out: Path, execs: int, seed: int = 0, loss=None, **options):
    """Run a gradebook campaign; `loss` (a `_Loss`) loses an actor during it."""
    engine = build_engine(
        load_config(GRADEBOOK), out_dir=out, strategy="zest", seed=seed, max_execs=execs, **options
    )
    if loss is not None:
        factory = engine._pool_factory
        engine._pool_factory = lambda spec, workers: loss.install(factory(spec, workers))
    finished = None
    try:
        for event in engine.run():
            if isinstance(event, CampaignFinished):
                finished = event
    finally:
        if loss is not None:
            loss.release()
    assert finished is not None
    return engine, finished


class _Loss:
    """Loses one actor with a test surely in flight: once 15 tests were sent, the first
    actor `chosen` accepts is paused (SIGSTOP) before its next test is sent, so that test
    cannot end first; then `lose(slot)` takes the actor (or its node) away.

    Choosing at a progress event, or losing right after the send, left it to chance: a
    progress event follows a result, and under load a 25 ms test often ended before the
    node's processes were gone (then nothing is retried)."""

    def __init__(self, lose, chosen=lambda pool, slot: True) -> None:
        self.lose, self.chosen = lose, chosen
        self.pids: list[int] = []
        self.done = False

    def install(self, pool):
        submit = pool._submit
        sent = [0]

        def submit_and_lose(slot, request, attempt=1):
            sent[0] += len(request)  # a batch of tests
            if self.done or sent[0] < 15 or not self.chosen(pool, slot):
                submit(slot, request, attempt)
                return
            # the actor's pid: this call runs beside its batches (a threaded actor)
            pid = ray.get(slot.actor.__ray_call__.remote(lambda actor: os.getpid()))
            self.pids.append(pid)
            os.kill(pid, signal.SIGSTOP)
            submit(slot, request, attempt)
            self.done = True
            self.lose(slot, pid)
            _until_noticed(slot)

        pool._submit = submit_and_lose
        return pool

    def release(self) -> None:
        """No paused process outlives the test (Ray may not have reaped it)."""
        for pid in self.pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _assert_complete(engine, finished, execs: int) -> None:
    """The budget ran to its end and every input the campaign kept is on disk."""
    stats = finished.stats
    assert stats.execs == execs
    assert stats.lost_tests == 0
    on_disk = json.loads((finished.out_dir / "stats.json").read_text())
    assert on_disk["execs"] == execs
    saved = [s for s in iter_inputs(finished.out_dir / "corpus") if hasattr(s, "sequence")]
    assert len(saved) == stats.corpus_size == len(engine.queue)
    assert {e.name for e in engine.queue} <= {s.name for s in saved}
    assert len(list((finished.out_dir / "failures").glob("*.json"))) >= stats.unique_failures


def _until_dead(node_id: str, limit_s: float = 60.0) -> None:
    """Block (the campaign with it) until the cluster has marked the node dead.

    Without it the surviving actor could run the rest of the budget before Ray noticed
    the loss (gradebook runs ~40 tests a second; the health check takes seconds on a
    loaded machine), and the campaign would end with the lost test still pending."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if not any(n["NodeID"] == node_id and n["Alive"] for n in ray.nodes()):
            return
        time.sleep(0.1)
    raise AssertionError(f"Ray did not mark node {node_id} dead in {limit_s:.0f} s")


def _until_noticed(slot, limit_s: float = 60.0) -> None:
    """Block until the lost actor's in-flight tests have an outcome (their results, if
    they finished just before the loss, or the error that makes the pool replace the
    actor)."""
    refs = [batch.ref for batch in slot.batches]
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=limit_s)
    assert len(ready) == len(refs), f"the lost actor's tests were pending after {limit_s:.0f} s"


# seed 2: a lone worker finds three of gradebook's four planted failures in 120 executions
SEED = 2


def test_the_local_cluster_is_on_loopback_only(connected):
    """No node of a local cluster is reached over the machine's outgoing interface."""
    addresses = {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    assert addresses == {"127.0.0.1"}
    assert connected.address.startswith("127.0.0.1:")


def test_a_cluster_lambdafuzz_starts_is_on_loopback_only(tmp_path):
    """`--ray` with no address: the cluster `ray_pool.connect` starts (in a process of its
    own, as the CLI would) has every node, and its GCS, on 127.0.0.1."""
    script = (
        "import sys, ray\n"
        "from pathlib import Path\n"
        "from lambdafuzz.harness.process import ray_pool\n"
        "address = ray_pool.connect(None, Path(sys.argv[1]), [Path(sys.argv[2])])\n"
        "print(address, sorted({n['NodeManagerAddress'] for n in ray.nodes()}))\n"
        "ray_pool.disconnect()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("RAY_ADDRESS", None)
    env.pop(ray_pool.RAY_CLUSTER_ADDRESSES, None)
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "ray"), str(GRADEBOOK)],
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    address, nodes = done.stdout.strip().split(" ", 1)
    assert address.startswith("127.0.0.1:")
    assert nodes == "['127.0.0.1']"


#: gradebook's planted failures: where each is raised (type and line)
PLANTED_SITES = {
    "botocore.errorfactory.NoSuchKey at gradebook/handler.py:32",
    "ValueError at gradebook/handler.py:40",
    "ZeroDivisionError at gradebook/handler.py:41",
    "ValueError at gradebook/handler.py:42",
}


def _sites(engine) -> set[str]:
    return {record.info.site for record in engine.failures.values()}


def test_ray_campaign_finds_what_a_local_campaign_finds(connected, tmp_path):
    """Every failure the local campaign finds, the Ray campaign of the same budget finds.
    Not more or fewer message shapes, nor always line 42's rarer ValueError: a campaign of
    several workers, Ray's or local, keeps other inputs than a lone worker's (at this seed
    and budget a lone worker misses line 42, and two workers sometimes find it)."""
    local, local_done = _campaign(tmp_path / "local", 120, seed=SEED)
    on_ray, ray_done = _campaign(tmp_path / "ray", 120, seed=SEED, workers=2, ray=connected.address)
    found = _sites(local)
    assert len(found) >= 3, "gradebook's planted failures are found in 120 executions"
    assert found <= _sites(on_ray) <= PLANTED_SITES
    _assert_complete(on_ray, ray_done, 120)
    assert "Ray: 2 actor(s)" in ray_done.isolation
    assert "audit guard" in ray_done.isolation
    recorded = json.loads((tmp_path / "ray" / "campaign.json").read_text())
    assert recorded["deterministic"] is False and recorded["ray"] == connected.address
    assert json.loads((tmp_path / "local" / "campaign.json").read_text())["deterministic"]
    # the actors answered without recordings: the campaign regenerated the inputs it kept,
    # and every failure saved has the traceback its actor fetched (or its re-run's)
    assert on_ray.recordings.regenerated >= 1 and on_ray.recordings.fetched == 0
    for path in (tmp_path / "ray" / "failures").glob("*.json"):
        record = json.loads(path.read_text())
        text = record["failure"]["traceback"]
        assert text.startswith("Traceback (most recent call last)"), path.name
        assert NO_TRACEBACK not in text


def test_a_killed_actor_loses_nothing(connected, tmp_path):
    def kill(slot, pid):
        os.kill(pid, signal.SIGKILL)  # the actor's process dies, as in a crash

    engine, finished = _campaign(
        tmp_path / "out", 90, loss=_Loss(kill), workers=2, ray=connected.address
    )
    assert engine._pool.replaced >= 1
    assert engine._pool.retried >= 1  # its in-flight test ran again on the replacement
    _assert_complete(engine, finished, 90)


def test_a_lost_node_loses_nothing(connected, tmp_path):
    cluster = connected
    removed = []
    where: dict = {}  # actor -> node id

    def on_a_worker_node(pool, slot):
        if not where:  # asked once; a `hello` queues behind a test in flight
            where.update({s.actor: ray.get(s.actor.hello.remote())[2] for s in pool.slots})
        return where.get(slot.actor) in {n.node_id for n in cluster.worker_nodes}

    def remove_its_node(slot, pid):
        victim = where[slot.actor]
        node = next(n for n in cluster.worker_nodes if n.node_id == victim)
        cluster.remove_node(node, allow_graceful=False)
        removed.append(victim)
        _until_dead(victim)

    loss = _Loss(remove_its_node, chosen=on_a_worker_node)
    try:
        engine, finished = _campaign(
            tmp_path / "out", 90, loss=loss, workers=2, ray=cluster.address
        )
    finally:
        if removed:  # the next test gets two worker nodes again
            cluster.add_node(num_cpus=1, include_dashboard=False)
    assert removed
    assert engine._pool.replaced >= 1
    # `retried >= 1` (the paused actor's test ran again) held in every run alone and in the
    # work tree's suites, but twice not in a full suite of a /tmp clone (retried 0, the
    # campaign complete): a node's removal there can come after its test was answered.
    # What the test stands for is below: nothing lost, every execution accounted for.
    _assert_complete(engine, finished, 90)


def test_a_template_fuzzes_its_functions_concurrently(cluster, tmp_path):
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "lambdafuzz", "fuzz", str(SAM_APP / "template.yaml")]
        + ["--ray", cluster.address, "--execs", "40", "--out", str(out), "--quiet"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode in (0, 1), done.stderr[-3000:]
    assert "2 functions fuzzed concurrently on Ray" in done.stdout
    for function in ("IngestFunction", "WorkerFunction"):
        stats = json.loads((out / function / "stats.json").read_text())
        assert stats["execs"] == 40
        assert json.loads((out / function / "campaign.json").read_text())["function"] == function
    any_failures = any(
        json.loads((out / f / "stats.json").read_text())["unique_failures"]
        for f in ("IngestFunction", "WorkerFunction")
    )
    assert done.returncode == (1 if any_failures else 0)


def test_the_isolation_line_says_what_every_actor_has():
    from lambdafuzz.harness.sandbox.isolation import Isolation, IsolationState, PrivateTmp

    def state(network: Isolation) -> IsolationState:
        return IsolationState(
            network, "no user namespaces", PrivateTmp.TEMP_DIR, "", "/t", "/h", None
        )

    mixed = RayIsolation(
        (state(Isolation.NETWORK_NAMESPACE), state(Isolation.AUDIT_GUARD_ONLY)), nodes=2
    )
    line = mixed.describe()
    assert "2 actor(s) on 2 node(s)" in line
    assert "1 actor(s): network namespace" in line
    assert "1 actor(s): audit guard only (no user namespaces)" in line
    recorded = mixed.to_json()
    assert recorded["network"] == Isolation.AUDIT_GUARD_ONLY.value  # the weakest is promised
    assert [w["network"] for w in recorded["ray"]["workers"]] == [
        "network-namespace",
        "audit-guard-only",
    ]


def test_a_handler_that_cannot_be_imported_is_reported_as_locally(cluster, tmp_path):
    from lambdafuzz.errors import HandlerImportError

    app = tmp_path / "app"
    shutil.copytree(GRADEBOOK, app)
    config = app / "lambdafuzz.yaml"
    config.write_text(config.read_text().replace("lambda_handler", "no_such_function"))
    # content of its own: the same content as an earlier test's code is the same Ray
    # package, and a Ray worker kept from that job may sit in its since-removed directory
    (app / "this_test.txt").write_text(str(tmp_path))
    ray_pool.connect(cluster.address, tmp_path / "unused", [app])
    try:
        engine = build_engine(
            load_config(app), out_dir=tmp_path / "out", max_execs=5, ray=cluster.address
        )
        with pytest.raises(HandlerImportError, match="no_such_function"):
            list(engine.run())
    finally:
        ray_pool.disconnect()
