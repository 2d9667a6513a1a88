"""Child processes that never outlive tfcompare, and never see the user's working folder on their import path.

`die_with_parent` covers a child whose parent (tfcompare) dies. `Descendants` covers what a user's script starts
itself: a process that forks, or calls `setsid`, and exits leaves its child outside the group that a
`killpg` reaches. While tfcompare is the sub-reaper of its tree (Linux `PR_SET_CHILD_SUBREAPER`) such an orphan
is re-parented to tfcompare instead of to init, so walking `/proc` finds every one of them: to measure their
memory together, and to kill all of them at the end. A script child runs under a `keeper` (the sub-reaper of its
own tree), which kills that tree when tfcompare dies even by SIGKILL; `kill_strays` (the `OWNER` marker in the
environment) is the net behind it, for a child of anything else tfcompare started.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

__all__ = ["die_with_parent", "sub_reaper", "make_sub_reaper", "Descendants", "spawning", "kill_strays", "OWNER",
           "processes", "below", "ignore_root"]

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_GET_CHILD_SUBREAPER = 37
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _libc():
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def die_with_parent() -> None:
    """`preexec_fn` for `subprocess`: the kernel sends the child SIGKILL when its parent dies (Linux).

    Elsewhere it does nothing; the parent's own cleanup (`finally`, signal handlers) still stops the child.
    """
    if not sys.platform.startswith("linux"):
        return
    _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


# Several trees may be watched at once (threads of one process, e.g. run-tf1 called concurrently): a child
# started by one thread must never be taken for an orphan adopted by another's tree, so roots are started and
# registered under one lock that every walk of /proc also holds, and the sub-reaper flag is counted, not toggled.
_LOCK = threading.RLock()
_ALL_ROOTS: set[int] = set()
_REAPERS = [0, False]  # blocks inside sub_reaper(), and whether the flag was set before the first
_NOT_OURS: set[int] = set()  # children of this process that no tree adopts (the warm start's process)


def ignore_root(pid: int) -> None:
    """A child of this process that lives across commands (`warm_start`): no tree takes it for an orphan."""
    with _LOCK:
        _NOT_OURS.add(pid)


@contextlib.contextmanager
def spawning():
    """Hold this around starting the roots and making their `Descendants`, so no other tree adopts them."""
    with _LOCK:
        yield


def make_sub_reaper() -> None:
    """Make this process the sub-reaper of its tree for good (a keeper's whole life; Linux, elsewhere nothing)."""
    if sys.platform.startswith("linux"):
        _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1)


