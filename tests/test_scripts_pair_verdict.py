"""`tfcompare pair`'s verdict rules on hand-made records and arrays, in this process (no scripts run): the noise
floor, the initialisation check, the input comparison. Each threshold is tested on both of its sides."""

import numpy as np
import pytest

from tfcompare.scripts.child import initialisation, noise
from tfcompare.scripts.pair import AGREE, DIFFER, PairResult, _compare, inputs
from tfcompare.scripts.pair.steps import step_checks
from tfcompare.scripts.child.record import SideRecord, Variable, stats


def _side(side, w_after, floor=None, init=None, scheme=None, loss=1.0):
    rec = SideRecord(side=side, script=f"{side}.py", status="ok", losses=[loss], ops={"MatMul": 1},
                     reduction_ratio=1.0)
    init = np.full((50, 50), 0.5, np.float32) if init is None else init
    key = "w" if side == "tf1" else "v0"  # as each probe keys them
    rec.variables = [Variable(key=key, name="w", shape=[50, 50], dtype="float32", site="line 1", created=0, used=0,
                              init=stats(init), scheme=scheme)]
    rec.arrays = {f"init/{key}": init, f"grad/0/{key}": np.ones((50, 50), np.float32), f"before/0/{key}": init,
                  f"after/0/{key}": w_after.astype(np.float32)}
    if floor is not None:
        rec.floor = [{"loss": 0.0, "gradients": {"w": 0.0}, "weights": {"w": floor}}]
        rec.floor_how = "test"
    return rec


def _pair(tf1, tf2):
    tf2.pairing = [["w", "v0", "the only variable of its shape"]]
    result = PairResult("a.py", "b.py", 1)
    _compare(result, tf1, tf2)
    return result


def test_a_gap_beyond_the_element_wise_tolerance_differs_only_outside_ten_times_the_floor():
    after = np.full((50, 50), 0.5, np.float32)
    moved = after.copy()
    moved[0, :10] += 1e-3  # fails rtol 1e-4 / atol 1e-5 element-wise
    gap = noise.relative(after, moved)
    assert gap == pytest.approx(np.sqrt(10) * 1e-3 / 25, rel=1e-3)
    inside = _pair(_side("tf1", after, floor=gap / 9.5), _side("tf2", moved))
    assert inside.status == AGREE and inside.checks[0].weights_rel_err == pytest.approx(gap)
    assert inside.checks[0].weights_floor == pytest.approx(gap / 9.5)
    outside = _pair(_side("tf1", after, floor=gap / 10.5), _side("tf2", moved))
    assert outside.status == DIFFER and outside.checks[0].worst == "weights of w"
    # no floor measured: one float32 ulp stands for it, so the element-wise tolerance decides
    assert _pair(_side("tf1", after), _side("tf2", moved)).status == DIFFER
    # within the element-wise tolerance, however far outside the floor: agree
    tiny = after.copy()
    tiny[0, 0] += 1e-6
    assert _pair(_side("tf1", after, floor=0.0), _side("tf2", tiny)).status == AGREE


def test_gradients_decide_at_the_first_step_and_the_weights_after_it_decide_later():
    """From step 2 on, a gradient taken at weights that differ within the noise may jump (a ReLU's kink)."""
    after = np.full((50, 50), 0.5, np.float32)
    tf1, tf2 = _side("tf1", after, floor=1e-7), _side("tf2", after)
    tf2.arrays["grad/0/v0"] = tf2.arrays["grad/0/v0"] * np.float32(1.01)
    tf2.pairing = [["w", "v0", "the only variable of its shape"]]
    first = step_checks(tf1, tf2, [("w", "v0", "")])
    assert not first[0].gradients_ok and first[0].worst == "gradient of w"
    for rec in (tf1, tf2):  # the same numbers as a second step
        rec.losses.insert(0, rec.losses[0])
        for kind in ("grad", "before", "after"):
            rec.arrays[f"{kind}/1/{rec.variables[0].key}"] = rec.arrays[f"{kind}/0/{rec.variables[0].key}"]
        rec.arrays[f"grad/0/{rec.variables[0].key}"] = np.ones((50, 50), np.float32)
    tf1.floor = tf1.floor * 2
    later = step_checks(tf1, tf2, [("w", "v0", "")])
    assert [c.gradients_ok for c in later] == [True, True]
    assert later[1].gradients_rel_err == pytest.approx(0.01, rel=1e-3)  # still shown


