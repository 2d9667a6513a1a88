"""Python source parsed into an AST in tfcompare's own process, one parse at a time.

CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state, not per thread: two threads
parsing at once (convert_script called from a thread pool, as the test fixtures do) can fail with `SystemError: AST
constructor recursion depth mismatch (before=27, after=20)` (python/cpython#106905). Every parse of the parent side
of convert goes through `parse`, under one lock; the children parse alone in their own processes.
"""

from __future__ import annotations

import ast
import threading

__all__ = ["parse"]

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """`ast.parse`, serialised across the threads of this process."""
    with _LOCK:
        return ast.parse(source, filename, mode)
