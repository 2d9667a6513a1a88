"""The optimizer's slots are state a step changes: read on both sides in TF1's names and compared after every step.

Real optimizers on both sides (TF1's `train.*Optimizer` in a graph, Keras 3's and tf.keras 2.x's), and the rule
on recorded values: step 1 against the floor, later steps also against `LATER_TOL`, Keras's SGD momentum carried
from TF1's accumulator. The real pairs (Adam, RMSProp, Momentum, a fused GRU) are asserted where their pair
already runs (test_scripts_pair.py, test_scripts_pair_observe.py, test_scripts_pair_layouts.py).
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.core.optimizer_replay import tf1_optimizer
from tfcompare.scripts.child import slots
from tfcompare.scripts.child.record import SideRecord, Variable
from tfcompare.scripts.pair.slots import LATER_TOL, counter_findings, slot_findings

_TF1 = {"adam": lambda: tf.compat.v1.train.AdamOptimizer(0.01),
        "momentum": lambda: tf.compat.v1.train.MomentumOptimizer(0.01, 0.9),
        "rmsprop": lambda: tf.compat.v1.train.RMSPropOptimizer(0.01, centered=True),
        "adagrad": lambda: tf.compat.v1.train.AdagradOptimizer(0.01)}


@pytest.mark.parametrize("kind, names", [("adam", ["m", "v"]), ("momentum", ["momentum"]),
                                         ("rmsprop", ["mg", "momentum", "rms"]), ("adagrad", ["accumulator"])])
def test_tf1_slots_are_found_per_trained_variable_with_their_value_before_the_first_step(kind, names):
    with tf.Graph().as_default():
        w = tf.compat.v1.get_variable("w", [3, 2], initializer=tf.compat.v1.ones_initializer())
        b = tf.compat.v1.get_variable("b", [2], initializer=tf.compat.v1.zeros_initializer())
        optimizer = _TF1[kind]()
        train = optimizer.minimize(tf.reduce_sum(tf.square(tf.ones([4, 3]) @ w + b)))
        with tf.compat.v1.Session() as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            every = tf.compat.v1.global_variables()
            record = SideRecord("tf1", "x.py")
            found, counter = slots.tf1_state(optimizer, [w, b], sess.graph, None, list(zip(every, sess.run(every))),
                                             record)
            assert counter is None  # no global step made
            assert sorted({n for n, _, _ in found}) == names
            assert sorted({k for _, k, _ in found}) == ["b", "w"]
            # TF1's RMSProp mean square starts at 1, Adagrad's accumulator at 0.1; the others at 0
            starts = {"rms": 1.0, "accumulator": 0.1}
            for name in names:
                init = record.arrays[slots.key(name, "init", "w")]
                assert init.shape == (3, 2)
                np.testing.assert_allclose(init, starts.get(name, 0.0))
            sess.run(train)
            assert tf1_optimizer(sess.graph, sess).kind == kind


def _keras_slots(optimizer, variables):
    grads = [tf.ones_like(v) for v in variables]
    optimizer.apply_gradients(zip(grads, variables))
    return [slots.values(slots.tf2_slots(optimizer, v)) for v in variables]


@pytest.mark.parametrize("make, expected", [
    (lambda k: k.optimizers.Adam(0.01), {"m": 0.1, "v": 0.001}),
    (lambda k: k.optimizers.SGD(0.01, momentum=0.9), {"momentum": -0.01}),
    (lambda k: k.optimizers.RMSprop(0.01, momentum=0.5, centered=True), {"rms": 0.1, "momentum": None, "mg": 0.1}),
    (lambda k: k.optimizers.Adagrad(0.01), {"accumulator": 1.1}),
    (lambda k: k.optimizers.SGD(0.01), {}),
], ids=["adam", "sgd-momentum", "rmsprop", "adagrad", "sgd"])
def test_keras_3_slots_take_tf1s_names_and_belong_to_their_variable(make, expected):
    import keras

    a, b = keras.Variable(np.zeros((3, 2), np.float32)), keras.Variable(np.zeros(2, np.float32))
    got = _keras_slots(make(keras), [a, b])
    for held, shape in zip(got, [(3, 2), (2,)]):
        assert sorted(held) == sorted(expected)
        for name, value in expected.items():
            assert held[name].shape == shape
            if value is not None:
                np.testing.assert_allclose(held[name], value, rtol=1e-5)


@pytest.mark.legacy
@pytest.mark.skipif(importlib.util.find_spec("tf_keras") is None, reason="needs the legacy extra (tf-keras)")
@pytest.mark.parametrize("legacy", [False, True], ids=["current", "legacy"])
def test_tf_keras_2x_slots_take_tf1s_names(legacy):
    import tf_keras

    cls = tf_keras.optimizers.legacy.Adam if legacy else tf_keras.optimizers.Adam
    w = tf.Variable(np.zeros((3, 2), np.float32))
    held = _keras_slots(cls(0.01), [w])[0]
    assert sorted(held) == ["m", "v"]
    np.testing.assert_allclose(held["m"], 0.1, rtol=1e-5)
    np.testing.assert_allclose(held["v"], 0.001, rtol=2e-5)  # the legacy one takes 1 - beta_2 in float32, as TF1


def _records(kind: str, tf1_values: list, tf2_values: list, name: str = "m", floors=None, rates=None):
    """Two records of one paired variable `w` whose slot `name` holds the given values after each step."""
    one, two = SideRecord("tf1", "a.py"), SideRecord("tf2", "b.py")
    for rec, values in ((one, tf1_values), (two, tf2_values)):
        rec.variables = [Variable("w", "w", [4], "float32", "line 1", 0)]
        rec.optimizer = {"kind": kind, "settings": {"momentum": 0.9, "learning_rate": 0.1},
                         "source": "tf.compat.v1.train.Optimizer" if rec is one else "keras.optimizers.Optimizer"}
        rec.losses = [1.0] * len(values)
        for k, v in enumerate(values):
            rec.arrays[slots.key(name, k, "w")] = np.asarray(v, np.float32)
    one.learning_rates = rates if rates is not None else [0.1] * len(tf1_values)
    one.floor = [{"slots": {f"{name}/w": f}} for f in floors] if floors else []
    return one, two


_PAIRS = [("w", "w", "the only variable of its shape")]
_G = np.array([0.5, -1.0, 2.0, 0.25])


def test_the_same_slots_agree_and_are_listed_as_compared():
    one, two = _records("adam", [0.1 * _G, 0.19 * _G], [0.1 * _G, 0.19 * _G], floors=[1e-7, 1e-7])
    found, compared, note = slot_findings(one, two, _PAIRS)
    assert found == [] and compared == [{"slot": "m", "variables": 1}] and note == ""


def test_a_first_moment_twice_tf1s_after_step_1_is_decisive_and_names_the_ratio():
    """beta_1 0.8 against 0.9: (1 - 0.8) / (1 - 0.9) = 2 times the first gradient in m after step 1."""
    one, two = _records("adam", [0.1 * _G, 0.19 * _G], [0.2 * _G, 0.36 * _G], floors=[1e-7, 1e-7])
    found, _, _ = slot_findings(one, two, _PAIRS)
    assert len(found) == 1 and found[0].decisive and found[0].kind == "slots"
    assert "optimizer slot m (first moment) of w (TF1) vs w (TF2) after step 1: rel err 1 (floor 1e-07)" in found[0].text
    assert "TF2's is 2x TF1's" in found[0].text


@pytest.mark.parametrize("later, differs", [(5e-4, False), (5e-3, True)])
def test_after_step_1_a_slot_differs_only_beyond_the_floor_and_later_tol(later, differs):
    """A gradient taken at weights already apart within the noise jumps where a ReLU input crosses zero: a moment
    moved by less than LATER_TOL after step 1 is that, not a difference."""
    assert LATER_TOL == 1e-3
    one, two = _records("adam", [0.1 * _G, 0.19 * _G], [0.1 * _G, 0.19 * _G * (1 + later)], floors=[1e-7, 1e-7])
    found, _, _ = slot_findings(one, two, _PAIRS)
    assert bool(found) is differs
    if differs:
        assert "after step 2" in found[0].text and "step 1 agreed" in found[0].text


def test_a_slot_within_its_measured_floor_agrees_and_beyond_ten_floors_differs():
    noisy = 0.1 * _G * (1 + np.array([3e-4, -3e-4, 3e-4, -3e-4]))  # rel err 3e-4, beyond rtol 1e-4 element-wise
    one, two = _records("adam", [0.1 * _G], [noisy], floors=[1e-4])
    assert slot_findings(one, two, _PAIRS)[0] == []
    one, two = _records("adam", [0.1 * _G], [noisy], floors=[1e-6])
    assert len(slot_findings(one, two, _PAIRS)[0]) == 1


def test_kerass_sgd_momentum_is_compared_with_tf1s_accumulator_carried_into_its_form():
    """TF1 a_k = 0.9 a_(k-1) + g_k, Keras m_k = 0.9 m_(k-1) - lr_k g_k: with a schedule (0.1 then 0.05) m is not a
    multiple of a, and the carried values still agree; Keras's m with the sign flipped does not."""
    g = [_G, 2 * _G, -_G]
    rates = [0.1, 0.05, 0.05]
    a, m, tf1, keras = 0.0, 0.0, [], []
    for grad, rate in zip(g, rates):
        a, m = 0.9 * a + grad, 0.9 * m - rate * grad
        tf1.append(a)
        keras.append(m)
    one, two = _records("momentum", tf1, keras, name="momentum", floors=[1e-7] * 3, rates=rates)
    found, compared, _ = slot_findings(one, two, _PAIRS)
    assert found == [] and compared == [{"slot": "momentum", "variables": 1}]
    one, two = _records("momentum", tf1, [-x for x in keras], name="momentum", floors=[1e-7] * 3, rates=rates)
    assert "rel err 2 " in slot_findings(one, two, _PAIRS)[0][0].text
    one, two = _records("momentum", tf1, keras, name="momentum", rates=[0.1, None, 0.05])
    found, compared, note = slot_findings(one, two, _PAIRS)
    assert found == [] and compared == [] and "learning rate at each step was not read" in note


