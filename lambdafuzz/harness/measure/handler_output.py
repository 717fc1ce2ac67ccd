"""What a handler printed and logged during one test: kept in the worker, sent back only
with failures (and to replays that ask for it).

In Lambda everything a function writes to stdout or stderr, and every record that reaches
the root logger's handler, ends up in CloudWatch; the worker keeps the same, per test:

* file descriptors 1 and 2 are the write end of a pipe whose read end (on a high
  descriptor) a thread drains into a ring holding the last `LOG_LIMIT` bytes of the
  current test and the count of all it was given, so a handler writing 50 MB costs the
  pipe's throughput and 64 KB of memory;
* the root logger gets a handler like the runtime's (`[ERROR]\\t<UTC time>\\t<request
  id>\\t<message>`; the root level stays WARNING, or `AWS_LAMBDA_LOG_LEVEL`, as in
  Lambda): records go straight into the ring, after what was printed before them, and
  `logging.basicConfig()` in a handler module is a no-op here too; a handler that adds
  its own stream handler, or a Powertools Logger (stdout), is captured through the
  descriptors;
* `sys.stdout` is line-buffered (the runtime flushes after every write), so prints and log
  records keep their order;
* the ring is a shared mapping of a file in the worker's own temp dir: when a test kills or
  hangs its worker, the campaign reads that test's output from there (`read_ring`).

Cost when nothing is saved (2 shared cores, load 2.2-3.5): `begin` + `end` about 5 us a
test (a lock and a zero-timeout poll each, a flush at the end); a log record about 10 us more (format,
and an append to the ring, no thread wake-up); a printed line about 15 us (a line-buffered
write, the drain thread's wake-up).  The tail is decoded only for a failure or a replay.
Measured with the worker alone (1,000 tests after 50 warm-up ones, 3 alternating rounds,
medians): survey_upload, which logs one INFO record per valid test, handler time 0.281 ->
0.314 ms and round trip 1.86 -> 1.89 ms a test; gradebook 14.8 -> 14.5 ms (noise).
benchmarks/throughput.py (zest, 300 executions, 1 worker, 4 alternating rounds, medians;
the rounds spread by +-30%): gradebook 19.0 -> 21.9 execs/s, survey_upload 158.6 ->
150.2 execs/s.  A handler printing 50 MB in 1 MB writes: 0.004 s a test to /dev/null
before, 0.029 s through the 1 MB pipe now (0.067 s with the default 64 KB pipe).
"""

from __future__ import annotations

import contextlib
import logging
import mmap
import os
import re
import select
import struct
import sys
import threading
import time
from pathlib import Path

from lambdafuzz.harness.sandbox.descriptors import high_fd

