"""Which code targets of the analysis the campaign has covered, from the arms it has seen.

The harness reports arms by bytecode offsets; the analysis predicts targets by source lines.
The catalog gives each arm its (from_line, to_line) site, and the analysis' arm index maps
(real file path, from_line, to_line) to the targets that site may cover.  Both targeting
mutators ask this one question after every test, so it is answered incrementally: only arms
not seen before are looked up.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from lambdafuzz.analysis.model import AnalysisResult
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog, ArmKey

ArmLinesT = tuple[str, int, int]


class TargetCoverage:
    """Target ids covered so far, updated from the campaign's seen arms."""

    def __init__(self, arm_targets: Mapping[ArmLinesT, Iterable[str]], catalog: ArmCatalog) -> None:
        """`arm_targets`: (real file path, from line, to line) -> target ids."""
        self._arm_targets = {key: tuple(ids) for key, ids in arm_targets.items()}
        self._catalog = catalog
        self._real_of_key = {f.key: f.path for f in catalog.files}
        self._processed: set[ArmKey] = set()
        self.covered: set[str] = set()

    @staticmethod
    def arm_index_of(analysis: AnalysisResult) -> dict[ArmLinesT, tuple[str, ...]]:
        """An `AnalysisResult`'s arm index with files by real path, so the analysis' and the
        collector's path conventions do not matter."""
        return {
            (os.path.realpath(file), a, b): ids
            for (file, a, b), ids in analysis.arm_index().items()
        }

    def update(self, seen: Mapping[ArmKey, int]) -> set[str]:
        """Look up the arms not seen before; the target ids they newly cover."""
        if len(seen) == len(self._processed):
            return set()
        new: set[str] = set()
        for arm in seen:
            if arm in self._processed:
                continue
            self._processed.add(arm)
            site = self._catalog.site(arm)
            if site is None or site.from_line is None:
                continue
            real = self._real_of_key.get(arm[0], arm[0])
            to_line = site.to_line if site.to_line is not None else -1
            for tid in self._arm_targets.get((real, site.from_line, to_line), ()):
                if tid not in self.covered:
                    self.covered.add(tid)
                    new.add(tid)
        return new
