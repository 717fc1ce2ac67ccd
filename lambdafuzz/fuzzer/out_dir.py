"""The one owner of a campaign's output folder, in both directions.

The engine writes `campaign.json` (the options, including the dictionary that replay
needs), `stats.json`, `plot_data.csv`, `coverage.json`, `corpus/`, `failures/` and
`cost/` (the worst input past each cost budget, `fuzzer.cost.CostFinding`), `handled/`
(exceptions the application caught, one input per signature, kept on resume), one folder
per deployment oracle with findings (`permissions/`, `idempotency/`, `batch/`) and the
least-privilege report `permissions.json`;
`lambdafuzz minimize` adds `NAME.min.json` beside a failure.  Everything else — replay,
reports, CI outputs, the pytest plugin, resume — reads the folder through the typed
records here.  Readers tolerate a campaign that was interrupted: a missing file is an empty
section, an unreadable one is listed in `problems`, never raised.  Files are replaced
atomically, never rewritten in place, and corrupt ones are kept on disk.

No write leaves the out dir through a symlink: a campaign refuses to start while a folder
or file it writes (`OWN_FOLDERS`, `OWN_FILES`) is one (`check_layout`); a folder made later
is written through a descriptor opened without following one, and a file's rename replaces
a symlink rather than following it.  The out dir itself may be a symlink (the user chose it).

A resumed campaign never moves `corpus/` away: its inputs keep their names, are re-run from
where they are and rewritten in place (atomically) when re-saved; new inputs are numbered
after the highest name there.  A resume stopped at any moment leaves every input on disk for
the next one.  `corpus.prevN/` folders (where releases before this one moved the corpus on
resume) are merged back into `corpus/` once, duplicates dropped.

An out dir belongs to one target and one campaign at a time: `campaign.json` records the
target's `TargetIdentity` (a resume for another target is refused, `check_target`), and a
running campaign holds `campaign.lock` (an exclusive `flock` on a file holding its pid; the
kernel drops it when the process dies, so a lock left by a killed campaign is taken over).
Paths in `campaign.json` are relative to the out dir: a copied project with its out dir
replays the copy (`CampaignMeta.config_candidates`).
"""

from __future__ import annotations

import contextlib
import csv
import errno
import fcntl
import io
import json
import os
import re
import socket
import stat
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from lambdafuzz.atomic_files import fsync_directory, remove_stale_temps, write_text_atomic
from lambdafuzz.errors import CorpusError
from lambdafuzz.fuzzer.bugs import Bug, BugFile, Variant, bug_of_file, merged, read_bug_file
from lambdafuzz.fuzzer.corpus import (
    SavedInput,
    is_safe_name,
    iter_inputs,
    load_input,
    read_json_file,
    read_text_file,
    save_input,
)
from lambdafuzz.fuzzer.corpus import write_json_atomic as _write_json
from lambdafuzz.fuzzer.cost import CostFinding
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.options import CampaignOptions, TargetIdentity
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.generators.draw_policy import DrawPolicy
from lambdafuzz.model.emulation import BackendKind
from lambdafuzz.model.oracle import OracleKind
from lambdafuzz.model.target import Target

T = TypeVar("T")  # a record read from one of the folder's JSON files

CAMPAIGN_FILE = "campaign.json"
STATS_FILE = "stats.json"
PLOT_FILE = "plot_data.csv"
COVERAGE_FILE = "coverage.json"
CORPUS_DIR = "corpus"
FAILURES_DIR = "failures"
#: Failures that did not reproduce in a fresh worker (the record has both outcomes).
FLAKY_DIR = "flaky"
#: Exceptions the application caught (`harness.handled`): one input per signature, the
#: failures/ format with `caught_at` and `raised_in` in the record.
HANDLED_DIR = "handled"
#: Cost findings: `<measure>.json`, the worst input past that measure's budget.
COST_DIR = "cost"
#: `lambdafuzz minimize` writes NAME.min.json beside failures/NAME.json.
MIN_SUFFIX = ".min.json"
#: Held (flock) by the campaign running in the out dir; holds its pid, host and start time.
LOCK_FILE = "campaign.lock"
#: A local Ray cluster's sessions and logs, when lambdafuzz starts it (`--ray`)
RAY_DIR = "ray"
#: One folder per file system of the target (`OUT/efs/<name>/`, mounted where the handler
#: finds it), kept across restarts.
EFS_DIR = "efs"
#: The page `lambdafuzz report` writes (`report.html.REPORT_NAME`).
REPORT_FILE = "report.html"
PLOT_HEADER = "time_s,execs,branches,valid_branches,corpus,failures"
#: campaign.json, stats.json, coverage.json and plot_data.csv larger than this are refused.
MAX_RECORD_BYTES = 64 * 1024 * 1024
#: Where releases before this one moved `corpus/` on resume; merged back on resume.
LEGACY_CORPUS_DIR = re.compile(rf"{CORPUS_DIR}\.prev(\d+)")
#: The names the engine gives new corpus inputs.
ENTRY_NAME = re.compile(r"id-(\d+)")
#: The folders and files lambdafuzz writes in an out dir: each must be a real one (or not
#: there yet), never a symlink that would lead a write out of the out dir (`check_layout`).
#: The deployment oracles' findings: one folder per kind (`permissions/`, ...), the
#: failures/ format with `oracle` and `evidence` in the record.
ORACLE_DIRS = tuple(kind.value for kind in OracleKind)
#: Where a campaign's least-privilege report goes (permission oracle on only).
PERMISSIONS_REPORT = "permissions.json"
OWN_FOLDERS = (
    CORPUS_DIR, FAILURES_DIR, FLAKY_DIR, HANDLED_DIR, COST_DIR, EFS_DIR, RAY_DIR, *ORACLE_DIRS
)  # fmt: skip
OWN_FILES = (
    CAMPAIGN_FILE, STATS_FILE, PLOT_FILE, COVERAGE_FILE, REPORT_FILE, LOCK_FILE,
    PERMISSIONS_REPORT,
)  # fmt: skip


