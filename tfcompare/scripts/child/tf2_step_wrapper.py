"""The TF2 probe's step wrapper: each function of the script that takes a gradient, wrapped to take TF1's batches.

`wrap_steps` decorates every such function in the script's syntax tree (the compiled code only; the file is
unchanged) with `STEP_WRAPPER`, a global the probe provides: its first K calls get TF1's batches in place of
their batch arguments, all of them or, if some cannot take one of TF1's feeds, none.
"""

from __future__ import annotations

import ast
import functools
import inspect

import numpy as np
import tensorflow as tf

from tfcompare.scripts.child.tf2_inputs import _is_batch
from tfcompare.scripts.child.train_ops import Stop

__all__ = ["STEP_WRAPPER", "StepWrapper", "wrap_steps"]

STEP_WRAPPER = "__tfcompare_step__"


def wrap_steps(tree: ast.Module) -> list[str]:
    """Decorate every function of the script that calls `.gradient(...)` with the step wrapper (outermost)."""
    wrapped = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            calls = [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                     and n.func.attr == "gradient"]
            if calls:
                node.decorator_list.insert(0, ast.Name(id=STEP_WRAPPER, ctx=ast.Load()))
                wrapped.append(f"{node.name} (line {node.lineno})")
    ast.fix_missing_locations(tree)
    return wrapped


class _Method:
    """The wrapped step as the class attribute of a method (`@tf.function def train(self, x, y)`): read through an
    instance, the function is bound first, as Python binds it, then wrapped. A `tf.function` with an
    `input_signature` called unbound with `self` among its arguments would fit the signature's first spec to
    `self`: traced, the step fails where the script's own call works."""

    def __init__(self, wrap, fn):
        self._wrap, self._fn, self._plain = wrap, fn, wrap(fn)
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self._plain(*args, **kwargs)

    def __get__(self, instance, owner=None):
        if instance is None or not hasattr(self._fn, "__get__"):
            return self
        return self._wrap(self._fn.__get__(instance, owner))


