"""The low-valid warning: almost no input is valid, what stops the others, and the
`outcomes` line that declares the handler's rejections on purpose.

It is said once per campaign, in its summary, from the tally the engine keeps
(`Stats.rejections`, `fuzzer.rejections`).  Inputs that mostly end in *crashes* (failures
at a line that is not a `raise` of their type: gradebook's `int()` of a header cell) are
findings, listed with the failures; no outcome should hide them, so they do not make the
warning, unless one of them alone stops nearly every input (a handler reading a field its
events do not have: the trigger config is likely wrong).
"""

from __future__ import annotations

from pathlib import Path

from lambdafuzz.fuzzer.rejections import Cause, Stop
from lambdafuzz.fuzzer.stats import Stats
from lambdafuzz.model.target import OutcomeRules, Target

#: The valid share below which, after `LOW_VALID_AFTER` executions, the summary warns.
LOW_VALID_SHARE = 0.05
LOW_VALID_AFTER = 200
#: One crash stopping at least this share of the tests warns too: little past it is fuzzed.
ONE_CRASH_SHARE = 0.9
#: Stops listed in the warning.
SHOWN_STOPS = 3
_CAUSE_NOTES = {
    Cause.RAISED: " (raised by the handler)",
    Cause.STATUS: " (configured as a failure)",
}


def valid_share(stats: Stats) -> str:
    return f"{100.0 * stats.valid_execs / stats.execs:.1f}%" if stats.execs else "-"


def is_low_valid(stats: Stats) -> bool:
    """Whether the campaign warns: after `LOW_VALID_AFTER` executions, fewer than
    `LOW_VALID_SHARE` of them valid, and what stops the others is mostly rejections
    (not crashes, which are failures to fix), or one crash alone stops nearly all."""
    if stats.execs < LOW_VALID_AFTER or stats.valid_execs >= LOW_VALID_SHARE * stats.execs:
        return False
    crashes = [s.hits for s in stats.rejections if s.cause is Cause.CRASH]
    rejected = sum(s.hits for s in stats.rejections) - sum(crashes)
    if not stats.rejections:  # a stats.json written before the tally: as it used to
        return True
    return rejected >= sum(crashes) or max(crashes, default=0) >= ONE_CRASH_SHARE * stats.execs


def low_valid_flag(stats: Stats) -> str:
    """The live status's short form ("" when the campaign does not warn)."""
    if not is_low_valid(stats):
        return ""
    return f"only {valid_share(stats)} of inputs are valid: the summary says what stops them"


def low_valid_warning(
    stats: Stats, target: Target | None = None, function: str | None = None
) -> list[str]:
    """The summary's warning, one line each, indented as the summary is ([] when the
    campaign does not warn): what stops the inputs, with their share of the tests, and
    the `outcomes` line to paste, unindented, when the handler raises or returns some of
    them on purpose."""
    if not is_low_valid(stats):
        return []
    lines = [
        f"  warning [low-valid]: only {valid_share(stats)} of inputs are valid after "
        f"{stats.execs} executions; what stops the others:"
    ]
    for stop in stats.rejections[:SHOWN_STOPS]:
        share = 100.0 * stop.hits / stats.execs
        lines.append(f"    {share:5.1f}%  {stop.label}{_CAUSE_NOTES.get(stop.cause, '')}")
    declared = outcomes_line(stats.rejections, target.outcomes if target else OutcomeRules())
    if declared:
        lines += [
            f"    If the handler refuses inputs this way on purpose, declare it "
            f"{_where_to_paste(target, function)} (rejections, not failures, then):",
            declared,
        ]
    crashes = [s for s in stats.rejections[:SHOWN_STOPS] if s.cause is Cause.CRASH]
    if crashes and crashes[0].hits >= ONE_CRASH_SHARE * stats.execs:
        lines.append(
            f"    {crashes[0].label} stops nearly every input: a bug to fix, or events unlike "
            "the ones the handler reads (check the trigger config)."
        )
    lines.append(
        "    To get inputs past them: seed inputs (--seed-corpus), a model of the event "
        "(Powertools/pydantic, or a JSON schema in the config) or a trigger config matching "
        "the real events."
    )
    return lines


def outcomes_line(stops: tuple[Stop, ...], rules: OutcomeRules) -> str:
    """`outcomes: {invalid: {exceptions: [ValueError]}}`: the config's outcomes with the
    exceptions the handler raised and the 4xx statuses it returned among `stops` added
    ("" when there is nothing to add).  One flow-style line, pasted at the top level in
    place of any `outcomes:` already there (it keeps what that one held)."""
    exceptions = list(rules.invalid_exceptions)
    codes = list(rules.invalid_status_codes)
    for stop in stops[:SHOWN_STOPS]:
        if stop.cause is Cause.RAISED and stop.name not in exceptions:
            exceptions.append(stop.name)
        elif stop.cause is Cause.STATUS and int(stop.name) not in codes:
            codes.append(int(stop.name))
    if exceptions == list(rules.invalid_exceptions) and codes == list(rules.invalid_status_codes):
        return ""
    parts = [f"invalid: {_mapping(exceptions, codes)}"]
    if rules.failure_exceptions or rules.failure_status_codes:
        failure_codes = [c for c in rules.failure_status_codes if c not in codes]
        parts.append(f"failure: {_mapping(list(rules.failure_exceptions), failure_codes)}")
    if rules.status_from != OutcomeRules().status_from:
        parts.append(f"status_from: {rules.status_from}")
    return "outcomes: {" + ", ".join(parts) + "}"


def _mapping(exceptions: list[str], codes: list[int]) -> str:
    items = []
    if exceptions:
        items.append(f"exceptions: [{', '.join(exceptions)}]")
    if codes:
        items.append(f"status_codes: [{', '.join(str(c) for c in sorted(codes))}]")
    return "{" + ", ".join(items) + "}"


def _where_to_paste(target: Target | None, function: str | None) -> str:
    """Where the `outcomes` line goes: the lambdafuzz.yaml, or for a template the overlay
    beside it (`config.overlay`)."""
    from lambdafuzz.config.sam_template import is_template

    if target is None:
        return "at the top level of the config"
    path = Path(target.config_path)
    if not is_template(path):
        return f"at the top level of {_shown(path)}"
    under = f" under `functions: {{{function}: ...}}`" if function else ""
    return (
        f"in a lambdafuzz.yaml beside {_shown(path)} (`template: {path.name}`, then the line"
        f"{under})"
    )


def _shown(path: Path) -> str:
    """`path` relative to the working directory when it is below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
