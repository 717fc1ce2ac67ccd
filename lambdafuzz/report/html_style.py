"""The stylesheet of `report.html`, inlined so the page needs no other file."""

from __future__ import annotations

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 2em 2em; color: #1f2328; }
header { position: sticky; top: 0; background: #fff; border-bottom: 1px solid #d0d7de; padding: .5em 0; z-index: 1; }
h1 { font-size: 1.4em; margin: .3em 0; }
h2 { border-bottom: 1px solid #d0d7de; padding-bottom: .2em; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin: 1.2em 0 .4em; font-family: ui-monospace, monospace; }
nav a { color: #0969da; text-decoration: none; }
table.summary th { text-align: left; padding-right: 1.5em; font-weight: 600; }
table.summary td, table.summary th { padding: .15em .5em .15em 0; vertical-align: top; }
table.targeting { border-collapse: collapse; }
table.targeting td, table.targeting th { border: 1px solid #d0d7de; padding: .2em .6em; text-align: right; }
table.targeting td:first-child { text-align: left; }
.note { color: #57606a; }
.ok { color: #1a7f37; }
.problems { color: #9a6700; }
#coverage-plot { max-width: 100%; border: 1px solid #d0d7de; }
pre { margin: 0; white-space: pre-wrap; word-break: break-all; }
section.failure { border: 1px solid #ff8182; border-radius: 6px; padding: .2em 1em 1em; margin: 1em 0; background: #fff8f8; }
section.failure > pre, details pre { background: #f6f8fa; padding: .6em; border-radius: 4px; max-height: 30em; overflow: auto; }
details { margin: .6em 0; }
details > summary { cursor: pointer; font-weight: 600; }
.minimized { border-left: 4px solid #8250df; padding-left: .6em; }
table.source { border-collapse: collapse; width: 100%; font-family: ui-monospace, monospace; font-size: 12.5px; }
table.source td { padding: 0 .4em; vertical-align: top; }
table.source td.no { color: #8c959f; text-align: right; user-select: none; width: 3em; }
table.source td.arms { width: 11em; white-space: nowrap; }
.line.full { background: #dafbe1; }
.line.partial { background: #fff8c5; }
.line.none { background: #ffebe9; }
.legend .line { padding: 0 .4em; border-radius: 3px; }
.arm { display: inline-block; font-size: 11px; line-height: 1.4; padding: 0 .3em; margin-right: .2em; border-radius: 3px; cursor: help; }
.arm-covered { background: #2da44e; color: #fff; }
.arm-uncovered { background: #cf222e; color: #fff; }
.line.crash td.no { background: #cf222e; color: #fff; }
.crash-mark { color: #cf222e; font-weight: 700; text-decoration: none; margin-right: .2em; }
footer { margin-top: 3em; color: #8c959f; font-size: .85em; }
"""
