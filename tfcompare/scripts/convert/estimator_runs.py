"""An Estimator's driver code rewritten as TensorFlow's migration guide does: `numpy_input_fn(x, y, ...)` becomes
the tf.data pipeline it was built on (`from_tensor_slices((x, y))`, shuffled with TF1's `queue_capacity` as the
buffer, repeated `num_epochs` times, batched), and `estimator.train(input_fn, steps=N)` a loop over N of its
batches calling the step, the features in the order the model_fn's graph read them (a dict's keys sorted, then
the labels). The model_fn's graph is the model (the child read it at the Estimator's first training step).

`evaluate` is written from the TRAIN spec's streaming metrics (Keras metrics over a predictions method) and its
loss, where nothing random computes them. A TRAIN spec without metrics (the guide's style: `accuracy =
tf.metrics.accuracy(...)` built before `if mode == EVAL: return EstimatorSpec(mode, loss, eval_metric_ops=...)`)
has them named by an EVAL spec the child builds in a graph of its own, where each metric is the TRAIN graph's op of
its name computing the same ops. A metric built only in the EVAL branch, and `predict`, stay marked.
"""

from __future__ import annotations

import ast
import contextlib
import io

from tfcompare.scripts.convert.calls import STREAMING
from tfcompare.scripts.convert.naming import identifier
from tfcompare.scripts.convert.rewrite_state import RewriteState

__all__ = ["EstimatorRuns", "numpy_inputs", "estimator_plan", "add_loss"]

_DEFAULTS = {"batch_size": ast.Constant(128), "num_epochs": ast.Constant(1), "shuffle": None,
             "queue_capacity": ast.Constant(1000)}
_ORDER = ("x", "y", "batch_size", "num_epochs", "shuffle", "queue_capacity", "num_threads")


def _arguments(call: ast.Call) -> dict | None:
    """numpy_input_fn's arguments by name, or None (a `*args` or `**kwargs` call)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) or \
            len(call.args) > len(_ORDER):
        return None
    given = dict(zip(_ORDER, call.args))
    given.update({k.arg: k.value for k in call.keywords})
    return {**_DEFAULTS, **given}


def numpy_inputs(tree) -> dict[str, tuple]:
    """{the name a `numpy_input_fn(...)` is bound to: (a dict's string keys, sorted as tf.nest flattens them, or
    None for one array; whether `y` is given)}: what each batch holds, in the order the model_fn's graph reads it."""
    out = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and _is_numpy_input(node.value)):
            continue
        args = _arguments(node.value)
        if args is None or "x" not in args:
            continue
        x = args["x"]
        keys = None
        if isinstance(x, ast.Dict):
            if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in x.keys):
                continue
            keys = sorted(k.value for k in x.keys)
        out[node.targets[0].id] = (keys, args.get("y") is not None)
    return out


def _is_numpy_input(value) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and \
        value.func.attr == "numpy_input_fn"