def test_a_momentum_optimizer_of_the_scripts_own_is_compared_in_tf1s_form():
    """The Momentum convert writes keeps TF1's accumulator (a_k = 0.9 a_(k-1) + g_k), not Keras's `-lr x` form:
    its slot is compared as TF1 holds it (carried into Keras's form it read "TF2's is -5x TF1's", a false DIFFER
    on two of convert's own proven scripts, once pair read the slots of the script's own optimizers)."""
    g = [_G, 2 * _G, -_G]
    a, tf1 = 0.0, []
    for grad in g:
        a = 0.9 * a + grad
        tf1.append(a)
    one, two = _records("momentum", tf1, tf1, name="momentum", floors=[1e-7] * 3, rates=[0.2] * 3)
    two.optimizer["source"] = "__main__.optimizers.Momentum"
    found, compared, _ = slot_findings(one, two, _PAIRS)
    assert found == [] and compared == [{"slot": "momentum", "variables": 1}]
    one, two = _records("momentum", tf1, [0.5 * x for x in tf1], name="momentum", floors=[1e-7] * 3, rates=[0.2] * 3)
    two.optimizer["source"] = "__main__.optimizers.Momentum"
    assert "TF2's is 0.5x TF1's" in slot_findings(one, two, _PAIRS)[0][0].text


