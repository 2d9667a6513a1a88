"""A pair of scripts as a tfcompare case: what `tfcompare pair --emit-case` writes a cases file for.

The TF1 script runs inside the harness's graph up to its first training `Session.run`, which is not run:
its placeholders, loss, train op and variables are the case's graph. The TF2 script runs up to its first
gradient (or up to `fit`): its step function (or its compiled Keras model) and variables are the case's
model. Both run in tfcompare's own process with the known loaders replaced as in `pair`; every patch is
undone after each load. Only the two scripts the cases file names are run.
"""

from __future__ import annotations

import dataclasses
import functools
import types
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf
from tensorflow.python.client import session as _session

import tfcompare
from tfcompare.scripts import legacy
from tfcompare.core.cases import Case, InputSpec
from tfcompare.core.graph_builder import graph_parts
from tfcompare.core.keras_step import KerasStep
from tfcompare.scripts.child import batches, loaders
from tfcompare.scripts.child.probe_tf1 import feed_name, optimizer_patches, runs
from tfcompare.scripts.child.probe_tf2 import STEP_WRAPPER, wrap_steps
from tfcompare.scripts.child.user_script import as_tf1, compat_v1_modules, patched, run_script

__all__ = ["Feed", "StepInput", "script_case", "ScriptStep"]


@dataclasses.dataclass(frozen=True)
class Feed:
    """One TF1 placeholder the training step is fed: name, shape per example, dtype, kind (features, onehot,
    int; the largest class id + 1 for int labels)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    kind: str
    high: int | None = None


@dataclasses.dataclass(frozen=True)
class StepInput:
    """Which argument of the TF2 step (its index among the flattened arguments) takes which TF1 feed, and how
    it is converted: same (reshaped, cast), argmax (one-hot to class ids), onehot (class ids to one-hot)."""

    leaf: int
    feed: str
    convert: str
    shape: tuple[int, ...]
    dtype: str

    def __call__(self, value: np.ndarray) -> np.ndarray:
        return batches.apply(value, self.convert, self.shape, self.dtype)


class _Loaded(BaseException):
    """Ends a script at the point its training step is known."""


class _Target(BaseException):
    def __init__(self, target):
        super().__init__()
        self.target = target


def _no_op(*args, **kwargs):
    return None


def _tf1_parts(script: str, args: tuple[str, ...]):
    """Run the TF1 script in the current graph until its first training `Session.run` (not run)."""
    found: dict = {}
    run = _session.BaseSession.run

    def session_run(sess, fetches, feed_dict=None, *a, **k):
        if "train_op" in found and runs(fetches, found["train_op"]):
            found["feed"], found["session"] = dict(feed_dict or {}), sess
            raise _Loaded
        return run(sess, fetches, feed_dict, *a, **k)

    # TF1 switches a script makes for its whole process: here they would switch tfcompare's TF2 modes too
    switches = [(m, name, _no_op) for m in compat_v1_modules()
                for name in ("disable_v2_behavior", "disable_eager_execution", "reset_default_graph")]
    undo = loaders.install([])
    undo_legacy = legacy.install(script)  # tf.contrib, tf.estimator while the script loads, as in pair's child
    try:
        with patched(*optimizer_patches(found), (_session.BaseSession, "run", session_run), *switches):
            run_script(script, list(args), {}, as_tf1)
    except _Loaded:
        pass
    finally:
        undo_legacy()
        undo()
    if "feed" not in found:
        raise RuntimeError(f"{script} ran no training step (no Session.run of its optimizer's train op)")
    found["session"].close()
    return found


def _build_graph(script: str, args: tuple[str, ...], feeds: tuple[Feed, ...], scalars: dict):
    def build(specs):
        found = _tf1_parts(script, args)
        by_name = {feed_name(k): k for k in found["feed"]}
        missing = [f.name for f in feeds if f.name not in by_name] + [n for n in scalars if n not in by_name]
        if missing:
            raise RuntimeError(f"{script} no longer feeds {missing} to its training step (it feeds {sorted(by_name)})")
        inputs = {f.name: by_name[f.name] for f in feeds} | {n: by_name[n] for n in scalars}
        return graph_parts(inputs, found["loss"], found["loss"], found["train_op"],
                           [v for _, v in found["grads_and_vars"]])
    return build


class ScriptStep(tf.Module):
    """The TF2 script's own step function as a case's model: the harness feeds it a batch dict, which is put
    back into the arguments the script called it with; its loss is the target of its own gradient."""

    def __init__(self, fn, template, inputs: tuple[StepInput, ...], variables_by_name: dict, optimizer, state: list,
                 weights: dict):
        super().__init__(name="script_step")
        self._fn = getattr(fn, "python_function", fn)
        self._template = template
        self._inputs = inputs
        self.variables_by_name = variables_by_name
        self.optimizer = optimizer
        self.script_state = state  # the script's models and variables, so the harness resets all of them
        for name, value in weights.items():
            variables_by_name[name].assign(value)

    def _call(self, inputs):
        leaves = tf.nest.flatten(self._template)
        for s in self._inputs:
            leaves[s.leaf] = inputs[s.feed]
        args, kwargs = tf.nest.pack_sequence_as(self._template, leaves)
        return self._fn(*args, **kwargs)

    def loss(self, inputs):
        def gradient(tape, target, sources, *a, **k):
            raise _Target(target)
        try:
            with patched((tf.GradientTape, "gradient", gradient)):
                self._call(inputs)
        except _Target as found:
            return found.target
        raise RuntimeError("the script's step took no gradient")

    def __call__(self, inputs):
        return self.loss(inputs)

    def train_step(self, inputs):
        seen = []
        real = tf.GradientTape.gradient

        def gradient(tape, target, sources, *a, **k):
            seen.append(target)
            return real(tape, target, sources, *a, **k)
        with patched((tf.GradientTape, "gradient", gradient)):
            self._call(inputs)
        return seen[0]


class _FitStep(KerasStep):
    """The script's compiled Keras model as a case's model: its output is its loss, as the TF1 side's is."""

    def __call__(self, inputs):
        return self.loss(inputs)

    def loss(self, inputs):
        return self.loss_fn(inputs[self.target], KerasStep.__call__(self, inputs))


