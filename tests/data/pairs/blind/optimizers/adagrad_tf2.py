# TF2 port of adagrad_tf1.py: raw tf.Variables, GradientTape, keras Adagrad
import numpy as np
import tensorflow as tf
import keras

# ---- synthetic data (identical to the TF1 script) ----
np.random.seed(0)
N, D, C = 1280, 30, 5
BATCH, STEPS = 64, 80
X_train = np.random.randn(N, D).astype(np.float32)
true_W = np.random.randn(D, C).astype(np.float32)
true_b = np.random.randn(C).astype(np.float32)
y_train = np.argmax(X_train.dot(true_W) + true_b
                    + np.random.randn(N, C), axis=1).astype(np.int64)
W_init = (0.01 * np.random.randn(D, C)).astype(np.float32)

# ---- model ----
W = tf.Variable(W_init, name='W')
b = tf.Variable(tf.zeros([C]), name='b')
params = [W, b]

# TF1 AdagradOptimizer: accum starts at 0.1, update is lr * g / sqrt(accum)
# (no epsilon). Keras adds epsilon inside the sqrt (default 1e-7), so set it to
# 0 to get the exact TF1 update; accum >= 0.1 so there is no division by zero.
optimizer = keras.optimizers.Adagrad(learning_rate=0.1,
                                     initial_accumulator_value=0.1,
                                     epsilon=0.0)


@tf.function
def train_step(batch_x, batch_y):
    with tf.GradientTape() as tape:
        logits = tf.matmul(batch_x, W) + b
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=batch_y, logits=logits))
    grads = tape.gradient(loss, params)
    optimizer.apply_gradients(zip(grads, params))
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), batch_y),
                                 tf.float32))
    return loss, acc


# ---- train ----
for step in range(STEPS):
    idx = (step * BATCH) % N
    loss_val, acc = train_step(X_train[idx:idx + BATCH],
                               y_train[idx:idx + BATCH])
    if (step + 1) % 10 == 0:
        print('step %d  loss %.4f  batch acc %.3f'
              % (step + 1, float(loss_val), float(acc)))
