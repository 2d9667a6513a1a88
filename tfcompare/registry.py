"""The built-in cases, declared once: the CLI's choices and the tests both read `CASES`."""

from __future__ import annotations

import numpy as np

import eager_models.elementwise
import eager_models.linear
import eager_models.matmul
import eager_models.mlp
import legacy_graphs.elementwise
import legacy_graphs.linear
import legacy_graphs.matmul
import legacy_graphs.mlp
from tfcompare.cases import Case, CaseError, InputSpec

__all__ = ["CASES", "get_case", "register"]


def _normal(rng, shape, scale):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _linear_weights(rng):
    return {"w": _normal(rng, (20, 1), 0.3), "b": np.zeros((1,), np.float32)}


def _linear_batch(rng, n):
    x = _normal(rng, (n, 20), 1.0)
    return {"x": x, "y": (x[:, :1] + 0.5 * x[:, 1:2] > 0).astype(np.float32)}


def _mlp_weights(rng):
    sizes = [64, 128, 128, 10]
    out = {}
    for i in range(3):
        out[f"w{i}"] = _normal(rng, sizes[i:i + 2], np.sqrt(2.0 / sizes[i]))
        out[f"b{i}"] = np.zeros(sizes[i + 1:i + 2], np.float32)
    return out


def _mlp_batch(rng, n):
    labels = rng.integers(0, 10, size=n)
    return {"x": _normal(rng, (n, 64), 1.0), "y": np.eye(10, dtype=np.float32)[labels]}


def _elementwise_weights(rng):
    return {"scale": (0.9 + 0.1 * rng.random(32)).astype(np.float32), "shift": _normal(rng, (32,), 0.05)}


def _elementwise_batch(rng, n):
    return {"x": _normal(rng, (n, 32), 1.0), "target": _normal(rng, (n, 32), 0.5)}


def _matmul_weights(rng):
    return {"w": _normal(rng, (1024, 1024), 1.0 / 32)}


def _matmul_batch(rng, n):
    return {"x": _normal(rng, (n, 1024), 1.0), "target": _normal(rng, (n, 1024), 1.0)}


CASES: dict[str, Case] = {}


def register(case: Case, *, replace: bool = False) -> Case:
    """Add a case to the registry (a user's `--cases-file` cases come in through here)."""
    if not isinstance(case, Case):
        raise CaseError(f"expected a Case, got {type(case).__name__}")
    if case.name in CASES and not replace and CASES[case.name] is not case:
        raise CaseError(f"case {case.name!r} is already registered")
    CASES[case.name] = case
    return case


def get_case(name: str) -> Case:
    try:
        return CASES[name]
    except KeyError:
        raise CaseError(f"unknown case {name!r}; choose from {', '.join(sorted(CASES))}") from None


register(Case(
    name="linear",
    description="logistic regression on w·x+b: the textbook static-vs-dynamic example",
    inputs=(InputSpec("x", (20,)), InputSpec("y", (1,))),
    init_weights=_linear_weights, make_batch=_linear_batch,
    build_graph=legacy_graphs.linear.build, make_model=eager_models.linear.Linear,
    default_batch_size=64,
))
register(Case(
    name="mlp",
    description="64→128→128→10 ReLU MLP, softmax cross-entropy, momentum SGD",
    inputs=(InputSpec("x", (64,)), InputSpec("y", (10,))),
    init_weights=_mlp_weights, make_batch=_mlp_batch,
    build_graph=legacy_graphs.mlp.build, make_model=eager_models.mlp.MLP,
    default_batch_size=64,
))
register(Case(
    name="elementwise",
    description="a chain of 120 element-wise ops on a 16×32 tensor: dispatch-bound",
    inputs=(InputSpec("x", (32,)), InputSpec("target", (32,))),
    init_weights=_elementwise_weights, make_batch=_elementwise_batch,
    build_graph=legacy_graphs.elementwise.build, make_model=eager_models.elementwise.Elementwise,
    default_batch_size=16,
))
register(Case(
    name="matmul",
    description="one 256×1024 @ 1024×1024 matrix multiply and its gradient: compute-bound",
    inputs=(InputSpec("x", (1024,)), InputSpec("target", (1024,))),
    init_weights=_matmul_weights, make_batch=_matmul_batch,
    build_graph=legacy_graphs.matmul.build, make_model=eager_models.matmul.Matmul,
    default_batch_size=256,
))
