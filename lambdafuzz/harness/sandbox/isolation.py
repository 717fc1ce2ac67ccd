"""What a worker process can reach and where it can write: decided and applied once, at start.

A worker calls `isolate_worker()` first thing, before it imports boto3, moto or the handler,
and reports the `IsolationState` it got (in `WorkerInfo`, then `campaign.json` and the
status line).  Two layers keep the code under test off the network:

* **A network namespace** (`Isolation.NETWORK_NAMESPACE`) when the emulator lives in the
  worker (in-process moto, the default, or moto's server started by the worker itself): the
  worker enters a new network namespace in which only loopback exists (brought up, so code
  that talks to itself over 127.0.0.1 still works).  Nothing the handler does can send a
  packet off the machine — not a C extension, not ctypes calling libc's `connect`, not a
  subprocess, not a thread started at import: every one of them gets ENETUNREACH.  As root
  the worker also enters a user namespace (uids mapped 1:1, so files look the same) and
  then drops the capabilities a handler could use to leave or undo the fences
  (`CAP_SYS_ADMIN` for `setns`/`umount`, `CAP_NET_ADMIN`, `CAP_SYS_RESOURCE` for raising
  the memory limit, ...); a non-root user gets the same through an unprivileged user
  namespace where the kernel allows one.
* **The audit guard** (`safety.py`): armed from before the handler's import until the
  worker exits.  The only layer for server backends that talk to an emulator outside the
  worker (LocalStack, `--endpoint`), on other systems, and where the kernel refuses
  namespaces (`Isolation.AUDIT_GUARD_ONLY`, with the reason).

Files: a private `/tmp` per worker.  With a mount namespace (`PrivateTmp.TMPFS`) a fresh
tmpfs (512 MB, Lambda's default ephemeral storage) is mounted on `/tmp`, with mount
propagation made private so nothing reaches the host; `HOME` is an empty directory on a
second private tmpfs mounted on `/dev/shm`.  Both vanish with the worker, also when it is
killed.  When a mount namespace is not possible, or when the handler's code or the Python
installation lives under `/tmp` or `/dev/shm` (a tmpfs there would hide it), a per-worker
directory `lambdafuzz-worker-<pid>-*` in the system temp dir holds `tmp/` (`TMPDIR`,
`tempfile.tempdir`) and `home/` (`PrivateTmp.TEMP_DIR`); it is removed when the worker exits,
and `IsolationState.host_dir` names it so the campaign can remove it after a kill.  The
worker empties both directories before every test (`fresh_dirs`).

`LAMBDAFUZZ_ISOLATION=guard-only` in the campaign's environment skips the namespaces (for
debugging, or a kernel that misbehaves with them).
"""

from __future__ import annotations

import atexit
import contextlib
import enum
import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from lambdafuzz.harness.sandbox.clean_env import initial_environment_clean
from lambdafuzz.harness.sandbox.private_view import apply_view, needed_paths
from lambdafuzz.harness.sandbox.process_group import write_file
from lambdafuzz.model.emulation import BackendKind

if TYPE_CHECKING:
    import ctypes

#: Campaign environment variable: "guard-only" skips the namespaces.
ISOLATION_ENV = "LAMBDAFUZZ_ISOLATION"
#: Size of the private /tmp: Lambda's default ephemeral storage.
TMP_SIZE = "512m"
#: Where HOME lives under a mount namespace (a second, small private tmpfs).
HOME_MOUNT = "/dev/shm"
HOME_SIZE = "64m"
#: The worker's own temp dir, bind-mounted into HOME_MOUNT under a private /tmp.
WORKER_DIR_NAME = "lambdafuzz-worker"

# Capabilities a handler could use to leave the namespaces, undo the private mounts, raise
# its memory limit or reach hardware; none of them is needed once the worker is set up.
# (The file-access ones, CAP_DAC_OVERRIDE and friends, stay: a root worker keeps reading
# files it could read before.)
_DANGEROUS_CAPS = {
    "CAP_SETPCAP": 8,
    "CAP_LINUX_IMMUTABLE": 9,
    "CAP_NET_ADMIN": 12,
    "CAP_NET_RAW": 13,
    "CAP_SYS_MODULE": 16,
    "CAP_SYS_RAWIO": 17,
    "CAP_SYS_PTRACE": 19,
    "CAP_SYS_ADMIN": 21,
    "CAP_SYS_BOOT": 22,
    "CAP_SYS_RESOURCE": 24,
    "CAP_MKNOD": 27,
    "CAP_MAC_ADMIN": 33,
    "CAP_PERFMON": 38,
    "CAP_BPF": 39,
}


