# Bidirectional LSTM classifier: tf.nn.bidirectional_dynamic_rnn with two tf.contrib.rnn.LSTMCell.
import tensorflow as tf
import numpy as np

np.random.seed(99)
tf.set_random_seed(99)

# Hyper-parameters
n_examples = 960
n_steps = 14
n_input = 2
n_hidden = 16
n_classes = 4
batch_size = 32
epochs = 3
learning_rate = 0.003

# 4 classes from the sign of feature 0 at the first and at the last step: needs both ends of the sequence
data_x = np.random.randn(n_examples, n_steps, n_input).astype(np.float32)
data_y = (2 * (data_x[:, 0, 0] > 0) + (data_x[:, -1, 0] > 0)).astype(np.int64)
data_y_onehot = np.eye(n_classes, dtype=np.float32)[data_y]

x = tf.placeholder(tf.float32, [None, n_steps, n_input])
y = tf.placeholder(tf.float32, [None, n_classes])

lstm_fw_cell = tf.contrib.rnn.LSTMCell(n_hidden)
lstm_bw_cell = tf.contrib.rnn.LSTMCell(n_hidden)

(output_fw, output_bw), _ = tf.nn.bidirectional_dynamic_rnn(
    lstm_fw_cell, lstm_bw_cell, x, dtype=tf.float32)

# output_bw is already reversed back to input order, so the backward pass's
# final output (after reading the whole sequence) sits at time 0
last_fw = output_fw[:, -1, :]
last_bw = output_bw[:, 0, :]
last = tf.concat([last_fw, last_bw], axis=1)

out_w = tf.get_variable("out_w", [2 * n_hidden, n_classes])
out_b = tf.get_variable("out_b", [n_classes], initializer=tf.constant_initializer(0.0))
logits = tf.matmul(last, out_w) + out_b

cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate).minimize(cost)

correct = tf.equal(tf.argmax(logits, 1), tf.argmax(y, 1))
accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    n_batches = n_examples // batch_size
    for epoch in range(epochs):
        shuffle_idx = np.random.permutation(n_examples)
        xs, ys = data_x[shuffle_idx], data_y_onehot[shuffle_idx]
        total_cost, total_acc = 0.0, 0.0
        for i in range(n_batches):
            bx = xs[i * batch_size:(i + 1) * batch_size]
            by = ys[i * batch_size:(i + 1) * batch_size]
            _, c, a = sess.run([optimizer, cost, accuracy], feed_dict={x: bx, y: by})
            total_cost += c
            total_acc += a
        print("Epoch %d, cost = %.4f, accuracy = %.4f" % (epoch + 1, total_cost / n_batches, total_acc / n_batches))
    print("Final accuracy: %.4f" % sess.run(accuracy, feed_dict={x: data_x, y: data_y_onehot}))
