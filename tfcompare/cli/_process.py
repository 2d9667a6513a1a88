"""How the console process ends: exit codes after an interrupt, SIGTERM and SIGHUP turned into one, and no
wait at shutdown for a piece of a run that hung (see `main` in `tfcompare.cli`)."""

from __future__ import annotations

import os
import signal
import sys


def _exit(code: int):
    """Exit with `code`; if a piece of the run hung past its limit, without waiting for it at shutdown.
    An interrupt that was a SIGTERM or SIGHUP exits 128 + that signal, as an unhandled one would."""
    from tfcompare.core.watchdog import abandoned_threads

    if code == 130 and _STOPPED_BY:
        code = 128 + _STOPPED_BY
    if _ENTRY_POINT and (abandoned_threads() or code >= 128):  # after Ctrl-C, TF's threads may be mid-call
        sys.stdout.flush()
        sys.stderr.flush()
        _REMOVE_TEMP()  # os._exit skips atexit
        os._exit(code)
    sys.exit(code)


_ENTRY_POINT = False  # True under the console script; never under click's in-process test runner
_STOPPED_BY = 0  # SIGTERM or SIGHUP, turned into an interrupt
_REMOVE_TEMP = lambda: None  # noqa: E731  (the console script's own temporary folder)


def _stop_as_interrupt(signum, frame):
    """SIGTERM and SIGHUP stop a command as Ctrl-C does (children stopped, what finished kept, temporary files
    removed), where their default action would end the process on the spot."""
    global _STOPPED_BY
    if _STOPPED_BY:  # the second one: stop now
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    _STOPPED_BY = signum
    handler = signal.getsignal(signal.SIGINT)  # a run's deferred handler, or Python's default
    if not callable(handler):  # SIGINT ignored (a background job): stop all the same
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


def _enter():
    """Mark this process as the console script: its own temporary folder, SIGTERM and SIGHUP as interrupts."""
    global _ENTRY_POINT, _REMOVE_TEMP
    from tfcompare.core.children import kill_strays
    from tfcompare.core.files import private_tempdir

    _ENTRY_POINT = True
    _REMOVE_TEMP = private_tempdir()
    kill_strays()  # what the scripts of a tfcompare killed by SIGKILL detached and left running
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:  # under nohup, SIGHUP stays ignored
            signal.signal(sig, _stop_as_interrupt)
