"""How the console process ends: exit codes after an interrupt, SIGTERM and SIGHUP turned into one, no
wait at shutdown for a piece of a run that hung (see `main` in `tfcompare.cli`), and tfcompare's own failure
as exit 3 (`own_failure_exits_3`), never a verdict's exit code."""

from __future__ import annotations

import functools
import os
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

OWN_FAILURE = 3  # exit 1 is a verdict (DIFFER): a crash of tfcompare's own code must never read as one


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


def failure_folder() -> Path:
    """Where a traceback of tfcompare's own failure is kept: the system's temporary folder (the console
    script's private one is removed at exit)."""
    return _KEPT_TEMP or Path(tempfile.gettempdir())


def own_failure_exits_3(command):
    """Wrap a command's function (pair, run-tf1, convert): an unexpected exception from tfcompare's own code
    (the user's scripts run in child processes, so none is theirs) exits 3 with one line naming it and the file
    its traceback is saved to. click's usage errors (exit 2), `sys.exit` and interrupts (130/143/129) pass."""
    import click

    @functools.wraps(command)
    def run(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Abort, click.exceptions.Exit):
            raise
        except Exception as exc:  # BaseException (SystemExit, KeyboardInterrupt) is not caught
            where = _save_traceback(command.__name__)
            click.echo(f"tfcompare failed (its own error, not your script's): {type(exc).__name__}: "
                       f"{str(exc).splitlines()[0] if str(exc) else ''}; traceback saved to {where}", err=True)
            _exit(OWN_FAILURE)
    return run


def _save_traceback(command: str) -> str:
    """The current exception's traceback in a new file (never an existing one, never through a link)."""
    text = traceback.format_exc()
    try:
        fd, path = tempfile.mkstemp(prefix=f"tfcompare-failure-{command}-{time.strftime('%Y%m%d-%H%M%S')}-",
                                    suffix=".txt", dir=failure_folder())
        with os.fdopen(fd, "w") as out:
            out.write(text)
        return path
    except OSError as exc:
        sys.stderr.write(text)
        return f"nowhere ({exc}); it was printed above"


_KEPT_TEMP: Path | None = None  # the console script's temporary folder before its private one
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
    global _ENTRY_POINT, _REMOVE_TEMP, _KEPT_TEMP
    from tfcompare.core.children import kill_strays
    from tfcompare.core.files import private_tempdir

    _ENTRY_POINT = True
    _KEPT_TEMP = Path(tempfile.gettempdir())
    _REMOVE_TEMP = private_tempdir()
    kill_strays()  # what the scripts of a tfcompare killed by SIGKILL detached and left running
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:  # under nohup, SIGHUP stays ignored
            signal.signal(sig, _stop_as_interrupt)
