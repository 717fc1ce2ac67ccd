"""The `Pool` protocol as test doubles implement it: a pool that cannot re-run, keep or
recycle anything unless a double says otherwise (its answers are None)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from lambdafuzz.harness.process.pool import Rerun
from lambdafuzz.harness.process.protocol import KeptInput, TestRequest, TestResult, WorkerInfo


class PoolDouble:
    """A `Pool` whose every optional answer is "cannot"; doubles override what they do."""

    info = WorkerInfo(pid=0, app_arms_total=0, import_coverage={})
    restarts = 0
    stray = 0
    lost = 0
    #: a double answers with its results' recordings (it keeps nothing to be asked for)
    keeps_recordings = False

    def imap(self, requests: Iterable[TestRequest]) -> Iterator[tuple[TestRequest, TestResult]]:
        raise NotImplementedError

    def kept(self, request: TestRequest) -> KeptInput | None:
        return None

    def rerun(self, request: TestRequest) -> TestResult | None:
        return None

    def rerun_later(self, request: TestRequest) -> Rerun | None:
        return None

    def run_again(self, request: TestRequest) -> TestResult | None:
        return self.rerun(request)

    def recycle(self, request: TestRequest) -> None:
        pass

    def forget(self, request: TestRequest) -> None:
        pass

    def warm_spare(self) -> None:
        pass

    def close(self) -> None:
        pass
