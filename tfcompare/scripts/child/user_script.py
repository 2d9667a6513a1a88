"""Running a user's script as `__main__`, from its source, optionally with its syntax tree changed first.

The file on disk is never changed: the tree is compiled under the script's own path, so tracebacks, op
creation sites and `inspect` still point at the user's lines.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import sys
import types
from pathlib import Path

from tfcompare.core.source_files import read_script

__all__ = ["run_script", "as_tf1", "compat_v1_modules", "patched"]


def run_script(script: str, args: list[str], extra_globals: dict, transform=None, module=None) -> types.ModuleType:
    """Run `script` with `args` as sys.argv[1:] in `module` (a fresh `__main__` by default); returns the module,
    whose globals are what the script left, even when it raised."""
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
    try:
        exec(code, module.__dict__)
    finally:
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
