"""All the state a TF2 model holds is restored between phases, Keras 3 included; what escapes is a leak row."""

import re

import numpy as np

from tfcompare.core.cases import load_cases_file
from tfcompare.core.state import State, find_state, prebuild_optimizers
from tfcompare.run import harness

from conftest import QUICK_TEST

KERAS = {c.name: c for c in load_cases_file("tests/data/keras_cases.py")}


def test_keras_weights_and_optimizer_slots_are_found_and_restored():
    case = KERAS["keras-adam"]
    model = case.make_model(case.init_weights(np.random.default_rng(0)))
    assert len(model.variables) == 0  # tf.Module sees none of Keras 3's variables: the blind spot
    assert prebuild_optimizers(model, list(model.variables_by_name.values())) == ["optimizer"]
    paths = [p for p, _ in find_state(model)]
    assert len(paths) == 8 and any(re.fullmatch(r"dense/dense(_\d+)?/kernel", p) for p in paths)  # Keras numbers
    # a layer's name by how many were made before it in the process
    assert sum("momentum" in p or "velocity" in p for p in paths) == 4  # Adam's slots, built up front
    state = State(model)
    batch = {k: np.asarray(v) for k, v in case.make_batch(np.random.default_rng(1), 16).items()}
    before = [np.array(v.numpy()) for _, v in find_state(model)]
    for _ in range(3):
        model.train_step(batch)
    state.restore()
    after = [np.array(v.numpy()) for _, v in find_state(model)]
    assert all(np.array_equal(a, b) for a, b in zip(before, after))


def test_keras_models_agree_with_tf1_in_every_mode_and_leaks_are_named(tmp_path):
    config = harness.RunConfig(cases=("keras-sgd", "keras-adam", "keras-step", "leak-python", "leak-lazy", "keras-rate",
                                      "keras-adam-small", "keras-adam-default", "plain-step", "keras-layer-differs"),
                               modes=("tf1-graph", "tf2-eager", "tf2-function"),  # XLA: test_core_cases's pairs
                               **QUICK_TEST)
    result = harness.run(config, KERAS, tmp_path, "keras")
    rows = {(r.case, r.mode): r for r in result.results}
    for case in ("keras-sgd", "keras-adam", "keras-step", "keras-adam-small", "plain-step"):  # 0.94, 0.19 before
        for mode in ("tf2-eager", "tf2-function"):
            assert rows[(case, mode)].status == "ok", rows[(case, mode)].error
    rate = rows[("keras-rate", "tf2-function")]  # where the difference starts: the optimizer, from step 2 on
    assert rate.status == "mismatch" and rate.error.startswith(
        "the forward pass and gradients agree; the losses leave tolerance at step 2 of 3 against tf1-graph: the "
        "optimizer update or its state differs (TF1 tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.1) vs "
        "TF2 keras.optimizers.SGD(learning_rate=0.2); the same gradients replayed through both for 3 steps leave the "
        "weights ")
    assert "learning_rate (0.1 in TF1, 0.2 in TF2) accounts for it: with TF1's value the difference is 0)" in rate.error
    assert rate.optimizer_replay["explained_by"][0]["setting"] == "learning_rate"
    for mode in ("tf2-eager", "tf2-function"):  # Keras's default epsilon (1e-7) against TF1's (1e-8)
        row = rows[("keras-adam-default", mode)]
        assert row.status == "mismatch" and "the optimizer update differs (TF1 tf.compat.v1.train.AdamOptimizer(" \
            "learning_rate=0.01, beta1=0.9, beta2=0.999, epsilon=1e-08) vs TF2 keras.optimizers.Adam(" in row.error
        found = row.optimizer_replay
        assert [e["setting"] for e in found["explained_by"]] == ["epsilon"]
        assert found["explained_by"][0]["tf2"] == 1e-7 and found["difference"] > 1e-3
        assert found["explained_by"][0]["difference_after"] < 1e-5  # matched epsilon: the replays agree again
    layer = rows[("keras-layer-differs", "tf2-function")]  # relu where TF1 had tanh, in the layer named "hidden"
    assert layer.status == "mismatch" and layer.error.startswith("the forward pass differs from tf1-graph")
    assert "; the first layer whose output differs: hidden (max abs err " in layer.error
    python = rows[("leak-python", "tf2-eager")]
    assert python.status == "error" and python.error.startswith("state is leaking: a second run from the restored")
    assert "outside the model's variables" in python.error
    for mode in ("tf2-eager", "tf2-function"):
        lazy = rows[("leak-lazy", mode)]
        assert lazy.status == "error" and "not restored: step_count:0 (created after the initial snapshot)" in lazy.error


def test_weights_map_onto_a_keras_model_by_order_and_shape_by_name_or_not_at_all():
    import keras
    import pytest

    from tfcompare.core.keras_step import map_weights

    case = KERAS["keras-ambiguous"]
    with pytest.raises(ValueError, match=r"a shape repeats, so the order would be a guess.*init_weights: a \(4, 4\), "
                                         r"b \(4,\), c \(4, 4\), d \(4,\); the Keras model's trainable weights: "):
        case.make_model(case.init_weights(np.random.default_rng(0)))
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(4, name="first"), keras.layers.Dense(4, name="second")])
    weights = case.init_weights(np.random.default_rng(0))
    paths = [v.path for v in model.trainable_weights]
    mapped = map_weights(weights, model.trainable_weights, dict(zip(["c", "d", "a", "b"], paths)))
    assert mapped["a"].path == paths[2] and mapped["c"].path == paths[0]  # the map, not the order, decides
    with pytest.raises(ValueError, match=r"leaves \['d'\] unmapped and names unknown variables \['nope'\]"):
        map_weights(weights, model.trainable_weights, {"a": paths[0], "b": paths[1], "c": "nope"})
