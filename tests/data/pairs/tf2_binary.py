"""tf1_binary.py in TF2, a Keras Dense layer and a @tf.function step, in two ways people write it:
  --case float-labels  class ids held as floats (cast inside the step), batches of 32
  --case global-batch  batches of 64, and the step reshapes its labels with the global batch_size
"""
import argparse

import keras
import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--case", default="float-labels")
args = parser.parse_args()
batch_size = 64 if args.case == "global-batch" else args.batch

rng = np.random.default_rng(0)
points = rng.normal(size=(2048, 2)).astype(np.float32)
classes = (points.sum(axis=1) > 0).astype(np.float32)

layer = keras.layers.Dense(2, kernel_initializer=keras.initializers.RandomNormal(stddev=0.1))
optimizer = keras.optimizers.SGD(0.5)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        labels = tf.cast(y, tf.int32)
        if args.case == "global-batch":
            labels = tf.reshape(labels, [batch_size])
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=layer(x)))
    grads = tape.gradient(loss, layer.trainable_variables)
    optimizer.apply_gradients(zip(grads, layer.trainable_variables))
    return loss


for start in range(0, 2048 - batch_size + 1, batch_size):
    train_step(points[start:start + batch_size], classes[start:start + batch_size])
