"""pytest plugin: a lambdafuzz out dir replays as regression tests, and tests may fuzz.

* `--lambdafuzz-corpus DIR` (repeatable) or the ini option `lambdafuzz_corpus` adds, for
  each campaign in DIR (DIR itself, or its per-function subdirectories), one test per saved
  unique failure, which replays it (the minimized `NAME.min.json` when there is one) and
  fails while it still fails, showing the exception, traceback, what the handler printed
  and logged, world and event; and one
  `coverage` test that replays `corpus/` and `failures/` and fails when fewer branch arms are
  reached than `stats.json` recorded.
* The `lambdafuzz_fuzz` fixture runs a bounded campaign inside a test and returns its
  `CampaignFinished`; `@pytest.mark.lambdafuzz(config, execs=..., seed=...)` sets its
  defaults.

Replays run in one worker process per campaign (started at its first test, stopped after
its last), the same harness `lambdafuzz repro` uses.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from lambdafuzz.fuzzer.out_dir import FailureEntry
    from lambdafuzz.harness.measure.arm_catalog import ArmKey
    from lambdafuzz.harness.process.protocol import TestResult

INI_CORPUS = "lambdafuzz_corpus"
INI_FAILURES = "lambdafuzz_failures_dir"
#: Where a failing fuzz test's inputs are copied (relative to the rootdir): outside pytest's
#: tmp dirs, which are deleted, so `lambdafuzz repro` works on them after the run.
DEFAULT_FAILURES_DIR = ".lambdafuzz/failures"
_CAMPAIGNS = pytest.StashKey[list[Any]]()
DEFAULT_EXECS = 200
#: Arms listed when coverage dropped (the rest are counted).
SHOWN_ARMS = 20


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lambdafuzz", "lambdafuzz corpus replay")
    group.addoption(
        "--lambdafuzz-corpus",
        action="append",
        default=[],
        metavar="DIR",
        help="A lambdafuzz out dir whose saved failures and corpus run as regression tests (repeatable).",
    )
    parser.addini(
        INI_CORPUS,
        type="paths",
        default=[],
        help="lambdafuzz out dirs whose saved failures and corpus run as regression tests.",
    )
    parser.addini(
        INI_FAILURES,
        default=DEFAULT_FAILURES_DIR,
        help="Where failing lambdafuzz_fuzz tests copy their failing inputs (rootdir-relative).",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "lambdafuzz(config, execs=200, seed=0, strategy='frontier', function=None): "
        "defaults for the lambdafuzz_fuzz fixture",
    )


def _corpus_dirs(config: pytest.Config) -> list[Path]:
    given = [Path(p) for p in config.getoption("lambdafuzz_corpus") or []]
    given += [Path(p) for p in config.getini(INI_CORPUS) or []]
    found: list[Path] = []
    for directory in given:
        directory = (
            directory if directory.is_absolute() else Path(config.invocation_params.dir) / directory
        )
        if (directory / "campaign.json").is_file():
            campaigns = [directory]
        elif directory.is_dir():
            campaigns = sorted(p for p in directory.iterdir() if (p / "campaign.json").is_file())
        else:
            campaigns = []
        if not campaigns:
            raise pytest.UsageError(
                f"--lambdafuzz-corpus {directory}: no lambdafuzz campaign there (no campaign.json); "
                f"expected the --out directory of `lambdafuzz fuzz`"
            )
        found += [c.resolve() for c in campaigns if c.resolve() not in found]
    return found


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the corpus tests before -k/-m deselection sees the items, reported through the
    collection hooks so the terminal (and `--collect-only`) counts them."""
    for directory in _corpus_dirs(config):
        name = _rel(directory, config)
        collector = CampaignCollector.from_parent(session, name=name, path=directory, nodeid=name)
        report = collector.ihook.pytest_make_collect_report(collector=collector)
        collector.ihook.pytest_collectreport(report=report)
        items.extend(x for x in report.result if isinstance(x, pytest.Item))


def _rel(path: Path, config: pytest.Config) -> str:
    try:
        return path.relative_to(config.rootpath).as_posix()
    except ValueError:
        return path.as_posix()


# =========================================================================== replaying
class _CampaignReplay:
    """A campaign directory, its target, and the replayer its tests share."""

    def __init__(self, directory: Path) -> None:
        from lambdafuzz.config.campaign import campaign_target
        from lambdafuzz.fuzzer.out_dir import OutDir
        from lambdafuzz.fuzzer.replay import Replayer

        self.campaign = OutDir(directory).read()
        self.target = campaign_target(self.campaign)
        self.replayer = Replayer.for_campaign(self.target, self.campaign.meta)
        self.replayer.pool  # noqa: B018 - start the worker now: a broken handler fails setup

    def close(self) -> None:
        self.replayer.close()


