"""A TF1 MLP in the style of the public TF1 examples (neural_network_raw.py): weights and biases drawn with
`tf.random_normal` (stddev 1 unless --std says otherwise, which sets the loss scale: ~2 at 0.01, ~1e3 at 1,
~1e5 at 4), one-hot labels, a mean softmax cross-entropy, a Session loop of batches of 100.
"""
import argparse

import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data

parser = argparse.ArgumentParser()
parser.add_argument("--optimizer", default="adam", choices=["adam", "momentum", "rmsprop", "sgd"])
parser.add_argument("--std", type=float, default=1.0)
parser.add_argument("--lr", type=float, default=0.001)
parser.add_argument("--bug", default="")  # the TF2 scripts' planted bugs; the TF1 script ignores it
args = parser.parse_args()

mnist = input_data.read_data_sets("/tmp/data/", one_hot=True)
n_hidden_1, n_hidden_2, n_input, n_classes = 64, 64, 784, 10

X = tf.placeholder("float", [None, n_input])
Y = tf.placeholder("float", [None, n_classes])
weights = {
    "h1": tf.Variable(tf.random_normal([n_input, n_hidden_1], stddev=args.std)),
    "h2": tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2], stddev=args.std)),
    "out": tf.Variable(tf.random_normal([n_hidden_2, n_classes], stddev=args.std)),
}
biases = {
    "b1": tf.Variable(tf.random_normal([n_hidden_1], stddev=args.std)),
    "b2": tf.Variable(tf.random_normal([n_hidden_2], stddev=args.std)),
    "out": tf.Variable(tf.random_normal([n_classes], stddev=args.std)),
}


def neural_net(x):
    layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights["h1"]), biases["b1"]))
    layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights["h2"]), biases["b2"]))
    return tf.matmul(layer_2, weights["out"]) + biases["out"]


logits = neural_net(X)
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
if args.optimizer == "adam":
    optimizer = tf.train.AdamOptimizer(learning_rate=args.lr)
elif args.optimizer == "momentum":
    optimizer = tf.train.MomentumOptimizer(learning_rate=args.lr, momentum=0.9)
elif args.optimizer == "rmsprop":
    optimizer = tf.train.RMSPropOptimizer(learning_rate=args.lr)
else:
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=args.lr)
train_op = optimizer.minimize(loss_op)

init = tf.global_variables_initializer()
with tf.Session() as sess:
    sess.run(init)
    for step in range(1, 501):
        batch_x, batch_y = mnist.train.next_batch(100)
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % 100 == 0:
            loss = sess.run(loss_op, feed_dict={X: batch_x, Y: batch_y})
            print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss))
