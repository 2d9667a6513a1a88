"""What TF1's `tf.set_random_seed(S)` becomes. TF1's graph seed made the script's initial weights the same run after
run; in TF2 with Keras 3, `tf.random.set_seed` alone does not: an unseeded Keras initializer or dropout takes its
seed from Python's global `random`. `tf.keras.utils.set_random_seed(S)` seeds Python's, NumPy's and TensorFlow's
generators, so the rewrite is as reproducible as the script was.

It also re-seeds NumPy and `random`, which the TF1 call left alone: it is written only where that changes none of
the script's draws. The script does not use Python's `random`, and NumPy's generator is seeded by the script right
after the call (`tf.set_random_seed(1)`, `np.random.seed(1)`: MorvanZhou's and many tutorials' opening), or right
before it with the same constant or name, nothing drawn between. Elsewhere `tf.random.set_seed(S)`.
"""

from __future__ import annotations

import ast

__all__ = ["KERAS_SEED", "TF_SEED", "seed_function"]

KERAS_SEED = "tf.keras.utils.set_random_seed"
TF_SEED = "tf.random.set_seed"


def _numpy_names(tree: ast.Module) -> set[str]:
    return {a.asname or a.name for s in ast.walk(tree) if isinstance(s, ast.Import) for a in s.names
            if a.name == "numpy"}


def _numpy_seed(s, numpy: set[str]):
    """The argument of a top-level `np.random.seed(arg)` statement, or None."""
    if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and len(s.value.args) == 1):
        return None
    f = s.value.func
    if isinstance(f, ast.Attribute) and f.attr == "seed" and isinstance(f.value, ast.Attribute) and \
            f.value.attr == "random" and isinstance(f.value.value, ast.Name) and f.value.value.id in numpy:
        return s.value.args[0]
    return None


def _uses_python_random(tree: ast.Module) -> bool:
    return any(isinstance(s, ast.Import) and any(a.name == "random" for a in s.names) or
               isinstance(s, ast.ImportFrom) and s.module == "random" for s in ast.walk(tree))


def seed_function(tree: ast.Module, call: ast.Call) -> str:
    """The TF2 function to call for the TF1 seed call `call` (a node of `tree`)."""
    body = tree.body
    index = next((i for i, s in enumerate(body) if isinstance(s, ast.Expr) and s.value is call), None)
    if index is None or len(call.args) != 1 or call.keywords or _uses_python_random(tree):
        return TF_SEED
    numpy = _numpy_names(tree)
    if index + 1 < len(body) and _numpy_seed(body[index + 1], numpy) is not None:
        return KERAS_SEED
    before = _numpy_seed(body[index - 1], numpy) if index else None
    if isinstance(before, (ast.Constant, ast.Name)) and ast.dump(before) == ast.dump(call.args[0]):
        return KERAS_SEED  # the same constant, or the same name (nothing rebinds it between adjacent statements)
    return TF_SEED
