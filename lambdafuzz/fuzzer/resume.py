"""Resuming a campaign from its out dir, and the names inputs are saved under.

Every input in corpus/ is re-run where it is and keeps its name (nothing is moved away, so
a resume stopped at any point loses nothing); the sample events' seeds come first, the seed
corpora's inputs last, saved under new names; failures, handled exceptions, findings and
cost findings stay known (each kept by its own part of the campaign: `Resumable`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import replace
from typing import Any, Protocol

from lambdafuzz.fuzzer.corpus import SavedInput
from lambdafuzz.fuzzer.entries import Provenance, Tag, TagKind
from lambdafuzz.fuzzer.events import Notice
from lambdafuzz.fuzzer.options import CampaignOptions
from lambdafuzz.fuzzer.out_dir import CampaignMeta, ExistingCampaign, OutDir
from lambdafuzz.fuzzer.sample_seeds import sample_seeds

#: Unreadable saved files listed one by one when resuming; the rest are counted.
MAX_CORRUPT_NOTICES = 20


class Resumable(Protocol):
    """A part of the campaign that keeps what an earlier run of it found."""

    def load(self, existing: ExistingCampaign) -> None: ...


class Resume:
    """The inputs to run before any other (`seeds`), and the names of saved inputs: a
    resumed corpus/ input keeps its own, a new one gets the next unused `id-NNNNNN`."""

    def __init__(self, out: OutDir) -> None:
        #: the sample events' seeds, corpus/ inputs and seed-corpus inputs still to run
        self.seeds: deque[SavedInput] = deque()
        self._resumed: dict[str, SavedInput] = {}  # corpus/ inputs being re-run, by name
        self._next_number = 0  # the next fresh corpus name is id-{this:06d}
        self._samples: set[str] = set()  # names of the sample events' seeds (seed-event-*)
        self._out = out

    def load(
        self, options: CampaignOptions, parts: Iterable[Resumable]
    ) -> tuple[CampaignOptions, list[Notice]]:
        """Resume from the out dir: `parts` load what they keep, `seeds` fill up.  Another
        target's campaign is refused (`OutDirError`) before anything in the out dir
        changes; a resume says what it loaded (`resumed`).  The options come back with the
        earlier run's draw tables first (`_keep_dictionary`)."""
        checked = self._out.check_target(options.identity())
        notices = [Notice(slug, text) for slug, text in checked]
        notices += [Notice("corpus-resume", note) for note in self._out.prepare_resume()]
        existing = self._out.read_existing(options.seed_corpora)
        problems = existing.problems
        for part in parts:
            part.load(existing)
        notices += [
            Notice("corpus-corrupt", f"skipped (kept on disk): {problem}")
            for problem in problems[:MAX_CORRUPT_NOTICES]
        ]
        if len(problems) > MAX_CORRUPT_NOTICES:
            notices.append(
                Notice(
                    "corpus-corrupt",
                    f"... and {len(problems) - MAX_CORRUPT_NOTICES} more unreadable files "
                    f"skipped (kept on disk); {len(problems)} in all",
                )
            )
        options, notice = self._keep_dictionary(options, existing.meta)
        if notice is not None:
            notices.append(notice)
        self._resumed = {saved.name: saved for saved in existing.resumed}
        self._next_number = max(self._next_number, existing.next_number)
        resumed = set(self._resumed)
        seeds = [
            # a seed-corpus name that is also a corpus/ name must not re-save over it
            replace(s, name=f"seed-corpus/{s.name}") if s.name in resumed else s
            for s in existing.seeds
        ]
        samples, problems = sample_seeds(options, resumed)
        notices += [Notice("sample-event", problem) for problem in problems]
        self._samples = {saved.name for saved in samples}
        self.seeds.extend((*samples, *existing.resumed, *seeds))
        loaded = self._loaded(options, existing)
        if loaded:
            notices.insert(len(checked), Notice("resumed", loaded))
        return options, notices

    def is_sample(self, tag: Tag) -> bool:
        """Whether `tag` is a sample event's seed (kept whatever it covered)."""
        return tag.kind is TagKind.SEED and tag.source in self._samples

    def resumed_input(self, tag: Tag) -> SavedInput | None:
        """The corpus/ input a seed's tag re-runs (None for any other test)."""
        return self._resumed.get(tag.source) if tag.kind is TagKind.SEED else None

    def entry_name(
        self, tag: Tag, *, new_arms: bool, new_valid: bool, failing: bool = False
    ) -> tuple[str, str]:
        """The file name and provenance of an input to save: a resumed corpus/ input keeps
        both (its file is rewritten in place, its choices kept: `Engine._save`); anything
        else gets the next unused name."""
        provenance = Provenance(tag, new_arms=new_arms, new_valid=new_valid, failing=failing)
        if tag.kind is TagKind.SEED:
            resumed = self._resumed.pop(tag.source, None)
            if resumed is not None:
                return resumed.name, resumed.provenance
            if tag.source in self._samples:
                return tag.source, str(provenance)
        name = f"id-{self._next_number:06d}"
        self._next_number += 1
        return name, str(provenance)

    def _loaded(self, options: CampaignOptions, existing: ExistingCampaign) -> str:
        """What a resume starts from, in one line ("" for a new out dir without seeds)."""
        seeds = ""
        if existing.seeds:
            folders = ", ".join(f"{p}/" for p in options.seed_corpora)
            seeds = f"{_count(len(existing.seeds), 'seed input')} from {folders}"
        if not existing.is_resume:
            return f"loaded {seeds}" if seeds else ""
        parts = [
            f"{_count(len(existing.resumed), 'corpus input')} (re-run first)",
            _count(len(existing.failures), "known bug"),
            f"{len(existing.flaky)} flaky",
        ]
        if existing.handled:
            parts.append(_count(len(existing.handled), "handled exception"))
        return f"resuming from {self._out.path}/: {', '.join(parts)}" + (
            f"; {seeds}" if seeds else ""
        )

    def _keep_dictionary(
        self, options: CampaignOptions, meta: CampaignMeta
    ) -> tuple[CampaignOptions, Notice | None]:
        """A dictionary draw records an index, so the saved inputs of an earlier run replay
        only with its dictionary: keep it, in order, and append this run's new constants."""
        # Each of these is drawn by index too: `generators.dates` picks a code year by its
        # index among the numbers, a JSON record draws its fields in order, a key value is
        # drawn by its index among its attribute's.  The earlier run's come first.
        earlier = getattr(meta, "policy", None)
        policy = options.policy
        for name in ("numbers", "fields", "key_values"):
            kept = _earlier_first(getattr(earlier, name, ()), getattr(policy, name))
            if kept is not None:
                policy = replace(policy, **{name: kept})
        old = earlier.dictionary if earlier is not None else ()
        merged = _earlier_first(old, policy.dictionary)
        if old and merged is not None:
            policy = replace(policy, dictionary=merged)
        if policy is not options.policy:
            options = replace(options, policy=policy)
        if not old or merged is None:
            return options, None
        return options, Notice(
            "dictionary-kept",
            f"kept the earlier run's dictionary of {len(old)} strings so its saved inputs "
            f"replay identically; {len(merged) - len(old)} new strings appended",
        )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _earlier_first(old: Iterable[Any], new: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """`old` in its order, then what `new` adds; None when `new` already starts with `old`
    (nothing to keep)."""
    old = tuple(old)
    if not old or old == new[: len(old)]:
        return None
    known = set(old)
    return (*old, *(x for x in new if x not in known))