#: Bytes of a test's output kept (the last ones: what led up to the failure).
LOG_LIMIT = 64 * 1024
#: The ring file in a worker's temp dir.
RING_FILE = "output.ring"
_HEADER = struct.Struct("<Q")  # bytes written since the test began
_READ_CHUNK = 1 << 16
_PIPE_SIZE = 1 << 20  # Linux's default limit for unprivileged processes
#: Lambda's text log format (awslambdaric), with UTC times.
LAMBDA_LOG_FORMAT = "[%(levelname)s]\t%(asctime)s.%(msecs)03dZ\t%(aws_request_id)s\t%(message)s\n"
LAMBDA_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S"
#: A cut first line is skipped up to its end when that is this close.
_LINE_SEARCH = 1024
#: Control characters that would act on a terminal; shown as \\xNN instead.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class HandlerOutput:
    """The worker's capture of handler output; one per worker process."""

    def __init__(self, ring: mmap.mmap, read_fd: int, write_fd: int, tee_fd: int = -1) -> None:
        self._ring = ring
        self._read_fd = read_fd
        self._write_fd = write_fd  # our own write end: log records, and no EOF ever
        self._tee_fd = tee_fd
        self._total = 0
        self._lock = threading.Lock()
        self._pending = select.poll()  # "is anything in the pipe?" without a failed read
        self._pending.register(read_fd, select.POLLIN)
        self._pid = os.getpid()  # a forked copy of the worker touches neither lock nor ring
        self.request_id = ""

    @classmethod
    def install(cls, worker_dir: str = "", tee: str | None = None) -> HandlerOutput:
        """Descriptors 1 and 2 to the pipe and the ring mapped; first thing in the worker
        (it starts no thread: `start` does, once namespaces are entered)."""
        size = _HEADER.size + LOG_LIMIT
        if worker_dir:
            fd = os.open(
                os.path.join(worker_dir, RING_FILE),
                os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC,
                0o600,
            )
            try:
                os.ftruncate(fd, size)
                ring = mmap.mmap(fd, size)
            finally:
                os.close(fd)
        else:
            ring = mmap.mmap(-1, size)
        read_end, write_end = os.pipe()
        os.set_blocking(read_end, False)
        with contextlib.suppress(OSError, AttributeError):  # fewer wake-ups for big writes
            import fcntl

            fcntl.fcntl(read_end, fcntl.F_SETPIPE_SZ, _PIPE_SIZE)
        os.dup2(write_end, 1)
        os.dup2(write_end, 2)
        tee_fd = -1
        if tee:
            tee_fd = high_fd(os.open(tee, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644))
        return cls(ring, high_fd(read_end), high_fd(write_end), tee_fd)

    def start(self) -> None:
        """The thread that drains the pipe, and line-buffered stdout."""
        threading.Thread(target=self._drain_forever, name="lambdafuzz-output", daemon=True).start()
        line_buffered()

    def install_logging(self) -> None:
        """The runtime's root handler (before the handler's module is imported)."""
        root = logging.getLogger()
        root.addHandler(LambdaLogHandler(self))
        level = os.environ.get("AWS_LAMBDA_LOG_LEVEL", "").upper()
        if level in ("DEBUG", "INFO", "WARN", "WARNING", "ERROR", "CRITICAL", "FATAL"):
            root.setLevel("WARNING" if level == "WARN" else level)

    # ------------------------------------------------------------------ per test
    def begin(self, request_id: str) -> None:
        """A test starts: what is left from before (a thread the last test left running)
        is not its output."""
        self.request_id = request_id
        if os.getpid() != self._pid:
            return
        with self._lock:
            self._drain(keep=False)
            self._total = 0
            _HEADER.pack_into(self._ring, 0, 0)

    def end(self) -> None:
        """The handler returned: everything it wrote is in the ring."""
        if os.getpid() != self._pid:
            return
        _flush_stdio()
        with self._lock:
            self._drain()

    def text(self) -> str:
        """The current test's output (its last `LOG_LIMIT` bytes) as text."""
        if os.getpid() != self._pid:
            return ""
        with self._lock:
            return ring_text(self._ring[_HEADER.size :], self._total)

    def salvage(self) -> None:
        """Before the worker ends itself (`os._exit`, a fatal signal it sends itself): what
        is still buffered or in the pipe into the ring, for the campaign to read."""
        if os.getpid() != self._pid:
            return
        _flush_stdio()
        if self._lock.acquire(timeout=0.2):
            try:
                self._drain()
            finally:
                self._lock.release()

    def write(self, text: str) -> None:
        """A log record into the ring, after what was printed before it (straight in: no
        pipe, no wake-up of the drain thread); through the pipe in a forked copy of the
        worker, or when the ring is busy for long (a signal handler logging while this
        thread holds it)."""
        _flush_stdio()
        data = text.encode("utf-8", "backslashreplace")
        if os.getpid() == self._pid and self._lock.acquire(timeout=0.2):
            try:
                self._drain()
                self._take(data)
            finally:
                self._lock.release()
            return
        while data:
            written = os.write(self._write_fd, data)
            data = data[written:]

    # ------------------------------------------------------------------ the drain
    def _drain_forever(self) -> None:
        poller = select.poll()
        poller.register(self._read_fd, select.POLLIN)
        while True:
            try:
                events = poller.poll()
            except OSError:
                return
            if any(mask & select.POLLNVAL for _, mask in events):
                return  # the handler closed our read end: nothing to drain any more
            with self._lock:
                alive = self._drain()
            if not alive:
                time.sleep(0.05)  # no writer left (fds closed): until one is put back

    def _drain(self, *, keep: bool = True) -> bool:
        """Read what the pipe holds (with the lock held); False at end of file or on an
        error."""
        try:
            if not self._pending.poll(0):  # the usual case: nothing (0.6 us, a read 1.9)
                return True
        except OSError:
            return False
        while True:
            try:
                chunk = os.read(self._read_fd, _READ_CHUNK)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            if keep:
                self._take(chunk)
            elif self._tee_fd >= 0:
                with contextlib.suppress(OSError):
                    os.write(self._tee_fd, chunk)

    def _take(self, chunk: bytes) -> None:
        if self._tee_fd >= 0:
            with contextlib.suppress(OSError):
                os.write(self._tee_fd, chunk)
        self._append(chunk)

    def _append(self, chunk: bytes) -> None:
        total, size = self._total, len(chunk)
        if size >= LOG_LIMIT:
            chunk = chunk[-LOG_LIMIT:]
            start = (total + size - LOG_LIMIT) % LOG_LIMIT
        else:
            start = total % LOG_LIMIT
        base = _HEADER.size
        first = min(len(chunk), LOG_LIMIT - start)
        self._ring[base + start : base + start + first] = chunk[:first]
        if first < len(chunk):
            self._ring[base : base + len(chunk) - first] = chunk[first:]
        self._total = total + size
        _HEADER.pack_into(self._ring, 0, self._total)


