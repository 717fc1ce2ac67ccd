"""The one owner of a campaign's output folder, in both directions.

The engine writes `campaign.json` (the options, including the dictionary that replay
needs), `stats.json`, `plot_data.csv`, `coverage.json`, `corpus/` and `failures/`;
`lambdafuzz minimize` adds `NAME.min.json` beside a failure.  Everything else — replay,
reports, CI outputs, the pytest plugin, resume — reads the folder through the typed
records here.  Readers tolerate a campaign that was interrupted: a missing file is an empty
section, an unreadable one is listed in `problems`, never raised.  Files are replaced
atomically, never rewritten in place, and corrupt ones are kept on disk.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lambdafuzz.atomic_files import write_text_atomic
from lambdafuzz.errors import CorpusError
from lambdafuzz.fuzzer.corpus import SavedInput, iter_inputs, load_input, save_input
from lambdafuzz.fuzzer.corpus import write_json_atomic as _write_json
from lambdafuzz.fuzzer.failures import FailureRecord
from lambdafuzz.fuzzer.options import DICTIONARY_P, CampaignOptions
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.generators.core import ReplayMode

CAMPAIGN_FILE = "campaign.json"
STATS_FILE = "stats.json"
PLOT_FILE = "plot_data.csv"
COVERAGE_FILE = "coverage.json"
CORPUS_DIR = "corpus"
FAILURES_DIR = "failures"
#: `lambdafuzz minimize` writes NAME.min.json beside failures/NAME.json.
MIN_SUFFIX = ".min.json"
PLOT_HEADER = "time_s,execs,branches,valid_branches,corpus,failures"


# =========================================================================== records
@dataclass(slots=True, frozen=True)
class CampaignMeta:
    """What `campaign.json` records: where the target came from and how inputs replay."""

    config: str
    function: str | None
    handler: str
    strategy: str
    seed: int
    mode: ReplayMode
    backend: str
    endpoint: str | None
    dictionary: tuple[str, ...] | None  # None: an older campaign.json that did not record it
    dictionary_p: float

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CampaignMeta:
        """Older files lack the dictionary: replay falls back to the config's."""
        dictionary = data.get("dictionary")
        return cls(
            config=str(data.get("config") or ""),
            function=str(data["function"]) if data.get("function") else None,
            handler=str(data.get("handler") or "handler"),
            strategy=str(data.get("strategy") or ""),
            seed=int(data.get("seed") or 0),
            mode=ReplayMode(data.get("mode") or ReplayMode.EXECUTION_INDEXED.value),
            backend=str(data.get("backend") or "moto"),
            endpoint=str(data["endpoint"]) if data.get("endpoint") else None,
            dictionary=None if dictionary is None else tuple(str(s) for s in dictionary),
            dictionary_p=float(data.get("dictionary_p", DICTIONARY_P)),
        )


@dataclass(slots=True, frozen=True)
class FailureEntry:
    """One unique failure of a campaign, as saved in `failures/`."""

    path: Path
    saved: SavedInput
    record: FailureRecord
    minimized: Path | None  # NAME.min.json beside it, written by `lambdafuzz minimize`

    @property
    def signature(self) -> str:
        return self.record.signature

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
        return self.record.hits


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
class CampaignDir:
    """Everything a reader needs of one out dir."""

    path: Path
    meta: CampaignMeta | None  # None when campaign.json is missing or unreadable
    stats: Stats | None
    failures: tuple[FailureEntry, ...]
    problems: tuple[str, ...]  # files that could not be read

    @property
    def handler(self) -> str:
        return self.meta.handler if self.meta is not None else "handler"


