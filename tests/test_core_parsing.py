"""Parses on the parent side of convert are serialised: CPython 3.11's AST constructor keeps its recursion depth in
interpreter-wide state, and two conversions in a thread pool (the convert fixtures) parsing at once failed 35 tests
of a CI simulation with `SystemError: AST constructor recursion depth mismatch (before=27, after=20)`."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from tfcompare.core import parsing

_PARENT_SIDE = ("__init__", "graph_segments", "levers", "todo_marks", "checkpoints", "standalone")


def test_a_parse_waits_while_another_thread_parses():
    done = []
    with parsing._LOCK:  # another thread's parse in progress
        worker = threading.Thread(target=lambda: done.append(parsing.parse("x = [1, (2, {3: 4})]")))
        worker.start()
        time.sleep(0.3)
        assert done == [] and worker.is_alive()
    worker.join(5)
    assert len(done) == 1 and done[0].body[0].targets[0].id == "x"


def test_the_parent_side_of_convert_parses_only_through_the_lock():
    """The modules convert_script runs in the caller's process (each conversion's children parse alone in theirs)."""
    folder = Path(parsing.__file__).parents[1] / "scripts" / "convert"
    direct = [name for name in _PARENT_SIDE if "ast.parse(" in (folder / f"{name}.py").read_text()]
    assert direct == []
    users = [name for name in _PARENT_SIDE if "from tfcompare.core.parsing import parse" in
             (folder / f"{name}.py").read_text()]
    assert users == ["graph_segments", "levers", "todo_marks", "checkpoints"]