# =========================================================================== records
@dataclass(slots=True, frozen=True)
class CampaignMeta:
    """What `campaign.json` records: where the target came from and how inputs replay."""

    config: str  # relative to the out dir; absolute in files written before identities
    function: str | None
    handler: str
    strategy: str
    seed: int
    mode: ReplayMode
    backend: BackendKind
    endpoint: str | None
    # how the campaign drew fresh values (`DrawPolicy.from_json`): a saved input replays
    # only with it; an older file without the keys ran with the defaults
    policy: DrawPolicy
    # False: an older campaign.json without a dictionary (replay takes the config's)
    dictionary_recorded: bool = True
    config_absolute: str | None = None  # where the config was when the campaign ran
    identity: TargetIdentity | None = None  # None: an older campaign.json without one
    # the target's sample events (name, JSON text) as the campaign saw them: its seeds'
    # descendants replay with these even when events/ changed or came from --seed-corpus
    samples: tuple[tuple[str, str], ...] = ()
    # the --parameter-overrides the template was loaded with
    parameter_overrides: tuple[tuple[str, str], ...] = ()

    def replay_policy(self, target: Target) -> DrawPolicy:
        """The policy a saved input of this campaign replays with: the recorded one, with
        the config's dictionary when the file is older than that record."""
        if self.dictionary_recorded:
            return self.policy
        return replace(self.policy, dictionary=tuple(target.dictionary))

    def config_shown(self, out_dir: Path) -> str:
        """The config's path for people: the first candidate that exists, else the first."""
        candidates = self.config_candidates(out_dir)
        found = next((p for p in candidates if p.exists()), None) or (
            candidates[0] if candidates else None
        )
        return str(found) if found is not None else "?"

    def config_candidates(self, out_dir: Path) -> list[Path]:
        """Where the config is, most likely first: `config` taken relative to the out dir
        (so a project copied with its out dir replays the copy), then the absolute path it
        was fuzzed from (a campaign.json copied away from its out dir).  An absolute
        `config` (older files) is the only candidate."""
        if not self.config:
            return [Path(self.config_absolute)] if self.config_absolute else []
        recorded = Path(self.config)
        if recorded.is_absolute():
            return [recorded]
        found = [(out_dir.resolve() / recorded).resolve()]
        if self.config_absolute and Path(self.config_absolute) not in found:
            found.append(Path(self.config_absolute))
        return found

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CampaignMeta:
        """Older files lack the dictionary: replay falls back to the config's."""
        return cls(
            config=str(data.get("config") or ""),
            function=str(data["function"]) if data.get("function") else None,
            handler=str(data.get("handler") or "handler"),
            strategy=str(data.get("strategy") or ""),
            seed=int(data.get("seed") or 0),
            mode=ReplayMode(data.get("mode") or ReplayMode.EXECUTION_INDEXED.value),
            backend=BackendKind(data.get("backend") or BackendKind.MOTO),
            endpoint=str(data["endpoint"]) if data.get("endpoint") else None,
            policy=DrawPolicy.from_json(data),
            dictionary_recorded=data.get("dictionary") is not None,
            config_absolute=str(data["config_absolute"]) if data.get("config_absolute") else None,
            identity=TargetIdentity.from_json(data.get("identity")),
            samples=tuple(
                (str(s["name"]), str(s["event"]))
                for s in data.get("samples") or ()
                if isinstance(s, dict) and "name" in s and "event" in s
            ),
            parameter_overrides=tuple(
                (str(pair[0]), str(pair[1]))
                for pair in data.get("parameter_overrides") or ()
                if isinstance(pair, list | tuple) and len(pair) == 2
            ),
        )


@dataclass(slots=True, frozen=True)
class FailureEntry:
    """One bug of a campaign, as saved in `failures/` (or `handled/`): the file's input
    and record are its primary variant's (`fuzzer.bugs`)."""

    path: Path
    saved: SavedInput
    record: FailureRecord
    minimized: Path | None  # NAME.min.json beside it, written by `lambdafuzz minimize`
    key: str = ""  # the bug's key (`model.bug`)
    variants: tuple[Variant, ...] = ()  # every signature of the bug, first found first
    other_hits: int = 0  # hits of signatures past the variants kept

    @property
    def signature(self) -> str:
        """The primary variant's signature."""
        return self.record.signature

    @property
    def title(self) -> str:
        """What the bug is, as people read it: its key."""
        return self.key or self.record.signature

    def variant(self, name: str) -> Variant | None:
        """A variant by its name (`v2`), number (`2`) or signature."""
        wanted = f"v{name}" if name.isdigit() else name
        return next((v for v in self.variants if wanted in (v.name, v.signature)), None)

    @property
    def exception_type(self) -> str:
        return self.record.info.exception_type or "Failure"

    @property
    def message(self) -> str:
        return self.record.info.message

    @property
    def traceback(self) -> str:
        return self.record.info.traceback

    @property
    def location(self) -> str:
        return self.record.info.location

    @property
    def hits(self) -> int:
        """Every hit of the bug, all its variants together."""
        if not self.variants:
            return self.record.hits
        return sum(v.record.hits for v in self.variants) + self.other_hits


@dataclass(slots=True, frozen=True)
class PlotRow:
    time_s: float
    execs: int
    branches: int
    valid_branches: int
    corpus: int
    failures: int

    def to_csv(self) -> str:
        return (
            f"{self.time_s},{self.execs},{self.branches},"
            f"{self.valid_branches},{self.corpus},{self.failures}"
        )


