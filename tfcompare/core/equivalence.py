"""Numerical equivalence of a mode against the `tf1-graph` reference, within dtype tolerances.

What is compared (the migration guide's recipe): the forward output and the gradients on one
batch from the shared initial weights, then the loss of every one of K training steps and the
weights after them. An element passes when `|x - ref| <= atol + rtol * |ref|` (numpy.isclose).
"""

from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from tfcompare.core.modes import REFERENCE_MODE as REFERENCE

__all__ = ["Tolerance", "TOLERANCES", "Check", "Equivalence", "compare", "snapshot", "leak", "diagnose",
           "gradients_of", "same_quantities", "STEPS_ONLY", "non_finite", "rerun_difference", "tolerance"]


@dataclasses.dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    why: str = ""

    def __str__(self):
        return f"rtol={self.rtol:g} atol={self.atol:g}" + (f" ({self.why})" if self.why else "")


# float32: kernels differ in summation order and XLA fuses and reassociates; a few ulps per op,
# compounded over K steps, stays well inside 1e-4 relative. float64 gets the same budget scaled.
TOLERANCES = {"float32": Tolerance(rtol=1e-4, atol=1e-5), "float64": Tolerance(rtol=1e-9, atol=1e-10)}


@dataclasses.dataclass
class Check:
    """One compared quantity (e.g. `gradients['w0']`)."""

    name: str
    max_abs_err: float
    max_rel_err: float
    ok: bool
    detail: str = ""  # what the numbers cannot say: shapes that differ, values that are not finite


@dataclasses.dataclass
class Equivalence:
    tolerance: Tolerance
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    @property
    def max_abs_err(self) -> float:
        return _worst(c.max_abs_err for c in self.checks)

    @property
    def max_rel_err(self) -> float:
        return _worst(c.max_rel_err for c in self.checks)

    def worst(self) -> Check | None:
        failing = [c for c in self.checks if not c.ok] or self.checks
        return max(failing, key=lambda c: (bool(c.detail), c.max_abs_err if c.max_abs_err == c.max_abs_err else 0.0),
                   default=None)

    def to_json(self) -> dict:
        return {"tolerance": dataclasses.asdict(self.tolerance), "ok": self.ok,
                "checks": [dataclasses.asdict(c) for c in self.checks]}


def _worst(errors) -> float:
    """The largest error, NaN if any is NaN (NaN is larger than every number here)."""
    errors = list(errors)
    if any(e != e for e in errors):
        return float("nan")
    return max(errors, default=0.0)


def rerun_difference(first: Mapping[str, np.ndarray], second: Mapping[str, np.ndarray]) -> float:
    """The largest absolute difference between two runs of the same steps from the same state (0.0: identical)."""
    diffs = [float(np.max(np.abs(np.asarray(first[k], np.float64) - np.asarray(second[k], np.float64))))
             for k in first if k in second and np.shape(first[k]) == np.shape(second[k]) and np.size(first[k])
             and np.all(np.isfinite(first[k])) and np.all(np.isfinite(second[k]))]
    return max(diffs, default=0.0)


def leak(first: Mapping[str, np.ndarray], second: Mapping[str, np.ndarray], created: list[str],
         tol: Tolerance | None = None) -> str | None:
    """Why two runs of the same steps from the same restored state differ, or None when they do not.

    A difference means state the reset did not put back; comparing it with TF1 would blame the migration
    for the harness's blind spot, so it is reported as what it is. With `tol`, a difference within it is the
    run's own noise, not a leak: multi-threaded kernels add in an order that changes from run to run (a large
    batch split over threads), which moves the last bits and nothing the comparison with TF1 could see.
    """
    differ = [k for k in first if k not in second or not np.array_equal(first[k], second[k], equal_nan=True)]
    if tol is not None:
        differ = [k for k in differ if k not in second or np.shape(first[k]) != np.shape(second[k]) or
                  not np.allclose(second[k], first[k], rtol=tol.rtol, atol=tol.atol, equal_nan=True)]
    if not differ:
        return None
    where = (f"not restored: {', '.join(created)} (created after the initial snapshot)" if created else
             "the difference is outside the model's variables (Python-side state or a random generator)")
    return (f"state is leaking: a second run from the restored state differs in {', '.join(differ[:3])}"
            f"{' ...' if len(differ) > 3 else ''}{' beyond ' + str(tol) if tol is not None else ''}; {where}")


