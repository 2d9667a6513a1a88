"""Peephole LSTM (dynamic_rnn) for sequence regression: predict the sum of a noisy sine window."""
from __future__ import print_function
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

np.random.seed(1234)
tf.set_random_seed(1234)

# ---- hyperparameters ----
TIME_STEPS = 20
INPUT_DIM = 2
NUM_UNITS = 32
NUM_PROJ = 16
LEARNING_RATE = 0.01
BATCH_SIZE = 64
TRAINING_STEPS = 300
DISPLAY_STEP = 50


def generate_data(n):
    """Each sequence: a sine wave with random phase/frequency plus noise channel.
    Target: the next value of the sine wave after the window."""
    phase = np.random.uniform(0, 2 * np.pi, size=(n, 1))
    freq = np.random.uniform(0.1, 0.3, size=(n, 1))
    t = np.arange(TIME_STEPS + 1)[None, :]
    wave = np.sin(freq * t + phase)
    noise = 0.1 * np.random.randn(n, TIME_STEPS)
    x = np.stack([wave[:, :TIME_STEPS] + noise, np.tile(freq, (1, TIME_STEPS))], axis=2)
    y = wave[:, TIME_STEPS:TIME_STEPS + 1]
    return x.astype(np.float32), y.astype(np.float32)


train_x, train_y = generate_data(4000)
test_x, test_y = generate_data(500)

# ---- graph ----
x = tf.placeholder(tf.float32, [None, TIME_STEPS, INPUT_DIM], name="x")
y = tf.placeholder(tf.float32, [None, 1], name="y")

weights = {
    'out': tf.Variable(tf.random_normal([NUM_PROJ, 1], stddev=0.1), name="w_out")
}
biases = {
    'out': tf.Variable(tf.constant(0.0, shape=[1]), name="b_out")
}

cell = tf.nn.rnn_cell.LSTMCell(NUM_UNITS, use_peepholes=True, cell_clip=10.0,
                               num_proj=NUM_PROJ, forget_bias=1.0)
outputs, states = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)

# take the last time step: [batch, time, proj] -> [time, batch, proj]
outputs = tf.transpose(outputs, [1, 0, 2])
last = tf.gather(outputs, int(outputs.get_shape()[0]) - 1)

prediction = tf.matmul(last, weights['out']) + biases['out']
loss = tf.reduce_mean(tf.square(prediction - y))
optimizer = tf.train.AdamOptimizer(learning_rate=LEARNING_RATE)
train_op = optimizer.minimize(loss)

init = tf.global_variables_initializer()

with tf.Session() as sess:
    sess.run(init)
    for step in range(1, TRAINING_STEPS + 1):
        idx = np.random.randint(0, train_x.shape[0], BATCH_SIZE)
        batch_x, batch_y = train_x[idx], train_y[idx]
        _, l = sess.run([train_op, loss], feed_dict={x: batch_x, y: batch_y})
        if step % DISPLAY_STEP == 0 or step == 1:
            print("Step " + str(step) + ", Minibatch MSE= " + "{:.5f}".format(l))
    print("Optimization Finished!")

    test_mse = sess.run(loss, feed_dict={x: test_x, y: test_y})
    print("Test MSE: {:.5f}".format(test_mse))
    baseline = np.mean(np.square(test_y - np.mean(train_y)))
    print("Baseline (predict mean) MSE: {:.5f}".format(baseline))