def test_the_floor_is_printed_beside_each_steps_errors_and_in_json():
    after = np.full((50, 50), 0.5, np.float32)
    result = _pair(_side("tf1", after, floor=3e-7), _side("tf2", after))
    line = next(line for line in result.lines() if line.startswith("  1: loss"))
    assert "weights after rel err 0 (floor 3e-07; max abs 0)" in line and line.endswith("ok")
    assert "noise floor: TF1's 1 steps replayed from the same initial weights with test" in "\n".join(result.lines())
    assert result.to_json()["checks"][0]["weights_floor"] == pytest.approx(3e-7)
    assert result.to_json()["floor_factor"] == noise.FACTOR


def test_a_different_initialisation_makes_agreeing_steps_differ_and_says_why():
    rng = np.random.default_rng(0)
    normal = rng.normal(0, 1, (50, 50)).astype(np.float32)
    glorot = rng.uniform(-0.24, 0.24, (50, 50)).astype(np.float32)
    scheme = {"scheme": "normal", "mean": 0.0, "stddev": 1.0}
    after = np.full((50, 50), 0.5, np.float32)
    result = _pair(_side("tf1", after, floor=0.0, init=normal, scheme=scheme),
                   _side("tf2", after, init=glorot, scheme={"scheme": "GlorotUniform"}))
    assert result.status == DIFFER
    assert "DIFFER: every step agrees within the noise, but the scripts are not the same:" in result.lines()
    [finding] = result.findings
    assert finding.kind == "initialisation" and finding.decisive
    assert finding.text.startswith("initialisation of w (50, 50): TF1 normal(mean=0, stddev=1), TF2 (w, line 1) "
                                   "GlorotUniform(): TF2's 2500 values cannot come from TF1's scheme")
    redrawn = rng.normal(0, 1, (50, 50)).astype(np.float32)
    same = _pair(_side("tf1", after, floor=0.0, init=normal, scheme=scheme), _side("tf2", after, init=redrawn))
    assert same.status == AGREE and same.findings == []


@pytest.mark.parametrize("size", [1, 2, 10, 64, 400, 4096])
def test_two_draws_of_one_scheme_are_never_a_finding_however_few_values(size):
    rng = np.random.default_rng(size)
    for seed in range(20):
        a, b = rng.normal(0, 0.1, size), rng.normal(0, 0.1, size)
        assert initialisation.differs(a, b, None) == ""
        assert initialisation.differs(a, b, {"scheme": "normal", "mean": 0.0, "stddev": 0.1}) == ""
        u = rng.uniform(-0.05, 0.05, size)
        assert initialisation.differs(u, rng.uniform(-0.05, 0.05, size),
                                      {"scheme": "uniform", "low": -0.05, "high": 0.05}) == ""


def test_a_different_scheme_or_scale_is_found_with_enough_values():
    rng = np.random.default_rng(1)
    tf1 = rng.normal(0, 0.1, 400)
    assert "standard deviation is" in initialisation.differs(tf1, rng.normal(0, 0.15, 400), None)
    assert initialisation.differs(tf1, rng.normal(0.05, 0.1, 400), None)  # half a standard deviation away
    uniform = rng.uniform(-np.sqrt(3), np.sqrt(3), 50176)  # the same mean and std, another shape
    assert "Kolmogorov-Smirnov" in initialisation.differs(
        rng.normal(0, 1, 50176), uniform, {"scheme": "normal", "mean": 0.0, "stddev": 1.0})
    assert initialisation.differs(np.zeros(10), np.ones(10), None) == "TF1 all 0, TF2 all 1"
    assert initialisation.differs(np.float32([0.5]), np.float32([1.0]), {"scheme": "constant", "value": 0.5}) == \
        "TF1 all 0.5, TF2 all 1"
    assert initialisation.differs(np.float32([0.5]), np.float32([0.5]), {"scheme": "constant", "value": 0.5}) == ""


