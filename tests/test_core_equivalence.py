"""The equivalence rule itself, on known arrays."""

import numpy as np

from tfcompare.core.equivalence import TOLERANCES, compare


def test_within_tolerance_passes_and_reports_max_errors():
    ref = {"forward": np.array([1.0, 2.0, 0.0]), "losses": np.array([0.5])}
    got = {"forward": np.array([1.00001, 2.0, 1e-6]), "losses": np.array([0.5])}
    eq = compare(got, ref, "float32")
    assert eq.ok
    assert np.isclose(eq.max_abs_err, 1e-5)
    # relative error only where |ref| > atol: 1e-5 / 1.0; the 1e-6 against 0.0 is judged by atol alone
    assert np.isclose(eq.max_rel_err, 1e-5)


def test_outside_tolerance_fails_and_names_the_quantity():
    ref = {"weights['w']": np.array([1.0, 2.0])}
    got = {"weights['w']": np.array([1.0, 2.01])}
    eq = compare(got, ref, "float32")
    assert not eq.ok
    assert eq.worst().name == "weights['w']"
    assert np.isclose(eq.worst().max_rel_err, 0.005)


def test_shape_mismatch_and_missing_quantity_fail():
    assert not compare({"forward": np.zeros(3)}, {"forward": np.zeros(4)}, "float32").ok
    assert not compare({}, {"forward": np.zeros(4)}, "float32").ok


def test_float64_is_stricter_than_float32():
    ref, got = {"x": np.array([1.0])}, {"x": np.array([1.0 + 1e-6])}
    assert compare(got, ref, "float32").ok
    assert not compare(got, ref, "float64").ok
    assert TOLERANCES["float64"].rtol < TOLERANCES["float32"].rtol


def test_the_diagnosis_says_where_the_difference_starts():
    from tfcompare.core.equivalence import diagnose

    ref = {"forward": np.ones(4), "gradients['w']": np.ones(3), "gradients['b']": np.ones(1),
           "losses": np.array([1.0, 0.8, 0.6, 0.5]), "weights['w']": np.ones(3), "weights['b']": np.ones(1)}

    def run(**changes):
        values = {**ref, **changes}
        return diagnose(compare(values, ref, "float32"), values, ref)

    assert run() == ""
    assert run(forward=np.full(4, 1.5)).startswith("the forward pass differs from tf1-graph (max abs err 0.5")
    assert run(**{"gradients['b']": np.full(1, 2.0)}).startswith(
        "the forward pass agrees; the gradients differ from tf1-graph for b (max abs err 1")
    assert run(losses=np.array([1.0, 0.8, 0.61, 0.55])).startswith(
        "the forward pass and gradients agree; the losses leave tolerance at step 3 of 4 against tf1-graph")
    assert run(**{"weights['w']": np.full(3, 1.1)}).startswith(
        "forward, gradients and losses agree; after the steps the weights differ from tf1-graph for w")
