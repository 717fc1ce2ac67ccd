"""Zero mutations not made, skipped or run (`make bench`): useful tests per second, side by side.

    .venv/bin/python benchmarks/zero_mutations.py [--lambdas a,b] [--modes ei,linear]
                                                  [--execs 300] [--seed 0] [--json FILE]
                                                  [--strategy zest|spoton] [--no-costs]

For each lambda and replay mode, three seeded campaigns (`--strategy`, default zest) in
this process (1 worker each):

* **changed** (the engine's default): `--execs` executions; mutated draws take values other
  than the parent's (`generators.core.Changed`), so (nearly) no child is a zero mutation;
  the few that still read their parent's exact values are skipped;
* **skip**: Zest's plain fresh draws (`change_mutated_draws=False`), `--execs` executions;
  k children read exactly their parent's values and were skipped (generated in the worker,
  not run);
* **off**: plain draws, `--execs` + k executions with skipping disabled: the same children
  as **skip** in the same order (children and seeds come from the engine's RNG either way),
  the k zero mutations run as well.

Useful tests are executions that are not zero mutations.  The table gives useful tests per
second (wall and CPU) for each, the share of zero mutations among the tests plain draws make,
and the target `1 + share` (useful tests per second must rise by at least the share).

**changed** makes other children than **off** (every would-be zero mutation becomes a real
change, and later children differ with it), so its rate also moves with what those children
cost; "no zero, same children" isolates the effect on **off**'s own children: its useful
tests over the time its children took (from the first child's result to the last's: no
start-up, no seeds) less the time its zero mutations took (each timed from the previous
child's result to its own), which is what not making them saves, since a
`Changed` marker costs the mutator nothing measurable.  "met" compares that with the target.
And whether **skip** and **off** saved the same inputs (they must).

Then where the check belongs (`Tally.zero_mutation`), measured on the "on" campaign's
saved inputs sent again as children of themselves: the wall time of a child the worker
reports identical (pipe round trip plus generation in the worker), of the same input run
in full, and of generating it in the campaign process (what generating every child in the
campaign first would add to each child that does run).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.study import machine  # noqa: E402
from benchmarks.study.layout import LAMBDAS_DIR, all_lambdas  # noqa: E402
from benchmarks.study.tables import markdown_table  # noqa: E402

#: saved inputs timed per lambda for the cost of the identical check, and calls per input
PROBE_INPUTS = 10
PROBE_CALLS = 5


def campaign(
    lambda_name: str,
    *,
    mode: str,
    execs: int,
    seed: int,
    skip: bool,
    out_dir: Path,
    strategy: str = "zest",
    change: bool = False,
) -> tuple[Any, dict[str, Any]]:
    """One campaign; (engine, what it did).  `change`: the engine's default mutated draws
    (values other than the parent's); False: Zest's plain fresh draws."""
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.fuzzer.events import CampaignFinished, CampaignStarted

    target = load_config(LAMBDAS_DIR / lambda_name)
    engine = build_engine(
        target,
        out_dir=out_dir,
        strategy=strategy,
        seed=seed,
        max_execs=execs,
        mode=mode,
        change_mutated_draws=change,
    )
    engine.skip_zero_mutations = skip
    ran_zero = 0
    zero_s = 0.0  # wall time of the zero mutations that ran (with one worker, tests run
    # one after another: a child's time is the time since the previous child came back)
    last = first = time.perf_counter()
    children = 0

    def observe(tested: Any) -> None:
        nonlocal ran_zero, zero_s, last, first, children
        now = time.perf_counter()
        if children == 0:
            first = now  # the window of the children: start-up and seeds are not in it
        elif not tested.skipped and tested.result.input_digest == tested.parent.digest:
            ran_zero += 1
            zero_s += now - last
        children += 1
        last = now

    engine.child_observer = observe
    finished = None
    children_before = _children_cpu()
    startup = own_start = 0.0
    for event in engine.run():
        if isinstance(event, CampaignStarted):  # workers ready: their start-up is not counted
            own_start = time.process_time()
            startup = sum(_pid_cpu(w.info.pid) for w in engine._pool.workers if w.info)
        elif isinstance(event, CampaignFinished):
            finished = event
    assert finished is not None
    cpu_s = time.process_time() - own_start + _children_cpu() - children_before - startup
    stats = finished.stats
    useful = stats.execs - ran_zero
    return engine, {
        "execs": stats.execs,
        "skipped": stats.zero_mutations_skipped,
        "zero_run": ran_zero,
        "useful": useful,
        "elapsed_s": stats.elapsed_s,
        "useful_per_s": round(useful / stats.elapsed_s, 2) if stats.elapsed_s else 0.0,
        "zero_s": round(zero_s, 3),
        "children_s": round(last - first, 3),  # from the first child's result to the last's
        "cpu_s": round(cpu_s, 3),
        "useful_per_cpu_s": round(useful / cpu_s, 2) if cpu_s > 0 else 0.0,
        "corpus": [(e.name, e.seed, e.digest.hex()) for e in engine.queue],
        "failures": sorted(engine.failures),
        "coverage": stats.app_branches_covered,
    }


def trio(
    name: str, mode: str, args: argparse.Namespace, tmp: Path, *, on_first: bool
) -> tuple[Any, dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The three campaigns of one lambda and mode.  The plain-draw pair makes the same
    children: skipping on with `--execs` executions then off with as many more as were
    skipped, or (every other lambda and mode, so that neither always runs first) off with
    `--execs` then on with as many fewer as zero mutations ran; the changed-draw campaign
    runs between them."""

    def run(skip: bool, execs: int) -> tuple[Any, dict[str, Any]]:
        out = tmp / f"{name}-{mode}-{'on' if skip else 'off'}"
        return campaign(
            name,
            mode=mode,
            execs=execs,
            seed=args.seed,
            skip=skip,
            out_dir=out,
            strategy=args.strategy,
        )

    def run_changed() -> dict[str, Any]:
        out = tmp / f"{name}-{mode}-changed"
        return campaign(
            name,
            mode=mode,
            execs=args.execs,
            seed=args.seed,
            skip=True,
            out_dir=out,
            strategy=args.strategy,
            change=True,
        )[1]

    if on_first:
        engine, on = run(True, args.execs)
        changed = run_changed()
        _, off = run(False, args.execs + on["skipped"])
    else:
        _, off = run(False, args.execs)
        changed = run_changed()
        engine, on = run(True, args.execs - off["zero_run"])
    return engine, on, off, changed


def _children_cpu() -> float:
    """CPU seconds of this process' finished, waited-for children (its workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _pid_cpu(pid: int) -> float:
    """CPU seconds a running process has used so far (/proc/PID/stat utime + stime)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def check_costs(engine: Any) -> dict[str, float | None]:
    """Milliseconds per child: reported identical by a worker, run in full by it, and
    generated in this (the campaign's) process; medians over the campaign's saved inputs."""
    from lambdafuzz.generators.aws.world_generator import generate_input
    from lambdafuzz.harness.process.protocol import TestRequest, WorkerSpec, choices_for
    from lambdafuzz.harness.process.worker import Worker

    options = engine.options
    spec = WorkerSpec(
        target=options.target,
        policy=options.policy,
        memory_limit_mb=options.memory_limit_mb,
    )
    entries = engine.queue[:PROBE_INPUTS]
    skipped: list[float] = []
    skipped_generation: list[float] = []
    full: list[float] = []
    local: list[float] = []
    worker = Worker(spec)
    try:
        for entry in entries:
            prefix = entry.sequence.prefix(options.mode)
            same = TestRequest(prefix, entry.seed, options.mode, parent_digest=entry.digest)
            plain = TestRequest(prefix, entry.seed, options.mode)
            for _ in range(PROBE_CALLS):
                start = time.perf_counter()
                result = worker.run(same)
                skipped.append(time.perf_counter() - start)
                assert result.identical, "a saved input replayed as its own child must be identical"
                skipped_generation.append(result.timings.generate_s)
                start = time.perf_counter()
                worker.run(plain)
                full.append(time.perf_counter() - start)
                start = time.perf_counter()
                generate_input(choices_for(spec, plain), spec.target)
                local.append(time.perf_counter() - start)
    finally:
        worker.close()
    return {
        "identical_ms": _median_ms(skipped),
        "identical_generate_ms": _median_ms(skipped_generation),
        "full_ms": _median_ms(full),
        "generate_in_campaign_ms": _median_ms(local),
    }


def _median_ms(values: list[float]) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return round(1000 * values[len(values) // 2], 3)


HEADERS = [
    "lambda",
    "mode",
    "zero share (plain)",
    "target",
    "useful/s off",
    "skip / off",
    "changed / off",
    "useful/CPU s off",
    "skip / off (CPU)",
    "changed / off (CPU)",
    "no zero, same children / off",
    "met",
    "zero made (changed)",
    "same corpus",
    "identical child ms",
    "of it generation",
    "full test ms",
]


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def table(records: list[dict[str, Any]]) -> str:
    rows = []
    for r in records:
        on, off, changed, cost = r["on"], r["off"], r.get("changed"), r["costs"]
        made = on["execs"] + on["skipped"]
        share = on["skipped"] / made if made else 0.0
        skip_ratio = _ratio(on["useful_per_s"], off["useful_per_s"])
        skip_cpu = _ratio(on["useful_per_cpu_s"], off["useful_per_cpu_s"])
        if changed is None:  # a --json from before the changed-draw campaign existed
            changed_ratio = changed_cpu = None
            zero_made = "–"
        else:
            changed_ratio = _ratio(changed["useful_per_s"], off["useful_per_s"])
            changed_cpu = _ratio(changed["useful_per_cpu_s"], off["useful_per_cpu_s"])
            zero_made = str(changed["skipped"] + changed["zero_run"])
        target = 1 + share
        zero_s = off.get("zero_s")
        window = off.get("children_s") or off["elapsed_s"]  # older --json: the whole run
        same_children = (
            window / (window - zero_s) if zero_s is not None and window > zero_s else None
        )
        met = "–" if same_children is None else ("yes" if same_children >= target else "no")
        rows.append(
            [
                r["lambda"],
                r["mode"],
                f"{100 * share:.1f}%",
                f"x{target:.3f}",
                f"{off['useful_per_s']:.1f}",
                _x(skip_ratio),
                _x(changed_ratio),
                f"{off['useful_per_cpu_s']:.1f}",
                _x(skip_cpu),
                _x(changed_cpu),
                _x(same_children),
                met,
                zero_made,
                "yes" if r["same_corpus"] else "NO",
                _ms(cost.get("identical_ms")),
                _ms(cost.get("identical_generate_ms")),
                _ms(cost.get("full_ms")),
            ]
        )
    return markdown_table(HEADERS, rows, "ll" + "r" * (len(HEADERS) - 2))


def _x(ratio: float | None) -> str:
    return "–" if ratio is None else f"x{ratio:.3f}"


def _ms(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Zero mutations skipped vs run (make bench).")
    parser.add_argument("--lambdas", default="all", help="comma-separated names, or 'all'")
    parser.add_argument("--modes", default="ei,linear", help="replay modes, comma-separated")
    parser.add_argument("--execs", type=int, default=300, help="executions with skipping on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--strategy",
        default="zest",
        help="zest (the default strategy) or spoton, whose targeted children repeat their "
        "parent far more often",
    )
    parser.add_argument("--no-costs", action="store_true", help="skip the check-cost probe")
    parser.add_argument("--json", type=Path, default=None, help="also write all measurements")
    parser.add_argument("--from-json", type=Path, default=None, help="reprint a --json table")
    args = parser.parse_args(argv)
    if args.from_json:
        document = json.loads(args.from_json.read_text())
        print(table(document["records"]))
        return 0
    names = all_lambdas() if args.lambdas == "all" else [n for n in args.lambdas.split(",") if n]
    modes = [m for m in args.modes.split(",") if m]
    info = machine.describe()
    started = machine.now()
    print(
        f"zero mutations skipped vs run, {started}: {info['nproc']} cores, {info['cpu']}, "
        f"load average {info['load_start']}; {args.strategy}, seed {args.seed}, "
        f"{args.execs} executions",
        flush=True,
    )
    records = []
    with tempfile.TemporaryDirectory(prefix="lambdafuzz-zero-") as tmp_name:
        tmp = Path(tmp_name)
        for index, (name, mode) in enumerate((n, m) for n in names for m in modes):
            engine, on, off, changed = trio(name, mode, args, tmp, on_first=index % 2 == 0)
            same = on["corpus"] == off["corpus"] and on["failures"] == off["failures"]
            records.append(
                {
                    "lambda": name,
                    "mode": mode,
                    "on": on,
                    "off": off,
                    "changed": changed,
                    "costs": {} if args.no_costs else check_costs(engine),
                    "same_corpus": same,
                    "first": "on" if index % 2 == 0 else "off",
                }
            )
            print(
                f"  {name} {mode}: plain draws skipped {on['skipped']}; useful/s "
                f"{changed['useful_per_s']:.1f} changed, {on['useful_per_s']:.1f} skip, "
                f"{off['useful_per_s']:.1f} off" + ("" if same else "  (saved inputs differ!)"),
                flush=True,
            )
    print()
    print(table(records))
    print(f"\nload average at the end: {machine.load_average()}")
    if args.json:
        info["load_end"] = machine.load_average()
        args.json.write_text(
            json.dumps(
                {"date": started, "machine": info, "args": vars(args), "records": records},
                indent=1,
                default=str,
            )
        )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
