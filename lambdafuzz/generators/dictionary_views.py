"""Views of a campaign's dictionary, derived once per dictionary instead of per draw.

A campaign hands one dictionary (and one fields tuple) to every input's `Choices`; the
generators that need a filtered view of it (value constants, key prefixes, separators)
ask here, keyed by the view's name and the identity of what it derives from.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

#: view name -> (the sources it was derived from, the view): the last campaign's only
_VIEWS: dict[Hashable, tuple[tuple[Any, ...], Any]] = {}


def derived[V](name: Hashable, sources: tuple[Any, ...], compute: Callable[[], V]) -> V:
    """The view `name` of `sources` (compared by identity), computed once per sources."""
    cached = _VIEWS.get(name)
    if (
        cached is not None
        and len(cached[0]) == len(sources)
        and all(a is b for a, b in zip(cached[0], sources, strict=True))
    ):
        return cached[1]
    view = compute()
    _VIEWS[name] = (sources, view)
    return view
