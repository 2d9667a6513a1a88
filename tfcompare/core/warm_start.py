"""A warm start for script children: one process per tfcompare command imports TensorFlow once, and each child
(a keeper, the script's process under it) is forked from it, already holding TensorFlow, instead of importing it
again: 4.5 s of CPU per child on a 2-core VM, and a conversion starts four children.

The warm process (`python -m tfcompare.core.warm_start FD`) imports TensorFlow and Keras 3 and nothing else of
them: no eager context, no Session, no device (those start threads, and on a GPU a driver context that cannot cross a fork). It
serves one request per child over a Unix socket: argv (`-m MODULE ARGS`), the child's folder, the keeper's folder,
the environment, and three descriptors (the keeper's lifeline, the output pipe, the status pipe). For each it
forks K, which becomes what `keeper` is when started by `subprocess`: its own session, the lifeline on stdin, the
output on stdout and stderr, the sub-reaper of its tree. K forks the child C, then execs the keeper (`--adopt`),
which stays C's parent. When the warm process reaps K it writes "keeper CODE" on K's status pipe: `Kept` reads the
keeper's end there, as it reads the child's ("exit CODE").

C is made what a new `python -m MODULE ARGS` in that folder is: its environment, folder, `sys.path[0]`, argv,
signal handlers, fresh seeds for Python's and NumPy's generators, tempfile's folder forgotten, and tfcompare's own
modules dropped so they are imported again under the child's environment. What stays shared: TensorFlow's modules,
loaded before the script's environment existed (a script that sets `TF_CPP_MIN_LOG_LEVEL` before importing
TensorFlow gets tfcompare's level), and Python's hash seed (all children order sets of strings alike).
`TFCOMPARE_WARM_START=0` starts every child as a new process instead.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import warnings

__all__ = ["warm_up", "fork_keeper", "stop", "enabled", "ENV"]

ENV = "TFCOMPARE_WARM_START"  # "0": no warm process; every child imports TensorFlow itself
_READY = b"ready"
_MAX_REQUEST = 1 << 17  # bytes: argv and the environment of one child (a larger one starts as a new process)
# What TensorFlow (and NumPy, and the C libraries under them) may read as they are imported: a child whose
# environment differs from the warm process's in one of these gets a new process, so TensorFlow is always imported
# under the environment the child would have imported it under. Not what tfcompare sets per child (all read after
# the import: TF_USE_LEGACY_KERAS at the first use of tf.keras, TF_FORCE_GPU_ALLOW_GROWTH at a GPU's).
_IMPORT_TIME = re.compile(r"(TF_|TENSORFLOW|KERAS|HOME$|CUDA|NVIDIA|XLA|OMP_|KMP_|MKL|OPENBLAS|ONEDNN|DNNL|PYTHON"
                          r"|LD_|GRPC|ABSL|MALLOC|GLIBC|MPL|MATPLOTLIB|IPYTHON)")  # Keras 3 imports matplotlib
_PER_CHILD = frozenset({"TF_USE_LEGACY_KERAS", "TF_FORCE_GPU_ALLOW_GROWTH"})
_TITLE_ROOM = 4096  # bytes of the warm process's command line a child rewrites into its own (`_retitle`)


def enabled() -> bool:
    return sys.platform.startswith("linux") and os.environ.get(ENV, "1") != "0"


def _import_time(env: dict) -> dict:
    return {key: value for key, value in env.items() if _IMPORT_TIME.match(key) and key not in _PER_CHILD}


class _Warm:
    """The parent's side: the warm process, its socket, one request at a time (threads share it)."""

    def __init__(self, env: dict):
        self.env = _import_time(env)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            # in tfcompare's temporary folder: nothing in the user's folder on its import path; its own session, so a
            # Ctrl-C at the terminal reaches tfcompare, which ends the children itself
            self.proc = subprocess.Popen([sys.executable, "-m", "tfcompare.core.warm_start", str(theirs.fileno()),
                                          " " * _TITLE_ROOM],
                                         pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                         cwd=tempfile.gettempdir(), env=env, start_new_session=True)
        finally:
            theirs.close()
        self.sock = ours

    def ready(self) -> bool:
        """Wait for its TensorFlow import; False when it failed."""
        try:
            return self.sock.recv(64) == _READY
        except OSError:
            return False

    def fork(self, argv: list[str], cwd: str, keeper_cwd: str, env: dict, fds: tuple[int, int, int]) -> int | None:
        if _import_time(env) != self.env:
            return None
        request = json.dumps({"argv": argv, "cwd": cwd, "keeper_cwd": keeper_cwd, "env": env}).encode()
        if len(request) > _MAX_REQUEST:
            return None
        try:
            socket.send_fds(self.sock, [request], list(fds))
            answer = self.sock.recv(64)
        except OSError as exc:
            if exc.errno == errno.EMSGSIZE:  # more than the socket's buffer holds: this child starts as a new process
                return None
            answer = b""
        return int(answer) if answer.isdigit() else 0  # 0: it has ended


_LOCK = threading.Lock()
_WARM: list[_Warm] = []  # the one warm process of this tfcompare, once started (empty: not yet, or it failed)
_FAILED = [False]


def warm_up(env: dict) -> None:
    """Start this command's warm process (`env`: the environment of the children to come), unless it runs: call
    before starting a child, outside `children.spawning()` (its TensorFlow import takes seconds)."""
    if not enabled() or _FAILED[0]:
        return
    from tfcompare.core.children import ignore_root, spawning

    with _LOCK:
        if _WARM:
            return
        with spawning():  # a tree watched in another thread must not take it for an orphan of its own
            warm = _Warm(env)
            ignore_root(warm.proc.pid)
        if not warm.ready():
            _FAILED[0] = True
            return
        _WARM.append(warm)