class EstimatorRuns(RewriteState):
    """The Estimator rewrites of `statements.Rewriter`."""

    def _estimator(self, s) -> list | None:
        """The statements `s` becomes, or None: not an Estimator's input or run."""
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and \
                _is_numpy_input(s.value) and self.plan.estimators:
            return self._numpy_input(s)
        call = s.value if isinstance(s, (ast.Expr, ast.Assign)) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and
                isinstance(call.func.value, ast.Name) and call.func.value.id in self.plan.estimators):
            return None
        if call.func.attr == "train" and isinstance(s, ast.Expr):
            loop = self._train_loop(call)
            if loop is not None:
                return [ast.copy_location(loop, s)]
        if call.func.attr == "evaluate" and self.plan.estimator_metrics:
            written = self._evaluation(call, s.targets[0] if isinstance(s, ast.Assign) and len(s.targets) == 1
                                       else None)
            if written is not None:
                return [ast.copy_location(n, s) for n in written]
        self.tainted |= self._stores(s) if isinstance(s, ast.Assign) else set()
        return [self._todo(s, f"the Estimator's {call.func.attr}(), its model_fn in a mode tfcompare did not read")]

    def _numpy_input(self, s) -> list:
        name, args = s.targets[0].id, _arguments(s.value)
        shuffle = args.get("shuffle") if args else None
        if args is None or "x" not in args or not (isinstance(shuffle, ast.Constant) and shuffle.value in (True, False)):
            self.tainted.add(name)
            return [self._todo(s, "a numpy_input_fn tfcompare cannot write as a tf.data pipeline")]
        items = ast.Tuple([args["x"], args["y"]], ast.Load()) if args.get("y") is not None else args["x"]
        made = f"{name} = tf.data.Dataset.from_tensor_slices({ast.unparse(items)})"
        text = f".shuffle({ast.unparse(args['queue_capacity'])})" if shuffle.value else ""
        epochs = args["num_epochs"]
        if not (isinstance(epochs, ast.Constant) and epochs.value == 1):
            text += ".repeat()" if isinstance(epochs, ast.Constant) and epochs.value is None else \
                f".repeat({ast.unparse(epochs)})"
        text += f".batch({ast.unparse(args['batch_size'])})"
        self.tainted.discard(name)
        self.estimator_inputs[name] = self.plan.estimator_inputs.get(name)
        new = [ast.copy_location(n, s) for n in ast.parse(f"{made}\n{name} = {name}{text}\n").body]
        new[1].comments_from = -1  # the script's comment above the first of the two
        if self.noted_input:
            return new
        self.noted_input = True
        return [self._note("the Estimator's numpy_input_fn as the tf.data pipeline it was built on (TF1's "
                           "queue_capacity the shuffle buffer)"), *new]

    def _batches(self, call: ast.Call, options: tuple):
        """(what the loop iterates, its target, the batch's values by argument name) of `E.train(input_fn, ...)` or
        `E.evaluate(input_fn, ...)`, or None: an input this rewrite did not write, or an option it does not take."""
        args = dict(zip(("input_fn", *options), call.args))
        args.update({k.arg: k.value for k in call.keywords if k.arg})
        data = args.get("input_fn")
        held = self.estimator_inputs.get(data.id) if isinstance(data, ast.Name) else None
        if held is None or set(args) - {"input_fn", "steps", "max_steps", "name"} or args.get("name") is not None:
            return None
        keys, has_labels = held
        steps = args.get("steps", args.get("max_steps"))  # a fresh model: max_steps counts from 0 as steps does
        source = f"{data.id}.take({ast.unparse(steps)})" if steps is not None else data.id
        features, labels = self.plan.estimator_names
        values = {k: f"{features}[{k!r}]" for k in keys} if keys else {"features": features}
        if has_labels:
            values["labels"] = labels
        return source, f"{features}{f', {labels}' if has_labels else ''}", values

    def _evaluation(self, call: ast.Call, target) -> list | None:
        """`accuracy_metric = tf.keras.metrics.Accuracy()`, a loop updating it from the predictions' method on each
        batch, and the result as Estimator.evaluate's dict (`{'accuracy': ..., 'global_step': ...}`)."""
        found = self._batches(call, ("steps", "hooks", "checkpoint_path", "name"))
        if found is None or "labels" not in found[2]:
            return None
        source, loop_vars, values = found
        lines, updates, results = [], [], []
        loss = self.plan.estimator_loss  # Estimator.evaluate's `loss`: the mean of the batches' losses
        for key, predictions, metric, constructor in self.plan.estimator_metrics + ([loss] if loss else []):
            prefix, args = self.plan.methods.get(predictions, (None, None)) if key != "loss" else predictions
            if prefix is None or any(a not in values for a in args):
                return None
            lines.append(f"{metric} = {constructor}")
            call = f"{prefix}({', '.join(values[a] for a in args)})"
            updates.append(f"    {metric}.update_state({values['labels']}, {call})" if key != "loss" else
                           f"    {metric}.update_state({call})")
            results.append(f"{key!r}: {metric}.result().numpy()")
        code = [*lines, f"for {loop_vars} in {source}:", *updates]
        if target is not None:
            code.append(f"{ast.unparse(target)} = {{{', '.join(results)}, 'global_step': "
                        f"{self.plan.optimizer_name}.iterations.numpy()}}")
            self.tainted -= self._stores(target)
        return ast.parse("\n".join(code) + "\n").body

    def _train_loop(self, call: ast.Call):
        """`for features, labels in input_fn.take(N): train_step(features['images'], labels)`, or None."""
        found = self._batches(call, ("hooks", "steps", "max_steps"))
        if found is None or len(found[2]) != len(self.plan.step_args):
            return None
        source, loop_vars, values = found
        ordered = [values[a] for a in self.plan.step_args] if set(self.plan.step_args) <= set(values) else \
            list(values.values())  # the step's arguments are the batch's parts in the graph's order
        code = f"for {loop_vars} in {source}:\n    {self.plan.step_name}({', '.join(ordered)})\n"
        return ast.parse(code).body[0]


