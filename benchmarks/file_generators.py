"""Throughput and validity of the file-format generators (issue 3).

For every concrete format: N seeded files with erroneous files disabled, timed (generation
only), mean size and draws, and the share the strict parsers in `validation.py` accept
(must be 100%).  Then the rejected share of `any` at the default erroneous probability,
and for images the share of draws labelled `image.pixels` vs `image.exif`.

Then file edge values (issue 16): per format and for `any`, generation time with
`Choices.edge_values` off and on, side by side, with the cost of the edge values (the bound
is 10% of generation time), using the numbers a 300x200 thumbnailer mentions.

    .venv/bin/python benchmarks/file_generators.py [--draws 2000] [--edge-draws 1000] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lambdafuzz import labels  # noqa: E402
from lambdafuzz.generators.core import Choices  # noqa: E402
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.generators.files.dispatch import (  # noqa: E402
    CONCRETE_FORMATS,
    DOCUMENT_FORMATS,
    draw_file,
)
from lambdafuzz.generators.files.validation import rejection  # noqa: E402

IMAGE_FORMATS = ("png", "jpeg", "gif")


#: What the code of a handler that thumbnails to 300x200 mentions.
NUMBERS = (300, 200)


def edge_cost(fmt: str, draws: int) -> dict[str, object]:
    """CPU seconds to generate `draws` files of `fmt` with edge values off and on (same
    seeds; best of three rounds, off and on interleaved, against a noisy machine)."""
    times = {False: float("inf"), True: float("inf")}
    for _ in range(3):
        for on in (False, True):
            start = time.process_time()
            for seed in range(draws):
                draw_file(
                    Choices(seed=seed, policy=DrawPolicy(edge_values=on, numbers=NUMBERS)),
                    fmt,
                    erroneous_p=0,
                )
            times[on] = min(times[on], time.process_time() - start)
    return {
        "format": fmt,
        "off_ms": times[False] / draws * 1000,
        "on_ms": times[True] / draws * 1000,
        "cost": times[True] / times[False] - 1.0,
    }


def measure(fmt: str, draws: int) -> dict[str, object]:
    sizes: list[int] = []
    lengths: list[int] = []
    pixels = exif = 0
    files = []
    start, cpu_start = time.perf_counter(), time.process_time()
    for seed in range(draws):
        choices = Choices(seed=seed)
        file = draw_file(choices, fmt, erroneous_p=0)
        files.append(file)
        sizes.append(len(file.data))
        lengths.append(choices.count)
        if fmt in IMAGE_FORMATS:
            for c in choices.choices:
                pixels += labels.IMAGE_PIXELS in c.labels
                exif += labels.IMAGE_EXIF in c.labels
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    rejected = [(i, r) for i, f in enumerate(files) if (r := rejection(f.extension, f.data))]
    row: dict[str, object] = {
        "format": fmt,
        "files_per_s": draws / elapsed,
        "files_per_cpu_s": draws / cpu,  # robust against a loaded machine
        "mean_bytes": statistics.mean(sizes),
        "mean_draws": statistics.mean(lengths),
        "max_draws": max(lengths),
        "accepted": (draws - len(rejected)) / draws,
        "first_rejections": rejected[:3],
    }
    if fmt in IMAGE_FORMATS:
        total = sum(lengths)
        row["pixels_share"] = pixels / total
        row["exif_share"] = exif / total
    return row


def erroneous_share(draws: int, p: float = 0.003) -> dict[str, object]:
    rejected = marked = 0
    for seed in range(draws):
        file = draw_file(Choices(seed=seed), "any", erroneous_p=p)
        rejected += rejection(file.extension, file.data) is not None
        marked += file.erroneous is not None
    return {"draws": draws, "p": p, "rejected": rejected, "marked_erroneous": marked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000, help="files per format (default 2000)")
    parser.add_argument("--erroneous-draws", type=int, default=20_000)
    parser.add_argument(
        "--edge-draws", type=int, default=1000, help="files per format, edge values"
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = parser.parse_args()

    rows = [measure(fmt, args.draws) for fmt in (*CONCRETE_FORMATS, *DOCUMENT_FORMATS)]
    print(
        f"{'format':8} {'files/s':>9} {'/cpu-s':>7} {'mean B':>9} {'draws':>7} {'max':>6} {'accepted':>9}  pixels/exif share"
    )
    for r in rows:
        share = ""
        if "pixels_share" in r:
            share = f"{r['pixels_share']:.1%} / {r['exif_share']:.1%}"
        print(
            f"{r['format']:8} {r['files_per_s']:9.0f} {r['files_per_cpu_s']:7.0f} {r['mean_bytes']:9.0f} {r['mean_draws']:7.1f}"
            f" {r['max_draws']:6d} {r['accepted']:9.2%}  {share}"
        )
        for i, why in r["first_rejections"]:  # type: ignore[attr-defined]
            print(f"    seed {i}: {why}")
    err = erroneous_share(args.erroneous_draws)
    print(
        f"any, erroneous_p={err['p']}: {err['rejected']} of {err['draws']} rejected"
        f" ({err['rejected'] / err['draws']:.3%}), {err['marked_erroneous']} marked erroneous"
    )
    edges = [
        edge_cost(fmt, args.edge_draws) for fmt in (*CONCRETE_FORMATS, *DOCUMENT_FORMATS, "any")
    ]
    print(f"\nfile edge values (numbers {NUMBERS}), CPU ms per file, best of 3:")
    print(f"{'format':8} {'off':>8} {'on':>8} {'cost':>8}")
    for r in edges:
        print(f"{r['format']:8} {r['off_ms']:8.3f} {r['on_ms']:8.3f} {r['cost']:8.1%}")
    print("bound (issue 16): edge values cost <= 10% of generation time (`any`)")
    if args.json:
        args.json.write_text(
            json.dumps({"formats": rows, "erroneous": err, "edges": edges}, indent=2) + "\n"
        )


if __name__ == "__main__":
    main()