@dataclass(slots=True, frozen=True)
class CoveredArm:
    """One branch arm a campaign covered, and when it was first hit."""

    arm: tuple[Any, ...]
    file: str
    from_line: int | None
    to_line: int | None
    first_exec: int
    first_s: float
    valid: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "arm": list(self.arm),
            "file": self.file,
            "from_line": self.from_line,
            "to_line": self.to_line,
            "first_exec": self.first_exec,
            "first_s": round(self.first_s, 3),
            "valid": self.valid,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CoveredArm:
        arm = tuple(data.get("arm") or ())
        return cls(
            arm=arm,
            file=str(data.get("file") or (arm[0] if arm else "")),
            from_line=data.get("from_line"),
            to_line=data.get("to_line"),
            first_exec=int(data.get("first_exec") or 0),
            first_s=float(data.get("first_s") or 0.0),
            valid=bool(data.get("valid")),
        )


@dataclass(slots=True, frozen=True)
class CoverageRecord:
    """`coverage.json`: the app's arm total and every covered arm."""

    app_branches_total: int
    covered: tuple[CoveredArm, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "app_branches_total": self.app_branches_total,
            "covered": [a.to_json() for a in self.covered],
        }


@dataclass(slots=True, frozen=True)
class CostEntry:
    """One cost finding of a campaign, as saved in `cost/`."""

    path: Path
    saved: SavedInput
    finding: CostFinding


@dataclass(slots=True, frozen=True)
class CampaignDir:
    """Everything a reader needs of one out dir."""

    path: Path
    meta: CampaignMeta | None  # None when campaign.json is missing or unreadable
    stats: Stats | None
    failures: tuple[FailureEntry, ...]
    problems: tuple[str, ...]  # files that could not be read
    cost: tuple[CostEntry, ...] = ()  # cost findings, worst first by measure order
    handled: tuple[FailureEntry, ...] = ()  # handled/: exceptions the application caught
    # the deployment oracles' findings by kind, in `OracleKind` order (kinds with none left
    # out); and the least-privilege report (`permissions.json`), None when not written
    findings: tuple[tuple[OracleKind, tuple[FailureEntry, ...]], ...] = ()
    permissions: dict[str, Any] | None = None

    @property
    def handler(self) -> str:
        return self.meta.handler if self.meta is not None else "handler"


@dataclass(slots=True, frozen=True)
class ExistingCampaign:
    """What a resumed campaign finds: inputs to re-run, failures already known."""

    resumed: tuple[SavedInput, ...]  # corpus/, by name: re-saved in place under that name
    seeds: tuple[SavedInput, ...]  # the seed corpora's inputs, saved under new names
    failures: tuple[FailureEntry, ...]
    meta: CampaignMeta | None
    problems: tuple[str, ...]
    next_number: int  # new inputs are named id-NNNNNN from here on: no name is reused
    flaky: tuple[FailureEntry, ...] = ()  # flaky/: failures that did not reproduce
    handled: tuple[FailureEntry, ...] = ()  # handled/: exceptions the application caught
    findings: tuple[tuple[OracleKind, tuple[FailureEntry, ...]], ...] = ()  # by oracle

    @property
    def is_resume(self) -> bool:
        """Whether an earlier campaign left anything here (the seed corpora do not count)."""
        return bool(
            self.meta is not None
            or self.resumed
            or self.failures
            or self.flaky
            or self.handled
            or self.findings
        )


class OutDirError(CorpusError):
    """An out dir this campaign may not run in: another target's, or one a running
    campaign holds.  A usage error (exit status 2), never a crash."""

    slug = "out-dir"


@dataclass(slots=True)
class CampaignLock:
    """`campaign.lock`, held for as long as a campaign runs in the out dir."""

    path: Path
    fd: int | None  # None: the file system cannot lock (the campaign runs unlocked)
    note: str | None = None  # a lock taken over from a dead campaign, or why there is none

    def release(self) -> None:
        """Remove the lock file (while still holding it, so no other campaign can lock
        the removed file), then let go."""
        if self.fd is None:
            return
        fd, self.fd = self.fd, None
        try:
            if os.path.samestat(os.fstat(fd), os.stat(self.path, follow_symlinks=False)):
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            os.close(fd)


