"""The havoc effect in our generators, per replay mode: mutation distance (the Havoc Paradox
paper's Figures 6 and 7), zero mutations (its Figure 8) and validity preservation.

One run is one seeded campaign (one lambda, one replay mode, the real engine with its real
mutator and worker) whose `Engine.child_observer` is a `ChildLog`: for every child it keeps
the parent, the child's request (prefix and seed), its mutation, its outcome, whether it
was saved and whether the engine skipped it as a zero mutation.  After the campaign, since
generation is pure, every child's input and its parent's are regenerated in this process
exactly as the worker made them (`choices_for` + `generate_input`; no emulator, no
handler), serialised canonically (`serialise`) and compared:

* **mutation distance**: the normalised Levenshtein distance (rapidfuzz) between the
  parent's and the child's serialised input (`distance`); inputs longer than `MAX_EXACT`
  bytes are compared on `WINDOWS` windows taken at the same relative offsets (an estimate);
* **zero mutations**: children whose serialised input equals the parent's (distance 0).
  The engine skips the ones that read exactly the parent's values (`skipped`), a subset:
  different values can still make the same input (a weighted choice landing on the same
  option);
* **validity preservation**: of the children of VALID parents that ran, the share that was
  VALID, per replay mode and mutation kind (random havoc, or targeted at a type label).

`benchmarks/havoc.py` is the command line (runs in child processes, resumable, then the
report); `python -m benchmarks.study.havoc run ...` is one run.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Serialised inputs up to this many bytes get the exact distance (~8 ms for two unrelated
#: 15 KB inputs; the benchmark lambdas' inputs are 1-3 KB at the median, 15 KB at most).
MAX_EXACT = 32_768
#: Beyond MAX_EXACT: this many windows of WINDOW bytes from each input, at the same relative
#: offsets, concatenated and compared (a sample of the alignment, not an exact distance).
WINDOWS = 16
WINDOW = 2_048
MODES = ("linear", "ei")
KINDS = ("random", "targeted")
RESULT_NAME = "havoc.json"


# ------------------------------------------------------------------------ inputs and distance
def serialise(generated: Any) -> bytes:
    """A generated input as bytes, canonically: the event (rendered offline, with the same
    placeholders for what only an emulator knows, so parent and child differ only where
    their inputs do), then every S3 object (its URL, content type and metadata, then its
    body), every DynamoDB item (JSON, keys sorted) and every queue message (body,
    attributes, FIFO ids), in the order the generators made them, one per line."""
    from lambdafuzz.harness.process.worker import offline_event

    parts = [json.dumps(offline_event(generated), sort_keys=True, default=str).encode()]
    world = generated.world
    for bucket in world.buckets:
        for obj in bucket.objects:
            head = {"s3": f"{bucket.name}/{obj.key}", "type": obj.content_type}
            if obj.metadata:
                head["metadata"] = [list(pair) for pair in obj.metadata]
            parts.append(json.dumps(head, sort_keys=True).encode())
            parts.append(obj.data)
    for table in world.tables:
        for item in table.items:
            parts.append(json.dumps({table.name: item}, sort_keys=True, default=str).encode())
    for queue in world.queues:
        for message in queue.messages:
            fields = [message.body, [list(a) for a in message.attributes]]
            if message.group_id is not None or message.deduplication_id is not None:
                fields += [message.group_id, message.deduplication_id]
            parts.append(json.dumps({queue.name: fields}).encode())
    return b"\n".join(parts)


def distance(a: bytes, b: bytes) -> float:
    """Normalised Levenshtein distance in [0, 1]: edits / the longer length (0 iff equal)."""
    if a == b:
        return 0.0
    from rapidfuzz.distance import Levenshtein

    if max(len(a), len(b)) > MAX_EXACT:
        a, b = _windows(a), _windows(b)
        if a == b:  # differences outside every window: still not the same input
            return 1.0 / MAX_EXACT
    return float(Levenshtein.normalized_distance(a, b))


def _windows(data: bytes) -> bytes:
    if len(data) <= WINDOWS * WINDOW:
        return data
    last = len(data) - WINDOW
    return b"".join(
        data[last * i // (WINDOWS - 1) : last * i // (WINDOWS - 1) + WINDOW] for i in range(WINDOWS)
    )


@dataclass(slots=True)
class Regenerator:
    """Regenerates inputs in this process exactly as a worker of the campaign did."""

    spec: Any  # the campaign's WorkerSpec (target and dictionary)
    mode: Any  # ReplayMode

    def input(self, prefix: Any, seed: int) -> tuple[bytes | None, bytes]:
        """(serialised input, or None when generation stopped; values digest)."""
        from lambdafuzz.generators.aws.world_generator import generate_input
        from lambdafuzz.harness.process.protocol import TestRequest, choices_for, values_digest

        choices = choices_for(self.spec, TestRequest(prefix, seed, self.mode))
        try:
            generated = generate_input(choices, self.spec.target)
        except Exception:  # noqa: BLE001 - an assumption or a generator error: no input to compare
            return None, values_digest(choices.choices)
        return serialise(generated), values_digest(choices.choices)


# ------------------------------------------------------------------------ the probe
@dataclass(slots=True)
class LoggedChild:
    parent: Any  # the engine's Entry
    prefix: Any
    seed: int
    targeted: str | None
    positions: int
    status: str | None  # None: skipped (not run)
    saved: bool
    skipped: bool
    digest: bytes  # values_digest of what the worker read (b"" when skipped)


class ChildLog:
    """An `Engine.child_observer` that keeps what the distance measurement needs."""

    def __init__(self) -> None:
        self.children: list[LoggedChild] = []

    def __call__(self, tested: Any) -> None:
        from lambdafuzz.harness.process.protocol import values_digest

        mutation = tested.mutation
        result = tested.result
        self.children.append(
            LoggedChild(
                parent=tested.parent,
                prefix=tested.request.prefix,
                seed=tested.request.seed,
                targeted=mutation.targeted if mutation is not None else None,
                positions=mutation.positions if mutation is not None else 0,
                status=None if tested.skipped else result.status.name,
                saved=tested.saved,
                skipped=tested.skipped,
                digest=b"" if tested.skipped else values_digest(result.recording.choices),
            )
        )


def measure_children(
    children: Sequence[LoggedChild], regenerator: Regenerator, *, sample: int = 0, seed: int = 0
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One record per child, with its distance when it is measured: every child, or (with
    `sample`) that many run children drawn with `seed` plus every skipped one (distance 0
    by construction).  Also what regeneration cost and whether it matched the worker."""
    run = [i for i, c in enumerate(children) if not c.skipped]
    chosen = (
        set(run)
        if not sample or sample >= len(run)
        else set(random.Random(seed).sample(run, sample))
    )
    parents: dict[int, bytes | None] = {}
    records: list[dict[str, Any]] = []
    seconds: list[float] = []
    mismatched = 0
    for i, child in enumerate(children):
        record: dict[str, Any] = {
            "parent": child.parent.id,
            "parent_valid": bool(child.parent.valid),
            "kind": "targeted" if child.targeted else "random",
            "label": child.targeted,
            "positions": child.positions,
            "status": child.status,
            "saved": child.saved,
            "skipped": child.skipped,
            "distance": None,
            "zero": None,
        }
        if child.skipped:
            record["distance"], record["zero"] = 0.0, True
        elif i in chosen:
            parent = child.parent
            if parent.id not in parents:
                parents[parent.id] = regenerator.input(
                    parent.sequence.prefix(regenerator.mode), parent.seed
                )[0]
            start = time.perf_counter()
            data, digest = regenerator.input(child.prefix, child.seed)
            seconds.append(time.perf_counter() - start)
            if digest != child.digest:
                mismatched += 1
                record["regenerated_differently"] = True
            before = parents[parent.id]
            if data is None or before is None:
                record["no_input"] = True
            else:
                record["distance"] = round(distance(before, data), 6)
                record["zero"] = data == before
                record["size"] = len(data)
        records.append(record)
    seconds.sort()
    timing = {
        "measured": len(seconds),
        "regenerate_ms_median": round(1000 * seconds[len(seconds) // 2], 3) if seconds else None,
        "regenerate_ms_mean": round(1000 * sum(seconds) / len(seconds), 3) if seconds else None,
        "regenerated_differently": mismatched,
    }
    return records, timing


def measure_run(
    lambda_dir: Path,
    *,
    mode: str,
    seed: int,
    execs: int,
    strategy: str,
    out_dir: Path,
    sample: int = 0,
) -> dict[str, Any]:
    """One campaign with the child log, then its children measured: the run's document."""
    from lambdafuzz.config import load_config
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.fuzzer.events import CampaignFinished
    from lambdafuzz.generators.core import ReplayMode
    from lambdafuzz.harness.process.protocol import WorkerSpec

    target = load_config(lambda_dir)
    engine = build_engine(
        target,
        out_dir=out_dir / "campaign",
        strategy=strategy,
        seed=seed,
        max_execs=execs,
        mode=mode,
        workers=1,
        # the regenerator below draws fresh values at the full size scale: so must the campaign
        size_schedule=False,
    )
    log = ChildLog()
    engine.child_observer = log
    started = time.perf_counter()
    finished = None
    for event in engine.run():
        if isinstance(event, CampaignFinished):
            finished = event
    assert finished is not None
    campaign_s = time.perf_counter() - started
    options = engine.options
    spec = WorkerSpec(target=target, policy=options.policy)
    started = time.perf_counter()
    records, timing = measure_children(
        log.children, Regenerator(spec, ReplayMode(mode)), sample=sample, seed=seed
    )
    timing["measure_s"] = round(time.perf_counter() - started, 2)
    timing["campaign_s"] = round(campaign_s, 2)
    return {
        "run": run_key(lambda_dir.name, mode, seed, execs, strategy, sample),
        "stats": finished.stats.to_json(),
        "timing": timing,
        "children": records,
    }


def run_key(
    lambda_name: str, mode: str, seed: int, execs: int, strategy: str, sample: int
) -> dict[str, Any]:
    """What identifies a run: a finished run is reused only when all of it matches."""
    return {
        "lambda": lambda_name,
        "mode": mode,
        "seed": seed,
        "execs": execs,
        "strategy": strategy,
        "sample": sample,
    }


# ------------------------------------------------------------------------ aggregation
def quantiles(values: Sequence[float]) -> dict[str, Any]:
    """n, quartiles and mean (None when there are no values)."""
    xs = sorted(values)
    if not xs:
        return {"n": 0, "q1": None, "median": None, "q3": None, "mean": None}

    def q(p: float) -> float:
        k = (len(xs) - 1) * p
        lo, hi = math.floor(k), math.ceil(k)
        return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

    return {
        "n": len(xs),
        "q1": round(q(0.25), 4),
        "median": round(q(0.5), 4),
        "q3": round(q(0.75), 4),
        "mean": round(sum(xs) / len(xs), 4),
    }


def nonzero_distances(
    children: Iterable[Mapping[str, Any]], *, saved: bool | None = None, kind: str | None = None
) -> list[float]:
    """Distances of measured children that are real mutants (distance > 0, as the paper
    plots them), optionally only saved ones or one mutation kind."""
    return [
        c["distance"]
        for c in children
        if c["distance"]
        and (saved is None or c["saved"] == saved)
        and (kind is None or c["kind"] == kind)
    ]


def validity(children: Iterable[Mapping[str, Any]], kind: str | None = None) -> dict[str, Any]:
    """Children of VALID parents that ran (zero mutations the engine skipped excluded; so
    are measured children identical to their parent): how many, how many VALID."""
    pool = [
        c
        for c in children
        if c["parent_valid"]
        and not c["skipped"]
        and c["zero"] is not True
        and (kind is None or c["kind"] == kind)
    ]
    valid = sum(1 for c in pool if c["status"] == "VALID")
    return {
        "children": len(pool),
        "valid": valid,
        "share": round(valid / len(pool), 4) if pool else None,
    }


def zero_shares(children: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Zero mutations among all children: skipped by the engine (same values read), and
    identical inputs (skipped + measured children with distance 0, scaled up from the
    measured share of the children that ran when only a sample was measured)."""
    total = len(children)
    skipped = sum(1 for c in children if c["skipped"])
    ran = [c for c in children if not c["skipped"]]
    measured = [c for c in ran if c["zero"] is not None]
    zero_ran = sum(1 for c in measured if c["zero"])
    estimate = skipped + (zero_ran / len(measured) * len(ran) if measured else 0.0)
    return {
        "children": total,
        "skipped": skipped,
        "skipped_share": round(skipped / total, 4) if total else None,
        "identical_ran": zero_ran,
        "measured_ran": len(measured),
        "zero_share": round(estimate / total, 4) if total else None,
    }


def aggregate(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Every number of the report, per lambda and mode, from the runs' documents."""
    from benchmarks.study.statistics import a12, mann_whitney, summarize

    cells: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
    for run in runs:
        key = run["run"]
        cells.setdefault(key["lambda"], {}).setdefault(key["mode"], []).append(run)
    lambdas: dict[str, Any] = {}
    for name in sorted(cells):
        by_mode: dict[str, Any] = {}
        for mode in [m for m in MODES if m in cells[name]]:
            mode_runs = cells[name][mode]
            children = [c for r in mode_runs for c in r["children"]]
            coverage = [int(r["stats"]["app_branches_covered"]) for r in mode_runs]
            by_mode[mode] = {
                "reps": len(mode_runs),
                "seeds": sorted(r["run"]["seed"] for r in mode_runs),
                "children": len(children),
                "saved": sum(1 for c in children if c["saved"]),
                "zero": zero_shares(children),
                "zero_by_kind": {
                    k: zero_shares([c for c in children if c["kind"] == k]) for k in KINDS
                },
                "distance_all": quantiles(nonzero_distances(children)),
                "distance_saved": quantiles(nonzero_distances(children, saved=True)),
                "distance_by_kind": {
                    k: quantiles(nonzero_distances(children, kind=k)) for k in KINDS
                },
                "validity": {"all": validity(children)} | {k: validity(children, k) for k in KINDS},
                "coverage": summarize(coverage).to_json() if coverage else None,
                "coverage_values": coverage,
                "valid_coverage": summarize(
                    [int(r["stats"]["valid_branches_covered"]) for r in mode_runs]
                ).to_json(),
                "failures": summarize(
                    [int(r["stats"]["unique_failures"]) for r in mode_runs]
                ).to_json(),
                "failures_values": [int(r["stats"]["unique_failures"]) for r in mode_runs],
                "branches_total": int(mode_runs[0]["stats"]["app_branches_total"]),
                "valid_share": _share(
                    sum(int(r["stats"]["valid_execs"]) for r in mode_runs),
                    sum(int(r["stats"]["execs"]) for r in mode_runs),
                ),
                "regenerated_differently": sum(
                    int(r["timing"].get("regenerated_differently", 0)) for r in mode_runs
                ),
                "regenerate_ms_median": _median(
                    [r["timing"]["regenerate_ms_median"] for r in mode_runs]
                ),
            }
        _at_common_time(cells[name], by_mode)
        compare = None
        if "linear" in by_mode and "ei" in by_mode:
            ei, linear = by_mode["ei"]["coverage_values"], by_mode["linear"]["coverage_values"]
            ei_f, linear_f = by_mode["ei"]["failures_values"], by_mode["linear"]["failures_values"]
            compare = {
                "coverage_p": mann_whitney(ei, linear),
                "coverage_a12_ei_over_linear": a12(ei, linear),
                "failures_p": mann_whitney(ei_f, linear_f),
            }
            ei_t = by_mode["ei"].get("coverage_at_time_values")
            linear_t = by_mode["linear"].get("coverage_at_time_values")
            if ei_t and linear_t:
                compare["coverage_at_time_p"] = mann_whitney(ei_t, linear_t)
        lambdas[name] = {"modes": by_mode, "ei_vs_linear": compare}
    return {"lambdas": lambdas}


def _at_common_time(
    runs_by_mode: Mapping[str, Sequence[Mapping[str, Any]]], by_mode: dict[str, Any]
) -> None:
    """Coverage at the same wall time: at the end of the shortest campaign of the lambda
    (either mode), from each run's plot_data.csv rows (`plot`, attached by the loader);
    plus executions per second.  Wall time depends on the machine's load, executions do not."""
    from benchmarks.study.statistics import summarize

    runs = [r for mode_runs in runs_by_mode.values() for r in mode_runs]
    if not runs or any(not r.get("plot") for r in runs):
        return
    common = min(float(r["stats"]["elapsed_s"]) for r in runs)
    for mode, mode_runs in runs_by_mode.items():
        if mode not in by_mode:
            continue
        reached = [
            max((int(b) for t, _, b in r["plot"] if t <= common), default=0) for r in mode_runs
        ]
        by_mode[mode]["common_time_s"] = round(common, 1)
        by_mode[mode]["coverage_at_time"] = summarize(reached).to_json()
        by_mode[mode]["coverage_at_time_values"] = reached
        by_mode[mode]["execs_per_s"] = _median(
            [float(r["stats"]["execs_per_sec"]) for r in mode_runs]
        )


def read_plot(campaign_dir: Path) -> list[tuple[float, int, int]]:
    """(seconds, executions, branches) rows of a campaign's plot_data.csv ([] if none)."""
    try:
        lines = (campaign_dir / "plot_data.csv").read_text().splitlines()[1:]
    except OSError:
        return []
    rows = []
    for line in lines:
        fields = line.split(",")
        rows.append((float(fields[0]), int(fields[1]), int(fields[2])))
    return rows


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _median(values: Sequence[float | None]) -> float | None:
    xs = sorted(v for v in values if v is not None)
    if not xs:
        return None
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


# ------------------------------------------------------------------------ report
def render(results: Mapping[str, Any]) -> str:
    """report.md: what was run, then one table per question."""
    from benchmarks.study.tables import fmt_p, markdown_table

    meta = results["meta"]
    lambdas = results["lambdas"]
    out = [
        "# Havoc effect: mutation distance, zero mutations, validity preservation",
        "",
        f"Measured {meta['date']} with `{meta['command']}` ({meta['wall_s']:.0f} s wall; "
        f"campaigns {meta['campaign_s']:.0f} s, regenerating and comparing the children "
        f"{meta['measure_s']:.0f} s). "
        f"Machine: {meta['machine']['nproc']} cores, {meta['machine']['cpu']}, Python "
        f"{meta['machine']['python']}; load average {meta['machine']['load_start']} -> "
        f"{meta['machine'].get('load_end', '?')}.",
        "",
        f"Strategy `{meta['strategy']}`, {meta['execs']} executions per campaign (zero "
        "mutations skipped by the engine are not executions), seeds "
        f"{meta['seed_base']}..{meta['seed_base'] + meta['reps'] - 1}, 1 worker; "
        + (
            "every child measured."
            if not meta["sample"]
            else f"{meta['sample']} run children per campaign measured (seeded sample)."
        ),
        "",
        "Distances are normalised Levenshtein distances between the parent's and the child's "
        "serialised input (event, then every S3 object, DynamoDB item and queue message); "
        "quartiles are over the children with distance > 0, as in the paper (zero mutations "
        "are counted separately).",
        "",
        "## Mutation distance (Figures 6 and 7)",
        "",
        "![Figure 6, linear](plots/figure6-linear.png)",
        "![Figure 6, EI](plots/figure6-ei.png)",
        "![Figure 7](plots/figure7.png)",
        "",
    ]
    rows = []
    for name, cell in lambdas.items():
        for mode, m in cell["modes"].items():
            rows.append(
                [
                    name,
                    mode,
                    m["children"],
                    _q(m["distance_all"]),
                    _q(m["distance_saved"]),
                    m["distance_saved"]["n"],
                    _q(m["distance_by_kind"]["random"]),
                    _q(m["distance_by_kind"]["targeted"]),
                ]
            )
    out.append(
        markdown_table(
            [
                "lambda",
                "mode",
                "children",
                "all: median [q1, q3]",
                "saved: median [q1, q3]",
                "saved",
                "random",
                "targeted",
            ],
            rows,
            "llrllrll",
        )
    )
    out += ["", "## Zero mutations (Figure 8)", "", "![Figure 8](plots/figure8.png)", ""]
    rows = []
    for name, cell in lambdas.items():
        for mode, m in cell["modes"].items():
            z = m["zero"]
            rows.append(
                [
                    name,
                    mode,
                    z["children"],
                    _pct(z["zero_share"]),
                    f"{z['skipped']} ({_pct(z['skipped_share'])})",
                    z["identical_ran"],
                    *(_pct(m["zero_by_kind"][k]["zero_share"]) for k in KINDS),
                ]
            )
    out.append(
        markdown_table(
            [
                "lambda",
                "mode",
                "children",
                "identical input",
                "skipped (same values)",
                "identical, run anyway",
                "identical: random children",
                "targeted children",
            ],
            rows,
            "llrrrrrr",
        )
    )
    out += ["", "## Validity preservation", ""]
    out.append(
        "Children of VALID parents that ran and differ from their parent: the share that is "
        "VALID (children / VALID)."
    )
    out.append("")
    rows = []
    for name, cell in lambdas.items():
        for mode, m in cell["modes"].items():
            v = m["validity"]
            rows.append([name, mode, *(_v(v[k]) for k in ("all", *KINDS)), _pct(m["valid_share"])])
    out.append(
        markdown_table(
            ["lambda", "mode", "all", "random", "targeted", "valid share of all executions"],
            rows,
            "llrrrr",
        )
    )
    out += ["", "## Coverage at the same budget", ""]
    rows = []
    for name, cell in lambdas.items():
        modes = cell["modes"]
        compare = cell["ei_vs_linear"] or {}
        a12_value = compare.get("coverage_a12_ei_over_linear")
        rows.append(
            [
                name,
                modes.get("linear", {}).get("branches_total", ""),
                *(_cov(modes.get(mode)) for mode in MODES),
                fmt_p(compare.get("coverage_p")),
                "–" if a12_value is None else f"{a12_value:.2f}",
                *(_cov(modes.get(mode), "valid_coverage") for mode in MODES),
                *(_cov(modes.get(mode), "failures") for mode in MODES),
                fmt_p(compare.get("failures_p")),
            ]
        )
    out.append(
        "Application branch arms covered per campaign (median and mean over seeds), the "
        "arms covered by VALID inputs, and unique failures found."
    )
    out.append("")
    out.append(
        markdown_table(
            [
                "lambda",
                "arms",
                "linear: median (mean)",
                "EI: median (mean)",
                "p (Mann-Whitney)",
                "A12 (EI over linear)",
                "valid arms, linear",
                "valid arms, EI",
                "failures, linear",
                "failures, EI",
                "p (failures)",
            ],
            rows,
        )
    )
    rows = []
    for name, cell in lambdas.items():
        modes = cell["modes"]
        if not all("coverage_at_time" in modes.get(m, {}) for m in MODES):
            continue
        rows.append(
            [
                name,
                modes["ei"]["common_time_s"],
                *(_cov(modes[m], "coverage_at_time") for m in MODES),
                fmt_p((cell["ei_vs_linear"] or {}).get("coverage_at_time_p")),
                *(f"{modes[m]['execs_per_s']:.1f}" for m in MODES),
            ]
        )
    if rows:
        out += [
            "",
            "At the same wall time (the end of the lambda's shortest campaign; wall time "
            "depends on the machine's load, shared here):",
            "",
            markdown_table(
                [
                    "lambda",
                    "seconds",
                    "linear: median (mean)",
                    "EI: median (mean)",
                    "p (Mann-Whitney)",
                    "execs/s linear",
                    "execs/s EI",
                ],
                rows,
            ),
        ]
    problems = [
        f"{name}/{mode}: {m['regenerated_differently']}"
        for name, cell in lambdas.items()
        for mode, m in cell["modes"].items()
        if m["regenerated_differently"]
    ]
    out += [
        "",
        "Regeneration check: every measured child was regenerated in the study process and "
        "its values compared with what the worker read; children regenerated differently: "
        + (", ".join(problems) if problems else "none")
        + ".",
        "",
    ]
    return "\n".join(out)


def _q(q: Mapping[str, Any]) -> str:
    if not q["n"]:
        return "–"
    return f"{q['median']:.3f} [{q['q1']:.3f}, {q['q3']:.3f}]"


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.1f}%"


def _v(v: Mapping[str, Any]) -> str:
    return "–" if not v["children"] else f"{_pct(v['share'])} ({v['children']})"


def _cov(m: Mapping[str, Any] | None, key: str = "coverage") -> str:
    if not m or not m.get(key):
        return "–"
    return f"{m[key]['median']:g} ({m[key]['mean']:.1f})"


# ------------------------------------------------------------------------ plots
ALL_COLOR = "tab:orange"
SAVED_COLOR = "#b4a7d6"  # lavender, as in the paper
MODE_COLORS = {"linear": "tab:orange", "ei": "tab:blue"}


def plot_all(runs: Sequence[Mapping[str, Any]], out_dir: Path) -> list[Path]:
    """Figure 6 per mode (all | saved children), Figure 7 (linear | EI, all children) and
    Figure 8 (zero-mutation shares), lambdas along the x axis."""
    by_cell: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for run in runs:
        key = run["run"]
        by_cell.setdefault((key["lambda"], key["mode"]), []).extend(run["children"])
    names = sorted({name for name, _ in by_cell})
    modes = [m for m in MODES if any((n, m) in by_cell for n in names)]
    paths = []
    for mode in modes:
        pairs = [
            (
                nonzero_distances(by_cell.get((n, mode), ())),
                nonzero_distances(by_cell.get((n, mode), ()), saved=True),
            )
            for n in names
        ]
        paths.append(
            _split_violins(
                names,
                pairs,
                ("all children", "saved children"),
                (ALL_COLOR, SAVED_COLOR),
                f"Mutation distance, {mode} replay: all (left) vs saved (right) children",
                out_dir / f"figure6-{mode}.png",
            )
        )
    if len(modes) == 2:
        pairs = [
            tuple(nonzero_distances(by_cell.get((n, m), ())) for m in MODES)  # type: ignore[misc]
            for n in names
        ]
        paths.append(
            _split_violins(
                names,
                pairs,
                ("linear", "EI"),
                (MODE_COLORS["linear"], MODE_COLORS["ei"]),
                "Mutation distance of all children: linear (left) vs EI (right)",
                out_dir / "figure7.png",
            )
        )
    paths.append(_zero_bars(names, modes, by_cell, out_dir / "figure8.png"))
    return paths


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _split_violins(
    names: Sequence[str],
    pairs: Sequence[tuple[list[float], list[float]]],
    labels: tuple[str, str],
    colors: tuple[str, str],
    title: str,
    path: Path,
) -> Path:
    from matplotlib.patches import Patch

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 1.3 * len(names) + 1.5), 4.2), constrained_layout=True)
    for x, (left, right) in enumerate(pairs):
        for side, data, color in (("left", left, colors[0]), ("right", right, colors[1])):
            _half_violin(ax, data, x, side, color)
        ax.text(x, -0.07, f"n={len(left)}|{len(right)}", ha="center", va="top", fontsize=7)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylim(-0.12, 1.02)
    ax.set_ylabel("normalised Levenshtein distance")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(
        handles=[Patch(color=colors[0], label=labels[0]), Patch(color=colors[1], label=labels[1])],
        loc="upper right",
        fontsize=8,
    )
    ax.set_title(
        title + "\n(gold: median, dotted: quartiles; distance-0 children left out)", fontsize=9
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _half_violin(ax: Any, data: Sequence[float], x: float, side: str, color: str) -> None:
    """One half of a split violin at `x` ("left" or "right"), its median and quartiles."""
    import numpy as np

    if not data:
        return
    lo, hi = (x - 0.4, x) if side == "left" else (x, x + 0.4)
    if len(set(data)) > 1:
        parts = ax.violinplot([list(data)], positions=[x], widths=0.8, showextrema=False)
        for body in parts["bodies"]:
            vertices = body.get_paths()[0].vertices
            vertices[:, 0] = np.clip(vertices[:, 0], lo, hi)
            body.set_facecolor(color)
            body.set_edgecolor("black")
            body.set_linewidth(0.5)
            body.set_alpha(0.8)
    q1, median, q3 = np.percentile(np.asarray(data, dtype=float), [25, 50, 75])
    ax.hlines(median, lo, hi, color="gold", linewidth=2)
    ax.hlines([q1, q3], lo, hi, color="black", linestyles="dotted", linewidth=1)


def _zero_bars(
    names: Sequence[str],
    modes: Sequence[str],
    by_cell: Mapping[tuple[str, str], list[Mapping[str, Any]]],
    path: Path,
) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(names) + 1.5), 3.6), constrained_layout=True)
    width = 0.8 / max(1, len(modes))
    for j, mode in enumerate(modes):
        shares = [
            100 * (zero_shares(by_cell.get((n, mode), ()))["zero_share"] or 0.0) for n in names
        ]
        xs = [i + (j - (len(modes) - 1) / 2) * width for i in range(len(names))]
        ax.bar(xs, shares, width, label=mode, color=MODE_COLORS.get(mode))
        for x, share in zip(xs, shares, strict=True):
            ax.text(x, share, f"{share:.1f}", ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(names)), names, rotation=20, ha="right")
    ax.set_ylabel("% of children identical to parent")
    ax.set_title("Zero mutations per replay mode", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ------------------------------------------------------------------------ one run, as a process
def main(argv: list[str] | None = None) -> int:
    """`python -m benchmarks.study.havoc run ...`: one run, written to OUT/havoc.json."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.study.havoc")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="one campaign and its children's distances")
    run.add_argument("--lambda-dir", type=Path, required=True)
    run.add_argument("--mode", choices=MODES, required=True)
    run.add_argument("--seed", type=int, required=True)
    run.add_argument("--execs", type=int, required=True)
    run.add_argument("--strategy", default="spoton")
    run.add_argument("--sample", type=int, default=0)
    run.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    document = measure_run(
        args.lambda_dir,
        mode=args.mode,
        seed=args.seed,
        execs=args.execs,
        strategy=args.strategy,
        out_dir=args.out,
        sample=args.sample,
    )
    partial = args.out / (RESULT_NAME + ".tmp")
    partial.write_text(json.dumps(document, separators=(",", ":")))
    partial.replace(args.out / RESULT_NAME)
    return 0


if __name__ == "__main__":
    sys.exit(main())
