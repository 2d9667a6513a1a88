"""A TensorBoard server on a log directory, bound to 127.0.0.1 only, started as a child process."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from tfcompare.core.children import die_with_parent

__all__ = ["TensorBoardError", "TensorBoard", "has_event_files", "port_free"]

HOST = "127.0.0.1"  # never all interfaces: the dashboards show the user's code and machine
_LAUNCH = ("import sys; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; sys.argv[0] = 'tensorboard'; "
           "from tensorboard.main import run_main; run_main()")
_URL_RE = re.compile(r"TensorBoard \S+ at (http://\S+?)/? \(Press CTRL\+C")


class TensorBoardError(Exception):
    """The server cannot be started on what the user asked for."""


def has_event_files(logdir: str | Path) -> bool:
    return any(Path(logdir).rglob("events.out.tfevents.*"))


def port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


class TensorBoard:
    """`with TensorBoard(logdir) as tb: tb.url` — the process is stopped on exit, whatever happens.

    Args:
        logdir: must exist and hold event files (an empty dashboard helps nobody).
        port: 0 lets the OS choose a free port.
        reload_interval: seconds between TensorBoard's scans of the log directory.
    """

    def __init__(self, logdir: str | Path, port: int = 0, *, reload_interval: float = 5, timeout_s: float = 90):
        self.logdir = Path(logdir)
        if not self.logdir.is_dir():
            raise TensorBoardError(f"log directory {str(self.logdir)!r} does not exist")
        if not has_event_files(self.logdir):
            raise TensorBoardError(f"log directory {str(self.logdir)!r} holds no TensorBoard event files; "
                                   f"run `tfcompare run --logdir {self.logdir}` first")
        if port and not port_free(port):
            raise TensorBoardError(f"port {port} on {HOST} is already in use; pick another with --port or use 0")
        self.port, self.reload_interval, self.timeout_s = port, reload_interval, timeout_s
        self.proc: subprocess.Popen | None = None
        self.url: str | None = None

    def start(self) -> str:
        # Not `python -m`: that puts the working folder first on the import path, so a markdown.py or
        # six.py lying there would run inside TensorBoard. The child drops it before importing anything.
        cmd = [sys.executable, "-c", _LAUNCH, "--logdir", str(self.logdir.absolute()), "--host", HOST,
               "--port", str(self.port), "--load_fast=false", "--reload_interval", str(self.reload_interval)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     preexec_fn=die_with_parent)
        deadline = time.monotonic() + self.timeout_s
        seen = []
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            seen.append(line.rstrip())
            match = _URL_RE.search(line)
            if match:
                self.url = match.group(1)
                # keep reading what it prints, so a full pipe never blocks the server
                threading.Thread(target=self._drain, daemon=True).start()
                return self.url
        self.stop()
        raise TensorBoardError("TensorBoard did not start: " + " | ".join(seen[-5:]))

    def _drain(self) -> None:
        for _ in self.proc.stdout:
            pass

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