# =========================================================================== the folder
class OutDir:
    """A campaign's output folder.  The engine writes through it, everything else reads."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    @property
    def corpus_dir(self) -> Path:
        return self.path / CORPUS_DIR

    @property
    def failures_dir(self) -> Path:
        return self.path / FAILURES_DIR

    # ------------------------------------------------------------------ owning it
    def lock(self) -> CampaignLock:
        """Take `campaign.lock` for a campaign (creating the out dir); an `OutDirError`
        naming the pid of the campaign that holds it.  A lock file left by a campaign that
        was killed is not held by anyone (the kernel releases a dead process's flock): it
        is taken over, and the lock's `note` says so."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutDirError(f"{self.path}: cannot create the out dir: {exc.strerror}") from None
        path = self.path / LOCK_FILE
        for _ in range(100):
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
            except OSError as exc:
                raise OutDirError(
                    f"{path}: cannot open the campaign lock ({exc.strerror}); expected a "
                    f"regular file or none"
                ) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _lock_holder(fd)
                os.close(fd)
                raise OutDirError(
                    f"{self.path} is in use by another campaign ({_describe_holder(holder)}); "
                    f"wait for it to finish, stop it, or use another --out"
                ) from None
            except OSError as exc:  # a file system without locks: run, but say so
                os.close(fd)
                if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    raise OutDirError(f"{path}: cannot lock: {exc.strerror}") from None
                return CampaignLock(
                    path,
                    None,
                    f"{path}: the file system cannot lock files ({exc.strerror}); "
                    "nothing stops a second campaign from running in this out dir at once",
                )
            try:  # released and removed by its holder while we waited: lock the new one
                current = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
            except FileNotFoundError:
                current = False
            if not current:
                os.close(fd)
                continue
            previous = _lock_holder(fd)
            record = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(record) + "\n").encode(), 0)
            note = None
            if previous:
                note = (
                    f"took over {LOCK_FILE} from a campaign that ended without releasing it "
                    f"({_describe_holder(previous)}, {_liveness(previous)})"
                )
            return CampaignLock(path, fd, note)
        raise OutDirError(f"{path}: the lock file keeps changing; is another campaign starting?")

    def check_target(self, identity: TargetIdentity) -> list[tuple[str, str]]:
        """Whether a campaign for `identity` may resume here: an `OutDirError` naming both
        targets when the out dir holds another target's campaign (another handler or
        template function, or another config with other content); otherwise notes
        (slug, text) for a config whose content changed or that moved.  Nothing to check
        in an out dir without a readable campaign.json."""
        meta = self.read_meta()
        if meta is None:
            return []
        recorded = meta.identity
        if recorded is None:  # an older campaign.json: handler, function and absolute config
            recorded = TargetIdentity(meta.handler, meta.function, meta.config, "")
        config_now = self._config_shown(identity.config)
        config_then = self._config_shown(recorded.config)
        other = recorded.handler != identity.handler or (
            recorded.function is not None
            and identity.function is not None
            and recorded.function != identity.function
        )
        same_config = not recorded.config or (  # nothing recorded: nothing to compare
            self._resolve(recorded.config) == self._resolve(identity.config)
        )
        # a file's hash and a template function's definition hash do not compare
        known_hashes = bool(recorded.hash and identity.hash) and (recorded.function is None) == (
            identity.function is None
        )
        if not other and not same_config:
            if known_hashes:
                other = recorded.hash != identity.hash
            else:  # an older file: a different config that still exists is another target
                other = self._resolve(recorded.config).exists()
        if other:
            raise OutDirError(
                f"{self.path} holds the campaign of another target: "
                f"{recorded.describe(config_then)}; this run fuzzes "
                f"{identity.describe(config_now)}. Resuming would mix their corpora and "
                f"failures: use another --out (e.g. --out {self._suggested_out(identity, recorded)})."
            )
        if not same_config:
            return [
                (
                    "config-changed",
                    f"the campaign in {self.path} was fuzzed from {config_then}, now from "
                    f"{config_now} ({'same content' if known_hashes else 'same handler'}): "
                    "resuming",
                )
            ]
        if known_hashes and recorded.hash != identity.hash:
            what = "function's definition" if identity.function else "content"
            return [
                (
                    "config-changed",
                    f"{config_now} changed since the campaign in {self.path} last ran (its "
                    f"{what} differs): resuming; saved inputs replay under the new settings",
                )
            ]
        return []

    def _resolve(self, config: str) -> Path:
        return (self.path.resolve() / config).resolve()

    def _config_shown(self, config: str) -> str:
        """A recorded config path as a user should read it: relative to the working
        directory when it is below it, else absolute."""
        if not config:
            return "a config campaign.json does not name"
        path = self._resolve(config)
        try:
            return str(path.relative_to(Path.cwd().resolve()))
        except (ValueError, OSError):
            return str(path)

    def _suggested_out(self, identity: TargetIdentity, recorded: TargetIdentity) -> str:
        """A sibling of this out dir: OUT/../FUNCTION for a template function (the default
        layout of --function), else OUT-NAME, NAME telling the new target from the old:
        its handler's function or module, or its config's directory."""
        if identity.function and identity.function != recorded.function:
            return str(self.path.parent / identity.function)
        module, _, function = identity.handler.rpartition(".")
        old_module, _, old_function = recorded.handler.rpartition(".")
        if function != old_function:
            name = function
        elif module != old_module:
            name = module.rsplit(".", 1)[-1]
        else:
            name = self._resolve(identity.config).parent.name or "other"
        path = self.path if self.path.name else self.path.resolve()
        return str(path.with_name(f"{path.name}-{name}"))

    # ------------------------------------------------------------------ writing
    def write_campaign(
        self, options: CampaignOptions, *, isolation: dict[str, Any] | None = None
    ) -> None:
        """`isolation`: what the workers reported keeps the handler off the network
        (`IsolationState.to_json()`), recorded under "isolation" once they started."""
        data = options.recorded_options()
        data["samples"] = [
            {"name": s.name, "event": s.payload_json} for s in options.target.samples
        ]
        if isolation is not None:
            data["isolation"] = isolation
        data["deterministic"] = options.deterministic
        if not options.deterministic:
            if options.ray is not None or options.workers > 1:
                where = "Ray actors" if options.ray is not None else "parallel workers"
                why = f"{where} finish tests in any order"
            else:
                why = (
                    "the cost objective keeps inputs by their durations and memory, which "
                    "depend on timing"
                )
            data["determinism"] = (
                f"not deterministic: {why}, so the same seed and budget need not make the "
                "same corpus"
            )
        _write_json(self.path / CAMPAIGN_FILE, data)

    def write_stats(self, stats: Stats) -> None:
        _write_json(self.path / STATS_FILE, stats.to_json())

    def write_plot(self, rows: list[PlotRow]) -> None:
        lines = [PLOT_HEADER, *(r.to_csv() for r in rows)]
        write_text_atomic(self.path / PLOT_FILE, "\n".join(lines) + "\n")

    def write_coverage(self, coverage: CoverageRecord) -> None:
        _write_json(self.path / COVERAGE_FILE, coverage.to_json())

    def save_corpus_input(self, saved: SavedInput) -> Path:
        path = self.corpus_dir / f"{_safe_name(saved.name)}.json"
        with _real_folder(path):
            save_input(path, saved, real_parent=True)
        return path

    def save_failure(self, bug: Bug) -> Path:
        """Write (or rewrite, with its current variants and hits) a bug's file."""
        return self._save_bug(self.failures_dir, bug)

    def _save_bug(self, folder: Path, bug: Bug) -> Path:
        path = folder / f"{_safe_name(bug.file_name.removesuffix('.json'))}.json"
        _write_in_folder(path, bug.to_json())
        return path

    def save_flaky(self, record: FailureRecord, saved: SavedInput) -> Path:
        """Write (or rewrite) a failure that did not reproduce when re-run in a fresh
        worker: `flaky/`, apart from `failures/` (no regression test, no exit status 1)."""
        path = self.path / FLAKY_DIR / f"{_safe_name(record.file_name.removesuffix('.json'))}.json"
        data = saved.to_json()
        data["failure"] = record.to_json()
        _write_in_folder(path, data)
        return path

    def save_handled(self, bug: Bug) -> Path:
        """Write (or rewrite, with its current variants and hits) an exception the
        application caught, grouped as failures are: `handled/`, apart from `failures/`
        (exit status 1 only with `--fail-on-handled`)."""
        return self._save_bug(self.path / HANDLED_DIR, bug)

    def save_finding(self, kind: OracleKind, bug: Bug) -> Path:
        """Write (or rewrite) a deployment oracle's finding, grouped as failures are, in
        its kind's folder (`permissions/`, ...)."""
        return self._save_bug(self.path / kind.value, bug)

    def write_permissions(self, report: Mapping[str, Any]) -> Path:
        """The least-privilege report: `permissions.json`."""
        path = self.path / PERMISSIONS_REPORT
        _write_in_folder(path, dict(report))
        return path

    def read_permissions(self, problems: list[str]) -> dict[str, Any] | None:
        path = self.path / PERMISSIONS_REPORT
        if not path.is_file():
            return None
        try:
            data = json.loads(path.read_bytes()[:MAX_RECORD_BYTES])
        except (OSError, ValueError) as exc:
            problems.append(f"{path}: unreadable ({exc})")
            return None
        return data if isinstance(data, dict) else None

    def _oracle_findings(
        self, problems: list[str]
    ) -> tuple[tuple[OracleKind, tuple[FailureEntry, ...]], ...]:
        found: list[tuple[OracleKind, tuple[FailureEntry, ...]]] = []
        for kind in OracleKind:
            entries = []
            for item in self.iter_failures(self.path / kind.value):
                if isinstance(item, CorpusError):
                    problems.append(str(item))
                else:
                    entries.append(item)
            if entries:
                found.append((kind, tuple(_grouped(entries))))
        return tuple(found)

    def save_cost(self, finding: CostFinding, saved: SavedInput) -> Path:
        """Write (or replace, with a worse input) the cost finding of one measure."""
        path = self.path / COST_DIR / finding.file_name
        data = saved.to_json()
        data["cost"] = finding.to_json()
        _write_in_folder(path, data)
        return path

    def iter_cost(self) -> Iterator[CostEntry | CorpusError]:
        """Every saved cost finding, in measure order."""
        folder = self.path / COST_DIR
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                saved = load_input(path)
            except CorpusError as exc:
                yield exc
                continue
            finding = CostFinding.from_json(saved.extra.get("cost"))
            if finding is None:
                yield CorpusError(f"{path}: no cost finding record (field 'cost')")
                continue
            yield CostEntry(path, saved, finding)

    def save_minimized(
        self, failure_path: Path, saved: SavedInput, variant: str | None = None
    ) -> Path:
        """NAME.min.json beside failures/NAME.json (NAME.VARIANT.min.json for a variant
        named on the command line); resume never reads it as a record."""
        path = minimized_path(failure_path, variant)
        save_input(path, saved)
        return path

    def prepare_resume(self) -> list[str]:
        """Make the folder ready for a campaign to resume in it; what was done, as notes.

        Refuses (`OutDirError`) a folder or file that is not what lambdafuzz writes there
        (`check_layout`); removes the temporary files of writes that a kill interrupted;
        merges `corpus.prevN/` folders back into `corpus/`.
        Every step is safe to interrupt: a later resume finishes it."""
        self.check_layout()
        notes = []
        oracles = tuple(self.path / name for name in ORACLE_DIRS)
        folders = (self.path, self.corpus_dir, self.failures_dir, self.path / HANDLED_DIR)
        folders += oracles
        stale = sum(remove_stale_temps(d) for d in folders)
        if stale:
            notes.append(f"removed {stale} temporary file(s) left by an interrupted write")
        for legacy in self._legacy_corpora():
            notes.append(self._merge_legacy(legacy))
        for folder in (self.failures_dir, self.path / HANDLED_DIR, *oracles):
            note = self._group_bug_files(folder)
            if note:
                notes.append(note)
        return notes

    def check_layout(self) -> None:
        """Refuse (`OutDirError`, naming it) a folder of `OWN_FOLDERS` that is a symlink or
        not a directory, a symlink or other non-directory directly in `efs/` (the worker
        makes one folder per file system there), or a file of `OWN_FILES` that is a symlink
        or not a regular file: a symlink would lead the campaign's (or the handler's) writes
        out of the out dir.  The out dir itself may be a symlink: the user chose it.
        Folders made later are made safely (`write_bytes_atomic`'s `real_parent`)."""
        for name in OWN_FOLDERS:
            found = _lstat(self.path / name)
            if found is not None and not stat.S_ISDIR(found.st_mode):
                raise OutDirError(_not_own(self.path / name, "a directory", found, self.path))
        efs = self.path / EFS_DIR
        for entry in os.scandir(efs) if _lstat(efs) is not None else ():
            if not entry.is_dir(follow_symlinks=False):
                found = _lstat(Path(entry.path))
                if found is not None:
                    raise OutDirError(_not_own(Path(entry.path), "a directory", found, self.path))
        for name in OWN_FILES:
            found = _lstat(self.path / name)
            if found is not None and not stat.S_ISREG(found.st_mode):
                what = "a regular file or none"
                raise OutDirError(_not_own(self.path / name, what, found, self.path))

    def _group_bug_files(self, folder: Path) -> str:
        """Merge the files in `folder` that hold one bug (one signature each, as releases
        before bugs wrote them) into the first one's file, then remove the others; a
        `.min.json` of a merged file becomes NAME.VARIANT.min.json.  Interrupted after the
        merged file is written, the next resume finds the same signatures twice and keeps
        them once: nothing is lost."""
        groups: dict[str, list[BugFile]] = {}
        for item in self.iter_failures(folder):
            if not isinstance(item, CorpusError):
                groups.setdefault(item.key, []).append(_bug_file(item))
        merged_files = removed = 0
        for files in groups.values():
            if len(files) < 2:
                continue
            files.sort(key=lambda f: (min(v.record.first_exec for v in f.variants), f.path.name))
            whole = merged(files)
            bug = bug_of_file(whole)
            _write_in_folder(whole.path, bug.to_json())
            merged_files += 1
            for found in files[1:]:
                first = found.variants[0].signature
                name = next((v.name for v in bug.variants if v.signature == first), "v1")
                old_min = minimized_path(found.path)
                if os.path.lexists(old_min):
                    os.replace(old_min, minimized_path(whole.path, name))
                found.path.unlink()
                removed += 1
        if not merged_files:
            return ""
        fsync_directory(folder)
        return (
            f"grouped {merged_files + removed} files of {folder.name}/ into {merged_files} "
            f"bug file(s): one file per bug, each signature kept as a variant"
        )

    def _legacy_corpora(self) -> list[Path]:
        found = []
        if not self.path.is_dir():
            return found
        for child in self.path.iterdir():
            match = LEGACY_CORPUS_DIR.fullmatch(child.name)
            if match and child.is_dir() and not child.is_symlink():
                found.append((int(match.group(1)), child))
        return [path for _, path in sorted(found)]

    def _merge_legacy(self, legacy: Path) -> str:
        """Move the inputs of `legacy` into corpus/: an input already there (same choices,
        seed and mode) is dropped, a name already taken gets the next free one; corrupt
        files move too (and are reported where every corrupt input is)."""
        corpus = self.corpus_dir
        corpus.mkdir(parents=True, exist_ok=True)
        known = {_content_key(s) for s in iter_inputs(corpus) if isinstance(s, SavedInput)}
        number = self.next_entry_number()
        moved = dropped = 0
        for path in sorted(legacy.glob("*.json")):
            try:
                key = _content_key(load_input(path))
            except CorpusError:
                key = None
            if key is not None and key in known:
                path.unlink()
                dropped += 1
                continue
            dest = corpus / path.name
            if os.path.lexists(dest):
                if ENTRY_NAME.fullmatch(path.name.removesuffix(".json")):
                    while os.path.lexists(dest := corpus / f"id-{number:06d}.json"):
                        number += 1
                else:
                    n = 1
                    while os.path.lexists(dest := corpus / f"{path.stem}-{legacy.name}-{n}.json"):
                        n += 1
            os.rename(path, dest)
            number = max(number, _entry_number(dest.name) + 1)
            if key is not None:
                known.add(key)
            moved += 1
        fsync_directory(corpus)
        fsync_directory(legacy)
        try:
            legacy.rmdir()
            fsync_directory(self.path)
            left = ""
        except OSError:
            left = f"; {legacy.name}/ still holds files that are not saved inputs"
        return (
            f"merged {legacy.name}/ (left by an earlier release) into {CORPUS_DIR}/: "
            f"{moved} input(s) moved, {dropped} duplicate(s) dropped{left}"
        )

    def next_entry_number(self) -> int:
        """One more than the highest `id-NNNNNN` in corpus/ (corrupt files included, so a
        new input never replaces a file that is kept for a human to look at)."""
        highest = -1
        if self.corpus_dir.is_dir():
            for name in os.listdir(self.corpus_dir):
                highest = max(highest, _entry_number(name))
        return highest + 1

    # ------------------------------------------------------------------ reading
    def read_meta(self, problems: list[str] | None = None) -> CampaignMeta | None:
        return self._read_record(CAMPAIGN_FILE, CampaignMeta.from_json, problems)

    def read_stats(self, problems: list[str] | None = None) -> Stats | None:
        return self._read_record(STATS_FILE, Stats.from_json, problems)

    def _read_record(
        self, name: str, parse: Callable[[dict[str, Any]], T], problems: list[str] | None
    ) -> T | None:
        """One JSON record of the folder, or None when it is missing or unreadable (then
        listed in `problems`)."""
        data = _json(self.path / name, problems if problems is not None else [])
        if not data:
            return None
        try:
            return parse(data)
        except Exception as exc:  # noqa: BLE001 - any bad field: the file is unreadable
            if problems is not None:
                problems.append(f"{self.path / name}: unreadable: {_exc_text(exc)}")
            return None

    def iter_failures(self, folder: Path | None = None) -> Iterator[FailureEntry | CorpusError]:
        """Every saved unique failure in name order (minimized copies are not records);
        `folder`: another folder of failure records (flaky/)."""
        folder = self.failures_dir if folder is None else folder
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            if path.name.endswith(MIN_SUFFIX):
                continue
            try:
                saved = load_input(path)
            except CorpusError as exc:
                yield exc
                continue
            record = FailureRecord.from_json(saved.failure or {}, path.name, saved.outcome)
            minimized: Path | None = minimized_path(path)
            if not os.path.lexists(minimized):
                minimized = None
            else:
                try:
                    load_input(minimized)
                except CorpusError as exc:
                    yield exc  # replay falls back to the failure's own input
                    minimized = None
            found = read_bug_file(path, saved)
            yield FailureEntry(
                path, saved, record, minimized, found.key, found.variants, found.other_hits
            )

    def read(self) -> CampaignDir:
        """The campaign for readers; failures sorted by signature."""
        problems: list[str] = []
        meta = self.read_meta(problems)
        stats = self.read_stats(problems)
        failures = []
        for item in self.iter_failures():
            if isinstance(item, CorpusError):
                problems.append(str(item))
            else:
                failures.append(item)
        failures = _grouped(failures)
        cost = []
        for found in self.iter_cost():
            if isinstance(found, CorpusError):
                problems.append(str(found))
            else:
                cost.append(found)
        handled = []
        for item in self.iter_failures(self.path / HANDLED_DIR):
            if isinstance(item, CorpusError):
                problems.append(str(item))
            else:
                handled.append(item)
        handled = _grouped(handled)
        findings = self._oracle_findings(problems)
        permissions = self.read_permissions(problems)
        return CampaignDir(
            self.path,
            meta,
            stats,
            tuple(failures),
            tuple(problems),
            cost=tuple(cost),
            handled=tuple(handled),
            findings=findings,
            permissions=permissions,
        )

    def read_existing(self, seed_corpora: tuple[Path, ...] = ()) -> ExistingCampaign:
        """What a resumed campaign starts from: corpus/ and seed corpora, known failures.
        Read only; `prepare_resume` first tidies the folder."""
        problems: list[str] = []
        resumed: list[SavedInput] = []
        for item in iter_inputs(self.corpus_dir):
            if isinstance(item, CorpusError):
                problems.append(str(item))
            else:
                resumed.append(item)
        seeds: list[SavedInput] = []
        own = self.corpus_dir.resolve()
        for directory in seed_corpora:
            if directory.resolve() == own:
                continue
            for path in sorted(directory.glob("*.json")) if directory.is_dir() else ():
                try:
                    seeds.append(load_input(path))
                except CorpusError as exc:
                    if not _is_sample_event(path):
                        problems.append(str(exc))
        failures: list[FailureEntry] = []
        flaky: list[FailureEntry] = []
        handled: list[FailureEntry] = []
        for folder, found in (
            (self.failures_dir, failures),
            (self.path / FLAKY_DIR, flaky),
            (self.path / HANDLED_DIR, handled),
        ):
            for item in self.iter_failures(folder):
                if isinstance(item, CorpusError):
                    problems.append(str(item))
                else:
                    found.append(item)
        meta = self.read_meta(problems)
        return ExistingCampaign(
            tuple(resumed),
            tuple(seeds),
            tuple(_grouped(failures)),
            meta,
            tuple(problems),
            self.next_entry_number(),
            tuple(flaky),
            tuple(_grouped(handled)),
            self._oracle_findings(problems),
        )

    def read_plot_rows(self) -> list[PlotRow]:
        """plot_data.csv as rows; bad lines (a campaign killed mid-write) are skipped."""
        path = self.path / PLOT_FILE
        if not path.is_file():
            return []
        try:
            text = read_text_file(path, what="plot data", max_bytes=MAX_RECORD_BYTES)
        except CorpusError:
            return []
        rows = []
        try:
            records = list(csv.DictReader(io.StringIO(text, newline="")))
        except csv.Error:
            return []
        for raw in records:
            try:
                rows.append(
                    PlotRow(
                        time_s=float(raw["time_s"]),
                        execs=int(raw["execs"]),
                        branches=int(raw["branches"]),
                        valid_branches=int(raw["valid_branches"]),
                        corpus=int(raw["corpus"]),
                        failures=int(raw["failures"]),
                    )
                )
            except (KeyError, TypeError, ValueError, OverflowError):
                continue
        return rows

    def read_coverage(self) -> CoverageRecord:
        """coverage.json (no arms when missing or unreadable)."""
        data = _json(self.path / COVERAGE_FILE, [])
        covered = []
        raws = data.get("covered")
        for raw in raws if isinstance(raws, list) else ():
            try:
                covered.append(CoveredArm.from_json(raw))
            except (TypeError, ValueError, AttributeError, OverflowError):
                continue
        try:
            total = int(data.get("app_branches_total") or 0)
        except (TypeError, ValueError, OverflowError):
            total = 0
        return CoverageRecord(total, tuple(covered))


