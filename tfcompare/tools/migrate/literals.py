"""Constant expressions of a TF1 script, read from its AST without running anything: what `tfcompare migrate
--scaffold` takes a placeholder's shape, a learning rate or an initializer's arguments from.

`literal` evaluates one expression (numbers, strings, tuples, module-level constants, + - * / // %, small powers)
or says None; `module_constants` is every module-level `NAME = constant expression`; `argument` finds a call's
argument by position or keyword; `is_number` is a finite int or float (not a bool).
"""

from __future__ import annotations

import ast
import math
import operator

__all__ = ["literal", "is_number", "argument", "module_constants"]

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}


def literal(node, env: dict):
    """A constant expression of the script (numbers, strings, tuples, module-level constants, + - * / // %, small
    powers), or None: evaluated without running anything."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, str, bool, type(None))):
        return node.value
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [literal(e, env) for e in node.elts]
        return None if any(i is None and not (isinstance(e, ast.Constant) and e.value is None)
                           for i, e in zip(items, node.elts)) else tuple(items)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = literal(node.operand, env)
        return -v if isinstance(v, (int, float)) and not isinstance(v, bool) else None
    if isinstance(node, ast.BinOp):
        a, b = literal(node.left, env), literal(node.right, env)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
            return None
        if isinstance(node.op, ast.Pow):
            return a ** b if abs(b) <= 64 and abs(a) <= 1e6 else None
        try:
            out = _BINOPS[type(node.op)](a, b) if type(node.op) in _BINOPS else None
        except ArithmeticError:
            return None
        return out if out is None or (abs(out) < 1e15 and math.isfinite(out)) else None
    return None


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def argument(call: ast.Call, index: int, name: str):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return call.args[index] if len(call.args) > index else None


def module_constants(tree: ast.Module) -> dict:
    """Module-level `NAME = constant expression` (the last value each name gets at module level)."""
    env: dict = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            v = literal(stmt.value, env)
            if v is not None:
                env[stmt.targets[0].id] = v
            else:
                env.pop(stmt.targets[0].id, None)
    return env
