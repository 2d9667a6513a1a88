"""Gradient accumulation (TF2): gradients of 4 micro-batches are summed into
accumulator variables and then applied once (averaged) with plain SGD.
"""
import numpy as np
import tensorflow as tf

rng = np.random.RandomState(0)
N, D, HIDDEN = 512, 6, 32
MICRO_BATCH = 16
ACCUM_STEPS = 4
EPOCHS = 4
LR = 0.1

X_data = rng.randn(N, D).astype(np.float32)
w_true = 0.4 * rng.randn(D)
y_data = (np.sin(X_data.dot(w_true)) + 0.1 * rng.randn(N)).astype(np.float32)[:, None]

# glorot_uniform kernels and zero biases, as tf.get_variable gave in TF1
model = tf.keras.Sequential([
    tf.keras.Input(shape=(D,)),
    tf.keras.layers.Dense(HIDDEN, activation='tanh'),
    tf.keras.layers.Dense(1),
])
optimizer = tf.keras.optimizers.SGD(learning_rate=LR)   # == tf.train.GradientDescentOptimizer
accum_vars = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]


def compute_loss(x, y):
    return tf.reduce_mean(tf.square(model(x) - y))


@tf.function
def accumulate_step(x, y):
    with tf.GradientTape() as tape:
        loss = compute_loss(x, y)
    grads = tape.gradient(loss, model.trainable_variables)
    for a, g in zip(accum_vars, grads):
        a.assign_add(g)
    return loss


@tf.function
def apply_step():
    optimizer.apply_gradients(
        [(a / ACCUM_STEPS, v) for a, v in zip(accum_vars, model.trainable_variables)])


def zero_accumulators():
    for a in accum_vars:
        a.assign(tf.zeros_like(a))


update = 0
for epoch in range(EPOCHS):
    perm = rng.permutation(N)
    n_micro = N // MICRO_BATCH
    zero_accumulators()
    losses = []
    for m in range(n_micro):
        idx = perm[m * MICRO_BATCH:(m + 1) * MICRO_BATCH]
        l = accumulate_step(tf.constant(X_data[idx]), tf.constant(y_data[idx]))
        losses.append(float(l))
        if (m + 1) % ACCUM_STEPS == 0:
            apply_step()
            zero_accumulators()
            if update % 10 == 0:
                print('update %d, loss %.5f' % (update, np.mean(losses)))
            losses = []
            update += 1
print('full-data loss %.5f' % float(compute_loss(tf.constant(X_data), tf.constant(y_data))))
