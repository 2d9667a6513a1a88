"""A keeper between tfcompare and each script child: nothing the child starts outlives tfcompare, even a SIGKILL.

A marker in the environment (`children.OWNER`) is lost by a child started with an empty environment, and a
process that detaches (`setsid`, a double fork) leaves the parent's tree; when tfcompare is SIGKILLed, what it
adopted as sub-reaper goes to init. The keeper closes both holes: it is the sub-reaper of its child's tree, so
every orphan below it is re-parented to it, whatever its session or environment; and it holds the read end of a
pipe (its stdin, the lifeline) whose only write end is tfcompare's. The kernel closes that end when tfcompare
dies, however it dies: the keeper then kills everything below it and exits. While tfcompare runs, the keeper
and its tree are one subtree of tfcompare's, which measures and kills it as before (`children.Descendants`).

The keeper is `python -m tfcompare.core.keeper STATUS_FD CWD -- ARGV...`: it starts `ARGV` in `CWD` (or, with
`--adopt PID` instead of `-- ARGV`, keeps the child `warm_start` forked before exec'ing it), writes
"pid N" then "exit CODE" (the child's own exit) on STATUS_FD, and forwards SIGINT and SIGTERM to the child. It
imports only the standard library and `core.children`; it runs in tfcompare's temporary folder, so nothing in
the user's folder is on its import path. `Kept` is the parent's side.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["Kept"]

_FORWARDED = (signal.SIGINT, signal.SIGTERM)  # to the child: Ctrl-C at its time limit saves its steps so far
_WAKE_S = 0.2  # how often the keeper reaps orphans and checks its lifeline (a select timeout: no cost between)


class Kept:
    """The parent's handle on one child under its keeper, used as a `subprocess.Popen`: `pid` is the keeper's
    (the root of the tree to measure and kill), `poll`/`wait` give the child's own exit code (the keeper stays
    while what the child left behind runs), `send_signal` reaches the child. `reap` after killing the tree."""

    def __init__(self, argv: list[str], *, cwd: Path, keeper_cwd: Path, env: dict, stdout: int, warm: bool = False):
        from tfcompare.core.warm_start import fork_keeper

        status_r, status_w = os.pipe()
        life_r, life_w = os.pipe()  # not inheritable: only this process holds the write end
        self._keeper: subprocess.Popen | None = None
        try:
            # ARGV is [python, -m, MODULE, ...]: forked already holding TensorFlow when the warm start can
            forked = fork_keeper(argv[1:], str(cwd), str(keeper_cwd), env, (life_r, stdout, status_w)) \
                if warm and argv[:1] == [sys.executable] else None
            if forked is None:
                self._keeper = subprocess.Popen(
                    [sys.executable, "-m", "tfcompare.core.keeper", str(status_w), str(cwd), "--", *argv],
                    stdin=life_r, stdout=stdout, stderr=subprocess.STDOUT, cwd=keeper_cwd, env=env,
                    start_new_session=True, pass_fds=(status_w,))
        except BaseException:
            for fd in (status_r, life_w):
                os.close(fd)
            raise
        finally:
            os.close(status_w)
            os.close(life_r)
        os.set_blocking(status_r, False)
        self._status, self._life, self._buffer = status_r, life_w, b""
        self.pid = self._keeper.pid if self._keeper is not None else forked
        self.args = argv
        self.child_pid: int | None = None
        self.returncode: int | None = None
        self._keeper_code: int | None = None  # a forked keeper's end, as the warm start reaped it
        while forked is not None and self.child_pid is None and self._keeper_ended() is None:
            time.sleep(0.005)  # until the forked keeper has exec'd: its tree is measured as a keeper's from here on

    def _read_status(self) -> None:
        if self._status < 0:
            return
        while True:
            try:
                chunk = os.read(self._status, 4096)
            except BlockingIOError:
                return
            if not chunk:  # every writer gone: a forked keeper ended with its warm start
                if self._keeper is None and self._keeper_code is None:
                    self._keeper_code = -signal.SIGKILL
                return
            self._buffer += chunk
            *lines, self._buffer = self._buffer.split(b"\n")
            for line in lines:
                word, _, value = line.decode().partition(" ")
                if word == "pid":
                    self.child_pid = int(value)
                elif word == "exit":
                    self.returncode = int(value)
                elif word == "keeper":
                    self._keeper_code = int(value)

    def _keeper_ended(self) -> int | None:
        if self._keeper is not None:
            return self._keeper.poll()
        self._read_status()
        return self._keeper_code

    def poll(self) -> int | None:
        """The child's exit code once it has ended (the keeper's own, e.g. -9, if the keeper was killed first)."""
        if self.returncode is None:
            self._read_status()
        if self.returncode is None and (ended := self._keeper_ended()) is not None:
            self._read_status()
            if self.returncode is None:
                self.returncode = ended
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while (code := self.poll()) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(self.args, timeout)
            time.sleep(0.02)
        return code

    def send_signal(self, sig: int) -> None:
        """To the child, through the keeper (which alone knows whether that pid is still its child)."""
        if self._keeper is not None:
            self._keeper.send_signal(sig)
        elif self._keeper_ended() is None:  # not yet reaped by the warm start: the pid is still the keeper's
            os.kill(self.pid, sig)

    def reap(self) -> None:
        """Close the lifeline (the keeper kills what is left below it and exits) and wait for the keeper."""
        if self._life >= 0:
            os.close(self._life)
            self._life = -1
        if self._keeper is not None:
            self._keeper.wait()
        else:
            while self._keeper_ended() is None:
                time.sleep(0.01)
        self.poll()
        os.close(self._status)
        self._status = -1


class _Child:
    """The keeper's one child: its pid until the keeper reaps it (then no signal may go to that pid)."""

    def __init__(self, status_fd: int):
        self.pid: int | None = None
        self._status_fd = status_fd

    def reap_all(self) -> None:
        """Reap every ended process below (the child, and the orphans this sub-reaper adopted)."""
        while True:
            held = signal.pthread_sigmask(signal.SIG_BLOCK, _FORWARDED)  # no forward to a pid just reaped
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            else:
                ours = pid != 0 and pid == self.pid
                if ours:
                    self.pid = None
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)
            if pid == 0:
                return
            if ours:
                with contextlib.suppress(OSError):  # tfcompare may have ended
                    os.write(self._status_fd, f"exit {os.waitstatus_to_exitcode(status)}\n".encode())

    def forward(self, signum, frame) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signum)


