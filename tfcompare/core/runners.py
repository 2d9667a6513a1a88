"""One runner per execution mode: the same small interface over a TF1 Session and a TF2 module.

The harness, not the model, decides how a step runs: a runner wraps the model's `train_step`
in `tf.function` (or not, or with XLA, or in a K-step loop) according to its `ExecutionOptions`.
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Callable

import numpy as np
import tensorflow as tf
from tensorflow.python.eager import context  # run metadata of tf.function calls (no public API)

from tfcompare.core.cases import Case
from tfcompare.core.graph_builder import weight_loader
from tfcompare.core.modes import ExecutionOptions
from tfcompare.core.state import State, prebuild_optimizers
from tfcompare.core.step_module import StepModule
from tfcompare.core.timing import Timed

__all__ = ["Runner", "make_runner", "NotSplittable", "split_reason"]

tf1 = tf.compat.v1

Batch = dict[str, np.ndarray]


class NotSplittable(ValueError):
    """The case's TF2 step cannot be split into a compiled hot path and an eager update (partial conversion)."""


def split_reason(model) -> str | None:
    """Why `model`'s step cannot be split for partial conversion, or None when it can."""
    if not callable(getattr(getattr(model, "optimizer", None), "apply", None)):
        return "its model has no optimizer with apply(grads, variables) to run eagerly"
    if getattr(type(model), "train_step", None) is not StepModule.train_step:
        return ("its model defines its own train_step, which cannot be split into a compiled forward/gradient "
                "part and an eager update without changing what it does")
    return None


class Runner:
    """Interface shared by every mode. `build` then `first_call` must come first, in that order."""

    name: str
    options: ExecutionOptions

    def build(self) -> None: ...
    def first_call(self, batch: Batch) -> float: ...
    def reset(self) -> None: ...

    def state_created_since(self) -> list[str]:
        """Variables that appeared after the initial snapshot (none for a TF1 graph: its initializer resets all)."""
        return []
    def forward(self, batch: Batch) -> np.ndarray: ...
    def gradients(self, batch: Batch) -> dict[str, np.ndarray]: ...

    def probe(self, batch: Batch) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The forward output and the gradients on `batch` from one call: in a graph mode one program (one
        Grappler pass, one XLA compile) instead of two."""
        return self.forward(batch), self.gradients(batch)

    def train(self, batches: list[Batch]) -> list[float]: ...
    def weights(self) -> dict[str, np.ndarray]: ...
    def timed(self, batch: Batch, loop_steps: int) -> Timed: ...

    def traces(self) -> int:
        """How many times the step function was traced (0 where nothing is traced)."""
        return 0

    def graph_def(self, batch: Batch):
        """The GraphDef this mode runs for `batch`, or None (eager builds no graph)."""
        return None

    def step_graph(self, batch: Batch):
        """The traced graph of one plain training step for `batch` (already traced: no new trace), or None."""
        return None

    def hlo(self, batch: Batch, stage: str = "hlo") -> str | None:
        """XLA's HLO text for `batch` at `stage`, or None where nothing is XLA-compiled."""
        return None

    def optimized_graph(self, batch: Batch):
        """The graph after Grappler, as the runtime executed it for one step, or None (eager)."""
        return None

    def autograph_code(self) -> str | None:
        """AutoGraph's rewrite of the step, where the step is traced."""
        functions = self.autograph_functions()
        return "\n\n".join(code for _, _, code in functions) if functions else None

    def autograph_functions(self) -> list[tuple[str, str, str]]:
        """(qualified name, the Python source as written, AutoGraph's rewrite) of every converted function."""
        return []

    def close(self) -> None: ...


