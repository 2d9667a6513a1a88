"""The TF2 probe's variables: each one the script creates, TF1's initial value injected, and the order of reads.

`tf.variable_creator_scope(creator)` sees every variable the script makes: a trainable one is recorded (order,
shape, site, Keras initializer) and, if a TF1 variable provisionally pairs with it (`align.provisional`), it is
created with that TF1 variable's initial value. Reads of a variable before the first step give the order of
use that confirms the pairing. The weights are read, saved and put back without being observed (`busy`).
"""

from __future__ import annotations

import sys
import traceback

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import resource_variable_ops as _rvo

from tfcompare.scripts.child import initialisation, slots
from tfcompare.scripts.child.align import provisional
from tfcompare.scripts.child.layouts import variant_for, virtualise
from tfcompare.scripts.child.record import Variable, stats

__all__ = ["VariableObserver"]


class VariableObserver:
    """`TF2Probe`'s part that creates, finds, reads and restores the script's variables."""

    def _install_reads(self) -> None:
        """Patch variable reads (the order in which the first step uses the trainable variables) and assignments
        (the variables the script gives its own values before its first step: `_own_start`)."""
        probe = self
        read = _rvo.BaseResourceVariable._read_variable_op

        def read_variable_op(var, *args, **kwargs):
            if not probe.busy and probe.mode == "normal" and (probe.record.steps == 0 or probe.pending):
                key = probe.by_id.get(id(var))
                seen = probe.reads if probe.record.steps == 0 else probe.later_reads
                if key is not None and key not in seen:
                    seen.append(key)
            return read(var, *args, **kwargs)

        _rvo.BaseResourceVariable._read_variable_op = read_variable_op
        def assigned(assign):
            def assign_patched(var, *args, **kwargs):
                if not probe.busy and probe.mode == "normal" and probe.record.steps == 0:
                    key = probe.by_id.get(id(var))
                    if key is not None:
                        probe.assigned.add(key)
                return assign(var, *args, **kwargs)
            return assign_patched

        for cls in (_rvo.BaseResourceVariable, _rvo.ResourceVariable):  # each defines its own `assign`
            if "assign" in vars(cls):
                cls.assign = assigned(vars(cls)["assign"])

    def creator(self, next_creator, **kwargs):
        """Record every trainable variable; inject TF1's initial value into its provisional partner."""
        if kwargs.get("trainable") is False or self.busy:
            var = next_creator(**kwargs)
            self.every.append(var)
            if not self.busy:
                self._candidate_state(var)
                self._initial(var)
            return var
        initial = kwargs.get("initial_value")
        if callable(initial):
            initial = initial()
        value = np.asarray(initial.numpy() if hasattr(initial, "numpy") else initial)
        rec = self.record
        key = f"v{len(self.variables)}"
        shape = tuple(value.shape)
        partner = provisional(self.tf1.variables, list(shape), self.made.get(shape, 0))
        taken = self.made.get(shape, 0) >= sum(v.shape == list(shape) for v in self.tf1.variables)
        if (partner is None or taken) and (seen := variant_for(self.tf1_written, list(shape), rec.layouts, self.made)):
            rec.layouts[seen[0]] = seen[1]  # a TF1 cell seen in a Keras layer's layout from here on
            self.tf1 = virtualise(self.tf1_written, rec.layouts)
            partner = provisional(self.tf1.variables, list(shape), self.made.get(shape, 0))
        self.made[shape] = self.made.get(shape, 0) + 1
        if partner is not None:
            self.pairs[key] = partner.key
            kwargs["initial_value"] = self.tf1.arrays[f"init/{partner.key}"].astype(value.dtype)
            self.injected[key] = kwargs["initial_value"]
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
        self._initial(var)
        return var

    def _initial(self, var) -> None:
        """A variable's value at creation, to start the traced replay from (`tf2_traced`); read unobserved (`busy`),
        so the read does not count as the first step's use."""
        busy, self.busy = self.busy, True
        try:
            self.initial_values.append((var, np.array(var.numpy())))
        except Exception:  # created inside a trace: symbolic; the replay then starts from where it is
            pass
        finally:
            self.busy = busy

    def _candidate_state(self, var) -> None:
        """A non-trainable float variable of rank >= 1 (a batch norm's moving mean or variance, say): state a step
        may change. Optimizer variables are left out when the state is read (`_state_values`)."""
        if not var.dtype.is_floating or len(var.shape) == 0 or _made_by_optimizer():
            return  # an optimizer's slot is compared as a slot (see slots), not as the model's state
        owner = _keras_owner()
        self.state_vars.append((var, {"name": getattr(var, "name", "?").removesuffix(":0"), "shape": list(var.shape),
                                      "momentum": getattr(owner, "momentum", None)}, np.asarray(var.numpy())))

    def _state_values(self, step: int) -> None:
        """The state after `step` (from 0); the first time, which variables count (not the optimizer's)."""
        rec = self.record
        if not rec.state and self.state_vars:
            own = set()
            for optimizer in self.optimizers:
                held = getattr(optimizer, "variables", [])  # a method on tf.keras 2.x's legacy optimizers
                own |= {id(slots.backing(v)) for v in (held() if callable(held) else held)}
            for var, facts, initial in self.state_vars:
                if id(var) in own:
                    continue
                key = f"s{len(rec.state)}"
                rec.state.append({"key": key, **facts})
                rec.arrays[f"state/init/{key}"] = initial
                self._state_keys.append((key, var))
        self.busy = True
        try:
            for key, var in self._state_keys:
                rec.arrays[f"state/{step}/{key}"] = np.asarray(var.numpy())
        finally:
            self.busy = False

    def _own_start(self) -> None:
        """The variables the script assigned between creating them and its first step (`set_weights`, `assign`, a
        checkpoint it loads): their values at that step are the script's own initialisation, not the initializer's
        draw, and its steps start from them (pair then judges them against TF1's initial values)."""
        moved = []
        for var in self.record.variables:
            injected, before = self.injected.get(var.key), self._pending_before.get(var.key)
            if injected is None or before is None or np.shape(before) != np.shape(injected):
                continue
            before = np.asarray(before)
            if var.key in self.assigned or not np.array_equal(before, np.asarray(injected, before.dtype)):
                self.record.arrays[f"init/{var.key}"] = before
                var.init, var.scheme = stats(before), {"scheme": "assigned"}
                moved.append(var.name)
        if moved:
            self.record.notes.append(
                f"the TF2 script assigned its own starting values to {len(moved)} variable(s) after creating them "
                f"({', '.join(moved[:4])}{', ...' if len(moved) > 4 else ''}): those values, not the initializers' "
                "draws, are its initialisation, and its steps start from them")

    def _slot_values(self, step: int) -> None:
        """The Keras optimizer's slots of each paired variable after `step` (from 0), in TF1's names (see slots);
        Keras makes them in its first update, so there is no value before the first step."""
        if self.optimizer is None:
            return
        self.busy = True
        try:
            for key, var in self.variables.items():
                if key in self.pairs:
                    held = next((found for o in self.optimizers if (found := slots.tf2_slots(o, var))), {})
                    for name, value in slots.values(held).items():
                        self.record.arrays[slots.key(name, step, key)] = value
            counter = slots.tf2_counter(self.optimizer)
            if counter is not None and (value := slots.counter_value(counter)) is not None:
                self.record.arrays[f"counter/{step}"] = value
                self.record.counter = {"name": "optimizer.iterations", "read_by_rate": counter[1]}
        finally:
            self.busy = False

    def _site(self) -> str:
        frames = [f for f in traceback.extract_stack() if f.filename == self.script]
        return f"line {frames[-1].lineno}" if frames else "?"

    def _key(self, source) -> str | None:
        return self.by_id.get(id(slots.backing(source)))

    def _weights(self) -> dict[str, np.ndarray]:
        self.busy = True
        try:
            return {k: v.numpy() for k, v in self.variables.items() if k in self.pairs}
        finally:
            self.busy = False

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


def _keras_owner():
    """The Keras layer or object creating the variable being created (a frame up the stack), or None."""
    frame = sys._getframe(1)
    for _ in range(40):
        if frame is None:
            return None
        owner = frame.f_locals.get("self")
        if type(owner).__module__.startswith("keras") and hasattr(owner, "add_weight"):
            return owner
        frame = frame.f_back
    return None


def _made_by_optimizer() -> bool:
    """Whether a Keras optimizer is making the variable being created (a slot, its iteration counter)."""
    frame = sys._getframe(1)
    for _ in range(40):
        if frame is None:
            return False
        owner = frame.f_locals.get("self")
        if type(owner).__module__.startswith(("keras", "tf_keras")) and ".optimizers" in type(owner).__module__:
            return True
        frame = frame.f_back
    return False


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
