"""Which optimizer setting explains a difference in the update: replay the same gradients through both sides.

When forward and gradients agree but the steps do not, the two sides update differently. TF1's optimizer is
read from its graph (the `Apply*` op and the constants it is fed: learning rate, betas, epsilon, ...), TF2's
from the object (a Keras optimizer's `get_config()`, or one of tfcompare's TF1-exact optimizers). Both are
then run on fresh copies of the initial weights with the same gradients for K steps; each setting whose
values differ is set to TF1's value in turn, and the one that brings the weights back together is named
with its measured effect. What no setting explains is a formula difference, stated where one is known
(checked against Keras 3's source). A learning-rate schedule (a Keras schedule's config dict, a TF1 decay op) is
no number: each side's replay uses the learning rate each of its steps actually used, where it was recorded.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping

import numpy as np
import tensorflow as tf

from tfcompare.core import optimizers as exact
from tfcompare.core.graphs import ancestors, static_value
from tfcompare.core.optimizer_formulas import FORMULAS, formula
from tfcompare.core.schedules import is_schedule, setting_text

__all__ = ["OptimizerSide", "Replay", "FORMULAS", "tf1_optimizer", "tf1_learning_rate", "tf2_optimizer", "replay"]

# TF1 apply op -> (kind, {setting: input index}); the same order with or without the "Resource" prefix
_TF1_OPS = {
    "ApplyGradientDescent": ("sgd", {"learning_rate": 1}),
    "ApplyMomentum": ("momentum", {"learning_rate": 2, "momentum": 4}),
    "ApplyAdam": ("adam", {"learning_rate": 5, "beta1": 6, "beta2": 7, "epsilon": 8}),
    "ApplyRMSProp": ("rmsprop", {"learning_rate": 3, "decay": 4, "momentum": 5, "epsilon": 6}),
    "ApplyCenteredRMSProp": ("rmsprop", {"learning_rate": 4, "decay": 5, "momentum": 6, "epsilon": 7}),
    "ApplyAdagrad": ("adagrad", {"learning_rate": 2}),
    "ApplyAdadelta": ("adadelta", {"learning_rate": 3, "rho": 4, "epsilon": 5}),
}
# Keras config key -> the TF1 name of the same setting
_KERAS_KEYS = {"learning_rate": "learning_rate", "momentum": "momentum", "nesterov": "nesterov", "beta_1": "beta1",
               "beta_2": "beta2", "epsilon": "epsilon", "rho": "decay", "centered": "centered",
               "initial_accumulator_value": "initial_accumulator"}
_KERAS_ONLY = ("weight_decay", "clipnorm", "clipvalue", "global_clipnorm", "amsgrad", "use_ema")


@dataclasses.dataclass
class OptimizerSide:
    """One side's optimizer: its kind (sgd, momentum, adam, rmsprop, adagrad, adadelta), settings in TF1's
    names."""

    source: str
    kind: str
    settings: dict[str, Any]
    extras: dict[str, Any] = dataclasses.field(default_factory=dict)  # Keras-only settings that are on

    def __str__(self):
        shown = ", ".join(f"{k}={_fmt(v)}" for k, v in {**self.settings, **self.extras}.items())
        return f"{self.source}({shown})"


@dataclasses.dataclass
class Replay:
    """The two optimizers, the weight difference after replaying the same gradients, and what explains it."""

    tf1: OptimizerSide
    tf2: OptimizerSide
    steps: int
    difference: float | None  # max |w_tf2 - w_tf1| / max |w_tf1| after the steps
    explained_by: list[dict] = dataclasses.field(default_factory=list)  # setting, tf1, tf2, difference_after
    remaining: str = ""

    def to_json(self) -> dict:
        return {"tf1": dataclasses.asdict(self.tf1), "tf2": dataclasses.asdict(self.tf2), "steps": self.steps,
                "difference": self.difference, "explained_by": self.explained_by, "remaining": self.remaining}

    def line(self) -> str:
        head = f"TF1 {self.tf1} vs TF2 {self.tf2}"
        if self.difference is None:
            return f"{head}: {self.remaining}"
        found = "; ".join(f"{e['setting']} ({_fmt(e['tf1'])} in TF1, {_fmt(e['tf2'])} in TF2) accounts for it: with "
                          f"TF1's value the difference is {e['difference_after']:.2g}" for e in self.explained_by)
        replayed = (f"the same gradients replayed through both for {self.steps} steps leave the weights "
                    f"{self.difference:.2g} apart (relative)")
        return f"{head}; {replayed}" + (f"; {found}" if found else "") + (f"; {self.remaining}" if self.remaining else "")


def _fmt(v) -> str:
    return f"{v:g}" if isinstance(v, float) else setting_text(v) if isinstance(v, dict) else str(v)


def _setting(t, session) -> float:
    """A constant setting read without running the graph: a train op built under `control_dependencies`
    (UPDATE_OPS) gives its constants control inputs that wait on the fed batch."""
    value = static_value(t)  # left feedable: the noise floor's replays feed these settings nudged
    return float(session.run(t) if value is None else value)


def _apply_op(graph, train_op=None):
    """The first optimizer apply op of the graph, or of `train_op` (a GAN's two optimizers: each its own)."""
    below = None if train_op is None else ancestors([train_op])
    return next((op for op in graph.get_operations() if op.type.removeprefix("Resource") in _TF1_OPS
                 and (below is None or op in below)), None)


def tf1_learning_rate(graph, train_op=None):
    """The tensor the TF1 optimizer's apply op is fed as its learning rate (a constant, or a schedule's output)."""
    op = _apply_op(graph, train_op)
    return None if op is None else op.inputs[_TF1_OPS[op.type.removeprefix("Resource")][1]["learning_rate"]]


def tf1_optimizer(graph, session, train_op=None) -> OptimizerSide | None:
    """The TF1 optimizer in `graph` (of `train_op`), its settings read from the constants its apply op is fed (a
    schedule's learning rate as it is at the first step)."""
    op = _apply_op(graph, train_op)
    if op is None:
        return None
    name = op.type.removeprefix("Resource")
    kind, inputs = _TF1_OPS[name]
    settings = {k: _setting(op.inputs[i], session) for k, i in inputs.items()}
    if kind == "momentum":
        settings["nesterov"] = bool(op.get_attr("use_nesterov"))
    if kind == "rmsprop":
        settings["centered"] = name == "ApplyCenteredRMSProp"
    if kind == "adagrad":
        settings["initial_accumulator"] = _slot_initial(graph, session, op.inputs[1].op)
    sources = {"sgd": "GradientDescentOptimizer", "momentum": "MomentumOptimizer", "adam": "AdamOptimizer",
               "rmsprop": "RMSPropOptimizer", "adagrad": "AdagradOptimizer", "adadelta": "AdadeltaOptimizer"}
    return OptimizerSide(f"tf.compat.v1.train.{sources[kind]}", kind, settings)


def _slot_initial(graph, session, handle_op) -> float:
    for v in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES):
        if v.op is handle_op or getattr(v, "handle", None) is not None and v.handle.op is handle_op:
            return float(np.asarray(session.run(v.initial_value)).flat[0])
    return 0.1  # TF1's default


