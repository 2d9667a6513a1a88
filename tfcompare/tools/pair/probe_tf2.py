"""The TF2 side: run a TF2 training script unchanged, with TF1's initial weights and batches, and record its steps.

Observed, in the script's own process: variable creation (`tf.variable_creator_scope`: order, shape, site;
TF1's initial value injected into the provisionally paired variable), variable reads (the order of use),
`GradientTape.gradient` (a gradient of the loss with respect to paired variables is one training step: its
target is the loss), the Keras optimizer's `apply` (what `apply_gradients` and `fit` call) and `Model.fit`.
Step inputs are replaced by TF1's: `fit` gets TF1's batches; a function of the script that takes a gradient
is wrapped (in the compiled code only, the file is unchanged) and its batch arguments are replaced.
`tf.function` bodies run eagerly so that every step can be read: the comparison is of eager numerics.
"""

from __future__ import annotations

import ast
import functools
import sys
import traceback

import numpy as np
import tensorflow as tf
from tensorflow.python.eager import record as _tape
from tensorflow.python.ops import resource_variable_ops as _rvo

from tfcompare.core.graphs import ancestors
from tfcompare.core.optimizer_replay import tf2_optimizer
from tfcompare.tools.pair.align import PairingError, confirm, provisional
from tfcompare.tools.pair.record import SideRecord, Variable, forward_op_counts, stats
from tfcompare.tools.pair import batches, dropout, initialisation
from tfcompare.tools.pair.probe_tf1 import Stop

__all__ = ["TF2Probe", "STEP_WRAPPER", "SubstitutionError", "wrap_steps"]

STEP_WRAPPER = "__tfcompare_step__"


class _Probe(BaseException):
    """Ends a probing call at its gradient, before any update."""


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


def _is_batch(leaf) -> bool:
    return isinstance(leaf, (np.ndarray, tf.Tensor)) and len(leaf.shape) >= 1