class _Tf1Runner(Runner):
    """Session.run on a `tf.compat.v1.Graph`, feeding numpy through `feed_dict` as TF1 code does."""

    def __init__(self, name: str, options: ExecutionOptions, case: Case, weights: dict, config):
        self.name, self.options, self.case = name, options, case
        self._weights0 = weights
        self._config = config
        self.sess = None

    def build(self):
        self.graph = tf1.Graph()
        with self.graph.as_default():
            self.parts = self.case.build_graph(self.case.inputs)
            missing = set(self._weights0) ^ set(self.parts.variables)
            if missing:
                raise ValueError(f"TF1 graph variables and init_weights differ in names: {sorted(missing)}")
            self._names = list(self._weights0)
            self._vars = [self.parts.variables[n] for n in self._names]
            self._grads = tf1.gradients(self.parts.loss, self._vars)
            self._init = tf1.global_variables_initializer()
            self._load, self._load_feeds = weight_loader(self.parts.variables)
        self.graph.finalize()

    def _feed(self, batch):
        """Only the placeholders the graph declares are fed (a TF2-only batch key is not TF1's business);
        a placeholder the batch has no value for is named."""
        batch = self.case.tf1_inputs(batch)
        missing = [k for k in self.parts.inputs if k not in batch]
        if missing:
            raise ValueError(f"TF1 placeholder(s) {missing} have no value in the batch (its keys: {sorted(batch)})")
        return {p: batch[k] for k, p in self.parts.inputs.items()}

    def feed(self, batch) -> dict:
        """The feed_dict this graph gets for `batch` (what TF1 code passes to `Session.run`)."""
        return self._feed(batch)

    def reset(self):
        self.sess.run(self._init)
        self.sess.run(self._load, {p: self._weights0[n] for n, p in self._load_feeds.items()})

    def first_call(self, batch):
        self.sess = tf1.Session(graph=self.graph, config=self._config)
        self.reset()
        return float(self.sess.run([self.parts.train_op, self.parts.loss], self._feed(batch))[1])

    def forward(self, batch):
        return self.sess.run(self.parts.output, self._feed(batch))

    def gradients(self, batch):
        return dict(zip(self._names, self.sess.run(self._grads, self._feed(batch))))

    def probe(self, batch):
        out, grads = self.sess.run([self.parts.output, self._grads], self._feed(batch))
        return out, dict(zip(self._names, grads))

    def train(self, batches):
        fetches = [self.parts.train_op, self.parts.loss]
        return [float(self.sess.run(fetches, self._feed(b))[1]) for b in batches]

    def weights(self):
        return dict(zip(self._names, self.sess.run(self._vars)))

    def timed(self, batch, loop_steps):
        fetches, feed = [self.parts.train_op, self.parts.loss], self._feed(batch)
        return Timed(lambda: self.sess.run(fetches, feed))

    def graph_def(self, batch):
        return self.graph.as_graph_def()

    def optimized_graph(self, batch):
        """What the Session ran: its partition graph (after Grappler and placement) for one step."""
        meta = tf1.RunMetadata()
        self.sess.run([self.parts.train_op, self.parts.loss], self._feed(batch),
                      options=tf1.RunOptions(output_partition_graphs=True), run_metadata=meta)
        return max(meta.partition_graphs, key=lambda g: len(g.node)) if meta.partition_graphs else None

    def close(self):
        if self.sess is not None:
            self.sess.close()
            self.sess = None


def _to_tensors(batch: Batch) -> dict[str, tf.Tensor]:
    return {k: tf.constant(v) for k, v in batch.items()}


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=1e-6))


