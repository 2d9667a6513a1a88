"""Running a user's script as `__main__`, from its source, optionally with its syntax tree changed first.

The file on disk is never changed: the tree is compiled under the script's own path, so tracebacks, op
creation sites and `inspect` still point at the user's lines.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib.abc
import importlib.machinery
import sys
import types
from pathlib import Path

from tfcompare.core.source_files import read_script

__all__ = ["run_script", "as_tf1", "compat_v1_modules", "patched"]


class _OwnModules(importlib.abc.MetaPathFinder):
    """Serves the modules a TF1 script imports from its own folder (`from libs.utils import *`, a model file next
    to its driver) as TF1 code too: their `import tensorflow` is the 1.x API, as the script's is. Compiled from
    source each time (no bytecode is written into the user's folder); everything else is left to Python."""

    def __init__(self, folder: Path, notes: list[str]):
        self.folder, self.notes = folder.resolve(), notes

    def find_spec(self, fullname, path=None, target=None):
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        origin = getattr(spec, "origin", None)
        if not origin or not origin.endswith(".py") or not spec.has_location:
            return None
        where = Path(origin).resolve()
        if self.folder not in where.parents or {"site-packages", "dist-packages"} & set(where.parts):
            return None
        spec.loader = _TF1Source(where, fullname, self.notes)
        return spec


class _TF1Source(importlib.abc.Loader):
    def __init__(self, path: Path, name: str, notes: list[str]):
        self.path, self.name, self.notes = path, name, notes

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        tree = ast.parse(read_script(str(self.path)), filename=str(self.path))
        if as_tf1(tree):
            self.notes.append(f"the script's own module {self.name} ({self.path.name}) ran as TF1 code too: its "
                              "`import tensorflow` is tensorflow.compat.v1")
        exec(compile(tree, str(self.path), "exec", dont_inherit=True), module.__dict__)


def run_script(script: str, args: list[str], extra_globals: dict, transform=None, module=None,
               own_modules_tf1: list[str] | None = None) -> types.ModuleType:
    """Run `script` with `args` as sys.argv[1:] in `module` (a fresh `__main__` by default); returns the module,
    whose globals are what the script left, even when it raised. `own_modules_tf1`: a list of notes, given for a
    TF1 script; the modules it imports from its own folder then run as TF1 code as well (`_OwnModules`)."""
    source = read_script(script)  # as Python reads a file: its coding line honoured, at most its size cap
    tree = ast.parse(source, filename=script)
    if transform is not None:
        transform(tree)
    code = compile(tree, script, "exec")
    module = module if module is not None else types.ModuleType("__main__")
    module.__dict__.update({"__file__": script, "__builtins__": builtins, **extra_globals})
    saved_main, saved_argv = sys.modules.get("__main__"), sys.argv[:]
    sys.modules["__main__"], sys.argv = module, [script, *args]
    sys.path.insert(0, str(Path(script).parent))
    finder = _OwnModules(Path(script).parent, own_modules_tf1) if own_modules_tf1 is not None else None
    if finder is not None:
        sys.meta_path.insert(0, finder)
    try:
        exec(code, module.__dict__)
    finally:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
        sys.modules["__main__"], sys.argv = saved_main, saved_argv
        if str(Path(script).parent) in sys.path:
            sys.path.remove(str(Path(script).parent))
    return module


def as_tf1(tree: ast.Module) -> list[str]:
    """`import tensorflow as tf` in a script written for TF 1.x means the 1.x API: under TF 2 that is
    `tensorflow.compat.v1`. Rewrites those imports; returns a note for each."""
    notes = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "tensorflow":
                    alias.asname = alias.asname or "tensorflow"
                    alias.name = "tensorflow.compat.v1"
                    notes.append(f"the TF1 script's `import tensorflow as {alias.asname}` (line {node.lineno}) ran as "
                                 "tensorflow.compat.v1, the TF1 API it was written for")
    return notes


def compat_v1_modules() -> list:
    """Every module object a script reaches `tf.compat.v1` through: `tf.compat.v1` and the `tensorflow.compat.v1`
    that `import tensorflow.compat.v1 as tf` gives are different objects once Keras has been imported, so a
    switch a script calls (`disable_v2_behavior`) must be replaced on both."""
    import importlib

    import tensorflow as tf

    return list({id(m): m for m in (tf.compat.v1, importlib.import_module("tensorflow.compat.v1"))}.values())


@contextlib.contextmanager
def patched(*patches):
    """Set each (owner, name, value) for the block, and put every original back after it, whatever happens."""
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)