class TF2Probe:
    """Install with `install()` (and `creator` as the script's variable creator scope); `finish()` after the
    script stops fills in the probes. Everything observed goes into `record`."""

    def __init__(self, record: SideRecord, tf1: SideRecord, steps: int, script: str,
                 dropout_mode: str = dropout.AS_WRITTEN):
        self.record, self.tf1, self.steps, self.script = record, tf1, steps, script
        self.dropout_mode = dropout_mode
        self.variables: dict[str, tf.Variable] = {}  # trainable, by key
        self.by_id: dict[int, str] = {}
        self.every: list[tf.Variable] = []  # every variable the script made (restored after probes)
        self.pairs: dict[str, str] = {}  # tf2 key -> tf1 key
        self.made: dict[tuple, int] = {}  # trainable variables made so far, per shape
        self.unpaired = False  # the first step showed the variables cannot be paired: stop after it
        self.reads: list[str] = []
        self.busy = False
        self.mode = "normal"  # normal | loss | ops
        self.probed = None
        self.calls = 0
        self.fit_model = None
        self.step_fn = None
        self.step_args = None
        self.after_taken = -1
        self.optimizer = None
        self.mixed = False  # the step's batch arguments cannot all take TF1's feeds: none are replaced

    # --- installation -------------------------------------------------------------------------------------
    def install(self) -> dict:
        """Patch TF and Keras; returns the globals the compiled script needs (the step wrapper)."""
        tf.config.run_functions_eagerly(True)
        probe = self
        tape_gradient = tf.GradientTape.gradient
        read = _rvo.BaseResourceVariable._read_variable_op

        def gradient(tape, target, sources, *args, **kwargs):
            if not probe.busy:
                keys = [probe._key(s) for s in tf.nest.flatten(sources)]
                if any(keys):
                    probe._before_gradient(target, keys)
            grads = tape_gradient(tape, target, sources, *args, **kwargs)
            if not probe.busy and probe.mode == "normal":
                flat = tf.nest.flatten(sources)
                keys = [probe._key(s) for s in flat]
                if any(keys):
                    if not probe.record.steps:  # a Keras variable's path names it better than its TF name
                        probe._names(keys, flat)
                    probe._after_gradient(keys, tf.nest.flatten(grads))
            return grads

        def read_variable_op(var, *args, **kwargs):
            if not probe.busy and probe.mode == "normal" and probe.record.steps == 0:
                key = probe.by_id.get(id(var))
                if key is not None and key not in probe.reads:
                    probe.reads.append(key)
            return read(var, *args, **kwargs)

        tf.GradientTape.gradient = gradient
        _rvo.BaseResourceVariable._read_variable_op = read_variable_op
        self._install_keras()
        if self.dropout_mode == dropout.OFF:  # outermost: the calls never reach _install_dropout's wrappers
            self.record.dropout_replaced = 0
            dropout.switch_off(tf.identity, self._count_replaced)
        return {STEP_WRAPPER: self._step_wrapper}

    def _install_keras(self) -> None:
        try:
            import keras
            from keras.src.optimizers.base_optimizer import BaseOptimizer
        except ImportError:
            return
        probe = self
        apply, fit = BaseOptimizer.apply, keras.Model.fit

        def apply_patched(optimizer, grads, trainable_variables=None):
            out = apply(optimizer, grads, trainable_variables)
            if not probe.busy and probe.mode == "normal" and probe.record.steps:
                probe.optimizer = optimizer
                probe._take_after()
                if probe.record.steps >= probe.steps or probe.unpaired:
                    raise Stop
            return out

        def fit_patched(model, x=None, y=None, batch_size=None, epochs=1, **kwargs):
            x2, y2, size2 = probe._fit_inputs(x, y, batch_size, kwargs)
            probe.fit_model = model
            if x2 is x:  # not substituted
                return fit(model, x, y, batch_size=batch_size, epochs=1, **kwargs)
            own = dict(kwargs, batch_size=batch_size, epochs=1, steps_per_epoch=1)
            return probe._first_call(lambda a, k: fit(model, *a, **k), ((x2, y2), dict(kwargs, batch_size=size2,
                                                                                          epochs=1)), ((x, y), own))

        BaseOptimizer.apply, keras.Model.fit = apply_patched, fit_patched
        self._install_dropout(keras)

    def _count_replaced(self, out) -> None:
        """A replaced dropout call of the first training step: under a recording GradientTape (an evaluation before
        it is not counted, nor a call on symbolic tensors: Keras building a model by calling it on placeholders)."""
        if not self.busy and self.mode == "normal" and not self.record.steps and tf.executing_eagerly() \
                and not tf.is_symbolic_tensor(out) and _tape.could_possibly_record():
            self.record.dropout_replaced += 1

    def _install_dropout(self, keras) -> None:
        """Each dropout the first step calls: a Keras Dropout layer (its rate, and whether it trains) or
        tf.nn.dropout (its rate)."""
        probe = self
        layer_call, nn_dropout = keras.layers.Dropout.call, tf.nn.dropout

        def seen(rate, how, live):
            found = {"rate": rate, "how": how, "live": live}
            first = not probe.busy and probe.mode == "normal" and not probe.record.steps
            if first and found not in probe.record.dropout:
                probe.record.dropout.append(found)

        def call(layer, inputs, training=False):
            seen(float(layer.rate), f"keras Dropout(rate={layer.rate:g}) called with training={bool(training)}",
                 bool(training) and layer.rate > 0)
            return layer_call(layer, inputs, training=training)

        def dropout(x, rate=None, *args, **kwargs):
            try:
                value = float(np.max(np.asarray(rate)))
            except Exception:  # a symbolic rate, in a traced function
                value = None
            seen(value, f"tf.nn.dropout(rate={value if value is not None else '?'})", value is None or value > 0)
            return nn_dropout(x, rate, *args, **kwargs)

        keras.layers.Dropout.call, tf.nn.dropout = call, dropout

    def creator(self, next_creator, **kwargs):
        """Record every trainable variable; inject TF1's initial value into its provisional partner."""
        if kwargs.get("trainable") is False or self.busy:
            var = next_creator(**kwargs)
            self.every.append(var)
            return var
        initial = kwargs.get("initial_value")
        if callable(initial):
            initial = initial()
        value = np.asarray(initial.numpy() if hasattr(initial, "numpy") else initial)
        rec = self.record
        key = f"v{len(self.variables)}"
        shape = tuple(value.shape)
        partner = provisional(self.tf1.variables, list(shape), self.made.get(shape, 0))
        self.made[shape] = self.made.get(shape, 0) + 1
        if partner is not None:
            self.pairs[key] = partner.key
            kwargs["initial_value"] = self.tf1.arrays[f"init/{partner.key}"].astype(value.dtype)
        else:
            kwargs["initial_value"] = value
        var = next_creator(**kwargs)
        name = getattr(var, "name", key).removesuffix(":0")
        rec.variables.append(Variable(key=key, name=name, shape=list(value.shape), dtype=value.dtype.name,
                                      site=self._site(), created=len(self.variables), init=stats(value),
                                      scheme=_keras_initializer()))
        rec.arrays[f"init/{key}"] = value
        self.variables[key] = var
        self.by_id[id(var)] = key
        self.every.append(var)
        return var

    def _site(self) -> str:
        frames = [f for f in traceback.extract_stack() if f.filename == self.script]
        return f"line {frames[-1].lineno}" if frames else "?"

    def _key(self, source) -> str | None:
        var = source
        if not isinstance(var, tf.Variable) and isinstance(getattr(var, "value", None), tf.Variable):
            var = var.value  # a Keras 3 Variable wraps its tf.Variable
        return self.by_id.get(id(var))

    def _weights(self) -> dict[str, np.ndarray]:
        self.busy = True
        try:
            return {k: v.numpy() for k, v in self.variables.items() if k in self.pairs}
        finally:
            self.busy = False

    # --- steps --------------------------------------------------------------------------------------------
    def _before_gradient(self, target, keys) -> None:
        if self.mode == "loss":
            self.probed = float(np.sum(np.asarray(target)))
            raise _Probe
        if self.mode == "ops":
            self.probed = forward_op_counts(op.type for op in _with_bodies(ancestors([target])))
            raise _Probe
        rec = self.record
        if rec.steps:
            self._take_after()
            if rec.steps >= self.steps or self.unpaired:
                raise Stop
        value = np.asarray(target)
        rec.loss_shape = list(value.shape)
        self._pending_loss = float(value.sum())
        self._pending_before = self._weights()

    def _names(self, keys, sources) -> None:
        for key, source in zip(keys, sources):
            path = getattr(source, "path", None)
            if key is not None and isinstance(path, str) and not isinstance(source, tf.Variable):
                next(v for v in self.record.variables if v.key == key).name = path

    def _after_gradient(self, keys, grads) -> None:
        rec, step = self.record, self.record.steps
        if step == 0:
            self._confirm_pairing(keys)
            if self.unpaired:  # the weights are as before the gradient: read every trained one again
                self._pending_before = self._weights()
        for key, grad in zip(keys, grads):
            if key is not None and key in self.pairs:
                rec.arrays[f"grad/{step}/{key}"] = np.asarray(tf.convert_to_tensor(grad)) if grad is not None \
                    else np.zeros_like(self._pending_before[key])
        for key, value in self._pending_before.items():
            rec.arrays[f"before/{step}/{key}"] = value
        rec.losses.append(self._pending_loss)

    def _take_after(self) -> None:
        step = self.record.steps - 1
        if step > self.after_taken:
            for key, value in self._weights().items():
                self.record.arrays[f"after/{step}/{key}"] = value
            self.after_taken = step

    def _confirm_pairing(self, keys) -> None:
        rec = self.record
        stepped = [k for k in keys if k is not None]
        order = [k for k in self.reads if k in stepped] + [k for k in stepped if k not in self.reads]
        for v in rec.variables:
            v.used = order.index(v.key) if v.key in stepped and v.key in self.reads else None
        mine = [v for v in rec.variables if v.key in stepped]
        pairs = {k: t for k, t in self.pairs.items() if k in stepped}
        try:
            rec.pairing = [list(p) for p in confirm(self.tf1.variables, mine, pairs)]
        except PairingError as exc:
            # not compared; the step still runs once, so the checks that need no pairing (optimizer and its
            # update, loss reduction, forward ops) can say what else differs
            rec.status, rec.error = "unpairable", str(exc)
            self.pairs, self.unpaired = {k: k for k in stepped}, True
            return
        rec.variables = mine + [v for v in rec.variables if v.key not in stepped]
        self.pairs = pairs

    # --- inputs -------------------------------------------------------------------------------------------
    def _tf1_batch(self, step: int) -> list[tuple[dict, np.ndarray]]:
        values = self.tf1.batch(step)
        return [(f, values[f["name"]]) for f in self.tf1.feeds if f["kind"] != "scalar" and f["name"] in values]

    def _convert(self, leaves: list, step: int, notes: list[str] | None = None, batch: int | None = None,
                 specs: list | None = None) -> list:
        """TF1's batch of `step` in the format of each TF2 leaf (shape, dtype, label format); None where unmatched.
        `specs` gets, per leaf, the TF1 feed it came from and how it was converted (for a generated case)."""
        feeds = self._tf1_batch(step)
        used, out = set(), []
        for leaf in leaves:
            found, spec = None, None
            if _is_batch(leaf):
                kind, shape = batches.kind(leaf), tuple(leaf.shape)
                dtype = np.dtype(leaf.dtype.as_numpy_dtype if hasattr(leaf.dtype, "as_numpy_dtype") else leaf.dtype)
                for j, (feed, value) in enumerate(feeds):
                    if j in used:
                        continue
                    how = batches.how(value, feed["kind"], kind, shape[1:])
                    if how:
                        found = batches.apply(value, how, shape[1:], dtype)
                        used.add(j)
                        spec = {"feed": feed["name"], "convert": how, "shape": list(shape[1:]), "dtype": dtype.name}
                        if how == "argmax":
                            _add(notes, f"labels: one-hot {tuple(value.shape[1:])} per example in TF1, integer class "
                                        "ids in TF2; TF1's labels were given to TF2 as ids (argmax)")
                        elif how == "onehot":
                            _add(notes, "labels: integer class ids in TF1, one-hot in TF2; TF1's labels were given to "
                                        "TF2 one-hot")
                        if len(value) != (batch or shape[0]):
                            _add(notes, f"TF2's batch of {batch or shape[0]} replaced by TF1's batch of {len(value)}")
                        if not isinstance(leaf, np.ndarray):
                            found = tf.constant(found)
                        break
            out.append(found)
            if specs is not None:
                specs.append(spec)
        return out

    def _step_wrapper(self, fn):
        probe = self

        @functools.wraps(fn)
        def step(*args, **kwargs):
            if probe.fit_model is not None or probe.busy or probe.mode != "normal":
                return fn(*args, **kwargs)
            call, probe.calls = probe.calls, probe.calls + 1
            if call >= probe.tf1.steps:
                return fn(*args, **kwargs)
            leaves = tf.nest.flatten((args, kwargs))
            if not call:
                probe._own(leaves)
            notes = [] if call else probe.record.substitution
            specs = None if call else []
            converted = probe._convert(leaves, call, notes, specs=specs)
            if specs:
                probe.record.inputs = [dict(s, leaf=i) for i, s in enumerate(specs) if s is not None]
            if not any(c is not None for c in converted):
                if not call:
                    notes.append(f"{_name(fn)}'s arguments hold no array shaped like TF1's batch: its inputs are "
                                 "the script's own")
                return fn(*args, **kwargs)
            left = _unmatched(leaves, converted)
            if left or probe.mixed:
                if not call:  # half TF1's examples and half TF2's would break the script or compare nonsense
                    probe.mixed, probe.record.inputs = True, []
                    notes.append(f"{_name(fn)}'s argument {left} matches none of TF1's feeds, so none of its arguments "
                                 "were replaced (replacing only some would mix TF1's examples with TF2's): its inputs "
                                 "are the script's own, and both scripts must read the same data")
                return fn(*args, **kwargs)
            original = (args, kwargs)
            leaves = [c if c is not None else leaf for c, leaf in zip(converted, leaves)]
            args, kwargs = tf.nest.pack_sequence_as((args, kwargs), leaves)
            if not call:
                probe.step_fn, probe.step_args = fn, (args, kwargs)
                probe.record.step_function = _name(fn)
                notes.append(f"the arguments of {_name(fn)} were replaced by TF1's batches")
                return probe._first_call(lambda a, k: fn(*a, **k), (args, kwargs), original)
            return fn(*args, **kwargs)

        return step

    def _fit_inputs(self, x, y, batch_size, kwargs):
        """TF1's first K batches, in the format the script gave `fit`; validation is left out."""
        notes = self.record.substitution
        for key in ("validation_data", "validation_split"):
            if kwargs.pop(key, None):
                notes.append(f"fit's {key} dropped (only training steps are compared)")
        kwargs["shuffle"] = False
        if isinstance(x, tf.data.Dataset):
            template = next(iter(x))
            template = template if isinstance(template, tuple) else (template,)
            leaves = [t for t in template[:2]]
            batch_size = len(leaves[0]) if _is_batch(leaves[0]) else batch_size
            self._own(leaves)
        elif isinstance(x, (np.ndarray, tf.Tensor)) and y is not None:
            self._own([x[:batch_size or 32], y[:batch_size or 32]])
            leaves = [x[:2], y[:2]]
        else:
            notes.append("fit's inputs are neither arrays nor a dataset of (x, y): not substituted")
            return x, y, batch_size
        specs: list = []
        batches = [self._convert(leaves, k, notes if k == 0 else None, batch_size or 32, specs if k == 0 else None)
                   for k in range(min(self.steps, self.tf1.steps))]
        self.record.inputs = [dict(s, leaf=i) for i, s in enumerate(specs) if s is not None]
        if not batches or any(b is None for b in batches[0]):
            notes.append("fit's inputs do not match TF1's feeds: not substituted")
            return x, y, batch_size
        xs, ys = (np.concatenate([np.asarray(b[i]) for b in batches]) for i in (0, 1))
        self.record.step_function = "keras.Model.fit"
        self.step_args = (xs[:len(batches[0][0])], ys[:len(batches[0][1])])
        notes.append("fit's inputs were replaced by TF1's batches, in order, without shuffling")
        if isinstance(x, tf.data.Dataset):
            notes.append("fit was given a dataset; it was replaced by arrays of TF1's batches")
        return xs, ys, len(batches[0][0])

    def _first_call(self, call, substituted, original):
        """The step's first call with TF1's batch; if it fails, the step once more with its own arguments (nothing
        recorded, every variable put back), to say whether tfcompare's substitution or the script failed."""
        try:
            return call(*substituted)
        except (Stop, _Probe):
            raise
        except Exception as exc:
            saved = self._save_all()
            self.busy = True
            try:
                call(*original)
                own = ""
            except Exception as again:
                own = f"{type(again).__name__}: {str(again).splitlines()[0][:200] if str(again) else ''}"
            finally:
                self.busy = False
                self._restore_all(saved)
            if own:  # it fails with its own batch too: the script's own failure
                self.record.substitution.append(f"run again with its own batch (without tfcompare's substitution) "
                                                f"the step fails too ({own}): the failure is the script's own")
                raise
            first = tf.nest.flatten(substituted)
            mine = [np.shape(leaf) for leaf in tf.nest.flatten(original) if _is_batch(leaf)]
            given = [np.shape(leaf) for leaf in first if _is_batch(leaf)]
            self.record.status, self.record.tfcompare_caused = "crashed", True
            raise SubstitutionError(
                f"tfcompare's substitution broke the TF2 step, not the script: given TF1's batch (shapes {given}) it "
                f"fails with {type(exc).__name__}: {str(exc).splitlines()[0][:300] if str(exc) else ''}; run again "
                f"with its own batch (shapes {mine}) it works" + _size_hint(given, mine)) from exc

    def _own(self, leaves: list) -> None:
        """TF2's own first batch, before TF1's replaces it (compared by `inputs`)."""
        for i, leaf in enumerate(leaves):
            if _is_batch(leaf):
                self.record.arrays[f"own/{i}"] = np.asarray(leaf)

    # --- after the steps ----------------------------------------------------------------------------------
    def finish(self) -> None:
        """The last step's weights (if the script ended first), the reduction and op-trace probes, the optimizer."""
        rec = self.record
        if rec.steps:
            self._take_after()
        if self.optimizer is not None:
            side = tf2_optimizer(self.optimizer)
            if side is not None:
                rec.optimizer = {"source": side.source, "kind": side.kind, "settings": side.settings,
                                 "extras": side.extras}
            try:
                import keras
                rec.optimizer_config = keras.optimizers.serialize(self.optimizer)
            except Exception:
                pass
        if rec.steps and self.step_fn is None and self.fit_model is None:
            rec.substitution.append("TF2's step inputs were not replaced: its gradient is taken outside a function "
                                    "(inline in a loop), so both scripts must read the same data")
        if not rec.steps:
            return
        if self.step_args is None:
            rec.reduction_note = "the gradient is taken outside any function tfcompare can call again"
            rec.ops_note = "no step function to trace"
            return
        saved = self._save_all()
        try:
            self._probe_reduction(self.step_args)
            self._probe_ops(self.step_args)
        finally:
            self._restore_all(saved)

    def _call_for_probe(self, args):
        """One call of the step (or Keras's train_step) that ends at its gradient."""
        if self.fit_model is not None:
            return self.fit_model.train_step(args)
        fn = getattr(self.step_fn, "python_function", self.step_fn)
        call_args, call_kwargs = args
        return fn(*call_args, **call_kwargs)

    def _probe_reduction(self, args) -> None:
        rec = self.record

        def doubled(leaf):
            if not _is_batch(leaf):
                return leaf
            out = np.concatenate([np.asarray(leaf)] * 2)
            return out if isinstance(leaf, np.ndarray) else tf.constant(out)

        try:
            once = self._probe("loss", args)
            twice = self._probe("loss", tf.nest.map_structure(doubled, args))
            rec.reduction_ratio = twice / once if once else None
        except Exception as exc:
            rec.reduction_note = f"the batch cannot be doubled: {str(exc).splitlines()[0][:160]}"

    def _probe_ops(self, args) -> None:
        rec = self.record
        tf.config.run_functions_eagerly(False)
        try:
            traced = tf.function(lambda a: self._call_for_probe(a))
            self._probe("ops", args, lambda a: traced.get_concrete_function(a))
            rec.ops = self.probed
            added = len(getattr(self.fit_model, "losses", None) or [])  # kernel_regularizer / add_loss terms
            if added:
                rec.ops["regularisation (Keras layer losses)"] = added
        except Exception as exc:
            rec.ops_note = f"the step could not be traced: {str(exc).splitlines()[0][:160]}"
        finally:
            tf.config.run_functions_eagerly(True)

    def _probe(self, mode, args, call=None):
        self.mode, self.probed = mode, None
        try:
            (call or self._call_for_probe)(args)
        except _Probe:
            return self.probed
        finally:
            self.mode = "normal"
        raise RuntimeError("the step took no gradient")

    def _save_all(self):
        self.busy = True
        try:
            return [(v, v.numpy()) for v in self.every if hasattr(v, "assign")]
        finally:
            self.busy = False

    def _restore_all(self, saved) -> None:
        self.busy = True
        try:
            for var, value in saved:
                var.assign(value)
        finally:
            self.busy = False