class StepWrapper:
    """`TF2Probe`'s part that wraps the script's step functions (`STEP_WRAPPER`)."""

    def _step_wrapper(self, fn):
        return _Method(self._step_call, fn)

    def _step_call(self, fn):
        probe = self

        @functools.wraps(fn)
        def step(*args, **kwargs):
            """The call; where it applied an update, what it left is read when it returns: the state a step
            changes after its `apply_gradients` (a weight average, clipping, a counter) is the step's, as TF1's
            Session.run of the train op ran it all."""
            if probe.fit_model is not None or probe.busy or probe.mode != "normal":
                return fn(*args, **kwargs)
            applied, first, made = probe.applies, probe.record.steps, len(probe.step_calls)
            probe.in_step += 1
            try:
                out = substituted(*args, **kwargs)
            finally:
                probe.in_step -= 1
            if len(probe.step_calls) > made:  # a compared call: the steps it took (tf2_traced)
                probe.call_steps[made] = (first, probe.record.steps)
            if probe.finishing:  # K steps taken; what the call did after them is not a step's
                raise Stop
            if probe.applies != applied and not probe.busy and probe.mode == "normal" and probe.record.steps:
                probe._take_after(again=True)
                if probe.record.steps >= probe.steps or probe.unpaired:
                    raise Stop
            return out

        def substituted(*args, **kwargs):
            # TF1's batch of the next step: a call that takes two gradients (both networks of a GAN, as TF1's one
            # run trained them) takes the batch of the first; the next call that of the step after the second
            call, probe.calls, index = probe.calls, probe.calls + 1, probe.record.steps
            if index >= probe.tf1.steps:
                return fn(*args, **kwargs)
            leaves = tf.nest.flatten((args, kwargs))
            if not call:
                probe._own(leaves)
            notes = [] if call else probe.record.substitution
            specs = None if call else []
            converted = probe._convert(leaves, index, notes, specs=specs, names=_leaf_names(fn, args, kwargs))
            if specs:
                probe.record.inputs = [dict(s, leaf=i) for i, s in enumerate(specs) if s is not None]
            if not any(c is not None for c in converted):
                if not call:
                    notes.append(f"{_name(fn)}'s arguments hold no array shaped like TF1's batch: its inputs are "
                                 "the script's own")
                probe.step_calls.append((fn, args, kwargs))  # its own inputs, in its place among the steps
                return fn(*args, **kwargs)
            left = _unmatched(leaves, converted)
            if left or probe.mixed:
                if not call:  # half TF1's examples and half TF2's would break the script or compare nonsense
                    probe.mixed, probe.record.inputs = True, []
                    notes.append(f"{_name(fn)}'s argument {left} matches none of TF1's feeds, so none of its arguments "
                                 "were replaced (replacing only some would mix TF1's examples with TF2's): its inputs "
                                 "are the script's own, and both scripts must read the same data")
                elif left and not probe.mixed:  # a later step function (a GAN's other network) said once, by step
                    text = (f"{_name(fn)}'s argument {left} matches none of TF1's feeds of step {index + 1}: its "
                            "inputs there are the script's own, so both scripts must read the same data")
                    if not any(n.startswith(text.split(" of step ")[0]) for n in probe.record.substitution):
                        probe.record.substitution.append(text)
                probe.step_calls.append((fn, args, kwargs))
                return fn(*args, **kwargs)
            original = (args, kwargs)
            leaves = [c if c is not None else leaf for c, leaf in zip(converted, leaves)]
            args, kwargs = tf.nest.pack_sequence_as((args, kwargs), leaves)
            probe.step_calls.append((fn, args, kwargs))  # every compared call, in order: a GAN's steps take turns
            if not call:
                probe.step_fn, probe.step_args = fn, (args, kwargs)
                probe.record.step_function = _name(fn)
                notes.append(f"the arguments of {_name(fn)} were replaced by TF1's batches")
                return probe._first_call(lambda a, k: fn(*a, **k), (args, kwargs), original)
            return fn(*args, **kwargs)

        return step


def _leaf_names(fn, args, kwargs) -> list | None:
    """The parameter name of each leaf of `(args, kwargs)` (None for a leaf inside a nested argument); None where
    the function's signature cannot be read."""
    try:
        params = list(inspect.signature(getattr(fn, "python_function", fn)).parameters)
    except (TypeError, ValueError):
        return None
    if params and params[0] == "self" and len(params) > len(args):  # a method's function, called bound
        params = params[1:]
    out = []
    for i, arg in enumerate(args):
        n = len(tf.nest.flatten(arg))
        out += [params[i] if i < len(params) else None] if n == 1 else [None] * n
    for key in sorted(kwargs):  # tf.nest flattens a dict in sorted key order
        n = len(tf.nest.flatten(kwargs[key]))
        out += [key] if n == 1 else [None] * n
    return out


def _unmatched(leaves: list, converted: list) -> str:
    """The first batch argument (its leading dimension the batch's) that took no TF1 feed; "" when none."""
    sizes = [leaf.shape[0] for leaf, c in zip(leaves, converted) if c is not None and _is_batch(leaf)]
    if not sizes:
        return ""
    for i, (leaf, c) in enumerate(zip(leaves, converted)):
        if c is None and _is_batch(leaf) and leaf.shape[0] in sizes:
            return f"#{i} {tuple(leaf.shape)} {np.dtype(getattr(leaf.dtype, 'as_numpy_dtype', leaf.dtype)).name}"
    return ""


def _name(fn) -> str:
    inner = getattr(fn, "python_function", fn)
    inner = inspect.unwrap(getattr(inner, "__func__", inner))  # a method's function, under tfcompare's casting
    code = getattr(inner, "__code__", None)
    return f"{getattr(inner, '__name__', 'step')}()" + (f" (line {code.co_firstlineno})" if code else "")