def stop() -> None:
    """End this command's warm process (the children it forked run on under their keepers); the next `warm_up`
    starts another."""
    with _LOCK:
        while _WARM:
            _WARM.pop().sock.close()  # it reads the end of its socket and exits
        _FAILED[0] = False


def fork_keeper(argv: list[str], cwd: str, keeper_cwd: str, env: dict, fds: tuple[int, int, int]) -> int | None:
    """The pid of a keeper forked by the warm process, running `python ARGV` (ARGV = -m MODULE ARGS) in `cwd` under
    it, or None: start it as a new process instead (no warm process, another environment or kind of argv)."""
    if not enabled() or argv[:1] != ["-m"]:
        return None
    with _LOCK:
        if not _WARM:
            return None
        pid = _WARM[0].fork(argv, cwd, keeper_cwd, env, fds)
        if pid == 0:  # it ended (killed?): this child is a new process, the next one starts another warm one
            _WARM.pop().sock.close()
        return pid or None


# The warm process itself, below: standard library, then TensorFlow.

def _serve(sock: socket.socket):
    """Fork a keeper per request until tfcompare closes the socket. Returns only in a forked child: its request."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    status: dict[int, int] = {}  # keeper pid -> its status pipe (this process's copy)
    while True:
        _reap(status)
        try:
            readable = select.select([sock, wake_r], [], [], 1.0)[0]
        except InterruptedError:
            continue
        if wake_r in readable:
            with contextlib.suppress(BlockingIOError):
                os.read(wake_r, 4096)
        if sock not in readable:
            continue
        try:
            message, fds, _, _ = socket.recv_fds(sock, _MAX_REQUEST, 3)
        except OSError:
            message, fds = b"", []
        if not message or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            if not message:
                return None  # tfcompare ended: its keepers' lifelines end them
            continue
        request = json.loads(message)
        pid = _fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            sock.close()
            for fd in (wake_r, wake_w, *status.values()):
                os.close(fd)
            return _keeper(request, *fds)
        os.close(fds[0])
        os.close(fds[1])
        status[pid] = fds[2]
        with contextlib.suppress(OSError):
            sock.send(str(pid).encode())


def _fork() -> int:
    """`os.fork` without Python 3.12's warning that the process has threads (TensorFlow's import leaves one, idle:
    a DeprecationWarning printed here would land in the child's output)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _reap(status: dict[int, int]) -> None:
    while status:
        try:
            pid, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        fd = status.pop(pid, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                os.write(fd, f"keeper {os.waitstatus_to_exitcode(code)}\n".encode())
            os.close(fd)


def _keeper(request: dict, life: int, out: int, status: int):
    """K: set up as `keeper` is under `Kept`, fork the child, exec the keeper. Returns only in the child."""
    from tfcompare.core.children import die_with_parent, make_sub_reaper

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    os.setsid()
    os.dup2(life, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(life)
    os.close(out)
    os.chdir(request["keeper_cwd"])
    make_sub_reaper()
    child = _fork()
    if child == 0:
        die_with_parent()
        os.close(status)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        return request
    os.set_inheritable(status, True)
    os.execve(sys.executable, [sys.executable, "-m", "tfcompare.core.keeper", str(status), request["cwd"],
                               "--adopt", str(child)], request["env"])


def _become(request: dict) -> str:
    """C: what a new `python -m MODULE ARGS` in its folder would be. Returns MODULE."""
    import importlib
    import random

    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    for name in [name for name in sys.modules if name == "tfcompare" or name.startswith("tfcompare.")]:
        del sys.modules[name]  # imported again under this environment (tfcompare/__init__ reads it)
    sys.path[0] = os.getcwd()
    importlib.invalidate_caches()
    tempfile.tempdir = None  # TMPDIR is this child's
    signal.signal(signal.SIGINT, signal.default_int_handler)
    random.seed()
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    _, module, *args = request["argv"]
    sys.argv = [module, *args]
    _retitle([sys.executable, *request["argv"]])
    return module


def _retitle(argv: list[str]) -> None:
    """Make /proc/PID/cmdline (what `ps` shows, what tfcompare's tests look for) the child's own command line, as
    if it had been started so: written over the warm process's, whose last argument is room for it."""
    import ctypes

    try:
        with open("/proc/self/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end: fields 48 and 49 of stat(5)
    except (OSError, IndexError, ValueError):
        return
    title = b"\0".join(arg.encode(errors="replace") for arg in argv)[:end - start - 1]
    ctypes.memmove(start, title + b"\0" * (end - start - len(title)), end - start)


def _main(fd: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # tfcompare ends it by closing the socket
    sock = socket.socket(fileno=fd)
    try:
        import tensorflow  # noqa: F401  (the point of this process)
        import keras  # noqa: F401  (Keras 3: a TF2 script's, 1 s more per child; tf_keras would start a thread)
        from tensorflow.python.eager import context

        started = context.context()
        if getattr(started, "_context_handle", None) is not None or getattr(started, "_physical_devices", 1):
            os._exit(1)  # a runtime or its devices started by the imports (a GPU's driver): no fork is safe
    except BaseException:
        os._exit(1)
    sys.stdout.flush()
    sock.send(_READY)
    request = _serve(sock)
    if request is None:
        os._exit(0)
    import runpy

    runpy.run_module(_become(request), run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    _main(int(sys.argv[1]))
