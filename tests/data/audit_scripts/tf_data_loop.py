"""A Keras 3 model trained by a custom loop over tf.data: 100 examples in batches of 32, so the last batch has 4 and
the step traces again (both arguments change in the one retrace). Lines are asserted in tests: edit with care."""
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((10,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])
optimizer = keras.optimizers.SGD(learning_rate=0.01)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
features = tf.random.normal([100, 10])
labels = tf.random.uniform([100], maxval=3, dtype=tf.int32)
dataset = tf.data.Dataset.from_tensor_slices((features, labels)).batch(32)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    return loss


for epoch in range(2):
    for x, y in dataset:
        train_step(x, y)  # line 25: the last batch of 4 retraces once