def test_tf1_initialisation_schemes_are_read_from_the_graph():
    import tensorflow as tf

    v1 = tf.compat.v1
    with tf.compat.v1.Graph().as_default():
        variables = [v1.Variable(v1.random_normal([30, 20], mean=1.0, stddev=2.0)),
                     v1.Variable(v1.truncated_normal([30, 20], stddev=0.1)),
                     v1.Variable(v1.random_uniform([30, 20], -0.3, 0.5)),
                     v1.Variable(v1.zeros([20])), v1.Variable(v1.constant(0.1, shape=[20])),
                     v1.get_variable("g", [30, 20], initializer=v1.glorot_uniform_initializer()),
                     v1.Variable(np.arange(20, dtype=np.float32))]
        with v1.Session() as sess:
            schemes = [initialisation.tf1_scheme(v, sess) for v in variables]
    assert schemes[0] == {"scheme": "normal", "mean": 1.0, "stddev": 2.0}
    assert schemes[1] == {"scheme": "truncated_normal", "mean": 0.0, "stddev": pytest.approx(0.1)}
    assert schemes[2] == {"scheme": "uniform", "low": pytest.approx(-0.3), "high": pytest.approx(0.5)}
    assert schemes[3] == {"scheme": "constant", "value": 0.0}
    assert schemes[4] == {"scheme": "constant", "value": pytest.approx(0.1)}
    limit = np.sqrt(6 / 50)
    assert schemes[5] == {"scheme": "uniform", "low": pytest.approx(-limit), "high": pytest.approx(limit)}
    assert schemes[6] is None  # values given as an array: judged by statistics


def _texts(issues):
    return [(i.text, i.decisive) for i in issues]


def test_inputs_the_common_mistakes_are_named():
    rng = np.random.default_rng(2)
    images = rng.integers(0, 256, (16, 28, 28, 3)).astype(np.float32) / 255
    same = {"convert": "same", "shape": [28 * 28 * 3]}
    flat = images.reshape(16, -1)
    assert inputs.compare_batches(flat, "features", flat.copy(), same) == []
    [scale] = inputs.compare_batches(flat, "features", flat * 255, same)
    assert scale.decisive and scale.text.startswith("scale: TF2's values are TF1's x 255 (TF1 range [0, 1], TF2 "
                                                    "[0, 255]; TF1 divides by 255, TF2 does not)")
    [nchw] = inputs.compare_batches(flat, "features", images.transpose(0, 3, 1, 2),
                                    {"convert": "same", "shape": [3, 28, 28]})
    assert nchw.text == ("layout: channels last in TF1 (NHWC, (28, 28, 3) per example), channels first in TF2 "
                         "(NCHW, (3, 28, 28))")
    gray = images[..., 0].reshape(16, -1)
    [transposed] = inputs.compare_batches(gray, "features", images[..., 0].transpose(0, 2, 1).reshape(16, -1),
                                          {"convert": "same", "shape": [784]})
    assert transposed.text == "layout: TF2's examples are TF1's read as (28, 28) and transposed"
    [normalised] = inputs.compare_batches(flat, "features", (flat - 0.5) / 0.25, same)
    assert normalised.text.startswith("normalisation: TF2's values are TF1's x 4 + -2 ")
    size, = inputs.compare_batches(flat, "features", flat[:10], same)
    assert (size.text, size.decisive) == ("batch size: 16 in TF1, 10 in TF2", True)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 16)]
    ids = labels.argmax(1)
    assert inputs.compare_batches(labels, "onehot", ids, {"convert": "argmax", "shape": []}) == []
    [wrong] = inputs.compare_batches(labels, "onehot", (ids + 1) % 10, {"convert": "argmax", "shape": []})
    assert wrong.text.startswith("labels: 16 of the first 16 examples' labels differ")


def test_inputs_other_examples_are_compared_by_statistics_and_said_once():
    rng = np.random.default_rng(3)
    one, two = rng.random((64, 50)), rng.random((64, 50))
    [other] = inputs.compare_batches(one, "features", two, {"convert": "same", "shape": [50]})
    assert not other.decisive
    assert other.text.startswith("the two sides' first batches hold different examples (another file, order or "
                                 "augmentation?), so they were compared by statistics only, which agree")
    [wider] = inputs.compare_batches(one, "features", rng.random((64, 50)) * 3, {"convert": "same", "shape": [50]})
    assert wider.decisive and wider.text.startswith("their values differ in distribution: ")


