"""tf1_deep.py rewritten with Keras 3: a Sequential model trained by fit on a tf.data pipeline that reshapes,
normalises (/255), shuffles and batches. --bug as in tf2_deep_raw.py (lr10, epsilon, momentum, scale, batch64)."""
import argparse

import keras
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--optimizer", default="adam", choices=["adam", "momentum", "sgd"])
parser.add_argument("--std", type=float, default=1.0)
parser.add_argument("--lr", type=float, default=0.001)
parser.add_argument("--bug", default="")
args = parser.parse_args()

(x_train, y_train), _ = keras.datasets.mnist.load_data()


def prepare(image, label):
    image = tf.reshape(tf.cast(image, tf.float32), [784])
    return (image if args.bug == "scale" else image / 255.0), tf.cast(label, tf.int64)


dataset = (tf.data.Dataset.from_tensor_slices((x_train, y_train)).map(prepare).shuffle(10000)
           .batch(64 if args.bug == "batch64" else 100))

draw = keras.initializers.RandomNormal(stddev=args.std)
model = keras.Sequential([
    keras.Input((784,)),
    keras.layers.Dense(64, activation="relu", kernel_initializer=draw, bias_initializer=draw),
    keras.layers.Dense(64, activation="relu", kernel_initializer=draw, bias_initializer=draw),
    keras.layers.Dense(10, kernel_initializer=draw, bias_initializer=draw),
])
lr = args.lr * (10 if args.bug == "lr10" else 1)
if args.optimizer == "adam":
    optimizer = keras.optimizers.Adam(lr) if args.bug == "epsilon" else keras.optimizers.Adam(lr, epsilon=1e-8)
else:
    optimizer = keras.optimizers.SGD(lr, momentum=0.0 if args.optimizer == "sgd" else
                                     0.99 if args.bug == "momentum" else 0.9)
model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(dataset, epochs=5, verbose=2)
