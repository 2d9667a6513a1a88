"""convert's speed levers: the rewrite with a lever is written only when it is faster and `pair` still agrees.

A lever is a change to the written text (`Lever.apply`). Each is tried on its own after the plain rewrite agrees:
the text with the lever goes to a hidden file beside NEW.py (same folder, so the script's relative paths hold),
`pair OLD.py THAT` runs with its step timing, and the lever is kept only when that pair agrees, nothing retraced
in its timed rounds, and its speed-up over TF1 is faster beyond both intervals (the lever's 95% interval wholly
above the plain rewrite's). The two speed-ups come from two pairs, each interleaved against TF1 on TF1's own
batches; requiring the intervals to part is the conservative reading of two separate measurements.

Levers `tfcompare run --levers` measures and this does not write: several steps per `tf.function` call (the
script's own loop calls the step once per batch and reads each step's loss; folding steps would rewrite its loop),
and `input_signature` (every rewrite already carries it, from TF1's placeholders).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from typing import Callable

from tfcompare.scripts.convert.line_width import wrap
from tfcompare.scripts.pair import AGREE, FAILED
from tfcompare.core.parsing import parse

__all__ = ["Lever", "LeverTrial", "LEVERS", "JIT_COMPILE", "judge", "with_lever_note", "NOT_WRITTEN"]

NOT_WRITTEN = ("several steps per tf.function call: not tried (the script's loop calls the step once per batch and "
               "reads each step's loss); input_signature: in every rewrite already")


@dataclasses.dataclass(frozen=True)
class Lever:
    """A named change to the written script: `apply(text)` is the text with it, or None where it does not apply."""

    name: str
    what: str
    apply: Callable[[str], "str | None"]

    def __post_init__(self):
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"a lever's name is a lowercase identifier (it names a file), got {self.name!r}")


def _top(tree: ast.Module, kind: type, name: str) -> ast.AST | None:
    """The one module-level `kind` (def or class) called `name`, or None (none, or several)."""
    found = [n for n in tree.body if isinstance(n, kind) and n.name == name]
    return found[0] if len(found) == 1 else None


def _step_decorator(tree: ast.Module) -> ast.expr | None:
    """train_step's `tf.function` decorator (the one step the rewrite has), or None."""
    step = _top(tree, ast.FunctionDef, "train_step")
    found = [d for d in step.decorator_list if _is_tf_function(d)] if step else []
    return found[0] if len(found) == 1 else None


def _called_methods(tree: ast.Module) -> list[ast.FunctionDef]:
    """The Model's methods train_step reaches (`model.loss(...)`, then `self.m(...)` / `self(...)` inside them)."""
    step, model = _top(tree, ast.FunctionDef, "train_step"), _top(tree, ast.ClassDef, "Model")
    if step is None or model is None:
        return []
    methods = {n.name: n for n in model.body if isinstance(n, ast.FunctionDef)}

    def calls(node, owner):
        for call in (c for c in ast.walk(node) if isinstance(c, ast.Call)):
            f = call.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == owner:
                yield f.attr
            elif isinstance(f, ast.Name) and f.id == owner and owner == "self":
                yield from ("__call__", "call")
    todo, seen = [m for m in calls(step, "model") if m in methods], set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += [m for m in calls(methods[name], "self") if m in methods]
    return [methods[name] for name in sorted(seen)]


def _called_outside(tree: ast.Module, names: set[str]) -> bool:
    """Whether the script calls one of the Model's methods `names` (`model(x)` for `__call__` / `call`) outside
    the Model and train_step: a prediction after the loop."""
    inside = {id(n) for top in (_top(tree, ast.FunctionDef, "train_step"), _top(tree, ast.ClassDef, "Model"))
              if top is not None for n in ast.walk(top)}
    for call in (c for c in ast.walk(tree) if isinstance(c, ast.Call) and id(c) not in inside):
        f = call.func
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "model" and \
                f.attr in names:
            return True
        if isinstance(f, ast.Name) and f.id == "model" and names & {"__call__", "call"}:
            return True
    return False


