"""A multilayer perceptron in the style of neural_network_raw.py: weights and biases in dicts drawn with
tf.random_normal, a model function, softmax cross-entropy, Adam, accuracy fetched with the loss."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=200)
args = parser.parse_args()

rng = np.random.RandomState(1)
features = rng.rand(2000, 32).astype(np.float32)
labels = np.eye(4, dtype=np.float32)[(features[:, :4] - features[:, 4:8]).argmax(1)]
learning_rate = 0.01
batch_size = 64
display_step = 50
n_hidden_1, n_hidden_2, num_input, num_classes = 24, 16, 32, 4

X = tf.placeholder("float", [None, num_input])
Y = tf.placeholder("float", [None, num_classes])
weights = {
    "h1": tf.Variable(tf.random_normal([num_input, n_hidden_1], stddev=0.1)),
    "h2": tf.Variable(tf.random_normal([n_hidden_1, n_hidden_2], stddev=0.1)),
    "out": tf.Variable(tf.random_normal([n_hidden_2, num_classes], stddev=0.1)),
}
biases = {
    "b1": tf.Variable(tf.zeros([n_hidden_1])),
    "b2": tf.Variable(tf.zeros([n_hidden_2])),
    "out": tf.Variable(tf.zeros([num_classes])),
}


def neural_net(x):
    layer_1 = tf.nn.relu(tf.add(tf.matmul(x, weights["h1"]), biases["b1"]))
    layer_2 = tf.nn.relu(tf.add(tf.matmul(layer_1, weights["h2"]), biases["b2"]))
    return tf.matmul(layer_2, weights["out"]) + biases["out"]


logits = neural_net(X)
loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits, labels=Y))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
train_op = optimizer.minimize(loss_op)
correct_pred = tf.equal(tf.argmax(logits, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))
init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for step in range(1, args.steps + 1):
        start = (step * batch_size) % len(features)
        batch_x, batch_y = features[start:start + batch_size], labels[start:start + batch_size]
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % display_step == 0 or step == 1:
            loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x, Y: batch_y})
            print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss) + ", Training Accuracy= " +
                  "{:.3f}".format(acc))
    print("Testing Accuracy:", sess.run(accuracy, feed_dict={X: features[:256], Y: labels[:256]}))
