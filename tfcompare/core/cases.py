"""The case contract: one computation written twice, once as a TF1 graph and once as a TF2 module.

A case is plain data plus four callables. The harness owns everything else: it creates the
`tf.compat.v1.Graph`, loads the seeded weights into both versions, decides whether the TF2 step
is wrapped in `tf.function`, and times and compares the modes.

```
weights = case.init_weights(np.random.default_rng(seed))     # dict name -> ndarray, shared by all modes
batch   = case.make_batch(np.random.default_rng(seed), n)    # dict input name -> ndarray

with tf.compat.v1.Graph().as_default():                      # TF1: the harness enters the graph
    parts = case.build_graph(case.inputs)                    # placeholders, loss, train_op, variables
model = case.make_model(weights)                             # TF2: a tf.Module (see eager_models)
model.train_step(batch)                                      # traceable: harness may wrap it in tf.function
```
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

__all__ = ["InputSpec", "GraphParts", "WeightLayout", "Case", "CaseError", "case_source", "find_case", "load_cases_file"]

_NAME_RE = re.compile(r"^[a-z][a-z0-9_\-]*$")
_DTYPES = ("float32", "float64", "int32", "int64")


class CaseError(ValueError):
    """A case (built-in or from a user's cases file) that does not follow the contract."""


@dataclasses.dataclass(frozen=True)
class InputSpec:
    """One input of a case: its shape without the batch dimension, its dtype, which dims vary.

    `varying` lists indices into `shape` (0 = first dim after the batch) whose size may change
    from batch to batch; the batch dimension itself always may.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"
    varying: tuple[int, ...] = ()
    high: int | None = None  # integer inputs (class labels): values are drawn from [0, high) by the default batch

    def __post_init__(self):
        if self.dtype not in _DTYPES:
            raise CaseError(f"input {self.name!r}: dtype {self.dtype!r} is not one of {', '.join(_DTYPES)}")
        if any((not isinstance(d, int)) or d <= 0 for d in self.shape):
            raise CaseError(f"input {self.name!r}: shape {self.shape!r} must hold positive integers")
        if self.high is not None and (not isinstance(self.high, int) or self.high < 1 or not self.dtype.startswith("int")):
            raise CaseError(f"input {self.name!r}: high={self.high!r} must be a positive integer, on an integer input")
        bad = [i for i in self.varying if not 0 <= i < len(self.shape)]
        if bad:
            raise CaseError(f"input {self.name!r}: varying dims {bad} are outside shape {self.shape!r}")

    def signature_shape(self) -> tuple[int | None, ...]:
        """Shape with `None` for the batch dim and every varying dim (placeholders, input_signature)."""
        return (None,) + tuple(None if i in self.varying else d for i, d in enumerate(self.shape))


@dataclasses.dataclass(frozen=True)
class GraphParts:
    """What a TF1 builder returns: the tensors the harness feeds, fetches and loads weights into.

    `variables` maps the same names as the case's `init_weights` to the graph's variables;
    `train_op` applies one `tf.compat.v1.train` optimizer step.
    """

    inputs: Mapping[str, Any]
    output: Any
    loss: Any
    train_op: Any
    variables: Mapping[str, Any]


@dataclasses.dataclass(frozen=True)
class WeightLayout:
    """How the TF2 side stores the case's weights when its layout differs from TF1's (an LSTM's fused kernel and
    gate order against Keras's kernel/recurrent kernel, say).

    `to_tf2`: `{init_weights name: array} -> {TF2 name: array}`, what `make_model` receives and what the TF2
    model's `variables_by_name` is keyed by. `to_tf1`: the inverse, applied to the TF2 side's weights (and,
    without its constant part, to its gradients) before they are compared with TF1's. The harness checks
    that `to_tf1(to_tf2(w))` gives back `w`.
    """

    to_tf2: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]
    to_tf1: Callable[[dict[str, np.ndarray]], dict[str, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class Case:
    """One computation written twice. See the module docstring for how the harness uses it.

    Args:
        name: registry key and CLI choice (lower case, digits, `-` and `_`).
        description: one line for `tfcompare list`.
        inputs: the inputs the step takes (features and labels alike).
        init_weights: `rng -> {name: ndarray}`; every mode starts from these values. Default: the TF1 graph's
            own initializers, run once with a seed drawn from `rng`.
        make_batch: `(rng, batch_size) -> {input name: ndarray}`. Default: standard normal floats, and integers
            in `[0, high)` for integer inputs.
        build_graph: `inputs -> GraphParts`, called inside a fresh `tf.compat.v1.Graph`.
        make_model: `weights -> tf.Module` with `variables_by_name`, `__call__`, `loss`, `train_step`.
        default_batch_size: used unless `--batch-size` is given.
        dtype: the dtype of the weights, which sets the equivalence tolerance.
        unsupported_modes: mode name -> why this case cannot run in it (e.g. an op XLA cannot compile);
            such rows are skipped with the reason, and asking for one explicitly is a usage error.
        tolerances: mode name -> (rtol, atol, why) replacing the dtype's tolerance for that mode, for a
            computation whose float error is known to be larger there; printed with the verdict.
        make_varied_batch: `(rng, batch_size, length) -> batch` with the varying dim at `length`, for
            cases with varying dims (`tfcompare run --seq-lens`).
        features: the inputs the forward pass reads (the serving signature of an export); empty: all.
        options: the case's options and their defaults (positive integers, e.g. `{"depth": 2}`).
        option_limits: the largest value each option may take (what still builds in reasonable memory
            and time); a larger one is refused before anything is built.
        configure: `(**options) -> Case`, how a case with options is rebuilt for other values.
        tf1_batch, tf2_batch: `batch -> batch` for one side only (one-hot labels on one side and integer labels
            on the other, a `keep_prob` fed as 1.0 to TF1); each side is fed only what it declares.
        tf2_layout: a `WeightLayout` when the TF2 side stores the weights in another layout.
    """

    name: str
    description: str
    inputs: tuple[InputSpec, ...]
    init_weights: Callable[[np.random.Generator], dict[str, np.ndarray]] | None = None
    make_batch: Callable[[np.random.Generator, int], dict[str, np.ndarray]] | None = None
    build_graph: Callable[[tuple[InputSpec, ...]], GraphParts] | None = None
    make_model: Callable[[dict[str, np.ndarray]], Any] | None = None
    default_batch_size: int = 32
    dtype: str = "float32"
    unsupported_modes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    tolerances: Mapping[str, tuple[float, float, str]] = dataclasses.field(default_factory=dict)
    make_varied_batch: Callable[[np.random.Generator, int, int], dict[str, np.ndarray]] | None = None
    features: tuple[str, ...] = ()
    options: Mapping[str, int] = dataclasses.field(default_factory=dict)
    configure: Callable[..., "Case"] | None = None
    option_limits: Mapping[str, int] = dataclasses.field(default_factory=dict)
    tf1_batch: Callable[[dict], dict] | None = None
    tf2_batch: Callable[[dict], dict] | None = None
    tf2_layout: WeightLayout | None = None

    def tf1_inputs(self, batch: dict) -> dict:
        """The batch as the TF1 side is fed it."""
        return _transformed(self, "tf1_batch", batch)

    def tf2_inputs(self, batch: dict) -> dict:
        """The batch as the TF2 side receives it."""
        return _transformed(self, "tf2_batch", batch)

    def tf2_weights(self, weights: dict) -> dict:
        """The shared weights in the TF2 side's layout (what `make_model` receives)."""
        if self.tf2_layout is None:
            return weights
        out = self.tf2_layout.to_tf2(dict(weights))
        if not isinstance(out, Mapping):
            raise CaseError(f"case {self.name!r}: tf2_layout.to_tf2 returned {type(out).__name__}, not a dict")
        return dict(out)

    def tf2_model(self, weights: dict):
        """The TF2 side built from the shared weights (in its own layout)."""
        return self.make_model(self.tf2_weights(weights))

    def with_options(self, **values: int) -> "Case":
        """This case rebuilt with some options changed; unknown names and non-positive values are refused."""
        unknown = sorted(set(values) - set(self.options))
        if unknown:
            allowed = ", ".join(self.options) or "none"
            raise CaseError(f"case {self.name!r} has no option {unknown[0]!r} (its options: {allowed})")
        for key, value in values.items():
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise CaseError(f"case {self.name!r}: option {key}={value!r} must be a positive integer")
            limit = self.option_limits.get(key)
            if limit is not None and value > limit:
                raise CaseError(f"case {self.name!r}: option {key}={value} is above its limit {limit}")
        if not values or self.configure is None:
            return self
        configured = self.configure(**{**self.options, **values})
        if id(self) in _SOURCES:  # still from the same cases file
            _SOURCES[id(configured)] = _SOURCES[id(self)]
        return configured

    def feature_specs(self) -> tuple[InputSpec, ...]:
        return tuple(i for i in self.inputs if not self.features or i.name in self.features)

    def __post_init__(self):
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise CaseError(f"case name {self.name!r} must match {_NAME_RE.pattern}")
        if not self.inputs or not all(isinstance(i, InputSpec) for i in self.inputs):
            raise CaseError(f"case {self.name!r}: inputs must be a non-empty tuple of InputSpec")
        if self.init_weights is None and callable(self.build_graph):
            object.__setattr__(self, "init_weights", functools.partial(_graph_initial_weights, self.build_graph,
                                                                       self.inputs))
        if self.make_batch is None:
            unbounded = [i.name for i in self.inputs if i.dtype.startswith("int") and i.high is None]
            if unbounded:
                raise CaseError(f"case {self.name!r}: integer input(s) {unbounded} need InputSpec(..., high=N) for "
                                "the default batch, or give make_batch")
            object.__setattr__(self, "make_batch", functools.partial(_default_batch, self.inputs))
        for field in ("init_weights", "make_batch", "build_graph", "make_model"):
            if not callable(getattr(self, field)):
                raise CaseError(f"case {self.name!r}: {field} must be callable")
        if not isinstance(self.default_batch_size, int) or self.default_batch_size <= 0:
            raise CaseError(f"case {self.name!r}: default_batch_size must be a positive integer")
        unknown = sorted(set(self.features) - {i.name for i in self.inputs})
        if unknown:
            raise CaseError(f"case {self.name!r}: features {unknown} are not inputs")
        for field in ("tf1_batch", "tf2_batch"):
            if getattr(self, field) is not None and not callable(getattr(self, field)):
                raise CaseError(f"case {self.name!r}: {field} must be callable")
        if self.tf2_layout is not None and not isinstance(self.tf2_layout, WeightLayout):
            raise CaseError(f"case {self.name!r}: tf2_layout must be a WeightLayout(to_tf2, to_tf1)")
        if self.dtype not in ("float32", "float64"):
            raise CaseError(f"case {self.name!r}: dtype {self.dtype!r} is not float32 or float64")


def _default_batch(specs: tuple[InputSpec, ...], rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """Standard normal floats; integers uniform in [0, high)."""
    return {s.name: (rng.integers(0, s.high, size=(n,) + s.shape) if s.dtype.startswith("int")
                     else rng.standard_normal((n,) + s.shape)).astype(s.dtype) for s in specs}


def _graph_initial_weights(build_graph, specs, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The TF1 code's own initial values: its initializers, run once in a fresh graph with a seed from `rng`."""
    import tensorflow as tf  # only cases that ask for it pay the import here

    tf1 = tf.compat.v1
    with tf1.Graph().as_default() as graph:
        tf1.set_random_seed(int(rng.integers(2 ** 31)))
        parts = build_graph(specs)
        init = tf1.global_variables_initializer()
        with tf1.Session(graph=graph) as session:
            session.run(init)
            return dict(zip(parts.variables, session.run(list(parts.variables.values()))))


def _transformed(case: Case, field: str, batch: dict) -> dict:
    fn = getattr(case, field)
    if fn is None:
        return batch
    out = fn(dict(batch))
    if not isinstance(out, Mapping):
        raise CaseError(f"case {case.name!r}: {field} returned {type(out).__name__}, not a dict of arrays")
    return dict(out)


_SOURCES: dict[int, str] = {}  # id(case) -> the cases file it came from (for processes that must load it again)


def case_source(case: Case) -> str | None:
    """The cases file `case` was loaded from, or None for a built-in case."""
    return _SOURCES.get(id(case))


def find_case(registry: Mapping[str, Case], name: str) -> Case:
    """The case called `name`; the one place an unknown name becomes an error that lists the choices."""
    try:
        return registry[name]
    except KeyError:
        raise CaseError(f"unknown case {name!r}; choose from {', '.join(registry)}") from None


def load_cases_file(path: str | Path) -> list[Case]:
    """Import a user's Python file and return the cases it defines.

    The file defines `CASES` (a list of `Case`), or else every module-level `Case` is taken.
    This runs the named file, which is the point: it is the user's own code.
    """
    if not str(path).strip():
        raise CaseError("the cases file name is empty")
    path = Path(path)
    if not path.is_file():
        raise CaseError(f"cases file {str(path)!r} does not exist")
    if path.suffix != ".py":
        raise CaseError(f"cases file {str(path)!r} is not a .py file")
    module_name = f"_tfcompare_user_cases_{abs(hash(path.resolve()))}"
    spec = importlib.util.spec_from_file_location(module_name, path.resolve())  # clean paths in tracebacks
    if spec is None or spec.loader is None:
        raise CaseError(f"cases file {str(path)!r} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except CaseError as exc:
        raise CaseError(f"cases file {str(path)!r}: {exc}") from exc
    except SystemExit as exc:  # a script's `sys.exit()` must not end tfcompare as if all went well
        raise CaseError(f"cases file {str(path)!r} called sys.exit({exc.code!r}) while being imported; "
                        "a cases file defines cases, it does not run them") from None
    except Exception as exc:  # the user's code: report whatever it raised
        raise CaseError(f"cases file {str(path)!r} failed to import: {type(exc).__name__}: {exc}") from exc
    finally:
        sys.path.remove(str(path.resolve().parent))
    found = getattr(module, "CASES", None)
    if found is None:
        found = [v for v in vars(module).values() if isinstance(v, Case)]
    if not isinstance(found, (list, tuple)):
        raise CaseError(f"cases file {str(path)!r}: CASES must be a list of Case, got {type(found).__name__}")
    found = list(found)
    bad = [f for f in found if not isinstance(f, Case)]
    if bad:
        raise CaseError(f"cases file {str(path)!r}: CASES holds {type(bad[0]).__name__}, not Case")
    if not found:
        raise CaseError(f"cases file {str(path)!r} defines no Case (set CASES = [Case(...), ...])")
    for case in found:
        _SOURCES[id(case)] = str(path.resolve())
    return found