def _is_tf_function(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return ast.unparse(target) == "tf.function"


def _jit(text: str) -> str | None:
    """jit_compile=True on train_step; the model's methods it calls lose their own `tf.function`, so the step's
    trace inlines them: a nested tf.function inside an XLA-compiled one takes the variables' values as
    compile-time constants, and the step compiles again on every call (measured: ~100x slower, not faster)."""
    try:
        tree = parse(text)
    except SyntaxError:
        return None
    step = _step_decorator(tree)
    if step is None or (isinstance(step, ast.Call) and any(k.arg == "jit_compile" for k in step.keywords)):
        return None
    lines = text.splitlines(keepends=True)
    first = lines[step.lineno - 1]
    if isinstance(step, ast.Call):
        opened = first.index("tf.function(") + len("tf.function(")
        more = ", " if step.args or step.keywords else ""
        lines[step.lineno - 1] = first[:opened] + "jit_compile=True" + more + first[opened:]
        if step.lineno == step.end_lineno:  # a decorator that fitted on its line may no longer fit
            lines[step.lineno - 1] = "".join(f"{piece}\n" for piece in wrap(lines[step.lineno - 1].rstrip("\n")))
    else:
        lines[step.lineno - 1] = first.replace("tf.function", "tf.function(jit_compile=True)", 1)
    inlined = _called_methods(tree)
    if _called_outside(tree, {m.name for m in inlined}):
        return None  # there its tf.function casts the inputs (float64 NumPy data) as TF1's feed did: kept
    drop = sorted((d.lineno, d.end_lineno) for m in inlined for d in m.decorator_list if _is_tf_function(d))
    for start, end in reversed(drop):
        del lines[start - 1:end]
    return "".join(lines)


JIT_COMPILE = Lever("jit_compile", "jit_compile=True on train_step (XLA compiles the whole step, the model methods "
                    "it calls inlined into it)", _jit)
LEVERS = (JIT_COMPILE,)


@dataclasses.dataclass
class LeverTrial:
    """One lever tried: kept or not and why, the two speed-ups it was judged on (TF1's time / TF2's, > 1 faster)."""

    name: str
    what: str
    kept: bool = False
    why: str = ""
    pair_status: str = ""
    speedup: dict | None = None  # with the lever: estimate, low, high
    plain_speedup: dict | None = None  # without it

    def line(self) -> str:
        return f"lever {self.name}: {'WRITTEN' if self.kept else 'not written'}: {self.why}"


def _ratio(r: dict | None) -> str:
    return f"{r['estimate']:.2f}x (95% CI {r['low']:.2f}-{r['high']:.2f})" if r else "not measured"


def judge(trial: LeverTrial, pair_status: str, plain_timing: dict, lever_timing: dict, error: str = "") -> LeverTrial:
    """Keep the lever only if the pair with it agrees, it did not retrace while timed, and its speed-up interval
    lies wholly above the plain rewrite's. A pair that could not compare (`error` its message) is said as such:
    not a difference in what the step computes."""
    trial.pair_status = pair_status
    trial.plain_speedup = (plain_timing or {}).get("speedup")
    trial.speedup = (lever_timing or {}).get("speedup")
    if pair_status == FAILED:
        trial.why = f"pair could not compare the rewrite with it ({error[:200] or 'no message'})"
    elif pair_status != AGREE:
        trial.why = f"pair says {pair_status} with it (the rewrite without it agrees): it changes what the step computes"
    elif not trial.plain_speedup or not trial.speedup:
        trial.why = (f"not timed ({(lever_timing or {}).get('why') or (plain_timing or {}).get('why') or 'no interval'})"
                     ": a lever is written only when it is measured faster")
    elif (lever_timing.get("retraces") or 0) > 0:
        trial.why = (f"the step retraced {lever_timing['retraces']} time(s) while timed with it: its times hold "
                     "tracing, not steady steps")
    elif trial.speedup["low"] > trial.plain_speedup["high"]:
        trial.kept = True
        trial.why = (f"TF2 step {_ratio(trial.speedup)} TF1's speed with it, {_ratio(trial.plain_speedup)} without; "
                     "pair agrees with it")
    else:
        trial.why = (f"TF2 step {_ratio(trial.speedup)} TF1's speed with it, {_ratio(trial.plain_speedup)} without: "
                     "not faster beyond both intervals")
    return trial


def with_lever_note(text: str, trial: LeverTrial, machine: str) -> str:
    """The text with a comment above the step's decorator: the lever is tfcompare's, and what it measured."""
    try:
        step = _step_decorator(parse(text))
    except SyntaxError:
        step = None
    if step is None:
        return text
    lines = text.splitlines(keepends=True)
    note = [f"# {trial.name}: written by tfcompare convert, measured faster ({machine}), pair agreeing:\n",
            f"# TF2 step {_ratio(trial.speedup)} TF1's speed with it, {_ratio(trial.plain_speedup)} without\n"]
    return "".join(lines[:step.lineno - 1] + note + lines[step.lineno - 1:])
