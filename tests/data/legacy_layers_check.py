"""The legacy runtime's tf.layers (tfcompare/scripts/legacy/tf_layers.py) against the real tf.compat.v1.layers of
tf-keras 2.21 (TF's own TF1 layers), graph by graph: variable names, shapes, trainable flags and collections, op
names and static shapes of the outputs, forward values, gradients (variables and inputs, regularization losses
included), and the variables after each UPDATE_OPS op has run once. Not a pytest module: tests run without
tf-keras. Run it with tf-keras importable, e.g.

    pip install --no-deps --target /tmp/tfk tf-keras==2.21.0
    PYTHONPATH=/tmp/tfk:. TF_USE_LEGACY_KERAS=1 python tests/data/legacy_layers_check.py

Every variable is set to the same seeded values by name before the run, so both sides start alike."""
import numpy as np
import tensorflow as tf
from tfcompare.scripts.legacy import tf_layers as mine
v1 = tf.compat.v1
real = v1.layers
assert "tf_keras" in type(real.dense).__module__ or "tf_keras" in real.dense.__module__, real.dense.__module__
KEYS = ["variables", "trainable_variables", "moving_average_variables", "model_variables", "local_variables"]
rng0 = np.random.default_rng(0)
X2, X3 = rng0.normal(size=(6, 5)).astype("f"), rng0.normal(size=(4, 3, 5)).astype("f")
X4 = rng0.normal(1.0, 2.0, size=(3, 7, 7, 2)).astype("f")
X4F = rng0.normal(size=(3, 2, 7, 7)).astype("f")
X5 = rng0.normal(size=(2, 4, 5, 5, 2)).astype("f")
X1D = rng0.normal(size=(3, 9, 2)).astype("f")
reg = lambda w: 0.01 * tf.reduce_sum(w * w)

CASES = {
 "dense_rank2_relu_reg": lambda L, P: [L.dense(P(X2), 4, tf.nn.relu, kernel_regularizer=reg, bias_initializer=tf.ones_initializer())],
 "dense_rank3": lambda L, P: [L.dense(P(X3), 4)],
 "dense_names_reuse": lambda L, P: [L.dense(P(X2), 3), L.dense(X2, 3), L.dense(X2, 3, name="fc"), L.dense(X2, 3, name="fc", reuse=True)],
 "conv1d_same_s2": lambda L, P: [L.conv1d(P(X1D), 3, 3, 2, "SAME", activation=tf.nn.tanh)],
 "conv1d_causal_dil2": lambda L, P: [L.conv1d(P(X1D), 3, 3, padding="causal", dilation_rate=2)],
 "conv2d_valid_s2": lambda L, P: [L.conv2d(P(X4), 3, (3, 2), strides=2, padding="valid", activation=tf.nn.relu)],
 "conv2d_same_dil2": lambda L, P: [L.conv2d(P(X4, [None, 7, 7, 2]), 3, 3, padding="Same", dilation_rate=2, kernel_regularizer=reg)],
 "conv2d_channels_first": lambda L, P: [L.conv2d(P(X4F), 3, 3, padding="same", data_format="channels_first")],
 "conv3d": lambda L, P: [L.conv3d(P(X5), 2, 2, padding="same", strides=(1, 2, 1))],
 "pools3d": lambda L, P: (lambda x: [L.max_pooling3d(x, 2, 2), L.average_pooling3d(x, 2, 1, "same")])(P(X5)),
 "pools2d_channels_first_fwd": lambda L, P: [tf.stop_gradient(L.max_pooling2d(P(X4F), 2, 2, data_format="channels_first"))],
 "conv2d_transpose_valid_s2": lambda L, P: [L.conv2d_transpose(P(X4), 3, 3, 2)],
 "conv2d_transpose_same_s2_dyn": lambda L, P: [L.conv2d_transpose(P(X4, [None, None, None, 2]), 3, (3, 2), (2, 3), "same", activation=tf.nn.relu)],
 "separable_conv2d": lambda L, P: [L.separable_conv2d(P(X4), 4, 3, padding="same", depth_multiplier=2)],
 "pools2d": lambda L, P: (lambda x: [L.max_pooling2d(x, 2, 2), L.max_pooling2d(x, 3, 2, "same"), L.average_pooling2d(x, 2, 1), L.average_pooling2d(x, 3, 2, "SAME")])(P(X4)),
 "pools1d": lambda L, P: (lambda x: [L.max_pooling1d(x, 2, 2), L.average_pooling1d(x, 3, 2, "same")])(P(X1D)),
 "flatten": lambda L, P: [L.flatten(P(X4, [None, 7, 7, 2])), L.flatten(X4F, data_format="channels_first")],
 "dropout_off": lambda L, P: [L.dropout(P(X2), 0.5), L.dropout(X2, 0.5, training=False)],
 "bn2d_train": lambda L, P: [L.batch_normalization(P(X2), training=True, momentum=0.9)],
 "bn2d_infer": lambda L, P: [L.batch_normalization(P(X2))],
 "bn4d_fused_train": lambda L, P: [L.batch_normalization(P(X4), training=True, momentum=0.9)],
 "bn4d_fused_infer": lambda L, P: [L.batch_normalization(P(X4), training=False)],
 "bn4d_nofused_train": lambda L, P: [L.batch_normalization(P(X4), training=True, fused=False)],
 "bn4d_axis1_fused": lambda L, P: [L.batch_normalization(P(X4F), axis=1, training=True, center=False)],
 "bn3d_train": lambda L, P: [L.batch_normalization(P(X3), training=True, scale=False, gamma_regularizer=reg)],
 "classes": lambda L, P: (lambda x: (lambda d, c, b: [d(L.flatten(b(c(x), training=True))), d(L.flatten(b(c(x), training=True)))])(L.Dense(3), L.Conv2D(2, 3), L.BatchNormalization()))(P(X4)),
}
for flag in (True, False):
    CASES[f"bn4d_placeholder_{flag}"] = (lambda flag: lambda L, P: [L.batch_normalization(P(X4), training=v1.placeholder_with_default(flag, []), momentum=0.8)])(flag)
    CASES[f"bn2d_placeholder_{flag}"] = (lambda flag: lambda L, P: [L.batch_normalization(P(X2), training=v1.placeholder_with_default(flag, []), momentum=0.8)])(flag)

