"""Python-version and capability flags, named once so call sites read as intent.

Every check of ``sys.version_info`` or of an optional interpreter feature lives here;
other modules import the flag, never repeat the test.
"""

from __future__ import annotations

import sys

PY312 = sys.version_info >= (3, 12)
PY313 = sys.version_info >= (3, 13)
PY314 = sys.version_info >= (3, 14)

# PEP 669 (3.12+). Without it there is no cheap per-code-object branch coverage.
HAS_SYS_MONITORING = hasattr(sys, "monitoring")

# 3.14 split BRANCH into BRANCH_LEFT (not taken) and BRANCH_RIGHT (taken); returning
# DISABLE from either then disables only that arm. On 3.12/3.13 the single BRANCH event
# must never be disabled: DISABLE there switches off both arms of the jump.
HAS_BRANCH_LEFT_RIGHT = HAS_SYS_MONITORING and hasattr(sys.monitoring.events, "BRANCH_LEFT")

# 3.14 code objects list their branches, (src, left_dst, right_dst), exactly as the
# BRANCH_LEFT/BRANCH_RIGHT events report them; before that we decode the bytecode with dis.
HAS_CO_BRANCHES = hasattr((lambda: None).__code__, "co_branches")

# Where the "iterator exhausted" arm of FOR_ITER lands, in bytes past the jump target
# (the END_FOR the target names): 3.12 skips END_FOR; 3.13 skips END_FOR and POP_TOP.
# Checked against the BRANCH events of both interpreters (tests/harness/measure/test_coverage.py).
FOR_ITER_EXIT_SKIP = 4 if PY313 else 2
