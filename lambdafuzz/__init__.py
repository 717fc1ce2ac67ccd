"""lambdafuzz: generator-based, coverage-guided fuzzing for Python AWS Lambda handlers."""

from __future__ import annotations

__version__ = "0.1.0"