def _held(values, depth: int = 0):
    """The items of the lists, tuples and dicts among `values` (two levels deep)."""
    for value in values:
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else None
        if items is None:
            continue
        for item in items:
            yield item
            if depth < 1:
                yield from _held([item], depth + 1)


def _make_model(script: str, args: tuple[str, ...], inputs: tuple[StepInput, ...], pairing: dict[str, int]):
    def make_model(weights):
        trainables: list = []
        found: dict = {}

        def creator(next_creator, **kwargs):
            var = next_creator(**kwargs)
            if kwargs.get("trainable") is not False:
                trainables.append(var)
            return var

        def step_wrapper(fn):
            @functools.wraps(fn)
            def step(*a, **k):
                if "fn" not in found:
                    found["fn"], found["template"] = fn, (a, k)
                return fn(*a, **k)
            return step

        real = tf.GradientTape.gradient

        def gradient(tape, target, sources, *a, **k):
            if "fn" in found:
                raise _Loaded
            return real(tape, target, sources, *a, **k)

        def fit(model, *a, **k):
            found["model"] = model
            raise _Loaded

        # with the legacy extra, tfcompare's process has tf.keras = tf-keras (for TF1 layers); the TF2 script gets
        # the tf.keras its author gets, Keras 3, as in `pair`
        keras3 = [(tf, "keras", keras)] if tfcompare.LEGACY_KERAS_SET_HERE else []
        undo = loaders.install([])
        module = None
        try:
            with tf.variable_creator_scope(creator), patched((tf.GradientTape, "gradient", gradient),
                                                              (keras.Model, "fit", fit), *keras3):
                module = types.ModuleType("__main__")
                try:
                    run_script(script, list(args), {STEP_WRAPPER: step_wrapper}, wrap_steps, module=module)
                except _Loaded:
                    pass
                model = found.get("model")
                if model is not None and not model.trainable_weights:
                    x = next(s for s in inputs if s.leaf == 0)
                    model(np.zeros((1, *x.shape), x.dtype))
        finally:
            undo()
        if "model" in found:
            paths = {id(getattr(v, "value", v)): v.path for v in found["model"].trainable_weights}
            names = {n: paths[id(trainables[i])] for n, i in pairing.items()}
            features = next(s.feed for s in inputs if s.leaf == 0)
            target = next(s.feed for s in inputs if s.leaf == 1)
            return _FitStep(found["model"], weights=weights, features=features, target=target, names=names)
        if "fn" not in found:
            raise RuntimeError(f"{script} took no gradient of its variables in a function tfcompare can call")
        # the script's models, optimizers and variables, also those it keeps in lists or dicts (a hand-written
        # optimizer's slots): the harness restores all of them between runs
        state = [v for v in _held(vars(module).values()) if isinstance(v, (tf.Module, tf.Variable))]
        state += [v for v in vars(module).values() if isinstance(v, (tf.Module, tf.Variable))
                  or type(v).__module__.startswith("keras")]
        optimizers = [v for v in state if "optimizers" in type(v).__module__]
        return ScriptStep(found["fn"], found["template"], inputs, {n: trainables[i] for n, i in pairing.items()},
                          optimizers[0] if len(optimizers) == 1 else None, state, weights)
    return make_model


