"""A MultiRNNCell's state fed back cell by cell (char-rnn's `for i, (c, h) in enumerate(model.initial_state):
feed[c] = state[i].c`), its zero state fetched, and a learning rate held in a variable the script assigns between
runs: what the rewrite writes for each, checked against TF1's own values."""

from __future__ import annotations

import ast
import textwrap

import numpy as np
import pytest
import tensorflow as tf

from tfcompare.core.schedules import SET_BY_SCRIPT, tf1_text
from tfcompare.scripts.child.record import SideRecord
from tfcompare.scripts.convert import source as carried
from tfcompare.scripts.convert.calls import _rnn_decoder
from tfcompare.scripts.convert.ops import Translator
from tfcompare.scripts.convert.rnn_state import cell_feed_loops, state_feeds, stacked_states, zero_state_runs
from tfcompare.scripts.convert.written_cells import GRU_HELPER, LSTM_HELPER
from tfcompare.scripts.pair.diagnose import _learning_rates

v1 = tf.compat.v1


@pytest.mark.parametrize("body, fed", [
    ("for i, (c, h) in enumerate(model.initial_state):\n    feed[c] = state[i].c\n    feed[h] = state[i].h\n",
     "model.initial_state <- state"),
    ("for layer, (c, h) in enumerate(init):\n    fd[c] = vals['s'][layer][0]\n    fd[h] = vals['s'][layer][1]\n",
     "init <- vals['s']"),
    ("for i, h in enumerate(model.initial_state):\n    feed[h] = state[i]\n", "model.initial_state <- state"),
    # not the whole state cell by cell: another cell's part, a second dict, the index read in the value, more lines
    ("for i, (c, h) in enumerate(init):\n    feed[c] = state[i].h\n    feed[h] = state[i].h\n", None),
    ("for i, (c, h) in enumerate(init):\n    feed[c] = state[i].c\n    other[h] = state[i].h\n", None),
    ("for i, (c, h) in enumerate(init):\n    feed[c] = state[i].c\n    feed[h] = states[i][i].h\n", None),
    ("for i, (c, h) in enumerate(init):\n    feed[c] = state[i].c\n    feed[h] = state[i].h\n    print(i)\n", None),
    ("for i, (c, h) in zip(range(2), init):\n    feed[c] = state[i].c\n    feed[h] = state[i].h\n", None),
    ("for i, (a, b) in enumerate(pairs):\n    x = a\n    y = b\n", None),  # a loop of plain names
])
def test_a_state_fed_cell_by_cell_is_read_as_the_whole_state_fed(body, fed):
    found = cell_feed_loops(ast.parse(body))
    assert [f"{ast.unparse(state)} <- {value}" for _, state, value in found] == ([fed] if fed else [])


def test_a_fetched_zero_state_is_the_zeros_in_the_rewrites_layout_cells_then_c_and_h_then_the_batch():
    from tfcompare.scripts.legacy.rnn import BasicLSTMCell, GRUCell, MultiRNNCell

    source = textwrap.dedent("""\
        a = sess.run(stack.zero_state(3, tf.float32))
        b = sess.run(gru.zero_state(1, tf.float32))
        c = sess.run(lstm.zero_state(batch, tf.float32))
        d = sess.run(gru.zero_state(1, tf.float64))
        e = sess.run(gru.zero_state(1, tf.float32), {x: 1})
        f = other.run(gru.zero_state(1, tf.float32))
        g = sess.run(grus.zero_state(2, tf.float32))
    """)
    with tf.Graph().as_default():
        namespace = {"stack": MultiRNNCell([BasicLSTMCell(4), BasicLSTMCell(4)]), "gru": GRUCell(5), "tf": v1,
                     "lstm": BasicLSTMCell(6), "batch": 2, "grus": MultiRNNCell([GRUCell(3), GRUCell(3)])}
        spans = zero_state_runs(ast.parse(source), namespace, {"sess"}, tf)
    assert {line: text for (line, *_), text in spans.items()} == {
        1: "np.zeros([2, 2, 3, 4], np.float32)", 2: "np.zeros([1, 5], np.float32)",
        3: "np.zeros([2, 2, 6], np.float32)", 7: "np.zeros([2, 2, 3], np.float32)"}


