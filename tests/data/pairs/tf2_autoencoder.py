"""tf1_autoencoder.py in TF2: Keras 3 Dense layers in a subclassed Model (RandomNormal(stddev=1) weights and
biases, as tf.random_normal draws), a @tf.function step of one argument, keras.optimizers.Adam(epsilon=1e-8)."""
import keras
import numpy as np
import tensorflow as tf

(x_train, _), _ = keras.datasets.mnist.load_data()
x_train = x_train.reshape(-1, 784).astype(np.float32) / 255.0
draw = keras.initializers.RandomNormal(stddev=1.0)


def dense(units):
    return keras.layers.Dense(units, activation="sigmoid", kernel_initializer=draw, bias_initializer=draw)


class AutoEncoder(keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = keras.Sequential([dense(128), dense(32)])
        self.decoder = keras.Sequential([dense(128), dense(784)])

    def call(self, x):
        return self.decoder(self.encoder(x))


model = AutoEncoder()
optimizer = keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-8)


@tf.function
def train_step(batch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(batch - model(batch)))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


for start in range(0, 1000 * 64, 64):
    train_step(x_train[start % 2048:start % 2048 + 64])
