"""Measuring what one handler invocation costs, cheaply enough to do it on every test.

* AWS calls and bytes sent: one botocore ``before-call`` handler, registered in botocore's
  list of built-in handlers before any session exists (as moto registers its own), so
  every client the handler or its libraries create is counted. It only counts while a test
  runs: the world loader's own calls are not the handler's.
* Bytes received: an ``after-call`` handler, emitted on both AWS paths once the response
  is parsed, adds the length of every streamed body the services answered with (an S3
  object, a Lambda payload): the data the handler is given to process, counted by its
  ``ContentLength``, never read here (the handler reads it). Other answers are not
  counted: their size varies with request ids, receipt handles and timestamps, and an
  exact count must be the same for the same input (`--objective mixed` is deterministic).
* Peak memory: ``tracemalloc`` would slow every allocation; instead the kernel's resident
  high-water mark is reset before the call (``/proc/self/clear_refs``, "5") and read after
  it (``getrusage`` of the calling thread: see `_RUSAGE_WHO`), minus the resident size
  before. Measured on this box: reset 3.6 us, resident size 6 us, getrusage 1.2 us a test
  (in a quiet process; see `_RUSAGE_WHO` for a worker on busy cores); reading
  ``/proc/self/status`` instead costs 20 us and is only the fallback for a process whose
  ``ru_maxrss`` stuck (a thread that exited holding a higher mark). Where ``/proc`` cannot
  be used the growth of the process-wide high-water mark is reported: it still shows every
  new peak.
* glibc keeps large freed blocks in the heap once its dynamic mmap threshold has grown, so
  the second run of the same input would reuse them and show almost no growth (a 30 MB
  Pillow workload measured 32, 23, 28, 28 MB over four runs). `install()` fixes the mmap
  and trim thresholds at 4 MiB (``mallopt``, which also stops them growing): blocks that
  large are mapped and unmapped every time and each run's peak shows again (32.1, 31.8,
  31.8, 31.8 MB); what smaller blocks keep is at most about 4 MiB. A threshold of 128 KiB
  would be exact to 128 KiB but made an allocation-heavy loop (gzip, Pillow, byte joins)
  30% slower; at 4 MiB the same loop ran as fast as with glibc's defaults or faster.
"""

from __future__ import annotations

import os
import resource
import time
from typing import Any

from lambdafuzz.model.cost import CostMeasures

#: A high-water mark this far above the resident size right after a reset is stuck.
_STUCK_KB = 1024


