"""TF2 rewrite of data_pipeline_tf1.py: iterate the same tf.data pipeline eagerly."""
import numpy as np
import tensorflow as tf
import keras

np.random.seed(42)
keras.utils.set_random_seed(42)  # seeds Python, NumPy and TF (Keras 3 initializers)

N, D, H, C = 640, 20, 32, 4
BATCH_SIZE = 32
EPOCHS = 2
LEARNING_RATE = 0.001

X = np.random.randn(N, D).astype(np.float32)
W_teacher = np.random.randn(D, C).astype(np.float32)
y = np.argmax(X.dot(W_teacher), axis=1).astype(np.int64)

# same pipeline: repeat then batch, no shuffle
dataset = tf.data.Dataset.from_tensor_slices((X, y))
dataset = dataset.repeat(EPOCHS).batch(BATCH_SIZE)

model = keras.Sequential([
    keras.Input(shape=(D,)),
    keras.layers.Dense(H, activation="relu"),   # glorot_uniform / zeros, like tf.get_variable
    keras.layers.Dense(C),
])
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
# tf.train.AdamOptimizer uses epsilon=1e-8; Keras defaults to 1e-7
optimizer = keras.optimizers.Adam(learning_rate=LEARNING_RATE, beta_1=0.9,
                                  beta_2=0.999, epsilon=1e-8)


@tf.function
def train_step(features, labels):
    with tf.GradientTape() as tape:
        logits = model(features, training=True)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
    return loss, acc


step = 0
for features, labels in dataset:
    loss_val, acc_val = train_step(features, labels)
    if step % 5 == 0:
        print("step %3d  loss %.5f  acc %.3f" % (step, float(loss_val), float(acc_val)))
    step += 1
print("End of dataset after %d steps" % step)