def tolerance(dtype: str, override: tuple[float, float, str] | None = None) -> Tolerance:
    """The tolerance a mode is compared with: the case's own for it, or its dtype's."""
    return Tolerance(*override) if override else TOLERANCES[dtype]


def _count(value: np.ndarray) -> str:
    value = np.asarray(value, np.float64)
    nan, inf = int(np.isnan(value).sum()), int(np.isinf(value).sum())
    return ", ".join(f"{n} {what}" for n, what in ((nan, "NaN"), (inf, "inf")) if n)


def non_finite(values: Mapping[str, np.ndarray]) -> str | None:
    """Where a mode's own numbers first stop being finite, in the order the steps compute them (the forward
    output and gradients of the first batch, the loss of each of the K steps, the weights after them); None
    when every number is finite. Agreeing with a reference that is NaN too is no agreement."""
    bad = {k: v for k, v in values.items() if not np.all(np.isfinite(np.asarray(v, np.float64)))}
    if not bad:
        return None
    if "forward" in bad:
        return f"the forward output is not finite before any update ({_count(bad['forward'])})"
    grads = [k for k in bad if k.startswith("gradients[")]
    if grads:
        return (f"the gradients of {', '.join(_inner(k) for k in grads)} are not finite on the first batch, before "
                f"any update ({_count(bad[grads[0]])})")
    if "losses" in bad:
        losses = np.asarray(bad["losses"], np.float64).reshape(-1)
        first = int(np.argmin(np.isfinite(losses)))
        return f"the loss is {losses[first]:g} from step {first + 1} of {losses.size}"
    weights = [k for k in bad if k.startswith("weights[")]
    return (f"the weights of {', '.join(_inner(k) for k in weights) or ', '.join(bad)} are not finite after the "
            f"last step ({_count(next(iter(bad.values())))})")


STEPS_ONLY = ("the K-step losses and the weights after them; this mode's own forward pass and gradients were not "
              "compiled (--quick: another XLA compile): tf2-function's, the same traced code, agreed")


def snapshot(runner, batch, batches, probes: bool = True) -> dict[str, np.ndarray]:
    """Everything the equivalence check compares, from a runner reset to the initial weights.

    `probes=False` leaves out the forward output and the gradients on the first batch; the K steps still check
    the mode end to end.
    """
    runner.reset()
    out = {}
    if probes:
        forward, gradients = runner.probe(batch)
        out["forward"] = np.asarray(forward)
        out.update({f"gradients[{k!r}]": np.asarray(v) for k, v in gradients.items()})
    out["losses"] = np.asarray(runner.train(batches))
    out.update({f"weights[{k!r}]": np.asarray(v) for k, v in runner.weights().items()})
    return out