class CostMeter:
    """Counts AWS calls and measures time and memory between `begin()` and `stop()`."""

    def __init__(self) -> None:
        self._active = False
        self._calls: dict[str, int] = {}
        self._bytes = 0
        self._read = 0
        self._t0 = self._duration = 0.0
        self._rss0 = self._peak = 0
        self._status_fd: int | None = None
        self._use_status = False
        self._page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
        self._clear_fd = _open("/proc/self/clear_refs", os.O_WRONLY)
        self._statm_fd = _open("/proc/self/statm", os.O_RDONLY)
        if self._clear_fd is not None:
            self._status_fd = _open("/proc/self/status", os.O_RDONLY)

    def install(self) -> None:
        """Hook botocore: call before any boto3/botocore session is created (before the
        emulator starts and the handler is imported)."""
        from botocore import handlers

        _fix_mmap_threshold()
        for entry in (("before-call", self._on_call), ("after-call", self._on_answer)):
            if entry not in handlers.BUILTIN_HANDLERS:
                handlers.BUILTIN_HANDLERS.append(entry)

    def _on_call(self, model: Any = None, params: Any = None, **_: Any) -> None:
        """botocore's `before-call`: `params` is the serialized request dict."""
        if not self._active or model is None:
            return
        try:
            op = f"{model.service_model.service_name}.{model.name}"
        except AttributeError:
            return
        self._calls[op] = self._calls.get(op, 0) + 1
        body = params.get("body") if isinstance(params, dict) else None
        if body:
            self._bytes += _size(body)

    def _on_answer(
        self, http_response: Any = None, parsed: Any = None, model: Any = None, **_: Any
    ) -> None:
        """botocore's `after-call`: count a successful answer's streamed body."""
        if not self._active or model is None or not model.has_streaming_output:
            return
        try:
            if not 200 <= http_response.status_code < 300:
                return
            length = parsed.get("ContentLength")
        except AttributeError:  # an answer that cannot say its size is not counted
            return
        if isinstance(length, int) and length > 0:
            self._read += length

    def begin(self) -> None:
        self._calls.clear()
        self._bytes = 0
        self._read = 0
        if self._clear_fd is not None:
            try:
                os.write(self._clear_fd, b"5")
            except OSError:
                self._clear_fd = None
        self._rss0 = self._rss_kb()
        if self._clear_fd is not None:
            self._use_status = _maxrss_kb() > self._rss0 + _STUCK_KB
        else:
            self._rss0 = max(self._rss0, _maxrss_kb())  # only new process-wide peaks show
        self._active = True
        self._t0 = time.perf_counter()

    def stop(self) -> None:
        """The handler returned (or raised): stop the clock and counting, take the peak."""
        self._duration = time.perf_counter() - self._t0
        self._active = False
        self._peak = self._status_hwm() if self._use_status else _maxrss_kb()

    def measures(self, max_hits: int = 0) -> CostMeasures:
        """What the call between `begin()` and `stop()` cost."""
        return CostMeasures(
            duration_ms=self._duration * 1000.0,
            calls=tuple(sorted(self._calls.items())),
            bytes_written=self._bytes,
            bytes_read=self._read,
            memory_kb=max(0, self._peak - self._rss0),
            max_hits=max_hits,
        )

    def _rss_kb(self) -> int:
        if self._statm_fd is None:
            return 0
        try:
            return int(os.pread(self._statm_fd, 128, 0).split()[1]) * self._page_kb
        except (OSError, ValueError, IndexError):
            return 0

    def _status_hwm(self) -> int:
        if self._status_fd is None:
            return _maxrss_kb()
        try:
            data = os.pread(self._status_fd, 8192, 0)
            i = data.index(b"VmHWM:")
            return int(data[i + 6 : data.index(b"kB", i)])
        except (OSError, ValueError):
            return _maxrss_kb()


#: mallopt parameters (glibc malloc.h) and the threshold: glibc's initial default.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD = 4 * 1024 * 1024


def _fix_mmap_threshold() -> bool:
    """Large allocations mapped, and unmapped when freed (see the module docstring); False
    where there is no glibc `mallopt`. Must run before the worker refuses native code."""
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError, ImportError):
        return False
    return bool(
        mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, _MMAP_THRESHOLD)
    )


#: Linux's `RUSAGE_THREAD` reports the same `ru_maxrss` as `RUSAGE_SELF` (the process's
#: high-water mark, whichever thread allocated), without summing every thread's CPU time.
#: That sum waited on the worker's other threads: `RUSAGE_SELF` took 0.9-1.7 ms (wall; 3 us
#: of CPU) as the first call of a test in a campaign's worker on 2 busy cores, 1.7 ms of
#: `CostMeter.begin`'s 1.45 ms + `stop`'s 0.3 ms a test on survey_upload; `RUSAGE_THREAD`
#: 2-8 us in the same place (300 executions each, timed inside the worker).
_RUSAGE_WHO = getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF)


def _maxrss_kb() -> int:
    return resource.getrusage(_RUSAGE_WHO).ru_maxrss  # KiB on Linux


def _open(path: str, flags: int) -> int | None:
    try:
        return os.open(path, flags | os.O_CLOEXEC)
    except OSError:
        return None


def _size(body: Any) -> int:
    """Bytes of a request body: bytes, text, or a seekable file (its remaining size)."""
    if isinstance(body, bytes | bytearray | memoryview):
        return len(body)
    if isinstance(body, str):
        return len(body.encode("utf-8", "surrogatepass"))
    if isinstance(body, dict):  # a query-protocol body before encoding
        return sum(len(str(k)) + len(str(v)) + 2 for k, v in body.items())
    try:
        pos = body.tell()
        end = body.seek(0, os.SEEK_END)
        body.seek(pos)
        return max(0, end - pos)
    except Exception:  # noqa: BLE001 - a stream that cannot say its size is not counted
        return 0
