"""A TF1 autoencoder in the style of the public examples (autoencoder.py): 784-128-32-128-784 sigmoid layers,
weights from tf.random_normal, a mean squared reconstruction error, Adam, unlabelled batches of 64."""
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
X = tf.placeholder("float", [None, 784])
weights = {"encoder_h1": tf.Variable(tf.random_normal([784, 128])), "encoder_h2": tf.Variable(tf.random_normal([128, 32])),
           "decoder_h1": tf.Variable(tf.random_normal([32, 128])), "decoder_h2": tf.Variable(tf.random_normal([128, 784]))}
biases = {"encoder_b1": tf.Variable(tf.random_normal([128])), "encoder_b2": tf.Variable(tf.random_normal([32])),
          "decoder_b1": tf.Variable(tf.random_normal([128])), "decoder_b2": tf.Variable(tf.random_normal([784]))}


def encoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["encoder_h1"]), biases["encoder_b1"]))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights["encoder_h2"]), biases["encoder_b2"]))


def decoder(x):
    layer_1 = tf.nn.sigmoid(tf.add(tf.matmul(x, weights["decoder_h1"]), biases["decoder_b1"]))
    return tf.nn.sigmoid(tf.add(tf.matmul(layer_1, weights["decoder_h2"]), biases["decoder_b2"]))


y_pred = decoder(encoder(X))
loss = tf.reduce_mean(tf.pow(X - y_pred, 2))
optimizer = tf.train.AdamOptimizer(0.01).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(1, 1001):
        batch_x, _ = mnist.train.next_batch(64)
        _, l = sess.run([optimizer, loss], feed_dict={X: batch_x})
