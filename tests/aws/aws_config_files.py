"""A lambdafuzz.yaml with a handler module beside it, written for a test."""

from __future__ import annotations

from pathlib import Path


def write_config(directory: Path, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "app.py").write_text("def handler(event, context):\n    return None\n")
    path = directory / "lambdafuzz.yaml"
    path.write_text(text)
    return path
