"""The campaign's events: what `Engine.run` yields, for the command line and the reports.

The engine never prints and never exits; `report/` and `cli/` subscribe to these.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from lambdafuzz.fuzzer.cost import CostFinding
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.model.oracle import OracleKind


class StopReason(enum.StrEnum):
    """Why a campaign ended; the value is the sentence the summary shows."""

    BUDGET = "budget exhausted"
    INTERRUPTED = "interrupted"
    SIGINT = "stopped by SIGINT"
    SIGTERM = "stopped by SIGTERM"


@dataclass(slots=True, frozen=True)
class CampaignStarted:
    options: CampaignOptions
    app_branches_total: int
    resumed: int
    isolation: str = ""  # what keeps the handler off the network (IsolationState.describe)


@dataclass(slots=True, frozen=True)
class Progress:
    stats: Stats


@dataclass(slots=True, frozen=True)
class NewCoverage:
    name: str
    provenance: str
    covered: int


@dataclass(slots=True, frozen=True)
class NewFailure:
    """A bug not seen before (`fuzzer.bugs`), with the record of its first variant."""

    record: FailureRecord
    bug: str = ""  # its key


@dataclass(slots=True, frozen=True)
class NewVariant:
    """Another signature of a known bug: saved inside the bug's file, not as a new one."""

    record: FailureRecord
    bug: str
    variants: int  # the bug's variants now


@dataclass(slots=True, frozen=True)
class NewHandled:
    """An exception the application caught, of a bug not seen before."""

    record: FailureRecord
    bug: str = ""


@dataclass(slots=True, frozen=True)
class NewFinding:
    """A deployment oracle's finding (`model.oracle`) of a bug not seen before."""

    kind: OracleKind
    record: FailureRecord
    bug: str = ""


@dataclass(slots=True, frozen=True)
class NewCostFinding:
    """An input past a cost budget, worse than the one saved for its measure before."""

    finding: CostFinding


@dataclass(slots=True, frozen=True)
class Notice:
    slug: str
    message: str


@dataclass(slots=True, frozen=True)
class CampaignFinished:
    stats: Stats
    out_dir: Path
    stop_reason: StopReason
    isolation: str = ""


EventT = (
    CampaignStarted
    | Progress
    | NewCoverage
    | NewFailure
    | NewVariant
    | NewHandled
    | NewFinding
    | NewCostFinding
    | Notice
    | CampaignFinished
)