class CampaignCollector(pytest.Collector):
    """The tests of one campaign directory."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._replayer: _CampaignReplay | None = None
        self._setup_error: str | None = None

    def collect(self) -> list[pytest.Item]:
        from lambdafuzz.fuzzer.out_dir import OutDir

        campaign = OutDir(self.path).read()
        for problem in campaign.problems:  # an unreadable saved file: warned, not collected
            self.warn(pytest.PytestWarning(f"lambdafuzz: skipped {problem}"))
        items: list[pytest.Item] = [
            FailureItem.from_parent(self, name=f"failure[{entry.path.stem}]", entry=entry)
            for entry in campaign.failures
        ]
        items.append(CoverageItem.from_parent(self, name="coverage"))
        return items

    def replayer(self) -> _CampaignReplay:
        from lambdafuzz.errors import LambdafuzzError

        if self._setup_error is not None:
            pytest.fail(self._setup_error, pytrace=False)
        if self._replayer is None:
            try:
                self._replayer = _CampaignReplay(self.path)
            except LambdafuzzError as exc:
                self._setup_error = f"lambdafuzz: cannot replay {self.path}: [{exc.slug}] {exc}"
                pytest.fail(self._setup_error, pytrace=False)
        return self._replayer

    def teardown(self) -> None:
        if self._replayer is not None:
            self._replayer.close()
            self._replayer = None


class ReplayedFailure(Exception):
    """A saved failure that still fails; its text is the test's failure message."""


class FailureItem(pytest.Item):
    """One saved unique failure, replayed."""

    def __init__(self, *, entry: FailureEntry, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entry = entry

    def runtest(self) -> None:
        from lambdafuzz.fuzzer.corpus import load_input
        from lambdafuzz.model.outcome import Status

        parent = self.parent
        assert isinstance(parent, CampaignCollector)
        replayer = parent.replayer()
        path = self.entry.minimized or self.entry.path
        saved = load_input(path)
        result = replayer.replayer.replay(saved)
        if result.status < Status.FAILURE:
            return  # fixed: the saved failure no longer reproduces
        raise ReplayedFailure(_describe(self.entry, path, result, replayer))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ReplayedFailure):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style=style))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.entry.path, None, f"lambdafuzz failure: {self.entry.signature}"


def _describe(
    entry: FailureEntry, path: Path, result: TestResult, replayer: _CampaignReplay
) -> str:
    from lambdafuzz.config.campaign import reproduce_command

    failure = result.failure
    replayed = failure.signature if failure is not None else result.status.name
    same = "the same failure" if replayed == entry.signature else f"now {replayed}"
    lines = [
        f"lambdafuzz: saved failure still fails ({same})",
        f"  saved:    {entry.signature}",
        f"  replayed: {replayed}",
        f"  input:    {path}",
        "",
    ]
    if failure is not None:
        if failure.where not in replayed:  # a frame outside the application, with its line
            lines.insert(3, f"  where:    {failure.where}")
        lines += [
            f"{failure.exception_type}: {failure.message}",
            "",
            failure.traceback.rstrip(),
            "",
        ]
    lines += _log_lines(result.log)
    world = replayer.replayer.summarize(result.recording)
    lines += ["World (the AWS state the handler ran against):", _json(world), ""]
    lines += ["Event:", _json(result.event), ""]
    lines += [f"Reproduce: {reproduce_command(replayer.campaign, entry.path)}"]
    return "\n".join(lines)


def _log_lines(log: str) -> list[str]:
    """What the handler printed and logged (stdout, stderr, log records; the last 64 KB)."""
    if not log:
        return ["Log: the handler printed and logged nothing.", ""]
    return ["Log (what the handler printed and logged):", log.rstrip("\n"), ""]


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, default=repr)


class CoverageItem(pytest.Item):
    """Replays the corpus; fails when it reaches fewer arms than the campaign did."""

    def runtest(self) -> None:
        from lambdafuzz.fuzzer.corpus import iter_inputs
        from lambdafuzz.fuzzer.out_dir import OutDir

        parent = self.parent
        assert isinstance(parent, CampaignCollector)
        out = OutDir(self.path)
        stats = out.read_stats()
        if stats is None:
            pytest.skip(f"{self.path}: no stats.json, nothing to compare coverage with")
        # inputs that failed count in app_branches_covered but are not in corpus/
        recorded = stats.corpus_branches_covered or stats.app_branches_covered
        replayer = parent.replayer().replayer
        arms: set[ArmKey] = set(replayer.info.import_coverage)
        replayed = 0
        for folder in (out.corpus_dir, out.failures_dir):
            for item in iter_inputs(folder):
                if isinstance(item, Exception):
                    continue  # a corrupt file: the failure tests report theirs
                arms.update(replayer.replay(item, want_event=False).coverage)
                replayed += 1
        if len(arms) >= recorded:
            return
        missing = [a for a in out.read_coverage().covered if a.arm not in arms]
        shown = [f"  {a.file}:{a.from_line} -> {a.to_line}" for a in missing[:SHOWN_ARMS]]
        more = len(missing) - len(shown)
        total = replayer.info.app_arms_total
        pytest.fail(
            "\n".join(
                [
                    f"lambdafuzz: branch coverage dropped: the {replayed} saved inputs of {self.path} now reach "
                    f"{len(arms)} arms; the campaign reached {recorded} (stats.json); the app has {total} arms",
                    "arms the campaign covered that the replay did not:" if shown else "",
                    *shown,
                    f"  ... and {more} more" if more > 0 else "",
                ]
            ).rstrip(),
            pytrace=False,
        )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path / "stats.json", None, f"lambdafuzz coverage of {self.path.name}"