def test_optimizers_of_different_kinds_compare_no_slots_and_one_sided_slots_are_named():
    one, two = _records("adam", [0.1 * _G], [0.1 * _G])
    two.optimizer = {"kind": "rmsprop", "settings": {}}
    found, compared, note = slot_findings(one, two, _PAIRS)
    assert (found, compared) == ([], []) and "different kinds" in note
    one, two = _records("rmsprop", [0.1 * _G], [0.1 * _G], name="rms")
    one.arrays[slots.key("momentum", 0, "w")] = np.zeros(4, np.float32)  # TF1's RMSProp keeps it at momentum 0
    found, compared, note = slot_findings(one, two, _PAIRS)
    assert compared == [{"slot": "rms", "variables": 1}]
    assert note == "TF1's optimizer slots with no counterpart, not compared: momentum"


def _counted(tf1_steps: list, tf2_steps: list, reads=(False, False)):
    one, two = SideRecord("tf1", "a.py"), SideRecord("tf2", "b.py")
    for rec, values, name, read in ((one, tf1_steps, "global_step", reads[0]),
                                    (two, tf2_steps, "optimizer.iterations", reads[1])):
        rec.counter = {"name": name, "read_by_rate": read}
        rec.losses = [1.0] * (len(values) - 1)
        rec.arrays["counter/init"] = np.asarray(values[0])
        for k, v in enumerate(values[1:]):
            rec.arrays[f"counter/{k}"] = np.asarray(v)
    return one, two