class _Tf2Runner(Runner):
    """A TF2 module; the step runs eagerly, in `tf.function`, with XLA, as a concrete function or in a loop."""

    def __init__(self, name: str, options: ExecutionOptions, case: Case, weights: dict):
        self.name, self.options, self.case = name, options, case
        self._weights0 = weights

    def _wrap(self, fn: Callable, **kwargs) -> Callable:
        if not self.options.traced:
            return fn
        return tf.function(fn, jit_compile=self.options.jit_compile or None, **kwargs)

    def build(self):
        own = self.case.tf2_weights(self._weights0)
        self.model = self.case.make_model(own)
        names = getattr(self.model, "variables_by_name", None)
        if names is None or set(names) != set(own):
            which = "the names tf2_layout.to_tf2 gives" if self.case.tf2_layout else "the same names as init_weights"
            raise ValueError(f"TF2 model must expose variables_by_name with {which}: {sorted(own)}; it has "
                             f"{sorted(names) if names is not None else 'none'}")
        self._names = list(own)
        self._check_layout()
        # every variable the step can touch (tf.Variables, Keras 3 weights and optimizer slots), captured after
        # Keras optimizers are built, so a reset puts all of it back
        prebuild_optimizers(self.model, list(self.model.variables_by_name.values()))
        self._state = State(self.model)
        self._forward = self._wrap(self.model.__call__)
        self._grad = self._wrap(self._gradients)
        self._probe = self._wrap(self._forward_and_gradients)
        self._concrete = None
        # the function that is traced (wrapped per mode), and what one step calls
        self._entry, signature = self.model.train_step, {}
        if self.options.loop:
            self._entry, signature = self._loop, {"input_signature": self._loop_signature()}
        elif self.options.partial:
            why = split_reason(self.model)
            if why:
                raise NotSplittable(why)
            self._update_vars = list(self.model.variables_by_name.values())  # the optimizer's slot order
            self._entry = self._loss_and_gradients
        self._signature = signature
        self._traced = self._wrap(self._entry, **signature)
        self._step = self._partial_step if self.options.partial else self._traced

    def _check_layout(self) -> None:
        """A weight-layout transform must give back exactly what it was given: to_tf1(to_tf2(w)) == w."""
        if self.case.tf2_layout is None:
            return
        back = self._to_tf1(self._own_weights())
        for name, value in self._weights0.items():
            got = back.get(name)
            if got is None or not _same(np.asarray(got), value):
                what = "has no" if got is None else f"gives {np.shape(got)} values that differ from"
                raise ValueError(f"the weight-layout transform does not invert: tf2_layout.to_tf1(to_tf2(w)) {what} "
                                 f"{name!r} {value.shape} of init_weights")

    def _own_weights(self) -> dict[str, np.ndarray]:
        return {n: self.model.variables_by_name[n].numpy() for n in self._names}

    def _to_tf1(self, values: dict) -> dict[str, np.ndarray]:
        return values if self.case.tf2_layout is None else dict(self.case.tf2_layout.to_tf1(dict(values)))

    def _tensors(self, batch: Batch) -> dict[str, tf.Tensor]:
        return _to_tensors(self.case.tf2_inputs(batch))

    def _loop_signature(self) -> list:
        """K stacked batches: one leading dim more than the case's inputs, None wherever they vary."""
        if self.case.tf2_batch is None:
            return [{s.name: tf.TensorSpec((None,) + s.signature_shape(), s.dtype) for s in self.case.inputs}]
        sample = self.case.tf2_inputs(self.case.make_batch(np.random.default_rng(0), 2))
        return [{k: tf.TensorSpec((None, None) + np.shape(v)[1:], tf.as_dtype(np.asarray(v).dtype))
                 for k, v in sample.items()}]

    def _gradients(self, inputs):
        trainables = [self.model.variables_by_name[n] for n in self._names]
        with tf.GradientTape() as tape:
            loss = self.model.loss(inputs)
        return tape.gradient(loss, trainables)

    def _forward_and_gradients(self, inputs):
        return self.model(inputs), self._gradients(inputs)

    def _loss_and_gradients(self, inputs):
        """Partial conversion's compiled part: the forward pass, the loss and the gradients."""
        with tf.GradientTape() as tape:
            loss = self.model.loss(inputs)
        return loss, tape.gradient(loss, self._update_vars)

    def _partial_step(self, tensors):
        """One step of partial conversion: compiled hot path, then the optimizer update in eager Python."""
        loss, grads = self._traced(tensors)
        self.model.optimizer.apply(grads, self._update_vars)
        return loss

    def _loop(self, stacked):
        """K training steps in one call: AutoGraph turns this `for` over `tf.range` into a While op."""
        k = tf.shape(next(iter(stacked.values())))[0]
        losses = tf.TensorArray(tf.float32, size=k)
        for i in tf.range(k):
            loss = self.model.train_step({name: t[i] for name, t in stacked.items()})
            losses = losses.write(i, tf.cast(loss, tf.float32))
        return losses.stack()

    def _call_step(self, tensors):
        if self.options.concrete:
            if self._concrete is None:
                self._concrete = self._traced.get_concrete_function(tensors)
            return self._concrete(tensors)
        return self._step(tensors)

    def _stack(self, batches):
        batches = [self.case.tf2_inputs(b) for b in batches]
        return {k: tf.constant(np.stack([b[k] for b in batches])) for k in batches[0]}

    def first_call(self, batch):
        if self.options.loop:
            return float(self._step(self._stack([batch]))[0])
        loss = self._call_step(self._tensors(batch))
        if loss is None:
            raise ValueError("the TF2 model's train_step returned None: it must return the loss (a scalar tensor)")
        return float(loss)

    def reset(self):
        self._state.restore()

    def state_created_since(self) -> list[str]:
        """Variables the model holds now that the reset cannot restore (created after the snapshot)."""
        return self._state.created_since()

    def forward(self, batch):
        return self._forward(self._tensors(batch)).numpy()

    def gradients(self, batch):
        return self._gradients_to_tf1(self._grad(self._tensors(batch)))

    def probe(self, batch):
        out, grads = self._probe(self._tensors(batch))
        return out.numpy(), self._gradients_to_tf1(grads)

    def _gradients_to_tf1(self, tensors) -> dict[str, np.ndarray]:
        grads = {n: g.numpy() for n, g in zip(self._names, tensors)}
        if self.case.tf2_layout is None:
            return grads
        # the layout may be affine (a bias offset); a gradient maps through its linear part only
        zero = self._to_tf1({n: np.zeros_like(g) for n, g in grads.items()})
        return {n: np.asarray(v) - np.asarray(zero[n]) for n, v in self._to_tf1(grads).items()}

    def train(self, batches):
        if self.options.loop:
            return [float(x) for x in self._step(self._stack(batches)).numpy()]
        return [float(self._call_step(self._tensors(b))) for b in batches]

    def weights(self):
        return self._to_tf1(self._own_weights())

    def timed(self, batch, loop_steps):
        if self.options.loop:
            stacked = self._stack([batch] * loop_steps)
            return Timed(lambda: self._step(stacked).numpy(), steps_per_call=loop_steps)
        tensors = self._tensors(batch)
        if self.options.concrete:
            fn = self._concrete or self._traced.get_concrete_function(tensors)
            return Timed(lambda: fn(tensors).numpy())
        return Timed(lambda: self._step(tensors).numpy())

    def traces(self):
        if not self.options.traced:
            return 0
        return self._traced.experimental_get_tracing_count()

    def _concrete_for(self, batch):
        if self.options.loop:
            return self._traced.get_concrete_function()
        return self._traced.get_concrete_function(self._tensors(batch))

    def graph_def(self, batch):
        if not self.options.traced:
            return None
        return self._concrete_for(batch).graph.as_graph_def()

    def step_graph(self, batch):
        if not self.options.traced or self.options.loop or self.options.partial:
            return None
        return self._concrete_for(batch).graph

    def optimized_graph(self, batch):
        """The step's graph after Grappler, from run metadata of a fresh instantiation of the same step.

        The runtime records a function's optimised graph when it instantiates it (its first call), so a
        new `tf.function` of the same step is instantiated under run metadata; it runs one step.
        """
        if not self.options.traced:
            return None
        fresh = self._wrap(self._entry, **self._signature)
        arg = self._stack([batch]) if self.options.loop else self._tensors(batch)
        concrete = fresh.get_concrete_function(arg)
        context.enable_run_metadata()
        try:
            context.export_run_metadata()  # drop anything recorded before
            concrete(arg)
            meta = context.export_run_metadata()
        finally:
            context.disable_run_metadata()
        graphs = [g.post_optimization_graph for g in meta.function_graphs]
        return max(graphs, key=lambda g: len(g.node)) if graphs else None

    def autograph_functions(self):
        """The step and every method the case's model class defines itself: as written, and AutoGraph's rewrite."""
        if not self.options.traced:
            return []
        own = [getattr(self.model, name) for name, value in vars(type(self.model)).items()
               if inspect.isfunction(value) and (name == "__call__" or not name.startswith("_"))]
        return [(fn.__qualname__, _source(fn), tf.autograph.to_code(fn)) for fn in [self._entry] + own]

    def hlo(self, batch, stage: str = "hlo"):
        if not self.options.jit_compile:
            return None
        arg = self._stack([batch]) if self.options.loop else self._tensors(batch)
        return self._traced.experimental_get_compiler_ir(arg)(stage=stage)


def _source(fn) -> str:
    """The function's source as written (dedented), or why it cannot be read (defined in a string, say)."""
    try:
        return textwrap.dedent(inspect.getsource(fn)).rstrip()
    except (OSError, TypeError) as exc:
        return f"# source not available: {exc}"


def make_runner(name: str, options: ExecutionOptions, case: Case, weights: dict, session_config) -> Runner:
    if options.kind == "tf1-graph":
        return _Tf1Runner(name, options, case, weights, session_config)
    return _Tf2Runner(name, options, case, weights)