def _kill_all(child: _Child) -> None:
    """SIGKILL everything below the keeper until nothing is left (a fork racing the kill), reaping as it goes."""
    from tfcompare.core.children import below

    for _ in range(500):
        victims = below(os.getpid())
        for pid in victims:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        child.reap_all()
        if not victims:
            return
        time.sleep(0.01)


def main(argv: list[str]) -> int:
    from tfcompare.core.children import below, die_with_parent, make_sub_reaper

    status_fd, cwd, child_argv = int(argv[0]), argv[1], argv[3:]
    child = _Child(status_fd)
    for sig in _FORWARDED:
        signal.signal(sig, child.forward)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    wake_r, wake_w = os.pipe()  # SIGCHLD wakes the select below at once: the child's exit is reported as it ends
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    make_sub_reaper()
    if argv[2] == "--adopt":  # forked by the warm start before this exec: already this process's child
        child.pid = int(argv[3])
    else:
        child.pid = subprocess.Popen(child_argv, cwd=cwd, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent).pid
    # reaped by `reap_all` (waitpid of any pid), not by a `Popen`
    os.write(status_fd, f"pid {child.pid}\n".encode())
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # the child's output pipe reaches its end once the child's tree, not the keeper, is done
    os.dup2(devnull, 2)
    while True:
        try:
            readable = select.select([0, wake_r], [], [], _WAKE_S)[0]
            if wake_r in readable:
                with contextlib.suppress(BlockingIOError):
                    os.read(wake_r, 4096)
            child.reap_all()
            if 0 in readable and not os.read(0, 4096):
                break  # the lifeline closed: tfcompare has ended, or is done with this child
            if child.pid is None and not below(os.getpid()):
                return 0  # the child ended and left nothing running: nothing left to keep
        except InterruptedError:
            continue
        except OSError:
            break
    _kill_all(child)
    return 0


if __name__ == "__main__":
    os._exit(main(sys.argv[1:]))
