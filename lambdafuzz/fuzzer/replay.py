"""Running saved inputs again, exactly as their campaign ran them.

One `Replayer` serves `repro`, `minimize`, `corpus replay`, the pytest plugin and the
world summaries of reports.  A saved input records its choice sequence, seed and replay
mode; its campaign's `campaign.json` records the draw policy (`DrawPolicy`: the dictionary
that string draws index into, the code's numbers, ...).  Together they determine the world,
the event and the outcome.
"""

from __future__ import annotations

from types import TracebackType
from typing import Any

from lambdafuzz.fuzzer.corpus import SavedInput
from lambdafuzz.fuzzer.out_dir import CampaignMeta
from lambdafuzz.fuzzer.world_summary import summarize_recording
from lambdafuzz.generators.core import ChoiceSequence, PrefixT, ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.harness.process.pool import WorkerPool
from lambdafuzz.harness.process.protocol import TestRequest, TestResult, WorkerInfo, WorkerSpec
from lambdafuzz.model.emulation import BackendKind
from lambdafuzz.model.target import Target
from lambdafuzz.model.world import World


class Replayer:
    """A target, its campaign's draw policy, and one worker process started on first use."""

    def __init__(
        self,
        target: Target,
        *,
        policy: DrawPolicy | None = None,
        backend: BackendKind = BackendKind.MOTO,
        endpoint: str | None = None,
    ) -> None:
        """`policy`: the campaign's (`CampaignMeta.replay_policy`); None: the config's
        dictionary and nothing else, as a campaign without a harvest draws."""
        self.target = target
        self.policy = DrawPolicy(dictionary=target.dictionary) if policy is None else policy
        self.backend = backend
        self.endpoint = endpoint
        self._pool: WorkerPool | None = None
        #: measure what each run costs (`TestResult.cost`); set before the first run
        self.measure_cost = False

    @classmethod
    def for_campaign(
        cls,
        target: Target,
        meta: CampaignMeta | None,
        *,
        backend: BackendKind = BackendKind.MOTO,
        endpoint: str | None = None,
    ) -> Replayer:
        """Replay with what the campaign recorded (the config's dictionary for a campaign
        older than that record)."""
        if meta is None:
            return cls(target, backend=backend, endpoint=endpoint)
        return cls(target, policy=meta.replay_policy(target), backend=backend, endpoint=endpoint)

    # ------------------------------------------------------------------ running
    @property
    def pool(self) -> WorkerPool:
        """The worker; `HandlerImportError`/`BackendError` when it cannot start."""
        if self._pool is None:
            spec = WorkerSpec(
                target=self.target,
                backend=self.backend,
                endpoint=self.endpoint,
                policy=self.policy,
                cost=self.measure_cost,
            )
            self._pool = WorkerPool(spec, 1)
        return self._pool

    @property
    def info(self) -> WorkerInfo:
        return self.pool.info

    def run(
        self,
        prefix: PrefixT,
        seed: int,
        mode: ReplayMode,
        *,
        want_event: bool = True,
        want_log: bool | None = None,
        deliveries: int = 1,
    ) -> TestResult:
        """`want_log`: the handler's output also when the input does not fail (a failure
        always carries it); by default whenever the event is wanted.  `deliveries`: 2
        delivers the event again once the handler returned (`harness.redelivery`)."""
        request = TestRequest(
            prefix,
            seed,
            mode,
            want_event=want_event,
            want_log=want_event if want_log is None else want_log,
            deliveries=deliveries,
        )
        return self.pool.workers[0].run(request)

    def replay(
        self, saved: SavedInput, *, want_event: bool = True, want_log: bool | None = None
    ) -> TestResult:
        """Run a saved input again: the same world, event and (for unchanged code) outcome,
        with what the handler printed and logged (`TestResult.log`), its event delivered
        as many times as when it was found (`SavedInput.deliveries`)."""
        return self.run(
            saved.sequence.prefix(saved.mode),
            saved.seed,
            saved.mode,
            want_event=want_event,
            want_log=want_log,
            deliveries=saved.deliveries,
        )

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def __enter__(self) -> Replayer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # ------------------------------------------------------------------ without a worker
    def _choices(self, recording: ChoiceSequence) -> Any:
        """A `Choices` replaying `recording` as the campaign made it."""
        from lambdafuzz.generators.core import Choices

        return Choices(
            recording.values(),
            seed=0,
            mode=ReplayMode.LINEAR,
            policy=self.policy,
        )

    def summarize(self, recording: ChoiceSequence) -> Any:
        """The world a recording describes, summarised (generation is pure: no emulator)."""
        return summarize_recording(recording, self.target, self.policy)

    def world(self, recording: ChoiceSequence) -> World:
        """The world a recording describes, generated again (pure: no emulator)."""
        from lambdafuzz.generators.aws.world_generator import generate_input

        choices = self._choices(recording)
        return generate_input(choices, self.target).world

    def offline_event(self, saved: SavedInput) -> tuple[Any, str]:
        """The event of a saved input and where it came from: the file's own copy, else
        regenerated from the choice sequence and rendered without an emulator, so queue
        receipt handles and message ids are placeholders."""
        if saved.event is not None:
            return saved.event, "saved"
        from lambdafuzz.generators.aws.world_generator import generate_input
        from lambdafuzz.harness.process.worker import offline_event

        choices = self._choices(saved.sequence)
        try:
            event = offline_event(generate_input(choices, self.target), self.target.trigger)
        except Exception as exc:  # noqa: BLE001 - a report must render whatever a generator does
            return None, f"could not regenerate the event: {type(exc).__name__}: {exc}"
        return event, "regenerated"
