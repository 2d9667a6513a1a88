# BUG: Keras BatchNormalization momentum left at its default 0.99 (TF1 decay was 0.9)
"""TF2 rewrite of batchnorm_tf1.py: Keras BatchNormalization."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(1)
keras.utils.set_random_seed(1)  # seeds Python, NumPy and TF (Keras 3 initializers)

N, D, H, C = 512, 16, 32, 3
BATCH_SIZE = 32
EPOCHS = 3
DECAY, EPSILON = 0.9, 1e-3

X = (3.0 * np.random.randn(N, D) + 2.0).astype(np.float32)
y = (np.argmax(X[:, :C], axis=1)).astype(np.int64)

bn = keras.layers.BatchNormalization(epsilon=EPSILON, name="bn1")
model = keras.Sequential([
    keras.Input(shape=(D,)),
    keras.layers.Dense(H, use_bias=False),
    bn,
    keras.layers.ReLU(),
    keras.layers.Dense(C),
])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
optimizer = keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # batch statistics + moving-average update
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


step = 0
for epoch in range(EPOCHS):
    for i in range(0, N, BATCH_SIZE):
        loss_val = train_step(X[i:i + BATCH_SIZE], y[i:i + BATCH_SIZE])
        if step % 10 == 0:
            print("step %3d  loss %.5f" % (step, float(loss_val)))
        step += 1

logits = model(X, training=False)
eval_loss = float(loss_fn(y, logits))
eval_acc = float(np.mean(np.argmax(logits.numpy(), 1) == y))
print("inference-mode loss %.5f  acc %.3f" % (eval_loss, eval_acc))
print("moving_mean[:4]", bn.moving_mean.numpy()[:4])