def minimized_path(failure_path: Path, variant: str | None = None) -> Path:
    """NAME.min.json beside NAME.json; NAME.VARIANT.min.json for one of its variants."""
    stem = failure_path.name.removesuffix(".json")
    return failure_path.with_name(f"{stem}.{variant}{MIN_SUFFIX}" if variant else stem + MIN_SUFFIX)


def _bug_file(entry: FailureEntry) -> BugFile:
    return BugFile(
        entry.path,
        entry.saved,
        entry.key,
        entry.variants,
        entry.other_hits,
        grouped=len(entry.variants) > 1,
    )


def _grouped(entries: list[FailureEntry]) -> list[FailureEntry]:
    """One entry per bug, sorted by key: the files of one bug (a folder written before bugs,
    or whose grouping was interrupted) read as the first one's, with every variant."""
    groups: dict[str, list[FailureEntry]] = {}
    for entry in entries:
        groups.setdefault(entry.key or entry.signature, []).append(entry)
    found = []
    for group in groups.values():
        if len(group) == 1:
            found.append(group[0])
            continue
        group.sort(key=lambda e: (min(v.record.first_exec for v in e.variants), e.path.name))
        whole = merged([_bug_file(e) for e in group])
        first = group[0]
        found.append(
            FailureEntry(
                first.path,
                first.saved,
                first.record,
                first.minimized,
                whole.key,
                whole.variants,
                whole.other_hits,
            )
        )
    found.sort(key=lambda e: e.title)
    return found


