"""Static analysis (SpotOn §III-B, on libcst): code targets, influencing types, constants.

Reads application source only; never imports the harness or the fuzzer.  The public
surface is `analyze_sources`, the `AnalysisResult` it returns, and `render_text`.
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
from .unify import vocabulary

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
    "render_text",
    "vocabulary",
]
