"""The TF1 side: run a TF1 training script unchanged and record its first K training steps.

The optimizer's `compute_gradients`/`apply_gradients` (what `minimize` calls) are observed for the loss, the
gradients and the variables they update (a script that calls `tf.gradients` itself and then `apply_gradients`:
the loss is what `tf.gradients` differentiated); each `Session.run` that fetches that train op is a training step.
Observed without disturbing it: the weights are read before the step (a read consumes nothing), the loss, the
gradients and the batch the step consumed (its feed, and the outputs of any iterator or queue the loss reads)
are fetched in the script's own `Session.run`, and the weights are read after it. Every later read (the noise
floor's replays, the reduction and repeat checks) feeds that batch, so no pipeline hands out an extra one.
After K steps the script is stopped. Runs in its own process with TF1 semantics (`disable_v2_behavior`), which
is what such a script expects; nothing here touches the process that compares.
"""

from __future__ import annotations

import time

import numpy as np
import tensorflow as tf
from tensorflow.python.client import session as _session

from tfcompare.core.gradient_transforms import tf1_transform
from tfcompare.core.graphs import ancestors, read_tensors, static_value
from tfcompare.core.optimizer_replay import tf1_learning_rate, tf1_optimizer
from tfcompare.core.schedules import tf1_text
from tfcompare.scripts.child import (batches, draws, dropout, initialisation, joint_runs, loss_parts, noise,
                                     slots)
from tfcompare.scripts.child.activations import tf1_activations
from tfcompare.scripts.child.inference_mode import tf1_inference_feed
from tfcompare.scripts.child.layouts import find_cells
from tfcompare.scripts.child.record import SideRecord, Variable, forward_op_counts, stats
from tfcompare.scripts.child import train_ops
from tfcompare.scripts.child.train_ops import Stop, op_site, optimizer_patches, runs
from tfcompare.scripts.child.windows import window_ops

__all__ = ["Stop", "TF1Probe", "runs", "feed_name", "optimizer_patches", "op_site", "pipeline_outputs"]

_PASS_THROUGH = {"Identity", "ReadVariableOp", "Cast", "Enter", "Switch", "Merge"}
# ops that hand out the next batch when run: a tf.data iterator, a queue (tf.train.batch, string_input_producer)
_PIPELINE_OPS = {"IteratorGetNext", "IteratorGetNextSync", "QueueDequeue", "QueueDequeueV2", "QueueDequeueMany",
                 "QueueDequeueManyV2", "QueueDequeueUpTo", "QueueDequeueUpToV2"}


def feed_name(key) -> str:
    """A feed_dict key (a placeholder, or its name) as the placeholder's name."""
    return (key if isinstance(key, str) else getattr(key, "name", str(key))).removesuffix(":0")


def pipeline_outputs(loss) -> list:
    """The tensors the loss reads from an input pipeline (an iterator's or a queue's outputs), in graph order:
    fetched with the script's own step, then fed to every read tfcompare makes, so nothing pulls a batch."""
    found = sorted((op for op in ancestors([loss]) if op.type in _PIPELINE_OPS), key=lambda op: op._id)
    return [t for op in found for t in op.outputs]


