"""`benchmarks/cpu_use.py`: the CPU time a block's processes spend, by part, from `/proc`."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from benchmarks.cpu_use import CpuShare, CpuUse, part_of

# burns `s` seconds of CPU, then lingers: a process that ends keeps the sample taken last
BURN = (
    "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}: pass\n"
    "time.sleep(1.0)\n"
)


def test_a_child_s_and_this_process_s_cpu_time_are_counted_apart() -> None:
    with CpuUse() as use:
        child = subprocess.Popen([sys.executable, "-c", BURN.format(s=0.6)])
        start = time.process_time()
        while time.process_time() - start < 0.3:  # this process: the campaign's part
            pass
        child.wait()
    parts = use.share.parts
    assert 0.55 <= parts["other"] <= 1.2, parts  # the child: a process of no known part
    assert 0.25 <= parts["campaign"] <= 0.8, parts
    assert use.sampling_s < 0.3  # the sampler's own time is not the campaign's


def test_processes_are_sorted_into_parts_by_name() -> None:
    me = os.getpid()
    assert part_of("python", "python -m anything", me) == "campaign"
    forkserver = "python -B -c from multiprocessing.forkserver import main; main(7, 9)"
    assert part_of("python", forkserver, me + 1) == "workers"
    assert part_of("ray::WorkerHost", "ray::WorkerHost.run", me + 1) == "actors"
    assert part_of("raylet", "/venv/lib/python3.13/site-packages/ray/core/src/ray/raylet/raylet", me + 1) == "ray"  # fmt: skip
    assert part_of("gcs_server", "/site-packages/ray/core/src/ray/gcs/gcs_server", me + 1) == "ray"  # fmt: skip
    assert part_of("python", "python some_script.py", me + 1) == "other"


def test_the_bound_is_the_cores_over_the_cpu_time_a_test() -> None:
    share = CpuShare({"workers": 3.0, "campaign": 0.5, "other": 0.5})
    assert share.per_test_ms(1000) == {"workers": 3.0, "campaign": 0.5, "other": 0.5}
    assert share.bound(1000, cores=2) == 500.0  # 2 cores / 4 ms a test
    assert CpuShare().bound(1000, cores=2) == 0.0


def test_restart_counts_from_then_on() -> None:
    with CpuUse() as use:
        start = time.process_time()
        while time.process_time() - start < 0.3:  # before the restart: not counted
            pass
        use.restart()
        start = time.process_time()
        while time.process_time() - start < 0.2:
            pass
    assert 0.15 <= use.share.parts.get("campaign", 0.0) <= 0.28, use.share.parts