def same_quantities(reference: Mapping[str, np.ndarray], values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The reference's quantities that a steps-only snapshot has (the whole reference when `values` has probes)."""
    if "forward" in values:
        return dict(reference)
    return {k: v for k, v in reference.items() if k == "losses" or k.startswith("weights[")}


def gradients_of(values: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """`{variable: gradient}` from a snapshot's `gradients['name']` entries."""
    return {_inner(k): v for k, v in values.items() if k.startswith("gradients[")}


def _check(name, value, ref, tol: Tolerance, reference: str = REFERENCE) -> Check:
    value, ref = np.asarray(value, np.float64), np.asarray(ref, np.float64)
    if value.shape != ref.shape:
        return Check(name, float("inf"), float("inf"), False, f"shape {value.shape} vs {ref.shape} in {reference}")
    both = np.isfinite(value) & np.isfinite(ref)
    # a non-finite value agrees only with the same non-finite value (inf with inf, NaN with NaN)
    same = ~both & ((value == ref) | (np.isnan(value) & np.isnan(ref)))
    odd = ~both & ~same
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf where both are non-finite: masked out below
        diff = np.where(both, np.abs(value - ref), 0.0)
    # relative error where the reference is clearly non-zero; near zero only atol speaks
    big = both & (np.abs(ref) > tol.atol)
    rel = diff[big] / np.abs(ref[big]) if big.any() else np.zeros(1)
    if odd.any():  # NaN or inf on one side only: no finite error describes it
        mine = int((~np.isfinite(value) & np.isfinite(ref)).sum())
        detail = (f"{mine} NaN/inf values where {reference} has finite ones" if mine else
                  f"{int(odd.sum())} NaN/inf values in {reference} where this mode differs")
        return Check(name, float("nan"), float("nan"), False, detail)
    ok = bool(np.all(diff <= tol.atol + tol.rtol * np.abs(np.where(both, ref, 0.0))))
    return Check(name, float(diff.max()) if diff.size else 0.0, float(rel.max()) if rel.size else 0.0, ok)


def _what(check: Check) -> str:
    return check.detail or f"max abs err {check.max_abs_err:.3g}, max rel err {check.max_rel_err:.3g}"


def _inner(name: str) -> str:
    return name[name.index("[") + 1:-1].strip("'") if "[" in name else name


def diagnose(eq: Equivalence, values: Mapping[str, np.ndarray], reference: Mapping[str, np.ndarray]) -> str:
    """Where the difference starts, in the order the step computes: the forward pass, then the gradients, then
    the optimizer's update (the first of K steps whose loss leaves tolerance), then the weights."""
    failing = {c.name: c for c in eq.checks if not c.ok}
    if not failing:
        return ""
    if "forward" in failing:
        return f"the forward pass differs from {REFERENCE} ({_what(failing['forward'])}): the model, before any update"
    grads = [n for n in failing if n.startswith("gradients[")]
    if grads:
        return (f"the forward pass agrees; the gradients differ from {REFERENCE} for "
                f"{', '.join(_inner(n) for n in grads)} ({_what(failing[grads[0]])}): the loss or its gradient")
    if "losses" in failing:
        got = np.asarray(values.get("losses", []), np.float64)
        ref = np.asarray(reference.get("losses", []), np.float64)
        steps = len(ref)
        if got.shape == ref.shape:
            close = np.isclose(got, ref, rtol=eq.tolerance.rtol, atol=eq.tolerance.atol)
            first = int(np.argmin(close)) + 1
            where = f"the losses leave tolerance at step {first} of {steps}"
        else:
            where = f"the losses differ ({_what(failing['losses'])})"
        return (f"the forward pass and gradients agree; {where} against {REFERENCE}: the optimizer update or its "
                "state differs")
    weights = [n for n in failing if n.startswith("weights[")]
    names = ", ".join(_inner(n) for n in weights) or ", ".join(failing)
    return (f"forward, gradients and losses agree; after the steps the weights differ from {REFERENCE} for {names}: "
            "the optimizer update differs")


def compare(values: Mapping[str, np.ndarray], reference: Mapping[str, np.ndarray], dtype: str,
            override: tuple[float, float, str] | None = None, against: str = REFERENCE) -> Equivalence:
    """Compare every quantity of `values` with `reference`; a missing or extra quantity fails.

    `override` is a case's own (rtol, atol, why) for one mode, used instead of the dtype's tolerance;
    `against` names the reference mode in the details.
    """
    tol = tolerance(dtype, override)
    checks = []
    for name in dict.fromkeys(list(reference) + list(values)):
        if name not in values or name not in reference:
            side = "this mode" if name not in values else against
            checks.append(Check(name, float("inf"), float("inf"), False, f"missing in {side}"))
        else:
            checks.append(_check(name, values[name], reference[name], tol, against))
    return Equivalence(tol, checks)