def find_campaign_dir(path: Path) -> Path | None:
    """The out dir holding `path` (a saved input or a folder in it), if any."""
    for parent in [path, *path.parents]:
        if (parent / CAMPAIGN_FILE).is_file():
            return parent
    return None


def is_campaign_dir(path: Path) -> bool:
    return (path / CAMPAIGN_FILE).is_file()


def read_campaign_dir(out_dir: Path | str) -> CampaignDir:
    return OutDir(out_dir).read()


def read_plot_rows(out_dir: Path | str) -> list[PlotRow]:
    return OutDir(out_dir).read_plot_rows()


def read_coverage(out_dir: Path | str) -> CoverageRecord:
    return OutDir(out_dir).read_coverage()


def _lock_holder(fd: int) -> dict[str, Any]:
    """What a lock file says about the campaign that took it ({} when empty or garbled)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8", "replace") or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _describe_holder(holder: dict[str, Any]) -> str:
    if not isinstance(holder.get("pid"), int):
        return "its pid is not recorded yet"
    where = holder.get("host")
    here = f" on {where}" if isinstance(where, str) and where != socket.gethostname() else ""
    since = holder.get("started")
    started = ""
    if isinstance(since, int | float):
        started = f", started {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(since))}"
    this = " (this process)" if holder["pid"] == os.getpid() and not here else ""
    return f"pid {holder['pid']}{this}{here}{started}"


def _liveness(holder: dict[str, Any]) -> str:
    pid = holder.get("pid")
    if not isinstance(pid, int) or holder.get("host") not in (None, socket.gethostname()):
        return "no longer running"
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return "no longer running"
    except OSError:
        pass
    return "its pid now belongs to another process"


def _json(path: Path, problems: list[str]) -> dict[str, Any]:
    if not os.path.lexists(path):
        return {}
    try:
        data = read_json_file(path, what="campaign record", max_bytes=MAX_RECORD_BYTES)
    except CorpusError as exc:
        problems.append(str(exc))
        return {}
    if not isinstance(data, dict):
        problems.append(f"{path}: unreadable campaign record: expected a JSON object")
        return {}
    return data


def _lstat(path: Path) -> os.stat_result | None:
    """What is at `path` itself (a symlink is not followed), None when nothing is."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise OutDirError(f"{path}: cannot check it: {exc.strerror}") from None


