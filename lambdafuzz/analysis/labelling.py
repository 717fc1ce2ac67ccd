"""Give every graph node its type labels (SpotOn's type collection, Python edition).

A node's labels come from its own syntax (annotations, constructors, the type table for
library calls) and from what it is computed from: a variable has the labels of everything
assigned to it, `image.getexif()` is EXIF because `image` is a PIL image, `key.split("/")`
stays an S3 key.  Event access paths (`event["Records"][0]["s3"]["object"]["key"]`) are
propagated the same way and turned into labels by `type_table.path_labels`.

This is a monotone fixpoint: states only grow, paths are capped in length and number, so
it terminates; a worklist keyed by reverse edges keeps it linear in practice.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from lambdafuzz import labels as L

from . import type_table as T
from .graph import COPY, ELEMENT, DependencyGraph, Node

MAX_PATH_LEN = 12
MAX_PATHS = 16

PathT = tuple[str, ...]


@dataclass(slots=True)
class Labelling:
    """Result of the fixpoint: labels per node, which nodes read generated input."""

    labels: list[frozenset[str]]
    paths: list[frozenset[PathT]]
    sources: frozenset[int]
    event_label: str | None


def label_graph(graph: DependencyGraph, *, trigger: str | None = None) -> Labelling:
    """Run the propagation to a fixpoint, then add the event-kind label to event parts."""
    nodes = graph.nodes
    n = len(nodes)
    labels: list[frozenset[str]] = [frozenset()] * n
    paths: list[frozenset[PathT]] = [frozenset()] * n
    sources: set[int] = set(graph.roots)
    dependents: list[list[int]] = [[] for _ in range(n)]
    for i, node in enumerate(nodes):
        for m, _ in node.deps:
            dependents[m].append(i)
        if node.recv is not None:
            dependents[node.recv].append(i)
        for a in node.args:
            dependents[a].append(i)

    queue = deque(range(n))
    queued = [True] * n
    while queue:
        i = queue.popleft()
        queued[i] = False
        new_labels, new_paths, is_source = _transfer(nodes[i], labels, paths)
        if is_source:
            sources.add(i)
        grown_l = new_labels - labels[i]
        grown_p = new_paths - paths[i]
        if len(paths[i]) >= MAX_PATHS:
            grown_p = frozenset()
        elif grown_p:
            room = MAX_PATHS - len(paths[i])
            grown_p = frozenset(sorted(grown_p)[:room])
        if grown_l or grown_p:
            labels[i] = labels[i] | grown_l
            paths[i] = paths[i] | grown_p
            for d in dependents[i]:
                if not queued[d]:
                    queued[d] = True
                    queue.append(d)

    all_paths = {p for ps in paths for p in ps}
    event_label = T.TRIGGER_LABELS.get(trigger or "") or T.event_kind(all_paths)
    for root in graph.roots:
        labels[root] = labels[root] | {L.EVENT} | ({event_label} if event_label else set())
    if event_label:
        for i in range(n):
            if paths[i] and not any(T.path_labels(p) for p in paths[i]):
                labels[i] = labels[i] | {event_label}
    return Labelling(labels, paths, frozenset(sources), event_label)


def _vocab(labels: frozenset[str]) -> set[str]:
    return {x for x in labels if not T.is_kind(x)}


def _transfer(
    node: Node, labels: list[frozenset[str]], paths: list[frozenset[PathT]]
) -> tuple[frozenset[str], frozenset[PathT], bool]:
    out: set[str] = set(node.fixed)
    out_paths: set[PathT] = {()} if node.root else set()
    source = False
    for m, mode in node.deps:
        if mode == COPY:
            out |= labels[m]
            out_paths |= paths[m]
        elif mode == ELEMENT:
            out |= _vocab(labels[m])
            out_paths |= paths[m]

    op = node.op
    recv = node.recv
    rl = labels[recv] if recv is not None else frozenset()
    rp = paths[recv] if recv is not None else frozenset()
    if op == "subscript":
        out |= _subscript_labels(rl, node.key)
        out_paths |= _extend(rp, () if node.key is None else (node.key,))
    elif op == "iter":
        out |= _vocab(rl)
        out_paths |= _extend(rp, ("*",))
    elif op == "attr":
        for x in rl:
            out.update(T.ATTRIBUTES.get((x, node.name), ()))
        if node.name in T.PATH_ATTRIBUTES:
            out |= rl & T.KEY_LIKE
        if rp and node.name in T.PATH_ATTRIBUTE_ALIASES:
            out_paths |= _extend(rp, T.PATH_ATTRIBUTE_ALIASES[node.name])
    elif op == "method":
        source = _method(node, rl, rp, labels, out, out_paths)
    elif op == "call":
        _library_call(node, labels, paths, out, out_paths)

    for p in out_paths:
        out.update(T.path_labels(p))
    return frozenset(out), frozenset(out_paths), source


def _method(
    node: Node,
    rl: frozenset[str],
    rp: frozenset[PathT],
    labels: list[frozenset[str]],
    out: set[str],
    out_paths: set[PathT],
) -> bool:
    source = False
    for rule in T.method_rules(node.name):
        if rule.receiver == T.ANY:
            if rule.keywords and not (rule.keywords & node.keywords):
                continue
        elif rule.receiver not in rl:
            continue
        out.update(rule.labels)
        source = source or rule.source
    if node.name in ("get", "pop", "setdefault"):  # mapping access: like a subscript
        out |= _subscript_labels(rl, node.key or "*")
        out_paths |= _extend(rp, (node.key or "*",))
    elif node.name in T.PRESERVING_METHODS:
        out |= _vocab(rl)
    if rl & T.TEXTUAL:
        out.update(T.TEXT_METHODS.get(node.name, ()))
        if node.name in ("split", "rsplit") and node.key in T.CSV_DELIMITERS:
            out.add(L.CSV_ROW)
    if node.name in T.ARG_PRESERVING_METHODS:
        for a in node.args:
            out |= _vocab(labels[a])
    return source


def _library_call(
    node: Node,
    labels: list[frozenset[str]],
    paths: list[frozenset[PathT]],
    out: set[str],
    out_paths: set[PathT],
) -> None:
    if node.rule == "preserve":
        for a in node.args:
            out |= _vocab(labels[a])
    elif node.rule == "container":
        for a in node.args:
            out |= _vocab(labels[a])
            out_paths |= paths[a]
    elif node.rule == "parse" and node.args:
        out_paths |= paths[node.args[0]]
    elif node.rule == "next" and node.args:
        first = node.args[0]
        for x in _vocab(labels[first]):
            out.update(T.NEXT_OF.get(x, (x,)))
        out_paths |= _extend(paths[first], ("*",))


def _subscript_labels(rl: frozenset[str], key: str | None) -> set[str]:
    out: set[str] = set()
    for x in rl:
        if T.is_kind(x):
            continue
        if key is not None and (x, key) in T.SUBSCRIPTS:
            out.update(T.SUBSCRIPTS[(x, key)])
        elif (x, T.ANY) in T.SUBSCRIPTS and key is not None:
            out.update(T.SUBSCRIPTS[(x, T.ANY)])
        else:
            out.add(x)
    return out


def _extend(ps: frozenset[PathT], suffix: PathT) -> set[PathT]:
    return {p + suffix for p in ps if len(p) + len(suffix) <= MAX_PATH_LEN}