def tf2_optimizer(optimizer) -> OptimizerSide | None:
    """A Keras optimizer (from its config) or one of tfcompare's TF1-exact optimizers (from its attributes)."""
    if optimizer is None:
        return None
    cls = type(optimizer)
    if cls.__module__ == exact.__name__:
        kind = cls.__name__.lower()
        settings = {k: v for k, v in vars(optimizer).items() if isinstance(v, (int, float, bool)) and not k.startswith("_")}
        settings = {{"use_nesterov": "nesterov", "initial_accumulator_value": "initial_accumulator"}.get(k, k): v
                    for k, v in settings.items()}
        return OptimizerSide(f"tfcompare.{cls.__name__}", kind, settings)
    if not hasattr(optimizer, "get_config"):
        return None
    config = optimizer.get_config()
    kind = cls.__name__.lower()
    if kind == "sgd" and config.get("momentum"):
        kind = "momentum"
    settings = {}
    for key, ours in _KERAS_KEYS.items():
        if key in config and not (kind == "sgd" and key in ("momentum", "nesterov")):
            value = config[key]
            settings[ours] = float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    if kind == "adadelta" and "decay" in settings:  # Keras's rho is TF1's rho here, not RMSProp's decay
        settings["rho"] = settings.pop("decay")
    extras = {k: config[k] for k in _KERAS_ONLY if config.get(k) not in (None, False, 0)}
    legacy = ".legacy" if ".legacy." in cls.__module__ else ""  # tf.keras 2.x's optimizer_v2 classes
    if legacy and config.get("decay"):  # optimizer_v2's time-based decay of the learning rate
        extras["decay (learning-rate decay per step)"] = config["decay"]
    return OptimizerSide(f"{cls.__module__.split('.')[0]}.optimizers{legacy}.{cls.__name__}", kind, settings,
                         extras)


def _tf1_exact(side: OptimizerSide, variables):
    s = side.settings
    if side.kind == "sgd":
        return exact.SGD(s["learning_rate"], variables)
    if side.kind == "momentum":
        return exact.Momentum(s["learning_rate"], variables, s["momentum"], s.get("nesterov", False))
    if side.kind == "adam":
        return exact.Adam(s["learning_rate"], variables, s["beta1"], s["beta2"], s["epsilon"])
    if side.kind == "rmsprop":
        return exact.RMSProp(s["learning_rate"], variables, s["decay"], s["momentum"], s["epsilon"], s["centered"])
    if side.kind == "adadelta":
        return exact.Adadelta(s["learning_rate"], variables, s["rho"], s["epsilon"])
    return exact.Adagrad(s["learning_rate"], variables, s.get("initial_accumulator", 0.1))