@dataclass(slots=True, frozen=True)
class ExistingCampaign:
    """What a resumed campaign finds: inputs to re-run, failures already known."""

    seeds: tuple[SavedInput, ...]
    failures: tuple[FailureEntry, ...]
    meta: CampaignMeta | None
    problems: tuple[str, ...]


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

    # ------------------------------------------------------------------ writing
    def write_campaign(self, options: CampaignOptions) -> None:
        _write_json(self.path / CAMPAIGN_FILE, options.recorded_options())

    def write_stats(self, stats: Stats) -> None:
        _write_json(self.path / STATS_FILE, stats.to_json())

    def write_plot(self, rows: list[PlotRow]) -> None:
        lines = [PLOT_HEADER, *(r.to_csv() for r in rows)]
        write_text_atomic(self.path / PLOT_FILE, "\n".join(lines) + "\n")

    def write_coverage(self, coverage: CoverageRecord) -> None:
        _write_json(self.path / COVERAGE_FILE, coverage.to_json())

    def save_corpus_input(self, saved: SavedInput) -> Path:
        path = self.corpus_dir / f"{saved.name}.json"
        save_input(path, saved)
        return path

    def save_failure(self, record: FailureRecord, saved: SavedInput) -> Path:
        """Write (or rewrite, with its current hit count) a unique failure's file."""
        path = self.failures_dir / record.file_name
        data = saved.to_json()
        data["failure"] = record.to_json()
        _write_json(path, data)
        return path

    def save_minimized(self, failure_path: Path, saved: SavedInput) -> Path:
        """NAME.min.json beside failures/NAME.json; resume never reads it as a record."""
        path = minimized_path(failure_path)
        save_input(path, saved)
        return path

    def archive_corpus(self) -> Path | None:
        """Move corpus/ aside as corpus.prevN (resumed inputs are saved afresh)."""
        corpus = self.corpus_dir
        if not corpus.is_dir() or not any(corpus.glob("*.json")):
            return None
        n = 0
        while (archive := self.path / f"{CORPUS_DIR}.prev{n}").exists():
            n += 1
        corpus.rename(archive)
        return archive

    # ------------------------------------------------------------------ reading
    def read_meta(self, problems: list[str] | None = None) -> CampaignMeta | None:
        data = _json(self.path / CAMPAIGN_FILE, problems if problems is not None else [])
        if not data:
            return None
        try:
            return CampaignMeta.from_json(data)
        except (TypeError, ValueError) as exc:
            if problems is not None:
                problems.append(f"{self.path / CAMPAIGN_FILE}: unreadable: {exc}")
            return None

    def read_stats(self, problems: list[str] | None = None) -> Stats | None:
        data = _json(self.path / STATS_FILE, problems if problems is not None else [])
        if not data:
            return None
        try:
            return Stats.from_json(data)
        except (TypeError, ValueError, AttributeError) as exc:
            if problems is not None:
                problems.append(f"{self.path / STATS_FILE}: unreadable: {exc}")
            return None

    def iter_failures(self) -> Iterator[FailureEntry | CorpusError]:
        """Every saved unique failure in name order (minimized copies are not records)."""
        folder = self.failures_dir
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            if path.name.endswith(MIN_SUFFIX):
                continue
            try:
                saved = load_input(path)
            except CorpusError as exc:
                yield exc
                continue
            record = FailureRecord.from_json(saved.failure or {}, path.name, saved.outcome)
            minimized = minimized_path(path)
            yield FailureEntry(path, saved, record, minimized if minimized.is_file() else None)

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
        failures.sort(key=lambda f: f.signature)
        return CampaignDir(self.path, meta, stats, tuple(failures), tuple(problems))

    def read_existing(self, seed_corpora: tuple[Path, ...] = ()) -> ExistingCampaign:
        """What a resumed campaign starts from: corpus/ and seed corpora, known failures."""
        problems: list[str] = []
        seeds: list[SavedInput] = []
        for directory in (self.corpus_dir, *seed_corpora):
            for item in iter_inputs(directory):
                if isinstance(item, CorpusError):
                    problems.append(str(item))
                else:
                    seeds.append(item)
        failures: list[FailureEntry] = []
        for item in self.iter_failures():
            if isinstance(item, CorpusError):
                problems.append(str(item))
            else:
                failures.append(item)
        meta = self.read_meta(problems)
        return ExistingCampaign(tuple(seeds), tuple(failures), meta, tuple(problems))

    def read_plot_rows(self) -> list[PlotRow]:
        """plot_data.csv as rows; bad lines (a campaign killed mid-write) are skipped."""
        path = self.path / PLOT_FILE
        if not path.is_file():
            return []
        rows = []
        with path.open(newline="", encoding="utf-8") as fh:
            for raw in csv.DictReader(fh):
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
                except (KeyError, TypeError, ValueError):
                    continue
        return rows

    def read_coverage(self) -> CoverageRecord:
        """coverage.json (no arms when missing or unreadable)."""
        data = _json(self.path / COVERAGE_FILE, [])
        covered = []
        for raw in data.get("covered") or ():
            try:
                covered.append(CoveredArm.from_json(raw))
            except (TypeError, ValueError, AttributeError):
                continue
        try:
            total = int(data.get("app_branches_total") or 0)
        except (TypeError, ValueError):
            total = 0
        return CoverageRecord(total, tuple(covered))


def minimized_path(failure_path: Path) -> Path:
    return failure_path.with_name(failure_path.name.removesuffix(".json") + MIN_SUFFIX)


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


def _json(path: Path, problems: list[str]) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        problems.append(f"{path}: unreadable: {exc}")
        return {}
    return data if isinstance(data, dict) else {}