def test_the_settings_replays_find_every_scalar_input_of_the_optimizers_update_ops():
    import tensorflow as tf

    counts = {}
    for name, make in [("adam", lambda: tf.compat.v1.train.AdamOptimizer(0.1)),
                       ("momentum", lambda: tf.compat.v1.train.MomentumOptimizer(0.1, 0.9)),
                       ("sgd", lambda: tf.compat.v1.train.GradientDescentOptimizer(0.1))]:
        with tf.compat.v1.Graph().as_default():
            w = tf.compat.v1.get_variable("w", [3, 2])
            b = tf.compat.v1.get_variable("b", [2])
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.ones([4, 3]), w) + b))
            step = tf.compat.v1.train.get_or_create_global_step()
            counts[name] = len(noise._settings(make().minimize(loss, global_step=step)))
    # Adam: lr, beta1, beta2, epsilon (shared) and beta1_power, beta2_power read once per variable (resource
    # variables here); Momentum: lr, momentum; SGD: lr. Found through the global step's AssignAdd as well.
    assert counts == {"adam": 8, "momentum": 2, "sgd": 1}


def _two_steps(side, after_step_2: dict, floors: dict | None = None, squares: dict | None = None):
    """A record of two 50x50 weights, `w` and `u`, over two steps; step 1 leaves both at 0.5, step 2 at
    `after_step_2`. `floors`: each tensor's own floor at step 2 (step 1's: 1e-7); `squares`: each replay's squared
    gap per tensor at step 2 (`noise.whole`)."""
    rec = SideRecord(side=side, script=f"{side}.py", status="ok", losses=[1.0, 0.9], ops={"MatMul": 1},
                     reduction_ratio=1.0)
    half = np.full((50, 50), 0.5, np.float32)
    keys = {"w": "w", "u": "u"} if side == "tf1" else {"w": "v0", "u": "v1"}
    rec.variables = [Variable(key=keys[n], name=n, shape=[50, 50], dtype="float32", site="line 1", created=i,
                              used=i, init=stats(half)) for i, n in enumerate(("w", "u"))]
    for n, key in keys.items():
        rec.arrays.update({f"init/{key}": half, f"before/0/{key}": half, f"after/0/{key}": half,
                           f"before/1/{key}": half, f"after/1/{key}": after_step_2[n].astype(np.float32)})
        for k in (0, 1):
            rec.arrays[f"grad/{k}/{key}"] = np.ones((50, 50), np.float32)
    if floors is not None:
        rec.floor = [{"loss": 1e-7, "gradients": {"w": 1e-7, "u": 1e-7}, "weights": {"w": 1e-7, "u": 1e-7}},
                     {"loss": 1e-7, "gradients": {"w": 1e-7, "u": 1e-7}, "weights": dict(floors)}]
        if squares is not None:
            rec.floor[1]["squares"] = {"weights": squares, "slots": {}}
        rec.floor_how = "test"
    return rec


def _pair_two(tf1, tf2):
    tf2.pairing = [["w", "v0", "by name"], ["u", "v1", "by name"]]
    result = PairResult("a.py", "b.py", 2)
    _compare(result, tf1, tf2)
    return result