def script_case(name: str, tf1_script: str | Path, tf2_script: str | Path, *, feeds, inputs, pairing: dict[str, int],
                scalars: dict | None = None, args: tuple[str, ...] = (), batch_size: int = 32,
                description: str = "") -> Case:
    """A case whose TF1 side is `tf1_script`'s graph and TF2 side `tf2_script`'s step (see the module docstring).

    feeds: the TF1 step's placeholders (`Feed`); inputs: how the TF2 step's arguments take them (`StepInput`);
    pairing: TF1 variable name -> index of the TF2 trainable variable in creation order; scalars: scalar
    placeholders and the value TF1 fed (a keep_prob of 1.0, say).
    """
    tf1_script, tf2_script = str(Path(tf1_script).resolve()), str(Path(tf2_script).resolve())
    feeds, inputs, scalars = tuple(feeds), tuple(inputs), dict(scalars or {})
    specs = tuple(InputSpec(f.name, tuple(f.shape), f.dtype, high=f.high) for f in feeds)

    def make_batch(rng, n):
        out = {}
        for f in feeds:
            if f.kind == "onehot":
                out[f.name] = np.eye(f.shape[-1], dtype=f.dtype)[rng.integers(0, f.shape[-1], n)]
            elif f.kind in ("int", "ids"):
                out[f.name] = rng.integers(0, f.high or 2, (n, *f.shape)).astype(f.dtype)
            else:  # features: like scaled images, in [0, 1)
                out[f.name] = rng.random((n, *f.shape)).astype(f.dtype)
        return out

    converters = {s.feed: s for s in inputs}
    return Case(name, description or f"{Path(tf1_script).name} vs {Path(tf2_script).name} (tfcompare pair)", specs,
                build_graph=_build_graph(tf1_script, args, feeds, scalars),
                make_model=_make_model(tf2_script, args, inputs, pairing), make_batch=make_batch,
                default_batch_size=batch_size,
                tf1_batch=(lambda batch: {**batch, **scalars}) if scalars else None,
                tf2_batch=lambda batch: {k: converters[k](v) for k, v in batch.items() if k in converters},
                unsupported_modes={"tf2-partial": "the script's step applies its own update"})
