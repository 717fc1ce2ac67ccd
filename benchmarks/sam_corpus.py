"""How many Python functions of a corpus of SAM/CloudFormation templates lambdafuzz imports.

    python benchmarks/sam_corpus.py DIR [--show N] [--json FILE]

DIR is a checkout of public SAM applications (for example a snapshot of
aws-samples/serverless-patterns).  Every `template.yaml`/`.yml`/`.json` under it with a
function whose runtime is Python is loaded with `config.load_template`, as `lambdafuzz
fuzz template.yaml --function F` would; a function counts as imported when that builds its
target.  Refusals are grouped by the first clause of their message, and the constructs
lambdafuzz imports but does not model (its `warning [sam-unsupported]` lines) are counted
by kind, so a run says both what is refused and what is approximated.
"""

from __future__ import annotations

import argparse
import collections
import json
import logging
import re
import sys
from pathlib import Path

from lambdafuzz.config.sam import load_template
from lambdafuzz.config.sam_template import FUNCTION_TYPES, read_template
from lambdafuzz.errors import ConfigError

TEMPLATE_NAMES = ("template.yaml", "template.yml", "template.json")


def python_functions(path: Path) -> list[str] | None:
    """Logical ids of the template's Python functions; None when it is not readable."""
    try:
        template = read_template(path)
    except ConfigError:
        return None
    runtime_default = template.globals().get("Runtime")
    found = []
    for logical_id in template.resources:
        if template.type_of(logical_id) not in FUNCTION_TYPES:
            continue
        runtime = template.properties(logical_id).get("Runtime", runtime_default)
        if isinstance(runtime, str) and runtime.startswith("python"):
            found.append(logical_id)
    return found


def reason_of(message: str) -> str:
    """A refusal message without its file, line and values: what kind of refusal it is."""
    text = re.sub(r"^\S+?:\d+: ", "", message.split("\n")[0])
    text = re.sub(r"^\S+: ", "", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "…", text)
    text = re.sub(r"Resources\.[A-Za-z0-9]+", "Resources.…", text)
    return text[:110]


def note_kind(note: str) -> str:
    """`Events.X: FilterCriteria ...` -> `Events: FilterCriteria`."""
    head, _, rest = note.partition(": ")
    section = head.split(".")[0].split("[")[0]
    words = re.sub(r"'[^']*'|\"[^\"]*\"|\[[^\]]*\]", "…", rest).split()
    return f"{section}: {' '.join(words[:4])}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--show", type=int, default=12, help="refusal kinds to list")
    parser.add_argument("--json", type=Path, help="write per-function results here")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)
    templates = sorted(
        p
        for name in TEMPLATE_NAMES
        for p in args.corpus.rglob(name)
        if "node_modules" not in p.parts and ".aws-sam" not in p.parts
    )
    imported = 0
    total = 0
    unreadable = 0
    refusals: collections.Counter[str] = collections.Counter()
    notes: collections.Counter[str] = collections.Counter()
    rows = []
    for path in templates:
        functions = python_functions(path)
        if functions is None:
            unreadable += 1
            continue
        for function in functions:
            total += 1
            try:
                result = load_template(path, function)
            except ConfigError as exc:
                reason = reason_of(str(exc))
                refusals[reason] += 1
                rows.append({"template": str(path), "function": function, "refused": str(exc)})
                continue
            except Exception as exc:  # a crash is a finding of this measurement
                refusals[f"CRASH {type(exc).__name__}: {exc}"[:110]] += 1
                continue
            imported += 1
            notes.update({note_kind(n) for n in result.unsupported})
            rows.append(
                {
                    "template": str(path),
                    "function": function,
                    "trigger": result.target.trigger.kind.value,
                    "notes": list(result.unsupported),
                }
            )
    share = imported / total if total else 0.0
    print(f"templates: {len(templates)} ({unreadable} not SAM/CloudFormation templates we read)")
    print(f"python functions: {total}; imported {imported} ({share:.1%})")
    print("refused, by reason:")
    for reason, count in refusals.most_common(args.show):
        print(f"  {count:4d}  {reason}")
    print("imported with constructs not modelled (functions per kind):")
    for kind, count in notes.most_common(args.show):
        print(f"  {count:4d}  {kind}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