def test_from_step_2_a_unit_that_moved_on_one_side_is_judged_with_the_whole_state():
    """Seen on a 41-convolution ResNet: after step 3 one bias element was an Adam update (0.00126) apart, 56x that
    bias's own floor from six replays, while the replays had moved other tensors' units as far. From step 2 the
    weights are one state: its error against the largest gap one replay left over all of them."""
    half = np.full((50, 50), 0.5, np.float32)
    moved = half.copy()
    moved[3, 7] += 1e-3  # one unit's weight moved by an update: fails the element-wise tolerance
    own = noise.relative(half, moved)
    assert own == pytest.approx(1e-3 / 25, rel=1e-4)
    # the replays: the first moved an element of w as far, the second nothing beyond rounding
    squares = {"w": [1e-6, 1e-14], "u": [1e-14, 1e-14]}
    state_floor = np.sqrt(1e-6 + 1e-14) / np.sqrt(2 * 2500 * 0.25)
    tf1 = _two_steps("tf1", {"w": half, "u": half}, floors={"w": own, "u": 1e-7}, squares=squares)
    result = _pair_two(tf1, _two_steps("tf2", {"w": half, "u": moved}))
    step2 = result.checks[1]
    assert step2.weights_as_state and step2.weights_ok and result.status == AGREE
    assert step2.weights_rel_err == pytest.approx(1e-3 / np.sqrt(1250), rel=1e-4)
    assert step2.weights_floor == pytest.approx(state_floor, rel=1e-4)
    line = next(line for line in result.lines() if line.startswith("  2: loss"))
    assert f"weights after rel err {1e-3 / np.sqrt(1250):.2g} (whole state, floor {state_floor:.2g};" in line
    # the same records judged per tensor (no replays' squares kept): u is 400x its own floor, a false DIFFER
    tf1 = _two_steps("tf1", {"w": half, "u": half}, floors={"w": own, "u": 1e-7})
    per_tensor = _pair_two(tf1, _two_steps("tf2", {"w": half, "u": moved}))
    assert per_tensor.status == DIFFER and not per_tensor.checks[1].weights_as_state
    assert per_tensor.checks[1].worst == "weights of u"


@pytest.mark.parametrize("scale, differs", [(9.5, False), (10.5, True)])
def test_from_step_2_the_state_differs_beyond_ten_times_its_floor(scale, differs):
    """Every weight of both tensors moved alike (a setting that differs): the state's error against 10x its floor,
    both sides of the threshold; the tensor named is the first that fails its tolerance."""
    half = np.full((50, 50), 0.5, np.float32)
    squares = {"w": [1e-6, 4e-6], "u": [1e-6, 0.0]}
    floor = np.sqrt(4e-6) / np.sqrt(1250)  # one replay's largest sum, not each tensor's largest added up (5e-6)
    delta = np.float32(scale * floor * 0.5)  # relative error of a uniform shift: delta / 0.5
    assert delta > 1e-4 * 0.5 + 1e-5  # past the element-wise tolerance either way: the floor decides
    tf1 = _two_steps("tf1", {"w": half, "u": half}, floors={"w": 1e-7, "u": 1e-6}, squares=squares)
    result = _pair_two(tf1, _two_steps("tf2", {"w": half + delta, "u": half + delta}))
    step2 = result.checks[1]
    assert step2.weights_rel_err == pytest.approx(float(delta) / 0.5, rel=1e-3)
    assert step2.weights_floor == pytest.approx(floor, rel=1e-4)
    assert (result.status == DIFFER) is differs and step2.weights_ok is not differs
    if differs:
        assert step2.worst == "weights of w"


def test_step_1_stays_per_tensor_whatever_the_replays_kept():
    """At step 1 both sides take the gradient at the same weights on the same batch: each tensor's own floor."""
    from tfcompare.scripts.pair.steps import state_squares

    floor = {"weights": {"w": 1e-7}, "squares": {"weights": {"w": [1.0]}, "slots": {}}}
    assert state_squares(floor, 0, "weights") is None
    assert state_squares(floor, 1, "weights") == {"w": [1.0]}
    assert state_squares({"weights": {"w": 1e-7}}, 1, "weights") is None  # no squares recorded: per tensor


def test_the_whole_states_error_and_floor_are_norms_over_every_element():
    reference = {"a": np.array([3.0, 0.0]), "b": np.array([[0.0], [4.0]])}
    values = {"a": np.array([3.0, 1.0]), "b": np.array([[0.0], [4.0]])}
    error, floor = noise.whole(reference, values, {"a": [0.25, 1.0], "b": [2.0, 0.0]})
    assert error == pytest.approx(1 / 5) and floor == pytest.approx(np.sqrt(2.25) / 5)
    assert noise.whole(reference, values, {"a": [1.0]})[1] is None  # b's replays not recorded
    assert noise.whole(reference, {"a": values["a"], "b": np.zeros(3)}, None)[0] == float("inf")