def run(L, build):
    feeds = []

    def placeholder(x, shape=None):  # a float32 placeholder fed with x
        feeds.append((v1.placeholder(tf.float32, shape or x.shape), x))
        return feeds[-1][0]

    with tf.Graph().as_default() as g:
        v1.set_random_seed(1)
        outs = build(L, placeholder)
        variables = v1.global_variables()
        meta = [(v.op.name, tuple(v.shape.as_list()), v in v1.trainable_variables()) for v in variables]
        colls = {k: sorted(v.op.name for v in g.get_collection(k)) for k in KEYS}
        colls["n_reg_losses"] = len(v1.losses.get_regularization_losses())
        colls["n_update_ops"] = len(g.get_collection(v1.GraphKeys.UPDATE_OPS))
        w = [tf.constant(np.random.default_rng(i).normal(size=[d or 1 for d in o.shape.as_list()]).astype("f")) for i, o in enumerate(outs)]
        loss = tf.add_n([tf.reduce_sum(o * wi) for o, wi in zip(outs, w)] + v1.losses.get_regularization_losses())
        targets = [v for v in v1.trainable_variables()] + [ph for ph, _ in feeds]
        grads = tf.gradients(loss, targets)
        feed = {ph: x for ph, x in feeds}
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            for v in sorted(variables, key=lambda v: v.op.name):
                r = np.random.default_rng(sum(map(ord, v.op.name)))
                val = r.normal(size=v.shape).astype("f")
                if "variance" in v.op.name: val = np.abs(val) + 0.5
                v.load(val, s)
            got = s.run(outs + [loss] + [gr for gr in grads if gr is not None], feed)
            for op in g.get_collection(v1.GraphKeys.UPDATE_OPS):  # one at a time: two updates of one variable race
                s.run(op, feed)
            after = {v.op.name: s.run(v) for v in variables}
    return meta, colls, got, after, [o.shape.as_list() for o in outs], [o.name for o in outs]

for name, build in CASES.items():
    try:
        ref = run(real, build)
    except Exception as e:
        print(f"{name}: SKIP (real tf.layers fails: {type(e).__name__}: {str(e)[:120]})"); continue
    try:
        got = run(mine, build)
    except Exception as e:
        print(f"{name}: MINE FAILS {type(e).__name__}: {e}"); continue
    problems = []
    for i, what in enumerate(["variables", "collections"]):
        if got[i] != ref[i]: problems.append(f"{what}: mine {got[i]} real {ref[i]}")
    if got[4] != ref[4]: problems.append(f"static shapes {got[4]} vs {ref[4]}")
    if got[5] != ref[5]: problems.append(f"(op names {got[5]} vs {ref[5]})")
    diff = max(float(np.max(np.abs(a - b))) if np.size(a) else 0.0 for a, b in zip(got[2], ref[2])) if len(got[2]) == len(ref[2]) else None
    if diff is None: problems.append(f"{len(got[2])} vs {len(ref[2])} fetched values")
    vdiff = max([float(np.max(np.abs(got[3][k] - ref[3][k]))) for k in ref[3] if k in got[3]] or [0.0])
    ok = diff is not None and diff <= 1e-5 and vdiff <= 1e-5 and not [p for p in problems if not p.startswith("(")]
    print(f"{name}: {'OK' if ok else 'DIFFER'} max|out/grad diff|={diff} max|var after updates diff|={vdiff}"
          + "".join("\n    " + p for p in problems))

# dropout training=True: zeros appear, kept values scaled by 1/(1-rate), in both
for L, label in ((mine, "mine"), (real, "real")):
    with tf.Graph().as_default(), v1.Session() as s:
        x = tf.ones([200, 50])
        a, b = s.run([L.dropout(x, 0.3, training=True), L.dropout(x, 0.3, training=v1.placeholder_with_default(True, []))])
        print(f"dropout training=True {label}: zero fraction {np.mean(a == 0):.3f} / {np.mean(b == 0):.3f}, kept value {a[a != 0].max():.6f} (1/0.7={1/0.7:.6f})")
