"""What a strategy feeds its draws from the code: one assembly for the campaign and for
`lambdafuzz analyze`, so what `analyze` shows is what a campaign draws and cannot drift.

The harvest is the config's own dictionary plus, for a strategy that uses the analysis'
constants, the analysis' constant strings; the `frontier` strategy (`rich_harvest`) adds
the numbers compared with, the field names the code reads (without environment-variable
names, which come from the configuration, never from a record) and the DynamoDB key values
it looks items up by — and, when the code stores items it did not spell out, the tables'
key names as fields (a record stored as sent must carry the key).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lambdafuzz.analysis.model import AnalysisResult
from lambdafuzz.fuzzer.options import Strategy
from lambdafuzz.model.target import Target


@dataclass(frozen=True, slots=True)
class Harvest:
    """The values a campaign's draws may take from the code, in the order they are fed."""

    strings: tuple[str, ...] = ()  # the dictionary of string draws
    numbers: tuple[int | float, ...] = ()  # integer/float draws (`Choices.numbers`)
    fields: tuple[str, ...] = ()  # names of JSON records' fields (`Choices.fields`)
    key_values: tuple[tuple[str, str], ...] = ()  # (attribute, value) of items' keys

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape `lambdafuzz analyze --json` prints, with counts."""
        return {
            "strings": list(self.strings),
            "numbers": list(self.numbers),
            "fields": list(self.fields),
            "key_values": [list(kv) for kv in self.key_values],
            "counts": {
                "strings": len(self.strings),
                "numbers": len(self.numbers),
                "fields": len(self.fields),
                "key_values": len(self.key_values),
            },
        }


def analysis_for(
    target: Target, strategy: Strategy, *, use_cache: bool = True
):  # -> AnalysisResult | None
    """The analysis `strategy` draws from (rich for `frontier`; cached by source hash in
    ~/.cache/lambdafuzz), or None for a strategy that uses none."""
    if not strategy.uses_analysis_constants:
        return None
    from lambdafuzz.fuzzer.targeting import analyze_target

    return analyze_target(target, use_cache=use_cache, rich=strategy.rich_harvest)


def build_harvest(target: Target, strategy: Strategy, analysis: AnalysisResult | None) -> Harvest:
    """What `strategy` feeds its draws for `target`, given `analysis_for`'s result (an
    analysis of another harvest is not read for a strategy that uses none)."""
    strings = list(target.dictionary)
    if analysis is None or not strategy.uses_analysis_constants:
        return Harvest(tuple(strings))
    strings += [c for c in analysis.constants if c not in strings]
    if not strategy.rich_harvest:
        return Harvest(tuple(strings))
    fields = tuple(f for f in analysis.field_names() if f not in target.env)
    if analysis.stores_items:
        # `table.put_item(Item=json.loads(body))`: a record it is sent is stored as it is,
        # and one without the table's key is refused every time
        fields += tuple(n for n in key_names(target) if n not in fields and n not in target.env)
    return Harvest(tuple(strings), tuple(analysis.numeric_constants), fields, analysis.key_values())


def key_names(target: Target) -> tuple[str, ...]:
    """The key attribute names of the target's tables, hash keys first, without repeats."""
    names: dict[str, None] = {}
    for table in target.resources.tables:
        names[table.key_schema.hash_name] = None
    for table in target.resources.tables:
        if table.key_schema.range_name is not None:
            names[table.key_schema.range_name] = None
    return tuple(names)
