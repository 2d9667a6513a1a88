"""The TF2 probe's gradient tape: each `GradientTape.gradient` of the loss with respect to paired variables is a step.

Before the gradient the loss and the weights are read; after it, the gradients (and, at the first step, the
variables' Keras paths and the confirmed pairing); the next gradient, or the optimizer's apply, reads the weights
after the step. In a probing call (`mode` "loss" or "ops", see `tf2_after_steps`) the gradient ends the call
with `_Probe`, having read the loss or the forward ops (loop bodies, branches and called functions included).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfcompare.core.graphs import ancestors
from tfcompare.scripts.child.align import LATER, PairingError, both_lists, confirm, confirm_later
from tfcompare.scripts.child.layouts import tried
from tfcompare.scripts.child.probe_tf1 import Stop, op_site
from tfcompare.scripts.child.record import forward_op_counts, sparse_rows
from tfcompare.scripts.child.windows import window_ops

__all__ = ["StepObserver"]


class _Probe(BaseException):
    """Ends a probing call at its gradient, before any update."""


class StepObserver:
    """`TF2Probe`'s part that observes the gradient tape: the steps, their losses, gradients and weights."""

    def _install_tape(self) -> None:
        """Patch `GradientTape.gradient`: every gradient with respect to the script's trainable variables."""
        probe = self
        tape_gradient = tf.GradientTape.gradient

        def gradient(tape, target, sources, *args, **kwargs):
            if not probe.busy and not probe.finishing:
                keys = [probe._key(s) for s in tf.nest.flatten(sources)]
                if any(keys):
                    probe._before_gradient(target, keys)  # may start `finishing`: then this gradient is not a step
            if probe.finishing:  # K steps taken, the K-th's update still to come
                if not probe.busy:
                    keys = {probe._key(s) for s in tf.nest.flatten(sources)} - {None}
                    waited = [k for k in range(probe.record.steps) if k not in probe.applied_steps]
                    if waited and keys & probe.step_keys[waited[0]]:  # the next iteration began: it never came
                        raise Stop
                return tape_gradient(tape, target, sources, *args, **kwargs)
            grads = tape_gradient(tape, target, sources, *args, **kwargs)
            if not probe.busy and probe.mode == "normal":
                flat = tf.nest.flatten(sources)
                keys = [probe._key(s) for s in flat]
                if any(keys):
                    if not probe.record.steps:  # a Keras variable's path names it better than its TF name
                        probe._names(keys, flat)
                    probe._after_gradient(keys, tf.nest.flatten(grads))
            return grads

        tf.GradientTape.gradient = gradient

    def _before_gradient(self, target, keys) -> None:
        if self.mode == "loss":
            self.probed = float(np.sum(np.asarray(target)))
            raise _Probe
        if self.mode == "ops":
            forward = list(_with_bodies(ancestors([target])))
            self.probed = forward_op_counts(op.type for op in forward)
            self.probed_windows = window_ops(forward, lambda op: op_site(op, self.record.script))
            raise _Probe
        rec = self.record
        self.collecting = False  # the first step's forward pass is over (activations)
        if rec.steps:
            self._take_after()
            if rec.steps >= self.steps or self.unpaired:
                if self._awaiting():  # both networks' gradients first, then their updates: wait for them
                    self.finishing = True
                    return
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
        if step and self.pending:
            self._confirm_later(keys)
        self.later_reads = []
        if step == 0:
            self._confirm_pairing(keys)
            if self.unpaired:  # the weights are as before the gradient: read every trained one again
                self._pending_before = self._weights()
            else:
                self._own_start()
        for key, grad in zip(keys, grads):
            if step == 0 and key is not None and isinstance(grad, tf.IndexedSlices) and \
                    hasattr(grad.indices, "numpy"):  # how Keras's optimizer will take it (pair.sparse)
                rec.sparse[key] = sparse_rows(grad.indices.numpy())
            if key is not None and key in self.pairs:
                rec.arrays[f"grad/{step}/{key}"] = np.asarray(tf.convert_to_tensor(grad)) if grad is not None \
                    else np.zeros_like(self._pending_before[key])
        self.step_keys.append({k for k in keys if k is not None})
        for key, value in self._pending_before.items():
            rec.arrays[f"before/{step}/{key}"] = value
        rec.losses.append(self._pending_loss)
        if self.draws is not None:  # the next step's forward pass reads the next step's draws
            self.draws.set_step(rec.steps)

    def _awaiting(self) -> bool:
        """Whether a step taken has had no optimizer's apply yet, where its update may still come: inside the
        script's step function (the step wrapper stops the script when the function returns), or in a script that
        applies its updates with Keras optimizers (the next gradient of the same variables stops it)."""
        return bool(self.in_step or self.applies) and any(k not in self.applied_steps
                                                          for k in range(self.record.steps))

    def _take_after_apply(self, variables) -> None:
        """After an optimizer's apply: the weights after the step it applied. That is the last step, or, where the
        script took several gradients before applying any (both networks' under two tapes, then both updates: a
        GAN's step as TensorFlow's tutorials write it), the earliest step not yet applied whose gradient was
        taken of these variables; its weights are read again now (the next gradient read them before this)."""
        last = self.record.steps - 1
        keys = {self._key(v) for v in variables or []} - {None}
        mine = [k for k in range(last + 1) if k not in self.applied_steps and keys and keys <= self.step_keys[k]]
        if not mine and keys and not keys & self.step_keys[last]:
            return  # the update of a gradient taken after the K steps (`finishing`): not a step's
        step = mine[0] if mine else last
        self.applied_steps.add(step)
        if step == last:  # read again where a gradient after it read it before this update
            self._take_after(again=True)
            return
        # this step's weights after it, and those of the later steps already applied (the updates applied in
        # another order than their gradients were taken): the last of them then holds every update
        weights = self._weights()
        for k in [step, *(j for j in range(step + 1, last + 1) if j in self.applied_steps)]:
            for key, value in weights.items():
                self.record.arrays[f"after/{k}/{key}"] = value
            self._state_values(k)
            self._slot_values(k)

    def _take_after(self, again: bool = False) -> None:
        """The weights, state and slots after the last step; `again`: read once more where the step function
        returned (what it changed after its update)."""
        step = self.record.steps - 1
        if step > self.after_taken or (again and step == self.after_taken):
            for key, value in self._weights().items():
                self.record.arrays[f"after/{step}/{key}"] = value
            self._state_values(step)
            self._slot_values(step)
            self.after_taken = step

    def _confirm_pairing(self, keys) -> None:
        rec = self.record
        stepped = [k for k in keys if k is not None]
        if len(self.tf1.variables) > len(self.tf1.weights("grad", 0)):  # TF1 steps several optimizers (a GAN):
            # every variable they train, the other network's as this step reads it (a critic's loss reads the
            # generator)
            stepped += [k for k in self.reads if k in self.pairs and k not in stepped]
            covered = {self.pairs[k] for k in stepped if k in self.pairs}
            # a network this step does not read (two trained side by side in one TF1 run): paired as created
            stepped += [k for k, t in self.pairs.items() if k not in stepped and t not in covered]
        # another optimizer's network this step neither trains nor reads, its names not TF1's (a class built
        # several times): paired as created, checked at the step that first trains it (`_confirm_later`)
        later = frozenset(k for k in stepped if k not in keys and k not in self.reads) \
            if len(self.tf1.variables) > len(self.tf1.weights("grad", 0)) else frozenset()
        if not set(self.tf1.weights("grad", 0)) <= {self.pairs.get(k) for k in keys}:
            later = frozenset()  # built in another order than TF1's: TF1's first network is not this step's
        order = [k for k in self.reads if k in stepped] + [k for k in stepped if k not in self.reads]
        for v in rec.variables:
            v.used = order.index(v.key) if v.key in stepped and v.key in self.reads else None
        mine = [v for v in rec.variables if v.key in stepped]
        pairs = {k: t for k, t in self.pairs.items() if k in stepped}
        try:
            rec.pairing = [list(p) for p in confirm(self.tf1.variables, mine, pairs, later)]
            self.pending = {b: a for a, b, how in rec.pairing if how == LATER}
        except PairingError as exc:
            # not compared; the step still runs once, so the checks that need no pairing (optimizer and its
            # update, loss reduction, forward ops) can say what else differs
            head, _, lists = str(exc).partition("\n")
            said = tried(self.tf1_written)
            rec.status, rec.error = "unpairable", f"{head}; {said}\n{lists}" if said else str(exc)
            self.pairs, self.unpaired = {k: k for k in stepped}, True
            return
        rec.variables = mine + [v for v in rec.variables if v.key not in stepped]
        self.pairs = pairs


    def _confirm_later(self, keys) -> None:
        """The pairs this step trains first (`align.LATER`), checked by the order it reads them; where that
        differs from TF1's, nothing is compared (the steps so far are not said to agree either)."""
        now = {k: self.pending.pop(k) for k in keys if k in self.pending}
        rec = self.record
        trained = set(self.tf1.weights("grad", rec.steps))  # what TF1's step in this place trained
        problem = confirm_later(self.tf1.variables, rec.variables, now, self.later_reads) if now else ""
        if any(t not in trained for t in now.values()):  # the networks built in another order than TF1's
            problem = (f"the variables this step trains first were created in the place of others TF1's step "
                       f"{rec.steps + 1} does not train (the networks built in another order)")
        if now and not problem:
            for pair in rec.pairing:
                if pair[1] in now:
                    pair[2] = f"creation order and order of use agree (at step {rec.steps + 1}, the first to train it)"
        if problem:
            rec.status, self.unpaired = "unpairable", True
            rec.error = (f"cannot pair the variables without guessing: at step {rec.steps + 1}, {problem}\n"
                         + both_lists(self.tf1.variables, rec.variables))


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
