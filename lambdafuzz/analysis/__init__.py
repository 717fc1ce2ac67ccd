"""Static analysis (SpotOn §III-B, on libcst): code targets, influencing types, constants.

Reads application source only; never imports the harness or the fuzzer.

    result = analyze_sources([root / "gradebook"], "gradebook.handler.lambda_handler")
    result.targets        # CodeTarget per branch arm: condition, line pairs, types + distances
    result.distances()    # SpotOn's unified map D: label -> distance
    result.constants      # constant strings (the dictionary); numeric ones with numeric=True
    result.match          # input-dependent targets with a type some generator produces
    result.arm_index()    # (file, from_line, to_line) of a harness arm -> target ids
    print(render_text(result))          # `lambdafuzz analyze`; result.to_json() for --json

Modules, one job each: `sources` (find, name, parse once), `targets` (branch arms and
their line pairs), `graph` + `expressions` + `calls` + `dependency` (the def-use graph),
`type_table` (what library calls and event paths are), `labelling` (labels per graph
node), `influence` (backward walk), `unify` (unified map, match report), `constants`,
`model` (the result), `cache`, `render`, `analyze` (the entry point).
"""

from __future__ import annotations

from .analyze import analyze_sources
from .model import (
    ANALYSIS_VERSION,
    AnalysisResult,
    CodeTarget,
    Constant,
    InfluencingType,
    MatchReport,
    TargetKind,
    UnifiedType,
)
from .render import render_text
from .unify import match_report, vocabulary

__all__ = [
    "ANALYSIS_VERSION",
    "AnalysisResult",
    "CodeTarget",
    "Constant",
    "InfluencingType",
    "MatchReport",
    "TargetKind",
    "UnifiedType",
    "analyze_sources",
    "match_report",
    "render_text",
    "vocabulary",
]
