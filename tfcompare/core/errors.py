"""What went wrong, in one line: the user's exception and line, also from inside a `tf.function`.

TensorFlow re-raises an exception from a traced function with a message that begins "in user code:",
then the frames, then the original "Type: message"; the first line alone says nothing. An interrupt
that reaches TensorFlow while it runs Python code (a `py_function`) comes back wrapped in a
TensorFlow error and must still be treated as Ctrl-C.
"""

from __future__ import annotations

import os
import re
import traceback

__all__ = ["describe", "is_interrupt", "legacy_hint"]

_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<fn>\S+)(?P<user>\s+\*)?\s*$')
_RAISED = re.compile(r"^ {4}(?P<type>[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)): ?(?P<msg>.*)$")


def describe(exc: BaseException) -> str:
    """`Type: first line of the message`, with the user's frame when TensorFlow wrapped it."""
    text = str(exc).strip()
    lines = text.splitlines()
    if lines and lines[0].startswith("in user code:"):
        frames = [m for m in map(_FRAME.match, lines) if m]
        user = [m for m in frames if m.group("user")] or frames
        raised = [(i, m) for i, m in enumerate(map(_RAISED.match, lines)) if m]
        if raised:
            _, last = raised[-1]
            where = ""
            if user:
                f = user[-1]
                where = f" (in {f.group('fn')} at {f.group('file')}:{f.group('line')}, inside tf.function)"
            return f"{last.group('type')}: {last.group('msg').strip()}{where}"
    first = lines[0] if lines else ""
    return f"{type(exc).__name__}: {first}".strip() + _user_frame(exc) + legacy_hint(first)


_LEGACY = re.compile(r"is not available with Keras 3")


_REMOVED = re.compile(r"module '(tensorflow[\w.]*)' has no attribute '(\w+)'|No module named '(tensorflow\.[\w.]+)'")


def legacy_hint(message: str, script: str | None = None) -> str:
    """What to do about the errors every TF1 code base meets on TensorFlow 2: Keras 3, and a removed API (the
    `tfcompare migrate` line that names its replacement; the legacy runtime's own refusal already has it)."""
    if _LEGACY.search(message):
        return ("; tf.compat.v1.layers and tf.compat.v1.nn.rnn_cell need tf-keras: pip install 'tfcompare[legacy]' "
                "(tfcompare then sets TF_USE_LEGACY_KERAS=1; `import keras` stays Keras 3)")
    found = _REMOVED.search(message)
    if found and "tfcompare migrate" not in message:
        symbol = f"{found.group(1)}.{found.group(2)}" if found.group(1) else found.group(3)
        symbol = "tf." + symbol.removeprefix("tensorflow.").removeprefix("compat.v1.").removeprefix("tensorflow")
        return (f"; {symbol.rstrip('.')} is not in this TensorFlow: `tfcompare migrate {script or 'SCRIPT'}` names "
                "its TF2 replacement")
    return ""


_LIBRARY = (f"{os.sep}tensorflow{os.sep}", f"{os.sep}keras{os.sep}", f"{os.sep}tfcompare{os.sep}",
            f"{os.sep}numpy{os.sep}", f"{os.sep}threading.py")


def _user_frame(exc: BaseException) -> str:
    """` (at file:line in fn)` for the innermost frame of the user's own code, if the traceback has one."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not any(p in f.filename for p in _LIBRARY)]
    if not frames:
        return ""
    f = frames[-1]
    return f" (in {f.name} at {f.filename}:{f.lineno})"


def is_interrupt(exc: BaseException) -> bool:
    """Ctrl-C, also when TensorFlow wrapped the KeyboardInterrupt raised inside an op."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc and isinstance(cause, KeyboardInterrupt):
        return True
    return type(exc).__module__.startswith("tensorflow") and "KeyboardInterrupt" in str(exc)
