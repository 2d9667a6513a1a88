"""An autoencoder in the style of autoencoder.py: sigmoid encoder and decoder layers, a mean squared error,
RMSProp (whose TF1 formula Keras does not share)."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=300)
args = parser.parse_args()

data = np.random.RandomState(3).rand(1024, 64).astype(np.float32)
learning_rate = 0.01
batch_size = 128
num_hidden_1, num_hidden_2, num_input = 32, 16, 64

X = tf.placeholder("float", [None, num_input])
weights = {
    "encoder_h1": tf.Variable(tf.random_normal([num_input, num_hidden_1])),
    "encoder_h2": tf.Variable(tf.random_normal([num_hidden_1, num_hidden_2])),
    "decoder_h1": tf.Variable(tf.random_normal([num_hidden_2, num_hidden_1])),
    "decoder_h2": tf.Variable(tf.random_normal([num_hidden_1, num_input])),
}
biases = {
    "encoder_b1": tf.Variable(tf.random_normal([num_hidden_1])),
    "encoder_b2": tf.Variable(tf.random_normal([num_hidden_2])),
    "decoder_b1": tf.Variable(tf.random_normal([num_hidden_1])),
    "decoder_b2": tf.Variable(tf.random_normal([num_input])),
}


def encoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["encoder_h1"]), biases["encoder_b1"]))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights["encoder_h2"]), biases["encoder_b2"]))


def decoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["decoder_h1"]), biases["decoder_b1"]))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights["decoder_h2"]), biases["decoder_b2"]))


encoder_op = encoder(X)
decoder_op = decoder(encoder_op)
y_pred = decoder_op
y_true = X
loss = tf.reduce_mean(tf.pow(y_true - y_pred, 2))
optimizer = tf.train.RMSPropOptimizer(learning_rate).minimize(loss)
init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for i in range(1, args.steps + 1):
        start = (i * batch_size) % len(data)
        batch_x = data[start:start + batch_size]
        _, l = sess.run([optimizer, loss], feed_dict={X: batch_x})
        if i % 100 == 0 or i == 1:
            print("Step %i: Minibatch Loss: %f" % (i, l))