def _state_value(tree):
    return [np.stack([np.asarray(c), np.asarray(h)]) for c, h in tree]


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_rnn_decoder_of_a_stack_from_a_fed_state_is_one_call_per_cell_from_that_cells_state(kind):
    """legacy_seq2seq.rnn_decoder (char-rnn's) is static_rnn from the state the script feeds: one helper call per
    cell, each from its own cell's slice of the stacked state, the final state stacked the same way; TF1's values
    from a non-zero fed state, to float32 rounding."""
    from tfcompare.scripts.legacy import seq2seq
    from tfcompare.scripts.legacy.rnn import BasicLSTMCell, GRUCell, MultiRNNCell

    rng = np.random.RandomState(3)
    steps = [rng.rand(3, 2).astype(np.float32) for _ in range(4)]
    cells = 2
    per_cell = (2,) if kind == "lstm" else ()
    fed = rng.uniform(-1, 1, (cells, *per_cell, 3, 5)).astype(np.float32)
    graph, groups = tf.Graph(), {}
    with graph.as_default(), v1.Session(graph=graph) as sess:
        xs = [v1.placeholder(tf.float32, [3, 2]) for _ in steps]
        cell = MultiRNNCell([(BasicLSTMCell if kind == "lstm" else GRUCell)(5) for _ in range(cells)])
        init = cell.zero_state(3, tf.float32)
        outputs, final = seq2seq.rnn_decoder(xs, init, cell)
        _rnn_decoder(groups, (outputs, final), None, xs, init, cell)
        module_dict = {"init": init, "final": final}
        [feed] = state_feeds(ast.parse("feed[init] = s"), module_dict, groups, tf)
        stacked = stacked_states(module_dict, groups, graph, tf)["final"]
        target = tf.concat([outputs[-1], tf.reshape(stacked, [3, -1]) if kind == "gru" else
                            tf.reshape(tf.transpose(stacked, [2, 0, 1, 3]), [3, -1])], 1)
        sess.run(v1.global_variables_initializer())
        variables = v1.global_variables()
        values = dict(zip([v.op.name for v in variables], sess.run(variables)))
        flat_init = tf.nest.flatten(init)
        flat_fed = [part for cell_value in fed for part in (cell_value if kind == "lstm" else [cell_value])]
        expected = sess.run(target, {**dict(zip(xs, steps)), **dict(zip(flat_init, flat_fed))})
        attrs = {name: name.replace("/", "_") for name in values}
        args = {x.op.name: f"x{i}" for i, x in enumerate(xs)}
        tr = Translator("<test>", [], sess, {}, attrs, {**args, feed.op.name: "init"}, groups)
        lines, expr = tr.function(target)
    assert feed.shape.as_list() == [cells, *per_cell, 3, 5]
    calls = [line.code for line in lines if " = basic_lstm(" in line.code or " = gru(" in line.code]
    assert [c.count(f"initial_state=init[{n}]") for n, c in enumerate(calls)] == [1] * cells, calls
    model = type("M", (), {})()
    for name, attr in attrs.items():
        setattr(model, attr, tf.Variable(values[name]))
    scope = {"tf": tf, "self": model, "init": tf.constant(fed), **{f"x{i}": tf.constant(s) for i, s in enumerate(steps)}}
    exec(LSTM_HELPER if kind == "lstm" else GRU_HELPER, scope)
    exec(compile("\n".join(line.code for line in lines) + f"\nresult = {expr}", "<written>", "exec"), scope)
    np.testing.assert_allclose(scope["result"].numpy(), expected, rtol=1e-5, atol=1e-6)


def test_a_run_assigning_the_optimizers_learning_rate_variable_assigns_the_keras_optimizers():
    """`sess.run(tf.assign(model.lr, base * decay ** e))` (char-rnn) and `sess.run(lr.assign(...))`: the Keras
    optimizer's own learning-rate variable, assigned where TF1 assigned it; any other assign stays a TODO."""
    source = textwrap.dedent("""\
        import tensorflow as tf
        sess = tf.Session()
        for e in range(3):
            sess.run(tf.assign(lr, base * (decay ** e)))
            sess.run(lr.assign(0.5))
            sess.run(tf.assign(w, 0.5))
            l, _ = sess.run([loss, train], {x: data})
    """)
    plan = carried.Plan(graph={"x", "loss", "train", "sess", "lr", "w"}, train={"train"},
                        methods={"loss": ("model.loss", ["x"])}, step_args=["x"], loss="loss", tf_names={"tf"},
                        placeholders={"x"}, values={"lr": "optimizer.learning_rate.numpy()",
                                                    "w": "model.w.numpy()"})
    kept = carried.rewrite(source, plan, first_step_line=7)
    tail = "\n".join(kept.tail)
    assert "    optimizer.learning_rate.assign(base * decay ** e)\n" \
           "    optimizer.learning_rate.assign(0.5)\n" in tail, tail
    assert len(kept.todos) == 1 and "tf.assign(w, 0.5)" in kept.todos[0], kept.todos


