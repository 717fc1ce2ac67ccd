"""What one campaign is asked to do: its `Strategy` and `CampaignOptions`.

`campaign.json` records these options field by field (`recorded_options`), so a new
option is one field here: the command line, `build_engine`, the out dir and every replay
pick it up from this one definition.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from lambdafuzz.generators.core import ReplayMode
from lambdafuzz.model.target import Target

#: Probability that a fresh string draw takes a dictionary constant (when there are any).
DICTIONARY_P = 0.1


class Strategy(enum.StrEnum):
    RANDOM = "random"  # every input fresh from the generators, no feedback
    ZEST = "zest"
    ZEST_STRINGS = "zest-strings"  # Zest + constant strings from the analysis
    SPOTON = "spoton"  # Zest + constant strings + type-targeted mutation

    @property
    def uses_analysis_constants(self) -> bool:
        return self in (Strategy.ZEST_STRINGS, Strategy.SPOTON)


@dataclass(slots=True, frozen=True)
class CampaignOptions:
    target: Target
    out_dir: Path
    strategy: Strategy = Strategy.ZEST
    seed: int = 0
    max_execs: int | None = None
    max_seconds: float | None = None
    workers: int = 1
    backend: str = "moto"
    endpoint: str | None = None
    mode: ReplayMode = ReplayMode.EXECUTION_INDEXED
    seed_corpora: tuple[Path, ...] = ()
    dictionary: tuple[str, ...] = ()  # constants fed to string draws (strategy-dependent)
    dictionary_p: float = DICTIONARY_P
    stability_check: bool = True
    memory_limit_mb: int | None = 1024
    function: str | None = None  # the template function this campaign fuzzes, if any

    def recorded_options(self) -> dict[str, Any]:
        """Every option as JSON values (the target as its config path and handler)."""
        data: dict[str, Any] = {
            "config": str(self.target.config_path),
            "handler": f"{self.target.handler_module}.{self.target.handler_function}",
        }
        for f in fields(self):
            if f.name in ("target", "out_dir"):
                continue
            data[f.name] = _plain(getattr(self, f.name))
        return data


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
