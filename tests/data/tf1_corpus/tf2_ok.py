"""Plain TF2 code: nothing should break (written for tfcompare's tests)."""
import tensorflow as tf
from tensorflow.keras.layers import Dense

layer = Dense(4)


@tf.function
def step(x):
    return tf.reduce_sum(layer(x))