class Isolation(enum.StrEnum):
    """What keeps the handler off the network."""

    NETWORK_NAMESPACE = "network-namespace"  # only loopback exists; the audit guard too
    AUDIT_GUARD_ONLY = "audit-guard-only"  # the audit guard alone (see safety.py)


class PrivateTmp(enum.StrEnum):
    """How the worker's /tmp and HOME are private."""

    TMPFS = "tmpfs"  # own mount namespace: fresh tmpfs on /tmp, HOME on a tmpfs on /dev/shm
    TEMP_DIR = "temp-dir"  # a per-worker directory as TMPDIR / tempfile.tempdir and HOME


@dataclass(slots=True, frozen=True)
class IsolationState:
    """The isolation in force in one worker (picklable; reported in `WorkerInfo`)."""

    network: Isolation
    network_reason: str  # why this level, in words
    tmp: PrivateTmp
    tmp_reason: str
    tmp_dir: str  # the handler's temp dir: "/tmp" under TMPFS
    home: str  # HOME of every test (emptied before each)
    host_dir: str | None  # on the host, removed at exit; None: nothing on the host
    user_namespace: bool = False
    capabilities_dropped: tuple[str, ...] = ()
    worker_dir: str = ""  # where the worker reaches its own temp dir (see isolate_worker)
    # the file-system mounts (`Target.file_systems`) made at their paths, and why the
    # others were not ("" when all were)
    mounts: tuple[str, ...] = ()
    mounts_reason: str = ""
    # what holds the processes the handler starts (`process_group.Descendants.describe`)
    descendants: str = ""
    # the user's paths hidden (`private_view`) and the code folders made read-only, and why
    # not ("" when all were); whether /proc/self/environ holds only kept names (`clean_env`)
    hidden: tuple[str, ...] = ()
    readonly_code: tuple[str, ...] = ()
    view_reason: str = ""
    clean_environment: bool = False

    def describe(self) -> str:
        """One line for the status display."""
        if self.network is Isolation.NETWORK_NAMESPACE:
            net = "network namespace (loopback only) + audit guard"
        else:
            net = f"audit guard only ({self.network_reason})"
        tmp = "private /tmp (tmpfs)" if self.tmp is PrivateTmp.TMPFS else "per-worker TMPDIR"
        line = f"{net}; {tmp}"
        line += "; clean environment" if self.clean_environment else "; environment not clean"
        view = [
            *(["user's home hidden"] if self.hidden else []),
            *(["code read-only"] if self.readonly_code else []),
        ]
        line += f"; {' + '.join(view) if view else 'home and code not protected'}"
        if self.view_reason:
            line += f" ({self.view_reason})"
        if self.mounts:
            line += f"; file systems mounted at {', '.join(self.mounts)}"
        if self.mounts_reason:  # said once, where the campaign states its isolation
            line += f"; file systems not mounted ({self.mounts_reason})"
        if self.descendants:
            line += f"; {self.descendants}"
        return line

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["network"] = self.network.value
        data["tmp"] = self.tmp.value
        data["capabilities_dropped"] = list(self.capabilities_dropped)
        data["mounts"] = list(self.mounts)
        data["hidden"] = list(self.hidden)
        data["readonly_code"] = list(self.readonly_code)
        return data


# =========================================================================== deciding
@dataclass(slots=True, frozen=True)
class RayIsolation:
    """What keeps a Ray pool's actors' handlers off the network: each actor's worker reports its own
    `IsolationState` (nodes may differ: one without user namespaces keeps only the audit
    guard), and the weakest is what the campaign can promise."""

    workers: tuple[IsolationState | None, ...]
    nodes: int

    @property
    def readonly_code(self) -> tuple[str, ...]:
        """None promised: the actors run copies of the code shipped to their nodes, so the
        campaign watches its own folder for changes whatever each actor could mount."""
        return ()

    def describe(self) -> str:
        where = f"Ray: {len(self.workers)} actor(s) on {self.nodes} node(s)"
        kinds: dict[str, int] = {}
        for state in self.workers:
            text = state.describe() if state is not None else "isolation unknown"
            kinds[text] = kinds.get(text, 0) + 1
        if len(kinds) == 1:
            return f"{where}, each test in a worker process with {next(iter(kinds))}"
        parts = "; ".join(f"{n} actor(s): {text}" for text, n in kinds.items())
        return f"{where}, each test in a worker process; {parts}"

    def to_json(self) -> dict[str, Any]:
        """The weakest actor's state (the audit guard alone if any has no namespace), and
        every actor's under `ray`."""
        known = [s for s in self.workers if s is not None]
        weakest = min(known, key=lambda s: s.network is Isolation.NETWORK_NAMESPACE, default=None)
        data = weakest.to_json() if weakest is not None else {}
        data["ray"] = {
            "actors": len(self.workers),
            "nodes": self.nodes,
            "workers": [s.to_json() if s is not None else None for s in self.workers],
        }
        return data


