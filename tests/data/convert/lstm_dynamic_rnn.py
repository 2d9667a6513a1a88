"""An LSTM classifier in the style of public dynamic_rnn examples: tf.nn.rnn_cell.BasicLSTMCell run by
tf.nn.dynamic_rnn over batch-major sequences, the last time step (outputs[:, -1, :]) through a dense layer,
softmax cross-entropy, Adam, and an accuracy evaluated every few steps."""
import argparse

import numpy as np
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=100)
args = parser.parse_args()

timesteps, num_input, num_hidden, num_classes = 7, 5, 12, 3
rng = np.random.RandomState(9)
sequences = rng.rand(640, timesteps, num_input).astype(np.float32)
classes = np.eye(num_classes, dtype=np.float32)[sequences[:, -1, :3].argmax(1)]
batch_size = 32
display_step = 20

X = tf.placeholder(tf.float32, [None, timesteps, num_input])
Y = tf.placeholder(tf.float32, [None, num_classes])
weights = {"out": tf.Variable(tf.random_normal([num_hidden, num_classes]))}
biases = {"out": tf.Variable(tf.random_normal([num_classes]))}

lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(num_hidden, forget_bias=1.0)
outputs, states = tf.nn.dynamic_rnn(lstm_cell, X, dtype=tf.float32)
logits = tf.matmul(outputs[:, -1, :], weights["out"]) + biases["out"]
prediction = tf.nn.softmax(logits)

loss_op = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(logits=logits, labels=Y))
train_op = tf.train.AdamOptimizer(learning_rate=0.01).minimize(loss_op)
correct_pred = tf.equal(tf.argmax(prediction, 1), tf.argmax(Y, 1))
accuracy = tf.reduce_mean(tf.cast(correct_pred, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for step in range(1, args.steps + 1):
        start = (step * batch_size) % len(sequences)
        batch_x, batch_y = sequences[start:start + batch_size], classes[start:start + batch_size]
        sess.run(train_op, feed_dict={X: batch_x, Y: batch_y})
        if step % display_step == 0 or step == 1:
            loss, acc = sess.run([loss_op, accuracy], feed_dict={X: batch_x, Y: batch_y})
            print("Step " + str(step) + ", Minibatch Loss= " + "{:.4f}".format(loss) + ", Training Accuracy= " +
                  "{:.3f}".format(acc))