def test_step_counters_that_advance_alike_are_a_note_and_a_stalled_one_a_schedule_reads_is_decisive():
    found, note = counter_findings(*_counted([0, 1, 2, 3], [0, 1, 2, 3]))
    assert found == [] and note == ("step counters compared (TF1 global_step, TF2 optimizer.iterations): by 1 per "
                                    "step on both sides")
    found, note = counter_findings(*_counted([0, 0, 0, 0], [0, 1, 2, 3]))  # nothing reads them: a note
    assert found == [] and note.startswith("step counter: TF1's global_step advances by 0 per step (the global step "
                                           "is not given to minimize / apply_gradients), TF2's optimizer.iterations "
                                           "by 1; nothing the compared steps compute reads either")
    found, note = counter_findings(*_counted([0, 0, 0, 0], [0, 1, 2, 3], reads=(True, True)))
    assert note == "" and len(found) == 1 and found[0].decisive
    assert found[0].text.endswith("both sides' learning-rate schedules read their counters, so the rates move apart "
                                  "as training goes on")
    found, _ = counter_findings(*_counted([5, 7, 9], [0, 1, 2], reads=(False, True)))
    assert "advances by 2 per step" in found[0].text and "TF2's learning-rate schedule reads it" in found[0].text
    one, two = _counted([0, 1], [0, 1])
    one.counter = None  # a TF1 script with no global step: nothing to compare
    assert counter_findings(one, two) == ([], "")


def test_a_tf1_schedule_whose_global_step_never_advances_differs_though_every_step_agrees(tmp_path):
    """The blind staircase pair (decay every 5 steps) with `minimize(loss)` not given the global step: TF1's rate
    stays 0.5 forever, so the first 3 steps agree and only the counters show it (before: AGREE)."""
    from pathlib import Path

    from tfcompare.scripts.pair import DIFFER, PairOptions, pair_scripts

    blind = Path(__file__).parent / "data" / "pairs" / "blind"
    tf1 = tmp_path / "schedule_exp_tf1.py"
    source = (blind / "schedule_exp_tf1.py").read_text()
    assert "optimizer.minimize(loss, global_step=global_step)" in source
    tf1.write_text(source.replace("optimizer.minimize(loss, global_step=global_step)", "optimizer.minimize(loss)"))
    result = pair_scripts(tf1, blind / "schedule_exp_tf2.py", PairOptions(steps=3))
    assert result.status == DIFFER and all(c.ok for c in result.checks), "\n".join(result.lines())
    assert [f.text for f in result.findings if f.decisive] == [
        "step counter: TF1's global_step advances by 0 per step (the global step is not given to minimize / "
        "apply_gradients), TF2's optimizer.iterations by 1: both sides' learning-rate schedules read their counters, "
        "so the rates move apart as training goes on"]


_OPTIMIZERS = Path(__file__).parent / "data" / "pairs" / "blind" / "optimizers"


def test_blind_optimizer_pairs_whose_rewrites_set_their_own_starting_weights():
    """Written outside the project (tests/data/pairs/blind/optimizers/README.md). Both scripts give their models the
    same NumPy weights; the TF2 one through `set_weights` after Keras drew Glorot values. Before, pair judged that
    draw as TF2's initialisation: a false DIFFER on the faithful Adam pair; now the values the script assigned are
    its initialisation. The planted beta_1 is named, with the first moment 0.2x TF1's ((1 - 0.9) / (1 - 0.5))."""
    from tfcompare.scripts.pair import AGREE, DIFFER, PairOptions, pair_scripts

    faithful = pair_scripts(_OPTIMIZERS / "adam_beta_tf1.py", _OPTIMIZERS / "adam_beta_tf2.py", PairOptions(steps=3))
    assert faithful.status == AGREE, "\n".join(faithful.lines())
    assert faithful.slots == [{"slot": "m", "variables": 4}, {"slot": "v", "variables": 4}]
    assert any(n.startswith("the TF2 script assigned its own starting values to 4 variable(s) after creating them")
               for n in faithful.notes)
    bug = pair_scripts(_OPTIMIZERS / "adam_beta_tf1.py", _OPTIMIZERS / "adam_beta_tf2_bug.py", PairOptions(steps=3))
    assert bug.status == DIFFER and bug.checks[0].ok and not bug.checks[1].ok, "\n".join(bug.lines())
    kinds = {f.kind: f.text for f in bug.findings if f.decisive}
    assert kinds["setting"].startswith("beta1: 0.5 in TF1, 0.9 in TF2 (both adam)")
    assert kinds["slots"].startswith("optimizer slot m (first moment) of conv1/w (TF1) vs sequential/conv2d/kernel "
                                     "(TF2) after step 1: rel err 0.8 ")
    assert kinds["slots"].endswith("TF2's is 0.2x TF1's")
    assert "initialisation" not in kinds