@contextlib.contextmanager
def sub_reaper():
    """Within the block this process adopts its descendants' orphans (Linux; elsewhere nothing changes)."""
    if not sys.platform.startswith("linux"):
        yield
        return
    libc = _libc()
    with _LOCK:
        if _REAPERS[0] == 0:
            was = ctypes.c_int(0)
            libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(was))
            _REAPERS[1] = bool(was.value)
            libc.prctl(_PR_SET_CHILD_SUBREAPER, 1)
        _REAPERS[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _REAPERS[0] -= 1
            if _REAPERS[0] == 0 and not _REAPERS[1]:
                libc.prctl(_PR_SET_CHILD_SUBREAPER, 0)


def processes() -> dict[int, tuple[int, str, str]]:
    """Every process now: pid -> (parent pid, state, start time)."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:  # ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        out[int(name)] = (int(fields[1]), fields[0], fields[19])
    return out


def below(root: int) -> list[int]:
    """The live (not zombie) processes whose chain of parents reaches `root`."""
    procs = processes() if os.path.isdir("/proc") else {}
    found, grown = {root}, True
    while grown:
        grown = False
        for pid, (ppid, _, _) in procs.items():
            if ppid in found and pid not in found:
                found.add(pid)
                grown = True
    return [pid for pid in found - {root} if procs[pid][1] != "Z"]


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


class Descendants:
    """The processes below some labelled roots (children of this process), followed through forks, `setsid`
    and exiting parents. Use inside `sub_reaper()`; `scan` often enough to see a child before its parent exits
    (an orphan this process adopts without having seen it is counted under every label: it is ours all the same).
    """

    def __init__(self, roots: dict[str, int]):
        with _LOCK:
            _ALL_ROOTS.update(roots.values())
        self._me = os.getpid()
        procs = processes() if os.path.isdir("/proc") else {}
        self._before = {pid for pid, (ppid, _, _) in procs.items() if ppid == self._me}  # not ours to follow
        self._roots = set(roots.values())
        self._owner: dict[int, tuple[str, str]] = {}  # pid -> (label, start time)
        for label, pid in roots.items():
            if pid in procs:
                self._owner[pid] = (label, procs[pid][2])
                self._before.discard(pid)

    def _update(self) -> dict[int, tuple[int, str, str]]:
        with _LOCK:
            return self._walk()

    def _walk(self) -> dict[int, tuple[int, str, str]]:
        procs = processes()
        self._owner = {pid: own for pid, own in self._owner.items() if pid in procs and procs[pid][2] == own[1]}
        grown = True
        while grown:
            grown = False
            for pid, (ppid, _, start) in procs.items():
                if pid in self._owner:
                    continue
                if ppid in self._owner:
                    self._owner[pid] = (self._owner[ppid][0], start)
                    grown = True
                elif ppid == self._me and pid not in self._before and pid not in _ALL_ROOTS | _NOT_OURS:
                    self._owner[pid] = ("*", start)  # adopted before it was seen below a root
                    grown = True
        return procs

    def scan(self) -> tuple[dict[str, int], int]:
        """Resident bytes per label, summed over each root's live descendants (and itself); and of all of them
        together (each process once)."""
        if not os.path.isdir("/proc"):
            return {}, 0
        procs = self._update()
        out: dict[str, int] = {}
        total = 0
        for pid, (label, _) in self._owner.items():
            if procs[pid][1] == "Z":
                continue
            size = _rss(pid)
            total += size
            for name in ({label} if label != "*" else {own[0] for own in self._owner.values()} - {"*"}):
                out[name] = out.get(name, 0) + size
        return out, total

    def alive(self, label: str | None = None) -> list[int]:
        """Live (not zombie) descendants, of one label or all."""
        if not os.path.isdir("/proc"):
            return []
        procs = self._update()
        return [pid for pid, (own, _) in self._owner.items() if procs[pid][1] != "Z"
                and (label is None or own in (label, "*"))]

    def kill(self, label: str | None = None, tries: int = 50) -> None:
        """SIGKILL every live descendant (of `label`, or all), again until none is left (a fork racing the kill),
        and reap the adopted ones (the roots are left to their `Popen`)."""
        for _ in range(tries):
            victims = self.alive(label)
            for pid in victims:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            self._reap()
            if not victims:
                if label is None:
                    with _LOCK:
                        _ALL_ROOTS.difference_update(self._roots)
                return
            time.sleep(0.01)

    def _reap(self) -> None:
        if not os.path.isdir("/proc"):
            return
        for pid, (ppid, _, _) in processes().items():
            if ppid == self._me and pid in self._owner and pid not in self._roots:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)


OWNER = "TFCOMPARE_OWNER"  # in a child's environment: the `process_stamp` of the tfcompare that started its tree


def kill_strays(variable: str = OWNER) -> list[int]:
    """Kill this user's processes whose environment has `variable` set to the `process_stamp` of a process that
    has ended: what a tfcompare killed by SIGKILL left of its tree (a child its script detached outlives it,
    re-parented to init, but keeps the environment it was started with). Returns their pids."""
    from tfcompare.core.files import stamp_alive

    if not os.path.isdir("/proc"):
        return []
    killed, key, me = [], variable.encode() + b"=", os.getuid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            if os.stat(f"/proc/{name}").st_uid != me:
                continue
            with open(f"/proc/{name}/environ", "rb") as f:
                entries = f.read().split(b"\0")
        except OSError:
            continue
        stamp = next((e[len(key):].decode(errors="replace") for e in entries if e.startswith(key)), None)
        if stamp is not None and not stamp_alive(stamp):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(name), signal.SIGKILL)
                killed.append(int(name))
    return killed
