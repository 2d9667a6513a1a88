# BUG: label_smoothing=0.1 added; TF1 softmax_cross_entropy_with_logits_v2 used hard one-hot labels
"""TF2 rewrite of labels_tf1.py with CategoricalCrossentropy."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(13)
keras.utils.set_random_seed(13)

N, D, H, C = 600, 10, 32, 4
BATCH_SIZE = 50
EPOCHS = 2
LEARNING_RATE = 0.2

X = np.random.randn(N, D).astype(np.float32)
y = np.argmax(X[:, :C] - X[:, C:2 * C], axis=1)
Y_onehot = np.eye(C, dtype=np.float32)[y]

init = keras.initializers.TruncatedNormal(stddev=0.1)  # tf.truncated_normal(stddev=0.1)
model = keras.Sequential([
    keras.Input(shape=(D,)),
    keras.layers.Dense(H, activation="relu", kernel_initializer=init),
    keras.layers.Dense(C, kernel_initializer=init),  # logits
])
loss_fn = keras.losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1)
optimizer = keras.optimizers.SGD(learning_rate=LEARNING_RATE)


@tf.function
def train_step(x, y_true):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y_true, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y_true, 1)), tf.float32))
    return loss, acc


step = 0
for epoch in range(EPOCHS):
    for i in range(0, N, BATCH_SIZE):
        loss_val, acc = train_step(X[i:i + BATCH_SIZE], Y_onehot[i:i + BATCH_SIZE])
        if step % 4 == 0:
            print("step %3d  loss %.5f  acc %.3f" % (step, float(loss_val), float(acc)))
        step += 1
pred = np.argmax(model.predict(X, verbose=0), axis=1)
print("train accuracy %.3f" % np.mean(pred == y))