class LambdaLogHandler(logging.Handler):
    """The root handler Lambda's Python runtime installs, writing to the capture."""

    def __init__(self, output: HandlerOutput) -> None:
        super().__init__()
        self.output = output
        formatter = logging.Formatter(LAMBDA_LOG_FORMAT, LAMBDA_DATE_FORMAT)
        formatter.converter = time.gmtime
        self.setFormatter(formatter)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            record.aws_request_id = self.output.request_id
            text = self.format(record)
            self.output.write(text if text.endswith("\n") else text + "\n")
        except RecursionError:
            raise
        except Exception:  # noqa: BLE001 - logging's own convention: report, never raise
            self.handleError(record)


def line_buffered() -> None:
    """stdout flushed at every line, as the runtime's unbuffered streams are (stderr is
    line-buffered already)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.reconfigure(line_buffering=True)  # type: ignore[union-attr]


def _flush_stdio() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # whatever the handler put there
            stream.flush()


# =========================================================================== reading
def ring_text(buffer: bytes, total: int) -> str:
    """The text of a ring holding the last bytes of `total` written: a note of what was
    dropped, then the kept bytes from the first whole line on, control characters shown
    as `\\xNN`."""
    total = max(0, total)
    if total <= LOG_LIMIT:
        data = bytes(buffer[:total])
    else:
        end = total % LOG_LIMIT
        data = bytes(buffer[end:LOG_LIMIT]) + bytes(buffer[:end])
    dropped = total - len(data)
    if dropped:
        newline = data.find(b"\n", 0, _LINE_SEARCH)
        if newline >= 0:  # start at a line
            data = data[newline + 1 :]
            dropped += newline + 1
    text = printable(data.decode("utf-8", "replace"))
    if dropped:
        text = (
            f"[lambdafuzz: {dropped} earlier bytes dropped; the last "
            f"{LOG_LIMIT // 1024} KB of the test's output are kept]\n{text}"
        )
    return text


def printable(text: str) -> str:
    """`text` safe for a terminal: CRLF as a newline, other control characters but tab
    and newline as `\\xNN`."""
    text = text.replace("\r\n", "\n")
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def read_ring(worker_dir: str | Path) -> str:
    """The output of the last test of a worker that died or hung (its ring file); "" when
    there is none."""
    try:
        with open(Path(worker_dir) / RING_FILE, "rb") as fh:
            raw = fh.read(_HEADER.size + LOG_LIMIT)
    except OSError:
        return ""
    if len(raw) < _HEADER.size:
        return ""
    (total,) = _HEADER.unpack_from(raw, 0)
    buffer = raw[_HEADER.size :].ljust(LOG_LIMIT, b"\0")
    return ring_text(buffer, min(total, 1 << 62))
