"""The size schedule: fresh inputs start small and grow when coverage stalls.

Big inputs (CSVs of many rows, zips of hundreds of members, large images) make every test
that reads them slower, and a campaign's children inherit their parent's sizes; most
branches are reached by small ones.  libFuzzer starts with a small `-max_len` and, when no
new coverage came for `len_control * log(max_len)` runs, grows it by `log(max_len)`.  This
does the same with `Choices.size_scale` (`generators.sizes`): a campaign starts at the first
of `LEVELS` and moves to the next after `patience` executions without new coverage, a
patience that grows with the level as libFuzzer's does with the log of the length (the
levels double, so the level is that log), up to the full scale.  Counted in executions,
never in seconds, so the same seed makes the same campaign.  The scale in force travels
with each test request (one float), so workers need no restart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: The scales a campaign passes through, smallest first; the last is today's full size.
#: At 0.25 year_thumbnails' fresh inputs had 91 draws against 291 and unzip's 222 against
#: 390 (frontier's generation, 300 inputs, seeds 1000-1299).
LEVELS: Final = (0.25, 0.5, 1.0)
#: Executions without new coverage before the first level grows; level k waits k + 1 times
#: this (libFuzzer's `-len_control` default is 100 runs per log of the length).
STALL_EXECS: Final = 100


@dataclass(slots=True)
class SizeSchedule:
    """The size scale in force, and how long coverage has stalled at it."""

    levels: tuple[float, ...] = LEVELS
    stall_execs: int = STALL_EXECS
    level: int = 0
    stalled: int = 0  # executions since the last new coverage or growth

    @classmethod
    def full(cls) -> SizeSchedule:
        """Today's full scale throughout (`--objective cost`: big inputs are its point)."""
        return cls(levels=(1.0,))

    @property
    def scale(self) -> float:
        """The `Choices.size_scale` of the next fresh draws."""
        return self.levels[self.level]

    @property
    def patience(self) -> int:
        """Executions without new coverage after which this level grows."""
        return self.stall_execs * (self.level + 1)

    def observe(self, new_coverage: bool) -> bool:
        """Count one execution; True when it made the scale grow."""
        if new_coverage:
            self.stalled = 0
            return False
        self.stalled += 1
        if self.level + 1 < len(self.levels) and self.stalled >= self.patience:
            self.level += 1
            self.stalled = 0
            return True
        return False