_FUNCTIONAL = {"While": ("cond", "body"), "StatelessWhile": ("cond", "body"), "If": ("then_branch", "else_branch"),
               "StatelessIf": ("then_branch", "else_branch"), "PartitionedCall": ("f",),
               "StatefulPartitionedCall": ("f",)}


def _with_bodies(ops, depth: int = 0):
    """The ops, and the ops inside each loop body, branch or called function among them (a Keras LSTM's step runs
    in a While body): each counted once, as TF1's graph holds its loop's ops once."""
    for op in ops:
        yield op
        if depth > 5 or op.type not in _FUNCTIONAL:
            continue
        for attr in _FUNCTIONAL[op.type]:
            try:
                name = op.get_attr(attr).name
                body = op.graph._get_function(name)
            except Exception:
                continue
            if body is not None and getattr(body, "graph", None) is not None:
                yield from _with_bodies(body.graph.get_operations(), depth + 1)


class SubstitutionError(Exception):
    """TF1's batch, put into TF2's step by tfcompare, made the step fail where its own batch does not."""


def _unmatched(leaves: list, converted: list) -> str:
    """The first batch argument (its leading dimension the batch's) that took no TF1 feed; "" when none."""
    sizes = [leaf.shape[0] for leaf, c in zip(leaves, converted) if c is not None]
    if not sizes:
        return ""
    for i, (leaf, c) in enumerate(zip(leaves, converted)):
        if c is None and _is_batch(leaf) and leaf.shape[0] in sizes:
            return f"#{i} {tuple(leaf.shape)} {np.dtype(getattr(leaf.dtype, 'as_numpy_dtype', leaf.dtype)).name}"
    return ""


def _size_hint(given: list, mine: list) -> str:
    one = {s[0] for s in given if s}
    two = {s[0] for s in mine if s}
    if one and two and one != two:
        return (f": the step depends on its own batch size ({', '.join(map(str, sorted(two)))} in TF2, "
                f"{', '.join(map(str, sorted(one)))} in TF1), so give both scripts the same batch size to compare them")
    return ""


def _keras_initializer() -> dict | None:
    """The Keras initializer of the keras.Variable being created (a frame up the stack), as a scheme."""
    frame = sys._getframe(1)
    for _ in range(40):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        initializer = getattr(owner, "_initializer", None) or frame.f_locals.get("initializer")
        if type(owner).__module__.startswith("keras") and callable(initializer):
            return initialisation.keras_scheme(initializer)
        frame = frame.f_back
    return None


def _name(fn) -> str:
    inner = getattr(fn, "python_function", fn)
    code = getattr(inner, "__code__", None)
    return f"{getattr(inner, '__name__', 'step')}()" + (f" (line {code.co_firstlineno})" if code else "")


def _add(notes, text) -> None:
    if notes is not None and text not in notes:
        notes.append(text)
