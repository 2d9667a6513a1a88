"""Every TensorFlow reference in a source file, resolved against the TensorFlow installed here.

A reference is followed through the file's own imports and aliases (`import tensorflow as tf`,
`import tensorflow.compat.v1 as tf`, `from tensorflow.contrib import slim`, `import tensorflow.contrib.rnn
as rnn`, `from tensorflow.keras.layers import Dense`) to a full dotted path, then resolved by importing
TensorFlow's own modules and walking attributes: this creates no ops and runs none of the user's code.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import types
from typing import Any

__all__ = ["Reference", "Resolution", "alias_sites", "aliases", "chain", "references", "resolve"]

_ROOT = "tensorflow"


@dataclasses.dataclass(frozen=True)
class Reference:
    line: int
    col: int
    path: str  # full dotted path, e.g. tensorflow.compat.v1.placeholder
    written: str  # as written in the source, e.g. tf.placeholder
    is_import: bool = False


@dataclasses.dataclass(frozen=True)
class Resolution:
    ok: bool
    resolved_to: str | None = None  # module.qualname of what the path names
    error: str | None = None  # why it does not resolve (the installed TensorFlow's own message)
    obj: Any = dataclasses.field(default=None, compare=False, repr=False)


def _imports(tree: ast.Module) -> dict[str, str]:
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == _ROOT or a.name.startswith(_ROOT + "."):
                    out[a.asname or a.name.split(".")[0]] = a.name if a.asname else _ROOT
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == _ROOT or node.module.startswith(_ROOT + "."):
                for a in node.names:
                    if a.name != "*":
                        out[a.asname or a.name] = f"{node.module}.{a.name}"
    return out


def aliases(tree: ast.Module) -> dict[str, str]:
    """Local name -> full dotted path, for every import of TensorFlow in the file, and every name assigned a
    bare attribute chain through one (`tfe = tf.contrib.eager`, `layers = tf.contrib.layers`), followed to the
    end (`rnn = tfe.rnn` after that): a name assigned anything else as well is not an alias."""
    out = _imports(tree)
    assigns = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name)]
    bound: dict[str, list] = {}
    for node in assigns:
        bound.setdefault(node.targets[0].id, []).append(node.value)
    changed = True
    while changed:
        changed = False
        for name, values in bound.items():
            if name in out or len(values) != 1 or not isinstance(values[0], ast.Attribute):
                continue
            parts = chain(values[0])
            if parts and parts[0] in out:
                path = ".".join([out[parts[0]]] + parts[1:])
                if _namespace_or_gone(path):
                    out[name] = path
                    changed = True
    return out


def _namespace_or_gone(path: str) -> bool:
    """`path` names a module or class (here, or as tf.compat.v1 has it), or nothing at all (`tf.contrib.eager`):
    a name assigned it is an alias whose attributes are API. A name assigned a function or a runtime object
    (`FLAGS = tf.app.flags.FLAGS`) is a value: its attributes are the user's."""
    for candidate in (path, path.replace("tensorflow.", "tensorflow.compat.v1.", 1)):
        res = resolve(candidate)
        if res.ok:
            return _is_namespace(res.obj)
    return True


def alias_sites(tree: ast.Module, names: dict[str, str]) -> dict[str, tuple[int, int]]:
    """Alias made by assignment -> (line, col) of the chain assigned to it (where tf_upgrade_v2 renames it)."""
    imported = _imports(tree)
    return {n.targets[0].id: (n.value.lineno, n.value.col_offset) for n in ast.walk(tree)
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
            and n.targets[0].id in names and n.targets[0].id not in imported}


def chain(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id] + parts[::-1]
    return None


