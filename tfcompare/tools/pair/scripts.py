"""Running a user's script as `__main__`, from its source, optionally with its syntax tree changed first.

The file on disk is never changed: the tree is compiled under the script's own path, so tracebacks, op
creation sites and `inspect` still point at the user's lines.
"""

from __future__ import annotations

import ast
import builtins
import sys
import types
from pathlib import Path

__all__ = ["run_script"]


def run_script(script: str, args: list[str], extra_globals: dict, transform=None, module=None) -> types.ModuleType:
    """Run `script` with `args` as sys.argv[1:] in `module` (a fresh `__main__` by default); returns the module,
    whose globals are what the script left, even when it raised."""
    source = Path(script).read_text()
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
