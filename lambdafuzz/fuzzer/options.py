"""What one campaign is asked to do: its `Strategy` and `CampaignOptions`.

`campaign.json` records these options field by field (`recorded_options`), so a new
option is one field here: the command line, `build_engine`, the out dir and every replay
pick it up from this one definition.  The draw policy is one field too (`DrawPolicy`,
declared in the generators): its six keys stand in the file where its fields always stood.

Paths in `campaign.json` are relative to the out dir, so an out dir committed or copied
together with its project replays that copy's config and code; the config's absolute path
is kept beside it only as the fallback for a `campaign.json` read away from its project.
The target's `TargetIdentity` (handler, function, config path, a hash of what defines it)
is recorded too: a resume checks it, so one out dir never mixes two targets' corpora.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.generators.draw_policy import DEFAULT_POLICY, DrawPolicy
from lambdafuzz.model.emulation import AwsPath, BackendKind
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.redelivery import REDELIVERY_SHARE
from lambdafuzz.model.target import Target


class Strategy(enum.StrEnum):
    RANDOM = "random"  # every input fresh from the generators, no feedback
    ZEST = "zest"
    ZEST_STRINGS = "zest-strings"  # Zest + constant strings from the analysis
    SPOTON = "spoton"  # Zest + constant strings + type-targeted mutation
    # the default: Zest + the full harvest (strings and numbers, `analysis.constants`
    # rich=True) + edge values + frontier targeting (`fuzzer/frontier.py`)
    FRONTIER = "frontier"

    @property
    def uses_analysis_constants(self) -> bool:
        return self in (Strategy.ZEST_STRINGS, Strategy.SPOTON, Strategy.FRONTIER)

    @property
    def rich_harvest(self) -> bool:
        """Strings and numbers of the full harvest, and edge values; the paper's
        strategies keep their definitions."""
        return self is Strategy.FRONTIER


class Objective(enum.StrEnum):
    """What the campaign's feedback keeps an input for (README, "Cost findings")."""

    MIXED = "mixed"  # coverage, plus the cost queue for `cost_share` of the children
    COVERAGE = "coverage"  # coverage only: no cost measures, no cost findings
    COST = "cost"  # the cost queue only: inputs that raise a cost maximum

    @property
    def measures_cost(self) -> bool:
        return self is not Objective.COVERAGE


#: Share of the children made from the cost queue under `Objective.MIXED`.
COST_SHARE = 0.1
#: A run longer than this share of the function's timeout is a duration cost finding.
DURATION_SHARE = 0.5
#: AWS calls in one invocation above which it is a cost finding.
MAX_AWS_CALLS = 100


@dataclass(slots=True, frozen=True)
class CampaignOptions:
    target: Target
    out_dir: Path
    strategy: Strategy = Strategy.FRONTIER
    seed: int = 0
    max_execs: int | None = None
    max_seconds: float | None = None
    workers: int = 1
    backend: BackendKind = BackendKind.MOTO
    endpoint: str | None = None
    # in-process moto: "fast" answers hot AWS operations in botocore's before-call and
    # reuses clients (`harness.fast_aws`); "moto": botocore's full path for every call
    aws_path: AwsPath = AwsPath.FAST
    # linear (Zest): more coverage and failures than execution-indexed replay at the same
    # budget on the benchmark lambdas (BENCHMARKS.md, "The havoc effect and the default replay mode")
    mode: ReplayMode = ReplayMode.LINEAR
    seed_corpora: tuple[Path, ...] = ()
    # how fresh values are drawn: the dictionary, the code's numbers, field names and key
    # values, edge values on; `build_engine` fills it from the strategy's harvest, and
    # every process generating for the campaign takes it whole
    policy: DrawPolicy = DEFAULT_POLICY
    # fresh sizes start small and grow when coverage stalls (`fuzzer.size_schedule`);
    # False, or `--objective cost`: the full size throughout
    size_schedule: bool = True
    stability_check: bool = True
    memory_limit_mb: int | None = 1024
    function: str | None = None  # the template function this campaign fuzzes, if any
    # the template's --parameter-overrides ((key, value) pairs): replay loads it with them
    parameter_overrides: tuple[tuple[str, str], ...] = ()
    # mutated draws take a fresh value other than the parent's (`generators.core.Changed`);
    # False: Zest's plain fresh draws, which make zero mutations (the study's comparison)
    change_mutated_draws: bool = True
    # the cost objective (fuzzer/cost.py): which feedback keeps inputs, the cost queue's
    # share of the children (mixed), and the budgets past which an input is a cost finding
    objective: Objective = Objective.MIXED
    cost_share: float = COST_SHARE
    duration_share: float = DURATION_SHARE  # of the function's timeout_s
    max_aws_calls: int | None = MAX_AWS_CALLS  # None: no AWS call budget
    max_memory_mb: float | None = None  # None: half the function's memory_mb
    # None: workers are local processes; "local": Ray actors on a local cluster (started
    # or joined); else the address of the Ray cluster (`auto`, `host:port`, `ray://...`)
    ray: str | None = None
    # exceptions the application caught (`handled/`) make the campaign's exit status the
    # failure status too; by default they are warnings
    fail_on_handled: bool = False
    # the deployment oracles turned off (`model.oracle.OracleKind`); the permission oracle
    # runs only for a target with a policy (a template's, or `permissions:` in the config)
    oracles_off: frozenset[OracleKind] = frozenset()
    # the share of tests delivered twice for a trigger AWS may deliver more than once (the
    # idempotency oracle, `model.redelivery`), each decided by the test's seed alone
    redelivery_share: float = REDELIVERY_SHARE

    def oracle(self, kind: OracleKind) -> bool:
        """Whether the oracle `kind` checks this campaign's tests."""
        if kind in self.oracles_off:
            return False
        if kind is OracleKind.PERMISSIONS:
            return self.target.permissions is not None
        return True

    @property
    def deterministic(self) -> bool:
        """Same seed and --execs, same campaign: only one local worker runs tests in the
        order they were made (more workers, or actors, finish them in any order), and only
        exact counts choose parents (`--objective cost` climbs durations and memory too,
        which depend on timing)."""
        return self.workers == 1 and self.ray is None and self.objective is not Objective.COST

    def identity(self) -> TargetIdentity:
        return TargetIdentity.of(self.target, self.function, self.out_dir)

    def recorded_options(self) -> dict[str, Any]:
        """Every option as JSON values: the target as its config path (relative to the out
        dir; the absolute one as a fallback), handler and identity; paths relative to the
        out dir."""
        identity = self.identity()
        data: dict[str, Any] = {
            "config": identity.config,
            "config_absolute": str(self.target.config_path),
            "handler": identity.handler,
            "identity": identity.to_json(),
        }
        base = Path(self.out_dir).resolve()
        for f in fields(self):
            if f.name in ("target", "out_dir"):
                continue
            if f.name == "policy":  # its keys where its fields stood, as before it was one
                data.update(self.policy.to_json())
                continue
            data[f.name] = _plain(getattr(self, f.name), base)
        return data


