"""On-disk cache of analysis results, keyed by a hash of every source file and the options.

A fuzzing campaign starts many times on unchanged code (CI, repeated benchmark runs), and
the analysis is the slowest part of start-up, so its result is kept as JSON.  Writes go
through a temporary file and `os.replace`, so a concurrent reader sees the old file or
the new one, never half of one.  An unreadable or outdated entry is a miss, not an error.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable
from pathlib import Path

from lambdafuzz.atomic_files import write_text_atomic

from .model import ANALYSIS_VERSION, AnalysisResult
from .sources import SourceFile

log = logging.getLogger("lambdafuzz.analysis")


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/lambdafuzz/analysis`, else `~/.cache/lambdafuzz/analysis`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lambdafuzz" / "analysis"


def digest(sources: Iterable[SourceFile], options: dict[str, object]) -> str:
    """Key of one analysis: version, options, and each file's path, module and content."""
    h = hashlib.sha256()
    h.update(f"lambdafuzz-analysis/{ANALYSIS_VERSION}\n".encode())
    for key in sorted(options):
        h.update(f"{key}={options[key]!r}\n".encode())
    for s in sorted(sources, key=lambda s: str(s.path)):
        h.update(f"{s.path}\0{s.module}\0{s.digest()}\n".encode())
    return h.hexdigest()


def load(cache_dir: Path, key: str) -> AnalysisResult | None:
    """The cached result for `key`, or None (missing, corrupt, or another version)."""
    path = cache_dir / f"{key}.json"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    try:
        result = AnalysisResult.from_json(text)
    except ValueError as exc:
        log.warning("analysis-cache-corrupt: %s: %s; recomputing", path, exc)
        return None
    if result.version != ANALYSIS_VERSION or result.digest != key:
        return None
    return result


def store(cache_dir: Path, key: str, result: AnalysisResult) -> Path | None:
    """Write atomically; a read-only or full disk only costs the cache (warned, not raised)."""
    path = cache_dir / f"{key}.json"
    try:
        write_text_atomic(path, result.to_json())
    except OSError as exc:
        log.warning("analysis-cache-unwritable: %s: %s; not cached", path, exc)
        return None
    return path
