"""Executions per second of a campaign on Ray actors against one local worker (`make bench`).

    .venv/bin/python benchmarks/ray_scaling.py [--lambda gradebook] [--execs 3000]
        [--actors 2] [--rounds 1] [--local-too] [--warm-execs N] [--json FILE]

Side by side, same lambda, seed and budget, alternating within each round: a `zest`
campaign with one local worker process, and one whose `--actors` workers are Ray actors
on a local cluster this script starts (its sessions in a temporary directory, removed at
the end).  The rate is the campaign's own (`stats.json` `execs_per_sec`: executions over
the time from the first test to the end), so starting the workers, the actors and the
cluster is not in it.  Both campaigns' stats are checked for completeness (the whole
budget run, no lost test, corpus/ and failures/ as the stats say).  The issue's target is
a ratio of at least 1.6 with 2 actors on a 2-core machine; whatever else runs on the
machine moves both numbers, and the header says how loaded it was.

A campaign of several workers, Ray's or local, is not deterministic: which input it keeps
depends on the order results come back, and the inputs it keeps decide what its tests cost
(on gradebook a kept input holding a CSV of ~1,400 cells makes every child of it ~6 ms to
generate: the same code ran 160-510 execs/s by that alone).  `--warm-execs N` takes the
trajectory out of most of it: a one-worker campaign of N executions runs first, and every
measured campaign starts from its corpus (`--seed-corpus`, seed + 1), where gradebook has
nothing left to cover.  Each line also gives the workers' busy share: the time the
workers spent generating, loading and running tests over the campaign's time x workers.
The Ray campaign's processes' CPU time per test is read from `/proc` (`cpu_use.py`: the
workers, the actors relaying to them, the campaign process, Ray's daemons), with the rate
this machine's cores allow at that much CPU per test and the ratio to the local worker that
rate gives: as far as that many actors can go here, whatever the scheduling.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.cpu_use import CpuUse  # noqa: E402
from benchmarks.study import machine  # noqa: E402
from benchmarks.study.inprocess import finished_campaign  # noqa: E402
from benchmarks.study.layout import LAMBDAS_DIR  # noqa: E402

TARGET_RATIO = 1.6


def campaign(
    lambda_name: str,
    out_dir: Path,
    *,
    execs: int,
    seed: int,
    cpu: CpuUse | None = None,
    **options: Any,
) -> dict:
    """One zest campaign in this process: its final stats, checked for completeness.
    `cpu` counts from the campaign's first test on (its workers' start is not in its rate)."""
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.campaign import build_engine

    target = load_config(LAMBDAS_DIR / lambda_name)
    engine = build_engine(
        target, out_dir=out_dir, strategy="zest", seed=seed, max_execs=execs, **options
    )
    finished = finished_campaign(engine, cpu.restart if cpu else None)
    stats = finished.stats
    corpus = len(list((out_dir / "corpus").glob("*.json")))
    failures = len(list((out_dir / "failures").glob("*.json")))
    complete = (
        stats.execs == execs
        and stats.lost_tests == 0
        and corpus == stats.corpus_size
        and failures >= stats.unique_failures
    )
    return {
        "execs": stats.execs,
        "execs_per_sec": stats.execs_per_sec,
        "unique_failures": stats.unique_failures,
        "branches": stats.app_branches_covered,
        "corpus": stats.corpus_size,
        "lost_tests": stats.lost_tests,
        "complete": complete,
        "isolation": finished.isolation,
        "busy": (stats.time_in_generation_s + stats.time_in_reset_load_s + stats.time_in_handler_s)
        / max(stats.elapsed_s * options.get("workers", 1), 1e-9),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lambda", dest="lambda_name", default="gradebook")
    parser.add_argument("--execs", type=int, default=3000)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument(
        "--local-too",
        action="store_true",
        help="also run --actors local workers each round: what the machine allows that many "
        "workers, Ray or not",
    )
    parser.add_argument(
        "--warm-execs",
        type=int,
        default=0,
        help="first run a one-worker campaign of this many executions; every measured "
        "campaign then starts from its corpus (with seed + 1)",
    )
    args = parser.parse_args(argv)

    from lambdafuzz.harness.process import ray_pool

    info = machine.describe()
    print(
        f"# Ray scaling: {args.lambda_name}, {args.execs} executions, 1 local worker vs "
        f"{args.actors} Ray actors ({info['nproc']} cores, load {info['load_start']}, "
        f"{machine.now()})",
        flush=True,
    )
    scratch = Path(tempfile.mkdtemp(prefix="lf-rb-"))
    rounds: list[dict[str, Any]] = []
    try:
        t0 = time.perf_counter()
        address = ray_pool.connect(None, scratch / "ray", [LAMBDAS_DIR / args.lambda_name])
        print(f"local Ray cluster at {address} started in {time.perf_counter() - t0:.1f} s")
        seeded: dict[str, Any] = {}
        if args.warm_execs:
            warm = campaign(
                args.lambda_name, scratch / "warm", execs=args.warm_execs, seed=args.seed
            )
            seeded = {"seed_corpora": (scratch / "warm" / "corpus",)}
            print(
                f"warm-up: {args.warm_execs} executions, {warm['corpus']} corpus inputs, "
                f"{warm['branches']} branches; the campaigns below start from them",
                flush=True,
            )
        for i in range(args.rounds):

            def one(name: str, **options: Any) -> dict:
                return campaign(
                    args.lambda_name,
                    scratch / f"{name}-{i}",  # noqa: B023 - called within this round
                    execs=args.execs,
                    seed=args.seed + 1 if seeded else args.seed,
                    **seeded,
                    **options,
                )

            local = one("local")

            def speedup(other: dict) -> float:
                return other["execs_per_sec"] / max(local["execs_per_sec"], 1e-9)  # noqa: B023

            with CpuUse() as use:
                on_ray = one("ray", workers=args.actors, ray=address, cpu=use)
            ratio = speedup(on_ray)
            bound = use.share.bound(on_ray["execs"])
            row: dict[str, Any] = {
                "local": local,
                "ray": on_ray,
                "ratio": ratio,
                "ray_cpu_ms_per_test": use.share.per_test_ms(on_ray["execs"]),
                "ray_cpu_bound_execs_per_sec": round(bound, 1),
                "ray_cpu_bound_ratio": round(speedup({"execs_per_sec": bound}), 3),
            }
            reference = ""
            if args.local_too:
                many = one(f"local{args.actors}", workers=args.actors)
                row["local_many"] = many
                row["local_many_ratio"] = speedup(many)
                reference = (
                    f"; local {args.actors} workers {many['execs_per_sec']:.1f} execs/s: "
                    f"{row['local_many_ratio']:.2f}x (busy {many['busy']:.2f})"
                )
            rounds.append(row)
            print(
                f"round {i + 1}: local 1 worker {local['execs_per_sec']:.1f} execs/s "
                f"(busy {local['busy']:.2f}), Ray {args.actors} actors "
                f"{on_ray['execs_per_sec']:.1f} execs/s (busy {on_ray['busy']:.2f}): "
                f"{ratio:.2f}x{reference}; failures {local['unique_failures']} / "
                f"{on_ray['unique_failures']}; complete {local['complete']} / "
                f"{on_ray['complete']}",
                flush=True,
            )
            parts = ", ".join(f"{k} {v:.2f}" for k, v in row["ray_cpu_ms_per_test"].items())
            print(
                f"  Ray's CPU ms a test: {parts}; the cores allow {bound:.1f} execs/s "
                f"({row['ray_cpu_bound_ratio']:.2f}x)",
                flush=True,
            )
    finally:
        ray_pool.disconnect()
        shutil.rmtree(scratch, ignore_errors=True)
    ratio = statistics.median(r["ratio"] for r in rounds)
    verdict = "meets" if ratio >= TARGET_RATIO else "misses"
    print(
        f"median ratio {ratio:.2f}x over {len(rounds)} round(s): {verdict} the "
        f"{TARGET_RATIO}x target (load now {machine.load_average()})"
    )
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "rounds": rounds}, indent=2) + "\n")
    allowed = statistics.median(r["ray_cpu_bound_ratio"] for r in rounds)
    print(f"median ratio the cores allow Ray at its CPU time per test: {allowed:.2f}x")
    if args.local_too:
        many = statistics.median(r["local_many_ratio"] for r in rounds)
        print(f"median ratio of {args.actors} local workers to 1: {many:.2f}x")
    runs = ("local", "ray", "local_many")
    complete = all(r[k]["complete"] for r in rounds for k in runs if k in r)
    return 0 if complete else 1


if __name__ == "__main__":
    raise SystemExit(main())
