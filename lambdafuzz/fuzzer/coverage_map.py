"""What the campaign has covered: Zest's feedback (thesis Alg. 7) and what reports show.

An input is interesting when it covers a new arm, a new hit-count bucket of an arm, or, being
valid, an arm no valid input covered; the first entry to cover an arm is favored.
"""

from __future__ import annotations

from collections.abc import Mapping

from lambdafuzz.fuzzer.entries import Entry
from lambdafuzz.fuzzer.out_dir import CoverageRecord, CoveredArm
from lambdafuzz.harness.measure.arm_catalog import ArmCatalog, ArmKey


class CoverageMap:
    """Arms covered so far, with their hit-count buckets, when each was first hit and by
    which entry, and those covered by valid tests and by the corpus."""

    def __init__(self) -> None:
        self.total = 0  # the application's arms (the workers' count)
        self.seen: dict[ArmKey, int] = {}  # arm -> bitmask of hit-count buckets seen
        self.valid: set[ArmKey] = set()
        self.corpus: set[ArmKey] = set()  # what replaying corpus/ alone reaches
        self.imported: tuple[ArmKey, ...] = ()  # what importing the handler covered
        self._first_hit: dict[ArmKey, tuple[int, float]] = {}  # arm -> (execs, seconds)
        self._responsible: dict[ArmKey, int] = {}  # arm -> id of the first entry covering it

    def start(self, total: int, import_coverage: Mapping[ArmKey, int]) -> None:
        """The application's arm count, and what its module code covered at import."""
        self.total = total
        self.imported = tuple(import_coverage)
        for arm, bucket in import_coverage.items():  # module code ran at import
            self.seen[arm] = 1 << bucket
            self._first_hit[arm] = (0, 0.0)

    def observe(
        self, coverage: Mapping[ArmKey, int], *, valid: bool, execs: int, now: float
    ) -> tuple[list[ArmKey], bool, bool]:
        """One pass over a test's arms: its new arms (first hit at `execs`, `now`), whether
        it reached a new hit-count bucket, and whether, `valid`, it covered a new valid arm."""
        seen = self.seen
        new_arms: list[ArmKey] = []
        new_bucket = False
        for arm, bucket in coverage.items():
            old = seen.get(arm, 0)
            if not old & (1 << bucket):
                if not old:
                    new_arms.append(arm)
                    self._first_hit[arm] = (execs, now)
                new_bucket = True
                seen[arm] = old | (1 << bucket)
        new_valid = False
        if valid:
            size = len(self.valid)
            self.valid.update(coverage)
            new_valid = len(self.valid) > size
        return new_arms, new_bucket, new_valid

    def saved(self, entry: Entry, new_arms: list[ArmKey]) -> None:
        """`entry` joined the corpus; it is the first to cover `new_arms`."""
        self.corpus.update(entry.arms)
        for arm in new_arms:
            self._responsible[arm] = entry.id

    def favored(self) -> set[int]:
        """The entries first to cover some arm."""
        return set(self._responsible.values())

    def record(self, catalog: ArmCatalog) -> CoverageRecord:
        """Covered arms with when they were first hit: input to reports and the study."""
        arms = []
        for arm, (execs, seconds) in sorted(self._first_hit.items(), key=lambda kv: kv[1]):
            site = catalog.site(arm)
            arms.append(
                CoveredArm(
                    arm=tuple(arm),
                    file=arm[0],
                    from_line=site.from_line if site else None,
                    to_line=site.to_line if site else None,
                    first_exec=execs,
                    first_s=seconds,
                    valid=arm in self.valid,
                )
            )
        return CoverageRecord(self.total, tuple(arms))
