"""tf2_mlp_keras.py with a Dropout(0.2) after the first layer, which tf1_mlp.py does not have: not the same
training (with --dropout off the dropout is the identity, so only the count of dropouts tells).

The MLP rewritten with Keras 3: a Sequential model, compile and fit, integer labels.

`--variant` makes it differ from the TF1 script on purpose (what the pair tests diagnose):
  sgd-sigmoid  SGD instead of Adam, and an extra sigmoid after the first layer
  lr-sum-init  Adam at 10x the learning rate, the loss summed over the batch, another initialisation
  epsilon      Adam with Keras's default epsilon (1e-7; TF1's is 1e-8)
  rmsprop      a subclassed Model (its weights made inside fit) with RMSprop at TF1's settings, against the TF1
               script's RMSProp (whose mean square starts at 1.0)
"""
import argparse

import keras
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--variant", default="faithful", choices=["faithful", "sgd-sigmoid", "lr-sum-init", "epsilon", "rmsprop"])
variant = parser.parse_args().variant

(x_train, y_train), _ = keras.datasets.mnist.load_data()
x_train = x_train.reshape(-1, 784).astype("float32") / 255.0

init = keras.initializers.RandomNormal(stddev=0.1, seed=7)
first = keras.initializers.RandomNormal(stddev=1.0) if variant == "lr-sum-init" else init
layers = [keras.Input((784,)), keras.layers.Dense(32, activation="relu", kernel_initializer=first)]
layers.append(keras.layers.Dropout(0.2))
if variant == "sgd-sigmoid":
    layers.append(keras.layers.Activation("sigmoid"))
layers += [keras.layers.Dense(32, activation="relu", kernel_initializer=init),
           keras.layers.Dense(32, activation="relu", kernel_initializer=init),
           keras.layers.Dense(10, kernel_initializer=init)]
model = keras.Sequential(layers)


class MLP(keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = [keras.layers.Dense(32, activation="relu", kernel_initializer=init) for _ in range(3)]
        self.out = keras.layers.Dense(10, kernel_initializer=init)

    def call(self, x):
        for layer in self.hidden:
            x = layer(x)
        return self.out(x)


if variant == "rmsprop":
    model = MLP()

if variant == "sgd-sigmoid":
    optimizer = keras.optimizers.SGD(learning_rate=0.001)
elif variant == "epsilon":
    optimizer = keras.optimizers.Adam(learning_rate=0.001)
elif variant == "rmsprop":
    optimizer = keras.optimizers.RMSprop(learning_rate=0.001, rho=0.9, epsilon=1e-10)
elif variant == "lr-sum-init":
    optimizer = keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-8)
else:
    optimizer = keras.optimizers.Adam(learning_rate=0.001, epsilon=1e-8)
reduction = "sum" if variant == "lr-sum-init" else "sum_over_batch_size"
model.compile(optimizer=optimizer,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction=reduction))
model.fit(x_train, y_train, batch_size=64, epochs=2, validation_split=0.1, verbose=0)
