"""The records that cross the pipe between the campaign and its workers: what a worker is
(`WorkerSpec`), what it is asked (`TestRequest`) and what it answers (`TestResult`,
`KeptInput`, `WorkerInfo`), and the choice source both sides make a test's input from.

The worker regenerates the input from `(prefix, seed)`: generation is pure, so when a
worker dies mid-test the campaign regenerates the same input locally to save it.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lambdafuzz.generators.core import (
    Choice,
    Choices,
    ChoiceSequence,
    PrefixT,
    ReplayMode,
)
from lambdafuzz.generators.draw_policy import DEFAULT_POLICY, DrawPolicy
from lambdafuzz.harness.measure.arm_catalog import ArmKey
from lambdafuzz.harness.measure.handled import HandledException
from lambdafuzz.harness.sandbox.isolation import IsolationState, RayIsolation
from lambdafuzz.model.cost import CostMeasures
from lambdafuzz.model.emulation import AwsPath, BackendKind
from lambdafuzz.model.oracle import OracleFinding
from lambdafuzz.model.outcome import EmulatorGap, FailureInfo, Status
from lambdafuzz.model.permissions import PermissionUse
from lambdafuzz.model.target import Target
from lambdafuzz.model.world import World

CoverageT = Mapping[ArmKey, int]  # arm -> AFL hit-count bucket

#: What the campaign sends for the recording its worker kept of the test it ran last
#: (`TestRequest.want_recording`).  The worker's pickling of every recording cost
#: gradebook 0.20 ms (median; mean 0.33) and survey_upload 0.32 ms (mean 0.40) a test,
#: pickles of 10 and 26 KB (median; 25 and 40 KB mean, up to 440 KB) where the rest of a
#: result is 1.2-1.8 KB and 0.04 ms (zest, seed 0, 600 executions, in-process, timed
#: around `pickle.dumps`); the campaign asks for the few it keeps, ~0.1 ms a round trip.
KEPT_RECORDING = "kept-recording"


#: Grace on top of the configured timeout before a test counts as a hang.
HANG_GRACE_S = 0.5


@dataclass(slots=True, frozen=True)
class WorkerSpec:
    """Everything a worker needs to set itself up; picklable."""

    target: Target
    backend: BackendKind = BackendKind.MOTO
    endpoint: str | None = None
    # "fast": with in-process moto, hot AWS operations answered in botocore's before-call
    # and clients reused (`harness.fast_aws`); "moto": botocore's full path for every call
    aws_path: AwsPath = AwsPath.FAST
    # the campaign's draw policy (`Choices`): part of how a recording replays, so every
    # process generating for a campaign gets the campaign's own
    policy: DrawPolicy = DEFAULT_POLICY
    memory_limit_mb: int | None = None  # address-space headroom above the worker's baseline
    # a file that also gets all handler output (it is captured per test either way, see
    # `handler_output`); None: only the capture
    handler_log: str | None = None
    # the arm total of the campaign's catalog, so workers need not scan the same source
    # again; None: the worker scans it (replays, which hold no catalog)
    app_arms_total: int | None = None
    # measure every test's cost (`model.cost.CostMeasures`: duration, AWS calls, bytes
    # sent, peak memory) and count branch arms exactly: the cost objective's feedback
    cost: bool = False
    # record exceptions the application catches (`harness.handled`): the handled findings
    handled: bool = True
    # check every AWS call against the function's IAM policy (`harness.permission_check`;
    # only when the target has one): the permission oracle
    permissions: bool = True
    # keep the handler's response as Lambda reads it (`TestResult.response`) for an SQS,
    # Kinesis or DynamoDB-stream trigger: the batch oracle reads its batchItemFailures
    batch: bool = True
    # record what each delivery of a test delivered twice changed (`harness.redelivery`;
    # only for a trigger AWS may deliver twice): the idempotency oracle
    idempotency: bool = True
    # where the function's file systems (`Target.file_systems`) live on the host: one
    # folder per mount, `<dir>/<name>`, the same for every worker of the campaign (`OUT/
    # efs`); "": in the worker's own temp dir (a replay's, gone with the worker)
    file_systems_dir: str = ""


@dataclass(slots=True, frozen=True)
class TestRequest:
    __test__ = False  # not a pytest class
    prefix: PrefixT
    seed: int
    mode: ReplayMode = ReplayMode.EXECUTION_INDEXED
    want_event: bool = True  # events are small; saved inputs show the real one
    # the handler's output even when the test does not fail (failures always carry it)
    want_log: bool = False
    # a child's: `input_digest` of its parent's generated input.  A child that generates
    # exactly that input (a zero mutation: the same values read, or other values that make
    # the same world and event) is answered `identical` without loading the world or
    # running the handler
    parent_digest: bytes | None = None
    # False: the answer comes without its recording, which the worker keeps until its next
    # test (`Worker.kept` asks for it).  The campaign needs the recordings of the few
    # tests it keeps, and pickling every one (8-440 KB) cost the worker 0.2-0.4 ms a test
    # (see `KEPT_RECORDING`); with it the worker gives the world's summary and the
    # failure's traceback, which the answer leaves empty (`KeptInput`)
    want_recording: bool = True
    # `Choices.size_scale`: how large fresh sizes are drawn (the campaign's size schedule);
    # a recording replays exactly at any scale
    size_scale: float = 1.0
    # 2: the event is delivered again once the handler returned, as AWS's at-least-once
    # delivery may (`harness.redelivery`; `model.redelivery.deliveries_for` says which)
    deliveries: int = 1


@dataclass(slots=True, frozen=True)
class KeptInput:
    """What the campaign fetches of a test it keeps whose answer went without it: the
    recording, the summary of the world the worker generated from it (None when the
    generation stopped before a world), so the campaign need not generate it again, and the
    traceback of its failure, which the answer left empty."""

    recording: ChoiceSequence
    world: dict[str, Any] | None = None
    # the failure's traceback, formatted when asked for (`TestRequest.want_recording`)
    traceback: str = ""


@dataclass(slots=True, frozen=True)
class Timings:
    generate_s: float = 0.0
    reset_load_s: float = 0.0
    handler_s: float = 0.0


@dataclass(slots=True, frozen=True)
class TestResult:
    __test__ = False  # not a pytest class
    status: Status
    # None: kept in the worker (`TestRequest.want_recording`)
    recording: ChoiceSequence | None
    coverage: CoverageT
    failure: FailureInfo | None = None
    invalid_reason: str = ""
    generator_error: str = ""
    event: Any = None
    timings: Timings = field(default_factory=Timings)
    return_value: str = ""
    log: str = ""  # what the handler printed and logged (failures and `want_log` only)
    # the child generated exactly its parent's input (`TestRequest.parent_digest`): nothing
    # was loaded or run, and `status`, `coverage` and `recording` (empty) mean nothing
    identical: bool = False
    # `input_digest` of what this test generated (b"" when generation stopped early): the
    # parent digest of its children, should it be saved
    input_digest: bytes = b""
    # a failure on an event that names an S3 object the world does not hold (only with
    # `trigger.missing_objects`): the label `consistency.describe` gives it, else ""
    world_inconsistency: str = ""
    # what the handler call cost (`WorkerSpec.cost` only, else None), and the exact counts
    # of the application arms it took more than once
    cost: CostMeasures | None = None
    hit_counts: CoverageT = field(default_factory=dict)
    # exceptions the application caught during the handler call (`harness.handled`),
    # one per signature; they do not change `status`
    handled: tuple[HandledException, ...] = ()
    # what the deployment oracles found (`model.oracle`): calls the role would not allow
    findings: tuple[OracleFinding, ...] = ()
    # what the test's AWS calls needed of the function's policy (permission oracle on only)
    permission_use: PermissionUse | None = None
    # the handler's return value as Lambda's runtime serializes it (JSON-decoded; a string
    # saying why when it cannot be serialized), for the batch triggers only (`WorkerSpec.batch`)
    response: Any = None
    # the summary of the world this test generated, when the worker gave it (`KeptInput`)
    world_summary: dict[str, Any] | None = None
    # how much input it read (`ChoiceSequence.size`), also when its recording is kept in the
    # worker: a bug's variant keeps its smallest input
    input_size: int = 0
    # an exception raised inside the emulator or lambdafuzz (`harness.blame`): the test is
    # INVALID, not a failure of the application
    emulator_gap: EmulatorGap | None = None


@dataclass(slots=True, frozen=True)
class WorkerInfo:
    """What a ready worker reports once."""

    pid: int
    app_arms_total: int
    import_coverage: CoverageT
    # what keeps this worker off the network (a Ray pool's: every actor's)
    isolation: IsolationState | RayIsolation | None = None
    import_violations: tuple[str, ...] = ()  # sandbox violations the handler's import swallowed
    main_thread: int = 0  # the thread running the handler, as fault dumps name it


def choices_for(spec: WorkerSpec, request: TestRequest) -> Choices:
    """The choice source of one test: the same in the worker and when the campaign
    regenerates a lost input, which is what makes that regeneration exact."""
    return Choices(
        request.prefix,
        seed=request.seed,
        mode=request.mode,
        policy=spec.policy,
        size_scale=request.size_scale,
    )


def values_digest(choices: Iterable[Choice]) -> bytes:
    """A digest of the values a generation read, the same in every process (the study
    checks with it that it regenerates what a worker read): values are ints, floats, bools,
    bytes and strs, whose repr is exact and tells their types apart.  ~0.05 ms for the
    benchmark lambdas' median input (0.4 ms for the largest, ~1,100 draws)."""
    text = repr([c.value for c in choices])
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def input_digest(generated: Any) -> bytes:
    """A digest of a generated input (its world and event plan), the same in every worker:
    the pickle of frozen dataclasses of tuples, bytes, strings, numbers and dicts built in a
    fixed order (checked across processes with different hash seeds).  Two inputs with equal
    digests are the same test, whichever values made them: a child equal to its parent this
    way is a zero mutation.  ~55-62 us for the benchmark lambdas' median input (50 inputs
    each, pickled 0.9-2.5 KB); the values digest it replaces cost ~50 us and missed the
    children that read other values into the same input (0.3-3.3% of children)."""
    data = pickle.dumps(generated, protocol=pickle.HIGHEST_PROTOCOL)
    return hashlib.blake2b(data, digest_size=16).digest()


def allowed_s(target: Target, request: TestRequest) -> float:
    """How long `request` may run before it is a hang: the function's timeout for each
    delivery, and the grace the worker needs to answer."""
    return target.timeout_s * max(1, request.deliveries) + HANG_GRACE_S


def world_summary_of(world: World | None) -> dict[str, Any] | None:
    """`summarize_world`, or None (no world, or summarising it failed: the campaign then
    summarises the input from its recording itself)."""
    from lambdafuzz.model.world_summary import summarize_world

    if world is None:
        return None
    try:
        return summarize_world(world)
    except Exception:  # noqa: BLE001
        return None