def estimator_plan(module_dict: dict, text: str, feed_tensors: list, names: dict, groups: dict) -> dict:
    """The Plan's Estimator fields for a script that trains an Estimator ({} otherwise), and `targets`: the tensors
    its evaluation needs a method for. The batch tensors the model_fn read (one iterator's outputs) are named in
    `names` after what they hold (`images`, `labels`) where every numpy_input_fn of the script holds the same; the
    TRAIN spec's streaming metrics of the labels batch (`calls.STREAMING`) become Keras metrics over a method of
    their predictions, where nothing random computes those (a live dropout would not be EVAL's graph)."""
    estimators = {k for k, v in module_dict.items() if k.isidentifier() and type(v).__name__ == "Estimator"}
    if not estimators:
        return {}
    inputs = numpy_inputs(ast.parse(text))
    taken = set(module_dict)
    held = {(tuple(keys or ()), has_labels) for keys, has_labels in inputs.values()}
    if len(held) == 1 and len({t.op.name for t in feed_tensors}) == 1:
        keys, has_labels = next(iter(held))
        parts = (list(keys) or ["features"]) + ["labels"] * has_labels
        if len(parts) == len(feed_tensors) and all(t.value_index == i for i, t in enumerate(feed_tensors)):
            names.update({t.name: part for t, part in zip(feed_tensors, parts) if part not in taken})
    owner = next((module_dict[k] for k in sorted(estimators) if getattr(module_dict[k], "_train_spec", None)), None)
    spec = getattr(owner, "_train_spec", None)
    metrics, targets = [], []
    for key, pair in sorted(_metric_ops(owner, spec).items()):
        group = groups.get(pair[1].name) if isinstance(pair, tuple) and len(pair) == 2 else None
        labels, predictions = group.inputs if group is not None and group.kind in STREAMING else (None, None)
        if labels is None or not feed_tensors or labels.name != feed_tensors[-1].name or _draws(predictions):
            metrics = None
            break
        names.setdefault(predictions.name, identifier("predictions", taken))
        targets.append(predictions)
        metrics.append((key, names[predictions.name], identifier(f"{key}_metric", taken), STREAMING[group.kind]))
    return {"estimators": estimators, "estimator_inputs": inputs, "estimator_metrics": metrics,
            "estimator_names": (identifier("features", taken), identifier("labels", taken)), "targets": targets}


def add_loss(estimator: dict, loss, method: str, args: list, module_dict: dict) -> None:
    """Estimator.evaluate's `loss` (the mean of its batches' losses) from the loss's method, where its metrics are
    written and nothing random computes the loss (a live dropout would not be EVAL's graph)."""
    if estimator.get("estimator_metrics") is not None and not _draws(loss):
        estimator["estimator_loss"] = ("loss", (method, args), identifier("loss_mean", set(module_dict)),
                                       "tf.keras.metrics.Mean()")


def _metric_ops(estimator, spec) -> dict:
    """The TRAIN spec's eval_metric_ops; where it has none, the EVAL spec's, each as the TRAIN graph's (value,
    update) of the same names computing the same op types ({} where any differs or the EVAL spec cannot be built).
    The EVAL spec is built in a graph of its own with the training input_fn: nothing runs, and its prints are
    dropped (the script's output is what the script prints)."""
    if spec is None or getattr(spec, "eval_metric_ops", None):
        return dict(getattr(spec, "eval_metric_ops", None) or {})
    import tensorflow as tf

    from tfcompare.core.graphs import ancestors

    def types(t):
        return sorted(op.type for op in ancestors([t]))

    train_graph = spec.loss.graph
    with tf.Graph().as_default(), contextlib.redirect_stdout(io.StringIO()):
        try:
            eval_spec, _ = estimator._spec(estimator._train_input_fn, "eval")
        except Exception:  # noqa: BLE001 - the EVAL spec is a nicety: without it evaluate stays marked
            return {}
        out = {}
        for key, pair in eval_spec.eval_metric_ops.items():
            try:
                ours = tuple(train_graph.get_tensor_by_name(t.name) for t in pair)
            except (KeyError, ValueError, TypeError, AttributeError):
                return {}
            if len(ours) != 2 or any(types(a) != types(b) for a, b in zip(ours, pair)):
                return {}
            out[key] = ours
    return out


def _draws(t) -> bool:
    """Whether a random op computes `t` (a live dropout): the TRAIN graph's value is then not EVAL's."""
    from tfcompare.core.graphs import ancestors

    return any("Random" in op.type for op in ancestors([t]))
