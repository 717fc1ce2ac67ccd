"""A function's inline code (SAM `InlineCode`, CloudFormation `Code.ZipFile`) as a module.

Lambda's Python runtime saves inline code as `index.py` and imports the handler from it
(`Handler: index.handler`).  lambdafuzz does the same in a directory of its cache named by
the code's hash, so the same code always has the same path (a campaign's saved inputs replay
against it, and its coverage keys stay stable) and nothing is written beside the template.
Lambda also gives inline code the `cfnresponse` module custom resources answer with; the
one saved beside `index.py` records the response (one JSON line on stdout) instead of
sending it to CloudFormation's URL.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

#: The module name Lambda gives inline Python code.
INLINE_MODULE = "index"
#: The module Lambda provides to inline code for answering CloudFormation custom resources.
CFNRESPONSE_MODULE = "cfnresponse"
CFNRESPONSE_CODE = '''"""CloudFormation custom resource responses, as Lambda provides the module to inline
code; under lambdafuzz the response is recorded (one JSON line on stdout), not sent.
An event without the custom resource keys (a generated one) records them as null."""

import json

SUCCESS = "SUCCESS"
FAILED = "FAILED"


def send(event, context, responseStatus, responseData, physicalResourceId=None, noEcho=False, reason=None):
    log_stream = getattr(context, "log_stream_name", "")
    body = {
        "Status": responseStatus,
        "Reason": reason or "See the details in CloudWatch Log Stream: " + str(log_stream),
        "PhysicalResourceId": physicalResourceId or log_stream,
        "StackId": event.get("StackId"),
        "RequestId": event.get("RequestId"),
        "LogicalResourceId": event.get("LogicalResourceId"),
        "NoEcho": noEcho,
        "Data": responseData,
    }
    print(json.dumps({"cfnresponse": body, "ResponseURL": event.get("ResponseURL")}, default=str))
'''


def cache_root() -> Path:
    """`$XDG_CACHE_HOME/lambdafuzz/inline`, else `~/.cache/lambdafuzz/inline`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lambdafuzz" / "inline"


def inline_code_dir(code: str) -> Path:
    """The directory holding `index.py` with `code` (written once, atomically)."""
    digest = hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    directory = cache_root() / digest
    module = directory / f"{INLINE_MODULE}.py"
    _write_once(module, code)
    _write_once(directory / f"{CFNRESPONSE_MODULE}.py", CFNRESPONSE_CODE)
    return directory


def _write_once(path: Path, text: str) -> None:
    """`path` holding `text`, written atomically unless it already does."""
    if path.is_file() and path.read_text(encoding="utf-8", errors="replace") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.stem}.{os.getpid()}.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)
