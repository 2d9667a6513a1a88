"""The script's own expression for a number TF1 folded into its graph: `tf.reshape(pool2, [-1, 7 * 7 * 32])`
holds the constant [-1, 1568], `cost / (2 * n_samples)` the constant 34.0; a reviewer wants the expression back,
not the number. Found on the statement that made the constant, only where exactly one part of it computes that
value from literals and the script's module-level numbers (each bound once, above the graph, so the rewrite
reads the same value when its model runs).
"""

from __future__ import annotations

import ast
import functools
import operator

import numpy as np

from tfcompare.core.generated_code import literal
from tfcompare.scripts.convert.ops import tf_make_ndarray
from tfcompare.scripts.convert.tf1_lines import source_line
from tfcompare.scripts.convert.script_globals import global_value

__all__ = ["ScriptNumbers", "bound_once", "script_array", "script_constant"]

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow, ast.Mod: operator.mod}


def bound_once(tree: ast.Module, module_dict: dict, before_line: int) -> dict[str, ast.Assign]:
    """{name: its assignment} of the module-level names bound once in the whole script (`name = ...`), above
    `before_line`, to a number (not a bool): the value the rewrite reads under that name is the run's."""
    stores = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))]
    return {t.id: n for n in tree.body
            if isinstance(n, ast.Assign) and n.lineno < before_line and len(n.targets) == 1
            and isinstance(t := n.targets[0], ast.Name) and stores.count(t.id) == 1
            and isinstance(module_dict.get(t.id), (int, float)) and not isinstance(module_dict.get(t.id), bool)}