def _record(side, rates, schedule="", keras_rate=None):
    record = SideRecord(side, f"{side}.py", learning_rates=list(rates), schedule=schedule)
    if keras_rate is not None:
        record.optimizer = {"settings": {"learning_rate": keras_rate}}
    return record


def test_a_learning_rate_variable_the_script_sets_is_judged_by_the_rates_each_step_used():
    """TF1's rate read from a variable (set from Python between runs) is no schedule in the graph, as the Keras
    optimizer's variable is none: the same rates at every step are a note (what either sets later is not compared),
    a rate that differs at a step is decisive; a graph schedule forgotten is still decisive."""
    with tf.Graph().as_default():
        lr = v1.Variable(0.0, trainable=False, name="lr")
        assert tf1_text(lr.value()) == f"{SET_BY_SCRIPT} (lr)"
        assert tf1_text(tf.constant(0.1)) == "constant"
    tf1 = _record("tf1", [0.002, 0.002, 0.002], f"{SET_BY_SCRIPT} (lr)")
    [same] = _learning_rates(tf1, _record("tf2", [0.002] * 3, keras_rate=0.002), 3)
    assert not same.decisive and "is the same at each of the 3 steps compared" in same.text, same.text
    [other] = _learning_rates(tf1, _record("tf2", [0.002, 0.002, 0.001], keras_rate=0.002), 3)
    assert other.decisive and "first differ at step 3 (0.002 in TF1, 0.001 in TF2)" in other.text, other.text
    scheduled = _record("tf1", [0.1] * 3, "tf.train.exponential_decay(initial_learning_rate=0.1)")
    [forgotten] = _learning_rates(scheduled, _record("tf2", [0.1] * 3, keras_rate=0.1), 3)
    assert forgotten.decisive and "only TF1 has a schedule" in forgotten.text


def test_reading_a_constant_leaves_it_feedable_where_tensorflows_own_read_does_not():
    """A stateful RNN's zero state is a constant the script feeds: convert's and pair's children read such values
    (`static_value`), and must not make the script's own feed fail ("may not be fed") where it ran alone."""
    from tfcompare.core.graphs import static_value

    with tf.Graph().as_default() as graph, v1.Session() as sess:
        ours, theirs = tf.zeros([2]), tf.zeros([2])
        np.testing.assert_array_equal(static_value(ours), [0.0, 0.0])
        np.testing.assert_array_equal(tf.get_static_value(theirs), [0.0, 0.0])
        assert (graph.is_feedable(ours), graph.is_feedable(theirs)) == (True, False)
        np.testing.assert_array_equal(sess.run(ours * 2, {ours: [1.0, 2.0]}), [2.0, 4.0])
    assert static_value(3.0) == 3.0 and static_value(tf.constant([1, 2])).tolist() == [1, 2]  # eager, plain


def test_the_models_call_returns_a_fetched_state_beside_its_output_but_not_a_layer_or_a_prediction():
    """`forward.returned_beside`: of the fetched tensors, the one computed from the forward pass's ops beside its
    output (the RNN's final state) is returned by the call; a layer on the way to the output, a prediction computed
    from the output, the loss (it reads the labels) and a tensor reading a fed input the output does not read are
    not."""
    from tfcompare.scripts.convert.forward import returned_beside

    with tf.compat.v1.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [4, 3])
        y = tf.compat.v1.placeholder(tf.float32, [4, 2])
        other = tf.compat.v1.placeholder(tf.float32, [4, 5])
        w = tf.compat.v1.get_variable("w", [3, 5])
        v = tf.compat.v1.get_variable("v", [5, 2])
        h = tf.tanh(tf.matmul(x, w))
        logits = tf.matmul(h, v)
        state = tf.stack([h, h * 2.0])  # beside the output, from the forward pass's own ops
        probs = tf.nn.softmax(logits)
        mixed = logits + tf.reduce_sum(h)  # reads the output too: a prediction, not a state
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        fed_other = h + other
        fetched = [loss, h, probs, state, mixed, fed_other, state]
        assert returned_beside(logits, fetched, [x, y, other]) == [state]
        assert returned_beside(logits, [loss, probs], [x, y, other]) == []