def _not_own(path: Path, expected: str, found: os.stat_result, out: Path) -> str:
    kinds = {
        stat.S_IFLNK: "a symlink",
        stat.S_IFREG: "a regular file",
        stat.S_IFDIR: "a directory",
        stat.S_IFIFO: "a FIFO",
        stat.S_IFSOCK: "a socket",
        stat.S_IFCHR: "a character device",
        stat.S_IFBLK: "a block device",
    }
    what = kinds.get(stat.S_IFMT(found.st_mode), "something else")
    return (
        f"{path}: expected {expected}, found {what}; lambdafuzz writes there, and only "
        f"inside {out} (a symlink would lead its writes out of it): move it away or use "
        "another --out"
    )


@contextlib.contextmanager
def _real_folder(path: Path) -> Iterator[None]:
    """Turn a write refused because `path`'s folder is a symlink (or not a directory, made
    so after `check_layout`) into an `OutDirError`."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        found = _lstat(path.parent)
        if found is None:
            raise
        raise OutDirError(_not_own(path.parent, "a directory", found, path.parent.parent)) from None


def _write_in_folder(path: Path, data: Any) -> None:
    """A record in one of the out dir's folders, never through a symlinked folder."""
    with _real_folder(path):
        _write_json(path, data, real_parent=True)


def _safe_name(name: str) -> str:
    """`name` when it names a file in its folder; a `CorpusError` for anything that is a
    path (names come from the engine or from files already on disk, never from a file's
    contents, so this is the last line of defence)."""
    if not is_safe_name(name):
        raise CorpusError(f"{name!r}: expected a plain file name for a saved input")
    return name


def _entry_number(file_name: str) -> int:
    match = ENTRY_NAME.fullmatch(file_name.removesuffix(".json"))
    return int(match.group(1)) if match else -1


def _is_sample_event(path: Path) -> bool:
    """Whether a seed corpus file is a sample event (JSON, not a saved input): the config
    layer made it a seed of the target (`config/sample_events.py`), it is not corrupt."""
    try:
        data = read_json_file(path, what="sample event")
    except CorpusError:
        return False
    return not (isinstance(data, dict) and "lambdafuzz" in data)


def _content_key(saved: SavedInput) -> tuple[Any, ...]:
    """What makes two saved inputs the same input: their choices, seed and replay mode."""
    choices = tuple((c.kind.value, repr(c.value), c.ei) for c in saved.sequence.choices)
    return (saved.seed, saved.mode.value, choices)


def _exc_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 200 else text[:197] + "..."