def references(tree: ast.Module) -> list[Reference]:
    """The imports of TensorFlow, and every maximal attribute chain or name rooted at one of their aliases."""
    names = aliases(tree)
    assigned = set(names) - set(_imports(tree))
    out: list[Reference] = []
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == _ROOT or a.name.startswith(_ROOT + "."):
                    out.append(Reference(node.lineno, node.col_offset, a.name, f"import {a.name}", True))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and \
                (node.module == _ROOT or node.module.startswith(_ROOT + ".")):
            for a in node.names:
                if a.name != "*":
                    out.append(Reference(node.lineno, node.col_offset, f"{node.module}.{a.name}",
                                         f"from {node.module} import {a.name}", True))
        elif isinstance(node, (ast.Attribute, ast.Name)) and id(node) not in inner:
            parts = chain(node)
            if not parts or parts[0] not in names or isinstance(getattr(node, "ctx", None), ast.Store):
                continue
            if isinstance(node, ast.Name) and (names[parts[0]] in (_ROOT, f"{_ROOT}.compat.v1") or
                                               parts[0] in assigned):
                continue  # a bare `tf` (the import speaks for it), or an alias (its assignment does)
            path = ".".join([names[parts[0]]] + parts[1:])
            out.append(Reference(node.lineno, node.col_offset, path, ".".join(parts)))
    return sorted(out, key=lambda r: (r.line, r.col, r.path))


def _name_of(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    try:
        module = getattr(obj, "__module__", None)
        qual = getattr(obj, "__qualname__", None) or type(obj).__name__
    except Exception:  # an object whose __getattr__ does work (absl's FLAGS parses sys.argv)
        module, qual = type(obj).__module__, type(obj).__qualname__
    return f"{module}.{qual}" if isinstance(module, str) else str(qual)


def _is_namespace(obj) -> bool:
    """A module or a class: its attributes are API. Anything else is a runtime object (absl's FLAGS, a dtype),
    whose attributes are not looked up: that can run code, and they are the user's values, not TensorFlow's."""
    return isinstance(obj, types.ModuleType) or inspect.isclass(obj)


@functools.lru_cache(maxsize=None)
def resolve(path: str) -> Resolution:
    """Walk `path` on the installed TensorFlow: attributes, then submodules; never calls what it finds."""
    parts = path.split(".")
    try:
        obj = importlib.import_module(parts[0])
    except ImportError as exc:
        return Resolution(False, error=f"{type(exc).__name__}: {exc}")
    for i in range(1, len(parts)):
        if not _is_namespace(obj):
            break  # `tf.app.flags.FLAGS.batch_size`: resolved as far as FLAGS
        try:
            obj = getattr(obj, parts[i])
            continue
        except AttributeError as exc:
            error = str(exc)
        except Exception as exc:  # a lazy loader that fails (e.g. a Keras-backed API under Keras 3)
            error = f"{type(exc).__name__}: {exc}"
        if "not available with Keras 3" in error:
            # no submodule import here: importing TF's API module would replace the lazy loader and
            # make the same name resolve on the next look-up, which is not what a user's process sees
            return Resolution(False, error=error)
        try:
            obj = importlib.import_module(".".join(parts[:i + 1]))
        except Exception:
            return Resolution(False, error=error)
    if _served_by_legacy_keras_here(path, obj):
        return Resolution(False, error=f"`{path}` is not available with Keras 3 (tf-keras is installed here and "
                                       "tfcompare set TF_USE_LEGACY_KERAS=1 for itself; the script, run as its user "
                                       "runs it, gets Keras 3)")
    return Resolution(True, resolved_to=_name_of(obj), obj=obj)


def _served_by_legacy_keras_here(path: str, obj) -> bool:
    """A TensorFlow API (not `tf.keras`, which Keras 3 serves too) that resolves only because tfcompare turned
    tf-keras on in its own process (`tfcompare.LEGACY_KERAS_SET_HERE`): `tf.compat.v1.layers`, `nn.rnn_cell`. A
    user's process without TF_USE_LEGACY_KERAS=1 gets Keras 3, where they are gone."""
    import tfcompare

    if not tfcompare.LEGACY_KERAS_SET_HERE or ".keras" in path or path.endswith("keras"):
        return False
    module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    return isinstance(module, str) and module.split(".")[0] == "tf_keras"
