"""What a test did wrong without failing: exceptions the application caught, and the
deployment oracles' findings (`model.oracle`).

Exceptions the application catches (`harness.handled`) are deduplicated by signature like
failures and saved in handled/; each oracle's findings likewise in its kind's folder.
Neither changes a test's status, and neither is re-run in a fresh worker: the catch or the
finding is recorded where it happened.  The oracles on in a campaign live here too: the
batch response check, the least-privilege report of the permissions used, and the share of
tests delivered twice (idempotency).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from lambdafuzz.fuzzer.batch_oracle import BatchOracle
from lambdafuzz.fuzzer.bugs import BugBook
from lambdafuzz.fuzzer.confirmation import MAX_SHAPES_PER_SITE, load_bugs, new_record
from lambdafuzz.fuzzer.entries import Tag
from lambdafuzz.fuzzer.events import EventT, NewFinding, NewHandled, Notice
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.least_privilege import LeastPrivilege
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import ExistingCampaign, OutDir
from lambdafuzz.fuzzer.recordings import Recordings, input_size
from lambdafuzz.harness.process.protocol import TestRequest, TestResult
from lambdafuzz.model.oracle import OracleFinding, OracleKind
from lambdafuzz.model.outcome import FailureInfo, Status
from lambdafuzz.model.redelivery import redelivers

#: One test as `HandledFindings._kept` saves it: request, result, tag, seconds into the
#: campaign, the campaign's executions.
TestT = tuple[TestRequest, TestResult, Tag, float, int]


class HandledFindings:
    """Handled exceptions and oracle findings by signature, grouped by bug, and the
    oracles that look at every test."""

    def __init__(self, options: CampaignOptions, out: OutDir, recordings: Recordings) -> None:
        # by signature (the variants), and grouped by bug
        self.handled: dict[str, FailureRecord] = {}  # exceptions the application caught
        self.handled_bugs = BugBook()
        # the deployment oracles' findings by kind, by signature and grouped by bug
        self.findings: dict[OracleKind, dict[str, FailureRecord]] = {k: {} for k in OracleKind}
        self.finding_bugs: dict[OracleKind, BugBook] = {k: BugBook() for k in OracleKind}
        self.batch = BatchOracle.of(options.target) if options.oracle(OracleKind.BATCH) else None
        # the share of tests delivered twice (the idempotency oracle), 0 when it is off or
        # AWS delivers this trigger's events once
        redelivered = options.oracle(OracleKind.IDEMPOTENCY) and redelivers(options.target.trigger)
        self.redelivery_share = options.redelivery_share if redelivered else 0.0
        self.redelivered = 0  # tests whose event was to be delivered twice, handler run
        policy = options.target.permissions
        self.least_privilege = (
            LeastPrivilege(policy)
            if policy is not None and options.oracle(OracleKind.PERMISSIONS)
            else None
        )
        self._out = out
        self._recordings = recordings

    def caught(
        self, request: TestRequest, result: TestResult, tag: Tag, now: float, execs: int
    ) -> Iterator[EventT]:
        """Count the exceptions the application caught under their signatures; save each
        new one with its input in handled/.  No re-run in a fresh worker: the catch is
        recorded where it happened, and a test's status does not depend on it."""
        for caught in result.handled:
            info = self._keyed_handled(caught.info)
            new = self._kept(
                self.handled,
                self.handled_bugs,
                info,
                (request, result, tag, now, execs),
                self._out.save_handled,
                caught_at=caught.caught_at,
                raised_in=caught.raised_in,
            )
            if new is not None:
                yield NewHandled(*new)

    def oracles(
        self, request: TestRequest, result: TestResult, tag: Tag, now: float, execs: int
    ) -> Iterator[EventT]:
        """What the oracles say of a test: a second delivery counted, the findings it
        carries and the batch check's (`_findings`), the permissions it used."""
        if request.deliveries > 1 and result.status is not Status.INVALID:
            self.redelivered += 1  # the handler ran (a second delivery follows a return)
        test = (request, result, tag, now, execs)
        if result.findings:
            yield from self._findings(test, result.findings)
        if self.batch is not None:
            found, notice = self.batch.check(result)
            if notice is not None:
                yield Notice("batch-ignored", notice)
            if found:
                yield from self._findings(test, found)
        if result.permission_use is not None and self.least_privilege is not None:
            self.least_privilege.add(result.permission_use)

    def load(self, existing: ExistingCampaign) -> None:
        """A resumed campaign's handled exceptions and findings stay known, and the
        permissions its earlier runs used count on."""
        if self.least_privilege is not None:  # what the earlier runs used counts on
            earlier = self._out.read_permissions([])
            if earlier is not None:
                self.least_privilege.resume(earlier)
        load_bugs(self.handled_bugs, self.handled, existing.handled)
        for kind, found in existing.findings:
            load_bugs(self.finding_bugs[kind], self.findings[kind], found)

    def save_all(self) -> None:
        """Write every bug's file again (their hit counts changed since each was first
        written), and the least-privilege report."""
        for bug in self.handled_bugs:
            self._out.save_handled(bug)
        for kind, book in self.finding_bugs.items():
            for bug in book:
                self._out.save_finding(kind, bug)
        if self.least_privilege is not None:
            self._out.write_permissions(self.least_privilege.report())

    def _findings(self, test: TestT, findings: Iterable[OracleFinding]) -> Iterator[EventT]:
        """Count the deployment oracles' findings under their signatures; save each new
        one with its input in its kind's folder, as `caught` does."""
        for finding in _distinct(findings):
            kind = finding.kind
            new = self._kept(
                self.findings[kind],
                self.finding_bugs[kind],
                finding.info,
                test,
                functools.partial(self._out.save_finding, kind),
                oracle=kind.value,
                evidence=finding.evidence,
            )
            if new is not None:
                yield NewFinding(kind, *new)

    def _kept(
        self,
        known: dict[str, FailureRecord],
        book: BugBook,
        info: FailureInfo,
        test: TestT,
        save: Callable[[Any], Any],
        **more: Any,
    ) -> tuple[FailureRecord, str] | None:
        """A handled exception or an oracle's finding of one test (neither changes its
        status): another hit of a known signature (its input kept when smaller), or a new
        record saved with its input (`save`); the record and its bug's key when the bug
        is new."""
        request, result, tag, now, execs = test
        signature = info.signature
        record = known.get(signature)
        if record is not None:
            record.hits += 1
            self._recordings.keep_smaller(book, signature, request, result, tag)
            return None
        record = new_record(signature, info, result, now, execs, **more)
        known[signature] = record
        recorded = self._recordings.recorded(request, result)
        saved = self._recordings.failure_input(request, recorded, tag, record)
        bug, new = book.add(record, saved, input_size(recorded))
        save(bug)
        return (record, bug.key) if new else None

    def _keyed_handled(self, info: FailureInfo) -> FailureInfo:
        """`info`, generalized past MAX_SHAPES_PER_SITE signatures of its site (as
        `Confirmation._keyed` does for failures)."""
        if info.signature in self.handled:
            return info
        site = info.site
        known = sum(1 for r in self.handled.values() if r.info.site == site)
        return info.generalized() if known >= MAX_SHAPES_PER_SITE else info


def _distinct(findings: Iterable[OracleFinding]) -> list[OracleFinding]:
    """One finding per kind and signature of a test: a loop making the same denied call
    a hundred times is one hit of that finding, not a hundred."""
    seen: dict[tuple[OracleKind, str], OracleFinding] = {}
    for finding in findings:
        seen.setdefault((finding.kind, finding.info.signature), finding)
    return list(seen.values())
