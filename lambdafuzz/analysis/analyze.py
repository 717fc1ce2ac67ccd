"""Entry point of the static analysis: sources in, `AnalysisResult` out (cached).

    result = analyze_sources([root / "gradebook"], "gradebook.handler.lambda_handler")
    result.distances()    # SpotOn's unified map D, label -> distance
    result.dictionary()   # constant strings for string draws
    result.arm_index()    # coverage arm key -> target ids

Order of the passes (paper §III-B): code targets; variable dependency graph; labels per
node (our stand-in for Wala's type inference); influencing types by backward walk from
each condition; unification; constant strings reachable from the handler.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from . import cache
from .constants import collect_constants
from .dependency import build_graph
from .graph import DependencyGraph, FunctionInfo
from .influence import InfluenceWalker
from .labelling import label_graph
from .model import ANALYSIS_VERSION, AnalysisResult, CodeTarget
from .sources import ParsedModule, SourceFile, discover, parse
from .targets import collect_targets
from .unify import match_report, unify

log = logging.getLogger("lambdafuzz.analysis")

EVENT_PARAM_NAMES = frozenset({"event", "evt", "e", "_event", "ev"})
CONTEXT_PARAM_NAMES = frozenset({"context", "ctx", "_context", "_ctx", "lambda_context"})
HANDLER_NAMES = ("lambda_handler", "handler", "main")


def analyze_sources(
    app_roots: Sequence[Path | str],
    handler_module: str | None = None,
    *,
    trigger: str | None = None,
    produced_labels: Iterable[str] | None = None,
    numeric: bool = False,
    all_strings: bool = False,
    rich: bool = False,
    cache_dir: Path | str | None = None,
    use_cache: bool = True,
) -> AnalysisResult:
    """Analyse every `.py` file under `app_roots` (package dirs, source dirs or files).

        `handler_module` names the entry point (`pkg.mod.func`, `pkg.mod:func` or `pkg.mod`);
        without it every `(event, context)` function is treated as a handler.  `trigger` (a
        lambdafuzz.yaml trigger kind) names the event label; otherwise it is inferred from the
        event keys the code reads.  `produced_labels` feeds the match report only (default:
        every non-generic label in `lambdafuzz.labels`).  `numeric` also collects numbers
        compared in conditions; `all_strings` takes every reachable string literal; `rich` takes
    the full harvest of the `frontier` strategy (`constants.py`; numbers included).
        Results are cached in `cache_dir` (default `~/.cache/lambdafuzz/analysis`).
    """
    start = time.perf_counter()
    sources = discover([Path(r) for r in app_roots], handler_module)
    options = {
        "handler": handler_module,
        "trigger": trigger,
        "numeric": numeric,
        "all_strings": all_strings,
        "rich": rich,
    }
    key = cache.digest(sources, options)
    directory = Path(cache_dir) if cache_dir is not None else cache.default_cache_dir()
    if use_cache:
        cached = cache.load(directory, key)
        if cached is not None:
            return replace(
                cached, match=match_report(cached.targets, produced_labels), from_cache=True
            )
    result = _analyze(
        sources, key, handler_module, trigger, produced_labels, numeric, all_strings, rich
    )
    result = replace(result, elapsed_s=round(time.perf_counter() - start, 4))
    if use_cache:
        cache.store(directory, key, result)
    return result


def _analyze(
    sources: list[SourceFile],
    key: str,
    handler_module: str | None,
    trigger: str | None,
    produced_labels: Iterable[str] | None,
    numeric: bool,
    all_strings: bool,
    rich: bool = False,
) -> AnalysisResult:
    modules = [pm for pm in (parse(s) for s in sources) if pm is not None]
    graph = build_graph(modules)
    handlers = find_handlers(graph, modules, handler_module)
    for fn in handlers:
        graph.mark_event_root(fn)
    labelling = label_graph(graph, trigger=trigger)
    walker = InfluenceWalker(graph, labelling)

    targets: list[CodeTarget] = []
    for pm in sorted(modules, key=lambda m: str(m.source.path)):
        for raw in collect_targets(pm):
            influence = walker.walk(graph.node_of(op) for op in raw.operands)
            targets.append(
                CodeTarget(
                    id=raw.id,
                    file=str(pm.source.path),
                    module=raw.module,
                    function=raw.function,
                    line=raw.line,
                    end_line=raw.end_line,
                    kind=raw.kind,
                    arm=raw.arm,
                    index=raw.index,
                    condition=raw.condition,
                    line_pairs=raw.line_pairs,
                    types=influence.types,
                    input_dependent=influence.input_dependent,
                )
            )

    reachable = reachable_functions(graph, handlers) if handlers else None
    harvest = collect_constants(
        modules, reachable, numeric=numeric, all_strings=all_strings, rich=rich
    )
    strings, numbers = harvest.strings, harvest.numbers
    handler_name = handlers[0].qualname if handlers else None
    return AnalysisResult(
        version=ANALYSIS_VERSION,
        digest=key,
        files=tuple(str(pm.source.path) for pm in modules),
        handler=handler_name,
        targets=tuple(targets),
        unified=unify(targets),
        constants=tuple(str(c.value) for c in strings),
        numeric_constants=tuple(c.value for c in numbers),  # type: ignore[misc]
        constant_details=strings + numbers,
        match=match_report(targets, produced_labels),
        elapsed_s=0.0,
        stores_items=harvest.stores_items,
    )


def find_handlers(
    graph: DependencyGraph, modules: list[ParsedModule], handler_module: str | None
) -> list[FunctionInfo]:
    """The entry point(s): the named function, else `(event, context)`-shaped functions."""
    names = {pm.source.module for pm in modules}
    module, func = _split_handler(handler_module, names)
    if module is not None and func is not None:
        found = graph.functions.get(f"{module}.{func}")
        if found is not None:
            return [found]
        log.warning(
            "analysis-handler-not-found: no function %r in module %r; guessing handlers",
            func,
            module,
        )
    scope = [
        fn
        for fn in graph.functions.values()
        if module is None or fn.module == module or func is not None
    ]
    shaped = [fn for fn in scope if _looks_like_handler(fn)]
    if shaped:
        return sorted(shaped, key=lambda f: f.qualname)
    named = [
        fn
        for fn in scope
        if fn.node.name.value in HANDLER_NAMES and fn.params and fn.class_qualname is None
    ]
    return sorted(named, key=lambda f: f.qualname)


def _split_handler(spec: str | None, modules: set[str]) -> tuple[str | None, str | None]:
    if not spec:
        return None, None
    if ":" in spec:
        module, _, func = spec.partition(":")
        return module, func or None
    if spec in modules:
        return spec, None
    module, _, func = spec.rpartition(".")
    return (module, func) if module else (None, spec)


def _looks_like_handler(fn: FunctionInfo) -> bool:
    if fn.class_qualname is not None or len(fn.params) < 2 or "<locals>" in fn.qualname:
        return False
    return fn.params[0] in EVENT_PARAM_NAMES and fn.params[1] in CONTEXT_PARAM_NAMES


def reachable_functions(graph: DependencyGraph, handlers: list[FunctionInfo]) -> set[str]:
    """Functions reachable from the handlers and from module-level (import-time) code."""
    todo = [fn.qualname for fn in handlers] + [k for k in graph.calls if k.startswith("<module>")]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(graph.calls.get(name, ()))
    return {s for s in seen if not s.startswith("<module>")}
