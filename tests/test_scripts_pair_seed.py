"""Unseeded NumPy data compares: a pair's two processes seed NumPy's and Python's global generators alike before
the scripts run (said in the output), so two scripts that draw their data without a seed draw the same."""

from tfcompare.scripts.child.processes import PAIR_SEED
from tfcompare.scripts.pair import AGREE, PairOptions, pair_scripts

_DATA = "import numpy as np\nX = np.random.randn(64, 5).astype(np.float32)\nY = X @ np.arange(5.0, dtype=np.float32)[:, None]\n"
_TF1 = _DATA + """import tensorflow as tf
x = tf.placeholder(tf.float32, [None, 5])
y = tf.placeholder(tf.float32, [None, 1])
w = tf.Variable(tf.zeros([5, 1]))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(0, 64, 16):
        sess.run(train, {x: X[i:i + 16], y: Y[i:i + 16]})
"""
_TF2 = _DATA + """import tensorflow as tf
w = tf.Variable(tf.zeros([5, 1]))
opt = tf.keras.optimizers.SGD(0.1)
for i in range(0, 64, 16):  # the gradient inline in the loop: no step function whose inputs pair could replace
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(X[i:i + 16] @ w - Y[i:i + 16]))
    opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
"""


def test_two_scripts_drawing_unseeded_numpy_data_agree_and_the_seed_is_said(tmp_path):
    (tmp_path / "a_tf1.py").write_text(_TF1)
    (tmp_path / "a_tf2.py").write_text(_TF2)
    result = pair_scripts(tmp_path / "a_tf1.py", tmp_path / "a_tf2.py", PairOptions(steps=2))
    assert result.status == AGREE, "\n".join(result.lines())
    assert all(c.loss_rel_err == 0 for c in result.checks)
    assert any(f"seeded with {PAIR_SEED} in both scripts' processes" in n for n in result.notes)
