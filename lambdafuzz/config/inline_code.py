"""A function's inline code (SAM `InlineCode`, CloudFormation `Code.ZipFile`) as a module.

Lambda's Python runtime saves inline code as `index.py` and imports the handler from it
(`Handler: index.handler`).  lambdafuzz does the same in a directory of its cache named by
the code's hash, so the same code always has the same path (a campaign's saved inputs replay
against it, and its coverage keys stay stable) and nothing is written beside the template.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: The module name Lambda gives inline Python code.
INLINE_MODULE = "index"


def cache_root() -> Path:
    """`$XDG_CACHE_HOME/lambdafuzz/inline`, else `~/.cache/lambdafuzz/inline`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lambdafuzz" / "inline"


def inline_code_dir(code: str) -> Path:
    """The directory holding `index.py` with `code` (written once, atomically)."""
    digest = hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    directory = cache_root() / digest
    module = directory / f"{INLINE_MODULE}.py"
    if module.is_file() and module.read_text(encoding="utf-8", errors="replace") == code:
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    partial = module.with_name(f".{INLINE_MODULE}.{os.getpid()}.tmp")
    partial.write_text(code, encoding="utf-8")
    os.replace(partial, module)
    return directory
