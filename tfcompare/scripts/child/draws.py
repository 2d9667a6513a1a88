"""The random numbers a loss draws in the script's own calls (a VAE's `eps = tf.random_normal(tf.shape(mu))`):
observed in TF1's step and given to TF2's, as TF1's batches are.

Two processes draw other numbers from their own generators, so a faithful rewrite of a VAE could not agree step by
step (pair said "draws random numbers": no verdict). TF1's draws are fetched in the script's own `Session.run`
(nothing more is drawn: the step draws what it always draws) and fed to every later read of that step (the
noise floor's replays), and TF2's calls of the same TF functions, in the same order within its forward pass, return
them (tiled when the batch is doubled, as TF1's feed is). Only direct calls from the script: a dropout's mask
(drawn inside `tf.nn.dropout`) is not one. Where TF2's calls do not match TF1's draws one for one, nothing is
given, and pair says so rather than judge steps that drew other numbers.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import os
import sys
import threading

import numpy as np

from tfcompare.core.graphs import ancestors, static_value

__all__ = ["KINDS", "tf1_draws", "alike", "TF2Draws", "Drawn", "draws_text", "unshared"]

# the stateful random ops a script's `tf.random_normal` / `tf.random_uniform` / `tf.truncated_normal` make, by the
# name of the generated function that makes them
KINDS = {"RandomStandardNormal": "random_standard_normal", "RandomUniform": "random_uniform",
         "TruncatedNormal": "truncated_normal"}
_API = {"RandomStandardNormal": "tf.random.normal", "RandomUniform": "tf.random.uniform",
        "TruncatedNormal": "tf.random.truncated_normal"}
_PASSING = ("python/util/", "python/autograph/", "python/framework/")  # under TensorFlow's folder
_LIBRARIES = ("tensorflow", "keras", "tf_keras", "tfcompare", "numpy")


@functools.lru_cache(maxsize=1)
def _folders() -> tuple[str, tuple[str, ...]]:
    """TensorFlow's folder, and every library's (a frame from one is not the script's)."""
    found = []
    for name in _LIBRARIES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            found.append(os.path.dirname(os.path.abspath(spec.origin)) + os.sep)
    return found[0] if found else os.sep + "tensorflow" + os.sep, tuple(found)


def _passing(filename: str) -> bool:
    """A frame between the script's call and the function it called (dispatch, AutoGraph's converted_call)."""
    tf_folder = _folders()[0]
    return any(os.path.abspath(filename).startswith(tf_folder + p.replace("/", os.sep)) for p in _PASSING)


def _library(filename: str) -> bool:
    return filename.startswith("<frozen") or os.path.abspath(filename).startswith(_folders()[1])


def _random_ops(filename: str) -> bool:
    return os.path.abspath(filename) == os.path.join(_folders()[0], "python", "ops", "random_ops.py")


def tf1_draws(loss, script: str) -> list:
    """The outputs of the random ops the loss reads that the script made by calling a TF random function itself,
    in the order the graph made them."""
    found = []
    for op in sorted(ancestors([loss]), key=lambda o: o._id):
        if op.type not in KINDS or getattr(op, "_control_flow_context", None) is not None or \
                not (op.graph.is_fetchable(op.outputs[0]) and op.graph.is_feedable(op.outputs[0])):
            continue  # inside a tf.cond or a while loop: not fetched nor fed (then pair says it draws)
        frames = list(op.traceback or [])
        mine = [i for i, f in enumerate(frames) if f.filename == script]
        if not mine:
            continue
        inner = [f for f in frames[mine[-1] + 1:] if not _passing(f.filename)]
        if inner and _random_ops(inner[0].filename):
            found.append(op.outputs[0])
    return found


def alike(found: list[dict]) -> str:
    """Why TF1's draws cannot be given by order ("" when they can): two of the same kind and shape, which TF2's
    calls could make in the other order (an equivalent script given swapped draws would differ: a false DIFFER)."""
    seen = [(d["kind"], tuple(d["shape"])) for d in found]
    twins = [k for k in dict.fromkeys(seen) if seen.count(k) > 1]
    if not twins:
        return ""
    kind, shape = twins[0]
    return (f"TF1's step draws {_API.get(kind, kind)} {shape} {seen.count(twins[0])} times, and which of TF2's calls "
            "is which cannot be told apart")


class TF2Draws:
    """Replaces the generated random functions of TF2's process: the i-th direct call of the script within a
    forward pass (a GradientTape's recording) returns TF1's i-th draw of the current step. `kinds`: TF1's
    draws' op types, in order."""

    def __init__(self, kinds: list[str], values: list[list[np.ndarray]]):
        self.kinds, self.values = kinds, values  # values[step][i]
        self.holders: list = []
        self.given = 0  # calls that returned TF1's draw
        self.most = 0  # the most calls one forward pass made
        self.unmatched: list[str] = []  # calls of the script that could not take one (said by pair)
        self._local = threading.local()
        self._originals: list = []
        self.missed = None  # calls given nothing when they ran (a shape TF1's draw cannot fill): they drew

    def install(self) -> None:
        import tensorflow as tf
        from tensorflow.python.ops import gen_random_ops

        self._originals = [(gen_random_ops, name, getattr(gen_random_ops, name)) for name in KINDS.values()]
        self._originals.append((tf.GradientTape, "__enter__", tf.GradientTape.__enter__))
        for kind, name in KINDS.items():
            setattr(gen_random_ops, name, self._patched(kind, getattr(gen_random_ops, name)))
        enter = tf.GradientTape.__enter__
        draws = self

        def tape_enter(tape):
            draws._local.count = 0  # a new forward pass: its draws count from the first again
            return enter(tape)

        tf.GradientTape.__enter__ = tape_enter
        with tf.init_scope():
            self.holders = [tf.Variable(np.asarray(v), trainable=False, shape=tf.TensorShape(None),
                                        name=f"tfcompare_draw_{i}") for i, v in enumerate(self.values[0])]
            self.missed = tf.Variable(0, trainable=False, dtype=tf.int64, name="tfcompare_draws_missed")

    def missing(self) -> list[str]:
        """Why TF1's draws were not all given: calls that could not take one, or fewer calls than TF1's draws."""
        short = [f"{self.most} call(s) in a forward pass where TF1's step draws {len(self.kinds)}"] \
            if 0 < self.most < len(self.kinds) else []
        missed = int(self.missed.numpy()) if self.missed is not None else 0
        ran = [f"{missed} call(s) whose shape, known when they ran, TF1's draw could not fill"] if missed else []
        return self.unmatched + short + ran

    def uninstall(self) -> None:
        """TF's own functions back (a test's process; a pair's child ends instead)."""
        for owner, name, original in self._originals:
            setattr(owner, name, original)

    def set_step(self, step: int) -> None:
        """TF1's draws of `step` (the last recorded one past the end) in the holders the forward passes read."""
        for holder, value in zip(self.holders, self.values[min(step, len(self.values) - 1)]):
            holder.assign(np.asarray(value))

    def _patched(self, kind: str, original):
        draws = self

        def draw(shape, dtype, seed=0, seed2=0, name=None):
            from tensorflow.python.eager import record as tape_lib

            if not tape_lib.could_possibly_record() or not _direct():
                return original(shape, dtype, seed=seed, seed2=seed2, name=name)
            i = getattr(draws._local, "count", 0)
            draws._local.count = i + 1
            draws.most = max(draws.most, i + 1)
            fits = i < len(draws.kinds) and draws.kinds[i] == kind and _fits(shape, draws.values[0][i])
            if not fits:
                what = f"{kind} call {i + 1}"
                if what not in draws.unmatched:
                    draws.unmatched.append(what)
                return original(shape, dtype, seed=seed, seed2=seed2, name=name)
            draws.given += 1
            return _tiled(draws, i, shape, dtype, lambda: original(shape, dtype, seed=seed, seed2=seed2, name=name))

        return draw


def _direct() -> bool:
    """Called by the script itself through TF's random functions (random_ops), not inside a library function
    (`tf.nn.dropout`, an initializer, Keras)."""
    frame = sys._getframe(2)  # draw()'s caller: random_ops
    inner = None
    while frame is not None:
        name = frame.f_code.co_filename
        if not _library(name):
            return inner is not None and _random_ops(inner)
        if not _passing(name):
            inner = name
        frame = frame.f_back
    return False


def _fits(shape, value: np.ndarray) -> bool:
    """TF1's draw can fill the requested shape as far as is known before it runs: the same rank, the same sizes
    past the first, a first size that is a whole multiple of TF1's (a doubled batch)."""
    static = static_value(shape)
    if static is None:
        rank = shape.shape[0] if getattr(shape, "shape", None) is not None and shape.shape.rank == 1 else None
        return rank is None or rank == np.ndim(value)
    static = [int(d) for d in np.atleast_1d(static)] if np.ndim(static) else []
    if len(static) != np.ndim(value):
        return False
    return not static or (static[1:] == list(np.shape(value))[1:] and static[0] % max(np.shape(value)[0], 1) == 0
                          and static[0] >= np.shape(value)[0])


def _tiled(draws, i: int, shape, dtype, original):
    """TF1's i-th draw, repeated along the batch for a doubled batch. Where the requested shape, known only when
    it runs, is not one TF1's draw fills (other sizes past the first), TF2 draws its own and the miss is counted:
    pair then says the draws were not given, never compares them as given."""
    import tensorflow as tf

    value = tf.cast(draws.holders[i].read_value(), dtype)
    if value.shape.rank == 0:
        return value
    shape = tf.cast(shape, tf.int32)
    have = tf.shape(value)
    fits = tf.logical_and(tf.reduce_all(tf.equal(shape[1:], have[1:])),
                          tf.equal(tf.math.floormod(shape[0], have[0]), 0))

    def given():
        flat = tf.reshape(value, [1, -1])
        return tf.reshape(tf.tile(flat, tf.stack([shape[0] // have[0], 1])), shape)

    def own():
        with tf.control_dependencies([draws.missed.assign_add(1)]):
            return tf.identity(original())

    return tf.cond(fits, given, own)


@dataclasses.dataclass(frozen=True)
class Drawn:
    given: bool  # TF2's forward pass took TF1's draws, all of them
    text: str


def draws_text(tf1, tf2) -> Drawn | None:
    """What became of the random numbers TF1's loss draws in the script's own calls, for pair's output; None
    when it draws none."""
    if not tf1.draws:
        return None
    what = ", ".join(f"{_API.get(d['kind'], d['kind'])} {tuple(d['shape'])}" + (f" at {d['site']}" if d.get("site")
                                                                                   else "") for d in tf1.draws)
    mine = f"TF1's loss draws random numbers in the script's own calls ({what})"
    if tf1.draws_unmatched:
        return Drawn(False, f"{mine}, and its steps draw different ones ({tf1.draws_unmatched[0]}), so each side "
                            "drew its own")
    if tf2.draws_unmatched or not tf2.draws_given:
        why = (f"was not given them ({', '.join(tf2.draws_unmatched)})" if tf2.draws_unmatched
               else "made no call of TF's random functions in its forward pass that could take them (a Keras "
                    "random op, or a draw inside a library function)")
        return Drawn(False, f"{mine}; TF2's step {why}, so each side drew its own")
    return Drawn(True, f"random draws: {mine}; TF2's forward pass took TF1's draws of each step in its own calls "
                       "of the same functions, in the same order: the draws are the one thing not compared")


def unshared(tf1, tf2) -> bool:
    """TF1's loss draws in the script's own calls and TF2 was not given them: each side drew its own, so what
    depends on the draws (the loss, the reduction check's ratio, the loss's parts) is not compared as if equal."""
    drawn = draws_text(tf1, tf2)
    return drawn is not None and not drawn.given