class TF1Probe:
    """Install with `install()`; the script then runs as usual until `Stop`."""

    def __init__(self, record: SideRecord, steps: int, script: str, dropout_mode: str = dropout.AS_WRITTEN,
                 progress=lambda: None):
        self.record, self.steps, self.script, self.dropout_mode = record, steps, script, dropout_mode
        self.progress = progress  # called after each recorded step (the child saves the steps so far)
        self._replaced: list = []  # --dropout off: what each replaced dropout returned (an Identity in the graph)
        self.found: dict = {}  # loss, train_op, grads_and_vars: see optimizer_patches
        self._run = _session.BaseSession.run
        self._start: list | None = None  # every global variable's value before the first step
        self._fed: list[dict] = []  # each step's feed_dict and pipeline batch, for the noise-floor replays
        self._rate = None  # the tensor the optimizer's apply op is fed as its learning rate
        self._sources: list = []  # the loss's iterator/queue outputs: see pipeline_outputs
        self._drawn: list = []  # the loss's random draws the script made itself: see draws.tf1_draws
        self._state: list = []  # the non-trainable state variables: see _state_of
        self.slots, self._counter = [], None  # the optimizers' slots and the global step: see slots.tf1_state
        self.entry, self.all_variables = 0, []  # the train op of the step (train_ops), every one's variables
        self.joint: list[int] = []  # the entries of a run of several train ops (train_ops.select)
        self.shared = False  # they read each other's variables (joint_runs)
        # set by the child in a timed pair: save the record (the TF2 side starts from it), then time the train op
        self.timing = None

    @property
    def loss(self):
        return self.found.get("loss")

    @property
    def train_op(self):
        return self.found.get("train_op")

    @property
    def grads_and_vars(self) -> list:
        return self.found["grads_and_vars"]

    @property
    def raw_grads(self) -> list:
        """The gradients as computed, before the script's transform (clipping): what is recorded and compared;
        the transform is read as a setting (`gradient_transforms.tf1_transform`)."""
        return self.found["raw_grads"]

    def install(self) -> None:
        """For this whole process (the child that runs the TF1 script)."""
        tf.compat.v1.disable_v2_behavior()
        probe = self

        def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
            if probe.train_op is not None and probe.record.steps < probe.steps:
                train_ops.select(probe, fetches)
            if probe.train_op is None or not probe._trains(fetches):
                return probe._run(self, fetches, feed_dict, options, run_metadata)
            if probe.loss is None:  # gradients from neither compute_gradients nor tf.gradients: the step runs as is
                probe._unknown_loss()
                return probe._run(self, fetches, feed_dict, options, run_metadata)
            unfed = probe._unfed(feed_dict)
            if unfed:  # the update applies gradients gathered in runs before it: its loss is not this run's
                rec = probe.record
                rec.status, rec.tfcompare_caused = "crashed", True
                rec.error = (f"the TF1 script runs its train op without feeding {', '.join(unfed)}, which its loss "
                             "reads: the update applies gradients gathered in earlier runs (gradient accumulation?), "
                             "so tfcompare cannot read the step's loss and gradients in the run that applies them; "
                             "nothing was compared")
                raise Stop
            return probe._step(self, fetches, feed_dict, options, run_metadata)

        for owner, name, value in [*optimizer_patches(self.found), (_session.BaseSession, "run", run)]:
            setattr(owner, name, value)
        if self.dropout_mode == dropout.OFF:
            dropout.switch_off(lambda x: tf.identity(x, name="dropout_off"), self._replaced.append)

    def _unfed(self, feed_dict) -> list[str]:
        """The placeholders the loss reads that this run does not feed (each by its op's name; a fed tensor stops
        the walk: TF1 takes its value, not what computed it)."""
        fed = {getattr(k, "name", k if isinstance(k, str) else None) for k in tf.nest.flatten(list(feed_dict or {}))}
        fed |= {f"{n}:0" for n in list(fed) if isinstance(n, str) and ":" not in n}
        return sorted(t.op.name for t in read_tensors(self.loss, fed)
                      if t.op.type == "Placeholder" and t.name not in fed)

    def _trains(self, fetches) -> bool:
        return runs(fetches, self.train_op)

    def _unknown_loss(self) -> None:
        note = ("the training step's loss cannot be known (the gradients the script applies come from neither "
                "compute_gradients / minimize nor tf.gradients): its steps ran, unobserved")
        if note not in self.record.notes:
            self.record.notes.append(note)

    def _step(self, sess, fetches, feed_dict, options, run_metadata):
        rec, step = self.record, self.record.steps
        if step == 0:  # every optimizer's variables (a GAN's two networks), the first step's own first
            self.all_variables = train_ops.union(self.found)
        variables, grads = self.all_variables, self.raw_grads
        self._sources = pipeline_outputs(self.loss)
        for i in self.joint[1:]:  # the run's other losses may read another pipeline: its batch is fed too
            self._sources += [t for t in pipeline_outputs(train_ops.entries(self.found)[i]["loss"])
                              if all(t is not s for s in self._sources)]
        self._drawn = draws.tf1_draws(self.loss, self.script)
        with noise.quiet():
            if step == 0:
                self.record.gradient_transform = tf1_transform(grads, [g for g, _ in self.grads_and_vars])
                self._start = noise.snapshot(self, sess)
                self._optimizer(sess)
            before = self._run(sess, variables)
            if step == 0:
                self._state_of(variables)
                self.slots, self._counter = train_ops.slot_state(self, sess.graph)
                pre = self._run(sess, self._state) if self._state else []
        # the script's own run, with what the step computes added to its fetches: one batch, one set of draws,
        # one run of its update ops
        order = list(self.joint)  # the reads below run the session too, and `select` resets it for each run
        joint = [train_ops.entries(self.found)[i] for i in order[1:]]  # the run's other, independent train ops
        held = self._held(sess, joint)
        began = time.perf_counter()
        result, loss, grad_values, pulled, rate, later = self._run(
            sess, [fetches, self.loss, grads, self._sources + self._drawn, self._fetched_rate(),
                   [[e["loss"], e["raw_grads"]] for e in joint]], feed_dict, options, run_metadata)
        if step == 0:  # the first Session.run of the train op: Grappler's optimisation of the graph included
            rec.first_call_s = time.perf_counter() - began
        if step == 0:  # the state just before the script's first run: what that run alone changed is compared
            for entry, value in zip(self.record.state, pre):
                self.record.arrays[f"state/init/{entry['key']}"] = np.asarray(value)
        rec.learning_rates.append(self._rate_used(rate))
        # the batch this step consumed, and the numbers it drew: fed to every later read of the step
        feed = {**dict(feed_dict or {}), **dict(zip(self._sources + self._drawn, pulled))}
        self._keep_draws(pulled[len(self._sources):])
        with noise.quiet():
            if self.shared:  # before the first record: the K-th step's record replays the steps (noise.measure)
                rec.joint.append(list(range(step, step + len(order))))
            self._record(sess, step, feed, loss, grad_values, before, variables, held[1:])
            for k, (index, (loss_k, grads_k)) in enumerate(zip(order[1:], later), 1):
                # the next train op of the run, as a step of its own from where the one before it left off
                before = [rec.arrays[f"after/{rec.steps - 1}/{v.key}"] for v in rec.variables]
                train_ops.switch(self, index)
                for i, value in enumerate(pulled[len(self._sources):]):  # the run's draws are each step's
                    rec.arrays[f"draw/{rec.steps}/{i}"] = np.asarray(value)
                rec.learning_rates.append(self._rate_used([]))
                self._record(sess, rec.steps, feed, loss_k, grads_k, before, variables, held[k + 1:])
        return result

    def _held(self, sess, joint: list) -> list[dict]:
        """For a run of several train ops (`train_ops.select`): per train op after the first, the values before
        the run of the variables it writes ({id: value}); the steps recorded before its own read those, not what
        the run left them."""
        if not joint:
            return []
        out = []
        for entry in joint:  # what it writes: what it only reads (the other network) is the run's to change
            mine = train_ops.held_variables(sess.graph, train_ops.written(entry["train_op"]))
            out.append(dict(zip(map(id, mine), self._run(sess, mine))))
        return [{}, *out]

    def _reader(self, sess, held: list[dict]):
        """A read of variables as the session has them, but the ones in `held` at their values there."""
        kept = {k: v for h in held for k, v in h.items()}
        if not kept:
            return lambda fetches: self._run(sess, fetches)
        return lambda fetches: [kept.get(id(f), v) for f, v in zip(fetches, self._run(sess, fetches))]

    def _record(self, sess, step, feed, loss, grad_values, before, variables, held=()) -> None:
        """What the step did: the weights after it, the non-trainable state, its batch and loss; after K steps,
        the noise floor, then `Stop`. `held`: the values of the variables later train ops of the same run change
        (see `_held`), as this step left them."""
        rec = self.record
        read = self._reader(sess, list(held))
        after = read(variables)
        loss = np.asarray(loss)
        if step == 0:
            self._first(sess, feed, before)
            loss = self._at_start(sess, feed, loss)
        for entry, value in zip(rec.state, read(self._state) if self._state else []):
            rec.arrays[f"state/{step}/{entry['key']}"] = np.asarray(value)
        slots.tf1_read(read, self.slots, self._counter, rec, step)
        self._fed.append(feed)
        if rec.step_ops and self.entry not in rec.step_ops and not rec.repeat:
            # another optimizer's first step (a GAN's generator, a second network): its loss may draw where the
            # first's did not (the network with dropout); read twice from the same weights, as the first was
            now = noise.snapshot(self, sess)  # a read that runs update ops (a moving average in the forward pass)
            try:  # is undone, as the first step's reads are
                again = [np.asarray(self._run(sess, self.loss, feed)) for _ in range(2)]
                rec.repeat = noise.drawn(noise.relative(*again))
            finally:
                if now is not None:
                    noise.restore(sess, now)
        rec.step_ops.append(self.entry)
        for (_, var), g in zip(self.grads_and_vars, grad_values):  # the gradients of this step's optimizer
            rec.arrays[f"grad/{step}/{var.op.name}"] = noise.dense(g)
        for v, b, a in zip(rec.variables, before, after):
            rec.arrays[f"before/{step}/{v.key}"] = np.asarray(b)
            rec.arrays[f"after/{step}/{v.key}"] = np.asarray(a)
        for name, value in self._feeds(feed).items():
            rec.arrays[f"feed/{step}/{name}"] = value
        rec.loss_shape = list(loss.shape)
        rec.losses.append(float(loss.sum()))
        self.progress()
        if rec.steps >= self.steps:
            train_ops.finish(self)
            if joint_runs.settle(self, sess):  # several train ops in one run: replayed as TF1's graph reads them
                noise.measure(self, sess)
            if self.timing is not None:  # the script's own train op on its first batch: nothing pulled, fed
                first = train_ops.entries(self.found)[rec.step_ops[0]]["train_op"]
                self.timing(lambda: self._run(sess, first, self._fed[0]))
            raise Stop

    def _state_of(self, trained) -> None:
        """The non-trainable float state (batch-norm moving statistics, moving averages): every global variable
        of rank >= 1 that is not trained and not an optimizer's slot, read like the weights (a read consumes
        nothing). Its values before the first step come from the snapshot. A slot is told by its optimizer, not by
        its name: an ExponentialMovingAverage's shadow is named `<trained>/ExponentialMovingAverage` too, and is
        state the step changes."""
        if self._start is None:
            return
        mine = {v.op.name for v in trained}
        slot_ids = {id(slot) for e in train_ops.entries(self.found) if hasattr(e.get("optimizer"), "get_slot_names")
                    for name in e["optimizer"].get_slot_names() for v in trained
                    if (slot := e["optimizer"].get_slot(v, name)) is not None}
        for var, value in self._start:
            name = var.op.name
            if name in mine or id(var) in slot_ids or not var.dtype.base_dtype.is_floating or np.ndim(value) == 0:
                continue
            key = f"s{len(self._state)}"
            self._state.append(var)
            self.record.state.append({"key": key, "name": name, "shape": list(np.shape(value)), "momentum": None})
            self.record.arrays[f"state/init/{key}"] = np.asarray(value)

    def _at_start(self, sess, feed, loss) -> np.ndarray:
        """The checks that need the first step's starting weights (the loss's reduction, a repeated read), run
        after that step on its batch: every global variable is put back to its value before the step, then to
        its value after it, so the script's next step starts where its own run left it. Returns the first step's
        loss: the run's own, or, where the run's read raced its update (noise.repeat), the loss of the weights
        before it."""
        if self._start is None:
            self.record.reduction_note = "the variables could not be read before the first step"
            return loss
        now = noise.snapshot(self, sess)
        noise.restore(sess, self._start)
        try:
            self.record.repeat, before = noise.repeat(self, sess, feed, loss)
            if before is not None:
                self.record.notes.append(
                    f"TF1's first Session.run returned a loss of {float(np.sum(loss)):.6g}, read in part after the "
                    "same run's update had written the weights (a fetch and an update are ordered by their data "
                    "alone); its loss from the weights before the run, with the same batch and draws, read twice "
                    f"alike, is {float(np.sum(before)):.6g}, the one compared")
                loss = before
            self._reduction(sess, feed, loss)
            if not self.record.repeat:  # a loss that draws random numbers: its parts would be other draws
                parts = loss_parts.find(self.loss)
                self.record.cross_entropy = parts["kind"] or ""
                self.record.arrays.update(loss_parts.read(self._run, sess, feed, parts))
                facts, arrays = tf1_activations(self._run, sess, self.loss, feed, lambda op: op_site(op, self.script))
                self.record.activations = facts
                self.record.arrays.update(arrays)
        finally:
            noise.restore(sess, now)
        self._inference(sess, feed)
        return loss

    def _inference(self, sess, feed) -> None:
        """The loss on this batch in inference mode, at the weights and state the first step left (a read that
        moved state, through UPDATE_OPS made control inputs, is undone)."""
        rec = self.record
        if rec.repeat:
            rec.eval_note = "TF1's loss draws random numbers: its inference mode is not read"
            return
        eval_feed, how, rec.eval_bools = tf1_inference_feed(self._run, sess, feed, ancestors([self.loss]))
        if eval_feed is None:
            rec.eval_note = how
            return
        now = noise.snapshot(self, sess)
        try:
            rec.eval_loss, rec.eval_how = float(np.sum(self._run(sess, self.loss, eval_feed))), how
        except Exception as exc:
            rec.eval_note = f"TF1's loss in inference mode could not be read: {type(exc).__name__}"
        finally:
            noise.restore(sess, now)

    def _fetched_rate(self) -> list:
        """The learning-rate tensor to add to the step's own fetches: read in another run, a rate built under the
        train op's `control_dependencies` (UPDATE_OPS) would run the batch norm's updates a second time, and
        pull a batch from a pipeline. A constant is read without running anything; a rate inside a control flow
        the step builds is not read."""
        rate = self._rate
        if rate is None or static_value(rate) is not None:
            return []
        if getattr(rate.op, "_control_flow_context", None) is not None or not rate.graph.is_fetchable(rate):
            return []
        return [rate]

    def _rate_used(self, fetched: list) -> float | None:
        """The rate this step's update used (a schedule's, at the step's global step)."""
        if self._rate is None:
            return None
        static = static_value(self._rate)
        if static is not None:
            return float(np.asarray(static))
        return float(np.asarray(fetched[0])) if fetched else None

    def _feeds(self, feed: dict) -> dict[str, np.ndarray]:
        drawn = {id(t) for t in self._drawn}  # not a batch: kept as draw/<step>/<i>
        return {feed_name(key): np.asarray(value) for key, value in feed.items() if id(key) not in drawn}

    def _keep_draws(self, values: list) -> None:
        """This step's draws, for TF2's step (draws.TF2Draws); the first step's say what they are."""
        rec = self.record
        found = [{"kind": t.op.type, "site": op_site(t.op, self.script), "shape": list(np.shape(v))}
                 for t, v in zip(self._drawn, values)]
        if not rec.steps:
            rec.draws = found
        elif [d["kind"] for d in found] != [d["kind"] for d in rec.draws]:  # another optimizer's loss draws others
            rec.draws_unmatched = [f"step {rec.steps + 1} draws {len(found)} (the first step {len(rec.draws)})"]
        for i, value in enumerate(values):
            rec.arrays[f"draw/{rec.steps}/{i}"] = np.asarray(value)

    def _optimizer(self, sess) -> None:
        """The optimizer and its settings, read from the graph's `Apply*` op before the first step (a schedule's
        rate at the step's own global step)."""
        side = tf1_optimizer(sess.graph, sess, self.train_op)
        if side is not None:
            self.record.optimizer = {"source": side.source, "kind": side.kind, "settings": side.settings,
                                     "extras": side.extras}
            self._rate = tf1_learning_rate(sess.graph, self.train_op)
            self.record.schedule = tf1_text(self._rate)

    def _first(self, sess, feed, values) -> None:
        """Variables (creation order = graph order), their initial `values`, the feeds, the ops."""
        rec = self.record
        variables = self.all_variables
        use = self._use_order(variables)
        ordered = sorted(range(len(variables)), key=lambda i: variables[i].op._id)
        created = {i: n for n, i in enumerate(ordered)}
        for i, (v, value) in enumerate(zip(variables, values)):
            key = v.op.name
            rec.variables.append(Variable(key=key, name=key, shape=list(np.shape(value)), dtype=v.dtype.base_dtype.name,
                                          site=op_site(v.op, self.script), created=created[i], used=use.get(i),
                                          init=stats(value), scheme=initialisation.tf1_scheme(v, sess)))
            rec.arrays[f"init/{key}"] = np.asarray(value)
        dtypes = {feed_name(k): k.dtype.base_dtype.name for k in feed if hasattr(k, "dtype")}
        for name, value in self._feeds(feed).items():
            kind = batches.kind(value)
            rec.feeds.append({"name": name, "shape": list(value.shape), "dtype": dtypes.get(name, value.dtype.name),
                              "kind": kind,
                              "high": int(value.max()) + 1 if kind in ("int", "ids") and value.size else None,
                              "value": value.item() if kind == "scalar" else None})
        rec.cells = find_cells(rec.variables, sess.graph)
        forward = ancestors([self.loss])
        rec.ops = forward_op_counts(op.type for op in forward)
        rec.windows = window_ops(forward, lambda op: op_site(op, self.script))
        # every optimizer's loss (a second network's dropout counts too)
        every = ancestors([e["loss"] for e in train_ops.entries(self.found) if e.get("loss") is not None] or
                          [self.loss])
        rec.dropout = dropout.fed_rates(self._run, sess, feed, every, lambda op: op_site(op, self.script))
        if self.dropout_mode == dropout.OFF:
            rec.dropout_replaced = sum(1 for t in self._replaced if getattr(t, "op", None) in every)

    def _use_order(self, variables) -> dict[int, int]:
        """Position of each variable's first use on the way from the inputs to the loss (graph order); then, for
        those it does not use, on the way to each other optimizer's loss in turn (a network the first step does
        not read: `align.confirm_later`)."""
        owner = {v.op: i for i, v in enumerate(variables)}
        first: dict[int, int] = {}
        losses = [self.loss] + [e["loss"] for e in train_ops.entries(self.found) if e.get("loss") is not None]
        for op in [o for n, loss in enumerate(losses) for o in sorted(ancestors([loss]), key=lambda o: (n, o._id))]:
            if op.type in _PASS_THROUGH or op in owner:
                continue
            for t in op.inputs:
                source = t.op
                while source not in owner and source.type in _PASS_THROUGH and source.inputs:
                    source = source.inputs[0].op
                if source in owner and owner[source] not in first:
                    first[owner[source]] = len(first)
        ranked = sorted(first, key=first.get)
        return {i: n for n, i in enumerate(ranked)}

    def _reduction(self, sess, feed, loss) -> None:
        """Feed the batch twice: a mean over the batch stays the same, a sum doubles."""
        rec = self.record
        sizes = [np.shape(v)[0] for v in feed.values() if np.ndim(v) >= 1]
        if not sizes:
            rec.reduction_note = "no batch in the feed"
            return
        batch = max(set(sizes), key=sizes.count)
        doubled = {k: (np.concatenate([v, v]) if np.ndim(v) >= 1 and np.shape(v)[0] == batch else v)
                   for k, v in feed.items()}
        try:
            twice = np.asarray(self._run(sess, self.loss, doubled))
        except Exception as exc:  # a placeholder with a fixed batch size
            rec.reduction_note = f"the batch cannot be doubled: {str(exc).splitlines()[0][:160]}"
            return
        once = float(loss.sum())
        rec.reduction_ratio = float(twice.sum()) / once if once else None