# =========================================================================== fuzzing in a test
@pytest.fixture
def lambdafuzz_fuzz(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[..., Any]:
    """`lambdafuzz_fuzz(config, execs=200, seed=0, strategy="frontier", function=None,
    seconds=None, out=None) -> CampaignFinished`: a bounded campaign inside the test.
    A relative `config` resolves against the test file's directory, then the cwd."""
    marker = request.node.get_closest_marker("lambdafuzz")
    defaults: dict[str, Any] = dict(marker.kwargs) if marker else {}
    if marker and marker.args:
        defaults.setdefault("config", marker.args[0])
    base = Path(str(request.node.path)).parent

    def fuzz(config: str | os.PathLike[str] | None = None, **options: Any) -> Any:
        merged = {**defaults, **options}
        config = config if config is not None else merged.pop("config", None)
        merged.pop("config", None)
        if config is None:
            raise TypeError(
                "lambdafuzz_fuzz needs a config (argument or @pytest.mark.lambdafuzz(config))"
            )
        finished = _fuzz(_resolve(Path(config), base), tmp_path / "lambdafuzz", **merged)
        request.node.stash.setdefault(_CAMPAIGNS, []).append(finished)
        return finished

    return fuzz


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A failing test that fuzzed shows its failures like Hypothesis's falsifying example:
    exception, traceback into the handler, event and world, and where the inputs were kept."""
    report = yield
    campaigns = item.stash.get(_CAMPAIGNS, [])
    if call.when == "call" and report.failed and campaigns:
        text = _falsifying_examples(item, campaigns)
        if text:
            report.sections.append(("lambdafuzz: falsifying examples", text))
    return report


def _keep_campaign_json(out: Any, keep: Path) -> None:
    import json

    from lambdafuzz.fuzzer.options import relative_to

    data = json.loads((out.path / "campaign.json").read_text(encoding="utf-8"))
    meta = out.read_meta()
    if meta is not None:
        config = meta.config_shown(out.path)
        if config != "?":
            data["config"] = relative_to(config, keep)
    (keep / "campaign.json").write_text(json.dumps(data, indent=1), encoding="utf-8")


def _falsifying_examples(item: pytest.Item, campaigns: list[Any]) -> str:
    import re
    import shutil

    from lambdafuzz.fuzzer.out_dir import OutDir

    keep = item.config.rootpath / str(item.config.getini(INI_FAILURES))
    keep = keep / re.sub(r"[^A-Za-z0-9_.-]+", "_", item.nodeid).strip("_")
    parts = []
    for finished in campaigns:
        out = OutDir(finished.out_dir)
        for entry in out.read().failures:
            kept = keep / entry.path.name
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(entry.path, kept)
            # campaign.json beside it: `repro` finds the target and dictionary from there,
            # its config path made relative to the copy's folder
            _keep_campaign_json(out, keep)
            where = entry.record.info.where
            variants = f", {len(entry.variants)} variants" if len(entry.variants) > 1 else ""
            parts += [
                f"Falsifying example: {entry.title} ({entry.hits} hit(s){variants})",
                *([f"Where: {where}"] if where not in entry.title else []),
                f"{entry.exception_type}: {entry.message}".rstrip(": "),
                "",
                entry.traceback.rstrip(),
                "",
                *_log_lines(entry.saved.log),
                "World (the AWS state the handler ran against):",
                _json(entry.saved.world),
                "",
                "Event:",
                _json(entry.saved.event),
                "",
                f"Input kept at {kept}",
                f"Reproduce: lambdafuzz repro {kept}",
                "",
            ]
    return "\n".join(parts).rstrip()


def _resolve(config: Path, base: Path) -> Path:
    if config.is_absolute() or not (base / config).exists():
        return config
    return base / config


def _fuzz(
    config: Path,
    default_out: Path,
    *,
    execs: int | None = None,
    seconds: float | None = None,
    function: str | None = None,
    out: Path | None = None,
    **campaign: Any,
) -> Any:
    """Run one campaign; `campaign` holds any other campaign option (strategy, seed,
    workers, ...) under its `CampaignOptions` name."""
    from lambdafuzz.config import load_target
    from lambdafuzz.fuzzer.campaign import build_engine
    from lambdafuzz.fuzzer.events import CampaignFinished

    target = load_target(config, function)
    if execs is None and seconds is None:
        execs = DEFAULT_EXECS
    engine = build_engine(
        target,
        out_dir=Path(out) if out is not None else default_out,
        max_execs=execs,
        max_seconds=seconds,
        function=function,
        **campaign,
    )
    finished = None
    for event in engine.run():
        if isinstance(event, CampaignFinished):
            finished = event
    assert finished is not None
    return finished
