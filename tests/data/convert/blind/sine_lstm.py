# Stateful LSTM: learn to predict cos(t) from sin(t), feeding the final
# state of one chunk back in as the initial state of the next chunk.
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()

batch_size = 8
num_steps = 20        # truncated BPTT length
num_units = 32
learning_rate = 0.01
training_steps = 40

# synthetic data: each batch row is a long sine wave with its own phase
total_len = num_steps * training_steps
phase = np.linspace(0, np.pi, batch_size).reshape(batch_size, 1)
t = np.arange(total_len).reshape(1, total_len) * 0.1 + phase
x_data = np.sin(t).reshape(batch_size, total_len, 1).astype(np.float32)
y_data = np.cos(t).reshape(batch_size, total_len, 1).astype(np.float32)

x = tf.placeholder(tf.float32, [batch_size, num_steps, 1])
y = tf.placeholder(tf.float32, [batch_size, num_steps, 1])

cell = tf.nn.rnn_cell.BasicLSTMCell(num_units)
init_state = cell.zero_state(batch_size, tf.float32)
outputs, final_state = tf.nn.dynamic_rnn(cell, x, initial_state=init_state)

# dense output layer applied to every time step
pred = tf.layers.dense(outputs, 1)

loss = tf.reduce_mean(tf.square(pred - y))
train_op = tf.train.AdamOptimizer(learning_rate).minimize(loss)

with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    state_val = None
    for step in range(training_steps):
        start = step * num_steps
        feed = {x: x_data[:, start:start + num_steps],
                y: y_data[:, start:start + num_steps]}
        if state_val is not None:
            # carry the LSTM state over from the previous chunk
            feed[init_state] = state_val
        _, loss_val, state_val = sess.run([train_op, loss, final_state],
                                          feed_dict=feed)
        if (step + 1) % 10 == 0:
            print("Step %d, loss = %.5f" % (step + 1, loss_val))
    print("Done training")
