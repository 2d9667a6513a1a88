# Regression with a 2-layer GRU (MultiRNNCell) + dynamic_rnn, plain SGD (TF 1.x style).
import numpy as np
import tensorflow as tf

np.random.seed(7)
tf.set_random_seed(7)

N_SAMPLES = 800
SEQ_LEN = 12
N_FEATURES = 3
HIDDEN = 16
NUM_LAYERS = 2
BATCH_SIZE = 32
EPOCHS = 3
LEARNING_RATE = 0.1

# Synthetic target: running product of features 0 and 1, plus the last value of feature 2
X_data = np.random.randn(N_SAMPLES, SEQ_LEN, N_FEATURES).astype(np.float32)
y_data = (np.mean(X_data[:, :, 0] * X_data[:, :, 1], axis=1) +
          0.5 * X_data[:, -1, 2]).reshape(-1, 1).astype(np.float32)

inputs = tf.placeholder(tf.float32, [None, SEQ_LEN, N_FEATURES], name="inputs")
targets = tf.placeholder(tf.float32, [None, 1], name="targets")

cells = [tf.nn.rnn_cell.GRUCell(HIDDEN) for _ in range(NUM_LAYERS)]
stacked_cell = tf.nn.rnn_cell.MultiRNNCell(cells)
outputs, final_state = tf.nn.dynamic_rnn(stacked_cell, inputs, dtype=tf.float32)

last_output = outputs[:, -1, :]
predictions = tf.layers.dense(last_output, 1)

loss = tf.reduce_mean(tf.square(predictions - targets))
train_op = tf.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)

n_batches = N_SAMPLES // BATCH_SIZE

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for epoch in range(EPOCHS):
        perm = np.random.permutation(N_SAMPLES)
        epoch_loss = 0.0
        for b in range(n_batches):
            idx = perm[b * BATCH_SIZE:(b + 1) * BATCH_SIZE]
            _, batch_loss = sess.run([train_op, loss],
                                     feed_dict={inputs: X_data[idx], targets: y_data[idx]})
            epoch_loss += batch_loss
        print("epoch %d  train mse %.5f" % (epoch + 1, epoch_loss / n_batches))
    full_mse = sess.run(loss, feed_dict={inputs: X_data, targets: y_data})
    print("final mse on all data: %.5f" % full_mse)
