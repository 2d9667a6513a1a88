"""A TF1 LSTM classifier of MNIST rows (28 steps of 28 pixels), its cell written out (the gates in Keras's
order i, f, c, o; Glorot-uniform input kernel, orthogonal recurrent kernel, forget-gate bias 1), a Session loop,
one-hot labels, Adam."""
import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
timesteps, num_input, num_hidden, num_classes = 28, 28, 32, 10

X = tf.placeholder("float", [None, timesteps, num_input])
Y = tf.placeholder("float", [None, num_classes])
kernel = tf.get_variable("kernel", [num_input, 4 * num_hidden], initializer=tf.glorot_uniform_initializer())
recurrent = tf.get_variable("recurrent_kernel", [num_hidden, 4 * num_hidden], initializer=tf.orthogonal_initializer())
bias = tf.Variable(np.concatenate([np.zeros(num_hidden), np.ones(num_hidden), np.zeros(2 * num_hidden)])
                   .astype(np.float32), name="bias")
out_w = tf.Variable(tf.random_normal([num_hidden, num_classes], stddev=0.1), name="out_w")
out_b = tf.Variable(tf.zeros([num_classes]), name="out_b")


def lstm(x):
    batch = tf.shape(x)[0]
    h = c = tf.zeros([batch, num_hidden])
    for t in range(timesteps):
        z = tf.matmul(x[:, t, :], kernel) + tf.matmul(h, recurrent) + bias
        i, f, g, o = tf.split(z, 4, axis=1)
        c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)
        h = tf.sigmoid(o) * tf.tanh(c)
    return h


logits = tf.matmul(lstm(X), out_w) + out_b
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
train_op = tf.train.AdamOptimizer(learning_rate=0.001).minimize(loss_op)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, 201):
        batch_x, batch_y = mnist.train.next_batch(64)
        sess.run(train_op, feed_dict={X: batch_x.reshape((64, timesteps, num_input)), Y: batch_y})