def _run(make, weights: Mapping[str, np.ndarray], grads: Mapping[str, np.ndarray], steps: int,
         rates: list | None = None) -> list[np.ndarray]:
    """`steps` updates by the optimizer `make` builds; `rates`: the learning rate of each step (None: its own)."""
    variables = [tf.Variable(np.array(weights[n], copy=True)) for n in grads]
    optimizer = make(variables)
    gradients = [tf.constant(g) for g in grads.values()]
    for k in range(steps):
        if rates and k < len(rates) and rates[k] is not None:
            optimizer.learning_rate = rates[k]
        if hasattr(optimizer, "apply_gradients"):
            optimizer.apply_gradients(zip(gradients, variables))
        else:
            optimizer.apply(gradients, variables)
    return [v.numpy() for v in variables]


def _distance(a: list[np.ndarray], b: list[np.ndarray]) -> float:
    scale = max((float(np.max(np.abs(x))) for x in b if x.size), default=0.0) or 1.0
    return max((float(np.max(np.abs(x.astype(np.float64) - y))) for x, y in zip(a, b) if x.size), default=0.0) / scale


def _close(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool)
                      and bool(np.isclose(a, b, rtol=1e-6, atol=0)))


def _rates_text(rates: list) -> str:
    return ", ".join("?" if r is None else f"{r:.4g}" for r in rates)


def replay(tf1: OptimizerSide, tf2: OptimizerSide, tf2_object, weights: Mapping[str, np.ndarray],
           grads: Mapping[str, np.ndarray], steps: int, rtol: float,
           rates: tuple[list, list] | None = None) -> Replay:
    """Replay `grads` for `steps` steps through both optimizers from `weights`; name the setting that explains
    the difference (or the formula, where no setting does). `rates`: (TF1's, TF2's) learning rate per step as
    each script used it, where recorded: TF1's replay is fed its own (a TF1 schedule is a tensor fed to the apply
    op), TF2's Keras schedule runs as configured; the learning rate differs when those rates do."""
    out = Replay(tf1, tf2, steps, None)
    if tf1.kind != tf2.kind:
        out.remaining = f"different optimizers ({tf1.kind} in TF1, {tf2.kind} in TF2)"
        return out
    tf1_rates, tf2_rates = (list(r[:steps]) for r in rates) if rates else ([], [])
    reference = _run(lambda vs: _tf1_exact(tf1, vs), weights, grads, steps, tf1_rates)

    def run_tf2(overrides: dict):
        own = tf1_rates if "learning_rate" in overrides else tf2_rates
        if type(tf2_object).__module__ == exact.__name__:
            side = dataclasses.replace(tf2, settings={**tf2.settings, **overrides})
            return _run(lambda vs: _tf1_exact(side, vs), weights, grads, steps, own)
        config = dict(tf2_object.get_config())
        back = {**{v: k for k, v in _KERAS_KEYS.items()}, "rho": "rho"}
        config.update({back[k]: v for k, v in overrides.items()})
        # a Keras schedule computes its own rate from the optimizer's iterations; only a number can be set
        fed = own if "learning_rate" in overrides else None
        return _run(lambda vs: type(tf2_object).from_config(config), weights, grads, steps, fed)

    out.difference = _distance(run_tf2({}), reference)
    if out.difference <= rtol:
        out.remaining = "the optimizers agree on replayed gradients; the difference is in the step around them"
        return out
    differing = {k: v for k, v in tf1.settings.items() if k in tf2.settings and not _close(v, tf2.settings[k])}
    shown = {k: (v, tf2.settings.get(k)) for k, v in differing.items()}
    lr_one, lr_two = tf1.settings.get("learning_rate"), tf2.settings.get("learning_rate")
    if "learning_rate" in tf1.settings and (is_schedule(lr_one) or is_schedule(lr_two)) and tf1_rates and tf2_rates:
        known = [(a, b) for a, b in zip(tf1_rates, tf2_rates) if a is not None and b is not None]
        if any(not _close(float(a), float(b)) for a, b in known):
            differing["learning_rate"] = lr_one
            shown["learning_rate"] = (f"{_rates_text(tf1_rates)} per step", f"{_rates_text(tf2_rates)} per step "
                                                                              f"({setting_text(lr_two)})")
        else:
            differing.pop("learning_rate", None)
    for key, value in differing.items():
        after = _distance(run_tf2({key: value}), reference)
        if after < out.difference / 2:
            out.explained_by.append({"setting": key, "tf1": shown[key][0], "tf2": shown[key][1],
                                     "difference_after": after})
    out.explained_by.sort(key=lambda e: e["difference_after"])
    left = _distance(run_tf2(differing), reference) if differing else out.difference
    if left > rtol:
        notes = [f"Keras-only settings on: {', '.join(tf2.extras)}"] if tf2.extras else []
        differs = formula(tf2.kind, tf1_rates)
        if differs and not type(tf2_object).__module__ == exact.__name__:
            notes.append(differs)
        out.remaining = (f"with every setting matched the weights are still {left:.2g} apart"
                         + (f": {'; '.join(notes)}" if notes else ""))
    return out
