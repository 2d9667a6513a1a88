"""tf1_cnn.py with Keras 3 layers and a @tf.function step, integer labels. --layout nchw feeds the model
channels-first images (transposed to channels-last inside it: CPU convolutions are NHWC); --rate sets its
Dropout (the model is called with training=True)."""
import argparse

import keras
import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--keep-prob", type=float, default=1.0)
parser.add_argument("--layout", default="nhwc")
parser.add_argument("--rate", type=float, default=0.0)
args = parser.parse_args()

(x_train, y_train), _ = keras.datasets.mnist.load_data()
x_train = (x_train / 255.0).astype(np.float32)[..., np.newaxis]  # NHWC
if args.layout == "nchw":
    x_train = x_train.transpose(0, 3, 1, 2)
init = keras.initializers.RandomNormal(stddev=0.1)


class CNN(keras.Model):
    def __init__(self):
        super().__init__()
        self.conv1 = keras.layers.Conv2D(8, 5, padding="same", activation="relu", kernel_initializer=init)
        self.conv2 = keras.layers.Conv2D(16, 5, padding="same", activation="relu", kernel_initializer=init)
        self.pool = keras.layers.MaxPooling2D(2, padding="same")
        self.flat = keras.layers.Flatten()
        self.fc = keras.layers.Dense(64, activation="relu", kernel_initializer=init)
        self.drop = keras.layers.Dropout(args.rate)
        self.out = keras.layers.Dense(10, kernel_initializer=init)

    def call(self, x, training=False):
        if args.layout == "nchw":
            x = tf.transpose(x, [0, 2, 3, 1])
        x = self.pool(self.conv1(x))
        x = self.pool(self.conv2(x))
        return self.out(self.drop(self.fc(self.flat(x)), training=training))


model = CNN()
optimizer = keras.optimizers.Adam(0.001, epsilon=1e-8)


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as tape:
        logits = model(images, training=True)
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for start in range(0, 200 * 32, 32):
    train_step(x_train[start:start + 32], y_train[start:start + 32].astype(np.int64))