def test_tf1_momentum_under_a_decaying_rate_is_no_keras_sgd_and_the_formula_is_named():
    """The blind Nesterov pair: every setting equal, the rate decaying every step. Step 1 agrees; from step 2 the
    updates part (TF1 scales its accumulated gradients by today's rate, Keras stored yesterday's): DIFFER, named."""
    from tfcompare.scripts.pair import DIFFER, PairOptions, pair_scripts

    result = pair_scripts(_OPTIMIZERS / "momentum_nesterov_tf1.py", _OPTIMIZERS / "momentum_nesterov_tf2.py",
                          PairOptions(steps=3))
    assert result.status == DIFFER and result.checks[0].ok and not result.checks[1].weights_ok, \
        "\n".join(result.lines())
    setting = next(f.text for f in result.findings if f.kind == "setting")
    assert setting.startswith("momentum: every setting matches, but the formulas differ: TF1's MomentumOptimizer "
                              "scales the gradients it accumulated by each step's learning rate")
    # the slots themselves agree: Keras's momentum is TF1's accumulator carried into its form, step by step
    assert result.slots == [{"slot": "momentum", "variables": 6}]
    assert not any(f.kind in ("slots", "initialisation") for f in result.findings)


def test_the_momentum_formula_note_needs_a_rate_that_changes():
    from tfcompare.core.optimizer_formulas import FORMULAS, formula

    assert formula("momentum", [0.1, 0.1, 0.1]) is None and formula("momentum", [0.1, None]) is None
    assert formula("momentum", [0.1, 0.099]).startswith("TF1's MomentumOptimizer scales the gradients it accumulated")
    assert formula("rmsprop", [0.1]) == FORMULAS["rmsprop"] and formula("adam", [0.1, 0.2]) is None


@pytest.mark.parametrize("replayed, differs", [(0.5, False), (0.05, True)])
def test_after_step_1_a_slot_is_judged_with_the_replays_squared_gaps_as_one_state(replayed, differs):
    """From step 2 the replays' squared gaps (`noise.whole`) decide, not the slot's own floor of 1e-7: a replay
    that moved the moment `replayed` x as far as TF2 is from TF1 holds it within 10x (0.5), one that moved it 0.05x
    does not."""
    tf2_m = 0.19 * _G * (1 + 5e-3)
    one, two = _records("adam", [0.1 * _G, 0.19 * _G], [0.1 * _G, tf2_m], floors=[1e-7, 1e-7])
    gap2 = float(np.sum((0.19 * _G * 5e-3) ** 2))
    one.floor[1]["squares"] = {"weights": {}, "slots": {"m/w": [1e-20, (replayed ** 2) * gap2]}}
    found, _, _ = slot_findings(one, two, _PAIRS)
    assert bool(found) is differs
    if differs:
        floor = 0.05 * 5e-3
        assert (f"after step 2: rel err 0.005 (floor 1e-07); every variable's m as one state: rel err 0.005 "
                f"(floor {floor:.2g}) (step 1 agreed" in found[0].text)


def test_a_slot_gone_nan_warns_nothing_and_differs_only_from_a_finite_one():
    """A diverged TF1 step (pkmital's VAE on synthetic MNIST: loss NaN at step 2): numpy's "atol: nan" warning was
    printed among the scripts' output; NaN against NaN is the same, NaN against a number is not."""
    import warnings

    nan = np.full(4, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one, two = _records("adam", [0.1 * _G, nan], [0.1 * _G, nan], floors=[1e-7, 1e-7])
        assert slot_findings(one, two, _PAIRS)[0] == []
        one, two = _records("adam", [0.1 * _G, nan], [0.1 * _G, 0.19 * _G], floors=[1e-7, 1e-7])
        assert "after step 2" in slot_findings(one, two, _PAIRS)[0][0].text