def network_plan(backend: BackendKind, endpoint: str | None) -> tuple[bool, str]:
    """(use a network namespace?, why not): only where the emulator lives in the worker."""
    if backend == BackendKind.MOTO:
        return True, "the in-process emulator needs no network"
    if backend == BackendKind.MOTO_SERVER and endpoint is None:
        return True, "the worker's own moto server listens on the namespace's loopback"
    where = f" at {endpoint}" if endpoint else ""
    return False, (
        f"backend {backend} talks to an emulator outside the worker{where} over loopback, "
        "which a network namespace would cut off"
    )


def _under(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def _blocking_path(keep_visible: Iterable[str], mountpoints: Iterable[str]) -> str | None:
    """A path the worker needs that a tmpfs on one of `mountpoints` would hide, if any."""
    tops = [os.path.realpath(m) for m in mountpoints]
    candidates = [
        *keep_visible,
        *(p for p in sys.path if p),
        sys.prefix,
        sys.exec_prefix,
        os.path.dirname(sys.executable),
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    ]
    with contextlib.suppress(OSError):
        candidates.append(os.getcwd())
    for path in candidates:
        real = os.path.realpath(path)
        for top in tops:
            if _under(real, top):
                return real
    return None


# =========================================================================== applying
def unisolated(reason: str = "not started as a worker process") -> IsolationState:
    """Per-process private dirs and the audit guard only: for a runtime inside a process
    that is not a worker (measurements, cross-checks)."""
    return _temp_dir_state(Isolation.AUDIT_GUARD_ONLY, reason, reason, user_ns=False, caps=())


def isolate_worker(
    *,
    backend: BackendKind,
    endpoint: str | None,
    keep_visible: Iterable[str] = (),
    worker_dir: str = "",
    mounts: Sequence[tuple[str, str]] = (),
    hidden: Sequence[str] = (),
) -> IsolationState:
    """Enter the strongest isolation this kernel allows for `backend`: what it refuses is
    skipped and said in the returned state, never raised.

    Call it in a fresh, single-threaded process before boto3, moto or the handler are
    imported (a user namespace cannot be entered once a thread runs).  `keep_visible`:
    paths the worker needs (the handler's root) that a private /tmp must not hide.
    `worker_dir`: the worker's own temp dir, made (and removed, even after a kill) by the
    campaign; under a private /tmp it stays reachable at `IsolationState.worker_dir`
    (`/dev/shm/lambdafuzz-worker`, a bind mount), otherwise it also holds the per-worker
    `tmp/` and `home/`.  `mounts`: (folder on the host, path in the worker) of the
    function's file systems, bind-mounted at their paths in the mount namespace (never
    made on the host); `IsolationState.mounts` names those made.  `hidden`: the user's
    paths (`private_view.user_secrets`) covered in the mount namespace, where the code
    folders (`keep_visible`) are also made read-only."""
    want_net, net_reason = network_plan(backend, endpoint)
    keep_visible = tuple(keep_visible)
    tmp_reason = ""
    blocked = _blocking_path(keep_visible, ("/tmp", HOME_MOUNT))
    want_tmpfs = blocked is None and all(os.path.isdir(p) for p in ("/tmp", HOME_MOUNT))
    want_mnt = True  # for the private view (`private_view`) even without a private /tmp
    if blocked is not None:
        tmp_reason = f"{blocked} is under /tmp or {HOME_MOUNT}, which a private tmpfs would hide"
    elif not want_tmpfs:
        tmp_reason = f"/tmp or {HOME_MOUNT} does not exist"
    skip = os.environ.get(ISOLATION_ENV, "").strip().lower() == "guard-only"
    unsupported = ""
    if skip:
        unsupported = f"{ISOLATION_ENV}=guard-only"
    elif not sys.platform.startswith("linux") or not hasattr(os, "unshare"):
        unsupported = f"namespaces need Linux (this is {sys.platform})"
    if unsupported:
        want_mnt = want_tmpfs = False
        tmp_reason = tmp_reason or unsupported
        if want_net:
            want_net, net_reason = False, unsupported

    flags = (os.CLONE_NEWNET if want_net else 0) | (os.CLONE_NEWNS if want_mnt else 0)
    entered, user_ns, refusal = _unshare(flags) if flags else (0, False, "")
    if want_net and not entered & os.CLONE_NEWNET:
        net_reason = f"the kernel refused a network namespace ({refusal})"
    view_reason = unsupported or "no mount namespace"
    if want_mnt and not entered & os.CLONE_NEWNS:
        view_reason = f"the kernel refused a mount namespace ({refusal})"
        tmp_reason = tmp_reason or view_reason

    network = Isolation.AUDIT_GUARD_ONLY
    if entered & os.CLONE_NEWNET:
        network = Isolation.NETWORK_NAMESPACE
        lo_problem = _loopback_up()
        net_reason = "only loopback exists"
        if lo_problem:
            net_reason += f" (loopback is down: {lo_problem})"
        if not user_ns:
            net_reason += "; no user namespace"
    state: IsolationState | None = None
    made: tuple[str, ...] = ()
    mounts_reason = ""
    private = entered & os.CLONE_NEWNS and _private_propagation()
    if private and want_tmpfs:
        held = _hold(mounts)  # before the private /tmp may cover them
        problem = _mount_private_dirs(worker_dir)
        if problem:
            tmp_reason = f"mounting the private tmpfs failed ({problem})"
            _release(held)
        else:
            made, mounts_reason = _mount_file_systems(held, keep_visible)
            state = IsolationState(
                network=network,
                network_reason=net_reason,
                tmp=PrivateTmp.TMPFS,
                tmp_reason="own mount namespace",
                tmp_dir="/tmp",
                home=os.path.join(HOME_MOUNT, "home"),
                host_dir=None,
                user_namespace=user_ns,
                worker_dir=os.path.join(HOME_MOUNT, WORKER_DIR_NAME) if worker_dir else "",
            )
    view = None
    if private:  # never on a namespace whose mounts could reach the host
        view = apply_view(
            _libc(),
            hidden=hidden,
            code=keep_visible,
            needed=needed_paths(keep_visible),
            writable=(worker_dir,),
        )
        with contextlib.suppress(OSError):  # looked up again: the covered HOME, if in it
            os.chdir(os.getcwd())
    elif entered & os.CLONE_NEWNS:
        view_reason = "mount propagation could not be made private"
    looks = {
        "hidden": view.hidden if view else (),
        "readonly_code": view.readonly if view else (),
        "view_reason": view.reason if view else view_reason,
        "clean_environment": initial_environment_clean(),
    }
    caps = _drop_capabilities()
    if mounts and not made and not mounts_reason:
        mounts_reason = f"no mount namespace: {tmp_reason or refusal or 'not entered'}"
    if state is None:
        fallback = _temp_dir_state(
            network, net_reason, tmp_reason, user_ns=user_ns, caps=caps, base=worker_dir
        )
        return replace(fallback, mounts=made, mounts_reason=mounts_reason, **looks)
    tempfile.tempdir = state.tmp_dir
    return replace(
        state, capabilities_dropped=caps, mounts=made, mounts_reason=mounts_reason, **looks
    )


def _temp_dir_state(
    network: Isolation,
    net_reason: str,
    tmp_reason: str,
    *,
    user_ns: bool,
    caps: tuple[str, ...],
    base: str = "",
) -> IsolationState:
    if base and os.path.isdir(base):  # the campaign removes it, even after a kill
        host_dir = tempfile.mkdtemp(prefix="private-", dir=base)
    else:
        host_dir = tempfile.mkdtemp(prefix=f"lambdafuzz-worker-{os.getpid()}-")
    atexit.register(remove_host_dir, host_dir)
    tmp_dir, home = os.path.join(host_dir, "tmp"), os.path.join(host_dir, "home")
    os.mkdir(tmp_dir, 0o700)
    os.mkdir(home, 0o700)
    tempfile.tempdir = tmp_dir
    return IsolationState(
        network=network,
        network_reason=net_reason,
        tmp=PrivateTmp.TEMP_DIR,
        tmp_reason=tmp_reason,
        tmp_dir=tmp_dir,
        home=home,
        host_dir=host_dir,
        user_namespace=user_ns,
        capabilities_dropped=caps,
        worker_dir=base,
    )


# --------------------------------------------------------------------- namespaces
def _unshare(flags: int) -> tuple[int, bool, str]:
    """Enter the namespaces in `flags`: (what was entered, in a user namespace?, refusal).

    First with a user namespace (unprivileged users need it; root uses it to drop its
    capabilities over the host), then as root without one, then each flag alone."""
    try:
        _unshare_with_user(flags)
        return flags, True, ""
    except OSError as exc:
        refusal = _why(exc)
    if os.geteuid() != 0:
        return 0, False, refusal
    entered = 0
    for attempt in (flags, os.CLONE_NEWNET & flags, os.CLONE_NEWNS & flags):
        if attempt and not attempt & entered:
            try:
                os.unshare(attempt)
                entered |= attempt
            except OSError as exc:
                refusal = _why(exc)
    return entered, False, refusal


def _why(exc: OSError) -> str:
    name = errno.errorcode.get(exc.errno or 0, "error")
    return f"unshare: {name}, {exc.strerror or exc}"


def _unshare_with_user(flags: int) -> None:
    """unshare(CLONE_NEWUSER | flags) with this process's uid and gid mapped to themselves.

    Root maps every id 1:1, written by a helper process still outside the namespace (only
    a writer with CAP_SETUID over the parent namespace may write more than one line); any
    other user maps its own uid and gid, written by itself (setgroups denied first)."""
    uid, gid = os.geteuid(), os.getegid()
    if uid != 0:
        os.unshare(os.CLONE_NEWUSER | flags)
        write_file("/proc/self/setgroups", "deny")
        write_file("/proc/self/uid_map", f"{uid} {uid} 1\n")
        write_file("/proc/self/gid_map", f"{gid} {gid} 1\n")
        return
    me = os.getpid()
    go_r, go_w = os.pipe()
    helper = os.fork()
    if helper == 0:  # pragma: no cover - runs in the forked helper
        code = 1
        try:
            os.close(go_w)
            if os.read(go_r, 1) == b"g":
                write_file(f"/proc/{me}/uid_map", "0 0 4294967295\n")
                write_file(f"/proc/{me}/gid_map", "0 0 4294967295\n")
                code = 0
        except BaseException:  # noqa: BLE001 - report through the exit status only
            code = 1
        os._exit(code)
    os.close(go_r)
    try:
        try:
            os.unshare(os.CLONE_NEWUSER | flags)
        except OSError:
            os.close(go_w)
            go_w = -1
            raise
        os.write(go_w, b"g")
    finally:
        if go_w >= 0:
            os.close(go_w)
        _, status = os.waitpid(helper, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        # in the user namespace but unmapped: map root to itself the way any user may
        write_file("/proc/self/setgroups", "deny")
        write_file("/proc/self/uid_map", "0 0 1\n")
        write_file("/proc/self/gid_map", "0 0 1\n")


def _loopback_up() -> str:
    """Bring `lo` up in the new network namespace (SIOCGIFFLAGS/SIOCSIFFLAGS); "" when
    done, else what failed."""
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            request = struct.pack("16sH", b"lo", 0)
            flags = struct.unpack("16sH", fcntl.ioctl(s, siocgifflags, request)[:18])[1]
            fcntl.ioctl(s, siocsifflags, struct.pack("16sH", b"lo", flags | iff_up))
    except OSError as exc:
        return f"{type(exc).__name__}: {exc}"
    return ""


# --------------------------------------------------------------------- mounts
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x1000, 0x4000, 0x40000
_MNT_DETACH = 0x2


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _private_propagation() -> bool:
    """In a new mount namespace: no mount made in it reaches the host (or the reverse)."""
    return _libc().mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None) == 0


def _mount_private_dirs(worker_dir: str = "") -> str:
    """In the new mount namespace: propagation private, fresh tmpfs on /tmp and on
    /dev/shm (HOME in it, and `worker_dir` bind-mounted there, from a descriptor opened
    before /tmp was covered); "" when done, else what failed (nothing stays mounted)."""
    import ctypes

    libc = _libc()

    def mount(
        source: bytes | None, target: str, fstype: bytes | None, flags: int, data: bytes | None
    ) -> None:
        if libc.mount(source, target.encode(), fstype, flags, data) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"mount {target}: {os.strerror(err)}")

    mounted: list[str] = []
    held = -1
    try:
        if worker_dir:
            held = os.open(worker_dir, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        mount(None, "/", None, _MS_REC | _MS_PRIVATE, None)  # nothing propagates to the host
        for target, size in ((HOME_MOUNT, HOME_SIZE), ("/tmp", TMP_SIZE)):
            options = f"size={size},mode=1777".encode()
            mount(b"tmpfs", target, b"tmpfs", _MS_NOSUID | _MS_NODEV, options)
            mounted.append(target)
        os.mkdir(os.path.join(HOME_MOUNT, "home"), 0o700)
        if held >= 0:
            inside = os.path.join(HOME_MOUNT, WORKER_DIR_NAME)
            os.mkdir(inside, 0o700)
            mount(f"/proc/self/fd/{held}".encode(), inside, None, _MS_BIND, None)
            mounted.append(inside)
    except OSError as exc:
        for target in reversed(mounted):
            libc.umount2(target.encode(), _MNT_DETACH)
        return str(exc)
    finally:
        if held >= 0:
            os.close(held)
    return ""


#: Folders a file-system mount may cover with a small tmpfs to make its mount point: not
#: these (the system's own), and nothing the worker needs (`_blocking_path`).  Lambda's
#: mount paths are under /mnt, which holds nothing on most hosts.
_SYSTEM_DIRS = frozenset(
    {"/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc",
     "/root", "/run", "/sbin", "/sys", "/usr", "/var"}
)  # fmt: skip
MOUNT_POINT_SIZE = "1m"


def _hold(mounts: Sequence[tuple[str, str]]) -> list[tuple[int, str]]:
    """(descriptor of the host folder, path) per mount; a folder that cannot be opened
    is left out (its path is then not mounted, and said)."""
    held = []
    for host, path in mounts:
        try:
            held.append((os.open(host, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC), path))
        except OSError:
            held.append((-1, path))
    return held


def _release(held: Iterable[tuple[int, str]]) -> None:
    for fd, _ in held:
        if fd >= 0:
            os.close(fd)


def _mount_file_systems(
    held: list[tuple[int, str]], keep_visible: Iterable[str]
) -> tuple[tuple[str, ...], str]:
    """Bind-mount each held host folder at its path, in this mount namespace only: a path
    that does not exist gets a mount point on a small tmpfs over its deepest existing
    folder (/mnt), so nothing is made on the host.  (the paths mounted, why others not)."""
    import ctypes

    libc = _libc()
    made: list[str] = []
    problems: list[str] = []
    covered: set[str] = set()
    try:
        for fd, path in held:
            problem = ""
            if fd < 0:
                problem = "its folder in the out dir cannot be opened"
            elif not os.path.isabs(path) or os.path.normpath(path) == "/":
                problem = "not an absolute path below /"
            else:
                problem = _mount_point(libc, os.path.normpath(path), covered, keep_visible)
            if not problem:
                source = f"/proc/self/fd/{fd}".encode()
                if libc.mount(source, path.encode(), None, _MS_BIND, None) != 0:
                    problem = f"mount: {os.strerror(ctypes.get_errno())}"
            if problem:
                problems.append(f"{path}: {problem}")
            else:
                made.append(path)
    finally:
        _release(held)
    return tuple(made), "; ".join(problems)


def _mount_point(
    libc: ctypes.CDLL, path: str, covered: set[str], keep_visible: Iterable[str]
) -> str:
    """Make `path` exist in this mount namespace; "" when it does, else why not."""
    import ctypes

    if os.path.isdir(path):
        return ""
    top = os.path.dirname(path)
    while not os.path.isdir(top):
        top = os.path.dirname(top)
    if top not in covered:
        if top in _SYSTEM_DIRS or _blocking_path(keep_visible, (top,)) is not None:
            return f"it does not exist, and {top} cannot be covered to make it"
        options = f"size={MOUNT_POINT_SIZE},mode=0755".encode()
        if libc.mount(b"tmpfs", top.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
            return f"tmpfs on {top}: {os.strerror(ctypes.get_errno())}"
        covered.add(top)
    try:
        os.makedirs(path, 0o755, exist_ok=True)
    except OSError as exc:
        return f"making its mount point: {exc.strerror or exc}"
    return ""


# --------------------------------------------------------------------- capabilities
def _drop_capabilities() -> tuple[str, ...]:
    """Drop `_DANGEROUS_CAPS` from every set (bounding, ambient, effective, permitted,
    inheritable) and set no_new_privs; the names of those this process held."""
    if not sys.platform.startswith("linux"):
        return ()
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [
            ("effective", ctypes.c_uint32),
            ("permitted", ctypes.c_uint32),
            ("inheritable", ctypes.c_uint32),
        ]

    pr_capbset_drop, pr_cap_ambient, ambient_clear_all, pr_set_no_new_privs = 24, 47, 4, 38
    try:
        libc = _libc()
        header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3
        if libc.capget(ctypes.byref(header), data) != 0:
            return ()
        held = tuple(
            name
            for name, bit in _DANGEROUS_CAPS.items()
            if (data[bit // 32].effective | data[bit // 32].permitted) >> (bit % 32) & 1
        )
        for bit in _DANGEROUS_CAPS.values():
            libc.prctl(pr_capbset_drop, bit, 0, 0, 0)  # EINVAL for caps this kernel lacks
        libc.prctl(pr_cap_ambient, ambient_clear_all, 0, 0, 0)
        for bit in _DANGEROUS_CAPS.values():
            mask = ~(1 << (bit % 32)) & 0xFFFFFFFF
            word = data[bit // 32]
            word.effective &= mask
            word.permitted &= mask
            word.inheritable &= mask
        if libc.capset(ctypes.byref(header), data) != 0:
            return ()
        libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0)
    except (OSError, AttributeError):
        return ()
    return held


# =========================================================================== per test
def fresh_dirs(state: IsolationState) -> None:
    """Empty the private temp dir and HOME: every test starts with both empty."""
    empty_dir(state.tmp_dir, 0o1777 if state.tmp is PrivateTmp.TMPFS else 0o700)
    empty_dir(state.home, 0o700)


def empty_dir(path: str, mode: int = 0o700) -> None:
    """Leave `path` an empty directory with `mode`: one open and one scandir when it already
    is.  Everything is removed through a file descriptor of `path`, never by following a
    link, so a handler that replaced the directory (or something in it) by a symlink to
    elsewhere gets the link removed, not what it points to; entries it made unreadable are
    made removable first."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        os.makedirs(path, mode, exist_ok=True)
        os.chmod(path, mode)
        return
    except PermissionError:  # the handler took the read bit off the directory itself
        os.chmod(path, mode)  # O_NOFOLLOW passed the link check: a real directory
        fd = os.open(path, flags)
    except OSError as exc:  # ELOOP or ENOTDIR: a symlink or file where the dir was
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        os.unlink(path)
        os.mkdir(path, mode)
        os.chmod(path, mode)
        return
    try:
        os.fchmod(fd, mode)
        with os.scandir(fd) as it:
            entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in it]
        for name, is_dir in entries:
            try:
                if is_dir:
                    _rmtree_at(name, fd)
                else:
                    os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
    finally:
        os.close(fd)


def _rmtree_at(name: str, dir_fd: int) -> None:
    try:
        shutil.rmtree(name, dir_fd=dir_fd)
        return
    except FileNotFoundError:
        return
    except OSError:
        pass
    # Some directory below lacks read/write/search bits (ours, so chmod works): restore
    # them top-down, touching only real directories, then remove again.
    os.chmod(name, stat.S_IRWXU, dir_fd=dir_fd)
    for _top, dirs, _files, top_fd in os.fwalk(name, dir_fd=dir_fd):
        for sub in dirs:
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.stat(sub, dir_fd=top_fd, follow_symlinks=False).st_mode):
                    os.chmod(sub, stat.S_IRWXU, dir_fd=top_fd)
    shutil.rmtree(name, dir_fd=dir_fd)


def remove_host_dir(path: str) -> None:
    """Remove a worker's host directory (also what the campaign calls after a kill)."""
    parent, name = os.path.split(path.rstrip("/"))
    try:
        fd = os.open(parent or ".", os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        _rmtree_at(name, fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = [
    "HOME_MOUNT",
    "ISOLATION_ENV",
    "TMP_SIZE",
    "WORKER_DIR_NAME",
    "Isolation",
    "IsolationState",
    "PrivateTmp",
    "empty_dir",
    "fresh_dirs",
    "isolate_worker",
    "network_plan",
    "remove_host_dir",
    "unisolated",
]
