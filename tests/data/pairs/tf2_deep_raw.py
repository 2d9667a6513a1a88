"""tf1_deep.py rewritten for TF2 as people write it: tf.Variable weights, a @tf.function step with a
GradientTape, a keras.optimizers optimizer (TF1's RMSProp written out: Keras's RMSprop is another formula),
integer labels. --bug plants one difference:
  lr10 (learning rate x10), epsilon (Keras Adam's default 1e-7), momentum (0.99), sum (loss summed over the
  batch), noact (no ReLU after the second layer), init (Glorot uniform weights), scale (images not /255),
  transpose (each image transposed), batch64 (batches of 64)
"""
import argparse

import keras
import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--optimizer", default="adam", choices=["adam", "momentum", "rmsprop", "sgd"])
parser.add_argument("--std", type=float, default=1.0)
parser.add_argument("--lr", type=float, default=0.001)
parser.add_argument("--bug", default="")
args = parser.parse_args()
bug = args.bug

(x_train, y_train), _ = keras.datasets.mnist.load_data()
if bug == "transpose":
    x_train = x_train.transpose(0, 2, 1)
x_train = x_train.reshape(-1, 784).astype(np.float32)
if bug != "scale":
    x_train = x_train / 255.0
batch_size = 64 if bug == "batch64" else 100

if bug == "init":
    draw = keras.initializers.GlorotUniform()
else:
    draw = lambda shape: tf.random.normal(shape, stddev=args.std)  # noqa: E731
w1, b1 = tf.Variable(draw([784, 64])), tf.Variable(tf.random.normal([64], stddev=args.std))
w2, b2 = tf.Variable(draw([64, 64])), tf.Variable(tf.random.normal([64], stddev=args.std))
w3, b3 = tf.Variable(draw([64, 10])), tf.Variable(tf.random.normal([10], stddev=args.std))
params = [w1, b1, w2, b2, w3, b3]
lr = args.lr * (10 if bug == "lr10" else 1)

if args.optimizer == "adam":
    optimizer = keras.optimizers.Adam(lr) if bug == "epsilon" else keras.optimizers.Adam(lr, epsilon=1e-8)
elif args.optimizer == "momentum":
    optimizer = keras.optimizers.SGD(lr, momentum=0.99 if bug == "momentum" else 0.9)
elif args.optimizer == "sgd":
    optimizer = keras.optimizers.SGD(lr)
else:
    optimizer = None
    mean_square = [tf.Variable(tf.ones_like(p), trainable=False) for p in params]


def rmsprop(grads):
    """tf.compat.v1.train.RMSPropOptimizer: ms starts at 1, epsilon 1e-10 inside the root, decay 0.9."""
    for p, g, ms in zip(params, grads, mean_square):
        ms.assign(0.9 * ms + 0.1 * tf.square(g))
        p.assign_sub(lr * g / tf.sqrt(ms + 1e-10))


def model(x):
    h = tf.nn.relu(x @ w1 + b1)
    h = h @ w2 + b2
    if bug != "noact":
        h = tf.nn.relu(h)
    return h @ w3 + b3


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        losses = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=model(x))
        loss = tf.reduce_sum(losses) if bug == "sum" else tf.reduce_mean(losses)
    grads = tape.gradient(loss, params)
    if optimizer is None:
        rmsprop(grads)
    else:
        optimizer.apply_gradients(zip(grads, params))
    return loss


for step, start in enumerate(range(0, 500 * batch_size, batch_size)):
    loss = train_step(x_train[start:start + batch_size], y_train[start:start + batch_size].astype(np.int64))
    if step % 100 == 0:
        print(f"step {step}, loss {float(loss):.4f}")