class ScriptNumbers:
    """The script's statements and its module-level numbers; `expression(line, value)` gives the source text."""

    def __init__(self, tree: ast.Module, module_dict: dict, before_line: int, variables: dict | None = None):
        self._tree = tree
        self.numbers = {name: module_dict[name] for name in bound_once(tree, module_dict, before_line)}
        self._parts: dict[int, list[tuple[ast.expr, object]]] = {}
        # a trained variable's size (`weights['wd1'].get_shape().as_list()[0]`) is `self.<attr>.shape[0]`:
        # variable op name -> the model's attribute; the script's globals to find the variable by
        self._variables, self._globals = variables or {}, module_dict

    def expression(self, line: int, value: np.ndarray) -> str | None:
        """The one part of the statement on `line` that evaluates to `value` and is more than a literal."""
        parts = self._parts.get(line)
        if parts is None:
            parts = self._parts[line] = self._evaluated(line)
        integer = value.dtype.kind in "iu"
        equal = [node for node, v in parts if _equal(v, value, integer)]
        if len(equal) != 1 or not any(isinstance(n, (ast.Name, ast.BinOp)) for n in ast.walk(equal[0])):
            return None
        return ast.unparse(_Sizes(self).visit(ast.parse(ast.unparse(equal[0]), mode="eval")).body)

    def _evaluated(self, line: int) -> list[tuple[ast.expr, object]]:
        statements = [s for s in ast.walk(self._tree) if isinstance(s, ast.stmt)
                      and s.lineno <= line <= (s.end_lineno or s.lineno)
                      and not isinstance(s, (ast.FunctionDef, ast.ClassDef, ast.For, ast.While, ast.If, ast.With))]
        if not statements:
            return []
        statement = min(statements, key=lambda s: (s.end_lineno or s.lineno) - s.lineno)
        # every part with a value, literals included: the same value twice is ambiguous
        return [(node, v) for node in ast.walk(statement) if isinstance(node, ast.expr)
                and (v := self._value(node)) is not None]

    def _value(self, node):
        size = self._size(node)
        if size is not None:
            return size[1]
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (int, float)) and not isinstance(node.value, bool) else None
        if isinstance(node, ast.Name):
            return self.numbers.get(node.id)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            v = self._value(node.operand)
            return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            a, b = self._value(node.left), self._value(node.right)
            if a is None or b is None or isinstance(a, list) or isinstance(b, list):
                return None
            try:
                return _OPS[type(node.op)](a, b)
            except (ArithmeticError, ValueError, OverflowError):
                return None
        if isinstance(node, (ast.List, ast.Tuple)) and node.elts:
            values = [self._value(e) for e in node.elts]
            return None if any(v is None or isinstance(v, list) for v in values) else values
        return None


    def _size(self, node) -> tuple[str, int] | None:
        """(the model's attribute, the size) of `X.get_shape().as_list()[i]`, `X.get_shape()[i]`, `X.shape[i]`,
        `int(...)` of one, where X is a trained variable the script names (`weights['wd1']`, `W`)."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" and \
                len(node.args) == 1 and not node.keywords:
            return self._size(node.args[0])
        if not (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and
                isinstance(node.slice.value, int)):
            return None
        base = node.value
        if isinstance(base, ast.Call) and not base.args and isinstance(base.func, ast.Attribute) and \
                base.func.attr == "as_list":
            base = base.func.value
        if isinstance(base, ast.Call) and not base.args and isinstance(base.func, ast.Attribute) and \
                base.func.attr == "get_shape":
            base = base.func.value
        elif isinstance(base, ast.Attribute) and base.attr == "shape":
            base = base.value
        else:
            return None
        variable = global_value(base, self._globals)
        attr = self._variables.get(getattr(getattr(variable, "op", None), "name", None))
        shape = getattr(variable, "shape", None)
        if attr is None or shape is None or not -len(shape) <= node.slice.value < len(shape):
            return None
        size = shape.as_list()[node.slice.value]
        return (attr, int(size)) if size is not None else None


class _Sizes(ast.NodeTransformer):
    """A variable's size read as the rewrite's model has it: `self.weights_wd1.shape[0]`."""

    def __init__(self, numbers: ScriptNumbers):
        self.numbers = numbers

    def visit_Subscript(self, node):
        found = self.numbers._size(node)
        if found is None:
            return self.generic_visit(node)
        return ast.parse(f"self.{found[0]}.shape[{node.slice.value}]", mode="eval").body

    def visit_Call(self, node):
        found = self.numbers._size(node)
        if found is None or not (isinstance(node.func, ast.Name) and node.func.id == "int"):
            return self.generic_visit(node)
        return self.visit_Subscript(node.args[0])


def _equal(v, value: np.ndarray, integer: bool) -> bool:
    """Python's value is the constant's: the same shape and numbers; an integer constant only from ints."""
    flat = v if isinstance(v, list) else [v]
    if integer and not all(isinstance(x, int) for x in flat):
        return False
    try:
        array = np.asarray(v, dtype=value.dtype)  # in the constant's dtype: 1 / 255. is float32's 1 / 255
    except (OverflowError, ValueError):
        return False
    return array.shape == value.shape and bool(np.all(array == value))


_INITIALIZER_KEYWORDS = {"kernel_initializer": "kernel", "bias_initializer": "bias", "initializer": None}


@functools.lru_cache(maxsize=4)
def _constant_initializers(source: str) -> list[tuple[int, int, str | None, ast.expr]]:
    """(first line, last line, the weight it initialises: kernel | bias | None for any, its value) of each
    module-level `initializer=tf.constant_initializer(value)` keyword (`kernel_initializer=`, `bias_initializer=`,
    get_variable's `initializer=`) whose value is the script's own expression, not a literal."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.Lambda, ast.ClassDef))
              for n in ast.walk(f)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in inside:
            continue
        for k in node.keywords:
            value = k.value
            if k.arg in _INITIALIZER_KEYWORDS and isinstance(value, ast.Call) and \
                    getattr(value.func, "attr", getattr(value.func, "id", None)) == "constant_initializer" and \
                    len(value.args) == 1 and not value.keywords and not isinstance(value.args[0], ast.Constant):
                roots = {n.id for n in ast.walk(value.args[0]) if isinstance(n, ast.Name)}
                if not roots & {"tf", "tensorflow"}:
                    found.append((node.lineno, node.end_lineno, _INITIALIZER_KEYWORDS[k.arg], value.args[0]))
    return found


def script_constant(v, tr) -> str | None:
    """The script's expression in `tf.constant_initializer(expression)` that made `v` (`tf.layers.dense(x, 8,
    kernel_initializer=tf.constant_initializer(np.random.randn(2, 8) * 0.5))`): TF1 froze the value the run drew;
    the rewrite evaluates the same expression at the same point of the script, so it draws the same numbers."""
    if v.initial_value.op.type != "Const":
        return None
    line = source_line(v.op, tr.script, tr.source)
    if not line:
        return None
    role = v.op.name.rsplit("/", 1)[-1]
    here = [(weight, value) for first, last, weight, value in _constant_initializers("\n".join(tr.source))
            if first <= line[0] <= last and weight in (None, role)]
    return ast.unparse(here[0][1]) if len(here) == 1 else None


def script_array(v, tr) -> tuple[str, bool] | None:
    """A variable made from one of the script's global NumPy arrays bound once (`tf.Variable(W1)` in the function
    that builds the graph): (that array's name, read where the model is built, and whether its dtype is the
    variable's); a constant of a few numbers: (their literal, False). None: neither."""
    if v.initial_value.op.type != "Const":
        return None
    value = tf_make_ndarray(v.initial_value.op.get_attr("value"))
    for name, array in tr.arrays:  # TF1 froze the array's values into the graph: the same array gives them
        if array.shape == value.shape and np.array_equal(np.asarray(array, value.dtype), value):
            return name, array.dtype == value.dtype
    if 0 < value.size <= 16 and value.ndim:
        return literal(value.tolist()), False
    return None