@dataclass(slots=True, frozen=True)
class TargetIdentity:
    """Which target an out dir's campaign fuzzes: its handler, its template function, its
    config's path relative to the out dir, and a hash of what defines it — the config
    file's content or, for one function of a template, that function's resolved definition
    (so editing another function of the template changes nothing)."""

    handler: str
    function: str | None
    config: str  # relative to the out dir, '/'-separated
    hash: str  # "sha256:..."; "" when the config could not be read

    @classmethod
    def of(cls, target: Target, function: str | None, out_dir: Path | str) -> TargetIdentity:
        config = Path(target.config_path)
        if function is None:
            digest = _file_hash(config)
        else:
            digest = _text_hash(json.dumps(_definition(target), sort_keys=True))
        return cls(target.handler, function, relative_to(config, out_dir), digest)

    @classmethod
    def from_json(cls, data: Any) -> TargetIdentity | None:
        """None for anything that is not a recorded identity (older files have none)."""
        if not isinstance(data, Mapping) or not isinstance(data.get("handler"), str):
            return None
        function = data.get("function")
        return cls(
            handler=data["handler"],
            function=function if isinstance(function, str) and function else None,
            config=str(data.get("config") or ""),
            hash=str(data.get("hash") or ""),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "handler": self.handler,
            "function": self.function,
            "config": self.config,
            "hash": self.hash,
        }

    def describe(self, config: str | None = None) -> str:
        """`handler (function F) from CONFIG`; `config` names the config as the reader
        should see it (default: as recorded, relative to the out dir)."""
        function = f" (function {self.function})" if self.function else ""
        return f"{self.handler}{function} from {config or self.config}"


def relative_to(path: Path | str, out_dir: Path | str) -> str:
    """`path` relative to the out dir (both resolved), '/'-separated."""
    try:
        relative = os.path.relpath(Path(path).resolve(), Path(out_dir).resolve())
    except ValueError:  # another drive: only an absolute path can say where it is
        return str(Path(path).resolve())
    return Path(relative).as_posix()


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as file:
            for block in iter(lambda: file.read(1 << 16), b""):
                digest.update(block)
    except OSError:
        return ""
    return f"sha256:{digest.hexdigest()}"


def _text_hash(text: str) -> str:
    return f"sha256:{hashlib.sha256(text.encode('utf-8')).hexdigest()}"


def _definition(target: Target) -> Any:
    """The target as plain JSON values, paths relative to its config's directory (moving
    the project keeps the hash)."""
    base = Path(target.config_path).parent

    def plain(value: Any) -> Any:
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return {f.name: plain(getattr(value, f.name)) for f in fields(value)}
        if isinstance(value, enum.Enum):
            return value.value
        if isinstance(value, Path):
            return relative_to(value, base)
        if isinstance(value, Mapping):
            return {str(k): plain(v) for k, v in sorted(value.items())}
        if isinstance(value, tuple | list):
            return [plain(v) for v in value]
        return value

    definition = plain(target)
    definition.pop("config_path", None)
    definition.pop("samples", None)  # seeds, not the target: new sample events resume
    return definition


def _plain(value: Any, base: Path) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return relative_to(value, base)
    if isinstance(value, tuple):
        return [_plain(v, base) for v in value]
    if isinstance(value, frozenset):
        return sorted(_plain(v, base) for v in value)
    return value
